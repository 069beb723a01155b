/* Option parsing and request building shared by the client commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client.h"

double client_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void client_req_init(client_req *r)
{
    memset(r, 0, sizeof *r);
    cuzk__v1__submit_proof_request__init(&r->m);
}

void client_req_free(client_req *r)
{
    for (size_t i = 0; i < r->m.n_vanilla_proofs; i++)
        free(r->vp[i].data);
    if (r->m.vanilla_proof.data) free(r->m.vanilla_proof.data);
    client_req_init(r);
}

static int read_file(ProtobufCBinaryData *out, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    out->data = malloc(n > 0 ? (size_t)n : 1);
    out->len = n > 0 ? (size_t)n : 0;
    if (!out->data || fread(out->data, 1, out->len, f) != out->len) {
        fprintf(stderr, "cannot read %s\n", path);
        fclose(f);
        free(out->data);
        out->data = NULL;
        return -1;
    }
    fclose(f);
    return 0;
}

static int parse_hex32(uint8_t out[32], const char *s, const char *what)
{
    if (strlen(s) != 64) {
        fprintf(stderr, "%s: expected 64 hex digits, got %zu characters\n", what, strlen(s));
        return -1;
    }
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) {
            fprintf(stderr, "%s: not hex at position %d\n", what, 2 * i);
            return -1;
        }
        out[i] = (uint8_t)v;
    }
    return 0;
}

static int parse_u64(uint64_t *out, const char *s, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || *s == '-') {
        fprintf(stderr, "%s: expected an unsigned integer, got '%s'\n", what, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_sector_size(uint64_t *out, const char *s)
{
    static const struct {
        const char *n;
        uint64_t v;
    } t[] = {{"2KiB", 2048},
             {"8MiB", 8u << 20},
             {"512MiB", 512u << 20},
             {"32GiB", 32ull << 30},
             {"64GiB", 64ull << 30}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp(s, t[i].n)) {
            *out = t[i].v;
            return 0;
        }
    return parse_u64(out, s, "--sector-size");
}

/* Our names, the proto enum names and the Rust cuzk-bench's -t/--type names. */
static int kind_from_name(const char *s)
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
        int k = kind_from_name(v);
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
        if (r->m.n_vanilla_proofs >= sizeof r->vp / sizeof r->vp[0]) {
            fprintf(stderr, "--vanilla: at most 64 files\n");
            return -1;
        }
        if (read_file(&r->vp[r->m.n_vanilla_proofs], v)) return -1;
        r->m.n_vanilla_proofs++;
        r->m.vanilla_proofs = r->vp;
    } else if (!strcmp(a, "--c1")) { /* PoRep: the C1 output (envelope or bare JSON) as vanilla_proof */
        free(r->m.vanilla_proof.data);
        r->m.vanilla_proof.data = NULL;
        if (read_file(&r->m.vanilla_proof, v)) return -1;
        if (!r->kind_name[0]) {
            r->m.proof_kind = (Cuzk__V1__ProofKind)1;
            snprintf(r->kind_name, sizeof r->kind_name, "porep");
        }
    } else if (!strcmp(a, "--vanilla-text")) {
        free(r->m.vanilla_proof.data);
        r->m.vanilla_proof.data = (uint8_t *)strdup(v);
        r->m.vanilla_proof.len = strlen(v);
    } else if (!strcmp(a, "--sector-size")) {
        if (parse_sector_size(&r->m.sector_size, v)) return -1;
    } else if (!strcmp(a, "--registered-proof")) {
        if (parse_u64(&r->m.registered_proof, v, a)) return -1;
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
        if (parse_u64(&r->m.sector_number, v, a)) return -1;
    } else if (!strcmp(a, "--miner-id")) {
        if (parse_u64(&r->m.miner_id, v, a)) return -1;
    } else if (!strcmp(a, "--randomness")) {
        if (parse_hex32(r->rnd, v, a)) return -1;
        r->m.randomness.data = r->rnd;
        r->m.randomness.len = 32;
    } else if (!strcmp(a, "--comm-r-old") || !strcmp(a, "--comm-r-new") || !strcmp(a, "--comm-d-new")) {
        /* SnapDeals: the three commitments, 32 bytes each as stored */
        int k = !strcmp(a, "--comm-r-old") ? 0 : !strcmp(a, "--comm-r-new") ? 1 : 2;
        if (parse_hex32(r->comm[k], v, a)) return -1;
        ProtobufCBinaryData *f = k == 0 ? &r->m.comm_r_old : k == 1 ? &r->m.comm_r_new : &r->m.comm_d_new;
        f->data = r->comm[k];
        f->len = 32;
    } else if (!strcmp(a, "--partition")) {
        if (parse_u64(&u, v, a) || u > UINT32_MAX) return -1;
        r->m.partition_index = (uint32_t)u;
    }
    return 1;
}

int client_req_check(const client_req *r)
{
    if (!r->kind_name[0]) {
        fprintf(stderr, "--kind is required (winning-post, window-post, porep, snap, test)\n");
        return -1;
    }
    if (!r->m.n_vanilla_proofs && !r->m.vanilla_proof.len) {
        fprintf(stderr,
                "no input: give --c1 FILE (PoRep), --vanilla FILE (PoSt: one per sector) or --vanilla-text "
                "STR (test kind)\n");
        return -1;
    }
    return 0;
}

cuzk_rpc_client *client_open(const char *addr)
{
    if (!addr) addr = getenv("CUZK_ADDR");
    if (!addr || !*addr) addr = CLIENT_DEFAULT_ADDR;
    char buf[512]; /* the Rust bench's http(s)://host:port[/] is host:port here */
    const char *p = !strncmp(addr, "http://", 7) ? addr + 7 : !strncmp(addr, "https://", 8) ? addr + 8 : NULL;
    if (p) {
        snprintf(buf, sizeof buf, "%s", p);
        size_t n = strlen(buf);
        if (n && buf[n - 1] == '/') buf[n - 1] = 0;
        addr = buf;
    }
    cuzk_rpc_client *c = cuzk_rpc_client_open(addr);
    if (!c) fprintf(stderr, "bad daemon address '%s' (unix:///path, /path or host:port)\n", addr);
    return c;
}

int client_prove(cuzk_rpc_client *c, const Cuzk__V1__SubmitProofRequest *m, uint64_t timeout_ms,
                 Cuzk__V1__ProveResponse **resp, char *err, size_t errlen)
{
    Cuzk__V1__ProveRequest req = CUZK__V1__PROVE_REQUEST__INIT;
    req.submit = (Cuzk__V1__SubmitProofRequest *)m;
    ProtobufCMessage *out = NULL;
    int code = cuzk_rpc_call(c, CUZK_RPC_PROVE, &req.base, &cuzk__v1__prove_response__descriptor, &out,
                             timeout_ms, err, errlen);
    *resp = (Cuzk__V1__ProveResponse *)out;
    if (code == 0 && !(*resp)->result) {
        snprintf(err, errlen, "ProveResponse without result");
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
