/* replica_id (storage-proofs-porep stacked/vanilla/params.rs
 * generate_replica_id): the sector's identity that seeds its labels. */
#include <openssl/sha.h>
#include <string.h>

#include "cuzk/seal.h"

void cuzk_seal_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                          const uint8_t ticket[32], const uint8_t comm_d[32],
                          const uint8_t porep_id[32])
{
    uint8_t msg[32 + 8 + 32 + 32 + 32];
    memcpy(msg, prover_id, 32);
    for (int i = 0; i < 8; i++) msg[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i));
    memcpy(msg + 40, ticket, 32);
    memcpy(msg + 72, comm_d, 32);
    memcpy(msg + 104, porep_id, 32);
    SHA256(msg, sizeof msg, out);
    out[31] &= 0x3f;
}
