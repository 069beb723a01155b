/* bincode FallbackPoStSectorProof: the real 32 GiB golden proof parses,
 * re-serializes byte for byte and verifies natively (Poseidon paths,
 * comm_r = Poseidon2(comm_c, comm_r_last), challenged leaves derived from
 * the randomness); every truncation and mutation is rejected with a precise
 * error; synthetic proofs for Single / Sub / Top shapes round-trip. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/status.h"
#include "harness.h"

static uint8_t *load_golden(size_t *len)
{
    const char *sh = test_shared_dir();
    if (!sh) return NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/data/filecoin/window-post-32g-golden.vproof", sh);
    return test_read_file(path, len);
}

static const uint8_t zero_rand[32];

static void test_golden_parse_verify(void)
{
    size_t len;
    uint8_t *buf = load_golden(&len);
    if (!buf) {
        test_skip("../shared/data/filecoin/window-post-32g-golden.vproof not found");
        return;
    }
    CHECK(len == 24960);
    cuzk_fil_post_vanilla v;
    char err[CUZK_FIL_ERR_LEN] = "";
    CHECK(cuzk_fil_vanilla_parse(&v, buf, len, NULL, err, sizeof err) == CUZK_OK);
    CHECK(v.sector_id == 1 && v.n_sectors == 1);
    const cuzk_fil_sector_proof *sp = &v.sectors[0];
    CHECK(sp->n_proofs == 10);
    for (size_t i = 0; i < sp->n_proofs; i++) {
        const cuzk_fil_merkle_proof *p = &sp->proofs[i];
        CHECK(p->kind == CUZK_FIL_PROOF_SUB);
        CHECK(p->path[0].levels == 9 && p->path[0].arity == 8);
        CHECK(p->path[1].levels == 1 && p->path[1].arity == 8);
        CHECK(memcmp(p->root, sp->comm_r_last, 32) == 0);
    }
    /* writer reproduces the bytes */
    CHECK(cuzk_fil_vanilla_size(&v) == len);
    uint8_t *out = malloc(len);
    size_t w = 0;
    CHECK(cuzk_fil_vanilla_write(out, len, &w, &v) == CUZK_OK && w == len);
    CHECK(memcmp(out, buf, len) == 0);
    free(out);

    /* comm_r = Poseidon2(comm_c, comm_r_last) */
    uint8_t comm_r[32];
    CHECK(cuzk_fil_comm_r(comm_r, sp->comm_c, sp->comm_r_last, err, sizeof err) == CUZK_OK);
    CHECK(memcmp(comm_r, v.comm_r, 32) == 0);

    /* full verification: StackedDrgWindow32GiBV1 (id 8, as pub.json says),
     * zero randomness, first sector; V1_2 (id 13) gives the same
     * challenges for sector index 0 */
    const cuzk_fil_post_info *p8, *p13;
    CHECK(cuzk_fil_post_lookup(&p8, 8) == CUZK_OK && cuzk_fil_post_lookup(&p13, 13) == CUZK_OK);
    bool ok = false;
    CHECK(cuzk_fil_vanilla_verify(&ok, &v, p8, zero_rand, 0, err, sizeof err) == CUZK_OK);
    if (!ok) printf("golden: %s\n", err);
    CHECK(ok);
    CHECK(cuzk_fil_vanilla_verify(&ok, &v, p13, zero_rand, 0, err, sizeof err) == CUZK_OK && ok);
    /* the challenged leaves are the derivation's (independent real data) */
    uint64_t ch[10];
    CHECK(cuzk_fil_post_challenges(ch, p8, zero_rand, 1, 0) == CUZK_OK);
    for (size_t i = 0; i < 10; i++) {
        bool pok;
        uint64_t leaf;
        CHECK(cuzk_fil_merkle_verify_poseidon(&pok, &leaf, &sp->proofs[i], err, sizeof err) == CUZK_OK);
        CHECK(pok && leaf == ch[i]);
    }
    /* api 1.0 at sector index 1 numbers challenges 10..19: must fail */
    CHECK(cuzk_fil_vanilla_verify(&ok, &v, p8, zero_rand, 1, err, sizeof err) == CUZK_OK && !ok);
    CHECK(strstr(err, "challenge is leaf") != NULL);
    /* ... but api 1.2 does not depend on the index */
    CHECK(cuzk_fil_vanilla_verify(&ok, &v, p13, zero_rand, 1, err, sizeof err) == CUZK_OK && ok);
    /* other randomness, other size: rejected */
    uint8_t r1[32] = {1};
    CHECK(cuzk_fil_vanilla_verify(&ok, &v, p8, r1, 0, err, sizeof err) == CUZK_OK && !ok);
    const cuzk_fil_post_info *p9;
    CHECK(cuzk_fil_post_lookup(&p9, 9) == CUZK_OK);
    CHECK(cuzk_fil_vanilla_verify(&ok, &v, p9, zero_rand, 0, err, sizeof err) == CUZK_OK && !ok);
    CHECK(strstr(err, "shape") != NULL);
    cuzk_fil_vanilla_free(&v);
    free(buf);
}

static void expect_error(const uint8_t *buf, size_t len, const char *needle)
{
    cuzk_fil_post_vanilla v;
    char err[CUZK_FIL_ERR_LEN] = "";
    int st = cuzk_fil_vanilla_parse(&v, buf, len, NULL, err, sizeof err);
    if (st != CUZK_ERR_FORMAT || !strstr(err, needle))
        printf("expected '%s', got %d '%s'\n", needle, st, err);
    CHECK(st == CUZK_ERR_FORMAT && strstr(err, needle) != NULL);
    CHECK(v.mem == NULL && v.sectors == NULL);
}

static void test_golden_truncations(void)
{
    size_t len;
    uint8_t *buf = load_golden(&len);
    if (!buf) {
        test_skip("../shared/data/filecoin/window-post-32g-golden.vproof not found");
        return;
    }
    char err[CUZK_FIL_ERR_LEN];
    for (size_t l = 0; l < len; l++) {
        cuzk_fil_post_vanilla v;
        CHECK(cuzk_fil_vanilla_parse(&v, buf, l, NULL, err, sizeof err) == CUZK_ERR_FORMAT);
        CHECK(strstr(err, "truncated") || strstr(err, "inconsistent"));
    }
    expect_error(buf, len - 1,
                 "truncated at byte 24928 reading vanilla_proof.sectors[0].comm_r_last (need 32 bytes, 31 left)");
    expect_error(buf, 3, "truncated at byte 0 reading sector_id");
    /* inside the last proof's leaf (just before comm_c, comm_r_last) */
    expect_error(buf, len - 65,
                 "truncated at byte 24864 reading vanilla_proof.sectors[0].inclusion_proofs[9].leaf "
                 "(need 32 bytes, 31 left)");
    /* counts that cannot fit in what is left */
    expect_error(buf, 68, "vanilla_proof.sectors.len = 1 at byte 40 is inconsistent with the 20 bytes left");
    expect_error(buf, 800, "inclusion_proofs.len = 10 at byte 48 is inconsistent with the 744 bytes left");
    free(buf);
}

static void test_golden_mutations(void)
{
    size_t len;
    uint8_t *buf = load_golden(&len);
    if (!buf) {
        test_skip("../shared/data/filecoin/window-post-32g-golden.vproof not found");
        return;
    }
    uint8_t *m = malloc(len + 1);
    /* unknown enum tag of the first MerkleProof (byte 56) */
    memcpy(m, buf, len);
    m[56] = 3;
    expect_error(m, len, "inclusion_proofs[0] has unknown MerkleProof tag 3 at byte 56");
    /* SectorProofs length 2: not enough bytes for it */
    memcpy(m, buf, len);
    m[40] = 2;
    expect_error(m, len, "vanilla_proof.sectors[1]");
    m[40] = 0xff;
    m[47] = 0x7f;
    expect_error(m, len, "exceeds the limit");
    /* hashes.len of base level 0 = 6: arity 7 */
    memcpy(m, buf, len);
    m[68] = 6;
    expect_error(m, len, "arity 7 is not supported");
    /* level 1 with 3 hashes: inconsistent with level 0 */
    memcpy(m, buf, len);
    size_t lvl1 = 68 + 8 + 7 * 32 + 8;
    CHECK(m[lvl1] == 7);
    m[lvl1] = 3;
    expect_error(m, len, "base_proof[1].hashes.len = 3 at byte 308 is inconsistent");
    /* index 8 of base level 0 */
    memcpy(m, buf, len);
    m[68 + 8 + 7 * 32] = 8;
    expect_error(m, len, "base_proof[0].index = 8 at byte 300 is >= arity 8");
    /* trailing byte */
    memcpy(m, buf, len);
    m[len] = 0;
    expect_error(m, len + 1, "1 trailing bytes");

    /* random byte flips: never a verified proof */
    const cuzk_fil_post_info *p8;
    CHECK(cuzk_fil_post_lookup(&p8, 8) == CUZK_OK);
    int iters = 40 * test_iterations;
    for (int it = 0; it < iters; it++) {
        memcpy(m, buf, len);
        size_t at = (size_t)(test_rand64() % len);
        m[at] ^= (uint8_t)(1u << (test_rand64() % 8));
        cuzk_fil_post_vanilla v;
        char err[CUZK_FIL_ERR_LEN];
        if (cuzk_fil_vanilla_parse(&v, m, len, NULL, err, sizeof err) != CUZK_OK) continue;
        bool ok = true;
        int st = cuzk_fil_vanilla_verify(&ok, &v, p8, zero_rand, 0, err, sizeof err);
        if (st == CUZK_OK && ok) printf("accepted flip at byte %zu\n", at);
        CHECK(st != CUZK_OK || !ok);
        cuzk_fil_vanilla_free(&v);
    }
    free(m);
    free(buf);
}

/* ---- synthetic proofs for every tree shape ------------------------------- */

static int leaf_from_array(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    memcpy(out, (const uint8_t *)ctx + 32 * first, n * 32);
    return CUZK_OK;
}

static void synth_case(const cuzk_fil_post_info *info, uint64_t sector_index)
{
    cuzk_fil_tree_shape s;
    CHECK(cuzk_fil_tree_shape_for_sector(&s, info->sector_size) == CUZK_OK);
    uint8_t *leaves = malloc((size_t)s.leaves * 32);
    test_rand_bytes(leaves, (size_t)s.leaves * 32);
    for (uint64_t i = 0; i < s.leaves; i++) leaves[32 * i + 31] &= 0x3f;
    cuzk_fil_tree *t;
    char err[CUZK_FIL_ERR_LEN];
    CHECK(cuzk_fil_tree_build(&t, &s, leaf_from_array, leaves, NULL, NULL, NULL, err, sizeof err) == 0);
    uint8_t rnd[32];
    test_rand_bytes(rnd, 32);
    rnd[31] &= 0x3f;
    uint64_t sector_id = test_rand64() >> 20;
    uint64_t *ch = malloc(info->challenge_count * sizeof *ch);
    CHECK(cuzk_fil_post_challenges(ch, info, rnd, sector_id, sector_index) == CUZK_OK);
    size_t sl = cuzk_fil_tree_proof_storage(t);
    uint64_t *store = malloc(sl * info->challenge_count);
    cuzk_fil_merkle_proof *pr = calloc(info->challenge_count, sizeof *pr);
    for (uint32_t n = 0; n < info->challenge_count; n++) {
        CHECK(ch[n] < s.leaves);
        CHECK(cuzk_fil_tree_prove(&pr[n], (uint8_t *)store + sl * n, sl, t, ch[n]) == CUZK_OK);
    }
    cuzk_fil_sector_proof sp = {.n_proofs = info->challenge_count, .proofs = pr};
    test_rand_bytes(sp.comm_c, 32);
    sp.comm_c[31] &= 0x3f;
    cuzk_fil_tree_root(sp.comm_r_last, t);
    cuzk_fil_post_vanilla v = {.sector_id = sector_id, .n_sectors = 1, .sectors = &sp};
    CHECK(cuzk_fil_comm_r(v.comm_r, sp.comm_c, sp.comm_r_last, err, sizeof err) == CUZK_OK);
    bool ok = false;
    CHECK(cuzk_fil_vanilla_verify(&ok, &v, info, rnd, sector_index, err, sizeof err) == CUZK_OK && ok);
    size_t len = cuzk_fil_vanilla_size(&v), w;
    uint8_t *buf = malloc(len);
    CHECK(cuzk_fil_vanilla_write(buf, len, &w, &v) == CUZK_OK && w == len);
    cuzk_fil_post_vanilla back;
    CHECK(cuzk_fil_vanilla_parse(&back, buf, len, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_fil_vanilla_verify(&ok, &back, info, rnd, sector_index, err, sizeof err) == CUZK_OK && ok);
    /* wrong comm_c */
    back.sectors[0].comm_c[0] ^= 1;
    CHECK(cuzk_fil_vanilla_verify(&ok, &back, info, rnd, sector_index, err, sizeof err) == CUZK_OK && !ok);
    CHECK(strstr(err, "comm_r != Poseidon2") != NULL);
    cuzk_fil_vanilla_free(&back);
    free(buf);
    free(pr);
    free(store);
    free(ch);
    cuzk_fil_tree_free(t);
    free(leaves);
}

static void test_synthetic(void)
{
    const cuzk_fil_post_info *win, *wnd0, *wnd2;
    CHECK(cuzk_fil_post_lookup(&win, 0) == CUZK_OK);   /* Winning 2KiB */
    CHECK(cuzk_fil_post_lookup(&wnd0, 5) == CUZK_OK);  /* Window 2KiB V1 */
    CHECK(cuzk_fil_post_lookup(&wnd2, 10) == CUZK_OK); /* Window 2KiB V1_2 */
    synth_case(win, 0);
    synth_case(wnd0, 1);
    synth_case(wnd2, 1);
    /* Sub (16 KiB: 8,8,0) and Top (32 KiB: 8,8,2) shapes with a
     * hand-made PoSt description */
    cuzk_fil_post_info sub = *wnd2, top = *wnd2;
    sub.sector_size = 16384;
    top.sector_size = 32768;
    synth_case(&sub, 0);
    synth_case(&top, 3);
}

static void test_challenge_index(void)
{
    CHECK(cuzk_fil_post_challenge_index(CUZK_FIL_API_V1_0, 3, 10, 4) == 34);
    CHECK(cuzk_fil_post_challenge_index(CUZK_FIL_API_V1_1, 3, 10, 4) == 34);
    CHECK(cuzk_fil_post_challenge_index(CUZK_FIL_API_V1_2, 3, 10, 4) == 4);
    const cuzk_fil_post_info *p;
    CHECK(cuzk_fil_post_lookup(&p, 10) == CUZK_OK);
    uint64_t ch[10];
    uint8_t bad[32];
    memset(bad, 0xff, 32);
    CHECK(cuzk_fil_post_challenges(ch, p, bad, 1, 0) == CUZK_ERR_ENC_NONCANONICAL);
    uint8_t r[32] = {0}, prover[32] = {0};
    for (int i = 0; i < 16; i++) CHECK(cuzk_fil_winning_sector_challenge(r, prover, (uint64_t)i, 7) < 7);
}

static void test_garbage(void)
{
    /* random inputs with a plausible header: must fail cleanly */
    uint8_t buf[512];
    char err[CUZK_FIL_ERR_LEN];
    for (int it = 0; it < 2000 * test_iterations; it++) {
        size_t len = (size_t)(test_rand64() % sizeof buf);
        test_rand_bytes(buf, len);
        if (len > 48 && (it & 1)) {
            memset(buf + 40, 0, 8);
            buf[40] = 1;
        }
        cuzk_fil_post_vanilla v;
        int st = cuzk_fil_vanilla_parse(&v, buf, len, NULL, err, sizeof err);
        CHECK(st == CUZK_ERR_FORMAT || st == CUZK_OK);
        cuzk_fil_vanilla_free(&v);
    }
}

static const test_case tests[] = {
    {"golden_parse_verify", test_golden_parse_verify},
    {"golden_truncations", test_golden_truncations},
    {"golden_mutations", test_golden_mutations},
    {"synthetic", test_synthetic},
    {"challenge_index", test_challenge_index},
    {"garbage", test_garbage},
};
TEST_MAIN(tests)
