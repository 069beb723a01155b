/* Inlinable Fr arithmetic for the NTT's inner loops.
 *
 * Why a private copy: the public cuzk_fr_add/sub/mul are out-of-line calls
 * (a backend switch sits behind them) and a butterfly is one multiplication
 * plus two additions, so call overhead and the lack of inlining cost about a
 * third of the transform.  These functions compute exactly the same fully
 * reduced Montgomery residues as cuzk_fr_* (tests compare transforms with a
 * naive DFT written with the public functions).  All are constant time.
 *
 * Ranges: inputs < r, outputs < r.  r < 2^255, so a + b never carries out
 * of 256 bits, which the addition below relies on. */
#ifndef CUZK_POLY_FR_ARITH_H
#define CUZK_POLY_FR_ARITH_H

#include <stdint.h>

#include "cuzk/ff.h"

#define NFR_M0 0xffffffff00000001ull
#define NFR_M1 0x53bda402fffe5bfeull
#define NFR_M2 0x3339d80809a1d805ull
#define NFR_M3 0x73eda753299d7d48ull
#define NFR_M0INV 0xfffffffeffffffffull /* -r^-1 mod 2^64 */

typedef unsigned __int128 nfr_u128;

/* (hi, lo) = a * b + c + d, which cannot overflow 128 bits */
#define NFR_MAC(hi, lo, a, b, c, d)                                          \
    do {                                                                     \
        nfr_u128 t_ = (nfr_u128)(a) * (b) + (c) + (d);                       \
        (lo) = (uint64_t)t_;                                                 \
        (hi) = (uint64_t)(t_ >> 64);                                         \
    } while (0)

static inline void nfr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    nfr_u128 x;
    uint64_t s[4], d[4], c = 0, bw = 0;
    for (int i = 0; i < 4; i++) {
        x = (nfr_u128)a->l[i] + b->l[i] + c;
        s[i] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
    static const uint64_t m[4] = {NFR_M0, NFR_M1, NFR_M2, NFR_M3};
    for (int i = 0; i < 4; i++) {
        x = (nfr_u128)s[i] - m[i] - bw;
        d[i] = (uint64_t)x;
        bw = (uint64_t)(x >> 64) & 1;
    }
    uint64_t keep = 0 - bw; /* s < r: keep the sum */
    for (int i = 0; i < 4; i++) r->l[i] = (s[i] & keep) | (d[i] & ~keep);
}

static inline void nfr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    nfr_u128 x;
    uint64_t d[4], bw = 0, c = 0;
    for (int i = 0; i < 4; i++) {
        x = (nfr_u128)a->l[i] - b->l[i] - bw;
        d[i] = (uint64_t)x;
        bw = (uint64_t)(x >> 64) & 1;
    }
    static const uint64_t m[4] = {NFR_M0, NFR_M1, NFR_M2, NFR_M3};
    uint64_t mask = 0 - bw;
    for (int i = 0; i < 4; i++) {
        x = (nfr_u128)d[i] + (m[i] & mask) + c;
        r->l[i] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
}

/* Montgomery product a*b*2^-256 mod r (CIOS, fully reduced). */
static inline void nfr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    static const uint64_t m[4] = {NFR_M0, NFR_M1, NFR_M2, NFR_M3};
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, hi, q, lo;
    for (int i = 0; i < 4; i++) {
        uint64_t bi = b->l[i], c;
        NFR_MAC(c, t0, a->l[0], bi, t0, 0);
        NFR_MAC(c, t1, a->l[1], bi, t1, c);
        NFR_MAC(c, t2, a->l[2], bi, t2, c);
        NFR_MAC(c, t3, a->l[3], bi, t3, c);
        nfr_u128 s = (nfr_u128)t4 + c;
        t4 = (uint64_t)s;
        hi = (uint64_t)(s >> 64);

        q = t0 * NFR_M0INV;
        NFR_MAC(c, lo, q, m[0], t0, 0);
        (void)lo;
        NFR_MAC(c, t0, q, m[1], t1, c);
        NFR_MAC(c, t1, q, m[2], t2, c);
        NFR_MAC(c, t2, q, m[3], t3, c);
        s = (nfr_u128)t4 + c;
        t3 = (uint64_t)s;
        t4 = hi + (uint64_t)(s >> 64);
    }
    /* t < 2r: subtract r once if t >= r */
    uint64_t d[4], bw = 0, t[4] = {t0, t1, t2, t3};
    for (int i = 0; i < 4; i++) {
        nfr_u128 x = (nfr_u128)t[i] - m[i] - bw;
        d[i] = (uint64_t)x;
        bw = (uint64_t)(x >> 64) & 1;
    }
    uint64_t keep = 0 - (uint64_t)(t4 < bw);
    for (int i = 0; i < 4; i++) r->l[i] = (t[i] & keep) | (d[i] & ~keep);
}

#endif
