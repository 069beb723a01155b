/* Sparse synthetic trees: tree_r_last of a sector that is never built,
 * known only along the paths of the leaves a proof opens (cuzk/filecoin.h,
 * "sparse synthetic trees").  Lets a benchmark make real, verifiable
 * WindowPoSt vanilla proofs for thousands of 32/64 GiB sectors in seconds.
 *
 * The tree is the mixed-radix tree of merkle.c (base levels of arity 8,
 * then sub, then top).  For each level we keep the sorted indices of the
 * nodes some opened path passes through ("on-path" nodes) and their
 * Poseidon values, computed bottom up from their children.  Every other
 * node -- and every leaf, opened or not -- is a pseudo-random element
 * derived from the seed, its level and its index, so a node's value is a
 * pure function and any two paths of one tree agree on what they share.
 * Cost: one Poseidon per on-path node above the leaves (about levels x
 * opened leaves), memory the same order; nothing scales with the sector. */
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "cuzk/poseidon.h"
#include "ff/verify.h"
#include "fil/fil_internal.h"

#define SP_MAX_LEVELS 64

struct cuzk_fil_sparse_tree {
    cuzk_fil_tree_shape shape;
    uint8_t seed[32];
    uint32_t levels;                  /* path levels: base_levels (+1 sub) (+1 top) */
    uint32_t arity[SP_MAX_LEVELS];    /* arity of the hash making level l + 1 */
    size_t n[SP_MAX_LEVELS + 1];      /* on-path nodes at level l */
    uint64_t *idx[SP_MAX_LEVELS + 1]; /* their indices, sorted, unique */
    cuzk_fr *val[SP_MAX_LEVELS + 1];  /* their values (levels >= 1; leaves are derived) */
    void *mem;
};

/* The value of a node no path computes: SHA-256 of a tag, the seed, the
 * level (u32 LE) and the index (u64 LE), top two bits cleared (< 2^254,
 * so always a canonical element).  52 bytes: one SHA-256 block, which
 * matters (a 32 GiB sector derives ~1,400 of them beside ~90 Poseidons). */
static void sp_random(uint8_t out[32], const cuzk_fil_sparse_tree *t, uint32_t level, uint64_t index)
{
    static const char tag[] = "cuzk-spt";
    uint8_t msg[sizeof tag - 1 + 32 + 4 + 8];
    uint8_t *p = msg + sizeof tag - 1;
    memcpy(msg, tag, sizeof tag - 1);
    memcpy(p, t->seed, 32);
    for (int b = 0; b < 4; b++)
        p[32 + b] = (uint8_t)(level >> (8 * b));
    fil_put_le64(p + 36, index);
    SHA256(msg, sizeof msg, out);
    out[31] &= 0x3f;
}

/* Position of `index` among the on-path nodes of `level`, or -1. */
static ptrdiff_t sp_find(const cuzk_fil_sparse_tree *t, uint32_t level, uint64_t index)
{
    size_t lo = 0, hi = t->n[level];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->idx[level][mid] < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n[level] && t->idx[level][lo] == index ? (ptrdiff_t)lo : -1;
}

static void sp_node_bytes(uint8_t out[32], const cuzk_fil_sparse_tree *t, uint32_t level, uint64_t index)
{
    ptrdiff_t at = level ? sp_find(t, level, index) : -1;
    if (at >= 0)
        cuzk_fr_to_bytes_le(out, &t->val[level][at]);
    else
        sp_random(out, t, level, index);
}

static void sp_node_fr(cuzk_fr *out, const cuzk_fil_sparse_tree *t, uint32_t level, uint64_t index)
{
    ptrdiff_t at = level ? sp_find(t, level, index) : -1;
    if (at >= 0) {
        *out = t->val[level][at];
        return;
    }
    uint8_t b[32];
    sp_random(b, t, level, index);
    CUZK_CANNOT_FAIL(cuzk_fr_from_bytes_le(out, b)); /* below 2^254 < r */
}

static int sp_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Levels and arities of the shape (after cuzk_fil_tree_shape_make). */
static int sp_layout(cuzk_fil_sparse_tree *t, const cuzk_fil_tree_shape *s, char *err, size_t err_len)
{
    cuzk_fil_tree_shape chk;
    if (cuzk_fil_tree_shape_make(&chk, s->leaves, s->base_arity, s->sub_arity, s->top_arity) ||
        chk.base_levels != s->base_levels || chk.n_base != s->n_base || chk.base_leaves != s->base_leaves)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse tree: the tree shape is not consistent");
    if (s->base_levels + 2 > SP_MAX_LEVELS)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse tree: %u base levels, at most %u",
                         s->base_levels, SP_MAX_LEVELS - 2);
    t->shape = *s;
    uint32_t L = 0;
    for (uint32_t i = 0; i < s->base_levels; i++)
        t->arity[L++] = s->base_arity;
    if (s->sub_arity) t->arity[L++] = s->sub_arity;
    if (s->top_arity) t->arity[L++] = s->top_arity;
    t->levels = L;
    return CUZK_OK;
}

/* Level 0: the opened leaves, sorted and unique; every level above has at
 * most as many on-path nodes, so one block of (levels + 1) x n holds all. */
static int sp_alloc(cuzk_fil_sparse_tree *t, const uint64_t *leaves, size_t n_leaves, char *err,
                    size_t err_len)
{
    size_t L = t->levels;
    if (n_leaves > (SIZE_MAX / 2) / ((L + 1) * (sizeof(uint64_t) + sizeof(cuzk_fr))))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse tree: %zu opened leaves is too many", n_leaves);
    size_t n_fr = L * n_leaves, n_idx = (L + 1) * n_leaves;
    uint8_t *m = malloc(n_fr * sizeof(cuzk_fr) + n_idx * sizeof(uint64_t));
    if (!m)
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse tree: out of memory for %zu leaves", n_leaves);
    t->mem = m;
    cuzk_fr *fr = (cuzk_fr *)m;
    uint64_t *ix = (uint64_t *)(m + n_fr * sizeof(cuzk_fr));
    for (size_t l = 0; l <= L; l++) {
        t->idx[l] = ix + l * n_leaves;
        t->val[l] = l ? fr + (l - 1) * n_leaves : NULL;
    }
    memcpy(t->idx[0], leaves, n_leaves * sizeof *leaves);
    qsort(t->idx[0], n_leaves, sizeof *leaves, sp_cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n_leaves; i++)
        if (!u || t->idx[0][i] != t->idx[0][u - 1]) t->idx[0][u++] = t->idx[0][i];
    t->n[0] = u;
    return CUZK_OK;
}

/* Level l + 1 from level l: the parents of the on-path nodes, each hashed
 * from its arity children (on-path values or derived ones). */
static int sp_level_up(cuzk_fil_sparse_tree *t, uint32_t l)
{
    uint32_t a = t->arity[l];
    size_t m = 0;
    cuzk_fr in[CUZK_POSEIDON_MAX_ARITY];
    for (size_t i = 0; i < t->n[l]; i++) {
        uint64_t p = t->idx[l][i] / a;
        if (m && t->idx[l + 1][m - 1] == p) continue;
        t->idx[l + 1][m] = p;
        for (uint32_t k = 0; k < a; k++)
            sp_node_fr(&in[k], t, l, p * a + k);
        int st = cuzk_poseidon_hash(&t->val[l + 1][m], in, a);
        if (st) return st;
        m++;
    }
    t->n[l + 1] = m;
    return CUZK_OK;
}

int cuzk_fil_sparse_tree_build(cuzk_fil_sparse_tree **out, const cuzk_fil_tree_shape *shape,
                               const uint64_t *leaves, size_t n_leaves, const uint8_t seed[32], char *err,
                               size_t err_len)
{
    if (!out || !shape || !leaves || !seed)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse tree: NULL argument");
    *out = NULL;
    if (!n_leaves) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse tree: no leaf to open");
    cuzk_fil_sparse_tree *t = calloc(1, sizeof *t);
    if (!t) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse tree: out of memory");
    memcpy(t->seed, seed, 32);
    int st = sp_layout(t, shape, err, err_len);
    for (size_t i = 0; !st && i < n_leaves; i++)
        if (leaves[i] >= shape->leaves)
            st = cuzk_errf(err, err_len, CUZK_ERR_ARG,
                           "sparse tree: leaf %llu of %zu is %llu, the tree has %llu", (unsigned long long)i,
                           n_leaves, (unsigned long long)leaves[i], (unsigned long long)shape->leaves);
    if (!st) st = sp_alloc(t, leaves, n_leaves, err, err_len);
    for (uint32_t l = 0; !st && l < t->levels; l++)
        if ((st = sp_level_up(t, l)))
            cuzk_errf(err, err_len, st, "sparse tree: hashing level %u: %s", l + 1, cuzk_strerror(st));
    if (st) {
        cuzk_fil_sparse_tree_free(t);
        return st;
    }
    *out = t;
    return CUZK_OK;
}

void cuzk_fil_sparse_tree_free(cuzk_fil_sparse_tree *t)
{
    if (!t) return;
    free(t->mem);
    free(t);
}

void cuzk_fil_sparse_tree_root(uint8_t out[32], const cuzk_fil_sparse_tree *t)
{
    cuzk_fr_to_bytes_le(out, &t->val[t->levels][0]);
}

size_t cuzk_fil_sparse_tree_proof_storage(const cuzk_fil_sparse_tree *t)
{
    return fil_proof_storage(t->arity, t->levels);
}

static void sp_path_node(const void *ctx, uint32_t level, uint64_t j, uint8_t out[32])
{
    sp_node_bytes(out, ctx, level, j);
}

int cuzk_fil_sparse_tree_prove(cuzk_fil_merkle_proof *out, void *storage, size_t storage_len,
                               const cuzk_fil_sparse_tree *t, uint64_t index, char *err, size_t err_len)
{
    if (!out || !storage || !t)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse tree proof: NULL argument");
    if (storage_len < cuzk_fil_sparse_tree_proof_storage(t) || ((uintptr_t)storage & 7))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "sparse tree proof: storage of %zu bytes at %p, need %zu bytes, 8-byte aligned",
                         storage_len, storage, cuzk_fil_sparse_tree_proof_storage(t));
    if (sp_find(t, 0, index) < 0)
        return cuzk_errf(
            err, err_len, CUZK_ERR_ARG,
            "sparse tree proof: leaf %llu is not one of the %zu leaves the tree was built to open",
            (unsigned long long)index, t->n[0]);
    uint64_t *idx = storage;
    uint8_t *hashes = (uint8_t *)(idx + t->levels);
    fil_proof_begin(out, &t->shape);
    sp_random(out->leaf, t, 0, index);
    fil_gather_path(idx, hashes, t->arity, t->levels, index, sp_path_node, t);
    fil_split_paths(out, t->shape.base_levels, t->arity, idx, hashes);
    cuzk_fil_sparse_tree_root(out->root, t);
    return CUZK_OK;
}

/* ---- synthetic PoSt sectors ------------------------------------------------- */

/* All targets' challenges, concatenated (malloc'd into *out). */
static int sp_challenges(uint64_t **out, size_t *n_out, const cuzk_fil_sparse_post_target *tg, size_t n_tg,
                         const cuzk_fil_sparse_sector *sec, const uint8_t randomness[32], char *err,
                         size_t err_len)
{
    size_t n = 0;
    for (size_t i = 0; i < n_tg; i++) {
        if (!tg[i].post || tg[i].post->sector_size != tg[0].post->sector_size)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "sparse sector: target %zu is not a PoSt type of the first target's sector size",
                             i);
        n += tg[i].post->challenge_count;
    }
    uint64_t *ch = malloc((n + 1) * sizeof *ch);
    if (!ch) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse sector: out of memory");
    for (size_t i = 0, off = 0; i < n_tg; off += tg[i++].post->challenge_count)
        if (cuzk_fil_post_challenges(ch + off, tg[i].post, randomness, sec->sector_id, tg[i].sector_index)) {
            free(ch);
            return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL,
                             "sparse sector: randomness is not a field element");
        }
    *out = ch;
    *n_out = n;
    return CUZK_OK;
}

/* One FallbackPoStSectorProof in one block that v->mem owns: the
 * SectorProof, its inclusion proofs, then their path storage. */
static int sp_vanilla(cuzk_fil_post_vanilla *v, const cuzk_fil_sparse_tree *t, const uint64_t *ch, size_t n,
                      const cuzk_fil_sparse_sector *sec, const uint8_t comm_r[32], char *err, size_t err_len)
{
    size_t sl = cuzk_fil_sparse_tree_proof_storage(t);
    size_t head = sizeof(cuzk_fil_sector_proof) + n * sizeof(cuzk_fil_merkle_proof);
    uint8_t *m = malloc(head + n * sl);
    if (!m) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse sector: out of memory for %zu proofs", n);
    cuzk_fil_sector_proof *sp = (cuzk_fil_sector_proof *)m;
    *sp = (cuzk_fil_sector_proof){.n_proofs = n, .proofs = (cuzk_fil_merkle_proof *)(sp + 1)};
    memcpy(sp->comm_c, sec->comm_c, 32);
    cuzk_fil_sparse_tree_root(sp->comm_r_last, t);
    for (size_t i = 0; i < n; i++) {
        int st = cuzk_fil_sparse_tree_prove(&sp->proofs[i], m + head + i * sl, sl, t, ch[i], err, err_len);
        if (st) {
            free(m);
            return st;
        }
    }
    *v = (cuzk_fil_post_vanilla){.sector_id = sec->sector_id, .n_sectors = 1, .sectors = sp, .mem = m};
    memcpy(v->comm_r, comm_r, 32);
    return CUZK_OK;
}

int cuzk_fil_sparse_post_vanilla(cuzk_fil_post_vanilla *out, const cuzk_fil_sparse_post_target *targets,
                                 size_t n_targets, const cuzk_fil_sparse_sector *sector,
                                 const uint8_t randomness[32], char *err, size_t err_len)
{
    if (!out || !targets || !n_targets || !sector || !randomness)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse sector: NULL argument or no target");
    memset(out, 0, n_targets * sizeof *out);
    cuzk_fil_tree_shape shape;
    uint64_t *ch = NULL;
    size_t n = 0;
    int st = sp_challenges(&ch, &n, targets, n_targets, sector, randomness, err, err_len);
    if (st) return st;
    if (cuzk_fil_tree_shape_for_sector(&shape, targets[0].post->sector_size)) {
        free(ch);
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "sparse sector: sector size %llu has no tree shape",
                         (unsigned long long)targets[0].post->sector_size);
    }
    cuzk_fil_sparse_tree *t = NULL;
    uint8_t root[32], comm_r[32];
    st = cuzk_fil_sparse_tree_build(&t, &shape, ch, n, sector->seed, err, err_len);
    if (!st) cuzk_fil_sparse_tree_root(root, t);
    if (!st) st = cuzk_fil_comm_r(comm_r, sector->comm_c, root, err, err_len);
    for (size_t i = 0, off = 0; !st && i < n_targets; off += targets[i++].post->challenge_count)
        st = sp_vanilla(&out[i], t, ch + off, targets[i].post->challenge_count, sector, comm_r, err, err_len);
    if (st)
        for (size_t i = 0; i < n_targets; i++)
            cuzk_fil_vanilla_free(&out[i]);
    cuzk_fil_sparse_tree_free(t);
    free(ch);
    return st;
}
