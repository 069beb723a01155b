/* MSM on a device (cuzk/gpu_msm.h; the algorithm and its memory in
 * docs/gpu.md "MSM on the device"), host side: argument checks, the walk over the
 * variables that applies the density bitmap and the 0/1 split, chunks of
 * bases, and the device passes of one chunk -- the sum of its scalar-1
 * bases and the Pippenger of its tail -- whose results the host adds.
 *
 * One chunk is: classify on the host into pinned staging buffers; upload
 * the chunk's base range and the term lists; enqueue every kernel on the
 * default queue (in order, so no events); read back the window sums and
 * the scalar-1 sum; finish; combine the windows (Horner, the CPU MSM's
 * cuzk_msm_g*_combine) and add.  Device buffers are grow-only and kept in
 * the context, sized for a chunk before anything of it is enqueued.
 * Overlapping the next chunk's classification and upload with this one's
 * kernels (two staging sets, a second queue) is the next step; it changes
 * no kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu_msm.h"
#include "cuzk/msm.h"

/* Work-group size of every launch; counts per scan block; buckets per
 * reduction segment; points per work item of the sum trees; smallest
 * piece of a bucket.  Chosen for correctness and a sensible GPU shape
 * (thousands of work items at production sizes); tuning is the device
 * check's job. */
#define LOCAL 64
#define SCAN_BLK 256u
#define SEG_LEN 32u
#define TREE_GROUP 16u
#define PIECE_MIN 8u
#define MAX_WINDOW 20u

enum { K_FROM_MONT, K_FILL, K_COUNT, K_SCAN_BLOCKS, K_SCAN_TOP, K_SCAN_APPLY, K_SCATTER, K_NCOMMON };
static const char *const common_names[K_NCOMMON] = {
    "cz_msm_from_mont", "cz_msm_fill_u32",   "cz_msm_count",  "cz_msm_scan_blocks",
    "cz_msm_scan_top",  "cz_msm_scan_apply", "cz_msm_scatter"};
enum { GK_BUCKET_SUM, GK_BUCKET_REDUCE, GK_SUM_ROWS, GK_SUM_IDX, GK_N };
static const char *const group_steps[GK_N] = {"bucket_sum", "bucket_reduce", "sum_rows", "sum_idx"};

enum {
    B_BASES,
    B_SCAL,
    B_TIDX,
    B_OIDX,
    B_CNT,
    B_OFF,
    B_CUR,
    B_POFS,
    B_BSUM,
    B_SORTED,
    B_PIECES,
    B_TA,
    B_TB,
    B_N
};
enum { H_OIDX, H_TIDX, H_SCAL, H_N };

struct cuzk_gpu_msm {
    cuzk_gpu *g;
    cuzk_gpu_queue *q;
    cuzk_gpu_kernel *k[K_NCOMMON];
    cuzk_gpu_kernel *gk[2][GK_N];
    cuzk_gpu_buf *buf[B_N];
    cuzk_gpu_hostbuf *host[H_N];
    char err[256];
};

/* One group as the host sees it. */
typedef struct {
    int id; /* 0 G1, 1 G2: the kernel set */
    size_t aff, jac;
    void (*set_inf)(void *p);
    void (*add)(void *r, const void *p, const void *q);
    void (*combine)(void *out, const void *win, unsigned nwin, unsigned c);
} grp;

static void g1_set_inf_w(void *p)
{
    cuzk_g1_set_inf(p);
}
static void g1_add_w(void *r, const void *p, const void *q)
{
    cuzk_g1_add(r, p, q);
}
static void g1_combine_w(void *o, const void *w, unsigned n, unsigned c)
{
    cuzk_msm_g1_combine(o, w, n, c);
}
static void g2_set_inf_w(void *p)
{
    cuzk_g2_set_inf(p);
}
static void g2_add_w(void *r, const void *p, const void *q)
{
    cuzk_g2_add(r, p, q);
}
static void g2_combine_w(void *o, const void *w, unsigned n, unsigned c)
{
    cuzk_msm_g2_combine(o, w, n, c);
}

static const grp grp_g1 = {0, sizeof(cuzk_g1_affine), sizeof(cuzk_g1), g1_set_inf_w, g1_add_w, g1_combine_w};
static const grp grp_g2 = {1, sizeof(cuzk_g2_affine), sizeof(cuzk_g2), g2_set_inf_w, g2_add_w, g2_combine_w};

#define MAX_NWIN 128 /* ceil(256 / 2) */

/* One call. */
typedef struct {
    cuzk_gpu_msm *m;
    const grp *gr;
    const uint8_t *bases;
    const cuzk_fr *scalars;
    size_t nvars;
    const uint64_t *density;
    int split;
    unsigned window; /* forced c, or 0 */
    size_t chunk;
    size_t var, base; /* the walk: next variable, its base index */
    cuzk_par *par;    /* host threads for the walk (NULL: this thread) */
    cuzk_gpu_msm_stats st;
    _Alignas(64) uint8_t acc[sizeof(cuzk_g2)];
    _Alignas(64) uint8_t ones[sizeof(cuzk_g2)];
    _Alignas(64) uint8_t win[MAX_NWIN * sizeof(cuzk_g2)];
    char *err;
    size_t err_len;
} run;

/* A chunk's shape, computed before anything is enqueued. */
typedef struct {
    size_t b0, nb_chunk; /* its base range */
    size_t no, nt;       /* scalar-1 terms, tail terms */
    const cuzk_fr *ts;   /* tail scalars (staging or the caller's) */
    int indexed;         /* tail terms carry base indices */
    unsigned c, nwin;
    uint32_t nbk, m, piece, len, nseg; /* buckets per window, W*nb, piece size, segment shape */
    size_t maxpieces;
} chunk_plan;

/* ---- context ---------------------------------------------------------------- */

int cuzk_gpu_msm_create(cuzk_gpu_msm **out, cuzk_gpu *g, char *err, size_t err_len)
{
    if (!out || !g) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_msm_create: NULL argument");
    cuzk_gpu_msm *m = calloc(1, sizeof *m);
    if (!m) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cuzk_gpu_msm_create: out of memory");
    m->g = g;
    m->q = cuzk_gpu_default_queue(g);
    int st = CUZK_OK;
    for (int i = 0; !st && i < K_NCOMMON; i++)
        st = cuzk_gpu_kernel_get(g, &m->k[i], common_names[i], err, err_len);
    for (int gi = 0; !st && gi < 2; gi++)
        for (int i = 0; !st && i < GK_N; i++) {
            char name[64];
            snprintf(name, sizeof name, "cz_msm_g%d_%s", gi + 1, group_steps[i]);
            st = cuzk_gpu_kernel_get(g, &m->gk[gi][i], name, err, err_len);
        }
    if (st) {
        cuzk_gpu_msm_free(m);
        return st;
    }
    *out = m;
    return CUZK_OK;
}

void cuzk_gpu_msm_free(cuzk_gpu_msm *m)
{
    if (!m) return;
    char e[8];
    if (cuzk_gpu_finish(m->q, e, sizeof e)) { /* nothing to report to: freeing anyway */
    }
    for (int i = 0; i < K_NCOMMON; i++)
        cuzk_gpu_kernel_free(m->k[i]);
    for (int gi = 0; gi < 2; gi++)
        for (int i = 0; i < GK_N; i++)
            cuzk_gpu_kernel_free(m->gk[gi][i]);
    for (int i = 0; i < B_N; i++)
        cuzk_gpu_free(m->buf[i]);
    for (int i = 0; i < H_N; i++)
        cuzk_gpu_host_free(m->host[i]);
    free(m);
}

const char *cuzk_gpu_msm_last_error(const cuzk_gpu_msm *m)
{
    return m ? m->err : "no context";
}

/* Device buffer `slot` of at least bytes (grow-only; contents lost on growth). */
static int need_buf(cuzk_gpu_msm *m, int slot, size_t bytes, char *err, size_t err_len)
{
    if (bytes < 64) bytes = 64;
    if (m->buf[slot] && cuzk_gpu_buf_size(m->buf[slot]) >= bytes) return CUZK_OK;
    cuzk_gpu_free(m->buf[slot]);
    m->buf[slot] = NULL;
    return cuzk_gpu_alloc(m->g, &m->buf[slot], bytes, err, err_len);
}

static void *need_host(cuzk_gpu_msm *m, int slot, size_t bytes, int *st, char *err, size_t err_len)
{
    if (bytes < 64) bytes = 64;
    if (!m->host[slot] || *(size_t *)cuzk_gpu_host_ptr(m->host[slot]) < bytes) {
        cuzk_gpu_host_free(m->host[slot]);
        m->host[slot] = NULL;
        /* the first 64 bytes hold the capacity; the data follows */
        if ((*st = cuzk_gpu_host_alloc(m->g, &m->host[slot], bytes + 64, NULL, err, err_len))) return NULL;
        *(size_t *)cuzk_gpu_host_ptr(m->host[slot]) = bytes;
    }
    return (uint8_t *)cuzk_gpu_host_ptr(m->host[slot]) + 64;
}

/* Always LOCAL work items a group, even for one work item (scan_top): pocl
 * compiles a kernel once per work-group size it is launched with (seconds
 * each, on first use), so one size everywhere saves a compile per kernel. */
static int launch(run *r, cuzk_gpu_kernel *k, size_t global, const cuzk_gpu_arg *a, size_t na)
{
    return cuzk_gpu_launch(r->m->q, k, global, LOCAL, a, na, r->err, r->err_len);
}

#define B(slot) CUZK_GPU_ARG_B(r->m->buf[slot])
#define U(x) CUZK_GPU_ARG_32((uint32_t)(x))
#define LAUNCH(k, global, ...)                                                                               \
    do {                                                                                                     \
        const cuzk_gpu_arg a_[] = {__VA_ARGS__};                                                             \
        int st_ = launch(r, k, global, a_, sizeof a_ / sizeof a_[0]);                                        \
        if (st_) return st_;                                                                                 \
    } while (0)

/* ---- the plan -------------------------------------------------------------------- */

static unsigned nwin_of(unsigned c)
{
    return (256 + c - 1) / c; /* Booth digits: W c >= 256 (cuzk_msm_nwindows) */
}

/* c minimizing W (n + 3 * 2^(c-1)): one mixed addition per digit, about
 * three additions per bucket in the reduction; n W < 2^31 (u32 offsets). */
static unsigned choose_window(size_t n)
{
    unsigned best = 0;
    double best_cost = 0;
    for (unsigned c = 2; c <= MAX_WINDOW; c++) {
        if ((double)n * nwin_of(c) >= 2147483648.0) continue;
        double cost = nwin_of(c) * ((double)n + 3.0 * (double)(1u << (c - 1)));
        if (!best || cost < best_cost) best = c, best_cost = cost;
    }
    return best ? best : MAX_WINDOW;
}

static size_t div_up(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

static int plan_tail(run *r, chunk_plan *p)
{
    unsigned c = r->window ? r->window : choose_window(p->nt);
    p->c = c;
    p->nwin = nwin_of(c);
    if ((double)p->nt * p->nwin >= 2147483648.0)
        return cuzk_errf(
            r->err, r->err_len, CUZK_ERR_ARG,
            "gpu msm: window %u gives %zu x %u digits in one pass (at most 2^31): a larger window "
            "or a smaller chunk_bases",
            c, p->nt, p->nwin);
    p->nbk = 1u << (c - 1);
    p->m = p->nwin * p->nbk;
    size_t avg = div_up(p->nt, p->nbk), entries = p->nt * p->nwin;
    p->piece = (uint32_t)(2 * avg > PIECE_MIN ? 2 * avg : PIECE_MIN);
    /* sum_b ceil(cnt_b / piece) <= entries / piece + (nonempty buckets) */
    p->maxpieces = entries / p->piece + (entries < p->m ? entries : p->m);
    p->len = p->nbk < SEG_LEN ? p->nbk : SEG_LEN;
    p->nseg = (uint32_t)div_up(p->nbk, p->len);
    return CUZK_OK;
}

/* Every device buffer the chunk needs, before anything is enqueued (a
 * buffer is never replaced under a queued command). */
static int plan_buffers(run *r, chunk_plan *p)
{
    cuzk_gpu_msm *m = r->m;
    size_t jac = r->gr->jac;
    int st = need_buf(m, B_BASES, p->nb_chunk * r->gr->aff, r->err, r->err_len);
    if (!st && p->no) st = need_buf(m, B_OIDX, p->no * 4, r->err, r->err_len);
    /* tree input (B_TA) and first-level output (B_TB), as rows x len */
    size_t tree_in = p->no ? div_up(p->no, TREE_GROUP) : 0, tree_out = div_up(tree_in, TREE_GROUP);
    if (p->nt) {
        size_t nbl = div_up(p->m, SCAN_BLK);
        if (!st) st = need_buf(m, B_SCAL, p->nt * sizeof(cuzk_fr), r->err, r->err_len);
        if (!st && p->indexed) st = need_buf(m, B_TIDX, p->nt * 4, r->err, r->err_len);
        if (!st) st = need_buf(m, B_CNT, (size_t)p->m * 4, r->err, r->err_len);
        if (!st) st = need_buf(m, B_OFF, ((size_t)p->m + 1) * 4, r->err, r->err_len);
        if (!st) st = need_buf(m, B_CUR, (size_t)p->m * 4, r->err, r->err_len);
        if (!st) st = need_buf(m, B_POFS, ((size_t)p->m + 1) * 4, r->err, r->err_len);
        if (!st) st = need_buf(m, B_BSUM, (nbl + 1) * 4, r->err, r->err_len);
        if (!st) st = need_buf(m, B_SORTED, p->nt * p->nwin * 4, r->err, r->err_len);
        if (!st) st = need_buf(m, B_PIECES, p->maxpieces * jac, r->err, r->err_len);
        size_t segs = (size_t)p->nwin * p->nseg, segs_out = (size_t)p->nwin * div_up(p->nseg, TREE_GROUP);
        if (segs > tree_in) tree_in = segs;
        if (segs_out > tree_out) tree_out = segs_out;
    }
    if (!st && tree_in) st = need_buf(m, B_TA, tree_in * jac, r->err, r->err_len);
    if (!st && tree_in) st = need_buf(m, B_TB, tree_out * jac, r->err, r->err_len);
    return st;
}

/* ---- device passes ----------------------------------------------------------------- */

/* Rows of `len` Jacobian points in B_TA summed to one point per row by a
 * tree (ping-pong with B_TB); *where = the buffer that holds the rows. */
static int tree(run *r, uint32_t rows, uint32_t len, int *where)
{
    int src = B_TA, dst = B_TB;
    cuzk_gpu_kernel *k = r->m->gk[r->gr->id][GK_SUM_ROWS];
    while (len > 1) {
        uint32_t outlen = (uint32_t)div_up(len, TREE_GROUP);
        LAUNCH(k, (size_t)rows * outlen, B(dst), B(src), U(rows), U(len), U(TREE_GROUP));
        len = outlen;
        int t = src;
        src = dst, dst = t;
    }
    *where = src;
    return CUZK_OK;
}

/* out = exclusive prefix sums of ceil(cnt[j] / div) for j < m, out[m] the
 * total; out2 the same (without the total) when both. */
static int scan(run *r, int out, int out2, uint32_t m, uint32_t div, int both)
{
    uint32_t nbl = (uint32_t)div_up(m, SCAN_BLK);
    cuzk_gpu_kernel **k = r->m->k;
    LAUNCH(k[K_SCAN_BLOCKS], nbl, B(B_BSUM), B(B_CNT), U(m), U(SCAN_BLK), U(div));
    LAUNCH(k[K_SCAN_TOP], 1, B(B_BSUM), U(nbl));
    LAUNCH(k[K_SCAN_APPLY], nbl, B(out), B(out2), B(B_CNT), B(B_BSUM), U(m), U(SCAN_BLK), U(div), U(both));
    return CUZK_OK;
}

static int pass_ones(run *r, const chunk_plan *p, const uint32_t *oidx)
{
    int st = cuzk_gpu_write(r->m->q, r->m->buf[B_OIDX], 0, oidx, p->no * 4, false, r->err, r->err_len);
    if (st) return st;
    uint32_t first = (uint32_t)div_up(p->no, TREE_GROUP);
    LAUNCH(r->m->gk[r->gr->id][GK_SUM_IDX], first, B(B_TA), B(B_BASES), B(B_OIDX), U(p->no), U(TREE_GROUP));
    int where;
    if ((st = tree(r, 1, first, &where))) return st;
    return cuzk_gpu_read(r->m->q, r->ones, r->m->buf[where], 0, r->gr->jac, false, r->err, r->err_len);
}

static int pass_tail(run *r, const chunk_plan *p, const uint32_t *tidx)
{
    cuzk_gpu_msm *m = r->m;
    cuzk_gpu_kernel **k = m->k, **gk = m->gk[r->gr->id];
    int st =
        cuzk_gpu_write(m->q, m->buf[B_SCAL], 0, p->ts, p->nt * sizeof(cuzk_fr), false, r->err, r->err_len);
    if (!st && p->indexed)
        st = cuzk_gpu_write(m->q, m->buf[B_TIDX], 0, tidx, p->nt * 4, false, r->err, r->err_len);
    if (st) return st;
    int tidx_buf = p->indexed ? B_TIDX : B_SCAL; /* not read when not indexed */
    LAUNCH(k[K_FROM_MONT], p->nt, B(B_SCAL), U(p->nt));
    LAUNCH(k[K_FILL], p->m, B(B_CNT), U(0), U(p->m));
    LAUNCH(k[K_COUNT], p->nt, B(B_CNT), B(B_SCAL), U(p->nt), U(p->c), U(p->nwin));
    if ((st = scan(r, B_OFF, B_CUR, p->m, 1, 1)) || (st = scan(r, B_POFS, B_POFS, p->m, p->piece, 0)))
        return st;
    LAUNCH(k[K_SCATTER], p->nt, B(B_SORTED), B(B_CUR), B(B_SCAL), B(tidx_buf), U(p->nt), U(p->c), U(p->nwin),
           U(p->indexed));
    LAUNCH(gk[GK_BUCKET_SUM], p->maxpieces, B(B_PIECES), B(B_SORTED), B(B_OFF), B(B_POFS), B(B_BASES),
           U(p->m), U(p->piece));
    LAUNCH(gk[GK_BUCKET_REDUCE], (size_t)p->nwin * p->nseg, B(B_TA), B(B_PIECES), B(B_POFS), U(p->nbk),
           U(p->nwin), U(p->len), U(p->nseg));
    int where;
    if ((st = tree(r, p->nwin, p->nseg, &where))) return st;
    return cuzk_gpu_read(m->q, r->win, m->buf[where], 0, p->nwin * r->gr->jac, false, r->err, r->err_len);
}

/* ---- the walk ------------------------------------------------------------------------ */

/* The variable just past the one holding base b0 + nb - 1, starting the
 * search at v0 (which holds base b0 or precedes it): the chunk's end. */
static size_t var_end(const run *r, size_t v0, size_t nb)
{
    if (!r->density) return v0 + nb;
    const uint64_t *d = r->density;
    size_t v = v0;
    for (;;) { /* set bits remain below nvars while nb > 0 */
        uint64_t bits = d[v >> 6] >> (v & 63);
        size_t avail = (size_t)__builtin_popcountll(bits);
        if (avail < nb) {
            nb -= avail;
            v = (v | 63) + 1;
            continue;
        }
        while (--nb)
            bits &= bits - 1; /* drop the lower set bits: the nb-th is lowest */
        return v + (size_t)__builtin_ctzll(bits) + 1;
    }
}

/* The host walk of one chunk, split into tasks over variable ranges (word
 * aligned) on the caller's par: each task counts its bases and classes,
 * a serial prefix gives each its offsets, each fills its part of the
 * lists.  The scalars are read twice; the lists come out in variable
 * order, as a serial walk writes them. */
enum { WALK_TASK_VARS = 1 << 12, WALK_MAX_TASKS = 256 };
typedef struct {
    size_t v0, v1; /* variables */
    size_t nbase, zeros, ones, tail;
    size_t base_at, ones_at, tail_at; /* offsets in the chunk's lists */
} walk_task;

typedef struct {
    const run *r;
    walk_task *t;
    int fill;
    uint32_t *oidx, *tidx;
    cuzk_fr *ts;
} walk_ctx;

static void walk_task_run(void *arg, size_t ti)
{
    walk_ctx *w = arg;
    walk_task *t = &w->t[ti];
    const run *r = w->r;
    const uint64_t *d = r->density;
    size_t j = t->base_at, no = t->ones_at, nt = t->tail_at, zeros = 0, nbase = 0;
    for (size_t i = t->v0; i < t->v1; i++) {
        if (d) {
            uint64_t bits = d[i >> 6] >> (i & 63);
            if (!bits) { /* the rest of this word is clear */
                i |= 63;
                continue;
            }
            i += (size_t)__builtin_ctzll(bits);
            if (i >= t->v1) break;
        }
        const cuzk_fr *s = &r->scalars[i];
        nbase++;
        if (!r->split) {
            if (w->fill) w->ts[nt] = *s;
            nt++;
        } else if (!memcmp(s, &CUZK_FR_ZERO, sizeof *s)) {
            zeros++;
        } else if (!memcmp(s, &CUZK_FR_ONE, sizeof *s)) {
            if (w->fill) w->oidx[no] = (uint32_t)(j + nbase - 1);
            no++;
        } else {
            if (w->fill) w->tidx[nt] = (uint32_t)(j + nbase - 1), w->ts[nt] = *s;
            nt++;
        }
    }
    if (!w->fill) t->nbase = nbase, t->zeros = zeros, t->ones = no, t->tail = nt;
}

/* Classifies the variables of bases [r->base, b1) into the staging lists
 * (split on), or compacts their scalars (split off, with a density). */
static void classify(run *r, chunk_plan *p, size_t b1, uint32_t *oidx, uint32_t *tidx, cuzk_fr *ts)
{
    size_t v0 = r->var, v1 = var_end(r, v0, b1 - r->base), nvar = v1 - v0;
    size_t ntask = nvar / WALK_TASK_VARS + 1, cap = (size_t)cuzk_par_threads(r->par) * 4;
    if (ntask > cap) ntask = cap;
    if (ntask > WALK_MAX_TASKS) ntask = WALK_MAX_TASKS;
    walk_task t[WALK_MAX_TASKS];
    memset(t, 0, ntask * sizeof t[0]);
    for (size_t k = 0; k < ntask; k++) { /* cuts at multiples of 64: whole density words */
        size_t cut = k ? (v0 + nvar / ntask * k) & ~(size_t)63 : v0;
        t[k].v0 = cut < v0 ? v0 : cut;
        if (k) t[k - 1].v1 = t[k].v0;
    }
    t[ntask - 1].v1 = v1;
    walk_ctx w = {.r = r, .t = t, .oidx = oidx, .tidx = tidx, .ts = ts};
    cuzk_par_for(r->par, walk_task_run, &w, ntask);
    size_t nb = 0, no = 0, nt = 0;
    for (size_t k = 0; k < ntask; k++) {
        t[k].base_at = nb, t[k].ones_at = no, t[k].tail_at = nt;
        nb += t[k].nbase, no += t[k].ones, nt += t[k].tail;
        r->st.zeros += t[k].zeros;
    }
    w.fill = 1;
    cuzk_par_for(r->par, walk_task_run, &w, ntask);
    r->var = v1;
    r->base = b1;
    p->no = no;
    p->nt = nt;
}

static int run_chunk(run *r, size_t b1)
{
    cuzk_gpu_msm *m = r->m;
    chunk_plan p;
    memset(&p, 0, sizeof p);
    p.b0 = r->base;
    p.nb_chunk = b1 - r->base;
    size_t n = p.nb_chunk;
    int st = CUZK_OK;
    uint32_t *oidx = NULL, *tidx = NULL;
    if (!r->split && !r->density) { /* dense: the caller's scalars as they are */
        p.ts = r->scalars + r->base;
        p.nt = n;
        r->var = r->base = b1;
    } else {
        cuzk_fr *ts = need_host(m, H_SCAL, n * sizeof(cuzk_fr), &st, r->err, r->err_len);
        if (ts && r->split) oidx = need_host(m, H_OIDX, n * 4, &st, r->err, r->err_len);
        if (oidx) tidx = need_host(m, H_TIDX, n * 4, &st, r->err, r->err_len);
        if (st) return st;
        classify(r, &p, b1, oidx, tidx, ts);
        p.ts = ts;
        p.indexed = r->split;
    }
    r->st.chunks++;
    r->st.ones += p.no;
    r->st.tail += p.nt;
    if (!p.no && !p.nt) return CUZK_OK;
    if (p.nt && (st = plan_tail(r, &p))) return st;
    if (p.c > r->st.window) r->st.window = p.c;
    if ((st = plan_buffers(r, &p))) return st;
    st = cuzk_gpu_write(m->q, m->buf[B_BASES], 0, r->bases + p.b0 * r->gr->aff, n * r->gr->aff, false, r->err,
                        r->err_len);
    if (!st && p.no) st = pass_ones(r, &p, oidx);
    if (!st && p.nt) st = pass_tail(r, &p, tidx);
    char ferr[256]; /* always drain the queue (staging reused next); the first error wins */
    int fst = cuzk_gpu_finish(m->q, ferr, sizeof ferr);
    if (!st && fst) st = cuzk_errf(r->err, r->err_len, fst, "%s", ferr);
    if (st) return st;
    if (p.nt) {
        _Alignas(64) uint8_t t[sizeof(cuzk_g2)];
        r->gr->combine(t, r->win, p.nwin, p.c);
        r->gr->add(r->acc, r->acc, t);
    }
    if (p.no) r->gr->add(r->acc, r->acc, r->ones);
    return CUZK_OK;
}

static size_t popcount_prefix(const uint64_t *bits, size_t n)
{
    size_t cnt = 0, i;
    for (i = 0; i + 64 <= n; i += 64)
        cnt += (size_t)__builtin_popcountll(bits[i >> 6]);
    if (i < n) cnt += (size_t)__builtin_popcountll(bits[i >> 6] & (((uint64_t)1 << (n - i)) - 1));
    return cnt;
}

static size_t max_sz(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* Device bytes of one pass over n bases at its worst (every variable a
 * tail term for the Pippenger buffers, every one a scalar-1 term for the
 * tree), as plan_tail and plan_buffers size them; *largest = its largest
 * single buffer. */
static size_t pass_bytes(const grp *gr, size_t n, size_t *largest)
{
    unsigned c = choose_window(n), w = nwin_of(c);
    size_t nb = (size_t)1 << (c - 1), m = (size_t)w * nb, entries = n * w;
    size_t piece = max_sz(PIECE_MIN, 2 * div_up(n, nb));
    size_t bases = n * gr->aff, sorted = entries * 4;
    size_t pieces = (entries / piece + (entries < m ? entries : m)) * gr->jac;
    size_t tree = max_sz((size_t)w * div_up(nb, SEG_LEN), div_up(n, TREE_GROUP)) * gr->jac;
    *largest = max_sz(max_sz(bases, sorted), max_sz(pieces, tree));
    return bases + n * (sizeof(cuzk_fr) + 8) + sorted + 4 * (m + 1) * 4 + pieces + tree + tree / TREE_GROUP +
           (div_up(m, SCAN_BLK) + 1) * 4;
}

/* Bases per pass from the device's memory: the largest count (from
 * CUZK_GPU_MSM_MAX_CHUNK down in steps of an eighth) whose worst-case pass
 * takes at most half of the device's memory and no buffer past the
 * driver's largest allocation.  At 2^27 G1 bases a pass is ~26 GB
 * (docs/gpu.md "MSM on the device"), so an H200 runs the H query in one pass. */
static size_t auto_chunk(const cuzk_gpu_device_info *d, const grp *gr)
{
    size_t n = CUZK_GPU_MSM_MAX_CHUNK;
    while (n > 1024) {
        size_t big, total = pass_bytes(gr, n, &big);
        if (total <= d->mem_bytes / 2 && big <= d->max_alloc_bytes) break;
        n -= n / 8;
    }
    return n;
}

/* CUZK_GPU_MSM_SPLIT_AUTO: the split pays where 0/1 scalars are common
 * (witness vectors) and costs a host pass over the scalars where they are
 * not (the H query): 256 variables spread over the vector decide.  A wrong
 * guess costs time, never correctness. */
static int auto_split(const cuzk_fr *s, size_t nvars, const uint64_t *density)
{
    size_t seen = 0, small = 0;
    for (uint64_t t = 0; t < 256; t++) {
        size_t i = (size_t)(t * nvars / 256);
        if (density && !((density[i >> 6] >> (i & 63)) & 1)) continue;
        seen++;
        small += !memcmp(&s[i], &CUZK_FR_ZERO, sizeof s[i]) || !memcmp(&s[i], &CUZK_FR_ONE, sizeof s[i]);
    }
    return !seen || small * 8 >= seen;
}

static int msm_run(cuzk_gpu_msm *m, const grp *gr, void *out, const void *bases, size_t nbases,
                   const cuzk_fr *scalars, size_t nvars, const uint64_t *density,
                   const cuzk_gpu_msm_opts *opts, char *err, size_t err_len)
{
    static const cuzk_gpu_msm_opts defaults;
    if (!opts) opts = &defaults;
    if (!m || !out) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu msm: NULL context or output");
    gr->set_inf(out);
    if (opts->stats) memset(opts->stats, 0, sizeof *opts->stats);
    if (nvars > CUZK_MSM_MAX_TERMS)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu msm: %zu variables (at most 2^31)", nvars);
    if (opts->window && (opts->window < 2 || opts->window > MAX_WINDOW))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu msm: window %u (2..%u)", opts->window, MAX_WINDOW);
    if (!nvars) return CUZK_OK;
    if (!scalars)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu msm: NULL scalars for %zu variables", nvars);
    size_t nused = density ? popcount_prefix(density, nvars) : nvars;
    if (nused > nbases)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu msm: %zu variables have a base but %zu bases given",
                         nused, nbases);
    if (nused && !bases) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu msm: NULL bases");
    run *r = calloc(1, sizeof *r);
    if (!r) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "gpu msm: out of memory");
    *r = (run){.m = m,
               .gr = gr,
               .bases = bases,
               .scalars = scalars,
               .nvars = nvars,
               .density = density,
               .window = opts->window,
               .err = err,
               .err_len = err_len};
    r->split = opts->split == CUZK_GPU_MSM_SPLIT_ON ||
               (opts->split == CUZK_GPU_MSM_SPLIT_AUTO && auto_split(scalars, nvars, density));
    r->st.split = r->split;
    r->par = opts->par;
    r->chunk = opts->chunk_bases ? opts->chunk_bases : auto_chunk(cuzk_gpu_info(m->g), gr);
    if (r->chunk > CUZK_GPU_MSM_MAX_CHUNK) r->chunk = CUZK_GPU_MSM_MAX_CHUNK;
    gr->set_inf(r->acc);
    int st = CUZK_OK;
    while (!st && r->base < nused) {
        size_t b1 = nused - r->base > r->chunk ? r->base + r->chunk : nused;
        st = run_chunk(r, b1);
    }
    if (!st) memcpy(out, r->acc, gr->jac);
    if (!st && opts->stats) *opts->stats = r->st;
    free(r);
    return st;
}

int cuzk_gpu_msm_g1(cuzk_gpu_msm *m, cuzk_g1 *out, const cuzk_g1_affine *bases, size_t nbases,
                    const cuzk_fr *scalars, size_t nvars, const uint64_t *density,
                    const cuzk_gpu_msm_opts *opts, char *err, size_t err_len)
{
    return msm_run(m, &grp_g1, out, bases, nbases, scalars, nvars, density, opts, err, err_len);
}

int cuzk_gpu_msm_g2(cuzk_gpu_msm *m, cuzk_g2 *out, const cuzk_g2_affine *bases, size_t nbases,
                    const cuzk_fr *scalars, size_t nvars, const uint64_t *density,
                    const cuzk_gpu_msm_opts *opts, char *err, size_t err_len)
{
    return msm_run(m, &grp_g2, out, bases, nbases, scalars, nvars, density, opts, err, err_len);
}

int cuzk_gpu_msm_backend_g1(void *ctx, cuzk_g1 *r, const cuzk_g1_affine *bases, size_t nbases,
                            const cuzk_fr *s, size_t nvars, const uint64_t *density, cuzk_par *par)
{
    cuzk_gpu_msm *m = ctx;
    if (!m) return CUZK_ERR_ARG;
    m->err[0] = 0;
    cuzk_gpu_msm_opts o = {.par = par};
    return cuzk_gpu_msm_g1(m, r, bases, nbases, s, nvars, density, &o, m->err, sizeof m->err);
}

int cuzk_gpu_msm_backend_g2(void *ctx, cuzk_g2 *r, const cuzk_g2_affine *bases, size_t nbases,
                            const cuzk_fr *s, size_t nvars, const uint64_t *density, cuzk_par *par)
{
    cuzk_gpu_msm *m = ctx;
    if (!m) return CUZK_ERR_ARG;
    m->err[0] = 0;
    cuzk_gpu_msm_opts o = {.par = par};
    return cuzk_gpu_msm_g2(m, r, bases, nbases, s, nvars, density, &o, m->err, sizeof m->err);
}
