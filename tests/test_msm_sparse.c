/* MSM on sparse scalar vectors (Filecoin-like: mostly 0 and 1, a few
 * random terms).  The driver copies the few remaining terms' bases and
 * scalars into its index regions when they fit (m <= nvars / 16), or only
 * the scalars (canonical input, m <= nvars / 8); these tests put m on both
 * sides of those limits, with infinity / repeated / negated bases, density
 * bitmaps, Fr and canonical input, 1-3 threads and exactly sized scratch,
 * and compare every result with a naive sum of cuzk_g*_mul_var products
 * (the curve layer, independent of the MSM code). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "cuzk/pool.h"
#include "fr_util.h"
#include "harness.h"

/* Names the failing configuration (the seed replays it). */
static void fail_case(int line, const char *kind, size_t n, size_t m, int partial, int threads)
{
    static char msg[128];
    snprintf(msg, sizeof msg, "%s n=%zu m=%zu partial=%d threads=%d", kind, n, m, partial, threads);
    test_fail(__FILE__, line, msg);
}

/* Scalars: exactly m random terms at random places, ones with
 * probability 1/4 elsewhere, zeros otherwise. */
static void sparse_scalars(cuzk_fr *k, size_t n, size_t m)
{
    for (size_t i = 0; i < n; i++) k[i] = test_rand64() % 4 == 0 ? CUZK_FR_ONE : CUZK_FR_ZERO;
    for (size_t placed = 0; placed < m && n;) {
        size_t i = (size_t)(test_rand64() % n);
        if (!cuzk_fr_is_zero(&k[i]) && !cuzk_fr_eq(&k[i], &CUZK_FR_ONE)) continue;
        k[i] = placed % 7 == 3 ? fr_u64(2) : fr_rand(); /* small ones too */
        placed++;
    }
}

/* Density: every variable present, or about 7 in 8 (the clear bits'
 * scalars must be ignored, so they get random values). */
static size_t make_density(uint64_t *d, size_t n, int partial, cuzk_fr *k)
{
    size_t cnt = 0;
    memset(d, 0, (n / 64 + 1) * sizeof *d);
    for (size_t i = 0; i < n; i++) {
        if (partial && test_rand64() % 8 == 0) {
            k[i] = fr_rand();
            continue;
        }
        d[i / 64] |= (uint64_t)1 << (i % 64);
        cnt++;
    }
    return cnt;
}

/* One instantiation per group: random points with repeats, negations and
 * infinities; naive reference; every entry point of the MSM layer. */
#define SPARSE_GROUP(g)                                                                          \
    static void gen_##g(cuzk_##g##_affine *out, size_t n)                                        \
    {                                                                                            \
        cuzk_##g p, gen;                                                                         \
        cuzk_##g##_generator(&gen);                                                              \
        for (size_t i = 0; i < n; i++) {                                                         \
            unsigned v = (unsigned)(test_rand64() % 16);                                         \
            if (i && v == 0) {                                                                   \
                out[i] = out[test_rand64() % i];                                                 \
            } else if (i && v == 1) {                                                            \
                cuzk_##g##_affine_neg(&out[i], &out[test_rand64() % i]);                         \
            } else if (v == 2) {                                                                 \
                memset(&out[i], 0, sizeof out[i]);                                               \
            } else {                                                                             \
                cuzk_fr s = fr_rand();                                                           \
                cuzk_##g##_mul_var(&p, &gen, &s);                                                \
                cuzk_##g##_to_affine(&out[i], &p);                                               \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
    static void naive_##g(cuzk_##g *r, const cuzk_##g##_affine *b, const cuzk_fr *k, size_t n,   \
                          const uint64_t *d)                                                     \
    {                                                                                            \
        cuzk_##g##_set_inf(r);                                                                   \
        for (size_t i = 0, j = 0; i < n; i++) {                                                  \
            if (!((d[i / 64] >> (i % 64)) & 1)) continue;                                        \
            const cuzk_##g##_affine *q = &b[j++];                                                \
            if (cuzk_fr_is_zero(&k[i])) continue;                                                \
            cuzk_##g p, t;                                                                       \
            cuzk_##g##_from_affine(&p, q);                                                       \
            cuzk_##g##_mul_var(&t, &p, &k[i]);                                                   \
            cuzk_##g##_add(r, r, &t);                                                            \
        }                                                                                        \
    }                                                                                            \
    static void run_##g(size_t n, size_t m, int partial, cuzk_pool *const *pools)                \
    {                                                                                            \
        cuzk_fr *k = malloc((n + 1) * sizeof *k);                                                \
        cuzk_scalar *ks = malloc((n + 1) * sizeof *ks);                                          \
        uint64_t *d = malloc((n / 64 + 1) * sizeof *d);                                          \
        cuzk_##g##_affine *b = malloc((n + 1) * sizeof *b);                                      \
        CHECK(k && ks && d && b);                                                                \
        sparse_scalars(k, n, m);                                                                 \
        size_t nb = make_density(d, n, partial, k);                                              \
        gen_##g(b, nb);                                                                          \
        cuzk_##g ref, got;                                                                       \
        naive_##g(&ref, b, k, n, d);                                                             \
        cuzk_scalars_from_fr(ks, k, n);                                                          \
        for (int t = 0; t < 3; t++) {                                                            \
            cuzk_par *par = pools[t] ? cuzk_pool_par(pools[t]) : NULL;                           \
            size_t len = cuzk_msm_##g##_canonical_scratch_sizeof(n, par);                        \
            void *s = malloc(len);                                                               \
            CHECK(s != NULL);                                                                    \
            CHECK(cuzk_msm_##g##_canonical(par, &got, b, nb, ks, n, d, s, len) == CUZK_OK);     \
            if (!cuzk_##g##_eq(&got, &ref))                                                      \
                fail_case(__LINE__, "canonical", n, m, partial, t + 1);                          \
            free(s);                                                                             \
            len = cuzk_msm_##g##_scratch_sizeof(n, par);                                         \
            s = malloc(len);                                                                     \
            CHECK(s != NULL);                                                                    \
            CHECK(cuzk_msm_##g(par, &got, b, nb, k, n, d, s, len) == CUZK_OK);                   \
            if (!cuzk_##g##_eq(&got, &ref))                                                      \
                fail_case(__LINE__, "fr", n, m, partial, t + 1);                                 \
            free(s);                                                                             \
        }                                                                                        \
        free(k);                                                                                 \
        free(ks);                                                                                \
        free(d);                                                                                 \
        free(b);                                                                                 \
    }

SPARSE_GROUP(g1)
SPARSE_GROUP(g2)

static cuzk_pool *pools[3];

static void open_pools(void)
{
    pools[0] = NULL;
    CHECK(cuzk_pool_create(&pools[1], 2) == CUZK_OK);
    CHECK(cuzk_pool_create(&pools[2], 3) == CUZK_OK);
}

static void close_pools(void)
{
    cuzk_pool_destroy(pools[1]);
    cuzk_pool_destroy(pools[2]);
}

/* m around n/16 (bases and scalars copied), n/8 (scalars only), beyond
 * (nothing copied), and the degenerate 0 and 1. */
static void test_g1_sparse(void)
{
    open_pools();
    static const size_t n[] = {4096, 1000, 64};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        const size_t ms[] = {0, 1, 2, n[i] / 16 - 1, n[i] / 16, n[i] / 16 + 1, n[i] / 8, n[i] / 8 + 1,
                             n[i] / 4};
        for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++)
            for (int partial = 0; partial < 2; partial++) run_g1(n[i], ms[j], partial, pools);
    }
    for (int it = 1; it < test_iterations; it++) run_g1(8192, 8192 / 20, 1, pools);
    close_pools();
}

static void test_g2_sparse(void)
{
    open_pools();
    static const size_t ms[] = {0, 1, 31, 32, 33, 64, 65, 200};
    for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++)
        for (int partial = 0; partial < 2; partial++) run_g2(1024, ms[j], partial, pools);
    close_pools();
}

static const test_case tests[] = {
    {"g1_sparse", test_g1_sparse},
    {"g2_sparse", test_g2_sparse},
};

TEST_MAIN(tests)
