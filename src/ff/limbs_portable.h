/* Portable multi-precision primitives on little-endian 64-bit limbs.
 *
 * Generic in the limb count n (4 for Fr, 6 for Fp); every caller passes a
 * compile-time constant so the loops unroll after inlining.  All functions
 * are constant time: no branches or memory indices depend on limb values.
 *
 * Preconditions common to the modular ones: m is odd, m < 2^(64n - 1)
 * (both BLS12-381 moduli leave spare top bits), inputs are < m unless a
 * function says otherwise; outputs may alias inputs. */
#ifndef CUZK_FF_LIMBS_PORTABLE_H
#define CUZK_FF_LIMBS_PORTABLE_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 cuzk_u128;

#define LIMBS_MAX 6

/* -O2 does not unroll; these loops run 4..12 times on constant bounds and
 * are much faster as straight-line code (no loop-carried index, carries
 * stay in registers). */
#define LIMBS_UNROLL _Pragma("GCC unroll 12")

/* r = t - m if that does not borrow past the extra top word hi, else t.
 * Requires (hi:t) < 2m.  Used to bring a value in [0, 2m) into [0, m). */
static inline void limbs_csub_n(uint64_t *r, const uint64_t *t, uint64_t hi,
                                const uint64_t *m, int n)
{
    uint64_t d[LIMBS_MAX], borrow = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        cuzk_u128 x = (cuzk_u128)t[i] - m[i] - borrow;
        d[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    /* keep t iff the subtraction borrowed out of hi */
    uint64_t keep = 0 - (uint64_t)(hi < borrow);
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) r[i] = (t[i] & keep) | (d[i] & ~keep);
}

static inline void limbs_add_mod_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                   const uint64_t *m, int n)
{
    uint64_t s[LIMBS_MAX], carry = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        cuzk_u128 x = (cuzk_u128)a[i] + b[i] + carry;
        s[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
    limbs_csub_n(r, s, carry, m, n);
}

static inline void limbs_sub_mod_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                   const uint64_t *m, int n)
{
    uint64_t d[LIMBS_MAX], borrow = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        cuzk_u128 x = (cuzk_u128)a[i] - b[i] - borrow;
        d[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    uint64_t mask = 0 - borrow, carry = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        cuzk_u128 x = (cuzk_u128)d[i] + (m[i] & mask) + carry;
        r[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
}

/* r = -a mod m (0 stays 0). */
static inline void limbs_neg_mod_n(uint64_t *r, const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t nz = 0, borrow = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) nz |= a[i];
    uint64_t mask = 0 - (uint64_t)(nz != 0);
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        cuzk_u128 x = (cuzk_u128)m[i] - a[i] - borrow;
        r[i] = (uint64_t)x & mask;
        borrow = (uint64_t)(x >> 64) & 1;
    }
}

/* Montgomery multiplication, CIOS: r = a*b*2^(-64n) mod m, fully reduced.
 * Pre: a, b < m (the same contract as the ADX path; this portable code
 * would tolerate any a < 2^(64n), the ADX code would not). */
static inline void limbs_mont_mul_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                    const uint64_t *m, uint64_t minv, int n)
{
    uint64_t t[LIMBS_MAX + 2] = {0};
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        cuzk_u128 c = 0;
        LIMBS_UNROLL
        for (int j = 0; j < n; j++) {
            c = (cuzk_u128)a[j] * b[i] + t[j] + (uint64_t)(c >> 64);
            t[j] = (uint64_t)c;
        }
        c = (cuzk_u128)t[n] + (uint64_t)(c >> 64);
        t[n] = (uint64_t)c;
        t[n + 1] = (uint64_t)(c >> 64);

        uint64_t q = t[0] * minv;
        c = (cuzk_u128)q * m[0] + t[0];
        LIMBS_UNROLL
        for (int j = 1; j < n; j++) {
            c = (cuzk_u128)q * m[j] + t[j] + (uint64_t)(c >> 64);
            t[j - 1] = (uint64_t)c;
        }
        c = (cuzk_u128)t[n] + (uint64_t)(c >> 64);
        t[n - 1] = (uint64_t)c;
        t[n] = t[n + 1] + (uint64_t)(c >> 64);
    }
    limbs_csub_n(r, t, t[n], m, n);
}

/* Montgomery reduction of a 2n-limb value t < m*2^(64n):
 * r = t*2^(-64n) mod m, fully reduced. */
static inline void limbs_mont_redc_n(uint64_t *r, const uint64_t *t_in,
                                     const uint64_t *m, uint64_t minv, int n)
{
    uint64_t t[2 * LIMBS_MAX + 1];
    LIMBS_UNROLL
    for (int i = 0; i < 2 * n; i++) t[i] = t_in[i];
    t[2 * n] = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        uint64_t q = t[i] * minv;
        cuzk_u128 c = 0;
        LIMBS_UNROLL
        for (int j = 0; j < n; j++) {
            c = (cuzk_u128)q * m[j] + t[i + j] + (uint64_t)(c >> 64);
            t[i + j] = (uint64_t)c;
        }
        /* propagate the carry to the top */
        uint64_t carry = (uint64_t)(c >> 64);
        LIMBS_UNROLL
        for (int k = i + n; k <= 2 * n; k++) {
            cuzk_u128 x = (cuzk_u128)t[k] + carry;
            t[k] = (uint64_t)x;
            carry = (uint64_t)(x >> 64);
        }
    }
    limbs_csub_n(r, t + n, t[2 * n], m, n);
}

/* r (2n limbs) = a * b, schoolbook, no reduction. */
static inline void limbs_mul_n(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t t[2 * LIMBS_MAX] = {0};
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        cuzk_u128 c = 0;
        LIMBS_UNROLL
        for (int j = 0; j < n; j++) {
            c = (cuzk_u128)a[j] * b[i] + t[i + j] + (uint64_t)(c >> 64);
            t[i + j] = (uint64_t)c;
        }
        t[i + n] = (uint64_t)(c >> 64);
    }
    LIMBS_UNROLL
    for (int i = 0; i < 2 * n; i++) r[i] = t[i];
}

/* Constant-time helpers. */
static inline uint64_t limbs_is_zero_n(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) acc |= a[i];
    return (uint64_t)1 & ((acc | (0 - acc)) >> 63 ^ 1);
}

static inline uint64_t limbs_eq_n(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t acc = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) acc |= a[i] ^ b[i];
    return (uint64_t)1 & ((acc | (0 - acc)) >> 63 ^ 1);
}

/* 1 if a < b (as integers), else 0; constant time. */
static inline uint64_t limbs_lt_n(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t borrow = 0;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) {
        cuzk_u128 x = (cuzk_u128)a[i] - b[i] - borrow;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    return borrow;
}

static inline void limbs_cmov_n(uint64_t *r, const uint64_t *a, uint64_t flag, int n)
{
    uint64_t mask = 0 - flag;
    LIMBS_UNROLL
    for (int i = 0; i < n; i++) r[i] ^= (r[i] ^ a[i]) & mask;
}

#endif
