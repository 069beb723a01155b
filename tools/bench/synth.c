/* `cuzk-bench synth`: circuit synthesis speed (constraints/s, phase split),
 * and the circuit selection shared by the subcommands that take a circuit
 * (bench_circuit_*, declared in bench.h).
 *
 *   cuzk-bench synth (--circuit chain --size N | --r1cs F --wtns F)
 *                    [--mode prove|witness|shape|check] [--lc array|builder|both]
 *                    [--repeat R] [--json]
 *
 * Each repetition creates a fresh cs, runs the circuit, appends the input
 * constraints (finish) and frees the cs; phases are timed separately and
 * the median over repetitions is printed.  --lc both alternates the two
 * linear-combination front ends run by run (A/B in one process, as
 * performance.md asks) and prints both medians and their ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuzk/status.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
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

int bench_circuit_arg(bench_circuit *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (*i + 1 >= argc) return 0;
    const char *v = argv[*i + 1];
    if (!strcmp(a, "--circuit")) {
        if (strcmp(v, "chain")) {
            fprintf(stderr, "unknown circuit '%s' (built-in: chain)\n", v);
            return -1;
        }
        c->kind = BENCH_CIRCUIT_CHAIN;
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
    } else if (c->kind == BENCH_CIRCUIT_R1CS) {
        int rc = cuzk_circom_r1cs_load(&c->circom, c->r1cs_path, err, sizeof err);
        if (!rc && c->wtns_path) rc = cuzk_circom_wtns_load(c->circom, c->wtns_path, err, sizeof err);
        if (!rc && need_witness && !c->wtns_path) {
            snprintf(err, sizeof err, "this mode needs values: give --wtns F");
            rc = CUZK_ERR_ARG;
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
    int n;
} timings;

static int one_run(bench_circuit *c, cuzk_cs_mode mode, timings *t, cuzk_cs_counts *counts)
{
    cuzk_cs *cs;
    int rc = cuzk_cs_new(&cs, mode, 0);
    if (rc) return rc;
    double t0 = now_s();
    rc = c->fn(cs, c->ctx);
    double t1 = now_s();
    if (!rc) rc = cuzk_cs_finish(cs);
    double t2 = now_s();
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
    return CUZK_OK;
}

int cmd_synth(int argc, char **argv)
{
    static const char *const modes[] = {"prove", "witness", "shape", "check"};
    bench_circuit c = {0};
    int mode = CUZK_CS_PROVE, repeat = 3, json = 0, lc = 0; /* 0 array, 1 builder, 2 both */
    for (int i = 1; i < argc; i++) {
        int r = bench_circuit_arg(&c, argc, argv, &i);
        if (r < 0) return 2;
        if (r) continue;
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            const char *m = argv[++i];
            for (mode = 0; mode < 4 && strcmp(m, modes[mode]); mode++) {}
            if (mode == 4) {
                fprintf(stderr, "bad --mode '%s'\n", m);
                return 2;
            }
        } else if (!strcmp(argv[i], "--lc") && i + 1 < argc) {
            const char *m = argv[++i];
            lc = !strcmp(m, "array") ? 0 : !strcmp(m, "builder") ? 1 : !strcmp(m, "both") ? 2 : -1;
            if (lc < 0) {
                fprintf(stderr, "bad --lc '%s' (array|builder|both)\n", m);
                return 2;
            }
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
            if (repeat < 1 || repeat > MAX_REPEAT) {
                fprintf(stderr, "--repeat must be 1..%d\n", MAX_REPEAT);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: cuzk-bench synth (--circuit chain --size N | --r1cs F --wtns F) "
                            "[--mode prove|witness|shape|check] [--lc array|builder|both] [--repeat R] [--json]\n");
            return 2;
        }
    }
    if (lc && c.kind != BENCH_CIRCUIT_CHAIN) {
        fprintf(stderr, "--lc applies to the built-in chain circuit only\n");
        return 2;
    }
    if (bench_circuit_open(&c, mode != CUZK_CS_SHAPE)) return 1;
    timings t[2] = {{.n = 0}, {.n = 0}};
    cuzk_cs_counts counts = {0};
    int variants = lc == 2 ? 2 : 1, rc = 0;
    for (int r = 0; r < repeat && !rc; r++)
        for (int v = 0; v < variants && !rc; v++) {
            c.chain.use_builder = lc == 2 ? v : lc;
            rc = one_run(&c, (cuzk_cs_mode)mode, &t[v], &counts);
        }
    bench_circuit_close(&c);
    if (rc) return 1;
    for (int v = 0; v < variants; v++) {
        const char *rep = lc == 2 ? (v ? "builder" : "array") : (lc ? "builder" : "array");
        double circ = median(t[v].circuit, t[v].n), fin = median(t[v].finish, t[v].n);
        double fr = median(t[v].free_, t[v].n), tot = median(t[v].total, t[v].n);
        double rate = (double)counts.constraints / (circ + fin);
        if (json) {
            printf("{\"circuit\":\"%s\",\"mode\":\"%s\",\"lc\":\"%s\",\"constraints\":%zu,\"inputs\":%zu,"
                   "\"aux\":%zu,\"repeat\":%d,\"load_s\":%.6f,\"circuit_s\":%.6f,\"finish_s\":%.6f,"
                   "\"free_s\":%.6f,\"total_s\":%.6f,\"constraints_per_s\":%.0f}\n",
                   c.desc, modes[mode], rep, counts.constraints, counts.inputs, counts.aux, t[v].n, c.load_s,
                   circ, fin, fr, tot, rate);
        } else {
            printf("%s  mode=%s lc=%s  constraints=%zu inputs=%zu aux=%zu  (median of %d, 1 thread)\n", c.desc,
                   modes[mode], rep, counts.constraints, counts.inputs, counts.aux, t[v].n);
            printf("  load %.3f ms | circuit (witness + enforce) %.3f ms | finish (input constraints) %.3f ms "
                   "| free %.3f ms\n",
                   1e3 * c.load_s, 1e3 * circ, 1e3 * fin, 1e3 * fr);
            printf("  %.2f M constraints/s (%.1f ns/constraint)\n", rate / 1e6, 1e9 / rate);
        }
    }
    if (variants == 2 && !json)
        printf("builder / array time ratio: %.3f\n",
               (median(t[1].circuit, t[1].n) + median(t[1].finish, t[1].n)) /
                   (median(t[0].circuit, t[0].n) + median(t[0].finish, t[0].n)));
    return 0;
}
