/* cuzk-bench: benchmarks and offline tools for the cuzk proving engine.
 * Also takes the Rust cuzk-bench's global options (-a/--addr before the
 * command, --log-level) and its `synth-only` command, so operators' scripts
 * written for the Rust bench run unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "pce_cmds.h"
#ifdef CUZK_HAVE_GRPC
#include "client.h"
#endif

#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif

static int cmd_synth_only(int argc, char **argv);

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
    {"micro", cmd_micro, "micro [--filter OP] [--json]   field/curve/pairing ns per op"},
    {"devices", cmd_devices, "devices [--build] [--json]  compute devices (OpenCL, CUDA) found, or why none"},
    {"point", cmd_point, "point (--g1|--g2) HEX          decode and validate a point"},
    {"ntt", cmd_ntt, "ntt [--log N] [--threads T] [--op OP] [--naive] [--backend cpu|opencl|cuda] [--device N]  NTT over Fr "
            "timing (OP h: Groth16's H)"},
    {"msm", cmd_msm,
     "msm [--group g1|g2] [--log N] [--scalars random|bits|filecoin] [--threads T] [--backend cpu|opencl|cuda] "
     "[--device N]  MSM timing"},
    {"setup", cmd_setup,
     "setup (--circuit chain --size N | --r1cs F) --out DIR [--seed S]  Groth16 TEST params"},
    {"prove", cmd_prove,
     "prove --params F (--circuit chain --size N | --r1cs F --wtns F) --out PROOF --inputs-out IN "
     "[--deterministic] [--threads T] [--mmap] [--backend cpu|opencl|cuda] [--device N]  (also --circuit "
     "porep|snap|winning-post|window-post)"},
    {"verify", cmd_verify,
     "verify --vk F --proof F --inputs F   prints valid / invalid: reason (exit 0/1/2)"},
    {"export-snarkjs", cmd_export_snarkjs,
     "export-snarkjs --vk F --proof F --inputs F --out DIR  snarkjs 0.7.6 JSON"},
    {"synth-only", cmd_synth_only,
     "synth-only --c1 F [--partition K] [-i N] [synth --circuit porep opts]  = synth --circuit porep, N "
     "times (Rust name)"},
    {"synth", cmd_synth,
     "synth (--circuit chain|bits --size N | --r1cs F --wtns F) [--mode prove|witness|shape|check] [--repeat "
     "R] [--json] [--through-h [--backend cpu|opencl|cuda] [--device N]]  synthesis speed"},
    {"pce", cmd_pce,
     "pce extract --circuit porep|winning-post|window-post|snap --sector-size S [--out F | --params-dir D] | "
     "pce info F | pce verify F [--threads T]  pre-compiled constraint evaluator files"},
    {"circuit-info", cmd_circuit_info,
     "circuit-info (--circuit chain --size N | --r1cs F) [--json]  R1CS counts and density"},
    {"gen-vanilla", cmd_gen_vanilla,
     "gen-vanilla post --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB --sector N --randomness HEX --out DIR "
     "[--sectors COUNT] [--sparse] [--seed S] [--threads T]  synthetic sectors + PoSt vanilla proofs (sparse "
     "trees at 32/64 GiB)\n"
     "  gen-vanilla porep --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB --out DIR [--registered-proof N] [--sector N] "
     "[--miner-id N] [--sparse] [--seed S] [--threads T]  test sector + C1 JSON (natively sealed, or sparse: "
     "only what a proof opens; 32/64 GiB)\n"
     "  gen-vanilla snap --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB --out DIR2 (--sealed DIR | --sparse) "
     "[--partitions K,...] [--seed S] [--threads T]  SnapDeals update of a porep sector, or sparse (32/64 GiB): "
     "vanilla proofs"},
#ifdef CUZK_HAVE_GRPC
    {"single", cmd_single,
     "single [--addr A] [TLS] --kind|-t K (--c1 F | --vanilla F... | --vanilla-text S) [request opts] [--out "
     "PROOF] [--json]  one Prove via the daemon"},
    {"batch", cmd_batch,
     "batch [--addr A] [TLS] --count|-c N --concurrency|-j C --kind|-t K ... [--vk F] [--json]  throughput, "
     "p50/p95/p99; --vk: verify every proof here (a .vk or .params file)"},
    {"stress", cmd_stress,
     "stress [--addr A] [TLS] --duration S --job KIND:RATE:(@FILE|TEXT)[:REGISTERED_PROOF]... "
     "[--vk [KIND=]F]... "
     "[--json] [request opts]  mixed load, every proof checked (--vk: verified here)"},
    {"status", cmd_status, "status [--addr A] [TLS] [--repeat N]  daemon GetStatus (--repeat: calls/s)"},
    {"metrics", cmd_metrics, "metrics [--addr A] [TLS]  daemon Prometheus text"},
    {"preload", cmd_preload,
     "preload [--addr A] [TLS] (CIRCUIT_ID | -c ID)  PreloadSRS (e.g. porep-32g, wpost-32g, winning-2k, "
     "window-post-32g)"},
    {"evict", cmd_evict, "evict [--addr A] [TLS] (CIRCUIT_ID | -c ID)    EvictSRS"},
    {"cancel", cmd_cancel, "cancel [--addr A] [TLS] JOB_ID        CancelProof"},
    {"submit", cmd_submit, "submit [--addr A] [TLS] --kind K ...  SubmitProof (prints job id)"},
    {"await", cmd_await, "await [--addr A] [TLS] [--timeout-ms T] JOB_ID  AwaitProof"},
#endif
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench [-a|--addr ADDR] [TLS] [--log-level L] COMMAND [options]\n"
               "       cuzk-bench --version | help [COMMAND] | COMMAND --help\n"
               "  ADDR: unix:///path, /path, host:port or http(s)://host:port (sets $CUZK_ADDR;\n"
               "        a command's own --addr wins); https:// is TLS\n"
               "  TLS:  --tls-ca F --tls-cert F --tls-key F (PEM: the daemon's CA, the client\n"
               "        certificate and key of its mutual TLS); also after any client command;\n"
               "        any of them makes host:port TLS\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %s\n", commands[i].help);
}

static int find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(name, commands[i].name)) return (int)i;
    return -1;
}

/* The Rust bench's `synth-only --c1 F [-i N] [--partition K]`: our
 * `synth --circuit porep`, run N times (each run prints its own timing). */
static int cmd_synth_only(int argc, char **argv)
{
    char **v = calloc((size_t)argc + 3, sizeof *v);
    if (!v) return 1;
    int n = 0;
    long iters = 1;
    v[n++] = "synth";
    v[n++] = "--circuit";
    v[n++] = "porep";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-i") || !strcmp(argv[i], "--iterations")) {
            char *end;
            iters = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || iters < 1 || iters > 1000) {
                fprintf(stderr, "synth-only: %s needs a count 1..1000\n", argv[i]);
                free(v);
                return 2;
            }
            i++;
        } else {
            v[n++] = argv[i];
        }
    }
    v[n] = NULL;
    int rc = 0;
    for (long k = 0; k < iters && !rc; k++)
        rc = cmd_synth(n, v);
    free(v);
    return rc;
}

int main(int argc, char **argv)
{
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) { /* global options, before the command */
        const char *o = argv[a];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "--version") || !strcmp(o, "-V")) {
            printf("cuzk-bench %s\n", CUZK_VERSION);
            return 0;
        } else if ((!strcmp(o, "-a") || !strcmp(o, "--addr")) && a + 1 < argc) {
            setenv("CUZK_ADDR", argv[++a], 1); /* client_open reads http(s)://host:port too */
        } else if (!strncmp(o, "--addr=", 7)) {
            setenv("CUZK_ADDR", o + 7, 1);
#ifdef CUZK_HAVE_GRPC
        } else if (client_tls_arg(argc, argv, &a) > 0) { /* for every client_open */
#endif
        } else if (!strcmp(o, "--log-level") && a + 1 < argc) {
            a++; /* accepted for the Rust bench's scripts; the bench has no log levels */
        } else if (!strncmp(o, "--log-level=", 12)) {
        } else {
            fprintf(stderr, "cuzk-bench: unknown or incomplete global option '%s'\n", o);
            usage(stderr);
            return 2;
        }
    }
    if (a >= argc) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[a], "help")) {
        if (a + 1 >= argc) {
            usage(stdout);
            return 0;
        }
        int k = find_command(argv[a + 1]);
        if (k < 0) {
            fprintf(stderr, "cuzk-bench: unknown command '%s'\n", argv[a + 1]);
            return 2;
        }
        printf("usage: cuzk-bench %s\n", commands[k].help);
        return 0;
    }
    int k = find_command(argv[a]);
    if (k < 0) {
        fprintf(stderr, "cuzk-bench: unknown command '%s'\n", argv[a]);
        usage(stderr);
        return 2;
    }
    for (int i = a + 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: cuzk-bench %s\n", commands[k].help);
            return 0;
        }
    return commands[k].fn(argc - a, argv + a);
}
