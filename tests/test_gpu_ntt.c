/* The NTT on the device (cuzk/gpu_ntt.h, src/gpu/kernels/ntt.cl) against
 * the CPU library's NTT (cuzk/ntt.h, itself checked against a naive DFT in
 * test_ntt) and the CPU backend's H (backend_cpu.c), limb for limb, on
 * random inputs: the four transforms at every size 2^0 .. 2^16 and at 2^20,
 * round trips, small and large work-group tiles (many passes, one pass),
 * transforms of device buffers, the four-step chunked path (a memory limit
 * far below the vector) equal to the whole one, H through the device and
 * through the chunked path at several sizes with n < m and n = m, H in
 * the lean order (C asked for after A*B), and argument errors.  On pocl (the CPU) these are correctness checks; their
 * times are not GPU timings. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"
#include "cuzk/gpu_ntt.h"
#include "cuzk/ntt.h"
#include "test_gpu_util.h"

static cuzk_gpu_ntt *ntt_ctx;

static void ntt_close_at_exit(void)
{
    cuzk_gpu_ntt_destroy(ntt_ctx);
}

/* A context with the given options, or NULL after a failure report. */
static cuzk_gpu_ntt *make_ctx(size_t mem_limit, unsigned tile_log)
{
    cuzk_gpu *g = gpu_test_device();
    if (!g) return NULL;
    cuzk_gpu_ntt_opts o = {mem_limit, tile_log};
    cuzk_gpu_ntt *t = NULL;
    char err[512] = "";
    if (cuzk_gpu_ntt_create(&t, g, &o, err, sizeof err)) {
        fprintf(stderr, "  cuzk_gpu_ntt_create: %s\n", err);
        test_fail(__FILE__, __LINE__, "cuzk_gpu_ntt_create");
        return NULL;
    }
    return t;
}

/* The process's default context (no limit below the device's, tile 2^9). */
static cuzk_gpu_ntt *default_ctx(void)
{
    if (!ntt_ctx && (ntt_ctx = make_ctx(0, 0)) != NULL) atexit(ntt_close_at_exit);
    return ntt_ctx;
}

static void rand_fr(cuzk_fr *r)
{
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++) l[i] = test_rand64();
        l[3] &= 0x7fffffffffffffffull;
    } while (cuzk_fr_from_limbs(r, l) != CUZK_OK);
}

static cuzk_fr *rand_vec(size_t n)
{
    cuzk_fr *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < n; i++) rand_fr(&v[i]);
    return v;
}

static cuzk_fr *dup_vec(const cuzk_fr *a, size_t n)
{
    cuzk_fr *v = malloc((n ? n : 1) * sizeof *v);
    if (v) memcpy(v, a, n * sizeof *v);
    return v;
}

static const char *const kind_names[] = {"forward", "inverse", "coset_forward", "coset_inverse"};

/* The CPU library's transform of the same kind. */
static int cpu_ntt(cuzk_gpu_ntt_kind kind, const cuzk_ntt_domain *d, cuzk_fr *a, size_t n)
{
    switch (kind) {
    case CUZK_GPU_NTT_FORWARD: return cuzk_ntt_forward(d, NULL, a, n);
    case CUZK_GPU_NTT_INVERSE: return cuzk_ntt_inverse(d, NULL, a, n);
    case CUZK_GPU_NTT_COSET_FORWARD: return cuzk_ntt_coset_forward(d, NULL, a, n);
    default: return cuzk_ntt_coset_inverse(d, NULL, a, n);
    }
}

/* Index of the first differing element, n if none. */
static size_t first_diff(const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i])) return i;
    return n;
}

/* Every kind at 2^log_n through t equals the CPU's; false on a failure. */
static bool check_kinds(cuzk_gpu_ntt *t, unsigned log_n, const char *what)
{
    size_t n = (size_t)1 << log_n;
    cuzk_ntt_domain *d = NULL;
    cuzk_fr *x = rand_vec(n), *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    bool ok = x && want && got && cuzk_ntt_domain_create(&d, log_n, NULL) == CUZK_OK;
    CHECK(ok);
    for (int k = 0; ok && k < 4; k++) {
        char err[512] = "";
        memcpy(want, x, n * sizeof *x);
        memcpy(got, x, n * sizeof *x);
        CHECK(cpu_ntt((cuzk_gpu_ntt_kind)k, d, want, n) == CUZK_OK);
        int st = cuzk_gpu_ntt_run(t, (cuzk_gpu_ntt_kind)k, got, n, err, sizeof err);
        size_t i = st ? 0 : first_diff(want, got, n);
        if (st || i < n) {
            fprintf(stderr, "  %s 2^%u %s: %s (element %zu of %zu differs)\n", what, log_n, kind_names[k],
                    st ? err : "wrong result", i, n);
            test_fail(__FILE__, __LINE__, "device NTT == CPU NTT");
            ok = false;
        }
    }
    cuzk_ntt_domain_destroy(d);
    free(x), free(want), free(got);
    return ok;
}

static void test_sizes(void)
{
    cuzk_gpu_ntt *t = default_ctx();
    if (!t) return;
    for (unsigned k = 0; k <= 16; k++)
        if (!check_kinds(t, k, "whole")) return;
}

/* One large size: NTT equal to the CPU's, and iNTT(NTT(x)) = x on the
 * device alone (the coset forms run at every size up to 2^16). */
static void test_2_20(void)
{
    cuzk_gpu_ntt *t = default_ctx();
    if (!t) return;
    unsigned log_n = 20;
    size_t n = (size_t)1 << log_n;
    cuzk_ntt_domain *d = NULL;
    cuzk_fr *x = rand_vec(n), *want = dup_vec(x, n), *got = dup_vec(x, n);
    char err[512] = "";
    REQUIRE(x && want && got && cuzk_ntt_domain_create(&d, log_n, NULL) == CUZK_OK);
    CHECK(cuzk_ntt_forward(d, NULL, want, n) == CUZK_OK);
    int st = cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_FORWARD, got, n, err, sizeof err);
    if (st) fprintf(stderr, "  forward 2^20: %s\n", err);
    CHECK(st == CUZK_OK && first_diff(want, got, n) == n);
    st = cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_INVERSE, got, n, err, sizeof err);
    CHECK(st == CUZK_OK && first_diff(x, got, n) == n);
    cuzk_ntt_domain_destroy(d);
    free(x), free(want), free(got);
}

static void test_roundtrip(void)
{
    cuzk_gpu_ntt *t = default_ctx();
    if (!t) return;
    static const unsigned sizes[] = {1, 5, 9, 10, 13};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = (size_t)1 << sizes[s];
        cuzk_fr *x = rand_vec(n), *y = dup_vec(x, n);
        char err[512] = "";
        REQUIRE(x && y);
        CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_FORWARD, y, n, err, sizeof err) == CUZK_OK);
        CHECK(first_diff(x, y, n) < n || n == 1); /* it did something */
        CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_INVERSE, y, n, err, sizeof err) == CUZK_OK);
        CHECK(first_diff(x, y, n) == n);
        CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_COSET_FORWARD, y, n, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_COSET_INVERSE, y, n, err, sizeof err) == CUZK_OK);
        CHECK(first_diff(x, y, n) == n);
        free(x), free(y);
    }
}

/* The smallest tile (2^2: a pass per one or two stages) and the largest
 * (2^10: sizes up to 2^10 in one pass). */
static void test_tiles(void)
{
    static const unsigned tiles[] = {2, 10};
    for (size_t i = 0; i < 2; i++) {
        cuzk_gpu_ntt *t = make_ctx(0, tiles[i]);
        if (!t) return;
        static const unsigned sizes[] = {1, 2, 3, 7, 10, 11, 14};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            if (!check_kinds(t, sizes[s], tiles[i] == 2 ? "tile 2^2" : "tile 2^10")) break;
        cuzk_gpu_ntt_destroy(t);
    }
}

/* A device buffer transformed in place equals the CPU's. */
static void test_run_buf(void)
{
    cuzk_gpu_ntt *t = default_ctx();
    if (!t) return;
    cuzk_gpu *g = gpu_test_device();
    cuzk_gpu_queue *q = cuzk_gpu_default_queue(g);
    unsigned log_n = 12;
    size_t n = (size_t)1 << log_n;
    cuzk_ntt_domain *d = NULL;
    cuzk_gpu_buf *b = NULL;
    cuzk_fr *x = rand_vec(n), *want = dup_vec(x, n), *got = malloc(n * sizeof *got);
    char err[512] = "";
    REQUIRE(x && want && got && cuzk_ntt_domain_create(&d, log_n, NULL) == CUZK_OK);
    REQUIRE(cuzk_gpu_alloc(g, &b, n * sizeof *x, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_ntt_coset_inverse(d, NULL, want, n) == CUZK_OK);
    CHECK(cuzk_gpu_write(q, b, 0, x, n * sizeof *x, true, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_ntt_run_buf(t, CUZK_GPU_NTT_COSET_INVERSE, b, log_n, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_read(q, got, b, 0, n * sizeof *got, true, err, sizeof err) == CUZK_OK);
    CHECK(first_diff(want, got, n) == n);
    /* a buffer smaller than the transform */
    CHECK(cuzk_gpu_ntt_run_buf(t, CUZK_GPU_NTT_FORWARD, b, log_n + 1, err, sizeof err) == CUZK_ERR_ARG);
    cuzk_gpu_free(b);
    cuzk_ntt_domain_destroy(d);
    free(x), free(want), free(got);
}

/* Memory limits far below the vector: the four-step path, equal to the
 * CPU's (and so to the whole path's, which test_sizes checks the same way)
 * -- columns several at a time and one at a time, odd and even log n. */
static void test_chunked(void)
{
    static const struct {
        unsigned cap_log, log_n;
    } cases[] = {{5, 6}, {5, 9}, {5, 10}, {6, 7}, {7, 11}, {9, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_gpu_ntt *t = make_ctx((size_t)32 << cases[i].cap_log, 0);
        if (!t) return;
        bool ok = check_kinds(t, cases[i].log_n, "chunked");
        cuzk_gpu_ntt_destroy(t);
        if (!ok) return;
    }
    /* rows longer than the limit: refused with the reason */
    cuzk_gpu_ntt *t = make_ctx(32 << 5, 0);
    if (!t) return;
    size_t n = 1 << 11;
    cuzk_fr *x = rand_vec(n);
    char err[512] = "";
    REQUIRE(x);
    CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_FORWARD, x, n, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "above the memory limit") != NULL);
    cuzk_gpu_ntt_destroy(t);
    free(x);
}

/* H through the device equals the CPU backend's H on random a, b and c
 * with n evaluations (the rest of each vector is garbage the backends
 * zero); sat: c = a b on those n points, as a satisfied system has it, so
 * that (ab - c)/Z is a polynomial of degree <= m - 2. */
static bool check_h(cuzk_gpu_ntt *t, unsigned log_m, size_t n, bool sat, const char *what)
{
    size_t m = (size_t)1 << log_m;
    cuzk_fr *in[3], *cpu[3], *gpu[3];
    bool ok = true;
    for (int k = 0; k < 3; k++) {
        in[k] = rand_vec(m);
        cpu[k] = dup_vec(in[k], m);
        gpu[k] = dup_vec(in[k], m);
        ok = ok && in[k] && cpu[k] && gpu[k];
    }
    CHECK(ok);
    for (size_t i = 0; ok && sat && i < n; i++) {
        cuzk_fr_mul(&in[2][i], &in[0][i], &in[1][i]);
        cpu[2][i] = gpu[2][i] = in[2][i];
    }
    const cuzk_groth16_backend *be = cuzk_groth16_backend_cpu();
    if (ok) CHECK(be->h_poly(be->ctx, cpu[0], cpu[1], cpu[2], n, log_m, NULL) == CUZK_OK);
    int st = ok ? cuzk_gpu_h_poly(t, gpu[0], gpu[1], gpu[2], n, log_m, NULL) : CUZK_ERR_NOMEM;
    size_t i = st ? 0 : first_diff(cpu[0], gpu[0], m);
    if (ok && (st || i < m)) {
        fprintf(stderr, "  h_poly %s 2^%u n=%zu: %s (element %zu of %zu differs)\n", what, log_m, n,
                st ? cuzk_gpu_ntt_error(t) : "wrong result", i, m);
        test_fail(__FILE__, __LINE__, "device H == CPU H");
        ok = false;
    }
    if (ok && sat && m > 1) CHECK(cuzk_fr_is_zero(&gpu[0][m - 1])); /* degree <= m - 2 */
    for (int k = 0; k < 3; k++) free(in[k]), free(cpu[k]), free(gpu[k]);
    return ok;
}

static void test_h_poly(void)
{
    cuzk_gpu_ntt *t = default_ctx();
    if (!t) return;
    static const struct {
        unsigned log_m;
        size_t n;
        bool sat;
    } cases[] = {{0, 1, 1},     {1, 1, 1},       {1, 2, 0},       {4, 11, 1},
                 {10, 1000, 0}, {10, 1024, 1},   {14, 9000, 1},   {16, 65536, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!check_h(t, cases[i].log_m, cases[i].n, cases[i].sat, "device")) return;
}

/* H with a limit below 3 vectors: whole transforms one vector at a time,
 * and below one vector: the four-step path; the quotient in chunks. */
static void test_h_poly_chunked(void)
{
    static const struct {
        unsigned cap_log, log_m;
        size_t n;
    } cases[] = {{10, 10, 1000}, {7, 12, 4000}, {8, 13, 8192}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_gpu_ntt *t = make_ctx((size_t)32 << cases[i].cap_log, 0);
        if (!t) return;
        bool ok = check_h(t, cases[i].log_m, cases[i].n, i != 1, "chunked");
        cuzk_gpu_ntt_destroy(t);
        if (!ok) return;
    }
}

/* The lean order (C asked for after A*B): equal to the CPU backend's
 * h_poly_lean, on the device and through the chunked path; a failing
 * fill_c is returned. */
typedef struct {
    const cuzk_fr *c;
    int calls, fail;
} c_src;

static int fill_c(void *ctx, cuzk_fr *out, size_t n)
{
    c_src *s = ctx;
    s->calls++;
    if (s->fail) return CUZK_ERR_IO;
    memcpy(out, s->c, n * sizeof *out);
    return CUZK_OK;
}

static bool check_lean(cuzk_gpu_ntt *t, unsigned log_m, size_t n, const char *what)
{
    size_t m = (size_t)1 << log_m;
    cuzk_fr *a = rand_vec(m), *b = rand_vec(m), *c = rand_vec(n), *a2 = dup_vec(a, m), *b2 = dup_vec(b, m);
    bool ok = a && b && c && a2 && b2;
    CHECK(ok);
    for (size_t i = 0; ok && i < n; i++) cuzk_fr_mul(&c[i], &a[i], &b[i]);
    c_src s1 = {c, 0, 0}, s2 = {c, 0, 0};
    const cuzk_groth16_backend *be = cuzk_groth16_backend_cpu();
    if (ok) CHECK(be->h_poly_lean(be->ctx, a, b, n, log_m, fill_c, &s1, NULL) == CUZK_OK);
    int st = ok ? cuzk_gpu_h_poly_lean(t, a2, b2, n, log_m, fill_c, &s2, NULL) : CUZK_ERR_NOMEM;
    size_t i = st ? 0 : first_diff(a, a2, m);
    if (ok && (st || i < m || s2.calls != 1)) {
        fprintf(stderr, "  h_poly_lean %s 2^%u n=%zu: %s (element %zu of %zu differs, %d calls)\n", what, log_m, n,
                st ? cuzk_gpu_ntt_error(t) : "wrong result", i, m, s2.calls);
        test_fail(__FILE__, __LINE__, "device lean H == CPU lean H");
        ok = false;
    }
    if (ok && m > 1) CHECK(cuzk_fr_is_zero(&a2[m - 1]));
    c_src bad = {c, 0, 1};
    if (ok) CHECK(cuzk_gpu_h_poly_lean(t, a2, b2, n, log_m, fill_c, &bad, NULL) == CUZK_ERR_IO && bad.calls == 1);
    if (ok) CHECK(strstr(cuzk_gpu_ntt_error(t), "fill_c") != NULL);
    free(a), free(b), free(c), free(a2), free(b2);
    return ok;
}

static void test_h_poly_lean(void)
{
    cuzk_gpu_ntt *t = default_ctx();
    if (!t) return;
    if (!check_lean(t, 1, 2, "device") || !check_lean(t, 11, 2000, "device") || !check_lean(t, 12, 4096, "device"))
        return;
    cuzk_gpu_ntt *small = make_ctx((size_t)32 << 7, 0); /* four-step at 2^12 */
    if (!small) return;
    (void)check_lean(small, 12, 3000, "chunked");
    cuzk_gpu_ntt_destroy(small);
}

static void test_args(void)
{
    cuzk_gpu_ntt *t = default_ctx();
    if (!t) return;
    cuzk_gpu_ntt *u = NULL;
    cuzk_fr x[4] = {CUZK_FR_ONE, CUZK_FR_ONE, CUZK_FR_ONE, CUZK_FR_ONE};
    char err[512] = "";
    cuzk_gpu_ntt_opts bad_tile = {0, 11}, bad_limit = {100, 0};
    CHECK(cuzk_gpu_ntt_create(&u, gpu_test_device(), &bad_tile, err, sizeof err) == CUZK_ERR_ARG && !u);
    CHECK(cuzk_gpu_ntt_create(&u, gpu_test_device(), &bad_limit, err, sizeof err) == CUZK_ERR_ARG && !u);
    CHECK(cuzk_gpu_ntt_create(&u, NULL, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_FORWARD, x, 3, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_FORWARD, x, 0, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_FORWARD, NULL, 4, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_ntt_run(t, (cuzk_gpu_ntt_kind)9, x, 4, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_FORWARD, x, (size_t)1 << 28, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_h_poly(t, x, x, x, 5, 2, NULL) == CUZK_ERR_ARG); /* n > m */
    CHECK(strstr(cuzk_gpu_ntt_error(t), "bad arguments") != NULL);
    CHECK(cuzk_gpu_h_poly(t, x, x, x, 1, 28, NULL) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_h_poly(NULL, x, x, x, 1, 1, NULL) == CUZK_ERR_ARG);
}

static const test_case tests[] = {
    {"sizes", test_sizes},
    {"size_2_20", test_2_20},
    {"roundtrip", test_roundtrip},
    {"tiles", test_tiles},
    {"run_buf", test_run_buf},
    {"chunked", test_chunked},
    {"h_poly", test_h_poly},
    {"h_poly_chunked", test_h_poly_chunked},
    {"h_poly_lean", test_h_poly_lean},
    {"args", test_args},
};

TEST_MAIN(tests)
