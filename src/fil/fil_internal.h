/* Helpers shared by the Filecoin data files (fr32.c, merkle.c, cid.c,
 * registry.c, vanilla.c, challenges.c, the sparse and periodic trees). */
#ifndef CUZK_FIL_INTERNAL_H
#define CUZK_FIL_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/status.h"

/* Write a message into err (if given) and return status. */

static inline uint64_t fil_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static inline void fil_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A blank proof of the kind of `shape` (Single, Sub or Top). */
static inline void fil_proof_begin(cuzk_fil_merkle_proof *out, const cuzk_fil_tree_shape *shape)
{
    memset(out, 0, sizeof *out);
    out->kind = shape->top_arity ? CUZK_FIL_PROOF_TOP : shape->sub_arity ? CUZK_FIL_PROOF_SUB : CUZK_FIL_PROOF_SINGLE;
}

/* Bytes of one proof's storage: an index and arity - 1 hashes a level. */
static inline size_t fil_proof_storage(const uint32_t *arity, uint32_t levels)
{
    size_t n = 0;
    for (uint32_t l = 0; l < levels; l++)
        n += 8 + (size_t)(arity[l] - 1) * 32;
    return n;
}

/* The level-major index and sibling arrays of leaf `index`, siblings from
 * node(ctx, level, j, out) (node j of that level). */
typedef void (*fil_node_fn)(const void *ctx, uint32_t level, uint64_t j, uint8_t out[32]);
static inline void fil_gather_path(uint64_t *idx, uint8_t *hashes, const uint32_t *arity, uint32_t levels,
                                   uint64_t index, fil_node_fn node, const void *ctx)
{
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t a = arity[l];
        idx[l] = index % a;
        for (uint32_t k = 0; k < a; k++)
            if (k != idx[l]) {
                node(ctx, l, index - idx[l] + k, hashes);
                hashes += 32;
            }
        index /= a;
    }
}

/* Point the base / sub / top paths of `out` (its kind set) at level-major
 * arrays: base_levels levels of arity[0], then one sub and one top level. */
static inline void fil_split_paths(cuzk_fil_merkle_proof *out, uint32_t base_levels, const uint32_t *arity,
                                   const uint64_t *idx, const uint8_t *hashes)
{
    for (uint32_t k = 0, off = 0; k <= out->kind; k++) {
        uint32_t n = k == 0 ? base_levels : 1, a = arity[off];
        out->path[k] = (cuzk_fil_path){.levels = n, .arity = a, .hashes = hashes, .index = idx + off};
        hashes += (size_t)n * (a - 1) * 32;
        off += n;
    }
}

#endif
