/* Number-theoretic transforms over Fr (BLS12-381 scalar field), the
 * polynomial layer used by Groth16 to compute H = (A*B - C) / Z.
 *
 * Roots of unity.  r - 1 = 2^32 * t with t odd, and 7 generates Fr^*.  For
 * n = 2^k (k <= 32) the domain generator is omega_n = 7^((r-1)/n), so
 * omega_n = omega_{2^32}^(2^(32-k)) with omega_{2^32} = 7^t -- the same
 * roots bellperson and blstrs use (their ROOT_OF_UNITY squared 32-k times).
 * Nothing is pasted: the domain derives them from CUZK_FR_MODULUS.
 *
 * Transforms (all in place on a[0..n-1], n = 2^k, 0 <= k <= 27):
 *   forward:        a[i] <- sum_j a[j] * omega^(i*j)
 *   inverse:        a[i] <- n^-1 * sum_j a[j] * omega^(-i*j)
 *   coset_forward:  a[i] <- sum_j a[j] * (g * omega^i)^j      (g = 7)
 *   coset_inverse:  the inverse of coset_forward: a[j] <- n^-1 * g^-j *
 *                   sum_i a[i] * omega^(-i*j)
 * i.e. forward evaluates the polynomial with coefficients a at omega^i and
 * coset_forward at g*omega^i -- bellperson's fft / ifft / coset_fft /
 * icoset_fft, whose coset generator is Fr's multiplicative generator 7.
 *
 * Order contract: input and output are both in natural order (index i is
 * coefficient i or the evaluation at omega^i).  The bit reversal that a
 * radix-2 algorithm needs happens inside each call.
 *
 * Domain: created once per size by cuzk_ntt_domain_create (the only
 * allocation; transforms allocate nothing) and read-only afterwards, so one
 * domain may serve many concurrent transforms.  Memory:
 * cuzk_ntt_domain_bytes(), 36 * T bytes plus a small header with T =
 * min(n/2, 2^21): the twiddles w_{2T}^i for i < T (32 T bytes) and
 * contiguous per-stage tables for the stages that would read that table at
 * a stride above 8 elements (4 T bytes): 18 * n bytes up to 2^22 (72 MiB
 * there), 72 MiB from 2^22 to 2^27 (was 2.25 GiB at 2^27).  The stages
 * above 2^21 butterflies per block compute their twiddles from that table
 * and a few small ones (one multiplication per twiddle) into a 12 KiB
 * buffer on the stack of the thread running the task.
 *
 * Kernels: radix-4 depth-first DIF plus a cache-blocked bit reversal.  On
 * CPUs with AVX-512 IFMA (checked at run time when a domain is created)
 * most butterflies run eight at a time in 52-bit limbs; results are
 * bit-identical to the scalar MULX/ADX path.
 *
 * Threads: par may be NULL (calling thread only).  Work is split into
 * tasks through par (cuzk/par.h); results are bit-identical for every
 * thread count.  Transforms run the same operations and memory accesses
 * for every input value (the arithmetic is constant time and the control
 * flow depends only on n). */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include <stddef.h>

#include "cuzk/ff.h"
#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest supported transform: 2^27 elements (4 GiB of Fr). */
#define CUZK_NTT_MAX_LOG 27u
/* Two-adicity of r: the largest power of two dividing r - 1. */
#define CUZK_FR_TWO_ADICITY 32u

typedef struct cuzk_ntt_domain cuzk_ntt_domain;

/* r = omega_{2^log_n} = 7^((r-1)/2^log_n), a primitive 2^log_n-th root of
 * unity (log_n <= 32; log_n = 0 gives 1).  CUZK_ERR_ARG if log_n > 32. */
CUZK_MUST_CHECK int cuzk_ntt_root_of_unity(cuzk_fr *r, unsigned log_n);
/* The coset generator, 7 (Fr's multiplicative generator). */
void cuzk_ntt_coset_generator(cuzk_fr *g);

/* Bytes a domain of 2^log_n holds; 0 if log_n > CUZK_NTT_MAX_LOG. */
size_t cuzk_ntt_domain_bytes(unsigned log_n);
/* *out = a new domain for size 2^log_n with its twiddle tables, filled
 * through par (may be NULL).  Returns CUZK_OK, CUZK_ERR_ARG (out NULL or
 * log_n > CUZK_NTT_MAX_LOG) or CUZK_ERR_NOMEM. */
CUZK_MUST_CHECK int cuzk_ntt_domain_create(cuzk_ntt_domain **out, unsigned log_n, cuzk_par *par);
/* Frees the domain; NULL is a no-op. */
void cuzk_ntt_domain_destroy(cuzk_ntt_domain *dom);
unsigned cuzk_ntt_domain_log_n(const cuzk_ntt_domain *dom);
/* omega_n of this domain (0 for a NULL domain, whose log_n reads 0). */
void cuzk_ntt_domain_omega(cuzk_fr *omega, const cuzk_ntt_domain *dom);

/* The transforms above.  Return CUZK_OK, or CUZK_ERR_ARG (and leave a
 * unchanged) if dom is NULL, a is NULL (n > 0), or n != 2^log_n of dom. */
CUZK_MUST_CHECK int cuzk_ntt_forward(const cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *a, size_t n);
CUZK_MUST_CHECK int cuzk_ntt_inverse(const cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *a, size_t n);
CUZK_MUST_CHECK int cuzk_ntt_coset_forward(const cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *a, size_t n);
CUZK_MUST_CHECK int cuzk_ntt_coset_inverse(const cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *a, size_t n);

#ifdef __cplusplus
}
#endif
#endif
