/* The device MSM (cuzk/gpu_msm.h, src/gpu/msm.c + kernels/msm*.cl) against
 * the CPU MSM (cuzk/msm.h, itself checked against a naive sum in
 * test_msm): equal as points for G1 at 1 ... 2^16 variables with random,
 * bit and Filecoin-like scalars (all zero, all one, mixed 0/1/random with a
 * density bitmap), the dense path (split off) and the 0/1 split, edge
 * cases (r - 1, all bases equal, equal scalars -- one bucket per window,
 * split into pieces --, results at infinity, infinity bases, every forced
 * window), G2 at small sizes, chunked equal to unchunked, argument errors,
 * and the cuzk_groth16_backend shape.
 *
 * Runs on the OpenCL device (pocl in CI; test_gpu_util.h: skipped without
 * one unless CI=true).  Under a sanitizer the largest sizes are smaller
 * (the host side is what ASan watches; the kernels run in pocl's JIT code,
 * uninstrumented, and every branch of the host code is reached at the
 * smaller sizes too). */
#include "cuzk/gpu_msm.h"
#include "cuzk/groth16.h"
#include "cuzk/pool.h"
#include "msm_util.h"
#include "test_gpu_util.h"

static cuzk_gpu_msm *msm_ctx;

static void msm_free_at_exit(void)
{
    cuzk_gpu_msm_free(msm_ctx);
}

static cuzk_gpu_msm *ctx(void)
{
    if (msm_ctx) return msm_ctx;
    cuzk_gpu *g = gpu_test_device();
    if (!g) return NULL;
    char err[512];
    int st = cuzk_gpu_msm_create(&msm_ctx, g, err, sizeof err);
    if (st) {
        fprintf(stderr, "  cuzk_gpu_msm_create: %s\n", err);
        test_fail(__FILE__, __LINE__, "cuzk_gpu_msm_create");
        return NULL;
    }
    atexit(msm_free_at_exit); /* runs before the device's close (registered earlier) */
    return msm_ctx;
}

#define BIG (CUZK_TEST_SANITIZED ? 4096u : 65536u)

/* ---- inputs ----------------------------------------------------------------- */

enum { S_RANDOM, S_BITS, S_ZERO, S_ONE, S_MIXED, S_SMALL, S_EDGE, S_EQUAL, S_RMINUS1 };

static void fill_scalars(cuzk_fr *k, size_t n, int kind)
{
    cuzk_fr same;
    rand_fr(&same);
    for (size_t i = 0; i < n; i++)
        switch (kind) {
        case S_BITS:
            k[i] = test_rand64() & 1 ? CUZK_FR_ONE : CUZK_FR_ZERO;
            break;
        case S_ZERO:
            k[i] = CUZK_FR_ZERO;
            break;
        case S_ONE:
            k[i] = CUZK_FR_ONE;
            break;
        case S_EQUAL:
            k[i] = same;
            break;
        case S_RMINUS1:
            cuzk_fr_neg(&k[i], &CUZK_FR_ONE);
            break;
        default:
            break;
        }
    if (kind == S_RANDOM) gen_scalars(k, n, 0);
    if (kind == S_MIXED) gen_scalars(k, n, 1);
    if (kind == S_SMALL) gen_scalars(k, n, 2);
    if (kind == S_EDGE) gen_scalars(k, n, 3);
}

/* A density over n variables with about pct % set; returns the count. */
static size_t fill_density(uint64_t *d, size_t n, unsigned pct)
{
    size_t cnt = 0;
    memset(d, 0, (n + 63) / 64 * 8);
    for (size_t i = 0; i < n; i++)
        if (test_rand64() % 100 < pct) d[i / 64] |= (uint64_t)1 << (i % 64), cnt++;
    return cnt;
}

/* ---- G1 / G2 compared with the CPU --------------------------------------------- */

static bool g1_check(const cuzk_g1_affine *bases, size_t nbases, const cuzk_fr *k, size_t n,
                     const uint64_t *dens, const cuzk_gpu_msm_opts *opts, const char *what)
{
    cuzk_gpu_msm *m = ctx();
    if (!m) return false;
    cuzk_g1 want, got;
    char err[512] = "";
    int st = cuzk_msm_g1(NULL, &want, bases, nbases, k, n, dens, NULL, 0);
    CHECK(st == CUZK_OK);
    st = cuzk_gpu_msm_g1(m, &got, bases, nbases, k, n, dens, opts, err, sizeof err);
    if (st) fprintf(stderr, "  %s (n = %zu): %s\n", what, n, err);
    CHECK(st == CUZK_OK);
    bool ok = !st && cuzk_g1_eq(&got, &want);
    if (!st && !ok) fprintf(stderr, "  %s (n = %zu): device result differs from the CPU MSM\n", what, n);
    CHECK(ok);
    return ok;
}

static bool g2_check(const cuzk_g2_affine *bases, size_t nbases, const cuzk_fr *k, size_t n,
                     const uint64_t *dens, const cuzk_gpu_msm_opts *opts, const char *what)
{
    cuzk_gpu_msm *m = ctx();
    if (!m) return false;
    cuzk_g2 want, got;
    char err[512] = "";
    int st = cuzk_msm_g2(NULL, &want, bases, nbases, k, n, dens, NULL, 0);
    CHECK(st == CUZK_OK);
    st = cuzk_gpu_msm_g2(m, &got, bases, nbases, k, n, dens, opts, err, sizeof err);
    if (st) fprintf(stderr, "  %s (n = %zu): %s\n", what, n, err);
    CHECK(st == CUZK_OK);
    bool ok = !st && cuzk_g2_eq(&got, &want);
    if (!st && !ok) fprintf(stderr, "  %s (n = %zu): device result differs from the CPU MSM\n", what, n);
    CHECK(ok);
    return ok;
}

/* n random bases (with repeats, negations and infinities) and scalars of
 * `kind`, through the split and the dense path. */
static void g1_case(size_t n, int kind, const char *what)
{
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    REQUIRE(b && k);
    gen_g1(b, n, 1);
    fill_scalars(k, n, kind);
    cuzk_gpu_msm_opts split = {.split = CUZK_GPU_MSM_SPLIT_ON}, dense = {.split = CUZK_GPU_MSM_SPLIT_OFF};
    if (ctx() && g1_check(b, n, k, n, NULL, &split, what)) CHECK(g1_check(b, n, k, n, NULL, &dense, what));
    free(b);
    free(k);
}

static void test_g1_random(void)
{
    static const size_t sizes[] = {1, 2, 3, 7, 64, 1000, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        g1_case(sizes[i], S_RANDOM, "random");
}

/* The H query's shape: 2^16 dense random scalars, split off. */
static void test_g1_random_big(void)
{
    size_t n = BIG;
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    REQUIRE(b && k);
    gen_g1(b, n, 0);
    fill_scalars(k, n, S_RANDOM);
    cuzk_gpu_msm_stats st;
    cuzk_gpu_msm_opts o = {.split = CUZK_GPU_MSM_SPLIT_OFF, .stats = &st};
    if (g1_check(b, n, k, n, NULL, &o, "random dense")) {
        CHECK(st.tail == n && st.ones == 0 && st.zeros == 0 && st.chunks == 1);
        printf("  2^%d dense: window %u\n", __builtin_ctz((unsigned)n), st.window);
    }
    free(b);
    free(k);
}

/* The default split decision: random scalars with a few 1s (under 1 in 8)
 * go through Pippenger whole; mostly-0/1 ones are split.  Both equal the
 * CPU either way. */
static void test_g1_auto_split(void)
{
    size_t n = 2000;
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    REQUIRE(b && k);
    gen_g1(b, n, 1);
    fill_scalars(k, n, S_RANDOM);
    for (size_t i = 0; i < n; i += 50)
        k[i] = CUZK_FR_ONE;
    cuzk_gpu_msm_stats st;
    cuzk_gpu_msm_opts o = {.stats = &st};
    if (g1_check(b, n, k, n, NULL, &o, "auto, few ones")) CHECK(!st.split && st.ones == 0 && st.tail == n);
    o.split = CUZK_GPU_MSM_SPLIT_ON;
    if (g1_check(b, n, k, n, NULL, &o, "on, few ones"))
        CHECK(st.split && st.ones == n / 50 && st.tail == n - n / 50);
    o.split = CUZK_GPU_MSM_SPLIT_AUTO;
    fill_scalars(k, n, S_MIXED);
    if (g1_check(b, n, k, n, NULL, &o, "auto, mixed")) CHECK(st.split && st.ones > 0);
    free(b);
    free(k);
}

static void test_g1_bits(void)
{
    static const size_t sizes[] = {1, 7, 1000, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        g1_case(sizes[i], S_BITS, "bits");
}

/* Filecoin-like: all zero, all one, mixed 0/1/random, each with a density
 * bitmap (and spare bases past the set bits, as bellperson allows). */
static void filecoin_case(size_t n, int kind, unsigned pct)
{
    uint64_t *d = malloc((n + 63) / 64 * 8);
    cuzk_fr *k = malloc(n * sizeof *k);
    REQUIRE(d && k);
    size_t nb = fill_density(d, n, pct) + 3;
    cuzk_g1_affine *b = malloc(nb * sizeof *b);
    REQUIRE(b);
    gen_g1(b, nb, 1);
    fill_scalars(k, n, kind);
    cuzk_gpu_msm_stats st;
    cuzk_gpu_msm_opts o = {.stats = &st};
    if (g1_check(b, nb, k, n, d, &o, "filecoin")) {
        CHECK(st.zeros + st.ones + st.tail == nb - 3);
        if (kind == S_ZERO) CHECK(st.ones == 0 && st.tail == 0);
        if (kind == S_ONE) CHECK(st.zeros == 0 && st.tail == 0);
        if (kind == S_MIXED && n >= 1000) CHECK(st.zeros > st.ones && st.ones > st.tail && st.tail > 0);
    }
    free(b);
    free(d);
    free(k);
}

static void test_g1_filecoin(void)
{
    static const size_t sizes[] = {1, 64, 1000, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        filecoin_case(sizes[i], S_ZERO, 70);
        filecoin_case(sizes[i], S_ONE, 70);
        filecoin_case(sizes[i], S_MIXED, 70);
    }
    filecoin_case(BIG, S_MIXED, 85);
    filecoin_case(BIG, S_ONE, 50);
}

static void test_g1_edges(void)
{
    if (!ctx()) return; /* skipped (or failed under CI=true) */
    g1_case(64, S_RMINUS1, "r - 1");
    g1_case(1000, S_SMALL, "small scalars");
    g1_case(1000, S_EDGE, "window-edge scalars");
    g1_case(3000, S_EQUAL, "equal scalars (one bucket a window)");
    /* all bases equal */
    size_t n = 1000;
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    REQUIRE(b && k);
    gen_g1(b, 1, 0);
    for (size_t i = 1; i < n; i++)
        b[i] = b[0];
    fill_scalars(k, n, S_RANDOM);
    CHECK(g1_check(b, n, k, n, NULL, NULL, "all bases equal"));
    /* a result at infinity: k P + (r - k) P, and k P + k (-P), pairwise */
    for (size_t i = 0; i + 1 < n; i += 2) {
        if (i % 4 == 0) {
            cuzk_fr_neg(&k[i + 1], &k[i]);
        } else {
            k[i + 1] = k[i];
            cuzk_g1_affine_neg(&b[i + 1], &b[i]);
        }
    }
    cuzk_g1 got;
    char err[256];
    if (g1_check(b, n, k, n, NULL, NULL, "infinity")) {
        CHECK(cuzk_gpu_msm_g1(ctx(), &got, b, n, k, n, NULL, NULL, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_g1_is_inf(&got));
    }
    /* every base at infinity */
    memset(b, 0, n * sizeof *b);
    CHECK(g1_check(b, n, k, n, NULL, NULL, "infinity bases"));
    free(b);
    free(k);
}

/* Every window the API accepts, on one input. */
static void test_g1_windows(void)
{
    size_t n = 300;
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    REQUIRE(b && k);
    gen_g1(b, n, 1);
    fill_scalars(k, n, S_EDGE);
    for (unsigned c = 2; c <= 20; c += (c < 8 ? 1 : 4)) {
        cuzk_gpu_msm_stats st;
        cuzk_gpu_msm_opts o = {.window = c, .split = CUZK_GPU_MSM_SPLIT_OFF, .stats = &st};
        char what[32];
        snprintf(what, sizeof what, "window %u", c);
        if (!g1_check(b, n, k, n, NULL, &o, what)) break;
        CHECK(st.window == c);
    }
    free(b);
    free(k);
}

static void test_g2(void)
{
    static const size_t sizes[] = {1, 3, 64, 300};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        uint64_t *d = malloc((n + 63) / 64 * 8);
        cuzk_g2_affine *b = malloc(n * sizeof *b);
        cuzk_fr *k = malloc(n * sizeof *k);
        REQUIRE(b && k && d);
        gen_g2(b, n, 1);
        fill_scalars(k, n, S_RANDOM);
        cuzk_gpu_msm_opts dense = {.split = CUZK_GPU_MSM_SPLIT_OFF};
        if (!g2_check(b, n, k, n, NULL, &dense, "g2 random")) goto out;
        fill_scalars(k, n, S_MIXED);
        fill_density(d, n, 60);
        if (!g2_check(b, n, k, n, d, NULL, "g2 mixed, density")) goto out;
        fill_scalars(k, n, S_EQUAL);
        CHECK(g2_check(b, n, k, n, NULL, NULL, "g2 equal scalars"));
    out:
        free(b);
        free(d);
        free(k);
    }
}

/* Chunked (bases uploaded in ranges) equal to unchunked, with and without
 * a density and the split; the chunk sizes cut through density words. */
static void test_chunked(void)
{
    size_t n = 3000;
    uint64_t *d = malloc((n + 63) / 64 * 8);
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    REQUIRE(b && k && d);
    gen_g1(b, n, 1);
    fill_scalars(k, n, S_MIXED);
    fill_density(d, n, 75);
    cuzk_gpu_msm *m = ctx();
    if (!m) goto out;
    static const size_t chunks[] = {1000, 777, 64, 1};
    for (int dens = 0; dens < 2; dens++)
        for (int split = CUZK_GPU_MSM_SPLIT_ON; split <= CUZK_GPU_MSM_SPLIT_OFF; split++) {
            cuzk_g1 whole, part;
            char err[256];
            cuzk_gpu_msm_stats st;
            cuzk_gpu_msm_opts o = {.split = split, .stats = &st};
            size_t nv = dens ? n : 150; /* chunk 1 only on the short one */
            REQUIRE(cuzk_gpu_msm_g1(m, &whole, b, n, k, nv, dens ? d : NULL, &o, err, sizeof err) == CUZK_OK);
            CHECK(st.chunks == 1);
            for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                if (chunks[c] == 1 && nv > 200) continue;
                o.chunk_bases = chunks[c];
                REQUIRE(cuzk_gpu_msm_g1(m, &part, b, n, k, nv, dens ? d : NULL, &o, err, sizeof err) ==
                        CUZK_OK);
                CHECK(cuzk_g1_eq(&part, &whole));
                CHECK(st.chunks == (st.zeros + st.ones + st.tail + chunks[c] - 1) / chunks[c]);
            }
            o.chunk_bases = 0;
            CHECK(g1_check(b, n, k, nv, dens ? d : NULL, &o, "chunk reference"));
        }
    /* G2 chunked */
    cuzk_g2_affine b2[100];
    cuzk_g2 w2, p2;
    char err[256];
    gen_g2(b2, 100, 1);
    cuzk_gpu_msm_opts o2 = {.chunk_bases = 33};
    REQUIRE(cuzk_gpu_msm_g2(m, &w2, b2, 100, k, 100, d, NULL, err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_msm_g2(m, &p2, b2, 100, k, 100, d, &o2, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_g2_eq(&w2, &p2));
out:
    free(b);
    free(d);
    free(k);
}

/* The host walk split over a pool's threads: the same lists (stats) and
 * the CPU's point, chunked or not, split on or off, with a density. */
static void test_threaded_walk(void)
{
    size_t n = CUZK_TEST_SANITIZED ? 6000 : 40000;
    uint64_t *d = malloc((n + 63) / 64 * 8);
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    cuzk_pool *pool = NULL;
    REQUIRE(b && k && d && cuzk_pool_create(&pool, 3) == CUZK_OK);
    gen_g1(b, n, 1);
    fill_scalars(k, n, S_MIXED);
    fill_density(d, n, 80);
    for (int split = CUZK_GPU_MSM_SPLIT_ON; ctx() && split <= CUZK_GPU_MSM_SPLIT_OFF; split++)
        for (size_t chunk = 0; chunk <= 7777; chunk += 7777) {
            size_t nv = split == CUZK_GPU_MSM_SPLIT_ON ? n : n / 4; /* off: every term a Pippenger term */
            cuzk_gpu_msm_stats one, many;
            cuzk_gpu_msm_opts o = {.split = split, .chunk_bases = chunk, .stats = &one};
            cuzk_g1 r1;
            char err[256];
            REQUIRE(cuzk_gpu_msm_g1(ctx(), &r1, b, n, k, nv, d, &o, err, sizeof err) == CUZK_OK);
            o.par = cuzk_pool_par(pool);
            o.stats = &many;
            if (!g1_check(b, n, k, nv, d, &o, "threaded walk")) break;
            CHECK(!memcmp(&one, &many, sizeof one));
        }
    cuzk_pool_destroy(pool);
    free(b);
    free(d);
    free(k);
}

static void test_errors(void)
{
    cuzk_gpu_msm *m = ctx();
    if (!m) return;
    cuzk_g1_affine b[4];
    cuzk_fr k[4];
    cuzk_g1 r;
    uint64_t d = 0xf;
    char err[256];
    gen_g1(b, 4, 0);
    fill_scalars(k, 4, S_RANDOM);
    CHECK(cuzk_gpu_msm_g1(m, &r, b, 3, k, 4, NULL, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "bases") != NULL);
    CHECK(cuzk_gpu_msm_g1(m, &r, b, 3, k, 4, &d, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_msm_g1(m, &r, b, 4, NULL, 4, NULL, NULL, err, sizeof err) == CUZK_ERR_ARG);
    cuzk_gpu_msm_opts o = {.window = 1};
    CHECK(cuzk_gpu_msm_g1(m, &r, b, 4, k, 4, NULL, &o, err, sizeof err) == CUZK_ERR_ARG);
    o.window = 21;
    CHECK(cuzk_gpu_msm_g1(m, &r, b, 4, k, 4, NULL, &o, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_msm_g1(m, &r, NULL, 0, NULL, 0, NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_g1_is_inf(&r));
    d = 0; /* no variable has a base: no bases needed */
    CHECK(cuzk_gpu_msm_g1(m, &r, NULL, 0, k, 4, &d, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_g1_is_inf(&r));
}

/* The functions plug into cuzk_groth16_backend as its msm_g1 / msm_g2. */
static void test_backend_shape(void)
{
    cuzk_gpu_msm *m = ctx();
    if (!m) return;
    cuzk_groth16_backend be = *cuzk_groth16_backend_cpu();
    be.name = "gpu-msm";
    be.ctx = m;
    be.msm_g1 = cuzk_gpu_msm_backend_g1;
    be.msm_g2 = cuzk_gpu_msm_backend_g2;
    size_t n = 200;
    uint64_t d[4];
    cuzk_g1_affine b1[200];
    cuzk_g2_affine b2[200];
    cuzk_fr k[200];
    gen_g1(b1, n, 1);
    gen_g2(b2, n, 1);
    fill_scalars(k, n, S_MIXED);
    fill_density(d, n, 50);
    cuzk_g1 r1, w1;
    cuzk_g2 r2, w2;
    CHECK(be.msm_g1(be.ctx, &r1, b1, n, k, n, d, NULL) == CUZK_OK);
    CHECK(be.msm_g2(be.ctx, &r2, b2, n, k, n, d, NULL) == CUZK_OK);
    CHECK(cuzk_msm_g1(NULL, &w1, b1, n, k, n, d, NULL, 0) == CUZK_OK);
    CHECK(cuzk_msm_g2(NULL, &w2, b2, n, k, n, d, NULL, 0) == CUZK_OK);
    CHECK(cuzk_g1_eq(&r1, &w1) && cuzk_g2_eq(&r2, &w2));
    CHECK(be.msm_g1(be.ctx, &r1, b1, 3, k, n, NULL, NULL) == CUZK_ERR_ARG);
    CHECK(strstr(cuzk_gpu_msm_last_error(m), "bases") != NULL);
}

static const test_case tests[] = {
    {"g1_random", test_g1_random},
    {"g1_random_big", test_g1_random_big},
    {"g1_auto_split", test_g1_auto_split},
    {"g1_bits", test_g1_bits},
    {"g1_filecoin", test_g1_filecoin},
    {"g1_edges", test_g1_edges},
    {"g1_windows", test_g1_windows},
    {"g2", test_g2},
    {"chunked", test_chunked},
    {"threaded_walk", test_threaded_walk},
    {"errors", test_errors},
    {"backend_shape", test_backend_shape},
};

TEST_MAIN(tests)
