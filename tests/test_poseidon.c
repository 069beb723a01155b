/* Native Poseidon (src/fil): known answers from independent sources.
 *  - Grain LFSR round constants for t = 9 from the Poseidon reference sage
 *    script (shared/data/poseidon/neptune_round_constants_t9_rf8_rp57.txt);
 *  - neptune's optimized constants as shipped by supraseal (compressed
 *    round constants, MDS, pre-sparse, sparse matrices; Montgomery limbs);
 *  - neptune's published hash test vectors (poseidon.rs hash_values:
 *    MerkleTree hash of [0, 1, .., arity-1] and ConstantLength(4) hash of
 *    [0, 1, 2, 3]), which need no shared data;
 *  - plain vs optimized permutation on random inputs. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "cuzk/status.h"
#include "fil/poseidon_internal.h"
#include "fr_util.h"
#include "harness.h"

static const size_t k_arities[] = {2, 4, 8, 11, 16, 24, 36};
#define N_AR (sizeof k_arities / sizeof k_arities[0])

static cuzk_fr fr_from_canon(const uint64_t l[4])
{
    cuzk_fr r;
    CHECK(cuzk_fr_from_limbs(&r, l) == CUZK_OK);
    return r;
}

/* neptune poseidon.rs hash_values, Strength::Standard (canonical LE u64s). */
static const uint64_t k_merkle_vec[N_AR][4] = {
    {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
    {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
    {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
    {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
    {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a},
    {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15},
    {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f},
};
/* ConstantLength(4) of [0,1,2,3] for arity 4..36 (arity 2 is a sponge). */
static const uint64_t k_const_vec[N_AR][4] = {
    {0, 0, 0, 0},
    {0x8935b00a07909d45, 0x4984de08542c9977, 0x39443980077d7593, 0x3a21a6ae86754a29},
    {0x370a94532f818897, 0x203e3c7c4a85c1f9, 0xcad8b9f8aeb1578f, 0x5c6de4b69de9d792},
    {0xe9b0cb7d6496f73b, 0x7d2807d793af9582, 0xef841b6bf51a5a39, 0x02550c3a2113c7ca},
    {0x6a1e563d359c1bdd, 0x6b4493d5d40be9d3, 0x275a6eb04a0ecb37, 0x30ec6fa0fec08504},
    {0xc540772c5968a299, 0xe2e556352af20f97, 0x15ed0a6b8faba5aa, 0x327bdee6fa2b22b6},
    {0x7d89cddb70217dcd, 0x02ae71d3d04f0b32, 0xfe52151f29c50f99, 0x626bdae6cad79307},
};

static void test_neptune_vectors(void)
{
    for (size_t a = 0; a < N_AR; a++) {
        size_t arity = k_arities[a];
        cuzk_fr in[CUZK_POSEIDON_MAX_ARITY], out, plain, tag;
        for (size_t i = 0; i < arity; i++) in[i] = fr_u64(i);
        CHECK(cuzk_poseidon_hash(&out, in, arity) == CUZK_OK);
        cuzk_fr want = fr_from_canon(k_merkle_vec[a]);
        CHECK(cuzk_fr_eq(&out, &want));
        cuzk_poseidon_tag_merkle(&tag, arity);
        CHECK(cuzk_poseidon_hash_tagged_plain(&plain, arity, &tag, in, arity) == CUZK_OK);
        CHECK(cuzk_fr_eq(&plain, &want));
        if (arity < 4) continue;
        CHECK(cuzk_poseidon_hash_constant_length(&out, in, 4, arity) == CUZK_OK);
        want = fr_from_canon(k_const_vec[a]);
        CHECK(cuzk_fr_eq(&out, &want));
        cuzk_poseidon_tag_constant_length(&tag, 4);
        CHECK(cuzk_poseidon_hash_tagged_plain(&plain, arity, &tag, in, 4) == CUZK_OK);
        CHECK(cuzk_fr_eq(&plain, &want));
    }
}

static void test_plain_vs_optimized(void)
{
    for (int it = 0; it < 4 * test_iterations; it++)
        for (size_t a = 0; a < N_AR; a++) {
            size_t arity = k_arities[a];
            cuzk_fr s1[CUZK_POSEIDON_MAX_WIDTH], s2[CUZK_POSEIDON_MAX_WIDTH];
            for (size_t i = 0; i <= arity; i++) s1[i] = s2[i] = fr_rand();
            CHECK(cuzk_poseidon_permute(s1, arity, false) == CUZK_OK);
            CHECK(cuzk_poseidon_permute(s2, arity, true) == CUZK_OK);
            /* The whole state agrees, not only the output element. */
            for (size_t i = 0; i <= arity; i++) CHECK(cuzk_fr_eq(&s1[i], &s2[i]));
            /* and a one-element change changes the output */
            cuzk_fr in[CUZK_POSEIDON_MAX_ARITY], h1, h2;
            for (size_t i = 0; i < arity; i++) in[i] = fr_rand();
            CHECK(cuzk_poseidon_hash(&h1, in, arity) == CUZK_OK);
            cuzk_fr_add(&in[test_rand64() % arity], &in[0], &CUZK_FR_ONE);
            CHECK(cuzk_poseidon_hash(&h2, in, arity) == CUZK_OK);
            CHECK(!cuzk_fr_eq(&h1, &h2));
        }
}

static void test_tags_and_errors(void)
{
    cuzk_fr tag, want, out, in[3] = {CUZK_FR_ONE, CUZK_FR_ONE, CUZK_FR_ONE};
    cuzk_poseidon_tag_merkle(&tag, 8);
    want = fr_u64(0xff);
    CHECK(cuzk_fr_eq(&tag, &want));
    cuzk_poseidon_tag_merkle(&tag, 36);
    want = fr_u64(((uint64_t)1 << 36) - 1);
    CHECK(cuzk_fr_eq(&tag, &want));
    /* 2^255 - 1 >= r: the tag is its residue (it once came out unset) */
    uint8_t ones[32];
    memset(ones, 0xff, sizeof ones);
    ones[31] = 0x7f;
    cuzk_fr_from_bytes_le_reduce(&want, ones, sizeof ones);
    cuzk_poseidon_tag_merkle(&tag, 255);
    CHECK(cuzk_fr_eq(&tag, &want));
    /* ConstantLength(3) = 3 * 2^64; Custom(1) = 2^40 (SnapDeals phi). */
    cuzk_poseidon_tag_constant_length(&tag, 3);
    uint64_t l[4];
    cuzk_fr_to_limbs(l, &tag);
    CHECK(l[0] == 0 && l[1] == 3 && l[2] == 0 && l[3] == 0);
    CHECK(cuzk_poseidon_tag_custom(&tag, 1) == CUZK_OK);
    want = fr_u64((uint64_t)1 << 40);
    CHECK(cuzk_fr_eq(&tag, &want));
    CHECK(cuzk_poseidon_tag_custom(&tag, 256) == CUZK_OK);
    cuzk_fr_to_limbs(l, &tag);
    CHECK(l[0] == (uint64_t)1 << 48 && l[1] == 0 && l[2] == 0 && l[3] == 0);
    CHECK(cuzk_poseidon_tag_custom(&tag, 0) == CUZK_ERR_ARG);
    CHECK(cuzk_poseidon_tag_custom(&tag, 257) == CUZK_ERR_ARG);

    CHECK(cuzk_poseidon_hash(&out, in, 3) == CUZK_ERR_ARG);
    CHECK(cuzk_poseidon_hash(&out, in, 0) == CUZK_ERR_ARG);
    CHECK(cuzk_poseidon_hash_constant_length(&out, in, 3, 2) == CUZK_ERR_ARG);
    CHECK(cuzk_poseidon_hash_tagged(&out, 5, &tag, in, 1) == CUZK_ERR_ARG);
    const cuzk_poseidon_constants *c;
    CHECK(cuzk_poseidon_constants_get(&c, 37) == CUZK_ERR_ARG && c == NULL);
    CHECK(!cuzk_poseidon_arity_supported(3) && cuzk_poseidon_arity_supported(11));
    CHECK(cuzk_poseidon_partial_rounds(24) == 59 && cuzk_poseidon_partial_rounds(7) == 0);
    /* Zero padding: ConstantLength(1) with arity 2 equals the tagged form
     * with an explicit zero. */
    cuzk_fr two[2] = {in[0], CUZK_FR_ZERO}, h1, h2;
    CHECK(cuzk_poseidon_hash_constant_length(&h1, in, 1, 2) == CUZK_OK);
    cuzk_poseidon_tag_constant_length(&tag, 1);
    CHECK(cuzk_poseidon_hash_tagged(&h2, 2, &tag, two, 2) == CUZK_OK);
    CHECK(cuzk_fr_eq(&h1, &h2));
}

/* Parse "0x..." hex numbers (big-endian) from text into canonical Fr. */
static size_t parse_hex_list(cuzk_fr *out, size_t cap, const char *s)
{
    size_t n = 0;
    const char *p = strstr(s, "Round constants");
    if (!p) return 0;
    while ((p = strstr(p, "0x")) && n < cap) {
        p += 2;
        uint64_t l[4] = {0, 0, 0, 0};
        const char *e = p;
        while (isxdigit((unsigned char)*e)) e++;
        size_t len = (size_t)(e - p);
        if (len == 0 || len > 64) return 0;
        for (size_t i = 0; i < len; i++) {
            char ch = p[len - 1 - i];
            uint64_t d = (uint64_t)(isdigit((unsigned char)ch) ? ch - '0' : (tolower(ch) - 'a' + 10));
            l[i / 16] |= d << (4 * (i % 16));
        }
        out[n++] = fr_from_canon(l);
        p = e;
    }
    return n;
}

static void test_grain_t9(void)
{
    const char *sh = test_shared_dir();
    if (!sh) {
        test_skip("shared dir absent: no Grain known-answer file");
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/data/poseidon/neptune_round_constants_t9_rf8_rp57.txt", sh);
    size_t len;
    uint8_t *txt = test_read_file(path, &len);
    if (!txt) {
        test_skip("neptune_round_constants_t9_rf8_rp57.txt not readable");
        return;
    }
    size_t want_n = 9 * (8 + 57);
    cuzk_fr *want = malloc((want_n + 1) * sizeof *want), *got = malloc(want_n * sizeof *got);
    CHECK(want && got);
    size_t n = parse_hex_list(want, want_n + 1, (const char *)txt);
    CHECK(n == want_n);
    cuzk_poseidon_grain_constants(got, 9, 8, 57);
    CHECK(memcmp(want, got, want_n * sizeof *got) == 0);
    const cuzk_poseidon_constants *c;
    CHECK(cuzk_poseidon_constants_get(&c, 8) == CUZK_OK);
    CHECK(memcmp(want, c->round_constants, want_n * sizeof *got) == 0);
    free(want), free(got), free(txt);
}

static void test_supraseal_constants(void)
{
    const char *sh = test_shared_dir();
    if (!sh) {
        test_skip("shared dir absent: no supraseal constants");
        return;
    }
    static const size_t ar[] = {2, 8, 11, 36};
    for (size_t k = 0; k < 4; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/data/poseidon/supraseal_constants_%zu.bin", sh, ar[k]);
        size_t len;
        uint8_t *bin = test_read_file(path, &len);
        CHECK(bin != NULL);
        if (!bin) continue;
        const cuzk_poseidon_constants *c;
        CHECK(cuzk_poseidon_constants_get(&c, ar[k]) == CUZK_OK);
        size_t t = c->t, rp = c->partial_rounds;
        size_t n_crc = t * 8 + rp, n_sp = rp * (2 * t - 1);
        CHECK(len == (n_crc + 2 * t * t + n_sp) * 32);
        if (len != (n_crc + 2 * t * t + n_sp) * 32) {
            free(bin);
            continue;
        }
        /* 4 x u64 little endian Montgomery limbs = our in-memory cuzk_fr
         * (checked through from_limbs so a big-endian host also works). */
        cuzk_fr *v = malloc(len / 32 * sizeof *v);
        CHECK(v != NULL);
        for (size_t i = 0; i < len / 32; i++)
            for (int j = 0; j < 4; j++) {
                uint64_t w = 0;
                for (int b = 7; b >= 0; b--) w = w << 8 | bin[i * 32 + j * 8 + b];
                v[i].l[j] = w;
            }
        CHECK(memcmp(v, c->compressed_round_constants, n_crc * sizeof *v) == 0);
        CHECK(memcmp(v + n_crc, c->mds, t * t * sizeof *v) == 0);
        CHECK(memcmp(v + n_crc + t * t, c->pre_sparse, t * t * sizeof *v) == 0);
        CHECK(memcmp(v + n_crc + 2 * t * t, c->sparse, n_sp * sizeof *v) == 0);
        free(v), free(bin);
    }
}

/* M * M^-1 = I and the Cauchy definition, independently of the generator. */
static void test_mds(void)
{
    for (size_t a = 0; a < N_AR; a++) {
        const cuzk_poseidon_constants *c;
        CHECK(cuzk_poseidon_constants_get(&c, k_arities[a]) == CUZK_OK);
        size_t t = c->t;
        for (size_t i = 0; i < t; i++)
            for (size_t j = 0; j < t; j++) {
                cuzk_fr d = fr_u64(i + j + t), p, acc = CUZK_FR_ZERO;
                cuzk_fr_mul(&p, &d, &c->mds[i * t + j]);
                CHECK(cuzk_fr_is_one(&p));
                for (size_t k = 0; k < t; k++) {
                    cuzk_fr_mul(&p, &c->mds[i * t + k], &c->mds_inv[k * t + j]);
                    cuzk_fr_add(&acc, &acc, &p);
                }
                CHECK(i == j ? cuzk_fr_is_one(&acc) : cuzk_fr_is_zero(&acc));
            }
    }
}

/* First use from several threads at once (pthread_once): every thread
 * sees complete constants.  Runs first so arity 16 is not yet generated
 * (when the whole suite runs). */
static void *hash16(void *arg)
{
    cuzk_fr *out = arg, in[16];
    for (size_t i = 0; i < 16; i++) in[i] = fr_u64(i);
    if (cuzk_poseidon_hash(out, in, 16) != CUZK_OK) *out = CUZK_FR_ZERO;
    return NULL;
}

static void test_concurrent_first_use(void)
{
    pthread_t th[4];
    cuzk_fr out[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&th[i], NULL, hash16, &out[i]) == 0);
    for (int i = 0; i < 4; i++) CHECK(pthread_join(th[i], NULL) == 0);
    cuzk_fr want = fr_from_canon(k_merkle_vec[4]);
    for (int i = 0; i < 4; i++) CHECK(cuzk_fr_eq(&out[i], &want));
}

static const test_case tests[] = {
    {"concurrent_first_use", test_concurrent_first_use},
    {"neptune_vectors", test_neptune_vectors},
    {"plain_vs_optimized", test_plain_vs_optimized},
    {"tags_and_errors", test_tags_and_errors},
    {"grain_t9", test_grain_t9},
    {"supraseal_constants", test_supraseal_constants},
    {"mds", test_mds},
};

TEST_MAIN(tests)
