/* libFuzzer harness: the parameters.json lookup (cuzk_fil_params_json_lookup,
 * src/fil/registry.c), which the daemon runs on the file it downloads
 * params with to check a params/vk file's digest.  Input framing: byte 0 =
 * L (0..255), then L bytes of file name (cut at a NUL: it is a C string),
 * then the JSON text (copied into exactly its size: not NUL-terminated).
 * Oracles: CUZK_ERR_ARG (absent) or CUZK_ERR_FORMAT, each with a message
 * naming the file (when it fits), or CUZK_OK with an entry that comes from the text: the
 * name appears quoted in it, so do the cid and digest, and the sector size's
 * decimal digits appear in it. */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "s" (quoted) occurs in [t, t + n) */
static int has_quoted(const char *t, size_t n, const char *s)
{
    size_t sl = strlen(s);
    for (size_t i = 0; i + sl + 2 <= n; i++)
        if (t[i] == '"' && !memcmp(t + i + 1, s, sl) && t[i + sl + 1] == '"') return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t nl = data[0];
    if (nl > size - 1) nl = size - 1;
    char name[256];
    memcpy(name, data + 1, nl);
    name[nl] = 0;
    size_t len = size - 1 - nl;
    char *json = malloc(len ? len : 1); /* exactly len bytes: no NUL to lean on */
    if (!json) abort();
    memcpy(json, data + 1 + nl, len);
    cuzk_fil_param_entry e;
    memset(&e, 0xa5, sizeof e);
    char err[CUZK_FIL_ERR_LEN] = "";
    int st = cuzk_fil_params_json_lookup(&e, json, len, name, err, sizeof err);
    if (st == CUZK_ERR_ARG || st == CUZK_ERR_FORMAT) {
        if (!err[0] || (strlen(name) < 100 && !strstr(err, name))) { /* a long name may be cut */
            fprintf(stderr, "status %d without a message naming '%s': '%s'\n", st, name, err);
            abort();
        }
    } else if (st == CUZK_OK) {
        char dec[24];
        snprintf(dec, sizeof dec, "%" PRIu64, e.sector_size);
        if (memchr(e.cid, 0, sizeof e.cid) == NULL || memchr(e.digest, 0, sizeof e.digest) == NULL ||
            !has_quoted(json, len, name) || !has_quoted(json, len, e.cid) ||
            !has_quoted(json, len, e.digest) || !memmem(json, len, dec, strlen(dec))) {
            fprintf(stderr, "entry for '%s' not from the text: cid '%.80s' digest '%.40s' size %s\n", name,
                    e.cid, e.digest, dec);
            abort();
        }
    } else {
        fprintf(stderr, "status %d\n", st);
        abort();
    }
    free(json);
    return 0;
}
