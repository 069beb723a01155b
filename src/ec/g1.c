/* G1: y^2 = x^3 + 4 over Fp.
 *
 * Group law in Jacobian coordinates with the a = 0 formulas of the EFD
 * (dbl-2009-l 2M+5S, add-2007-bl 11M+5S, madd-2007-bl 7M+4S for the _var
 * versions in ec_internal.h, which branch on the special cases).  The public
 * additions are constant time and complete: one unified formula whose
 * (H, R) pair is switched to the tangent's by cmov when p == q (13M+5S,
 * mixed 9M+4S), infinities selected by cmov at the end.
 *
 * Constant-time scalar multiplication uses the complete projective formulas
 * of Renes, Costello and Batina ("Complete addition formulas for prime order
 * elliptic curves", 2016, Algorithms 7 and 9 for a = 0): no exceptional
 * cases at all, so a fixed signed window needs no handling of the
 * accumulator meeting a table entry or the identity; 12M per addition,
 * 6M+2S per doubling.
 *
 * Constants come from src/ec/ec_constants.py (Montgomery form, R = 2^384). */
#include "ec/ec_internal.h"
#include "ff/tower_internal.h"

typedef unsigned __int128 u128;

/* ---- constants ----------------------------------------------------------- */
const cuzk_fp CUZK_G1_B = {{0xaa270000000cfff3ull, 0x53cc0032fc34000aull, 0x478fe97a6b0a807full,
                            0xb1d37ebee6ba24d7ull, 0x8ec9733bbf78ab2full, 0x09d645513d83de7eull}};

/* beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe,
 * the cube root of unity for which phi(x, y) = (beta x, y) is [-x^2] on G1
 * (the other root, beta^2, gives [x^2 - 1]). */
static const cuzk_fp G1_BETA = {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
                                 0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}};

/* zcash / IETF generator. */
static const cuzk_g1_affine G1_GEN = {
    {{0x5cb38790fd530c16ull, 0x7817fc679976fff5ull, 0x154f95c7143ba1c1ull,
      0xf0ae6acdf3d0e747ull, 0xedce6ecc21dbf440ull, 0x120177419e0bfb75ull}},
    {{0xbaac93d50ce72271ull, 0x8c22631a7918fd8eull, 0xdd595f13570725ceull,
      0x51ac582950405194ull, 0x0e1c8c3fad0059c0ull, 0x0bbc3efc5008a26aull}}};

/* ---- field shorthands ---------------------------------------------------- */
#define F_ADD fp_add
#define F_SUB fp_sub
#define F_DBL fp_dbl
#define F_NEG fp_neg
#define F_MUL fp_mul
#define F_SQR fp_sqr
static inline uint64_t f_is_zero(const cuzk_fp *a) { return cuzk_fp_is_zero(a) ? 1 : 0; }

/* r = 12 a = 3b a (b = 4), by additions. */
static inline void f_mul_b3(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp t;
    F_DBL(&t, a);
    F_ADD(&t, &t, a);
    F_DBL(&t, &t);
    F_DBL(r, &t);
}

/* ---- shared group law (group_tmpl.h) ------------------------------------ */
#define FE cuzk_fp
#define JAC cuzk_g1
#define AFF cuzk_g1_affine
#define G(name) cuzk_g1_##name
#define FE_CMOV cuzk_fp_cmov
#define FE_IS_ZERO cuzk_fp_is_zero
#define FE_EQ cuzk_fp_eq
#define FE_INV cuzk_fp_inv
#define FE_INV_VAR cuzk_fp_inv_var
#define FE_ONE CUZK_FP_ONE
#define FE_ZERO CUZK_FP_ZERO
#define CURVE_B CUZK_G1_B
#define GEN G1_GEN
#include "ec/group_tmpl.h"

/* ---- endomorphism and subgroup check ------------------------------------- */
void cuzk_g1_phi(cuzk_g1 *r, const cuzk_g1 *p)
{
    F_MUL(&r->x, &p->x, &G1_BETA); /* x = X/Z^2 scales like X */
    r->y = p->y;
    r->z = p->z;
}

/* Subgroup test (after Scott, "A note on group membership tests for G1, G2
 * and GT on BLS pairing-friendly curves", 2021): P in G1 iff
 * phi(P) == [-x^2] P, checked as [x^2] P + phi(P) == O.
 *
 * Proof.  For any P = (x0, y0) on E, the points P, phi(P), phi^2(P) are the
 * three intersections of E with the line y = y0 (x^3 = y0^2 - 4 has the
 * roots x0, beta x0, beta^2 x0), so phi^2(P) + phi(P) + P = O for every P.
 * If phi(P) = [-x^2]P then phi^2(P) = [x^4]P and O = [x^4 - x^2 + 1]P =
 * [r]P, so P lies in E(Fp)[r], which is G1 because r divides #E(Fp) = h r
 * exactly once (gcd(h, r) = 1).  Conversely phi maps the cyclic group G1
 * into itself, hence is [lambda] on it, with lambda = -x^2 for our beta
 * (checked on the generator by ec_constants.py and tests/test_ec.c).  The
 * tests also compare this check with [r]P == O on points outside G1. */
bool cuzk_g1_in_subgroup(const cuzk_g1 *p)
{
    cuzk_g1 t, f;
    cuzk_g1_mul_by_x_abs(&t, p);
    cuzk_g1_mul_by_x_abs(&t, &t);
    cuzk_g1_phi(&f, p);
    cuzk_g1_add(&t, &t, &f);
    return cuzk_g1_is_inf(&t);
}

bool cuzk_g1_affine_in_subgroup(const cuzk_g1_affine *p)
{
    cuzk_g1 t, f;
    mul_by_x_abs_affine(&t, p);
    cuzk_g1_mul_by_x_abs(&t, &t);
    cuzk_g1_from_affine(&f, p);
    cuzk_g1_phi(&f, &f);
    cuzk_g1_add(&t, &t, &f);
    return cuzk_g1_is_inf(&t);
}

/* ---- scalar multiplication ----------------------------------------------- */
/* k P = a P + b (-phi(P)) with a, b < 2^128 (ec_internal.h), each recoded in
 * 26 signed 5-bit digits: 125 doublings and 52 complete additions, all
 * independent of k. */
#define G1_CT_DIGITS 26

void cuzk_g1_mul(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_fr *k)
{
    uint64_t d[4];
    int8_t da[G1_CT_DIGITS], db[G1_CT_DIGITS];
    proj_t t1[16], t2[16], acc, s;

    cuzk_ec_split_x(d, k);
    cuzk_ec_recode_ct(da, G1_CT_DIGITS, d[0] + (u128)d[1] * CUZK_EC_X_ABS);
    cuzk_ec_recode_ct(db, G1_CT_DIGITS, d[2] + (u128)d[3] * CUZK_EC_X_ABS);

    jac_to_proj(&t1[0], p);
    proj_dbl(&t1[1], &t1[0]);
    for (int j = 2; j < 16; j++) proj_add(&t1[j], &t1[j - 1], &t1[0]);
    for (int j = 0; j < 16; j++) { /* -phi(jP) = (beta X : -Y : Z) */
        F_MUL(&t2[j].x, &t1[j].x, &G1_BETA);
        F_NEG(&t2[j].y, &t1[j].y);
        t2[j].z = t1[j].z;
    }

    lookup_ct(&acc, t1, da[G1_CT_DIGITS - 1]);
    lookup_ct(&s, t2, db[G1_CT_DIGITS - 1]);
    proj_add(&acc, &acc, &s);
    for (int i = G1_CT_DIGITS - 2; i >= 0; i--) {
        for (int w = 0; w < CUZK_EC_CT_WINDOW; w++) proj_dbl(&acc, &acc);
        lookup_ct(&s, t1, da[i]);
        proj_add(&acc, &acc, &s);
        lookup_ct(&s, t2, db[i]);
        proj_add(&acc, &acc, &s);
    }
    proj_to_jac(r, &acc);
}

/* GLV + width-5 NAF, interleaved (Straus): ~128 doublings and ~43 mixed
 * additions from affine tables of the odd multiples P, 3P, ..., 15P and
 * their -phi images.  Normalizing the table costs one inversion; the
 * cheaper mixed additions repay it (docs/perf-notes.md). */
#define G1_WNAF_W 5
#define G1_WNAF_TABLE (1 << (G1_WNAF_W - 2))

void cuzk_g1_mul_var(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_fr *k)
{
    uint64_t d[4];
    int8_t na[130], nb[130];
    cuzk_g1 tj[G1_WNAF_TABLE], p2, acc;
    cuzk_g1_affine t1[G1_WNAF_TABLE], t2[G1_WNAF_TABLE], s;

    cuzk_ec_split_x(d, k);
    size_t la = cuzk_ec_wnaf_var(na, d[0] + (u128)d[1] * CUZK_EC_X_ABS, G1_WNAF_W);
    size_t lb = cuzk_ec_wnaf_var(nb, d[2] + (u128)d[3] * CUZK_EC_X_ABS, G1_WNAF_W);

    tj[0] = *p;
    cuzk_g1_dbl(&p2, p);
    for (int j = 1; j < G1_WNAF_TABLE; j++) cuzk_g1_add_var(&tj[j], &tj[j - 1], &p2);
    cuzk_g1_batch_to_affine_var(t1, tj, G1_WNAF_TABLE);
    for (int j = 0; j < G1_WNAF_TABLE; j++) { /* infinity (0, 0) maps to itself */
        F_MUL(&t2[j].x, &t1[j].x, &G1_BETA);
        F_NEG(&t2[j].y, &t1[j].y);
    }

    cuzk_g1_set_inf(&acc);
    int started = 0;
    for (size_t i = la > lb ? la : lb; i-- > 0;) {
        if (started) cuzk_g1_dbl(&acc, &acc);
        int8_t x = i < la ? na[i] : 0, y = i < lb ? nb[i] : 0;
        if (x) {
            s = t1[(x < 0 ? -x : x) >> 1];
            if (x < 0) F_NEG(&s.y, &s.y);
            cuzk_g1_add_affine_var(&acc, &acc, &s);
            started = 1;
        }
        if (y) {
            s = t2[(y < 0 ? -y : y) >> 1];
            if (y < 0) F_NEG(&s.y, &s.y);
            cuzk_g1_add_affine_var(&acc, &acc, &s);
            started = 1;
        }
    }
    *r = acc;
}
