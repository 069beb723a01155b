/* batch/stress --vk: check every returned proof ourselves, not only its
 * status and length.  The public inputs are computed once per request, on
 * the client, from the request alone, by the library's verifier-side
 * functions -- the same ones `cuzk-bench verify` and the daemon's own
 * pre-answer check use -- and each partition's 192 bytes are then verified
 * with cuzk_groth16_verify against the given key.  The request is read the
 * way the daemon's providers read it (wire.c's conversion, then the kind's
 * job constructor), so a proof that verifies here is one a chain verifier
 * with this vk accepts for this request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "cuzk/engine.h"
#include "cuzk/groth16.h"
#include "cuzk/porep.h"
#include "cuzk/post.h"
#include "cuzk/seal.h"
#include "cuzk/snap.h"
#include "server_internal.h"

struct client_verifier {
    cuzk_groth16_vk *vk;
    cuzk_groth16_pvk pvk;
    size_t partitions, n_inputs; /* inputs per partition, without ONE */
    cuzk_fr *inputs;             /* partitions x n_inputs */
};

#define CV_ERR 512

/* Copies the inputs of every partition (all have the same count). */
static int cv_store(client_verifier *v, size_t partitions,
                    const cuzk_fr *(*get)(const void *job, uint32_t k, size_t *n), const void *job, char *err)
{
    v->partitions = partitions;
    for (uint32_t k = 0; k < partitions; k++) {
        size_t n = 0;
        const cuzk_fr *in = get(job, k, &n);
        if (k == 0) {
            v->n_inputs = n;
            v->inputs = malloc((partitions * n + 1) * sizeof *v->inputs);
            if (!v->inputs) return cuzk_errf(err, CV_ERR, -1, "out of memory");
        } else if (n != v->n_inputs) {
            return cuzk_errf(err, CV_ERR, -1, "partition %u has %zu public inputs, partition 0 %zu", k, n,
                             v->n_inputs);
        }
        memcpy(v->inputs + k * n, in, n * sizeof *in);
    }
    return 0;
}

static const cuzk_fr *post_inputs(const void *j, uint32_t k, size_t *n)
{
    return (void)k, cuzk_post_job_inputs(j, n);
}

static const cuzk_fr *snap_inputs(const void *j, uint32_t k, size_t *n)
{
    return cuzk_snap_job_inputs(j, k, n);
}

static const cuzk_fr *porep_inputs(const void *j, uint32_t k, size_t *n)
{
    return cuzk_porep_job_inputs(j, k, n);
}

static int cv_post(client_verifier *v, const cuzk_engine_request *r, char *err)
{
    if (!r->randomness || r->randomness_len != 32)
        return cuzk_errf(err, CV_ERR, -1, "randomness must be 32 bytes (got %zu)", r->randomness_len);
    const uint8_t *one[1] = {r->vanilla_proof};
    size_t one_len[1] = {r->vanilla_proof_len};
    bool lone = !r->n_vanilla_proofs && r->vanilla_proof_len;
    uint8_t pid[32];
    cuzk_post_prover_id(pid, r->miner_id);
    cuzk_post_job *j = NULL;
    if (cuzk_post_job_new(&j, r->registered_proof, lone ? one : r->vanilla_proofs,
                          lone ? one_len : r->vanilla_proofs_len, lone ? 1 : r->n_vanilla_proofs,
                          r->randomness, pid, r->kind == CUZK_PROOF_WINNING_POST ? 0 : r->partition_index,
                          err, CV_ERR))
        return -1;
    int rc = cv_store(v, 1, post_inputs, j, err);
    cuzk_post_job_free(j);
    return rc;
}

static int cv_snap(client_verifier *v, const cuzk_engine_request *r, char *err)
{
    const cuzk_snap_info *info;
    if (cuzk_snap_lookup(&info, r->registered_proof))
        return cuzk_errf(err, CV_ERR, -1, "registered_proof %llu is not a registered update proof (0-4)",
                         (unsigned long long)r->registered_proof);
    if (!r->comm_r_old || !r->comm_r_new || !r->comm_d_new)
        return cuzk_errf(err, CV_ERR, -1, "--comm-r-old, --comm-r-new and --comm-d-new are required");
    const uint8_t *one[1] = {r->vanilla_proof};
    size_t one_len[1] = {r->vanilla_proof_len};
    bool lone = !r->n_vanilla_proofs && r->vanilla_proof_len;
    cuzk_snap_job *j = NULL;
    if (cuzk_snap_job_new(&j, info->id, lone ? one : r->vanilla_proofs,
                          lone ? one_len : r->vanilla_proofs_len, lone ? 1 : r->n_vanilla_proofs,
                          r->comm_r_old, r->comm_d_new, r->comm_r_new, NULL, err, CV_ERR))
        return -1;
    int rc = cv_store(v, cuzk_snap_job_partitions(j), snap_inputs, j, err);
    cuzk_snap_job_free(j);
    return rc;
}

static int cv_porep(client_verifier *v, const cuzk_engine_request *r, char *err)
{
    const uint8_t *c1 = r->vanilla_proof_len  ? r->vanilla_proof
                        : r->n_vanilla_proofs ? r->vanilla_proofs[0]
                                              : NULL;
    size_t len = r->vanilla_proof_len  ? r->vanilla_proof_len
                 : r->n_vanilla_proofs ? r->vanilla_proofs_len[0]
                                       : 0;
    uint8_t pid[32];
    cuzk_seal_prover_id(pid, r->miner_id);
    cuzk_porep_job *j = NULL;
    if (!c1) return cuzk_errf(err, CV_ERR, -1, "no C1 output (--c1 FILE)");
    if (cuzk_porep_job_new(&j, (const char *)c1, len, UINT64_MAX, r->miner_id ? pid : NULL, r->sector_number,
                           NULL, err, CV_ERR))
        return -1;
    int rc = cv_store(v, cuzk_porep_job_partitions(j), porep_inputs, j, err);
    cuzk_porep_job_free(j);
    return rc;
}

/* The test kind: the engine's built-in test provider's own parse and
 * public_inputs (its verifier side recomputes the chain's output). */
/* Partitions' inputs in one array, `stride` apart (the test provider's). */
typedef struct {
    cuzk_fr *in;
    size_t stride, *n;
} cv_strided;

static const cuzk_fr *strided_inputs(const void *s, uint32_t k, size_t *n)
{
    const cv_strided *x = s;
    *n = x->n[k];
    return x->in + k * x->stride;
}

static int cv_test(client_verifier *v, const cuzk_engine_request *r, char *err)
{
    cuzk_engine_provider p;
    cuzk_engine_test_provider(&p);
    void *state = NULL;
    char cid[64];
    uint64_t bytes;
    size_t parts = 0;
    if (p.parse(p.ctx, &state, cid, &parts, &bytes, r, err, CV_ERR)) return -1;
    cv_strided x = {
        .in = calloc(parts * 8 + 1, sizeof *x.in), .stride = 8, .n = calloc(parts + 1, sizeof *x.n)};
    int rc = x.in && x.n ? 0 : cuzk_errf(err, CV_ERR, -1, "out of memory");
    for (size_t k = 0; !rc && k < parts; k++)
        rc = p.public_inputs(p.ctx, x.in + k * 8, 8, &x.n[k], state, k, err, CV_ERR) ? -1 : 0;
    if (!rc) rc = cv_store(v, parts, strided_inputs, &x, err);
    free(x.in);
    free(x.n);
    p.free_state(p.ctx, state);
    return rc;
}

static int cv_inputs(client_verifier *v, const Cuzk__V1__SubmitProofRequest *m, char *err)
{
    const uint8_t **vp = calloc(m->n_vanilla_proofs + 1, sizeof *vp);
    size_t *vl = calloc(m->n_vanilla_proofs + 1, sizeof *vl);
    cuzk_engine_request r;
    int rc = -1;
    if (!vp || !vl)
        cuzk_errf(err, CV_ERR, -1, "out of memory");
    else if (!cuzk_srv_request_from_wire(&r, m, vp, vl, err, CV_ERR))
        switch (r.kind) {
        case CUZK_PROOF_POREP:
            rc = cv_porep(v, &r, err);
            break;
        case CUZK_PROOF_SNAP:
            rc = cv_snap(v, &r, err);
            break;
        case CUZK_PROOF_WINDOW_POST:
        case CUZK_PROOF_WINNING_POST:
            rc = cv_post(v, &r, err);
            break;
        case CUZK_PROOF_TEST:
            rc = cv_test(v, &r, err);
            break;
        default:
            cuzk_errf(err, CV_ERR, -1,
                      "the client cannot compute public inputs for proof kind %d (unspecified)", (int)r.kind);
        }
    free(vp);
    free(vl);
    return rc;
}

int client_verifier_new(client_verifier **out, const char *vk_path, const Cuzk__V1__SubmitProofRequest *m,
                        const char *what)
{
    *out = NULL;
    client_verifier *v = calloc(1, sizeof *v);
    char err[CV_ERR] = "";
    if (!v) return fprintf(stderr, "%s: out of memory\n", what), -1;
    cuzk_groth16_load_opts o = {.err = err, .err_len = sizeof err};
    if (cuzk_groth16_vk_load(&v->vk, vk_path, &o)) {
        fprintf(stderr, "%s: --vk %s: %s\n", what, vk_path, err);
    } else if (cv_inputs(v, m, err)) {
        fprintf(stderr, "%s: --vk: cannot compute the public inputs of this request: %s\n", what, err);
    } else if (v->vk->n_ic != v->n_inputs + 1) {
        fprintf(stderr, "%s: --vk %s has %zu public inputs, the circuit of this request %zu: not its key\n",
                what, vk_path, v->vk->n_ic - 1, v->n_inputs);
    } else {
        cuzk_groth16_pvk_prepare(&v->pvk, v->vk);
        *out = v;
        return 0;
    }
    client_verifier_free(v);
    return -1;
}

bool client_verifier_check(const client_verifier *v, const uint8_t *proof, size_t len, char *why,
                           size_t whylen)
{
    if (len != v->partitions * CUZK_G16_PROOF_BYTES) {
        snprintf(why, whylen, "invalid: %zu proof bytes, expected %zu partitions x %d", len, v->partitions,
                 CUZK_G16_PROOF_BYTES);
        return false;
    }
    for (size_t k = 0; k < v->partitions; k++) {
        char err[256] = "";
        bool ok = false;
        int st = cuzk_groth16_verify(&ok, &v->pvk, proof + k * CUZK_G16_PROOF_BYTES,
                                     v->inputs + k * v->n_inputs, v->n_inputs, err, sizeof err);
        if (st || !ok) {
            snprintf(why, whylen, "invalid: partition %zu does not verify%s%s", k, err[0] ? ": " : "", err);
            return false;
        }
    }
    return true;
}

void client_verifier_free(client_verifier *v)
{
    if (!v) return;
    cuzk_groth16_vk_free(v->vk);
    free(v->inputs);
    free(v);
}
