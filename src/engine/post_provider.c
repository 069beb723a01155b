/* Proof-kind providers for WinningPoSt and WindowPoSt over the circuits
 * layer (cuzk/post.h).  parse decodes the bincode vanilla proofs and
 * verifies them natively (cuzk_post_job_new), so a wrong vanilla proof is
 * FAILED at submit with the reason instead of costing a synthesis; the
 * public inputs used to self-verify each proof are the ones the verifier
 * computes (cuzk_post_job_inputs), not read back from the witness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/post.h"
#include "engine/engine_internal.h"

static int post_parse(bool winning, void **state, char circuit_id[64], size_t *partitions,
                      uint64_t *partition_bytes, const cuzk_engine_request *req, char *err, size_t err_len)
{
    const cuzk_fil_post_info *info;
    if (cuzk_fil_post_lookup(&info, req->registered_proof))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "registered_proof %llu is not a registered PoSt proof",
                         (unsigned long long)req->registered_proof);
    if (info->winning != winning)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "registered_proof %llu (%s) is a %s proof, but the request is %s",
                         (unsigned long long)req->registered_proof, info->name,
                         info->winning ? "WinningPoSt" : "WindowPoSt",
                         winning ? "WINNING_POST" : "WINDOW_POST_PARTITION");
    if (req->sector_size && req->sector_size != info->sector_size)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sector_size %llu does not match %s (%llu)",
                         (unsigned long long)req->sector_size, info->name, (unsigned long long)info->sector_size);
    if (!req->randomness || req->randomness_len != 32)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "randomness must be 32 bytes (got %zu)", req->randomness_len);
    /* Curio sends vanilla_proofs; accept a lone vanilla_proof as one. */
    const uint8_t *const *v = req->vanilla_proofs;
    const size_t *len = req->vanilla_proofs_len;
    size_t n = req->n_vanilla_proofs;
    const uint8_t *one[1];
    size_t one_len[1];
    if (!n && req->vanilla_proof_len) {
        one[0] = req->vanilla_proof;
        one_len[0] = req->vanilla_proof_len;
        v = one;
        len = one_len;
        n = 1;
    }
    if (!n) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "no vanilla proofs in the request");
    /* Before anything is decoded: a partition proves one sector (Winning)
     * or at most circuit_sector_count sectors (Window). */
    size_t most = winning ? 1 : info->circuit_sector_count;
    if (n > most)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%zu vanilla proofs, but a %s partition proves at most %zu sector(s)",
                         n, info->name, most);
    uint8_t pid[32];
    cuzk_post_prover_id(pid, req->miner_id);
    cuzk_post_job *j = NULL;
    int st = cuzk_post_job_new(&j, req->registered_proof, v, len, n, req->randomness, pid,
                               winning ? 0 : req->partition_index, err, err_len);
    if (st) return st;
    *state = j;
    snprintf(circuit_id, 64, "%s", info->circuit_id);
    *partitions = 1;
    /* The cs's A, B, C evaluations at the H domain (m each; the prover
     * transforms them in place, sched.c part_witness), the assignment (c),
     * the NTT domain tables during H; two evaluation vectors with a PCE. */
    uint64_t c = cuzk_post_num_constraints(info) + cuzk_post_num_inputs(info) + 1, m = 1;
    while (m < c)
        m <<= 1;
    *partition_bytes = eng_partition_bytes(c, m); /* engine_internal.h: measured through H */
    return CUZK_OK;
}

static int winning_parse(void *ctx, void **state, char circuit_id[64], size_t *partitions,
                         uint64_t *partition_bytes, const cuzk_engine_request *req, char *err, size_t err_len)
{
    return post_parse(true, state, circuit_id, partitions, partition_bytes, req, err, err_len);
}

static int window_parse(void *ctx, void **state, char circuit_id[64], size_t *partitions,
                        uint64_t *partition_bytes, const cuzk_engine_request *req, char *err, size_t err_len)
{
    return post_parse(false, state, circuit_id, partitions, partition_bytes, req, err, err_len);
}

static void post_free(void *ctx, void *state)
{
    cuzk_post_job_free(state);
}

static int post_srs_file(void *ctx, const char *circuit_id, char *file, size_t cap, cuzk_groth16_shape *shape)
{
    const cuzk_fil_post_info *info;
    char id[200];
    if (cuzk_fil_post_lookup_circuit(&info, circuit_id)) return CUZK_ENGINE_ERR_NOT_FOUND;
    if (cuzk_fil_post_param_id(id, sizeof id, info)) return CUZK_ENGINE_ERR_NOT_FOUND;
    if (cuzk_fil_param_file_name(file, cap, id, "params")) return CUZK_ENGINE_ERR_NOT_FOUND;
    /* The full shape (densities) would need a blank synthesis of up to
     * 125 M constraints; the prover checks every count against the
     * params before proving, so only consistency is checked at load. */
    if (shape) memset(shape, 0, sizeof *shape);
    return CUZK_OK;
}

/* Cancellation inside synthesis: the circuit calls the gate before each
 * of its sectors (post.h), so a cancelled 32 GiB WindowPoSt (2349 sectors
 * of 53,333 constraints) stops within one sector's synthesis instead of
 * running to its end.  The gate may run on several threads at once: it
 * only reads the task's atomic flags. */
static int post_gate(void *task, size_t sector)
{
    (void)sector;
    return cuzk_engine_task_cancelled(task) ? CUZK_ENGINE_ERR_CANCELLED : 0;
}

static int post_synthesize(void *ctx, cuzk_cs *cs, const void *state, size_t k, const cuzk_engine_task *task,
                           char *err, size_t err_len)
{
    cuzk_circuit_fn fn;
    void *cctx;
    cuzk_post_job_circuit(state, &fn, &cctx);
    cuzk_post_circuit_ctx c = *(const cuzk_post_circuit_ctx *)cctx;
    c.gate = task ? post_gate : NULL;
    c.gate_ctx = (void *)task;
    int st = cuzk_cs_synthesize(cs, fn, &c);
    if (st && task && cuzk_engine_task_cancelled(task))
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_CANCELLED, "PoSt synthesis cancelled");
    return st ? cuzk_errf(err, err_len, st, "PoSt synthesis: %s", cuzk_cs_error(cs)) : CUZK_OK;
}

static int post_inputs(void *ctx, cuzk_fr *out, size_t cap, size_t *n, const void *state, size_t k, char *err,
                       size_t err_len)
{
    size_t have = 0;
    const cuzk_fr *in = cuzk_post_job_inputs(state, &have);
    return eng_inputs_copy(out, cap, n, in, have, err, err_len);
}

int cuzk_engine_register_builtin(cuzk_engine *e)
{
    cuzk_engine_provider p = {.name = "winning-post",
                              .parse = winning_parse,
                              .free_state = post_free,
                              .srs_file = post_srs_file,
                              .synthesize = post_synthesize,
                              .public_inputs = post_inputs};
    int st = cuzk_engine_register(e, CUZK_PROOF_WINNING_POST, &p);
    p.name = "window-post";
    p.parse = window_parse;
    if (!st) st = cuzk_engine_register(e, CUZK_PROOF_WINDOW_POST, &p);
    /* The COLD tier lists every PoSt circuit whose params are on disk. */
    const cuzk_fil_post_info *info;
    for (uint64_t id = 0; !st && cuzk_fil_post_lookup(&info, id) == CUZK_OK; id++)
        cuzk_eng_srs_discover(e, info->circuit_id);
    if (!st) st = cuzk_engine_porep_register(e);
    if (!st) st = cuzk_engine_snap_register(e);
    return st;
}
