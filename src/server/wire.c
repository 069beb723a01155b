/* Wire decoding and request validation without gRPC or the engine at link
 * time: the fuzz harness (tests/fuzz/fuzz_request.c) builds from this file,
 * the generated proving.pb-c.c and protobuf-c alone.
 *
 * Decoding within a budget.  protobuf-c's unpack can take far more memory
 * than its input: it first records every field occurrence in a
 * ScannedMember (32 bytes, in slabs of 16, 32, 64, ... entries), then
 * allocates one array per repeated field (16 bytes a `bytes` entry) and
 * one block per non-empty `bytes` value, each with malloc's own overhead
 * (a 32-byte chunk at least).  `repeated bytes vanilla_proofs` of one-byte
 * entries costs 3 bytes on the wire and ~80 bytes decoded: measured with
 * the allocator below (tests/server/decode_budget.c), 27x for 1-byte
 * entries, 24x for empty ones, the worst of the shapes tried; a 256 MiB
 * message would need ~7 GiB.  So the server asks cuzk_rpc_decode_bound
 * first: one pass over the wire bytes, allocating nothing, that adds up
 * what protobuf-c will allocate for exactly this message (each block at
 * malloc's chunk size, every occurrence counted even where protobuf-c
 * frees an earlier one), charges that to memory.request_budget, and
 * decodes with an allocator that stops at it (cuzk_rpc_unpack_budget):
 * if the bound were ever wrong, the decode fails cleanly instead of
 * growing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server_internal.h"

/* What one block of n bytes costs through cuzk_rpc_budget's allocator: a
 * 16-byte size header, then glibc's chunk (8 bytes of header, 16-byte
 * granularity, 32 at least). */
static uint64_t alloc_cost(uint64_t n)
{
    uint64_t c = (n + 16 + 8 + 15) & ~(uint64_t)15;
    return c < 32 ? 32 : c;
}

static void *budget_alloc(void *data, size_t n)
{
    cuzk_rpc_budget *b = data;
    uint64_t c = alloc_cost(n);
    if (n > SIZE_MAX - 16 || b->used + c > b->limit) {
        b->exhausted = true;
        return NULL;
    }
    uint64_t *p = malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    b->used += c;
    if (b->used > b->peak) b->peak = b->used;
    return p + 2;
}

static void budget_free(void *data, void *ptr)
{
    cuzk_rpc_budget *b = data;
    if (!ptr) return;
    uint64_t *p = (uint64_t *)ptr - 2;
    b->used -= alloc_cost(p[0]);
    free(p);
}

void cuzk_rpc_budget_init(cuzk_rpc_budget *b, uint64_t limit)
{
    memset(b, 0, sizeof *b);
    b->limit = limit;
    b->a.alloc = budget_alloc;
    b->a.free = budget_free;
    b->a.allocator_data = b;
}

ProtobufCMessage *cuzk_rpc_unpack_budget(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                                         cuzk_rpc_budget *b, char *err, size_t err_len)
{
    ProtobufCMessage *m = protobuf_c_message_unpack(d, &b->a, len, buf);
    if (m) return m;
    if (b->exhausted)
        cuzk_errf(err, err_len, CUZK_ERR_NOMEM,
                  "decoding the %s message (%zu bytes) needed more than the %llu bytes reserved for it",
                  d->name, len, (unsigned long long)b->limit);
    else
        cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                  "malformed %s message (%zu bytes): not a valid protobuf encoding", d->name, len);
    return NULL;
}

void cuzk_rpc_free_budget(ProtobufCMessage *m, cuzk_rpc_budget *b)
{
    if (m) protobuf_c_message_free_unpacked(m, &b->a);
}

/* ---- the bound ------------------------------------------------------------ */

#define BOUND_MAX_DEPTH 32
#define SCANNED_MEMBER_BYTES 32 /* protobuf-c 1.4's ScannedMember */

typedef struct {
    const uint8_t *p, *end;
} rd;

static int rd_varint(rd *r, uint64_t *v, int max_bytes)
{
    *v = 0;
    for (int i = 0; i < max_bytes && r->p < r->end; i++) {
        uint8_t c = *r->p++;
        if (i < 10) *v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) return 0;
    }
    return -1;
}

/* The ScannedMember slabs protobuf-c allocates for n field occurrences
 * (the first 16 live on its stack; then slabs of 32, 64, ... entries). */
static uint64_t slab_cost(uint64_t n)
{
    uint64_t c = 0;
    for (uint64_t have = 16, k = 1; have < n; k++) {
        c += alloc_cost((uint64_t)SCANNED_MEMBER_BYTES << (k + 4));
        have += (uint64_t)16 << k;
    }
    return c;
}

static uint64_t elt_size(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    default:
        return 4; /* enums, 32-bit ints, float, protobuf_c_boolean */
    }
}

static int bound_message(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len, int depth,
                         uint64_t *out, char *err, size_t err_len);

/* One occurrence of field f (NULL: unknown) with payload [p, p + n). */
static int bound_field(const ProtobufCFieldDescriptor *f, unsigned wt, const uint8_t *p, uint64_t n,
                       int depth, uint64_t *cost, uint64_t *elems, char *err, size_t err_len)
{
    if (!f) { /* unknown: kept, its bytes copied */
        *cost += alloc_cost(n);
        return 0;
    }
    bool rep = f->label == PROTOBUF_C_LABEL_REPEATED;
    if (rep && wt == 2 && f->type != PROTOBUF_C_TYPE_BYTES && f->type != PROTOBUF_C_TYPE_STRING &&
        f->type != PROTOBUF_C_TYPE_MESSAGE) {
        elems[0] += n; /* packed scalars: at most one element a byte */
        return 0;
    }
    if (rep) elems[0]++;
    if (f->type == PROTOBUF_C_TYPE_BYTES && n) *cost += alloc_cost(n);
    if (f->type == PROTOBUF_C_TYPE_STRING) *cost += alloc_cost(n + 1);
    if (f->type == PROTOBUF_C_TYPE_MESSAGE && wt == 2) {
        uint64_t sub = 0;
        int st = bound_message(f->descriptor, p, (size_t)n, depth + 1, &sub, err, err_len);
        if (st) return st;
        /* a singular message given again is merged: old, new and the merged
         * copy may coexist */
        *cost += rep ? sub : 2 * sub;
    }
    return 0;
}

static int bound_message(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len, int depth,
                         uint64_t *out, char *err, size_t err_len)
{
    if (depth > BOUND_MAX_DEPTH)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: nested deeper than %d", d->name,
                         BOUND_MAX_DEPTH);
    uint64_t cost = alloc_cost(d->sizeof_message), occ = 0, unknown = 0;
    uint64_t elems[64] = {0}; /* per field index: repeated elements */
    if (d->n_fields > 64)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "%s: more than 64 fields", d->name);
    rd r = {buf, buf + len};
    while (r.p < r.end) {
        uint64_t key, n = 0;
        if (rd_varint(&r, &key, 5))
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: bad field tag at byte %td", d->name,
                             r.p - buf);
        unsigned wt = (unsigned)(key & 7);
        const uint8_t *p = r.p, *after_key = r.p;
        if (wt == 0) {
            if (rd_varint(&r, &n, 10))
                return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: bad varint at byte %td", d->name,
                                 p - buf);
            n = (uint64_t)(r.p - p); /* an unknown varint is kept as its bytes */
        } else if (wt == 1 || wt == 5) {
            n = wt == 1 ? 8 : 4;
            if ((uint64_t)(r.end - r.p) < n)
                return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: truncated at byte %td", d->name,
                                 p - buf);
            r.p += n;
        } else if (wt == 2) {
            if (rd_varint(&r, &n, 5) || n > (uint64_t)(r.end - r.p))
                return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: bad length at byte %td", d->name,
                                 p - buf);
            p = r.p;
            r.p += n;
        } else {
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: unsupported wire type %u at byte %td",
                             d->name, wt, p - buf);
        }
        occ++;
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3));
        if (!f) unknown++;
        /* an unknown field is kept with its length prefix */
        uint64_t kept = !f && wt == 2 ? (uint64_t)(r.p - after_key) : n;
        int st =
            bound_field(f, wt, p, f ? n : kept, depth, &cost, f ? &elems[f - d->fields] : NULL, err, err_len);
        if (st) return st;
    }
    for (unsigned i = 0; i < d->n_fields; i++)
        if (elems[i]) cost += alloc_cost(elems[i] * elt_size(d->fields[i].type));
    if (unknown) cost += alloc_cost(unknown * sizeof(ProtobufCMessageUnknownField));
    *out = cost + slab_cost(occ);
    return 0;
}

int cuzk_rpc_decode_bound(uint64_t *bound, const ProtobufCMessageDescriptor *d, const uint8_t *buf,
                          size_t len, char *err, size_t err_len)
{
    *bound = 0;
    return bound_message(d, buf, len, 0, bound, err, err_len);
}

ProtobufCMessage *cuzk_rpc_unpack_bytes(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                                        char *err, size_t err_len)
{
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, len, buf);
    if (!m)
        cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                  "malformed %s message (%zu bytes): not a valid protobuf encoding", d->name, len);
    return m;
}

int cuzk_srv_request_from_wire(cuzk_engine_request *r, const Cuzk__V1__SubmitProofRequest *m,
                               const uint8_t **vp, size_t *vl, char *err, size_t err_len)
{
    memset(r, 0, sizeof *r);
    if (strlen(m->request_id) >= CUZK_JOB_ID_MAX) {
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "request_id is %zu bytes; at most %d allowed",
                         strlen(m->request_id), CUZK_JOB_ID_MAX - 1);
    }
    if ((int)m->proof_kind < 0 || (int)m->proof_kind >= CUZK_PROOF_KINDS) {
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "proof_kind %d is not a ProofKind", (int)m->proof_kind);
    }
    if ((int)m->priority < 0 || (int)m->priority > CUZK_PRIO_CRITICAL) {
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "priority %d is not a Priority (0..4)",
                         (int)m->priority);
    }
    const ProtobufCBinaryData *comm[3] = {&m->comm_r_old, &m->comm_r_new, &m->comm_d_new};
    static const char *const cname[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    for (int i = 0; i < 3; i++)
        if (comm[i]->len && comm[i]->len != 32) {
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s is %zu bytes; a commitment is 32 bytes",
                             cname[i], comm[i]->len);
        }
    r->request_id = m->request_id;
    r->kind = (cuzk_proof_kind)m->proof_kind;
    r->sector_size = m->sector_size;
    r->registered_proof = m->registered_proof;
    r->priority = (cuzk_priority)m->priority;
    r->vanilla_proof = m->vanilla_proof.len ? m->vanilla_proof.data : NULL;
    r->vanilla_proof_len = m->vanilla_proof.len;
    for (size_t i = 0; i < m->n_vanilla_proofs; i++) {
        vp[i] = m->vanilla_proofs[i].data;
        vl[i] = m->vanilla_proofs[i].len;
    }
    r->vanilla_proofs = m->n_vanilla_proofs ? vp : NULL;
    r->vanilla_proofs_len = m->n_vanilla_proofs ? vl : NULL;
    r->n_vanilla_proofs = m->n_vanilla_proofs;
    r->sector_number = m->sector_number;
    r->miner_id = m->miner_id;
    r->randomness = m->randomness.len ? m->randomness.data : NULL;
    r->randomness_len = m->randomness.len;
    r->partition_index = m->partition_index;
    r->comm_r_old = m->comm_r_old.len ? m->comm_r_old.data : NULL;
    r->comm_r_new = m->comm_r_new.len ? m->comm_r_new.data : NULL;
    r->comm_d_new = m->comm_d_new.len ? m->comm_d_new.data : NULL;
    return 0;
}

