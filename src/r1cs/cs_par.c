/* Constraint system: one circuit's repeated items synthesized by several
 * threads, with the R1CS of sequential synthesis bit for bit
 * (cuzk_cs_synthesize_items, cuzk/r1cs.h).
 *
 * Why this shape: every Filecoin circuit is a small header followed by n
 * items of one shape (PoRep and SnapDeals challenges, PoSt sectors), and
 * bellperson numbers variables and rows in allocation order.  If every
 * item allocates the same number of inputs and aux and enforces the same
 * number of rows, item i's numbering starts at header + i * per-item
 * counts, known before it runs.  So the items are cut into chunks; each
 * chunk runs on a "child" cs that starts its numbering there and writes
 * assignments, evaluations and density straight into the parent's arrays,
 * reserved once to the final size (no copy, no second buffer: a 32 GiB
 * PoRep partition is 16 GB of them).  Density words that straddle two
 * chunks, or hold header variables that many chunks reference, are set
 * with an atomic OR; the rest with a plain one.  Nonzero counts, CSR rows
 * (kept per chunk, appended in order) and CHECK's first unsatisfied row
 * are merged at the join, in chunk order; so is the first error.
 *
 * The per-item counts come from a pilot: item 0 run once on a count-only
 * system (no values, no density, no rows kept: about a third of an item's
 * SHAPE cost), which the real chunks then must match (a chunk that
 * outgrows its share fails; one that falls short is caught at the join).
 * Threads come from the caller's cuzk_par; nothing here creates one. */
#include <stdlib.h>
#include <string.h>

#include "r1cs/cs_internal.h"

typedef struct {
    size_t inputs, aux, rows;
} per_item;

int cuzk_cs_set_par(cuzk_cs *cs, cuzk_par *par, size_t chunks)
{
    if (!cs) return CUZK_ERR_ARG;
    if (cs->status) return cs->status;
    if (par && cs->row_fn)
        return cuzk_cs_fail(cs, CUZK_ERR_ARG,
                       "set_par: a row observer is set; rows are observed in order, "
                       "so a recorded system is synthesized sequentially");
    cs->par = par;
    cs->par_chunks = chunks;
    return CUZK_OK;
}

static const char *items_what(const cuzk_cs_items *it)
{
    return it->what ? it->what : "item";
}

/* Items [first, first + count) on cs with one scratch. */
static int run_items(cuzk_cs *cs, const cuzk_cs_items *it, size_t first, size_t count)
{
    void *scratch = NULL;
    if (it->scratch_new && !(scratch = it->scratch_new(it->ctx)))
        return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "%s: no memory for the synthesis scratch", items_what(it));
    for (size_t i = first; i < first + count && !cs->status; i++) {
        int rc = it->item(cs, it->ctx, scratch, i);
        if (rc && !cs->status)
            cuzk_cs_fail(cs, rc, "%s %zu returned %d (%s)", items_what(it), i, rc, cuzk_strerror(rc));
    }
    if (it->scratch_free) it->scratch_free(scratch);
    return cs->status;
}

/* The counts of one item: item 0 on a count-only system that sees the
 * header's variables.  Nothing is allocated per variable (no values, no
 * structure), so the capacities are unbounded. */
static int pilot(const cuzk_cs *cs, const cuzk_cs_items *it, per_item *out)
{
    cuzk_cs *p;
    int rc = cuzk_cs_new(&p, CUZK_CS_SHAPE, 0);
    if (rc) return rc;
    p->structure = false;
    p->n_inputs = cs->n_inputs;
    p->n_aux = cs->n_aux;
    p->n_constraints = cs->n_constraints;
    p->inputs_cap = p->aux_cap = SIZE_MAX;
    rc = run_items(p, it, 0, 1);
    out->inputs = p->n_inputs - cs->n_inputs;
    out->aux = p->n_aux - cs->n_aux;
    out->rows = p->n_constraints - cs->n_constraints;
    cuzk_cs_free(p);
    return rc;
}

typedef struct {
    cuzk_cs *parent;
    const cuzk_cs_items *it;
    per_item per;
    size_t n_chunks;
    size_t hdr_inputs, hdr_aux, hdr_rows; /* the parent's counts at the fork */
    cuzk_cs **child;
} par_job;

static void chunk_range(const par_job *j, size_t k, size_t *first, size_t *count)
{
    size_t q = j->it->n / j->n_chunks, r = j->it->n % j->n_chunks;
    *first = k * q + (k < r ? k : r);
    *count = q + (k < r);
}

/* Density words of [lo, hi) that no other chunk can touch. */
static void own_words(cuzk_cs *c, int side, size_t lo, size_t hi)
{
    size_t wlo = (lo + 63) / 64, whi = hi / 64;
    c->dw_lo[side] = wlo;
    c->dw_n[side] = whi > wlo ? whi - wlo : 0;
}

static cuzk_cs *child_new(const par_job *j, size_t k)
{
    const cuzk_cs *p = j->parent;
    cuzk_cs *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    size_t first, count;
    chunk_range(j, k, &first, &count);
    c->mode = p->mode, c->flags = p->flags, c->values = p->values, c->evals = p->evals;
    c->structure = p->structure, c->check = p->check, c->matrices = p->matrices;
    c->presence = p->presence, c->names = p->names, c->minus_one = p->minus_one;
    c->child = true;
    c->inp = p->inp, c->aux = p->aux;
    c->d_a_aux = p->d_a_aux, c->d_b_aux = p->d_b_aux, c->d_b_inp = p->d_b_inp;
    for (int s = 0; s < 3; s++)
        c->ev[s] = p->ev[s];
    c->hdr_inputs = j->hdr_inputs, c->hdr_aux = j->hdr_aux;
    c->lo_inputs = c->n_inputs = j->hdr_inputs + first * j->per.inputs;
    c->lo_aux = c->n_aux = j->hdr_aux + first * j->per.aux;
    c->row_base = c->n_constraints = j->hdr_rows + first * j->per.rows;
    c->inputs_cap = c->lo_inputs + count * j->per.inputs;
    c->aux_cap = c->lo_aux + count * j->per.aux;
    c->ev_cap = c->row_base + count * j->per.rows;
    own_words(c, 0, c->lo_inputs, c->inputs_cap);
    own_words(c, 1, c->lo_aux, c->aux_cap);
    /* the same paths as sequentially; a failure stays in c->status (sticky),
     * which chunk_task checks */
    if (p->names && p->ns_len) cuzk_cs_push_namespace(c, p->ns);
    return c;
}

/* Frees a child without the arrays it borrowed. */
static void child_free(cuzk_cs *c)
{
    if (!c) return;
    c->inp = c->aux = NULL;
    c->d_a_aux = c->d_b_aux = c->d_b_inp = NULL;
    c->ev[0] = c->ev[1] = c->ev[2] = NULL;
    cuzk_cs_free(c);
}

static void chunk_task(void *arg, size_t k)
{
    par_job *j = arg;
    cuzk_cs *c = child_new(j, k);
    j->child[k] = c;
    if (!c || c->status) return;
    size_t first, count;
    chunk_range(j, k, &first, &count);
    if (run_items(c, j->it, first, count)) return;
    if (c->n_inputs != c->inputs_cap || c->n_aux != c->aux_cap || c->n_constraints != c->ev_cap)
        cuzk_cs_fail(c, CUZK_ERR_ARG,
                "%s %zu..%zu: parallel synthesis: %zu inputs, %zu aux, %zu constraints where the first "
                "item's shape gives %zu, %zu, %zu: the items are not all the same shape",
                items_what(j->it), first, first + count - 1, c->n_inputs - c->lo_inputs, c->n_aux - c->lo_aux,
                c->n_constraints - c->row_base, count * j->per.inputs, count * j->per.aux,
                count * j->per.rows);
}

/* Append src's rows (local row_ptr from 0) after dst's first drows rows. */
static int matrix_append(cs_matrix *d, size_t drows, const cs_matrix *s, size_t srows)
{
    if (!d->row_ptr) {
        if (cuzk_cs_grow((void **)&d->row_ptr, &d->rows_cap, 1, sizeof(size_t), false)) return CUZK_ERR_NOMEM;
        d->row_ptr[0] = 0;
    }
    if (!srows) return CUZK_OK;
    size_t base = d->row_ptr[drows], add = s->row_ptr[srows], c = d->cap;
    if (cuzk_cs_grow((void **)&d->row_ptr, &d->rows_cap, drows + srows + 1, sizeof(size_t), false) ||
        cuzk_cs_grow((void **)&d->col, &c, base + add, sizeof(uint32_t), false) ||
        cuzk_cs_grow((void **)&d->val, &d->cap, base + add, sizeof(cuzk_fr), false))
        return CUZK_ERR_NOMEM;
    memcpy(d->col + base, s->col, add * sizeof *d->col);
    memcpy(d->val + base, s->val, add * sizeof *d->val);
    for (size_t r = 0; r < srows; r++)
        d->row_ptr[drows + r + 1] = base + s->row_ptr[r + 1];
    return CUZK_OK;
}

/* Merge child k (error-free) into the parent, whose counts end at its end. */
static int merge_child(cuzk_cs *p, cuzk_cs *c)
{
    size_t rows = c->n_constraints - c->row_base;
    for (int s = 0; s < 3; s++) {
        p->nnz[s] += c->nnz[s];
        if (p->matrices && matrix_append(&p->m[s], p->n_constraints, &c->m[s], rows))
            return cuzk_cs_fail(p, CUZK_ERR_NOMEM, "parallel synthesis: cannot grow matrix %c", "ABC"[s]);
    }
    if (c->unsat && !p->unsat) {
        p->unsat = true;
        p->unsat_index = c->unsat_index;
        p->unsat_path = c->unsat_path;
        c->unsat_path = NULL;
    }
    p->n_inputs = c->n_inputs;
    p->n_aux = c->n_aux;
    p->n_constraints = c->n_constraints;
    return CUZK_OK;
}

/* The first chunk (in item order) that failed decides the error. */
static int join(par_job *j)
{
    cuzk_cs *p = j->parent;
    for (size_t k = 0; k < j->n_chunks; k++) {
        const cuzk_cs *c = j->child[k];
        if (!c) return cuzk_cs_fail(p, CUZK_ERR_NOMEM, "parallel synthesis: no memory for chunk %zu", k);
        if (c->status) return cuzk_cs_fail(p, c->status, "%s", c->msg);
    }
    for (size_t k = 0; k < j->n_chunks && !p->status; k++) {
        merge_child(p, j->child[k]);
        child_free(j->child[k]);
        j->child[k] = NULL;
    }
    return p->status;
}

/* Room for everything the items and cuzk_cs_finish will write. */
static int reserve_all(cuzk_cs *p, size_t n, const per_item *per)
{
    if ((per->inputs && n > (SIZE_MAX - p->n_inputs) / per->inputs) ||
        (per->aux && n > (SIZE_MAX - p->n_aux) / per->aux) ||
        (per->rows && n > (SIZE_MAX / 2 - p->n_constraints) / per->rows))
        return cuzk_cs_fail(p, CUZK_ERR_ARG, "parallel synthesis: %zu items overflow the counts", n);
    size_t in = p->n_inputs + n * per->inputs, aux = p->n_aux + n * per->aux;
    size_t rows = p->n_constraints + n * per->rows;
    if (cuzk_cs_grow_vars(p, false, in) || cuzk_cs_grow_vars(p, true, aux) || cuzk_cs_grow_evals(p, rows + in))
        return cuzk_cs_fail(p, CUZK_ERR_NOMEM, "parallel synthesis: cannot hold %zu inputs, %zu aux, %zu rows", in,
                       aux, rows + in);
    return CUZK_OK;
}

static size_t chunk_count(const cuzk_cs *cs, size_t n)
{
    if (!cs->par || cs->child) return 1;
    unsigned t = cuzk_par_threads(cs->par);
    size_t k = cs->par_chunks ? cs->par_chunks : t > 1 ? 4 * (size_t)t : 1;
    return k < n ? k : n;
}

static int synthesize_par(cuzk_cs *cs, const cuzk_cs_items *it, size_t chunks)
{
    par_job j = {.parent = cs, .it = it, .n_chunks = chunks};
    if (pilot(cs, it, &j.per)) return run_items(cs, it, 0, it->n); /* the sequential run says why */
    if (reserve_all(cs, it->n, &j.per)) return cs->status;
    j.hdr_inputs = cs->n_inputs, j.hdr_aux = cs->n_aux, j.hdr_rows = cs->n_constraints;
    j.child = calloc(chunks, sizeof *j.child);
    if (!j.child) return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "parallel synthesis: no memory for %zu chunks", chunks);
    cuzk_par_for(cs->par, chunk_task, &j, chunks);
    join(&j);
    for (size_t k = 0; k < chunks; k++)
        child_free(j.child[k]);
    free(j.child);
    return cs->status;
}

int cuzk_cs_synthesize_items(cuzk_cs *cs, const cuzk_cs_items *it)
{
    if (cs->status) return cs->status;
    if (!it || !it->item) return cuzk_cs_fail(cs, CUZK_ERR_ARG, "synthesize_items: no item function");
    if (cs->finished) return cuzk_cs_fail(cs, CUZK_ERR_ARG, "synthesize_items after cuzk_cs_finish");
    size_t chunks = chunk_count(cs, it->n);
    if (chunks < 2) return run_items(cs, it, 0, it->n);
    return synthesize_par(cs, it, chunks);
}
