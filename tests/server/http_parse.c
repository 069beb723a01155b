/* The HTTP status listener's routing (src/server/http_parse.c) on fixed
 * requests.  The expected routes come from the request line of RFC 9112
 * (method SP request-target SP HTTP-version CRLF; the query is not part of
 * the path) and the pages the listener serves, not from the code's output:
 * a request is routed by its method and path alone, headers and body never
 * matter, and what the bytes after a NUL or past the given length say is
 * never read.  tests/fuzz/fuzz_http.c checks the same rules on arbitrary
 * bytes. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "http_parse.h"

static cuzk_http_route route(const char *s)
{
    return cuzk_http_route_of(s, strlen(s));
}

static void test_pages(void)
{
    CHECK(route("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9100\r\nAccept: */*\r\n\r\n") == CUZK_HTTP_METRICS);
    CHECK(route("GET /status HTTP/1.1\r\n") == CUZK_HTTP_STATUS);
    CHECK(route("GET /config HTTP/1.0\r\n\r\n") == CUZK_HTTP_CONFIG);
    CHECK(route("GET / HTTP/1.1\r\n") == CUZK_HTTP_INDEX);
    /* the query is not part of the path (RFC 3986 section 3.4) */
    CHECK(route("GET /status?x=1 HTTP/1.1\r\n") == CUZK_HTTP_STATUS);
    CHECK(route("GET /metrics? HTTP/1.1\r\n") == CUZK_HTTP_METRICS);
    CHECK(route("GET /?page=2 HTTP/1.1\r\n") == CUZK_HTTP_INDEX);
    /* HTTP/0.9's "GET path" (no version) still names a page */
    CHECK(route("GET /metrics\r\n") == CUZK_HTTP_METRICS);
    CHECK(route("GET /metrics") == CUZK_HTTP_METRICS); /* no newline yet: the buffer filled */
}

static void test_not_found(void)
{
    CHECK(route("GET /nope HTTP/1.1\r\n") == CUZK_HTTP_NOT_FOUND);
    CHECK(route("GET /metrics/ HTTP/1.1\r\n") == CUZK_HTTP_NOT_FOUND);
    CHECK(route("GET /Metrics HTTP/1.1\r\n") == CUZK_HTTP_NOT_FOUND); /* paths are case-sensitive */
    CHECK(route("GET //status HTTP/1.1\r\n") == CUZK_HTTP_NOT_FOUND);
    CHECK(route("GET /metricsx HTTP/1.1\r\n") == CUZK_HTTP_NOT_FOUND);
    CHECK(route("GET http://127.0.0.1/metrics HTTP/1.1\r\n") == CUZK_HTTP_NOT_FOUND); /* absolute form */
    CHECK(route("GET ?x=1 HTTP/1.1\r\n") == CUZK_HTTP_NOT_FOUND);                     /* empty path */
}

static void test_methods(void)
{
    /* methods are case-sensitive (RFC 9110 section 9.1): only GET is served */
    CHECK(route("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n") == CUZK_HTTP_NOT_GET);
    CHECK(route("HEAD /metrics HTTP/1.1\r\n") == CUZK_HTTP_NOT_GET);
    CHECK(route("get /metrics HTTP/1.1\r\n") == CUZK_HTTP_NOT_GET);
    CHECK(route("GETX /metrics HTTP/1.1\r\n") == CUZK_HTTP_NOT_GET);
    CHECK(route("PROPFIND /status HTTP/1.1\r\n") == CUZK_HTTP_NOT_GET);
}

static void test_bad(void)
{
    CHECK(route("") == CUZK_HTTP_BAD_REQUEST);
    CHECK(route("\r\n") == CUZK_HTTP_BAD_REQUEST);
    CHECK(route("GET") == CUZK_HTTP_BAD_REQUEST);
    CHECK(route("GET \r\n") == CUZK_HTTP_BAD_REQUEST);
    CHECK(route("VERYLONGMETHODNAME") == CUZK_HTTP_BAD_REQUEST); /* one token: no target */
}

/* A NUL ends the text and the length is a hard bound: neither the bytes
 * after a NUL nor those past len can change the route. */
static void test_bounds(void)
{
    static const char with_nul[] = "GET /metrics HTTP/1.1\r\n\0GET /status";
    CHECK(cuzk_http_route_of(with_nul, sizeof with_nul - 1) == CUZK_HTTP_METRICS);
    static const char nul_in_path[] = "GET /status\0/x HTTP/1.1\r\n";
    CHECK(cuzk_http_route_of(nul_in_path, sizeof nul_in_path - 1) == CUZK_HTTP_STATUS);
    CHECK(cuzk_http_route_of("GET /statusX", 11) == CUZK_HTTP_STATUS);
    CHECK(cuzk_http_route_of("GET /metrics", 5) == CUZK_HTTP_INDEX); /* the target is "/" */
    CHECK(cuzk_http_route_of("GET /", 4) == CUZK_HTTP_BAD_REQUEST);
    /* exactly len bytes in their own allocation (ASan sees a read past it) */
    static const char line[] = "GET /config";
    char *exact = malloc(sizeof line - 1);
    REQUIRE(exact);
    memcpy(exact, line, sizeof line - 1);
    CHECK(cuzk_http_route_of(exact, sizeof line - 1) == CUZK_HTTP_CONFIG);
    free(exact);
    /* a request line that fills the listener's 4096-byte buffer */
    char *big = malloc(5000);
    REQUIRE(big);
    memcpy(big, "GET /", 5);
    memset(big + 5, 'a', 4995);
    CHECK(cuzk_http_route_of(big, 4095) == CUZK_HTTP_NOT_FOUND);
    memcpy(big, "GET /status?", 12);
    CHECK(cuzk_http_route_of(big, 4095) == CUZK_HTTP_STATUS);
    free(big);
}

static const test_case tests[] = {
    {"pages", test_pages}, {"not_found", test_not_found}, {"methods", test_methods},
    {"bad", test_bad},     {"bounds", test_bounds},
};

TEST_MAIN(tests)
