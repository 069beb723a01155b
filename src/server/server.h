/* The cuzk.v1.ProvingEngine gRPC server over a cuzk_engine.
 *
 * Threads.  One completion-queue thread owns the gRPC server: it accepts
 * calls for the eight registered methods, decodes them with protobuf-c and
 * answers the cheap ones (CancelProof, GetStatus, GetMetrics, EvictSRS)
 * inline -- each takes the engine lock for microseconds.  Calls that may
 * wait (SubmitProof parses inputs, AwaitProof, Prove, PreloadSRS) go to a
 * detached handler thread each; the thread blocks in the engine and then
 * completes its call with grpc_call_start_batch, which is thread-safe per
 * call.  So the completion-queue thread never blocks on heavy work.
 *
 * Client cancellation.  Every call also has RECV_CLOSE_ON_SERVER pending;
 * when it reports "cancelled" (client cancel, deadline, disconnect) the cq
 * thread sets the call's abandon flag, which cuzk_engine_await_ex polls:
 * a Prove then cancels its job unless another caller waits on it.
 *
 * Shutdown (cuzk_server_stop): gRPC stops accepting new calls, the engine
 * finishes in-flight work within the grace period (or cancels it) and
 * answers every waiter, handler threads send those answers, then the
 * server and its completion queue are torn down.
 *
 * Single instance: for a unix socket, an exclusive flock on "<socket>.lock"
 * is taken BEFORE the socket is (re)bound, so a second daemon fails
 * instead of stealing a live socket.  TCP ports are bound without
 * SO_REUSEPORT for the same reason. */
#ifndef CUZK_SERVER_SERVER_H
#define CUZK_SERVER_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "cuzk/engine.h"

typedef struct cuzk_server cuzk_server;

/* Takes the lock, binds cfg->listen (and cfg->status_listen for HTTP),
 * starts serving.  The engine must outlive the server.  0 or -1 with err. */
int cuzk_server_start(cuzk_server **out, cuzk_engine *e, const cuzk_daemon_config *cfg, char *err, size_t errlen);

/* The bound gRPC port for TCP listeners (0 for unix sockets); the HTTP port
 * (0 if none).  Useful with "host:0". */
int cuzk_server_port(const cuzk_server *s);
int cuzk_server_http_port(const cuzk_server *s);

/* Graceful stop as described above (grace_ms for in-flight jobs), then free.
 * The engine is shut down but not destroyed. */
void cuzk_server_stop(cuzk_server *s, uint32_t grace_ms);

/* HTTP status listener (http.c): GET /metrics, /status, /config. */
typedef struct cuzk_http cuzk_http;
int cuzk_http_start(cuzk_http **out, cuzk_engine *e, const cuzk_daemon_config *cfg, char *err, size_t errlen);
int cuzk_http_port(const cuzk_http *h);
void cuzk_http_stop(cuzk_http *h);

#endif
