/* Streaming test setup: random TEST parameters for a circuit recorded in a
 * PCE file, written straight to a bellperson .params file in bounded memory
 * at any size (cuzk_groth16_setup_test_file; docs/perf-notes.md "Fast test
 * setup").  The same toxic waste and formulas as setup.c, so for the same
 * seed and circuit the file is byte for byte what cuzk_groth16_setup_test
 * writes (tests/test_groth16_setup.c checks it), but:
 *
 *  - VARIABLE TIME.  The toxic waste of test parameters is public
 *    randomness (anyone can re-derive it from the seed), so the points are
 *    made with wide fixed-base tables and batched affine additions
 *    (src/ec/fixed_base_var.c, ~3x faster per point than the constant-time
 *    batch) and the Lagrange weights with variable-time inversions.  Real
 *    secrets never come here; setup.c stays the constant-time path.
 *  - Nothing scales with the circuit in memory but what the caller allows:
 *    H's scalars tau^i Z(tau) / delta are made where they are used; the QAP
 *    columns u, v, w are summed a range of columns at a time from the PCE
 *    (cuzk_pce_column_sums, 96 bytes a column: budget / 96 columns a pass),
 *    and each range's IC, L, A, B points are written at their offsets in the
 *    preallocated file with pwrite (the file is laid out from the counts
 *    before a point is made).  32 GiB PoRep: 4 passes in 3 GiB.
 *  - The file is written as <path>.tmp.<pid> (O_EXCL | O_NOFOLLOW),
 *    fsync'd and renamed: a reader never sees a partial file, and a failure
 *    leaves nothing behind.
 *
 * Phases (each a static function below): plan (counts, layout, budget),
 * secrets (toxic waste and the domain), file (space check, preallocation),
 * tables, vk, H, columns (per pass: sums, scalars, IC/L/A/B), finish. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "cuzk/ntt.h"
#include "ec/ec_internal.h"
#include "g16_internal.h"
#include "msm/msm_ifma.h"

#define TASK_PTS 4096                    /* points per task (one pwrite each) */
#define DEFAULT_BUDGET ((size_t)3 << 30) /* column sums: 3 GiB = 33.5 M columns */
#define VK_FIXED (3 * G16_G1_BYTES + 3 * G16_G2_BYTES)

typedef struct {
    /* input */
    const cuzk_pce *pce;
    const cuzk_groth16_setup_file_opts *o;
    cuzk_pce_info in;
    char *err;
    size_t el;
    /* plan */
    size_t n_inp, n_aux, cols, n_h, n_a, n_b, range;
    uint64_t off_ic, off_h, off_l, off_a, off_b1, off_b2, total, vk_len;
    uint64_t *dens[3]; /* a_aux, b_input, b_aux */
    /* secrets */
    cuzk_fr alpha, beta, gamma_inv, delta_inv, tau, zm, z_delta;
    unsigned log_m, lo_bits;
    cuzk_fr *w_lo, *w_hi; /* omega^x, omega^(2^lo_bits y) */
    /* file */
    int fd;
    char *tmp;
    /* tables */
    cuzk_g1_fbv_table t1;
    cuzk_g2_fbv_table t2;
    /* progress */
    size_t done, points;
    cuzk_groth16_setup_file_info *info;
} fs_ctx;

static size_t popcount_words(const uint64_t *w, size_t bits)
{
    size_t c = 0;
    for (size_t i = 0; i < bits / 64; i++)
        c += (size_t)__builtin_popcountll(w[i]);
    if (bits % 64) c += (size_t)__builtin_popcountll(w[bits / 64] & ((1ull << (bits % 64)) - 1));
    return c;
}

/* ---- plan: counts and the file's layout -------------------------------------- */

static int fs_plan(fs_ctx *x)
{
    int st = cuzk_pce_density_copy(x->pce, x->dens, x->err, x->el);
    if (st) return st;
    x->n_inp = x->in.inputs;
    x->n_aux = x->in.aux;
    x->cols = x->n_inp + x->n_aux;
    if (!x->in.constraints || !x->n_inp || x->in.constraints > ((size_t)1 << 31))
        return cuzk_errf(x->err, x->el, CUZK_ERR_ARG,
                         "setup: %zu constraints, %zu inputs: no parameters for that", x->in.constraints,
                         x->n_inp);
    x->log_m = cuzk_g16_log2_ceil(x->in.constraints);
    x->n_h = ((size_t)1 << x->log_m) - 1;
    x->n_a = x->n_inp + popcount_words(x->dens[0], x->n_aux);
    x->n_b = popcount_words(x->dens[1], x->n_inp) + popcount_words(x->dens[2], x->n_aux);
    x->vk_len = VK_FIXED + 4 + (uint64_t)G16_G1_BYTES * x->n_inp;
    x->off_ic = VK_FIXED + 4;
    x->off_h = x->vk_len + 4;
    x->off_l = x->off_h + (uint64_t)G16_G1_BYTES * x->n_h + 4;
    x->off_a = x->off_l + (uint64_t)G16_G1_BYTES * x->n_aux + 4;
    x->off_b1 = x->off_a + (uint64_t)G16_G1_BYTES * x->n_a + 4;
    x->off_b2 = x->off_b1 + (uint64_t)G16_G1_BYTES * x->n_b + 4;
    x->total = x->off_b2 + (uint64_t)G16_G2_BYTES * x->n_b;
    size_t budget = x->o->mem_budget ? x->o->mem_budget : DEFAULT_BUDGET;
    x->range = budget / (3 * sizeof(cuzk_fr));
    if (x->range <= x->n_inp) /* the inputs (IC) are summed in the first pass */
        return cuzk_errf(x->err, x->el, CUZK_ERR_ARG,
                         "setup: a memory budget of %zu bytes holds %zu columns, fewer than the %zu inputs",
                         budget, x->range, x->n_inp);
    if (x->range > x->cols) x->range = x->cols;
    x->points = x->n_h + x->n_inp + x->n_aux + x->n_a + 2 * x->n_b;
    return CUZK_OK;
}

/* ---- secrets: toxic waste and the evaluation domain --------------------------- */

static int fs_secrets(fs_ctx *x, const uint8_t *seed, size_t seed_len)
{
    cuzk_fr gamma, delta, omega, t;
    int st;
    if ((st = cuzk_g16_setup_derive(&x->alpha, "alpha", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&x->beta, "beta", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&gamma, "gamma", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&delta, "delta", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&x->tau, "tau", seed, seed_len)))
        return cuzk_errf(x->err, x->el, st, "setup: could not derive the toxic waste from the seed");
    if ((st = cuzk_ntt_root_of_unity(&omega, x->log_m)))
        return cuzk_errf(x->err, x->el, st, "setup: no root of unity of order 2^%u", x->log_m);
    cuzk_fr_inv_var(&x->gamma_inv, &gamma);
    cuzk_fr_inv_var(&x->delta_inv, &delta);
    cuzk_fr zt = x->tau; /* Z(tau) = tau^m - 1 */
    for (unsigned i = 0; i < x->log_m; i++)
        cuzk_fr_sqr(&zt, &zt);
    cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
    cuzk_fr_from_u64(&t, (uint64_t)1 << x->log_m);
    cuzk_fr_inv_var(&t, &t);
    cuzk_fr_mul(&x->zm, &zt, &t);
    cuzk_fr_mul(&x->z_delta, &zt, &x->delta_inv);
    /* omega^i = w_lo[i mod 2^lo] w_hi[i >> lo]: two tables of ~2^(log_m/2) */
    x->lo_bits = (x->log_m + 1) / 2;
    size_t nlo = (size_t)1 << x->lo_bits, nhi = ((size_t)1 << (x->log_m - x->lo_bits));
    x->w_lo = malloc(nlo * sizeof *x->w_lo);
    x->w_hi = malloc(nhi * sizeof *x->w_hi);
    if (!x->w_lo || !x->w_hi) return cuzk_errf(x->err, x->el, CUZK_ERR_NOMEM, "setup: out of memory");
    x->w_lo[0] = x->w_hi[0] = CUZK_FR_ONE;
    for (size_t i = 1; i < nlo; i++)
        cuzk_fr_mul(&x->w_lo[i], &x->w_lo[i - 1], &omega);
    cuzk_fr_mul(&t, &x->w_lo[nlo - 1], &omega); /* omega^(2^lo) */
    for (size_t i = 1; i < nhi; i++)
        cuzk_fr_mul(&x->w_hi[i], &x->w_hi[i - 1], &t);
    return CUZK_OK;
}

/* Row weights: the Lagrange basis at tau, L_i(tau) = Z(tau)/m omega^i /
 * (tau - omega^i), one batch inversion per call (w holds the denominators,
 * tmp their prefix products; omega^i is recomputed on the way back). */
static int fs_lagrange(void *ctx, const uint64_t *rows, size_t n, cuzk_fr *w, cuzk_fr *tmp)
{
    const fs_ctx *x = ctx;
    uint64_t mask = ((uint64_t)1 << x->lo_bits) - 1;
    cuzk_fr wi, inv, t;
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_mul(&wi, &x->w_lo[rows[i] & mask], &x->w_hi[rows[i] >> x->lo_bits]);
        cuzk_fr_sub(&w[i], &x->tau, &wi);
        if (cuzk_fr_is_zero(&w[i])) return CUZK_ERR_ARG; /* tau is a root of unity */
        if (i)
            cuzk_fr_mul(&tmp[i], &tmp[i - 1], &w[i]);
        else
            tmp[0] = w[0];
    }
    cuzk_fr_inv_var(&inv, &tmp[n - 1]);
    for (size_t i = n; i-- > 0;) {
        cuzk_fr den = w[i];
        if (i)
            cuzk_fr_mul(&t, &inv, &tmp[i - 1]);
        else
            t = inv;
        cuzk_fr_mul(&inv, &inv, &den);
        cuzk_fr_mul(&wi, &x->w_lo[rows[i] & mask], &x->w_hi[rows[i] >> x->lo_bits]);
        cuzk_fr_mul(&t, &t, &wi);
        cuzk_fr_mul(&w[i], &t, &x->zm);
    }
    return CUZK_OK;
}

/* ---- file ---------------------------------------------------------------------- */

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *b = buf;
    while (len) {
        ssize_t k = pwrite(fd, b, len, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        b += k;
        len -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

static int put_count(fs_ctx *x, uint64_t off, size_t n)
{
    uint8_t b[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    if (n > 0xffffffffu)
        return cuzk_errf(x->err, x->el, CUZK_ERR_ARG, "setup: a query of %zu points does not fit the format",
                         n);
    if (pwrite_all(x->fd, b, 4, off - 4))
        return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: writing %s: %s", x->tmp, strerror(errno));
    return CUZK_OK;
}

static int fs_file(fs_ctx *x)
{
    const char *path = x->o->path;
    size_t pl = strlen(path) + 32;
    if (!(x->tmp = malloc(pl))) return cuzk_errf(x->err, x->el, CUZK_ERR_NOMEM, "setup: out of memory");
    snprintf(x->tmp, pl, "%s.tmp.%ld", path, (long)getpid());
    x->fd = open(x->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (x->fd < 0)
        return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: cannot create %s: %s", x->tmp, strerror(errno));
    struct statvfs sv;
    if (!fstatvfs(x->fd, &sv) && (uint64_t)sv.f_bavail * sv.f_frsize < x->total)
        return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: %s needs %.1f GB, the disk has %.1f GB free",
                         path, (double)x->total / 1e9, (double)sv.f_bavail * (double)sv.f_frsize / 1e9);
    int e = posix_fallocate(x->fd, 0, (off_t)x->total);
    if (e == EINVAL || e == EOPNOTSUPP) e = ftruncate(x->fd, (off_t)x->total) ? errno : 0;
    if (e)
        return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: cannot size %s to %llu bytes: %s", x->tmp,
                         (unsigned long long)x->total, strerror(e));
    int st;
    if ((st = put_count(x, x->off_ic, x->n_inp)) || (st = put_count(x, x->off_h, x->n_h)) ||
        (st = put_count(x, x->off_l, x->n_aux)) || (st = put_count(x, x->off_a, x->n_a)) ||
        (st = put_count(x, x->off_b1, x->n_b)) || (st = put_count(x, x->off_b2, x->n_b)))
        return st;
    return CUZK_OK;
}

static int fs_tables(fs_ctx *x)
{
    cuzk_g1 g1;
    cuzk_g2 g2;
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    unsigned w1 = x->o->window_g1 ? x->o->window_g1 : 14, w2 = x->o->window_g2 ? x->o->window_g2 : 16;
    int st = cuzk_g1_fbv_table_init(&x->t1, &g1, w1);
    if (!st) st = cuzk_g2_fbv_table_init(&x->t2, &g2, w2);
    if (st == CUZK_ERR_ARG)
        return cuzk_errf(x->err, x->el, st, "setup: table windows must be 2..%d (got %u, %u)",
                         CUZK_EC_FBV_MAX_W, w1, w2);
    if (st) return cuzk_errf(x->err, x->el, st, "setup: out of memory for the fixed-base tables");
    if (cuzk_msm_ifma_active()) { /* AVX-512 IFMA chord additions (CUZK_MSM_NO_IFMA=1: scalar) */
        x->t1.pairs = cuzk_msm_ifma_pairs;
        x->t1.pairs_work_bytes = cuzk_msm_ifma_work_bytes;
        x->t2.pairs = cuzk_msm_ifma_g2_pairs;
        x->t2.pairs_work_bytes = cuzk_msm_ifma_g2_work_bytes;
    }
    if (x->info) x->info->ifma = x->t1.pairs != NULL;
    return CUZK_OK;
}

/* ---- points: scalars times a generator, written at their offsets ------------- */

typedef struct {
    fs_ctx *x;
    bool g2;
    const cuzk_fr *s; /* NULL: H, scalars made in the task */
    size_t lo, n;     /* points [lo, lo + n) of the segment, task t: lo + t TASK_PTS */
    uint64_t off;     /* byte offset of the segment's point 0 */
    int *st;          /* per task: CUZK_OK, NOMEM, IO, or ARG (an identity) */
    size_t *bad;      /* per task: the identity's index, or the write's errno */
} mul_job;

static void mul_task(void *arg, size_t t)
{
    mul_job *j = arg;
    fs_ctx *x = j->x;
    size_t lo = j->lo + t * TASK_PTS, k = j->lo + j->n - lo < TASK_PTS ? j->lo + j->n - lo : TASK_PTS;
    size_t psz = j->g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    size_t bsz = j->g2 ? G16_G2_BYTES : G16_G1_BYTES;
    void *scratch = malloc(j->g2 ? cuzk_g2_fbv_scratch_size(&x->t2) : cuzk_g1_fbv_scratch_size(&x->t1));
    uint8_t *pts = malloc(k * psz), *bytes = malloc(k * bsz);
    cuzk_fr *hs = j->s ? NULL : malloc(k * sizeof *hs);
    j->st[t] = CUZK_ERR_NOMEM;
    if (!scratch || !pts || !bytes || (!j->s && !hs)) goto out;
    const cuzk_fr *s = j->s ? j->s + lo : hs;
    if (!j->s) { /* H: tau^i Z(tau) / delta */
        uint64_t e[4] = {lo, 0, 0, 0};
        cuzk_fr_pow(&hs[0], &x->tau, e, 1);
        cuzk_fr_mul(&hs[0], &hs[0], &x->z_delta);
        for (size_t i = 1; i < k; i++)
            cuzk_fr_mul(&hs[i], &hs[i - 1], &x->tau);
    }
    if (j->g2)
        cuzk_g2_mul_fixed_many_var((cuzk_g2_affine *)pts, &x->t2, s, k, scratch);
    else
        cuzk_g1_mul_fixed_many_var((cuzk_g1_affine *)pts, &x->t1, s, k, scratch);
    j->st[t] = CUZK_OK;
    for (size_t i = 0; i < k; i++) {
        if (j->g2)
            cuzk_g2_serialize(bytes + i * bsz, (cuzk_g2_affine *)pts + i);
        else
            cuzk_g1_serialize(bytes + i * bsz, (cuzk_g1_affine *)pts + i);
        if (j->st[t] == CUZK_OK && (j->g2 ? cuzk_g2_affine_is_inf((cuzk_g2_affine *)pts + i)
                                          : cuzk_g1_affine_is_inf((cuzk_g1_affine *)pts + i))) {
            j->st[t] = CUZK_ERR_ARG;
            j->bad[t] = lo + i;
        }
    }
    if (j->st[t] == CUZK_OK && pwrite_all(x->fd, bytes, k * bsz, j->off + (uint64_t)lo * bsz)) {
        j->st[t] = CUZK_ERR_IO;
        j->bad[t] = (size_t)(errno ? errno : EIO); /* errno is this thread's */
    }
out:
    if (hs) OPENSSL_cleanse(hs, k * sizeof *hs);
    free(hs);
    free(scratch);
    free(pts);
    free(bytes);
}

/* Points [0, n) of one query segment, in chunks of a few tasks per thread
 * so that progress is reported between them. */
static int fs_points(fs_ctx *x, const char *phase, bool g2, const cuzk_fr *s, size_t n, uint64_t off,
                     size_t first)
{
    cuzk_par *par = x->o->par;
    size_t per = (size_t)16 * cuzk_par_threads(par), chunk = per * TASK_PTS;
    int st_t[per];
    size_t bad_t[per];
    for (size_t lo = 0; lo < n; lo += chunk) {
        mul_job j = {x, g2, s, lo, n - lo < chunk ? n - lo : chunk, off, st_t, bad_t};
        size_t tasks = (j.n + TASK_PTS - 1) / TASK_PTS;
        cuzk_par_for(par, mul_task, &j, tasks);
        for (size_t t = 0; t < tasks; t++) {
            if (st_t[t] == CUZK_ERR_ARG)
                return cuzk_errf(x->err, x->el, CUZK_ERR_ARG,
                                 "setup: %s point %zu is the identity (a zero %s); use another seed", phase,
                                 first + bad_t[t],
                                 !strcmp(phase, "L") || !strcmp(phase, "IC") ? "QAP sum" : "column");
            if (st_t[t] == CUZK_ERR_IO)
                return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: writing %s: %s", x->tmp,
                                 strerror((int)bad_t[t]));
            if (st_t[t]) return cuzk_errf(x->err, x->el, st_t[t], "setup: out of memory for a task's points");
        }
        x->done += j.n;
        if (x->o->progress) x->o->progress(x->o->progress_ctx, phase, x->done, x->points);
    }
    return CUZK_OK;
}

static int fs_vk(fs_ctx *x, const uint8_t *seed, size_t seed_len)
{
    cuzk_fr gamma, delta, g1s[3], g2s[3];
    int st;
    if ((st = cuzk_g16_setup_derive(&gamma, "gamma", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&delta, "delta", seed, seed_len)))
        return cuzk_errf(x->err, x->el, st, "setup: could not derive the toxic waste from the seed");
    g1s[0] = x->alpha, g1s[1] = x->beta, g1s[2] = delta;
    g2s[0] = x->beta, g2s[1] = gamma, g2s[2] = delta;
    cuzk_g1_affine p1[3];
    cuzk_g2_affine p2[3];
    size_t s1 = cuzk_g1_fbv_scratch_size(&x->t1), s2 = cuzk_g2_fbv_scratch_size(&x->t2);
    void *scratch = malloc(s1 > s2 ? s1 : s2);
    if (!scratch) return cuzk_errf(x->err, x->el, CUZK_ERR_NOMEM, "setup: out of memory");
    cuzk_g1_mul_fixed_many_var(p1, &x->t1, g1s, 3, scratch);
    cuzk_g2_mul_fixed_many_var(p2, &x->t2, g2s, 3, scratch);
    free(scratch);
    /* alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 */
    uint8_t b[VK_FIXED], *q = b;
    cuzk_g1_serialize(q, &p1[0]), q += G16_G1_BYTES;
    cuzk_g1_serialize(q, &p1[1]), q += G16_G1_BYTES;
    cuzk_g2_serialize(q, &p2[0]), q += G16_G2_BYTES;
    cuzk_g2_serialize(q, &p2[1]), q += G16_G2_BYTES;
    cuzk_g1_serialize(q, &p1[2]), q += G16_G1_BYTES;
    cuzk_g2_serialize(q, &p2[2]);
    if (pwrite_all(x->fd, b, sizeof b, 0))
        return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: writing %s: %s", x->tmp, strerror(errno));
    return CUZK_OK;
}

/* ---- the columns: IC, L, A, B_G1, B_G2 a range at a time ------------------------ */

/* u, v, w of columns [c0, c1) become: w the IC / L scalar, u compacted to
 * the A scalars of the range (*na), v to the B scalars (*nb). */
static int fs_scalars(fs_ctx *x, size_t c0, size_t c1, cuzk_fr *u, cuzk_fr *v, cuzk_fr *w, size_t *na,
                      size_t *nb)
{
    size_t ka = 0, kb = 0;
    for (size_t j = c0; j < c1; j++) {
        cuzk_fr *uj = &u[j - c0], *vj = &v[j - c0], *wj = &w[j - c0], e, f;
        cuzk_fr_mul(&e, uj, &x->beta);
        cuzk_fr_mul(&f, vj, &x->alpha);
        cuzk_fr_add(&e, &e, &f);
        cuzk_fr_add(&e, &e, wj);
        bool inp = j < x->n_inp;
        if (!inp && cuzk_fr_is_zero(&e))
            return cuzk_errf(x->err, x->el, CUZK_ERR_ARG,
                             "setup: aux variable %zu is unconstrained (its L point would be the identity)",
                             j - x->n_inp);
        cuzk_fr_mul(wj, &e, inp ? &x->gamma_inv : &x->delta_inv);
        if (inp || g16_bit(x->dens[0], j - x->n_inp)) u[ka++] = *uj;
        if (inp ? g16_bit(x->dens[1], j) : g16_bit(x->dens[2], j - x->n_inp)) v[kb++] = *vj;
    }
    *na = ka;
    *nb = kb;
    return CUZK_OK;
}

static int fs_columns(fs_ctx *x)
{
    size_t R = x->range, a_done = 0, b_done = 0, passes = (x->cols + R - 1) / R;
    cuzk_fr *u = malloc(R * sizeof *u), *v = malloc(R * sizeof *v), *w = malloc(R * sizeof *w);
    int st = u && v && w
                 ? CUZK_OK
                 : cuzk_errf(x->err, x->el, CUZK_ERR_NOMEM, "setup: out of memory for %zu columns", R);
    for (size_t c0 = 0, pass = 1; c0 < x->cols && !st; c0 += R, pass++) {
        size_t c1 = c0 + R < x->cols ? c0 + R : x->cols, na = 0, nb = 0;
        if (x->o->progress) {
            char ph[48];
            snprintf(ph, sizeof ph, "column sums %zu/%zu", pass, passes);
            x->o->progress(x->o->progress_ctx, ph, x->done, x->points);
        }
        cuzk_fr *out[3] = {u, v, w};
        st = cuzk_pce_column_sums(x->pce, c0, c1, out, fs_lagrange, x, x->o->par, x->err, x->el);
        if (st == CUZK_ERR_ARG) /* from fs_lagrange */
            st = cuzk_errf(x->err, x->el, st, "setup: tau is a root of unity; use another seed");
        if (!st) st = fs_scalars(x, c0, c1, u, v, w, &na, &nb);
        size_t ni = c0 < x->n_inp ? x->n_inp - c0 : 0; /* inputs of this range (all in the first) */
        if (!st && ni) st = fs_points(x, "IC", false, w, ni, x->off_ic, 0);
        if (!st && c1 - c0 > ni)
            st = fs_points(x, "L", false, w + ni, c1 - c0 - ni,
                           x->off_l + (uint64_t)G16_G1_BYTES * (c0 + ni - x->n_inp), c0 + ni - x->n_inp);
        if (!st && na)
            st = fs_points(x, "A", false, u, na, x->off_a + (uint64_t)G16_G1_BYTES * a_done, a_done);
        if (!st && nb)
            st = fs_points(x, "B_G1", false, v, nb, x->off_b1 + (uint64_t)G16_G1_BYTES * b_done, b_done);
        if (!st && nb)
            st = fs_points(x, "B_G2", true, v, nb, x->off_b2 + (uint64_t)G16_G2_BYTES * b_done, b_done);
        a_done += na;
        b_done += nb;
    }
    if (!st && (a_done != x->n_a || b_done != x->n_b))
        st = cuzk_errf(x->err, x->el, CUZK_ERR_FORMAT,
                       "setup: %zu A and %zu B points made, the density says %zu, %zu", a_done, b_done,
                       x->n_a, x->n_b);
    if (x->info) x->info->passes = passes;
    for (cuzk_fr **a = (cuzk_fr *[]){u, v, w, NULL}; *a; a++) {
        OPENSSL_cleanse(*a, R * sizeof(cuzk_fr));
        free(*a);
    }
    return st;
}

/* ---- finish: fsync, rename, the .vk beside it ---------------------------------- */

static int fs_finish(fs_ctx *x)
{
    if (fsync(x->fd) || close(x->fd)) {
        x->fd = -1;
        return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: writing %s: %s", x->tmp, strerror(errno));
    }
    x->fd = -1;
    if (x->o->vk_path) { /* the params' first vk_len bytes, written and renamed like them */
        char vt[4096];
        snprintf(vt, sizeof vt, "%s.tmp.%ld", x->o->vk_path, (long)getpid());
        uint8_t *vk = malloc(x->vk_len);
        FILE *f = fopen(x->tmp, "rb");
        int fd = open(vt, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        bool ok = vk && f && fd >= 0 && fread(vk, 1, x->vk_len, f) == x->vk_len &&
                  !pwrite_all(fd, vk, x->vk_len, 0) && !fsync(fd);
        int e = errno;
        if (fd >= 0 && close(fd)) ok = false;
        if (f) fclose(f);
        free(vk);
        if (ok && rename(vt, x->o->vk_path)) ok = false, e = errno;
        if (!ok) {
            unlink(vt);
            return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: cannot write %s: %s", x->o->vk_path,
                             strerror(e));
        }
    }
    if (rename(x->tmp, x->o->path))
        return cuzk_errf(x->err, x->el, CUZK_ERR_IO, "setup: cannot rename %s to %s: %s", x->tmp, x->o->path,
                         strerror(errno));
    free(x->tmp);
    x->tmp = NULL;
    return CUZK_OK;
}

int cuzk_groth16_setup_test_file(const cuzk_pce *pce, const uint8_t *seed, size_t seed_len,
                                 const cuzk_groth16_setup_file_opts *o, cuzk_groth16_setup_file_info *info,
                                 char *err, size_t err_len)
{
    if (!pce || !o || !o->path || (!seed && seed_len))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "setup: NULL argument");
    fs_ctx x = {.pce = pce, .o = o, .err = err, .el = err_len, .fd = -1, .info = info};
    cuzk_pce_get_info(pce, &x.in);
    double t0 = cuzk_g16_clock(false), t1 = t0;
    int st = fs_plan(&x);
    if (!st) st = fs_secrets(&x, seed, seed_len);
    if (!st) st = fs_file(&x);
    if (!st) st = fs_tables(&x);
    if (!st) st = fs_vk(&x, seed, seed_len);
    if (!st) {
        t1 = cuzk_g16_clock(false);
        st = fs_points(&x, "H", false, NULL, x.n_h, x.off_h, 0);
    }
    double t2 = cuzk_g16_clock(false);
    if (!st) st = fs_columns(&x);
    double t3 = cuzk_g16_clock(false);
    if (!st) st = fs_finish(&x);
    if (info && !st) {
        info->constraints = x.in.constraints;
        info->g1_points = x.n_h + x.n_inp + x.n_aux + x.n_a + x.n_b;
        info->g2_points = x.n_b;
        info->file_bytes = x.total;
        info->prep_s = t1 - t0;
        info->h_s = t2 - t1;
        info->columns_s = t3 - t2;
        info->total_s = cuzk_g16_clock(false) - t0;
        info->range = x.range;
    }
    if (x.fd >= 0) close(x.fd);
    if (x.tmp) { /* failed: leave nothing behind */
        unlink(x.tmp);
        free(x.tmp);
    }
    for (int s = 0; s < 3; s++)
        free(x.dens[s]);
    free(x.w_lo);
    free(x.w_hi);
    cuzk_g1_fbv_table_free(&x.t1);
    cuzk_g2_fbv_table_free(&x.t2);
    OPENSSL_cleanse(&x.alpha, sizeof x.alpha);
    OPENSSL_cleanse(&x.beta, sizeof x.beta);
    OPENSSL_cleanse(&x.tau, sizeof x.tau);
    return st;
}
