/* PoRep C2 prover side: a C1 parsed and natively verified once
 * (cuzk/seal_c1.h), its public inputs computed per partition by the same
 * code the verifier uses (not read back from the witness), and a witness
 * provider that converts one challenge's vanilla proof to Fr values when
 * the circuit asks for it -- so a 32 GiB partition never holds more than
 * one challenge's witness beside the constraint system. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/porep.h"
#include "cuzk/seal_c1.h"
#include "cuzk/status.h"

struct cuzk_porep_job {
    cuzk_seal_c1 *c1;
    cuzk_porep_config cfg;
    cuzk_porep_shape shape;
    size_t n_inputs;
    cuzk_fr *inputs; /* partitions x n_inputs */
    cuzk_fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
};

typedef struct {
    const cuzk_porep_job *j;
    uint32_t partition;
} job_wctx;

/* Flatten a Merkle proof's paths (base, sub, top) into a path witness. */
static int path_witness(cuzk_porep_path_witness *out, const cuzk_fil_merkle_proof *p, const cuzk_por_shape *s,
                        const char *what, char *err, size_t err_len)
{
    uint32_t want_kind = s->top_arity   ? CUZK_FIL_PROOF_TOP
                         : s->sub_arity ? CUZK_FIL_PROOF_SUB
                                        : CUZK_FIL_PROOF_SINGLE;
    const uint32_t ar[3] = {s->base_arity, s->sub_arity, s->top_arity}, lv[3] = {s->base_levels, 1, 1};
    if (p->kind != want_kind)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: proof kind %u, the tree needs %u", what, p->kind,
                         want_kind);
    size_t o = 0, l = 0;
    for (uint32_t k = 0; k <= want_kind; k++) {
        const cuzk_fil_path *path = &p->path[k];
        if (path->levels != lv[k] || path->arity != ar[k])
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                             "%s: path %u has %u levels of arity %u, want %u of %u", what, k, path->levels,
                             path->arity, lv[k], ar[k]);
        for (uint32_t i = 0; i < path->levels; i++, l++) {
            if (path->index[i] >= path->arity)
                return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: level %zu index %llu >= arity %u", what,
                                 l, (unsigned long long)path->index[i], path->arity);
            out->index[l] = (uint32_t)path->index[i];
            for (uint32_t h = 0; h + 1 < path->arity; h++, o++)
                if (cuzk_fr_from_bytes_le(&out->sib[o],
                                          path->hashes + 32 * ((size_t)i * (path->arity - 1) + h)))
                    return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL,
                                     "%s: level %zu hash %u is not canonical", what, l, h);
        }
    }
    return CUZK_OK;
}

static int column_witness(cuzk_porep_column_witness *out, const cuzk_seal_column_proof *c,
                          const cuzk_porep_shape *s, const char *what, char *err, size_t err_len)
{
    if (c->n_rows != s->layers)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: %u rows, want %u", what, c->n_rows, s->layers);
    for (uint32_t l = 0; l < s->layers; l++)
        if (cuzk_fr_from_bytes_le(&out->rows[l], c->rows + 32 * l))
            return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "%s: row %u is not canonical", what, l);
    return path_witness(&out->path, &c->inclusion, &s->tree, what, err, err_len);
}

static int job_witness(void *wctx, size_t i, cuzk_porep_challenge_witness *out, char *err, size_t err_len)
{
    const job_wctx *w = wctx;
    const cuzk_porep_job *j = w->j;
    const cuzk_porep_shape *s = &j->shape;
    const cuzk_seal_challenge_proof *p = &j->c1->proofs[(size_t)w->partition * s->challenges + i];
    cuzk_por_shape d = {2, s->comm_d_levels, 0, 0};
    int st;
    if (!p->n_layers) return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "no labeling proofs");
    out->challenge = p->labeling[0].node;
    if (cuzk_fr_from_bytes_le(&out->data_leaf, p->comm_d_proof.leaf))
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "comm_d_proofs.leaf is not canonical");
    if ((st = path_witness(&out->comm_d, &p->comm_d_proof, &d, "comm_d_proofs", err, err_len))) return st;
    char what[64];
    for (int k = 0; k < CUZK_POREP_DRG; k++) {
        snprintf(what, sizeof what, "drg_parents[%d]", k);
        if ((st = column_witness(&out->drg[k], &p->drg_parents[k], s, what, err, err_len))) return st;
    }
    for (int k = 0; k < CUZK_POREP_EXP; k++) {
        snprintf(what, sizeof what, "exp_parents[%d]", k);
        if ((st = column_witness(&out->exp[k], &p->exp_parents[k], s, what, err, err_len))) return st;
    }
    if ((st = path_witness(&out->comm_r_last, &p->comm_r_last_proof, &s->tree, "comm_r_last_proof", err,
                           err_len)))
        return st;
    return path_witness(&out->comm_c, &p->c_x.inclusion, &s->tree, "c_x.inclusion_proof", err, err_len);
}

void cuzk_porep_job_free(cuzk_porep_job *j)
{
    if (!j) return;
    cuzk_seal_c1_free(j->c1);
    free(j->inputs);
    free(j);
}

/* The circuit's public values and every partition's public inputs, the
 * parents from g (the graph the C1 was verified with). */
static int job_values(cuzk_porep_job *j, const cuzk_seal_graph *g, char *err, size_t err_len)
{
    const cuzk_seal_c1 *c = j->c1;
    int st;
    if ((st = cuzk_fil_domain_to_fr(&j->replica_id, c->replica_id, "replica_id", err, err_len)) ||
        (st = cuzk_fil_domain_to_fr(&j->comm_d, c->comm_d, "comm_d", err, err_len)) ||
        (st = cuzk_fil_domain_to_fr(&j->comm_r, c->comm_r, "comm_r", err, err_len)) ||
        (st = cuzk_fil_domain_to_fr(&j->comm_r_last, c->proofs[0].comm_r_last_proof.root,
                                    "vanilla_proofs[0][0].comm_r_last_proof.root", err, err_len)) ||
        (st = cuzk_fil_domain_to_fr(&j->comm_c, c->proofs[0].c_x.inclusion.root,
                                    "vanilla_proofs[0][0].replica_column_proofs.c_x.inclusion_proof.root",
                                    err, err_len)))
        return st;
    j->n_inputs = cuzk_porep_num_inputs(&j->shape);
    j->inputs = calloc((size_t)c->partitions * j->n_inputs, sizeof *j->inputs);
    if (!j->inputs)
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "porep job: no memory for the public inputs");
    for (uint32_t k = 0; k < c->partitions && !st; k++) {
        size_t n = 0;
        st = cuzk_porep_public_inputs_replica(j->inputs + k * j->n_inputs, j->n_inputs, &n, &j->cfg,
                                              c->replica_id, c->comm_d, c->comm_r, c->seed, k, g, err,
                                              err_len);
    }
    return st;
}

int cuzk_porep_job_new(cuzk_porep_job **out, const char *json, size_t len, uint64_t expected_registered_proof,
                       const uint8_t *prover_id, uint64_t sector_id, cuzk_par *par, char *err, size_t err_len)
{
    *out = NULL;
    cuzk_porep_job *j = calloc(1, sizeof *j);
    if (!j) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "porep job: out of memory");
    int st = cuzk_seal_c1_parse(&j->c1, json, len, expected_registered_proof, err, err_len);
    if (!st) st = cuzk_porep_config_for(&j->cfg, j->c1->registered_proof, err, err_len);
    if (!st && (st = cuzk_porep_shape_for(&j->shape, &j->cfg.info)))
        cuzk_errf(err, err_len, st, "%s: no circuit shape", j->cfg.info.name);
    if (!st && (j->c1->partitions != j->cfg.info.partitions ||
                j->c1->challenges_per_partition != j->shape.challenges))
        st = cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                       "vanilla_proofs: %u partitions x %u challenges, %s has %u x %u", j->c1->partitions,
                       j->c1->challenges_per_partition, j->cfg.info.name, j->cfg.info.partitions,
                       j->shape.challenges);
    cuzk_seal_graph g = {0}; /* built once (~0.1 s at 32 GiB): the C1 check and the inputs */
    if (!st) st = cuzk_seal_graph_init_for_proof(&g, j->c1->info, par, err, err_len);
    if (!st) st = cuzk_seal_c1_verify_graph(j->c1, &g, prover_id, sector_id, par, err, err_len);
    if (!st) st = job_values(j, &g, err, err_len);
    cuzk_seal_graph_free(&g);
    if (st) {
        cuzk_porep_job_free(j);
        return st;
    }
    *out = j;
    return CUZK_OK;
}

const cuzk_porep_config *cuzk_porep_job_config(const cuzk_porep_job *j)
{
    return &j->cfg;
}
uint32_t cuzk_porep_job_partitions(const cuzk_porep_job *j)
{
    return j->c1->partitions;
}

const cuzk_fr *cuzk_porep_job_inputs(const cuzk_porep_job *j, uint32_t k, size_t *n)
{
    *n = j->n_inputs;
    return j->inputs + (size_t)k * j->n_inputs;
}

/* The context is returned by value; its wctx lives in the job's per-call
 * storage, so it is allocated here and freed by the synthesize wrapper. */
int cuzk_porep_job_circuit(cuzk_porep_circuit_ctx *out, const cuzk_porep_job *j, uint32_t k)
{
    memset(out, 0, sizeof *out);
    if (k >= j->c1->partitions) return CUZK_ERR_ARG;
    job_wctx *w = malloc(sizeof *w);
    if (!w) return CUZK_ERR_NOMEM;
    w->j = j;
    w->partition = k;
    out->shape = j->shape;
    out->replica_id = j->replica_id;
    out->comm_d = j->comm_d;
    out->comm_r = j->comm_r;
    out->comm_r_last = j->comm_r_last;
    out->comm_c = j->comm_c;
    out->witness = job_witness;
    out->wctx = w;
    return CUZK_OK;
}

int cuzk_porep_job_synthesize(cuzk_cs **out, const cuzk_porep_job *j, uint32_t k, cuzk_cs_mode mode,
                              unsigned flags, char *err, size_t err_len)
{
    return cuzk_porep_job_synthesize_par(out, j, k, mode, flags, NULL, err, err_len);
}

int cuzk_porep_job_synthesize_par(cuzk_cs **out, const cuzk_porep_job *j, uint32_t k, cuzk_cs_mode mode,
                                  unsigned flags, cuzk_par *par, char *err, size_t err_len)
{
    *out = NULL;
    cuzk_porep_circuit_ctx ctx;
    int st = cuzk_porep_job_circuit(&ctx, j, k);
    if (st) return cuzk_errf(err, err_len, st, "porep: partition %u of %u", k, j->c1->partitions);
    cuzk_cs *cs;
    if ((st = cuzk_cs_new(&cs, mode, flags))) {
        free(ctx.wctx);
        return cuzk_errf(err, err_len, st, "porep: cannot create the constraint system");
    }
    size_t nc = cuzk_porep_num_constraints(&j->shape);
    st = cuzk_cs_reserve(cs, nc + j->n_inputs + 1, j->n_inputs + 1, nc);
    if (!st) st = cuzk_cs_set_par(cs, par, 0);
    if (!st) st = cuzk_cs_synthesize(cs, cuzk_porep_circuit, &ctx);
    free(ctx.wctx);
    if (st) {
        cuzk_errf(err, err_len, st, "porep partition %u: synthesis failed: %s", k, cuzk_cs_error(cs));
        cuzk_cs_free(cs);
        return st;
    }
    size_t n;
    const cuzk_fr *want = cuzk_porep_job_inputs(j, k, &n), *in = cuzk_cs_input_assignment(cs);
    for (size_t i = 0; in && i < n; i++)
        if (!cuzk_fr_eq(&in[i + 1], &want[i])) {
            cuzk_cs_free(cs);
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "porep partition %u: circuit input %zu differs from the computed public input",
                             k, i);
        }
    *out = cs;
    return CUZK_OK;
}

int cuzk_porep_job_prove(uint8_t *proofs, const cuzk_porep_job *j, const cuzk_groth16_params *params,
                         const cuzk_groth16_prove_opts *opts, char *err, size_t err_len)
{
    for (uint32_t k = 0; k < j->c1->partitions; k++) {
        cuzk_cs *cs;
        int st = cuzk_porep_job_synthesize(&cs, j, k, CUZK_CS_PROVE, 0, err, err_len);
        if (st) return st;
        char what[48];
        snprintf(what, sizeof what, "porep partition %u", k);
        st = cuzk_groth16_prove_cs(proofs + (size_t)k * CUZK_G16_PROOF_BYTES, params, cs, opts, what, err,
                                   err_len);
        cuzk_cs_free(cs);
        if (st) return st;
    }
    return CUZK_OK;
}
