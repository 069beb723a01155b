/* Short-Weierstrass y^2 = x^3 + b with a = 0, written once for G1 (over
 * fp) and G2 (over fp2): included by groups.cl with
 *   G    the group's name (g1, g2): types G and G_affine, functions G_add, ...
 *   GF   its coordinate field (fp, fp2), whose GF_add, _sub, _dbl, _neg,
 *        _mul, _sqr, _is_zero, _eq, _zero, _one it uses.
 * Forms as the CPU library's (cuzk/ec.h), so buffers are shared as they are:
 *   G_affine (x, y), the point at infinity stored as x = y = 0;
 *   G (X, Y, Z) Jacobian, x = X/Z^2, y = Y/Z^3, infinity iff Z = 0.
 * The formulas are the EFD's for a = 0 (dbl-2009-l, add-2007-bl,
 * madd-2007-bl) with the exceptional cases they leave out handled by
 * branches: an infinite operand, P == Q (doubling) and P == -Q (infinity).
 * Variable time, for public data (MSM bases and scalars, as cuzk/msm.h).
 * A Jacobian result is one representative of its point: compare points
 * after normalizing (the tests do), not coordinates. */

#define GA CZ_CAT(G, affine)
#define GFN(x) CZ_CAT(GF, x)
#define GN(x) CZ_CAT(G, x)

typedef struct {
    GF x, y;
} GA;

typedef struct {
    GF x, y, z;
} G;

CZ_FN G GN(inf)(void)
{
    G r;
    r.x = GFN(one)();
    r.y = GFN(one)();
    r.z = GFN(zero)();
    return r;
}

CZ_FN int GN(is_inf)(G p)
{
    return GFN(is_zero)(p.z);
}

CZ_FN int GN(affine_is_inf)(GA p)
{
    return GFN(is_zero)(p.x) & GFN(is_zero)(p.y);
}

CZ_FN G GN(from_affine)(GA p)
{
    if (GN(affine_is_inf)(p)) return GN(inf)();
    G r;
    r.x = p.x;
    r.y = p.y;
    r.z = GFN(one)();
    return r;
}

CZ_FN G GN(neg)(G p)
{
    p.y = GFN(neg)(p.y);
    return p;
}

/* dbl-2009-l: 2M + 5S.  Z = 0 stays 0, so infinity doubles to itself. */
CZ_FN G GN(dbl)(G p)
{
    GF a = GFN(sqr)(p.x);
    GF b = GFN(sqr)(p.y);
    GF c = GFN(sqr)(b);
    GF d = GFN(dbl)(GFN(sub)(GFN(sub)(GFN(sqr)(GFN(add)(p.x, b)), a), c));
    GF e = GFN(add)(GFN(dbl)(a), a);
    GF f = GFN(sqr)(e);
    G r;
    r.x = GFN(sub)(f, GFN(dbl)(d));
    GF c8 = GFN(dbl)(GFN(dbl)(GFN(dbl)(c)));
    r.z = GFN(dbl)(GFN(mul)(p.y, p.z));
    r.y = GFN(sub)(GFN(mul)(e, GFN(sub)(d, r.x)), c8);
    return r;
}

/* add-2007-bl: 11M + 5S; P == Q goes to dbl, P == -Q gives infinity. */
CZ_FN G GN(add)(G p, G q)
{
    if (GN(is_inf)(p)) return q;
    if (GN(is_inf)(q)) return p;
    GF z1z1 = GFN(sqr)(p.z);
    GF z2z2 = GFN(sqr)(q.z);
    GF u1 = GFN(mul)(p.x, z2z2);
    GF u2 = GFN(mul)(q.x, z1z1);
    GF s1 = GFN(mul)(GFN(mul)(p.y, q.z), z2z2);
    GF s2 = GFN(mul)(GFN(mul)(q.y, p.z), z1z1);
    GF h = GFN(sub)(u2, u1);
    GF rr = GFN(dbl)(GFN(sub)(s2, s1));
    if (GFN(is_zero)(h)) return GFN(is_zero)(rr) ? GN(dbl)(p) : GN(inf)();
    GF i = GFN(sqr)(GFN(dbl)(h));
    GF j = GFN(mul)(h, i);
    GF v = GFN(mul)(u1, i);
    G r;
    r.x = GFN(sub)(GFN(sub)(GFN(sqr)(rr), j), GFN(dbl)(v));
    r.y = GFN(sub)(GFN(mul)(rr, GFN(sub)(v, r.x)), GFN(dbl)(GFN(mul)(s1, j)));
    r.z = GFN(mul)(GFN(sub)(GFN(sub)(GFN(sqr)(GFN(add)(p.z, q.z)), z1z1), z2z2), h);
    return r;
}

/* madd-2007-bl (q affine, Z2 = 1): 7M + 4S; the same exceptional cases. */
CZ_FN G GN(add_affine)(G p, GA q)
{
    if (GN(affine_is_inf)(q)) return p;
    if (GN(is_inf)(p)) return GN(from_affine)(q);
    GF z1z1 = GFN(sqr)(p.z);
    GF u2 = GFN(mul)(q.x, z1z1);
    GF s2 = GFN(mul)(GFN(mul)(q.y, p.z), z1z1);
    GF h = GFN(sub)(u2, p.x);
    GF rr = GFN(dbl)(GFN(sub)(s2, p.y));
    if (GFN(is_zero)(h)) return GFN(is_zero)(rr) ? GN(dbl)(p) : GN(inf)();
    GF hh = GFN(sqr)(h);
    GF i = GFN(dbl)(GFN(dbl)(hh));
    GF j = GFN(mul)(h, i);
    GF v = GFN(mul)(p.x, i);
    G r;
    r.x = GFN(sub)(GFN(sub)(GFN(sqr)(rr), j), GFN(dbl)(v));
    r.y = GFN(sub)(GFN(mul)(rr, GFN(sub)(v, r.x)), GFN(dbl)(GFN(mul)(p.y, j)));
    r.z = GFN(sub)(GFN(sub)(GFN(sqr)(GFN(add)(p.z, h)), z1z1), hh);
    return r;
}

#undef GA
#undef GFN
#undef GN
