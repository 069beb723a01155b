/* The HTTP status listener's Host and Origin checks
 * (src/server/server_http_guard.c) on fixed requests.  Expectations come
 * from what the checks are for, not from the code: a browser sends the
 * name it navigated to as Host (RFC 9110 7.2) -- a DNS-rebinding page sends
 * the attacker's name, which must be refused -- and reads a cross-origin
 * answer only when Access-Control-Allow-Origin is "*" or its own origin
 * (Fetch standard, CORS check); header names are case-insensitive and a
 * request with no Host, or two, is malformed (RFC 9112 3.2). */
#include <string.h>

#include "harness.h"
#include "server_http_guard.h"

static cuzk_config_names names(const char *a, const char *b)
{
    cuzk_config_names n;
    memset(&n, 0, sizeof n);
    if (a) strcpy(n.v[n.n++], a);
    if (b) strcpy(n.v[n.n++], b);
    return n;
}

static cuzk_http_verdict guard(const char *req, cuzk_config_names hosts, cuzk_config_names origins)
{
    cuzk_http_verdict v;
    cuzk_http_guard(&v, req, strlen(req), &hosts, &origins);
    return v;
}

static int code_for_host(const char *host_line)
{
    char req[512];
    snprintf(req, sizeof req, "GET /status HTTP/1.1\r\n%s\r\nAccept: */*\r\n\r\n", host_line);
    return guard(req, names(NULL, NULL), names(NULL, NULL)).code;
}

static void test_loopback_hosts(void)
{
    CHECK(code_for_host("Host: localhost") == 0);
    CHECK(code_for_host("Host: localhost:9821") == 0);
    CHECK(code_for_host("Host: LOCALHOST.:9821") == 0);
    CHECK(code_for_host("Host: 127.0.0.1:9821") == 0);
    CHECK(code_for_host("Host: 127.8.9.10") == 0);
    CHECK(code_for_host("Host: [::1]:9821") == 0);
    CHECK(code_for_host("Host: [::ffff:127.0.0.1]:9821") == 0);
    CHECK(code_for_host("host:127.0.0.1:9821") == 0); /* any case, no space */
    CHECK(code_for_host("HOST: \t127.0.0.1:9821 \t") == 0);
}

static void test_refused_hosts(void)
{
    /* DNS rebinding: the attacker's name, resolved to 127.0.0.1 */
    CHECK(code_for_host("Host: evil.example:9821") == 421);
    CHECK(code_for_host("Host: localhost.evil.example") == 421);
    CHECK(code_for_host("Host: 127.0.0.1.evil.example") == 421);
    CHECK(code_for_host("Host: 10.0.0.5:9821") == 421);
    CHECK(code_for_host("Host: [fd00::1]:9821") == 421);
    CHECK(code_for_host("Host: 2130706433:9821") == 421); /* 127.0.0.1 as one number: not an address form */
    CHECK(code_for_host("Host: ::1") == 421);             /* IPv6 without brackets is not a Host */
    CHECK(code_for_host("Host: 127.0.0.1:") == 421);
    CHECK(code_for_host("Host: 127.0.0.1:99999x") == 421);
    CHECK(code_for_host("Host: localhost:9821/x") == 421);
    CHECK(code_for_host("Host: local host") == 421);
    CHECK(code_for_host("Host: ") == 421);
    /* absent or repeated: malformed */
    CHECK(code_for_host("X-Host: 127.0.0.1") == 400);
    CHECK(code_for_host("Host: 127.0.0.1\r\nHost: evil.example") == 400);
    CHECK(guard("GET /status HTTP/1.1\r\n\r\n", names(NULL, NULL), names(NULL, NULL)).code == 400);
    /* only the head counts: a "Host" after the empty line or on the request line is not a header */
    CHECK(
        guard("GET /status HTTP/1.1\r\n\r\nHost: 127.0.0.1\r\n", names(NULL, NULL), names(NULL, NULL)).code ==
        400);
    CHECK(guard("Host: 127.0.0.1\r\n\r\n", names(NULL, NULL), names(NULL, NULL)).code == 400);
    cuzk_http_verdict v =
        guard("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n", names(NULL, NULL), names("*", NULL));
    CHECK(v.code == 421 && strstr(v.body, "daemon.status_hosts") && !v.allow_origin);
}

static void test_listed_hosts(void)
{
    cuzk_config_names h = names("prover1.example", "10.0.0.5");
    const char *ok[] = {"prover1.example", "PROVER1.example:9821", "prover1.example.", "10.0.0.5:9821"};
    const char *no[] = {"prover2.example", "10.0.0.6", "x.prover1.example", "[::ffff:10.0.0.6]"};
    char req[256];
    for (size_t i = 0; i < 4; i++) {
        snprintf(req, sizeof req, "GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n", ok[i]);
        CHECK(guard(req, h, names(NULL, NULL)).code == 0);
        snprintf(req, sizeof req, "GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n", no[i]);
        CHECK(guard(req, h, names(NULL, NULL)).code == 421);
    }
    /* IPv6 entries, with or without brackets, compared by value */
    cuzk_config_names h6 = names("fd00::5", "[fd00:0:0::6]");
    CHECK(guard("GET / HTTP/1.1\r\nHost: [fd00:0::5]:1\r\n\r\n", h6, names(NULL, NULL)).code == 0);
    CHECK(guard("GET / HTTP/1.1\r\nHost: [fd00::6]\r\n\r\n", h6, names(NULL, NULL)).code == 0);
    CHECK(guard("GET / HTTP/1.1\r\nHost: [fd00::7]\r\n\r\n", h6, names(NULL, NULL)).code == 421);
    /* an IPv4-mapped Host is the IPv4 address it carries */
    CHECK(guard("GET / HTTP/1.1\r\nHost: [::ffff:10.0.0.5]\r\n\r\n", h, names(NULL, NULL)).code == 0);
}

static const char *origin_for(const char *origin_line, cuzk_config_names origins)
{
    char req[512];
    snprintf(req, sizeof req, "GET /status HTTP/1.1\r\nHost: 127.0.0.1:9821\r\n%s\r\n\r\n", origin_line);
    cuzk_http_verdict v = guard(req, names(NULL, NULL), origins);
    CHECK(v.code == 0);
    return v.allow_origin;
}

static void test_cors(void)
{
    /* none configured: never, whatever the page */
    CHECK(!origin_for("Origin: https://evil.example", names(NULL, NULL)));
    CHECK(!origin_for("Origin: http://localhost:3000", names(NULL, NULL)));
    CHECK(!origin_for("Accept: */*", names(NULL, NULL)));
    /* named origins: that origin, byte for byte, and only it */
    cuzk_config_names o = names("https://grafana.example", "http://localhost:3000");
    const char *a = origin_for("Origin: https://grafana.example", o);
    CHECK(a && !strcmp(a, "https://grafana.example"));
    a = origin_for("origin:http://localhost:3000", o);
    CHECK(a && !strcmp(a, "http://localhost:3000"));
    CHECK(!origin_for("Origin: https://evil.example", o));
    CHECK(!origin_for("Origin: https://grafana.example.evil.example", o));
    CHECK(!origin_for("Origin: http://grafana.example", o)); /* another scheme is another origin */
    CHECK(!origin_for("Origin: http://localhost:3001", o));  /* another port too */
    CHECK(!origin_for("Origin: https://grafana.exampl", o));
    CHECK(!origin_for("Origin: null", o));
    CHECK(!origin_for("Accept: */*", o));
    /* "*": the Rust daemon's answer, for any page */
    a = origin_for("Origin: https://evil.example", names("*", NULL));
    CHECK(a && !strcmp(a, "*"));
    a = origin_for("Accept: */*", names("https://x.example", "*"));
    CHECK(a && !strcmp(a, "*"));
}

static void test_config_forms(void)
{
    const char *hosts_ok[] = {"prover1", "prover1.example", "prover1.example.", "10.0.0.5",
                              "fd00::5", "[fd00::5]",       "a-b.c-d.example",  "localhost"};
    const char *hosts_bad[] = {"",  "prover1:9821", "http://prover1", "[10.0.0.5]", "a..b", "-x/", "a b",
                               "*", "[fd00::5",     "prover1/",       "10.0.0.5:1"};
    for (size_t i = 0; i < sizeof hosts_ok / sizeof *hosts_ok; i++)
        CHECK(cuzk_http_host_valid(hosts_ok[i]));
    for (size_t i = 0; i < sizeof hosts_bad / sizeof *hosts_bad; i++)
        CHECK(!cuzk_http_host_valid(hosts_bad[i]));
    const char *origins_ok[] = {"*", "https://grafana.example", "http://localhost:3000", "http://10.0.0.5:80",
                                "https://[fd00::5]:8443"};
    const char *origins_bad[] = {"",
                                 "grafana.example",
                                 "https://grafana.example/",
                                 "https://grafana.example/d/x",
                                 "ftp://grafana.example",
                                 "https://",
                                 "https://fd00::5",
                                 "https://a b",
                                 "https://x:port",
                                 "**"};
    for (size_t i = 0; i < sizeof origins_ok / sizeof *origins_ok; i++)
        CHECK(cuzk_http_origin_valid(origins_ok[i]));
    for (size_t i = 0; i < sizeof origins_bad / sizeof *origins_bad; i++)
        CHECK(!cuzk_http_origin_valid(origins_bad[i]));
}

static void test_head(void)
{
    CHECK(cuzk_http_head_complete("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27));
    CHECK(cuzk_http_head_complete("GET / HTTP/1.1\nHost: x\n\n", 24));
    CHECK(cuzk_http_head_complete("GET / HTTP/1.1\r\n\r\n", 18));
    CHECK(!cuzk_http_head_complete("GET / HTTP/1.1\r\nHost: x\r\n", 25));
    CHECK(!cuzk_http_head_complete("GET / HTTP/1.1\r\nHost: x\r\n\r", 26));
    CHECK(!cuzk_http_head_complete("GET / HTTP/1.1\r\n", 16));
    CHECK(!cuzk_http_head_complete("", 0));
    /* the length bounds it, and a NUL ends the text */
    CHECK(!cuzk_http_head_complete("GET / HTTP/1.1\r\n\r\n", 17));
    static const char nul[] = "GET / HTTP/1.1\r\n\0\r\n\r\n";
    CHECK(!cuzk_http_head_complete(nul, sizeof nul - 1));
    const char *v;
    size_t n;
    static const char req[] = "GET / HTTP/1.1\r\nAccept: a\r\nX-Host: no\r\nhost:  h1:80 \r\n\r\nHost: body";
    CHECK(cuzk_http_header(&v, &n, req, sizeof req - 1, "Host") == 1 && n == 5 && !memcmp(v, "h1:80", 5));
    CHECK(cuzk_http_header(&v, &n, req, sizeof req - 1, "Origin") == 0);
    CHECK(cuzk_http_header(&v, &n, req, 30, "Host") == 0); /* past len */
}

static const test_case tests[] = {
    {"loopback_hosts", test_loopback_hosts}, {"refused_hosts", test_refused_hosts},
    {"listed_hosts", test_listed_hosts},     {"cors", test_cors},
    {"config_forms", test_config_forms},     {"head", test_head},
};

TEST_MAIN(tests)
