/* AVX-512 IFMA Fp arithmetic for the G1 batch-affine additions: eight Fp
 * elements per vector operation (msm_ifma.c).  Values in memory keep the
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
int msm_ifma_available(void);

/* Nonzero if the G1 MSM uses the kernels: available and not switched off by
 * msm_ifma_force_scalar(1) (tests, A/B measurements) or by the environment
 * variable CUZK_MSM_NO_IFMA at load time. */
int msm_ifma_active(void);
void msm_ifma_force_scalar(int force);

/* out[i] = a[i] * b[i] (Montgomery product) for i < 8; for tests and
 * measurements.  Call only if msm_ifma_available(). */
void msm_ifma_mul8(cuzk_fp out[8], const cuzk_fp a[8], const cuzk_fp b[8]);
/* out[i] = a[i]^2, likewise. */
void msm_ifma_sqr8(cuzk_fp out[8], const cuzk_fp a[8]);

/* Bytes of the work area msm_ifma_pairs needs for n pairs (64-byte
 * alignment included). */
size_t msm_ifma_work_bytes(size_t n);

/* Affine pair additions with one shared inversion (variable time, public
 * data): for i < n, O[io[i]] = A[ia[i]] + B[ib[i]] where flag[i] is 0 (an
 * addition, den[i] = x_b - x_a) or 1 (a doubling, A[ia[i]] = B[ib[i]], den[i]
 * = 2y); pairs with another flag are not written (their den[i] must be
 * nonzero, e.g. 1).  All den[i] nonzero; den needs room for n rounded up
 * to a multiple of 16 (the padding is overwritten with ones).  All inputs
 * of a block of eight pairs are read before any output is written, so an
 * output may overwrite the inputs of its own or an earlier block (the
 * in-place compaction of ba_rounds).  Results are bit-identical to the
 * scalar formulas.  Call only if msm_ifma_available(). */
void msm_ifma_pairs(cuzk_g1_affine *O, const cuzk_g1_affine *A, const cuzk_g1_affine *B, const uint32_t *io,
                    const uint32_t *ia, const uint32_t *ib, const uint8_t *flag, cuzk_fp *den, void *work,
                    size_t n);

#endif
