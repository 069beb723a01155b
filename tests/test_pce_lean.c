/* Lean PCE evaluation (cuzk/pce_lean.h).
 *
 * References: cuzk_pce_evaluate (itself checked against direct PROVE-mode
 * synthesis by test_pce) for the values -- evaluate_ab's A and B, fill_c's
 * C, the density maps and counts must equal it bit for bit, and the tail
 * up to m must be zero -- and, for whole proofs, the classic prover path
 * (direct PROVE-mode synthesis, three in-place vectors): the lean path
 * (WITNESS mode + evaluate_ab + fill_c, two vectors) must give the same
 * proof bytes with r = s = 0, and the proof must verify.  Circuits: chain,
 * a random R1CS with every coefficient class, the 2 KiB PoRep (values
 * only: its test setup takes minutes).  Misuse (a PROVE-mode cs, short
 * buffers, a wrong n) is refused with CUZK_ERR_ARG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/groth16.h"
#include "cuzk/pce_lean.h"
#include "cuzk/pool.h"
#include "cuzk/porep.h"
#include "cuzk/status.h"
#include "fr_util.h"
#include "groth16_util.h"
#include "harness.h"

/* A scratch file name of this process (removed after opening). */
static const char *tmp_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "/tmp/test_pce_lean.%ld.%s.pce", (long)getpid(), name);
    return p;
}

static cuzk_pce *extract(const char *name, cuzk_circuit_fn fn, void *ctx)
{
    const char *path = tmp_path(name);
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_OTHER};
    snprintf(id.id, sizeof id.id, "%s", name);
    char err[512] = "";
    cuzk_pce *p = NULL;
    int st = cuzk_pce_extract(path, &id, fn, ctx, NULL, NULL, NULL, err, sizeof err);
    if (!st) st = cuzk_pce_open(&p, path, &id, err, sizeof err);
    if (st) fprintf(stderr, "  pce %s: %s\n", name, err);
    CHECK(st == CUZK_OK);
    unlink(path);
    return p;
}

static cuzk_cs *synth(cuzk_cs_mode mode, cuzk_circuit_fn fn, void *ctx)
{
    cuzk_cs *cs = NULL;
    int st = cuzk_cs_new(&cs, mode, 0);
    if (!st) st = cuzk_cs_synthesize(cs, fn, ctx);
    if (st) fprintf(stderr, "  synthesize: %s\n", cs ? cuzk_cs_error(cs) : "out of memory");
    CHECK(st == CUZK_OK);
    return cs;
}

static bool same_bits(const uint64_t *a, const uint64_t *b, size_t bits)
{
    for (size_t i = 0; i < bits; i++)
        if (((a[i / 64] ^ b[i / 64]) >> (i % 64)) & 1) return false;
    return true;
}

/* evaluate_ab + fill_c against cuzk_pce_evaluate on the same witness. */
static void compare_values(cuzk_pce *p, cuzk_circuit_fn fn, void *ctx, cuzk_par *par)
{
    char err[512] = "";
    cuzk_cs *ref = synth(CUZK_CS_WITNESS, fn, ctx), *lean = synth(CUZK_CS_WITNESS, fn, ctx);
    REQUIRE(ref && lean);
    CHECK(cuzk_pce_evaluate(p, ref, par, err, sizeof err) == CUZK_OK);
    cuzk_cs_counts kr, kl;
    cuzk_cs_get_counts(ref, &kr);
    size_t n = kr.constraints, m = 1;
    while (m < n + 5) /* a tail to zero */
        m <<= 1;
    cuzk_fr *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b), *c = malloc(n * sizeof *c);
    REQUIRE(a && b && c);
    memset(a, 0xa5, m * sizeof *a); /* garbage where zeros are due */
    memset(b, 0x5a, m * sizeof *b);
    CHECK(cuzk_pce_evaluate_ab(p, lean, a, b, n - 1, par, err, sizeof err) == CUZK_ERR_ARG);
    int st = cuzk_pce_evaluate_ab(p, lean, a, b, m, par, err, sizeof err);
    if (st) fprintf(stderr, "  evaluate_ab: %s\n", err);
    CHECK(st == CUZK_OK);
    CHECK(cuzk_cs_get_mode(lean) == CUZK_CS_WITNESS && cuzk_cs_eval(lean, CUZK_LC_A) == NULL);
    CHECK(!memcmp(a, cuzk_cs_eval(ref, CUZK_LC_A), n * sizeof *a));
    CHECK(!memcmp(b, cuzk_cs_eval(ref, CUZK_LC_B), n * sizeof *b));
    for (size_t i = n; i < m; i++)
        CHECK(cuzk_fr_is_zero(&a[i]) && cuzk_fr_is_zero(&b[i]));
    cuzk_cs_get_counts(lean, &kl);
    CHECK(!memcmp(&kr, &kl, sizeof kr));
    CHECK(same_bits(cuzk_cs_density_a_aux(ref), cuzk_cs_density_a_aux(lean), kr.aux));
    CHECK(same_bits(cuzk_cs_density_b_aux(ref), cuzk_cs_density_b_aux(lean), kr.aux));
    CHECK(same_bits(cuzk_cs_density_b_input(ref), cuzk_cs_density_b_input(lean), kr.inputs));
    cuzk_pce_lean l = {.pce = p, .cs = lean, .par = par, .err = err, .err_len = sizeof err};
    CHECK(cuzk_pce_fill_c(&l, c, n - 1) == CUZK_ERR_ARG && strstr(err, "asked for"));
    CHECK(cuzk_pce_fill_c(&l, c, n) == CUZK_OK);
    CHECK(!memcmp(c, cuzk_cs_eval(ref, CUZK_LC_C), n * sizeof *c));
    /* a PROVE-mode system is not the lean form's input */
    l.cs = ref;
    CHECK(cuzk_pce_fill_c(&l, c, n) == CUZK_ERR_ARG);
    CHECK(cuzk_pce_evaluate_ab(p, ref, a, b, m, par, err, sizeof err) == CUZK_ERR_ARG);
    free(a);
    free(b);
    free(c);
    cuzk_cs_free(ref);
    cuzk_cs_free(lean);
}

/* Classic (direct PROVE synthesis, three in-place vectors) and lean
 * proofs of one witness: same bytes with r = s = 0, and valid. */
static void compare_proofs(cuzk_circuit_fn fn, void *ctx, cuzk_par *par)
{
    g16t_circuit c;
    REQUIRE(g16t_synth(&c, fn, ctx) == CUZK_OK);
    cuzk_groth16_params *params = g16t_setup(&c, test_rand64());
    cuzk_pce *p = extract("proof", fn, ctx);
    if (!params || !p) {
        cuzk_groth16_params_free(params);
        cuzk_pce_close(p);
        g16t_free(&c);
        return;
    }
    size_t m = cuzk_groth16_params_count(params, CUZK_G16_H) + 1;
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_prove_opts o = {.deterministic = true, .par = par, .err = err, .err_len = sizeof err};
    uint8_t classic[1][CUZK_G16_PROOF_BYTES], lean[1][CUZK_G16_PROOF_BYTES];
    cuzk_cs *d = synth(CUZK_CS_PROVE, fn, ctx), *cs = synth(CUZK_CS_WITNESS, fn, ctx);
    REQUIRE(d && cs);
    cuzk_groth16_witness w;
    cuzk_fr *owned[3];
    CHECK(cuzk_groth16_witness_from_cs(&w, d) == CUZK_OK);
    CHECK(cuzk_groth16_witness_take_evals(&w, d, m, owned) == CUZK_OK);
    CHECK(cuzk_groth16_prove(classic, params, &w, 1, &o) == CUZK_OK);
    for (int s = 0; s < 3; s++)
        free(owned[s]);

    cuzk_fr *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
    REQUIRE(a && b);
    CHECK(cuzk_groth16_witness_lean(&w, cs, a, b, cuzk_pce_fill_c, NULL) ==
          CUZK_ERR_ARG); /* no density yet */
    CHECK(cuzk_pce_evaluate_ab(p, cs, a, b, m, par, err, sizeof err) == CUZK_OK);
    cuzk_pce_lean l = {.pce = p, .cs = cs, .par = par, .err = err, .err_len = sizeof err};
    CHECK(cuzk_groth16_witness_lean(&w, cs, a, b, cuzk_pce_fill_c, &l) == CUZK_OK);
    int st = cuzk_groth16_prove(lean, params, &w, 1, &o);
    if (st) fprintf(stderr, "  lean prove: %s\n", err);
    CHECK(st == CUZK_OK);
    CHECK(!memcmp(classic, lean, sizeof lean));

    cuzk_groth16_pvk pvk;
    cuzk_groth16_pvk_prepare(&pvk, cuzk_groth16_params_vk(params));
    bool ok = false;
    CHECK(cuzk_groth16_verify(&ok, &pvk, lean[0], w.input + 1, w.n_inputs - 1, err, sizeof err) == CUZK_OK);
    CHECK(ok);
    free(a);
    free(b);
    cuzk_cs_free(cs);
    cuzk_cs_free(d);
    cuzk_pce_close(p);
    cuzk_groth16_params_free(params);
    g16t_free(&c);
}

static void test_chain(void)
{
    cuzk_chain_ctx ctx = {.n = 1000};
    ctx.x0 = fr_rand();
    cuzk_pce *p = extract("chain", cuzk_chain_circuit, &ctx);
    REQUIRE(p);
    compare_values(p, cuzk_chain_circuit, &ctx, NULL);
    cuzk_pce_close(p);
    compare_proofs(cuzk_chain_circuit, &ctx, NULL);
}

/* ---- a random satisfiable R1CS: every coefficient class ---------------------- */

typedef struct {
    uint64_t seed;
    size_t n_inp, n_aux, n_extra; /* extra: unsatisfied-free constraints 0 * x = 0 * y */
} rnd_ctx;

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* 0, +-1, +-2^k (k <= 254) or a random value */
static void rnd_coeff(cuzk_fr *c, uint64_t *s)
{
    unsigned k = (unsigned)(xs(s) % 255);
    uint64_t l[4] = {0, 0, 0, 0};
    switch (xs(s) % 5) {
    case 0:
        *c = CUZK_FR_ZERO;
        return;
    case 1:
        *c = CUZK_FR_ONE;
        break;
    case 2:
        l[k / 64] = (uint64_t)1 << (k % 64);
        CHECK(cuzk_fr_from_limbs(c, l) == CUZK_OK);
        break;
    default: { /* a random value (from the circuit's seed: every run the same) */
        uint64_t r[4] = {xs(s), xs(s), xs(s), xs(s) >> 3};
        CHECK(cuzk_fr_from_limbs(c, r) == CUZK_OK);
        return;
    }
    }
    if (xs(s) & 1) cuzk_fr_neg(c, c);
}

/* Constraint i: (sum of random terms) * (sum of random terms) = z_i with
 * z_i a fresh aux holding the product: satisfied, every aux constrained. */
static int rnd_circuit(cuzk_cs *cs, void *vctx)
{
    const rnd_ctx *r = vctx;
    uint64_t s = r->seed | 1;
    bool values = cuzk_cs_needs_values(cs);
    enum { MAXV = 64 };
    cuzk_var v[MAXV + 1];
    cuzk_fr val[MAXV + 1];
    size_t nv = 0;
    for (size_t i = 0; i < r->n_inp + r->n_aux && nv < MAXV; i++, nv++) {
        uint64_t l[4] = {xs(&s), xs(&s), xs(&s), xs(&s) >> 3};
        if (cuzk_fr_from_limbs(&val[nv], l)) return CUZK_ERR_ARG;
        int rc = i < r->n_inp ? cuzk_cs_alloc_input(cs, &v[nv], values ? &val[nv] : NULL)
                              : cuzk_cs_alloc(cs, &v[nv], values ? &val[nv] : NULL);
        if (rc) return rc;
    }
    v[nv] = CUZK_ONE, val[nv] = CUZK_FR_ONE;
    for (size_t c = 0; c < nv + r->n_extra; c++) {
        cuzk_term t[2][8];
        cuzk_fr sum[2] = {CUZK_FR_ZERO, CUZK_FR_ZERO}, prod, tmp;
        size_t n[2];
        for (int k = 0; k < 2; k++) {
            n[k] = 1 + xs(&s) % 8;
            for (size_t i = 0; i < n[k]; i++) {
                size_t j = xs(&s) % (nv + 1);
                t[k][i].var = v[j];
                rnd_coeff(&t[k][i].coeff, &s);
                cuzk_fr_mul(&tmp, &t[k][i].coeff, &val[j]);
                cuzk_fr_add(&sum[k], &sum[k], &tmp);
            }
        }
        cuzk_fr_mul(&prod, &sum[0], &sum[1]);
        cuzk_var z;
        int rc = cuzk_cs_alloc(cs, &z, values ? &prod : NULL);
        cuzk_term tc = {z, CUZK_FR_ONE};
        if (!rc) rc = cuzk_cs_enforce(cs, t[0], n[0], t[1], n[1], &tc, 1);
        if (rc) return rc;
    }
    return CUZK_OK;
}

static void test_random_r1cs(void)
{
    cuzk_pool *pool = NULL;
    REQUIRE(cuzk_pool_create(&pool, 2) == CUZK_OK);
    for (int it = 0; it < test_iterations; it++) {
        rnd_ctx r = {test_rand64(), 1 + (size_t)it % 3, 40, 300 + (size_t)it * 37};
        cuzk_par *par = it & 1 ? cuzk_pool_par(pool) : NULL;
        cuzk_pce *p = extract("random", rnd_circuit, &r);
        if (p) compare_values(p, rnd_circuit, &r, par);
        cuzk_pce_close(p);
        compare_proofs(rnd_circuit, &r, par);
    }
    cuzk_pool_destroy(pool);
}

/* The 2 KiB PoRep (2.69 M constraints): values only. */
static void test_porep_2k(void)
{
    const cuzk_fil_seal_info *info;
    REQUIRE(cuzk_fil_seal_lookup(&info, 5) == CUZK_OK);
    cuzk_porep_random_witness rw = {test_rand64(), {0}};
    REQUIRE(cuzk_porep_shape_for(&rw.shape, info) == CUZK_OK);
    cuzk_porep_circuit_ctx ctx;
    cuzk_porep_random_circuit(&ctx, &rw);
    cuzk_pool *pool = NULL;
    REQUIRE(cuzk_pool_create(&pool, 2) == CUZK_OK);
    cuzk_pce *p = extract("porep-2k", cuzk_porep_circuit, &ctx);
    if (p) compare_values(p, cuzk_porep_circuit, &ctx, cuzk_pool_par(pool));
    cuzk_pce_close(p);
    cuzk_pool_destroy(pool);
}

static const test_case tests[] = {
    {"chain", test_chain},
    {"random_r1cs", test_random_r1cs},
    {"porep_2k", test_porep_2k},
};

TEST_MAIN(tests)
