/* Inputs and the naive reference shared by the MSM tests (test_msm.c,
 * test_msm_ifma.c): random / Filecoin-like / small / edge scalars, point
 * vectors with repeats, negations and infinities, and sum_i k_i * P_i by
 * cuzk_g*_mul_var and the curve layer's complete addition (independent of
 * the MSM code).  Randomness from test_rand64 / test_rand_bytes, so --seed
 * replays it. */
#ifndef CUZK_TEST_MSM_UTIL_H
#define CUZK_TEST_MSM_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "harness.h"

/* ---- inputs ---------------------------------------------------------------- */
static inline void rand_fr(cuzk_fr *r)
{
    uint8_t b[48];
    test_rand_bytes(b, sizeof b);
    cuzk_fr_from_bytes_le_reduce(r, b, sizeof b);
}

/* Scalar kinds: 0 random, 1 mostly 0/1 (Filecoin-like), 2 small, 3 edge values. */
static inline void gen_scalars(cuzk_fr *k, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand64();
        if (kind == 0) {
            rand_fr(&k[i]);
        } else if (kind == 1) {
            unsigned v = (unsigned)(r % 100);
            if (v < 75)
                k[i] = CUZK_FR_ZERO;
            else if (v < 95)
                k[i] = CUZK_FR_ONE;
            else
                rand_fr(&k[i]);
        } else if (kind == 2) {
            cuzk_fr_from_u64(&k[i], r % 70000);
        } else {
            /* 0, 1, r-1, r-2, 2^j and 2^j - 1 around window edges */
            unsigned v = (unsigned)(r % 6), j = (unsigned)((r >> 8) % 255);
            uint64_t l[4] = {0, 0, 0, 0};
            if (v == 0) {
                k[i] = CUZK_FR_ZERO;
            } else if (v == 1) {
                k[i] = CUZK_FR_ONE;
            } else if (v == 2 || v == 3) {
                cuzk_fr_from_u64(&k[i], v == 2 ? 1 : 2);
                cuzk_fr_neg(&k[i], &k[i]);
            } else {
                l[j / 64] = (uint64_t)1 << (j % 64);
                if (v == 5) { /* 2^j - 1 */
                    for (unsigned q = 0; q < j / 64; q++)
                        l[q] = ~(uint64_t)0;
                    l[j / 64] -= 1;
                }
                CHECK(cuzk_fr_from_limbs(&k[i], l) == CUZK_OK);
            }
        }
    }
}

/* n points: a random multiple of the generator, then a chain of additions
 * of random small multiples (cheap), with some repeats, negations and
 * infinities mixed in when `nasty`. */
static inline void gen_g1(cuzk_g1_affine *out, size_t n, int nasty)
{
    cuzk_g1 g, p, step;
    cuzk_fr k;
    cuzk_g1_generator(&g);
    rand_fr(&k);
    cuzk_g1_mul_var(&p, &g, &k);
    rand_fr(&k);
    cuzk_g1_mul_var(&step, &g, &k);
    for (size_t i = 0; i < n; i++) {
        cuzk_g1_add(&p, &p, &step);
        cuzk_g1_to_affine(&out[i], &p);
        if (nasty && i > 0) {
            unsigned v = (unsigned)(test_rand64() % 8);
            if (v == 0)
                out[i] = out[test_rand64() % i];
            else if (v == 1)
                cuzk_g1_affine_neg(&out[i], &out[test_rand64() % i]);
            else if (v == 2)
                memset(&out[i], 0, sizeof out[i]);
        }
    }
}

static inline void gen_g2(cuzk_g2_affine *out, size_t n, int nasty)
{
    cuzk_g2 g, p, step;
    cuzk_fr k;
    cuzk_g2_generator(&g);
    rand_fr(&k);
    cuzk_g2_mul_var(&p, &g, &k);
    rand_fr(&k);
    cuzk_g2_mul_var(&step, &g, &k);
    for (size_t i = 0; i < n; i++) {
        cuzk_g2_add(&p, &p, &step);
        cuzk_g2_to_affine(&out[i], &p);
        if (nasty && i > 0) {
            unsigned v = (unsigned)(test_rand64() % 8);
            if (v == 0)
                out[i] = out[test_rand64() % i];
            else if (v == 1)
                cuzk_g2_affine_neg(&out[i], &out[test_rand64() % i]);
            else if (v == 2)
                memset(&out[i], 0, sizeof out[i]);
        }
    }
}

static inline int has_bit(const uint64_t *d, size_t i)
{
    return !d || ((d[i / 64] >> (i % 64)) & 1);
}

/* Naive reference with the density contract spelled out: the j-th present
 * variable uses bases[j]. */
static inline void naive_g1(cuzk_g1 *r, const cuzk_g1_affine *bases, const cuzk_fr *k, size_t n,
                     const uint64_t *density)
{
    cuzk_g1_set_inf(r);
    for (size_t i = 0, b = 0; i < n; i++) {
        if (!has_bit(density, i)) continue;
        cuzk_g1 p, t;
        cuzk_g1_from_affine(&p, &bases[b++]);
        cuzk_g1_mul_var(&t, &p, &k[i]);
        cuzk_g1_add(r, r, &t);
    }
}

static inline void naive_g2(cuzk_g2 *r, const cuzk_g2_affine *bases, const cuzk_fr *k, size_t n,
                     const uint64_t *density)
{
    cuzk_g2_set_inf(r);
    for (size_t i = 0, b = 0; i < n; i++) {
        if (!has_bit(density, i)) continue;
        cuzk_g2 p, t;
        cuzk_g2_from_affine(&p, &bases[b++]);
        cuzk_g2_mul_var(&t, &p, &k[i]);
        cuzk_g2_add(r, r, &t);
    }
}

#endif
