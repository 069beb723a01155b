/* Private to the C1 parser: a compact JSON tree built by a streaming yajl
 * parse (c1_json.c) and walked by c1_parse.c.
 *
 * Why not a general DOM: a 32 GiB C1 holds ~320,000 domain elements, each
 * a JSON array of 32 numbers (~10 million numbers).  General DOM libraries
 * allocate one node per number (0.5-1 GB, 1.4-3 s, docs/perf-notes.md "C1
 * JSON parser"); here an array of exactly 32 integers in [0, 255] is
 * collapsed into one BYTES node as soon as it closes, so the tree has
 * ~0.5 million nodes and the bytes live in one flat array. */
#ifndef CUZK_SEAL_C1_INTERNAL_H
#define CUZK_SEAL_C1_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

enum { C1J_NULL, C1J_BOOL, C1J_INT, C1J_DOUBLE, C1J_STR, C1J_ARR, C1J_OBJ, C1J_BYTES };

#define C1J_NONE UINT32_MAX

typedef struct {
    uint8_t type;
    uint16_t klen;  /* key length when the parent is an object */
    uint32_t koff;  /* key offset in chars */
    uint32_t n;     /* children (ARR/OBJ), string length (STR), 32 (BYTES) */
    uint32_t first; /* first child, C1J_NONE if none */
    uint32_t next;  /* next sibling, C1J_NONE if last */
    int64_t v;      /* INT value; STR offset in chars; BYTES offset in bytes; BOOL 0/1 */
} c1j_node;

typedef struct {
    c1j_node *nodes;
    size_t n_nodes, cap_nodes;
    uint8_t *bytes;
    size_t n_bytes, cap_bytes;
    char *chars;
    size_t n_chars, cap_chars;
    size_t peak; /* largest capacity of the three arrays, in bytes */
    uint32_t root;
} c1j_tree;

/* The tree of a real C1 uses 0.74 bytes per byte of JSON, 1.02 at its
 * peak capacity (2 KiB, bare: 74,611 used and 102,400 reserved for 100,245
 * bytes; test_seal_c1 "tree_cost" prints them and fails if the peak passes
 * half the limit): the 32-number arrays become 32 bytes, and what stays a
 * node (objects, keys, short arrays) is sparse.  Doubling growth can at
 * most double what is used, so a C1 stays under 1.5; the limit is 3, and
 * a document that needs more is not a C1 and is refused at that point. */
#define C1J_TREE_PER_BYTE_MAX ((size_t)3)
#define C1J_TREE_SLACK ((size_t)64 << 10)

/* The tree limit for len bytes of JSON: len * C1J_TREE_PER_BYTE_MAX +
 * C1J_TREE_SLACK (saturating). */
size_t cuzk_seal_c1_tree_limit(size_t len);

/* Parse len bytes of JSON into t (one top-level value, nesting <= 64)
 * within `limit` bytes of tree (see cuzk_seal_c1_tree_limit).
 * CUZK_ERR_FORMAT "C1 JSON: syntax error at byte N: ..." (or "not a C1:
 * its tree would need more than ..."), or CUZK_ERR_NOMEM.  `what` names
 * the document in messages ("C1 JSON", "envelope"). */
int cuzk_seal_c1j_parse(c1j_tree *t, const char *json, size_t len, const char *what, size_t limit, char *err,
                        size_t err_len);
void cuzk_seal_c1j_free(c1j_tree *t);

/* Child of object o under key (NULL if absent). */
const c1j_node *cuzk_seal_c1j_get(const c1j_tree *t, const c1j_node *o, const char *key);
static inline const c1j_node *c1j_at(const c1j_tree *t, uint32_t i)
{
    return i == C1J_NONE ? NULL : &t->nodes[i];
}
const char *cuzk_seal_c1j_type_name(int type);

/* Base64 (RFC 4648 with padding, what Go's encoding/json writes for
 * []byte) into a malloc'd buffer. */
int cuzk_seal_c1_base64_decode(uint8_t **out, size_t *out_len, const char *in, size_t len, char *err,
                               size_t err_len);

#endif
