/* Fr, the 255-bit scalar field of BLS12-381, in Montgomery form (R = 2^256).
 *
 * Constants were derived with Python (r as in the BLS12-381 spec):
 *   one = 2^256 mod r, r2 = 2^512 mod r, r3 = 2^768 mod r,
 *   m0inv = -r^-1 mod 2^64;
 *   r - 1 = 2^32 * t with t odd; 7 generates Fr^*, so g = 7^t has order
 *   exactly 2^32 (stored in Montgomery form). */
#include <string.h>

#include "cuzk/status.h"
#define CUZK_FF_IMPL 1 /* inline the asm here even in sanitizer builds */
#include "ff/field_internal.h"

const uint64_t CUZK_FR_MODULUS[4] = {
    0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
    0x73eda753299d7d48ull};
const cuzk_fr CUZK_FR_ZERO = {{0}};
const cuzk_fr CUZK_FR_ONE = {{
    0x00000001fffffffeull, 0x5884b7fa00034802ull, 0x998c4fefecbc4ff5ull,
    0x1824b159acc5056full}};
const cuzk_fr CUZK_FR_R2 = {{
    0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull, 0x05d314967254398full,
    0x0748d9d99f59ff11ull}};

/* 2^(3*256) mod r */
static const cuzk_fr FR_R3 = {{
    0xc62c1807439b73afull, 0x1b3e0d188cf06990ull, 0x73d13c71c7b5f418ull,
    0x6e2a5bb9c8db33e9ull}};
/* (t - 1) / 2 */
static const uint64_t T_MINUS1_DIV2[4] = {
    0x7fff2dff7fffffffull, 0x04d0ec02a9ded201ull, 0x94cebea4199cec04ull,
    0x0000000039f6d3a9ull};
enum { TWO_ADICITY = 32 };
/* 7^t * R mod r: a primitive 2^32-th root of unity in Montgomery form */
static const cuzk_fr ROOT_2_32 = {{
    0xb9b58d8c5f0e466aull, 0x5b1b4c801819d7ecull, 0x0af53ae352a31e64ull,
    0x5bf3adda19e9b27bull}};

const uint64_t cuzk_fr_m0inv_mem = CUZK_FR_M0INV;

#define M CUZK_FR_MODULUS

__attribute__((noinline)) void cuzk_fr_add_portable_ool(cuzk_fr *r, const cuzk_fr *a,
                                                        const cuzk_fr *b)
{
    limbs_add_mod_n(r->l, a->l, b->l, M, 4);
}

__attribute__((noinline)) void cuzk_fr_sub_portable_ool(cuzk_fr *r, const cuzk_fr *a,
                                                        const cuzk_fr *b)
{
    limbs_sub_mod_n(r->l, a->l, b->l, M, 4);
}

void cuzk_fr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr_add_inl(r, a, b);
}

void cuzk_fr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr_sub_inl(r, a, b);
}

void cuzk_fr_dbl(cuzk_fr *r, const cuzk_fr *a)
{
    cuzk_fr_add_inl(r, a, a);
}

__attribute__((noinline)) void cuzk_fr_neg_portable_ool(cuzk_fr *r, const cuzk_fr *a)
{
    limbs_neg_mod_n(r->l, a->l, M, 4);
}

void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a)
{
    cuzk_fr_neg_inl(r, a);
}

__attribute__((noinline)) void cuzk_fr_mul_portable_ool(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr_mul_portable(r, a, b);
}

void cuzk_fr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr_mul_inl(r, a, b);
}

void cuzk_fr_sqr(cuzk_fr *r, const cuzk_fr *a)
{
    cuzk_fr_mul_inl(r, a, a);
}

/* Fixed 4-bit windows: one multiplication per 4 exponent bits instead of
 * one per set bit.  The table index comes from the (public) exponent only,
 * so this stays constant time in a. */
void cuzk_fr_pow(cuzk_fr *r, const cuzk_fr *a, const uint64_t *e, size_t nlimbs)
{
    size_t top = nlimbs * 64;
    while (top > 0 && !(e[(top - 1) / 64] >> ((top - 1) % 64) & 1)) top--;
    if (top <= 8) {   /* short exponents: plain square-and-multiply */
        cuzk_fr acc = CUZK_FR_ONE, base = *a;
        for (size_t i = top; i-- > 0;) {
            cuzk_fr_sqr(&acc, &acc);
            if (e[i / 64] >> (i % 64) & 1) cuzk_fr_mul(&acc, &acc, &base);
        }
        *r = acc;
        return;
    }
    cuzk_fr tab[16];
    tab[0] = CUZK_FR_ONE;
    tab[1] = *a;
    for (int i = 2; i < 16; i++) cuzk_fr_mul(&tab[i], &tab[i - 1], a);
    cuzk_fr acc = CUZK_FR_ONE;
    size_t nwin = (top + 3) / 4;
    for (size_t w = nwin; w-- > 0;) {
        if (w != nwin - 1)
            for (int k = 0; k < 4; k++) cuzk_fr_sqr(&acc, &acc);
        size_t bit = 4 * w;
        unsigned d = (unsigned)(e[bit / 64] >> (bit % 64)) & 15;   /* 4 | 64: no straddle */
        if (w == nwin - 1) acc = tab[d];
        else if (d) cuzk_fr_mul(&acc, &acc, &tab[d]);
    }
    *r = acc;
}

/* safegcd on the Montgomery residue, then * R^3 (see cuzk_fp_inv). */
void cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a)
{
    cuzk_fr t;
    cuzk_fr_inverse_int(t.l, a->l, 0);
    cuzk_fr_mul(r, &t, &FR_R3);
}

void cuzk_fr_inv_var(cuzk_fr *r, const cuzk_fr *a)
{
    cuzk_fr t;
    cuzk_fr_inverse_int(t.l, a->l, 1);
    cuzk_fr_mul(r, &t, &FR_R3);
}

static void batch_inv_disjoint(cuzk_fr *out, const cuzk_fr *in, size_t n)
{
    cuzk_fr acc = CUZK_FR_ONE;
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        if (!cuzk_fr_is_zero(&in[i])) cuzk_fr_mul(&acc, &acc, &in[i]);
    }
    cuzk_fr_inv_var(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (cuzk_fr_is_zero(&in[i])) {
            out[i] = CUZK_FR_ZERO;
            continue;
        }
        cuzk_fr t;
        cuzk_fr_mul(&t, &acc, &out[i]);
        cuzk_fr_mul(&acc, &acc, &in[i]);
        out[i] = t;
    }
}

void cuzk_fr_batch_inv_var(cuzk_fr *out, const cuzk_fr *in, size_t n)
{
    if (out != in) {
        batch_inv_disjoint(out, in, n);
        return;
    }
    /* In place: see cuzk_fp_batch_inv_var. */
    enum { CHUNK = 256 };
    cuzk_fr copy[CHUNK];
    for (size_t off = 0; off < n; off += CHUNK) {
        size_t m = n - off < CHUNK ? n - off : CHUNK;
        memcpy(copy, in + off, m * sizeof *copy);
        batch_inv_disjoint(out + off, copy, m);
    }
}

/* Constant-time Tonelli-Shanks, descending form.  With s = a^((t+1)/2) and
 * u = a^t we keep s^2 = a*u.  If a is a square, u has order dividing
 * 2^31.  For k = 31 .. 1, if u^(2^(k-1)) = -1 the order of u is exactly 2^k;
 * b = g^(2^(31-k)) has order 2^(k+1), so u*b^2 has order < 2^k, and
 * (s*b)^2 = a*(u*b^2) keeps the invariant.  At the end u = 1 and s^2 = a.
 * Every step does the same work; the choice is a cmov. */
bool cuzk_fr_sqrt(cuzk_fr *r, const cuzk_fr *a)
{
    cuzk_fr w, s, u, b = ROOT_2_32;
    cuzk_fr_pow(&w, a, T_MINUS1_DIV2, 4);   /* a^((t-1)/2) */
    cuzk_fr_mul(&s, a, &w);                  /* a^((t+1)/2) */
    cuzk_fr_mul(&u, &s, &w);                 /* a^t */
    cuzk_fr minus_one;
    cuzk_fr_neg(&minus_one, &CUZK_FR_ONE);
    for (int k = TWO_ADICITY - 1; k >= 1; k--) {
        cuzk_fr e = u, b2, s2, u2;
        for (int i = 0; i < k - 1; i++) cuzk_fr_sqr(&e, &e);
        uint64_t flip = limbs_eq_n(e.l, minus_one.l, 4);
        cuzk_fr_sqr(&b2, &b);
        cuzk_fr_mul(&s2, &s, &b);
        cuzk_fr_mul(&u2, &u, &b2);
        cuzk_fr_cmov(&s, &s2, flip);
        cuzk_fr_cmov(&u, &u2, flip);
        b = b2;
    }
    cuzk_fr chk;
    cuzk_fr_sqr(&chk, &s);
    *r = s;
    return cuzk_fr_eq(&chk, a);
}

bool cuzk_fr_is_zero(const cuzk_fr *a) { return limbs_is_zero_n(a->l, 4) != 0; }

bool cuzk_fr_is_one(const cuzk_fr *a) { return limbs_eq_n(a->l, CUZK_FR_ONE.l, 4) != 0; }

bool cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b) { return limbs_eq_n(a->l, b->l, 4) != 0; }

void cuzk_fr_cmov(cuzk_fr *r, const cuzk_fr *a, uint64_t flag)
{
    limbs_cmov_n(r->l, a->l, flag, 4);
}

void cuzk_fr_from_u64(cuzk_fr *r, uint64_t v)
{
    cuzk_fr t = {{v, 0, 0, 0}};
    cuzk_fr_mul(r, &t, &CUZK_FR_R2);
}

int cuzk_fr_from_limbs(cuzk_fr *r, const uint64_t a[4])
{
    if (!limbs_lt_n(a, M, 4)) return CUZK_ERR_ENC_NONCANONICAL;
    cuzk_fr t;
    memcpy(t.l, a, sizeof t.l);
    cuzk_fr_mul(r, &t, &CUZK_FR_R2);
    return CUZK_OK;
}

void cuzk_fr_to_limbs(uint64_t r[4], const cuzk_fr *a)
{
    static const cuzk_fr one_int = {{1, 0, 0, 0}};
    cuzk_fr t;
    cuzk_fr_mul(&t, a, &one_int);
    memcpy(r, t.l, sizeof t.l);
}

void cuzk_fr_to_bytes_le(uint8_t out[32], const cuzk_fr *a)
{
    uint64_t c[4];
    cuzk_fr_to_limbs(c, a);
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(c[i / 8] >> (8 * (i % 8)));
}

int cuzk_fr_from_bytes_le(cuzk_fr *r, const uint8_t in[32])
{
    uint64_t c[4] = {0};
    for (int i = 0; i < 32; i++) c[i / 8] |= (uint64_t)in[i] << (8 * (i % 8));
    return cuzk_fr_from_limbs(r, c);
}

void cuzk_fr_from_bytes_le_reduce(cuzk_fr *r, const uint8_t *in, size_t len)
{
    /* Horner over 32-byte chunks from the most significant end:
     * acc = acc * 2^256 + chunk.  In Montgomery form, multiplying by R^2
     * both converts a chunk and scales acc by 2^256.  A chunk is < 2^256
     * < 3r; two conditional subtractions bring it below r, as the
     * multiplication requires. */
    cuzk_fr acc = CUZK_FR_ZERO;
    size_t nchunks = (len + 31) / 32;
    for (size_t k = nchunks; k-- > 0;) {
        cuzk_fr c = {{0}};
        size_t base = k * 32;
        for (size_t i = 0; i < 32 && base + i < len; i++)
            c.l[i / 8] |= (uint64_t)in[base + i] << (8 * (i % 8));
        limbs_csub_n(c.l, c.l, 0, M, 4);
        limbs_csub_n(c.l, c.l, 0, M, 4);
        cuzk_fr_mul(&acc, &acc, &CUZK_FR_R2);
        cuzk_fr_mul(&c, &c, &CUZK_FR_R2);
        cuzk_fr_add(&acc, &acc, &c);
    }
    *r = acc;
}
