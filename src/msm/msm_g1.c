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
 * Only in optimized, non-sanitizer builds (register pressure). */
#define P_(i) [p##i] "m"(CUZK_FP_MODULUS[i])
static inline __attribute__((always_inline)) void g1_fp_add(cuzk_fp *r, const cuzk_fp *a,
                                                            const cuzk_fp *b)
{
    /* s = a + b < 2p < 2^382 (no carry out); t = s - p; keep s if that borrowed */
    uint64_t s0, s1, s2, s3, s4, s5, t2, t3, t4, t5;
    const uint64_t *ap = a->l, *bp = b->l;
    __asm__("movq 0(%[a]), %[s0]\n\t"
            "movq 8(%[a]), %[s1]\n\t"
            "movq 16(%[a]), %[s2]\n\t"
            "movq 24(%[a]), %[s3]\n\t"
            "movq 32(%[a]), %[s4]\n\t"
            "movq 40(%[a]), %[s5]\n\t"
            "addq 0(%[b]), %[s0]\n\t"
            "adcq 8(%[b]), %[s1]\n\t"
            "adcq 16(%[b]), %[s2]\n\t"
            "adcq 24(%[b]), %[s3]\n\t"
            "adcq 32(%[b]), %[s4]\n\t"
            "adcq 40(%[b]), %[s5]\n\t"
            "movq %[s0], %[a]\n\t"
            "movq %[s1], %[b]\n\t"
            "movq %[s2], %[t2]\n\t"
            "movq %[s3], %[t3]\n\t"
            "movq %[s4], %[t4]\n\t"
            "movq %[s5], %[t5]\n\t"
            "subq %[p0], %[a]\n\t"
            "sbbq %[p1], %[b]\n\t"
            "sbbq %[p2], %[t2]\n\t"
            "sbbq %[p3], %[t3]\n\t"
            "sbbq %[p4], %[t4]\n\t"
            "sbbq %[p5], %[t5]\n\t"
            "cmovcq %[s0], %[a]\n\t"
            "cmovcq %[s1], %[b]\n\t"
            "cmovcq %[s2], %[t2]\n\t"
            "cmovcq %[s3], %[t3]\n\t"
            "cmovcq %[s4], %[t4]\n\t"
            "cmovcq %[s5], %[t5]\n\t"
            : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4),
              [s5] "=&r"(s5), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
              [a] "+&r"(ap), [b] "+&r"(bp)
            : P_(0), P_(1), P_(2), P_(3), P_(4), P_(5), "m"(*(const uint64_t(*)[6])a->l),
              "m"(*(const uint64_t(*)[6])b->l)
            : "cc");
    r->l[0] = (uint64_t)ap;
    r->l[1] = (uint64_t)bp;
    r->l[2] = t2;
    r->l[3] = t3;
    r->l[4] = t4;
    r->l[5] = t5;
}

static inline __attribute__((always_inline)) void g1_fp_sub(cuzk_fp *r, const cuzk_fp *a,
                                                            const cuzk_fp *b)
{
    /* d = a - b; m = -borrow; d + (p & m) */
    uint64_t d0, d1, d2, d3, d4, d5, m, t2, t3, t4;
    const uint64_t *ap = a->l, *bp = b->l;
    __asm__("movq 0(%[a]), %[d0]\n\t"
            "movq 8(%[a]), %[d1]\n\t"
            "movq 16(%[a]), %[d2]\n\t"
            "movq 24(%[a]), %[d3]\n\t"
            "movq 32(%[a]), %[d4]\n\t"
            "movq 40(%[a]), %[d5]\n\t"
            "subq 0(%[b]), %[d0]\n\t"
            "sbbq 8(%[b]), %[d1]\n\t"
            "sbbq 16(%[b]), %[d2]\n\t"
            "sbbq 24(%[b]), %[d3]\n\t"
            "sbbq 32(%[b]), %[d4]\n\t"
            "sbbq 40(%[b]), %[d5]\n\t"
            "sbbq %[m], %[m]\n\t"
            "movq %[p0], %[a]\n\t"
            "andq %[m], %[a]\n\t"
            "movq %[p1], %[b]\n\t"
            "andq %[m], %[b]\n\t"
            "movq %[p2], %[t2]\n\t"
            "andq %[m], %[t2]\n\t"
            "movq %[p3], %[t3]\n\t"
            "andq %[m], %[t3]\n\t"
            "movq %[p4], %[t4]\n\t"
            "andq %[m], %[t4]\n\t"
            "andq %[p5], %[m]\n\t"
            "addq %[a], %[d0]\n\t"
            "adcq %[b], %[d1]\n\t"
            "adcq %[t2], %[d2]\n\t"
            "adcq %[t3], %[d3]\n\t"
            "adcq %[t4], %[d4]\n\t"
            "adcq %[m], %[d5]\n\t"
            : [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3), [d4] "=&r"(d4),
              [d5] "=&r"(d5), [m] "=&r"(m), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [a] "+&r"(ap), [b] "+&r"(bp)
            : P_(0), P_(1), P_(2), P_(3), P_(4), P_(5), "m"(*(const uint64_t(*)[6])a->l),
              "m"(*(const uint64_t(*)[6])b->l)
            : "cc");
    r->l[0] = d0;
    r->l[1] = d1;
    r->l[2] = d2;
    r->l[3] = d3;
    r->l[4] = d4;
    r->l[5] = d5;
}
#undef P_
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
#define FE_INV msm_fp_inv_var
#define FE_IS_ZERO g1_fp_is_zero
#define FE_EQ g1_fp_eq
#define FE_ONE CUZK_FP_ONE
#define AFF cuzk_g1_affine
#define JAC cuzk_g1
#define G(name) cuzk_msm_g1_##name
/* 8192 points = 768 KiB of chunk buffer: fits L2 with the pair arrays. */
#define MSM_BATCH 8192
/* Binary-Euclid inversion (msm_fp_inv_var) in Fp multiplications. */
#define MSM_INV_COST 250.0

/* Fewest pairs worth one inversion in a round (else mixed additions). */
#define MSM_MIN_PAIRS 48

#include "msm/msm_tmpl.h"
#include "msm/msm_run_tmpl.h"

int cuzk_msm_g1(cuzk_par *par, cuzk_g1 *out, const cuzk_g1_affine *bases, size_t nbases,
                const cuzk_fr *scalars, size_t nvars, const uint64_t *density, void *scratch,
                size_t scratch_len)
{
    return msm_run(par, out, bases, nbases, scalars, 1, nvars, density, scratch, scratch_len,
                   NULL);
}
