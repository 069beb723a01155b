/* Who may talk to the daemon: the policy checks and the mechanisms behind
 * daemon.tls_* / socket_mode / socket_group / status_allow_remote
 * (docs/daemon.md, "Security: who may talk to the daemon").
 *
 * The daemon has no authentication of its own: whoever reaches it may
 * submit work, preload and evict.  So reach is what we control:
 *  - a unix socket: file permissions (mode and group), published only once
 *    they are set (srv_socket_stage / cuzk_srv_socket_publish);
 *  - TCP with TLS: only clients with a certificate signed by
 *    daemon.tls_client_ca (any listen address);
 *  - TCP in plain text (any listen address, e.g. Curio's 0.0.0.0:9820):
 *    protected mode, after Redis's: loopback peers and the networks of
 *    daemon.allow_plaintext_from are served, every call of any other peer
 *    is answered PERMISSION_DENIED with what to configure, and that peer's
 *    address is logged once (a bounded set).  The peer is checked on every
 *    call, from the address gRPC reports (server_netacl.h);
 *  - HTTP status (no authentication, read-only): loopback only unless
 *    daemon.status_allow_remote.
 * Every function returns CUZK_OK or a cuzk_status with a message in err. */
#ifndef CUZK_SERVER_ACCESS_H
#define CUZK_SERVER_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include <grpc/grpc_security.h>

#include "config.h"
#include "cuzk/status.h"

/* True when every address "host:port" ("[v6]:port"; for HTTP also ":port"
 * and "port") can mean is a loopback address (127/8, ::1, "localhost").
 * An empty host, a wildcard, an unknown scheme or a name that does not
 * resolve is not loopback. */
bool cuzk_srv_addr_is_loopback(const char *hostport);

/* cuzk_server_check_access (server.h) applies the policy above. */

/* Protected mode's state: owned by the completion-queue thread, which is
 * the only one to call cuzk_srv_peer_allowed (no lock). */
#define SRV_PEER_LOG_MAX 256 /* refused addresses remembered as logged */
typedef struct srv_peer_guard {
    bool on; /* plain-text TCP: peers are checked */
    bool trust_loopback;
    cuzk_config_nets allow;
    uint8_t logged[SRV_PEER_LOG_MAX][16]; /* a ring: the oldest is forgotten first */
    size_t n_logged, next;
} srv_peer_guard;

/* on = the listener is TCP without TLS. */
void cuzk_srv_peer_guard_init(srv_peer_guard *g, const cuzk_daemon_config *cfg, bool on);
/* True when the gRPC peer (grpc_call_get_peer's text) may call; else msg
 * holds the PERMISSION_DENIED message, and the peer's address is logged
 * (WARN) the first time it is refused. */
bool cuzk_srv_peer_allowed(srv_peer_guard *g, const char *peer, char *msg, size_t cap);
/* What the listen log line says about who is served ("plain text:
 * loopback and 2 networks of daemon.allow_plaintext_from"). */
void cuzk_srv_peer_guard_describe(const srv_peer_guard *g, char *out, size_t cap);

/* Server credentials for daemon.listen: TLS requiring and verifying a
 * client certificate when daemon.tls_cert is set (the three PEM files are
 * read and checked now: parse, key matches certificate), else insecure.
 * *out is released with grpc_server_credentials_release. */
CUZK_MUST_CHECK int cuzk_srv_credentials(grpc_server_credentials **out, const cuzk_daemon_config *cfg, char *err,
                                    size_t err_len);

/* A unix socket is bound by gRPC (we never see its fd before it listens),
 * so its permissions are set before anyone can reach it instead: gRPC
 * binds it in a fresh 0700 directory beside the final path (stage), we
 * chmod/chown it there, then rename it onto the final path (publish).  A
 * client only ever sees the socket with its final mode and group. */
typedef struct srv_socket_stage {
    char dir[600];  /* "<socket dir>/.cuzk-XXXXXX" */
    char path[640]; /* dir + "/s": what gRPC binds */
} srv_socket_stage;

CUZK_MUST_CHECK int cuzk_srv_socket_stage_make(srv_socket_stage *st, const char *sock_path, char *err,
                                          size_t err_len);
/* chmod(socket_mode), chown(socket_group), rename onto sock_path. */
CUZK_MUST_CHECK int cuzk_srv_socket_publish(srv_socket_stage *st, const char *sock_path,
                                       const cuzk_daemon_config *cfg, char *err, size_t err_len);
/* Removes what is left of the stage (after a failure). */
void cuzk_srv_socket_stage_drop(srv_socket_stage *st);

#endif
