/* ChaCha block function for the DRG's per-node ChaCha8Rng.
 *
 * rust-fil-proofs seeds rand_chacha 0.3's ChaCha8Rng with 32 bytes per node
 * and draws ten u64s, i.e. the first 20 keystream words.  OpenSSL has only
 * ChaCha20 with a 32-bit counter behind EVP (an allocating context per
 * call), so the core is written here from RFC 7539 section 2.3 with the
 * round count as a parameter; tests check it at 20 rounds against OpenSSL
 * and rand_chacha's vectors and at 8 rounds against a published answer.
 * rand_chacha's state layout: constants, key, 64-bit counter (words
 * 12-13), 64-bit stream (words 14-15); output words in state order. */
#include <string.h>

#include "cuzk/seal_graph.h"

static inline uint32_t rotl32(uint32_t x, unsigned r)
{
    return (x << r) | (x >> (32 - r));
}

#define QR(a, b, c, d)                                                                                       \
    do {                                                                                                     \
        a += b, d ^= a, d = rotl32(d, 16);                                                                   \
        c += d, b ^= c, b = rotl32(b, 12);                                                                   \
        a += b, d ^= a, d = rotl32(d, 8);                                                                    \
        c += d, b ^= c, b = rotl32(b, 7);                                                                    \
    } while (0)

void cuzk_seal_chacha_block(uint32_t out[16], const uint32_t key[8], uint64_t counter, uint64_t stream,
                            unsigned double_rounds)
{
    /* "expand 32-byte k" */
    uint32_t s[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
    memcpy(s + 4, key, 8 * sizeof(uint32_t));
    s[12] = (uint32_t)counter;
    s[13] = (uint32_t)(counter >> 32);
    s[14] = (uint32_t)stream;
    s[15] = (uint32_t)(stream >> 32);
    uint32_t x[16];
    memcpy(x, s, sizeof x);
    for (unsigned r = 0; r < double_rounds; r++) {
        QR(x[0], x[4], x[8], x[12]); /* columns */
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]); /* diagonals */
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        out[i] = x[i] + s[i];
}
