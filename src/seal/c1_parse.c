/* SealCommitPhase1Output JSON (wire-contract.md "PoRep vanilla_proof") ->
 * cuzk_seal_c1, with Curio's envelope or bare.
 *
 * The JSON is first turned into a compact tree (c1_json.c), then walked
 * once against the shapes the registered proof dictates: every count
 * (partitions, challenges, layers, path levels, hashes per level, 37
 * label parents) is known before the walk, so one allocation holds all
 * output and nothing in the input can make it larger than the input
 * itself.  The walker keeps the JSON path of the value it reads, so every
 * error names it exactly ("vanilla_proofs[3][7].replica_column_proofs.
 * drg_parents[2].inclusion_proof.data.Sub.root: ..."). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/seal_c1.h"
#include "cuzk/status.h"
#include "fil/field_path.h"
#include "seal/c1_internal.h"

#define C1_TOTAL_PARENTS 37 /* TOTAL_PARENTS: label parents repeated to 37 */

typedef struct {
    const c1j_tree *t;
    char path[320];
    size_t plen;
    char *err;
    size_t err_len;
    const cuzk_fil_seal_info *info;
    uint32_t kind, levels[3], arity[3]; /* tree R / tree C proof shape */
    uint32_t d_levels;                  /* comm_d proof levels */
    uint8_t *mem;
    size_t used, cap;
} wk;

static size_t w_push(wk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t w_push(wk *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t mark = cuzk_fil_field_vpush(w->path, sizeof w->path, &w->plen, fmt, ap);
    va_end(ap);
    return mark;
}

static size_t w_push_key(wk *w, const char *key)
{
    return w_push(w, w->plen ? ".%s" : "%s", key);
}

static void w_pop(wk *w, size_t old)
{
    cuzk_fil_field_pop(w->path, &w->plen, old);
}

static int w_fail(wk *w, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int w_fail(wk *w, int status, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cuzk_errf(w->err, w->err_len, status, "%s: %s", w->plen ? w->path : "(top level)", msg);
}

static void *w_alloc(wk *w, size_t n)
{
    size_t at = (w->used + 7) & ~(size_t)7;
    if (at + n > w->cap) return NULL; /* sizes are exact: cannot happen */
    w->used = at + n;
    return w->mem + at;
}

static int w_type(wk *w, const c1j_node *n, int type)
{
    if (n->type == type) return CUZK_OK;
    return w_fail(w, CUZK_ERR_FORMAT, "expected %s, got %s", cuzk_seal_c1j_type_name(type),
                  cuzk_seal_c1j_type_name(n->type));
}

/* Child `key` of object o, of type `type` (-1: any); pushes ".key". */
static int w_key(wk *w, const c1j_node *o, const char *key, int type, const c1j_node **out, size_t *mark)
{
    const c1j_node *c = cuzk_seal_c1j_get(w->t, o, key);
    *out = c;
    *mark = w->plen;
    if (!c) return w_fail(w, CUZK_ERR_FORMAT, "missing key \"%s\"", key);
    *mark = w_push_key(w, key);
    *out = c;
    return type < 0 ? CUZK_OK : w_type(w, c, type);
}

static int w_array(wk *w, const c1j_node *a, uint32_t count, const char *what)
{
    int st = w_type(w, a, C1J_ARR);
    if (st) return st;
    if (a->n != count)
        return w_fail(w, CUZK_ERR_FORMAT, "expected %u %s for %s, got %u", count, what, w->info->name, a->n);
    return CUZK_OK;
}

static int w_u64(wk *w, const c1j_node *n, uint64_t max, uint64_t *v)
{
    int st = w_type(w, n, C1J_INT);
    if (st) return st;
    if (n->v < 0 || (uint64_t)n->v > max)
        return w_fail(w, CUZK_ERR_FORMAT, "%lld is out of range [0, %llu]", (long long)n->v,
                      (unsigned long long)max);
    *v = (uint64_t)n->v;
    return CUZK_OK;
}

/* A domain element: an array of 32 bytes, canonical (< r). */
static int w_dom(wk *w, const c1j_node *n, uint8_t out[32])
{
    if (n->type == C1J_ARR) {
        if (n->n != 32)
            return w_fail(w, CUZK_ERR_FORMAT, "expected an array of 32 bytes, got %u elements", n->n);
        uint32_t k = 0;
        for (const c1j_node *e = c1j_at(w->t, n->first); e; e = c1j_at(w->t, e->next), k++)
            if (e->type != C1J_INT)
                return w_fail(w, CUZK_ERR_FORMAT, "element [%u] is %s, not a byte", k,
                              cuzk_seal_c1j_type_name(e->type));
            else if (e->v < 0 || e->v > 255)
                return w_fail(w, CUZK_ERR_FORMAT, "element [%u] = %lld is not a byte", k, (long long)e->v);
    }
    int st = w_type(w, n, C1J_BYTES);
    if (st) return st;
    const uint8_t *b = w->t->bytes + n->v;
    if (!cuzk_fil_domain_valid(b))
        return w_fail(w, CUZK_ERR_ENC_NONCANONICAL, "not a canonical field element (>= r)");
    memcpy(out, b, 32);
    return CUZK_OK;
}

static int w_key_dom(wk *w, const c1j_node *o, const char *key, uint8_t out[32])
{
    const c1j_node *c;
    size_t m;
    int st = w_key(w, o, key, -1, &c, &m);
    if (!st) st = w_dom(w, c, out);
    if (!st) w_pop(w, m);
    return st;
}

static int w_key_u64(wk *w, const c1j_node *o, const char *key, uint64_t max, uint64_t *v)
{
    const c1j_node *c;
    size_t m;
    int st = w_key(w, o, key, -1, &c, &m);
    if (!st) st = w_u64(w, c, max, v);
    if (!st) w_pop(w, m);
    return st;
}

/* InclusionPath {"path": [{"hashes": [dom x (arity-1)], "index": n} x levels]}. */
static int w_path(wk *w, const c1j_node *o, cuzk_fil_path *out, uint32_t levels, uint32_t arity)
{
    const c1j_node *arr;
    size_t m0;
    int st = w_key(w, o, "path", -1, &arr, &m0);
    if (st || (st = w_array(w, arr, levels, "path levels"))) return st;
    uint64_t *idx = w_alloc(w, (size_t)levels * sizeof(uint64_t));
    uint8_t *hash = w_alloc(w, (size_t)levels * (arity - 1) * 32);
    if (!idx || !hash) return w_fail(w, CUZK_ERR_NOMEM, "internal size error");
    uint32_t l = 0;
    for (const c1j_node *e = c1j_at(w->t, arr->first); e; e = c1j_at(w->t, e->next), l++) {
        size_t m1 = w_push(w, "[%u]", l), m2;
        const c1j_node *hs;
        if ((st = w_type(w, e, C1J_OBJ)) || (st = w_key(w, e, "hashes", -1, &hs, &m2)) ||
            (st = w_array(w, hs, arity - 1, "hashes")))
            return st;
        uint32_t k = 0;
        for (const c1j_node *h = c1j_at(w->t, hs->first); h; h = c1j_at(w->t, h->next), k++) {
            size_t m3 = w_push(w, "[%u]", k);
            if ((st = w_dom(w, h, hash + ((size_t)l * (arity - 1) + k) * 32))) return st;
            w_pop(w, m3);
        }
        w_pop(w, m2);
        if ((st = w_key_u64(w, e, "index", arity - 1, &idx[l]))) return st;
        w_pop(w, m1);
    }
    *out = (cuzk_fil_path){.levels = levels, .arity = levels ? arity : 0, .hashes = hash, .index = idx};
    w_pop(w, m0);
    return CUZK_OK;
}

/* MerkleProof {"data": {"Single"|"Sub"|"Top": {...}}} of a given shape. */
static int w_merkle(wk *w, const c1j_node *n, cuzk_fil_merkle_proof *p, uint32_t kind,
                    const uint32_t levels[3], const uint32_t arity[3])
{
    static const char *const variant[3] = {"Single", "Sub", "Top"};
    static const char *const part[3] = {"base_proof", "sub_proof", "top_proof"};
    const c1j_node *data, *body;
    size_t m0, m1, m2;
    int st = w_type(w, n, C1J_OBJ);
    if (st || (st = w_key(w, n, "data", C1J_OBJ, &data, &m0))) return st;
    const c1j_node *v = c1j_at(w->t, data->first);
    if (data->n != 1 || strcmp(w->t->chars + v->koff, variant[kind]))
        return w_fail(w, CUZK_ERR_FORMAT, "expected one key \"%s\" (the tree shape of %s), got %s%s%s",
                      variant[kind], w->info->name, data->n == 1 ? "\"" : "",
                      data->n == 1 ? w->t->chars + v->koff
                      : data->n    ? "several keys"
                                   : "none",
                      data->n == 1 ? "\"" : "");
    if ((st = w_key(w, data, variant[kind], C1J_OBJ, &body, &m1))) return st;
    memset(p, 0, sizeof *p);
    p->kind = kind;
    for (uint32_t k = 0; k <= kind; k++) {
        const c1j_node *pp; /* an InclusionPath: {"path": [...]} */
        const char *key = kind == CUZK_FIL_PROOF_SINGLE ? "path" : part[k];
        if ((st = w_key(w, body, key, C1J_OBJ, &pp, &m2)) ||
            (st = w_path(w, pp, &p->path[k], levels[k], arity[k])))
            return st;
        w_pop(w, m2);
    }
    if ((st = w_key_dom(w, body, "root", p->root)) || (st = w_key_dom(w, body, "leaf", p->leaf))) return st;
    w_pop(w, m0);
    return CUZK_OK;
}

static int w_merkle_r(wk *w, const c1j_node *o, const char *key, cuzk_fil_merkle_proof *p)
{
    const c1j_node *n;
    size_t m;
    int st = w_key(w, o, key, -1, &n, &m);
    if (!st) st = w_merkle(w, n, p, w->kind, w->levels, w->arity);
    if (!st) w_pop(w, m);
    return st;
}

/* ColumnProof {"column": {"index", "rows", "_h": null}, "inclusion_proof"}. */
static int w_column(wk *w, const c1j_node *n, cuzk_seal_column_proof *c)
{
    const c1j_node *col, *rows, *h;
    size_t m0, m1;
    uint64_t index;
    uint32_t layers = w->info->layers;
    int st = w_type(w, n, C1J_OBJ);
    if (st || (st = w_key(w, n, "column", C1J_OBJ, &col, &m0)) ||
        (st = w_key_u64(w, col, "index", UINT32_MAX, &index)))
        return st;
    if ((h = cuzk_seal_c1j_get(w->t, col, "_h")) && h->type != C1J_NULL) {
        w_push_key(w, "_h");
        return w_type(w, h, C1J_NULL);
    }
    if ((st = w_key(w, col, "rows", -1, &rows, &m1)) || (st = w_array(w, rows, layers, "rows (layers)")))
        return st;
    uint8_t *r = w_alloc(w, (size_t)layers * 32);
    if (!r) return w_fail(w, CUZK_ERR_NOMEM, "internal size error");
    uint32_t k = 0;
    for (const c1j_node *e = c1j_at(w->t, rows->first); e; e = c1j_at(w->t, e->next), k++) {
        size_t m2 = w_push(w, "[%u]", k);
        if ((st = w_dom(w, e, r + (size_t)k * 32))) return st;
        w_pop(w, m2);
    }
    w_pop(w, m0);
    c->index = (uint32_t)index;
    c->n_rows = layers;
    c->rows = r;
    return w_merkle_r(w, n, "inclusion_proof", &c->inclusion);
}

/* LabelingProof / EncodingProof {"parents": [dom x 37], "layer_index", "node"}. */
static int w_labeling(wk *w, const c1j_node *n, cuzk_seal_labeling_proof *lp)
{
    const c1j_node *ps;
    size_t m0;
    uint64_t layer, node;
    int st = w_type(w, n, C1J_OBJ);
    if (st || (st = w_key_u64(w, n, "layer_index", UINT32_MAX, &layer)) ||
        (st = w_key_u64(w, n, "node", INT64_MAX, &node)) || (st = w_key(w, n, "parents", -1, &ps, &m0)) ||
        (st = w_array(w, ps, C1_TOTAL_PARENTS, "parents")))
        return st;
    uint8_t *par = w_alloc(w, C1_TOTAL_PARENTS * 32);
    if (!par) return w_fail(w, CUZK_ERR_NOMEM, "internal size error");
    uint32_t k = 0;
    for (const c1j_node *e = c1j_at(w->t, ps->first); e; e = c1j_at(w->t, e->next), k++) {
        size_t m1 = w_push(w, "[%u]", k);
        if ((st = w_dom(w, e, par + (size_t)k * 32))) return st;
        w_pop(w, m1);
    }
    w_pop(w, m0);
    *lp = (cuzk_seal_labeling_proof){
        .layer_index = (uint32_t)layer, .node = node, .n_parents = C1_TOTAL_PARENTS, .parents = par};
    return CUZK_OK;
}

static int w_column_list(wk *w, const c1j_node *o, const char *key, cuzk_seal_column_proof *out,
                         uint32_t count)
{
    const c1j_node *a;
    size_t m0;
    int st = w_key(w, o, key, -1, &a, &m0);
    if (st || (st = w_array(w, a, count, "column proofs"))) return st;
    uint32_t k = 0;
    for (const c1j_node *e = c1j_at(w->t, a->first); e; e = c1j_at(w->t, e->next), k++) {
        size_t m1 = w_push(w, "[%u]", k);
        if ((st = w_column(w, e, &out[k]))) return st;
        w_pop(w, m1);
    }
    w_pop(w, m0);
    return CUZK_OK;
}

static int w_proof(wk *w, const c1j_node *n, cuzk_seal_challenge_proof *p, cuzk_seal_labeling_proof *lab)
{
    const uint32_t d_levels[3] = {w->d_levels}, d_arity[3] = {2};
    const c1j_node *x, *rc, *ls;
    size_t m0, m1;
    uint32_t layers = w->info->layers;
    int st = w_type(w, n, C1J_OBJ);
    if (st || (st = w_key(w, n, "comm_d_proofs", -1, &x, &m0)) ||
        (st = w_merkle(w, x, &p->comm_d_proof, CUZK_FIL_PROOF_SINGLE, d_levels, d_arity)))
        return st;
    w_pop(w, m0);
    if ((st = w_merkle_r(w, n, "comm_r_last_proof", &p->comm_r_last_proof)) ||
        (st = w_key(w, n, "replica_column_proofs", C1J_OBJ, &rc, &m0)) ||
        (st = w_key(w, rc, "c_x", -1, &x, &m1)) || (st = w_column(w, x, &p->c_x)))
        return st;
    w_pop(w, m1);
    if ((st = w_column_list(w, rc, "drg_parents", p->drg_parents, CUZK_SEAL_DRG_PARENTS)) ||
        (st = w_column_list(w, rc, "exp_parents", p->exp_parents, CUZK_SEAL_EXP_PARENTS)))
        return st;
    w_pop(w, m0);
    if ((st = w_key(w, n, "labeling_proofs", -1, &ls, &m0)) ||
        (st = w_array(w, ls, layers, "labeling proofs (layers)")))
        return st;
    uint32_t k = 0;
    for (const c1j_node *e = c1j_at(w->t, ls->first); e; e = c1j_at(w->t, e->next), k++) {
        size_t m2 = w_push(w, "[%u]", k);
        if ((st = w_labeling(w, e, &lab[k]))) return st;
        w_pop(w, m2);
    }
    w_pop(w, m0);
    p->n_layers = layers;
    p->labeling = lab;
    if ((st = w_key(w, n, "encoding_proof", -1, &x, &m0)) || (st = w_labeling(w, x, &p->encoding))) return st;
    w_pop(w, m0);
    return CUZK_OK;
}

/* Exact bytes of everything the walk allocates (8-byte aligned pieces). */
static size_t c1_mem_size(const wk *w, size_t n_proofs)
{
    uint32_t layers = w->info->layers;
    size_t r_idx = 0, r_hash = 0;
    for (uint32_t k = 0; k <= w->kind; k++) {
        r_idx += (size_t)w->levels[k] * 8;
        r_hash += ((size_t)w->levels[k] * (w->arity[k] - 1) * 32 + 7) & ~(size_t)7;
    }
    size_t per = (size_t)w->d_levels * (8 + 32)                           /* comm_d */
                 + 16 * (r_idx + r_hash)                                  /* tree R + 15 tree C */
                 + 15 * (((size_t)layers * 32 + 7) & ~(size_t)7)          /* column rows */
                 + (layers + 1) * (size_t)C1_TOTAL_PARENTS * 32           /* label parents */
                 + sizeof(cuzk_seal_challenge_proof) + 8                  /* proof */
                 + (size_t)layers * sizeof(cuzk_seal_labeling_proof) + 8; /* labeling array */
    return n_proofs * per + 64;
}

static int c1_lookup_name(const cuzk_fil_seal_info **out, const char *name)
{
    for (uint64_t id = 0; id < 20; id++)
        if (cuzk_fil_seal_lookup(out, id) == CUZK_OK && !strcmp((*out)->name, name)) return CUZK_OK;
    return CUZK_ERR_ARG;
}

static int c1_set_shape(wk *w)
{
    cuzk_fil_tree_shape sh;
    if (cuzk_fil_tree_shape_for_sector(&sh, w->info->sector_size))
        return w_fail(w, CUZK_ERR_ARG, "no tree shape for sector size %llu",
                      (unsigned long long)w->info->sector_size);
    w->kind = sh.top_arity ? CUZK_FIL_PROOF_TOP : sh.sub_arity ? CUZK_FIL_PROOF_SUB : CUZK_FIL_PROOF_SINGLE;
    w->levels[0] = sh.base_levels;
    w->arity[0] = sh.base_arity;
    w->levels[1] = w->levels[2] = 1;
    w->arity[1] = sh.sub_arity;
    w->arity[2] = sh.top_arity;
    w->d_levels = 0;
    while ((1ull << w->d_levels) < sh.leaves)
        w->d_levels++;
    return CUZK_OK;
}

static int c1_walk_partitions(wk *w, const c1j_node *vp, cuzk_seal_c1 *c1)
{
    uint32_t P = w->info->partitions, C = w->info->challenges_per_partition;
    int st = w_array(w, vp, P, "partitions");
    if (st) return st;
    size_t n = (size_t)P * C;
    w->cap = c1_mem_size(w, n);
    if (!(w->mem = calloc(1, w->cap))) return w_fail(w, CUZK_ERR_NOMEM, "out of memory");
    cuzk_seal_challenge_proof *proofs = w_alloc(w, n * sizeof *proofs);
    cuzk_seal_labeling_proof *lab = w_alloc(w, n * w->info->layers * sizeof *lab);
    c1->mem = w->mem;
    c1->proofs = proofs;
    uint32_t k = 0;
    for (const c1j_node *part = c1j_at(w->t, vp->first); part; part = c1j_at(w->t, part->next), k++) {
        size_t m0 = w_push(w, "[%u]", k);
        if ((st = w_array(w, part, C, "challenge proofs per partition"))) return st;
        uint32_t i = 0;
        for (const c1j_node *e = c1j_at(w->t, part->first); e; e = c1j_at(w->t, e->next), i++) {
            size_t m1 = w_push(w, "[%u]", i), j = (size_t)k * C + i;
            if ((st = w_proof(w, e, &proofs[j], lab + j * w->info->layers))) return st;
            w_pop(w, m1);
        }
        w_pop(w, m0);
    }
    return CUZK_OK;
}

static int c1_walk(wk *w, const c1j_node *root, cuzk_seal_c1 *c1, uint64_t expected)
{
    const c1j_node *x;
    size_t m;
    int st = w_type(w, root, C1J_OBJ);
    if (st || (st = w_key(w, root, "registered_proof", C1J_STR, &x, &m))) return st;
    const char *name = w->t->chars + x->v;
    if (c1_lookup_name(&w->info, name))
        return w_fail(w, CUZK_ERR_ARG, "unknown registered seal proof \"%.60s\"", name);
    if (expected != UINT64_MAX && w->info->id != expected)
        return w_fail(w, CUZK_ERR_ARG, "%s (id %llu), but the caller expects id %llu", name,
                      (unsigned long long)w->info->id, (unsigned long long)expected);
    w_pop(w, m);
    if (c1->has_envelope && c1->envelope_sector_size != w->info->sector_size)
        return cuzk_errf(w->err, w->err_len, CUZK_ERR_FORMAT,
                         "SectorSize: %llu does not match registered_proof %s (sector size %llu)",
                         (unsigned long long)c1->envelope_sector_size, name,
                         (unsigned long long)w->info->sector_size);
    c1->registered_proof = w->info->id;
    c1->info = w->info;
    c1->partitions = w->info->partitions;
    c1->challenges_per_partition = w->info->challenges_per_partition;
    if ((st = c1_set_shape(w))) return st;
    if ((st = w_key_dom(w, root, "comm_r", c1->comm_r)) || (st = w_key_dom(w, root, "comm_d", c1->comm_d)) ||
        (st = w_key_dom(w, root, "replica_id", c1->replica_id)) ||
        (st = w_key_dom(w, root, "seed", c1->seed)) || (st = w_key_dom(w, root, "ticket", c1->ticket)))
        return st;
    /* VanillaSealProof has one variant per size, named ...V1 for every api version */
    const cuzk_fil_seal_info *v1;
    if (cuzk_fil_seal_lookup(&v1, w->info->id % 5)) return w_fail(w, CUZK_ERR_ARG, "registry");
    const c1j_node *vp, *e;
    if ((st = w_key(w, root, "vanilla_proofs", C1J_OBJ, &vp, &m))) return st;
    if (vp->n != 1 || !(e = cuzk_seal_c1j_get(w->t, vp, v1->name)))
        return w_fail(w, CUZK_ERR_FORMAT, "expected one key \"%s\" for %s, got %s%s%s", v1->name, name,
                      vp->n == 1 ? "\"" : "",
                      vp->n == 1 ? w->t->chars + c1j_at(w->t, vp->first)->koff
                      : vp->n    ? "several keys"
                                 : "none",
                      vp->n == 1 ? "\"" : "");
    /* the path names the list by the map key: vanilla_proofs[3][7] stays short */
    return c1_walk_partitions(w, e, c1);
}

static int c1_envelope(wk *w, const c1j_node *root, cuzk_seal_c1 *c1, const c1j_node **p1)
{
    const c1j_node *x;
    size_t m;
    int64_t max = INT64_MAX;
    int st = w_key_u64(w, root, "SectorNum", (uint64_t)max, &c1->sector_num);
    if (st || (st = w_key_u64(w, root, "SectorSize", (uint64_t)max, &c1->envelope_sector_size)) ||
        (st = w_key(w, root, "Phase1Out", C1J_STR, &x, &m)))
        return st;
    w_pop(w, m);
    c1->has_envelope = true;
    *p1 = x;
    return CUZK_OK;
}

int cuzk_seal_c1_parse(cuzk_seal_c1 **out, const char *json, size_t len, uint64_t expected_registered_proof,
                       char *err, size_t err_len)
{
    if (!out || (!json && len)) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "c1 parse: NULL argument");
    *out = NULL;
    cuzk_seal_c1 *c1 = calloc(1, sizeof *c1);
    if (!c1) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "c1 parse: out of memory");
    c1j_tree env = {0}, tree = {0};
    uint8_t *inner = NULL;
    size_t inner_len;
    wk w = {.err = err, .err_len = err_len};
    int st = cuzk_seal_c1j_parse(&tree, json, len, "C1 JSON", cuzk_seal_c1_tree_limit(len), err, err_len);
    const c1j_node *root = st ? NULL : c1j_at(&tree, tree.root), *p1;
    if (!st && root->type == C1J_OBJ && cuzk_seal_c1j_get(&tree, root, "Phase1Out")) {
        env = tree;
        memset(&tree, 0, sizeof tree);
        w.t = &env;
        if (!(st = c1_envelope(&w, root, c1, &p1)) &&
            !(st = cuzk_seal_c1_base64_decode(&inner, &inner_len, env.chars + p1->v, p1->n, err, err_len)) &&
            !(st = cuzk_seal_c1j_parse(&tree, (const char *)inner, inner_len, "Phase1Out (decoded C1 JSON)",
                                       cuzk_seal_c1_tree_limit(inner_len), err, err_len)))
            root = c1j_at(&tree, tree.root);
        cuzk_seal_c1j_free(&env);
        free(inner);
    }
    if (!st) {
        w.t = &tree;
        st = c1_walk(&w, root, c1, expected_registered_proof);
    }
    cuzk_seal_c1j_free(&tree);
    if (st) {
        cuzk_seal_c1_free(c1); /* c1->mem is w.mem */
        return st;
    }
    *out = c1;
    return CUZK_OK;
}

/* Envelope: its tree (the base64 string is copied into it), the decoded
 * JSON (3/4 of it), that JSON's tree, side by side; then that tree and the
 * output.  Bare: the tree, then the output beside it.  The envelope case
 * is the larger. */
uint64_t cuzk_seal_c1_parse_bytes(size_t len)
{
    size_t inner = len / 4 * 3 + 1;
    uint64_t env = (uint64_t)cuzk_seal_c1_tree_limit(len) + inner + cuzk_seal_c1_tree_limit(inner);
    uint64_t bare = (uint64_t)cuzk_seal_c1_tree_limit(len) + len + sizeof(cuzk_seal_c1);
    return env > bare ? env : bare;
}

void cuzk_seal_c1_free(cuzk_seal_c1 *c1)
{
    if (!c1) return;
    free(c1->mem);
    free(c1);
}
