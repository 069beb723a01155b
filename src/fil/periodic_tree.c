/* Region-periodic trees (cuzk/filecoin.h): the full tree of a sector whose
 * leaves repeat a pattern of 2^period_log nodes inside each region of
 * 2^region_log nodes, the pattern a function of the region.
 *
 * Why such a tree: SnapDeals derives its challenges from comm_r_new, the
 * root of tree R new, and asks every challenged leaf of it to be the label
 * update of tree R old and tree D at that leaf.  A sparse tree (random
 * digests off the opened paths, sparse_tree.c) needs to know its opened
 * leaves before its root, so it cannot be the tree whose root picks them;
 * a periodic one has every node real and its root cheap: a node whose
 * leaves lie in one region and span whole periods depends on the region
 * only, and a node above a region's height on its own index.
 *
 * What is stored: for each level l at or above l0 (the level spanning one
 * period), one value per class, the class of a node being its first leaf
 * >> max(region_log, span of l): regions x levels values, plus one per node
 * above the regions.  Below l0 nothing is stored: a proof hashes its
 * period's subtree again (one pattern call and period / (arity - 1)
 * hashes).  Cost of the build: regions x (pattern + subtree) plus one hash
 * per class above, spread over par by classes. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "fil/fil_internal.h"

#define PT_MAX_LEVELS 64
#define PT_MAX_PERIOD (1u << CUZK_FIL_PERIODIC_MAX_PERIOD_LOG)
#define PT_CHUNK 16 /* classes per parallel task */

struct cuzk_fil_periodic_tree {
    cuzk_fil_tree_shape shape;
    cuzk_fil_hash hash;
    uint32_t levels, l0; /* path levels; the level whose nodes span one period */
    uint32_t region_log, period_log;
    uint32_t arity[PT_MAX_LEVELS];        /* arity of the hash making level l + 1 */
    uint32_t span_log[PT_MAX_LEVELS + 1]; /* log2 of the leaves under a node of level l */
    uint32_t shift[PT_MAX_LEVELS + 1];    /* l >= l0: class = first leaf >> shift[l] */
    uint8_t *val[PT_MAX_LEVELS + 1];      /* l >= l0: one value per class */
    cuzk_fil_pattern_fn pattern;
    void *ctx;
};

static uint32_t pt_log2(uint64_t x)
{
    uint32_t l = 0;
    while (x > 1)
        x >>= 1, l++;
    return l;
}

static int pt_hash(const cuzk_fil_periodic_tree *t, uint8_t out[32], const uint8_t *in, uint32_t arity)
{
    if (t->hash == CUZK_FIL_HASH_SHA256) {
        cuzk_fil_sha256_trunc254(out, in, 64);
        return CUZK_OK;
    }
    return cuzk_fil_poseidon_bytes(out, in, arity);
}

/* Offset (in nodes) of row l of a period's subtree in pt_pattern's buffer. */
static size_t pt_row(const cuzk_fil_periodic_tree *t, uint32_t l)
{
    size_t off = 0;
    for (uint32_t m = 0; m < l; m++)
        off += (size_t)1 << (t->period_log - t->span_log[m]);
    return off;
}

/* The subtree of one period of `region`, rows 0 .. l0 one after the other
 * in buf (2 x period nodes at most). */
static int pt_pattern(const cuzk_fil_periodic_tree *t, uint64_t region, uint8_t *buf)
{
    size_t p = (size_t)1 << t->period_log;
    int st = t->pattern(t->ctx, region, buf, p);
    if (st) return st;
    for (size_t i = 0; i < p; i++)
        if (t->hash == CUZK_FIL_HASH_SHA256 ? !cuzk_fil_fr32_valid(buf + 32 * i)
                                            : !cuzk_fil_domain_valid(buf + 32 * i))
            return CUZK_ERR_ENC_NONCANONICAL;
    uint8_t *in = buf;
    for (uint32_t l = 0; l < t->l0; l++) {
        size_t w = p >> t->span_log[l], a = t->arity[l];
        uint8_t *o = in + 32 * w;
        for (size_t g = 0; g < w / a; g++)
            if ((st = pt_hash(t, o + 32 * g, in + 32 * a * g, (uint32_t)a))) return st;
        in = o;
    }
    return CUZK_OK;
}

/* The value of class `key` of level l (>= l0) from the level below. */
static int pt_class(cuzk_fil_periodic_tree *t, uint32_t l, uint64_t key)
{
    uint8_t *out = t->val[l] + 32 * key;
    if (l == t->l0) {
        uint8_t buf[2 * PT_MAX_PERIOD * 32];
        int st = pt_pattern(t, key, buf); /* at l0 a class is a region */
        if (!st) memcpy(out, buf + 32 * pt_row(t, l), 32);
        return st;
    }
    uint32_t a = t->arity[l - 1];
    uint64_t first = key << t->shift[l];
    uint8_t in[32 * CUZK_POSEIDON_MAX_ARITY];
    for (uint32_t c = 0; c < a; c++) {
        uint64_t leaf = first + ((uint64_t)c << t->span_log[l - 1]);
        memcpy(in + 32 * c, t->val[l - 1] + 32 * (leaf >> t->shift[l - 1]), 32);
    }
    return pt_hash(t, out, in, a);
}

typedef struct {
    cuzk_fil_periodic_tree *t;
    uint32_t l;
    uint64_t n;  /* classes of level l */
    int *status; /* per task */
} pt_job;

static void pt_task(void *arg, size_t i)
{
    pt_job *j = arg;
    uint64_t end = ((uint64_t)i + 1) * PT_CHUNK < j->n ? ((uint64_t)i + 1) * PT_CHUNK : j->n;
    for (uint64_t k = (uint64_t)i * PT_CHUNK; k < end && !j->status[i]; k++)
        j->status[i] = pt_class(j->t, j->l, k);
}

static int pt_level(cuzk_fil_periodic_tree *t, uint32_t l, cuzk_par *par)
{
    uint64_t n = t->shape.leaves >> t->shift[l];
    size_t tasks = (size_t)((n + PT_CHUNK - 1) / PT_CHUNK);
    int *status = calloc(tasks, sizeof *status);
    if (!(t->val[l] = malloc(32 * (size_t)n)) || !status) {
        free(status);
        return CUZK_ERR_NOMEM;
    }
    pt_job j = {.t = t, .l = l, .n = n, .status = status};
    cuzk_par_for(par, pt_task, &j, tasks);
    int st = CUZK_OK;
    for (size_t i = 0; i < tasks && !st; i++)
        st = status[i];
    free(status);
    return st;
}

/* Levels, spans and classes of the shape; CUZK_ERR_ARG with a sentence. */
static int pt_layout(cuzk_fil_periodic_tree *t, const cuzk_fil_tree_shape *s, char *err, size_t err_len)
{
    cuzk_fil_tree_shape chk;
    if (cuzk_fil_tree_shape_make(&chk, s->leaves, s->base_arity, s->sub_arity, s->top_arity) ||
        chk.base_levels != s->base_levels || chk.n_base != s->n_base || s->base_levels + 2 > PT_MAX_LEVELS)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "periodic tree: the tree shape is not consistent");
    if (t->hash == CUZK_FIL_HASH_SHA256 && (s->base_arity != 2 || s->sub_arity))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "periodic tree: a SHA-256 tree is binary, without sub/top");
    t->shape = *s;
    for (uint32_t i = 0; i < s->base_levels; i++)
        t->arity[t->levels++] = s->base_arity;
    if (s->sub_arity) t->arity[t->levels++] = s->sub_arity;
    if (s->top_arity) t->arity[t->levels++] = s->top_arity;
    t->l0 = UINT32_MAX;
    for (uint32_t l = 0; l <= t->levels; l++) {
        if (l && (t->arity[l - 1] & (t->arity[l - 1] - 1)))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "periodic tree: arity %u is not a power of two",
                             t->arity[l - 1]);
        t->span_log[l] = l ? t->span_log[l - 1] + pt_log2(t->arity[l - 1]) : 0;
        if (t->span_log[l] == t->period_log && t->l0 == UINT32_MAX) t->l0 = l;
        t->shift[l] = t->span_log[l] > t->region_log ? t->span_log[l] : t->region_log;
    }
    if (t->l0 == UINT32_MAX || t->period_log > CUZK_FIL_PERIODIC_MAX_PERIOD_LOG ||
        t->period_log > t->region_log)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "periodic tree: a period of 2^%u leaves in regions of 2^%u: the period must be the "
                         "span of a level, at most 2^%u and at most a region",
                         t->period_log, t->region_log, CUZK_FIL_PERIODIC_MAX_PERIOD_LOG);
    return CUZK_OK;
}

int cuzk_fil_periodic_tree_build(cuzk_fil_periodic_tree **out, const cuzk_fil_tree_shape *shape,
                                 cuzk_fil_hash hash, uint32_t region_log, uint32_t period_log,
                                 cuzk_fil_pattern_fn pattern, void *ctx, cuzk_par *par, char *err,
                                 size_t err_len)
{
    if (!out || !shape || !pattern || (hash != CUZK_FIL_HASH_POSEIDON && hash != CUZK_FIL_HASH_SHA256))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "periodic tree: NULL argument or unknown hash");
    *out = NULL;
    cuzk_fil_periodic_tree *t = calloc(1, sizeof *t);
    if (!t) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "periodic tree: out of memory");
    t->hash = hash;
    t->pattern = pattern;
    t->ctx = ctx;
    t->period_log = period_log;
    uint32_t all = pt_log2(shape->leaves); /* one region at most covers the tree */
    t->region_log = region_log < all ? region_log : all;
    int st = pt_layout(t, shape, err, err_len);
    for (uint32_t l = t->l0; !st && l <= t->levels; l++)
        if ((st = pt_level(t, l, par)))
            cuzk_errf(err, err_len, st, "periodic tree: level %u of %u: %s", l, t->levels,
                      st == CUZK_ERR_ENC_NONCANONICAL ? "a pattern element is not canonical"
                                                      : cuzk_strerror(st));
    if (!st)
        *out = t;
    else
        cuzk_fil_periodic_tree_free(t);
    return st;
}

void cuzk_fil_periodic_tree_free(cuzk_fil_periodic_tree *t)
{
    if (!t) return;
    for (uint32_t l = 0; l <= PT_MAX_LEVELS; l++)
        free(t->val[l]);
    free(t);
}

void cuzk_fil_periodic_tree_root(uint8_t out[32], const cuzk_fil_periodic_tree *t)
{
    memcpy(out, t->val[t->levels], 32);
}

uint32_t cuzk_fil_periodic_tree_levels(const cuzk_fil_periodic_tree *t)
{
    return t->levels;
}

size_t cuzk_fil_periodic_tree_proof_storage(const cuzk_fil_periodic_tree *t)
{
    return fil_proof_storage(t->arity, t->levels);
}

/* Node j of level l: a stored class, or (below l0) from `buf`, the
 * subtree of the period that holds it. */
static const uint8_t *pt_node(const cuzk_fil_periodic_tree *t, const uint8_t *buf, uint32_t l, uint64_t j)
{
    uint64_t first = j << t->span_log[l];
    if (l >= t->l0) return t->val[l] + 32 * (first >> t->shift[l]);
    uint64_t at = (first & (((uint64_t)1 << t->period_log) - 1)) >> t->span_log[l];
    return buf + 32 * (pt_row(t, l) + at);
}

typedef struct {
    const cuzk_fil_periodic_tree *t;
    const uint8_t *buf; /* the subtree of the proven leaf's period */
} pt_path_ctx;

static void pt_path_node(const void *ctx, uint32_t level, uint64_t j, uint8_t out[32])
{
    const pt_path_ctx *c = ctx;
    memcpy(out, pt_node(c->t, c->buf, level, j), 32);
}

int cuzk_fil_periodic_tree_node(uint8_t out[32], const cuzk_fil_periodic_tree *t, uint32_t level,
                                uint64_t index)
{
    if (!out || !t || level > t->levels || index >= t->shape.leaves >> t->span_log[level])
        return CUZK_ERR_ARG;
    uint8_t buf[2 * PT_MAX_PERIOD * 32];
    uint64_t first = index << t->span_log[level];
    int st = level < t->l0 ? pt_pattern(t, first >> t->region_log, buf) : CUZK_OK;
    if (!st) memcpy(out, pt_node(t, buf, level, index), 32);
    return st;
}

int cuzk_fil_periodic_tree_prove(cuzk_fil_merkle_proof *out, void *storage, size_t storage_len,
                                 const cuzk_fil_periodic_tree *t, uint64_t index)
{
    if (!out || !storage || !t || index >= t->shape.leaves ||
        storage_len < cuzk_fil_periodic_tree_proof_storage(t) || ((uintptr_t)storage & 7))
        return CUZK_ERR_ARG;
    uint8_t buf[2 * PT_MAX_PERIOD * 32];
    int st = pt_pattern(t, index >> t->region_log, buf);
    if (st) return st;
    uint64_t *idx = storage;
    uint8_t *hashes = (uint8_t *)(idx + t->levels);
    fil_proof_begin(out, &t->shape);
    memcpy(out->leaf, pt_node(t, buf, 0, index), 32);
    pt_path_ctx pc = {t, buf};
    fil_gather_path(idx, hashes, t->arity, t->levels, index, pt_path_node, &pc);
    fil_split_paths(out, t->shape.base_levels, t->arity, idx, hashes);
    cuzk_fil_periodic_tree_root(out->root, t);
    return CUZK_OK;
}
