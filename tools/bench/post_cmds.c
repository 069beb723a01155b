/* cuzk-bench subcommands for the FallbackPoSt circuits (cuzk/post.h),
 * reached from the generic commands when --circuit is winning-post or
 * window-post:
 *
 *   circuit-info --circuit C --sector-size S [--json]
 *   setup  --circuit C --sector-size S --out DIR [--seed S] [--threads T]
 *          (TEST params under their v28 names, with .test sidecars)
 *   prove  --circuit C --sector-size S --params F --vanilla F [--vanilla F ...]
 *          --randomness HEX (--prover-id HEX | --miner-id N) [--partition K]
 *          --out PROOF [--inputs-out F] [--threads T] [--deterministic] [--reps R] [--cpu-time]
 *          [--validate digest|full|none]
 *          (--cpu-time: prover phases in process CPU seconds, for shared machines;
 *          --validate: as srs.validate, default digest -- a file with a matching
 *          validation record or official digest skips point validation)
 *   verify --circuit C --sector-size S --vk F --proof F --randomness HEX
 *          --sector N:COMM_R_HEX [--sector ...] [--partition K] [--prover-id HEX]
 *          (prints `valid` / `invalid: <reason>`; exit 0 / 1, 2 for bad arguments)
 *   synth  --circuit C --sector-size S [--mode shape|prove|check] [--repeat R]
 *          [--vanilla F ... --randomness HEX] [--partition K]
 *
 * C = winning-post | window-post; S = 2KiB 8MiB 512MiB 32GiB 64GiB (or
 * bytes).  Window uses the V1_2 registered proof (ids 10-14) unless
 * --registered-proof N says otherwise.  Hex commitments/randomness are the
 * 32 bytes as stored (little-endian Fr). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"
#include "backend_cli.h"
#include "cli_util.h"
#include "cuzk/pool.h"
#include "cuzk/post.h"
#include "cuzk/srs_trust.h"
#include "cuzk/status.h"
#include "g16_cli.h"
#include "post_cmds.h"

#define PB_MAX_VANILLA 4096

typedef struct {
    const cuzk_fil_post_info *info;
    const char *out, *params, *vk, *proof, *rnd_hex, *pid_hex, *inputs_out, *seed, *mode;
    const char *vanilla[PB_MAX_VANILLA];
    size_t n_vanilla;
    cuzk_post_sector *sectors;
    size_t n_sectors;
    uint64_t miner_id;
    bool have_miner, json, det, cpu_time, random_witness, mmap;
    const char *pce;
    uint32_t partition;
    size_t threads, reps;
    cuzk_srs_validate validate;
} pb_args;

bool cuzk_bench_post_wants(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--circuit"))
            return !strcmp(argv[i + 1], "winning-post") || !strcmp(argv[i + 1], "window-post");
    return false;
}

/* Parse the options shared by all post commands; returns 0 or 2. */
static int pb_parse(pb_args *a, int argc, char **argv, const char *usage)
{
    const char *circuit = NULL, *size = NULL;
    long long reg = -1;
    a->threads = 2;
    a->reps = 1;
    a->validate = CUZK_SRS_VALIDATE_DIGEST;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--json")) {
            a->json = true;
            continue;
        }
        if (!strcmp(o, "--deterministic")) {
            a->det = true;
            continue;
        }
        if (!strcmp(o, "--cpu-time")) {
            a->cpu_time = true;
            continue;
        }
        if (!strcmp(o, "--random-witness")) {
            a->random_witness = true;
            continue;
        }
        if (!strcmp(o, "--mmap")) {
            a->mmap = true;
            continue;
        }
        if (!v) goto bad;
        i++;
        if (!strcmp(o, "--circuit"))
            circuit = v;
        else if (!strcmp(o, "--sector-size"))
            size = v;
        else if (!strcmp(o, "--registered-proof"))
            reg = strtoll(v, NULL, 10);
        else if (!strcmp(o, "--out"))
            a->out = v;
        else if (!strcmp(o, "--pce"))
            a->pce = v;
        else if (!strcmp(o, "--params"))
            a->params = v;
        else if (!strcmp(o, "--vk"))
            a->vk = v;
        else if (!strcmp(o, "--proof"))
            a->proof = v;
        else if (!strcmp(o, "--randomness"))
            a->rnd_hex = v;
        else if (!strcmp(o, "--prover-id"))
            a->pid_hex = v;
        else if (!strcmp(o, "--inputs-out"))
            a->inputs_out = v;
        else if (!strcmp(o, "--seed"))
            a->seed = v;
        else if (!strcmp(o, "--mode"))
            a->mode = v;
        else if (!strcmp(o, "--validate")) {
            if (cuzk_srs_validate_parse(&a->validate, v)) goto bad;
        }
        else if (!strcmp(o, "--miner-id")) {
            a->miner_id = strtoull(v, NULL, 10);
            a->have_miner = true;
        } else if (!strcmp(o, "--partition"))
            a->partition = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(o, "--threads") || !strcmp(o, "--repeat") || !strcmp(o, "--reps")) {
            size_t n;
            if (g16_cli_parse_size(&n, v) || !n) goto bad;
            *(!strcmp(o, "--threads") ? &a->threads : &a->reps) = n;
        } else if (!strcmp(o, "--vanilla")) {
            if (a->n_vanilla == PB_MAX_VANILLA) goto bad;
            a->vanilla[a->n_vanilla++] = v;
        } else if (!strcmp(o, "--sector")) {
            const char *colon = strchr(v, ':');
            cuzk_post_sector *s = realloc(a->sectors, (a->n_sectors + 1) * sizeof *s);
            if (!s) return 2;
            a->sectors = s;
            s = &s[a->n_sectors++];
            char *e;
            s->sector_id = strtoull(v, &e, 10);
            if (!colon || e != colon || cli_hex32(s->comm_r, colon + 1, "--sector N:COMM_R")) goto bad;
        } else {
            goto bad;
        }
    }
    bool win = circuit && !strcmp(circuit, "winning-post");
    uint64_t bytes = size ? cli_sector_size(size) : 0;
    if (!circuit || (!win && strcmp(circuit, "window-post")) || !bytes) {
        fprintf(stderr, "cuzk-bench: --circuit winning-post|window-post and --sector-size "
                        "2KiB|8MiB|512MiB|32GiB|64GiB are required\n");
        goto bad;
    }
    if (reg < 0) {
        for (uint64_t id = win ? 0 : 10; id < (win ? 5u : 15u) && reg < 0; id++) {
            const cuzk_fil_post_info *p;
            if (!cuzk_fil_post_lookup(&p, id) && p->sector_size == bytes) reg = (long long)id;
        }
    }
    if (reg < 0 || cuzk_fil_post_lookup(&a->info, (uint64_t)reg) || a->info->winning != win ||
        a->info->sector_size != bytes) {
        fprintf(stderr, "cuzk-bench: no %s registered proof for sector size %s\n", circuit, size);
        goto bad;
    }
    return 0;
bad:
    fprintf(stderr, "%s", usage);
    return 2;
}

static void pb_free(pb_args *a)
{
    free(a->sectors);
}

int cuzk_bench_post_circuit_info(int argc, char **argv)
{
    pb_args a = {0};
    if (pb_parse(&a, argc, argv,
                 "usage: cuzk-bench circuit-info --circuit winning-post|window-post "
                 "--sector-size S [--json]\n"))
        return 2;
    cuzk_post_circuit_ctx c;
    cuzk_cs *cs = NULL;
    int st = cuzk_post_circuit_blank(&c, a.info);
    if (!st) st = cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0);
    if (!st) st = cuzk_cs_synthesize(cs, cuzk_post_circuit, &c);
    if (st) {
        fprintf(stderr, "error: %s\n", cs ? cuzk_cs_error(cs) : cuzk_strerror(st));
        cuzk_cs_free(cs);
        return 1;
    }
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    cuzk_cs_free(cs);
    char pid[160] = "";
    if (cuzk_fil_post_param_id(pid, sizeof pid, a.info)) pid[0] = 0; /* every registered PoSt has one */
    size_t rust = cuzk_post_num_constraints(a.info);
    if (a.json) {
        printf("{\"circuit\":\"%s\",\"registered_proof\":%llu,\"param_id\":\"%s\",\"sectors\":%u,"
               "\"challenges\":%u,\"constraints\":%zu,\"rust_constraints\":%zu,\"inputs\":%zu,\"aux\":%zu,"
               "\"nnz_a\":%zu,\"nnz_b\":%zu,\"nnz_c\":%zu,\"a_aux_density\":%zu,\"b_input_density\":%zu,"
               "\"b_aux_density\":%zu}\n",
               a.info->name, (unsigned long long)a.info->id, pid, a.info->circuit_sector_count,
               a.info->circuit_challenge_count, k.constraints, rust, k.inputs, k.aux, k.nnz_a, k.nnz_b,
               k.nnz_c, k.a_aux_density, k.b_input_density, k.b_aux_density);
    } else {
        printf("circuit          %s (registered proof %llu)\n", a.info->name, (unsigned long long)a.info->id);
        printf("param id         %s\n", pid);
        printf("shape            %u sectors x %u challenges\n", a.info->circuit_sector_count,
               a.info->circuit_challenge_count);
        printf("constraints      %zu (rust-fil-proofs count %zu + %zu input constraints)\n", k.constraints,
               k.constraints - k.inputs, k.inputs);
        printf("inputs           %zu (incl. ONE) = n_ic\n", k.inputs);
        printf("aux              %zu\n", k.aux);
        printf("nonzeros A/B/C   %zu / %zu / %zu\n", k.nnz_a, k.nnz_b, k.nnz_c);
        printf("density a_aux    %zu, b_input %zu, b_aux %zu\n", k.a_aux_density, k.b_input_density,
               k.b_aux_density);
    }
    pb_free(&a);
    return k.constraints - k.inputs == rust ? 0 : 1;
}

int cuzk_bench_post_setup(int argc, char **argv, const g16_setup_opts *so)
{
    pb_args a = {0};
    if (pb_parse(&a, argc, argv,
                 "usage: cuzk-bench setup --circuit winning-post|window-post --sector-size S "
                 "--out DIR [--seed S] [--threads T] " G16_SETUP_USAGE "\n"))
        return 2;
    if (!a.out) {
        fprintf(stderr, "cuzk-bench setup: --out DIR is required\n");
        return 2;
    }
    if (so->constant_time && cuzk_post_num_constraints(a.info) > (16u << 20)) {
        fprintf(stderr, "cuzk-bench setup: %s has %zu constraints: too large for the in-memory constant-time "
                        "setup (leave out --constant-time)\n",
                a.info->name, cuzk_post_num_constraints(a.info));
        return 1;
    }
    char pid[160];
    if (cuzk_fil_post_param_id(pid, sizeof pid, a.info)) {
        fprintf(stderr, "cuzk-bench setup: %s: no parameter id\n", a.info->name);
        pb_free(&a);
        return 1;
    }
    cuzk_post_circuit_ctx c;
    int rc = cuzk_post_circuit_blank(&c, a.info)
                 ? 1
                 : g16_cli_setup_filecoin(a.out, a.seed ? a.seed : "cuzk-test-seed", (unsigned)a.threads,
                                          cuzk_post_circuit, &c, pid, a.info->name, so,
                                          a.info->winning ? CUZK_PCE_KIND_WINNING_POST : CUZK_PCE_KIND_WINDOW_POST,
                                          a.info->sector_size);
    pb_free(&a);
    return rc;
}

/* Read the --vanilla files and build a job (message printed on error). */
static int pb_job(cuzk_post_job **j, const pb_args *a, cuzk_par *par)
{
    uint8_t rnd[32], pid[32] = {0};
    if (cli_hex32(rnd, a->rnd_hex, "--randomness")) return 2;
    if (a->pid_hex && cli_hex32(pid, a->pid_hex, "--prover-id")) return 2;
    if (!a->pid_hex && a->have_miner) cuzk_post_prover_id(pid, a->miner_id);
    uint8_t **bufs = calloc(a->n_vanilla, sizeof *bufs);
    size_t *lens = calloc(a->n_vanilla, sizeof *lens);
    int rc = bufs && lens ? 0 : 1;
    for (size_t i = 0; !rc && i < a->n_vanilla; i++)
        if (!(bufs[i] = g16_cli_read_file(a->vanilla[i], &lens[i]))) rc = 1;
    char err[512] = "";
    if (!rc && cuzk_post_job_new_par(j, a->info->id, (const uint8_t *const *)bufs, lens, a->n_vanilla, rnd,
                                     pid, a->partition, par, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: %s\n", err);
        rc = 1;
    }
    for (size_t i = 0; bufs && i < a->n_vanilla; i++)
        free(bufs[i]);
    free(bufs);
    free(lens);
    return rc;
}

static int pb_synth(void *ctx, uint32_t k, cuzk_cs_mode mode, cuzk_par *par, cuzk_cs **cs, char *err,
                    size_t err_len)
{
    (void)k, (void)par;
    return cuzk_post_job_synthesize(cs, ctx, mode, 0, err, err_len);
}

static const cuzk_fr *pb_inputs(void *ctx, uint32_t k, size_t *n)
{
    (void)k;
    return cuzk_post_job_inputs(ctx, n);
}

/* --pce F / --mmap: the production pipeline of prove_fil.c (WITNESS
 * synthesis, the lean PCE evaluation, mapped params), for one partition of
 * vanilla proofs (a 32 GiB WindowPoSt partition: 2349 sectors). */
static int pb_prove_lean(const pb_args *a, cuzk_post_job *j)
{
    g16_cli_prove_job pj = {.params = a->params,
                            .out = a->out,
                            .inputs_out = a->inputs_out,
                            .name = a->info->name,
                            .threads = (unsigned)a->threads,
                            .deterministic = a->det,
                            .no_validate = a->validate == CUZK_SRS_VALIDATE_NONE,
                            .mmap = a->mmap,
                            .partitions = 1,
                            .partition = -1,
                            .pce = a->pce,
                            .pce_kind = a->info->winning ? CUZK_PCE_KIND_WINNING_POST : CUZK_PCE_KIND_WINDOW_POST,
                            .sector_size = a->info->sector_size,
                            .synth = pb_synth,
                            .inputs = pb_inputs,
                            .ctx = j};
    return g16_cli_prove_partitions(&pj);
}

int cuzk_bench_post_prove(int argc, char **argv)
{
    pb_args a = {0};
    const char *usage =
        "usage: cuzk-bench prove --circuit winning-post|window-post --sector-size S --params F "
        "--vanilla F [--vanilla F ...] --randomness HEX (--prover-id HEX | --miner-id N) "
        "[--partition K] --out PROOF [--inputs-out F] [--threads T] [--deterministic] [--reps R] "
        "[--cpu-time] [--validate digest|full|none] [--pce F] [--mmap]\n";
    if (pb_parse(&a, argc, argv, usage)) return 2;
    if (!a.params || !a.n_vanilla || !a.rnd_hex || !a.out) {
        fputs(usage, stderr);
        pb_free(&a);
        return 2;
    }
    cuzk_post_job *j = NULL;
    cuzk_pool *pool = NULL;
    cuzk_groth16_params *p = NULL;
    char err[CUZK_G16_ERR_LEN] = "";
    int rc = 1;
    if (cuzk_pool_create(&pool, (unsigned)a.threads)) goto done;
    double tj = cli_now();
    if ((rc = pb_job(&j, &a, cuzk_pool_par(pool)))) goto done;
    fprintf(stderr, "prove: parse + native check of %zu vanilla proofs: %.3f s\n", a.n_vanilla,
            cli_now() - tj);
    if (a.pce || a.mmap) {
        cuzk_pool_destroy(pool);
        pool = NULL;
        rc = pb_prove_lean(&a, j);
        goto done;
    }
    rc = 1;
    cuzk_groth16_load_opts lo = {.par = cuzk_pool_par(pool), .err = err, .err_len = sizeof err};
    double t0 = cli_now();
    cuzk_srs_load_info li;
    if (cli_params_load(&p, a.params, a.validate, &lo, &li)) {
        fprintf(stderr, "cuzk-bench prove: %s: %s\n", a.params, err);
        goto done;
    }
    if (li.note[0]) fprintf(stderr, "cuzk-bench prove: warning: %s\n", li.note);
    double t_load = cli_now() - t0;
    if (cuzk_groth16_params_is_test(p))
        fprintf(stderr, "cuzk-bench prove: WARNING: %s are TEST parameters\n", a.params);
    uint8_t proof[CUZK_G16_PROOF_BYTES];
    for (size_t r = 0; r < a.reps; r++) {
        cuzk_groth16_timings tm = {0};
        cuzk_groth16_prove_opts o = {
            .deterministic = a.det,
            .backend = cli_backend(),
            .par = cuzk_pool_par(pool),
            .timings = &tm,
            .cpu_time = a.cpu_time};
        double t1 = cli_now();
        cuzk_cs *cs = NULL;
        if (cuzk_post_job_synthesize(&cs, j, CUZK_CS_PROVE, 0, err, sizeof err)) {
            fprintf(stderr, "cuzk-bench prove: %s\n", err);
            goto done;
        }
        double t_syn = cli_now() - t1;
        cuzk_groth16_witness w;
        o.err = err;
        o.err_len = sizeof err;
        int st = cuzk_groth16_witness_from_cs(&w, cs);
        if (!st) st = cuzk_groth16_prove(&proof, p, &w, 1, &o);
        cuzk_cs_free(cs);
        if (st) {
            fprintf(stderr, "cuzk-bench prove: %s\n", err);
            goto done;
        }
        fprintf(stderr,
                "prove: %s rep %zu: synthesis %.3f s, prove %.3f s (h %.3f, msm l %.3f a %.3f b1 %.3f "
                "b2 %.3f)%s, total %.3f s wall; params load %.3f s (%s), %zu threads\n",
                a.info->name, r, t_syn, tm.total, tm.h_ntt + tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b_g1,
                tm.msm_b_g2, a.cpu_time ? " cpu-s" : "", cli_now() - t1, t_load, cuzk_srs_trust_name(li.how),
                a.threads);
    }
    if (cli_write_file(a.out, proof, sizeof proof)) goto done;
    if (a.inputs_out) {
        size_t n;
        const cuzk_fr *in = cuzk_post_job_inputs(j, &n);
        uint8_t *b = malloc(32 * n);
        if (!b) goto done;
        for (size_t i = 0; i < n; i++)
            cuzk_fr_to_bytes_le(b + 32 * i, &in[i]);
        int w = cli_write_file(a.inputs_out, b, 32 * n);
        free(b);
        if (w) goto done;
    }
    printf("%s\n", a.out);
    rc = 0;
done:
    cuzk_groth16_params_free(p);
    cuzk_pool_destroy(pool);
    cuzk_post_job_free(j);
    pb_free(&a);
    return rc;
}

int cuzk_bench_post_verify(int argc, char **argv)
{
    pb_args a = {0};
    const char *usage = "usage: cuzk-bench verify --circuit winning-post|window-post --sector-size S --vk F "
                        "--proof F --randomness HEX --sector N:COMM_R_HEX [--sector ...] [--partition K] "
                        "[--prover-id HEX]\n";
    if (pb_parse(&a, argc, argv, usage)) return 2;
    uint8_t rnd[32];
    if (!a.vk || !a.proof || !a.n_sectors || cli_hex32(rnd, a.rnd_hex, "--randomness")) {
        fputs(usage, stderr);
        pb_free(&a);
        return 2;
    }
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_load_opts lo = {.err = err, .err_len = sizeof err};
    cuzk_groth16_vk *vk = NULL;
    if (cuzk_groth16_vk_load(&vk, a.vk, &lo)) {
        fprintf(stderr, "cuzk-bench verify: %s: %s\n", a.vk, err);
        pb_free(&a);
        return 2;
    }
    size_t len = 0;
    uint8_t *proof = g16_cli_read_file(a.proof, &len);
    int rc = 2;
    if (!proof) goto done;
    if (len != CUZK_G16_PROOF_BYTES) {
        printf("invalid: proof is %zu bytes, expected %d\n", len, CUZK_G16_PROOF_BYTES);
        rc = 1;
        goto done;
    }
    bool ok = false;
    int st = cuzk_post_verify(&ok, vk, a.info->id, proof, rnd, a.sectors, a.n_sectors, a.partition, err,
                              sizeof err);
    if (st == CUZK_ERR_ARG) { /* sector count, partition, vk size: the arguments */
        fprintf(stderr, "cuzk-bench verify: %s\n", err);
        goto done;
    }
    if (ok)
        printf("valid\n");
    else
        printf("invalid: %s\n", err[0] ? err : "proof does not verify");
    rc = ok ? 0 : 1;
done:
    free(proof);
    cuzk_groth16_vk_free(vk);
    pb_free(&a);
    return rc;
}

static double pb_median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && v[k] < v[k - 1]; k--) {
            double t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    return v[n / 2];
}

/* cuzk_bench_post_random (post_cmds.h): xorshift bytes, top bits cleared. */
static void pb_rand32(uint8_t out[32], uint64_t *st)
{
    for (int i = 0; i < 32; i++) {
        *st ^= *st << 13, *st ^= *st >> 7, *st ^= *st << 17;
        out[i] = (uint8_t)*st;
    }
    out[31] &= 0x3f;
}

int cuzk_bench_post_random_ctx(cuzk_post_circuit_ctx *ctx, cuzk_bench_post_random *r, const cuzk_fil_post_info *info)
{
    memset(r, 0, sizeof *r);
    if (cuzk_post_circuit_blank(ctx, info)) return 1;
    const cuzk_por_shape *sh = &ctx->shape;
    const uint32_t ar[3] = {sh->base_arity, sh->sub_arity, sh->top_arity}, lv[3] = {sh->base_levels, 1, 1};
    uint32_t kind = sh->top_arity   ? CUZK_FIL_PROOF_TOP
                    : sh->sub_arity ? CUZK_FIL_PROOF_SUB
                                    : CUZK_FIL_PROOF_SINGLE;
    size_t cc = ctx->n_challenges, hashes = 0, levels = 0;
    for (uint32_t k = 0; k <= kind; k++)
        hashes += (size_t)lv[k] * (ar[k] - 1), levels += lv[k];
    r->sec = calloc(ctx->n_sectors, sizeof *r->sec);
    r->proofs = calloc(cc, sizeof *r->proofs);
    r->bytes = malloc(cc * hashes * 32);
    r->index = malloc(cc * levels * sizeof *r->index);
    if (!r->sec || !r->proofs || !r->bytes || !r->index) return 1;
    uint64_t st = 0x9e3779b97f4a7c15ull;
    for (size_t c = 0; c < cc; c++) {
        cuzk_fil_merkle_proof *p = &r->proofs[c];
        uint8_t *h = r->bytes + c * hashes * 32;
        uint64_t *ix = r->index + c * levels;
        p->kind = kind;
        pb_rand32(p->leaf, &st);
        for (uint32_t k = 0; k <= kind; k++) {
            p->path[k] = (cuzk_fil_path){lv[k], ar[k], h, ix};
            for (uint32_t l = 0; l < lv[k]; l++, ix++) {
                *ix = (st >> 11) % ar[k];
                for (uint32_t s = 0; s + 1 < ar[k]; s++, h += 32)
                    pb_rand32(h, &st);
            }
        }
    }
    for (size_t i = 0; i < ctx->n_sectors; i++) {
        pb_rand32(r->sec[i].comm_r, &st);
        pb_rand32(r->sec[i].comm_c, &st);
        pb_rand32(r->sec[i].comm_r_last, &st);
        r->sec[i].proofs = r->proofs;
    }
    ctx->sectors = r->sec;
    return 0;
}

void cuzk_bench_post_random_free(cuzk_bench_post_random *r)
{
    free(r->sec);
    free(r->proofs);
    free(r->bytes);
    free(r->index);
}

/* One synthesis of fn/ctx in mode on par (NULL: sequential); wall and
 * process CPU seconds. */
static int pb_synth_once(cuzk_cs_counts *k, double *wall, double *cpu, cuzk_circuit_fn fn, void *ctx,
                         const cuzk_fil_post_info *info, int mode, cuzk_par *par)
{
    cuzk_cs *cs = NULL;
    double t0 = cli_now(), c0 = cli_cpu_now();
    size_t nc = cuzk_post_num_constraints(info), ni = cuzk_post_num_inputs(info);
    int st = cuzk_cs_new(&cs, (cuzk_cs_mode)mode, 0);
    if (!st) st = cuzk_cs_reserve(cs, nc + ni + 1, ni + 1, nc);
    if (!st && par) st = cuzk_cs_set_par(cs, par, 0);
    if (!st) st = cuzk_cs_synthesize(cs, fn, ctx);
    *wall = cli_now() - t0;
    *cpu = cli_cpu_now() - c0;
    if (st)
        fprintf(stderr, "cuzk-bench synth: %s\n", cs ? cuzk_cs_error(cs) : cuzk_strerror(st));
    else
        cuzk_cs_get_counts(cs, k);
    cuzk_cs_free(cs);
    return st;
}

int cuzk_bench_post_synth(int argc, char **argv)
{
    pb_args a = {0};
    const char *usage = "usage: cuzk-bench synth --circuit winning-post|window-post --sector-size S "
                        "[--mode shape|prove|witness|check] [--repeat R] [--vanilla F ... --randomness HEX | "
                        "--random-witness] [--partition K] [--threads N] [--json]\n";
    if (pb_parse(&a, argc, argv, usage)) return 2;
    static const char *const modes[] = {"prove", "witness", "shape", "check"};
    bool values = a.n_vanilla || a.random_witness;
    int mode = values ? CUZK_CS_PROVE : CUZK_CS_SHAPE;
    if (a.mode)
        for (mode = 0; mode < 4 && strcmp(a.mode, modes[mode]); mode++) {
        }
    if (mode == 4 || (mode != CUZK_CS_SHAPE && !values) || a.reps > 64 || (a.n_vanilla && a.random_witness)) {
        fprintf(stderr,
                "cuzk-bench synth: modes other than shape need --vanilla and --randomness, or "
                "--random-witness\n%s",
                usage);
        pb_free(&a);
        return 2;
    }
    cuzk_post_job *j = NULL;
    cuzk_post_circuit_ctx blank;
    cuzk_bench_post_random rnd = {0};
    int rc = 0;
    if (a.n_vanilla)
        rc = pb_job(&j, &a, NULL);
    else if (a.random_witness ? cuzk_bench_post_random_ctx(&blank, &rnd, a.info) : cuzk_post_circuit_blank(&blank, a.info))
        rc = 1;
    cuzk_circuit_fn fn = cuzk_post_circuit;
    void *ctx = &blank;
    if (j) cuzk_post_job_circuit(j, &fn, &ctx); /* the job's context carries the witness */
    unsigned threads = bench_synth_threads(argc, argv, a.threads);
    cuzk_pool *pool = NULL; /* the sectors are spread over it (cuzk_cs_set_par) */
    if (!rc && threads > 1 && cuzk_pool_create(&pool, threads)) rc = 1;
    double wall[64], cpu[64];
    cuzk_cs_counts k = {0};
    for (size_t r = 0; r < a.reps && !rc; r++)
        rc = pb_synth_once(&k, &wall[r], &cpu[r], fn, ctx, a.info, mode, pool ? cuzk_pool_par(pool) : NULL);
    cuzk_pool_destroy(pool);
    cuzk_post_job_free(j);
    cuzk_bench_post_random_free(&rnd);
    if (!rc) {
        bench_synth_result res = {a.info->name,
                                  modes[mode],
                                  a.n_vanilla ? "vanilla" : a.random_witness ? "random" : "none",
                                  k.constraints,
                                  a.reps,
                                  pb_median(wall, a.reps),
                                  pb_median(cpu, a.reps),
                                  threads};
        bench_synth_report(&res, a.json);
    }
    pb_free(&a);
    return rc ? 1 : 0;
}
