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

#ifdef __cplusplus
}
#endif
#endif
