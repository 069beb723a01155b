/* MSM tests (the IFMA path's own tests are in test_msm_ifma.c): every
 * configuration is compared with the naive sum
 * sum_i k_i * P_i computed by cuzk_g1_mul_var / cuzk_g2_mul_var and the
 * complete addition of the curve layer (independent of the MSM code). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "harness.h"

/* ---- a small pthread cuzk_par for the threaded == single-threaded tests -- */
typedef struct {
    cuzk_task_fn fn;
    void *arg;
    size_t n;
    atomic_size_t next;
} par_job;

static void *par_worker(void *p)
{
    par_job *j = p;
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n) return NULL;
        j->fn(j->arg, i);
    }
}

static void par_for_each(cuzk_par *par, cuzk_task_fn fn, void *arg, size_t n)
{
    par_job j = {fn, arg, n, 0};
    pthread_t th[16];
    unsigned nt = par->nthreads > 16 ? 16 : par->nthreads;
    for (unsigned t = 1; t < nt; t++)
        pthread_create(&th[t], NULL, par_worker, &j);
    par_worker(&j);
    for (unsigned t = 1; t < nt; t++)
        pthread_join(th[t], NULL);
}

static cuzk_par make_par(unsigned nthreads)
{
    cuzk_par p = {par_for_each, nthreads, NULL};
    return p;
}

#include "msm_util.h"


/* Runs the G1 MSM in several configurations and checks each against ref. */
static void check_g1_all(const cuzk_g1 *ref, const cuzk_g1_affine *bases, size_t nbases, const cuzk_fr *k,
                         size_t n, const uint64_t *density, int thorough)
{
    cuzk_g1 got;
    CHECK(cuzk_msm_g1(NULL, &got, bases, nbases, k, n, density, NULL, 0) == CUZK_OK);
    CHECK(cuzk_g1_eq(&got, ref));

    cuzk_scalar *ks = malloc((n ? n : 1) * sizeof *ks);
    CHECK(ks != NULL);
    cuzk_scalars_from_fr(ks, k, n);
    cuzk_par par2 = make_par(2), par3 = make_par(3);
    size_t len = cuzk_msm_g1_scratch_sizeof(n, &par3);
    void *scratch = malloc(len);
    CHECK(scratch != NULL);
    CHECK(cuzk_msm_g1_canonical(&par3, &got, bases, nbases, ks, n, density, scratch, len) == CUZK_OK);
    CHECK(cuzk_g1_eq(&got, ref));
    CHECK(cuzk_msm_g1_canonical(&par2, &got, bases, nbases, ks, n, density, scratch, len) == CUZK_OK);
    CHECK(cuzk_g1_eq(&got, ref));
    free(scratch);
    if (thorough) {
        /* forced windows and strategies, with and without the 0/1 split */
        static const unsigned cs[] = {1, 2, 3, 4, 5, 7, 8, 11, 13, 16};
        for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++)
            for (int st = 1; st <= 3; st++) {
                cuzk_msm_opts o = {cs[ci], (int)(ci & 1), st};
                /* big windows cost 2^(c-1) bucket additions per window */
                if (cs[ci] > 11 && n < 1000 && (st == 2 || n < 200)) continue;
                CHECK(cuzk_msm_g1_opts(ci & 2 ? &par3 : NULL, &got, bases, nbases, ks, n, density, NULL, 0,
                                       &o) == CUZK_OK);
                CHECK(cuzk_g1_eq(&got, ref));
            }
    }
    free(ks);
}

static void check_g2_all(const cuzk_g2 *ref, const cuzk_g2_affine *bases, size_t nbases, const cuzk_fr *k,
                         size_t n, const uint64_t *density, int thorough)
{
    cuzk_g2 got;
    CHECK(cuzk_msm_g2(NULL, &got, bases, nbases, k, n, density, NULL, 0) == CUZK_OK);
    CHECK(cuzk_g2_eq(&got, ref));
    cuzk_scalar *ks = malloc((n ? n : 1) * sizeof *ks);
    CHECK(ks != NULL);
    cuzk_scalars_from_fr(ks, k, n);
    cuzk_par par3 = make_par(3);
    CHECK(cuzk_msm_g2_canonical(&par3, &got, bases, nbases, ks, n, density, NULL, 0) == CUZK_OK);
    CHECK(cuzk_g2_eq(&got, ref));
    if (thorough) {
        static const unsigned cs[] = {1, 3, 4, 6, 9, 12};
        for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++)
            for (int st = 1; st <= 3; st++) {
                cuzk_msm_opts o = {cs[ci], (int)(ci & 1), st};
                CHECK(cuzk_msm_g2_opts(NULL, &got, bases, nbases, ks, n, density, NULL, 0, &o) == CUZK_OK);
                CHECK(cuzk_g2_eq(&got, ref));
            }
    }
    free(ks);
}

/* ---- tests ------------------------------------------------------------------ */
#include "msm/msm_internal.h"

/* Booth digits recombine to the scalar: sum_w 2^(wc) d_w == k for every c. */
static void test_booth_digits(void)
{
    for (int it = 0; it < 200 * test_iterations; it++) {
        cuzk_fr f;
        cuzk_scalar k;
        gen_scalars(&f, 1, it % 4);
        if (it % 4 == 1) rand_fr(&f);
        cuzk_scalars_from_fr(&k, &f, 1);
        for (unsigned c = 1; c <= CUZK_MSM_MAX_WINDOW; c++) {
            unsigned nw = cuzk_msm_nwindows(c);
            CHECK(nw * c >= 256);
            /* Horner from the top window in 5-limb two's complement */
            uint64_t acc[5] = {0, 0, 0, 0, 0};
            for (unsigned w = nw; w-- > 0;) {
                for (unsigned s = 0; s < c; s++) { /* acc <<= 1 */
                    for (int l = 4; l > 0; l--)
                        acc[l] = acc[l] << 1 | acc[l - 1] >> 63;
                    acc[0] <<= 1;
                }
                uint32_t d = msm_booth(&k, w, c), mag = d & ~MSM_NEG;
                CHECK(mag <= (1u << (c - 1)));
                unsigned __int128 carry = 0;
                uint64_t add[5] = {mag, 0, 0, 0, 0};
                if (d & MSM_NEG) { /* add two's complement of mag */
                    for (int l = 0; l < 5; l++)
                        add[l] = ~add[l];
                    carry = 1;
                }
                for (int l = 0; l < 5; l++) {
                    carry += (unsigned __int128)acc[l] + add[l];
                    acc[l] = (uint64_t)carry;
                    carry >>= 64;
                }
            }
            CHECK(acc[0] == k.l[0] && acc[1] == k.l[1] && acc[2] == k.l[2] && acc[3] == k.l[3] &&
                  acc[4] == 0);
        }
    }
}

/* The MSM layer's binary-Euclid inversions against the field layer's. */
static void test_inversions(void)
{
    for (int it = 0; it < 300 * test_iterations; it++) {
        cuzk_fp a, x, y;
        cuzk_fp2 a2, x2, y2;
        uint8_t buf[48];
        test_rand_bytes(buf, sizeof buf);
        buf[0] &= 0x0f;
        if (it == 0)
            a = CUZK_FP_ONE;
        else if (it == 1)
            cuzk_fp_neg(&a, &CUZK_FP_ONE);
        else if (it == 2)
            cuzk_fp_from_u64(&a, 2);
        else if (it == 3)
            a = CUZK_FP_ZERO;
        else if (cuzk_fp_from_bytes_be(&a, buf) != CUZK_OK)
            continue;
        cuzk_msm_fp_inv_var(&x, &a);
        cuzk_fp_inv(&y, &a);
        CHECK(cuzk_fp_eq(&x, &y));
        a2.c0 = a;
        a2.c1 = it & 1 ? x : CUZK_FP_ZERO;
        if (it == 5) a2.c0 = CUZK_FP_ZERO;
        cuzk_msm_fp2_inv_var(&x2, &a2);
        cuzk_fp2_inv(&y2, &a2);
        CHECK(cuzk_fp2_eq(&x2, &y2));
    }
}

static void run_g1_case(size_t n, int kind, int nasty, int thorough)
{
    cuzk_g1_affine *b = malloc((n + 1) * sizeof *b);
    cuzk_fr *k = malloc((n + 1) * sizeof *k);
    CHECK(b && k);
    gen_g1(b, n, nasty);
    gen_scalars(k, n, kind);
    cuzk_g1 ref;
    naive_g1(&ref, b, k, n, NULL);
    check_g1_all(&ref, b, n, k, n, NULL, thorough);
    free(b);
    free(k);
}

/* Sizes around chunk and window boundaries, all scalar kinds. */
static void test_g1_sizes(void)
{
    static const size_t sizes[] = {0,  1,  2,  3,  4,  5,   7,   8,   9,   15,  16,  17, 31,
                                   32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int kind = 0; kind < 4; kind++)
            run_g1_case(sizes[i], kind, kind == 2,
                        (sizes[i] <= 33 && kind != 1) || (kind == 3 && (sizes[i] == 65 || sizes[i] == 257)));
}

/* A few thousand terms: random and Filecoin-like scalars, default paths. */
static void test_g1_large(void)
{
    for (int it = 0; it < test_iterations; it++) {
        run_g1_case(3000, 0, 0, 0);
        run_g1_case(9000, 0, 1, 0); /* small window: two 8192-point chunks */
        run_g1_case(4100, 1, 1, 0);
        run_g1_case(1500, 3, 1, 1);
    }
}

/* All-zero scalars, repeated points, P and -P, infinity bases. */
static void test_g1_edge(void)
{
    size_t n = 200;
    cuzk_g1_affine b[200];
    cuzk_fr k[200];
    cuzk_g1 ref, g;
    gen_g1(b, n, 1);
    for (size_t i = 0; i < n; i++)
        k[i] = CUZK_FR_ZERO;
    naive_g1(&ref, b, k, n, NULL);
    CHECK(cuzk_g1_is_inf(&ref));
    check_g1_all(&ref, b, n, k, n, NULL, 1);

    /* one point P and -P repeated with scalars from a tiny set: buckets hold
     * many equal points (doublings) and opposite points (cancellations) */
    cuzk_g1_affine p, np;
    cuzk_g1_generator(&g);
    cuzk_g1_to_affine(&p, &g);
    cuzk_g1_affine_neg(&np, &p);
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)(test_rand64() % 4);
        b[i] = v == 0 ? np : v == 3 ? b[0] : p;
        if (i % 37 == 5) memset(&b[i], 0, sizeof b[i]);
        cuzk_fr_from_u64(&k[i], 1 + test_rand64() % 3);
        if (i % 11 == 0) cuzk_fr_neg(&k[i], &k[i]);
    }
    naive_g1(&ref, b, k, n, NULL);
    check_g1_all(&ref, b, n, k, n, NULL, 1);
    /* exact cancellation: k P + k (-P) for every pair */
    for (size_t i = 0; i + 1 < n; i += 2) {
        b[i] = p;
        b[i + 1] = np;
        rand_fr(&k[i]);
        k[i + 1] = k[i];
    }
    naive_g1(&ref, b, k, n, NULL);
    CHECK(cuzk_g1_is_inf(&ref));
    check_g1_all(&ref, b, n, k, n, NULL, 1);
    /* all bases at infinity */
    memset(b, 0, sizeof b);
    gen_scalars(k, n, 0);
    cuzk_g1 got;
    CHECK(cuzk_msm_g1(NULL, &got, b, n, k, n, NULL, NULL, 0) == CUZK_OK);
    CHECK(cuzk_g1_is_inf(&got));
}

/* bellperson density: bases are compact (only present variables), scalars
 * cover every variable; absent variables' scalars must be ignored. */
static void test_g1_density(void)
{
    size_t n = 700;
    uint64_t dens[11];
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    CHECK(b && k);
    for (int mode = 0; mode < 4; mode++) {
        size_t cnt = 0;
        for (size_t w = 0; w < 11; w++) {
            uint64_t r = test_rand64() & test_rand64();
            dens[w] = mode == 0 ? ~(uint64_t)0 : mode == 1 ? r : mode == 2 ? 0 : r | test_rand64();
        }
        for (size_t i = 0; i < n; i++)
            cnt += has_bit(dens, i);
        gen_g1(b, cnt, mode == 3);
        gen_scalars(k, n, mode == 3 ? 1 : 0);
        cuzk_g1 ref, got;
        naive_g1(&ref, b, k, n, dens);
        check_g1_all(&ref, b, cnt, k, n, dens, mode == 1);
        /* extra bases beyond the set bits are unused */
        if (cnt + 3 <= n) {
            CHECK(cuzk_msm_g1(NULL, &got, b, cnt + 3, k, n, dens, NULL, 0) == CUZK_OK);
            CHECK(cuzk_g1_eq(&got, &ref));
        }
        /* too few bases */
        if (cnt > 0) CHECK(cuzk_msm_g1(NULL, &got, b, cnt - 1, k, n, dens, NULL, 0) == CUZK_ERR_ARG);
    }
    free(b);
    free(k);
}

/* Threaded == single-threaded == naive, including more tasks than windows
 * (point ranges split) and the caller-supplied scratch. */
static void test_g1_threads(void)
{
    size_t n = 2500;
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    CHECK(b && k);
    gen_g1(b, n, 1);
    gen_scalars(k, n, 1);
    for (size_t i = 0; i < n; i += 3)
        rand_fr(&k[i]);
    cuzk_g1 ref, got;
    naive_g1(&ref, b, k, n, NULL);
    static const unsigned th[] = {1, 2, 3, 4, 7, 16};
    for (size_t t = 0; t < sizeof th / sizeof th[0]; t++) {
        cuzk_par par = make_par(th[t]);
        size_t len = cuzk_msm_g1_scratch_sizeof(n, &par);
        void *s = malloc(len);
        CHECK(s != NULL);
        CHECK(cuzk_msm_g1(&par, &got, b, n, k, n, NULL, s, len) == CUZK_OK);
        CHECK(cuzk_g1_eq(&got, &ref));
        /* a forced small window gives many windows: more tasks than windows
         * only when threads exceed them; force c = 16 (16 windows) too */
        cuzk_scalar *ks = malloc(n * sizeof *ks);
        CHECK(ks != NULL);
        cuzk_scalars_from_fr(ks, k, n);
        cuzk_msm_opts o = {16, 0, 0};
        CHECK(cuzk_msm_g1_opts(&par, &got, b, n, ks, n, NULL, NULL, 0, &o) == CUZK_OK);
        CHECK(cuzk_g1_eq(&got, &ref));
        /* window counts that the threads do not divide (19 for c = 14, 37
         * for c = 7): tasks split the edge windows by point range; also
         * with fewer points than tasks */
        static const unsigned cw[] = {14, 7};
        for (size_t q = 0; q < 2; q++) {
            cuzk_msm_opts oc = {cw[q], 0, 1};
            CHECK(cuzk_msm_g1_opts(&par, &got, b, n, ks, n, NULL, NULL, 0, &oc) == CUZK_OK);
            CHECK(cuzk_g1_eq(&got, &ref));
            cuzk_g1 ref3;
            naive_g1(&ref3, b, k, 3, NULL);
            CHECK(cuzk_msm_g1_opts(&par, &got, b, 3, ks, 3, NULL, NULL, 0, &oc) == CUZK_OK);
            CHECK(cuzk_g1_eq(&got, &ref3));
        }
        /* canonical scalars are read in place: the smaller scratch suffices
         * for them but not for Fr input */
        size_t clen = cuzk_msm_g1_canonical_scratch_sizeof(n, &par);
        CHECK(clen < len);
        CHECK(cuzk_msm_g1_canonical(&par, &got, b, n, ks, n, NULL, s, clen) == CUZK_OK);
        CHECK(cuzk_g1_eq(&got, &ref));
        CHECK(cuzk_msm_g1(&par, &got, b, n, k, n, NULL, s, clen) == CUZK_ERR_ARG);
        free(ks);
        free(s);
    }
    free(b);
    free(k);
}

/* Tile-level API: window sums over two point ranges, summed and combined,
 * plus the ones sum. */
static void test_g1_tiles(void)
{
    size_t n = 900;
    cuzk_g1_affine *b = malloc(n * sizeof *b);
    cuzk_fr *k = malloc(n * sizeof *k);
    cuzk_scalar *ks = malloc(n * sizeof *ks);
    uint32_t *idx = malloc(n * sizeof *idx);
    CHECK(b && k && ks && idx);
    gen_g1(b, n, 1);
    gen_scalars(k, n, 0);
    cuzk_scalars_from_fr(ks, k, n);
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)(n - 1 - i); /* reversed */
    cuzk_fr *kr = malloc(n * sizeof *kr);
    CHECK(kr != NULL);
    for (size_t i = 0; i < n; i++)
        kr[n - 1 - i] = k[i];
    cuzk_g1 ref, got, win[2][64];
    naive_g1(&ref, b, kr, n, NULL);
    for (int st = 1; st <= 3; st++) {
        unsigned c = st == 1 ? 6 : st == 2 ? 9 : 4, nw = cuzk_msm_nwindows(c);
        size_t len = cuzk_msm_g1_tile_scratch_sizeof(n, c);
        void *s = malloc(len);
        CHECK(s != NULL);
        size_t half = n / 3;
        CHECK(cuzk_msm_g1_tile(win[0], b, idx, ks, half, c, 0, nw, st, s, len) == CUZK_OK);
        /* second range in two window groups */
        CHECK(cuzk_msm_g1_tile(win[1], b, idx + half, ks + half, n - half, c, 0, 5, st, s, len) == CUZK_OK);
        CHECK(cuzk_msm_g1_tile(win[1] + 5, b, idx + half, ks + half, n - half, c, 5, nw, st, s, len) ==
              CUZK_OK);
        for (unsigned w = 0; w < nw; w++)
            cuzk_g1_add(&win[0][w], &win[0][w], &win[1][w]);
        cuzk_msm_g1_combine(&got, win[0], nw, c);
        CHECK(cuzk_g1_eq(&got, &ref));
        CHECK(cuzk_msm_g1_tile(win[0], b, idx, ks, n, c, 0, nw, st, s, len - 65) == CUZK_ERR_ARG);
        free(s);
    }
    /* ones sum vs naive chain of additions */
    size_t len = cuzk_msm_g1_tile_scratch_sizeof(0, 1);
    void *s = malloc(len);
    CHECK(s != NULL);
    cuzk_g1_set_inf(&ref);
    for (size_t i = 0; i < n; i++)
        cuzk_g1_add_affine(&ref, &ref, &b[idx[i]]);
    CHECK(cuzk_msm_g1_sum(&got, b, idx, n, s, len) == CUZK_OK);
    CHECK(cuzk_g1_eq(&got, &ref));
    free(s);
    free(b);
    free(k);
    free(kr);
    free(ks);
    free(idx);
}

static void test_errors(void)
{
    cuzk_g1_affine b[4];
    cuzk_fr k[4];
    cuzk_g1 got;
    gen_g1(b, 4, 0);
    gen_scalars(k, 4, 0);
    CHECK(cuzk_msm_g1(NULL, NULL, b, 4, k, 4, NULL, NULL, 0) == CUZK_ERR_ARG);
    CHECK(cuzk_msm_g1(NULL, &got, NULL, 4, k, 4, NULL, NULL, 0) == CUZK_ERR_ARG);
    CHECK(cuzk_msm_g1(NULL, &got, b, 3, k, 4, NULL, NULL, 0) == CUZK_ERR_ARG);
    uint8_t small[64];
    CHECK(cuzk_msm_g1(NULL, &got, b, 4, k, 4, NULL, small, sizeof small) == CUZK_ERR_ARG);
    cuzk_scalar ks[4];
    cuzk_scalars_from_fr(ks, k, 4);
    memcpy(ks[2].l, CUZK_FR_MODULUS, sizeof ks[2].l); /* k = r: not canonical */
    CHECK(cuzk_msm_g1_canonical(NULL, &got, b, 4, ks, 4, NULL, NULL, 0) == CUZK_ERR_ENC_NONCANONICAL);
    cuzk_msm_opts o = {CUZK_MSM_MAX_WINDOW + 1, 0, 0};
    CHECK(cuzk_msm_g1_opts(NULL, &got, b, 4, ks, 1, NULL, NULL, 0, &o) == CUZK_ERR_ARG);
    CHECK(cuzk_msm_g1(NULL, &got, NULL, 0, NULL, 0, NULL, NULL, 0) == CUZK_OK);
    CHECK(cuzk_g1_is_inf(&got));
}

static void run_g2_case(size_t n, int kind, int nasty, int thorough, int sparse)
{
    cuzk_g2_affine *b = malloc((n + 1) * sizeof *b);
    cuzk_fr *k = malloc((n + 1) * sizeof *k);
    uint64_t *dens = calloc(n / 64 + 1, sizeof *dens);
    CHECK(b && k && dens);
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++)
        if (!sparse || test_rand64() % 3 == 0) {
            dens[i / 64] |= (uint64_t)1 << (i % 64);
            cnt++;
        }
    gen_g2(b, cnt, nasty);
    gen_scalars(k, n, kind);
    cuzk_g2 ref;
    naive_g2(&ref, b, k, n, sparse ? dens : NULL);
    check_g2_all(&ref, b, cnt, k, n, sparse ? dens : NULL, thorough);
    free(b);
    free(k);
    free(dens);
}

static void test_g2(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 8, 17, 33, 64, 129};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int kind = 0; kind < 4; kind++)
            run_g2_case(sizes[i], kind, kind == 3, sizes[i] <= 33, 0);
    run_g2_case(600, 0, 1, 0, 1);
    run_g2_case(1200, 1, 0, 0, 0);
    run_g2_case(300, 3, 1, 1, 1);
}

static const test_case tests[] = {
    {"booth_digits", test_booth_digits},
    {"inversions", test_inversions},
    {"g1_sizes", test_g1_sizes},
    {"g1_large", test_g1_large},
    {"g1_edge", test_g1_edge},
    {"g1_density", test_g1_density},
    {"g1_threads", test_g1_threads},
    {"g1_tiles", test_g1_tiles},
    {"errors", test_errors},
    {"g2", test_g2},
};

TEST_MAIN(tests)
