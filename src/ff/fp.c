/* Fp, the 381-bit base field of BLS12-381, in Montgomery form (R = 2^384).
 *
 * Constants were derived with Python (p as in the BLS12-381 spec):
 *   one = 2^384 mod p, r2 = 2^768 mod p, m0inv = -p^-1 mod 2^64,
 *   r3 = 2^1152 mod p, exponents (p+1)/4, (p-1)/2 written out as little-endian limbs. */
#include <string.h>

#include "cuzk/status.h"
#define CUZK_FF_IMPL 1 /* inline the asm here even in sanitizer builds */
#include "ff/field_internal.h"

const uint64_t CUZK_FP_MODULUS[6] = {
    0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
    0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};
const cuzk_fp CUZK_FP_ZERO = {{0}};
const cuzk_fp CUZK_FP_ONE = {{
    0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
    0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}};
const cuzk_fp CUZK_FP_R2 = {{
    0xf4df1f341c341746ull, 0x0a76e6a609d104f1ull, 0x8de5476c4c95b6d5ull,
    0x67eb88a9939d83c0ull, 0x9a793e85b519952dull, 0x11988fe592cae3aaull}};

static const uint64_t P_PLUS1_DIV4[6] = {
    0xee7fbfffffffeaabull, 0x07aaffffac54ffffull, 0xd9cc34a83dac3d89ull,
    0xd91dd2e13ce144afull, 0x92c6e9ed90d2eb35ull, 0x0680447a8e5ff9a6ull};
static const uint64_t P_MINUS1_DIV2[6] = {
    0xdcff7fffffffd555ull, 0x0f55ffff58a9ffffull, 0xb39869507b587b12ull,
    0xb23ba5c279c2895full, 0x258dd3db21a5d66bull, 0x0d0088f51cbff34dull};
/* 2^(3*384) mod p */
static const cuzk_fp FP_R3 = {{
    0xed48ac6bd94ca1e0ull, 0x315f831e03a7adf8ull, 0x9a53352a615e29ddull,
    0x34c04e5e921e1761ull, 0x2512d43565724728ull, 0x0aa6346091755d4dull}};

const uint64_t cuzk_fp_m0inv_mem = CUZK_FP_M0INV;

#define P CUZK_FP_MODULUS

__attribute__((noinline)) void cuzk_fp_add_portable_ool(cuzk_fp *r, const cuzk_fp *a,
                                                        const cuzk_fp *b)
{
    limbs_add_mod_n(r->l, a->l, b->l, P, 6);
}

__attribute__((noinline)) void cuzk_fp_sub_portable_ool(cuzk_fp *r, const cuzk_fp *a,
                                                        const cuzk_fp *b)
{
    limbs_sub_mod_n(r->l, a->l, b->l, P, 6);
}

void cuzk_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    cuzk_fp_add_inl(r, a, b);
}

void cuzk_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    cuzk_fp_sub_inl(r, a, b);
}

void cuzk_fp_dbl(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp_add_inl(r, a, a);
}

__attribute__((noinline)) void cuzk_fp_neg_portable_ool(cuzk_fp *r, const cuzk_fp *a)
{
    limbs_neg_mod_n(r->l, a->l, P, 6);
}

void cuzk_fp_neg(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp_neg_inl(r, a);
}

__attribute__((noinline)) void cuzk_fp_mul_portable_ool(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    cuzk_fp_mul_portable(r, a, b);
}

void cuzk_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    cuzk_fp_mul_inl(r, a, b);
}

void cuzk_fp_sqr(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp_sqr_inl(r, a);
}

/* Fixed 4-bit windows: one multiplication per 4 exponent bits instead of
 * one per set bit.  The table index comes from the (public) exponent only,
 * so this stays constant time in a. */
void cuzk_fp_pow(cuzk_fp *r, const cuzk_fp *a, const uint64_t *e, size_t nlimbs)
{
    size_t top = nlimbs * 64;
    while (top > 0 && !(e[(top - 1) / 64] >> ((top - 1) % 64) & 1)) top--;
    if (top <= 8) {   /* short exponents: plain square-and-multiply */
        cuzk_fp acc = CUZK_FP_ONE, base = *a;
        for (size_t i = top; i-- > 0;) {
            cuzk_fp_sqr(&acc, &acc);
            if (e[i / 64] >> (i % 64) & 1) cuzk_fp_mul(&acc, &acc, &base);
        }
        *r = acc;
        return;
    }
    cuzk_fp tab[16];
    tab[0] = CUZK_FP_ONE;
    tab[1] = *a;
    for (int i = 2; i < 16; i++) cuzk_fp_mul(&tab[i], &tab[i - 1], a);
    cuzk_fp acc = CUZK_FP_ONE;
    size_t nwin = (top + 3) / 4;
    for (size_t w = nwin; w-- > 0;) {
        if (w != nwin - 1)
            for (int k = 0; k < 4; k++) cuzk_fp_sqr(&acc, &acc);
        size_t bit = 4 * w;
        unsigned d = (unsigned)(e[bit / 64] >> (bit % 64)) & 15;   /* 4 | 64: no straddle */
        if (w == nwin - 1) acc = tab[d];
        else if (d) cuzk_fp_mul(&acc, &acc, &tab[d]);
    }
    *r = acc;
}

/* The safegcd inverse of the Montgomery residue aR is a^-1 R^-1; one
 * Montgomery multiplication by R^3 gives a^-1 R. */
void cuzk_fp_inv(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp t;
    cuzk_fp_inverse_int(t.l, a->l, 0);
    cuzk_fp_mul(r, &t, &FP_R3);
}

void cuzk_fp_inv_var(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp t;
    cuzk_fp_inverse_int(t.l, a->l, 1);
    cuzk_fp_mul(r, &t, &FP_R3);
}

/* Prefix-product batch inversion of n elements; in and out must not alias. */
static void batch_inv_disjoint(cuzk_fp *out, const cuzk_fp *in, size_t n)
{
    cuzk_fp acc = CUZK_FP_ONE;
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        if (!cuzk_fp_is_zero(&in[i])) cuzk_fp_mul(&acc, &acc, &in[i]);
    }
    cuzk_fp_inv_var(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (cuzk_fp_is_zero(&in[i])) {
            out[i] = CUZK_FP_ZERO;
            continue;
        }
        cuzk_fp t;
        cuzk_fp_mul(&t, &acc, &out[i]);
        cuzk_fp_mul(&acc, &acc, &in[i]);
        out[i] = t;
    }
}

void cuzk_fp_batch_inv_var(cuzk_fp *out, const cuzk_fp *in, size_t n)
{
    if (out != in) {
        batch_inv_disjoint(out, in, n);
        return;
    }
    /* In place: the inputs must survive until the backward pass, so work
     * through a bounded stack copy (one inversion per chunk). */
    enum { CHUNK = 256 };
    cuzk_fp copy[CHUNK];
    for (size_t off = 0; off < n; off += CHUNK) {
        size_t m = n - off < CHUNK ? n - off : CHUNK;
        memcpy(copy, in + off, m * sizeof *copy);
        batch_inv_disjoint(out + off, copy, m);
    }
}

bool cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a)
{
    /* p = 3 mod 4: a^((p+1)/4) is a root whenever a is a square. */
    cuzk_fp s, chk;
    cuzk_fp_pow(&s, a, P_PLUS1_DIV4, 6);
    cuzk_fp_sqr(&chk, &s);
    *r = s;
    return cuzk_fp_eq(&chk, a);
}

bool cuzk_fp_is_square(const cuzk_fp *a)
{
    /* Euler's criterion; 0 counts as a square. */
    cuzk_fp t;
    cuzk_fp_pow(&t, a, P_MINUS1_DIV2, 6);
    return (limbs_is_zero_n(a->l, 6) | limbs_eq_n(t.l, CUZK_FP_ONE.l, 6)) != 0;
}

bool cuzk_fp_is_zero(const cuzk_fp *a) { return limbs_is_zero_n(a->l, 6) != 0; }

bool cuzk_fp_is_one(const cuzk_fp *a) { return limbs_eq_n(a->l, CUZK_FP_ONE.l, 6) != 0; }

bool cuzk_fp_eq(const cuzk_fp *a, const cuzk_fp *b) { return limbs_eq_n(a->l, b->l, 6) != 0; }

void cuzk_fp_cmov(cuzk_fp *r, const cuzk_fp *a, uint64_t flag)
{
    limbs_cmov_n(r->l, a->l, flag, 6);
}

bool cuzk_fp_is_lexicographically_largest(const cuzk_fp *a)
{
    uint64_t c[6];
    cuzk_fp_to_limbs(c, a);
    /* c > (p-1)/2  <=>  (p-1)/2 < c */
    return limbs_lt_n(P_MINUS1_DIV2, c, 6) != 0;
}

void cuzk_fp_from_u64(cuzk_fp *r, uint64_t v)
{
    cuzk_fp t = {{v, 0, 0, 0, 0, 0}};
    cuzk_fp_mul(r, &t, &CUZK_FP_R2);
}

int cuzk_fp_from_limbs(cuzk_fp *r, const uint64_t a[6])
{
    if (!limbs_lt_n(a, P, 6)) return CUZK_ERR_ENC_NONCANONICAL;
    cuzk_fp t;
    memcpy(t.l, a, sizeof t.l);
    cuzk_fp_mul(r, &t, &CUZK_FP_R2);
    return CUZK_OK;
}

void cuzk_fp_to_limbs(uint64_t r[6], const cuzk_fp *a)
{
    /* Multiplying by the plain integer 1 strips the Montgomery factor. */
    static const cuzk_fp one_int = {{1, 0, 0, 0, 0, 0}};
    cuzk_fp t;
    cuzk_fp_mul(&t, a, &one_int);
    memcpy(r, t.l, sizeof t.l);
}

void cuzk_fp_to_bytes_be(uint8_t out[48], const cuzk_fp *a)
{
    uint64_t c[6];
    cuzk_fp_to_limbs(c, a);
    for (int i = 0; i < 48; i++) out[47 - i] = (uint8_t)(c[i / 8] >> (8 * (i % 8)));
}

int cuzk_fp_from_bytes_be(cuzk_fp *r, const uint8_t in[48])
{
    uint64_t c[6] = {0};
    for (int i = 0; i < 48; i++) c[i / 8] |= (uint64_t)in[47 - i] << (8 * (i % 8));
    return cuzk_fp_from_limbs(r, c);
}

/* ---- 768-bit lazy-reduction primitives ----------------------------------- */

/* p * 2^384 as 12 limbs: the modulus of the wide add/sub. */
static const uint64_t P_WIDE[12] = {
    0, 0, 0, 0, 0, 0,
    0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
    0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};

void cuzk_fp_mul_wide(cuzk_fp_wide *r, const cuzk_fp *a, const cuzk_fp *b)
{
    cuzk_fp_mul_wide_inl(r, a, b);
}

void cuzk_fp_redc_wide(cuzk_fp *r, const cuzk_fp_wide *t)
{
    cuzk_fp_redc_wide_inl(r, t);
}

__attribute__((noinline)) void cuzk_fp_mul_wide_portable_ool(cuzk_fp_wide *r, const cuzk_fp *a,
                                                             const cuzk_fp *b)
{
    limbs_mul_n(r->l, a->l, b->l, 6);
}

__attribute__((noinline)) void cuzk_fp_redc_wide_portable_ool(cuzk_fp *r, const cuzk_fp_wide *t)
{
    limbs_mont_redc_n(r->l, t->l, P, CUZK_FP_M0INV, 6);
}

void cuzk_fp_wide_add(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b)
{
    /* only the top half of p*2^384 is nonzero, so reduce the top 6 limbs
     * with the carry from the bottom 6 */
    uint64_t carry = 0, s[6];
    for (int i = 0; i < 6; i++) {
        cuzk_u128 x = (cuzk_u128)a->l[i] + b->l[i] + carry;
        r->l[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
    for (int i = 0; i < 6; i++) {
        cuzk_u128 x = (cuzk_u128)a->l[6 + i] + b->l[6 + i] + carry;
        s[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
    limbs_csub_n(r->l + 6, s, carry, P_WIDE + 6, 6);
}

void cuzk_fp_wide_sub(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b)
{
    uint64_t borrow = 0, d[12];
    for (int i = 0; i < 12; i++) {
        cuzk_u128 x = (cuzk_u128)a->l[i] - b->l[i] - borrow;
        d[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    uint64_t mask = 0 - borrow, carry = 0;
    for (int i = 0; i < 6; i++) r->l[i] = d[i];
    for (int i = 6; i < 12; i++) {
        cuzk_u128 x = (cuzk_u128)d[i] + (P_WIDE[i] & mask) + carry;
        r->l[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
}
