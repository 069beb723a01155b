/* Pippenger MSM over G2 (coordinates in Fp2): instantiation of msm_tmpl.h. */
#include "cuzk/msm.h"
#include "ff/tower_internal.h"
#include "msm/msm_internal.h"

static inline int fp2_is_zero_inl(const cuzk_fp2 *a)
{
    return (int)(fp_is_zero(&a->c0) & fp_is_zero(&a->c1));
}

static inline int fp2_eq_inl(const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    return (int)(fp_eq(&a->c0, &b->c0) & fp_eq(&a->c1, &b->c1));
}

/* The field layer's inline Fp2 arithmetic (see msm_g1.c). */
#define FE cuzk_fp2
#define FE_ADD fp2_add
#define FE_SUB fp2_sub
#define FE_DBL fp2_dbl
#define FE_NEG fp2_neg
#define FE_MUL fp2_mul
#define FE_SQR fp2_sqr
#define FE_INV msm_fp2_inv_var
#define FE_IS_ZERO fp2_is_zero_inl
#define FE_EQ fp2_eq_inl
#define FE_ONE CUZK_FP2_ONE
#define AFF cuzk_g2_affine
#define JAC cuzk_g2
#define G(name) cuzk_msm_g2_##name
/* 4096 points = 768 KiB of chunk buffer (G2 affine points are 192 bytes). */
#define MSM_BATCH 4096
/* One Fp inversion plus a few Fp multiplications, in Fp2 multiplications. */
#define MSM_INV_COST 90.0

/* Fewest pairs worth one inversion in a round (else mixed additions). */
#define MSM_MIN_PAIRS 24

#include "msm/msm_tmpl.h"

int cuzk_msm_g2(cuzk_par *par, cuzk_g2 *out, const cuzk_g2_affine *bases, size_t nbases,
                const cuzk_fr *scalars, size_t nvars, const uint64_t *density, void *scratch,
                size_t scratch_len)
{
    return msm_run(par, out, bases, nbases, scalars, 1, nvars, density, scratch, scratch_len,
                   NULL);
}
