/* Pippenger MSM over G1 (coordinates in Fp): instantiation of msm_tmpl.h. */
#include "cuzk/msm.h"
#include "ff/tower_internal.h"
#include "msm/msm_internal.h"

/* The field layer's inline Fp arithmetic (ADX Montgomery product when the
 * CPU has it): a call per operation costs ~10 % in the bucket loops. */
#define FE cuzk_fp
#define FE_ADD fp_add
#define FE_SUB fp_sub
#define FE_DBL fp_dbl
#define FE_NEG fp_neg
#define FE_MUL fp_mul
#define FE_SQR fp_sqr
#define FE_INV msm_fp_inv_var
#define FE_IS_ZERO fp_is_zero
#define FE_EQ fp_eq
#define FE_ONE CUZK_FP_ONE
#define AFF cuzk_g1_affine
#define JAC cuzk_g1
#define G(name) cuzk_msm_g1_##name
/* 8192 points = 768 KiB of chunk buffer: fits L2 with the pair arrays. */
#define MSM_BATCH 8192
/* Binary-Euclid inversion (msm_fp_inv_var) in Fp multiplications. */
#define MSM_INV_COST 250.0

/* Fewest pairs worth one inversion in a round (else mixed additions). */
#define MSM_MIN_PAIRS 48

#include "msm/msm_tmpl.h"

int cuzk_msm_g1(cuzk_par *par, cuzk_g1 *out, const cuzk_g1_affine *bases, size_t nbases,
                const cuzk_fr *scalars, size_t nvars, const uint64_t *density, void *scratch,
                size_t scratch_len)
{
    return msm_run(par, out, bases, nbases, scalars, 1, nvars, density, scratch, scratch_len,
                   NULL);
}
