/* `cuzk-bench ntt --log N --threads T`: times the NTT over Fr.
 *
 * Options: --reps R (default 3; the median is reported), --op
 * forward|inverse|coset|icoset|all (default forward), --naive (also time a
 * textbook radix-2 NTT -- scattered bit reversal, one pass per stage,
 * twiddles by running product, public cuzk_fr_* calls -- alternately with
 * ours in the same run, for the A/B ratio), --no-huge (do not ask for huge
 * pages on the data buffer), --json (one line per op, with the domain's
 * bytes and its creation time, wall and cpu).  CUZK_NTT_NO_IFMA=1 in the
 * environment runs the scalar kernels (see src/poly/ntt_ifma.c).
 * --top-log T (the threshold sweep of docs/perf-notes.md): the domain keeps
 * twiddle tables up to stage 2^T only, generating the stages above
 * (src/poly/ntt_internal.h, NTT_TOP_LOG).
 * --backend opencl|cuda [--device N] times the device NTT instead
 * (cuzk/gpu_ntt.h): per op the median of a host vector through the device
 * (upload, transform, read back: "host") and of the data already in device
 * memory ("resident", the kernels alone), and --op h: Groth16's H
 * (the backend's h_poly: 3 uploads, 7 transforms, 1 read back; also on the
 * CPU).  On a CPU device (pocl) these are CPU times, not GPU times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "backend_cli.h"
#include "bench.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_ntt.h"
#include "cuzk/groth16.h"
#include "cuzk/ntt.h"
#include "cuzk/pool.h"
#include "cuzk/status.h"
#include "poly/ntt_internal.h" /* cuzk_ntt_top_log */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of all threads of the process: under a loaded machine, wall
 * time counts other programs too; cpu / threads is what the work costs. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the naive baseline ---------------------------------------------------- */
struct naive_job {
    cuzk_fr *a;
    size_t n, half; /* stage: butterflies (j, j+half) in blocks of 2*half */
    cuzk_fr wm;     /* omega_{2*half} */
    size_t chunks;
};

static void naive_stage_task(void *arg, size_t c)
{
    const struct naive_job *job = arg;
    size_t bfly = job->n / 2, lo = bfly * c / job->chunks, hi = bfly * (c + 1) / job->chunks;
    size_t h = job->half;
    for (size_t g = lo; g < hi;) {
        size_t b = g / h, j = g % h, end = h;
        if (hi - g < end - j) end = j + (hi - g);
        cuzk_fr w;
        uint64_t e = j;
        cuzk_fr_pow(&w, &job->wm, &e, 1);
        cuzk_fr *blk = job->a + b * 2 * h;
        for (; j < end; j++, g++) {
            cuzk_fr t, u = blk[j];
            cuzk_fr_mul(&t, &blk[j + h], &w);
            cuzk_fr_add(&blk[j], &u, &t);
            cuzk_fr_sub(&blk[j + h], &u, &t);
            cuzk_fr_mul(&w, &w, &job->wm);
        }
    }
}

/* Cooley-Tukey DIT: bit-reverse, then log n stages of n/2 butterflies. */
static void naive_ntt(cuzk_par *par, cuzk_fr *a, unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        for (unsigned b = 0; b < log_n; b++)
            r |= (i >> b & 1) << (log_n - 1 - b);
        if (i < r) {
            cuzk_fr t = a[i];
            a[i] = a[r];
            a[r] = t;
        }
    }
    struct naive_job job = {.a = a, .n = n};
    job.chunks = cuzk_par_threads(par) > 1 ? 4 * (size_t)cuzk_par_threads(par) : 1;
    for (unsigned s = 1; s <= log_n; s++) {
        job.half = (size_t)1 << (s - 1);
        if (cuzk_ntt_root_of_unity(&job.wm, s)) return; /* s <= log_n: a domain of 2^log_n exists */
        cuzk_par_for(par, naive_stage_task, &job, job.chunks);
    }
}

/* ---- the device, and H --------------------------------------------------------- */

static double median(double *t, unsigned reps)
{
    qsort(t, reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

/* Groth16's H at m = n through be (CPU or device): a, b, c random. */
static int time_h(const cuzk_groth16_backend *be, cuzk_par *par, cuzk_fr *a, unsigned log_n, unsigned reps,
                  double *t)
{
    size_t n = (size_t)1 << log_n;
    cuzk_fr *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    int rc = b && c ? CUZK_OK : CUZK_ERR_NOMEM;
    for (unsigned r = 0; r < reps && !rc; r++) {
        for (size_t i = 0; i < n; i++) { /* cheap refills: H's cost does not depend on the values */
            b[i] = a[(i * 7 + 1) & (n - 1)];
            c[i] = a[(i * 13 + 5) & (n - 1)];
        }
        double t0 = now_s();
        rc = be->h_poly(be->ctx, a, b, c, n, log_n, par);
        t[r] = now_s() - t0;
    }
    free(b);
    free(c);
    return rc;
}

/* --backend opencl|cuda: the device's transforms (host and resident) and H. */
static int device_ntt(cuzk_par *par, cuzk_fr *a, unsigned log_n, unsigned reps, const int which[5], int json)
{
    static const char *const names[5] = {"forward", "inverse", "coset", "icoset", "h"};
    cuzk_gpu *dev = cuzk_gpu_groth16_device(cli_backend_gpu());
    cuzk_gpu_ntt *t = NULL;
    cuzk_gpu_buf *buf = NULL;
    char err[1024] = "";
    size_t n = (size_t)1 << log_n;
    double *th = calloc(reps, sizeof *th), *tr = calloc(reps, sizeof *tr);
    int rc = th && tr ? cuzk_gpu_ntt_create(&t, dev, NULL, err, sizeof err) : CUZK_ERR_NOMEM;
    if (!rc && (which[0] || which[1] || which[2] || which[3]))
        rc = cuzk_gpu_alloc(dev, &buf, n * sizeof(cuzk_fr), err, sizeof err);
    cuzk_gpu_queue *q = cuzk_gpu_default_queue(dev);
    if (!rc && buf) rc = cuzk_gpu_write(q, buf, 0, a, n * sizeof(cuzk_fr), true, err, sizeof err);
    if (!json && !rc)
        printf("ntt 2^%u on %s, %u rep(s)%s\n", log_n, cli_backend_name(), reps, cli_backend_note());
    for (int k = 0; k < 5 && !rc; k++) {
        if (!which[k]) continue;
        double res = 0;
        if (k == 4) {
            rc = time_h(cli_backend(), par, a, log_n, reps, th);
            if (rc) snprintf(err, sizeof err, "%s", cuzk_gpu_groth16_error(cli_backend_gpu()));
        }
        for (unsigned r = 0; r < reps && !rc && k < 4; r++) {
            double t0 = now_s();
            rc = cuzk_gpu_ntt_run(t, (cuzk_gpu_ntt_kind)k, a, n, err, sizeof err);
            th[r] = now_s() - t0;
            t0 = now_s();
            if (!rc) rc = cuzk_gpu_ntt_run_buf(t, (cuzk_gpu_ntt_kind)k, buf, log_n, err, sizeof err);
            if (!rc) rc = cuzk_gpu_finish(q, err, sizeof err);
            tr[r] = now_s() - t0;
        }
        if (rc) break;
        double host = median(th, reps);
        if (k < 4) res = median(tr, reps);
        if (json)
            printf("{\"op\":\"%s\",\"log_n\":%u,\"backend\":\"%s\",\"cpu_device\":%s,\"median_s\":%.6f%s",
                   names[k], log_n, cli_backend_name(), cli_backend_note()[0] ? "true" : "false", host,
                   k < 4 ? ",\"resident_median_s\":" : "");
        if (json && k < 4) printf("%.6f", res);
        if (json) printf("}\n");
        if (!json && k < 4) printf("  %-8s host %.4f s  resident %.4f s\n", names[k], host, res);
        if (!json && k == 4) printf("  h        %.4f s (3 up, 7 transforms, 1 down)\n", host);
    }
    if (rc) fprintf(stderr, "ntt: device: %s\n", err[0] ? err : cuzk_strerror(rc));
    cuzk_gpu_free(buf);
    cuzk_gpu_ntt_destroy(t);
    free(th);
    free(tr);
    return rc ? 1 : 0;
}

/* ---- command ------------------------------------------------------------ */
typedef int (*ntt_fn)(const cuzk_ntt_domain *, cuzk_par *, cuzk_fr *, size_t);

int cmd_ntt(int argc, char **argv)
{
    int brc = cli_backend_take(&argc, argv, "cuzk-bench ntt");
    if (brc) return brc;
    unsigned log_n = 20, threads = 1, reps = 3, top_log = 0;
    int naive = 0, json = 0, huge = 1;
    const char *op = "forward";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--log") && i + 1 < argc)
            log_n = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--top-log") && i + 1 < argc)
            top_log = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--op") && i + 1 < argc)
            op = argv[++i];
        else if (!strcmp(argv[i], "--naive"))
            naive = 1;
        else if (!strcmp(argv[i], "--no-huge"))
            huge = 0;
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else {
            fprintf(stderr, "usage: cuzk-bench ntt [--log N] [--threads T] [--reps R] "
                            "[--op forward|inverse|coset|icoset|h|all] [--naive] [--no-huge] [--top-log T] "
                            "[--json] " CLI_BACKEND_USAGE "\n");
            return 2;
        }
    }
    const char *names[5] = {"forward", "inverse", "coset", "icoset", "h"};
    ntt_fn fns[4] = {cuzk_ntt_forward, cuzk_ntt_inverse, cuzk_ntt_coset_forward, cuzk_ntt_coset_inverse};
    int which[5] = {0}, nops = 0;
    for (int k = 0; k < 5; k++)
        which[k] = (k < 4 && !strcmp(op, "all")) || !strcmp(op, names[k]);
    for (int k = 0; k < 5; k++)
        nops += which[k];
    if (log_n > CUZK_NTT_MAX_LOG || threads < 1 || reps < 1 || nops == 0 ||
        (top_log && (top_log < NTT_TOP_LOG_MIN || top_log > CUZK_NTT_MAX_LOG))) {
        fprintf(stderr,
                "ntt: need --log <= %u, --threads >= 1, --reps >= 1, a known --op, "
                "--top-log in [%u, %u]\n",
                CUZK_NTT_MAX_LOG, NTT_TOP_LOG_MIN, CUZK_NTT_MAX_LOG);
        return 2;
    }
    if (top_log) cuzk_ntt_top_log = top_log;
    cuzk_pool *pool = NULL;
    int rc = cuzk_pool_create(&pool, threads);
    if (rc != CUZK_OK) {
        fprintf(stderr, "ntt: pool: %s\n", cuzk_strerror(rc));
        return 1;
    }
    cuzk_par *par = cuzk_pool_par(pool);
    size_t n = (size_t)1 << log_n, bytes = n * sizeof(cuzk_fr);
    cuzk_fr *a = NULL;
    if (posix_memalign((void **)&a, (size_t)2 << 20, bytes) != 0) {
        fprintf(stderr, "ntt: cannot allocate %zu bytes\n", bytes);
        cuzk_pool_destroy(pool);
        return 1;
    }
#ifdef MADV_HUGEPAGE
    if (huge) madvise(a, bytes, MADV_HUGEPAGE);
#endif
    for (size_t i = 0; i < n; i++) {
        uint8_t buf[32];
        bench_rand_bytes(buf, sizeof buf);
        cuzk_fr_from_bytes_le_reduce(&a[i], buf, sizeof buf);
    }
    if (cli_backend()) {
        rc = device_ntt(par, a, log_n, reps, which, json);
        free(a);
        cuzk_pool_destroy(pool);
        return rc;
    }
    double t0 = now_s(), c_dom = cpu_s();
    cuzk_ntt_domain *dom = NULL;
    rc = cuzk_ntt_domain_create(&dom, log_n, par);
    double t_dom = now_s() - t0;
    c_dom = cpu_s() - c_dom;
    if (rc != CUZK_OK) {
        fprintf(stderr, "ntt: domain: %s\n", cuzk_strerror(rc));
        free(a);
        cuzk_pool_destroy(pool);
        return 1;
    }
    if (!json)
        printf("ntt 2^%u, %u thread(s), %u rep(s), domain %.1f MiB built in %.3f s (cpu %.3f s), "
               "data %s\n",
               log_n, threads, reps, cuzk_ntt_domain_bytes(log_n) / 1048576.0, t_dom, c_dom,
               huge ? "madvise(HUGEPAGE)" : "plain pages");
    double *tm = calloc(reps, sizeof *tm), *tn = calloc(reps, sizeof *tn);
    double *cm = calloc(reps, sizeof *cm), *cn = calloc(reps, sizeof *cn);
    for (int k = 0; k < 4 && tm && tn && cm && cn; k++) {
        if (!which[k]) continue;
        for (unsigned r = 0; r < reps; r++) { /* ours and naive alternate */
            double c0 = cpu_s();
            t0 = now_s();
            fns[k](dom, par, a, n);
            tm[r] = now_s() - t0;
            cm[r] = cpu_s() - c0;
            if (naive && k == 0) {
                c0 = cpu_s();
                t0 = now_s();
                naive_ntt(par, a, log_n);
                tn[r] = now_s() - t0;
                cn[r] = cpu_s() - c0;
            }
        }
        qsort(tm, reps, sizeof *tm, cmp_double);
        qsort(cm, reps, sizeof *cm, cmp_double);
        qsort(tn, reps, sizeof *tn, cmp_double);
        qsort(cn, reps, sizeof *cn, cmp_double);
        double med = tm[reps / 2], nmed = tn[reps / 2], cmed = cm[reps / 2], ncmed = cn[reps / 2];
        if (json) {
            printf("{\"op\":\"%s\",\"log_n\":%u,\"threads\":%u,\"median_s\":%.6f,\"min_s\":%.6f,"
                   "\"cpu_median_s\":%.6f,\"domain_bytes\":%zu,\"domain_s\":%.6f,"
                   "\"domain_cpu_s\":%.6f,\"top_log\":%u",
                   names[k], log_n, threads, med, tm[0], cmed, cuzk_ntt_domain_bytes(log_n), t_dom, c_dom,
                   dom->top_log);
            if (naive && k == 0) printf(",\"naive_median_s\":%.6f,\"naive_cpu_median_s\":%.6f", nmed, ncmed);
            printf("}\n");
        } else {
            printf("  %-8s median %.4f s  min %.4f s  cpu %.4f s", names[k], med, tm[0], cmed);
            if (naive && k == 0)
                printf("\n  naive    median %.4f s  cpu %.4f s   ratio wall %.3f  cpu %.3f", nmed, ncmed,
                       med / nmed, cmed / ncmed);
            printf("\n");
        }
    }
    if (which[4] && tm) { /* H through the CPU backend */
        rc = time_h(cuzk_groth16_backend_cpu(), par, a, log_n, reps, tm);
        double med = rc ? 0 : median(tm, reps);
        if (rc)
            fprintf(stderr, "ntt: h: %s\n", cuzk_strerror(rc));
        else if (json)
            printf("{\"op\":\"h\",\"log_n\":%u,\"threads\":%u,\"backend\":\"cpu\",\"median_s\":%.6f}\n", log_n,
                   threads, med);
        else
            printf("  h        median %.4f s (the CPU backend's h_poly)\n", med);
    }
    bench_sink(a, 32);
    free(tm);
    free(tn);
    free(cm);
    free(cn);
    cuzk_ntt_domain_destroy(dom);
    free(a);
    cuzk_pool_destroy(pool);
    return 0;
}
