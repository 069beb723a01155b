/* XYZZ coordinates for the group-generic MSM core: included by msm_tmpl.h
 * (same macros FE, FE_*, AFF, JAC).  Variable time, public data only. */

/* ---- XYZZ coordinates: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; inf iff ZZ = 0.
 * Cheaper than Jacobian for the mixed and full additions that dominate the
 * bucket running sums (8M+2S / 12M+2S, EFD "xyzz" formulas for a = 0). */
typedef struct {
    FE x, y, zz, zzz;
} xyzz;

static inline int aff_is_inf(const AFF *p)
{
    return FE_IS_ZERO(&p->x) && FE_IS_ZERO(&p->y);
}

static inline void xyzz_set_inf(xyzz *r)
{
    memset(r, 0, sizeof *r);
}

static inline int xyzz_is_inf(const xyzz *p)
{
    return FE_IS_ZERO(&p->zz);
}

/* r = 2 * (x, y) for an affine point (y != 0 assumed by the caller's check). */
static void xyzz_dbl_affine(xyzz *r, const FE *x, const FE *y)
{
    FE u, v, w, s, m, t;
    FE_DBL(&u, y);
    FE_SQR(&v, &u);
    FE_MUL(&w, &u, &v);
    FE_MUL(&s, x, &v);
    FE_SQR(&m, x);
    FE_DBL(&t, &m);
    FE_ADD(&m, &m, &t); /* 3x^2 */
    FE_SQR(&r->x, &m);
    FE_DBL(&t, &s);
    FE_SUB(&r->x, &r->x, &t);
    FE_SUB(&t, &s, &r->x);
    FE_MUL(&t, &m, &t);
    FE_MUL(&r->y, &w, y);
    FE_SUB(&r->y, &t, &r->y);
    r->zz = v;
    r->zzz = w;
}

static void xyzz_dbl(xyzz *r, const xyzz *p)
{
    if (xyzz_is_inf(p) || FE_IS_ZERO(&p->y)) {
        xyzz_set_inf(r);
        return;
    }
    FE u, v, w, s, m, t;
    FE_DBL(&u, &p->y);
    FE_SQR(&v, &u);
    FE_MUL(&w, &u, &v);
    FE_MUL(&s, &p->x, &v);
    FE_SQR(&m, &p->x);
    FE_DBL(&t, &m);
    FE_ADD(&m, &m, &t);
    FE_MUL(&r->zz, &v, &p->zz);
    FE_MUL(&r->zzz, &w, &p->zzz);
    FE_MUL(&w, &w, &p->y);
    FE_SQR(&r->x, &m);
    FE_DBL(&t, &s);
    FE_SUB(&r->x, &r->x, &t);
    FE_SUB(&t, &s, &r->x);
    FE_MUL(&t, &m, &t);
    FE_SUB(&r->y, &t, &w);
}

/* r += (x, y) affine, not infinity. */
static void xyzz_madd(xyzz *r, const FE *x, const FE *y)
{
    if (xyzz_is_inf(r)) {
        r->x = *x;
        r->y = *y;
        r->zz = FE_ONE;
        r->zzz = FE_ONE;
        return;
    }
    FE u2, s2, p, rr, pp, ppp, q, t;
    FE_MUL(&u2, x, &r->zz);
    FE_MUL(&s2, y, &r->zzz);
    FE_SUB(&p, &u2, &r->x);
    FE_SUB(&rr, &s2, &r->y);
    if (FE_IS_ZERO(&p)) {
        if (FE_IS_ZERO(&rr)) xyzz_dbl_affine(r, x, y);
        else xyzz_set_inf(r);
        return;
    }
    FE_SQR(&pp, &p);
    FE_MUL(&ppp, &p, &pp);
    FE_MUL(&q, &r->x, &pp);
    FE_SQR(&r->x, &rr);
    FE_SUB(&r->x, &r->x, &ppp);
    FE_DBL(&t, &q);
    FE_SUB(&r->x, &r->x, &t);
    FE_SUB(&t, &q, &r->x);
    FE_MUL(&t, &rr, &t);
    FE_MUL(&q, &r->y, &ppp);
    FE_SUB(&r->y, &t, &q);
    FE_MUL(&r->zz, &r->zz, &pp);
    FE_MUL(&r->zzz, &r->zzz, &ppp);
}

/* r += q (r may equal q). */
static void xyzz_add(xyzz *r, const xyzz *q)
{
    if (xyzz_is_inf(q)) return;
    if (xyzz_is_inf(r)) {
        *r = *q;
        return;
    }
    FE u1, u2, s1, s2, p, rr, pp, ppp, t;
    FE_MUL(&u1, &r->x, &q->zz);
    FE_MUL(&u2, &q->x, &r->zz);
    FE_MUL(&s1, &r->y, &q->zzz);
    FE_MUL(&s2, &q->y, &r->zzz);
    FE_SUB(&p, &u2, &u1);
    FE_SUB(&rr, &s2, &s1);
    if (FE_IS_ZERO(&p)) {
        if (FE_IS_ZERO(&rr)) xyzz_dbl(r, q);
        else xyzz_set_inf(r);
        return;
    }
    FE_SQR(&pp, &p);
    FE_MUL(&ppp, &p, &pp);
    FE_MUL(&u1, &u1, &pp); /* Q */
    FE_SQR(&r->x, &rr);
    FE_SUB(&r->x, &r->x, &ppp);
    FE_DBL(&t, &u1);
    FE_SUB(&r->x, &r->x, &t);
    FE_SUB(&t, &u1, &r->x);
    FE_MUL(&t, &rr, &t);
    FE_MUL(&s1, &s1, &ppp);
    FE_SUB(&r->y, &t, &s1);
    FE_MUL(&r->zz, &r->zz, &q->zz);
    FE_MUL(&r->zz, &r->zz, &pp);
    FE_MUL(&r->zzz, &r->zzz, &q->zzz);
    FE_MUL(&r->zzz, &r->zzz, &ppp);
}

/* Jacobian (X, Y, Z) from XYZZ: with Z' = ZZ*ZZZ, X' = X*ZZ*ZZZ^2 and
 * Y' = Y*ZZZ^4 (uses ZZ^3 = ZZZ^2). */
static void xyzz_to_jac(JAC *r, const xyzz *p)
{
    if (xyzz_is_inf(p)) {
        memset(r, 0, sizeof *r);
        return;
    }
    FE t;
    FE_SQR(&t, &p->zzz);
    FE_MUL(&r->x, &p->x, &p->zz);
    FE_MUL(&r->x, &r->x, &t);
    FE_SQR(&t, &t);
    FE_MUL(&r->y, &p->y, &t);
    FE_MUL(&r->z, &p->zz, &p->zzz);
}

static void xyzz_from_jac(xyzz *r, const JAC *p)
{
    if (FE_IS_ZERO(&p->z)) {
        xyzz_set_inf(r);
        return;
    }
    r->x = p->x;
    r->y = p->y;
    FE_SQR(&r->zz, &p->z);
    FE_MUL(&r->zzz, &r->zz, &p->z);
}
