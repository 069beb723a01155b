/* `cuzk-bench prove` for Filecoin jobs (PoRep, SnapDeals): every partition
 * or one (--partition K), synthesized in PROVE mode or, with --pce F, in
 * WITNESS mode and proved in the lean form the engine uses (A z, B z from
 * the PCE straight into the prover's two domain buffers, C z on demand), so
 * that a 32 GiB partition runs the production pipeline in ~13 GB: the
 * assignment (4.2 GB) and two 2^27 vectors (8.6 GB), with the params mapped
 * (--mmap, automatic for a file larger than half of RAM) and decoded by the
 * MSMs chunk by chunk.  Each proof is self-verified before it is written.
 *
 * Per partition one line on stderr: synthesis, PCE evaluation, the H
 * transforms and each MSM, how fast the mapped params were read, and the
 * peak RssAnon (sampled at the prover's safe points: before H and before
 * every MSM chunk, after synthesis and evaluation) -- VmHWM would count the
 * mapped file's pages, which the kernel can drop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_cli.h"
#include "cli_util.h"
#include "cuzk/groth16.h"
#include "cuzk/pce_lean.h"
#include "cuzk/pool.h"
#include "cuzk/srs_trust.h"
#include "g16_cli.h"

typedef struct {
    uint64_t peak_anon; /* bytes */
} mem_watch;

static void watch(mem_watch *m)
{
    uint64_t a = cli_proc_status_bytes("RssAnon");
    if (a > m->peak_anon) m->peak_anon = a;
}

static int watch_checkpoint(void *ctx)
{
    watch(ctx);
    return 0;
}

typedef struct {
    double synth, pce;
} part_times;

/* Partition k into a witness the prover takes: PROVE mode (w views cs), or
 * WITNESS mode + the lean PCE evaluation (ab[] owned by the caller). */
static int make_witness(cuzk_groth16_witness *w, cuzk_cs **cs, cuzk_fr *ab[2], cuzk_pce_lean *lean,
                        const g16_cli_prove_job *job, uint32_t k, const cuzk_pce *pce,
                        const cuzk_groth16_params *p, cuzk_par *par, part_times *t, mem_watch *mw, char *err,
                        size_t el)
{
    double t0 = cli_now();
    int st = job->synth(job->ctx, k, pce ? CUZK_CS_WITNESS : CUZK_CS_PROVE, par, cs, err, el);
    t->synth = cli_now() - t0;
    watch(mw);
    if (st) return st;
    if (!pce) return cuzk_groth16_witness_from_cs(w, *cs);
    size_t m = cuzk_groth16_params_count(p, CUZK_G16_H) + 1;
    t0 = cli_now();
    ab[0] = malloc(m * sizeof(cuzk_fr));
    ab[1] = malloc(m * sizeof(cuzk_fr));
    if (!ab[0] || !ab[1])
        return cuzk_errf(err, el, CUZK_ERR_NOMEM, "out of memory for 2 x %zu evaluations", m);
    if ((st = cuzk_pce_evaluate_ab(pce, *cs, ab[0], ab[1], m, par, err, el))) return st;
    t->pce = cli_now() - t0;
    watch(mw);
    *lean = (cuzk_pce_lean){.pce = pce, .cs = *cs, .par = par, .err = err, .err_len = el};
    return cuzk_groth16_witness_lean(w, *cs, ab[0], ab[1], cuzk_pce_fill_c, lean);
}

static int prove_one(const g16_cli_prove_job *job, uint32_t k, uint8_t *proof, const cuzk_groth16_params *p,
                     const cuzk_groth16_pvk *pvk, const cuzk_pce *pce, cuzk_par *par, double t_load)
{
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_timings tm = {0};
    mem_watch mw = {0};
    cuzk_groth16_prove_opts o = {.deterministic = job->deterministic,
                                 .backend = cli_backend(),
                                 .par = par,
                                 .timings = &tm,
                                 .err = err,
                                 .err_len = sizeof err,
                                 .checkpoint = watch_checkpoint,
                                 .checkpoint_ctx = &mw};
    cuzk_cs *cs = NULL;
    cuzk_fr *ab[2] = {NULL, NULL};
    cuzk_pce_lean lean;
    cuzk_groth16_witness w;
    part_times pt = {0, 0};
    int st = make_witness(&w, &cs, ab, &lean, job, k, pce, p, par, &pt, &mw, err, sizeof err);
    uint8_t pr[1][CUZK_G16_PROOF_BYTES];
    if (!st) st = cuzk_groth16_prove(pr, p, &w, 1, &o);
    watch(&mw);
    cuzk_cs_free(cs);
    free(ab[0]);
    free(ab[1]);
    bool ok = false;
    size_t n = 0;
    const cuzk_fr *in = st ? NULL : job->inputs(job->ctx, k, &n);
    if (!st) st = cuzk_groth16_verify(&ok, pvk, pr[0], in, n, err, sizeof err);
    if (st || !ok) {
        fprintf(stderr, "cuzk-bench prove: partition %u: %s\n", k,
                st ? err : "the proof does not self-verify");
        return 1;
    }
    memcpy(proof, pr[0], CUZK_G16_PROOF_BYTES);
    double msm = tm.msm_h + tm.msm_l + tm.msm_a + tm.msm_b_g1 + tm.msm_b_g2;
    uint64_t bytes = 192 * (uint64_t)cuzk_groth16_params_count(p, CUZK_G16_B_G2);
    for (int v = CUZK_G16_H; v < CUZK_G16_B_G2; v++)
        bytes += 96 * (uint64_t)cuzk_groth16_params_count(p, v);
    fprintf(stderr,
            "prove: %s partition %u/%u: synthesis %.3f s (%s), pce a,b %.3f s, prove %.3f s (h ntt %.3f, msm "
            "h %.3f "
            "l %.3f a %.3f b1 %.3f b2 %.3f; params %.2f GB read by the MSMs at %.0f MB/s), self-verified; "
            "params load %.3f s, peak RssAnon %.2f GB, %u threads\n",
            job->name, k + 1, job->partitions, pt.synth, pce ? "WITNESS" : "PROVE", pt.pce, tm.total,
            tm.h_ntt, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b_g1, tm.msm_b_g2, (double)bytes / 1e9,
            msm > 0 ? (double)bytes / 1e6 / msm : 0, t_load, (double)mw.peak_anon / 1e9, job->threads);
    return 0;
}

static int write_inputs(const g16_cli_prove_job *job, uint32_t k0, uint32_t k1)
{
    size_t n = 0;
    job->inputs(job->ctx, k0, &n);
    uint8_t *b = malloc(32 * n * (k1 - k0) + 1);
    if (!b) return 1;
    for (uint32_t k = k0; k < k1; k++) {
        const cuzk_fr *in = job->inputs(job->ctx, k, &n);
        for (size_t i = 0; i < n; i++)
            cuzk_fr_to_bytes_le(b + 32 * ((k - k0) * n + i), &in[i]);
    }
    int rc = cli_write_file(job->inputs_out, b, 32 * n * (k1 - k0));
    free(b);
    return rc;
}

/* Map when asked, or when the file is larger than half of RAM. */
static bool want_mmap(const g16_cli_prove_job *job)
{
    struct stat st;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return job->mmap || (!stat(job->params, &st) && pages > 0 && psz > 0 &&
                         (uint64_t)st.st_size > (uint64_t)pages * (uint64_t)psz / 2);
}

static int open_pce(cuzk_pce **pce, const g16_cli_prove_job *job)
{
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_pce_identity id;
    char cid[64];
    g16_cli_pce_identity(&id, cid, job->pce_kind, job->sector_size, "");
    if (cuzk_pce_open(pce, job->pce, id.kind == CUZK_PCE_KIND_OTHER ? NULL : &id, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench prove: %s: %s\n", job->pce, err);
        return 1;
    }
    return 0;
}

int g16_cli_prove_partitions(const g16_cli_prove_job *job)
{
    uint32_t k0 = 0, k1 = job->partitions;
    if (job->partition >= 0) {
        if ((uint64_t)job->partition >= job->partitions) {
            fprintf(stderr, "cuzk-bench prove: --partition %lld: the job has %u partitions (0..%u)\n",
                    (long long)job->partition, job->partitions, job->partitions - 1);
            return 2;
        }
        k0 = (uint32_t)job->partition;
        k1 = k0 + 1;
    }
    cuzk_pool *pool = NULL;
    cuzk_groth16_params *p = NULL;
    cuzk_pce *pce = NULL;
    uint8_t *proofs = malloc((size_t)(k1 - k0) * CUZK_G16_PROOF_BYTES);
    char err[CUZK_G16_ERR_LEN] = "";
    int rc = 1;
    if (!proofs || cuzk_pool_create(&pool, job->threads)) goto done;
    if (job->pce && open_pce(&pce, job)) goto done;
    bool map = want_mmap(job);
    cuzk_groth16_load_opts lo = {
        .flags = map ? CUZK_G16_LOAD_MMAP : 0, .par = cuzk_pool_par(pool), .err = err, .err_len = sizeof err};
    double t0 = cli_now();
    cuzk_srs_load_info li;
    if (cli_params_load(&p, job->params, job->no_validate ? CUZK_SRS_VALIDATE_NONE : CUZK_SRS_VALIDATE_DIGEST,
                        &lo, &li)) {
        fprintf(stderr, "cuzk-bench prove: %s: %s\n", job->params, err);
        goto done;
    }
    double t_load = cli_now() - t0;
    fprintf(stderr, "prove: params load %.3f s (%s), %s\n", t_load, cuzk_srs_trust_name(li.how),
            map ? "mapped" : "resident");
    if (li.note[0]) fprintf(stderr, "cuzk-bench prove: warning: %s\n", li.note);
    if (cuzk_groth16_params_is_test(p))
        fprintf(stderr, "cuzk-bench prove: WARNING: %s are TEST parameters\n", job->params);
    cuzk_groth16_pvk pvk;
    cuzk_groth16_pvk_prepare(&pvk, cuzk_groth16_params_vk(p));
    for (uint32_t k = k0; k < k1; k++)
        if (prove_one(job, k, proofs + (size_t)(k - k0) * CUZK_G16_PROOF_BYTES, p, &pvk, pce,
                      cuzk_pool_par(pool), t_load))
            goto done;
    if (cli_write_file(job->out, proofs, (size_t)(k1 - k0) * CUZK_G16_PROOF_BYTES)) goto done;
    if (job->inputs_out && write_inputs(job, k0, k1)) goto done;
    printf("%s\n", job->out);
    rc = 0;
done:
    free(proofs);
    cuzk_groth16_params_free(p);
    cuzk_pce_close(pce);
    cuzk_pool_destroy(pool);
    return rc;
}
