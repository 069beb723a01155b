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

size_t msm_popcount(const uint64_t *bits, size_t n)
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
double msm_cost(size_t n, unsigned c, int strategy, double inv_cost, size_t batch)
{
    double W = cuzk_msm_nwindows(c), nb = (double)((size_t)1 << (c - 1)), dn = (double)n;
    if (strategy == MSM_STRAT_XYZZ) return W * (dn * 10.5 + nb * 28.0);
    double per = dn / nb, rounds = per > 1.0 ? ceil(log2(per)) + 1.0 : 1.0;
    double chunks = ceil(dn / (double)batch);
    if (chunks < 1.0) chunks = 1.0;
    return W * (dn * 7.0 + nb * 24.0 + chunks * rounds * inv_cost);
}

void msm_choose(size_t n, double inv_cost, size_t batch, unsigned *c, int *strategy)
{
    double best = 0;
    *c = 1;
    *strategy = MSM_STRAT_XYZZ;
    for (unsigned cc = 1; cc <= CUZK_MSM_MAX_WINDOW; cc++)
        for (int st = MSM_STRAT_AFFINE; st <= MSM_STRAT_XYZZ; st++) {
            double v = msm_cost(n, cc, st, inv_cost, batch);
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
    msm_choose(n, 250.0, 8192, &c, &st);
    return c;
}

/* ---- variable-time Fp inversion ------------------------------------------
 * The field layer's cuzk_fp_inv_var is a Fermat power (~600 products);
 * the batch-affine rounds invert once per chunk and round, so a binary
 * extended Euclid (~4x faster, measured in docs/perf-notes.md) pays.
 * Input A = a R (Montgomery form); Euclid gives A^-1 mod p as an integer,
 * and a Montgomery product with R^3 mod p turns it into a^-1 R. */
#include "ff/field_internal.h"

/* R^3 mod p, R = 2^384 (Python: pow(2**384, 3, p)). */
static const cuzk_fp FP_R3 = {{0xed48ac6bd94ca1e0ull, 0x315f831e03a7adf8ull,
                               0x9a53352a615e29ddull, 0x34c04e5e921e1761ull,
                               0x2512d43565724728ull, 0x0aa6346091755d4dull}};

static inline void l6_shr1(uint64_t *a)
{
    for (int i = 0; i < 5; i++) a[i] = a[i] >> 1 | a[i + 1] << 63;
    a[5] >>= 1;
}

/* x = x / 2 mod p for x < p (x + p < 2^382 never overflows). */
static inline void l6_half_mod(uint64_t *x)
{
    if (x[0] & 1) {
        cuzk_u128 c = 0;
        for (int i = 0; i < 6; i++) {
            c += (cuzk_u128)x[i] + CUZK_FP_MODULUS[i];
            x[i] = (uint64_t)c;
            c >>= 64;
        }
    }
    l6_shr1(x);
}

static inline int l6_geq(const uint64_t *a, const uint64_t *b)
{
    for (int i = 5; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i];
    return 1;
}

static inline void l6_sub(uint64_t *a, const uint64_t *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < 6; i++) {
        cuzk_u128 x = (cuzk_u128)a[i] - b[i] - borrow;
        a[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
}

static inline int l6_is_one(const uint64_t *a)
{
    return ((a[0] ^ 1) | a[1] | a[2] | a[3] | a[4] | a[5]) == 0;
}

void msm_fp_inv_var(cuzk_fp *r, const cuzk_fp *a)
{
    uint64_t u[6], v[6], x1[6] = {1, 0, 0, 0, 0, 0}, x2[6] = {0, 0, 0, 0, 0, 0};
    if (cuzk_fp_is_zero(a)) {
        *r = CUZK_FP_ZERO;
        return;
    }
    memcpy(u, a->l, sizeof u);
    memcpy(v, CUZK_FP_MODULUS, sizeof v);
    /* invariants: x1 * A = u, x2 * A = v (mod p); gcd(u, v) = 1 */
    while (!l6_is_one(u) && !l6_is_one(v)) {
        while (!(u[0] & 1)) {
            l6_shr1(u);
            l6_half_mod(x1);
        }
        while (!(v[0] & 1)) {
            l6_shr1(v);
            l6_half_mod(x2);
        }
        if (l6_geq(u, v)) {
            l6_sub(u, v);
            limbs_sub_mod_n(x1, x1, x2, CUZK_FP_MODULUS, 6);
        } else {
            l6_sub(v, u);
            limbs_sub_mod_n(x2, x2, x1, CUZK_FP_MODULUS, 6);
        }
    }
    cuzk_fp t;
    memcpy(t.l, l6_is_one(u) ? x1 : x2, sizeof t.l);
    cuzk_fp_mul(r, &t, &FP_R3);
}

void msm_fp2_inv_var(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp n, t;
    cuzk_fp_sqr(&n, &a->c0);
    cuzk_fp_sqr(&t, &a->c1);
    cuzk_fp_add(&n, &n, &t); /* norm: (c0 + c1 u)(c0 - c1 u) = c0^2 + c1^2 */
    msm_fp_inv_var(&n, &n);
    cuzk_fp_mul(&r->c0, &a->c0, &n);
    cuzk_fp_mul(&t, &a->c1, &n);
    cuzk_fp_neg(&r->c1, &t);
}
