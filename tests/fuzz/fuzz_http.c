/* libFuzzer harness: the HTTP status listener's request routing
 * (cuzk_http_route_of, src/server/http_parse.c: what serve() in http.c
 * calls on the bytes it received).  The input is the request as received:
 * not NUL-terminated (copied into exactly size bytes, so ASan sees a read
 * past them), possibly with NUL bytes and no newline.  Oracle: an
 * independent reading of the same rules (http_parse.h) -- the text up to
 * the first NUL, split with strtok_r at ASCII whitespace; fewer than two
 * tokens is 400, a first token other than "GET" 405, else the second
 * token up to its first '?' names /metrics, /status, /config or /, and
 * anything else is 404 -- must give the same route.  The same bytes go
 * through the Host/Origin guard (server_http_guard.c, what serve() calls
 * next), which must stay inside them and answer 0, 400 or 421, with an
 * Access-Control-Allow-Origin only from the configured origins. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"
#include "server_http_guard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cuzk_http_route oracle(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1), *save = NULL;
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = 0; /* strtok_r stops at the first NUL, as the rules say */
    const char *ws = " \t\n\v\f\r";
    char *method = strtok_r(s, ws, &save);
    char *target = method ? strtok_r(NULL, ws, &save) : NULL;
    cuzk_http_route r;
    if (!target) {
        r = CUZK_HTTP_BAD_REQUEST;
    } else if (strcmp(method, "GET")) {
        r = CUZK_HTTP_NOT_GET;
    } else {
        target[strcspn(target, "?")] = 0;
        r = !strcmp(target, "/metrics")  ? CUZK_HTTP_METRICS
            : !strcmp(target, "/status") ? CUZK_HTTP_STATUS
            : !strcmp(target, "/config") ? CUZK_HTTP_CONFIG
            : !strcmp(target, "/")       ? CUZK_HTTP_INDEX
                                         : CUZK_HTTP_NOT_FOUND;
    }
    free(s);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1); /* exactly size bytes: no NUL to lean on */
    if (!copy) abort();
    memcpy(copy, data, size);
    cuzk_http_route got = cuzk_http_route_of(copy, size);
    static cuzk_config_names hosts = {1, {"prover1.example"}}, origins = {1, {"https://grafana.example"}};
    cuzk_http_verdict v;
    cuzk_http_guard(&v, copy, size, &hosts, &origins);
    if ((v.code && v.code != 400 && v.code != 421) || (v.allow_origin && v.allow_origin != origins.v[0]) ||
        (v.code && v.allow_origin))
        abort();
    (void)cuzk_http_head_complete(copy, size);
    free(copy);
    cuzk_http_route want = oracle(data, size);
    if (got != want) {
        fprintf(stderr, "route %d, the rules say %d\n", (int)got, (int)want);
        abort();
    }
    return 0;
}
