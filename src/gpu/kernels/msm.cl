/* Multi-scalar multiplication on the device (docs/gpu-msm.md), the part
 * that does not depend on the group: scalars out of Montgomery form, signed
 * (Booth) window digits, and the counting sort that groups every
 * (term, window) pair by bucket.  The bucket sums, their reduction and the
 * sums of scalar-1 bases are in msm_group.cl, instantiated for G1 and G2
 * at the end of this file.
 *
 * The sort, for a pass of n terms, c-bit windows, W = ceil(256 / c)
 * windows and nb = 2^(c-1) buckets per window (bucket key
 * w * nb + |d| - 1 for a nonzero digit d of window w; digit 0 adds
 * nothing and is dropped):
 *   cz_msm_count      histogram of the keys (one u32 atomic per digit);
 *   cz_msm_scan_*     exclusive prefix sums of the histogram (entry
 *                     offsets) and of ceil(count / piece) (piece offsets);
 *                     three passes: block sums, one serial pass over the
 *                     block sums, blocks rescanned with their start;
 *   cz_msm_scatter    each digit's entry, base index | sign bit, written at
 *                     its bucket's cursor (u32 atomic).  The order inside a
 *                     bucket is whatever the atomics give: point addition
 *                     is commutative, so the sum is the same point (its
 *                     Jacobian coordinates may differ from run to run).
 * Term counts are bounded by the host so that n * W < 2^31 (u32 offsets). */

#define CZ_MSM_NEG 0x80000000u
/* How many entries ahead the bucket sums prefetch a base (CZ_PREFETCH: CPU
 * devices only).  A/B, G1 MSM 2^18 on pocl, 2-vCPU EPYC: no prefetch 3317 ms,
 * 2 ahead 2740 ms (both cache lines of the 96-byte base), 4 ahead 2747 ms. */
#define CZ_MSM_AHEAD 2u

/* Signed digit of window w of canonical scalar k, as the CPU library's
 * msm_booth (src/msm/msm_internal.h): with v = bits [wc-1, wc+c] of k
 * (bit -1 = 0), d = (v >> 1) + (v & 1) - 2^c (v >> c); k = sum 2^(wc) d_w
 * when W c >= 256.  Returned as |d| | sign << 31. */
CZ_FN u32 cz_msm_booth(fr k, u32 w, u32 c)
{
    u64 v;
    if (w == 0) {
        v = k.l[0] << 1;
    } else {
        u32 p = w * c - 1, i = p >> 6, s = p & 63;
        v = k.l[i] >> s;
        if (s && i < 3) v |= k.l[i + 1] << (64 - s);
    }
    v &= ((u64)2 << c) - 1;
    u32 top = (u32)(v >> c);
    u32 mag = (u32)((v >> 1) + (v & 1));
    if (top) mag = (1u << c) - mag;
    return mag | (top << 31);
}

/* k[i] = its canonical integer (the host uploads Montgomery form). */
CZ_KERNEL void cz_msm_from_mont(CZ_GLOBAL fr *k, u32 n)
{
    u64 i = CZ_GID();
    if (i < n) k[i] = fr_from_mont(k[i]);
}

CZ_KERNEL void cz_msm_fill_u32(CZ_GLOBAL u32 *p, u32 v, u32 n)
{
    u64 i = CZ_GID();
    if (i < n) p[i] = v;
}

CZ_KERNEL void cz_msm_count(CZ_GLOBAL u32 *counts, CZ_GLOBAL const fr *k, u32 n, u32 c, u32 nwin)
{
    u64 t = CZ_GID();
    if (t >= n) return;
    fr s = k[t];
    u32 nb = 1u << (c - 1);
    for (u32 w = 0; w < nwin; w++) {
        u32 mag = cz_msm_booth(s, w, c) & ~CZ_MSM_NEG;
        if (mag) CZ_ATOMIC_ADD_U32(&counts[w * nb + mag - 1], 1u);
    }
}

CZ_FN u32 cz_msm_scan_val(u32 x, u32 div)
{
    return div == 1 ? x : (x + div - 1) / div;
}

/* bsum[b] = sum of block b (blk elements of cnt, each ceil(x / div)). */
CZ_KERNEL void cz_msm_scan_blocks(CZ_GLOBAL u32 *bsum, CZ_GLOBAL const u32 *cnt, u32 m, u32 blk, u32 div)
{
    u64 b = CZ_GID();
    u32 nblocks = (m + blk - 1) / blk;
    if (b >= nblocks) return;
    u32 from = (u32)b * blk, to = from + blk < m ? from + blk : m, s = 0;
    for (u32 j = from; j < to; j++) s += cz_msm_scan_val(cnt[j], div);
    bsum[b] = s;
}

/* One work item: bsum = its exclusive prefix sums, bsum[nblocks] = total. */
CZ_KERNEL void cz_msm_scan_top(CZ_GLOBAL u32 *bsum, u32 nblocks)
{
    if (CZ_GID() != 0) return;
    u32 acc = 0;
    for (u32 b = 0; b < nblocks; b++) {
        u32 x = bsum[b];
        bsum[b] = acc;
        acc += x;
    }
    bsum[nblocks] = acc;
}

/* out[j] (and out2[j] when both) = exclusive prefix sum at j; out[m] =
 * the total. */
CZ_KERNEL void cz_msm_scan_apply(CZ_GLOBAL u32 *out, CZ_GLOBAL u32 *out2, CZ_GLOBAL const u32 *cnt,
                                 CZ_GLOBAL const u32 *bsum, u32 m, u32 blk, u32 div, u32 both)
{
    u64 b = CZ_GID();
    u32 nblocks = (m + blk - 1) / blk;
    if (b >= nblocks) return;
    u32 from = (u32)b * blk, to = from + blk < m ? from + blk : m, acc = bsum[b];
    for (u32 j = from; j < to; j++) {
        out[j] = acc;
        if (both) out2[j] = acc;
        acc += cz_msm_scan_val(cnt[j], div);
    }
    if (b == nblocks - 1) out[m] = acc;
}

/* Entries of term t: base index (tidx[t] when indexed, else t) with the
 * digit's sign, one per nonzero digit, at its bucket's cursor. */
CZ_KERNEL void cz_msm_scatter(CZ_GLOBAL u32 *sorted, CZ_GLOBAL u32 *cursor, CZ_GLOBAL const fr *k,
                              CZ_GLOBAL const u32 *tidx, u32 n, u32 c, u32 nwin, u32 indexed)
{
    u64 t = CZ_GID();
    if (t >= n) return;
    fr s = k[t];
    u32 base = indexed ? tidx[t] : (u32)t;
    u32 nb = 1u << (c - 1);
    for (u32 w = 0; w < nwin; w++) {
        u32 d = cz_msm_booth(s, w, c), mag = d & ~CZ_MSM_NEG;
        if (!mag) continue;
        u32 pos = CZ_ATOMIC_ADD_U32(&cursor[w * nb + mag - 1], 1u);
        sorted[pos] = base | (d & CZ_MSM_NEG);
    }
}

#define G g1
#define GF fp
#include "msm_group.cl"
#undef G
#undef GF

#define G g2
#define GF fp2
#include "msm_group.cl"
#undef G
#undef GF
