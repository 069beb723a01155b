/* The group-dependent MSM kernels, written once for G1 and G2: included by
 * msm.cl with G (g1, g2) and GF (fp, fp2) defined, as group.cl is by
 * groups.cl; kernels are named cz_msm_<G>_<step>.  Bases are affine
 * (infinity = (0, 0), which add_affine skips), sums Jacobian.
 *
 *   bucket_sum     one work item per piece: at most `piece` consecutive
 *                  sorted entries of one bucket (a bucket of many entries
 *                  -- all scalars equal, say -- is split over many work
 *                  items instead of serializing one), summed by mixed
 *                  additions;
 *   bucket_reduce  one work item per segment of `len` buckets of one
 *                  window: sum_b (b + 1) B_b over the segment by running
 *                  sums (tot = sum (b - lo + 1) B_b) plus lo * run;
 *   sum_rows       rows of Jacobian points summed in groups (a tree when
 *                  repeated): the segments of each window, the pieces of
 *                  the scalar-1 sum;
 *   sum_idx        the first level of the scalar-1 sum: groups of bases
 *                  picked by index, by mixed additions. */

#define GA CZ_CAT(G, affine)
#define GFN(x) CZ_CAT(GF, x)
#define GN(x) CZ_CAT(G, x)
#define MK(x) CZ_CAT(CZ_CAT(cz_msm, G), x)

/* The point formulas out of line, once per group (CZ_FN_CALL; inline
 * under CZ_INLINE_ALL): group.cl's are inline (CZ_FN), and inlined at
 * every call site of these kernels they made the whole program's PTX
 * 5.1 MB instead of 2.9 MB and the build's nvcc steps ~50 s longer (nvcc
 * 13, Dec 2026, one A/B on a loaded 2-core VM; pocl's first build took
 * 26 s either way).  Whether inlining pays on a GPU is for the device
 * check, as for the field multiplication (cuzk_kernel.h). */
CZ_FN_CALL G GN(msm_add)(G p, G q)
{
    return GN(add)(p, q);
}

CZ_FN_CALL G GN(msm_madd)(G p, GA q)
{
    return GN(add_affine)(p, q);
}

CZ_FN_CALL G GN(msm_dbl)(G p)
{
    return GN(dbl)(p);
}

/* k * p for a small k (< 2^32) by double-and-add from the top bit. */
CZ_FN G GN(mul_small)(G p, u32 k)
{
    if (k == 0 || GN(is_inf)(p)) return GN(inf)();
    int i = 31;
    while (!((k >> i) & 1)) i--;
    G r = p;
    for (i--; i >= 0; i--) {
        r = GN(msm_dbl)(r);
        if ((k >> i) & 1) r = GN(msm_add)(r, p);
    }
    return r;
}

CZ_KERNEL void MK(bucket_sum)(CZ_GLOBAL G *pieces, CZ_GLOBAL const u32 *sorted, CZ_GLOBAL const u32 *off,
                              CZ_GLOBAL const u32 *pofs, CZ_GLOBAL const GA *bases, u32 m, u32 piece)
{
    u64 p = CZ_GID();
    if (p >= pofs[m]) return;
    /* the bucket whose pieces hold p: largest b with pofs[b] <= p (empty
     * buckets have no pieces: pofs[b] == pofs[b + 1]) */
    u32 lo = 0, hi = m;
    while (hi - lo > 1) {
        u32 mid = lo + (hi - lo) / 2;
        if (pofs[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    u32 from = off[lo] + ((u32)p - pofs[lo]) * piece;
    u32 to = from + piece < off[lo + 1] ? from + piece : off[lo + 1];
    G acc = GN(inf)();
    for (u32 e = from; e < to; e++) {
        /* the base two entries on: a prefetch on a CPU device (its random
         * read stalled pocl's MSM for 20 % of its time) */
        if (e + CZ_MSM_AHEAD < to) CZ_PREFETCH(&bases[sorted[e + CZ_MSM_AHEAD] & ~CZ_MSM_NEG]);
        u32 v = sorted[e];
        GA q = bases[v & ~CZ_MSM_NEG];
        if (v & CZ_MSM_NEG) q.y = GFN(neg)(q.y);
        acc = GN(msm_madd)(acc, q);
    }
    pieces[p] = acc;
}

CZ_KERNEL void MK(bucket_reduce)(CZ_GLOBAL G *seg, CZ_GLOBAL const G *pieces, CZ_GLOBAL const u32 *pofs, u32 nb,
                                 u32 nwin, u32 len, u32 nseg)
{
    u64 id = CZ_GID();
    if (id >= (u64)nwin * nseg) return;
    u32 w = (u32)id / nseg, j = (u32)id % nseg;
    u32 lo = j * len, hi = lo + len < nb ? lo + len : nb;
    G run = GN(inf)(), tot = GN(inf)();
    for (u32 b = hi; b-- > lo;) {
        u32 key = w * nb + b;
        for (u32 q = pofs[key]; q < pofs[key + 1]; q++) run = GN(msm_add)(run, pieces[q]);
        tot = GN(msm_add)(tot, run);
    }
    seg[id] = GN(msm_add)(tot, GN(mul_small)(run, lo));
}

/* out[r][k] = sum of in[r][k*group .. min((k+1)*group, len)) for rows r <
 * rows; rows of in are len long, rows of out ceil(len / group). */
CZ_KERNEL void MK(sum_rows)(CZ_GLOBAL G *out, CZ_GLOBAL const G *in, u32 rows, u32 len, u32 group)
{
    u64 id = CZ_GID();
    u32 outlen = (len + group - 1) / group;
    if (id >= (u64)rows * outlen) return;
    u32 r = (u32)id / outlen, k = (u32)id % outlen;
    u32 from = k * group, to = from + group < len ? from + group : len;
    G acc = GN(inf)();
    for (u32 i = from; i < to; i++) acc = GN(msm_add)(acc, in[(u64)r * len + i]);
    out[id] = acc;
}

/* out[k] = sum of bases[idx[i]] for i in [k*group, min((k+1)*group, n)). */
CZ_KERNEL void MK(sum_idx)(CZ_GLOBAL G *out, CZ_GLOBAL const GA *bases, CZ_GLOBAL const u32 *idx, u32 n,
                           u32 group)
{
    u64 k = CZ_GID();
    if (k >= (n + (u64)group - 1) / group) return;
    u32 from = (u32)k * group, to = from + group < n ? from + group : n;
    G acc = GN(inf)();
    for (u32 i = from; i < to; i++) {
        if (i + CZ_MSM_AHEAD < to) CZ_PREFETCH(&bases[idx[i + CZ_MSM_AHEAD]]);
        acc = GN(msm_madd)(acc, bases[idx[i]]);
    }
    out[k] = acc;
}

#undef GA
#undef GFN
#undef GN
#undef MK
