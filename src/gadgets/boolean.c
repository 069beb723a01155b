/* bellperson / bellpepper-core boolean.rs, constraint for constraint.
 *
 * Term arrays are passed to cuzk_cs_enforce unmerged (e.g. xor's A side is
 * a + a); the cs merges duplicates exactly as bellperson's
 * LinearCombination does, so the matrices are identical. */
#include "cuzk/gadgets.h"
#include "cuzk/status.h"

static inline cuzk_fr minus_one(void)
{
    cuzk_fr m;
    cuzk_fr_neg(&m, &CUZK_FR_ONE);
    return m;
}

static inline cuzk_term term(cuzk_var v, const cuzk_fr *c)
{
    cuzk_term t = {v, *c};
    return t;
}

size_t cuzk_bool_lc(cuzk_term *terms, const cuzk_bool *a, const cuzk_fr *coeff)
{
    switch (a->kind) {
    case CUZK_BOOL_CONST:
        if (!a->value) return 0;
        terms[0] = term(CUZK_ONE, coeff);
        return 1;
    case CUZK_BOOL_IS:
        terms[0] = term(a->var, coeff);
        return 1;
    default: {
        cuzk_fr neg;
        cuzk_fr_neg(&neg, coeff);
        terms[0] = term(CUZK_ONE, coeff);
        terms[1] = term(a->var, &neg);
        return 2;
    }
    }
}

/* Allocate an aux holding `value` as 0/1 (no value in SHAPE mode). */
static int alloc_bitvar(cuzk_cs *cs, cuzk_var *v, bool value)
{
    const cuzk_fr *val = NULL;
    if (cuzk_cs_needs_values(cs)) val = value ? &CUZK_FR_ONE : &CUZK_FR_ZERO;
    return cuzk_cs_alloc(cs, v, val);
}

static void set_is(cuzk_bool *out, cuzk_var v, bool value)
{
    out->var = v, out->kind = CUZK_BOOL_IS, out->value = value;
}

/* WITNESS mode (or a count-only system): nobody reads the constraints, so
 * allocations go in bulk and constraints are only counted
 * (cuzk_cs_alloc_bits). */
static inline bool witness_only(const cuzk_cs *cs)
{
    return !cuzk_cs_records_constraints(cs);
}

/* n allocated bits (bit i of bits[i / 64]) with one constraint each. */
static int alloc_bits_witness(cuzk_cs *cs, cuzk_bool *out, const uint64_t *bits, size_t n)
{
    cuzk_var first;
    int rc = cuzk_cs_alloc_bits(cs, &first, bits, n);
    if (rc || (rc = cuzk_cs_skip_constraints(cs, n))) return rc;
    for (size_t i = 0; i < n; i++)
        set_is(&out[i], first + (cuzk_var)i, (bits[i / 64] >> (i % 64)) & 1);
    return CUZK_OK;
}

/* Value of the AllocatedBit under a Boolean (Not holds !bit). */
static inline bool bitval(const cuzk_bool *a)
{
    return a->kind == CUZK_BOOL_NOT ? !a->value : a->value;
}

int cuzk_bit_alloc(cuzk_cs *cs, cuzk_bool *out, bool value)
{
    cuzk_var v;
    int rc = alloc_bitvar(cs, &v, value);
    if (rc) return rc;
    set_is(out, v, value);
    if (witness_only(cs)) return cuzk_cs_skip_constraints(cs, 1);
    cuzk_fr m1 = minus_one();
    cuzk_term a[2] = {term(CUZK_ONE, &CUZK_FR_ONE), term(v, &m1)}, b = term(v, &CUZK_FR_ONE);
    return cuzk_cs_enforce(cs, a, 2, &b, 1, NULL, 0);
}

int cuzk_bit_alloc_conditionally(cuzk_cs *cs, cuzk_bool *out, bool value, const cuzk_bool *must_be_false)
{
    cuzk_var v;
    int rc = alloc_bitvar(cs, &v, value);
    if (rc) return rc;
    cuzk_fr m1 = minus_one();
    cuzk_term a[3] = {term(CUZK_ONE, &CUZK_FR_ONE), term(must_be_false->var, &m1), term(v, &m1)};
    cuzk_term b = term(v, &CUZK_FR_ONE);
    set_is(out, v, value);
    return cuzk_cs_enforce(cs, a, 3, &b, 1, NULL, 0);
}

int cuzk_bit_xor(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b)
{
    bool r = bitval(a) ^ bitval(b);
    cuzk_var v, av = a->var, bv = b->var;
    int rc = alloc_bitvar(cs, &v, r);
    if (rc) return rc;
    cuzk_fr m1 = minus_one();
    cuzk_term ta[2] = {term(av, &CUZK_FR_ONE), term(av, &CUZK_FR_ONE)};
    cuzk_term tb = term(bv, &CUZK_FR_ONE);
    cuzk_term tc[3] = {term(av, &CUZK_FR_ONE), term(bv, &CUZK_FR_ONE), term(v, &m1)};
    set_is(out, v, r);
    return cuzk_cs_enforce(cs, ta, 2, &tb, 1, tc, 3);
}

int cuzk_bit_and(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b)
{
    bool r = bitval(a) & bitval(b);
    cuzk_var v, av = a->var, bv = b->var;
    int rc = alloc_bitvar(cs, &v, r);
    if (rc) return rc;
    cuzk_term ta = term(av, &CUZK_FR_ONE), tb = term(bv, &CUZK_FR_ONE), tc = term(v, &CUZK_FR_ONE);
    set_is(out, v, r);
    return cuzk_cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1);
}

int cuzk_bit_and_not(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b)
{
    bool r = bitval(a) & !bitval(b);
    cuzk_var v, av = a->var, bv = b->var;
    int rc = alloc_bitvar(cs, &v, r);
    if (rc) return rc;
    cuzk_fr m1 = minus_one();
    cuzk_term ta = term(av, &CUZK_FR_ONE), tc = term(v, &CUZK_FR_ONE);
    cuzk_term tb[2] = {term(CUZK_ONE, &CUZK_FR_ONE), term(bv, &m1)};
    set_is(out, v, r);
    return cuzk_cs_enforce(cs, &ta, 1, tb, 2, &tc, 1);
}

int cuzk_bit_nor(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b)
{
    bool r = !bitval(a) & !bitval(b);
    cuzk_var v, av = a->var, bv = b->var;
    int rc = alloc_bitvar(cs, &v, r);
    if (rc) return rc;
    cuzk_fr m1 = minus_one();
    cuzk_term ta[2] = {term(CUZK_ONE, &CUZK_FR_ONE), term(av, &m1)};
    cuzk_term tb[2] = {term(CUZK_ONE, &CUZK_FR_ONE), term(bv, &m1)};
    cuzk_term tc = term(v, &CUZK_FR_ONE);
    set_is(out, v, r);
    return cuzk_cs_enforce(cs, ta, 2, tb, 2, &tc, 1);
}

static inline bool is_const(const cuzk_bool *a, bool v)
{
    return a->kind == CUZK_BOOL_CONST && a->value == v;
}

int cuzk_bool_xor(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b)
{
    if (is_const(a, false)) return *out = *b, cuzk_cs_status(cs);
    if (is_const(b, false)) return *out = *a, cuzk_cs_status(cs);
    if (is_const(a, true)) return *out = cuzk_bool_not(*b), cuzk_cs_status(cs);
    if (is_const(b, true)) return *out = cuzk_bool_not(*a), cuzk_cs_status(cs);
    if (a->kind != b->kind) { /* Is ^ Not = !(Is ^ Is) */
        const cuzk_bool *is = a->kind == CUZK_BOOL_IS ? a : b;
        cuzk_bool nn = cuzk_bool_not(a->kind == CUZK_BOOL_IS ? *b : *a), r;
        int rc = cuzk_bit_xor(cs, &r, is, &nn);
        *out = cuzk_bool_not(r);
        return rc;
    }
    /* Is ^ Is, or Not a ^ Not b = a ^ b on the underlying bits */
    return cuzk_bit_xor(cs, out, a, b);
}

int cuzk_bool_and(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b)
{
    if (is_const(a, false) || is_const(b, false)) return *out = cuzk_bool_constant(false), cuzk_cs_status(cs);
    if (is_const(a, true)) return *out = *b, cuzk_cs_status(cs);
    if (is_const(b, true)) return *out = *a, cuzk_cs_status(cs);
    if (a->kind == CUZK_BOOL_IS && b->kind == CUZK_BOOL_NOT) return cuzk_bit_and_not(cs, out, a, b);
    if (a->kind == CUZK_BOOL_NOT && b->kind == CUZK_BOOL_IS) return cuzk_bit_and_not(cs, out, b, a);
    if (a->kind == CUZK_BOOL_NOT) return cuzk_bit_nor(cs, out, a, b);
    return cuzk_bit_and(cs, out, a, b);
}

int cuzk_bool_or(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b)
{
    cuzk_bool na = cuzk_bool_not(*a), nb = cuzk_bool_not(*b), r;
    int rc = cuzk_bool_and(cs, &r, &na, &nb);
    *out = cuzk_bool_not(r);
    return rc;
}

int cuzk_bool_enforce_equal(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b)
{
    cuzk_fr m1 = minus_one();
    cuzk_term c[4];
    size_t n = 0;
    if (a->kind == CUZK_BOOL_CONST && b->kind == CUZK_BOOL_CONST) {
        if (a->value == b->value) return cuzk_cs_status(cs);
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "boolean enforce_equal: constants differ (unsatisfiable)");
    }
    if (is_const(a, true) || is_const(b, true)) {
        const cuzk_bool *x = is_const(a, true) ? b : a;
        c[n++] = term(CUZK_ONE, &CUZK_FR_ONE);
        n += cuzk_bool_lc(c + n, x, &m1);
    } else if (is_const(a, false) || is_const(b, false)) {
        const cuzk_bool *x = is_const(a, false) ? b : a;
        n += cuzk_bool_lc(c + n, x, &CUZK_FR_ONE);
    } else {
        n += cuzk_bool_lc(c + n, a, &CUZK_FR_ONE);
        n += cuzk_bool_lc(c + n, b, &m1);
    }
    return cuzk_cs_enforce(cs, NULL, 0, NULL, 0, c, n);
}

int cuzk_bool_sha256_ch(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b,
                        const cuzk_bool *c)
{
    bool v = (a->value & b->value) ^ (!a->value & c->value);
    cuzk_bool x, y, r;
    int rc;
    if (a->kind == CUZK_BOOL_CONST && b->kind == CUZK_BOOL_CONST && c->kind == CUZK_BOOL_CONST)
        return *out = cuzk_bool_constant(v), cuzk_cs_status(cs);
    if (is_const(a, false)) return *out = *c, cuzk_cs_status(cs);
    if (is_const(b, false)) {
        x = cuzk_bool_not(*a);
        return cuzk_bool_and(cs, out, &x, c);
    }
    if (is_const(c, false)) return cuzk_bool_and(cs, out, a, b);
    if (is_const(c, true)) {
        x = cuzk_bool_not(*b);
        rc = cuzk_bool_and(cs, &r, a, &x);
        *out = cuzk_bool_not(r);
        return rc;
    }
    if (is_const(b, true)) {
        x = cuzk_bool_not(*a), y = cuzk_bool_not(*c);
        rc = cuzk_bool_and(cs, &r, &x, &y);
        *out = cuzk_bool_not(r);
        return rc;
    }
    /* a constant true, or all allocated: ch = c + a (b - c) */
    cuzk_var ch;
    if ((rc = alloc_bitvar(cs, &ch, v))) return rc;
    cuzk_fr m1 = minus_one();
    cuzk_term ta[4], tb[2], tc[3];
    size_t na = 0, nb = 0, nc = 0;
    na += cuzk_bool_lc(ta + na, b, &CUZK_FR_ONE);
    na += cuzk_bool_lc(ta + na, c, &m1);
    nb += cuzk_bool_lc(tb, a, &CUZK_FR_ONE);
    tc[nc++] = term(ch, &CUZK_FR_ONE);
    nc += cuzk_bool_lc(tc + nc, c, &m1);
    set_is(out, ch, v);
    return cuzk_cs_enforce(cs, ta, na, tb, nb, tc, nc);
}

int cuzk_bool_sha256_maj(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b,
                         const cuzk_bool *c)
{
    bool v = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    cuzk_bool x, y, r;
    int rc;
    if (a->kind == CUZK_BOOL_CONST && b->kind == CUZK_BOOL_CONST && c->kind == CUZK_BOOL_CONST)
        return *out = cuzk_bool_constant(v), cuzk_cs_status(cs);
    if (is_const(a, false)) return cuzk_bool_and(cs, out, b, c);
    if (is_const(b, false)) return cuzk_bool_and(cs, out, a, c);
    if (is_const(c, false)) return cuzk_bool_and(cs, out, a, b);
    const cuzk_bool *p = NULL, *q = NULL;
    if (is_const(c, true))
        p = a, q = b;
    else if (is_const(b, true))
        p = a, q = c;
    else if (is_const(a, true))
        p = b, q = c;
    if (p) {
        x = cuzk_bool_not(*p), y = cuzk_bool_not(*q);
        rc = cuzk_bool_and(cs, &r, &x, &y);
        *out = cuzk_bool_not(r);
        return rc;
    }
    /* maj allocated first, then bc = b & c; (2bc - b - c) * a = bc - maj */
    cuzk_var maj;
    cuzk_bool bc;
    if ((rc = alloc_bitvar(cs, &maj, v))) return rc;
    if ((rc = cuzk_bool_and(cs, &bc, b, c))) return rc;
    cuzk_fr m1 = minus_one();
    cuzk_term ta[8], tb[2], tc[3];
    size_t na = 0, nb = 0, nc = 0;
    na += cuzk_bool_lc(ta + na, &bc, &CUZK_FR_ONE);
    na += cuzk_bool_lc(ta + na, &bc, &CUZK_FR_ONE);
    na += cuzk_bool_lc(ta + na, b, &m1);
    na += cuzk_bool_lc(ta + na, c, &m1);
    nb += cuzk_bool_lc(tb, a, &CUZK_FR_ONE);
    nc += cuzk_bool_lc(tc, &bc, &CUZK_FR_ONE);
    tc[nc++] = term(maj, &m1);
    set_is(out, maj, v);
    return cuzk_cs_enforce(cs, ta, na, tb, nb, tc, nc);
}

int cuzk_bools_alloc_u64_le(cuzk_cs *cs, cuzk_bool out[64], uint64_t value)
{
    if (witness_only(cs)) return alloc_bits_witness(cs, out, &value, 64);
    for (int i = 0; i < 64; i++) {
        int rc = cuzk_bit_alloc(cs, &out[i], (value >> i) & 1);
        if (rc) return rc;
    }
    return CUZK_OK;
}

int cuzk_bools_alloc_fr_le(cuzk_cs *cs, cuzk_bool out[255], const cuzk_fr *value)
{
    uint64_t l[4] = {0, 0, 0, 0};
    if (cuzk_cs_needs_values(cs)) {
        if (!value) return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "field_into_allocated_bits_le: no value");
        cuzk_fr_to_limbs(l, value);
    }
    if (witness_only(cs)) return alloc_bits_witness(cs, out, l, 255);
    for (int i = 0; i < 255; i++) {
        int rc = cuzk_bit_alloc(cs, &out[i], (l[i / 64] >> (i % 64)) & 1);
        if (rc) return rc;
    }
    return CUZK_OK;
}
