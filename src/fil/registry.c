/* Registered proofs (filecoin-proofs-api registry.rs, filecoin-proofs
 * constants.rs/parameters.rs) and the parameter files they need.
 *
 * File names follow storage-proofs-core parameter_cache.rs:
 * "v28-" + cache_prefix + "-" + hex(sha256(identifier)) + ".params", where
 * the identifier is the Debug-like string of the circuit's public
 * parameters.  The api version is not part of it: V1 and V1_2 WindowPoSt
 * share one parameter file. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "fil/fil_internal.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

static const struct {
    uint64_t size;
    const char *tag;   /* name part: 2KiB */
    const char *short_id; /* circuit id part: 2k */
    uint32_t window_sectors; /* WINDOW_POST_SECTOR_COUNT */
    bool large;
} sizes[5] = {
    {2 * KIB, "2KiB", "2k", 2, false},     {8 * MIB, "8MiB", "8m", 2, false},
    {512 * MIB, "512MiB", "512m", 2, false}, {32 * GIB, "32GiB", "32g", 2349, true},
    {64 * GIB, "64GiB", "64g", 2300, true},
};

static cuzk_fil_post_info post_table[15];
static cuzk_fil_seal_info seal_table[20];
static char post_names[15][40], post_circuits[15][16];
static char seal_names[20][48], seal_circuits[20][16];

/* Built once at load: a constructor keeps lookups lock-free and makes the
 * tables immutable before any thread can read them. */
__attribute__((constructor)) static void fil_registry_init(void)
{
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 5; s++) {
            int id = 5 * k + s;
            cuzk_fil_post_info *p = &post_table[id];
            bool win = k == 0;
            snprintf(post_names[id], sizeof post_names[id], "StackedDrg%s%s%s", win ? "Winning" : "Window",
                     sizes[s].tag, k == 2 ? "V1_2" : "V1");
            snprintf(post_circuits[id], sizeof post_circuits[id], "%s-%s", win ? "winning" : "wpost",
                     sizes[s].short_id);
            *p = (cuzk_fil_post_info){
                .id = (uint64_t)id, .name = post_names[id], .winning = win,
                .sector_size = sizes[s].size, .api_version = k == 2 ? CUZK_FIL_API_V1_2 : CUZK_FIL_API_V1_0,
                .challenge_count = win ? 66 : 10, .sector_count = win ? 1 : sizes[s].window_sectors,
                /* winning_post_setup_params: 66 sectors x 1 challenge */
                .circuit_challenge_count = win ? 1 : 10,
                .circuit_sector_count = win ? 66 : sizes[s].window_sectors,
                .circuit_id = post_circuits[id]};
        }
    static const char *const suffix[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                          "V1_2_Feat_NonInteractivePoRep"};
    for (int k = 0; k < 4; k++)
        for (int s = 0; s < 5; s++) {
            int id = 5 * k + s;
            bool large = sizes[s].large;
            snprintf(seal_names[id], sizeof seal_names[id], "StackedDrg%s%s", sizes[s].tag, suffix[k]);
            snprintf(seal_circuits[id], sizeof seal_circuits[id], "porep-%s", sizes[s].short_id);
            seal_table[id] = (cuzk_fil_seal_info){
                .id = (uint64_t)id, .name = seal_names[id], .sector_size = sizes[s].size,
                .api_version = k == 0 ? CUZK_FIL_API_V1_0 : k == 1 ? CUZK_FIL_API_V1_1 : CUZK_FIL_API_V1_2,
                .feature = k == 2 ? CUZK_FIL_SEAL_SYNTHETIC : k == 3 ? CUZK_FIL_SEAL_NI : CUZK_FIL_SEAL_PLAIN,
                .partitions = k == 3 ? (large ? 126 : 13) : (large ? 10 : 1),
                .layers = large ? 11 : 2,
                /* ceil(min challenges / partitions): 2/1, 176/10, NI 26/13, 2253/126 */
                .challenges_per_partition = large ? 18 : 2,
                .circuit_id = seal_circuits[id]};
        }
}

int cuzk_fil_post_lookup(const cuzk_fil_post_info **out, uint64_t registered_proof)
{
    if (!out || registered_proof >= 15) return CUZK_ERR_ARG;
    *out = &post_table[registered_proof];
    return CUZK_OK;
}

int cuzk_fil_seal_lookup(const cuzk_fil_seal_info **out, uint64_t registered_proof)
{
    if (!out || registered_proof >= 20) return CUZK_ERR_ARG;
    *out = &seal_table[registered_proof];
    return CUZK_OK;
}

int cuzk_fil_post_lookup_circuit(const cuzk_fil_post_info **out, const char *circuit_id)
{
    if (!out || !circuit_id) return CUZK_ERR_ARG;
    for (int id = 14; id >= 0; id--) /* newest first: wpost-* -> V1_2 */
        if (!strcmp(post_table[id].circuit_id, circuit_id)) {
            *out = &post_table[id];
            return CUZK_OK;
        }
    return CUZK_ERR_ARG;
}

void cuzk_fil_seal_porep_id(uint8_t out[32], const cuzk_fil_seal_info *s)
{
    memset(out, 0, 32);
    fil_put_le64(out, s->id); /* then nonce 0 (u64 LE) and 16 zero bytes */
}

/* CUZK_ERR_ARG for a sector size without a tree shape (no such proof). */
static int fil_tree_display(char *out, size_t cap, uint64_t sector_size)
{
    cuzk_fil_tree_shape sh;
    if (cuzk_fil_tree_shape_for_sector(&sh, sector_size)) return CUZK_ERR_ARG;
    snprintf(out, cap, "merkletree-poseidon_hasher-%u-%u-%u", sh.base_arity, sh.sub_arity,
             sh.top_arity);
    return CUZK_OK;
}

static int fil_cache_id(char *out, size_t cap, const char *prefix, const char *ident)
{
    uint8_t h[32];
    SHA256((const uint8_t *)ident, strlen(ident), h);
    int n = snprintf(out, cap, "%s-", prefix);
    if (n < 0 || (size_t)n + 65 > cap) return CUZK_ERR_ARG;
    for (int i = 0; i < 32; i++) snprintf(out + n + 2 * i, 3, "%02x", h[i]);
    return CUZK_OK;
}

int cuzk_fil_post_param_id(char *out, size_t cap, const cuzk_fil_post_info *p)
{
    if (!out || !p) return CUZK_ERR_ARG;
    char tree[64], prefix[128], ident[160];
    if (fil_tree_display(tree, sizeof tree, p->sector_size)) return CUZK_ERR_ARG;
    snprintf(prefix, sizeof prefix, "proof-of-spacetime-fallback-%s", tree);
    snprintf(ident, sizeof ident,
             "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, sector_count: %u}",
             (unsigned long long)p->sector_size, p->circuit_challenge_count, p->circuit_sector_count);
    return fil_cache_id(out, cap, prefix, ident);
}

int cuzk_fil_seal_param_id(char *out, size_t cap, const cuzk_fil_seal_info *s)
{
    if (!out || !s) return CUZK_ERR_ARG;
    char tree[64], prefix[160], ident[400];
    if (fil_tree_display(tree, sizeof tree, s->sector_size)) return CUZK_ERR_ARG;
    snprintf(prefix, sizeof prefix, "stacked-proof-of-replication-%s-sha256_hasher", tree);
    /* StackedGraph id wraps the BucketGraph id (degree 6, the tree hasher);
     * expansion degree 8. */
    snprintf(ident, sizeof ident,
             "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 "
             "base_graph: drgraph::BucketGraph{size: %llu; degree: 6; hasher: poseidon_hasher} }, "
             "challenges: LayerChallenges { layers: %u, max_count: %u }, tree: %s }",
             (unsigned long long)(s->sector_size / 32), s->layers, s->challenges_per_partition, tree);
    return fil_cache_id(out, cap, prefix, ident);
}

int cuzk_fil_snap_param_id(char *out, size_t cap, uint64_t sector_size)
{
    char tree[64], prefix[128], ident[128];
    if (!out || fil_tree_display(tree, sizeof tree, sector_size)) return CUZK_ERR_ARG;
    snprintf(prefix, sizeof prefix, "empty-sector-update-%s", tree);
    snprintf(ident, sizeof ident, "empty_sector_update::PublicParams{ sector_nodes: %llu }",
             (unsigned long long)(sector_size / 32));
    return fil_cache_id(out, cap, prefix, ident);
}

int cuzk_fil_param_file_name(char *out, size_t cap, const char *param_id, const char *ext)
{
    if (!out || !param_id || !ext) return CUZK_ERR_ARG;
    int n = snprintf(out, cap, "v28-%s.%s", param_id, ext);
    return n < 0 || (size_t)n >= cap ? CUZK_ERR_ARG : CUZK_OK;
}

/* ---- parameters.json ------------------------------------------------------ */

static const char *fil_skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

/* Copy a JSON string (no escapes expected in these files) at p ('"').
 * A control character -- raw, JSON has none in strings (RFC 8259 section 7)
 * -- is refused: a NUL would cut the copy short without a word. */
static const char *fil_json_string(char *out, size_t cap, const char *p, const char *end)
{
    if (p >= end || *p != '"') return NULL;
    const char *q = ++p;
    while (q < end && *q != '"') {
        if (*q == '\\' || (unsigned char)*q < 0x20) return NULL;
        q++;
    }
    if (q >= end || (size_t)(q - p) >= cap) return NULL;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = 0;
    return q + 1;
}

int cuzk_fil_params_json_lookup(cuzk_fil_param_entry *out, const char *json, size_t len,
                                const char *name, char *err, size_t err_len)
{
    if (!out || !json || !name) return CUZK_ERR_ARG;
    const char *end = json + len;
    size_t nl = strlen(name);
    const char *p = json;
    for (;;) {
        p = memchr(p, '"', (size_t)(end - p));
        if (!p) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "parameters.json has no entry %s", name);
        if ((size_t)(end - p) > nl + 1 && !memcmp(p + 1, name, nl) && p[nl + 1] == '"') break;
        p++;
    }
    p = fil_skip_ws(p + nl + 2, end);
    if (p >= end || *p != ':') goto bad;
    p = fil_skip_ws(p + 1, end);
    if (p >= end || *p != '{') goto bad;
    p++;
    memset(out, 0, sizeof *out);
    int have = 0;
    for (;;) {
        char key[32];
        p = fil_skip_ws(p, end);
        if (p < end && *p == '}') break;
        if (!(p = fil_json_string(key, sizeof key, p, end))) goto bad;
        p = fil_skip_ws(p, end);
        if (p >= end || *p != ':') goto bad;
        p = fil_skip_ws(p + 1, end);
        if (!strcmp(key, "cid")) {
            if (!(p = fil_json_string(out->cid, sizeof out->cid, p, end))) goto bad;
            have |= 1;
        } else if (!strcmp(key, "digest")) {
            if (!(p = fil_json_string(out->digest, sizeof out->digest, p, end))) goto bad;
            have |= 2;
        } else if (!strcmp(key, "sector_size")) {
            uint64_t v = 0;
            if (p >= end || *p < '0' || *p > '9') goto bad;
            while (p < end && *p >= '0' && *p <= '9') {
                if (v > (UINT64_MAX - 9) / 10) goto bad;
                v = v * 10 + (uint64_t)(*p++ - '0');
            }
            out->sector_size = v;
            have |= 4;
        } else {
            goto bad; /* the file has exactly these three keys */
        }
        p = fil_skip_ws(p, end);
        if (p < end && *p == ',') p++;
    }
    if (have != 7) goto bad;
    return CUZK_OK;
bad:
    return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "parameters.json: malformed entry for %s near byte %zu",
                     name, (size_t)(p ? p - json : 0));
}

int cuzk_fil_file_digest(char out[33], const char *path, char *err, size_t err_len)
{
    return cuzk_fil_file_digest_stop(out, path, NULL, NULL, err, err_len);
}

int cuzk_fil_file_digest_stop(char out[33], const char *path, int (*stop)(void *ctx), void *stop_ctx, char *err,
                              size_t err_len)
{
    if (!out || !path) return CUZK_ERR_ARG;
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    int st = CUZK_OK;
    if (!ctx || !buf || !EVP_DigestInit_ex(ctx, EVP_blake2b512(), NULL)) {
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "blake2b: cannot set up the digest");
        goto done;
    }
    size_t n;
    uint64_t done_bytes = 0;
    for (;;) {
        int why = stop ? stop(stop_ctx) : 0;
        if (why) {
            struct stat sb;
            uint64_t total = fstat(fileno(f), &sb) == 0 ? (uint64_t)sb.st_size : 0;
            st = cuzk_errf(err, err_len, why, "hashing %s stopped after %" PRIu64 " of %" PRIu64 " MiB", path,
                           done_bytes >> 20, total >> 20);
            goto done;
        }
        if ((n = fread(buf, 1, cap, f)) == 0) break;
        EVP_DigestUpdate(ctx, buf, n);
        done_bytes += n;
    }
    if (ferror(f)) {
        st = cuzk_errf(err, err_len, CUZK_ERR_IO, "reading %s failed: %s", path, strerror(errno));
        goto done;
    }
    uint8_t md[64];
    unsigned mdlen = 0;
    EVP_DigestFinal_ex(ctx, md, &mdlen);
    for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
done:
    free(buf);
    EVP_MD_CTX_free(ctx);
    fclose(f);
    return st;
}

int cuzk_fil_params_check_file(const char *json, size_t json_len, const char *path, char *err,
                               size_t err_len)
{
    if (!json || !path) return CUZK_ERR_ARG;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    cuzk_fil_param_entry e;
    int st = cuzk_fil_params_json_lookup(&e, json, json_len, base, err, err_len);
    if (st) return st;
    char d[33];
    if ((st = cuzk_fil_file_digest(d, path, err, err_len))) return st;
    if (strcmp(d, e.digest))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: BLAKE2b-512 digest %s does not match parameters.json (%s): corrupt or "
                         "incomplete download",
                         base, d, e.digest);
    return CUZK_OK;
}
