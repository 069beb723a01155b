/* Test helpers for the PoSt tests: a synthetic sector (random Fr32 leaves,
 * 8-ary Poseidon tree_r_last), its bincode vanilla proof for a registered
 * PoSt proof, and hex helpers.  Independent of cuzk-bench gen-vanilla
 * (same library calls: cuzk/filecoin.h). */
#ifndef CUZK_TEST_POST_UTIL_H
#define CUZK_TEST_POST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "harness.h"

typedef struct {
    uint64_t sector_id;
    uint64_t salt; /* leaf callback context: the tree regenerates leaves */
    cuzk_fil_tree *tree;
    uint8_t comm_c[32], comm_r_last[32], comm_r[32];
} pt_sector;

static int pt_leaves(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    const uint64_t *salt = ctx;
    for (size_t i = 0; i < n; i++) {
        uint8_t *o = out + 32 * i;
        for (int k = 0; k < 4; k++) {
            uint64_t x = (*salt ^ (first + i) * 0x9e3779b97f4a7c15ull) + (uint64_t)k * 0xbf58476d1ce4e5b9ull;
            x ^= x >> 31;
            x *= 0x94d049bb133111ebull;
            x ^= x >> 29;
            memcpy(o + 8 * k, &x, 8);
        }
        o[31] &= 0x3f;
    }
    return 0;
}

/* A 2 KiB sector with random leaves (seeded by test_rand64). */
static void pt_sector_make(pt_sector *s, uint64_t sector_id, uint64_t sector_size)
{
    s->salt = test_rand64();
    cuzk_fil_tree_shape shape;
    char err[CUZK_FIL_ERR_LEN];
    CHECK(cuzk_fil_tree_shape_for_sector(&shape, sector_size) == 0);
    CHECK(cuzk_fil_tree_build(&s->tree, &shape, pt_leaves, &s->salt, NULL, NULL, NULL, err, sizeof err) == 0);
    s->sector_id = sector_id;
    test_rand_bytes(s->comm_c, 32);
    s->comm_c[31] &= 0x3f;
    cuzk_fil_tree_root(s->comm_r_last, s->tree);
    CHECK(cuzk_fil_comm_r(s->comm_r, s->comm_c, s->comm_r_last, err, sizeof err) == 0);
}

/* Bincode FallbackPoStSectorProof of s for p (challenges at sector_index);
 * malloc'd, *len bytes. */
static uint8_t *pt_vanilla(size_t *len, const pt_sector *s, const cuzk_fil_post_info *p,
                           const uint8_t rnd[32], uint64_t sector_index)
{
    size_t n = p->challenge_count, sl = cuzk_fil_tree_proof_storage(s->tree);
    uint64_t *ch = malloc(n * sizeof *ch);
    uint64_t *store = malloc(sl * n);
    cuzk_fil_merkle_proof *pr = calloc(n, sizeof *pr);
    CHECK(ch && store && pr);
    CHECK(cuzk_fil_post_challenges(ch, p, rnd, s->sector_id, sector_index) == 0);
    for (size_t i = 0; i < n; i++)
        CHECK(cuzk_fil_tree_prove(&pr[i], (uint8_t *)store + sl * i, sl, s->tree, ch[i]) == 0);
    cuzk_fil_sector_proof sp = {.n_proofs = n, .proofs = pr};
    memcpy(sp.comm_c, s->comm_c, 32);
    memcpy(sp.comm_r_last, s->comm_r_last, 32);
    cuzk_fil_post_vanilla v = {.sector_id = s->sector_id, .n_sectors = 1, .sectors = &sp};
    memcpy(v.comm_r, s->comm_r, 32);
    *len = cuzk_fil_vanilla_size(&v);
    uint8_t *buf = malloc(*len);
    size_t w = 0;
    CHECK(buf && cuzk_fil_vanilla_write(buf, *len, &w, &v) == 0 && w == *len);
    free(ch);
    free(store);
    free(pr);
    return buf;
}

/* Canonical random 32 bytes (top two bits clear, as Curio's randomness). */
static void pt_rand_dom(uint8_t out[32])
{
    test_rand_bytes(out, 32);
    out[31] &= 0x3f;
}

#endif
