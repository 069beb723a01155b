/* The forms SnapDeals vanilla proofs arrive in: Curio's request carries one
 * bincode PartitionProof per partition (repeated bytes), and tools and
 * Curio's own storage hold them as Go's [][]byte in JSON, an array of
 * standard base64 strings.  A file may also hold raw bincode, one
 * partition or several concatenated (bincode is self-delimiting).
 *
 * The JSON form is tokenized by yajl (as the C1 parser, c1_json.c): each
 * string is decoded and parsed as it arrives, so no copy of the whole
 * array is kept; anything but one flat array of strings is an error.
 * EVP_DecodeBlock does the base64 bulk; its leniency (whitespace, '='
 * inside the last quantum, padding counted as zero bytes) is removed by
 * checking the text first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <yajl/yajl_parse.h>

#include "cuzk/seal_snap.h"
#include "cuzk/status.h"

#define SI_DEFAULT_MAX 16

static int si_b64(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int cuzk_snap_base64_decode(uint8_t *out, size_t cap, size_t *out_len, const char *in, size_t len,
                            const char *what, char *err, size_t err_len)
{
    if (!out_len || (!in && len) || (!out && len))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "base64: NULL");
    *out_len = 0;
    if (len % 4)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: base64 length %zu is not a multiple of 4", what,
                         len);
    if (len > (size_t)INT32_MAX - 3)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: %zu base64 characters is too large", what, len);
    if (cap < len / 4 * 3)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: base64 output buffer too small", what);
    size_t pad = len >= 1 && in[len - 1] == '=' ? (len >= 2 && in[len - 2] == '=' ? 2 : 1) : 0;
    for (size_t i = 0; i < len - pad; i++)
        if (si_b64((unsigned char)in[i]) < 0)
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                             "%s: invalid base64 character 0x%02x at offset %zu", what, (unsigned char)in[i],
                             i);
    /* non-canonical padding: the bits the padding drops must be zero */
    if (pad && (si_b64((unsigned char)in[len - pad - 1]) & (pad == 1 ? 3 : 15)))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: base64 padding at offset %zu leaves non-zero bits", what, len - pad - 1);
    int n = len ? EVP_DecodeBlock(out, (const unsigned char *)in, (int)len) : 0;
    if (n < 0 || (size_t)n != len / 4 * 3)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: invalid base64", what);
    *out_len = (size_t)n - pad;
    return CUZK_OK;
}

/* ---- a growing list of proofs ---------------------------------------------------- */
typedef struct {
    cuzk_snap_partition_proof **v;
    size_t n, max;
    const cuzk_snap_shape *s;
    char *err;
    size_t err_len;
    int st;
    int depth;
    bool canceled; /* by a callback (st and err set), not a syntax error */
} si_list;

static int si_add(si_list *l, cuzk_snap_partition_proof *p)
{
    if (l->n == l->max) {
        cuzk_snap_partition_free(p);
        return l->st =
                   cuzk_errf(l->err, l->err_len, CUZK_ERR_FORMAT, "more than %zu partition proofs", l->max);
    }
    l->v[l->n++] = p;
    return CUZK_OK;
}

void cuzk_snap_vanilla_free(cuzk_snap_partition_proof **v, size_t n)
{
    if (!v) return;
    for (size_t i = 0; i < n; i++)
        cuzk_snap_partition_free(v[i]);
    free(v);
}

/* ---- JSON ------------------------------------------------------------------------ */
static int si_cancel(si_list *l, const char *what)
{
    l->canceled = true;
    l->st =
        cuzk_errf(l->err, l->err_len, CUZK_ERR_FORMAT,
                  "vanilla proofs JSON: element %zu is %s; expected an array of base64 strings", l->n, what);
    return 0;
}

static int si_null(void *ctx)
{
    return si_cancel(ctx, "null");
}
static int si_bool(void *ctx, int b)
{
    return (void)b, si_cancel(ctx, "a boolean");
}
static int si_number(void *ctx, const char *s, size_t n)
{
    return (void)s, (void)n, si_cancel(ctx, "a number");
}
static int si_map(void *ctx)
{
    return si_cancel(ctx, "an object");
}
static int si_key(void *ctx, const unsigned char *k, size_t n)
{
    return (void)k, (void)n, si_cancel(ctx, "an object");
}

static int si_start_array(void *ctx)
{
    si_list *l = ctx;
    return l->depth++ ? si_cancel(l, "an array") : 1;
}

static int si_end_array(void *ctx)
{
    ((si_list *)ctx)->depth--;
    return 1;
}

static int si_string(void *ctx, const unsigned char *str, size_t len)
{
    si_list *l = ctx;
    if (l->depth != 1) return si_cancel(l, "a string outside the array");
    char what[48], msg[400] = "";
    snprintf(what, sizeof what, "vanilla_proofs[%zu]", l->n);
    uint8_t *buf = malloc(len / 4 * 3 + 1);
    if (!buf) {
        l->canceled = true;
        l->st = cuzk_errf(l->err, l->err_len, CUZK_ERR_NOMEM, "%s: out of memory", what);
        return 0;
    }
    size_t n = 0;
    cuzk_snap_partition_proof *p = NULL;
    int st =
        cuzk_snap_base64_decode(buf, len / 4 * 3 + 1, &n, (const char *)str, len, what, l->err, l->err_len);
    if (!st) {
        st = cuzk_snap_partition_parse(&p, buf, n, l->s, msg, sizeof msg);
        if (st) cuzk_errf(l->err, l->err_len, st, "%s: %s", what, msg);
    }
    free(buf);
    if (!st) st = si_add(l, p);
    if (st) {
        l->canceled = true;
        l->st = st;
        return 0;
    }
    return 1;
}

static const yajl_callbacks si_callbacks = {
    si_null, si_bool, NULL, NULL, si_number, si_string, si_map, si_key, si_map, si_start_array, si_end_array,
};

static int si_json(si_list *l, const uint8_t *buf, size_t len)
{
    yajl_handle h = yajl_alloc(&si_callbacks, NULL, l);
    if (!h)
        return l->st = cuzk_errf(l->err, l->err_len, CUZK_ERR_NOMEM, "vanilla proofs JSON: out of memory");
    yajl_status ys = yajl_parse(h, buf, len);
    if (ys == yajl_status_ok) ys = yajl_complete_parse(h);
    if (ys != yajl_status_ok && !l->canceled) {
        size_t at = yajl_get_bytes_consumed(h);
        l->st = cuzk_errf(l->err, l->err_len, CUZK_ERR_FORMAT,
                          "vanilla proofs JSON: syntax error near byte %zu", at);
    } else if (ys == yajl_status_ok && l->depth != 0) {
        l->st = cuzk_errf(l->err, l->err_len, CUZK_ERR_FORMAT, "vanilla proofs JSON: not an array");
    }
    yajl_free(h);
    return l->st;
}

static int si_start(si_list *l, cuzk_snap_partition_proof ***out, size_t *n, const cuzk_snap_shape *s,
                    size_t max, char *err, size_t err_len)
{
    *out = NULL;
    *n = 0;
    *l = (si_list){.max = max ? max : SI_DEFAULT_MAX, .s = s, .err = err, .err_len = err_len};
    l->v = calloc(l->max, sizeof *l->v);
    if (!l->v) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "vanilla proofs: out of memory");
    return CUZK_OK;
}

static int si_finish(si_list *l, cuzk_snap_partition_proof ***out, size_t *n)
{
    if (!l->st && l->n == 0)
        l->st = cuzk_errf(l->err, l->err_len, CUZK_ERR_FORMAT, "vanilla proofs: no partition proof");
    if (l->st) {
        cuzk_snap_vanilla_free(l->v, l->n);
        return l->st;
    }
    *out = l->v;
    *n = l->n;
    return CUZK_OK;
}

static bool si_is_array(const uint8_t *buf, size_t len)
{
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    return i < len && buf[i] == '[';
}

int cuzk_snap_vanilla_decode_json(cuzk_snap_partition_proof ***out, size_t *n, const uint8_t *buf, size_t len,
                                  const cuzk_snap_shape *s, size_t max_partitions, char *err, size_t err_len)
{
    if (!out || !n || (!buf && len))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "vanilla proofs: NULL argument");
    si_list l;
    int st = si_start(&l, out, n, s, max_partitions, err, err_len);
    if (st) return st;
    if (!si_is_array(buf, len))
        l.st = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "vanilla proofs JSON: not an array");
    else
        si_json(&l, buf, len);
    return si_finish(&l, out, n);
}

/* ---- raw bincode ------------------------------------------------------------------ */
static int si_bincode(si_list *l, const uint8_t *buf, size_t len)
{
    char msg[400] = "";
    for (size_t at = 0; at < len || l->n == 0;) {
        cuzk_snap_partition_proof *p = NULL;
        size_t used = 0;
        int st = cuzk_snap_partition_parse_prefix(&p, &used, buf + at, len - at, l->s, msg, sizeof msg);
        if (st)
            return l->st = cuzk_errf(l->err, l->err_len, st, "partition proof %zu (from byte %zu of %zu): %s",
                                     l->n, at, len, msg);
        if ((st = si_add(l, p))) return st;
        at += used;
    }
    return CUZK_OK;
}

int cuzk_snap_vanilla_decode(cuzk_snap_partition_proof ***out, size_t *n, const uint8_t *buf, size_t len,
                             const cuzk_snap_shape *s, size_t max_partitions, char *err, size_t err_len)
{
    if (!out || !n || (!buf && len))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "vanilla proofs: NULL argument");
    si_list l;
    int st = si_start(&l, out, n, s, max_partitions, err, err_len);
    if (st) return st;
    if (!si_is_array(buf, len)) {
        si_bincode(&l, buf, len);
        return si_finish(&l, out, n);
    }
    if (!si_json(&l, buf, len)) return si_finish(&l, out, n);
    /* not valid JSON: maybe bincode whose comm_c starts with '['.  When that
     * fails too, report the form the bytes look like: JSON for text, the
     * bincode error for binary data. */
    char json_err[512], bin_err[512] = "";
    snprintf(json_err, sizeof json_err, "%s", err ? err : "");
    int json_st = l.st;
    cuzk_snap_vanilla_free(l.v, l.n);
    if ((st = si_start(&l, out, n, s, max_partitions, bin_err, sizeof bin_err)))
        return cuzk_errf(err, err_len, st, "out of memory");
    if (!si_bincode(&l, buf, len)) return si_finish(&l, out, n);
    int bin_st = l.st;
    cuzk_snap_vanilla_free(l.v, l.n);
    bool text = true;
    for (size_t i = 0; i < len && text; i++)
        text = (buf[i] >= 0x20 && buf[i] < 0x7f) || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t';
    return text ? cuzk_errf(err, err_len, json_st, "%s", json_err)
                : cuzk_errf(err, err_len, bin_st, "%s", bin_err);
}
