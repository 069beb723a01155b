/* Sparse SnapDeals sectors (cuzk_snap_sparse_*) and the region-periodic
 * trees under them (cuzk_fil_periodic_tree_*).
 *
 * - A periodic tree equals the full tree of the sector it stands for
 *   (cuzk_fil_tree_build / cuzk_fil_sha256_tree_root over the expanded
 *   leaves) in root, nodes and proofs, for every tree R shape kind
 *   (Single, Sub, Top) and for binary SHA-256.
 * - At 2 KiB and 8 MiB the sparse update equals the dense updater
 *   (cuzk_snap_update_encode of the expanded sector): every commitment and
 *   every partition proof byte for byte -- an independent check of the
 *   order of the derivations and of rho per region.
 * - At every size, 1 KiB to 64 GiB, one partition (a random one) is
 *   generated, written as bincode, parsed back and natively verified.
 * - Flips: in a 2 KiB partition every opened value (apex leaves, comm_c,
 *   every leaf, sibling and root of the three paths of every challenge);
 *   at 32 GiB a sample in every path kind (tree R old, tree D, tree R new,
 *   sub paths included) of a few challenges: all are rejected. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"
#include "harness.h"

/* ---- periodic trees against full ones ------------------------------------------------ */
typedef struct {
    uint64_t seed;
    uint32_t period_log, region_log;
    const uint8_t *all; /* the expanded sector, for the full builders */
} pt_ctx;

static void pt_leaf(uint8_t out[32], uint64_t seed, uint64_t region, uint64_t off)
{
    uint64_t x = seed ^ (region * 0x9e3779b97f4a7c15ull) ^ (off * 0xc2b2ae3d27d4eb4full);
    for (int i = 0; i < 32; i++) {
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9ull;
        out[i] = (uint8_t)(x >> 32);
    }
    out[31] &= 0x3f;
}

static int pt_pattern(void *ctx, uint64_t region, uint8_t *out, size_t n)
{
    const pt_ctx *c = ctx;
    for (size_t o = 0; o < n; o++)
        pt_leaf(out + 32 * o, c->seed, region, o);
    return CUZK_OK;
}

static int pt_full_leaf(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    memcpy(out, ((const pt_ctx *)ctx)->all + 32 * first, 32 * n);
    return CUZK_OK;
}

static void pt_expand(uint8_t *all, const pt_ctx *c, uint64_t leaves)
{
    for (uint64_t i = 0; i < leaves; i++)
        pt_leaf(all + 32 * i, c->seed, i >> c->region_log, i & ((1ull << c->period_log) - 1));
}

static bool same_proof(const cuzk_fil_merkle_proof *a, const cuzk_fil_merkle_proof *b)
{
    if (a->kind != b->kind || memcmp(a->root, b->root, 32) || memcmp(a->leaf, b->leaf, 32)) return false;
    for (uint32_t k = 0; k <= a->kind; k++) {
        const cuzk_fil_path *x = &a->path[k], *y = &b->path[k];
        if (x->levels != y->levels || x->arity != y->arity ||
            memcmp(x->index, y->index, 8 * (size_t)x->levels) ||
            memcmp(x->hashes, y->hashes, 32 * (size_t)x->levels * (x->arity - 1)))
            return false;
    }
    return true;
}

/* One Poseidon shape: root, proofs of random leaves, nodes of level 1. */
static void pt_check_poseidon(uint64_t leaves, uint32_t sub, uint32_t top, uint32_t region_log,
                              uint32_t period_log)
{
    cuzk_fil_tree_shape sh;
    REQUIRE(cuzk_fil_tree_shape_make(&sh, leaves, 8, sub, top) == CUZK_OK);
    uint8_t *all = malloc(32 * leaves);
    REQUIRE(all);
    pt_ctx c = {.seed = test_rand64(), .period_log = period_log, .region_log = region_log, .all = all};
    pt_expand(all, &c, leaves);
    cuzk_fil_periodic_tree *p = NULL;
    cuzk_fil_tree *f = NULL;
    char err[256] = "";
    int st = cuzk_fil_periodic_tree_build(&p, &sh, CUZK_FIL_HASH_POSEIDON, region_log, period_log, pt_pattern,
                                          &c, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  periodic tree: %s\n", err);
    REQUIRE(st == CUZK_OK);
    REQUIRE(cuzk_fil_tree_build(&f, &sh, pt_full_leaf, &c, NULL, NULL, NULL, err, sizeof err) == CUZK_OK);
    uint8_t a[32], b[32];
    cuzk_fil_periodic_tree_root(a, p);
    cuzk_fil_tree_root(b, f);
    CHECK(!memcmp(a, b, 32));
    size_t sl = cuzk_fil_periodic_tree_proof_storage(p);
    CHECK(sl == cuzk_fil_tree_proof_storage(f));
    uint64_t *s1 = malloc(sl), *s2 = malloc(sl);
    for (int i = 0; s1 && s2 && i < 20; i++) {
        uint64_t leaf = i == 0 ? 0 : i == 1 ? leaves - 1 : test_rand64() % leaves;
        cuzk_fil_merkle_proof x, y;
        CHECK(cuzk_fil_periodic_tree_prove(&x, s1, sl, p, leaf) == CUZK_OK);
        CHECK(cuzk_fil_tree_prove(&y, s2, sl, f, leaf) == CUZK_OK);
        CHECK(same_proof(&x, &y));
        CHECK(cuzk_fil_periodic_tree_node(a, p, 0, leaf) == CUZK_OK && !memcmp(a, all + 32 * leaf, 32));
    }
    CHECK(cuzk_fil_periodic_tree_node(a, p, cuzk_fil_periodic_tree_levels(p) + 1, 0) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_periodic_tree_prove(&(cuzk_fil_merkle_proof){0}, s1, sl, p, leaves) == CUZK_ERR_ARG);
    free(s1);
    free(s2);
    cuzk_fil_periodic_tree_free(p);
    cuzk_fil_tree_free(f);
    free(all);
}

static void test_periodic_tree_poseidon(void)
{
    pt_check_poseidon(64, 0, 0, 5, 3);         /* 2 KiB, two regions */
    pt_check_poseidon(64, 0, 0, 6, 6);         /* one region, one period */
    pt_check_poseidon(512, 8, 0, 6, 3);        /* 16 KiB: Sub */
    pt_check_poseidon(1024, 8, 2, 7, 6);       /* 32 KiB: Top */
    pt_check_poseidon(1ull << 16, 8, 2, 8, 6); /* Top, regions below a base tree */
    pt_check_poseidon(1ull << 12, 0, 0, 9, 0); /* a period of one node */
}

static void test_periodic_tree_sha256(void)
{
    for (uint32_t t = 0; t < 3; t++) {
        uint64_t leaves = t == 0 ? 64 : 1ull << 14;
        uint32_t region_log = t == 2 ? 20 : 5, period_log = t == 1 ? 2 : 5; /* t = 2: one region */
        cuzk_fil_tree_shape sh;
        REQUIRE(cuzk_fil_tree_shape_make(&sh, leaves, 2, 0, 0) == CUZK_OK);
        uint8_t *all = malloc(32 * leaves);
        REQUIRE(all);
        pt_ctx c = {.seed = test_rand64(), .period_log = period_log, .region_log = region_log, .all = all};
        pt_expand(all, &c, leaves);
        cuzk_fil_periodic_tree *p = NULL;
        char err[256] = "";
        REQUIRE(cuzk_fil_periodic_tree_build(&p, &sh, CUZK_FIL_HASH_SHA256, region_log, period_log,
                                             pt_pattern, &c, NULL, err, sizeof err) == CUZK_OK);
        uint8_t a[32], b[32];
        cuzk_fil_periodic_tree_root(a, p);
        CHECK(cuzk_fil_sha256_tree_root(b, all, leaves) == CUZK_OK && !memcmp(a, b, 32));
        size_t sl = cuzk_fil_periodic_tree_proof_storage(p);
        uint64_t *s1 = malloc(sl), *s2 = malloc(sl);
        for (int i = 0; s1 && s2 && i < 10; i++) {
            uint64_t leaf = test_rand64() % leaves;
            cuzk_fil_merkle_proof x, y;
            CHECK(cuzk_fil_periodic_tree_prove(&x, s1, sl, p, leaf) == CUZK_OK);
            CHECK(cuzk_fil_sha256_tree_prove(&y, s2, sl, all, leaves, leaf) == CUZK_OK);
            CHECK(same_proof(&x, &y));
        }
        free(s1);
        free(s2);
        cuzk_fil_periodic_tree_free(p);
        free(all);
    }
}

static void test_periodic_tree_rejects(void)
{
    cuzk_fil_tree_shape sh;
    REQUIRE(cuzk_fil_tree_shape_make(&sh, 1ull << 12, 8, 0, 0) == CUZK_OK);
    pt_ctx c = {0};
    cuzk_fil_periodic_tree *p = (cuzk_fil_periodic_tree *)&c;
    char err[256] = "";
    /* a period that is no level's span, one above the region, one above the maximum */
    CHECK(cuzk_fil_periodic_tree_build(&p, &sh, CUZK_FIL_HASH_POSEIDON, 8, 4, pt_pattern, &c, NULL, err,
                                       sizeof err) == CUZK_ERR_ARG);
    CHECK(p == NULL && strstr(err, "period") != NULL);
    CHECK(cuzk_fil_periodic_tree_build(&p, &sh, CUZK_FIL_HASH_POSEIDON, 2, 3, pt_pattern, &c, NULL, err,
                                       sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_periodic_tree_build(&p, &sh, CUZK_FIL_HASH_SHA256, 12, 3, pt_pattern, &c, NULL, err,
                                       sizeof err) == CUZK_ERR_ARG);
    REQUIRE(cuzk_fil_tree_shape_make(&sh, 1ull << 12, 2, 0, 0) == CUZK_OK);
    CHECK(cuzk_fil_periodic_tree_build(&p, &sh, CUZK_FIL_HASH_SHA256, 12, 9, pt_pattern, &c, NULL, err,
                                       sizeof err) == CUZK_ERR_ARG);
}

/* ---- sparse sectors ------------------------------------------------------------------ */
static cuzk_snap_sparse *make(uint64_t size, uint64_t seed)
{
    cuzk_snap_shape s;
    if (cuzk_snap_shape_for(&s, size, true)) return NULL;
    cuzk_snap_sparse *sp = NULL;
    char err[512] = "";
    int st = cuzk_snap_sparse_make(&sp, &s, s.hs[3], seed, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  sparse snap of %llu bytes: %s\n", (unsigned long long)size, err);
    CHECK(st == CUZK_OK);
    return sp;
}

static int verify(const cuzk_snap_partition_proof *p, const cuzk_snap_sparse *sp, uint32_t k, char *err,
                  size_t len)
{
    return cuzk_snap_partition_verify(p, &sp->shape, k, sp->h, sp->comm_r_old, sp->comm_d_new, sp->comm_r_new,
                                      err, len);
}

/* Prove partition k, write it, parse it back (its own copy) and verify. */
static cuzk_snap_partition_proof *prove_round_trip(const cuzk_snap_sparse *sp, uint32_t k)
{
    char err[512] = "";
    cuzk_snap_partition_proof *p = NULL, *q = NULL;
    int st = cuzk_snap_sparse_prove(&p, sp, k, err, sizeof err);
    size_t len = st ? 0 : cuzk_snap_partition_size(p), w = 0;
    uint8_t *b = st ? NULL : malloc(len);
    if (!st && b) st = cuzk_snap_partition_write(b, len, &w, p);
    if (!st && b) st = cuzk_snap_partition_parse(&q, b, len, &sp->shape, err, sizeof err);
    if (!st && q) st = verify(q, sp, k, err, sizeof err);
    if (st)
        fprintf(stderr, "  %llu bytes, partition %u: %s\n", (unsigned long long)sp->shape.sector_size, k,
                err);
    CHECK(st == CUZK_OK && b && w == len);
    free(b);
    cuzk_snap_partition_free(p);
    if (st) {
        cuzk_snap_partition_free(q);
        return NULL;
    }
    return q;
}

static void test_every_size_verifies(void)
{
    static const uint64_t sizes[] = {1024,       2048,        4096,         8192,        16384,      32768,
                                     8ull << 20, 16ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        /* Under the sanitizers 16 MiB, 512 MiB and 64 GiB are left to the
         * release build (18 s of ASan time for all sizes): 8 MiB and 32 GiB
         * keep a base-only and a base+sub+top tree there, every code path. */
        if (CUZK_TEST_SANITIZED && (sizes[i] == 16ull << 20 || sizes[i] == 512ull << 20 || sizes[i] == 64ull << 30))
            continue;
        cuzk_snap_sparse *sp = make(sizes[i], test_rand64());
        if (!sp) continue;
        uint32_t k = (uint32_t)(test_rand64() % sp->shape.partitions);
        cuzk_snap_partition_proof *q = prove_round_trip(sp, k);
        if (q) {
            CHECK(!memcmp(q->comm_c, sp->comm_c, 32));
            CHECK(!memcmp(q->challenges[0].r_old.root, sp->comm_r_last_old, 32));
            CHECK(!memcmp(q->challenges[0].r_new.root, sp->comm_r_last_new, 32));
        }
        /* another partition's proof is not this one's */
        char err[512] = "";
        if (q && sp->shape.partitions > 1)
            CHECK(verify(q, sp, (k + 1) % sp->shape.partitions, err, sizeof err) == CUZK_ERR_ARG);
        cuzk_snap_partition_free(q);
        cuzk_snap_sparse_free(sp);
    }
}

/* The dense updater over the sector a sparse one stands for. */
static void check_matches_dense(uint64_t size)
{
    cuzk_snap_sparse *sp = make(size, test_rand64());
    REQUIRE(sp);
    const cuzk_snap_shape *s = &sp->shape;
    uint64_t period = 1ull << sp->period_log;
    uint8_t *old = malloc(32 * s->nodes), *data = malloc(32 * s->nodes);
    REQUIRE(old && data);
    for (uint64_t r = 0; r < (1ull << sp->h); r++) {
        uint64_t first = r << sp->region_log;
        CHECK(cuzk_snap_sparse_pattern(sp, r, old + 32 * first, data + 32 * first) == CUZK_OK);
        for (uint64_t i = period; i < (1ull << sp->region_log); i += period) {
            memcpy(old + 32 * (first + i), old + 32 * first, 32 * period);
            memcpy(data + 32 * (first + i), data + 32 * first, 32 * period);
        }
    }
    CHECK(cuzk_snap_sparse_pattern(sp, 1ull << sp->h, old, NULL) == CUZK_ERR_ARG);
    cuzk_snap_update *u = NULL;
    char err[512] = "";
    int st = cuzk_snap_update_encode(&u, s, sp->h, sp->comm_c, old, data, NULL, NULL, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  dense update: %s\n", err);
    CHECK(st == CUZK_OK);
    if (u) {
        CHECK(!memcmp(u->comm_r_last_old, sp->comm_r_last_old, 32) &&
              !memcmp(u->comm_r_old, sp->comm_r_old, 32));
        CHECK(!memcmp(u->comm_d_new, sp->comm_d_new, 32) && !memcmp(u->phi, sp->phi, 32));
        CHECK(!memcmp(u->comm_r_last_new, sp->comm_r_last_new, 32) &&
              !memcmp(u->comm_r_new, sp->comm_r_new, 32));
    }
    for (uint32_t k = 0; u && k < s->partitions; k++) {
        cuzk_snap_partition_proof *a = NULL, *b = NULL;
        CHECK(cuzk_snap_sparse_prove(&a, sp, k, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_snap_update_prove(&b, u, k, err, sizeof err) == CUZK_OK);
        size_t la = a ? cuzk_snap_partition_size(a) : 0, lb = b ? cuzk_snap_partition_size(b) : 1, w;
        uint8_t *x = malloc(la + 1), *y = malloc(lb + 1);
        CHECK(la == lb && x && y);
        if (la == lb && x && y) {
            CHECK(cuzk_snap_partition_write(x, la, &w, a) == CUZK_OK);
            CHECK(cuzk_snap_partition_write(y, lb, &w, b) == CUZK_OK);
            CHECK(!memcmp(x, y, la));
        }
        free(x);
        free(y);
        cuzk_snap_partition_free(a);
        cuzk_snap_partition_free(b);
    }
    cuzk_snap_update_free(u);
    free(old);
    free(data);
    cuzk_snap_sparse_free(sp);
}

static void test_matches_dense_2k(void)
{
    check_matches_dense(2048);
}

static void test_matches_dense_8m(void)
{
    check_matches_dense(8ull << 20);
}

/* ---- flips ----------------------------------------------------------------------------- */
typedef struct {
    const cuzk_snap_sparse *sp;
    const cuzk_snap_partition_proof *p;
    uint32_t k;
    size_t flips, accepted;
} flipper;

static void flip(flipper *f, const uint8_t *v, const char *what, size_t i)
{
    char err[512] = "";
    uint8_t *w = (uint8_t *)v; /* the test owns the parsed proof */
    w[0] ^= 1;
    int st = verify(f->p, f->sp, f->k, err, sizeof err);
    w[0] ^= 1;
    f->flips++;
    if (st == CUZK_OK) {
        f->accepted++;
        fprintf(stderr, "  flip of %s %zu accepted\n", what, i);
    }
}

/* Leaf, root and siblings of one proof: all of them, or `sample` random
 * siblings of each path (base, sub, top). */
static void flip_merkle(flipper *f, const cuzk_fil_merkle_proof *m, const char *what, size_t sample)
{
    for (uint32_t k = 0; k <= m->kind; k++) {
        const cuzk_fil_path *p = &m->path[k];
        size_t n = (size_t)p->levels * (p->arity - 1);
        for (size_t h = 0; h < (sample && sample < n ? sample : n); h++) {
            size_t at = sample && sample < n ? test_rand64() % n : h;
            flip(f, p->hashes + 32 * at, what, at);
        }
    }
    flip(f, m->leaf, what, 1000);
    flip(f, m->root, what, 1001);
}

static void flip_challenge(flipper *f, uint32_t i, size_t sample)
{
    const cuzk_snap_challenge_proof *c = &f->p->challenges[i];
    flip_merkle(f, &c->r_old, "proof_r_old", sample);
    flip_merkle(f, &c->d_new, "proof_d_new", sample);
    flip_merkle(f, &c->r_new, "proof_r_new", sample);
}

static void test_flips_2k(void)
{
    cuzk_snap_sparse *sp = make(2048, test_rand64());
    REQUIRE(sp);
    cuzk_snap_partition_proof *q = prove_round_trip(sp, 0);
    REQUIRE(q);
    flipper f = {.sp = sp, .p = q};
    for (uint32_t i = 0; i < q->n_challenges; i++)
        flip_challenge(&f, i, 0);
    for (uint32_t a = 0; a < q->n_apex; a++)
        flip(&f, q->apex_leafs + 32 * a, "apex leaf", a);
    flip(&f, q->comm_c, "comm_c", 0);
    /* 10 challenges x (R: 2 x 7 + 2, D: 6 + 2, R new: 16) + 8 apex + comm_c */
    CHECK(f.flips == 10 * (16 + 8 + 16) + 8 + 1);
    CHECK(f.accepted == 0);
    cuzk_snap_partition_free(q);
    cuzk_snap_sparse_free(sp);
}

static void test_flips_32g(void)
{
    cuzk_snap_sparse *sp = make(32ull << 30, test_rand64());
    REQUIRE(sp);
    uint32_t k = (uint32_t)(test_rand64() % sp->shape.partitions);
    cuzk_snap_partition_proof *q = prove_round_trip(sp, k);
    REQUIRE(q);
    flipper f = {.sp = sp, .p = q, .k = k};
    flip_challenge(&f, 0, 8);
    flip_challenge(&f, 1 + (uint32_t)(test_rand64() % (q->n_challenges - 1)), 4);
    flip_challenge(&f, q->n_challenges - 1, 4);
    for (int j = 0; j < 4; j++) {
        uint32_t a = (uint32_t)(test_rand64() % q->n_apex);
        flip(&f, q->apex_leafs + 32 * a, "apex leaf", a);
    }
    /* R old and R new: base (63 siblings) and sub (7) samples, D (30): each + leaf + root */
    CHECK(f.flips == 2 * (8 + 7 + 2) + (8 + 2) + 2 * (2 * (4 + 4 + 2) + (4 + 2)) + 4);
    CHECK(f.accepted == 0);
    cuzk_snap_partition_free(q);
    cuzk_snap_sparse_free(sp);
}

static void test_deterministic_and_rejects(void)
{
    uint64_t seed = test_rand64();
    cuzk_snap_sparse *a = make(8ull << 20, seed), *b = make(8ull << 20, seed),
                     *c = make(8ull << 20, seed + 1);
    REQUIRE(a && b && c);
    CHECK(!memcmp(a->comm_r_new, b->comm_r_new, 32) && !memcmp(a->comm_d_new, b->comm_d_new, 32));
    CHECK(memcmp(a->comm_r_new, c->comm_r_new, 32) && memcmp(a->comm_r_old, c->comm_r_old, 32));
    CHECK(a->period_log == 6 && a->region_log == 8);
    char err[512] = "";
    cuzk_snap_partition_proof *p = (cuzk_snap_partition_proof *)&err;
    CHECK(cuzk_snap_sparse_prove(&p, a, 4, err, sizeof err) == CUZK_ERR_ARG && p == NULL);
    cuzk_snap_sparse *d = (cuzk_snap_sparse *)&err;
    CHECK(cuzk_snap_sparse_make(&d, &a->shape, 6, seed, NULL, err, sizeof err) == CUZK_ERR_ARG && d == NULL);
    CHECK(strstr(err, "h = 6") != NULL);
    cuzk_snap_sparse_free(a);
    cuzk_snap_sparse_free(b);
    cuzk_snap_sparse_free(c);
    cuzk_snap_sparse_free(NULL);
}

static const test_case tests[] = {
    {"periodic_tree_poseidon", test_periodic_tree_poseidon},
    {"periodic_tree_sha256", test_periodic_tree_sha256},
    {"periodic_tree_rejects", test_periodic_tree_rejects},
    {"every_size_verifies", test_every_size_verifies},
    {"matches_dense_2k", test_matches_dense_2k},
    {"matches_dense_8m", test_matches_dense_8m},
    {"flips_2k", test_flips_2k},
    {"flips_32g", test_flips_32g},
    {"deterministic_and_rejects", test_deterministic_and_rejects},
};

TEST_MAIN(tests)
