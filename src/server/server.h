/* The cuzk.v1.ProvingEngine gRPC server over a cuzk_engine.
 *
 * Threads.  One completion-queue thread owns the gRPC server: it accepts
 * calls for the eight registered methods and hands them on.  The cheap
 * ones (CancelProof, GetStatus, GetMetrics: at most 4 KiB on the wire) it
 * decodes and answers inline: each holds the engine lock only to copy its
 * figures (GetStatus: a walk of the job table, at most
 * scheduler.max_queued_jobs + max_ended_jobs records).  For SubmitProof
 * and Prove it only charges the received bytes to memory.request_budget
 * (refusing RESOURCE_EXHAUSTED what does not fit); they and the other
 * calls that may wait or work (AwaitProof, PreloadSRS loads params,
 * EvictSRS frees them) go to a detached handler thread each, which decodes
 * the message within the budget (wire.c: the bound is charged before
 * protobuf-c allocates), then blocks in the engine (submit parses and
 * verifies natively in one of scheduler.verify_threads slots) and
 * completes its call with grpc_call_start_batch, which is thread-safe per
 * call.  So the completion-queue thread never decodes a large message nor
 * blocks on heavy work.
 *
 * Client cancellation.  Every call also has RECV_CLOSE_ON_SERVER pending;
 * when it reports "cancelled" (client cancel, deadline, disconnect) the cq
 * thread sets the call's abandon flag, which cuzk_engine_await_ex polls:
 * the waiting AwaitProof or Prove call then ends CANCELLED at once, but its
 * job runs on (cancel_if_abandoned is off: only CancelProof cancels a job,
 * so Curio's retry with the same request_id attaches to it and finds its
 * result retained).
 *
 * Shutdown (cuzk_server_stop): gRPC stops accepting new calls, the engine
 * finishes in-flight work within the grace period (or cancels it) and
 * answers every waiter, handler threads send those answers, the calls end
 * (up to 2 s), idle client connections are closed, then the server and its
 * completion queue are torn down.
 *
 * Access (server_access.h): TCP with TLS serves clients with a certificate
 * of daemon.tls_client_ca; plain-text TCP is in protected mode (loopback
 * and daemon.allow_plaintext_from, checked per call in cq_main: others get
 * PERMISSION_DENIED); the unix socket published with daemon.socket_mode/group.
 *
 * A fatal server error (a method that can no longer accept calls) is
 * logged and reported through on_fatal; the daemon then stops the server
 * as for SIGTERM and exits non-zero (cuzk_server_failed).
 *
 * Single instance: for a unix socket, an exclusive flock on "<socket>.lock"
 * is taken BEFORE the socket is (re)bound, so a second daemon fails
 * instead of stealing a live socket.  TCP ports are bound without
 * SO_REUSEPORT for the same reason. */
#ifndef CUZK_SERVER_SERVER_H
#define CUZK_SERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "cuzk/engine.h"
#include "cuzk/status.h"

typedef struct cuzk_server cuzk_server;

/* Who may connect: refuses (CUZK_ERR_ARG and the reason) partial TLS keys,
 * TLS on a unix socket,
 * a non-loopback status_listen without status_allow_remote, an unknown
 * socket_group.  cuzk_server_start checks it too; the daemon calls it
 * first to tell a refused configuration (exit 2) from a failed start. */
CUZK_MUST_CHECK int cuzk_server_check_access(const cuzk_daemon_config *cfg, char *err, size_t err_len);

/* Checks access, takes the lock, binds cfg->listen (and cfg->status_listen
 * for HTTP), starts serving.  The engine must outlive the server.
 * on_fatal (may be NULL) is called once, from a server thread, when the
 * server can no longer serve (see above): it must only trigger the
 * daemon's shutdown.  CUZK_OK or a cuzk_status with err. */
CUZK_MUST_CHECK int cuzk_server_start(cuzk_server **out, cuzk_engine *e, const cuzk_daemon_config *cfg,
                                      void (*on_fatal)(void *arg), void *fatal_arg, char *err,
                                      size_t err_len);

/* True once on_fatal has been called. */
bool cuzk_server_failed(const cuzk_server *s);

/* The bound gRPC port for TCP listeners (0 for unix sockets); the HTTP port
 * (0 if none).  Useful with "host:0". */
int cuzk_server_port(const cuzk_server *s);
int cuzk_server_http_port(const cuzk_server *s);

/* Graceful stop as described above (grace_ms for in-flight jobs), then free.
 * The engine is shut down but not destroyed. */
void cuzk_server_stop(cuzk_server *s, uint32_t grace_ms);

/* HTTP status listener (http.c): GET /metrics, /status, /config. */
typedef struct cuzk_http cuzk_http;
CUZK_MUST_CHECK int cuzk_http_start(cuzk_http **out, cuzk_engine *e, const cuzk_daemon_config *cfg, char *err,
                                    size_t err_len);
int cuzk_http_port(const cuzk_http *h);
void cuzk_http_stop(cuzk_http *h);

#endif
