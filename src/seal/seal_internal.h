/* Private state of the test-sector sealer shared by sealer.c (replication)
 * and seal_proofs.c (the vanilla proofs of seal commit phase 1). */
#ifndef CUZK_SEAL_INTERNAL_H
#define CUZK_SEAL_INTERNAL_H

#include "cuzk/seal.h"
#include "cuzk/seal_graph.h"

typedef struct {
    cuzk_seal_graph graph;
    cuzk_fil_tree_shape shape;
    uint32_t layers;
    uint32_t *parents; /* nodes x 14: 6 DRG then 8 expander */
    cuzk_fil_tree *tree_c, *tree_r;
    cuzk_seal_challenge_proof *proofs; /* partitions x cpp */
    uint8_t *proof_mem;                /* paths, rows and parents of every proof */
    cuzk_seal_progress_fn progress;
    void *progress_ctx;
} seal_impl;

/* Fill s->c1 (challenges and vanilla proofs of every partition). */
int cuzk_seal_prove_all(cuzk_seal_sector *s, cuzk_par *par, char *err, size_t err_len);

#endif
