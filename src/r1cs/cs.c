/* Constraint system: synthesis (alloc, enforce, namespaces, finish).
 *
 * Hot path design (performance.md: bellperson spent a third of synthesis
 * allocating linear combinations): enforce never allocates.  Terms arrive
 * in caller arrays (a cs-owned builder measured 5-7 % slower); evaluation
 * runs over them as given (duplicates sum correctly), and only structure
 * tracking (density, nonzeros, CSR) needs merged terms.  Most linear
 * combinations are already strictly increasing in variable order, which is
 * checked in one pass; the rest are merged in a recycled scratch buffer.
 *
 * Coefficients are public circuit data, so branching on them (1, -1, ONE
 * fast paths) leaks nothing; witness values only go through the constant
 * time Fr add/sub/mul. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "r1cs/cs_internal.h"

static const char *const mode_names[] = {"prove", "witness", "shape", "check"};
static const char side_names[] = "ABC";

int cuzk_cs_fail(cuzk_cs *cs, int status, const char *fmt, ...)
{
    if (cs->status) return cs->status; /* keep the first error */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cs->msg, sizeof cs->msg, fmt, ap);
    va_end(ap);
    cs->status = status;
    return status;
}

int cuzk_cs_set_error(cuzk_cs *cs, int status, const char *fmt, ...)
{
    if (cs->status || !status) return cs->status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cs->msg, sizeof cs->msg, fmt, ap);
    va_end(ap);
    cs->status = status;
    return status;
}

int cuzk_cs_grow(void **p, size_t *cap, size_t need, size_t elem, bool zero)
{
    if (need <= *cap) return CUZK_OK;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return CUZK_ERR_NOMEM;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem) return CUZK_ERR_NOMEM;
    void *q = realloc(*p, ncap * elem);
    if (!q) return CUZK_ERR_NOMEM;
    if (zero) memset((char *)q + *cap * elem, 0, (ncap - *cap) * elem);
    *p = q;
    *cap = ncap;
    return CUZK_OK;
}

int cuzk_cs_new(cuzk_cs **out, cuzk_cs_mode mode, unsigned flags)
{
    if (!out) return CUZK_ERR_ARG;
    *out = NULL;
    if ((unsigned)mode > CUZK_CS_CHECK ||
        (flags & ~(CUZK_CS_MATRICES | CUZK_CS_DENSITY_PRESENCE | CUZK_CS_NAMES)))
        return CUZK_ERR_ARG;
    cuzk_cs *cs = calloc(1, sizeof *cs);
    if (!cs) return CUZK_ERR_NOMEM;
    cs->mode = mode;
    cs->flags = flags;
    cs->values = mode != CUZK_CS_SHAPE;
    cs->evals = mode == CUZK_CS_PROVE;
    cs->check = mode == CUZK_CS_CHECK;
    cs->matrices = (flags & CUZK_CS_MATRICES) != 0;
    cs->structure = mode == CUZK_CS_PROVE || mode == CUZK_CS_SHAPE || cs->matrices;
    cs->presence = (flags & CUZK_CS_DENSITY_PRESENCE) != 0;
    cs->names = cs->check && (flags & CUZK_CS_NAMES);
    cuzk_fr_neg(&cs->minus_one, &CUZK_FR_ONE);
    cs->dw_n[0] = cs->dw_n[1] = SIZE_MAX; /* every density word is this cs's own */
    cuzk_var one;
    int rc = cuzk_cs_alloc_input(cs, &one, &CUZK_FR_ONE);
    if (rc) {
        cuzk_cs_free(cs);
        return rc;
    }
    *out = cs;
    return CUZK_OK;
}

void cuzk_cs_free(cuzk_cs *cs)
{
    if (!cs) return;
    free(cs->inp);
    free(cs->aux);
    free(cs->d_a_aux);
    free(cs->d_b_aux);
    free(cs->d_b_inp);
    for (int k = 0; k < 3; k++) {
        free(cs->ev[k]);
        free(cs->m[k].row_ptr);
        free(cs->m[k].col);
        free(cs->m[k].val);
    }
    free(cs->scratch);
    free(cs->ns);
    free(cs->ns_marks);
    free(cs->unsat_path);
    free(cs);
}

cuzk_cs_mode cuzk_cs_get_mode(const cuzk_cs *cs) { return cs->mode; }
bool cuzk_cs_needs_values(const cuzk_cs *cs) { return cs->values; }
int cuzk_cs_status(const cuzk_cs *cs) { return cs->status; }
const char *cuzk_cs_error(const cuzk_cs *cs) { return cs->msg; }

/* Capacity of the per-variable arrays of one kind (inputs or aux): the
 * assignment (when values) and its density bitmaps (when structure).  The
 * capacity stays a multiple of 64 so that bitmaps are whole words.  A chunk
 * of a parallel synthesis borrows its parent's arrays: it never grows them. */
int cuzk_cs_grow_vars(cuzk_cs *cs, bool aux, size_t need)
{
    size_t *cap = aux ? &cs->aux_cap : &cs->inputs_cap;
    if (need <= *cap) return CUZK_OK;
    if (cs->child) return CUZK_ERR_ARG;
    size_t ncap = *cap ? *cap : 1024;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 4) return CUZK_ERR_NOMEM;
        ncap *= 2;
    }
    size_t c;
    if (cs->values) {
        c = *cap;
        if (cuzk_cs_grow((void **)(aux ? &cs->aux : &cs->inp), &c, ncap, sizeof(cuzk_fr), false))
            return CUZK_ERR_NOMEM;
    }
    if (cs->structure) {
        size_t w_old = *cap / 64, w_new = ncap / 64;
        uint64_t **maps[2] = {aux ? &cs->d_a_aux : &cs->d_b_inp, aux ? &cs->d_b_aux : NULL};
        for (int i = 0; i < 2; i++) {
            if (!maps[i]) continue;
            c = w_old;
            if (cuzk_cs_grow((void **)maps[i], &c, w_new, sizeof(uint64_t), true)) return CUZK_ERR_NOMEM;
        }
    }
    /* cuzk_cs_grow may round above ncap; every array holds at least ncap */
    *cap = ncap;
    return CUZK_OK;
}

int cuzk_cs_grow_evals(cuzk_cs *cs, size_t rows)
{
    if (!cs->evals || rows <= cs->ev_cap) return CUZK_OK;
    if (cs->child) return CUZK_ERR_ARG;
    size_t cap = cs->ev_cap;
    for (int k = 0; k < 3; k++) {
        cap = cs->ev_cap;
        if (cuzk_cs_grow((void **)&cs->ev[k], &cap, rows, sizeof(cuzk_fr), false)) return CUZK_ERR_NOMEM;
    }
    cs->ev_cap = cap;
    return CUZK_OK;
}

int cuzk_cs_reserve(cuzk_cs *cs, size_t constraints, size_t inputs, size_t aux)
{
    if (cs->status) return cs->status;
    if (cuzk_cs_grow_vars(cs, false, inputs) || cuzk_cs_grow_vars(cs, true, aux))
        return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "reserve: cannot hold %zu inputs and %zu aux", inputs, aux);
    if (cuzk_cs_grow_evals(cs, constraints))
        return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "reserve: cannot hold %zu evaluations", constraints);
    return CUZK_OK;
}

static int alloc_var(cuzk_cs *cs, bool aux, cuzk_var *var, const cuzk_fr *value)
{
    if (cs->status) return cs->status;
    size_t *n = aux ? &cs->n_aux : &cs->n_inputs;
    const char *what = aux ? "alloc" : "alloc_input";
    if (!var) return cuzk_cs_fail(cs, CUZK_ERR_ARG, "%s: var is NULL", what);
    if (cs->finished) return cuzk_cs_fail(cs, CUZK_ERR_ARG, "%s after cuzk_cs_finish", what);
    if (cs->values && !value)
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "%s of %s %zu: value is NULL but %s mode needs values",
                       what, aux ? "aux" : "input", *n, mode_names[cs->mode]);
    if (*n >= (cs->matrices ? (size_t)CSR_MAX_INDEX : (size_t)~CUZK_VAR_AUX))
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "%s: too many variables (%zu)", what, *n);
    if (*n == (aux ? cs->aux_cap : cs->inputs_cap) && cuzk_cs_grow_vars(cs, aux, *n + 1)) {
        if (cs->child)
            return cuzk_cs_fail(cs, CUZK_ERR_ARG, "%s: parallel synthesis: this chunk needs more %s than its "
                           "items' share (%zu): the items are not all the same shape", what,
                           aux ? "aux" : "inputs", *n - (aux ? cs->lo_aux : cs->lo_inputs));
        return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "%s: cannot grow to %zu variables", what, *n + 1);
    }
    if (cs->values) (aux ? cs->aux : cs->inp)[*n] = *value;
    *var = (aux ? CUZK_VAR_AUX : 0) | (cuzk_var)*n;
    (*n)++;
    return CUZK_OK;
}

int cuzk_cs_alloc(cuzk_cs *cs, cuzk_var *var, const cuzk_fr *value)
{
    return alloc_var(cs, true, var, value);
}

int cuzk_cs_alloc_input(cuzk_cs *cs, cuzk_var *var, const cuzk_fr *value)
{
    return alloc_var(cs, false, var, value);
}

const cuzk_fr *cuzk_cs_value(const cuzk_cs *cs, cuzk_var v)
{
    if (!cs->values) return NULL;
    size_t i = CUZK_VAR_INDEX(v);
    if (CUZK_VAR_IS_AUX(v)) return cs_var_visible(i, cs->n_aux, cs->lo_aux, cs->hdr_aux) ? &cs->aux[i] : NULL;
    return cs_var_visible(i, cs->n_inputs, cs->lo_inputs, cs->hdr_inputs) ? &cs->inp[i] : NULL;
}

/* ---- enforce ------------------------------------------------------------- */

static inline bool fr_same(const cuzk_fr *a, const cuzk_fr *b)
{
    return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) |
            (a->l[3] ^ b->l[3])) == 0;
}

static inline bool fr_zero(const cuzk_fr *a) { return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0; }

static int check_vars(cuzk_cs *cs, int side, const cuzk_term *t, size_t n)
{
    size_t ni = cs->n_inputs, na = cs->n_aux;
    for (size_t i = 0; i < n; i++) {
        cuzk_var v = t[i].var;
        size_t idx = CUZK_VAR_INDEX(v);
        if (CUZK_VAR_IS_AUX(v) ? !cs_var_visible(idx, na, cs->lo_aux, cs->hdr_aux)
                               : !cs_var_visible(idx, ni, cs->lo_inputs, cs->hdr_inputs))
            return cuzk_cs_fail(cs, CUZK_ERR_ARG,
                           "enforce (constraint %zu): %c term %zu refers to %s %zu, but only %zu exist%s",
                           cs->n_constraints, side_names[side], i, CUZK_VAR_IS_AUX(v) ? "aux" : "input",
                           idx, CUZK_VAR_IS_AUX(v) ? na : ni,
                           cs->child ? " (or it belongs to another item of a parallel synthesis)" : "");
    }
    return CUZK_OK;
}

/* out = <t, z>.  The first term is assigned rather than added to zero, and
 * the coefficients 1 and -1 and the variable ONE skip the multiplication:
 * most terms of real circuits are one of these. */
static inline void term_value(const cuzk_cs *cs, cuzk_fr *out, const cuzk_term *t)
{
    cuzk_var v = t->var;
    if (v == CUZK_ONE) { /* z_0 = 1 */
        *out = t->coeff;
        return;
    }
    const cuzk_fr *z = CUZK_VAR_IS_AUX(v) ? &cs->aux[CUZK_VAR_INDEX(v)] : &cs->inp[v];
    if (fr_same(&t->coeff, &CUZK_FR_ONE)) *out = *z;
    else if (fr_same(&t->coeff, &cs->minus_one)) cuzk_fr_neg(out, z);
    else cuzk_fr_mul(out, &t->coeff, z);
}

static void lc_eval(const cuzk_cs *cs, cuzk_fr *out, const cuzk_term *t, size_t n)
{
    if (!n) {
        *out = CUZK_FR_ZERO;
        return;
    }
    cuzk_fr acc, tmp;
    term_value(cs, &acc, &t[0]);
    for (size_t i = 1; i < n; i++) {
        const cuzk_fr *c = &t[i].coeff;
        cuzk_var v = t[i].var;
        if (v == CUZK_ONE) {
            cuzk_fr_add(&acc, &acc, c);
            continue;
        }
        const cuzk_fr *z = CUZK_VAR_IS_AUX(v) ? &cs->aux[CUZK_VAR_INDEX(v)] : &cs->inp[v];
        if (fr_same(c, &CUZK_FR_ONE)) {
            cuzk_fr_add(&acc, &acc, z);
        } else if (fr_same(c, &cs->minus_one)) {
            cuzk_fr_sub(&acc, &acc, z);
        } else {
            cuzk_fr_mul(&tmp, c, z);
            cuzk_fr_add(&acc, &acc, &tmp);
        }
    }
    *out = acc;
}

/* s[0, n) sorted by variable, tmp[0, n) scratch: a natural merge sort.  The
 * long combinations are sums of u32 words (SHA-256's additions), a few
 * increasing runs of bit variables each, so they take log2(runs) passes;
 * glibc's qsort (a merge sort through a comparison callback) was 25 % of a
 * SHAPE synthesis (docs/perf-notes.md "Synthesis: sorting long
 * combinations"). */
static void terms_sort(cuzk_term *s, cuzk_term *tmp, size_t n)
{
    cuzk_term *src = s, *dst = tmp;
    for (;;) {
        size_t i = 0;
        while (i < n) {
            size_t b = i + 1;
            while (b < n && src[b - 1].var <= src[b].var) b++;
            if (i == 0 && b == n) goto sorted; /* one run: done */
            size_t c = b < n ? b + 1 : n;
            while (c < n && src[c - 1].var <= src[c].var) c++;
            size_t x = i, y = b, k = i; /* merge [i, b) and [b, c) into dst */
            while (x < b && y < c) dst[k++] = src[y].var < src[x].var ? src[y++] : src[x++];
            while (x < b) dst[k++] = src[x++];
            while (y < c) dst[k++] = src[y++];
            i = c;
        }
        cuzk_term *t = src;
        src = dst;
        dst = t;
    }
sorted:
    if (src != s) memcpy(s, src, n * sizeof *s);
}

/* Sorted, merged copy of t in cs->scratch (2 n terms: the second half is
 * the sort's); returns its length. */
static size_t lc_merge(cuzk_cs *cs, const cuzk_term *t, size_t n)
{
    cuzk_term *s = cs->scratch;
    memcpy(s, t, n * sizeof *t);
    if (n <= 32) {
        for (size_t i = 1; i < n; i++) {
            cuzk_term x = s[i];
            size_t j = i;
            for (; j > 0 && s[j - 1].var > x.var; j--) s[j] = s[j - 1];
            s[j] = x;
        }
    } else {
        terms_sort(s, s + n, n);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && s[m - 1].var == s[i].var) cuzk_fr_add(&s[m - 1].coeff, &s[m - 1].coeff, &s[i].coeff);
        else s[m++] = s[i];
    }
    return m;
}

/* Density, nonzeros and CSR row for one side. */
static int lc_structure(cuzk_cs *cs, int side, const cuzk_term *t, size_t n)
{
    bool sorted = true;
    for (size_t i = 1; i < n; i++)
        if (t[i].var <= t[i - 1].var) {
            sorted = false;
            break;
        }
    bool unique = sorted;
    if (!sorted && !cs->matrices && !cs->row_fn && n <= 8) {
        unique = true;
        for (size_t i = 1; i < n && unique; i++)
            for (size_t j = 0; j < i; j++)
                if (t[i].var == t[j].var) {
                    unique = false;
                    break;
                }
    }
    bool need_sorted = cs->matrices || cs->row_fn;
    if (!unique || (need_sorted && !sorted)) {
        if (2 * n > cs->scratch_cap &&
            cuzk_cs_grow((void **)&cs->scratch, &cs->scratch_cap, 2 * n, sizeof *t, false))
            return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "enforce: cannot merge %zu terms", n);
        n = lc_merge(cs, t, n);
        t = cs->scratch;
    }
    cs->nnz[side] += n;
    if (cs->row_fn) {
        int rc = cs->row_fn(cs->row_ctx, cs->n_constraints, side, t, n);
        if (rc) return cuzk_cs_fail(cs, rc, "row observer failed at constraint %zu (%c)", cs->n_constraints,
                               side_names[side]);
    }
    if (side != 2) {
        bool presence = cs->presence;
        for (size_t i = 0; i < n; i++) {
            cuzk_var v = t[i].var;
            if (!presence && fr_zero(&t[i].coeff)) continue;
            if (CUZK_VAR_IS_AUX(v)) cs_density_set(cs, side == 0 ? cs->d_a_aux : cs->d_b_aux, 1, CUZK_VAR_INDEX(v));
            else if (side == 1) cs_density_set(cs, cs->d_b_inp, 0, v);
        }
    }
    if (cs->matrices) {
        cs_matrix *m = &cs->m[side];
        size_t row = cs->n_constraints - cs->row_base, base = m->row_ptr[row];
        if (cuzk_cs_grow((void **)&m->row_ptr, &m->rows_cap, row + 2, sizeof(size_t), false))
            return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "enforce: cannot grow matrix %c rows", side_names[side]);
        size_t c = m->cap;
        if (cuzk_cs_grow((void **)&m->col, &c, base + n, sizeof(uint32_t), false) ||
            cuzk_cs_grow((void **)&m->val, &m->cap, base + n, sizeof(cuzk_fr), false))
            return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "enforce: cannot grow matrix %c to %zu entries",
                           side_names[side], base + n);
        for (size_t i = 0; i < n; i++) {
            cuzk_var v = t[i].var;
            m->col[base + i] = CUZK_VAR_IS_AUX(v) ? CSR_AUX | (uint32_t)CUZK_VAR_INDEX(v) : (uint32_t)v;
            m->val[base + i] = t[i].coeff;
        }
        m->row_ptr[row + 1] = base + n;
    }
    return CUZK_OK;
}

static int enforce_core(cuzk_cs *cs, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                        const cuzk_term *c, size_t nc)
{
    const cuzk_term *t[3] = {a, b, c};
    size_t n[3] = {na, nb, nc};
    for (int k = 0; k < 3; k++) {
        if (n[k] && !t[k]) return cuzk_cs_fail(cs, CUZK_ERR_ARG, "enforce: %c has %zu terms but is NULL",
                                          side_names[k], n[k]);
        if (check_vars(cs, k, t[k], n[k])) return cs->status;
    }
    size_t row = cs->n_constraints;
    if (cs->evals && row == cs->ev_cap && cuzk_cs_grow_evals(cs, row + 1)) {
        if (cs->child)
            return cuzk_cs_fail(cs, CUZK_ERR_ARG, "enforce: parallel synthesis: this chunk needs more constraints "
                           "than its items' share (%zu): the items are not all the same shape",
                           row - cs->row_base);
        return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "enforce: cannot grow evaluations to %zu", row + 1);
    }
    if (cs->matrices && !cs->m[0].row_ptr) {
        for (int k = 0; k < 3; k++) {
            if (cuzk_cs_grow((void **)&cs->m[k].row_ptr, &cs->m[k].rows_cap, 2, sizeof(size_t), false))
                return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "enforce: cannot allocate matrix rows");
            cs->m[k].row_ptr[0] = 0;
        }
    }
    if (cs->structure)
        for (int k = 0; k < 3; k++)
            if (lc_structure(cs, k, t[k], n[k])) return cs->status;
    if (cs->evals) {
        for (int k = 0; k < 3; k++) lc_eval(cs, &cs->ev[k][row], t[k], n[k]);
    } else if (cs->check && !cs->unsat) {
        cuzk_fr e[3];
        for (int k = 0; k < 3; k++) lc_eval(cs, &e[k], t[k], n[k]);
        cuzk_fr_mul(&e[0], &e[0], &e[1]);
        if (!cuzk_fr_eq(&e[0], &e[2])) {
            cs->unsat = true;
            cs->unsat_index = row;
            const char *p = cs->ns ? cs->ns : "";
            cs->unsat_path = malloc(strlen(p) + 1);
            if (!cs->unsat_path) return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "check: cannot record the path");
            strcpy(cs->unsat_path, p);
        }
    }
    cs->n_constraints = row + 1;
    return CUZK_OK;
}

int cuzk_cs_set_row_observer(cuzk_cs *cs, cuzk_cs_row_fn fn, void *ctx)
{
    if (!cs) return CUZK_ERR_ARG;
    if (cs->status) return cs->status;
    if (!cs->structure)
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "row observer needs PROVE or SHAPE mode or CUZK_CS_MATRICES");
    if (cs->n_constraints)
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "row observer must be set before the first constraint");
    if (cs->par)
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "row observer: not available with parallel synthesis "
                       "(cuzk_cs_set_par): rows are observed in order, so record sequentially");
    cs->row_fn = fn;
    cs->row_ctx = ctx;
    return CUZK_OK;
}

int cuzk_cs_enforce(cuzk_cs *cs, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                    const cuzk_term *c, size_t nc)
{
    if (cs->status) return cs->status;
    if (cs->finished) return cuzk_cs_fail(cs, CUZK_ERR_ARG, "enforce after cuzk_cs_finish");
    return enforce_core(cs, a, na, b, nb, c, nc);
}

/* ---- namespaces ------------------------------------------------------------ */

int cuzk_cs_push_namespace(cuzk_cs *cs, const char *name)
{
    if (cs->status) return cs->status;
    if (!cs->names) {
        cs->ns_depth++;
        return CUZK_OK;
    }
    if (!name) name = "";
    size_t len = strlen(name), need = cs->ns_len + len + 2;
    if (cuzk_cs_grow((void **)&cs->ns, &cs->ns_cap, need, 1, false) ||
        cuzk_cs_grow((void **)&cs->ns_marks, &cs->ns_marks_cap, cs->ns_depth + 1, sizeof(size_t), false))
        return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "push_namespace: out of memory");
    cs->ns_marks[cs->ns_depth++] = cs->ns_len;
    if (cs->ns_len) cs->ns[cs->ns_len++] = '/';
    memcpy(cs->ns + cs->ns_len, name, len + 1);
    cs->ns_len += len;
    return CUZK_OK;
}

void cuzk_cs_pop_namespace(cuzk_cs *cs)
{
    if (!cs->ns_depth) return; /* unbalanced pop: ignored, like an empty stack */
    cs->ns_depth--;
    if (cs->names) {
        cs->ns_len = cs->ns_marks[cs->ns_depth];
        cs->ns[cs->ns_len] = 0;
    }
}

/* ---- finish ---------------------------------------------------------------- */

int cuzk_cs_finish(cuzk_cs *cs)
{
    if (cs->status || cs->finished) return cs->status;
    /* bellperson: input_i * 0 = 0 for every input, so A is input-dense */
    for (size_t i = 0; i < cs->n_inputs; i++) {
        cuzk_term t = {.var = (cuzk_var)i, .coeff = CUZK_FR_ONE};
        if (enforce_core(cs, &t, 1, NULL, 0, NULL, 0)) return cs->status;
    }
    cs->finished = true;
    if (cs->matrices) {
        if (cs->n_inputs + cs->n_aux > (size_t)UINT32_MAX)
            return cuzk_cs_fail(cs, CUZK_ERR_ARG, "matrices: %zu variables do not fit 32-bit columns",
                           cs->n_inputs + cs->n_aux);
        uint32_t off = (uint32_t)cs->n_inputs;
        for (int k = 0; k < 3; k++) {
            cs_matrix *m = &cs->m[k];
            size_t nnz = m->row_ptr ? m->row_ptr[cs->n_constraints] : 0;
            for (size_t i = 0; i < nnz; i++)
                if (m->col[i] & CSR_AUX) m->col[i] = (m->col[i] & CSR_MAX_INDEX) + off;
        }
    }
    return CUZK_OK;
}

int cuzk_cs_synthesize(cuzk_cs *cs, cuzk_circuit_fn fn, void *ctx)
{
    if (!fn) return cuzk_cs_fail(cs, CUZK_ERR_ARG, "synthesize: circuit function is NULL");
    int rc = fn(cs, ctx);
    if (cs->status) return cs->status;
    if (rc) return cuzk_cs_fail(cs, rc, "circuit returned %d (%s)", rc, cuzk_strerror(rc));
    return cuzk_cs_finish(cs);
}
