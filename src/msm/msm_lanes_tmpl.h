/* Lane-parallel running sums in affine coordinates (lanes_add, lanes_rsum):
 * part of the group-generic Pippenger core, included by msm_tmpl.h after
 * the XYZZ formulas and the batch-affine chunk context (same macros). */

/* ---- lane-parallel running sums in affine coordinates ------------------- */
/* p[i] += q[i * qs] for i < n, affine, one shared inversion (cx->den/acc,
 * n <= MSM_BATCH / 2).  Infinity is (0, 0) on either side. */
static void lanes_add(ba_ctx *cx, AFF *p, const AFF *q, size_t qs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const AFF *a = &p[i], *b = &q[i * qs];
        cx->flag[i] = 0;
        if (aff_is_inf(b) || aff_is_inf(a)) {
            cx->flag[i] = aff_is_inf(b) ? 3 : 4;
            cx->den[i] = FE_ONE;
            continue;
        }
        ba_pair_den(cx, i, a, b);
    }
#ifdef MSM_IFMA
    if (cuzk_msm_ifma_active()) {
        for (size_t i = 0; i < n; i++) {
            cx->ia[i] = (uint32_t)i;
            cx->ib[i] = (uint32_t)(i * qs);
        }
        MSM_IFMA_PAIRS(p, p, q, cx->ia, cx->ia, cx->ib, cx->flag, cx->den, cx->acc, n);
        for (size_t i = 0; i < n; i++) {
            if (cx->flag[i] == 4)
                p[i] = q[i * qs];
            else if (cx->flag[i] == 2)
                memset(&p[i], 0, sizeof p[i]);
        }
        return;
    }
#endif
    ba_batch_inv(cx, n);
    for (size_t i = 0; i < n; i++) {
        AFF *a = &p[i];
        const AFF *b = &q[i * qs];
        switch (cx->flag[i]) {
        case 3:
            continue;
        case 4:
            *a = *b;
            continue;
        case 2:
            memset(a, 0, sizeof *a);
            continue;
        default:
            ba_pair_sum(a, a, b, &cx->den[i], cx->flag[i]);
        }
    }
}

/* sum_{key=1..nb} key * bk[key-1] with the buckets cut into S segments of
 * m keys run side by side: each step adds one bucket to every segment's
 * running sum R_s and R_s to its total T_s with one shared inversion per
 * S additions (~7 products per addition instead of the 10 / 14 of XYZZ
 * mixed / full additions).  Then T_s = sum (key - lo_s + 1) B_key, so the
 * window sum is sum_s T_s + m * sum_s s R_s (the latter a short XYZZ
 * running sum over the segments).  Uses cx->buf for R and T. */
#define MSM_LANES 256
#define MSM_LANES_MIN_NB 4096
/* With the IFMA pair additions the lanes pay from 2048 buckets (Filecoin
 * 2^20: -10 %, perf-notes "MSM: AVX-512 IFMA pair additions"). */
#define MSM_LANES_MIN_NB_IFMA 2048
static uint32_t lanes_min_nb(void)
{
#ifdef MSM_IFMA
    if (cuzk_msm_ifma_active()) return MSM_LANES_MIN_NB_IFMA;
#endif
    return MSM_LANES_MIN_NB;
}
static void lanes_rsum(xyzz *out, ba_ctx *cx, const AFF *bk, uint32_t nb)
{
    uint32_t S = nb / 32 < MSM_LANES ? nb / 32 : MSM_LANES, m = nb / S;
    AFF *R = cx->buf, *T = cx->buf + S;
    memset(R, 0, 2 * (size_t)S * sizeof(AFF));
    for (uint32_t j = 0; j < m; j++) {
        lanes_add(cx, R, &bk[m - 1 - j], m, S);
        lanes_add(cx, T, R, 1, S);
    }
    xyzz run, tot;
    xyzz_set_inf(&run);
    xyzz_set_inf(&tot);
    for (uint32_t s = S - 1; s >= 1; s--) {
        if (!aff_is_inf(&R[s])) xyzz_madd(&run, &R[s].x, &R[s].y);
        xyzz_add(&tot, &run);
    }
    for (uint32_t d = m; d > 1; d >>= 1)
        xyzz_dbl(&tot, &tot);
    for (uint32_t s = 0; s < S; s++)
        if (!aff_is_inf(&T[s])) xyzz_madd(&tot, &T[s].x, &T[s].y);
    *out = tot;
}
