/* bellperson uint32.rs and multieq.rs, constraint for constraint.
 *
 * MultiEq's accumulator is thread-local rather than on the stack or in the
 * heap: an open MultiEq holds at most 7 equalities (each at least 33 bits,
 * 7 x 33 < 254 <= 8 x 33) of at most 10 x 32 operand terms each, so a
 * fixed 2,304-term left side and a 256-term right side always suffice
 * (about 100 KB per hashing thread, never freed, no allocation on the hot
 * path).  Constant contributions to the left side are folded into one ONE
 * term as they arrive: the cs would merge them anyway, and since they are
 * sums of powers of two they never cancel to a zero coefficient. */
#include <string.h>

#include "cuzk/gadgets_sha256.h"
#include "cuzk/status.h"

#define FR_CAPACITY 254
#define ME_LHS_CAP 2304
#define ME_RHS_CAP 256

struct cuzk_multieq {
    cuzk_cs *cs;
    bool open;
    size_t bits_used;
    cuzk_fr base; /* 2^bits_used */
    bool has_one;
    cuzk_fr one; /* folded coefficient of ONE on the left */
    size_t nl, nr;
    cuzk_term lhs[ME_LHS_CAP];
    cuzk_term rhs[ME_RHS_CAP];
};

static _Thread_local struct cuzk_multieq tls_me;

void cuzk_u32_constant(cuzk_u32 *out, uint32_t value)
{
    for (int i = 0; i < 32; i++)
        out->bits[i] = cuzk_bool_constant((value >> i) & 1);
    out->value = value;
}

int cuzk_u32_alloc(cuzk_cs *cs, cuzk_u32 *out, uint32_t value)
{
    int rc;
    for (int i = 0; i < 32; i++)
        if ((rc = cuzk_bit_alloc(cs, &out->bits[i], (value >> i) & 1))) return rc;
    out->value = value;
    return CUZK_OK;
}

void cuzk_u32_from_bits_be(cuzk_u32 *out, const cuzk_bool bits[32])
{
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) {
        v = (v << 1) | (bits[i].value ? 1u : 0u);
        out->bits[31 - i] = bits[i];
    }
    out->value = v;
}

void cuzk_u32_into_bits_be(cuzk_bool out[32], const cuzk_u32 *a)
{
    for (int i = 0; i < 32; i++)
        out[i] = a->bits[31 - i];
}

void cuzk_u32_rotr(cuzk_u32 *out, const cuzk_u32 *a, unsigned by)
{
    by %= 32;
    for (unsigned i = 0; i < 32; i++)
        out->bits[i] = a->bits[(i + by) % 32];
    out->value = by ? (a->value >> by) | (a->value << (32 - by)) : a->value;
}

void cuzk_u32_shr(cuzk_u32 *out, const cuzk_u32 *a, unsigned by)
{
    by %= 32;
    for (unsigned i = 0; i < 32; i++)
        out->bits[i] = i + by < 32 ? a->bits[i + by] : cuzk_bool_constant(false);
    out->value = a->value >> by;
}

int cuzk_u32_xor(cuzk_cs *cs, cuzk_u32 *out, const cuzk_u32 *a, const cuzk_u32 *b)
{
    int rc;
    for (int i = 0; i < 32; i++)
        if ((rc = cuzk_bool_xor(cs, &out->bits[i], &a->bits[i], &b->bits[i]))) return rc;
    out->value = a->value ^ b->value;
    return CUZK_OK;
}

int cuzk_u32_sha256_ch(cuzk_cs *cs, cuzk_u32 *out, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c)
{
    int rc;
    for (int i = 0; i < 32; i++)
        if ((rc = cuzk_bool_sha256_ch(cs, &out->bits[i], &a->bits[i], &b->bits[i], &c->bits[i]))) return rc;
    out->value = (a->value & b->value) ^ (~a->value & c->value);
    return CUZK_OK;
}

int cuzk_u32_sha256_maj(cuzk_cs *cs, cuzk_u32 *out, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c)
{
    int rc;
    for (int i = 0; i < 32; i++)
        if ((rc = cuzk_bool_sha256_maj(cs, &out->bits[i], &a->bits[i], &b->bits[i], &c->bits[i]))) return rc;
    out->value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    return CUZK_OK;
}

/* ---- MultiEq ---------------------------------------------------------------- */

static void me_reset(struct cuzk_multieq *me)
{
    me->bits_used = 0;
    me->base = CUZK_FR_ONE;
    me->has_one = false;
    me->one = CUZK_FR_ZERO;
    me->nl = me->nr = 0;
}

int cuzk_multieq_begin(cuzk_cs *cs, cuzk_multieq **out)
{
    struct cuzk_multieq *me = &tls_me;
    int st = cuzk_cs_status(cs);
    if (st) return st; /* nothing opened: a failed cs never holds the thread's accumulator */
    if (me->open) return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "multieq: one is already open on this thread");
    me->cs = cs;
    me->open = true;
    me_reset(me);
    *out = me;
    return cuzk_cs_status(cs);
}

/* accumulate(): (lhs) * ONE = (rhs). */
static int me_flush(struct cuzk_multieq *me)
{
    if (me->has_one) {
        me->lhs[me->nl].var = CUZK_ONE;
        me->lhs[me->nl++].coeff = me->one;
    }
    cuzk_term one = {CUZK_ONE, CUZK_FR_ONE};
    int rc = cuzk_cs_enforce(me->cs, me->lhs, me->nl, &one, 1, me->rhs, me->nr);
    me_reset(me);
    return rc;
}

int cuzk_multieq_end(cuzk_multieq *me)
{
    int rc = me->bits_used > 0 ? me_flush(me) : cuzk_cs_status(me->cs);
    me->open = false;
    return rc;
}

/* Append coeff * (Boolean bit) to the left side (bellperson Boolean::lc). */
static inline void me_lhs_bit(struct cuzk_multieq *me, const cuzk_bool *b, const cuzk_fr *coeff)
{
    if (b->kind == CUZK_BOOL_CONST) {
        if (!b->value) return;
        cuzk_fr_add(&me->one, &me->one, coeff);
        me->has_one = true;
        return;
    }
    cuzk_term *t = &me->lhs[me->nl++];
    t->var = b->var;
    if (b->kind == CUZK_BOOL_IS) {
        t->coeff = *coeff;
    } else {
        cuzk_fr_neg(&t->coeff, coeff);
        cuzk_fr_add(&me->one, &me->one, coeff);
        me->has_one = true;
    }
}

int cuzk_u32_addmany(cuzk_multieq *me, cuzk_u32 *out, const cuzk_u32 *ops, size_t n)
{
    cuzk_cs *cs = me->cs;
    if (n < 2 || n > 10) return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "addmany: %zu operands (2..10)", n);
    uint64_t sum = 0;
    bool all_const = true;
    for (size_t k = 0; k < n; k++) {
        sum += ops[k].value;
        for (int i = 0; i < 32 && all_const; i++)
            all_const = ops[k].bits[i].kind == CUZK_BOOL_CONST;
    }
    if (all_const) {
        cuzk_u32_constant(out, (uint32_t)sum);
        return cuzk_cs_status(cs);
    }
    uint64_t max = (uint64_t)n * 0xffffffffu;
    size_t nbits = 0;
    cuzk_bool res[36];
    int rc;
    while (max) {
        if ((rc = cuzk_bit_alloc(cs, &res[nbits], (sum >> nbits) & 1))) return rc;
        nbits++;
        max >>= 1;
    }
    /* enforce_equal: flush first if this equality would not fit. */
    if (me->bits_used + nbits >= FR_CAPACITY && (rc = me_flush(me))) return rc;
    for (size_t k = 0; k < n; k++) {
        cuzk_fr c = me->base;
        for (int i = 0; i < 32; i++) {
            me_lhs_bit(me, &ops[k].bits[i], &c);
            cuzk_fr_dbl(&c, &c);
        }
    }
    cuzk_fr c = me->base;
    for (size_t i = 0; i < nbits; i++) {
        me->rhs[me->nr].var = res[i].var;
        me->rhs[me->nr++].coeff = c;
        cuzk_fr_dbl(&c, &c);
    }
    me->base = c;
    me->bits_used += nbits;
    memcpy(out->bits, res, sizeof out->bits);
    out->value = (uint32_t)sum;
    return cuzk_cs_status(cs);
}
