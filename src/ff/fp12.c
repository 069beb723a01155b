/* Fp12 = Fp6[w]/(w^2 - v).
 *
 * Over Fp2 the basis is 1, v, v^2, w, v w, v^2 w = w^0, w^2, w^4, w^1, w^3,
 * w^5 with w^6 = xi = 1 + u.
 *
 * Frobenius coefficients.  p = 1 mod 6, so p^k - 1 is divisible by 6 and
 * (sum_i g_i w^i)^(p^k) = sum_i conj^k(g_i) w^(i p^k)
 *                       = sum_i conj^k(g_i) gamma_k^i w^i,
 * gamma_k = w^(p^k - 1) = (w^6)^((p^k - 1)/6) = xi^((p^k - 1)/6) in Fp2.
 * CUZK_FROB_GAMMA[k-1][j-1] = gamma_k^j (k, j = 1..5) was computed in
 * Python: pow(xi, (p^k - 1)//6)^j in Fp2, printed in Montgomery form
 * (x 2^384 mod p).  tests/test_tower.c recomputes every entry with
 * cuzk_fp2_pow and checks the Frobenius maps against cuzk_*_pow(a, p^k).
 * gamma_6 = xi^((p^6-1)/6) = -1 (w^(p^6) = -w), so powers k >= 6 are
 * frob^(k-6) followed by conjugation. */
#include <string.h>

#include "ff/tower_internal.h"

const cuzk_fp12 CUZK_FP12_ONE = {
    {{{{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
        0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
      {{0}}},
     {{{0}}, {{0}}},
     {{{0}}, {{0}}}},
    {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

const cuzk_fp2 CUZK_FROB_GAMMA[5][5] = {
    { /* k = 1 */
        {{{0x07089552b319d465ull, 0xc6695f92b50a8313ull, 0x97e83cccd117228full,
            0xa35baecab2dc29eeull, 0x1ce393ea5daace4dull, 0x08f2220fb0fb66ebull}},
         {{0xb2f66aad4ce5d646ull, 0x5842a06bfc497cecull, 0xcf4895d42599d394ull,
            0xc11b9cba40a8e8d0ull, 0x2e3813cbe5a0de89ull, 0x110eefda88847fafull}}},
        {{{0}},
         {{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
            0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}}},
        {{{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
            0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}},
         {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
            0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}},
        {{{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
            0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}},
         {{0}}},
        {{{0x82d83cf50dbce43full, 0xa2813e53df9d018full, 0xc6f0caa53c65e181ull,
            0x7525cf528d50fe95ull, 0x4a85ed50f4798a6bull, 0x171da0fd6cf8eebdull}},
         {{0x3726c30af242c66cull, 0x7c2ac1aad1b6fe70ull, 0xa04007fbba4b14a2ull,
            0xef517c3266341429ull, 0x0095ba654ed2226bull, 0x02e370eccc86f7ddull}}},
    },
    { /* k = 2 */
        {{{0xecfb361b798dba3aull, 0xc100ddb891865a2cull, 0x0ec08ff1232bda8eull,
            0xd5c13cc6f1ca4721ull, 0x47222a47bf7b5c04ull, 0x0110f184e51c5f59ull}},
         {{0}}},
        {{{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
            0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
         {{0}}},
        {{{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull, 0x07e83a49a2e99d69ull,
            0xeca8f3318332bb7aull, 0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}},
         {{0}}},
        {{{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
            0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
         {{0}}},
        {{{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
            0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}},
         {{0}}},
    },
    { /* k = 3 */
        {{{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
            0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
         {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
            0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}},
        {{{0}},
         {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
            0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}}},
        {{{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
            0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
         {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
            0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}},
        {{{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull, 0x07e83a49a2e99d69ull,
            0xeca8f3318332bb7aull, 0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}},
         {{0}}},
        {{{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
            0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}},
         {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
            0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}},
    },
    { /* k = 4 */
        {{{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
            0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
         {{0}}},
        {{{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
            0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
         {{0}}},
        {{{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
            0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
         {{0}}},
        {{{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
            0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
         {{0}}},
        {{{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
            0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
         {{0}}},
    },
    { /* k = 5 */
        {{{0x3726c30af242c66cull, 0x7c2ac1aad1b6fe70ull, 0xa04007fbba4b14a2ull,
            0xef517c3266341429ull, 0x0095ba654ed2226bull, 0x02e370eccc86f7ddull}},
         {{0x82d83cf50dbce43full, 0xa2813e53df9d018full, 0xc6f0caa53c65e181ull,
            0x7525cf528d50fe95ull, 0x4a85ed50f4798a6bull, 0x171da0fd6cf8eebdull}}},
        {{{0}},
         {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
            0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}}},
        {{{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
            0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}},
         {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
            0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}},
        {{{0xecfb361b798dba3aull, 0xc100ddb891865a2cull, 0x0ec08ff1232bda8eull,
            0xd5c13cc6f1ca4721ull, 0x47222a47bf7b5c04ull, 0x0110f184e51c5f59ull}},
         {{0}}},
        {{{0xb2f66aad4ce5d646ull, 0x5842a06bfc497cecull, 0xcf4895d42599d394ull,
            0xc11b9cba40a8e8d0ull, 0x2e3813cbe5a0de89ull, 0x110eefda88847fafull}},
         {{0x07089552b319d465ull, 0xc6695f92b50a8313ull, 0x97e83cccd117228full,
            0xa35baecab2dc29eeull, 0x1ce393ea5daace4dull, 0x08f2220fb0fb66ebull}}},
    },
};

/* Karatsuba over Fp6: c0 = t0 + v t1, c1 = (a0 + a1)(b0 + b1) - t0 - t1,
 * every product kept wide, 12 reductions in total. */
void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    fp6_wide t0, t1, m;
    cuzk_fp6 sa, sb;
    cuzk_fp6_mul_wide(&t0, &a->c0, &b->c0);
    cuzk_fp6_mul_wide(&t1, &a->c1, &b->c1);
    cuzk_fp6_add(&sa, &a->c0, &a->c1);
    cuzk_fp6_add(&sb, &b->c0, &b->c1);
    cuzk_fp6_mul_wide(&m, &sa, &sb);
    cuzk_fp6_wide_sub(&m, &m, &t0);
    cuzk_fp6_wide_sub(&m, &m, &t1);
    cuzk_fp6_wide_mul_v(&t1, &t1);
    cuzk_fp6_wide_add(&t0, &t0, &t1);
    cuzk_fp6_redc(&r->c0, &t0);
    cuzk_fp6_redc(&r->c1, &m);
}

/* Complex squaring: with t = a0 a1,
 *   c0 = (a0 + a1)(a0 + v a1) - t - v t,  c1 = 2 t. */
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    fp6_wide t, s, vt;
    cuzk_fp6 x, y;
    cuzk_fp6_mul_wide(&t, &a->c0, &a->c1);
    cuzk_fp6_add(&x, &a->c0, &a->c1);
    cuzk_fp6_mul_by_nonresidue(&y, &a->c1);
    cuzk_fp6_add(&y, &y, &a->c0);
    cuzk_fp6_mul_wide(&s, &x, &y);
    cuzk_fp6_wide_sub(&s, &s, &t);
    cuzk_fp6_wide_mul_v(&vt, &t);
    cuzk_fp6_wide_sub(&s, &s, &vt);
    cuzk_fp6_wide_add(&t, &t, &t);
    cuzk_fp6_redc(&r->c0, &s);
    cuzk_fp6_redc(&r->c1, &t);
}

/* f * (L0 + L1 w) with L0 = l0 + l1 v, L1 = l3 v:
 *   c0 = f0 L0 + v f1 L1,  c1 = (f0 + f1)(L0 + L1) - f0 L0 - f1 L1,
 * and L0 + L1 = l0 + (l1 + l3) v: 5 + 3 + 5 = 13 Fp2 products. */
void cuzk_fp12_mul_by_line(cuzk_fp12 *f, const cuzk_fp2 *l0, const cuzk_fp2 *l1,
                           const cuzk_fp2 *l3)
{
    fp6_wide t0, t1, m;
    cuzk_fp6 s;
    cuzk_fp2 l13;
    cuzk_fp6_mul_by_01_wide(&t0, &f->c0, l0, l1);
    cuzk_fp6_mul_by_1_wide(&t1, &f->c1, l3);
    cuzk_fp6_add(&s, &f->c0, &f->c1);
    fp2_add(&l13, l1, l3);
    cuzk_fp6_mul_by_01_wide(&m, &s, l0, &l13);
    cuzk_fp6_wide_sub(&m, &m, &t0);
    cuzk_fp6_wide_sub(&m, &m, &t1);
    cuzk_fp6_wide_mul_v(&t1, &t1);
    cuzk_fp6_wide_add(&t0, &t0, &t1);
    cuzk_fp6_redc(&f->c0, &t0);
    cuzk_fp6_redc(&f->c1, &m);
}

/* (a0 + a1 w)^-1 = (a0 - a1 w) / (a0^2 - v a1^2). */
void cuzk_tower_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a, int var)
{
    fp6_wide t0, t1;
    cuzk_fp6 d;
    cuzk_fp6_sqr_wide(&t0, &a->c0);
    cuzk_fp6_sqr_wide(&t1, &a->c1);
    cuzk_fp6_wide_mul_v(&t1, &t1);
    cuzk_fp6_wide_sub(&t0, &t0, &t1);
    cuzk_fp6_redc(&d, &t0);
    cuzk_tower_fp6_inv(&d, &d, var);
    cuzk_fp6_mul(&r->c0, &a->c0, &d);
    cuzk_fp6_mul(&r->c1, &a->c1, &d);
    cuzk_fp6_neg(&r->c1, &r->c1);
}

void cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a) { cuzk_tower_fp12_inv(r, a, 0); }

void cuzk_fp12_conj(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    r->c0 = a->c0;
    cuzk_fp6_neg(&r->c1, &a->c1);
}

/* See the derivation at the top.  Coefficient of w^i gets gamma_k^i:
 * c0 = (w^0, w^2, w^4), c1 = (w^1, w^3, w^5). */
void cuzk_fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned power)
{
    unsigned k = power % 12;
    int conj_after = k >= 6;
    if (conj_after) k -= 6;
    if (k == 0) {
        if (conj_after) cuzk_fp12_conj(r, a);
        else *r = *a;
        return;
    }
    const cuzk_fp2 *g = CUZK_FROB_GAMMA[k - 1];
    cuzk_fp2 c[6] = {a->c0.c0, a->c0.c1, a->c0.c2, a->c1.c0, a->c1.c1, a->c1.c2};
    if (k & 1)
        for (int i = 0; i < 6; i++) fp2_conj(&c[i], &c[i]);
    r->c0.c0 = c[0];
    fp2_mul(&r->c0.c1, &c[1], &g[1]);   /* w^2 */
    fp2_mul(&r->c0.c2, &c[2], &g[3]);   /* w^4 */
    fp2_mul(&r->c1.c0, &c[3], &g[0]);   /* w^1 */
    fp2_mul(&r->c1.c1, &c[4], &g[2]);   /* w^3 */
    fp2_mul(&r->c1.c2, &c[5], &g[4]);   /* w^5 */
    if (conj_after) cuzk_fp6_neg(&r->c1, &r->c1);
}

/* (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - xi): (x^2 + xi y^2) + 2xy s, with
 * 2xy = (x + y)^2 - x^2 - y^2: three Fp2 squarings. */
static void fp4_sqr(cuzk_fp2 *rx, cuzk_fp2 *ry, const cuzk_fp2 *x, const cuzk_fp2 *y)
{
    fp2_wide x2, y2, s, t;
    cuzk_fp2 xy;
    fp2_sqr_wide(&x2, x);
    fp2_sqr_wide(&y2, y);
    fp2_add(&xy, x, y);
    fp2_sqr_wide(&s, &xy);
    fp2_wide_sub(&s, &s, &x2);
    fp2_wide_sub(&s, &s, &y2);
    fp2_wide_mul_xi(&t, &y2);
    fp2_wide_add(&t, &t, &x2);
    fp2_redc(rx, &t);
    fp2_redc(ry, &s);
}

/* 3 X - 2 x = 2 (X - x) + X  and  3 X + 2 x = 2 (X + x) + X. */
static void fp2_3sub2(cuzk_fp2 *r, const cuzk_fp2 *X, const cuzk_fp2 *x)
{
    cuzk_fp2 t;
    fp2_sub(&t, X, x);
    fp2_dbl(&t, &t);
    fp2_add(r, &t, X);
}

static void fp2_3add2(cuzk_fp2 *r, const cuzk_fp2 *X, const cuzk_fp2 *x)
{
    cuzk_fp2 t;
    fp2_add(&t, X, x);
    fp2_dbl(&t, &t);
    fp2_add(r, &t, X);
}

/* Granger-Scott ("Faster squaring in the cyclotomic subgroup of sixth
 * degree extensions", PKC 2010).  Write Fp12 = Fp4[t]/(t^3 - s) with
 * t = w, s = w^3, so f = A0 + A1 t + A2 t^2 with
 *   A0 = g0 + g3 s, A1 = g1 + g4 s, A2 = g2 + g5 s  (g_i = coeff of w^i).
 * For f^(p^6 + 1) = 1 (which the cyclotomic subgroup satisfies):
 *   f^2 = (3 A0^2 - 2 conj A0) + (3 s A2^2 + 2 conj A1) t
 *         + (3 A1^2 - 2 conj A2) t^2,   conj(x + y s) = x - y s.
 * Nine Fp2 squarings instead of a full Fp12 squaring. */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp2 g0 = a->c0.c0, g1 = a->c1.c0, g2 = a->c0.c1;
    cuzk_fp2 g3 = a->c1.c1, g4 = a->c0.c2, g5 = a->c1.c2;
    cuzk_fp2 X0, Y0, X1, Y1, X2, Y2, t;

    fp4_sqr(&X0, &Y0, &g0, &g3);   /* A0^2 */
    fp4_sqr(&X1, &Y1, &g1, &g4);   /* A1^2 */
    fp4_sqr(&X2, &Y2, &g2, &g5);   /* A2^2 */

    /* A0' = (3 X0 - 2 g0) + (3 Y0 + 2 g3) s */
    fp2_3sub2(&r->c0.c0, &X0, &g0);
    fp2_3add2(&r->c1.c1, &Y0, &g3);
    /* A1' = 3 s A2^2 + 2 conj A1, s (X2 + Y2 s) = xi Y2 + X2 s:
     *     = (3 xi Y2 + 2 g1) + (3 X2 - 2 g4) s */
    fp2_mul_xi(&t, &Y2);
    fp2_3add2(&r->c1.c0, &t, &g1);
    fp2_3sub2(&r->c0.c2, &X2, &g4);
    /* A2' = (3 X1 - 2 g2) + (3 Y1 + 2 g5) s */
    fp2_3sub2(&r->c0.c1, &X1, &g2);
    fp2_3add2(&r->c1.c2, &Y1, &g5);
}

/* Compressed squaring (after Karabina, "Squaring in cyclotomic subgroups",
 * Math. Comp. 2013): in the formulas above A1' and A2' depend only on A1
 * and A2, so the four coefficients z = (g1, g4, g2, g5) can be squared on
 * their own: two Fp4 squarings instead of three. */
void cuzk_tower_fp12_cyc_sqr_compressed(cuzk_fp2 z[4])
{
    cuzk_fp2 X1, Y1, X2, Y2, t, g1 = z[0], g4 = z[1], g2 = z[2], g5 = z[3];
    fp4_sqr(&X1, &Y1, &g1, &g4);   /* A1^2 */
    fp4_sqr(&X2, &Y2, &g2, &g5);   /* A2^2 */
    fp2_mul_xi(&t, &Y2);
    fp2_3add2(&z[0], &t, &g1);
    fp2_3sub2(&z[1], &X2, &g4);
    fp2_3sub2(&z[2], &X1, &g2);
    fp2_3add2(&z[3], &Y1, &g5);
}

/* Recover A0 = g0 + g3 s from A1 = c + d s, A2 = e + h s.  A cyclotomic f
 * satisfies f conj12(f) = 1 with conj12(t) = -t; the coefficients of t and
 * t^2 of that product give (writing X~ for the Fp4 conjugate)
 *   A1 A0~ - A0 A1~ = -s A2 A2~   and   A0 A2~ + A2 A0~ = A1 A1~,
 * i.e. the linear system in (g0, g3)
 *   2 (d g0 - c g3) = xi h^2 - e^2 =: Q,   2 (e g0 - xi h g3) = c^2 - xi d^2 =: P,
 * so g0 = (xi h Q - c P) / (2 D), g3 = (e Q - d P) / (2 D), D = xi h d - e c.
 * Returns false (r untouched) when D = 0 (e.g. f = 1): the caller then
 * squares without compression.  Variable time (public data). */
bool cuzk_tower_fp12_cyc_decompress(cuzk_fp12 *r, const cuzk_fp2 z[4])
{
    const cuzk_fp2 *c = &z[0], *d = &z[1], *e = &z[2], *h = &z[3];
    cuzk_fp2 P, Q, D, t, u, g0, g3;
    fp2_mul(&D, h, d);
    fp2_mul_xi(&D, &D);
    fp2_mul(&t, e, c);
    fp2_sub(&D, &D, &t);
    if (cuzk_fp2_is_zero(&D)) return false;
    fp2_dbl(&D, &D);
    cuzk_tower_fp2_inv(&D, &D, 1);

    fp2_sqr(&P, c);
    fp2_sqr(&t, d);
    fp2_mul_xi(&t, &t);
    fp2_sub(&P, &P, &t);
    fp2_sqr(&Q, h);
    fp2_mul_xi(&Q, &Q);
    fp2_sqr(&t, e);
    fp2_sub(&Q, &Q, &t);

    fp2_mul_xi(&t, h);            /* g0 = (xi h Q - c P) / 2D */
    fp2_mul(&t, &t, &Q);
    fp2_mul(&u, c, &P);
    fp2_sub(&t, &t, &u);
    fp2_mul(&g0, &t, &D);
    fp2_mul(&t, e, &Q);           /* g3 = (e Q - d P) / 2D */
    fp2_mul(&u, d, &P);
    fp2_sub(&t, &t, &u);
    fp2_mul(&g3, &t, &D);

    r->c0.c0 = g0;
    r->c1.c0 = z[0];
    r->c0.c1 = z[2];
    r->c1.c1 = g3;
    r->c0.c2 = z[1];
    r->c1.c2 = z[3];
    return true;
}

void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t nlimbs)
{
    cuzk_fp12 base = *a, acc = CUZK_FP12_ONE;
    int started = 0;
    for (size_t i = nlimbs; i-- > 0;) {
        for (int b = 63; b >= 0; b--) {
            if (started) cuzk_fp12_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) {
                if (started) cuzk_fp12_mul(&acc, &acc, &base);
                else acc = base;
                started = 1;
            }
        }
    }
    *r = acc;
}

bool cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    return cuzk_fp6_eq(&a->c0, &b->c0) & cuzk_fp6_eq(&a->c1, &b->c1);
}

bool cuzk_fp12_is_one(const cuzk_fp12 *a)
{
    return cuzk_fp12_eq(a, &CUZK_FP12_ONE);
}

void cuzk_fp12_to_bytes_be(uint8_t out[576], const cuzk_fp12 *a)
{
    const cuzk_fp6 *c6[2] = {&a->c0, &a->c1};
    for (int i = 0; i < 2; i++) {
        const cuzk_fp2 *c2[3] = {&c6[i]->c0, &c6[i]->c1, &c6[i]->c2};
        for (int j = 0; j < 3; j++) {
            cuzk_fp_to_bytes_be(out, &c2[j]->c0);
            cuzk_fp_to_bytes_be(out + 48, &c2[j]->c1);
            out += 96;
        }
    }
}
