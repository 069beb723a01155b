/* `cuzk-bench pce ...` and `synth ... --pce F | --no-pce` (pce_cmds.c). */
#ifndef CUZK_BENCH_PCE_CMDS_H
#define CUZK_BENCH_PCE_CMDS_H

#include <stdbool.h>

int cmd_pce(int argc, char **argv);
/* argv holds --pce or --no-pce: synth is cuzk_bench_pce_synth's */
bool cuzk_bench_pce_wants(int argc, char **argv);
int cuzk_bench_pce_synth(int argc, char **argv);

#endif
