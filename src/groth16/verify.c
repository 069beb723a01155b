/* Groth16 verification: e(A,B) = e(alpha,beta) e(IC(x),gamma) e(C,delta),
 * checked as one multi-Miller loop  ML(A,B) ML(IC,-gamma) ML(C,-delta)
 * and one final exponentiation compared with the precomputed e(alpha,beta).
 *
 * Batches use random 128-bit weights rho_i (getrandom):
 *   prod_i e(rho_i A_i, B_i) * e(sum rho_i IC_i, -gamma) * e(sum rho_i C_i, -delta)
 *     * e(-(sum rho_i) alpha, beta) == 1
 * which holds for a batch with a bad proof with probability <= 2^-128;
 * n + 3 Miller loops share one squaring chain and one final exponentiation.
 * All data is public: variable-time code throughout. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cuzk/msm.h"
#include "cuzk/pairing.h"
#include "g16_internal.h"

void cuzk_groth16_pvk_prepare(cuzk_groth16_pvk *pvk, const cuzk_groth16_vk *vk)
{
    pvk->vk = vk;
    pvk->alpha_g1 = vk->alpha_g1;
    pvk->beta_g2 = vk->beta_g2;
    cuzk_pairing(&pvk->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
    cuzk_g2_affine_neg(&pvk->neg_gamma, &vk->gamma_g2);
    cuzk_g2_affine_neg(&pvk->neg_delta, &vk->delta_g2);
}

typedef struct {
    cuzk_g1_affine a, c;
    cuzk_g2_affine b;
} proof_pts;

static int decode_proof(proof_pts *p, const uint8_t in[CUZK_G16_PROOF_BYTES], const char *who,
                        char *err, size_t el)
{
    int st;
    if ((st = cuzk_g1_decompress(&p->a, in)) || (cuzk_g1_affine_is_inf(&p->a) && (st = CUZK_ERR_ENC_IDENTITY)))
        return cuzk_errf(err, el, st, "%sA: %s", who, cuzk_strerror(st));
    if ((st = cuzk_g2_decompress(&p->b, in + 48)) ||
        (cuzk_g2_affine_is_inf(&p->b) && (st = CUZK_ERR_ENC_IDENTITY)))
        return cuzk_errf(err, el, st, "%sB: %s", who, cuzk_strerror(st));
    if ((st = cuzk_g1_decompress(&p->c, in + 144)) ||
        (cuzk_g1_affine_is_inf(&p->c) && (st = CUZK_ERR_ENC_IDENTITY)))
        return cuzk_errf(err, el, st, "%sC: %s", who, cuzk_strerror(st));
    return CUZK_OK;
}

/* r = ic[0]*w + sum_j x[j] * ic[j+1] (w = weight of ONE). */
static int ic_combine(cuzk_g1 *r, const cuzk_groth16_vk *vk, const cuzk_fr *w, const cuzk_fr *x,
                      size_t n)
{
    cuzk_g1 t, ic0;
    int st = n ? cuzk_msm_g1(NULL, r, vk->ic + 1, n, x, n, NULL, NULL, 0) : CUZK_OK;
    if (st) return st;
    if (!n) cuzk_g1_set_inf(r);
    cuzk_g1_from_affine(&ic0, &vk->ic[0]);
    cuzk_g1_mul_var(&t, &ic0, w);
    cuzk_g1_add(r, r, &t);
    return CUZK_OK;
}

int cuzk_groth16_verify(bool *valid, const cuzk_groth16_pvk *pvk,
                        const uint8_t proof[CUZK_G16_PROOF_BYTES], const cuzk_fr *inputs,
                        size_t n_inputs, char *err, size_t el)
{
    *valid = false;
    if (!pvk || !proof || (!inputs && n_inputs)) return CUZK_ERR_ARG;
    const cuzk_groth16_vk *vk = pvk->vk;
    if (n_inputs + 1 != vk->n_ic)
        return cuzk_errf(err, el, CUZK_ERR_ARG,
                         "wrong number of public inputs: %zu given, the verifying key expects %zu", n_inputs,
                         vk->n_ic - 1);
    proof_pts pp;
    int st = decode_proof(&pp, proof, "proof ", err, el);
    if (st) return st;
    cuzk_g1 acc;
    if ((st = ic_combine(&acc, vk, &CUZK_FR_ONE, inputs, n_inputs)))
        return cuzk_errf(err, el, st, "public input combination failed: %s", cuzk_strerror(st));
    cuzk_g1_affine p[3];
    cuzk_g2_affine q[3] = {pp.b, pvk->neg_gamma, pvk->neg_delta};
    p[0] = pp.a;
    cuzk_g1_to_affine(&p[1], &acc);
    p[2] = pp.c;
    cuzk_fp12 f;
    cuzk_miller_loop_n(&f, q, p, 3);
    cuzk_final_exp(&f, &f);
    *valid = cuzk_fp12_eq(&f, &pvk->alpha_beta);
    if (!*valid) cuzk_errf(err, el, CUZK_OK, "pairing check failed");
    return CUZK_OK;
}

int cuzk_groth16_verify_batch(bool *valid, const cuzk_groth16_pvk *pvk,
                              const uint8_t (*proofs)[CUZK_G16_PROOF_BYTES], size_t n,
                              const cuzk_fr *inputs, size_t n_inputs, char *err, size_t el)
{
    *valid = false;
    if (!pvk || (!proofs && n) || (!inputs && n && n_inputs)) return CUZK_ERR_ARG;
    const cuzk_groth16_vk *vk = pvk->vk;
    if (n_inputs + 1 != vk->n_ic)
        return cuzk_errf(err, el, CUZK_ERR_ARG,
                         "wrong number of public inputs: %zu per proof given, the verifying key "
                         "expects %zu",
                         n_inputs, vk->n_ic - 1);
    if (!n) {
        *valid = true;
        return CUZK_OK;
    }
    cuzk_g1_affine *p = malloc((n + 3) * sizeof *p), *cs = malloc(n * sizeof *cs);
    cuzk_g2_affine *q = malloc((n + 3) * sizeof *q);
    cuzk_fr *rho = malloc(n * sizeof *rho), *agg = calloc(n_inputs ? n_inputs : 1, sizeof *agg);
    uint8_t *rnd = malloc(n * 16);
    int st = CUZK_OK;
    if (!p || !cs || !q || !rho || !agg || !rnd) {
        st = CUZK_ERR_NOMEM;
        goto done;
    }
    for (size_t got = 0; got < n * 16;) {
        ssize_t k = getrandom(rnd + got, n * 16 - got, 0);
        if (k <= 0) {
            st = cuzk_errf(err, el, CUZK_ERR_IO, "getrandom failed");
            goto done;
        }
        got += (size_t)k;
    }
    cuzk_fr rho_sum = CUZK_FR_ZERO;
    for (size_t i = 0; i < n; i++) {
        char who[48];
        proof_pts pp;
        snprintf(who, sizeof who, "proof %zu: ", i);
        if ((st = decode_proof(&pp, proofs[i], who, err, el))) goto done;
        cuzk_fr_from_bytes_le_reduce(&rho[i], rnd + 16 * i, 16);
        if (cuzk_fr_is_zero(&rho[i])) rho[i] = CUZK_FR_ONE; /* a zero weight would drop a proof */
        cuzk_fr_add(&rho_sum, &rho_sum, &rho[i]);
        cuzk_g1 a, ra;
        cuzk_g1_from_affine(&a, &pp.a);
        cuzk_g1_mul_var(&ra, &a, &rho[i]);
        cuzk_g1_to_affine(&p[i], &ra);
        q[i] = pp.b;
        cs[i] = pp.c;
        for (size_t j = 0; j < n_inputs; j++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &rho[i], &inputs[i * n_inputs + j]);
            cuzk_fr_add(&agg[j], &agg[j], &t);
        }
    }
    cuzk_g1 acc, csum, al;
    if ((st = ic_combine(&acc, vk, &rho_sum, agg, n_inputs)) ||
        (st = cuzk_msm_g1(NULL, &csum, cs, n, rho, n, NULL, NULL, 0))) {
        cuzk_errf(err, el, st, "batch combination failed: %s", cuzk_strerror(st));
        goto done;
    }
    cuzk_fr neg_sum;
    cuzk_fr_neg(&neg_sum, &rho_sum);
    cuzk_g1_from_affine(&al, &pvk->alpha_g1);
    cuzk_g1_mul_var(&al, &al, &neg_sum);
    cuzk_g1_to_affine(&p[n], &acc);
    q[n] = pvk->neg_gamma;
    cuzk_g1_to_affine(&p[n + 1], &csum);
    q[n + 1] = pvk->neg_delta;
    cuzk_g1_to_affine(&p[n + 2], &al);
    q[n + 2] = pvk->beta_g2;
    *valid = cuzk_pairing_product_is_one(p, q, n + 3);
    if (!*valid) cuzk_errf(err, el, CUZK_OK, "batch pairing check failed (at least one proof is invalid)");
done:
    free(p);
    free(cs);
    free(q);
    free(rho);
    free(agg);
    free(rnd);
    return st;
}

int cuzk_groth16_inputs_decode(cuzk_fr *out, const uint8_t *buf, size_t len, size_t *n_out,
                               size_t cap, char *err, size_t el)
{
    *n_out = 0;
    if (len % 32)
        return cuzk_errf(err, el, CUZK_ERR_FORMAT,
                         "public inputs: %zu bytes is not a multiple of 32 (one little-endian Fr each)", len);
    size_t n = len / 32;
    if (n > cap) return cuzk_errf(err, el, CUZK_ERR_ARG, "public inputs: %zu given, room for %zu", n, cap);
    for (size_t i = 0; i < n; i++) {
        int st = cuzk_fr_from_bytes_le(&out[i], buf + 32 * i);
        if (st)
            return cuzk_errf(err, el, st, "public input %zu: not canonical (>= the scalar field modulus r)",
                             i);
    }
    *n_out = n;
    return CUZK_OK;
}
