/* Who may talk to the daemon: the policy checks and the mechanisms behind
 * daemon.tls_* / socket_mode / socket_group / status_allow_remote
 * (docs/daemon.md, "Security: who may talk to the daemon").
 *
 * The daemon has no authentication of its own: whoever reaches it may
 * submit work, preload and evict.  So reach is what we control:
 *  - a unix socket: file permissions (mode and group), published only once
 *    they are set (srv_socket_stage / cuzk_srv_socket_publish);
 *  - TCP on loopback: any local user, as before (plain);
 *  - TCP anywhere else: only with TLS and a client certificate signed by
 *    daemon.tls_client_ca; refused at start-up without them;
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
