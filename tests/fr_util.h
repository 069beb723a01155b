/* Fr helpers shared by the constraint-system and Poseidon tests: a small
 * constant and a uniformly random element (from test_rand_bytes, so
 * --seed replays it). */
#ifndef CUZK_TEST_FR_UTIL_H
#define CUZK_TEST_FR_UTIL_H

#include "cuzk/ff.h"
#include "harness.h"

static inline cuzk_fr fr_u64(uint64_t v)
{
    cuzk_fr r;
    cuzk_fr_from_u64(&r, v);
    return r;
}

/* 64 random bytes reduced mod r: bias below 2^-250. */
static inline cuzk_fr fr_rand(void)
{
    uint8_t b[64];
    test_rand_bytes(b, sizeof b);
    cuzk_fr r;
    cuzk_fr_from_bytes_le_reduce(&r, b, sizeof b);
    return r;
}

#endif
