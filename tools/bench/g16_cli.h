/* Helpers shared by the Groth16 subcommands of cuzk-bench (setup.c,
 * prove.c, verify.c, export_snarkjs.c): circuit selection on the command
 * line, synthesis, whole-file reading. */
#ifndef CUZK_BENCH_G16_CLI_H
#define CUZK_BENCH_G16_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/circom.h"
#include "cuzk/pce.h"
#include "cuzk/r1cs.h"

typedef struct {
    const char *circuit; /* "chain" or NULL */
    size_t size;         /* chain length */
    const char *r1cs, *wtns;
    const char *x0;  /* chain input (decimal u64), default 3 */
    cuzk_circom *cc; /* loaded circom circuit */
} g16_circuit_args;

/* If argv[*i] is a circuit option, consume it (and its value) and return 1;
 * 0 if it is not one; -1 on a missing value. */
int g16_cli_circuit_opt(g16_circuit_args *a, int argc, char **argv, int *i);
/* Validate the combination; prints usage problems; returns 0 or 2. */
int g16_cli_circuit_check(const g16_circuit_args *a, int need_witness);
/* Synthesize into a new cs (mode, flags); loads circom files on first use.
 * Returns a status; message printed to stderr. */
int g16_cli_synth(cuzk_cs **out, g16_circuit_args *a, cuzk_cs_mode mode, unsigned flags);
/* A short name for output files: "chain-N" or the .r1cs basename. */
void g16_cli_circuit_name(char *out, size_t cap, const g16_circuit_args *a);
void g16_cli_circuit_free(g16_circuit_args *a);
/* Whole file (malloc'd) or NULL with a message on stderr. */
uint8_t *g16_cli_read_file(const char *path, size_t *len);
/* Parse a positive decimal; returns 0 on success. */
int g16_cli_parse_size(size_t *out, const char *s);
/* Progress printer for cuzk_groth16_setup_test_progress (ctx: a
 * g16_cli_progress set up by g16_cli_progress_init): a line on stderr with
 * the query and the percentage of all points, at most every 2 s and only
 * once the setup has run for 2 s, so short setups stay quiet. */
typedef struct {
    double start, last;
} g16_cli_progress;
void g16_cli_progress_init(g16_cli_progress *pr);
void g16_cli_setup_progress(void *ctx, const char *phase, size_t done, size_t total);

/* TEST parameters of a Filecoin circuit (fn, ctx, synthesized blank in
 * SHAPE mode with matrices) written to out_dir under their v28 names
 * (param_id: cuzk_fil_*_param_id) with .test sidecars noting seed and name;
 * prints the two paths on stdout and a summary on stderr.  0, or 1 with a
 * message. */
/* Options of `setup` shared by every circuit kind, taken out of argv by
 * cmd_setup before the kind's own parser runs (g16_cli_setup_opts_take).
 * Default: the streaming variable-time setup (cuzk_groth16_setup_test_file)
 * from the circuit's PCE, extracted to --pce F (default DIR/<circuit id>.pce,
 * where the daemon's synthesis.pce = auto finds it with DIR as its
 * param_cache; kept for later runs and proofs) unless a valid one is there; --constant-time: the in-memory constant-time setup
 * (matrices in RAM: small circuits only). */
typedef struct {
    bool constant_time;
    const char *pce;          /* NULL = DIR/<stem>.pce */
    uint64_t mem_budget;      /* bytes for the column sums; 0 = the library's 3 GiB */
    uint64_t window_g1, window_g2; /* fixed-base windows; 0 = the library's */
} g16_setup_opts;
/* Removes the shared options from argv (argc updated); 2 with a message
 * for a bad value. */
int g16_cli_setup_opts_take(g16_setup_opts *so, int *argc, char **argv);
#define G16_SETUP_USAGE                                                                                       \
    "[--constant-time] [--pce F] [--mem-budget BYTES] [--window-g1 W] [--window-g2 W]"
/* kind, sector size: the PCE identity the engine uses for this circuit
 * (cuzk_pce_filecoin_circuit_id); a kind without a daemon id gets
 * CUZK_PCE_KIND_OTHER and the parameter id. */
int g16_cli_setup_filecoin(const char *out_dir, const char *seed, unsigned threads, cuzk_circuit_fn fn,
                           void *ctx, const char *param_id, const char *name, const g16_setup_opts *so,
                           uint32_t pce_kind, uint64_t sector_size);

/* circuit-info of a Filecoin circuit: SHAPE synthesis of (fn, ctx), then
 * the counts as text or one JSON object (keys circuit, registered_proof,
 * param_id, the shape_json fields, constraints, rust_constraints, inputs,
 * aux, nnz_a/b/c, a_aux_density, b_input_density, b_aux_density, shape_s,
 * peak_rss_bytes).  expect_rust: the count the gadget costs predict (0 =
 * none); returns 0, or 1 when synthesis fails or the count differs. */
typedef struct {
    const char *name, *param_id;
    uint64_t id;
    const char *shape_text; /* e.g. "1 partitions x 2 challenges, 2 layers" */
    const char *shape_json; /* e.g. "\"partitions\":1,\"challenges\":2" */
    size_t expect_rust;
} g16_cli_info;
int g16_cli_circuit_info(const g16_cli_info *inf, cuzk_circuit_fn fn, void *ctx, bool json);

/* Prove every partition of a Filecoin job (or only `partition` when it is
 * >= 0) and write the proofs (192 bytes each, partition-major) and, if
 * inputs_out, the public inputs (32-byte LE Fr, no ONE, partition-major).
 * synth(ctx, k, mode, par, &cs) makes partition k's cs in `mode`;
 * inputs(ctx, k, &n) its verifier-computed inputs.  With pce (a PCE file of
 * the circuit, identity pce_id) each partition is synthesized in WITNESS
 * mode and proved in the lean form (A z and B z from the PCE into the two
 * domain buffers, C z on demand: cuzk/pce_lean.h), as the engine does;
 * without, in PROVE mode.  mmap: the params are mapped, not read (WARM: a
 * file larger than RAM), and decoded chunk by chunk by the MSMs.  Each
 * proof is self-verified before anything is written.  A timing line per
 * partition on stderr (synthesis, PCE, NTT, each MSM, params read rate,
 * peak RssAnon).  0, or 1 with a message. */
typedef struct {
    const char *params, *out, *inputs_out, *name;
    unsigned threads;
    bool deterministic, no_validate, mmap;
    uint32_t partitions;
    int64_t partition; /* -1: all */
    const char *pce;   /* NULL: PROVE-mode synthesis */
    uint32_t pce_kind;
    uint64_t sector_size;
    int (*synth)(void *ctx, uint32_t k, cuzk_cs_mode mode, cuzk_par *par, cuzk_cs **cs, char *err, size_t err_len);
    const cuzk_fr *(*inputs)(void *ctx, uint32_t k, size_t *n);
    void *ctx;
} g16_cli_prove_job;
/* The PCE identity the engine gives a Filecoin circuit (kind, sector size)
 * and its daemon circuit id (cid, e.g. porep-32g), or CUZK_PCE_KIND_OTHER
 * with param_id and cid "" for one without a daemon id. */
void g16_cli_pce_identity(cuzk_pce_identity *id, char cid[64], uint32_t kind, uint64_t sector_size,
                          const char *param_id);
int g16_cli_prove_partitions(const g16_cli_prove_job *job);

#endif
