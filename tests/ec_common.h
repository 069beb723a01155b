/* Helpers shared by test_ec.c (G1) and test_ec_g2.c (G2): scalars (random
 * and edge cases), random field elements, hex input. */
#ifndef CUZK_TEST_EC_COMMON_H
#define CUZK_TEST_EC_COMMON_H

#include <string.h>

#include "cuzk/ec.h"
#include "ec/ec_internal.h"
#include "harness.h"

/* canonical little-endian limbs of r, and r - 1 */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                    0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

static inline void fr_random(cuzk_fr *k)
{
    uint8_t b[64];
    test_rand_bytes(b, sizeof b);
    cuzk_fr_from_bytes_le_reduce(k, b, sizeof b);
}

static inline void fr_from_limbs_checked(cuzk_fr *k, const uint64_t l[4])
{
    CHECK(cuzk_fr_from_limbs(k, l) == CUZK_OK);
}

static inline void fp_random(cuzk_fp *a)
{
    uint8_t b[48];
    do {
        test_rand_bytes(b, sizeof b);
        b[0] &= 0x1f;
    } while (cuzk_fp_from_bytes_be(a, b) != CUZK_OK);
}

/* Edge scalars for multiplication tests, then random ones. */
static inline void scalar_case(cuzk_fr *k, int i)
{
    uint64_t l[4] = {0, 0, 0, 0};
    switch (i) {
    case 0: break;                                    /* 0 */
    case 1: l[0] = 1; break;                          /* 1 */
    case 2: l[0] = 2; break;                          /* 2 */
    case 3: memcpy(l, R_LIMBS, sizeof l); l[0] -= 1; break; /* r - 1 */
    case 4: memcpy(l, R_LIMBS, sizeof l); l[0] -= 2; break; /* r - 2 */
    case 5: l[0] = 17; break;
    case 6: l[0] = CUZK_EC_X_ABS; break;               /* |x| */
    case 7: l[0] = CUZK_EC_X_ABS - 1; break;
    case 8: l[1] = CUZK_EC_X_ABS; break;               /* |x| 2^64 */
    case 9: { /* |x|^2 - 1 = all base-|x| digits 0,0 then max */
        unsigned __int128 z = (unsigned __int128)CUZK_EC_X_ABS * CUZK_EC_X_ABS - 1;
        l[0] = (uint64_t)z; l[1] = (uint64_t)(z >> 64); break;
    }
    case 10: { /* |x|^2 */
        unsigned __int128 z = (unsigned __int128)CUZK_EC_X_ABS * CUZK_EC_X_ABS;
        l[0] = (uint64_t)z; l[1] = (uint64_t)(z >> 64); break;
    }
    case 11: l[0] = ~0ull; l[1] = ~0ull; break;          /* 2^128 - 1 */
    case 12: l[3] = 1ull << 62; break;                    /* 2^254 */
    default: fr_random(k); return;
    }
    fr_from_limbs_checked(k, l);
}
#define N_EDGE_SCALARS 13

static inline void hex_to(uint8_t *out, size_t n, const char *hex)
{
    CHECK(test_hex_decode(out, n, hex, strlen(hex)) == (long)n);
}

/* The non-canonical encoding a + p; returns whether it stays below 2^381
 * (so it fits under the flag bits of a first coordinate). */
static inline int fp_to_be_plus_p(uint8_t out[48], const cuzk_fp *a)
{
    uint64_t l[6], c = 0;
    cuzk_fp_to_limbs(l, a);
    for (int i = 0; i < 6; i++) {
        unsigned __int128 s = (unsigned __int128)l[i] + CUZK_FP_MODULUS[i] + c;
        l[i] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
    for (int i = 0; i < 48; i++) out[47 - i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
    return (out[0] & 0xe0) == 0;
}

#endif
