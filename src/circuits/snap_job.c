/* SnapDeals prover side: every partition proof parsed and verified
 * natively once (cuzk/seal_snap.h), public inputs computed as the verifier
 * does, and a witness provider converting one challenge's paths to Fr
 * values when the circuit asks for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/snap.h"
#include "cuzk/status.h"

struct cuzk_snap_job {
    const cuzk_snap_info *info;
    cuzk_snap_shape shape;
    uint32_t h;
    uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
    cuzk_snap_partition_proof **parts;
    cuzk_fr *inputs; /* partitions x 4 */
};

/* Siblings of path levels [from, to) of a proof's paths (base, sub, top
 * concatenated), arity - 1 each. */
static int siblings(cuzk_fr *out, const cuzk_fil_merkle_proof *p, uint32_t from, uint32_t to,
                    const char *what, char *err, size_t err_len)
{
    uint32_t l = 0;
    size_t o = 0;
    for (uint32_t k = 0; k <= p->kind && k < 3; k++) {
        const cuzk_fil_path *path = &p->path[k];
        for (uint32_t i = 0; i < path->levels; i++, l++) {
            if (l < from || l >= to) continue;
            for (uint32_t h = 0; h + 1 < path->arity; h++, o++)
                if (cuzk_fr_from_bytes_le(&out[o], path->hashes + 32 * ((size_t)i * (path->arity - 1) + h)))
                    return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "%s: level %u is not canonical",
                                     what, l);
        }
    }
    return CUZK_OK;
}

typedef struct {
    const cuzk_snap_job *j;
    uint32_t k;
} snap_wctx;

static int job_witness(void *wctx, size_t i, cuzk_snap_challenge_witness *out, char *err, size_t err_len)
{
    const snap_wctx *w = wctx;
    const cuzk_snap_shape *s = &w->j->shape;
    const cuzk_snap_challenge_proof *c = &w->j->parts[w->k]->challenges[i];
    uint32_t to_apex = s->challenge_bits - s->partition_bits - s->apex_bits;
    int st;
    if (cuzk_fr_from_bytes_le(&out->leaf_r_old, c->r_old.leaf) ||
        cuzk_fr_from_bytes_le(&out->leaf_d_new, c->d_new.leaf))
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "a leaf is not canonical");
    if ((st = siblings(out->r_old, &c->r_old, 0, 64, "proof_r_old", err, err_len)) ||
        (st = siblings(out->r_new, &c->r_new, 0, 64, "proof_r_new", err, err_len)) ||
        (st = siblings(out->d_new, &c->d_new, 0, to_apex, "proof_d_new", err, err_len)))
        return st;
    return CUZK_OK;
}

void cuzk_snap_job_free(cuzk_snap_job *j)
{
    if (!j) return;
    for (uint32_t k = 0; j->parts && k < j->shape.partitions; k++)
        cuzk_snap_partition_free(j->parts[k]);
    free(j->parts);
    free(j->inputs);
    free(j);
}

int cuzk_snap_job_new(cuzk_snap_job **out, uint64_t registered_update_proof, const uint8_t *const *bufs,
                      const size_t *lens, size_t n_bufs, const uint8_t comm_r_old[32],
                      const uint8_t comm_d_new[32], const uint8_t comm_r_new[32], cuzk_par *par, char *err,
                      size_t err_len)
{
    *out = NULL;
    cuzk_snap_job *j = calloc(1, sizeof *j);
    if (!j) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "snap job: out of memory");
    int st = CUZK_OK;
    if (cuzk_snap_lookup(&j->info, registered_update_proof) ||
        cuzk_snap_shape_for(&j->shape, j->info->sector_size, false))
        st = cuzk_errf(err, err_len, CUZK_ERR_ARG, "unknown registered update proof %llu (0-4)",
                       (unsigned long long)registered_update_proof);
    else if (!n_bufs)
        st = cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: no partition proofs", j->info->name);
    if (!st) {
        j->h = j->shape.hs[3];
        memcpy(j->comm_r_old, comm_r_old, 32);
        memcpy(j->comm_d_new, comm_d_new, 32);
        memcpy(j->comm_r_new, comm_r_new, 32);
        j->parts = calloc(j->shape.partitions, sizeof *j->parts);
        j->inputs = calloc((size_t)j->shape.partitions * 4, sizeof *j->inputs);
        if (!j->parts || !j->inputs) st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "snap job: out of memory");
    }
    char e2[512];
    size_t have = 0;
    for (size_t b = 0; !st && b < n_bufs; b++) { /* each buffer: bincode proof(s) or Curio's JSON array */
        cuzk_snap_partition_proof **v = NULL;
        size_t n = 0;
        if (have == j->shape.partitions) {
            st = cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: more partition proofs than its %u partitions",
                           j->info->name, j->shape.partitions);
            break;
        }
        st = cuzk_snap_vanilla_decode(&v, &n, bufs[b], lens[b], &j->shape, j->shape.partitions - have, e2,
                                      sizeof e2);
        if (st) {
            cuzk_errf(err, err_len, st, "vanilla proof %zu: %s", b, e2);
            break;
        }
        for (size_t i = 0; i < n; i++)
            j->parts[have++] = v[i];
        free(v);
    }
    if (!st && have != j->shape.partitions)
        st = cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: %zu partition proofs, the update has %u",
                       j->info->name, have, j->shape.partitions);
    for (uint32_t k = 0; !st && k < j->shape.partitions; k++) {
        st = cuzk_snap_partition_verify(j->parts[k], &j->shape, k, j->h, comm_r_old, comm_d_new, comm_r_new,
                                        e2, sizeof e2);
        if (!st)
            st = cuzk_snap_public_inputs(j->inputs + 4 * k, &j->shape, k, j->h, comm_r_old, comm_d_new,
                                         comm_r_new, e2, sizeof e2);
        if (st) cuzk_errf(err, err_len, st, "partition %u: %s", k, e2);
    }
    if (st) {
        cuzk_snap_job_free(j);
        return st;
    }
    *out = j;
    return CUZK_OK;
}

const cuzk_snap_info *cuzk_snap_job_info(const cuzk_snap_job *j)
{
    return j->info;
}
const cuzk_snap_shape *cuzk_snap_job_shape(const cuzk_snap_job *j)
{
    return &j->shape;
}
uint32_t cuzk_snap_job_partitions(const cuzk_snap_job *j)
{
    return j->shape.partitions;
}

const cuzk_fr *cuzk_snap_job_inputs(const cuzk_snap_job *j, uint32_t k, size_t *n)
{
    *n = 4;
    return j->inputs + 4 * (size_t)k;
}

int cuzk_snap_job_circuit(cuzk_snap_circuit_ctx *out, const cuzk_snap_job *j, uint32_t k)
{
    memset(out, 0, sizeof *out);
    if (k >= j->shape.partitions) return CUZK_ERR_ARG;
    const cuzk_snap_partition_proof *p = j->parts[k];
    const cuzk_snap_shape *s = &j->shape;
    snap_wctx *w = malloc(sizeof *w);
    if (!w) return CUZK_ERR_NOMEM;
    w->j = j;
    w->k = k;
    out->shape = *s;
    out->k = k;
    out->h = j->h;
    const cuzk_fr *in = j->inputs + 4 * (size_t)k;
    out->comm_r_old = in[1], out->comm_d_new = in[2], out->comm_r_new = in[3];
    int st = cuzk_fr_from_bytes_le(&out->comm_c, p->comm_c) ||
             cuzk_fr_from_bytes_le(&out->root_r_old, p->challenges[0].r_old.root) ||
             cuzk_fr_from_bytes_le(&out->root_r_new, p->challenges[0].r_new.root);
    for (uint32_t i = 0; !st && i < s->apex_leaves; i++)
        st = cuzk_fr_from_bytes_le(&out->apex[i], p->apex_leafs + 32 * i);
    uint32_t top = s->challenge_bits - s->partition_bits;
    if (!st)
        st = siblings(out->partition_path, &p->challenges[0].d_new, top, s->challenge_bits, "proof_d_new",
                      NULL, 0);
    if (st) {
        free(w);
        return CUZK_ERR_ENC_NONCANONICAL;
    }
    out->witness = job_witness;
    out->wctx = w;
    return CUZK_OK;
}

int cuzk_snap_job_synthesize(cuzk_cs **out, const cuzk_snap_job *j, uint32_t k, cuzk_cs_mode mode,
                             unsigned flags, char *err, size_t err_len)
{
    return cuzk_snap_job_synthesize_par(out, j, k, mode, flags, NULL, err, err_len);
}

int cuzk_snap_job_synthesize_par(cuzk_cs **out, const cuzk_snap_job *j, uint32_t k, cuzk_cs_mode mode,
                                 unsigned flags, cuzk_par *par, char *err, size_t err_len)
{
    *out = NULL;
    cuzk_snap_circuit_ctx *ctx = malloc(sizeof *ctx);
    int st = ctx ? cuzk_snap_job_circuit(ctx, j, k) : CUZK_ERR_NOMEM;
    if (st) {
        free(ctx);
        return cuzk_errf(err, err_len, st, "snap: partition %u of %u", k, j->shape.partitions);
    }
    cuzk_cs *cs;
    if ((st = cuzk_cs_new(&cs, mode, flags))) {
        free(ctx->wctx);
        free(ctx);
        return cuzk_errf(err, err_len, st, "snap: cannot create the constraint system");
    }
    st = cuzk_cs_set_par(cs, par, 0);
    if (!st) st = cuzk_cs_synthesize(cs, cuzk_snap_circuit, ctx);
    free(ctx->wctx);
    free(ctx);
    if (st) {
        cuzk_errf(err, err_len, st, "snap partition %u: synthesis failed: %s", k, cuzk_cs_error(cs));
        cuzk_cs_free(cs);
        return st;
    }
    size_t n;
    const cuzk_fr *want = cuzk_snap_job_inputs(j, k, &n), *in = cuzk_cs_input_assignment(cs);
    for (size_t i = 0; in && i < n; i++)
        if (!cuzk_fr_eq(&in[i + 1], &want[i])) {
            cuzk_cs_free(cs);
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "snap partition %u: circuit input %zu differs from the computed public input", k,
                             i);
        }
    *out = cs;
    return CUZK_OK;
}
