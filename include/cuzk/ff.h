/* BLS12-381 finite fields: Fp (381-bit base field), Fr (255-bit scalar field)
 * and the tower Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-(u+1)),
 * Fp12 = Fp6[w]/(w^2-v).
 *
 * Representation: little-endian 64-bit limbs in Montgomery form
 * (a*R mod m, R = 2^384 for Fp, 2^256 for Fr), always fully reduced to
 * [0, m).  Two equal field elements therefore have identical limbs.
 *
 * Contract for every function below unless it says otherwise:
 *  - outputs come first; outputs may alias inputs (r == a == b is fine);
 *  - constant time in the values of all inputs; the suffix _var marks
 *    functions that are NOT constant time in their inputs (use only on
 *    public data);
 *  - no allocation, no threads, no global mutable state.
 *
 * Backends: the limb primitives have a portable C path and an x86-64
 * MULX/ADCX/ADOX path with bit-identical results.  The fast path is compiled
 * in when CMake option CUZK_ASM=ON (default on x86-64) and used only if the
 * CPU reports ADX and BMI2 at start; cuzk_ff_backend() says which is active
 * and cuzk_ff_force_portable() lets tests exercise both. */
#ifndef CUZK_FF_H
#define CUZK_FF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { uint64_t l[6]; } cuzk_fp;
typedef struct { uint64_t l[4]; } cuzk_fr;
typedef struct { cuzk_fp c0, c1; } cuzk_fp2;          /* c0 + c1*u */
typedef struct { cuzk_fp2 c0, c1, c2; } cuzk_fp6;     /* c0 + c1*v + c2*v^2 */
typedef struct { cuzk_fp6 c0, c1; } cuzk_fp12;        /* c0 + c1*w */

/* ---- backend selection --------------------------------------------------- */
/* "adx" or "portable". */
const char *cuzk_ff_backend(void);
/* Force the portable path (force != 0) or return to the best available path.
 * Not thread safe: call before starting threads (tests, benchmarks). */
void cuzk_ff_force_portable(int force);

/* ---- Fp ------------------------------------------------------------------ */
extern const cuzk_fp CUZK_FP_ZERO, CUZK_FP_ONE;   /* ONE is R mod p */
/* canonical (non-Montgomery) little-endian limbs of p */
extern const uint64_t CUZK_FP_MODULUS[6];

void cuzk_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_dbl(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fp_neg(cuzk_fp *r, const cuzk_fp *a);           /* -0 = 0 */
void cuzk_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sqr(cuzk_fp *r, const cuzk_fp *a);
/* r = a^-1; 0 maps to 0.  cuzk_fp_inv is constant time. */
void cuzk_fp_inv(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fp_inv_var(cuzk_fp *r, const cuzk_fp *a);
/* out[i] = in[i]^-1 for i < n (zeros map to zeros); no allocation (out
 * holds the prefix products).  With out != in this costs one inversion;
 * out == in is allowed but, having nowhere to keep the inputs, costs one
 * inversion per 256 elements.  _var. */
void cuzk_fp_batch_inv_var(cuzk_fp *out, const cuzk_fp *in, size_t n);
/* r = a^e, e given as nlimbs little-endian 64-bit limbs; variable time in e
 * (exponents are public constants), constant time in a. */
void cuzk_fp_pow(cuzk_fp *r, const cuzk_fp *a, const uint64_t *e, size_t nlimbs);
/* If a is a square, r = a square root and return true; else return false
 * (r unspecified).  Which root is returned is unspecified. */
bool cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a);
bool cuzk_fp_is_square(const cuzk_fp *a);
bool cuzk_fp_is_zero(const cuzk_fp *a);
bool cuzk_fp_is_one(const cuzk_fp *a);
bool cuzk_fp_eq(const cuzk_fp *a, const cuzk_fp *b);
/* r = a if flag else r (constant time; flag must be 0 or 1). */
void cuzk_fp_cmov(cuzk_fp *r, const cuzk_fp *a, uint64_t flag);
/* zcash sign: true iff canonical(a) > (p-1)/2. */
bool cuzk_fp_is_lexicographically_largest(const cuzk_fp *a);
void cuzk_fp_from_u64(cuzk_fp *r, uint64_t v);
/* conversion to/from canonical integer limbs (little endian).  from_limbs
 * returns CUZK_OK or CUZK_ERR_ENC_NONCANONICAL if the value is >= p. */
CUZK_MUST_CHECK int cuzk_fp_from_limbs(cuzk_fp *r, const uint64_t a[6]);
void cuzk_fp_to_limbs(uint64_t r[6], const cuzk_fp *a);
/* 48 bytes big-endian; from_bytes rejects values >= p
 * (CUZK_ERR_ENC_NONCANONICAL).  It does NOT mask flag bits: callers
 * decoding points mask first. */
void cuzk_fp_to_bytes_be(uint8_t out[48], const cuzk_fp *a);
CUZK_MUST_CHECK int cuzk_fp_from_bytes_be(cuzk_fp *r, const uint8_t in[48]);

/* ---- Fr ------------------------------------------------------------------ */
extern const cuzk_fr CUZK_FR_ZERO, CUZK_FR_ONE;
extern const uint64_t CUZK_FR_MODULUS[4];

void cuzk_fr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_dbl(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sqr(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a);           /* constant time; 0 -> 0 */
void cuzk_fr_inv_var(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_batch_inv_var(cuzk_fr *out, const cuzk_fr *in, size_t n);
void cuzk_fr_pow(cuzk_fr *r, const cuzk_fr *a, const uint64_t *e, size_t nlimbs);
bool cuzk_fr_sqrt(cuzk_fr *r, const cuzk_fr *a);
bool cuzk_fr_is_zero(const cuzk_fr *a);
bool cuzk_fr_is_one(const cuzk_fr *a);
bool cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_cmov(cuzk_fr *r, const cuzk_fr *a, uint64_t flag);
void cuzk_fr_from_u64(cuzk_fr *r, uint64_t v);
CUZK_MUST_CHECK int cuzk_fr_from_limbs(cuzk_fr *r, const uint64_t a[4]);
void cuzk_fr_to_limbs(uint64_t r[4], const cuzk_fr *a);     /* canonical integer */
/* 32 bytes little-endian, canonical (CUZK_ERR_ENC_NONCANONICAL if >= r). */
void cuzk_fr_to_bytes_le(uint8_t out[32], const cuzk_fr *a);
CUZK_MUST_CHECK int cuzk_fr_from_bytes_le(cuzk_fr *r, const uint8_t in[32]);
/* r = (little-endian bytes, any length) mod r; for hashing to Fr. */
void cuzk_fr_from_bytes_le_reduce(cuzk_fr *r, const uint8_t *in, size_t len);

/* ---- Fp2 ----------------------------------------------------------------- */
extern const cuzk_fp2 CUZK_FP2_ZERO, CUZK_FP2_ONE;
void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a);          /* = Frobenius */
void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b);
void cuzk_fp2_mul_by_nonresidue(cuzk_fp2 *r, const cuzk_fp2 *a); /* * (1+u) */
void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a);            /* 0 -> 0 */
void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t nlimbs);
bool cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a);
bool cuzk_fp2_is_zero(const cuzk_fp2 *a);
bool cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_cmov(cuzk_fp2 *r, const cuzk_fp2 *a, uint64_t flag);
/* zcash rule: compare c1; if c1 == 0 compare c0. */
bool cuzk_fp2_is_lexicographically_largest(const cuzk_fp2 *a);

/* ---- Fp6 / Fp12 ---------------------------------------------------------- */
extern const cuzk_fp6 CUZK_FP6_ZERO, CUZK_FP6_ONE;
extern const cuzk_fp12 CUZK_FP12_ONE;
void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_mul_by_nonresidue(cuzk_fp6 *r, const cuzk_fp6 *a);  /* * v */
void cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned power);
bool cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b);

void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
void cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a);
void cuzk_fp12_conj(cuzk_fp12 *r, const cuzk_fp12 *a);   /* inverse in the cyclotomic subgroup */
void cuzk_fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned power);
/* Granger-Scott squaring; valid only for elements of the cyclotomic subgroup. */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t nlimbs);
bool cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b);
bool cuzk_fp12_is_one(const cuzk_fp12 *a);
/* 576-byte big-endian encoding, coefficient order c0.c0.c0, c0.c0.c1, c0.c1.c0, ...
 * (i.e. fp6 c0 then c1; each fp6 c0,c1,c2; each fp2 c0 then c1) -- used
 * for known-answer tests against @noble/curves. */
void cuzk_fp12_to_bytes_be(uint8_t out[576], const cuzk_fp12 *a);

#ifdef __cplusplus
}
#endif
#endif
