/* gRPC C core + protobuf-c glue; see rpc.h. */
#include "rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "cuzk/status.h"

grpc_byte_buffer *cuzk_rpc_pack(const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    grpc_slice s = grpc_slice_malloc(n);
    protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

ProtobufCMessage *cuzk_rpc_unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb, char *err,
                                  size_t err_len)
{
    if (!bb) {
        cuzk_errf(err, err_len, 0, "no %s message received", d->name);
        return NULL;
    }
    grpc_byte_buffer_reader r;
    if (!grpc_byte_buffer_reader_init(&r, bb)) {
        cuzk_errf(err, err_len, 0, "cannot read the %s message (compression?)", d->name);
        return NULL;
    }
    grpc_slice s = grpc_byte_buffer_reader_readall(&r);
    grpc_byte_buffer_reader_destroy(&r);
    ProtobufCMessage *m =
        cuzk_rpc_unpack_bytes(d, GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s), err, err_len);
    grpc_slice_unref(s);
    return m;
}

int cuzk_rpc_target(char *out, size_t outlen, const char *addr)
{
    if (!addr || !*addr) return -1;
    int n = addr[0] == '/' ? snprintf(out, outlen, "unix:%s", addr) : snprintf(out, outlen, "%s", addr);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

struct cuzk_rpc_client {
    grpc_channel *ch;
};

cuzk_rpc_client *cuzk_rpc_client_open(const char *addr)
{
    return cuzk_rpc_client_open_tls(addr, NULL);
}

cuzk_rpc_client *cuzk_rpc_client_open_tls(const char *addr, const cuzk_rpc_tls *tls)
{
    char target[512];
    if (cuzk_rpc_target(target, sizeof target, addr)) return NULL;
    cuzk_rpc_client *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    grpc_init();
    grpc_arg a[2];
    a[0].type = a[1].type = GRPC_ARG_INTEGER;
    a[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    a[1].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    a[0].value.integer = a[1].value.integer = (int)CUZK_RPC_MAX_MESSAGE;
    grpc_channel_args args = {2, a};
    grpc_ssl_pem_key_cert_pair pair = {tls ? tls->key_pem : NULL, tls ? tls->cert_pem : NULL};
    grpc_channel_credentials *cr =
        !tls ? grpc_insecure_credentials_create()
             : grpc_ssl_credentials_create(tls->root_pem, tls->cert_pem ? &pair : NULL, NULL, NULL);
    c->ch = cr ? grpc_channel_create(target, cr, &args) : NULL;
    if (cr) grpc_channel_credentials_release(cr);
    if (!c->ch) {
        free(c);
        grpc_shutdown();
        return NULL;
    }
    return c;
}

void cuzk_rpc_client_close(cuzk_rpc_client *c)
{
    if (!c) return;
    grpc_channel_destroy(c->ch);
    free(c);
    grpc_shutdown();
}

int cuzk_rpc_call(cuzk_rpc_client *c, const char *method, const ProtobufCMessage *req,
                  const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp, uint64_t timeout_ms,
                  char *err, size_t err_len)
{
    *resp = NULL;
    if (err && err_len) err[0] = 0;
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    gpr_timespec deadline = timeout_ms
        ? gpr_time_add(gpr_now(GPR_CLOCK_REALTIME), gpr_time_from_millis((int64_t)timeout_ms, GPR_TIMESPAN))
        : gpr_inf_future(GPR_CLOCK_REALTIME);
    grpc_slice mslice = grpc_slice_from_static_string(method);
    grpc_call *call = grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, mslice, NULL, deadline, NULL);
    grpc_slice_unref(mslice);

    grpc_byte_buffer *out = cuzk_rpc_pack(req), *in = NULL;
    grpc_metadata_array md_init, md_trail;
    grpc_metadata_array_init(&md_init);
    grpc_metadata_array_init(&md_trail);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = out;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &md_init;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &in;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &md_trail;
    ops[5].data.recv_status_on_client.status = &status;
    ops[5].data.recv_status_on_client.status_details = &details;
    int rc;
    if (grpc_call_start_batch(call, ops, 6, (void *)1, NULL) != GRPC_CALL_OK) {
        rc = GRPC_STATUS_INTERNAL;
        cuzk_errf(err, err_len, 0, "grpc_call_start_batch failed");
    } else {
        grpc_event ev = grpc_completion_queue_pluck(cq, (void *)1, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        rc = (int)status;
        if (ev.type != GRPC_OP_COMPLETE) {
            rc = GRPC_STATUS_INTERNAL;
            cuzk_errf(err, err_len, 0, "call did not complete");
        } else if (status != GRPC_STATUS_OK) {
            if (err) {
                char *d = grpc_slice_to_c_string(details);
                cuzk_errf(err, err_len, 0, "%s", d);
                gpr_free(d);
            }
        } else {
            *resp = cuzk_rpc_unpack(resp_desc, in, err, err_len);
            if (!*resp) rc = GRPC_STATUS_INTERNAL;
        }
    }
    if (in) grpc_byte_buffer_destroy(in);
    grpc_byte_buffer_destroy(out);
    grpc_slice_unref(details);
    grpc_metadata_array_destroy(&md_init);
    grpc_metadata_array_destroy(&md_trail);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(cq);
    return rc;
}

const char *cuzk_rpc_code_name(int code)
{
    static const char *const names[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
                                        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
                                        "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
                                        "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
    return code >= 0 && code < (int)(sizeof names / sizeof names[0]) ? names[code] : "?";
}
