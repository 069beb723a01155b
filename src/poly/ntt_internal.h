/* Private interface between the files of the NTT (src/poly). */
#ifndef CUZK_POLY_NTT_INTERNAL_H
#define CUZK_POLY_NTT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ntt.h"

/* Top stages read the natural table omega^i directly at stride n/(2h) while
 * that stride is at most this many elements (256 bytes: the prefetcher
 * still streams it); deeper stages get their own contiguous table, because
 * a larger stride touches one cache line and soon one page per twiddle. */
#define NTT_STRIDE_MAX 8u

struct cuzk_ntt_domain {
    unsigned log_n;
    size_t n;
    cuzk_fr omega, omega_inv, n_inv, g, g_inv, g_inv_n; /* g_inv_n = g^-n */
    int ifma;       /* tables scaled for the IFMA kernels (ntt_ifma.c) */
    cuzk_fr *nat;   /* omega^i for i < max(n/2, 1) (times 2^4 if ifma) */
    cuzk_fr *stage; /* for h < n/(2*NTT_STRIDE_MAX): [h-1, 2h-1) = w_{2h}^j (ditto) */
    cuzk_fr small[15]; /* stages h = 1, 2, 4, 8 at [h-1, 2h-1), never scaled */
    cuzk_fr tail_tw[4]; /* w8^1..3, w4^1 times 2^4 (ntt_ifma_tail64) */
    void *mem;
    size_t bytes;
};

/* Twiddles of one DIF stage with half-size h: w_{2h}^j = p[j * s]. */
typedef struct {
    const cuzk_fr *p;
    size_t s;
} ntt_twiddles;

static inline ntt_twiddles ntt_stage_twiddles(const cuzk_ntt_domain *d, size_t h)
{
    if (h <= 8 && !d->ifma) { /* also where n is too small for stage tables */
        ntt_twiddles t = {d->small + (h - 1), 1};
        return t;
    }
    size_t stride = d->n / (2 * h);
    ntt_twiddles t;
    if (stride <= NTT_STRIDE_MAX) {
        t.p = d->nat;
        t.s = stride;
    } else {
        t.p = d->stage + (h - 1);
        t.s = 1;
    }
    return t;
}

static inline size_t ntt_bitrev(size_t x, unsigned bits)
{
    uint64_t v = __builtin_bswap64((uint64_t)x);
    v = (v >> 4 & 0x0f0f0f0f0f0f0f0full) | (v & 0x0f0f0f0f0f0f0f0full) << 4;
    v = (v >> 2 & 0x3333333333333333ull) | (v & 0x3333333333333333ull) << 2;
    v = (v >> 1 & 0x5555555555555555ull) | (v & 0x5555555555555555ull) << 1;
    return bits ? (size_t)(v >> (64 - bits)) : 0;
}

/* Twiddles in the usual Montgomery form, for the scalar kernels: in an
 * IFMA domain those run only on stages h <= 8. */
static inline ntt_twiddles ntt_stage_twiddles_std(const cuzk_ntt_domain *d, size_t h)
{
    if (h <= 8) {
        ntt_twiddles t = {d->small + (h - 1), 1};
        return t;
    }
    return ntt_stage_twiddles(d, h);
}

/* Tests: nonzero makes domains created afterwards use the scalar kernels. */
extern int ntt_ifma_disabled;

/* How many tasks to cut an evenly divisible job into. */
static inline size_t ntt_chunks(cuzk_par *par, size_t items)
{
    size_t c = (size_t)cuzk_par_threads(par) * 4;
    if (cuzk_par_threads(par) <= 1) c = 1;
    return c < items ? c : (items ? items : 1);
}

/* AVX-512 IFMA kernels (src/poly/ntt_ifma.c): same butterflies as the
 * scalar r4/r2 kernels for j in [j0, j1) (multiples of 8), twiddles stored
 * as w*2^260 mod r.  Call only if ntt_ifma_available(). */
int ntt_ifma_available(void);
void ntt_ifma_r4(cuzk_fr *a, size_t q, size_t j0, size_t j1, ntt_twiddles t2, ntt_twiddles t1);
void ntt_ifma_r2(cuzk_fr *a, size_t h, size_t j0, size_t j1, ntt_twiddles t);
/* Stages h = 4, 2, 1 on [a, a + size), size a multiple of 64; tw = w8^1,
 * w8^2, w8^3, w4^1 times 2^4 (domain field tail_tw). */
void ntt_ifma_tail64(cuzk_fr *a, size_t size, const cuzk_fr tw[4]);
/* Element-wise passes (see ntt_ifma.c): a[i] *= running factors, and the
 * reversal a[k] <-> a[n-k] with factors; factors given times 2^4. */
void ntt_ifma_scale(cuzk_fr *a, size_t cnt, const cuzk_fr f0[8], const cuzk_fr *step);
void ntt_ifma_powers(cuzk_fr *out, size_t cnt, const cuzk_fr f0[8], const cuzk_fr *step);
void ntt_ifma_revscale(cuzk_fr *a, size_t n, size_t k0, size_t cnt, const cuzk_fr u0[8],
                       const cuzk_fr *ustep, const cuzk_fr v0[8], const cuzk_fr *vstep);
/* out[i] = a[i]*b[i]*2^-260 mod r, i < 8 (tests). */
void ntt_ifma_mul8(cuzk_fr *out, const cuzk_fr *a, const cuzk_fr *b);

/* Natural-order DIF core (natural in, bit-reversed out), src/poly/ntt_dif.c. */
void ntt_dif(const cuzk_ntt_domain *d, cuzk_par *par, cuzk_fr *a);
/* In-place bit-reversal permutation of a[0..n), src/poly/ntt_dif.c. */
void ntt_bitrev_permute(cuzk_par *par, cuzk_fr *a, unsigned log_n);

#endif
