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
 * (src/poly/ntt_internal.h, NTT_TOP_LOG). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "bench.h"
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

/* ---- command ------------------------------------------------------------ */
typedef int (*ntt_fn)(const cuzk_ntt_domain *, cuzk_par *, cuzk_fr *, size_t);

int cmd_ntt(int argc, char **argv)
{
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
                            "[--op forward|inverse|coset|icoset|all] [--naive] [--no-huge] [--top-log T] "
                            "[--json]\n");
            return 2;
        }
    }
    const char *names[4] = {"forward", "inverse", "coset", "icoset"};
    ntt_fn fns[4] = {cuzk_ntt_forward, cuzk_ntt_inverse, cuzk_ntt_coset_forward, cuzk_ntt_coset_inverse};
    int which[4] = {0}, nops = 0;
    for (int k = 0; k < 4; k++)
        which[k] = !strcmp(op, "all") || !strcmp(op, names[k]);
    for (int k = 0; k < 4; k++)
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
