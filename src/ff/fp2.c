/* Fp2 = Fp[u]/(u^2 + 1).
 *
 * -1 is a non-square in Fp because p = 3 mod 4, so u^2 + 1 is irreducible.
 * Multiplication and squaring use lazy reduction (tower_internal.h): the
 * Karatsuba products are accumulated as unreduced 768-bit values and each
 * output coefficient pays one Montgomery reduction, not three. */
#include "ff/tower_internal.h"

const cuzk_fp2 CUZK_FP2_ZERO = {{{0}}, {{0}}};
const cuzk_fp2 CUZK_FP2_ONE = {
    {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
      0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
    {{0}}};

void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) { fp2_add(r, a, b); }
void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) { fp2_sub(r, a, b); }
void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a) { fp2_dbl(r, a); }
void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a) { fp2_neg(r, a); }
void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) { fp2_mul(r, a, b); }
void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a) { fp2_sqr(r, a); }
void cuzk_fp2_mul_by_nonresidue(cuzk_fp2 *r, const cuzk_fp2 *a) { fp2_mul_xi(r, a); }

void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    r->c0 = a->c0;
    fp_neg(&r->c1, &a->c1);
}

void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b)
{
    fp_mul(&r->c0, &a->c0, b);
    fp_mul(&r->c1, &a->c1, b);
}

/* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2); the norm is in Fp, so one
 * Fp inversion (var: the variable-time one, for public data).  A zero
 * input gives a zero norm, and both Fp inversions map 0 to 0, hence 0 -> 0. */
void tower_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a, int var)
{
    cuzk_fp t0, t1;
    fp_sqr(&t0, &a->c0);
    fp_sqr(&t1, &a->c1);
    fp_add(&t0, &t0, &t1);
    if (var) cuzk_fp_inv_var(&t0, &t0);
    else cuzk_fp_inv(&t0, &t0);
    fp_mul(&r->c0, &a->c0, &t0);
    fp_mul(&t1, &a->c1, &t0);
    fp_neg(&r->c1, &t1);
}

void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a) { tower_fp2_inv(r, a, 0); }

/* Left-to-right square and multiply.  The exponent is public, so branching
 * on its bits is fine; the sequence of operations does not depend on a. */
void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t nlimbs)
{
    cuzk_fp2 base = *a, acc = CUZK_FP2_ONE;
    int started = 0;
    for (size_t i = nlimbs; i-- > 0;) {
        for (int b = 63; b >= 0; b--) {
            if (started) fp2_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) {
                if (started) fp2_mul(&acc, &acc, &base);
                else acc = base;
                started = 1;
            }
        }
    }
    *r = acc;
}

bool cuzk_fp2_is_zero(const cuzk_fp2 *a)
{
    return fp_is_zero(&a->c0) & fp_is_zero(&a->c1);
}

bool cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    return fp_eq(&a->c0, &b->c0) & fp_eq(&a->c1, &b->c1);
}

void cuzk_fp2_cmov(cuzk_fp2 *r, const cuzk_fp2 *a, uint64_t flag)
{
    cuzk_fp_cmov(&r->c0, &a->c0, flag);
    cuzk_fp_cmov(&r->c1, &a->c1, flag);
}

bool cuzk_fp2_is_lexicographically_largest(const cuzk_fp2 *a)
{
    /* evaluate both halves, select without branching on secret data */
    uint64_t hi = cuzk_fp_is_lexicographically_largest(&a->c1);
    uint64_t lo = cuzk_fp_is_lexicographically_largest(&a->c0);
    uint64_t c1zero = fp_is_zero(&a->c1);
    return (bool)((hi & (c1zero ^ 1)) | (lo & c1zero));
}

/* (p - 3) / 4 and (p - 1) / 2, canonical little-endian limbs. */
static const uint64_t P_MINUS_3_DIV_4[6] = {
    0xee7fbfffffffeaaaull, 0x07aaffffac54ffffull, 0xd9cc34a83dac3d89ull,
    0xd91dd2e13ce144afull, 0x92c6e9ed90d2eb35ull, 0x0680447a8e5ff9a6ull};
static const uint64_t P_MINUS_1_DIV_2[6] = {
    0xdcff7fffffffd555ull, 0x0f55ffff58a9ffffull, 0xb39869507b587b12ull,
    0xb23ba5c279c2895full, 0x258dd3db21a5d66bull, 0x0d0088f51cbff34dull};

/* Square root for q = p^2 with p = 3 mod 4: Algorithm 9 of Adj and
 * Rodriguez-Henriquez, "Square root computation over even extension fields"
 * (eprint 2012/685).  With a1 = a^((p-3)/4) and alpha = a1^2 a =
 * a^((p-1)/2), conj(alpha)*alpha = a^((p^2-1)/2) is the quadratic character
 * of a.  x0 = a1 a = a^((p+1)/4) satisfies x0^2 = alpha a; when alpha = -1
 * the root is u x0 (u^2 = -1), else it is (1+alpha)^((p-1)/2) x0.
 * Both candidates are computed and selected in constant time; the final
 * x^2 == a check makes the result independent of the case analysis. */
bool cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp2 a1, alpha, x0, xa, xb, t, minus_one;
    cuzk_fp2_pow(&a1, a, P_MINUS_3_DIV_4, 6);
    fp2_sqr(&alpha, &a1);
    fp2_mul(&alpha, &alpha, a);
    fp2_mul(&x0, &a1, a);

    /* candidate for alpha = -1: u * x0 = -x0.c1 + x0.c0 u */
    fp_neg(&xa.c0, &x0.c1);
    xa.c1 = x0.c0;
    /* general candidate */
    fp2_add(&t, &alpha, &CUZK_FP2_ONE);
    cuzk_fp2_pow(&t, &t, P_MINUS_1_DIV_2, 6);
    fp2_mul(&xb, &t, &x0);

    fp2_neg(&minus_one, &CUZK_FP2_ONE);
    cuzk_fp2_cmov(&xb, &xa, (uint64_t)cuzk_fp2_eq(&alpha, &minus_one));

    fp2_sqr(&t, &xb);
    bool ok = cuzk_fp2_eq(&t, a);   /* before writing r: r may alias a */
    *r = xb;
    return ok;
}
