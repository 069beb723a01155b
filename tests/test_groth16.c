/* Groth16 prover and verifier tests.
 *
 * References: the pairing equation itself (verify), checked independently
 * by snarkjs in tests/snarkjs/run.sh; the H polynomial is checked against
 * the defining identity h(X) Z(X) = A(X) B(X) - C(X) at a random X, with
 * A, B, C evaluated by the Lagrange formula (no NTT); mapped and resident
 * parameters must give byte-identical deterministic proofs. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/ntt.h"
#include "cuzk/pool.h"
#include "groth16_util.h"

/* ---- a hand-made circuit with three public inputs ------------------------- */

typedef struct {
    cuzk_fr x, y, z;
    int bit;
} multi_ctx;

/* inputs x, y, z; aux t = x*y, u = t + z, v = u*u, w = bit, s = v*z.
 * ONE and z appear in B (input B-density), v only in A, C and B... and w
 * only through the boolean constraint: exercises every density case. */
static int multi_circuit(cuzk_cs *cs, void *vctx)
{
    multi_ctx *c = vctx;
    cuzk_var X, Y, Z, t, u, v, w, s;
    cuzk_fr tv, uv, vv, wv, sv, one = CUZK_FR_ONE, mone;
    cuzk_fr_neg(&mone, &one);
    cuzk_fr_mul(&tv, &c->x, &c->y);
    cuzk_fr_add(&uv, &tv, &c->z);
    cuzk_fr_sqr(&vv, &uv);
    wv = c->bit ? CUZK_FR_ONE : CUZK_FR_ZERO;
    cuzk_fr_mul(&sv, &vv, &c->z);
    cuzk_cs_alloc_input(cs, &X, &c->x);
    cuzk_cs_alloc_input(cs, &Y, &c->y);
    cuzk_cs_alloc_input(cs, &Z, &c->z);
    cuzk_cs_alloc(cs, &t, &tv);
    cuzk_cs_alloc(cs, &u, &uv);
    cuzk_cs_alloc(cs, &v, &vv);
    cuzk_cs_alloc(cs, &w, &wv);
    cuzk_cs_alloc(cs, &s, &sv);
    cuzk_term a1[] = {{X, one}}, b1[] = {{Y, one}}, c1[] = {{t, one}};
    cuzk_cs_enforce(cs, a1, 1, b1, 1, c1, 1);
    cuzk_term a2[] = {{t, one}, {Z, one}}, b2[] = {{CUZK_ONE, one}}, c2[] = {{u, one}};
    cuzk_cs_enforce(cs, a2, 2, b2, 1, c2, 1);
    cuzk_term a3[] = {{u, one}}, c3[] = {{v, one}};
    cuzk_cs_enforce(cs, a3, 1, a3, 1, c3, 1);
    cuzk_term a4[] = {{w, one}}, b4[] = {{CUZK_ONE, one}, {w, mone}};
    cuzk_cs_enforce(cs, a4, 1, b4, 2, NULL, 0);
    cuzk_term a5[] = {{v, one}}, b5[] = {{Z, one}}, c5[] = {{s, one}};
    cuzk_cs_enforce(cs, a5, 1, b5, 1, c5, 1);
    return cuzk_cs_status(cs);
}

/* ---- helpers ----------------------------------------------------------------- */

static int prove1(uint8_t proof[192], const cuzk_groth16_params *p, const cuzk_groth16_witness *w,
                  bool det, cuzk_par *par)
{
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_prove_opts o = {.deterministic = det, .par = par, .err = err, .err_len = sizeof err};
    int st = cuzk_groth16_prove((uint8_t(*)[192])proof, p, w, 1, &o);
    if (st) fprintf(stderr, "  prove: %s\n", err);
    return st;
}

static bool verify1(const cuzk_groth16_vk *vk, const uint8_t proof[192], const cuzk_fr *in, size_t n)
{
    cuzk_groth16_pvk pvk;
    cuzk_groth16_pvk_prepare(&pvk, vk);
    bool ok = false;
    char err[CUZK_G16_ERR_LEN] = "";
    int st = cuzk_groth16_verify(&ok, &pvk, proof, in, n, err, sizeof err);
    return st == CUZK_OK && ok;
}

/* Public inputs of a witness (without ONE). */
static const cuzk_fr *pub(const g16t_circuit *c) { return c->w.input + 1; }
static size_t npub(const g16t_circuit *c) { return c->w.n_inputs - 1; }

/* ---- tests ----------------------------------------------------------------------- */

static void test_chain_roundtrip(void)
{
    static const size_t sizes[] = {1, 2, 6, 62, 300};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        cuzk_fr x0 = fr_rand();
        g16t_circuit c;
        CHECK(g16t_chain(&c, sizes[k], &x0) == CUZK_OK);
        cuzk_groth16_params *p = g16t_setup(&c, test_rand64());
        if (!p) {
            g16t_free(&c);
            continue;
        }
        uint8_t proof[192];
        CHECK(prove1(proof, p, &c.w, false, NULL) == CUZK_OK);
        const cuzk_groth16_vk *vk = cuzk_groth16_params_vk(p);
        CHECK(verify1(vk, proof, pub(&c), npub(&c)));
        /* wrong public input */
        cuzk_fr bad = pub(&c)[0];
        cuzk_fr_add(&bad, &bad, &CUZK_FR_ONE);
        CHECK(!verify1(vk, proof, &bad, 1));
        /* mutated proof: C replaced by A (valid point, wrong proof) */
        uint8_t mut[192];
        memcpy(mut, proof, 192);
        memcpy(mut + 144, proof, 48);
        CHECK(!verify1(vk, mut, pub(&c), npub(&c)));
        /* a flipped bit makes the encoding invalid or the proof wrong */
        memcpy(mut, proof, 192);
        mut[1 + test_rand64() % 190] ^= (uint8_t)(1u << (test_rand64() % 8));
        CHECK(!verify1(vk, mut, pub(&c), npub(&c)));
        cuzk_groth16_params_free(p);
        g16t_free(&c);
    }
}

static void test_multi_input_circuit(void)
{
    for (int it = 0; it < 2 * test_iterations; it++) {
        multi_ctx ctx = {fr_rand(), fr_rand(), fr_rand(), it & 1};
        g16t_circuit c;
        CHECK(g16t_synth(&c, multi_circuit, &ctx) == CUZK_OK);
        CHECK(c.w.n_inputs == 4);
        /* ONE and z are B-dense inputs; x, y are not */
        CHECK(c.shape.n_b_inputs == 3); /* ONE, y, z */
        cuzk_groth16_params *p = g16t_setup(&c, test_rand64());
        if (!p) {
            g16t_free(&c);
            continue;
        }
        uint8_t proof[192];
        CHECK(prove1(proof, p, &c.w, false, NULL) == CUZK_OK);
        const cuzk_groth16_vk *vk = cuzk_groth16_params_vk(p);
        CHECK(verify1(vk, proof, pub(&c), 3));
        for (int i = 0; i < 3; i++) {
            cuzk_fr in[3] = {pub(&c)[0], pub(&c)[1], pub(&c)[2]};
            cuzk_fr_add(&in[i], &in[i], &CUZK_FR_ONE);
            CHECK(!verify1(vk, proof, in, 3));
        }
        /* swapped inputs */
        cuzk_fr sw[3] = {pub(&c)[1], pub(&c)[0], pub(&c)[2]};
        CHECK(!verify1(vk, proof, sw, 3));
        /* wrong count is an error, not a pass */
        cuzk_groth16_pvk pvk;
        bool ok = true;
        cuzk_groth16_pvk_prepare(&pvk, vk);
        CHECK(cuzk_groth16_verify(&ok, &pvk, proof, pub(&c), 2, NULL, 0) == CUZK_ERR_ARG && !ok);
        /* a proof against another vk (same circuit, other seed) */
        cuzk_groth16_params *p2 = g16t_setup(&c, test_rand64());
        if (p2) CHECK(!verify1(cuzk_groth16_params_vk(p2), proof, pub(&c), 3));
        cuzk_groth16_params_free(p2);
        cuzk_groth16_params_free(p);
        g16t_free(&c);
    }
}

static void test_deterministic(void)
{
    cuzk_fr x0 = fr_rand();
    g16t_circuit c;
    CHECK(g16t_chain(&c, 40, &x0) == CUZK_OK);
    cuzk_groth16_params *p = g16t_setup(&c, 7);
    if (!p) return;
    uint8_t p1[192], p2[192], p3[192], p4[192];
    cuzk_pool *pool = NULL;
    CHECK(cuzk_pool_create(&pool, 2) == CUZK_OK);
    CHECK(prove1(p1, p, &c.w, true, NULL) == CUZK_OK);
    CHECK(prove1(p2, p, &c.w, true, pool ? cuzk_pool_par(pool) : NULL) == CUZK_OK);
    CHECK(memcmp(p1, p2, 192) == 0);
    CHECK(verify1(cuzk_groth16_params_vk(p), p1, pub(&c), npub(&c)));
    /* randomized proofs differ from each other and from the deterministic one */
    CHECK(prove1(p3, p, &c.w, false, NULL) == CUZK_OK);
    CHECK(prove1(p4, p, &c.w, false, NULL) == CUZK_OK);
    CHECK(memcmp(p3, p4, 192) != 0 && memcmp(p3, p1, 192) != 0);
    CHECK(verify1(cuzk_groth16_params_vk(p), p3, pub(&c), npub(&c)));
    /* mapped parameters give the same bytes */
    char path[] = "/tmp/cuzk_test_g16_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "wb");
        CHECK(cuzk_groth16_params_write(f, p) == CUZK_OK);
        fclose(f);
        cuzk_groth16_params *pm = NULL;
        cuzk_groth16_load_opts o = {.flags = CUZK_G16_LOAD_MMAP, .shape = &c.shape};
        CHECK(cuzk_groth16_params_load(&pm, path, &o) == CUZK_OK);
        if (pm) {
            CHECK(cuzk_groth16_params_is_mapped(pm));
            uint8_t pmp[192];
            CHECK(prove1(pmp, pm, &c.w, true, NULL) == CUZK_OK);
            CHECK(memcmp(pmp, p1, 192) == 0);
        }
        cuzk_groth16_params_free(pm);
        remove(path);
    }
    /* in place: the caller's writable evaluations, same bytes */
    cuzk_fr *e[3] = {NULL, NULL, NULL};
    CHECK(cuzk_cs_take_evals(c.cs, &e[0], &e[1], &e[2]) == CUZK_OK);
    size_t m = cuzk_groth16_params_count(p, CUZK_G16_H) + 1;
    for (int k = 0; k < 3; k++) {
        cuzk_fr *t = e[k] ? realloc(e[k], m * sizeof *t) : NULL;
        CHECK(t != NULL);
        e[k] = t;
    }
    if (e[0] && e[1] && e[2]) {
        cuzk_groth16_witness w2 = c.w;
        w2.a = w2.b = w2.c = NULL;
        w2.a_mut = e[0], w2.b_mut = e[1], w2.c_mut = e[2];
        uint8_t pin[192];
        CHECK(prove1(pin, p, &w2, true, NULL) == CUZK_OK);
        CHECK(memcmp(pin, p1, 192) == 0);
    }
    for (int k = 0; k < 3; k++) free(e[k]);
    cuzk_pool_destroy(pool);
    cuzk_groth16_params_free(p);
    g16t_free(&c);
}

/* cuzk_groth16_witness_take_evals: the evaluations leave the cs, grown to
 * the H domain, and the prover transforms them in place; same bytes as a
 * proof from intact evaluations. */
static void test_take_evals(void)
{
    size_t n = 1000, m = 1024; /* 1000 + 2 input constraints */
    cuzk_fr x0 = fr_rand();
    g16t_circuit c;
    CHECK(g16t_chain(&c, n, &x0) == CUZK_OK);
    cuzk_groth16_params *p = g16t_setup(&c, 11);
    if (!p) return;
    CHECK(cuzk_groth16_params_count(p, CUZK_G16_H) + 1 == m);
    uint8_t ref[192], pin[192];
    CHECK(prove1(ref, p, &c.w, true, NULL) == CUZK_OK);
    cuzk_groth16_witness w = c.w;
    cuzk_fr *owned[3] = {NULL, NULL, NULL};
    CHECK(cuzk_groth16_witness_take_evals(&w, c.cs, w.n_constraints - 1, owned) == CUZK_ERR_ARG);
    CHECK(cuzk_groth16_witness_take_evals(&w, c.cs, m, owned) == CUZK_OK);
    CHECK(w.a_mut == owned[0] && w.b_mut == owned[1] && w.c_mut == owned[2] && owned[2]);
    CHECK(cuzk_cs_eval(c.cs, CUZK_LC_A) == NULL); /* taken */
    CHECK(prove1(pin, p, &w, true, NULL) == CUZK_OK);
    CHECK(memcmp(pin, ref, 192) == 0);
    CHECK(verify1(cuzk_groth16_params_vk(p), pin, pub(&c), npub(&c)));
    /* nothing left to take */
    cuzk_fr *again[3];
    CHECK(cuzk_groth16_witness_take_evals(&w, c.cs, m, again) == CUZK_ERR_ARG);
    for (int k = 0; k < 3; k++) free(owned[k]);
    cuzk_groth16_params_free(p);
    g16t_free(&c);
}

/* Lean H: C asked for after A*B (fill_c) into the buffer that held B; the
 * same proof bytes as from three intact evaluation vectors, with the CPU
 * backend's lean order and with a backend that has none (the prover then
 * fills a third buffer itself).  A failing fill_c stops the proof. */
typedef struct {
    const cuzk_fr *c;
    int calls, fail;
} fill_src;

static int fill_from_copy(void *ctx, cuzk_fr *out, size_t n)
{
    fill_src *f = ctx;
    f->calls++;
    if (f->fail) return CUZK_ERR_IO;
    memcpy(out, f->c, n * sizeof *out);
    return CUZK_OK;
}

static void test_lean_h(void)
{
    size_t n = 1000, m = 1024;
    cuzk_fr x0 = fr_rand();
    g16t_circuit c;
    CHECK(g16t_chain(&c, n, &x0) == CUZK_OK);
    cuzk_groth16_params *p = g16t_setup(&c, 13);
    if (!p) return;
    uint8_t ref[192];
    CHECK(prove1(ref, p, &c.w, true, NULL) == CUZK_OK);
    cuzk_groth16_backend other = *cuzk_groth16_backend_cpu();
    other.h_poly_lean = NULL;
    for (int variant = 0; variant < 3; variant++) {
        cuzk_fr *ab[2] = {malloc(m * sizeof(cuzk_fr)), malloc(m * sizeof(cuzk_fr))};
        CHECK(ab[0] && ab[1]);
        if (!ab[0] || !ab[1]) break;
        memcpy(ab[0], c.w.a, c.w.n_constraints * sizeof(cuzk_fr));
        memcpy(ab[1], c.w.b, c.w.n_constraints * sizeof(cuzk_fr));
        fill_src f = {.c = c.w.c, .fail = variant == 2};
        cuzk_groth16_witness w = c.w;
        w.a = w.b = w.c = NULL;
        w.a_mut = ab[0], w.b_mut = ab[1], w.c_mut = NULL;
        w.fill_c = fill_from_copy, w.fill_c_ctx = &f;
        char err[CUZK_G16_ERR_LEN] = "";
        cuzk_groth16_prove_opts o = {.deterministic = true, .backend = variant == 1 ? &other : NULL,
                                     .err = err, .err_len = sizeof err};
        uint8_t pin[192];
        int st = cuzk_groth16_prove((uint8_t(*)[192])pin, p, &w, 1, &o);
        CHECK(f.calls == 1);
        if (variant < 2) {
            CHECK(st == CUZK_OK);
            CHECK(memcmp(pin, ref, 192) == 0);
        } else {
            CHECK(st == CUZK_ERR_IO && strstr(err, "H computation failed") != NULL);
        }
        free(ab[0]);
        free(ab[1]);
    }
    cuzk_groth16_params_free(p);
    g16t_free(&c);
}

static void test_batch(void)
{
    enum { N = 4 };
    g16t_circuit c[N];
    cuzk_groth16_witness w[N];
    cuzk_fr inputs[N];
    for (int i = 0; i < N; i++) {
        cuzk_fr x0 = fr_rand();
        CHECK(g16t_chain(&c[i], 200, &x0) == CUZK_OK); /* > 3 chunks of 64 */
        w[i] = c[i].w;
        inputs[i] = pub(&c[i])[0];
    }
    cuzk_groth16_params *p = g16t_setup(&c[0], test_rand64());
    if (p) {
        uint8_t proofs[N][192];
        cuzk_groth16_timings tm = {0};
        cuzk_groth16_prove_opts o = {.timings = &tm};
        CHECK(cuzk_groth16_prove(proofs, p, w, N, &o) == CUZK_OK);
        CHECK(tm.total > 0 && tm.msm_b_g2 > 0 && tm.h_ntt > 0);
        cuzk_groth16_pvk pvk;
        cuzk_groth16_pvk_prepare(&pvk, cuzk_groth16_params_vk(p));
        bool ok = false;
        CHECK(cuzk_groth16_verify_batch(&ok, &pvk, proofs, N, inputs, 1, NULL, 0) == CUZK_OK && ok);
        for (int i = 0; i < N; i++) CHECK(verify1(pvk.vk, proofs[i], &inputs[i], 1));
        /* one wrong input, then one swapped proof */
        cuzk_fr bad[N];
        memcpy(bad, inputs, sizeof bad);
        cuzk_fr_add(&bad[2], &bad[2], &CUZK_FR_ONE);
        CHECK(cuzk_groth16_verify_batch(&ok, &pvk, proofs, N, bad, 1, NULL, 0) == CUZK_OK && !ok);
        uint8_t sw[N][192];
        memcpy(sw, proofs, sizeof sw);
        memcpy(sw[1], proofs[3], 192);
        CHECK(cuzk_groth16_verify_batch(&ok, &pvk, sw, N, inputs, 1, NULL, 0) == CUZK_OK && !ok);
        /* a batch of one equals the single check */
        CHECK(cuzk_groth16_verify_batch(&ok, &pvk, proofs, 1, inputs, 1, NULL, 0) == CUZK_OK && ok);
        /* mapped parameters walked in small chunks (several per vector, density
         * words offset) give the same deterministic proofs as resident ones */
        char path[] = "/tmp/cuzk_test_g16b_XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd >= 0) {
            FILE *f = fdopen(fd, "wb");
            CHECK(cuzk_groth16_params_write(f, p) == CUZK_OK);
            fclose(f);
            cuzk_groth16_params *pm = NULL;
            cuzk_groth16_load_opts lo = {.flags = CUZK_G16_LOAD_MMAP};
            CHECK(cuzk_groth16_params_load(&pm, path, &lo) == CUZK_OK);
            uint8_t dr[N][192], dm[N][192];
            cuzk_groth16_prove_opts od = {.deterministic = true};
            CHECK(cuzk_groth16_prove(dr, p, w, N, &od) == CUZK_OK);
            od.chunk_vars = 64;
            if (pm) CHECK(cuzk_groth16_prove(dm, pm, w, N, &od) == CUZK_OK);
            if (pm) CHECK(memcmp(dr, dm, sizeof dr) == 0);
            od.chunk_vars = 100; /* not a multiple of 64 */
            if (pm) CHECK(cuzk_groth16_prove(dm, pm, w, N, &od) == CUZK_ERR_ARG);
            cuzk_groth16_params_free(pm);
            remove(path);
        }
        /* a batch whose circuits differ in shape is refused */
        g16t_circuit other;
        cuzk_fr x0 = fr_rand();
        CHECK(g16t_chain(&other, 201, &x0) == CUZK_OK);
        w[1] = other.w;
        char err[CUZK_G16_ERR_LEN] = "";
        o.err = err;
        o.err_len = sizeof err;
        CHECK(cuzk_groth16_prove(proofs, p, w, N, &o) != CUZK_OK);
        CHECK(strstr(err, "circuit 1") != NULL);
        g16t_free(&other);
    }
    cuzk_groth16_params_free(p);
    for (int i = 0; i < N; i++) g16t_free(&c[i]);
}

/* aux t_i = v_i, k of them, each constrained one of three ways so the A and
 * B densities are irregular across 64-bit words:  i%3 == 0: t*ONE = t
 * (A only), 1: ONE*t = t (B only), 2: ONE*(v ONE) = t (neither). */
typedef struct {
    size_t k;
    uint64_t seed;
} sparse_ctx;

static int sparse_circuit(cuzk_cs *cs, void *vctx)
{
    sparse_ctx *c = vctx;
    cuzk_fr one = CUZK_FR_ONE;
    for (size_t i = 0; i < c->k; i++) {
        cuzk_fr v = fr_u64(c->seed * 1000003u + i * 7919u + 1);
        cuzk_var t;
        cuzk_cs_alloc(cs, &t, &v);
        cuzk_term tt[] = {{t, one}}, on[] = {{CUZK_ONE, one}}, vv[] = {{CUZK_ONE, v}};
        if (i % 3 == 0) cuzk_cs_enforce(cs, tt, 1, on, 1, tt, 1);
        else if (i % 3 == 1) cuzk_cs_enforce(cs, on, 1, tt, 1, tt, 1);
        else cuzk_cs_enforce(cs, on, 1, vv, 1, tt, 1);
    }
    return cuzk_cs_status(cs);
}

static void test_mapped_chunks_sparse(void)
{
    sparse_ctx ctx = {300, test_rand64() % 1000};
    g16t_circuit c;
    CHECK(g16t_synth(&c, sparse_circuit, &ctx) == CUZK_OK);
    CHECK(c.shape.n_a_aux == 100 && c.shape.n_b_aux == 100);
    cuzk_groth16_params *p = g16t_setup(&c, test_rand64());
    char path[] = "/tmp/cuzk_test_g16s_XXXXXX";
    int fd = p ? mkstemp(path) : -1;
    if (fd >= 0) {
        FILE *f = fdopen(fd, "wb");
        CHECK(cuzk_groth16_params_write(f, p) == CUZK_OK);
        fclose(f);
        cuzk_groth16_params *pm = NULL;
        cuzk_groth16_load_opts lo = {.flags = CUZK_G16_LOAD_MMAP, .shape = &c.shape};
        CHECK(cuzk_groth16_params_load(&pm, path, &lo) == CUZK_OK);
        uint8_t r[192], m[192];
        CHECK(prove1(r, p, &c.w, true, NULL) == CUZK_OK);
        CHECK(verify1(cuzk_groth16_params_vk(p), r, NULL, 0));
        for (size_t ch = 64; ch <= 320 && pm; ch += 128) {
            cuzk_groth16_prove_opts od = {.deterministic = true, .chunk_vars = ch};
            CHECK(cuzk_groth16_prove((uint8_t(*)[192])m, pm, &c.w, 1, &od) == CUZK_OK);
            CHECK(memcmp(r, m, 192) == 0);
        }
        cuzk_groth16_params_free(pm);
        remove(path);
    }
    cuzk_groth16_params_free(p);
    g16t_free(&c);
}

/* h(X) (X^m - 1) == A(X) B(X) - C(X) at a random X. */
static void test_h_identity(void)
{
    for (int it = 0; it < 3 * test_iterations; it++) {
        cuzk_fr x0 = fr_rand();
        g16t_circuit c;
        size_t n = 1 + test_rand64() % 200;
        CHECK(g16t_chain(&c, n, &x0) == CUZK_OK);
        size_t nc = c.w.n_constraints;
        unsigned log_m = 0;
        while (((size_t)1 << log_m) < nc) log_m++;
        size_t m = (size_t)1 << log_m;
        cuzk_fr *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b), *cc = malloc(m * sizeof *cc);
        memcpy(a, c.w.a, nc * sizeof *a);
        memcpy(b, c.w.b, nc * sizeof *b);
        memcpy(cc, c.w.c, nc * sizeof *cc);
        const cuzk_groth16_backend *be = cuzk_groth16_backend_cpu();
        CHECK(be->h_poly(be->ctx, a, b, cc, nc, log_m, NULL) == CUZK_OK);
        CHECK(cuzk_fr_is_zero(&a[m - 1]));
        cuzk_fr X = fr_rand(), omega, w = CUZK_FR_ONE, zx = X, minv, t;
        CHECK(cuzk_ntt_root_of_unity(&omega, log_m) == CUZK_OK);
        for (unsigned i = 0; i < log_m; i++) cuzk_fr_sqr(&zx, &zx);
        cuzk_fr_sub(&zx, &zx, &CUZK_FR_ONE);
        cuzk_fr_from_u64(&t, m);
        cuzk_fr_inv(&minv, &t);
        cuzk_fr A = CUZK_FR_ZERO, B = CUZK_FR_ZERO, C = CUZK_FR_ZERO, H = CUZK_FR_ZERO;
        for (size_t i = 0; i < nc; i++) {
            cuzk_fr l, d;
            cuzk_fr_sub(&d, &X, &w);
            cuzk_fr_inv(&d, &d);
            cuzk_fr_mul(&l, &d, &w);
            cuzk_fr_mul(&l, &l, &zx);
            cuzk_fr_mul(&l, &l, &minv);
            cuzk_fr_mul(&d, &c.w.a[i], &l);
            cuzk_fr_add(&A, &A, &d);
            cuzk_fr_mul(&d, &c.w.b[i], &l);
            cuzk_fr_add(&B, &B, &d);
            cuzk_fr_mul(&d, &c.w.c[i], &l);
            cuzk_fr_add(&C, &C, &d);
            cuzk_fr_mul(&w, &w, &omega);
        }
        for (size_t i = m; i-- > 0;) {
            cuzk_fr_mul(&H, &H, &X);
            cuzk_fr_add(&H, &H, &a[i]);
        }
        cuzk_fr lhs, rhs;
        cuzk_fr_mul(&lhs, &H, &zx);
        cuzk_fr_mul(&rhs, &A, &B);
        cuzk_fr_sub(&rhs, &rhs, &C);
        CHECK(cuzk_fr_eq(&lhs, &rhs));
        free(a);
        free(b);
        free(cc);
        g16t_free(&c);
    }
}

static void test_bad_witness(void)
{
    cuzk_fr x0 = fr_rand();
    g16t_circuit c, d;
    CHECK(g16t_chain(&c, 20, &x0) == CUZK_OK);
    CHECK(g16t_chain(&d, 40, &x0) == CUZK_OK);
    cuzk_groth16_params *p = g16t_setup(&c, 3);
    if (p) {
        uint8_t proof[1][192];
        char err[CUZK_G16_ERR_LEN] = "";
        cuzk_groth16_prove_opts o = {.err = err, .err_len = sizeof err};
        CHECK(cuzk_groth16_prove(proof, p, &d.w, 1, &o) == CUZK_ERR_FORMAT);
        CHECK(strstr(err, "does not match the parameters") != NULL);
        /* an unsatisfied witness gives a proof that does not verify */
        cuzk_groth16_witness w = c.w;
        cuzk_fr *aux = malloc(w.n_aux * sizeof *aux);
        memcpy(aux, w.aux, w.n_aux * sizeof *aux);
        cuzk_fr_add(&aux[3], &aux[3], &CUZK_FR_ONE);
        w.aux = aux;
        CHECK(cuzk_groth16_prove(proof, p, &w, 1, &o) == CUZK_OK);
        CHECK(!verify1(cuzk_groth16_params_vk(p), proof[0], pub(&c), npub(&c)));
        free(aux);
    }
    cuzk_groth16_params_free(p);
    g16t_free(&c);
    g16t_free(&d);
}

static void test_inputs_decode(void)
{
    uint8_t buf[64];
    cuzk_fr v[2], out[2];
    size_t n = 0;
    v[0] = fr_rand();
    v[1] = fr_rand();
    cuzk_fr_to_bytes_le(buf, &v[0]);
    cuzk_fr_to_bytes_le(buf + 32, &v[1]);
    CHECK(cuzk_groth16_inputs_decode(out, buf, 64, &n, 2, NULL, 0) == CUZK_OK && n == 2);
    CHECK(cuzk_fr_eq(&out[0], &v[0]) && cuzk_fr_eq(&out[1], &v[1]));
    CHECK(cuzk_groth16_inputs_decode(out, buf, 63, &n, 2, NULL, 0) == CUZK_ERR_FORMAT);
    CHECK(cuzk_groth16_inputs_decode(out, buf, 64, &n, 1, NULL, 0) == CUZK_ERR_ARG);
    memset(buf + 32, 0xff, 32); /* >= r */
    char err[CUZK_G16_ERR_LEN] = "";
    CHECK(cuzk_groth16_inputs_decode(out, buf, 64, &n, 2, err, sizeof err) ==
          CUZK_ERR_ENC_NONCANONICAL);
    CHECK(strstr(err, "public input 1") != NULL);
}

static const test_case tests[] = {
    {"chain_roundtrip", test_chain_roundtrip},
    {"multi_input_circuit", test_multi_input_circuit},
    {"deterministic", test_deterministic},
    {"take_evals", test_take_evals},
    {"lean_h", test_lean_h},
    {"batch", test_batch},
    {"mapped_chunks_sparse", test_mapped_chunks_sparse},
    {"h_identity", test_h_identity},
    {"bad_witness", test_bad_witness},
    {"inputs_decode", test_inputs_decode},
};

TEST_MAIN(tests)
