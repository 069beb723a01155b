/* `cuzk-bench synth`: circuit synthesis speed (constraints/s, phase split),
 * and the circuit selection shared by the subcommands that take a circuit
 * (bench_circuit_*, declared in bench.h).
 *
 *   cuzk-bench synth (--circuit chain|bits --size N | --r1cs F --wtns F)
 *                    [--mode prove|witness|shape|check] [--repeat R] [--json]
 *
 * Each repetition creates a fresh cs, runs the circuit, appends the input
 * constraints (finish) and frees the cs; phases are timed separately and
 * the median over repetitions is printed.  Rates use the thread's CPU
 * time (the development machine is shared); wall times are printed too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"
#include "cuzk/status.h"
#include "backend_cli.h"
#include "pce_cmds.h"
#include "porep_cmds.h"
#include "post_cmds.h"
#include "snap_cmds.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of this thread: on a shared, oversubscribed machine it excludes
 * the time other processes hold the core (synthesis is single-threaded). */
static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* "65536", "2^16" or "1e6" */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    if (!strncmp(s, "2^", 2)) {
        unsigned long k = strtoul(s + 2, &end, 10);
        if (*end || k >= 48) return -1;
        *out = (size_t)1 << k;
        return 0;
    }
    double d = strtod(s, &end);
    if (*end || d < 1 || d > 1e15) return -1;
    *out = (size_t)d;
    return 0;
}

/* Bench-only circuit `bits`, shaped like the boolean-heavy gadgets of the
 * Filecoin circuits (SHA-256 is ~98 % of PoRep): per round, 64 booleans
 * b*(ONE-b) = 0 and one packing constraint (sum 2^i b_i) * ONE = word.
 * 65 constraints per round; --size counts constraints (rounded up). */
static int bits_circuit(cuzk_cs *cs, void *vctx)
{
    const cuzk_chain_ctx *ctx = vctx; /* n = rounds */
    bool values = cuzk_cs_needs_values(cs);
    cuzk_fr pow2[64], m1, word_v;
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    for (int i = 0; i < 64; i++)
        cuzk_fr_from_u64(&pow2[i], (uint64_t)1 << i);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    cuzk_term big[64], a, bb[2], one = {CUZK_ONE, CUZK_FR_ONE};
    int rc = cuzk_cs_reserve(cs, 65 * ctx->n + 1, 1, 65 * ctx->n);
    for (size_t r = 0; r < ctx->n && !rc; r++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        cuzk_var b[64], p;
        for (int i = 0; i < 64 && !rc; i++) {
            const cuzk_fr *v = (rng >> i) & 1 ? &CUZK_FR_ONE : &CUZK_FR_ZERO;
            rc = cuzk_cs_alloc(cs, &b[i], values ? v : NULL);
            if (rc) break;
            a = (cuzk_term){b[i], CUZK_FR_ONE};
            bb[0] = one;
            bb[1] = (cuzk_term){b[i], m1};
            rc = cuzk_cs_enforce(cs, &a, 1, bb, 2, NULL, 0);
        }
        cuzk_fr_from_u64(&word_v, rng);
        if (!rc) rc = cuzk_cs_alloc(cs, &p, values ? &word_v : NULL);
        if (rc) break;
        for (int i = 0; i < 64; i++)
            big[i] = (cuzk_term){b[i], pow2[i]};
        a = (cuzk_term){p, CUZK_FR_ONE};
        rc = cuzk_cs_enforce(cs, big, 64, &one, 1, &a, 1);
    }
    return rc;
}

int bench_circuit_arg(bench_circuit *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (*i + 1 >= argc) return 0;
    const char *v = argv[*i + 1];
    if (!strcmp(a, "--circuit")) {
        if (!strcmp(v, "chain"))
            c->kind = BENCH_CIRCUIT_CHAIN;
        else if (!strcmp(v, "bits"))
            c->kind = BENCH_CIRCUIT_BITS;
        else {
            fprintf(stderr, "unknown circuit '%s' (built-in: chain, bits)\n", v);
            return -1;
        }
    } else if (!strcmp(a, "--size")) {
        if (parse_size(v, &c->chain.n) || c->chain.n == 0) {
            fprintf(stderr, "bad --size '%s' (N, 2^K)\n", v);
            return -1;
        }
    } else if (!strcmp(a, "--r1cs")) {
        c->kind = BENCH_CIRCUIT_R1CS;
        c->r1cs_path = v;
    } else if (!strcmp(a, "--wtns")) {
        c->wtns_path = v;
    } else {
        return 0;
    }
    (*i)++;
    return 1;
}

int bench_circuit_open(bench_circuit *c, bool need_witness)
{
    char err[512];
    double t0 = now_s();
    if (c->kind == BENCH_CIRCUIT_CHAIN) {
        if (!c->chain.n) {
            fprintf(stderr, "--circuit chain needs --size N\n");
            return CUZK_ERR_ARG;
        }
        cuzk_fr_from_u64(&c->chain.x0, 3); /* the anchor's input.json: x = 3 */
        c->fn = cuzk_chain_circuit;
        c->ctx = &c->chain;
        snprintf(c->desc, sizeof c->desc, "chain n=%zu", c->chain.n);
    } else if (c->kind == BENCH_CIRCUIT_BITS) {
        if (!c->chain.n) {
            fprintf(stderr, "--circuit bits needs --size N\n");
            return CUZK_ERR_ARG;
        }
        c->chain.n = (c->chain.n + 64) / 65; /* rounds */
        c->fn = bits_circuit;
        c->ctx = &c->chain;
        snprintf(c->desc, sizeof c->desc, "bits rounds=%zu", c->chain.n);
    } else if (c->kind == BENCH_CIRCUIT_R1CS) {
        int rc = cuzk_circom_r1cs_load(&c->circom, c->r1cs_path, err, sizeof err);
        if (!rc && c->wtns_path) rc = cuzk_circom_wtns_load(c->circom, c->wtns_path, err, sizeof err);
        if (!rc && need_witness && !c->wtns_path) {
            rc = cuzk_errf(err, sizeof err, CUZK_ERR_ARG, "this mode needs values: give --wtns F");
        }
        if (rc) {
            fprintf(stderr, "error: %s\n", err);
            return rc;
        }
        c->fn = cuzk_circom_circuit;
        c->ctx = c->circom;
        snprintf(c->desc, sizeof c->desc, "r1cs %s", c->r1cs_path);
    } else {
        fprintf(stderr, "choose a circuit: --circuit chain --size N | --r1cs F\n");
        return CUZK_ERR_ARG;
    }
    c->load_s = now_s() - t0;
    return CUZK_OK;
}

void bench_circuit_close(bench_circuit *c)
{
    cuzk_circom_free(c->circom);
    c->circom = NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define MAX_REPEAT 64

typedef struct {
    double circuit[MAX_REPEAT], finish[MAX_REPEAT], free_[MAX_REPEAT], total[MAX_REPEAT];
    double cpu[MAX_REPEAT]; /* thread CPU time of circuit + finish */
    int n;
} timings;

static int one_run(bench_circuit *c, cuzk_cs_mode mode, timings *t, cuzk_cs_counts *counts)
{
    cuzk_cs *cs;
    int rc = cuzk_cs_new(&cs, mode, 0);
    if (rc) return rc;
    double c0 = cpu_s(), t0 = now_s();
    rc = c->fn(cs, c->ctx);
    double t1 = now_s();
    if (!rc) rc = cuzk_cs_finish(cs);
    double t2 = now_s(), c2 = cpu_s();
    if (rc) {
        fprintf(stderr, "error: %s\n", cuzk_cs_error(cs));
        cuzk_cs_free(cs);
        return rc;
    }
    if (mode == CUZK_CS_CHECK) {
        size_t idx;
        const char *path;
        if (!cuzk_cs_is_satisfied(cs, &idx, &path))
            fprintf(stderr, "warning: constraint %zu (%s) is not satisfied\n", idx, path);
    }
    cuzk_cs_get_counts(cs, counts);
    cuzk_cs_free(cs);
    double t3 = now_s();
    int k = t->n++;
    t->circuit[k] = t1 - t0;
    t->finish[k] = t2 - t1;
    t->free_[k] = t3 - t2;
    t->total[k] = t3 - t0;
    t->cpu[k] = c2 - c0;
    return CUZK_OK;
}

int cmd_synth(int argc, char **argv)
{
    int brc = cli_backend_take(&argc, argv, "cuzk-bench synth"); /* H of --through-h */
    if (brc) return brc;
    if (cuzk_bench_pce_wants(argc, argv)) return cuzk_bench_pce_synth(argc, argv); /* pce_cmds.c */
    if (cuzk_bench_post_wants(argc, argv)) return cuzk_bench_post_synth(argc, argv);
    if (cuzk_bench_porep_wants(argc, argv)) return cuzk_bench_porep_synth(argc, argv);
    if (cuzk_bench_snap_wants(argc, argv)) return cuzk_bench_snap_synth(argc, argv);
    static const char *const modes[] = {"prove", "witness", "shape", "check"};
    bench_circuit c = {0};
    int mode = CUZK_CS_PROVE, repeat = 3, json = 0;
    for (int i = 1; i < argc; i++) {
        int r = bench_circuit_arg(&c, argc, argv, &i);
        if (r < 0) return 2;
        if (r) continue;
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            const char *m = argv[++i];
            for (mode = 0; mode < 4 && strcmp(m, modes[mode]); mode++) {
            }
            if (mode == 4) {
                fprintf(stderr, "bad --mode '%s'\n", m);
                return 2;
            }
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
            if (repeat < 1 || repeat > MAX_REPEAT) {
                fprintf(stderr, "--repeat must be 1..%d\n", MAX_REPEAT);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: cuzk-bench synth (--circuit chain|bits --size N | --r1cs F --wtns F) "
                            "[--mode prove|witness|shape|check] [--repeat R] [--json]\n");
            return 2;
        }
    }
    if (bench_circuit_open(&c, mode != CUZK_CS_SHAPE)) return 1;
    /* In prove mode a witness-mode run alternates with each proving run: the
     * difference is what a, b, c and density cost on top of the witness. */
    timings t[2] = {{.n = 0}, {.n = 0}};
    cuzk_cs_counts counts = {0}, wcounts;
    int rc = 0;
    for (int r = 0; r < repeat && !rc; r++) {
        rc = one_run(&c, (cuzk_cs_mode)mode, &t[0], &counts);
        if (!rc && mode == CUZK_CS_PROVE) rc = one_run(&c, CUZK_CS_WITNESS, &t[1], &wcounts);
    }
    bench_circuit_close(&c);
    if (rc) return 1;
    double circ = median(t[0].circuit, t[0].n), fin = median(t[0].finish, t[0].n);
    double fr = median(t[0].free_, t[0].n), tot = median(t[0].total, t[0].n);
    double cpu = median(t[0].cpu, t[0].n), wcpu = t[1].n ? median(t[1].cpu, t[1].n) : 0;
    double rate = (double)counts.constraints / cpu;
    if (json) {
        printf("{\"circuit\":\"%s\",\"mode\":\"%s\",\"constraints\":%zu,\"inputs\":%zu,\"aux\":%zu,"
               "\"repeat\":%d,\"load_s\":%.6f,\"circuit_s\":%.6f,\"finish_s\":%.6f,\"free_s\":%.6f,"
               "\"total_s\":%.6f,\"cpu_s\":%.6f,\"witness_cpu_s\":%.6f,\"constraints_per_s\":%.0f}\n",
               c.desc, modes[mode], counts.constraints, counts.inputs, counts.aux, t[0].n, c.load_s, circ,
               fin, fr, tot, cpu, wcpu, rate);
        return 0;
    }
    printf("%s  mode=%s  constraints=%zu inputs=%zu aux=%zu  (median of %d, 1 thread)\n", c.desc, modes[mode],
           counts.constraints, counts.inputs, counts.aux, t[0].n);
    printf("  wall: load %.3f ms | circuit %.3f ms | finish (input constraints) %.3f ms | free %.3f ms\n",
           1e3 * c.load_s, 1e3 * circ, 1e3 * fin, 1e3 * fr);
    if (mode == CUZK_CS_PROVE)
        printf("  cpu:  witness (alloc + values) %.3f ms | a, b, c + density %.3f ms (prove - witness run)\n",
               1e3 * wcpu, 1e3 * (cpu - wcpu));
    printf("  %.2f M constraints/s (%.1f ns/constraint; thread CPU time of circuit + finish)\n", rate / 1e6,
           1e9 / rate);
    return 0;
}

unsigned bench_synth_threads(int argc, char **argv, uint64_t parsed)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--threads")) return (unsigned)parsed; /* validated by the command's parser */
    return 1;
}

void bench_synth_report(const bench_synth_result *r, bool json)
{
    struct rusage ru;
    double load[1] = {0};
    unsigned long long rss = getrusage(RUSAGE_SELF, &ru) ? 0 : (unsigned long long)ru.ru_maxrss * 1024;
    if (getloadavg(load, 1) != 1) load[0] = -1;
    double per_s = (double)r->constraints / r->wall_s, per_cpu = (double)r->constraints / r->cpu_s;
    if (json) {
        printf("{\"circuit\":\"%s\",\"mode\":\"%s\",\"witness\":\"%s\",\"constraints\":%zu,\"repeat\":%zu,"
               "\"wall_s\":%.6f,\"cpu_s\":%.6f,\"threads\":%u,\"constraints_per_s\":%.0f,"
               "\"constraints_per_cpu_s\":%.0f,\"peak_rss_bytes\":%llu,\"load1\":%.2f}\n",
               r->circuit, r->mode, r->witness, r->constraints, r->repeat, r->wall_s, r->cpu_s, r->threads,
               per_s, per_cpu, rss, load[0]);
        return;
    }
    printf("%s %s: %zu constraints, %.3f s wall, %.3f s cpu, %u thread(s), %.2f M constraints/s, "
           "%.2f M constraints/cpu-s, peak RSS %.1f MiB, %s witness, load %.2f%s\n",
           r->circuit, r->mode, r->constraints, r->wall_s, r->cpu_s, r->threads, per_s / 1e6, per_cpu / 1e6,
           (double)rss / 1048576.0, r->witness, load[0], r->repeat > 1 ? " (medians)" : "");
}
