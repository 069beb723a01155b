/* BLS12-381 groups G1 (over Fp, y^2 = x^3 + 4) and G2 (over Fp2,
 * y^2 = x^3 + 4(u+1)), their zcash encodings, and scalar multiplication.
 *
 * Forms:
 *  - affine: (x, y); the point at infinity is x = y = 0 (not on the curve),
 *    so affine arrays stay 96/192 bytes with no flag word (MSM bases);
 *  - Jacobian: (X, Y, Z), x = X/Z^2, y = Y/Z^3, infinity iff Z = 0.
 *
 * Contract (as in ff.h): outputs first, aliasing allowed, constant time
 * unless the name ends in _var, no allocation, no threads.
 * Scalars are cuzk_fr values (Montgomery-form field elements); functions
 * multiply by the canonical integer they represent.
 * Scalar multiplication (cuzk_g?_mul, cuzk_g?_mul_var) uses the GLV/GLS
 * endomorphism and is correct ONLY for points of the prime-order subgroup
 * (what every checked decoder returns); for other curve points the result
 * is not k*P.
 *
 * Encodings follow zcash/blst (filecoin-formats.md section 2).  Checked
 * decoders verify canonical coordinates, flags, on-curve AND subgroup
 * membership and return a precise CUZK_ERR_ENC_* code; _unchecked decoders
 * skip only the subgroup check (for trusted/pre-validated parameter files). */
#ifndef CUZK_EC_H
#define CUZK_EC_H

#include "cuzk/ff.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { cuzk_fp x, y; } cuzk_g1_affine;
typedef struct { cuzk_fp x, y, z; } cuzk_g1;
typedef struct { cuzk_fp2 x, y; } cuzk_g2_affine;
typedef struct { cuzk_fp2 x, y, z; } cuzk_g2;

/* ---- G1 ------------------------------------------------------------------ */
void cuzk_g1_generator(cuzk_g1 *r);
void cuzk_g1_affine_generator(cuzk_g1_affine *r);
void cuzk_g1_set_inf(cuzk_g1 *r);
bool cuzk_g1_is_inf(const cuzk_g1 *p);
bool cuzk_g1_affine_is_inf(const cuzk_g1_affine *p);
bool cuzk_g1_eq(const cuzk_g1 *p, const cuzk_g1 *q);             /* as points */
bool cuzk_g1_affine_eq(const cuzk_g1_affine *p, const cuzk_g1_affine *q);
void cuzk_g1_from_affine(cuzk_g1 *r, const cuzk_g1_affine *p);
void cuzk_g1_to_affine(cuzk_g1_affine *r, const cuzk_g1 *p);
/* n conversions with one inversion (out and in must not overlap). */
void cuzk_g1_batch_to_affine_var(cuzk_g1_affine *out, const cuzk_g1 *in, size_t n);
/* Complete: handles p == q, p == -q and infinities. */
void cuzk_g1_add(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1 *q);
void cuzk_g1_add_affine(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1_affine *q);
void cuzk_g1_dbl(cuzk_g1 *r, const cuzk_g1 *p);
void cuzk_g1_neg(cuzk_g1 *r, const cuzk_g1 *p);
void cuzk_g1_affine_neg(cuzk_g1_affine *r, const cuzk_g1_affine *p);
/* r = k*p.  cuzk_g1_mul is constant time in k and p (secret scalars:
 * Groth16 r, s, test-setup toxic waste); _var is faster (GLV + wNAF). */
void cuzk_g1_mul(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_fr *k);
void cuzk_g1_mul_var(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_fr *k);
bool cuzk_g1_affine_is_on_curve(const cuzk_g1_affine *p);        /* inf -> true */
bool cuzk_g1_is_on_curve(const cuzk_g1 *p);
/* Fast subgroup check (endomorphism based), p assumed on the curve. */
bool cuzk_g1_affine_in_subgroup(const cuzk_g1_affine *p);
bool cuzk_g1_in_subgroup(const cuzk_g1 *p);

void cuzk_g1_compress(uint8_t out[48], const cuzk_g1_affine *p);
void cuzk_g1_serialize(uint8_t out[96], const cuzk_g1_affine *p);
CUZK_MUST_CHECK int cuzk_g1_decompress(cuzk_g1_affine *r, const uint8_t in[48]);
CUZK_MUST_CHECK int cuzk_g1_deserialize(cuzk_g1_affine *r, const uint8_t in[96]);
CUZK_MUST_CHECK int cuzk_g1_decompress_unchecked(cuzk_g1_affine *r, const uint8_t in[48]);
CUZK_MUST_CHECK int cuzk_g1_deserialize_unchecked(cuzk_g1_affine *r, const uint8_t in[96]);
/* Decode either form by length (48 or 96 bytes, else CUZK_ERR_ENC_LENGTH). */
CUZK_MUST_CHECK int cuzk_g1_decode(cuzk_g1_affine *r, const uint8_t *in, size_t len);

/* ---- G2 (same contracts) ------------------------------------------------- */
void cuzk_g2_generator(cuzk_g2 *r);
void cuzk_g2_affine_generator(cuzk_g2_affine *r);
void cuzk_g2_set_inf(cuzk_g2 *r);
bool cuzk_g2_is_inf(const cuzk_g2 *p);
bool cuzk_g2_affine_is_inf(const cuzk_g2_affine *p);
bool cuzk_g2_eq(const cuzk_g2 *p, const cuzk_g2 *q);
bool cuzk_g2_affine_eq(const cuzk_g2_affine *p, const cuzk_g2_affine *q);
void cuzk_g2_from_affine(cuzk_g2 *r, const cuzk_g2_affine *p);
void cuzk_g2_to_affine(cuzk_g2_affine *r, const cuzk_g2 *p);
void cuzk_g2_batch_to_affine_var(cuzk_g2_affine *out, const cuzk_g2 *in, size_t n);
void cuzk_g2_add(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_g2 *q);
void cuzk_g2_add_affine(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_g2_affine *q);
void cuzk_g2_dbl(cuzk_g2 *r, const cuzk_g2 *p);
void cuzk_g2_neg(cuzk_g2 *r, const cuzk_g2 *p);
void cuzk_g2_affine_neg(cuzk_g2_affine *r, const cuzk_g2_affine *p);
void cuzk_g2_mul(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_fr *k);
void cuzk_g2_mul_var(cuzk_g2 *r, const cuzk_g2 *p, const cuzk_fr *k);
bool cuzk_g2_affine_is_on_curve(const cuzk_g2_affine *p);
bool cuzk_g2_is_on_curve(const cuzk_g2 *p);
bool cuzk_g2_affine_in_subgroup(const cuzk_g2_affine *p);
bool cuzk_g2_in_subgroup(const cuzk_g2 *p);

void cuzk_g2_compress(uint8_t out[96], const cuzk_g2_affine *p);
void cuzk_g2_serialize(uint8_t out[192], const cuzk_g2_affine *p);
CUZK_MUST_CHECK int cuzk_g2_decompress(cuzk_g2_affine *r, const uint8_t in[96]);
CUZK_MUST_CHECK int cuzk_g2_deserialize(cuzk_g2_affine *r, const uint8_t in[192]);
CUZK_MUST_CHECK int cuzk_g2_decompress_unchecked(cuzk_g2_affine *r, const uint8_t in[96]);
CUZK_MUST_CHECK int cuzk_g2_deserialize_unchecked(cuzk_g2_affine *r, const uint8_t in[192]);
CUZK_MUST_CHECK int cuzk_g2_decode(cuzk_g2_affine *r, const uint8_t *in, size_t len);

#ifdef __cplusplus
}
#endif
#endif
