/* Wire decoding and request validation without gRPC or the engine at link
 * time: the fuzz harness (tests/fuzz/fuzz_request.c) builds from this file,
 * the generated proving.pb-c.c and protobuf-c alone. */
#include <stdio.h>
#include <string.h>

#include "server_internal.h"

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

