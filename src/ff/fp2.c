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
void cuzk_tower_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a, int var)
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

void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_tower_fp2_inv(r, a, 0); }

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

/* (p - 3) / 4, canonical little-endian limbs; 379 bits. */
static const uint64_t P_MINUS_3_DIV_4[6] = {
    0xee7fbfffffffeaaaull, 0x07aaffffac54ffffull, 0xd9cc34a83dac3d89ull,
    0xd91dd2e13ce144afull, 0x92c6e9ed90d2eb35ull, 0x0680447a8e5ff9a6ull};

static unsigned exp_bit(const uint64_t *e, int i) { return (unsigned)(e[i >> 6] >> (i & 63)) & 1; }

/* r = a^((p-3)/4) by a width-5 sliding window over the public exponent:
 * 375 squarings and 66 products, plus 16 operations for the odd-power
 * table, against 378 squarings and 227 products for plain
 * square-and-multiply ((p-3)/4 has 228 set bits).  Width 4 or 6 would
 * cost 86 or 88 products in all, width 5 costs 82.  Branches depend on the exponent only, so
 * this is constant time in a. */
static void fp_pow_pm3d4(cuzk_fp *r, const cuzk_fp *a)
{
    enum { W = 5 };
    cuzk_fp odd[1 << (W - 1)], a2, acc = *a;
    odd[0] = *a;
    fp_sqr(&a2, a);
    for (int k = 1; k < (1 << (W - 1)); k++) fp_mul(&odd[k], &odd[k - 1], &a2);
    int i = 383, started = 0;
    while (!exp_bit(P_MINUS_3_DIV_4, i)) i--;
    while (i >= 0) {
        if (!exp_bit(P_MINUS_3_DIV_4, i)) {
            fp_sqr(&acc, &acc);   /* started: the top bit is set */
            i--;
            continue;
        }
        /* longest window [j, i] of at most W bits that ends in a set bit */
        int j = i - W + 1 < 0 ? 0 : i - W + 1;
        while (!exp_bit(P_MINUS_3_DIV_4, j)) j++;
        unsigned v = 0;
        for (int k = i; k >= j; k--) {
            v = v << 1 | exp_bit(P_MINUS_3_DIV_4, k);
            if (started) fp_sqr(&acc, &acc);
        }
        if (started) fp_mul(&acc, &acc, &odd[v >> 1]);
        else acc = odd[v >> 1];
        started = 1;
        i = j - 1;
    }
    *r = acc;
}

/* Square root in Fp2 by the norm ("complex") method: two Fp
 * exponentiations instead of two Fp2 ones.  For a = a0 + a1 u, a root
 * z0 + z1 u satisfies z0^2 - z1^2 = a0 and 2 z0 z1 = a1, so with
 * n^2 = N = a0^2 + a1^2 (the norm, a square in Fp iff a is one in Fp2),
 * d = (a0 + n)/2 and d' = (a0 - n)/2:  d + d' = a0 and d d' = -a1^2/4.
 * Let t = d^((p-3)/4), x0 = t d = d^((p+1)/4) and l = t x0 = d^((p-1)/2),
 * the Legendre symbol of d (so 1/x0 = l t when d != 0):
 *  - d a square (l = 1):  z = x0 + (a1 t / 2) u  (z0^2 = d, z1 = a1 / 2z0);
 *  - d not one (l = -1):  z = a1 t / 2 - x0 u    (z0^2 = -a1^2/4d = d',
 *    z1^2 = x0^2 = -d, 2 z0 z1 = -a1 l = a1).
 * Neither division nor a second character test is needed, and both cases
 * are formed and selected in constant time.  d = 0 happens only when
 * a0 = -n; then d' = a0 is used instead (a1 = 0: a0 in Fp, any sign of n
 * works), and d = d' = 0 only for a = 0, which yields z = 0.  If N is not
 * a square, n^2 != N and z is garbage: the final z^2 == a check is the
 * verdict in every case. */
bool cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp nrm, t, n, d, dm, x0, l, h;
    cuzk_fp2 z, zsq, chk;
    fp_sqr(&nrm, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&nrm, &nrm, &t);
    fp_pow_pm3d4(&t, &nrm);
    fp_mul(&n, &t, &nrm);                 /* N^((p+1)/4) */

    fp_add(&d, &a->c0, &n);
    fp_sub(&dm, &a->c0, &n);
    cuzk_fp_cmov(&d, &dm, fp_is_zero(&d));
    fp_half(&d, &d);

    fp_pow_pm3d4(&t, &d);
    fp_mul(&x0, &t, &d);
    fp_mul(&l, &t, &x0);
    fp_half(&h, &a->c1);
    fp_mul(&h, &h, &t);

    z.c0 = h;                             /* d not a square */
    fp_neg(&z.c1, &x0);
    zsq.c0 = x0;                          /* d a square */
    zsq.c1 = h;
    cuzk_fp2_cmov(&z, &zsq, fp_eq(&l, &CUZK_FP_ONE));

    fp2_sqr(&chk, &z);
    bool ok = cuzk_fp2_eq(&chk, a);       /* before writing r: r may alias a */
    *r = z;
    return ok;
}
