/* PoRep public inputs (storage-proofs-porep stacked/circuit/proof.rs
 * StackedCompound::generate_public_inputs) and verify_seal; see
 * cuzk/porep.h.  Everything is recomputed from the sector's public values:
 * replica_id, the partition's challenges (interactive, synthetic or NI),
 * and each challenge's 14 parents from the porep_id's graph. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/porep.h"
#include "cuzk/seal.h"
#include "cuzk/seal_graph.h"
#include "cuzk/status.h"

int cuzk_porep_config_for(cuzk_porep_config *out, uint64_t registered_proof, char *err, size_t err_len)
{
    const cuzk_fil_seal_info *info;
    memset(out, 0, sizeof *out);
    if (cuzk_fil_seal_lookup(&info, registered_proof))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "unknown registered seal proof %llu",
                         (unsigned long long)registered_proof);
    out->info = *info;
    cuzk_fil_seal_porep_id(out->porep_id, info);
    return CUZK_OK;
}

int cuzk_porep_config_custom(cuzk_porep_config *out, uint64_t sector_size, const uint8_t porep_id[32],
                             int api_version, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (api_version < CUZK_FIL_API_V1_0 || api_version > CUZK_FIL_API_V1_2)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "unknown api version %d", api_version);
    for (uint64_t id = 5; id < 10; id++) { /* V1_1: the plain interactive shapes */
        const cuzk_fil_seal_info *info;
        if (cuzk_fil_seal_lookup(&info, id) || info->sector_size != sector_size) continue;
        out->info = *info;
        out->info.api_version = api_version;
        memcpy(out->porep_id, porep_id, 32);
        return CUZK_OK;
    }
    return cuzk_errf(err, err_len, CUZK_ERR_ARG, "no PoRep of sector size %llu bytes",
                     (unsigned long long)sector_size);
}

static void put_u64(cuzk_fr *out, uint64_t v)
{
    cuzk_fr_from_u64(out, v);
}

int cuzk_porep_public_inputs_replica(cuzk_fr *out, size_t cap, size_t *n_out, const cuzk_porep_config *cfg,
                                     const uint8_t replica[32], const uint8_t comm_d[32],
                                     const uint8_t comm_r[32], const uint8_t seed[32], uint32_t partition,
                                     const cuzk_seal_graph *graph, char *err, size_t err_len)
{
    cuzk_porep_shape shape;
    int st = cuzk_porep_shape_for(&shape, &cfg->info);
    if (st) return cuzk_errf(err, err_len, st, "no circuit shape for %s", cfg->info.name);
    size_t need = cuzk_porep_num_inputs(&shape);
    if (cap < need)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "public inputs: room for %zu, need %zu", cap, need);
    if (partition >= cfg->info.partitions)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "partition %u of %u", partition, cfg->info.partitions);
    if ((st = cuzk_fil_domain_to_fr(&out[0], replica, "replica_id", err, err_len)) ||
        (st = cuzk_fil_domain_to_fr(&out[1], comm_d, "comm_d", err, err_len)) ||
        (st = cuzk_fil_domain_to_fr(&out[2], comm_r, "comm_r", err, err_len)))
        return st;
    uint64_t ch[64];
    if (shape.challenges > 64) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "too many challenges");
    st = cuzk_seal_challenges(ch, 64, &cfg->info, replica, seed, comm_r, partition, err, err_len);
    if (st) return st;
    cuzk_seal_graph own;
    const cuzk_seal_graph *g = graph;
    if (!g) {
        if ((st = cuzk_seal_graph_init(&own, shape.nodes, cfg->porep_id, cfg->info.api_version, NULL, err,
                                       err_len)))
            return st;
        g = &own;
    } else if (g->nodes != shape.nodes) {
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "public inputs: graph of %llu nodes, %s has %llu",
                         (unsigned long long)g->nodes, cfg->info.name, (unsigned long long)shape.nodes);
    }
    size_t n = 3;
    for (uint32_t i = 0; i < shape.challenges; i++) {
        uint32_t par[CUZK_SEAL_GRAPH_PARENTS];
        cuzk_seal_graph_parents(g, ch[i], par);
        put_u64(&out[n++], ch[i]);
        for (int k = 0; k < CUZK_SEAL_GRAPH_PARENTS; k++)
            put_u64(&out[n++], par[k]);
        for (int k = 0; k < 3; k++)
            put_u64(&out[n++], ch[i]);
    }
    if (g == &own) cuzk_seal_graph_free(&own);
    *n_out = n;
    return CUZK_OK;
}

int cuzk_porep_public_inputs(cuzk_fr *out, size_t cap, size_t *n_out, const cuzk_porep_config *cfg,
                             const cuzk_porep_sector *sector, uint32_t partition, uint8_t replica_out[32],
                             char *err, size_t err_len)
{
    uint8_t replica[32];
    cuzk_seal_replica_id(replica, sector->prover_id, sector->sector_id, sector->ticket, sector->comm_d,
                         cfg->porep_id);
    if (replica_out) memcpy(replica_out, replica, 32);
    return cuzk_porep_public_inputs_replica(out, cap, n_out, cfg, replica, sector->comm_d, sector->comm_r,
                                            sector->seed, partition, NULL, err, err_len);
}

int cuzk_porep_verify(bool *valid, const cuzk_groth16_vk *vk, const cuzk_porep_config *cfg,
                      const cuzk_porep_sector *sector, const uint8_t *proofs, size_t proofs_len, char *err,
                      size_t err_len)
{
    *valid = false;
    if (!vk || !cfg || !sector || !proofs)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "verify: NULL argument");
    cuzk_porep_shape shape;
    int st = cuzk_porep_shape_for(&shape, &cfg->info);
    if (st) return cuzk_errf(err, err_len, st, "no circuit shape for %s", cfg->info.name);
    size_t parts = cfg->info.partitions, need = cuzk_porep_num_inputs(&shape);
    if (proofs_len != parts * CUZK_G16_PROOF_BYTES)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: proof is %zu bytes, want %zu partitions x %d = %zu",
                         cfg->info.name, proofs_len, parts, CUZK_G16_PROOF_BYTES,
                         parts * CUZK_G16_PROOF_BYTES);
    if (vk->n_ic != need + 1)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "verifying key has %zu IC points, %s needs %zu",
                         vk->n_ic, cfg->info.name, need + 1);
    cuzk_fr *in = malloc(parts * need * sizeof *in);
    if (!in) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "verify: no memory for %zu inputs", parts * need);
    size_t n = 0;
    uint8_t replica[32];
    cuzk_seal_replica_id(replica, sector->prover_id, sector->sector_id, sector->ticket, sector->comm_d,
                         cfg->porep_id);
    cuzk_seal_graph g; /* one graph for every partition (its tables cost ~0.1 s at 32 GiB) */
    st = cuzk_seal_graph_init(&g, shape.nodes, cfg->porep_id, cfg->info.api_version, NULL, err, err_len);
    for (uint32_t k = 0; k < parts && !st; k++)
        st = cuzk_porep_public_inputs_replica(in + k * need, need, &n, cfg, replica, sector->comm_d,
                                              sector->comm_r, sector->seed, k, &g, err, err_len);
    cuzk_seal_graph_free(&g);
    if (!st) {
        cuzk_groth16_pvk pvk;
        cuzk_groth16_pvk_prepare(&pvk, vk);
        st = cuzk_groth16_verify_batch(valid, &pvk, (const uint8_t(*)[CUZK_G16_PROOF_BYTES])proofs, parts, in,
                                       need, err, err_len);
        if (!st && !*valid)
            cuzk_errf(err, err_len, CUZK_OK,
                      "%s: the proof does not verify for these inputs (%zu partitions)", cfg->info.name,
                      parts);
    }
    free(in);
    return st;
}
