/* Internal definitions shared by the groth16 layer's files. */
#ifndef CUZK_G16_INTERNAL_H
#define CUZK_G16_INTERNAL_H

#include <stdarg.h>

#include "cuzk/groth16.h"

#define G16_G1_BYTES 96
#define G16_G2_BYTES 192

struct cuzk_groth16_params {
    cuzk_groth16_vk vk;
    size_t count[5];            /* indexed by cuzk_groth16_vec */
    /* resident: decoded arrays (NULL when mapped) */
    cuzk_g1_affine *g1[4];      /* H, L, A, B_G1 */
    cuzk_g2_affine *g2;         /* B_G2 */
    /* mapped: the file and the byte offset of each vector's first point */
    const uint8_t *map;
    size_t map_len;
    size_t off[5];
    bool is_test;
};

/* Point decode modes (CUZK_G16_LOAD_* flags reduced to one value). */
enum g16_mode { G16_CHECKED = 0, G16_NO_SUBGROUP = 1, G16_RAW = 2 };

/* Decode one uncompressed point; identity is rejected in every mode
 * (bellperson files never hold it). */
int cuzk_g16_decode_g1(cuzk_g1_affine *r, const uint8_t in[G16_G1_BYTES], enum g16_mode mode);
int cuzk_g16_decode_g2(cuzk_g2_affine *r, const uint8_t in[G16_G2_BYTES], enum g16_mode mode);

/* One secret of a test setup: SHA-512(tag || label || seed) mod r
 * (setup.c; shared by the constant-time and the streaming setups, so both
 * make the same toxic waste from a seed).  CUZK_ERR_ARG if it is zero. */
int cuzk_g16_setup_derive(cuzk_fr *r, const char *label, const uint8_t *seed, size_t seed_len);

/* m = smallest power of two >= n (n >= 1), and its log. */
unsigned cuzk_g16_log2_ceil(size_t n);

/* Seconds from a monotonic clock, or process CPU seconds if cpu. */
double cuzk_g16_clock(bool cpu);

static inline bool g16_bit(const uint64_t *bits, size_t i)
{
    return (bits[i >> 6] >> (i & 63)) & 1;
}

#endif
