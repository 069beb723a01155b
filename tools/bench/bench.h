/* cuzk-bench internals: subcommands and the micro-benchmark registry. */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stdint.h>

/* One micro-benchmark: setup() (optional, untimed) prepares inputs,
 * run(iters) performs exactly iters operations on a dependency chain
 * (each result feeds the next, so latency is measured, as blst_bench does). */
struct micro_op {
    const char *name;
    void (*setup)(void);
    void (*run)(uint64_t iters);
};

/* Tables end with an entry whose name is NULL.  One per layer so that
 * layers can add benchmarks without touching each other's files. */
extern const struct micro_op micro_ops_ff[];
extern const struct micro_op micro_ops_ec[];
extern const struct micro_op micro_ops_pairing[];

/* Keeps a value alive so the compiler cannot drop the benchmarked work. */
void bench_sink(const void *p, unsigned long len);
/* Deterministic pseudo-random bytes for benchmark inputs. */
void bench_rand_bytes(uint8_t *out, unsigned long n);

int cmd_micro(int argc, char **argv);
int cmd_point(int argc, char **argv);
int cmd_ntt(int argc, char **argv);
int cmd_msm(int argc, char **argv);
/* Groth16 (setup.c, prove.c, verify.c, export_snarkjs.c) */
int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export_snarkjs(int argc, char **argv);

#endif
