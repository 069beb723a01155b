/* Engine: jobs, priorities, cancellation, timeouts, idempotence, retention,
 * many jobs, shutdown, self-verification.  Drives the engine through the
 * built-in chain test provider; every COMPLETED proof is also checked here
 * with an independent verifier call (vk read from the params file, public
 * input from the slow cuzk_chain_output reference).
 *
 * Scheduling tests are made deterministic with the provider's sleep_ms
 * (synthesis takes at least that long) rather than relying on CPU speed;
 * their margins tolerate a loaded 2-core machine. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "harness.h"

#define ENGINE_TEST_NAME "test"
#include "engine_util.h"

static void cfg_small(cuzk_engine_config *c)
{
    engine_cfg_base(c);
    c->shutdown_grace_ms = 5000;
}

/* Submit a test job; returns its id in id (must hold CUZK_JOB_ID_MAX). */
static int submit(cuzk_engine *e, char *id, const char *rid, cuzk_priority prio,
                  const char *settings)
{
    cuzk_engine_request r = {0};
    r.request_id = rid;
    r.kind = CUZK_PROOF_TEST;
    r.priority = prio;
    r.vanilla_proof = (const uint8_t *)settings;
    r.vanilla_proof_len = strlen(settings);
    char err[256];
    uint32_t pos;
    return cuzk_engine_submit(e, id, &pos, NULL, &r, err, sizeof err);
}

static void test_basic(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    char id[CUZK_JOB_ID_MAX];
    CHECK(submit(e, id, NULL, CUZK_PRIO_DEFAULT, "n=40 partitions=3 x0=11") == CUZK_OK);
    CHECK(strlen(id) == 36 && id[14] == '4'); /* UUID v4 */
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK);
    CHECK(r.status == CUZK_JOB_COMPLETED);
    CHECK(r.proof_len == 3 * CUZK_G16_PROOF_BYTES);
    CHECK(!strcmp(r.job_id, id));
    for (int k = 0; k < 3; k++) CHECK(engine_chain_proof_ok(r.proof + k * CUZK_G16_PROOF_BYTES, 40, 11 + (uint64_t)k));
    /* partition order matters: partition 1's proof is not partition 0's */
    CHECK(!engine_chain_proof_ok(r.proof + CUZK_G16_PROOF_BYTES, 40, 11));
    CHECK(r.t.total_ms >= r.t.queue_wait_ms);
    /* status/metrics documents mention what happened */
    char *txt = NULL;
    size_t len = 0;
    CHECK(cuzk_engine_metrics_text(e, &txt, &len) == CUZK_OK && len == strlen(txt));
    CHECK(strstr(txt, "cuzk_jobs_total{kind=\"test\",status=\"completed\"} 1\n"));
    CHECK(strstr(txt, "cuzk_phase_seconds_count{kind=\"test\",phase=\"total\"} 1\n"));
    free(txt);
    CHECK(cuzk_engine_status_json(e, &txt, &len) == CUZK_OK);
    CHECK(strstr(txt, id) && strstr(txt, "\"status\":\"COMPLETED\"") && strstr(txt, "chain-40"));
    free(txt);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.completed == 1 && s.failed == 0 && s.n_srs == 1 && s.srs[0].tier == CUZK_SRS_HOT);
    CHECK(s.srs[0].ref_count == 0 && s.n_workers >= 3);
    cuzk_engine_status_clear(&s);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

static void test_not_found(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    cuzk_engine_result r = {0};
    bool was;
    CHECK(cuzk_engine_await(e, &r, "no-such-job", 10) == CUZK_ENGINE_ERR_NOT_FOUND);
    CHECK(cuzk_engine_cancel(e, &was, "no-such-job") == CUZK_ENGINE_ERR_NOT_FOUND);
    /* a request_id with a control character is rejected, not enqueued */
    char id[CUZK_JOB_ID_MAX];
    CHECK(submit(e, id, "bad\nid", CUZK_PRIO_DEFAULT, "") == CUZK_ERR_ARG);
    /* a kind nobody registered ends FAILED with the reason */
    cuzk_engine_request q = {.request_id = "porep-1-2", .kind = CUZK_PROOF_POREP};
    char err[256];
    CHECK(cuzk_engine_submit(e, id, NULL, NULL, &q, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, "porep-1-2", 0) == CUZK_OK);
    CHECK(r.status == CUZK_JOB_FAILED && strstr(r.error, "no prover registered"));
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

static void test_failures(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    char a[CUZK_JOB_ID_MAX], b[CUZK_JOB_ID_MAX], d[CUZK_JOB_ID_MAX];
    CHECK(submit(e, a, "bad-inputs", CUZK_PRIO_DEFAULT, "n=24 bad_inputs=1") == CUZK_OK);
    CHECK(submit(e, b, "parse-fail", CUZK_PRIO_DEFAULT, "n=24 fail=1") == CUZK_OK);
    CHECK(submit(e, d, "unknown-key", CUZK_PRIO_DEFAULT, "n=24 colour=red") == CUZK_OK);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, a, 0) == CUZK_OK);
    CHECK(r.status == CUZK_JOB_FAILED && !r.proof && strstr(r.error, "self-verification failed"));
    CHECK(cuzk_engine_await(e, &r, b, 0) == CUZK_OK);
    CHECK(r.status == CUZK_JOB_FAILED && strstr(r.error, "fail=1 requested"));
    CHECK(cuzk_engine_await(e, &r, d, 0) == CUZK_OK);
    CHECK(r.status == CUZK_JOB_FAILED && strstr(r.error, "unknown key 'colour'"));
    /* the same circuit still proves correctly afterwards */
    CHECK(submit(e, a, NULL, CUZK_PRIO_DEFAULT, "n=24 x0=5") == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, a, 0) == CUZK_OK);
    CHECK(r.status == CUZK_JOB_COMPLETED && engine_chain_proof_ok(r.proof, 24, 5));
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.failed == 3 && s.completed == 1);
    cuzk_engine_status_clear(&s);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* One synthesis worker, no batching, a pipeline of one: NORMAL jobs run
 * strictly one after another.  A CRITICAL job submitted behind them must
 * end before all but (at most) the two NORMAL jobs already started. */
static void test_priority(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.synthesis_threads = 1;
    c.max_batch_size = 1;
    c.pipeline_depth = 1;
    cuzk_engine *e = start(&c);
    enum { N = 6 };
    char ids[N][CUZK_JOB_ID_MAX], crit[CUZK_JOB_ID_MAX], low[CUZK_JOB_ID_MAX], high[CUZK_JOB_ID_MAX];
    /* warm the SRS so load time does not blur the order */
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-32", NULL, 0) == CUZK_OK);
    CHECK(submit(e, low, NULL, CUZK_PRIO_LOW, "n=32 sleep_ms=60") == CUZK_OK);
    for (int i = 0; i < N; i++) CHECK(submit(e, ids[i], NULL, CUZK_PRIO_NORMAL, "n=32 sleep_ms=60") == CUZK_OK);
    sleep_ms(30);
    CHECK(submit(e, high, NULL, CUZK_PRIO_HIGH, "n=32 sleep_ms=60") == CUZK_OK);
    CHECK(submit(e, crit, NULL, CUZK_PRIO_CRITICAL, "n=32") == CUZK_OK);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, crit, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    uint64_t crit_seq = r.end_seq;
    CHECK(cuzk_engine_await(e, &r, high, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    uint64_t high_seq = r.end_seq;
    uint64_t prev_normal = 0, last_normal = 0;
    for (int i = 0; i < N; i++) {
        CHECK(cuzk_engine_await(e, &r, ids[i], 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
        if (r.end_seq > last_normal) last_normal = r.end_seq;
        if (i) CHECK(r.end_seq > prev_normal); /* NORMAL among themselves: FIFO, each after the one before */
        prev_normal = r.end_seq;
    }
    CHECK(cuzk_engine_await(e, &r, low, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    uint64_t low_seq = r.end_seq;
    /* LOW was first in the queue and started at once (nothing else was
     * there), so it may end first; CRITICAL overtakes the queued NORMALs. */
    CHECK(crit_seq <= 3);
    CHECK(high_seq < last_normal && high_seq <= 4);
    CHECK(low_seq <= 2 || low_seq == N + 3);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

static void test_cancel(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.synthesis_threads = 1;
    c.pipeline_depth = 1;
    /* no background PCE extraction after the proof: its 256 MiB reservation
     * would sit in memory_used, which must be back to the HOT params alone */
    snprintf(c.synthesis_pce, sizeof c.synthesis_pce, "off");
    cuzk_engine *e = start(&c);
    char run[CUZK_JOB_ID_MAX], pend[CUZK_JOB_ID_MAX], after[CUZK_JOB_ID_MAX];
    CHECK(submit(e, run, "running", CUZK_PRIO_NORMAL, "n=16 sleep_ms=20000") == CUZK_OK);
    CHECK(submit(e, pend, "pending", CUZK_PRIO_NORMAL, "n=16 partitions=2") == CUZK_OK);
    sleep_ms(100);
    bool was = true;
    CHECK(cuzk_engine_cancel(e, &was, pend) == CUZK_OK && !was);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, pend, 1000) == CUZK_OK && r.status == CUZK_JOB_CANCELLED);
    CHECK(strstr(r.error, "cancelled"));
    /* the running job stops at its next safe point (the provider polls
     * every 5 ms), far sooner than its 20 s synthesis */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(cuzk_engine_cancel(e, &was, run) == CUZK_OK && was);
    CHECK(cuzk_engine_await(e, &r, run, 5000) == CUZK_OK && r.status == CUZK_JOB_CANCELLED);
    /* the worker is free again: a new job completes quickly */
    CHECK(submit(e, after, NULL, CUZK_PRIO_NORMAL, "n=16") == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, after, 10000) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(t1.tv_sec - t0.tv_sec < 8);
    /* cancelling an ended job changes nothing */
    CHECK(cuzk_engine_cancel(e, &was, after) == CUZK_OK && !was);
    CHECK(cuzk_engine_await(e, &r, after, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.cancelled == 2 && s.completed == 1 && s.memory_used == s.srs_bytes[CUZK_SRS_HOT]);
    cuzk_engine_status_clear(&s);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* Prover state of the engine ("proving", "idle", ...) and its job. */
static void prover_state(cuzk_engine *e, char *state, char *job)
{
    cuzk_engine_status s;
    state[0] = job[0] = 0;
    if (cuzk_engine_get_status(e, &s)) return;
    for (size_t i = 0; i < s.n_workers; i++)
        if (!strncmp(s.workers[i].name, "prover", 6)) {
            snprintf(state, 16, "%s", s.workers[i].state);
            snprintf(job, CUZK_JOB_ID_MAX, "%s", s.workers[i].job_id);
        }
    cuzk_engine_status_clear(&s);
}

/* Cancel while the prover works on the job: it stops at the next phase
 * boundary (H NTT, each MSM), long before a whole proof's time. */
/* The cancelled job's size: under the sanitizers a quarter (its params and
 * synthesis took 17 of the test's 20 s under TSan); the proof still runs
 * ~0.7 s there, hundreds of the prover's safe points. */
#if CUZK_TEST_SANITIZED
#define CANCEL_N "n=2048"
#else
#define CANCEL_N "n=8192"
#endif

static void test_cancel_proving(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.max_batch_size = 1;
    cuzk_engine *e = start(&c);
    char id[CUZK_JOB_ID_MAX], state[16], job[CUZK_JOB_ID_MAX];
    cuzk_engine_result r = {0};
    /* a full proof first: its time is the yardstick */
    CHECK(submit(e, id, NULL, CUZK_PRIO_NORMAL, CANCEL_N) == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    uint64_t full = r.t.prove_ms;
    CHECK(submit(e, id, "cancel-me", CUZK_PRIO_NORMAL, CANCEL_N " x0=5") == CUZK_OK);
    for (int i = 0; i < 20000; i++) {
        prover_state(e, state, job);
        if (!strcmp(state, "proving") && !strcmp(job, id)) break;
        sleep_ms(1);
    }
    CHECK(!strcmp(state, "proving"));
    uint64_t t0 = mono_ms();
    bool was = false;
    CHECK(cuzk_engine_cancel(e, &was, id) == CUZK_OK && was);
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_CANCELLED);
    for (int i = 0; i < 20000; i++) {
        prover_state(e, state, job);
        if (strcmp(state, "proving")) break;
        sleep_ms(1);
    }
    uint64_t stop = mono_ms() - t0;
    printf("  full proof %llu ms; prover stopped %llu ms after cancel\n", (unsigned long long)full,
           (unsigned long long)stop);
    CHECK(strcmp(state, "proving") != 0);
    CHECK(stop < full / 2 + 20);
    char *js = NULL;
    CHECK(cuzk_engine_status_json(e, &js, NULL) == CUZK_OK);
    CHECK(js && strstr(js, "\"job_id\":\"cancel-me\""));
    CHECK(js && strstr(js, "\"state\":\"dropped\""));
    free(js);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* A CRITICAL partition preempts a NORMAL proof in the prover: the NORMAL
 * batch stops at its next phase boundary, is synthesized again (the prover
 * had clobbered its evaluations in place; proving them again fails), and
 * still completes (verified) after the CRITICAL one. */
static void test_preempt(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.max_batch_size = 1;
    cuzk_engine *e = start(&c);
    char id[CUZK_JOB_ID_MAX], crit[CUZK_JOB_ID_MAX], state[16], job[CUZK_JOB_ID_MAX];
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-16", NULL, 0) == CUZK_OK);
    CHECK(submit(e, id, NULL, CUZK_PRIO_NORMAL, "n=8192") == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    uint64_t full = r.t.prove_ms;
    CHECK(submit(e, id, "porep-big", CUZK_PRIO_NORMAL, "n=8192 x0=8") == CUZK_OK);
    for (int i = 0; i < 20000; i++) {
        prover_state(e, state, job);
        if (!strcmp(state, "proving") && !strcmp(job, id)) break;
        sleep_ms(1);
    }
    CHECK(!strcmp(state, "proving"));
    CHECK(submit(e, crit, "winpost-now", CUZK_PRIO_CRITICAL, "n=16 x0=2") == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, crit, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    uint64_t crit_seq = r.end_seq, crit_ms = r.t.total_ms;
    CHECK(engine_chain_proof_ok(r.proof, 16, 2));
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(engine_chain_proof_ok(r.proof, 8192, 8));
    printf("  full NORMAL proof %llu ms; CRITICAL done in %llu ms\n", (unsigned long long)full,
           (unsigned long long)crit_ms);
    CHECK(crit_seq < r.end_seq);
    CHECK(crit_ms < full / 2 + 50);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.preemptions == 1);
    cuzk_engine_status_clear(&s);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* Batch collector: same-circuit partitions are proved together; the
 * prover waits for more only while more are coming; a more urgent
 * partition is not held back by a batch being collected. */
static void test_batching(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.synthesis_threads = 4;
    c.max_batch_size = 4;
    c.max_batch_wait_ms = 3000;
    c.pipeline_depth = 8;
    cuzk_engine *e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-16", NULL, 0) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-17", NULL, 0) == CUZK_OK);
    char ids[4][CUZK_JOB_ID_MAX];
    cuzk_engine_result r = {0};
    /* four jobs, one 4-partition job's worth: one batch */
    for (int i = 0; i < 4; i++) CHECK(submit(e, ids[i], NULL, CUZK_PRIO_NORMAL, "n=16 sleep_ms=20") == CUZK_OK);
    for (int i = 0; i < 4; i++)
        CHECK(cuzk_engine_await(e, &r, ids[i], 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.batches == 1 && s.batched_partitions == 4);
    cuzk_engine_status_clear(&s);
    /* two jobs and nothing else coming: flushed without the 3 s wait */
    uint64_t t0 = mono_ms();
    for (int i = 0; i < 2; i++) CHECK(submit(e, ids[i], NULL, CUZK_PRIO_NORMAL, "n=16") == CUZK_OK);
    for (int i = 0; i < 2; i++)
        CHECK(cuzk_engine_await(e, &r, ids[i], 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(mono_ms() - t0 < 2500);
    /* a batch waits for a slow sibling; a CRITICAL job meanwhile is proved
     * first, not after the wait */
    char slow[CUZK_JOB_ID_MAX], crit[CUZK_JOB_ID_MAX];
    /* the slow sibling first: were the fast one submitted first, the prover
     * could take it alone before the sibling exists (a race in the test,
     * seen under load), and it would legitimately finish before CRITICAL */
    CHECK(submit(e, slow, NULL, CUZK_PRIO_NORMAL, "n=16 sleep_ms=1500") == CUZK_OK);
    CHECK(submit(e, ids[0], NULL, CUZK_PRIO_NORMAL, "n=16") == CUZK_OK);
    sleep_ms(200);
    CHECK(submit(e, crit, NULL, CUZK_PRIO_CRITICAL, "n=17") == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, crit, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    uint64_t crit_seq = r.end_seq, crit_ms = r.t.total_ms;
    CHECK(cuzk_engine_await(e, &r, ids[0], 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(crit_seq < r.end_seq);
    CHECK(crit_ms < 1200);
    CHECK(cuzk_engine_await(e, &r, slow, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

static void test_await_timeout(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    char id[CUZK_JOB_ID_MAX];
    CHECK(submit(e, id, "slow", CUZK_PRIO_NORMAL, "n=16 sleep_ms=400") == CUZK_OK);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 50) == CUZK_OK);
    CHECK(r.status == CUZK_JOB_TIMEOUT && !r.proof && strstr(r.error, "still running"));
    CHECK(r.t.total_ms >= 50);
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    /* abandoning the only wait cancels (Prove with a client deadline) */
    atomic_int ab = 0;
    CHECK(submit(e, id, "abandoned", CUZK_PRIO_NORMAL, "n=16 sleep_ms=5000") == CUZK_OK);
    ab = 1;
    cuzk_engine_await_opts o = {.abandon = &ab, .cancel_if_abandoned = true};
    CHECK(cuzk_engine_await_ex(e, &r, id, &o) == CUZK_ENGINE_ERR_ABANDONED);
    CHECK(cuzk_engine_await(e, &r, id, 3000) == CUZK_OK && r.status == CUZK_JOB_CANCELLED);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

typedef struct {
    cuzk_engine *e;
    char id[CUZK_JOB_ID_MAX];
    bool existing;
    int st;
} dup_arg;

static void *dup_submit(void *p)
{
    dup_arg *a = p;
    cuzk_engine_request r = {.request_id = "winpost-1000-abcd", .kind = CUZK_PROOF_TEST,
                             .vanilla_proof = (const uint8_t *)"n=20 sleep_ms=50",
                             .vanilla_proof_len = 16};
    a->st = cuzk_engine_submit(a->e, a->id, NULL, &a->existing, &r, NULL, 0);
    return NULL;
}

static void test_idempotent(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    enum { T = 8 };
    dup_arg a[T];
    pthread_t th[T];
    for (int i = 0; i < T; i++) {
        a[i] = (dup_arg){.e = e};
        CHECK(pthread_create(&th[i], NULL, dup_submit, &a[i]) == 0);
    }
    int fresh = 0;
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK(a[i].st == CUZK_OK && !strcmp(a[i].id, "winpost-1000-abcd"));
        fresh += !a[i].existing;
    }
    CHECK(fresh == 1);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, "winpost-1000-abcd", 0) == CUZK_OK);
    CHECK(r.status == CUZK_JOB_COMPLETED);
    /* resubmitting a finished, retained id returns the stored result */
    dup_arg again = {.e = e};
    dup_submit(&again);
    CHECK(again.st == CUZK_OK && again.existing);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.completed == 1 && s.queues[CUZK_PROOF_TEST].pending == 0);
    cuzk_engine_status_clear(&s);
    /* ids differing only after a common prefix, or in the last byte, are
     * distinct jobs (no key collision) */
    char x[CUZK_JOB_ID_MAX], y[CUZK_JOB_ID_MAX];
    CHECK(submit(e, x, "porep-1-1", CUZK_PRIO_DEFAULT, "n=8") == CUZK_OK);
    CHECK(submit(e, y, "porep-1-10", CUZK_PRIO_DEFAULT, "n=8 x0=4") == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, x, 0) == CUZK_OK && engine_chain_proof_ok(r.proof, 8, 3));
    CHECK(cuzk_engine_await(e, &r, y, 0) == CUZK_OK && engine_chain_proof_ok(r.proof, 8, 4));
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

static void test_retention(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.result_retention_ms = 150;
    cuzk_engine *e = start(&c);
    char id[CUZK_JOB_ID_MAX];
    CHECK(submit(e, id, "kept-briefly", CUZK_PRIO_DEFAULT, "n=8") == CUZK_OK);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    int found = 1;
    for (int i = 0; i < 100 && found; i++) { /* reaped within ~retention + period */
        sleep_ms(20);
        found = cuzk_engine_await(e, &r, id, 1) == CUZK_OK;
    }
    CHECK(!found);
    /* once reaped, the id is free: a new job (not the old result) */
    bool existing = true;
    cuzk_engine_request q = {.request_id = "kept-briefly", .kind = CUZK_PROOF_TEST,
                             .vanilla_proof = (const uint8_t *)"n=8 x0=9", .vanilla_proof_len = 8};
    CHECK(cuzk_engine_submit(e, id, NULL, &existing, &q, NULL, 0) == CUZK_OK && !existing);
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && engine_chain_proof_ok(r.proof, 8, 9));
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* Hundreds of small jobs from several threads, batching on: all complete,
 * each with its own correct proof, and the counters add up. */
typedef struct {
    cuzk_engine *e;
    int base, n, bad;
} many_arg;

static void *many_worker(void *p)
{
    many_arg *a = p;
    char ids[64][CUZK_JOB_ID_MAX];
    for (int i = 0; i < a->n; i++) {
        char set[64], rid[32];
        snprintf(set, sizeof set, "n=12 x0=%d", a->base + i);
        snprintf(rid, sizeof rid, "many-%d", a->base + i);
        if (submit(a->e, ids[i], rid, (cuzk_priority)(1 + (a->base + i) % 4), set)) a->bad++;
    }
    cuzk_engine_result r = {0};
    for (int i = 0; i < a->n; i++) {
        if (cuzk_engine_await(a->e, &r, ids[i], 0) || r.status != CUZK_JOB_COMPLETED ||
            !engine_chain_proof_ok(r.proof, 12, (uint64_t)(a->base + i)))
            a->bad++;
    }
    cuzk_engine_result_clear(&r);
    return NULL;
}

static void test_many(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.synthesis_threads = 2;
    c.max_batch_size = 8;
    c.max_batch_wait_ms = 5;
    c.pipeline_depth = 8;
    cuzk_engine *e = start(&c);
    enum { T = 4, PER = 60 };
    many_arg a[T];
    pthread_t th[T];
    for (int i = 0; i < T; i++) {
        a[i] = (many_arg){e, 1000 * i, PER * test_iterations > 64 ? 64 : PER * test_iterations, 0};
        CHECK(pthread_create(&th[i], NULL, many_worker, &a[i]) == 0);
    }
    uint64_t total = 0;
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK(a[i].bad == 0);
        total += (uint64_t)a[i].n;
    }
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.completed == total && s.failed == 0 && s.cancelled == 0);
    /* a batch holds at most max_batch_size jobs, and with 240 jobs queued
     * at once the prover must have batched them (32 batches measured) */
    CHECK(s.batched_partitions == total && s.batches * 8 >= total && s.batches <= total / 2);
    printf("  many: %llu jobs in %llu prover batches\n", (unsigned long long)total,
           (unsigned long long)s.batches);
    cuzk_engine_status_clear(&s);
    cuzk_engine_destroy(e);
}

/* Shutdown with work queued and running: every waiter gets an answer. */
typedef struct {
    cuzk_engine *e;
    char id[CUZK_JOB_ID_MAX];
    int rc;
    cuzk_job_status st;
} waiter_arg;

static void *waiter(void *p)
{
    waiter_arg *w = p;
    cuzk_engine_result r = {0};
    w->rc = cuzk_engine_await(w->e, &r, w->id, 0);
    w->st = r.status;
    cuzk_engine_result_clear(&r);
    return NULL;
}

static void test_shutdown(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.synthesis_threads = 1;
    cuzk_engine *e = start(&c);
    enum { N = 12 };
    waiter_arg w[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        w[i] = (waiter_arg){.e = e};
        CHECK(submit(e, w[i].id, NULL, CUZK_PRIO_NORMAL, "n=16 sleep_ms=80") == CUZK_OK);
        CHECK(pthread_create(&th[i], NULL, waiter, &w[i]) == 0);
    }
    sleep_ms(120);
    cuzk_engine_shutdown(e, 100);
    int completed = 0, cancelled = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        CHECK(w[i].rc == CUZK_OK);
        CHECK(w[i].st == CUZK_JOB_COMPLETED || w[i].st == CUZK_JOB_CANCELLED);
        completed += w[i].st == CUZK_JOB_COMPLETED;
        cancelled += w[i].st == CUZK_JOB_CANCELLED;
    }
    CHECK(completed + cancelled == N && cancelled > 0);
    char id[CUZK_JOB_ID_MAX];
    CHECK(submit(e, id, NULL, CUZK_PRIO_NORMAL, "n=8") == CUZK_ENGINE_ERR_SHUTDOWN);
    /* results stay readable after shutdown */
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, w[N - 1].id, 0) == CUZK_OK && r.status == CUZK_JOB_CANCELLED);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

static const test_case tests[] = {
    {"basic", test_basic},
    {"not_found", test_not_found},
    {"failures", test_failures},
    {"priority", test_priority},
    {"cancel", test_cancel},
    {"cancel_proving", test_cancel_proving},
    {"batching", test_batching},
    {"preempt", test_preempt},
    {"await_timeout", test_await_timeout},
    {"idempotent", test_idempotent},
    {"retention", test_retention},
    {"many", test_many},
    {"shutdown", test_shutdown},
};
TEST_MAIN(tests)
