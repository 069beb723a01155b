/* Pippenger MSM over G2 (coordinates in Fp2): instantiation of msm_tmpl.h. */
#include "cuzk/msm.h"
#include "msm/msm_internal.h"

/* The public Fp2 functions: an Fp2 product is ~3 Fp products, so the call
 * overhead is small here. */
#define FE cuzk_fp2
#define FE_ADD cuzk_fp2_add
#define FE_SUB cuzk_fp2_sub
#define FE_DBL cuzk_fp2_dbl
#define FE_NEG cuzk_fp2_neg
#define FE_MUL cuzk_fp2_mul
#define FE_SQR cuzk_fp2_sqr
#define FE_INV cuzk_msm_fp2_inv_var
#define FE_IS_ZERO cuzk_fp2_is_zero
#define FE_EQ cuzk_fp2_eq
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

/* Pair additions eight at a time with AVX-512 IFMA when the CPU has it
 * (msm_ifma_g2.c; runtime switch cuzk_msm_ifma_active, shared with G1). */
#if defined(CUZK_HAVE_ASM) && defined(__x86_64__) && defined(__GNUC__)
#include "msm/msm_ifma.h"
#define MSM_IFMA 1
#define MSM_IFMA_PAIRS cuzk_msm_ifma_g2_pairs
#define MSM_IFMA_WORK_BYTES cuzk_msm_ifma_g2_work_bytes
#endif

#include "msm/msm_tmpl.h"
#include "msm/msm_run_tmpl.h"

int cuzk_msm_g2(cuzk_par *par, cuzk_g2 *out, const cuzk_g2_affine *bases, size_t nbases,
                const cuzk_fr *scalars, size_t nvars, const uint64_t *density, void *scratch,
                size_t scratch_len)
{
    return msm_run(par, out, bases, nbases, scalars, 1, nvars, density, scratch, scratch_len,
                   NULL);
}
