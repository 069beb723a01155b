/* NTT tests: every transform against a naive O(n^2) DFT or direct
 * polynomial evaluation written with the public cuzk_fr_* functions, the
 * roots against the published BLS12-381 constant, round trips at large
 * sizes, thread-count independence and argument errors. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/ntt.h"
#include "cuzk/pool.h"
#include "cuzk/status.h"
#include "harness.h"
#include "poly/ntt_internal.h" /* cuzk_ntt_ifma_disabled, cuzk_ntt_ifma_available */

static void rand_fr(cuzk_fr *r)
{
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++)
            l[i] = test_rand64();
        l[3] &= 0x7fffffffffffffffull;
    } while (cuzk_fr_from_limbs(r, l) != CUZK_OK);
}

static cuzk_fr *rand_vec(size_t n)
{
    cuzk_fr *v = malloc(n * sizeof *v);
    CHECK(v != NULL);
    for (size_t i = 0; v && i < n; i++)
        rand_fr(&v[i]);
    return v;
}

static cuzk_fr *copy_vec(const cuzk_fr *a, size_t n)
{
    cuzk_fr *v = malloc(n * sizeof *v);
    CHECK(v != NULL);
    if (v) memcpy(v, a, n * sizeof *v);
    return v;
}

/* Published 2^32-th root of unity 7^((r-1)/2^32) (canonical, big endian):
 * 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b
 * (blstrs / zkcrypto bls12_381 ROOT_OF_UNITY). */
static void ref_root(cuzk_fr *w, unsigned log_n)
{
    static const uint64_t limbs[4] = {0x3829971f439f0d2bull, 0xb63683508c2280b9ull, 0xd09b681922c813b4ull,
                                      0x16a2a19edfe81f20ull};
    CHECK(cuzk_fr_from_limbs(w, limbs) == CUZK_OK);
    for (unsigned i = log_n; i < 32; i++)
        cuzk_fr_sqr(w, w);
}

/* out[i] = sum_j a[j] * (c * w^i)^j, by Horner per point. */
static void naive_eval(cuzk_fr *out, const cuzk_fr *a, size_t n, const cuzk_fr *w, const cuzk_fr *c)
{
    cuzk_fr x = *c;
    for (size_t i = 0; i < n; i++) {
        cuzk_fr acc = CUZK_FR_ZERO;
        for (size_t j = n; j-- > 0;) {
            cuzk_fr_mul(&acc, &acc, &x);
            cuzk_fr_add(&acc, &acc, &a[j]);
        }
        out[i] = acc;
        cuzk_fr_mul(&x, &x, w);
    }
}

/* a(x) by Horner. */
static void eval_at(cuzk_fr *out, const cuzk_fr *a, size_t n, const cuzk_fr *x)
{
    cuzk_fr acc = CUZK_FR_ZERO;
    for (size_t j = n; j-- > 0;) {
        cuzk_fr_mul(&acc, &acc, x);
        cuzk_fr_add(&acc, &acc, &a[j]);
    }
    *out = acc;
}

static int vec_eq(const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static void test_roots(void)
{
    cuzk_fr w, ref, t, minus_one, one = CUZK_FR_ONE;
    cuzk_fr_neg(&minus_one, &one);
    for (unsigned k = 0; k <= 32; k++) {
        CHECK(cuzk_ntt_root_of_unity(&w, k) == CUZK_OK);
        ref_root(&ref, k);
        CHECK(cuzk_fr_eq(&w, &ref));
        /* order exactly 2^k: w^(2^(k-1)) = -1, and squaring once more gives 1 */
        t = w;
        for (unsigned i = 1; i < k; i++)
            cuzk_fr_sqr(&t, &t);
        if (k >= 1)
            CHECK(cuzk_fr_eq(&t, &minus_one));
        else
            CHECK(cuzk_fr_is_one(&t));
    }
    CHECK(cuzk_ntt_root_of_unity(&w, 33) == CUZK_ERR_ARG);
    cuzk_fr g, seven;
    cuzk_ntt_coset_generator(&g);
    cuzk_fr_from_u64(&seven, 7);
    CHECK(cuzk_fr_eq(&g, &seven));
}

/* All four transforms against the definitions, sizes 2^0 .. 2^10. */
static void test_small_vs_naive(void)
{
    for (unsigned k = 0; k <= 10; k++) {
        size_t n = (size_t)1 << k;
        cuzk_ntt_domain *d;
        CHECK(cuzk_ntt_domain_create(&d, k, NULL) == CUZK_OK);
        if (!d) return;
        CHECK(cuzk_ntt_domain_log_n(d) == k);
        cuzk_fr w, winv, g, ginv, ninv, one = CUZK_FR_ONE, dw;
        ref_root(&w, k);
        cuzk_ntt_domain_omega(&dw, d);
        CHECK(cuzk_fr_eq(&dw, &w));
        cuzk_fr_inv(&winv, &w);
        cuzk_fr_from_u64(&g, 7);
        cuzk_fr_inv(&ginv, &g);
        cuzk_fr_from_u64(&ninv, n);
        cuzk_fr_inv(&ninv, &ninv);
        cuzk_fr *x = rand_vec(n), *y = copy_vec(x, n), *ref = malloc(n * sizeof *ref);

        naive_eval(ref, x, n, &w, &one); /* forward */
        CHECK(cuzk_ntt_forward(d, NULL, y, n) == CUZK_OK);
        CHECK(vec_eq(y, ref, n));

        memcpy(y, x, n * sizeof *y); /* inverse: n^-1 * eval at omega^-i */
        naive_eval(ref, x, n, &winv, &one);
        for (size_t i = 0; i < n; i++)
            cuzk_fr_mul(&ref[i], &ref[i], &ninv);
        CHECK(cuzk_ntt_inverse(d, NULL, y, n) == CUZK_OK);
        CHECK(vec_eq(y, ref, n));

        memcpy(y, x, n * sizeof *y); /* coset forward: eval at g*omega^i */
        naive_eval(ref, x, n, &w, &g);
        CHECK(cuzk_ntt_coset_forward(d, NULL, y, n) == CUZK_OK);
        CHECK(vec_eq(y, ref, n));

        memcpy(y, x, n * sizeof *y); /* coset inverse: n^-1 g^-j sum_i x_i omega^-ij */
        naive_eval(ref, x, n, &winv, &one);
        cuzk_fr f = ninv;
        for (size_t j = 0; j < n; j++) {
            cuzk_fr_mul(&ref[j], &ref[j], &f);
            cuzk_fr_mul(&f, &f, &ginv);
        }
        CHECK(cuzk_ntt_coset_inverse(d, NULL, y, n) == CUZK_OK);
        CHECK(vec_eq(y, ref, n));
        free(x);
        free(y);
        free(ref);
        cuzk_ntt_domain_destroy(d);
    }
}

/* Round trips at large sizes plus spot checks of single outputs. */
static void test_large(void)
{
    unsigned top = test_iterations > 1 ? 20 : 18;
    for (unsigned k = 11; k <= top; k += (k < 16 ? 1 : 2)) {
        size_t n = (size_t)1 << k;
        cuzk_ntt_domain *d;
        CHECK(cuzk_ntt_domain_create(&d, k, NULL) == CUZK_OK);
        if (!d) return;
        cuzk_fr *x = rand_vec(n), *y = copy_vec(x, n);
        cuzk_fr w, g;
        ref_root(&w, k);
        cuzk_fr_from_u64(&g, 7);
        CHECK(cuzk_ntt_forward(d, NULL, y, n) == CUZK_OK);
        for (int s = 0; s < 3; s++) { /* y[i] = x(omega^i) at random i */
            size_t i = (size_t)(test_rand64() % n);
            cuzk_fr pt, e;
            uint64_t ie = i;
            cuzk_fr_pow(&pt, &w, &ie, 1);
            eval_at(&e, x, n, &pt);
            CHECK(cuzk_fr_eq(&e, &y[i]));
        }
        CHECK(cuzk_ntt_inverse(d, NULL, y, n) == CUZK_OK);
        CHECK(vec_eq(x, y, n));
        CHECK(cuzk_ntt_coset_forward(d, NULL, y, n) == CUZK_OK);
        {
            size_t i = (size_t)(test_rand64() % n);
            cuzk_fr pt, e;
            uint64_t ie = i;
            cuzk_fr_pow(&pt, &w, &ie, 1);
            cuzk_fr_mul(&pt, &pt, &g);
            eval_at(&e, x, n, &pt);
            CHECK(cuzk_fr_eq(&e, &y[i]));
        }
        CHECK(cuzk_ntt_coset_inverse(d, NULL, y, n) == CUZK_OK);
        CHECK(vec_eq(x, y, n));
        free(x);
        free(y);
        cuzk_ntt_domain_destroy(d);
    }
}

/* Results do not depend on the thread count (nor on how tasks are cut). */
static void test_threads_identical(void)
{
    unsigned counts[] = {2, 3, 4};
    cuzk_pool *pools[3];
    for (int p = 0; p < 3; p++)
        CHECK(cuzk_pool_create(&pools[p], counts[p]) == CUZK_OK);
    for (unsigned k = 0; k <= 18; k += (k < 10 ? 5 : (k < 14 ? 1 : 2))) {
        size_t n = (size_t)1 << k;
        cuzk_ntt_domain *d1, *d2;
        CHECK(cuzk_ntt_domain_create(&d1, k, NULL) == CUZK_OK);
        CHECK(cuzk_ntt_domain_create(&d2, k, cuzk_pool_par(pools[0])) == CUZK_OK);
        if (!d1 || !d2) return;
        CHECK(cuzk_ntt_domain_bytes(k) == cuzk_ntt_domain_bytes(k)); /* pure */
        cuzk_fr *x = rand_vec(n), *ref = copy_vec(x, n), *y = malloc(n * sizeof *y);
        typedef int (*tf)(const cuzk_ntt_domain *, cuzk_par *, cuzk_fr *, size_t);
        tf fns[4] = {cuzk_ntt_forward, cuzk_ntt_inverse, cuzk_ntt_coset_forward, cuzk_ntt_coset_inverse};
        for (int f = 0; f < 4; f++) {
            memcpy(ref, x, n * sizeof *x);
            CHECK(fns[f](d1, NULL, ref, n) == CUZK_OK);
            for (int p = 0; p < 3; p++) {
                memcpy(y, x, n * sizeof *x);
                CHECK(fns[f](p ? d1 : d2, cuzk_pool_par(pools[p]), y, n) == CUZK_OK);
                CHECK(vec_eq(y, ref, n));
            }
        }
        free(x);
        free(y);
        free(ref);
        cuzk_ntt_domain_destroy(d1);
        cuzk_ntt_domain_destroy(d2);
    }
    for (int p = 0; p < 3; p++)
        cuzk_pool_destroy(pools[p]);
}

static void test_errors(void)
{
    cuzk_ntt_domain *d = (cuzk_ntt_domain *)1;
    CHECK(cuzk_ntt_domain_create(&d, CUZK_NTT_MAX_LOG + 1, NULL) == CUZK_ERR_ARG);
    CHECK(d == NULL);
    CHECK(cuzk_ntt_domain_create(&d, 40, NULL) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_domain_create(NULL, 4, NULL) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_domain_bytes(CUZK_NTT_MAX_LOG + 1) == 0);
    /* full tables up to 2^22 (w^j for j < n/2, per-stage n/16: 18 bytes a
     * point); above, the tables stop at 2^21 twiddles (36 x 2^21 bytes)
     * plus the lo tables of the generated stages */
    for (unsigned k = 6; k <= 22; k++) {
        size_t b = cuzk_ntt_domain_bytes(k), tab = ((size_t)18 << k);
        CHECK(b >= tab && b < tab + 4096);
    }
    for (unsigned k = 23; k <= CUZK_NTT_MAX_LOG; k++) {
        size_t b = cuzk_ntt_domain_bytes(k), tab = (size_t)36 << 21;
        CHECK(b >= tab && b < tab + 8192);
    }
    cuzk_fr a[16], b[16];
    for (int i = 0; i < 16; i++)
        rand_fr(&a[i]);
    memcpy(b, a, sizeof a);
    /* no domain */
    CHECK(cuzk_ntt_forward(NULL, NULL, a, 16) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_inverse(NULL, NULL, a, 16) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_coset_forward(NULL, NULL, a, 16) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_coset_inverse(NULL, NULL, a, 16) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_domain_create(&d, 4, NULL) == CUZK_OK);
    /* wrong sizes, NULL data */
    CHECK(cuzk_ntt_forward(d, NULL, a, 8) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_inverse(d, NULL, a, 32) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_coset_forward(d, NULL, a, 15) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_coset_inverse(d, NULL, a, 0) == CUZK_ERR_ARG);
    CHECK(cuzk_ntt_forward(d, NULL, NULL, 16) == CUZK_ERR_ARG);
    CHECK(vec_eq(a, b, 16)); /* untouched on error */
    CHECK(cuzk_ntt_forward(d, NULL, a, 16) == CUZK_OK);
    CHECK(!vec_eq(a, b, 16));
    cuzk_ntt_domain_destroy(d);
    cuzk_ntt_domain_destroy(NULL);
}

/* Both kernel families: where the CPU has AVX-512 IFMA the other tests run
 * the IFMA kernels; here the scalar path runs against the naive DFT and the
 * two paths must agree bit for bit. */
static void test_scalar_path(void)
{
    cuzk_ntt_ifma_disabled = 1;
    test_small_vs_naive();
    cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 2) == CUZK_OK);
    typedef int (*tf)(const cuzk_ntt_domain *, cuzk_par *, cuzk_fr *, size_t);
    tf fns[4] = {cuzk_ntt_forward, cuzk_ntt_inverse, cuzk_ntt_coset_forward, cuzk_ntt_coset_inverse};
    for (unsigned k = 5; k <= 16; k += 1 + (k >= 12)) {
        size_t n = (size_t)1 << k;
        cuzk_ntt_domain *ds, *dv;
        cuzk_ntt_ifma_disabled = 1;
        CHECK(cuzk_ntt_domain_create(&ds, k, NULL) == CUZK_OK);
        cuzk_ntt_ifma_disabled = 0;
        CHECK(cuzk_ntt_domain_create(&dv, k, NULL) == CUZK_OK);
        if (!ds || !dv) break;
        CHECK(ds->ifma == 0);
        CHECK(dv->ifma == cuzk_ntt_ifma_available());
        cuzk_fr *x = rand_vec(n), *y = copy_vec(x, n), *z = copy_vec(x, n);
        for (int f = 0; f < 4; f++) {
            CHECK(fns[f](ds, cuzk_pool_par(pool), y, n) == CUZK_OK);
            CHECK(fns[f](dv, f & 1 ? NULL : cuzk_pool_par(pool), z, n) == CUZK_OK);
            CHECK(vec_eq(y, z, n));
        }
        free(x);
        free(y);
        free(z);
        cuzk_ntt_domain_destroy(ds);
        cuzk_ntt_domain_destroy(dv);
    }
    cuzk_pool_destroy(pool);
    cuzk_ntt_ifma_disabled = 0;
    if (!cuzk_ntt_ifma_available())
        test_skip("no AVX-512 IFMA (or CUZK_NTT_NO_IFMA set): only the scalar path runs here");
}

/* The stages above the tables (two-level twiddles, cuzk_ntt_gen_twiddles):
 * with the tables cut at 2^t (t = 4, 5, 7), sizes from the threshold (n =
 * 2^(t+1): none generated) up to 2^(t+6) (five: hi and lo of every shape,
 * e = 1 .. 5), scalar and IFMA kernels, against the naive DFT up to 2^10
 * and bit for bit against a domain with full tables above, on 1 and 3
 * threads (the top passes are then cut across tasks). */
static void check_vs_naive(const cuzk_ntt_domain *d, unsigned k)
{
    size_t n = (size_t)1 << k;
    cuzk_fr w, winv, g, one = CUZK_FR_ONE, ninv;
    ref_root(&w, k);
    cuzk_fr_inv(&winv, &w);
    cuzk_fr_from_u64(&g, 7);
    cuzk_fr_from_u64(&ninv, n);
    cuzk_fr_inv(&ninv, &ninv);
    cuzk_fr *x = rand_vec(n), *y = copy_vec(x, n), *ref = malloc(n * sizeof *ref);
    naive_eval(ref, x, n, &w, &one);
    CHECK(cuzk_ntt_forward(d, NULL, y, n) == CUZK_OK);
    CHECK(vec_eq(y, ref, n));
    memcpy(y, x, n * sizeof *y);
    naive_eval(ref, x, n, &w, &g);
    CHECK(cuzk_ntt_coset_forward(d, NULL, y, n) == CUZK_OK);
    CHECK(vec_eq(y, ref, n));
    memcpy(y, x, n * sizeof *y);
    naive_eval(ref, x, n, &winv, &one);
    for (size_t i = 0; i < n; i++)
        cuzk_fr_mul(&ref[i], &ref[i], &ninv);
    CHECK(cuzk_ntt_inverse(d, NULL, y, n) == CUZK_OK);
    CHECK(vec_eq(y, ref, n));
    free(x);
    free(y);
    free(ref);
}

static void check_vs_full(const cuzk_ntt_domain *d, const cuzk_ntt_domain *full, unsigned k, cuzk_par *par)
{
    typedef int (*tf)(const cuzk_ntt_domain *, cuzk_par *, cuzk_fr *, size_t);
    tf fns[4] = {cuzk_ntt_forward, cuzk_ntt_inverse, cuzk_ntt_coset_forward, cuzk_ntt_coset_inverse};
    size_t n = (size_t)1 << k;
    cuzk_fr *x = rand_vec(n), *y = copy_vec(x, n), *z = copy_vec(x, n);
    for (int f = 0; f < 4; f++) {
        CHECK(fns[f](full, NULL, y, n) == CUZK_OK);
        CHECK(fns[f](d, f & 1 ? NULL : par, z, n) == CUZK_OK);
        CHECK(vec_eq(y, z, n));
    }
    free(x);
    free(y);
    free(z);
}

static void test_generated_stages(void)
{
    static const unsigned tops[] = {4, 5, 7};
    cuzk_pool *pool;
    CHECK(cuzk_pool_create(&pool, 3) == CUZK_OK);
    for (int scalar = 0; scalar < 2; scalar++) {
        cuzk_ntt_ifma_disabled = scalar;
        for (int t = 0; t < 3; t++) {
            for (unsigned k = tops[t] + 1; k <= tops[t] + 6; k++) {
                cuzk_ntt_domain *d, *full;
                cuzk_ntt_top_log = tops[t];
                CHECK(cuzk_ntt_domain_create(&d, k, cuzk_pool_par(pool)) == CUZK_OK);
                cuzk_ntt_top_log = 0; /* the default */
                CHECK(cuzk_ntt_domain_create(&full, k, NULL) == CUZK_OK);
                if (!d || !full) break;
                CHECK(d->top == (size_t)1 << tops[t] && full->top == (size_t)1 << (k - 1));
                CHECK(d->ifma == (!scalar && cuzk_ntt_ifma_available()));
                if (k <= 10) check_vs_naive(d, k);
                check_vs_full(d, full, k, cuzk_pool_par(pool));
                cuzk_ntt_domain_destroy(d);
                cuzk_ntt_domain_destroy(full);
            }
        }
    }
    cuzk_ntt_ifma_disabled = 0;
    cuzk_pool_destroy(pool);
    if (!cuzk_ntt_ifma_available()) test_skip("no AVX-512 IFMA (or CUZK_NTT_NO_IFMA set): scalar kernels only");
}

static const test_case tests[] = {
    {"roots", test_roots},
    {"small_vs_naive", test_small_vs_naive},
    {"large", test_large},
    {"threads_identical", test_threads_identical},
    {"errors", test_errors},
    {"scalar_path", test_scalar_path},
    {"generated_stages", test_generated_stages},
};

TEST_MAIN(tests)
