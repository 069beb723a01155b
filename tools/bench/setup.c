/* `cuzk-bench setup (--circuit chain --size N | --r1cs F) --out DIR [--seed S]
 * [--threads T]`: random TEST parameters for a circuit, written as
 * DIR/<name>.params and DIR/<name>.vk (bellperson format) with the
 * `.test` sidecars that mark them as test parameters.
 *
 * Also the circuit-selection helpers of the Groth16 commands (g16_cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"
#include "cli_util.h"
#include "cuzk/filecoin.h"
#include "cuzk/groth16.h"
#include "cuzk/pce.h"
#include "cuzk/pool.h"
#include "cuzk/srs_trust.h"
#include "cuzk/status.h"
#include "g16_cli.h"
#include "porep_cmds.h"
#include "post_cmds.h"
#include "snap_cmds.h"

int g16_cli_parse_size(size_t *out, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !*s || *end || s[0] == '-') return -1;
    *out = (size_t)v;
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void g16_cli_progress_init(g16_cli_progress *pr)
{
    pr->start = pr->last = now_s();
}

void g16_cli_setup_progress(void *ctx, const char *phase, size_t done, size_t total)
{
    g16_cli_progress *pr = ctx;
    double t = now_s();
    if (done < total && t - pr->last < 2.0) return;
    if (t - pr->start >= 2.0) {
        double el = t - pr->start, rate = el > 0 ? (double)done / el : 0;
        double eta = rate > 0 ? (double)(total - done) / rate : 0;
        fprintf(stderr, "setup: %-16s %5.1f%% of %zu points, %.0f s, %.0f points/s, ETA %.0f s\n", phase,
                total ? 100.0 * (double)done / (double)total : 100.0, total, el, rate, eta);
    }
    pr->last = t;
}

int g16_cli_circuit_opt(g16_circuit_args *a, int argc, char **argv, int *i)
{
    const char *o = argv[*i];
    const char **dst = !strcmp(o, "--circuit") ? &a->circuit
                       : !strcmp(o, "--r1cs")  ? &a->r1cs
                       : !strcmp(o, "--wtns")  ? &a->wtns
                       : !strcmp(o, "--x0")    ? &a->x0
                                               : NULL;
    if (!dst && strcmp(o, "--size")) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "cuzk-bench: %s needs a value\n", o);
        return -1;
    }
    const char *v = argv[++*i];
    if (dst) {
        *dst = v;
    } else if (g16_cli_parse_size(&a->size, v) || a->size == 0) {
        fprintf(stderr, "cuzk-bench: --size must be a positive integer, got '%s'\n", v);
        return -1;
    }
    return 1;
}

int g16_cli_circuit_check(const g16_circuit_args *a, int need_witness)
{
    if (a->circuit && a->r1cs) {
        fprintf(stderr, "cuzk-bench: give either --circuit or --r1cs, not both\n");
        return 2;
    }
    if (a->circuit) {
        if (strcmp(a->circuit, "chain")) {
            fprintf(stderr, "cuzk-bench: unknown circuit '%s' (known: chain)\n", a->circuit);
            return 2;
        }
        if (!a->size) {
            fprintf(stderr, "cuzk-bench: --circuit chain needs --size N\n");
            return 2;
        }
        return 0;
    }
    if (!a->r1cs) {
        fprintf(stderr, "cuzk-bench: a circuit is required (--circuit chain --size N | --r1cs F)\n");
        return 2;
    }
    if (need_witness && !a->wtns) {
        fprintf(stderr, "cuzk-bench: --r1cs needs --wtns F to prove\n");
        return 2;
    }
    return 0;
}

void g16_cli_circuit_name(char *out, size_t cap, const g16_circuit_args *a)
{
    if (a->circuit) {
        snprintf(out, cap, "%s-%zu", a->circuit, a->size);
        return;
    }
    const char *b = strrchr(a->r1cs, '/');
    b = b ? b + 1 : a->r1cs;
    snprintf(out, cap, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && !strcmp(dot, ".r1cs")) *dot = 0;
}

int g16_cli_synth(cuzk_cs **out, g16_circuit_args *a, cuzk_cs_mode mode, unsigned flags)
{
    char err[256] = "";
    int st;
    *out = NULL;
    if (a->r1cs && !a->cc) {
        if ((st = cuzk_circom_r1cs_load(&a->cc, a->r1cs, err, sizeof err))) {
            fprintf(stderr, "cuzk-bench: %s: %s\n", a->r1cs, err);
            return st;
        }
        if (a->wtns && (st = cuzk_circom_wtns_load(a->cc, a->wtns, err, sizeof err))) {
            fprintf(stderr, "cuzk-bench: %s: %s\n", a->wtns, err);
            return st;
        }
    }
    if ((st = cuzk_cs_new(out, mode, flags))) return st;
    cuzk_chain_ctx chain = {.n = a->size};
    size_t x0 = 3;
    if (a->x0 && g16_cli_parse_size(&x0, a->x0)) {
        fprintf(stderr, "cuzk-bench: --x0 must be a non-negative integer\n");
        return CUZK_ERR_ARG;
    }
    cuzk_fr_from_u64(&chain.x0, x0);
    st = a->cc ? cuzk_cs_synthesize(*out, cuzk_circom_circuit, a->cc)
               : cuzk_cs_synthesize(*out, cuzk_chain_circuit, &chain);
    if (st) fprintf(stderr, "cuzk-bench: synthesis failed: %s\n", cuzk_cs_error(*out));
    return st;
}

void g16_cli_circuit_free(g16_circuit_args *a)
{
    cuzk_circom_free(a->cc);
    a->cc = NULL;
}

int g16_cli_setup_opts_take(g16_setup_opts *so, int *argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *o = argv[i], *v = i + 1 < *argc ? argv[i + 1] : NULL;
        uint64_t *num = !strcmp(o, "--mem-budget")  ? &so->mem_budget
                        : !strcmp(o, "--window-g1") ? &so->window_g1
                        : !strcmp(o, "--window-g2") ? &so->window_g2
                                                    : NULL;
        if (!strcmp(o, "--constant-time")) {
            so->constant_time = true;
        } else if (num || !strcmp(o, "--pce")) {
            if (!v) {
                fprintf(stderr, "cuzk-bench setup: %s needs a value\n", o);
                return 2;
            }
            if (!num) so->pce = v;
            else if (cli_u64(num, v, o)) return 2;
            i++;
        } else {
            argv[out++] = argv[i];
        }
    }
    *argc = out;
    argv[out] = NULL;
    return 0;
}

/* We made these points, so they are valid: a validation record lets every
 * later load skip point validation (cuzk/srs_trust.h).  A failed write is
 * removed, so that a full disk leaves no truncated file behind. */
static int finish_written(const char *path, int write_failed, const char *note, bool params)
{
    char err[CUZK_G16_ERR_LEN];
    if (write_failed || cuzk_groth16_mark_test(path, note)) {
        fprintf(stderr, "cuzk-bench setup: cannot write %s: %s\n", path,
                errno ? strerror(errno) : "write failed");
        remove(path);
        return 1;
    }
    if (params && cuzk_srs_record_write(path, NULL, err, sizeof err))
        fprintf(stderr, "cuzk-bench setup: warning: %s (it will be validated when loaded)\n", err);
    return 0;
}

/* The constant-time setup in memory (matrices from a SHAPE synthesis). */
static int setup_in_memory(cuzk_groth16_params **p, cuzk_circuit_fn fn, void *ctx, const char *seed,
                           cuzk_par *par, size_t *n_constraints)
{
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_cs *cs = NULL;
    cuzk_groth16_r1cs r;
    int st = cuzk_cs_new(&cs, CUZK_CS_SHAPE, CUZK_CS_MATRICES);
    if (!st) st = cuzk_cs_synthesize(cs, fn, ctx);
    if (!st) st = cuzk_groth16_r1cs_from_cs(&r, cs);
    if (st) {
        fprintf(stderr, "cuzk-bench setup: %s\n", cs ? cuzk_cs_error(cs) : cuzk_strerror(st));
        cuzk_cs_free(cs);
        return 1;
    }
    *n_constraints = r.n_constraints;
    g16_cli_progress pr;
    g16_cli_progress_init(&pr);
    st = cuzk_groth16_setup_test_progress(p, &r, (const uint8_t *)seed, strlen(seed), par, g16_cli_setup_progress,
                                          &pr, err, sizeof err);
    if (st) fprintf(stderr, "cuzk-bench setup: %s\n", err);
    cuzk_cs_free(cs);
    return st ? 1 : 0;
}

static int pce_progress(void *ctx, size_t constraints)
{
    g16_cli_progress *pr = ctx;
    double t = now_s();
    if (t - pr->last >= 2.0) {
        fprintf(stderr, "setup: recording the circuit (PCE), %zu constraints, %.0f s\n", constraints,
                t - pr->start);
        pr->last = t;
    }
    return 0;
}

/* The circuit's PCE at path: opened when it is there and of this circuit,
 * else (re)extracted. */
static int setup_pce(cuzk_pce **pce, const char *path, const cuzk_pce_identity *id, cuzk_circuit_fn fn, void *ctx)
{
    char err[CUZK_G16_ERR_LEN] = "";
    int st = cuzk_pce_open(pce, path, id, err, sizeof err);
    if (!st) {
        fprintf(stderr, "setup: using the circuit recorded in %s\n", path);
        return 0;
    }
    if (st != CUZK_ERR_IO || errno != ENOENT)
        fprintf(stderr, "setup: %s: %s; recording it again\n", path, err);
    g16_cli_progress pr;
    g16_cli_progress_init(&pr);
    if ((st = cuzk_pce_extract(path, id, fn, ctx, pce_progress, &pr, NULL, err, sizeof err)) ||
        (st = cuzk_pce_open(pce, path, id, err, sizeof err))) {
        fprintf(stderr, "cuzk-bench setup: %s: %s\n", path, err);
        return 1;
    }
    fprintf(stderr, "setup: circuit recorded in %s (%.1f s)\n", path, now_s() - pr.start);
    return 0;
}

void g16_cli_pce_identity(cuzk_pce_identity *id, char cid[64], uint32_t kind, uint64_t sector_size,
                          const char *param_id)
{
    char err[CUZK_G16_ERR_LEN];
    cuzk_circuit_fn fn;
    void *ctx = NULL;
    if (kind != CUZK_PCE_KIND_OTHER && !cuzk_pce_filecoin_circuit_id(cid, kind, sector_size) &&
        !cuzk_pce_filecoin_circuit(cid, id, &fn, &ctx, err, sizeof err)) {
        free(ctx);
        return;
    }
    cid[0] = 0;
    memset(id, 0, sizeof *id);
    id->kind = CUZK_PCE_KIND_OTHER;
    snprintf(id->id, sizeof id->id, "%s", param_id);
}

/* The streaming setup straight into params_path (and vk_path). */
static int setup_streaming(const char *params_path, const char *vk_path, const char *seed, cuzk_par *par,
                           const g16_setup_opts *so, const cuzk_pce_identity *id, const char *cid,
                           cuzk_circuit_fn fn, void *ctx, size_t *n_constraints)
{
    char pce_path[4096], err[CUZK_G16_ERR_LEN] = "";
    const char *slash = strrchr(params_path, '/');
    int dir_len = slash ? (int)(slash - params_path) : 1;
    if (so->pce) /* else where the daemon looks: <param_cache>/<circuit id>.pce */
        snprintf(pce_path, sizeof pce_path, "%s", so->pce);
    else if (cid[0])
        snprintf(pce_path, sizeof pce_path, "%.*s/%s.pce", dir_len, slash ? params_path : ".", cid);
    else
        snprintf(pce_path, sizeof pce_path, "%.*s.pce", (int)(strlen(params_path) - 7), params_path);
    cuzk_pce *pce = NULL;
    if (setup_pce(&pce, pce_path, id, fn, ctx)) return 1;
    g16_cli_progress pr;
    g16_cli_progress_init(&pr);
    cuzk_groth16_setup_file_opts o = {params_path, vk_path, so->mem_budget, (unsigned)so->window_g1,
                                      (unsigned)so->window_g2, par, g16_cli_setup_progress, &pr};
    cuzk_groth16_setup_file_info info = {0};
    int st = cuzk_groth16_setup_test_file(pce, (const uint8_t *)seed, strlen(seed), &o, &info, err, sizeof err);
    cuzk_pce_close(pce);
    if (st) {
        fprintf(stderr, "cuzk-bench setup: %s\n", err);
        return 1;
    }
    *n_constraints = info.constraints;
    fprintf(stderr,
            "setup: %zu G1 + %zu G2 points, %.2f GB, %zu column pass(es) of %zu columns: prep %.1f s, H %.1f s, "
            "columns %.1f s, total %.1f s (%.0f points/s; variable-time tables%s, public test randomness)\n",
            info.g1_points, info.g2_points, (double)info.file_bytes / 1e9, info.passes, info.range, info.prep_s,
            info.h_s, info.columns_s, info.total_s,
            (double)(info.g1_points + info.g2_points) / (info.total_s > 0 ? info.total_s : 1),
            info.ifma ? ", AVX-512 IFMA additions" : "");
    return 0;
}

int g16_cli_setup_filecoin(const char *out_dir, const char *seed, unsigned threads, cuzk_circuit_fn fn,
                           void *ctx, const char *param_id, const char *name, const g16_setup_opts *so,
                           uint32_t pce_kind, uint64_t sector_size)
{
    mkdir(out_dir, 0777);
    cuzk_pool *pool = NULL;
    if (cuzk_pool_create(&pool, threads)) return 1;
    cuzk_groth16_params *p = NULL;
    char file[200], path[2][4096], note[300];
    int rc = 1;
    size_t n_constraints = 0;
    double t0 = now_s();
    for (int k = 0; k < 2; k++) {
        if (cuzk_fil_param_file_name(file, sizeof file, param_id, k ? "vk" : "params")) {
            fprintf(stderr, "cuzk-bench setup: parameter id '%s' makes no file name\n", param_id);
            goto done;
        }
        snprintf(path[k], sizeof path[k], "%s/%s", out_dir, file);
    }
    snprintf(note, sizeof note, "seed=%s circuit=%s", seed, name);
    if (so->constant_time) {
        if (setup_in_memory(&p, fn, ctx, seed, cuzk_pool_par(pool), &n_constraints)) goto done;
        for (int k = 0; k < 2; k++) {
            FILE *f = fopen(path[k], "wb");
            int w = !f  ? CUZK_ERR_IO
                    : k ? cuzk_groth16_vk_write(f, cuzk_groth16_params_vk(p))
                        : cuzk_groth16_params_write(f, p);
            errno = 0;
            if (finish_written(path[k], (f && fclose(f)) || w, note, !k)) goto done;
        }
    } else {
        cuzk_pce_identity id;
        char cid[64];
        g16_cli_pce_identity(&id, cid, pce_kind, sector_size, param_id);
        if (setup_streaming(path[0], path[1], seed, cuzk_pool_par(pool), so, &id, cid, fn, ctx, &n_constraints))
            goto done;
        errno = 0;
        if (finish_written(path[1], 0, note, false) || finish_written(path[0], 0, note, true)) goto done;
    }
    printf("%s\n%s\n", path[0], path[1]);
    fprintf(stderr,
            "setup: %s, %zu constraints: %.3f s (%s). TEST parameters (marked <file>.test): never use them for "
            "real proofs.\n",
            name, n_constraints, now_s() - t0, so->constant_time ? "constant time" : "streaming, variable time");
    rc = 0;
done:
    cuzk_groth16_params_free(p);
    cuzk_pool_destroy(pool);
    return rc;
}

int g16_cli_circuit_info(const g16_cli_info *inf, cuzk_circuit_fn fn, void *ctx, bool json)
{
    cuzk_cs *cs = NULL;
    double t0 = now_s();
    int st = cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0);
    if (!st) st = cuzk_cs_synthesize(cs, fn, ctx);
    if (st) {
        fprintf(stderr, "error: %s\n", cs ? cuzk_cs_error(cs) : cuzk_strerror(st));
        cuzk_cs_free(cs);
        return 1;
    }
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    cuzk_cs_free(cs);
    double secs = now_s() - t0;
    size_t rust = k.constraints - k.inputs;
    unsigned long long rss = cli_peak_rss();
    if (json) {
        printf(
            "{\"circuit\":\"%s\",\"registered_proof\":%llu,\"param_id\":\"%s\",%s%s\"constraints\":%zu,"
            "\"rust_constraints\":%zu,\"inputs\":%zu,\"aux\":%zu,\"nnz_a\":%zu,\"nnz_b\":%zu,\"nnz_c\":%zu,"
            "\"a_aux_density\":%zu,\"b_input_density\":%zu,\"b_aux_density\":%zu,\"shape_s\":%.3f,"
            "\"peak_rss_bytes\":%llu}\n",
            inf->name, (unsigned long long)inf->id, inf->param_id, inf->shape_json,
            inf->shape_json[0] ? "," : "", k.constraints, rust, k.inputs, k.aux, k.nnz_a, k.nnz_b, k.nnz_c,
            k.a_aux_density, k.b_input_density, k.b_aux_density, secs, rss);
    } else {
        printf("circuit          %s (registered proof %llu)\n", inf->name, (unsigned long long)inf->id);
        printf("param id         %s\n", inf->param_id);
        printf("shape            %s\n", inf->shape_text);
        printf("constraints      %zu (rust-fil-proofs count %zu + %zu input constraints)\n", k.constraints,
               rust, k.inputs);
        printf("inputs           %zu (incl. ONE) = n_ic\n", k.inputs);
        printf("aux              %zu\n", k.aux);
        printf("nonzeros A/B/C   %zu / %zu / %zu\n", k.nnz_a, k.nnz_b, k.nnz_c);
        printf("density a_aux    %zu, b_input %zu, b_aux %zu\n", k.a_aux_density, k.b_input_density,
               k.b_aux_density);
        printf("shape synthesis  %.3f s, peak RSS %.1f MiB\n", secs, (double)rss / 1048576.0);
    }
    if (inf->expect_rust && rust != inf->expect_rust) {
        fprintf(stderr, "circuit-info: %zu constraints, the gadget costs predict %zu\n", rust,
                inf->expect_rust);
        return 1;
    }
    return 0;
}

uint8_t *g16_cli_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cuzk-bench: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap);
    for (size_t k; b && (k = fread(b + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) {
            uint8_t *t = realloc(b, cap *= 2);
            if (!t) {
                free(b);
                b = NULL;
            } else {
                b = t;
            }
        }
    }
    if (!b || ferror(f)) {
        fprintf(stderr, "cuzk-bench: %s: read failed\n", path);
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = n;
    return b;
}

/* ---- setup -------------------------------------------------------------------- */

static int write_file(const char *path, const cuzk_groth16_params *p, int vk_only)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cuzk-bench: %s: %s\n", path, strerror(errno));
        return 1;
    }
    int st = vk_only ? cuzk_groth16_vk_write(f, cuzk_groth16_params_vk(p)) : cuzk_groth16_params_write(f, p);
    if (fclose(f) || st) {
        fprintf(stderr, "cuzk-bench: %s: write failed\n", path);
        return 1;
    }
    return 0;
}

int cmd_setup(int argc, char **argv)
{
    g16_setup_opts so = {0};
    if (cuzk_bench_post_wants(argc, argv) || cuzk_bench_porep_wants(argc, argv) ||
        cuzk_bench_snap_wants(argc, argv)) {
        if (g16_cli_setup_opts_take(&so, &argc, argv)) return 2;
        if (cuzk_bench_post_wants(argc, argv)) return cuzk_bench_post_setup(argc, argv, &so);
        if (cuzk_bench_porep_wants(argc, argv)) return cuzk_bench_porep_setup(argc, argv, &so);
        return cuzk_bench_snap_setup(argc, argv, &so);
    }
    g16_circuit_args ca = {0};
    const char *out = NULL, *seed = "cuzk-test-seed";
    size_t threads = 2;
    for (int i = 1; i < argc; i++) {
        int r = g16_cli_circuit_opt(&ca, argc, argv, &i);
        if (r < 0) return 2;
        if (r) continue;
        if (i + 1 < argc && !strcmp(argv[i], "--out"))
            out = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--seed"))
            seed = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--threads")) {
            if (g16_cli_parse_size(&threads, argv[++i]) || !threads) return 2;
        } else {
            fprintf(stderr, "usage: cuzk-bench setup (--circuit chain --size N | --r1cs F) --out DIR "
                            "[--seed S] [--threads T]\n");
            return 2;
        }
    }
    if (g16_cli_circuit_check(&ca, 0)) return 2;
    if (!out) {
        fprintf(stderr, "cuzk-bench setup: --out DIR is required\n");
        return 2;
    }
    mkdir(out, 0777);
    cuzk_pool *pool = NULL;
    if (cuzk_pool_create(&pool, (unsigned)threads)) return 1;
    cuzk_cs *cs = NULL;
    cuzk_groth16_params *p = NULL;
    int rc = 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (g16_cli_synth(&cs, &ca, CUZK_CS_SHAPE, CUZK_CS_MATRICES)) goto done;
    cuzk_groth16_r1cs r;
    char err[CUZK_G16_ERR_LEN] = "";
    if (cuzk_groth16_r1cs_from_cs(&r, cs)) goto done;
    g16_cli_progress pr;
    g16_cli_progress_init(&pr);
    if (cuzk_groth16_setup_test_progress(&p, &r, (const uint8_t *)seed, strlen(seed), cuzk_pool_par(pool),
                                         g16_cli_setup_progress, &pr, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench setup: %s\n", err);
        goto done;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    char name[200], path[4096], note[300];
    g16_cli_circuit_name(name, sizeof name, &ca);
    snprintf(note, sizeof note, "seed=%s", seed);
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s.%s", out, name, k ? "vk" : "params");
        errno = 0;
        if (finish_written(path, write_file(path, p, k), note, !k)) goto done;
        printf("%s\n", path);
    }
    fprintf(stderr,
            "setup: %zu constraints, %zu inputs, %zu aux: %.3f s. TEST parameters (marked "
            "<file>.test): never use them for real proofs.\n",
            r.n_constraints, r.n_inputs, r.n_aux,
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    rc = 0;
done:
    cuzk_groth16_params_free(p);
    cuzk_cs_free(cs);
    g16_cli_circuit_free(&ca);
    cuzk_pool_destroy(pool);
    return rc;
}
