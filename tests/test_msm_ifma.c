/* MSM tests of the AVX-512 IFMA path (msm_ifma.c, msm_ifma_g2.c): the
 * 8-lane Fp / Fp2 products against the field layer bit for bit, the pair
 * kernels against the curve layer's complete addition, and the IFMA tile
 * window sums against the scalar path's.  Skipped where the CPU lacks
 * AVX-512 IFMA or the build has no asm. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "harness.h"
#include "msm/msm_internal.h"
#include "msm_util.h"
/* ---- AVX-512 IFMA path (msm_ifma.c) ------------------------------------------ */
#include "msm/msm_ifma.h"

/* Raw Fp value (limbs, < p) from 48 random bytes, top bits masked. */
static void rand_fp_raw(cuzk_fp *a)
{
    for (;;) {
        uint8_t b[48];
        test_rand_bytes(b, sizeof b);
        b[0] &= 0x1f;
        if (cuzk_fp_from_bytes_be(a, b) == CUZK_OK) return; /* rejects >= p */
    }
}

/* 0, 1, R mod p, p-1, p-2, 2^380-1, 2^379, p-2^64, 2^64-1 */
static void edge_fp(cuzk_fp *a, unsigned v)
{
    memset(a, 0, sizeof *a);
    switch (v % 9) {
    case 0:
        break;
    case 1:
        a->l[0] = 1;
        break;
    case 2:
        *a = CUZK_FP_ONE;
        break;
    case 3:
        memcpy(a->l, CUZK_FP_MODULUS, sizeof a->l);
        a->l[0] -= 1;
        break;
    case 4:
        memcpy(a->l, CUZK_FP_MODULUS, sizeof a->l);
        a->l[0] -= 2;
        break;
    case 5:
        memset(a->l, 0xff, sizeof a->l);
        a->l[5] = 0x0fffffffffffffffull;
        break;
    case 6:
        a->l[5] = (uint64_t)1 << 59;
        break;
    case 7:
        memcpy(a->l, CUZK_FP_MODULUS, sizeof a->l);
        a->l[1] -= 1;
        break;
    default:
        a->l[0] = ~(uint64_t)0;
        break;
    }
}

/* Eight-lane Fp2 product and square against the field layer's, bit for
 * bit (iteration it of test_ifma_mul): all pairs of edge values in either
 * coordinate first, then random values with edge coordinates mixed in. */
static void check_ifma_g2_mul(int it)
{
    cuzk_fp2 a[8], b[8], got[8], want;
    for (unsigned e = 0; e < 8; e++) {
        if (it < 81 * 4) { /* edge values in c0, c1 or both */
            unsigned u = (unsigned)it % 81, w = (unsigned)it / 81;
            edge_fp(&a[e].c0, w & 1 ? u / 9 : e);
            edge_fp(&a[e].c1, w & 2 ? u / 9 : e + 3);
            edge_fp(&b[e].c0, w & 1 ? u % 9 + e : e + 5);
            edge_fp(&b[e].c1, w & 2 ? u % 9 : e + 7);
            continue;
        }
        cuzk_fp *c[4] = {&a[e].c0, &a[e].c1, &b[e].c0, &b[e].c1};
        for (int q = 0; q < 4; q++) {
            if (test_rand64() % 4 == 0)
                edge_fp(c[q], (unsigned)test_rand64());
            else
                rand_fp_raw(c[q]);
        }
    }
    cuzk_msm_ifma_g2_mul8(got, a, b);
    for (unsigned e = 0; e < 8; e++) {
        cuzk_fp2_mul(&want, &a[e], &b[e]);
        CHECK(memcmp(&got[e], &want, sizeof want) == 0);
    }
    const cuzk_fp2 *x = it & 1 ? a : b;
    cuzk_msm_ifma_g2_sqr8(got, x);
    for (unsigned e = 0; e < 8; e++) {
        cuzk_fp2_mul(&want, &x[e], &x[e]);
        CHECK(memcmp(&got[e], &want, sizeof want) == 0);
    }
}

/* Eight-lane Fp and Fp2 products and squares against the field layer's,
 * bit for bit. */
static void test_ifma_mul(void)
{
    if (!cuzk_msm_ifma_available()) {
        test_skip("CPU without AVX-512 IFMA/VBMI2 or portable build");
        return;
    }
    for (int it = 0; it < 2000 * test_iterations; it++) {
        cuzk_fp a[8], b[8], got[8], want;
        for (unsigned e = 0; e < 8; e++) {
            if (it < 81) { /* all pairs of edge values first */
                edge_fp(&a[e], (unsigned)it / 9);
                edge_fp(&b[e], (unsigned)it % 9 + e);
            } else {
                unsigned v = (unsigned)(test_rand64() % 4);
                if (v == 0)
                    edge_fp(&a[e], (unsigned)test_rand64());
                else
                    rand_fp_raw(&a[e]);
                rand_fp_raw(&b[e]);
            }
        }
        cuzk_msm_ifma_mul8(got, a, b);
        for (unsigned e = 0; e < 8; e++) {
            cuzk_fp_mul(&want, &a[e], &b[e]);
            CHECK(memcmp(&got[e], &want, sizeof want) == 0);
        }
        cuzk_msm_ifma_sqr8(got, it & 1 ? a : b);
        for (unsigned e = 0; e < 8; e++) {
            const cuzk_fp *x = it & 1 ? &a[e] : &b[e];
            cuzk_fp_mul(&want, x, x);
            CHECK(memcmp(&got[e], &want, sizeof want) == 0);
        }
        check_ifma_g2_mul(it);
    }
}

/* One group for the generic kernel / path tests below (void * = that
 * group's affine point, projective point or field element). */
typedef struct {
    size_t aff, jac, fe; /* sizes */
    void (*gen)(void *out, size_t n, int nasty);
    void (*neg)(void *r, const void *a);
    void (*den)(void *d, const void *a, const void *b, int flag); /* x_b - x_a / 2 y_a / one */
    void (*sum)(void *r, const void *a, const void *b);           /* complete addition, affine */
    size_t (*work)(size_t n);
    void (*pairs)(void *O, const void *A, const void *B, const uint32_t *io, const uint32_t *ia,
                  const uint32_t *ib, const uint8_t *flag, void *den, void *work, size_t n);
    size_t (*tile_len)(size_t n, unsigned c);
    int (*tile)(void *out, const void *b, const uint32_t *idx, const cuzk_scalar *k, size_t n, unsigned c,
                unsigned nw, int st, void *s, size_t len);
    bool (*eq)(const void *a, const void *b);
    void (*naive)(void *r, const void *b, const cuzk_fr *k, size_t n);
    int (*msm)(void *r, const void *b, const cuzk_scalar *k, size_t n); /* scalar-path check, st 1 */
} grp;

/* The wrappers and the descriptor grp_<G> of one group: G = g1 / g2, F its
 * coordinate field (fp / fp2), ONE that field's one, PAIRS / WORK its pair
 * kernel. */
#define GRP_DEF(G, F, ONE, PAIRS, WORK)                                                                      \
    static void G##_gen(void *o, size_t n, int nasty)                                                        \
    {                                                                                                        \
        gen_##G(o, n, nasty);                                                                                \
    }                                                                                                        \
    static void G##_neg(void *r, const void *a)                                                              \
    {                                                                                                        \
        cuzk_##G##_affine_neg(r, a);                                                                         \
    }                                                                                                        \
    static void G##_den(void *d, const void *a, const void *b, int flag)                                     \
    {                                                                                                        \
        const cuzk_##G##_affine *pa = a, *pb = b;                                                            \
        if (flag == 0)                                                                                       \
            cuzk_##F##_sub(d, &pb->x, &pa->x);                                                               \
        else if (flag == 1)                                                                                  \
            cuzk_##F##_add(d, &pa->y, &pa->y);                                                               \
        else                                                                                                 \
            *(cuzk_##F *)d = ONE;                                                                            \
    }                                                                                                        \
    static void G##_sum(void *r, const void *a, const void *b)                                               \
    {                                                                                                        \
        cuzk_##G pa, pb;                                                                                     \
        cuzk_##G##_from_affine(&pa, a);                                                                      \
        cuzk_##G##_from_affine(&pb, b);                                                                      \
        cuzk_##G##_add(&pa, &pa, &pb);                                                                       \
        cuzk_##G##_to_affine(r, &pa);                                                                        \
    }                                                                                                        \
    static void G##_pairs(void *O, const void *A, const void *B, const uint32_t *io, const uint32_t *ia,     \
                          const uint32_t *ib, const uint8_t *flag, void *den, void *work, size_t n)          \
    {                                                                                                        \
        PAIRS(O, A, B, io, ia, ib, flag, den, work, n);                                                      \
    }                                                                                                        \
    static int G##_tile(void *out, const void *b, const uint32_t *idx, const cuzk_scalar *k, size_t n,       \
                        unsigned c, unsigned nw, int st, void *s, size_t len)                                \
    {                                                                                                        \
        return cuzk_msm_##G##_tile(out, b, idx, k, n, c, 0, nw, st, s, len);                                 \
    }                                                                                                        \
    static bool G##_eq(const void *a, const void *b)                                                         \
    {                                                                                                        \
        return cuzk_##G##_eq(a, b);                                                                          \
    }                                                                                                        \
    static void G##_naive(void *r, const void *b, const cuzk_fr *k, size_t n)                                \
    {                                                                                                        \
        naive_##G(r, b, k, n, NULL);                                                                         \
    }                                                                                                        \
    static int G##_msm(void *r, const void *b, const cuzk_scalar *k, size_t n)                               \
    {                                                                                                        \
        cuzk_msm_opts o = {0, 0, 1};                                                                         \
        return cuzk_msm_##G##_opts(NULL, r, b, n, k, n, NULL, NULL, 0, &o);                                  \
    }                                                                                                        \
    static const grp grp_##G = {.aff = sizeof(cuzk_##G##_affine),                                            \
                                .jac = sizeof(cuzk_##G),                                                     \
                                .fe = sizeof(cuzk_##F),                                                      \
                                .gen = G##_gen,                                                              \
                                .neg = G##_neg,                                                              \
                                .den = G##_den,                                                              \
                                .sum = G##_sum,                                                              \
                                .work = WORK,                                                                \
                                .pairs = G##_pairs,                                                          \
                                .tile_len = cuzk_msm_##G##_tile_scratch_sizeof,                              \
                                .tile = G##_tile,                                                            \
                                .eq = G##_eq,                                                                \
                                .naive = G##_naive,                                                          \
                                .msm = G##_msm};
GRP_DEF(g1, fp, CUZK_FP_ONE, cuzk_msm_ifma_pairs, cuzk_msm_ifma_work_bytes)
GRP_DEF(g2, fp2, CUZK_FP2_ONE, cuzk_msm_ifma_g2_pairs, cuzk_msm_ifma_g2_work_bytes)

#define AT(p, i) ((uint8_t *)(p) + (size_t)(i)*g->aff)

/* A pair kernel against the curve layer's complete addition: additions,
 * doublings, cancellations and other-flag pairs (must stay unwritten),
 * n = 0, 1, odd and around the 8 / 16 lane blocks, separate output and in
 * place (O = A, io = ia). */
static void run_ifma_pairs(const grp *g)
{
    if (!cuzk_msm_ifma_available()) {
        test_skip("CPU without AVX-512 IFMA/VBMI2 or portable build");
        return;
    }
    static const size_t ns[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 100, 257};
    size_t maxn = 257, cap = 272;
    void *A = malloc(maxn * g->aff), *B = malloc(maxn * g->aff), *O = malloc(maxn * g->aff);
    void *A0 = malloc(maxn * g->aff), *want = malloc(g->aff), *junk = malloc(g->aff);
    uint8_t *den = malloc(cap * g->fe);
    uint32_t *ia = malloc(maxn * 4), *ib = malloc(maxn * 4), *io = malloc(maxn * 4);
    uint8_t *flag = malloc(maxn);
    void *work = malloc(g->work(maxn));
    CHECK(A && B && O && A0 && want && junk && den && ia && ib && io && flag && work);
    memset(junk, 0x5a, g->aff);
    g->gen(B, maxn, 0);
    for (size_t q = 0; q < sizeof ns / sizeof ns[0]; q++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            size_t n = ns[q];
            g->gen(A, n, 0);
            for (size_t i = 0; i < n; i++) {
                unsigned v = (unsigned)(test_rand64() % 6);
                /* B in reverse order through ib; io a rotation (separate) */
                ib[i] = (uint32_t)(n - 1 - i);
                ia[i] = (uint32_t)i;
                io[i] = inplace ? (uint32_t)i : (uint32_t)((i + 3) % n);
                flag[i] = v == 1 ? 1 : v == 2 ? 2 : v == 3 ? 3 : 0;
                if (flag[i] == 1) memcpy(AT(A, i), AT(B, ib[i]), g->aff);
                if (flag[i] == 2) g->neg(AT(A, i), AT(B, ib[i]));
                g->den(den + i * g->fe, AT(A, i), AT(B, ib[i]), flag[i]);
            }
            memcpy(A0, A, n * g->aff);
            memset(O, 0x5a, maxn * g->aff);
            void *out = inplace ? A : O;
            g->pairs(out, A, B, io, ia, ib, flag, den, work, n);
            for (size_t i = 0; i < n; i++) {
                const void *r = AT(out, io[i]);
                if (flag[i] >= 2) { /* not written */
                    CHECK(memcmp(r, inplace ? AT(A0, i) : junk, g->aff) == 0);
                    continue;
                }
                g->sum(want, AT(A0, i), AT(B, ib[i]));
                CHECK(memcmp(r, want, g->aff) == 0);
            }
        }
    }
    free(A), free(B), free(O), free(A0), free(want), free(junk), free(den), free(ia), free(ib), free(io),
        free(flag), free(work);
}

static void test_ifma_pairs(void)
{
    run_ifma_pairs(&grp_g1);
}
static void test_ifma_g2_pairs(void)
{
    run_ifma_pairs(&grp_g2);
}

/* Window sums of the tile API with the IFMA path and the scalar path are
 * bit-identical (and the MSM equals the naive sum on the scalar path too):
 * random points, repeated points (doublings), P / -P (cancellations),
 * infinities, n = 0, 1 and odd counts, bucket arrays with and without the
 * lane running sums (c >= 13; c = 12 on the IFMA path). */
static void run_ifma_paths(const grp *g, size_t maxn)
{
    /* Without the kernels both runs below would take the scalar path and
     * compare it with itself: only the naive-sum check is meaningful. */
    const int ifma = cuzk_msm_ifma_available();
    static const size_t ns[] = {0, 1, 3, 17, 255, 1001, 5003};
    static const unsigned cs[] = {4, 9, 12, 13};
    for (size_t q = 0; q < sizeof ns / sizeof ns[0] && ns[q] <= maxn; q++)
        for (int kind = 0; kind < 3; kind++) {
            size_t n = ns[q];
            uint8_t *b = malloc((n + 1) * g->aff);
            cuzk_fr *k = malloc((n + 1) * sizeof *k);
            cuzk_scalar *ks = malloc((n + 1) * sizeof *ks);
            uint32_t *idx = malloc((n + 1) * sizeof *idx);
            CHECK(b && k && ks && idx);
            g->gen(b, n, kind != 0);
            if (kind == 2) /* few distinct points: many doublings and cancellations */
                for (size_t i = 3; i < n; i++) {
                    unsigned v = (unsigned)(test_rand64() % 4);
                    if (v == 0)
                        g->neg(AT(b, i), AT(b, i % 3));
                    else if (v < 3)
                        memcpy(AT(b, i), AT(b, i % 3), g->aff);
                }
            gen_scalars(k, n, kind == 2 ? 2 : kind);
            if (kind == 2)
                for (size_t i = 0; i < n; i++)
                    cuzk_fr_from_u64(&k[i], 1 + test_rand64() % 5);
            cuzk_scalars_from_fr(ks, k, n);
            for (size_t i = 0; i < n; i++)
                idx[i] = (uint32_t)i;
            for (size_t ci = 0; ci < sizeof cs / sizeof cs[0] && ifma; ci++)
                for (int st = 1; st <= 3; st += 2) {
                    unsigned c = cs[ci], nw = cuzk_msm_nwindows(c);
                    if (c >= 12 && n < 255) continue;
                    size_t len = g->tile_len(n, c);
                    void *s = malloc(len);
                    uint8_t *w0 = malloc(nw * g->jac), *w1 = malloc(nw * g->jac);
                    CHECK(s && w0 && w1);
                    cuzk_msm_ifma_force_scalar(1);
                    CHECK(g->tile(w0, b, idx, ks, n, c, nw, st, s, len) == CUZK_OK);
                    cuzk_msm_ifma_force_scalar(0);
                    CHECK(cuzk_msm_ifma_active()); /* w1 really comes from the kernels */
                    CHECK(g->tile(w1, b, idx, ks, n, c, nw, st, s, len) == CUZK_OK);
                    /* c = 12: lane running sums on the IFMA path only (the
                     * same points, other coordinates) */
                    for (unsigned w = 0; w < nw; w++)
                        CHECK(g->eq(w0 + w * g->jac, w1 + w * g->jac));
                    if (c != 12) CHECK(memcmp(w0, w1, nw * g->jac) == 0);
                    free(s), free(w0), free(w1);
                }
            /* the whole MSM on the scalar path against the naive sum */
            if (n <= 1001) {
                uint8_t ref[sizeof(cuzk_g2)], got[sizeof(cuzk_g2)];
                g->naive(ref, b, k, n);
                cuzk_msm_ifma_force_scalar(1);
                CHECK(g->msm(got, b, ks, n) == CUZK_OK);
                cuzk_msm_ifma_force_scalar(0);
                CHECK(g->eq(got, ref));
            }
            free(b), free(k), free(ks), free(idx);
        }
    if (!ifma)
        test_skip("CPU without AVX-512 IFMA/VBMI2 or portable build: IFMA-vs-scalar comparison not run "
                  "(the scalar MSM was checked against the naive sum)");
}

static void test_g1_ifma_paths(void)
{
    run_ifma_paths(&grp_g1, 5003);
}
/* Under ASan each 64-byte access of the kernels is a runtime call: there the
 * G2 sizes stop at 255 (still every branch: c >= 12 needs n >= 255; 82 s ->
 * a few); the release build runs 1001 as well. */
#if defined(__SANITIZE_ADDRESS__)
#define G2_PATHS_MAXN 255
#else
#define G2_PATHS_MAXN 1001
#endif
static void test_g2_ifma_paths(void)
{
    run_ifma_paths(&grp_g2, G2_PATHS_MAXN);
}

static const test_case tests[] = {
    {"ifma_mul", test_ifma_mul},           {"ifma_pairs", test_ifma_pairs},
    {"g1_ifma_paths", test_g1_ifma_paths}, {"ifma_g2_pairs", test_ifma_g2_pairs},
    {"g2_ifma_paths", test_g2_ifma_paths},
};

TEST_MAIN(tests)
