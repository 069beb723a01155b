/* `cuzk-bench pce`: the pre-compiled constraint evaluator's files
 * (cuzk/pce.h, docs/pce.md), and `cuzk-bench synth ... --pce F | --no-pce`.
 *
 *   pce extract --circuit porep|winning-post|window-post|snap --sector-size S
 *               [--out FILE | --params-dir DIR]        (or --circuit-id ID)
 *   pce info FILE [--json]
 *   pce verify FILE [--threads T]
 *   pce digest --circuit ... --sector-size S            (or --circuit-id ID)
 *   synth --circuit porep|snap --sector-size S [--random-witness]
 *         (--pce FILE | --no-pce) [--threads T] [--seed N] [--through-h] [--json]
 *         [--repeat N] [--no-reuse]
 *
 * extract records the blank circuit (SHAPE mode, streaming: memory is a few
 * bits per variable) to FILE (default <DIR or .>/<circuit id>.pce) with
 * progress on stderr.  verify maps the file (header and body SHA-256,
 * sections) and decodes every record.  digest computes the circuit's R1CS
 * digest as this build records it (cuzk_pce_digest: what the engine
 * computes once per circuit to judge a file) and its cost.  synth --pce synthesizes a random
 * witness in WITNESS mode and evaluates a, b, c through the file (T threads
 * for the mat-vec); --no-pce is direct PROVE-mode synthesis of the same
 * witness: the A/B pair of docs/perf-notes.md.  --through-h carries the
 * partition on through H as the prover does (synth_h.c: lean with the PCE,
 * classic without) and reports its times and memory peaks.  --repeat N runs
 * the partition N times, a line each (wall, user+sys and sys seconds,
 * constraints per cpu-s), reusing its buffers (the aux assignment and the
 * three evaluation vectors: cuzk_cs_give_buffers) from one iteration to the
 * next as the engine's partition pool does; --no-reuse frees them each
 * time (the A/B of docs/perf-notes.md "Partition buffers"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_util.h"
#include "post_cmds.h"
#include "cuzk/mapguard.h"
#include "cuzk/pce.h"
#include "cuzk/pool.h"
#include "cuzk/porep.h"
#include "cuzk/post.h"
#include "cuzk/seal_snap.h"
#include "cuzk/snap.h"
#include "cuzk/status.h"

typedef struct {
    const char *circuit, *size, *circuit_id, *out, *dir, *file, *pce;
    bool no_pce, json, through_h, no_reuse;
    unsigned threads, repeat;
    uint64_t seed;
} pce_args;

static int parse(pce_args *a, int argc, char **argv, int first)
{
    memset(a, 0, sizeof *a);
    a->threads = 1;
    a->repeat = 1;
    a->seed = 0x5eed;
    for (int i = first; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = !strcmp(k, "--circuit")       ? &a->circuit
                            : !strcmp(k, "--sector-size") ? &a->size
                            : !strcmp(k, "--circuit-id")  ? &a->circuit_id
                            : !strcmp(k, "--out")         ? &a->out
                            : !strcmp(k, "--params-dir")  ? &a->dir
                            : !strcmp(k, "--pce")         ? &a->pce
                                                          : NULL;
        if (slot && v) {
            *slot = v;
            i++;
        } else if (!strcmp(k, "--threads") && v) {
            a->threads = (unsigned)strtoul(v, NULL, 10);
            i++;
        } else if (!strcmp(k, "--repeat") && v) {
            uint64_t r;
            if (cli_u64(&r, v, "--repeat") || !r || r > 100) {
                fprintf(stderr, "cuzk-bench synth: --repeat must be 1..100\n");
                return 2;
            }
            a->repeat = (unsigned)r;
            i++;
        } else if (!strcmp(k, "--no-reuse")) {
            a->no_reuse = true;
        } else if (!strcmp(k, "--seed") && v) {
            a->seed = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(k, "--no-pce")) {
            a->no_pce = true;
        } else if (!strcmp(k, "--through-h")) {
            a->through_h = true; /* synth_h.c */
        } else if (!strcmp(k, "--json")) {
            a->json = true;
        } else if (!strcmp(k, "--random-witness") || !strcmp(k, "pce") || !strcmp(k, "synth")) {
        } else if (k[0] != '-' && !a->file) {
            a->file = k;
        } else {
            fprintf(stderr, "cuzk-bench pce: unexpected argument '%s'\n", k);
            return 2;
        }
    }
    if (a->threads < 1 || a->threads > CUZK_POOL_MAX_THREADS) {
        fprintf(stderr, "cuzk-bench pce: --threads must be 1..%u\n", CUZK_POOL_MAX_THREADS);
        return 2;
    }
    return 0;
}

/* --circuit + --sector-size (or --circuit-id) -> daemon circuit id */
static int circuit_id_of(char out[64], const pce_args *a)
{
    if (a->circuit_id) {
        snprintf(out, 64, "%s", a->circuit_id);
        return 0;
    }
    static const struct {
        const char *name;
        uint32_t kind;
    } k[] = {{"porep", CUZK_PCE_KIND_POREP},
             {"winning-post", CUZK_PCE_KIND_WINNING_POST},
             {"window-post", CUZK_PCE_KIND_WINDOW_POST},
             {"post", CUZK_PCE_KIND_WINDOW_POST},
             {"snap", CUZK_PCE_KIND_SNAP}};
    uint64_t bytes = a->size ? cli_sector_size(a->size) : 0;
    for (size_t i = 0; a->circuit && i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(a->circuit, k[i].name)) {
            if (!cuzk_pce_filecoin_circuit_id(out, k[i].kind, bytes)) return 0;
            fprintf(stderr, "cuzk-bench pce: no %s circuit for sector size '%s'\n", a->circuit,
                    a->size ? a->size : "(none)");
            return 2;
        }
    fprintf(stderr, "cuzk-bench pce: give --circuit porep|winning-post|window-post|snap --sector-size S "
                    "(or --circuit-id ID)\n");
    return 2;
}

static int progress(void *ctx, size_t n)
{
    double *t0 = ctx;
    double dt = cli_now() - *t0;
    fprintf(stderr, "  %zu constraints recorded, %.1f s (%.2f M/s)\n", n, dt,
            dt > 0 ? (double)n / dt / 1e6 : 0.0);
    return 0;
}

static void digest_hex(char out[65], const uint8_t d[32])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void print_info(const char *path, const cuzk_pce_info *in, bool json)
{
    size_t nnz = in->nnz[0] + in->nnz[1] + in->nnz[2];
    double per = nnz ? (double)in->file_bytes / (double)nnz : 0;
    char hex[65];
    digest_hex(hex, in->r1cs_digest);
    if (json) {
        printf("{\"file\":\"%s\",\"version\":%u,\"kind\":%u,\"registered_proof\":%llu,\"circuit_id\":\"%s\","
               "\"constraints\":%zu,\"inputs\":%zu,\"aux\":%zu,\"nnz_a\":%zu,\"nnz_b\":%zu,\"nnz_c\":%zu,"
               "\"dict\":%zu,\"zero\":%zu,\"unit\":%zu,\"pow2\":%zu,\"dict_entries\":%zu,\"file_bytes\":%llu,"
               "\"record_bytes\":%llu,\"bytes_per_nonzero\":%.3f,\"r1cs_digest\":\"%s\"}\n",
               path, in->version, in->identity.kind, (unsigned long long)in->identity.registered_proof,
               in->identity.id, in->constraints, in->inputs, in->aux, in->nnz[0], in->nnz[1], in->nnz[2],
               in->dict, in->class_counts[0], in->class_counts[1], in->class_counts[2], in->class_counts[3],
               (unsigned long long)in->file_bytes, (unsigned long long)in->record_bytes, per, hex);
        return;
    }
    printf("file             %s (format %u)\n", path, in->version);
    printf("circuit          %s (kind %u, registered proof %llu)\n", in->identity.id, in->identity.kind,
           (unsigned long long)in->identity.registered_proof);
    printf("constraints      %zu, inputs %zu, aux %zu\n", in->constraints, in->inputs, in->aux);
    printf("nonzeros A/B/C   %zu / %zu / %zu\n", in->nnz[0], in->nnz[1], in->nnz[2]);
    printf("coefficients     %zu zero, %zu +-1, %zu +-2^k, %zu from a dictionary of %zu values\n",
           in->class_counts[0], in->class_counts[1], in->class_counts[2], in->class_counts[3], in->dict);
    printf("density          a_aux %zu, b_input %zu, b_aux %zu\n", in->a_aux_density, in->b_input_density,
           in->b_aux_density);
    printf("size             %llu bytes (records %llu), %.2f bytes per nonzero\n",
           (unsigned long long)in->file_bytes, (unsigned long long)in->record_bytes, per);
    printf("R1CS digest      %s\n", hex);
}

/* The blank circuit of the command's --circuit/--sector-size or
 * --circuit-id: 0, or 2 with the reason on stderr (cmd: for the message). */
static int blank_circuit(const pce_args *a, const char *cmd, char cid[64], cuzk_pce_identity *id,
                         cuzk_circuit_fn *fn, void **ctx)
{
    char err[512] = "";
    if (circuit_id_of(cid, a)) return 2;
    if (!cuzk_pce_filecoin_circuit(cid, id, fn, ctx, err, sizeof err)) return 0;
    fprintf(stderr, "cuzk-bench pce %s: %s\n", cmd, err);
    return 2;
}

static int cmd_extract(const pce_args *a)
{
    char cid[64], path[1024], err[512] = "";
    cuzk_pce_identity id;
    cuzk_circuit_fn fn;
    void *ctx;
    if (blank_circuit(a, "extract", cid, &id, &fn, &ctx)) return 2;
    if (a->out)
        snprintf(path, sizeof path, "%s", a->out);
    else
        snprintf(path, sizeof path, "%s/%s.pce", a->dir ? a->dir : ".", cid);
    fprintf(stderr, "extracting %s to %s\n", cid, path);
    double t0 = cli_now(), c0 = cli_cpu_now();
    cuzk_pce_info in;
    int st = cuzk_pce_extract(path, &id, fn, ctx, progress, &t0, &in, err, sizeof err);
    free(ctx);
    if (st) {
        fprintf(stderr, "cuzk-bench pce extract: %s\n", err);
        return 1;
    }
    fprintf(stderr, "extracted in %.1f s wall, %.1f s cpu (incl. verifying open), peak RSS %.1f MiB\n",
            cli_now() - t0, cli_cpu_now() - c0, (double)cli_peak_rss() / 1048576.0);
    print_info(path, &in, a->json);
    return 0;
}

/* The R1CS digest a file of the circuit must carry, and what it costs. */
static int cmd_digest(const pce_args *a)
{
    char cid[64], err[512] = "", hex[65];
    cuzk_pce_identity id;
    cuzk_circuit_fn fn;
    void *ctx;
    if (blank_circuit(a, "digest", cid, &id, &fn, &ctx)) return 2;
    double t0 = cli_now(), c0 = cli_cpu_now();
    uint8_t d[32];
    int st = cuzk_pce_digest(d, fn, ctx, NULL, NULL, err, sizeof err);
    free(ctx);
    if (st) {
        fprintf(stderr, "cuzk-bench pce digest: %s\n", err);
        return 1;
    }
    digest_hex(hex, d);
    printf("%s  %s (%.3f s wall, %.3f s cpu, peak RSS %.1f MiB)\n", hex, cid, cli_now() - t0, cli_cpu_now() - c0,
           (double)cli_peak_rss() / 1048576.0);
    return 0;
}

static int cmd_info_verify(const pce_args *a, bool verify)
{
    char err[512] = "";
    if (!a->file) {
        fprintf(stderr, "usage: cuzk-bench pce %s FILE\n", verify ? "verify" : "info");
        return 2;
    }
    double t0 = cli_now();
    cuzk_pce *p = NULL;
    int st = cuzk_map_guard_install(err, sizeof err); /* a file cut under us: a status, not SIGBUS */
    if (!st) st = cuzk_pce_open(&p, a->file, NULL, err, sizeof err);
    double t_open = cli_now() - t0;
    cuzk_pool *pool = NULL;
    if (!st && verify && a->threads > 1 && cuzk_pool_create(&pool, a->threads)) st = CUZK_ERR_NOMEM;
    if (!st && verify) st = cuzk_pce_check(p, pool ? cuzk_pool_par(pool) : NULL, err, sizeof err);
    cuzk_pool_destroy(pool);
    if (st) {
        printf("invalid: %s\n", err[0] ? err : cuzk_strerror(st));
        cuzk_pce_close(p);
        return 1;
    }
    cuzk_pce_info in;
    cuzk_pce_get_info(p, &in);
    cuzk_pce_close(p);
    print_info(a->file, &in, a->json);
    if (verify)
        printf("valid: checksums, sections and every record (open %.2f s, total %.2f s)\n", t_open,
               cli_now() - t0);
    return 0;
}

int cmd_pce(int argc, char **argv)
{
    pce_args a;
    const char *sub = argc > 1 ? argv[1] : "";
    if (parse(&a, argc, argv, 2)) return 2;
    if (!strcmp(sub, "extract")) return cmd_extract(&a);
    if (!strcmp(sub, "info")) return cmd_info_verify(&a, false);
    if (!strcmp(sub, "verify")) return cmd_info_verify(&a, true);
    if (!strcmp(sub, "digest")) return cmd_digest(&a);
    fprintf(stderr, "usage: cuzk-bench pce extract|info|verify|digest ... (see cuzk-bench help pce)\n");
    return 2;
}

bool cuzk_bench_pce_wants(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--pce") || !strcmp(argv[i], "--no-pce")) return true;
    return false;
}

/* The random-witness circuit of a circuit id (PoSt: post_cmds.h's
 * deterministic random sectors, whatever the seed). */
typedef struct {
    cuzk_porep_random_witness prw;
    cuzk_porep_circuit_ctx porep;
    cuzk_snap_random_witness srw;
    cuzk_snap_circuit_ctx snap;
    cuzk_bench_post_random prnd;
    cuzk_post_circuit_ctx post;
    cuzk_circuit_fn fn;
    void *ctx;
    size_t constraints, inputs;
} witness_circuit;

static int witness_circuit_for(witness_circuit *w, const cuzk_pce_identity *id, const void *blank,
                               uint64_t seed)
{
    memset(w, 0, sizeof *w);
    if (id->kind == CUZK_PCE_KIND_POREP) {
        w->prw = (cuzk_porep_random_witness){seed, ((const cuzk_porep_circuit_ctx *)blank)->shape};
        w->porep.shape = w->prw.shape;
        w->porep.witness = cuzk_porep_random_witness_fn;
        w->porep.wctx = &w->prw;
        w->fn = cuzk_porep_circuit;
        w->ctx = &w->porep;
        w->constraints = cuzk_porep_num_constraints(&w->porep.shape);
        w->inputs = cuzk_porep_num_inputs(&w->porep.shape);
        return 0;
    }
    if (id->kind == CUZK_PCE_KIND_SNAP) {
        w->srw = (cuzk_snap_random_witness){seed, ((const cuzk_snap_circuit_ctx *)blank)->shape};
        w->snap.shape = w->srw.shape;
        w->snap.witness = cuzk_snap_random_witness_fn;
        w->snap.wctx = &w->srw;
        w->fn = cuzk_snap_circuit;
        w->ctx = &w->snap;
        w->constraints = cuzk_snap_num_constraints(&w->snap.shape);
        w->inputs = cuzk_snap_num_inputs(&w->snap.shape);
        return 0;
    }
    if (id->kind == CUZK_PCE_KIND_WINDOW_POST || id->kind == CUZK_PCE_KIND_WINNING_POST) {
        const cuzk_fil_post_info *info = ((const cuzk_post_circuit_ctx *)blank)->info;
        if (cuzk_bench_post_random_ctx(&w->post, &w->prnd, info)) {
            cuzk_bench_post_random_free(&w->prnd);
            fprintf(stderr, "cuzk-bench synth --pce: out of memory for the random PoSt witness\n");
            return 1;
        }
        w->fn = cuzk_post_circuit;
        w->ctx = &w->post;
        w->constraints = cuzk_post_num_constraints(info);
        w->inputs = cuzk_post_num_inputs(info);
        return 0;
    }
    fprintf(stderr, "cuzk-bench synth --pce: no random witness for this circuit\n");
    return 2;
}

typedef struct {
    double open_s, synth_wall, synth_cpu, eval_wall, eval_cpu, sys;
    size_t constraints;
    bool through_h;
    bench_h_times h;
} synth_times;

/* One partition; buf (NULL: none) lends and takes back the buffers. */
static int synth_once(witness_circuit *w, const cuzk_pce *p, cuzk_par *par, synth_times *t, cuzk_cs_buffers *buf,
                      char *err, size_t el)
{
    cuzk_cs *cs = NULL;
    double t0 = cli_now(), c0 = cli_cpu_now(), s0 = cli_sys_now();
    int st = cuzk_cs_new(&cs, p ? CUZK_CS_WITNESS : CUZK_CS_PROVE, 0);
    size_t rows = w->constraints + w->inputs + 1;
    if (!st && buf) st = cuzk_cs_give_buffers(cs, buf);
    if (!st) st = cuzk_cs_reserve(cs, t->through_h ? bench_h_domain(rows) : rows, w->inputs + 1, w->constraints);
    if (!st) st = cuzk_cs_synthesize(cs, w->fn, w->ctx);
    if (st) cuzk_errf(err, el, st, "synthesis: %s", cs ? cuzk_cs_error(cs) : cuzk_strerror(st));
    double t1 = cli_now(), c1 = cli_cpu_now();
    if (!st && p && !t->through_h) st = cuzk_pce_evaluate(p, cs, par, err, el);
    t->synth_wall = t1 - t0;
    t->synth_cpu = c1 - c0;
    t->eval_wall = cli_now() - t1;
    t->eval_cpu = cli_cpu_now() - c1;
    if (!st && t->through_h) st = bench_through_h(cs, p, par, &t->h, err, el);
    t->sys = cli_sys_now() - s0;
    cuzk_cs_counts k = {0};
    if (!st) cuzk_cs_get_counts(cs, &k);
    t->constraints = k.constraints;
    if (buf) cuzk_cs_take_buffers(cs, buf);
    cuzk_cs_free(cs);
    return st;
}

int cuzk_bench_pce_synth(int argc, char **argv)
{
    pce_args a;
    char cid[64], err[512] = "";
    if (parse(&a, argc, argv, 1) || circuit_id_of(cid, &a)) return 2;
    if (!a.pce == !a.no_pce) {
        fprintf(stderr, "cuzk-bench synth: give exactly one of --pce FILE and --no-pce\n");
        return 2;
    }
    cuzk_pce_identity id;
    cuzk_circuit_fn fn;
    void *blank;
    witness_circuit w;
    if (cuzk_pce_filecoin_circuit(cid, &id, &fn, &blank, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench synth: %s\n", err);
        return 2;
    }
    int rc = witness_circuit_for(&w, &id, blank, a.seed);
    free(blank);
    if (rc) return rc;
    cuzk_pool *pool = NULL;
    cuzk_pce *p = NULL;
    synth_times t = {.through_h = a.through_h};
    double t0 = cli_now();
    int st = a.threads > 1 ? cuzk_pool_create(&pool, a.threads) : 0;
    if (st) cuzk_errf(err, sizeof err, st, "cannot start %u threads", a.threads);
    if (!st && a.pce) st = cuzk_map_guard_install(err, sizeof err);
    if (!st && a.pce) st = cuzk_pce_open(&p, a.pce, &id, err, sizeof err);
    t.open_s = cli_now() - t0;
    cuzk_cs_buffers buf = {0};
    for (unsigned r = 0; r < a.repeat && !st; r++) {
        st = synth_once(&w, p, pool ? cuzk_pool_par(pool) : NULL, &t, a.no_reuse ? NULL : &buf, err, sizeof err);
        double cpu = t.synth_cpu + t.eval_cpu;
        if (!st && a.repeat > 1)
            fprintf(stderr,
                    "synth: iteration %u/%u: %.3f s wall, %.3f s cpu of which %.3f s system, %.2f M "
                    "constraints/cpu-s (%s)\n",
                    r + 1, a.repeat, t.synth_wall + t.eval_wall, cpu, t.sys, (double)t.constraints / cpu / 1e6,
                    a.no_reuse ? "fresh buffers" : r ? "buffers reused" : "buffers faulted in");
    }
    cuzk_cs_buffers_free(&buf);
    cuzk_bench_post_random_free(&w.prnd);
    cuzk_pce_close(p);
    cuzk_pool_destroy(pool);
    if (st) {
        fprintf(stderr, "cuzk-bench synth: %s\n", err);
        return 1;
    }
    double wall = t.synth_wall + t.eval_wall, cpu = t.synth_cpu + t.eval_cpu;
    unsigned long long rss = (unsigned long long)cli_peak_rss();
    const char *mode = a.pce ? "witness+pce" : "prove";
    if (a.json)
        printf(
            "{\"circuit\":\"%s\",\"mode\":\"%s\",\"witness\":\"random\",\"constraints\":%zu,\"wall_s\":%.6f,"
            "\"cpu_s\":%.6f,\"threads\":%u,\"constraints_per_s\":%.0f,\"peak_rss_bytes\":%llu,"
            "\"synth_cpu_s\":%.6f,\"eval_cpu_s\":%.6f,\"eval_wall_s\":%.6f,\"pce_open_s\":%.6f,"
            "\"sys_s\":%.6f,\"repeat\":%u,\"reuse\":%s",
            cid, mode, t.constraints, wall, cpu, a.threads, (double)t.constraints / cpu, rss, t.synth_cpu,
            t.eval_cpu, t.eval_wall, t.open_s, t.sys, a.repeat, a.no_reuse ? "false" : "true");
    if (a.json && a.through_h) bench_h_json(&t.h);
    if (a.json) printf("}\n");
    else
        printf(
            "%s %s: %zu constraints, %.3f s wall, %.3f s cpu (synthesis %.3f, mat-vec %.3f cpu / %.3f wall), "
            "%u thread(s), %.2f M constraints/cpu-s, peak RSS %.1f MiB%s\n",
            cid, mode, t.constraints, wall, cpu, t.synth_cpu, t.eval_cpu, t.eval_wall, a.threads,
            (double)t.constraints / cpu / 1e6, (double)rss / 1048576.0, a.pce ? "" : " (direct)");
    if (a.pce && !a.json) printf("  PCE open + verify: %.3f s\n", t.open_s);
    if (a.through_h && !a.json)
        printf("  through H (%s): A,B %.3f s, H %.3f s wall; RssAnon peak %.1f MiB, RssFile peak %.1f MiB\n",
               a.pce ? "lean: A, B, then C after A*B" : "classic: a, b, c", t.h.eval_wall, t.h.h_wall,
               (double)t.h.anon_peak / 1048576.0, (double)t.h.file_peak / 1048576.0);
    return 0;
}
