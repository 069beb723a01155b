/* Modular inversion by Bernstein-Yang "safegcd" divsteps, for odd moduli of
 * up to 6 64-bit limbs (Fp: 381 bits, Fr: 255 bits).
 *
 * Why: Fermat inversion costs ~1.2 multiplications per modulus bit; divsteps
 * on 62-bit batches cost a few cheap word operations per bit plus a small
 * matrix product per batch, several times faster, and the batched form is
 * naturally constant time.
 *
 * Method (Bernstein & Yang, "Fast constant-time gcd computation and modular
 * inversion", 2019):  f = m, g = x, delta = 1; a divstep is
 *   delta > 0 and g odd:  (delta, f, g) <- (1 - delta, g, (g - f) / 2)
 *   g odd otherwise:      (delta, f, g) <- (1 + delta, f, (g + f) / 2)
 *   g even:               (delta, f, g) <- (1 + delta, f, g / 2)
 * Theorem 11.2 of the paper: for 0 <= g <= f < 2^b (b >= 46) g reaches 0
 * within floor((49b + 57) / 17) steps, and then f = +-gcd = +-1.  Each
 * batch of 62 steps only looks at the low 64 bits of f and g and yields a
 * matrix T with 2^62 * (f', g') = T * (f, g); T is then applied to the full
 * f, g and to d, e (which track d*x = f, e*x = g mod m, so d = +-x^-1 at
 * the end).  The division of d, e by 2^62 is done modulo m by first adding
 * the multiple of m that clears their low 62 bits.
 *
 * Numbers are held as signed 62-bit limbs: limbs 0..n-2 in [0, 2^62), the
 * top limb signed; int128 accumulators never overflow because every matrix
 * entry has magnitude <= 2^62. */
#include <stdint.h>
#include <string.h>

#include "ff/field_internal.h"

#define M62 ((uint64_t)-1 >> 2)
#define N62_MAX 7

typedef __int128 i128;

struct sg_mod {
    int n;                   /* signed 62-bit limbs */
    int64_t m[N62_MAX];
    uint64_t minv62;         /* m^-1 mod 2^62 */
};

/* 62 divsteps on the low words of f, g; returns the new delta and the
 * transition matrix t = (u, v, q, r) scaled by 2^62.  Branch free. */
static int64_t divsteps_62(int64_t delta, uint64_t f, uint64_t g, int64_t t[4])
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    for (int i = 0; i < 62; i++) {
        uint64_t godd = 0 - (g & 1);
        uint64_t dpos = (uint64_t)((int64_t)(0 - (uint64_t)delta) >> 63);
        uint64_t swap = godd & dpos;
        uint64_t x;
        /* on swap: (delta, f, g, u, v, q, r) <- (-delta, g, -f, q, r, -u, -v) */
        delta = (int64_t)(((uint64_t)delta ^ swap) - swap);
        x = (f ^ g) & swap, f ^= x, g ^= x, g = (g ^ swap) - swap;
        x = (u ^ q) & swap, u ^= x, q ^= x, q = (q ^ swap) - swap;
        x = (v ^ r) & swap, v ^= x, r ^= x, r = (r ^ swap) - swap;
        /* if g odd: g += f (now g + f or g - f); then halve g, double f's row */
        g += f & godd, q += u & godd, r += v & godd;
        g >>= 1, u <<= 1, v <<= 1;
        delta += 1;
    }
    t[0] = (int64_t)u, t[1] = (int64_t)v, t[2] = (int64_t)q, t[3] = (int64_t)r;
    return delta;
}

/* Variable-time version: skips runs of even g with one shift. */
static int64_t divsteps_62_var(int64_t delta, uint64_t f, uint64_t g, int64_t t[4])
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    int left = 62;
    for (;;) {
        int z = g ? __builtin_ctzll(g) : left;
        if (z > left) z = left;
        g >>= z, u <<= z, v <<= z;
        delta += z;
        left -= z;
        if (!left) break;
        /* g is odd here */
        if (delta > 0) {
            uint64_t x;
            delta = -delta;
            x = f, f = g, g = 0 - x;
            x = u, u = q, q = 0 - x;
            x = v, v = r, r = 0 - x;
        }
        g += f, q += u, r += v;
        g >>= 1, u <<= 1, v <<= 1;
        delta += 1;
        left -= 1;
        if (!left) break;
    }
    t[0] = (int64_t)u, t[1] = (int64_t)v, t[2] = (int64_t)q, t[3] = (int64_t)r;
    return delta;
}

/* (f, g) <- (u f + v g, q f + r g) / 2^62, exact. */
static void update_fg(int64_t *f, int64_t *g, const int64_t t[4], int n)
{
    i128 cf = (i128)t[0] * f[0] + (i128)t[1] * g[0];
    i128 cg = (i128)t[2] * f[0] + (i128)t[3] * g[0];
    cf >>= 62, cg >>= 62;
    for (int i = 1; i < n; i++) {
        cf += (i128)t[0] * f[i] + (i128)t[1] * g[i];
        cg += (i128)t[2] * f[i] + (i128)t[3] * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & M62);
        g[i - 1] = (int64_t)((uint64_t)cg & M62);
        cf >>= 62, cg >>= 62;
    }
    f[n - 1] = (int64_t)cf;
    g[n - 1] = (int64_t)cg;
}

/* (d, e) <- (u d + v e, q d + r e) / 2^62 mod m.  Pre: d, e in (-2m, m);
 * post: the same range.  Adding m to a negative d/e (through the md, me
 * multipliers) makes the operands lie in (-m, m); the further multiple of
 * m that clears the low 62 bits is in (-2^62 m, 0]. */
static void update_de(int64_t *d, int64_t *e, const int64_t t[4], const struct sg_mod *m)
{
    int n = m->n;
    int64_t u = t[0], v = t[1], q = t[2], r = t[3];
    int64_t sd = d[n - 1] >> 63, se = e[n - 1] >> 63;
    int64_t md = (u & sd) + (v & se), me = (q & sd) + (r & se);
    i128 cd = (i128)u * d[0] + (i128)v * e[0];
    i128 ce = (i128)q * d[0] + (i128)r * e[0];
    md -= (int64_t)((m->minv62 * (uint64_t)cd + (uint64_t)md) & M62);
    me -= (int64_t)((m->minv62 * (uint64_t)ce + (uint64_t)me) & M62);
    cd += (i128)m->m[0] * md;
    ce += (i128)m->m[0] * me;
    cd >>= 62, ce >>= 62;
    for (int i = 1; i < n; i++) {
        cd += (i128)u * d[i] + (i128)v * e[i] + (i128)m->m[i] * md;
        ce += (i128)q * d[i] + (i128)r * e[i] + (i128)m->m[i] * me;
        d[i - 1] = (int64_t)((uint64_t)cd & M62);
        e[i - 1] = (int64_t)((uint64_t)ce & M62);
        cd >>= 62, ce >>= 62;
    }
    d[n - 1] = (int64_t)cd;
    e[n - 1] = (int64_t)ce;
}

/* Carry-normalize signed limbs: limbs 0..n-2 into [0, 2^62). */
static void normalize(int64_t *a, int n)
{
    int64_t c = 0;
    for (int i = 0; i < n - 1; i++) {
        c += a[i];
        a[i] = (int64_t)((uint64_t)c & M62);
        c >>= 62;
    }
    a[n - 1] += c;
}

/* a += m if a < 0 (constant time). */
static void add_m_if_negative(int64_t *a, const struct sg_mod *m)
{
    int64_t s = a[m->n - 1] >> 63;
    for (int i = 0; i < m->n; i++) a[i] += m->m[i] & s;
    normalize(a, m->n);
}

static void to_s62(int64_t *out, const uint64_t *a, int n64, int n62)
{
    for (int i = 0; i < n62; i++) {
        int bit = 62 * i, w = bit / 64, sh = bit % 64;
        uint64_t x = w < n64 ? a[w] >> sh : 0;
        if (sh > 2 && w + 1 < n64) x |= a[w + 1] << (64 - sh);
        out[i] = (int64_t)(x & M62);
    }
}

static void from_s62(uint64_t *out, const int64_t *a, int n64, int n62)
{
    memset(out, 0, 8 * (size_t)n64);
    for (int i = 0; i < n62; i++) {
        int bit = 62 * i, w = bit / 64, sh = bit % 64;
        uint64_t x = (uint64_t)a[i];
        if (w < n64) out[w] |= x << sh;
        if (sh > 2 && w + 1 < n64) out[w + 1] |= x >> (64 - sh);
    }
}

static void sg_setup(struct sg_mod *m, const uint64_t *mod, int n64, int n62)
{
    m->n = n62;
    to_s62(m->m, mod, n64, n62);
    /* Newton: x <- x(2 - m x) doubles the correct low bits; m*m = 1 mod 8 */
    uint64_t x = mod[0];
    for (int i = 0; i < 5; i++) x *= 2 - mod[0] * x;
    m->minv62 = x & M62;
}

/* r = x^-1 mod m (canonical integers, n64 limbs, x < m; 0 maps to 0).
 * batches * 62 must reach the divstep bound for the modulus size.  With
 * var != 0 the divsteps are variable time and the loop stops once g = 0. */
static void sg_inverse(uint64_t *r, const uint64_t *x, const uint64_t *mod, int n64, int n62,
                       int batches, int var)
{
    struct sg_mod m;
    int64_t f[N62_MAX], g[N62_MAX], d[N62_MAX] = {0}, e[N62_MAX] = {0}, t[4];
    sg_setup(&m, mod, n64, n62);
    memcpy(f, m.m, sizeof f);
    to_s62(g, x, n64, n62);
    e[0] = 1;
    int64_t delta = 1;
    for (int b = 0; b < batches; b++) {
        uint64_t flo = (uint64_t)f[0] | (uint64_t)f[1] << 62;
        uint64_t glo = (uint64_t)g[0] | (uint64_t)g[1] << 62;
        if (var) {
            delta = divsteps_62_var(delta, flo, glo, t);
        } else {
            delta = divsteps_62(delta, flo, glo, t);
        }
        update_fg(f, g, t, n62);
        update_de(d, e, t, &m);
        if (var) {
            int64_t nz = 0;
            for (int i = 0; i < n62; i++) nz |= g[i];
            if (!nz) break;
        }
    }
    /* f = +-1 (or m when x = 0, where d = 0 anyway): d*x = f, so x^-1 = d*f.
     * Negate d when f < 0, then bring (-2m, 2m) into [0, m). */
    int64_t neg = f[n62 - 1] >> 63;
    for (int i = 0; i < n62; i++) d[i] = (d[i] ^ neg) - neg;
    normalize(d, n62);
    add_m_if_negative(d, &m);
    add_m_if_negative(d, &m);
    int64_t s[N62_MAX];
    for (int i = 0; i < n62; i++) s[i] = d[i] - m.m[i];
    normalize(s, n62);
    int64_t keep = s[n62 - 1] >> 63;   /* d - m < 0: keep d */
    for (int i = 0; i < n62; i++) d[i] = (d[i] & keep) | (s[i] & ~keep);
    from_s62(r, d, n64, n62);
}

/* Divstep bounds: Fp (b = 381) 1101 -> 18 batches; Fr (b = 255) 738 -> 12. */
void cuzk_fp_inverse_int(uint64_t r[6], const uint64_t x[6], int var)
{
    sg_inverse(r, x, CUZK_FP_MODULUS, 6, 7, 18, var);
}

void cuzk_fr_inverse_int(uint64_t r[4], const uint64_t x[4], int var)
{
    sg_inverse(r, x, CUZK_FR_MODULUS, 4, 5, 12, var);
}
