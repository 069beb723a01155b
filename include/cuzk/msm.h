/* Multi-scalar multiplication (Pippenger) over G1 and G2:
 *   out = sum_i k_i * P_i
 * with affine bases P_i (infinity = (0,0), allowed and skipped) and Fr
 * scalars.  Everything here is variable time (_var in spirit): scalars and
 * bases are public in Groth16 proving (the witness-dependent vectors are
 * blinded by r, s, which never pass through this layer).
 *
 * Algorithm (details and measurements in docs/perf-notes.md, "MSM"):
 *  - scalars are converted once to canonical integers (cuzk_scalar);
 *  - 0/1 split: zero scalars are skipped; the bases of scalars equal to 1
 *    are summed by batch-affine pair additions (one inversion per round);
 *  - the rest goes through Pippenger with signed (Booth) c-bit digits,
 *    2^(c-1) affine buckets per window, c from a cost model; points are
 *    taken in chunks, grouped by bucket, and each group (bucket value first)
 *    is reduced by rounds of affine pair additions that share one batched
 *    inversion per chunk and round; bucket sums are combined by running sums
 *    in XYZZ coordinates.  Small inputs use XYZZ buckets directly (no
 *    inversions).
 *
 * Memory: all working memory is the scratch below; it holds per-term index
 * lists (O(nvars)) and, per concurrent task, the affine bucket array of one
 * window (2^(c-1) points, 3 MiB for G1 at c = 16) plus a chunk buffer.
 * bellperson rejects infinity bases (UnexpectedIdentity); here they simply
 * contribute nothing.
 *
 * Density (bellperson's DensityTracker contract): a query over nvars
 * variables has nvars scalars, but only the variables whose density bit is
 * set have a base, and the bases are stored compactly, in variable order:
 * the j-th set bit consumes bases[j].  Scalars of variables whose bit is
 * clear are ignored (whatever their value).  Bit i is
 * (density[i / 64] >> (i % 64)) & 1.  density == NULL means every variable
 * has a base (bases[i] goes with scalars[i]).  nbases may exceed the number
 * of set bits (extra bases are unused, as bellperson's source with skip);
 * fewer is an error (CUZK_ERR_ARG).
 *
 * Threads and memory: no threads are created; work is split into tiles
 * (window range x point range) run through the caller's cuzk_par (NULL =
 * calling thread).  Scratch memory is caller-supplied: size it with
 * cuzk_msm_g1_scratch_sizeof(nvars, par); passing scratch == NULL makes the
 * call do exactly one malloc of that size and free it before returning
 * (CUZK_ERR_NOMEM if that fails).  cuzk_msm_g1_scratch_sizeof is enough for
 * every variant with default options (the _opts variants with a forced
 * window or strategy may need more: pass scratch == NULL there, or get
 * CUZK_ERR_ARG); the _canonical ones need only
 * cuzk_msm_g1_canonical_scratch_sizeof (scalars are read in place, not
 * copied), which is what the engine should use for large vectors. */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec.h"
#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A scalar as its canonical integer (NOT Montgomery form), little-endian
 * 64-bit limbs, value < r.  Same size as cuzk_fr, so a vector can be
 * converted in place. */
typedef struct { uint64_t l[4]; } cuzk_scalar;

/* out[i] = canonical integer of in[i]; out may equal in (cast) -- the
 * engine converts a witness once and reuses it for several MSMs. */
void cuzk_scalars_from_fr(cuzk_scalar *out, const cuzk_fr *in, size_t n);

/* Largest number of variables one call accepts (term indices are 31 bits). */
#define CUZK_MSM_MAX_TERMS ((size_t)1 << 31)

/* ---- whole MSM ------------------------------------------------------------ */
/* Scratch bytes for an MSM over nvars variables run on par (the size
 * depends on cuzk_par_threads(par)). */
size_t cuzk_msm_g1_scratch_sizeof(size_t nvars, const cuzk_par *par);
size_t cuzk_msm_g2_scratch_sizeof(size_t nvars, const cuzk_par *par);
/* Smaller scratch for the _canonical/_opts variants, which read the
 * caller's scalars in place: ~12 bytes per variable instead of ~44 (plus
 * the per-thread tile scratch). */
size_t cuzk_msm_g1_canonical_scratch_sizeof(size_t nvars, const cuzk_par *par);
size_t cuzk_msm_g2_canonical_scratch_sizeof(size_t nvars, const cuzk_par *par);

/* out = sum over variables i < nvars with density bit set of
 * scalars[i] * (next base).  Returns CUZK_OK, CUZK_ERR_ARG (NULL pointer
 * with a nonzero count, nvars > CUZK_MSM_MAX_TERMS, too few bases, scratch
 * too small) or CUZK_ERR_NOMEM.  nvars == 0 gives infinity.
 * The _canonical variants take pre-converted scalars (cuzk_scalars_from_fr);
 * the plain ones convert into scratch.  Infinity bases contribute nothing. */
CUZK_MUST_CHECK int cuzk_msm_g1(cuzk_par *par, cuzk_g1 *out, const cuzk_g1_affine *bases, size_t nbases,
                const cuzk_fr *scalars, size_t nvars, const uint64_t *density,
                void *scratch, size_t scratch_len);
CUZK_MUST_CHECK int cuzk_msm_g1_canonical(cuzk_par *par, cuzk_g1 *out, const cuzk_g1_affine *bases,
                          size_t nbases, const cuzk_scalar *scalars, size_t nvars,
                          const uint64_t *density, void *scratch, size_t scratch_len);
CUZK_MUST_CHECK int cuzk_msm_g2(cuzk_par *par, cuzk_g2 *out, const cuzk_g2_affine *bases, size_t nbases,
                const cuzk_fr *scalars, size_t nvars, const uint64_t *density,
                void *scratch, size_t scratch_len);
CUZK_MUST_CHECK int cuzk_msm_g2_canonical(cuzk_par *par, cuzk_g2 *out, const cuzk_g2_affine *bases,
                          size_t nbases, const cuzk_scalar *scalars, size_t nvars,
                          const uint64_t *density, void *scratch, size_t scratch_len);

/* ---- tuning knobs (benchmarks and tests) ---------------------------------- */
typedef struct {
    unsigned window;       /* c in 1..CUZK_MSM_MAX_WINDOW; 0 = cost model */
    int no_01_split;       /* 1: send 0/1 scalars through Pippenger too */
    int strategy;          /* 0 = cost model, 1 = batch-affine bucket array, 2 = XYZZ
                              buckets, 3 = batch-affine on bucket-sorted terms */
} cuzk_msm_opts;
#define CUZK_MSM_MAX_WINDOW 20u

/* As cuzk_msm_g1_canonical with explicit knobs (opts == NULL: defaults).
 * A forced window or strategy may need more scratch than the
 * *_scratch_sizeof functions give (they size the cost model's choices):
 * pass scratch == NULL then. */
CUZK_MUST_CHECK int cuzk_msm_g1_opts(cuzk_par *par, cuzk_g1 *out, const cuzk_g1_affine *bases, size_t nbases,
                     const cuzk_scalar *scalars, size_t nvars, const uint64_t *density,
                     void *scratch, size_t scratch_len, const cuzk_msm_opts *opts);
CUZK_MUST_CHECK int cuzk_msm_g2_opts(cuzk_par *par, cuzk_g2 *out, const cuzk_g2_affine *bases, size_t nbases,
                     const cuzk_scalar *scalars, size_t nvars, const uint64_t *density,
                     void *scratch, size_t scratch_len, const cuzk_msm_opts *opts);

/* ---- tile level (the engine owns placement) ------------------------------ */
/* Window bits the cost model picks for n Pippenger terms. */
unsigned cuzk_msm_window_bits(size_t n);
/* Number of signed c-bit windows covering a 255-bit scalar: ceil(256 / c). */
unsigned cuzk_msm_nwindows(unsigned c);

/* Tile: window sums for windows [w0, w1) over terms t < n:
 *   out[w - w0] = sum_t d_w(k[t]) * bases[idx[t]]     (idx == NULL: idx[t] = t)
 * where d_w is the signed Booth digit of window w (k = sum_w 2^(wc) d_w).
 * strategy as in cuzk_msm_opts (0 = cost model).  Scratch from
 * cuzk_msm_g1_tile_scratch_sizeof(n, c); n <= CUZK_MSM_MAX_TERMS. */
size_t cuzk_msm_g1_tile_scratch_sizeof(size_t n, unsigned c);
size_t cuzk_msm_g2_tile_scratch_sizeof(size_t n, unsigned c);
CUZK_MUST_CHECK int cuzk_msm_g1_tile(cuzk_g1 *out, const cuzk_g1_affine *bases, const uint32_t *idx,
                     const cuzk_scalar *k, size_t n, unsigned c, unsigned w0, unsigned w1,
                     int strategy, void *scratch, size_t scratch_len);
CUZK_MUST_CHECK int cuzk_msm_g2_tile(cuzk_g2 *out, const cuzk_g2_affine *bases, const uint32_t *idx,
                     const cuzk_scalar *k, size_t n, unsigned c, unsigned w0, unsigned w1,
                     int strategy, void *scratch, size_t scratch_len);
/* out = sum_w 2^(w c) * win[w] for w < nwin (Horner; win summed over point
 * ranges by the caller with cuzk_g1_add). */
void cuzk_msm_g1_combine(cuzk_g1 *out, const cuzk_g1 *win, unsigned nwin, unsigned c);
void cuzk_msm_g2_combine(cuzk_g2 *out, const cuzk_g2 *win, unsigned nwin, unsigned c);
/* Sum of bases[idx[t]] for t < n by batch-affine pair additions (the
 * "scalar = 1" part); scratch from cuzk_msm_g1_tile_scratch_sizeof(0, 1). */
CUZK_MUST_CHECK int cuzk_msm_g1_sum(cuzk_g1 *out, const cuzk_g1_affine *bases, const uint32_t *idx, size_t n,
                    void *scratch, size_t scratch_len);
CUZK_MUST_CHECK int cuzk_msm_g2_sum(cuzk_g2 *out, const cuzk_g2_affine *bases, const uint32_t *idx, size_t n,
                    void *scratch, size_t scratch_len);

#ifdef __cplusplus
}
#endif
#endif
