/* Poseidon over BLS12-381 Fr exactly as neptune (argumentcomputer/neptune,
 * the hash of Filecoin's Merkle trees and column commitments).
 *
 * Parameters: width t = arity + 1, x^5 S-box, R_F = 8 full rounds,
 * R_P = 55/56/57/57/59/59/60 partial rounds for arity 2/4/8/11/16/24/36
 * ("Standard" strength).  Round constants come from the Grain LFSR of the
 * Poseidon reference script (filecoin-formats.md section 7), the MDS
 * matrix is the Cauchy matrix M[i][j] = 1/(i + t + j).  The hash of
 * inputs x_1..x_n under domain tag d permutes the state
 * [d, x_1, .., x_n, 0, .., 0] (zero padding up to the arity) and returns
 * state[1].
 *
 * Two evaluations are provided and give identical results (tested):
 *  - the plain ("correct") permutation: round constants, S-boxes, MDS;
 *  - neptune's optimized static form: compressed round constants, one
 *    pre-sparse matrix and R_P sparse matrices (w_hat, v_rest) for the
 *    partial rounds.  This is what cuzk_poseidon_hash* use, and the
 *    circuit (gadgets.h) takes its R1CS coefficients from the same values.
 *
 * Constants are generated at first use, once per arity (pthread_once, thread
 * safe) and live until process exit; afterwards every call is lock-free and
 * allocation-free.  All functions are constant time in the input values.
 * Unsupported arity: CUZK_ERR_ARG; failed first-use allocation:
 * CUZK_ERR_NOMEM (sticky for that arity). */
#ifndef CUZK_POSEIDON_H
#define CUZK_POSEIDON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_POSEIDON_MAX_ARITY 36
#define CUZK_POSEIDON_MAX_WIDTH (CUZK_POSEIDON_MAX_ARITY + 1)
#define CUZK_POSEIDON_FULL_ROUNDS 8

/* Immutable per-arity constants (all Fr in the usual Montgomery form).
 * Matrices are row-major t x t: m[i * t + j] is row i, column j. */
typedef struct {
    size_t arity, t;
    size_t full_rounds, partial_rounds;
    const cuzk_fr *round_constants;    /* Grain: t * (R_F + R_P) */
    const cuzk_fr *mds;                /* Cauchy matrix, symmetric */
    const cuzk_fr *mds_inv;
    const cuzk_fr *compressed_round_constants; /* t * R_F + R_P */
    const cuzk_fr *pre_sparse;         /* t x t */
    /* R_P sparse matrices of 2t - 1 elements each, in application order:
     * w_hat[0..t) (first column) then v_rest[0..t-1) (first row past
     * the diagonal); the rest of the matrix is the identity. */
    const cuzk_fr *sparse;
    cuzk_fr merkle_tag;                /* 2^arity - 1 */
} cuzk_poseidon_constants;

/* True for arity 2, 4, 8, 11, 16, 24, 36. */
bool cuzk_poseidon_arity_supported(size_t arity);
/* R_P for a supported arity, 0 otherwise. */
size_t cuzk_poseidon_partial_rounds(size_t arity);

/* The constants of `arity`, generated on first use (2 ms for arity 2, 8 ms
 * for 8, 190 ms for 36 on the loaded dev machine). */
CUZK_MUST_CHECK int cuzk_poseidon_constants_get(const cuzk_poseidon_constants **out, size_t arity);

/* ---- domain tags (neptune hash_type.rs) ------------------------------- */
/* MerkleTree: 2^arity - 1 (mod r; neptune's arities are at most 36). */
void cuzk_poseidon_tag_merkle(cuzk_fr *tag, size_t arity);
/* ConstantLength(len): len * 2^64. */
void cuzk_poseidon_tag_constant_length(cuzk_fr *tag, uint64_t len);
/* Custom(id): id * 2^40, id in [1, 256] (else CUZK_ERR_ARG). */
CUZK_MUST_CHECK int cuzk_poseidon_tag_custom(cuzk_fr *tag, uint64_t id);

/* ---- hashing ----------------------------------------------------------- */
/* out = Poseidon_n(MerkleTree tag; in[0..n)), arity = n.  This is the
 * hash of Filecoin's Merkle trees (n = 2, 4, 8), column commitments
 * (n = 2, 11) and comm_r = H(comm_c, comm_r_last). */
CUZK_MUST_CHECK int cuzk_poseidon_hash(cuzk_fr *out, const cuzk_fr *in, size_t n);
/* neptune ConstantLength(n) hash with width arity + 1: tag n * 2^64,
 * inputs zero-padded to `arity`; requires n <= arity. */
CUZK_MUST_CHECK int cuzk_poseidon_hash_constant_length(cuzk_fr *out, const cuzk_fr *in, size_t n,
                                       size_t arity);
/* General form: state [tag, in[0..n), 0...] of width arity + 1, n <= arity. */
CUZK_MUST_CHECK int cuzk_poseidon_hash_tagged(cuzk_fr *out, size_t arity, const cuzk_fr *tag,
                              const cuzk_fr *in, size_t n);
/* Same result through the plain (unoptimized) permutation: the reference
 * the optimized form is tested against; 1.4x (arity 2) to 5.6x (arity 36)
 * slower (docs/perf-notes.md). */
CUZK_MUST_CHECK int cuzk_poseidon_hash_tagged_plain(cuzk_fr *out, size_t arity, const cuzk_fr *tag,
                                    const cuzk_fr *in, size_t n);

/* Full permutation of state[0..t) in place, t = arity + 1, optimized form
 * (plain == false) or plain form (plain == true). */
CUZK_MUST_CHECK int cuzk_poseidon_permute(cuzk_fr *state, size_t arity, bool plain);

#ifdef __cplusplus
}
#endif
#endif
