/* AllocatedNum (bellpepper-core num.rs), multipack (bellperson
 * multipack.rs), constraint::equal and insertion.rs (rust-fil-proofs
 * storage-proofs-core), constraint for constraint. */
#include <string.h>

#include "cuzk/gadgets.h"
#include "cuzk/status.h"

#define FR_CAPACITY 254

static inline cuzk_term term(cuzk_var v, const cuzk_fr *c)
{
    cuzk_term t = {v, *c};
    return t;
}

static inline cuzk_fr minus_one(void)
{
    cuzk_fr m;
    cuzk_fr_neg(&m, &CUZK_FR_ONE);
    return m;
}

static int alloc_num(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *value, bool input)
{
    bool vals = cuzk_cs_needs_values(cs);
    if (vals && !value) return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "num alloc: missing value");
    int rc = input ? cuzk_cs_alloc_input(cs, &out->var, vals ? value : NULL)
                   : cuzk_cs_alloc(cs, &out->var, vals ? value : NULL);
    out->value = vals ? *value : CUZK_FR_ZERO;
    return rc;
}

int cuzk_num_alloc(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *value)
{
    return alloc_num(cs, out, value, false);
}

int cuzk_num_alloc_input(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *value)
{
    return alloc_num(cs, out, value, true);
}

int cuzk_num_inputize(cuzk_cs *cs, const cuzk_num *a)
{
    cuzk_num x;
    int rc = alloc_num(cs, &x, &a->value, true);
    if (rc) return rc;
    cuzk_term ta = term(x.var, &CUZK_FR_ONE), tb = term(CUZK_ONE, &CUZK_FR_ONE);
    cuzk_term tc = term(a->var, &CUZK_FR_ONE);
    return cuzk_cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1);
}

int cuzk_num_to_bits_le(cuzk_cs *cs, cuzk_bool out[255], const cuzk_num *a)
{
    int rc = cuzk_bools_alloc_fr_le(cs, out, &a->value);
    if (rc) return rc;
    if (!cuzk_cs_records_constraints(cs)) /* WITNESS: count only */
        return cuzk_cs_skip_constraints(cs, 1);
    cuzk_term c[256];
    cuzk_fr coeff = CUZK_FR_ONE;
    for (int i = 0; i < 255; i++) {
        c[i] = term(out[i].var, &coeff);
        cuzk_fr_dbl(&coeff, &coeff);
    }
    cuzk_fr m1 = minus_one();
    c[255] = term(a->var, &m1);
    return cuzk_cs_enforce(cs, NULL, 0, NULL, 0, c, 256);
}

/* Allocate r = f(a, b) and enforce ta * tb = r. */
static int binop(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *value, const cuzk_term *ta, size_t na,
                 const cuzk_term *tb, size_t nb)
{
    int rc = alloc_num(cs, out, value, false);
    if (rc) return rc;
    cuzk_term tc = term(out->var, &CUZK_FR_ONE);
    return cuzk_cs_enforce(cs, ta, na, tb, nb, &tc, 1);
}

int cuzk_num_add(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_fr v;
    cuzk_fr_add(&v, &a->value, &b->value);
    cuzk_term ta[2] = {term(a->var, &CUZK_FR_ONE), term(b->var, &CUZK_FR_ONE)};
    cuzk_term tb = term(CUZK_ONE, &CUZK_FR_ONE);
    return binop(cs, out, &v, ta, 2, &tb, 1);
}

int cuzk_num_mul(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_fr v;
    cuzk_fr_mul(&v, &a->value, &b->value);
    cuzk_term ta = term(a->var, &CUZK_FR_ONE), tb = term(b->var, &CUZK_FR_ONE);
    return binop(cs, out, &v, &ta, 1, &tb, 1);
}

int cuzk_num_square(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a)
{
    cuzk_fr v;
    cuzk_fr_sqr(&v, &a->value);
    cuzk_term ta = term(a->var, &CUZK_FR_ONE);
    return binop(cs, out, &v, &ta, 1, &ta, 1);
}

int cuzk_num_assert_nonzero(cuzk_cs *cs, const cuzk_num *a)
{
    cuzk_fr inv = CUZK_FR_ZERO;
    if (cuzk_cs_needs_values(cs)) {
        if (cuzk_fr_is_zero(&a->value))
            return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "assert_nonzero: value is zero");
        cuzk_fr_inv_var(&inv, &a->value);
    }
    cuzk_num x;
    int rc = alloc_num(cs, &x, &inv, false);
    if (rc) return rc;
    cuzk_term ta = term(a->var, &CUZK_FR_ONE), tb = term(x.var, &CUZK_FR_ONE);
    cuzk_term tc = term(CUZK_ONE, &CUZK_FR_ONE);
    return cuzk_cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1);
}

/* One half of conditionally_reverse / pick: out = cond ? p : q with
 * (q - p) * cond = (q - out). */
static int cond_pick(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *cond, const cuzk_num *p0,
                     const cuzk_num *q0)
{
    cuzk_num pp = *p0, qq = *q0, *p = &pp, *q = &qq; /* out may alias p0 or q0 */
    int rc = alloc_num(cs, out, cond->value ? &p->value : &q->value, false);
    if (rc) return rc;
    cuzk_fr m1 = minus_one();
    cuzk_term ta[2] = {term(q->var, &CUZK_FR_ONE), term(p->var, &m1)};
    cuzk_term tb[2], tc[2] = {term(q->var, &CUZK_FR_ONE), term(out->var, &m1)};
    size_t nb = cuzk_bool_lc(tb, cond, &CUZK_FR_ONE);
    return cuzk_cs_enforce(cs, ta, 2, tb, nb, tc, 2);
}

int cuzk_num_conditionally_reverse(cuzk_cs *cs, cuzk_num *c, cuzk_num *d, const cuzk_num *a,
                                   const cuzk_num *b, const cuzk_bool *cond)
{
    /* c: (a - b) * cond = (a - c);  d: (b - a) * cond = (b - d) */
    cuzk_num a0 = *a, b0 = *b; /* c may alias a or b */
    int rc = cond_pick(cs, c, cond, &b0, &a0);
    if (rc) return rc;
    return cond_pick(cs, d, cond, &a0, &b0);
}

int cuzk_num_enforce_equal(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_term ta = term(a->var, &CUZK_FR_ONE), tb = term(CUZK_ONE, &CUZK_FR_ONE);
    cuzk_term tc = term(b->var, &CUZK_FR_ONE);
    return cuzk_cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1);
}

int cuzk_num_pick(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *cond, const cuzk_num *a, const cuzk_num *b)
{
    return cond_pick(cs, out, cond, a, b);
}

int cuzk_num_select(cuzk_cs *cs, cuzk_num *out, const cuzk_num *from, const cuzk_bool *bits, size_t nbits)
{
    if (nbits > 7) /* SnapDeals' apex tree: 128 leaves */
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "select: %zu index bits (max 7)", nbits);
    cuzk_num state[128];
    size_t half = ((size_t)1 << nbits) / 2;
    memcpy(state, from, ((size_t)1 << nbits) * sizeof *state);
    /* most significant bit first */
    for (size_t i = 0; i < nbits; i++, half /= 2) {
        const cuzk_bool *bit = &bits[nbits - 1 - i];
        for (size_t j = 0; j < half; j++) {
            int rc = cond_pick(cs, &state[j], bit, &state[half + j], &state[j]);
            if (rc) return rc;
        }
    }
    *out = state[0];
    return cuzk_cs_status(cs);
}

/* insert_4 / insert_8 are hand-optimized tables from insertion.rs. */
static int insert_4(cuzk_cs *cs, cuzk_num *o, const cuzk_num *A, const cuzk_bool *bits, const cuzk_num *el)
{
    const cuzk_bool *b0 = &bits[0], *b1 = &bits[1];
    const cuzk_num *b = &el[0], *c = &el[1], *d = &el[2];
    cuzk_num t;
    int rc = 0;
    rc = rc ? rc : cond_pick(cs, &t, b0, b, A);
    rc = rc ? rc : cond_pick(cs, &o[0], b1, b, &t);
    rc = rc ? rc : cond_pick(cs, &t, b0, A, b);
    rc = rc ? rc : cond_pick(cs, &o[1], b1, c, &t);
    rc = rc ? rc : cond_pick(cs, &t, b0, d, A);
    rc = rc ? rc : cond_pick(cs, &o[2], b1, &t, c);
    rc = rc ? rc : cond_pick(cs, &t, b0, A, d);
    rc = rc ? rc : cond_pick(cs, &o[3], b1, &t, d);
    return rc;
}

static int insert_8(cuzk_cs *cs, cuzk_num *o, const cuzk_num *A, const cuzk_bool *bits, const cuzk_num *el)
{
    const cuzk_bool *b0 = &bits[0], *b1 = &bits[1], *b2 = &bits[2];
    if (b0->kind != CUZK_BOOL_IS || b1->kind != CUZK_BOOL_IS)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "insert_8: bits must be allocated, unnegated");
    const cuzk_num *b = &el[0], *c = &el[1], *d = &el[2], *e = &el[3], *f = &el[4];
    const cuzk_num *g = &el[5], *h = &el[6];
    cuzk_bool nor01, and01;
    int rc = cuzk_bit_nor(cs, &nor01, b0, b1);
    rc = rc ? rc : cuzk_bit_and(cs, &and01, b0, b1);
    cuzk_num t, u;
    rc = rc ? rc : cond_pick(cs, &t, &nor01, A, b);
    rc = rc ? rc : cond_pick(cs, &o[0], b2, b, &t);
    rc = rc ? rc : cond_pick(cs, &t, b0, A, b);
    rc = rc ? rc : cond_pick(cs, &u, b1, c, &t);
    rc = rc ? rc : cond_pick(cs, &o[1], b2, c, &u);
    rc = rc ? rc : cond_pick(cs, &t, b0, d, A);
    rc = rc ? rc : cond_pick(cs, &u, b1, &t, c);
    rc = rc ? rc : cond_pick(cs, &o[2], b2, d, &u);
    rc = rc ? rc : cond_pick(cs, &t, &and01, A, d);
    rc = rc ? rc : cond_pick(cs, &o[3], b2, e, &t);
    rc = rc ? rc : cond_pick(cs, &t, &nor01, A, f);
    rc = rc ? rc : cond_pick(cs, &o[4], b2, &t, e);
    rc = rc ? rc : cond_pick(cs, &t, b0, A, f);
    rc = rc ? rc : cond_pick(cs, &u, b1, g, &t);
    rc = rc ? rc : cond_pick(cs, &o[5], b2, &u, f);
    rc = rc ? rc : cond_pick(cs, &t, b0, h, A);
    rc = rc ? rc : cond_pick(cs, &u, b1, &t, g);
    rc = rc ? rc : cond_pick(cs, &o[6], b2, &u, g);
    rc = rc ? rc : cond_pick(cs, &t, &and01, A, h);
    rc = rc ? rc : cond_pick(cs, &o[7], b2, &t, h);
    return rc;
}

int cuzk_num_insert(cuzk_cs *cs, cuzk_num *out, const cuzk_num *element, const cuzk_bool *bits, size_t nbits,
                    const cuzk_num *elements)
{
    if (nbits < 1 || nbits > 6)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "insert: %zu index bits (1..6)", nbits);
    size_t size = (size_t)1 << nbits;
    cuzk_num el[64], x = *element; /* out may alias the inputs */
    memcpy(el, elements, (size - 1) * sizeof *el);
    if (size == 2) {
        int rc = cond_pick(cs, &out[0], &bits[0], &el[0], &x);
        return rc ? rc : cond_pick(cs, &out[1], &bits[0], &x, &el[0]);
    }
    if (size == 4) return insert_4(cs, out, &x, bits, el);
    if (size == 8) return insert_8(cs, out, &x, bits, el);
    /* General: position pos of the result for insertion index i is
     * elements[pos] if pos < i, x if pos == i, elements[pos - 1] if pos > i. */
    for (size_t pos = 0; pos < size; pos++) {
        cuzk_num choices[64];
        for (size_t i = 0; i < size; i++)
            choices[i] = pos < i ? el[pos] : pos == i ? x : el[pos - 1];
        int rc = cuzk_num_select(cs, &out[pos], choices, bits, nbits);
        if (rc) return rc;
    }
    return CUZK_OK;
}

/* One packed chunk: Num from add_bool_with_coeff over bits[0..m) with
 * coefficients 2^i, a new variable x (input or aux), (Num) * ONE = x. */
static int pack_chunk(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *bits, size_t m, bool input)
{
    bool vals = cuzk_cs_needs_values(cs);
    size_t na = 0;
    cuzk_term ta[2 * FR_CAPACITY];
    cuzk_fr coeff = CUZK_FR_ONE, value = CUZK_FR_ZERO;
    for (size_t i = 0; i < m; i++) {
        na += cuzk_bool_lc(ta + na, &bits[i], &coeff);
        if (vals && bits[i].value) cuzk_fr_add(&value, &value, &coeff);
        cuzk_fr_dbl(&coeff, &coeff);
    }
    int rc = alloc_num(cs, out, &value, input);
    if (rc) return rc;
    cuzk_term tb = term(CUZK_ONE, &CUZK_FR_ONE), tc = term(out->var, &CUZK_FR_ONE);
    return cuzk_cs_enforce(cs, ta, na, &tb, 1, &tc, 1);
}

int cuzk_pack_into_inputs(cuzk_cs *cs, const cuzk_bool *bits, size_t n)
{
    for (size_t off = 0; off < n; off += FR_CAPACITY) {
        cuzk_num x;
        size_t m = n - off < FR_CAPACITY ? n - off : FR_CAPACITY;
        int rc = pack_chunk(cs, &x, bits + off, m, true);
        if (rc) return rc;
    }
    return cuzk_cs_status(cs);
}

int cuzk_pack_bits(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *bits, size_t n)
{
    return pack_chunk(cs, out, bits, n < FR_CAPACITY ? n : FR_CAPACITY, false);
}

void cuzk_multipack_bits(cuzk_fr *out, const bool *bits, size_t n)
{
    for (size_t off = 0, k = 0; off < n; off += FR_CAPACITY, k++) {
        size_t m = n - off < FR_CAPACITY ? n - off : FR_CAPACITY;
        cuzk_fr coeff = CUZK_FR_ONE, v = CUZK_FR_ZERO;
        for (size_t i = 0; i < m; i++) {
            if (bits[off + i]) cuzk_fr_add(&v, &v, &coeff);
            cuzk_fr_dbl(&coeff, &coeff);
        }
        out[k] = v;
    }
}
