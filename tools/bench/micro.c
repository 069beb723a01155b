/* `cuzk-bench micro`: latency of single field/curve/pairing operations.
 *
 * Each op is calibrated to run ~100 ms, then measured 5 times; the median
 * ns/op is printed (text, or JSON lines {"op":"fp_mul","ns":41.2}). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuzk/ff.h"

static volatile unsigned char sink_byte;

void bench_sink(const void *p, unsigned long len)
{
    const unsigned char *b = p;
    unsigned char x = 0;
    for (unsigned long i = 0; i < len; i++) x ^= b[i];
    sink_byte ^= x;
}

void bench_rand_bytes(uint8_t *out, unsigned long n)
{
    static uint64_t s = 0x9e3779b97f4a7c15ull;
    for (unsigned long i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out[i] = (uint8_t)s;
    }
}

void bench_rand_fp(cuzk_fp *r)
{
    uint8_t buf[48];
    do {
        bench_rand_bytes(buf, sizeof buf);
        buf[0] &= 0x0f; /* < 2^380 < p: the first draw is canonical */
    } while (cuzk_fp_from_bytes_be(r, buf));
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double measure(const struct micro_op *op)
{
    if (op->setup) op->setup();
    uint64_t iters = 1;
    double dt;
    for (;;) {
        double t0 = now_ns();
        op->run(iters);
        dt = now_ns() - t0;
        if (dt > 10e6 || iters > (1ull << 40)) break;
        iters *= 4;
    }
    uint64_t n = (uint64_t)(iters * (100e6 / dt));
    if (n < 1) n = 1;
    double samples[5];
    for (int i = 0; i < 5; i++) {
        double t0 = now_ns();
        op->run(n);
        samples[i] = (now_ns() - t0) / (double)n;
    }
    qsort(samples, 5, sizeof samples[0], cmp_double);
    return samples[2];
}

int cmd_micro(int argc, char **argv)
{
    const char *filter = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else {
            fprintf(stderr, "usage: cuzk-bench micro [--filter OP] [--json]\n");
            return 2;
        }
    }
    const struct micro_op *tables[] = {micro_ops_ff, micro_ops_ec, micro_ops_pairing};
    if (!json) printf("# backend %s; median of 5 runs of ~100 ms each\n", cuzk_ff_backend());
    int matched = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        for (const struct micro_op *op = tables[t]; op->name; op++) {
            if (filter && !strstr(op->name, filter)) continue;
            matched++;
            double ns = measure(op);
            if (json) printf("{\"op\":\"%s\",\"ns\":%.1f}\n", op->name, ns);
            else printf("%-16s %12.1f ns\n", op->name, ns);
            fflush(stdout);
        }
    }
    if (!matched) {
        fprintf(stderr, "cuzk-bench micro: no benchmark matches '%s'\n", filter ? filter : "");
        return 2;
    }
    return 0;
}
