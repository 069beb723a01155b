/* PoRep C1 output (SealCommitPhase1Output) in memory: what Curio sends for
 * a PoRep C2 (wire-contract.md "PoRep vanilla_proof"), parsed from either
 * Curio's envelope {"SectorNum","Phase1Out": base64,"SectorSize"} or the
 * bare serde JSON, natively verified before any synthesis, and written
 * back as JSON by the test-sector generator.
 *
 * Layout (rust-fil-proofs storage-proofs-porep stacked/vanilla/proof.rs):
 * partitions x challenges_per_partition challenge proofs, partition-major;
 * each holds the comm_d inclusion proof (binary SHA-256 tree), the
 * comm_r_last proof (tree R, 8-ary Poseidon with sub/top trees), the
 * column proofs of the challenge c_x and of its 6 DRG and 8 expander
 * parents (tree C), one labeling proof per layer and the encoding proof.
 * All 32-byte values are domain elements (little-endian canonical Fr).
 *
 * Ownership: a parsed cuzk_seal_c1 owns every array through `mem`; free it
 * with cuzk_seal_c1_free.  Errors name the JSON path, e.g.
 * "vanilla_proofs[3][7].replica_column_proofs.drg_parents[2].inclusion_proof:
 * root mismatch".  Nothing here is constant time (public data). */
#ifndef CUZK_SEAL_C1_H
#define CUZK_SEAL_C1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin.h"
#include "cuzk/par.h"
#include "cuzk/seal_graph.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_SEAL_DRG_PARENTS 6
#define CUZK_SEAL_EXP_PARENTS 8

/* ColumnProof: the column of node `index` (one label per layer) and its
 * inclusion proof in tree C (leaf = Poseidon column hash of rows). */
typedef struct {
    uint32_t index;
    uint32_t n_rows;              /* = layers */
    const uint8_t *rows;          /* n_rows * 32 */
    cuzk_fil_merkle_proof inclusion;
} cuzk_seal_column_proof;

/* LabelingProof / EncodingProof: the parents' labels that produce the
 * label of `node` in layer `layer_index` (1-based). */
typedef struct {
    uint32_t layer_index;
    uint64_t node;
    uint32_t n_parents;           /* 37 in real C1 JSON (TOTAL_PARENTS); 6 or 14 accepted */
    const uint8_t *parents;       /* n_parents * 32 */
} cuzk_seal_labeling_proof;

typedef struct {
    cuzk_fil_merkle_proof comm_d_proof;      /* Single, arity 2, SHA-256 trunc254 */
    cuzk_fil_merkle_proof comm_r_last_proof; /* tree R shape of the sector size */
    cuzk_seal_column_proof c_x;
    cuzk_seal_column_proof drg_parents[CUZK_SEAL_DRG_PARENTS];
    cuzk_seal_column_proof exp_parents[CUZK_SEAL_EXP_PARENTS];
    uint32_t n_layers;
    const cuzk_seal_labeling_proof *labeling; /* n_layers, layer 1 first */
    cuzk_seal_labeling_proof encoding;
} cuzk_seal_challenge_proof;

typedef struct {
    uint64_t registered_proof;               /* RegisteredSealProof id (0-19) */
    const cuzk_fil_seal_info *info;
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
    uint32_t partitions, challenges_per_partition;
    const cuzk_seal_challenge_proof *proofs; /* partitions * cpp, partition-major */
    bool has_envelope;                       /* parsed from Curio's envelope */
    uint64_t sector_num, envelope_sector_size;
    void *mem;                               /* owns everything above */
} cuzk_seal_c1;

/* Parse Curio's envelope or the bare SealCommitPhase1Output JSON (detected
 * by its keys).  Checks syntax, types, counts and shapes against the
 * registered proof named in the JSON (and, if expected_registered_proof
 * != UINT64_MAX, that it is that one), and that every domain element is
 * canonical.  Does NOT verify the proofs (cuzk_seal_c1_verify).  Errors:
 * CUZK_ERR_FORMAT (syntax, types, shapes, with the JSON path),
 * CUZK_ERR_ENC_NONCANONICAL, CUZK_ERR_ARG (unknown registered proof),
 * CUZK_ERR_NOMEM. */
CUZK_MUST_CHECK int cuzk_seal_c1_parse(cuzk_seal_c1 **out, const char *json, size_t len,
                       uint64_t expected_registered_proof, char *err, size_t err_len);
void cuzk_seal_c1_free(cuzk_seal_c1 *c1);

/* The most memory cuzk_seal_c1_parse holds at once for len bytes of input,
 * whatever they are: the JSON tree (bounded, see c1_json.c), for Curio's
 * envelope the decoded Phase1Out and its own tree, and the output (never
 * larger than its input).  Callers charge it before parsing (the engine's
 * memory.request_budget). */
uint64_t cuzk_seal_c1_parse_bytes(size_t len);

/* Verify everything natively (verify_seal's vanilla half): every Merkle
 * path and root (comm_d, comm_r_last, tree C), column hashes, labels
 * recomputed from their parents and the parents equal to the graph's,
 * the encoding, the challenges re-derived (interactive from seed,
 * synthetic, NI), comm_r = Poseidon2(comm_c, comm_r_last) and replica_id
 * when prover_id/sector_id are given (prover_id NULL: not checked).
 * CUZK_OK with nothing wrong; CUZK_ERR_ARG "...: <what> mismatch" naming
 * the JSON path of the first failure.  Spread over par (NULL = caller). */
CUZK_MUST_CHECK int cuzk_seal_c1_verify(const cuzk_seal_c1 *c1, const uint8_t *prover_id, uint64_t sector_id,
                                        cuzk_par *par, char *err, size_t err_len);
/* The same with the caller's graph of c1->info
 * (cuzk_seal_graph_init_for_proof), so a job that needs the graph again
 * (the public inputs) builds it once; NULL builds one here.  CUZK_ERR_ARG
 * if the graph has another node count or api version than c1->info. */
CUZK_MUST_CHECK int cuzk_seal_c1_verify_graph(const cuzk_seal_c1 *c1, const cuzk_seal_graph *graph,
                                              const uint8_t *prover_id, uint64_t sector_id, cuzk_par *par,
                                              char *err, size_t err_len);

/* Write the bare SealCommitPhase1Output JSON (exact serde shape: compact,
 * key order of the Rust structs) to f.  Returns CUZK_ERR_IO on a write
 * error. */
CUZK_MUST_CHECK int cuzk_seal_c1_write_json(const cuzk_seal_c1 *c1, void *file /* FILE* */, char *err,
                            size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
