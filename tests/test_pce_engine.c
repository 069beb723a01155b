/* The engine's use of pre-compiled constraint evaluators (synthesis.pce,
 * src/engine/pce_cache.c), with the chain test provider: a first proof
 * starts a background extraction next to the params; later proofs of the
 * circuit synthesize through the PCE (seen in the log) and still verify,
 * against the engine's self-check and independently; "off" never uses it;
 * a corrupt file is detected (logged), the proof is made directly, and the
 * file is rebuilt.  A file cut to half while the engine holds it open --
 * between two proofs, during a partition's synthesis (the mat-vec reads
 * past the new end: SIGBUS, caught), and while a lean partition waits for
 * the prover (its fill_c faults inside H) -- never fails a job: the proof
 * is made directly, the log names the change, and the file is extracted
 * again and used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/groth16.h"
#include "cuzk/pce.h"
#include "harness.h"

#define ENGINE_TEST_NAME "pce"
#include "engine_util.h"

#define CHAIN_N 3000

/* Submit a chain job (settings beyond n: extra, may be ""). */
static bool submit(cuzk_engine *e, char id[CUZK_JOB_ID_MAX], const char *rid, const char *extra)
{
    cuzk_engine_request r = {.request_id = rid, .kind = CUZK_PROOF_TEST};
    char settings[128], err[256];
    snprintf(settings, sizeof settings, "n=%d %s", CHAIN_N, extra);
    r.vanilla_proof = (const uint8_t *)settings;
    r.vanilla_proof_len = strlen(settings);
    return cuzk_engine_submit(e, id, NULL, NULL, &r, err, sizeof err) == 0;
}

static bool await_proof(cuzk_engine *e, const char *id)
{
    cuzk_engine_result res = {0};
    bool ok = cuzk_engine_await(e, &res, id, 0) == 0 && res.status == CUZK_JOB_COMPLETED &&
              res.proof_len == CUZK_G16_PROOF_BYTES;
    if (!ok) fprintf(stderr, "  job %s: status %d: %s\n", id, (int)res.status, res.error);
    cuzk_engine_result_clear(&res);
    return ok;
}

/* Run one job with stderr captured; returns the captured log (malloc'd). */
static char *prove_logged(cuzk_engine *e, const char *rid, bool *ok)
{
    char id[CUZK_JOB_ID_MAX];
    if (!engine_log_begin()) return NULL;
    *ok = submit(e, id, rid, "") && await_proof(e, id);
    return engine_log_end();
}

/* The extracted file valid on disk and the engine done with it: the file is
 * renamed into place before the extractor marks its slot openable, and a
 * synthesis in between (seen on a loaded machine) runs directly, as it
 * should; the test's next job must come after. */
static bool wait_valid(cuzk_engine *e, const char *path, unsigned ms)
{
    if (!engine_wait_pce(path, CHAIN_N, ms)) return false;
    for (uint64_t t0 = mono_ms(); mono_ms() - t0 < ms; sleep_ms(10)) {
        char *js = NULL;
        if (cuzk_engine_status_json(e, &js, NULL)) return false;
        bool extracting = strstr(js, "\"state\":\"extracting\"") != NULL;
        free(js);
        if (!extracting) return true;
    }
    fprintf(stderr, "  %s: the engine still extracting after %u ms\n", path, ms);
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
    CHECK(wait_valid(e, path, 60000)); /* extracted in the background */
    char *log = prove_logged(e, "second", &ok);
    CHECK(ok && log && strstr(log, "uses the PCE"));
    free(log);
    /* the lean partition's buffers went to the pool and the next one takes them */
    cuzk_engine_status st;
    REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
    uint64_t hits = st.buffer_pool_hits, kept = st.buffer_pool_bytes;
    CHECK(kept > 0 && st.memory_used >= kept);
    cuzk_engine_status_clear(&st);
    free(prove_logged(e, "third", &ok));
    CHECK(ok);
    REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
    CHECK(st.buffer_pool_hits == hits + 1 && st.buffer_pool_bytes == kept);
    cuzk_engine_status_clear(&st);
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
    CHECK(wait_valid(e, path, 60000));
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

static char pce_file[300];

/* Cut the PCE file to half on its inode (what a rewrite in place does), at
 * a page boundary: a read past the cut faults (no zeros to misdecode). */
static void cut_pce(void)
{
    struct stat sb;
    long page = sysconf(_SC_PAGESIZE);
    CHECK(stat(pce_file, &sb) == 0 && truncate(pce_file, sb.st_size / 2 / page * page) == 0);
}

/* Until a worker is in state for job id (engine status), or 60 s. */
static bool wait_worker(cuzk_engine *e, const char *state, const char *id)
{
    for (uint64_t t0 = mono_ms(); mono_ms() - t0 < 60000; sleep_ms(5)) {
        cuzk_engine_status st;
        if (cuzk_engine_get_status(e, &st)) continue;
        bool found = false;
        for (size_t i = 0; i < st.n_workers; i++)
            found |= !strcmp(st.workers[i].state, state) && !strcmp(st.workers[i].job_id, id);
        cuzk_engine_status_clear(&st);
        if (found) return true;
    }
    fprintf(stderr, "  no worker became '%s' for %s\n", state, id);
    return false;
}

static bool has(const char *log, const char *what)
{
    if (log && strstr(log, what)) return true;
    fprintf(stderr, "  the log does not say \"%s\"\n", what);
    return false;
}

/* The file extracted again after a proof, and the slot told so (the
 * extraction thread takes the cache's lock after its rename). */
static void reextracted(cuzk_engine *e)
{
    CHECK(wait_valid(e, pce_file, 60000));
}

/* A job whose partition holds the PCE (it opens it) and sleeps in the
 * provider: the file is cut meanwhile, so its mat-vec reads past the end. */
static char *prove_cut_during(cuzk_engine *e, bool *ok)
{
    char id[CUZK_JOB_ID_MAX];
    if (!engine_log_begin()) return NULL;
    *ok = submit(e, id, "cut-during", "sleep_ms=600") && wait_worker(e, "synthesizing", id);
    sleep_ms(100); /* past cuzk_eng_pce_get, inside the provider's sleep */
    cut_pce();
    *ok = *ok && await_proof(e, id);
    return engine_log_end();
}

/* A is synthesized through the PCE and waits in the prover for B to batch
 * with it (B sleeps in synthesis); the file is cut: B's mat-vec faults (B
 * goes direct), A's fill_c faults in H, the batch is synthesized again,
 * directly, and both jobs complete. */
static char *prove_cut_waiting(cuzk_engine *e, bool *ok)
{
    char ida[CUZK_JOB_ID_MAX], idb[CUZK_JOB_ID_MAX];
    if (!engine_log_begin()) return NULL;
    *ok = submit(e, idb, "slow", "sleep_ms=1000 x0=9") && submit(e, ida, "lean", "x0=7") &&
          wait_worker(e, "batching", ida);
    cut_pce();
    *ok = *ok && await_proof(e, ida) && await_proof(e, idb);
    return engine_log_end();
}

static void test_engine_pce_changed(void)
{
    snprintf(pce_file, sizeof pce_file, "%s/chain-%d.pce", cache_dir(), CHAIN_N);
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.log_level = CUZK_LOG_INFO;
    c.synthesis_threads = 2;
    c.max_batch_size = 2;
    c.max_batch_wait_ms = 60000;
    unlink(pce_file); /* extracted by this engine, opened by its next proof */
    cuzk_engine *e = start(&c);
    REQUIRE(e);
    bool ok = false;
    free(prove_logged(e, "first", &ok));
    CHECK(ok);
    reextracted(e);
    char *log = prove_logged(e, "uses", &ok);
    CHECK(ok && has(log, "uses the PCE"));
    free(log);

    /* between two proofs: seen by the check before use */
    cut_pce();
    log = prove_logged(e, "cut-between", &ok);
    CHECK(ok && has(log, "changed while in use: size") && has(log, "retired") && !strstr(log, "FAILED"));
    free(log);
    reextracted(e);

    /* during synthesis (the job opens the file extracted again first) */
    log = prove_cut_during(e, &ok);
    CHECK(ok && has(log, "uses the PCE") && has(log, "failed (PCE file") &&
          has(log, "changed while in use: size") && !strstr(log, "FAILED"));
    free(log);
    reextracted(e);

    /* while a lean partition waits for the prover */
    log = prove_logged(e, "again", &ok);
    CHECK(ok && has(log, "uses the PCE"));
    free(log);
    log = prove_cut_waiting(e, &ok);
    CHECK(ok && has(log, "requeued for direct synthesis") && has(log, "changed while in use") &&
          !strstr(log, "FAILED"));
    free(log);
    reextracted(e);
    cuzk_engine_destroy(e);
}

/* The buffer pool (src/engine/bufpool.c): idle sets are freed after
 * memory.buffer_pool_idle, and with 0 nothing is kept at all. */
static void test_engine_buffer_pool(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/chain-%d.pce", cache_dir(), CHAIN_N);
    for (int off = 0; off < 2; off++) {
        cuzk_engine_config c;
        engine_cfg_base(&c);
        snprintf(c.synthesis_pce, sizeof c.synthesis_pce, "auto");
        c.buffer_pool_idle_ms = off ? 0 : 3000; /* long enough to see the set kept on a loaded machine */
        cuzk_engine *e = start(&c);
        REQUIRE(e);
        bool ok = false;
        free(prove_logged(e, "pool-1", &ok)); /* extracts the PCE if this test runs alone */
        CHECK(ok && wait_valid(e, path, 60000));
        free(prove_logged(e, "pool-2", &ok));
        CHECK(ok);
        cuzk_engine_status st;
        REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
        uint64_t kept = st.buffer_pool_bytes;
        CHECK(off ? kept == 0 && st.buffer_pool_hits == 0 : kept > 0);
        cuzk_engine_status_clear(&st);
        for (int t = 0; t < 400 && kept; t++) { /* housekeeping frees it after 3 s */
            usleep(50000);
            REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
            kept = st.buffer_pool_bytes;
            cuzk_engine_status_clear(&st);
        }
        CHECK(kept == 0);
        cuzk_engine_destroy(e);
    }
}

/* Under a budget that holds one partition but not one partition plus an idle
 * set, the next partition takes the set instead of the set being dropped to
 * make room for it (the 32 GiB daemon run: budget 18.5 GiB, 16 GiB reserved a
 * partition, a 12.9 GB set). */
static void test_engine_buffer_pool_tight(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/chain-%d.pce", cache_dir(), CHAIN_N);
    cuzk_engine *e = engine("auto");
    REQUIRE(e);
    bool ok = false;
    free(prove_logged(e, "tight-0", &ok));
    CHECK(ok && wait_valid(e, path, 60000));
    free(prove_logged(e, "tight-1", &ok));
    cuzk_engine_status st;
    REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
    uint64_t kept = st.buffer_pool_bytes;
    cuzk_engine_status_clear(&st);
    cuzk_engine_destroy(e);
    REQUIRE(kept > 0 && kept < (2u << 20));
    cuzk_engine_config c;
    engine_cfg_base(&c);
    snprintf(c.synthesis_pce, sizeof c.synthesis_pce, "auto");
    c.memory_total_budget = (1u << 20) + kept / 2; /* a partition reserves 1 MiB (chain-3000) */
    e = start(&c);
    REQUIRE(e);
    static const char *const ids[3] = {"tight-a", "tight-b", "tight-c"}; /* distinct: no retry attach */
    for (int i = 0; i < 3; i++) {
        free(prove_logged(e, ids[i], &ok));
        CHECK(ok);
    }
    REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
    if (st.buffer_pool_hits != 2)
        fprintf(stderr, "  tight: kept %llu, hits %llu misses %llu pool %llu used %llu limit %llu\n",
                (unsigned long long)kept, (unsigned long long)st.buffer_pool_hits,
                (unsigned long long)st.buffer_pool_misses, (unsigned long long)st.buffer_pool_bytes,
                (unsigned long long)st.memory_used, (unsigned long long)st.memory_limit);
    CHECK(st.buffer_pool_hits == 2 && st.buffer_pool_bytes > 0 && st.memory_used <= st.memory_limit);
    cuzk_engine_status_clear(&st);
    cuzk_engine_destroy(e);
}

static const test_case tests[] = {
    {"engine_pce", test_engine_pce},
    {"engine_buffer_pool_tight", test_engine_buffer_pool_tight},
    {"engine_pce_changed", test_engine_pce_changed},
    {"engine_buffer_pool", test_engine_buffer_pool},
};
TEST_MAIN(tests)
