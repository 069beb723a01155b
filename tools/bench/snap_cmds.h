/* SnapDeals (EmptySectorUpdate) subcommands of cuzk-bench (snap_cmds.c):
 * the generic circuit-info / setup / prove / verify / synth commands hand
 * over to these when --circuit is snap. */
#ifndef CUZK_BENCH_SNAP_CMDS_H
#define CUZK_BENCH_SNAP_CMDS_H

#include <stdbool.h>

#include "g16_cli.h"

bool cuzk_bench_snap_wants(int argc, char **argv);
int cuzk_bench_snap_circuit_info(int argc, char **argv);
int cuzk_bench_snap_setup(int argc, char **argv, const g16_setup_opts *so);
int cuzk_bench_snap_prove(int argc, char **argv);
int cuzk_bench_snap_verify(int argc, char **argv);
int cuzk_bench_snap_synth(int argc, char **argv);

#endif
