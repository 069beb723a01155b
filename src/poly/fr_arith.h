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

#if defined(__x86_64__) && !defined(NFR_C_ADDSUB)
/* Carry chains and selects in asm: written in C, gcc turns the selects into
 * SSE moves between register files and spills (measured below in
 * docs/perf-notes.md, section NTT). */
static const uint64_t nfr_modulus[4] = {NFR_M0, NFR_M1, NFR_M2, NFR_M3};

static inline __attribute__((always_inline)) void nfr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    uint64_t s0 = a->l[0], s1 = a->l[1], s2 = a->l[2], s3 = a->l[3], d0, d1, d2, d3;
    /* a + b < 2r < 2^256: no carry out; the borrow of (a + b) - r picks */
    __asm__("addq %[b0], %[s0]\n\t"
            "adcq %[b1], %[s1]\n\t"
            "adcq %[b2], %[s2]\n\t"
            "adcq %[b3], %[s3]\n\t"
            "movq %[s0], %[d0]\n\t"
            "subq %[m0], %[d0]\n\t"
            "movq %[s1], %[d1]\n\t"
            "sbbq %[m1], %[d1]\n\t"
            "movq %[s2], %[d2]\n\t"
            "sbbq %[m2], %[d2]\n\t"
            "movq %[s3], %[d3]\n\t"
            "sbbq %[m3], %[d3]\n\t"
            "cmovcq %[s0], %[d0]\n\t"
            "cmovcq %[s1], %[d1]\n\t"
            "cmovcq %[s2], %[d2]\n\t"
            "cmovcq %[s3], %[d3]\n\t"
            : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3),
              [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]),
              [m0] "m"(nfr_modulus[0]), [m1] "m"(nfr_modulus[1]), [m2] "m"(nfr_modulus[2]),
              [m3] "m"(nfr_modulus[3])
            : "cc");
    r->l[0] = d0;
    r->l[1] = d1;
    r->l[2] = d2;
    r->l[3] = d3;
}

static inline __attribute__((always_inline)) void nfr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    uint64_t d0 = a->l[0], d1 = a->l[1], d2 = a->l[2], d3 = a->l[3], z0, z1, z2, z3;
    /* a - b, and if that borrowed, + r (selected by cmov from memory) */
    __asm__("subq %[b0], %[d0]\n\t"
            "sbbq %[b1], %[d1]\n\t"
            "sbbq %[b2], %[d2]\n\t"
            "sbbq %[b3], %[d3]\n\t"
            "movq $0, %[z0]\n\t"
            "movq $0, %[z1]\n\t"
            "movq $0, %[z2]\n\t"
            "movq $0, %[z3]\n\t"
            "cmovcq %[m0], %[z0]\n\t"
            "cmovcq %[m1], %[z1]\n\t"
            "cmovcq %[m2], %[z2]\n\t"
            "cmovcq %[m3], %[z3]\n\t"
            "addq %[z0], %[d0]\n\t"
            "adcq %[z1], %[d1]\n\t"
            "adcq %[z2], %[d2]\n\t"
            "adcq %[z3], %[d3]\n\t"
            : [d0] "+&r"(d0), [d1] "+&r"(d1), [d2] "+&r"(d2), [d3] "+&r"(d3),
              [z0] "=&r"(z0), [z1] "=&r"(z1), [z2] "=&r"(z2), [z3] "=&r"(z3)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]),
              [m0] "m"(nfr_modulus[0]), [m1] "m"(nfr_modulus[1]), [m2] "m"(nfr_modulus[2]),
              [m3] "m"(nfr_modulus[3])
            : "cc");
    r->l[0] = d0;
    r->l[1] = d1;
    r->l[2] = d2;
    r->l[3] = d3;
}
#elif defined(__x86_64__)
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
