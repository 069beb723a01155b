/* Native StackedDRG sealing (PoRep): the identifiers, challenges, labels and
 * trees of rust-fil-proofs storage-proofs-porep stacked/vanilla, computed
 * natively (no circuit).  Used to check C1 input before synthesis, to
 * compute PoRep public inputs and to seal small test sectors.  Layer
 * `seal` sits above `fil` (Poseidon, Merkle trees, registry) and below
 * `circuits`; the graph is in cuzk/seal_graph.h, C1 input in
 * cuzk/seal_c1.h.
 *
 * All data is public: nothing here is constant time.  Functions that can
 * fail return a status (cuzk/status.h) and, where err is given, a
 * sentence naming the field. */
#ifndef CUZK_SEAL_H
#define CUZK_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin.h"
#include "cuzk/par.h"
#include "cuzk/seal_c1.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* replica_id = sha256(prover_id || sector_id u64 BE || ticket || comm_d ||
 * porep_id) with out[31] &= 0x3f (a canonical Fr, filecoin-formats.md 5). */
void cuzk_seal_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                          const uint8_t ticket[32], const uint8_t comm_d[32], const uint8_t porep_id[32]);

/* prover_id of a miner as Curio sends it: the miner id (actor id) as
 * unsigned LEB128, zero-padded to 32 bytes. */
void cuzk_seal_prover_id(uint8_t out[32], uint64_t miner_id);

/* ---- challenges (challenges.c) ------------------------------------------ */
/* Challenges of partition `partition` (challenges_per_partition of them,
 * node indices in [1, nodes)) for the registered proof's mode:
 * interactive (seed), synthetic (seed selects among the synthetic
 * challenges derived from replica_id and comm_r) or NI (comm_r, seed
 * ignored); filecoin-formats.md section 8.  cap >= challenges_per_partition
 * and partition < partitions (CUZK_ERR_ARG otherwise). */
CUZK_MUST_CHECK int cuzk_seal_challenges(uint64_t *out, size_t cap, const cuzk_fil_seal_info *info,
                         const uint8_t replica_id[32], const uint8_t seed[32], const uint8_t comm_r[32],
                         uint32_t partition, char *err, size_t err_len);

/* Synthetic PoRep pieces (challenges.rs SynthChallengeGenerator), exposed
 * for tests and for callers that choose num_synth themselves: synthetic
 * challenges first..first+n-1 (ChaCha20 keyed by BLAKE2b-256 "...|Generation"
 * over replica_id || comm_r, 32 keystream bytes each), and the n synthetic
 * indices (u32 LE from the "...|Selection" stream keyed over replica_id ||
 * seed, starting at index `first`) mod num_synth.  nodes in [2, 2^32),
 * first + n <= 2^27 (the 32-bit keystream offset): CUZK_ERR_ARG otherwise;
 * CUZK_ERR_UNSUPPORTED if libcrypto lacks ChaCha20 or BLAKE2BMAC. */
CUZK_MUST_CHECK int cuzk_seal_synth_generate(uint64_t *out, uint64_t first, size_t n, uint64_t nodes,
                             const uint8_t replica_id[32], const uint8_t comm_r[32], char *err,
                             size_t err_len);
CUZK_MUST_CHECK int cuzk_seal_synth_select(uint64_t *out, uint64_t first, size_t n, uint64_t num_synth,
                           const uint8_t replica_id[32], const uint8_t seed[32], char *err, size_t err_len);
/* min(nodes, 2^18): the synthetic challenges generated per sector. */
uint64_t cuzk_seal_synth_count(uint64_t nodes);

/* ---- labels, columns, encoding (labels.c) ------------------------------- */
/* Label of `node` in layer `layer` (1-based): SHA-256(replica_id || layer
 * u32 BE || node u64 BE || 0^20 || parents repeated to 37 x 32 bytes) with
 * out[31] &= 0x3f.  parents: n_parents labels (6 for layer 1, 14 after, or
 * already 37); n_parents == 0 is node 0, whose label hashes the 64-byte
 * header alone (create_label.rs).  n_parents must be 0 or divide into 37
 * by repetition (any n in [1, 37]). */
void cuzk_seal_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                     const uint8_t *parents, size_t n_parents);

/* Column hash: Poseidon of arity `layers` over the rows (domain elements)
 * (CUZK_ERR_ARG for an arity Poseidon does not support,
 * CUZK_ERR_ENC_NONCANONICAL for a row >= r). */
CUZK_MUST_CHECK int cuzk_seal_column_hash(uint8_t out[32], const uint8_t *rows, size_t layers, char *err, size_t err_len);

/* encode.rs: replica node = key + data in Fr (CUZK_ERR_ENC_NONCANONICAL if
 * either is not a canonical domain element). */
CUZK_MUST_CHECK int cuzk_seal_encode(uint8_t out[32], const uint8_t key[32], const uint8_t data[32]);

/* ---- test-sector sealer (sealer.c, seal_proofs.c) ------------------------ */
/* Seals a synthetic sector natively, the way rust-fil-proofs' replicate +
 * seal_commit_phase1 do, for test sizes (2 KiB, 8 MiB, 512 MiB: the whole
 * sector and every layer are held in memory, about 6 x sector size plus a
 * 56-byte parent entry per node).  Everything derives from `seed`:
 *   data node i = SHA-256("cuzk-seal data" || seed || sector_id || i, u64 LE)
 *                 with [31] &= 0x3f (Fr32 piece data),
 *   ticket      = SHA-256("cuzk-seal ticket" || seed || sector_id), [31] &= 0x3f,
 *   seed bytes  = SHA-256("cuzk-seal seed"   || seed || sector_id), [31] &= 0x3f.
 * Steps: tree D (binary SHA-256) -> comm_d, replica_id, labels of every
 * layer, tree C (column hashes, 8-ary Poseidon), replica = data + last
 * layer's labels, tree R last, comm_r = Poseidon2(comm_c, comm_r_last),
 * challenges of every partition and their vanilla proofs (c1). */
typedef struct {
    uint64_t registered_proof; /* 0-19, sector size 2 KiB, 8 MiB or 512 MiB */
    uint64_t sector_id;
    uint64_t miner_id; /* prover_id = cuzk_seal_prover_id(miner_id) */
    uint64_t seed;
} cuzk_seal_config;

/* progress(ctx, phase, done, total): phase is "parents", "tree_d",
 * "labels" (done counts nodes over all layers), "tree_c", "tree_r" or
 * "proofs". */
typedef void (*cuzk_seal_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

typedef struct {
    const cuzk_fil_seal_info *info;
    uint64_t nodes, sector_id, miner_id;
    uint8_t prover_id[32], porep_id[32], ticket[32], seed[32], replica_id[32];
    uint8_t comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
    uint8_t *data;    /* nodes x 32: the unsealed data (tree D leaves) */
    uint8_t *tree_d;  /* (2 nodes - 1) x 32: tree D level by level, leaves first, root last */
    uint8_t *labels;  /* layers x nodes x 32, layer 1 first */
    uint8_t *replica; /* nodes x 32: the sealed replica (tree R last leaves) */
    cuzk_seal_c1 c1;  /* every partition's vanilla proofs; owned by the sector
                       * (c1.mem is NULL: never pass &c1 to cuzk_seal_c1_free) */
    void *impl;       /* trees, parents, proof storage */
} cuzk_seal_sector;

/* Seal.  Spread over par (NULL = calling thread); progress may be NULL.
 * Errors: CUZK_ERR_ARG (unknown proof, unsupported size), CUZK_ERR_NOMEM,
 * and any status of the trees or the graph, with a message in err. */
CUZK_MUST_CHECK int cuzk_seal_sector_seal(cuzk_seal_sector **out, const cuzk_seal_config *cfg, cuzk_par *par,
                          cuzk_seal_progress_fn progress, void *progress_ctx, char *err, size_t err_len);
void cuzk_seal_sector_free(cuzk_seal_sector *s);

/* ---- sparse C1 (sparse.c) -------------------------------------------------- */
/* The C1 of an interactive PoRep sector of any size (2 KiB to 64 GiB)
 * without sealing it: consistent exactly where the vanilla proofs look, so
 * cuzk_seal_c1_verify and the PoRep circuit accept it as a real statement.
 * cfg as for cuzk_seal_sector_seal (ticket and seed bytes derived the same
 * way), registered_proof 0-9 (V1 / V1_1, interactive challenges).
 *  - Tree D is the real tree of a sector whose data repeats 2^14 random
 *    Fr32 nodes (the sealer's data nodes 0..2^14-1; at 2 KiB the sector is
 *    the sealer's, with the same comm_d and replica_id): comm_d must exist
 *    before the challenges, which hash replica_id, hence comm_d.
 *  - Every partition's challenges are the real ones; the columns of their
 *    6 DRG and 8 expander parents hold random labels, the challenges'
 *    labels are computed from them with the real label hash (layer by
 *    layer, so a challenge that is another's parent agrees with it), the
 *    replica node is the last label + the data node.
 *  - Trees C and R hash the opened leaves to their roots; every subtree no
 *    proof opens is a random digest.  comm_r = Poseidon2(comm_c, comm_r_last).
 * Everything is deterministic in cfg.  Cost: O(partitions x challenges x
 * 15 x depth) Poseidon hashes (hashes spread over par, NULL = calling
 * thread) plus the graph's tables (cuzk_seal_graph_init); memory a few MiB
 * plus the C1 (~10 MiB at 32/64 GiB).  Every partition is generated: the
 * C1 format, cuzk_seal_c1_parse and cuzk_seal_c1_verify need all of them.
 * Errors: CUZK_ERR_ARG (unknown proof), CUZK_ERR_UNSUPPORTED (synthetic or
 * NI PoRep: their challenges hash comm_r), CUZK_ERR_NOMEM, with a message;
 * *out is then empty.  Free a success with cuzk_seal_sparse_free. */
typedef struct {
    const cuzk_fil_seal_info *info;
    uint64_t nodes, sector_id, miner_id;
    uint8_t prover_id[32], porep_id[32], ticket[32], seed[32], replica_id[32];
    uint8_t comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
    cuzk_seal_c1 *c1; /* owned: every partition's vanilla proofs */
} cuzk_seal_sparse;

CUZK_MUST_CHECK int cuzk_seal_sparse_c1(cuzk_seal_sparse *out, const cuzk_seal_config *cfg, cuzk_par *par,
                                        char *err, size_t err_len);
/* Frees s->c1 (NULL and a second call fine). */
void cuzk_seal_sparse_free(cuzk_seal_sparse *s);

#ifdef __cplusplus
}
#endif
#endif
