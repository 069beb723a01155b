/* Option parsing, request building and the connection shared by the
 * client commands.  Values are parsed by cli_util.h (one parser per
 * thing); --vanilla files by client_input.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <openssl/crypto.h>

#include "cli_util.h"
#include "client.h"
#include "g16_cli.h"

void client_req_init(client_req *r)
{
    memset(r, 0, sizeof *r);
    cuzk__v1__submit_proof_request__init(&r->m);
}

void client_req_free(client_req *r)
{
    for (size_t i = 0; i < r->m.n_vanilla_proofs; i++)
        free(r->vp[i].data);
    free(r->vp);
    free(r->m.vanilla_proof.data);
    client_req_init(r);
}

int client_add_vanilla(client_req *r, uint8_t *data, size_t len)
{
    if (r->m.n_vanilla_proofs == r->vp_cap) {
        size_t cap = r->vp_cap ? 2 * r->vp_cap : 16;
        ProtobufCBinaryData *v = realloc(r->vp, cap * sizeof *v);
        if (!v) {
            free(data);
            fprintf(stderr, "cuzk-bench: out of memory for %zu vanilla proofs\n", cap);
            return -1;
        }
        r->vp = v;
        r->vp_cap = cap;
    }
    r->vp[r->m.n_vanilla_proofs++] = (ProtobufCBinaryData){.data = data, .len = len};
    r->m.vanilla_proofs = r->vp;
    return 0;
}

/* Our names, the proto enum names and the Rust cuzk-bench's -t/--type names. */
int client_kind_from_name(const char *s)
{
    static const struct {
        const char *n;
        int k;
    } t[] = {{"porep", 1},
             {"POREP_SEAL_COMMIT", 1},
             {"porep-c2", 1},
             {"seal-commit", 1},
             {"snap", 2},
             {"SNAP_DEALS_UPDATE", 2},
             {"snap-deals", 2},
             {"snap-update", 2},
             {"update", 2},
             {"window-post", 3},
             {"WINDOW_POST_PARTITION", 3},
             {"window_post", 3},
             {"windowpost", 3},
             {"wpost", 3},
             {"winning-post", 4},
             {"WINNING_POST", 4},
             {"winning_post", 4},
             {"winningpost", 4},
             {"winning", 4},
             {"test", 5},
             {"unspecified", 0},
             {"PROOF_KIND_UNSPECIFIED", 0}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp(s, t[i].n)) return t[i].k;
    return -1;
}

int client_req_arg(client_req *r, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    static const char *const with_value[] = {"--kind",
                                             "--vanilla",
                                             "--vanilla-text",
                                             "--c1",
                                             "--sector-size",
                                             "--registered-proof",
                                             "--priority",
                                             "--request-id",
                                             "--sector",
                                             "--miner-id",
                                             "--randomness",
                                             "--partition",
                                             "--comm-r-old",
                                             "--comm-r-new",
                                             "--comm-d-new",
                                             "-t",
                                             "--type",
                                             "--sector-num",
                                             NULL};
    bool ours = false;
    for (int k = 0; with_value[k]; k++)
        ours |= !strcmp(a, with_value[k]);
    if (!ours) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", a);
        return -1;
    }
    const char *v = argv[++*i];
    uint64_t u;
    if (!strcmp(a, "--kind") || !strcmp(a, "-t") || !strcmp(a, "--type")) {
        int k = client_kind_from_name(v);
        if (k < 0) {
            fprintf(
                stderr,
                "%s: expected porep (porep-c2, seal-commit), snap (snap-deals, snap-update, update), "
                "window-post (wpost, windowpost), winning-post (winning, winningpost) or test, got '%s'\n",
                a, v);
            return -1;
        }
        r->m.proof_kind = (Cuzk__V1__ProofKind)k;
        snprintf(r->kind_name, sizeof r->kind_name, "%s", v);
    } else if (!strcmp(a, "--vanilla")) {
        if (client_add_vanilla_file(r, v)) return -1;
    } else if (!strcmp(a, "--c1")) { /* PoRep: the C1 output (envelope or bare JSON) as vanilla_proof */
        size_t n = 0;
        uint8_t *b = g16_cli_read_file(v, &n);
        if (!b) return -1;
        free(r->m.vanilla_proof.data);
        r->m.vanilla_proof = (ProtobufCBinaryData){.data = b, .len = n};
        if (!r->kind_name[0]) {
            r->m.proof_kind = (Cuzk__V1__ProofKind)1;
            snprintf(r->kind_name, sizeof r->kind_name, "porep");
        }
    } else if (!strcmp(a, "--vanilla-text")) {
        free(r->m.vanilla_proof.data);
        r->m.vanilla_proof.data = (uint8_t *)strdup(v);
        r->m.vanilla_proof.len = strlen(v);
    } else if (!strcmp(a, "--sector-size")) {
        if (!(r->m.sector_size = cli_sector_size(v))) {
            fprintf(stderr, "cuzk-bench: %s: expected 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes, got '%s'\n",
                    a, v);
            return -1;
        }
    } else if (!strcmp(a, "--registered-proof")) {
        if (cli_u64(&r->m.registered_proof, v, a)) return -1;
    } else if (!strcmp(a, "--priority")) {
        static const char *const p[] = {"default", "low", "normal", "high", "critical"};
        int k = -1;
        for (int j = 0; j < 5; j++)
            if (!strcasecmp(v, p[j])) k = j;
        if (k < 0) {
            fprintf(stderr, "--priority: expected low, normal, high, critical or default, got '%s'\n", v);
            return -1;
        }
        r->m.priority = (Cuzk__V1__Priority)k;
    } else if (!strcmp(a, "--request-id")) {
        snprintf(r->request_id, sizeof r->request_id, "%s", v);
        r->m.request_id = r->request_id;
    } else if (!strcmp(a, "--sector") || !strcmp(a, "--sector-num")) {
        if (cli_u64(&r->m.sector_number, v, a)) return -1;
    } else if (!strcmp(a, "--miner-id")) {
        if (cli_u64(&r->m.miner_id, v, a)) return -1;
    } else if (!strcmp(a, "--randomness")) {
        if (cli_hex32(r->rnd, v, a)) return -1;
        r->m.randomness.data = r->rnd;
        r->m.randomness.len = 32;
    } else if (!strcmp(a, "--comm-r-old") || !strcmp(a, "--comm-r-new") || !strcmp(a, "--comm-d-new")) {
        /* SnapDeals: the three commitments, 32 bytes each as stored */
        int k = !strcmp(a, "--comm-r-old") ? 0 : !strcmp(a, "--comm-r-new") ? 1 : 2;
        if (cli_hex32(r->comm[k], v, a)) return -1;
        ProtobufCBinaryData *f = k == 0 ? &r->m.comm_r_old : k == 1 ? &r->m.comm_r_new : &r->m.comm_d_new;
        f->data = r->comm[k];
        f->len = 32;
    } else if (!strcmp(a, "--partition")) {
        if (cli_u64(&u, v, a)) return -1;
        if (u > UINT32_MAX) {
            fprintf(stderr, "cuzk-bench: %s: %llu is not a partition index (< 2^32)\n", a,
                    (unsigned long long)u);
            return -1;
        }
        r->m.partition_index = (uint32_t)u;
    }
    return 1;
}

int client_req_check(client_req *r)
{
    if (!r->kind_name[0]) {
        fprintf(stderr, "--kind is required (winning-post, window-post, porep, snap, test)\n");
        return -1;
    }
    if (!r->m.n_vanilla_proofs && !r->m.vanilla_proof.len) {
        fprintf(stderr, "no input: give --c1 FILE (PoRep), --vanilla FILE (PoSt, SnapDeals: a JSON array of "
                        "base64 proofs or one raw proof; repeatable) or --vanilla-text STR (test kind)\n");
        return -1;
    }
    int k = (int)r->m.proof_kind;
    if ((k == 3 || k == 4) && !r->m.randomness.len) { /* the Rust bench's default */
        memset(r->rnd, 0, sizeof r->rnd);
        r->m.randomness = (ProtobufCBinaryData){.data = r->rnd, .len = 32};
    }
    return 0;
}

/* NULL -> $CUZK_ADDR, else the default socket if it is there, else the
 * Rust bench's default (its example cuzk.toml listens on 0.0.0.0:9820). */
static const char *default_addr(void)
{
    const char *e = getenv("CUZK_ADDR");
    if (e && *e) return e;
    struct stat st;
    const char *path = CLIENT_DEFAULT_ADDR + strlen("unix://");
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode) ? CLIENT_DEFAULT_ADDR : CLIENT_RUST_BENCH_ADDR;
}

/* The TLS files of --tls-ca/--tls-cert/--tls-key: one set per process,
 * like the address (a command line names one daemon). */
static struct {
    const char *ca, *cert, *key;
} tls_files;

int client_tls_arg(int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char **slot = !strcmp(a, "--tls-ca")     ? &tls_files.ca
                        : !strcmp(a, "--tls-cert") ? &tls_files.cert
                        : !strcmp(a, "--tls-key")  ? &tls_files.key
                                                   : NULL;
    if (!slot) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s needs a PEM file\n", a);
        return -1;
    }
    *slot = argv[++*i];
    return 1;
}

/* The PEM texts of the --tls-* files, read and checked; -1 printed. */
static int tls_load(char *pem[3])
{
    static const char *const what[3] = {"--tls-ca", "--tls-cert", "--tls-key"};
    const char *path[3] = {tls_files.ca, tls_files.cert, tls_files.key};
    char err[512];
    if (!path[1] != !path[2]) {
        fprintf(stderr,
                "cuzk-bench: --tls-cert and --tls-key go together (the client certificate and its key)\n");
        return -1;
    }
    for (int k = 0; k < 3; k++)
        if (path[k] && cuzk_rpc_pem_read(&pem[k], what[k], path[k], err, sizeof err)) {
            fprintf(stderr, "cuzk-bench: %s\n", err);
            return -1;
        }
    cuzk_rpc_pem ca = {pem[0], what[0], path[0]}, cert = {pem[1], what[1], path[1]};
    cuzk_rpc_pem key = {pem[2], what[2], path[2]};
    if (cuzk_rpc_pem_check(pem[1] ? &cert : NULL, pem[2] ? &key : NULL, pem[0] ? &ca : NULL, err,
                           sizeof err)) {
        fprintf(stderr, "cuzk-bench: %s\n", err);
        return -1;
    }
    return 0;
}

cuzk_rpc_client *client_open(const char *addr)
{
    if (!addr) addr = default_addr();
    char buf[512]; /* http(s)://host:port[/] is host:port, https:// with TLS */
    bool https = !strncmp(addr, "https://", 8), http = !strncmp(addr, "http://", 7);
    bool tls = https || tls_files.ca || tls_files.cert || tls_files.key;
    if (http || https) {
        snprintf(buf, sizeof buf, "%s", addr + (https ? 8 : 7));
        size_t n = strlen(buf);
        if (n && buf[n - 1] == '/') buf[n - 1] = 0;
    } else {
        snprintf(buf, sizeof buf, "%s", addr);
    }
    if (tls && (http || !strncmp(buf, "unix:", 5) || buf[0] == '/')) {
        fprintf(stderr, "cuzk-bench: --tls-* with %s: %s\n", addr,
                http ? "http:// is plain text; write https://host:port (or host:port)"
                     : "TLS is for TCP; a unix socket's access is its file mode");
        return NULL;
    }
    char *pem[3] = {NULL, NULL, NULL};
    if (tls && tls_load(pem)) {
        for (int k = 0; k < 3; k++)
            free(pem[k]);
        return NULL;
    }
    cuzk_rpc_tls t = {pem[0], pem[1], pem[2]};
    cuzk_rpc_client *c = cuzk_rpc_client_open_tls(buf, tls ? &t : NULL);
    if (pem[2]) OPENSSL_cleanse(pem[2], strlen(pem[2]));
    for (int k = 0; k < 3; k++)
        free(pem[k]);
    if (!c && tls)
        fprintf(stderr, "cuzk-bench: gRPC could not make TLS credentials for '%s'%s\n", buf,
                tls_files.ca ? "" : " (no --tls-ca, and gRPC found no default roots)");
    else if (!c)
        fprintf(stderr, "bad daemon address '%s' (unix:///path, /path or host:port)\n", addr);
    return c;
}

int client_prove(cuzk_rpc_client *c, const Cuzk__V1__SubmitProofRequest *m, uint64_t timeout_ms,
                 Cuzk__V1__ProveResponse **resp, char *err, size_t err_len)
{
    Cuzk__V1__ProveRequest req = CUZK__V1__PROVE_REQUEST__INIT;
    req.submit = (Cuzk__V1__SubmitProofRequest *)m;
    ProtobufCMessage *out = NULL;
    int code = cuzk_rpc_call(c, CUZK_RPC_PROVE, &req.base, &cuzk__v1__prove_response__descriptor, &out,
                             timeout_ms, err, err_len);
    *resp = (Cuzk__V1__ProveResponse *)out;
    if (code == 0 && !(*resp)->result) {
        cuzk_errf(err, err_len, 0, "ProveResponse without result");
        protobuf_c_message_free_unpacked(out, NULL);
        *resp = NULL;
        return 13;
    }
    return code;
}

const char *client_status_name(int s)
{
    static const char *const n[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"};
    return s >= 0 && s < 5 ? n[s] : "?";
}

void client_print_result(const Cuzk__V1__AwaitProofResponse *r)
{
    printf("job %s: %s", r->job_id, client_status_name(r->status));
    if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED)
        printf(" (%zu proof bytes)", r->proof.len);
    if (*r->error_message) printf(": %s", r->error_message);
    printf("\n  queue_wait %llu ms | srs_load %llu ms | synthesis %llu ms | prove %llu ms | total %llu ms\n",
           (unsigned long long)r->queue_wait_ms, (unsigned long long)r->srs_load_ms,
           (unsigned long long)r->synthesis_ms, (unsigned long long)r->gpu_compute_ms,
           (unsigned long long)r->total_ms);
}
