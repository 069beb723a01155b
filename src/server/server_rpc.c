/* The eight cuzk.v1.ProvingEngine handlers: wire message <-> engine call.
 * Threaded handlers (submit, await, prove, preload, evict) get their
 * request decoded on their own thread (server.c decode_request, within
 * memory.request_budget for submit and prove) and may block: evict
 * frees the params it drops (seconds for a 32 GiB entry), with the engine
 * lock released but still on its caller's thread.  The others (cancel,
 * status, metrics) run on the completion-queue thread and take the engine
 * lock only to copy what they answer. */
#include <grpc/grpc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server_internal.h"

/* Engine status code -> gRPC status code. */
static int grpc_code(int rc)
{
    switch (rc) {
    case CUZK_OK:
        return GRPC_STATUS_OK;
    case CUZK_ENGINE_ERR_NOT_FOUND:
        return GRPC_STATUS_NOT_FOUND;
    case CUZK_ENGINE_ERR_SHUTDOWN:
        return GRPC_STATUS_UNAVAILABLE;
    case CUZK_ENGINE_ERR_BUSY:
        return GRPC_STATUS_FAILED_PRECONDITION;
    case CUZK_ENGINE_ERR_TOO_BIG:
    case CUZK_ENGINE_ERR_EXHAUSTED:
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case CUZK_ENGINE_ERR_EXISTS:
        return GRPC_STATUS_ALREADY_EXISTS;
    case CUZK_ENGINE_ERR_ABANDONED:
    case CUZK_ENGINE_ERR_CANCELLED:
        return GRPC_STATUS_CANCELLED;
    case CUZK_ERR_ARG:
    case CUZK_ERR_FORMAT:
        return GRPC_STATUS_INVALID_ARGUMENT;
    case CUZK_ERR_NOMEM:
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case CUZK_ERR_UNSUPPORTED:
        return GRPC_STATUS_UNIMPLEMENTED;
    default:
        return GRPC_STATUS_INTERNAL;
    }
}

static void reply_engine_error(srv_call *c, int rc, const char *what, const char *err)
{
    char msg[768];
    snprintf(msg, sizeof msg, "%s: %s", what, err && *err ? err : cuzk_engine_strerror(rc));
    cuzk_srv_reply(c, grpc_code(rc), msg, NULL);
}

/* Submit m; 0 with job_id/pos, or -1 after replying to the call.  The
 * call may be freed by the completion-queue thread as soon as it is
 * replied to: what is needed after a reply is read before it (e). */
static int submit(srv_call *c, const Cuzk__V1__SubmitProofRequest *m, char job_id[CUZK_JOB_ID_MAX],
                  uint32_t *pos)
{
    cuzk_engine *e = cuzk_srv_engine(c);
    char err[CUZK_ENGINE_ERR_LEN], what[96];
    size_t n = m->n_vanilla_proofs ? m->n_vanilla_proofs : 1;
    /* the engine's view of the entries: a pointer and a length each,
     * request memory too (a message of many tiny entries) */
    uint64_t view = (uint64_t)n * (sizeof(uint8_t *) + sizeof(size_t)) + 64;
    snprintf(what, sizeof what, "the table of %zu vanilla_proofs entries", n);
    if (cuzk_engine_request_reserve(e, view, what, err, sizeof err)) {
        cuzk_srv_reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, err, NULL);
        return -1;
    }
    const uint8_t **vp = malloc(n * sizeof *vp);
    size_t *vl = malloc(n * sizeof *vl);
    if (!vp || !vl) {
        free(vp);
        free(vl);
        cuzk_engine_request_release(e, view);
        cuzk_srv_reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
        return -1;
    }
    cuzk_engine_request r;
    int rc = -1;
    if (cuzk_srv_request_from_wire(&r, m, vp, vl, err, sizeof err)) {
        cuzk_srv_reply(c, GRPC_STATUS_INVALID_ARGUMENT, err, NULL);
    } else {
        bool existing = false;
        err[0] = 0;
        int erc = cuzk_engine_submit(e, job_id, pos, &existing, &r, err, sizeof err);
        if (erc)
            reply_engine_error(c, erc, "submit", err);
        else
            rc = 0;
    }
    free(vp);
    free(vl);
    cuzk_engine_request_release(e, view);
    return rc;
}

static void fill_result(Cuzk__V1__AwaitProofResponse *out, const cuzk_engine_result *res)
{
    out->job_id = (char *)res->job_id;
    out->status = (Cuzk__V1__AwaitProofResponse__Status)res->status;
    out->proof.data = res->proof;
    out->proof.len = res->proof_len;
    out->error_message = (char *)res->error;
    out->queue_wait_ms = res->t.queue_wait_ms;
    out->srs_load_ms = res->t.srs_load_ms;
    out->synthesis_ms = res->t.synthesis_ms;
    out->gpu_compute_ms = res->t.prove_ms;
    out->total_ms = res->t.total_ms;
}

void cuzk_srv_handle_submit(srv_call *c)
{
    const Cuzk__V1__SubmitProofRequest *m = (const void *)cuzk_srv_request(c);
    char job_id[CUZK_JOB_ID_MAX];
    uint32_t pos = 0;
    if (submit(c, m, job_id, &pos)) return;
    Cuzk__V1__SubmitProofResponse resp = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    resp.job_id = job_id;
    resp.queue_position = pos;
    resp.assigned_gpu = (char *)"cpu";
    cuzk_srv_reply(c, GRPC_STATUS_OK, NULL, &resp.base);
}

/* Await job_id and reply with an AwaitProofResponse (wrapped in a
 * ProveResponse when prove).  Client gone -> the call ends CANCELLED but the
 * job runs on (wire-contract: only CancelProof cancels; Curio's retry with
 * the same request_id attaches to it, and its result is retained). */
static void await_and_reply(srv_call *c, const char *job_id, uint64_t timeout_ms, bool prove)
{
    cuzk_engine_result res;
    memset(&res, 0, sizeof res);
    cuzk_engine_await_opts o = {
        .timeout_ms = timeout_ms, .abandon = cuzk_srv_abandon_flag(c), .cancel_if_abandoned = false};
    int rc = cuzk_engine_await_ex(cuzk_srv_engine(c), &res, job_id, &o);
    if (rc) {
        char msg[CUZK_JOB_ID_MAX + 64];
        snprintf(msg, sizeof msg, "job '%s'", job_id);
        reply_engine_error(c, rc, msg,
                           rc == CUZK_ENGINE_ERR_NOT_FOUND
                               ? "unknown job id (never submitted, or its record was dropped: "
                                 "pipeline.result_retention passed, or more than "
                                 "scheduler.max_ended_jobs jobs ended after it)"
                               : NULL);
        return;
    }
    Cuzk__V1__AwaitProofResponse ar = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    fill_result(&ar, &res);
    if (prove) {
        Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
        pr.result = &ar;
        cuzk_srv_reply(c, GRPC_STATUS_OK, NULL, &pr.base);
    } else {
        cuzk_srv_reply(c, GRPC_STATUS_OK, NULL, &ar.base);
    }
    cuzk_engine_result_clear(&res);
}

void cuzk_srv_handle_await(srv_call *c)
{
    const Cuzk__V1__AwaitProofRequest *m = (const void *)cuzk_srv_request(c);
    if (!*m->job_id) {
        cuzk_srv_reply(c, GRPC_STATUS_INVALID_ARGUMENT, "job_id is empty", NULL);
        return;
    }
    await_and_reply(c, m->job_id, m->timeout_ms, false);
}

void cuzk_srv_handle_prove(srv_call *c)
{
    const Cuzk__V1__ProveRequest *m = (const void *)cuzk_srv_request(c);
    if (!m->submit) {
        cuzk_srv_reply(c, GRPC_STATUS_INVALID_ARGUMENT, "ProveRequest.submit is missing", NULL);
        return;
    }
    char job_id[CUZK_JOB_ID_MAX];
    uint32_t pos;
    if (submit(c, m->submit, job_id, &pos)) return;
    cuzk_srv_drop_request(c); /* m is gone from here on */
    await_and_reply(c, job_id, 0, true);
}

void cuzk_srv_handle_cancel(srv_call *c)
{
    const Cuzk__V1__CancelProofRequest *m = (const void *)cuzk_srv_request(c);
    bool was_running = false;
    int rc = cuzk_engine_cancel(cuzk_srv_engine(c), &was_running, m->job_id);
    if (rc) {
        char msg[CUZK_JOB_ID_MAX + 32];
        snprintf(msg, sizeof msg, "cancel job '%s'", m->job_id);
        reply_engine_error(c, rc, msg, rc == CUZK_ENGINE_ERR_NOT_FOUND ? "unknown job id" : NULL);
        return;
    }
    Cuzk__V1__CancelProofResponse resp = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
    resp.was_running = was_running;
    cuzk_srv_reply(c, GRPC_STATUS_OK, NULL, &resp.base);
}

void cuzk_srv_handle_status(srv_call *c)
{
    cuzk_engine_status st;
    memset(&st, 0, sizeof st);
    int rc = cuzk_engine_get_status(cuzk_srv_engine(c), &st);
    if (rc) {
        reply_engine_error(c, rc, "status", NULL);
        return;
    }
    Cuzk__V1__GetStatusResponse resp = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    /* One "gpu" entry per prover worker: the CPU prover ("cpu", as the
     * Rust daemon's CPU-only build) first, then the device workers. */
    Cuzk__V1__SRSStatus *srs = calloc(st.n_srs ? st.n_srs : 1, sizeof *srs);
    Cuzk__V1__SRSStatus **srsp = calloc(st.n_srs ? st.n_srs : 1, sizeof *srsp);
    Cuzk__V1__GPUStatus *gpu = calloc(st.n_provers ? st.n_provers : 1, sizeof *gpu);
    Cuzk__V1__GPUStatus **gpus = calloc(st.n_provers ? st.n_provers : 1, sizeof *gpus);
    char(*gname)[200] = calloc(st.n_provers ? st.n_provers : 1, sizeof *gname);
    Cuzk__V1__QueueStatus q[CUZK_PROOF_KINDS], *qp[CUZK_PROOF_KINDS];
    if (!srs || !srsp || !gpu || !gpus || !gname) {
        free(gpu);
        free(gpus);
        free(gname);
        free(srs);
        free(srsp);
        cuzk_engine_status_clear(&st);
        cuzk_srv_reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
        return;
    }
    for (size_t i = 0; i < st.n_srs; i++) {
        cuzk__v1__srsstatus__init(&srs[i]);
        srs[i].circuit_id = st.srs[i].circuit_id;
        srs[i].tier = (Cuzk__V1__SRSStatus__Tier)st.srs[i].tier;
        srs[i].size_bytes = st.srs[i].size_bytes;
        srs[i].ref_count = st.srs[i].ref_count;
        srsp[i] = &srs[i];
    }
    resp.n_loaded_srs = st.n_srs;
    resp.loaded_srs = srsp;
    for (size_t i = 0; i < st.n_provers; i++) {
        const cuzk_engine_worker_info *w = &st.workers[i];
        const char *colon = strchr(w->device, ':');
        cuzk__v1__gpustatus__init(&gpu[i]);
        if (i == 0)
            snprintf(gname[i], sizeof gname[i], "cpu");
        else
            snprintf(gname[i], sizeof gname[i], "%s %s %s", w->name, w->device, w->device_name);
        gpu[i].name = gname[i];
        gpu[i].ordinal = colon ? (uint32_t)strtoul(colon + 1, NULL, 10) : 0;
        gpu[i].vram_total_bytes = w->device_mem;
        if (w->job_id[0]) {
            gpu[i].current_job_id = (char *)w->job_id;
            gpu[i].current_proof_kind = (char *)cuzk_proof_kind_rust_name(w->kind);
        }
        gpus[i] = &gpu[i];
    }
    resp.n_gpus = st.n_provers;
    resp.gpus = gpus;
    size_t nq = 0;
    for (int k = 0; k < CUZK_PROOF_KINDS; k++) {
        const cuzk_engine_queue_info *qi = &st.queues[k];
        cuzk_proof_kind kind = (cuzk_proof_kind)k;
        bool wire = kind >= CUZK_PROOF_POREP && kind <= CUZK_PROOF_WINNING_POST;
        if (!wire && !qi->pending && !qi->in_progress) continue;
        cuzk__v1__queue_status__init(&q[nq]);
        q[nq].proof_kind = (char *)cuzk_proof_kind_rust_name(kind);
        q[nq].pending = qi->pending;
        q[nq].in_progress = qi->in_progress;
        qp[nq] = &q[nq];
        nq++;
    }
    resp.n_queues = nq;
    resp.queues = qp;
    resp.total_proofs_completed = st.completed;
    resp.total_proofs_failed = st.failed;
    resp.uptime_seconds = st.uptime_s;
    resp.pinned_memory_bytes = st.memory_used;
    resp.pinned_memory_limit_bytes = st.memory_limit;
    cuzk_srv_reply(c, GRPC_STATUS_OK, NULL, &resp.base);
    free(srs);
    free(srsp);
    free(gpu);
    free(gpus);
    free(gname);
    cuzk_engine_status_clear(&st);
}

void cuzk_srv_handle_metrics(srv_call *c)
{
    char *text = NULL;
    size_t len = 0;
    int rc = cuzk_engine_metrics_text(cuzk_srv_engine(c), &text, &len);
    if (rc) {
        reply_engine_error(c, rc, "metrics", NULL);
        return;
    }
    Cuzk__V1__GetMetricsResponse resp = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    resp.prometheus_text = text;
    cuzk_srv_reply(c, GRPC_STATUS_OK, NULL, &resp.base);
    free(text);
}

void cuzk_srv_handle_preload(srv_call *c)
{
    const Cuzk__V1__PreloadSrsRequest *m = (const void *)cuzk_srv_request(c);
    char err[CUZK_ENGINE_ERR_LEN] = "";
    bool already = false;
    uint64_t ms = 0;
    int rc = cuzk_engine_srs_preload(cuzk_srv_engine(c), &already, &ms, m->circuit_id, err, sizeof err);
    if (rc) {
        char what[128];
        snprintf(what, sizeof what, "preload '%.64s'", m->circuit_id);
        reply_engine_error(c, rc, what,
                           *err                              ? err
                           : rc == CUZK_ENGINE_ERR_NOT_FOUND ? "unknown circuit id"
                                                             : NULL);
        return;
    }
    Cuzk__V1__PreloadSrsResponse resp = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    resp.already_loaded = already;
    resp.load_time_ms = ms;
    cuzk_srv_reply(c, GRPC_STATUS_OK, NULL, &resp.base);
}

void cuzk_srv_handle_evict(srv_call *c)
{
    const Cuzk__V1__EvictSrsRequest *m = (const void *)cuzk_srv_request(c);
    char err[CUZK_ENGINE_ERR_LEN] = "";
    bool was = false;
    uint64_t freed = 0;
    int rc = cuzk_engine_srs_evict(cuzk_srv_engine(c), &was, &freed, m->circuit_id, err, sizeof err);
    if (rc) {
        char what[128];
        snprintf(what, sizeof what, "evict '%.64s'", m->circuit_id);
        reply_engine_error(c, rc, what,
                           *err                              ? err
                           : rc == CUZK_ENGINE_ERR_NOT_FOUND ? "unknown circuit id"
                                                             : NULL);
        return;
    }
    Cuzk__V1__EvictSrsResponse resp = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
    resp.was_loaded = was;
    resp.freed_bytes = freed;
    cuzk_srv_reply(c, GRPC_STATUS_OK, NULL, &resp.base);
}
