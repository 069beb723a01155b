/* `cuzk-bench prove --params F (--circuit chain --size N | --r1cs F --wtns F)
 *  --out PROOF --inputs-out INPUTS [--deterministic] [--threads T] [--mmap]
 *  [--no-subgroup] [--reps R] [--validate digest|full|none]`
 * synthesizes the circuit, loads the parameters (validated once, then
 * trusted by their validation record: cuzk/srs_trust.h), proves, and
 * prints one line per phase (seconds).  PROOF gets the 192-byte proof,
 * INPUTS the public inputs (32-byte little-endian Fr each, without ONE).
 * --reps R proves R times and prints each run's phases (the proof of the
 * last run is written).  --cpu-time reports process CPU seconds (all
 * threads) instead of wall seconds, for machines shared with other work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_cli.h"
#include "bench.h"
#include "cli_util.h"
#include "cuzk/groth16.h"
#include "cuzk/pool.h"
#include "cuzk/srs_trust.h"
#include "g16_cli.h"
#include "porep_cmds.h"
#include "post_cmds.h"
#include "snap_cmds.h"
#include "thread_cpu.h"

static bool use_cpu;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(use_cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage(void)
{
    fprintf(stderr, "usage: cuzk-bench prove --params F (--circuit chain --size N | --r1cs F --wtns F) "
                    "--out PROOF --inputs-out INPUTS [--deterministic] [--threads T] [--mmap] "
                    CLI_BACKEND_USAGE " [--no-subgroup] [--reps R] [--cpu-time] [--validate digest|full|none]\n");
    return 2;
}

static int write_all(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "cuzk-bench prove: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

int cmd_prove(int argc, char **argv)
{
    int brc = cli_backend_take(&argc, argv, "cuzk-bench prove");
    if (brc) return brc;
    printf("backend     %s%s\n", cli_backend_name(), cli_backend_note());
    if (cuzk_bench_post_wants(argc, argv)) return cuzk_bench_post_prove(argc, argv);
    if (cuzk_bench_porep_wants(argc, argv)) return cuzk_bench_porep_prove(argc, argv);
    if (cuzk_bench_snap_wants(argc, argv)) return cuzk_bench_snap_prove(argc, argv);
    g16_circuit_args ca = {0};
    const char *params = NULL, *out = NULL, *inputs_out = NULL;
    size_t threads = 2, reps = 1;
    bool det = false, mmap_ = false, nosub = false;
    cuzk_srs_validate vmode = CUZK_SRS_VALIDATE_DIGEST;
    for (int i = 1; i < argc; i++) {
        int r = g16_cli_circuit_opt(&ca, argc, argv, &i);
        if (r < 0) return 2;
        if (r) continue;
        const char *o = argv[i];
        if (!strcmp(o, "--deterministic"))
            det = true;
        else if (!strcmp(o, "--mmap"))
            mmap_ = true;
        else if (!strcmp(o, "--cpu-time"))
            use_cpu = true;
        else if (!strcmp(o, "--no-subgroup"))
            nosub = true;
        else if (i + 1 >= argc)
            return usage();
        else if (!strcmp(o, "--params"))
            params = argv[++i];
        else if (!strcmp(o, "--out"))
            out = argv[++i];
        else if (!strcmp(o, "--inputs-out"))
            inputs_out = argv[++i];
        else if (!strcmp(o, "--validate")) {
            if (cuzk_srs_validate_parse(&vmode, argv[++i])) return usage();
        } else if (!strcmp(o, "--threads")) {
            if (g16_cli_parse_size(&threads, argv[++i]) || !threads || threads > 1024) return usage();
        } else if (!strcmp(o, "--reps")) {
            if (g16_cli_parse_size(&reps, argv[++i]) || !reps) return usage();
        } else
            return usage();
    }
    if (g16_cli_circuit_check(&ca, 1)) return 2;
    if (!params || !out || !inputs_out) return usage();

    cuzk_pool *pool = NULL;
    if (cuzk_pool_create(&pool, (unsigned)threads)) return 1;
    cuzk_par *par = cuzk_pool_par(pool);
    cuzk_cs *cs = NULL;
    cuzk_groth16_params *p = NULL;
    cuzk_fr *ev[3] = {NULL, NULL, NULL}; /* freed at done: declared before the first goto */
    int rc = 1;
    char err[CUZK_G16_ERR_LEN] = "";

    double t = now_s();
    if (g16_cli_synth(&cs, &ca, CUZK_CS_PROVE, 0)) goto done;
    double t_synth = now_s() - t;
    cuzk_cs_counts cnt;
    cuzk_cs_get_counts(cs, &cnt);
    cuzk_groth16_shape sh = {cnt.inputs,          cnt.aux,          cnt.constraints, cnt.a_aux_density,
                             cnt.b_input_density, cnt.b_aux_density};
    cuzk_groth16_load_opts lo = {.flags = (mmap_ ? CUZK_G16_LOAD_MMAP : 0) |
                                          (nosub ? CUZK_G16_LOAD_NO_SUBGROUP : 0),
                                 .shape = &sh,
                                 .par = par,
                                 .err = err,
                                 .err_len = sizeof err};
    if (mmap_ && cuzk_map_guard_install(err, sizeof err))
        fprintf(stderr, "cuzk-bench prove: warning: %s\n", err);
    t = now_s();
    cuzk_srs_load_info li;
    if (cli_params_load(&p, params, vmode, &lo, &li)) {
        fprintf(stderr, "cuzk-bench prove: %s\n", err);
        goto done;
    }
    double t_load = now_s() - t;
    if (li.note[0]) fprintf(stderr, "cuzk-bench prove: warning: %s\n", li.note);
    if (cuzk_groth16_params_is_test(p))
        fprintf(stderr,
                "warning: %s are TEST parameters (%s.test exists): proofs are worthless "
                "outside tests\n",
                params, params);
    cuzk_groth16_witness w;
    if (cuzk_groth16_witness_from_cs(&w, cs)) {
        fprintf(stderr, "cuzk-bench prove: synthesis produced no witness\n");
        goto done;
    }
    printf("circuit     %zu constraints, %zu inputs, %zu aux (A-dense aux %zu, B-dense %zu+%zu)\n",
           cnt.constraints, cnt.inputs, cnt.aux, cnt.a_aux_density, cnt.b_input_density, cnt.b_aux_density);
    printf("threads     %zu, params %s%s, %s seconds\n", threads, mmap_ ? "mapped" : "resident",
           nosub ? " (no subgroup check)" : "", use_cpu ? "CPU" : "wall");
    printf("synthesis   %.3f s\nload        %.3f s (%s; digest %.3f s)\n", t_synth, t_load,
           cuzk_srs_trust_name(li.how), li.digest_s);
    /* one run: hand the evaluations to the prover to transform in place
     * (saves 3 x 32 bytes per constraint); repeated runs need them intact */
    if (reps == 1) {
        size_t m = cuzk_groth16_params_count(p, CUZK_G16_H) + 1;
        int st = cuzk_groth16_witness_take_evals(&w, cs, m, ev);
        if (st && st != CUZK_ERR_NOMEM) {
            fprintf(stderr, "cuzk-bench prove: taking the evaluations: %s\n", cuzk_strerror(st));
            goto done;
        }
    }
    uint8_t proof[1][CUZK_G16_PROOF_BYTES];
    for (size_t k = 0; k < reps; k++) {
        cuzk_groth16_timings tm = {.synthesis = t_synth};
        cuzk_groth16_prove_opts po = {.deterministic = det,
                                      .backend = cli_backend(),
                                      .par = par,
                                      .timings = &tm,
                                      .cpu_time = use_cpu,
                                      .err = err,
                                      .err_len = sizeof err};
        long t0[64], t1[64];
        double c0[64], c1[64], busiest = 0, sum = 0;
        size_t n0 = thread_cpu(t0, c0, 64);
        if (cuzk_groth16_prove(proof, p, &w, 1, &po)) {
            fprintf(stderr, "cuzk-bench prove: %s%s%s\n", err, cli_backend_gpu() ? ": " : "",
                    cli_backend_gpu() ? cuzk_gpu_groth16_error(cli_backend_gpu()) : "");
            goto done;
        }
        size_t n1 = thread_cpu(t1, c1, 64);
        for (size_t a = 0; a < n1; a++) {
            double d = c1[a];
            for (size_t b = 0; b < n0; b++)
                if (t0[b] == t1[a]) d -= c0[b];
            sum += 1e-9 * d;
            busiest = 1e-9 * d > busiest ? 1e-9 * d : busiest;
        }
        printf("run %zu: thread CPU %.3f s, busiest thread %.3f s (idle-machine wall bound), "
               "speedup %.2f\n",
               k + 1, sum, busiest, busiest > 0 ? sum / busiest : 0.0);
        printf("run %zu: h_ntt %.3f  msm_h %.3f  msm_l %.3f  msm_a %.3f  msm_b_g1 %.3f  msm_b_g2 %.3f  "
               "assembly %.3f  prove %.3f s\n",
               k + 1, tm.h_ntt, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b_g1, tm.msm_b_g2, tm.assembly,
               tm.total);
    }
    size_t npub = cnt.inputs - 1;
    uint8_t *ib = malloc(npub ? 32 * npub : 1);
    if (!ib) goto done;
    const cuzk_fr *in = cuzk_cs_input_assignment(cs);
    for (size_t i = 0; i < npub; i++)
        cuzk_fr_to_bytes_le(ib + 32 * i, &in[i + 1]);
    rc = write_all(out, proof[0], CUZK_G16_PROOF_BYTES) || write_all(inputs_out, ib, 32 * npub);
    free(ib);
done:
    for (int k = 0; k < 3; k++)
        free(ev[k]);
    cuzk_groth16_params_free(p);
    cuzk_cs_free(cs);
    g16_cli_circuit_free(&ca);
    cuzk_pool_destroy(pool);
    return rc;
}
