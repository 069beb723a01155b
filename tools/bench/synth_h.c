/* `cuzk-bench synth ... --through-h`: a synthesized partition carried on
 * through the H computation exactly as the prover does it (the backend's
 * h_poly / h_poly_lean, the functions cuzk_groth16_prove calls: the CPU's,
 * or the device's with --backend opencl|cuda),
 * so the peak memory of one partition in flight is measured without
 * parameters: H needs only the domain.
 *
 *   with a PCE:    WITNESS-mode cs -> A, B into two domain buffers
 *                  (cuzk_pce_evaluate_ab) -> h_poly_lean, C from the PCE
 *                  (cuzk_pce_fill_c) into B's buffer after A*B;
 *   without:       PROVE-mode cs (evaluations reserved at the domain size)
 *                  -> take a, b, c -> h_poly.
 *
 * A sampler thread reads /proc/self/status every 10 ms for the peak of
 * RssAnon (what the partition owns) and RssFile (pages of the mapped PCE
 * file, shared and reclaimable), which VmHWM (peak_rss_bytes) adds up. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_cli.h"
#include "bench.h"
#include "cli_util.h"
#include "cuzk/groth16.h"
#include "cuzk/pce_lean.h"

static void rss_now(uint64_t *anon, uint64_t *file)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "RssAnon:", 8)) *anon = strtoull(line + 8, NULL, 10) * 1024;
        if (!strncmp(line, "RssFile:", 8)) *file = strtoull(line + 8, NULL, 10) * 1024;
    }
    if (f) fclose(f);
}

typedef struct {
    atomic_bool stop;
    uint64_t anon, file, sum; /* peaks; sum = of RssAnon + RssFile at one sample */
} sampler;

static void *sample_main(void *arg)
{
    sampler *s = arg;
    while (!atomic_load(&s->stop)) {
        uint64_t a = 0, f = 0;
        rss_now(&a, &f);
        if (a > s->anon) s->anon = a;
        if (f > s->file) s->file = f;
        if (a + f > s->sum) s->sum = a + f;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    return NULL;
}

static size_t domain_of(size_t n, unsigned *log_m)
{
    size_t m = 1;
    for (*log_m = 0; m < n; (*log_m)++)
        m <<= 1;
    return m;
}

size_t bench_h_domain(size_t n)
{
    unsigned l;
    return domain_of(n, &l);
}

/* --backend (backend_cli.h): the device's h_poly / h_poly_lean, else the
 * CPU backend's. */
static const cuzk_groth16_backend *h_backend(void)
{
    return cli_backend() ? cli_backend() : cuzk_groth16_backend_cpu();
}

/* Lean: A, B now, C during H. */
static int lean_h(cuzk_cs *cs, const cuzk_pce *p, cuzk_par *par, bench_h_times *t, char *err, size_t el)
{
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    unsigned log_m;
    size_t n = k.constraints, m = domain_of(n, &log_m);
    cuzk_fr *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
    int st = a && b ? CUZK_OK : cuzk_errf(err, el, CUZK_ERR_NOMEM, "out of memory for 2 x %zu", m);
    double t0 = cli_now(), c0 = cli_cpu_now();
    if (!st) st = cuzk_pce_evaluate_ab(p, cs, a, b, m, par, err, el);
    double t1 = cli_now(), c1 = cli_cpu_now();
    cuzk_pce_lean l = {.pce = p, .cs = cs, .par = par, .err = err, .err_len = el};
    const cuzk_groth16_backend *be = h_backend();
    if (!st) st = be->h_poly_lean(be->ctx, a, b, n, log_m, cuzk_pce_fill_c, &l, par);
    t->eval_wall = t1 - t0;
    t->eval_cpu = c1 - c0;
    t->h_wall = cli_now() - t1;
    t->h_cpu = cli_cpu_now() - c1;
    free(a);
    free(b);
    return st;
}

/* Classic: the three evaluations the cs holds, grown to m in place. */
static int classic_h(cuzk_cs *cs, cuzk_par *par, bench_h_times *t, char *err, size_t el)
{
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    unsigned log_m;
    size_t n = k.constraints, m = domain_of(n, &log_m);
    cuzk_fr *ev[3] = {NULL, NULL, NULL};
    double t0 = cli_now(), c0 = cli_cpu_now();
    int st = cuzk_cs_take_evals(cs, &ev[0], &ev[1], &ev[2]);
    for (int s = 0; s < 3 && !st; s++) {
        cuzk_fr *g = realloc(ev[s], m * sizeof *g); /* in place: reserved at m */
        if (g)
            ev[s] = g;
        else
            st = CUZK_ERR_NOMEM;
    }
    if (st) cuzk_errf(err, el, st, "taking the evaluations at %zu failed", m);
    double t1 = cli_now(), c1 = cli_cpu_now();
    const cuzk_groth16_backend *be = h_backend();
    if (!st) st = be->h_poly(be->ctx, ev[0], ev[1], ev[2], n, log_m, par);
    t->eval_wall = t1 - t0;
    t->eval_cpu = c1 - c0;
    t->h_wall = cli_now() - t1;
    t->h_cpu = cli_cpu_now() - c1;
    for (int s = 0; s < 3; s++)
        free(ev[s]);
    return st;
}

int bench_through_h(cuzk_cs *cs, const cuzk_pce *p, cuzk_par *par, bench_h_times *t, char *err, size_t el)
{
    sampler s = {.stop = false};
    rss_now(&t->anon_before, &t->file_before);
    pthread_t th;
    bool on = !pthread_create(&th, NULL, sample_main, &s);
    int st = p ? lean_h(cs, p, par, t, err, el) : classic_h(cs, par, t, err, el);
    if (st && !err[0])
        cuzk_errf(err, el, st, "H computation failed: %s",
                  cli_backend_gpu() ? cuzk_gpu_groth16_error(cli_backend_gpu()) : cuzk_strerror(st));
    if (on) {
        atomic_store(&s.stop, true);
        pthread_join(th, NULL);
    }
    t->anon_peak = s.anon;
    t->file_peak = s.file;
    t->sum_peak = s.sum;
    return st;
}

void bench_h_json(const bench_h_times *t)
{
    printf(",\"through_h\":true,\"ab_eval_wall_s\":%.6f,\"ab_eval_cpu_s\":%.6f,\"h_wall_s\":%.6f,\"h_cpu_s\":"
           "%.6f,"
           "\"rss_anon_before_h_bytes\":%llu,\"rss_anon_peak_bytes\":%llu,\"rss_file_peak_bytes\":%llu,"
           "\"rss_anon_plus_file_peak_bytes\":%llu",
           t->eval_wall, t->eval_cpu, t->h_wall, t->h_cpu, (unsigned long long)t->anon_before,
           (unsigned long long)t->anon_peak, (unsigned long long)t->file_peak,
           (unsigned long long)t->sum_peak);
}
