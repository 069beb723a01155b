/* PCE evaluation: a, b, c = A z, B z, C z from the recorded matrices and a
 * WITNESS-mode assignment, as a parallel sparse matrix-vector product over
 * chunks of constraints (checkpoints every PCE_CKPT_EVERY constraints), and
 * the conversion of the cs into the PROVE-mode form the prover consumes.
 *
 * Per entry the coefficient code picks the cheapest operation: zero is
 * skipped, +-1 is an add or a subtract, +-2, +-4, +-8 a doubling chain, the
 * rest (larger powers, dictionary values) one Montgomery multiplication by
 * the code's precomputed value.  Field arithmetic is exact, so the sums
 * equal PROVE mode's bit for bit (both are canonical Montgomery forms).
 *
 * Every read is bounds-checked against its chunk (a verified file is still
 * not trusted): lengths, columns (< inputs or aux) and codes (< codes).
 * Each task decodes its chunk as a leaf under its own recovery point
 * (cuzk_map_guard_run: a file truncated under us stops the task, not the
 * process), and a failure in a file that is no longer the one opened is
 * reported as the change (CUZK_ERR_CHANGED), not as corruption. */
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/mapguard.h"
#include "r1cs/cs_internal.h"
#include "r1cs/pce_internal.h" /* first: cuzk/par.h */

#define CHUNK_CKPTS 16 /* checkpoints per task: 16 K constraints */

static const char why_fault[] = "a mapped page could not be read"; /* guard tripped */

typedef struct {
    const cuzk_pce *p;
    const cuzk_fr *inp, *aux; /* NULL: check only (every value is ONE) */
    cuzk_fr *ev[3];           /* NULL: values not stored */
    size_t n_tasks;
    uint64_t (*nnz)[3]; /* per task */
    size_t *bad_row;    /* per task: SIZE_MAX = fine */
    const char **why;
} eval_job;

static inline int rd_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    uint64_t x = 0;
    for (unsigned sh = 0; sh <= 35; sh += 7) {
        if (p >= end) return -1;
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) {
            *v = x;
            *pp = p;
            return 0;
        }
    }
    return -1;
}

/* acc += code_val[code] * z with the cheap cases first. */
static inline void accumulate(cuzk_fr *acc, const cuzk_fr *z, uint64_t code, const cuzk_fr *vals)
{
    cuzk_fr t;
    switch (code) {
    case 0:
        return;
    case 1:
        cuzk_fr_add(acc, acc, z);
        return;
    case 2:
        cuzk_fr_sub(acc, acc, z);
        return;
    case 3:
    case 4: /* +-2 */
        cuzk_fr_dbl(&t, z);
        break;
    case 5:
    case 6: /* +-4 */
        cuzk_fr_dbl(&t, z);
        cuzk_fr_dbl(&t, &t);
        break;
    case 7:
    case 8: /* +-8 */
        cuzk_fr_dbl(&t, z);
        cuzk_fr_dbl(&t, &t);
        cuzk_fr_dbl(&t, &t);
        break;
    default:
        cuzk_fr_mul(&t, &vals[code], z);
        cuzk_fr_add(acc, acc, &t);
        return;
    }
    if (code & 1)
        cuzk_fr_add(acc, acc, &t);
    else
        cuzk_fr_sub(acc, acc, &t);
}

/* One entry: its value pointer and code, every field bounds-checked. */
static inline const char *decode_entry(const eval_job *j, const uint8_t **pp, const uint8_t *end,
                                       const cuzk_fr **z, uint32_t *code)
{
    static const cuzk_fr one = {{0}}; /* check mode: any value will do */
    const cuzk_pce *pc = j->p;
    const uint8_t *p = *pp;
    if (end - p < 5) return "record entries run past their chunk";
    uint32_t col = pce_get32(p);
    p += 4;
    uint64_t c;
    if (rd_varint(&p, end, &c)) return "coefficient code runs past its chunk";
    if (c >= pc->n_codes) return "coefficient code beyond the dictionary";
    uint32_t idx = col & ~PCE_COL_AUX;
    if ((col & PCE_COL_AUX) ? idx >= pc->info.aux : idx >= pc->info.inputs)
        return "column beyond the recorded variables";
    *z = !j->aux ? &one : (col & PCE_COL_AUX) ? &j->aux[idx] : &j->inp[idx];
    *code = (uint32_t)c;
    *pp = p;
    return NULL;
}

static inline const char *decode_lengths(const uint8_t **pp, const uint8_t *end, uint64_t n[3])
{
    for (int s = 0; s < 3; s++)
        if (rd_varint(pp, end, &n[s])) return "record length runs past its chunk";
    uint64_t room = (uint64_t)(end - *pp) / 5;
    if (n[0] > room || n[1] > room - n[0] || n[2] > room - n[0] - n[1])
        return "record entries run past their chunk";
    return NULL;
}

/* Decode and evaluate constraints [r0, r1) from bytes [p, end).  (Decoding
 * a batch of rows first and prefetching their values did not pay:
 * docs/perf-notes.md "PCE".) */
static const char *eval_range(const eval_job *j, size_t r0, size_t r1, const uint8_t *p, const uint8_t *end,
                              uint64_t nnz[3], size_t *bad)
{
    const char *why;
    for (size_t r = r0; r < r1; r++) {
        *bad = r;
        uint64_t n[3];
        if ((why = decode_lengths(&p, end, n))) return why;
        for (int s = 0; s < 3; s++) {
            cuzk_fr acc = CUZK_FR_ZERO;
            for (uint64_t e = 0; e < n[s]; e++) {
                const cuzk_fr *z;
                uint32_t code;
                if ((why = decode_entry(j, &p, end, &z, &code))) return why;
                if (j->ev[s]) accumulate(&acc, z, code, j->p->code_val); /* else: decode and check only */
            }
            nnz[s] += n[s];
            if (j->ev[s]) j->ev[s][r] = acc;
        }
    }
    if (p != end) return "chunk has bytes after its last record";
    *bad = SIZE_MAX;
    return NULL;
}

typedef struct {
    eval_job *j;
    size_t t;
} eval_arg;

/* Guarded: the task's chunk, decoded and summed. */
static void eval_leaf(void *arg)
{
    eval_job *j = ((eval_arg *)arg)->j;
    size_t t = ((eval_arg *)arg)->t;
    const cuzk_pce *p = j->p;
    size_t c0 = t * CHUNK_CKPTS, c1 = c0 + CHUNK_CKPTS;
    if (c1 > p->lay.n_ckpt - 1) c1 = p->lay.n_ckpt - 1;
    size_t r0 = c0 * PCE_CKPT_EVERY, r1 = c1 * PCE_CKPT_EVERY;
    if (r1 > p->info.constraints) r1 = p->info.constraints;
    j->why[t] = eval_range(j, r0, r1, p->rec + p->ckpt[c0], p->rec + p->ckpt[c1], j->nnz[t], &j->bad_row[t]);
}

static void eval_task(void *arg, size_t t)
{
    eval_job *j = arg;
    eval_arg a = {j, t};
    if (cuzk_map_guard_run(j->p->map, j->p->map_len, eval_leaf, &a)) j->why[t] = why_fault;
}

static int run(eval_job *j, cuzk_par *par, char *err, size_t err_len)
{
    const cuzk_pce *p = j->p;
    j->n_tasks = (p->lay.n_ckpt - 1 + CHUNK_CKPTS - 1) / CHUNK_CKPTS;
    j->nnz = calloc(j->n_tasks, sizeof *j->nnz);
    j->bad_row = calloc(j->n_tasks, sizeof *j->bad_row);
    j->why = calloc(j->n_tasks, sizeof *j->why);
    int st = CUZK_OK;
    if (!j->nnz || !j->bad_row || !j->why) {
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce: out of memory");
        goto out;
    }
    cuzk_par_for(par, eval_task, j, j->n_tasks);
    uint64_t nnz[3] = {0, 0, 0};
    for (size_t t = 0; t < j->n_tasks && !st; t++) {
        if (j->why[t] == why_fault)
            st = cuzk_pce_fault(p, err, err_len);
        else if (j->why[t])
            st = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "pce: constraint %zu: %s (corrupt file)",
                           j->bad_row[t], j->why[t]);
        for (int s = 0; s < 3; s++)
            nnz[s] += j->nnz[t][s];
    }
    for (int s = 0; s < 3 && !st; s++)
        if (nnz[s] != p->info.nnz[s])
            st = cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                           "pce: matrix %c has %llu entries, the header says %zu", "ABC"[s],
                           (unsigned long long)nnz[s], p -> info.nnz[s]);
    /* a file cut inside a page reads zeros there: any decoding error */
    if (st == CUZK_ERR_FORMAT && cuzk_pce_unchanged(p, err, err_len)) st = CUZK_ERR_CHANGED;
out:
    free(j->nnz);
    free(j->bad_row);
    free(j->why);
    return st;
}

int cuzk_pce_check(const cuzk_pce *p, cuzk_par *par, char *err, size_t err_len)
{
    if (!p) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce check: NULL argument");
    eval_job j = {.p = p};
    return run(&j, par, err, err_len);
}

int cuzk_pce_density_for(const cuzk_pce *p, cuzk_cs *cs, uint64_t *maps[3], char *err, size_t err_len)
{
    size_t wa = cs->aux_cap / 64, wi = cs->inputs_cap / 64; /* sized as the cs sizes its own */
    if (wa < p->lay.w_aux) wa = p->lay.w_aux;
    if (wi < p->lay.w_inp) wi = p->lay.w_inp;
    maps[0] = calloc(wa ? wa : 1, 8);
    maps[1] = calloc(wi ? wi : 1, 8);
    maps[2] = calloc(wa ? wa : 1, 8);
    if (!maps[0] || !maps[1] || !maps[2])
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce: out of memory for the density maps");
    const size_t off[3] = {0, 8 * p->lay.w_aux, 8 * (p->lay.w_aux + p->lay.w_inp)};
    const size_t len[3] = {8 * p->lay.w_aux, 8 * p->lay.w_inp, 8 * p->lay.w_aux};
    for (int s = 0; s < 3; s++)
        if (cuzk_map_guard_copy(maps[s], p->dens + off[s], len[s], p->map, p->map_len))
            return cuzk_pce_fault(p, err, err_len);
    return CUZK_OK;
}

int cuzk_pce_matvec(const cuzk_pce *p, const cuzk_fr *inp, const cuzk_fr *aux, cuzk_fr *ev[3], cuzk_par *par,
                    char *err, size_t err_len)
{
    if (!p || !inp || (!aux && p->info.aux))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce matvec: NULL argument");
    eval_job j = {.p = p, .inp = inp, .aux = aux ? aux : &CUZK_FR_ZERO};
    for (int s = 0; s < 3; s++)
        j.ev[s] = ev ? ev[s] : NULL;
    return run(&j, par, err, err_len);
}

int cuzk_pce_evaluate(const cuzk_pce *p, cuzk_cs *cs, cuzk_par *par, char *err, size_t err_len)
{
    if (!p || !cs) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce evaluate: NULL argument");
    if (cs->mode != CUZK_CS_WITNESS || !cs->finished || cs->status || cs->matrices)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "pce evaluate: needs a finished WITNESS-mode system without matrices");
    const cuzk_pce_info *in = &p->info;
    if (cs->n_constraints != in->constraints || cs->n_inputs != in->inputs || cs->n_aux != in->aux)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "pce evaluate: the circuit has %zu constraints, %zu inputs, %zu aux; the file '%s' "
                         "recorded %zu, %zu, %zu",
                         cs->n_constraints, cs->n_inputs, cs->n_aux, in->identity.id, in->constraints,
                         in->inputs, in->aux);
    size_t n = in->constraints;
    cuzk_fr *ev[3] = {NULL, NULL, NULL};
    uint64_t *maps[3] = {NULL, NULL, NULL};
    int st = CUZK_OK;
    for (int s = 0; s < 3; s++)
        if (!(ev[s] = malloc(n * sizeof(cuzk_fr)))) st = CUZK_ERR_NOMEM;
    if (st) cuzk_errf(err, err_len, st, "pce evaluate: out of memory for %zu evaluations", n);
    if (!st) st = cuzk_pce_density_for(p, cs, maps, err, err_len);
    if (!st) st = cuzk_pce_matvec(p, cs->inp, cs->aux, ev, par, err, err_len);
    if (st) {
        for (int s = 0; s < 3; s++) {
            free(ev[s]);
            free(maps[s]);
        }
        return st;
    }
    for (int s = 0; s < 3; s++) {
        free(cs->ev[s]);
        cs->ev[s] = ev[s];
    }
    cs->ev_cap = n;
    cuzk_pce_set_structure(p, cs, maps);
    cs->mode = CUZK_CS_PROVE;
    cs->evals = true;
    return CUZK_OK;
}

void cuzk_pce_set_structure(const cuzk_pce *p, cuzk_cs *cs, uint64_t *maps[3])
{
    free(cs->d_a_aux);
    free(cs->d_b_inp);
    free(cs->d_b_aux);
    cs->d_a_aux = maps[0];
    cs->d_b_inp = maps[1];
    cs->d_b_aux = maps[2];
    for (int s = 0; s < 3; s++)
        cs->nnz[s] = p->info.nnz[s];
    cs->structure = true;
}
