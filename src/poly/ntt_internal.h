/* Private interface between the files of the NTT (src/poly). */
#ifndef CUZK_POLY_NTT_INTERNAL_H
#define CUZK_POLY_NTT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ntt.h"

/* Stages up to h = top read the table top_tw = w_{2 top}^j (j < top)
 * directly at stride top/h while that stride is at most this many elements
 * (256 bytes: the prefetcher still streams it); deeper stages get their own
 * contiguous table, because a larger stride touches one cache line and soon
 * one page per twiddle. */
#define NTT_STRIDE_MAX 8u

/* top = min(n/2, 2^NTT_TOP_LOG): a domain stores w_{2h}^j only for stages
 * h <= top (36 * top bytes).  The stages above (n > 2 top, at most five at
 * 2^27) take their twiddles two-level, w_{2h}^j = hi * lo (see
 * cuzk_ntt_gen_twiddles), one extra multiplication per twiddle; they are the
 * top passes, which stream the data from memory anyway.  2^21 keeps a
 * 2^27 domain at 72 MiB (was 2.25 GiB with the full table); chosen by the
 * sweep in docs/perf-notes.md ("NTT domain: two-level twiddles"). */
#ifndef NTT_TOP_LOG
#define NTT_TOP_LOG 21u
#endif
/* Generated stages need 2^e' >= 8 lo entries and 8 | j0: top >= 16. */
#define NTT_TOP_LOG_MIN 4u

struct cuzk_ntt_domain {
    unsigned log_n, top_log;
    size_t n, top;                                      /* top = 2^top_log */
    cuzk_fr omega, omega_inv, n_inv, g, g_inv, g_inv_n; /* g_inv_n = g^-n */
    int ifma;                                           /* tables scaled for the IFMA kernels (ntt_ifma.c) */
    cuzk_fr *top_tw; /* w_{2 top}^j for j < max(top, 1) (times 2^4 if ifma) */
    cuzk_fr *stage;  /* for h < top/NTT_STRIDE_MAX: [h-1, 2h-1) = w_{2h}^j (ditto) */
    /* stage h = 2^s > top, e = s - top_log, e' = max(e, 3):
     * lo[s] = w_{2h}^b for b < 2^e' (ditto) */
    const cuzk_fr *lo[CUZK_NTT_MAX_LOG];
    cuzk_fr small[15];  /* stages h = 1, 2, 4, 8 at [h-1, 2h-1), never scaled */
    cuzk_fr tail_tw[4]; /* w8^1..3, w4^1 times 2^4 (cuzk_ntt_ifma_tail64) */
    void *mem;
    size_t bytes;
};

/* Twiddles of butterflies j0, j0 + 1, ... of one DIF stage: p[(j - j0) * s]. */
typedef struct {
    const cuzk_fr *p;
    size_t s;
} ntt_twiddles;

/* The table view of stage h <= top, from j = 0. */
static inline ntt_twiddles ntt_stage_twiddles(const cuzk_ntt_domain *d, size_t h)
{
    if (h <= 8 && !d->ifma) { /* also where top is too small for stage tables */
        ntt_twiddles t = {d->small + (h - 1), 1};
        return t;
    }
    size_t stride = d->top / h;
    ntt_twiddles t;
    if (stride <= NTT_STRIDE_MAX) {
        t.p = d->top_tw;
        t.s = stride;
    } else {
        t.p = d->stage + (h - 1);
        t.s = 1;
    }
    return t;
}

/* The same view advanced to butterfly j. */
static inline ntt_twiddles ntt_twiddles_at(ntt_twiddles t, size_t j)
{
    t.p += j * t.s;
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
extern int cuzk_ntt_ifma_disabled;
/* Tests: domains created afterwards use top = min(n/2, 2^cuzk_ntt_top_log)
 * (NTT_TOP_LOG by default; values below NTT_TOP_LOG_MIN count as it), so
 * small transforms exercise the generated stages. */
extern unsigned cuzk_ntt_top_log;

/* Stages of at most this many butterflies per call get their generated
 * twiddles into a buffer of this size (three of them for a radix-4 pass). */
#define NTT_GEN_CHUNK 128u
/* out[i] = w_{2h}^(j0 + i) for i < cnt, stage h = 2^s > d->top; in an IFMA
 * domain times 2^4 and j0, cnt multiples of 8 (ntt.c). */
void cuzk_ntt_gen_twiddles(const cuzk_ntt_domain *d, unsigned s, size_t j0, size_t cnt, cuzk_fr *out);

/* How many tasks to cut an evenly divisible job into. */
static inline size_t ntt_chunks(cuzk_par *par, size_t items)
{
    size_t c = (size_t)cuzk_par_threads(par) * 4;
    if (cuzk_par_threads(par) <= 1) c = 1;
    return c < items ? c : (items ? items : 1);
}

/* AVX-512 IFMA kernels (src/poly/ntt_ifma.c): same butterflies as the
 * scalar r4/r2 kernels for j in [j0, j1) (multiples of 8), twiddles stored
 * as w*2^260 mod r.  Call only if cuzk_ntt_ifma_available() (false also when
 * CUZK_NTT_NO_IFMA is set at load time). */
int cuzk_ntt_ifma_available(void);
void cuzk_ntt_ifma_r4(cuzk_fr *a, size_t q, size_t j0, size_t j1, ntt_twiddles wa, ntt_twiddles wb,
                 ntt_twiddles w);
void cuzk_ntt_ifma_r2(cuzk_fr *a, size_t h, size_t j0, size_t j1, ntt_twiddles t);
/* out[i] = hi[((j0 + i) >> ep) << (ep - e)] * lo[(j0 + i) mod 2^ep] * 2^-260
 * for i < cnt; j0, cnt multiples of 8, ep >= 3 (cuzk_ntt_gen_twiddles). */
void cuzk_ntt_ifma_twiddles(cuzk_fr *out, size_t cnt, size_t j0, const cuzk_fr *hi, const cuzk_fr *lo,
                            unsigned e, unsigned ep);
/* Stages h = 4, 2, 1 on [a, a + size), size a multiple of 64; tw = w8^1,
 * w8^2, w8^3, w4^1 times 2^4 (domain field tail_tw). */
void cuzk_ntt_ifma_tail64(cuzk_fr *a, size_t size, const cuzk_fr tw[4]);
/* Element-wise passes (see ntt_ifma.c): a[i] *= running factors, and the
 * reversal a[k] <-> a[n-k] with factors; factors given times 2^4. */
void cuzk_ntt_ifma_scale(cuzk_fr *a, size_t cnt, const cuzk_fr f0[8], const cuzk_fr *step);
void cuzk_ntt_ifma_powers(cuzk_fr *out, size_t cnt, const cuzk_fr f0[8], const cuzk_fr *step);
void cuzk_ntt_ifma_revscale(cuzk_fr *a, size_t n, size_t k0, size_t cnt, const cuzk_fr u0[8], const cuzk_fr *ustep,
                       const cuzk_fr v0[8], const cuzk_fr *vstep);

/* Natural-order DIF core (natural in, bit-reversed out), src/poly/ntt_dif.c. */
void cuzk_ntt_dif(const cuzk_ntt_domain *d, cuzk_par *par, cuzk_fr *a);
/* In-place bit-reversal permutation of a[0..n), src/poly/ntt_dif.c. */
void cuzk_ntt_bitrev_permute(cuzk_par *par, cuzk_fr *a, unsigned log_n);

#endif
