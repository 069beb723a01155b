/* Pippenger MSM over G1 (coordinates in Fp): instantiation of msm_tmpl.h. */
#include "cuzk/msm.h"
#include "ff/field_internal.h"
#include "msm/msm_internal.h"

/* Inline Fp arithmetic: field_internal.h's dispatching Montgomery product
 * (ADX when the CPU has it) and the portable limb helpers for the cheap
 * operations; a call per operation costs measurably in the bucket loops. */
/* the asm needs gcc's register allocation at -O1+, no ASan instrumentation
 * (gcc defines __SANITIZE_ADDRESS__, clang does not) and an asm build */
#if defined(CUZK_HAVE_ASM) && defined(__x86_64__) && defined(__OPTIMIZE__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__clang__)
/* Modular add/sub as straight adc/sbb chains: gcc's code for the carry
 * intrinsics spilled the carry flag between limbs (perf-notes, MSM).
 * tower_internal.h's fp_add/fp_sub are exactly that (inputs and outputs in
 * [0, p), aliasing allowed, constant time); its asm is used only under this
 * guard (register pressure; -DTOWER_NO_ASM would give its portable ones). */
#include "ff/tower_internal.h"
#define g1_fp_add fp_add
#define g1_fp_sub fp_sub
#elif defined(__x86_64__)
#include <x86intrin.h>
/* a + b < 2p < 2^382: no carry out of limb 5; subtract p, keep the sum if
 * that borrowed.  Carry-flag intrinsics compile to adc/sbb chains, ~2x
 * faster than the __int128 limb loops (A/B in perf-notes). */
static inline __attribute__((always_inline)) void g1_fp_add(cuzk_fp *r, const cuzk_fp *a,
                                                            const cuzk_fp *b)
{
    unsigned long long s[6], d[6];
    unsigned char c = 0, w = 0;
    _Pragma("GCC unroll 6") for (int i = 0; i < 6; i++) c = _addcarry_u64(c, a->l[i], b->l[i], &s[i]);
    _Pragma("GCC unroll 6") for (int i = 0; i < 6; i++) w = _subborrow_u64(w, s[i], CUZK_FP_MODULUS[i], &d[i]);
    uint64_t keep = 0 - (uint64_t)w;
    _Pragma("GCC unroll 6") for (int i = 0; i < 6; i++) r->l[i] = (s[i] & keep) | (d[i] & ~keep);
}
/* a - b, adding p back when it borrowed. */
static inline __attribute__((always_inline)) void g1_fp_sub(cuzk_fp *r, const cuzk_fp *a,
                                                            const cuzk_fp *b)
{
    unsigned long long d[6], t;
    unsigned char w = 0, c = 0;
    _Pragma("GCC unroll 6") for (int i = 0; i < 6; i++) w = _subborrow_u64(w, a->l[i], b->l[i], &d[i]);
    uint64_t mask = 0 - (uint64_t)w;
    _Pragma("GCC unroll 6") for (int i = 0; i < 6; i++) {
        c = _addcarry_u64(c, d[i], CUZK_FP_MODULUS[i] & mask, &t);
        r->l[i] = t;
    }
}
#else
static inline void g1_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    limbs_add_mod_n(r->l, a->l, b->l, CUZK_FP_MODULUS, 6);
}
static inline void g1_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    limbs_sub_mod_n(r->l, a->l, b->l, CUZK_FP_MODULUS, 6);
}
#endif
static inline __attribute__((always_inline)) void g1_fp_dbl(cuzk_fp *r, const cuzk_fp *a)
{
    g1_fp_add(r, a, a);
}
static inline void g1_fp_neg(cuzk_fp *r, const cuzk_fp *a)
{
    limbs_neg_mod_n(r->l, a->l, CUZK_FP_MODULUS, 6);
}
static inline __attribute__((always_inline)) void g1_fp_sqr(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp_mul_inl(r, a, a);
}
static inline int g1_fp_is_zero(const cuzk_fp *a)
{
    return (int)limbs_is_zero_n(a->l, 6);
}
static inline int g1_fp_eq(const cuzk_fp *a, const cuzk_fp *b)
{
    return (int)limbs_eq_n(a->l, b->l, 6);
}

#define FE cuzk_fp
#define FE_ADD g1_fp_add
#define FE_SUB g1_fp_sub
#define FE_DBL g1_fp_dbl
#define FE_NEG g1_fp_neg
#define FE_MUL cuzk_fp_mul_inl
#define FE_SQR g1_fp_sqr
#define FE_INV cuzk_msm_fp_inv_var
#define FE_IS_ZERO g1_fp_is_zero
#define FE_EQ g1_fp_eq
#define FE_ONE CUZK_FP_ONE
#define AFF cuzk_g1_affine
#define JAC cuzk_g1
#define G(name) cuzk_msm_g1_##name
/* Chunks of 3840 points (816 KiB of chunk buffer with the bucket values)
 * from 8192 buckets on: buffer, pair arrays and buckets share L2 (12800
 * measured no faster).  Smaller bucket arrays take chunks of
 * 17408 / 2 - 512 = 8192 points: longer segments, fewer rounds and
 * inversions (Filecoin-like 2^20 -6 %, 2^16 random -3 %; perf-notes). */
#define MSM_BATCH 17408
#define MSM_CHUNK_SMALL 3840
#define MSM_CHUNK_SMALL_NB 8192
/* Binary-Euclid inversion (cuzk_msm_fp_inv_var) in Fp multiplications. */
#define MSM_INV_COST 250.0

/* Fewest pairs for a round in a non-final chunk (else the points are carried
 * to the next chunk, whose first round shares one inversion with them): 256
 * rather than 48 saves ~1.5 % at 2^20 (perf-notes, MSM). */
#define MSM_MIN_PAIRS 256

/* Pair additions eight at a time with AVX-512 IFMA when the CPU has it
 * (msm_ifma.c; runtime switch cuzk_msm_ifma_active). */
#if defined(CUZK_HAVE_ASM) && defined(__x86_64__) && defined(__GNUC__)
#include "msm/msm_ifma.h"
#define MSM_IFMA 1
#endif

#include "msm/msm_tmpl.h"
#include "msm/msm_run_tmpl.h"

int cuzk_msm_g1(cuzk_par *par, cuzk_g1 *out, const cuzk_g1_affine *bases, size_t nbases,
                const cuzk_fr *scalars, size_t nvars, const uint64_t *density, void *scratch,
                size_t scratch_len)
{
    return msm_run(par, out, bases, nbases, scalars, 1, nvars, density, scratch, scratch_len,
                   NULL);
}
