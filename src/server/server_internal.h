/* Between server.c (transport) and server_rpc.c (the eight handlers). */
#ifndef CUZK_SERVER_INTERNAL_H
#define CUZK_SERVER_INTERNAL_H

#include "cuzk/engine.h"
#include "rpc.h"

enum { M_SUBMIT, M_AWAIT, M_PROVE, M_CANCEL, M_STATUS, M_METRICS, M_PRELOAD, M_EVICT, M_COUNT };

typedef struct srv_call srv_call;
cuzk_engine *cuzk_srv_engine(const srv_call *c);
const ProtobufCMessage *cuzk_srv_request(const srv_call *c);
/* Frees the decoded request early (Prove: the engine holds its own copy of
 * the inputs while the call waits).  cuzk_srv_request is NULL afterwards. */
void cuzk_srv_drop_request(srv_call *c);
/* Set by the completion-queue thread when the client cancels or its
 * deadline passes. */
const atomic_int *cuzk_srv_abandon_flag(const srv_call *c);
/* Completes the call: status code (grpc_status_code), message, and the
 * response (sent only with OK).  The call must not be touched afterwards. */
void cuzk_srv_reply(srv_call *c, int code, const char *msg, const ProtobufCMessage *resp);

void cuzk_srv_handle_submit(srv_call *c);
void cuzk_srv_handle_await(srv_call *c);
void cuzk_srv_handle_prove(srv_call *c);
void cuzk_srv_handle_cancel(srv_call *c);
void cuzk_srv_handle_status(srv_call *c);
void cuzk_srv_handle_metrics(srv_call *c);
void cuzk_srv_handle_preload(srv_call *c);
void cuzk_srv_handle_evict(srv_call *c);


/* Request validation and conversion, shared with the fuzz harness: checks
 * what the wire allows but the engine must not see (enum ranges, id
 * length, 32-byte commitments) and fills r pointing into m.  0, or
 * CUZK_ERR_ARG with a precise message. */
int cuzk_srv_request_from_wire(cuzk_engine_request *r, const Cuzk__V1__SubmitProofRequest *m, const uint8_t **vp,
                          size_t *vl, char *err, size_t err_len);

#endif
