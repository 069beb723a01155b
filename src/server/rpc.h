/* gRPC C core + protobuf-c glue for cuzk.v1.ProvingEngine.
 *
 * gRPC's C core has no generated stubs for C: messages travel as opaque
 * grpc_byte_buffers and protobuf-c packs/unpacks them.  This file holds
 * that conversion (used by the server, the client commands and the fuzz
 * harness) and a minimal blocking unary client.  The client is
 * thread-safe: one cuzk_rpc_client may be shared by many threads, each
 * call uses its own completion queue. */
#ifndef CUZK_SERVER_RPC_H
#define CUZK_SERVER_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <grpc/grpc.h>
#include <grpc/byte_buffer.h>
#include <protobuf-c/protobuf-c.h>

#include "cuzk/status.h"
#include "cuzk/v1/proving.pb-c.h"

/* Both directions: Curio's client allows 256 MiB; a 32 GiB PoRep C2 input
 * is ~50-60 MB, so gRPC's 4 MiB default would reject real requests. */
#define CUZK_RPC_MAX_MESSAGE (256u * 1024 * 1024)

/* Method paths, "/cuzk.v1.ProvingEngine/<Method>". */
#define CUZK_RPC_SUBMIT "/cuzk.v1.ProvingEngine/SubmitProof"
#define CUZK_RPC_AWAIT "/cuzk.v1.ProvingEngine/AwaitProof"
#define CUZK_RPC_PROVE "/cuzk.v1.ProvingEngine/Prove"
#define CUZK_RPC_CANCEL "/cuzk.v1.ProvingEngine/CancelProof"
#define CUZK_RPC_STATUS "/cuzk.v1.ProvingEngine/GetStatus"
#define CUZK_RPC_METRICS "/cuzk.v1.ProvingEngine/GetMetrics"
#define CUZK_RPC_PRELOAD "/cuzk.v1.ProvingEngine/PreloadSRS"
#define CUZK_RPC_EVICT "/cuzk.v1.ProvingEngine/EvictSRS"

/* Packs m into a new byte buffer (NULL if out of memory). */
grpc_byte_buffer *cuzk_rpc_pack(const ProtobufCMessage *m);

/* Unpacks bb as a message of type d.  NULL on a malformed message; err gets
 * a precise reason.  Free with protobuf_c_message_free_unpacked(m, NULL). */
ProtobufCMessage *cuzk_rpc_unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb, char *err,
                                  size_t err_len);

/* Same from flat bytes (the fuzz harness uses this). */
ProtobufCMessage *cuzk_rpc_unpack_bytes(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                                        char *err, size_t err_len);

/* Decoding within a memory budget (wire.c explains the costs).
 * cuzk_rpc_decode_bound: without allocating, the most memory decoding
 * buf as d takes through a cuzk_rpc_budget (every block at malloc's chunk
 * size); CUZK_ERR_FORMAT with the reason if buf is not a valid encoding.
 * cuzk_rpc_unpack_budget: unpack with allocations counted in b and refused
 * beyond b->limit: NULL then, CUZK_ERR_NOMEM's message in err ("needed
 * more than the N bytes reserved"), nothing left allocated.  Free the
 * message with cuzk_rpc_free_budget and the same b (b must outlive it;
 * one thread at a time). */
typedef struct cuzk_rpc_budget {
    ProtobufCAllocator a;
    uint64_t limit, used, peak;
    bool exhausted;
} cuzk_rpc_budget;
void cuzk_rpc_budget_init(cuzk_rpc_budget *b, uint64_t limit);
int cuzk_rpc_decode_bound(uint64_t *bound, const ProtobufCMessageDescriptor *d, const uint8_t *buf,
                          size_t len, char *err, size_t err_len);
ProtobufCMessage *cuzk_rpc_unpack_budget(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                                         cuzk_rpc_budget *b, char *err, size_t err_len);
void cuzk_rpc_free_budget(ProtobufCMessage *m, cuzk_rpc_budget *b);

/* Address as written by users -> gRPC target: "unix:///p", "unix:/p" and
 * "host:port" pass through, a bare absolute path "/p" becomes "unix:/p".
 * Returns 0, or -1 if it does not fit or is empty. */
int cuzk_rpc_target(char *out, size_t outlen, const char *addr);

/* PEM files for TLS (rpc_tls.c).  cuzk_rpc_pem_read: the whole file (at
 * most 1 MiB) as a NUL-terminated malloc'd string; messages name the file
 * as what ("daemon.tls_cert", "--tls-ca").  cuzk_rpc_pem_check: each given
 * text (NULL = not checked) parses -- cert and ca as a certificate, key as
 * an unencrypted private key -- and key is cert's; CUZK_ERR_FORMAT naming
 * the file otherwise. */
typedef struct cuzk_rpc_pem {
    const char *text, *what, *path;
} cuzk_rpc_pem;
CUZK_MUST_CHECK int cuzk_rpc_pem_read(char **out, const char *what, const char *path, char *err,
                                     size_t err_len);
CUZK_MUST_CHECK int cuzk_rpc_pem_check(const cuzk_rpc_pem *cert, const cuzk_rpc_pem *key, const cuzk_rpc_pem *ca,
                                      char *err, size_t err_len);

typedef struct cuzk_rpc_client cuzk_rpc_client;

/* Opens a channel to addr (see cuzk_rpc_target); never fails on an
 * unreachable server -- calls report UNAVAILABLE.  NULL on bad address. */
cuzk_rpc_client *cuzk_rpc_client_open(const char *addr);
/* The same over TLS (tls NULL: plain text): root_pem the CA(s) the
 * server's certificate must chain to (NULL: gRPC's default roots),
 * cert_pem/key_pem the client certificate and key (both or neither).
 * NULL also when gRPC cannot make the credentials. */
typedef struct cuzk_rpc_tls {
    const char *root_pem, *cert_pem, *key_pem;
} cuzk_rpc_tls;
cuzk_rpc_client *cuzk_rpc_client_open_tls(const char *addr, const cuzk_rpc_tls *tls);
void cuzk_rpc_client_close(cuzk_rpc_client *c);

/* One unary call.  timeout_ms 0 = no deadline.  Returns the gRPC status
 * code (GRPC_STATUS_OK = 0) and on OK *resp (free with
 * protobuf_c_message_free_unpacked); otherwise err holds the server's
 * message (or a local reason). */
int cuzk_rpc_call(cuzk_rpc_client *c, const char *method, const ProtobufCMessage *req,
                  const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp, uint64_t timeout_ms,
                  char *err, size_t err_len);

/* Name of a gRPC status code ("NOT_FOUND", ...). */
const char *cuzk_rpc_code_name(int code);

#endif
