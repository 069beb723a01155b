/* Which requests the HTTP status listener answers, and to which web
 * origins (docs/daemon.md, "HTTP status listener").  The listener has no
 * authentication and is bound to loopback, but a web page open in a
 * browser on the prover host can still reach it: directly (a cross-origin
 * fetch, readable only if we send Access-Control-Allow-Origin) or by DNS
 * rebinding (a name of the attacker's that resolves to 127.0.0.1: the
 * browser then calls it same-origin, but sends the attacker's name as
 * Host).  So:
 *  - Host must be a loopback name or address (localhost, 127.0.0.0/8,
 *    [::1]) or one listed in daemon.status_hosts: else 421;
 *  - no Access-Control-Allow-Origin unless daemon.status_cors_origins
 *    names the request's Origin (then that origin, with Vary: Origin) or
 *    is ["*"] (then "*", the Rust daemon's behaviour, warned at start).
 * Pure functions of the bytes received (no socket, no engine): unit-
 * tested in tests/server/http_guard.c. */
#ifndef CUZK_SERVER_HTTP_GUARD_H
#define CUZK_SERVER_HTTP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* True once req[0..len) holds a whole request head: the request line and
 * headers up to an empty line ("\r\n\r\n" or "\n\n").  A NUL ends the
 * text. */
bool cuzk_http_head_complete(const char *req, size_t len);

/* The value of header name (case-insensitive) among the header lines of
 * req[0..len) (after the request line, before the empty line), with
 * spaces and tabs around it trimmed: 1 and *val, *vlen set when it occurs
 * once, 0 when absent, -1 when it occurs more than once. */
int cuzk_http_header(const char **val, size_t *vlen, const char *req, size_t len, const char *name);

/* A daemon.status_hosts entry: a DNS name (letters, digits, '-', dots,
 * at most 253 bytes, an optional final dot) or an IP address (IPv6 with
 * or without brackets); no port, no scheme. */
bool cuzk_http_host_valid(const char *s);
/* A daemon.status_cors_origins entry: "*" or a web origin as browsers send
 * it, "http://host[:port]" or "https://host[:port]" (host as above, IPv6
 * in brackets), with no path, not even "/". */
bool cuzk_http_origin_valid(const char *s);

/* A Host header value ("name", "name:port", "1.2.3.4:port", "[::1]:port")
 * is loopback or listed in hosts (names without case or a final dot,
 * addresses by value). */
bool cuzk_http_host_allowed(const char *host, size_t len, const cuzk_config_names *hosts);

/* What to do with a request whose head is req[0..len). */
typedef struct cuzk_http_verdict {
    int code;           /* 0: serve it; else the refusal's status code (400, 421) */
    const char *reason; /* the refusal's reason phrase and body */
    const char *body;
    const char *allow_origin; /* serve it with this Access-Control-Allow-Origin (NULL: none) */
} cuzk_http_verdict;

/* Host: absent or repeated -> 400; not allowed -> 421.  Otherwise served,
 * with allow_origin = "*" when origins holds "*", the matching entry when
 * the request's Origin is one of origins (byte for byte), else NULL.  The
 * strings point into static text or origins. */
void cuzk_http_guard(cuzk_http_verdict *v, const char *req, size_t len, const cuzk_config_names *hosts,
                     const cuzk_config_names *origins);

#endif
