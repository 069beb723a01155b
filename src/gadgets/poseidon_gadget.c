/* neptune's legacy Poseidon circuit (circuit.rs `poseidon_hash`), the one
 * Filecoin's trusted setups were made with.
 *
 * neptune tracks each state element as either an allocated variable or a
 * linear combination (Elt::Num), multiplies the state by the optimized
 * matrices symbolically, and allocates a linear combination only when an
 * S-box needs it ("ensure_allocated": one constraint LC * ONE = v).  The
 * linear structure depends only on the constants, never on the witness or
 * the variables, so we run that symbolic computation once per arity into a
 * template whose terms name "slots" (0 = ONE, 1..n = the preimage, then one
 * slot per allocation in order) and synthesis just maps slots to variables.
 * Every constraint allocates exactly one variable right before it (that is
 * neptune's order), so constraint k allocates slot n + 1 + k.
 *
 * The only constant inside the tracked linear combinations is the domain
 * tag after the first S-box (computed natively, neptune's
 * constant_quintic_s_box_pre_add_tag); those ONE terms are stored both for
 * the MerkleTree tag and as a factor (beta) to rescale for other tags.
 *
 * Witness values come from the optimized native permutation run alongside,
 * which computes exactly the values neptune's Elt::Num carry.  In WITNESS
 * mode (the cs records no constraint) only those values are allocated and
 * the constraints counted, no terms are built. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets.h"
#include "cuzk/poseidon.h"
#include "cuzk/status.h"

#define MAX_SIDE 192 /* terms per side; checked when building */

typedef struct {
    size_t arity, t, ncons;
    size_t *off;       /* 3 * ncons + 1 offsets into terms (A, B, C per constraint) */
    cuzk_term *terms;  /* .var holds a slot number */
    size_t ntag;       /* ONE terms carrying the tag constant */
    size_t *tag_term;  /* index into terms */
    cuzk_fr *tag_beta; /* coefficient / tag constant */
    const cuzk_poseidon_constants *pc;
} ptemplate;

/* ---- template builder (symbolic neptune circuit) ------------------------ */
typedef struct {
    uint32_t *slot;
    cuzk_fr *coeff;
    size_t n, cap;
} lc_t;

typedef struct {
    bool allocated;
    uint32_t slot; /* if allocated */
    lc_t lc;       /* otherwise, sorted by slot, merged, zeros kept */
} elt_t;

typedef struct {
    ptemplate *tp;
    size_t nterms, cap_terms, cap_cons, next_slot;
    size_t ntag, cap_tag;
    int err;
} builder;

static int lc_reserve(lc_t *lc, size_t n)
{
    if (n <= lc->cap) return 0;
    size_t cap = lc->cap ? lc->cap * 2 : 16;
    while (cap < n)
        cap *= 2;
    uint32_t *s = realloc(lc->slot, cap * sizeof *s);
    if (!s) return -1;
    lc->slot = s;
    cuzk_fr *c = realloc(lc->coeff, cap * sizeof *c);
    if (!c) return -1;
    lc->coeff = c, lc->cap = cap;
    return 0;
}

/* acc += coeff * slot, merging like bellperson's Indexer (sum, keep zero). */
static int lc_add_term(lc_t *acc, uint32_t slot, const cuzk_fr *coeff)
{
    size_t lo = 0, hi = acc->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (acc->slot[mid] < slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < acc->n && acc->slot[lo] == slot) {
        cuzk_fr_add(&acc->coeff[lo], &acc->coeff[lo], coeff);
        return 0;
    }
    if (lc_reserve(acc, acc->n + 1)) return -1;
    memmove(acc->slot + lo + 1, acc->slot + lo, (acc->n - lo) * sizeof *acc->slot);
    memmove(acc->coeff + lo + 1, acc->coeff + lo, (acc->n - lo) * sizeof *acc->coeff);
    acc->slot[lo] = slot, acc->coeff[lo] = *coeff, acc->n++;
    return 0;
}

/* acc += s * e  (Elt::scale then Num::add). */
static int lc_add_scaled(lc_t *acc, const elt_t *e, const cuzk_fr *s)
{
    if (e->allocated) return lc_add_term(acc, e->slot, s);
    for (size_t i = 0; i < e->lc.n; i++) {
        cuzk_fr c;
        cuzk_fr_mul(&c, &e->lc.coeff[i], s);
        if (lc_add_term(acc, e->lc.slot[i], &c)) return -1;
    }
    return 0;
}

static int b_push_term(builder *b, uint32_t slot, const cuzk_fr *coeff)
{
    ptemplate *tp = b->tp;
    if (b->nterms == b->cap_terms) {
        size_t cap = b->cap_terms ? 2 * b->cap_terms : 1024;
        cuzk_term *t = realloc(tp->terms, cap * sizeof *t);
        if (!t) return -1;
        tp->terms = t, b->cap_terms = cap;
    }
    tp->terms[b->nterms].var = slot;
    tp->terms[b->nterms].coeff = *coeff;
    b->nterms++;
    return 0;
}

/* Start constraint: allocate its slot; returns the slot. */
static uint32_t b_begin(builder *b)
{
    ptemplate *tp = b->tp;
    if (tp->ncons + 1 >= b->cap_cons) {
        size_t cap = b->cap_cons ? 2 * b->cap_cons : 512;
        size_t *o = realloc(tp->off, (3 * cap + 1) * sizeof *o);
        if (!o) {
            b->err = 1;
            return 0;
        }
        tp->off = o, b->cap_cons = cap;
    }
    tp->off[3 * tp->ncons] = b->nterms;
    return (uint32_t)b->next_slot++;
}

static void b_side_end(builder *b, int side)
{
    ptemplate *tp = b->tp;
    if (b->err) return; /* off may not have room after a failed realloc */
    size_t start = tp->off[3 * tp->ncons + (size_t)side];
    if (b->nterms - start > MAX_SIDE) b->err = 1;
    if (side < 2)
        tp->off[3 * tp->ncons + (size_t)side + 1] = b->nterms;
    else
        tp->ncons++;
}

static int b_tag(builder *b, size_t term, const cuzk_fr *beta)
{
    ptemplate *tp = b->tp;
    if (b->ntag == b->cap_tag) {
        size_t cap = b->cap_tag ? 2 * b->cap_tag : 64;
        size_t *i = realloc(tp->tag_term, cap * sizeof *i);
        if (!i) return -1;
        tp->tag_term = i;
        cuzk_fr *f = realloc(tp->tag_beta, cap * sizeof *f);
        if (!f) return -1;
        tp->tag_beta = f, b->cap_tag = cap;
    }
    tp->tag_term[b->ntag] = term, tp->tag_beta[b->ntag] = *beta, b->ntag++;
    tp->ntag = b->ntag;
    return 0;
}

/* ensure_allocated(enforce = true): LC * ONE = v.  c_tag scales the ONE
 * terms (symbolic value 1 = beta). */
static uint32_t b_ensure(builder *b, elt_t *e, const cuzk_fr *c_tag)
{
    if (e->allocated) return e->slot;
    uint32_t s = b_begin(b);
    for (size_t i = 0; i < e->lc.n && !b->err; i++) {
        if (e->lc.slot[i] == 0) {
            cuzk_fr c;
            cuzk_fr_mul(&c, &e->lc.coeff[i], c_tag);
            if (b_tag(b, b->nterms, &e->lc.coeff[i]) || b_push_term(b, 0, &c)) b->err = 1;
        } else if (b_push_term(b, e->lc.slot[i], &e->lc.coeff[i])) {
            b->err = 1;
        }
    }
    b_side_end(b, 0);
    if (b_push_term(b, 0, &CUZK_FR_ONE)) b->err = 1;
    b_side_end(b, 1);
    if (b_push_term(b, s, &CUZK_FR_ONE)) b->err = 1;
    b_side_end(b, 2);
    e->allocated = true, e->slot = s, e->lc.n = 0;
    return s;
}

/* x * x = r, or with pre: (x + pre) * (x + pre) = r (square_sum).
 * Terms go in slot order (ONE first), which is variable order, so the cs
 * takes its sorted fast path; the order inside a side is not part of the
 * system (bellperson keeps linear combinations sorted too). */
static uint32_t b_square(builder *b, uint32_t x, const cuzk_fr *pre)
{
    uint32_t s = b_begin(b);
    for (int side = 0; side < 2; side++) {
        if (pre && b_push_term(b, 0, pre)) b->err = 1;
        if (b_push_term(b, x, &CUZK_FR_ONE)) b->err = 1;
        b_side_end(b, side);
    }
    if (b_push_term(b, s, &CUZK_FR_ONE)) b->err = 1;
    b_side_end(b, 2);
    return s;
}

/* mul_sum(a = l4, b = l, pre, post): (l + pre) * l4 = r - post. */
static uint32_t b_mul_sum(builder *b, uint32_t l4, uint32_t l, const cuzk_fr *pre, const cuzk_fr *post)
{
    uint32_t s = b_begin(b);
    if ((pre && b_push_term(b, 0, pre)) || b_push_term(b, l, &CUZK_FR_ONE)) b->err = 1;
    b_side_end(b, 0);
    if (b_push_term(b, l4, &CUZK_FR_ONE)) b->err = 1;
    b_side_end(b, 1);
    if (post) {
        cuzk_fr neg;
        cuzk_fr_neg(&neg, post);
        if (b_push_term(b, 0, &neg)) b->err = 1;
    }
    if (b_push_term(b, s, &CUZK_FR_ONE)) b->err = 1;
    b_side_end(b, 2);
    return s;
}

/* state = state x m (product_mds_with_matrix: column j = sum_i m[i][j] e_i) */
static int b_mat(elt_t *e, elt_t *tmp, const cuzk_fr *m, size_t t)
{
    for (size_t j = 0; j < t; j++) {
        tmp[j].allocated = false, tmp[j].lc.n = 0;
        for (size_t i = 0; i < t; i++)
            if (lc_add_scaled(&tmp[j].lc, &e[i], &m[i * t + j])) return -1;
    }
    for (size_t j = 0; j < t; j++) {
        elt_t x = e[j];
        e[j] = tmp[j], tmp[j] = x;
    }
    return 0;
}

/* product_mds_with_sparse_matrix: e0' = w_hat . e, ej' = ej + v_{j-1} e0. */
static int b_sparse(elt_t *e, elt_t *tmp, const cuzk_fr *sm, size_t t)
{
    const cuzk_fr *w_hat = sm, *v_rest = sm + t;
    tmp[0].allocated = false, tmp[0].lc.n = 0;
    for (size_t i = 0; i < t; i++)
        if (lc_add_scaled(&tmp[0].lc, &e[i], &w_hat[i])) return -1;
    for (size_t j = 1; j < t; j++) {
        /* Elt::add only accepts Nums: ej is a Num here (as in neptune). */
        if (e[j].allocated) return -1;
        if (lc_add_scaled(&e[j].lc, &e[0], &v_rest[j - 1])) return -1;
    }
    elt_t x = e[0];
    e[0] = tmp[0], tmp[0] = x;
    return 0;
}

/* One S-box as neptune's quintic_s_box (post may be NULL). */
static void b_sbox(builder *b, elt_t *e, const cuzk_fr *post, const cuzk_fr *c_tag)
{
    uint32_t l = b_ensure(b, e, c_tag);
    uint32_t l2 = b_square(b, l, NULL);
    uint32_t l4 = b_square(b, l2, NULL);
    uint32_t l5 = b_mul_sum(b, l4, l, NULL, post);
    e->allocated = true, e->slot = l5;
}

static int build(ptemplate *tp, size_t arity)
{
    int rc = cuzk_poseidon_constants_get(&tp->pc, arity);
    if (rc) return rc;
    const cuzk_poseidon_constants *pc = tp->pc;
    size_t t = pc->t, half = pc->full_rounds / 2, rp = pc->partial_rounds;
    tp->arity = arity, tp->t = t;
    builder b = {.tp = tp, .next_slot = arity + 1};
    elt_t e[CUZK_POSEIDON_MAX_WIDTH], tmp[CUZK_POSEIDON_MAX_WIDTH];
    memset(e, 0, sizeof e), memset(tmp, 0, sizeof tmp);
    const cuzk_fr *k = pc->compressed_round_constants;

    /* The tag constant after the first S-box, for the MerkleTree tag. */
    cuzk_fr c_tag, x2;
    cuzk_fr_add(&c_tag, &pc->merkle_tag, &k[0]);
    cuzk_fr_sqr(&x2, &c_tag), cuzk_fr_sqr(&x2, &x2), cuzk_fr_mul(&c_tag, &c_tag, &x2);
    cuzk_fr_add(&c_tag, &c_tag, &k[t]);

    /* Round 0: tag folded to a constant (symbolic 1 * ONE); the preimage is
     * allocated already, so square_sum with the pre-round key. */
    e[0].allocated = false;
    if (lc_add_term(&e[0].lc, 0, &CUZK_FR_ONE)) b.err = 1;
    for (size_t i = 1; i < t; i++) {
        uint32_t l = (uint32_t)i;
        uint32_t l2 = b_square(&b, l, &k[i]);
        uint32_t l4 = b_square(&b, l2, NULL);
        uint32_t l5 = b_mul_sum(&b, l4, l, &k[i], &k[t + i]);
        e[i].allocated = true, e[i].slot = l5;
    }
    k += 2 * t;
    if (b_mat(e, tmp, half == 1 ? pc->pre_sparse : pc->mds, t)) b.err = 1;
    for (size_t r = 1; r < half && !b.err; r++) {
        for (size_t i = 0; i < t; i++)
            b_sbox(&b, &e[i], &k[i], &c_tag);
        k += t;
        if (b_mat(e, tmp, r + 1 == half ? pc->pre_sparse : pc->mds, t)) b.err = 1;
    }
    for (size_t r = 0; r < rp && !b.err; r++) {
        b_sbox(&b, &e[0], &k[r], &c_tag);
        if (b_sparse(e, tmp, pc->sparse + r * (2 * t - 1), t)) b.err = 1;
    }
    k += rp;
    for (size_t r = 0; r < half && !b.err; r++) {
        bool last = r + 1 == half;
        for (size_t i = 0; i < t; i++)
            b_sbox(&b, &e[i], last ? NULL : &k[i], &c_tag);
        if (!last) k += t;
        if (b_mat(e, tmp, pc->mds, t)) b.err = 1;
    }
    if (!b.err) b_ensure(&b, &e[1], &c_tag); /* "hash result" */
    for (size_t i = 0; i < CUZK_POSEIDON_MAX_WIDTH; i++) {
        free(e[i].lc.slot), free(e[i].lc.coeff);
        free(tmp[i].lc.slot), free(tmp[i].lc.coeff);
    }
    if (!b.err) tp->off[3 * tp->ncons] = b.nterms;
    /* The count check guards the structure against a builder bug (it must
     * equal neptune's formula); either failure leaves no partial template. */
    if (b.err || tp->ncons != cuzk_poseidon_gadget_constraints(arity)) {
        free(tp->off), free(tp->terms), free(tp->tag_term), free(tp->tag_beta);
        memset(tp, 0, sizeof *tp);
        return b.err ? CUZK_ERR_NOMEM : CUZK_ERR_ARG;
    }
    return CUZK_OK;
}

/* ---- per-arity cache ---------------------------------------------------- */
static const size_t k_ar[] = {2, 4, 8, 11, 16, 24, 36};
#define N_AR (sizeof k_ar / sizeof k_ar[0])
static struct {
    pthread_once_t once;
    int status;
    ptemplate tp;
} g_tpl[N_AR] = {{PTHREAD_ONCE_INIT, 0, {0}}, {PTHREAD_ONCE_INIT, 0, {0}}, {PTHREAD_ONCE_INIT, 0, {0}},
                 {PTHREAD_ONCE_INIT, 0, {0}}, {PTHREAD_ONCE_INIT, 0, {0}}, {PTHREAD_ONCE_INIT, 0, {0}},
                 {PTHREAD_ONCE_INIT, 0, {0}}};

#define TPL_INIT(i)                                                                                          \
    static void tpl_init_##i(void)                                                                           \
    {                                                                                                        \
        g_tpl[i].status = build(&g_tpl[i].tp, k_ar[i]);                                                      \
    }
TPL_INIT(0)
TPL_INIT(1)
TPL_INIT(2)
TPL_INIT(3)
TPL_INIT(4)
TPL_INIT(5)
TPL_INIT(6)
static void (*const k_tpl_init[N_AR])(void) = {tpl_init_0, tpl_init_1, tpl_init_2, tpl_init_3,
                                               tpl_init_4, tpl_init_5, tpl_init_6};

size_t cuzk_poseidon_gadget_constraints(size_t n)
{
    size_t rp = cuzk_poseidon_partial_rounds(n), t = n + 1;
    if (!rp) return 0;
    size_t sboxes = t * CUZK_POSEIDON_FULL_ROUNDS + rp - 1;
    return 3 * sboxes + (t * CUZK_POSEIDON_FULL_ROUNDS + rp - n);
}

static int get_template(const ptemplate **out, size_t n)
{
    for (size_t i = 0; i < N_AR; i++)
        if (k_ar[i] == n) {
            pthread_once(&g_tpl[i].once, k_tpl_init[i]);
            if (g_tpl[i].status) return g_tpl[i].status;
            *out = &g_tpl[i].tp;
            return CUZK_OK;
        }
    return CUZK_ERR_ARG;
}

/* ---- synthesis ---------------------------------------------------------- */
typedef struct {
    cuzk_cs *cs;
    const ptemplate *tp;
    cuzk_var *map; /* slot -> variable */
    size_t k;      /* next constraint */
    bool vals;
    bool fast;            /* WITNESS mode: values only, constraints counted at the end */
    const cuzk_fr *c_tag; /* NULL: MerkleTree coefficients as stored */
    size_t tag_i;         /* next tag term to patch */
} emitter;

/* Allocate constraint k's variable with value v, then enforce it. */
static int emit(emitter *em, const cuzk_fr *v)
{
    const ptemplate *tp = em->tp;
    size_t k = em->k, slot = tp->arity + 1 + k;
    int rc = cuzk_cs_alloc(em->cs, &em->map[slot], em->vals ? v : NULL);
    if (rc) return rc;
    if (em->fast) { /* counted by synth */
        em->k++;
        return CUZK_OK;
    }
    cuzk_term side[3][MAX_SIDE];
    size_t cnt[3];
    for (int s = 0; s < 3; s++) {
        size_t b = tp->off[3 * k + (size_t)s], e = tp->off[3 * k + (size_t)s + 1];
        cnt[s] = e - b;
        for (size_t i = b; i < e; i++) {
            side[s][i - b].var = em->map[tp->terms[i].var];
            side[s][i - b].coeff = tp->terms[i].coeff;
            if (em->c_tag && em->tag_i < tp->ntag && tp->tag_term[em->tag_i] == i)
                cuzk_fr_mul(&side[s][i - b].coeff, &tp->tag_beta[em->tag_i++], em->c_tag);
        }
    }
    em->k++;
    return cuzk_cs_enforce(em->cs, side[0], cnt[0], side[1], cnt[1], side[2], cnt[2]);
}

static void vec_mat(cuzk_fr *s, const cuzk_fr *m, size_t t)
{
    cuzk_fr r[CUZK_POSEIDON_MAX_WIDTH], tmp;
    for (size_t j = 0; j < t; j++)
        r[j] = CUZK_FR_ZERO;
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) {
            cuzk_fr_mul(&tmp, &s[i], &m[i * t + j]);
            cuzk_fr_add(&r[j], &r[j], &tmp);
        }
    memcpy(s, r, t * sizeof *s);
}

/* neptune quintic_s_box on value x (ensure-allocated first unless pre_alloc):
 * emits [x], x^2, x^4, x^5 + post. */
static int sbox_emit(emitter *em, cuzk_fr *x, const cuzk_fr *post, bool ensure)
{
    cuzk_fr x2 = CUZK_FR_ZERO, x4 = CUZK_FR_ZERO;
    int rc;
    if (ensure && (rc = emit(em, x))) return rc;
    if (em->vals) cuzk_fr_sqr(&x2, x);
    if ((rc = emit(em, &x2))) return rc;
    if (em->vals) cuzk_fr_sqr(&x4, &x2);
    if ((rc = emit(em, &x4))) return rc;
    if (em->vals) {
        cuzk_fr_mul(x, x, &x4);
        if (post) cuzk_fr_add(x, x, post);
    }
    return emit(em, x);
}

static int synth(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *tag, const cuzk_num *in, size_t n)
{
    const ptemplate *tp;
    int rc = cuzk_cs_status(cs);
    if (rc) return rc;
    if (!out || (n && !in))
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "poseidon gadget: NULL output or input");
    if (!cuzk_poseidon_arity_supported(n))
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG,
                                 "poseidon gadget: arity %zu is not 2, 4, 8, 11, 16, 24 or 36", n);
    if ((rc = get_template(&tp, n)))
        return cuzk_cs_set_error(cs, rc, "poseidon gadget: cannot build the arity-%zu template (%s)", n,
                                 cuzk_strerror(rc));
    const cuzk_poseidon_constants *pc = tp->pc;
    size_t t = tp->t, half = pc->full_rounds / 2, rp = pc->partial_rounds;
    cuzk_var map[1 + CUZK_POSEIDON_MAX_ARITY + 1400];
    if (n + 1 + tp->ncons > sizeof map / sizeof map[0])
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "poseidon gadget: template too large");
    bool vals = cuzk_cs_needs_values(cs);
    emitter em = {cs, tp, map, 0, vals, !cuzk_cs_records_constraints(cs), NULL, 0};
    map[0] = CUZK_ONE;
    for (size_t i = 0; i < n; i++)
        map[1 + i] = in[i].var;

    const cuzk_fr *k = pc->compressed_round_constants;
    cuzk_fr s[CUZK_POSEIDON_MAX_WIDTH], x2, c_tag;
    /* The tag's first S-box is a constant (no constraint). */
    const cuzk_fr *tg = tag ? tag : &pc->merkle_tag;
    cuzk_fr_add(&c_tag, tg, &k[0]);
    cuzk_fr_sqr(&x2, &c_tag), cuzk_fr_sqr(&x2, &x2), cuzk_fr_mul(&c_tag, &c_tag, &x2);
    cuzk_fr_add(&c_tag, &c_tag, &k[t]);
    if (tag && !cuzk_fr_eq(tag, &pc->merkle_tag)) em.c_tag = &c_tag;
    s[0] = c_tag;
    for (size_t i = 1; i < t; i++)
        s[i] = em.vals ? in[i - 1].value : CUZK_FR_ZERO;

    for (size_t i = 1; i < t; i++) { /* square_sum / square / mul_sum with keys */
        cuzk_fr x = CUZK_FR_ZERO, y2 = CUZK_FR_ZERO, y4 = CUZK_FR_ZERO;
        if (em.vals) {
            cuzk_fr_add(&x, &s[i], &k[i]);
            cuzk_fr_sqr(&y2, &x);
        }
        if ((rc = emit(&em, &y2))) return rc;
        if (em.vals) cuzk_fr_sqr(&y4, &y2);
        if ((rc = emit(&em, &y4))) return rc;
        if (em.vals) {
            cuzk_fr_mul(&s[i], &x, &y4);
            cuzk_fr_add(&s[i], &s[i], &k[t + i]);
        }
        if ((rc = emit(&em, &s[i]))) return rc;
    }
    k += 2 * t;
    if (em.vals) vec_mat(s, half == 1 ? pc->pre_sparse : pc->mds, t);
    for (size_t r = 1; r < half; r++) {
        for (size_t i = 0; i < t; i++)
            if ((rc = sbox_emit(&em, &s[i], &k[i], true))) return rc;
        k += t;
        if (em.vals) vec_mat(s, r + 1 == half ? pc->pre_sparse : pc->mds, t);
    }
    for (size_t r = 0; r < rp; r++) {
        if ((rc = sbox_emit(&em, &s[0], &k[r], true))) return rc;
        if (em.vals) {
            const cuzk_fr *w_hat = pc->sparse + r * (2 * t - 1), *v_rest = w_hat + t;
            cuzk_fr acc, tmp;
            cuzk_fr_mul(&acc, &w_hat[0], &s[0]);
            for (size_t i = 1; i < t; i++) {
                cuzk_fr_mul(&tmp, &w_hat[i], &s[i]);
                cuzk_fr_add(&acc, &acc, &tmp);
                cuzk_fr_mul(&tmp, &v_rest[i - 1], &s[0]);
                cuzk_fr_add(&s[i], &s[i], &tmp);
            }
            s[0] = acc;
        }
    }
    k += rp;
    for (size_t r = 0; r < half; r++) {
        bool last = r + 1 == half;
        for (size_t i = 0; i < t; i++)
            if ((rc = sbox_emit(&em, &s[i], last ? NULL : &k[i], true))) return rc;
        if (!last) k += t;
        if (em.vals) vec_mat(s, pc->mds, t);
    }
    if ((rc = emit(&em, &s[1]))) return rc;
    if (em.fast && (rc = cuzk_cs_skip_constraints(cs, tp->ncons))) return rc;
    out->var = map[tp->arity + tp->ncons];
    out->value = em.vals ? s[1] : CUZK_FR_ZERO;
    return CUZK_OK;
}

/* Namespaced like neptune's caller would be, for CHECK-mode messages. */
static int synth_ns(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *tag, const cuzk_num *in, size_t n)
{
    int rc = cuzk_cs_push_namespace(cs, "poseidon");
    if (rc) return rc;
    rc = synth(cs, out, tag, in, n);
    cuzk_cs_pop_namespace(cs);
    return rc;
}

int cuzk_poseidon_gadget(cuzk_cs *cs, cuzk_num *out, const cuzk_num *in, size_t n)
{
    return synth_ns(cs, out, NULL, in, n);
}

int cuzk_poseidon_gadget_tagged(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *tag, const cuzk_num *in, size_t n)
{
    if (!tag) return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "poseidon gadget: tag is NULL");
    return synth_ns(cs, out, tag, in, n);
}
