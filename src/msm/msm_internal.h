/* Internal pieces of the MSM layer shared by the G1 and G2 instantiations
 * (msm_g1.c, msm_g2.c include msm_tmpl.h with their field macros). */
#ifndef CUZK_MSM_INTERNAL_H
#define CUZK_MSM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/msm.h"

/* Gather prefetch distance (entries ahead). */
#define MSM_PF 8

/* Sign flag in a sorted term entry / digit (entries are 31-bit indices). */
#define MSM_NEG 0x80000000u

/* Signed (Booth) digit of window w: with v = bits [wc-1, wc+c] of k
 * (bit -1 = 0), d = (v >> 1) + (v & 1) - 2^c * (v >> c), so that
 * k = sum_w 2^(wc) d_w as long as bit (W c - 1) of k is 0 (W c >= 256 and
 * k < 2^255).  |d| <= 2^(c-1).  Returned as |d| | (d < 0 ? MSM_NEG : 0). */
static inline uint32_t msm_booth(const cuzk_scalar *k, unsigned w, unsigned c)
{
    uint64_t v;
    if (w == 0) {
        v = k->l[0] << 1;
    } else {
        unsigned p = w * c - 1, i = p >> 6, s = p & 63;
        v = k->l[i] >> s;
        if (s && i < 3) v |= k->l[i + 1] << (64 - s);
    }
    v &= ((uint64_t)2 << c) - 1;
    uint32_t top = (uint32_t)(v >> c);
    uint32_t mag = (uint32_t)((v >> 1) + (v & 1));
    if (top) mag = (1u << c) - mag;
    return mag | (top << 31);
}

/* One contiguous run of entries of the same bucket inside a chunk buffer. */
typedef struct {
    uint32_t key;   /* bucket = |digit| (1..2^(c-1)) */
    uint32_t start; /* first slot in the chunk buffer */
    uint32_t len;   /* live points from start */
} msm_seg;

/* Cost model (in Fp-multiplication equivalents) used to pick c and the
 * bucket strategy; calibrated in docs/perf-notes.md.  fe_weight scales field
 * costs (1 for Fp, ~3 for Fp2) and inv the cost of one inversion relative
 * to a multiplication. */
#define MSM_STRAT_AUTO 0
#define MSM_STRAT_AFFINE 1
#define MSM_STRAT_XYZZ 2
#define MSM_STRAT_SORTED 3
double cuzk_msm_cost(size_t n, unsigned c, int strategy, double inv_cost, size_t batch);
/* The cost model never picks XYZZ buckets above this window (it would not
 * anyway: they win only for small inputs, c <= 6 in practice), so the
 * whole-MSM scratch need not hold 2^(c-1) XYZZ points for large c. */
#define MSM_XYZZ_MAX_C 8u
/* Best (c, strategy) for n terms. */
void cuzk_msm_choose(size_t n, double inv_cost, size_t batch, unsigned *c, int *strategy);

/* Classification of one variable's scalar. */
static inline int msm_is_zero(const cuzk_scalar *k)
{
    return (k->l[0] | k->l[1] | k->l[2] | k->l[3]) == 0;
}
static inline int msm_is_one(const cuzk_scalar *k)
{
    return ((k->l[0] ^ 1) | k->l[1] | k->l[2] | k->l[3]) == 0;
}

static inline size_t msm_align(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/* Variable-time inversions (the field layer's safegcd; 0 -> 0).  Public
 * data only. */
void cuzk_msm_fp_inv_var(cuzk_fp *r, const cuzk_fp *a);
void cuzk_msm_fp2_inv_var(cuzk_fp2 *r, const cuzk_fp2 *a);

/* popcount of the first n bits of a bitmap */
size_t cuzk_msm_popcount(const uint64_t *bits, size_t n);

#endif
