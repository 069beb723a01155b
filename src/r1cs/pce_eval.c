/* PCE evaluation: a, b, c = A z, B z, C z from the recorded matrices and a
 * WITNESS-mode assignment, as a parallel sparse matrix-vector product over
 * chunks of constraints (checkpoints every PCE_CKPT_EVERY constraints), and
 * the conversion of the cs into the PROVE-mode form the prover consumes.
 *
 * Per entry the coefficient code picks the cheapest operation: zero is
 * skipped, +-1 is an add or a subtract, +-2, +-4, +-8 a doubling chain,
 * larger powers +-2^k a shift into an unreduced accumulator reduced once per
 * row (fr_acc.h: bit packing was a multiplication per bit), dictionary
 * values one Montgomery multiplication by the code's precomputed value; all
 * inlined (docs/perf-notes.md "PCE mat-vec").  Each task faults its output
 * rows in first.  Field
 * arithmetic is exact, so the sums equal PROVE mode's bit for bit
 * (canonical Montgomery forms).
 *
 * Every read is bounds-checked against its chunk (a verified file is still
 * not trusted): lengths, columns (< inputs or aux) and codes (< codes).
 * Each task decodes its chunk as a leaf under its own recovery point
 * (cuzk_map_guard_run: a file truncated under us stops the task, not the
 * process), and a failure in a file that is no longer the one opened is
 * reported as the change (CUZK_ERR_CHANGED), not as corruption. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuzk/mapguard.h"
#include "r1cs/cs_internal.h"
#include "r1cs/fr_acc.h"
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

#define WIDE_MIN_K 4 /* +-2^k below: doublings (k = 1..3) */

/* What the decoder reads for every entry, copied out of the job so that the
 * compiler keeps it in registers across the stores of the sums. */
typedef struct {
    const cuzk_fr *base[2]; /* values: inputs, aux (bit 31 of a column picks) */
    size_t lim[2];          /* their counts */
    size_t n_codes;
    const cuzk_fr *vals; /* code values */
    cuzk_fr c384;        /* 2^384 mod r, for fr_wide_reduce */
} eval_ctx;

/* One entry: its column and code, every field bounds-checked. */
static inline const char *decode_entry(const eval_ctx *x, const uint8_t **pp, const uint8_t *end,
                                       uint32_t *col, uint32_t *code)
{
    const uint8_t *p = *pp;
    if (end - p < 5) return "record entries run past their chunk";
    uint32_t c32 = pce_get32(p);
    p += 4;
    uint64_t c;
    if (pce_rd_varint(&p, end, &c)) return "coefficient code runs past its chunk";
    if (c >= x->n_codes) return "coefficient code beyond the dictionary";
    if ((c32 & ~PCE_COL_AUX) >= x->lim[c32 >> 31]) return "column beyond the recorded variables";
    *col = c32;
    *code = (uint32_t)c;
    *pp = p;
    return NULL;
}

/* decode_entry for a row whose bytes were counted: decode_lengths found 5
 * per entry, which holds while every code takes one byte, so only a longer
 * code checks again (left: entries of the row after this one). */
static inline __attribute__((always_inline)) const char *decode_fast(const eval_ctx *x, const uint8_t **pp,
                                                                     const uint8_t *end, uint64_t left,
                                                                     uint32_t *col, uint32_t *code)
{
    const uint8_t *p = *pp;
    uint32_t c32 = pce_get32(p);
    uint64_t c = p[4];
    p += 5;
    if (__builtin_expect(c >= 0x80, 0)) {
        p--;
        if (pce_rd_varint(&p, end, &c)) return "coefficient code runs past its chunk";
        if ((uint64_t)(end - p) / 5 < left) return "record entries run past their chunk";
    }
    if (c >= x->n_codes) return "coefficient code beyond the dictionary";
    if ((c32 & ~PCE_COL_AUX) >= x->lim[c32 >> 31]) return "column beyond the recorded variables";
    *col = c32;
    *code = (uint32_t)c;
    *pp = p;
    return NULL;
}

/* The n entries of one side of a row (rest: the row's entries after them),
 * decoded and summed into *out.  Per entry: code 0 is skipped, +-1 is an add or a subtract, +-2^k a doubling
 * chain below WIDE_MIN_K, else a shift into the lazy accumulator of its
 * 64-bit quarter (fr_acc.h), the rest (dictionary values) one Montgomery
 * multiplication by the code's value.  Each quarter used is reduced and
 * scaled by 2^(64 q) once, at the end (the doublings stay for small k: a
 * lone 2a, as in every SHA-256 xor, would pay that reduction for one term). */
static inline const char *sum_side(const eval_ctx *x, const uint8_t **pp, const uint8_t *end, uint64_t n,
                                   uint64_t rest, cuzk_fr *out)
{
    const char *why;
    if (n == 1 && (*pp)[4] == 1) { /* a lone +1 (every B of PoRep): a copy */
        uint32_t col, code;
        if ((why = decode_fast(x, pp, end, rest, &col, &code))) return why;
        *out = x->base[col >> 31][col & ~PCE_COL_AUX];
        return NULL;
    }
    cuzk_fr acc = CUZK_FR_ZERO, t;
    fr_wide wide[4];
    unsigned used = 0; /* quarters with a lazy sum */
    for (uint64_t e = 0; e < n; e++) {
        uint32_t col, code;
        if ((why = decode_fast(x, pp, end, n - e - 1 + rest, &col, &code))) return why;
        const cuzk_fr *z = x->base[col >> 31] + (col & ~PCE_COL_AUX);
        if (code <= 2) {
            if (code == 1)
                fr_acc_add(&acc, z);
            else if (code == 2)
                fr_acc_sub(&acc, z);
        } else if (code <= 2 * WIDE_MIN_K) { /* +-2^k, k < WIDE_MIN_K: doublings */
            t = *z;
            for (uint32_t c = 3; c <= code; c += 2)
                fr_acc_add(&t, &t);
            if (code & 1)
                fr_acc_add(&acc, &t);
            else
                fr_acc_sub(&acc, &t);
        } else if (code < PCE_CODE_DICT) {
            unsigned k = (code - 1) >> 1, q = k >> 6;
            if (!(used >> q & 1)) wide[q] = (fr_wide){{0, 0, 0, 0, 0, 0}};
            used |= 1u << q;
            fr_wide_add_shl(&wide[q], z, k & 63, ~code & 1);
        } else {
            cuzk_fr_mul_inl(&t, &x->vals[code], z);
            fr_acc_add(&acc, &t);
        }
    }
    for (unsigned q = 0; used; q++, used >>= 1) {
        if (!(used & 1)) continue;
        fr_wide_reduce(&t, &wide[q], &x->c384);
        if (q) cuzk_fr_mul_inl(&t, &t, &x->vals[1 + 128 * q]); /* code of +2^(64 q) */
        fr_acc_add(&acc, &t);
    }
    /* limb by limb: a 16-byte copy of acc would wait for its 8-byte stores
     * instead of forwarding them (non-temporal stores: slower into fresh
     * pages, docs/perf-notes.md "PCE mat-vec") */
    uint64_t l0 = acc.l[0], l1 = acc.l[1], l2 = acc.l[2], l3 = acc.l[3];
    __asm__("" : "+r"(l0), "+r"(l1), "+r"(l2), "+r"(l3));
    out->l[0] = l0;
    out->l[1] = l1;
    out->l[2] = l2;
    out->l[3] = l3;
    return NULL;
}

static inline const char *decode_lengths(const uint8_t **pp, const uint8_t *end, uint64_t n[3])
{
    for (int s = 0; s < 3; s++)
        if (pce_rd_varint(pp, end, &n[s])) return "record length runs past its chunk";
    uint64_t room = (uint64_t)(end - *pp) / 5;
    if (n[0] > room || n[1] > room - n[0] || n[2] > room - n[0] - n[1])
        return "record entries run past their chunk";
    return NULL;
}

/* Fault in the pages of ev[r0, r1) that lie wholly inside it with one call
 * (MADV_POPULATE_WRITE, Linux 5.14) instead of one page fault each in the
 * loop: less system time for fresh output memory, and no fault interrupts
 * the decoding (docs/perf-notes.md "PCE mat-vec").  Per task, so the
 * workers fault their own ranges in parallel; skipped where the first page
 * is resident already.  Best effort: an older kernel or a page size the
 * range does not fit leaves the pages to the loop. */
static void prefault_rows(cuzk_fr *ev, size_t r0, size_t r1)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)(ev + r0) + pg - 1) & ~(pg - 1), b = (uintptr_t)(ev + r1) & ~(pg - 1);
    unsigned char in_core = 0; /* written before (a reused buffer): populating costs, not pays */
    if (a < b && (mincore((void *)a, pg, &in_core) || !(in_core & 1)))
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
    (void)ev, (void)r0, (void)r1;
#endif
}

/* Decode and evaluate constraints [r0, r1) from bytes [p, end).  (Decoding
 * a batch of rows first and prefetching their values did not pay:
 * docs/perf-notes.md "PCE".) */
static const char *eval_range(const eval_job *j, const eval_ctx *x, size_t r0, size_t r1, const uint8_t *p,
                              const uint8_t *end, uint64_t nnz[3], size_t *bad)
{
    const char *why;
    for (int s = 0; s < 3; s++)
        if (j->ev[s]) prefault_rows(j->ev[s], r0, r1);
    for (size_t r = r0; r < r1; r++) {
        *bad = r;
        uint64_t n[3];
        if ((why = decode_lengths(&p, end, n))) return why;
        for (int s = 0; s < 3; s++) {
            if (j->ev[s]) {
                uint64_t rest = s == 0 ? n[1] + n[2] : s == 1 ? n[2] : 0;
                if ((why = sum_side(x, &p, end, n[s], rest, &j->ev[s][r]))) return why;
            } else { /* decode and check only */
                uint32_t col, code;
                for (uint64_t e = 0; e < n[s]; e++)
                    if ((why = decode_entry(x, &p, end, &col, &code))) return why;
            }
            nnz[s] += n[s];
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
    eval_ctx x = {{j->inp, j->aux}, {p->info.inputs, p->info.aux}, p->n_codes, p->code_val, {{0}}};
    fr_wide_c384(&x.c384);
    j->why[t] =
        eval_range(j, &x, r0, r1, p->rec + p->ckpt[c0], p->rec + p->ckpt[c1], j->nnz[t], &j->bad_row[t]);
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
    bool lent = cs->ev[0] && cs->ev[1] && cs->ev[2] && cs->ev_cap >= n; /* cuzk_cs_give_buffers */
    for (int s = 0; s < 3; s++)
        if (!(ev[s] = lent ? cs->ev[s] : malloc(n * sizeof(cuzk_fr)))) st = CUZK_ERR_NOMEM;
    if (st) cuzk_errf(err, err_len, st, "pce evaluate: out of memory for %zu evaluations", n);
    if (!st) st = cuzk_pce_density_for(p, cs, maps, err, err_len);
    if (!st) st = cuzk_pce_matvec(p, cs->inp, cs->aux, ev, par, err, err_len);
    if (st) {
        for (int s = 0; s < 3; s++) {
            if (!lent) free(ev[s]);
            free(maps[s]);
        }
        return st;
    }
    if (!lent) {
        for (int s = 0; s < 3; s++) {
            free(cs->ev[s]);
            cs->ev[s] = ev[s];
        }
        cs->ev_cap = n;
    }
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
