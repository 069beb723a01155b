/* Private to the SnapDeals provers: one layout of a PartitionProof, filled
 * through an opener, so that the dense updater (snap_update.c, trees in
 * memory) and the sparse generator (snap_sparse.c, periodic trees) write
 * the same proof for the same sector. */
#ifndef CUZK_SNAP_INTERNAL_H
#define CUZK_SNAP_INTERNAL_H

#include "cuzk/seal_snap.h"

typedef struct cuzk_snap_opener cuzk_snap_opener;
struct cuzk_snap_opener {
    size_t r_storage; /* bytes of one tree R proof's storage, a multiple of 8 */
    void *ctx;
    /* out = the apex_leaves tree D nodes at the apex height of partition k */
    int (*apex)(const cuzk_snap_opener *o, uint8_t *out, uint32_t k);
    /* The three proofs of node c into out; storage: r_storage bytes for
     * proof_r_old, r_storage for proof_r_new, then challenge_bits x 40 for
     * proof_d_new (the indices, then the hashes), 8-byte aligned. */
    int (*open)(const cuzk_snap_opener *o, cuzk_snap_challenge_proof *out, uint8_t *storage, uint32_t c);
};

/* The PartitionProof of partition k (its challenges from comm_r_new) in
 * one allocation; free with cuzk_snap_partition_free. */
int cuzk_snap_partition_assemble(cuzk_snap_partition_proof **out, const cuzk_snap_shape *s,
                                 const uint8_t comm_c[32], const uint8_t comm_r_new[32], uint32_t k,
                                 const cuzk_snap_opener *o, char *err, size_t err_len);

#endif
