/* The transform core: radix-2 decimation in frequency (Gentleman-Sande),
 * natural order in, bit-reversed order out, plus the bit reversal.
 *
 * Stage h (h = n/2, n/4, ..., 1) pairs a[j] and a[j+h] inside every block
 * of 2h elements: (u, v) -> (u + v, (u - v) * w_{2h}^j).
 *
 * Memory passes.  Stages are done two at a time (a radix-4 pass: four
 * elements loaded, two stages applied, four stored), so the data crosses
 * the memory bus once per two stages.  The order is depth first: after a
 * radix-4 pass over a block, its four quarters are finished one after the
 * other, so once a block fits in L2 (NTT_LEAF_LOG) every remaining stage
 * runs in cache.  A radix-4 pass does the same number of multiplications
 * as two radix-2 passes (in Fr the 4th root of unity is not free), so it
 * only saves memory traffic; multiplications by w^0 = 1 are skipped.
 *
 * Kernels.  In a domain built for AVX-512 IFMA (ntt_ifma.c) every stage
 * with h >= 8 runs eight butterflies at a time and the last three stages
 * run on 64-element blocks; otherwise, and for h < 8 in small blocks, the
 * scalar kernels below (one butterfly at a time, fr_arith.h).
 *
 * Threads.  The top log2(T) stages, whose blocks are larger than n/T, are
 * split across tasks by butterfly index (one par call per pass); after
 * them the T blocks of n/T elements are independent tasks. */
#include <string.h>

#include "poly/fr_arith.h"
#include "poly/ntt_internal.h"

/* Blocks of 2^NTT_LEAF_LOG elements (256 KiB) are transformed in place
 * without further recursion; with their twiddles they stay in L2. */
#ifndef NTT_LEAF_LOG
#define NTT_LEAF_LOG 13
#endif
/* Below this size a transform runs on the calling thread only. */
#define NTT_PAR_MIN_LOG 12

/* Butterflies j in [j0, j1) of stage h on the block at a; t from j0. */
static void r2_range(cuzk_fr *a, size_t h, size_t j0, size_t j1, ntt_twiddles t)
{
    for (size_t j = j0; j < j1; j++) {
        cuzk_fr *p = a + j, *q = p + h, d;
        nfr_sub(&d, p, q);
        nfr_add(p, p, q);
        if (j)
            nfr_mul(q, &d, &t.p[(j - j0) * t.s]);
        else
            *q = d;
    }
}

/* Stages 2q and q on the block of 4q elements at a, for j in [j0, j1):
 * x0..x3 = a[j + k*q].  Twiddles from j0: wa = w_{4q}^j, wb = w_{4q}^(j+q)
 * (stage 2q) and w = w_{2q}^j (stage q). */
static void r4_range(cuzk_fr *a, size_t q, size_t j0, size_t j1, ntt_twiddles wa, ntt_twiddles wb,
                     ntt_twiddles w1)
{
    size_t j = j0;
    if (j == 0 && j < j1) {
        cuzk_fr *p0 = a, *p1 = a + q, *p2 = p1 + q, *p3 = p2 + q, y0, y1, y2, y3;
        nfr_add(&y0, p0, p2);
        nfr_sub(&y2, p0, p2);
        nfr_add(&y1, p1, p3);
        nfr_sub(&y3, p1, p3);
        nfr_mul(&y3, &y3, &wb.p[0]);
        nfr_add(p0, &y0, &y1);
        nfr_sub(p1, &y0, &y1);
        nfr_add(p2, &y2, &y3);
        nfr_sub(p3, &y2, &y3);
        j = 1;
    }
    for (; j < j1; j++) {
        cuzk_fr *p0 = a + j, *p1 = p0 + q, *p2 = p1 + q, *p3 = p2 + q, y0, y1, y2, y3;
        const cuzk_fr *w = &w1.p[(j - j0) * w1.s];
        nfr_add(&y0, p0, p2);
        nfr_sub(&y2, p0, p2);
        nfr_add(&y1, p1, p3);
        nfr_sub(&y3, p1, p3);
        nfr_mul(&y2, &y2, &wa.p[(j - j0) * wa.s]);
        nfr_mul(&y3, &y3, &wb.p[(j - j0) * wb.s]);
        nfr_add(p0, &y0, &y1);
        nfr_sub(&y1, &y0, &y1);
        nfr_mul(p1, &y1, w);
        nfr_add(p2, &y2, &y3);
        nfr_sub(&y3, &y2, &y3);
        nfr_mul(p3, &y3, w);
    }
}

/* The last stage (h = 1): twiddles are all 1. */
static void r2_last(cuzk_fr *a, size_t size)
{
    for (size_t b = 0; b < size; b += 2) {
        cuzk_fr d;
        nfr_sub(&d, &a[b], &a[b + 1]);
        nfr_add(&a[b], &a[b], &a[b + 1]);
        a[b + 1] = d;
    }
}

/* Kernel choice: the IFMA kernels take eight butterflies at a time and
 * scaled twiddles; the scalar ones run where a stage has fewer than eight
 * butterflies per block (h < 8) or without IFMA.  Twiddles from j0. */
static void r4_kernel(const cuzk_ntt_domain *d, cuzk_fr *a, size_t q, size_t j0, size_t j1, ntt_twiddles wa,
                      ntt_twiddles wb, ntt_twiddles w)
{
    if (d->ifma && q >= 8)
        cuzk_ntt_ifma_r4(a, q, j0, j1, wa, wb, w);
    else
        r4_range(a, q, j0, j1, wa, wb, w);
}

static void r2_kernel(const cuzk_ntt_domain *d, cuzk_fr *a, size_t h, size_t j0, size_t j1, ntt_twiddles t)
{
    if (d->ifma && h >= 8)
        cuzk_ntt_ifma_r2(a, h, j0, j1, t);
    else
        r2_range(a, h, j0, j1, t);
}

/* The tables' view of stage h from butterfly j, for the vector kernels
 * (scaled in an IFMA domain) or the scalar ones (unscaled). */
static ntt_twiddles table_twiddles(const cuzk_ntt_domain *d, int vec, size_t h, size_t j)
{
    return ntt_twiddles_at(vec ? ntt_stage_twiddles(d, h) : ntt_stage_twiddles_std(d, h), j);
}

/* Twiddles of stage h for butterflies [j, j + cnt): the tables' view, or
 * generated into buf (cnt <= NTT_GEN_CHUNK) above the tables.  Generated
 * stages have h > top >= 16, so their kernel is the vector one in an IFMA
 * domain, which is the form cuzk_ntt_gen_twiddles writes. */
static ntt_twiddles twiddles(const cuzk_ntt_domain *d, size_t h, size_t j, size_t cnt, cuzk_fr *buf)
{
    if (h <= d->top) return table_twiddles(d, d->ifma, h, j);
    cuzk_ntt_gen_twiddles(d, (unsigned)__builtin_ctzll(h), j, cnt, buf);
    ntt_twiddles t = {buf, 1};
    return t;
}

static void r4_run(const cuzk_ntt_domain *d, cuzk_fr *a, size_t q, size_t j0, size_t j1)
{
    if (2 * q <= d->top) {
        int vec = d->ifma && q >= 8;
        r4_kernel(d, a, q, j0, j1, table_twiddles(d, vec, 2 * q, j0), table_twiddles(d, vec, 2 * q, j0 + q),
                  table_twiddles(d, vec, q, j0));
        return;
    }
    cuzk_fr buf[3][NTT_GEN_CHUNK];
    for (size_t c = j0; c < j1; c += NTT_GEN_CHUNK) {
        size_t cnt = j1 - c < NTT_GEN_CHUNK ? j1 - c : NTT_GEN_CHUNK;
        r4_kernel(d, a, q, c, c + cnt, twiddles(d, 2 * q, c, cnt, buf[0]),
                  twiddles(d, 2 * q, c + q, cnt, buf[1]), twiddles(d, q, c, cnt, buf[2]));
    }
}

static void r2_run(const cuzk_ntt_domain *d, cuzk_fr *a, size_t h, size_t j0, size_t j1)
{
    if (h <= d->top) {
        r2_kernel(d, a, h, j0, j1, table_twiddles(d, d->ifma && h >= 8, h, j0));
        return;
    }
    cuzk_fr buf[NTT_GEN_CHUNK];
    for (size_t c = j0; c < j1; c += NTT_GEN_CHUNK) {
        size_t cnt = j1 - c < NTT_GEN_CHUNK ? j1 - c : NTT_GEN_CHUNK;
        r2_kernel(d, a, h, c, c + cnt, twiddles(d, h, c, cnt, buf));
    }
}

/* All stages of a block of 2^k elements, in cache. */
static void dif_leaf(const cuzk_ntt_domain *d, cuzk_fr *a, unsigned k)
{
    size_t size = (size_t)1 << k;
    unsigned s = k; /* stages s-1 .. 0 remain */
#ifndef NTT_NO_TAIL64
    if (d->ifma && k >= 6) {
        /* vector passes down to stage h = 8, then the last three stages
         * on 64-element blocks (cuzk_ntt_ifma_tail64) */
        while (s > 3) {
            if ((s - 3) & 1) {
                size_t h = (size_t)1 << (s - 1);
                for (size_t b = 0; b < size; b += 2 * h)
                    r2_run(d, a + b, h, 0, h);
                s--;
            } else {
                size_t q = (size_t)1 << (s - 2);
                for (size_t b = 0; b < size; b += 4 * q)
                    r4_run(d, a + b, q, 0, q);
                s -= 2;
            }
        }
        cuzk_ntt_ifma_tail64(a, size, d->tail_tw);
        return;
    }
#endif
    while (s >= 2) {
        size_t q = (size_t)1 << (s - 2);
        for (size_t b = 0; b < size; b += 4 * q)
            r4_run(d, a + b, q, 0, q);
        s -= 2;
    }
    if (s == 1) r2_last(a, size);
}

/* All stages of a block of 2^k elements, depth first. */
static void dif_block(const cuzk_ntt_domain *d, cuzk_fr *a, unsigned k)
{
    if (k <= NTT_LEAF_LOG) {
        dif_leaf(d, a, k);
        return;
    }
    size_t size = (size_t)1 << k;
    if ((k - NTT_LEAF_LOG) & 1) {
        size_t h = size / 2;
        r2_run(d, a, h, 0, h);
        dif_block(d, a, k - 1);
        dif_block(d, a + h, k - 1);
    } else {
        size_t q = size / 4;
        r4_run(d, a, q, 0, q);
        for (int i = 0; i < 4; i++)
            dif_block(d, a + i * q, k - 2);
    }
}

struct dif_job {
    const cuzk_ntt_domain *d;
    cuzk_fr *a;
    size_t n;
    size_t q; /* pass: radix-4 quarter (radix4) or half size (radix2) */
    int radix4;
    size_t chunks; /* pass: tasks */
    unsigned sub_log;
};

/* One top pass, chunk c of the butterfly (or radix-4 group) index space.
 * Chunk edges are multiples of 8 (q >= 8 here) for the IFMA kernels. */
static void dif_pass_task(void *arg, size_t c)
{
    const struct dif_job *job = arg;
    size_t q = job->q, per = job->radix4 ? 4 * q : 2 * q;
    size_t groups = job->n / per * q;
    size_t lo = groups * c / job->chunks & ~(size_t)7, hi = groups * (c + 1) / job->chunks & ~(size_t)7;
    if (c + 1 == job->chunks) hi = groups;
    while (lo < hi) {
        size_t b = lo / q, j = lo % q, end = q;
        if (hi - lo < end - j) end = j + (hi - lo);
        cuzk_fr *blk = job->a + b * per;
        if (job->radix4)
            r4_run(job->d, blk, q, j, end);
        else
            r2_run(job->d, blk, q, j, end);
        lo += end - j;
    }
}

static void dif_sub_task(void *arg, size_t t)
{
    const struct dif_job *job = arg;
    dif_block(job->d, job->a + (t << job->sub_log), job->sub_log);
}

void cuzk_ntt_dif(const cuzk_ntt_domain *d, cuzk_par *par, cuzk_fr *a)
{
    unsigned L = d->log_n, th = cuzk_par_threads(par);
    if (th <= 1 || L < NTT_PAR_MIN_LOG) {
        dif_block(d, a, L);
        return;
    }
    /* T = 4 * threads independent blocks (rounded up to a power of two) */
    unsigned tlog = 0;
    while (((size_t)1 << tlog) < (size_t)th * 4)
        tlog++;
    if (tlog > L - NTT_PAR_MIN_LOG + 2) tlog = L - NTT_PAR_MIN_LOG + 2;
    struct dif_job job = {.d = d, .a = a, .n = d->n};
    unsigned s = L; /* stages s-1 .. L-tlog of the top remain */
    while (s > L - tlog) {
        job.radix4 = s - (L - tlog) >= 2;
        job.q = (size_t)1 << (s - (job.radix4 ? 2 : 1));
        job.chunks = ntt_chunks(par, d->n / 4);
        cuzk_par_for(par, dif_pass_task, &job, job.chunks);
        s -= job.radix4 ? 2 : 1;
    }
    job.sub_log = L - tlog;
    cuzk_par_for(par, dif_sub_task, &job, (size_t)1 << tlog);
}

/* ---- bit reversal --------------------------------------------------------
 * Index bits split as [row: TB | mid: L - 2TB | col: TB].  rev(row, mid, col)
 * = (rev(col), rev(mid), rev(row)), so the 2^TB x 2^TB tile of elements
 * sharing `mid` maps onto the tile of rev(mid), transposed with both axes
 * bit-reversed.  A tile row is 2^TB contiguous elements (512 bytes), so the
 * permutation reads and writes whole cache lines instead of one scattered
 * element per swap. */
#define TB 4
#define TS (1u << TB)

struct bitrev_job {
    cuzk_fr *a;
    unsigned log_n;
    size_t chunks;
};

static void tile_load(cuzk_fr buf[TS][TS], const cuzk_fr *a, unsigned L, size_t m)
{
    for (size_t r = 0; r < TS; r++)
        memcpy(buf[r], a + (r << (L - TB)) + (m << TB), sizeof buf[r]);
}

static void tile_store_permuted(cuzk_fr *a, unsigned L, size_t m, cuzk_fr buf[TS][TS])
{
    static const unsigned char rev4[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    for (size_t r = 0; r < TS; r++) {
        cuzk_fr *row = a + (r << (L - TB)) + (m << TB);
        for (size_t c = 0; c < TS; c++)
            row[c] = buf[rev4[c]][rev4[r]];
    }
}

static void bitrev_task(void *arg, size_t c)
{
    const struct bitrev_job *job = arg;
    unsigned L = job->log_n, ml = L - 2 * TB;
    size_t mids = (size_t)1 << ml;
    size_t lo = mids * c / job->chunks, hi = mids * (c + 1) / job->chunks;
    cuzk_fr x[TS][TS], y[TS][TS];
    for (size_t m = lo; m < hi; m++) {
        size_t m2 = ntt_bitrev(m, ml);
        if (m2 < m) continue;
        tile_load(x, job->a, L, m);
        if (m2 != m) {
            tile_load(y, job->a, L, m2);
            tile_store_permuted(job->a, L, m, y);
        }
        tile_store_permuted(job->a, L, m2, x);
    }
}

void cuzk_ntt_bitrev_permute(cuzk_par *par, cuzk_fr *a, unsigned log_n)
{
    if (log_n < 2 * TB) {
        size_t n = (size_t)1 << log_n;
        for (size_t i = 0; i < n; i++) {
            size_t j = ntt_bitrev(i, log_n);
            if (i < j) {
                cuzk_fr t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
        }
        return;
    }
    struct bitrev_job job = {a, log_n, 1};
    if (log_n >= NTT_PAR_MIN_LOG) job.chunks = ntt_chunks(par, (size_t)1 << (log_n - 2 * TB));
    cuzk_par_for(par, bitrev_task, &job, job.chunks);
}
