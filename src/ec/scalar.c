/* Scalar recodings shared by the G1 and G2 multiplications (ec_internal.h). */
#include "ec/ec_internal.h"

typedef unsigned __int128 u128;

/* floor((2^128 - 1) / |x|) - 2^64: the reciprocal of Moller & Granlund,
 * "Improved division by invariant integers" (2011), Algorithm 4, for the
 * normalized divisor |x| (top bit set).  Checked by tests/test_ec.c. */
#define X_ABS_RECIP 0x381204ca56cd56b5ull

/* (u1:u0) = q*|x| + rem with u1 < |x|, constant time: the two correction
 * steps use masks derived from 128-bit borrows instead of branches. */
static uint64_t div_2by1_x(uint64_t *rem, uint64_t u1, uint64_t u0)
{
    const uint64_t d = CUZK_EC_X_ABS;
    u128 q = (u128)X_ABS_RECIP * u1 + (((u128)u1 << 64) | u0);
    uint64_t q1 = (uint64_t)(q >> 64) + 1, q0 = (uint64_t)q;
    uint64_t r = u0 - q1 * d;
    /* r > q0 (as integers): the estimate was one too large. */
    uint64_t m = (uint64_t)0 - (uint64_t)(((u128)q0 - r) >> 127);
    q1 += m;
    r += m & d;
    /* r >= d: one too small (rare). */
    m = (uint64_t)0 - (1 ^ (uint64_t)(((u128)r - d) >> 127));
    q1 -= m;
    r -= m & d;
    *rem = r;
    return q1;
}

/* n = q*|x| + return value, n and q four limbs little endian. */
static uint64_t div_x(uint64_t q[4], const uint64_t n[4])
{
    uint64_t rem = 0;
    for (int i = 3; i >= 0; i--) q[i] = div_2by1_x(&rem, rem, n[i]);
    return rem;
}

void cuzk_ec_split_x(uint64_t d[4], const cuzk_fr *k)
{
    uint64_t n[4], q[4];
    cuzk_fr_to_limbs(n, k);
    d[0] = div_x(q, n);
    d[1] = div_x(n, q);
    d[2] = div_x(q, n);
    /* k < r < |x|^4, so the last quotient is a single digit below |x|. */
    d[3] = q[0];
}

void cuzk_ec_recode_ct(int8_t *out, size_t ndigits, unsigned __int128 k)
{
    uint64_t carry = 0;
    for (size_t i = 0; i < ndigits; i++) {
        uint64_t v = ((uint64_t)(k >> (CUZK_EC_CT_WINDOW * i)) & 31) + carry;
        /* v in [0, 32]; digits above 16 become v - 32 with a carry out. */
        uint64_t neg = (16 - v) >> 63;
        out[i] = (int8_t)(int64_t)(v - (neg << 5));
        carry = neg;
    }
}

size_t cuzk_ec_wnaf_var(int8_t *out, unsigned __int128 k, int w)
{
    size_t n = 0;
    const int64_t full = (int64_t)1 << w, half = full >> 1;
    while (k) {
        int64_t dgt = 0;
        if (k & 1) {
            dgt = (int64_t)(k & (u128)(full - 1));
            if (dgt >= half) dgt -= full;
            if (dgt < 0) k += (u128)(-dgt);
            else k -= (u128)dgt;
        }
        out[n++] = (int8_t)dgt;
        k >>= 1;
    }
    return n;
}
