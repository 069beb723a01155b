/* Seal commit phase 1 of the test-sector sealer: the challenges of every
 * partition and, for each, exactly the vanilla proof rust-fil-proofs'
 * prove_layers builds (stacked/vanilla/proof.rs prove_layers_generate):
 * the comm_d path of the data node, the comm_r_last path of the replica
 * node, the columns of the challenge and of its 6 DRG and 8 expander
 * parents with their tree C paths, one labeling proof per layer whose
 * parents are the 37 repeated parent labels (DRG from the same layer,
 * expander from the previous one), and the encoding proof (the last
 * layer's parents again).  Challenges are proven in parallel; each
 * writes only its own slice of one arena. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/status.h"
#include "seal/seal_internal.h"

#define PROOF_PARENT_SLOTS 37

static size_t pr_align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

typedef struct {
    size_t d_store, r_store, c_store, rows, lab_structs, lab_parents, total;
    uint32_t d_levels;
} pr_layout;

static void pr_layout_make(pr_layout *L, const cuzk_seal_sector *s)
{
    const seal_impl *im = s->impl;
    uint32_t lv = 0;
    while ((1ull << lv) < s->nodes)
        lv++;
    L->d_levels = lv;
    L->d_store = pr_align8((size_t)lv * 40);
    L->r_store = pr_align8(cuzk_fil_tree_proof_storage(im->tree_r));
    L->c_store = pr_align8(cuzk_fil_tree_proof_storage(im->tree_c));
    L->rows = pr_align8((size_t)im->layers * 32);
    L->lab_structs = pr_align8((size_t)im->layers * sizeof(cuzk_seal_labeling_proof));
    L->lab_parents = (size_t)im->layers * PROOF_PARENT_SLOTS * 32;
    L->total = L->d_store + L->r_store + 15 * (L->c_store + L->rows) + L->lab_structs + L->lab_parents;
}

/* Single proof of leaf `index` in the stored tree D (leaves first, root last). */
static void pr_comm_d(cuzk_fil_merkle_proof *out, uint8_t *storage, const cuzk_seal_sector *s,
                      uint32_t levels, uint64_t index)
{
    uint64_t *idx = (uint64_t *)storage;
    uint8_t *hs = storage + 8 * (size_t)levels;
    memset(out, 0, sizeof *out);
    out->kind = CUZK_FIL_PROOF_SINGLE;
    memcpy(out->leaf, s->tree_d + 32 * index, 32);
    memcpy(out->root, s->comm_d, 32);
    uint64_t off = 0, w = s->nodes, i = index;
    for (uint32_t l = 0; l < levels; l++) {
        idx[l] = i & 1;
        memcpy(hs + 32 * (size_t)l, s->tree_d + 32 * (off + (i ^ 1)), 32);
        off += w;
        w /= 2;
        i /= 2;
    }
    out->path[0] = (cuzk_fil_path){.levels = levels, .arity = levels ? 2 : 0, .hashes = hs, .index = idx};
}

static int pr_column(cuzk_seal_column_proof *out, uint8_t **mem, const pr_layout *L,
                     const cuzk_seal_sector *s, uint32_t node)
{
    const seal_impl *im = s->impl;
    uint8_t *rows = *mem;
    for (uint32_t l = 0; l < im->layers; l++)
        memcpy(rows + 32 * l, s->labels + 32 * (s->nodes * l + node), 32);
    out->index = node;
    out->n_rows = im->layers;
    out->rows = rows;
    int st = cuzk_fil_tree_prove(&out->inclusion, *mem + L->rows, L->c_store, im->tree_c, node);
    *mem += L->rows + L->c_store;
    return st;
}

typedef struct {
    cuzk_seal_sector *s;
    const pr_layout *L;
    const uint64_t *challenges;
    int *status;
} pr_job;

static int pr_prove_one(cuzk_seal_challenge_proof *p, uint8_t *mem, const pr_layout *L,
                        const cuzk_seal_sector *s, uint64_t c)
{
    const seal_impl *im = s->impl;
    const uint32_t *par = im->parents + 14 * c;
    pr_comm_d(&p->comm_d_proof, mem, s, L->d_levels, c);
    mem += L->d_store;
    int st = cuzk_fil_tree_prove(&p->comm_r_last_proof, mem, L->r_store, im->tree_r, c);
    mem += L->r_store;
    if (!st) st = pr_column(&p->c_x, &mem, L, s, (uint32_t)c);
    for (int k = 0; !st && k < 6; k++)
        st = pr_column(&p->drg_parents[k], &mem, L, s, par[k]);
    for (int k = 0; !st && k < 8; k++)
        st = pr_column(&p->exp_parents[k], &mem, L, s, par[6 + k]);
    if (st) return st;
    cuzk_seal_labeling_proof *lab = (cuzk_seal_labeling_proof *)mem;
    uint8_t *pbuf = mem + L->lab_structs;
    for (uint32_t layer = 1; layer <= im->layers; layer++) {
        const uint8_t *cur = s->labels + 32 * s->nodes * (layer - 1);
        uint32_t n = layer == 1 ? 6 : 14;
        uint8_t *out = pbuf + (size_t)(layer - 1) * PROOF_PARENT_SLOTS * 32;
        for (uint32_t slot = 0; slot < PROOF_PARENT_SLOTS; slot++) {
            uint32_t k = slot % n;
            const uint8_t *src = k < 6 ? cur : cur - 32 * s->nodes; /* expander: previous layer */
            memcpy(out + 32 * slot, src + 32 * (uint64_t)par[k], 32);
        }
        lab[layer - 1] = (cuzk_seal_labeling_proof){
            .layer_index = layer, .node = c, .n_parents = PROOF_PARENT_SLOTS, .parents = out};
    }
    p->n_layers = im->layers;
    p->labeling = lab;
    p->encoding = lab[im->layers - 1];
    return CUZK_OK;
}

static void pr_task(void *arg, size_t i)
{
    pr_job *j = arg;
    seal_impl *im = j->s->impl;
    j->status[i] =
        pr_prove_one(&im->proofs[i], im->proof_mem + j->L->total * i, j->L, j->s, j->challenges[i]);
}

int cuzk_seal_prove_all(cuzk_seal_sector *s, cuzk_par *par, char *err, size_t err_len)
{
    seal_impl *im = s->impl;
    const cuzk_fil_seal_info *info = s->info;
    size_t cpp = info->challenges_per_partition, n = (size_t)info->partitions * cpp;
    pr_layout L;
    pr_layout_make(&L, s);
    uint64_t *ch = malloc(n * sizeof *ch);
    int *status = calloc(n, sizeof *status);
    im->proofs = calloc(n, sizeof *im->proofs);
    im->proof_mem = malloc(L.total * n);
    int st = CUZK_OK;
    if (!ch || !status || !im->proofs || !im->proof_mem) {
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal: cannot allocate %zu vanilla proofs", n);
        goto done;
    }
    for (uint32_t k = 0; k < info->partitions && !st; k++)
        st =
            cuzk_seal_challenges(ch + k * cpp, cpp, info, s->replica_id, s->seed, s->comm_r, k, err, err_len);
    if (st) goto done;
    pr_job j = {.s = s, .L = &L, .challenges = ch, .status = status};
    cuzk_par_for(par, pr_task, &j, n);
    for (size_t i = 0; i < n && !st; i++)
        if (status[i])
            st = cuzk_errf(err, err_len, status[i], "seal: vanilla proof of challenge %llu failed: %s",
                           (unsigned long long)ch[i], cuzk_strerror(status[i]));
    if (st) goto done;
    if (im->progress) im->progress(im->progress_ctx, "proofs", n, n);
    cuzk_seal_c1 *c1 = &s->c1;
    c1->registered_proof = info->id;
    c1->info = info;
    memcpy(c1->comm_r, s->comm_r, 32);
    memcpy(c1->comm_d, s->comm_d, 32);
    memcpy(c1->replica_id, s->replica_id, 32);
    memcpy(c1->seed, s->seed, 32);
    memcpy(c1->ticket, s->ticket, 32);
    c1->partitions = info->partitions;
    c1->challenges_per_partition = (uint32_t)cpp;
    c1->proofs = im->proofs;
    c1->mem = NULL;
done:
    free(ch);
    free(status);
    return st;
}
