/* SnapDeals (EmptySectorUpdate) natively: the shapes of rust-fil-proofs
 * storage-proofs-update (constants.rs), its bincode PartitionProof
 * (wire-contract.md), challenge derivation (challenges.rs), phi / rho and
 * the label update (vanilla.rs), native verification of partition proofs,
 * and the test-sector updater.  Same layer and conventions as cuzk/seal.h:
 * public data, nothing constant time; a status plus a sentence naming the
 * field and byte offset on error. */
#ifndef CUZK_SEAL_SNAP_H
#define CUZK_SEAL_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff.h"
#include "cuzk/filecoin.h"
#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_SNAP_HS 6

/* Shape of one sector size (constants.rs): nodes = sector_size / 32;
 * partitions 1 / 2 / 4 / 16 for <= 8 KiB / <= 32 KiB / <= 16 MiB /
 * larger; challenges per partition 10 (<= 16 MiB) or 86; apex leaves 8
 * (<= 8 KiB) or 128; hs [1;6] (<= 32 KiB) or [7..12], h_default hs[3];
 * tree R (8-ary Poseidon) arities of validate_tree_r_shape. */
typedef struct {
    uint64_t sector_size, nodes;
    uint32_t partitions, challenges, apex_leaves;
    uint32_t hs[CUZK_SNAP_HS];
    uint32_t challenge_bits; /* log2(nodes) */
    uint32_t partition_bits; /* log2(partitions) */
    uint32_t apex_bits;      /* log2(apex_leaves) */
    uint32_t tree_base_arity, tree_base_levels, tree_sub_arity, tree_top_arity;
} cuzk_snap_shape;

/* Production sizes (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB); with
 * allow_test_sizes also 1, 4, 8, 16, 32 KiB and 16 MiB (rust-fil-proofs'
 * test sectors).  CUZK_ERR_ARG otherwise. */
CUZK_MUST_CHECK int cuzk_snap_shape_for(cuzk_snap_shape *out, uint64_t sector_size, bool allow_test_sizes);
/* h_select for h: 1 << (index of h in hs), 0 if h is not allowed. */
uint64_t cuzk_snap_h_select(const cuzk_snap_shape *s, uint32_t h);
/* The public input k | h_select << partition_bits as an integer. */
uint64_t cuzk_snap_k_and_h_select(const cuzk_snap_shape *s, uint32_t k, uint32_t h);

/* RegisteredUpdateProof 0-4: StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1
 * (api 1.1); circuit ids snap-2k ... snap-64g; h = h_default. */
typedef struct {
    uint64_t id;
    const char *name; /* e.g. StackedDrg32GiBV1 */
    uint64_t sector_size;
    const char *circuit_id; /* snap-32g */
} cuzk_snap_info;
CUZK_MUST_CHECK int cuzk_snap_lookup(const cuzk_snap_info **out, uint64_t registered_update_proof);
CUZK_MUST_CHECK int cuzk_snap_lookup_circuit(const cuzk_snap_info **out, const char *circuit_id);

/* ---- PartitionProof (bincode) ------------------------------------------------ */
/* comm_c [32] | apex_leafs: u64 n | n x [32] | challenge_proofs: u64 n | n x
 * {proof_r_old (tree R MerkleProof), proof_d_new (binary SHA-256 Single),
 * proof_r_new (tree R)} -- the MerkleProof encoding of wire-contract.md. */
typedef struct {
    cuzk_fil_merkle_proof r_old, d_new, r_new;
} cuzk_snap_challenge_proof;

typedef struct {
    uint8_t comm_c[32];
    uint32_t n_apex;
    const uint8_t *apex_leafs; /* n_apex x 32 */
    uint32_t n_challenges;
    const cuzk_snap_challenge_proof *challenges; /* n_challenges */
    void *mem;                                   /* owns everything */
} cuzk_snap_partition_proof;

/* Parse one partition proof of exactly len bytes and check its shape
 * against s (apex count, challenge count, tree R path kind / arities /
 * levels, tree D binary Single with challenge_bits levels).  s == NULL
 * checks the structure only (counts <= 4096, levels <= 64, Poseidon
 * arities).  Every 32-byte element (comm_c, apex leaves, roots, leaves,
 * siblings) must be a canonical Fr (< r).  Errors: CUZK_ERR_FORMAT
 * (truncated, unknown tag, wrong count, arity, index >= arity, trailing
 * bytes) and CUZK_ERR_ENC_NONCANONICAL, with the field path and byte
 * offset, e.g. "snap proof: challenge_proofs[3].proof_d_new.path[2].index
 * = 5 at byte 1234 is >= arity 2"; CUZK_ERR_NOMEM.  On error *out = NULL. */
CUZK_MUST_CHECK int cuzk_snap_partition_parse(cuzk_snap_partition_proof **out, const uint8_t *buf, size_t len,
                              const cuzk_snap_shape *s, char *err, size_t err_len);
/* Same, for a proof at the start of buf: *used = its length (more bytes
 * may follow).  For concatenated partition proofs. */
CUZK_MUST_CHECK int cuzk_snap_partition_parse_prefix(cuzk_snap_partition_proof **out, size_t *used, const uint8_t *buf,
                                     size_t len, const cuzk_snap_shape *s, char *err, size_t err_len);
void cuzk_snap_partition_free(cuzk_snap_partition_proof *p);

/* Serialized size, and bincode serialization into out (cap >= size;
 * CUZK_ERR_ARG for a proof with an impossible path or a small cap). */
size_t cuzk_snap_partition_size(const cuzk_snap_partition_proof *p);
CUZK_MUST_CHECK int cuzk_snap_partition_write(uint8_t *out, size_t cap, size_t *written, const cuzk_snap_partition_proof *p);

/* ---- input forms (snap_input.c) -------------------------------------------- */
/* The vanilla proofs of a request or a file: Curio sends one bincode
 * PartitionProof per partition (SubmitProofRequest.vanilla_proofs) and
 * stores them as Go's [][]byte in JSON, an array of base64 strings.
 * cuzk_snap_vanilla_decode accepts either
 *   - a JSON array of standard base64 strings (padding required, no
 *     whitespace inside a string), each one partition proof, or
 *   - raw bincode: one partition proof or several concatenated,
 * the first when the bytes start (after JSON whitespace) with '[' and
 * parse as JSON, the second otherwise (a raw proof whose comm_c starts
 * with 0x5b '[' is still read as bincode when it is not valid JSON).  At
 * most max_partitions proofs (16 when 0).  *out gets an array of *n
 * proofs; free with cuzk_snap_vanilla_free.  Errors name the array
 * element / partition number and byte offset. */
CUZK_MUST_CHECK int cuzk_snap_vanilla_decode(cuzk_snap_partition_proof ***out, size_t *n, const uint8_t *buf, size_t len,
                             const cuzk_snap_shape *s, size_t max_partitions, char *err, size_t err_len);
/* Only the JSON form (CUZK_ERR_FORMAT if buf is not an array of strings). */
CUZK_MUST_CHECK int cuzk_snap_vanilla_decode_json(cuzk_snap_partition_proof ***out, size_t *n, const uint8_t *buf, size_t len,
                                  const cuzk_snap_shape *s, size_t max_partitions, char *err, size_t err_len);
void cuzk_snap_vanilla_free(cuzk_snap_partition_proof **v, size_t n);
/* Strict standard base64 (RFC 4648 alphabet, length % 4 == 0, '=' only as
 * the final one or two characters) into out (cap >= 3 * len / 4).  `what`
 * names the field in errors. */
CUZK_MUST_CHECK int cuzk_snap_base64_decode(uint8_t *out, size_t cap, size_t *out_len, const char *in, size_t len,
                            const char *what, char *err, size_t err_len);

/* ---- challenges, phi, rho (snap_challenges.c) ------------------------------- */
/* Poseidon arity 2 with the "gen randomness" tag HashType::Custom(
 * CType::Arbitrary(1)) = 2^40 (constants.rs): out = H(a, b).  Behind
 * challenges, phi and rho. */
CUZK_MUST_CHECK int cuzk_snap_hash_randomness(cuzk_fr *out, const cuzk_fr *a, const cuzk_fr *b);

/* The challenges (node indices) of partition k, s->challenges of them
 * (challenges.rs): digest j = H(comm_r_new, k * digests_per_partition + j)
 * as 255 LE bits; each gives floor(254 / rb) challenges of rb =
 * challenge_bits - partition_bits bits (LE), c = bits | k << rb.
 * cap >= s->challenges, k < s->partitions (CUZK_ERR_ARG); comm_r_new
 * must be canonical (CUZK_ERR_ENC_NONCANONICAL). */
CUZK_MUST_CHECK int cuzk_snap_challenges(uint32_t *out, size_t cap, const cuzk_snap_shape *s, const uint8_t comm_r_new[32],
                         uint32_t k, char *err, size_t err_len);

/* phi = H(comm_d_new, comm_r_old) (vanilla.rs phi). */
CUZK_MUST_CHECK int cuzk_snap_phi(uint8_t phi[32], const uint8_t comm_d_new[32], const uint8_t comm_r_old[32], char *err,
                  size_t err_len);
/* rho = H(phi, high) for the h high bits `high` of a node index. */
CUZK_MUST_CHECK int cuzk_snap_rho(cuzk_fr *rho, const uint8_t phi[32], uint32_t high, char *err, size_t err_len);
/* The h high bits of node c: c >> (challenge_bits - h) (h <= challenge_bits). */
static inline uint32_t cuzk_snap_high(const cuzk_snap_shape *s, uint32_t h, uint64_t c)
{
    return (uint32_t)(c >> (s->challenge_bits - h));
}
/* new = old + data * rho over Fr (label update, encode_into); inputs must
 * be canonical (CUZK_ERR_ENC_NONCANONICAL). */
CUZK_MUST_CHECK int cuzk_snap_encode_node(uint8_t out[32], const uint8_t old[32], const uint8_t data[32], const cuzk_fr *rho);

/* Tree D height of the apex leaves: challenge_bits - partition_bits -
 * apex_bits (the path level where a challenge's tree D path reaches one
 * of its partition's apex leaves). */
static inline uint32_t cuzk_snap_apex_height(const cuzk_snap_shape *s)
{
    return s->challenge_bits - s->partition_bits - s->apex_bits;
}

/* ---- native verification (snap_verify.c) -------------------------------------- */
/* Every check of vanilla.rs EmptySectorUpdate::verify plus what the
 * circuit enforces, for partition k with h high bits:
 *   k < partitions, h in hs (CUZK_ERR_ARG, bad call);
 *   apex leaf and challenge counts, tree R / tree D path shapes;
 *   comm_r_old = Poseidon2(comm_c, root of challenge 0's proof_r_old),
 *   comm_r_new = Poseidon2(comm_c, root of challenge 0's proof_r_new);
 *   the apex tree over apex_leafs hashes, along challenge 0's partition
 *   path (tree D levels above the apex tree, index bits = k), to
 *   comm_d_new;
 *   for each challenge i (re-derived from comm_r_new and k): each of
 *   proof_r_old, proof_d_new, proof_r_new hashes to its root, proves leaf
 *   index c_i, and its root is root_r_old / comm_d_new / root_r_new; the
 *   tree D path reaches apex_leafs[(c_i >> apex_height) mod apex_leaves]
 *   at the apex height and has challenge 0's partition path;
 *   leaf_r_new = leaf_r_old + leaf_d_new * rho(phi, c_i >> (bits - h)).
 * CUZK_OK when all hold.  The first failure returns CUZK_ERR_ARG (the
 * seal layer's "mismatch" status, as cuzk_seal_c1_verify) or
 * CUZK_ERR_ENC_NONCANONICAL with a sentence naming the field, e.g.
 * "challenge_proofs[3].proof_d_new: root mismatch". */
CUZK_MUST_CHECK int cuzk_snap_partition_verify(const cuzk_snap_partition_proof *p, const cuzk_snap_shape *s, uint32_t k,
                               uint32_t h, const uint8_t comm_r_old[32], const uint8_t comm_d_new[32],
                               const uint8_t comm_r_new[32], char *err, size_t err_len);

/* ---- the updater (snap_update.c) ----------------------------------------------- */
/* encode_into for an in-memory sector: replica_new[i] = replica_old[i] +
 * data_new[i] * rho(phi, i >> (challenge_bits - h)), tree D new (binary
 * SHA-256 trunc254 over data_new, every level kept: 2 x sector size),
 * tree R old (rebuilt from replica_old) and tree R new (the tree R shape
 * of s), comm_r_old = Poseidon2(comm_c, root R old), phi, comm_r_new.
 * replica_old and data_new (nodes x 32 bytes, canonical / Fr32 elements)
 * are read, not copied: the caller keeps them alive until
 * cuzk_snap_update_free.  Memory: replica_new (1 x sector size), tree D
 * (2 x), the two tree R (2/7 x). */
typedef struct {
    cuzk_snap_shape shape;
    uint32_t h;
    uint8_t comm_c[32];
    uint8_t comm_r_last_old[32], comm_r_old[32];
    uint8_t comm_d_new[32], phi[32];
    uint8_t comm_r_last_new[32], comm_r_new[32];
    const uint8_t *replica_old, *data_new;
    uint8_t *replica_new; /* nodes x 32, owned */
    uint8_t *tree_d;      /* (2 nodes - 1) x 32: leaves first, root last, owned */
    void *impl;           /* the two tree R */
} cuzk_snap_update;

/* progress(ctx, phase, done, total): phase "tree_r_old", "tree_d",
 * "encode", "tree_r_new". */
typedef void (*cuzk_snap_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

/* Errors: CUZK_ERR_ARG (h not in hs, NULL), CUZK_ERR_ENC_NONCANONICAL (a
 * node of replica_old or data_new >= r, naming the node), CUZK_ERR_NOMEM.
 * Spread over par (NULL = caller); progress may be NULL. */
CUZK_MUST_CHECK int cuzk_snap_update_encode(cuzk_snap_update **out, const cuzk_snap_shape *s, uint32_t h,
                            const uint8_t comm_c[32], const uint8_t *replica_old, const uint8_t *data_new,
                            cuzk_par *par, cuzk_snap_progress_fn progress, void *progress_ctx, char *err,
                            size_t err_len);
/* The vanilla proof of partition k (prove_inner): apex leaves of
 * partition k, and for each challenge the three Merkle proofs.  Free with
 * cuzk_snap_partition_free. */
CUZK_MUST_CHECK int cuzk_snap_update_prove(cuzk_snap_partition_proof **out, const cuzk_snap_update *u, uint32_t k, char *err,
                           size_t err_len);
void cuzk_snap_update_free(cuzk_snap_update *u);

/* ---- sparse sectors (snap_sparse.c) ------------------------------------------- */
/* A SnapDeals update of any size (32 and 64 GiB included) without a sector
 * in memory, for benchmarks: the partition proofs are real statements
 * (cuzk_snap_partition_verify and the circuit accept them) for a sector
 * that is never stored.  Its regions are the 2^h rho regions of
 * 2^(challenge_bits - h) nodes; inside region r the old replica and the
 * new data repeat a pattern of 2^period_log nodes (64, fewer when a region
 * or the tree is smaller):
 *   replica_old node = SHA-256("cuzk-snap sparse replica" || seed || r ||
 *   offset, u64 LE) with [31] &= 0x3f; data node the same with "cuzk-snap
 *   sparse data"; comm_c from "cuzk-snap sparse comm_c";
 *   replica_new node = replica_old + data * rho(phi, r), as encode_into.
 * Why not random digests off the opened paths, as the sparse PoRep's trees
 * C and R: the challenges derive from comm_r_new, so tree R new must be
 * whole before any challenge is known, and its leaves are the label update
 * of tree R old and tree D, whose roots decide rho -- every tree must be
 * real everywhere.  Periodic trees are (cuzk_fil_periodic_tree_build, as
 * the sparse PoRep's tree D); their roots cost ~2^h x 20 hashes and a
 * partition ~86 x 3 pattern subtrees.  Memory: a few MiB. */
typedef struct {
    cuzk_snap_shape shape;
    uint32_t h, period_log, region_log;
    uint64_t seed;
    uint8_t comm_c[32];
    uint8_t comm_r_last_old[32], comm_r_old[32];
    uint8_t comm_d_new[32], phi[32];
    uint8_t comm_r_last_new[32], comm_r_new[32];
    void *impl; /* the three trees and the rho of each region */
} cuzk_snap_sparse;

/* Errors: CUZK_ERR_ARG (h not in hs, NULL, a shape without a period),
 * CUZK_ERR_NOMEM.  Spread over par (NULL = caller). */
CUZK_MUST_CHECK int cuzk_snap_sparse_make(cuzk_snap_sparse **out, const cuzk_snap_shape *s, uint32_t h,
                                          uint64_t seed, cuzk_par *par, char *err, size_t err_len);
/* The vanilla proof of partition k, laid out as cuzk_snap_update_prove's
 * (free with cuzk_snap_partition_free).  Thread safe for distinct calls. */
CUZK_MUST_CHECK int cuzk_snap_sparse_prove(cuzk_snap_partition_proof **out, const cuzk_snap_sparse *sp, uint32_t k,
                                           char *err, size_t err_len);
/* The pattern of region r (< 2^h): 2^period_log nodes of the old replica
 * and of the new data (either may be NULL).  The whole sector, for a check
 * against cuzk_snap_update_encode at small sizes. */
CUZK_MUST_CHECK int cuzk_snap_sparse_pattern(const cuzk_snap_sparse *sp, uint64_t r, uint8_t *replica_old,
                                             uint8_t *data_new);
void cuzk_snap_sparse_free(cuzk_snap_sparse *sp);

#ifdef __cplusplus
}
#endif
#endif
