/* Tests of the fixed-base multiplication (src/ec/fixed_base.c): against a
 * plain double-and-add over the bits of the canonical integer (no windows,
 * no recoding) and against the variable-base constant-time cuzk_g{1,2}_mul,
 * for edge scalars (carries through every window, r - 1, digits of exactly
 * 2^(w-1)) and random ones, on the generators and on random bases; the
 * affine batches against the single multiplications; plus a memcheck
 * constant-time check (run under valgrind, skipped otherwise). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/ec.h"
#include "ec/ec_internal.h"
#include "ec_common.h"
#include "msm/msm_ifma.h"
#include "harness.h"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_MEMCHECK 1
#endif

/* obviously-correct references: MSB-first double-and-add over the bits */
static void g1_ref(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_fr *k)
{
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_g1_set_inf(r);
    for (int b = 255; b >= 0; b--) {
        cuzk_g1_dbl(r, r);
        if (l[b / 64] >> (b % 64) & 1) cuzk_g1_add(r, r, p);
    }
}

static void g2_ref(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_fr *k)
{
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_g2_set_inf(r);
    for (int b = 255; b >= 0; b--) {
        cuzk_g2_dbl(r, r);
        if (l[b / 64] >> (b % 64) & 1) cuzk_g2_add(r, r, p);
    }
}

/* Edge cases of the w-bit recoding, then scalar_case's list, then random. */
#define N_FB_EDGE 6
static void fb_scalar(cuzk_fr *k, int i)
{
    uint64_t l[4] = {0, 0, 0, 0};
    switch (i) {
    case 0: /* every digit exactly 2^(w-1): no carries, all lookups at the end */
    case 1: /* every digit 2^(w-1) + 1: a carry out of every window */
    case 2: /* every digit 2^w - 1: digit -1 and a carry everywhere */
        for (int b = 0; b + CUZK_EC_FB_W <= 254; b += CUZK_EC_FB_W) {
            uint64_t d = i == 0 ? 1u << (CUZK_EC_FB_W - 1)
                         : i == 1 ? (1u << (CUZK_EC_FB_W - 1)) + 1
                                  : (1u << CUZK_EC_FB_W) - 1;
            for (int t = 0; t < CUZK_EC_FB_W; t++)
                if (d >> t & 1) l[(b + t) / 64] |= 1ull << ((b + t) % 64);
        }
        break;
    case 3: l[3] = 0x7000000000000000ull; l[0] = 1ull << (CUZK_EC_FB_W - 1); break;
    case 4: l[0] = 1u << (CUZK_EC_FB_W - 1); break; /* 2^(w-1) alone */
    case 5: l[0] = (1u << CUZK_EC_FB_W) - 1; break; /* -1 + 2^w */
    default: scalar_case(k, i - N_FB_EDGE); return;
    }
    fr_from_limbs_checked(k, l);
}

static void test_g1_mul_fixed(void)
{
    static cuzk_g1_affine table[CUZK_EC_FB_ENTRIES];
    for (int base = 0; base < 2; base++) {
        cuzk_g1 p;
        cuzk_g1_generator(&p);
        if (base) { /* a random multiple of the generator */
            cuzk_fr s;
            fr_random(&s);
            cuzk_g1_mul_var(&p, &p, &s);
        }
        cuzk_g1_fixed_table_var(table, &p);
        int n = N_FB_EDGE + N_EDGE_SCALARS + 20 * test_iterations;
        for (int i = 0; i < n; i++) {
            cuzk_fr k;
            cuzk_g1 a, b, c;
            fb_scalar(&k, i);
            cuzk_g1_mul_fixed(&a, table, &k);
            g1_ref(&b, &p, &k);
            cuzk_g1_mul(&c, &p, &k);
            CHECK(cuzk_g1_is_on_curve(&a));
            CHECK(cuzk_g1_eq(&a, &b));
            CHECK(cuzk_g1_eq(&a, &c));
        }
    }
}

static void test_g2_mul_fixed(void)
{
    static cuzk_g2_affine table[CUZK_EC_FB_ENTRIES];
    for (int base = 0; base < 2; base++) {
        cuzk_g2 p;
        cuzk_g2_generator(&p);
        if (base) {
            cuzk_fr s;
            fr_random(&s);
            cuzk_g2_mul_var(&p, &p, &s);
        }
        cuzk_g2_fixed_table_var(table, &p);
        int n = N_FB_EDGE + N_EDGE_SCALARS + 10 * test_iterations;
        for (int i = 0; i < n; i++) {
            cuzk_fr k;
            cuzk_g2 a, b, c;
            fb_scalar(&k, i);
            cuzk_g2_mul_fixed(&a, table, &k);
            g2_ref(&b, &p, &k);
            cuzk_g2_mul(&c, &p, &k);
            CHECK(cuzk_g2_is_on_curve(&a));
            CHECK(cuzk_g2_eq(&a, &b));
            CHECK(cuzk_g2_eq(&a, &c));
        }
    }
}

/* The affine batches against cuzk_g{1,2}_mul_fixed: edge and random scalars
 * (zero included, so the identity goes through the masked cases), batch
 * lengths 1, 7 and 300 (more than one internal batch of 256). */
static void test_mul_fixed_batch(void)
{
    static cuzk_g1_affine t1[CUZK_EC_FB_ENTRIES], o1[300];
    static cuzk_g2_affine t2[CUZK_EC_FB_ENTRIES], o2[300];
    static cuzk_fr k[300];
    static const size_t lens[] = {1, 7, 300};
    size_t ss = cuzk_g1_mul_fixed_batch_scratch_size(), s2 = cuzk_g2_mul_fixed_batch_scratch_size();
    void *scratch = malloc(ss > s2 ? ss : s2);
    CHECK(scratch != NULL);
    if (!scratch) return;
    cuzk_g1 p1, r1;
    cuzk_g2 p2, r2;
    cuzk_fr s;
    fr_random(&s);
    cuzk_g1_generator(&p1);
    cuzk_g2_generator(&p2);
    cuzk_g1_mul_var(&p1, &p1, &s); /* a random base in the subgroup */
    cuzk_g2_mul_var(&p2, &p2, &s);
    cuzk_g1_fixed_table_var(t1, &p1);
    cuzk_g2_fixed_table_var(t2, &p2);
    for (int rep = 0; rep < test_iterations; rep++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            size_t n = lens[li];
            for (size_t i = 0; i < n; i++)
                fb_scalar(&k[i], (int)((i + (size_t)rep) % (N_FB_EDGE + N_EDGE_SCALARS + 3)));
            cuzk_g1_mul_fixed_batch(o1, t1, k, n, scratch);
            cuzk_g2_mul_fixed_batch(o2, t2, k, n, scratch);
            for (size_t i = 0; i < n; i++) {
                cuzk_g1_affine a1;
                cuzk_g2_affine a2;
                cuzk_g1_mul_fixed(&r1, t1, &k[i]);
                cuzk_g2_mul_fixed(&r2, t2, &k[i]);
                cuzk_g1_to_affine(&a1, &r1);
                cuzk_g2_to_affine(&a2, &r2);
                CHECK(cuzk_g1_affine_eq(&o1[i], &a1));
                CHECK(cuzk_g2_affine_eq(&o2[i], &a2));
                CHECK(cuzk_g1_affine_is_inf(&o1[i]) == cuzk_fr_is_zero(&k[i]));
            }
        }
    free(scratch);
}

/* The variable-time wide tables (fixed_base_var.c, the fast test setup)
 * against the constant-time batch for several window widths (2: 128
 * windows; 11 and 16: wide rows), edge and random scalars, zero included,
 * and lengths that cross the internal batch of 512. */
static void test_mul_fixed_many_var(void)
{
    static cuzk_g1_affine t1[CUZK_EC_FB_ENTRIES], o1[1100], v1[1100];
    static cuzk_g2_affine t2[CUZK_EC_FB_ENTRIES], o2[1100], v2[1100];
    static cuzk_fr k[1100];
    static const unsigned ws[] = {2, 5, 11, 16};
    static const size_t lens[] = {1, 7, 1100};
    size_t ss = cuzk_g1_mul_fixed_batch_scratch_size(), s2 = cuzk_g2_mul_fixed_batch_scratch_size();
    void *scratch = malloc(ss > s2 ? ss : s2);
    REQUIRE(scratch != NULL);
    cuzk_g1 p1;
    cuzk_g2 p2;
    cuzk_fr s;
    fr_random(&s);
    cuzk_g1_generator(&p1);
    cuzk_g2_generator(&p2);
    cuzk_g1_mul_var(&p1, &p1, &s);
    cuzk_g2_mul_var(&p2, &p2, &s);
    cuzk_g1_fixed_table_var(t1, &p1);
    cuzk_g2_fixed_table_var(t2, &p2);
    cuzk_g1_fbv_table b1;
    cuzk_g2_fbv_table b2;
    CHECK(cuzk_g1_fbv_table_init(&b1, &p1, 1) == CUZK_ERR_ARG);
    CHECK(cuzk_g1_fbv_table_init(&b1, &p1, CUZK_EC_FBV_MAX_W + 1) == CUZK_ERR_ARG);
    /* every width on the scalar loop; the IFMA pair additions (where the CPU
     * has them) on two widths */
    int ifma_runs = cuzk_msm_ifma_available() ? 2 : 0;
    if (!ifma_runs) test_skip("mul_fixed_many_var with the IFMA pair additions: no AVX-512 IFMA here");
    for (size_t wi = 0; wi < sizeof ws / sizeof ws[0] + (size_t)ifma_runs; wi++) {
        bool ifma = wi >= sizeof ws / sizeof ws[0];
        unsigned w = ifma ? (wi % 2 ? 11 : 5) : ws[wi];
        REQUIRE(cuzk_g1_fbv_table_init(&b1, &p1, w) == CUZK_OK);
        REQUIRE(cuzk_g2_fbv_table_init(&b2, &p2, w < 12 ? w : 12) == CUZK_OK); /* 16: a 100 MB table */
        if (ifma) {
            b1.pairs = cuzk_msm_ifma_pairs;
            b1.pairs_work_bytes = cuzk_msm_ifma_work_bytes;
            b2.pairs = cuzk_msm_ifma_g2_pairs;
            b2.pairs_work_bytes = cuzk_msm_ifma_g2_work_bytes;
        }
        size_t sv = cuzk_g1_fbv_scratch_size(&b1), sv2 = cuzk_g2_fbv_scratch_size(&b2);
        void *vs = malloc(sv > sv2 ? sv : sv2);
        REQUIRE(vs != NULL);
        for (int rep = 0; rep < test_iterations; rep++)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                size_t n = lens[li];
                for (size_t i = 0; i < n; i++)
                    fb_scalar(&k[i], (int)((i + (size_t)rep) % (N_FB_EDGE + N_EDGE_SCALARS + 3)));
                cuzk_g1_mul_fixed_batch(o1, t1, k, n, scratch);
                cuzk_g2_mul_fixed_batch(o2, t2, k, n, scratch);
                cuzk_g1_mul_fixed_many_var(v1, &b1, k, n, vs);
                cuzk_g2_mul_fixed_many_var(v2, &b2, k, n, vs);
                for (size_t i = 0; i < n; i++) {
                    CHECK(cuzk_g1_affine_eq(&o1[i], &v1[i]));
                    CHECK(cuzk_g2_affine_eq(&o2[i], &v2[i]));
                }
            }
        cuzk_g1_fbv_table_free(&b1);
        cuzk_g2_fbv_table_free(&b2);
        free(vs);
    }
    free(scratch);
}

/* Under memcheck the scalar is marked undefined: any branch or memory index
 * depending on it is reported.  Run: valgrind build/bin/test_ec_fixed. */
static void test_mul_fixed_consttime(void)
{
#ifdef HAVE_MEMCHECK
    if (!RUNNING_ON_VALGRIND) {
        test_skip("needs valgrind (memcheck)");
        return;
    }
    static cuzk_g1_affine t1[CUZK_EC_FB_ENTRIES];
    static cuzk_g2_affine t2[CUZK_EC_FB_ENTRIES];
    cuzk_g1 p1, r1, s1;
    cuzk_g2 p2, r2, s2;
    cuzk_fr k;
    cuzk_g1_generator(&p1);
    cuzk_g2_generator(&p2);
    cuzk_g1_fixed_table_var(t1, &p1);
    cuzk_g2_fixed_table_var(t2, &p2);
    fr_random(&k);
    cuzk_g1_mul_var(&s1, &p1, &k);
    cuzk_g2_mul_var(&s2, &p2, &k);
    unsigned long before = VALGRIND_COUNT_ERRORS;
    VALGRIND_MAKE_MEM_UNDEFINED(&k, sizeof k);
    cuzk_g1_mul_fixed(&r1, t1, &k);
    cuzk_g2_mul_fixed(&r2, t2, &k);
    cuzk_fr kb[3] = {k, k, CUZK_FR_ONE};
    cuzk_g1_affine b1[3];
    cuzk_g2_affine b2[3];
    cuzk_fr_sub(&kb[1], &kb[1], &CUZK_FR_ONE);
    VALGRIND_MAKE_MEM_UNDEFINED(kb, sizeof kb);
    static uint64_t scratch[1 << 15]; /* 256 KiB > both scratch sizes */
    CHECK(cuzk_g2_mul_fixed_batch_scratch_size() <= sizeof scratch);
    cuzk_g1_mul_fixed_batch(b1, t1, kb, 3, scratch);
    cuzk_g2_mul_fixed_batch(b2, t2, kb, 3, scratch);
    VALGRIND_MAKE_MEM_DEFINED(b1, sizeof b1);
    VALGRIND_MAKE_MEM_DEFINED(b2, sizeof b2);
    VALGRIND_MAKE_MEM_DEFINED(kb, sizeof kb);
    VALGRIND_MAKE_MEM_DEFINED(&r1, sizeof r1);
    VALGRIND_MAKE_MEM_DEFINED(&r2, sizeof r2);
    VALGRIND_MAKE_MEM_DEFINED(&k, sizeof k);
    CHECK(VALGRIND_COUNT_ERRORS == before);
    CHECK(cuzk_g1_eq(&r1, &s1));
    CHECK(cuzk_g2_eq(&r2, &s2));
    cuzk_g1_affine a1;
    cuzk_g2_affine a2;
    cuzk_g1_to_affine(&a1, &s1);
    cuzk_g2_to_affine(&a2, &s2);
    CHECK(cuzk_g1_affine_eq(&b1[0], &a1));
    CHECK(cuzk_g2_affine_eq(&b2[0], &a2));
#else
    test_skip("built without valgrind/memcheck.h");
#endif
}

static const test_case tests[] = {
    {"g1_mul_fixed", test_g1_mul_fixed},
    {"g2_mul_fixed", test_g2_mul_fixed},
    {"mul_fixed_batch", test_mul_fixed_batch},
    {"mul_fixed_many_var", test_mul_fixed_many_var},
    {"mul_fixed_consttime", test_mul_fixed_consttime},
};

TEST_MAIN(tests)
