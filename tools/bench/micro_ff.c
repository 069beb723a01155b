/* Field micro-benchmarks: each run(iters) is a dependency chain (the result
 * of one operation is an input of the next), as in blst_bench, so the
 * numbers are latencies including the call into the public API. */
#include "bench.h"
#include "cuzk/ff.h"

static cuzk_fp fa, fb;
static cuzk_fr ra, rb;

static void fp_setup(void)
{
    bench_rand_fp(&fa);
    bench_rand_fp(&fb);
    cuzk_fp_sqr(&fa, &fa); /* a square, so the sqrt chain stays on squares */
}

static void fr_setup(void)
{
    uint8_t buf[32];
    bench_rand_bytes(buf, sizeof buf);
    cuzk_fr_from_bytes_le_reduce(&ra, buf, sizeof buf);
    bench_rand_bytes(buf, sizeof buf);
    cuzk_fr_from_bytes_le_reduce(&rb, buf, sizeof buf);
}

static void fp_mul_run(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++) cuzk_fp_mul(&a, &a, &fb);
    bench_sink(&a, sizeof a);
}

static void fp_sqr_run(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++) cuzk_fp_sqr(&a, &a);
    bench_sink(&a, sizeof a);
}

static void fp_add_run(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++) cuzk_fp_add(&a, &a, &fb);
    bench_sink(&a, sizeof a);
}

static void fp_inv_run(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++) cuzk_fp_inv(&a, &a);
    bench_sink(&a, sizeof a);
}

static void fp_inv_var_run(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++) cuzk_fp_inv_var(&a, &a);
    bench_sink(&a, sizeof a);
}

static void fp_sqrt_run(uint64_t n)
{
    /* alternates between the two roots' squares: sqrt(a) may be a
     * non-square, so square it again to stay on the chain */
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_fp_sqrt(&a, &a);
        cuzk_fp_add(&a, &a, &fb);
        cuzk_fp_sqr(&a, &a);
    }
    bench_sink(&a, sizeof a);
}

static void fr_mul_run(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++) cuzk_fr_mul(&a, &a, &rb);
    bench_sink(&a, sizeof a);
}

static void fr_sqr_run(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++) cuzk_fr_sqr(&a, &a);
    bench_sink(&a, sizeof a);
}

static void fr_add_run(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++) cuzk_fr_add(&a, &a, &rb);
    bench_sink(&a, sizeof a);
}

static void fr_inv_run(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++) cuzk_fr_inv(&a, &a);
    bench_sink(&a, sizeof a);
}

static void fr_inv_var_run(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++) cuzk_fr_inv_var(&a, &a);
    bench_sink(&a, sizeof a);
}

const struct micro_op micro_ops_ff[] = {
    {"fp_mul", fp_setup, fp_mul_run},
    {"fp_sqr", fp_setup, fp_sqr_run},
    {"fp_add", fp_setup, fp_add_run},
    {"fp_inv", fp_setup, fp_inv_run},
    {"fp_inv_var", fp_setup, fp_inv_var_run},
    {"fp_sqrt", fp_setup, fp_sqrt_run},
    {"fr_mul", fr_setup, fr_mul_run},
    {"fr_sqr", fr_setup, fr_sqr_run},
    {"fr_add", fr_setup, fr_add_run},
    {"fr_inv", fr_setup, fr_inv_run},
    {"fr_inv_var", fr_setup, fr_inv_var_run},
    {0, 0, 0},
};
