/* Proof-kind provider for SnapDeals (EmptySectorUpdate) over the circuits
 * layer (cuzk/snap.h).  parse takes the request's vanilla_proofs (one
 * bincode PartitionProof per partition, in order; a single vanilla_proof
 * holding Curio's JSON array of base64 proofs is split first), the three
 * commitments, and verifies every partition natively
 * (cuzk_snap_job_new), so a wrong proof is FAILED at submit with the
 * partition and field named.  Curio stores Snap proofs without verifying
 * them: every partition proof is self-verified before it is returned. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/seal_snap.h"
#include "cuzk/snap.h"
#include "engine/engine_internal.h"

static int snap_parse(void *ctx, void **state, char circuit_id[64], size_t *partitions,
                      uint64_t *partition_bytes, const cuzk_engine_request *req, char *err, size_t err_len)
{
    const cuzk_snap_info *info;
    if (cuzk_snap_lookup(&info, req->registered_proof))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "registered_proof %llu is not a registered update proof (0-4)",
                         (unsigned long long)req->registered_proof);
    if (req->sector_size && req->sector_size != info->sector_size) /* 0: proof-share requests */
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sector_size %llu does not match %s (%llu)",
                         (unsigned long long)req->sector_size, info->name,
                         (unsigned long long)info->sector_size);
    if (!req->comm_r_old || !req->comm_r_new || !req->comm_d_new)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "comm_r_old, comm_r_new and comm_d_new (32 bytes each) are required");
    /* Curio sends one bincode PartitionProof per partition in vanilla_proofs;
     * a lone vanilla_proof (e.g. its stored JSON array) is taken too. */
    const uint8_t *const *bufs = req->vanilla_proofs;
    const size_t *lens = req->vanilla_proofs_len;
    size_t n = req->n_vanilla_proofs;
    const uint8_t *one[1] = {req->vanilla_proof};
    size_t one_len[1] = {req->vanilla_proof_len};
    if (!n && req->vanilla_proof_len) bufs = one, lens = one_len, n = 1;
    if (!n) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "no partition proofs in vanilla_proofs");
    cuzk_snap_job *j = NULL;
    int st = cuzk_snap_job_new(&j, info->id, bufs, lens, n, req->comm_r_old, req->comm_d_new, req->comm_r_new,
                               NULL, err, err_len);
    if (st) return st;
    *state = j;
    snprintf(circuit_id, 64, "%s", info->circuit_id);
    *partitions = cuzk_snap_job_partitions(j);
    /* as for PoSt/PoRep: A, B, C grown to the H domain, the assignment, NTT
     * tables, MSM scratch */
    const cuzk_snap_shape *s = cuzk_snap_job_shape(j);
    uint64_t c = cuzk_snap_num_constraints(s) + cuzk_snap_num_inputs(s) + 1, m = 1;
    while (m < c)
        m <<= 1;
    *partition_bytes = eng_partition_bytes(c, m); /* engine_internal.h: measured through H */
    return CUZK_OK;
}

static void snap_free(void *ctx, void *state)
{
    cuzk_snap_job_free(state);
}

static int snap_srs_file(void *ctx, const char *circuit_id, char *file, size_t cap, cuzk_groth16_shape *shape)
{
    const cuzk_snap_info *info;
    char id[200];
    if (cuzk_snap_lookup_circuit(&info, circuit_id) ||
        cuzk_fil_snap_param_id(id, sizeof id, info->sector_size) ||
        cuzk_fil_param_file_name(file, cap, id, "params"))
        return CUZK_ENGINE_ERR_NOT_FOUND;
    if (shape) memset(shape, 0, sizeof *shape); /* the prover checks every count */
    return CUZK_OK;
}

typedef struct {
    cuzk_snap_witness_fn fn;
    void *wctx;
    const cuzk_engine_task *task;
} snap_cancel_wctx;

static int snap_cancellable(void *wctx, size_t i, cuzk_snap_challenge_witness *out, char *err, size_t err_len)
{
    const snap_cancel_wctx *c = wctx;
    if (c->task && cuzk_engine_task_cancelled(c->task))
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_CANCELLED, "cancelled during synthesis");
    return c->fn(c->wctx, i, out, err, err_len);
}

static int snap_synthesize(void *ctx, cuzk_cs *cs, const void *state, size_t k, const cuzk_engine_task *task,
                           char *err, size_t err_len)
{
    cuzk_snap_circuit_ctx *c = malloc(sizeof *c);
    int st = c ? cuzk_snap_job_circuit(c, state, (uint32_t)k) : CUZK_ERR_NOMEM;
    if (st) {
        free(c);
        return cuzk_errf(err, err_len, st, "SnapDeals: partition %zu", k);
    }
    snap_cancel_wctx cw = {c->witness, c->wctx, task};
    void *inner = c->wctx;
    c->witness = snap_cancellable;
    c->wctx = &cw;
    st = cuzk_cs_synthesize(cs, cuzk_snap_circuit, c);
    free(inner);
    free(c);
    if (st) {
        if (task && cuzk_engine_task_cancelled(task)) st = CUZK_ENGINE_ERR_CANCELLED;
        cuzk_errf(err, err_len, st, "SnapDeals synthesis of partition %zu: %s", k, cuzk_cs_error(cs));
    }
    return st;
}

static int snap_inputs(void *ctx, cuzk_fr *out, size_t cap, size_t *n, const void *state, size_t k, char *err,
                       size_t err_len)
{
    size_t have = 0;
    const cuzk_fr *in = cuzk_snap_job_inputs(state, (uint32_t)k, &have);
    return eng_inputs_copy(out, cap, n, in, have, err, err_len);
}

int cuzk_engine_snap_register(cuzk_engine *e)
{
    cuzk_engine_provider p = {.name = "snap-update",
                              .parse = snap_parse,
                              .free_state = snap_free,
                              .srs_file = snap_srs_file,
                              .synthesize = snap_synthesize,
                              .public_inputs = snap_inputs};
    int st = cuzk_engine_register(e, CUZK_PROOF_SNAP, &p);
    for (uint64_t id = 0; !st && id < 5; id++) {
        const cuzk_snap_info *info;
        if (!cuzk_snap_lookup(&info, id)) cuzk_eng_srs_discover(e, info->circuit_id);
    }
    return st;
}
