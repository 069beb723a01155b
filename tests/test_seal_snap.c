/* SnapDeals natively (cuzk/seal_snap.h): shapes against constants.rs,
 * challenges against rust-fil-proofs' hard-coded vectors and a slow
 * separate implementation (plain Poseidon permutation, bits from limbs),
 * phi / rho against the plain permutation, the bincode PartitionProof
 * (round trip, every truncation, tags, counts, non-canonical elements,
 * JSON + base64 and concatenated input forms), and whole updates: a
 * sealed 2 KiB sector, a 32 KiB sector (Top tree R, 2 partitions) and an
 * 8 MiB one (h = 10) whose partitions verify and whose mutations fail with
 * the right sentence. */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "cuzk/poseidon.h"
#include "cuzk/seal.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"
#include "harness.h"

/* ---- shapes ------------------------------------------------------------------ */

/* storage-proofs-update/src/constants.rs @ 87348a7: partition_count,
 * challenge_count, apex_leaf_count, hs, h_default and the arities of
 * validate_tree_r_shape, written out per size. */
static void test_shapes(void)
{
    static const struct {
        uint64_t size;
        bool test;
        uint32_t parts, chal, apex, h0, hdef, sub, top;
    } t[] = {
        {1024, true, 1, 10, 8, 1, 1, 4, 0},
        {2048, false, 1, 10, 8, 1, 1, 0, 0},
        {4096, true, 1, 10, 8, 1, 1, 2, 0},
        {8192, true, 1, 10, 8, 1, 1, 4, 0},
        {16384, true, 2, 10, 128, 1, 1, 8, 0},
        {32768, true, 2, 10, 128, 1, 1, 8, 2},
        {8ull << 20, false, 4, 10, 128, 7, 10, 0, 0},
        {16ull << 20, true, 4, 10, 128, 7, 10, 2, 0},
        {512ull << 20, false, 16, 86, 128, 7, 10, 0, 0},
        {32ull << 30, false, 16, 86, 128, 7, 10, 8, 0},
        {64ull << 30, false, 16, 86, 128, 7, 10, 8, 2},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        cuzk_snap_shape s;
        CHECK(cuzk_snap_shape_for(&s, t[i].size, true) == CUZK_OK);
        CHECK(cuzk_snap_shape_for(&s, t[i].size, false) == (t[i].test ? CUZK_ERR_ARG : CUZK_OK));
        REQUIRE(cuzk_snap_shape_for(&s, t[i].size, true) == CUZK_OK);
        CHECK(s.nodes == t[i].size / 32 && (1ull << s.challenge_bits) == s.nodes);
        CHECK(s.partitions == t[i].parts && (1u << s.partition_bits) == s.partitions);
        CHECK(s.challenges == t[i].chal && s.apex_leaves == t[i].apex &&
              (1u << s.apex_bits) == s.apex_leaves);
        CHECK(s.hs[0] == t[i].h0 && s.hs[3] == t[i].hdef && s.hs[5] == (t[i].h0 == 1 ? 1 : 12));
        CHECK(s.tree_base_arity == 8 && s.tree_sub_arity == t[i].sub && s.tree_top_arity == t[i].top);
        cuzk_fil_tree_shape ts;
        CHECK(cuzk_fil_tree_shape_make(&ts, s.nodes, 8, s.tree_sub_arity, s.tree_top_arity) == CUZK_OK);
        CHECK(ts.base_levels == s.tree_base_levels);
        CHECK(cuzk_snap_h_select(&s, t[i].hdef) == (t[i].h0 == 1 ? 1u : 8u));
    }
    cuzk_snap_shape s;
    CHECK(cuzk_snap_shape_for(&s, 4096, false) == CUZK_ERR_ARG);
    CHECK(cuzk_snap_shape_for(&s, 12345, true) == CUZK_ERR_ARG);
    /* production: k | h_select << partition_bits with h = 10 -> 8 << 4 */
    REQUIRE(cuzk_snap_shape_for(&s, 32ull << 30, false) == CUZK_OK);
    CHECK(cuzk_snap_k_and_h_select(&s, 3, 10) == (3 | 8 << 4));
    const cuzk_snap_info *info;
    CHECK(cuzk_snap_lookup(&info, 3) == CUZK_OK && info->sector_size == (32ull << 30));
    CHECK(cuzk_snap_lookup_circuit(&info, "snap-2k") == CUZK_OK && info->id == 0);
}

/* ---- challenges: rust-fil-proofs known answers -------------------------------- */

/* rand_xorshift 0.3 XorShiftRng and blstrs Scalar::random (4 x next_u64,
 * top bit masked, rejection), to rebuild the comm_r_new of the test. */
typedef struct {
    uint32_t x, y, z, w;
} xorshift;

static uint32_t xs_next32(xorshift *r)
{
    uint32_t t = r->x ^ (r->x << 11);
    r->x = r->y;
    r->y = r->z;
    r->z = r->w;
    r->w = r->w ^ (r->w >> 19) ^ (t ^ (t >> 8));
    return r->w;
}

static uint64_t xs_next64(xorshift *r)
{
    uint64_t lo = xs_next32(r), hi = xs_next32(r);
    return hi << 32 | lo;
}

static void fr_random_blstrs(uint8_t out[32], xorshift *r)
{
    for (;;) {
        uint64_t l[4];
        for (int i = 0; i < 4; i++)
            l[i] = xs_next64(r);
        l[3] &= UINT64_MAX >> 1;
        for (int i = 0; i < 32; i++)
            out[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
        if (cuzk_fil_domain_valid(out)) return;
    }
}

/* storage-proofs-update/src/challenges.rs test_challenges_against_hardcoded
 * (comm_r_new = TreeRDomain::random(XorShiftRng::from_seed(TEST_SEED))). */
static void test_challenges_kat(void)
{
    static const uint8_t seed[16] = {0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
                                     0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5};
    xorshift r;
    uint32_t w[4];
    for (int i = 0; i < 4; i++)
        w[i] = seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 | (uint32_t)seed[4 * i + 2] << 16 |
               (uint32_t)seed[4 * i + 3] << 24;
    r = (xorshift){w[0], w[1], w[2], w[3]};
    uint8_t comm[32];
    fr_random_blstrs(comm, &r);
    static const struct {
        uint64_t size;
        uint32_t k, c[5];
    } v[] = {
        {1024, 0, {21, 7, 3, 31, 0}},
        {2048, 0, {53, 51, 56, 3, 0}},
        {4096, 0, {117, 25, 62, 0, 72}},
        {8192, 0, {245, 140, 15, 128, 28}},
        {16384, 0, {245, 140, 15, 128, 28}},
        {16384, 1, {286, 308, 493, 510, 508}},
        {32768, 0, {245, 454, 3, 400, 193}},
        {32768, 1, {542, 666, 955, 927, 911}},
        {8ull << 20, 0, {36085, 32783, 44060, 10950, 3731}},
        {8ull << 20, 1, {78878, 130797, 112892, 93994, 78379}},
        {16ull << 20, 0, {101621, 16391, 109319, 25944, 41193}},
        {16ull << 20, 1, {209950, 163702, 175679, 224741, 197410}},
        {512ull << 20, 0, {1019125, 116736, 706220, 59698, 799498}},
        {512ull << 20, 1, {2092548, 1213276, 1185483, 1164598, 1095197}},
        {512ull << 20, 14, {15212432, 15665918, 15015423, 15012912, 15495223}},
        {512ull << 20, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
        {32ull << 30, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
        {32ull << 30, 1, {109168525, 127316247, 80331041, 97065716, 72310052}},
        {32ull << 30, 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
        {32ull << 30, 15, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
        {64ull << 30, 0, {1019125, 13992848, 3820715, 18225541, 57316660}},
        {64ull << 30, 1, {243386253, 197875851, 204632136, 171516766, 247789010}},
        {64ull << 30, 14, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
        {64ull << 30, 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        cuzk_snap_shape s;
        CHECK(cuzk_snap_shape_for(&s, v[i].size, true) == CUZK_OK);
        uint32_t c[86];
        char err[256] = "";
        CHECK(cuzk_snap_challenges(c, 86, &s, comm, v[i].k, err, sizeof err) == CUZK_OK);
        for (int j = 0; j < 5; j++)
            CHECK(c[j] == v[i].c[j]);
    }
}

/* ---- challenges, phi, rho: slow reference ------------------------------------- */

/* H(a, b) with the plain permutation and the tag built from its value 2^40. */
static void slow_hash(cuzk_fr *out, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr tag, in[2] = {*a, *b};
    cuzk_fr_from_u64(&tag, 1ull << 40);
    CHECK(cuzk_poseidon_hash_tagged_plain(out, 2, &tag, in, 2) == CUZK_OK);
}

/* challenges.rs from its description: digest bits as a 255-bit integer
 * (limbs), each challenge its own bit range, digests numbered across
 * partitions. */
static uint32_t slow_challenge(const cuzk_snap_shape *s, const uint8_t comm[32], uint32_t k, uint32_t n)
{
    uint32_t rb = s->challenge_bits - s->partition_bits, per = 254 / rb;
    uint32_t dpp = (s->challenges + per - 1) / per;
    cuzk_fr c, idx, d;
    CHECK(cuzk_fr_from_bytes_le(&c, comm) == CUZK_OK);
    cuzk_fr_from_u64(&idx, (uint64_t)k * dpp + n / per);
    slow_hash(&d, &c, &idx);
    uint64_t l[4];
    cuzk_fr_to_limbs(l, &d);
    uint32_t v = 0;
    for (uint32_t b = 0; b < rb; b++) {
        uint32_t at = (n % per) * rb + b;
        v += (uint32_t)((l[at / 64] >> (at % 64)) & 1) << b;
    }
    return v + (k << rb);
}

static void test_challenges_slow(void)
{
    static const uint64_t sizes[] = {1024,       2048,         16384,       32768,
                                     8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (int it = 0; it < 2 * test_iterations; it++) {
        uint8_t comm[32];
        test_rand_bytes(comm, 32);
        comm[31] &= 0x3f;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            cuzk_snap_shape s;
            REQUIRE(cuzk_snap_shape_for(&s, sizes[i], true) == CUZK_OK);
            uint32_t ks[2] = {0, s.partitions - 1}, c[86];
            for (int kk = 0; kk < 2; kk++) {
                CHECK(cuzk_snap_challenges(c, 86, &s, comm, ks[kk], NULL, 0) == CUZK_OK);
                for (uint32_t n = 0; n < s.challenges; n++) {
                    CHECK(c[n] == slow_challenge(&s, comm, ks[kk], n));
                    CHECK(c[n] >> (s.challenge_bits - s.partition_bits) == ks[kk]); /* bucketing */
                }
            }
            CHECK(cuzk_snap_challenges(c, 86, &s, comm, s.partitions, NULL, 0) == CUZK_ERR_ARG);
        }
    }
    cuzk_snap_shape s;
    REQUIRE(cuzk_snap_shape_for(&s, 2048, false) == CUZK_OK);
    uint8_t bad[32];
    memset(bad, 0xff, 32);
    uint32_t c[10];
    char err[256] = "";
    CHECK(cuzk_snap_challenges(c, 10, &s, bad, 0, err, sizeof err) == CUZK_ERR_ENC_NONCANONICAL);
    CHECK(strstr(err, "comm_r_new") != NULL);
}

static void test_phi_rho(void)
{
    for (int it = 0; it < 4 * test_iterations; it++) {
        uint8_t d[32], r[32], phi[32];
        test_rand_bytes(d, 32);
        test_rand_bytes(r, 32);
        d[31] &= 0x3f;
        r[31] &= 0x3f;
        CHECK(cuzk_snap_phi(phi, d, r, NULL, 0) == CUZK_OK);
        cuzk_fr fd, fr, want, rho, hi;
        CHECK(cuzk_fr_from_bytes_le(&fd, d) == CUZK_OK);
        CHECK(cuzk_fr_from_bytes_le(&fr, r) == CUZK_OK);
        slow_hash(&want, &fd, &fr);
        uint8_t wb[32];
        cuzk_fr_to_bytes_le(wb, &want);
        CHECK(memcmp(wb, phi, 32) == 0);
        uint32_t high = (uint32_t)(test_rand64() & 4095);
        CHECK(cuzk_snap_rho(&rho, phi, high, NULL, 0) == CUZK_OK);
        cuzk_fr_from_u64(&hi, high);
        slow_hash(&want, &want, &hi);
        CHECK(cuzk_fr_eq(&rho, &want));
        /* the gen-randomness tag is not the tree tag: H differs from Poseidon2 */
        cuzk_fr in[2] = {fd, fr}, tree;
        CHECK(cuzk_poseidon_hash(&tree, in, 2) == CUZK_OK);
        cuzk_fr_to_bytes_le(wb, &tree);
        CHECK(memcmp(wb, phi, 32) != 0);
    }
}

/* ---- updates ------------------------------------------------------------------ */

static void rand_fr32(uint8_t *out, uint64_t n)
{
    test_rand_bytes(out, 32 * (size_t)n);
    for (uint64_t i = 0; i < n; i++)
        out[32 * i + 31] &= 0x3f;
}

static uint8_t *write_proof(const cuzk_snap_partition_proof *p, size_t *len)
{
    *len = cuzk_snap_partition_size(p);
    uint8_t *b = malloc(*len);
    size_t w = 0;
    CHECK(b && cuzk_snap_partition_write(b, *len, &w, p) == CUZK_OK && w == *len);
    return b;
}

/* prove -> bincode -> parse -> bincode again (same bytes) -> verify. */
static cuzk_snap_partition_proof *prove_parse(const cuzk_snap_update *u, uint32_t k, uint8_t **bytes,
                                              size_t *lenp)
{
    cuzk_snap_partition_proof *p = NULL, *q = NULL;
    size_t len_local, *len = lenp ? lenp : &len_local;
    char err[512] = "";
    CHECK(cuzk_snap_update_prove(&p, u, k, err, sizeof err) == CUZK_OK);
    if (!p) return NULL;
    uint8_t *b = write_proof(p, len);
    CHECK(cuzk_snap_partition_parse(&q, b, *len, &u->shape, err, sizeof err) == CUZK_OK);
    if (!q) {
        printf("  parse: %s\n", err);
        cuzk_snap_partition_free(p);
        free(b);
        return NULL;
    }
    size_t len2;
    uint8_t *b2 = write_proof(q, &len2);
    CHECK(len2 == *len && memcmp(b, b2, len2) == 0);
    free(b2);
    int st = cuzk_snap_partition_verify(q, &u->shape, k, u->h, u->comm_r_old, u->comm_d_new, u->comm_r_new,
                                        err, sizeof err);
    if (st) printf("  verify k=%u: %s\n", k, err);
    CHECK(st == CUZK_OK);
    st = cuzk_snap_partition_verify(p, &u->shape, k, u->h, u->comm_r_old, u->comm_d_new, u->comm_r_new, err,
                                    sizeof err);
    CHECK(st == CUZK_OK);
    cuzk_snap_partition_free(p);
    if (bytes)
        *bytes = b;
    else
        free(b);
    return q;
}

/* Verify must fail with status st and a message containing `want`. */
static void expect_fail(const cuzk_snap_partition_proof *p, const cuzk_snap_update *u, uint32_t k, uint32_t h,
                        const uint8_t *r_old, const uint8_t *d_new, const uint8_t *r_new, int st,
                        const char *want)
{
    char err[512] = "";
    int got = cuzk_snap_partition_verify(p, &u->shape, k, h, r_old ? r_old : u->comm_r_old,
                                         d_new ? d_new : u->comm_d_new, r_new ? r_new : u->comm_r_new, err,
                                         sizeof err);
    if (got != st || !strstr(err, want)) printf("  expected '%s' (%d), got '%s' (%d)\n", want, st, err, got);
    CHECK(got == st && strstr(err, want) != NULL);
}

static void test_update_2k(void)
{
    cuzk_seal_config cfg = {.registered_proof = 5, .sector_id = 7, .miner_id = 1000, .seed = test_seed};
    cuzk_seal_sector *sec = NULL;
    char err[512] = "";
    CHECK(cuzk_seal_sector_seal(&sec, &cfg, NULL, NULL, NULL, err, sizeof err) == CUZK_OK);
    if (!sec) return;
    cuzk_snap_shape s;
    REQUIRE(cuzk_snap_shape_for(&s, 2048, false) == CUZK_OK);
    uint8_t *data = malloc(32 * (size_t)s.nodes);
    rand_fr32(data, s.nodes);
    cuzk_snap_update *u = NULL;
    CHECK(cuzk_snap_update_encode(&u, &s, s.hs[3], sec->comm_c, sec->replica, data, NULL, NULL, NULL, err,
                                  sizeof err) == CUZK_OK);
    if (!u) goto out;
    CHECK(memcmp(u->comm_r_last_old, sec->comm_r_last, 32) == 0);
    CHECK(memcmp(u->comm_r_old, sec->comm_r, 32) == 0);
    /* independent: comm_d_new over the data, every node re-encoded slowly */
    uint8_t root[32];
    CHECK(cuzk_fil_sha256_tree_root(root, data, s.nodes) == CUZK_OK && memcmp(root, u->comm_d_new, 32) == 0);
    for (uint64_t i = 0; i < s.nodes; i++) {
        cuzk_fr o, d, rho, hi, phi, want, got;
        CHECK(cuzk_fr_from_bytes_le(&o, sec->replica + 32 * i) == CUZK_OK);
        CHECK(cuzk_fr_from_bytes_le(&d, data + 32 * i) == CUZK_OK);
        CHECK(cuzk_fr_from_bytes_le(&phi, u->phi) == CUZK_OK);
        cuzk_fr_from_u64(&hi, i >> 5); /* h = 1 of 6 bits */
        slow_hash(&rho, &phi, &hi);
        cuzk_fr_mul(&d, &d, &rho);
        cuzk_fr_add(&want, &o, &d);
        CHECK(cuzk_fr_from_bytes_le(&got, u->replica_new + 32 * i) == CUZK_OK && cuzk_fr_eq(&got, &want));
    }
    uint8_t *bytes = NULL;
    size_t len = 0;
    cuzk_snap_partition_proof *p = prove_parse(u, 0, &bytes, &len);
    if (!p) goto out;
    /* mutations */
    uint8_t bad[32];
    memcpy(bad, u->comm_r_new, 32);
    bad[0] ^= 1;
    expect_fail(p, u, 0, s.hs[3], NULL, NULL, bad, CUZK_ERR_ARG, "comm_r_new mismatch");
    memcpy(bad, u->comm_r_old, 32);
    bad[0] ^= 1;
    expect_fail(p, u, 0, s.hs[3], bad, NULL, NULL, CUZK_ERR_ARG, "comm_r_old mismatch");
    memcpy(bad, u->comm_d_new, 32);
    bad[0] ^= 1;
    expect_fail(p, u, 0, s.hs[3], NULL, bad, NULL, CUZK_ERR_ARG, "apex_leafs: the apex root");
    expect_fail(p, u, 1, s.hs[3], NULL, NULL, NULL, CUZK_ERR_ARG, "partition k = 1");
    expect_fail(p, u, 0, 2, NULL, NULL, NULL, CUZK_ERR_ARG, "h = 2 is not allowed");
    cuzk_snap_challenge_proof *cp = (cuzk_snap_challenge_proof *)p->challenges;
    uint8_t *sib = (uint8_t *)cp[3].r_old.path[0].hashes + 32;
    sib[0] ^= 1;
    expect_fail(p, u, 0, s.hs[3], NULL, NULL, NULL, CUZK_ERR_ARG,
                "challenge_proofs[3].proof_r_old: path does not hash to its root");
    sib[0] ^= 1;
    sib = (uint8_t *)cp[5].d_new.path[0].hashes + 32 * 2;
    sib[0] ^= 1;
    expect_fail(p, u, 0, s.hs[3], NULL, NULL, NULL, CUZK_ERR_ARG,
                "challenge_proofs[5].proof_d_new: path does not hash to its root");
    sib[0] ^= 1;
    uint8_t *apex = (uint8_t *)p->apex_leafs + 32 * 6;
    apex[1] ^= 4;
    expect_fail(p, u, 0, s.hs[3], NULL, NULL, NULL, CUZK_ERR_ARG, "apex_leafs: the apex root");
    apex[1] ^= 4;
    cp[2].r_new.leaf[0] ^= 1; /* the path no longer matches, then the label */
    expect_fail(p, u, 0, s.hs[3], NULL, NULL, NULL, CUZK_ERR_ARG, "challenge_proofs[2].proof_r_new: path");
    cp[2].r_new.leaf[0] ^= 1;
    /* a valid proof of another challenge: one whose node differs from
     * challenge 1's (2 KiB has 64 nodes for 10 challenges: they can repeat) */
    uint32_t ch[16];
    size_t other = 0;
    CHECK(cuzk_snap_challenges(ch, 16, &s, u->comm_r_new, 0, err, sizeof err) == CUZK_OK);
    for (size_t c = 2; c < s.challenges && !other; c++)
        if (ch[c] != ch[1]) other = c;
    CHECK(other != 0);
    cuzk_snap_challenge_proof tmp = cp[1];
    cp[1] = cp[other];
    expect_fail(p, u, 0, s.hs[3], NULL, NULL, NULL, CUZK_ERR_ARG,
                "challenge_proofs[1].proof_r_old: proves leaf");
    cp[1] = tmp;
    char err2[512];
    CHECK(cuzk_snap_partition_verify(p, &s, 0, s.hs[3], u->comm_r_old, u->comm_d_new, u->comm_r_new, err2,
                                     sizeof err2) == CUZK_OK);
    cuzk_snap_partition_free(p);
    free(bytes);
out:
    cuzk_snap_update_free(u);
    free(data);
    cuzk_seal_sector_free(sec);
}

/* An update of random (unsealed) data: any canonical replica is a sector key. */
static cuzk_snap_update *update_random(uint64_t size, uint8_t **old, uint8_t **data)
{
    cuzk_snap_shape s;
    CHECK(cuzk_snap_shape_for(&s, size, true) == CUZK_OK);
    *old = malloc(32 * (size_t)s.nodes);
    *data = malloc(32 * (size_t)s.nodes);
    rand_fr32(*old, s.nodes);
    rand_fr32(*data, s.nodes);
    uint8_t comm_c[32];
    rand_fr32(comm_c, 1);
    cuzk_snap_update *u = NULL;
    char err[512] = "";
    CHECK(cuzk_snap_update_encode(&u, &s, s.hs[3], comm_c, *old, *data, NULL, NULL, NULL, err, sizeof err) ==
          CUZK_OK);
    return u;
}

static void test_update_32k(void)
{
    uint8_t *old, *data;
    cuzk_snap_update *u = update_random(32768, &old, &data);
    if (!u) return;
    cuzk_snap_partition_proof *p[2];
    for (uint32_t k = 0; k < 2; k++)
        p[k] = prove_parse(u, k, NULL, NULL);
    CHECK(p[0] && p[1] && p[0]->challenges[0].r_old.kind == CUZK_FIL_PROOF_TOP);
    if (p[0] && p[1]) {
        expect_fail(p[0], u, 1, 1, NULL, NULL, NULL, CUZK_ERR_ARG, "apex_leafs: the apex root");
        expect_fail(p[1], u, 0, 1, NULL, NULL, NULL, CUZK_ERR_ARG, "(k = 0) does not hash to comm_d_new");
    }
    cuzk_snap_partition_free(p[0]);
    cuzk_snap_partition_free(p[1]);
    cuzk_snap_update_free(u);
    free(old);
    free(data);
}

static void test_update_8m(void)
{
    uint8_t *old, *data;
    cuzk_snap_update *u = update_random(8ull << 20, &old, &data);
    if (!u) return;
    CHECK(u->h == 10);
    cuzk_snap_partition_proof *p = prove_parse(u, 3, NULL, NULL);
    if (p) {
        expect_fail(p, u, 3, 9, NULL, NULL, NULL, CUZK_ERR_ARG, "challenge_proofs[0]: proof_r_new.leaf != ");
        expect_fail(p, u, 3, 13, NULL, NULL, NULL, CUZK_ERR_ARG, "h = 13 is not allowed");
    }
    cuzk_snap_partition_free(p);
    cuzk_snap_update_free(u);
    free(old);
    free(data);
}

/* ---- bincode errors and input forms --------------------------------------------- */

static uint8_t *small_proof(cuzk_snap_update **u, size_t *len, uint8_t **old, uint8_t **data)
{
    *u = update_random(2048, old, data);
    uint8_t *b = NULL;
    if (*u) cuzk_snap_partition_free(prove_parse(*u, 0, &b, len));
    return b;
}

static void parse_expect(const uint8_t *b, size_t len, const cuzk_snap_shape *s, int st, const char *want)
{
    cuzk_snap_partition_proof *p = (cuzk_snap_partition_proof *)1;
    char err[512] = "";
    int got = cuzk_snap_partition_parse(&p, b, len, s, err, sizeof err);
    if (got != st || !strstr(err, want)) printf("  expected '%s' (%d), got '%s' (%d)\n", want, st, err, got);
    CHECK(got == st && strstr(err, want) != NULL && p == NULL);
}

static void test_parse_errors(void)
{
    cuzk_snap_update *u;
    uint8_t *old, *data;
    size_t len;
    uint8_t *b = small_proof(&u, &len, &old, &data);
    if (!b) return;
    const cuzk_snap_shape *s = &u->shape;
    /* 2 KiB: comm_c 32 | 8 | 8 x 32 | 8 -> the first MerkleProof tag at 304 */
    CHECK(len > 304);
    for (size_t n = 0; n < len; n++) { /* every truncation */
        cuzk_snap_partition_proof *p = NULL;
        char err[512] = "";
        int st = cuzk_snap_partition_parse(&p, b, n, s, err, sizeof err);
        CHECK(st == CUZK_ERR_FORMAT && p == NULL && strstr(err, "snap proof") && strstr(err, "byte"));
        st = cuzk_snap_partition_parse(&p, b, n, NULL, err, sizeof err);
        CHECK(st == CUZK_ERR_FORMAT && p == NULL);
    }
    parse_expect(b, 20, s, CUZK_ERR_FORMAT, "truncated at byte 0 reading comm_c");
    parse_expect(b, 200, s, CUZK_ERR_FORMAT,
                 "apex_leafs.len = 8 at byte 32 is inconsistent with the 160 bytes left");
    parse_expect(b, 300, s, CUZK_ERR_FORMAT,
                 "truncated at byte 296 reading challenge_proofs.len (need 8 bytes, 4 left)");
    parse_expect(b, 306, s, CUZK_ERR_FORMAT,
                 "challenge_proofs.len = 10 at byte 296 is inconsistent with the 2 bytes left");
    char want[128];
    snprintf(
        want, sizeof want,
        "truncated at byte %zu reading challenge_proofs[9].proof_r_new.path[1].index (need 8 bytes, 7 left)",
        len - 8);
    parse_expect(b, len - 1, s, CUZK_ERR_FORMAT, want);
    uint8_t *m = malloc(len + 1);
    memcpy(m, b, len);
    m[len] = 0;
    parse_expect(m, len + 1, s, CUZK_ERR_FORMAT, "1 trailing bytes after the proof (ends at byte");
    m[304] = 3;
    parse_expect(m, len, s, CUZK_ERR_FORMAT,
                 "challenge_proofs[0].proof_r_old has unknown MerkleProof tag 3 at byte 304");
    m[304] = 1;
    parse_expect(m, len, s, CUZK_ERR_FORMAT,
                 "challenge_proofs[0].proof_r_old is a Sub MerkleProof (tag 1 at byte 304)");
    m[304] = 0;
    m[32] = 7;
    parse_expect(m, len, s, CUZK_ERR_FORMAT, "apex_leafs.len = 7 at byte 32, expected 8");
    m[32] = 8;
    m[296] = 11;
    parse_expect(m, len, s, CUZK_ERR_FORMAT, "challenge_proofs.len = 11 at byte 296, expected 10");
    snprintf(want, sizeof want, "truncated at byte %zu reading challenge_proofs[10].proof_r_old.tag", len);
    parse_expect(m, len, NULL, CUZK_ERR_FORMAT, want);
    m[296] = 10;
    memset(m, 0xff, 32);
    parse_expect(m, len, s, CUZK_ERR_ENC_NONCANONICAL, "comm_c at byte 0 is not a canonical field element");
    memcpy(m, b, 32);
    m[40 + 32 * 2 + 31] = 0x80;
    parse_expect(m, len, s, CUZK_ERR_ENC_NONCANONICAL, "apex_leafs[2] at byte 104 is not a canonical");
    m[40 + 32 * 2 + 31] = b[40 + 32 * 2 + 31];
    /* proof_r_old Single: tag 304, root 308, leaf 340, path.len 372, level 0 hashes.len 380 (7),
     * hashes 388 .. 612, index 612 */
    m[380] = 6;
    parse_expect(m, len, s, CUZK_ERR_FORMAT,
                 "challenge_proofs[0].proof_r_old.path[0].hashes.len = 6 at byte 380, expected 7");
    m[380] = 7;
    m[612] = 8;
    parse_expect(m, len, s, CUZK_ERR_FORMAT,
                 "challenge_proofs[0].proof_r_old.path[0].index = 8 at byte 612 is >= arity 8");
    m[612] = b[612];
    m[372] = 3;
    parse_expect(m, len, s, CUZK_ERR_FORMAT,
                 "challenge_proofs[0].proof_r_old.path.len = 3 at byte 372, expected 2");
    m[372] = b[372];
    m[388 + 31] = 0xff;
    parse_expect(m, len, s, CUZK_ERR_ENC_NONCANONICAL,
                 "challenge_proofs[0].proof_r_old.path[0].hashes[0] at byte 388");
    m[388 + 31] = b[388 + 31];
    CHECK(memcmp(m, b, len) == 0);
    /* another sector size's shape */
    cuzk_snap_shape s32;
    REQUIRE(cuzk_snap_shape_for(&s32, 32768, true) == CUZK_OK);
    parse_expect(b, len, &s32, CUZK_ERR_FORMAT, "apex_leafs.len = 8 at byte 32, expected 128");
    free(m);
    free(b);
    cuzk_snap_update_free(u);
    free(old);
    free(data);
}

static void test_input_forms(void)
{
    cuzk_snap_update *u;
    uint8_t *old, *data;
    size_t len;
    uint8_t *b = small_proof(&u, &len, &old, &data);
    if (!b) return;
    const cuzk_snap_shape *s = &u->shape;
    /* Go's [][]byte JSON: ["<b64>","<b64>"] with whitespace around */
    size_t b64 = 4 * ((len + 2) / 3);
    char *json = malloc(2 * b64 + 64);
    size_t o = (size_t)sprintf(json, " [\n\"");
    o += (size_t)EVP_EncodeBlock((unsigned char *)json + o, b, (int)len);
    o += (size_t)sprintf(json + o, "\", \"");
    o += (size_t)EVP_EncodeBlock((unsigned char *)json + o, b, (int)len);
    o += (size_t)sprintf(json + o, "\"]\n");
    cuzk_snap_partition_proof **v = NULL;
    size_t n = 0;
    char err[512] = "";
    CHECK(cuzk_snap_vanilla_decode(&v, &n, (uint8_t *)json, o, s, 0, err, sizeof err) == CUZK_OK && n == 2);
    for (size_t i = 0; i < n; i++) {
        size_t l2;
        uint8_t *w = write_proof(v[i], &l2);
        CHECK(l2 == len && memcmp(w, b, len) == 0);
        free(w);
    }
    cuzk_snap_vanilla_free(v, n);
    CHECK(cuzk_snap_vanilla_decode(&v, &n, (uint8_t *)json, o, s, 1, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "more than 1 partition proofs") != NULL);
    /* bad base64 in element 1: a character, then padding */
    char *q = strstr(json + 6, "\", \"") + 4;
    char keep = q[5];
    q[5] = '*';
    CHECK(cuzk_snap_vanilla_decode(&v, &n, (uint8_t *)json, o, s, 0, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "vanilla_proofs[1]: invalid base64 character 0x2a at offset 5") != NULL);
    q[5] = keep;
    CHECK(cuzk_snap_vanilla_decode_json(&v, &n, (uint8_t *)"[\"AAA\"]", 7, s, 0, err, sizeof err) ==
          CUZK_ERR_FORMAT);
    CHECK(strstr(err, "vanilla_proofs[0]: base64 length 3") != NULL);
    CHECK(cuzk_snap_vanilla_decode_json(&v, &n, (uint8_t *)"[\"AB==\"]", 8, s, 0, err, sizeof err) ==
          CUZK_ERR_FORMAT);
    CHECK(strstr(err, "padding at offset 1 leaves non-zero bits") != NULL);
    CHECK(cuzk_snap_vanilla_decode_json(&v, &n, (uint8_t *)"[\"AA==\"]", 8, s, 0, err, sizeof err) ==
          CUZK_ERR_FORMAT);
    CHECK(strstr(err, "vanilla_proofs[0]: snap proof truncated at byte 0 reading comm_c") != NULL);
    CHECK(cuzk_snap_vanilla_decode_json(&v, &n, (uint8_t *)"[1]", 3, s, 0, err, sizeof err) ==
          CUZK_ERR_FORMAT);
    CHECK(strstr(err, "element 0 is a number") != NULL);
    CHECK(cuzk_snap_vanilla_decode_json(&v, &n, (uint8_t *)"[]", 2, s, 0, err, sizeof err) ==
          CUZK_ERR_FORMAT);
    CHECK(strstr(err, "no partition proof") != NULL);
    CHECK(cuzk_snap_vanilla_decode(&v, &n, (uint8_t *)"[\"A", 3, s, 0, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "JSON") != NULL);
    /* raw: one, then three concatenated, then a cut third */
    uint8_t *cat = malloc(3 * len);
    for (int i = 0; i < 3; i++)
        memcpy(cat + i * len, b, len);
    CHECK(cuzk_snap_vanilla_decode(&v, &n, b, len, s, 0, err, sizeof err) == CUZK_OK && n == 1);
    cuzk_snap_vanilla_free(v, n);
    CHECK(cuzk_snap_vanilla_decode(&v, &n, cat, 3 * len, s, 0, err, sizeof err) == CUZK_OK && n == 3);
    cuzk_snap_vanilla_free(v, n);
    CHECK(cuzk_snap_vanilla_decode(&v, &n, cat, 3 * len - 1, s, 0, err, sizeof err) == CUZK_ERR_FORMAT);
    char want[96];
    snprintf(want, sizeof want, "partition proof 2 (from byte %zu of %zu): snap proof truncated", 2 * len,
             3 * len - 1);
    if (!strstr(err, want)) printf("  want '%s', got '%s'\n", want, err);
    CHECK(strstr(err, want) != NULL);
    /* a raw proof whose comm_c starts with '[' is still bincode */
    cat[0] = '[';
    CHECK(cuzk_snap_vanilla_decode(&v, &n, cat, len, s, 0, err, sizeof err) == CUZK_OK && n == 1);
    cuzk_snap_vanilla_free(v, n);
    free(cat);
    free(json);
    free(b);
    cuzk_snap_update_free(u);
    free(old);
    free(data);
}

static const test_case tests[] = {
    {"shapes", test_shapes},
    {"challenges_kat", test_challenges_kat},
    {"challenges_slow", test_challenges_slow},
    {"phi_rho", test_phi_rho},
    {"update_2k", test_update_2k},
    {"update_32k", test_update_32k},
    {"update_8m", test_update_8m},
    {"parse_errors", test_parse_errors},
    {"input_forms", test_input_forms},
};

TEST_MAIN(tests)
