/* Lazy sums of shifted Fr values for the PCE mat-vec (pce_eval.c).
 *
 * Why: bit packing makes a row of the form sum_k +-2^k * b_k with k up to
 * 254.  Multiplying each value by the Montgomery form of 2^k (one Montgomery
 * multiplication per entry) made those rows the mat-vec's most expensive
 * part.  Here a term +-2^k * z with k = 64 q + s is added, unreduced, into
 * accumulator q as the plain integer +-(z << s): a shift and a 6-limb add,
 * the sign folded in as a two's-complement negation (no branch).  Each
 * accumulator is reduced once per row (fr_wide_reduce) and multiplied by
 * 2^(64 q) once.
 *
 * Ranges: a term is below 2^318 in magnitude (z < r < 2^255, s <= 63), so
 * a 384-bit signed accumulator holds any sum of fewer than 2^64 terms (a
 * row's terms are 5-byte records of one mapped file: far fewer); no bound
 * is tracked.
 *
 * Also here: fr_acc_add / fr_acc_sub, the row's reduced sum kept in
 * registers (the field layer's inlinable add works through memory).
 *
 * Everything on values is constant time: branches only on shift counts and
 * signs, which come from the public coefficient codes.  The reduced value
 * is the canonical residue, the same one a cuzk_fr_add chain gives. */
#ifndef CUZK_R1CS_FR_ACC_H
#define CUZK_R1CS_FR_ACC_H

#include <stdint.h>

#include "cuzk/ff.h"
#include "ff/field_internal.h"

typedef struct {
    uint64_t l[6]; /* signed two's complement, mod 2^384 */
} fr_wide;

/* w += (neg ? -1 : +1) * (z << s).  Pre: z < r, s < 64, neg in {0, 1}. */
static inline __attribute__((always_inline)) void fr_wide_add_shl(fr_wide *w, const cuzk_fr *z, unsigned s,
                                                                  uint64_t neg)
{
    uint64_t m = 0 - neg;
#if defined(__x86_64__) && !defined(FR_ACC_PORTABLE)
    /* t = z << s over 5 limbs (shld by 0 is a no-op), t ^= m, w += t + neg
     * with m as the sixth limb.  In asm: in C, gcc spills the chain. */
    uint64_t t0, t1, t2, t3, t4;
    __asm__(
        "movq %[z3], %[t3]\n\t"
        "movq %[z2], %[t2]\n\t"
        "xorl %k[t4], %k[t4]\n\t"
        "shldq %%cl, %[t3], %[t4]\n\t"
        "shldq %%cl, %[t2], %[t3]\n\t"
        "movq %[z1], %[t1]\n\t"
        "shldq %%cl, %[t1], %[t2]\n\t"
        "movq %[z0], %[t0]\n\t"
        "shldq %%cl, %[t0], %[t1]\n\t"
        "shlq %%cl, %[t0]\n\t"
        "xorq %[m], %[t0]\n\t"
        "xorq %[m], %[t1]\n\t"
        "xorq %[m], %[t2]\n\t"
        "xorq %[m], %[t3]\n\t"
        "xorq %[m], %[t4]\n\t"
        "btq $0, %[m]\n\t"
        "adcq %[t0], %[w0]\n\t"
        "adcq %[t1], %[w1]\n\t"
        "adcq %[t2], %[w2]\n\t"
        "adcq %[t3], %[w3]\n\t"
        "adcq %[t4], %[w4]\n\t"
        "adcq %[m], %[w5]\n\t"
        : [w0] "+m"(w->l[0]), [w1] "+m"(w->l[1]), [w2] "+m"(w->l[2]), [w3] "+m"(w->l[3]), [w4] "+m"(w->l[4]),
          [w5] "+m"(w->l[5]), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4)
        : [z0] "m"(z->l[0]), [z1] "m"(z->l[1]), [z2] "m"(z->l[2]), [z3] "m"(z->l[3]), "c"(s), [m] "r"(m)
        : "cc");
#else
    unsigned rs = 63 - s; /* (x >> 1) >> rs: x >> (64 - s) without the s = 0 shift by 64 */
    uint64_t z0 = z->l[0], z1 = z->l[1], z2 = z->l[2], z3 = z->l[3];
    uint64_t t[6] = {z0 << s,
                     (z1 << s) | ((z0 >> 1) >> rs),
                     (z2 << s) | ((z1 >> 1) >> rs),
                     (z3 << s) | ((z2 >> 1) >> rs),
                     (z3 >> 1) >> rs,
                     0};
    cuzk_u128 c = neg; /* -t = ~t + 1 */
    for (int i = 0; i < 6; i++) {
        c += (cuzk_u128)w->l[i] + (t[i] ^ m);
        w->l[i] = (uint64_t)c;
        c >>= 64;
    }
#endif
}

/* v -= m if v >= m, in constant time (4 limbs). */
static inline __attribute__((always_inline)) void fr_wide_csub4(uint64_t v[4], const uint64_t m[4])
{
#if defined(__x86_64__) && !defined(FR_ACC_PORTABLE)
    uint64_t d0, d1, d2, d3;
    __asm__("movq %[v0], %[d0]\n\t"
            "subq %[m0], %[d0]\n\t"
            "movq %[v1], %[d1]\n\t"
            "sbbq %[m1], %[d1]\n\t"
            "movq %[v2], %[d2]\n\t"
            "sbbq %[m2], %[d2]\n\t"
            "movq %[v3], %[d3]\n\t"
            "sbbq %[m3], %[d3]\n\t"
            "cmovncq %[d0], %[v0]\n\t"
            "cmovncq %[d1], %[v1]\n\t"
            "cmovncq %[d2], %[v2]\n\t"
            "cmovncq %[d3], %[v3]\n\t"
            : [v0] "+r"(v[0]), [v1] "+r"(v[1]), [v2] "+r"(v[2]), [v3] "+r"(v[3]), [d0] "=&r"(d0),
              [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3)
            : [m0] "m"(m[0]), [m1] "m"(m[1]), [m2] "m"(m[2]), [m3] "m"(m[3])
            : "cc");
#else
    uint64_t d[4], b = 0;
    for (int i = 0; i < 4; i++) {
        cuzk_u128 x = (cuzk_u128)v[i] - m[i] - b;
        d[i] = (uint64_t)x;
        b = (uint64_t)(x >> 127);
    }
    uint64_t keep = 0 - b; /* borrowed: v < m, keep v */
    for (int i = 0; i < 4; i++)
        v[i] = (v[i] & keep) | (d[i] & ~keep);
#endif
}

/* r and 2r, little-endian limbs (2r < 2^256). */
static const uint64_t fr_wide_r1[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                       0x73eda753299d7d48ull};
static const uint64_t fr_wide_r2[4] = {0xfffffffe00000002ull, 0xa77b4805fffcb7fdull, 0x6673b0101343b00aull,
                                       0xe7db4ea6533afa90ull};

/* acc = acc + b and acc - b mod r, with acc in registers (the field layer's
 * cuzk_fr_add_inl works through memory, which puts a store-to-load
 * forwarding delay on the row's dependency chain).  Pre: acc, b < r. */
#if defined(__x86_64__) && !defined(FR_ACC_PORTABLE)
static inline __attribute__((always_inline)) void fr_acc_add(cuzk_fr *acc, const cuzk_fr *b)
{
    uint64_t t0, t1, t2, t3;
    /* acc + b < 2r < 2^256: no carry out; the borrow of (acc + b) - r picks */
    __asm__(
        "addq %[b0], %[a0]\n\t"
        "adcq %[b1], %[a1]\n\t"
        "adcq %[b2], %[a2]\n\t"
        "adcq %[b3], %[a3]\n\t"
        "movq %[a0], %[t0]\n\t"
        "subq %[m0], %[t0]\n\t"
        "movq %[a1], %[t1]\n\t"
        "sbbq %[m1], %[t1]\n\t"
        "movq %[a2], %[t2]\n\t"
        "sbbq %[m2], %[t2]\n\t"
        "movq %[a3], %[t3]\n\t"
        "sbbq %[m3], %[t3]\n\t"
        "cmovncq %[t0], %[a0]\n\t"
        "cmovncq %[t1], %[a1]\n\t"
        "cmovncq %[t2], %[a2]\n\t"
        "cmovncq %[t3], %[a3]\n\t"
        : [a0] "+r"(acc->l[0]), [a1] "+r"(acc->l[1]), [a2] "+r"(acc->l[2]), [a3] "+r"(acc->l[3]),
          [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
        : [b0] "rm"(b->l[0]), [b1] "rm"(b->l[1]), [b2] "rm"(b->l[2]), [b3] "rm"(b->l[3]),
          [m0] "m"(fr_wide_r1[0]), [m1] "m"(fr_wide_r1[1]), [m2] "m"(fr_wide_r1[2]), [m3] "m"(fr_wide_r1[3])
        : "cc");
}

static inline __attribute__((always_inline)) void fr_acc_sub(cuzk_fr *acc, const cuzk_fr *b)
{
    uint64_t t0, t1, t2, t3;
    /* acc - b, and if that borrowed, + r (selected by cmov: mov keeps the flags) */
    __asm__(
        "subq %[b0], %[a0]\n\t"
        "sbbq %[b1], %[a1]\n\t"
        "sbbq %[b2], %[a2]\n\t"
        "sbbq %[b3], %[a3]\n\t"
        "movq $0, %[t0]\n\t"
        "movq $0, %[t1]\n\t"
        "movq $0, %[t2]\n\t"
        "movq $0, %[t3]\n\t"
        "cmovcq %[m0], %[t0]\n\t"
        "cmovcq %[m1], %[t1]\n\t"
        "cmovcq %[m2], %[t2]\n\t"
        "cmovcq %[m3], %[t3]\n\t"
        "addq %[t0], %[a0]\n\t"
        "adcq %[t1], %[a1]\n\t"
        "adcq %[t2], %[a2]\n\t"
        "adcq %[t3], %[a3]\n\t"
        : [a0] "+r"(acc->l[0]), [a1] "+r"(acc->l[1]), [a2] "+r"(acc->l[2]), [a3] "+r"(acc->l[3]),
          [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
        : [b0] "rm"(b->l[0]), [b1] "rm"(b->l[1]), [b2] "rm"(b->l[2]), [b3] "rm"(b->l[3]),
          [m0] "m"(fr_wide_r1[0]), [m1] "m"(fr_wide_r1[1]), [m2] "m"(fr_wide_r1[2]), [m3] "m"(fr_wide_r1[3])
        : "cc");
}
#else
static inline __attribute__((always_inline)) void fr_acc_add(cuzk_fr *acc, const cuzk_fr *b)
{
    cuzk_fr_add_inl(acc, acc, b);
}

static inline __attribute__((always_inline)) void fr_acc_sub(cuzk_fr *acc, const cuzk_fr *b)
{
    cuzk_fr_sub_inl(acc, acc, b);
}
#endif

/* The canonical residue of w mod r.  c384 = 2^384 mod r (fr_wide_c384). */
static inline void fr_wide_reduce(cuzk_fr *out, const fr_wide *w, const cuzk_fr *c384)
{
    /* w = lo + hi 2^256 - sign 2^384, with lo < 2^256 < 3r and hi (limbs 4,
     * 5 unsigned) < 2^128 < r; hi 2^256 mod r = mont(hi, R^2). */
    cuzk_fr hi = {{w->l[4], w->l[5], 0, 0}}, lo = {{w->l[0], w->l[1], w->l[2], w->l[3]}}, t;
    uint64_t sign = 0 - (w->l[5] >> 63);
    cuzk_fr_mul_inl(&hi, &hi, &CUZK_FR_R2);
    fr_wide_csub4(lo.l, fr_wide_r2);
    fr_wide_csub4(lo.l, fr_wide_r1);
    cuzk_fr_add_inl(out, &lo, &hi);
    t = (cuzk_fr){{c384->l[0] & sign, c384->l[1] & sign, c384->l[2] & sign, c384->l[3] & sign}};
    cuzk_fr_sub_inl(out, out, &t);
}

/* 2^384 mod r, for fr_wide_reduce: mont(2^128, R^2) = 2^128 * 2^256. */
static inline void fr_wide_c384(cuzk_fr *c384)
{
    const cuzk_fr x = {{0, 0, 1, 0}};
    cuzk_fr_mul(c384, &x, &CUZK_FR_R2);
}

#endif
