/* FallbackPoSt subcommands of cuzk-bench (post_cmds.c): the generic
 * circuit-info / setup / prove / verify / synth commands hand over to these
 * when --circuit is winning-post or window-post. */
#ifndef CUZK_BENCH_POST_CMDS_H
#define CUZK_BENCH_POST_CMDS_H

#include <stdbool.h>

#include "cuzk/post.h"
#include "g16_cli.h"

bool cuzk_bench_post_wants(int argc, char **argv);
int cuzk_bench_post_circuit_info(int argc, char **argv);
int cuzk_bench_post_setup(int argc, char **argv, const g16_setup_opts *so);
int cuzk_bench_post_prove(int argc, char **argv);
int cuzk_bench_post_verify(int argc, char **argv);
int cuzk_bench_post_synth(int argc, char **argv);

/* A random witness for the synthesis benchmarks (synth --random-witness,
 * synth --pce): every sector gets random canonical commitments and the same
 * random inclusion proofs of the tree's shape.  Nothing is satisfied; the
 * synthesis work is a real one's.  Deterministic.  0 or 1 (no memory);
 * _free it either way. */
typedef struct {
    cuzk_post_circuit_sector *sec;
    cuzk_fil_merkle_proof *proofs;
    uint8_t *bytes;
    uint64_t *index;
} cuzk_bench_post_random;
int cuzk_bench_post_random_ctx(cuzk_post_circuit_ctx *ctx, cuzk_bench_post_random *r,
                               const cuzk_fil_post_info *info);
void cuzk_bench_post_random_free(cuzk_bench_post_random *r);

#endif
