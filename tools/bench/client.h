/* cuzk-bench client commands (client_*.c): talk to a cuzk-daemon over
 * cuzk.v1 gRPC.  Common option parsing and request building live in
 * client_common.c. */
#ifndef CUZK_BENCH_CLIENT_H
#define CUZK_BENCH_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc.h"

#define CLIENT_DEFAULT_ADDR "unix:///run/curio/cuzk.sock" /* the daemon's default listen address */

/* A SubmitProofRequest under construction plus the buffers it points to. */
typedef struct client_req {
    Cuzk__V1__SubmitProofRequest m;
    ProtobufCBinaryData vp[64]; /* vanilla_proofs */
    uint8_t rnd[32], comm[3][32];
    char request_id[128];
    char kind_name[32];
} client_req;

/* Common options: --addr A, --timeout-ms T.  client_req_arg consumes the
 * request options at argv[*i]: --kind K, --vanilla FILE (repeatable),
 * --vanilla-text STR, --sector-size S, --registered-proof N, --priority P,
 * --request-id ID, --sector N, --miner-id N, --randomness HEX,
 * Rust cuzk-bench spellings: -t/--type K (porep-c2, seal-commit, snap-deals,
 * update, wpost, windowpost, winning, winningpost ...), --sector-num N,
 * --partition K, --c1 FILE (PoRep), --comm-r-old/--comm-r-new/--comm-d-new HEX
 * (SnapDeals).  1 consumed, 0 not ours, -1 bad value (printed). */
void client_req_init(client_req *r);
int client_req_arg(client_req *r, int argc, char **argv, int *i);
/* Checks the request is complete (kind set ...); prints why not. */
int client_req_check(const client_req *r);
void client_req_free(client_req *r);

/* Opens the connection or prints why not.  addr NULL = $CUZK_ADDR or the
 * default; http(s)://host:port (the Rust bench's form) means host:port. */
cuzk_rpc_client *client_open(const char *addr);

/* Prove r once; returns the gRPC code; on OK *resp is the result. */
int client_prove(cuzk_rpc_client *c, const Cuzk__V1__SubmitProofRequest *m, uint64_t timeout_ms,
                 Cuzk__V1__ProveResponse **resp, char *err, size_t errlen);

void client_print_result(const Cuzk__V1__AwaitProofResponse *r);
const char *client_status_name(int s);
double client_now(void);

#endif
