/* Group-independent parts of the MSM layer: scalar conversion, window
 * count, and the cost model that picks the window size and strategy. */
#include <math.h>
#include <string.h>

#include "msm/msm_internal.h"

void cuzk_scalars_from_fr(cuzk_scalar *out, const cuzk_fr *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cuzk_fr t = in[i]; /* out may alias in */
        cuzk_fr_to_limbs(out[i].l, &t);
    }
}

unsigned cuzk_msm_nwindows(unsigned c)
{
    /* Booth digits need bit W*c - 1 of the scalar to be 0: W*c >= 256. */
    return c ? (256 + c - 1) / c : 0;
}

size_t cuzk_msm_popcount(const uint64_t *bits, size_t n)
{
    size_t cnt = 0, i;
    for (i = 0; i + 64 <= n; i += 64) cnt += (size_t)__builtin_popcountll(bits[i >> 6]);
    if (i < n) cnt += (size_t)__builtin_popcountll(bits[i >> 6] & (((uint64_t)1 << (n - i)) - 1));
    return cnt;
}

/* Per window, in field multiplications:
 *  affine: n * (5M+1S batch-affine addition + sort/gather overhead)
 *          + 2^(c-1) * (mixed + full XYZZ addition for the running sums)
 *          + one inversion per chunk and pair round;
 *  xyzz:   n * (mixed XYZZ addition) + 2^(c-1) * (two full XYZZ additions). */
double cuzk_msm_cost(size_t n, unsigned c, int strategy, double inv_cost, size_t batch)
{
    double W = cuzk_msm_nwindows(c), nb = (double)((size_t)1 << (c - 1)), dn = (double)n;
    if (strategy == MSM_STRAT_XYZZ) return W * (dn * 10.5 + nb * 28.0);
    double per = dn / nb, rounds = per > 1.0 ? ceil(log2(per)) + 1.0 : 1.0;
    double chunks = ceil(dn / (double)batch);
    if (chunks < 1.0) chunks = 1.0;
    return W * (dn * 7.0 + nb * 24.0 + chunks * rounds * inv_cost);
}

void cuzk_msm_choose(size_t n, double inv_cost, size_t batch, unsigned *c, int *strategy)
{
    double best = 0;
    *c = 1;
    *strategy = MSM_STRAT_XYZZ;
    for (unsigned cc = 1; cc <= CUZK_MSM_MAX_WINDOW; cc++)
        for (int st = MSM_STRAT_AFFINE; st <= MSM_STRAT_XYZZ; st++) {
            if (st == MSM_STRAT_XYZZ && cc > MSM_XYZZ_MAX_C) continue;
            double v = cuzk_msm_cost(n, cc, st, inv_cost, batch);
            if ((cc == 1 && st == MSM_STRAT_AFFINE) || v < best) {
                best = v;
                *c = cc;
                *strategy = st;
            }
        }
}

unsigned cuzk_msm_window_bits(size_t n)
{
    unsigned c;
    int st;
    cuzk_msm_choose(n, 250.0, 8192, &c, &st);
    return c;
}

/* ---- variable-time inversions -------------------------------------------
 * The batch-affine rounds invert once per chunk and round.  The field
 * layer's safegcd cuzk_fp_inv_var (~1.6 us) replaced a binary extended
 * Euclid here (~12 us); the A/B is in docs/perf-notes.md (MSM, session 2). */
void cuzk_msm_fp_inv_var(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp_inv_var(r, a);
}

void cuzk_msm_fp2_inv_var(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp n, t;
    cuzk_fp_sqr(&n, &a->c0);
    cuzk_fp_sqr(&t, &a->c1);
    cuzk_fp_add(&n, &n, &t); /* norm: (c0 + c1 u)(c0 - c1 u) = c0^2 + c1^2 */
    cuzk_msm_fp_inv_var(&n, &n);
    cuzk_fp_mul(&r->c0, &a->c0, &n);
    cuzk_fp_mul(&t, &a->c1, &n);
    cuzk_fp_neg(&r->c1, &t);
}
