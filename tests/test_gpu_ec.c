/* The device's point operations (src/gpu/kernels/group.cl) on G1 and G2
 * against the CPU library (cuzk/ec.h, checked against @noble/curves in
 * test_vectors_ec): Jacobian add, mixed add with an affine point, double,
 * negate and affine-to-Jacobian, 2,048 elements per operation.
 *
 * Inputs are Jacobian points with random Z (so no formula can assume
 * Z = 1), and the exceptional cases every eighth element or so: P + P
 * (through add and mixed add), P + (-P), infinity on either side or both,
 * the affine infinity (0, 0).  Jacobian results are compared after
 * normalizing both to affine (a point has many Jacobian forms), byte for
 * byte; infinity must come back as Z = 0 exactly. */
#include "cuzk/ec.h"
#include "test_gpu_util.h"

enum { OP_ADD, OP_ADD_AFFINE, OP_DBL, OP_NEG, OP_FROM_AFFINE, NOPS };
static const char *const op_names[] = {"add", "add_affine", "dbl", "neg", "from_affine"};
enum { N = 2048, NBASE = 24 };

/* One group as the test sees it (cuzk_g1 or cuzk_g2 behind void pointers). */
typedef struct {
    const char *kernel;
    size_t jac, aff;           /* bytes of a Jacobian / affine point */
    void (*random)(void *jac); /* a random point, random Z */
    void (*add)(void *r, const void *p, const void *q);
    void (*add_affine)(void *r, const void *p, const void *qa);
    void (*dbl)(void *r, const void *p);
    void (*neg)(void *r, const void *p);
    void (*from_affine)(void *r, const void *qa);
    void (*to_affine)(void *ra, const void *p);
    void (*set_inf)(void *p);
    bool (*is_inf)(const void *p);
} group;

static cuzk_fr random_scalar(void)
{
    uint8_t b[32];
    cuzk_fr k;
    test_rand_bytes(b, 32);
    cuzk_fr_from_bytes_le_reduce(&k, b, 32);
    return k;
}

/* ---- G1 ---------------------------------------------------------------------------- */

static cuzk_g1 g1_base[NBASE];

static void g1_random(void *out)
{
    cuzk_g1 *r = out;
    if (cuzk_g1_is_inf(&g1_base[0])) /* first use: NBASE multiples of the generator */
        for (int i = 0; i < NBASE; i++) {
            cuzk_fr k = random_scalar();
            cuzk_g1_generator(&g1_base[i]);
            cuzk_g1_mul_var(&g1_base[i], &g1_base[i], &k);
        }
    cuzk_g1_add(r, &g1_base[test_rand64() % NBASE], &g1_base[test_rand64() % NBASE]);
    cuzk_fp z, z2, z3; /* (X z^2, Y z^3, Z z): the same point */
    uint8_t b[48];
    do {
        test_rand_bytes(b, 48);
        b[0] &= 0x0f;
    } while (cuzk_fp_from_bytes_be(&z, b) || cuzk_fp_is_zero(&z));
    cuzk_fp_sqr(&z2, &z);
    cuzk_fp_mul(&z3, &z2, &z);
    cuzk_fp_mul(&r->x, &r->x, &z2);
    cuzk_fp_mul(&r->y, &r->y, &z3);
    cuzk_fp_mul(&r->z, &r->z, &z);
}

static void g1_add_w(void *r, const void *p, const void *q)
{
    cuzk_g1_add(r, p, q);
}
static void g1_add_affine_w(void *r, const void *p, const void *q)
{
    cuzk_g1_add_affine(r, p, q);
}
static void g1_dbl_w(void *r, const void *p)
{
    cuzk_g1_dbl(r, p);
}
static void g1_neg_w(void *r, const void *p)
{
    cuzk_g1_neg(r, p);
}
static void g1_from_affine_w(void *r, const void *p)
{
    cuzk_g1_from_affine(r, p);
}
static void g1_to_affine_w(void *r, const void *p)
{
    cuzk_g1_to_affine(r, p);
}
static void g1_set_inf_w(void *p)
{
    cuzk_g1_set_inf(p);
}
static bool g1_is_inf_w(const void *p)
{
    return cuzk_g1_is_inf(p);
}

static const group G1 = {
    "cz_test_g1", sizeof(cuzk_g1), sizeof(cuzk_g1_affine), g1_random,      g1_add_w,     g1_add_affine_w,
    g1_dbl_w,     g1_neg_w,        g1_from_affine_w,       g1_to_affine_w, g1_set_inf_w, g1_is_inf_w};

/* ---- G2 ---------------------------------------------------------------------------- */

static cuzk_g2 g2_base[NBASE];

static void g2_random(void *out)
{
    cuzk_g2 *r = out;
    if (cuzk_g2_is_inf(&g2_base[0]))
        for (int i = 0; i < NBASE; i++) {
            cuzk_fr k = random_scalar();
            cuzk_g2_generator(&g2_base[i]);
            cuzk_g2_mul_var(&g2_base[i], &g2_base[i], &k);
        }
    cuzk_g2_add(r, &g2_base[test_rand64() % NBASE], &g2_base[test_rand64() % NBASE]);
    cuzk_fp2 z, z2, z3;
    uint8_t b[48];
    for (int c = 0; c < 2; c++)
        do {
            test_rand_bytes(b, 48);
            b[0] &= 0x0f;
        } while (cuzk_fp_from_bytes_be(c ? &z.c1 : &z.c0, b));
    if (cuzk_fp2_is_zero(&z)) z = CUZK_FP2_ONE;
    cuzk_fp2_sqr(&z2, &z);
    cuzk_fp2_mul(&z3, &z2, &z);
    cuzk_fp2_mul(&r->x, &r->x, &z2);
    cuzk_fp2_mul(&r->y, &r->y, &z3);
    cuzk_fp2_mul(&r->z, &r->z, &z);
}

static void g2_add_w(void *r, const void *p, const void *q)
{
    cuzk_g2_add(r, p, q);
}
static void g2_add_affine_w(void *r, const void *p, const void *q)
{
    cuzk_g2_add_affine(r, p, q);
}
static void g2_dbl_w(void *r, const void *p)
{
    cuzk_g2_dbl(r, p);
}
static void g2_neg_w(void *r, const void *p)
{
    cuzk_g2_neg(r, p);
}
static void g2_from_affine_w(void *r, const void *p)
{
    cuzk_g2_from_affine(r, p);
}
static void g2_to_affine_w(void *r, const void *p)
{
    cuzk_g2_to_affine(r, p);
}
static void g2_set_inf_w(void *p)
{
    cuzk_g2_set_inf(p);
}
static bool g2_is_inf_w(const void *p)
{
    return cuzk_g2_is_inf(p);
}

static const group G2 = {
    "cz_test_g2", sizeof(cuzk_g2), sizeof(cuzk_g2_affine), g2_random,      g2_add_w,     g2_add_affine_w,
    g2_dbl_w,     g2_neg_w,        g2_from_affine_w,       g2_to_affine_w, g2_set_inf_w, g2_is_inf_w};

/* ---- the comparison ------------------------------------------------------------------ */

#define AT(base, i, size) ((uint8_t *)(base) + (size_t)(i) * (size))

/* Element i's case: p, q (Jacobian) and qa = affine(q). */
static void make_case(const group *g, size_t i, void *p, void *q, void *qa)
{
    g->random(p);
    switch (i % 16) {
    case 0: /* P + P, q = p with Z = 1 (p's Z is random) */
        g->to_affine(qa, p);
        g->from_affine(q, qa);
        break;
    case 1:
        g->neg(q, p);
        break; /* P + (-P) */
    case 2:
        g->set_inf(p), g->random(q);
        break;
    case 3:
        g->set_inf(q);
        break;
    case 4:
        g->set_inf(p), g->set_inf(q);
        break;
    default:
        g->random(q);
        break;
    }
    g->to_affine(qa, q); /* infinity -> (0, 0) */
}

static void check_group(const group *g)
{
    if (!gpu_test_device()) return;
    void *p = malloc(N * g->jac), *q = malloc(N * g->jac), *qa = malloc(N * g->aff),
         *want = malloc(N * g->jac), *got = malloc(N * g->jac);
    uint8_t wa[sizeof(cuzk_g2_affine)], ga[sizeof(cuzk_g2_affine)];
    REQUIRE(p && q && qa && want && got);
    for (size_t i = 0; i < N; i++)
        make_case(g, i, AT(p, i, g->jac), AT(q, i, g->jac), AT(qa, i, g->aff));
    for (uint32_t op = 0; op < NOPS; op++) {
        for (size_t i = 0; i < N; i++) {
            void *w = AT(want, i, g->jac);
            const void *pi = AT(p, i, g->jac), *qi = AT(q, i, g->jac), *qai = AT(qa, i, g->aff);
            switch (op) {
            case OP_ADD:
                g->add(w, pi, qi);
                break;
            case OP_ADD_AFFINE:
                g->add_affine(w, pi, qai);
                break;
            case OP_DBL:
                g->dbl(w, pi);
                break;
            case OP_NEG:
                g->neg(w, pi);
                break;
            default:
                g->from_affine(w, qai);
                break;
            }
        }
        const void *ins[3] = {p, q, qa};
        size_t bytes[3] = {g->jac, g->jac, g->aff};
        if (!gpu_test_run(g->kernel, got, g->jac, ins, bytes, 3, op, N)) break;
        size_t bad = 0, first = N, infs = 0;
        for (size_t i = 0; i < N; i++) {
            const void *wi = AT(want, i, g->jac), *gi = AT(got, i, g->jac);
            g->to_affine(wa, wi);
            g->to_affine(ga, gi);
            bool ok = !memcmp(wa, ga, g->aff) && g->is_inf(wi) == g->is_inf(gi);
            infs += g->is_inf(wi);
            if (!ok && first == N) first = i;
            bad += !ok;
        }
        if (bad)
            fprintf(stderr, "  %s %s: %zu of %d differ, first element %zu (case %zu)\n", g->kernel,
                    op_names[op], bad, N, first, first % 16);
        CHECK(bad == 0);
        if (op == OP_ADD) CHECK(infs >= N / 16 * 2); /* P + (-P) and inf + inf did occur */
    }
    printf("  %s: %d ops x %d points equal to the CPU\n", g->kernel, NOPS, N);
    free(p), free(q), free(qa), free(want), free(got);
}

static void test_g1(void)
{
    check_group(&G1);
}

static void test_g2(void)
{
    check_group(&G2);
}

static const test_case tests[] = {
    {"g1", test_g1},
    {"g2", test_g2},
};

TEST_MAIN(tests)
