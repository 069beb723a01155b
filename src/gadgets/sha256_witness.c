/* SHA-256 compression witness, computed natively (WITNESS mode).
 *
 * The gadget path (sha256.c, uint32.c, boolean.c) allocates ~26,000 bits
 * per block, one Boolean at a time, and enforces as many constraints that
 * a WITNESS-mode cs only counts.  Here each 32-bit word is three masks --
 * the Booleans' values (v), which bits are allocated (a: Is or Not) and
 * which of those are Not (n) -- so an xor, and, ch or maj of whole words
 * is a few logic operations; the bits the gadget would allocate are
 * recorded in its exact order into a bit buffer, and handed to the cs in
 * one cuzk_cs_alloc_bits at the end, with the constraint count.
 *
 * Bit-identity rests on following the gadget's control flow exactly: the
 * same round structure (deferred a / e sums), the same per-bit constant
 * folding (word masks where a closed form is simple, xor and and; a
 * per-bit copy of boolean.c's ch and maj cases otherwise), the same
 * MultiEq packing arithmetic (one constraint per flush).  Every allocation
 * of these gadgets comes with exactly one constraint, so the count is the
 * number of recorded bits plus the MultiEq flushes.  Checked against the
 * gadget path, assignment for assignment, in tests/test_fast_witness.c. */
#include "gadgets/sha256_witness.h"

#include <string.h>

#include "cuzk/status.h"

#define FR_CAPACITY 254
/* Allocations of one block are at most 48 x (4 x 32 + 34) in the schedule,
 * 64 x (35 + 64 + 32 + 35 + 64 + 64) in the rounds and 8 x 35 at the end:
 * 26,872 bits. */
#define REC_WORDS 448

typedef struct {
    uint32_t v, a, n; /* Boolean values; allocated (Is or Not); Not */
} wword;

typedef struct {
    uint64_t bits[REC_WORDS]; /* allocated bit values, allocation order */
    size_t n;                 /* bits recorded */
    size_t flushes;           /* MultiEq constraints */
    size_t me_bits;           /* bits in the open MultiEq packing */
    bool overflow;
} wrec;

static inline void put(wrec *r, uint64_t x, unsigned k)
{
    if (r->n + k > 64 * REC_WORDS) {
        r->overflow = true;
        return;
    }
    size_t w = r->n / 64;
    unsigned o = r->n % 64;
    r->bits[w] |= x << o;
    if (o + k > 64) r->bits[w + 1] |= x >> (64 - o);
    r->n += k;
}

/* The bits of x at the positions set in mask, lowest first. */
static inline void put_sel(wrec *r, uint32_t x, uint32_t mask)
{
    if (mask == 0xffffffffu) {
        put(r, x, 32);
        return;
    }
    for (; mask; mask &= mask - 1)
        put(r, (x >> __builtin_ctz(mask)) & 1, 1);
}

static inline wword wconst(uint32_t v)
{
    wword w = {v, 0, 0};
    return w;
}

static inline wword rotr(wword x, unsigned by)
{
    wword r = {(x.v >> by) | (x.v << (32 - by)), (x.a >> by) | (x.a << (32 - by)),
               (x.n >> by) | (x.n << (32 - by))};
    return r;
}

/* shr fills with constant false. */
static inline wword shr(wword x, unsigned by)
{
    wword r = {x.v >> by, x.a >> by, x.n >> by};
    return r;
}

/* Boolean::xor per bit: a constant operand passes the other through (Not
 * flipped by a true constant); two allocated bits allocate their xor, Not
 * when exactly one was Not. */
static wword wxor(wrec *r, wword x, wword y)
{
    put_sel(r, x.v ^ x.n ^ y.v ^ y.n, x.a & y.a);
    wword o;
    o.v = x.v ^ y.v;
    o.a = x.a | y.a;
    o.n = (x.n ^ y.n ^ (~x.a & x.v) ^ (~y.a & y.v)) & o.a;
    return o;
}

/* ---- per-bit Booleans for the mixed cases of ch and maj (boolean.c) ---- */

typedef struct {
    uint8_t kind; /* cuzk_bool_kind */
    bool v;
} lbool;

static inline lbool lb_const(bool v)
{
    lbool b = {CUZK_BOOL_CONST, v};
    return b;
}

static inline lbool lb_get(wword w, int i)
{
    lbool b = {CUZK_BOOL_CONST, (w.v >> i) & 1};
    if ((w.a >> i) & 1) b.kind = (w.n >> i) & 1 ? CUZK_BOOL_NOT : CUZK_BOOL_IS;
    return b;
}

static inline void lb_set(wword *w, int i, lbool b)
{
    uint32_t m = (uint32_t)1 << i;
    w->v = (w->v & ~m) | (b.v ? m : 0);
    w->a = (w->a & ~m) | (b.kind != CUZK_BOOL_CONST ? m : 0);
    w->n = (w->n & ~m) | (b.kind == CUZK_BOOL_NOT ? m : 0);
}

static inline lbool lb_not(lbool b)
{
    if (b.kind == CUZK_BOOL_IS)
        b.kind = CUZK_BOOL_NOT;
    else if (b.kind == CUZK_BOOL_NOT)
        b.kind = CUZK_BOOL_IS;
    b.v = !b.v;
    return b;
}

static inline bool lb_is(lbool b, bool v)
{
    return b.kind == CUZK_BOOL_CONST && b.v == v;
}

static inline lbool lb_alloc(wrec *r, bool v)
{
    put(r, v, 1);
    lbool b = {CUZK_BOOL_IS, v};
    return b;
}

/* Boolean::and: every allocating case (and, and_not, nor) allocates the
 * conjunction of the two Booleans' values. */
static lbool lb_and(wrec *r, lbool x, lbool y)
{
    if (lb_is(x, false) || lb_is(y, false)) return lb_const(false);
    if (lb_is(x, true)) return y;
    if (lb_is(y, true)) return x;
    return lb_alloc(r, x.v & y.v);
}

static lbool lb_ch(wrec *r, lbool a, lbool b, lbool c)
{
    bool v = (a.v & b.v) ^ (!a.v & c.v);
    if (a.kind == CUZK_BOOL_CONST && b.kind == CUZK_BOOL_CONST && c.kind == CUZK_BOOL_CONST)
        return lb_const(v);
    if (lb_is(a, false)) return c;
    if (lb_is(b, false)) return lb_and(r, lb_not(a), c);
    if (lb_is(c, false)) return lb_and(r, a, b);
    if (lb_is(c, true)) return lb_not(lb_and(r, a, lb_not(b)));
    if (lb_is(b, true)) return lb_not(lb_and(r, lb_not(a), lb_not(c)));
    return lb_alloc(r, v);
}

static lbool lb_maj(wrec *r, lbool a, lbool b, lbool c)
{
    bool v = (a.v & b.v) ^ (a.v & c.v) ^ (b.v & c.v);
    if (a.kind == CUZK_BOOL_CONST && b.kind == CUZK_BOOL_CONST && c.kind == CUZK_BOOL_CONST)
        return lb_const(v);
    if (lb_is(a, false)) return lb_and(r, b, c);
    if (lb_is(b, false)) return lb_and(r, a, c);
    if (lb_is(c, false)) return lb_and(r, a, b);
    const lbool *p = NULL, *q = NULL;
    if (lb_is(c, true))
        p = &a, q = &b;
    else if (lb_is(b, true))
        p = &a, q = &c;
    else if (lb_is(a, true))
        p = &b, q = &c;
    if (p) return lb_not(lb_and(r, lb_not(*p), lb_not(*q)));
    lbool out = lb_alloc(r, v);
    lb_and(r, b, c); /* bc, all three allocated here */
    return out;
}

/* ---- word operations ------------------------------------------------------ */

/* A ternary Boolean function of words where all three are allocated
 * (fast, caller's closed form) or all constant (no allocation): the other
 * patterns go bit by bit through fn, boolean.c's case analysis. */
typedef lbool (*lb_fn3)(wrec *r, lbool a, lbool b, lbool c);

static wword per_bit(wrec *r, wword a, wword b, wword c, lb_fn3 fn)
{
    wword o = {0, 0, 0};
    for (int i = 0; i < 32; i++)
        lb_set(&o, i, fn(r, lb_get(a, i), lb_get(b, i), lb_get(c, i)));
    return o;
}

static inline bool all_alloc(wword a, wword b, wword c)
{
    return (a.a & b.a & c.a) == 0xffffffffu;
}
static inline bool all_const(wword a, wword b, wword c)
{
    return (a.a | b.a | c.a) == 0;
}

static wword wch(wrec *r, wword a, wword b, wword c)
{
    uint32_t v = (a.v & b.v) ^ (~a.v & c.v);
    if (all_const(a, b, c)) return wconst(v);
    if (!all_alloc(a, b, c)) return per_bit(r, a, b, c, lb_ch);
    put(r, v, 32); /* one bit each */
    wword o = {v, 0xffffffffu, 0};
    return o;
}

/* Bits of x at the even positions of the result. */
static inline uint64_t spread(uint32_t x)
{
    uint64_t s = x;
    s = (s | (s << 16)) & 0x0000ffff0000ffffull;
    s = (s | (s << 8)) & 0x00ff00ff00ff00ffull;
    s = (s | (s << 4)) & 0x0f0f0f0f0f0f0f0full;
    s = (s | (s << 2)) & 0x3333333333333333ull;
    s = (s | (s << 1)) & 0x5555555555555555ull;
    return s;
}

static wword wmaj(wrec *r, wword a, wword b, wword c)
{
    uint32_t v = (a.v & b.v) ^ (a.v & c.v) ^ (b.v & c.v);
    if (all_const(a, b, c)) return wconst(v);
    if (!all_alloc(a, b, c)) return per_bit(r, a, b, c, lb_maj);
    put(r, spread(v) | spread(b.v & c.v) << 1, 64); /* per bit: maj, then b & c */
    wword o = {v, 0xffffffffu, 0};
    return o;
}

static wword sigma(wrec *r, wword x, unsigned r0, unsigned r1, unsigned r2, bool shift)
{
    wword t = wxor(r, rotr(x, r0), rotr(x, r1));
    return wxor(r, t, shift ? shr(x, r2) : rotr(x, r2));
}

/* UInt32::addmany with MultiEq's packing; *off (if not NULL) receives the
 * position of the result's first bit in the record (SIZE_MAX: constant). */
static wword addmany(wrec *r, const wword *ops, size_t n, size_t *off)
{
    uint64_t sum = 0;
    uint32_t alloc = 0;
    for (size_t k = 0; k < n; k++) {
        sum += ops[k].v;
        alloc |= ops[k].a;
    }
    if (off) *off = SIZE_MAX;
    if (!alloc) return wconst((uint32_t)sum);
    unsigned nbits = 64 - (unsigned)__builtin_clzll((uint64_t)n * 0xffffffffu);
    if (off) *off = r->n;
    put(r, sum & ((1ull << nbits) - 1), nbits);
    if (r->me_bits + nbits >= FR_CAPACITY) {
        r->flushes++;
        r->me_bits = 0;
    }
    r->me_bits += nbits;
    wword o = {(uint32_t)sum, 0xffffffffu, 0};
    return o;
}

/* ---- the compression (sha256.c's structure, deferred sums included) ---- */

typedef struct {
    bool deferred;
    size_t n;
    wword ops[8];
} wmaybe;

static wword maybe_compute(wrec *r, wmaybe *m, const wword *other, size_t *off)
{
    if (off) *off = SIZE_MAX;
    if (!m->deferred) return m->ops[0];
    if (other) m->ops[m->n++] = *other;
    return addmany(r, m->ops, m->n, off);
}

typedef struct {
    wmaybe a, e;
    wword b, c, d, f, g, h;
} wstate;

static void round_fn(wrec *r, wstate *s, wword w, uint32_t k)
{
    wword new_e = maybe_compute(r, &s->e, NULL, NULL);
    wword s1 = sigma(r, new_e, 6, 11, 25, false);
    wword ch = wch(r, new_e, s->f, s->g);
    wword new_a = maybe_compute(r, &s->a, NULL, NULL);
    wword s0 = sigma(r, new_a, 2, 13, 22, false);
    wword maj = wmaj(r, new_a, s->b, s->c);
    wword temp1[5] = {s->h, s1, ch, wconst(k), w};
    s->h = s->g;
    s->g = s->f;
    s->f = new_e;
    s->e.deferred = true;
    memcpy(s->e.ops, temp1, sizeof temp1);
    s->e.ops[5] = s->d;
    s->e.n = 6;
    s->d = s->c;
    s->c = s->b;
    s->b = new_a;
    s->a.deferred = true;
    memcpy(s->a.ops, temp1, sizeof temp1);
    s->a.ops[5] = s0;
    s->a.ops[6] = maj;
    s->a.n = 7;
}

static wword from_bools(const cuzk_bool *b, int stride, int first)
{
    wword w = {0, 0, 0};
    for (int i = 0; i < 32; i++) {
        const cuzk_bool *x = &b[first + stride * i];
        uint32_t m = (uint32_t)1 << i;
        if (x->value) w.v |= m;
        if (x->kind != CUZK_BOOL_CONST) w.a |= m;
        if (x->kind == CUZK_BOOL_NOT) w.n |= m;
    }
    return w;
}

/* Runs the block; out_off[k] is where output word k starts in the record. */
static void compress_words(wrec *r, wword out[8], size_t out_off[8], const cuzk_bool in[512],
                           const wword cur[8])
{
    wword w[64];
    for (int i = 0; i < 16; i++)
        w[i] = from_bools(in + 32 * i, -1, 31); /* from_bits_be */
    for (int i = 16; i < 64; i++) {
        wword ops[4] = {w[i - 16], {0, 0, 0}, w[i - 7], {0, 0, 0}};
        ops[1] = sigma(r, w[i - 15], 7, 18, 3, true);
        ops[3] = sigma(r, w[i - 2], 17, 19, 10, true);
        w[i] = addmany(r, ops, 4, NULL);
    }
    wstate s;
    s.a.deferred = s.e.deferred = false;
    s.a.n = s.e.n = 1;
    s.a.ops[0] = cur[0];
    s.b = cur[1], s.c = cur[2], s.d = cur[3];
    s.e.ops[0] = cur[4];
    s.f = cur[5], s.g = cur[6], s.h = cur[7];
    for (int i = 0; i < 64; i++)
        round_fn(r, &s, w[i], cuzk_sha256_round_k[i]);
    const wword *fin[8] = {NULL, &s.b, &s.c, &s.d, NULL, &s.f, &s.g, &s.h};
    for (int k = 0; k < 8; k++) {
        if (k == 0 || k == 4) {
            out[k] = maybe_compute(r, k ? &s.e : &s.a, &cur[k], &out_off[k]);
        } else {
            wword pair[2] = {cur[k], *fin[k]};
            out[k] = addmany(r, pair, 2, &out_off[k]);
        }
    }
    if (r->me_bits) r->flushes++; /* MultiEq's end */
}

int cuzk_sha256_compress_native(cuzk_cs *cs, cuzk_u32 out[8], const cuzk_bool in[512], const cuzk_u32 cur[8])
{
    int rc = cuzk_cs_status(cs);
    if (rc) return rc;
    wrec r;
    memset(&r, 0, sizeof r);
    wword cw[8], ow[8];
    size_t off[8];
    for (int k = 0; k < 8; k++)
        cw[k] = from_bools(cur[k].bits, 1, 0);
    compress_words(&r, ow, off, in, cw);
    if (r.overflow)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG,
                                 "sha256 witness: more than %d bits in one block (bound too small)",
                                 64 * REC_WORDS);
    cuzk_var first = CUZK_VAR_AUX;
    if ((rc = cuzk_cs_alloc_bits(cs, &first, r.bits, r.n)) ||
        (rc = cuzk_cs_skip_constraints(cs, r.n + r.flushes)))
        return rc;
    for (int k = 0; k < 8; k++) {
        if (off[k] == SIZE_MAX) {
            cuzk_u32_constant(&out[k], ow[k].v);
            continue;
        }
        for (int i = 0; i < 32; i++) {
            out[k].bits[i].var = first + off[k] + (cuzk_var)i;
            out[k].bits[i].kind = CUZK_BOOL_IS;
            out[k].bits[i].value = (ow[k].v >> i) & 1;
        }
        out[k].value = ow[k].v;
    }
    return CUZK_OK;
}
