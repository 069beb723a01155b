/* libFuzzer harness: decoding of cuzk.v1 requests as the daemon does it.
 * Every input is unpacked as each of the eight request messages
 * (protobuf-c, as server.c does with what gRPC hands it); a
 * SubmitProofRequest (bare or inside a ProveRequest) then goes through
 * cuzk_srv_request_from_wire, the validation the server applies before the
 * engine sees anything, and is re-packed: unpack(pack(m)) must succeed and
 * pack to the same bytes.  Invariants are checked with abort(): a finding,
 * not an input error.
 *
 * libFuzzer build (clang): besides tests/fuzz/run.sh's CFLAGS it needs
 *   -I<build>/gen -Isrc/server $(pkg-config --cflags grpc) <build>/gen/cuzk/v1/proving.pb-c.c
 *   src/server/wire.c -lprotobuf-c
 * (no gRPC or engine code is linked: wire.c holds what is exercised).
 * With -DCUZK_FUZZ_STANDALONE (the CMake target fuzz_request_smoke) it is a
 * plain program that runs seed messages and random mutations of them
 * (gcc, no libFuzzer): `fuzz_request_smoke [ITERATIONS] [SEED]`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server_internal.h"

static const ProtobufCMessageDescriptor *const descs[] = {
    &cuzk__v1__submit_proof_request__descriptor,  &cuzk__v1__await_proof_request__descriptor,
    &cuzk__v1__prove_request__descriptor,         &cuzk__v1__cancel_proof_request__descriptor,
    &cuzk__v1__get_status_request__descriptor,    &cuzk__v1__get_metrics_request__descriptor,
    &cuzk__v1__preload_srs_request__descriptor,   &cuzk__v1__evict_srs_request__descriptor,
};

static void check_submit(const Cuzk__V1__SubmitProofRequest *m)
{
    size_t n = m->n_vanilla_proofs ? m->n_vanilla_proofs : 1;
    const uint8_t **vp = malloc(n * sizeof *vp);
    size_t *vl = malloc(n * sizeof *vl);
    if (!vp || !vl) abort();
    cuzk_engine_request r;
    char err[256];
    err[0] = 0;
    if (cuzk_srv_request_from_wire(&r, m, vp, vl, err, sizeof err) == 0) {
        /* accepted: every invariant the engine relies on holds */
        if (strlen(r.request_id) >= CUZK_JOB_ID_MAX) abort();
        if ((int)r.kind < 0 || (int)r.kind >= CUZK_PROOF_KINDS) abort();
        if ((int)r.priority < 0 || (int)r.priority > CUZK_PRIO_CRITICAL) abort();
        if (r.n_vanilla_proofs != m->n_vanilla_proofs) abort();
        for (size_t i = 0; i < r.n_vanilla_proofs; i++)
            if (r.vanilla_proofs_len[i] != m->vanilla_proofs[i].len) abort();
    } else if (!err[0]) {
        abort(); /* a rejection always says why */
    }
    free(vp);
    free(vl);
}

/* Only for messages without unknown fields: protobuf-c keeps unknown
 * fields it accepted with a non-minimal tag (e.g. field 0 as 80 00) and
 * re-packs them in a form its own decoder rejects -- harmless for us (the
 * daemon never re-packs requests), so not a finding. */
static void round_trip(const ProtobufCMessage *m)
{
    if (m->n_unknown_fields) return;
    if (m->descriptor == &cuzk__v1__prove_request__descriptor) {
        const Cuzk__V1__ProveRequest *p = (const Cuzk__V1__ProveRequest *)m;
        if (p->submit && p->submit->base.n_unknown_fields) return;
    }
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *a = malloc(n ? n : 1), *b;
    if (!a) abort();
    if (protobuf_c_message_pack(m, a) != n) abort();
    ProtobufCMessage *m2 = protobuf_c_message_unpack(m->descriptor, NULL, n, a);
    if (!m2) abort();
    size_t n2 = protobuf_c_message_get_packed_size(m2);
    b = malloc(n2 ? n2 : 1);
    if (!b || n2 != n || protobuf_c_message_pack(m2, b) != n || memcmp(a, b, n)) abort();
    protobuf_c_message_free_unpacked(m2, NULL);
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    for (size_t d = 0; d < sizeof descs / sizeof descs[0]; d++) {
        ProtobufCMessage *m = cuzk_rpc_unpack_bytes(descs[d], data, size, err, sizeof err);
        if (!m) {
            if (!strstr(err, descs[d]->name)) abort();
            continue;
        }
        if (descs[d] == &cuzk__v1__submit_proof_request__descriptor)
            check_submit((const Cuzk__V1__SubmitProofRequest *)m);
        if (descs[d] == &cuzk__v1__prove_request__descriptor && ((Cuzk__V1__ProveRequest *)m)->submit)
            check_submit(((Cuzk__V1__ProveRequest *)m)->submit);
        round_trip(m);
        protobuf_c_message_free_unpacked(m, NULL);
    }
    return 0;
}

#ifdef CUZK_FUZZ_STANDALONE
static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
    if (argc > 2) rng = strtoull(argv[2], NULL, 0) | 1;
    printf("fuzz_request_smoke: %lu iterations, seed %llu\n", iters, (unsigned long long)rng);
    /* seeds: a full SubmitProofRequest, a ProveRequest around it, an await */
    Cuzk__V1__SubmitProofRequest s = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    uint8_t v[3][40], rnd[32], c[32];
    memset(v, 7, sizeof v);
    memset(rnd, 1, 32);
    memset(c, 2, 32);
    ProtobufCBinaryData vp[3] = {{40, v[0]}, {40, v[1]}, {40, v[2]}};
    s.request_id = (char *)"wdpost-1000-0-abc";
    s.proof_kind = CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION;
    s.sector_size = 2048;
    s.registered_proof = 10;
    s.priority = CUZK__V1__PRIORITY__HIGH;
    s.n_vanilla_proofs = 3;
    s.vanilla_proofs = vp;
    s.randomness = (ProtobufCBinaryData){32, rnd};
    s.comm_r_old = (ProtobufCBinaryData){32, c};
    s.miner_id = 1000;
    s.partition_index = 2;
    Cuzk__V1__ProveRequest p = CUZK__V1__PROVE_REQUEST__INIT;
    p.submit = &s;
    Cuzk__V1__AwaitProofRequest a = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    a.job_id = (char *)"job";
    a.timeout_ms = 1000;
    const ProtobufCMessage *seeds[3] = {&s.base, &p.base, &a.base};
    uint8_t buf[4096];
    for (unsigned long it = 0; it < iters; it++) {
        const ProtobufCMessage *sd = seeds[it % 3];
        size_t n = protobuf_c_message_pack(sd, buf);
        unsigned flips = (unsigned)(next() % 8);
        for (unsigned f = 0; f < flips && n; f++) {
            switch (next() % 3) {
            case 0: buf[next() % n] ^= (uint8_t)(1u << (next() % 8)); break;
            case 1: buf[next() % n] = (uint8_t)next(); break;
            default: n = (size_t)(next() % (n + 1)); break; /* truncate */
            }
        }
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("fuzz_request_smoke: OK\n");
    return 0;
}
#endif
