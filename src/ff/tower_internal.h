/* Internal interface of the extension tower (Fp2, Fp6, Fp12) for src/ff and
 * the pairing in src/ec.
 *
 * Inline Fp2 arithmetic so that the Fp6/Fp12/pairing code does not pay a
 * call per Fp2 operation, the sparse Fp12 products used by the Miller loop,
 * and the Frobenius coefficient table (shared with the tests, which
 * recompute it from its definition).  Same contract as ff.h: outputs first,
 * aliasing allowed, constant time. */
#ifndef CUZK_FF_TOWER_INTERNAL_H
#define CUZK_FF_TOWER_INTERNAL_H

#include "cuzk/ff.h"
#include "ff/field_internal.h"

/* ---- Fp shorthands ------------------------------------------------------- */
/* Inline so that an Fp2 operation is one straight-line block: the modular
 * add/sub come from limbs_portable.h, the product is field_internal.h's
 * dispatching (ADX when available) Montgomery multiplication. */
#define TOWER_P CUZK_FP_MODULUS
#define TOWER_INLINE static inline __attribute__((always_inline))

#if defined(__x86_64__)
#include <x86intrin.h>
typedef unsigned long long tower_u64;

/* r = a + b mod p.  a + b < 2p < 2^382, so there is no carry out of the
 * sixth limb; subtract p and keep the difference unless it borrowed. */
TOWER_INLINE void fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    tower_u64 s[6], d[6];
    unsigned char c = 0, w = 0;
    for (int i = 0; i < 6; i++) c = _addcarry_u64(c, a->l[i], b->l[i], &s[i]);
    for (int i = 0; i < 6; i++) w = _subborrow_u64(w, s[i], TOWER_P[i], &d[i]);
    uint64_t keep = 0 - (uint64_t)w;
    for (int i = 0; i < 6; i++) r->l[i] = (s[i] & keep) | (d[i] & ~keep);
}

/* r = a - b mod p: add p back if the subtraction borrowed. */
TOWER_INLINE void fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    tower_u64 d[6];
    unsigned char w = 0, c = 0;
    for (int i = 0; i < 6; i++) w = _subborrow_u64(w, a->l[i], b->l[i], &d[i]);
    uint64_t mask = 0 - (uint64_t)w;
    for (int i = 0; i < 6; i++) {
        tower_u64 t;
        c = _addcarry_u64(c, d[i], TOWER_P[i] & mask, &t);
        r->l[i] = t;
    }
}
#else
static inline void fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    limbs_add_mod_n(r->l, a->l, b->l, TOWER_P, 6);
}
static inline void fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    limbs_sub_mod_n(r->l, a->l, b->l, TOWER_P, 6);
}
#endif
TOWER_INLINE void fp_dbl(cuzk_fp *r, const cuzk_fp *a) { fp_add(r, a, a); }
TOWER_INLINE void fp_neg(cuzk_fp *r, const cuzk_fp *a) { limbs_neg_mod_n(r->l, a->l, TOWER_P, 6); }
TOWER_INLINE void fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) { cuzk_fp_mul_inl(r, a, b); }
TOWER_INLINE void fp_sqr(cuzk_fp *r, const cuzk_fp *a) { cuzk_fp_mul_inl(r, a, a); }
static inline uint64_t fp_is_zero(const cuzk_fp *a) { return limbs_is_zero_n(a->l, 6) & 1; }
static inline uint64_t fp_eq(const cuzk_fp *a, const cuzk_fp *b) { return limbs_eq_n(a->l, b->l, 6) & 1; }

/* Lazy reduction (unreduced 768-bit Fp2 accumulators) pays only when the
 * 384x384 product and the 768-bit reduction are fast; with TOWER_LAZY 0
 * the same Fp6/Fp12 code runs on reduced values (fp2_wide = cuzk_fp2, the
 * "wide" ops are the ordinary ones, fp2_redc is a copy).  See
 * docs/perf-notes.md, "Tower and pairing", for the measurements. */
#ifndef TOWER_LAZY
#define TOWER_LAZY 0
#endif

/* ---- Fp2 ----------------------------------------------------------------- */
TOWER_INLINE void fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    fp_add(&r->c0, &a->c0, &b->c0);
    fp_add(&r->c1, &a->c1, &b->c1);
}

TOWER_INLINE void fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    fp_sub(&r->c0, &a->c0, &b->c0);
    fp_sub(&r->c1, &a->c1, &b->c1);
}

TOWER_INLINE void fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    fp_dbl(&r->c0, &a->c0);
    fp_dbl(&r->c1, &a->c1);
}

TOWER_INLINE void fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    fp_neg(&r->c0, &a->c0);
    fp_neg(&r->c1, &a->c1);
}

TOWER_INLINE void fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    r->c0 = a->c0;
    fp_neg(&r->c1, &a->c1);
}

/* r = a * xi, xi = 1 + u: (a0 - a1) + (a0 + a1) u. */
TOWER_INLINE void fp2_mul_xi(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp t;
    fp_sub(&t, &a->c0, &a->c1);
    fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

#if TOWER_LAZY
/* An Fp2 value with both coefficients unreduced (768-bit, < p*2^384). */
typedef struct { cuzk_fp_wide c0, c1; } fp2_wide;

/* Karatsuba without intermediate reductions:
 *   c0 = a0 b0 - a1 b1,  c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1.
 * (a0 + a1)(b0 + b1) < 4p^2 < p*2^384 because p < 2^382, so every value
 * stays in the domain of the wide add/sub. */
TOWER_INLINE void fp2_mul_wide(fp2_wide *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp sa, sb;
    cuzk_fp_wide t0, t1, t2;
    fp_add_nr(&sa, &a->c0, &a->c1);
    fp_add_nr(&sb, &b->c0, &b->c1);
    cuzk_fp_mul_wide(&t0, &a->c0, &b->c0);
    cuzk_fp_mul_wide(&t1, &a->c1, &b->c1);
    cuzk_fp_mul_wide(&t2, &sa, &sb);
    cuzk_fp_wide_sub(&r->c0, &t0, &t1);
    cuzk_fp_wide_sub(&t2, &t2, &t0);
    cuzk_fp_wide_sub(&r->c1, &t2, &t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
TOWER_INLINE void fp2_sqr_wide(fp2_wide *r, const cuzk_fp2 *a)
{
    cuzk_fp s, d, a0x2;
    fp_add_nr(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_add_nr(&a0x2, &a->c0, &a->c0);
    cuzk_fp_mul_wide(&r->c0, &s, &d);
    cuzk_fp_mul_wide(&r->c1, &a0x2, &a->c1);
}

TOWER_INLINE void fp2_redc(cuzk_fp2 *r, const fp2_wide *t)
{
    cuzk_fp_redc_wide(&r->c0, &t->c0);
    cuzk_fp_redc_wide(&r->c1, &t->c1);
}

TOWER_INLINE void fp2_wide_add(fp2_wide *r, const fp2_wide *a, const fp2_wide *b)
{
    cuzk_fp_wide_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp_wide_add(&r->c1, &a->c1, &b->c1);
}

TOWER_INLINE void fp2_wide_sub(fp2_wide *r, const fp2_wide *a, const fp2_wide *b)
{
    cuzk_fp_wide_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp_wide_sub(&r->c1, &a->c1, &b->c1);
}

/* r = a * (1 + u) on unreduced values. */
TOWER_INLINE void fp2_wide_mul_xi(fp2_wide *r, const fp2_wide *a)
{
    cuzk_fp_wide t;
    cuzk_fp_wide_sub(&t, &a->c0, &a->c1);
    cuzk_fp_wide_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

#else
/* Reduced stand-ins for the wide type and its operations. */
typedef cuzk_fp2 fp2_wide;

/* Karatsuba: 3 products; sums reduced mod p (the ADX product wants
 * inputs below p). */
TOWER_INLINE void fp2_mul_wide(fp2_wide *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp sa, sb, t0, t1, t2;
    fp_add(&sa, &a->c0, &a->c1);
    fp_add(&sb, &b->c0, &b->c1);
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    fp_mul(&t2, &sa, &sb);
    fp_sub(&r->c0, &t0, &t1);
    fp_sub(&t2, &t2, &t0);
    fp_sub(&r->c1, &t2, &t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
TOWER_INLINE void fp2_sqr_wide(fp2_wide *r, const cuzk_fp2 *a)
{
    cuzk_fp s, d, a0x2;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_dbl(&a0x2, &a->c0);
    fp_mul(&r->c0, &s, &d);
    fp_mul(&r->c1, &a0x2, &a->c1);
}

TOWER_INLINE void fp2_redc(cuzk_fp2 *r, const fp2_wide *t) { *r = *t; }
TOWER_INLINE void fp2_wide_add(fp2_wide *r, const fp2_wide *a, const fp2_wide *b) { fp2_add(r, a, b); }
TOWER_INLINE void fp2_wide_sub(fp2_wide *r, const fp2_wide *a, const fp2_wide *b) { fp2_sub(r, a, b); }
TOWER_INLINE void fp2_wide_mul_xi(fp2_wide *r, const fp2_wide *a) { fp2_mul_xi(r, a); }

#endif

TOWER_INLINE void fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    fp2_wide t;
    fp2_mul_wide(&t, a, b);
    fp2_redc(r, &t);
}

TOWER_INLINE void fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    fp2_wide t;
    fp2_sqr_wide(&t, a);
    fp2_redc(r, &t);
}

TOWER_INLINE void fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b)
{
    fp_mul(&r->c0, &a->c0, b);
    fp_mul(&r->c1, &a->c1, b);
}

/* ---- Fp6 / Fp12 internals ------------------------------------------------ */
/* Fp6 with unreduced coefficients; fp6_*_wide produce it, fp6_redc reduces. */
typedef struct { fp2_wide c0, c1, c2; } fp6_wide;
void fp6_mul_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void fp6_sqr_wide(fp6_wide *r, const cuzk_fp6 *a);
void fp6_mul_by_01_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
void fp6_mul_by_1_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
void fp6_redc(cuzk_fp6 *r, const fp6_wide *t);
void fp6_wide_add(fp6_wide *r, const fp6_wide *a, const fp6_wide *b);
void fp6_wide_sub(fp6_wide *r, const fp6_wide *a, const fp6_wide *b);
void fp6_wide_mul_v(fp6_wide *r, const fp6_wide *a);

/* r = a * (b0 + b1 v) (sparse Fp6 product). */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
/* r = a * (b1 v). */
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
/* f = f * (l0 + l1 v + l3 v w): the shape of a Miller-loop line on the
 * M-type twist (coefficients of w^0, w^2, w^3 over Fp2). */
void cuzk_fp12_mul_by_line(cuzk_fp12 *f, const cuzk_fp2 *l0, const cuzk_fp2 *l1,
                           const cuzk_fp2 *l3);

/* Frobenius coefficients: CUZK_FROB_GAMMA[k-1][j-1] = xi^(j (p^k - 1) / 6)
 * for k = 1..5, j = 1..5 (xi = 1 + u).  See fp12.c for the derivation;
 * tests/test_tower.c recomputes every entry. */
extern const cuzk_fp2 CUZK_FROB_GAMMA[5][5];

#endif
