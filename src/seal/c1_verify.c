/* Native verification of a parsed C1 (the vanilla half of verify_seal):
 * storage-proofs-porep stacked/vanilla proof_scheme.rs
 * verify_all_partitions and params.rs Proof::verify, in their order, plus
 * the consistency the circuit relies on and Rust leaves unchecked (the
 * labeling/encoding proofs' own fields equal to what the columns say, the
 * column index equal to the node it opens).
 *
 * Order: comm_r = Poseidon2(comm_c, comm_r_last) from the first proof,
 * replica_id (when the prover is known), the challenges re-derived per
 * partition; then per challenge: same comm_c and comm_r_last as the first
 * proof, the comm_d path (valid, root comm_d, leaf = challenge), the
 * column openings of the challenge and its 14 graph parents (index, root,
 * leaf = column hash, path, leaf index), the comm_r_last path, the labels
 * of every layer recomputed from the parents' rows, and the encoding
 * (comm_r_last leaf = last label + comm_d leaf).  Challenges run in
 * parallel; the failure reported is the first in (partition, challenge)
 * order, so the message does not depend on scheduling. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/ff.h"
#include "cuzk/seal.h"
#include "cuzk/seal_c1.h"
#include "cuzk/seal_graph.h"
#include "cuzk/status.h"

#define C1V_MSG 320

typedef struct {
    const cuzk_seal_c1 *c1;
    const cuzk_seal_graph *g;
    const uint64_t *challenges; /* partitions * cpp */
    uint8_t comm_c[32], comm_r_last[32];
    int *status; /* per challenge */
    char *msg;   /* per challenge, C1V_MSG bytes each */
    /* challenge derivation, one task per partition */
    int *pstatus;
    char *pmsg;
    uint64_t *pchal;
} c1v_ctx;

static const char *const variant[3] = {"Single", "Sub", "Top"};

static int vfail(char *msg, int st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int vfail(char *msg, int st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, C1V_MSG, fmt, ap);
    va_end(ap);
    return st;
}

/* A Poseidon (tree R / tree C) or SHA-256 (tree D) path: hashes to its
 * root, and opens leaf `expect`. */
static int check_path(char *msg, const char *where, const cuzk_fil_merkle_proof *p, bool sha, uint64_t expect)
{
    bool ok = false;
    uint64_t idx = 0;
    char e[200] = "";
    int st = sha ? cuzk_fil_merkle_verify_sha256(&ok, &idx, p, e, sizeof e)
                 : cuzk_fil_merkle_verify_poseidon(&ok, &idx, p, e, sizeof e);
    if (st) return vfail(msg, st, "%s: %s", where, e);
    if (!ok)
        return vfail(msg, CUZK_ERR_ARG, "%s.data.%s.path: mismatch: the path does not hash to root", where,
                     variant[p->kind]);
    if (idx != expect)
        return vfail(msg, CUZK_ERR_ARG,
                     "%s.data.%s.path: leaf index mismatch: opens node %llu, expected %llu", where,
                     variant[p->kind], (unsigned long long)idx, (unsigned long long)expect);
    return CUZK_OK;
}

/* ReplicaColumnProof entry: ColumnProof::verify plus the column's index. */
static int check_column(char *msg, const c1v_ctx *c, const char *where, const cuzk_seal_column_proof *col,
                        uint64_t node)
{
    char w[160], e[200] = "";
    uint8_t h[32];
    snprintf(w, sizeof w, "%s.inclusion_proof", where);
    if (col->n_rows != c->c1->info->layers || !col->rows)
        return vfail(msg, CUZK_ERR_ARG, "%s.column.rows: %u rows, expected %u (layers)", where, col->n_rows,
                     c->c1->info->layers);
    if (col->index != node)
        return vfail(msg, CUZK_ERR_ARG, "%s.column.index: mismatch: %u, expected node %llu", where,
                     col->index, (unsigned long long)node);
    if (memcmp(col->inclusion.root, c->comm_c, 32))
        return vfail(msg, CUZK_ERR_ARG,
                     "%s.data.%s.root: mismatch: not comm_c (the root of vanilla_proofs[0][0]'s c_x)", w,
                     variant[col->inclusion.kind]);
    int st = cuzk_seal_column_hash(h, col->rows, col->n_rows, e, sizeof e);
    if (st) return vfail(msg, st, "%s.column.rows: %s", where, e);
    if (memcmp(h, col->inclusion.leaf, 32))
        return vfail(msg, CUZK_ERR_ARG, "%s.data.%s.leaf: mismatch: not the column hash of the rows", w,
                     variant[col->inclusion.kind]);
    return check_path(msg, w, &col->inclusion, false, node);
}

static int check_columns(char *msg, const c1v_ctx *c, const cuzk_seal_challenge_proof *p, uint64_t challenge)
{
    uint32_t drg[CUZK_SEAL_DRG_PARENTS], exp[CUZK_SEAL_EXP_PARENTS];
    char w[96];
    cuzk_seal_graph_drg_parents(c->g, challenge, drg);
    cuzk_seal_graph_exp_parents(c->g, challenge, exp);
    int st = check_column(msg, c, ".replica_column_proofs.c_x", &p->c_x, challenge);
    for (int j = 0; !st && j < CUZK_SEAL_DRG_PARENTS; j++) {
        snprintf(w, sizeof w, ".replica_column_proofs.drg_parents[%d]", j);
        st = check_column(msg, c, w, &p->drg_parents[j], drg[j]);
    }
    for (int j = 0; !st && j < CUZK_SEAL_EXP_PARENTS; j++) {
        snprintf(w, sizeof w, ".replica_column_proofs.exp_parents[%d]", j);
        st = check_column(msg, c, w, &p->exp_parents[j], exp[j]);
    }
    return st;
}

/* The parents' labels of layer `layer` (1-based) as the columns hold them:
 * DRG parents from the same layer, expander parents from the one below. */
static size_t column_parents(uint8_t *out, const cuzk_seal_challenge_proof *p, uint32_t layer)
{
    size_t n = 0;
    for (int j = 0; j < CUZK_SEAL_DRG_PARENTS; j++)
        memcpy(out + 32 * n++, p->drg_parents[j].rows + (size_t)(layer - 1) * 32, 32);
    if (layer > 1)
        for (int j = 0; j < CUZK_SEAL_EXP_PARENTS; j++)
            memcpy(out + 32 * n++, p->exp_parents[j].rows + (size_t)(layer - 2) * 32, 32);
    return n;
}

/* A labeling (or encoding) proof states layer, node and the parents
 * repeated to its n_parents: all must equal the columns'. */
static int check_label_fields(char *msg, const char *where, const cuzk_seal_labeling_proof *lp,
                              uint32_t layer, uint64_t node, const uint8_t *par, size_t n)
{
    if (lp->layer_index != layer)
        return vfail(msg, CUZK_ERR_ARG, "%s.layer_index: mismatch: %u, expected %u", where, lp->layer_index,
                     layer);
    if (lp->node != node)
        return vfail(msg, CUZK_ERR_ARG, "%s.node: mismatch: %llu, expected the challenge %llu", where,
                     (unsigned long long)lp->node, (unsigned long long)node);
    for (uint32_t k = 0; k < lp->n_parents; k++)
        if (memcmp(lp->parents + (size_t)k * 32, par + (k % n) * 32, 32))
            return vfail(msg, CUZK_ERR_ARG,
                         "%s.parents[%u]: mismatch: not the label of parent %zu in the column proofs", where,
                         k, k % n);
    return CUZK_OK;
}

static int check_labels(char *msg, const cuzk_seal_c1 *c1, const cuzk_seal_challenge_proof *p,
                        uint64_t challenge)
{
    uint8_t par[14 * 32], label[32];
    char w[64];
    if (p->n_layers != c1->info->layers || p->c_x.n_rows != c1->info->layers)
        return vfail(msg, CUZK_ERR_ARG, ".labeling_proofs: %u layers, expected %u", p->n_layers,
                     c1->info->layers);
    for (uint32_t l = 1; l <= p->n_layers; l++) {
        size_t n = column_parents(par, p, l);
        snprintf(w, sizeof w, ".labeling_proofs[%u]", l - 1);
        int st = check_label_fields(msg, w, &p->labeling[l - 1], l, challenge, par, n);
        if (st) return st;
        cuzk_seal_label(label, c1->replica_id, l, challenge, par, n);
        if (memcmp(label, p->c_x.rows + (size_t)(l - 1) * 32, 32))
            return vfail(msg, CUZK_ERR_ARG,
                         ".replica_column_proofs.c_x.column.rows[%u]: label mismatch: not the label "
                         "of layer %u recomputed from the parents' rows",
                         l - 1, l);
    }
    return CUZK_OK;
}

/* EncodingProof::verify: comm_r_last leaf = key + data (in Fr), key = the
 * last layer's label (c_x's last row), data = the comm_d leaf. */
static int check_encoding(char *msg, const cuzk_seal_c1 *c1, const cuzk_seal_challenge_proof *p,
                          uint64_t challenge)
{
    uint32_t L = p->n_layers;
    uint8_t par[14 * 32], enc[32];
    size_t n = column_parents(par, p, L);
    int st = check_label_fields(msg, ".encoding_proof", &p->encoding, L, challenge, par, n);
    if (st) return st;
    cuzk_fr key, data;
    if (cuzk_fr_from_bytes_le(&key, p->c_x.rows + (size_t)(L - 1) * 32) ||
        cuzk_fr_from_bytes_le(&data, p->comm_d_proof.leaf))
        return vfail(msg, CUZK_ERR_ENC_NONCANONICAL, ".encoding_proof: key or data >= r");
    cuzk_fr_add(&key, &key, &data);
    cuzk_fr_to_bytes_le(enc, &key);
    if (memcmp(enc, p->comm_r_last_proof.leaf, 32))
        return vfail(msg, CUZK_ERR_ARG,
                     ".comm_r_last_proof.data.%s.leaf: encoding mismatch: not the last label + the "
                     "comm_d leaf",
                     variant[p->comm_r_last_proof.kind]);
    return CUZK_OK;
}

static int check_challenge(char *msg, const c1v_ctx *c, size_t j)
{
    const cuzk_seal_c1 *c1 = c->c1;
    const cuzk_seal_challenge_proof *p = &c1->proofs[j];
    uint64_t ch = c->challenges[j];
    if (memcmp(p->c_x.inclusion.root, c->comm_c, 32))
        return vfail(msg, CUZK_ERR_ARG,
                     ".replica_column_proofs.c_x.inclusion_proof.data.%s.root: mismatch: comm_c "
                     "differs from vanilla_proofs[0][0]'s",
                     variant[p->c_x.inclusion.kind]);
    if (memcmp(p->comm_r_last_proof.root, c->comm_r_last, 32))
        return vfail(msg, CUZK_ERR_ARG,
                     ".comm_r_last_proof.data.%s.root: mismatch: comm_r_last differs from "
                     "vanilla_proofs[0][0]'s",
                     variant[p->comm_r_last_proof.kind]);
    int st = check_path(msg, ".comm_d_proofs", &p->comm_d_proof, true, ch);
    if (st) return st;
    if (memcmp(p->comm_d_proof.root, c1->comm_d, 32))
        return vfail(msg, CUZK_ERR_ARG, ".comm_d_proofs.data.Single.root: mismatch: not comm_d");
    if ((st = check_columns(msg, c, p, ch)) ||
        (st = check_path(msg, ".comm_r_last_proof", &p->comm_r_last_proof, false, ch)) ||
        (st = check_labels(msg, c1, p, ch)) || (st = check_encoding(msg, c1, p, ch)))
        return st;
    return CUZK_OK;
}

static void challenge_task(void *arg, size_t j)
{
    c1v_ctx *c = arg;
    c->status[j] = check_challenge(c->msg + j * C1V_MSG, c, j);
}

static void partition_task(void *arg, size_t k)
{
    c1v_ctx *c = arg;
    const cuzk_seal_c1 *c1 = c->c1;
    size_t C = c1->challenges_per_partition;
    c->pstatus[k] = cuzk_seal_challenges(c->pchal + k * C, C, c1->info, c1->replica_id, c1->seed, c1->comm_r,
                                         (uint32_t)k, c->pmsg + k * C1V_MSG, C1V_MSG);
}

/* comm_r from the first proof, replica_id. */
static int check_header(const cuzk_seal_c1 *c1, c1v_ctx *c, const uint8_t *prover_id, uint64_t sector_id,
                        char *err, size_t err_len)
{
    uint8_t comm_r[32], porep_id[32];
    memcpy(c->comm_c, c1->proofs[0].c_x.inclusion.root, 32);
    memcpy(c->comm_r_last, c1->proofs[0].comm_r_last_proof.root, 32);
    int st = cuzk_fil_comm_r(comm_r, c->comm_c, c->comm_r_last, err, err_len);
    if (st) return st;
    if (memcmp(comm_r, c1->comm_r, 32))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "comm_r: mismatch: not Poseidon2(comm_c, comm_r_last) of vanilla_proofs[0][0]");
    cuzk_fil_seal_porep_id(porep_id, c1->info);
    if (prover_id) {
        uint8_t rid[32];
        cuzk_seal_replica_id(rid, prover_id, sector_id, c1->ticket, c1->comm_d, porep_id);
        if (memcmp(rid, c1->replica_id, 32))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "replica_id: mismatch: not the replica id of prover/sector %llu, ticket, "
                             "comm_d and %s",
                             (unsigned long long)sector_id, c1->info->name);
    }
    return CUZK_OK;
}

/* The caller's graph when it is one of c1's proof, else one built into own. */
static int use_graph(const cuzk_seal_graph **g, cuzk_seal_graph *own, const cuzk_seal_c1 *c1,
                     const cuzk_seal_graph *graph, cuzk_par *par, char *err, size_t err_len)
{
    const cuzk_fil_seal_info *info = c1->info;
    *g = graph;
    if (!graph) {
        *g = own;
        return cuzk_seal_graph_init_for_proof(own, info, par, err, err_len);
    }
    if (graph->nodes != info->sector_size / 32 || graph->api_version != info->api_version)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "c1 verify: graph of %llu nodes (api %d), %s needs %llu (api %d)",
                         (unsigned long long)graph->nodes, graph->api_version, info->name,
                         (unsigned long long)(info->sector_size / 32), info->api_version);
    return CUZK_OK;
}

/* The first failure in index order of n statuses. */
static int first_failure(const int *status, const char *msg, size_t n, size_t cpp, const char *pre, char *err,
                         size_t err_len)
{
    for (size_t j = 0; j < n; j++)
        if (status[j])
            return cuzk_errf(err, err_len, status[j], "%s[%zu][%zu]%s", pre, j / cpp, j % cpp,
                             msg + j * C1V_MSG);
    return CUZK_OK;
}

int cuzk_seal_c1_verify(const cuzk_seal_c1 *c1, const uint8_t *prover_id, uint64_t sector_id, cuzk_par *par,
                        char *err, size_t err_len)
{
    return cuzk_seal_c1_verify_graph(c1, NULL, prover_id, sector_id, par, err, err_len);
}

int cuzk_seal_c1_verify_graph(const cuzk_seal_c1 *c1, const cuzk_seal_graph *graph, const uint8_t *prover_id,
                              uint64_t sector_id, cuzk_par *par, char *err, size_t err_len)
{
    if (!c1 || !c1->info || !c1->proofs || c1->partitions != c1->info->partitions ||
        c1->challenges_per_partition != c1->info->challenges_per_partition)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "c1 verify: no C1 or counts not of its proof");
    size_t P = c1->partitions, C = c1->challenges_per_partition, n = P * C;
    cuzk_seal_graph own = {0};
    c1v_ctx c = {.c1 = c1};
    int st = check_header(c1, &c, prover_id, sector_id, err, err_len);
    if (!st) st = use_graph(&c.g, &own, c1, graph, par, err, err_len);
    if (st) return st;
    c.status = calloc(n + P, sizeof(int));
    c.msg = calloc(n + P, C1V_MSG);
    c.pchal = calloc(n, sizeof(uint64_t));
    if (!c.status || !c.msg || !c.pchal) {
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "c1 verify: out of memory");
        goto done;
    }
    c.pstatus = c.status + n;
    c.pmsg = c.msg + n * C1V_MSG;
    cuzk_par_for(par, partition_task, &c, P);
    for (size_t k = 0; k < P; k++)
        if (c.pstatus[k]) {
            st = cuzk_errf(err, err_len, c.pstatus[k], "vanilla_proofs[%zu]: challenges: %s", k,
                           c.pmsg + k * C1V_MSG);
            goto done;
        }
    c.challenges = c.pchal;
    cuzk_par_for(par, challenge_task, &c, n);
    st = first_failure(c.status, c.msg, n, C, "vanilla_proofs", err, err_len);
done:
    free(c.status);
    free(c.msg);
    free(c.pchal);
    cuzk_seal_graph_free(&own);
    return st;
}
