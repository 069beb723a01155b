/* Variable-time fixed-base multiplication of many scalars (ec_internal.h):
 * the fast path of the test-parameter setup, whose scalars are public
 * randomness (docs/perf-notes.md "Fast test setup").  Secret scalars go
 * through the constant-time fixed_base.c instead.
 *
 * A table T[i][j] = (j + 1) 2^(w i) P, j < 2^(w-1), i < ceil(256 / w), turns
 * k P into one table point per signed w-bit digit of k, with no doublings.
 * Wide windows (w = 16: 16 windows of 32768 points, 48 MiB for G1) cut the
 * additions to 15 per point; the table is read directly at the digit (no
 * masked scan: the access pattern depends on k, which is public here), and
 * the next lookups are prefetched while the current ones are added.
 *
 * The accumulators of a batch of FBV_BATCH points stay affine and each
 * window adds its table points with the chord rule
 *     lambda = (y2 - y1) / (x2 - x1),  x3 = lambda^2 - x1 - x2,
 *     y3 = lambda (x1 - x3) - y1,
 * all denominators of the window sharing one inversion (Montgomery's trick:
 * 3M each), so an addition costs about 6M + 1S.  Zero digits are skipped,
 * an identity accumulator takes the table point, and the exceptional sums
 * (accumulator equal or opposite to the table point, probability ~2^-370
 * for random scalars but possible for chosen ones) are computed exactly in
 * Jacobian coordinates, so every scalar gets the right point. */
#include <stdlib.h>
#include <string.h>

#include "ec/ec_internal.h"
#include "ff/tower_internal.h"
#include "ff/verify.h"

#define FBV_BATCH 512
#define FBV_MAX_WINDOWS 128 /* w = 2 */
#define FBV_MAX_W CUZK_EC_FBV_MAX_W
#define FBV_PREFETCH 8 /* points ahead */

/* Signed w-bit digits of the canonical integer of k: d[i] in
 * [-2^(w-1), 2^(w-1)], k = sum d[i] 2^(w i).  windows * w >= 256 and
 * k < 2^255 leave the top digit room for the last carry. */
static void fbv_recode(int32_t *d, const cuzk_fr *k, unsigned w, unsigned windows)
{
    uint64_t n[5];
    cuzk_fr_to_limbs(n, k);
    n[4] = 0;
    uint32_t carry = 0, half = 1u << (w - 1), mask = (1u << w) - 1;
    for (unsigned i = 0; i < windows; i++) {
        unsigned bit = w * i, limb = bit / 64, sh = bit % 64;
        uint64_t v = limb < 4 ? n[limb] >> sh : 0;
        if (sh && limb + 1 < 5) v |= n[limb + 1] << (64 - sh);
        uint32_t x = (uint32_t)(v & mask) + carry;
        carry = x > half;
        d[i] = carry ? (int32_t)x - (int32_t)(1u << w) : (int32_t)x;
    }
    CUZK_VERIFY_CHECK(carry == 0);
}

#define FE cuzk_fp
#define JAC cuzk_g1
#define AFF cuzk_g1_affine
#define TB cuzk_g1_fbv_table
#define G(name) cuzk_g1_##name
#define F_SUB fp_sub
#define F_NEG fp_neg
#define F_MUL fp_mul
#define F_SQR fp_sqr
#define F_IS_ZERO(a) cuzk_fp_is_zero(a)
#define F_EQ(a, b) cuzk_fp_eq(a, b)
#define F_INV_VAR cuzk_fp_inv_var
#include "ec/fixed_base_var_tmpl.h"
#undef FE
#undef JAC
#undef AFF
#undef TB
#undef G
#undef F_SUB
#undef F_NEG
#undef F_MUL
#undef F_SQR
#undef F_IS_ZERO
#undef F_EQ
#undef F_INV_VAR

#define FE cuzk_fp2
#define JAC cuzk_g2
#define AFF cuzk_g2_affine
#define TB cuzk_g2_fbv_table
#define G(name) cuzk_g2_##name
#define F_SUB fp2_sub
#define F_NEG fp2_neg
#define F_MUL fp2_mul
#define F_SQR fp2_sqr
#define F_IS_ZERO(a) cuzk_fp2_is_zero(a)
#define F_EQ(a, b) cuzk_fp2_eq(a, b)
#define F_INV_VAR cuzk_fp2_inv
#include "ec/fixed_base_var_tmpl.h"
