/* SealCommitPhase1Output as filecoin-proofs-api serializes it with
 * serde_json (compact): the test-sector generator's output, so it must be
 * byte-for-byte what Curio would hand to a C2 prover.  Key order is the
 * Rust field order (seal.rs SealCommitPhase1Output; stacked params.rs
 * Proof, ReplicaColumnProof; column_proof.rs; column.rs with its
 * PhantomData `_h` written as null; labeling_proof.rs / encoding_proof.rs;
 * merkle/proof.rs MerkleProof/ProofData/SingleProof/SubProof/TopProof,
 * InclusionPath, PathElement).  Domain elements are newtypes over
 * [u8; 32]: arrays of 32 numbers. */
#include <stdio.h>
#include <string.h>

#include "cuzk/seal.h"
#include "cuzk/status.h"

typedef struct {
    FILE *f;
    int failed;
} jw;

static void jw_s(jw *w, const char *s)
{
    if (fputs(s, w->f) < 0) w->failed = 1;
}

static void jw_u64(jw *w, uint64_t v)
{
    if (fprintf(w->f, "%llu", (unsigned long long)v) < 0) w->failed = 1;
}

static void jw_dom(jw *w, const uint8_t b[32])
{
    char buf[32 * 4 + 3], *p = buf;
    *p++ = '[';
    for (int i = 0; i < 32; i++) {
        if (i) *p++ = ',';
        unsigned v = b[i];
        if (v >= 100) *p++ = (char)('0' + v / 100);
        if (v >= 10) *p++ = (char)('0' + v / 10 % 10);
        *p++ = (char)('0' + v % 10);
    }
    *p++ = ']';
    if (fwrite(buf, 1, (size_t)(p - buf), w->f) != (size_t)(p - buf)) w->failed = 1;
}

static void jw_doms(jw *w, const uint8_t *b, size_t n)
{
    jw_s(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) jw_s(w, ",");
        jw_dom(w, b + 32 * i);
    }
    jw_s(w, "]");
}

/* InclusionPath { path: Vec<PathElement { hashes, index }> } */
static void jw_path(jw *w, const cuzk_fil_path *p)
{
    jw_s(w, "{\"path\":[");
    size_t per = p->arity ? p->arity - 1 : 0;
    for (uint32_t l = 0; l < p->levels; l++) {
        jw_s(w, l ? ",{\"hashes\":" : "{\"hashes\":");
        jw_doms(w, p->hashes + 32 * per * l, per);
        jw_s(w, ",\"index\":");
        jw_u64(w, p->index[l]);
        jw_s(w, "}");
    }
    jw_s(w, "]}");
}

static void jw_merkle(jw *w, const cuzk_fil_merkle_proof *m)
{
    static const char *const kind[3] = {"Single", "Sub", "Top"};
    static const char *const part[3] = {"base_proof", "sub_proof", "top_proof"};
    uint32_t k = m->kind <= CUZK_FIL_PROOF_TOP ? m->kind : 0;
    jw_s(w, "{\"data\":{\"");
    jw_s(w, kind[k]);
    jw_s(w, "\":{");
    if (k == CUZK_FIL_PROOF_SINGLE) {
        jw_s(w, "\"root\":");
        jw_dom(w, m->root);
        jw_s(w, ",\"leaf\":");
        jw_dom(w, m->leaf);
        jw_s(w, ",\"path\":");
        jw_path(w, &m->path[0]);
    } else {
        for (uint32_t i = 0; i <= k; i++) {
            jw_s(w, i ? ",\"" : "\"");
            jw_s(w, part[i]);
            jw_s(w, "\":");
            jw_path(w, &m->path[i]);
        }
        jw_s(w, ",\"root\":");
        jw_dom(w, m->root);
        jw_s(w, ",\"leaf\":");
        jw_dom(w, m->leaf);
    }
    jw_s(w, "}}}");
}

static void jw_column(jw *w, const cuzk_seal_column_proof *c)
{
    jw_s(w, "{\"column\":{\"index\":");
    jw_u64(w, c->index);
    jw_s(w, ",\"rows\":");
    jw_doms(w, c->rows, c->n_rows);
    jw_s(w, ",\"_h\":null},\"inclusion_proof\":");
    jw_merkle(w, &c->inclusion);
    jw_s(w, "}");
}

static void jw_columns(jw *w, const cuzk_seal_column_proof *c, size_t n)
{
    jw_s(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) jw_s(w, ",");
        jw_column(w, &c[i]);
    }
    jw_s(w, "]");
}

static void jw_labeling(jw *w, const cuzk_seal_labeling_proof *l)
{
    jw_s(w, "{\"parents\":");
    jw_doms(w, l->parents, l->n_parents);
    jw_s(w, ",\"layer_index\":");
    jw_u64(w, l->layer_index);
    jw_s(w, ",\"node\":");
    jw_u64(w, l->node);
    jw_s(w, "}");
}

static void jw_proof(jw *w, const cuzk_seal_challenge_proof *p)
{
    jw_s(w, "{\"comm_d_proofs\":");
    jw_merkle(w, &p->comm_d_proof);
    jw_s(w, ",\"comm_r_last_proof\":");
    jw_merkle(w, &p->comm_r_last_proof);
    jw_s(w, ",\"replica_column_proofs\":{\"c_x\":");
    jw_column(w, &p->c_x);
    jw_s(w, ",\"drg_parents\":");
    jw_columns(w, p->drg_parents, CUZK_SEAL_DRG_PARENTS);
    jw_s(w, ",\"exp_parents\":");
    jw_columns(w, p->exp_parents, CUZK_SEAL_EXP_PARENTS);
    jw_s(w, "},\"labeling_proofs\":[");
    for (uint32_t l = 0; l < p->n_layers; l++) {
        if (l) jw_s(w, ",");
        jw_labeling(w, &p->labeling[l]);
    }
    jw_s(w, "],\"encoding_proof\":");
    jw_labeling(w, &p->encoding);
    jw_s(w, "}");
}

int cuzk_seal_c1_write_json(const cuzk_seal_c1 *c1, void *file, char *err, size_t err_len)
{
    if (!c1 || !file || !c1->info || !c1->proofs)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "c1 write: NULL argument");
    /* VanillaSealProof variant: the "...V1" name of the sector size, for
     * every api version and feature (filecoin-proofs-api seal.rs). */
    const char *name = c1->info->name, *v1 = strstr(name, "V1");
    if (!v1) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "c1 write: odd proof name %s", name);
    jw w = {.f = file};
    jw_s(&w, "{\"registered_proof\":\"");
    jw_s(&w, name);
    jw_s(&w, "\",\"vanilla_proofs\":{\"");
    if (fwrite(name, 1, (size_t)(v1 - name) + 2, w.f) != (size_t)(v1 - name) + 2) w.failed = 1;
    jw_s(&w, "\":[");
    for (uint32_t k = 0; k < c1->partitions; k++) {
        jw_s(&w, k ? ",[" : "[");
        for (uint32_t i = 0; i < c1->challenges_per_partition; i++) {
            if (i) jw_s(&w, ",");
            jw_proof(&w, &c1->proofs[(size_t)k * c1->challenges_per_partition + i]);
        }
        jw_s(&w, "]");
    }
    jw_s(&w, "]},\"comm_r\":");
    jw_dom(&w, c1->comm_r);
    jw_s(&w, ",\"comm_d\":");
    jw_dom(&w, c1->comm_d);
    jw_s(&w, ",\"replica_id\":");
    jw_dom(&w, c1->replica_id);
    jw_s(&w, ",\"seed\":");
    jw_dom(&w, c1->seed);
    jw_s(&w, ",\"ticket\":");
    jw_dom(&w, c1->ticket);
    jw_s(&w, "}");
    if (w.failed || ferror((FILE *)file))
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "c1 write: write error");
    return CUZK_OK;
}
