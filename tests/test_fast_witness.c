/* Witness fast paths (src/gadgets/sha256_witness.c, src/r1cs/cs_bulk.c):
 * a WITNESS-mode cs, where the gadgets compute their witness natively and
 * hand it over in bulk, must hold exactly the assignments of the gadget
 * path (PROVE or CHECK mode: every Boolean allocated and enforced one by
 * one): same inputs, same aux values in the same order, same counts, same
 * output Booleans (variable, kind, value).  Inputs are random: SHA-256 of
 * 0-3 blocks with every message bit allocated, constant, a random mix, or
 * a mix with Not bits; compressions with random chaining words of mixed
 * kinds (the per-bit ch / maj cases); Poseidon of every arity with its
 * output's bits (poseidon_gadget.c, num.c, boolean.c fast paths); and the
 * whole 2 KiB PoRep circuit
 * with a real sealed witness (CHECK satisfied), a random one, and a random
 * one synthesized in parallel chunks (cs_par.c).  Digests
 * against OpenSSL's SHA-256. */
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/gadgets.h"
#include "cuzk/gadgets_sha256.h"
#include "cuzk/pool.h"
#include "cuzk/porep.h"
#include "cuzk/r1cs.h"
#include "cuzk/seal.h"
#include "cuzk/seal_c1.h"
#include "cuzk/status.h"
#include "harness.h"

/* A seeded generator, so that the two modes see the same random choices. */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* One Boolean of value v: pattern 0 allocated, 1 constant, 2 a random mix
 * of both, 3 a random mix of constants, Is and Not. */
static cuzk_bool make_bool(cuzk_cs *cs, bool v, int pattern, uint64_t *s)
{
    int kind = pattern == 0 ? 1 : pattern == 1 ? 0 : (int)(mix(s) % (pattern == 2 ? 2 : 3));
    cuzk_bool b = cuzk_bool_constant(v);
    if (kind == 1) CHECK(cuzk_bit_alloc(cs, &b, v) == CUZK_OK);
    if (kind == 2) {
        CHECK(cuzk_bit_alloc(cs, &b, !v) == CUZK_OK);
        b = cuzk_bool_not(b);
    }
    return b;
}

typedef struct {
    cuzk_bool out[512]; /* the gadget's output Booleans */
    size_t nout;
} run_result;

typedef void (*scenario_fn)(cuzk_cs *cs, run_result *r, uint64_t seed, const void *arg);

/* sha256 of len random bytes (arg: {len, pattern}); checks the digest. */
static void sc_hash(cuzk_cs *cs, run_result *r, uint64_t seed, const void *arg)
{
    const size_t *a = arg;
    size_t len = a[0];
    uint8_t msg[256], want[32], got[32] = {0};
    cuzk_bool in[8 * 256];
    for (size_t i = 0; i < len; i++)
        msg[i] = (uint8_t)mix(&seed);
    for (size_t i = 0; i < 8 * len; i++)
        in[i] = make_bool(cs, (msg[i / 8] >> (7 - i % 8)) & 1, (int)a[1], &seed);
    CHECK(cuzk_sha256(cs, r->out, in, 8 * len) == CUZK_OK);
    r->nout = 256;
    for (int i = 0; i < 256; i++)
        if (r->out[i].value) got[i / 8] |= (uint8_t)(0x80 >> (i % 8));
    SHA256(msg, len, want);
    CHECK(memcmp(got, want, 32) == 0);
}

/* Two chained compressions from random chaining words whose bits are
 * constant, Is or Not at random (arg: the message pattern). */
static void sc_compress(cuzk_cs *cs, run_result *r, uint64_t seed, const void *arg)
{
    int pattern = *(const int *)arg;
    cuzk_u32 cur[8], mid[8], out[8];
    cuzk_bool in[512];
    for (int k = 0; k < 8; k++) {
        uint32_t v = (uint32_t)mix(&seed);
        int wp = (int)(mix(&seed) % 4); /* whole word: alloc, const, mix, mix with Not */
        for (int i = 0; i < 32; i++)
            cur[k].bits[i] = make_bool(cs, (v >> i) & 1, wp, &seed);
        cur[k].value = v;
    }
    for (int blk = 0; blk < 2; blk++) {
        for (int i = 0; i < 512; i++)
            in[i] = make_bool(cs, mix(&seed) & 1, pattern, &seed);
        CHECK(cuzk_sha256_compress(cs, blk ? out : mid, in, blk ? mid : cur) == CUZK_OK);
    }
    for (int k = 0; k < 8; k++)
        memcpy(r->out + 32 * k, out[k].bits, sizeof out[k].bits);
    r->nout = 256;
}

/* Poseidon of every arity (arg: the arity; odd seeds use a custom tag)
 * and to_bits_le / u64 bits of its output. */
static void sc_poseidon(cuzk_cs *cs, run_result *r, uint64_t seed, const void *arg)
{
    size_t n = *(const size_t *)arg;
    cuzk_num in[36], h;
    for (size_t i = 0; i < n; i++) {
        cuzk_fr v = CUZK_FR_ZERO;
        for (int k = 0; k < 4; k++)
            v.l[k] = mix(&seed);
        v.l[3] >>= 3; /* below the modulus */
        CHECK(cuzk_num_alloc(cs, &in[i], &v) == CUZK_OK);
    }
    cuzk_fr tag = {{7, 0, 0, 0}};
    if (seed & 1)
        CHECK(cuzk_poseidon_gadget_tagged(cs, &h, &tag, in, n) == CUZK_OK);
    else
        CHECK(cuzk_poseidon_gadget(cs, &h, in, n) == CUZK_OK);
    CHECK(cuzk_num_to_bits_le(cs, r->out, &h) == CUZK_OK);
    CHECK(cuzk_bools_alloc_u64_le(cs, r->out + 255, mix(&seed)) == CUZK_OK);
    r->nout = 255 + 64;
}

static cuzk_cs *run(cuzk_cs_mode mode, scenario_fn fn, uint64_t seed, const void *arg, run_result *r)
{
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, mode, 0) == CUZK_OK);
    if (!cs) return NULL;
    fn(cs, r, seed, arg);
    int rc = cuzk_cs_finish(cs);
    if (rc) fprintf(stderr, "  cs error: %s\n", cuzk_cs_error(cs));
    CHECK(rc == CUZK_OK);
    return cs;
}

static bool same_fr(const cuzk_fr *a, const cuzk_fr *b, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!cuzk_fr_eq(&a[i], &b[i])) {
            fprintf(stderr, "  %s %zu differs\n", what, i);
            return false;
        }
    return true;
}

/* Same counts and assignments in both systems. */
static void check_same(const cuzk_cs *w, const cuzk_cs *g)
{
    cuzk_cs_counts cw, cg;
    cuzk_cs_get_counts(w, &cw);
    cuzk_cs_get_counts(g, &cg);
    if (cw.constraints != cg.constraints || cw.aux != cg.aux)
        fprintf(stderr, "  witness %zu constraints %zu aux, gadget %zu / %zu\n", cw.constraints, cw.aux,
                cg.constraints, cg.aux);
    CHECK(cw.constraints == cg.constraints && cw.inputs == cg.inputs && cw.aux == cg.aux);
    if (cw.aux != cg.aux || cw.inputs != cg.inputs) return;
    CHECK(same_fr(cuzk_cs_input_assignment(w), cuzk_cs_input_assignment(g), cw.inputs, "input"));
    CHECK(same_fr(cuzk_cs_aux_assignment(w), cuzk_cs_aux_assignment(g), cw.aux, "aux"));
}

/* Fast WITNESS run against the gadget in CHECK mode (satisfied). */
static void compare(scenario_fn fn, const void *arg)
{
    uint64_t seed = test_rand64();
    run_result *rw = calloc(2, sizeof *rw);
    CHECK(rw != NULL);
    if (!rw) return;
    cuzk_cs *w = run(CUZK_CS_WITNESS, fn, seed, arg, &rw[0]);
    cuzk_cs *g = run(CUZK_CS_CHECK, fn, seed, arg, &rw[1]);
    if (w && g) {
        check_same(w, g);
        size_t idx = 0;
        CHECK(cuzk_cs_is_satisfied(g, &idx, NULL));
        CHECK(rw[0].nout == rw[1].nout);
        for (size_t i = 0; i < rw[0].nout; i++) {
            const cuzk_bool *x = &rw[0].out[i], *y = &rw[1].out[i];
            bool same = x->kind == y->kind && x->value == y->value &&
                        (x->kind == CUZK_BOOL_CONST || x->var == y->var);
            if (!same) fprintf(stderr, "  output bit %zu differs\n", i);
            CHECK(same);
        }
    }
    cuzk_cs_free(w);
    cuzk_cs_free(g);
    free(rw);
}

static void test_sha256_lengths(void)
{
    /* 0..3 blocks: the edges of the padding and random lengths */
    static const size_t edge[] = {0, 1, 55, 56, 63, 64, 119, 120, 128, 183, 184, 191};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        for (size_t p = 0; p < 4; p++) {
            size_t arg[2] = {edge[i], p};
            compare(sc_hash, arg);
        }
    for (int it = 0; it < 8 * test_iterations; it++) {
        size_t arg[2] = {test_rand64() % 192, test_rand64() % 4};
        compare(sc_hash, arg);
    }
}

static void test_compress_mixed_state(void)
{
    for (int it = 0; it < 6 * test_iterations; it++) {
        int pattern = (int)(test_rand64() % 4);
        compare(sc_compress, &pattern);
    }
}

static void test_poseidon_and_bits(void)
{
    static const size_t ar[] = {2, 4, 8, 11, 16, 24, 36};
    for (int it = 0; it < 2 * test_iterations; it++)
        for (size_t i = 0; i < sizeof ar / sizeof ar[0]; i++)
            compare(sc_poseidon, &ar[i]);
}

/* The fast path is taken: it never touches the thread's MultiEq, so it
 * hashes while one is open, where the gadget path refuses. */
static void test_fast_path_taken(void)
{
    cuzk_cs *other = NULL, *w = NULL;
    CHECK(cuzk_cs_new(&other, CUZK_CS_WITNESS, 0) == CUZK_OK);
    CHECK(cuzk_cs_new(&w, CUZK_CS_WITNESS, 0) == CUZK_OK);
    if (!other || !w) return;
    cuzk_multieq *me = NULL;
    CHECK(cuzk_multieq_begin(other, &me) == CUZK_OK);
    cuzk_bool in[64], out[256];
    for (int i = 0; i < 64; i++)
        CHECK(cuzk_bit_alloc(w, &in[i], i & 1) == CUZK_OK);
    CHECK(cuzk_sha256(w, out, in, 64) == CUZK_OK);
    CHECK(cuzk_multieq_end(me) == CUZK_OK);
    cuzk_cs_free(other);
    cuzk_cs_free(w);
}

static void test_bulk_api(void)
{
    static const struct {
        cuzk_cs_mode mode;
        unsigned flags;
        bool records;
    } m[] = {{CUZK_CS_WITNESS, 0, false},
             {CUZK_CS_WITNESS, CUZK_CS_MATRICES, true},
             {CUZK_CS_PROVE, 0, true},
             {CUZK_CS_CHECK, 0, true},
             {CUZK_CS_SHAPE, 0, true}};
    uint64_t bits[3] = {test_rand64(), test_rand64(), test_rand64()};
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
        cuzk_cs *cs = NULL;
        CHECK(cuzk_cs_new(&cs, m[k].mode, m[k].flags) == CUZK_OK);
        if (!cs) continue;
        CHECK(cuzk_cs_records_constraints(cs) == m[k].records);
        cuzk_var v0, first = 0;
        CHECK(cuzk_cs_alloc(cs, &v0, &CUZK_FR_ONE) == CUZK_OK);
        int rc = cuzk_cs_alloc_bits(cs, &first, bits, 150);
        CHECK(rc == (m[k].records ? CUZK_ERR_ARG : CUZK_OK));
        if (!m[k].records) {
            CHECK(first == (CUZK_VAR_AUX | 1));
            CHECK(cuzk_cs_skip_constraints(cs, 7) == CUZK_OK);
            CHECK(cuzk_cs_finish(cs) == CUZK_OK);
            cuzk_cs_counts c;
            cuzk_cs_get_counts(cs, &c);
            CHECK(c.aux == 151 && c.constraints == 7 + 1);
            const cuzk_fr *z = cuzk_cs_aux_assignment(cs);
            for (size_t i = 0; i < 150; i++)
                CHECK(cuzk_fr_eq(&z[1 + i], (bits[i / 64] >> (i % 64)) & 1 ? &CUZK_FR_ONE : &CUZK_FR_ZERO));
            CHECK(cuzk_cs_alloc_bits(cs, &first, bits, 1) == CUZK_ERR_ARG); /* after finish */
        }
        cuzk_cs_free(cs);
    }
}

/* ---- the whole 2 KiB PoRep circuit -------------------------------------------- */

static void porep_compare(cuzk_cs *w, cuzk_cs *p)
{
    if (!w || !p) return;
    check_same(w, p);
}

/* A real sealed 2 KiB sector: WITNESS = PROVE assignments, CHECK satisfied. */
static void test_porep_sealed(void)
{
    cuzk_seal_config cfg = {5, 7, 1000, test_rand64()}; /* 2 KiB V1_1 */
    cuzk_seal_sector *s = NULL;
    char err[512] = "", *json = NULL;
    size_t len = 0;
    int st = cuzk_seal_sector_seal(&s, &cfg, NULL, NULL, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  seal: %s\n", err);
    CHECK(st == CUZK_OK);
    if (st) return;
    FILE *f = open_memstream(&json, &len);
    CHECK(f && cuzk_seal_c1_write_json(&s->c1, f, err, sizeof err) == CUZK_OK);
    if (f) fclose(f);
    cuzk_porep_job *j = NULL;
    st = cuzk_porep_job_new(&j, json, len, 5, s->prover_id, s->sector_id, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  job: %s\n", err);
    CHECK(st == CUZK_OK);
    cuzk_cs *cs[3] = {NULL, NULL, NULL};
    static const cuzk_cs_mode modes[3] = {CUZK_CS_WITNESS, CUZK_CS_PROVE, CUZK_CS_CHECK};
    for (int m = 0; m < 3 && !st; m++) {
        int rc = cuzk_porep_job_synthesize(&cs[m], j, 0, modes[m], 0, err, sizeof err);
        if (rc) fprintf(stderr, "  synthesize mode %d: %s\n", m, err);
        CHECK(rc == CUZK_OK);
    }
    porep_compare(cs[0], cs[1]);
    size_t idx = 0;
    if (cs[2]) {
        CHECK(cuzk_cs_is_satisfied(cs[2], &idx, NULL));
        porep_compare(cs[0], cs[2]);
    }
    for (int m = 0; m < 3; m++)
        cuzk_cs_free(cs[m]);
    cuzk_porep_job_free(j);
    free(json);
    cuzk_seal_sector_free(s);
}

static void rev_for_each(cuzk_par *par, cuzk_task_fn fn, void *arg, size_t n)
{
    (void)par;
    for (size_t i = n; i-- > 0;)
        fn(arg, i);
}

/* A random witness, 3 challenges: WITNESS = PROVE, sequentially and in
 * parallel synthesis (chunks writing into the parent's arrays, cs_par.c:
 * the fast paths' bulk calls must land where the gadgets' allocations
 * would), 3 chunks in reverse order and on a real 2-thread pool. */
static void test_porep_parallel(void)
{
    const cuzk_fil_seal_info *info = NULL;
    REQUIRE(cuzk_fil_seal_lookup(&info, 5) == CUZK_OK);
    cuzk_porep_random_witness rw = {test_rand64(), {0}};
    cuzk_porep_shape one;
    REQUIRE(cuzk_porep_shape_for(&one, info) == CUZK_OK);
    REQUIRE(cuzk_porep_shape_make(&rw.shape, one.nodes, 2, 3, &one.tree) == CUZK_OK);
    cuzk_porep_circuit_ctx ctx;
    cuzk_porep_random_circuit(&ctx, &rw);
    cuzk_pool *pool = NULL;
    REQUIRE(cuzk_pool_create(&pool, 2) == CUZK_OK);
    cuzk_par rev = {rev_for_each, 2, NULL};
    cuzk_par *pars[3] = {NULL, &rev, cuzk_pool_par(pool)};
    cuzk_cs *seq = NULL;
    CHECK(cuzk_cs_new(&seq, CUZK_CS_PROVE, 0) == CUZK_OK);
    CHECK(seq && cuzk_cs_synthesize(seq, cuzk_porep_circuit, &ctx) == CUZK_OK);
    for (int k = 0; k < 3 && seq; k++) {
        cuzk_cs *w = NULL;
        CHECK(cuzk_cs_new(&w, CUZK_CS_WITNESS, 0) == CUZK_OK);
        if (!w) break;
        if (pars[k]) CHECK(cuzk_cs_set_par(w, pars[k], 3) == CUZK_OK);
        int rc = cuzk_cs_synthesize(w, cuzk_porep_circuit, &ctx);
        if (rc) fprintf(stderr, "  schedule %d: %s\n", k, cuzk_cs_error(w));
        CHECK(rc == CUZK_OK);
        if (!rc) check_same(w, seq);
        cuzk_cs_free(w);
    }
    cuzk_cs_free(seq);
    cuzk_pool_destroy(pool);
}

static const test_case tests[] = {
    {"bulk_api", test_bulk_api},
    {"fast_path_taken", test_fast_path_taken},
    {"sha256_lengths", test_sha256_lengths},
    {"compress_mixed_state", test_compress_mixed_state},
    {"poseidon_and_bits", test_poseidon_and_bits},
    {"porep_sealed_2k", test_porep_sealed},
    {"porep_parallel_2k", test_porep_parallel},
};

TEST_MAIN(tests)
