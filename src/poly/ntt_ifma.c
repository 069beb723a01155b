/* AVX-512 IFMA butterflies: eight Fr elements per vector operation.
 *
 * Each lane holds one element as five 52-bit limbs (vpmadd52luq/huq
 * multiply 52-bit limbs and accumulate into 64-bit lanes).  Data stays in
 * memory in the library's format (4 x 64-bit limbs, Montgomery form with
 * R = 2^256); a kernel loads eight consecutive elements, transposes them to
 * limb-major order, re-cuts 4 x 64 into 5 x 52 bits, computes, and undoes
 * both on the way out.
 *
 * Montgomery product here uses R' = 2^260 (five 52-bit reduction steps):
 * mont(x, y) = x*y*2^-260.  The domain therefore stores twiddles as
 * w*2^260 mod r (the usual Montgomery form times 16), and
 * mont(x*2^256, w*2^260) = (x*w)*2^256: the data keeps its usual form.
 *
 * Ranges: inputs < r, outputs fully reduced < r (identical bits to the
 * scalar path; the tests compare both).  Constant time: no branches or
 * addresses depend on values. */
#include "poly/ntt_internal.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(CUZK_HAVE_ASM)
#include <immintrin.h>
#include <stdlib.h>

#define TGT __attribute__((target("avx512f,avx512ifma,avx512vbmi2"), always_inline)) static inline
#define TGT_FN __attribute__((target("avx512f,avx512ifma,avx512vbmi2")))

typedef struct {
    __m512i l[5];
} v8fr;

/* r in 52-bit limbs and -r^-1 mod 2^52 */
#define MASK52 0xfffffffffffffull

static uint64_t m52[5], mp52;

static void init_constants(void)
{
    const uint64_t *m = CUZK_FR_MODULUS;
    m52[0] = m[0] & MASK52;
    m52[1] = (m[0] >> 52 | m[1] << 12) & MASK52;
    m52[2] = (m[1] >> 40 | m[2] << 24) & MASK52;
    m52[3] = (m[2] >> 28 | m[3] << 36) & MASK52;
    m52[4] = m[3] >> 16;
    uint64_t inv = 1; /* Newton: inv = m^-1 mod 2^64 */
    for (int i = 0; i < 6; i++)
        inv *= 2 - m[0] * inv;
    mp52 = (0 - inv) & MASK52;
}

static int ifma_ok;

/* Before main, like the field layer's backend choice: no thread can race
 * the constants or the flag.  CUZK_NTT_NO_IFMA (any value) keeps the scalar
 * kernels, for A/B runs (as CUZK_MSM_NO_IFMA does for the MSM). */
__attribute__((constructor)) static void ifma_detect(void)
{
    __builtin_cpu_init();
    ifma_ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma") &&
              __builtin_cpu_supports("avx512vbmi2") && !getenv("CUZK_NTT_NO_IFMA");
    init_constants();
}

int cuzk_ntt_ifma_available(void)
{
    return ifma_ok;
}

/* ---- layout conversion ---------------------------------------------------- */

/* Z0..Z3 hold elements (0,1), (2,3), (4,5), (6,7) in memory order. */
TGT v8fr from_aos(__m512i z0, __m512i z1, __m512i z2, __m512i z3)
{
    const __m512i i0 = _mm512_setr_epi64(0, 4, 1, 5, 8, 12, 9, 13);
    const __m512i i2 = _mm512_setr_epi64(2, 6, 3, 7, 10, 14, 11, 15);
    const __m512i m = _mm512_set1_epi64((long long)MASK52);
    __m512i a = _mm512_unpacklo_epi64(z0, z1), b = _mm512_unpackhi_epi64(z0, z1);
    __m512i c = _mm512_unpacklo_epi64(z2, z3), d = _mm512_unpackhi_epi64(z2, z3);
    __m512i L0 = _mm512_permutex2var_epi64(a, i0, c), L2 = _mm512_permutex2var_epi64(a, i2, c);
    __m512i L1 = _mm512_permutex2var_epi64(b, i0, d), L3 = _mm512_permutex2var_epi64(b, i2, d);
    v8fr r;
    r.l[0] = _mm512_and_si512(L0, m);
    r.l[1] = _mm512_and_si512(_mm512_shrdi_epi64(L0, L1, 52), m);
    r.l[2] = _mm512_and_si512(_mm512_shrdi_epi64(L1, L2, 40), m);
    r.l[3] = _mm512_and_si512(_mm512_shrdi_epi64(L2, L3, 28), m);
    r.l[4] = _mm512_srli_epi64(L3, 16);
    return r;
}

TGT v8fr load8(const cuzk_fr *p)
{
    const __m512i *v = (const __m512i *)p;
    return from_aos(_mm512_loadu_si512(v), _mm512_loadu_si512(v + 1), _mm512_loadu_si512(v + 2),
                    _mm512_loadu_si512(v + 3));
}

/* elements p[0], p[s], ..., p[7s] */
TGT v8fr load8_strided(const cuzk_fr *p, size_t s)
{
    if (s == 1) return load8(p);
    __m512i z[4];
    for (int k = 0; k < 4; k++) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(p + 2 * k * s));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(p + (2 * k + 1) * s));
        z[k] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    }
    return from_aos(z[0], z[1], z[2], z[3]);
}

/* Limbs must be normalized (< 2^52) and the value < 2^256. */
TGT void store8(cuzk_fr *p, const v8fr *x)
{
    const __m512i ia = _mm512_setr_epi64(0, 2, 8, 10, 1, 3, 9, 11);
    const __m512i ic = _mm512_setr_epi64(4, 6, 12, 14, 5, 7, 13, 15);
    __m512i L0 = _mm512_or_si512(x->l[0], _mm512_slli_epi64(x->l[1], 52));
    __m512i L1 = _mm512_or_si512(_mm512_srli_epi64(x->l[1], 12), _mm512_slli_epi64(x->l[2], 40));
    __m512i L2 = _mm512_or_si512(_mm512_srli_epi64(x->l[2], 24), _mm512_slli_epi64(x->l[3], 28));
    __m512i L3 = _mm512_or_si512(_mm512_srli_epi64(x->l[3], 36), _mm512_slli_epi64(x->l[4], 16));
    __m512i a = _mm512_permutex2var_epi64(L0, ia, L2), c = _mm512_permutex2var_epi64(L0, ic, L2);
    __m512i b = _mm512_permutex2var_epi64(L1, ia, L3), d = _mm512_permutex2var_epi64(L1, ic, L3);
    __m512i *v = (__m512i *)p;
    _mm512_storeu_si512(v, _mm512_unpacklo_epi64(a, b));
    _mm512_storeu_si512(v + 1, _mm512_unpackhi_epi64(a, b));
    _mm512_storeu_si512(v + 2, _mm512_unpacklo_epi64(c, d));
    _mm512_storeu_si512(v + 3, _mm512_unpackhi_epi64(c, d));
}

/* ---- arithmetic ------------------------------------------------------------ */

/* x with limbs carrying signed excess (|limb| < 2^62), value in [0, 2r):
 * normalize the limbs and subtract r once if x >= r. */
TGT v8fr reduce_once(__m512i t0, __m512i t1, __m512i t2, __m512i t3, __m512i t4)
{
    const __m512i m = _mm512_set1_epi64((long long)MASK52);
    t1 = _mm512_add_epi64(t1, _mm512_srai_epi64(t0, 52));
    t0 = _mm512_and_si512(t0, m);
    t2 = _mm512_add_epi64(t2, _mm512_srai_epi64(t1, 52));
    t1 = _mm512_and_si512(t1, m);
    t3 = _mm512_add_epi64(t3, _mm512_srai_epi64(t2, 52));
    t2 = _mm512_and_si512(t2, m);
    t4 = _mm512_add_epi64(t4, _mm512_srai_epi64(t3, 52));
    t3 = _mm512_and_si512(t3, m);
    __m512i d0 = _mm512_sub_epi64(t0, _mm512_set1_epi64((long long)m52[0]));
    __m512i d1 = _mm512_sub_epi64(t1, _mm512_set1_epi64((long long)m52[1]));
    __m512i d2 = _mm512_sub_epi64(t2, _mm512_set1_epi64((long long)m52[2]));
    __m512i d3 = _mm512_sub_epi64(t3, _mm512_set1_epi64((long long)m52[3]));
    __m512i d4 = _mm512_sub_epi64(t4, _mm512_set1_epi64((long long)m52[4]));
    d1 = _mm512_add_epi64(d1, _mm512_srai_epi64(d0, 52));
    d0 = _mm512_and_si512(d0, m);
    d2 = _mm512_add_epi64(d2, _mm512_srai_epi64(d1, 52));
    d1 = _mm512_and_si512(d1, m);
    d3 = _mm512_add_epi64(d3, _mm512_srai_epi64(d2, 52));
    d2 = _mm512_and_si512(d2, m);
    d4 = _mm512_add_epi64(d4, _mm512_srai_epi64(d3, 52));
    d3 = _mm512_and_si512(d3, m);
    __mmask8 keep = _mm512_cmplt_epi64_mask(d4, _mm512_setzero_si512()); /* x < r: keep x */
    v8fr r;
    r.l[0] = _mm512_mask_blend_epi64(keep, d0, t0);
    r.l[1] = _mm512_mask_blend_epi64(keep, d1, t1);
    r.l[2] = _mm512_mask_blend_epi64(keep, d2, t2);
    r.l[3] = _mm512_mask_blend_epi64(keep, d3, t3);
    r.l[4] = _mm512_mask_blend_epi64(keep, d4, t4);
    return r;
}

TGT v8fr v_add(const v8fr *a, const v8fr *b)
{
    return reduce_once(_mm512_add_epi64(a->l[0], b->l[0]), _mm512_add_epi64(a->l[1], b->l[1]),
                       _mm512_add_epi64(a->l[2], b->l[2]), _mm512_add_epi64(a->l[3], b->l[3]),
                       _mm512_add_epi64(a->l[4], b->l[4]));
}

/* a - b + r, in (0, 2r) */
TGT v8fr v_sub(const v8fr *a, const v8fr *b)
{
    __m512i t[5];
    for (int k = 0; k < 5; k++)
        t[k] = _mm512_add_epi64(_mm512_sub_epi64(a->l[k], b->l[k]), _mm512_set1_epi64((long long)m52[k]));
    return reduce_once(t[0], t[1], t[2], t[3], t[4]);
}

/* a * b * 2^-260 mod r (CIOS over b's five limbs) */
TGT v8fr v_mul(const v8fr *a, const v8fr *b)
{
    const __m512i z = _mm512_setzero_si512(), mp = _mm512_set1_epi64((long long)mp52);
    __m512i m[5];
    for (int k = 0; k < 5; k++)
        m[k] = _mm512_set1_epi64((long long)m52[k]);
    __m512i t0 = z, t1 = z, t2 = z, t3 = z, t4 = z, t5;
    for (int i = 0; i < 5; i++) {
        __m512i bi = b->l[i];
        t5 = z;
        t0 = _mm512_madd52lo_epu64(t0, a->l[0], bi);
        t1 = _mm512_madd52lo_epu64(t1, a->l[1], bi);
        t2 = _mm512_madd52lo_epu64(t2, a->l[2], bi);
        t3 = _mm512_madd52lo_epu64(t3, a->l[3], bi);
        t4 = _mm512_madd52lo_epu64(t4, a->l[4], bi);
        t1 = _mm512_madd52hi_epu64(t1, a->l[0], bi);
        t2 = _mm512_madd52hi_epu64(t2, a->l[1], bi);
        t3 = _mm512_madd52hi_epu64(t3, a->l[2], bi);
        t4 = _mm512_madd52hi_epu64(t4, a->l[3], bi);
        t5 = _mm512_madd52hi_epu64(t5, a->l[4], bi);
        __m512i q = _mm512_madd52lo_epu64(z, t0, mp);
        t0 = _mm512_madd52lo_epu64(t0, q, m[0]);
        t1 = _mm512_madd52lo_epu64(t1, q, m[1]);
        t2 = _mm512_madd52lo_epu64(t2, q, m[2]);
        t3 = _mm512_madd52lo_epu64(t3, q, m[3]);
        t4 = _mm512_madd52lo_epu64(t4, q, m[4]);
        t1 = _mm512_madd52hi_epu64(t1, q, m[0]);
        t2 = _mm512_madd52hi_epu64(t2, q, m[1]);
        t3 = _mm512_madd52hi_epu64(t3, q, m[2]);
        t4 = _mm512_madd52hi_epu64(t4, q, m[3]);
        t5 = _mm512_madd52hi_epu64(t5, q, m[4]);
        /* t0 = 0 mod 2^52 now: divide by 2^52 */
        t0 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52));
        t1 = t2;
        t2 = t3;
        t3 = t4;
        t4 = t5;
    }
    return reduce_once(t0, t1, t2, t3, t4);
}

/* ---- kernels (same contracts as r4_range / r2_range in ntt_dif.c) ---------- */

TGT_FN void cuzk_ntt_ifma_r4(cuzk_fr *a, size_t q, size_t j0, size_t j1, ntt_twiddles ta, ntt_twiddles tb,
                        ntt_twiddles t1)
{
    for (size_t j = j0; j < j1; j += 8) {
        v8fr x0 = load8(a + j), x1 = load8(a + j + q), x2 = load8(a + j + 2 * q), x3 = load8(a + j + 3 * q);
        v8fr wa = load8_strided(ta.p + (j - j0) * ta.s, ta.s);
        v8fr wb = load8_strided(tb.p + (j - j0) * tb.s, tb.s);
        v8fr y0 = v_add(&x0, &x2), y1 = v_add(&x1, &x3);
        v8fr d = v_sub(&x0, &x2), y2 = v_mul(&d, &wa);
        d = v_sub(&x1, &x3);
        v8fr y3 = v_mul(&d, &wb);
        v8fr w = load8_strided(t1.p + (j - j0) * t1.s, t1.s);
        x0 = v_add(&y0, &y1);
        store8(a + j, &x0);
        d = v_sub(&y0, &y1);
        x1 = v_mul(&d, &w);
        store8(a + j + q, &x1);
        x2 = v_add(&y2, &y3);
        store8(a + j + 2 * q, &x2);
        d = v_sub(&y2, &y3);
        x3 = v_mul(&d, &w);
        store8(a + j + 3 * q, &x3);
    }
}

TGT_FN void cuzk_ntt_ifma_r2(cuzk_fr *a, size_t h, size_t j0, size_t j1, ntt_twiddles t)
{
    for (size_t j = j0; j < j1; j += 8) {
        v8fr x0 = load8(a + j), x1 = load8(a + j + h), w = load8_strided(t.p + (j - j0) * t.s, t.s);
        v8fr s = v_add(&x0, &x1), d = v_sub(&x0, &x1);
        store8(a + j, &s);
        s = v_mul(&d, &w);
        store8(a + j + h, &s);
    }
}

/* a[i] *= f_i for i < cnt (a multiple of 8): f_0..7 = f0, f_{i+8} =
 * f_i * step (constant factors if step is NULL).  f0 and step are given
 * times 2^4 (R' = 2^260 form), so the data keeps its usual form. */
TGT_FN void cuzk_ntt_ifma_scale(cuzk_fr *a, size_t cnt, const cuzk_fr f0[8], const cuzk_fr *step)
{
    v8fr f = load8(f0), st = f;
    if (step) {
        cuzk_fr sv[8];
        for (int k = 0; k < 8; k++)
            sv[k] = *step;
        st = load8(sv);
    }
    for (size_t i = 0; i < cnt; i += 8) {
        v8fr x = load8(a + i);
        x = v_mul(&x, &f);
        store8(a + i, &x);
        if (step) f = v_mul(&f, &st);
    }
}

/* out[i] = f_i for i < cnt (a multiple of 8), f as in cuzk_ntt_ifma_scale:
 * fills twiddle tables (already in the times-2^4 form). */
TGT_FN void cuzk_ntt_ifma_powers(cuzk_fr *out, size_t cnt, const cuzk_fr f0[8], const cuzk_fr *step)
{
    cuzk_fr sv[8];
    for (int k = 0; k < 8; k++)
        sv[k] = *step;
    v8fr f = load8(f0), st = load8(sv);
    for (size_t i = 0; i < cnt; i += 8) {
        store8(out + i, &f);
        f = v_mul(&f, &st);
    }
}

/* One element in every lane, in 52-bit limbs. */
TGT v8fr bcast(const cuzk_fr *x)
{
    const uint64_t *m = x->l;
    uint64_t l[5] = {m[0] & MASK52, (m[0] >> 52 | m[1] << 12) & MASK52, (m[1] >> 40 | m[2] << 24) & MASK52,
                     (m[2] >> 28 | m[3] << 36) & MASK52, m[3] >> 16};
    v8fr r;
    for (int k = 0; k < 5; k++)
        r.l[k] = _mm512_set1_epi64((long long)l[k]);
    return r;
}

/* Two-level twiddles (cuzk_ntt_gen_twiddles): lanes j..j+7 share hi because
 * 8 | j and 8 | 2^ep. */
TGT_FN void cuzk_ntt_ifma_twiddles(cuzk_fr *out, size_t cnt, size_t j0, const cuzk_fr *hi, const cuzk_fr *lo,
                                   unsigned e, unsigned ep)
{
    size_t mask = ((size_t)1 << ep) - 1;
    for (size_t i = 0; i < cnt; i += 8) {
        size_t j = j0 + i;
        v8fr h = bcast(&hi[(j >> ep) << (ep - e)]), l = load8(lo + (j & mask));
        h = v_mul(&h, &l);
        store8(out + i, &h);
    }
}

/* For k in [k0, k0 + cnt), cnt a multiple of 8 and k0 + cnt <= n/2 - 8:
 * (a[k], a[n-k]) <- (a[n-k] * u_k, a[k] * v_k), factors as in
 * cuzk_ntt_ifma_scale (lanes u0 / v0, steps ustep / vstep, NULL = constant). */
TGT_FN void cuzk_ntt_ifma_revscale(cuzk_fr *a, size_t n, size_t k0, size_t cnt, const cuzk_fr u0[8],
                              const cuzk_fr *ustep, const cuzk_fr v0[8], const cuzk_fr *vstep)
{
    const __m512i rev = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    v8fr u = load8(u0), v = load8(v0), us = u, vs = v;
    if (ustep) {
        cuzk_fr sv[8], tv[8];
        for (int k = 0; k < 8; k++)
            sv[k] = *ustep, tv[k] = *vstep;
        us = load8(sv);
        vs = load8(tv);
    }
    for (size_t k = k0; k < k0 + cnt; k += 8) {
        v8fr x = load8(a + k), y = load8(a + n - k - 7), t;
        for (int l = 0; l < 5; l++)
            y.l[l] = _mm512_permutexvar_epi64(rev, y.l[l]);
        t = v_mul(&y, &u); /* lane i: a[n-k-i] * u_{k+i} */
        y = v_mul(&x, &v); /* lane i: a[k+i] * v_{k+i}, goes to n-k-i */
        for (int l = 0; l < 5; l++)
            y.l[l] = _mm512_permutexvar_epi64(rev, y.l[l]);
        store8(a + k, &t);
        store8(a + n - k - 7, &y);
        if (ustep) {
            u = v_mul(&u, &us);
            v = v_mul(&v, &vs);
        }
    }
}

/* Stages h = 4, 2, 1 on [a, a + size), size a multiple of 64.  Vector r
 * holds elements 8c + r (c = 0..7) of a 64-element block, so a stage-h
 * butterfly pairs vector r with vector r + h lane by lane: no permutes.
 * tw = w8^1..3, w4^1 times 2^4 (w^0 = 1 needs no multiplication). */
TGT void store8_strided(cuzk_fr *p, size_t s, const v8fr *x)
{
    cuzk_fr t[8];
    store8(t, x);
    for (int k = 0; k < 8; k++)
        p[k * s] = t[k];
}

TGT_FN void cuzk_ntt_ifma_tail64(cuzk_fr *a, size_t size, const cuzk_fr tw[4])
{
    v8fr w[4];
    for (int k = 0; k < 4; k++) {
        cuzk_fr t[8];
        for (int i = 0; i < 8; i++)
            t[i] = tw[k];
        w[k] = load8(t);
    }
    for (size_t b = 0; b < size; b += 64) {
        v8fr x[8], s, d;
        for (int r = 0; r < 8; r++)
            x[r] = load8_strided(a + b + r, 8);
        for (int r = 0; r < 4; r++) { /* h = 4: (r, r+4), w8^r */
            s = v_add(&x[r], &x[r + 4]);
            d = v_sub(&x[r], &x[r + 4]);
            x[r] = s;
            x[r + 4] = r ? v_mul(&d, &w[r - 1]) : d;
        }
        for (int r = 0; r < 8; r++) { /* h = 2: (r, r+2) for r mod 4 < 2, w4^(r mod 2) */
            if (r & 2) continue;
            s = v_add(&x[r], &x[r + 2]);
            d = v_sub(&x[r], &x[r + 2]);
            x[r] = s;
            x[r + 2] = (r & 1) ? v_mul(&d, &w[3]) : d;
        }
        for (int r = 0; r < 8; r += 2) { /* h = 1 */
            s = v_add(&x[r], &x[r + 1]);
            d = v_sub(&x[r], &x[r + 1]);
            x[r] = s;
            x[r + 1] = d;
        }
        for (int r = 0; r < 8; r++)
            store8_strided(a + b + r, 8, &x[r]);
    }
}


#else
int cuzk_ntt_ifma_available(void)
{
    return 0;
}
void cuzk_ntt_ifma_r4(cuzk_fr *a, size_t q, size_t j0, size_t j1, ntt_twiddles ta, ntt_twiddles tb,
                 ntt_twiddles t1)
{
    (void)a, (void)q, (void)j0, (void)j1, (void)ta, (void)tb, (void)t1;
}
void cuzk_ntt_ifma_twiddles(cuzk_fr *out, size_t cnt, size_t j0, const cuzk_fr *hi, const cuzk_fr *lo,
                            unsigned e, unsigned ep)
{
    (void)out, (void)cnt, (void)j0, (void)hi, (void)lo, (void)e, (void)ep;
}
void cuzk_ntt_ifma_r2(cuzk_fr *a, size_t h, size_t j0, size_t j1, ntt_twiddles t)
{
    (void)a, (void)h, (void)j0, (void)j1, (void)t;
}
void cuzk_ntt_ifma_scale(cuzk_fr *a, size_t cnt, const cuzk_fr f0[8], const cuzk_fr *step)
{
    (void)a, (void)cnt, (void)f0, (void)step;
}
void cuzk_ntt_ifma_tail64(cuzk_fr *a, size_t size, const cuzk_fr tw[4])
{
    (void)a, (void)size, (void)tw;
}
void cuzk_ntt_ifma_powers(cuzk_fr *out, size_t cnt, const cuzk_fr f0[8], const cuzk_fr *step)
{
    (void)out, (void)cnt, (void)f0, (void)step;
}
void cuzk_ntt_ifma_revscale(cuzk_fr *a, size_t n, size_t k0, size_t cnt, const cuzk_fr u0[8], const cuzk_fr *ustep,
                       const cuzk_fr v0[8], const cuzk_fr *vstep)
{
    (void)a, (void)n, (void)k0, (void)cnt, (void)u0, (void)ustep, (void)v0, (void)vstep;
}
#endif
