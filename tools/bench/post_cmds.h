/* FallbackPoSt subcommands of cuzk-bench (post_cmds.c): the generic
 * circuit-info / setup / prove / verify / synth commands hand over to these
 * when --circuit is winning-post or window-post. */
#ifndef CUZK_BENCH_POST_CMDS_H
#define CUZK_BENCH_POST_CMDS_H

#include <stdbool.h>

#include "g16_cli.h"

bool cuzk_bench_post_wants(int argc, char **argv);
int cuzk_bench_post_circuit_info(int argc, char **argv);
int cuzk_bench_post_setup(int argc, char **argv, const g16_setup_opts *so);
int cuzk_bench_post_prove(int argc, char **argv);
int cuzk_bench_post_verify(int argc, char **argv);
int cuzk_bench_post_synth(int argc, char **argv);

#endif
