/* Sparse SnapDeals sectors (cuzk/seal_snap.h): vanilla partition proofs of
 * an update of any size, 32 and 64 GiB included, without the sector.
 *
 * The order is the real protocol's, so every proof is a real statement:
 *   tree R old (old replica) -> comm_r_last_old -> comm_r_old;
 *   tree D (new data) -> comm_d_new;  phi = H(comm_d_new, comm_r_old);
 *   rho of every region (2^h of them) -> tree R new over old + data * rho
 *   -> comm_r_new -> the challenges of each partition (challenges.rs);
 *   the proofs open the three trees at those challenges.
 * The challenges depend on tree R new's root, tree R new's leaves on the
 * other two trees' roots (through rho) and leaves, so no tree can be
 * sparse-random (random digests off the paths a proof opens are chosen
 * after the paths, sparse.c's trees C and R); all three are region-periodic
 * trees instead (cuzk_fil_periodic_tree_build), every node real.  A region
 * is a rho region, 2^(challenge_bits - h) nodes: inside one, the old
 * replica and the new data repeat one pattern and rho is constant, so the
 * new replica repeats too.  The pattern differs per region (a hash of the
 * seed, the region and the offset), so partitions and apex leaves differ. */
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "cuzk/filecoin.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"
#include "seal/snap_internal.h"

#define SS_PERIOD_LOG 6 /* 64 nodes a pattern: ~9 Poseidon-8 hashes a region and tree */

typedef struct {
    const cuzk_snap_sparse *sp;
    cuzk_fil_periodic_tree *r_old, *d, *r_new;
    cuzk_fr *rho; /* 2^h: the rho of each region */
} ss_impl;

/* SHA-256(tag || seed || region || offset, u64 LE), [31] &= 0x3f: an Fr32
 * element (< 2^254 < r). */
static void ss_derive(uint8_t out[32], const char *tag, uint64_t seed, uint64_t region, uint64_t offset)
{
    uint8_t msg[64];
    size_t l = strlen(tag);
    const uint64_t v[3] = {seed, region, offset};
    memcpy(msg, tag, l);
    for (int k = 0; k < 3; k++)
        for (int b = 0; b < 8; b++)
            msg[l + 8 * (size_t)k + (size_t)b] = (uint8_t)(v[k] >> (8 * b));
    SHA256(msg, l + 24, out);
    out[31] &= 0x3f;
}

static void ss_pattern_tagged(const cuzk_snap_sparse *sp, const char *tag, uint64_t r, uint8_t *out, size_t n)
{
    for (size_t o = 0; o < n; o++)
        ss_derive(out + 32 * o, tag, sp->seed, r, o);
}

static int ss_pattern_r_old(void *ctx, uint64_t r, uint8_t *out, size_t n)
{
    ss_pattern_tagged(((const ss_impl *)ctx)->sp, "cuzk-snap sparse replica", r, out, n);
    return CUZK_OK;
}

static int ss_pattern_d(void *ctx, uint64_t r, uint8_t *out, size_t n)
{
    ss_pattern_tagged(((const ss_impl *)ctx)->sp, "cuzk-snap sparse data", r, out, n);
    return CUZK_OK;
}

/* The new replica's pattern: encode_into of the two others with rho(r). */
static int ss_pattern_r_new(void *ctx, uint64_t r, uint8_t *out, size_t n)
{
    const ss_impl *im = ctx;
    uint8_t data[32];
    int st = ss_pattern_r_old(ctx, r, out, n);
    for (size_t o = 0; o < n && !st; o++) {
        ss_derive(data, "cuzk-snap sparse data", im->sp->seed, r, o);
        st = cuzk_snap_encode_node(out + 32 * o, out + 32 * o, data, &im->rho[r]);
    }
    return st;
}

int cuzk_snap_sparse_pattern(const cuzk_snap_sparse *sp, uint64_t r, uint8_t *replica_old, uint8_t *data_new)
{
    if (!sp || r >> sp->h) return CUZK_ERR_ARG;
    size_t n = (size_t)1 << sp->period_log;
    if (replica_old) ss_pattern_tagged(sp, "cuzk-snap sparse replica", r, replica_old, n);
    if (data_new) ss_pattern_tagged(sp, "cuzk-snap sparse data", r, data_new, n);
    return CUZK_OK;
}

/* ---- the trees, in the protocol's order --------------------------------------- */
static int ss_tree(cuzk_fil_periodic_tree **out, const cuzk_snap_sparse *sp, ss_impl *im, bool tree_d,
                   cuzk_fil_pattern_fn pattern, const char *what, cuzk_par *par, char *err, size_t err_len)
{
    const cuzk_snap_shape *s = &sp->shape;
    cuzk_fil_tree_shape shape;
    int st = tree_d ? cuzk_fil_tree_shape_make(&shape, s->nodes, 2, 0, 0)
                    : cuzk_fil_tree_shape_make(&shape, s->nodes, s->tree_base_arity, s->tree_sub_arity,
                                               s->tree_top_arity);
    if (st)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse snap: no %s shape for %llu nodes", what,
                         (unsigned long long)s->nodes);
    char msg[200] = "";
    st = cuzk_fil_periodic_tree_build(out, &shape, tree_d ? CUZK_FIL_HASH_SHA256 : CUZK_FIL_HASH_POSEIDON,
                                      sp->region_log, sp->period_log, pattern, im, par, msg, sizeof msg);
    if (st) return cuzk_errf(err, err_len, st, "sparse snap: %s: %s", what, msg);
    return CUZK_OK;
}

static int ss_comm_r(uint8_t comm_r[32], uint8_t comm_r_last[32], const uint8_t comm_c[32],
                     const cuzk_fil_periodic_tree *t, const char *what, char *err, size_t err_len)
{
    char msg[200] = "";
    cuzk_fil_periodic_tree_root(comm_r_last, t);
    int st = cuzk_fil_comm_r(comm_r, comm_c, comm_r_last, msg, sizeof msg);
    if (st) return cuzk_errf(err, err_len, st, "sparse snap: %s: %s", what, msg);
    return CUZK_OK;
}

static int ss_run(cuzk_snap_sparse *sp, ss_impl *im, cuzk_par *par, char *err, size_t err_len)
{
    const uint8_t *c = sp->comm_c;
    int st = ss_tree(&im->r_old, sp, im, false, ss_pattern_r_old, "tree R old", par, err, err_len);
    if (!st) st = ss_comm_r(sp->comm_r_old, sp->comm_r_last_old, c, im->r_old, "comm_r_old", err, err_len);
    if (!st) st = ss_tree(&im->d, sp, im, true, ss_pattern_d, "tree D", par, err, err_len);
    if (st) return st;
    cuzk_fil_periodic_tree_root(sp->comm_d_new, im->d);
    if ((st = cuzk_snap_phi(sp->phi, sp->comm_d_new, sp->comm_r_old, err, err_len))) return st;
    for (uint64_t r = 0; r < (1ull << sp->h) && !st; r++)
        st = cuzk_snap_rho(&im->rho[r], sp->phi, (uint32_t)r, err, err_len);
    if (!st) st = ss_tree(&im->r_new, sp, im, false, ss_pattern_r_new, "tree R new", par, err, err_len);
    if (!st) st = ss_comm_r(sp->comm_r_new, sp->comm_r_last_new, c, im->r_new, "comm_r_new", err, err_len);
    return st;
}

/* h in hs; the largest period (a span of tree R's 8-ary base levels) that
 * fits SS_PERIOD_LOG and a region. */
static int ss_setup(cuzk_snap_sparse *sp, const cuzk_snap_shape *s, uint32_t h, char *err, size_t err_len)
{
    if (!cuzk_snap_h_select(s, h))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "sparse snap: h = %u is not allowed for %llu-byte sectors", h,
                         (unsigned long long)s->sector_size);
    if (s->nodes < 2 || s->nodes != 1ull << s->challenge_bits || h > 16 || h > s->challenge_bits ||
        s->challenge_bits < s->partition_bits + s->apex_bits || s->tree_base_arity != 8)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse snap: unusable shape");
    sp->shape = *s;
    sp->h = h;
    sp->region_log = s->challenge_bits - h;
    uint32_t p = sp->region_log < SS_PERIOD_LOG ? sp->region_log : SS_PERIOD_LOG;
    if (p > 3 * s->tree_base_levels) p = 3 * s->tree_base_levels;
    sp->period_log = p - p % 3;
    ss_derive(sp->comm_c, "cuzk-snap sparse comm_c", sp->seed, 0, 0);
    return CUZK_OK;
}

/* The public struct and its private state in one block. */
typedef struct {
    cuzk_snap_sparse sp;
    ss_impl im;
} ss_block;

int cuzk_snap_sparse_make(cuzk_snap_sparse **out, const cuzk_snap_shape *s, uint32_t h, uint64_t seed,
                          cuzk_par *par, char *err, size_t err_len)
{
    if (!out || !s) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse snap: NULL argument");
    *out = NULL;
    ss_block *b = calloc(1, sizeof *b);
    if (!b) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse snap: out of memory");
    cuzk_snap_sparse *sp = &b->sp;
    sp->impl = &b->im;
    b->im.sp = sp;
    sp->seed = seed;
    int st = ss_setup(sp, s, h, err, err_len);
    if (!st && !(b->im.rho = malloc(sizeof *b->im.rho << h)))
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "sparse snap: out of memory");
    if (!st) st = ss_run(sp, &b->im, par, err, err_len);
    if (!st)
        *out = sp;
    else
        cuzk_snap_sparse_free(sp);
    return st;
}

void cuzk_snap_sparse_free(cuzk_snap_sparse *sp)
{
    if (!sp) return;
    ss_block *b = (ss_block *)sp; /* sp is the block's first member */
    cuzk_fil_periodic_tree_free(b->im.r_old);
    cuzk_fil_periodic_tree_free(b->im.d);
    cuzk_fil_periodic_tree_free(b->im.r_new);
    free(b->im.rho);
    free(b);
}

/* ---- proofs ------------------------------------------------------------------------ */
static int ss_apex(const cuzk_snap_opener *o, uint8_t *out, uint32_t k)
{
    const ss_impl *im = o->ctx;
    const cuzk_snap_shape *s = &im->sp->shape;
    int st = CUZK_OK;
    for (uint32_t a = 0; a < s->apex_leaves && !st; a++)
        st = cuzk_fil_periodic_tree_node(out + 32 * (size_t)a, im->d, cuzk_snap_apex_height(s),
                                         (uint64_t)k * s->apex_leaves + a);
    return st;
}

static int ss_open(const cuzk_snap_opener *o, cuzk_snap_challenge_proof *cp, uint8_t *b, uint32_t c)
{
    const ss_impl *im = o->ctx;
    size_t sr = o->r_storage, sd = (size_t)im->sp->shape.challenge_bits * 40;
    int st = cuzk_fil_periodic_tree_prove(&cp->r_old, b, sr, im->r_old, c);
    if (!st) st = cuzk_fil_periodic_tree_prove(&cp->r_new, b + sr, sr, im->r_new, c);
    if (!st) st = cuzk_fil_periodic_tree_prove(&cp->d_new, b + 2 * sr, sd, im->d, c);
    return st;
}

int cuzk_snap_sparse_prove(cuzk_snap_partition_proof **out, const cuzk_snap_sparse *sp, uint32_t k, char *err,
                           size_t err_len)
{
    if (!out || !sp || !sp->impl)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sparse snap prove: NULL argument");
    const ss_impl *im = sp->impl;
    cuzk_snap_opener o = {.r_storage = (cuzk_fil_periodic_tree_proof_storage(im->r_old) + 7) & ~(size_t)7,
                          .ctx = (void *)im,
                          .apex = ss_apex,
                          .open = ss_open};
    return cuzk_snap_partition_assemble(out, &sp->shape, sp->comm_c, sp->comm_r_new, k, &o, err, err_len);
}
