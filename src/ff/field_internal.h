/* Internal interface of the field layer for code in src/ff and src/ec.
 *
 * Gives hot paths (the Fp2/Fp12 tower, curve formulas) inlinable access to
 * the Fp/Fr limb arithmetic without a call per operation, plus the
 * unreduced ("lazy") primitives for Fp2/Fp12.
 *
 * Ranges: cuzk_fp / cuzk_fr values are fully reduced Montgomery residues.
 * The 768-bit type cuzk_fp_wide holds an unreduced double-width value; the
 * functions on it state their preconditions in terms of p, and all of them
 * are constant time. */
#ifndef CUZK_FF_FIELD_INTERNAL_H
#define CUZK_FF_FIELD_INTERNAL_H

#include <stdint.h>

#include "cuzk/ff.h"
#include "ff/limbs_portable.h"

/* -p^-1 mod 2^64 and -r^-1 mod 2^64 (Montgomery constants). */
#define CUZK_FP_M0INV 0x89f3fffcfffcfffdull
#define CUZK_FR_M0INV 0xfffffffeffffffffull

/* R^2 mod p / R^2 mod r: multiplying by them converts into Montgomery form. */
extern const cuzk_fp CUZK_FP_R2;
extern const cuzk_fr CUZK_FR_R2;

/* x^-1 mod p / mod r on canonical integers (x < modulus, 0 -> 0) by
 * safegcd divsteps (limbs_safegcd.c); var != 0: variable time. */
void cuzk_fp_inverse_int(uint64_t r[6], const uint64_t x[6], int var);
void cuzk_fr_inverse_int(uint64_t r[4], const uint64_t x[4], int var);

/* Backend flag: nonzero when the x86-64 ADX path is active.  Written only by
 * backend.c at start and by cuzk_ff_force_portable(). */
extern int cuzk_ff_adx_active;

/* ---- 768-bit unreduced values (lazy reduction) --------------------------- */
typedef struct { uint64_t l[12]; } cuzk_fp_wide;

/* r = a * b as a full 768-bit product (no reduction).
 * Pre: a, b < 2^384 (any limbs).  Post: r < a*b + 1. */
void cuzk_fp_mul_wide(cuzk_fp_wide *r, const cuzk_fp *a, const cuzk_fp *b);
/* r = t * R^-1 mod p, fully reduced.  Pre: t < p * 2^384. */
void cuzk_fp_redc_wide(cuzk_fp *r, const cuzk_fp_wide *t);
/* r = a + b mod p*2^384, result in [0, p*2^384).  Pre: a, b < p*2^384. */
void cuzk_fp_wide_add(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b);
/* r = a - b mod p*2^384, result in [0, p*2^384).  Pre: a, b < p*2^384. */
void cuzk_fp_wide_sub(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b);

/* ---- inlinable single-call entry points ---------------------------------- */
#if defined(CUZK_HAVE_ASM) && defined(__x86_64__) && defined(__OPTIMIZE__)
#define CUZK_FF_HAVE_ADX 1
#include "ff/limbs_x86.h"
#else
#define CUZK_FF_HAVE_ADX 0
#endif

/* Whether the *_inl functions below inline the asm.  In sanitizer builds
 * (frame pointer kept, instrumentation registers) gcc may be unable to
 * allocate the 12-13 registers an asm block needs once it is inlined into a
 * large caller, so there the *_inl functions call the out-of-line public
 * functions instead; fp.c / fr.c (CUZK_FF_IMPL) still inline the asm into
 * those small functions, where it always fits. */
#if CUZK_FF_HAVE_ADX && (defined(CUZK_FF_IMPL) || !defined(__SANITIZE_ADDRESS__))
#define CUZK_FF_INLINE_ASM 1
#else
#define CUZK_FF_INLINE_ASM 0
#endif

/* Montgomery constants in memory for the asm operands. */
extern const uint64_t cuzk_fp_m0inv_mem, cuzk_fr_m0inv_mem;

/* Portable implementations, used when the ADX path is not active. */
static inline void cuzk_fp_mul_portable(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    limbs_mont_mul_n(r->l, a->l, b->l, CUZK_FP_MODULUS, CUZK_FP_M0INV, 6);
}

static inline void cuzk_fr_mul_portable(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    limbs_mont_mul_n(r->l, a->l, b->l, CUZK_FR_MODULUS, CUZK_FR_M0INV, 4);
}

/* Out-of-line portable entry points (keep the inlined fast paths small). */
void cuzk_fp_mul_portable_ool(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fr_mul_portable_ool(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);

/* Dispatching versions: what cuzk_fp_mul/cuzk_fr_mul do, inlinable. */
static inline __attribute__((always_inline)) void
cuzk_fp_mul_inl(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
#if CUZK_FF_HAVE_ADX && !CUZK_FF_INLINE_ASM
    cuzk_fp_mul(r, a, b);
    return;
#endif
#if CUZK_FF_INLINE_ASM
    if (__builtin_expect(cuzk_ff_adx_active, 1)) {
        cuzk_mont_mul_384_adx(r->l, a->l, b->l, CUZK_FP_MODULUS, &cuzk_fp_m0inv_mem);
        return;
    }
#endif
    cuzk_fp_mul_portable_ool(r, a, b);
}

static inline __attribute__((always_inline)) void cuzk_fp_sqr_inl(cuzk_fp *r, const cuzk_fp *a)
{
#if CUZK_FF_HAVE_ADX && !CUZK_FF_INLINE_ASM
    cuzk_fp_sqr(r, a);
    return;
#endif
#if CUZK_FF_INLINE_ASM
    if (__builtin_expect(cuzk_ff_adx_active, 1)) {
        cuzk_mont_sqr_384_adx(r->l, a->l, CUZK_FP_MODULUS, &cuzk_fp_m0inv_mem);
        return;
    }
#endif
    cuzk_fp_mul_portable_ool(r, a, a);
}

static inline __attribute__((always_inline)) void
cuzk_fr_mul_inl(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
#if CUZK_FF_HAVE_ADX && !CUZK_FF_INLINE_ASM
    cuzk_fr_mul(r, a, b);
    return;
#endif
#if CUZK_FF_INLINE_ASM
    if (__builtin_expect(cuzk_ff_adx_active, 1)) {
        cuzk_mont_mul_256_adx(r->l, a->l, b->l, CUZK_FR_MODULUS, &cuzk_fr_m0inv_mem);
        return;
    }
#endif
    cuzk_fr_mul_portable_ool(r, a, b);
}

/* Inlinable versions of cuzk_fp_mul_wide / cuzk_fp_redc_wide (same
 * contracts as above). */
void cuzk_fp_mul_wide_portable_ool(cuzk_fp_wide *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_redc_wide_portable_ool(cuzk_fp *r, const cuzk_fp_wide *t);

static inline __attribute__((always_inline)) void
cuzk_fp_mul_wide_inl(cuzk_fp_wide *r, const cuzk_fp *a, const cuzk_fp *b)
{
#if CUZK_FF_HAVE_ADX && !CUZK_FF_INLINE_ASM
    cuzk_fp_mul_wide(r, a, b);
    return;
#endif
#if CUZK_FF_INLINE_ASM
    if (__builtin_expect(cuzk_ff_adx_active, 1)) {
        cuzk_mul_384x384_adx(r->l, a->l, b->l);
        return;
    }
#endif
    cuzk_fp_mul_wide_portable_ool(r, a, b);
}

static inline __attribute__((always_inline)) void
cuzk_fp_redc_wide_inl(cuzk_fp *r, const cuzk_fp_wide *t)
{
#if CUZK_FF_HAVE_ADX && !CUZK_FF_INLINE_ASM
    cuzk_fp_redc_wide(r, t);
    return;
#endif
#if CUZK_FF_INLINE_ASM
    if (__builtin_expect(cuzk_ff_adx_active, 1)) {
        cuzk_redc_768_adx(r->l, t->l, CUZK_FP_MODULUS, &cuzk_fp_m0inv_mem);
        return;
    }
#endif
    cuzk_fp_redc_wide_portable_ool(r, t);
}

/* Modular add/sub, inlinable (same contracts as cuzk_fp_add etc.).  The
 * portable fallback is out of line so that callers of the fast path do
 * not pay for its register spills. */
void cuzk_fp_add_portable_ool(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sub_portable_ool(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fr_add_portable_ool(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sub_portable_ool(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
#if CUZK_FF_INLINE_ASM
#define CUZK_FF_ADDSUB(F, T, N, BITS, OP, MOD)                                    \
    static inline __attribute__((always_inline)) void F##_inl(T *r, const T *a, const T *b) \
    {                                                                             \
        if (__builtin_expect(cuzk_ff_adx_active, 1))                              \
            cuzk_##OP##_mod_##BITS##_x86(r->l, a->l, b->l, MOD);                  \
        else                                                                      \
            F##_portable_ool(r, a, b);                                            \
    }
#else
#define CUZK_FF_ADDSUB(F, T, N, BITS, OP, MOD)                                    \
    static inline __attribute__((always_inline)) void F##_inl(T *r, const T *a, const T *b) \
    {                                                                             \
        limbs_##OP##_mod_n(r->l, a->l, b->l, MOD, N);                             \
    }
#endif
CUZK_FF_ADDSUB(cuzk_fp_add, cuzk_fp, 6, 384, add, CUZK_FP_MODULUS)
CUZK_FF_ADDSUB(cuzk_fp_sub, cuzk_fp, 6, 384, sub, CUZK_FP_MODULUS)
CUZK_FF_ADDSUB(cuzk_fr_add, cuzk_fr, 4, 256, add, CUZK_FR_MODULUS)
CUZK_FF_ADDSUB(cuzk_fr_sub, cuzk_fr, 4, 256, sub, CUZK_FR_MODULUS)

/* Modular negation, inlinable (0 stays 0). */
void cuzk_fp_neg_portable_ool(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fr_neg_portable_ool(cuzk_fr *r, const cuzk_fr *a);
#if CUZK_FF_INLINE_ASM
#define CUZK_FF_NEG(F, T, N, BITS, MOD)                                           \
    static inline __attribute__((always_inline)) void F##_inl(T *r, const T *a)  \
    {                                                                             \
        if (__builtin_expect(cuzk_ff_adx_active, 1))                              \
            cuzk_neg_mod_##BITS##_x86(r->l, a->l, MOD);                           \
        else                                                                      \
            F##_portable_ool(r, a);                                               \
    }
#else
#define CUZK_FF_NEG(F, T, N, BITS, MOD)                                           \
    static inline __attribute__((always_inline)) void F##_inl(T *r, const T *a)  \
    {                                                                             \
        limbs_neg_mod_n(r->l, a->l, MOD, N);                                      \
    }
#endif
CUZK_FF_NEG(cuzk_fp_neg, cuzk_fp, 6, 384, CUZK_FP_MODULUS)
CUZK_FF_NEG(cuzk_fr_neg, cuzk_fr, 4, 256, CUZK_FR_MODULUS)

#endif
