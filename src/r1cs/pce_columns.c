/* Weighted column sums of a PCE file's matrices (cuzk_pce_column_sums):
 * the transposed product M^T w over a range of columns, which the
 * test-parameter setup needs for its QAP columns (u_j = sum_i A_ij L_i(tau))
 * without ever holding the matrices: at 32 GiB they are 722 M entries, the
 * file 4.2 GB, the three column vectors 12.5 GB, so the caller sums a range
 * of columns at a time (docs/pce.md "Column sums").
 *
 * One task per thread, each owning a slice of the range (no two tasks add
 * into one column, so no locks or per-thread copies).  A task reads every
 * record chunk by chunk (16 K constraints): the decoding runs as a guarded
 * leaf (cuzk_map_guard_run) that keeps the entries of its columns and the
 * rows they come from, then, outside the guard, the weights of just those
 * rows are asked for (most rows touch no column of a slice) and the entries
 * added in.  Every length, column and code is bounds-checked as in
 * cuzk_pce_check. */
#include <stdlib.h>

#include "r1cs/pce_internal.h"

#define CS_CHUNK_CKPTS 16

typedef struct {
    uint32_t row;  /* index into the chunk's row list */
    uint32_t col;  /* column - task's first column */
    uint32_t code; /* coefficient code */
    uint32_t mat;  /* 0, 1, 2 = A, B, C */
} cs_entry;

typedef struct {
    const cuzk_pce *p;
    size_t c0, c1;
    cuzk_fr **out;
    cuzk_pce_row_weight_fn fn;
    void *ctx;
    size_t n_tasks;
    int *st;          /* per task */
    size_t *bad_row;  /* per task, for a decoding failure */
    const char **why; /* per task */
} cs_job;

typedef struct {
    const cs_job *j;
    size_t lo, hi; /* this task's columns */
    size_t r0, r1; /* the chunk's rows */
    const uint8_t *rec, *end;
    uint64_t *rows; /* distinct rows with an entry in [lo, hi) */
    size_t n_rows;
    cs_entry *ent;
    size_t n_ent, cap_ent;
    size_t bad;
    const char *why;
} cs_task;

static const char *cs_keep(cs_task *t, uint64_t r, size_t col, uint32_t code, uint32_t mat)
{
    if (t->n_ent == t->cap_ent) {
        size_t cap = t->cap_ent ? 2 * t->cap_ent : 4096;
        cs_entry *e = realloc(t->ent, cap * sizeof *e);
        if (!e) return "out of memory for the entries of a chunk";
        t->ent = e;
        t->cap_ent = cap;
    }
    if (!t->n_rows || t->rows[t->n_rows - 1] != r) t->rows[t->n_rows++] = r;
    t->ent[t->n_ent++] = (cs_entry){(uint32_t)(t->n_rows - 1), (uint32_t)(col - t->lo), code, mat};
    return NULL;
}

/* Guarded leaf: decode the chunk, keep the entries of [lo, hi). */
static void cs_decode(void *arg)
{
    cs_task *t = arg;
    const cuzk_pce *p = t->j->p;
    size_t inputs = p->info.inputs, aux = p->info.aux;
    const uint8_t *q = t->rec, *end = t->end;
    t->n_rows = t->n_ent = 0;
    t->why = NULL;
    for (size_t r = t->r0; r < t->r1; r++) {
        t->bad = r;
        uint64_t n[3];
        for (int s = 0; s < 3; s++)
            if (pce_rd_varint(&q, end, &n[s])) {
                t->why = "record length runs past its chunk";
                return;
            }
        for (uint32_t s = 0; s < 3; s++)
            for (uint64_t e = 0; e < n[s]; e++) {
                if (end - q < 5) {
                    t->why = "record entries run past their chunk";
                    return;
                }
                uint32_t c32 = pce_get32(q);
                q += 4;
                uint64_t code;
                if (pce_rd_varint(&q, end, &code)) {
                    t->why = "coefficient code runs past its chunk";
                    return;
                }
                size_t v = c32 & ~PCE_COL_AUX;
                if (code >= p->n_codes) {
                    t->why = "coefficient code beyond the dictionary";
                    return;
                }
                if (v >= ((c32 & PCE_COL_AUX) ? aux : inputs)) {
                    t->why = "column beyond the recorded variables";
                    return;
                }
                size_t col = (c32 & PCE_COL_AUX) ? inputs + v : v;
                if (col < t->lo || col >= t->hi || !code) continue;
                if ((t->why = cs_keep(t, r, col, (uint32_t)code, s))) return;
            }
    }
    if (q != end) t->why = "chunk has bytes after its last record";
}

static int cs_add(cs_task *t, cuzk_fr *w, cuzk_fr *tmp)
{
    const cs_job *j = t->j;
    if (!t->n_ent) return CUZK_OK;
    int st = j->fn(j->ctx, t->rows, t->n_rows, w, tmp);
    if (st) return st;
    cuzk_fr *out[3] = {j->out[0] + (t->lo - j->c0), j->out[1] + (t->lo - j->c0), j->out[2] + (t->lo - j->c0)};
    for (size_t e = 0; e < t->n_ent; e++) {
        const cs_entry *x = &t->ent[e];
        cuzk_fr *dst = &out[x->mat][x->col], v;
        if (x->code == 1) {
            cuzk_fr_add(dst, dst, &w[x->row]);
        } else if (x->code == 2) {
            cuzk_fr_sub(dst, dst, &w[x->row]);
        } else {
            cuzk_fr_mul(&v, &j->p->code_val[x->code], &w[x->row]);
            cuzk_fr_add(dst, dst, &v);
        }
    }
    return CUZK_OK;
}

static void cs_run_task(void *arg, size_t ti)
{
    cs_job *j = arg;
    const cuzk_pce *p = j->p;
    size_t width = j->c1 - j->c0, per = (width + j->n_tasks - 1) / j->n_tasks;
    cs_task t = {.j = j, .lo = j->c0 + ti * per};
    t.hi = t.lo + per < j->c1 ? t.lo + per : j->c1;
    j->st[ti] = CUZK_OK;
    j->bad_row[ti] = SIZE_MAX;
    if (t.lo >= t.hi) return;
    for (int k = 0; k < 3; k++)
        for (size_t c = t.lo; c < t.hi; c++)
            j->out[k][c - j->c0] = CUZK_FR_ZERO;
    size_t rows_max = (size_t)CS_CHUNK_CKPTS * PCE_CKPT_EVERY;
    t.rows = malloc(rows_max * sizeof *t.rows);
    cuzk_fr *w = malloc(rows_max * sizeof *w), *tmp = malloc(rows_max * sizeof *tmp);
    int st = t.rows && w && tmp ? CUZK_OK : CUZK_ERR_NOMEM;
    size_t n_ck = p->lay.n_ckpt - 1;
    for (size_t c0 = 0; c0 < n_ck && !st; c0 += CS_CHUNK_CKPTS) {
        size_t c1 = c0 + CS_CHUNK_CKPTS < n_ck ? c0 + CS_CHUNK_CKPTS : n_ck;
        t.r0 = c0 * PCE_CKPT_EVERY;
        t.r1 = c1 * PCE_CKPT_EVERY < p->info.constraints ? c1 * PCE_CKPT_EVERY : p->info.constraints;
        t.rec = p->rec + p->ckpt[c0];
        t.end = p->rec + p->ckpt[c1];
        if (cuzk_map_guard_run(p->map, p->map_len, cs_decode, &t)) {
            st = CUZK_ERR_CHANGED;
        } else if (t.why) {
            j->why[ti] = t.why;
            j->bad_row[ti] = t.bad;
            st = CUZK_ERR_FORMAT;
        } else {
            st = cs_add(&t, w, tmp);
        }
    }
    j->st[ti] = st;
    free(t.rows);
    free(t.ent);
    free(w);
    free(tmp);
}

int cuzk_pce_column_sums(const cuzk_pce *p, size_t c0, size_t c1, cuzk_fr *out[3], cuzk_pce_row_weight_fn fn,
                         void *ctx, cuzk_par *par, char *err, size_t err_len)
{
    if (!p || !out || !out[0] || !out[1] || !out[2] || !fn)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce column sums: NULL argument");
    if (c0 >= c1 || c1 > p->info.inputs + p->info.aux)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "pce column sums: columns [%zu, %zu) outside the %zu recorded", c0, c1,
                         p->info.inputs + p->info.aux);
    cs_job j = {.p = p, .c0 = c0, .c1 = c1, .out = out, .fn = fn, .ctx = ctx};
    j.n_tasks = cuzk_par_threads(par);
    if (j.n_tasks > c1 - c0) j.n_tasks = c1 - c0;
    j.st = calloc(j.n_tasks, sizeof *j.st);
    j.bad_row = calloc(j.n_tasks, sizeof *j.bad_row);
    j.why = calloc(j.n_tasks, sizeof *j.why);
    int st = CUZK_OK;
    if (!j.st || !j.bad_row || !j.why) {
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce column sums: out of memory");
    } else {
        cuzk_par_for(par, cs_run_task, &j, j.n_tasks);
        for (size_t t = 0; t < j.n_tasks && !st; t++) {
            st = j.st[t];
            if (st == CUZK_ERR_CHANGED)
                st = cuzk_pce_fault(p, err, err_len);
            else if (st == CUZK_ERR_FORMAT && cuzk_pce_unchanged(p, err, err_len))
                st = CUZK_ERR_CHANGED;
            else if (st == CUZK_ERR_FORMAT)
                cuzk_errf(err, err_len, st, "pce: constraint %zu: %s (corrupt file)", j.bad_row[t], j.why[t]);
            else if (st)
                cuzk_errf(err, err_len, st, "pce column sums: %s",
                          st == CUZK_ERR_NOMEM ? "out of memory" : "a row weight failed");
        }
    }
    free(j.st);
    free(j.bad_row);
    free(j.why);
    return st;
}

int cuzk_pce_density_copy(const cuzk_pce *p, uint64_t *maps[3], char *err, size_t err_len)
{
    const size_t words[3] = {p->lay.w_aux, p->lay.w_inp, p->lay.w_aux};
    const size_t off[3] = {0, 8 * p->lay.w_aux, 8 * (p->lay.w_aux + p->lay.w_inp)};
    for (int s = 0; s < 3; s++)
        maps[s] = NULL;
    for (int s = 0; s < 3; s++) {
        maps[s] = calloc(words[s] ? words[s] : 1, 8);
        if (!maps[s]) goto fail;
        if (cuzk_map_guard_copy(maps[s], p->dens + off[s], 8 * words[s], p->map, p->map_len)) {
            for (int k = 0; k <= s; k++) {
                free(maps[k]);
                maps[k] = NULL;
            }
            return cuzk_pce_fault(p, err, err_len);
        }
    }
    return CUZK_OK;
fail:
    for (int s = 0; s < 3; s++) {
        free(maps[s]);
        maps[s] = NULL;
    }
    return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce: out of memory for the density maps");
}
