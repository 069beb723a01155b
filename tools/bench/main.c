/* cuzk-bench: benchmarks and offline tools for the cuzk proving engine. */
#include <stdio.h>
#include <string.h>

#include "bench.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
    {"micro", cmd_micro, "micro [--filter OP] [--json]   field/curve/pairing ns per op"},
    {"point", cmd_point, "point (--g1|--g2) HEX          decode and validate a point"},
    {"ntt", cmd_ntt, "ntt [--log N] [--threads T] [--op OP] [--naive]  NTT over Fr timing"},
    {"msm", cmd_msm, "msm [--group g1|g2] [--log N] [--scalars random|bits|filecoin] [--threads T]  MSM timing"},
    {"setup", cmd_setup, "setup (--circuit chain --size N | --r1cs F) --out DIR [--seed S]  Groth16 TEST params"},
    {"prove", cmd_prove, "prove --params F (--circuit chain --size N | --r1cs F --wtns F) --out PROOF --inputs-out IN [--deterministic] [--threads T] [--mmap]"},
    {"verify", cmd_verify, "verify --vk F --proof F --inputs F   prints valid / invalid: reason (exit 0/1/2)"},
    {"export-snarkjs", cmd_export_snarkjs, "export-snarkjs --vk F --proof F --inputs F --out DIR  snarkjs 0.7.6 JSON"},
    {"synth", cmd_synth, "synth (--circuit chain|bits --size N | --r1cs F --wtns F) [--mode prove|witness|shape|check] [--repeat R] [--json]  synthesis speed"},
    {"circuit-info", cmd_circuit_info, "circuit-info (--circuit chain --size N | --r1cs F) [--json]  R1CS counts and density"},
    {"gen-vanilla", cmd_gen_vanilla, "gen-vanilla post --sector-size 2KiB|8MiB|512MiB --sector N --randomness HEX --out DIR [--seed S] [--threads T]  synthetic sector + PoSt vanilla proofs\n"
     "  gen-vanilla porep --sector-size 2KiB|8MiB|512MiB --out DIR [--registered-proof N] [--sector N] [--miner-id N] [--seed S] [--threads T]  natively sealed test sector + C1 JSON\n"
     "  gen-vanilla snap --sector-size 2KiB|8MiB|512MiB --sealed DIR --out DIR2 [--seed S] [--threads T]  SnapDeals update of a porep sector + vanilla proofs"},
#ifdef CUZK_HAVE_GRPC
    {"single", cmd_single, "single [--addr A] --kind K (--c1 F | --vanilla F... | --vanilla-text S) [request opts] [--out PROOF] [--json]  one Prove via the daemon"},
    {"batch", cmd_batch, "batch [--addr A] --count N --concurrency C --kind K ...  throughput, p50/p95/p99"},
    {"stress", cmd_stress, "stress [--addr A] --duration S --job KIND:RATE:(@FILE|TEXT)... [request opts]  mixed load, every proof checked"},
    {"status", cmd_status, "status [--addr A] [--repeat N]  daemon GetStatus (--repeat: calls/s)"},
    {"metrics", cmd_metrics, "metrics [--addr A]  daemon Prometheus text"},
    {"preload", cmd_preload, "preload [--addr A] CIRCUIT_ID   PreloadSRS (e.g. winning-2k)"},
    {"evict", cmd_evict, "evict [--addr A] CIRCUIT_ID     EvictSRS"},
    {"cancel", cmd_cancel, "cancel [--addr A] JOB_ID        CancelProof"},
    {"submit", cmd_submit, "submit [--addr A] --kind K ...  SubmitProof (prints job id)"},
    {"await", cmd_await, "await [--addr A] [--timeout-ms T] JOB_ID  AwaitProof"},
#endif
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %s\n", commands[i].help);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cuzk-bench: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
