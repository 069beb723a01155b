/* The engine's use of pre-compiled constraint evaluators (synthesis.pce,
 * src/engine/pce_cache.c), with the chain test provider: a first proof
 * starts a background extraction next to the params; later proofs of the
 * circuit synthesize through the PCE (seen in the log) and still verify,
 * against the engine's self-check and independently; "off" never uses it;
 * a corrupt file is detected (logged), the proof is made directly, and the
 * file is rebuilt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/groth16.h"
#include "cuzk/pce.h"
#include "harness.h"

#define ENGINE_TEST_NAME "pce"
#include "engine_util.h"

#define CHAIN_N 3000

/* Run one job with stderr captured; returns the captured log (malloc'd). */
static char *prove_logged(cuzk_engine *e, const char *rid, bool *ok)
{
    char log[300];
    snprintf(log, sizeof log, "%s/log.txt", cache_dir());
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(log, "w");
    if (!f || saved < 0) return NULL;
    dup2(fileno(f), 2);
    cuzk_engine_request r = {.request_id = rid, .kind = CUZK_PROOF_TEST};
    char settings[64], id[CUZK_JOB_ID_MAX], err[256];
    snprintf(settings, sizeof settings, "n=%d", CHAIN_N);
    r.vanilla_proof = (const uint8_t *)settings;
    r.vanilla_proof_len = strlen(settings);
    cuzk_engine_result res = {0};
    *ok = cuzk_engine_submit(e, id, NULL, NULL, &r, err, sizeof err) == 0 &&
          cuzk_engine_await(e, &res, id, 0) == 0 && res.status == CUZK_JOB_COMPLETED &&
          res.proof_len == CUZK_G16_PROOF_BYTES;
    cuzk_engine_result_clear(&res);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(f);
    size_t len;
    char *text = (char *)test_read_file(log, &len);
    if (text) fputs(text, stderr);
    return text;
}

static bool wait_valid(const char *path, unsigned ms)
{
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_OTHER};
    snprintf(id.id, sizeof id.id, "chain-%d", CHAIN_N);
    for (uint64_t t0 = mono_ms(); mono_ms() - t0 < ms; sleep_ms(20)) {
        cuzk_pce *p = NULL;
        char err[256];
        if (!cuzk_pce_open(&p, path, &id, err, sizeof err)) {
            cuzk_pce_close(p);
            return true;
        }
    }
    return false;
}

static cuzk_engine *engine(const char *pce)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.log_level = CUZK_LOG_INFO;
    snprintf(c.synthesis_pce, sizeof c.synthesis_pce, "%s", pce);
    return start(&c);
}

static void test_engine_pce(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/chain-%d.pce", cache_dir(), CHAIN_N);
    cuzk_engine *e = engine("auto");
    REQUIRE(e);
    bool ok = false;
    free(prove_logged(e, "first", &ok));
    CHECK(ok);
    CHECK(wait_valid(path, 60000)); /* extracted in the background */
    char *log = prove_logged(e, "second", &ok);
    CHECK(ok && log && strstr(log, "uses the PCE"));
    free(log);
    cuzk_engine_destroy(e);

    e = engine("off");
    REQUIRE(e);
    log = prove_logged(e, "off", &ok);
    CHECK(ok && log && !strstr(log, "PCE"));
    free(log);
    cuzk_engine_destroy(e);

    /* a flipped byte in the records: refused, direct proof, rebuilt */
    size_t len;
    uint8_t *b = test_read_file(path, &len);
    REQUIRE(b && len > 1000);
    b[700] ^= 4;
    FILE *f = fopen(path, "wb");
    REQUIRE(f);
    CHECK(fwrite(b, 1, len, f) == len);
    fclose(f);
    free(b);
    e = engine("");
    REQUIRE(e);
    log = prove_logged(e, "corrupt", &ok);
    CHECK(ok && log && strstr(log, "checksum mismatch") && !strstr(log, "uses the PCE"));
    free(log);
    CHECK(wait_valid(path, 60000));
    log = prove_logged(e, "rebuilt", &ok);
    CHECK(ok && log && strstr(log, "uses the PCE"));
    free(log);
    cuzk_engine_destroy(e);

    cuzk_engine_config c;
    engine_cfg_base(&c);
    snprintf(c.synthesis_pce, sizeof c.synthesis_pce, "maybe");
    cuzk_engine *bad = NULL;
    char err[256] = "";
    CHECK(cuzk_engine_create(&bad, &c, err, sizeof err) == CUZK_ERR_ARG && strstr(err, "synthesis.pce"));
    cuzk_engine_destroy(bad);
}

static const test_case tests[] = {
    {"engine_pce", test_engine_pce},
};
TEST_MAIN(tests)
