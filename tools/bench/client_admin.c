/* cuzk-bench status | metrics | preload | evict | cancel | submit | await:
 * one administrative RPC each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_util.h"
#include "client.h"

/* Parses --addr, --timeout-ms, --json and up to one positional argument
 * (also as -c/--circuit-id ID, the Rust bench's preload spelling). */
typedef struct {
    const char *addr, *arg;
    uint64_t timeout_ms, repeat;
    bool json;
} admin_opts;

static int admin_args(admin_opts *o, int argc, char **argv, const char *cmd, bool need_arg)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        int t = client_tls_arg(argc, argv, &i);
        if (t < 0) return -1;
        if (t) continue;
        if (!strcmp(argv[i], "--addr") && i + 1 < argc)
            o->addr = argv[++i];
        else if (!strcmp(argv[i], "--timeout-ms") && i + 1 < argc)
            o->timeout_ms = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--json"))
            o->json = true;
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            o->repeat = strtoull(argv[++i], NULL, 10);
        else if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--circuit-id")) && i + 1 < argc && !o->arg &&
                 (!strcmp(cmd, "preload") || !strcmp(cmd, "evict")))
            o->arg = argv[++i];
        else if (argv[i][0] != '-' && !o->arg)
            o->arg = argv[i];
        else {
            fprintf(stderr, "%s: unexpected argument '%s'\n", cmd, argv[i]);
            return -1;
        }
    }
    if (need_arg && !o->arg) {
        fprintf(stderr, "%s: missing argument\n", cmd);
        return -1;
    }
    return 0;
}

/* One call; prints the error and returns 1 on failure. */
static int call(const admin_opts *o, const char *method, const ProtobufCMessage *req,
                const ProtobufCMessageDescriptor *d, ProtobufCMessage **resp, const char *cmd)
{
    cuzk_rpc_client *c = client_open(o->addr);
    if (!c) return 2;
    char err[1024];
    int code = cuzk_rpc_call(c, method, req, d, resp, o->timeout_ms ? o->timeout_ms : 30000, err, sizeof err);
    cuzk_rpc_client_close(c);
    if (code) {
        fprintf(stderr, "%s: %s: %s\n", cmd, cuzk_rpc_code_name(code), err);
        return code == 5 ? 3 : 1; /* NOT_FOUND is exit 3: scripts tell it apart */
    }
    return 0;
}

/* The daemon's version from GetMetrics' cuzk_build_info (GetStatusResponse
 * has no field for it: the wire is the Rust daemon's); "" if absent. */
static void daemon_version(const admin_opts *o, char *out, size_t cap)
{
    Cuzk__V1__GetMetricsRequest req = CUZK__V1__GET_METRICS_REQUEST__INIT;
    ProtobufCMessage *m = NULL;
    cuzk_rpc_client *c = client_open(o->addr);
    char err[256];
    out[0] = 0;
    if (c && !cuzk_rpc_call(c, CUZK_RPC_METRICS, &req.base, &cuzk__v1__get_metrics_response__descriptor, &m,
                            10000, err, sizeof err)) {
        const char *t =
            strstr(((const Cuzk__V1__GetMetricsResponse *)m)->prometheus_text, "cuzk_build_info{version=\"");
        if (t) snprintf(out, cap, "%.*s", (int)strcspn(t + 25, "\""), t + 25);
        protobuf_c_message_free_unpacked(m, NULL);
    }
    if (c) cuzk_rpc_client_close(c);
}

int cmd_status(int argc, char **argv)
{
    admin_opts o;
    if (admin_args(&o, argc, argv, "status", false)) return 2;
    Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *m;
    if (o.repeat) { /* GetStatus round trips on one connection: calls/s */
        cuzk_rpc_client *c = client_open(o.addr);
        if (!c) return 2;
        char err[512];
        double t0 = cli_now();
        for (uint64_t i = 0; i < o.repeat; i++) {
            int code = cuzk_rpc_call(c, CUZK_RPC_STATUS, &req.base,
                                     &cuzk__v1__get_status_response__descriptor, &m, 10000, err, sizeof err);
            if (code) {
                fprintf(stderr, "status: %s: %s\n", cuzk_rpc_code_name(code), err);
                cuzk_rpc_client_close(c);
                return 1;
            }
            protobuf_c_message_free_unpacked(m, NULL);
        }
        double dt = cli_now() - t0;
        printf("GetStatus: %llu calls in %.3f s = %.0f calls/s (%.1f us each, sequential)\n",
               (unsigned long long)o.repeat, dt, (double)o.repeat / dt, dt / (double)o.repeat * 1e6);
        cuzk_rpc_client_close(c);
        return 0;
    }
    int rc = call(&o, CUZK_RPC_STATUS, &req.base, &cuzk__v1__get_status_response__descriptor, &m, "status");
    if (rc) return rc;
    const Cuzk__V1__GetStatusResponse *s = (const void *)m;
    static const char *const tier[] = {"hot", "warm", "cold"};
    char version[64];
    daemon_version(&o, version, sizeof version);
    if (version[0]) printf("daemon version %s\n", version);
    printf("uptime %llu s, completed %llu, failed %llu, memory %llu / %llu bytes\n",
           (unsigned long long)s->uptime_seconds, (unsigned long long)s->total_proofs_completed,
           (unsigned long long)s->total_proofs_failed, (unsigned long long)s->pinned_memory_bytes,
           (unsigned long long)s->pinned_memory_limit_bytes);
    for (size_t i = 0; i < s->n_gpus; i++)
        printf("device %u %s: job %s %s\n", s->gpus[i]->ordinal, s->gpus[i]->name,
               *s->gpus[i]->current_job_id ? s->gpus[i]->current_job_id : "-",
               s->gpus[i]->current_proof_kind);
    for (size_t i = 0; i < s->n_queues; i++)
        printf("queue %-13s pending %u in_progress %u\n", s->queues[i]->proof_kind, s->queues[i]->pending,
               s->queues[i]->in_progress);
    for (size_t i = 0; i < s->n_loaded_srs; i++)
        printf("srs %-16s %-4s %llu bytes refs %u\n", s->loaded_srs[i]->circuit_id,
               (unsigned)s->loaded_srs[i]->tier < 3 ? tier[s->loaded_srs[i]->tier] : "?",
               (unsigned long long)s->loaded_srs[i]->size_bytes, s->loaded_srs[i]->ref_count);
    protobuf_c_message_free_unpacked(m, NULL);
    return 0;
}

int cmd_metrics(int argc, char **argv)
{
    admin_opts o;
    if (admin_args(&o, argc, argv, "metrics", false)) return 2;
    Cuzk__V1__GetMetricsRequest req = CUZK__V1__GET_METRICS_REQUEST__INIT;
    ProtobufCMessage *m;
    int rc =
        call(&o, CUZK_RPC_METRICS, &req.base, &cuzk__v1__get_metrics_response__descriptor, &m, "metrics");
    if (rc) return rc;
    fputs(((const Cuzk__V1__GetMetricsResponse *)m)->prometheus_text, stdout);
    protobuf_c_message_free_unpacked(m, NULL);
    return 0;
}

int cmd_preload(int argc, char **argv)
{
    admin_opts o;
    if (admin_args(&o, argc, argv, "preload", true)) return 2;
    char id[64];
    if (client_circuit_id(id, sizeof id, o.arg, "preload")) return 2;
    o.arg = id;
    if (!o.timeout_ms) o.timeout_ms = 3600000; /* 32 GiB params take minutes */
    Cuzk__V1__PreloadSrsRequest req = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    req.circuit_id = (char *)o.arg;
    ProtobufCMessage *m;
    int rc =
        call(&o, CUZK_RPC_PRELOAD, &req.base, &cuzk__v1__preload_srs_response__descriptor, &m, "preload");
    if (rc) return rc;
    const Cuzk__V1__PreloadSrsResponse *r = (const void *)m;
    printf("%s: %s (%llu ms)\n", o.arg, r->already_loaded ? "already loaded" : "loaded",
           (unsigned long long)r->load_time_ms);
    protobuf_c_message_free_unpacked(m, NULL);
    return 0;
}

int cmd_evict(int argc, char **argv)
{
    admin_opts o;
    if (admin_args(&o, argc, argv, "evict", true)) return 2;
    char id[64];
    if (client_circuit_id(id, sizeof id, o.arg, "evict")) return 2;
    o.arg = id;
    Cuzk__V1__EvictSrsRequest req = CUZK__V1__EVICT_SRS_REQUEST__INIT;
    req.circuit_id = (char *)o.arg;
    ProtobufCMessage *m;
    int rc = call(&o, CUZK_RPC_EVICT, &req.base, &cuzk__v1__evict_srs_response__descriptor, &m, "evict");
    if (rc) return rc;
    const Cuzk__V1__EvictSrsResponse *r = (const void *)m;
    printf("%s: %s, freed %llu bytes\n", o.arg, r->was_loaded ? "evicted" : "was not loaded",
           (unsigned long long)r->freed_bytes);
    protobuf_c_message_free_unpacked(m, NULL);
    return 0;
}

int cmd_cancel(int argc, char **argv)
{
    admin_opts o;
    if (admin_args(&o, argc, argv, "cancel", true)) return 2;
    Cuzk__V1__CancelProofRequest req = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    req.job_id = (char *)o.arg;
    ProtobufCMessage *m;
    int rc = call(&o, CUZK_RPC_CANCEL, &req.base, &cuzk__v1__cancel_proof_response__descriptor, &m, "cancel");
    if (rc) return rc;
    printf("%s: cancelled (%s)\n", o.arg,
           ((const Cuzk__V1__CancelProofResponse *)m)->was_running ? "was running" : "was pending or ended");
    protobuf_c_message_free_unpacked(m, NULL);
    return 0;
}

int cmd_submit(int argc, char **argv)
{
    client_req r;
    client_req_init(&r);
    admin_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        int k = client_req_arg(&r, argc, argv, &i);
        if (k < 0) goto bad;
        if (k) continue;
        if (!strcmp(argv[i], "--addr") && i + 1 < argc)
            o.addr = argv[++i];
        else {
            fprintf(stderr, "submit: unknown option '%s'\n", argv[i]);
            goto bad;
        }
    }
    if (client_req_check(&r)) goto bad;
    ProtobufCMessage *m;
    int rc = call(&o, CUZK_RPC_SUBMIT, &r.m.base, &cuzk__v1__submit_proof_response__descriptor, &m, "submit");
    if (!rc) {
        const Cuzk__V1__SubmitProofResponse *s = (const void *)m;
        printf("%s queue_position %u\n", s->job_id, s->queue_position);
        protobuf_c_message_free_unpacked(m, NULL);
    }
    client_req_free(&r);
    return rc;
bad:
    client_req_free(&r);
    return 2;
}

int cmd_await(int argc, char **argv)
{
    admin_opts o;
    if (admin_args(&o, argc, argv, "await", true)) return 2;
    Cuzk__V1__AwaitProofRequest req = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    req.job_id = (char *)o.arg;
    req.timeout_ms = o.timeout_ms;
    admin_opts no_deadline = o;
    no_deadline.timeout_ms = o.timeout_ms ? o.timeout_ms + 10000 : 24ull * 3600 * 1000;
    ProtobufCMessage *m;
    int rc = call(&no_deadline, CUZK_RPC_AWAIT, &req.base, &cuzk__v1__await_proof_response__descriptor, &m,
                  "await");
    if (rc) return rc;
    const Cuzk__V1__AwaitProofResponse *r = (const void *)m;
    client_print_result(r);
    rc = r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? 0 : 1;
    protobuf_c_message_free_unpacked(m, NULL);
    return rc;
}
