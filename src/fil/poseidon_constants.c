/* Poseidon constants, generated exactly as neptune does at run time
 * (round_constants.rs, mds.rs, preprocessing.rs), once per arity.
 *
 * Everything here runs once per process and arity on public data, so it is
 * written for clarity: dense matrices, Gauss-Jordan inversion.  The inverse
 * of a matrix is unique, so any correct elimination reproduces neptune's
 * values; the known-answer tests compare all of them with the constants
 * supraseal ships (shared/data/poseidon). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/status.h"
#include "ff/verify.h"
#include "poseidon_internal.h"

static const size_t k_arities[] = {2, 4, 8, 11, 16, 24, 36};
static const size_t k_partial[] = {55, 56, 57, 57, 59, 59, 60};
#define N_ARITIES (sizeof k_arities / sizeof k_arities[0])

int cuzk_poseidon_arity_index(size_t arity)
{
    for (size_t i = 0; i < N_ARITIES; i++)
        if (k_arities[i] == arity) return (int)i;
    return -1;
}

bool cuzk_poseidon_arity_supported(size_t arity) { return cuzk_poseidon_arity_index(arity) >= 0; }

size_t cuzk_poseidon_partial_rounds(size_t arity)
{
    int i = cuzk_poseidon_arity_index(arity);
    return i < 0 ? 0 : k_partial[i];
}

/* ---- Grain LFSR (Poseidon paper, appendix F; neptune round_constants.rs) - */
typedef struct {
    uint8_t s[80]; /* s[0] is the oldest bit */
} grain;

static int grain_step(grain *g)
{
    int nb = g->s[62] ^ g->s[51] ^ g->s[38] ^ g->s[23] ^ g->s[13] ^ g->s[0];
    memmove(g->s, g->s + 1, 79);
    g->s[79] = (uint8_t)nb;
    return nb;
}

/* Self-shrinking: take bit pairs, output the second when the first is 1. */
static int grain_bit(grain *g)
{
    for (;;) {
        int first = grain_step(g);
        int second = grain_step(g);
        if (first) return second;
    }
}

static void grain_put(grain *g, size_t *pos, unsigned nbits, uint64_t v)
{
    for (unsigned i = nbits; i-- > 0;) g->s[(*pos)++] = (uint8_t)((v >> i) & 1);
}

void cuzk_poseidon_grain_constants(cuzk_fr *out, size_t t, size_t rf, size_t rp)
{
    grain g;
    size_t pos = 0;
    grain_put(&g, &pos, 2, 1);      /* prime field */
    grain_put(&g, &pos, 4, 1);      /* S-box x^alpha */
    grain_put(&g, &pos, 12, 255);   /* field size n */
    grain_put(&g, &pos, 12, t);
    grain_put(&g, &pos, 10, rf);
    grain_put(&g, &pos, 10, rp);
    grain_put(&g, &pos, 30, (1u << 30) - 1);
    for (int i = 0; i < 160; i++) grain_step(&g);

    size_t n = t * (rf + rp);
    for (size_t k = 0; k < n;) {
        /* 255 bits, most significant first; reject values >= r. */
        uint64_t limbs[4] = {0, 0, 0, 0};
        for (int bit = 254; bit >= 0; bit--)
            if (grain_bit(&g)) limbs[bit / 64] |= (uint64_t)1 << (bit % 64);
        if (cuzk_fr_from_limbs(&out[k], limbs) == CUZK_OK) k++;
    }
}

/* ---- small dense matrix helpers (row-major n x n) ----------------------- */
static void mat_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            cuzk_fr acc = CUZK_FR_ZERO, tmp;
            for (size_t k = 0; k < n; k++) {
                cuzk_fr_mul(&tmp, &a[i * n + k], &b[k * n + j]);
                cuzk_fr_add(&acc, &acc, &tmp);
            }
            r[i * n + j] = acc;
        }
}

/* r = m * v (v a column vector); r must not alias v. */
static void mat_apply(cuzk_fr *r, const cuzk_fr *m, const cuzk_fr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cuzk_fr acc = CUZK_FR_ZERO, tmp;
        for (size_t k = 0; k < n; k++) {
            cuzk_fr_mul(&tmp, &m[i * n + k], &v[k]);
            cuzk_fr_add(&acc, &acc, &tmp);
        }
        r[i] = acc;
    }
}

/* Gauss-Jordan; `work` holds n*n scratch.  Returns false if singular. */
static bool mat_inv(cuzk_fr *r, const cuzk_fr *a, cuzk_fr *work, size_t n)
{
    memcpy(work, a, n * n * sizeof *work);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) r[i * n + j] = i == j ? CUZK_FR_ONE : CUZK_FR_ZERO;
    for (size_t c = 0; c < n; c++) {
        size_t p = c;
        while (p < n && cuzk_fr_is_zero(&work[p * n + c])) p++;
        if (p == n) return false;
        if (p != c)
            for (size_t j = 0; j < n; j++) {
                cuzk_fr t1 = work[p * n + j], t2 = r[p * n + j];
                work[p * n + j] = work[c * n + j], r[p * n + j] = r[c * n + j];
                work[c * n + j] = t1, r[c * n + j] = t2;
            }
        cuzk_fr inv;
        cuzk_fr_inv_var(&inv, &work[c * n + c]);
        for (size_t j = 0; j < n; j++) {
            cuzk_fr_mul(&work[c * n + j], &work[c * n + j], &inv);
            cuzk_fr_mul(&r[c * n + j], &r[c * n + j], &inv);
        }
        for (size_t i = 0; i < n; i++) {
            if (i == c || cuzk_fr_is_zero(&work[i * n + c])) continue;
            cuzk_fr f = work[i * n + c], tmp;
            for (size_t j = 0; j < n; j++) {
                cuzk_fr_mul(&tmp, &f, &work[c * n + j]);
                cuzk_fr_sub(&work[i * n + j], &work[i * n + j], &tmp);
                cuzk_fr_mul(&tmp, &f, &r[c * n + j]);
                cuzk_fr_sub(&r[i * n + j], &r[i * n + j], &tmp);
            }
        }
    }
    return true;
}

/* ---- neptune's optimizations --------------------------------------------- */
/* compress_round_constants with every partial round preprocessed: round
 * keys are pushed back through the linear layers so that each round adds
 * constants only after its S-boxes, and a partial round adds one. */
static void compress_constants(cuzk_fr *res, const cuzk_fr *rc, const cuzk_fr *m_inv,
                               size_t t, size_t rf, size_t rp, cuzk_fr *tmp)
{
    size_t half = rf / 2, k = 0;
#define RK(r) (rc + (r) * t)
    memcpy(res + k, RK(0), t * sizeof *res), k += t;
    for (size_t i = 0; i + 1 < half; i++) mat_apply(res + k, m_inv, RK(i + 1), t), k += t;

    /* Walk the partial rounds backwards from the first key of the second
     * full half: invert through M, keep component 0 as that partial round's
     * single key, fold the rest into the previous round's keys. */
    cuzk_fr *acc = tmp, *inv = tmp + t;
    cuzk_fr *partial_keys = res + k + t; /* filled from the back */
    size_t final_round = half + rp;
    memcpy(acc, RK(final_round), t * sizeof *acc);
    for (size_t i = 0; i < rp; i++) {
        mat_apply(inv, m_inv, acc, t);
        partial_keys[rp - 1 - i] = inv[0];
        inv[0] = CUZK_FR_ZERO;
        const cuzk_fr *prev = RK(final_round - i - 1);
        for (size_t j = 0; j < t; j++) cuzk_fr_add(&acc[j], &prev[j], &inv[j]);
    }
    mat_apply(res + k, m_inv, acc, t), k += t;
    k += rp;
    for (size_t i = 1; i < half; i++) mat_apply(res + k, m_inv, RK(i + final_round), t), k += t;
#undef RK
}

/* factor_to_sparse_matrixes(M^T, R_P): repeatedly split the current matrix
 * C = M' * M'' (M'' sparse: dense first row and column, identity minor),
 * replace C by M * M', and collect the M'' in reverse order. */
static bool factor_sparse(cuzk_fr *pre_sparse, cuzk_fr *sparse, const cuzk_fr *base, size_t t,
                          size_t rp, cuzk_fr *scratch)
{
    size_t n1 = t - 1, sw = 2 * t - 1;
    cuzk_fr *cur = scratch, *mprime = cur + t * t, *next = mprime + t * t;
    cuzk_fr *mhat = next + t * t, *mhat_inv = mhat + n1 * n1, *work = mhat_inv + n1 * n1;
    cuzk_fr *w = work + n1 * n1, *what = w + n1;
    memcpy(cur, base, t * t * sizeof *cur);
    for (size_t k = 0; k < rp; k++) {
        for (size_t i = 1; i < t; i++) {
            for (size_t j = 1; j < t; j++) mhat[(i - 1) * n1 + (j - 1)] = cur[i * t + j];
            w[i - 1] = cur[i * t];
        }
        if (!mat_inv(mhat_inv, mhat, work, n1)) return false;
        mat_apply(what, mhat_inv, w, n1);
        cuzk_fr *sm = sparse + (rp - 1 - k) * sw; /* reversed order */
        sm[0] = cur[0];
        for (size_t i = 1; i < t; i++) sm[i] = what[i - 1];
        for (size_t j = 1; j < t; j++) sm[t + j - 1] = cur[j];
        for (size_t i = 0; i < t; i++)
            for (size_t j = 0; j < t; j++)
                mprime[i * t + j] = (i == 0 || j == 0) ? (i == j ? CUZK_FR_ONE : CUZK_FR_ZERO)
                                                       : cur[i * t + j];
        mat_mul(next, base, mprime, t);
        memcpy(cur, next, t * t * sizeof *cur);
    }
    memcpy(pre_sparse, cur, t * t * sizeof *cur);
    return true;
}

void cuzk_poseidon_tag_merkle(cuzk_fr *tag, size_t arity)
{
    /* t = 2t + 1, arity times: 2^arity - 1 in Fr.  Neptune's arities (<= 36)
     * fit in 64 bits; any larger one reduces mod r (a limb image of
     * 2^255 - 1 would be >= r, not a field element). */
    cuzk_fr t = CUZK_FR_ZERO;
    for (size_t b = 0; b < arity; b++) {
        cuzk_fr_dbl(&t, &t);
        cuzk_fr_add(&t, &t, &CUZK_FR_ONE);
    }
    *tag = t;
}

void cuzk_poseidon_tag_constant_length(cuzk_fr *tag, uint64_t len)
{
    uint64_t l[4] = {0, len, 0, 0};
    CUZK_CANNOT_FAIL(cuzk_fr_from_limbs(tag, l)); /* len * 2^64 < 2^128 < r */
}

int cuzk_poseidon_tag_custom(cuzk_fr *tag, uint64_t id)
{
    if (id < 1 || id > 256) return CUZK_ERR_ARG;
    uint64_t l[4] = {id << 40, id >> 24, 0, 0};
    CUZK_CANNOT_FAIL(cuzk_fr_from_limbs(tag, l)); /* id * 2^40 < 2^49 < r */
    return CUZK_OK;
}

/* ---- lazy per-arity tables ---------------------------------------------- */
typedef struct {
    pthread_once_t once;
    int status;
    cuzk_poseidon_constants c;
} slot;

static slot g_slots[N_ARITIES] = {
    {PTHREAD_ONCE_INIT, 0, {0}}, {PTHREAD_ONCE_INIT, 0, {0}}, {PTHREAD_ONCE_INIT, 0, {0}},
    {PTHREAD_ONCE_INIT, 0, {0}}, {PTHREAD_ONCE_INIT, 0, {0}}, {PTHREAD_ONCE_INIT, 0, {0}},
    {PTHREAD_ONCE_INIT, 0, {0}},
};

static int generate(cuzk_poseidon_constants *c, size_t arity, size_t rp)
{
    size_t t = arity + 1, rf = CUZK_POSEIDON_FULL_ROUNDS;
    size_t n_rc = t * (rf + rp), n_crc = t * rf + rp, n_sp = rp * (2 * t - 1);
    size_t total = n_rc + 3 * t * t + n_crc + n_sp;
    size_t n_scratch = 4 * t * t + 3 * t * t + 2 * t;
    cuzk_fr *mem = malloc(total * sizeof *mem);
    cuzk_fr *scratch = malloc(n_scratch * sizeof *scratch);
    if (!mem || !scratch) {
        free(mem), free(scratch);
        return CUZK_ERR_NOMEM;
    }
    cuzk_fr *rc = mem, *mds = rc + n_rc, *mds_inv = mds + t * t, *pre = mds_inv + t * t;
    cuzk_fr *crc = pre + t * t, *sp = crc + n_crc;

    cuzk_poseidon_grain_constants(rc, t, rf, rp);
    /* Cauchy matrix x_i = i, y_j = t + j: M[i][j] = 1 / (i + t + j). */
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) {
            cuzk_fr_from_u64(&mds[i * t + j], i + t + j);
            cuzk_fr_inv_var(&mds[i * t + j], &mds[i * t + j]);
        }
    bool ok = mat_inv(mds_inv, mds, scratch, t);
    if (ok) compress_constants(crc, rc, mds_inv, t, rf, rp, scratch);
    /* neptune factors transpose(M); M is symmetric, so M itself. */
    if (ok) ok = factor_sparse(pre, sp, mds, t, rp, scratch);
    free(scratch);
    if (!ok) { /* cannot happen for a Cauchy matrix; keep the error path */
        free(mem);
        return CUZK_ERR_ARG;
    }
    c->arity = arity, c->t = t, c->full_rounds = rf, c->partial_rounds = rp;
    c->round_constants = rc, c->mds = mds, c->mds_inv = mds_inv;
    c->compressed_round_constants = crc, c->pre_sparse = pre, c->sparse = sp;
    cuzk_poseidon_tag_merkle(&c->merkle_tag, arity);
    return CUZK_OK;
}

#define INIT_FN(i)                                                                  \
    static void init_##i(void)                                                      \
    {                                                                               \
        g_slots[i].status = generate(&g_slots[i].c, k_arities[i], k_partial[i]);    \
    }
INIT_FN(0)
INIT_FN(1)
INIT_FN(2)
INIT_FN(3)
INIT_FN(4)
INIT_FN(5)
INIT_FN(6)
static void (*const k_init[N_ARITIES])(void) = {init_0, init_1, init_2, init_3,
                                                 init_4, init_5, init_6};

int cuzk_poseidon_constants_get(const cuzk_poseidon_constants **out, size_t arity)
{
    int i = cuzk_poseidon_arity_index(arity);
    if (!out) return CUZK_ERR_ARG;
    *out = NULL;
    if (i < 0) return CUZK_ERR_ARG;
    pthread_once(&g_slots[i].once, k_init[i]);
    if (g_slots[i].status != CUZK_OK) return g_slots[i].status;
    *out = &g_slots[i].c;
    return CUZK_OK;
}
