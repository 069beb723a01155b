/* daemon.allow_plaintext_from's networks (src/server/server_netacl.c):
 * CIDR parsing, matching and gRPC peer strings.  Expectations come from
 * CIDR itself (RFC 4632: a.b.c.d/n is every address whose first n bits are
 * those of a.b.c.d), RFC 4291's IPv4-mapped form ::ffff:a.b.c.d, and the
 * peer strings gRPC 1.51 reports (seen with Python's grpcio against a
 * [::]:0 listener: "ipv4:127.0.0.1:53702", "ipv6:%5B::1%5D:46774"); the
 * random cases compare against a bit-by-bit reference matcher. */
#include <arpa/inet.h>
#include <string.h>

#include "harness.h"
#include "server_netacl.h"

static bool parses(cuzk_net *n, const char *text)
{
    char err[256];
    return cuzk_net_parse(n, text, err, sizeof err) == CUZK_OK;
}

/* The 16-byte form of a textual address, built here with inet_pton. */
static void addr16(uint8_t out[16], const char *text)
{
    struct in_addr a4;
    memset(out, 0, 16);
    if (inet_pton(AF_INET, text, &a4) == 1) {
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &a4, 4);
    } else if (inet_pton(AF_INET6, text, out) != 1) {
        CHECK(!"test address does not parse");
    }
}

static bool in(const char *net, const char *addr)
{
    cuzk_net n;
    uint8_t a[16];
    if (!parses(&n, net)) {
        CHECK(!"test network does not parse");
        return false;
    }
    addr16(a, addr);
    return cuzk_net_contains(&n, a);
}

static void test_ipv4(void)
{
    CHECK(in("10.1.2.0/24", "10.1.2.0"));
    CHECK(in("10.1.2.0/24", "10.1.2.255"));
    CHECK(!in("10.1.2.0/24", "10.1.3.0"));
    CHECK(!in("10.1.2.0/24", "10.1.1.255"));
    CHECK(in("127.0.0.2/32", "127.0.0.2"));
    CHECK(!in("127.0.0.2/32", "127.0.0.3"));
    CHECK(in("127.0.0.2", "127.0.0.2")); /* a bare address is a /32 */
    CHECK(!in("127.0.0.2", "127.0.0.1"));
    CHECK(in("0.0.0.0/0", "203.0.113.7"));
    CHECK(in("172.16.0.0/12", "172.31.255.255"));
    CHECK(!in("172.16.0.0/12", "172.32.0.0"));
    CHECK(in("192.168.0.128/25", "192.168.0.200"));
    CHECK(!in("192.168.0.128/25", "192.168.0.127"));
    /* an IPv4 rule never matches a native IPv6 address */
    CHECK(!in("0.0.0.0/0", "2001:db8::1"));
    CHECK(!in("127.0.0.0/8", "::1"));
}

static void test_ipv6(void)
{
    CHECK(in("fd00::/8", "fd12:3456::1"));
    CHECK(in("fd00::/8", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
    CHECK(!in("fd00::/8", "fc00::1"));
    CHECK(!in("fd00::/8", "fe80::1"));
    CHECK(in("2001:db8::/32", "2001:db8:ffff::1"));
    CHECK(!in("2001:db8::/32", "2001:db9::"));
    CHECK(in("2001:db8::1", "2001:db8::1")); /* /128 */
    CHECK(!in("2001:db8::1", "2001:db8::2"));
    CHECK(in("2001:db8:0:0:8000::/65", "2001:db8::8000:0:0:1"));
    CHECK(!in("2001:db8::/65", "2001:db8::8000:0:0:1"));
    CHECK(in("::/0", "fe80::1"));
}

/* RFC 4291 2.5.5.2: ::ffff:a.b.c.d is the IPv4 host a.b.c.d. */
static void test_mapped(void)
{
    CHECK(in("10.1.2.0/24", "::ffff:10.1.2.9"));
    CHECK(!in("10.1.2.0/24", "::ffff:10.1.3.9"));
    CHECK(in("::ffff:10.1.2.0/120", "10.1.2.77"));
    CHECK(!in("::ffff:10.1.2.0/120", "10.1.3.77"));
    cuzk_net a, b;
    REQUIRE(parses(&a, "::ffff:10.0.0.0/104") && parses(&b, "10.0.0.0/8"));
    CHECK(!memcmp(&a, &b, sizeof a));
    /* the IPv4-compatible form ::a.b.c.d (deprecated) is not IPv4 */
    CHECK(!in("10.0.0.0/8", "::10.1.2.3"));
}

static void test_format(void)
{
    static const char *const t[][2] = {
        {"10.1.2.0/24", "10.1.2.0/24"}, {"fd00::/8", "fd00::/8"},
        {"127.0.0.2", "127.0.0.2/32"},  {"::1", "::1/128"},
        {"0.0.0.0/0", "0.0.0.0/0"},     {"::/0", "::/0"},
        {"FD00::/8", "fd00::/8"},       {"::ffff:10.0.0.0/104", "10.0.0.0/8"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        cuzk_net n, back;
        char s[64];
        REQUIRE(parses(&n, t[i][0]));
        cuzk_net_format(s, sizeof s, &n);
        CHECK(!strcmp(s, t[i][1]));
        CHECK(parses(&back, s) && !memcmp(&back, &n, sizeof n));
    }
}

static void test_bad_input(void)
{
    static const char *const bad[] = {
        "",
        "/24",
        "10.1.2",
        "10.1.2.0/",
        "10.1.2.0/33",
        "10.1.2.0/-1",
        "10.1.2.0/+8",
        "10.1.2.0/8x",
        "010.1.2.0/24",
        "10.1.2.0/ 24",
        " 10.1.2.0",
        "10.1.2.0 ",
        "fd00::/129",
        "fd00::/1000",
        "[fd00::]/8",
        "fe80::1%eth0",
        "localhost",
        "10.1.2.0/24/8",
        "::1/0x10",
        "256.0.0.0/8",
        "10.1.2.0/24,",
        "fd00:::/8",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuzk_net n;
        char err[256] = "";
        CHECK(cuzk_net_parse(&n, bad[i], err, sizeof err) == CUZK_ERR_ARG);
        CHECK(strstr(err, bad[i]) != NULL); /* the message quotes the text */
    }
    /* bits past the prefix: refused, naming the network meant */
    cuzk_net n;
    char err[256] = "";
    CHECK(cuzk_net_parse(&n, "10.1.2.5/24", err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "did you mean 10.1.2.0/24?") != NULL);
    CHECK(cuzk_net_parse(&n, "fd00::1/8", err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "did you mean fd00::/8?") != NULL);
    CHECK(cuzk_net_parse(&n, "10.1.2.0/33", err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "0..32") != NULL);
    CHECK(cuzk_net_parse(&n, "fd00::/129", err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "0..128") != NULL);
}

static bool peer_in(const char *net, const char *peer)
{
    cuzk_net n;
    uint8_t a[16];
    return parses(&n, net) && cuzk_net_peer_addr(a, peer) && cuzk_net_contains(&n, a);
}

static void test_peers(void)
{
    uint8_t a[16], want[16];
    CHECK(cuzk_net_peer_addr(a, "ipv4:127.0.0.2:5555"));
    addr16(want, "127.0.0.2");
    CHECK(!memcmp(a, want, 16));
    CHECK(cuzk_net_is_loopback(a));
    CHECK(cuzk_net_peer_addr(a, "ipv6:[::1]:5555") && cuzk_net_is_loopback(a));
    CHECK(cuzk_net_peer_addr(a, "ipv6:%5B::1%5D:46774") && cuzk_net_is_loopback(a));
    CHECK(cuzk_net_peer_addr(a, "ipv6:%5b::1%5d:46774") && cuzk_net_is_loopback(a));
    CHECK(cuzk_net_peer_addr(a, "ipv6:[::ffff:127.0.0.9]:1") && cuzk_net_is_loopback(a));
    CHECK(cuzk_net_peer_addr(a, "ipv6:[fe80::1%25eth0]:1"));
    addr16(want, "fe80::1");
    CHECK(!memcmp(a, want, 16));
    CHECK(cuzk_net_peer_addr(a, "ipv6:%5Bfe80::2%25eth0%5D:1"));
    addr16(want, "fe80::2");
    CHECK(!memcmp(a, want, 16));
    CHECK(peer_in("10.1.2.0/24", "ipv6:[::ffff:10.1.2.3]:9820")); /* dual-stack listener */
    CHECK(peer_in("fd00::/8", "ipv6:%5Bfd00::7%5D:1"));
    CHECK(!peer_in("fd00::/8", "ipv4:10.1.2.3:1"));
    CHECK(!peer_in("127.0.0.2/32", "ipv4:127.0.0.3:5555"));
    /* what is not an IP peer matches nothing */
    static const char *const none[] = {"unix:/run/curio/cuzk.sock",
                                       "unix:",
                                       "",
                                       "ipv4:",
                                       "ipv4:1.2.3.4",
                                       "ipv6:::1:5",
                                       "ipv6:[::1",
                                       "ipv4:host:1",
                                       "ipv6:[zz]:1",
                                       "ipvx:1.2.3.4:5"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        CHECK(!cuzk_net_peer_addr(a, none[i]));
    addr16(a, "128.0.0.1");
    CHECK(!cuzk_net_is_loopback(a));
    addr16(a, "::2");
    CHECK(!cuzk_net_is_loopback(a));
}

/* Random networks and addresses against the definition, bit by bit. */
static void test_random(void)
{
    for (int it = 0; it < 2000 * test_iterations; it++) {
        uint8_t base[16], addr[16];
        test_rand_bytes(base, 16);
        unsigned bits = (unsigned)(test_rand64() % 129);
        memcpy(addr, base, 16);
        if (test_rand64() & 1) { /* flip one bit, inside or outside the prefix */
            unsigned b = (unsigned)(test_rand64() % 128);
            addr[b / 8] ^= (uint8_t)(0x80 >> (b % 8));
        }
        bool ref = true;
        for (unsigned b = 0; b < bits; b++)
            if (((base[b / 8] ^ addr[b / 8]) >> (7 - b % 8)) & 1) ref = false;
        for (unsigned b = bits; b < 128; b++) /* the network address: host bits zero */
            base[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
        char text[INET6_ADDRSTRLEN + 8];
        inet_ntop(AF_INET6, base, text, sizeof text);
        snprintf(text + strlen(text), 8, "/%u", bits);
        cuzk_net n;
        REQUIRE(parses(&n, text));
        CHECK(cuzk_net_contains(&n, addr) == ref);
    }
}

static const test_case tests[] = {
    {"ipv4", test_ipv4},           {"ipv6", test_ipv6},   {"mapped", test_mapped}, {"format", test_format},
    {"bad_input", test_bad_input}, {"peers", test_peers}, {"random", test_random},
};

TEST_MAIN(tests)
