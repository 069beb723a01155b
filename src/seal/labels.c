/* The per-node primitives of StackedDRG (create_label.rs, labeling_proof.rs,
 * hash.rs, encode.rs): a label is one SHA-256 over a 64-byte header and
 * the 37 parent slots filled by repeating the node's parents; a column is
 * hashed with Poseidon of arity = layers; encoding adds the key in Fr.
 * Kept free of the graph so that proof checkers can use them on parents
 * read from a proof. */
#include <string.h>

#include <openssl/sha.h>

#include "cuzk/poseidon.h"
#include "cuzk/seal.h"
#include "cuzk/status.h"

#define LABEL_PARENT_SLOTS 37

void cuzk_seal_prover_id(uint8_t out[32], uint64_t miner_id)
{
    memset(out, 0, 32);
    int i = 0;
    do {
        uint8_t b = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        out[i++] = (uint8_t)(b | (miner_id ? 0x80 : 0));
    } while (miner_id); /* at most 10 bytes for a u64 */
}

void cuzk_seal_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                     const uint8_t *parents, size_t n_parents)
{
    uint8_t buf[64 + 32 * LABEL_PARENT_SLOTS];
    memcpy(buf, replica_id, 32);
    for (int i = 0; i < 4; i++)
        buf[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        buf[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    memset(buf + 44, 0, 20);
    size_t len = 64;
    if (n_parents) {
        if (n_parents > LABEL_PARENT_SLOTS) n_parents = LABEL_PARENT_SLOTS;
        for (size_t s = 0; s < LABEL_PARENT_SLOTS; s++)
            memcpy(buf + 64 + 32 * s, parents + 32 * (s % n_parents), 32);
        len = sizeof buf;
    }
    SHA256(buf, len, out);
    out[31] &= 0x3f;
}

int cuzk_seal_column_hash(uint8_t out[32], const uint8_t *rows, size_t layers, char *err, size_t err_len)
{
    if (!out || !rows || !cuzk_poseidon_arity_supported(layers))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "column hash: %zu rows (Poseidon arities: 2, 4, 8, 11, 16, 24, 36)", layers);
    cuzk_fr in[CUZK_POSEIDON_MAX_ARITY], h;
    for (size_t l = 0; l < layers; l++)
        if (cuzk_fr_from_bytes_le(&in[l], rows + 32 * l))
            return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "column hash: row %zu is >= r", l);
    int st = cuzk_poseidon_hash(&h, in, layers);
    if (st) return cuzk_errf(err, err_len, st, "column hash: Poseidon arity %zu failed", layers);
    cuzk_fr_to_bytes_le(out, &h);
    return CUZK_OK;
}

int cuzk_seal_encode(uint8_t out[32], const uint8_t key[32], const uint8_t data[32])
{
    cuzk_fr k, d;
    if (cuzk_fr_from_bytes_le(&k, key) || cuzk_fr_from_bytes_le(&d, data)) return CUZK_ERR_ENC_NONCANONICAL;
    cuzk_fr_add(&k, &k, &d);
    cuzk_fr_to_bytes_le(out, &k);
    return CUZK_OK;
}
