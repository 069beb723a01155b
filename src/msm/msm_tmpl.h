/* Group-generic Pippenger core, included once per group by msm_g1.c and
 * msm_g2.c after defining:
 *   FE, FE_ADD/SUB/DBL/NEG/MUL/SQR(r, ...), FE_INV(r, a) (variable time),
 *   FE_IS_ZERO(a), FE_EQ(a, b), FE_ONE      -- the coordinate field;
 *   AFF, JAC                                 -- cuzk affine / Jacobian types;
 *   G(name)                                  -- public name prefix;
 *   MSM_BATCH                                -- points per chunk (even);
 *   MSM_INV_COST                             -- one inversion in multiplications.
 * Everything here is variable time (public data only, see msm.h). */

#include <stdlib.h>
#include <string.h>

#include "msm/msm_xyzz_tmpl.h"

/* ---- batch-affine chunk reduction --------------------------------------- */
/* Working set of one task: a chunk of up to MSM_BATCH affine points grouped
 * in segments (one per bucket), and the per-pair arrays of one round. */
typedef struct {
    AFF *buf;      /* MSM_BATCH points */
    msm_seg *segs; /* MSM_BATCH segments */
    FE *den;       /* MSM_BATCH/2 denominators, then their inverses */
    FE *acc;       /* MSM_BATCH/2 prefix products */
    uint8_t *flag; /* MSM_BATCH/2: 0 add, 1 double, 2 result is infinity */
#ifdef MSM_IFMA
    uint32_t *ia, *ib, *io; /* MSM_BATCH/2 pair operand / output slots (IFMA path) */
    uint32_t *mv;           /* MSM_BATCH: (from, to) slots of odd leftovers (IFMA path) */
#endif
} ba_ctx;

#ifdef MSM_IFMA
/* The group's eight-lane pair kernel (G2 names its own; G1 the default). */
#ifndef MSM_IFMA_PAIRS
#define MSM_IFMA_PAIRS cuzk_msm_ifma_pairs
#define MSM_IFMA_WORK_BYTES cuzk_msm_ifma_work_bytes
#endif
#endif

/* acc doubles as the pair kernel's work area */
static size_t ba_acc_bytes(void)
{
    size_t b = msm_align(MSM_BATCH / 2 * sizeof(FE));
#ifdef MSM_IFMA
    size_t w = msm_align(MSM_IFMA_WORK_BYTES(MSM_BATCH / 2));
    if (w > b) b = w;
#endif
    return b;
}

static size_t ba_ctx_bytes(void)
{
    size_t b = msm_align(MSM_BATCH * sizeof(AFF)) + msm_align(MSM_BATCH * sizeof(msm_seg)) +
               msm_align(MSM_BATCH / 2 * sizeof(FE)) + ba_acc_bytes() + msm_align(MSM_BATCH / 2);
#ifdef MSM_IFMA
    b += 3 * msm_align(MSM_BATCH / 2 * sizeof(uint32_t)) + msm_align(MSM_BATCH * sizeof(uint32_t));
#endif
    return b;
}

static uint8_t *ba_ctx_init(ba_ctx *cx, uint8_t *p)
{
    cx->buf = (AFF *)p;
    p += msm_align(MSM_BATCH * sizeof(AFF));
    cx->segs = (msm_seg *)p;
    p += msm_align(MSM_BATCH * sizeof(msm_seg));
    cx->den = (FE *)p;
    p += msm_align(MSM_BATCH / 2 * sizeof(FE));
    cx->acc = (FE *)p;
    p += ba_acc_bytes();
    cx->flag = p;
    p += msm_align(MSM_BATCH / 2);
#ifdef MSM_IFMA
    cx->ia = (uint32_t *)p;
    p += msm_align(MSM_BATCH / 2 * sizeof(uint32_t));
    cx->ib = (uint32_t *)p;
    p += msm_align(MSM_BATCH / 2 * sizeof(uint32_t));
    cx->io = (uint32_t *)p;
    p += msm_align(MSM_BATCH / 2 * sizeof(uint32_t));
    cx->mv = (uint32_t *)p;
    p += msm_align(MSM_BATCH * sizeof(uint32_t));
#endif
    return p;
}

/* Denominator of pair i = a + b (flag[i] preset to 0 by the caller):
 * x_b - x_a for an addition; equal x: 2y and flag 1 for a doubling, else
 * (b = -a, or y = 0) 1 and flag 2, the sum is infinity. */
static inline void ba_pair_den(ba_ctx *cx, size_t i, const AFF *a, const AFF *b)
{
    FE_SUB(&cx->den[i], &b->x, &a->x);
    if (FE_IS_ZERO(&cx->den[i])) {
        if (FE_EQ(&a->y, &b->y) && !FE_IS_ZERO(&a->y)) {
            FE_DBL(&cx->den[i], &a->y);
            cx->flag[i] = 1;
        } else {
            cx->den[i] = FE_ONE;
            cx->flag[i] = 2;
        }
    }
}

/* o = a + b given inv = 1 / den (flag 0: addition, 1: doubling); o may be
 * a (a's y is read before o is written). */
static inline void ba_pair_sum(AFF *o, const AFF *a, const AFF *b, const FE *inv, int flag)
{
    FE lam, t, x3;
    if (flag == 0) {
        FE_SUB(&t, &b->y, &a->y);
    } else {
        FE_SQR(&lam, &a->x);
        FE_DBL(&t, &lam);
        FE_ADD(&t, &t, &lam);
    }
    FE_MUL(&lam, &t, inv);
    FE_SQR(&x3, &lam);
    FE_SUB(&x3, &x3, &a->x);
    FE_SUB(&x3, &x3, &b->x);
    FE_SUB(&t, &a->x, &x3);
    FE_MUL(&t, &lam, &t);
    FE_SUB(&o->y, &t, &a->y);
    o->x = x3;
}

/* den[i] <- den[i]^-1 for i < n (all nonzero) with one inversion. */
static void ba_batch_inv(ba_ctx *cx, size_t n)
{
    FE *den = cx->den, *acc = cx->acc, inv, t;
    acc[0] = den[0];
    for (size_t i = 1; i < n; i++) FE_MUL(&acc[i], &acc[i - 1], &den[i]);
    FE_INV(&inv, &acc[n - 1]);
    for (size_t i = n - 1; i > 0; i--) {
        FE_MUL(&t, &inv, &acc[i - 1]);
        FE_MUL(&inv, &inv, &den[i]);
        den[i] = t;
    }
    den[0] = inv;
}

#ifdef MSM_IFMA
/* Second half of a ba_rounds round on the IFMA path (pass 1 filled den,
 * flag, the operand / output slots ia / io (b = buf[ia + 1]), the new
 * segment lengths and nmv moves of odd leftovers): the eight-lane kernel,
 * then the moves (after it: a leftover's new slot may hold a pair's input).
 * Same results as the scalar pass. */
static void ba_rounds_ifma(ba_ctx *cx, size_t np, size_t nmv)
{
    AFF *buf = cx->buf;
    MSM_IFMA_PAIRS(buf, buf, buf + 1, cx->io, cx->ia, cx->ia, cx->flag, cx->den, cx->acc, np);
    for (size_t m = 0; m < nmv; m++) buf[cx->mv[2 * m + 1]] = buf[cx->mv[2 * m]];
}
#endif

/* Reduces every segment of the chunk to at most one point by rounds of
 * pairwise affine additions; each round shares one inversion over all
 * segments.  Pairs with equal x are doublings (same y) or cancel. */
static void ba_rounds(ba_ctx *cx, size_t nseg, size_t min_pairs)
{
    AFF *buf = cx->buf;
    for (;;) {
        size_t np = 0;
        /* A round with few pairs does not amortize its inversion: leave the
         * remaining points to mixed XYZZ additions (ba_emit). */
        for (size_t s = 0; s < nseg; s++) np += cx->segs[s].len / 2;
        if (np < min_pairs || np == 0) return;
        np = 0;
#ifdef MSM_IFMA
        int vec = cuzk_msm_ifma_active();
        size_t nmv = 0;
#endif
        for (size_t s = 0; s < nseg; s++) {
            msm_seg *sg = &cx->segs[s];
#ifdef MSM_IFMA
            uint32_t out = sg->start; /* next output slot (IFMA path) */
#endif
            for (uint32_t j = 0; j + 1 < sg->len; j += 2) {
                const AFF *a = &buf[sg->start + j], *b = a + 1;
                cx->flag[np] = 0;
                ba_pair_den(cx, np, a, b);
#ifdef MSM_IFMA
                if (vec) {
                    cx->ia[np] = sg->start + j;
                    cx->io[np] = out;
                    out += cx->flag[np] != 2;
                }
#endif
                np++;
            }
#ifdef MSM_IFMA
            if (vec) { /* the lengths after this round; odd leftovers move later */
                if (sg->len & 1) {
                    if (sg->len > 1) {
                        cx->mv[2 * nmv] = sg->start + sg->len - 1;
                        cx->mv[2 * nmv++ + 1] = out;
                    }
                    out++;
                }
                sg->len = out - sg->start;
            }
#endif
        }
        if (np == 0) return;
#ifdef MSM_IFMA
        if (vec) {
            ba_rounds_ifma(cx, np, nmv);
            continue;
        }
#endif
        ba_batch_inv(cx, np);
        np = 0;
        for (size_t s = 0; s < nseg; s++) {
            msm_seg *sg = &cx->segs[s];
            uint32_t out = 0, j;
            for (j = 0; j + 1 < sg->len; j += 2, np++) {
                const AFF *a = &buf[sg->start + j], *b = a + 1;
                if (cx->flag[np] == 2) continue;
                ba_pair_sum(&buf[sg->start + out++], a, b, &cx->den[np], cx->flag[np]);
            }
            if (j < sg->len) buf[sg->start + out++] = buf[sg->start + j];
            sg->len = out;
        }
    }
}

/* ---- running sums: sum_b b * B_b = sum_b (sum_{b' >= b} B_b') ----------- */
typedef struct {
    xyzz running, total;
    uint32_t key; /* bucket whose points are being added to running */
} rsum;

static void rsum_init(rsum *r, uint32_t top)
{
    xyzz_set_inf(&r->running);
    xyzz_set_inf(&r->total);
    r->key = top;
}

/* Close buckets down to (not including) key. */
static void rsum_advance(rsum *r, uint32_t key)
{
    if (xyzz_is_inf(&r->running)) {
        if (r->key > key) r->key = key;
        return;
    }
    while (r->key > key) {
        xyzz_add(&r->total, &r->running);
        r->key--;
    }
}

/* Bucket sums arrive in non-increasing key order. */
static void rsum_emit(rsum *r, uint32_t key, const AFF *p)
{
    rsum_advance(r, key);
    xyzz_madd(&r->running, &p->x, &p->y);
}

#include "msm/msm_lanes_tmpl.h"

/* Loads the points of sorted entries e[0..n) into the buffer from slot
 * start, negating where flagged and dropping infinities; returns the count. */
static uint32_t ba_gather(ba_ctx *cx, uint32_t start, const AFF *bases, const uint32_t *e,
                          uint32_t n)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i + MSM_PF < n) { /* a point spans two or three cache lines */
            const char *q = (const char *)&bases[e[i + MSM_PF] & ~MSM_NEG];
            __builtin_prefetch(q);
            __builtin_prefetch(q + 64);
            if (sizeof(AFF) > 128) __builtin_prefetch(q + 128);
        }
        const AFF *p = &bases[e[i] & ~MSM_NEG];
        if (aff_is_inf(p)) continue;
        AFF *o = &cx->buf[start + out++];
        o->x = p->x;
        if (e[i] & MSM_NEG) FE_NEG(&o->y, &p->y);
        else o->y = p->y;
    }
    return out;
}

/* ---- tiles ---------------------------------------------------------------- */
/* Bucket-array window: chunk of points + carried leftovers. */
#define MSM_CARRY (2 * MSM_MIN_PAIRS)
#define MSM_CHUNK (MSM_BATCH / 2 - MSM_CARRY)
/* Points per window_bucket chunk: the whole batch for small bucket arrays,
 * MSM_CHUNK_SMALL from MSM_CHUNK_SMALL_NB buckets on (the chunk buffer and
 * a large bucket array compete for L2). */
static size_t chunk_points(size_t nb)
{
#ifdef MSM_CHUNK_SMALL
    if (nb >= MSM_CHUNK_SMALL_NB) return MSM_CHUNK_SMALL;
#endif
    return MSM_CHUNK;
}

static size_t bucket_bytes(size_t nb)
{
    return msm_align(nb * sizeof(AFF)) + msm_align((nb + 1) * sizeof(uint32_t)) +
           2 * msm_align(MSM_BATCH * sizeof(uint32_t)) + msm_align(MSM_CARRY * sizeof(AFF)) +
           msm_align(MSM_CARRY * sizeof(uint32_t)) + ba_ctx_bytes();
}

/* Scratch bytes of one tile of n terms with window c for a resolved
 * strategy (not MSM_STRAT_AUTO). */
static size_t tile_need(size_t n, unsigned c, int strategy)
{
    size_t nb = (size_t)1 << (c - 1);
    if (strategy == MSM_STRAT_XYZZ) return msm_align(nb * sizeof(xyzz)) + 64;
    if (strategy == MSM_STRAT_AFFINE) return bucket_bytes(nb) + 64;
    return msm_align(n * sizeof(uint32_t)) + msm_align((nb + 1) * sizeof(uint32_t)) + ba_ctx_bytes() + 64;
}

/* The strategies the cost model picks (cuzk_msm_choose): affine buckets, or
 * XYZZ buckets for c <= MSM_XYZZ_MAX_C only.  Sizing the whole-MSM scratch
 * by these rather than by every strategy keeps G2's 384-byte XYZZ buckets
 * (6 MiB per task at c = 15) out of it. */
static size_t tile_auto_bytes(unsigned c)
{
    size_t a = tile_need(0, c, MSM_STRAT_AFFINE);
    size_t x = c <= MSM_XYZZ_MAX_C ? tile_need(0, c, MSM_STRAT_XYZZ) : 0;
    return a > x ? a : x;
}

size_t G(tile_scratch_sizeof)(size_t n, unsigned c)
{
    if (c < 1) c = 1;
    if (c > CUZK_MSM_MAX_WINDOW) c = CUZK_MSM_MAX_WINDOW;
    size_t m = tile_need(n, c, MSM_STRAT_AFFINE);
    for (int s = MSM_STRAT_XYZZ; s <= MSM_STRAT_SORTED; s++)
        if (tile_need(n, c, s) > m) m = tile_need(n, c, s);
    return m;
}

/* Scalar of term t: k[kidx[t]] when the terms index into the caller's
 * full scalar vector (canonical input, no copy), else k[t]. */
static inline const cuzk_scalar *term_k(const cuzk_scalar *k, const uint32_t *kidx, size_t t)
{
    return kidx ? &k[kidx[t]] : &k[t];
}

static inline uint32_t term_idx(const uint32_t *idx, size_t t)
{
    return idx ? idx[t] : (uint32_t)t;
}

/* One window with XYZZ buckets (no inversions; for small inputs). */
static void window_xyzz(xyzz *out, xyzz *bk, const AFF *bases, const uint32_t *idx,
                        const cuzk_scalar *k, const uint32_t *kidx, size_t n, unsigned c,
                        unsigned w)
{
    uint32_t nb = 1u << (c - 1);
    for (uint32_t b = 0; b < nb; b++) xyzz_set_inf(&bk[b]);
    for (size_t t = 0; t < n; t++) {
        uint32_t d = msm_booth(term_k(k, kidx, t), w, c), mag = d & ~MSM_NEG;
        if (!mag) continue;
        const AFF *p = &bases[term_idx(idx, t)];
        if (aff_is_inf(p)) continue;
        if (d & MSM_NEG) {
            FE ny;
            FE_NEG(&ny, &p->y);
            xyzz_madd(&bk[mag - 1], &p->x, &ny);
        } else {
            xyzz_madd(&bk[mag - 1], &p->x, &p->y);
        }
    }
    xyzz running, total;
    xyzz_set_inf(&running);
    xyzz_set_inf(&total);
    for (uint32_t b = nb; b-- > 0;) {
        xyzz_add(&running, &bk[b]);
        xyzz_add(&total, &running);
    }
    *out = total;
}

/* One window with batch-affine buckets, sorted variant (strategy 3; kept
 * for measurements, see perf-notes): counting sort of the terms by
 * bucket (descending), then chunks of MSM_BATCH entries reduced by
 * ba_rounds and fed to the running sums in bucket order. */
static void window_sorted(xyzz *out, uint32_t *sorted, uint32_t *end, ba_ctx *cx,
                          const AFF *bases, const uint32_t *idx, const cuzk_scalar *k,
                          const uint32_t *kidx, size_t n,
                          unsigned c, unsigned w)
{
    uint32_t nb = 1u << (c - 1);
    memset(end, 0, (nb + 1) * sizeof *end);
    for (size_t t = 0; t < n; t++) end[msm_booth(term_k(k, kidx, t), w, c) & ~MSM_NEG]++;
    /* end[key] becomes the first slot of key; after the scatter it is the
     * slot after key's last entry.  Keys descend through the array. */
    uint32_t pos = 0;
    for (uint32_t key = nb; key >= 1; key--) {
        uint32_t cnt = end[key];
        end[key] = pos;
        pos += cnt;
    }
    uint32_t total = pos;
    for (size_t t = 0; t < n; t++) {
        uint32_t d = msm_booth(term_k(k, kidx, t), w, c), mag = d & ~MSM_NEG;
        if (mag) sorted[end[mag]++] = term_idx(idx, t) | (d & MSM_NEG);
    }
    rsum rs;
    rsum_init(&rs, nb);
    uint32_t key = nb, e = 0;
    while (e < total) {
        size_t nseg = 0;
        uint32_t filled = 0;
        while (filled < MSM_BATCH && e < total) {
            while (end[key] <= e) key--;
            uint32_t take = end[key] - e;
            if (take > MSM_BATCH - filled) take = MSM_BATCH - filled;
            msm_seg *sg = &cx->segs[nseg++];
            sg->key = key;
            sg->start = filled;
            sg->len = ba_gather(cx, filled, bases, sorted + e, take);
            filled += take;
            e += take;
        }
        ba_rounds(cx, nseg, MSM_MIN_PAIRS);
        for (size_t s = 0; s < nseg; s++)
            for (uint32_t q = 0; q < cx->segs[s].len; q++)
                rsum_emit(&rs, cx->segs[s].key, &cx->buf[cx->segs[s].start + q]);
    }
    rsum_advance(&rs, 0);
    *out = rs.total;
}

/* One window with an affine bucket array (strategy 1): points are taken in
 * their own order, chunk_points(nb) at a time (sequential reads of the bases; the
 * 2^(c-1) buckets are the only random accesses).  Each chunk is grouped by
 * bucket, every group gets its bucket's current value in front, and
 * ba_rounds reduces all groups to one point with shared inversions.  Rounds
 * too small to pay for an inversion stop early; the points they leave are
 * carried into the next chunk (the last chunk reduces completely). */
typedef struct {
    AFF *bk;           /* nb buckets, infinity = (0,0) */
    uint32_t *cnt;     /* nb + 1, zero between chunks: segment number + 1 */
    uint32_t *dig;     /* MSM_BATCH digits of the chunk */
    uint32_t *touched; /* MSM_BATCH keys in first-seen order */
    AFF *carry;        /* MSM_CARRY points left by an early stop */
    uint32_t *ckey;
    ba_ctx cx;
} bucket_ws;

static void bucket_ws_init(bucket_ws *ws, uint8_t *p, size_t nb)
{
    ws->bk = (AFF *)p;
    p += msm_align(nb * sizeof(AFF));
    ws->cnt = (uint32_t *)p;
    p += msm_align((nb + 1) * sizeof(uint32_t));
    ws->dig = (uint32_t *)p;
    p += msm_align(MSM_BATCH * sizeof(uint32_t));
    ws->touched = (uint32_t *)p;
    p += msm_align(MSM_BATCH * sizeof(uint32_t));
    ws->carry = (AFF *)p;
    p += msm_align(MSM_CARRY * sizeof(AFF));
    ws->ckey = (uint32_t *)p;
    p += msm_align(MSM_CARRY * sizeof(uint32_t));
    ba_ctx_init(&ws->cx, p);
}

static void window_bucket(xyzz *out, bucket_ws *ws, const AFF *bases, const uint32_t *idx,
                          const cuzk_scalar *k, const uint32_t *kidx, size_t n, unsigned c,
                          unsigned w)
{
    uint32_t nb = 1u << (c - 1), ncarry = 0;
    size_t chunk = chunk_points(nb);
    ba_ctx *cx = &ws->cx;
    memset(ws->bk, 0, nb * sizeof(AFF));
    memset(ws->cnt, 0, (nb + 1) * sizeof(uint32_t));
    for (size_t t0 = 0; t0 < n || ncarry;) {
        size_t t1 = n - t0 > chunk ? t0 + chunk : n;
        int last = t1 == n;
        uint32_t ntouch = 0, nseg = 0;
        /* count per key (cnt holds counts while touched lists the keys) */
        for (uint32_t q = 0; q < ncarry; q++) {
            uint32_t key = ws->ckey[q];
            if (ws->cnt[key]++ == 0) ws->touched[ntouch++] = key;
        }
        for (size_t t = t0; t < t1; t++) {
            uint32_t d = msm_booth(term_k(k, kidx, t), w, c), key = d & ~MSM_NEG;
            ws->dig[t - t0] = d;
            if (!key) continue;
            if (ws->cnt[key]++ == 0) {
                ws->touched[ntouch++] = key;
                __builtin_prefetch(&ws->bk[key - 1]);
            }
        }
        /* one segment per key: bucket value first, then the points */
        uint32_t pos = 0;
        for (uint32_t q = 0; q < ntouch; q++) {
            uint32_t key = ws->touched[q];
            msm_seg *sg = &cx->segs[nseg];
            const AFF *b = &ws->bk[key - 1];
            sg->key = key;
            sg->start = pos;
            sg->len = 0;
            pos += ws->cnt[key] + 1;
            ws->cnt[key] = ++nseg;
            if (!aff_is_inf(b)) cx->buf[sg->start + sg->len++] = *b;
        }
        for (uint32_t q = 0; q < ncarry; q++) {
            msm_seg *sg = &cx->segs[ws->cnt[ws->ckey[q]] - 1];
            cx->buf[sg->start + sg->len++] = ws->carry[q];
        }
        for (size_t t = t0; t < t1; t++) {
            uint32_t d = ws->dig[t - t0], key = d & ~MSM_NEG;
            if (!key) continue;
            const AFF *p = &bases[term_idx(idx, t)];
            if (aff_is_inf(p)) continue;
            msm_seg *sg = &cx->segs[ws->cnt[key] - 1];
            AFF *o = &cx->buf[sg->start + sg->len++];
            o->x = p->x;
            if (d & MSM_NEG) FE_NEG(&o->y, &p->y);
            else o->y = p->y;
        }
        ba_rounds(cx, nseg, last ? 1 : MSM_MIN_PAIRS);
        ncarry = 0;
        for (uint32_t q = 0; q < nseg; q++) {
            const msm_seg *sg = &cx->segs[q];
            ws->cnt[sg->key] = 0;
            AFF *b = &ws->bk[sg->key - 1];
            if (sg->len == 0) {
                memset(b, 0, sizeof *b);
                continue;
            }
            *b = cx->buf[sg->start];
            for (uint32_t r = 1; r < sg->len; r++) {
                ws->carry[ncarry] = cx->buf[sg->start + r];
                ws->ckey[ncarry++] = sg->key;
            }
        }
        t0 = t1;
    }
    if (nb >= lanes_min_nb()) {
        lanes_rsum(out, cx, ws->bk, nb);
        return;
    }
    rsum rs;
    rsum_init(&rs, nb);
    for (uint32_t key = nb; key >= 1; key--)
        if (!aff_is_inf(&ws->bk[key - 1])) rsum_emit(&rs, key, &ws->bk[key - 1]);
    rsum_advance(&rs, 0);
    *out = rs.total;
}

static int tile_impl(xyzz *out, const AFF *bases, const uint32_t *idx, const cuzk_scalar *k,
                     const uint32_t *kidx, size_t n, unsigned c, unsigned w0, unsigned w1, int strategy, void *scratch,
                     size_t scratch_len)
{
    if (c < 1 || c > CUZK_MSM_MAX_WINDOW || w1 < w0 || w1 > cuzk_msm_nwindows(c) ||
        n > CUZK_MSM_MAX_TERMS || (n && (!bases || !k)) || (w1 > w0 && !out) ||
        strategy < 0 || strategy > MSM_STRAT_SORTED)
        return CUZK_ERR_ARG;
    if (strategy == MSM_STRAT_AUTO)
        strategy = c <= MSM_XYZZ_MAX_C && cuzk_msm_cost(n, c, MSM_STRAT_XYZZ, MSM_INV_COST, MSM_BATCH) <=
                                              cuzk_msm_cost(n, c, MSM_STRAT_AFFINE, MSM_INV_COST, MSM_BATCH)
                       ? MSM_STRAT_XYZZ
                       : MSM_STRAT_AFFINE;
    if (scratch_len < tile_need(n, c, strategy) || !scratch) return CUZK_ERR_ARG;
    uint8_t *p = (uint8_t *)msm_align((uintptr_t)scratch);
    size_t nb = (size_t)1 << (c - 1);
    for (unsigned w = w0; w < w1; w++) {
        if (strategy == MSM_STRAT_XYZZ) {
            window_xyzz(&out[w - w0], (xyzz *)p, bases, idx, k, kidx, n, c, w);
        } else if (strategy == MSM_STRAT_AFFINE) {
            bucket_ws ws;
            bucket_ws_init(&ws, p, nb);
            window_bucket(&out[w - w0], &ws, bases, idx, k, kidx, n, c, w);
        } else {
            uint32_t *sorted = (uint32_t *)p;
            uint32_t *end = (uint32_t *)(p + msm_align(n * sizeof(uint32_t)));
            ba_ctx cx;
            ba_ctx_init(&cx, (uint8_t *)end + msm_align((nb + 1) * sizeof(uint32_t)));
            window_sorted(&out[w - w0], sorted, end, &cx, bases, idx, k, kidx, n, c, w);
        }
    }
    return CUZK_OK;
}

int G(tile)(JAC *out, const AFF *bases, const uint32_t *idx, const cuzk_scalar *k, size_t n,
            unsigned c, unsigned w0, unsigned w1, int strategy, void *scratch, size_t scratch_len)
{
    xyzz tmp[256];
    if (w1 > w0 && w1 - w0 > 256) return CUZK_ERR_ARG;
    /* the public contract: scratch for any strategy (tile_impl checks only
     * what the resolved one needs) */
    if (scratch_len < G(tile_scratch_sizeof)(n, c)) return CUZK_ERR_ARG;
    int rc = tile_impl(tmp, bases, idx, k, NULL, n, c, w0, w1, strategy, scratch, scratch_len);
    if (rc != CUZK_OK) return rc;
    for (unsigned w = w0; w < w1; w++) xyzz_to_jac(&out[w - w0], &tmp[w - w0]);
    return CUZK_OK;
}

/* Sum of bases[idx[t]] by chunks reduced with ba_rounds. */
static void sum_impl(xyzz *out, ba_ctx *cx, const AFF *bases, const uint32_t *idx, size_t n)
{
    xyzz_set_inf(out);
    for (size_t e = 0; e < n;) {
        uint32_t take = n - e > MSM_BATCH ? MSM_BATCH : (uint32_t)(n - e);
        msm_seg *sg = &cx->segs[0];
        sg->key = 1;
        sg->start = 0;
        sg->len = ba_gather(cx, 0, bases, idx + e, take);
        e += take;
        ba_rounds(cx, 1, MSM_MIN_PAIRS);
        for (uint32_t q = 0; q < sg->len; q++) xyzz_madd(out, &cx->buf[q].x, &cx->buf[q].y);
    }
}

int G(sum)(JAC *out, const AFF *bases, const uint32_t *idx, size_t n, void *scratch,
           size_t scratch_len)
{
    if (!out || (n && (!bases || !idx)) || n > CUZK_MSM_MAX_TERMS) return CUZK_ERR_ARG;
    if (!scratch || scratch_len < G(tile_scratch_sizeof)(0, 1)) return CUZK_ERR_ARG;
    for (size_t t = 0; t < n; t++)
        if (idx[t] & MSM_NEG) return CUZK_ERR_ARG;
    ba_ctx cx;
    xyzz r;
    ba_ctx_init(&cx, (uint8_t *)msm_align((uintptr_t)scratch));
    sum_impl(&r, &cx, bases, idx, n);
    xyzz_to_jac(out, &r);
    return CUZK_OK;
}

static void combine_impl(xyzz *acc, const xyzz *win, unsigned nwin, unsigned c)
{
    xyzz_set_inf(acc);
    for (unsigned w = nwin; w-- > 0;) {
        if (w + 1 < nwin)
            for (unsigned i = 0; i < c; i++) xyzz_dbl(acc, acc);
        xyzz_add(acc, &win[w]);
    }
}

void G(combine)(JAC *out, const JAC *win, unsigned nwin, unsigned c)
{
    xyzz acc, t;
    xyzz_set_inf(&acc);
    for (unsigned w = nwin; w-- > 0;) {
        if (w + 1 < nwin)
            for (unsigned i = 0; i < c; i++) xyzz_dbl(&acc, &acc);
        xyzz_from_jac(&t, &win[w]);
        xyzz_add(&acc, &t);
    }
    xyzz_to_jac(out, &acc);
}

