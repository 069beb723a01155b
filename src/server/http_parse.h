/* Routing of the HTTP status listener's requests (http.c), as a pure
 * function of the bytes received, so that it can be tested and fuzzed
 * (tests/server/http_parse.c, tests/fuzz/fuzz_http.c) without a socket or
 * an engine.
 *
 * Contract: req holds len bytes as received -- not NUL-terminated, possibly
 * containing NUL bytes and no newline; a NUL ends the text (what follows is
 * ignored).  The text is split into tokens at ASCII whitespace (space, \t,
 * \n, \v, \f, \r); the first token is the method, the second the request
 * target, whose query ('?' onwards) is dropped.  Fewer than two tokens:
 * CUZK_HTTP_BAD_REQUEST (400); a method other than exactly "GET":
 * CUZK_HTTP_NOT_GET (405); otherwise the target picks the page, and any
 * other target is CUZK_HTTP_NOT_FOUND (404).  Reads nothing past len. */
#ifndef CUZK_SERVER_HTTP_PARSE_H
#define CUZK_SERVER_HTTP_PARSE_H

#include <stddef.h>

typedef enum {
    CUZK_HTTP_BAD_REQUEST, /* 400 */
    CUZK_HTTP_NOT_GET,     /* 405 */
    CUZK_HTTP_METRICS,     /* GET /metrics */
    CUZK_HTTP_STATUS,      /* GET /status */
    CUZK_HTTP_CONFIG,      /* GET /config */
    CUZK_HTTP_INDEX,       /* GET / */
    CUZK_HTTP_NOT_FOUND,   /* 404 */
} cuzk_http_route;

cuzk_http_route cuzk_http_route_of(const char *req, size_t len);

#endif
