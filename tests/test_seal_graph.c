/* StackedDRG parent graph: ChaCha against rand_chacha / OpenSSL / a
 * published ChaCha8 answer, the Feistel round against one-shot
 * EVP_Digest, the round tables (serial or over a pool) against that round
 * and the permutation against one computed from it directly, queries from
 * many threads at once against one thread, init / free contracts, Feistel
 * bijectivity, the DRG properties rust-fil-proofs asserts, and the
 * whole graph against the parent-cache digests rust-fil-proofs publishes
 * (2 KiB and 8 MiB always, 512 MiB with CUZK_SLOW_TESTS=1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "cuzk/pool.h"
#include "cuzk/seal_graph.h"
#include "cuzk/status.h"
#include "harness.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void le_words(uint32_t *key, const uint8_t *seed, int n)
{
    for (int i = 0; i < n; i++)
        key[i] = (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 | (uint32_t)seed[4 * i + 2] << 16 |
                 (uint32_t)seed[4 * i + 3] << 24;
}

/* rand_chacha 0.3 src/chacha.rs tests (ChaCha20Rng), vectors from
 * draft-nir-cfrg-chacha20-poly1305-04. */
static void test_chacha20_rand_chacha_vectors(void)
{
    uint8_t seed[32] = {0};
    uint32_t key[8], w[16];
    static const uint32_t a0[16] = {0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0,
                                    0xccef36a8, 0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8,
                                    0xf4b8436a, 0x1ca11815, 0x69b687c3, 0x8665eeb2};
    static const uint32_t a1[16] = {0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb, 0x6965e348,
                                    0x3e53c612, 0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874,
                                    0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b};
    le_words(key, seed, 8);
    cuzk_seal_chacha_block(w, key, 0, 0, 10);
    CHECK(!memcmp(w, a0, sizeof w));
    cuzk_seal_chacha_block(w, key, 1, 0, 10);
    CHECK(!memcmp(w, a1, sizeof w));

    static const uint32_t b1[16] = {0x2452eb3a, 0x9249f8ec, 0x8d829d9b, 0xddd4ceb1, 0xe8252083, 0x60818b01,
                                    0xf38422b8, 0x5aaa49c9, 0xbb00ca8e, 0xda3ba7b4, 0xc4b592d1, 0xfdf2732f,
                                    0x4436274e, 0x2561b3c8, 0xebdd4aa6, 0xa0136c00};
    seed[31] = 1;
    le_words(key, seed, 8);
    cuzk_seal_chacha_block(w, key, 1, 0, 10);
    CHECK(!memcmp(w, b1, sizeof w));

    static const uint32_t c2[16] = {0xfb4dd572, 0x4bc42ef1, 0xdf922636, 0x327f1394, 0xa78dea8f, 0x5e269039,
                                    0xa1bebbc1, 0xcaf09aae, 0xa25ab213, 0x48a6b46c, 0x1b9d9bcb, 0x092c5be6,
                                    0x546ca624, 0x1bec45d5, 0x87f47473, 0x96f0992e};
    memset(seed, 0, 32);
    seed[1] = 0xff;
    le_words(key, seed, 8);
    cuzk_seal_chacha_block(w, key, 2, 0, 10);
    CHECK(!memcmp(w, c2, sizeof w));

    /* test_chacha_multiple_blocks: word i of block i (17 words consumed per step) */
    static const uint32_t mb[16] = {0xf225c81a, 0x6ab1be57, 0x04d42951, 0x70858036, 0x49884684, 0x64efec72,
                                    0x4be2d186, 0x3615b384, 0x11cfa18e, 0xd3c50049, 0x75c775f6, 0x434c6530,
                                    0x2c5bad8f, 0x898881dc, 0x5f1c86d9, 0xc1f8e7f4};
    for (int i = 0; i < 8; i++)
        key[i] = (uint32_t)i;
    for (int i = 0; i < 16; i++) {
        uint64_t word = 17ull * (uint64_t)i;
        cuzk_seal_chacha_block(w, key, word / 16, 0, 10);
        CHECK(w[word % 16] == mb[i]);
    }

    /* test_chacha_nonce: stream = 2 << 56 */
    static const uint32_t nn[16] = {0x374dc6c2, 0x3736d58c, 0xb904e24a, 0xcd3f93ef, 0x88228b1a, 0x96a4dfb3,
                                    0x5b76ab72, 0xc727ee54, 0x0e0e978a, 0xf3145c95, 0x1b748ea8, 0xf786c297,
                                    0x99c28f5f, 0x628314e8, 0x398a19fa, 0x6ded1b53};
    memset(key, 0, sizeof key);
    cuzk_seal_chacha_block(w, key, 0, 2ull << 56, 10);
    CHECK(!memcmp(w, nn, sizeof w));
}

/* The core at 20 rounds against OpenSSL's ChaCha20 keystream (RFC 7539
 * layout: 32-bit counter, 96-bit nonce = our counter high word + stream). */
static void test_chacha20_openssl(void)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    CHECK(c != NULL);
    for (int it = 0; it < 50 * test_iterations; it++) {
        uint8_t seed[32], iv[16], zero[64] = {0}, ks[64];
        test_rand_bytes(seed, 32);
        test_rand_bytes(iv, 16);
        int len = 0;
        CHECK(EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, seed, iv) == 1);
        CHECK(EVP_EncryptUpdate(c, ks, &len, zero, 64) == 1 && len == 64);
        uint32_t key[8], ivw[4], w[16];
        le_words(key, seed, 8);
        le_words(ivw, iv, 4);
        cuzk_seal_chacha_block(w, key, ivw[0] | (uint64_t)ivw[1] << 32, ivw[2] | (uint64_t)ivw[3] << 32, 10);
        uint32_t ref[16];
        le_words(ref, ks, 16);
        CHECK(!memcmp(w, ref, sizeof w));
    }
    EVP_CIPHER_CTX_free(c);
}

/* ChaCha8Rng::from_seed([0; 32]).next_u64() == 0xd6405f892fef003e, the
 * rand_chacha-compatible answer in nixberg/chacha-rng-c README.md (equal
 * to the 8-round zero-key keystream 3e 00 ef 2f 89 5f 40 d6 of
 * draft-strombergson-chacha-test-vectors TC1). */
static void test_chacha8_known_answer(void)
{
    uint32_t key[8] = {0}, w[16];
    cuzk_seal_chacha_block(w, key, 0, 0, 4);
    CHECK((w[0] | (uint64_t)w[1] << 32) == 0xd6405f892fef003eull);
}

/* The Feistel round function against one-shot EVP_Digest with the
 * implicitly fetched EVP_blake2b512(). */
static void test_feistel_round_openssl(void)
{
    for (int it = 0; it < 2000 * test_iterations; it++) {
        uint64_t right = test_rand64(), key = test_rand64();
        uint64_t mask = it % 3 == 0 ? UINT64_MAX : (1ull << (test_rand64() % 40)) - 1;
        uint8_t data[16], h[64];
        for (int b = 0; b < 8; b++)
            data[b] = (uint8_t)(right >> (56 - 8 * b));
        for (int b = 0; b < 8; b++)
            data[8 + b] = (uint8_t)(key >> (56 - 8 * b));
        unsigned len = 0;
        CHECK(EVP_Digest(data, 16, h, &len, EVP_blake2b512(), NULL) == 1 && len == 64);
        uint64_t ref = 0;
        for (int b = 0; b < 8; b++)
            ref = ref << 8 | h[b];
        uint64_t got = 0;
        CHECK(cuzk_seal_feistel_round(&got, right, key, mask, NULL, 0) == CUZK_OK && got == (ref & mask));
    }
}

/* feistel.rs tests: keys [1,2,3,4]; permute is a bijection of [0, n) with
 * invert as inverse for any n; raw encode is one on the widened domain and
 * fails to stay in range for the listed non-powers of 4. */
static void check_feistel_bijection(uint64_t n)
{
    static const uint64_t keys[4] = {1, 2, 3, 4};
    cuzk_seal_feistel f;
    CHECK(cuzk_seal_feistel_init(&f, n, keys, NULL, NULL, 0) == CUZK_OK);
    uint8_t *seen = calloc((size_t)n, 1);
    CHECK(seen != NULL);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t p = cuzk_seal_feistel_permute(&f, i);
        CHECK(p < n && !seen[p]);
        if (p < n) seen[p] = 1;
        CHECK(cuzk_seal_feistel_invert(&f, p) == i);
    }
    free(seen);
    CHECK(cuzk_seal_feistel_permute(&f, n) == UINT64_MAX);
    cuzk_seal_feistel_free(&f);
}

static void test_feistel(void)
{
    static const uint64_t bad_ns[] = {5, 6, 8, 12, 17};
    static const uint64_t keys[4] = {1, 2, 3, 4};
    for (size_t k = 0; k < 5; k++) {
        check_feistel_bijection(bad_ns[k]);
        cuzk_seal_feistel f;
        CHECK(cuzk_seal_feistel_init(&f, bad_ns[k], keys, NULL, NULL, 0) == CUZK_OK);
        int failed = 0;
        for (uint64_t i = 0; i < bad_ns[k]; i++) {
            uint64_t p = cuzk_seal_feistel_encode(&f, i);
            if (p >= bad_ns[k] || cuzk_seal_feistel_decode(&f, p) != i) failed = 1;
        }
        CHECK(failed); /* expected failure (feistel.rs test_feistel_power_of_4) */
        cuzk_seal_feistel_free(&f);
    }
    for (uint64_t n = 4; n <= 256; n *= 4)
        check_feistel_bijection(n);
    check_feistel_bijection(1024 * 8); /* graph.rs test_shuffle: n = 2^10, d = 8 */
    check_feistel_bijection(64 * 8);   /* the 2 KiB expander domain */
    cuzk_seal_feistel f;
    CHECK(cuzk_seal_feistel_init(&f, 1ull << 20, keys, NULL, NULL, 0) == CUZK_OK);
    for (uint64_t i = 0; i < f.left_mask + f.right_mask + 1; i += 997)
        CHECK(cuzk_seal_feistel_decode(&f, cuzk_seal_feistel_encode(&f, i)) == i);
    cuzk_seal_feistel_free(&f);
}

/* permute8 (both allow_simd values) against the single permutation, for
 * domains with and without cycle walking, indices >= n included. */
static void test_feistel_permute8(void)
{
    static const uint64_t ns[] = {512, 1ull << 21, 1ull << 27, 1ull << 33, 1ull << 34, 12345};
    for (size_t k = 0; k < 6; k++) {
        uint64_t keys[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64()};
        cuzk_seal_feistel f;
        CHECK(cuzk_seal_feistel_init(&f, ns[k], keys, NULL, NULL, 0) == CUZK_OK);
        for (int it = 0; it < 200 * test_iterations; it++) {
            uint64_t in[8], a[8], b[8];
            for (int i = 0; i < 8; i++)
                in[i] = test_rand64() % (ns[k] + (it % 7 == 0 ? 8 : 0));
            cuzk_seal_feistel_permute8(&f, in, a, 1);
            cuzk_seal_feistel_permute8(&f, in, b, 0);
            for (int i = 0; i < 8; i++)
                CHECK(a[i] == b[i] && b[i] == cuzk_seal_feistel_permute(&f, in[i]));
        }
        cuzk_seal_feistel_free(&f);
    }
}

/* The sweep paths against the per-index / per-node ones, including
 * ranges that run past the end. */
static void test_ranges(void)
{
    uint64_t keys[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64()};
    cuzk_seal_feistel f;
    CHECK(cuzk_seal_feistel_init(&f, 1ull << 21, keys, NULL, NULL, 0) == CUZK_OK);
    uint64_t out[300];
    uint64_t first = (1ull << 21) - 250 - test_rand64() % 50;
    cuzk_seal_feistel_permute_range(&f, first, 300, out);
    for (size_t i = 0; i < 300; i++)
        CHECK(out[i] == cuzk_seal_feistel_permute(&f, first + i));
    cuzk_seal_feistel_free(&f);

    for (int v = 0; v < 2; v++) {
        cuzk_seal_graph g;
        uint8_t id[32];
        test_rand_bytes(id, 32);
        CHECK(cuzk_seal_graph_init(&g, 1000, id, v ? CUZK_FIL_API_V1_1 : CUZK_FIL_API_V1_0, NULL, NULL, 0) ==
              CUZK_OK);
        static uint32_t rows[1100 * 14];
        cuzk_seal_graph_parents_range(&g, 0, 1100, rows);
        for (uint64_t node = 0; node < 1100; node++) {
            uint32_t p[14];
            cuzk_seal_graph_parents(&g, node, p);
            CHECK(!memcmp(p, rows + 14 * node, sizeof p));
        }
        cuzk_seal_graph_free(&g);
    }
}

/* DRSample's n_buckets = ceil(log2(x as f64)); the integer form must agree
 * wherever the graph can use it (x = 5 * node < 5 * 2^32 < 2^35).  (From
 * x = 2^49 + 1 on, f64 log2 rounds down to 49 and the two differ, which no
 * graph of at most 2^32 nodes reaches.)  log2 is monotone, so the values
 * next to each power of two decide every bucket boundary. */
static void test_log2_buckets(void)
{
    for (uint64_t x = 2; x < (1u << 20); x++)
        CHECK((uint64_t)ceil(log2((double)x)) == 64 - (uint64_t)__builtin_clzll(x - 1));
    for (int k = 2; k <= 40; k++)
        for (int64_t d = -3; d <= 3; d++) {
            uint64_t x = (1ull << k) + (uint64_t)d;
            if (x < 2) continue;
            CHECK((uint64_t)ceil(log2((double)x)) == 64 - (uint64_t)__builtin_clzll(x - 1));
        }
}

static void porep_id_byte(uint8_t id[32], uint8_t b0)
{
    memset(id, 0, 32);
    id[0] = b0;
}

/* drgraph.rs graph_bucket_aux: sizes 4..2048, porep ids [0,..] V1_0 and
 * [5,..] V1_2; plus parents < node and expander parents < nodes. */
static void test_drg_properties(void)
{
    static const uint64_t sizes[] = {4, 16, 256, 2048};
    for (int v = 0; v < 2; v++) {
        uint8_t id[32];
        porep_id_byte(id, v ? 5 : 0);
        int api = v ? CUZK_FIL_API_V1_2 : CUZK_FIL_API_V1_0;
        for (size_t s = 0; s < 4; s++) {
            cuzk_seal_graph g;
            CHECK(cuzk_seal_graph_init(&g, sizes[s], id, api, NULL, NULL, 0) == CUZK_OK);
            uint32_t p[14], q[14];
            for (uint64_t node = 0; node < 2; node++) {
                cuzk_seal_graph_drg_parents(&g, node, p);
                for (int k = 0; k < 6; k++)
                    CHECK(p[k] == 0);
            }
            for (uint64_t i = 1; i < sizes[s]; i++) {
                cuzk_seal_graph_parents(&g, i, p);
                cuzk_seal_graph_parents(&g, i, q);
                CHECK(!memcmp(p, q, sizeof p));
                for (int k = 0; k < 6; k++)
                    CHECK(p[k] != i && p[k] < i);
                CHECK(p[v ? 0 : 5] == i - 1);
                for (int k = 6; k < 14; k++)
                    CHECK(p[k] < sizes[s]);
            }
            cuzk_seal_graph_parents(&g, sizes[s], p);
            for (int k = 0; k < 14; k++)
                CHECK(p[k] == CUZK_SEAL_GRAPH_NO_PARENT);
            cuzk_seal_graph_free(&g);
        }
    }
}

static void test_init_errors(void)
{
    cuzk_seal_graph g;
    uint8_t id[32] = {0};
    char err[128];
    CHECK(cuzk_seal_graph_init(&g, 0, id, CUZK_FIL_API_V1_1, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_seal_graph_init(&g, 1ull << 32, id, CUZK_FIL_API_V1_1, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_seal_graph_init(&g, 64, id, 7, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "api version") != NULL);
    /* a failed init leaves a graph without nodes: queries answer NO_PARENT, free is harmless */
    uint32_t p[14];
    cuzk_seal_graph_parents(&g, 1, p);
    for (int k = 0; k < 14; k++)
        CHECK(p[k] == CUZK_SEAL_GRAPH_NO_PARENT);
    cuzk_seal_graph_free(&g);
    CHECK(cuzk_seal_graph_init(&g, 64, NULL, CUZK_FIL_API_V1_1, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_seal_graph_init(NULL, 64, id, CUZK_FIL_API_V1_1, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_seal_graph_init_for_proof(&g, NULL, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_seal_graph_init(&g, 1, id, CUZK_FIL_API_V1_1, NULL, err, sizeof err) == CUZK_OK);
    char name[16];
    CHECK(cuzk_seal_graph_cache_id(name, sizeof name, &g, err, sizeof err) == CUZK_ERR_ARG);
    cuzk_seal_graph_free(&g);
    cuzk_seal_graph_free(&g); /* idempotent */
    CHECK(g.nodes == 0 && g.feistel.table == NULL);
    cuzk_seal_graph_parents(&g, 0, p); /* a freed graph has no nodes */
    CHECK(p[0] == CUZK_SEAL_GRAPH_NO_PARENT && p[13] == CUZK_SEAL_GRAPH_NO_PARENT);
    cuzk_seal_graph_free(NULL);
    cuzk_seal_graph zero;
    memset(&zero, 0, sizeof zero);
    cuzk_seal_graph_free(&zero);

    cuzk_seal_feistel f;
    static const uint64_t keys[4] = {1, 2, 3, 4};
    CHECK(cuzk_seal_feistel_init(&f, (1ull << 40) + 1, keys, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "4^20") != NULL && f.table == NULL);
    cuzk_seal_feistel_free(&f);
    CHECK(cuzk_seal_feistel_init(&f, 0, keys, NULL, err, sizeof err) == CUZK_OK && f.n == 1);
    CHECK(cuzk_seal_feistel_permute(&f, 0) == 0);
    cuzk_seal_feistel_free(&f);
    CHECK(cuzk_seal_feistel_permute(&f, 0) == UINT64_MAX); /* freed: no elements */
    cuzk_seal_feistel_free(&f);
    CHECK(cuzk_seal_feistel_round(NULL, 0, 0, 1, err, sizeof err) == CUZK_ERR_ARG);
}

/* A reference encode straight from the fallible round function (no
 * tables): feistel.rs encode, 3 rounds. */
static uint64_t slow_encode(const cuzk_seal_feistel *f, uint64_t index)
{
    uint64_t left = (index & f->left_mask) >> f->half_bits, right = index & f->right_mask;
    for (int i = 0; i < 3; i++) {
        uint64_t fr = 0, l = right;
        CHECK(cuzk_seal_feistel_round(&fr, right, f->keys[i], f->right_mask, NULL, 0) == CUZK_OK);
        right = left ^ fr;
        left = l;
    }
    return (left << f->half_bits) | right;
}

/* The round tables: entries against the round function, encode against a
 * table-free encode, and tables built over a pool equal to serial ones
 * (the 8 MiB and 512 MiB domains included: 2^11 and 2^14 per round). */
static void test_feistel_tables(void)
{
    static const uint64_t ns[] = {4, 512, 1ull << 21, 1ull << 27, 1ull << 33, 12345};
    cuzk_pool *pool = NULL;
    CHECK(cuzk_pool_create(&pool, 3) == CUZK_OK);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint64_t keys[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64()};
        cuzk_seal_feistel f, fp;
        CHECK(cuzk_seal_feistel_init(&f, ns[k], keys, NULL, NULL, 0) == CUZK_OK);
        CHECK(cuzk_seal_feistel_init(&fp, ns[k], keys, pool ? cuzk_pool_par(pool) : NULL, NULL, 0) ==
              CUZK_OK);
        const size_t size = (size_t)1 << f.half_bits;
        CHECK(f.table && fp.table && !memcmp(f.table, fp.table, 3 * size * sizeof *f.table));
        for (int it = 0; it < 100 * test_iterations; it++) {
            size_t e = (size_t)(test_rand64() % (3 * size));
            if (it < 3) e = (size_t)it * size + size - 1; /* each table's last entry */
            uint64_t want = 0;
            CHECK(cuzk_seal_feistel_round(&want, e % size, keys[e / size], f.right_mask, NULL, 0) == CUZK_OK);
            CHECK(f.table[e] == want);
            uint64_t x = test_rand64() & (f.left_mask | f.right_mask);
            CHECK(cuzk_seal_feistel_encode(&f, x) == slow_encode(&f, x));
        }
        cuzk_seal_feistel_free(&fp);
        cuzk_seal_feistel_free(&f);
    }
    cuzk_pool_destroy(pool);
}

/* Graph queries from a pool's threads at once against the same queries
 * on this thread: all read the one set of round tables.  Two pools in
 * turn (thread start and exit must not matter). */
#define MT_NODES 4096
#define MT_TASKS 64

typedef struct {
    const cuzk_seal_graph *g;
    uint32_t *rows; /* MT_NODES x 14 */
} mt_job;

static void mt_task(void *arg, size_t index)
{
    const mt_job *j = arg;
    const size_t per = MT_NODES / MT_TASKS;
    for (size_t i = index * per; i < (index + 1) * per; i++) {
        uint64_t node = (i * 2654435761u) % j->g->nodes; /* spread over the graph */
        if (index % 2)
            cuzk_seal_graph_parents(j->g, node, j->rows + i * CUZK_SEAL_GRAPH_PARENTS);
        else
            cuzk_seal_graph_parents_range(j->g, node, 1, j->rows + i * CUZK_SEAL_GRAPH_PARENTS);
    }
}

static void test_threads(void)
{
    cuzk_seal_graph g;
    uint8_t id[32];
    test_rand_bytes(id, 32);
    CHECK(cuzk_seal_graph_init(&g, 1u << 18, id, CUZK_FIL_API_V1_1, NULL, NULL, 0) == CUZK_OK);
    uint32_t *want = malloc(sizeof(uint32_t) * MT_NODES * CUZK_SEAL_GRAPH_PARENTS);
    uint32_t *got = malloc(sizeof(uint32_t) * MT_NODES * CUZK_SEAL_GRAPH_PARENTS);
    CHECK(want && got);
    if (!want || !got) goto done;
    mt_job serial = {&g, want};
    for (size_t t = 0; t < MT_TASKS; t++)
        mt_task(&serial, t);
    for (int round = 0; round < 2; round++) {
        cuzk_pool *pool = NULL;
        CHECK(cuzk_pool_create(&pool, 4) == CUZK_OK);
        if (!pool) break;
        memset(got, 0, sizeof(uint32_t) * MT_NODES * CUZK_SEAL_GRAPH_PARENTS);
        mt_job job = {&g, got};
        cuzk_par_for(cuzk_pool_par(pool), mt_task, &job, MT_TASKS);
        cuzk_pool_destroy(pool);
        CHECK(!memcmp(want, got, sizeof(uint32_t) * MT_NODES * CUZK_SEAL_GRAPH_PARENTS));
    }
done:
    free(want);
    free(got);
    cuzk_seal_graph_free(&g);
}

/* storage-proofs-porep/parent_cache.json of rust-fil-proofs at commit
 * 87348a749d80447d00c595af834a8ed73c09e4d9 (the file last changed in
 * f4c584ae2c85c74f05b6fbd1c1f6571a2f7d12a0): cache id -> sha256 of the
 * cache file.  32 and 64 GiB are listed for completeness (not run). */
static const struct {
    const char *id;
    uint64_t sector_size;
    const char *digest;
} published[] = {
    {"v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117", 34359738368ull,
     "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da"},
    {"v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42", 536870912ull,
     "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5"},
    {"v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899", 2048ull,
     "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
    {"v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b", 68719476736ull,
     "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03"},
    {"v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b", 2048ull,
     "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
    {"v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5", 8388608ull,
     "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"},
    {"v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34", 536870912ull,
     "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a"},
    {"v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6", 68719476736ull,
     "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c"},
    {"v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc", 8388608ull,
     "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"},
    {"v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13", 34359738368ull,
     "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6"},
};
#define N_PUBLISHED (sizeof published / sizeof published[0])

static void hex32(char out[65], const uint8_t d[32])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* Every registered seal proof of this size: its cache id names a published
 * entry (V1 and V1_1) or none (the synthetic and NI porep_ids, whose
 * graphs rust-fil-proofs does not list); each published entry of the size
 * must be matched by one proof, digest equal. */
static void check_published_size(uint64_t sector_size, cuzk_par *par)
{
    int matched[N_PUBLISHED] = {0};
    for (uint64_t id = 0; id < 20; id++) {
        const cuzk_fil_seal_info *s;
        CHECK(cuzk_fil_seal_lookup(&s, id) == CUZK_OK);
        if (s->sector_size != sector_size) continue;
        cuzk_seal_graph g;
        char err[128], name[96];
        CHECK(cuzk_seal_graph_init_for_proof(&g, s, par, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_seal_graph_cache_id(name, sizeof name, &g, err, sizeof err) == CUZK_OK);
        size_t k = 0;
        while (k < N_PUBLISHED && strcmp(published[k].id, name))
            k++;
        if (k == N_PUBLISHED) {
            printf("  %s: %s not published\n", s->name, name);
            cuzk_seal_graph_free(&g);
            continue;
        }
        CHECK(published[k].sector_size == sector_size);
        uint8_t d[32];
        char hex[65];
        double t0 = now_s();
        CHECK(cuzk_seal_graph_cache_digest(d, &g, par, NULL, NULL, err, sizeof err) == CUZK_OK);
        hex32(hex, d);
        int ok = !strcmp(hex, published[k].digest);
        printf("  %s: %s digest %s (%.2f s)\n", s->name, name, ok ? "matches" : "MISMATCH", now_s() - t0);
        CHECK(ok);
        matched[k] = 1;
        cuzk_seal_graph_free(&g);
    }
    for (size_t k = 0; k < N_PUBLISHED; k++)
        if (published[k].sector_size == sector_size) CHECK(matched[k]);
}

static void test_digest_2k(void)
{
    check_published_size(2048, NULL);
}

static void test_digest_8m(void)
{
    check_published_size(8ull << 20, NULL);
}

static void test_digest_512m(void)
{
    const char *slow = getenv("CUZK_SLOW_TESTS");
    if (!slow || strcmp(slow, "1")) {
        test_skip("512 MiB parent-cache digests take minutes: set CUZK_SLOW_TESTS=1");
        return;
    }
    cuzk_pool *pool = NULL;
    const char *t = getenv("CUZK_TEST_THREADS");
    CHECK(cuzk_pool_create(&pool, t ? (unsigned)atoi(t) : 2) == CUZK_OK);
    check_published_size(512ull << 20, cuzk_pool_par(pool));
    cuzk_pool_destroy(pool);
}

/* A cuzk_par that runs tasks in reverse order: the digest must not depend
 * on task order; progress must be monotone and end at nodes. */
static void reverse_for_each(cuzk_par *par, cuzk_task_fn fn, void *arg, size_t n)
{
    for (size_t i = n; i-- > 0;)
        fn(arg, i);
}

static void count_progress(void *ctx, uint64_t done, uint64_t total)
{
    uint64_t *last = ctx;
    CHECK(done > last[0] && done <= total);
    last[0] = done, last[1] = total;
}

static void test_digest_par(void)
{
    cuzk_par rev = {reverse_for_each, 3, NULL};
    const cuzk_fil_seal_info *s;
    CHECK(cuzk_fil_seal_lookup(&s, 6) == CUZK_OK); /* 8 MiB V1_1 */
    cuzk_seal_graph g;
    CHECK(cuzk_seal_graph_init(&g, 200000, (const uint8_t[32]){6}, s->api_version, NULL, NULL, 0) == CUZK_OK);
    uint8_t a[32], b[32];
    uint64_t prog[2] = {0, 0};
    CHECK(cuzk_seal_graph_cache_digest(a, &g, NULL, NULL, NULL, NULL, 0) == CUZK_OK);
    CHECK(cuzk_seal_graph_cache_digest(b, &g, &rev, count_progress, prog, NULL, 0) == CUZK_OK);
    CHECK(!memcmp(a, b, 32) && prog[0] == 200000 && prog[1] == 200000);
    cuzk_seal_graph_free(&g);
}

/* One-thread throughput on the 512 MiB V1_1 graph (informational). */
static void test_bench(void)
{
    const cuzk_fil_seal_info *s;
    CHECK(cuzk_fil_seal_lookup(&s, 7) == CUZK_OK);
    cuzk_seal_graph g;
    double ti = now_s();
    CHECK(cuzk_seal_graph_init_for_proof(&g, s, NULL, NULL, 0) == CUZK_OK);
    printf("  init (round tables, 3 x 2^%u BLAKE2b): %.1f ms\n", g.feistel.half_bits, 1e3 * (now_s() - ti));
    const uint64_t n = 20000, first = g.nodes / 3;
    uint32_t p[14], acc = 0;
    double t0 = now_s();
    for (uint64_t i = 0; i < n; i++)
        cuzk_seal_graph_drg_parents(&g, first + i, p), acc += p[1];
    double t1 = now_s();
    for (uint64_t i = 0; i < n; i++)
        cuzk_seal_graph_exp_parents(&g, first + i, p), acc += p[1];
    double t2 = now_s();
    uint64_t a[8], o[8];
    for (uint64_t i = 0; i < n / 10; i++) {
        for (int k = 0; k < 8; k++)
            a[k] = 8 * (first + i) + (uint64_t)k;
        cuzk_seal_feistel_permute8(&g.feistel, a, o, 0), acc += (uint32_t)o[1];
    }
    double t3 = now_s();
    static uint32_t rows[2000 * 14];
    cuzk_seal_graph_parents_range(&g, first, 2000, rows);
    double t4 = now_s();
    printf("  parents_range (sweep): %.0f ns/node\n", 1e9 * (t4 - t3) / 2000.0);
    printf("  expander parents via permute8: %.0f ns/node\n", 1e9 * (t3 - t2) / (double)(n / 10));
    printf("  512 MiB graph, one thread: drg %.0f ns/node, exp %.0f ns/node, %.0f nodes/s "
           "(%.2f M parents/s) [%u]\n",
           1e9 * (t1 - t0) / (double)n, 1e9 * (t2 - t1) / (double)n, (double)n / (t2 - t0),
           14e-6 * (double)n / (t2 - t0), acc & 1);
    cuzk_seal_graph_free(&g);
}

static const test_case tests[] = {
    {"chacha20_rand_chacha_vectors", test_chacha20_rand_chacha_vectors},
    {"chacha20_openssl", test_chacha20_openssl},
    {"chacha8_known_answer", test_chacha8_known_answer},
    {"feistel_round_openssl", test_feistel_round_openssl},
    {"feistel_tables", test_feistel_tables},
    {"feistel", test_feistel},
    {"feistel_permute8", test_feistel_permute8},
    {"ranges", test_ranges},
    {"log2_buckets", test_log2_buckets},
    {"drg_properties", test_drg_properties},
    {"init_errors", test_init_errors},
    {"threads", test_threads},
    {"digest_2k", test_digest_2k},
    {"digest_8m", test_digest_8m},
    {"digest_par", test_digest_par},
    {"digest_512m", test_digest_512m},
    {"bench", test_bench},
};

TEST_MAIN(tests)
