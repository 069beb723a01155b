/* cuzk-bench subcommands for the SnapDeals circuit (cuzk/snap.h), reached
 * from the generic commands when --circuit is snap:
 *
 *   circuit-info --circuit snap --sector-size S [--json]
 *   setup  --circuit snap --sector-size S --out DIR [--seed S] [--threads T]
 *   prove  --circuit snap --sector-size S --params F --vanilla F... --comm-r-old HEX
 *          --comm-r-new HEX --comm-d-new HEX --out F [--inputs-out F] [--threads T]
 *          [--deterministic] [--no-validate]
 *   verify --circuit snap --sector-size S --vk F --proof F --comm-r-old HEX
 *          --comm-r-new HEX --comm-d-new HEX [--registered-proof N]
 *   synth  --circuit snap (--sector-size S --random-witness | --vanilla F... ...) [--json]
 *
 * S = 2KiB 8MiB 512MiB 32GiB 64GiB (test sizes 1-32 KiB and 16 MiB with
 * CUZK_SNAP_TEST_SIZES=1, circuit-info and setup only); the registered
 * update proof is the size's (0-4).  Hex values are the 32 bytes as
 * stored.  --vanilla: one file per partition (raw bincode PartitionProof)
 * or one file holding Curio's JSON array of base64 partition proofs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_util.h"
#include "cuzk/filecoin.h"
#include "cuzk/pool.h"
#include "cuzk/snap.h"
#include "cuzk/status.h"
#include "g16_cli.h"
#include "snap_cmds.h"

#define SN_MAX_VANILLA 64

typedef struct {
    cuzk_snap_shape shape;
    const cuzk_snap_info *info; /* NULL for test sizes */
    bool json, det, no_validate, random_witness, mmap;
    const char *out, *params, *vk, *proof, *inputs_out, *seed, *cro, *crn, *cdn, *pce, *partition;
    const char *vanilla[SN_MAX_VANILLA];
    size_t n_vanilla;
    uint64_t threads;
} sn_args;

bool cuzk_bench_snap_wants(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--circuit")) return !strcmp(argv[i + 1], "snap");
    return false;
}

static int sn_parse(sn_args *a, int argc, char **argv, const char *usage)
{
    const char *size = NULL, *reg = NULL;
    a->threads = 2;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool *flag = !strcmp(o, "--json")             ? &a->json
                     : !strcmp(o, "--deterministic")  ? &a->det
                     : !strcmp(o, "--no-validate")    ? &a->no_validate
                     : !strcmp(o, "--random-witness") ? &a->random_witness
                     : !strcmp(o, "--mmap")           ? &a->mmap
                                                      : NULL;
        if (flag) {
            *flag = true;
            continue;
        }
        const char *dummy, **str = !strcmp(o, "--circuit")            ? &dummy
                                   : !strcmp(o, "--sector-size")      ? &size
                                   : !strcmp(o, "--registered-proof") ? &reg
                                   : !strcmp(o, "--out")              ? &a->out
                                   : !strcmp(o, "--params")           ? &a->params
                                   : !strcmp(o, "--vk")               ? &a->vk
                                   : !strcmp(o, "--proof")            ? &a->proof
                                   : !strcmp(o, "--inputs-out")       ? &a->inputs_out
                                   : !strcmp(o, "--seed")             ? &a->seed
                                   : !strcmp(o, "--comm-r-old")       ? &a->cro
                                   : !strcmp(o, "--comm-r-new")       ? &a->crn
                                   : !strcmp(o, "--comm-d-new")       ? &a->cdn
                                   : !strcmp(o, "--pce")              ? &a->pce
                                   : !strcmp(o, "--partition")        ? &a->partition
                                                                      : NULL;
        bool is_threads = !strcmp(o, "--threads"), is_vanilla = !strcmp(o, "--vanilla");
        if ((!str && !is_threads && !is_vanilla) || !v) {
            fprintf(stderr, "cuzk-bench: unknown or incomplete option %s\n%s", o, usage);
            return 2;
        }
        i++;
        if (str)
            *str = v;
        else if (is_threads && (cli_u64(&a->threads, v, o) || !a->threads || a->threads > 1024))
            return 2;
        else if (is_vanilla) {
            if (a->n_vanilla == SN_MAX_VANILLA) {
                fprintf(stderr, "cuzk-bench: at most %d --vanilla files\n", SN_MAX_VANILLA);
                return 2;
            }
            a->vanilla[a->n_vanilla++] = v;
        }
    }
    uint64_t id = UINT64_MAX, bytes = size ? cli_sector_size(size) : 0;
    if (reg && (cli_u64(&id, reg, "--registered-proof") || cuzk_snap_lookup(&a->info, id))) {
        fprintf(stderr, "cuzk-bench: --registered-proof: a registered update proof 0-4\n");
        return 2;
    }
    if (!reg) {
        a->info = NULL;
        for (uint64_t k = 0; k < 5 && bytes && !a->info; k++) {
            const cuzk_snap_info *in;
            if (!cuzk_snap_lookup(&in, k) && in->sector_size == bytes) a->info = in;
        }
    }
    if (a->info && bytes && a->info->sector_size != bytes) {
        fprintf(stderr, "cuzk-bench: registered update proof %llu is %s, not %s\n", (unsigned long long)id,
                a->info->name, size);
        return 2;
    }
    if (a->info) bytes = a->info->sector_size;
    const char *ts = getenv("CUZK_SNAP_TEST_SIZES");
    if (!bytes || cuzk_snap_shape_for(&a->shape, bytes, ts && !strcmp(ts, "1"))) {
        fprintf(stderr, "cuzk-bench: --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB is required\n%s", usage);
        return 2;
    }
    return 0;
}

/* --partition K: -1 when absent, -2 (reported) when not one of the shape's. */
static int64_t sn_partition(const sn_args *a)
{
    uint64_t k;
    if (!a->partition) return -1;
    if (cli_u64(&k, a->partition, "--partition")) return -2;
    if (k >= a->shape.partitions) {
        fprintf(stderr, "cuzk-bench: --partition %llu: %s has partitions 0-%u\n", (unsigned long long)k,
                a->info ? a->info->name : "this size", a->shape.partitions - 1);
        return -2;
    }
    return (int64_t)k;
}

static void sn_param_id(char *out, size_t cap, const sn_args *a)
{
    if (cuzk_fil_snap_param_id(out, cap, a->shape.sector_size))
        snprintf(out, cap, "empty-sector-update-test-%llu", (unsigned long long)a->shape.sector_size);
}

int cuzk_bench_snap_circuit_info(int argc, char **argv)
{
    sn_args a = {0};
    int rc =
        sn_parse(&a, argc, argv, "usage: cuzk-bench circuit-info --circuit snap --sector-size S [--json]\n");
    if (rc) return rc;
    cuzk_snap_circuit_ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    c->shape = a.shape;
    char pid[160], text[200], js[200], name[64];
    sn_param_id(pid, sizeof pid, &a);
    snprintf(name, sizeof name, "%s", a.info ? a.info->name : "EmptySectorUpdate (test size)");
    snprintf(text, sizeof text, "%u partitions x %u challenges, %u apex leaves, %llu nodes",
             a.shape.partitions, a.shape.challenges, a.shape.apex_leaves, (unsigned long long)a.shape.nodes);
    snprintf(js, sizeof js, "\"partitions\":%u,\"challenges\":%u,\"apex_leaves\":%u,\"sector_size\":%llu",
             a.shape.partitions, a.shape.challenges, a.shape.apex_leaves,
             (unsigned long long)a.shape.sector_size);
    g16_cli_info inf = {name, pid, a.info ? a.info->id : UINT64_MAX,
                        text, js,  cuzk_snap_num_constraints(&a.shape)};
    rc = g16_cli_circuit_info(&inf, cuzk_snap_circuit, c, a.json);
    free(c);
    return rc;
}

int cuzk_bench_snap_setup(int argc, char **argv, const g16_setup_opts *so)
{
    sn_args a = {0};
    const char *usage = "usage: cuzk-bench setup --circuit snap --sector-size S --out DIR [--seed S] [--threads T] "
                        G16_SETUP_USAGE "\n";
    int rc = sn_parse(&a, argc, argv, usage);
    if (rc) return rc;
    if (!a.out) {
        fprintf(stderr, "cuzk-bench setup: --out DIR is required\n%s", usage);
        return 2;
    }
    if (so->constant_time && a.shape.nodes > (1u << 18)) {
        fprintf(stderr,
                "cuzk-bench setup: %llu-byte update circuits are too large for the in-memory constant-time setup "
                "(leave out --constant-time)\n",
                (unsigned long long)a.shape.sector_size);
        return 1;
    }
    cuzk_snap_circuit_ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    c->shape = a.shape;
    char pid[160];
    sn_param_id(pid, sizeof pid, &a);
    rc = g16_cli_setup_filecoin(a.out, a.seed ? a.seed : "cuzk-test-seed", (unsigned)a.threads,
                                cuzk_snap_circuit, c, pid,
                                a.info ? a.info->name : "EmptySectorUpdate test size", so,
                                a.info ? CUZK_PCE_KIND_SNAP : CUZK_PCE_KIND_OTHER, a.shape.sector_size);
    free(c);
    return rc;
}

int cuzk_bench_snap_verify(int argc, char **argv)
{
    sn_args a = {0};
    const char *usage =
        "usage: cuzk-bench verify --circuit snap --sector-size S --vk F --proof F --comm-r-old HEX "
        "--comm-r-new HEX --comm-d-new HEX [--registered-proof N] [--partition K]\n"
        "  (--partition K: F is partition K's 192-byte proof, as prove --partition K writes it)\n";
    int rc = sn_parse(&a, argc, argv, usage);
    if (rc) return rc;
    int64_t part = sn_partition(&a);
    if (part == -2) return 2;
    uint8_t cro[32], crn[32], cdn[32];
    if (!a.vk || !a.proof || cli_hex32(cro, a.cro, "--comm-r-old") || cli_hex32(crn, a.crn, "--comm-r-new") ||
        cli_hex32(cdn, a.cdn, "--comm-d-new")) {
        fputs(usage, stderr);
        return 2;
    }
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
        int st;
        if (part >= 0) { /* one partition: its own public inputs, one pairing check */
            cuzk_fr in[4];
            st = vk->n_ic != 5 ? cuzk_errf(err, sizeof err, CUZK_ERR_ARG,
                                           "verifying key has %zu IC points, the update circuit needs 5", vk->n_ic)
                 : len != CUZK_G16_PROOF_BYTES
                     ? cuzk_errf(err, sizeof err, CUZK_ERR_ARG, "proof is %zu bytes, want one partition's %d",
                                 len, CUZK_G16_PROOF_BYTES)
                     : cuzk_snap_public_inputs(in, &a.shape, (uint32_t)part, a.shape.hs[3], cro, cdn, crn, err,
                                               sizeof err);
            if (!st) {
                cuzk_groth16_pvk pvk;
                cuzk_groth16_pvk_prepare(&pvk, vk);
                st = cuzk_groth16_verify(&ok, &pvk, proof, in, 4, err, sizeof err);
            }
        } else {
            st = cuzk_snap_verify(&ok, vk, &a.shape, a.shape.hs[3], cro, cdn, crn, proof, len, err, sizeof err);
        }
        if (st == CUZK_ERR_ARG && strstr(err, "IC points")) {
            fprintf(stderr, "cuzk-bench verify: %s\n", err);
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

/* Read the --vanilla files and build the job (message printed). */
static int sn_job(cuzk_snap_job **j, const sn_args *a)
{
    uint8_t cro[32], crn[32], cdn[32];
    if (!a->info || !a->n_vanilla || cli_hex32(cro, a->cro, "--comm-r-old") ||
        cli_hex32(crn, a->crn, "--comm-r-new") || cli_hex32(cdn, a->cdn, "--comm-d-new")) {
        fprintf(stderr,
                "cuzk-bench: a registered size, --vanilla F... and the three commitments are required\n");
        return 2;
    }
    uint8_t *bufs[SN_MAX_VANILLA] = {0};
    size_t lens[SN_MAX_VANILLA];
    int rc = 0;
    for (size_t i = 0; !rc && i < a->n_vanilla; i++)
        if (!(bufs[i] = g16_cli_read_file(a->vanilla[i], &lens[i]))) rc = 1;
    char err[1024] = "";
    double t0 = cli_now();
    if (!rc && cuzk_snap_job_new(j, a->info->id, (const uint8_t *const *)bufs, lens, a->n_vanilla, cro, cdn,
                                 crn, NULL, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench: %s\n", err);
        rc = 1;
    }
    for (size_t i = 0; i < a->n_vanilla; i++)
        free(bufs[i]);
    if (!rc)
        fprintf(stderr, "snap: parse + native check of %u partitions: %.3f s\n", cuzk_snap_job_partitions(*j),
                cli_now() - t0);
    return rc;
}

static int sn_synth(void *ctx, uint32_t k, cuzk_cs_mode mode, cuzk_par *par, cuzk_cs **cs, char *err,
                    size_t err_len)
{
    (void)par;
    return cuzk_snap_job_synthesize(cs, ctx, k, mode, 0, err, err_len);
}

static const cuzk_fr *sn_inputs(void *ctx, uint32_t k, size_t *n)
{
    return cuzk_snap_job_inputs(ctx, k, n);
}

int cuzk_bench_snap_prove(int argc, char **argv)
{
    sn_args a = {0};
    const char *usage =
        "usage: cuzk-bench prove --circuit snap --sector-size S --params F --vanilla F... --comm-r-old "
        "HEX --comm-r-new HEX --comm-d-new HEX --out F [--inputs-out F] [--threads T] [--deterministic] "
        "[--no-validate] [--partition K] [--pce F] [--mmap]\n"
        "  (--partition K: only partition K; --pce F: WITNESS synthesis + the lean PCE evaluation, as the\n"
        "   daemon; --mmap: the params mapped, not read -- a 32 GiB file larger than RAM)\n";
    int rc = sn_parse(&a, argc, argv, usage);
    if (rc) return rc;
    int64_t part = sn_partition(&a);
    if (part == -2) return 2;
    if (!a.params || !a.out) {
        fputs(usage, stderr);
        return 2;
    }
    cuzk_snap_job *j = NULL;
    if ((rc = sn_job(&j, &a))) return rc;
    g16_cli_prove_job pj = {.params = a.params,
                            .out = a.out,
                            .inputs_out = a.inputs_out,
                            .name = a.info->name,
                            .threads = (unsigned)a.threads,
                            .deterministic = a.det,
                            .no_validate = a.no_validate,
                            .mmap = a.mmap,
                            .partitions = cuzk_snap_job_partitions(j),
                            .partition = part,
                            .pce = a.pce,
                            .pce_kind = CUZK_PCE_KIND_SNAP,
                            .sector_size = a.shape.sector_size,
                            .synth = sn_synth,
                            .inputs = sn_inputs,
                            .ctx = j};
    rc = g16_cli_prove_partitions(&pj);
    cuzk_snap_job_free(j);
    return rc;
}

int cuzk_bench_snap_synth(int argc, char **argv)
{
    sn_args a = {0};
    const char *usage =
        "usage: cuzk-bench synth --circuit snap --sector-size S (--random-witness | --vanilla F... "
        "--comm-r-old HEX --comm-r-new HEX --comm-d-new HEX [--partition K --mode check]) [--threads N] "
        "[--json]\n";
    /* --partition and --mode are ours here: take them out before the shared parser */
    uint64_t partition = 0;
    int mode = CUZK_CS_PROVE;
    static const char *const modes[] = {"prove", "witness", "shape", "check"};
    char **av = calloc((size_t)argc + 1, sizeof *av);
    int ac = 0;
    if (!av) return 1;
    for (int i = 0; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--partition")) {
            if (cli_u64(&partition, argv[++i], "--partition")) return free(av), 2;
        } else if (i + 1 < argc && !strcmp(argv[i], "--mode")) {
            for (mode = 0; mode < 4 && strcmp(argv[i + 1], modes[mode]); mode++) {
            }
            i++;
        } else {
            av[ac++] = argv[i];
        }
    }
    int rc = mode == 4 ? 2 : sn_parse(&a, ac, av, usage);
    free(av);
    if (rc) return rc;
    cuzk_snap_job *j = NULL;
    cuzk_snap_circuit_ctx *ctx = calloc(1, sizeof *ctx);
    cuzk_snap_random_witness rw = {0x5eed, a.shape};
    if (!ctx) return 1;
    if (a.n_vanilla) {
        if ((rc = sn_job(&j, &a)) || partition >= cuzk_snap_job_partitions(j) ||
            cuzk_snap_job_circuit(ctx, j, (uint32_t)partition)) {
            if (!rc)
                fprintf(stderr, "cuzk-bench synth: --partition %llu out of range\n",
                        (unsigned long long)partition);
            cuzk_snap_job_free(j);
            free(ctx);
            return rc ? rc : 2;
        }
    } else if (a.random_witness || mode == CUZK_CS_SHAPE) {
        ctx->shape = a.shape;
        ctx->h = a.shape.hs[3];
        ctx->witness = a.random_witness ? cuzk_snap_random_witness_fn : NULL;
        ctx->wctx = &rw;
    } else {
        fprintf(stderr, "cuzk-bench synth: give --vanilla ... or --random-witness (or --mode shape)\n%s",
                usage);
        free(ctx);
        return 2;
    }
    unsigned threads = bench_synth_threads(argc, argv, a.threads);
    cuzk_pool *pool = NULL; /* the challenges are spread over it (cuzk_cs_set_par) */
    cuzk_cs *cs = NULL;
    int st = threads > 1 ? cuzk_pool_create(&pool, threads) : CUZK_OK;
    double t0 = cli_now(), c0 = cli_cpu_now();
    if (!st) st = cuzk_cs_new(&cs, (cuzk_cs_mode)mode, 0);
    size_t nc = cuzk_snap_num_constraints(&a.shape);
    if (!st) st = cuzk_cs_reserve(cs, nc + 5, 5, nc);
    if (!st && pool) st = cuzk_cs_set_par(cs, cuzk_pool_par(pool), 0);
    if (!st) st = cuzk_cs_synthesize(cs, cuzk_snap_circuit, ctx);
    double wall = cli_now() - t0, cpu = cli_cpu_now() - c0;
    cuzk_pool_destroy(pool);
    cuzk_cs_counts k = {0};
    if (st)
        fprintf(stderr, "cuzk-bench synth: %s\n", cs ? cuzk_cs_error(cs) : cuzk_strerror(st));
    else
        cuzk_cs_get_counts(cs, &k);
    size_t at = 0;
    const char *path;
    bool sat = !st && mode == CUZK_CS_CHECK ? cuzk_cs_is_satisfied(cs, &at, &path) : true;
    cuzk_cs_free(cs);
    if (j) free(ctx->wctx);
    free(ctx);
    cuzk_snap_job_free(j);
    if (st) return 1;
    if (!sat) {
        fprintf(stderr, "cuzk-bench synth: constraint %zu is not satisfied\n", at);
        return 1;
    }
    const char *name = a.info ? a.info->name : "EmptySectorUpdate (test size)";
    bench_synth_result r = {
        name,          modes[mode], a.n_vanilla ? "vanilla" : a.random_witness ? "random" : "none",
        k.constraints, 1,           wall,
        cpu,           threads};
    bench_synth_report(&r, a.json);
    if (mode == CUZK_CS_CHECK && !a.json) printf("satisfied\n");
    return 0;
}
