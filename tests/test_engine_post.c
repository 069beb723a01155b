/* Engine with the built-in PoSt providers: a WindowPoSt 2 KiB request as
 * Curio sends it (bincode vanilla proofs, randomness, partition) proves
 * through the engine, with params found in param_cache under their v28
 * name; the proof is checked again with cuzk_post_verify (public inputs
 * recomputed from the sectors, independent of the engine's own check).
 * Test parameters are made here with cuzk_groth16_setup_test (~10 s). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/pool.h"
#include "cuzk/post.h"
#include "harness.h"
#include "post_util.h"

#define ENGINE_TEST_NAME "post"
#include "engine_util.h"

/* Test params for a PoSt proof type, written as <cache>/v28-...params. */
static cuzk_groth16_params *make_params(const cuzk_fil_post_info *p)
{
    cuzk_post_circuit_ctx blank;
    CHECK(cuzk_post_circuit_blank(&blank, p) == 0);
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, CUZK_CS_MATRICES) == 0);
    CHECK(cuzk_cs_synthesize(cs, cuzk_post_circuit, &blank) == 0);
    cuzk_groth16_r1cs r;
    CHECK(cuzk_groth16_r1cs_from_cs(&r, cs) == 0);
    cuzk_pool *pool = NULL;
    CHECK(cuzk_pool_create(&pool, 2) == 0);
    cuzk_groth16_params *params = NULL;
    char err[256] = "";
    uint8_t seed[16];
    test_rand_bytes(seed, sizeof seed);
    CHECK(cuzk_groth16_setup_test(&params, &r, seed, sizeof seed, cuzk_pool_par(pool), err,
                                  sizeof err) == 0);
    cuzk_pool_destroy(pool);
    cuzk_cs_free(cs);
    char id[200], name[300], path[400];
    CHECK(cuzk_fil_post_param_id(id, sizeof id, p) == 0);
    CHECK(cuzk_fil_param_file_name(name, sizeof name, id, "params") == 0);
    snprintf(path, sizeof path, "%s/%s", cache_dir(), name);
    FILE *f = fopen(path, "wb");
    CHECK(f && params && cuzk_groth16_params_write(f, params) == 0);
    if (f) fclose(f);
    CHECK(cuzk_groth16_mark_test(path, "test_engine_post") == 0);
    return params;
}

static void test_window_2k(void)
{
    const uint64_t reg = 10; /* StackedDrgWindow2KiBV1_2 (Go abi V1_1) */
    const cuzk_fil_post_info *p;
    CHECK(cuzk_fil_post_lookup(&p, reg) == 0);
    cuzk_groth16_params *params = make_params(p);
    if (!params) return;

    cuzk_engine_config c;
    engine_cfg_base(&c);
    /* point validation of the params costs ~13 s on a loaded 2-core box;
     * it is exercised by test_engine with the chain params */
    c.srs_validate = false;
    cuzk_engine *e = start(&c);
    if (!e) return;
    CHECK(cuzk_engine_register_builtin(e) == 0);
    /* discovered on disk: COLD with the file's size; absent circuits are
     * not listed */
    cuzk_engine_status st0;
    CHECK(cuzk_engine_get_status(e, &st0) == 0);
    CHECK(st0.n_srs == 1 && !strcmp(st0.srs[0].circuit_id, "wpost-2k"));
    CHECK(st0.n_srs == 1 && st0.srs[0].tier == CUZK_SRS_COLD && st0.srs[0].size_bytes > 864);
    cuzk_engine_status_clear(&st0);

    pt_sector s[2];
    pt_sector_make(&s[0], 1000 + (test_rand64() & 0xff), 2048);
    pt_sector_make(&s[1], 2000 + (test_rand64() & 0xff), 2048);
    uint8_t rnd[32];
    pt_rand_dom(rnd);
    uint8_t *v[2];
    size_t len[2];
    for (int i = 0; i < 2; i++) v[i] = pt_vanilla(&len[i], &s[i], p, rnd, (uint64_t)i);
    cuzk_engine_request rq = {.request_id = "wdpost-1000-0-0",
                              .kind = CUZK_PROOF_WINDOW_POST,
                              .sector_size = 2048,
                              .registered_proof = reg,
                              .vanilla_proofs = (const uint8_t *const *)v,
                              .vanilla_proofs_len = len,
                              .n_vanilla_proofs = 2,
                              .miner_id = 1000,
                              .randomness = rnd,
                              .randomness_len = 32};
    char id[CUZK_JOB_ID_MAX], err[256];
    CHECK(cuzk_engine_submit(e, id, NULL, NULL, &rq, err, sizeof err) == 0);
    /* the same request with a corrupted vanilla proof fails at submit */
    uint8_t *bad = malloc(len[1]);
    memcpy(bad, v[1], len[1]);
    bad[len[1] - 40] ^= 1; /* inside the last inclusion path */
    const uint8_t *bv[2] = {v[0], bad};
    cuzk_engine_request rb = rq;
    rb.request_id = "wdpost-bad";
    rb.vanilla_proofs = bv;
    char bid[CUZK_JOB_ID_MAX];
    CHECK(cuzk_engine_submit(e, bid, NULL, NULL, &rb, err, sizeof err) == 0);
    /* the wrong kind for the registered proof */
    cuzk_engine_request rw = rq;
    rw.request_id = "winpost-wrong";
    rw.kind = CUZK_PROOF_WINNING_POST;
    char wid[CUZK_JOB_ID_MAX];
    CHECK(cuzk_engine_submit(e, wid, NULL, NULL, &rw, err, sizeof err) == 0);

    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, bid, 0) == 0 && r.status == CUZK_JOB_FAILED);
    printf("  corrupted vanilla: %s\n", r.error);
    CHECK(cuzk_engine_await(e, &r, wid, 0) == 0 && r.status == CUZK_JOB_FAILED);
    CHECK(strstr(r.error, "WindowPoSt"));
    CHECK(cuzk_engine_await(e, &r, id, 0) == 0);
    CHECK(r.status == CUZK_JOB_COMPLETED && r.proof_len == CUZK_G16_PROOF_BYTES);
    printf("  window-2k via engine: queue %llu ms, srs %llu ms, synth %llu ms, prove %llu ms, "
           "verify %llu ms, total %llu ms\n",
           (unsigned long long)r.t.queue_wait_ms, (unsigned long long)r.t.srs_load_ms,
           (unsigned long long)r.t.synthesis_ms, (unsigned long long)r.t.prove_ms,
           (unsigned long long)r.t.verify_ms, (unsigned long long)r.t.total_ms);
    if (r.proof) {
        cuzk_post_sector ps[2];
        for (int i = 0; i < 2; i++) {
            ps[i].sector_id = s[i].sector_id;
            memcpy(ps[i].comm_r, s[i].comm_r, 32);
        }
        bool ok = false;
        CHECK(cuzk_post_verify(&ok, cuzk_groth16_params_vk(params), reg, r.proof, rnd, ps, 2, 0,
                               err, sizeof err) == 0);
        CHECK(ok);
        rnd[0] ^= 1; /* other randomness: other challenges */
        CHECK(cuzk_post_verify(&ok, cuzk_groth16_params_vk(params), reg, r.proof, rnd, ps, 2, 0,
                               err, sizeof err) == 0);
        CHECK(!ok);
    }
    cuzk_engine_srs_info *si = NULL;
    cuzk_engine_status st;
    CHECK(cuzk_engine_get_status(e, &st) == 0);
    for (size_t i = 0; i < st.n_srs; i++)
        if (!strcmp(st.srs[i].circuit_id, "wpost-2k")) si = &st.srs[i];
    CHECK(si && si->tier == CUZK_SRS_HOT);
    cuzk_engine_status_clear(&st);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
    free(bad);
    for (int i = 0; i < 2; i++) {
        free(v[i]);
        cuzk_fil_tree_free(s[i].tree);
    }
    cuzk_groth16_params_free(params);
}

static const test_case tests[] = {
    {"window_2k", test_window_2k},
};
TEST_MAIN(tests)
