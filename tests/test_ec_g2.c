/* Tests of G2 (src/ec/g2.c, encode.c): group law, scalar multiplication,
 * subgroup check and zcash encodings against slow references (affine
 * formulas, double-and-add over the integer) and the generator's published
 * encodings.  Same structure as test_ec.c. */
#include <string.h>

#include "cuzk/ec.h"
#include "ec/ec_internal.h"
#include "ec_common.h"
#include "harness.h"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_MEMCHECK 1
#endif

static void fp2_random(cuzk_fp2 *a)
{
    fp_random(&a->c0);
    fp_random(&a->c1);
}

/* ===== G2 reference arithmetic ============================================ */
static void g2_ref_add(cuzk_g2_affine *r, const cuzk_g2_affine *p, const cuzk_g2_affine *q)
{
    cuzk_fp2 l, t, x3, y3;
    if (cuzk_g2_affine_is_inf(p)) { *r = *q; return; }
    if (cuzk_g2_affine_is_inf(q)) { *r = *p; return; }
    if (cuzk_fp2_eq(&p->x, &q->x)) {
        cuzk_fp2_add(&t, &p->y, &q->y);
        if (cuzk_fp2_is_zero(&t)) { r->x = r->y = CUZK_FP2_ZERO; return; }
        cuzk_fp2_sqr(&l, &p->x); /* 3 x^2 / 2 y */
        cuzk_fp2_dbl(&t, &l);
        cuzk_fp2_add(&l, &l, &t);
        cuzk_fp2_dbl(&t, &p->y);
    } else {
        cuzk_fp2_sub(&l, &q->y, &p->y);
        cuzk_fp2_sub(&t, &q->x, &p->x);
    }
    cuzk_fp2_inv(&t, &t);
    cuzk_fp2_mul(&l, &l, &t);
    cuzk_fp2_sqr(&x3, &l);
    cuzk_fp2_sub(&x3, &x3, &p->x);
    cuzk_fp2_sub(&x3, &x3, &q->x);
    cuzk_fp2_sub(&t, &p->x, &x3);
    cuzk_fp2_mul(&y3, &l, &t);
    cuzk_fp2_sub(&y3, &y3, &p->y);
    r->x = x3;
    r->y = y3;
}

/* r = k p for the integer k (n limbs), left-to-right double-and-add. */
static void g2_ref_mul(cuzk_g2_affine *r, const cuzk_g2_affine *p, const uint64_t *k, int n)
{
    cuzk_g2_affine acc = {CUZK_FP2_ZERO, CUZK_FP2_ZERO};
    for (int i = 64 * n - 1; i >= 0; i--) {
        g2_ref_add(&acc, &acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) g2_ref_add(&acc, &acc, p);
    }
    *r = acc;
}

/* A random point of E(Fp), usually outside G2 (cofactor not cleared). */
static void g2_random_curve_point(cuzk_g2_affine *p)
{
    cuzk_fp2 x, y, rhs;
    for (;;) {
        fp2_random(&x);
        cuzk_fp2_sqr(&rhs, &x);
        cuzk_fp2_mul(&rhs, &rhs, &x);
        cuzk_fp2_add(&rhs, &rhs, &CUZK_G2_B);
        if (cuzk_fp2_sqrt(&y, &rhs)) break;
    }
    if (test_rand64() & 1) cuzk_fp2_neg(&y, &y);
    p->x = x;
    p->y = y;
}

static void g2_random_subgroup_point(cuzk_g2_affine *p)
{
    cuzk_g2 g, t;
    cuzk_fr k;
    fr_random(&k);
    cuzk_g2_generator(&g);
    cuzk_g2_mul_var(&t, &g, &k);
    cuzk_g2_to_affine(p, &t);
}

/* Same point with a random Z. */
static void g2_random_jacobian(cuzk_g2 *r, const cuzk_g2_affine *p)
{
    cuzk_fp2 z, z2, z3;
    cuzk_g2_from_affine(r, p);
    if (cuzk_g2_is_inf(r)) return;
    fp2_random(&z);
    cuzk_fp2_sqr(&z2, &z);
    cuzk_fp2_mul(&z3, &z2, &z);
    cuzk_fp2_mul(&r->x, &p->x, &z2);
    cuzk_fp2_mul(&r->y, &p->y, &z3);
    r->z = z;
}

static int g2_jac_eq_affine(const cuzk_g2 *p, const cuzk_g2_affine *q)
{
    cuzk_g2_affine a;
    cuzk_g2_to_affine(&a, p);
    return cuzk_g2_affine_eq(&a, q);
}

/* ===== G2 ================================================================== */
/* psi^4(q) - psi^2(q) + q: O on every point of E'(Fp2) (Galbraith-Scott). */
static int g2_psi_identity_holds(const cuzk_g2 *q)
{
    cuzk_g2 p2, p4, s;
    cuzk_g2_psi(&p2, q);
    cuzk_g2_psi(&p2, &p2);
    cuzk_g2_psi(&p4, &p2);
    cuzk_g2_psi(&p4, &p4);
    cuzk_g2_neg(&p2, &p2);
    cuzk_g2_add(&s, &p4, &p2);
    cuzk_g2_add(&s, &s, q);
    return cuzk_g2_is_inf(&s);
}

static void test_g2_constants(void)
{
    cuzk_g2_affine g, t;
    cuzk_g2 gj, pj;
    cuzk_g2_affine_generator(&g);
    CHECK(cuzk_g2_affine_is_on_curve(&g));
    g2_ref_mul(&t, &g, R_LIMBS, 4);
    CHECK(cuzk_g2_affine_is_inf(&t));
    /* b = 4 (1 + u) */
    cuzk_fp2 b;
    cuzk_fp_from_u64(&b.c0, 4);
    cuzk_fp_from_u64(&b.c1, 4);
    CHECK(cuzk_fp2_eq(&b, &CUZK_G2_B));
    /* psi = [x] = -[|x|] on the generator; psi is not the identity */
    uint64_t xl[1] = {CUZK_EC_X_ABS};
    cuzk_g2_affine xg;
    g2_ref_mul(&xg, &g, xl, 1);
    cuzk_g2_affine_neg(&xg, &xg);
    cuzk_g2_generator(&gj);
    cuzk_g2_psi(&pj, &gj);
    CHECK(g2_jac_eq_affine(&pj, &xg));
    CHECK(!cuzk_g2_eq(&pj, &gj));
    CHECK(g2_psi_identity_holds(&gj));
}

static void test_g2_group_law(void)
{
    int n = 100 * test_iterations;
    for (int i = 0; i < n; i++) {
        cuzk_g2_affine a, b, c, ab, bc, abc, ref, a2, inf = {CUZK_FP2_ZERO, CUZK_FP2_ZERO};
        cuzk_g2 pa, pb, pc, s, t, u;
        /* a mix of subgroup and non-subgroup points: the formulas do not care */
        if (i & 1) { g2_random_subgroup_point(&a); g2_random_subgroup_point(&b); }
        else { g2_random_curve_point(&a); g2_random_curve_point(&b); }
        g2_random_curve_point(&c);
        g2_random_jacobian(&pa, &a);
        g2_random_jacobian(&pb, &b);
        g2_random_jacobian(&pc, &c);
        CHECK(cuzk_g2_is_on_curve(&pa) && cuzk_g2_is_on_curve(&pb));
        g2_ref_add(&ab, &a, &b);
        g2_ref_add(&bc, &b, &c);
        g2_ref_add(&abc, &ab, &c);
        cuzk_g2_add(&s, &pa, &pb);
        CHECK(g2_jac_eq_affine(&s, &ab) && cuzk_g2_is_on_curve(&s));
        cuzk_g2_add(&t, &pb, &pa); /* commutative */
        CHECK(cuzk_g2_eq(&s, &t));
        cuzk_g2_add_var(&t, &pa, &pb);
        CHECK(cuzk_g2_eq(&s, &t));
        cuzk_g2_add_affine(&t, &pa, &b); /* mixed == full */
        CHECK(cuzk_g2_eq(&s, &t));
        cuzk_g2_add_affine_var(&t, &pa, &b);
        CHECK(cuzk_g2_eq(&s, &t));
        cuzk_g2_add(&s, &s, &pc); /* (a+b)+c == a+(b+c) == ref */
        cuzk_g2_add(&t, &pb, &pc);
        cuzk_g2_add(&t, &pa, &t);
        CHECK(cuzk_g2_eq(&s, &t) && g2_jac_eq_affine(&s, &abc));
        /* doubling: dbl == add(p, p) == ref, also through add with another Z */
        g2_ref_add(&a2, &a, &a);
        cuzk_g2_dbl(&s, &pa);
        CHECK(g2_jac_eq_affine(&s, &a2));
        g2_random_jacobian(&u, &a);
        cuzk_g2_add(&t, &pa, &u);
        CHECK(cuzk_g2_eq(&s, &t));
        cuzk_g2_add_var(&t, &pa, &u);
        CHECK(cuzk_g2_eq(&s, &t));
        cuzk_g2_add_affine(&t, &pa, &a);
        CHECK(cuzk_g2_eq(&s, &t));
        cuzk_g2_add_affine_var(&t, &pa, &a);
        CHECK(cuzk_g2_eq(&s, &t));
        /* inverse: p + (-p) = O in every variant */
        cuzk_g2_neg(&u, &pa);
        cuzk_g2_add(&t, &pa, &u);
        CHECK(cuzk_g2_is_inf(&t));
        cuzk_g2_add_var(&t, &u, &pa);
        CHECK(cuzk_g2_is_inf(&t));
        cuzk_g2_affine_neg(&ref, &a);
        cuzk_g2_add_affine(&t, &pa, &ref);
        CHECK(cuzk_g2_is_inf(&t));
        cuzk_g2_add_affine_var(&t, &pa, &ref);
        CHECK(cuzk_g2_is_inf(&t));
        /* identity, in both operand positions and for dbl */
        cuzk_g2_set_inf(&u);
        cuzk_g2_add(&t, &pa, &u);
        CHECK(cuzk_g2_eq(&t, &pa));
        cuzk_g2_add(&t, &u, &pa);
        CHECK(cuzk_g2_eq(&t, &pa));
        cuzk_g2_add_var(&t, &u, &pa);
        CHECK(cuzk_g2_eq(&t, &pa));
        cuzk_g2_add(&t, &u, &u);
        CHECK(cuzk_g2_is_inf(&t));
        cuzk_g2_dbl(&t, &u);
        CHECK(cuzk_g2_is_inf(&t));
        cuzk_g2_add_affine(&t, &pa, &inf);
        CHECK(cuzk_g2_eq(&t, &pa));
        cuzk_g2_add_affine(&t, &u, &a);
        CHECK(g2_jac_eq_affine(&t, &a));
        cuzk_g2_add_affine(&t, &u, &inf);
        CHECK(cuzk_g2_is_inf(&t));
        cuzk_g2_add_affine_var(&t, &u, &a);
        CHECK(g2_jac_eq_affine(&t, &a));
        /* eq: different Z, same point; different points; infinity */
        CHECK(cuzk_g2_eq(&pa, &pa) && !cuzk_g2_eq(&pa, &pb) && !cuzk_g2_eq(&pa, &u) && !cuzk_g2_eq(&u, &pa));
        cuzk_g2_neg(&t, &pa);
        CHECK(!cuzk_g2_eq(&pa, &t));
        /* aliasing: r == p == q */
        t = pa;
        cuzk_g2_add(&t, &t, &t);
        CHECK(g2_jac_eq_affine(&t, &a2));
        t = pa;
        cuzk_g2_dbl(&t, &t);
        CHECK(g2_jac_eq_affine(&t, &a2));
    }
}

static void test_g2_affine_conversions(void)
{
    cuzk_g2 in[9];
    cuzk_g2_affine ref[9], out[9];
    for (int i = 0; i < 9; i++) {
        if (i % 4 == 1) ref[i].x = ref[i].y = CUZK_FP2_ZERO;
        else g2_random_curve_point(&ref[i]);
        g2_random_jacobian(&in[i], &ref[i]);
        if (i == 5) cuzk_g2_set_inf(&in[i]);
        if (i == 5) ref[i].x = ref[i].y = CUZK_FP2_ZERO;
    }
    cuzk_g2_batch_to_affine_var(out, in, 9);
    for (int i = 0; i < 9; i++) {
        CHECK(cuzk_g2_affine_eq(&out[i], &ref[i]));
        cuzk_g2_affine one;
        cuzk_g2_to_affine(&one, &in[i]);
        CHECK(cuzk_g2_affine_eq(&one, &ref[i]));
        CHECK(cuzk_g2_affine_is_on_curve(&one));
        cuzk_g2 back;
        cuzk_g2_from_affine(&back, &ref[i]);
        CHECK(cuzk_g2_eq(&back, &in[i]));
        CHECK(cuzk_g2_is_inf(&back) == cuzk_g2_affine_is_inf(&ref[i]));
    }
    cuzk_g2_batch_to_affine_var(out, in, 0); /* n = 0 is fine */
    /* a point off the curve is reported as such */
    cuzk_g2_affine bad = ref[0];
    cuzk_fp2_add(&bad.y, &bad.y, &CUZK_FP2_ONE);
    CHECK(!cuzk_g2_affine_is_on_curve(&bad));
    cuzk_g2 badj;
    g2_random_jacobian(&badj, &bad);
    CHECK(!cuzk_g2_is_on_curve(&badj));
}

static void test_g2_mul(void)
{
    int n = N_EDGE_SCALARS + 40 * test_iterations;
    for (int i = 0; i < n; i++) {
        cuzk_g2_affine p, ref;
        cuzk_g2 pj, a, b;
        cuzk_fr k;
        uint64_t kl[4];
        scalar_case(&k, i);
        cuzk_fr_to_limbs(kl, &k);
        if (i % 5 == 4) cuzk_g2_affine_generator(&p);
        else g2_random_subgroup_point(&p);
        g2_random_jacobian(&pj, &p);
        g2_ref_mul(&ref, &p, kl, 4);
        cuzk_g2_mul(&a, &pj, &k);
        cuzk_g2_mul_var(&b, &pj, &k);
        CHECK(g2_jac_eq_affine(&a, &ref));
        CHECK(g2_jac_eq_affine(&b, &ref));
        /* infinity in, infinity out */
        cuzk_g2_set_inf(&pj);
        cuzk_g2_mul(&a, &pj, &k);
        cuzk_g2_mul_var(&b, &pj, &k);
        CHECK(cuzk_g2_is_inf(&a) && cuzk_g2_is_inf(&b));
    }
    /* k P + m P == (k + m) P; aliasing r == p */
    for (int i = 0; i < 20 * test_iterations; i++) {
        cuzk_g2_affine p;
        cuzk_g2 pj, a, b, c;
        cuzk_fr k, m, km;
        g2_random_subgroup_point(&p);
        cuzk_g2_from_affine(&pj, &p);
        fr_random(&k);
        scalar_case(&m, i % N_EDGE_SCALARS);
        cuzk_fr_add(&km, &k, &m);
        cuzk_g2_mul(&a, &pj, &k);
        cuzk_g2_mul_var(&b, &pj, &m);
        cuzk_g2_add(&a, &a, &b);
        c = pj;
        cuzk_g2_mul(&c, &c, &km);
        CHECK(cuzk_g2_eq(&a, &c));
        c = pj;
        cuzk_g2_mul_var(&c, &c, &km);
        CHECK(cuzk_g2_eq(&a, &c));
    }
}

static void test_g2_subgroup(void)
{
    int n = 30 * test_iterations, outside = 0;
    for (int i = 0; i < n; i++) {
        cuzk_g2_affine p, t, q;
        cuzk_g2 pj;
        g2_random_curve_point(&p);
        /* the relation the check's proof rests on: psi^4 - psi^2 + 1 = 0 */
        g2_random_jacobian(&pj, &p);
        CHECK(g2_psi_identity_holds(&pj));
        /* fast check == slow definition on a random curve point */
        g2_ref_mul(&t, &p, R_LIMBS, 4);
        bool slow = cuzk_g2_affine_is_inf(&t);
        outside += !slow;
        CHECK(cuzk_g2_affine_in_subgroup(&p) == slow);
        CHECK(cuzk_g2_in_subgroup(&pj) == slow);
        /* t = r p is a pure torsion point outside G2 (unless O): G + t fails */
        g2_random_subgroup_point(&q);
        CHECK(cuzk_g2_affine_in_subgroup(&q));
        if (!cuzk_g2_affine_is_inf(&t)) {
            cuzk_g2_affine u;
            g2_ref_add(&u, &q, &t);
            CHECK(!cuzk_g2_affine_in_subgroup(&u));
            CHECK(!cuzk_g2_affine_in_subgroup(&t));
        }
    }
    CHECK(outside > 0); /* a random point lies in G2 with probability 1/h */
    cuzk_g2_affine inf = {CUZK_FP2_ZERO, CUZK_FP2_ZERO};
    CHECK(cuzk_g2_affine_in_subgroup(&inf));
}

/* ===== G2 encodings ======================================================== */
#define G2_X_C1 "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
#define G2_X_C0 "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
#define G2_Y_C1 "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
#define G2_Y_C0 "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"

static void test_g2_encoding_generator(void)
{
    uint8_t c[96], u[192], got[192];
    hex_to(c, 96, G2_X_C1 G2_X_C0);
    CHECK(c[0] == 0x13);
    c[0] |= 0x80; /* zcash: 0x93e02b60..., sign 0 (y is the smaller root) */
    hex_to(u, 192, G2_X_C1 G2_X_C0 G2_Y_C1 G2_Y_C0);
    cuzk_g2_affine g, p;
    cuzk_g2_affine_generator(&g);
    CHECK(cuzk_g2_decompress(&p, c) == CUZK_OK && cuzk_g2_affine_eq(&p, &g));
    CHECK(cuzk_g2_deserialize(&p, u) == CUZK_OK && cuzk_g2_affine_eq(&p, &g));
    CHECK(cuzk_g2_decode(&p, c, 96) == CUZK_OK && cuzk_g2_affine_eq(&p, &g));
    CHECK(cuzk_g2_decode(&p, u, 192) == CUZK_OK && cuzk_g2_affine_eq(&p, &g));
    cuzk_g2_compress(got, &g);
    CHECK(!memcmp(got, c, 96));
    cuzk_g2_serialize(got, &g);
    CHECK(!memcmp(got, u, 192));
}

static void test_g2_encoding_roundtrip(void)
{
    int n = 12 * test_iterations;
    for (int i = 0; i < n; i++) {
        cuzk_g2_affine p, q;
        uint8_t c[96], u[192];
        if (i == 0) p.x = p.y = CUZK_FP2_ZERO;
        else g2_random_subgroup_point(&p);
        cuzk_g2_compress(c, &p);
        cuzk_g2_serialize(u, &p);
        CHECK((c[0] & 0x80) && !(u[0] & 0x80));
        CHECK(cuzk_g2_decompress(&q, c) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
        CHECK(cuzk_g2_deserialize(&q, u) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
        CHECK(cuzk_g2_decompress_unchecked(&q, c) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
        CHECK(cuzk_g2_deserialize_unchecked(&q, u) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
        if (i) {
            cuzk_g2_affine np;
            cuzk_g2_affine_neg(&np, &p);
            c[0] ^= 0x20;
            CHECK(cuzk_g2_decompress(&q, c) == CUZK_OK && cuzk_g2_affine_eq(&np, &q));
            c[0] ^= 0x20;
        }
        for (int f = 0; f < 6; f++) {
            size_t bit = test_rand64() % (96 * 8), bitu = test_rand64() % (192 * 8);
            c[bit / 8] ^= (uint8_t)(1 << (bit % 8));
            u[bitu / 8] ^= (uint8_t)(1 << (bitu % 8));
            CHECK(cuzk_g2_decompress(&q, c) != CUZK_OK || !cuzk_g2_affine_eq(&p, &q));
            CHECK(cuzk_g2_deserialize(&q, u) != CUZK_OK || !cuzk_g2_affine_eq(&p, &q));
            c[bit / 8] ^= (uint8_t)(1 << (bit % 8));
            u[bitu / 8] ^= (uint8_t)(1 << (bitu % 8));
        }
    }
}

static void test_g2_encoding_rejects(void)
{
    cuzk_g2_affine g, p, q;
    uint8_t c[96], u[192], b[192];
    cuzk_g2_affine_generator(&g);
    cuzk_g2_compress(c, &g);
    cuzk_g2_serialize(u, &g);
    CHECK(cuzk_g2_decode(&p, c, 95) == CUZK_ERR_ENC_LENGTH);
    CHECK(cuzk_g2_decode(&p, u, 193) == CUZK_ERR_ENC_LENGTH);
    CHECK(cuzk_g2_decode(&p, u, 48) == CUZK_ERR_ENC_LENGTH);
    memcpy(b, c, 96);
    b[0] &= 0x7f;
    CHECK(cuzk_g2_decompress(&p, b) == CUZK_ERR_ENC_COMPRESSION);
    CHECK(cuzk_g2_decode(&p, b, 96) == CUZK_ERR_ENC_COMPRESSION);
    memcpy(b, u, 192);
    b[0] |= 0x80;
    CHECK(cuzk_g2_deserialize(&p, b) == CUZK_ERR_ENC_COMPRESSION);
    memcpy(b, u, 192);
    b[0] |= 0x20;
    CHECK(cuzk_g2_deserialize(&p, b) == CUZK_ERR_ENC_SIGN);
    memset(b, 0, 192);
    b[0] = 0x60;
    CHECK(cuzk_g2_deserialize(&p, b) == CUZK_ERR_ENC_SIGN);
    b[0] = 0xe0;
    CHECK(cuzk_g2_decompress(&p, b) == CUZK_ERR_ENC_SIGN);
    b[0] = 0xc0;
    CHECK(cuzk_g2_decompress(&p, b) == CUZK_OK && cuzk_g2_affine_is_inf(&p));
    b[60] = 4; /* a bit in x.c0 */
    CHECK(cuzk_g2_decompress(&p, b) == CUZK_ERR_ENC_INFINITY);
    b[60] = 0;
    b[0] = 0xc8;
    CHECK(cuzk_g2_decompress(&p, b) == CUZK_ERR_ENC_INFINITY);
    memset(b, 0, 192);
    b[0] = 0x40;
    CHECK(cuzk_g2_deserialize(&p, b) == CUZK_OK && cuzk_g2_affine_is_inf(&p));
    b[191] = 1;
    CHECK(cuzk_g2_deserialize(&p, b) == CUZK_ERR_ENC_INFINITY);
    memset(b, 0, 192);
    CHECK(cuzk_g2_deserialize(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
    /* each of the four coordinates >= p */
    do g2_random_subgroup_point(&q);
    while (!fp_to_be_plus_p(b, &q.x.c1));
    cuzk_fp_to_bytes_be(b + 48, &q.x.c0);
    cuzk_fp_to_bytes_be(b + 96, &q.y.c1);
    cuzk_fp_to_bytes_be(b + 144, &q.y.c0);
    CHECK(cuzk_g2_deserialize(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
    b[0] |= 0x80;
    CHECK(cuzk_g2_decompress(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
    for (int k = 1; k < 4; k++) {
        const cuzk_fp *co[4] = {&g.x.c1, &g.x.c0, &g.y.c1, &g.y.c0};
        memcpy(b, u, 192);
        fp_to_be_plus_p(b + 48 * k, co[k]);
        CHECK(cuzk_g2_deserialize(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
        CHECK(cuzk_g2_deserialize_unchecked(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
        if (k == 1) {
            b[0] |= 0x80;
            CHECK(cuzk_g2_decompress(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
        }
    }
    memset(b, 0xff, 96);
    b[0] = 0x9f;
    CHECK(cuzk_g2_decompress(&p, b) == CUZK_ERR_ENC_NONCANONICAL);
    /* x with no y; y perturbed */
    for (;;) {
        cuzk_fp2 x, rhs, y;
        fp2_random(&x);
        cuzk_fp2_sqr(&rhs, &x);
        cuzk_fp2_mul(&rhs, &rhs, &x);
        cuzk_fp2_add(&rhs, &rhs, &CUZK_G2_B);
        if (cuzk_fp2_sqrt(&y, &rhs)) continue;
        cuzk_fp_to_bytes_be(b, &x.c1);
        cuzk_fp_to_bytes_be(b + 48, &x.c0);
        b[0] |= 0x80;
        CHECK(cuzk_g2_decompress(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
        CHECK(cuzk_g2_decompress_unchecked(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
        break;
    }
    memcpy(b, u, 192);
    b[100] ^= 1;
    CHECK(cuzk_g2_deserialize(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
    CHECK(cuzk_g2_deserialize_unchecked(&p, b) == CUZK_ERR_ENC_NOT_ON_CURVE);
    /* on the twist, outside G2 */
    int tries = 0; /* a random curve point is outside the subgroup w.p. 1 - 1/h */
    do g2_random_curve_point(&q);
    while (cuzk_g2_affine_in_subgroup(&q) && ++tries < 50);
    CHECK(tries < 50);
    cuzk_g2_compress(c, &q);
    cuzk_g2_serialize(u, &q);
    CHECK(cuzk_g2_decompress(&p, c) == CUZK_ERR_ENC_SUBGROUP);
    CHECK(cuzk_g2_deserialize(&p, u) == CUZK_ERR_ENC_SUBGROUP);
    CHECK(cuzk_g2_decode(&p, c, 96) == CUZK_ERR_ENC_SUBGROUP);
    CHECK(cuzk_g2_decode(&p, u, 192) == CUZK_ERR_ENC_SUBGROUP);
    CHECK(cuzk_g2_decompress_unchecked(&p, c) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
    CHECK(cuzk_g2_deserialize_unchecked(&p, u) == CUZK_OK && cuzk_g2_affine_eq(&p, &q));
}

/* Constant-time check in the style of libsecp256k1's valgrind_ctime_test:
 * under memcheck the scalar and the point are marked undefined, so any
 * branch or memory index that depends on them is reported as an error.
 * Run: valgrind build/bin/test_ec_g2 g2_mul_consttime (skipped otherwise). */
static void test_g2_mul_consttime(void)
{
#ifdef HAVE_MEMCHECK
    if (!RUNNING_ON_VALGRIND) {
        test_skip("needs valgrind (memcheck)");
        return;
    }
    cuzk_g2_affine a;
    cuzk_g2 p, r, s;
    cuzk_fr k;
    g2_random_subgroup_point(&a);
    cuzk_g2_from_affine(&p, &a);
    fr_random(&k);
    cuzk_g2_mul_var(&s, &p, &k);
    unsigned long before = VALGRIND_COUNT_ERRORS;
    VALGRIND_MAKE_MEM_UNDEFINED(&k, sizeof k);
    VALGRIND_MAKE_MEM_UNDEFINED(&p, sizeof p);
    cuzk_g2_mul(&r, &p, &k);
    cuzk_g2_add(&r, &r, &p);
    cuzk_g2_dbl(&r, &r);
    cuzk_g2_add_affine(&r, &r, &a);
    VALGRIND_MAKE_MEM_DEFINED(&r, sizeof r);
    VALGRIND_MAKE_MEM_DEFINED(&k, sizeof k);
    VALGRIND_MAKE_MEM_DEFINED(&p, sizeof p);
    CHECK(VALGRIND_COUNT_ERRORS == before);
    /* and the result is still right: 2 (k p + p) + p */
    cuzk_g2_add(&s, &s, &p);
    cuzk_g2_dbl(&s, &s);
    cuzk_g2_add(&s, &s, &p);
    CHECK(cuzk_g2_eq(&r, &s));
#else
    test_skip("built without valgrind/memcheck.h");
#endif
}

static const test_case tests[] = {
    {"g2_constants", test_g2_constants},
    {"g2_group_law", test_g2_group_law},
    {"g2_affine_conversions", test_g2_affine_conversions},
    {"g2_mul", test_g2_mul},
    {"g2_subgroup", test_g2_subgroup},
    {"g2_mul_consttime", test_g2_mul_consttime},
    {"g2_encoding_generator", test_g2_encoding_generator},
    {"g2_encoding_roundtrip", test_g2_encoding_roundtrip},
    {"g2_encoding_rejects", test_g2_encoding_rejects},
};

TEST_MAIN(tests)
