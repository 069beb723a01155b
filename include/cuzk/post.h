/* FallbackPoSt (WinningPoSt and WindowPoSt): the Groth16 circuit of
 * rust-fil-proofs storage-proofs-post fallback/circuit.rs, its public
 * inputs (fallback/compound.rs generate_public_inputs), a prover-side job
 * (parse + natively verify the vanilla proofs Curio sends, synthesize) and
 * a verifier.  The R1CS is identical to Rust's (filecoin-formats.md
 * section 1), so proofs verify against the real Filecoin parameters.
 *
 * Circuit, per circuit sector (in order):
 *   alloc comm_r_last, comm_c, comm_r; inputize comm_r (1);
 *   Poseidon2(comm_c, comm_r_last) (311) and comm_r == hash (1);
 *   per challenge a PoR (cuzk/gadgets_por.h) rooted at comm_r_last.
 * Shapes (cuzk_fil_post_info): Winning = 66 circuit sectors x 1 challenge
 * (one real sector's 66 inclusion proofs, one per circuit sector); Window
 * = WINDOW_POST_SECTOR_COUNT sectors (2 for 2K/8M/512M, 2349 for 32G, 2300
 * for 64G) x 10 challenges.  A partition with fewer sectors repeats its
 * last one.
 *
 * Public inputs (without ONE), per circuit sector: comm_r, then the leaf
 * index of every challenge as an Fr.  leaf = LE u64(sha256(randomness ||
 * sector_id LE || challenge_index LE)[..8]) mod (sector_size / 32), with
 * challenge_index = sector_index * challenge_count + n for api 1.0/1.1
 * (sector_index = partition * sector_count + i; for Winning the i-th copy
 * of the sector) and n for api 1.2.  Padding repeats the last sector's
 * inputs unchanged.
 *
 * Nothing here is constant time: all data is public.  Errors: a status
 * (cuzk/status.h) and, where err is given, a sentence naming the field. */
#ifndef CUZK_POST_H
#define CUZK_POST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin.h"
#include "cuzk/gadgets_por.h"
#include "cuzk/groth16.h"
#include "cuzk/par.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- circuit --------------------------------------------------------------- */

/* Witness of one circuit sector: commitments (32-byte domain elements) and
 * n_challenges inclusion proofs whose roots are comm_r_last. */
typedef struct {
    uint8_t comm_r[32], comm_c[32], comm_r_last[32];
    const cuzk_fil_merkle_proof *proofs;
} cuzk_post_circuit_sector;

/* Context of cuzk_post_circuit.  sectors == NULL is the blank circuit
 * (SHAPE mode only: setup, counts).  gate (optional) is called before each
 * sector, possibly on several threads at once (parallel synthesis); a
 * non-zero return stops synthesis with that status (the engine's
 * cancellation).  The sectors are the circuit's items
 * (cuzk_cs_synthesize_items): a cs with a cuzk_par synthesizes them in
 * parallel. */
typedef struct {
    const cuzk_fil_post_info *info;
    cuzk_por_shape shape;
    size_t n_sectors, n_challenges; /* circuit_sector_count, circuit_challenge_count */
    const cuzk_post_circuit_sector *sectors;
    int (*gate)(void *gate_ctx, size_t sector);
    void *gate_ctx;
} cuzk_post_circuit_ctx;

/* Blank context for a registered PoSt proof (CUZK_ERR_ARG if unknown). */
CUZK_MUST_CHECK int cuzk_post_circuit_blank(cuzk_post_circuit_ctx *ctx, const cuzk_fil_post_info *info);
/* The circuit (cuzk_circuit_fn); ctx is a cuzk_post_circuit_ctx. */
CUZK_MUST_CHECK int cuzk_post_circuit(cuzk_cs *cs, void *ctx);

/* Counts as rust-fil-proofs' TestConstraintSystem reports them: constraints
 * WITHOUT the appended per-input constraints, inputs WITHOUT ONE.  A
 * finished cuzk_cs has constraints + inputs + 1 rows and inputs + 1 inputs. */
size_t cuzk_post_num_constraints(const cuzk_fil_post_info *info);
size_t cuzk_post_num_inputs(const cuzk_fil_post_info *info);
/* Tree shape of the sector size as a PoR shape. */
CUZK_MUST_CHECK int cuzk_post_por_shape(cuzk_por_shape *out, uint64_t sector_size);

/* ---- public inputs ----------------------------------------------------------- */

typedef struct {
    uint64_t sector_id;
    uint8_t comm_r[32];
} cuzk_post_sector;

/* Public inputs of partition `partition` (0 for Winning).  sectors:
 * Winning: the one challenged sector; Window: either that partition's
 * sectors (1 .. circuit_sector_count) or the whole list of all partitions
 * (more than circuit_sector_count: chunk `partition` is used).  out needs
 * cuzk_post_num_inputs(info) elements; randomness must be canonical. */
CUZK_MUST_CHECK int cuzk_post_public_inputs(cuzk_fr *out, size_t cap, size_t *n_out, const cuzk_fil_post_info *info,
                            const uint8_t randomness[32], const cuzk_post_sector *sectors, size_t n_sectors,
                            uint32_t partition, char *err, size_t err_len);

/* ---- prover side ----------------------------------------------------------- */

/* prover_id of a miner actor id as filecoin-ffi builds it: the payload of
 * the ID address (unsigned LEB128 of the id), zero padded to 32 bytes. */
void cuzk_post_prover_id(uint8_t out[32], uint64_t miner_id);

/* A parsed, natively verified PoSt request ready to synthesize. */
typedef struct cuzk_post_job cuzk_post_job;

/* vanilla[i] (len[i] bytes) are bincode FallbackPoStSectorProofs: exactly
 * one for Winning (its one SectorProof holds 66 inclusion proofs), 1 ..
 * circuit_sector_count for Window (10 each), in partition order.
 * randomness must be a canonical Fr (Curio clears the top bits).  The
 * prover id is not part of the circuit or its inputs (kept for the
 * record).  Errors: CUZK_ERR_ARG (unknown proof type, counts, partition),
 * CUZK_ERR_FORMAT (bytes that do not parse, with field and offset),
 * CUZK_ERR_ENC_NONCANONICAL, CUZK_ERR_NOMEM, and CUZK_ERR_ARG with "does
 * not verify: ..." when a vanilla proof is well formed but wrong.  The
 * native checks cost ~3.7 ms of Poseidon per 32 GiB sector (~8.6 s for a
 * full partition): use cuzk_post_job_new_par to spread them. */
CUZK_MUST_CHECK int cuzk_post_job_new(cuzk_post_job **out, uint64_t registered_proof, const uint8_t *const *vanilla,
                      const size_t *len, size_t n_vanilla, const uint8_t randomness[32],
                      const uint8_t prover_id[32], uint32_t partition, char *err, size_t err_len);
/* Same with the native checks spread over par (NULL = calling thread). */
CUZK_MUST_CHECK int cuzk_post_job_new_par(cuzk_post_job **out, uint64_t registered_proof, const uint8_t *const *vanilla,
                          const size_t *len, size_t n_vanilla, const uint8_t randomness[32],
                          const uint8_t prover_id[32], uint32_t partition, cuzk_par *par, char *err,
                          size_t err_len);
void cuzk_post_job_free(cuzk_post_job *j);
const cuzk_fil_post_info *cuzk_post_job_info(const cuzk_post_job *j);
/* The circuit and its context (valid while the job lives). */
void cuzk_post_job_circuit(const cuzk_post_job *j, cuzk_circuit_fn *fn, void **ctx);
/* Public inputs (without ONE), cuzk_post_num_inputs(info) of them. */
const cuzk_fr *cuzk_post_job_inputs(const cuzk_post_job *j, size_t *n);
/* Synthesize into a new cs (PROVE mode for the Groth16 prover) and check
 * that its inputs equal the computed public inputs. */
CUZK_MUST_CHECK int cuzk_post_job_synthesize(cuzk_cs **out, const cuzk_post_job *j, cuzk_cs_mode mode, unsigned flags,
                             char *err, size_t err_len);
/* The same with the sectors spread over par (NULL: sequential); the result
 * is bit-identical (cuzk_cs_synthesize_items). */
CUZK_MUST_CHECK int cuzk_post_job_synthesize_par(cuzk_cs **out, const cuzk_post_job *j, cuzk_cs_mode mode, unsigned flags,
                                 cuzk_par *par, char *err, size_t err_len);
/* Synthesize + prove (one 192-byte proof). */
CUZK_MUST_CHECK int cuzk_post_job_prove(uint8_t proof[CUZK_G16_PROOF_BYTES], const cuzk_post_job *j,
                        const cuzk_groth16_params *params, const cuzk_groth16_prove_opts *opts, char *err,
                        size_t err_len);

/* ---- verifier -------------------------------------------------------------- */

/* Compute the public inputs and verify.  *valid = false (status CUZK_OK)
 * for a proof that decodes but does not verify; a status for malformed
 * arguments (sector counts, non-canonical randomness or comm_r, a VK
 * whose n_ic does not match the circuit, a proof that does not decode). */
CUZK_MUST_CHECK int cuzk_post_verify(bool *valid, const cuzk_groth16_vk *vk, uint64_t registered_proof,
                     const uint8_t proof[CUZK_G16_PROOF_BYTES], const uint8_t randomness[32],
                     const cuzk_post_sector *sectors, size_t n_sectors, uint32_t partition, char *err,
                     size_t err_len);

/* A verifying key stored with compressed points (as filecoin-proofs'
 * in-chain users, e.g. polka-storage, keep it): alpha_g1, beta_g1 (48),
 * beta_g2, gamma_g2 (96), delta_g1 (48), delta_g2 (96), u32 BE n_ic,
 * n_ic x 48.  Every point checked (canonical, on curve, subgroup).  Free
 * with cuzk_groth16_vk_free. */
CUZK_MUST_CHECK int cuzk_post_vk_decode_compressed(cuzk_groth16_vk **out, const uint8_t *buf, size_t len, char *err,
                                   size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
