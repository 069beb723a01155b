/* Parallel synthesis (cuzk_cs_set_par + cuzk_cs_synthesize_items) against
 * sequential synthesis of the same circuit, for every circuit kind: the
 * reference is the plain one-thread run, and the parallel runs must equal
 * it bit for bit -- counts, SHA-256 of the CSR export (CUZK_CS_MATRICES),
 * input and aux assignments, the a, b, c evaluations, the three density
 * bitmaps, CHECK's first unsatisfied row, and the error (status and
 * message) when an item fails.  Schedules: real pools of 2 and 3 threads,
 * chunk counts that do not divide the items, and a par that runs the chunks
 * in reverse order on one thread (any schedule must give the same result). */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/pool.h"
#include "cuzk/porep.h"
#include "cuzk/post.h"
#include "cuzk/r1cs.h"
#include "cuzk/snap.h"
#include "cuzk/status.h"
#include "harness.h"
#include "post_util.h"

static void rev_for_each(cuzk_par *par, cuzk_task_fn fn, void *arg, size_t n)
{
    (void)par;
    for (size_t i = n; i-- > 0;)
        fn(arg, i);
}
static cuzk_par rev_par = {rev_for_each, 2, NULL};

typedef struct {
    cuzk_par *par;
    size_t chunks;
} variant;

static cuzk_pool *pool2, *pool3;

/* Pools of 2 and 3 threads, made on first use (any test may run alone). */
static void pools(void)
{
    if (!pool2) CHECK(cuzk_pool_create(&pool2, 2) == CUZK_OK);
    if (!pool3) CHECK(cuzk_pool_create(&pool3, 3) == CUZK_OK);
}

/* Schedules compared with the sequential run: auto chunks, reverse order,
 * uneven chunk counts.  The PoRep cases (1.2 M rows a challenge) take the
 * first three only, to stay fast under ASan. */
static size_t variants(variant *v, size_t most)
{
    size_t n = 0;
    pools();
#if CUZK_TEST_SANITIZED
    /* ASan (make test's slowest lane, 96 s for this test there): a real
     * pool with uneven chunks and the reverse order -- every access the
     * other schedules make, in two runs instead of five; the release build
     * runs all five */
    v[n++] = (variant){cuzk_pool_par(pool3), 5};
    v[n++] = (variant){&rev_par, 3};
    return n < most ? n : most;
#endif
    v[n++] = (variant){cuzk_pool_par(pool2), 0};
    v[n++] = (variant){&rev_par, 3};
    v[n++] = (variant){cuzk_pool_par(pool3), 5};
    v[n++] = (variant){cuzk_pool_par(pool3), 0};
    v[n++] = (variant){cuzk_pool_par(pool2), 3};
    return n < most ? n : most;
}

typedef struct {
    cuzk_circuit_fn fn;
    void *ctx;
} circuit;

static cuzk_cs *synth(const circuit *c, cuzk_cs_mode mode, unsigned flags, const variant *v, int *rc)
{
    cuzk_cs *cs = NULL;
    *rc = cuzk_cs_new(&cs, mode, flags);
    if (*rc) return NULL;
    if (v) CHECK(cuzk_cs_set_par(cs, v->par, v->chunks) == CUZK_OK);
    *rc = cuzk_cs_synthesize(cs, c->fn, c->ctx);
    return cs;
}

static void csr_digest(const cuzk_cs *cs, uint8_t out[32])
{
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    CHECK(m && EVP_DigestInit_ex(m, EVP_sha256(), NULL) == 1);
    for (int k = 0; k < 3; k++) {
        cuzk_csr x;
        CHECK(cuzk_cs_matrix(cs, k, &x) == CUZK_OK);
        size_t dims[3] = {x.rows, x.cols, x.nnz};
        EVP_DigestUpdate(m, dims, sizeof dims);
        EVP_DigestUpdate(m, x.row_ptr, (x.rows + 1) * sizeof *x.row_ptr);
        EVP_DigestUpdate(m, x.col, x.nnz * sizeof *x.col);
        EVP_DigestUpdate(m, x.val, x.nnz * sizeof *x.val);
    }
    unsigned n = 0;
    CHECK(EVP_DigestFinal_ex(m, out, &n) == 1 && n == 32);
    EVP_MD_CTX_free(m);
}

static bool same_bits(const uint64_t *a, const uint64_t *b, size_t nbits)
{
    if (!a || !b) return a == b || !nbits;
    for (size_t i = 0; i < nbits; i++)
        if (((a[i / 64] ^ b[i / 64]) >> (i % 64)) & 1) return false;
    return true;
}

static bool same_frs(const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    if (!a || !b) return a == b;
    return !memcmp(a, b, n * sizeof *a);
}

/* b (parallel) equals a (sequential) in everything the mode keeps. */
static void check_same(const cuzk_cs *a, const cuzk_cs *b, const char *what)
{
    cuzk_cs_counts x, y;
    cuzk_cs_get_counts(a, &x);
    cuzk_cs_get_counts(b, &y);
    bool ok = !memcmp(&x, &y, sizeof x);
    ok = ok && same_frs(cuzk_cs_input_assignment(a), cuzk_cs_input_assignment(b), x.inputs);
    ok = ok && same_frs(cuzk_cs_aux_assignment(a), cuzk_cs_aux_assignment(b), x.aux);
    for (int k = 0; k < 3; k++)
        ok = ok && same_frs(cuzk_cs_eval(a, k), cuzk_cs_eval(b, k), x.constraints);
    ok = ok && same_bits(cuzk_cs_density_a_aux(a), cuzk_cs_density_a_aux(b), x.aux);
    ok = ok && same_bits(cuzk_cs_density_b_aux(a), cuzk_cs_density_b_aux(b), x.aux);
    ok = ok && same_bits(cuzk_cs_density_b_input(a), cuzk_cs_density_b_input(b), x.inputs);
    size_t ia = 0, ib = 0;
    const char *pa = "", *pb = "";
    bool sa = cuzk_cs_is_satisfied(a, &ia, &pa), sb = cuzk_cs_is_satisfied(b, &ib, &pb);
    ok = ok && sa == sb && ia == ib && !strcmp(pa, pb);
    if (!ok)
        fprintf(stderr,
                "  %s: parallel differs (constraints %zu/%zu aux %zu/%zu nnz_a %zu/%zu sat %d/%d @%zu/%zu)\n",
                what, x.constraints, y.constraints, x.aux, y.aux, x.nnz_a, y.nnz_a, sa, sb, ia, ib);
    CHECK(ok);
}

/* Every schedule against the sequential run in `mode`. */
static void compare_mode_n(const circuit *c, cuzk_cs_mode mode, const char *what, size_t most)
{
    int rc;
    cuzk_cs *ref = synth(c, mode, 0, NULL, &rc);
    REQUIRE(ref);
    if (rc) fprintf(stderr, "  %s: %s\n", what, cuzk_cs_error(ref));
    REQUIRE(rc == CUZK_OK);
    variant v[8];
    size_t nv = variants(v, most);
    for (size_t i = 0; i < nv; i++) {
        cuzk_cs *cs = synth(c, mode, 0, &v[i], &rc);
        if (cs && rc) fprintf(stderr, "  %s variant %zu: %s\n", what, i, cuzk_cs_error(cs));
        CHECK(cs && rc == CUZK_OK);
        if (cs && !rc) check_same(ref, cs, what);
        cuzk_cs_free(cs);
    }
    cuzk_cs_free(ref);
}

static void compare_mode(const circuit *c, cuzk_cs_mode mode, const char *what)
{
    compare_mode_n(c, mode, what, 8);
}

/* SHA-256 of the CSR export, sequential vs `most` (1 or 2) schedules, one
 * system at a time (a 2 KiB PoRep's matrices are ~0.4 GB). */
static void compare_csr_n(const circuit *c, const char *what, int most)
{
    uint8_t want[32], got[32];
    int rc;
    cuzk_cs *cs = synth(c, CUZK_CS_SHAPE, CUZK_CS_MATRICES, NULL, &rc);
    REQUIRE(cs && rc == CUZK_OK);
    csr_digest(cs, want);
    cuzk_cs_free(cs);
    pools();
    variant v[2] = {{cuzk_pool_par(pool3), 0}, {&rev_par, 3}};
    for (int i = 2 - most; i < 2; i++) {
        cs = synth(c, CUZK_CS_SHAPE, CUZK_CS_MATRICES, &v[i], &rc);
        CHECK(cs && rc == CUZK_OK);
        if (cs && !rc) {
            csr_digest(cs, got);
            if (memcmp(want, got, 32)) fprintf(stderr, "  %s: CSR digest differs (schedule %d)\n", what, i);
            CHECK(!memcmp(want, got, 32));
        }
        cuzk_cs_free(cs);
    }
}

static void compare_csr(const circuit *c, const char *what)
{
    compare_csr_n(c, what, 2);
}

/* The same failing run sequentially and in parallel: same status, message. */
static void compare_error(const circuit *c, const char *what, size_t most)
{
    int rc0, rc;
    cuzk_cs *ref = synth(c, CUZK_CS_PROVE, 0, NULL, &rc0);
    REQUIRE(ref);
    CHECK(rc0 != CUZK_OK);
    variant v[8];
    size_t nv = variants(v, most);
    for (size_t i = 0; i < nv; i++) {
        cuzk_cs *cs = synth(c, CUZK_CS_PROVE, 0, &v[i], &rc);
        REQUIRE(cs);
        if (rc != rc0 || strcmp(cuzk_cs_error(ref), cuzk_cs_error(cs)))
            fprintf(stderr, "  %s: sequential %d '%s', parallel %d '%s'\n", what, rc0, cuzk_cs_error(ref), rc,
                    cuzk_cs_error(cs));
        CHECK(rc == rc0 && !strcmp(cuzk_cs_error(ref), cuzk_cs_error(cs)));
        cuzk_cs_free(cs);
    }
    cuzk_cs_free(ref);
}

/* ---- a toy circuit: header + items sharing header variables --------------- */

typedef struct {
    size_t n, bad_from, odd_item, peek_item; /* SIZE_MAX: none */
    cuzk_var h[3];
} toy_ctx;

static int toy_item(cuzk_cs *cs, void *vctx, void *scratch, size_t i)
{
    toy_ctx *t = vctx;
    (void)scratch;
    bool vals = cuzk_cs_needs_values(cs);
    cuzk_fr x, y;
    cuzk_fr_from_u64(&x, 3 + i);
    cuzk_fr_mul(&y, &x, cuzk_cs_value(cs, t->h[i % 3]) ? cuzk_cs_value(cs, t->h[i % 3]) : &CUZK_FR_ONE);
    if (i >= t->bad_from) cuzk_fr_add(&y, &y, &CUZK_FR_ONE);
    cuzk_var a, b, in;
    int rc = cuzk_cs_alloc(cs, &a, vals ? &x : NULL);
    if (!rc) rc = cuzk_cs_alloc(cs, &b, vals ? &y : NULL);
    if (!rc) rc = cuzk_cs_alloc_input(cs, &in, vals ? &x : NULL);
    if (rc) return rc;
    /* a * h = b, with a duplicate term and a zero coefficient in B */
    cuzk_term ta[2] = {{a, CUZK_FR_ONE}, {a, CUZK_FR_ZERO}},
              tb[2] = {{t->h[i % 3], CUZK_FR_ONE}, {t->h[(i + 1) % 3], CUZK_FR_ZERO}}, tc = {b, CUZK_FR_ONE},
              ti = {in, CUZK_FR_ONE}, one = {CUZK_ONE, CUZK_FR_ONE}, tx = {a, CUZK_FR_ONE};
    if (!rc) rc = cuzk_cs_enforce(cs, ta, 2, tb, 2, &tc, 1);
    if (!rc) rc = cuzk_cs_enforce(cs, &ti, 1, &one, 1, &tx, 1);
    if (!rc && i == t->odd_item) rc = cuzk_cs_alloc(cs, &a, vals ? &x : NULL); /* one aux too many */
    if (!rc && i == t->peek_item) {
        cuzk_var other = CUZK_VAR_AUX | (CUZK_VAR_INDEX(b) + 2); /* the next item's first aux */
        cuzk_term to = {other, CUZK_FR_ONE};
        rc = cuzk_cs_enforce(cs, &to, 1, &one, 1, &to, 1);
    }
    return rc;
}

static int toy_circuit(cuzk_cs *cs, void *vctx)
{
    toy_ctx *t = vctx;
    bool vals = cuzk_cs_needs_values(cs);
    for (int k = 0; k < 3; k++) {
        cuzk_fr v;
        cuzk_fr_from_u64(&v, 5 + (uint64_t)k);
        int rc = cuzk_cs_alloc(cs, &t->h[k], vals ? &v : NULL);
        if (rc) return rc;
    }
    cuzk_cs_items it = {t->n, toy_item, NULL, NULL, t, "toy item"};
    return cuzk_cs_synthesize_items(cs, &it);
}

static void test_toy(void)
{
    /* 130 items x 2 aux: chunk borders fall inside density words */
    toy_ctx t = {130, SIZE_MAX, SIZE_MAX, SIZE_MAX, {0}};
    circuit c = {toy_circuit, &t};
    for (int m = 0; m < 4; m++)
        compare_mode(&c, (cuzk_cs_mode)m, "toy");
    compare_csr(&c, "toy");
    t.bad_from = 77; /* CHECK: the first unsatisfied row is item 77's */
    compare_mode(&c, CUZK_CS_CHECK, "toy unsatisfied");
}

static void test_toy_contract(void)
{
    toy_ctx t = {40, SIZE_MAX, 17, SIZE_MAX, {0}};
    circuit c = {toy_circuit, &t};
    pools();
    variant v = {cuzk_pool_par(pool2), 4};
    int rc;
    cuzk_cs *cs = synth(&c, CUZK_CS_PROVE, 0, &v, &rc); /* item 17 is bigger: refused */
    REQUIRE(cs);
    CHECK(rc == CUZK_ERR_ARG && strstr(cuzk_cs_error(cs), "same shape"));
    cuzk_cs_free(cs);
    t.odd_item = SIZE_MAX;
    t.peek_item = 9; /* item 9 reads item 10's variable: refused in parallel */
    cs = synth(&c, CUZK_CS_PROVE, 0, &v, &rc);
    REQUIRE(cs);
    CHECK(rc == CUZK_ERR_ARG && strstr(cuzk_cs_error(cs), "another item"));
    cuzk_cs_free(cs);
    /* the row observer and parallel synthesis refuse each other */
    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0) == CUZK_OK);
    CHECK(cuzk_cs_set_par(cs, &rev_par, 2) == CUZK_OK);
    CHECK(cuzk_cs_set_row_observer(cs, NULL, NULL) == CUZK_ERR_ARG);
    cuzk_cs_free(cs);
}

/* ---- PoRep ------------------------------------------------------------------ */

typedef struct {
    cuzk_porep_random_witness rw;
    size_t fail_from;
} failing_porep;

static int porep_failing_witness(void *wctx, size_t i, cuzk_porep_challenge_witness *out, char *err,
                                 size_t len)
{
    const failing_porep *f = wctx;
    if (i >= f->fail_from)
        return cuzk_errf(err, len, CUZK_ERR_FORMAT, "injected failure at challenge %zu", i);
    return cuzk_porep_random_witness_fn((void *)&f->rw, i, out, err, len);
}

static void test_porep(void)
{
    const cuzk_fil_seal_info *info;
    REQUIRE(cuzk_fil_seal_lookup(&info, 5) == CUZK_OK); /* 2 KiB V1_1: 2 challenges */
    cuzk_porep_circuit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    REQUIRE(cuzk_porep_shape_for(&ctx.shape, info) == CUZK_OK);
    circuit c = {cuzk_porep_circuit, &ctx};
    compare_csr_n(&c, "porep 2KiB", 1); /* the reverse-order schedule */
    /* a synthetic shape: the 2 KiB tree with 3 challenges (uneven chunks) */
    failing_porep f = {{test_rand64(), {0}}, SIZE_MAX};
    REQUIRE(cuzk_porep_shape_make(&f.rw.shape, ctx.shape.nodes, 2, 3, &ctx.shape.tree) == CUZK_OK);
    ctx.shape = f.rw.shape;
    ctx.witness = porep_failing_witness;
    ctx.wctx = &f;
    compare_mode_n(&c, CUZK_CS_PROVE, "porep 2KiB x 3 challenges", 3);
    f.fail_from = 1; /* challenges 1 and 2 fail: challenge 1's error, in every schedule */
    compare_error(&c, "porep failing witness", 3);
}

/* ---- SnapDeals ---------------------------------------------------------------- */

typedef struct {
    cuzk_snap_random_witness rw;
    size_t fail_from;
} failing_snap;

static int snap_failing_witness(void *wctx, size_t i, cuzk_snap_challenge_witness *out, char *err, size_t len)
{
    const failing_snap *f = wctx;
    if (i >= f->fail_from)
        return cuzk_errf(err, len, CUZK_ERR_FORMAT, "injected failure at challenge %zu", i);
    return cuzk_snap_random_witness_fn((void *)&f->rw, i, out, err, len);
}

static void test_snap(void)
{
    cuzk_snap_circuit_ctx *ctx = calloc(1, sizeof *ctx);
    REQUIRE(ctx);
    REQUIRE(cuzk_snap_shape_for(&ctx->shape, 2048, true) == CUZK_OK);
    failing_snap f = {{test_rand64(), ctx->shape}, SIZE_MAX};
    ctx->h = ctx->shape.hs[3];
    ctx->witness = snap_failing_witness;
    ctx->wctx = &f;
    circuit c = {cuzk_snap_circuit, ctx};
    compare_mode(&c, CUZK_CS_PROVE, "snap 2KiB");
    compare_csr(&c, "snap 2KiB");
    f.fail_from = 6;
    compare_error(&c, "snap failing witness", 8);
    free(ctx);
}

/* ---- PoSt ---------------------------------------------------------------------- */

static int post_gate(void *gctx, size_t sector)
{
    return sector >= *(const size_t *)gctx ? CUZK_ERR_ARG : CUZK_OK;
}

/* WindowPoSt 2 KiB over 7 sectors (the two real ones repeated: the circuit
 * takes any count), CHECK with sectors 4 and 5 broken, and a gate that
 * stops at sector 3. */
static void window_several(const cuzk_post_job *j)
{
    cuzk_circuit_fn fn;
    void *vctx;
    cuzk_post_job_circuit(j, &fn, &vctx);
    cuzk_post_circuit_ctx ctx = *(const cuzk_post_circuit_ctx *)vctx;
    cuzk_post_circuit_sector sec[7];
    for (size_t i = 0; i < 7; i++)
        sec[i] = ctx.sectors[i % 2];
    ctx.sectors = sec;
    ctx.n_sectors = 7;
    circuit c = {fn, &ctx};
    compare_mode(&c, CUZK_CS_PROVE, "window 2KiB x 7 sectors");
    compare_mode(&c, CUZK_CS_CHECK, "window 2KiB x 7 sectors");
    compare_csr(&c, "window 2KiB x 7 sectors");
    memcpy(sec[4].comm_r, sec[1].comm_r_last, 32); /* comm_r != H(comm_c, comm_r_last) */
    memcpy(sec[5].comm_r, sec[0].comm_r_last, 32);
    compare_mode(&c, CUZK_CS_CHECK, "window 2KiB, sectors 4 and 5 unsatisfied");
    size_t stop = 3;
    ctx.gate = post_gate;
    ctx.gate_ctx = &stop;
    compare_error(&c, "window gate", 8);
}

static void test_post(void)
{
    pt_sector s[2];
    pt_sector_make(&s[0], 21, 2048);
    pt_sector_make(&s[1], 22, 2048);
    uint8_t rnd[32], pid[32];
    pt_rand_dom(rnd);
    cuzk_post_prover_id(pid, 1000);
    const uint64_t ids[2] = {0, 10}; /* Winning 2 KiB (66 sectors), Window 2 KiB (2) */
    pools();
    for (int t = 0; t < 2; t++) {
        const cuzk_fil_post_info *p;
        REQUIRE(cuzk_fil_post_lookup(&p, ids[t]) == CUZK_OK);
        size_t n = p->winning ? 1 : 2, len[2];
        uint8_t *v[2] = {NULL, NULL};
        for (size_t i = 0; i < n; i++)
            v[i] = pt_vanilla(&len[i], &s[i], p, rnd, i);
        cuzk_post_job *j = NULL;
        char err[256] = "";
        CHECK(cuzk_post_job_new(&j, ids[t], (const uint8_t *const *)v, len, n, rnd, pid, 0, err,
                                sizeof err) == 0);
        if (j) {
            cuzk_circuit_fn fn;
            void *ctx;
            cuzk_post_job_circuit(j, &fn, &ctx);
            circuit c = {fn, ctx};
            compare_mode(&c, CUZK_CS_PROVE, p->name);
            compare_mode(&c, CUZK_CS_CHECK, p->name);
            compare_csr(&c, p->name);
            if (!p->winning) window_several(j);
            /* the job's own entry point */
            cuzk_cs *a = NULL, *b = NULL;
            CHECK(cuzk_post_job_synthesize(&a, j, CUZK_CS_PROVE, 0, err, sizeof err) == CUZK_OK);
            CHECK(cuzk_post_job_synthesize_par(&b, j, CUZK_CS_PROVE, 0, cuzk_pool_par(pool3), err,
                                               sizeof err) == CUZK_OK);
            if (a && b) check_same(a, b, "post job");
            cuzk_cs_free(a);
            cuzk_cs_free(b);
        }
        cuzk_post_job_free(j);
        for (size_t i = 0; i < n; i++)
            free(v[i]);
    }
    for (int i = 0; i < 2; i++)
        cuzk_fil_tree_free(s[i].tree);
}

static void test_teardown(void)
{
    cuzk_pool_destroy(pool2);
    cuzk_pool_destroy(pool3);
    pool2 = pool3 = NULL;
}

static const test_case tests[] = {
    {"toy", test_toy},   {"toy_contract", test_toy_contract}, {"porep", test_porep}, {"snap", test_snap},
    {"post", test_post}, {"teardown", test_teardown},
};

TEST_MAIN(tests)
