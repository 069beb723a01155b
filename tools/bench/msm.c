/* `cuzk-bench msm`: time one G1 or G2 multi-scalar multiplication.
 *
 *   cuzk-bench msm [--group g1|g2] [--log N] [--scalars random|bits|filecoin]
 *                  [--threads T] [--reps R] [--window C] [--strategy 0|1|2]
 *                  [--no01] [--json] [--backend cpu|opencl|cuda] [--device N]
 *
 * Bases are a chain P, P+Q, P+2Q, ... (distinct, cheap to make) converted
 * to affine in one batch, 2^20 of them at most, repeated above that (the
 * MSM's work does not depend on the bases' values; making 2^26 distinct
 * ones took a minute); scalars are uniform in Fr (random), uniform bits
 * (bits), or Filecoin-witness-like: 75 % zero, 20 % one, 5 % random
 * (filecoin).  Scalars are converted to canonical form once, outside the
 * timing (what the engine does when one witness feeds several MSMs).
 * --backend opencl|cuda runs the device MSM instead (the Groth16 backend's
 * msm_g1 / msm_g2, cuzk/gpu_groth16.h: Montgomery scalars, the 0/1 split,
 * upload and read back included); on a CPU device (pocl) its times are CPU
 * times.
 * Prints every repetition and the median in ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_cli.h"
#include "bench.h"
#include "cuzk/msm.h"
#include "cuzk/pool.h"
#include "thread_cpu.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of the whole process (all threads): on a shared, loaded
 * machine this is steadier than wall time for A/B comparisons. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Per-thread CPU ms of one rep: the busiest thread and the sum over threads
 * (sum / busiest = parallel speedup the split allows). */
static void thread_split(double *busiest, double *sum, const long *t0, const double *c0, size_t n0)
{
    long t1[64];
    double c1[64];
    size_t n1 = thread_cpu(t1, c1, 64);
    *busiest = *sum = 0;
    for (size_t i = 0; i < n1; i++) {
        double d = c1[i];
        for (size_t k = 0; k < n0; k++)
            if (t0[k] == t1[i]) d -= c0[k];
        d *= 1e-6;
        *sum += d;
        if (d > *busiest) *busiest = d;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* k: canonical (the CPU MSM's input); fr (may be NULL): the same in
 * Montgomery form (the device backend's). */
static void make_scalars(cuzk_scalar *k, cuzk_fr *fr, size_t n, const char *kind)
{
    uint8_t buf[48];
    for (size_t i = 0; i < n; i++) {
        cuzk_fr f;
        bench_rand_bytes(buf, sizeof buf);
        unsigned v = buf[40] | (unsigned)buf[41] << 8;
        if (!strcmp(kind, "bits")) {
            cuzk_fr_from_u64(&f, v & 1);
        } else if (!strcmp(kind, "filecoin") && v % 100 < 95) {
            cuzk_fr_from_u64(&f, v % 100 >= 75);
        } else {
            cuzk_fr_from_bytes_le_reduce(&f, buf, 32);
        }
        cuzk_scalars_from_fr(&k[i], &f, 1);
        if (fr) fr[i] = f;
    }
}

#define DISTINCT ((size_t)1 << 20) /* bases made; repeated above */

/* out[DISTINCT .. n) = out[0 .. DISTINCT) repeated. */
static void tile(void *out, size_t n, size_t elem)
{
    for (size_t i = DISTINCT; i < n; i += DISTINCT)
        memcpy((char *)out + i * elem, out, (n - i < DISTINCT ? n - i : DISTINCT) * elem);
}

static void make_g1(cuzk_g1_affine *out, size_t n)
{
    cuzk_g1 p, q;
    cuzk_fr k;
    uint8_t buf[32];
    cuzk_g1 *jac = malloc(4096 * sizeof *jac);
    cuzk_g1_generator(&p);
    bench_rand_bytes(buf, sizeof buf);
    cuzk_fr_from_bytes_le_reduce(&k, buf, sizeof buf);
    cuzk_g1_mul_var(&q, &p, &k);
    for (size_t i = 0; i < n; i += 4096) {
        size_t m = n - i < 4096 ? n - i : 4096;
        for (size_t j = 0; j < m; j++) {
            cuzk_g1_add(&p, &p, &q);
            jac[j] = p;
        }
        cuzk_g1_batch_to_affine_var(out + i, jac, m);
    }
    free(jac);
}

static void make_g2(cuzk_g2_affine *out, size_t n)
{
    cuzk_g2 p, q;
    cuzk_fr k;
    uint8_t buf[32];
    cuzk_g2 *jac = malloc(4096 * sizeof *jac);
    cuzk_g2_generator(&p);
    bench_rand_bytes(buf, sizeof buf);
    cuzk_fr_from_bytes_le_reduce(&k, buf, sizeof buf);
    cuzk_g2_mul_var(&q, &p, &k);
    for (size_t i = 0; i < n; i += 4096) {
        size_t m = n - i < 4096 ? n - i : 4096;
        for (size_t j = 0; j < m; j++) {
            cuzk_g2_add(&p, &p, &q);
            jac[j] = p;
        }
        cuzk_g2_batch_to_affine_var(out + i, jac, m);
    }
    free(jac);
}

int cmd_msm(int argc, char **argv)
{
    int brc = cli_backend_take(&argc, argv, "cuzk-bench msm");
    if (brc) return brc;
    const cuzk_groth16_backend *be = cli_backend();
    const char *group = "g1", *kind = "random";
    unsigned log_n = 16, threads = 1, reps = 3;
    int json = 0;
    cuzk_msm_opts o = {0, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--no01")) {
            o.no_01_split = 1;
        } else if (v && !strcmp(a, "--group")) {
            group = v, i++;
        } else if (v && !strcmp(a, "--scalars")) {
            kind = v, i++;
        } else if (v && !strcmp(a, "--log")) {
            log_n = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--threads")) {
            threads = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--reps")) {
            reps = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--window")) {
            o.window = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--strategy")) {
            o.strategy = atoi(v), i++;
        } else {
            fprintf(stderr, "usage: cuzk-bench msm [--group g1|g2] [--log N] "
                            "[--scalars random|bits|filecoin] [--threads T] [--reps R] "
                            "[--window C] [--strategy 0|1|2] [--no01] [--json] " CLI_BACKEND_USAGE "\n");
            return 2;
        }
    }
    int g2 = !strcmp(group, "g2");
    if ((!g2 && strcmp(group, "g1")) || log_n > 27 || threads < 1 || threads > 256 || reps < 1 ||
        reps > 100 || (strcmp(kind, "random") && strcmp(kind, "bits") && strcmp(kind, "filecoin"))) {
        fprintf(stderr, "cuzk-bench msm: bad option value (group g1|g2, log <= 27, "
                        "threads 1..256, reps 1..100, scalars random|bits|filecoin)\n");
        return 2;
    }
    size_t n = (size_t)1 << log_n;
    cuzk_scalar *k = malloc(n * sizeof *k);
    cuzk_fr *fr = be ? malloc(n * sizeof *fr) : NULL;
    size_t elem = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    void *bases = malloc(n * elem);
    cuzk_pool *pool = NULL;
    if (!k || !bases || (be && !fr) || cuzk_pool_create(&pool, threads) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench msm: out of memory for 2^%u terms\n", log_n);
        return 1;
    }
    cuzk_par *par = cuzk_pool_par(pool);
    make_scalars(k, fr, n, kind);
    size_t made = n < DISTINCT ? n : DISTINCT;
    if (g2)
        make_g2(bases, made);
    else
        make_g1(bases, made);
    tile(bases, n, elem);
    size_t len =
        g2 ? cuzk_msm_g2_canonical_scratch_sizeof(n, par) : cuzk_msm_g1_canonical_scratch_sizeof(n, par);
    if (o.window || o.strategy) len = 0; /* forced knobs: let the call size its own scratch */
    void *scratch = len ? malloc(len) : NULL;
    double *t = malloc(reps * sizeof *t);
    uint8_t sink[sizeof(cuzk_g2)];
    for (unsigned r = 0; r < reps; r++) {
        long tids[64];
        double tcpu[64];
        size_t nt = thread_cpu(tids, tcpu, 64);
        double t0 = now_s(), c0 = cpu_s();
        int rc;
        if (be && g2) {
            cuzk_g2 out;
            rc = be->msm_g2(be->ctx, &out, bases, n, fr, n, NULL, par);
            memcpy(sink, &out, sizeof out);
        } else if (be) {
            cuzk_g1 out;
            rc = be->msm_g1(be->ctx, &out, bases, n, fr, n, NULL, par);
            memcpy(sink, &out, sizeof out);
        } else if (g2) {
            cuzk_g2 out;
            rc = cuzk_msm_g2_opts(par, &out, bases, n, k, n, NULL, scratch, len, &o);
            memcpy(sink, &out, sizeof out);
        } else {
            cuzk_g1 out;
            rc = cuzk_msm_g1_opts(par, &out, bases, n, k, n, NULL, scratch, len, &o);
            memcpy(sink, &out, sizeof out);
        }
        t[r] = now_s() - t0;
        double cpu = cpu_s() - c0;
        if (rc != CUZK_OK) {
            fprintf(stderr, "cuzk-bench msm: %s%s%s\n", cuzk_strerror(rc), be ? ": " : "",
                    be ? cuzk_gpu_groth16_error(cli_backend_gpu()) : "");
            return 1;
        }
        double busiest, sum;
        thread_split(&busiest, &sum, tids, tcpu, nt);
        if (!json)
            printf("rep %u: %.1f ms (cpu %.1f ms; busiest thread %.1f ms, speedup %.2f)\n", r, 1e3 * t[r],
                   1e3 * cpu, busiest, busiest > 0 ? sum / busiest : 0.0);
    }
    bench_sink(sink, sizeof sink);
    qsort(t, reps, sizeof *t, cmp_double);
    double med = t[reps / 2];
    if (json)
        printf("{\"op\":\"msm_%s\",\"n\":%zu,\"scalars\":\"%s\",\"threads\":%u,\"window\":%u,"
               "\"backend\":\"%s\",\"cpu_device\":%s,\"ms\":%.1f}\n",
               group, n, kind, threads, be ? 0 : o.window ? o.window : cuzk_msm_window_bits(n),
               cli_backend_name(), cli_backend_note()[0] ? "true" : "false", 1e3 * med);
    else
        printf("msm %s 2^%u %s threads=%u backend=%s: median %.1f ms (%u reps)%s\n", group, log_n, kind,
               threads, cli_backend_name(), 1e3 * med, reps, cli_backend_note());
    free(t);
    free(scratch);
    free(k);
    free(fr);
    free(bases);
    cuzk_pool_destroy(pool);
    return 0;
}
