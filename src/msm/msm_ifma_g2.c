/* AVX-512 IFMA batch-affine pair additions for G2: eight Fp2 elements per
 * vector operation, each as two eight-lane Fp vectors (c0, c1) of the
 * primitives in msm_ifma_internal.h.
 *
 * Fp2 = Fp[u]/(u^2+1).  Products by Karatsuba, three Fp products:
 * (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u,
 * squares with two: (a0 + a1)(a0 - a1) + 2 a0 a1 u.  The sums a0 + a1 are
 * left unreduced (< 2p, which the Fp product accepts); every Fp2 result is
 * fully reduced, so memory results are bit-identical to the field layer's
 * cuzk_fp2_* (the canonical representative is unique).  Variable time
 * (public MSM data). */
#include <stdlib.h>

#include "msm/msm_ifma.h"
#include "msm/msm_ifma_internal.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(CUZK_HAVE_ASM)

typedef struct {
    v8fp c0, c1;
} v8fp2;

/* This file's copy of the constants (msm_ifma_internal.h). */
__attribute__((constructor)) static void ifma_g2_init(void)
{
    init_constants();
}

TGT v8fp2 f2_sub(const v8fp2 *a, const v8fp2 *b)
{
    v8fp2 r = {v_sub(&a->c0, &b->c0), v_sub(&a->c1, &b->c1)};
    return r;
}

TGT v8fp2 f2_mul(const v8fp2 *a, const v8fp2 *b)
{
    v8fp sa = v_add_nr(&a->c0, &a->c1), sb = v_add_nr(&b->c0, &b->c1);
    v8fp t0 = v_mul(&a->c0, &b->c0), t1 = v_mul(&a->c1, &b->c1), t2 = v_mul(&sa, &sb);
    v8fp2 r;
    r.c0 = v_sub(&t0, &t1);
    t2 = v_sub(&t2, &t0);
    r.c1 = v_sub(&t2, &t1);
    return r;
}

TGT v8fp2 f2_sqr(const v8fp2 *a)
{
    v8fp s = v_add_nr(&a->c0, &a->c1), d = v_sub(&a->c0, &a->c1);
    v8fp m = v_mul(&a->c0, &a->c1);
    v8fp2 r;
    r.c0 = v_mul(&s, &d);
    r.c1 = v_add(&m, &m);
    return r;
}

/* Loads / stores eight Fp2 elements at any addresses. */
TGT v8fp2 load2p(const cuzk_fp2 *const p[8])
{
    const cuzk_fp *q0[8], *q1[8];
#pragma GCC unroll 8
    for (int e = 0; e < 8; e++)
        q0[e] = &p[e]->c0, q1[e] = &p[e]->c1;
    v8fp2 r = {load8p(q0), load8p(q1)};
    return r;
}

TGT v8fp2 load2(const cuzk_fp2 *p)
{
    const cuzk_fp2 *q[8] = {p, p + 1, p + 2, p + 3, p + 4, p + 5, p + 6, p + 7};
    return load2p(q);
}

TGT void store2p(cuzk_fp2 *const p[8], const v8fp2 *x, __mmask8 mask)
{
    cuzk_fp *q0[8], *q1[8];
#pragma GCC unroll 8
    for (int e = 0; e < 8; e++)
        q0[e] = &p[e]->c0, q1[e] = &p[e]->c1;
    store8p(q0, &x->c0, mask);
    store8p(q1, &x->c1, mask);
}

TGT void store2(cuzk_fp2 *p, const v8fp2 *x)
{
    cuzk_fp2 *q[8] = {p, p + 1, p + 2, p + 3, p + 4, p + 5, p + 6, p + 7};
    store2p(q, x, 0xff);
}

TGT_FN void cuzk_msm_ifma_g2_mul8(cuzk_fp2 out[8], const cuzk_fp2 a[8], const cuzk_fp2 b[8])
{
    v8fp2 x = load2(a), y = load2(b), z = f2_mul(&x, &y);
    store2(out, &z);
}

TGT_FN void cuzk_msm_ifma_g2_sqr8(cuzk_fp2 out[8], const cuzk_fp2 a[8])
{
    v8fp2 x = load2(a), z = f2_sqr(&x);
    store2(out, &z);
}

size_t cuzk_msm_ifma_g2_work_bytes(size_t n)
{
    return (n + 7) / 8 * sizeof(v8fp2) + 64;
}

/* den[i] <- den[i]^-1 for i < n8 (a nonzero multiple of 8) as eight-lane
 * prefix products in one chain (an Fp2 product is three independent Fp
 * products already), the eight lane totals inverted with one scalar Fp2
 * inversion.  Inverses go to inv[block], fully reduced. */
TGT void batch_inv2(v8fp2 *inv, const cuzk_fp2 *den, size_t n8)
{
    size_t nb = n8 / 8;
    v8fp2 c = load2(den);
    inv[0] = c;
    for (size_t j = 1; j < nb; j++) {
        v8fp2 d = load2(den + 8 * j);
        c = f2_mul(&c, &d);
        inv[j] = c;
    }
    cuzk_fp2 tot[8], pre[8], ti[8], r;
    store2(tot, &c);
    pre[0] = tot[0];
    for (int k = 1; k < 8; k++)
        cuzk_fp2_mul(&pre[k], &pre[k - 1], &tot[k]);
    cuzk_msm_fp2_inv_var(&r, &pre[7]);
    for (int k = 7; k > 0; k--) {
        cuzk_fp2_mul(&ti[k], &r, &pre[k - 1]);
        cuzk_fp2_mul(&r, &r, &tot[k]);
    }
    ti[0] = r;
    v8fp2 i = load2(ti);
    for (size_t j = nb - 1; j >= 1; j--) {
        v8fp2 d = load2(den + 8 * j);
        inv[j] = f2_mul(&i, &inv[j - 1]);
        i = f2_mul(&i, &d);
    }
    inv[0] = i;
}

TGT void f2_triple_blend(v8fp2 *num, const v8fp2 *t, __mmask8 m)
{
    v_triple_blend(&num->c0, &t->c0, m);
    v_triple_blend(&num->c1, &t->c1, m);
}

#define PK_NAME cuzk_msm_ifma_g2_pairs
#define PK_AFF cuzk_g2_affine
#define PK_FE cuzk_fp2
#define PK_V v8fp2
#define PK_ONE CUZK_FP2_ONE
#define PK_N8(n) (((n) + 7) / 8 * 8)
#define PK_INV batch_inv2
#define PK_LOAD load2p
#define PK_STORE store2p
#define PK_SUB f2_sub
#define PK_MUL f2_mul
#define PK_LAM f2_mul
#define PK_SQR f2_sqr
#define PK_X2 f2_sqr
#define PK_TRIPLE_BLEND f2_triple_blend
#include "msm/msm_ifma_internal.h"

#else
void cuzk_msm_ifma_g2_mul8(cuzk_fp2 out[8], const cuzk_fp2 a[8], const cuzk_fp2 b[8])
{
    (void)out, (void)a, (void)b;
}
void cuzk_msm_ifma_g2_sqr8(cuzk_fp2 out[8], const cuzk_fp2 a[8])
{
    (void)out, (void)a;
}
size_t cuzk_msm_ifma_g2_work_bytes(size_t n)
{
    return (void)n, 0;
}
void cuzk_msm_ifma_g2_pairs(cuzk_g2_affine *O, const cuzk_g2_affine *A, const cuzk_g2_affine *B,
                       const uint32_t *io, const uint32_t *ia, const uint32_t *ib, const uint8_t *flag,
                       cuzk_fp2 *den, void *work, size_t n)
{
    (void)O, (void)A, (void)B, (void)io, (void)ia, (void)ib, (void)flag, (void)den, (void)work, (void)n;
}
#endif
