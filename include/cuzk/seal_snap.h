/* SnapDeals (EmptySectorUpdate) natively: the shapes of rust-fil-proofs
 * storage-proofs-update (constants.rs), its bincode PartitionProof
 * (wire-contract.md), challenge derivation (challenges.rs), phi / rho and
 * the label update (vanilla.rs), native verification of partition proofs,
 * and the test-sector updater.  Same layer and conventions as cuzk/seal.h:
 * public data, nothing constant time; a status plus a sentence naming the
 * field and byte offset on error. */
#ifndef CUZK_SEAL_SNAP_H
#define CUZK_SEAL_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin.h"
#include "cuzk/par.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_SNAP_HS 6

/* Shape of one sector size (constants.rs): nodes = sector_size / 32;
 * partitions 1 / 2 / 4 / 16 for <= 8 KiB / <= 32 KiB / <= 16 MiB /
 * larger; challenges per partition 10 (<= 16 MiB) or 86; apex leaves 8
 * (<= 8 KiB) or 128; hs [1;6] (<= 32 KiB) or [7..12], h_default hs[3];
 * tree R (8-ary Poseidon) arities of validate_tree_r_shape. */
typedef struct {
    uint64_t sector_size, nodes;
    uint32_t partitions, challenges, apex_leaves;
    uint32_t hs[CUZK_SNAP_HS];
    uint32_t challenge_bits; /* log2(nodes) */
    uint32_t partition_bits; /* log2(partitions) */
    uint32_t apex_bits;      /* log2(apex_leaves) */
    uint32_t tree_base_arity, tree_base_levels, tree_sub_arity, tree_top_arity;
} cuzk_snap_shape;

/* Production sizes (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB); with
 * allow_test_sizes also 1, 4, 8, 16, 32 KiB and 16 MiB (rust-fil-proofs'
 * test sectors).  CUZK_ERR_ARG otherwise. */
int cuzk_snap_shape_for(cuzk_snap_shape *out, uint64_t sector_size, bool allow_test_sizes);
/* h_select for h: 1 << (index of h in hs), 0 if h is not allowed. */
uint64_t cuzk_snap_h_select(const cuzk_snap_shape *s, uint32_t h);
/* The public input k | h_select << partition_bits as an integer. */
uint64_t cuzk_snap_k_and_h_select(const cuzk_snap_shape *s, uint32_t k, uint32_t h);

/* RegisteredUpdateProof 0-4: StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1
 * (api 1.1); circuit ids snap-2k ... snap-64g; h = h_default. */
typedef struct {
    uint64_t id;
    const char *name; /* e.g. StackedDrg32GiBV1 */
    uint64_t sector_size;
    const char *circuit_id; /* snap-32g */
} cuzk_snap_info;
int cuzk_snap_lookup(const cuzk_snap_info **out, uint64_t registered_update_proof);
int cuzk_snap_lookup_circuit(const cuzk_snap_info **out, const char *circuit_id);

/* ---- PartitionProof (bincode) ------------------------------------------------ */
/* comm_c [32] | apex_leafs: u64 n | n x [32] | challenge_proofs: u64 n | n x
 * {proof_r_old (tree R MerkleProof), proof_d_new (binary SHA-256 Single),
 * proof_r_new (tree R)} -- the MerkleProof encoding of wire-contract.md. */
typedef struct {
    cuzk_fil_merkle_proof r_old, d_new, r_new;
} cuzk_snap_challenge_proof;

typedef struct {
    uint8_t comm_c[32];
    uint32_t n_apex;
    const uint8_t *apex_leafs; /* n_apex x 32 */
    uint32_t n_challenges;
    const cuzk_snap_challenge_proof *challenges; /* n_challenges */
    void *mem;                                   /* owns everything */
} cuzk_snap_partition_proof;

/* Parse one partition proof and check its shape against s (apex count,
 * challenge count, path kinds / arities / levels, canonical elements).
 * Errors name the field and byte offset. */
int cuzk_snap_partition_parse(cuzk_snap_partition_proof **out, const uint8_t *buf, size_t len,
                              const cuzk_snap_shape *s, char *err, size_t err_len);
void cuzk_snap_partition_free(cuzk_snap_partition_proof *p);

#ifdef __cplusplus
}
#endif
#endif
