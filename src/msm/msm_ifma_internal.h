/* AVX-512 IFMA Fp arithmetic shared by the G1 and G2 pair kernels
 * (msm_ifma.c, msm_ifma_g2.c): eight Fp elements per vector operation.
 * Private to those files; everything is static, each includer keeps its
 * own copy of the constants (init_constants from its constructor).
 *
 * Each lane holds one element as eight 52-bit limbs (limb-major: vector k
 * holds limb k of the eight elements); vpmadd52luq/huq multiply 52-bit
 * limbs and accumulate into 64-bit lanes.  Memory keeps the library's
 * format (6 x 64-bit limbs, Montgomery form with R = 2^384): loads
 * transpose eight elements and re-cut 6 x 64 into 8 x 52 bits, stores undo
 * both.
 *
 * Montgomery product without a change of domain: eight 52-bit reduction
 * steps divide by 2^416, so the product is taken with one operand shifted
 * left by 32 bits (as an integer, a * 2^32 < 2^413 still fits eight limbs):
 * (a * 2^32) * b * 2^-416 = a * b * 2^-384, the library's product.  The
 * bound (a 2^32 b + q p) / 2^416 < p (2^413 / 2^416 + 1) < 2p leaves one
 * conditional subtraction, skipped where the result only feeds other
 * products (v_mul_lazy: inputs and outputs in [0, 2p)).  Squares use
 * (a 2^16)^2 = a^2 2^32 instead, a symmetric product (v_sqr).
 *
 * Ranges: limbs are normalized (< 2^52) between operations; values are
 * fully reduced except the lazy products' as stated.  Memory results are
 * bit-identical to the scalar field code.  Constant time per vector; the
 * pair kernels are variable time (public MSM data). */
#ifndef CUZK_MSM_IFMA_INTERNAL_H
#define CUZK_MSM_IFMA_INTERNAL_H

#include "ff/field_internal.h"
#include "msm/msm_internal.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(CUZK_HAVE_ASM)
#include <immintrin.h>

#define TGT __attribute__((target("avx512f,avx512ifma,avx512vbmi2"), always_inline)) static inline
#define TGT_FN __attribute__((target("avx512f,avx512ifma,avx512vbmi2")))

#define MASK52 0xfffffffffffffull

typedef struct {
    __m512i l[8];
} v8fp;

/* p in 52-bit limbs; -p^-1 mod 2^52 */
static uint64_t p52[8], mp52;

static void init_constants(void)
{
    const uint64_t *m = CUZK_FP_MODULUS;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        unsigned s = 52 * i, w = s / 64, o = s % 64;
        uint64_t v = m[w] >> o;
        if (o > 12 && w < 5) v |= m[w + 1] << (64 - o);
        p52[i] = v & MASK52;
    }
    mp52 = CUZK_FP_M0INV & MASK52;
}

/* ---- layout conversion ----------------------------------------------------- */

#define IDX(a, b, c, d, e, f, g, h) _mm512_setr_epi64(a, b, c, d, e, f, g, h)

/* 8 x 8 transpose of 64-bit words: out[k] lane e = in[e] lane k (unused
 * outputs are dropped by the compiler). */
TGT void tr8(__m512i out[8], const __m512i r[8])
{
    const __m512i lo = IDX(0, 1, 8, 9, 4, 5, 12, 13), hi = IDX(2, 3, 10, 11, 6, 7, 14, 15);
    const __m512i h0 = IDX(0, 1, 2, 3, 8, 9, 10, 11), h1 = IDX(4, 5, 6, 7, 12, 13, 14, 15);
    __m512i t[8], s[8];
#pragma GCC unroll 8
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);     /* words 0,2,4,6 */
        t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]); /* 1,3,5,7 */
    }
#pragma GCC unroll 8
    for (int i = 0; i < 2; i++) {
        s[4 * i + 0] = _mm512_permutex2var_epi64(t[4 * i], lo, t[4 * i + 2]);     /* 0, 4 */
        s[4 * i + 1] = _mm512_permutex2var_epi64(t[4 * i], hi, t[4 * i + 2]);     /* 2, 6 */
        s[4 * i + 2] = _mm512_permutex2var_epi64(t[4 * i + 1], lo, t[4 * i + 3]); /* 1, 5 */
        s[4 * i + 3] = _mm512_permutex2var_epi64(t[4 * i + 1], hi, t[4 * i + 3]); /* 3, 7 */
    }
    out[0] = _mm512_permutex2var_epi64(s[0], h0, s[4]);
    out[4] = _mm512_permutex2var_epi64(s[0], h1, s[4]);
    out[2] = _mm512_permutex2var_epi64(s[1], h0, s[5]);
    out[6] = _mm512_permutex2var_epi64(s[1], h1, s[5]);
    out[1] = _mm512_permutex2var_epi64(s[2], h0, s[6]);
    out[5] = _mm512_permutex2var_epi64(s[2], h1, s[6]);
    out[3] = _mm512_permutex2var_epi64(s[3], h0, s[7]);
    out[7] = _mm512_permutex2var_epi64(s[3], h1, s[7]);
}

/* 6 x 64-bit words (limb-major) -> 8 x 52-bit limbs. */
TGT v8fp recut(const __m512i w[6])
{
    const __m512i m = _mm512_set1_epi64((long long)MASK52);
    v8fp x;
    x.l[0] = _mm512_and_si512(w[0], m);
    x.l[1] = _mm512_and_si512(_mm512_shrdi_epi64(w[0], w[1], 52), m);
    x.l[2] = _mm512_and_si512(_mm512_shrdi_epi64(w[1], w[2], 40), m);
    x.l[3] = _mm512_and_si512(_mm512_shrdi_epi64(w[2], w[3], 28), m);
    x.l[4] = _mm512_and_si512(_mm512_shrdi_epi64(w[3], w[4], 16), m);
    x.l[5] = _mm512_and_si512(_mm512_srli_epi64(w[4], 4), m);
    x.l[6] = _mm512_and_si512(_mm512_shrdi_epi64(w[4], w[5], 56), m);
    x.l[7] = _mm512_srli_epi64(w[5], 44);
    return x;
}

/* Loads the elements at p[0..7] (any addresses). */
TGT v8fp load8p(const cuzk_fp *const p[8])
{
    __m512i r[8], w[8];
#pragma GCC unroll 8
    for (int e = 0; e < 8; e++)
        r[e] = _mm512_maskz_loadu_epi64(0x3f, p[e]->l);
    tr8(w, r);
    return recut(w);
}

TGT v8fp load8(const cuzk_fp *p)
{
    const cuzk_fp *q[8] = {p, p + 1, p + 2, p + 3, p + 4, p + 5, p + 6, p + 7};
    return load8p(q);
}

/* Stores lane e to p[e] for the lanes in mask. */
TGT void store8p(cuzk_fp *const p[8], const v8fp *x, __mmask8 mask)
{
    __m512i w[8], t[8];
    w[0] = _mm512_or_si512(x->l[0], _mm512_slli_epi64(x->l[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(x->l[1], 12), _mm512_slli_epi64(x->l[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(x->l[2], 24), _mm512_slli_epi64(x->l[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(x->l[3], 36), _mm512_slli_epi64(x->l[4], 16));
    w[4] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi64(x->l[4], 48), _mm512_slli_epi64(x->l[5], 4)),
                           _mm512_slli_epi64(x->l[6], 56));
    w[5] = _mm512_or_si512(_mm512_srli_epi64(x->l[6], 8), _mm512_slli_epi64(x->l[7], 44));
    w[6] = w[7] = _mm512_setzero_si512();
    tr8(t, w);
#pragma GCC unroll 8
    for (int e = 0; e < 8; e++)
        if (mask >> e & 1) _mm512_mask_storeu_epi64(p[e]->l, 0x3f, t[e]);
}

TGT void store8(cuzk_fp *p, const v8fp *x)
{
    cuzk_fp *q[8] = {p, p + 1, p + 2, p + 3, p + 4, p + 5, p + 6, p + 7};
    store8p(q, x, 0xff);
}

/* ---- arithmetic ------------------------------------------------------------ */

/* Carry propagation: limbs of t to [0, 2^52) (the top one keeps the rest).
 * Signed limbs (|t_k| < 2^62) give a signed top limb. */
TGT void carry(__m512i t[8])
{
    const __m512i m = _mm512_set1_epi64((long long)MASK52);
#pragma GCC unroll 8
    for (int k = 0; k < 7; k++) {
        t[k + 1] = _mm512_add_epi64(t[k + 1], _mm512_srai_epi64(t[k], 52));
        t[k] = _mm512_and_si512(t[k], m);
    }
}

/* normalized x in [0, 2p) -> x mod p */
TGT v8fp sub_p_once(const __m512i t[8])
{
    __m512i d[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        d[k] = _mm512_sub_epi64(t[k], _mm512_set1_epi64((long long)p52[k]));
    carry(d);
    __mmask8 keep = _mm512_cmplt_epi64_mask(d[7], _mm512_setzero_si512()); /* t < p */
    v8fp r;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        r.l[k] = _mm512_mask_blend_epi64(keep, d[k], t[k]);
    return r;
}

/* a + b or a - b limb by limb, carried (a - b < 0: a signed top limb). */
TGT v8fp v_addsub_nr(const v8fp *a, const v8fp *b, int sub)
{
    v8fp r;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        r.l[k] = sub ? _mm512_sub_epi64(a->l[k], b->l[k]) : _mm512_add_epi64(a->l[k], b->l[k]);
    carry(r.l);
    return r;
}

/* a + b (inputs in [0, p)) without the reduction: < 2p, normalized limbs
 * (an operand of the products, which accept [0, 2p)). */
TGT v8fp v_add_nr(const v8fp *a, const v8fp *b)
{
    return v_addsub_nr(a, b, 0);
}

TGT v8fp v_add(const v8fp *a, const v8fp *b)
{
    v8fp r = v_add_nr(a, b);
    return sub_p_once(r.l);
}

/* a - b (inputs in [0, p)), plus p where that is negative: one signed
 * carry pass each. */
TGT v8fp v_sub(const v8fp *a, const v8fp *b)
{
    v8fp r = v_addsub_nr(a, b, 1);
    __mmask8 neg = _mm512_cmplt_epi64_mask(r.l[7], _mm512_setzero_si512());
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        r.l[k] = _mm512_mask_add_epi64(r.l[k], neg, r.l[k], _mm512_set1_epi64((long long)p52[k]));
    carry(r.l);
    return r;
}

/* lanes whose value is 0 */
TGT __mmask8 v_is_zero(const v8fp *a)
{
    __m512i o = a->l[0];
#pragma GCC unroll 8
    for (int k = 1; k < 8; k++)
        o = _mm512_or_si512(o, a->l[k]);
    return _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
}

/* Lane set-up of the pair kernels for block j (pairs 8j .. 8j+7 of n):
 * each lane's pair (padding lanes repeat lane 0), the lanes to store
 * (flags 0 and 1: the others stay unwritten) and the doublings (flag 1). */
TGT void lane_setup(size_t pi[8], __mmask8 *st, __mmask8 *dbl, const uint8_t *flag, size_t j, size_t n)
{
    *st = 0, *dbl = 0;
    for (unsigned e = 0; e < 8; e++) {
        size_t i = 8 * j + e < n ? 8 * j + e : 8 * j;
        pi[e] = i;
        if (8 * j + e < n && flag[i] <= 1) *st |= (__mmask8)(1u << e);
        if (flag[i] == 1) *dbl |= (__mmask8)(1u << e);
    }
}

/* num <- 3 t in the lanes of m (the doubling numerator 3 x^2). */
TGT void v_triple_blend(v8fp *num, const v8fp *t, __mmask8 m)
{
    v8fp r = v_add(t, t);
    r = v_add(&r, t);
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        num->l[k] = _mm512_mask_blend_epi64(m, num->l[k], r.l[k]);
}

/* a * 2^32 as an integer (a < 2^384: eight limbs suffice). */
TGT v8fp shl32(const v8fp *a)
{
    const __m512i m = _mm512_set1_epi64((long long)MASK52);
    v8fp r;
    r.l[0] = _mm512_and_si512(_mm512_slli_epi64(a->l[0], 32), m);
#pragma GCC unroll 8
    for (int k = 1; k < 8; k++)
        r.l[k] = _mm512_ternarylogic_epi64(_mm512_slli_epi64(a->l[k], 32), _mm512_srli_epi64(a->l[k - 1], 20),
                                           m, 0xa8);
    return r;
}

/* a * b * 2^-384 mod p: CIOS over b's limbs with as = a * 2^32. */
TGT v8fp v_mul_sh(const v8fp *as, const v8fp *b)
{
    const __m512i z = _mm512_setzero_si512(), mp = _mm512_set1_epi64((long long)mp52);
    __m512i t[9];
#pragma GCC unroll 8
    for (int k = 0; k < 9; k++)
        t[k] = z;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        __m512i bi = b->l[i];
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            t[k] = _mm512_madd52lo_epu64(t[k], as->l[k], bi);
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            t[k + 1] = _mm512_madd52hi_epu64(t[k + 1], as->l[k], bi);
        __m512i q = _mm512_madd52lo_epu64(z, t[0], mp);
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            t[k] = _mm512_madd52lo_epu64(t[k], q, _mm512_set1_epi64((long long)p52[k]));
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            t[k + 1] = _mm512_madd52hi_epu64(t[k + 1], q, _mm512_set1_epi64((long long)p52[k]));
        /* t[0] = 0 mod 2^52: divide by 2^52 */
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            t[k] = t[k + 1];
        t[8] = z;
    }
    carry(t);
    v8fp r;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        r.l[k] = t[k];
    return r;
}

/* Lazy product: inputs and output in [0, 2p), normalized limbs.  With
 * a < 2p < 2^382, a * 2^32 < 2^414 still fits and (a 2^32 b + q p) / 2^416
 * < p (2^414 * 2 / 2^416 + 1) = 1.5 p. */
TGT v8fp v_mul_lazy(const v8fp *a, const v8fp *b)
{
    v8fp as = shl32(a);
    return v_mul_sh(&as, b);
}

/* Full product: output reduced to [0, p). */
TGT v8fp v_mul(const v8fp *a, const v8fp *b)
{
    v8fp r = v_mul_lazy(a, b);
    return sub_p_once(r.l);
}

/* a^2 * 2^-384 mod p, reduced: with a' = a * 2^16 (< 2^398 for a < 2p),
 * a'^2 = a^2 2^32 < 2^796, so eight 52-bit reduction steps give the
 * library's square, and (a'^2 + q p) / 2^416 < 2^380 + p < 2p.  The
 * symmetric product needs 72 instead of 128 madds: cross products once,
 * doubled, plus the diagonal (separated, then reduced). */
TGT v8fp v_sqr(const v8fp *a)
{
    const __m512i m = _mm512_set1_epi64((long long)MASK52), z = _mm512_setzero_si512();
    const __m512i mp = _mm512_set1_epi64((long long)mp52);
    __m512i s[8], t[17];
    s[0] = _mm512_and_si512(_mm512_slli_epi64(a->l[0], 16), m);
#pragma GCC unroll 8
    for (int k = 1; k < 8; k++)
        s[k] = _mm512_ternarylogic_epi64(_mm512_slli_epi64(a->l[k], 16), _mm512_srli_epi64(a->l[k - 1], 36),
                                         m, 0xa8);
#pragma GCC unroll 17
    for (int k = 0; k < 17; k++)
        t[k] = z;
        /* cross products s_i s_j, i < j (each limb gets < 16 terms < 2^52) */
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
#pragma GCC unroll 8
        for (int j = i + 1; j < 8; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], s[i], s[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], s[i], s[j]);
        }
    }
#pragma GCC unroll 17
    for (int k = 0; k < 17; k++)
        t[k] = _mm512_add_epi64(t[k], t[k]);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], s[i], s[i]);
        t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], s[i], s[i]);
    }
    /* eight Montgomery steps on the 16-limb value (limbs stay < 2^60) */
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        __m512i q = _mm512_madd52lo_epu64(z, t[i], mp);
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            t[i + k] = _mm512_madd52lo_epu64(t[i + k], q, _mm512_set1_epi64((long long)p52[k]));
            t[i + k + 1] = _mm512_madd52hi_epu64(t[i + k + 1], q, _mm512_set1_epi64((long long)p52[k]));
        }
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
    }
    carry(t + 8);
    return sub_p_once(t + 8);
}

#endif /* x86-64 asm builds */
#endif /* CUZK_MSM_IFMA_INTERNAL_H */

/* ---- the pair kernel, written once for both groups ------------------------ */
/* Contract: cuzk_msm_ifma_pairs (msm_ifma.h).  Included again with these
 * defined: PK_NAME, PK_AFF (affine point), PK_FE (coordinate), PK_V (its
 * eight-lane vector), PK_ONE, PK_N8(n) (den length used: n rounded up),
 * PK_INV(inv, den, n8) (batch inversion into inv[block]), PK_LOAD(p),
 * PK_STORE(p, x, mask), PK_SUB, PK_MUL (reduced), PK_LAM (lambda = num *
 * inv; may be lazy, it feeds products only), PK_SQR, PK_X2 (x^2 of the
 * doubling numerator), PK_TRIPLE_BLEND(num, t, mask). */
#if defined(PK_NAME) && defined(__x86_64__) && defined(__GNUC__) && defined(CUZK_HAVE_ASM)
TGT_FN void PK_NAME(PK_AFF *O, const PK_AFF *A, const PK_AFF *B, const uint32_t *io, const uint32_t *ia,
                    const uint32_t *ib, const uint8_t *flag, PK_FE *den, void *work, size_t n)
{
    if (n == 0) return;
    size_t n8 = PK_N8(n);
    for (size_t i = n; i < n8; i++)
        den[i] = PK_ONE;
    PK_V *inv = (PK_V *)(((uintptr_t)work + 63) & ~(uintptr_t)63);
    PK_INV(inv, den, n8);
    for (size_t j = 0; j * 8 < n; j++) {
        const PK_FE *ax[8], *ay[8], *bx[8], *by[8];
        PK_FE *ox[8], *oy[8];
        size_t pi[8];
        __mmask8 st, dbl;
        lane_setup(pi, &st, &dbl, flag, j, n);
        for (unsigned e = 0; e < 8; e++) {
            const PK_AFF *a = &A[ia[pi[e]]], *b = &B[ib[pi[e]]];
            PK_AFF *o = &O[io[pi[e]]];
            ax[e] = &a->x, ay[e] = &a->y, bx[e] = &b->x, by[e] = &b->y;
            ox[e] = &o->x, oy[e] = &o->y;
        }
        PK_V xa = PK_LOAD(ax), ya = PK_LOAD(ay), xb = PK_LOAD(bx), yb = PK_LOAD(by);
        PK_V num = PK_SUB(&yb, &ya), lam, x3, t;
        if (dbl) { /* lambda = 3 x^2 / 2y: the caller put 2y in den */
            t = PK_X2(&xa);
            PK_TRIPLE_BLEND(&num, &t, dbl);
        }
        lam = PK_LAM(&num, &inv[j]);
        x3 = PK_SQR(&lam);
        x3 = PK_SUB(&x3, &xa);
        x3 = PK_SUB(&x3, &xb);
        t = PK_SUB(&xa, &x3);
        t = PK_MUL(&lam, &t);
        t = PK_SUB(&t, &ya);
        PK_STORE(ox, &x3, st);
        PK_STORE(oy, &t, st);
    }
}
#endif
