/* Filecoin Merkle trees: Poseidon compound trees against a slow recursive
 * reference, inclusion proofs (generate, verify, reject mutations), the
 * binary SHA-256 trunc254 tree against published zero commitments and a
 * direct OpenSSL reference, Fr32 / domain rules. */
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "cuzk/filecoin.h"
#include "cuzk/poseidon.h"
#include "cuzk/status.h"
#include "harness.h"

/* Random canonical leaves (top two bits clear, as Fr32 data). */
static uint8_t *rand_leaves(uint64_t n)
{
    uint8_t *l = malloc((size_t)n * 32);
    CHECK(l != NULL);
    test_rand_bytes(l, (size_t)n * 32);
    for (uint64_t i = 0; i < n; i++) l[32 * i + 31] &= 0x3f;
    return l;
}

static int leaf_from_array(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    memcpy(out, (const uint8_t *)ctx + 32 * first, n * 32);
    return CUZK_OK;
}

/* Reference: hash of the subtree of `width` leaves starting at `first`,
 * with arities listed bottom-up in ar[0..levels) -- recursion from the top. */
static void ref_root(cuzk_fr *out, const uint8_t *leaves, uint64_t first, const uint32_t *ar,
                     int levels)
{
    if (levels == 0) {
        CHECK(cuzk_fr_from_bytes_le(out, leaves + 32 * first) == CUZK_OK);
        return;
    }
    uint64_t child = 1;
    for (int l = 0; l < levels - 1; l++) child *= ar[l];
    cuzk_fr in[16];
    for (uint32_t k = 0; k < ar[levels - 1]; k++)
        ref_root(&in[k], leaves, first + k * child, ar, levels - 1);
    cuzk_fr tag;
    cuzk_poseidon_tag_merkle(&tag, ar[levels - 1]);
    /* plain permutation: independent of the optimized form the tree uses */
    CHECK(cuzk_poseidon_hash_tagged_plain(out, ar[levels - 1], &tag, in, ar[levels - 1]) == CUZK_OK);
}

static void check_shape(uint64_t sector_size, uint32_t base_levels, uint32_t sub, uint32_t top)
{
    cuzk_fil_tree_shape s;
    CHECK(cuzk_fil_tree_shape_for_sector(&s, sector_size) == CUZK_OK);
    CHECK(s.base_levels == base_levels && s.sub_arity == sub && s.top_arity == top);
    CHECK(s.base_arity == 8 && s.leaves == sector_size / 32);
}

static void test_shapes(void)
{
    check_shape(2048, 2, 0, 0);           /* 64 nodes */
    check_shape(8ull << 20, 6, 0, 0);
    check_shape(512ull << 20, 8, 0, 0);
    check_shape(32ull << 30, 9, 8, 0);    /* golden: 9 base levels + 1 sub */
    check_shape(64ull << 30, 9, 8, 2);
    check_shape(4096, 2, 2, 0);
    check_shape(32768, 2, 8, 2);
    cuzk_fil_tree_shape s;
    CHECK(cuzk_fil_tree_shape_for_sector(&s, 1 << 13) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_tree_shape_make(&s, 100, 8, 0, 0) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_tree_shape_make(&s, 64, 8, 0, 2) == CUZK_ERR_ARG); /* top without sub */
}

/* Build, compare the root with the reference, prove and verify leaves,
 * and check that mutations are rejected. */
static void tree_case(uint64_t leaves_n, uint32_t sub, uint32_t top)
{
    cuzk_fil_tree_shape s;
    CHECK(cuzk_fil_tree_shape_make(&s, leaves_n, 8, sub, top) == CUZK_OK);
    uint8_t *leaves = rand_leaves(leaves_n);
    cuzk_fil_tree *t = NULL;
    char err[CUZK_FIL_ERR_LEN];
    CHECK(cuzk_fil_tree_build(&t, &s, leaf_from_array, leaves, NULL, NULL, NULL, err, sizeof err) ==
          CUZK_OK);
    uint32_t ar[16];
    int L = 0;
    for (uint32_t i = 0; i < s.base_levels; i++) ar[L++] = 8;
    if (sub) ar[L++] = sub;
    if (top) ar[L++] = top;
    cuzk_fr ref;
    ref_root(&ref, leaves, 0, ar, L);
    uint8_t refb[32], root[32];
    cuzk_fr_to_bytes_le(refb, &ref);
    cuzk_fil_tree_root(root, t);
    CHECK(memcmp(root, refb, 32) == 0);

    size_t sl = cuzk_fil_tree_proof_storage(t);
    uint64_t *store = malloc(sl);
    CHECK(store != NULL);
    for (int it = 0; it < 8 * test_iterations; it++) {
        uint64_t idx = it == 0 ? 0 : it == 1 ? leaves_n - 1 : test_rand64() % leaves_n;
        cuzk_fil_merkle_proof p;
        CHECK(cuzk_fil_tree_prove(&p, store, sl, t, idx) == CUZK_OK);
        CHECK(cuzk_fil_merkle_proof_matches(&p, &s));
        CHECK(memcmp(p.leaf, leaves + 32 * idx, 32) == 0);
        bool ok = false;
        uint64_t got = 0;
        CHECK(cuzk_fil_merkle_verify_poseidon(&ok, &got, &p, err, sizeof err) == CUZK_OK);
        CHECK(ok && got == idx);
        /* a different leaf value fails */
        p.leaf[0] ^= 1;
        CHECK(cuzk_fil_merkle_verify_poseidon(&ok, &got, &p, err, sizeof err) == CUZK_OK && !ok);
        p.leaf[0] ^= 1;
        /* a flipped sibling hash in any path fails */
        uint32_t k = (uint32_t)(test_rand64() % (p.kind + 1));
        uint8_t *h = (uint8_t *)p.path[k].hashes;
        size_t nh = (size_t)p.path[k].levels * (p.path[k].arity - 1);
        size_t at = (size_t)(test_rand64() % nh);
        h[32 * at] ^= 1;
        CHECK(cuzk_fil_merkle_verify_poseidon(&ok, &got, &p, err, sizeof err) == CUZK_OK && !ok);
        h[32 * at] ^= 1;
        /* a changed index bit proves another leaf (and the root changes) */
        uint64_t *ix = (uint64_t *)p.path[0].index;
        ix[0] = (ix[0] + 1) % 8;
        CHECK(cuzk_fil_merkle_verify_poseidon(&ok, &got, &p, err, sizeof err) == CUZK_OK);
        CHECK(!ok && got != idx);
        ix[0] = 9; /* out of range */
        CHECK(cuzk_fil_merkle_verify_poseidon(&ok, &got, &p, err, sizeof err) == CUZK_ERR_FORMAT);
    }
    free(store);
    cuzk_fil_tree_free(t);
    free(leaves);
}

static void test_tree_base(void) { tree_case(64, 0, 0); tree_case(512, 0, 0); }
static void test_tree_sub(void) { tree_case(128, 2, 0); tree_case(512, 8, 0); }
static void test_tree_top(void) { tree_case(1024, 8, 2); }

static int leaf_bad(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    memset(out, 0, n * 32);
    for (size_t i = 0; i < n; i++)
        if (first + i == 37) memset(out + 32 * i, 0xff, 32); /* >= r */
    return CUZK_OK;
}

static void test_tree_rejects_noncanonical_leaf(void)
{
    cuzk_fil_tree_shape s;
    CHECK(cuzk_fil_tree_shape_make(&s, 64, 8, 0, 0) == CUZK_OK);
    cuzk_fil_tree *t = NULL;
    char err[CUZK_FIL_ERR_LEN] = "";
    CHECK(cuzk_fil_tree_build(&t, &s, leaf_bad, NULL, NULL, NULL, NULL, err, sizeof err) ==
          CUZK_ERR_ENC_NONCANONICAL);
    CHECK(t == NULL && strstr(err, "leaf 37") != NULL);
}

/* ---- SHA-256 -------------------------------------------------------------- */

static void ref_sha_root(uint8_t out[32], const uint8_t *leaves, uint64_t n)
{
    if (n == 1) {
        memcpy(out, leaves, 32);
        return;
    }
    uint8_t buf[64];
    ref_sha_root(buf, leaves, n / 2);
    ref_sha_root(buf + 32, leaves + 32 * (n / 2), n / 2);
    SHA256(buf, 64, out);
    out[31] &= 0x3f;
}

static void test_sha256_tree(void)
{
    /* published zero-piece commitments (go-fil-commp zero comms):
     * 64 bytes and 128 bytes of zeros */
    uint8_t zeros[32 * 4] = {0}, root[32], want[32];
    CHECK(cuzk_fil_sha256_tree_root(root, zeros, 2) == CUZK_OK);
    CHECK(test_hex_decode(want, 32, "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b",
                          64) == 32);
    CHECK(memcmp(root, want, 32) == 0);
    CHECK(cuzk_fil_sha256_tree_root(root, zeros, 4) == CUZK_OK);
    CHECK(test_hex_decode(want, 32, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333",
                          64) == 32);
    CHECK(memcmp(root, want, 32) == 0);
    CHECK(cuzk_fil_fr32_valid(root));

    uint64_t n = 256;
    uint8_t *leaves = rand_leaves(n), ref[32];
    CHECK(cuzk_fil_sha256_tree_root(root, leaves, n) == CUZK_OK);
    ref_sha_root(ref, leaves, n);
    CHECK(memcmp(root, ref, 32) == 0);
    uint64_t store[8 * 5];
    char err[CUZK_FIL_ERR_LEN];
    for (int it = 0; it < 16; it++) {
        uint64_t idx = test_rand64() % n;
        cuzk_fil_merkle_proof p;
        CHECK(cuzk_fil_sha256_tree_prove(&p, store, sizeof store, leaves, n, idx) == CUZK_OK);
        CHECK(p.path[0].levels == 8 && memcmp(p.root, ref, 32) == 0);
        bool ok;
        uint64_t got;
        CHECK(cuzk_fil_merkle_verify_sha256(&ok, &got, &p, err, sizeof err) == CUZK_OK && ok && got == idx);
        ((uint8_t *)p.path[0].hashes)[32 * (it % 8)] ^= 4;
        CHECK(cuzk_fil_merkle_verify_sha256(&ok, &got, &p, err, sizeof err) == CUZK_OK && !ok);
    }
    CHECK(cuzk_fil_sha256_tree_root(root, leaves, 3) == CUZK_ERR_ARG);
    free(leaves);
}

static void test_domain_rules(void)
{
    uint8_t d[32];
    memset(d, 0, 32);
    CHECK(cuzk_fil_domain_valid(d) && cuzk_fil_fr32_valid(d));
    d[31] = 0x40; /* 2^254 < r: a field element, but not Fr32 */
    CHECK(cuzk_fil_domain_valid(d) && !cuzk_fil_fr32_valid(d));
    /* r itself (LE) is not canonical */
    uint8_t r[32];
    CHECK(test_hex_decode(r, 32, "01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73", 64) == 32);
    CHECK(!cuzk_fil_domain_valid(r));
    r[0] = 0; /* r - 1 */
    CHECK(cuzk_fil_domain_valid(r));
    cuzk_fr f;
    char err[CUZK_FIL_ERR_LEN] = "";
    r[0] = 1;
    CHECK(cuzk_fil_domain_to_fr(&f, r, "comm_x", err, sizeof err) == CUZK_ERR_ENC_NONCANONICAL);
    CHECK(strstr(err, "comm_x") != NULL);
}

static const test_case tests[] = {
    {"shapes", test_shapes},
    {"tree_base", test_tree_base},
    {"tree_sub", test_tree_sub},
    {"tree_top", test_tree_top},
    {"tree_noncanonical_leaf", test_tree_rejects_noncanonical_leaf},
    {"sha256_tree", test_sha256_tree},
    {"domain_rules", test_domain_rules},
};
TEST_MAIN(tests)
