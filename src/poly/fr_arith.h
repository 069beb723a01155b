/* Inlinable Fr arithmetic for the NTT's inner loops.
 *
 * Why: the public cuzk_fr_add/sub/mul are out-of-line calls and a butterfly
 * is one multiplication plus two additions, so calls and the lost inlining
 * are a large share of the transform.  Multiplication is the field layer's
 * inlinable dispatcher (ff/field_internal.h; poly sits above ff); addition
 * and subtraction are unrolled carry chains here.  Results are exactly the
 * fully reduced Montgomery residues cuzk_fr_* give (the tests compare every
 * transform with a naive DFT written with the public functions).  All are
 * constant time.
 *
 * Ranges: inputs < r, outputs < r.  r < 2^255, so a + b never carries out
 * of 256 bits, which the addition below relies on. */
#ifndef CUZK_POLY_FR_ARITH_H
#define CUZK_POLY_FR_ARITH_H

#include <stdint.h>

#include "cuzk/ff.h"
#include "ff/field_internal.h"

#define NFR_M0 0xffffffff00000001ull
#define NFR_M1 0x53bda402fffe5bfeull
#define NFR_M2 0x3339d80809a1d805ull
#define NFR_M3 0x73eda753299d7d48ull

#if defined(__x86_64__)
#include <x86intrin.h>

static inline __attribute__((always_inline)) void nfr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    unsigned long long s0, s1, s2, s3, d0, d1, d2, d3;
    unsigned char c = _addcarry_u64(0, a->l[0], b->l[0], &s0);
    c = _addcarry_u64(c, a->l[1], b->l[1], &s1);
    c = _addcarry_u64(c, a->l[2], b->l[2], &s2);
    (void)_addcarry_u64(c, a->l[3], b->l[3], &s3); /* no carry out: a + b < 2r < 2^256 */
    c = _subborrow_u64(0, s0, NFR_M0, &d0);
    c = _subborrow_u64(c, s1, NFR_M1, &d1);
    c = _subborrow_u64(c, s2, NFR_M2, &d2);
    c = _subborrow_u64(c, s3, NFR_M3, &d3);
    uint64_t keep = 0 - (uint64_t)c; /* s < r: keep the sum */
    r->l[0] = (s0 & keep) | (d0 & ~keep);
    r->l[1] = (s1 & keep) | (d1 & ~keep);
    r->l[2] = (s2 & keep) | (d2 & ~keep);
    r->l[3] = (s3 & keep) | (d3 & ~keep);
}

static inline __attribute__((always_inline)) void nfr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    unsigned long long d0, d1, d2, d3;
    unsigned char c = _subborrow_u64(0, a->l[0], b->l[0], &d0);
    c = _subborrow_u64(c, a->l[1], b->l[1], &d1);
    c = _subborrow_u64(c, a->l[2], b->l[2], &d2);
    c = _subborrow_u64(c, a->l[3], b->l[3], &d3);
    uint64_t mask = 0 - (uint64_t)c; /* borrowed: add r back */
    c = _addcarry_u64(0, d0, NFR_M0 & mask, &d0);
    c = _addcarry_u64(c, d1, NFR_M1 & mask, &d1);
    c = _addcarry_u64(c, d2, NFR_M2 & mask, &d2);
    (void)_addcarry_u64(c, d3, NFR_M3 & mask, &d3);
    r->l[0] = d0;
    r->l[1] = d1;
    r->l[2] = d2;
    r->l[3] = d3;
}
#else
static inline __attribute__((always_inline)) void nfr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    limbs_add_mod_n(r->l, a->l, b->l, CUZK_FR_MODULUS, 4);
}

static inline __attribute__((always_inline)) void nfr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    limbs_sub_mod_n(r->l, a->l, b->l, CUZK_FR_MODULUS, 4);
}
#endif

/* Montgomery product a*b*2^-256 mod r: the field layer's inlinable
 * dispatcher (MULX/ADX when active, else its portable path). */
static inline __attribute__((always_inline)) void nfr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr_mul_inl(r, a, b);
}

#endif
