/* AVX-512 IFMA Fp arithmetic for the G1 and G2 batch-affine additions:
 * eight Fp / Fp2 elements per vector operation (msm_ifma.c, msm_ifma_g2.c).  Values in memory keep the
 * library's format (6 x 64-bit limbs, Montgomery form with R = 2^384,
 * fully reduced); results are bit-identical to the scalar field code. */
#ifndef CUZK_MSM_IFMA_H
#define CUZK_MSM_IFMA_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec.h"
#include "cuzk/ff.h"

/* Nonzero if the CPU has AVX-512F + IFMA + VBMI2 and the kernels are
 * compiled in (x86-64 asm builds). */
int cuzk_msm_ifma_available(void);

/* Nonzero if the G1 and G2 MSMs use the kernels: available and not switched off by
 * cuzk_msm_ifma_force_scalar(1) (tests, A/B measurements) or by the environment
 * variable CUZK_MSM_NO_IFMA at load time. */
int cuzk_msm_ifma_active(void);
void cuzk_msm_ifma_force_scalar(int force);

/* out[i] = a[i] * b[i] (Montgomery product) for i < 8; for tests and
 * measurements.  Call only if cuzk_msm_ifma_available(). */
void cuzk_msm_ifma_mul8(cuzk_fp out[8], const cuzk_fp a[8], const cuzk_fp b[8]);
/* out[i] = a[i]^2, likewise. */
void cuzk_msm_ifma_sqr8(cuzk_fp out[8], const cuzk_fp a[8]);

/* Bytes of the work area cuzk_msm_ifma_pairs needs for n pairs (64-byte
 * alignment included). */
size_t cuzk_msm_ifma_work_bytes(size_t n);

/* Affine pair additions with one shared inversion (variable time, public
 * data): for i < n, O[io[i]] = A[ia[i]] + B[ib[i]] where flag[i] is 0 (an
 * addition, den[i] = x_b - x_a) or 1 (a doubling, A[ia[i]] = B[ib[i]], den[i]
 * = 2y); pairs with another flag are not written (their den[i] must be
 * nonzero, e.g. 1).  All den[i] nonzero; den needs room for n rounded up
 * to a multiple of 16 (the padding is overwritten with ones).  All inputs
 * of a block of eight pairs are read before any output is written, so an
 * output may overwrite the inputs of its own or an earlier block (the
 * in-place compaction of ba_rounds).  Results are bit-identical to the
 * scalar formulas.  Call only if cuzk_msm_ifma_available(). */
void cuzk_msm_ifma_pairs(cuzk_g1_affine *O, const cuzk_g1_affine *A, const cuzk_g1_affine *B, const uint32_t *io,
                    const uint32_t *ia, const uint32_t *ib, const uint8_t *flag, cuzk_fp *den, void *work,
                    size_t n);

/* The same for G2 (msm_ifma_g2.c), coordinates in Fp2 = Fp[u]/(u^2+1):
 * out[i] = a[i] * b[i] and out[i] = a[i]^2 in Fp2 for i < 8, and the pair
 * additions with the contract of cuzk_msm_ifma_pairs (flag 1: den[i] = 2y,
 * lambda = 3x^2 / 2y), except that den needs room for n rounded up to a
 * multiple of 8 only.  Call only if cuzk_msm_ifma_available(). */
void cuzk_msm_ifma_g2_mul8(cuzk_fp2 out[8], const cuzk_fp2 a[8], const cuzk_fp2 b[8]);
void cuzk_msm_ifma_g2_sqr8(cuzk_fp2 out[8], const cuzk_fp2 a[8]);
size_t cuzk_msm_ifma_g2_work_bytes(size_t n);
void cuzk_msm_ifma_g2_pairs(cuzk_g2_affine *O, const cuzk_g2_affine *A, const cuzk_g2_affine *B,
                       const uint32_t *io, const uint32_t *ia, const uint32_t *ib, const uint8_t *flag,
                       cuzk_fp2 *den, void *work, size_t n);

#endif
