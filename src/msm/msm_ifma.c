/* AVX-512 IFMA batch-affine pair additions for G1, eight pairs per vector
 * operation (the Fp primitives and their number format are described in
 * msm_ifma_internal.h), and the CPU detection and runtime switch shared
 * with the G2 kernel (msm_ifma_g2.c).  Variable time (public MSM data). */
#include "msm/msm_ifma.h"

#include <stdlib.h>

#include "msm/msm_ifma_internal.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(CUZK_HAVE_ASM)

static int ifma_ok, ifma_off;

/* Before main (like the field layer's backend choice): no thread can race
 * the constants or the flags. */
__attribute__((constructor)) static void ifma_detect(void)
{
    __builtin_cpu_init();
    ifma_ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma") &&
              __builtin_cpu_supports("avx512vbmi2");
    ifma_off = getenv("CUZK_MSM_NO_IFMA") != NULL;
    init_constants();
}

int cuzk_msm_ifma_available(void)
{
    return ifma_ok;
}
int cuzk_msm_ifma_active(void)
{
    return ifma_ok && !ifma_off;
}
void cuzk_msm_ifma_force_scalar(int force)
{
    ifma_off = force;
}

TGT_FN void cuzk_msm_ifma_mul8(cuzk_fp out[8], const cuzk_fp a[8], const cuzk_fp b[8])
{
    v8fp x = load8(a), y = load8(b), z = v_mul(&x, &y);
    store8(out, &z);
}

/* ---- batch-affine pair additions ------------------------------------------- */

size_t cuzk_msm_ifma_work_bytes(size_t n)
{
    return (n + 15) / 16 * 2 * sizeof(v8fp) + 64;
}

/* den[i] <- den[i]^-1 for i < n8 (a nonzero multiple of 16) as eight-lane
 * prefix products in two interleaved chains (blocks 2j and 2j+1; two
 * independent products keep the multiplier busy), the 16 lane totals
 * inverted with one scalar inversion.  Inverses go to inv[block], in
 * [0, 2p) (lazy products: they only feed products). */
TGT void batch_inv(v8fp *inv, const cuzk_fp *den, size_t n8)
{
    size_t nb = n8 / 8;
    v8fp c0 = load8(den), c1 = load8(den + 8);
    inv[0] = c0;
    inv[1] = c1;
    for (size_t j = 2; j < nb; j += 2) {
        v8fp d0 = load8(den + 8 * j), d1 = load8(den + 8 * j + 8);
        c0 = v_mul_lazy(&c0, &d0);
        c1 = v_mul_lazy(&c1, &d1);
        inv[j] = c0;
        inv[j + 1] = c1;
    }
    c0 = sub_p_once(c0.l);
    c1 = sub_p_once(c1.l);
    cuzk_fp tot[16], pre[16], ti[16], r;
    store8(tot, &c0);
    store8(tot + 8, &c1);
    pre[0] = tot[0];
    for (int k = 1; k < 16; k++)
        cuzk_fp_mul_inl(&pre[k], &pre[k - 1], &tot[k]);
    cuzk_msm_fp_inv_var(&r, &pre[15]);
    for (int k = 15; k > 0; k--) {
        cuzk_fp_mul_inl(&ti[k], &r, &pre[k - 1]);
        cuzk_fp_mul_inl(&r, &r, &tot[k]);
    }
    ti[0] = r;
    v8fp i0 = load8(ti), i1 = load8(ti + 8);
    for (size_t j = nb - 2; j >= 2; j -= 2) {
        v8fp d0 = load8(den + 8 * j), d1 = load8(den + 8 * j + 8);
        inv[j] = v_mul_lazy(&i0, &inv[j - 2]);
        inv[j + 1] = v_mul_lazy(&i1, &inv[j - 1]);
        i0 = v_mul_lazy(&i0, &d0);
        i1 = v_mul_lazy(&i1, &d1);
    }
    inv[0] = i0;
    inv[1] = i1;
}

#define PK_NAME cuzk_msm_ifma_pairs
#define PK_AFF cuzk_g1_affine
#define PK_FE cuzk_fp
#define PK_V v8fp
#define PK_ONE CUZK_FP_ONE
#define PK_N8(n) (((n) + 15) / 16 * 16)
#define PK_INV batch_inv
#define PK_LOAD load8p
#define PK_STORE store8p
#define PK_SUB v_sub
#define PK_MUL v_mul
#define PK_LAM v_mul_lazy
#define PK_SQR v_sqr
#define PK_X2(a) v_mul(a, a)
#define PK_TRIPLE_BLEND v_triple_blend
#include "msm/msm_ifma_internal.h"

TGT_FN void cuzk_msm_ifma_sqr8(cuzk_fp out[8], const cuzk_fp a[8])
{
    v8fp x = load8(a), z = v_sqr(&x);
    store8(out, &z);
}

#else
int cuzk_msm_ifma_available(void)
{
    return 0;
}
int cuzk_msm_ifma_active(void)
{
    return 0;
}
void cuzk_msm_ifma_force_scalar(int force)
{
    (void)force;
}
void cuzk_msm_ifma_mul8(cuzk_fp out[8], const cuzk_fp a[8], const cuzk_fp b[8])
{
    (void)out, (void)a, (void)b;
}
void cuzk_msm_ifma_sqr8(cuzk_fp out[8], const cuzk_fp a[8])
{
    (void)out, (void)a;
}
size_t cuzk_msm_ifma_work_bytes(size_t n)
{
    return (void)n, 0;
}
void cuzk_msm_ifma_pairs(cuzk_g1_affine *O, const cuzk_g1_affine *A, const cuzk_g1_affine *B, const uint32_t *io,
                    const uint32_t *ia, const uint32_t *ib, const uint8_t *flag, cuzk_fp *den, void *work,
                    size_t n)
{
    (void)O, (void)A, (void)B, (void)io, (void)ia, (void)ib, (void)flag, (void)den, (void)work, (void)n;
}
#endif
