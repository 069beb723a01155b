/* cuzk-bench internals: subcommands and the micro-benchmark registry. */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cuzk/circom.h"
#include "cuzk/pce.h"
#include "cuzk/r1cs.h"

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
/* A pseudo-random Fp element (from bench_rand_bytes, below 2^380 < p). */
void bench_rand_fp(cuzk_fp *r);

int cmd_micro(int argc, char **argv);
int cmd_point(int argc, char **argv);
int cmd_ntt(int argc, char **argv);
int cmd_msm(int argc, char **argv);
/* Compute devices of the device layer (devices.c) */
int cmd_devices(int argc, char **argv);
/* Groth16 (setup.c, prove.c, verify.c, export_snarkjs.c) */
int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export_snarkjs(int argc, char **argv);

/* Daemon client commands (client_*.c; only with gRPC, CUZK_HAVE_GRPC) */
int cmd_single(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_preload(int argc, char **argv);
int cmd_evict(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_await(int argc, char **argv);

/* Constraint system (synth.c, circuit_info.c) */
int cmd_synth(int argc, char **argv);
int cmd_circuit_info(int argc, char **argv);

/* Filecoin data (gen_vanilla.c) */
int cmd_gen_vanilla(int argc, char **argv);

/* Circuit chosen on the command line (synth.c): --circuit chain --size N
 * (N or 2^K) | --r1cs F [--wtns F].  bench_circuit_arg consumes the option
 * at argv[*i] (and its value): 1 if consumed, 0 if not ours, -1 on a bad
 * value (message printed).  bench_circuit_open loads files and sets fn/ctx
 * for cuzk_cs_synthesize; need_witness requires --wtns for --r1cs.
 * --circuit bits is a bench-only boolean/packing circuit (synth.c). */
enum { BENCH_CIRCUIT_NONE = 0, BENCH_CIRCUIT_CHAIN, BENCH_CIRCUIT_R1CS, BENCH_CIRCUIT_BITS };
typedef struct {
    int kind;
    const char *r1cs_path, *wtns_path;
    cuzk_chain_ctx chain;
    cuzk_circom *circom;
    cuzk_circuit_fn fn;
    void *ctx;
    char desc[256];
    double load_s;
} bench_circuit;
int bench_circuit_arg(bench_circuit *c, int argc, char **argv, int *i);
int bench_circuit_open(bench_circuit *c, bool need_witness);
void bench_circuit_close(bench_circuit *c);

/* The per-kind synth commands (porep, post, snap) share these (synth.c):
 * the --threads value when given (else 1), and one result line -- with
 * --json: circuit, mode, witness, constraints, repeat, wall_s, cpu_s
 * (process CPU: every thread), threads, constraints_per_s (per wall
 * second), constraints_per_cpu_s, peak_rss_bytes (getrusage ru_maxrss),
 * load1 (the 1-minute load average: the machine may be shared). */
typedef struct {
    const char *circuit, *mode, *witness;
    size_t constraints, repeat;
    double wall_s, cpu_s;
    unsigned threads;
} bench_synth_result;
unsigned bench_synth_threads(int argc, char **argv, uint64_t parsed);
void bench_synth_report(const bench_synth_result *r, bool json);

/* synth --through-h (synth_h.c): a finished cs carried through H as the
 * prover computes it -- WITNESS mode + PCE: A, B into two domain buffers,
 * C from the PCE after A*B (lean); PROVE mode (p NULL): its a, b, c (the
 * caller reserved them at bench_h_domain(constraints)).  Times and the
 * peaks of RssAnon / RssFile sampled during it; bench_h_json appends
 * them to a JSON object being printed (leading comma, no brace). */
typedef struct {
    double eval_wall, eval_cpu, h_wall, h_cpu;
    uint64_t anon_before, file_before, anon_peak, file_peak, sum_peak;
} bench_h_times;
size_t bench_h_domain(size_t constraints);
int bench_through_h(cuzk_cs *cs, const cuzk_pce *p, cuzk_par *par, bench_h_times *t, char *err, size_t el);
void bench_h_json(const bench_h_times *t);

#endif
