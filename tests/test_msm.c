/* MSM tests: every configuration is compared with the naive sum
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

/* ---- inputs ---------------------------------------------------------------- */
static void rand_fr(cuzk_fr *r)
{
    uint8_t b[48];
    test_rand_bytes(b, sizeof b);
    cuzk_fr_from_bytes_le_reduce(r, b, sizeof b);
}

/* Scalar kinds: 0 random, 1 mostly 0/1 (Filecoin-like), 2 small, 3 edge values. */
static void gen_scalars(cuzk_fr *k, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand64();
        if (kind == 0) {
            rand_fr(&k[i]);
        } else if (kind == 1) {
            unsigned v = (unsigned)(r % 100);
            if (v < 75)
                k[i] = CUZK_FR_ZERO;
            else if (v < 95)
                k[i] = CUZK_FR_ONE;
            else
                rand_fr(&k[i]);
        } else if (kind == 2) {
            cuzk_fr_from_u64(&k[i], r % 70000);
        } else {
            /* 0, 1, r-1, r-2, 2^j and 2^j - 1 around window edges */
            unsigned v = (unsigned)(r % 6), j = (unsigned)((r >> 8) % 255);
            uint64_t l[4] = {0, 0, 0, 0};
            if (v == 0) {
                k[i] = CUZK_FR_ZERO;
            } else if (v == 1) {
                k[i] = CUZK_FR_ONE;
            } else if (v == 2 || v == 3) {
                cuzk_fr_from_u64(&k[i], v == 2 ? 1 : 2);
                cuzk_fr_neg(&k[i], &k[i]);
            } else {
                l[j / 64] = (uint64_t)1 << (j % 64);
                if (v == 5) { /* 2^j - 1 */
                    for (unsigned q = 0; q < j / 64; q++)
                        l[q] = ~(uint64_t)0;
                    l[j / 64] -= 1;
                }
                CHECK(cuzk_fr_from_limbs(&k[i], l) == CUZK_OK);
            }
        }
    }
}

/* n points: a random multiple of the generator, then a chain of additions
 * of random small multiples (cheap), with some repeats, negations and
 * infinities mixed in when `nasty`. */
static void gen_g1(cuzk_g1_affine *out, size_t n, int nasty)
{
    cuzk_g1 g, p, step;
    cuzk_fr k;
    cuzk_g1_generator(&g);
    rand_fr(&k);
    cuzk_g1_mul_var(&p, &g, &k);
    rand_fr(&k);
    cuzk_g1_mul_var(&step, &g, &k);
    for (size_t i = 0; i < n; i++) {
        cuzk_g1_add(&p, &p, &step);
        cuzk_g1_to_affine(&out[i], &p);
        if (nasty && i > 0) {
            unsigned v = (unsigned)(test_rand64() % 8);
            if (v == 0)
                out[i] = out[test_rand64() % i];
            else if (v == 1)
                cuzk_g1_affine_neg(&out[i], &out[test_rand64() % i]);
            else if (v == 2)
                memset(&out[i], 0, sizeof out[i]);
        }
    }
}

static void gen_g2(cuzk_g2_affine *out, size_t n, int nasty)
{
    cuzk_g2 g, p, step;
    cuzk_fr k;
    cuzk_g2_generator(&g);
    rand_fr(&k);
    cuzk_g2_mul_var(&p, &g, &k);
    rand_fr(&k);
    cuzk_g2_mul_var(&step, &g, &k);
    for (size_t i = 0; i < n; i++) {
        cuzk_g2_add(&p, &p, &step);
        cuzk_g2_to_affine(&out[i], &p);
        if (nasty && i > 0) {
            unsigned v = (unsigned)(test_rand64() % 8);
            if (v == 0)
                out[i] = out[test_rand64() % i];
            else if (v == 1)
                cuzk_g2_affine_neg(&out[i], &out[test_rand64() % i]);
            else if (v == 2)
                memset(&out[i], 0, sizeof out[i]);
        }
    }
}

static int has_bit(const uint64_t *d, size_t i)
{
    return !d || ((d[i / 64] >> (i % 64)) & 1);
}

/* Naive reference with the density contract spelled out: the j-th present
 * variable uses bases[j]. */
static void naive_g1(cuzk_g1 *r, const cuzk_g1_affine *bases, const cuzk_fr *k, size_t n,
                     const uint64_t *density)
{
    cuzk_g1_set_inf(r);
    for (size_t i = 0, b = 0; i < n; i++) {
        if (!has_bit(density, i)) continue;
        cuzk_g1 p, t;
        cuzk_g1_from_affine(&p, &bases[b++]);
        cuzk_g1_mul_var(&t, &p, &k[i]);
        cuzk_g1_add(r, r, &t);
    }
}

static void naive_g2(cuzk_g2 *r, const cuzk_g2_affine *bases, const cuzk_fr *k, size_t n,
                     const uint64_t *density)
{
    cuzk_g2_set_inf(r);
    for (size_t i = 0, b = 0; i < n; i++) {
        if (!has_bit(density, i)) continue;
        cuzk_g2 p, t;
        cuzk_g2_from_affine(&p, &bases[b++]);
        cuzk_g2_mul_var(&t, &p, &k[i]);
        cuzk_g2_add(r, r, &t);
    }
}

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
        msm_fp_inv_var(&x, &a);
        cuzk_fp_inv(&y, &a);
        CHECK(cuzk_fp_eq(&x, &y));
        a2.c0 = a;
        a2.c1 = it & 1 ? x : CUZK_FP_ZERO;
        if (it == 5) a2.c0 = CUZK_FP_ZERO;
        msm_fp2_inv_var(&x2, &a2);
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

/* ---- AVX-512 IFMA path (msm_ifma.c) ------------------------------------------ */
#include "msm/msm_ifma.h"

/* Raw Fp value (limbs, < p) from 48 random bytes, top bits masked. */
static void rand_fp_raw(cuzk_fp *a)
{
    for (;;) {
        uint8_t b[48];
        test_rand_bytes(b, sizeof b);
        b[0] &= 0x1f;
        if (cuzk_fp_from_bytes_be(a, b) == CUZK_OK) return; /* rejects >= p */
    }
}

/* 0, 1, R mod p, p-1, p-2, 2^380-1, 2^379, p-2^64, 2^64-1 */
static void edge_fp(cuzk_fp *a, unsigned v)
{
    memset(a, 0, sizeof *a);
    switch (v % 9) {
    case 0: break;
    case 1: a->l[0] = 1; break;
    case 2: *a = CUZK_FP_ONE; break;
    case 3: memcpy(a->l, CUZK_FP_MODULUS, sizeof a->l); a->l[0] -= 1; break;
    case 4: memcpy(a->l, CUZK_FP_MODULUS, sizeof a->l); a->l[0] -= 2; break;
    case 5: memset(a->l, 0xff, sizeof a->l); a->l[5] = 0x0fffffffffffffffull; break;
    case 6: a->l[5] = (uint64_t)1 << 59; break;
    case 7: memcpy(a->l, CUZK_FP_MODULUS, sizeof a->l); a->l[1] -= 1; break;
    default: a->l[0] = ~(uint64_t)0; break;
    }
}

/* Eight-lane Fp2 product and square against the field layer's, bit for
 * bit (iteration it of test_ifma_mul): all pairs of edge values in either
 * coordinate first, then random values with edge coordinates mixed in. */
static void check_ifma_g2_mul(int it)
{
    cuzk_fp2 a[8], b[8], got[8], want;
    for (unsigned e = 0; e < 8; e++) {
        if (it < 81 * 4) { /* edge values in c0, c1 or both */
            unsigned u = (unsigned)it % 81, w = (unsigned)it / 81;
            edge_fp(&a[e].c0, w & 1 ? u / 9 : e);
            edge_fp(&a[e].c1, w & 2 ? u / 9 : e + 3);
            edge_fp(&b[e].c0, w & 1 ? u % 9 + e : e + 5);
            edge_fp(&b[e].c1, w & 2 ? u % 9 : e + 7);
            continue;
        }
        cuzk_fp *c[4] = {&a[e].c0, &a[e].c1, &b[e].c0, &b[e].c1};
        for (int q = 0; q < 4; q++) {
            if (test_rand64() % 4 == 0)
                edge_fp(c[q], (unsigned)test_rand64());
            else
                rand_fp_raw(c[q]);
        }
    }
    msm_ifma_g2_mul8(got, a, b);
    for (unsigned e = 0; e < 8; e++) {
        cuzk_fp2_mul(&want, &a[e], &b[e]);
        CHECK(memcmp(&got[e], &want, sizeof want) == 0);
    }
    const cuzk_fp2 *x = it & 1 ? a : b;
    msm_ifma_g2_sqr8(got, x);
    for (unsigned e = 0; e < 8; e++) {
        cuzk_fp2_mul(&want, &x[e], &x[e]);
        CHECK(memcmp(&got[e], &want, sizeof want) == 0);
    }
}

/* Eight-lane Fp and Fp2 products and squares against the field layer's,
 * bit for bit. */
static void test_ifma_mul(void)
{
    if (!msm_ifma_available()) {
        test_skip("CPU without AVX-512 IFMA/VBMI2 or portable build");
        return;
    }
    for (int it = 0; it < 2000 * test_iterations; it++) {
        cuzk_fp a[8], b[8], got[8], want;
        for (unsigned e = 0; e < 8; e++) {
            if (it < 81) { /* all pairs of edge values first */
                edge_fp(&a[e], (unsigned)it / 9);
                edge_fp(&b[e], (unsigned)it % 9 + e);
            } else {
                unsigned v = (unsigned)(test_rand64() % 4);
                if (v == 0) edge_fp(&a[e], (unsigned)test_rand64());
                else rand_fp_raw(&a[e]);
                rand_fp_raw(&b[e]);
            }
        }
        msm_ifma_mul8(got, a, b);
        for (unsigned e = 0; e < 8; e++) {
            cuzk_fp_mul(&want, &a[e], &b[e]);
            CHECK(memcmp(&got[e], &want, sizeof want) == 0);
        }
        msm_ifma_sqr8(got, it & 1 ? a : b);
        for (unsigned e = 0; e < 8; e++) {
            const cuzk_fp *x = it & 1 ? &a[e] : &b[e];
            cuzk_fp_mul(&want, x, x);
            CHECK(memcmp(&got[e], &want, sizeof want) == 0);
        }
        check_ifma_g2_mul(it);
    }
}

/* One group for the generic kernel / path tests below (void * = that
 * group's affine point, projective point or field element). */
typedef struct {
    size_t aff, jac, fe; /* sizes */
    void (*gen)(void *out, size_t n, int nasty);
    void (*neg)(void *r, const void *a);
    void (*den)(void *d, const void *a, const void *b, int flag); /* x_b - x_a / 2 y_a / one */
    void (*sum)(void *r, const void *a, const void *b);           /* complete addition, affine */
    size_t (*work)(size_t n);
    void (*pairs)(void *O, const void *A, const void *B, const uint32_t *io, const uint32_t *ia,
                  const uint32_t *ib, const uint8_t *flag, void *den, void *work, size_t n);
    size_t (*tile_len)(size_t n, unsigned c);
    int (*tile)(void *out, const void *b, const uint32_t *idx, const cuzk_scalar *k, size_t n, unsigned c,
                unsigned nw, int st, void *s, size_t len);
    bool (*eq)(const void *a, const void *b);
    void (*naive)(void *r, const void *b, const cuzk_fr *k, size_t n);
    int (*msm)(void *r, const void *b, const cuzk_scalar *k, size_t n); /* scalar-path check, st 1 */
} grp;

/* The wrappers and the descriptor grp_<G> of one group: G = g1 / g2, F its
 * coordinate field (fp / fp2), ONE that field's one, PAIRS / WORK its pair
 * kernel. */
#define GRP_DEF(G, F, ONE, PAIRS, WORK)                                                                      \
    static void G##_gen(void *o, size_t n, int nasty)                                                        \
    {                                                                                                        \
        gen_##G(o, n, nasty);                                                                                \
    }                                                                                                        \
    static void G##_neg(void *r, const void *a)                                                              \
    {                                                                                                        \
        cuzk_##G##_affine_neg(r, a);                                                                         \
    }                                                                                                        \
    static void G##_den(void *d, const void *a, const void *b, int flag)                                     \
    {                                                                                                        \
        const cuzk_##G##_affine *pa = a, *pb = b;                                                            \
        if (flag == 0)                                                                                       \
            cuzk_##F##_sub(d, &pb->x, &pa->x);                                                               \
        else if (flag == 1)                                                                                  \
            cuzk_##F##_add(d, &pa->y, &pa->y);                                                               \
        else                                                                                                 \
            *(cuzk_##F *)d = ONE;                                                                            \
    }                                                                                                        \
    static void G##_sum(void *r, const void *a, const void *b)                                               \
    {                                                                                                        \
        cuzk_##G pa, pb;                                                                                     \
        cuzk_##G##_from_affine(&pa, a);                                                                      \
        cuzk_##G##_from_affine(&pb, b);                                                                      \
        cuzk_##G##_add(&pa, &pa, &pb);                                                                       \
        cuzk_##G##_to_affine(r, &pa);                                                                        \
    }                                                                                                        \
    static void G##_pairs(void *O, const void *A, const void *B, const uint32_t *io, const uint32_t *ia,     \
                          const uint32_t *ib, const uint8_t *flag, void *den, void *work, size_t n)          \
    {                                                                                                        \
        PAIRS(O, A, B, io, ia, ib, flag, den, work, n);                                                      \
    }                                                                                                        \
    static int G##_tile(void *out, const void *b, const uint32_t *idx, const cuzk_scalar *k, size_t n,       \
                        unsigned c, unsigned nw, int st, void *s, size_t len)                                \
    {                                                                                                        \
        return cuzk_msm_##G##_tile(out, b, idx, k, n, c, 0, nw, st, s, len);                                 \
    }                                                                                                        \
    static bool G##_eq(const void *a, const void *b)                                                         \
    {                                                                                                        \
        return cuzk_##G##_eq(a, b);                                                                          \
    }                                                                                                        \
    static void G##_naive(void *r, const void *b, const cuzk_fr *k, size_t n)                                \
    {                                                                                                        \
        naive_##G(r, b, k, n, NULL);                                                                         \
    }                                                                                                        \
    static int G##_msm(void *r, const void *b, const cuzk_scalar *k, size_t n)                               \
    {                                                                                                        \
        cuzk_msm_opts o = {0, 0, 1};                                                                         \
        return cuzk_msm_##G##_opts(NULL, r, b, n, k, n, NULL, NULL, 0, &o);                                  \
    }                                                                                                        \
    static const grp grp_##G = {.aff = sizeof(cuzk_##G##_affine),                                            \
                                .jac = sizeof(cuzk_##G),                                                     \
                                .fe = sizeof(cuzk_##F),                                                      \
                                .gen = G##_gen,                                                              \
                                .neg = G##_neg,                                                              \
                                .den = G##_den,                                                              \
                                .sum = G##_sum,                                                              \
                                .work = WORK,                                                                \
                                .pairs = G##_pairs,                                                          \
                                .tile_len = cuzk_msm_##G##_tile_scratch_sizeof,                              \
                                .tile = G##_tile,                                                            \
                                .eq = G##_eq,                                                                \
                                .naive = G##_naive,                                                          \
                                .msm = G##_msm};
GRP_DEF(g1, fp, CUZK_FP_ONE, msm_ifma_pairs, msm_ifma_work_bytes)
GRP_DEF(g2, fp2, CUZK_FP2_ONE, msm_ifma_g2_pairs, msm_ifma_g2_work_bytes)

#define AT(p, i) ((uint8_t *)(p) + (size_t)(i)*g->aff)

/* A pair kernel against the curve layer's complete addition: additions,
 * doublings, cancellations and other-flag pairs (must stay unwritten),
 * n = 0, 1, odd and around the 8 / 16 lane blocks, separate output and in
 * place (O = A, io = ia). */
static void run_ifma_pairs(const grp *g)
{
    if (!msm_ifma_available()) {
        test_skip("CPU without AVX-512 IFMA/VBMI2 or portable build");
        return;
    }
    static const size_t ns[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 100, 257};
    size_t maxn = 257, cap = 272;
    void *A = malloc(maxn * g->aff), *B = malloc(maxn * g->aff), *O = malloc(maxn * g->aff);
    void *A0 = malloc(maxn * g->aff), *want = malloc(g->aff), *junk = malloc(g->aff);
    uint8_t *den = malloc(cap * g->fe);
    uint32_t *ia = malloc(maxn * 4), *ib = malloc(maxn * 4), *io = malloc(maxn * 4);
    uint8_t *flag = malloc(maxn);
    void *work = malloc(g->work(maxn));
    CHECK(A && B && O && A0 && want && junk && den && ia && ib && io && flag && work);
    memset(junk, 0x5a, g->aff);
    g->gen(B, maxn, 0);
    for (size_t q = 0; q < sizeof ns / sizeof ns[0]; q++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            size_t n = ns[q];
            g->gen(A, n, 0);
            for (size_t i = 0; i < n; i++) {
                unsigned v = (unsigned)(test_rand64() % 6);
                /* B in reverse order through ib; io a rotation (separate) */
                ib[i] = (uint32_t)(n - 1 - i);
                ia[i] = (uint32_t)i;
                io[i] = inplace ? (uint32_t)i : (uint32_t)((i + 3) % n);
                flag[i] = v == 1 ? 1 : v == 2 ? 2 : v == 3 ? 3 : 0;
                if (flag[i] == 1) memcpy(AT(A, i), AT(B, ib[i]), g->aff);
                if (flag[i] == 2) g->neg(AT(A, i), AT(B, ib[i]));
                g->den(den + i * g->fe, AT(A, i), AT(B, ib[i]), flag[i]);
            }
            memcpy(A0, A, n * g->aff);
            memset(O, 0x5a, maxn * g->aff);
            void *out = inplace ? A : O;
            g->pairs(out, A, B, io, ia, ib, flag, den, work, n);
            for (size_t i = 0; i < n; i++) {
                const void *r = AT(out, io[i]);
                if (flag[i] >= 2) { /* not written */
                    CHECK(memcmp(r, inplace ? AT(A0, i) : junk, g->aff) == 0);
                    continue;
                }
                g->sum(want, AT(A0, i), AT(B, ib[i]));
                CHECK(memcmp(r, want, g->aff) == 0);
            }
        }
    }
    free(A), free(B), free(O), free(A0), free(want), free(junk), free(den), free(ia), free(ib), free(io),
        free(flag), free(work);
}

static void test_ifma_pairs(void)
{
    run_ifma_pairs(&grp_g1);
}
static void test_ifma_g2_pairs(void)
{
    run_ifma_pairs(&grp_g2);
}

/* Window sums of the tile API with the IFMA path and the scalar path are
 * bit-identical (and the MSM equals the naive sum on the scalar path too):
 * random points, repeated points (doublings), P / -P (cancellations),
 * infinities, n = 0, 1 and odd counts, bucket arrays with and without the
 * lane running sums (c >= 13; c = 12 on the IFMA path). */
static void run_ifma_paths(const grp *g, size_t maxn)
{
    static const size_t ns[] = {0, 1, 3, 17, 255, 1001, 5003};
    static const unsigned cs[] = {4, 9, 12, 13};
    for (size_t q = 0; q < sizeof ns / sizeof ns[0] && ns[q] <= maxn; q++)
        for (int kind = 0; kind < 3; kind++) {
            size_t n = ns[q];
            uint8_t *b = malloc((n + 1) * g->aff);
            cuzk_fr *k = malloc((n + 1) * sizeof *k);
            cuzk_scalar *ks = malloc((n + 1) * sizeof *ks);
            uint32_t *idx = malloc((n + 1) * sizeof *idx);
            CHECK(b && k && ks && idx);
            g->gen(b, n, kind != 0);
            if (kind == 2) /* few distinct points: many doublings and cancellations */
                for (size_t i = 3; i < n; i++) {
                    unsigned v = (unsigned)(test_rand64() % 4);
                    if (v == 0)
                        g->neg(AT(b, i), AT(b, i % 3));
                    else if (v < 3)
                        memcpy(AT(b, i), AT(b, i % 3), g->aff);
                }
            gen_scalars(k, n, kind == 2 ? 2 : kind);
            if (kind == 2)
                for (size_t i = 0; i < n; i++)
                    cuzk_fr_from_u64(&k[i], 1 + test_rand64() % 5);
            cuzk_scalars_from_fr(ks, k, n);
            for (size_t i = 0; i < n; i++)
                idx[i] = (uint32_t)i;
            for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++)
                for (int st = 1; st <= 3; st += 2) {
                    unsigned c = cs[ci], nw = cuzk_msm_nwindows(c);
                    if (c >= 12 && n < 255) continue;
                    size_t len = g->tile_len(n, c);
                    void *s = malloc(len);
                    uint8_t *w0 = malloc(nw * g->jac), *w1 = malloc(nw * g->jac);
                    CHECK(s && w0 && w1);
                    msm_ifma_force_scalar(1);
                    CHECK(g->tile(w0, b, idx, ks, n, c, nw, st, s, len) == CUZK_OK);
                    msm_ifma_force_scalar(0);
                    CHECK(g->tile(w1, b, idx, ks, n, c, nw, st, s, len) == CUZK_OK);
                    /* c = 12: lane running sums on the IFMA path only (the
                     * same points, other coordinates) */
                    for (unsigned w = 0; w < nw; w++)
                        CHECK(g->eq(w0 + w * g->jac, w1 + w * g->jac));
                    if (c != 12 || !msm_ifma_available()) CHECK(memcmp(w0, w1, nw * g->jac) == 0);
                    free(s), free(w0), free(w1);
                }
            /* the whole MSM on the scalar path against the naive sum */
            if (n <= 1001) {
                uint8_t ref[sizeof(cuzk_g2)], got[sizeof(cuzk_g2)];
                g->naive(ref, b, k, n);
                msm_ifma_force_scalar(1);
                CHECK(g->msm(got, b, ks, n) == CUZK_OK);
                msm_ifma_force_scalar(0);
                CHECK(g->eq(got, ref));
            }
            free(b), free(k), free(ks), free(idx);
        }
}

static void test_g1_ifma_paths(void)
{
    run_ifma_paths(&grp_g1, 5003);
}
static void test_g2_ifma_paths(void)
{
    run_ifma_paths(&grp_g2, 1001);
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
    {"ifma_mul", test_ifma_mul},
    {"ifma_pairs", test_ifma_pairs},
    {"g1_ifma_paths", test_g1_ifma_paths},
    {"ifma_g2_pairs", test_ifma_g2_pairs},
    {"g2_ifma_paths", test_g2_ifma_paths},
};

TEST_MAIN(tests)
