/* Engine: request_id identity under Curio's retry patterns (wire-contract.md,
 * SubmitProof/Prove).  Curio retries a failed or timed-out Prove with the
 * SAME request_id, so an id names a proof, not one attempt:
 *  - same content, job queued/running/COMPLETED -> attach (no second proof);
 *  - job ended FAILED/CANCELLED -> a fresh attempt, never the dead result;
 *  - different content while the job is live -> CUZK_ENGINE_ERR_EXISTS;
 *  - a caller that goes away (abandon) does not cancel the job.
 * Proofs are checked against the verifying key and the slow chain
 * reference (cuzk_chain_output), as in test_engine.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "harness.h"

#define ENGINE_TEST_NAME "retry"
#include "engine_util.h"

typedef struct {
    int st;
    bool existing;
    char id[CUZK_JOB_ID_MAX];
    char err[CUZK_ENGINE_ERR_LEN];
} sub_out;

static sub_out sub_full(cuzk_engine *e, const char *rid, const char *settings, cuzk_priority prio,
                        uint64_t miner)
{
    sub_out o = {0};
    cuzk_engine_request r = {.request_id = rid,
                             .kind = CUZK_PROOF_TEST,
                             .priority = prio,
                             .miner_id = miner,
                             .vanilla_proof = (const uint8_t *)settings,
                             .vanilla_proof_len = strlen(settings)};
    o.st = cuzk_engine_submit(e, o.id, NULL, &o.existing, &r, o.err, sizeof o.err);
    return o;
}

static sub_out sub(cuzk_engine *e, const char *rid, const char *settings)
{
    return sub_full(e, rid, settings, CUZK_PRIO_DEFAULT, 0);
}

static cuzk_engine *start_small(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.shutdown_grace_ms = 5000;
    return start(&c);
}

static uint64_t completed_total(cuzk_engine *e)
{
    cuzk_engine_status s;
    if (cuzk_engine_get_status(e, &s)) return UINT64_MAX;
    uint64_t n = s.completed;
    cuzk_engine_status_clear(&s);
    return n;
}

/* Curio's PoRep retry: the first attempt carries bad input (FAILED at
 * submit), the retries under the same id must not get that FAILED back. */
static void test_garbage_then_real(void)
{
    cuzk_engine *e = start_small();
    cuzk_engine_result r = {0};
    sub_out a = sub(e, "porep-1000-7", "fail=1");
    CHECK(a.st == CUZK_OK && !a.existing);
    CHECK(cuzk_engine_await(e, &r, "porep-1000-7", 0) == CUZK_OK && r.status == CUZK_JOB_FAILED);
    uint64_t first_end = r.end_seq;
    /* the same garbage again: a fresh attempt (it fails again, later) */
    sub_out b = sub(e, "porep-1000-7", "fail=1");
    CHECK(b.st == CUZK_OK && !b.existing);
    CHECK(cuzk_engine_await(e, &r, "porep-1000-7", 0) == CUZK_OK && r.status == CUZK_JOB_FAILED);
    CHECK(r.end_seq > first_end);
    /* the real input under the same id: proved */
    sub_out c = sub(e, "porep-1000-7", "n=16 x0=5");
    CHECK(c.st == CUZK_OK && !c.existing && !strcmp(c.id, "porep-1000-7"));
    CHECK(cuzk_engine_await(e, &r, "porep-1000-7", 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(engine_chain_proof_ok(r.proof, 16, 5));
    uint64_t done_seq = r.end_seq;
    /* and once more (Curio lost the answer): the stored proof, no new work */
    sub_out d = sub(e, "porep-1000-7", "n=16 x0=5");
    CHECK(d.st == CUZK_OK && d.existing);
    CHECK(cuzk_engine_await(e, &r, "porep-1000-7", 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(r.end_seq == done_seq && engine_chain_proof_ok(r.proof, 16, 5));
    CHECK(completed_total(e) == 1);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* Two different requests under one id (the proof-share id collision):
 * refused while the first is live, never answered with its proof. */
static void test_same_id_other_content(void)
{
    cuzk_engine *e = start_small();
    cuzk_engine_result r = {0};
    CHECK(sub(e, "ps-porep-1-2-3", "n=16 x0=3 sleep_ms=300").st == CUZK_OK);
    sub_out b = sub(e, "ps-porep-1-2-3", "n=16 x0=4");
    CHECK(b.st == CUZK_ENGINE_ERR_EXISTS && strstr(b.err, "ps-porep-1-2-3"));
    /* a field beside the vanilla proof counts as content too */
    b = sub_full(e, "ps-porep-1-2-3", "n=16 x0=3 sleep_ms=300", CUZK_PRIO_DEFAULT, 99);
    CHECK(b.st == CUZK_ENGINE_ERR_EXISTS);
    /* ... the priority does not (same proof) */
    b = sub_full(e, "ps-porep-1-2-3", "n=16 x0=3 sleep_ms=300", CUZK_PRIO_HIGH, 0);
    CHECK(b.st == CUZK_OK && b.existing);
    CHECK(cuzk_engine_await(e, &r, "ps-porep-1-2-3", 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(engine_chain_proof_ok(r.proof, 16, 3));
    /* once it ended, the other content is a fresh attempt with its own proof */
    b = sub(e, "ps-porep-1-2-3", "n=16 x0=4");
    CHECK(b.st == CUZK_OK && !b.existing);
    CHECK(cuzk_engine_await(e, &r, "ps-porep-1-2-3", 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(engine_chain_proof_ok(r.proof, 16, 4) && !engine_chain_proof_ok(r.proof, 16, 3));
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* A Prove whose deadline passes: the waiter leaves, the job runs on, and
 * the retry attaches to it and gets the proof. */
static void test_abandoned_then_retry(void)
{
    cuzk_engine *e = start_small();
    cuzk_engine_result r = {0};
    CHECK(sub(e, "porep-1000-8", "n=16 x0=6 sleep_ms=400").st == CUZK_OK);
    atomic_int gone = 0;
    cuzk_engine_await_opts o = {.timeout_ms = 0, .abandon = &gone, .cancel_if_abandoned = false};
    gone = 1;
    CHECK(cuzk_engine_await_ex(e, &r, "porep-1000-8", &o) == CUZK_ENGINE_ERR_ABANDONED);
    sub_out b = sub(e, "porep-1000-8", "n=16 x0=6 sleep_ms=400");
    CHECK(b.st == CUZK_OK && b.existing);
    CHECK(cuzk_engine_await(e, &r, "porep-1000-8", 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(engine_chain_proof_ok(r.proof, 16, 6));
    CHECK(completed_total(e) == 1);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* CancelProof ends the job CANCELLED; the next submit under the id is a
 * fresh attempt, while a caller still waiting on the old one is answered. */
static void test_cancelled_then_retry(void)
{
    cuzk_engine *e = start_small();
    cuzk_engine_result r = {0};
    CHECK(sub(e, "snap-1000-9", "n=16 x0=8 sleep_ms=2000").st == CUZK_OK);
    bool was_running = false;
    CHECK(cuzk_engine_cancel(e, &was_running, "snap-1000-9") == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, "snap-1000-9", 0) == CUZK_OK && r.status == CUZK_JOB_CANCELLED);
    sub_out b = sub(e, "snap-1000-9", "n=16 x0=8");
    CHECK(b.st == CUZK_OK && !b.existing);
    CHECK(cuzk_engine_await(e, &r, "snap-1000-9", 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(engine_chain_proof_ok(r.proof, 16, 8));
    /* status lists the live attempt under the id, and counts both outcomes */
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.completed == 1 && s.cancelled == 1);
    cuzk_engine_status_clear(&s);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

static const test_case tests[] = {
    {"garbage_then_real", test_garbage_then_real},
    {"same_id_other_content", test_same_id_other_content},
    {"abandoned_then_retry", test_abandoned_then_retry},
    {"cancelled_then_retry", test_cancelled_then_retry},
};
TEST_MAIN(tests)
