/* Tests of the optimal ate pairing.
 *
 * The group operations used to build test points are a slow affine
 * reference written here (one inversion per operation), independent of
 * src/ec, so the pairing is checked against nothing but the field layer:
 * bilinearity, order r, non-degeneracy, multi-pairing = product of
 * pairings, product_is_one, and the @noble/curves known answers in
 * tests/vectors/pairing.txt (decoded here from the zcash encoding). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/pairing.h"
#include "cuzk/status.h"
#include "harness.h"

/* ---- affine reference arithmetic ----------------------------------------- */
static void g1_ref_add(cuzk_g1_affine *r, const cuzk_g1_affine *p, const cuzk_g1_affine *q)
{
    int p_inf = cuzk_fp_is_zero(&p->x) && cuzk_fp_is_zero(&p->y);
    int q_inf = cuzk_fp_is_zero(&q->x) && cuzk_fp_is_zero(&q->y);
    if (p_inf) { *r = *q; return; }
    if (q_inf) { *r = *p; return; }
    cuzk_fp lam, t, x3, y3;
    if (cuzk_fp_eq(&p->x, &q->x)) {
        cuzk_fp_add(&t, &p->y, &q->y);
        if (cuzk_fp_is_zero(&t)) { *r = (cuzk_g1_affine){CUZK_FP_ZERO, CUZK_FP_ZERO}; return; }
        cuzk_fp_sqr(&lam, &p->x);               /* 3x^2 / 2y */
        cuzk_fp_add(&t, &lam, &lam);
        cuzk_fp_add(&lam, &t, &lam);
        cuzk_fp_dbl(&t, &p->y);
    } else {
        cuzk_fp_sub(&lam, &q->y, &p->y);
        cuzk_fp_sub(&t, &q->x, &p->x);
    }
    cuzk_fp_inv(&t, &t);
    cuzk_fp_mul(&lam, &lam, &t);
    cuzk_fp_sqr(&x3, &lam);
    cuzk_fp_sub(&x3, &x3, &p->x);
    cuzk_fp_sub(&x3, &x3, &q->x);
    cuzk_fp_sub(&t, &p->x, &x3);
    cuzk_fp_mul(&y3, &lam, &t);
    cuzk_fp_sub(&y3, &y3, &p->y);
    r->x = x3;
    r->y = y3;
}

static void g2_ref_add(cuzk_g2_affine *r, const cuzk_g2_affine *p, const cuzk_g2_affine *q)
{
    int p_inf = cuzk_fp2_is_zero(&p->x) && cuzk_fp2_is_zero(&p->y);
    int q_inf = cuzk_fp2_is_zero(&q->x) && cuzk_fp2_is_zero(&q->y);
    if (p_inf) { *r = *q; return; }
    if (q_inf) { *r = *p; return; }
    cuzk_fp2 lam, t, x3, y3;
    if (cuzk_fp2_eq(&p->x, &q->x)) {
        cuzk_fp2_add(&t, &p->y, &q->y);
        if (cuzk_fp2_is_zero(&t)) { *r = (cuzk_g2_affine){CUZK_FP2_ZERO, CUZK_FP2_ZERO}; return; }
        cuzk_fp2_sqr(&lam, &p->x);
        cuzk_fp2_add(&t, &lam, &lam);
        cuzk_fp2_add(&lam, &t, &lam);
        cuzk_fp2_dbl(&t, &p->y);
    } else {
        cuzk_fp2_sub(&lam, &q->y, &p->y);
        cuzk_fp2_sub(&t, &q->x, &p->x);
    }
    cuzk_fp2_inv(&t, &t);
    cuzk_fp2_mul(&lam, &lam, &t);
    cuzk_fp2_sqr(&x3, &lam);
    cuzk_fp2_sub(&x3, &x3, &p->x);
    cuzk_fp2_sub(&x3, &x3, &q->x);
    cuzk_fp2_sub(&t, &p->x, &x3);
    cuzk_fp2_mul(&y3, &lam, &t);
    cuzk_fp2_sub(&y3, &y3, &p->y);
    r->x = x3;
    r->y = y3;
}

/* k given as little-endian limbs; double-and-add from the top. */
static void g1_ref_mul(cuzk_g1_affine *r, const cuzk_g1_affine *p, const uint64_t *k, int n)
{
    cuzk_g1_affine acc = {CUZK_FP_ZERO, CUZK_FP_ZERO};
    for (int i = n - 1; i >= 0; i--)
        for (int b = 63; b >= 0; b--) {
            g1_ref_add(&acc, &acc, &acc);
            if ((k[i] >> b) & 1) g1_ref_add(&acc, &acc, p);
        }
    *r = acc;
}

static void g2_ref_mul(cuzk_g2_affine *r, const cuzk_g2_affine *p, const uint64_t *k, int n)
{
    cuzk_g2_affine acc = {CUZK_FP2_ZERO, CUZK_FP2_ZERO};
    for (int i = n - 1; i >= 0; i--)
        for (int b = 63; b >= 0; b--) {
            g2_ref_add(&acc, &acc, &acc);
            if ((k[i] >> b) & 1) g2_ref_add(&acc, &acc, p);
        }
    *r = acc;
}

/* ---- decoding (zcash uncompressed form, flags in the top 3 bits) --------- */
static int fp_from_hex(cuzk_fp *r, const char *hex, int mask_flags)
{
    uint8_t b[48];
    if (test_hex_decode(b, 48, hex, 96) != 48) return -1;
    if (mask_flags) b[0] &= 0x1f;
    return cuzk_fp_from_bytes_be(r, b);
}

static int g1_from_hex(cuzk_g1_affine *p, const char *hex)
{
    if (strlen(hex) != 192) return -1;
    int ok = fp_from_hex(&p->x, hex, 1) | fp_from_hex(&p->y, hex + 96, 0);
    if (strtol((char[]){hex[0], 0}, NULL, 16) & 4) p->x = p->y = CUZK_FP_ZERO; /* infinity */
    return ok;
}

static int g2_from_hex(cuzk_g2_affine *q, const char *hex)
{
    if (strlen(hex) != 384) return -1;
    int ok = fp_from_hex(&q->x.c1, hex, 1) | fp_from_hex(&q->x.c0, hex + 96, 0) |
             fp_from_hex(&q->y.c1, hex + 192, 0) | fp_from_hex(&q->y.c0, hex + 288, 0);
    if (strtol((char[]){hex[0], 0}, NULL, 16) & 4) q->x = q->y = CUZK_FP2_ZERO;
    return ok;
}

static const char G1_HEX[] =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
static const char G2_HEX[] =
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801";

static cuzk_g1_affine G1;
static cuzk_g2_affine G2;

static void setup_gens(void)
{
    CHECK(g1_from_hex(&G1, G1_HEX) == 0);
    CHECK(g2_from_hex(&G2, G2_HEX) == 0);
}

/* r = 0x73eda753...00000001 */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                    0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

static void rand_points(cuzk_g1_affine *p, cuzk_g2_affine *q)
{
    uint64_t a = test_rand64() | 1, b = test_rand64() | 1;
    g1_ref_mul(p, &G1, &a, 1);
    g2_ref_mul(q, &G2, &b, 1);
}

static void test_bilinearity(void)
{
    setup_gens();
    for (int it = 0; it < 2 * test_iterations; it++) {
        cuzk_g1_affine P, aP;
        cuzk_g2_affine Q, bQ;
        rand_points(&P, &Q);
        uint64_t a = test_rand64() >> 4, b = test_rand64() >> 4;
        g1_ref_mul(&aP, &P, &a, 1);
        g2_ref_mul(&bQ, &Q, &b, 1);
        cuzk_fp12 e, eab, lhs;
        cuzk_pairing(&e, &P, &Q);
        cuzk_pairing(&lhs, &aP, &bQ);
        unsigned __int128 ab = (unsigned __int128)a * b;
        uint64_t abl[2] = {(uint64_t)ab, (uint64_t)(ab >> 64)};
        cuzk_fp12_pow(&eab, &e, abl, 2);
        CHECK(cuzk_fp12_eq(&lhs, &eab));
        /* e(aP, Q) = e(P, aQ) */
        cuzk_g2_affine aQ;
        g2_ref_mul(&aQ, &Q, &a, 1);
        cuzk_fp12 x, y;
        cuzk_pairing(&x, &aP, &Q);
        cuzk_pairing(&y, &P, &aQ);
        CHECK(cuzk_fp12_eq(&x, &y));
        /* e(P1 + P2, Q) = e(P1, Q) e(P2, Q) */
        cuzk_g1_affine S;
        g1_ref_add(&S, &P, &aP);
        cuzk_pairing(&x, &S, &Q);
        cuzk_pairing(&y, &aP, &Q);
        cuzk_fp12_mul(&y, &y, &e);
        CHECK(cuzk_fp12_eq(&x, &y));
    }
}

static void test_order_nondegenerate(void)
{
    setup_gens();
    cuzk_fp12 e, t;
    cuzk_pairing(&e, &G1, &G2);
    CHECK(!cuzk_fp12_is_one(&e));
    cuzk_fp12_pow(&t, &e, R_LIMBS, 4);
    CHECK(cuzk_fp12_is_one(&t));
    /* in the cyclotomic subgroup: conj = inverse */
    cuzk_fp12_conj(&t, &e);
    cuzk_fp12_mul(&t, &t, &e);
    CHECK(cuzk_fp12_is_one(&t));
    /* r P = infinity for the reference (sanity of the test's own points) */
    cuzk_g1_affine z;
    g1_ref_mul(&z, &G1, R_LIMBS, 4);
    CHECK(cuzk_fp_is_zero(&z.x) && cuzk_fp_is_zero(&z.y));
    /* final_exp(1) = 1: every compressed run hits the D = 0 fallback */
    cuzk_final_exp(&t, &CUZK_FP12_ONE);
    CHECK(cuzk_fp12_is_one(&t));
    /* infinity pairs give 1 */
    cuzk_g1_affine inf1 = {CUZK_FP_ZERO, CUZK_FP_ZERO};
    cuzk_g2_affine inf2 = {CUZK_FP2_ZERO, CUZK_FP2_ZERO};
    cuzk_pairing(&t, &inf1, &G2);
    CHECK(cuzk_fp12_is_one(&t));
    cuzk_pairing(&t, &G1, &inf2);
    CHECK(cuzk_fp12_is_one(&t));
}

static void test_multi_pairing(void)
{
    setup_gens();
    enum { N = 19 }; /* more than one internal chunk of 16 */
    int n = test_iterations > 1 ? N : 4;
    cuzk_g1_affine p[N];
    cuzk_g2_affine q[N];
    cuzk_fp12 prod = CUZK_FP12_ONE, e, f;
    for (int i = 0; i < n; i++) {
        rand_points(&p[i], &q[i]);
        if (i == 2) p[i].x = p[i].y = CUZK_FP_ZERO;
        cuzk_pairing(&e, &p[i], &q[i]);
        cuzk_fp12_mul(&prod, &prod, &e);
    }
    cuzk_miller_loop_n(&f, q, p, (size_t)n);
    cuzk_final_exp(&f, &f);
    CHECK(cuzk_fp12_eq(&f, &prod));
    /* n = 1 equals the single loop; n = 0 gives 1 */
    cuzk_fp12 g;
    cuzk_miller_loop_n(&f, q, p, 1);
    cuzk_miller_loop(&g, q, p);
    CHECK(cuzk_fp12_eq(&f, &g));
    cuzk_miller_loop_n(&f, q, p, 0);
    CHECK(cuzk_fp12_is_one(&f));
}

static void test_product_is_one(void)
{
    setup_gens();
    cuzk_g1_affine p[3];
    cuzk_g2_affine q[3];
    rand_points(&p[0], &q[0]);
    p[1].x = p[0].x;
    cuzk_fp_neg(&p[1].y, &p[0].y);
    q[1] = q[0];
    CHECK(cuzk_pairing_product_is_one(p, q, 2));
    /* with an infinity pair in between */
    p[2] = p[1];
    q[2] = q[1];
    p[1].x = p[1].y = CUZK_FP_ZERO;
    CHECK(cuzk_pairing_product_is_one(p, q, 3));
    CHECK(!cuzk_pairing_product_is_one(p, q, 1));
    p[2] = p[0];
    CHECK(!cuzk_pairing_product_is_one(p, q, 3));
    CHECK(cuzk_pairing_product_is_one(p, q, 0));
    /* e(aP, Q) e(-P, aQ) = 1 */
    uint64_t a = test_rand64();
    g1_ref_mul(&p[0], &p[2], &a, 1);
    g2_ref_mul(&q[1], &q[2], &a, 1);
    p[1].x = p[2].x;
    cuzk_fp_neg(&p[1].y, &p[2].y);
    q[0] = q[2];
    CHECK(cuzk_pairing_product_is_one(p, q, 2));
}

/* ---- known answers from @noble/curves ------------------------------------ */
static char *next_tok(char **s)
{
    while (**s == ' ') (*s)++;
    if (!**s || **s == '\n') return NULL;
    char *t = *s;
    while (**s && **s != ' ' && **s != '\n') (*s)++;
    if (**s) *(*s)++ = 0;
    return t;
}

static void test_kat_pairing(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/vectors/pairing.txt", test_source_dir());
    size_t len;
    char *buf = (char *)test_read_file(path, &len);
    if (!buf) { test_skip("tests/vectors/pairing.txt missing"); return; }
    int seen = 0;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char *s = line, *op = next_tok(&s);
        if (op && !strcmp(op, "pairing")) {
            char *ph = next_tok(&s), *qh = next_tok(&s), *eh = next_tok(&s);
            cuzk_g1_affine P;
            cuzk_g2_affine Q;
            CHECK(ph && qh && eh && g1_from_hex(&P, ph) == 0 && g2_from_hex(&Q, qh) == 0);
            uint8_t want[576], got[576];
            CHECK(test_hex_decode(want, 576, eh, strlen(eh)) == 576);
            cuzk_fp12 e;
            cuzk_pairing(&e, &P, &Q);
            cuzk_fp12_to_bytes_be(got, &e);
            CHECK(memcmp(got, want, 576) == 0);
            seen++;
        } else if (op && !strcmp(op, "pairing_product")) {
            int one = atoi(next_tok(&s)), n = atoi(next_tok(&s));
            cuzk_g1_affine P[8];
            cuzk_g2_affine Q[8];
            CHECK(n >= 0 && n <= 8);
            for (int i = 0; i < n && i < 8; i++) {
                char *ph = next_tok(&s), *qh = next_tok(&s);
                CHECK(ph && qh && g1_from_hex(&P[i], ph) == 0 && g2_from_hex(&Q[i], qh) == 0);
            }
            CHECK(cuzk_pairing_product_is_one(P, Q, (size_t)n) == (one == 1));
            seen++;
        }
        line = nl ? nl + 1 : NULL;
    }
    CHECK(seen >= 20);
    free(buf);
}

static void test_kat_final_exp(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/vectors/ff.txt", test_source_dir());
    size_t len;
    char *buf = (char *)test_read_file(path, &len);
    if (!buf) { test_skip("tests/vectors/ff.txt missing"); return; }
    int seen = 0;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char *s = line, *op = next_tok(&s);
        if (op && !strcmp(op, "final_exp")) {
            char *fh = next_tok(&s), *rh = next_tok(&s);
            CHECK(fh && rh && strlen(fh) == 1152);
            cuzk_fp12 f, r;
            cuzk_fp *c[12] = {&f.c0.c0.c0, &f.c0.c0.c1, &f.c0.c1.c0, &f.c0.c1.c1,
                              &f.c0.c2.c0, &f.c0.c2.c1, &f.c1.c0.c0, &f.c1.c0.c1,
                              &f.c1.c1.c0, &f.c1.c1.c1, &f.c1.c2.c0, &f.c1.c2.c1};
            for (int i = 0; i < 12; i++) CHECK(fp_from_hex(c[i], fh + 96 * i, 0) == 0);
            uint8_t want[576], got[576];
            CHECK(test_hex_decode(want, 576, rh, strlen(rh)) == 576);
            cuzk_final_exp(&r, &f);
            cuzk_fp12_to_bytes_be(got, &r);
            CHECK(memcmp(got, want, 576) == 0);
            seen++;
        }
        line = nl ? nl + 1 : NULL;
    }
    CHECK(seen > 0);
    free(buf);
}

/* The portable limb path gives the same pairing as the ADX one. */
static void test_backends_agree(void)
{
    setup_gens();
    cuzk_fp12 e[2];
    for (int k = 0; k < 2; k++) {
        cuzk_ff_force_portable(k);
        cuzk_pairing(&e[k], &G1, &G2);
    }
    cuzk_ff_force_portable(0);
    CHECK(cuzk_fp12_eq(&e[0], &e[1]));
}

static const test_case tests[] = {
    {"kat_final_exp", test_kat_final_exp},
    {"kat_pairing", test_kat_pairing},
    {"bilinearity", test_bilinearity},
    {"order_nondegenerate", test_order_nondegenerate},
    {"multi_pairing", test_multi_pairing},
    {"product_is_one", test_product_is_one},
    {"backends_agree", test_backends_agree},
};

TEST_MAIN(tests)
