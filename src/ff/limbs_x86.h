/* x86-64 MULX/ADCX/ADOX Montgomery multiplication for 6-limb (Fp) and
 * 4-limb (Fr) moduli, as GNU inline asm so hot callers can inline it.
 *
 * Only compiled with CUZK_HAVE_ASM on x86-64, and only executed when
 * backend.c found ADX+BMI2 (callers check cuzk_ff_adx_active).
 *
 * Algorithm: CIOS, one "row" per limb: t += x*y[i] (MULX with two
 * independent carry chains, ADOX for low halves and ADCX for high halves;
 * inside the macros y is %[b] and x is %[a], and the Montgomery
 * multiplications bind their first operand to the rows, see there),
 * then q = t[0]*m0inv and t = (t + q*m) / 2^64.  Both moduli have a top
 * limb below 2^62, so t < 2m stays in n limbs between rows and only one
 * extra word (T6 / T4) is needed inside a row ("no-carry" CIOS).  Instead of
 * moving limbs after the division by 2^64 the register names rotate: the
 * macros take the accumulator registers in their current order.
 *
 * Preconditions: a, b < m (then the result before the final conditional
 * subtraction is < 2m); outputs fully reduced; constant time. */
#ifndef CUZK_FF_LIMBS_X86_H
#define CUZK_FF_LIMBS_X86_H

/* Also the kernel source's field multiplication on a CPU OpenCL device with
 * ADX (src/gpu/kernels/field.cl, CZ_X86_ADX): the OpenCL C compiler has no
 * <stdint.h> (the kernel header defines uint64_t) and wants program-scope
 * constants in __constant memory. */
#ifdef __OPENCL_VERSION__
#define CUZK_X86_CONST __constant
#else
#include <stdint.h>
#define CUZK_X86_CONST
#endif

/* Operand names inside the asm: a, b (pointers), m (modulus in memory),
 * k (m0inv in memory), lo, hi, z (zero) and accumulators r0.. */
#define X_OP(x) "%[" #x "]"

/* First row: t = a * b[0] (t was zero, so only the high-half chain). */
#define X_ROW0_6(T0, T1, T2, T3, T4, T5, T6)                            \
    "movq 0(%[b]), %%rdx\n\t"                                           \
    "xorl %k[z], %k[z]\n\t"                                             \
    "mulxq 0(%[a]), " X_OP(T0) ", " X_OP(T1) "\n\t"                     \
    "mulxq 8(%[a]), %[lo], " X_OP(T2) "\n\t"                            \
    "adcxq %[lo], " X_OP(T1) "\n\t"                                     \
    "mulxq 16(%[a]), %[lo], " X_OP(T3) "\n\t"                           \
    "adcxq %[lo], " X_OP(T2) "\n\t"                                     \
    "mulxq 24(%[a]), %[lo], " X_OP(T4) "\n\t"                           \
    "adcxq %[lo], " X_OP(T3) "\n\t"                                     \
    "mulxq 32(%[a]), %[lo], " X_OP(T5) "\n\t"                           \
    "adcxq %[lo], " X_OP(T4) "\n\t"                                     \
    "mulxq 40(%[a]), %[lo], " X_OP(T6) "\n\t"                           \
    "adcxq %[lo], " X_OP(T5) "\n\t"                                     \
    "adcxq %[z], " X_OP(T6) "\n\t"

/* One product step: t(T0..T6) += a[j]*rdx with lo into Tj (OF chain) and
 * hi into Tj+1 (CF chain). */
#define X_MAC(OFF, TA, TB)                                              \
    "mulxq " #OFF "(%[a]), %[lo], %[hi]\n\t"                            \
    "adoxq %[lo], " X_OP(TA) "\n\t"                                     \
    "adcxq %[hi], " X_OP(TB) "\n\t"

/* Later rows: t += a * b[i]; T6 receives the top word. */
#define X_ROW_6(BOFF, T0, T1, T2, T3, T4, T5, T6)                       \
    "movq " #BOFF "(%[b]), %%rdx\n\t"                                   \
    "xorl %k[z], %k[z]\n\t"                                             \
    X_MAC(0, T0, T1) X_MAC(8, T1, T2) X_MAC(16, T2, T3)                 \
    X_MAC(24, T3, T4) X_MAC(32, T4, T5)                                 \
    "mulxq 40(%[a]), %[lo], " X_OP(T6) "\n\t"                           \
    "adoxq %[lo], " X_OP(T5) "\n\t"                                     \
    "adcxq %[z], " X_OP(T6) "\n\t"                                      \
    "adoxq %[z], " X_OP(T6) "\n\t"

/* Variants for cuzk_mont_mul_384_adx that take zero from memory (%[zero])
 * and clear the flags through lo (overwritten by the next MULX anyway), so
 * that the asm needs one register less: 33.1 -> 32.3 ns median over seven
 * code placements (docs/perf-notes.md, "Fields", attempt 12). */
#define X_ROW0_6_M(T0, T1, T2, T3, T4, T5, T6)                          \
    "movq 0(%[b]), %%rdx\n\t"                                           \
    "xorl %k[lo], %k[lo]\n\t"                                           \
    "mulxq 0(%[a]), " X_OP(T0) ", " X_OP(T1) "\n\t"                     \
    "mulxq 8(%[a]), %[lo], " X_OP(T2) "\n\t"                            \
    "adcxq %[lo], " X_OP(T1) "\n\t"                                     \
    "mulxq 16(%[a]), %[lo], " X_OP(T3) "\n\t"                           \
    "adcxq %[lo], " X_OP(T2) "\n\t"                                     \
    "mulxq 24(%[a]), %[lo], " X_OP(T4) "\n\t"                           \
    "adcxq %[lo], " X_OP(T3) "\n\t"                                     \
    "mulxq 32(%[a]), %[lo], " X_OP(T5) "\n\t"                           \
    "adcxq %[lo], " X_OP(T4) "\n\t"                                     \
    "mulxq 40(%[a]), %[lo], " X_OP(T6) "\n\t"                           \
    "adcxq %[lo], " X_OP(T5) "\n\t"                                     \
    "adcxq %[zero], " X_OP(T6) "\n\t"

/* Product row without the flag-clearing xor, for use right after
 * X_REDUCE_6_M, which ends with CF = OF = 0 (its last ADCX/ADOX cannot
 * overflow because t < 2m fits in the top word).  One uop less per row:
 * fp_mul 32.6 -> 32.2 ns.  (The 4-limb rows keep their xor: without it the
 * product row waits for the whole previous reduction chain and fr_mul went
 * 16.1 -> 18.6 ns.) */
#define X_ROW_6_NC(BOFF, T0, T1, T2, T3, T4, T5, T6)                    \
    "movq " #BOFF "(%[b]), %%rdx\n\t"                                   \
    X_MAC(0, T0, T1) X_MAC(8, T1, T2) X_MAC(16, T2, T3)                 \
    X_MAC(24, T3, T4) X_MAC(32, T4, T5)                                 \
    "mulxq 40(%[a]), %[lo], " X_OP(T6) "\n\t"                           \
    "adoxq %[lo], " X_OP(T5) "\n\t"                                     \
    "adcxq %[zero], " X_OP(T6) "\n\t"                                   \
    "adoxq %[zero], " X_OP(T6) "\n\t"

/* One reduction step: t += m[j]*q. */
#define X_RED(OFF, TA, TB)                                              \
    "mulxq " #OFF "+%[m], %[lo], %[hi]\n\t"                             \
    "adoxq %[lo], " X_OP(TA) "\n\t"                                     \
    "adcxq %[hi], " X_OP(TB) "\n\t"

/* t = (t + q*m) / 2^64 with q = T0*m0inv: afterwards T1..T6 hold t and T0
 * is free (its value, zero, is dropped). */
#define X_REDUCE_6(T0, T1, T2, T3, T4, T5, T6)                          \
    "movq " X_OP(T0) ", %%rdx\n\t"                                      \
    "imulq %[k], %%rdx\n\t"                                             \
    "xorl %k[z], %k[z]\n\t"                                             \
    X_RED(0, T0, T1) X_RED(8, T1, T2) X_RED(16, T2, T3)                 \
    X_RED(24, T3, T4) X_RED(32, T4, T5) X_RED(40, T5, T6)               \
    "adoxq %[z], " X_OP(T6) "\n\t"

/* Zero as a memory operand (saves a register in the larger asm blocks). */
static CUZK_X86_CONST const uint64_t cuzk_x86_zero = 0;

#define X_REDUCE_6_M(T0, T1, T2, T3, T4, T5, T6)                        \
    "movq " X_OP(T0) ", %%rdx\n\t"                                      \
    "imulq %[k], %%rdx\n\t"                                             \
    "xorl %k[lo], %k[lo]\n\t"                                           \
    X_RED(0, T0, T1) X_RED(8, T1, T2) X_RED(16, T2, T3)                 \
    X_RED(24, T3, T4) X_RED(32, T4, T5) X_RED(40, T5, T6)               \
    "adoxq %[zero], " X_OP(T6) "\n\t"

/* r = a*b*2^-384 mod m.
 *
 * Operand roles: the row macros take the row limb (rdx) from %[b] and read
 * the columns from %[a], so the first operand is bound to %[b] and the
 * second to %[a].  Rows then run over the limbs of a (one load each) and
 * the 36 column loads read b.  In the common chain acc = acc * x the first
 * operand was stored by the previous operation; loading it 6 instead of 36
 * times through store forwarding made the chain 34.2 -> 32.6 ns on Zen 4
 * (blst 35.8; docs/perf-notes.md, "Fields").  Bit-identical results: the
 * product is symmetric. */
static inline __attribute__((always_inline)) void cuzk_mont_mul_384_adx(uint64_t r[6], const uint64_t a[6],
                                         const uint64_t b[6], CUZK_X86_CONST const uint64_t m[6],
                                         CUZK_X86_CONST const uint64_t *m0inv)
{
    uint64_t r0, r1, r2, r3, r4, r5, r6, lo, hi;
    const uint64_t *rowp = a, *colp = b; /* rows / columns (see above) */
    __asm__("" X_ROW0_6_M(r0, r1, r2, r3, r4, r5, r6)
            X_REDUCE_6_M(r0, r1, r2, r3, r4, r5, r6)
            X_ROW_6_NC(8, r1, r2, r3, r4, r5, r6, r0)
            X_REDUCE_6_M(r1, r2, r3, r4, r5, r6, r0)
            X_ROW_6_NC(16, r2, r3, r4, r5, r6, r0, r1)
            X_REDUCE_6_M(r2, r3, r4, r5, r6, r0, r1)
            X_ROW_6_NC(24, r3, r4, r5, r6, r0, r1, r2)
            X_REDUCE_6_M(r3, r4, r5, r6, r0, r1, r2)
            X_ROW_6_NC(32, r4, r5, r6, r0, r1, r2, r3)
            X_REDUCE_6_M(r4, r5, r6, r0, r1, r2, r3)
            X_ROW_6_NC(40, r5, r6, r0, r1, r2, r3, r4)
            X_REDUCE_6_M(r5, r6, r0, r1, r2, r3, r4)
            /* t = (r6, r0, r1, r2, r3, r4) < 2m: subtract m unless it
             * borrows; the pointers are dead and serve as temporaries */
            "movq %[r6], %[lo]\n\t"
            "subq 0+%[m], %[lo]\n\t"
            "movq %[r0], %[hi]\n\t"
            "sbbq 8+%[m], %[hi]\n\t"
            "movq %[r1], %%rdx\n\t"
            "sbbq 16+%[m], %%rdx\n\t"
            "movq %[r2], %[a]\n\t"
            "sbbq 24+%[m], %[a]\n\t"
            "movq %[r3], %[r5]\n\t"
            "sbbq 32+%[m], %[r5]\n\t"
            "movq %[r4], %[b]\n\t"
            "sbbq 40+%[m], %[b]\n\t"
            "cmovncq %[lo], %[r6]\n\t"
            "cmovncq %[hi], %[r0]\n\t"
            "cmovncq %%rdx, %[r1]\n\t"
            "cmovncq %[a], %[r2]\n\t"
            "cmovncq %[r5], %[r3]\n\t"
            "cmovncq %[b], %[r4]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [r5] "=&r"(r5), [r6] "=&r"(r6), [lo] "=&r"(lo),
              [hi] "=&r"(hi), [b] "+&r"(rowp), [a] "+&r"(colp)
            : [m] "m"(*(CUZK_X86_CONST const uint64_t(*)[6])m), [k] "m"(*m0inv), [zero] "m"(cuzk_x86_zero),
              "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b)
            : "rdx", "cc");
    r[0] = r6, r[1] = r0, r[2] = r1, r[3] = r2, r[4] = r3, r[5] = r4;
}

/* ---- 768-bit product and Montgomery reduction (lazy reduction) ---------- */

/* r[0..11] = a * b, full product.  Each row's lowest word is final and goes
 * straight to memory; zero comes from memory so that the asm fits in the 13
 * registers left when the frame pointer is kept. */
#define X_STORE(OFF, T) "movq " X_OP(T) ", " #OFF "(%[r])\n\t"

/* Wide product row: t(T0..T5) += a*b[i], top word into T6 (was free).
 * Flags: starts with xor of lo to clear CF/OF, ends with both folded. */
#define X_WROW(BOFF, T0, T1, T2, T3, T4, T5, T6)                        \
    "movq " #BOFF "(%[b]), %%rdx\n\t"                                   \
    "xorl %k[lo], %k[lo]\n\t"                                           \
    X_MAC(0, T0, T1) X_MAC(8, T1, T2) X_MAC(16, T2, T3)                 \
    X_MAC(24, T3, T4) X_MAC(32, T4, T5)                                 \
    "mulxq 40(%[a]), %[lo], " X_OP(T6) "\n\t"                           \
    "adoxq %[lo], " X_OP(T5) "\n\t"                                     \
    "adcxq %[zero], " X_OP(T6) "\n\t"                                   \
    "adoxq %[zero], " X_OP(T6) "\n\t"

static inline __attribute__((always_inline)) void
cuzk_mul_384x384_adx(uint64_t r[12], const uint64_t a[6], const uint64_t b[6])
{
    uint64_t r0, r1, r2, r3, r4, r5, r6, lo, hi;
    __asm__("movq 0(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[r0], %[r1]\n\t"
            "mulxq 8(%[a]), %[lo], %[r2]\n\t"
            "adcxq %[lo], %[r1]\n\t"
            "mulxq 16(%[a]), %[lo], %[r3]\n\t"
            "adcxq %[lo], %[r2]\n\t"
            "mulxq 24(%[a]), %[lo], %[r4]\n\t"
            "adcxq %[lo], %[r3]\n\t"
            "mulxq 32(%[a]), %[lo], %[r5]\n\t"
            "adcxq %[lo], %[r4]\n\t"
            "mulxq 40(%[a]), %[lo], %[r6]\n\t"
            "adcxq %[lo], %[r5]\n\t"
            "adcxq %[zero], %[r6]\n\t"
            X_STORE(0, r0)
            X_WROW(8, r1, r2, r3, r4, r5, r6, r0) X_STORE(8, r1)
            X_WROW(16, r2, r3, r4, r5, r6, r0, r1) X_STORE(16, r2)
            X_WROW(24, r3, r4, r5, r6, r0, r1, r2) X_STORE(24, r3)
            X_WROW(32, r4, r5, r6, r0, r1, r2, r3) X_STORE(32, r4)
            X_WROW(40, r5, r6, r0, r1, r2, r3, r4) X_STORE(40, r5)
            X_STORE(48, r6) X_STORE(56, r0) X_STORE(64, r1)
            X_STORE(72, r2) X_STORE(80, r3) X_STORE(88, r4)
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [r5] "=&r"(r5), [r6] "=&r"(r6), [lo] "=&r"(lo),
              [hi] "=&r"(hi), "=m"(*(uint64_t(*)[12])r)
            : [a] "r"(a), [b] "r"(b), [r] "r"(r), [zero] "m"(cuzk_x86_zero),
              "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b)
            : "rdx", "cc");
}

/* Reduction row without a pre-existing top word: q = T0*m0inv,
 * t(T0..T5) += q*m with hi(q*m5) into T6 (was free); T1..T6 hold the
 * result and T0 is free. */
#define X_REDUCE_LOW_6(T0, T1, T2, T3, T4, T5, T6)                      \
    "movq " X_OP(T0) ", %%rdx\n\t"                                      \
    "imulq %[k], %%rdx\n\t"                                             \
    "xorl %k[z], %k[z]\n\t"                                             \
    X_RED(0, T0, T1) X_RED(8, T1, T2) X_RED(16, T2, T3)                 \
    X_RED(24, T3, T4) X_RED(32, T4, T5)                                 \
    "mulxq 40+%[m], %[lo], " X_OP(T6) "\n\t"                            \
    "adoxq %[lo], " X_OP(T5) "\n\t"                                     \
    "adcxq %[z], " X_OP(T6) "\n\t"                                      \
    "adoxq %[z], " X_OP(T6) "\n\t"

/* r = t * 2^-384 mod m for t < m*2^384: reduce the low six words
 * ((t_lo + Q*m)/2^384 <= m), add the high six (< m), subtract m once. */
static inline __attribute__((always_inline)) void
cuzk_redc_768_adx(uint64_t r[6], const uint64_t t[12], CUZK_X86_CONST const uint64_t m[6],
                  CUZK_X86_CONST const uint64_t *m0inv)
{
    uint64_t r0, r1, r2, r3, r4, r5, r6, lo, hi, z;
    const uint64_t *tp = t;
    __asm__("movq 0(%[t]), %[r0]\n\t"
            "movq 8(%[t]), %[r1]\n\t"
            "movq 16(%[t]), %[r2]\n\t"
            "movq 24(%[t]), %[r3]\n\t"
            "movq 32(%[t]), %[r4]\n\t"
            "movq 40(%[t]), %[r5]\n\t"
            X_REDUCE_LOW_6(r0, r1, r2, r3, r4, r5, r6)
            X_REDUCE_LOW_6(r1, r2, r3, r4, r5, r6, r0)
            X_REDUCE_LOW_6(r2, r3, r4, r5, r6, r0, r1)
            X_REDUCE_LOW_6(r3, r4, r5, r6, r0, r1, r2)
            X_REDUCE_LOW_6(r4, r5, r6, r0, r1, r2, r3)
            X_REDUCE_LOW_6(r5, r6, r0, r1, r2, r3, r4)
            /* (r6, r0, r1, r2, r3, r4) += t[6..11]; the sum is < 2m */
            "addq 48(%[t]), %[r6]\n\t"
            "adcq 56(%[t]), %[r0]\n\t"
            "adcq 64(%[t]), %[r1]\n\t"
            "adcq 72(%[t]), %[r2]\n\t"
            "adcq 80(%[t]), %[r3]\n\t"
            "adcq 88(%[t]), %[r4]\n\t"
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
            : [m] "m"(*(CUZK_X86_CONST const uint64_t(*)[6])m), [k] "m"(*m0inv),
              "m"(*(const uint64_t(*)[12])t)
            : "rdx", "cc");
    r[0] = r6, r[1] = r0, r[2] = r1, r[3] = r2, r[4] = r3, r[5] = r4;
}

/* t[0..11] = a^2 (full 768-bit square, no reduction): the 15 cross products
 * a_i*a_j (i < j) once, then doubled, plus the 6 squares a_i^2; 21 MULX
 * instead of 36.  Position p of the cross-product sum lives in register
 * R(p mod 7) while it is being accumulated; two positions are final after
 * each row and go to t[]. */
#define X_SQ_MAC(OFF, TA, TB)                                           \
    "mulxq " #OFF "(%[a]), %[lo], %[hi]\n\t"                            \
    "adoxq %[lo], %[" #TA "]\n\t"                                       \
    "adcxq %[hi], %[" #TB "]\n\t"
#define X_SQ_DIAG(I, X, Y)                                              \
    "movq " #I "*8(%[a]), %%rdx\n\t"                                    \
    "mulxq %%rdx, %[lo], %[hi]\n\t"                                     \
    "movq 16*" #I "(%[t]), %[" #X "]\n\t"                               \
    "movq 16*" #I "+8(%[t]), %[" #Y "]\n\t"                             \
    "adcxq %[" #X "], %[" #X "]\n\t"                                    \
    "adoxq %[lo], %[" #X "]\n\t"                                        \
    "adcxq %[" #Y "], %[" #Y "]\n\t"                                    \
    "adoxq %[hi], %[" #Y "]\n\t"                                        \
    "movq %[" #X "], 16*" #I "(%[t])\n\t"                               \
    "movq %[" #Y "], 16*" #I "+8(%[t])\n\t"

static inline __attribute__((always_inline)) void
cuzk_sqr_384_adx(uint64_t t[12], const uint64_t a[6])
{
    uint64_t r0, r1, r2, r3, r4, r5, r6, lo, hi, z;
    __asm__(/* row 0: a0 * a1..a5 -> positions 1..6 */
            "movq 0(%[a]), %%rdx\n\t"
            "xorl %k[z], %k[z]\n\t"
            "mulxq 8(%[a]), %[r1], %[r2]\n\t"
            "mulxq 16(%[a]), %[lo], %[r3]\n\t"
            "adcxq %[lo], %[r2]\n\t"
            "mulxq 24(%[a]), %[lo], %[r4]\n\t"
            "adcxq %[lo], %[r3]\n\t"
            "mulxq 32(%[a]), %[lo], %[r5]\n\t"
            "adcxq %[lo], %[r4]\n\t"
            "mulxq 40(%[a]), %[lo], %[r6]\n\t"
            "adcxq %[lo], %[r5]\n\t"
            "adcxq %[z], %[r6]\n\t"
            "movq %[z], 0(%[t])\n\t"
            "movq %[r1], 8(%[t])\n\t"
            "movq %[r2], 16(%[t])\n\t"
            /* row 1: a1 * a2..a5 -> positions 3..7 (7 -> r0) */
            "movq 8(%[a]), %%rdx\n\t"
            X_SQ_MAC(16, r3, r4) X_SQ_MAC(24, r4, r5) X_SQ_MAC(32, r5, r6)
            "mulxq 40(%[a]), %[lo], %[r0]\n\t"
            "adoxq %[lo], %[r6]\n\t"
            "adcxq %[z], %[r0]\n\t"
            "adoxq %[z], %[r0]\n\t"
            "movq %[r3], 24(%[t])\n\t"
            "movq %[r4], 32(%[t])\n\t"
            /* row 2: a2 * a3..a5 -> positions 5..8 (8 -> r1) */
            "movq 16(%[a]), %%rdx\n\t"
            X_SQ_MAC(24, r5, r6) X_SQ_MAC(32, r6, r0)
            "mulxq 40(%[a]), %[lo], %[r1]\n\t"
            "adoxq %[lo], %[r0]\n\t"
            "adcxq %[z], %[r1]\n\t"
            "adoxq %[z], %[r1]\n\t"
            "movq %[r5], 40(%[t])\n\t"
            "movq %[r6], 48(%[t])\n\t"
            /* row 3: a3 * a4, a5 -> positions 7..9 (9 -> r2) */
            "movq 24(%[a]), %%rdx\n\t"
            X_SQ_MAC(32, r0, r1)
            "mulxq 40(%[a]), %[lo], %[r2]\n\t"
            "adoxq %[lo], %[r1]\n\t"
            "adcxq %[z], %[r2]\n\t"
            "adoxq %[z], %[r2]\n\t"
            "movq %[r0], 56(%[t])\n\t"
            "movq %[r1], 64(%[t])\n\t"
            /* row 4: a4 * a5 -> positions 9, 10 (10 -> r3) */
            "movq 32(%[a]), %%rdx\n\t"
            "mulxq 40(%[a]), %[lo], %[r3]\n\t"
            "adoxq %[lo], %[r2]\n\t"
            "adoxq %[z], %[r3]\n\t"
            "movq %[r2], 72(%[t])\n\t"
            "movq %[r3], 80(%[t])\n\t"
            "movq %[z], 88(%[t])\n\t"
            /* t = 2*t + sum a_i^2 2^(128 i): CF chain doubles, OF adds */
            X_SQ_DIAG(0, r0, r1) X_SQ_DIAG(1, r2, r3) X_SQ_DIAG(2, r4, r5)
            X_SQ_DIAG(3, r6, r0) X_SQ_DIAG(4, r1, r2) X_SQ_DIAG(5, r3, r4)
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [r5] "=&r"(r5), [r6] "=&r"(r6), [lo] "=&r"(lo),
              [hi] "=&r"(hi), [z] "=&r"(z), "=m"(*(uint64_t(*)[12])t)
            : [a] "r"(a), [t] "r"(t), "m"(*(const uint64_t(*)[6])a)
            : "rdx", "cc");
}

/* r = a^2 * 2^-384 mod m: the square, then the 768-bit reduction. */
static inline __attribute__((always_inline)) void
cuzk_mont_sqr_384_adx(uint64_t r[6], const uint64_t a[6], CUZK_X86_CONST const uint64_t m[6],
                      CUZK_X86_CONST const uint64_t *m0inv)
{
    uint64_t t[12];
    cuzk_sqr_384_adx(t, a);
    cuzk_redc_768_adx(r, t, m, m0inv);
}

/* ---- 4 limbs (Fr) ---- */
/* Rows load one limb of a into rdx; the columns are the four limbs of b,
 * held in registers (%[b0]..%[b3]).  Each operand is then read exactly
 * four times, so the multiplication is equally fast whichever operand the
 * previous operation has just stored (store forwarding): on the chain
 * acc = acc * x 17.8 -> 16.2 ns and on acc = x * acc 16.2 -> 16.1 ns, where
 * columns read from memory were fast for only one of the two (blst 18.6 /
 * 18.4; docs/perf-notes.md, "Fields").  Fp cannot do the same: six column
 * registers do not fit next to seven accumulators. */
#define X_MAC_R(BJ, TA, TB)                                             \
    "mulxq %[" #BJ "], %[lo], %[hi]\n\t"                                \
    "adoxq %[lo], " X_OP(TA) "\n\t"                                     \
    "adcxq %[hi], " X_OP(TB) "\n\t"

#define X_ROW0_4(T0, T1, T2, T3, T4)                                    \
    "movq 0(%[a]), %%rdx\n\t"                                           \
    "xorl %k[lo], %k[lo]\n\t"                                           \
    "mulxq %[b0], " X_OP(T0) ", " X_OP(T1) "\n\t"                       \
    "mulxq %[b1], %[lo], " X_OP(T2) "\n\t"                              \
    "adcxq %[lo], " X_OP(T1) "\n\t"                                     \
    "mulxq %[b2], %[lo], " X_OP(T3) "\n\t"                              \
    "adcxq %[lo], " X_OP(T2) "\n\t"                                     \
    "mulxq %[b3], %[lo], " X_OP(T4) "\n\t"                              \
    "adcxq %[lo], " X_OP(T3) "\n\t"                                     \
    "adcxq %[zero], " X_OP(T4) "\n\t"

/* The xor stays in the 4-limb rows: without it a product row waits for the
 * whole previous reduction chain (fr_mul 16.1 -> 18.6 ns). */
#define X_ROW_4(AOFF, T0, T1, T2, T3, T4)                               \
    "movq " #AOFF "(%[a]), %%rdx\n\t"                                   \
    "xorl %k[lo], %k[lo]\n\t"                                           \
    X_MAC_R(b0, T0, T1) X_MAC_R(b1, T1, T2) X_MAC_R(b2, T2, T3)         \
    "mulxq %[b3], %[lo], " X_OP(T4) "\n\t"                              \
    "adoxq %[lo], " X_OP(T3) "\n\t"                                     \
    "adcxq %[zero], " X_OP(T4) "\n\t"                                      \
    "adoxq %[zero], " X_OP(T4) "\n\t"

#define X_REDUCE_4(T0, T1, T2, T3, T4)                                  \
    "movq " X_OP(T0) ", %%rdx\n\t"                                      \
    "imulq %[k], %%rdx\n\t"                                             \
    "xorl %k[lo], %k[lo]\n\t"                                           \
    X_RED(0, T0, T1) X_RED(8, T1, T2) X_RED(16, T2, T3)                 \
    X_RED(24, T3, T4)                                                   \
    "adoxq %[zero], " X_OP(T4) "\n\t"

/* r = a*b*2^-256 mod m.  Zero comes from memory and the flags are cleared
 * through lo, so that the asm needs 12 registers besides rdx and still fits
 * when the frame pointer is kept and the function is inlined (ASan -O3). */
static inline __attribute__((always_inline)) void cuzk_mont_mul_256_adx(uint64_t r[4], const uint64_t a[4],
                                         const uint64_t b[4], CUZK_X86_CONST const uint64_t m[4],
                                         CUZK_X86_CONST const uint64_t *m0inv)
{
    uint64_t r0, r1, r2, r3, r4, lo, hi;
    uint64_t b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    __asm__("" X_ROW0_4(r0, r1, r2, r3, r4)
            X_REDUCE_4(r0, r1, r2, r3, r4)
            X_ROW_4(8, r1, r2, r3, r4, r0)
            X_REDUCE_4(r1, r2, r3, r4, r0)
            X_ROW_4(16, r2, r3, r4, r0, r1)
            X_REDUCE_4(r2, r3, r4, r0, r1)
            X_ROW_4(24, r3, r4, r0, r1, r2)
            X_REDUCE_4(r3, r4, r0, r1, r2)
            /* t = (r4, r0, r1, r2) */
            "movq %[r4], %[lo]\n\t"
            "subq 0+%[m], %[lo]\n\t"
            "movq %[r0], %[hi]\n\t"
            "sbbq 8+%[m], %[hi]\n\t"
            "movq %[r1], %%rdx\n\t"
            "sbbq 16+%[m], %%rdx\n\t"
            "movq %[r2], %[r3]\n\t"
            "sbbq 24+%[m], %[r3]\n\t"
            "cmovncq %[lo], %[r4]\n\t"
            "cmovncq %[hi], %[r0]\n\t"
            "cmovncq %%rdx, %[r1]\n\t"
            "cmovncq %[r3], %[r2]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b0] "r"(b0), [b1] "r"(b1), [b2] "r"(b2), [b3] "r"(b3),
              [m] "m"(*(CUZK_X86_CONST const uint64_t(*)[4])m), [k] "m"(*m0inv),
              [zero] "m"(cuzk_x86_zero), "m"(*(const uint64_t(*)[4])a)
            : "rdx", "cc");
    r[0] = r4, r[1] = r0, r[2] = r1, r[3] = r2;
}

/* ---- modular addition / subtraction (plain ADC/SBB) ---------------------- */
/* Straight-line asm: the compiler's version of these carry chains keeps
 * flags in registers and costs 2-3x more.  Both moduli leave spare top bits,
 * so a + b < 2m never carries out of the top limb. */

/* r = a + b mod m; pre a, b < m. */
static inline __attribute__((always_inline)) void
cuzk_add_mod_384_x86(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t m[6])
{
    uint64_t r0, r1, r2, r3, r4, r5, t0, t1, t2, t3;
    const uint64_t *ap = a, *bp = b;
    __asm__("movq 0(%[a]), %[r0]\n\t"
            "movq 8(%[a]), %[r1]\n\t"
            "movq 16(%[a]), %[r2]\n\t"
            "movq 24(%[a]), %[r3]\n\t"
            "movq 32(%[a]), %[r4]\n\t"
            "movq 40(%[a]), %[r5]\n\t"
            "addq 0(%[b]), %[r0]\n\t"
            "adcq 8(%[b]), %[r1]\n\t"
            "adcq 16(%[b]), %[r2]\n\t"
            "adcq 24(%[b]), %[r3]\n\t"
            "adcq 32(%[b]), %[r4]\n\t"
            "adcq 40(%[b]), %[r5]\n\t"
            "movq %[r0], %[t0]\n\t"
            "subq 0+%[m], %[t0]\n\t"
            "movq %[r1], %[t1]\n\t"
            "sbbq 8+%[m], %[t1]\n\t"
            "movq %[r2], %[t2]\n\t"
            "sbbq 16+%[m], %[t2]\n\t"
            "movq %[r3], %[t3]\n\t"
            "sbbq 24+%[m], %[t3]\n\t"
            "movq %[r4], %[a]\n\t"
            "sbbq 32+%[m], %[a]\n\t"
            "movq %[r5], %[b]\n\t"
            "sbbq 40+%[m], %[b]\n\t"
            "cmovncq %[t0], %[r0]\n\t"
            "cmovncq %[t1], %[r1]\n\t"
            "cmovncq %[t2], %[r2]\n\t"
            "cmovncq %[t3], %[r3]\n\t"
            "cmovncq %[a], %[r4]\n\t"
            "cmovncq %[b], %[r5]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [r5] "=&r"(r5), [t0] "=&r"(t0), [t1] "=&r"(t1),
              [t2] "=&r"(t2), [t3] "=&r"(t3), [a] "+&r"(ap), [b] "+&r"(bp)
            : [m] "m"(*(const uint64_t(*)[6])m),
              "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b)
            : "cc");
    r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3, r[4] = r4, r[5] = r5;
}

/* r = a - b mod m; pre a, b < m.  Adds m masked by the borrow. */
/* r = a - b mod m; pre a, b < m.  Adds m masked by the borrow (12
 * registers, so that it also fits when the frame pointer is kept). */
static inline __attribute__((always_inline)) void
cuzk_sub_mod_384_x86(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t m[6])
{
    uint64_t r0, r1, r2, r3, r4, r5, t0, t1, t2, mask;
    const uint64_t *ap = a, *bp = b;
    __asm__("movq 0(%[a]), %[r0]\n\t"
            "movq 8(%[a]), %[r1]\n\t"
            "movq 16(%[a]), %[r2]\n\t"
            "movq 24(%[a]), %[r3]\n\t"
            "movq 32(%[a]), %[r4]\n\t"
            "movq 40(%[a]), %[r5]\n\t"
            "subq 0(%[b]), %[r0]\n\t"
            "sbbq 8(%[b]), %[r1]\n\t"
            "sbbq 16(%[b]), %[r2]\n\t"
            "sbbq 24(%[b]), %[r3]\n\t"
            "sbbq 32(%[b]), %[r4]\n\t"
            "sbbq 40(%[b]), %[r5]\n\t"
            "sbbq %[mask], %[mask]\n\t"
            "movq 0+%[m], %[t0]\n\t"
            "movq 8+%[m], %[t1]\n\t"
            "movq 16+%[m], %[t2]\n\t"
            "movq 24+%[m], %[a]\n\t"
            "movq 32+%[m], %[b]\n\t"
            "andq %[mask], %[t0]\n\t"
            "andq %[mask], %[t1]\n\t"
            "andq %[mask], %[t2]\n\t"
            "andq %[mask], %[a]\n\t"
            "andq %[mask], %[b]\n\t"
            "andq 40+%[m], %[mask]\n\t"
            "addq %[t0], %[r0]\n\t"
            "adcq %[t1], %[r1]\n\t"
            "adcq %[t2], %[r2]\n\t"
            "adcq %[a], %[r3]\n\t"
            "adcq %[b], %[r4]\n\t"
            "adcq %[mask], %[r5]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [r5] "=&r"(r5), [t0] "=&r"(t0), [t1] "=&r"(t1),
              [t2] "=&r"(t2), [mask] "=&r"(mask), [a] "+&r"(ap),
              [b] "+&r"(bp)
            : [m] "m"(*(const uint64_t(*)[6])m),
              "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b)
            : "cc");
    r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3, r[4] = r4, r[5] = r5;
}

static inline __attribute__((always_inline)) void
cuzk_add_mod_256_x86(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t m[4])
{
    uint64_t r0, r1, r2, r3, t0, t1, t2, t3;
    __asm__("movq 0(%[a]), %[r0]\n\t"
            "movq 8(%[a]), %[r1]\n\t"
            "movq 16(%[a]), %[r2]\n\t"
            "movq 24(%[a]), %[r3]\n\t"
            "addq 0(%[b]), %[r0]\n\t"
            "adcq 8(%[b]), %[r1]\n\t"
            "adcq 16(%[b]), %[r2]\n\t"
            "adcq 24(%[b]), %[r3]\n\t"
            "movq %[r0], %[t0]\n\t"
            "subq 0+%[m], %[t0]\n\t"
            "movq %[r1], %[t1]\n\t"
            "sbbq 8+%[m], %[t1]\n\t"
            "movq %[r2], %[t2]\n\t"
            "sbbq 16+%[m], %[t2]\n\t"
            "movq %[r3], %[t3]\n\t"
            "sbbq 24+%[m], %[t3]\n\t"
            "cmovncq %[t0], %[r0]\n\t"
            "cmovncq %[t1], %[r1]\n\t"
            "cmovncq %[t2], %[r2]\n\t"
            "cmovncq %[t3], %[r3]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
            : [a] "r"(a), [b] "r"(b), [m] "m"(*(const uint64_t(*)[4])m),
              "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[4])b)
            : "cc");
    r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3;
}

static inline __attribute__((always_inline)) void
cuzk_sub_mod_256_x86(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t m[4])
{
    uint64_t r0, r1, r2, r3, t0, t1, t2, t3, mask;
    __asm__("movq 0(%[a]), %[r0]\n\t"
            "movq 8(%[a]), %[r1]\n\t"
            "movq 16(%[a]), %[r2]\n\t"
            "movq 24(%[a]), %[r3]\n\t"
            "subq 0(%[b]), %[r0]\n\t"
            "sbbq 8(%[b]), %[r1]\n\t"
            "sbbq 16(%[b]), %[r2]\n\t"
            "sbbq 24(%[b]), %[r3]\n\t"
            "sbbq %[mask], %[mask]\n\t"
            "movq 0+%[m], %[t0]\n\t"
            "movq 8+%[m], %[t1]\n\t"
            "movq 16+%[m], %[t2]\n\t"
            "movq 24+%[m], %[t3]\n\t"
            "andq %[mask], %[t0]\n\t"
            "andq %[mask], %[t1]\n\t"
            "andq %[mask], %[t2]\n\t"
            "andq %[mask], %[t3]\n\t"
            "addq %[t0], %[r0]\n\t"
            "adcq %[t1], %[r1]\n\t"
            "adcq %[t2], %[r2]\n\t"
            "adcq %[t3], %[r3]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
              [mask] "=&r"(mask)
            : [a] "r"(a), [b] "r"(b), [m] "m"(*(const uint64_t(*)[4])m),
              "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[4])b)
            : "cc");
    r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3;
}

/* r = -a mod m (0 stays 0): m - a, masked to zero when a == 0. */
static inline __attribute__((always_inline)) void
cuzk_neg_mod_384_x86(uint64_t r[6], const uint64_t a[6], const uint64_t m[6])
{
    uint64_t r0, r1, r2, r3, r4, r5, nz;
    __asm__(/* a != 0 as a 3-deep OR tree (a serial chain costs latency) */
            "movq 0(%[a]), %[nz]\n\t"
            "orq 8(%[a]), %[nz]\n\t"
            "movq 16(%[a]), %[r4]\n\t"
            "orq 24(%[a]), %[r4]\n\t"
            "movq 32(%[a]), %[r5]\n\t"
            "orq 40(%[a]), %[r5]\n\t"
            "orq %[r4], %[nz]\n\t"
            "orq %[r5], %[nz]\n\t"
            "movq 0+%[m], %[r0]\n\t"
            "movq 8+%[m], %[r1]\n\t"
            "movq 16+%[m], %[r2]\n\t"
            "movq 24+%[m], %[r3]\n\t"
            "movq 32+%[m], %[r4]\n\t"
            "movq 40+%[m], %[r5]\n\t"
            "subq 0(%[a]), %[r0]\n\t"
            "sbbq 8(%[a]), %[r1]\n\t"
            "sbbq 16(%[a]), %[r2]\n\t"
            "sbbq 24(%[a]), %[r3]\n\t"
            "sbbq 32(%[a]), %[r4]\n\t"
            "sbbq 40(%[a]), %[r5]\n\t"
            "negq %[nz]\n\t"            /* CF = (a != 0) */
            "sbbq %[nz], %[nz]\n\t"     /* nz = a != 0 ? ~0 : 0 */
            "andq %[nz], %[r0]\n\t"
            "andq %[nz], %[r1]\n\t"
            "andq %[nz], %[r2]\n\t"
            "andq %[nz], %[r3]\n\t"
            "andq %[nz], %[r4]\n\t"
            "andq %[nz], %[r5]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
              [r4] "=&r"(r4), [r5] "=&r"(r5), [nz] "=&r"(nz)
            : [a] "r"(a), [m] "m"(*(const uint64_t(*)[6])m), "m"(*(const uint64_t(*)[6])a)
            : "cc");
    r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3, r[4] = r4, r[5] = r5;
}

static inline __attribute__((always_inline)) void
cuzk_neg_mod_256_x86(uint64_t r[4], const uint64_t a[4], const uint64_t m[4])
{
    uint64_t r0, r1, r2, r3, nz;
    __asm__("movq 0(%[a]), %[nz]\n\t"
            "orq 8(%[a]), %[nz]\n\t"
            "orq 16(%[a]), %[nz]\n\t"
            "orq 24(%[a]), %[nz]\n\t"
            "movq 0+%[m], %[r0]\n\t"
            "movq 8+%[m], %[r1]\n\t"
            "movq 16+%[m], %[r2]\n\t"
            "movq 24+%[m], %[r3]\n\t"
            "subq 0(%[a]), %[r0]\n\t"
            "sbbq 8(%[a]), %[r1]\n\t"
            "sbbq 16(%[a]), %[r2]\n\t"
            "sbbq 24(%[a]), %[r3]\n\t"
            "negq %[nz]\n\t"
            "sbbq %[nz], %[nz]\n\t"
            "andq %[nz], %[r0]\n\t"
            "andq %[nz], %[r1]\n\t"
            "andq %[nz], %[r2]\n\t"
            "andq %[nz], %[r3]\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [nz] "=&r"(nz)
            : [a] "r"(a), [m] "m"(*(const uint64_t(*)[4])m), "m"(*(const uint64_t(*)[4])a)
            : "cc");
    r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3;
}

#endif
