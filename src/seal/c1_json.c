/* Streaming JSON -> compact tree for the C1 parser (see c1_internal.h for
 * why), and the base64 of Curio's envelope.
 *
 * yajl (libyajl2) tokenizes and validates; the callbacks append nodes to
 * one growable array and link them as first-child / next-sibling.  When an
 * array closes holding exactly 32 integer children in [0, 255], those
 * children are the last 32 nodes allocated, so they are popped again and
 * replaced by 32 bytes: the tree stays ~20x smaller than the number count.
 * Any other array keeps its children, so the walker can still say "33
 * elements" or "element [4] = 300 is not a byte".
 *
 * Memory: the tree's arrays (32 bytes a node, the strings, the bytes) may
 * grow to the caller's limit and no further (cuzk_seal_c1_parse passes
 * cuzk_seal_c1_tree_limit): a document that is not a C1 can need 16x its
 * size ("[0,0,0,..." is one 32-byte node per 2 bytes), a real C1 needs
 * ~1x (c1_internal.h), so the parse is refused as soon as the capacity
 * would pass the limit, before that memory is taken. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <yajl/yajl_parse.h>

#include "cuzk/status.h"
#include "seal/c1_internal.h"

#define C1J_MAX_DEPTH 64
#define C1J_MAX_NODES (UINT32_MAX - 1)

typedef struct {
    c1j_tree *t;
    uint32_t stack[C1J_MAX_DEPTH], last[C1J_MAX_DEPTH];
    int depth;
    uint32_t koff;
    uint16_t klen;
    int failed;   /* 1 nomem, 2 too deep, 3 too big, 4 over the memory limit */
    size_t limit; /* bytes the tree's three arrays may reserve */
} c1j_builder;

static size_t tree_capacity(const c1j_tree *t)
{
    return t->cap_nodes * sizeof(c1j_node) + t->cap_bytes + t->cap_chars;
}

/* Grows one of the tree's arrays (doubling) within b->limit: the last step
 * is clipped to the limit; past it, failed = 4 and nothing is allocated. */
static int grow(c1j_builder *b, void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 1024, others = tree_capacity(b->t) - *cap * elem;
    while (c < need)
        c *= 2;
    if (others > b->limit || need > (b->limit - others) / elem) return b->failed = 4, -1;
    if (c > (b->limit - others) / elem) c = (b->limit - others) / elem;
    void *q = realloc(*p, c * elem);
    if (!q) return b->failed = 1, -1;
    *p = q;
    *cap = c;
    if (tree_capacity(b->t) > b->t->peak) b->t->peak = tree_capacity(b->t);
    return 0;
}

static int add_chars(c1j_builder *b, const unsigned char *s, size_t n, uint32_t *off)
{
    c1j_tree *t = b->t;
    if (t->n_chars + n + 1 > UINT32_MAX) return b->failed = 3, 0;
    if (grow(b, (void **)&t->chars, &t->cap_chars, t->n_chars + n + 1, 1)) return 0;
    memcpy(t->chars + t->n_chars, s, n);
    t->chars[t->n_chars + n] = 0;
    *off = (uint32_t)t->n_chars;
    t->n_chars += n + 1;
    return 1;
}

/* Append a node as the next child of the open container (or as root). */
static c1j_node *add_node(c1j_builder *b, int type)
{
    c1j_tree *t = b->t;
    if (t->n_nodes >= C1J_MAX_NODES) return b->failed = 3, NULL;
    if (grow(b, (void **)&t->nodes, &t->cap_nodes, t->n_nodes + 1, sizeof(c1j_node))) return NULL;
    uint32_t i = (uint32_t)t->n_nodes++;
    c1j_node *n = &t->nodes[i];
    *n = (c1j_node){.type = (uint8_t)type, .first = C1J_NONE, .next = C1J_NONE};
    if (b->depth == 0) {
        t->root = i;
        return n;
    }
    c1j_node *parent = &t->nodes[b->stack[b->depth - 1]];
    if (parent->type == C1J_OBJ) {
        n->koff = b->koff;
        n->klen = b->klen;
    }
    uint32_t *last = &b->last[b->depth - 1];
    if (*last == C1J_NONE)
        parent->first = i;
    else
        t->nodes[*last].next = i;
    *last = i;
    parent->n++;
    return n;
}

static int cb_null(void *ctx)
{
    return add_node(ctx, C1J_NULL) != NULL;
}

static int cb_bool(void *ctx, int v)
{
    c1j_node *n = add_node(ctx, C1J_BOOL);
    if (n) n->v = v != 0;
    return n != NULL;
}

static int cb_int(void *ctx, long long v)
{
    c1j_node *n = add_node(ctx, C1J_INT);
    if (n) n->v = v;
    return n != NULL;
}

static int cb_double(void *ctx, double v)
{
    (void)v;
    return add_node(ctx, C1J_DOUBLE) != NULL;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    c1j_builder *b = ctx;
    uint32_t off;
    if (len > UINT32_MAX - 1 || !add_chars(b, s, len, &off)) return 0;
    c1j_node *n = add_node(b, C1J_STR);
    if (!n) return 0;
    n->v = off;
    n->n = (uint32_t)len;
    return 1;
}

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
    c1j_builder *b = ctx;
    if (len > 1000) return b->failed = 3, 0; /* no C1 key is long */
    b->klen = (uint16_t)len;
    return add_chars(b, s, len, &b->koff);
}

static int open_container(c1j_builder *b, int type)
{
    if (b->depth >= C1J_MAX_DEPTH) return b->failed = 2, 0;
    c1j_node *n = add_node(b, type);
    if (!n) return 0;
    b->stack[b->depth] = (uint32_t)(n - b->t->nodes);
    b->last[b->depth++] = C1J_NONE;
    return 1;
}

static int cb_start_map(void *ctx)
{
    return open_container(ctx, C1J_OBJ);
}
static int cb_start_array(void *ctx)
{
    return open_container(ctx, C1J_ARR);
}

static int cb_end_map(void *ctx)
{
    ((c1j_builder *)ctx)->depth--;
    return 1;
}

static int cb_end_array(void *ctx)
{
    c1j_builder *b = ctx;
    c1j_tree *t = b->t;
    uint32_t a = b->stack[--b->depth];
    c1j_node *arr = &t->nodes[a];
    if (arr->n != 32 || t->n_nodes != (size_t)a + 33) return 1;
    for (uint32_t k = 1; k <= 32; k++) {
        const c1j_node *e = &t->nodes[a + k];
        if (e->type != C1J_INT || e->v < 0 || e->v > 255) return 1;
    }
    if (grow(b, (void **)&t->bytes, &t->cap_bytes, t->n_bytes + 32, 1)) return 0;
    for (uint32_t k = 0; k < 32; k++)
        t->bytes[t->n_bytes + k] = (uint8_t)t->nodes[a + 1 + k].v;
    arr->type = C1J_BYTES;
    arr->first = C1J_NONE;
    arr->v = (int64_t)t->n_bytes;
    t->n_bytes += 32;
    t->n_nodes = (size_t)a + 1;
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null,      cb_bool, cb_int,     cb_double,      NULL,         cb_string,
    cb_start_map, cb_key,  cb_end_map, cb_start_array, cb_end_array,
};

size_t cuzk_seal_c1_tree_limit(size_t len)
{
    size_t per = C1J_TREE_PER_BYTE_MAX;
    return len > (SIZE_MAX - C1J_TREE_SLACK) / per ? SIZE_MAX : len * per + C1J_TREE_SLACK;
}

int cuzk_seal_c1j_parse(c1j_tree *t, const char *json, size_t len, const char *what, size_t limit, char *err,
                        size_t err_len)
{
    memset(t, 0, sizeof *t);
    t->root = C1J_NONE;
    c1j_builder b = {.t = t, .limit = limit};
    yajl_handle h = yajl_alloc(&callbacks, NULL, &b);
    if (!h) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory", what);
    yajl_status s = yajl_parse(h, (const unsigned char *)json, len);
    bool at_end = false; /* the error is the document ending early */
    if (s == yajl_status_ok) {
        s = yajl_complete_parse(h);
        at_end = true;
    }
    int st = CUZK_OK;
    if (s != yajl_status_ok) {
        if (b.failed == 1) {
            st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory", what);
        } else if (b.failed == 4) {
            st =
                cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                          "%s: not a C1: its tree would need more than %zu bytes (%zu per byte of its %zu; a "
                          "C1 needs < 2) at byte %zu; refused before allocating it",
                          what, limit, C1J_TREE_PER_BYTE_MAX, len, yajl_get_bytes_consumed(h));
        } else if (b.failed) {
            st =
                cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: %s at byte %zu", what,
                          b.failed == 2 ? "nesting deeper than 64" : "too large", yajl_get_bytes_consumed(h));
        } else {
            unsigned char *m = yajl_get_error(h, 0, (const unsigned char *)json, len);
            size_t at = at_end ? len : yajl_get_bytes_consumed(h), ml = m ? strlen((char *)m) : 0;
            while (ml && (m[ml - 1] == '\n' || m[ml - 1] == ' '))
                m[--ml] = 0;
            if (at_end)
                st = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: truncated: %s at the end (byte %zu)", what,
                               m ? (const char *)m : "premature end", len);
            else
                st = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: %s at byte %zu of %zu", what,
                               m ? (const char *)m : "syntax error", at, len);
            if (m) yajl_free_error(h, m);
        }
    } else if (t->root == C1J_NONE) {
        st = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: empty document", what);
    }
    yajl_free(h);
    if (st) cuzk_seal_c1j_free(t);
    return st;
}

void cuzk_seal_c1j_free(c1j_tree *t)
{
    if (!t) return;
    free(t->nodes);
    free(t->bytes);
    free(t->chars);
    memset(t, 0, sizeof *t);
    t->root = C1J_NONE;
}

const c1j_node *cuzk_seal_c1j_get(const c1j_tree *t, const c1j_node *o, const char *key)
{
    size_t kl = strlen(key);
    for (const c1j_node *c = c1j_at(t, o->first); c; c = c1j_at(t, c->next))
        if (c->klen == kl && !memcmp(t->chars + c->koff, key, kl)) return c;
    return NULL;
}

const char *cuzk_seal_c1j_type_name(int type)
{
    static const char *const names[] = {"null",     "a boolean", "an integer", "a non-integer number",
                                        "a string", "an array",  "an object",  "an array of 32 bytes"};
    return type >= 0 && type <= C1J_BYTES ? names[type] : "?";
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* EVP_DecodeBlock does the bulk (46 ms for 51 MB) but it skips leading and
 * trailing whitespace, accepts '=' anywhere in the last quantum and returns
 * a length that counts padding as zero bytes; so the input is checked here
 * first (length % 4 == 0, alphabet, padding only at the end) and the
 * padding is subtracted from its result. */
int cuzk_seal_c1_base64_decode(uint8_t **out, size_t *out_len, const char *in, size_t len, char *err,
                               size_t err_len)
{
    *out = NULL;
    *out_len = 0;
    if (len % 4)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "Phase1Out: base64 length %zu is not a multiple of 4",
                         len);
    if (len > (size_t)INT32_MAX - 3)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "Phase1Out: %zu base64 characters is too large", len);
    size_t pad = len >= 1 && in[len - 1] == '=' ? (len >= 2 && in[len - 2] == '=' ? 2 : 1) : 0;
    for (size_t i = 0; i < len - pad; i++)
        if (b64_value((unsigned char)in[i]) < 0)
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                             "Phase1Out: invalid base64 character 0x%02x at offset %zu", (unsigned char)in[i],
                             i);
    uint8_t *buf = malloc(len / 4 * 3 + 1);
    if (!buf) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "Phase1Out: out of memory");
    int n = len ? EVP_DecodeBlock(buf, (const unsigned char *)in, (int)len) : 0;
    if (n < 0 || (size_t)n != len / 4 * 3) {
        free(buf);
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "Phase1Out: invalid base64");
    }
    *out = buf;
    *out_len = (size_t)n - pad;
    return CUZK_OK;
}
