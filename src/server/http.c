/* HTTP status listener: GET /metrics (Prometheus text from the engine),
 * /status (the engine's JSON status page), /config (effective config).
 * One thread, one connection at a time, short timeouts: a scraper or an
 * operator's curl, not a web server.  poll() with a 200 ms tick lets stop
 * end the thread without signals. */
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
#include <unistd.h>

#include "server.h"

struct cuzk_http {
    cuzk_engine *e;
    char *config_json;
    int fd, port;
    atomic_int stop;
    pthread_t thread;
};

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) {
            if (w < 0 && errno == EINTR) continue;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void respond(int fd, int code, const char *reason, const char *type, const char *body, size_t len)
{
    char h[256];
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     /* operator web UIs read /status from another origin (as with the Rust daemon) */
                     "Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n",
                     code, reason, type, len);
    send_all(fd, h, (size_t)n);
    send_all(fd, body, len);
}

static void serve(cuzk_http *h, int fd)
{
    char req[4096];
    size_t n = 0;
    /* Read the request line (and ignore headers) with a 2 s limit. */
    while (n < sizeof req - 1 && !memchr(req, '\n', n)) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 2000) <= 0) return;
        ssize_t r = recv(fd, req + n, sizeof req - 1 - n, 0);
        if (r <= 0) return;
        n += (size_t)r;
    }
    req[n] = 0;
    char method[8], path[256];
    if (sscanf(req, "%7s %255s", method, path) != 2) {
        respond(fd, 400, "Bad Request", "text/plain", "bad request\n", 12);
        return;
    }
    path[strcspn(path, "?")] = 0;
    if (strcmp(method, "GET")) {
        respond(fd, 405, "Method Not Allowed", "text/plain", "GET only\n", 9);
        return;
    }
    char *body = NULL;
    size_t len = 0;
    if (!strcmp(path, "/metrics")) {
        if (cuzk_engine_metrics_text(h->e, &body, &len) == CUZK_OK)
            respond(fd, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", body, len);
        else
            respond(fd, 500, "Internal Server Error", "text/plain", "metrics failed\n", 15);
    } else if (!strcmp(path, "/status")) {
        if (cuzk_engine_status_json(h->e, &body, &len) == CUZK_OK)
            respond(fd, 200, "OK", "application/json", body, len);
        else
            respond(fd, 500, "Internal Server Error", "text/plain", "status failed\n", 14);
    } else if (!strcmp(path, "/config")) {
        respond(fd, 200, "OK", "application/json", h->config_json, strlen(h->config_json));
    } else if (!strcmp(path, "/")) {
        static const char idx[] = "cuzk-daemon: /metrics /status /config\n";
        respond(fd, 200, "OK", "text/plain", idx, sizeof idx - 1);
    } else {
        respond(fd, 404, "Not Found", "text/plain", "not found: try /metrics /status /config\n", 40);
    }
    free(body);
}

static void *http_main(void *arg)
{
    cuzk_http *h = arg;
    while (!atomic_load(&h->stop)) {
        struct pollfd p = {h->fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        int c = accept(h->fd, NULL, NULL);
        if (c < 0) continue;
        serve(h, c);
        close(c);
    }
    return NULL;
}

/* "host:port", ":port" or "port"; host may be a name or [v6]. */
static int open_listener(int *fd_out, int *port_out, const char *addr, char *err, size_t errlen)
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
        snprintf(err, errlen, "daemon.status_listen '%s': %s", addr, gai_strerror(g));
        return -1;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 16)) {
        snprintf(err, errlen, "daemon.status_listen '%s': %s", addr, strerror(errno));
        if (fd >= 0) close(fd);
        freeaddrinfo(res);
        return -1;
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

int cuzk_http_start(cuzk_http **out, cuzk_engine *e, const cuzk_daemon_config *cfg, char *err, size_t errlen)
{
    *out = NULL;
    cuzk_http *h = calloc(1, sizeof *h);
    if (!h || !(h->config_json = cuzk_config_json(cfg))) {
        free(h);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    h->e = e;
    if (open_listener(&h->fd, &h->port, cfg->status_listen, err, errlen)) {
        free(h->config_json);
        free(h);
        return -1;
    }
    if (pthread_create(&h->thread, NULL, http_main, h)) {
        close(h->fd);
        free(h->config_json);
        free(h);
        snprintf(err, errlen, "cannot start the HTTP thread");
        return -1;
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
