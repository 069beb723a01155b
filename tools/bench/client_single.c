/* cuzk-bench single: one Prove through the daemon, per-phase timings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_util.h"
#include "client.h"

int cmd_single(int argc, char **argv)
{
    client_req r;
    client_req_init(&r);
    const char *addr = NULL, *out = NULL;
    uint64_t timeout_ms = 0;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        int k = client_req_arg(&r, argc, argv, &i);
        if (!k) k = client_tls_arg(argc, argv, &i);
        if (k < 0) goto bad;
        if (k) continue;
        if (!strcmp(argv[i], "--addr") && i + 1 < argc)
            addr = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--timeout-ms") && i + 1 < argc)
            timeout_ms = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else {
            fprintf(stderr, "single: unknown option '%s'\n", argv[i]);
            goto bad;
        }
    }
    if (client_req_check(&r)) goto bad;
    cuzk_rpc_client *c = client_open(addr);
    if (!c) goto bad;
    char err[1024];
    Cuzk__V1__ProveResponse *resp = NULL;
    double t0 = cli_now();
    int code = client_prove(c, &r.m, timeout_ms, &resp, err, sizeof err);
    double wall = cli_now() - t0;
    int rc = 1;
    if (code) {
        fprintf(stderr, "single: Prove failed: %s: %s\n", cuzk_rpc_code_name(code), err);
    } else {
        const Cuzk__V1__AwaitProofResponse *res = resp->result;
        if (json) {
            printf("{\"job_id\":\"%s\",\"status\":\"%s\",\"proof_bytes\":%zu,\"queue_wait_ms\":%llu,"
                   "\"srs_load_ms\":%llu,\"synthesis_ms\":%llu,\"prove_ms\":%llu,\"total_ms\":%llu,"
                   "\"client_wall_ms\":%.3f}\n",
                   res->job_id, client_status_name(res->status), res->proof.len,
                   (unsigned long long)res->queue_wait_ms, (unsigned long long)res->srs_load_ms,
                   (unsigned long long)res->synthesis_ms, (unsigned long long)res->gpu_compute_ms,
                   (unsigned long long)res->total_ms, wall * 1e3);
        } else {
            client_print_result(res);
            printf("  client wall time %.1f ms\n", wall * 1e3);
        }
        rc = res->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? 0 : 1;
        if (!rc && out) {
            FILE *f = fopen(out, "wb");
            if (!f || fwrite(res->proof.data, 1, res->proof.len, f) != res->proof.len) {
                fprintf(stderr, "single: cannot write %s\n", out);
                rc = 1;
            }
            if (f) fclose(f);
        }
        protobuf_c_message_free_unpacked(&resp->base, NULL);
    }
    cuzk_rpc_client_close(c);
    client_req_free(&r);
    return rc;
bad:
    client_req_free(&r);
    return 2;
}
