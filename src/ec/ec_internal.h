/* Internal interface of the curve layer (src/ec), also used by MSM code and
 * the tests.
 *
 * Scalar decomposition.  Everything rests on the BLS12-381 parameter
 * x = -0xd201000000010000 (|x| = CUZK_EC_X_ABS) with r = x^4 - x^2 + 1:
 *  - writing a canonical scalar k < r in base |x| gives four 64-bit digits
 *    k = d0 + d1|x| + d2|x|^2 + d3|x|^3 (d3 < |x| because r < |x|^4);
 *  - on G1 the endomorphism phi(x, y) = (beta x, y) acts as [-x^2], so
 *    k P = (d0 + d1|x|) P + (d2 + d3|x|) (-phi(P))   (two 128-bit scalars);
 *  - on G2 psi (untwist-Frobenius-twist) acts as [x] = -[|x|], so
 *    k Q = d0 Q + d1 (-psi Q) + d2 psi^2 Q + d3 (-psi^3 Q)   (four 64-bit).
 * Both identities hold only for points of the prime-order subgroups; the
 * scalar multiplications are documented to require that.
 *
 * The _var functions declared here are the fast, NOT constant-time point
 * operations (public data only: MSM buckets, verification, decoding). */
#ifndef CUZK_EC_INTERNAL_H
#define CUZK_EC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec.h"

#define CUZK_EC_X_ABS 0xd201000000010000ull /* |x|; x itself is negative */

/* ---- scalars (scalar.c) -------------------------------------------------- */
/* d[0..3] = base-|x| digits of the canonical integer of k (constant time). */
void cuzk_ec_split_x(uint64_t d[4], const cuzk_fr *k);

/* Signed fixed-window recoding for constant-time multiplication, window 5:
 * k = sum out[i] * 32^i with out[i] in [-16, 16] (zero allowed).  Constant
 * time in k.  Needs k < 2^(5*ndigits - 1) so the last carry fits. */
#define CUZK_EC_CT_WINDOW 5
void cuzk_ec_recode_ct(int8_t *out, size_t ndigits, unsigned __int128 k);

/* Width-w NAF of k (k < 2^128 - 2^w, 2 <= w <= 7): out[i] odd in
 * (-2^(w-1), 2^(w-1)) or 0, no two non-zeros within w positions.  Returns
 * the number of digits (<= 129; out needs 129 entries).  Variable time. */
size_t cuzk_ec_wnaf_var(int8_t *out, unsigned __int128 k, int w);

/* ---- fast non-constant-time point operations ----------------------------- */
/* Complete (any inputs) but branch on the inputs. */
void cuzk_g1_add_var(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1 *q);
void cuzk_g1_add_affine_var(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1_affine *q);
void cuzk_g2_add_var(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_g2 *q);
void cuzk_g2_add_affine_var(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_g2_affine *q);

/* G1 endomorphism phi(x, y) = (beta x, y) on Jacobian points (= [-x^2] on G1). */
void cuzk_g1_phi(cuzk_g1 *r, const cuzk_g1 *p);
/* G2 endomorphism psi (= [x] on G2). */
void cuzk_g2_psi(cuzk_g2 *r, const cuzk_g2 *p);

/* r = |x| * p by double-and-add over the fixed public constant (the
 * sequence of operations does not depend on p). */
void cuzk_g1_mul_by_x_abs(cuzk_g1 *r, const cuzk_g1 *p);
void cuzk_g2_mul_by_x_abs(cuzk_g2 *r, const cuzk_g2 *p);

/* The curve constant b (Montgomery form). */
extern const cuzk_fp CUZK_G1_B;
extern const cuzk_fp2 CUZK_G2_B;


/* ---- fixed-base multiplication (fixed_base.c) ----------------------------- */
/* k P for a base P known in advance, from a table of CUZK_EC_FB_ENTRIES
 * affine points (T[i][j] = (j + 1) 2^(w i) P, w = CUZK_EC_FB_W): one complete
 * mixed addition per signed w-bit digit of k and no doublings.  The
 * multiplication is constant time in k (masked scans of each window, complete
 * additions); building the table is variable time in P (P public).  Works for
 * any P (no subgroup requirement).  w = 7 was the fastest of 5..9 here;
 * tables are 2368 points (222 KiB G1, 444 KiB G2), allocated by the caller. */
#define CUZK_EC_FB_W 7
#define CUZK_EC_FB_WINDOWS ((256 + CUZK_EC_FB_W - 1) / CUZK_EC_FB_W)
#define CUZK_EC_FB_ENTRIES ((size_t)CUZK_EC_FB_WINDOWS << (CUZK_EC_FB_W - 1))
void cuzk_g1_fixed_table_var(cuzk_g1_affine *table, const cuzk_g1 *p);
void cuzk_g2_fixed_table_var(cuzk_g2_affine *table, const cuzk_g2 *p);
void cuzk_g1_mul_fixed(cuzk_g1 *r, const cuzk_g1_affine *table, const cuzk_fr *k);
void cuzk_g2_mul_fixed(cuzk_g2 *r, const cuzk_g2_affine *table, const cuzk_fr *k);
/* out[i] = k[i] P (affine) for i < n, constant time in the k[i]: affine
 * additions sharing one inversion per window among up to 256 points, about
 * 1.7x faster per point than cuzk_g1_mul_fixed for n = 256 (docs/perf-notes.md).
 * P must be in the prime-order subgroup (no point with y = 0).  scratch:
 * cuzk_g{1,2}_mul_fixed_batch_scratch_size() bytes (~80 KiB / ~145 KiB),
 * aligned like malloc's, one per concurrent call; wiped on return. */
size_t cuzk_g1_mul_fixed_batch_scratch_size(void);
size_t cuzk_g2_mul_fixed_batch_scratch_size(void);
void cuzk_g1_mul_fixed_batch(cuzk_g1_affine *out, const cuzk_g1_affine *table, const cuzk_fr *k, size_t n,
                             void *scratch);
void cuzk_g2_mul_fixed_batch(cuzk_g2_affine *out, const cuzk_g2_affine *table, const cuzk_fr *k, size_t n,
                             void *scratch);

/* ---- wide fixed-base tables, variable time (fixed_base_var.c) ------------ */
/* For PUBLIC scalars only (test-parameter setup: the scalars are public
 * randomness): table lookups and the additions depend on k.  A table of
 * window w (2..FBV_MAX_W) holds ceil(256 / w) rows of 2^(w-1) affine points
 * (w = 16: 48 MiB for G1, 96 MiB for G2); init allocates it (CUZK_ERR_NOMEM,
 * CUZK_ERR_ARG for a bad w) and is itself variable time in P (public).
 * mul_fixed_many_var: out[i] = k[i] P (affine; the identity is (0, 0)) for
 * any scalars, chord additions batched over 512 points with one inversion
 * per window; scratch: cuzk_g{1,2}_fbv_scratch_size(tb) bytes (~150 / ~250
 * KiB, more with an accelerator), 64-byte aligned, one per concurrent call.  P must be in the prime-order subgroup. */
#define CUZK_EC_FBV_MAX_W 20
/* Optional accelerator of the window loop's chord additions, with the
 * contract of cuzk_msm_ifma_pairs (src/msm/msm_ifma.h: O[io[i]] = A[ia[i]] +
 * B[ib[i]], den[i] = x_B - x_A given, flag[i] = 0, one shared inversion,
 * den with room for n rounded up to 16): a caller above the curve layer
 * sets it (the setup: the AVX-512 IFMA kernels where the CPU has them) with
 * the work bytes it needs for n pairs; NULL = the scalar loop here.  The
 * results are the same points either way. */
typedef void (*cuzk_g1_pairs_fn)(cuzk_g1_affine *O, const cuzk_g1_affine *A, const cuzk_g1_affine *B,
                                 const uint32_t *io, const uint32_t *ia, const uint32_t *ib, const uint8_t *flag,
                                 cuzk_fp *den, void *work, size_t n);
typedef void (*cuzk_g2_pairs_fn)(cuzk_g2_affine *O, const cuzk_g2_affine *A, const cuzk_g2_affine *B,
                                 const uint32_t *io, const uint32_t *ia, const uint32_t *ib, const uint8_t *flag,
                                 cuzk_fp2 *den, void *work, size_t n);
typedef struct {
    unsigned w, windows;
    size_t row; /* points per window: 2^(w-1) */
    cuzk_g1_affine *t;
    cuzk_g1_pairs_fn pairs;                /* NULL: scalar */
    size_t (*pairs_work_bytes)(size_t n);
} cuzk_g1_fbv_table;
typedef struct {
    unsigned w, windows;
    size_t row;
    cuzk_g2_affine *t;
    cuzk_g2_pairs_fn pairs;
    size_t (*pairs_work_bytes)(size_t n);
} cuzk_g2_fbv_table;
CUZK_MUST_CHECK int cuzk_g1_fbv_table_init(cuzk_g1_fbv_table *tb, const cuzk_g1 *p, unsigned w);
CUZK_MUST_CHECK int cuzk_g2_fbv_table_init(cuzk_g2_fbv_table *tb, const cuzk_g2 *p, unsigned w);
void cuzk_g1_fbv_table_free(cuzk_g1_fbv_table *tb);
void cuzk_g2_fbv_table_free(cuzk_g2_fbv_table *tb);
size_t cuzk_g1_fbv_scratch_size(const cuzk_g1_fbv_table *tb);
size_t cuzk_g2_fbv_scratch_size(const cuzk_g2_fbv_table *tb);
void cuzk_g1_mul_fixed_many_var(cuzk_g1_affine *out, const cuzk_g1_fbv_table *tb, const cuzk_fr *k, size_t n,
                                void *scratch);
void cuzk_g2_mul_fixed_many_var(cuzk_g2_affine *out, const cuzk_g2_fbv_table *tb, const cuzk_fr *k, size_t n,
                                void *scratch);

#endif
