/* Native StackedDRG sealing (PoRep): the identifiers, challenges, labels and
 * trees of rust-fil-proofs storage-proofs-porep stacked/vanilla, computed
 * natively (no circuit).  Used to check C1 input before synthesis, to
 * compute PoRep public inputs and to seal small test sectors.  Layer
 * `seal` sits above `fil` (Poseidon, Merkle trees, registry) and below
 * `circuits`; the graph is in cuzk/seal_graph.h, C1 input in
 * cuzk/seal_c1.h.
 *
 * All data is public: nothing here is constant time.  Functions that can
 * fail return a status (cuzk/status.h) and, where err is given, a
 * sentence naming the field. */
#ifndef CUZK_SEAL_H
#define CUZK_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* replica_id = sha256(prover_id || sector_id u64 BE || ticket || comm_d ||
 * porep_id) with out[31] &= 0x3f (a canonical Fr, filecoin-formats.md 5). */
void cuzk_seal_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                          const uint8_t ticket[32], const uint8_t comm_d[32],
                          const uint8_t porep_id[32]);

/* Challenges of partition `partition` (challenges_per_partition of them,
 * node indices in [1, nodes)) for the registered proof's mode:
 * interactive (seed), synthetic (seed selects among the synthetic
 * challenges derived from replica_id and comm_r) or NI (comm_r, seed
 * ignored); filecoin-formats.md section 8. */
int cuzk_seal_challenges(uint64_t *out, size_t cap, const cuzk_fil_seal_info *info,
                         const uint8_t replica_id[32], const uint8_t seed[32],
                         const uint8_t comm_r[32], uint32_t partition, char *err, size_t err_len);

/* Label of `node` in layer `layer` (1-based): SHA-256(replica_id || layer
 * u32 BE || node u64 BE || 0^20 || parents repeated to 37 x 32 bytes) with
 * out[31] &= 0x3f.  parents: n_parents (6 for layer 1, 14 after) labels. */
void cuzk_seal_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                     const uint8_t *parents, size_t n_parents);

/* Column hash: Poseidon of arity `layers` over the rows (domain elements)
 * (CUZK_ERR_ARG for an arity Poseidon does not support). */
int cuzk_seal_column_hash(uint8_t out[32], const uint8_t *rows, size_t layers, char *err,
                          size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
