/* Groth16 over BLS12-381, bellperson-compatible: parameter and verifying-key
 * files (filecoin-formats.md section 3), random test parameters, a batch
 * prover (section 4), a verifier with batching, and snarkjs JSON export.
 *
 * Files.  A `.vk` is 864 bytes of fixed points then u32 BE n_ic and n_ic
 * uncompressed G1 points; a `.params` is the same vk followed by five
 * u32-BE-counted vectors h, l, a, b_g1 (G1, 96 bytes each) and b_g2 (G2,
 * 192 bytes each).  Every point in both files must be a non-identity point
 * of the prime-order subgroup.  Parameters can be loaded two ways:
 *  - resident: streamed from a FILE*, decoded into arrays (RAM ~ 1x file);
 *  - mapped: mmap(2) of the file, nothing copied; points are decoded on
 *    demand into caller buffers (cuzk_groth16_params_g1/_g2), so a file
 *    larger than RAM is usable (the prover walks it in chunks).
 * Either way the loader validates every point in parallel through the
 * caller's cuzk_par unless told not to, and reports the first failure with
 * the vector, the index and the rule ("params: l[17]: point is not in the
 * prime-order subgroup").
 *
 * Test parameters.  cuzk_groth16_setup_test derives the toxic waste from a
 * seed (SHA-512, OpenSSL) and multiplies with constant-time scalar
 * multiplication.  Files written for such parameters get a sidecar
 * `<file>.test` (e.g. `chain.params.test`, `chain.vk.test`) holding a
 * human-readable warning and the seed; the loaders set `is_test` when the
 * sidecar exists, and tools must warn.  Anyone holding the seed can forge
 * proofs: test parameters are for tests only.
 *
 * Threads: nothing here creates threads; parallel work goes through the
 * cuzk_par passed in (NULL = calling thread).  The prover's NTT and MSM go
 * through a cuzk_groth16_backend (function pointers) so a GPU backend can
 * replace the CPU one.
 *
 * Secrets: r, s (prover blinding) and the setup's toxic waste only go
 * through constant-time code; everything else here is public data and may
 * be variable time. */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/ec.h"
#include "cuzk/mapguard.h"
#include "cuzk/par.h"
#include "cuzk/pce.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_G16_PROOF_BYTES 192 /* A (48) || B (96) || C (48), compressed */
#define CUZK_G16_VK_FIXED_BYTES 864
#define CUZK_G16_ERR_LEN 256 /* suggested size of error buffers */

/* ---- keys and parameters --------------------------------------------------- */

typedef struct cuzk_groth16_vk {
    cuzk_g1_affine alpha_g1, beta_g1, delta_g1;
    cuzk_g2_affine beta_g2, gamma_g2, delta_g2;
    cuzk_g1_affine *ic; /* n_ic points; ic[0] goes with ONE */
    size_t n_ic;
    bool is_test; /* loaded file had a `.test` sidecar / made by setup_test */
} cuzk_groth16_vk;

/* The five vectors of a .params file after the vk. */
typedef enum {
    CUZK_G16_H = 0,
    CUZK_G16_L = 1,
    CUZK_G16_A = 2,
    CUZK_G16_B_G1 = 3,
    CUZK_G16_B_G2 = 4,
} cuzk_groth16_vec;

typedef struct cuzk_groth16_params cuzk_groth16_params; /* opaque */

/* What a circuit needs from its parameters; the loader checks the counts
 * (n_ic = n_inputs, h = m - 1 with m = 2^ceil(log2 n_constraints),
 * l = n_aux, a = n_inputs + n_a_aux, b = n_b_inputs + n_b_aux). */
typedef struct cuzk_groth16_shape {
    size_t n_inputs; /* including ONE */
    size_t n_aux;
    size_t n_constraints; /* including the appended input constraints */
    size_t n_a_aux;       /* aux variables present in some A */
    size_t n_b_inputs;    /* inputs present in some B */
    size_t n_b_aux;       /* aux variables present in some B */
} cuzk_groth16_shape;

enum {
    CUZK_G16_LOAD_MMAP = 1u << 0,        /* map the file instead of reading it */
    CUZK_G16_LOAD_NO_VALIDATE = 1u << 1, /* trust the file: no point checks at all */
    CUZK_G16_LOAD_NO_SUBGROUP = 1u << 2, /* check encodings/curve, skip subgroup (bellperson checked=false) */
};

typedef struct cuzk_groth16_load_opts {
    unsigned flags;                  /* CUZK_G16_LOAD_* */
    const cuzk_groth16_shape *shape; /* NULL: only internal consistency is checked */
    cuzk_par *par;                   /* parallel validation; NULL = calling thread */
    char *err;                       /* if not NULL, receives a precise message */
    size_t err_len;
} cuzk_groth16_load_opts;

/* Load `path` (resident, or mapped with CUZK_G16_LOAD_MMAP); checks for the
 * `<path>.test` sidecar.  opts may be NULL (resident, full validation).
 *
 * Mapped files: every read of the map (validation at load, the per-chunk
 * decodes of cuzk_groth16_params_g1/_g2 during a prove, writing) is done
 * under a per-thread recovery point, so that a file truncated while mapped
 * fails that read with CUZK_ERR_CHANGED instead of killing the process --
 * once cuzk_map_guard_install (cuzk/mapguard.h) has installed the SIGBUS
 * handler.  The library never installs it itself (it is process-wide
 * state): the engine does before its first map, tools that map call it too. */
/* Load a params file (see above). */
CUZK_MUST_CHECK int cuzk_groth16_params_load(cuzk_groth16_params **out, const char *path, const cuzk_groth16_load_opts *opts);
/* Read from a stream (resident).  No sidecar check: the caller knows. */
CUZK_MUST_CHECK int cuzk_groth16_params_read(cuzk_groth16_params **out, FILE *f, const cuzk_groth16_load_opts *opts);
void cuzk_groth16_params_free(cuzk_groth16_params *p);

const cuzk_groth16_vk *cuzk_groth16_params_vk(const cuzk_groth16_params *p);
size_t cuzk_groth16_params_count(const cuzk_groth16_params *p, cuzk_groth16_vec v);
bool cuzk_groth16_params_is_mapped(const cuzk_groth16_params *p);
bool cuzk_groth16_params_is_test(const cuzk_groth16_params *p);
/* Decode points [start, start + n) of a G1 vector (H, L, A, B_G1) or of
 * B_G2 into out.  Resident: a copy; mapped: decoded from the file without
 * re-running the subgroup check (the loader did it, unless told not to). */
CUZK_MUST_CHECK int cuzk_groth16_params_g1(cuzk_g1_affine *out, const cuzk_groth16_params *p, cuzk_groth16_vec v,
                           size_t start, size_t n);
CUZK_MUST_CHECK int cuzk_groth16_params_g2(cuzk_g2_affine *out, const cuzk_groth16_params *p, size_t start, size_t n);
/* Direct pointer to a resident vector (NULL when mapped). */
const cuzk_g1_affine *cuzk_groth16_params_g1_data(const cuzk_groth16_params *p, cuzk_groth16_vec v);
const cuzk_g2_affine *cuzk_groth16_params_g2_data(const cuzk_groth16_params *p);

/* Check counts against a circuit shape; message in err. */
CUZK_MUST_CHECK int cuzk_groth16_params_check_shape(const cuzk_groth16_params *p, const cuzk_groth16_shape *s, char *err,
                                    size_t err_len);

/* Write in bellperson format (uncompressed points). */
CUZK_MUST_CHECK int cuzk_groth16_params_write(FILE *f, const cuzk_groth16_params *p);
CUZK_MUST_CHECK int cuzk_groth16_vk_write(FILE *f, const cuzk_groth16_vk *vk);

/* Verifying key alone (`.vk` file, or the head of a `.params`): *out is
 * malloc'd, free with cuzk_groth16_vk_free.  Only NO_VALIDATE/NO_SUBGROUP
 * flags apply; shape->n_inputs (if given) is checked against n_ic. */
CUZK_MUST_CHECK int cuzk_groth16_vk_load(cuzk_groth16_vk **out, const char *path, const cuzk_groth16_load_opts *opts);
CUZK_MUST_CHECK int cuzk_groth16_vk_read(cuzk_groth16_vk **out, FILE *f, const cuzk_groth16_load_opts *opts);
/* Decode a vk from memory (len must be exact).  Used by the fuzz harness. */
CUZK_MUST_CHECK int cuzk_groth16_vk_decode(cuzk_groth16_vk **out, const uint8_t *buf, size_t len,
                           const cuzk_groth16_load_opts *opts);
/* Decode params from memory (copies into resident arrays). */
CUZK_MUST_CHECK int cuzk_groth16_params_decode(cuzk_groth16_params **out, const uint8_t *buf, size_t len,
                               const cuzk_groth16_load_opts *opts);
void cuzk_groth16_vk_free(cuzk_groth16_vk *vk);

/* Write the `<path>.test` sidecar marking a file as test parameters. */
CUZK_MUST_CHECK int cuzk_groth16_mark_test(const char *path, const char *note);
/* true iff `<path>.test` exists. */
bool cuzk_groth16_is_test_file(const char *path);

/* ---- circuits for setup ------------------------------------------------------ */

/* The complete bellperson system as CSR matrices (cuzk/r1cs.h), INCLUDING
 * the appended input constraints (input_i * 0 = 0, A only).  Column j <
 * n_inputs is input j (0 = ONE), column n_inputs + k is aux k.  A
 * variable's A (B) density is "some nonzero coefficient in its A (B)
 * column", the rule cuzk_cs uses by default. */
typedef struct cuzk_groth16_r1cs {
    size_t n_constraints, n_inputs, n_aux;
    cuzk_csr a, b, c;
} cuzk_groth16_r1cs;

/* View of a finished cs created with CUZK_CS_MATRICES (no copy). */
CUZK_MUST_CHECK int cuzk_groth16_r1cs_from_cs(cuzk_groth16_r1cs *out, const cuzk_cs *cs);

/* Random test parameters for cs, toxic waste derived from seed.  Fails with
 * CUZK_ERR_ARG ("aux variable k is unconstrained") when an L point would be
 * the identity, as bellperson does.  One constant-time fixed-base scalar
 * multiplication per point (~15 us G1, ~33 us G2 on one core); parallel
 * through par. */
CUZK_MUST_CHECK int cuzk_groth16_setup_test(cuzk_groth16_params **out, const cuzk_groth16_r1cs *cs, const uint8_t *seed,
                            size_t seed_len, cuzk_par *par, char *err, size_t err_len);
/* Progress of a long setup: called on the thread that called
 * cuzk_groth16_setup_test_progress, between chunks of points, with the query
 * being computed ("H", "IC", "L", "A", "B_G1", "B_G2") and the points done
 * and in total over all queries (done reaches total at the end). */
typedef void (*cuzk_groth16_progress_fn)(void *ctx, const char *phase, size_t done, size_t total);
/* cuzk_groth16_setup_test with progress reports (progress may be NULL). */
CUZK_MUST_CHECK int cuzk_groth16_setup_test_progress(cuzk_groth16_params **out, const cuzk_groth16_r1cs *cs,
                                     const uint8_t *seed, size_t seed_len, cuzk_par *par,
                                     cuzk_groth16_progress_fn progress, void *progress_ctx, char *err,
                                     size_t err_len);
/* Shape (counts and densities) of cs, as the loader and prover expect. */
CUZK_MUST_CHECK int cuzk_groth16_r1cs_shape(cuzk_groth16_shape *out, const cuzk_groth16_r1cs *cs);

/* ---- streaming test setup (setup_file.c) -------------------------------------- */

/* Random TEST parameters for the circuit recorded in a PCE file, written
 * straight to `path` (bellperson layout, the same bytes as
 * cuzk_groth16_setup_test + cuzk_groth16_params_write for the same seed) and
 * its verifying key to `vk_path` (may be NULL), at any size in bounded
 * memory: the column sums take mem_budget bytes (0 = 3 GiB; 96 bytes a
 * column, at least the inputs), the rest is tables (~150 MB) and per-task
 * buffers.  VARIABLE TIME in the toxic waste: only for test parameters,
 * whose toxic waste is public (derived from the seed); real secrets go
 * through the constant-time cuzk_groth16_setup_test.  Written to
 * <path>.tmp.<pid>, fsync'd and renamed (nothing is left on failure; the
 * free disk space is checked first).  Progress through o->progress with
 * the query ("H", "IC", "L", "A", "B_G1", "B_G2", "column sums k/n").
 * Errors: CUZK_ERR_ARG (an unconstrained aux variable, an unlucky seed, a
 * budget below the inputs), CUZK_ERR_IO (with the path and reason),
 * CUZK_ERR_FORMAT / CHANGED (the PCE file), CUZK_ERR_NOMEM. */
typedef struct {
    const char *path, *vk_path;
    size_t mem_budget;
    unsigned window_g1, window_g2; /* fixed-base windows; 0 = 14 and 16 */
    cuzk_par *par;
    cuzk_groth16_progress_fn progress;
    void *progress_ctx;
} cuzk_groth16_setup_file_opts;

typedef struct {
    size_t constraints, g1_points, g2_points, passes, range;
    uint64_t file_bytes;
    double prep_s, h_s, columns_s, total_s; /* wall seconds */
    bool ifma;                              /* the AVX-512 IFMA additions were used */
} cuzk_groth16_setup_file_info;

CUZK_MUST_CHECK int cuzk_groth16_setup_test_file(const cuzk_pce *pce, const uint8_t *seed, size_t seed_len,
                                                 const cuzk_groth16_setup_file_opts *o,
                                                 cuzk_groth16_setup_file_info *info, char *err, size_t err_len);

/* ---- prover ------------------------------------------------------------------ */

/* A synthesized circuit: per-constraint evaluations of A, B, C at the
 * witness, the assignment, and density bitmaps (bit i of word i/64). */
typedef struct cuzk_groth16_witness {
    size_t n_constraints; /* including the input constraints */
    const cuzk_fr *a, *b, *c;
    size_t n_inputs;      /* including ONE */
    const cuzk_fr *input; /* input[0] must be 1 */
    size_t n_aux;
    const cuzk_fr *aux;
    const uint64_t *a_aux_density;   /* n_aux bits */
    const uint64_t *b_input_density; /* n_inputs bits */
    const uint64_t *b_aux_density;   /* n_aux bits */
    /* Optional, to save 3 x 32 bytes per constraint: writable evaluation
     * arrays with room for m = 2^ceil(log2 n_constraints) elements each
     * (cuzk_groth16_witness_take_evals).  When set, the prover computes H
     * in them in place and CLOBBERS them (the proof needs them once), and
     * a, b, c are ignored.  The CPU prover also keeps its canonical aux in
     * b_mut and its MSM scratch in c_mut when it fits. */
    cuzk_fr *a_mut, *b_mut, *c_mut;
    /* Optional lean H (two domain vectors instead of three): with a_mut and
     * b_mut set and c_mut NULL, the prover asks for the C evaluations only
     * after A*B has been formed on the coset, writing the n_constraints
     * values into the buffer that held B (room for m elements):
     * fill_c(fill_c_ctx, out, n_constraints) returns a status.  The source
     * must be able to recompute c from the witness (the pre-compiled
     * constraint evaluator's mat-vec does).  The CPU prover then runs the H
     * MSM with its scratch in b_mut and the other MSMs with it in a_mut, so
     * a proof needs a_mut, b_mut, the assignment and no third vector. */
    int (*fill_c)(void *ctx, cuzk_fr *out, size_t n);
    void *fill_c_ctx;
} cuzk_groth16_witness;

/* View of a finished PROVE-mode cs (no copy; valid while cs lives). */
CUZK_MUST_CHECK int cuzk_groth16_witness_from_cs(cuzk_groth16_witness *out, const cuzk_cs *cs);

/* After cuzk_groth16_witness_from_cs(w, cs): takes cs's A, B, C
 * evaluations (cuzk_cs_take_evals) for the prover to transform in place,
 * grown to m = cuzk_groth16_params_count(params, CUZK_G16_H) + 1 elements
 * each, and sets w->a_mut/b_mut/c_mut.  owned[0..2] receive the allocations, which
 * the caller frees after proving (NULL entries allowed); the cs no longer
 * has evaluations.  Returns CUZK_OK; CUZK_ERR_NOMEM when growing failed
 * (then w->a/b/c point at the taken evaluations, still intact, the
 * _mut pointers are NULL and the prover copies them as usual); or
 * CUZK_ERR_ARG (no evaluations to take, m < n_constraints; nothing
 * changed). */
CUZK_MUST_CHECK int cuzk_groth16_witness_take_evals(cuzk_groth16_witness *w, cuzk_cs *cs, size_t m, cuzk_fr *owned[3]);

/* The lean form (cuzk/pce_lean.h): cs is a finished WITNESS-mode system
 * whose density was set by cuzk_pce_evaluate_ab, a and b hold its A and B
 * evaluations (room for m elements each, transformed in place), fill_c
 * gives C on demand.  View of cs, no copy; CUZK_ERR_ARG when something is
 * missing. */
CUZK_MUST_CHECK int cuzk_groth16_witness_lean(cuzk_groth16_witness *w, const cuzk_cs *cs, cuzk_fr *a, cuzk_fr *b,
                              int (*fill_c)(void *, cuzk_fr *, size_t), void *fill_c_ctx);

/* Compute backend.  All functions return a status.  Scalars are cuzk_fr
 * (Montgomery form, as everywhere).  The default CPU backend
 * (cuzk_groth16_backend_cpu) runs cuzk/msm.h and cuzk/ntt.h; a GPU backend
 * fills the same struct. */
typedef struct cuzk_groth16_backend {
    const char *name;
    void *ctx;
    /* r = sum over variables i < nvars whose density bit is set (density
     * NULL: all) of s[i] * (next base) -- cuzk/msm.h's density contract. */
    int (*msm_g1)(void *ctx, cuzk_g1 *r, const cuzk_g1_affine *bases, size_t nbases, const cuzk_fr *s,
                  size_t nvars, const uint64_t *density, cuzk_par *par);
    int (*msm_g2)(void *ctx, cuzk_g2 *r, const cuzk_g2_affine *bases, size_t nbases, const cuzk_fr *s,
                  size_t nvars, const uint64_t *density, cuzk_par *par);
    /* H coefficients: a, b, c hold n evaluations each (at the first n
     * points of the size-2^log_m domain) and room for 2^log_m elements;
     * on return a[0..m-2] holds the coefficients of (A*B - C)/Z.  b and c
     * are clobbered. */
    int (*h_poly)(void *ctx, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, size_t n, unsigned log_m, cuzk_par *par);
    /* Optional: the same H from a and b only, asking fill_c for the C
     * evaluations (written into b) once a holds A*B on the coset (see
     * cuzk_groth16_witness.fill_c).  NULL: the prover allocates a third
     * buffer, fills it first and calls h_poly. */
    int (*h_poly_lean)(void *ctx, cuzk_fr *a, cuzk_fr *b, size_t n, unsigned log_m,
                       int (*fill_c)(void *, cuzk_fr *, size_t), void *fill_ctx, cuzk_par *par);
} cuzk_groth16_backend;

const cuzk_groth16_backend *cuzk_groth16_backend_cpu(void);

/* Seconds per phase, summed over the batch.  synthesis is filled by callers
 * that synthesize (the prover itself receives synthesized witnesses). */
typedef struct cuzk_groth16_timings {
    double synthesis, h_ntt, msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2, assembly, total;
} cuzk_groth16_timings;

typedef struct cuzk_groth16_prove_opts {
    bool deterministic;                  /* r = s = 0: byte-identical proofs (tests only) */
    const cuzk_groth16_backend *backend; /* NULL = CPU */
    cuzk_par *par;
    cuzk_groth16_timings *timings; /* optional out */
    bool cpu_time;                 /* timings in process CPU seconds (all threads)
                                    * instead of wall seconds: for shared machines */
    size_t chunk_vars;             /* mapped params: variables per decoded chunk,
                                    * a multiple of 64 (0 = 2^20); tests use small ones */
    char *err;
    size_t err_len;
    /* Optional safe-point hook (cancellation, preemption): called before
     * the H computation and before every MSM call (per chunk with mapped
     * params); a non-zero return stops the prove, which returns that
     * value.  Lets a caller stop work without wrapping the backend, so the
     * CPU backend keeps its fast path. */
    int (*checkpoint)(void *ctx);
    void *checkpoint_ctx;
} cuzk_groth16_prove_opts;

/* Prove n circuits that share params; proofs[i] gets A || B || C.  Each
 * witness is checked against the params' counts first. */
CUZK_MUST_CHECK int cuzk_groth16_prove(uint8_t (*proofs)[CUZK_G16_PROOF_BYTES], const cuzk_groth16_params *p,
                       const cuzk_groth16_witness *w, size_t n, const cuzk_groth16_prove_opts *opts);
/* One proof of a finished PROVE-mode cs (witness_from_cs + prove, n = 1);
 * opts may be NULL; on failure err gets "<what>: prove failed: <reason>". */
CUZK_MUST_CHECK int cuzk_groth16_prove_cs(uint8_t proof[CUZK_G16_PROOF_BYTES], const cuzk_groth16_params *params,
                          const cuzk_cs *cs, const cuzk_groth16_prove_opts *opts, const char *what, char *err,
                          size_t err_len);

/* ---- verifier ---------------------------------------------------------------- */

typedef struct cuzk_groth16_pvk {
    cuzk_fp12 alpha_beta; /* e(alpha_g1, beta_g2) */
    cuzk_g2_affine neg_gamma, neg_delta;
    cuzk_g1_affine alpha_g1;
    cuzk_g2_affine beta_g2;
    const cuzk_groth16_vk *vk; /* borrowed: must outlive the pvk */
} cuzk_groth16_pvk;

void cuzk_groth16_pvk_prepare(cuzk_groth16_pvk *pvk, const cuzk_groth16_vk *vk);

/* *valid = whether proof verifies for the public inputs (n_inputs =
 * n_ic - 1, without ONE, canonical).  Returns an error (not *valid = false)
 * when the proof does not decode (message says which point and rule) or
 * the inputs are malformed; such a proof is invalid too. */
CUZK_MUST_CHECK int cuzk_groth16_verify(bool *valid, const cuzk_groth16_pvk *pvk, const uint8_t proof[CUZK_G16_PROOF_BYTES],
                        const cuzk_fr *inputs, size_t n_inputs, char *err, size_t err_len);
/* Batch of n proofs; inputs holds n * n_inputs elements (proof-major).
 * One multi-pairing with 128-bit random weights from getrandom(2): a
 * batch with any bad proof is rejected with probability >= 1 - 2^-128. */
CUZK_MUST_CHECK int cuzk_groth16_verify_batch(bool *valid, const cuzk_groth16_pvk *pvk,
                              const uint8_t (*proofs)[CUZK_G16_PROOF_BYTES], size_t n, const cuzk_fr *inputs,
                              size_t n_inputs, char *err, size_t err_len);

/* Public inputs files: n raw 32-byte little-endian Fr, without ONE. */
CUZK_MUST_CHECK int cuzk_groth16_inputs_decode(cuzk_fr *out, const uint8_t *buf, size_t len, size_t *n_out, size_t cap,
                               char *err, size_t err_len);

/* ---- snarkjs interop (snarkjs 0.7.6, curve "bls12381") ------------------------ */

/* Write verification_key.json / proof.json / public.json contents. */
CUZK_MUST_CHECK int cuzk_groth16_snarkjs_vk(FILE *f, const cuzk_groth16_vk *vk);
CUZK_MUST_CHECK int cuzk_groth16_snarkjs_proof(FILE *f, const uint8_t proof[CUZK_G16_PROOF_BYTES]);
CUZK_MUST_CHECK int cuzk_groth16_snarkjs_public(FILE *f, const cuzk_fr *inputs, size_t n);

#ifdef __cplusplus
}
#endif
#endif
