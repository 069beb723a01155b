/* The HTTP status listener's request routing (http_parse.h), apart from
 * the socket code so that the fuzz harness runs exactly what ships.  It
 * keeps what serve() did with sscanf("%7s %255s") on the NUL-terminated
 * buffer -- whitespace-separated tokens, a NUL ends the text, the query
 * dropped -- without copying or bounding the tokens: an over-long first
 * token alone is now 400 (no target) where the truncating %7s made it 405. */
#include <string.h>

#include "http_parse.h"

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* The next token of [*p, end): its start and length; false when none. */
static int next_token(const char **p, const char *end, const char **tok, size_t *tok_len)
{
    const char *q = *p;
    while (q < end && is_ws(*q))
        q++;
    if (q == end) return 0;
    *tok = q;
    while (q < end && !is_ws(*q))
        q++;
    *tok_len = (size_t)(q - *tok);
    *p = q;
    return 1;
}

static int token_is(const char *tok, size_t n, const char *s)
{
    return n == strlen(s) && !memcmp(tok, s, n);
}

cuzk_http_route cuzk_http_route_of(const char *req, size_t len)
{
    const char *nul = memchr(req, 0, len);
    const char *p = req, *end = nul ? nul : req + len;
    const char *method, *target;
    size_t mlen, tlen;
    if (!next_token(&p, end, &method, &mlen) || !next_token(&p, end, &target, &tlen))
        return CUZK_HTTP_BAD_REQUEST;
    if (!token_is(method, mlen, "GET")) return CUZK_HTTP_NOT_GET;
    const char *q = memchr(target, '?', tlen);
    if (q) tlen = (size_t)(q - target);
    if (token_is(target, tlen, "/metrics")) return CUZK_HTTP_METRICS;
    if (token_is(target, tlen, "/status")) return CUZK_HTTP_STATUS;
    if (token_is(target, tlen, "/config")) return CUZK_HTTP_CONFIG;
    if (token_is(target, tlen, "/")) return CUZK_HTTP_INDEX;
    return CUZK_HTTP_NOT_FOUND;
}
