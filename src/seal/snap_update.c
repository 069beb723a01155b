/* SnapDeals for an in-memory test sector: encode_into (new replica = old
 * replica + new data * rho, tree D over the new data, tree R over the new
 * replica) and prove_inner (the vanilla PartitionProof of partition k),
 * after storage-proofs-update vanilla.rs, so that cuzk can make real
 * SnapDeals input for 2 KiB / 8 MiB / 512 MiB sectors without Rust.
 *
 * Tree D keeps every level in one array (the rust-fil-proofs tree-d
 * layout: leaves first, root last) because the proofs need its apex row;
 * tree R old and new keep levels >= 1 and read leaves from the replicas.
 * Tree D levels and the encoding are spread over the caller's cuzk_par in
 * chunks; the two tree R builds use cuzk_fil_tree_build's own split. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"
#include "seal/snap_internal.h"

#define SU_CHUNK 4096u

/* The leaf context of a tree lives as long as the tree (proofs read it). */
typedef struct {
    const uint8_t *nodes;
} su_leaves;

typedef struct {
    cuzk_fil_tree *r_old, *r_new;
    su_leaves old_leaves, new_leaves;
    cuzk_fil_tree_shape tree_r;
    cuzk_snap_progress_fn progress;
    void *progress_ctx;
} su_impl;

static int su_leaf(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    memcpy(out, ((const su_leaves *)ctx)->nodes + 32 * first, 32 * n);
    return CUZK_OK;
}

typedef struct {
    su_impl *im;
    const char *phase;
} su_prog;

static void su_tree_progress(void *ctx, uint64_t done, uint64_t total)
{
    su_prog *p = ctx;
    if (p->im->progress) p->im->progress(p->im->progress_ctx, p->phase, done, total);
}

static int su_tree_r(cuzk_fil_tree **out, su_impl *im, su_leaves *lv, const char *phase, cuzk_par *par,
                     char *err, size_t err_len)
{
    su_prog pg = {im, phase};
    char msg[200] = "";
    int st = cuzk_fil_tree_build(out, &im->tree_r, su_leaf, lv, par, su_tree_progress, &pg, msg, sizeof msg);
    if (st) return cuzk_errf(err, err_len, st, "snap update: %s: %s", phase, msg);
    return CUZK_OK;
}

/* ---- tree D -------------------------------------------------------------------- */
typedef struct {
    uint8_t *src, *dst;
    uint64_t parents;
} su_level_job;

static void su_level_task(void *arg, size_t i)
{
    su_level_job *j = arg;
    uint64_t first = (uint64_t)i * SU_CHUNK,
             n = j->parents - first < SU_CHUNK ? j->parents - first : SU_CHUNK;
    for (uint64_t p = first; p < first + n; p++)
        cuzk_fil_sha256_trunc254(j->dst + 32 * p, j->src + 64 * p, 64);
}

static void su_tree_d(cuzk_snap_update *u, su_impl *im, cuzk_par *par)
{
    uint64_t n = u->shape.nodes, off = 0;
    memcpy(u->tree_d, u->data_new, 32 * (size_t)n);
    for (uint64_t w = n, l = 0; w > 1; w /= 2, l++) {
        su_level_job j = {u->tree_d + 32 * off, u->tree_d + 32 * (off + w), w / 2};
        cuzk_par_for(par, su_level_task, &j, (size_t)((w / 2 + SU_CHUNK - 1) / SU_CHUNK));
        off += w;
        if (im->progress) im->progress(im->progress_ctx, "tree_d", l + 1, u->shape.challenge_bits);
    }
    memcpy(u->comm_d_new, u->tree_d + 32 * (2 * n - 2), 32);
}

/* ---- encoding -------------------------------------------------------------------- */
typedef struct {
    cuzk_snap_update *u;
    const cuzk_fr *rhos;
    uint32_t shr;
    uint64_t base; /* first chunk of this round */
    atomic_int status;
    atomic_uint_fast64_t bad;
} su_enc_job;

static void su_enc_task(void *arg, size_t i)
{
    su_enc_job *j = arg;
    uint64_t nodes = j->u->shape.nodes, first = (j->base + i) * SU_CHUNK;
    uint64_t end = nodes - first < SU_CHUNK ? nodes : first + SU_CHUNK;
    for (uint64_t x = first; x < end; x++) {
        int st = cuzk_snap_encode_node(j->u->replica_new + 32 * x, j->u->replica_old + 32 * x,
                                       j->u->data_new + 32 * x, &j->rhos[x >> j->shr]);
        if (st) {
            atomic_store(&j->bad, x);
            atomic_store(&j->status, st);
            return;
        }
    }
}

/* rho for each of the 2^h high-bit values, then every node in rounds (so
 * progress can be reported and a bad node stops the work early). */
static int su_encode(cuzk_snap_update *u, su_impl *im, cuzk_par *par, char *err, size_t err_len)
{
    uint32_t nh = 1u << u->h;
    cuzk_fr *rhos = malloc(nh * sizeof *rhos);
    if (!rhos) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "snap update: out of memory");
    int st = CUZK_OK;
    for (uint32_t hi = 0; hi < nh && !st; hi++)
        st = cuzk_snap_rho(&rhos[hi], u->phi, hi, err, err_len);
    su_enc_job j = {.u = u, .rhos = rhos, .shr = u->shape.challenge_bits - u->h};
    atomic_init(&j.status, CUZK_OK);
    atomic_init(&j.bad, 0);
    uint64_t chunks = (u->shape.nodes + SU_CHUNK - 1) / SU_CHUNK, per_round = 64ull * cuzk_par_threads(par);
    for (uint64_t c = 0; c < chunks && !st; c += per_round) {
        uint64_t n = chunks - c < per_round ? chunks - c : per_round;
        j.base = c;
        cuzk_par_for(par, su_enc_task, &j, (size_t)n);
        if ((st = atomic_load(&j.status)))
            st = cuzk_errf(
                err, err_len, st,
                "snap update: node %llu of the old replica or the new data is not a canonical field "
                "element",
                (unsigned long long)atomic_load(&j.bad));
        if (im->progress) im->progress(im->progress_ctx, "encode", c + n, chunks);
    }
    free(rhos);
    return st;
}

/* ---- encode_into ------------------------------------------------------------------- */
static int su_check(const cuzk_snap_shape *s, uint32_t h, char *err, size_t err_len)
{
    if (!cuzk_snap_h_select(s, h))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "snap update: h = %u is not allowed for %llu-byte sectors", h,
                         (unsigned long long)s->sector_size);
    if (s->nodes < 2 || (s->nodes & (s->nodes - 1)) || s->nodes != 1ull << s->challenge_bits || h > 16 ||
        h > s->challenge_bits || s->challenge_bits < s->partition_bits + s->apex_bits)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap update: unusable shape");
    return CUZK_OK;
}

static int su_run(cuzk_snap_update *u, su_impl *im, cuzk_par *par, char *err, size_t err_len)
{
    char msg[200] = "";
    im->old_leaves.nodes = u->replica_old;
    im->new_leaves.nodes = u->replica_new;
    int st = su_tree_r(&im->r_old, im, &im->old_leaves, "tree_r_old", par, err, err_len);
    if (st) return st;
    cuzk_fil_tree_root(u->comm_r_last_old, im->r_old);
    if ((st = cuzk_fil_comm_r(u->comm_r_old, u->comm_c, u->comm_r_last_old, msg, sizeof msg)))
        return cuzk_errf(err, err_len, st, "snap update: comm_r_old: %s", msg);
    for (uint64_t i = 0; i < u->shape.nodes; i++)
        if (!cuzk_fil_domain_valid(u->data_new + 32 * i))
            return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL,
                             "snap update: new data node %llu is not a canonical field element",
                             (unsigned long long)i);
    su_tree_d(u, im, par);
    if ((st = cuzk_snap_phi(u->phi, u->comm_d_new, u->comm_r_old, err, err_len))) return st;
    if ((st = su_encode(u, im, par, err, err_len))) return st;
    if ((st = su_tree_r(&im->r_new, im, &im->new_leaves, "tree_r_new", par, err, err_len))) return st;
    cuzk_fil_tree_root(u->comm_r_last_new, im->r_new);
    if ((st = cuzk_fil_comm_r(u->comm_r_new, u->comm_c, u->comm_r_last_new, msg, sizeof msg)))
        return cuzk_errf(err, err_len, st, "snap update: comm_r_new: %s", msg);
    return CUZK_OK;
}

int cuzk_snap_update_encode(cuzk_snap_update **out, const cuzk_snap_shape *s, uint32_t h,
                            const uint8_t comm_c[32], const uint8_t *replica_old, const uint8_t *data_new,
                            cuzk_par *par, cuzk_snap_progress_fn progress, void *progress_ctx, char *err,
                            size_t err_len)
{
    if (!out || !s || !comm_c || !replica_old || !data_new)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap update: NULL argument");
    *out = NULL;
    int st = su_check(s, h, err, err_len);
    if (st) return st;
    if (!cuzk_fil_domain_valid(comm_c))
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "snap update: comm_c is not canonical");
    cuzk_snap_update *u = calloc(1, sizeof *u);
    su_impl *im = calloc(1, sizeof *im);
    if (u) {
        u->shape = *s;
        u->impl = im;
        u->replica_new = malloc(32 * (size_t)s->nodes);
        u->tree_d = malloc(32 * (2 * (size_t)s->nodes - 1));
    }
    if (!u || !im || !u->replica_new || !u->tree_d) {
        if (u) u->impl = im;
        cuzk_snap_update_free(u);
        if (!u) free(im);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "snap update: cannot allocate %llu MiB",
                         (unsigned long long)(s->sector_size * 3 >> 20));
    }
    u->h = h;
    memcpy(u->comm_c, comm_c, 32);
    u->replica_old = replica_old;
    u->data_new = data_new;
    im->progress = progress;
    im->progress_ctx = progress_ctx;
    if (cuzk_fil_tree_shape_make(&im->tree_r, s->nodes, s->tree_base_arity, s->tree_sub_arity,
                                 s->tree_top_arity))
        st = cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap update: no tree R shape for %llu nodes",
                       (unsigned long long)s->nodes);
    if (!st) st = su_run(u, im, par, err, err_len);
    if (st) {
        cuzk_snap_update_free(u);
        return st;
    }
    *out = u;
    return CUZK_OK;
}

void cuzk_snap_update_free(cuzk_snap_update *u)
{
    if (!u) return;
    su_impl *im = u->impl;
    if (im) {
        cuzk_fil_tree_free(im->r_old);
        cuzk_fil_tree_free(im->r_new);
        free(im);
    }
    free(u->replica_new);
    free(u->tree_d);
    free(u);
}

/* ---- prove_inner --------------------------------------------------------------------- */
/* Offset (in nodes) of tree D row `level` in u->tree_d. */
static uint64_t su_row(const cuzk_snap_update *u, uint32_t level)
{
    uint64_t off = 0;
    for (uint32_t l = 0; l < level; l++)
        off += u->shape.nodes >> l;
    return off;
}

static void su_prove_d(cuzk_fil_merkle_proof *m, uint64_t *idx, uint8_t *hs, const cuzk_snap_update *u,
                       uint64_t c)
{
    uint32_t lv = u->shape.challenge_bits;
    memset(m, 0, sizeof *m);
    m->kind = CUZK_FIL_PROOF_SINGLE;
    memcpy(m->leaf, u->tree_d + 32 * c, 32);
    memcpy(m->root, u->comm_d_new, 32);
    uint64_t off = 0, w = u->shape.nodes, i = c;
    for (uint32_t l = 0; l < lv; l++, off += w, w /= 2, i /= 2) {
        idx[l] = i & 1;
        memcpy(hs + 32 * (size_t)l, u->tree_d + 32 * (off + (i ^ 1)), 32);
    }
    m->path[0] = (cuzk_fil_path){.levels = lv, .arity = lv ? 2 : 0, .hashes = hs, .index = idx};
}

static int su_apex(const cuzk_snap_opener *o, uint8_t *out, uint32_t k)
{
    const cuzk_snap_update *u = o->ctx;
    const cuzk_snap_shape *s = &u->shape;
    uint64_t first = su_row(u, cuzk_snap_apex_height(s)) + (uint64_t)k * s->apex_leaves;
    memcpy(out, u->tree_d + 32 * first, 32 * (size_t)s->apex_leaves);
    return CUZK_OK;
}

static int su_open(const cuzk_snap_opener *o, cuzk_snap_challenge_proof *cp, uint8_t *b, uint32_t c)
{
    const cuzk_snap_update *u = o->ctx;
    const su_impl *im = u->impl;
    size_t sr = o->r_storage;
    int st = cuzk_fil_tree_prove(&cp->r_old, b, sr, im->r_old, c);
    if (!st) st = cuzk_fil_tree_prove(&cp->r_new, b + sr, sr, im->r_new, c);
    if (!st)
        su_prove_d(&cp->d_new, (uint64_t *)(b + 2 * sr), b + 2 * sr + 8 * (size_t)u->shape.challenge_bits, u, c);
    return st;
}

int cuzk_snap_update_prove(cuzk_snap_partition_proof **out, const cuzk_snap_update *u, uint32_t k, char *err,
                           size_t err_len)
{
    if (!out || !u || !u->impl) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap prove: NULL argument");
    const su_impl *im = u->impl;
    cuzk_snap_opener o = {.r_storage = (cuzk_fil_tree_proof_storage(im->r_old) + 7) & ~(size_t)7,
                          .ctx = (void *)u,
                          .apex = su_apex,
                          .open = su_open};
    return cuzk_snap_partition_assemble(out, &u->shape, u->comm_c, u->comm_r_new, k, &o, err, err_len);
}
