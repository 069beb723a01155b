/* Engine limits and review findings (issue 14 item 7): the TEST kind only
 * when configured and its params apart from real ones; bounded request
 * memory and queue; inputs freed when a job ends; cancellation inside a
 * PoSt synthesis; preemption that cannot starve a NORMAL batch; the
 * prover's current job in the status.  Each test failed before its fix.
 * Issue 23: request memory reserved outside jobs (the server's messages)
 * with the last sixteenth kept for small requests, a refused request not
 * hashed, and submit-time parsing in scheduler.verify_threads slots where
 * HIGH and CRITICAL go first. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "harness.h"

#define ENGINE_TEST_NAME "limits"
#include "engine_util.h"

static int submit_test(cuzk_engine *e, char *id, cuzk_priority prio, const char *settings, char *err,
                       size_t err_len)
{
    cuzk_engine_request r = {.kind = CUZK_PROOF_TEST, .priority = prio};
    r.vanilla_proof = (const uint8_t *)settings;
    r.vanilla_proof_len = strlen(settings);
    return cuzk_engine_submit(e, id, NULL, NULL, &r, err, err_len);
}

static bool exists(const char *dir, const char *file)
{
    char p[512];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return stat(p, &sb) == 0;
}

/* Off by default: submit refuses the kind precisely and preload of a chain
 * id writes nothing; on: params go to cuzk-test/, never beside real ones. */
static void test_test_kind(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.test_provider = false;
    cuzk_engine *e = start(&c);
    char id[CUZK_JOB_ID_MAX], err[512] = "";
    CHECK(submit_test(e, id, CUZK_PRIO_DEFAULT, "n=20", err, sizeof err) == CUZK_ERR_UNSUPPORTED);
    CHECK(strstr(err, "test_provider") != NULL);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-20", err, sizeof err) == CUZK_ENGINE_ERR_NOT_FOUND);
    CHECK(!exists(cache_dir(), "chain-20.params") && !exists(cache_dir(), "cuzk-test/chain-20.params"));
    cuzk_engine_destroy(e);

    c.test_provider = true;
    e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-20", err, sizeof err) == CUZK_OK);
    CHECK(exists(cache_dir(), "cuzk-test/chain-20.params") && !exists(cache_dir(), "chain-20.params"));
    cuzk_engine_destroy(e);
}

static void status_of(cuzk_engine *e, cuzk_engine_status *s)
{
    CHECK(cuzk_engine_get_status(e, s) == CUZK_OK);
}

/* scheduler.max_queued_jobs: the job past it is refused with the figures;
 * room again once jobs end. */
static void test_queue_cap(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.max_live_jobs = 3;
    cuzk_engine *e = start(&c);
    char id[4][CUZK_JOB_ID_MAX], err[512] = "";
    for (int i = 0; i < 3; i++)
        CHECK(submit_test(e, id[i], 0, "n=16 sleep_ms=300", err, sizeof err) == CUZK_OK);
    CHECK(submit_test(e, id[3], 0, "n=16", err, sizeof err) == CUZK_ENGINE_ERR_EXHAUSTED);
    CHECK(strstr(err, "max_queued_jobs = 3") != NULL);
    cuzk_engine_result r = {0};
    for (int i = 0; i < 3; i++)
        CHECK(cuzk_engine_await(e, &r, id[i], 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(submit_test(e, id[3], 0, "n=16", err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, id[3], 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* memory.request_budget counts live jobs' decoded inputs from before the
 * parse until the job ends (not until its result is reaped). */
static void test_request_budget(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.request_budget = 1u << 20;
    c.result_retention_ms = 600000; /* results stay: only the inputs go */
    cuzk_engine *e = start(&c);
    static uint8_t blob[300000];
    memset(blob, 'x', sizeof blob);
    const uint8_t *bufs[1] = {blob};
    size_t lens[1] = {sizeof blob};
    cuzk_engine_request r = {.kind = CUZK_PROOF_TEST,
                             .vanilla_proof = (const uint8_t *)"n=16 sleep_ms=300",
                             .vanilla_proof_len = 17,
                             .vanilla_proofs = bufs,
                             .vanilla_proofs_len = lens,
                             .n_vanilla_proofs = 1};
    char id[3][CUZK_JOB_ID_MAX], err[512] = "";
    CHECK(cuzk_engine_submit(e, id[0], NULL, NULL, &r, err, sizeof err) == CUZK_OK);
    cuzk_engine_status s;
    status_of(e, &s);
    CHECK(s.request_memory_used >= 2 * sizeof blob && s.request_memory_limit == 1u << 20);
    cuzk_engine_status_clear(&s);
    /* the second one would pass 1 MiB: refused before decoding */
    r.vanilla_proof = (const uint8_t *)"n=16 x0=5";
    r.vanilla_proof_len = 9;
    CHECK(cuzk_engine_submit(e, id[1], NULL, NULL, &r, err, sizeof err) == CUZK_ENGINE_ERR_EXHAUSTED);
    CHECK(strstr(err, "memory.request_budget is 1 MiB") != NULL);
    cuzk_engine_result res = {0};
    CHECK(cuzk_engine_await(e, &res, id[0], 0) == CUZK_OK && res.status == CUZK_JOB_COMPLETED);
    status_of(e, &s);
    CHECK(s.request_memory_used == 0); /* freed at the end, result retained */
    cuzk_engine_status_clear(&s);
    CHECK(cuzk_engine_submit(e, id[1], NULL, NULL, &r, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_await(e, &res, id[1], 0) == CUZK_OK && res.status == CUZK_JOB_COMPLETED);
    /* a request of a million empty vanilla proofs: refused by count, before
     * any of them is decoded, with the kind's limit named */
    CHECK(cuzk_engine_register_builtin(e) == CUZK_OK);
    size_t n = 1000000;
    const uint8_t **many = calloc(n, sizeof *many);
    size_t *mlen = calloc(n, sizeof *mlen);
    uint8_t rnd[32] = {0};
    CHECK(many && mlen);
    for (size_t i = 0; many && i < n; i++)
        many[i] = blob;
    cuzk_engine_request w = {.kind = CUZK_PROOF_WINDOW_POST,
                             .registered_proof = 10,
                             .randomness = rnd,
                             .randomness_len = 32,
                             .vanilla_proofs = many,
                             .vanilla_proofs_len = mlen,
                             .n_vanilla_proofs = 3}; /* 2 KiB WindowPoSt: 2 sectors a partition */
    CHECK(cuzk_engine_submit(e, id[2], NULL, NULL, &w, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_await(e, &res, id[2], 0) == CUZK_OK && res.status == CUZK_JOB_FAILED);
    CHECK(strstr(res.error, "3 vanilla proofs") && strstr(res.error, "at most 2"));
    w.n_vanilla_proofs = n; /* 2 x (1M x 128 B) of estimate: past the 1 MiB budget */
    CHECK(cuzk_engine_submit(e, id[2], NULL, NULL, &w, err, sizeof err) == CUZK_ENGINE_ERR_EXHAUSTED);
    free(many);
    free(mlen);
    cuzk_engine_result_clear(&res);
    cuzk_engine_destroy(e);
}

/* ---- cancellation inside a PoSt synthesis ----------------------------------- */

/* The real WindowPoSt provider's parse and synthesize (a 32 GiB partition
 * from the golden sector: 2349 circuit sectors, 125 M constraints), with
 * the chain-16 params standing in for the 32 GiB ones and a small budget
 * figure: the job is cancelled long before synthesis could end. */
static cuzk_engine_provider g_post;

static int big_parse(void *ctx, void **state, char circuit_id[64], size_t *partitions,
                     uint64_t *partition_bytes, const cuzk_engine_request *req, char *err, size_t err_len)
{
    int st = g_post.parse(g_post.ctx, state, circuit_id, partitions, partition_bytes, req, err, err_len);
    snprintf(circuit_id, 64, "chain-16");
    *partition_bytes = 64u << 20;
    return st;
}

static void test_post_cancel(void)
{
    const char *sh = test_shared_dir();
    char path[1024];
    snprintf(path, sizeof path, "%s/data/filecoin/window-post-32g-golden.vproof", sh ? sh : "");
    size_t len = 0;
    uint8_t *buf = sh ? test_read_file(path, &len) : NULL;
    if (!buf) {
        test_skip("../shared/data/filecoin/window-post-32g-golden.vproof not found");
        return;
    }
    cuzk_engine_config c;
    engine_cfg_base(&c);
    cuzk_engine *e = start(&c);
    CHECK(cuzk_engine_register_builtin(e) == CUZK_OK);
    CHECK(cuzk_engine_provider_get(e, CUZK_PROOF_WINDOW_POST, &g_post) == CUZK_OK);
    cuzk_engine_provider p = g_post;
    p.parse = big_parse;
    CHECK(cuzk_engine_register(e, CUZK_PROOF_SNAP, &p) == CUZK_OK); /* a free wire kind */
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-16", NULL, 0) == CUZK_OK);
    uint8_t rnd[32] = {0};
    const uint8_t *v[1] = {buf};
    cuzk_engine_request r = {.kind = CUZK_PROOF_SNAP,
                             .registered_proof = 8,
                             .randomness = rnd,
                             .randomness_len = 32,
                             .miner_id = 1000,
                             .vanilla_proofs = v,
                             .vanilla_proofs_len = &len,
                             .n_vanilla_proofs = 1};
    char id[CUZK_JOB_ID_MAX], err[512] = "";
    CHECK(cuzk_engine_submit(e, id, NULL, NULL, &r, err, sizeof err) == CUZK_OK);
    cuzk_engine_status s;
    bool synth = false;
    for (int i = 0; i < 3000 && !synth; i++) {
        status_of(e, &s);
        for (size_t w = 0; w < s.n_workers; w++)
            synth |= !strcmp(s.workers[w].state, "synthesizing") && !strcmp(s.workers[w].job_id, id);
        cuzk_engine_status_clear(&s);
        if (!synth) sleep_ms(2);
    }
    CHECK(synth);
    sleep_ms(300); /* well into the 2349 sectors */
    bool was = false;
    CHECK(cuzk_engine_cancel(e, &was, id) == CUZK_OK && was);
    uint64_t t0 = mono_ms();
    bool busy = true;
    while (busy && mono_ms() - t0 < 10000) {
        status_of(e, &s);
        busy = s.memory_used > s.srs_bytes[CUZK_SRS_HOT]; /* the partition's reservation */
        cuzk_engine_status_clear(&s);
        if (busy) sleep_ms(5);
    }
    uint64_t dt = mono_ms() - t0;
    printf("  cancelled 32 GiB WindowPoSt synthesis released its worker in %llu ms\n",
           (unsigned long long)dt);
    CHECK(!busy && dt < 3000);
    cuzk_engine_result res = {0};
    CHECK(cuzk_engine_await(e, &res, id, 0) == CUZK_OK && res.status == CUZK_JOB_CANCELLED);
    cuzk_engine_result_clear(&res);
    cuzk_engine_destroy(e);
    free(buf);
}

/* ---- preemption bound ------------------------------------------------------- */

typedef struct {
    cuzk_engine *e;
    atomic_bool stop;
    int sent;
} stream;

static void *critical_stream(void *arg)
{
    stream *s = arg;
    while (!atomic_load(&s->stop)) {
        char id[CUZK_JOB_ID_MAX], settings[64], err[256];
        snprintf(settings, sizeof settings, "n=16 x0=%d", s->sent + 100);
        if (submit_test(s->e, id, CUZK_PRIO_CRITICAL, settings, err, sizeof err) == CUZK_OK) {
            s->sent++;
            /* one CRITICAL at a time: a fixed rate outran the prover on a
             * loaded machine under TSan, and the growing CRITICAL backlog
             * (rightly ahead of NORMAL) kept the NORMAL job waiting past
             * the test's minute after its preemptions had ended */
            cuzk_engine_result r = {0};
            if (cuzk_engine_await(s->e, &r, id, 60000) != CUZK_OK)
                fprintf(stderr, "  CRITICAL %s: no result within 60 s\n", id);
            cuzk_engine_result_clear(&r);
        }
        sleep_ms(60);
    }
    return NULL;
}

/* Wait (up to ~20 s) until the worker named "prover" proves job id. */
static bool wait_on_prover(cuzk_engine *e, const char *id)
{
    bool seen = false;
    for (int i = 0; i < 20000 && !seen; i++) {
        cuzk_engine_status s;
        status_of(e, &s);
        for (size_t w = 0; w < s.n_workers; w++)
            seen |= !strcmp(s.workers[w].name, "prover") && !strcmp(s.workers[w].job_id, id) &&
                    s.workers[w].kind == CUZK_PROOF_TEST;
        cuzk_engine_status_clear(&s);
        if (!seen) sleep_ms(1);
    }
    return seen;
}

/* A CRITICAL job every 60 ms would preempt a NORMAL proof forever; after
 * scheduler.max_preemptions (2) it is proved to the end.  The stream starts
 * once the NORMAL job is on the prover, so a preemption must happen: a
 * run with none (preemption broken) fails instead of passing vacuously. */
static void test_preempt_bound(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.max_batch_size = 1;
    c.max_preemptions = 2;
    c.result_retention_ms = 1000;
    cuzk_engine *e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-16", NULL, 0) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-4096", NULL, 0) == CUZK_OK);
    char id[CUZK_JOB_ID_MAX], err[256];
    CHECK(submit_test(e, id, CUZK_PRIO_NORMAL, "n=4096", err, sizeof err) == CUZK_OK);
    CHECK(wait_on_prover(e, id));
    stream s = {.e = e};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, critical_stream, &s) == 0);
    cuzk_engine_result r = {0};
    int rc = cuzk_engine_await(e, &r, id, 60000); /* the stream runs the whole time */
    atomic_store(&s.stop, true);
    pthread_join(th, NULL);
    CHECK(rc == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    cuzk_engine_status st;
    status_of(e, &st);
    printf("  NORMAL proof done in %llu ms beside %d CRITICAL jobs; %llu preemption(s)\n",
           (unsigned long long)r.t.total_ms, s.sent, (unsigned long long)st.preemptions);
    CHECK(st.preemptions >= 1 && st.preemptions <= 2);
    cuzk_engine_status_clear(&st);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* The prover is the worker named "prover" (GetStatus looks for it) and
 * names the job it proves. */
static void test_prover_current_job(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    cuzk_engine *e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-4096", NULL, 0) == CUZK_OK);
    char id[CUZK_JOB_ID_MAX], err[256];
    CHECK(submit_test(e, id, CUZK_PRIO_NORMAL, "n=4096", err, sizeof err) == CUZK_OK);
    CHECK(wait_on_prover(e, id));
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* The server's reservations share the pool with jobs; a large one may not
 * take its last sixteenth, which small requests (WinningPoSt) still get. */
static void test_request_reserve(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.request_budget = 16u << 20;
    cuzk_engine *e = start(&c);
    char err[512] = "", id[CUZK_JOB_ID_MAX];
    CHECK(cuzk_engine_request_reserve(e, 14u << 20, "a big message", err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_request_reserve(e, 2u << 20, "another big one", err, sizeof err) ==
          CUZK_ENGINE_ERR_EXHAUSTED);
    CHECK(strstr(err, "another big one needs 2 MiB") && strstr(err, "memory.request_budget is 16 MiB") &&
          strstr(err, "15 MiB for a request over a sixteenth"));
    CHECK(cuzk_engine_request_reserve(e, 512u << 10, "a small one", err, sizeof err) == CUZK_OK);
    /* a small job still parses and proves in the headroom */
    CHECK(submit_test(e, id, CUZK_PRIO_CRITICAL, "n=16", err, sizeof err) == CUZK_OK);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    cuzk_engine_result_clear(&r);
    cuzk_engine_request_release(e, 512u << 10);
    cuzk_engine_request_release(e, 14u << 20);
    cuzk_engine_status s;
    status_of(e, &s);
    CHECK(s.request_memory_used == 0);
    cuzk_engine_status_clear(&s);
    cuzk_engine_destroy(e);
}

/* A parse that takes 300 ms for "slow" requests, recording start order. */
static cuzk_engine_provider g_inner;
static atomic_int g_order, g_started[8];
static int slow_parse(void *ctx, void **state, char circuit_id[64], size_t *partitions,
                      uint64_t *partition_bytes, const cuzk_engine_request *req, char *err, size_t err_len)
{
    const char *tag = memchr(req->vanilla_proof, '#', req->vanilla_proof_len);
    if (tag) atomic_store(&g_started[tag[1] - '0'], atomic_fetch_add(&g_order, 1) + 1);
    if (tag && tag[2] == 's') sleep_ms(300);
    cuzk_engine_request r = *req;
    r.vanilla_proof_len = tag ? (size_t)(tag - (const char *)req->vanilla_proof) : req->vanilla_proof_len;
    return g_inner.parse(g_inner.ctx, state, circuit_id, partitions, partition_bytes, &r, err, err_len);
}

typedef struct {
    cuzk_engine *e;
    cuzk_priority prio;
    char text[32];
    uint64_t ms;
} submitter;

static void *submit_thread(void *arg)
{
    submitter *t = arg;
    char id[CUZK_JOB_ID_MAX], err[256];
    uint64_t t0 = mono_ms();
    CHECK(submit_test(t->e, id, t->prio, t->text, err, sizeof err) == CUZK_OK);
    t->ms = mono_ms() - t0;
    return NULL;
}

/* verify_threads = 1: one NORMAL parses (300 ms), two more wait; a HIGH
 * (one slot beyond the limit) then starts before them, and a CRITICAL
 * (never waits for a slot) does not wait at all. */
static void test_verify_gate(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.verify_threads = 1;
    cuzk_engine *e = start(&c);
    CHECK(cuzk_engine_provider_get(e, CUZK_PROOF_TEST, &g_inner) == CUZK_OK);
    cuzk_engine_provider p = g_inner;
    p.parse = slow_parse;
    CHECK(cuzk_engine_register(e, CUZK_PROOF_TEST, &p) == CUZK_OK);
    static const struct {
        cuzk_priority prio;
        const char *text;
    } plan[5] = {{CUZK_PRIO_NORMAL, "n=16#0s"},
                 {CUZK_PRIO_NORMAL, "n=16#1s"},
                 {CUZK_PRIO_NORMAL, "n=16#2s"},
                 {CUZK_PRIO_HIGH, "n=16#3s"},
                 {CUZK_PRIO_CRITICAL, "n=16#4"}};
    submitter t[5];
    pthread_t th[5];
    for (int i = 0; i < 5; i++) {
        t[i] = (submitter){.e = e, .prio = plan[i].prio};
        snprintf(t[i].text, sizeof t[i].text, "%s", plan[i].text);
        if (i == 3) sleep_ms(100); /* 0 parses, 1 and 2 wait; then HIGH, CRITICAL */
        REQUIRE(pthread_create(&th[i], NULL, submit_thread, &t[i]) == 0);
        sleep_ms(20);
    }
    for (int i = 0; i < 5; i++)
        pthread_join(th[i], NULL);
    printf("    start order: NORMAL %d %d %d, HIGH %d, CRITICAL %d; CRITICAL submit %llu ms, HIGH %llu ms\n",
           atomic_load(&g_started[0]), atomic_load(&g_started[1]), atomic_load(&g_started[2]),
           atomic_load(&g_started[3]), atomic_load(&g_started[4]), (unsigned long long)t[4].ms,
           (unsigned long long)t[3].ms);
    CHECK(atomic_load(&g_started[0]) == 1);
    CHECK(atomic_load(&g_started[3]) < atomic_load(&g_started[1])); /* HIGH before the waiting NORMALs */
    CHECK(atomic_load(&g_started[3]) < atomic_load(&g_started[2]));
    CHECK(t[4].ms < 200); /* CRITICAL never waited behind a 300 ms parse */
    cuzk_engine_destroy(e);
}

static const test_case tests[] = {
    {"test_kind", test_test_kind},
    {"queue_cap", test_queue_cap},
    {"request_budget", test_request_budget},
    {"post_cancel", test_post_cancel},
    {"preempt_bound", test_preempt_bound},
    {"prover_current_job", test_prover_current_job},
    {"request_reserve", test_request_reserve},
    {"verify_gate", test_verify_gate},
};
TEST_MAIN(tests)
