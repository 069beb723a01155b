/* `cuzk-bench circuit-info`: R1CS shape of a circuit, counted in SHAPE mode
 * (no values stored: a few bits per variable).
 *
 *   cuzk-bench circuit-info (--circuit chain --size N | --r1cs F) [--json]
 *
 * constraints include the appended input constraints, inputs include ONE;
 * nonzeros are merged terms per matrix; density values are popcounts of the
 * bitmaps the Groth16 prover uses (a_aux, b_input, b_aux). */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"
#include "porep_cmds.h"
#include "snap_cmds.h"
#include "post_cmds.h"
#include "cuzk/status.h"

int cmd_circuit_info(int argc, char **argv)
{
    if (cuzk_bench_post_wants(argc, argv)) return cuzk_bench_post_circuit_info(argc, argv);
    if (cuzk_bench_porep_wants(argc, argv)) return cuzk_bench_porep_circuit_info(argc, argv);
    if (cuzk_bench_snap_wants(argc, argv)) return cuzk_bench_snap_circuit_info(argc, argv);
    bench_circuit c = {0};
    int json = 0;
    for (int i = 1; i < argc; i++) {
        int r = bench_circuit_arg(&c, argc, argv, &i);
        if (r < 0) return 2;
        if (r) continue;
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else {
            fprintf(stderr, "usage: cuzk-bench circuit-info (--circuit chain --size N | --r1cs F) [--json]\n");
            return 2;
        }
    }
    if (bench_circuit_open(&c, false)) return 1;
    cuzk_cs *cs;
    int rc = cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0);
    if (!rc) rc = cuzk_cs_synthesize(cs, c.fn, c.ctx);
    if (rc) {
        fprintf(stderr, "error: %s\n", cs ? cuzk_cs_error(cs) : cuzk_strerror(rc));
        cuzk_cs_free(cs);
        bench_circuit_close(&c);
        return 1;
    }
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    cuzk_cs_free(cs);
    bench_circuit_close(&c);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (json) {
        printf("{\"circuit\":\"%s\",\"constraints\":%zu,\"inputs\":%zu,\"aux\":%zu,\"nnz_a\":%zu,"
               "\"nnz_b\":%zu,\"nnz_c\":%zu,\"a_aux_density\":%zu,\"b_input_density\":%zu,"
               "\"b_aux_density\":%zu,\"peak_rss_kib\":%ld}\n",
               c.desc, k.constraints, k.inputs, k.aux, k.nnz_a, k.nnz_b, k.nnz_c, k.a_aux_density,
               k.b_input_density, k.b_aux_density, ru.ru_maxrss);
    } else {
        printf("circuit          %s\n", c.desc);
        printf("constraints      %zu (incl. %zu input constraints)\n", k.constraints, k.inputs);
        printf("inputs           %zu (incl. ONE)\n", k.inputs);
        printf("aux              %zu\n", k.aux);
        printf("nonzeros A/B/C   %zu / %zu / %zu\n", k.nnz_a, k.nnz_b, k.nnz_c);
        printf("density a_aux    %zu of %zu\n", k.a_aux_density, k.aux);
        printf("density b_input  %zu of %zu\n", k.b_input_density, k.inputs);
        printf("density b_aux    %zu of %zu\n", k.b_aux_density, k.aux);
        printf("peak RSS         %ld KiB\n", ru.ru_maxrss);
    }
    return 0;
}
