/* The StackedDRG parent graph of rust-fil-proofs, bit-exact.
 *
 * Every node of a StackedDRG layer has 14 parents: 6 from the depth-robust
 * BucketGraph (storage-proofs-core drgraph.rs, DRSample with a ChaCha8Rng
 * per node) and 8 expander parents from a 3-round Feistel permutation
 * (storage-proofs-porep stacked/vanilla/graph.rs, crypto/feistel.rs).  Both
 * are seeded by the porep_id only (filecoin-formats.md 5), so one
 * cuzk_seal_graph serves every sector of a registered proof.
 *
 * Contract:
 *  - cuzk_seal_graph_init is the only fallible step: it derives the keys
 *    and tabulates the Feistel round function (below), so the graph owns
 *    memory until cuzk_seal_graph_free.  Afterwards the graph is immutable
 *    and every query is a pure function of (graph, node), safe to call
 *    from any number of threads, with no allocation, no hashing and no
 *    failure path.  A copy of the struct shares the tables: free exactly
 *    one, after the last query through any copy.
 *  - Parents are returned in rust-fil-proofs order (unsorted, may repeat):
 *    DRG [node-1, p1..p5] for api >= V1_1, [p1..p5, node-1] for V1_0; nodes
 *    0 and 1 have six 0 parents.  Expander parents in Feistel order.
 *  - A node >= g->nodes has no parents: every entry is
 *    CUZK_SEAL_GRAPH_NO_PARENT (never a valid index), so a caller checking a
 *    foreign proof cannot hang or read out of range.  A failed init or a
 *    freed graph has nodes = 0: every query answers NO_PARENT.
 *  - The Feistel round F(right, key) depends on a half_bits-bit `right`
 *    only (half_bits = 5 at 2 KiB, 11 at 8 MiB, 14 at 512 MiB, 17 at 32
 *    and 64 GiB, at most 18 for 2^32 - 1 nodes), so init computes F for
 *    all 2^half_bits inputs of each of the 3 round keys: 3 x 2^half_bits
 *    BLAKE2b-512 from OpenSSL's libcrypto (one EVP_MD_CTX per task of the
 *    given cuzk_par), into 3 x 2^half_bits u32 (12 bytes x 2^half_bits:
 *    384 B at 2 KiB, 24 KiB at 8 MiB, 192 KiB at 512 MiB, 1.5 MiB at
 *    32/64 GiB).  CUZK_ERR_UNSUPPORTED if libcrypto has no BLAKE2b-512.
 *  - Cost (one thread, see docs/architecture.md "StackedDRG graph"): init
 *    ~0.24 us per BLAKE2b: 1.4 ms at 8 MiB, 12 ms at 512 MiB, 94 ms at
 *    32/64 GiB (so build a graph once, not per partition or per proof);
 *    DRG parents two ChaCha8 blocks (~130 ns); expander parents ~48 table
 *    lookups (8 parents x 3 rounds x ~2 cycle-walk steps; ~24 at 64 GiB,
 *    where 8 * nodes is a power of 4), 40-270 ns per node.
 *
 * All data is public: nothing here is constant time. */
#ifndef CUZK_SEAL_GRAPH_H
#define CUZK_SEAL_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin.h"
#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_SEAL_GRAPH_DRG_DEGREE 6
#define CUZK_SEAL_GRAPH_EXP_DEGREE 8
#define CUZK_SEAL_GRAPH_PARENTS 14
#define CUZK_SEAL_GRAPH_NO_PARENT UINT32_MAX
/* rust-fil-proofs parameter_cache VERSION, part of the cache file name */
#define CUZK_SEAL_GRAPH_CACHE_VERSION 28

/* Feistel permutation over [0, n) (crypto/feistel.rs): the domain is
 * widened to the next power of 4 (at least 4) and split into two halves of
 * half_bits; out-of-range results are re-encrypted (cycle walking).  The
 * three round functions are tabulated at init (cuzk_seal_feistel_init).  Only
 * keys[0..2] are used (3 rounds); keys[3] is kept because rust-fil-proofs
 * derives four and hashes all four into the cache file name. */
typedef struct {
    uint64_t n;
    uint64_t keys[4];
    uint64_t left_mask, right_mask;
    unsigned half_bits;
    uint32_t *table; /* 3 x 2^half_bits: table[i << half_bits | r] = F(r, keys[i]); owned */
} cuzk_seal_feistel;

typedef struct {
    uint64_t nodes;            /* sector_size / 32 */
    int api_version;           /* CUZK_FIL_API_V1_0 / _1_1 / _1_2 */
    uint32_t drg_key[8];       /* ChaCha8 key words: sha256("Filecoin_DRSample" || porep_id)[..28] || node */
    cuzk_seal_feistel feistel; /* n = 8 * nodes, keys from sha256("Filecoin_Feistel" || porep_id) */
} cuzk_seal_graph;

/* nodes in [1, 2^32 - 1] (rust-fil-proofs: "too many nodes" above u32),
 * porep_id 32 bytes (cuzk_fil_seal_porep_id), api_version one of
 * CUZK_FIL_API_*.  CUZK_ERR_ARG with a message otherwise;
 * CUZK_ERR_UNSUPPORTED if libcrypto has no BLAKE2b-512, CUZK_ERR_NOMEM if
 * the round tables cannot be allocated or hashed.  The tables are hashed
 * in tasks spread over par (NULL = the calling thread).  *g is zeroed
 * first, so after a failure it needs no cuzk_seal_graph_free (which is
 * harmless nonetheless); after success it needs exactly one. */
CUZK_MUST_CHECK int cuzk_seal_graph_init(cuzk_seal_graph *g, uint64_t nodes, const uint8_t porep_id[32], int api_version,
                         cuzk_par *par, char *err, size_t err_len);
/* The graph of a registered seal proof: nodes = sector_size / 32, its
 * porep_id and api version. */
CUZK_MUST_CHECK int cuzk_seal_graph_init_for_proof(cuzk_seal_graph *g, const cuzk_fil_seal_info *proof, cuzk_par *par,
                                   char *err, size_t err_len);
/* Frees the round tables; the graph then has no nodes.  NULL, a zeroed
 * graph, a failed init's graph and a second call are all fine. */
void cuzk_seal_graph_free(cuzk_seal_graph *g);

void cuzk_seal_graph_drg_parents(const cuzk_seal_graph *g, uint64_t node, uint32_t out[6]);
void cuzk_seal_graph_exp_parents(const cuzk_seal_graph *g, uint64_t node, uint32_t out[8]);
/* the 14 parents in cache order (6 DRG then 8 expander) */
void cuzk_seal_graph_parents(const cuzk_seal_graph *g, uint64_t node, uint32_t out[14]);

/* Parents of nodes [first, first + count) into out[14 * count], each row
 * as cuzk_seal_graph_parents gives it (rows of nodes >= g->nodes are
 * CUZK_SEAL_GRAPH_NO_PARENT).  The fast path for sweeps (sealing a layer,
 * the cache digest): expander parents via permute_range. */
void cuzk_seal_graph_parents_range(const cuzk_seal_graph *g, uint64_t first, size_t count, uint32_t *out);

/* sha256 digest of the whole parent cache file as rust-fil-proofs writes it
 * (nodes x 14 u32 LE; what parent_cache.json lists), computed streaming in
 * batches whose parents are spread over par (NULL = calling thread).
 * progress(ctx, done, total) after each batch, may be NULL.  Memory: one
 * batch buffer of a few MiB (CUZK_ERR_NOMEM if it cannot be allocated). */
CUZK_MUST_CHECK int cuzk_seal_graph_cache_digest(uint8_t out[32], const cuzk_seal_graph *g, cuzk_par *par,
                                 void (*progress)(void *ctx, uint64_t done, uint64_t total),
                                 void *progress_ctx, char *err, size_t err_len);

/* Name (without ".cache") rust-fil-proofs gives the parent cache file of
 * this graph and the key of parent_cache.json: "v28-sdr-parent-" || hex
 * sha256("poseidon_hasher" || graph identifier || feistel keys u64 LE ||
 * nodes u32 LE) (cache.rs cache_path; production trees use Poseidon).
 * cap >= 80. */
CUZK_MUST_CHECK int cuzk_seal_graph_cache_id(char *out, size_t cap, const cuzk_seal_graph *g, char *err, size_t err_len);

/* ---- primitives (exported for tests and other seal code) ---------------- */

/* One ChaCha block as rand_chacha 0.3 lays it out: constants, key words
 * (little endian), 64-bit block counter in words 12-13, 64-bit stream in
 * words 14-15; `double_rounds` = 4 for ChaCha8, 10 for ChaCha20.  out gets
 * the 16 output words in the order ChaChaXRng::next_u32 returns them. */
void cuzk_seal_chacha_block(uint32_t out[16], const uint32_t key[8], uint64_t counter, uint64_t stream,
                            unsigned double_rounds);

/* Round tables up to 3 x 2^20 u32 (12 MiB): a permutation of up to 4^20
 * elements.  Graphs need at most 4^18. */
#define CUZK_SEAL_FEISTEL_MAX_HALF_BITS 20

/* num_elements in [1, 4^20] (0 is treated as 1: the permutation of an
 * empty set does not exist).  Tabulates the three rounds (3 x 2^half_bits
 * BLAKE2b, spread over par, NULL = calling thread) into memory owned by f
 * until cuzk_seal_feistel_free.  CUZK_ERR_ARG above 4^20,
 * CUZK_ERR_UNSUPPORTED without BLAKE2b-512 in libcrypto, CUZK_ERR_NOMEM;
 * *f is left freed (table NULL) on failure. */
CUZK_MUST_CHECK int cuzk_seal_feistel_init(cuzk_seal_feistel *f, uint64_t num_elements, const uint64_t keys[4], cuzk_par *par,
                           char *err, size_t err_len);
/* Frees the tables (NULL / zeroed / freed f fine); permute and invert then
 * answer UINT64_MAX. */
void cuzk_seal_feistel_free(cuzk_seal_feistel *f);
/* The round function F(right, key) computed directly (what the tables
 * hold): first 8 bytes (big endian) of BLAKE2b-512(right u64 BE || key u64
 * BE), masked, into *out.  Fetches BLAKE2b and allocates a context per
 * call (slow: for tests and spot checks); CUZK_ERR_UNSUPPORTED /
 * CUZK_ERR_NOMEM with a message. */
CUZK_MUST_CHECK int cuzk_seal_feistel_round(uint64_t *out, uint64_t right, uint64_t key, uint64_t right_mask, char *err,
                            size_t err_len);
/* On an initialised f: table lookups only, no failure path.  index < f->n;
 * the result is < f->n.  invert(permute(x)) == x.  An index >= f->n gives
 * UINT64_MAX (cycle walking might not terminate). */
uint64_t cuzk_seal_feistel_permute(const cuzk_seal_feistel *f, uint64_t index);
uint64_t cuzk_seal_feistel_invert(const cuzk_seal_feistel *f, uint64_t index);
/* Eight permutations (out[i] = permute(in[i])).  allow_simd is ignored
 * (kept for the API). */
void cuzk_seal_feistel_permute8(const cuzk_seal_feistel *f, const uint64_t in[8], uint64_t out[8],
                                int allow_simd);
/* out[i] = permute(first + i) for i < count (UINT64_MAX past n): a sweep. */
void cuzk_seal_feistel_permute_range(const cuzk_seal_feistel *f, uint64_t first, size_t count, uint64_t *out);
/* One pass of the network without cycle walking (feistel.rs encode /
 * decode): a bijection on [0, 4^half_bits). */
uint64_t cuzk_seal_feistel_encode(const cuzk_seal_feistel *f, uint64_t index);
uint64_t cuzk_seal_feistel_decode(const cuzk_seal_feistel *f, uint64_t index);

#ifdef __cplusplus
}
#endif
#endif
