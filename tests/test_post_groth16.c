/* FallbackPoSt with Groth16: 2 KiB WindowPoSt round trip (test params ->
 * vanilla -> prove -> verify) with mutations of every verifier input, and
 * a real external proof (polka-storage, StackedDrgWindow2KiBV1_1 with its
 * own params) that must verify, and fail under mutation. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/post.h"
#include "cuzk/status.h"
#include "harness.h"
#include "post_util.h"

/* verify -> 1 valid, 0 invalid, -1 error status */
static int vfy(const cuzk_groth16_vk *vk, uint64_t id, const uint8_t proof[192], const uint8_t rnd[32],
               const cuzk_post_sector *s, size_t n, uint32_t part)
{
    bool ok = true;
    char err[256] = "";
    int st = cuzk_post_verify(&ok, vk, id, proof, rnd, s, n, part, err, sizeof err);
    if (st) return -1;
    return ok ? 1 : 0;
}

/* Mutations: each must make a valid (proof, inputs) pair fail. */
static void mutations(const cuzk_groth16_vk *vk, uint64_t id, const uint8_t proof[192], const uint8_t rnd[32],
                      const cuzk_post_sector *s, size_t n, uint32_t part)
{
    CHECK(vfy(vk, id, proof, rnd, s, n, part) == 1);
    uint8_t p2[192], r2[32];
    for (int k = 0; k < 3; k++) { /* a byte of A, B, C */
        memcpy(p2, proof, 192);
        p2[k == 0 ? 20 : k == 1 ? 48 + 50 : 144 + 30] ^= 0x01;
        CHECK(vfy(vk, id, p2, rnd, s, n, part) != 1);
    }
    memcpy(r2, rnd, 32);
    r2[0] ^= 1;
    CHECK(vfy(vk, id, proof, r2, s, n, part) == 0);
    cuzk_post_sector m[2];
    memcpy(m, s, n * sizeof *s);
    m[0].comm_r[0] ^= 1;
    CHECK(vfy(vk, id, proof, rnd, m, n, part) == 0);
    memcpy(m, s, n * sizeof *s);
    m[0].sector_id += 1;
    CHECK(vfy(vk, id, proof, rnd, m, n, part) == 0);
}

static void test_window_2k_roundtrip(void)
{
    const uint64_t id = 10; /* StackedDrgWindow2KiBV1_2 */
    const cuzk_fil_post_info *p;
    CHECK(cuzk_fil_post_lookup(&p, id) == 0);
    cuzk_post_circuit_ctx blank;
    CHECK(cuzk_post_circuit_blank(&blank, p) == 0);
    cuzk_cs *cs;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, CUZK_CS_MATRICES) == 0);
    CHECK(cuzk_cs_synthesize(cs, cuzk_post_circuit, &blank) == 0);
    cuzk_groth16_r1cs r;
    CHECK(cuzk_groth16_r1cs_from_cs(&r, cs) == 0);
    cuzk_groth16_params *params = NULL;
    char err[256] = "";
    uint8_t seed[16];
    test_rand_bytes(seed, sizeof seed);
    CHECK(cuzk_groth16_setup_test(&params, &r, seed, sizeof seed, NULL, err, sizeof err) == 0);
    cuzk_cs_free(cs);
    if (!params) return;
    const cuzk_groth16_vk *vk = cuzk_groth16_params_vk(params);
    CHECK(vk->n_ic == 23);

    pt_sector s[2];
    pt_sector_make(&s[0], 1000 + (test_rand64() & 0xff), 2048);
    pt_sector_make(&s[1], 2000 + (test_rand64() & 0xff), 2048);
    uint8_t rnd[32], pid[32];
    pt_rand_dom(rnd);
    cuzk_post_prover_id(pid, 1000);
    for (size_t n = 1; n <= 2; n++) {
        uint8_t *v[2];
        size_t len[2];
        for (size_t i = 0; i < n; i++)
            v[i] = pt_vanilla(&len[i], &s[i], p, rnd, i);
        cuzk_post_job *j = NULL;
        CHECK(cuzk_post_job_new(&j, id, (const uint8_t *const *)v, len, n, rnd, pid, 0, err, sizeof err) ==
              0);
        uint8_t proof[192];
        cuzk_groth16_prove_opts o = {0};
        CHECK(j && cuzk_post_job_prove(proof, j, params, &o, err, sizeof err) == 0);
        cuzk_post_sector ps[2];
        for (size_t i = 0; i < n && i < 2; i++) { /* i < 2: gcc 12 -O1 -fsanitize=address warns otherwise */
            ps[i].sector_id = s[i].sector_id;
            memcpy(ps[i].comm_r, s[i].comm_r, 32);
        }
        mutations(vk, id, proof, rnd, ps, n, 0);
        /* the wrong sector count (padding differs) or another vk size */
        if (n == 2) CHECK(vfy(vk, id, proof, rnd, ps, 1, 0) == 0);
        CHECK(vfy(vk, 3, proof, rnd, ps, 1, 0) == -1); /* Winning 32 GiB needs 133 IC */
        cuzk_post_job_free(j);
        for (size_t i = 0; i < n; i++)
            free(v[i]);
    }
    cuzk_groth16_params_free(params);
    cuzk_fil_tree_free(s[0].tree);
    cuzk_fil_tree_free(s[1].tree);
}

/* Minimal JSON string field reader for the external data file. */
static const char *json_str(const char *json, const char *key, size_t *len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *k = strstr(json, pat);
    if (!k) return NULL;
    const char *q = strchr(k + strlen(pat), '"');
    if (!q) return NULL;
    const char *e = strchr(q + 1, '"');
    if (!e) return NULL;
    *len = (size_t)(e - q - 1);
    return q + 1;
}

static void test_external_polka_window(void)
{
    const char *sh = test_shared_dir();
    char path[1024];
    snprintf(path, sizeof path, "%s/data/external/polka-2kib-window-post.json", sh ? sh : "");
    size_t flen;
    char *json = sh ? (char *)test_read_file(path, &flen) : NULL;
    if (!json) {
        test_skip("../shared/data/external/polka-2kib-window-post.json not found");
        return;
    }
    size_t l;
    const char *h;
    uint8_t vkb[4096], proof[192], rnd[32];
    cuzk_post_sector sec = {0};
    h = json_str(json, "vk_hex", &l);
    long vkn = h ? test_hex_decode(vkb, sizeof vkb, h, l) : -1;
    CHECK(vkn == 1540);
    h = json_str(json, "proof_hex", &l);
    CHECK(h && test_hex_decode(proof, sizeof proof, h, l) == 192);
    h = json_str(json, "randomness_hex", &l);
    CHECK(h && test_hex_decode(rnd, sizeof rnd, h, l) == 32);
    h = json_str(json, "comm_r_hex", &l);
    CHECK(h && test_hex_decode(sec.comm_r, 32, h, l) == 32);
    const char *sn = strstr(json, "\"sector_number\"");
    CHECK(sn != NULL);
    if (sn) sec.sector_id = strtoull(strchr(sn, ':') + 1, NULL, 10);
    CHECK(sec.sector_id == 77);
    cuzk_groth16_vk *vk = NULL;
    char err[256] = "";
    CHECK(cuzk_post_vk_decode_compressed(&vk, vkb, (size_t)vkn, err, sizeof err) == 0);
    if (vk) {
        CHECK(vk->n_ic == 23);
        /* Go abi StackedDrgWindow2KiBV1_1 = proofs-api V1_2 (id 10); with
         * one sector api 1.0 (id 5) derives the same challenges */
        mutations(vk, 10, proof, rnd, &sec, 1, 0);
        CHECK(vfy(vk, 5, proof, rnd, &sec, 1, 0) == 1);
        /* as the whole list with another partition: sector index moves */
        cuzk_post_sector two[3] = {sec, sec, sec};
        two[0].sector_id = 5;
        two[1].sector_id = 6;
        CHECK(vfy(vk, 10, proof, rnd, two, 3, 1) == 1);
        /* the vk decoder rejects a damaged point and a wrong length */
        cuzk_groth16_vk *bad = NULL;
        CHECK(cuzk_post_vk_decode_compressed(&bad, vkb, (size_t)vkn - 1, err, sizeof err) != 0 && !bad);
        vkb[436 + 5 * 48 + 10] ^= 0x40;
        CHECK(cuzk_post_vk_decode_compressed(&bad, vkb, (size_t)vkn, err, sizeof err) != 0 && !bad);
    }
    cuzk_groth16_vk_free(vk);
    free(json);
}

static const test_case tests[] = {
    {"window_2k_roundtrip", test_window_2k_roundtrip},
    {"external_polka_window", test_external_polka_window},
};
TEST_MAIN(tests)
