/* Fp / Fr tests against OpenSSL BN as the independent reference. */
#include <openssl/bn.h>
#include <string.h>

#include "cuzk/ff.h"
#include "cuzk/status.h"
#include "harness.h"

static BN_CTX *ctx;

static BIGNUM *bn_from_limbs(const uint64_t *l, int n)
{
    uint8_t be[48];
    for (int i = 0; i < 8 * n; i++) be[8 * n - 1 - i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
    return BN_bin2bn(be, 8 * n, NULL);
}

static void bn_to_limbs(uint64_t *l, int n, const BIGNUM *b)
{
    uint8_t be[48];
    CHECK(BN_bn2binpad(b, be, 8 * n) == 8 * n);
    memset(l, 0, 8 * (size_t)n);
    for (int i = 0; i < 8 * n; i++) l[i / 8] |= (uint64_t)be[8 * n - 1 - i] << (8 * (i % 8));
}

static void test_fp_mul_basic(void)
{
    BIGNUM *p = bn_from_limbs(CUZK_FP_MODULUS, 6);
    for (int it = 0; it < 1000 * test_iterations; it++) {
        uint64_t a[6], b[6], got[6], want[6];
        for (int i = 0; i < 6; i++) a[i] = test_rand64(), b[i] = test_rand64();
        a[5] &= 0x0fffffffffffffffull;
        b[5] &= 0x0fffffffffffffffull;
        cuzk_fp x, y, z;
        CHECK(cuzk_fp_from_limbs(&x, a) == CUZK_OK);
        CHECK(cuzk_fp_from_limbs(&y, b) == CUZK_OK);
        cuzk_fp_mul(&z, &x, &y);
        cuzk_fp_to_limbs(got, &z);
        BIGNUM *ba = bn_from_limbs(a, 6), *bb = bn_from_limbs(b, 6), *br = BN_new();
        BN_mod_mul(br, ba, bb, p, ctx);
        bn_to_limbs(want, 6, br);
        CHECK(memcmp(got, want, sizeof got) == 0);
        cuzk_fp_inv(&z, &x);
        cuzk_fp_mul(&z, &z, &x);
        CHECK(cuzk_fp_is_one(&z));
        BN_free(ba), BN_free(bb), BN_free(br);
    }
    BN_free(p);
}

static void test_fr_mul_basic(void)
{
    BIGNUM *m = bn_from_limbs(CUZK_FR_MODULUS, 4);
    for (int it = 0; it < 1000 * test_iterations; it++) {
        uint64_t a[4], b[4], got[4], want[4];
        for (int i = 0; i < 4; i++) a[i] = test_rand64(), b[i] = test_rand64();
        a[3] &= 0x3fffffffffffffffull;
        b[3] &= 0x3fffffffffffffffull;
        cuzk_fr x, y, z;
        CHECK(cuzk_fr_from_limbs(&x, a) == CUZK_OK);
        CHECK(cuzk_fr_from_limbs(&y, b) == CUZK_OK);
        cuzk_fr_mul(&z, &x, &y);
        cuzk_fr_to_limbs(got, &z);
        BIGNUM *ba = bn_from_limbs(a, 4), *bb = bn_from_limbs(b, 4), *br = BN_new();
        BN_mod_mul(br, ba, bb, m, ctx);
        bn_to_limbs(want, 4, br);
        CHECK(memcmp(got, want, sizeof got) == 0);
        cuzk_fr_sqr(&z, &x);
        cuzk_fr r;
        if (cuzk_fr_sqrt(&r, &z)) {
            cuzk_fr_sqr(&r, &r);
            CHECK(cuzk_fr_eq(&r, &z));
        } else {
            CHECK(0);
        }
        BN_free(ba), BN_free(bb), BN_free(br);
    }
    BN_free(m);
}

static void setup(void)
{
    if (!ctx) ctx = BN_CTX_new();
}

static void test_setup(void) { setup(); }

static const test_case tests[] = {
    {"setup", test_setup},
    {"fp_mul_basic", test_fp_mul_basic},
    {"fr_mul_basic", test_fr_mul_basic},
};

TEST_MAIN(tests)
