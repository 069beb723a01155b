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
/* Inline so that an Fp2 operation is one straight-line block.  On x86-64
 * the additions are asm (below) and the products use the MULX blocks of
 * the lazy-reduction section; elsewhere limbs_portable.h and
 * field_internal.h's portable wide primitives.  TOWER_NO_ASM forces the C fallbacks (used by tests on x86-64 to cover
 * the paths other architectures take). */
/* ThreadSanitizer builds (gcc defines __SANITIZE_THREAD__) take the C
 * fallbacks too: the asm blocks below need 12 registers plus the address
 * registers of their memory operands, and with TSan's instrumentation and
 * the frame pointer kept, an indexed operand (fixed_base_var_tmpl.h's
 * &acc[p].x) leaves gcc no allocation ("impossible constraints").  The TSan
 * build runs the engine and daemon tests, not the field tests; the asm is
 * covered by the release and ASan builds. */
#if defined(__x86_64__) && !defined(TOWER_NO_ASM) && !defined(__SANITIZE_THREAD__)
#define TOWER_X86_ASM 1
#else
#define TOWER_X86_ASM 0
#endif
#define TOWER_P CUZK_FP_MODULUS
#define TOWER_INLINE static inline __attribute__((always_inline))

#if TOWER_X86_ASM
/* gcc 12 -O2 neither unrolls nor keeps in registers the limb loops of an
 * add-with-carry chain (13 ns for an Fp addition), so the additions that
 * dominate the tower's non-multiplicative work are written in asm.
 * Plain x86-64 (ADC/SBB/CMOV), constant time. */
#define TW_M(i) #i "+%[m]"

/* r = a + b mod p.  a + b < 2p < 2^382, so there is no carry out of the
 * sixth limb; subtract p and keep the difference unless it borrowed. */
TOWER_INLINE void fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    uint64_t s0, s1, s2, s3, s4, s5, d0, d1, d2, d3;
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
            "movq %[s0], %[d0]\n\t"
            "subq " TW_M(0) ", %[d0]\n\t"
            "movq %[s1], %[d1]\n\t"
            "sbbq " TW_M(8) ", %[d1]\n\t"
            "movq %[s2], %[d2]\n\t"
            "sbbq " TW_M(16) ", %[d2]\n\t"
            "movq %[s3], %[d3]\n\t"
            "sbbq " TW_M(24) ", %[d3]\n\t"
            "movq %[s4], %[a]\n\t"
            "sbbq " TW_M(32) ", %[a]\n\t"
            "movq %[s5], %[b]\n\t"
            "sbbq " TW_M(40) ", %[b]\n\t"
            "cmovncq %[d0], %[s0]\n\t"
            "cmovncq %[d1], %[s1]\n\t"
            "cmovncq %[d2], %[s2]\n\t"
            "cmovncq %[d3], %[s3]\n\t"
            "cmovncq %[a], %[s4]\n\t"
            "cmovncq %[b], %[s5]\n\t"
            : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [s4] "=&r"(s4), [s5] "=&r"(s5), [d0] "=&r"(d0), [d1] "=&r"(d1),
              [d2] "=&r"(d2), [d3] "=&r"(d3), [a] "+&r"(ap), [b] "+&r"(bp)
            : [m] "m"(*(const uint64_t(*)[6])TOWER_P), "m"(*(const uint64_t(*)[6])a->l),
              "m"(*(const uint64_t(*)[6])b->l)
            : "cc");
    r->l[0] = s0, r->l[1] = s1, r->l[2] = s2, r->l[3] = s3, r->l[4] = s4, r->l[5] = s5;
}

/* r = a - b mod p: add p & -borrow. */
TOWER_INLINE void fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    uint64_t s0, s1, s2, s3, s4, s5, t0, t1, t2, t3;
    const uint64_t *ap = a->l, *bp = b->l;
    __asm__("movq 0(%[a]), %[s0]\n\t"
            "movq 8(%[a]), %[s1]\n\t"
            "movq 16(%[a]), %[s2]\n\t"
            "movq 24(%[a]), %[s3]\n\t"
            "movq 32(%[a]), %[s4]\n\t"
            "movq 40(%[a]), %[s5]\n\t"
            "subq 0(%[b]), %[s0]\n\t"
            "sbbq 8(%[b]), %[s1]\n\t"
            "sbbq 16(%[b]), %[s2]\n\t"
            "sbbq 24(%[b]), %[s3]\n\t"
            "sbbq 32(%[b]), %[s4]\n\t"
            "sbbq 40(%[b]), %[s5]\n\t"
            "sbbq %[t0], %[t0]\n\t"          /* mask = -borrow */
            "movq %[t0], %[t1]\n\t"
            "movq %[t0], %[t2]\n\t"
            "movq %[t0], %[t3]\n\t"
            "movq %[t0], %[a]\n\t"
            "movq %[t0], %[b]\n\t"
            "andq " TW_M(0) ", %[t0]\n\t"
            "andq " TW_M(8) ", %[t1]\n\t"
            "andq " TW_M(16) ", %[t2]\n\t"
            "andq " TW_M(24) ", %[t3]\n\t"
            "andq " TW_M(32) ", %[a]\n\t"
            "andq " TW_M(40) ", %[b]\n\t"
            "addq %[t0], %[s0]\n\t"
            "adcq %[t1], %[s1]\n\t"
            "adcq %[t2], %[s2]\n\t"
            "adcq %[t3], %[s3]\n\t"
            "adcq %[a], %[s4]\n\t"
            "adcq %[b], %[s5]\n\t"
            : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [s4] "=&r"(s4), [s5] "=&r"(s5), [t0] "=&r"(t0), [t1] "=&r"(t1),
              [t2] "=&r"(t2), [t3] "=&r"(t3), [a] "+&r"(ap), [b] "+&r"(bp)
            : [m] "m"(*(const uint64_t(*)[6])TOWER_P), "m"(*(const uint64_t(*)[6])a->l),
              "m"(*(const uint64_t(*)[6])b->l)
            : "cc");
    r->l[0] = s0, r->l[1] = s1, r->l[2] = s2, r->l[3] = s3, r->l[4] = s4, r->l[5] = s5;
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
/* Defined after the 768-bit primitives below. */
TOWER_INLINE void fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
TOWER_INLINE void fp_sqr(cuzk_fp *r, const cuzk_fp *a);
static inline uint64_t fp_is_zero(const cuzk_fp *a) { return limbs_is_zero_n(a->l, 6) & 1; }
static inline uint64_t fp_eq(const cuzk_fp *a, const cuzk_fp *b) { return limbs_eq_n(a->l, b->l, 6) & 1; }

#if TOWER_X86_ASM
/* (p + 1) / 2 */
static const uint64_t TOWER_HALF_P1[6] = {
    0xdcff7fffffffd556ull, 0x0f55ffff58a9ffffull, 0xb39869507b587b12ull,
    0xb23ba5c279c2895full, 0x258dd3db21a5d66bull, 0x0d0088f51cbff34dull};

/* r = a / 2 mod p = (a >> 1) + (a odd ? (p + 1)/2 : 0), which is < p. */
TOWER_INLINE void fp_half(cuzk_fp *r, const cuzk_fp *a)
{
    uint64_t s0, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4;
    const uint64_t *ap = a->l;
    __asm__("movq 0(%[a]), %[s0]\n\t"
            "movq 8(%[a]), %[s1]\n\t"
            "movq 16(%[a]), %[s2]\n\t"
            "movq 24(%[a]), %[s3]\n\t"
            "movq 32(%[a]), %[s4]\n\t"
            "movq 40(%[a]), %[s5]\n\t"
            "movq %[s0], %[t0]\n\t"
            "andq $1, %[t0]\n\t"
            "negq %[t0]\n\t"
            "movq %[t0], %[t1]\n\t"
            "movq %[t0], %[t2]\n\t"
            "movq %[t0], %[t3]\n\t"
            "movq %[t0], %[t4]\n\t"
            "movq %[t0], %[a]\n\t"
            "andq 0+%[h], %[t0]\n\t"
            "andq 8+%[h], %[t1]\n\t"
            "andq 16+%[h], %[t2]\n\t"
            "andq 24+%[h], %[t3]\n\t"
            "andq 32+%[h], %[t4]\n\t"
            "andq 40+%[h], %[a]\n\t"
            "shrdq $1, %[s1], %[s0]\n\t"
            "shrdq $1, %[s2], %[s1]\n\t"
            "shrdq $1, %[s3], %[s2]\n\t"
            "shrdq $1, %[s4], %[s3]\n\t"
            "shrdq $1, %[s5], %[s4]\n\t"
            "shrq $1, %[s5]\n\t"
            "addq %[t0], %[s0]\n\t"
            "adcq %[t1], %[s1]\n\t"
            "adcq %[t2], %[s2]\n\t"
            "adcq %[t3], %[s3]\n\t"
            "adcq %[t4], %[s4]\n\t"
            "adcq %[a], %[s5]\n\t"
            : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [s4] "=&r"(s4), [s5] "=&r"(s5), [t0] "=&r"(t0), [t1] "=&r"(t1),
              [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [a] "+&r"(ap)
            : [h] "m"(*(const uint64_t(*)[6])TOWER_HALF_P1), "m"(*(const uint64_t(*)[6])a->l)
            : "cc");
    r->l[0] = s0, r->l[1] = s1, r->l[2] = s2, r->l[3] = s3, r->l[4] = s4, r->l[5] = s5;
}

/* r = a + b as integers, no reduction.  Pre: a + b < 2^384 (true for two
 * values below 2p, since p < 2^381).  Feeds tw_mul_wide, which accepts any
 * 384-bit operands. */
TOWER_INLINE void fp_add_nr(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    uint64_t x;
    __asm__("movq 0(%[a]), %[x]\n\t" "addq 0(%[b]), %[x]\n\t" "movq %[x], 0(%[o])\n\t"
            "movq 8(%[a]), %[x]\n\t" "adcq 8(%[b]), %[x]\n\t" "movq %[x], 8(%[o])\n\t"
            "movq 16(%[a]), %[x]\n\t" "adcq 16(%[b]), %[x]\n\t" "movq %[x], 16(%[o])\n\t"
            "movq 24(%[a]), %[x]\n\t" "adcq 24(%[b]), %[x]\n\t" "movq %[x], 24(%[o])\n\t"
            "movq 32(%[a]), %[x]\n\t" "adcq 32(%[b]), %[x]\n\t" "movq %[x], 32(%[o])\n\t"
            "movq 40(%[a]), %[x]\n\t" "adcq 40(%[b]), %[x]\n\t" "movq %[x], 40(%[o])\n\t"
            : [x] "=&r"(x), "=m"(*(uint64_t(*)[6])r->l)
            : [a] "r"(a->l), [b] "r"(b->l), [o] "r"(r->l),
              "m"(*(const uint64_t(*)[6])a->l), "m"(*(const uint64_t(*)[6])b->l)
            : "cc");
}
#else
TOWER_INLINE void fp_half(cuzk_fp *r, const cuzk_fp *a)
{
    uint64_t mask = 0 - (a->l[0] & 1), t[6], carry = 0;
    for (int i = 0; i < 6; i++) {
        cuzk_u128 s = (cuzk_u128)a->l[i] + (TOWER_P[i] & mask) + carry;
        t[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    for (int i = 0; i < 5; i++) r->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
    r->l[5] = t[5] >> 1;
}

TOWER_INLINE void fp_add_nr(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < 6; i++) {
        cuzk_u128 x = (cuzk_u128)a->l[i] + b->l[i] + carry;
        r->l[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
}
#endif

/* Lazy reduction (unreduced 768-bit Fp2 accumulators) pays only when the
 * 384x384 product and the 768-bit reduction are fast; with TOWER_LAZY 0
 * the same Fp6/Fp12 code runs on reduced values (fp2_wide = cuzk_fp2, the
 * "wide" ops are the ordinary ones, fp2_redc is a copy).  See
 * docs/perf-notes.md, "Tower and pairing", for the measurements. */
#ifndef TOWER_LAZY
#define TOWER_LAZY 1
#endif

/* ---- 768-bit primitives for lazy reduction -------------------------------
 * tw_mul_wide: r = a * b (768-bit), any 384-bit a, b; r must not overlap.
 * tw_redc: r = t / 2^384 mod p, fully reduced, for t < p * 2^384.
 * tw_wide_add / tw_wide_sub: mod p * 2^384, inputs and result in
 * [0, p * 2^384).  The ADX versions reuse limbs_x86.h's row macros; the
 * portable fallback is field_internal.h's cuzk_fp_*_wide.
 * The asm blocks that store 12 limbs through a pointer declare a "memory"
 * clobber instead of a 96-byte memory output (which can cost one more
 * register than gcc has left in an ASan build) and are volatile, since
 * their register outputs are scratch and would otherwise let gcc drop
 * them. */
#if CUZK_FF_HAVE_ADX && TOWER_X86_ASM
TOWER_INLINE void tw_mul_384_adx(uint64_t r[12], const uint64_t a[6], const uint64_t b[6])
{
    uint64_t r0, r1, r2, r3, r4, r5, r6, lo, hi, z;
    __asm__ volatile(X_ROW0_6(r0, r1, r2, r3, r4, r5, r6)
            "movq %[r0], 0(%[o])\n\t"
            X_ROW_6(8, r1, r2, r3, r4, r5, r6, r0)
            "movq %[r1], 8(%[o])\n\t"
            X_ROW_6(16, r2, r3, r4, r5, r6, r0, r1)
            "movq %[r2], 16(%[o])\n\t"
            X_ROW_6(24, r3, r4, r5, r6, r0, r1, r2)
            "movq %[r3], 24(%[o])\n\t"
            X_ROW_6(32, r4, r5, r6, r0, r1, r2, r3)
            "movq %[r4], 32(%[o])\n\t"
            X_ROW_6(40, r5, r6, r0, r1, r2, r3, r4)
            "movq %[r5], 40(%[o])\n\t"
            "movq %[r6], 48(%[o])\n\t"
            "movq %[r0], 56(%[o])\n\t"
            "movq %[r1], 64(%[o])\n\t"
            "movq %[r2], 72(%[o])\n\t"
            "movq %[r3], 80(%[o])\n\t"
            "movq %[r4], 88(%[o])\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [r5] "=&r"(r5), [r6] "=&r"(r6), [lo] "=&r"(lo),
              [hi] "=&r"(hi), [z] "=&r"(z)
            : [a] "r"(a), [b] "r"(b), [o] "r"(r)
            : "rdx", "cc", "memory");
}

/* Montgomery reduction of the low half (six steps of t = (t + q p) / 2^64,
 * leaving c = (t_lo + Q p) / 2^384 <= p), then c + t_hi < 2p and one
 * conditional subtraction: (t + Q p) / 2^384 = t_hi + c. */
TOWER_INLINE void tw_redc_384_adx(uint64_t r[6], const uint64_t t[12])
{
    uint64_t r0, r1, r2, r3, r4, r5, r6, lo, hi, z;
    const uint64_t *tp = t;
    __asm__("movq 0(%[t]), %[r0]\n\t"
            "movq 8(%[t]), %[r1]\n\t"
            "movq 16(%[t]), %[r2]\n\t"
            "movq 24(%[t]), %[r3]\n\t"
            "movq 32(%[t]), %[r4]\n\t"
            "movq 40(%[t]), %[r5]\n\t"
            "xorl %k[r6], %k[r6]\n\t"
            X_REDUCE_6(r0, r1, r2, r3, r4, r5, r6)
            "xorl %k[r0], %k[r0]\n\t"
            X_REDUCE_6(r1, r2, r3, r4, r5, r6, r0)
            "xorl %k[r1], %k[r1]\n\t"
            X_REDUCE_6(r2, r3, r4, r5, r6, r0, r1)
            "xorl %k[r2], %k[r2]\n\t"
            X_REDUCE_6(r3, r4, r5, r6, r0, r1, r2)
            "xorl %k[r3], %k[r3]\n\t"
            X_REDUCE_6(r4, r5, r6, r0, r1, r2, r3)
            "xorl %k[r4], %k[r4]\n\t"
            X_REDUCE_6(r5, r6, r0, r1, r2, r3, r4)
            /* c = (r6, r0, r1, r2, r3, r4); add t_hi */
            "addq 48(%[t]), %[r6]\n\t"
            "adcq 56(%[t]), %[r0]\n\t"
            "adcq 64(%[t]), %[r1]\n\t"
            "adcq 72(%[t]), %[r2]\n\t"
            "adcq 80(%[t]), %[r3]\n\t"
            "adcq 88(%[t]), %[r4]\n\t"
            /* < 2p: subtract p unless it borrows */
            "movq %[r6], %[lo]\n\t"
            "subq 0+%[m], %[lo]\n\t"
            "movq %[r0], %[hi]\n\t"
            "sbbq 8+%[m], %[hi]\n\t"
            "movq %[r1], %%rdx\n\t"
            "sbbq 16+%[m], %%rdx\n\t"
            "movq %[r2], %[z]\n\t"
            "sbbq 24+%[m], %[z]\n\t"
            "movq %[r3], %[r5]\n\t"
            "sbbq 32+%[m], %[r5]\n\t"
            "movq %[r4], %[t]\n\t"
            "sbbq 40+%[m], %[t]\n\t"
            "cmovncq %[lo], %[r6]\n\t"
            "cmovncq %[hi], %[r0]\n\t"
            "cmovncq %%rdx, %[r1]\n\t"
            "cmovncq %[z], %[r2]\n\t"
            "cmovncq %[r5], %[r3]\n\t"
            "cmovncq %[t], %[r4]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [r5] "=&r"(r5), [r6] "=&r"(r6), [lo] "=&r"(lo),
              [hi] "=&r"(hi), [z] "=&r"(z), [t] "+&r"(tp)
            : [m] "m"(*(const uint64_t(*)[6])CUZK_FP_MODULUS), [k] "m"(cuzk_fp_m0inv_mem),
              "m"(*(const uint64_t(*)[12])t)
            : "rdx", "cc");
    r[0] = r6, r[1] = r0, r[2] = r1, r[3] = r2, r[4] = r3, r[5] = r4;
}
#endif

TOWER_INLINE void tw_mul_wide(cuzk_fp_wide *r, const cuzk_fp *a, const cuzk_fp *b)
{
#if CUZK_FF_HAVE_ADX && TOWER_X86_ASM
    if (__builtin_expect(cuzk_ff_adx_active, 1)) {
        tw_mul_384_adx(r->l, a->l, b->l);
        return;
    }
#endif
    cuzk_fp_mul_wide(r, a, b);
}

TOWER_INLINE void tw_redc(cuzk_fp *r, const cuzk_fp_wide *t)
{
#if CUZK_FF_HAVE_ADX && TOWER_X86_ASM
    if (__builtin_expect(cuzk_ff_adx_active, 1)) {
        tw_redc_384_adx(r->l, t->l);
        return;
    }
#endif
    cuzk_fp_redc_wide(r, t);
}

/* Fp product as a 768-bit product plus reduction.  Not field_internal.h's
 * fused cuzk_fp_mul_inl: its single asm block needs 13 registers plus
 * addressing, which gcc cannot allocate once inlined into the larger
 * pairing functions of an ASan (frame pointer) build; the two smaller
 * blocks here always fit and cost the same (34 ns either way). */
TOWER_INLINE void fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    cuzk_fp_wide t;
    tw_mul_wide(&t, a, b);
    tw_redc(r, &t);
}

TOWER_INLINE void fp_sqr(cuzk_fp *r, const cuzk_fp *a) { fp_mul(r, a, a); }

#if TOWER_X86_ASM
/* Only the top half of p * 2^384 is nonzero: add/subtract the low halves
 * (one register, the carry flows on), then reduce the top half with the
 * carry/borrow mod p as in fp_add / fp_sub.  r may alias a or b: limb i of
 * r is written after limb i of a and b is read. */
#define TW_LOW_STEP(op, i) \
    "movq " #i "(%[a]), %[s0]\n\t" op " " #i "(%[b]), %[s0]\n\t" "movq %[s0], " #i "(%[o])\n\t"
TOWER_INLINE void tw_wide_add(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b)
{
    uint64_t s0, s1, s2, s3, s4, s5, d0, d1, d2, d3;
    const uint64_t *ap = a->l, *bp = b->l;
    __asm__ volatile("movq 0(%[a]), %[s0]\n\t"
            "addq 0(%[b]), %[s0]\n\t"
            "movq %[s0], 0(%[o])\n\t"
            TW_LOW_STEP("adcq", 8) TW_LOW_STEP("adcq", 16) TW_LOW_STEP("adcq", 24)
            TW_LOW_STEP("adcq", 32) TW_LOW_STEP("adcq", 40)
            "movq 48(%[a]), %[s0]\n\t"
            "movq 56(%[a]), %[s1]\n\t"
            "movq 64(%[a]), %[s2]\n\t"
            "movq 72(%[a]), %[s3]\n\t"
            "movq 80(%[a]), %[s4]\n\t"
            "movq 88(%[a]), %[s5]\n\t"
            "adcq 48(%[b]), %[s0]\n\t"
            "adcq 56(%[b]), %[s1]\n\t"
            "adcq 64(%[b]), %[s2]\n\t"
            "adcq 72(%[b]), %[s3]\n\t"
            "adcq 80(%[b]), %[s4]\n\t"
            "adcq 88(%[b]), %[s5]\n\t"
            "movq %[s0], %[d0]\n\t"
            "subq " TW_M(0) ", %[d0]\n\t"
            "movq %[s1], %[d1]\n\t"
            "sbbq " TW_M(8) ", %[d1]\n\t"
            "movq %[s2], %[d2]\n\t"
            "sbbq " TW_M(16) ", %[d2]\n\t"
            "movq %[s3], %[d3]\n\t"
            "sbbq " TW_M(24) ", %[d3]\n\t"
            "movq %[s4], %[a]\n\t"
            "sbbq " TW_M(32) ", %[a]\n\t"
            "movq %[s5], %[b]\n\t"
            "sbbq " TW_M(40) ", %[b]\n\t"
            "cmovncq %[d0], %[s0]\n\t"
            "cmovncq %[d1], %[s1]\n\t"
            "cmovncq %[d2], %[s2]\n\t"
            "cmovncq %[d3], %[s3]\n\t"
            "cmovncq %[a], %[s4]\n\t"
            "cmovncq %[b], %[s5]\n\t"
            "movq %[s0], 48(%[o])\n\t"
            "movq %[s1], 56(%[o])\n\t"
            "movq %[s2], 64(%[o])\n\t"
            "movq %[s3], 72(%[o])\n\t"
            "movq %[s4], 80(%[o])\n\t"
            "movq %[s5], 88(%[o])\n\t"
            : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [s4] "=&r"(s4), [s5] "=&r"(s5), [d0] "=&r"(d0), [d1] "=&r"(d1),
              [d2] "=&r"(d2), [d3] "=&r"(d3), [a] "+&r"(ap), [b] "+&r"(bp)
            : [o] "r"(r->l), [m] "m"(*(const uint64_t(*)[6])TOWER_P)
            : "cc", "memory");
}

TOWER_INLINE void tw_wide_sub(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b)
{
    uint64_t s0, s1, s2, s3, s4, s5, t0, t1, t2, t3;
    const uint64_t *ap = a->l, *bp = b->l;
    __asm__ volatile("movq 0(%[a]), %[s0]\n\t"
            "subq 0(%[b]), %[s0]\n\t"
            "movq %[s0], 0(%[o])\n\t"
            TW_LOW_STEP("sbbq", 8) TW_LOW_STEP("sbbq", 16) TW_LOW_STEP("sbbq", 24)
            TW_LOW_STEP("sbbq", 32) TW_LOW_STEP("sbbq", 40)
            "movq 48(%[a]), %[s0]\n\t"
            "movq 56(%[a]), %[s1]\n\t"
            "movq 64(%[a]), %[s2]\n\t"
            "movq 72(%[a]), %[s3]\n\t"
            "movq 80(%[a]), %[s4]\n\t"
            "movq 88(%[a]), %[s5]\n\t"
            "sbbq 48(%[b]), %[s0]\n\t"
            "sbbq 56(%[b]), %[s1]\n\t"
            "sbbq 64(%[b]), %[s2]\n\t"
            "sbbq 72(%[b]), %[s3]\n\t"
            "sbbq 80(%[b]), %[s4]\n\t"
            "sbbq 88(%[b]), %[s5]\n\t"
            "sbbq %[t0], %[t0]\n\t"          /* mask = -borrow */
            "movq %[t0], %[t1]\n\t"
            "movq %[t0], %[t2]\n\t"
            "movq %[t0], %[t3]\n\t"
            "movq %[t0], %[a]\n\t"
            "movq %[t0], %[b]\n\t"
            "andq " TW_M(0) ", %[t0]\n\t"
            "andq " TW_M(8) ", %[t1]\n\t"
            "andq " TW_M(16) ", %[t2]\n\t"
            "andq " TW_M(24) ", %[t3]\n\t"
            "andq " TW_M(32) ", %[a]\n\t"
            "andq " TW_M(40) ", %[b]\n\t"
            "addq %[t0], %[s0]\n\t"
            "adcq %[t1], %[s1]\n\t"
            "adcq %[t2], %[s2]\n\t"
            "adcq %[t3], %[s3]\n\t"
            "adcq %[a], %[s4]\n\t"
            "adcq %[b], %[s5]\n\t"
            "movq %[s0], 48(%[o])\n\t"
            "movq %[s1], 56(%[o])\n\t"
            "movq %[s2], 64(%[o])\n\t"
            "movq %[s3], 72(%[o])\n\t"
            "movq %[s4], 80(%[o])\n\t"
            "movq %[s5], 88(%[o])\n\t"
            : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [s4] "=&r"(s4), [s5] "=&r"(s5), [t0] "=&r"(t0), [t1] "=&r"(t1),
              [t2] "=&r"(t2), [t3] "=&r"(t3), [a] "+&r"(ap), [b] "+&r"(bp)
            : [o] "r"(r->l), [m] "m"(*(const uint64_t(*)[6])TOWER_P)
            : "cc", "memory");
}
#else
#define tw_wide_add cuzk_fp_wide_add
#define tw_wide_sub cuzk_fp_wide_sub
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

/* Plain 768-bit add/sub (no modular correction) for sums and differences
 * known to stay in [0, p * 2^384).  r may alias a or b. */
#if TOWER_X86_ASM
#define TW_PLAIN_STEP(op, i) \
    "movq " #i "(%[a]), %[x]\n\t" op " " #i "(%[b]), %[x]\n\t" "movq %[x], " #i "(%[o])\n\t"
#define TW_PLAIN_768(op0, op)                                                    \
    TW_PLAIN_STEP(op0, 0) TW_PLAIN_STEP(op, 8) TW_PLAIN_STEP(op, 16)            \
    TW_PLAIN_STEP(op, 24) TW_PLAIN_STEP(op, 32) TW_PLAIN_STEP(op, 40)           \
    TW_PLAIN_STEP(op, 48) TW_PLAIN_STEP(op, 56) TW_PLAIN_STEP(op, 64)           \
    TW_PLAIN_STEP(op, 72) TW_PLAIN_STEP(op, 80) TW_PLAIN_STEP(op, 88)
TOWER_INLINE void tw_plain_add(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b)
{
    uint64_t x;
    __asm__(TW_PLAIN_768("addq", "adcq")
            : [x] "=&r"(x), "=m"(*(uint64_t(*)[12])r->l)
            : [a] "r"(a->l), [b] "r"(b->l), [o] "r"(r->l),
              "m"(*(const uint64_t(*)[12])a->l), "m"(*(const uint64_t(*)[12])b->l)
            : "cc");
}

TOWER_INLINE void tw_plain_sub(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b)
{
    uint64_t x;
    __asm__(TW_PLAIN_768("subq", "sbbq")
            : [x] "=&r"(x), "=m"(*(uint64_t(*)[12])r->l)
            : [a] "r"(a->l), [b] "r"(b->l), [o] "r"(r->l),
              "m"(*(const uint64_t(*)[12])a->l), "m"(*(const uint64_t(*)[12])b->l)
            : "cc");
}
#else
TOWER_INLINE void tw_plain_add(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < 12; i++) {
        cuzk_u128 x = (cuzk_u128)a->l[i] + b->l[i] + carry;
        r->l[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
}

TOWER_INLINE void tw_plain_sub(cuzk_fp_wide *r, const cuzk_fp_wide *a, const cuzk_fp_wide *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < 12; i++) {
        cuzk_u128 x = (cuzk_u128)a->l[i] - b->l[i] - borrow;
        r->l[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
}
#endif

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
    tw_mul_wide(&t0, &a->c0, &b->c0);
    tw_mul_wide(&t1, &a->c1, &b->c1);
    tw_mul_wide(&t2, &sa, &sb);
    tw_wide_sub(&r->c0, &t0, &t1);
    /* t2 - (t0 + t1) = a0 b1 + a1 b0 >= 0 as integers: plain arithmetic */
    tw_plain_add(&t0, &t0, &t1);
    tw_plain_sub(&r->c1, &t2, &t0);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
TOWER_INLINE void fp2_sqr_wide(fp2_wide *r, const cuzk_fp2 *a)
{
    cuzk_fp s, d, a0x2;
    fp_add_nr(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_add_nr(&a0x2, &a->c0, &a->c0);
    tw_mul_wide(&r->c0, &s, &d);
    tw_mul_wide(&r->c1, &a0x2, &a->c1);
}

TOWER_INLINE void fp2_redc(cuzk_fp2 *r, const fp2_wide *t)
{
    tw_redc(&r->c0, &t->c0);
    tw_redc(&r->c1, &t->c1);
}

TOWER_INLINE void fp2_wide_add(fp2_wide *r, const fp2_wide *a, const fp2_wide *b)
{
    tw_wide_add(&r->c0, &a->c0, &b->c0);
    tw_wide_add(&r->c1, &a->c1, &b->c1);
}

TOWER_INLINE void fp2_wide_sub(fp2_wide *r, const fp2_wide *a, const fp2_wide *b)
{
    tw_wide_sub(&r->c0, &a->c0, &b->c0);
    tw_wide_sub(&r->c1, &a->c1, &b->c1);
}

/* r = a * (1 + u) on unreduced values. */
TOWER_INLINE void fp2_wide_mul_xi(fp2_wide *r, const fp2_wide *a)
{
    cuzk_fp_wide t;
    tw_wide_sub(&t, &a->c0, &a->c1);
    tw_wide_add(&r->c1, &a->c0, &a->c1);
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
/* Fp6 with unreduced coefficients; fp6_*_wide produce it, cuzk_fp6_redc reduces. */
typedef struct { fp2_wide c0, c1, c2; } fp6_wide;
void cuzk_fp6_mul_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sqr_wide(fp6_wide *r, const cuzk_fp6 *a);
void cuzk_fp6_mul_by_01_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
void cuzk_fp6_mul_by_1_wide(fp6_wide *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
void cuzk_fp6_redc(cuzk_fp6 *r, const fp6_wide *t);
void cuzk_fp6_wide_add(fp6_wide *r, const fp6_wide *a, const fp6_wide *b);
void cuzk_fp6_wide_sub(fp6_wide *r, const fp6_wide *a, const fp6_wide *b);
void cuzk_fp6_wide_mul_v(fp6_wide *r, const fp6_wide *a);

/* r = a * (b0 + b1 v) (sparse Fp6 product). */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
/* r = a * (b1 v). */
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
/* f = f * (l0 + l1 v + l3 v w): the shape of a Miller-loop line on the
 * M-type twist (coefficients of w^0, w^2, w^3 over Fp2). */
void cuzk_fp12_mul_by_line(cuzk_fp12 *f, const cuzk_fp2 *l0, const cuzk_fp2 *l1,
                           const cuzk_fp2 *l3);

/* Inversions with a choice of Fp inversion: var = 0 uses the constant-time
 * cuzk_fp_inv, var = 1 cuzk_fp_inv_var (public data only, e.g. the
 * pairing).  All map 0 to 0. */
void cuzk_tower_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a, int var);
void cuzk_tower_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a, int var);
void cuzk_tower_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a, int var);

/* Compressed cyclotomic squaring on z = (g1, g4, g2, g5) (the coefficients
 * of w, w^4, w^2, w^5) and decompression (false if it cannot: then square
 * uncompressed).  See fp12.c. */
void cuzk_tower_fp12_cyc_sqr_compressed(cuzk_fp2 z[4]);
bool cuzk_tower_fp12_cyc_decompress(cuzk_fp12 *r, const cuzk_fp2 z[4]);

/* Frobenius coefficients: CUZK_FROB_GAMMA[k-1][j-1] = xi^(j (p^k - 1) / 6)
 * for k = 1..5, j = 1..5 (xi = 1 + u).  See fp12.c for the derivation;
 * tests/test_tower.c recomputes every entry. */
extern const cuzk_fp2 CUZK_FROB_GAMMA[5][5];

#endif
