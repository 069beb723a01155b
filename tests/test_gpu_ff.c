/* The device's field arithmetic (src/gpu/kernels/field.cl, fp2.cl) against
 * the CPU library (itself checked against @noble/curves and a big-integer
 * reference in test_ff), limb for limb: Fp and Fr add, sub, neg, dbl, mul,
 * sqr and the Montgomery conversions, Fp2 add, sub, neg, dbl, mul, sqr.
 *
 * Inputs: every pair of edge values -- 0, 1, 2, m-1, m-2, (m-1)/2,
 * (m+1)/2 and 2^k - 1, 2^k, 2^k + 1 at each limb boundary, each taken both
 * as an integer put into Montgomery form and as raw Montgomery limbs (the
 * carries and borrows of the limb code) -- then random elements, 4,096
 * or more per operation. */
#include "cuzk/ff.h"
#include "test_gpu_util.h"

enum { OP_ADD, OP_SUB, OP_NEG, OP_DBL, OP_MUL, OP_SQR, OP_TO_MONT, OP_FROM_MONT };
static const char *const op_names[] = {"add", "sub", "neg", "dbl", "mul", "sqr", "to_mont", "from_mont"};
#define NRANDOM 2048

/* One prime field as the test sees it: limbs, modulus, and the CPU calls. */
typedef struct {
    const char *kernel;
    size_t limbs;
    const uint64_t *modulus;
    void (*bin[2])(uint64_t *, const uint64_t *, const uint64_t *); /* add, sub */
    void (*mul)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*un[3])(uint64_t *, const uint64_t *); /* neg, dbl, sqr */
    int (*from_limbs)(uint64_t *, const uint64_t *);
    void (*to_limbs)(uint64_t *, const uint64_t *);
} field;

#define WRAP2(name, T)                                                                                       \
    static void name##_w(uint64_t *r, const uint64_t *a, const uint64_t *b)                                  \
    {                                                                                                        \
        name((T *)r, (const T *)a, (const T *)b);                                                            \
    }
#define WRAP1(name, T)                                                                                       \
    static void name##_w(uint64_t *r, const uint64_t *a)                                                     \
    {                                                                                                        \
        name((T *)r, (const T *)a);                                                                          \
    }
WRAP2(cuzk_fp_add, cuzk_fp)
WRAP2(cuzk_fp_sub, cuzk_fp)
WRAP2(cuzk_fp_mul, cuzk_fp)
WRAP1(cuzk_fp_neg, cuzk_fp)
WRAP1(cuzk_fp_dbl, cuzk_fp)
WRAP1(cuzk_fp_sqr, cuzk_fp)
WRAP2(cuzk_fr_add, cuzk_fr)
WRAP2(cuzk_fr_sub, cuzk_fr)
WRAP2(cuzk_fr_mul, cuzk_fr)
WRAP1(cuzk_fr_neg, cuzk_fr)
WRAP1(cuzk_fr_dbl, cuzk_fr)
WRAP1(cuzk_fr_sqr, cuzk_fr)
static int fp_from_w(uint64_t *r, const uint64_t *a)
{
    return cuzk_fp_from_limbs((cuzk_fp *)r, a);
}
static int fr_from_w(uint64_t *r, const uint64_t *a)
{
    return cuzk_fr_from_limbs((cuzk_fr *)r, a);
}
static void fp_to_w(uint64_t *r, const uint64_t *a)
{
    cuzk_fp_to_limbs(r, (const cuzk_fp *)a);
}
static void fr_to_w(uint64_t *r, const uint64_t *a)
{
    cuzk_fr_to_limbs(r, (const cuzk_fr *)a);
}

static const field FP = {"cz_test_fp",    6,
                         CUZK_FP_MODULUS, {cuzk_fp_add_w, cuzk_fp_sub_w},
                         cuzk_fp_mul_w,   {cuzk_fp_neg_w, cuzk_fp_dbl_w, cuzk_fp_sqr_w},
                         fp_from_w,       fp_to_w};
static const field FR = {"cz_test_fr",    4,
                         CUZK_FR_MODULUS, {cuzk_fr_add_w, cuzk_fr_sub_w},
                         cuzk_fr_mul_w,   {cuzk_fr_neg_w, cuzk_fr_dbl_w, cuzk_fr_sqr_w},
                         fr_from_w,       fr_to_w};

/* ---- integers of up to 6 limbs (canonical values below the modulus) ---------- */

static int cmp_n(const uint64_t *a, const uint64_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

static void add_small(uint64_t *r, const uint64_t *a, int64_t d, size_t n) /* r = a + d, |d| small */
{
    memcpy(r, a, n * 8);
    if (d >= 0) {
        for (size_t i = 0; i < n && d; i++) {
            uint64_t s = r[i] + (uint64_t)d;
            d = s < r[i];
            r[i] = s;
        }
    } else {
        uint64_t b = (uint64_t)-d;
        for (size_t i = 0; i < n && b; i++) {
            uint64_t s = r[i] - b;
            b = r[i] < b;
            r[i] = s;
        }
    }
}

/* The edge integers (< m) into out (limbs each); returns the count. */
static size_t edge_ints(const field *f, uint64_t *out)
{
    size_t n = 0, L = f->limbs;
    uint64_t v[6], half[6];
    const int64_t small[] = {0, 1, 2};
    for (int i = 0; i < 3; i++) {
        memset(v, 0, sizeof v);
        v[0] = (uint64_t)small[i];
        memcpy(out + L * n++, v, L * 8);
    }
    for (int d = -1; d >= -2; d--) { /* m-1, m-2 */
        add_small(v, f->modulus, d, L);
        memcpy(out + L * n++, v, L * 8);
    }
    for (size_t i = 0; i < L; i++) /* (m-1)/2, (m+1)/2 */
        half[i] = (f->modulus[i] >> 1) | (i + 1 < L ? f->modulus[i + 1] << 63 : 0);
    memcpy(out + L * n++, half, L * 8);
    add_small(v, half, 1, L);
    memcpy(out + L * n++, v, L * 8);
    size_t top = 64 * L - 1; /* the modulus's top bit */
    while (!(f->modulus[top / 64] >> (top % 64) & 1))
        top--;
    for (size_t k = 32; k <= top; k = k + 32 > top && k != top ? top : k + 32) { /* every half limb, 2^top */
        uint64_t p2[6] = {0};
        p2[k / 64] = 1ull << (k % 64);
        for (int d = -1; d <= 1; d++) {
            add_small(v, p2, d, L);
            if (cmp_n(v, f->modulus, L) < 0) memcpy(out + L * n++, v, L * 8);
        }
    }
    return n;
}

/* Edge elements: each edge integer in Montgomery form, then as raw limbs. */
static size_t edge_elems(const field *f, uint64_t *out)
{
    uint64_t ints[64 * 6];
    size_t n = edge_ints(f, ints), L = f->limbs;
    for (size_t i = 0; i < n; i++) {
        CHECK(f->from_limbs(out + L * i, ints + L * i) == CUZK_OK);
        memcpy(out + L * (n + i), ints + L * i, L * 8);
    }
    return 2 * n;
}

static void random_elem(const field *f, uint64_t *r)
{
    do {
        for (size_t i = 0; i < f->limbs; i++)
            r[i] = test_rand64();
        r[f->limbs - 1] &= f->limbs == 6 ? 0x1fffffffffffffffull : 0x7fffffffffffffffull;
    } while (cmp_n(r, f->modulus, f->limbs) >= 0);
}

/* a, b: every pair of edges, then random pairs (and random with edges).
 * Returns the count (allocated by the caller: edges^2 + NRANDOM). */
static size_t make_inputs(const field *f, uint64_t *a, uint64_t *b)
{
    uint64_t e[128 * 6];
    size_t ne = edge_elems(f, e), L = f->limbs, n = 0;
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++, n++) {
            memcpy(a + L * n, e + L * i, L * 8);
            memcpy(b + L * n, e + L * j, L * 8);
        }
    for (size_t k = 0; k < NRANDOM; k++, n++) {
        random_elem(f, a + L * n);
        if (k % 4 == 3)
            memcpy(b + L * n, e + L * (test_rand64() % ne), L * 8);
        else
            random_elem(f, b + L * n);
    }
    return n;
}

static size_t first_diff(const uint64_t *x, const uint64_t *y, size_t L, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(x + L * i, y + L * i, L * 8)) return i;
    return n;
}

static void check_field(const field *f)
{
    if (!gpu_test_device()) return;
    size_t L = f->limbs, cap = 128 * 128 + NRANDOM;
    uint64_t *a = malloc(cap * L * 8), *b = malloc(cap * L * 8), *want = malloc(cap * L * 8),
             *got = malloc(cap * L * 8), *ints = malloc(cap * L * 8);
    REQUIRE(a && b && want && got && ints);
    size_t n = make_inputs(f, a, b);
    for (size_t i = 0; i < n; i++) /* canonical integers for to_mont */
        f->to_limbs(ints + L * i, a + L * i);
    for (uint32_t op = OP_ADD; op <= OP_FROM_MONT; op++) {
        const uint64_t *in0 = op == OP_TO_MONT ? ints : a;
        for (size_t i = 0; i < n; i++) {
            uint64_t *w = want + L * i;
            const uint64_t *x = in0 + L * i, *y = b + L * i;
            switch (op) {
            case OP_ADD:
                f->bin[0](w, x, y);
                break;
            case OP_SUB:
                f->bin[1](w, x, y);
                break;
            case OP_MUL:
                f->mul(w, x, y);
                break;
            case OP_NEG:
                f->un[0](w, x);
                break;
            case OP_DBL:
                f->un[1](w, x);
                break;
            case OP_SQR:
                f->un[2](w, x);
                break;
            case OP_TO_MONT:
                CHECK(f->from_limbs(w, x) == CUZK_OK);
                break;
            default:
                f->to_limbs(w, x);
                break;
            }
        }
        const void *ins[2] = {in0, b};
        size_t bytes[2] = {L * 8, L * 8};
        if (!gpu_test_run(f->kernel, got, L * 8, ins, bytes, 2, op, n)) break;
        size_t d = first_diff(want, got, L, n);
        if (d < n) fprintf(stderr, "  %s %s: element %zu of %zu differs\n", f->kernel, op_names[op], d, n);
        CHECK(d == n);
    }
    printf("  %s: 8 ops x %zu elements equal to the CPU\n", f->kernel, n);
    free(a), free(b), free(want), free(got), free(ints);
}

static void test_fp(void)
{
    check_field(&FP);
}

static void test_fr(void)
{
    check_field(&FR);
}

/* Fp2: pairs of Fp edges and random elements as (c0, c1). */
static void test_fp2(void)
{
    if (!gpu_test_device()) return;
    uint64_t e[128 * 6];
    size_t ne = edge_elems(&FP, e), n = 4096;
    cuzk_fp2 *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *want = malloc(n * sizeof *want),
             *got = malloc(n * sizeof *got);
    REQUIRE(a && b && want && got);
    for (size_t i = 0; i < n; i++) {
        cuzk_fp *c[4] = {&a[i].c0, &a[i].c1, &b[i].c0, &b[i].c1};
        for (int k = 0; k < 4; k++)
            if (i < n / 2) /* edges, as pairs, in every combination the rng picks */
                memcpy(c[k], e + 6 * (test_rand64() % ne), sizeof(cuzk_fp));
            else
                random_elem(&FP, c[k]->l);
    }
    for (uint32_t op = OP_ADD; op <= OP_SQR; op++) {
        for (size_t i = 0; i < n; i++)
            switch (op) {
            case OP_ADD:
                cuzk_fp2_add(&want[i], &a[i], &b[i]);
                break;
            case OP_SUB:
                cuzk_fp2_sub(&want[i], &a[i], &b[i]);
                break;
            case OP_NEG:
                cuzk_fp2_neg(&want[i], &a[i]);
                break;
            case OP_DBL:
                cuzk_fp2_dbl(&want[i], &a[i]);
                break;
            case OP_MUL:
                cuzk_fp2_mul(&want[i], &a[i], &b[i]);
                break;
            default:
                cuzk_fp2_sqr(&want[i], &a[i]);
                break;
            }
        const void *ins[2] = {a, b};
        size_t bytes[2] = {sizeof *a, sizeof *b};
        if (!gpu_test_run("cz_test_fp2", got, sizeof *got, ins, bytes, 2, op, n)) break;
        size_t d = first_diff(want[0].c0.l, got[0].c0.l, 12, n);
        if (d < n) fprintf(stderr, "  fp2 %s: element %zu of %zu differs\n", op_names[op], d, n);
        CHECK(d == n);
    }
    free(a), free(b), free(want), free(got);
}

static const test_case tests[] = {
    {"fp", test_fp},
    {"fr", test_fr},
    {"fp2", test_fp2},
};

TEST_MAIN(tests)
