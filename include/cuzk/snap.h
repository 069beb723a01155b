/* SnapDeals (EmptySectorUpdate): the Groth16 circuit of rust-fil-proofs
 * storage-proofs-update circuit.rs / gadgets.rs for every sector size,
 * with an R1CS identical to Rust's (filecoin-formats.md 8).
 *
 * Circuit (in order):
 *   k_and_h_select: alloc, inputize, partition_bits + 6 allocated bits with
 *     (sum 2^i b_i) * ONE = k_and_h_select; partition = pack_bits(k bits);
 *   comm_r_old, comm_d_new, comm_r_new: alloc + inputize;
 *   phi = Poseidon2_Custom(1)(comm_d_new, comm_r_old);
 *   comm_c, root_r_old, root_r_new, apex leaves, partition path: alloc;
 *   comm_r_old == Poseidon2(comm_c, root_r_old), same for comm_r_new;
 *   apex tree (SHA-256 hash2 rows) and its path to comm_d_new
 *     (por_no_challenge_input over the partition bits);
 *   gen_challenge_bits: per digest j, digest_index = k * dpp + j,
 *     Poseidon2_Custom(1)(comm_r_new, digest_index), 255 bits, chunks;
 *   per challenge: c_high selected by h_select, rho, leaf_r_old,
 *     leaf_d_new, leaf_r_new = leaf_r_old + leaf_d_new * rho, PoRs in tree
 *     R old and new (por_no_challenge_input), the apex leaf selected by the
 *     challenge's bits and the tree D path up to it.
 * Public inputs (without ONE): [k | h_select << partition_bits, comm_r_old,
 * comm_d_new, comm_r_new].
 *
 * The witness comes from a provider one challenge at a time (as for PoRep);
 * witness == NULL is the blank circuit (SHAPE mode).  Not constant time. */
#ifndef CUZK_SNAP_H
#define CUZK_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/gadgets_por.h"
#include "cuzk/groth16.h"
#include "cuzk/par.h"
#include "cuzk/r1cs.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_SNAP_MAX_SIBS (CUZK_POR_MAX_LEVELS * 7)
#define CUZK_SNAP_MAX_APEX 128

typedef struct {
    cuzk_fr leaf_r_old, leaf_d_new;
    cuzk_fr r_old[CUZK_SNAP_MAX_SIBS]; /* tree R old path: arity - 1 per level */
    cuzk_fr r_new[CUZK_SNAP_MAX_SIBS];
    cuzk_fr d_new[64]; /* tree D path up to the apex leaf */
} cuzk_snap_challenge_witness;

typedef int (*cuzk_snap_witness_fn)(void *wctx, size_t i, cuzk_snap_challenge_witness *out, char *err,
                                    size_t err_len);

typedef struct {
    cuzk_snap_shape shape;
    uint32_t k, h;
    cuzk_fr comm_r_old, comm_d_new, comm_r_new, comm_c, root_r_old, root_r_new;
    cuzk_fr apex[CUZK_SNAP_MAX_APEX];
    cuzk_fr partition_path[8];    /* tree D siblings above the apex root */
    cuzk_snap_witness_fn witness; /* NULL: blank (SHAPE mode only) */
    void *wctx;
} cuzk_snap_circuit_ctx;

/* The circuit (cuzk_circuit_fn); ctx is a cuzk_snap_circuit_ctx. */
CUZK_MUST_CHECK int cuzk_snap_circuit(cuzk_cs *cs, void *ctx);

/* Counts as rust-fil-proofs' TestConstraintSystem reports them (no input
 * rows; inputs without ONE = 4). */
size_t cuzk_snap_num_inputs(const cuzk_snap_shape *s);
/* From the gadget costs (tests check it against SHAPE synthesis and
 * rust-fil-proofs' asserted totals). */
size_t cuzk_snap_num_constraints(const cuzk_snap_shape *s);

/* Random witness values (the synth-only benchmark; satisfy nothing). */
typedef struct {
    uint64_t seed;
    cuzk_snap_shape shape;
} cuzk_snap_random_witness;
CUZK_MUST_CHECK int cuzk_snap_random_witness_fn(void *wctx, size_t i, cuzk_snap_challenge_witness *out, char *err,
                                size_t err_len);

/* ---- public inputs and verifier (snap_verify.c) ------------------------------ */

/* [k | h_select << partition_bits, comm_r_old, comm_d_new, comm_r_new] of
 * partition k with h (h_default = hs[3] for registered proofs): 4 values;
 * the commitments must be canonical (CUZK_ERR_ENC_NONCANONICAL naming
 * them), k < partitions and h one of hs (CUZK_ERR_ARG). */
CUZK_MUST_CHECK int cuzk_snap_public_inputs(cuzk_fr out[4], const cuzk_snap_shape *s, uint32_t k, uint32_t h,
                            const uint8_t comm_r_old[32], const uint8_t comm_d_new[32],
                            const uint8_t comm_r_new[32], char *err, size_t err_len);

/* Verify an update proof: proofs = partitions x 192 bytes in partition
 * order (batched pairing check).  *valid = false (CUZK_OK, reason in err)
 * when it does not verify; a status for malformed arguments. */
CUZK_MUST_CHECK int cuzk_snap_verify(bool *valid, const cuzk_groth16_vk *vk, const cuzk_snap_shape *s, uint32_t h,
                     const uint8_t comm_r_old[32], const uint8_t comm_d_new[32], const uint8_t comm_r_new[32],
                     const uint8_t *proofs, size_t proofs_len, char *err, size_t err_len);

/* ---- prover side (snap_job.c) ------------------------------------------------- */

/* Parsed and natively verified partition proofs of one update, ready to
 * synthesize partition by partition.  bufs[b] (lens[b] bytes): bincode
 * PartitionProofs (one per partition, as Curio's vanilla_proofs carry
 * them, or several concatenated) or Curio's stored form, a JSON array of
 * base64 proofs (cuzk_snap_vanilla_decode); together, every partition in
 * order.  h = the size's h_default.  par is reserved (the native checks
 * run on the caller's thread).  Errors: the parser's and the native
 * verifier's, naming the buffer or partition. */
typedef struct cuzk_snap_job cuzk_snap_job;
CUZK_MUST_CHECK int cuzk_snap_job_new(cuzk_snap_job **out, uint64_t registered_update_proof, const uint8_t *const *bufs,
                      const size_t *lens, size_t n_bufs, const uint8_t comm_r_old[32],
                      const uint8_t comm_d_new[32], const uint8_t comm_r_new[32], cuzk_par *par, char *err,
                      size_t err_len);
void cuzk_snap_job_free(cuzk_snap_job *j);
const cuzk_snap_info *cuzk_snap_job_info(const cuzk_snap_job *j);
const cuzk_snap_shape *cuzk_snap_job_shape(const cuzk_snap_job *j);
uint32_t cuzk_snap_job_partitions(const cuzk_snap_job *j);
/* The circuit context of partition k.  out->wctx is allocated here: the
 * caller frees it (free(out->wctx)) after synthesis; the job must outlive it. */
CUZK_MUST_CHECK int cuzk_snap_job_circuit(cuzk_snap_circuit_ctx *out, const cuzk_snap_job *j, uint32_t k);
/* Public inputs of partition k (4, without ONE). */
const cuzk_fr *cuzk_snap_job_inputs(const cuzk_snap_job *j, uint32_t k, size_t *n);
/* Synthesize partition k into a new cs, its inputs checked against the
 * computed ones. */
CUZK_MUST_CHECK int cuzk_snap_job_synthesize(cuzk_cs **out, const cuzk_snap_job *j, uint32_t k, cuzk_cs_mode mode,
                             unsigned flags, char *err, size_t err_len);
/* The same with the challenges spread over par (NULL: sequential); the
 * result is bit-identical (cuzk_cs_synthesize_items). */
CUZK_MUST_CHECK int cuzk_snap_job_synthesize_par(cuzk_cs **out, const cuzk_snap_job *j, uint32_t k, cuzk_cs_mode mode,
                                 unsigned flags, cuzk_par *par, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
