/* Filecoin Merkle trees: 8-ary Poseidon trees with sub/top layers
 * (rust-fil-proofs LCTree/DiskTree<PoseidonHasher, U8, S, T>) and binary
 * SHA-256 trunc254 trees (comm_d), proof generation and verification.
 *
 * A compound tree is a plain mixed-radix tree: base_levels levels of
 * arity 8, then one level of arity S (sub), then one of arity T (top).
 * The base trees of rust-fil-proofs are consecutive leaf ranges, so level l
 * of all base trees laid side by side is exactly level l of this tree, and
 * the leaf index a path encodes is the mixed-radix number of its level
 * indices (storage-proofs-core merkle/proof.rs path_index). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "fil/fil_internal.h"

#define FIL_MAX_LEVELS 64

struct cuzk_fil_tree {
    cuzk_fil_tree_shape shape;
    uint32_t levels;                  /* total path levels */
    uint32_t arity[FIL_MAX_LEVELS];   /* arity of the hash that makes level l + 1 */
    uint64_t count[FIL_MAX_LEVELS + 1]; /* nodes at level l (0 = leaves) */
    cuzk_fr *level[FIL_MAX_LEVELS + 1]; /* level[l] for l >= 1 (level[0] unused) */
    cuzk_fr *mem;
    cuzk_fil_leaf_fn leaf;
    void *leaf_ctx;
};

int cuzk_fil_tree_shape_make(cuzk_fil_tree_shape *out, uint64_t leaves, uint32_t base_arity,
                             uint32_t sub_arity, uint32_t top_arity)
{
    if (!out || leaves == 0 || (base_arity != 2 && base_arity != 4 && base_arity != 8))
        return CUZK_ERR_ARG;
    if ((sub_arity && !cuzk_poseidon_arity_supported(sub_arity)) ||
        (top_arity && !cuzk_poseidon_arity_supported(top_arity)) || (top_arity && !sub_arity))
        return CUZK_ERR_ARG;
    uint64_t n_base = (uint64_t)(sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1);
    if (leaves % n_base) return CUZK_ERR_ARG;
    uint64_t bl = leaves / n_base;
    uint32_t lv = 0;
    uint64_t p = 1;
    while (p < bl) {
        p *= base_arity;
        lv++;
    }
    if (p != bl || lv == 0) return CUZK_ERR_ARG;
    *out = (cuzk_fil_tree_shape){.leaves = leaves, .base_arity = base_arity,
                                 .sub_arity = sub_arity, .top_arity = top_arity,
                                 .base_levels = lv, .n_base = (uint32_t)n_base, .base_leaves = bl};
    return CUZK_OK;
}

int cuzk_fil_tree_shape_for_sector(cuzk_fil_tree_shape *out, uint64_t sector_size)
{
    uint32_t sub = 0, top = 0;
    switch (sector_size) {
    case 1ull << 11: case 1ull << 23: case 1ull << 29: break;         /* base */
    case 1ull << 12: case 1ull << 24: case 1ull << 30: sub = 2; break; /* sub2 */
    case 1ull << 14: case 1ull << 35: sub = 8; break;                  /* sub8 */
    case 1ull << 15: case 1ull << 36: sub = 8; top = 2; break;         /* top2 */
    default: return CUZK_ERR_ARG;
    }
    return cuzk_fil_tree_shape_make(out, sector_size / CUZK_FIL_NODE_SIZE, 8, sub, top);
}

/* ---- verification -------------------------------------------------------- */

int cuzk_fil_merkle_verify_poseidon(bool *ok, uint64_t *leaf_index, const cuzk_fil_merkle_proof *p,
                                    char *err, size_t err_len)
{
    if (!ok || !p || p->kind > CUZK_FIL_PROOF_TOP) return CUZK_ERR_ARG;
    *ok = false;
    cuzk_fr h, in[CUZK_POSEIDON_MAX_ARITY];
    int st = cuzk_fil_domain_to_fr(&h, p->leaf, "leaf", err, err_len);
    if (st) return st;
    static const char *const names[3] = {"base", "sub", "top"};
    uint64_t idx = 0, mult = 1;
    bool overflow = false;
    for (uint32_t k = 0; k <= p->kind; k++) {
        const cuzk_fil_path *path = &p->path[k];
        if (path->levels == 0) continue;
        if (!cuzk_poseidon_arity_supported(path->arity))
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s path: arity %u is not a Poseidon arity",
                             names[k], path->arity);
        for (uint32_t l = 0; l < path->levels; l++) {
            uint64_t at = path->index[l];
            if (at >= path->arity)
                return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s path level %u: index %llu >= arity %u",
                                 names[k], l, (unsigned long long)at, path->arity);
            const uint8_t *hs = path->hashes + (size_t)l * (path->arity - 1) * 32;
            for (uint32_t j = 0, s = 0; j < path->arity; j++) {
                if (j == at) {
                    in[j] = h;
                    continue;
                }
                char what[64];
                snprintf(what, sizeof what, "%s path level %u hash %u", names[k], l, s);
                st = cuzk_fil_domain_to_fr(&in[j], hs + 32 * (size_t)s++, what, err, err_len);
                if (st) return st;
            }
            st = cuzk_poseidon_hash(&h, in, path->arity);
            if (st) return cuzk_errf(err, err_len, st, "poseidon: %s", cuzk_strerror(st));
            if (overflow || (idx += at * mult, mult > UINT64_MAX / path->arity)) overflow = true;
            mult *= path->arity;
        }
    }
    uint8_t root[32];
    cuzk_fr_to_bytes_le(root, &h);
    if (leaf_index) *leaf_index = overflow ? UINT64_MAX : idx;
    *ok = memcmp(root, p->root, 32) == 0;
    if (!*ok) cuzk_errf(err, err_len, CUZK_OK, "path does not hash to the proof's root");
    return CUZK_OK;
}

int cuzk_fil_merkle_verify_sha256(bool *ok, uint64_t *leaf_index, const cuzk_fil_merkle_proof *p,
                                  char *err, size_t err_len)
{
    if (!ok || !p) return CUZK_ERR_ARG;
    *ok = false;
    const cuzk_fil_path *path = &p->path[0];
    if (p->kind != CUZK_FIL_PROOF_SINGLE || (path->levels && path->arity != 2))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "sha256 proof must be a binary Single proof");
    if (path->levels > 63) return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "sha256 path too long");
    uint8_t h[32], buf[64];
    memcpy(h, p->leaf, 32);
    uint64_t idx = 0;
    for (uint32_t l = 0; l < path->levels; l++) {
        uint64_t at = path->index[l];
        if (at > 1)
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "sha256 path level %u: index %llu > 1", l,
                             (unsigned long long)at);
        memcpy(buf + 32 * at, h, 32);
        memcpy(buf + 32 * (1 - at), path->hashes + 32 * (size_t)l, 32);
        cuzk_fil_sha256_trunc254(h, buf, 64);
        idx |= at << l;
    }
    if (leaf_index) *leaf_index = idx;
    *ok = memcmp(h, p->root, 32) == 0;
    if (!*ok) cuzk_errf(err, err_len, CUZK_OK, "sha256 path does not hash to the proof's root");
    return CUZK_OK;
}

bool cuzk_fil_merkle_proof_matches(const cuzk_fil_merkle_proof *p, const cuzk_fil_tree_shape *s)
{
    uint32_t kind = s->top_arity ? CUZK_FIL_PROOF_TOP
                  : s->sub_arity ? CUZK_FIL_PROOF_SUB : CUZK_FIL_PROOF_SINGLE;
    if (p->kind != kind || p->path[0].levels != s->base_levels || p->path[0].arity != s->base_arity)
        return false;
    if (kind >= CUZK_FIL_PROOF_SUB && (p->path[1].levels != 1 || p->path[1].arity != s->sub_arity))
        return false;
    if (kind == CUZK_FIL_PROOF_TOP && (p->path[2].levels != 1 || p->path[2].arity != s->top_arity))
        return false;
    return true;
}

/* ---- Poseidon tree construction ----------------------------------------- */

#define FIL_CHUNK 4096 /* parent nodes per task */

typedef struct {
    cuzk_fil_tree *t;
    uint32_t l;          /* building level l + 1 from level l */
    uint64_t first_chunk;
    atomic_int status;
    atomic_uint_fast64_t bad_leaf;
} fil_build_job;

static void fil_build_task(void *arg, size_t i)
{
    fil_build_job *job = arg;
    cuzk_fil_tree *t = job->t;
    uint32_t a = t->arity[job->l];
    uint64_t first = (job->first_chunk + i) * FIL_CHUNK;
    uint64_t n = t->count[job->l + 1] - first;
    if (n > FIL_CHUNK) n = FIL_CHUNK;
    cuzk_fr *dst = t->level[job->l + 1] + first;
    cuzk_fr in[CUZK_POSEIDON_MAX_ARITY];
    uint8_t *bytes = NULL;
    if (job->l == 0) {
        bytes = malloc((size_t)n * a * 32);
        if (!bytes) {
            atomic_store(&job->status, CUZK_ERR_NOMEM);
            return;
        }
        int st = t->leaf(t->leaf_ctx, first * a, (size_t)(n * a), bytes);
        if (st) {
            atomic_store(&job->status, st);
            free(bytes);
            return;
        }
    }
    for (uint64_t j = 0; j < n; j++) {
        const cuzk_fr *src;
        if (bytes) {
            for (uint32_t k = 0; k < a; k++)
                if (cuzk_fr_from_bytes_le(&in[k], bytes + 32 * (j * a + k)) != CUZK_OK) {
                    atomic_store(&job->bad_leaf, (first + j) * a + k);
                    atomic_store(&job->status, CUZK_ERR_ENC_NONCANONICAL);
                    free(bytes);
                    return;
                }
            src = in;
        } else {
            src = t->level[job->l] + (first + j) * a;
        }
        int st = cuzk_poseidon_hash(&dst[j], src, a);
        if (st) {
            atomic_store(&job->status, st);
            break;
        }
    }
    free(bytes);
}

int cuzk_fil_tree_build(cuzk_fil_tree **out, const cuzk_fil_tree_shape *shape, cuzk_fil_leaf_fn leaf,
                        void *leaf_ctx, cuzk_par *par, cuzk_fil_progress_fn progress,
                        void *progress_ctx, char *err, size_t err_len)
{
    if (!out || !shape || !leaf) return CUZK_ERR_ARG;
    *out = NULL;
    cuzk_fil_tree_shape chk;
    if (cuzk_fil_tree_shape_make(&chk, shape->leaves, shape->base_arity, shape->sub_arity,
                                 shape->top_arity) ||
        chk.base_levels != shape->base_levels || chk.n_base != shape->n_base ||
        chk.base_leaves != shape->base_leaves)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "tree shape is not consistent");
    cuzk_fil_tree *t = calloc(1, sizeof *t);
    if (!t) return CUZK_ERR_NOMEM;
    t->shape = *shape;
    t->leaf = leaf;
    t->leaf_ctx = leaf_ctx;
    uint32_t L = 0;
    for (uint32_t i = 0; i < shape->base_levels; i++) t->arity[L++] = shape->base_arity;
    if (shape->sub_arity) t->arity[L++] = shape->sub_arity;
    if (shape->top_arity) t->arity[L++] = shape->top_arity;
    t->levels = L;
    t->count[0] = shape->leaves;
    uint64_t total = 0;
    for (uint32_t l = 0; l < L; l++) {
        t->count[l + 1] = t->count[l] / t->arity[l];
        total += t->count[l + 1];
    }
    t->mem = malloc((size_t)total * sizeof(cuzk_fr));
    if (!t->mem) {
        free(t);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "tree: cannot allocate %llu nodes",
                         (unsigned long long)total);
    }
    cuzk_fr *p = t->mem;
    for (uint32_t l = 1; l <= L; l++) {
        t->level[l] = p;
        p += t->count[l];
    }
    uint64_t chunks0 = (t->count[1] + FIL_CHUNK - 1) / FIL_CHUNK;
    uint64_t per_round = 8ull * cuzk_par_threads(par);
    for (uint32_t l = 0; l < L; l++) {
        uint64_t chunks = (t->count[l + 1] + FIL_CHUNK - 1) / FIL_CHUNK;
        for (uint64_t c = 0; c < chunks; c += per_round) {
            fil_build_job job = {.t = t, .l = l, .first_chunk = c};
            atomic_init(&job.status, CUZK_OK);
            atomic_init(&job.bad_leaf, 0);
            uint64_t n = chunks - c < per_round ? chunks - c : per_round;
            cuzk_par_for(par, fil_build_task, &job, (size_t)n);
            int st = atomic_load(&job.status);
            if (st) {
                cuzk_fil_tree_free(t);
                if (st == CUZK_ERR_ENC_NONCANONICAL)
                    return cuzk_errf(err, err_len, st, "tree: leaf %llu is not a canonical field element",
                                     (unsigned long long)atomic_load(&job.bad_leaf));
                return cuzk_errf(err, err_len, st, "tree: building level %u failed: %s", l + 1,
                                 cuzk_strerror(st));
            }
            if (progress && l == 0) progress(progress_ctx, c + n, chunks0);
        }
    }
    *out = t;
    return CUZK_OK;
}

void cuzk_fil_tree_free(cuzk_fil_tree *t)
{
    if (!t) return;
    free(t->mem);
    free(t);
}

void cuzk_fil_tree_root(uint8_t out[32], const cuzk_fil_tree *t)
{
    cuzk_fr_to_bytes_le(out, &t->level[t->levels][0]);
}

const cuzk_fil_tree_shape *cuzk_fil_tree_get_shape(const cuzk_fil_tree *t)
{
    return &t->shape;
}

size_t cuzk_fil_tree_proof_storage(const cuzk_fil_tree *t)
{
    return fil_proof_storage(t->arity, t->levels);
}

int cuzk_fil_poseidon_bytes(uint8_t out[32], const uint8_t *in, size_t arity)
{
    cuzk_fr x[CUZK_POSEIDON_MAX_ARITY], h;
    if (arity > CUZK_POSEIDON_MAX_ARITY) return CUZK_ERR_ARG;
    for (size_t k = 0; k < arity; k++)
        if (cuzk_fr_from_bytes_le(&x[k], in + 32 * k)) return CUZK_ERR_ENC_NONCANONICAL;
    int st = cuzk_poseidon_hash(&h, x, arity);
    if (!st) cuzk_fr_to_bytes_le(out, &h);
    return st;
}

int cuzk_fil_tree_prove(cuzk_fil_merkle_proof *out, void *storage, size_t storage_len,
                        const cuzk_fil_tree *t, uint64_t index)
{
    if (!out || !storage || !t || index >= t->shape.leaves ||
        storage_len < cuzk_fil_tree_proof_storage(t) || ((uintptr_t)storage & 7))
        return CUZK_ERR_ARG;
    uint64_t *idx = storage;
    uint8_t *hashes = (uint8_t *)(idx + t->levels);
    uint8_t group[CUZK_POSEIDON_MAX_ARITY * 32];
    memset(out, 0, sizeof *out);
    out->kind = t->shape.top_arity ? CUZK_FIL_PROOF_TOP
              : t->shape.sub_arity ? CUZK_FIL_PROOF_SUB : CUZK_FIL_PROOF_SINGLE;
    uint64_t i = index;
    uint8_t *hp = hashes;
    for (uint32_t l = 0; l < t->levels; l++) {
        uint32_t a = t->arity[l];
        uint64_t base = i - i % a;
        if (l == 0) {
            int st = t->leaf(t->leaf_ctx, base, a, group);
            if (st) return st;
            memcpy(out->leaf, group + 32 * (i % a), 32);
        } else {
            for (uint32_t k = 0; k < a; k++) cuzk_fr_to_bytes_le(group + 32 * k, &t->level[l][base + k]);
        }
        idx[l] = i % a;
        for (uint32_t k = 0; k < a; k++)
            if (k != i % a) {
                memcpy(hp, group + 32 * k, 32);
                hp += 32;
            }
        i /= a;
    }
    fil_split_paths(out, t->shape.base_levels, t->arity, idx, hashes);
    cuzk_fil_tree_root(out->root, t);
    return CUZK_OK;
}

/* ---- binary SHA-256 trees ------------------------------------------------ */

static int fil_sha_levels(uint32_t *levels, uint64_t n)
{
    if (n == 0 || (n & (n - 1))) return CUZK_ERR_ARG;
    uint32_t l = 0;
    while ((1ull << l) < n) l++;
    *levels = l;
    return CUZK_OK;
}

/* All levels: tree[0..n) leaves, then n/2 parents, ... root last. */
static uint8_t *fil_sha_tree(const uint8_t *leaves, uint64_t n)
{
    uint8_t *tree = malloc((size_t)(2 * n - 1) * 32);
    if (!tree) return NULL;
    memcpy(tree, leaves, (size_t)n * 32);
    uint64_t src = 0, dst = n;
    for (uint64_t w = n; w > 1; w /= 2) {
        for (uint64_t j = 0; j < w / 2; j++)
            cuzk_fil_sha256_trunc254(tree + 32 * (dst + j), tree + 32 * (src + 2 * j), 64);
        src = dst;
        dst += w / 2;
    }
    return tree;
}

int cuzk_fil_sha256_tree_root(uint8_t root[32], const uint8_t *leaves, uint64_t n)
{
    uint32_t lv;
    if (!root || !leaves || fil_sha_levels(&lv, n)) return CUZK_ERR_ARG;
    uint8_t *tree = fil_sha_tree(leaves, n);
    if (!tree) return CUZK_ERR_NOMEM;
    memcpy(root, tree + 32 * (2 * n - 2), 32);
    free(tree);
    return CUZK_OK;
}

int cuzk_fil_sha256_tree_prove(cuzk_fil_merkle_proof *out, void *storage, size_t storage_len,
                               const uint8_t *leaves, uint64_t n, uint64_t index)
{
    uint32_t lv;
    if (!out || !storage || !leaves || fil_sha_levels(&lv, n) || index >= n ||
        storage_len < (size_t)lv * 40 || ((uintptr_t)storage & 7))
        return CUZK_ERR_ARG;
    uint8_t *tree = fil_sha_tree(leaves, n);
    if (!tree) return CUZK_ERR_NOMEM;
    uint64_t *idx = storage;
    uint8_t *hs = (uint8_t *)(idx + lv);
    memset(out, 0, sizeof *out);
    out->kind = CUZK_FIL_PROOF_SINGLE;
    memcpy(out->leaf, leaves + 32 * index, 32);
    memcpy(out->root, tree + 32 * (2 * n - 2), 32);
    uint64_t off = 0, w = n, i = index;
    for (uint32_t l = 0; l < lv; l++) {
        idx[l] = i & 1;
        memcpy(hs + 32 * (size_t)l, tree + 32 * (off + (i ^ 1)), 32);
        off += w;
        w /= 2;
        i /= 2;
    }
    out->path[0] = (cuzk_fil_path){.levels = lv, .arity = lv ? 2 : 0, .hashes = hs, .index = idx};
    free(tree);
    return CUZK_OK;
}
