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

static inline void g1_cmov(cuzk_g1 *r, const cuzk_g1 *a, uint64_t flag)
{
    cuzk_fp_cmov(&r->x, &a->x, flag);
    cuzk_fp_cmov(&r->y, &a->y, flag);
    cuzk_fp_cmov(&r->z, &a->z, flag);
}

/* ---- basic --------------------------------------------------------------- */
void cuzk_g1_generator(cuzk_g1 *r)
{
    r->x = G1_GEN.x;
    r->y = G1_GEN.y;
    r->z = CUZK_FP_ONE;
}

void cuzk_g1_affine_generator(cuzk_g1_affine *r) { *r = G1_GEN; }

void cuzk_g1_set_inf(cuzk_g1 *r)
{
    r->x = CUZK_FP_ZERO;
    r->y = CUZK_FP_ONE;
    r->z = CUZK_FP_ZERO;
}

bool cuzk_g1_is_inf(const cuzk_g1 *p) { return cuzk_fp_is_zero(&p->z); }

bool cuzk_g1_affine_is_inf(const cuzk_g1_affine *p)
{
    return (f_is_zero(&p->x) & f_is_zero(&p->y)) != 0;
}

bool cuzk_g1_eq(const cuzk_g1 *p, const cuzk_g1 *q)
{
    cuzk_fp z1z1, z2z2, a, b, c, d;
    F_SQR(&z1z1, &p->z);
    F_SQR(&z2z2, &q->z);
    F_MUL(&a, &p->x, &z2z2);
    F_MUL(&b, &q->x, &z1z1);
    F_MUL(&c, &p->y, &q->z);
    F_MUL(&c, &c, &z2z2);
    F_MUL(&d, &q->y, &p->z);
    F_MUL(&d, &d, &z1z1);
    uint64_t i1 = f_is_zero(&p->z), i2 = f_is_zero(&q->z);
    uint64_t same = (cuzk_fp_eq(&a, &b) ? 1 : 0) & (cuzk_fp_eq(&c, &d) ? 1 : 0);
    return ((i1 & i2) | ((i1 ^ 1) & (i2 ^ 1) & same)) != 0;
}

bool cuzk_g1_affine_eq(const cuzk_g1_affine *p, const cuzk_g1_affine *q)
{
    /* infinity is (0, 0), which no curve point equals */
    return ((cuzk_fp_eq(&p->x, &q->x) ? 1 : 0) & (cuzk_fp_eq(&p->y, &q->y) ? 1 : 0)) != 0;
}

void cuzk_g1_from_affine(cuzk_g1 *r, const cuzk_g1_affine *p)
{
    uint64_t inf = f_is_zero(&p->x) & f_is_zero(&p->y);
    r->x = p->x;
    r->y = p->y;
    r->z = CUZK_FP_ONE;
    cuzk_fp_cmov(&r->y, &CUZK_FP_ONE, inf);
    cuzk_fp_cmov(&r->z, &CUZK_FP_ZERO, inf);
}

void cuzk_g1_to_affine(cuzk_g1_affine *r, const cuzk_g1 *p)
{
    cuzk_fp zi, zi2;
    cuzk_fp_inv(&zi, &p->z); /* 0 -> 0, so infinity maps to (0, 0) */
    F_SQR(&zi2, &zi);
    F_MUL(&r->x, &p->x, &zi2);
    F_MUL(&zi2, &zi2, &zi);
    F_MUL(&r->y, &p->y, &zi2);
}

/* Montgomery's trick; out[i].x holds the prefix products on the way up so
 * nothing is allocated. */
void cuzk_g1_batch_to_affine_var(cuzk_g1_affine *out, const cuzk_g1 *in, size_t n)
{
    cuzk_fp acc = CUZK_FP_ONE, inv, zi, zi2;
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!cuzk_fp_is_zero(&in[i].z)) F_MUL(&acc, &acc, &in[i].z);
    }
    cuzk_fp_inv_var(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (cuzk_fp_is_zero(&in[i].z)) {
            out[i].x = CUZK_FP_ZERO;
            out[i].y = CUZK_FP_ZERO;
            continue;
        }
        F_MUL(&zi, &inv, &out[i].x);
        F_MUL(&inv, &inv, &in[i].z);
        F_SQR(&zi2, &zi);
        F_MUL(&out[i].x, &in[i].x, &zi2);
        F_MUL(&zi2, &zi2, &zi);
        F_MUL(&out[i].y, &in[i].y, &zi2);
    }
}

void cuzk_g1_neg(cuzk_g1 *r, const cuzk_g1 *p)
{
    r->x = p->x;
    F_NEG(&r->y, &p->y);
    r->z = p->z;
}

void cuzk_g1_affine_neg(cuzk_g1_affine *r, const cuzk_g1_affine *p)
{
    r->x = p->x;
    F_NEG(&r->y, &p->y);
}

/* ---- Jacobian group law -------------------------------------------------- */
/* dbl-2009-l.  No exceptions for a = 0: Z = 0 stays 0, and E(Fp) has no
 * point with y = 0 (its order h*r is odd). */
void cuzk_g1_dbl(cuzk_g1 *r, const cuzk_g1 *p)
{
    cuzk_fp a, b, c, d, e, f, t;
    F_SQR(&a, &p->x);
    F_SQR(&b, &p->y);
    F_SQR(&c, &b);
    F_ADD(&t, &p->x, &b);
    F_SQR(&t, &t);
    F_SUB(&t, &t, &a);
    F_SUB(&t, &t, &c);
    F_DBL(&d, &t);
    F_DBL(&e, &a);
    F_ADD(&e, &e, &a);
    F_SQR(&f, &e);
    F_MUL(&r->z, &p->y, &p->z); /* last read of p */
    F_DBL(&r->z, &r->z);
    F_DBL(&t, &d);
    F_SUB(&r->x, &f, &t);
    F_SUB(&t, &d, &r->x);
    F_MUL(&t, &t, &e);
    F_DBL(&c, &c);
    F_DBL(&c, &c);
    F_DBL(&c, &c);
    F_SUB(&r->y, &t, &c);
}

/* add-2007-bl without the special cases; r must not alias p or q.  *hz and
 * *rz report H = 0 and R = 0 (same x, same y): then r is not the sum. */
static void add_core(cuzk_g1 *r, uint64_t *hz, uint64_t *rz, const cuzk_g1 *p, const cuzk_g1 *q)
{
    cuzk_fp z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    F_SQR(&z1z1, &p->z);
    F_SQR(&z2z2, &q->z);
    F_MUL(&u1, &p->x, &z2z2);
    F_MUL(&u2, &q->x, &z1z1);
    F_MUL(&s1, &p->y, &q->z);
    F_MUL(&s1, &s1, &z2z2);
    F_MUL(&s2, &q->y, &p->z);
    F_MUL(&s2, &s2, &z1z1);
    F_SUB(&h, &u2, &u1);
    F_SUB(&rr, &s2, &s1);
    *hz = f_is_zero(&h);
    *rz = f_is_zero(&rr);
    F_DBL(&i, &h);
    F_SQR(&i, &i);
    F_MUL(&j, &h, &i);
    F_DBL(&rr, &rr);
    F_MUL(&v, &u1, &i);
    F_ADD(&t, &p->z, &q->z);
    F_SQR(&t, &t);
    F_SUB(&t, &t, &z1z1);
    F_SUB(&t, &t, &z2z2);
    F_MUL(&r->z, &t, &h);
    F_SQR(&t, &rr);
    F_SUB(&t, &t, &j);
    F_SUB(&t, &t, &v);
    F_SUB(&r->x, &t, &v);
    F_SUB(&t, &v, &r->x);
    F_MUL(&t, &t, &rr);
    F_MUL(&s1, &s1, &j);
    F_DBL(&s1, &s1);
    F_SUB(&r->y, &t, &s1);
}

/* madd-2007-bl (q affine, not infinity); r must not alias p. */
static void add_affine_core(cuzk_g1 *r, uint64_t *hz, uint64_t *rz, const cuzk_g1 *p,
                            const cuzk_g1_affine *q)
{
    cuzk_fp z1z1, u2, s2, h, hh, i, j, rr, v, t;
    F_SQR(&z1z1, &p->z);
    F_MUL(&u2, &q->x, &z1z1);
    F_MUL(&s2, &q->y, &p->z);
    F_MUL(&s2, &s2, &z1z1);
    F_SUB(&h, &u2, &p->x);
    F_SUB(&rr, &s2, &p->y);
    *hz = f_is_zero(&h);
    *rz = f_is_zero(&rr);
    F_SQR(&hh, &h);
    F_DBL(&i, &hh);
    F_DBL(&i, &i);
    F_MUL(&j, &h, &i);
    F_DBL(&rr, &rr);
    F_MUL(&v, &p->x, &i);
    F_ADD(&t, &p->z, &h);
    F_SQR(&t, &t);
    F_SUB(&t, &t, &z1z1);
    F_SUB(&r->z, &t, &hh);
    F_SQR(&t, &rr);
    F_SUB(&t, &t, &j);
    F_SUB(&t, &t, &v);
    F_SUB(&r->x, &t, &v);
    F_SUB(&t, &v, &r->x);
    F_MUL(&t, &t, &rr);
    F_MUL(&s2, &p->y, &j);
    F_DBL(&s2, &s2);
    F_SUB(&r->y, &t, &s2);
}

/* Unified tail of the constant-time additions.  With x_i = U_i / W^2 and
 * y_i = S_i / W^3 the slope is R / (H W), where (H, R) = (U2 - U1, S2 - S1)
 * for a sum and (2 S1, 3 U1^2) for a doubling (tangent 3x^2 / 2y); then
 *   X3 = R^2 - H^2 (U1 + U2),  Y3 = R (U1 H^2 - X3) - S1 H^3,  Z3 = W H
 * covers both, so the doubling costs one extra squaring and two cmovs
 * instead of a whole second formula.  H = 0 with R != 0 (p == -q) or
 * H = 2 S1 = 0 (2-torsion) give Z3 = 0, the right answer.  r must not alias
 * any input. */
static void unified_tail(cuzk_g1 *r, const cuzk_fp *h, const cuzk_fp *rr, const cuzk_fp *u1,
                         const cuzk_fp *u2, const cuzk_fp *s1, const cuzk_fp *w)
{
    cuzk_fp hh, hhh, t, v;
    F_SQR(&hh, h);
    F_MUL(&hhh, &hh, h);
    F_MUL(&v, u1, &hh);
    F_ADD(&t, u1, u2);
    F_MUL(&t, &t, &hh);
    F_SQR(&r->x, rr);
    F_SUB(&r->x, &r->x, &t);
    F_SUB(&t, &v, &r->x);
    F_MUL(&t, &t, rr);
    F_MUL(&v, s1, &hhh);
    F_SUB(&r->y, &t, &v);
    F_MUL(&r->z, w, h);
}

/* (H, R) <- (2 S1, 3 U1^2) when same (p == q as points). */
static void select_doubling(cuzk_fp *h, cuzk_fp *rr, const cuzk_fp *u1, const cuzk_fp *s1, uint64_t same)
{
    cuzk_fp t, t3;
    F_DBL(&t, s1);
    cuzk_fp_cmov(h, &t, same);
    F_SQR(&t, u1);
    F_DBL(&t3, &t);
    F_ADD(&t3, &t3, &t);
    cuzk_fp_cmov(rr, &t3, same);
}

/* 13M + 5S, complete; infinities are selected at the end. */
void cuzk_g1_add(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1 *q)
{
    cuzk_fp z1z1, z2z2, u1, u2, s1, s2, h, rr, w;
    cuzk_g1 out;
    uint64_t pinf = f_is_zero(&p->z), qinf = f_is_zero(&q->z);
    F_SQR(&z1z1, &p->z);
    F_SQR(&z2z2, &q->z);
    F_MUL(&u1, &p->x, &z2z2);
    F_MUL(&u2, &q->x, &z1z1);
    F_MUL(&s1, &p->y, &q->z);
    F_MUL(&s1, &s1, &z2z2);
    F_MUL(&s2, &q->y, &p->z);
    F_MUL(&s2, &s2, &z1z1);
    F_MUL(&w, &p->z, &q->z);
    F_SUB(&h, &u2, &u1);
    F_SUB(&rr, &s2, &s1);
    select_doubling(&h, &rr, &u1, &s1, f_is_zero(&h) & f_is_zero(&rr));
    unified_tail(&out, &h, &rr, &u1, &u2, &s1, &w);
    g1_cmov(&out, q, pinf);
    g1_cmov(&out, p, qinf);
    *r = out;
}

/* Same with Z2 = 1 (W = Z1, U1 = X1, S1 = Y1): 9M + 4S. */
void cuzk_g1_add_affine(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1_affine *q)
{
    cuzk_fp z1z1, u2, s2, h, rr;
    cuzk_g1 out, qj;
    uint64_t pinf = f_is_zero(&p->z);
    uint64_t qinf = f_is_zero(&q->x) & f_is_zero(&q->y);
    F_SQR(&z1z1, &p->z);
    F_MUL(&u2, &q->x, &z1z1);
    F_MUL(&s2, &q->y, &p->z);
    F_MUL(&s2, &s2, &z1z1);
    F_SUB(&h, &u2, &p->x);
    F_SUB(&rr, &s2, &p->y);
    select_doubling(&h, &rr, &p->x, &p->y, f_is_zero(&h) & f_is_zero(&rr));
    unified_tail(&out, &h, &rr, &p->x, &u2, &p->y, &p->z);
    cuzk_g1_from_affine(&qj, q);
    g1_cmov(&out, &qj, pinf);
    g1_cmov(&out, p, qinf);
    *r = out;
}

void cuzk_g1_add_var(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1 *q)
{
    if (cuzk_fp_is_zero(&p->z)) {
        *r = *q;
        return;
    }
    if (cuzk_fp_is_zero(&q->z)) {
        *r = *p;
        return;
    }
    cuzk_g1 sum;
    uint64_t hz, rz;
    add_core(&sum, &hz, &rz, p, q);
    if (hz) {
        if (rz) cuzk_g1_dbl(r, p);
        else cuzk_g1_set_inf(r);
        return;
    }
    *r = sum;
}

void cuzk_g1_add_affine_var(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_g1_affine *q)
{
    if (cuzk_g1_affine_is_inf(q)) {
        *r = *p;
        return;
    }
    if (cuzk_fp_is_zero(&p->z)) {
        cuzk_g1_from_affine(r, q);
        return;
    }
    cuzk_g1 sum;
    uint64_t hz, rz;
    add_affine_core(&sum, &hz, &rz, p, q);
    if (hz) {
        if (rz) cuzk_g1_dbl(r, p);
        else cuzk_g1_set_inf(r);
        return;
    }
    *r = sum;
}

/* ---- curve membership ---------------------------------------------------- */
bool cuzk_g1_affine_is_on_curve(const cuzk_g1_affine *p)
{
    cuzk_fp l, rhs;
    F_SQR(&l, &p->y);
    F_SQR(&rhs, &p->x);
    F_MUL(&rhs, &rhs, &p->x);
    F_ADD(&rhs, &rhs, &CUZK_G1_B);
    uint64_t inf = f_is_zero(&p->x) & f_is_zero(&p->y);
    return (inf | (cuzk_fp_eq(&l, &rhs) ? 1 : 0)) != 0;
}

/* Y^2 = X^3 + 4 Z^6. */
bool cuzk_g1_is_on_curve(const cuzk_g1 *p)
{
    cuzk_fp l, rhs, z6;
    F_SQR(&l, &p->y);
    F_SQR(&rhs, &p->x);
    F_MUL(&rhs, &rhs, &p->x);
    F_SQR(&z6, &p->z);
    F_MUL(&z6, &z6, &p->z);
    F_SQR(&z6, &z6);
    F_MUL(&z6, &z6, &CUZK_G1_B);
    F_ADD(&rhs, &rhs, &z6);
    return (f_is_zero(&p->z) | (cuzk_fp_eq(&l, &rhs) ? 1 : 0)) != 0;
}

void cuzk_g1_phi(cuzk_g1 *r, const cuzk_g1 *p)
{
    F_MUL(&r->x, &p->x, &G1_BETA); /* x = X/Z^2 scales like X */
    r->y = p->y;
    r->z = p->z;
}

/* |x| = 0xd201000000010000 has six bits set: 63 doublings and 5 complete
 * additions, a sequence fixed by the constant (the adds are the constant-
 * time complete ones because m*p may equal +-p for points of small order,
 * which subgroup checks are fed on purpose). */
void cuzk_g1_mul_by_x_abs(cuzk_g1 *r, const cuzk_g1 *p)
{
    cuzk_g1 acc = *p;
    for (int b = 62; b >= 0; b--) {
        cuzk_g1_dbl(&acc, &acc);
        if ((CUZK_EC_X_ABS >> b) & 1) cuzk_g1_add(&acc, &acc, p);
    }
    *r = acc;
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

/* |x| p for an affine p: the five additions are the cheaper mixed ones
 * (decoded points, the common case, are affine). */
static void mul_by_x_abs_affine(cuzk_g1 *r, const cuzk_g1_affine *p)
{
    cuzk_g1 acc;
    cuzk_g1_from_affine(&acc, p);
    for (int b = 62; b >= 0; b--) {
        cuzk_g1_dbl(&acc, &acc);
        if ((CUZK_EC_X_ABS >> b) & 1) cuzk_g1_add_affine(&acc, &acc, p);
    }
    *r = acc;
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
/* Homogeneous projective point (x = X/Z, y = Y/Z), identity (0 : 1 : 0). */
typedef struct { cuzk_fp x, y, z; } g1_proj;

/* RCB Algorithm 7 (a = 0); r may alias p or q. */
static void proj_add(g1_proj *r, const g1_proj *p, const g1_proj *q)
{
    cuzk_fp t0, t1, t2, t3, t4, x3, y3, z3;
    F_MUL(&t0, &p->x, &q->x);
    F_MUL(&t1, &p->y, &q->y);
    F_MUL(&t2, &p->z, &q->z);
    F_ADD(&t3, &p->x, &p->y);
    F_ADD(&t4, &q->x, &q->y);
    F_MUL(&t3, &t3, &t4);
    F_ADD(&t4, &t0, &t1);
    F_SUB(&t3, &t3, &t4);
    F_ADD(&t4, &p->y, &p->z);
    F_ADD(&x3, &q->y, &q->z);
    F_MUL(&t4, &t4, &x3);
    F_ADD(&x3, &t1, &t2);
    F_SUB(&t4, &t4, &x3);
    F_ADD(&x3, &p->x, &p->z);
    F_ADD(&y3, &q->x, &q->z);
    F_MUL(&x3, &x3, &y3);
    F_ADD(&y3, &t0, &t2);
    F_SUB(&y3, &x3, &y3);
    F_DBL(&x3, &t0);
    F_ADD(&t0, &x3, &t0);
    f_mul_b3(&t2, &t2);
    F_ADD(&z3, &t1, &t2);
    F_SUB(&t1, &t1, &t2);
    f_mul_b3(&y3, &y3);
    F_MUL(&x3, &t4, &y3);
    F_MUL(&t2, &t3, &t1);
    F_SUB(&r->x, &t2, &x3);
    F_MUL(&y3, &y3, &t0);
    F_MUL(&t1, &t1, &z3);
    F_ADD(&r->y, &t1, &y3);
    F_MUL(&t0, &t0, &t3);
    F_MUL(&z3, &z3, &t4);
    F_ADD(&r->z, &z3, &t0);
}

/* RCB Algorithm 9 (a = 0); r may alias p. */
static void proj_dbl(g1_proj *r, const g1_proj *p)
{
    cuzk_fp t0, t1, t2, x3, y3, z3;
    F_SQR(&t0, &p->y);
    F_DBL(&z3, &t0);
    F_DBL(&z3, &z3);
    F_DBL(&z3, &z3);
    F_MUL(&t1, &p->y, &p->z);
    F_SQR(&t2, &p->z);
    f_mul_b3(&t2, &t2);
    F_MUL(&x3, &t2, &z3);
    F_ADD(&y3, &t0, &t2);
    F_MUL(&z3, &t1, &z3);
    F_DBL(&t1, &t2);
    F_ADD(&t2, &t1, &t2);
    F_SUB(&t0, &t0, &t2);
    F_MUL(&y3, &t0, &y3);
    F_ADD(&y3, &x3, &y3);
    F_MUL(&t1, &p->x, &p->y);
    F_MUL(&x3, &t0, &t1);
    F_DBL(&r->x, &x3);
    r->y = y3;
    r->z = z3;
}

/* (X, Y, Z) Jacobian -> (X Z : Y : Z^3); infinity -> (0 : 1 : 0). */
static void jac_to_proj(g1_proj *r, const cuzk_g1 *p)
{
    cuzk_fp z2;
    uint64_t inf = f_is_zero(&p->z);
    F_SQR(&z2, &p->z);
    F_MUL(&r->x, &p->x, &p->z);
    F_MUL(&r->z, &z2, &p->z);
    r->y = p->y;
    cuzk_fp_cmov(&r->y, &CUZK_FP_ONE, inf);
}

/* (X : Y : Z) -> Jacobian (X Z, Y Z^2, Z). */
static void proj_to_jac(cuzk_g1 *r, const g1_proj *p)
{
    cuzk_fp z2;
    F_SQR(&z2, &p->z);
    F_MUL(&r->x, &p->x, &p->z);
    F_MUL(&r->y, &p->y, &z2);
    r->z = p->z;
}

/* r = d * (table[0] = P), d in [-16, 16], table[j] = (j+1) P: every entry is
 * read and selected with masks, so the access pattern is independent of d. */
static void lookup_ct(g1_proj *r, const g1_proj table[16], int8_t d)
{
    uint64_t sign = (uint64_t)(uint8_t)d >> 7;
    uint64_t abs = (uint64_t)(((int64_t)d ^ -(int64_t)sign) + (int64_t)sign);
    r->x = CUZK_FP_ZERO;
    r->y = CUZK_FP_ONE;
    r->z = CUZK_FP_ZERO;
    for (uint64_t j = 0; j < 16; j++) {
        uint64_t hit = ((abs ^ (j + 1)) - 1) >> 63;
        cuzk_fp_cmov(&r->x, &table[j].x, hit);
        cuzk_fp_cmov(&r->y, &table[j].y, hit);
        cuzk_fp_cmov(&r->z, &table[j].z, hit);
    }
    cuzk_fp ny;
    F_NEG(&ny, &r->y);
    cuzk_fp_cmov(&r->y, &ny, sign);
}

/* k P = a P + b (-phi(P)) with a, b < 2^128 (ec_internal.h), each recoded in
 * 26 signed 5-bit digits: 125 doublings and 52 complete additions, all
 * independent of k. */
#define G1_CT_DIGITS 26

void cuzk_g1_mul(cuzk_g1 *r, const cuzk_g1 *p, const cuzk_fr *k)
{
    uint64_t d[4];
    int8_t da[G1_CT_DIGITS], db[G1_CT_DIGITS];
    g1_proj t1[16], t2[16], acc, s;

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
