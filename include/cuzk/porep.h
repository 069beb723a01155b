/* StackedDRG PoRep (C2): the Groth16 circuit of rust-fil-proofs
 * storage-proofs-porep stacked/circuit (proof.rs StackedCircuit, params.rs
 * Proof::synthesize), for every sector size and registered seal proof.
 * The R1CS is identical to Rust's (filecoin-formats.md sections 1, 6, 8),
 * so proofs verify against the real Filecoin parameters.
 *
 * Circuit (in order):
 *   replica_id: alloc, inputize, to_bits_le, reverse_bit_numbering;
 *   comm_d, comm_r: alloc + inputize; comm_r_last, comm_c: alloc;
 *   comm_r == Poseidon2(comm_c, comm_r_last)            (311 + 1)
 *   per challenge:
 *     data_leaf alloc; its binary SHA-256 PoR to comm_d  (45,382 a level)
 *     6 DRG + 8 expander parent columns: rows alloc, column hash
 *       (Poseidon of arity = layers), PoR in tree C to comm_c
 *     challenge as UInt64 (64 bits) packed into one input
 *     per layer: parents' to_bits_le (6, or 6 + 8 from the previous layer
 *       for the expander parents), repeated to 37, and the label
 *       SHA-256(replica_id || layer || node || 0 || parents) (20 blocks)
 *     encode: key (last label) + data_leaf; PoR in tree R to comm_r_last
 *     column hash of the labels; PoR in tree C to comm_c.
 * Public inputs (without ONE): replica_id, comm_d, comm_r, then per
 * challenge 18: comm_d leaf index, 6 DRG and 8 expander parent indices,
 * the challenge, its tree R index and its tree C index (all the same node
 * number, as an Fr).
 *
 * The witness comes from a provider callback, one challenge at a time, so
 * the same circuit runs on C1 input, on random values (the synth-only
 * benchmark) or blank (SHAPE mode: setup, counts).  Nothing here is
 * constant time (public data). */
#ifndef CUZK_POREP_H
#define CUZK_POREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin.h"
#include "cuzk/gadgets.h"
#include "cuzk/gadgets_por.h"
#include "cuzk/groth16.h"
#include "cuzk/par.h"
#include "cuzk/r1cs.h"
#include "cuzk/seal_graph.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_POREP_MAX_LAYERS 11
#define CUZK_POREP_DRG 6
#define CUZK_POREP_EXP 8
#define CUZK_POREP_MAX_SIBS (CUZK_POR_MAX_LEVELS * 7)
#define CUZK_POREP_LABEL_PARENTS 37
#define CUZK_POREP_LABEL_BITS ((2 + CUZK_POREP_LABEL_PARENTS) * 256)

/* Shape of a StackedDRG circuit. */
typedef struct {
    uint64_t nodes;         /* sector_size / 32 (a power of two) */
    uint32_t layers;        /* 2 or 11 (column hash arity) */
    uint32_t challenges;    /* per partition */
    uint32_t comm_d_levels; /* log2(nodes): binary SHA-256 tree D */
    cuzk_por_shape tree;    /* tree C and tree R (Poseidon) */
} cuzk_porep_shape;

/* One inclusion path's witness: siblings level after level and the index
 * of the running hash in each level. */
typedef struct {
    cuzk_fr sib[CUZK_POREP_MAX_SIBS];
    uint32_t index[CUZK_POR_MAX_LEVELS];
} cuzk_porep_path_witness;

typedef struct {
    cuzk_fr rows[CUZK_POREP_MAX_LAYERS];
    cuzk_porep_path_witness path;
} cuzk_porep_column_witness;

typedef struct {
    uint64_t challenge;             /* the challenged node */
    cuzk_fr data_leaf;              /* its unsealed data (tree D leaf) */
    cuzk_porep_path_witness comm_d; /* levels = comm_d_levels, arity 2 */
    cuzk_porep_column_witness drg[CUZK_POREP_DRG];
    cuzk_porep_column_witness exp[CUZK_POREP_EXP];
    cuzk_porep_path_witness comm_r_last; /* tree R path of the challenge */
    cuzk_porep_path_witness comm_c;      /* tree C path of the challenge */
} cuzk_porep_challenge_witness;

/* Fill *out for challenge i (0 <= i < shape.challenges); status on error
 * (recorded in the cs by the circuit, with err). */
typedef int (*cuzk_porep_witness_fn)(void *wctx, size_t i, cuzk_porep_challenge_witness *out, char *err,
                                     size_t err_len);

/* Context of cuzk_porep_circuit.  witness == NULL is the blank circuit
 * (SHAPE mode only). */
typedef struct {
    cuzk_porep_shape shape;
    cuzk_fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
    cuzk_porep_witness_fn witness;
    void *wctx;
} cuzk_porep_circuit_ctx;

/* Shape of a registered seal proof (CUZK_ERR_ARG if unknown). */
CUZK_MUST_CHECK int cuzk_porep_shape_for(cuzk_porep_shape *out, const cuzk_fil_seal_info *info);
/* Any shape (rust-fil-proofs' test circuits): nodes a power of two, tree
 * shape whose leaves = nodes, layers 2 or 11. */
CUZK_MUST_CHECK int cuzk_porep_shape_make(cuzk_porep_shape *out, uint64_t nodes, uint32_t layers, uint32_t challenges,
                          const cuzk_por_shape *tree);
/* The circuit (cuzk_circuit_fn); ctx is a cuzk_porep_circuit_ctx. */
CUZK_MUST_CHECK int cuzk_porep_circuit(cuzk_cs *cs, void *ctx);

/* create_label_circuit: out = the label SHA-256(replica || layer u32 BE
 * (constant) || node u64 BE || zero bits to 512 || 37 parents x 256 bits),
 * digest bits reversed within bytes, first 254 packed.  scratch holds
 * CUZK_POREP_LABEL_BITS booleans. */
CUZK_MUST_CHECK int cuzk_porep_create_label(cuzk_cs *cs, cuzk_num *out, cuzk_bool *scratch, const cuzk_bool replica[256],
                            const cuzk_bool *const parents[CUZK_POREP_LABEL_PARENTS], uint32_t layer,
                            const cuzk_bool node_le[64]);

/* Counts as rust-fil-proofs' TestConstraintSystem reports them (without
 * the appended per-input constraints; inputs without ONE), computed from
 * the gadget costs (tests check them against SHAPE-mode synthesis). */
size_t cuzk_porep_num_constraints(const cuzk_porep_shape *s);
size_t cuzk_porep_num_inputs(const cuzk_porep_shape *s);

/* A provider of random witness values (the synth-only benchmark: the
 * values satisfy nothing, the work is that of a real witness).  State is
 * just a seed. */
typedef struct {
    uint64_t seed;
    cuzk_porep_shape shape;
} cuzk_porep_random_witness;
CUZK_MUST_CHECK int cuzk_porep_random_witness_fn(void *wctx, size_t i, cuzk_porep_challenge_witness *out, char *err,
                                 size_t err_len);
/* The circuit of rw->shape with rw's random witness (ctx zeroed first; rw
 * must outlive ctx): what benchmarks and tests synthesize without a C1. */
void cuzk_porep_random_circuit(cuzk_porep_circuit_ctx *ctx, cuzk_porep_random_witness *rw);

/* ---- public inputs and verify_seal (porep_verify.c) ----------------------- */

/* What a PoRep's public inputs depend on besides the sector: the
 * registered proof's shape and mode, and the porep_id and api version
 * that seed the graph.  A registered proof fixes all of them; polka-storage
 * style proofs use a custom porep_id with a registered size. */
typedef struct {
    cuzk_fil_seal_info info; /* a copy (sizes, partitions, challenges, mode, api) */
    uint8_t porep_id[32];
} cuzk_porep_config;

CUZK_MUST_CHECK int cuzk_porep_config_for(cuzk_porep_config *out, uint64_t registered_proof, char *err, size_t err_len);
/* sector_size's interactive V1_1 shape with porep_id and api_version
 * (CUZK_FIL_API_*) replaced; feature CUZK_FIL_SEAL_PLAIN. */
CUZK_MUST_CHECK int cuzk_porep_config_custom(cuzk_porep_config *out, uint64_t sector_size, const uint8_t porep_id[32],
                             int api_version, char *err, size_t err_len);

/* The sector's public values. */
typedef struct {
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32], seed[32], comm_d[32], comm_r[32];
} cuzk_porep_sector;

/* Public inputs of partition `partition` (without ONE;
 * cuzk_porep_num_inputs of the config's shape): replica_id, comm_d,
 * comm_r, then per challenge [c, 6 DRG parents, 8 expander parents, c, c,
 * c] (StackedCompound::generate_public_inputs).  comm_d and comm_r must be
 * canonical (CUZK_ERR_ENC_NONCANONICAL naming them).  replica_out (may be
 * NULL) receives the replica_id. */
CUZK_MUST_CHECK int cuzk_porep_public_inputs(cuzk_fr *out, size_t cap, size_t *n_out, const cuzk_porep_config *cfg,
                             const cuzk_porep_sector *sector, uint32_t partition, uint8_t replica_out[32],
                             char *err, size_t err_len);

/* verify_seal: proofs = partitions x 192 bytes in partition order.
 * *valid = false (status CUZK_OK, reason in err) when a partition does not
 * verify; a status for malformed arguments (length, non-canonical values,
 * a VK whose IC count does not match the circuit, undecodable points). */
CUZK_MUST_CHECK int cuzk_porep_verify(bool *valid, const cuzk_groth16_vk *vk, const cuzk_porep_config *cfg,
                      const cuzk_porep_sector *sector, const uint8_t *proofs, size_t proofs_len, char *err,
                      size_t err_len);

/* Public inputs from the replica_id directly (what a C1 carries; the
 * prover id and sector number only enter through it).  graph: the
 * config's graph (cuzk_seal_graph_init with its nodes, porep_id and api
 * version) to share across partitions, or NULL to build one here (its
 * Feistel tables cost ~0.1 s at 32 GiB). */
CUZK_MUST_CHECK int cuzk_porep_public_inputs_replica(cuzk_fr *out, size_t cap, size_t *n_out, const cuzk_porep_config *cfg,
                                     const uint8_t replica_id[32], const uint8_t comm_d[32],
                                     const uint8_t comm_r[32], const uint8_t seed[32], uint32_t partition,
                                     const cuzk_seal_graph *graph, char *err, size_t err_len);

/* ---- prover side (porep_job.c) -------------------------------------------- */

/* A parsed, natively verified C1 ready to synthesize partition by
 * partition.  json: Curio's envelope or the bare SealCommitPhase1Output
 * (cuzk/seal_c1.h).  expected_registered_proof: UINT64_MAX to accept what
 * the C1 names.  prover_id (NULL: not checked) and sector_id: when given,
 * replica_id must be the one they derive.  The native checks (every path,
 * label, column and challenge) are spread over par (NULL = caller).
 * Errors: the parser's and the verifier's, with the JSON path. */
typedef struct cuzk_porep_job cuzk_porep_job;
CUZK_MUST_CHECK int cuzk_porep_job_new(cuzk_porep_job **out, const char *json, size_t len, uint64_t expected_registered_proof,
                       const uint8_t *prover_id, uint64_t sector_id, cuzk_par *par, char *err,
                       size_t err_len);
void cuzk_porep_job_free(cuzk_porep_job *j);
const cuzk_porep_config *cuzk_porep_job_config(const cuzk_porep_job *j);
uint32_t cuzk_porep_job_partitions(const cuzk_porep_job *j);
/* The circuit context of partition k.  out->wctx is allocated here: the
 * caller frees it (free(out->wctx)) after synthesis; the job must outlive it. */
CUZK_MUST_CHECK int cuzk_porep_job_circuit(cuzk_porep_circuit_ctx *out, const cuzk_porep_job *j, uint32_t k);
/* Public inputs of partition k (without ONE). */
const cuzk_fr *cuzk_porep_job_inputs(const cuzk_porep_job *j, uint32_t k, size_t *n);
/* Synthesize partition k into a new cs and check its inputs against the
 * computed public inputs. */
CUZK_MUST_CHECK int cuzk_porep_job_synthesize(cuzk_cs **out, const cuzk_porep_job *j, uint32_t k, cuzk_cs_mode mode,
                              unsigned flags, char *err, size_t err_len);
/* The same with the challenges spread over par (NULL: sequential); the
 * result is bit-identical (cuzk_cs_synthesize_items). */
CUZK_MUST_CHECK int cuzk_porep_job_synthesize_par(cuzk_cs **out, const cuzk_porep_job *j, uint32_t k, cuzk_cs_mode mode,
                                  unsigned flags, cuzk_par *par, char *err, size_t err_len);
/* Synthesize + prove every partition: proofs holds partitions x 192. */
CUZK_MUST_CHECK int cuzk_porep_job_prove(uint8_t *proofs, const cuzk_porep_job *j, const cuzk_groth16_params *params,
                         const cuzk_groth16_prove_opts *opts, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
