/* Constant-time fixed-base scalar multiplication (ec_internal.h).
 *
 * For a base P known in advance (the generators, in test setups) a table of
 * T[i][j] = (j + 1) 2^(w i) P, i < CUZK_EC_FB_WINDOWS, j < 2^(w-1), turns
 * k P into a sum of one table point per w-bit signed digit of k:
 *     k = sum d_i 2^(w i), d_i in [-2^(w-1), 2^(w-1)]
 *     k P = sum sign(d_i) T[i][|d_i| - 1]     (d_i = 0 contributes nothing)
 * so there are no doublings at all: 37 complete mixed additions for w = 7
 * instead of the ~125 doublings + 52 additions of the variable-base ladder.
 *
 * Constant time in k: the recoding uses no branches, every lookup reads all
 * 2^(w-1) entries of its window and keeps one with masks (access pattern
 * independent of the digit), and the additions are the complete
 * constant-time cuzk_g{1,2}_add_affine, which handle the accumulator being
 * the identity, equal to the table point or to its negation.  A zero digit
 * selects no entry, leaving (0, 0), the affine identity.
 *
 * The table itself is built from the public base with the _var operations. */
#include "ec/ec_internal.h"
#include "ff/tower_internal.h"

#define FB_ROW (1u << (CUZK_EC_FB_W - 1)) /* entries per window */

/* ---- recoding --------------------------------------------------------------- */

/* w-bit signed digits of the canonical integer of k (< r < 2^255): digit i
 * is bits [w i, w i + w) plus the carry of digit i - 1, mapped to
 * [-2^(w-1), 2^(w-1)].  CUZK_EC_FB_WINDOWS = ceil(256 / w) digits suffice:
 * the top digit holds at most 255 - w (n - 1) <= w - 1 bits plus a carry,
 * so it never reaches 2^(w-1) + 1 and produces no carry of its own. */
static void recode_fb(int16_t out[CUZK_EC_FB_WINDOWS], const cuzk_fr *k)
{
    uint64_t n[5];
    cuzk_fr_to_limbs(n, k);
    n[4] = 0;
    uint64_t carry = 0;
    for (unsigned i = 0; i < CUZK_EC_FB_WINDOWS; i++) {
        unsigned bit = CUZK_EC_FB_W * i, limb = bit / 64, sh = bit % 64;
        /* the two-limb read is branch free: the shift by 64 - sh is split so
         * that sh = 0 shifts by 63 then 1 (no undefined shift by 64) */
        uint64_t v = (n[limb] >> sh) | ((n[limb + 1] << (63 - sh)) << 1);
        v = (v & ((1u << CUZK_EC_FB_W) - 1)) + carry;
        uint64_t neg = ((uint64_t)FB_ROW - v) >> 63; /* v > 2^(w-1) */
        out[i] = (int16_t)(int64_t)(v - (neg << CUZK_EC_FB_W));
        carry = neg;
    }
    for (int l = 0; l < 4; l++) ((volatile uint64_t *)n)[l] = 0; /* secret */
}

/* ---- constant-time lookups --------------------------------------------------- */

/* abs = |d| in [0, 2^(w-1)], sign = d < 0. */
static inline void digit_split(uint64_t *abs, uint64_t *sign, int16_t d)
{
    *sign = (uint64_t)(uint16_t)d >> 15;
    *abs = (uint64_t)(((int64_t)d ^ -(int64_t)*sign) + (int64_t)*sign);
}

/* mask of all ones iff a == b (a, b < 2^63) */
static inline uint64_t eq_mask(uint64_t a, uint64_t b) { return 0 - (((a ^ b) - 1) >> 63); }

/* out = row[abs - 1] (all zero bytes when abs = 0) for rows of nv 16-byte
 * vectors: every entry is loaded and masked.  The scans were a third of the
 * time with gcc's own vectorization, which kept the accumulators in memory;
 * unrolled over a GCC vector type they stay in SSE registers (G1 batch
 * 19.1 -> 15.4 us per point; 32-byte vectors, even in an AVX2 clone, gained
 * only 1 us more and are much slower on plain x86-64). */
typedef uint64_t fb_v2 __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) void scan_ct(void *out, const void *row, size_t nv,
                                                          uint64_t abs)
{
    fb_v2 acc[12] = {{0}};
    const unsigned char *p = row;
    for (uint64_t j = 0; j < FB_ROW; j++, p += nv * sizeof(fb_v2)) {
        uint64_t m = eq_mask(abs, j + 1);
        fb_v2 mv = {m, m};
#pragma GCC unroll 12
        for (size_t v = 0; v < nv; v++) {
            fb_v2 e;
            __builtin_memcpy(&e, p + v * sizeof e, sizeof e);
            acc[v] |= e & mv;
        }
    }
#pragma GCC unroll 12
    for (size_t v = 0; v < nv; v++)
        __builtin_memcpy((unsigned char *)out + v * sizeof acc[v], &acc[v], sizeof acc[v]);
}

_Static_assert(sizeof(cuzk_g1_affine) == 6 * sizeof(fb_v2), "G1 affine is 96 bytes");
_Static_assert(sizeof(cuzk_g2_affine) == 12 * sizeof(fb_v2), "G2 affine is 192 bytes");

static void g1_lookup(cuzk_g1_affine *r, const cuzk_g1_affine *row, int16_t d)
{
    uint64_t abs, sign;
    digit_split(&abs, &sign, d);
    scan_ct(r, row, 6, abs);
    cuzk_fp ny; /* sign implies d != 0, so y != 0 when it is negated */
    cuzk_fp_neg(&ny, &r->y);
    cuzk_fp_cmov(&r->y, &ny, sign);
}

static void g2_lookup(cuzk_g2_affine *r, const cuzk_g2_affine *row, int16_t d)
{
    uint64_t abs, sign;
    digit_split(&abs, &sign, d);
    scan_ct(r, row, 12, abs);
    cuzk_fp2 ny;
    cuzk_fp2_neg(&ny, &r->y);
    cuzk_fp2_cmov(&r->y, &ny, sign);
}

/* ---- tables (public base, variable time) ------------------------------------ */

void cuzk_g1_fixed_table_var(cuzk_g1_affine *table, const cuzk_g1 *p)
{
    cuzk_g1 row[FB_ROW], base = *p;
    for (unsigned i = 0; i < CUZK_EC_FB_WINDOWS; i++) {
        row[0] = base;
        for (unsigned j = 1; j < FB_ROW; j++) cuzk_g1_add_var(&row[j], &row[j - 1], &base);
        cuzk_g1_batch_to_affine_var(table + (size_t)i * FB_ROW, row, FB_ROW);
        cuzk_g1_dbl(&base, &row[FB_ROW - 1]); /* 2^w base */
    }
}

void cuzk_g2_fixed_table_var(cuzk_g2_affine *table, const cuzk_g2 *p)
{
    cuzk_g2 row[FB_ROW], base = *p;
    for (unsigned i = 0; i < CUZK_EC_FB_WINDOWS; i++) {
        row[0] = base;
        for (unsigned j = 1; j < FB_ROW; j++) cuzk_g2_add_var(&row[j], &row[j - 1], &base);
        cuzk_g2_batch_to_affine_var(table + (size_t)i * FB_ROW, row, FB_ROW);
        cuzk_g2_dbl(&base, &row[FB_ROW - 1]);
    }
}

/* ---- multiplication (constant time in k) ------------------------------------- */

void cuzk_g1_mul_fixed(cuzk_g1 *r, const cuzk_g1_affine *table, const cuzk_fr *k)
{
    int16_t d[CUZK_EC_FB_WINDOWS];
    cuzk_g1_affine t;
    cuzk_g1 acc;
    recode_fb(d, k);
    g1_lookup(&t, table, d[0]);
    cuzk_g1_from_affine(&acc, &t);
    for (unsigned i = 1; i < CUZK_EC_FB_WINDOWS; i++) {
        g1_lookup(&t, table + (size_t)i * FB_ROW, d[i]);
        cuzk_g1_add_affine(&acc, &acc, &t);
    }
    *r = acc;
    for (unsigned i = 0; i < CUZK_EC_FB_WINDOWS; i++) ((volatile int16_t *)d)[i] = 0;
}

void cuzk_g2_mul_fixed(cuzk_g2 *r, const cuzk_g2_affine *table, const cuzk_fr *k)
{
    int16_t d[CUZK_EC_FB_WINDOWS];
    cuzk_g2_affine t;
    cuzk_g2 acc;
    recode_fb(d, k);
    g2_lookup(&t, table, d[0]);
    cuzk_g2_from_affine(&acc, &t);
    for (unsigned i = 1; i < CUZK_EC_FB_WINDOWS; i++) {
        g2_lookup(&t, table + (size_t)i * FB_ROW, d[i]);
        cuzk_g2_add_affine(&acc, &acc, &t);
    }
    *r = acc;
    for (unsigned i = 0; i < CUZK_EC_FB_WINDOWS; i++) ((volatile int16_t *)d)[i] = 0;
}

/* ---- batches in affine coordinates (constant time in the scalars) ------------ */

/* Many scalars against the same table: keep every accumulator in affine
 * coordinates and add the table points with the affine chord rule,
 *     lambda = (y2 - y1) / (x2 - x1),  x3 = lambda^2 - x1 - x2,
 *     y3 = lambda (x1 - x3) - y1,
 * sharing one constant-time inversion per window among FB_BATCH points
 * (Montgomery's trick: 3M each).  About 5M + 2S per addition instead of the
 * 9M + 5S of the complete Jacobian mixed addition.  The exceptional cases are
 * resolved with masks, never branches, so every input costs the same:
 *  - accumulator or table point the identity: the denominator is replaced
 *    by 1 (keeping the shared inversion valid) and the other point selected;
 *  - equal points: the tangent slope 3 x^2 / 2 y (y != 0: no 2-torsion in
 *    the prime-order subgroups, hence the subgroup requirement on P);
 *  - opposite points: the denominator is replaced by 1, the result is the
 *    identity.
 * About 80 KiB (G1) / 140 KiB (G2) of stack. */
#define FB_BATCH 256

static inline uint64_t fp_zero_flag(const cuzk_fp *a) { return cuzk_fp_is_zero(a) ? 1 : 0; }
static inline uint64_t fp2_zero_flag(const cuzk_fp2 *a) { return cuzk_fp2_is_zero(a) ? 1 : 0; }
static inline uint64_t digit_zero(int16_t d) { return ((uint64_t)(uint16_t)d - 1) >> 63; }

static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--) *v++ = 0;
}

static void g1_affine_cmov(cuzk_g1_affine *r, const cuzk_g1_affine *a, uint64_t flag)
{
    cuzk_fp_cmov(&r->x, &a->x, flag);
    cuzk_fp_cmov(&r->y, &a->y, flag);
}

static void g2_affine_cmov(cuzk_g2_affine *r, const cuzk_g2_affine *a, uint64_t flag)
{
    cuzk_fp2_cmov(&r->x, &a->x, flag);
    cuzk_fp2_cmov(&r->y, &a->y, flag);
}

typedef struct {
    int16_t d[FB_BATCH][CUZK_EC_FB_WINDOWS];
    uint64_t inf[FB_BATCH], qinf[FB_BATCH], opp[FB_BATCH];
    cuzk_g1_affine q[FB_BATCH];
    cuzk_fp den[FB_BATCH], num[FB_BATCH], pre[FB_BATCH];
} g1_batch_state;

static void g1_fixed_batch(cuzk_g1_affine *acc, const cuzk_g1_affine *table, const cuzk_fr *k, size_t m,
                           g1_batch_state *st)
{
    for (size_t p = 0; p < m; p++) {
        recode_fb(st->d[p], &k[p]);
        g1_lookup(&acc[p], table, st->d[p][0]);
        st->inf[p] = digit_zero(st->d[p][0]);
    }
    for (unsigned i = 1; i < CUZK_EC_FB_WINDOWS; i++) {
        const cuzk_g1_affine *row = table + (size_t)i * FB_ROW;
        for (size_t p = 0; p < m; p++) {
            cuzk_fp t, u;
            g1_lookup(&st->q[p], row, st->d[p][i]);
            st->qinf[p] = digit_zero(st->d[p][i]);
            fp_sub(&st->den[p], &st->q[p].x, &acc[p].x);
            fp_sub(&st->num[p], &st->q[p].y, &acc[p].y);
            uint64_t dz = fp_zero_flag(&st->den[p]), nz = fp_zero_flag(&st->num[p]);
            uint64_t special = st->inf[p] | st->qinf[p];
            fp_dbl(&t, &acc[p].y); /* tangent: 3 x^2 / 2 y */
            cuzk_fp_cmov(&st->den[p], &t, dz & nz);
            fp_sqr(&t, &acc[p].x);
            fp_dbl(&u, &t);
            fp_add(&u, &u, &t);
            cuzk_fp_cmov(&st->num[p], &u, dz & nz);
            st->opp[p] = dz & (nz ^ 1) & (special ^ 1);
            cuzk_fp_cmov(&st->den[p], &CUZK_FP_ONE, special | st->opp[p]);
            if (p) fp_mul(&st->pre[p], &st->pre[p - 1], &st->den[p]);
            else st->pre[0] = st->den[0];
        }
        cuzk_fp inv;
        cuzk_fp_inv(&inv, &st->pre[m - 1]);
        for (size_t p = m; p-- > 0;) {
            cuzk_fp ip, lam, t;
            cuzk_g1_affine r;
            if (p) {
                fp_mul(&ip, &inv, &st->pre[p - 1]);
                fp_mul(&inv, &inv, &st->den[p]);
            } else {
                ip = inv;
            }
            fp_mul(&lam, &st->num[p], &ip);
            fp_sqr(&t, &lam);
            fp_sub(&t, &t, &acc[p].x);
            fp_sub(&r.x, &t, &st->q[p].x);
            fp_sub(&t, &acc[p].x, &r.x);
            fp_mul(&t, &t, &lam);
            fp_sub(&r.y, &t, &acc[p].y);
            g1_affine_cmov(&r, &st->q[p], st->inf[p]);
            g1_affine_cmov(&r, &acc[p], st->qinf[p] & (st->inf[p] ^ 1));
            cuzk_fp_cmov(&r.x, &CUZK_FP_ZERO, st->opp[p]);
            cuzk_fp_cmov(&r.y, &CUZK_FP_ZERO, st->opp[p]);
            st->inf[p] = (st->inf[p] & st->qinf[p]) | st->opp[p];
            acc[p] = r;
        }
    }
    wipe(st, sizeof *st);
}

typedef struct {
    int16_t d[FB_BATCH][CUZK_EC_FB_WINDOWS];
    uint64_t inf[FB_BATCH], qinf[FB_BATCH], opp[FB_BATCH];
    cuzk_g2_affine q[FB_BATCH];
    cuzk_fp2 den[FB_BATCH], num[FB_BATCH], pre[FB_BATCH];
} g2_batch_state;

static void g2_fixed_batch(cuzk_g2_affine *acc, const cuzk_g2_affine *table, const cuzk_fr *k, size_t m,
                           g2_batch_state *st)
{
    for (size_t p = 0; p < m; p++) {
        recode_fb(st->d[p], &k[p]);
        g2_lookup(&acc[p], table, st->d[p][0]);
        st->inf[p] = digit_zero(st->d[p][0]);
    }
    for (unsigned i = 1; i < CUZK_EC_FB_WINDOWS; i++) {
        const cuzk_g2_affine *row = table + (size_t)i * FB_ROW;
        for (size_t p = 0; p < m; p++) {
            cuzk_fp2 t, u;
            g2_lookup(&st->q[p], row, st->d[p][i]);
            st->qinf[p] = digit_zero(st->d[p][i]);
            fp2_sub(&st->den[p], &st->q[p].x, &acc[p].x);
            fp2_sub(&st->num[p], &st->q[p].y, &acc[p].y);
            uint64_t dz = fp2_zero_flag(&st->den[p]), nz = fp2_zero_flag(&st->num[p]);
            uint64_t special = st->inf[p] | st->qinf[p];
            fp2_dbl(&t, &acc[p].y);
            cuzk_fp2_cmov(&st->den[p], &t, dz & nz);
            fp2_sqr(&t, &acc[p].x);
            fp2_dbl(&u, &t);
            fp2_add(&u, &u, &t);
            cuzk_fp2_cmov(&st->num[p], &u, dz & nz);
            st->opp[p] = dz & (nz ^ 1) & (special ^ 1);
            cuzk_fp2_cmov(&st->den[p], &CUZK_FP2_ONE, special | st->opp[p]);
            if (p) fp2_mul(&st->pre[p], &st->pre[p - 1], &st->den[p]);
            else st->pre[0] = st->den[0];
        }
        cuzk_fp2 inv;
        cuzk_fp2_inv(&inv, &st->pre[m - 1]);
        for (size_t p = m; p-- > 0;) {
            cuzk_fp2 ip, lam, t;
            cuzk_g2_affine r;
            if (p) {
                fp2_mul(&ip, &inv, &st->pre[p - 1]);
                fp2_mul(&inv, &inv, &st->den[p]);
            } else {
                ip = inv;
            }
            fp2_mul(&lam, &st->num[p], &ip);
            fp2_sqr(&t, &lam);
            fp2_sub(&t, &t, &acc[p].x);
            fp2_sub(&r.x, &t, &st->q[p].x);
            fp2_sub(&t, &acc[p].x, &r.x);
            fp2_mul(&t, &t, &lam);
            fp2_sub(&r.y, &t, &acc[p].y);
            g2_affine_cmov(&r, &st->q[p], st->inf[p]);
            g2_affine_cmov(&r, &acc[p], st->qinf[p] & (st->inf[p] ^ 1));
            cuzk_fp2_cmov(&r.x, &CUZK_FP2_ZERO, st->opp[p]);
            cuzk_fp2_cmov(&r.y, &CUZK_FP2_ZERO, st->opp[p]);
            st->inf[p] = (st->inf[p] & st->qinf[p]) | st->opp[p];
            acc[p] = r;
        }
    }
    wipe(st, sizeof *st);
}

size_t cuzk_g1_mul_fixed_batch_scratch_size(void) { return sizeof(g1_batch_state); }
size_t cuzk_g2_mul_fixed_batch_scratch_size(void) { return sizeof(g2_batch_state); }

void cuzk_g1_mul_fixed_batch(cuzk_g1_affine *out, const cuzk_g1_affine *table, const cuzk_fr *k, size_t n,
                             void *scratch)
{
    for (size_t lo = 0; lo < n; lo += FB_BATCH)
        g1_fixed_batch(out + lo, table, k + lo, n - lo < FB_BATCH ? n - lo : FB_BATCH, scratch);
}

void cuzk_g2_mul_fixed_batch(cuzk_g2_affine *out, const cuzk_g2_affine *table, const cuzk_fr *k, size_t n,
                             void *scratch)
{
    for (size_t lo = 0; lo < n; lo += FB_BATCH)
        g2_fixed_batch(out + lo, table, k + lo, n - lo < FB_BATCH ? n - lo : FB_BATCH, scratch);
}
