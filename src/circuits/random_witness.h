/* Deterministic pseudo-random witness values for the synth-only
 * benchmarks of the PoRep and SnapDeals circuits (splitmix64 over a
 * counter; Fr32-valid elements).  Benchmark data only: not random in any
 * cryptographic sense. */
#ifndef CUZK_CIRCUITS_RANDOM_WITNESS_H
#define CUZK_CIRCUITS_RANDOM_WITNESS_H

#include <stdint.h>
#include <string.h>

#include "cuzk/ff.h"
#include "ff/verify.h"

static inline uint64_t rw_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* n elements with the top two bits of byte 31 cleared; *st advances. */
static inline void rw_frs(cuzk_fr *out, size_t n, uint64_t *st)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b[32];
        for (int w = 0; w < 4; w++) {
            uint64_t v = rw_mix((*st)++);
            memcpy(b + 8 * w, &v, 8);
        }
        b[31] &= 0x3f; /* < 2^254 < r: canonical */
        CUZK_CANNOT_FAIL(cuzk_fr_from_bytes_le(&out[i], b));
    }
}

#endif
