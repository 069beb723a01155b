/* SHA-256 gadgets (src/gadgets/uint32.c, sha256.c): constraint counts
 * against the numbers asserted in bellperson's and rust-fil-proofs' tests
 * (filecoin-formats.md section 8), digests against OpenSSL's SHA-256 on
 * random inputs of 0-255 bytes with every input bit allocated, constant or
 * a random mix (constant folding must not change the value), CHECK-mode
 * satisfaction, SHAPE runs against PROVE runs, and the Filecoin hasher
 * circuits against the native trunc254 hash (cuzk_fil_sha256_trunc254). */
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/gadgets.h"
#include "cuzk/gadgets_por.h"
#include "cuzk/gadgets_sha256.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"
#include "harness.h"

static cuzk_cs *new_cs(cuzk_cs_mode mode)
{
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, mode, 0) == CUZK_OK);
    return cs;
}

static void finish_sat(cuzk_cs *cs)
{
    int rc = cuzk_cs_finish(cs);
    if (rc) fprintf(stderr, "  cs error: %s\n", cuzk_cs_error(cs));
    CHECK(rc == CUZK_OK);
    if (cuzk_cs_get_mode(cs) != CUZK_CS_CHECK) return;
    size_t idx = 0;
    const char *path = "";
    bool sat = cuzk_cs_is_satisfied(cs, &idx, &path);
    if (!sat) fprintf(stderr, "  unsatisfied at constraint %zu\n", idx);
    CHECK(sat);
}

/* Constraints as Rust's TestConstraintSystem counts them (no per-input rows). */
static size_t rust_constraints(const cuzk_cs *cs)
{
    cuzk_cs_counts c;
    cuzk_cs_get_counts(cs, &c);
    return c.constraints - c.inputs;
}

/* Enforced so far (before finish appends the input rows). */
static size_t raw_constraints(const cuzk_cs *cs)
{
    cuzk_cs_counts c;
    cuzk_cs_get_counts(cs, &c);
    return c.constraints;
}

/* pattern: 0 all allocated, 1 all constant, 2 random mix */
static void make_bits(cuzk_cs *cs, cuzk_bool *bits, const uint8_t *msg, size_t len, int pattern)
{
    for (size_t i = 0; i < 8 * len; i++) {
        bool v = (msg[i / 8] >> (7 - i % 8)) & 1;
        bool alloc = pattern == 0 || (pattern == 2 && (test_rand64() & 1));
        if (alloc)
            CHECK(cuzk_bit_alloc(cs, &bits[i], v) == CUZK_OK);
        else
            bits[i] = cuzk_bool_constant(v);
    }
}

static void digest_bytes(uint8_t out[32], const cuzk_bool bits[256])
{
    memset(out, 0, 32);
    for (int i = 0; i < 256; i++)
        if (bits[i].value) out[i / 8] |= (uint8_t)(0x80 >> (i % 8));
}

/* FIPS 180-4 initial hash value as constant words. */
static void sha256_iv(cuzk_u32 iv[8])
{
    static const uint32_t v[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    for (int i = 0; i < 8; i++)
        cuzk_u32_constant(&iv[i], v[i]);
}

static void test_compress_count(void)
{
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK);
    cuzk_bool in[512];
    uint8_t msg[64];
    test_rand_bytes(msg, sizeof msg);
    make_bits(cs, in, msg, 64, 0);
    cuzk_u32 iv[8], out[8];
    sha256_iv(iv);
    CHECK(cuzk_sha256_compress(cs, out, in, iv) == CUZK_OK);
    finish_sat(cs);
    CHECK(rust_constraints(cs) - 512 == 25840); /* bellperson test_full_block */
    cuzk_cs_free(cs);
}

static void test_blank_block(void)
{
    /* bellperson test_blank_hash: the padded empty message, all constant */
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK);
    cuzk_bool in[512];
    for (int i = 0; i < 512; i++)
        in[i] = cuzk_bool_constant(i == 0);
    cuzk_u32 iv[8], out[8];
    sha256_iv(iv);
    CHECK(cuzk_sha256_compress(cs, out, in, iv) == CUZK_OK);
    finish_sat(cs);
    CHECK(rust_constraints(cs) == 0);
    uint8_t want[32], got[32];
    SHA256((const uint8_t *)"", 0, want);
    cuzk_bool bits[256];
    for (int i = 0; i < 8; i++)
        cuzk_u32_into_bits_be(bits + 32 * i, &out[i]);
    digest_bytes(got, bits);
    CHECK(memcmp(got, want, 32) == 0);
    cuzk_cs_free(cs);
}

static void test_full_hash_count(void)
{
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK);
    cuzk_bool in[512], out[256];
    uint8_t msg[64], want[32], got[32];
    test_rand_bytes(msg, sizeof msg);
    make_bits(cs, in, msg, 64, 0);
    CHECK(cuzk_sha256(cs, out, in, 512) == CUZK_OK);
    finish_sat(cs);
    CHECK(rust_constraints(cs) - 512 == 44874); /* bellperson test_full_hash */
    SHA256(msg, 64, want);
    digest_bytes(got, out);
    CHECK(memcmp(got, want, 32) == 0);
    cuzk_cs_free(cs);
}

/* One hash of len bytes with the given bit pattern, checked against OpenSSL. */
static void hash_case(size_t len, int pattern, cuzk_cs_mode mode)
{
    uint8_t *msg = malloc(len + 1), want[32], got[32];
    cuzk_bool *in = malloc((8 * len + 1) * sizeof *in), out[256];
    CHECK(msg && in);
    test_rand_bytes(msg, len);
    cuzk_cs *cs = new_cs(mode);
    make_bits(cs, in, msg, len, pattern);
    CHECK(cuzk_sha256(cs, out, in, 8 * len) == CUZK_OK);
    finish_sat(cs);
    SHA256(msg, len, want);
    digest_bytes(got, out);
    if (memcmp(got, want, 32)) fprintf(stderr, "  len %zu pattern %d: digest differs\n", len, pattern);
    CHECK(memcmp(got, want, 32) == 0);
    cuzk_cs_free(cs);
    free(msg);
    free(in);
}

static void test_random_lengths(void)
{
    static const size_t edge[] = {0, 1, 55, 56, 63, 64, 119, 120, 128, 255};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        for (int p = 0; p < 3; p++)
            hash_case(edge[i], p, p == 1 ? CUZK_CS_CHECK : CUZK_CS_WITNESS);
    int n = 12 * test_iterations;
    for (int i = 0; i < n; i++)
        hash_case(test_rand64() % 256, (int)(test_rand64() % 3), CUZK_CS_CHECK);
}

static void test_all_constant_costs_nothing(void)
{
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK);
    uint8_t msg[100];
    test_rand_bytes(msg, sizeof msg);
    cuzk_bool in[800], out[256];
    make_bits(cs, in, msg, 100, 1);
    CHECK(cuzk_sha256(cs, out, in, 800) == CUZK_OK);
    finish_sat(cs);
    CHECK(rust_constraints(cs) == 0);
    cuzk_cs_free(cs);
}

/* SHAPE and PROVE runs agree on every count (nonzeros, density). */
static void test_shape_matches_prove(void)
{
    uint8_t msg[96];
    test_rand_bytes(msg, sizeof msg);
    cuzk_cs_counts c[2];
    for (int m = 0; m < 2; m++) {
        cuzk_cs *cs = new_cs(m ? CUZK_CS_PROVE : CUZK_CS_SHAPE);
        cuzk_bool in[768], out[256];
        for (int i = 0; i < 768; i++) {
            if (i % 7 == 3)
                in[i] = cuzk_bool_constant((msg[i / 8] >> (i % 8)) & 1);
            else
                CHECK(cuzk_bit_alloc(cs, &in[i], (msg[i / 8] >> (i % 8)) & 1) == CUZK_OK);
        }
        CHECK(cuzk_sha256(cs, out, in, 768) == CUZK_OK);
        CHECK(cuzk_cs_finish(cs) == CUZK_OK);
        cuzk_cs_get_counts(cs, &c[m]);
        cuzk_cs_free(cs);
    }
    CHECK(c[0].constraints == c[1].constraints && c[0].aux == c[1].aux);
    CHECK(c[0].nnz_a == c[1].nnz_a && c[0].nnz_b == c[1].nnz_b && c[0].nnz_c == c[1].nnz_c);
    CHECK(c[0].a_aux_density == c[1].a_aux_density && c[0].b_aux_density == c[1].b_aux_density);
}

/* storage-proofs-core util.rs test hash_leaf_bits_circuit: 2 x 256
 * allocated bits (bytes_into_boolean_vec, 512 constraints) and the hash:
 * 45,387 in all. */
static void test_hash_leaf_bits(void)
{
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK);
    uint8_t l[32], r[32];
    test_rand_bytes(l, 32);
    test_rand_bytes(r, 32);
    cuzk_bool lb[256], rb[256];
    for (int i = 0; i < 256; i++) {
        CHECK(cuzk_bit_alloc(cs, &lb[i], (l[i / 8] >> (i % 8)) & 1) == CUZK_OK);
        CHECK(cuzk_bit_alloc(cs, &rb[i], (r[i / 8] >> (i % 8)) & 1) == CUZK_OK);
    }
    cuzk_num out;
    CHECK(cuzk_fil_sha256_hash_leaf_bits(cs, &out, lb, 256, rb, 256) == CUZK_OK);
    finish_sat(cs);
    CHECK(rust_constraints(cs) == 45387); /* storage-proofs-core util.rs, bit allocations included */
    /* LE bits per byte = the bytes themselves: value is sha256(l || r) trunc254 */
    uint8_t msg[64], want[32];
    memcpy(msg, l, 32);
    memcpy(msg + 32, r, 32);
    cuzk_fil_sha256_trunc254(want, msg, 64);
    cuzk_fr wf;
    CHECK(cuzk_fil_domain_to_fr(&wf, want, "want", NULL, 0) == CUZK_OK);
    CHECK(cuzk_fr_eq(&wf, &out.value));
    cuzk_cs_free(cs);
}

/* hash2 of two AllocatedNums = native hash2 (sha256 of both LE encodings,
 * trunc254); 45,379 constraints (derived: bits 255 and 511 constant). */
static void test_hash2(void)
{
    for (int it = 0; it < 2 * test_iterations; it++) {
        uint8_t a[32], b[32], msg[64], want[32];
        test_rand_bytes(a, 32);
        test_rand_bytes(b, 32);
        a[31] &= 0x3f, b[31] &= 0x3f;
        cuzk_fr fa, fb, wf;
        CHECK(cuzk_fil_domain_to_fr(&fa, a, "a", NULL, 0) == CUZK_OK);
        CHECK(cuzk_fil_domain_to_fr(&fb, b, "b", NULL, 0) == CUZK_OK);
        cuzk_cs *cs = new_cs(CUZK_CS_CHECK);
        cuzk_num na, nb, out;
        CHECK(cuzk_num_alloc(cs, &na, &fa) == CUZK_OK && cuzk_num_alloc(cs, &nb, &fb) == CUZK_OK);
        CHECK(cuzk_fil_sha256_hash2(cs, &out, &na, &nb) == CUZK_OK);
        finish_sat(cs);
        CHECK(rust_constraints(cs) == 45379);
        memcpy(msg, a, 32);
        memcpy(msg + 32, b, 32);
        cuzk_fil_sha256_trunc254(want, msg, 64);
        CHECK(cuzk_fil_domain_to_fr(&wf, want, "want", NULL, 0) == CUZK_OK);
        CHECK(cuzk_fr_eq(&wf, &out.value));
        cuzk_cs_free(cs);
    }
}

static void test_addmany_flush_order(void)
{
    /* 8 additions of two allocated words: 33 bits each, so the 8th does
     * not fit (7 x 33 = 231, + 33 >= 254): its 33 result bits are
     * allocated and constrained BEFORE the flushed constraint of the first 7. */
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK);
    cuzk_u32 x[2], r;
    CHECK(cuzk_u32_alloc(cs, &x[0], 0x89abcdefu) == CUZK_OK);
    CHECK(cuzk_u32_alloc(cs, &x[1], 0xfedcba98u) == CUZK_OK);
    cuzk_multieq *me;
    CHECK(cuzk_multieq_begin(cs, &me) == CUZK_OK);
    for (int i = 0; i < 8; i++)
        CHECK(cuzk_u32_addmany(me, &r, x, 2) == CUZK_OK);
    CHECK(r.value == (uint32_t)(0x89abcdefu + 0xfedcba98u));
    cuzk_cs_counts c;
    cuzk_cs_get_counts(cs, &c);
    /* 64 input bits + 8 x 33 result bits + 1 flushed multieq so far */
    CHECK(c.constraints == 64 + 8 * 33 + 1);
    CHECK(cuzk_multieq_end(me) == CUZK_OK);
    cuzk_cs_get_counts(cs, &c);
    CHECK(c.constraints == 64 + 8 * 33 + 2);
    /* a second begin while one is open is refused */
    CHECK(cuzk_multieq_begin(cs, &me) == CUZK_OK);
    cuzk_multieq *me2;
    CHECK(cuzk_multieq_begin(cs, &me2) == CUZK_ERR_ARG);
    CHECK(cuzk_multieq_end(me) == CUZK_ERR_ARG); /* the cs keeps the sticky error */
    cuzk_cs_free(cs);
}

/* Binary SHA-256 PoR against a native tree (cuzk_fil_sha256_tree_*): the
 * PoRCircuit form (index bits and siblings allocated inside, packed index
 * input) and por_no_challenge_input (SnapDeals' form: the caller's bits and
 * numbers, no input); both satisfied, costs 1 + 2 + 45,379 a level (+ pack +
 * equal) and 2 + 45,379 a level (+ equal); a wrong root is unsatisfied. */
static void test_sha_por(void)
{
    enum { N = 8, D = 3 };
    uint8_t leaves[N * 32];
    for (int i = 0; i < N; i++) {
        test_rand_bytes(leaves + 32 * i, 32);
        leaves[32 * i + 31] &= 0x3f;
    }
    uint8_t root[32], storage[D * 40 + 64];
    CHECK(cuzk_fil_sha256_tree_root(root, leaves, N) == CUZK_OK);
    uint64_t idx = test_rand64() % N;
    cuzk_fil_merkle_proof pr;
    CHECK(cuzk_fil_sha256_tree_prove(&pr, storage, sizeof storage, leaves, N, idx) == CUZK_OK);
    cuzk_fr leaf, sib[D], rootf;
    uint32_t index[D];
    CHECK(cuzk_fil_domain_to_fr(&leaf, leaves + 32 * idx, "leaf", NULL, 0) == CUZK_OK);
    CHECK(cuzk_fil_domain_to_fr(&rootf, root, "root", NULL, 0) == CUZK_OK);
    for (int l = 0; l < D; l++) {
        CHECK(cuzk_fil_domain_to_fr(&sib[l], pr.path[0].hashes + 32 * l, "sib", NULL, 0) == CUZK_OK);
        index[l] = (uint32_t)pr.path[0].index[l];
    }
    cuzk_por_shape shape = {2, D, 0, 0};
    for (int form = 0; form < 2; form++)
        for (int bad = 0; bad < 2; bad++) {
            cuzk_cs *cs = new_cs(CUZK_CS_CHECK);
            cuzk_num nleaf, nroot;
            cuzk_fr r = rootf;
            if (bad) cuzk_fr_add(&r, &r, &CUZK_FR_ONE);
            CHECK(cuzk_num_alloc(cs, &nleaf, &leaf) == CUZK_OK && cuzk_num_alloc(cs, &nroot, &r) == CUZK_OK);
            size_t before = raw_constraints(cs), want;
            if (form == 0) {
                cuzk_por_witness w = {NULL, sib, index};
                CHECK(cuzk_por_gadget_var(cs, &shape, CUZK_POR_SHA256, &w, &nleaf, &nroot) == CUZK_OK);
                want = D * (1 + 2 + 45379) + 1 + 1;
            } else {
                cuzk_bool bits[D];
                cuzk_num path[D];
                for (int l = 0; l < D; l++) {
                    CHECK(cuzk_bit_alloc(cs, &bits[l], (idx >> l) & 1) == CUZK_OK);
                    CHECK(cuzk_num_alloc(cs, &path[l], &sib[l]) == CUZK_OK);
                }
                before = raw_constraints(cs);
                CHECK(cuzk_por_no_challenge_input(cs, &shape, CUZK_POR_SHA256, bits, &nleaf, path, &nroot) ==
                      CUZK_OK);
                want = D * (2 + 45379) + 1;
            }
            size_t got = raw_constraints(cs) - before, at;
            const char *path;
            if (got != want) fprintf(stderr, "  form %d: %zu constraints, want %zu\n", form, got, want);
            CHECK(got == want);
            CHECK(cuzk_cs_finish(cs) == CUZK_OK);
            CHECK(cuzk_cs_is_satisfied(cs, &at, &path) == !bad);
            cuzk_cs_free(cs);
        }
}

/* A hash on a cs that already failed returns its status and leaves the
 * thread's MultiEq closed: the next cs on this thread hashes normally. */
static void test_failed_cs_keeps_thread_usable(void)
{
    cuzk_cs *bad = new_cs(CUZK_CS_WITNESS);
    cuzk_cs_set_error(bad, CUZK_ERR_ARG, "earlier failure");
    cuzk_bool in[8], out[256];
    for (int i = 0; i < 8; i++) in[i] = cuzk_bool_constant(i & 1);
    CHECK(cuzk_sha256(bad, out, in, 8) == CUZK_ERR_ARG);
    cuzk_cs_free(bad);
    hash_case(5, 0, CUZK_CS_CHECK);
}

static const test_case tests[] = {
    {"failed_cs_keeps_thread_usable", test_failed_cs_keeps_thread_usable},
    {"sha_por", test_sha_por},
    {"compress_count", test_compress_count},
    {"blank_block", test_blank_block},
    {"full_hash_count", test_full_hash_count},
    {"random_lengths", test_random_lengths},
    {"all_constant", test_all_constant_costs_nothing},
    {"shape_matches_prove", test_shape_matches_prove},
    {"hash_leaf_bits", test_hash_leaf_bits},
    {"hash2", test_hash2},
    {"addmany_flush_order", test_addmany_flush_order},
};

TEST_MAIN(tests)
