/* Sparse C1: the SealCommitPhase1Output of an interactive PoRep sector of
 * any size (32 and 64 GiB included) without sealing it.  The sector is
 * consistent exactly where the vanilla proofs look, and there it is a real
 * statement: cuzk_seal_c1_verify and the PoRep circuit accept it.
 *
 * What is real and what is random:
 *  - tree D is the real binary SHA-256 tree of a sector whose data repeats
 *    one pattern of SP_PERIOD random Fr32 nodes (the dense sealer's data
 *    nodes 0..SP_PERIOD-1, so a 2 KiB sector is the dense one).  It cannot
 *    be sparse-random like trees C and R: interactive challenges hash
 *    replica_id, which hashes comm_d, so comm_d must be fixed before the
 *    challenges (and the paths they open) are known.  A periodic sector
 *    gives the root and every path for 2 x SP_PERIOD hashes plus one per
 *    level above the pattern;
 *  - the challenges of every partition follow from replica_id and the seed
 *    (cuzk_seal_challenges), their 6 DRG and 8 expander parents from the
 *    real graph;
 *  - every opened column that is not a challenge holds random labels; the
 *    challenges' labels are computed layer by layer with the real label
 *    hash from their parents' (DRG parents of the same layer, expander
 *    parents of the layer below: the order sealer.c labels in, so a
 *    challenge that is another challenge's parent is consistent with it);
 *  - replica node = last layer's label + data node (encode.rs);
 *  - trees C (column hashes) and R (replica nodes) hash the opened leaves
 *    up to their roots; every sibling that no proof opens is a random
 *    digest.  Neither replica_id nor interactive challenges depend on
 *    comm_r, so nothing is circular there.
 * Cost: O(challenges x 15 x depth) Poseidon hashes, plus the graph's
 * tables (~0.1 s at 32/64 GiB) and the tree D pattern.  Synthetic and NI
 * PoRep derive their challenges from comm_r and cannot be generated so. */
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "cuzk/poseidon.h"
#include "cuzk/seal.h"
#include "cuzk/status.h"
#include "ff/verify.h"

#define SP_PERIOD_LOG 14 /* tree D repeats 2^14 nodes (512 KiB of data) */
#define SP_MAX_LEVELS 16 /* Poseidon path levels: base (<= 10) + sub + top */
#define SP_SLOTS 37      /* parent slots of a labeling proof */
#define SP_CHUNK 64      /* hashes per parallel task */

/* A sparse Poseidon tree: at each level below the root, every node of each
 * group (arity siblings) that an opened leaf's path passes through, sorted
 * by index; groups are whole, so a path's siblings are contiguous. */
typedef struct {
    uint32_t levels, base_levels, kind;
    uint32_t arity[SP_MAX_LEVELS];
    size_t count[SP_MAX_LEVELS];
    uint64_t *idx[SP_MAX_LEVELS];
    uint8_t *val[SP_MAX_LEVELS];
    uint8_t root[32];
} sp_tree;

/* Tree D of the periodic sector: the full tree of one period (leaves
 * first, root last) and the one value of every node at each level above. */
typedef struct {
    uint32_t depth, h; /* levels of tree D, levels inside one period */
    uint64_t period;
    uint8_t *small; /* (2 period - 1) x 32 */
    uint8_t top[64][32];
} sp_tree_d;

/* Every node a proof opens a column of: challenges and their parents. */
typedef struct {
    size_t n;
    uint64_t *node;  /* sorted, unique */
    uint8_t *is_ch;  /* 1 if the node is a challenge */
    uint8_t *labels; /* n x layers x 32: node j's column at labels + 32 layers j */
} sp_columns;

typedef struct {
    const cuzk_fil_seal_info *info;
    cuzk_fil_tree_shape shape;
    uint64_t nodes, seed, sector_id;
    uint32_t layers;
    cuzk_seal_graph graph;
    sp_tree_d d;
    size_t n_ch;  /* partitions x challenges per partition */
    uint64_t *ch; /* partition-major */
    sp_columns col;
    sp_tree tc, tr;
    cuzk_par *par;
    cuzk_seal_sparse *out;
} sp_ctx;

static void sp_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* SHA-256(tag || seed || sector || a || b, u64 LE) with [31] &= 0x3f: a
 * canonical domain element (< 2^254 < r).  With b omitted (tag, seed,
 * sector, a) it is sealer.c's derivation of data, ticket and seed bytes. */
static void sp_derive(uint8_t out[32], const char *tag, uint64_t seed, uint64_t sector, uint64_t a,
                      const uint64_t *b)
{
    uint8_t msg[96];
    size_t l = strlen(tag);
    memcpy(msg, tag, l);
    sp_put_le64(msg + l, seed);
    sp_put_le64(msg + l + 8, sector);
    sp_put_le64(msg + l + 16, a);
    if (b) sp_put_le64(msg + l + 24, *b);
    SHA256(msg, l + (b ? 32 : 24), out);
    out[31] &= 0x3f;
}

static int sp_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Index of v in the sorted a[0..n), which must hold it. */
static size_t sp_find(const uint64_t *a, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    CUZK_VERIFY_CHECK(lo < n && a[lo] == v);
    return lo;
}

/* ---- tree D: a periodic sector ------------------------------------------- */
static int sp_tree_d_build(sp_ctx *c, char *err, size_t err_len)
{
    sp_tree_d *d = &c->d;
    while ((1ull << d->depth) < c->nodes)
        d->depth++;
    d->h = d->depth < SP_PERIOD_LOG ? d->depth : SP_PERIOD_LOG;
    d->period = 1ull << d->h;
    if (!(d->small = malloc(32 * (2 * d->period - 1))))
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse C1: cannot allocate tree D's pattern");
    for (uint64_t i = 0; i < d->period; i++)
        sp_derive(d->small + 32 * i, "cuzk-seal data", c->seed, c->sector_id, i, NULL);
    uint8_t *in = d->small;
    for (uint64_t w = d->period; w > 1; w /= 2) {
        uint8_t *o = in + 32 * w;
        for (uint64_t i = 0; i < w / 2; i++)
            cuzk_fil_sha256_trunc254(o + 32 * i, in + 64 * i, 64);
        in = o;
    }
    memcpy(d->top[0], in, 32); /* the pattern's root: every node at level h */
    for (uint32_t k = 0; d->h + k < d->depth; k++) {
        uint8_t two[64];
        memcpy(two, d->top[k], 32);
        memcpy(two + 32, d->top[k], 32);
        cuzk_fil_sha256_trunc254(d->top[k + 1], two, 64);
    }
    memcpy(c->out->comm_d, d->top[d->depth - d->h], 32);
    return CUZK_OK;
}

static const uint8_t *sp_data(const sp_tree_d *d, uint64_t node)
{
    return d->small + 32 * (node & (d->period - 1));
}

/* Single proof of `node`; storage: depth x (8 + 32) bytes. */
static void sp_tree_d_prove(cuzk_fil_merkle_proof *out, uint8_t *storage, const sp_tree_d *d, uint64_t node,
                            const uint8_t comm_d[32])
{
    uint64_t *idx = (uint64_t *)storage;
    uint8_t *hs = storage + 8 * (size_t)d->depth;
    memset(out, 0, sizeof *out);
    out->kind = CUZK_FIL_PROOF_SINGLE;
    memcpy(out->leaf, sp_data(d, node), 32);
    memcpy(out->root, comm_d, 32);
    uint64_t off = 0, w = d->period, j = node & (d->period - 1);
    for (uint32_t l = 0; l < d->depth; l++) {
        idx[l] = (node >> l) & 1;
        const uint8_t *sib = l < d->h ? d->small + 32 * (off + (j ^ 1)) : d->top[l - d->h];
        memcpy(hs + 32 * (size_t)l, sib, 32);
        if (l < d->h) {
            off += w;
            w /= 2;
            j /= 2;
        }
    }
    out->path[0] = (cuzk_fil_path){.levels = d->depth, .arity = d->depth ? 2 : 0, .hashes = hs, .index = idx};
}

/* ---- sparse Poseidon trees (C and R) --------------------------------------- */
typedef struct {
    const uint8_t *in; /* groups x arity x 32 */
    uint8_t *out;      /* groups x 32 */
    size_t groups, arity;
    int *status; /* per chunk */
} sp_hash_job;

static int sp_hash_one(uint8_t out[32], const uint8_t *in, size_t arity)
{
    return cuzk_fil_poseidon_bytes(out, in, arity);
}

static void sp_hash_task(void *arg, size_t t)
{
    sp_hash_job *j = arg;
    size_t end = (t + 1) * SP_CHUNK < j->groups ? (t + 1) * SP_CHUNK : j->groups;
    for (size_t g = t * SP_CHUNK; g < end && !j->status[t]; g++)
        j->status[t] = sp_hash_one(j->out + 32 * g, j->in + 32 * j->arity * g, j->arity);
}

/* out[g] = Poseidon_arity(in[g]) for every group, spread over par. */
static int sp_hash_groups(uint8_t *out, const uint8_t *in, size_t groups, size_t arity, cuzk_par *par)
{
    size_t tasks = (groups + SP_CHUNK - 1) / SP_CHUNK;
    int *status = calloc(tasks ? tasks : 1, sizeof *status);
    if (!status) return CUZK_ERR_NOMEM;
    sp_hash_job j = {.in = in, .out = out, .groups = groups, .arity = arity, .status = status};
    cuzk_par_for(par, sp_hash_task, &j, tasks);
    int st = CUZK_OK;
    for (size_t t = 0; t < tasks && !st; t++)
        st = status[t];
    free(status);
    return st;
}

static void sp_tree_free(sp_tree *t)
{
    for (uint32_t l = 0; l < SP_MAX_LEVELS; l++) {
        free(t->idx[l]);
        free(t->val[l]);
    }
    memset(t, 0, sizeof *t);
}

static void sp_tree_shape(sp_tree *t, const cuzk_fil_tree_shape *s)
{
    t->base_levels = s->base_levels;
    for (uint32_t l = 0; l < s->base_levels; l++)
        t->arity[t->levels++] = s->base_arity;
    if (s->sub_arity) t->arity[t->levels++] = s->sub_arity;
    if (s->top_arity) t->arity[t->levels++] = s->top_arity;
    t->kind = s->top_arity ? CUZK_FIL_PROOF_TOP : s->sub_arity ? CUZK_FIL_PROOF_SUB : CUZK_FIL_PROOF_SINGLE;
}

/* Level l from the known nodes (idx, val: n sorted): the whole group of
 * each, random digests where unknown.  Returns the number of groups. */
static size_t sp_level_fill(sp_tree *t, uint32_t l, const uint64_t *idx, const uint8_t *val, size_t n,
                            const sp_ctx *c, const char *tag)
{
    uint64_t a = t->arity[l];
    size_t groups = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t g = idx[i] / a;
        if (i && g == idx[i - 1] / a) continue;
        for (uint64_t k = 0; k < a; k++, m++) {
            uint64_t node = g * a + k;
            t->idx[l][m] = node;
            sp_derive(t->val[l] + 32 * m, tag, c->seed, c->sector_id, (uint64_t)l << 56 | node, NULL);
        }
        groups++;
    }
    t->count[l] = m;
    for (size_t i = 0; i < n; i++) /* the known nodes over their random stand-ins */
        memcpy(t->val[l] + 32 * sp_find(t->idx[l], m, idx[i]), val + 32 * i, 32);
    return groups;
}

/* Hash the n opened leaves (sorted, unique) up to the root; `tag` names
 * the tree in the random digests' derivation. */
static int sp_tree_build(sp_tree *t, const sp_ctx *c, const uint64_t *leaf_idx, const uint8_t *leaf_val,
                         size_t n, const char *tag, char *err, size_t err_len)
{
    sp_tree_shape(t, &c->shape);
    const uint64_t *idx = leaf_idx;
    const uint8_t *val = leaf_val;
    uint64_t *nidx = NULL;
    uint8_t *nval = NULL;
    int st = CUZK_OK;
    for (uint32_t l = 0; l < t->levels && !st; l++) {
        size_t a = t->arity[l];
        t->idx[l] = malloc(n * a * sizeof(uint64_t));
        t->val[l] = malloc(n * a * 32);
        uint64_t *pidx = malloc(n * sizeof *pidx);
        uint8_t *pval = malloc(n * 32);
        if (!t->idx[l] || !t->val[l] || !pidx || !pval) {
            free(pidx);
            free(pval);
            st = CUZK_ERR_NOMEM;
            break;
        }
        size_t groups = sp_level_fill(t, l, idx, val, n, c, tag);
        for (size_t g = 0; g < groups; g++)
            pidx[g] = t->idx[l][g * a] / a;
        st = sp_hash_groups(pval, t->val[l], groups, a, c->par);
        free(nidx);
        free(nval);
        idx = nidx = pidx;
        val = nval = pval;
        n = groups;
    }
    if (!st && n == 1 && idx[0] == 0) memcpy(t->root, val, 32);
    free(nidx);
    free(nval);
    if (st) return cuzk_errf(err, err_len, st, "sparse C1: %s: %s", tag, cuzk_strerror(st));
    if (n != 1) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse C1: %s: no single root", tag);
    return CUZK_OK;
}

/* Bytes one path of t needs: an index and arity - 1 hashes per level. */
static size_t sp_tree_storage(const sp_tree *t)
{
    size_t n = 0;
    for (uint32_t l = 0; l < t->levels; l++)
        n += 8 + 32 * (size_t)(t->arity[l] - 1);
    return n;
}

/* The proof of an opened leaf, its arrays in storage (sp_tree_storage). */
static void sp_tree_prove(cuzk_fil_merkle_proof *out, uint8_t *storage, const sp_tree *t, uint64_t leaf)
{
    uint64_t *idx = (uint64_t *)storage;
    uint8_t *hs = storage + 8 * (size_t)t->levels, *hp = hs;
    memset(out, 0, sizeof *out);
    out->kind = t->kind;
    memcpy(out->root, t->root, 32);
    uint64_t i = leaf;
    for (uint32_t l = 0; l < t->levels; l++) {
        uint64_t a = t->arity[l], at = i % a;
        size_t pos = sp_find(t->idx[l], t->count[l], i - at);
        idx[l] = at;
        if (l == 0) memcpy(out->leaf, t->val[0] + 32 * (pos + at), 32);
        for (uint64_t k = 0; k < a; k++)
            if (k != at) {
                memcpy(hp, t->val[l] + 32 * (pos + k), 32);
                hp += 32;
            }
        i /= a;
    }
    const uint8_t *h = hs;
    for (uint32_t k = 0, off = 0; k <= out->kind; k++) {
        uint32_t n = k == 0 ? t->base_levels : 1, a = t->arity[off];
        out->path[k] = (cuzk_fil_path){.levels = n, .arity = a, .hashes = h, .index = idx + off};
        h += (size_t)n * (a - 1) * 32;
        off += n;
    }
}

/* ---- challenges, columns, labels ------------------------------------------- */
static int sp_challenges(sp_ctx *c, char *err, size_t err_len)
{
    const cuzk_fil_seal_info *info = c->info;
    size_t cpp = info->challenges_per_partition;
    c->n_ch = (size_t)info->partitions * cpp;
    if (!(c->ch = malloc(c->n_ch * sizeof *c->ch)))
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse C1: out of memory");
    int st = CUZK_OK;
    for (uint32_t k = 0; k < info->partitions && !st; k++)
        st = cuzk_seal_challenges(c->ch + k * cpp, cpp, info, c->out->replica_id, c->out->seed,
                                  c->out->comm_r, k, err, err_len);
    return st;
}

/* The challenges and their 14 parents each, sorted and unique. */
static int sp_columns_collect(sp_ctx *c)
{
    sp_columns *col = &c->col;
    size_t cap = c->n_ch * (1 + CUZK_SEAL_GRAPH_PARENTS), n = 0;
    uint64_t *all = malloc(cap * sizeof *all), *chs = malloc(c->n_ch * sizeof *chs);
    if (!all || !chs) {
        free(all);
        free(chs);
        return CUZK_ERR_NOMEM;
    }
    for (size_t i = 0; i < c->n_ch; i++) {
        uint32_t p[CUZK_SEAL_GRAPH_PARENTS];
        cuzk_seal_graph_parents(&c->graph, c->ch[i], p);
        all[n++] = c->ch[i];
        for (int k = 0; k < CUZK_SEAL_GRAPH_PARENTS; k++)
            all[n++] = p[k];
    }
    qsort(all, n, sizeof *all, sp_cmp_u64);
    memcpy(chs, c->ch, c->n_ch * sizeof *chs);
    qsort(chs, c->n_ch, sizeof *chs, sp_cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || all[i] != all[u - 1]) all[u++] = all[i];
    col->n = u;
    col->node = all;
    col->is_ch = calloc(u, 1);
    col->labels = malloc(u * c->layers * 32);
    if (col->is_ch)
        for (size_t i = 0; i < c->n_ch; i++)
            col->is_ch[sp_find(all, u, chs[i])] = 1;
    free(chs);
    return col->is_ch && col->labels ? CUZK_OK : CUZK_ERR_NOMEM;
}

static uint8_t *sp_label(const sp_ctx *c, uint64_t node, uint32_t layer)
{
    size_t j = sp_find(c->col.node, c->col.n, node);
    return c->col.labels + 32 * ((size_t)c->layers * j + layer - 1);
}

/* Random labels everywhere, then each challenge's real label, layer by
 * layer and in node order within a layer: a DRG parent (< node) that is a
 * challenge has its label of this layer already, an expander parent its
 * label of the layer below. */
static void sp_labels(sp_ctx *c)
{
    const sp_columns *col = &c->col;
    for (size_t j = 0; j < col->n; j++)
        for (uint64_t l = 1; l <= c->layers; l++)
            sp_derive(col->labels + 32 * (c->layers * j + l - 1), "cuzk-sparse label", c->seed, c->sector_id,
                      col->node[j], &l);
    uint8_t pbuf[CUZK_SEAL_GRAPH_PARENTS * 32];
    for (uint32_t l = 1; l <= c->layers; l++)
        for (size_t j = 0; j < col->n; j++) {
            if (!col->is_ch[j]) continue;
            uint64_t node = col->node[j];
            uint32_t p[CUZK_SEAL_GRAPH_PARENTS];
            cuzk_seal_graph_parents(&c->graph, node, p);
            for (int k = 0; k < CUZK_SEAL_GRAPH_DRG_DEGREE; k++) {
                CUZK_VERIFY_CHECK(p[k] < node);
                memcpy(pbuf + 32 * k, sp_label(c, p[k], l), 32);
            }
            for (int k = CUZK_SEAL_GRAPH_DRG_DEGREE; l > 1 && k < CUZK_SEAL_GRAPH_PARENTS; k++)
                memcpy(pbuf + 32 * k, sp_label(c, p[k], l - 1), 32);
            cuzk_seal_label(sp_label(c, node, l), c->out->replica_id, l, node, pbuf,
                            l > 1 ? CUZK_SEAL_GRAPH_PARENTS : CUZK_SEAL_GRAPH_DRG_DEGREE);
        }
}

typedef struct {
    const sp_ctx *c;
    uint8_t *out;
    int *status;
} sp_colhash_job;

static void sp_colhash_task(void *arg, size_t t)
{
    sp_colhash_job *j = arg;
    const sp_columns *col = &j->c->col;
    size_t end = (t + 1) * SP_CHUNK < col->n ? (t + 1) * SP_CHUNK : col->n;
    for (size_t i = t * SP_CHUNK; i < end && !j->status[t]; i++)
        j->status[t] =
            sp_hash_one(j->out + 32 * i, col->labels + 32 * (size_t)j->c->layers * i, j->c->layers);
}

/* Tree C over the column hashes of every opened column. */
static int sp_tree_c(sp_ctx *c, char *err, size_t err_len)
{
    size_t n = c->col.n, tasks = (n + SP_CHUNK - 1) / SP_CHUNK;
    uint8_t *leaves = malloc(32 * n);
    int *status = calloc(tasks, sizeof *status);
    int st = leaves && status ? CUZK_OK : CUZK_ERR_NOMEM;
    if (!st) {
        sp_colhash_job j = {.c = c, .out = leaves, .status = status};
        cuzk_par_for(c->par, sp_colhash_task, &j, tasks);
        for (size_t t = 0; t < tasks && !st; t++)
            st = status[t];
    }
    if (st)
        cuzk_errf(err, err_len, st, "sparse C1: column hashes (Poseidon arity %u): %s", c->layers,
                  cuzk_strerror(st));
    else
        st = sp_tree_build(&c->tc, c, c->col.node, leaves, n, "cuzk-sparse tree C", err, err_len);
    free(leaves);
    free(status);
    return st;
}

/* Tree R over the replica nodes of the challenges: last label + data. */
static int sp_tree_r(sp_ctx *c, char *err, size_t err_len)
{
    const sp_columns *col = &c->col;
    uint64_t *idx = malloc(col->n * sizeof *idx);
    uint8_t *val = malloc(32 * col->n);
    size_t n = 0;
    int st = idx && val ? CUZK_OK : cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse C1: out of memory");
    for (size_t j = 0; !st && j < col->n; j++) {
        if (!col->is_ch[j]) continue;
        idx[n] = col->node[j];
        /* labels and Fr32 data are < 2^254 < r: encoding cannot fail */
        CUZK_CANNOT_FAIL(
            cuzk_seal_encode(val + 32 * n, sp_label(c, idx[n], c->layers), sp_data(&c->d, idx[n])));
        n++;
    }
    if (!st) st = sp_tree_build(&c->tr, c, idx, val, n, "cuzk-sparse tree R", err, err_len);
    free(idx);
    free(val);
    return st;
}

/* ---- vanilla proofs ---------------------------------------------------------- */
/* One challenge's slice of the arena: the comm_d path, the comm_r_last
 * path, 15 columns (rows + tree C path), the labeling proofs and their 37
 * parent slots per layer.  Every size is a multiple of 8. */
typedef struct {
    size_t d, tree, rows, lab, par, total;
} sp_layout;

static size_t sp_align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static void sp_layout_make(sp_layout *L, const sp_ctx *c)
{
    L->d = (size_t)c->d.depth * 40;
    L->tree = sp_tree_storage(&c->tc); /* trees C and R have one shape */
    L->rows = (size_t)c->layers * 32;
    L->lab = sp_align8((size_t)c->layers * sizeof(cuzk_seal_labeling_proof));
    L->par = (size_t)c->layers * SP_SLOTS * 32;
    L->total = L->d + L->tree + (1 + CUZK_SEAL_GRAPH_PARENTS) * (L->tree + L->rows) + L->lab + L->par;
}

static void sp_column(cuzk_seal_column_proof *out, uint8_t **mem, const sp_layout *L, const sp_ctx *c,
                      uint64_t node)
{
    uint8_t *rows = *mem;
    memcpy(rows, sp_label(c, node, 1), L->rows);
    out->index = (uint32_t)node;
    out->n_rows = c->layers;
    out->rows = rows;
    sp_tree_prove(&out->inclusion, rows + L->rows, &c->tc, node);
    *mem += L->rows + L->tree;
}

/* Exactly what seal_proofs.c builds from a sealed sector (prove_layers). */
static void sp_prove_one(cuzk_seal_challenge_proof *p, uint8_t *mem, const sp_layout *L, const sp_ctx *c,
                         uint64_t ch)
{
    uint32_t par[CUZK_SEAL_GRAPH_PARENTS];
    cuzk_seal_graph_parents(&c->graph, ch, par);
    sp_tree_d_prove(&p->comm_d_proof, mem, &c->d, ch, c->out->comm_d);
    mem += L->d;
    sp_tree_prove(&p->comm_r_last_proof, mem, &c->tr, ch);
    mem += L->tree;
    sp_column(&p->c_x, &mem, L, c, ch);
    for (int k = 0; k < CUZK_SEAL_DRG_PARENTS; k++)
        sp_column(&p->drg_parents[k], &mem, L, c, par[k]);
    for (int k = 0; k < CUZK_SEAL_EXP_PARENTS; k++)
        sp_column(&p->exp_parents[k], &mem, L, c, par[CUZK_SEAL_DRG_PARENTS + k]);
    cuzk_seal_labeling_proof *lab = (cuzk_seal_labeling_proof *)mem;
    uint8_t *pbuf = mem + L->lab;
    for (uint32_t layer = 1; layer <= c->layers; layer++) {
        uint32_t n = layer == 1 ? CUZK_SEAL_DRG_PARENTS : CUZK_SEAL_GRAPH_PARENTS;
        uint8_t *out = pbuf + (size_t)(layer - 1) * SP_SLOTS * 32;
        for (uint32_t slot = 0; slot < SP_SLOTS; slot++) {
            uint32_t k = slot % n; /* expander parents from the layer below */
            memcpy(out + 32 * slot, sp_label(c, par[k], k < CUZK_SEAL_DRG_PARENTS ? layer : layer - 1), 32);
        }
        lab[layer - 1] = (cuzk_seal_labeling_proof){
            .layer_index = layer, .node = ch, .n_parents = SP_SLOTS, .parents = out};
    }
    p->n_layers = c->layers;
    p->labeling = lab;
    p->encoding = lab[c->layers - 1];
}

/* The C1: one allocation (c1->mem) holds the proofs and all they point to. */
static int sp_assemble(sp_ctx *c, char *err, size_t err_len)
{
    sp_layout L;
    sp_layout_make(&L, c);
    size_t head = sp_align8(c->n_ch * sizeof(cuzk_seal_challenge_proof));
    cuzk_seal_c1 *c1 = calloc(1, sizeof *c1);
    uint8_t *mem = malloc(head + c->n_ch * L.total);
    if (!c1 || !mem) {
        free(c1);
        free(mem);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse C1: cannot allocate %zu vanilla proofs",
                         c->n_ch);
    }
    cuzk_seal_challenge_proof *proofs = (cuzk_seal_challenge_proof *)mem;
    for (size_t i = 0; i < c->n_ch; i++)
        sp_prove_one(&proofs[i], mem + head + i * L.total, &L, c, c->ch[i]);
    const cuzk_seal_sparse *s = c->out;
    c1->registered_proof = c->info->id;
    c1->info = c->info;
    memcpy(c1->comm_r, s->comm_r, 32);
    memcpy(c1->comm_d, s->comm_d, 32);
    memcpy(c1->replica_id, s->replica_id, 32);
    memcpy(c1->seed, s->seed, 32);
    memcpy(c1->ticket, s->ticket, 32);
    c1->partitions = c->info->partitions;
    c1->challenges_per_partition = c->info->challenges_per_partition;
    c1->proofs = proofs;
    c1->mem = mem;
    c->out->c1 = c1;
    return CUZK_OK;
}

/* ---- phases ------------------------------------------------------------------- */
static int sp_setup(sp_ctx *c, const cuzk_seal_config *cfg, char *err, size_t err_len)
{
    if (!cfg || cuzk_fil_seal_lookup(&c->info, cfg->registered_proof))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse C1: unknown registered seal proof %llu",
                         cfg ? (unsigned long long)cfg->registered_proof : 0ull);
    const cuzk_fil_seal_info *info = c->info;
    if (info->feature != CUZK_FIL_SEAL_PLAIN)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "sparse C1: %s derives its challenges from comm_r, which the sparse trees C and R "
                         "decide; only interactive PoRep (registered proofs 0-9) can be generated unsealed",
                         info->name);
    if (cuzk_fil_tree_shape_for_sector(&c->shape, info->sector_size))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse C1: no tree shape for %s", info->name);
    c->nodes = info->sector_size / CUZK_FIL_NODE_SIZE;
    c->layers = info->layers;
    c->seed = cfg->seed;
    c->sector_id = cfg->sector_id;
    cuzk_seal_sparse *s = c->out;
    s->info = info;
    s->nodes = c->nodes;
    s->sector_id = cfg->sector_id;
    s->miner_id = cfg->miner_id;
    cuzk_seal_prover_id(s->prover_id, cfg->miner_id);
    cuzk_fil_seal_porep_id(s->porep_id, info);
    sp_derive(s->ticket, "cuzk-seal ticket", cfg->seed, cfg->sector_id, 0, NULL);
    sp_derive(s->seed, "cuzk-seal seed", cfg->seed, cfg->sector_id, 0, NULL);
    return CUZK_OK;
}

/* comm_d, replica_id, challenges, labels, trees C and R, comm_r, proofs. */
static int sp_run(sp_ctx *c, char *err, size_t err_len)
{
    cuzk_seal_sparse *s = c->out;
    int st = sp_tree_d_build(c, err, err_len);
    if (st) return st;
    cuzk_seal_replica_id(s->replica_id, s->prover_id, s->sector_id, s->ticket, s->comm_d, s->porep_id);
    if ((st = cuzk_seal_graph_init(&c->graph, c->nodes, s->porep_id, c->info->api_version, c->par, err,
                                   err_len)) ||
        (st = sp_challenges(c, err, err_len)))
        return st;
    if (sp_columns_collect(c))
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM,
                         "sparse C1: cannot allocate the columns of %zu challenges", c->n_ch);
    sp_labels(c);
    if ((st = sp_tree_c(c, err, err_len)) || (st = sp_tree_r(c, err, err_len))) return st;
    memcpy(s->comm_c, c->tc.root, 32);
    memcpy(s->comm_r_last, c->tr.root, 32);
    if ((st = cuzk_fil_comm_r(s->comm_r, s->comm_c, s->comm_r_last, err, err_len))) return st;
    return sp_assemble(c, err, err_len);
}

int cuzk_seal_sparse_c1(cuzk_seal_sparse *out, const cuzk_seal_config *cfg, cuzk_par *par, char *err,
                        size_t err_len)
{
    if (!out) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse C1: NULL output");
    memset(out, 0, sizeof *out);
    sp_ctx c = {.par = par, .out = out};
    int st = sp_setup(&c, cfg, err, err_len);
    if (!st) st = sp_run(&c, err, err_len);
    cuzk_seal_graph_free(&c.graph);
    free(c.d.small);
    free(c.ch);
    free(c.col.node);
    free(c.col.is_ch);
    free(c.col.labels);
    sp_tree_free(&c.tc);
    sp_tree_free(&c.tr);
    if (st) cuzk_seal_sparse_free(out);
    return st;
}

void cuzk_seal_sparse_free(cuzk_seal_sparse *s)
{
    if (!s) return;
    cuzk_seal_c1_free(s->c1);
    s->c1 = NULL;
}
