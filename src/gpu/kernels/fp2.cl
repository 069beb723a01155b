/* Fp2 = Fp[u]/(u^2 + 1), as the CPU library's cuzk_fp2 (c0 + c1*u, c0
 * first in memory).  Results are canonical Fp pairs, so they equal the
 * CPU's limb for limb whatever formula either side uses. */

typedef struct {
    fp c0, c1;
} fp2;

CZ_FN fp2 fp2_zero(void)
{
    fp2 r;
    r.c0 = fp_zero();
    r.c1 = fp_zero();
    return r;
}

CZ_FN fp2 fp2_one(void)
{
    fp2 r;
    r.c0 = fp_one();
    r.c1 = fp_zero();
    return r;
}

CZ_FN fp2 fp2_add(fp2 a, fp2 b)
{
    fp2 r;
    r.c0 = fp_add(a.c0, b.c0);
    r.c1 = fp_add(a.c1, b.c1);
    return r;
}

CZ_FN fp2 fp2_sub(fp2 a, fp2 b)
{
    fp2 r;
    r.c0 = fp_sub(a.c0, b.c0);
    r.c1 = fp_sub(a.c1, b.c1);
    return r;
}

CZ_FN fp2 fp2_dbl(fp2 a)
{
    return fp2_add(a, a);
}

CZ_FN fp2 fp2_neg(fp2 a)
{
    fp2 r;
    r.c0 = fp_neg(a.c0);
    r.c1 = fp_neg(a.c1);
    return r;
}

/* Karatsuba: three Fp products.  (a0 + a1 u)(b0 + b1 u) =
 * (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u. */
CZ_FN fp2 fp2_mul(fp2 a, fp2 b)
{
    fp t0 = fp_mul(a.c0, b.c0);
    fp t1 = fp_mul(a.c1, b.c1);
    fp t2 = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    fp2 r;
    r.c0 = fp_sub(t0, t1);
    r.c1 = fp_sub(fp_sub(t2, t0), t1);
    return r;
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two Fp products. */
CZ_FN fp2 fp2_sqr(fp2 a)
{
    fp2 r;
    r.c0 = fp_mul(fp_add(a.c0, a.c1), fp_sub(a.c0, a.c1));
    r.c1 = fp_dbl(fp_mul(a.c0, a.c1));
    return r;
}

CZ_FN int fp2_is_zero(fp2 a)
{
    return fp_is_zero(a.c0) & fp_is_zero(a.c1);
}

CZ_FN int fp2_eq(fp2 a, fp2 b)
{
    return fp_eq(a.c0, b.c0) & fp_eq(a.c1, b.c1);
}
