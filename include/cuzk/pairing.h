/* Optimal ate pairing on BLS12-381: e(P, Q) for P in G1, Q in G2.
 *
 * e(P,Q) = final_exp(miller_loop(Q, P)).  The multi-pairing runs the Miller
 * loops of n pairs together (one shared Fp12 squaring chain) and applies one
 * final exponentiation -- what batched Groth16 verification needs.
 * Pairs whose P or Q is infinity contribute 1.  Inputs are public: these
 * functions are variable time. */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include "cuzk/ec.h"

#ifdef __cplusplus
extern "C" {
#endif

void cuzk_miller_loop(cuzk_fp12 *r, const cuzk_g2_affine *q, const cuzk_g1_affine *p);
/* r = prod_i miller_loop(q[i], p[i]) computed in one loop. */
void cuzk_miller_loop_n(cuzk_fp12 *r, const cuzk_g2_affine *q, const cuzk_g1_affine *p, size_t n);
void cuzk_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f);
void cuzk_pairing(cuzk_fp12 *r, const cuzk_g1_affine *p, const cuzk_g2_affine *q);
/* true iff prod_i e(p[i], q[i]) == 1. */
bool cuzk_pairing_product_is_one(const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n);

#ifdef __cplusplus
}
#endif
#endif
