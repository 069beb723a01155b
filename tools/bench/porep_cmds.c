/* cuzk-bench subcommands for the StackedDRG PoRep circuit (cuzk/porep.h),
 * reached from the generic commands when --circuit is porep:
 *
 *   circuit-info --circuit porep --sector-size S [--registered-proof N] [--json]
 *   setup  --circuit porep --sector-size S --out DIR [--seed S] [--threads T]
 *          (TEST params under their v28 names, with .test sidecars)
 *   prove  --circuit porep --params F --c1 F [--sector-size S] [--registered-proof N]
 *          --out PROOF [--inputs-out F] [--threads T] [--deterministic] [--no-validate]
 *          (--no-validate trusts the params file: no point checks, for test
 *          params this machine just made; every partition; the proof is the partitions concatenated, each
 *          self-verified; --inputs-out: partition-major 32-byte LE Fr, no ONE)
 *   verify --circuit porep --sector-size S --vk F --proof F --comm-r HEX --comm-d HEX
 *          --prover-id HEX --sector-id N --ticket HEX --seed HEX
 *          [--registered-proof N | --porep-id HEX --api-version 1.0|1.1|1.2]
 *          (prints `valid` / `invalid: <reason>`; exit 0 / 1, 2 for bad arguments)
 *   synth  --circuit porep (--c1 F [--partition K] | --sector-size S --random-witness)
 *          [--mode prove|witness|shape|check] [--json]  (the synth-only benchmark)
 *
 * S = 2KiB 8MiB 512MiB 32GiB 64GiB; without --registered-proof the V1_1
 * proof of the size (ids 5-9).  Hex values are the 32 bytes as stored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "cli_util.h"
#include "cuzk/pool.h"
#include "cuzk/porep.h"
#include "cuzk/status.h"
#include "g16_cli.h"
#include "porep_cmds.h"

typedef struct {
    cuzk_porep_config cfg;
    bool have_cfg, json, det, random_witness, no_validate;
    const char *out, *params, *vk, *proof, *c1, *inputs_out, *seed, *mode;
    const char *comm_r, *comm_d, *prover_id, *ticket, *seed_hex, *porep_id, *api;
    uint64_t sector_id, partition, threads;
    bool have_sector_id, have_partition, mmap;
    const char *pce;
} rp_args;

bool cuzk_bench_porep_wants(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--circuit")) return !strcmp(argv[i + 1], "porep");
    return false;
}

static int rp_api(const char *s)
{
    return !strcmp(s, "1.0")   ? CUZK_FIL_API_V1_0
           : !strcmp(s, "1.1") ? CUZK_FIL_API_V1_1
           : !strcmp(s, "1.2") ? CUZK_FIL_API_V1_2
                               : -1;
}

/* The registered proof (or custom porep_id) from the options. */
static int rp_config(rp_args *a, const char *size, const char *reg)
{
    char err[256];
    uint64_t bytes = size ? cli_sector_size(size) : 0, id = UINT64_MAX;
    if (size && !bytes) {
        fprintf(stderr, "cuzk-bench: --sector-size %s: not a sector size\n", size);
        return 2;
    }
    if (reg && cli_u64(&id, reg, "--registered-proof")) return 2;
    if (a->porep_id) {
        uint8_t pid[32];
        int api = a->api ? rp_api(a->api) : -1;
        if (!bytes || api < 0 || cli_hex32(pid, a->porep_id, "--porep-id")) {
            fprintf(stderr, "cuzk-bench: --porep-id needs --sector-size and --api-version 1.0|1.1|1.2\n");
            return 2;
        }
        if (cuzk_porep_config_custom(&a->cfg, bytes, pid, api, err, sizeof err)) {
            fprintf(stderr, "cuzk-bench: %s\n", err);
            return 2;
        }
        a->have_cfg = true;
        return 0;
    }
    for (uint64_t k = 5; id == UINT64_MAX && bytes && k < 10; k++) {
        const cuzk_fil_seal_info *s;
        if (!cuzk_fil_seal_lookup(&s, k) && s->sector_size == bytes) id = k;
    }
    if (id == UINT64_MAX) return 0; /* from the C1, if the command has one */
    if (cuzk_porep_config_for(&a->cfg, id, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: %s\n", err);
        return 2;
    }
    if (bytes && a->cfg.info.sector_size != bytes) {
        fprintf(stderr, "cuzk-bench: registered proof %llu is %s, not %s\n", (unsigned long long)id,
                a->cfg.info.name, size);
        return 2;
    }
    a->have_cfg = true;
    return 0;
}

static int rp_parse(rp_args *a, int argc, char **argv, const char *usage)
{
    const char *size = NULL, *reg = NULL;
    a->threads = 2;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool *flag = !strcmp(o, "--json")             ? &a->json
                     : !strcmp(o, "--deterministic")  ? &a->det
                     : !strcmp(o, "--random-witness") ? &a->random_witness
                     : !strcmp(o, "--no-validate")    ? &a->no_validate
                     : !strcmp(o, "--mmap")           ? &a->mmap
                                                      : NULL;
        if (flag) {
            *flag = true;
            continue;
        }
        const char **str = !strcmp(o, "--circuit")            ? &a->mode /* checked by _wants */
                           : !strcmp(o, "--out")              ? &a->out
                           : !strcmp(o, "--params")           ? &a->params
                           : !strcmp(o, "--vk")               ? &a->vk
                           : !strcmp(o, "--proof")            ? &a->proof
                           : !strcmp(o, "--c1")               ? &a->c1
                           : !strcmp(o, "--inputs-out")       ? &a->inputs_out
                           : !strcmp(o, "--seed")             ? &a->seed
                           : !strcmp(o, "--mode")             ? &a->mode
                           : !strcmp(o, "--pce")              ? &a->pce
                           : !strcmp(o, "--comm-r")           ? &a->comm_r
                           : !strcmp(o, "--comm-d")           ? &a->comm_d
                           : !strcmp(o, "--prover-id")        ? &a->prover_id
                           : !strcmp(o, "--ticket")           ? &a->ticket
                           : !strcmp(o, "--porep-id")         ? &a->porep_id
                           : !strcmp(o, "--api-version")      ? &a->api
                           : !strcmp(o, "--sector-size")      ? &size
                           : !strcmp(o, "--registered-proof") ? &reg
                                                              : NULL;
        uint64_t *num = !strcmp(o, "--sector-id")   ? &a->sector_id
                        : !strcmp(o, "--partition") ? &a->partition
                        : !strcmp(o, "--threads")   ? &a->threads
                                                    : NULL;
        if ((!str && !num) || !v) {
            fprintf(stderr, "cuzk-bench: unknown or incomplete option %s\n%s", o, usage);
            return 2;
        }
        i++;
        if (str && !strcmp(o, "--circuit")) continue;
        if (str)
            *str = v;
        else if (cli_u64(num, v, o))
            return 2;
        if (num == &a->sector_id) a->have_sector_id = true;
        if (num == &a->partition) a->have_partition = true;
    }
    /* --seed is the sector's seed (hex) for verify, a setup seed otherwise */
    a->seed_hex = a->seed;
    if (!a->threads || a->threads > 1024) {
        fprintf(stderr, "cuzk-bench: --threads must be 1..1024\n");
        return 2;
    }
    return rp_config(a, size, reg);
}

static int rp_shape(cuzk_porep_shape *s, const rp_args *a)
{
    if (!a->have_cfg) {
        fprintf(stderr, "cuzk-bench: --sector-size (or --registered-proof) is required\n");
        return 2;
    }
    if (cuzk_porep_shape_for(s, &a->cfg.info)) {
        fprintf(stderr, "cuzk-bench: no circuit shape for %s\n", a->cfg.info.name);
        return 1;
    }
    return 0;
}

int cuzk_bench_porep_circuit_info(int argc, char **argv)
{
    rp_args a = {0};
    const char *usage =
        "usage: cuzk-bench circuit-info --circuit porep --sector-size S [--registered-proof N] "
        "[--json]\n";
    cuzk_porep_shape s;
    int rc = rp_parse(&a, argc, argv, usage);
    if (rc || (rc = rp_shape(&s, &a))) return rc;
    cuzk_porep_circuit_ctx c = {.shape = s};
    char pid[160] = "", text[160], js[160];
    if (cuzk_fil_seal_param_id(pid, sizeof pid, &a.cfg.info)) pid[0] = 0; /* a shape implies an id */
    snprintf(text, sizeof text, "%u partitions x %u challenges, %u layers, %llu nodes", a.cfg.info.partitions,
             s.challenges, s.layers, (unsigned long long)s.nodes);
    snprintf(js, sizeof js, "\"partitions\":%u,\"challenges\":%u,\"layers\":%u", a.cfg.info.partitions,
             s.challenges, s.layers);
    g16_cli_info inf = {a.cfg.info.name, pid, a.cfg.info.id, text, js, cuzk_porep_num_constraints(&s)};
    return g16_cli_circuit_info(&inf, cuzk_porep_circuit, &c, a.json);
}

int cuzk_bench_porep_setup(int argc, char **argv, const g16_setup_opts *so)
{
    rp_args a = {0};
    const char *usage = "usage: cuzk-bench setup --circuit porep --sector-size S --out DIR [--seed S] "
                        "[--threads T] " G16_SETUP_USAGE "\n";
    cuzk_porep_shape s;
    int rc = rp_parse(&a, argc, argv, usage);
    if (rc || (rc = rp_shape(&s, &a))) return rc;
    if (!a.out) {
        fprintf(stderr, "cuzk-bench setup: --out DIR is required\n%s", usage);
        return 2;
    }
    if (so->constant_time && cuzk_porep_num_constraints(&s) > (16u << 20)) {
        fprintf(stderr, "cuzk-bench setup: %s has %zu constraints: too large for the in-memory constant-time "
                        "setup (leave out --constant-time)\n",
                a.cfg.info.name, cuzk_porep_num_constraints(&s));
        return 1;
    }
    char pid[160];
    if (cuzk_fil_seal_param_id(pid, sizeof pid, &a.cfg.info)) {
        fprintf(stderr, "cuzk-bench setup: %s: no parameter id\n", a.cfg.info.name);
        return 1;
    }
    cuzk_porep_circuit_ctx c = {.shape = s};
    return g16_cli_setup_filecoin(a.out, a.seed ? a.seed : "cuzk-test-seed", (unsigned)a.threads,
                                  cuzk_porep_circuit, &c, pid, a.cfg.info.name, so, CUZK_PCE_KIND_POREP,
                                  a.cfg.info.sector_size);
}

/* Read --c1 and build the job (parse + native checks); message printed. */
static int rp_job(cuzk_porep_job **j, const rp_args *a, cuzk_par *par)
{
    size_t len = 0;
    char *json = (char *)g16_cli_read_file(a->c1, &len);
    if (!json) return 1;
    char err[1024] = "";
    double t0 = cli_now();
    uint64_t want = a->have_cfg ? a->cfg.info.id : UINT64_MAX;
    int st = cuzk_porep_job_new(j, json, len, want, NULL, 0, par, err, sizeof err);
    free(json);
    if (st) {
        fprintf(stderr, "cuzk-bench: %s: %s\n", a->c1, err);
        return 1;
    }
    fprintf(stderr, "porep: %s: parse + native check of %u partitions: %.3f s\n", a->c1,
            cuzk_porep_job_partitions(*j), cli_now() - t0);
    return 0;
}

static int rp_synth(void *ctx, uint32_t k, cuzk_cs_mode mode, cuzk_par *par, cuzk_cs **cs, char *err,
                    size_t err_len)
{
    return cuzk_porep_job_synthesize_par(cs, ctx, k, mode, 0, par, err, err_len);
}

static const cuzk_fr *rp_inputs(void *ctx, uint32_t k, size_t *n)
{
    return cuzk_porep_job_inputs(ctx, k, n);
}

int cuzk_bench_porep_prove(int argc, char **argv)
{
    rp_args a = {0};
    const char *usage = "usage: cuzk-bench prove --circuit porep --params F --c1 F [--sector-size S] "
                        "[--registered-proof N] --out PROOF [--inputs-out F] [--threads T] [--deterministic] "
                        "[--no-validate] [--partition K] [--pce F] [--mmap]\n";
    int rc = rp_parse(&a, argc, argv, usage);
    if (rc) return rc;
    if (!a.params || !a.c1 || !a.out) {
        fputs(usage, stderr);
        return 2;
    }
    cuzk_porep_job *j = NULL;
    cuzk_pool *pool = NULL; /* the native checks of the C1 run on it too */
    if (cuzk_pool_create(&pool, (unsigned)a.threads)) return 1;
    rc = rp_job(&j, &a, cuzk_pool_par(pool));
    cuzk_pool_destroy(pool);
    if (rc) return rc;
    g16_cli_prove_job pj = {.params = a.params,
                            .out = a.out,
                            .inputs_out = a.inputs_out,
                            .name = cuzk_porep_job_config(j)->info.name,
                            .threads = (unsigned)a.threads,
                            .deterministic = a.det,
                            .no_validate = a.no_validate,
                            .partitions = cuzk_porep_job_partitions(j),
                            .partition = a.have_partition ? (int64_t)a.partition : -1,
                            .mmap = a.mmap,
                            .pce = a.pce,
                            .pce_kind = CUZK_PCE_KIND_POREP,
                            .sector_size = cuzk_porep_job_config(j)->info.sector_size,
                            .synth = rp_synth,
                            .inputs = rp_inputs,
                            .ctx = j};
    rc = g16_cli_prove_partitions(&pj);
    cuzk_porep_job_free(j);
    return rc;
}

/* One partition's proof (192 bytes) against the public inputs computed here
 * from the sector's values: what `prove --partition K` wrote. */
static int rp_verify_partition(bool *ok, const cuzk_groth16_vk *vk, const rp_args *a, const cuzk_porep_sector *sec,
                               const uint8_t *proof, size_t len, char *err, size_t el)
{
    *ok = false;
    if (a->partition >= a->cfg.info.partitions)
        return cuzk_errf(err, el, CUZK_ERR_ARG, "--partition %llu: %s has %u partitions",
                         (unsigned long long)a->partition, a->cfg.info.name, a->cfg.info.partitions);
    if (len != CUZK_G16_PROOF_BYTES)
        return cuzk_errf(err, el, CUZK_ERR_ARG, "proof is %zu bytes, one partition's is %d", len,
                         CUZK_G16_PROOF_BYTES);
    size_t cap = vk->n_ic, n = 0;
    cuzk_fr *in = malloc(cap * sizeof *in);
    if (!in) return cuzk_errf(err, el, CUZK_ERR_NOMEM, "out of memory");
    int st = cuzk_porep_public_inputs(in, cap, &n, &a->cfg, sec, (uint32_t)a->partition, NULL, err, el);
    if (!st && n + 1 != vk->n_ic)
        st = cuzk_errf(err, el, CUZK_ERR_ARG, "verifying key has %zu IC points, %s needs %zu", vk->n_ic,
                       a->cfg.info.name, n + 1);
    if (!st) {
        cuzk_groth16_pvk pvk;
        cuzk_groth16_pvk_prepare(&pvk, vk);
        st = cuzk_groth16_verify(ok, &pvk, proof, in, n, err, el);
        if (!st && !*ok)
            cuzk_errf(err, el, CUZK_OK, "%s partition %llu: the proof does not verify for these inputs",
                      a->cfg.info.name, (unsigned long long)a->partition);
    }
    free(in);
    return st;
}

int cuzk_bench_porep_verify(int argc, char **argv)
{
    rp_args a = {0};
    const char *usage =
        "usage: cuzk-bench verify --circuit porep --sector-size S --vk F --proof F --comm-r HEX "
        "--comm-d HEX --prover-id HEX --sector-id N --ticket HEX --seed HEX "
        "[--registered-proof N | --porep-id HEX --api-version 1.0|1.1|1.2] [--partition K]\n";
    int rc = rp_parse(&a, argc, argv, usage);
    if (rc) return rc;
    cuzk_porep_sector sec;
    if (!a.have_cfg || !a.vk || !a.proof || !a.have_sector_id ||
        cli_hex32(sec.comm_r, a.comm_r, "--comm-r") || cli_hex32(sec.comm_d, a.comm_d, "--comm-d") ||
        cli_hex32(sec.prover_id, a.prover_id, "--prover-id") || cli_hex32(sec.ticket, a.ticket, "--ticket") ||
        cli_hex32(sec.seed, a.seed_hex, "--seed")) {
        fputs(usage, stderr);
        return 2;
    }
    sec.sector_id = a.sector_id;
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_load_opts lo = {.err = err, .err_len = sizeof err};
    cuzk_groth16_vk *vk = NULL;
    if (cuzk_groth16_vk_load(&vk, a.vk, &lo)) {
        fprintf(stderr, "cuzk-bench verify: %s: %s\n", a.vk, err);
        return 2;
    }
    size_t len = 0;
    uint8_t *proof = g16_cli_read_file(a.proof, &len);
    rc = 2;
    if (proof) {
        bool ok = false;
        int st = a.have_partition ? rp_verify_partition(&ok, vk, &a, &sec, proof, len, err, sizeof err)
                                  : cuzk_porep_verify(&ok, vk, &a.cfg, &sec, proof, len, err, sizeof err);
        if (st == CUZK_ERR_ARG && len % CUZK_G16_PROOF_BYTES == 0 && !strstr(err, "proof is")) {
            fprintf(stderr, "cuzk-bench verify: %s\n", err); /* vk size, partitions: the arguments */
        } else if (st || !ok) {
            printf("invalid: %s\n", err[0] ? err : "proof does not verify");
            rc = 1;
        } else {
            printf("valid\n");
            rc = 0;
        }
    }
    free(proof);
    cuzk_groth16_vk_free(vk);
    return rc;
}

int cuzk_bench_porep_synth(int argc, char **argv)
{
    rp_args a = {0};
    const char *usage = "usage: cuzk-bench synth --circuit porep (--c1 F [--partition K] | --sector-size S "
                        "--random-witness) [--mode prove|witness|shape|check] [--threads N] [--json]\n";
    int rc = rp_parse(&a, argc, argv, usage);
    if (rc) return rc;
    static const char *const modes[] = {"prove", "witness", "shape", "check"};
    int mode = CUZK_CS_PROVE;
    if (a.mode)
        for (mode = 0; mode < 4 && strcmp(a.mode, modes[mode]); mode++) {
        }
    if (mode == 4 || (!a.c1 && !a.random_witness && mode != CUZK_CS_SHAPE) || (a.c1 && a.random_witness)) {
        fprintf(stderr, "cuzk-bench synth: give --c1 F or --random-witness (or --mode shape)\n%s", usage);
        return 2;
    }
    cuzk_porep_job *j = NULL;
    cuzk_porep_random_witness rw = {0x5eed, {0}};
    cuzk_porep_circuit_ctx ctx = {0};
    if (a.c1) {
        if ((rc = rp_job(&j, &a, NULL))) return rc;
        if (a.partition >= cuzk_porep_job_partitions(j) ||
            cuzk_porep_job_circuit(&ctx, j, (uint32_t)a.partition)) {
            fprintf(stderr, "cuzk-bench synth: --partition %llu of %u\n", (unsigned long long)a.partition,
                    cuzk_porep_job_partitions(j));
            cuzk_porep_job_free(j);
            return 2;
        }
        a.cfg = *cuzk_porep_job_config(j);
    } else {
        if ((rc = rp_shape(&rw.shape, &a))) return rc;
        ctx.shape = rw.shape;
        ctx.witness = a.random_witness ? cuzk_porep_random_witness_fn : NULL;
        ctx.wctx = &rw;
    }
    unsigned threads = bench_synth_threads(argc, argv, a.threads);
    cuzk_pool *pool = NULL; /* the challenges are spread over it (cuzk_cs_set_par) */
    cuzk_cs *cs = NULL;
    int st = threads > 1 ? cuzk_pool_create(&pool, threads) : CUZK_OK;
    double t0 = cli_now(), c0 = cli_cpu_now();
    if (!st) st = cuzk_cs_new(&cs, (cuzk_cs_mode)mode, 0);
    size_t nc = cuzk_porep_num_constraints(&ctx.shape), ni = cuzk_porep_num_inputs(&ctx.shape);
    if (!st && !getenv("CUZK_SYNTH_NO_RESERVE")) st = cuzk_cs_reserve(cs, nc + ni + 1, ni + 1, nc);
    if (!st && pool) st = cuzk_cs_set_par(cs, cuzk_pool_par(pool), 0);
    if (!st) st = cuzk_cs_synthesize(cs, cuzk_porep_circuit, &ctx);
    double wall = cli_now() - t0, cpu = cli_cpu_now() - c0;
    cuzk_pool_destroy(pool);
    if (st) fprintf(stderr, "cuzk-bench synth: %s\n", cs ? cuzk_cs_error(cs) : cuzk_strerror(st));
    cuzk_cs_counts k = {0};
    if (!st) cuzk_cs_get_counts(cs, &k);
    size_t at = 0;
    const char *path = "";
    bool sat = !st && mode == CUZK_CS_CHECK && a.c1 ? cuzk_cs_is_satisfied(cs, &at, &path) : true;
    cuzk_cs_free(cs);
    if (j) free(ctx.wctx);
    cuzk_porep_job_free(j);
    if (st) return 1;
    if (!sat) { /* a C1 witness must satisfy the circuit (a random one never does) */
        fprintf(stderr, "cuzk-bench synth: constraint %zu is not satisfied\n", at);
        return 1;
    }
    bench_synth_result r = {a.cfg.info.name,
                            modes[mode],
                            a.c1 ? "c1" : a.random_witness ? "random" : "none",
                            k.constraints,
                            1,
                            wall,
                            cpu,
                            threads};
    bench_synth_report(&r, a.json);
    return 0;
}
