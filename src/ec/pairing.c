/* Optimal ate pairing on BLS12-381.
 *
 * Miller loop.  G2 is the M-type sextic twist E': y^2 = x^3 + 4 xi, mapped
 * into E(Fp12) by psi(x', y') = (x' w^-2, y' w^-3) (w^6 = xi).  A line with
 * slope lambda' (on E') through a point (x', y') of E', evaluated at
 * P = (xP, yP) in E(Fp) and multiplied by w^3, is
 *     (lambda' x' - y') - lambda' xP w^2 + yP w^3,
 * i.e. nonzero only in the coefficients of w^0, w^2 = v and w^3 = v w
 * (cuzk_fp12_mul_by_line, 13 Fp2 products).  The factor w^3 and any Fp2
 * factor of a line lie in proper subfields and are killed by the final
 * exponentiation, so lines are used up to such factors and sign.
 *
 * T runs in homogeneous projective coordinates (x' = X/Z, y' = Y/Z) on E',
 * b' = 4 xi:
 *  doubling (Costello-Lange-Naehrig, eprint 2009/615, section 4 shape):
 *    A = XY/2, B = Y^2, C = Z^2, E = 3b'C, F = 3E, G = (B + F)/2,
 *    H = (Y + Z)^2 - B - C (= 2YZ), J = X^2;
 *    2T = (A (B - F), G^2 - 3E^2, B H);
 *    line * 2YZ = (B - E) - 3J xP w^2 + H yP w^3, using Y^2 Z = X^3 + b'Z^3;
 *    we store its negative (E - B, 3J xP, -H yP).
 *  mixed addition with affine Q = (xQ, yQ):
 *    t = Y - yQ Z, l = X - xQ Z (slope = t / l), C = t^2, D = l^2,
 *    E = l D, F = Z C, G = X D, H = E + F - 2G;
 *    T + Q = (l H, t (G - H) - Y E, Z E);
 *    line * l = (t xQ - l yQ) - t xP w^2 + l yP w^3.
 * The loop runs over |x| = 0xd201000000010000 from the top bit down; x < 0
 * so the result is conjugated at the end (f^-1 and conj(f) differ by an
 * Fp6 factor, which the final exponentiation kills).
 *
 * Final exponentiation f^(3 (p^12 - 1)/r) (the cube of the textbook map,
 * still a non-degenerate bilinear pairing since 3 does not divide r):
 *  easy part f^((p^6 - 1)(p^2 + 1)) = frob2(conj(f)/f) * conj(f)/f, with
 *  the variable-time inversion (inputs are public);
 *  hard part: the result lies in the cyclotomic subgroup, where we raise to
 *  3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
 *  (Hayashida-Hayasaka-Teruya, eprint 2020/875; checked in Python as an
 *  integer identity).  This is the same multiple of the exact exponent that
 *  blst, zkcrypto and @noble/curves use, so values match their GT.  Each
 *  power of x is a 64-bit chain of cyclotomic squarings (Granger-Scott;
 *  compressed ones for the long runs, see cyclotomic_exp_x) and 5 products;
 *  x < 0 means g^x = conj(g^|x|). */
#include "cuzk/pairing.h"
#include "ff/tower_internal.h"

#define X_ABS 0xd201000000010000ull

static void fp2_half(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    fp_half(&r->c0, &a->c0);
    fp_half(&r->c1, &a->c1);
}

/* r = 3 b' a = 12 xi a. */
static void fp2_mul_3b(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp2 t, t4;
    fp2_mul_xi(&t, a);
    fp2_dbl(&t4, &t);
    fp2_dbl(&t4, &t4);      /* 4 */
    fp2_dbl(&t, &t4);       /* 8 */
    fp2_add(r, &t, &t4);    /* 12 */
}

/* Infinity is (0, 0) in affine form (ec.h). */
static bool g1_affine_is_inf(const cuzk_g1_affine *p)
{
    return fp_is_zero(&p->x) & fp_is_zero(&p->y);
}

static bool g2_affine_is_inf(const cuzk_g2_affine *q)
{
    return cuzk_fp2_is_zero(&q->x) & cuzk_fp2_is_zero(&q->y);
}

typedef struct { cuzk_fp2 x, y, z; } g2_proj;

/* Per-pair state of the Miller loop. */
typedef struct {
    g2_proj t;
    cuzk_fp2 qx, qy;
    cuzk_fp px, px3, neg_py;   /* xP, 3 xP, -yP */
} miller_pair;

/* T = 2T; line coefficients (l0, l1, l3) evaluated at P. */
static void dbl_step(cuzk_fp2 *l0, cuzk_fp2 *l1, cuzk_fp2 *l3, miller_pair *s)
{
    g2_proj *T = &s->t;
    cuzk_fp2 A, B, C, E, F, G, H, J, t;
    fp2_mul(&A, &T->x, &T->y);
    fp2_half(&A, &A);
    fp2_sqr(&B, &T->y);
    fp2_sqr(&C, &T->z);
    fp2_mul_3b(&E, &C);
    fp2_dbl(&F, &E);
    fp2_add(&F, &F, &E);
    fp2_add(&G, &B, &F);
    fp2_half(&G, &G);
    fp2_add(&H, &T->y, &T->z);
    fp2_sqr(&H, &H);
    fp2_add(&t, &B, &C);
    fp2_sub(&H, &H, &t);
    fp2_sqr(&J, &T->x);

    /* line */
    fp2_sub(l0, &E, &B);
    fp2_mul_fp(l1, &J, &s->px3);
    fp2_mul_fp(l3, &H, &s->neg_py);

    /* point; Y3 = G^2 - 3E^2 is combined unreduced (one reduction pair) */
    fp2_sub(&t, &B, &F);
    fp2_mul(&T->x, &A, &t);
    fp2_wide gw, ew;
    fp2_sqr_wide(&gw, &G);
    fp2_sqr_wide(&ew, &E);
    fp2_wide_sub(&gw, &gw, &ew);
    fp2_wide_sub(&gw, &gw, &ew);
    fp2_wide_sub(&gw, &gw, &ew);
    fp2_redc(&T->y, &gw);
    fp2_mul(&T->z, &B, &H);
}

/* T = T + Q; line coefficients at P (same sign convention as dbl_step:
 * the negative of the derivation above). */
static void add_step(cuzk_fp2 *l0, cuzk_fp2 *l1, cuzk_fp2 *l3, miller_pair *s)
{
    g2_proj *T = &s->t;
    cuzk_fp2 th, la, C, D, E, F, G, H, t;
    fp2_mul(&t, &s->qy, &T->z);
    fp2_sub(&th, &T->y, &t);
    fp2_mul(&t, &s->qx, &T->z);
    fp2_sub(&la, &T->x, &t);

    /* line: -(t xQ - l yQ) = l yQ - t xQ, t xP, -l yP */
    fp2_mul(l0, &la, &s->qy);
    fp2_mul(&t, &th, &s->qx);
    fp2_sub(l0, l0, &t);
    fp2_mul_fp(l1, &th, &s->px);
    fp2_mul_fp(l3, &la, &s->neg_py);

    fp2_sqr(&C, &th);
    fp2_sqr(&D, &la);
    fp2_mul(&E, &la, &D);
    fp2_mul(&F, &T->z, &C);
    fp2_mul(&G, &T->x, &D);
    fp2_add(&H, &E, &F);
    fp2_dbl(&t, &G);
    fp2_sub(&H, &H, &t);
    fp2_mul(&T->x, &la, &H);
    fp2_sub(&t, &G, &H);
    fp2_mul(&t, &th, &t);
    fp2_mul(&G, &T->y, &E);
    fp2_sub(&T->y, &t, &G);
    fp2_mul(&T->z, &T->z, &E);
}

/* Upper bound on pairs processed together; larger inputs are chunked. */
#define MILLER_CHUNK 16

static void miller_chunk(cuzk_fp12 *f, const cuzk_g2_affine *q, const cuzk_g1_affine *p,
                         size_t n)
{
    miller_pair st[MILLER_CHUNK];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (g1_affine_is_inf(&p[i]) || g2_affine_is_inf(&q[i])) continue;
        miller_pair *s = &st[m++];
        s->qx = q[i].x;
        s->qy = q[i].y;
        s->t.x = q[i].x;
        s->t.y = q[i].y;
        s->t.z = CUZK_FP2_ONE;
        s->px = p[i].x;
        fp_dbl(&s->px3, &p[i].x);
        fp_add(&s->px3, &s->px3, &p[i].x);
        fp_neg(&s->neg_py, &p[i].y);
    }
    *f = CUZK_FP12_ONE;
    if (m == 0) return;

    cuzk_fp2 l0, l1, l3;
    for (int b = 62; b >= 0; b--) {
        if (b != 62) cuzk_fp12_sqr(f, f);   /* f = 1 before the first step */
        for (size_t j = 0; j < m; j++) {
            dbl_step(&l0, &l1, &l3, &st[j]);
            if (b == 62 && j == 0) {        /* 1 * line = the line itself */
                *f = (cuzk_fp12){{l0, l1, CUZK_FP2_ZERO}, {CUZK_FP2_ZERO, l3, CUZK_FP2_ZERO}};
                continue;
            }
            cuzk_fp12_mul_by_line(f, &l0, &l1, &l3);
        }
        if ((X_ABS >> b) & 1) {
            for (size_t j = 0; j < m; j++) {
                add_step(&l0, &l1, &l3, &st[j]);
                cuzk_fp12_mul_by_line(f, &l0, &l1, &l3);
            }
        }
    }
    cuzk_fp12_conj(f, f);
}

void cuzk_miller_loop_n(cuzk_fp12 *r, const cuzk_g2_affine *q, const cuzk_g1_affine *p, size_t n)
{
    cuzk_fp12 acc = CUZK_FP12_ONE, f;
    for (size_t i = 0; i < n; i += MILLER_CHUNK) {
        size_t k = n - i < MILLER_CHUNK ? n - i : MILLER_CHUNK;
        miller_chunk(&f, q + i, p + i, k);
        cuzk_fp12_mul(&acc, &acc, &f);
    }
    *r = acc;
}

void cuzk_miller_loop(cuzk_fp12 *r, const cuzk_g2_affine *q, const cuzk_g1_affine *p)
{
    miller_chunk(r, q, p, 1);
}

/* Runs of at least this many squarings between set bits of |x| are done
 * compressed: a decompression (one Fp2 inversion and ~10 Fp2 products)
 * costs about as much as 10 saved Fp4 squarings.  See perf-notes. */
#ifndef CYC_COMPRESS_MIN
#define CYC_COMPRESS_MIN 12
#endif

/* r = a^x for a in the cyclotomic subgroup (x < 0: conj of a^|x|).
 * Left to right over |x| = 2^63 + 2^62 + 2^60 + 2^57 + 2^48 + 2^16: the
 * short runs use Granger-Scott squarings, the runs of 9, 32 and 16
 * squarings before bits 48, 16 and 0 the compressed ones. */
static void cyclotomic_exp_x(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp12 acc = *a;
    int b = 62;
    while (b >= 0) {
        int s = b;                      /* next set bit at or below b, or 0 */
        while (s > 0 && !((X_ABS >> s) & 1)) s--;
        int k = b - s + 1;              /* squarings for bits b..s */
        int done = 0;
        if (k >= CYC_COMPRESS_MIN) {
            cuzk_fp2 z[4] = {acc.c1.c0, acc.c0.c2, acc.c0.c1, acc.c1.c2};
            for (int i = 0; i < k; i++) cuzk_tower_fp12_cyc_sqr_compressed(z);
            done = cuzk_tower_fp12_cyc_decompress(&acc, z);
        }
        if (!done)
            for (int i = 0; i < k; i++) cuzk_fp12_cyclotomic_sqr(&acc, &acc);
        if ((X_ABS >> s) & 1) cuzk_fp12_mul(&acc, &acc, a);
        b = s - 1;
    }
    cuzk_fp12_conj(r, &acc);
}

void cuzk_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f)
{
    cuzk_fp12 g, t0, t1, t2;
    /* easy part */
    cuzk_tower_fp12_inv(&t0, f, 1);   /* public data: variable-time inversion */
    cuzk_fp12_conj(&g, f);
    cuzk_fp12_mul(&g, &g, &t0);
    cuzk_fp12_frobenius(&t0, &g, 2);
    cuzk_fp12_mul(&g, &g, &t0);

    /* hard part: g^((x-1)^2 (x+p)(x^2+p^2-1) + 3) */
    cyclotomic_exp_x(&t0, &g);          /* g^(x-1) */
    cuzk_fp12_conj(&t1, &g);
    cuzk_fp12_mul(&t0, &t0, &t1);
    cyclotomic_exp_x(&t1, &t0);         /* g^((x-1)^2) */
    cuzk_fp12_conj(&t0, &t0);
    cuzk_fp12_mul(&t0, &t1, &t0);
    cyclotomic_exp_x(&t1, &t0);         /* ^(x+p) */
    cuzk_fp12_frobenius(&t2, &t0, 1);
    cuzk_fp12_mul(&t0, &t1, &t2);
    cyclotomic_exp_x(&t1, &t0);         /* ^(x^2+p^2-1) */
    cyclotomic_exp_x(&t1, &t1);
    cuzk_fp12_frobenius(&t2, &t0, 2);
    cuzk_fp12_mul(&t1, &t1, &t2);
    cuzk_fp12_conj(&t0, &t0);
    cuzk_fp12_mul(&t0, &t1, &t0);
    cuzk_fp12_cyclotomic_sqr(&t1, &g);  /* * g^3 */
    cuzk_fp12_mul(&t1, &t1, &g);
    cuzk_fp12_mul(r, &t0, &t1);
}

void cuzk_pairing(cuzk_fp12 *r, const cuzk_g1_affine *p, const cuzk_g2_affine *q)
{
    cuzk_fp12 f;
    cuzk_miller_loop(&f, q, p);
    cuzk_final_exp(r, &f);
}

bool cuzk_pairing_product_is_one(const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n)
{
    cuzk_fp12 f;
    cuzk_miller_loop_n(&f, q, p, n);
    cuzk_final_exp(&f, &f);
    return cuzk_fp12_is_one(&f);
}
