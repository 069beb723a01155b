/* Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u.
 *
 * xi is neither a square nor a cube in Fp2, so v^3 - xi is irreducible.
 * The products are computed "wide": each Fp2 coefficient is accumulated as
 * an unreduced 768-bit pair (fp2_wide) and reduced once at the end, so an
 * Fp6 multiplication costs 18 384x384 products but only 6 Montgomery
 * reductions.  The wide variants are also used directly by fp12.c so that
 * an Fp12 product reduces 12 times instead of 36. */
#include "ff/tower_internal.h"

const cuzk_fp6 CUZK_FP6_ZERO = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
const cuzk_fp6 CUZK_FP6_ONE = {
    {{{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
       0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
     {{0}}},
    {{{0}}, {{0}}},
    {{{0}}, {{0}}}};

void cuzk_fp6_redc(cuzk_fp6 *r, const fp6_wide *t)
{
    fp2_redc(&r->c0, &t->c0);
    fp2_redc(&r->c1, &t->c1);
    fp2_redc(&r->c2, &t->c2);
}

void cuzk_fp6_wide_add(fp6_wide *r, const fp6_wide *a, const fp6_wide *b)
{
    fp2_wide_add(&r->c0, &a->c0, &b->c0);
    fp2_wide_add(&r->c1, &a->c1, &b->c1);
    fp2_wide_add(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_wide_sub(fp6_wide *r, const fp6_wide *a, const fp6_wide *b)
{
    fp2_wide_sub(&r->c0, &a->c0, &b->c0);
    fp2_wide_sub(&r->c1, &a->c1, &b->c1);
    fp2_wide_sub(&r->c2, &a->c2, &b->c2);
}

/* r = a * v: (a0, a1, a2) -> (xi a2, a0, a1). */
void cuzk_fp6_wide_mul_v(fp6_wide *r, const fp6_wide *a)
{
    fp2_wide t;
    fp2_wide_mul_xi(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* Karatsuba over Fp2 (6 products):
 *   c0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2)
 *   c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2
 *   c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1
 * with ti = ai bi.  The Fp2 sums are reduced mod p so that fp2_mul_wide's
 * own Karatsuba sums stay below 2p. */
void cuzk_fp6_mul_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    fp2_wide t0, t1, t2, m, c0, c1, c2;
    cuzk_fp2 sa, sb;
    fp2_mul_wide(&t0, &a->c0, &b->c0);
    fp2_mul_wide(&t1, &a->c1, &b->c1);
    fp2_mul_wide(&t2, &a->c2, &b->c2);

    fp2_add(&sa, &a->c1, &a->c2);
    fp2_add(&sb, &b->c1, &b->c2);
    fp2_mul_wide(&m, &sa, &sb);
    fp2_wide_sub(&m, &m, &t1);
    fp2_wide_sub(&m, &m, &t2);
    fp2_wide_mul_xi(&m, &m);
    fp2_wide_add(&c0, &m, &t0);

    fp2_add(&sa, &a->c0, &a->c1);
    fp2_add(&sb, &b->c0, &b->c1);
    fp2_mul_wide(&m, &sa, &sb);
    fp2_wide_sub(&m, &m, &t0);
    fp2_wide_sub(&m, &m, &t1);
    fp2_wide_mul_xi(&c1, &t2);
    fp2_wide_add(&c1, &c1, &m);

    fp2_add(&sa, &a->c0, &a->c2);
    fp2_add(&sb, &b->c0, &b->c2);
    fp2_mul_wide(&m, &sa, &sb);
    fp2_wide_sub(&m, &m, &t0);
    fp2_wide_sub(&m, &m, &t2);
    fp2_wide_add(&c2, &m, &t1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* Chung-Hasan SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2,
 * s3 = 2 a1 a2, s4 = a2^2;  c0 = s0 + xi s3, c1 = s1 + xi s4,
 * c2 = s1 + s2 + s3 - s0 - s4.  Five Fp2 products instead of six. */
void cuzk_fp6_sqr_wide(fp6_wide *r, const cuzk_fp6 *a)
{
    fp2_wide s0, s1, s2, s3, s4, t;
    cuzk_fp2 d;
    fp2_sqr_wide(&s0, &a->c0);
    fp2_dbl(&d, &a->c0);
    fp2_mul_wide(&s1, &d, &a->c1);
    fp2_sub(&d, &a->c0, &a->c1);
    fp2_add(&d, &d, &a->c2);
    fp2_sqr_wide(&s2, &d);
    fp2_dbl(&d, &a->c1);
    fp2_mul_wide(&s3, &d, &a->c2);
    fp2_sqr_wide(&s4, &a->c2);

    fp2_wide_add(&t, &s1, &s2);
    fp2_wide_add(&t, &t, &s3);
    fp2_wide_sub(&t, &t, &s0);
    fp2_wide_sub(&r->c2, &t, &s4);
    fp2_wide_mul_xi(&t, &s3);
    fp2_wide_add(&r->c0, &s0, &t);
    fp2_wide_mul_xi(&t, &s4);
    fp2_wide_add(&r->c1, &s1, &t);
}

/* a * (b0 + b1 v) = (a0 b0 + xi a2 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) v
 *                   + (a2 b0 + a1 b1) v^2: five Fp2 products. */
void cuzk_fp6_mul_by_01_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1)
{
    fp2_wide t0, t1, m, c0, c1, c2;
    cuzk_fp2 sa, sb;
    fp2_mul_wide(&t0, &a->c0, b0);
    fp2_mul_wide(&t1, &a->c1, b1);

    fp2_mul_wide(&m, &a->c2, b1);
    fp2_wide_mul_xi(&m, &m);
    fp2_wide_add(&c0, &m, &t0);

    fp2_add(&sa, &a->c0, &a->c1);
    fp2_add(&sb, b0, b1);
    fp2_mul_wide(&m, &sa, &sb);
    fp2_wide_sub(&m, &m, &t0);
    fp2_wide_sub(&c1, &m, &t1);

    fp2_mul_wide(&m, &a->c2, b0);
    fp2_wide_add(&c2, &m, &t1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* a * (b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2. */
void cuzk_fp6_mul_by_1_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp2 *b1)
{
    fp2_wide c0, c1, c2;
    fp2_mul_wide(&c0, &a->c2, b1);
    fp2_wide_mul_xi(&c0, &c0);
    fp2_mul_wide(&c1, &a->c0, b1);
    fp2_mul_wide(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1)
{
    fp6_wide t;
    cuzk_fp6_mul_by_01_wide(&t, a, b0, b1);
    cuzk_fp6_redc(r, &t);
}

void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1)
{
    fp6_wide t;
    cuzk_fp6_mul_by_1_wide(&t, a, b1);
    cuzk_fp6_redc(r, &t);
}

void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    fp2_add(&r->c0, &a->c0, &b->c0);
    fp2_add(&r->c1, &a->c1, &b->c1);
    fp2_add(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    fp2_sub(&r->c0, &a->c0, &b->c0);
    fp2_sub(&r->c1, &a->c1, &b->c1);
    fp2_sub(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    fp2_neg(&r->c0, &a->c0);
    fp2_neg(&r->c1, &a->c1);
    fp2_neg(&r->c2, &a->c2);
}

void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    fp6_wide t;
    cuzk_fp6_mul_wide(&t, a, b);
    cuzk_fp6_redc(r, &t);
}

void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    fp6_wide t;
    cuzk_fp6_sqr_wide(&t, a);
    cuzk_fp6_redc(r, &t);
}

void cuzk_fp6_mul_by_nonresidue(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2 t;
    fp2_mul_xi(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* (a0 + a1 v + a2 v^2)^-1 = (A + B v + C v^2) / F with
 *   A = a0^2 - xi a1 a2,  B = xi a2^2 - a0 a1,  C = a1^2 - a0 a2,
 *   F = a0 A + xi (a2 B + a1 C)  (the norm to Fp2).
 * One Fp2 inversion; 0 maps to 0 because F = 0 then. */
void cuzk_tower_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a, int var)
{
    cuzk_fp2 A, B, C, F, t;
    fp2_sqr(&A, &a->c0);
    fp2_mul(&t, &a->c1, &a->c2);
    fp2_mul_xi(&t, &t);
    fp2_sub(&A, &A, &t);

    fp2_sqr(&B, &a->c2);
    fp2_mul_xi(&B, &B);
    fp2_mul(&t, &a->c0, &a->c1);
    fp2_sub(&B, &B, &t);

    fp2_sqr(&C, &a->c1);
    fp2_mul(&t, &a->c0, &a->c2);
    fp2_sub(&C, &C, &t);

    fp2_mul(&F, &a->c2, &B);
    fp2_mul(&t, &a->c1, &C);
    fp2_add(&F, &F, &t);
    fp2_mul_xi(&F, &F);
    fp2_mul(&t, &a->c0, &A);
    fp2_add(&F, &F, &t);
    cuzk_tower_fp2_inv(&F, &F, var);

    fp2_mul(&r->c0, &A, &F);
    fp2_mul(&r->c1, &B, &F);
    fp2_mul(&r->c2, &C, &F);
}

void cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a) { cuzk_tower_fp6_inv(r, a, 0); }

/* (sum ai v^i)^(p^k) = sum conj^k(ai) v^(i p^k), and
 * v^(p^k) = v * xi^((p^k - 1)/3) = v * gamma[k][2] since v = w^2.
 * v^(p^6) = v, so the map has period 6. */
void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned power)
{
    unsigned k = power % 6;
    if (k == 0) {
        *r = *a;
        return;
    }
    cuzk_fp2 c0 = a->c0, c1 = a->c1, c2 = a->c2;
    if (k & 1) {
        fp2_conj(&c0, &c0);
        fp2_conj(&c1, &c1);
        fp2_conj(&c2, &c2);
    }
    r->c0 = c0;
    fp2_mul(&r->c1, &c1, &CUZK_FROB_GAMMA[k - 1][1]);
    fp2_mul(&r->c2, &c2, &CUZK_FROB_GAMMA[k - 1][3]);
}

bool cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    return cuzk_fp2_eq(&a->c0, &b->c0) & cuzk_fp2_eq(&a->c1, &b->c1) &
           cuzk_fp2_eq(&a->c2, &b->c2);
}
