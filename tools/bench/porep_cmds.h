/* PoRep (StackedDRG C2) subcommands of cuzk-bench (porep_cmds.c): the
 * generic circuit-info / setup / prove / verify / synth commands hand over
 * to these when --circuit is porep. */
#ifndef CUZK_BENCH_POREP_CMDS_H
#define CUZK_BENCH_POREP_CMDS_H

#include <stdbool.h>

#include "g16_cli.h"

bool cuzk_bench_porep_wants(int argc, char **argv);
int cuzk_bench_porep_circuit_info(int argc, char **argv);
int cuzk_bench_porep_setup(int argc, char **argv, const g16_setup_opts *so);
int cuzk_bench_porep_prove(int argc, char **argv);
int cuzk_bench_porep_verify(int argc, char **argv);
int cuzk_bench_porep_synth(int argc, char **argv);

#endif
