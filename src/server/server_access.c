/* Who may talk to the daemon: loopback test, start-up policy, TLS server
 * credentials and the unix socket's permissions; design in server_access.h. */
#include "server_access.h"
#include "server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "rpc.h"

/* The host of "host:port", "[v6]:port", ":port" or "port" ("" for the last
 * two).  -1 when it is none of these (an unbracketed IPv6 address, a gRPC
 * scheme such as "ipv4:"): the caller then treats it as not loopback. */
static int split_host(char *host, size_t cap, const char *hostport)
{
    const char *start = hostport, *end;
    if (*hostport == '[') {
        start = hostport + 1;
        end = strchr(start, ']');
        if (!end) return -1;
    } else {
        end = strrchr(hostport, ':');
        if (!end) end = hostport; /* a bare port */
        if (memchr(hostport, ':', (size_t)(end - hostport))) return -1;
    }
    size_t n = (size_t)(end - start);
    if (n >= cap) return -1;
    memcpy(host, start, n);
    host[n] = 0;
    return 0;
}

static bool sockaddr_is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family != AF_INET6) return false;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

bool cuzk_srv_addr_is_loopback(const char *hostport)
{
    char host[256];
    if (split_host(host, sizeof host, hostport) || !host[0] || !strcmp(host, "*")) return false;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res)) return false;
    bool all = res != NULL;
    for (const struct addrinfo *r = res; r; r = r->ai_next)
        all = all && sockaddr_is_loopback(r->ai_addr);
    freeaddrinfo(res);
    return all;
}

/* daemon.socket_group: a group name or a number. */
static int resolve_group(gid_t *gid, const char *name, char *err, size_t err_len)
{
    const char *p = name;
    while (isdigit((unsigned char)*p))
        p++;
    if (!*p && p - name < 10) {
        *gid = (gid_t)strtoul(name, NULL, 10);
        return CUZK_OK;
    }
    char buf[16384];
    struct group g, *found = NULL;
    int rc = getgrnam_r(name, &g, buf, sizeof buf, &found);
    if (rc || !found)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "daemon.socket_group '%s': no such group%s%s", name,
                         rc ? ": " : "", rc ? strerror(rc) : "");
    *gid = found->gr_gid;
    return CUZK_OK;
}

/* The three TLS keys: all or none. */
static int check_tls_keys(const cuzk_daemon_config *cfg, int *n_set, char *err, size_t err_len)
{
    const char *v[3] = {cfg->tls_cert, cfg->tls_key, cfg->tls_client_ca};
    const char *names[3] = {"daemon.tls_cert", "daemon.tls_key", "daemon.tls_client_ca"};
    *n_set = 0;
    for (int i = 0; i < 3; i++)
        *n_set += v[i][0] != 0;
    for (int i = 0; i < 3 && *n_set; i++)
        if (!v[i][0])
            return cuzk_errf(
                err, err_len, CUZK_ERR_ARG,
                "%s is not set: TLS needs daemon.tls_cert, daemon.tls_key and daemon.tls_client_ca "
                "(clients must present a certificate signed by tls_client_ca)",
                names[i]);
    return CUZK_OK;
}

int cuzk_server_check_access(const cuzk_daemon_config *cfg, char *err, size_t err_len)
{
    char target[600];
    int n_tls;
    if (check_tls_keys(cfg, &n_tls, err, err_len)) return CUZK_ERR_ARG;
    if (cuzk_rpc_target(target, sizeof target, cfg->listen))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "daemon.listen '%s': empty or too long", cfg->listen);
    bool is_unix = !strncmp(target, "unix:", 5);
    if (is_unix && n_tls)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "daemon.tls_cert is set but daemon.listen %s is a unix socket: TLS is for TCP; a "
                         "unix socket's access is daemon.socket_mode and daemon.socket_group",
                         cfg->listen);
    /* plain-text TCP off loopback starts in protected mode (cuzk_srv_peer_allowed) */
    if (cfg->status_listen[0] && !cfg->status_allow_remote && !cuzk_srv_addr_is_loopback(cfg->status_listen))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "daemon.status_listen %s is not a loopback address: the HTTP status pages have no "
                         "authentication; use 127.0.0.1:PORT, or set daemon.status_allow_remote = true to "
                         "serve them to the network",
                         cfg->status_listen);
    gid_t gid;
    if (is_unix && cfg->socket_group[0] && resolve_group(&gid, cfg->socket_group, err, err_len))
        return CUZK_ERR_ARG;
    return CUZK_OK;
}

int cuzk_srv_credentials(grpc_server_credentials **out, const cuzk_daemon_config *cfg, char *err, size_t err_len)
{
    *out = NULL;
    if (!cfg->tls_cert[0]) {
        *out = grpc_insecure_server_credentials_create();
        return *out ? CUZK_OK : cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cannot create server credentials");
    }
    char *cert = NULL, *key = NULL, *ca = NULL;
    int rc = cuzk_rpc_pem_read(&cert, "daemon.tls_cert", cfg->tls_cert, err, err_len);
    if (!rc) rc = cuzk_rpc_pem_read(&key, "daemon.tls_key", cfg->tls_key, err, err_len);
    if (!rc) rc = cuzk_rpc_pem_read(&ca, "daemon.tls_client_ca", cfg->tls_client_ca, err, err_len);
    if (!rc) {
        cuzk_rpc_pem pc = {cert, "daemon.tls_cert", cfg->tls_cert};
        cuzk_rpc_pem pk = {key, "daemon.tls_key", cfg->tls_key};
        cuzk_rpc_pem pa = {ca, "daemon.tls_client_ca", cfg->tls_client_ca};
        rc = cuzk_rpc_pem_check(&pc, &pk, &pa, err, err_len);
    }
    if (!rc) {
        grpc_ssl_pem_key_cert_pair pair = {key, cert}; /* gRPC copies both */
        *out = grpc_ssl_server_credentials_create_ex(
            ca, &pair, 1, GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY, NULL);
        if (!*out) rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "gRPC refused the TLS configuration");
    }
    if (key) OPENSSL_cleanse(key, strlen(key));
    free(cert);
    free(key);
    free(ca);
    return rc;
}

int cuzk_srv_socket_stage_make(srv_socket_stage *st, const char *sock_path, char *err, size_t err_len)
{
    const char *slash = strrchr(sock_path, '/');
    int n = slash
                ? snprintf(st->dir, sizeof st->dir, "%.*s/.cuzk-XXXXXX", (int)(slash - sock_path), sock_path)
                : snprintf(st->dir, sizeof st->dir, "./.cuzk-XXXXXX");
    if (n < 0 || (size_t)n >= sizeof st->dir)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "socket path %s too long", sock_path);
    snprintf(st->path, sizeof st->path, "%s/s", st->dir);
    if (strlen(st->path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "socket path %s too long: it is first bound as %s (%zu bytes; unix sockets allow "
                         "%zu): use a path at least %zu bytes shorter",
                         sock_path, st->path, strlen(st->path),
                         sizeof(((struct sockaddr_un *)0)->sun_path) - 1,
                         strlen(st->path) - strlen(sock_path));
    if (!mkdtemp(st->dir)) /* mode 0700: nobody else can reach what is inside */
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot create a private directory beside %s: %s",
                         sock_path, strerror(errno));
    snprintf(st->path, sizeof st->path, "%s/s", st->dir);
    return CUZK_OK;
}

int cuzk_srv_socket_publish(srv_socket_stage *st, const char *sock_path, const cuzk_daemon_config *cfg, char *err,
                       size_t err_len)
{
    gid_t gid;
    if (chmod(st->path, (mode_t)cfg->socket_mode))
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "daemon.socket_mode 0%o on %s: %s", cfg->socket_mode,
                         sock_path, strerror(errno));
    if (cfg->socket_group[0]) {
        if (resolve_group(&gid, cfg->socket_group, err, err_len)) return CUZK_ERR_ARG;
        if (chown(st->path, (uid_t)-1, gid))
            return cuzk_errf(err, err_len, CUZK_ERR_IO,
                             "daemon.socket_group %s on %s: %s (the daemon must be root or a member of the "
                             "group)",
                             cfg->socket_group, sock_path, strerror(errno));
    }
    if (rename(st->path, sock_path))
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot move the socket onto %s: %s", sock_path,
                         strerror(errno));
    rmdir(st->dir);
    st->dir[0] = st->path[0] = 0;
    return CUZK_OK;
}

void cuzk_srv_socket_stage_drop(srv_socket_stage *st)
{
    if (st->path[0]) unlink(st->path);
    if (st->dir[0]) rmdir(st->dir);
    st->dir[0] = st->path[0] = 0;
}

void cuzk_srv_peer_guard_init(srv_peer_guard *g, const cuzk_daemon_config *cfg, bool on)
{
    memset(g, 0, sizeof *g);
    g->on = on;
    g->trust_loopback = cfg->trust_loopback;
    g->allow = cfg->allow_plaintext_from;
}

void cuzk_srv_peer_guard_describe(const srv_peer_guard *g, char *out, size_t cap)
{
    if (g->trust_loopback)
        snprintf(out, cap, "plain text: serving loopback and %u network(s) of daemon.allow_plaintext_from",
                 g->allow.n);
    else
        snprintf(out, cap, "plain text: serving the %u network(s) of daemon.allow_plaintext_from only "
                 "(daemon.trust_loopback = false)", g->allow.n);
}

/* Logs a refused address the first time (until SRV_PEER_LOG_MAX others
 * have been logged after it): a client retrying forever is one line. */
static void log_refusal(srv_peer_guard *g, const uint8_t a[16], const char *peer, const char *msg)
{
    for (size_t i = 0; i < g->n_logged; i++)
        if (!memcmp(g->logged[i], a, 16)) return;
    memcpy(g->logged[g->next], a, 16);
    g->next = (g->next + 1) % SRV_PEER_LOG_MAX;
    if (g->n_logged < SRV_PEER_LOG_MAX) g->n_logged++;
    cuzk_log(CUZK_LOG_WARN, NULL, "refused gRPC from %s (logged once per address): %s", peer, msg);
}

bool cuzk_srv_peer_allowed(srv_peer_guard *g, const char *peer, char *msg, size_t cap)
{
    uint8_t a[16] = {0}; /* an unparsable peer is logged under :: */
    if (!g->on) return true;
    bool ip = cuzk_net_peer_addr(a, peer ? peer : "");
    if (ip && g->trust_loopback && cuzk_net_is_loopback(a)) return true;
    for (uint32_t i = 0; ip && i < g->allow.n; i++)
        if (cuzk_net_contains(&g->allow.v[i], a)) return true;
    char net[64] = "ADDRESS/32", who[64] = "this peer";
    if (ip) {
        cuzk_net host = {.bits = 128};
        memcpy(host.addr, a, 16);
        cuzk_net_format(net, sizeof net, &host); /* "10.9.8.7/32", "fd00::7/128" */
        snprintf(who, sizeof who, "%.*s", (int)strcspn(net, "/"), net);
    }
    snprintf(msg, cap,
             "cuzk-daemon serves plain-text gRPC to loopback and the networks of daemon.allow_plaintext_from "
             "only, and %s is in neither: add its network to daemon.allow_plaintext_from (e.g. [\"%s\"] "
             "for this host alone) in the daemon's cuzk.toml, or use mutual TLS (daemon.tls_cert, "
             "daemon.tls_key, daemon.tls_client_ca)",
             who, net);
    log_refusal(g, a, peer ? peer : "(unknown peer)", msg);
    return false;
}
