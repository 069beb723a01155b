/* Sparse synthetic trees and PoSt vanilla proofs (cuzk/filecoin.h "sparse
 * synthetic trees", src/fil/sparse_tree.c): a tree that opens every leaf is
 * the dense cuzk_fil_tree_build tree of the same leaves, byte for byte;
 * synthetic sectors of 2 KiB, 32 GiB and 64 GiB pass the native verifiers
 * (cuzk_fil_vanilla_verify and the prover's cuzk_post_job_new, which
 * re-derives every challenge) and satisfy the WinningPoSt circuit (and the
 * 2 KiB WindowPoSt one), also for a part of a 32 GiB partition; changing
 * any opened leaf, sibling, path index, comm_r, comm_c or comm_r_last of a
 * sector's proof makes it fail; bad arguments are refused with a message. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/filecoin.h"
#include "cuzk/post.h"
#include "cuzk/status.h"
#include "harness.h"

static const cuzk_fil_post_info *post(uint64_t id)
{
    const cuzk_fil_post_info *p = NULL;
    CHECK(cuzk_fil_post_lookup(&p, id) == CUZK_OK);
    return p;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void rand_elem(uint8_t out[32])
{
    test_rand_bytes(out, 32);
    out[31] &= 0x3f;
}

static void sector_make(cuzk_fil_sparse_sector *s, uint64_t id)
{
    s->sector_id = id;
    rand_elem(s->comm_c);
    test_rand_bytes(s->seed, 32);
}

/* Serialize v (malloc'd bytes). */
static uint8_t *to_bytes(const cuzk_fil_post_vanilla *v, size_t *len)
{
    *len = cuzk_fil_vanilla_size(v);
    uint8_t *b = malloc(*len);
    size_t w = 0;
    if (b && (cuzk_fil_vanilla_write(b, *len, &w, v) || w != *len)) {
        free(b);
        return NULL;
    }
    return b;
}

/* Verified natively: CUZK_OK and ok (false also for a status). */
static bool verifies(const cuzk_fil_post_vanilla *v, const cuzk_fil_post_info *p, const uint8_t rnd[32],
                     uint64_t sector_index)
{
    bool ok = false;
    char err[CUZK_FIL_ERR_LEN] = "";
    int st = cuzk_fil_vanilla_verify(&ok, v, p, rnd, sector_index, err, sizeof err);
    return st == CUZK_OK && ok;
}

/* The job's circuit in CHECK mode: every constraint of rust-fil-proofs'
 * circuit holds for this witness. */
static void circuit_satisfied(const cuzk_post_job *j)
{
    char err[256] = "";
    cuzk_cs *cs = NULL;
    size_t idx = 0;
    const char *path = NULL;
    CHECK(cuzk_post_job_synthesize(&cs, j, CUZK_CS_CHECK, 0, err, sizeof err) == CUZK_OK);
    CHECK(cs && cuzk_cs_is_satisfied(cs, &idx, &path));
    cuzk_cs_free(cs);
}

/* The prover's check: bytes -> cuzk_post_job_new (parse, verify every
 * sector, duplicates, public inputs) for partition 0; with `circuit`, the
 * circuit's constraints too. */
static int job_check(const cuzk_fil_post_vanilla *v, size_t n, const cuzk_fil_post_info *p,
                     const uint8_t rnd[32], bool circuit, char *err, size_t err_len)
{
    uint8_t **bufs = calloc(n, sizeof *bufs), pid[32];
    size_t *lens = calloc(n, sizeof *lens);
    int st = bufs && lens ? CUZK_OK : CUZK_ERR_NOMEM;
    for (size_t i = 0; !st && i < n; i++)
        if (!(bufs[i] = to_bytes(&v[i], &lens[i]))) st = CUZK_ERR_NOMEM;
    cuzk_post_prover_id(pid, 1000);
    cuzk_post_job *j = NULL;
    if (!st)
        st = cuzk_post_job_new(&j, p->id, (const uint8_t *const *)bufs, lens, n, rnd, pid, 0, err, err_len);
    if (!st && circuit) circuit_satisfied(j);
    cuzk_post_job_free(j);
    for (size_t i = 0; bufs && i < n; i++)
        free(bufs[i]);
    free(bufs);
    free(lens);
    return st;
}

/* ---- the tree ---------------------------------------------------------------- */

typedef struct {
    const uint8_t *leaves;
} dense_ctx;

static int dense_leaves(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    memcpy(out, ((const dense_ctx *)ctx)->leaves + 32 * first, 32 * n);
    return CUZK_OK;
}

static bool same_proof(const cuzk_fil_merkle_proof *a, const cuzk_fil_merkle_proof *b)
{
    if (a->kind != b->kind || memcmp(a->root, b->root, 32) || memcmp(a->leaf, b->leaf, 32)) return false;
    for (uint32_t k = 0; k <= a->kind; k++) {
        const cuzk_fil_path *x = &a->path[k], *y = &b->path[k];
        if (x->levels != y->levels || x->arity != y->arity ||
            memcmp(x->index, y->index, x->levels * sizeof *x->index) ||
            memcmp(x->hashes, y->hashes, (size_t)x->levels * (x->arity - 1) * 32))
            return false;
    }
    return true;
}

/* Open every leaf of a small shape: no node is left random, so the sparse
 * tree must be the dense tree of its (derived) leaves. */
static void all_leaves_vs_dense(const cuzk_fil_tree_shape *s)
{
    uint64_t n = s->leaves, *idx = malloc(n * sizeof *idx);
    uint8_t seed[32], *leaves = malloc(32 * n), root_s[32], root_d[32];
    char err[CUZK_FIL_ERR_LEN] = "";
    REQUIRE(idx && leaves);
    test_rand_bytes(seed, 32);
    for (uint64_t i = 0; i < n; i++)
        idx[n - 1 - i] = i; /* any order */
    cuzk_fil_sparse_tree *t = NULL;
    REQUIRE(cuzk_fil_sparse_tree_build(&t, s, idx, n, seed, err, sizeof err) == CUZK_OK);
    size_t sl = cuzk_fil_sparse_tree_proof_storage(t);
    uint64_t *st_s = malloc(sl), *st_d = malloc(sl);
    cuzk_fil_merkle_proof ps, pd;
    for (uint64_t i = 0; i < n; i++) {
        REQUIRE(cuzk_fil_sparse_tree_prove(&ps, st_s, sl, t, i, err, sizeof err) == CUZK_OK);
        memcpy(leaves + 32 * i, ps.leaf, 32);
    }
    dense_ctx dc = {leaves};
    cuzk_fil_tree *d = NULL;
    REQUIRE(cuzk_fil_tree_build(&d, s, dense_leaves, &dc, NULL, NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_fil_tree_proof_storage(d) == sl);
    cuzk_fil_sparse_tree_root(root_s, t);
    cuzk_fil_tree_root(root_d, d);
    CHECK(memcmp(root_s, root_d, 32) == 0);
    for (uint64_t i = 0; i < n; i += 1 + n / 97) {
        CHECK(cuzk_fil_sparse_tree_prove(&ps, st_s, sl, t, i, err, sizeof err) == CUZK_OK);
        CHECK(cuzk_fil_tree_prove(&pd, st_d, sl, d, i) == CUZK_OK);
        CHECK(same_proof(&ps, &pd));
    }
    cuzk_fil_tree_free(d);
    cuzk_fil_sparse_tree_free(t);
    free(st_s);
    free(st_d);
    free(leaves);
    free(idx);
}

static void test_sparse_all_leaves_is_dense(void)
{
    cuzk_fil_tree_shape s;
    REQUIRE(cuzk_fil_tree_shape_for_sector(&s, 2048) == CUZK_OK); /* 8 x 2 levels */
    all_leaves_vs_dense(&s);
    REQUIRE(cuzk_fil_tree_shape_for_sector(&s, 4096) == CUZK_OK); /* sub 2 */
    all_leaves_vs_dense(&s);
    REQUIRE(cuzk_fil_tree_shape_for_sector(&s, 32768) == CUZK_OK); /* sub 8, top 2 */
    all_leaves_vs_dense(&s);
}

/* A few opened leaves of a 64 GiB tree: every proof verifies to the root,
 * and proofs of leaves sharing a base tree agree on their common nodes. */
static void test_sparse_tree_paths(void)
{
    cuzk_fil_tree_shape s;
    REQUIRE(cuzk_fil_tree_shape_for_sector(&s, 64ull << 30) == CUZK_OK);
    uint64_t leaves[12];
    for (size_t i = 0; i < 10; i++)
        leaves[i] = test_rand64() % s.leaves;
    leaves[10] = leaves[0] ^ 1; /* a sibling leaf */
    leaves[11] = leaves[0];     /* a duplicate */
    uint8_t seed[32], root[32];
    char err[CUZK_FIL_ERR_LEN] = "";
    test_rand_bytes(seed, 32);
    cuzk_fil_sparse_tree *t = NULL;
    REQUIRE(cuzk_fil_sparse_tree_build(&t, &s, leaves, 12, seed, err, sizeof err) == CUZK_OK);
    cuzk_fil_sparse_tree_root(root, t);
    size_t sl = cuzk_fil_sparse_tree_proof_storage(t);
    uint64_t *m = malloc(2 * sl);
    REQUIRE(m);
    cuzk_fil_merkle_proof p, q;
    for (size_t i = 0; i < 12; i++) {
        bool ok = false;
        uint64_t at = 0;
        CHECK(cuzk_fil_sparse_tree_prove(&p, m, sl, t, leaves[i], err, sizeof err) == CUZK_OK);
        CHECK(cuzk_fil_merkle_proof_matches(&p, &s) && p.kind == CUZK_FIL_PROOF_TOP);
        CHECK(cuzk_fil_merkle_verify_poseidon(&ok, &at, &p, err, sizeof err) == CUZK_OK && ok);
        CHECK(at == leaves[i] && memcmp(p.root, root, 32) == 0);
    }
    /* leaf 0 and its sibling: each one's leaf is the other's first-level sibling */
    CHECK(cuzk_fil_sparse_tree_prove(&p, m, sl, t, leaves[0], err, sizeof err) == CUZK_OK);
    CHECK(cuzk_fil_sparse_tree_prove(&q, (uint8_t *)m + sl, sl, t, leaves[10], err, sizeof err) == CUZK_OK);
    uint64_t k0 = p.path[0].index[0], k1 = q.path[0].index[0];
    CHECK((k0 ^ 1) == k1);
    CHECK(memcmp(p.path[0].hashes + 32 * (k1 < k0 ? k1 : k1 - 1), q.leaf, 32) == 0);
    CHECK(memcmp(q.path[0].hashes + 32 * (k0 < k1 ? k0 : k0 - 1), p.leaf, 32) == 0);
    CHECK(memcmp(p.path[0].hashes + 7 * 32, q.path[0].hashes + 7 * 32, (s.base_levels - 1) * 7 * 32) == 0);
    free(m);
    cuzk_fil_sparse_tree_free(t);
}

/* ---- synthetic PoSt sectors ------------------------------------------------------ */

/* n sectors of one size: window (sector index i) and winning proofs from
 * one tree each; all verify natively and through the prover's job. */
static void post_round_trip(uint64_t window_id, uint64_t winning_id, size_t n, bool timed)
{
    const cuzk_fil_post_info *wnd = post(window_id), *win = post(winning_id);
    REQUIRE(wnd && win);
    uint8_t rnd[32];
    rand_elem(rnd);
    cuzk_fil_post_vanilla *vw = calloc(n, sizeof *vw), vwin[2];
    char err[CUZK_FIL_ERR_LEN] = "";
    REQUIRE(vw);
    uint64_t base = test_rand64() >> 20;
    double t0 = now_s();
    for (size_t i = 0; i < n; i++) {
        cuzk_fil_sparse_sector sec;
        sector_make(&sec, base + i);
        cuzk_fil_sparse_post_target tg[2] = {{wnd, i}, {win, 0}};
        cuzk_fil_post_vanilla two[2];
        bool winner = i == n / 2;
        int st = cuzk_fil_sparse_post_vanilla(two, tg, winner ? 2 : 1, &sec, rnd, err, sizeof err);
        if (st) printf("sector %zu: %s\n", i, err);
        REQUIRE(st == CUZK_OK);
        vw[i] = two[0];
        if (winner) vwin[0] = two[1];
    }
    double t1 = now_s();
    for (size_t i = 0; i < n; i++)
        CHECK(verifies(&vw[i], wnd, rnd, i));
    CHECK(verifies(&vwin[0], win, rnd, 0));
    CHECK(memcmp(vwin[0].comm_r, vw[n / 2].comm_r, 32) == 0);
    CHECK(memcmp(vwin[0].sectors[0].comm_r_last, vw[n / 2].sectors[0].comm_r_last, 32) == 0);
    double t2 = now_s();
    int st = job_check(vw, n, wnd, rnd, wnd->sector_size == 2048, err, sizeof err);
    if (st) printf("window job: %s\n", err);
    CHECK(st == CUZK_OK);
    st = job_check(vwin, 1, win, rnd, !timed, err,
                   sizeof err); /* 66 x 1 challenge: 0.4 M constraints at 64 GiB */
    if (st) printf("winning job: %s\n", err);
    CHECK(st == CUZK_OK);
    if (timed)
        printf("  %s: %zu sectors made in %.2f s, verified in %.2f s, job (parse + verify) %.2f s\n",
               wnd->name, n, t1 - t0, t2 - t1, now_s() - t2);
    for (size_t i = 0; i < n; i++)
        cuzk_fil_vanilla_free(&vw[i]);
    cuzk_fil_vanilla_free(&vwin[0]);
    free(vw);
}

static void test_sparse_2k(void)
{
    post_round_trip(10, 0, 2, false); /* StackedDrgWindow2KiBV1_2, StackedDrgWinning2KiBV1 */
    post_round_trip(5, 0, 2, false);  /* StackedDrgWindow2KiBV1: api 1.0, index-dependent challenges */
}

static void test_sparse_32g(void)
{
    post_round_trip(13, 3, 5, false);
    post_round_trip(8, 3, 5, false); /* api 1.0 */
}

static void test_sparse_64g(void)
{
    post_round_trip(14, 4, 4, false);
}

/* A full 32 GiB partition is 2349 sectors.  Making, verifying and passing
 * them through the job costs ~13 ms of Poseidon a sector on the busy 2-vCPU
 * dev VM (200 sectors: 0.9 + 0.9 + 1.0 s), ~30 s for 2349: over this
 * test's budget, so it makes 200 (the same code, a twelfth of the work);
 * cuzk-bench gen-vanilla makes the full partition (docs/perf-notes.md,
 * "Sparse gen-vanilla"; scripts/cli-tests.sh runs 3 sectors). */
static void test_sparse_32g_partition(void)
{
    post_round_trip(13, 3, 200, true);
}

/* Every field of one 32 GiB sector's proof, changed alone, is caught. */
static size_t flip_paths(cuzk_fil_post_vanilla *v, const cuzk_fil_post_info *p, const uint8_t rnd[32])
{
    size_t caught = 0, tried = 0;
    cuzk_fil_sector_proof *sp = &v->sectors[0];
    for (size_t n = 0; n < sp->n_proofs; n++) {
        cuzk_fil_merkle_proof *mp = &sp->proofs[n];
        mp->leaf[0] ^= 1;
        caught += !verifies(v, p, rnd, 0), tried++;
        mp->leaf[0] ^= 1;
        for (uint32_t k = 0; k <= mp->kind; k++) {
            cuzk_fil_path *path = &mp->path[k];
            uint8_t *h = (uint8_t *)path->hashes; /* our own malloc'd block */
            uint64_t *ix = (uint64_t *)path->index;
            for (size_t b = 0; b < (size_t)path->levels * (path->arity - 1); b++) {
                h[32 * b + (b % 31)] ^= 0x04;
                caught += !verifies(v, p, rnd, 0), tried++;
                h[32 * b + (b % 31)] ^= 0x04;
            }
            for (uint32_t l = 0; l < path->levels; l++) {
                ix[l] = (ix[l] + 1) % path->arity;
                caught += !verifies(v, p, rnd, 0), tried++;
                ix[l] = (ix[l] + path->arity - 1) % path->arity;
            }
        }
    }
    CHECK(caught == tried);
    return tried;
}

static void test_sparse_flip_every_field(void)
{
    const cuzk_fil_post_info *p = post(13);
    REQUIRE(p);
    uint8_t rnd[32];
    rand_elem(rnd);
    cuzk_fil_sparse_sector sec;
    sector_make(&sec, 77);
    cuzk_fil_sparse_post_target tg = {p, 0};
    cuzk_fil_post_vanilla v;
    char err[CUZK_FIL_ERR_LEN] = "";
    REQUIRE(cuzk_fil_sparse_post_vanilla(&v, &tg, 1, &sec, rnd, err, sizeof err) == CUZK_OK);
    REQUIRE(verifies(&v, p, rnd, 0));
    size_t tried = flip_paths(&v, p, rnd);
    CHECK(tried == 10 * (1 + 9 * 7 + 7 + 9 + 1));
    uint8_t *commits[3] = {v.comm_r, v.sectors[0].comm_c, v.sectors[0].comm_r_last};
    for (size_t i = 0; i < 3; i++) {
        commits[i][5] ^= 0x10;
        CHECK(!verifies(&v, p, rnd, 0));
        CHECK(job_check(&v, 1, p, rnd, false, err, sizeof err) != CUZK_OK);
        commits[i][5] ^= 0x10;
    }
    /* a changed sibling also fails the prover's job, naming the sector */
    ((uint8_t *)v.sectors[0].proofs[3].path[1].hashes)[0] ^= 1;
    CHECK(job_check(&v, 1, p, rnd, false, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "does not verify") && strstr(err, "sector 77"));
    ((uint8_t *)v.sectors[0].proofs[3].path[1].hashes)[0] ^= 1;
    CHECK(verifies(&v, p, rnd, 0)); /* everything restored */
    /* another randomness, another sector id: other challenges */
    uint8_t rnd2[32];
    memcpy(rnd2, rnd, 32);
    rnd2[0] ^= 1;
    CHECK(!verifies(&v, p, rnd2, 0));
    v.sector_id++;
    CHECK(!verifies(&v, p, rnd, 0));
    cuzk_fil_vanilla_free(&v);
}

/* Same inputs, same bytes; another seed, another tree. */
static void test_sparse_deterministic(void)
{
    const cuzk_fil_post_info *p = post(13);
    REQUIRE(p);
    uint8_t rnd[32];
    rand_elem(rnd);
    cuzk_fil_sparse_sector sec;
    sector_make(&sec, 5);
    cuzk_fil_sparse_post_target tg = {p, 0};
    cuzk_fil_post_vanilla a, b, c;
    char err[CUZK_FIL_ERR_LEN] = "";
    REQUIRE(cuzk_fil_sparse_post_vanilla(&a, &tg, 1, &sec, rnd, err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_fil_sparse_post_vanilla(&b, &tg, 1, &sec, rnd, err, sizeof err) == CUZK_OK);
    sec.seed[0] ^= 1;
    REQUIRE(cuzk_fil_sparse_post_vanilla(&c, &tg, 1, &sec, rnd, err, sizeof err) == CUZK_OK);
    size_t la, lb, lc;
    uint8_t *ba = to_bytes(&a, &la), *bb = to_bytes(&b, &lb), *bc = to_bytes(&c, &lc);
    REQUIRE(ba && bb && bc);
    CHECK(la == lb && memcmp(ba, bb, la) == 0);
    CHECK(la == lc && memcmp(a.sectors[0].comm_r_last, c.sectors[0].comm_r_last, 32) != 0);
    CHECK(verifies(&c, p, rnd, 0));
    free(ba);
    free(bb);
    free(bc);
    cuzk_fil_vanilla_free(&a);
    cuzk_fil_vanilla_free(&b);
    cuzk_fil_vanilla_free(&c);
}

static void test_sparse_errors(void)
{
    cuzk_fil_tree_shape s;
    REQUIRE(cuzk_fil_tree_shape_for_sector(&s, 32ull << 30) == CUZK_OK);
    uint8_t seed[32] = {1}, rnd[32] = {0};
    char err[CUZK_FIL_ERR_LEN] = "";
    uint64_t leaves[2] = {3, s.leaves};
    cuzk_fil_sparse_tree *t = NULL;
    CHECK(cuzk_fil_sparse_tree_build(&t, &s, leaves, 2, seed, err, sizeof err) == CUZK_ERR_ARG && !t);
    CHECK(strstr(err, "leaf 1 of 2 is 1073741824") != NULL);
    CHECK(cuzk_fil_sparse_tree_build(&t, &s, leaves, 0, seed, err, sizeof err) == CUZK_ERR_ARG);
    cuzk_fil_tree_shape bad = s;
    bad.base_levels = 8;
    CHECK(cuzk_fil_sparse_tree_build(&t, &bad, leaves, 1, seed, err, sizeof err) == CUZK_ERR_ARG);
    REQUIRE(cuzk_fil_sparse_tree_build(&t, &s, leaves, 1, seed, err, sizeof err) == CUZK_OK);
    size_t sl = cuzk_fil_sparse_tree_proof_storage(t);
    uint64_t *m = malloc(sl + 8);
    cuzk_fil_merkle_proof p;
    CHECK(cuzk_fil_sparse_tree_prove(&p, m, sl, t, 4, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "leaf 4 is not one of the 1 leaves") != NULL);
    CHECK(cuzk_fil_sparse_tree_prove(&p, m, sl - 1, t, 3, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_sparse_tree_prove(&p, (uint8_t *)m + 4, sl, t, 3, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_sparse_tree_prove(&p, m, sl, t, 3, err, sizeof err) == CUZK_OK);
    free(m);
    cuzk_fil_sparse_tree_free(t);

    cuzk_fil_sparse_sector sec = {.sector_id = 1};
    cuzk_fil_post_vanilla v[2];
    cuzk_fil_sparse_post_target mixed[2] = {{post(13), 0}, {post(4), 0}};
    CHECK(cuzk_fil_sparse_post_vanilla(v, mixed, 2, &sec, rnd, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "target 1") != NULL);
    rnd[31] = 0xff;
    CHECK(cuzk_fil_sparse_post_vanilla(v, mixed, 1, &sec, rnd, err, sizeof err) == CUZK_ERR_ENC_NONCANONICAL);
    rnd[31] = 0;
    sec.comm_c[31] = 0xff; /* not a field element: comm_r cannot be computed */
    CHECK(cuzk_fil_sparse_post_vanilla(v, mixed, 1, &sec, rnd, err, sizeof err) == CUZK_ERR_ENC_NONCANONICAL);
    CHECK(cuzk_fil_sparse_post_vanilla(v, mixed, 0, &sec, rnd, err, sizeof err) == CUZK_ERR_ARG);
}

static const test_case tests[] = {
    {"sparse_all_leaves_is_dense", test_sparse_all_leaves_is_dense},
    {"sparse_tree_paths", test_sparse_tree_paths},
    {"sparse_2k", test_sparse_2k},
    {"sparse_32g", test_sparse_32g},
    {"sparse_64g", test_sparse_64g},
    {"sparse_32g_partition", test_sparse_32g_partition},
    {"sparse_flip_every_field", test_sparse_flip_every_field},
    {"sparse_deterministic", test_sparse_deterministic},
    {"sparse_errors", test_sparse_errors},
};

TEST_MAIN(tests)
