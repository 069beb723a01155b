/* HTTP status listener: GET /metrics (Prometheus text from the engine),
 * /status (the engine's JSON status page), /config (effective config).
 * One thread, one connection at a time: a scraper or an operator's curl,
 * not a web server.  Bound to loopback unless daemon.status_allow_remote
 * (cuzk_server_check_access): it has no authentication.  Host and Origin
 * are checked against browsers' pages (server_http_guard.h).  Which page a
 * request asks for is decided by cuzk_http_route_of (http_parse.c, a pure
 * function of the bytes received: unit-tested and fuzzed).
 *
 * Nothing a client does may hold the thread, since stopping joins it (and
 * SIGTERM waits for that): each exchange -- request in, answer out -- has
 * one deadline (HTTP_REQUEST_MS, not per read), every wait is a poll()
 * of at most HTTP_TICK_MS that also checks the stop flag, and sends are
 * non-blocking (MSG_DONTWAIT after POLLOUT), so a client that never reads
 * cannot park us in send() the way a blocking send -- even with
 * SO_SNDTIMEO, which would still wait its timeout per call -- could. */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http_parse.h"
#include "server.h"
#include "server_http_guard.h"
#include "status_page.h"

struct cuzk_http {
    cuzk_engine *e;
    char *config_json;
    cuzk_config_names hosts, cors_origins; /* daemon.status_hosts, status_cors_origins */
    int fd, port;
    atomic_int stop;
    pthread_t thread;
};

#define HTTP_REQUEST_MS 2000
#define HTTP_TICK_MS 100

/* One client connection and the deadline of its exchange. */
typedef struct http_conn {
    cuzk_http *h;
    int fd;
    int64_t deadline_ms;
    const char *allow_origin; /* Access-Control-Allow-Origin of the answer (server_http_guard.h) */
} http_conn;

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Until fd is ready for ev: false when the exchange's time is up or the
 * listener is stopping. */
static bool conn_wait(const http_conn *c, short ev)
{
    for (;;) {
        if (atomic_load(&c->h->stop)) return false;
        int64_t left = c->deadline_ms - now_ms();
        if (left <= 0) return false;
        struct pollfd p = {c->fd, ev, 0};
        int r = poll(&p, 1, (int)(left < HTTP_TICK_MS ? left : HTTP_TICK_MS));
        if (r > 0) return true; /* also POLLERR/POLLHUP: the next send/recv reports it */
        if (r < 0 && errno != EINTR) return false;
    }
}

static bool again(ssize_t r)
{
    return r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK);
}

static bool send_all(const http_conn *c, const char *p, size_t n)
{
    while (n) {
        if (!conn_wait(c, POLLOUT)) return false;
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (again(w)) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static void respond(const http_conn *c, int code, const char *reason, const char *type, const char *body,
                    size_t len)
{
    char h[640];
    const char *o = c->allow_origin;
    /* an origin other than "*" is an answer that depends on the request's Origin */
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s%s%s"
                     "Connection: close\r\n\r\n",
                     code, reason, type, len, o ? "Access-Control-Allow-Origin: " : "", o ? o : "",
                     o ? "\r\n" : "", o && strcmp(o, "*") ? "Vary: Origin\r\n" : "");
    if (send_all(c, h, (size_t)n)) send_all(c, body, len);
}

/* The request head, up to its empty line or the buffer's end: *len bytes,
 * not NUL-terminated (cuzk_http_route_of and cuzk_http_guard take them as
 * they are). */
static bool read_request(const http_conn *c, char *req, size_t cap, size_t *len)
{
    size_t n = 0;
    while (n < cap - 1 && !cuzk_http_head_complete(req, n)) {
        if (!conn_wait(c, POLLIN)) return false;
        ssize_t r = recv(c->fd, req + n, cap - 1 - n, MSG_DONTWAIT);
        if (again(r)) continue;
        if (r <= 0) return false;
        n += (size_t)r;
    }
    *len = n;
    return true;
}

static void serve(http_conn *c)
{
    char req[16384]; /* a browser's head with its cookies for localhost */
    size_t n;
    if (!read_request(c, req, sizeof req, &n)) return;
    if (!cuzk_http_head_complete(req, n)) {
        respond(c, 431, "Request Header Fields Too Large", "text/plain", "request head over 16 KiB\n", 25);
        return;
    }
    cuzk_http_route route = cuzk_http_route_of(req, n);
    if (route == CUZK_HTTP_BAD_REQUEST) {
        respond(c, 400, "Bad Request", "text/plain", "bad request\n", 12);
        return;
    }
    if (route == CUZK_HTTP_NOT_GET) {
        respond(c, 405, "Method Not Allowed", "text/plain", "GET only\n", 9);
        return;
    }
    cuzk_http_verdict v;
    cuzk_http_guard(&v, req, n, &c->h->hosts, &c->h->cors_origins);
    if (v.code) {
        respond(c, v.code, v.reason, "text/plain", v.body, strlen(v.body));
        return;
    }
    c->allow_origin = v.allow_origin;
    char *body = NULL;
    size_t len = 0;
    if (route == CUZK_HTTP_METRICS) {
        if (cuzk_engine_metrics_text(c->h->e, &body, &len) == CUZK_OK)
            respond(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", body, len);
        else
            respond(c, 500, "Internal Server Error", "text/plain", "metrics failed\n", 15);
    } else if (route == CUZK_HTTP_STATUS) {
        if (cuzk_engine_status_json(c->h->e, &body, &len) == CUZK_OK)
            respond(c, 200, "OK", "application/json", body, len);
        else
            respond(c, 500, "Internal Server Error", "text/plain", "status failed\n", 14);
    } else if (route == CUZK_HTTP_CONFIG) {
        respond(c, 200, "OK", "application/json", c->h->config_json, strlen(c->h->config_json));
    } else if (route == CUZK_HTTP_INDEX) {
        respond(c, 200, "OK", "text/html; charset=utf-8", (const char *)cuzk_srv_status_page,
                cuzk_srv_status_page_len); /* the live page (status_page.html): it polls /status */
    } else {
        respond(c, 404, "Not Found", "text/plain", "not found: try /metrics /status /config\n", 40);
    }
    free(body);
}

static void *http_main(void *arg)
{
    cuzk_http *h = arg;
    while (!atomic_load(&h->stop)) {
        struct pollfd p = {h->fd, POLLIN, 0};
        if (poll(&p, 1, HTTP_TICK_MS) <= 0) continue;
        http_conn c = {h, accept4(h->fd, NULL, NULL, SOCK_CLOEXEC), now_ms() + HTTP_REQUEST_MS, NULL};
        if (c.fd < 0) continue;
        serve(&c);
        close(c.fd);
    }
    return NULL;
}

/* "host:port", ":port" or "port"; host may be a name or [v6]. */
static int open_listener(int *fd_out, int *port_out, const char *addr, char *err, size_t err_len)
{
    char host[256] = "", port[32];
    const char *colon = strrchr(addr, ':');
    if (!colon) {
        snprintf(port, sizeof port, "%s", addr);
    } else {
        size_t hl = (size_t)(colon - addr);
        if (hl >= sizeof host) hl = sizeof host - 1;
        memcpy(host, addr, hl);
        host[hl] = 0;
        snprintf(port, sizeof port, "%s", colon + 1);
        if (host[0] == '[') {
            memmove(host, host + 1, strlen(host));
            host[strcspn(host, "]")] = 0;
        }
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int g = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (g) {
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "daemon.status_listen '%s': %s", addr, gai_strerror(g));
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 16)) {
        cuzk_errf(err, err_len, CUZK_ERR_IO, "daemon.status_listen '%s': %s", addr, strerror(errno));
        if (fd >= 0) close(fd);
        freeaddrinfo(res);
        return CUZK_ERR_IO;
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    *port_out = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                         : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    *fd_out = fd;
    return 0;
}

int cuzk_http_start(cuzk_http **out, cuzk_engine *e, const cuzk_daemon_config *cfg, char *err, size_t err_len)
{
    *out = NULL;
    cuzk_http *h = calloc(1, sizeof *h);
    if (!h || !(h->config_json = cuzk_config_json(cfg))) {
        free(h);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "out of memory");
    }
    h->e = e;
    h->hosts = cfg->status_hosts;
    h->cors_origins = cfg->status_cors_origins;
    for (uint32_t i = 0; i < h->cors_origins.n; i++)
        if (!strcmp(h->cors_origins.v[i], "*"))
            cuzk_log(CUZK_LOG_WARN, NULL,
                     "daemon.status_cors_origins = \"*\": any web page open in a browser on this host may read "
                     "/status, /metrics and /config; name the origins of your dashboards instead");
    int rc = open_listener(&h->fd, &h->port, cfg->status_listen, err, err_len);
    if (rc) {
        free(h->config_json);
        free(h);
        return rc;
    }
    if (pthread_create(&h->thread, NULL, http_main, h)) {
        close(h->fd);
        free(h->config_json);
        free(h);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cannot start the HTTP thread");
    }
    cuzk_log(CUZK_LOG_INFO, NULL, "HTTP status on %s (port %d): /metrics /status /config", cfg->status_listen,
             h->port);
    *out = h;
    return 0;
}

int cuzk_http_port(const cuzk_http *h)
{
    return h->port;
}

void cuzk_http_stop(cuzk_http *h)
{
    if (!h) return;
    atomic_store(&h->stop, 1);
    pthread_join(h->thread, NULL);
    close(h->fd);
    free(h->config_json);
    free(h);
}
