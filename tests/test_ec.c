/* Tests of G1 (src/ec/g1.c, encode.c, scalar.c): group law, scalar
 * multiplication, subgroup check and zcash encodings, against slow
 * obviously-correct references written here (affine formulas with one
 * inversion per step, plain double-and-add over the integer), OpenSSL BN for
 * the scalar recodings, and the generator's published encodings.  G2 is in
 * test_ec_g2.c. */
#include <openssl/bn.h>
#include <string.h>

#include "cuzk/ec.h"
#include "ec/ec_internal.h"
#include "ec_common.h"
#include "harness.h"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_MEMCHECK 1
#endif

/* ===== G1 reference arithmetic ============================================ */
static void g1_ref_add(cuzk_g1_affine *r, const cuzk_g1_affine *p, const cuzk_g1_affine *q)
{
    cuzk_fp l, t, x3, y3;
    if (cuzk_g1_affine_is_inf(p)) { *r = *q; return; }
    if (cuzk_g1_affine_is_inf(q)) { *r = *p; return; }
    if (cuzk_fp_eq(&p->x, &q->x)) {
        cuzk_fp_add(&t, &p->y, &q->y);
        if (cuzk_fp_is_zero(&t)) { r->x = r->y = CUZK_FP_ZERO; return; }
        cuzk_fp_sqr(&l, &p->x); /* 3 x^2 / 2 y */
        cuzk_fp_dbl(&t, &l);
        cuzk_fp_add(&l, &l, &t);
        cuzk_fp_dbl(&t, &p->y);
    } else {
        cuzk_fp_sub(&l, &q->y, &p->y);
        cuzk_fp_sub(&t, &q->x, &p->x);
    }
    cuzk_fp_inv(&t, &t);
    cuzk_fp_mul(&l, &l, &t);
    cuzk_fp_sqr(&x3, &l);
    cuzk_fp_sub(&x3, &x3, &p->x);
    cuzk_fp_sub(&x3, &x3, &q->x);
    cuzk_fp_sub(&t, &p->x, &x3);
    cuzk_fp_mul(&y3, &l, &t);
    cuzk_fp_sub(&y3, &y3, &p->y);
    r->x = x3;
    r->y = y3;
}

/* r = k p for the integer k (n limbs), left-to-right double-and-add. */
static void g1_ref_mul(cuzk_g1_affine *r, const cuzk_g1_affine *p, const uint64_t *k, int n)
{
    cuzk_g1_affine acc = {CUZK_FP_ZERO, CUZK_FP_ZERO};
    for (int i = 64 * n - 1; i >= 0; i--) {
        g1_ref_add(&acc, &acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) g1_ref_add(&acc, &acc, p);
    }
    *r = acc;
}

/* A random point of E(Fp), usually outside G1 (cofactor not cleared). */
static void g1_random_curve_point(cuzk_g1_affine *p)
{
    cuzk_fp x, y, rhs;
    for (;;) {
        fp_random(&x);
        cuzk_fp_sqr(&rhs, &x);
        cuzk_fp_mul(&rhs, &rhs, &x);
        cuzk_fp_add(&rhs, &rhs, &CUZK_G1_B);
        if (cuzk_fp_sqrt(&y, &rhs)) break;
    }
    if (test_rand64() & 1) cuzk_fp_neg(&y, &y);
    p->x = x;
    p->y = y;
}

static void g1_random_subgroup_point(cuzk_g1_affine *p)
{
    cuzk_g1 g, t;
    cuzk_fr k;
    fr_random(&k);
    cuzk_g1_generator(&g);
    cuzk_g1_mul_var(&t, &g, &k);
    cuzk_g1_to_affine(p, &t);
}

/* Same point with a random Z. */
static void g1_random_jacobian(cuzk_g1 *r, const cuzk_g1_affine *p)
{
    cuzk_fp z, z2, z3;
    cuzk_g1_from_affine(r, p);
    if (cuzk_g1_is_inf(r)) return;
    fp_random(&z);
    cuzk_fp_sqr(&z2, &z);
    cuzk_fp_mul(&z3, &z2, &z);
    cuzk_fp_mul(&r->x, &p->x, &z2);
    cuzk_fp_mul(&r->y, &p->y, &z3);
    r->z = z;
}

static int g1_jac_eq_affine(const cuzk_g1 *p, const cuzk_g1_affine *q)
{
    cuzk_g1_affine a;
    cuzk_g1_to_affine(&a, p);
    return cuzk_g1_affine_eq(&a, q);
}

/* ===== scalar recodings ==================================================== */
static void test_scalar_split(void)
{
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *k = BN_new(), *acc = BN_new(), *xb = BN_new(), *d = BN_new();
    CHECK(ctx && k && acc && xb && d);
    BN_set_word(xb, CUZK_EC_X_ABS);
    /* the Moller-Granlund reciprocal used by scalar.c */
    BIGNUM *v = BN_new();
    BN_zero(v);
    BN_set_bit(v, 128);
    BN_sub_word(v, 1);
    BN_div(v, NULL, v, xb, ctx);
    BN_clear_bit(v, 64);
    CHECK(BN_num_bits(v) <= 64 && BN_get_word(v) == 0x381204ca56cd56b5ull);
    int n = 2000 * test_iterations;
    for (int i = 0; i < n; i++) {
        cuzk_fr s;
        uint64_t l[4], dg[4];
        uint8_t be[32];
        scalar_case(&s, i);
        cuzk_fr_to_limbs(l, &s);
        for (int j = 0; j < 4; j++)
            for (int b = 0; b < 8; b++) be[31 - 8 * j - b] = (uint8_t)(l[j] >> (8 * b));
        BN_bin2bn(be, 32, k);
        cuzk_ec_split_x(dg, &s);
        BN_zero(acc);
        for (int j = 3; j >= 0; j--) { /* Horner: acc = acc |x| + d_j */
            CHECK(dg[j] < CUZK_EC_X_ABS);
            BN_mul(acc, acc, xb, ctx);
            BN_set_word(d, dg[j]);
            BN_add(acc, acc, d);
        }
        CHECK(BN_cmp(acc, k) == 0);
    }
    BN_free(v);
    BN_free(k);
    BN_free(acc);
    BN_free(xb);
    BN_free(d);
    BN_CTX_free(ctx);
}

static void test_scalar_recode(void)
{
    int n = 2000 * test_iterations;
    for (int i = 0; i < n; i++) {
        unsigned __int128 k = ((unsigned __int128)test_rand64() << 64) | test_rand64();
        if (i == 0) k = 0;
        if (i == 1) k = ~(unsigned __int128)0;
        if (i == 2) k = ((unsigned __int128)1 << 127) + 15;
        if (i > 2 && (i & 1)) k >>= test_rand64() % 128;
        int8_t ct[26], naf[130];
        cuzk_ec_recode_ct(ct, 26, k);
        unsigned __int128 acc = 0;
        for (int j = 25; j >= 0; j--) {
            CHECK(ct[j] >= -16 && ct[j] <= 16);
            acc = acc * 32 + (unsigned __int128)(__int128)ct[j];
        }
        CHECK(acc == k);
        if (k > ~(unsigned __int128)0 - 32) continue;
        for (int w = 2; w <= 7; w++) {
            size_t len = cuzk_ec_wnaf_var(naf, k, w);
            CHECK(len <= 129);
            acc = 0;
            size_t last = 0;
            int seen = 0;
            for (size_t j = len; j-- > 0;) {
                acc = acc * 2 + (unsigned __int128)(__int128)naf[j];
                if (naf[j]) {
                    CHECK((naf[j] & 1) && naf[j] < (1 << (w - 1)) && naf[j] > -(1 << (w - 1)));
                    if (seen) CHECK(last - j >= (size_t)w);
                    last = j;
                    seen = 1;
                }
            }
            CHECK(acc == k);
        }
    }
}

/* ===== G1 ================================================================== */
static void test_g1_constants(void)
{
    cuzk_g1_affine g, t;
    cuzk_g1 gj, pj;
    cuzk_g1_affine_generator(&g);
    CHECK(cuzk_g1_affine_is_on_curve(&g));
    g1_ref_mul(&t, &g, R_LIMBS, 4);
    CHECK(cuzk_g1_affine_is_inf(&t));
    /* b = 4 */
    cuzk_fp four;
    cuzk_fp_from_u64(&four, 4);
    CHECK(cuzk_fp_eq(&four, &CUZK_G1_B));
    /* phi = [-x^2] on the generator, and phi^3 = id with phi != id */
    unsigned __int128 z = (unsigned __int128)CUZK_EC_X_ABS * CUZK_EC_X_ABS;
    uint64_t zl[2] = {(uint64_t)z, (uint64_t)(z >> 64)};
    cuzk_g1_affine zg;
    g1_ref_mul(&zg, &g, zl, 2);
    cuzk_g1_affine_neg(&zg, &zg);
    cuzk_g1_generator(&gj);
    cuzk_g1_phi(&pj, &gj);
    CHECK(g1_jac_eq_affine(&pj, &zg));
    CHECK(!cuzk_g1_eq(&pj, &gj));
    cuzk_g1_phi(&pj, &pj);
    cuzk_g1_phi(&pj, &pj);
    CHECK(cuzk_g1_eq(&pj, &gj));
}

static void test_g1_group_law(void)
{
    int n = 100 * test_iterations;
    for (int i = 0; i < n; i++) {
        cuzk_g1_affine a, b, c, ab, bc, abc, ref, a2, inf = {CUZK_FP_ZERO, CUZK_FP_ZERO};
        cuzk_g1 pa, pb, pc, s, t, u;
        /* a mix of subgroup and non-subgroup points: the formulas do not care */
        if (i & 1) { g1_random_subgroup_point(&a); g1_random_subgroup_point(&b); }
        else { g1_random_curve_point(&a); g1_random_curve_point(&b); }
        g1_random_curve_point(&c);
        g1_random_jacobian(&pa, &a);
        g1_random_jacobian(&pb, &b);
        g1_random_jacobian(&pc, &c);
        CHECK(cuzk_g1_is_on_curve(&pa) && cuzk_g1_is_on_curve(&pb));
        g1_ref_add(&ab, &a, &b);
        g1_ref_add(&bc, &b, &c);
        g1_ref_add(&abc, &ab, &c);
        cuzk_g1_add(&s, &pa, &pb);
        CHECK(g1_jac_eq_affine(&s, &ab) && cuzk_g1_is_on_curve(&s));
        cuzk_g1_add(&t, &pb, &pa); /* commutative */
        CHECK(cuzk_g1_eq(&s, &t));
        cuzk_g1_add_var(&t, &pa, &pb);
        CHECK(cuzk_g1_eq(&s, &t));
        cuzk_g1_add_affine(&t, &pa, &b); /* mixed == full */
        CHECK(cuzk_g1_eq(&s, &t));
        cuzk_g1_add_affine_var(&t, &pa, &b);
        CHECK(cuzk_g1_eq(&s, &t));
        cuzk_g1_add(&s, &s, &pc); /* (a+b)+c == a+(b+c) == ref */
        cuzk_g1_add(&t, &pb, &pc);
        cuzk_g1_add(&t, &pa, &t);
        CHECK(cuzk_g1_eq(&s, &t) && g1_jac_eq_affine(&s, &abc));
        /* doubling: dbl == add(p, p) == ref, also through add with another Z */
        g1_ref_add(&a2, &a, &a);
        cuzk_g1_dbl(&s, &pa);
        CHECK(g1_jac_eq_affine(&s, &a2));
        g1_random_jacobian(&u, &a);
        cuzk_g1_add(&t, &pa, &u);
        CHECK(cuzk_g1_eq(&s, &t));
        cuzk_g1_add_var(&t, &pa, &u);
        CHECK(cuzk_g1_eq(&s, &t));
        cuzk_g1_add_affine(&t, &pa, &a);
        CHECK(cuzk_g1_eq(&s, &t));
        cuzk_g1_add_affine_var(&t, &pa, &a);
        CHECK(cuzk_g1_eq(&s, &t));
        /* inverse: p + (-p) = O in every variant */
        cuzk_g1_neg(&u, &pa);
        cuzk_g1_add(&t, &pa, &u);
        CHECK(cuzk_g1_is_inf(&t));
        cuzk_g1_add_var(&t, &u, &pa);
        CHECK(cuzk_g1_is_inf(&t));
        cuzk_g1_affine_neg(&ref, &a);
        cuzk_g1_add_affine(&t, &pa, &ref);
        CHECK(cuzk_g1_is_inf(&t));
        cuzk_g1_add_affine_var(&t, &pa, &ref);
        CHECK(cuzk_g1_is_inf(&t));
        /* identity, in both operand positions and for dbl */
        cuzk_g1_set_inf(&u);
        cuzk_g1_add(&t, &pa, &u);
        CHECK(cuzk_g1_eq(&t, &pa));
        cuzk_g1_add(&t, &u, &pa);
        CHECK(cuzk_g1_eq(&t, &pa));
        cuzk_g1_add_var(&t, &u, &pa);
        CHECK(cuzk_g1_eq(&t, &pa));
        cuzk_g1_add(&t, &u, &u);
        CHECK(cuzk_g1_is_inf(&t));
        cuzk_g1_dbl(&t, &u);
        CHECK(cuzk_g1_is_inf(&t));
        cuzk_g1_add_affine(&t, &pa, &inf);
        CHECK(cuzk_g1_eq(&t, &pa));
        cuzk_g1_add_affine(&t, &u, &a);
        CHECK(g1_jac_eq_affine(&t, &a));
        cuzk_g1_add_affine(&t, &u, &inf);
        CHECK(cuzk_g1_is_inf(&t));
        cuzk_g1_add_affine_var(&t, &u, &a);
        CHECK(g1_jac_eq_affine(&t, &a));
        /* eq: different Z, same point; different points; infinity */
        CHECK(cuzk_g1_eq(&pa, &pa) && !cuzk_g1_eq(&pa, &pb) && !cuzk_g1_eq(&pa, &u) && !cuzk_g1_eq(&u, &pa));
        cuzk_g1_neg(&t, &pa);
        CHECK(!cuzk_g1_eq(&pa, &t));
        /* aliasing: r == p == q */
        t = pa;
        cuzk_g1_add(&t, &t, &t);
        CHECK(g1_jac_eq_affine(&t, &a2));
        t = pa;
        cuzk_g1_dbl(&t, &t);
        CHECK(g1_jac_eq_affine(&t, &a2));
    }
}

static void test_g1_affine_conversions(void)
{
    cuzk_g1 in[9];
    cuzk_g1_affine ref[9], out[9];
    for (int i = 0; i < 9; i++) {
        if (i % 4 == 1) ref[i].x = ref[i].y = CUZK_FP_ZERO;
        else g1_random_curve_point(&ref[i]);
        g1_random_jacobian(&in[i], &ref[i]);
        if (i == 5) cuzk_g1_set_inf(&in[i]);
        if (i == 5) ref[i].x = ref[i].y = CUZK_FP_ZERO;
    }
    cuzk_g1_batch_to_affine_var(out, in, 9);
    for (int i = 0; i < 9; i++) {
        CHECK(cuzk_g1_affine_eq(&out[i], &ref[i]));
        cuzk_g1_affine one;
        cuzk_g1_to_affine(&one, &in[i]);
        CHECK(cuzk_g1_affine_eq(&one, &ref[i]));
        CHECK(cuzk_g1_affine_is_on_curve(&one));
        cuzk_g1 back;
        cuzk_g1_from_affine(&back, &ref[i]);
        CHECK(cuzk_g1_eq(&back, &in[i]));
        CHECK(cuzk_g1_is_inf(&back) == cuzk_g1_affine_is_inf(&ref[i]));
    }
    cuzk_g1_batch_to_affine_var(out, in, 0); /* n = 0 is fine */
    /* a point off the curve is reported as such */
    cuzk_g1_affine bad = ref[0];
    cuzk_fp_add(&bad.y, &bad.y, &CUZK_FP_ONE);
    CHECK(!cuzk_g1_affine_is_on_curve(&bad));
    cuzk_g1 badj;
    g1_random_jacobian(&badj, &bad);
    CHECK(!cuzk_g1_is_on_curve(&badj));
}

static void test_g1_mul(void)
{
    int n = N_EDGE_SCALARS + 40 * test_iterations;
    for (int i = 0; i < n; i++) {
        cuzk_g1_affine p, ref;
        cuzk_g1 pj, a, b;
        cuzk_fr k;
        uint64_t kl[4];
        scalar_case(&k, i);
        cuzk_fr_to_limbs(kl, &k);
        if (i % 5 == 4) cuzk_g1_affine_generator(&p);
        else g1_random_subgroup_point(&p);
        g1_random_jacobian(&pj, &p);
        g1_ref_mul(&ref, &p, kl, 4);
        cuzk_g1_mul(&a, &pj, &k);
        cuzk_g1_mul_var(&b, &pj, &k);
        CHECK(g1_jac_eq_affine(&a, &ref));
        CHECK(g1_jac_eq_affine(&b, &ref));
        /* infinity in, infinity out */
        cuzk_g1_set_inf(&pj);
        cuzk_g1_mul(&a, &pj, &k);
        cuzk_g1_mul_var(&b, &pj, &k);
        CHECK(cuzk_g1_is_inf(&a) && cuzk_g1_is_inf(&b));
    }
    /* k P + m P == (k + m) P; aliasing r == p */
    for (int i = 0; i < 20 * test_iterations; i++) {
        cuzk_g1_affine p;
        cuzk_g1 pj, a, b, c;
        cuzk_fr k, m, km;
        g1_random_subgroup_point(&p);
        cuzk_g1_from_affine(&pj, &p);
        fr_random(&k);
        scalar_case(&m, i % N_EDGE_SCALARS);
        cuzk_fr_add(&km, &k, &m);
        cuzk_g1_mul(&a, &pj, &k);
        cuzk_g1_mul_var(&b, &pj, &m);
        cuzk_g1_add(&a, &a, &b);
        c = pj;
        cuzk_g1_mul(&c, &c, &km);
        CHECK(cuzk_g1_eq(&a, &c));
        c = pj;
        cuzk_g1_mul_var(&c, &c, &km);
        CHECK(cuzk_g1_eq(&a, &c));
    }
}

static void test_g1_subgroup(void)
{
    int n = 30 * test_iterations, outside = 0;
    for (int i = 0; i < n; i++) {
        cuzk_g1_affine p, t, q;
        cuzk_g1 pj;
        g1_random_curve_point(&p);
        /* the relation the check's proof rests on: phi^2 + phi + 1 = 0 on E */
        cuzk_g1 f1, f2, s;
        g1_random_jacobian(&pj, &p);
        cuzk_g1_phi(&f1, &pj);
        cuzk_g1_phi(&f2, &f1);
        cuzk_g1_add(&s, &f1, &f2);
        cuzk_g1_add(&s, &s, &pj);
        CHECK(cuzk_g1_is_inf(&s));
        /* fast check == slow definition on a random curve point */
        g1_ref_mul(&t, &p, R_LIMBS, 4);
        bool slow = cuzk_g1_affine_is_inf(&t);
        outside += !slow;
        CHECK(cuzk_g1_affine_in_subgroup(&p) == slow);
        CHECK(cuzk_g1_in_subgroup(&pj) == slow);
        /* t = r p is a pure torsion point outside G1 (unless O): G + t fails */
        g1_random_subgroup_point(&q);
        CHECK(cuzk_g1_affine_in_subgroup(&q));
        if (!cuzk_g1_affine_is_inf(&t)) {
            cuzk_g1_affine u;
            g1_ref_add(&u, &q, &t);
            CHECK(!cuzk_g1_affine_in_subgroup(&u));
            CHECK(!cuzk_g1_affine_in_subgroup(&t));
        }
    }
    CHECK(outside > 0); /* a random point lies in G1 with probability 1/h */
    cuzk_g1_affine inf = {CUZK_FP_ZERO, CUZK_FP_ZERO};
    CHECK(cuzk_g1_affine_in_subgroup(&inf));
}

/* ===== G1 encodings ======================================================== */
static void test_g1_encoding_generator(void)
{
    uint8_t c[48], u[96], got[96];
    hex_to(c, 48, "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    hex_to(u, 96, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
                  "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    cuzk_g1_affine g, p;
    cuzk_g1_affine_generator(&g);
    CHECK(cuzk_g1_decompress(&p, c) == CUZK_OK && cuzk_g1_affine_eq(&p, &g));
    CHECK(cuzk_g1_deserialize(&p, u) == CUZK_OK && cuzk_g1_affine_eq(&p, &g));
    CHECK(cuzk_g1_decode(&p, c, 48) == CUZK_OK && cuzk_g1_affine_eq(&p, &g));
    CHECK(cuzk_g1_decode(&p, u, 96) == CUZK_OK && cuzk_g1_affine_eq(&p, &g));
    cuzk_g1_compress(got, &g);
    CHECK(!memcmp(got, c, 48));
    cuzk_g1_serialize(got, &g);
    CHECK(!memcmp(got, u, 96));
}

static void test_g1_encoding_roundtrip(void)
{
    int n = 20 * test_iterations;
    for (int i = 0; i < n; i++) {
        cuzk_g1_affine p, q;
        uint8_t c[48], u[96];
        if (i == 0) p.x = p.y = CUZK_FP_ZERO;
        else g1_random_subgroup_point(&p);
        cuzk_g1_compress(c, &p);
        cuzk_g1_serialize(u, &p);
        CHECK((c[0] & 0x80) && !(u[0] & 0x80));
        CHECK(cuzk_g1_decompress(&q, c) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
        CHECK(cuzk_g1_deserialize(&q, u) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
        CHECK(cuzk_g1_decompress_unchecked(&q, c) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
        CHECK(cuzk_g1_deserialize_unchecked(&q, u) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
        /* the sign bit selects -p (p != O) */
        if (i) {
            cuzk_g1_affine np;
            cuzk_g1_affine_neg(&np, &p);
            c[0] ^= 0x20;
            CHECK(cuzk_g1_decompress(&q, c) == CUZK_OK && cuzk_g1_affine_eq(&np, &q));
            c[0] ^= 0x20;
        }
        /* flipping any single bit never yields p again */
        for (int f = 0; f < 8; f++) {
            size_t bit = test_rand64() % (48 * 8), bitu = test_rand64() % (96 * 8);
            c[bit / 8] ^= (uint8_t)(1 << (bit % 8));
            u[bitu / 8] ^= (uint8_t)(1 << (bitu % 8));
            CHECK(cuzk_g1_decompress(&q, c) != CUZK_OK || !cuzk_g1_affine_eq(&p, &q));
            CHECK(cuzk_g1_deserialize(&q, u) != CUZK_OK || !cuzk_g1_affine_eq(&p, &q));
            c[bit / 8] ^= (uint8_t)(1 << (bit % 8));
            u[bitu / 8] ^= (uint8_t)(1 << (bitu % 8));
        }
    }
}

static void test_g1_encoding_rejects(void)
{
    cuzk_g1_affine g, p, q;
    uint8_t c[48], u[96], b[96];
    cuzk_g1_affine_generator(&g);
    cuzk_g1_compress(c, &g);
    cuzk_g1_serialize(u, &g);
    /* length */
    CHECK(cuzk_g1_decode(&p, c, 47) == CUZK_ERR_ENC_LENGTH);
    CHECK(cuzk_g1_decode(&p, u, 95) == CUZK_ERR_ENC_LENGTH);
    CHECK(cuzk_g1_decode(&p, u, 0) == CUZK_ERR_ENC_LENGTH);
    /* compression flag vs length */
    memcpy(b, c, 48);
    b[0] &= 0x7f;
    CHECK(cuzk_g1_decompress(&p, b) == CUZK_ERR_ENC_COMPRESSION);
    CHECK(cuzk_g1_decode(&p, b, 48) == CUZK_ERR_ENC_COMPRESSION);
    memcpy(b, u, 96);
    b[0] |= 0x80;
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_COMPRESSION);
    CHECK(cuzk_g1_deserialize_unchecked(&p, b) == CUZK_ERR_ENC_COMPRESSION);
    /* sign flag on an uncompressed point and on infinity */
    memcpy(b, u, 96);
    b[0] |= 0x20;
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_SIGN);
    memset(b, 0, 96);
    b[0] = 0x40 | 0x20;
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_SIGN);
    b[0] = 0x80 | 0x40 | 0x20;
    CHECK(cuzk_g1_decompress(&p, b) == CUZK_ERR_ENC_SIGN);
    /* infinity flag with other bits */
    b[0] = 0xc0;
    CHECK(cuzk_g1_decompress(&p, b) == CUZK_OK && cuzk_g1_affine_is_inf(&p));
    b[47] = 1;
    CHECK(cuzk_g1_decompress(&p, b) == CUZK_ERR_ENC_INFINITY);
    b[47] = 0;
    b[0] = 0xc1;
    CHECK(cuzk_g1_decompress(&p, b) == CUZK_ERR_ENC_INFINITY);
    memset(b, 0, 96);
    b[0] = 0x40;
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_OK && cuzk_g1_affine_is_inf(&p));
    b[95] = 0x80;
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_INFINITY);
    memcpy(b, u, 96);
    b[0] |= 0x40;
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_INFINITY);
    /* all-zero uncompressed without the infinity flag is not a point */
    memset(b, 0, 96);
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
    /* coordinates >= p after masking the flags */
    do g1_random_subgroup_point(&q); /* x + p < 2^381 for about 1 x in 4 */
    while (!fp_to_be_plus_p(b, &q.x));
    b[0] |= 0x80;
    CHECK(cuzk_g1_decompress(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
    b[0] &= 0x7f;
    cuzk_fp_to_bytes_be(b + 48, &q.y);
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
    memcpy(b, u, 48);
    fp_to_be_plus_p(b + 48, &g.y);
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
    CHECK(cuzk_g1_deserialize_unchecked(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
    memset(b, 0xff, 48); /* 2^381 - 1 with all flags */
    b[0] = 0xbf;
    CHECK(cuzk_g1_decompress(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
    /* x with no y; (x, y) off the curve */
    for (;;) {
        cuzk_fp x, rhs, y;
        fp_random(&x);
        cuzk_fp_sqr(&rhs, &x);
        cuzk_fp_mul(&rhs, &rhs, &x);
        cuzk_fp_add(&rhs, &rhs, &CUZK_G1_B);
        if (cuzk_fp_sqrt(&y, &rhs)) continue;
        cuzk_fp_to_bytes_be(b, &x);
        b[0] |= 0x80;
        CHECK(cuzk_g1_decompress(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
        CHECK(cuzk_g1_decompress_unchecked(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
        break;
    }
    memcpy(b, u, 96);
    b[95] ^= 1;
    CHECK(cuzk_g1_deserialize(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
    CHECK(cuzk_g1_deserialize_unchecked(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
    /* on the curve, outside G1: only the checked decoders refuse */
    int tries = 0; /* a random curve point is outside the subgroup w.p. 1 - 1/h */
    do g1_random_curve_point(&q);
    while (cuzk_g1_affine_in_subgroup(&q) && ++tries < 50);
    CHECK(tries < 50);
    cuzk_g1_compress(c, &q);
    cuzk_g1_serialize(u, &q);
    CHECK(cuzk_g1_decompress(&p, c) == CUZK_ERR_ENC_SUBGROUP);
    CHECK(cuzk_g1_deserialize(&p, u) == CUZK_ERR_ENC_SUBGROUP);
    CHECK(cuzk_g1_decode(&p, c, 48) == CUZK_ERR_ENC_SUBGROUP);
    CHECK(cuzk_g1_decode(&p, u, 96) == CUZK_ERR_ENC_SUBGROUP);
    CHECK(cuzk_g1_decompress_unchecked(&p, c) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
    CHECK(cuzk_g1_deserialize_unchecked(&p, u) == CUZK_OK && cuzk_g1_affine_eq(&p, &q));
}

/* Constant-time check in the style of libsecp256k1's valgrind_ctime_test:
 * under memcheck the scalar and the point are marked undefined, so any
 * branch or memory index that depends on them is reported as an error.
 * Run: valgrind build/bin/test_ec g1_mul_consttime (skipped otherwise). */
static void test_g1_mul_consttime(void)
{
#ifdef HAVE_MEMCHECK
    if (!RUNNING_ON_VALGRIND) {
        test_skip("needs valgrind (memcheck)");
        return;
    }
    cuzk_g1_affine a;
    cuzk_g1 p, r, s;
    cuzk_fr k;
    g1_random_subgroup_point(&a);
    cuzk_g1_from_affine(&p, &a);
    fr_random(&k);
    cuzk_g1_mul_var(&s, &p, &k);
    unsigned long before = VALGRIND_COUNT_ERRORS;
    VALGRIND_MAKE_MEM_UNDEFINED(&k, sizeof k);
    VALGRIND_MAKE_MEM_UNDEFINED(&p, sizeof p);
    cuzk_g1_mul(&r, &p, &k);
    cuzk_g1_add(&r, &r, &p);
    cuzk_g1_dbl(&r, &r);
    cuzk_g1_add_affine(&r, &r, &a);
    VALGRIND_MAKE_MEM_DEFINED(&r, sizeof r);
    VALGRIND_MAKE_MEM_DEFINED(&k, sizeof k);
    VALGRIND_MAKE_MEM_DEFINED(&p, sizeof p);
    CHECK(VALGRIND_COUNT_ERRORS == before);
    /* and the result is still right: 2 (k p + p) + p */
    cuzk_g1_add(&s, &s, &p);
    cuzk_g1_dbl(&s, &s);
    cuzk_g1_add(&s, &s, &p);
    CHECK(cuzk_g1_eq(&r, &s));
#else
    test_skip("built without valgrind/memcheck.h");
#endif
}

static const test_case tests[] = {
    {"scalar_split", test_scalar_split},
    {"scalar_recode", test_scalar_recode},
    {"g1_constants", test_g1_constants},
    {"g1_group_law", test_g1_group_law},
    {"g1_affine_conversions", test_g1_affine_conversions},
    {"g1_mul", test_g1_mul},
    {"g1_subgroup", test_g1_subgroup},
    {"g1_mul_consttime", test_g1_mul_consttime},
    {"g1_encoding_generator", test_g1_encoding_generator},
    {"g1_encoding_roundtrip", test_g1_encoding_roundtrip},
    {"g1_encoding_rejects", test_g1_encoding_rejects},
};

TEST_MAIN(tests)
