/* cuzk-bench client commands (client_*.c): talk to a cuzk-daemon over
 * cuzk.v1 gRPC.  client_common.c parses the request options and opens the
 * connection, client_input.c reads --vanilla files and circuit ids in the
 * Rust cuzk-bench's forms, client_verify.c checks returned proofs against a
 * verifying key.  Numbers, hex and sizes go through cli_util.h. */
#ifndef CUZK_BENCH_CLIENT_H
#define CUZK_BENCH_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc.h"

/* The daemon's default listen address (the Rust daemon's and Curio's). */
#define CLIENT_DEFAULT_ADDR "unix:///run/curio/cuzk.sock"
/* The Rust cuzk-bench's default (http://127.0.0.1:9820, the Rust example
 * cuzk.toml's listen): used when the default socket does not exist. */
#define CLIENT_RUST_BENCH_ADDR "127.0.0.1:9820"

/* A SubmitProofRequest under construction plus the buffers it points to. */
typedef struct client_req {
    Cuzk__V1__SubmitProofRequest m;
    ProtobufCBinaryData *vp; /* vanilla_proofs (m.n_vanilla_proofs used), malloc'd */
    size_t vp_cap;
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
/* Checks the request is complete (kind set, an input); a PoSt request
 * without --randomness gets 32 zero bytes, as from the Rust bench.
 * Prints why not and returns -1. */
int client_req_check(client_req *r);
void client_req_free(client_req *r);
/* Proof kind from our names, the proto enum names and the Rust bench's
 * -t names; -1 if none. */
int client_kind_from_name(const char *s);

/* --vanilla FILE (client_input.c), as the Rust cuzk-bench reads it: a file
 * whose text is a JSON array of standard base64 strings (Go's
 * json.Marshal([][]byte), gen-vanilla's output) adds one vanilla proof per
 * element; any other file is one raw proof.  A text file that starts with
 * '[' but is not such an array is an error naming the element and byte
 * offset (the Rust bench would send it as one raw proof); a binary file
 * that happens to start with '[' is a raw proof.  -1 with a message. */
int client_add_vanilla_file(client_req *r, const char *path);
/* Appends one proof (takes ownership of data); -1 when out of memory. */
int client_add_vanilla(client_req *r, uint8_t *data, size_t len);

/* Circuit id for PreloadSRS/EvictSRS (client_input.c): ours and the Rust
 * daemon's ids (porep-32g, wpost-32g, winning-32g, snap-64g, ...; both use
 * the same spelling), any -t kind name with a size (window-post-32g,
 * porep-c2-64GiB, ...) and the test provider's chain-N, written in the
 * daemon's form into out.  Unknown: -1, printed with the accepted forms. */
int client_circuit_id(char *out, size_t cap, const char *id, const char *cmd);

/* --tls-ca FILE, --tls-cert FILE, --tls-key FILE at argv[*i] (every client
 * command, and before the command): kept for every client_open of the
 * process.  1 consumed, 0 not ours, -1 without its value (printed). */
int client_tls_arg(int argc, char **argv, int *i);

/* Opens the connection or prints why not.  addr NULL = $CUZK_ADDR, else
 * the default socket when it exists, else the Rust bench's default.
 * http://host:port (the Rust bench's form) is host:port in plain text;
 * https://host:port is TLS, as is host:port with any --tls-* option:
 * --tls-ca the CA of the daemon's certificate (default: gRPC's roots),
 * --tls-cert and --tls-key the client certificate the daemon's mutual TLS
 * asks for.  The files are read and checked here (parse, key matches
 * certificate).  NULL, printed, on a bad address, a bad file, --tls-* with
 * http:// or a unix socket, --tls-cert without --tls-key or the reverse. */
cuzk_rpc_client *client_open(const char *addr);

/* Prove r once; returns the gRPC code; on OK *resp is the result. */
int client_prove(cuzk_rpc_client *c, const Cuzk__V1__SubmitProofRequest *m, uint64_t timeout_ms,
                 Cuzk__V1__ProveResponse **resp, char *err, size_t err_len);

void client_print_result(const Cuzk__V1__AwaitProofResponse *r);
const char *client_status_name(int s);

/* ---- client_verify.c: checking returned proofs ---------------------------
 * A verifier holds a verifying key (bellperson .vk, or a .params file whose
 * head is the vk) and the public inputs of every partition of one request,
 * computed client-side from the request by the library's verifier-side
 * functions: cuzk_post_job_inputs (PoSt), cuzk_porep_job_inputs (PoRep),
 * cuzk_snap_job_inputs (SnapDeals), the test provider's public_inputs
 * (test kind), i.e. what `cuzk-bench verify` and the daemon's own check
 * compute.  Read-only once made: batch and stress threads share one. */
typedef struct client_verifier client_verifier;
/* -1 with a message (unreadable vk, a request whose inputs cannot be
 * computed -- e.g. kind unspecified -- or a vk whose input count does not
 * match the circuit's). */
int client_verifier_new(client_verifier **out, const char *vk_path, const Cuzk__V1__SubmitProofRequest *m,
                        const char *what);
/* true when proof (partitions x 192 bytes) verifies; else why says which
 * partition and why. */
bool client_verifier_check(const client_verifier *v, const uint8_t *proof, size_t len, char *why,
                           size_t whylen);
void client_verifier_free(client_verifier *v);

#endif
