/* Host and Origin checks of the HTTP status listener; design in
 * server_http_guard.h. */
#include "server_http_guard.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "server_netacl.h"

/* The text ends at len or at a NUL, whichever comes first. */
static size_t text_len(const char *req, size_t len)
{
    const char *nul = memchr(req, 0, len);
    return nul ? (size_t)(nul - req) : len;
}

bool cuzk_http_head_complete(const char *req, size_t len)
{
    len = text_len(req, len);
    for (size_t i = 0; i + 1 < len; i++)
        if (req[i] == '\n' &&
            (req[i + 1] == '\n' || (req[i + 1] == '\r' && i + 2 < len && req[i + 2] == '\n')))
            return true;
    return false;
}

int cuzk_http_header(const char **val, size_t *vlen, const char *req, size_t len, const char *name)
{
    const char *p = req, *end = req + text_len(req, len);
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t nlen = strlen(name);
    int found = 0;
    for (p = nl ? nl + 1 : end; p < end; p = nl + 1) { /* the request line is skipped */
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        const char *le = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
        if (le == p) break; /* the empty line: end of the head */
        const char *colon = memchr(p, ':', (size_t)(le - p));
        if (!colon || (size_t)(colon - p) != nlen || strncasecmp(p, name, nlen)) continue;
        const char *v = colon + 1, *ve = le;
        while (v < ve && (*v == ' ' || *v == '\t'))
            v++;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        if (found++) return -1;
        *val = v;
        *vlen = (size_t)(ve - v);
    }
    return found;
}

/* s[0..len) as "host[:port]" (IPv6 in brackets): the host, without
 * brackets, in out.  *bracketed tells an IPv6 literal apart.  False when
 * malformed, or when a port is there and port_ok is false. */
static bool host_part(char *out, size_t cap, bool *bracketed, const char *s, size_t len, bool port_ok)
{
    const char *end = s + len, *h = s, *he, *rest;
    *bracketed = len && *s == '[';
    if (*bracketed) {
        h = s + 1;
        he = memchr(h, ']', len - 1);
        if (!he) return false;
        rest = he + 1;
    } else {
        he = memchr(s, ':', len);
        if (!he) he = end;
        rest = he;
    }
    if (rest < end) {
        size_t nd = (size_t)(end - rest - 1);
        if (!port_ok || *rest != ':' || nd == 0 || nd > 5) return false;
        for (const char *d = rest + 1; d < end; d++)
            if (!isdigit((unsigned char)*d)) return false;
    }
    size_t n = (size_t)(he - h);
    if (!n || n >= cap) return false;
    memcpy(out, h, n);
    out[n] = 0;
    return true;
}

/* An IPv4 address (mapped) or an IPv6 one. */
static bool ip_addr(uint8_t out[16], const char *s)
{
    struct in_addr a4;
    if (inet_pton(AF_INET, s, &a4) == 1) {
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        memcpy(out, mapped, 12);
        memcpy(out + 12, &a4, 4);
        return true;
    }
    return inet_pton(AF_INET6, s, out) == 1;
}

/* A DNS name: labels of letters, digits and '-' (1..63 bytes), at most
 * 253 bytes without an optional final dot. */
static bool dns_name(const char *s)
{
    size_t n = strlen(s), label = 0;
    if (n && s[n - 1] == '.') n--;
    if (!n || n > 253) return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            if (!label) return false;
            label = 0;
        } else if ((isalnum((unsigned char)s[i]) || s[i] == '-') && ++label <= 63) {
            continue;
        } else {
            return false;
        }
    }
    return label > 0;
}

/* A host of a Host header or an origin: a name, an IPv4 address, or
 * (bracketed only) an IPv6 address. */
static bool host_ok(const char *h, bool bracketed)
{
    uint8_t a[16];
    struct in_addr a4;
    if (bracketed) return inet_pton(AF_INET6, h, a) == 1;
    return inet_pton(AF_INET, h, &a4) == 1 || dns_name(h);
}

bool cuzk_http_host_valid(const char *s)
{
    uint8_t a[16];
    char h[256];
    bool br;
    if (inet_pton(AF_INET6, s, a) == 1) return true; /* fd00::1 without brackets */
    return host_part(h, sizeof h, &br, s, strlen(s), false) && host_ok(h, br);
}

bool cuzk_http_origin_valid(const char *s)
{
    char h[256];
    bool br;
    if (!strcmp(s, "*")) return true;
    size_t skip = !strncasecmp(s, "http://", 7) ? 7 : !strncasecmp(s, "https://", 8) ? 8 : 0;
    return skip && host_part(h, sizeof h, &br, s + skip, strlen(s + skip), true) && host_ok(h, br);
}

/* Two names equal without case and without a final dot. */
static bool same_name(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na && a[na - 1] == '.') na--;
    if (nb && b[nb - 1] == '.') nb--;
    return na == nb && !strncasecmp(a, b, na);
}

bool cuzk_http_host_allowed(const char *host, size_t len, const cuzk_config_names *hosts)
{
    char h[256], e[260];
    bool br, ebr;
    uint8_t a[16], b[16];
    if (!host_part(h, sizeof h, &br, host, len, true) || !host_ok(h, br)) return false;
    bool is_ip = ip_addr(a, h);
    if (is_ip ? cuzk_net_is_loopback(a) : same_name(h, "localhost")) return true;
    for (uint32_t i = 0; i < hosts->n; i++) {
        const char *x = hosts->v[i];
        if (inet_pton(AF_INET6, x, b) != 1) { /* a bare IPv6 entry is taken as it is */
            if (!host_part(e, sizeof e, &ebr, x, strlen(x), false)) continue;
            x = e;
        }
        if (is_ip ? ip_addr(b, x) && !memcmp(a, b, 16) : !ip_addr(b, x) && same_name(h, x)) return true;
    }
    return false;
}

void cuzk_http_guard(cuzk_http_verdict *v, const char *req, size_t len, const cuzk_config_names *hosts,
                     const cuzk_config_names *origins)
{
    const char *host, *origin;
    size_t hlen, olen;
    *v = (cuzk_http_verdict){0, NULL, NULL, NULL};
    int nh = cuzk_http_header(&host, &hlen, req, len, "Host");
    if (nh != 1) {
        *v = (cuzk_http_verdict){400, "Bad Request",
                                 nh ? "more than one Host header\n" : "a Host header is required\n", NULL};
        return;
    }
    if (!cuzk_http_host_allowed(host, hlen, hosts)) {
        *v = (cuzk_http_verdict){421, "Misdirected Request",
                                 "this Host is not served: use localhost or 127.0.0.1, or list the name in "
                                 "daemon.status_hosts\n",
                                 NULL};
        return;
    }
    for (uint32_t i = 0; i < origins->n; i++)
        if (!strcmp(origins->v[i], "*")) {
            v->allow_origin = "*";
            return;
        }
    /* byte for byte: a browser accepts the answer only if it is its own
     * serialization of the origin (Fetch standard, CORS check) */
    if (cuzk_http_header(&origin, &olen, req, len, "Origin") != 1) return;
    for (uint32_t i = 0; i < origins->n; i++)
        if (strlen(origins->v[i]) == olen && !memcmp(origins->v[i], origin, olen))
            v->allow_origin = origins->v[i];
}
