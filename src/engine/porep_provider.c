/* Proof-kind provider for PoRep C2 over the circuits layer (cuzk/porep.h).
 * parse decodes Curio's C1 (envelope or bare JSON) and verifies every
 * vanilla proof natively (cuzk_porep_job_new), so a wrong C1 is FAILED at
 * submit with the JSON path of the first problem instead of costing ten
 * partition syntheses; each partition is then synthesized, proved and
 * self-verified against the public inputs the verifier computes.  A long
 * synthesis (a 32 GiB partition: 130 M constraints) notices cancellation
 * between challenges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/porep.h"
#include "cuzk/seal.h"
#include "engine/engine_internal.h"

static int porep_parse(void *ctx, void **state, char circuit_id[64], size_t *partitions,
                       uint64_t *partition_bytes, const cuzk_engine_request *req, char *err, size_t err_len)
{
    if (!req->vanilla_proof_len && req->n_vanilla_proofs == 1) { /* accept the list form too */
        cuzk_engine_request r = *req;
        r.vanilla_proof = req->vanilla_proofs[0];
        r.vanilla_proof_len = req->vanilla_proofs_len[0];
        r.n_vanilla_proofs = 0;
        return porep_parse(ctx, state, circuit_id, partitions, partition_bytes, &r, err, err_len);
    }
    if (!req->vanilla_proof_len)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "no C1 output in vanilla_proof (Curio's {\"SectorNum\","
                         "\"Phase1Out\",\"SectorSize\"} envelope or the bare JSON)");
    uint8_t pid[32];
    cuzk_seal_prover_id(pid, req->miner_id);
    cuzk_porep_job *j = NULL;
    /* replica_id is checked against miner and sector when the request names
     * them (Curio always does); the type comes from the C1, as Rust does. */
    int st = cuzk_porep_job_new(&j, (const char *)req->vanilla_proof, req->vanilla_proof_len, UINT64_MAX,
                                req->miner_id ? pid : NULL, req->sector_number, NULL, err, err_len);
    if (st) return st;
    const cuzk_porep_config *cfg = cuzk_porep_job_config(j);
    if (req->registered_proof && req->registered_proof != cfg->info.id) {
        cuzk_porep_job_free(j);
        return cuzk_errf(
            err, err_len, CUZK_ERR_ARG, "registered_proof %llu does not match the C1's %s (%llu)",
            (unsigned long long)req->registered_proof, cfg->info.name, (unsigned long long)cfg->info.id);
    }
    if (req->sector_size && req->sector_size != cfg->info.sector_size) {
        cuzk_porep_job_free(j);
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "sector_size %llu does not match the C1's %s (%llu)",
                         (unsigned long long)req->sector_size, cfg->info.name,
                         (unsigned long long)cfg->info.sector_size);
    }
    /* as for PoSt (post_provider.c): A, B, C grown to the H domain, the
     * assignment, NTT tables, MSM scratch. */
    cuzk_porep_shape s;
    if ((st = cuzk_porep_shape_for(&s, &cfg->info))) {
        cuzk_porep_job_free(j); /* not reached: the job was made from this shape */
        return cuzk_errf(err, err_len, st, "%s: no PoRep circuit shape", cfg->info.name);
    }
    *state = j;
    snprintf(circuit_id, 64, "%s", cfg->info.circuit_id);
    *partitions = cuzk_porep_job_partitions(j);
    uint64_t c = cuzk_porep_num_constraints(&s) + cuzk_porep_num_inputs(&s) + 1, m = 1;
    while (m < c)
        m <<= 1;
    *partition_bytes = eng_partition_bytes(c, m); /* engine_internal.h: measured through H */
    return CUZK_OK;
}

/* Charged to memory.request_budget before the parse: what
 * cuzk_seal_c1_parse may hold for this C1 (its tree bounded at 3 bytes a
 * byte of JSON, the envelope's decoded copy, the output), not the 2x of a
 * bincode decoder. */
static uint64_t porep_parse_bytes(void *ctx, const cuzk_engine_request *req)
{
    (void)ctx;
    size_t len = req->vanilla_proof_len;
    if (!len && req->n_vanilla_proofs == 1) len = req->vanilla_proofs_len[0];
    return cuzk_seal_c1_parse_bytes(len);
}

static void porep_free(void *ctx, void *state)
{
    cuzk_porep_job_free(state);
}

/* The V1_1 entry of a circuit id: every seal proof of one size shares
 * the circuit and its parameters (the porep_id is not part of them). */
static const cuzk_fil_seal_info *porep_info(const char *circuit_id)
{
    const cuzk_fil_seal_info *info;
    for (uint64_t id = 5; id < 10; id++)
        if (!cuzk_fil_seal_lookup(&info, id) && !strcmp(info->circuit_id, circuit_id)) return info;
    return NULL;
}

static int porep_srs_file(void *ctx, const char *circuit_id, char *file, size_t cap,
                          cuzk_groth16_shape *shape)
{
    const cuzk_fil_seal_info *info = porep_info(circuit_id);
    char id[200];
    if (!info || cuzk_fil_seal_param_id(id, sizeof id, info) ||
        cuzk_fil_param_file_name(file, cap, id, "params"))
        return CUZK_ENGINE_ERR_NOT_FOUND;
    if (shape) memset(shape, 0, sizeof *shape); /* the prover checks every count */
    return CUZK_OK;
}

typedef struct {
    cuzk_porep_witness_fn fn;
    void *wctx;
    const cuzk_engine_task *task;
} cancel_wctx;

static int cancellable_witness(void *wctx, size_t i, cuzk_porep_challenge_witness *out, char *err,
                               size_t err_len)
{
    const cancel_wctx *c = wctx;
    if (c->task && cuzk_engine_task_cancelled(c->task))
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_CANCELLED, "cancelled during synthesis");
    return c->fn(c->wctx, i, out, err, err_len);
}

static int porep_synthesize(void *ctx, cuzk_cs *cs, const void *state, size_t k, const cuzk_engine_task *task,
                            char *err, size_t err_len)
{
    cuzk_porep_circuit_ctx c;
    int st = cuzk_porep_job_circuit(&c, state, (uint32_t)k);
    if (st) return cuzk_errf(err, err_len, st, "PoRep: partition %zu", k);
    cancel_wctx cw = {c.witness, c.wctx, task};
    void *inner = c.wctx;
    c.witness = cancellable_witness;
    c.wctx = &cw;
    st = cuzk_cs_synthesize(cs, cuzk_porep_circuit, &c);
    free(inner);
    if (st) {
        if (task && cuzk_engine_task_cancelled(task)) st = CUZK_ENGINE_ERR_CANCELLED;
        cuzk_errf(err, err_len, st, "PoRep synthesis of partition %zu: %s", k, cuzk_cs_error(cs));
    }
    return st;
}

static int porep_inputs(void *ctx, cuzk_fr *out, size_t cap, size_t *n, const void *state, size_t k,
                        char *err, size_t err_len)
{
    size_t have = 0;
    const cuzk_fr *in = cuzk_porep_job_inputs(state, (uint32_t)k, &have);
    return eng_inputs_copy(out, cap, n, in, have, err, err_len);
}

int cuzk_engine_porep_register(cuzk_engine *e)
{
    cuzk_engine_provider p = {.name = "porep-c2",
                              .parse = porep_parse,
                              .parse_bytes = porep_parse_bytes,
                              .free_state = porep_free,
                              .srs_file = porep_srs_file,
                              .synthesize = porep_synthesize,
                              .public_inputs = porep_inputs};
    int st = cuzk_engine_register(e, CUZK_PROOF_POREP, &p);
    for (uint64_t id = 5; !st && id < 10; id++) {
        const cuzk_fil_seal_info *info;
        if (!cuzk_fil_seal_lookup(&info, id)) cuzk_eng_srs_discover(e, info->circuit_id);
    }
    return st;
}
