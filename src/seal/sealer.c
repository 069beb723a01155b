/* Native replication of a test sector (rust-fil-proofs stacked/vanilla
 * proof.rs replicate: tree D, labels, tree C, encoding, tree R last), so
 * that cuzk can produce real C1 input for 2 KiB / 8 MiB / 512 MiB without
 * Rust.  Everything lives in memory; a sector is small by construction.
 *
 * Parallelism: data, tree D levels, parents, tree C, encoding and tree R
 * are spread over the caller's cuzk_par.  Labels are sequential by nature
 * (each node hashes its predecessor and DRG parents of the same layer), so
 * the graph is evaluated first, in parallel, into one parent table
 * (nodes x 14 u32: 56 B per node) and the label loop only hashes. */
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "cuzk/poseidon.h"
#include "cuzk/status.h"
#include "ff/verify.h"
#include "seal/seal_internal.h"

#define SEAL_CHUNK 4096u
#define SEAL_MAX_NODES (1ull << 24) /* 512 MiB */

static void seal_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* SHA-256(tag || seed || sector || i, u64 LE) with [31] &= 0x3f. */
static void seal_derive(uint8_t out[32], const char *tag, uint64_t seed, uint64_t sector, uint64_t i)
{
    uint8_t msg[64];
    size_t l = strlen(tag);
    memcpy(msg, tag, l);
    seal_put_le64(msg + l, seed);
    seal_put_le64(msg + l + 8, sector);
    seal_put_le64(msg + l + 16, i);
    SHA256(msg, l + 24, out);
    out[31] &= 0x3f;
}

static void seal_report(seal_impl *im, const char *phase, uint64_t done, uint64_t total)
{
    if (im->progress) im->progress(im->progress_ctx, phase, done, total);
}

/* ---- data and tree D ---------------------------------------------------- */
typedef struct {
    cuzk_seal_sector *s;
    uint64_t seed;
    uint8_t *in, *out; /* tree D level and the next one */
    uint64_t out_nodes;
} seal_job;

static void seal_data_task(void *arg, size_t c)
{
    seal_job *j = arg;
    uint64_t end = (c + 1) * (uint64_t)SEAL_CHUNK;
    if (end > j->s->nodes) end = j->s->nodes;
    for (uint64_t i = c * (uint64_t)SEAL_CHUNK; i < end; i++)
        seal_derive(j->s->data + 32 * i, "cuzk-seal data", j->seed, j->s->sector_id, i);
}

static void seal_tree_d_task(void *arg, size_t c)
{
    seal_job *j = arg;
    uint64_t end = (c + 1) * (uint64_t)SEAL_CHUNK;
    if (end > j->out_nodes) end = j->out_nodes;
    for (uint64_t i = c * (uint64_t)SEAL_CHUNK; i < end; i++)
        cuzk_fil_sha256_trunc254(j->out + 32 * i, j->in + 64 * i, 64);
}

static size_t seal_chunks(uint64_t n)
{
    return (size_t)((n + SEAL_CHUNK - 1) / SEAL_CHUNK);
}

/* Leaves first, each level after the previous one, root last (the layout
 * of rust-fil-proofs' tree-d store). */
static void seal_tree_d(cuzk_seal_sector *s, cuzk_par *par)
{
    seal_job j = {.s = s, .in = s->tree_d};
    for (uint64_t w = s->nodes; w > 1; w /= 2) {
        j.out = j.in + 32 * w;
        j.out_nodes = w / 2;
        cuzk_par_for(par, seal_tree_d_task, &j, seal_chunks(j.out_nodes));
        j.in = j.out;
    }
    memcpy(s->comm_d, s->tree_d + 32 * (2 * s->nodes - 2), 32);
}

/* ---- parents and labels --------------------------------------------------- */
static void seal_parents_task(void *arg, size_t c)
{
    seal_job *j = arg;
    seal_impl *im = j->s->impl;
    uint64_t end = (c + 1) * (uint64_t)SEAL_CHUNK;
    if (end > j->s->nodes) end = j->s->nodes;
    for (uint64_t i = c * (uint64_t)SEAL_CHUNK; i < end; i++)
        cuzk_seal_graph_parents(&im->graph, i, im->parents + 14 * i);
}

/* One layer: DRG parents from this layer, expander parents (layers >= 2)
 * from the previous one (create_label_exp). */
static void seal_label_layer(cuzk_seal_sector *s, uint32_t layer, uint64_t *done, uint64_t total)
{
    seal_impl *im = s->impl;
    uint8_t *cur = s->labels + 32 * s->nodes * (layer - 1);
    const uint8_t *prev = layer > 1 ? cur - 32 * s->nodes : NULL;
    uint8_t pbuf[14 * 32];
    cuzk_seal_label(cur, s->replica_id, layer, 0, NULL, 0);
    for (uint64_t i = 1; i < s->nodes; i++) {
        const uint32_t *p = im->parents + 14 * i;
        for (int k = 0; k < 6; k++)
            memcpy(pbuf + 32 * k, cur + 32 * (uint64_t)p[k], 32);
        if (prev)
            for (int k = 6; k < 14; k++)
                memcpy(pbuf + 32 * k, prev + 32 * (uint64_t)p[k], 32);
        cuzk_seal_label(cur + 32 * i, s->replica_id, layer, i, pbuf, prev ? 14 : 6);
        if ((i & 0xffff) == 0) seal_report(im, "labels", *done + i, total);
    }
    *done += s->nodes;
    seal_report(im, "labels", *done, total);
}

/* ---- tree C, encoding, tree R ----------------------------------------------- */
static int seal_column_leaves(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    cuzk_seal_sector *s = ctx;
    seal_impl *im = s->impl;
    uint8_t rows[CUZK_POSEIDON_MAX_ARITY * 32];
    for (size_t i = 0; i < n; i++) {
        for (uint32_t l = 0; l < im->layers; l++)
            memcpy(rows + 32 * l, s->labels + 32 * (s->nodes * l + first + i), 32);
        int st = cuzk_seal_column_hash(out + 32 * i, rows, im->layers, NULL, 0);
        if (st) return st;
    }
    return CUZK_OK;
}

static int seal_replica_leaves(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    const cuzk_seal_sector *s = ctx;
    memcpy(out, s->replica + 32 * first, 32 * n);
    return CUZK_OK;
}

static void seal_encode_task(void *arg, size_t c)
{
    seal_job *j = arg;
    cuzk_seal_sector *s = j->s;
    seal_impl *im = s->impl;
    const uint8_t *key = s->labels + 32 * s->nodes * (im->layers - 1);
    uint64_t end = (c + 1) * (uint64_t)SEAL_CHUNK;
    if (end > s->nodes) end = s->nodes;
    /* labels and Fr32 data are < 2^254 < r: encoding cannot fail */
    for (uint64_t i = c * (uint64_t)SEAL_CHUNK; i < end; i++)
        CUZK_CANNOT_FAIL(cuzk_seal_encode(s->replica + 32 * i, key + 32 * i, s->data + 32 * i));
}

typedef struct {
    seal_impl *im;
    const char *phase;
} seal_tree_progress;

static void seal_tree_report(void *ctx, uint64_t done, uint64_t total)
{
    seal_tree_progress *p = ctx;
    seal_report(p->im, p->phase, done, total);
}

static int seal_build_tree(cuzk_fil_tree **t, cuzk_seal_sector *s, const char *phase, cuzk_fil_leaf_fn leaf,
                           cuzk_par *par, char *err, size_t err_len)
{
    seal_impl *im = s->impl;
    seal_tree_progress p = {im, phase};
    int st = cuzk_fil_tree_build(t, &im->shape, leaf, s, par, seal_tree_report, &p, err, err_len);
    if (st && err && !*err) cuzk_errf(err, err_len, st, "seal: %s: %s", phase, cuzk_strerror(st));
    return st;
}

/* ---- phases ------------------------------------------------------------------ */
static int seal_setup(cuzk_seal_sector **out, const cuzk_seal_config *cfg, char *err, size_t err_len)
{
    const cuzk_fil_seal_info *info;
    if (!cfg || cuzk_fil_seal_lookup(&info, cfg->registered_proof))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal: unknown registered seal proof %llu",
                         cfg ? (unsigned long long)cfg->registered_proof : 0ull);
    uint64_t nodes = info->sector_size / CUZK_FIL_NODE_SIZE;
    if (nodes > SEAL_MAX_NODES)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "seal: %s is %llu bytes; the in-memory sealer handles up to 512 MiB", info->name,
                         (unsigned long long)info->sector_size);
    cuzk_seal_sector *s = calloc(1, sizeof *s);
    seal_impl *im = calloc(1, sizeof *im);
    if (!s || !im) {
        free(s);
        free(im);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal: out of memory");
    }
    *out = s;
    s->impl = im;
    s->info = info;
    s->nodes = nodes;
    s->sector_id = cfg->sector_id;
    s->miner_id = cfg->miner_id;
    im->layers = info->layers;
    int st = cuzk_fil_tree_shape_for_sector(&im->shape, info->sector_size);
    if (st) return cuzk_errf(err, err_len, st, "seal: no tree shape for %s", info->name);
    cuzk_fil_seal_porep_id(s->porep_id, info);
    if ((st = cuzk_seal_graph_init(&im->graph, nodes, s->porep_id, info->api_version, NULL, err, err_len)))
        return st;
    s->tree_d = malloc(32 * (2 * nodes - 1));
    s->labels = malloc(32 * nodes * im->layers);
    s->replica = malloc(32 * nodes);
    im->parents = malloc(14 * sizeof(uint32_t) * nodes);
    if (!s->tree_d || !s->labels || !s->replica || !im->parents)
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal: cannot allocate %llu MiB for %s",
                         (unsigned long long)((32 * (3 + im->layers) + 56) * nodes >> 20), info->name);
    s->data = s->tree_d;
    cuzk_seal_prover_id(s->prover_id, cfg->miner_id);
    seal_derive(s->ticket, "cuzk-seal ticket", cfg->seed, cfg->sector_id, 0);
    seal_derive(s->seed, "cuzk-seal seed", cfg->seed, cfg->sector_id, 0);
    return CUZK_OK;
}

static int seal_replicate(cuzk_seal_sector *s, const cuzk_seal_config *cfg, cuzk_par *par, char *err,
                          size_t err_len)
{
    seal_impl *im = s->impl;
    seal_job j = {.s = s, .seed = cfg->seed};
    cuzk_par_for(par, seal_data_task, &j, seal_chunks(s->nodes));
    seal_tree_d(s, par);
    seal_report(im, "tree_d", 1, 1);
    cuzk_seal_replica_id(s->replica_id, s->prover_id, s->sector_id, s->ticket, s->comm_d, s->porep_id);
    cuzk_par_for(par, seal_parents_task, &j, seal_chunks(s->nodes));
    seal_report(im, "parents", 1, 1);
    uint64_t done = 0, total = s->nodes * im->layers;
    for (uint32_t l = 1; l <= im->layers; l++)
        seal_label_layer(s, l, &done, total);
    int st = seal_build_tree(&im->tree_c, s, "tree_c", seal_column_leaves, par, err, err_len);
    if (st) return st;
    cuzk_fil_tree_root(s->comm_c, im->tree_c);
    cuzk_par_for(par, seal_encode_task, &j, seal_chunks(s->nodes));
    if ((st = seal_build_tree(&im->tree_r, s, "tree_r", seal_replica_leaves, par, err, err_len))) return st;
    cuzk_fil_tree_root(s->comm_r_last, im->tree_r);
    return cuzk_fil_comm_r(s->comm_r, s->comm_c, s->comm_r_last, err, err_len);
}

int cuzk_seal_sector_seal(cuzk_seal_sector **out, const cuzk_seal_config *cfg, cuzk_par *par,
                          cuzk_seal_progress_fn progress, void *progress_ctx, char *err, size_t err_len)
{
    if (!out) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "seal: NULL output");
    *out = NULL;
    cuzk_seal_sector *s = NULL;
    int st = seal_setup(&s, cfg, err, err_len);
    if (!st) {
        seal_impl *im = s->impl;
        im->progress = progress;
        im->progress_ctx = progress_ctx;
        st = seal_replicate(s, cfg, par, err, err_len);
    }
    if (!st) st = cuzk_seal_prove_all(s, par, err, err_len);
    if (st) {
        cuzk_seal_sector_free(s);
        return st;
    }
    *out = s;
    return CUZK_OK;
}

void cuzk_seal_sector_free(cuzk_seal_sector *s)
{
    if (!s) return;
    seal_impl *im = s->impl;
    if (im) {
        cuzk_fil_tree_free(im->tree_c);
        cuzk_fil_tree_free(im->tree_r);
        free(im->parents);
        free(im->proofs);
        free(im->proof_mem);
        cuzk_seal_graph_free(&im->graph);
        free(im);
    }
    free(s->tree_d);
    free(s->labels);
    free(s->replica);
    free(s);
}
