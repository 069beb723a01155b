/* The StackedDRG parent graph (rust-fil-proofs drgraph.rs BucketGraph +
 * stacked/vanilla/graph.rs StackedGraph), and the digest of its parent
 * cache file.
 *
 * Sealing needs the 14 parents of every node of every layer, and vanilla
 * verification needs them for each challenge, so a query is a pure
 * function of (graph, node): two ChaCha8 blocks for the DRG parents, eight
 * Feistel permutations (~48 round-table lookups, feistel.c) for the
 * expander ones.  Init is the only step that can fail: it derives the keys
 * and tabulates the Feistel rounds (the graph owns that memory until
 * cuzk_seal_graph_free).  The cache digest streams the file rust-fil-proofs
 * would write through SHA-256 batch by batch, computing each batch's
 * parents on the caller's cuzk_par, so a 64 GiB graph (120 GB of cache)
 * needs only a few MiB.
 *
 * rand 0.8's `gen::<u64>()` on ChaCha8Rng is next_u64: two consecutive
 * keystream words, low first; DRSample takes `% n` directly (no gen_range,
 * no rejection), ten draws per node from blocks 0 and 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "cuzk/seal_graph.h"
#include "cuzk/status.h"

#define DRG_M_PRIME (CUZK_SEAL_GRAPH_DRG_DEGREE - 1)
#define DIGEST_BATCH_NODES (1u << 16) /* 3.5 MiB of cache per batch */

static int sha256_two(uint8_t out[32], const char *tag, const uint8_t *data, size_t len)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned n = 0;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1 &&
             EVP_DigestUpdate(c, tag, strlen(tag)) == 1 && EVP_DigestUpdate(c, data, len) == 1 &&
             EVP_DigestFinal_ex(c, out, &n) == 1;
    EVP_MD_CTX_free(c);
    return ok ? CUZK_OK : CUZK_ERR_NOMEM;
}

static uint64_t get_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int cuzk_seal_graph_init(cuzk_seal_graph *g, uint64_t nodes, const uint8_t porep_id[32], int api_version,
                         cuzk_par *par, char *err, size_t err_len)
{
    if (!g) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal graph: NULL graph");
    memset(g, 0, sizeof *g); /* a failed init leaves a graph cuzk_seal_graph_free accepts */
    if (!porep_id) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal graph: NULL porep_id");
    if (nodes == 0 || nodes > UINT32_MAX)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "seal graph: %llu nodes; the graph needs 1 to 2^32-1 nodes",
                         (unsigned long long)nodes);
    if (api_version != CUZK_FIL_API_V1_0 && api_version != CUZK_FIL_API_V1_1 &&
        api_version != CUZK_FIL_API_V1_2)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal graph: unknown api version %d", api_version);
    uint8_t h[32];
    if (sha256_two(h, "Filecoin_DRSample", porep_id, 32) != CUZK_OK)
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph: SHA-256 context");
    for (int i = 0; i < 7; i++)
        g->drg_key[i] = get_le32(h + 4 * i); /* seed[..28] */
    if (sha256_two(h, "Filecoin_Feistel", porep_id, 32) != CUZK_OK)
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph: SHA-256 context");
    uint64_t keys[4];
    for (int i = 0; i < 4; i++)
        keys[i] = get_le64(h + 8 * i);
    int st = cuzk_seal_feistel_init(&g->feistel, nodes * CUZK_SEAL_GRAPH_EXP_DEGREE, keys, par, err, err_len);
    if (st) return st;
    g->nodes = nodes;
    g->api_version = api_version;
    return CUZK_OK;
}

int cuzk_seal_graph_init_for_proof(cuzk_seal_graph *g, const cuzk_fil_seal_info *proof, cuzk_par *par,
                                   char *err, size_t err_len)
{
    if (g) memset(g, 0, sizeof *g);
    if (!proof) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal graph: NULL proof");
    uint8_t porep_id[32];
    cuzk_fil_seal_porep_id(porep_id, proof);
    return cuzk_seal_graph_init(g, proof->sector_size / 32, porep_id, proof->api_version, par, err, err_len);
}

void cuzk_seal_graph_free(cuzk_seal_graph *g)
{
    if (!g) return;
    cuzk_seal_feistel_free(&g->feistel);
    g->nodes = 0; /* every query of a freed graph answers NO_PARENT */
}

static void no_parents(uint32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = CUZK_SEAL_GRAPH_NO_PARENT;
}

void cuzk_seal_graph_drg_parents(const cuzk_seal_graph *g, uint64_t node, uint32_t out[6])
{
    if (node >= g->nodes) return no_parents(out, CUZK_SEAL_GRAPH_DRG_DEGREE);
    if (node < 2) { /* node 0 references itself, node 1 only node 0 */
        memset(out, 0, CUZK_SEAL_GRAPH_DRG_DEGREE * sizeof *out);
        return;
    }
    uint32_t key[8], w[32];
    memcpy(key, g->drg_key, 7 * sizeof *key);
    key[7] = (uint32_t)node; /* seed = drg_seed || node u32 LE */
    cuzk_seal_chacha_block(w, key, 0, 0, 4);
    cuzk_seal_chacha_block(w + 16, key, 1, 0, 4);

    const uint64_t meta = node * DRG_M_PRIME; /* metagraph node */
    /* ceil(log2(meta)) as f64 in Rust; exact for meta < 2^54 (tested) */
    const uint64_t n_buckets = 64 - (uint64_t)__builtin_clzll(meta - 1);
    const int v1_0 = g->api_version == CUZK_FIL_API_V1_0;
    uint32_t *other = v1_0 ? out : out + 1;
    for (int k = 0; k < DRG_M_PRIME; k++) {
        uint64_t r1 = w[4 * k] | (uint64_t)w[4 * k + 1] << 32;
        uint64_t r2 = w[4 * k + 2] | (uint64_t)w[4 * k + 3] << 32;
        uint64_t bucket = r1 % n_buckets + 1;
        uint64_t largest = meta < (1ull << bucket) ? meta : 1ull << bucket;
        uint64_t smallest = largest >> 1 > 2 ? largest >> 1 : 2;
        uint64_t distance = smallest + r2 % (largest - smallest + 1);
        uint32_t mapped = (uint32_t)((meta - distance) / DRG_M_PRIME);
        other[k] = mapped == node ? (uint32_t)node - 1 : mapped;
    }
    /* the immediate predecessor, so hashing cannot begin early */
    out[v1_0 ? DRG_M_PRIME : 0] = (uint32_t)node - 1;
}

void cuzk_seal_graph_exp_parents(const cuzk_seal_graph *g, uint64_t node, uint32_t out[8])
{
    if (node >= g->nodes) return no_parents(out, CUZK_SEAL_GRAPH_EXP_DEGREE);
    const int v1_0 = g->api_version == CUZK_FIL_API_V1_0;
    uint64_t a[CUZK_SEAL_GRAPH_EXP_DEGREE], t8[CUZK_SEAL_GRAPH_EXP_DEGREE];
    for (unsigned i = 0; i < CUZK_SEAL_GRAPH_EXP_DEGREE; i++)
        a[i] = node * CUZK_SEAL_GRAPH_EXP_DEGREE + i;
    cuzk_seal_feistel_permute8(&g->feistel, a, t8, 1);
    for (unsigned i = 0; i < CUZK_SEAL_GRAPH_EXP_DEGREE; i++) {
        uint64_t t = t8[i];
        /* V1_0 truncates to u32 before dividing (the pathology fixed in V1_1,
         * visible only when 8 * nodes > 2^32, i.e. 32 and 64 GiB) */
        out[i] = v1_0 ? (uint32_t)t / CUZK_SEAL_GRAPH_EXP_DEGREE : (uint32_t)(t / CUZK_SEAL_GRAPH_EXP_DEGREE);
    }
}

void cuzk_seal_graph_parents(const cuzk_seal_graph *g, uint64_t node, uint32_t out[14])
{
    cuzk_seal_graph_drg_parents(g, node, out);
    cuzk_seal_graph_exp_parents(g, node, out + CUZK_SEAL_GRAPH_DRG_DEGREE);
}

#define RANGE_CHUNK 32 /* nodes per permute_range call: 2 KiB of stack */

void cuzk_seal_graph_parents_range(const cuzk_seal_graph *g, uint64_t first, size_t count, uint32_t *out)
{
    const int v1_0 = g->api_version == CUZK_FIL_API_V1_0;
    uint64_t t[RANGE_CHUNK * CUZK_SEAL_GRAPH_EXP_DEGREE];
    for (size_t c = 0; c < count; c += RANGE_CHUNK) {
        size_t m = count - c < RANGE_CHUNK ? count - c : RANGE_CHUNK;
        uint64_t node0 = first + c;
        if (node0 >= g->nodes || g->nodes - node0 < m) { /* past the end: per node */
            for (size_t i = 0; i < m; i++)
                cuzk_seal_graph_parents(g, node0 + i, out + (c + i) * CUZK_SEAL_GRAPH_PARENTS);
            continue;
        }
        cuzk_seal_feistel_permute_range(&g->feistel, node0 * CUZK_SEAL_GRAPH_EXP_DEGREE,
                                        m * CUZK_SEAL_GRAPH_EXP_DEGREE, t);
        for (size_t i = 0; i < m; i++) {
            uint32_t *row = out + (c + i) * CUZK_SEAL_GRAPH_PARENTS;
            cuzk_seal_graph_drg_parents(g, node0 + i, row);
            for (unsigned k = 0; k < CUZK_SEAL_GRAPH_EXP_DEGREE; k++) {
                uint64_t v = t[i * CUZK_SEAL_GRAPH_EXP_DEGREE + k];
                row[CUZK_SEAL_GRAPH_DRG_DEGREE + k] = v1_0 ? (uint32_t)v / CUZK_SEAL_GRAPH_EXP_DEGREE
                                                           : (uint32_t)(v / CUZK_SEAL_GRAPH_EXP_DEGREE);
            }
        }
    }
}

/* ---- cache file digest --------------------------------------------------- */

typedef struct {
    const cuzk_seal_graph *g;
    uint8_t *buf;   /* batch of cache entries, 56 bytes per node */
    uint64_t first; /* first node of the batch */
    uint64_t count; /* nodes in the batch */
    uint64_t per_task;
} digest_batch;

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void digest_task(void *arg, size_t index)
{
    const digest_batch *b = arg;
    uint64_t lo = index * b->per_task;
    uint64_t hi = lo + b->per_task < b->count ? lo + b->per_task : b->count;
    uint32_t p[RANGE_CHUNK * CUZK_SEAL_GRAPH_PARENTS];
    for (uint64_t i = lo; i < hi; i += RANGE_CHUNK) {
        size_t m = hi - i < RANGE_CHUNK ? (size_t)(hi - i) : RANGE_CHUNK;
        cuzk_seal_graph_parents_range(b->g, b->first + i, m, p);
        uint8_t *e = b->buf + i * 4 * CUZK_SEAL_GRAPH_PARENTS;
        for (size_t k = 0; k < m * CUZK_SEAL_GRAPH_PARENTS; k++)
            put_le32(e + 4 * k, p[k]);
    }
}

int cuzk_seal_graph_cache_digest(uint8_t out[32], const cuzk_seal_graph *g, cuzk_par *par,
                                 void (*progress)(void *ctx, uint64_t done, uint64_t total),
                                 void *progress_ctx, char *err, size_t err_len)
{
    if (!out || !g) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal graph digest: NULL argument");
    const size_t entry = 4 * CUZK_SEAL_GRAPH_PARENTS;
    uint8_t *buf = malloc((size_t)DIGEST_BATCH_NODES * entry);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int rc = CUZK_OK;
    if (!buf || !c || EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
        rc = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph digest: cannot allocate %zu bytes",
                       (size_t)DIGEST_BATCH_NODES * entry);
        goto done;
    }
    const uint64_t tasks = 8ull * cuzk_par_threads(par);
    for (uint64_t first = 0; first < g->nodes; first += DIGEST_BATCH_NODES) {
        uint64_t count = g->nodes - first < DIGEST_BATCH_NODES ? g->nodes - first : DIGEST_BATCH_NODES;
        digest_batch b = {g, buf, first, count, (count + tasks - 1) / tasks};
        cuzk_par_for(par, digest_task, &b, (size_t)((count + b.per_task - 1) / b.per_task));
        if (EVP_DigestUpdate(c, buf, (size_t)count * entry) != 1) {
            rc = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph digest: SHA-256 update failed");
            goto done;
        }
        if (progress) progress(progress_ctx, first + count, g->nodes);
    }
    unsigned n = 0;
    if (EVP_DigestFinal_ex(c, out, &n) != 1)
        rc = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph digest: SHA-256 final failed");
done:
    EVP_MD_CTX_free(c);
    free(buf);
    return rc;
}

int cuzk_seal_graph_cache_id(char *out, size_t cap, const cuzk_seal_graph *g, char *err, size_t err_len)
{
    if (!out || !g) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal graph cache id: NULL argument");
    /* ParameterSetMetadata::identifier of StackedGraph around BucketGraph */
    char id[256];
    int len = snprintf(id, sizeof id,
                       "poseidon_hasherstacked_graph::StackedGraph{expansion_degree: %d base_graph: "
                       "drgraph::BucketGraph{size: %llu; degree: %d; hasher: poseidon_hasher} }",
                       CUZK_SEAL_GRAPH_EXP_DEGREE, (unsigned long long)g->nodes, CUZK_SEAL_GRAPH_DRG_DEGREE);
    uint8_t tail[36];
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++)
            tail[8 * i + b] = (uint8_t)(g->feistel.keys[i] >> (8 * b));
    put_le32(tail + 32, (uint32_t)g->nodes);
    uint8_t h[32];
    unsigned n = 0;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1 &&
             EVP_DigestUpdate(c, id, (size_t)len) == 1 && EVP_DigestUpdate(c, tail, sizeof tail) == 1 &&
             EVP_DigestFinal_ex(c, h, &n) == 1;
    EVP_MD_CTX_free(c);
    if (!ok) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph cache id: SHA-256 failed");
    int w = snprintf(out, cap, "v%d-sdr-parent-", CUZK_SEAL_GRAPH_CACHE_VERSION);
    if (w < 0 || cap < (size_t)w + 65)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal graph cache id: buffer of %zu bytes, need %d", cap,
                         w + 65);
    for (int i = 0; i < 32; i++)
        snprintf(out + w + 2 * i, 3, "%02x", h[i]);
    return CUZK_OK;
}
