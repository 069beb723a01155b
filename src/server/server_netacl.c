/* CIDR networks and gRPC peer addresses; contract in server_netacl.h. */
#include "server_netacl.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* text as an IPv4 (mapped) or IPv6 address; false when it is neither. */
static bool parse_addr(uint8_t out[16], bool *v4, const char *text)
{
    struct in_addr a4;
    if (inet_pton(AF_INET, text, &a4) == 1) {
        memcpy(out, v4_mapped, 12);
        memcpy(out + 12, &a4, 4);
        *v4 = true;
        return true;
    }
    *v4 = false;
    return inet_pton(AF_INET6, text, out) == 1;
}

static void mask_bits(uint8_t out[16], const uint8_t in[16], unsigned bits)
{
    for (unsigned i = 0; i < 16; i++) {
        unsigned keep = bits >= 8 * (i + 1) ? 8 : bits > 8 * i ? bits - 8 * i : 0;
        out[i] = (uint8_t)(in[i] & (uint8_t)(0xff00u >> keep));
    }
}

void cuzk_net_format(char *out, size_t cap, const cuzk_net *n)
{
    char a[INET6_ADDRSTRLEN];
    bool v4 = n->bits >= 96 && !memcmp(n->addr, v4_mapped, 12);
    inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? n->addr + 12 : n->addr, a, sizeof a);
    snprintf(out, cap, "%s/%u", a, v4 ? n->bits - 96u : n->bits);
}

int cuzk_net_parse(cuzk_net *out, const char *text, char *err, size_t err_len)
{
    char a[INET6_ADDRSTRLEN + 1];
    const char *slash = strchr(text, '/');
    size_t alen = slash ? (size_t)(slash - text) : strlen(text);
    if (!alen)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "'%s': expected a network like 10.1.2.0/24 or fd00::/8",
                         text);
    bool v4 = false;
    uint8_t addr[16];
    if (alen >= sizeof a || (memcpy(a, text, alen), a[alen] = 0, !parse_addr(addr, &v4, a)))
        return cuzk_errf(
            err, err_len, CUZK_ERR_ARG,
            "'%s': '%.*s' is not an IPv4 or IPv6 address (a network is written like 10.1.2.0/24 or "
            "fd00::/8; names are not accepted)",
            text, (int)(alen > 64 ? 64 : alen), text);
    unsigned max = v4 ? 32 : 128, bits = max;
    if (slash) {
        const char *p = slash + 1;
        size_t nd = strspn(p, "0123456789");
        bits = 0;
        for (size_t i = 0; i < nd && i < 4; i++)
            bits = bits * 10 + (unsigned)(p[i] - '0');
        if (!nd || p[nd] || nd > 3 || bits > max)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "'%s': the prefix length after '/' must be 0..%u",
                             text, max);
    }
    out->bits = (uint8_t)(v4 ? 96 + bits : bits);
    mask_bits(out->addr, addr, out->bits);
    if (memcmp(out->addr, addr, 16)) {
        char meant[64];
        cuzk_net_format(meant, sizeof meant, out);
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "'%s': the address has bits set past the /%u prefix (did you mean %s?)", text, bits,
                         meant);
    }
    return CUZK_OK;
}

bool cuzk_net_contains(const cuzk_net *n, const uint8_t addr[16])
{
    uint8_t m[16];
    mask_bits(m, addr, n->bits);
    return !memcmp(m, n->addr, 16);
}

bool cuzk_net_is_loopback(const uint8_t a[16])
{
    static const uint8_t v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return !memcmp(a, v6_loopback, 16) || (!memcmp(a, v4_mapped, 12) && a[12] == 127);
}

/* s starts with the bracket b ("[" or "]") or its percent-encoding: the
 * length of that form, or 0. */
static size_t bracket(const char *s, char b)
{
    if (*s == b) return 1;
    const char *enc = b == '[' ? "%5B" : "%5D";
    return !strncasecmp(s, enc, 3) ? 3 : 0;
}

bool cuzk_net_peer_addr(uint8_t out[16], const char *peer)
{
    char a[INET6_ADDRSTRLEN + 1];
    const char *p, *end;
    bool v4;
    if (!strncmp(peer, "ipv4:", 5)) {
        p = peer + 5;
        end = strrchr(p, ':');
    } else if (!strncmp(peer, "ipv6:", 5) && bracket(peer + 5, '[')) {
        p = peer + 5 + bracket(peer + 5, '[');
        end = p;
        while (*end && !bracket(end, ']'))
            end++;
        if (!*end) return false;
        const char *zone = memchr(p, '%', (size_t)(end - p)); /* "%25eth0" or "%eth0" */
        if (zone) end = zone;
    } else {
        return false;
    }
    if (!end || end <= p || (size_t)(end - p) >= sizeof a) return false;
    memcpy(a, p, (size_t)(end - p));
    a[end - p] = 0;
    return parse_addr(out, &v4, a);
}
