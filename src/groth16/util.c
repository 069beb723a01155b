/* Small helpers of the groth16 layer: error messages, point decoding in the
 * three trust modes, clocks. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "g16_internal.h"

unsigned cuzk_g16_log2_ceil(size_t n)
{
    unsigned k = 0;
    while (((size_t)1 << k) < n) k++;
    return k;
}

double cuzk_g16_clock(bool cpu)
{
    struct timespec ts;
    clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Flags of an uncompressed encoding: only "infinity with all other bits
 * zero" is allowed, and bellperson files never contain infinity. */
static int raw_flags(const uint8_t *in, size_t len)
{
    if (in[0] & 0x80) return CUZK_ERR_ENC_COMPRESSION;
    if (in[0] & 0x20) return CUZK_ERR_ENC_SIGN;
    if (in[0] & 0x40) {
        if (in[0] != 0x40) return CUZK_ERR_ENC_INFINITY;
        for (size_t i = 1; i < len; i++)
            if (in[i]) return CUZK_ERR_ENC_INFINITY;
        return CUZK_ERR_ENC_IDENTITY;
    }
    return CUZK_OK;
}

/* Trusted decode: flags and canonical coordinates only, no curve equation.
 * Used for files validated at load time (and for NO_VALIDATE). */
static int raw_g1(cuzk_g1_affine *r, const uint8_t in[G16_G1_BYTES])
{
    int st = raw_flags(in, G16_G1_BYTES);
    if (st) return st;
    if ((st = cuzk_fp_from_bytes_be(&r->x, in))) return st;
    return cuzk_fp_from_bytes_be(&r->y, in + 48);
}

static int raw_g2(cuzk_g2_affine *r, const uint8_t in[G16_G2_BYTES])
{
    int st = raw_flags(in, G16_G2_BYTES);
    if (st) return st;
    /* Fp2 is encoded c1 first, then c0 */
    if ((st = cuzk_fp_from_bytes_be(&r->x.c1, in))) return st;
    if ((st = cuzk_fp_from_bytes_be(&r->x.c0, in + 48))) return st;
    if ((st = cuzk_fp_from_bytes_be(&r->y.c1, in + 96))) return st;
    return cuzk_fp_from_bytes_be(&r->y.c0, in + 144);
}

int cuzk_g16_decode_g1(cuzk_g1_affine *r, const uint8_t in[G16_G1_BYTES], enum g16_mode mode)
{
    int st;
    switch (mode) {
    case G16_CHECKED: st = cuzk_g1_deserialize(r, in); break;
    case G16_NO_SUBGROUP: st = cuzk_g1_deserialize_unchecked(r, in); break;
    default: st = raw_g1(r, in); break;
    }
    if (st) return st;
    return cuzk_g1_affine_is_inf(r) ? CUZK_ERR_ENC_IDENTITY : CUZK_OK;
}

int cuzk_g16_decode_g2(cuzk_g2_affine *r, const uint8_t in[G16_G2_BYTES], enum g16_mode mode)
{
    int st;
    switch (mode) {
    case G16_CHECKED: st = cuzk_g2_deserialize(r, in); break;
    case G16_NO_SUBGROUP: st = cuzk_g2_deserialize_unchecked(r, in); break;
    default: st = raw_g2(r, in); break;
    }
    if (st) return st;
    return cuzk_g2_affine_is_inf(r) ? CUZK_ERR_ENC_IDENTITY : CUZK_OK;
}
