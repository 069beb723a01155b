/* The NTT on the device: host orchestration of the kernels in
 * kernels/ntt.cl (contract in cuzk/gpu_ntt.h, design in docs/gpu.md "The NTT on the device").
 *
 * Whole vector on the device (n = 2^k):
 *   forward        = DIF passes (w) + bit reversal
 *   inverse        = DIF passes (w^-1), scale by n^-1, bit reversal
 *   coset_forward  = scale by g^i, DIF passes (w), bit reversal
 *   coset_inverse  = DIF passes (w^-1), scale by n^-1 g^-i, bit reversal
 * (the scalings of a DIF's output index it by the reversed position).
 * H keeps its vectors bit-reversed between transforms, so only its last one
 * permutes: each of a, b, c goes DIF(w^-1) -> scale by m^-1 g^K -> DIT(w)
 * (bit-reversed in, natural out), then (ab - c)/Z and the coset inverse.
 *
 * A vector larger than the memory limit goes by the four-step split
 * n = N1 N2, a[j1 + N1 j2] (N2 rows of N1): column transforms of 2^lc
 * columns at a time (gathered into a staging buffer), each followed by the
 * twiddles w_n^(j1 k2); then row transforms of whole rows.  Rows and
 * columns come out of their DIFs bit-reversed, and rev2(k2) N1 + rev1(k1)
 * is exactly rev_n(k2 + N2 k1): the vector is then in the order a whole
 * DIF leaves it, and one bit reversal on the host finishes it. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu_ntt.h"
#include "cuzk/ntt.h"
#include "ff/verify.h"
#include "poly/ntt_internal.h" /* cuzk_ntt_bitrev_permute */

#define LOG_M 27u /* CUZK_NTT_MAX_LOG; NTT_LOG_M in ntt.cl */
#define TAB_L 13u /* NTT_TAB_L in ntt.cl */
#define TAB_LEN ((1u << TAB_L) + (1u << (LOG_M - TAB_L)))
#define NO_TABLE 0xffffffffu
#define FR_BYTES sizeof(cuzk_fr)
#define ELEM_LOCAL 256u /* work-group size of the element-wise kernels */
_Static_assert(LOG_M == CUZK_NTT_MAX_LOG, "the device tables cover the CPU library's sizes");
_Static_assert(sizeof(cuzk_fr) == 32, "device buffers hold the CPU layout");

enum { ROOT_W, ROOT_WINV, ROOT_G, ROOT_GINV, NROOTS };

/* The constants buffer: 1; 2^-k (k <= 27); 1/(g^(2^k) - 1), 1/Z on the
 * coset of size 2^k; the four roots the tables are made from. */
#define C_ONE 0u
#define C_NINV(k) (1u + (k))
#define C_ZINV(k) (2u + LOG_M + (k))
#define C_ROOT(r) (3u + 2u * LOG_M + (r))
#define NCONSTS (3u + 2u * LOG_M + NROOTS)

struct cuzk_gpu_ntt {
    cuzk_gpu *g;
    cuzk_gpu_queue *q;
    cuzk_gpu_kernel *k_table, *k_pass, *k_scale, *k_bitrev, *k_quot, *k_zero;
    cuzk_gpu_buf *tabs, *consts;
    size_t limit;      /* bytes the data buffers may take */
    unsigned cap_log;  /* log2 of the elements one data buffer may hold */
    unsigned tile_log; /* log2 of the elements of a pass's work-group */
    cuzk_par *par;     /* the host's bit reversals: h_poly's par during it, else NULL */
    char err[512];     /* cuzk_gpu_h_poly's last failure */
};

static uint32_t tab_base(int root)
{
    return root < 0 ? NO_TABLE : (uint32_t)root * TAB_LEN;
}

/* After a failure: wait until nothing enqueued still reads or writes host
 * memory (a non-blocking copy).  Its own failure adds nothing to the first
 * error, which is the one reported. */
static void drain(cuzk_gpu_ntt *t)
{
    char ignored[64];
    if (cuzk_gpu_finish(t->q, ignored, sizeof ignored)) ignored[0] = 0;
}

#define B(x) CUZK_GPU_ARG_B(x)
#define U32(x) CUZK_GPU_ARG_32((uint32_t)(x))
#define U64(x) CUZK_GPU_ARG_64((uint64_t)(x))
#define NARGS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the kernels, one call each ------------------------------------------- */

/* The DIF (dit = 0) or DIT passes over `total` elements: batches of 2^inner
 * interleaved transforms of 2^log_n points.  The bottom pass does up to
 * tile_log stages on contiguous tiles; the stages above are split evenly
 * into passes that leave at least 2^4 neighbouring columns per tile (512
 * contiguous bytes a load) when the tile allows it. */
static int passes(cuzk_gpu_ntt *t, cuzk_gpu_buf *a, size_t total, unsigned log_n, unsigned inner, int root,
                  int dit, char *err, size_t err_len)
{
    unsigned tl = t->tile_log, lo[LOG_M + 1], kk[LOG_M + 1], np = 0;
    if (log_n == 0) return CUZK_OK;
    unsigned kmax = tl - (tl / 2 < 4 ? tl / 2 : 4);
    unsigned k0 = log_n < tl ? log_n : tl, rest = log_n - k0, up = (rest + kmax - 1) / kmax;
    lo[0] = 0, kk[0] = k0, np = 1;
    for (unsigned s = k0, p = 0; p < up; p++, np++) {
        unsigned left = log_n - s, k = (left + (up - p) - 1) / (up - p);
        lo[np] = s, kk[np] = k, s += k;
    }
    for (unsigned i = 0; i < np; i++) {
        unsigned p = dit ? i : np - 1 - i, c = tl - kk[p];
        if (c > lo[p] + inner) c = lo[p] + inner;
        size_t elems = (size_t)1 << (kk[p] + c);
        cuzk_gpu_arg args[] = {B(a),       B(t->tabs), U32(tab_base(root)),
                               U32(inner), U32(lo[p]), U32(kk[p]),
                               U32(c),     U32(dit),   CUZK_GPU_ARG_L(elems * FR_BYTES)};
        int st = cuzk_gpu_launch(t->q, t->k_pass, total / 2, elems / 2, args, NARGS(args), err, err_len);
        if (st) return st;
    }
    return CUZK_OK;
}

/* a[i] *= consts[si] * x^e(i) for i < cnt, x the table of root (-1: 1);
 * e by mode, see cz_ntt_scale. */
typedef struct {
    uint32_t mode, c0, lc, ln1, ln2, ln;
} scale_idx;

static int scale(cuzk_gpu_ntt *t, cuzk_gpu_buf *a, size_t cnt, int root, uint32_t si, scale_idx x, char *err,
                 size_t err_len)
{
    cuzk_gpu_arg args[] = {B(a),      B(t->tabs), B(t->consts), U32(tab_base(root)), U32(si),   U32(x.mode),
                           U32(x.c0), U32(x.lc),  U32(x.ln1),   U32(x.ln2),          U32(x.ln), U64(cnt)};
    return cuzk_gpu_launch(t->q, t->k_scale, cnt, ELEM_LOCAL, args, NARGS(args), err, err_len);
}

static int bitrev(cuzk_gpu_ntt *t, cuzk_gpu_buf *a, unsigned log_n, char *err, size_t err_len)
{
    cuzk_gpu_arg args[] = {B(a), U32(log_n)};
    return cuzk_gpu_launch(t->q, t->k_bitrev, (size_t)1 << log_n, ELEM_LOCAL, args, NARGS(args), err,
                           err_len);
}

static int zero(cuzk_gpu_ntt *t, cuzk_gpu_buf *a, size_t off, size_t cnt, char *err, size_t err_len)
{
    cuzk_gpu_arg args[] = {B(a), U64(off), U64(cnt)};
    return cuzk_gpu_launch(t->q, t->k_zero, cnt, ELEM_LOCAL, args, NARGS(args), err, err_len);
}

/* mode 0: a = (ab - c)/Z; 1: a = ab; 2: a = (a - c)/Z (cz_ntt_quot) */
static int quot(cuzk_gpu_ntt *t, cuzk_gpu_buf *a, cuzk_gpu_buf *b, cuzk_gpu_buf *c, unsigned log_m, unsigned mode,
                size_t cnt, char *err, size_t err_len)
{
    cuzk_gpu_arg args[] = {B(a), B(b), B(c), B(t->consts), U32(C_ZINV(log_m)), U32(mode), U64(cnt)};
    return cuzk_gpu_launch(t->q, t->k_quot, cnt, ELEM_LOCAL, args, NARGS(args), err, err_len);
}

/* ---- context ---------------------------------------------------------------- */

static void fill_consts(cuzk_fr c[NCONSTS])
{
    cuzk_fr g, two, z;
    c[C_ONE] = CUZK_FR_ONE;
    cuzk_fr_from_u64(&two, 2);
    cuzk_fr_inv_var(&two, &two);
    c[C_NINV(0)] = CUZK_FR_ONE;
    for (unsigned k = 1; k <= LOG_M; k++)
        cuzk_fr_mul(&c[C_NINV(k)], &c[C_NINV(k - 1)], &two);
    cuzk_ntt_coset_generator(&g);
    z = g; /* g^(2^k): Z(x) = x^m - 1 is g^m - 1 on the coset g<w>, as backend_cpu.c */
    for (unsigned k = 0; k <= LOG_M; k++) {
        cuzk_fr d;
        cuzk_fr_sub(&d, &z, &CUZK_FR_ONE);
        cuzk_fr_inv_var(&c[C_ZINV(k)], &d);
        cuzk_fr_sqr(&z, &z);
    }
    /* log_n = 27 <= 32, the two-adicity: it cannot fail */
    CUZK_CANNOT_FAIL(cuzk_ntt_root_of_unity(&c[C_ROOT(ROOT_W)], LOG_M));
    cuzk_fr_inv_var(&c[C_ROOT(ROOT_WINV)], &c[C_ROOT(ROOT_W)]);
    c[C_ROOT(ROOT_G)] = g;
    cuzk_fr_inv_var(&c[C_ROOT(ROOT_GINV)], &g);
}

/* The tables x^i and x^(i 2^13) of the four roots, computed by the device. */
static int make_tables(cuzk_gpu_ntt *t, char *err, size_t err_len)
{
    cuzk_fr c[NCONSTS];
    fill_consts(c);
    int st = cuzk_gpu_alloc(t->g, &t->consts, sizeof c, err, err_len);
    if (!st) st = cuzk_gpu_alloc(t->g, &t->tabs, (size_t)NROOTS * TAB_LEN * FR_BYTES, err, err_len);
    if (!st) st = cuzk_gpu_write(t->q, t->consts, 0, c, sizeof c, true, err, err_len);
    for (int r = 0; r < NROOTS && !st; r++) {
        for (unsigned part = 0; part < 2 && !st; part++) {
            uint32_t cnt = part ? 1u << (LOG_M - TAB_L) : 1u << TAB_L;
            cuzk_gpu_arg args[] = {B(t->tabs),
                                   B(t->consts),
                                   U32(C_ROOT(r)),
                                   U32(tab_base(r) + (part ? 1u << TAB_L : 0)),
                                   U32(part ? TAB_L : 0),
                                   U32(cnt)};
            st = cuzk_gpu_launch(t->q, t->k_table, cnt, ELEM_LOCAL, args, NARGS(args), err, err_len);
        }
    }
    return st ? st : cuzk_gpu_finish(t->q, err, err_len);
}

int cuzk_gpu_ntt_create(cuzk_gpu_ntt **out, cuzk_gpu *g, const cuzk_gpu_ntt_opts *opts, char *err,
                        size_t err_len)
{
    if (!out || !g) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_ntt_create: bad arguments");
    *out = NULL;
    cuzk_gpu_ntt_opts o = opts ? *opts : (cuzk_gpu_ntt_opts){0, 0};
    const cuzk_gpu_device_info *info = cuzk_gpu_info(g);
    if (!o.tile_log) o.tile_log = 9;
    if (!o.mem_limit) o.mem_limit = info->mem_bytes / 4 * 3;
    if (o.tile_log < 2 || o.tile_log > 10)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu ntt: tile_log %u is not in 2..10", o.tile_log);
    if (o.mem_limit < 1024)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu ntt: a memory limit of %zu bytes is below 1 KiB",
                         o.mem_limit);
    cuzk_gpu_ntt *t = calloc(1, sizeof *t);
    if (!t) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "gpu ntt: out of memory");
    t->g = g;
    t->q = cuzk_gpu_default_queue(g);
    t->limit = o.mem_limit;
    t->tile_log = o.tile_log;
    size_t one = o.mem_limit < info->max_alloc_bytes ? o.mem_limit : info->max_alloc_bytes;
    while (t->cap_log < LOG_M && ((size_t)FR_BYTES << (t->cap_log + 1)) <= one)
        t->cap_log++;
    static const char *const names[] = {"cz_ntt_table",  "cz_ntt_pass", "cz_ntt_scale",
                                        "cz_ntt_bitrev", "cz_ntt_quot", "cz_ntt_zero"};
    cuzk_gpu_kernel **ks[] = {&t->k_table, &t->k_pass, &t->k_scale, &t->k_bitrev, &t->k_quot, &t->k_zero};
    int st = CUZK_OK;
    for (size_t i = 0; i < NARGS(ks) && !st; i++)
        st = cuzk_gpu_kernel_get(g, ks[i], names[i], err, err_len);
    if (!st) st = make_tables(t, err, err_len);
    if (st) {
        cuzk_gpu_ntt_destroy(t);
        return st;
    }
    *out = t;
    return CUZK_OK;
}

void cuzk_gpu_ntt_destroy(cuzk_gpu_ntt *t)
{
    if (!t) return;
    drain(t);
    cuzk_gpu_free(t->tabs);
    cuzk_gpu_free(t->consts);
    cuzk_gpu_kernel *ks[] = {t->k_table, t->k_pass, t->k_scale, t->k_bitrev, t->k_quot, t->k_zero};
    for (size_t i = 0; i < NARGS(ks); i++)
        cuzk_gpu_kernel_free(ks[i]);
    free(t);
}

const char *cuzk_gpu_ntt_error(const cuzk_gpu_ntt *t)
{
    return t ? t->err : "";
}

/* ---- whole transforms on the device ----------------------------------------- */

static int inverse_kind(cuzk_gpu_ntt_kind kind)
{
    return kind == CUZK_GPU_NTT_INVERSE || kind == CUZK_GPU_NTT_COSET_INVERSE;
}

static int transform(cuzk_gpu_ntt *t, cuzk_gpu_ntt_kind kind, cuzk_gpu_buf *a, unsigned log_n, char *err,
                     size_t err_len)
{
    size_t n = (size_t)1 << log_n;
    int inv = inverse_kind(kind), st = CUZK_OK;
    if (kind == CUZK_GPU_NTT_COSET_FORWARD) /* a[i] *= g^i */
        st = scale(t, a, n, ROOT_G, C_ONE, (scale_idx){0, 0, log_n, log_n, 0, 0}, err, err_len);
    if (!st) st = passes(t, a, n, log_n, 0, inv ? ROOT_WINV : ROOT_W, 0, err, err_len);
    if (!st && inv) /* position p holds index rev(p): times n^-1 (g^-rev(p)) */
        st = scale(t, a, n, kind == CUZK_GPU_NTT_COSET_INVERSE ? ROOT_GINV : -1, C_NINV(log_n),
                   (scale_idx){1, 0, 0, log_n, 0, 0}, err, err_len);
    return st ? st : bitrev(t, a, log_n, err, err_len);
}

static int log2_exact(size_t n, unsigned *log_n)
{
    if (!n || (n & (n - 1))) return 0;
    *log_n = (unsigned)__builtin_ctzll((unsigned long long)n);
    return *log_n <= LOG_M;
}

int cuzk_gpu_ntt_run_buf(cuzk_gpu_ntt *t, cuzk_gpu_ntt_kind kind, cuzk_gpu_buf *a, unsigned log_n, char *err,
                         size_t err_len)
{
    if (!t || !a || log_n > LOG_M || (unsigned)kind > CUZK_GPU_NTT_COSET_INVERSE ||
        cuzk_gpu_buf_size(a) < (FR_BYTES << log_n))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_ntt_run_buf: bad arguments (log_n %u)", log_n);
    return transform(t, kind, a, log_n, err, err_len);
}

/* ---- host vectors: whole or four-step ------------------------------------------ */

static int whole(cuzk_gpu_ntt *t, cuzk_gpu_ntt_kind kind, cuzk_fr *a, unsigned log_n, char *err,
                 size_t err_len)
{
    size_t bytes = FR_BYTES << log_n;
    cuzk_gpu_buf *b = NULL;
    int st = cuzk_gpu_alloc(t->g, &b, bytes, err, err_len);
    if (!st) st = cuzk_gpu_write(t->q, b, 0, a, bytes, false, err, err_len);
    if (!st) st = transform(t, kind, b, log_n, err, err_len);
    if (!st) st = cuzk_gpu_read(t->q, a, b, 0, bytes, true, err, err_len);
    if (st) drain(t);
    cuzk_gpu_free(b);
    return st;
}

typedef struct {
    unsigned log_n, l1, l2, lc, lr; /* n = N1 N2 = 2^l1 2^l2; 2^lc columns, 2^lr rows a chunk */
    int inv, wroot;
    cuzk_gpu_ntt_kind kind;
} four_step;

/* Columns c0 .. c0 + 2^lc: gathered, (times g^i), transformed, twisted by
 * w_n^(j1 k2), put back.  stg holds 2^(l2+lc) elements. */
static int column_chunk(cuzk_gpu_ntt *t, const four_step *f, cuzk_fr *a, cuzk_fr *stg, cuzk_gpu_buf *b,
                        size_t c0, char *err, size_t err_len)
{
    size_t n1 = (size_t)1 << f->l1, n2 = (size_t)1 << f->l2, cols = (size_t)1 << f->lc, cnt = n2 * cols;
    for (size_t r = 0; r < n2; r++)
        memcpy(stg + r * cols, a + r * n1 + c0, cols * FR_BYTES);
    int st = cuzk_gpu_write(t->q, b, 0, stg, cnt * FR_BYTES, false, err, err_len);
    if (!st && f->kind == CUZK_GPU_NTT_COSET_FORWARD)
        st = scale(t, b, cnt, ROOT_G, C_ONE, (scale_idx){0, (uint32_t)c0, f->lc, f->l1, 0, 0}, err, err_len);
    if (!st) st = passes(t, b, cnt, f->l2, f->lc, f->wroot, 0, err, err_len);
    if (!st)
        st = scale(t, b, cnt, f->wroot, C_ONE, (scale_idx){2, (uint32_t)c0, f->lc, 0, f->l2, f->log_n}, err,
                   err_len);
    if (!st) st = cuzk_gpu_read(t->q, stg, b, 0, cnt * FR_BYTES, true, err, err_len);
    for (size_t r = 0; !st && r < n2; r++)
        memcpy(a + r * n1 + c0, stg + r * cols, cols * FR_BYTES);
    return st;
}

/* Rows r0 .. r0 + 2^lr (contiguous): transformed, (scaled for an inverse). */
static int row_chunk(cuzk_gpu_ntt *t, const four_step *f, cuzk_fr *a, cuzk_gpu_buf *b, size_t r0, char *err,
                     size_t err_len)
{
    size_t cnt = (size_t)1 << (f->lr + f->l1);
    cuzk_fr *p = a + (r0 << f->l1);
    int st = cuzk_gpu_write(t->q, b, 0, p, cnt * FR_BYTES, false, err, err_len);
    if (!st) st = passes(t, b, cnt, f->l1, 0, f->wroot, 0, err, err_len);
    if (!st && f->inv) /* position (r, c) holds index rev2(r) + N2 rev1(c) */
        st = scale(t, b, cnt, f->kind == CUZK_GPU_NTT_COSET_INVERSE ? ROOT_GINV : -1, C_NINV(f->log_n),
                   (scale_idx){1, (uint32_t)r0, 0, f->l1, f->l2, 0}, err, err_len);
    if (!st) st = cuzk_gpu_read(t->q, p, b, 0, cnt * FR_BYTES, true, err, err_len);
    return st;
}

static int chunked(cuzk_gpu_ntt *t, cuzk_gpu_ntt_kind kind, cuzk_fr *a, unsigned log_n, char *err,
                   size_t err_len)
{
    four_step f = {.log_n = log_n, .l1 = (log_n + 1) / 2, .kind = kind, .inv = inverse_kind(kind)};
    f.l2 = log_n - f.l1;
    f.wroot = f.inv ? ROOT_WINV : ROOT_W;
    if (f.l1 > t->cap_log)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "gpu ntt: 2^%u points need rows of 2^%u elements, above the memory limit's 2^%u",
                         log_n, f.l1, t->cap_log);
    f.lc = t->cap_log - f.l2 < f.l1 ? t->cap_log - f.l2 : f.l1;
    f.lr = t->cap_log - f.l1 < f.l2 ? t->cap_log - f.l1 : f.l2;
    size_t elems = (size_t)1 << (f.l2 + f.lc > f.l1 + f.lr ? f.l2 + f.lc : f.l1 + f.lr);
    cuzk_gpu_buf *b = NULL;
    cuzk_gpu_hostbuf *h = NULL;
    int st = cuzk_gpu_alloc(t->g, &b, elems * FR_BYTES, err, err_len);
    if (!st) st = cuzk_gpu_host_alloc(t->g, &h, ((size_t)1 << (f.l2 + f.lc)) * FR_BYTES, NULL, err, err_len);
    for (size_t c0 = 0; !st && c0 < ((size_t)1 << f.l1); c0 += (size_t)1 << f.lc)
        st = column_chunk(t, &f, a, cuzk_gpu_host_ptr(h), b, c0, err, err_len);
    for (size_t r0 = 0; !st && r0 < ((size_t)1 << f.l2); r0 += (size_t)1 << f.lr)
        st = row_chunk(t, &f, a, b, r0, err, err_len);
    if (st) drain(t);
    cuzk_gpu_host_free(h);
    cuzk_gpu_free(b);
    if (!st) cuzk_ntt_bitrev_permute(t->par, a, log_n); /* the CPU library's, cache-blocked */
    return st;
}

int cuzk_gpu_ntt_run(cuzk_gpu_ntt *t, cuzk_gpu_ntt_kind kind, cuzk_fr *a, size_t n, char *err, size_t err_len)
{
    unsigned log_n = 0;
    if (!t || !a || (unsigned)kind > CUZK_GPU_NTT_COSET_INVERSE || !log2_exact(n, &log_n))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_ntt_run: bad arguments (n = %zu)", n);
    if (log_n <= t->cap_log) return whole(t, kind, a, log_n, err, err_len);
    return chunked(t, kind, a, log_n, err, err_len);
}

/* ---- H ----------------------------------------------------------------------------- */

/* Evaluations at the first m points -> evaluations on the coset, without
 * a permutation: DIF(w^-1) leaves coefficient K at rev(K), which takes
 * m^-1 g^K there, and DIT(w) reads that order and writes natural order. */
static int to_coset(cuzk_gpu_ntt *t, cuzk_gpu_buf *v, unsigned log_m, char *err, size_t err_len)
{
    size_t m = (size_t)1 << log_m;
    int st = passes(t, v, m, log_m, 0, ROOT_WINV, 0, err, err_len);
    if (!st) st = scale(t, v, m, ROOT_G, C_NINV(log_m), (scale_idx){1, 0, 0, log_m, 0, 0}, err, err_len);
    return st ? st : passes(t, v, m, log_m, 0, ROOT_W, 1, err, err_len);
}

/* a, b, c on the device together: 3 transfers in, 7 transforms, 1 out. */
static int h_device(cuzk_gpu_ntt *t, cuzk_fr *const v[3], size_t n, unsigned log_m, char *err, size_t err_len)
{
    size_t m = (size_t)1 << log_m;
    cuzk_gpu_buf *d[3] = {NULL, NULL, NULL};
    int st = CUZK_OK;
    for (int k = 0; k < 3 && !st; k++) {
        st = cuzk_gpu_alloc(t->g, &d[k], m * FR_BYTES, err, err_len);
        if (!st && n) st = cuzk_gpu_write(t->q, d[k], 0, v[k], n * FR_BYTES, false, err, err_len);
        if (!st && n < m) st = zero(t, d[k], n, m - n, err, err_len);
        if (!st) st = to_coset(t, d[k], log_m, err, err_len);
    }
    if (!st) st = quot(t, d[0], d[1], d[2], log_m, 0, m, err, err_len);
    if (!st) st = transform(t, CUZK_GPU_NTT_COSET_INVERSE, d[0], log_m, err, err_len);
    if (!st) st = cuzk_gpu_read(t->q, v[0], d[0], 0, m * FR_BYTES, true, err, err_len);
    if (st) drain(t);
    for (int k = 0; k < 3; k++)
        cuzk_gpu_free(d[k]);
    return st;
}

/* The quotient step (mode as quot) on host vectors v[0] (in/out), v[1], v[2]
 * (NULL where the mode does not read it), 2^lp elements at a time. */
static int quot_chunked(cuzk_gpu_ntt *t, cuzk_fr *const v[3], unsigned log_m, unsigned mode, char *err,
                        size_t err_len)
{
    size_t m = (size_t)1 << log_m;
    unsigned lp = log_m;
    while (lp > 0 && 3 * (FR_BYTES << lp) > t->limit) lp--;
    size_t p = (size_t)1 << lp;
    cuzk_gpu_buf *d[3] = {NULL, NULL, NULL};
    int st = CUZK_OK;
    for (int k = 0; k < 3 && !st; k++)
        if (v[k]) st = cuzk_gpu_alloc(t->g, &d[k], p * FR_BYTES, err, err_len);
    for (size_t off = 0; !st && off < m; off += p) {
        for (int k = 0; k < 3 && !st; k++)
            if (v[k]) st = cuzk_gpu_write(t->q, d[k], 0, v[k] + off, p * FR_BYTES, false, err, err_len);
        if (!st) st = quot(t, d[0], d[1] ? d[1] : d[0], d[2] ? d[2] : d[0], log_m, mode, p, err, err_len);
        if (!st) st = cuzk_gpu_read(t->q, v[0] + off, d[0], 0, p * FR_BYTES, true, err, err_len);
    }
    if (st) drain(t);
    for (int k = 0; k < 3; k++) cuzk_gpu_free(d[k]);
    return st;
}

/* Evaluations at the first n of m points, in host memory -> coset values. */
static int host_to_coset(cuzk_gpu_ntt *t, cuzk_fr *v, size_t n, unsigned log_m, char *err, size_t err_len)
{
    size_t m = (size_t)1 << log_m;
    for (size_t i = n; i < m; i++) v[i] = CUZK_FR_ZERO;
    int st = cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_INVERSE, v, m, err, err_len);
    return st ? st : cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_COSET_FORWARD, v, m, err, err_len);
}

/* Vectors too large to sit on the device together: each transform whole or
 * chunked through host memory, the quotient in chunks. */
static int h_host(cuzk_gpu_ntt *t, cuzk_fr *const v[3], size_t n, unsigned log_m, char *err, size_t err_len)
{
    size_t m = (size_t)1 << log_m;
    int st = CUZK_OK;
    for (int k = 0; k < 3 && !st; k++) st = host_to_coset(t, v[k], n, log_m, err, err_len);
    if (!st) st = quot_chunked(t, v, log_m, 0, err, err_len);
    return st ? st : cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_COSET_INVERSE, v[0], m, err, err_len);
}

int cuzk_gpu_h_poly(void *ctx, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, size_t n, unsigned log_m, cuzk_par *par)
{
    cuzk_gpu_ntt *t = ctx;
    if (!t) return CUZK_ERR_ARG;
    t->err[0] = 0;
    if (!a || !b || !c || log_m > LOG_M || n > ((size_t)1 << log_m))
        return cuzk_errf(t->err, sizeof t->err, CUZK_ERR_ARG,
                         "gpu h_poly: bad arguments (n = %zu, log_m = %u)", n, log_m);
    cuzk_fr *const v[3] = {a, b, c};
    if (log_m <= t->cap_log && 3 * (FR_BYTES << log_m) <= t->limit)
        return h_device(t, v, n, log_m, t->err, sizeof t->err);
    t->par = par;
    int st = h_host(t, v, n, log_m, t->err, sizeof t->err);
    t->par = NULL;
    return st;
}

/* ---- H in the lean order ------------------------------------------------------------ */

typedef struct {
    int (*fill_c)(void *, cuzk_fr *, size_t);
    void *ctx;
} c_source;

/* A and B on the device; a = AB while the host fills C into b's memory
 * (once B's upload is done); C up and to the coset; a = (a - C)/Z. */
static int lean_device(cuzk_gpu_ntt *t, cuzk_fr *a, cuzk_fr *b, size_t n, unsigned log_m, c_source c, char *err,
                       size_t err_len)
{
    size_t m = (size_t)1 << log_m;
    cuzk_fr *v[2] = {a, b};
    cuzk_gpu_buf *d[2] = {NULL, NULL};
    int st = CUZK_OK;
    for (int k = 0; k < 2 && !st; k++) {
        st = cuzk_gpu_alloc(t->g, &d[k], m * FR_BYTES, err, err_len);
        if (!st && n) st = cuzk_gpu_write(t->q, d[k], 0, v[k], n * FR_BYTES, k == 1, err, err_len);
        if (!st && n < m) st = zero(t, d[k], n, m - n, err, err_len);
        if (!st) st = to_coset(t, d[k], log_m, err, err_len);
    }
    if (!st) st = quot(t, d[0], d[1], d[1], log_m, 1, m, err, err_len);
    if (!st && (st = c.fill_c(c.ctx, b, n)) != CUZK_OK)
        cuzk_errf(err, err_len, st, "gpu h_poly_lean: fill_c failed (%s)", cuzk_strerror(st));
    if (!st && n) st = cuzk_gpu_write(t->q, d[1], 0, b, n * FR_BYTES, false, err, err_len);
    if (!st && n < m) st = zero(t, d[1], n, m - n, err, err_len);
    if (!st) st = to_coset(t, d[1], log_m, err, err_len);
    if (!st) st = quot(t, d[0], d[0], d[1], log_m, 2, m, err, err_len);
    if (!st) st = transform(t, CUZK_GPU_NTT_COSET_INVERSE, d[0], log_m, err, err_len);
    if (!st) st = cuzk_gpu_read(t->q, a, d[0], 0, m * FR_BYTES, true, err, err_len);
    if (st) drain(t);
    for (int k = 0; k < 2; k++) cuzk_gpu_free(d[k]);
    return st;
}

static int lean_host(cuzk_gpu_ntt *t, cuzk_fr *a, cuzk_fr *b, size_t n, unsigned log_m, c_source c, char *err,
                     size_t err_len)
{
    cuzk_fr *const ab[3] = {a, b, NULL}, *const ac[3] = {a, NULL, b};
    int st = host_to_coset(t, a, n, log_m, err, err_len);
    if (!st) st = host_to_coset(t, b, n, log_m, err, err_len);
    if (!st) st = quot_chunked(t, ab, log_m, 1, err, err_len);
    if (!st && (st = c.fill_c(c.ctx, b, n)) != CUZK_OK)
        cuzk_errf(err, err_len, st, "gpu h_poly_lean: fill_c failed (%s)", cuzk_strerror(st));
    if (!st) st = host_to_coset(t, b, n, log_m, err, err_len);
    if (!st) st = quot_chunked(t, ac, log_m, 2, err, err_len);
    return st ? st : cuzk_gpu_ntt_run(t, CUZK_GPU_NTT_COSET_INVERSE, a, (size_t)1 << log_m, err, err_len);
}

int cuzk_gpu_h_poly_lean(void *ctx, cuzk_fr *a, cuzk_fr *b, size_t n, unsigned log_m,
                         int (*fill_c)(void *, cuzk_fr *, size_t), void *fill_ctx, cuzk_par *par)
{
    cuzk_gpu_ntt *t = ctx;
    if (!t) return CUZK_ERR_ARG;
    t->err[0] = 0;
    if (!a || !b || !fill_c || log_m > LOG_M || n > ((size_t)1 << log_m))
        return cuzk_errf(t->err, sizeof t->err, CUZK_ERR_ARG,
                         "gpu h_poly_lean: bad arguments (n = %zu, log_m = %u)", n, log_m);
    c_source c = {fill_c, fill_ctx};
    if (log_m <= t->cap_log && 2 * (FR_BYTES << log_m) <= t->limit)
        return lean_device(t, a, b, n, log_m, c, t->err, sizeof t->err);
    t->par = par;
    int st = lean_host(t, a, b, n, log_m, c, t->err, sizeof t->err);
    t->par = NULL;
    return st;
}
