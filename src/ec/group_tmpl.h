/* Group law shared by G1 (over Fp) and G2 (over Fp2): the same a = 0
 * Jacobian and complete projective formulas over two fields, so they live
 * here once.  Included once per group by g1.c and g2.c (in the style of
 * src/msm/msm_tmpl.h) after defining:
 *   FE, JAC, AFF              -- coordinate field element, Jacobian, affine types;
 *   G(name)                   -- public name prefix (cuzk_g1_##name);
 *   F_ADD/SUB/DBL/NEG/MUL/SQR -- the file's inline field operations;
 *   f_is_zero(a)              -- 1/0 as uint64_t, constant time;
 *   f_mul_b3(r, a)            -- r = 3b a;
 *   FE_CMOV, FE_IS_ZERO, FE_EQ, FE_INV (constant time), FE_INV_VAR,
 *   FE_ONE, FE_ZERO, CURVE_B, GEN (affine generator).
 * The macros expand to the same inline calls the files made before, so the
 * generated code is unchanged.  Formulas and costs: see the comment at the
 * top of g1.c.  Group-specific parts (endomorphisms, subgroup checks, scalar
 * decompositions) stay in g1.c / g2.c. */

static inline void jac_cmov(JAC *r, const JAC *a, uint64_t flag)
{
    FE_CMOV(&r->x, &a->x, flag);
    FE_CMOV(&r->y, &a->y, flag);
    FE_CMOV(&r->z, &a->z, flag);
}

/* ---- basic --------------------------------------------------------------- */
void G(generator)(JAC *r)
{
    r->x = GEN.x;
    r->y = GEN.y;
    r->z = FE_ONE;
}

void G(affine_generator)(AFF *r) { *r = GEN; }

void G(set_inf)(JAC *r)
{
    r->x = FE_ZERO;
    r->y = FE_ONE;
    r->z = FE_ZERO;
}

bool G(is_inf)(const JAC *p) { return FE_IS_ZERO(&p->z); }

bool G(affine_is_inf)(const AFF *p)
{
    return (f_is_zero(&p->x) & f_is_zero(&p->y)) != 0;
}

bool G(eq)(const JAC *p, const JAC *q)
{
    FE z1z1, z2z2, a, b, c, d;
    F_SQR(&z1z1, &p->z);
    F_SQR(&z2z2, &q->z);
    F_MUL(&a, &p->x, &z2z2);
    F_MUL(&b, &q->x, &z1z1);
    F_MUL(&c, &p->y, &q->z);
    F_MUL(&c, &c, &z2z2);
    F_MUL(&d, &q->y, &p->z);
    F_MUL(&d, &d, &z1z1);
    uint64_t i1 = f_is_zero(&p->z), i2 = f_is_zero(&q->z);
    uint64_t same = (FE_EQ(&a, &b) ? 1 : 0) & (FE_EQ(&c, &d) ? 1 : 0);
    return ((i1 & i2) | ((i1 ^ 1) & (i2 ^ 1) & same)) != 0;
}

bool G(affine_eq)(const AFF *p, const AFF *q)
{
    /* infinity is (0, 0), which no curve point equals */
    return ((FE_EQ(&p->x, &q->x) ? 1 : 0) & (FE_EQ(&p->y, &q->y) ? 1 : 0)) != 0;
}

void G(from_affine)(JAC *r, const AFF *p)
{
    uint64_t inf = f_is_zero(&p->x) & f_is_zero(&p->y);
    r->x = p->x;
    r->y = p->y;
    r->z = FE_ONE;
    FE_CMOV(&r->y, &FE_ONE, inf);
    FE_CMOV(&r->z, &FE_ZERO, inf);
}

void G(to_affine)(AFF *r, const JAC *p)
{
    FE zi, zi2;
    FE_INV(&zi, &p->z); /* 0 -> 0, so infinity maps to (0, 0) */
    F_SQR(&zi2, &zi);
    F_MUL(&r->x, &p->x, &zi2);
    F_MUL(&zi2, &zi2, &zi);
    F_MUL(&r->y, &p->y, &zi2);
}

/* Montgomery's trick; out[i].x holds the prefix products on the way up so
 * nothing is allocated. */
void G(batch_to_affine_var)(AFF *out, const JAC *in, size_t n)
{
    FE acc = FE_ONE, inv, zi, zi2;
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!FE_IS_ZERO(&in[i].z)) F_MUL(&acc, &acc, &in[i].z);
    }
    FE_INV_VAR(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FE_IS_ZERO(&in[i].z)) {
            out[i].x = FE_ZERO;
            out[i].y = FE_ZERO;
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

void G(neg)(JAC *r, const JAC *p)
{
    r->x = p->x;
    F_NEG(&r->y, &p->y);
    r->z = p->z;
}

void G(affine_neg)(AFF *r, const AFF *p)
{
    r->x = p->x;
    F_NEG(&r->y, &p->y);
}

/* ---- Jacobian group law -------------------------------------------------- */
/* dbl-2009-l.  No exceptions for a = 0: Z = 0 stays 0; E(Fp) has no point
 * with y = 0 (its order h*r is odd), and on E'(Fp2) a point with y = 0
 * (2-torsion) correctly doubles to Z3 = 2YZ = 0. */
void G(dbl)(JAC *r, const JAC *p)
{
    FE a, b, c, d, e, f, t;
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
static void add_core(JAC *r, uint64_t *hz, uint64_t *rz, const JAC *p, const JAC *q)
{
    FE z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
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
static void add_affine_core(JAC *r, uint64_t *hz, uint64_t *rz, const JAC *p,
                            const AFF *q)
{
    FE z1z1, u2, s2, h, hh, i, j, rr, v, t;
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
static void unified_tail(JAC *r, const FE *h, const FE *rr, const FE *u1,
                         const FE *u2, const FE *s1, const FE *w)
{
    FE hh, hhh, t, v;
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
static void select_doubling(FE *h, FE *rr, const FE *u1, const FE *s1, uint64_t same)
{
    FE t, t3;
    F_DBL(&t, s1);
    FE_CMOV(h, &t, same);
    F_SQR(&t, u1);
    F_DBL(&t3, &t);
    F_ADD(&t3, &t3, &t);
    FE_CMOV(rr, &t3, same);
}

/* 13M + 5S, complete; infinities are selected at the end. */
void G(add)(JAC *r, const JAC *p, const JAC *q)
{
    FE z1z1, z2z2, u1, u2, s1, s2, h, rr, w;
    JAC out;
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
    jac_cmov(&out, q, pinf);
    jac_cmov(&out, p, qinf);
    *r = out;
}

/* Same with Z2 = 1 (W = Z1, U1 = X1, S1 = Y1): 9M + 4S. */
void G(add_affine)(JAC *r, const JAC *p, const AFF *q)
{
    FE z1z1, u2, s2, h, rr;
    JAC out, qj;
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
    G(from_affine)(&qj, q);
    jac_cmov(&out, &qj, pinf);
    jac_cmov(&out, p, qinf);
    *r = out;
}

void G(add_var)(JAC *r, const JAC *p, const JAC *q)
{
    if (FE_IS_ZERO(&p->z)) {
        *r = *q;
        return;
    }
    if (FE_IS_ZERO(&q->z)) {
        *r = *p;
        return;
    }
    JAC sum;
    uint64_t hz, rz;
    add_core(&sum, &hz, &rz, p, q);
    if (hz) {
        if (rz) G(dbl)(r, p);
        else G(set_inf)(r);
        return;
    }
    *r = sum;
}

void G(add_affine_var)(JAC *r, const JAC *p, const AFF *q)
{
    if (G(affine_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (FE_IS_ZERO(&p->z)) {
        G(from_affine)(r, q);
        return;
    }
    JAC sum;
    uint64_t hz, rz;
    add_affine_core(&sum, &hz, &rz, p, q);
    if (hz) {
        if (rz) G(dbl)(r, p);
        else G(set_inf)(r);
        return;
    }
    *r = sum;
}

/* ---- curve membership ---------------------------------------------------- */
bool G(affine_is_on_curve)(const AFF *p)
{
    FE l, rhs;
    F_SQR(&l, &p->y);
    F_SQR(&rhs, &p->x);
    F_MUL(&rhs, &rhs, &p->x);
    F_ADD(&rhs, &rhs, &CURVE_B);
    uint64_t inf = f_is_zero(&p->x) & f_is_zero(&p->y);
    return (inf | (FE_EQ(&l, &rhs) ? 1 : 0)) != 0;
}

/* Y^2 = X^3 + 4 Z^6. */
bool G(is_on_curve)(const JAC *p)
{
    FE l, rhs, z6;
    F_SQR(&l, &p->y);
    F_SQR(&rhs, &p->x);
    F_MUL(&rhs, &rhs, &p->x);
    F_SQR(&z6, &p->z);
    F_MUL(&z6, &z6, &p->z);
    F_SQR(&z6, &z6);
    F_MUL(&z6, &z6, &CURVE_B);
    F_ADD(&rhs, &rhs, &z6);
    return (f_is_zero(&p->z) | (FE_EQ(&l, &rhs) ? 1 : 0)) != 0;
}

/* ---- multiplication by |x| (subgroup checks) ------------------------------ */
/* |x| = 0xd201000000010000 has six bits set: 63 doublings and 5 complete
 * additions, a sequence fixed by the constant (the adds are the constant-
 * time complete ones because m*p may equal +-p for points of small order,
 * which subgroup checks are fed on purpose). */
void G(mul_by_x_abs)(JAC *r, const JAC *p)
{
    JAC acc = *p;
    for (int b = 62; b >= 0; b--) {
        G(dbl)(&acc, &acc);
        if ((CUZK_EC_X_ABS >> b) & 1) G(add)(&acc, &acc, p);
    }
    *r = acc;
}

/* |x| p for an affine p: the five additions are the cheaper mixed ones
 * (decoded points, the common case, are affine). */
static void mul_by_x_abs_affine(JAC *r, const AFF *p)
{
    JAC acc;
    G(from_affine)(&acc, p);
    for (int b = 62; b >= 0; b--) {
        G(dbl)(&acc, &acc);
        if ((CUZK_EC_X_ABS >> b) & 1) G(add_affine)(&acc, &acc, p);
    }
    *r = acc;
}

/* ---- pieces of the scalar multiplications ------------------------------ */
/* Homogeneous projective point (x = X/Z, y = Y/Z), identity (0 : 1 : 0). */
typedef struct { FE x, y, z; } proj_t;

/* RCB Algorithm 7 (a = 0); r may alias p or q. */
static void proj_add(proj_t *r, const proj_t *p, const proj_t *q)
{
    FE t0, t1, t2, t3, t4, x3, y3, z3;
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
static void proj_dbl(proj_t *r, const proj_t *p)
{
    FE t0, t1, t2, x3, y3, z3;
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
static void jac_to_proj(proj_t *r, const JAC *p)
{
    FE z2;
    uint64_t inf = f_is_zero(&p->z);
    F_SQR(&z2, &p->z);
    F_MUL(&r->x, &p->x, &p->z);
    F_MUL(&r->z, &z2, &p->z);
    r->y = p->y;
    FE_CMOV(&r->y, &FE_ONE, inf);
}

/* (X : Y : Z) -> Jacobian (X Z, Y Z^2, Z). */
static void proj_to_jac(JAC *r, const proj_t *p)
{
    FE z2;
    F_SQR(&z2, &p->z);
    F_MUL(&r->x, &p->x, &p->z);
    F_MUL(&r->y, &p->y, &z2);
    r->z = p->z;
}

/* r = d * (table[0] = P), d in [-16, 16], table[j] = (j+1) P: every entry is
 * read and selected with masks, so the access pattern is independent of d. */
static void lookup_ct(proj_t *r, const proj_t table[16], int8_t d)
{
    uint64_t sign = (uint64_t)(uint8_t)d >> 7;
    uint64_t abs = (uint64_t)(((int64_t)d ^ -(int64_t)sign) + (int64_t)sign);
    r->x = FE_ZERO;
    r->y = FE_ONE;
    r->z = FE_ZERO;
    for (uint64_t j = 0; j < 16; j++) {
        uint64_t hit = ((abs ^ (j + 1)) - 1) >> 63;
        FE_CMOV(&r->x, &table[j].x, hit);
        FE_CMOV(&r->y, &table[j].y, hit);
        FE_CMOV(&r->z, &table[j].z, hit);
    }
    FE ny;
    F_NEG(&ny, &r->y);
    FE_CMOV(&r->y, &ny, sign);
}
