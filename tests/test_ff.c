/* Fp / Fr differential tests.
 *
 * Reference: OpenSSL BN (BN_mod_mul, BN_mod_inverse, BN_mod_exp,
 * BN_mod_sqrt, ...), independent of our limb code.  Every operation is run
 * on both backends (portable and, where the CPU has it, ADX) and the
 * Montgomery limbs must be identical.  Inputs mix uniform random values
 * with edge values (0, 1, m-1, (m-1)/2, R mod m, 2^64 boundaries, ...).
 *
 * Fp and Fr share the test code through a small table of wrappers (struct
 * field) so that every check runs on both fields. */
#include <openssl/bn.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/ff.h"
#include "cuzk/status.h"
#include "ff/field_internal.h"
#include "harness.h"

#define MAXN 6

typedef void (*op2_fn)(void *r, const void *a, const void *b);
typedef void (*op1_fn)(void *r, const void *a);

struct field {
    const char *name;
    int n;                  /* limbs */
    const uint64_t *mod;
    op2_fn add, sub, mul;
    op1_fn dbl, neg, sqr, inv, inv_var;
    void (*batch_inv_var)(void *out, const void *in, size_t n);
    void (*pow)(void *r, const void *a, const uint64_t *e, size_t nl);
    bool (*sqrt)(void *r, const void *a);
    int (*from_limbs)(void *r, const uint64_t *a);
    void (*to_limbs)(uint64_t *r, const void *a);
    bool (*eq)(const void *a, const void *b);
    bool (*is_zero)(const void *a);
    bool (*is_one)(const void *a);
    void (*cmov)(void *r, const void *a, uint64_t flag);
    void (*from_u64)(void *r, uint64_t v);
    const void *one;
};

#define W2(F, T) static void w_##F(void *r, const void *a, const void *b) { F((T *)r, (const T *)a, (const T *)b); }
#define W1(F, T) static void w_##F(void *r, const void *a) { F((T *)r, (const T *)a); }
#define WRAPS(P, T)                                                                        \
    W2(cuzk_##P##_add, T) W2(cuzk_##P##_sub, T) W2(cuzk_##P##_mul, T)                      \
    W1(cuzk_##P##_dbl, T) W1(cuzk_##P##_neg, T) W1(cuzk_##P##_sqr, T)                      \
    W1(cuzk_##P##_inv, T) W1(cuzk_##P##_inv_var, T)                                        \
    static void w_##P##_batch(void *o, const void *i, size_t n) { cuzk_##P##_batch_inv_var((T *)o, (const T *)i, n); } \
    static void w_##P##_pow(void *r, const void *a, const uint64_t *e, size_t nl) { cuzk_##P##_pow((T *)r, (const T *)a, e, nl); } \
    static bool w_##P##_sqrt(void *r, const void *a) { return cuzk_##P##_sqrt((T *)r, (const T *)a); } \
    static int w_##P##_from_limbs(void *r, const uint64_t *a) { return cuzk_##P##_from_limbs((T *)r, a); } \
    static void w_##P##_to_limbs(uint64_t *r, const void *a) { cuzk_##P##_to_limbs(r, (const T *)a); } \
    static bool w_##P##_eq(const void *a, const void *b) { return cuzk_##P##_eq((const T *)a, (const T *)b); } \
    static bool w_##P##_is_zero(const void *a) { return cuzk_##P##_is_zero((const T *)a); } \
    static bool w_##P##_is_one(const void *a) { return cuzk_##P##_is_one((const T *)a); } \
    static void w_##P##_cmov(void *r, const void *a, uint64_t f) { cuzk_##P##_cmov((T *)r, (const T *)a, f); } \
    static void w_##P##_from_u64(void *r, uint64_t v) { cuzk_##P##_from_u64((T *)r, v); }

WRAPS(fp, cuzk_fp)
WRAPS(fr, cuzk_fr)

#define FIELD(P, N, MOD, ONE)                                                              \
    {#P, N, MOD, w_cuzk_##P##_add, w_cuzk_##P##_sub, w_cuzk_##P##_mul, w_cuzk_##P##_dbl,   \
     w_cuzk_##P##_neg, w_cuzk_##P##_sqr, w_cuzk_##P##_inv, w_cuzk_##P##_inv_var,           \
     w_##P##_batch, w_##P##_pow, w_##P##_sqrt, w_##P##_from_limbs, w_##P##_to_limbs,       \
     w_##P##_eq, w_##P##_is_zero, w_##P##_is_one, w_##P##_cmov, w_##P##_from_u64, &ONE}

static const struct field FIELDS[2] = {
    FIELD(fp, 6, CUZK_FP_MODULUS, CUZK_FP_ONE),
    FIELD(fr, 4, CUZK_FR_MODULUS, CUZK_FR_ONE),
};

/* ---- BN helpers ----------------------------------------------------------- */
static BN_CTX *g_ctx;

/* Created on first use so that any subset of tests can run alone. */
static BN_CTX *bn_ctx(void)
{
    if (!g_ctx) g_ctx = BN_CTX_new();
    if (!g_ctx) {
        fprintf(stderr, "BN_CTX_new failed\n");
        exit(1);
    }
    return g_ctx;
}
#define ctx bn_ctx()

static BIGNUM *bn_limbs(const uint64_t *l, int n)
{
    uint8_t be[8 * 12];
    for (int i = 0; i < 8 * n; i++) be[8 * n - 1 - i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
    return BN_bin2bn(be, 8 * n, NULL);
}

/* 1 if b fits in n limbs and was written to l */
static int bn_to_limbs(uint64_t *l, int n, const BIGNUM *b)
{
    uint8_t be[8 * 12];
    if (BN_is_negative(b) || BN_bn2binpad(b, be, 8 * n) != 8 * n) return 0;
    memset(l, 0, 8 * (size_t)n);
    for (int i = 0; i < 8 * n; i++) l[i / 8] |= (uint64_t)be[8 * n - 1 - i] << (8 * (i % 8));
    return 1;
}

static int limbs_equal_bn(const uint64_t *l, int n, const BIGNUM *b)
{
    uint64_t w[12];
    return bn_to_limbs(w, n, b) && memcmp(w, l, 8 * (size_t)n) == 0;
}

static BIGNUM *bn_mod(const struct field *f) { return bn_limbs(f->mod, f->n); }

/* ---- inputs ----------------------------------------------------------------- */
/* A canonical integer < m: one time in four an edge value, else uniform. */
static void rand_int(const struct field *f, uint64_t *out)
{
    BIGNUM *m = bn_mod(f), *x = BN_new();
    unsigned pick = (unsigned)(test_rand64() % 48);
    switch (pick) {
    case 0: BN_zero(x); break;
    case 1: BN_one(x); break;
    case 2: BN_set_word(x, 2); break;
    case 3: BN_sub(x, m, BN_value_one()); break;                      /* m-1 */
    case 4: BN_rshift1(x, m); break;                                  /* (m-1)/2 */
    case 5: BN_rshift1(x, m), BN_add_word(x, 1); break;               /* (m+1)/2 */
    case 6: BN_set_bit(x, 64 * f->n), BN_mod(x, x, m, ctx); break;    /* R mod m */
    case 7: BN_set_word(x, ~0ull); break;                             /* 2^64-1 */
    case 8: BN_set_bit(x, 64); break;                                 /* 2^64 */
    case 9: BN_copy(x, m), BN_sub_word(x, 2); break;                  /* m-2 */
    case 10: BN_set_bit(x, BN_num_bits(m) - 2); break;
    case 11: { /* sparse: a few random bits */
        for (int k = 0; k < 3; k++) BN_set_bit(x, (int)(test_rand64() % (uint64_t)(BN_num_bits(m) - 1)));
        break;
    }
    default: {
        uint64_t l[MAXN];
        int bits = BN_num_bits(m);
        do {
            for (int i = 0; i < f->n; i++) l[i] = test_rand64();
            l[f->n - 1] &= (~0ull) >> (64 * f->n - bits);
            BN_free(x);
            x = bn_limbs(l, f->n);
        } while (BN_cmp(x, m) >= 0);
    }
    }
    CHECK(bn_to_limbs(out, f->n, x));
    BN_free(x);
    BN_free(m);
}

static void rand_elem(const struct field *f, void *e, uint64_t *canon)
{
    uint64_t c[MAXN];
    rand_int(f, c);
    CHECK(f->from_limbs(e, c) == CUZK_OK);
    if (canon) memcpy(canon, c, 8 * (size_t)f->n);
}

static int have_adx(void)
{
    cuzk_ff_force_portable(0);
    return strcmp(cuzk_ff_backend(), "adx") == 0;
}

/* Run op on both backends; check identical limbs; leave ADX (if any) on. */
#define BOTH_BACKENDS(stmt_portable_out, stmt_fast_out, n)                   \
    do {                                                                       \
        cuzk_ff_force_portable(1);                                             \
        stmt_portable_out;                                                     \
        cuzk_ff_force_portable(0);                                             \
        stmt_fast_out;                                                         \
    } while (0)

/* ---- arithmetic vs BN --------------------------------------------------- */
static void check_binop(const struct field *f, const char *opname, op2_fn op,
                        const uint64_t *x, const uint64_t *y, const void *ex, const void *ey)
{
    uint64_t rp[MAXN], rf[MAXN], canon[MAXN];
    BOTH_BACKENDS(op(rp, ex, ey), op(rf, ex, ey), f->n);
    CHECK(memcmp(rp, rf, 8 * (size_t)f->n) == 0);
    f->to_limbs(canon, rf);
    BIGNUM *m = bn_mod(f), *a = bn_limbs(x, f->n), *b = bn_limbs(y, f->n), *w = BN_new();
    if (!strcmp(opname, "add")) BN_mod_add(w, a, b, m, ctx);
    else if (!strcmp(opname, "sub")) BN_mod_sub(w, a, b, m, ctx);
    else BN_mod_mul(w, a, b, m, ctx);
    if (!limbs_equal_bn(canon, f->n, w)) {
        fprintf(stderr, "  %s_%s mismatch\n", f->name, opname);
        CHECK(0);
    }
    BN_free(m), BN_free(a), BN_free(b), BN_free(w);
}

static void check_unop(const struct field *f, const char *opname, op1_fn op,
                       const uint64_t *x, const void *ex)
{
    uint64_t rp[MAXN], rf[MAXN], canon[MAXN];
    BOTH_BACKENDS(op(rp, ex), op(rf, ex), f->n);
    CHECK(memcmp(rp, rf, 8 * (size_t)f->n) == 0);
    f->to_limbs(canon, rf);
    BIGNUM *m = bn_mod(f), *a = bn_limbs(x, f->n), *w = BN_new(), *z = BN_new();
    BN_zero(z);
    if (!strcmp(opname, "dbl")) BN_mod_add(w, a, a, m, ctx);
    else if (!strcmp(opname, "neg")) BN_mod_sub(w, z, a, m, ctx);
    else if (!strcmp(opname, "sqr")) BN_mod_sqr(w, a, m, ctx);
    else if (BN_is_zero(a)) BN_zero(w);                       /* inv(0) = 0 */
    else CHECK(BN_mod_inverse(w, a, m, ctx) != NULL);
    if (!limbs_equal_bn(canon, f->n, w)) {
        fprintf(stderr, "  %s_%s mismatch\n", f->name, opname);
        CHECK(0);
    }
    BN_free(m), BN_free(a), BN_free(w), BN_free(z);
}

static void test_arith(void)
{
    for (int fi = 0; fi < 2; fi++) {
        const struct field *f = &FIELDS[fi];
        for (int it = 0; it < 3000 * test_iterations; it++) {
            uint64_t x[MAXN], y[MAXN], ex[MAXN], ey[MAXN];
            rand_elem(f, ex, x);
            rand_elem(f, ey, y);
            check_binop(f, "add", f->add, x, y, ex, ey);
            check_binop(f, "sub", f->sub, x, y, ex, ey);
            check_binop(f, "mul", f->mul, x, y, ex, ey);
            check_binop(f, "mul", f->mul, x, x, ex, ex);
            check_unop(f, "dbl", f->dbl, x, ex);
            check_unop(f, "neg", f->neg, x, ex);
            check_unop(f, "sqr", f->sqr, x, ex);
            /* aliasing: r == a == b */
            uint64_t t[MAXN], u[MAXN];
            memcpy(t, ex, sizeof t);
            f->mul(t, t, t);
            f->sqr(u, ex);
            CHECK(memcmp(t, u, 8 * (size_t)f->n) == 0);
            /* aliasing r == a and r == b: the asm reads the two operands
             * differently (one limb per row from a, all columns from b) */
            f->mul(u, ex, ey);
            memcpy(t, ex, sizeof t);
            f->mul(t, t, ey);
            CHECK(memcmp(t, u, 8 * (size_t)f->n) == 0);
            memcpy(t, ey, sizeof t);
            f->mul(t, ex, t);
            CHECK(memcmp(t, u, 8 * (size_t)f->n) == 0);
        }
    }
}

static void test_inv(void)
{
    for (int fi = 0; fi < 2; fi++) {
        const struct field *f = &FIELDS[fi];
        for (int it = 0; it < 300 * test_iterations; it++) {
            uint64_t x[MAXN], ex[MAXN], a[MAXN], b[MAXN];
            rand_elem(f, ex, x);
            check_unop(f, "inv", f->inv, x, ex);
            check_unop(f, "inv_var", f->inv_var, x, ex);
            f->inv(a, ex);
            f->inv_var(b, ex);
            CHECK(memcmp(a, b, 8 * (size_t)f->n) == 0);
        }
        uint64_t z[MAXN] = {0}, r[MAXN];
        f->inv(r, z);
        CHECK(f->is_zero(r));
        f->inv_var(r, z);
        CHECK(f->is_zero(r));
    }
}

static void test_batch_inv(void)
{
    enum { MAXB = 700 };
    static uint64_t in[MAXB][MAXN], out[MAXB][MAXN], want[MAXB][MAXN];
    size_t sizes[] = {0, 1, 2, 3, 17, 255, 256, 257, 700};
    for (int fi = 0; fi < 2; fi++) {
        const struct field *f = &FIELDS[fi];
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            for (size_t i = 0; i < n; i++) {
                rand_elem(f, in[i], NULL);
                if (test_rand64() % 5 == 0) memset(in[i], 0, sizeof in[i]);   /* zeros */
                f->inv_var(want[i], in[i]);
            }
            /* disjoint output (array-of-[MAXN] stride differs from the
             * element stride for Fr, so pack first) */
            uint64_t *pin = malloc(8 * (size_t)f->n * (n + 1)), *pout = malloc(8 * (size_t)f->n * (n + 1));
            CHECK(pin && pout);
            for (size_t i = 0; i < n; i++) memcpy(pin + i * f->n, in[i], 8 * (size_t)f->n);
            f->batch_inv_var(pout, pin, n);
            for (size_t i = 0; i < n; i++) CHECK(memcmp(pout + i * f->n, want[i], 8 * (size_t)f->n) == 0);
            /* in place */
            f->batch_inv_var(pin, pin, n);
            for (size_t i = 0; i < n; i++) CHECK(memcmp(pin + i * f->n, want[i], 8 * (size_t)f->n) == 0);
            free(pin), free(pout);
            (void)out;
        }
    }
}

static void test_pow(void)
{
    for (int fi = 0; fi < 2; fi++) {
        const struct field *f = &FIELDS[fi];
        for (int it = 0; it < 200 * test_iterations; it++) {
            uint64_t x[MAXN], ex[MAXN], e[8], rp[MAXN], rf[MAXN], canon[MAXN];
            rand_elem(f, ex, x);
            size_t nl = (size_t)(test_rand64() % 8);
            for (size_t i = 0; i < nl; i++) e[i] = test_rand64() >> (test_rand64() % 64);
            if (nl && test_rand64() % 3 == 0) e[nl - 1] = 0;   /* leading zero limb */
            BOTH_BACKENDS(f->pow(rp, ex, e, nl), f->pow(rf, ex, e, nl), f->n);
            CHECK(memcmp(rp, rf, 8 * (size_t)f->n) == 0);
            f->to_limbs(canon, rf);
            BIGNUM *m = bn_mod(f), *a = bn_limbs(x, f->n), *w = BN_new();
            BIGNUM *be = nl ? bn_limbs(e, (int)nl) : BN_new();
            CHECK(BN_mod_exp(w, a, be, m, ctx));
            CHECK(limbs_equal_bn(canon, f->n, w));
            BN_free(m), BN_free(a), BN_free(w), BN_free(be);
        }
    }
}

static int bn_is_qr(const BIGNUM *a, const BIGNUM *m)
{
    BIGNUM *e = BN_dup(m), *w = BN_new();
    BN_sub_word(e, 1);
    BN_rshift1(e, e);
    BN_mod_exp(w, a, e, m, ctx);
    int r = BN_is_zero(a) || BN_is_one(w);
    BN_free(e), BN_free(w);
    return r;
}

static void test_sqrt(void)
{
    for (int fi = 0; fi < 2; fi++) {
        const struct field *f = &FIELDS[fi];
        int squares = 0, nonsquares = 0;
        for (int it = 0; it < 150 * test_iterations; it++) {
            uint64_t x[MAXN], ex[MAXN], s[MAXN], s2[MAXN], canon[MAXN];
            rand_elem(f, ex, x);
            if (it % 2) {   /* force a square half of the time */
                f->sqr(ex, ex);
                f->to_limbs(x, ex);
            }
            BIGNUM *m = bn_mod(f), *a = bn_limbs(x, f->n), *w = BN_new(), *nw = BN_new();
            int qr = bn_is_qr(a, m);
            bool ok = f->sqrt(s, ex);
            CHECK(ok == (qr != 0));
            if (fi == 0) CHECK(cuzk_fp_is_square((const cuzk_fp *)ex) == (qr != 0));
            if (qr) {
                squares++;
                f->sqr(s2, s);
                CHECK(f->eq(s2, ex));
                /* the root is one of BN's two roots */
                CHECK(BN_mod_sqrt(w, a, m, ctx) != NULL);
                BN_sub(nw, m, w);
                BN_mod(nw, nw, m, ctx);
                f->to_limbs(canon, s);
                CHECK(limbs_equal_bn(canon, f->n, w) || limbs_equal_bn(canon, f->n, nw));
            } else {
                nonsquares++;
            }
            BN_free(m), BN_free(a), BN_free(w), BN_free(nw);
        }
        CHECK(squares > 0 && nonsquares > 0);
    }
}

static void test_predicates(void)
{
    for (int fi = 0; fi < 2; fi++) {
        const struct field *f = &FIELDS[fi];
        uint64_t z[MAXN] = {0}, o[MAXN], a[MAXN], b[MAXN], t[MAXN];
        CHECK(f->is_zero(z) && !f->is_one(z));
        memcpy(o, f->one, 8 * (size_t)f->n);
        CHECK(f->is_one(o) && !f->is_zero(o));
        f->from_u64(t, 1);
        CHECK(f->eq(t, o));
        for (int it = 0; it < 200 * test_iterations; it++) {
            uint64_t v = test_rand64() >> (test_rand64() % 64), canon[MAXN];
            f->from_u64(t, v);
            f->to_limbs(canon, t);
            CHECK(canon[0] == v);
            for (int i = 1; i < f->n; i++) CHECK(canon[i] == 0);
            rand_elem(f, a, NULL);
            rand_elem(f, b, NULL);
            memcpy(t, a, sizeof t);
            f->cmov(t, b, 0);
            CHECK(f->eq(t, a));
            f->cmov(t, b, 1);
            CHECK(f->eq(t, b));
            CHECK(f->eq(a, b) == (memcmp(a, b, 8 * (size_t)f->n) == 0));
        }
        /* the Fp zcash sign */
        if (fi == 0) {
            BIGNUM *m = bn_mod(f), *h = BN_new();
            BN_rshift1(h, m);   /* (p-1)/2 */
            for (int it = 0; it < 200 * test_iterations; it++) {
                uint64_t x[MAXN], ex[MAXN];
                rand_elem(f, ex, x);
                BIGNUM *bx = bn_limbs(x, 6);
                CHECK(cuzk_fp_is_lexicographically_largest((const cuzk_fp *)ex) == (BN_cmp(bx, h) > 0));
                BN_free(bx);
            }
            uint64_t hl[6];
            cuzk_fp e;
            bn_to_limbs(hl, 6, h);
            CHECK(cuzk_fp_from_limbs(&e, hl) == CUZK_OK);
            CHECK(!cuzk_fp_is_lexicographically_largest(&e));
            BN_add_word(h, 1);
            bn_to_limbs(hl, 6, h);
            CHECK(cuzk_fp_from_limbs(&e, hl) == CUZK_OK);
            CHECK(cuzk_fp_is_lexicographically_largest(&e));
            BN_free(m), BN_free(h);
        }
    }
}

/* Non-canonical integers: m, m+1, m + random, all ones, 2^bits. */
static void noncanonical(const struct field *f, int which, uint64_t *out)
{
    BIGNUM *m = bn_mod(f), *x = BN_dup(m);
    switch (which) {
    case 0: break;
    case 1: BN_add_word(x, 1); break;
    case 2: BN_set_bit(x, BN_num_bits(m)); break;   /* m + 2^bits */
    case 3: BN_zero(x); BN_set_bit(x, BN_num_bits(m)); break;
    default: {
        uint64_t r[MAXN];
        for (int i = 0; i < f->n; i++) r[i] = test_rand64();
        BIGNUM *br = bn_limbs(r, f->n);
        BN_mod(br, br, m, ctx);
        BN_add(x, x, br);
        BN_free(br);
    }
    }
    if (!bn_to_limbs(out, f->n, x)) memset(out, 0xff, 8 * (size_t)f->n);
    BN_free(m), BN_free(x);
}

static void test_encodings(void)
{
    for (int it = 0; it < 500 * test_iterations; it++) {
        /* Fp: 48 bytes big endian */
        uint64_t x[6], back[6];
        cuzk_fp e, e2;
        rand_elem(&FIELDS[0], &e, x);
        uint8_t buf[48], want[48];
        cuzk_fp_to_bytes_be(buf, &e);
        BIGNUM *bx = bn_limbs(x, 6);
        CHECK(BN_bn2binpad(bx, want, 48) == 48);
        CHECK(memcmp(buf, want, 48) == 0);
        CHECK(cuzk_fp_from_bytes_be(&e2, buf) == CUZK_OK);
        CHECK(cuzk_fp_eq(&e, &e2));
        cuzk_fp_to_limbs(back, &e2);
        CHECK(memcmp(back, x, sizeof x) == 0);
        BN_free(bx);
        /* Fr: 32 bytes little endian */
        uint64_t y[4];
        cuzk_fr s, s2;
        rand_elem(&FIELDS[1], &s, y);
        uint8_t sb[32], swant[32];
        cuzk_fr_to_bytes_le(sb, &s);
        BIGNUM *by = bn_limbs(y, 4);
        CHECK(BN_bn2lebinpad(by, swant, 32) == 32);
        CHECK(memcmp(sb, swant, 32) == 0);
        CHECK(cuzk_fr_from_bytes_le(&s2, sb) == CUZK_OK);
        CHECK(cuzk_fr_eq(&s, &s2));
        BN_free(by);
    }
    for (int which = 0; which < 5 + 50 * test_iterations; which++) {
        uint64_t bad[6];
        cuzk_fp e = CUZK_FP_ONE;
        noncanonical(&FIELDS[0], which < 5 ? which : 4, bad);
        CHECK(cuzk_fp_from_limbs(&e, bad) == CUZK_ERR_ENC_NONCANONICAL);
        uint8_t buf[48];
        for (int i = 0; i < 48; i++) buf[47 - i] = (uint8_t)(bad[i / 8] >> (8 * (i % 8)));
        CHECK(cuzk_fp_from_bytes_be(&e, buf) == CUZK_ERR_ENC_NONCANONICAL);
        uint64_t rbad[4];
        cuzk_fr s;
        noncanonical(&FIELDS[1], which < 5 ? which : 4, rbad);
        CHECK(cuzk_fr_from_limbs(&s, rbad) == CUZK_ERR_ENC_NONCANONICAL);
        uint8_t sb[32];
        for (int i = 0; i < 32; i++) sb[i] = (uint8_t)(rbad[i / 8] >> (8 * (i % 8)));
        CHECK(cuzk_fr_from_bytes_le(&s, sb) == CUZK_ERR_ENC_NONCANONICAL);
    }
    /* all 0xff, and the largest canonical value m-1 */
    uint8_t ff[48];
    memset(ff, 0xff, sizeof ff);
    cuzk_fp e;
    cuzk_fr s;
    CHECK(cuzk_fp_from_bytes_be(&e, ff) == CUZK_ERR_ENC_NONCANONICAL);
    CHECK(cuzk_fr_from_bytes_le(&s, ff) == CUZK_ERR_ENC_NONCANONICAL);
    uint64_t pm1[6], rm1[4];
    memcpy(pm1, CUZK_FP_MODULUS, sizeof pm1);
    pm1[0] -= 1;
    memcpy(rm1, CUZK_FR_MODULUS, sizeof rm1);
    rm1[0] -= 1;
    CHECK(cuzk_fp_from_limbs(&e, pm1) == CUZK_OK);
    CHECK(cuzk_fr_from_limbs(&s, rm1) == CUZK_OK);
    cuzk_fp m1;
    cuzk_fp_neg(&m1, &CUZK_FP_ONE);
    CHECK(cuzk_fp_eq(&e, &m1));
}

static void test_fr_reduce(void)
{
    BIGNUM *m = bn_mod(&FIELDS[1]);
    uint8_t buf[200];
    for (int it = 0; it < 400 * test_iterations; it++) {
        size_t len = (size_t)(test_rand64() % sizeof buf);
        test_rand_bytes(buf, len);
        if (test_rand64() % 4 == 0) memset(buf, 0xff, len);
        cuzk_fr r;
        uint64_t canon[4];
        cuzk_fr_from_bytes_le_reduce(&r, buf, len);
        cuzk_fr_to_limbs(canon, &r);
        BIGNUM *x = BN_lebin2bn(buf, (int)len, NULL), *w = BN_new();
        BN_mod(w, x, m, ctx);
        CHECK(limbs_equal_bn(canon, 4, w));
        BN_free(x), BN_free(w);
    }
    BN_free(m);
}

/* The internal 768-bit primitives used by the tower's lazy reduction. */
static void test_wide(void)
{
    BIGNUM *p = bn_mod(&FIELDS[0]), *pw = BN_new(), *rinv = BN_new(), *R = BN_new();
    BN_lshift(pw, p, 384);
    BN_zero(R);
    BN_set_bit(R, 384);
    CHECK(BN_mod_inverse(rinv, R, p, ctx) != NULL);
    for (int it = 0; it < 1000 * test_iterations; it++) {
        cuzk_fp a, b, rp, rf;
        cuzk_fp_wide w, wp, wf, t1, t2;
        /* a, b: any 384-bit limbs for mul_wide */
        for (int i = 0; i < 6; i++) a.l[i] = test_rand64(), b.l[i] = test_rand64();
        if (it % 3 == 0) rand_elem(&FIELDS[0], &a, NULL);
        BOTH_BACKENDS(cuzk_fp_mul_wide(&wp, &a, &b), cuzk_fp_mul_wide(&wf, &a, &b), 12);
        CHECK(memcmp(&wp, &wf, sizeof wp) == 0);
        BIGNUM *ba = bn_limbs(a.l, 6), *bb = bn_limbs(b.l, 6), *x = BN_new(), *y = BN_new();
        BN_mul(x, ba, bb, ctx);
        CHECK(limbs_equal_bn(wf.l, 12, x));
        /* t < p * 2^384 for redc: random 768-bit reduced mod p*2^384 */
        for (int i = 0; i < 12; i++) w.l[i] = test_rand64();
        BIGNUM *bw = bn_limbs(w.l, 12);
        BN_mod(bw, bw, pw, ctx);
        if (it % 7 == 0) BN_sub(bw, pw, BN_value_one());   /* the maximum */
        CHECK(bn_to_limbs(w.l, 12, bw));
        BOTH_BACKENDS(cuzk_fp_redc_wide(&rp, &w), cuzk_fp_redc_wide(&rf, &w), 6);
        CHECK(memcmp(&rp, &rf, sizeof rp) == 0);
        BN_mod_mul(y, bw, rinv, p, ctx);
        CHECK(limbs_equal_bn(rf.l, 6, y));
        /* add / sub modulo p * 2^384 */
        for (int i = 0; i < 12; i++) t1.l[i] = test_rand64();
        BIGNUM *bt = bn_limbs(t1.l, 12);
        BN_mod(bt, bt, pw, ctx);
        CHECK(bn_to_limbs(t1.l, 12, bt));
        cuzk_fp_wide_add(&t2, &w, &t1);
        BN_mod_add(y, bw, bt, pw, ctx);
        CHECK(limbs_equal_bn(t2.l, 12, y));
        cuzk_fp_wide_sub(&t2, &w, &t1);
        BN_mod_sub(y, bw, bt, pw, ctx);
        CHECK(limbs_equal_bn(t2.l, 12, y));
        BN_free(ba), BN_free(bb), BN_free(x), BN_free(y), BN_free(bw), BN_free(bt);
    }
    BN_free(p), BN_free(pw), BN_free(rinv), BN_free(R);
}

static void test_backend(void)
{
    cuzk_ff_force_portable(1);
    CHECK(strcmp(cuzk_ff_backend(), "portable") == 0);
    cuzk_ff_force_portable(0);
    const char *b = cuzk_ff_backend();
    CHECK(strcmp(b, "portable") == 0 || strcmp(b, "adx") == 0);
    printf("  backend: %s\n", b);
    if (!have_adx()) test_skip("CPU or build without ADX: only the portable path is tested");
}

static const test_case tests[] = {
    {"backend", test_backend},
    {"arith", test_arith},
    {"inv", test_inv},
    {"batch_inv", test_batch_inv},
    {"pow", test_pow},
    {"sqrt", test_sqrt},
    {"predicates", test_predicates},
    {"encodings", test_encodings},
    {"fr_reduce", test_fr_reduce},
    {"wide", test_wide},
};

TEST_MAIN(tests)
