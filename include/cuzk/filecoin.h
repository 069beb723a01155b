/* Filecoin data for Proof-of-Spacetime: domain elements, Merkle trees,
 * CIDs, the registered-proof registry, bincode vanilla proofs, challenge
 * derivation, native vanilla-proof verification, and sparse synthetic
 * trees (verifiable vanilla proofs of any sector size, made cheaply for
 * benchmarks and tests).  Ported from the behaviour of rust-fil-proofs
 * (storage-proofs-core merkle/, fr32, storage-proofs-post fallback/,
 * filecoin-proofs constants.rs/parameters.rs) and filecoin-proofs-api
 * registry.rs; see filecoin-formats.md and wire-contract.md.
 *
 * Everything here works on public data: nothing is constant time (the
 * usual _var suffix is omitted for the whole header).  Functions that can
 * fail return a status (cuzk/status.h); where `err` is given (may be NULL)
 * it receives a sentence naming the field, the byte offset or the value
 * that was wrong.  The Merkle builders use the caller's cuzk_par for
 * parallel work and create no threads. */
#ifndef CUZK_FILECOIN_H
#define CUZK_FILECOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff.h"
#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_FIL_ERR_LEN 256 /* suggested size of error buffers */
#define CUZK_FIL_NODE_SIZE 32

/* ---- domain elements and Fr32 (fr32.c) --------------------------------- */
/* A domain element ("dom") is 32 bytes little-endian holding a canonical
 * Fr (< r).  Poseidon outputs (comm_r, comm_c, comm_r_last, tree nodes)
 * use the whole range, so bit 254 may be set.  Fr32 data (sector data
 * after padding, SHA-256 tree nodes, comm_d) is stricter: the top two bits
 * of byte 31 are zero (a 254-bit value, always < r). */
bool cuzk_fil_domain_valid(const uint8_t dom[32]);
bool cuzk_fil_fr32_valid(const uint8_t node[32]);
/* Domain bytes -> Fr; CUZK_ERR_ENC_NONCANONICAL if >= r (err names `what`). */
CUZK_MUST_CHECK int cuzk_fil_domain_to_fr(cuzk_fr *out, const uint8_t dom[32], const char *what, char *err,
                          size_t err_len);
/* SHA-256 truncated to 254 bits (digest[31] &= 0x3f): the node hash of
 * comm_d trees (sha256 hasher), of data of any length. */
void cuzk_fil_sha256_trunc254(uint8_t out[32], const uint8_t *data, size_t len);

/* ---- Merkle trees (merkle.c) -------------------------------------------- */
/* Shape of rust-fil-proofs' tree_r_last: `LCTree<PoseidonHasher, U8, S, T>`:
 * n_base = max(S,1) * max(T,1) base trees of 8-ary Poseidon over equal
 * consecutive leaf ranges; a sub layer hashes S base roots (Poseidon_S),
 * a top layer T sub roots.  2K/8M/512M: 8,0,0; 32G: 8,8,0; 64G: 8,8,2
 * (also 4K/16M/1G: 8,2,0; 16K: 8,8,0; 32K: 8,8,2). */
typedef struct {
    uint64_t leaves;        /* nodes of the sector = sector_size / 32 */
    uint32_t base_arity;    /* 8 */
    uint32_t sub_arity;     /* 0 (none), 2 or 8 */
    uint32_t top_arity;     /* 0 (none) or 2 */
    uint32_t base_levels;   /* path levels inside one base tree */
    uint32_t n_base;        /* number of base trees */
    uint64_t base_leaves;   /* leaves per base tree = base_arity^base_levels */
} cuzk_fil_tree_shape;

/* tree_r_last shape of a sector size (CUZK_ERR_ARG if unsupported). */
CUZK_MUST_CHECK int cuzk_fil_tree_shape_for_sector(cuzk_fil_tree_shape *out, uint64_t sector_size);
/* Any shape: leaves must split into base trees of base_arity^k leaves. */
CUZK_MUST_CHECK int cuzk_fil_tree_shape_make(cuzk_fil_tree_shape *out, uint64_t leaves, uint32_t base_arity,
                             uint32_t sub_arity, uint32_t top_arity);

/* One level list of an inclusion proof (bincode InclusionPath).  Level l
 * holds arity - 1 sibling hashes (32-byte domain elements) and the index
 * (0 <= index < arity) of the running hash among the arity inputs. */
typedef struct {
    uint32_t levels;
    uint32_t arity;          /* hashes per level + 1; 0 when levels == 0 */
    const uint8_t *hashes;   /* levels * (arity - 1) * 32 bytes, level-major */
    const uint64_t *index;   /* levels */
} cuzk_fil_path;

enum { CUZK_FIL_PROOF_SINGLE = 0, CUZK_FIL_PROOF_SUB = 1, CUZK_FIL_PROOF_TOP = 2 };

/* rust-fil-proofs MerkleProof: Single (base path), Sub (base + sub path),
 * Top (base + sub + top path); path[0..kind] are used. */
typedef struct {
    uint32_t kind;
    uint8_t root[32];
    uint8_t leaf[32];
    cuzk_fil_path path[3];
} cuzk_fil_merkle_proof;

/* Recompute the root of a Poseidon proof: *ok = (computed root == root);
 * *leaf_index = the challenged leaf the index bits encode (mixed radix,
 * base levels first).  Non-canonical elements or an arity Poseidon does
 * not support: CUZK_ERR_ENC_NONCANONICAL / CUZK_ERR_FORMAT. */
CUZK_MUST_CHECK int cuzk_fil_merkle_verify_poseidon(bool *ok, uint64_t *leaf_index, const cuzk_fil_merkle_proof *p,
                                    char *err, size_t err_len);
/* Same for a binary SHA-256 (trunc254) Single proof (comm_d paths). */
CUZK_MUST_CHECK int cuzk_fil_merkle_verify_sha256(bool *ok, uint64_t *leaf_index, const cuzk_fil_merkle_proof *p,
                                  char *err, size_t err_len);
/* One Poseidon tree-node hash: out = Poseidon_arity(in[0..arity)) over
 * 32-byte domain elements (CUZK_ERR_ENC_NONCANONICAL if one is >= r, the
 * poseidon status for an unsupported arity). */
CUZK_MUST_CHECK int cuzk_fil_poseidon_bytes(uint8_t out[32], const uint8_t *in, size_t arity);
/* Does the proof have the path shape of `shape` (kind, arities, levels)? */
bool cuzk_fil_merkle_proof_matches(const cuzk_fil_merkle_proof *p, const cuzk_fil_tree_shape *shape);

/* A Poseidon tree built in memory.  Leaves come from a callback (so large
 * sectors need not be stored: only levels >= 1 are kept, leaves/7 nodes). */
typedef struct cuzk_fil_tree cuzk_fil_tree;
/* Fill out[0..n) with leaves first..first+n-1 as 32-byte domain elements;
 * return CUZK_OK or a status.  Called concurrently when par is given. */
typedef int (*cuzk_fil_leaf_fn)(void *ctx, uint64_t first, size_t n, uint8_t *out);
/* Optional progress report (base trees or chunks done of total). */
typedef void (*cuzk_fil_progress_fn)(void *ctx, uint64_t done, uint64_t total);

CUZK_MUST_CHECK int cuzk_fil_tree_build(cuzk_fil_tree **out, const cuzk_fil_tree_shape *shape, cuzk_fil_leaf_fn leaf,
                        void *leaf_ctx, cuzk_par *par, cuzk_fil_progress_fn progress,
                        void *progress_ctx, char *err, size_t err_len);
void cuzk_fil_tree_free(cuzk_fil_tree *t);
void cuzk_fil_tree_root(uint8_t out[32], const cuzk_fil_tree *t);
const cuzk_fil_tree_shape *cuzk_fil_tree_get_shape(const cuzk_fil_tree *t);
/* Bytes of storage one proof of this tree needs (hashes + indices). */
size_t cuzk_fil_tree_proof_storage(const cuzk_fil_tree *t);
/* Inclusion proof of leaf `index`; path arrays point into `storage`
 * (cuzk_fil_tree_proof_storage bytes, 8-byte aligned). */
CUZK_MUST_CHECK int cuzk_fil_tree_prove(cuzk_fil_merkle_proof *out, void *storage, size_t storage_len,
                        const cuzk_fil_tree *t, uint64_t index);

/* Binary SHA-256 (trunc254) tree over 32-byte Fr32 leaves, all levels in
 * one array (2n - 1 nodes): root and Single proofs.  n a power of two. */
CUZK_MUST_CHECK int cuzk_fil_sha256_tree_root(uint8_t root[32], const uint8_t *leaves, uint64_t n);
/* Proof of leaf index: needs storage of levels * (32 + 8) bytes. */
CUZK_MUST_CHECK int cuzk_fil_sha256_tree_prove(cuzk_fil_merkle_proof *out, void *storage, size_t storage_len,
                               const uint8_t *leaves, uint64_t n, uint64_t index);

/* ---- CID <-> commitment (cid.c) ----------------------------------------- */
enum {
    CUZK_FIL_COMM_R = 1, /* sealed:   codec 0xf102, multihash poseidon-bls12_381-a2-fc1 0xb401 */
    CUZK_FIL_COMM_D = 2, /* unsealed: codec 0xf101, multihash sha2-256-trunc254-padded 0x1012 */
};
/* Parse a CIDv1 in base32 lower ("b...") multibase; *kind gets which
 * commitment it is.  The commitment bytes are the 32 bytes stored as is. */
CUZK_MUST_CHECK int cuzk_fil_cid_decode(uint8_t comm[32], int *kind, const char *cid, char *err, size_t err_len);
/* Encode; cap >= 65 suffices.  CUZK_ERR_ARG on unknown kind or small cap. */
CUZK_MUST_CHECK int cuzk_fil_cid_encode(char *out, size_t cap, const uint8_t comm[32], int kind);

/* ---- registered proofs (registry.c) ------------------------------------- */
enum { CUZK_FIL_API_V1_0 = 0, CUZK_FIL_API_V1_1 = 1, CUZK_FIL_API_V1_2 = 2 };

/* RegisteredPoStProof (filecoin-proofs-api order, equal to the Go abi
 * numbering): 0-4 Winning {2K,8M,512M,32G,64G} V1 (api 1.0), 5-9 Window V1
 * (api 1.0), 10-14 Window V1_2 (Go abi calls them V1_1; proofs-api V1_2,
 * api 1.2).  Vanilla proofs carry challenge_count inclusion proofs per
 * sector; the circuit proves circuit_sector_count sectors with
 * circuit_challenge_count challenges each (Winning: 66 x 1). */
typedef struct {
    uint64_t id;
    const char *name;              /* proofs-api name, e.g. StackedDrgWindow32GiBV1_2 */
    bool winning;
    uint64_t sector_size;
    int api_version;
    uint32_t challenge_count;      /* per sector in a vanilla proof: 66 / 10 */
    uint32_t sector_count;         /* sectors per partition: 1 / WINDOW_POST_SECTOR_COUNT */
    uint32_t circuit_challenge_count; /* FallbackPoSt PublicParams: 1 / 10 */
    uint32_t circuit_sector_count;    /* 66 / WINDOW_POST_SECTOR_COUNT */
    const char *circuit_id;        /* daemon id: winning-2k, wpost-32g, ... */
} cuzk_fil_post_info;

/* RegisteredSealProof 0-19 (V1, V1_1, V1_1 SyntheticPoRep, V1_2 NI-PoRep). */
enum { CUZK_FIL_SEAL_PLAIN = 0, CUZK_FIL_SEAL_SYNTHETIC = 1, CUZK_FIL_SEAL_NI = 2 };
typedef struct {
    uint64_t id;
    const char *name;
    uint64_t sector_size;
    int api_version;
    int feature;
    uint32_t partitions;           /* 1 / 10; NI: 13 / 126 */
    uint32_t layers;               /* 2 / 11 */
    uint32_t challenges_per_partition; /* 2 / 18 */
    const char *circuit_id;        /* porep-2k, ..., porep-64g */
} cuzk_fil_seal_info;

CUZK_MUST_CHECK int cuzk_fil_post_lookup(const cuzk_fil_post_info **out, uint64_t registered_proof);
CUZK_MUST_CHECK int cuzk_fil_seal_lookup(const cuzk_fil_seal_info **out, uint64_t registered_proof);
/* Lookup by daemon circuit id ("wpost-32g" -> the V1_2 entry). */
CUZK_MUST_CHECK int cuzk_fil_post_lookup_circuit(const cuzk_fil_post_info **out, const char *circuit_id);
/* porep_id = id u64 LE || nonce 0 u64 LE || 0^16. */
void cuzk_fil_seal_porep_id(uint8_t out[32], const cuzk_fil_seal_info *s);

/* Parameter-cache identifier (rust-fil-proofs cache_identifier:
 * "{prefix}-{hex sha256(parameter set identifier)}") and file names
 * "v28-{identifier}.{params|vk|meta}".  cap >= 160 suffices; CUZK_ERR_ARG for a
 * sector size without a tree shape. */
CUZK_MUST_CHECK int cuzk_fil_post_param_id(char *out, size_t cap, const cuzk_fil_post_info *p);
CUZK_MUST_CHECK int cuzk_fil_seal_param_id(char *out, size_t cap, const cuzk_fil_seal_info *s);
CUZK_MUST_CHECK int cuzk_fil_param_file_name(char *out, size_t cap, const char *param_id, const char *ext);
/* SnapDeals (EmptySectorUpdate, storage-proofs-update compound.rs):
 * "empty-sector-update-{tree}-{sha256("empty_sector_update::PublicParams{
 * sector_nodes: N }")}" for a production sector size. */
CUZK_MUST_CHECK int cuzk_fil_snap_param_id(char *out, size_t cap, uint64_t sector_size);

/* One entry of parameters.json. */
typedef struct {
    char cid[80];
    char digest[40];        /* first 32 hex chars of BLAKE2b-512 */
    uint64_t sector_size;
} cuzk_fil_param_entry;
/* Find file `name` in the text of parameters.json (CUZK_ERR_FORMAT if the
 * text is malformed around it, CUZK_ERR_ARG if absent). */
CUZK_MUST_CHECK int cuzk_fil_params_json_lookup(cuzk_fil_param_entry *out, const char *json, size_t len,
                                const char *name, char *err, size_t err_len);
/* First 32 hex chars of BLAKE2b-512 of a file (streamed), NUL-terminated. */
CUZK_MUST_CHECK int cuzk_fil_file_digest(char out[33], const char *path, char *err, size_t err_len);
/* The same, polling stop(stop_ctx) before each 1 MiB read (a params file
 * of 100+ GB hashes for minutes): a nonzero answer ends the hash with that
 * status and "hashing P stopped after N of M MiB".  stop may be NULL. */
CUZK_MUST_CHECK int cuzk_fil_file_digest_stop(char out[33], const char *path, int (*stop)(void *ctx), void *stop_ctx,
                                              char *err, size_t err_len);
/* Integrity check of a downloaded params/vk file: its base name must be in
 * parameters.json and its digest must match (CUZK_ERR_FORMAT with both
 * digests in err if not).  Reads the whole file (44 GiB for 32G PoRep). */
CUZK_MUST_CHECK int cuzk_fil_params_check_file(const char *json, size_t json_len, const char *path, char *err,
                               size_t err_len);

/* ---- bincode vanilla proofs (vanilla.c) --------------------------------- */
typedef struct {
    size_t n_proofs;
    cuzk_fil_merkle_proof *proofs;
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
} cuzk_fil_sector_proof;

/* FallbackPoStSectorProof: sector_id, comm_r, vanilla_proof (SectorProofs). */
typedef struct {
    uint64_t sector_id;
    uint8_t comm_r[32];
    size_t n_sectors;
    cuzk_fil_sector_proof *sectors;
    void *mem;  /* owns sectors/proofs/paths after cuzk_fil_vanilla_parse */
} cuzk_fil_post_vanilla;

/* Limits on what a parse accepts (0 = default). */
typedef struct {
    size_t max_sectors;     /* default 4096 */
    size_t max_proofs;      /* per sector, default 4096 */
    uint32_t max_levels;    /* per path, default 40 */
} cuzk_fil_vanilla_limits;

/* Parse exactly `len` bytes (trailing bytes are an error).  Errors:
 * CUZK_ERR_FORMAT with the field path and byte offset (truncated, unknown
 * enum tag, inconsistent or unsupported arity, index >= arity, count over a
 * limit or larger than the remaining bytes, trailing bytes); CUZK_ERR_NOMEM.
 * Domain elements are not range-checked here (verification does it).
 * On error *out is left empty (nothing to free). */
CUZK_MUST_CHECK int cuzk_fil_vanilla_parse(cuzk_fil_post_vanilla *out, const uint8_t *buf, size_t len,
                           const cuzk_fil_vanilla_limits *limits, char *err, size_t err_len);
void cuzk_fil_vanilla_free(cuzk_fil_post_vanilla *v);
/* Serialized size, and serialization into out (cap >= size). */
size_t cuzk_fil_vanilla_size(const cuzk_fil_post_vanilla *v);
CUZK_MUST_CHECK int cuzk_fil_vanilla_write(uint8_t *out, size_t cap, size_t *written, const cuzk_fil_post_vanilla *v);

/* ---- challenges and native verification (challenges.c) ------------------ */
/* storage-proofs-post get_challenge_index: api 1.0/1.1 number challenges
 * across the whole partition list (sector_index * challenge_count + n),
 * api 1.2 restarts at n for every sector. */
uint64_t cuzk_fil_post_challenge_index(int api_version, uint64_t sector_index,
                                       uint64_t challenge_count, uint64_t n);
/* leaf = LE u64(sha256(randomness || sector_id LE || challenge_index LE)[0..8])
 *        mod (sector_size / 32). */
uint64_t cuzk_fil_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                      uint64_t challenge_index, uint64_t sector_size);
/* All challenge_count leaves of the sector at position sector_index of the
 * proven sector list (0 for a single sector / WinningPoSt).  randomness
 * must be a canonical domain element (CUZK_ERR_ENC_NONCANONICAL). */
CUZK_MUST_CHECK int cuzk_fil_post_challenges(uint64_t *out, const cuzk_fil_post_info *p,
                             const uint8_t randomness[32], uint64_t sector_id,
                             uint64_t sector_index);
/* WinningPoSt sector selection: sha256(prover_id || randomness || n u64 LE)
 * read as LE u64 mod sector_set_len. */
uint64_t cuzk_fil_winning_sector_challenge(const uint8_t randomness[32], const uint8_t prover_id[32],
                                           uint64_t n, uint64_t sector_set_len);
/* comm_r = Poseidon2(comm_c, comm_r_last) (MerkleTree tag, arity 2). */
CUZK_MUST_CHECK int cuzk_fil_comm_r(uint8_t comm_r[32], const uint8_t comm_c[32], const uint8_t comm_r_last[32],
                    char *err, size_t err_len);

/* Native verification of one sector's FallbackPoStSectorProof for the
 * PoSt type p: exactly one SectorProof, comm_r = Poseidon2(comm_c,
 * comm_r_last), challenge_count inclusion proofs each with the sector's
 * tree shape, root == comm_r_last, a valid path and leaf index == the
 * derived challenge.  *ok = false with the reason in err when the proof is
 * well formed but wrong; a status for bad arguments / non-canonical data. */
CUZK_MUST_CHECK int cuzk_fil_vanilla_verify(bool *ok, const cuzk_fil_post_vanilla *v, const cuzk_fil_post_info *p,
                            const uint8_t randomness[32], uint64_t sector_index, char *err,
                            size_t err_len);

/* ---- sparse synthetic trees (sparse_tree.c) ------------------------------ */
/* A tree_r_last that is never built: only the nodes on the paths of a set
 * of opened leaves are computed (Poseidon, exactly as a real tree hashes
 * them); every other node -- a whole unopened subtree stands for one digest
 * -- and every leaf are pseudo-random elements, SHA-256("cuzk-spt" ||
 * seed || level u32 LE || index u64 LE) with the top two bits cleared.
 * So the proofs are real inclusion proofs of a real (if unknowable) tree: they
 * verify with cuzk_fil_merkle_verify_poseidon, two proofs agree on every
 * node they share, and opening every leaf gives the cuzk_fil_tree_build
 * tree of those leaves.  Time and memory are O(levels x opened leaves),
 * independent of the sector size (a 32 GiB sector opening 10 leaves: ~90
 * Poseidon-8 hashes).  For benchmarks and tests: the tree is not the
 * sealed data of any sector.  Not thread safe per tree; distinct trees may
 * be used concurrently.  No hidden threads. */
typedef struct cuzk_fil_sparse_tree cuzk_fil_sparse_tree;

/* leaves[0..n_leaves) (any order, duplicates allowed, each < shape->leaves,
 * n_leaves >= 1) are the leaves later proofs may open.  Errors:
 * CUZK_ERR_ARG (inconsistent shape, a leaf out of range, no leaf),
 * CUZK_ERR_NOMEM; err names the leaf or the level. */
CUZK_MUST_CHECK int cuzk_fil_sparse_tree_build(cuzk_fil_sparse_tree **out, const cuzk_fil_tree_shape *shape,
                                               const uint64_t *leaves, size_t n_leaves,
                                               const uint8_t seed[32], char *err, size_t err_len);
void cuzk_fil_sparse_tree_free(cuzk_fil_sparse_tree *t);
void cuzk_fil_sparse_tree_root(uint8_t out[32], const cuzk_fil_sparse_tree *t);
/* Bytes of storage one proof needs (as cuzk_fil_tree_proof_storage). */
size_t cuzk_fil_sparse_tree_proof_storage(const cuzk_fil_sparse_tree *t);
/* Inclusion proof of leaf `index`, which must be one of the build's leaves
 * (else CUZK_ERR_ARG naming it); the path arrays point into `storage`
 * (proof_storage bytes, 8-byte aligned), the layout of cuzk_fil_tree_prove. */
CUZK_MUST_CHECK int cuzk_fil_sparse_tree_prove(cuzk_fil_merkle_proof *out, void *storage, size_t storage_len,
                                               const cuzk_fil_sparse_tree *t, uint64_t index, char *err,
                                               size_t err_len);

/* ---- region-periodic trees (periodic_tree.c) ----------------------------- */
/* A full tree over a sector that is periodic inside each region: leaf i is
 * pattern(i >> region_log)[i mod 2^period_log].  Unlike a sparse tree,
 * every node is real and any leaf can be opened after the root is known;
 * each node at or above the pattern's height has one value per region (per
 * node, above the region's height), so the root costs regions x (pattern +
 * a few) hashes plus a few per level, whatever the sector size.  For
 * statements whose challenges derive from the root itself (SnapDeals:
 * comm_r_new), where a sparse tree cannot serve.
 *   hash CUZK_FIL_HASH_POSEIDON: the tree_r_last shape (Poseidon, arities
 *        powers of two); CUZK_FIL_HASH_SHA256: binary SHA-256 trunc254
 *        (comm_d trees; shape base_arity 2, no sub or top);
 *   period_log <= CUZK_FIL_PERIODIC_MAX_PERIOD_LOG and <= region_log, and
 *        2^period_log must be the span of a level of the shape (for 8-ary
 *        base levels: 0, 3, 6);
 *   pattern(ctx, region, out, period) fills out[0..period) (32-byte
 *        canonical elements; Fr32 ones for SHA-256 trees) and returns a
 *        status; it must be a pure function of region, is called
 *        concurrently over par, and ctx must outlive the tree (proofs
 *        call it again).
 * Errors: CUZK_ERR_ARG (shape, logs), CUZK_ERR_NOMEM, the pattern's status,
 * CUZK_ERR_ENC_NONCANONICAL (a pattern element >= r). */
typedef enum { CUZK_FIL_HASH_POSEIDON = 0, CUZK_FIL_HASH_SHA256 = 1 } cuzk_fil_hash;
#define CUZK_FIL_PERIODIC_MAX_PERIOD_LOG 8
typedef int (*cuzk_fil_pattern_fn)(void *ctx, uint64_t region, uint8_t *out, size_t period);
typedef struct cuzk_fil_periodic_tree cuzk_fil_periodic_tree;

CUZK_MUST_CHECK int cuzk_fil_periodic_tree_build(cuzk_fil_periodic_tree **out, const cuzk_fil_tree_shape *shape,
                                                 cuzk_fil_hash hash, uint32_t region_log, uint32_t period_log,
                                                 cuzk_fil_pattern_fn pattern, void *ctx, cuzk_par *par,
                                                 char *err, size_t err_len);
void cuzk_fil_periodic_tree_free(cuzk_fil_periodic_tree *t);
void cuzk_fil_periodic_tree_root(uint8_t out[32], const cuzk_fil_periodic_tree *t);
/* Path levels (base + sub + top) and the bytes one proof's storage needs. */
uint32_t cuzk_fil_periodic_tree_levels(const cuzk_fil_periodic_tree *t);
size_t cuzk_fil_periodic_tree_proof_storage(const cuzk_fil_periodic_tree *t);
/* Node `index` of path level `level` (0 = leaves, levels = the root). */
CUZK_MUST_CHECK int cuzk_fil_periodic_tree_node(uint8_t out[32], const cuzk_fil_periodic_tree *t, uint32_t level,
                                                uint64_t index);
/* Inclusion proof of any leaf, the layout of cuzk_fil_tree_prove (Single
 * with arity 2 for SHA-256 trees); storage 8-byte aligned.  Thread safe. */
CUZK_MUST_CHECK int cuzk_fil_periodic_tree_prove(cuzk_fil_merkle_proof *out, void *storage, size_t storage_len,
                                                 const cuzk_fil_periodic_tree *t, uint64_t index);

/* A synthetic sector: its id, its comm_c (any canonical domain element)
 * and the seed of its sparse tree_r_last. */
typedef struct {
    uint64_t sector_id;
    uint8_t comm_c[32];
    uint8_t seed[32];
} cuzk_fil_sparse_sector;

/* One vanilla proof to make: the PoSt type's challenge_count challenges of
 * the sector at position sector_index of the proven list (as
 * cuzk_fil_post_challenges; it matters for api 1.0/1.1 only). */
typedef struct {
    const cuzk_fil_post_info *post;
    uint64_t sector_index;
} cuzk_fil_sparse_post_target;

/* FallbackPoStSectorProofs of a synthetic sector, out[i] for targets[i]:
 * one sparse tree opens the challenges of all targets (which must share a
 * sector size), so every out[i] has the same comm_r_last = its root and
 * comm_r = Poseidon2(comm_c, comm_r_last), and each passes
 * cuzk_fil_vanilla_verify for its post, randomness and sector_index.  Each
 * out[i] owns its memory: free it with cuzk_fil_vanilla_free.  On error
 * nothing is left to free.  randomness and comm_c must be canonical
 * (CUZK_ERR_ENC_NONCANONICAL); CUZK_ERR_ARG for mixed sector sizes,
 * CUZK_ERR_UNSUPPORTED for a size without a tree shape, CUZK_ERR_NOMEM. */
CUZK_MUST_CHECK int cuzk_fil_sparse_post_vanilla(cuzk_fil_post_vanilla *out,
                                                 const cuzk_fil_sparse_post_target *targets, size_t n_targets,
                                                 const cuzk_fil_sparse_sector *sector,
                                                 const uint8_t randomness[32], char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
