/* StackedDRG PoRep circuit (src/circuits/porep.c): constraint and input
 * counts against the numbers asserted in rust-fil-proofs' tests
 * (storage-proofs-porep/tests/stacked_circuit.rs: four test circuits;
 * stacked/circuit/create_label.rs: test_create_label) and the derived
 * production counts of filecoin-formats.md section 8 (2 KiB, 8 MiB,
 * 512 MiB here; 32 GiB and 64 GiB with CUZK_SLOW_TESTS=1 or through
 * `cuzk-bench circuit-info` in scripts/cli-tests.sh), the label's value
 * against OpenSSL's SHA-256 of the same preimage bytes, cuzk_porep_num_*
 * against SHAPE synthesis, and PROVE runs (random witness) against SHAPE
 * runs (same counts, nonzeros and density). */
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/gadgets.h"
#include "cuzk/porep.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"
#include "harness.h"

static void shape_counts(cuzk_cs_counts *out, const cuzk_porep_shape *s)
{
    cuzk_porep_circuit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.shape = *s;
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0) == CUZK_OK);
    int rc = cuzk_cs_synthesize(cs, cuzk_porep_circuit, &ctx);
    if (rc) fprintf(stderr, "  %s\n", cuzk_cs_error(cs));
    CHECK(rc == CUZK_OK);
    cuzk_cs_get_counts(cs, out);
    cuzk_cs_free(cs);
}

/* Rust TestConstraintSystem: constraints without input rows, inputs with ONE. */
static void check_rust(const cuzk_porep_shape *s, size_t want_constraints, size_t want_inputs)
{
    cuzk_cs_counts c;
    shape_counts(&c, s);
    size_t rc = c.constraints - c.inputs;
    if (rc != want_constraints || c.inputs != want_inputs)
        fprintf(stderr, "  nodes %llu: %zu constraints / %zu inputs, want %zu / %zu\n",
                (unsigned long long)s->nodes, rc, c.inputs, want_constraints, want_inputs);
    CHECK(rc == want_constraints);
    CHECK(c.inputs == want_inputs);
    CHECK(cuzk_porep_num_constraints(s) == rc);
    CHECK(cuzk_porep_num_inputs(s) + 1 == c.inputs);
}

static void test_rust_test_circuits(void)
{
    /* nodes = 8 * base tree count, 2 layers, 1 challenge, V1_1, porep_id [44; 32] */
    static const struct {
        cuzk_por_shape tree;
        uint64_t nodes;
        size_t constraints;
    } cases[] = {
        {{2, 3, 0, 0}, 8, 1206212},  /* DiskTree<Poseidon, U2, U0, U0> */
        {{8, 1, 0, 0}, 8, 1199620},  /* U8, U0, U0 */
        {{8, 1, 4, 0}, 32, 1296576}, /* U8, U4, U0 */
        {{8, 1, 4, 2}, 64, 1346982}, /* U8, U4, U2 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_porep_shape s;
        CHECK(cuzk_porep_shape_make(&s, cases[i].nodes, 2, 1, &cases[i].tree) == CUZK_OK);
        check_rust(&s, cases[i].constraints, 22);
    }
}

static void production(uint64_t sector_size, size_t constraints, size_t inputs)
{
    const cuzk_fil_seal_info *info = NULL;
    for (uint64_t id = 5; id < 10; id++) { /* V1_1 */
        CHECK(cuzk_fil_seal_lookup(&info, id) == CUZK_OK);
        if (info->sector_size == sector_size) break;
    }
    CHECK(info && info->sector_size == sector_size);
    cuzk_porep_shape s;
    CHECK(cuzk_porep_shape_for(&s, info) == CUZK_OK);
    check_rust(&s, constraints, inputs);
}

static void test_production_small(void)
{
    production(2048, 2687921, 40);
    production(8ull << 20, 3844929, 40);
    production(512ull << 20, 4423433, 40);
}

static void test_production_large(void)
{
    const char *slow = getenv("CUZK_SLOW_TESTS");
    if (!slow || strcmp(slow, "1")) {
        test_skip("32/64 GiB SHAPE synthesis takes minutes (CUZK_SLOW_TESTS=1; cli-tests checks them)");
        return;
    }
    production(32ull << 30, 130278541, 328);
    production(64ull << 30, 131185849, 328);
}

/* Every shape of a registered proof computes counts (no synthesis). */
static void test_counts_formula(void)
{
    for (uint64_t id = 0; id < 20; id++) {
        const cuzk_fil_seal_info *info;
        CHECK(cuzk_fil_seal_lookup(&info, id) == CUZK_OK);
        cuzk_porep_shape s;
        CHECK(cuzk_porep_shape_for(&s, info) == CUZK_OK);
        size_t want = info->sector_size == (32ull << 30)   ? 130278541
                      : info->sector_size == (64ull << 30) ? 131185849
                      : info->sector_size == 2048          ? 2687921
                      : info->sector_size == (8ull << 20)  ? 3844929
                                                           : 4423433;
        CHECK(cuzk_porep_num_constraints(&s) == want);
    }
}

/* storage-proofs-porep create_label.rs test_create_label: id and 37
 * parents as allocated bits (bytes_into_boolean_vec_be: 256 each), layer
 * 3 and node 22 as constants: 532,025 constraints in all.  The value must
 * be SHA-256 of the preimage bytes, truncated to 254 bits. */
static void test_create_label(void)
{
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_CHECK, 0) == CUZK_OK);
    uint8_t id[32], par[14][32];
    test_rand_bytes(id, 32);
    id[31] &= 0x3f;
    for (int k = 0; k < 14; k++)
        test_rand_bytes(par[k], 32), par[k][31] &= 0x3f;
    static cuzk_bool pbits[CUZK_POREP_LABEL_PARENTS][256], scratch[CUZK_POREP_LABEL_BITS];
    const cuzk_bool *pp[CUZK_POREP_LABEL_PARENTS];
    cuzk_bool idb[256], node[64];
    /* parents first (Rust builds parents_bits before id_bits) */
    for (int k = 0; k < CUZK_POREP_LABEL_PARENTS; k++) {
        const uint8_t *src = par[k < 28 ? k % 14 : k - 28];
        for (int i = 0; i < 256; i++)
            CHECK(cuzk_bit_alloc(cs, &pbits[k][i], (src[i / 8] >> (7 - i % 8)) & 1) == 0);
        pp[k] = pbits[k];
    }
    for (int i = 0; i < 256; i++)
        CHECK(cuzk_bit_alloc(cs, &idb[i], (id[i / 8] >> (7 - i % 8)) & 1) == 0);
    for (int i = 0; i < 64; i++)
        node[i] = cuzk_bool_constant((22ull >> i) & 1);
    cuzk_num out;
    CHECK(cuzk_porep_create_label(cs, &out, scratch, idb, pp, 3, node) == CUZK_OK);
    CHECK(cuzk_cs_finish(cs) == CUZK_OK);
    size_t idx;
    const char *path;
    CHECK(cuzk_cs_is_satisfied(cs, &idx, &path));
    cuzk_cs_counts c;
    cuzk_cs_get_counts(cs, &c);
    CHECK(c.constraints - c.inputs == 532025);
    uint8_t pre[64 + 37 * 32], want[32];
    memset(pre, 0, sizeof pre);
    memcpy(pre, id, 32);
    pre[35] = 3;
    pre[43] = 22;
    for (int k = 0; k < 37; k++)
        memcpy(pre + 64 + 32 * k, par[k < 28 ? k % 14 : k - 28], 32);
    SHA256(pre, sizeof pre, want);
    want[31] &= 0x3f;
    cuzk_fr wf;
    CHECK(cuzk_fil_domain_to_fr(&wf, want, "label", NULL, 0) == CUZK_OK);
    CHECK(cuzk_fr_eq(&wf, &out.value));
    cuzk_cs_free(cs);
}

/* PROVE with a random witness and SHAPE agree on every count. */
static void test_prove_matches_shape(void)
{
    const cuzk_fil_seal_info *info;
    CHECK(cuzk_fil_seal_lookup(&info, 5) == CUZK_OK); /* 2 KiB V1_1 */
    cuzk_porep_random_witness rw = {test_rand64(), {0}};
    CHECK(cuzk_porep_shape_for(&rw.shape, info) == CUZK_OK);
    cuzk_porep_circuit_ctx ctx;
    cuzk_porep_random_circuit(&ctx, &rw);
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_PROVE, 0) == CUZK_OK);
    CHECK(cuzk_cs_synthesize(cs, cuzk_porep_circuit, &ctx) == CUZK_OK);
    cuzk_cs_counts p, s;
    cuzk_cs_get_counts(cs, &p);
    cuzk_cs_free(cs);
    shape_counts(&s, &rw.shape);
    CHECK(p.constraints == s.constraints && p.inputs == s.inputs && p.aux == s.aux);
    CHECK(p.nnz_a == s.nnz_a && p.nnz_b == s.nnz_b && p.nnz_c == s.nnz_c);
    CHECK(p.a_aux_density == s.a_aux_density && p.b_input_density == s.b_input_density &&
          p.b_aux_density == s.b_aux_density);
}

static const test_case tests[] = {
    {"rust_test_circuits", test_rust_test_circuits},
    {"production_small", test_production_small},
    {"production_large", test_production_large},
    {"counts_formula", test_counts_formula},
    {"create_label", test_create_label},
    {"prove_matches_shape", test_prove_matches_shape},
};

TEST_MAIN(tests)
