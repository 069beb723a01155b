/* Poseidon permutation, plain and optimized (neptune's "OptimizedStatic"
 * hash_optimized_static and "Correct" hash_correct).  See poseidon.h. */
#include <string.h>

#include "cuzk/status.h"
#include "ff/field_internal.h"
#include "poseidon_internal.h"

/* Inlined Fr arithmetic (the field layer's ADX dispatchers): a hash is
 * ~600-20000 multiplications, and the call overhead was measurable
 * (docs/perf-notes.md, "Poseidon and gadgets"). */
#define MUL cuzk_fr_mul_inl
#define ADD cuzk_fr_add_inl

static inline void sbox(cuzk_fr *x)
{
    cuzk_fr x2, x4;
    MUL(&x2, x, x);
    MUL(&x4, &x2, &x2);
    MUL(x, x, &x4);
}

/* s = s * m (row vector times matrix: r[j] = sum_i s[i] m[i][j]); neptune
 * computes products with its symmetric MDS this way, and the pre-sparse
 * matrix (not symmetric) must be applied exactly so. */
static void vec_mat(cuzk_fr *s, const cuzk_fr *m, size_t t)
{
    cuzk_fr r[CUZK_POSEIDON_MAX_WIDTH], tmp;
    for (size_t j = 0; j < t; j++) r[j] = CUZK_FR_ZERO;
    for (size_t i = 0; i < t; i++) {
        const cuzk_fr *row = m + i * t;
        for (size_t j = 0; j < t; j++) {
            MUL(&tmp, &s[i], &row[j]);
            ADD(&r[j], &r[j], &tmp);
        }
    }
    memcpy(s, r, t * sizeof *s);
}

/* s = M'' s for a sparse matrix given as w_hat[t], v_rest[t-1]. */
static void sparse_mul(cuzk_fr *s, const cuzk_fr *sm, size_t t)
{
    const cuzk_fr *w_hat = sm, *v_rest = sm + t;
    cuzk_fr s0 = s[0], acc, tmp;
    MUL(&acc, &w_hat[0], &s0);
    for (size_t i = 1; i < t; i++) {
        MUL(&tmp, &w_hat[i], &s[i]);
        ADD(&acc, &acc, &tmp);
        MUL(&tmp, &v_rest[i - 1], &s0);
        ADD(&s[i], &s[i], &tmp);
    }
    s[0] = acc;
}

static void permute_optimized(cuzk_fr *s, const cuzk_poseidon_constants *c)
{
    size_t t = c->t, half = c->full_rounds / 2, rp = c->partial_rounds;
    const cuzk_fr *k = c->compressed_round_constants;
    for (size_t i = 0; i < t; i++) ADD(&s[i], &s[i], &k[i]);
    k += t;
    /* First half: S-boxes, post-S-box keys, then M (M' s: the pre-sparse
     * matrix after the last of them). */
    for (size_t r = 0; r < half; r++) {
        for (size_t i = 0; i < t; i++) {
            sbox(&s[i]);
            ADD(&s[i], &s[i], &k[i]);
        }
        k += t;
        vec_mat(s, r + 1 == half ? c->pre_sparse : c->mds, t);
    }
    for (size_t r = 0; r < rp; r++) {
        sbox(&s[0]);
        ADD(&s[0], &s[0], &k[r]);
        sparse_mul(s, c->sparse + r * (2 * t - 1), t);
    }
    k += rp;
    for (size_t r = 0; r < half; r++) {
        bool last = r + 1 == half;
        for (size_t i = 0; i < t; i++) {
            sbox(&s[i]);
            if (!last) ADD(&s[i], &s[i], &k[i]);
        }
        if (!last) k += t;
        vec_mat(s, c->mds, t);
    }
}

static void permute_plain(cuzk_fr *s, const cuzk_poseidon_constants *c)
{
    size_t t = c->t, half = c->full_rounds / 2, rounds = c->full_rounds + c->partial_rounds;
    const cuzk_fr *k = c->round_constants;
    for (size_t r = 0; r < rounds; r++, k += t) {
        bool full = r < half || r >= half + c->partial_rounds;
        for (size_t i = 0; i < t; i++) ADD(&s[i], &s[i], &k[i]);
        if (full)
            for (size_t i = 0; i < t; i++) sbox(&s[i]);
        else
            sbox(&s[0]);
        vec_mat(s, c->mds, t); /* M symmetric: s M = M s */
    }
}

int cuzk_poseidon_permute(cuzk_fr *state, size_t arity, bool plain)
{
    const cuzk_poseidon_constants *c;
    int rc = cuzk_poseidon_constants_get(&c, arity);
    if (rc) return rc;
    if (!state) return CUZK_ERR_ARG;
    if (plain)
        permute_plain(state, c);
    else
        permute_optimized(state, c);
    return CUZK_OK;
}

static int hash_impl(cuzk_fr *out, size_t arity, const cuzk_fr *tag, const cuzk_fr *in,
                     size_t n, bool plain)
{
    const cuzk_poseidon_constants *c;
    int rc = cuzk_poseidon_constants_get(&c, arity);
    if (rc) return rc;
    if (!out || !tag || n > arity || (n && !in)) return CUZK_ERR_ARG;
    cuzk_fr s[CUZK_POSEIDON_MAX_WIDTH];
    s[0] = *tag;
    for (size_t i = 0; i < arity; i++) s[i + 1] = i < n ? in[i] : CUZK_FR_ZERO;
    if (plain)
        permute_plain(s, c);
    else
        permute_optimized(s, c);
    *out = s[1];
    return CUZK_OK;
}

int cuzk_poseidon_hash_tagged(cuzk_fr *out, size_t arity, const cuzk_fr *tag,
                              const cuzk_fr *in, size_t n)
{
    return hash_impl(out, arity, tag, in, n, false);
}

int cuzk_poseidon_hash_tagged_plain(cuzk_fr *out, size_t arity, const cuzk_fr *tag,
                                    const cuzk_fr *in, size_t n)
{
    return hash_impl(out, arity, tag, in, n, true);
}

int cuzk_poseidon_hash(cuzk_fr *out, const cuzk_fr *in, size_t n)
{
    const cuzk_poseidon_constants *c;
    int rc = cuzk_poseidon_constants_get(&c, n);
    if (rc) return rc;
    return hash_impl(out, n, &c->merkle_tag, in, n, false);
}

int cuzk_poseidon_hash_constant_length(cuzk_fr *out, const cuzk_fr *in, size_t n,
                                       size_t arity)
{
    cuzk_fr tag;
    cuzk_poseidon_tag_constant_length(&tag, n);
    return hash_impl(out, arity, &tag, in, n, false);
}
