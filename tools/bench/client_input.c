/* The Rust cuzk-bench's input forms, read the way it reads them:
 *
 * --vanilla FILE: Curio and the Rust bench keep PoSt and SnapDeals vanilla
 * proofs as Go's json.Marshal([][]byte), a JSON array of standard base64
 * strings; the Rust bench sends each element as one of the request's
 * vanilla_proofs and any file that is not such an array as one raw proof.
 * We do the same, but a file that is plainly JSON text and still not such
 * an array is an error naming the element (the Rust bench would send it
 * raw and the daemon would fail on it).  yajl tokenizes the array (as the
 * library's C1 and SnapDeals readers do) and the library's strict base64
 * decoder (OpenSSL's EVP_DecodeBlock underneath) decodes each string.
 *
 * Circuit ids: the Rust daemon's ids (porep-32g, wpost-32g, winning-32g,
 * snap-64g, ...) are spelled like ours; the -t kind names with a size are
 * accepted too and turned into that spelling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yajl/yajl_parse.h>

#include "cli_util.h"
#include "client.h"
#include "cuzk/filecoin.h"
#include "cuzk/seal_snap.h"
#include "g16_cli.h"

/* ---- --vanilla FILE ------------------------------------------------------- */

typedef struct {
    client_req *r;
    const char *path;
    size_t n; /* elements seen */
    int depth;
    bool failed; /* a callback stopped the parse (message printed) */
} va_ctx;

static int va_reject(va_ctx *c, const char *what)
{
    fprintf(stderr, "cuzk-bench: --vanilla %s: element %zu is %s, expected a base64 string\n", c->path, c->n,
            what);
    c->failed = true;
    return 0;
}

static int va_null(void *ctx)
{
    return va_reject(ctx, "null");
}

static int va_bool(void *ctx, int b)
{
    return (void)b, va_reject(ctx, "a boolean");
}

static int va_number(void *ctx, const char *s, size_t n)
{
    return (void)s, (void)n, va_reject(ctx, "a number");
}

static int va_map(void *ctx)
{
    return va_reject(ctx, "an object");
}

static int va_start_array(void *ctx)
{
    va_ctx *c = ctx;
    return c->depth++ ? va_reject(c, "an array") : 1;
}

static int va_end_array(void *ctx)
{
    ((va_ctx *)ctx)->depth--;
    return 1;
}

static int va_string(void *ctx, const unsigned char *s, size_t len)
{
    va_ctx *c = ctx;
    char what[64], err[256];
    snprintf(what, sizeof what, "element %zu", c->n);
    uint8_t *buf = malloc(len / 4 * 3 + 1);
    size_t n = 0;
    if (!buf ||
        cuzk_snap_base64_decode(buf, len / 4 * 3 + 1, &n, (const char *)s, len, what, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: --vanilla %s: %s\n", c->path, buf ? err : "out of memory");
        free(buf);
        c->failed = true;
        return 0;
    }
    if (!n) {
        free(buf);
        fprintf(stderr, "cuzk-bench: --vanilla %s: element %zu is an empty proof\n", c->path, c->n);
        c->failed = true;
        return 0;
    }
    c->n++;
    if (client_add_vanilla(c->r, buf, n)) {
        c->failed = true;
        return 0;
    }
    return 1;
}

static const yajl_callbacks va_callbacks = {
    va_null, va_bool, NULL, NULL, va_number, va_string, va_map, NULL, va_map, va_start_array, va_end_array,
};

/* Is b plain JSON text (printable ASCII and JSON whitespace) starting
 * with '['?  Base64 arrays always are; a raw bincode proof never is (its
 * u64 fields hold zero bytes), even when its first byte is '['. */
static bool looks_like_json_array(const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    if (i == n || b[i] != '[') return false;
    for (; i < n; i++)
        if ((b[i] < 0x20 && b[i] != '\t' && b[i] != '\n' && b[i] != '\r') || b[i] > 0x7e) return false;
    return true;
}

static int va_json(client_req *r, const char *path, const uint8_t *b, size_t n)
{
    va_ctx c = {.r = r, .path = path};
    size_t before = r->m.n_vanilla_proofs;
    yajl_handle h = yajl_alloc(&va_callbacks, NULL, &c);
    if (!h) {
        fprintf(stderr, "cuzk-bench: --vanilla %s: out of memory\n", path);
        return -1;
    }
    yajl_status st = yajl_parse(h, b, n);
    size_t at = yajl_get_bytes_consumed(h);
    if (st == yajl_status_ok && (st = yajl_complete_parse(h)) != yajl_status_ok) at = n; /* ends early */
    if (st != yajl_status_ok && !c.failed) {
        fprintf(stderr, "cuzk-bench: --vanilla %s: JSON syntax error %s byte %zu (in element %zu)\n", path,
                at == n ? "at the end," : "near", at, c.n);
        c.failed = true;
    }
    yajl_free(h);
    if (!c.failed && c.n == 0) {
        fprintf(stderr, "cuzk-bench: --vanilla %s: an empty array, no vanilla proofs\n", path);
        c.failed = true;
    }
    if (c.failed) { /* drop what this file added */
        while (r->m.n_vanilla_proofs > before)
            free(r->vp[--r->m.n_vanilla_proofs].data);
        return -1;
    }
    return 0;
}

int client_add_vanilla_file(client_req *r, const char *path)
{
    size_t n = 0;
    uint8_t *b = g16_cli_read_file(path, &n);
    if (!b) return -1;
    if (looks_like_json_array(b, n)) {
        int rc = va_json(r, path, b, n);
        free(b);
        return rc;
    }
    if (!n) {
        free(b);
        fprintf(stderr, "cuzk-bench: --vanilla %s: the file is empty\n", path);
        return -1;
    }
    return client_add_vanilla(r, b, n);
}

/* ---- circuit ids ---------------------------------------------------------- */

static const struct {
    const char *tag;
    uint64_t bytes;
} id_sizes[] = {
    {"2k", 2048}, {"8m", 8ull << 20}, {"512m", 512ull << 20}, {"32g", 32ull << 30}, {"64g", 64ull << 30}};

/* "32g" or anything cli_sector_size reads ("32GiB", bytes); 0 if neither. */
static uint64_t id_size(const char *s)
{
    for (size_t i = 0; i < sizeof id_sizes / sizeof id_sizes[0]; i++)
        if (!strcasecmp(s, id_sizes[i].tag)) return id_sizes[i].bytes;
    return cli_sector_size(s);
}

/* The registry's circuit id of (kind, size): the daemon's spelling. */
static const char *registry_id(int kind, uint64_t bytes)
{
    for (uint64_t id = 0; id < 20; id++) {
        const cuzk_fil_seal_info *sl;
        const cuzk_fil_post_info *p;
        const cuzk_snap_info *sn;
        if (kind == 1 && !cuzk_fil_seal_lookup(&sl, id) && sl->sector_size == bytes) return sl->circuit_id;
        if (kind == 2 && !cuzk_snap_lookup(&sn, id) && sn->sector_size == bytes) return sn->circuit_id;
        if ((kind == 3 || kind == 4) && !cuzk_fil_post_lookup(&p, id) && p->sector_size == bytes &&
            p->winning == (kind == 4))
            return p->circuit_id;
    }
    return NULL;
}

int client_circuit_id(char *out, size_t cap, const char *id, const char *cmd)
{
    uint64_t n;
    if (!strncmp(id, "chain-", 6) && !cli_u64(&n, id + 6, NULL)) { /* the test provider's */
        snprintf(out, cap, "%s", id);
        return 0;
    }
    char kind[64];
    const char *dash = strrchr(id, '-');
    const char *found = NULL;
    if (dash && (size_t)(dash - id) < sizeof kind) {
        snprintf(kind, sizeof kind, "%.*s", (int)(dash - id), id);
        int k = client_kind_from_name(kind);
        uint64_t bytes = id_size(dash + 1);
        if (k >= 1 && k <= 4 && bytes) found = registry_id(k, bytes);
    }
    if (!found) {
        fprintf(
            stderr,
            "%s: unknown circuit id '%s'; accepted: KIND-SIZE with KIND porep, snap, wpost or winning (or a "
            "-t "
            "name: porep-c2, snap-deals, window-post, winning-post, ...) and SIZE 2k, 8m, 512m, 32g, 64g (or "
            "2KiB ... 64GiB), e.g. the Rust ids porep-32g, porep-64g, wpost-32g, winning-32g, snap-32g, "
            "snap-64g; or chain-N (test provider)\n",
            cmd, id);
        return -1;
    }
    snprintf(out, cap, "%s", found);
    return 0;
}
