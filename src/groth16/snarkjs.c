/* snarkjs 0.7.6 JSON for curve "bls12381" (verification_key.json,
 * proof.json, public.json), as its zkey_export_verificationkey.js and
 * groth16_prove.js write them: coordinates are decimal strings of the
 * canonical integers; G1 = [x, y, "1"], G2 = [[x.c0, x.c1], [y.c0, y.c1],
 * ["1", "0"]] (ffjavascript's Fp2 order: c0 first, unlike the zcash bytes);
 * vk_alphabeta_12 is e(alpha, beta) as nested [c0, c1] arrays (Fp12 over
 * Fp6 over Fp2, the same tower).  snarkjs groth16 verify reads IC,
 * vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2 and the proof points. */
#include <openssl/bn.h>
#include <string.h>

#include "cuzk/pairing.h"
#include "g16_internal.h"

/* Decimal of a big-endian byte string; writes at most 100 chars + NUL. */
static int dec_be(char out[128], const uint8_t *be, size_t len)
{
    BIGNUM *bn = BN_bin2bn(be, (int)len, NULL);
    char *s = bn ? BN_bn2dec(bn) : NULL;
    int st = CUZK_ERR_NOMEM;
    if (s && strlen(s) < 128) {
        strcpy(out, s);
        st = CUZK_OK;
    }
    OPENSSL_free(s);
    BN_free(bn);
    return st;
}

static int put_fp(FILE *f, const cuzk_fp *a)
{
    uint8_t b[48];
    char d[128];
    cuzk_fp_to_bytes_be(b, a);
    int st = dec_be(d, b, 48);
    if (st) return st;
    fprintf(f, "\"%s\"", d);
    return CUZK_OK;
}

static int put_g1(FILE *f, const char *ind, const cuzk_g1_affine *p)
{
    int st;
    /* snarkjs writes infinity as ["0", "1", "0"] */
    if (cuzk_g1_affine_is_inf(p)) {
        fprintf(f, "[\n%s \"0\",\n%s \"1\",\n%s \"0\"\n%s]", ind, ind, ind, ind);
        return CUZK_OK;
    }
    fprintf(f, "[\n%s ", ind);
    if ((st = put_fp(f, &p->x))) return st;
    fprintf(f, ",\n%s ", ind);
    if ((st = put_fp(f, &p->y))) return st;
    fprintf(f, ",\n%s \"1\"\n%s]", ind, ind);
    return CUZK_OK;
}

static int put_fp2(FILE *f, const char *ind, const cuzk_fp2 *a)
{
    int st;
    fprintf(f, "[\n%s ", ind);
    if ((st = put_fp(f, &a->c0))) return st;
    fprintf(f, ",\n%s ", ind);
    if ((st = put_fp(f, &a->c1))) return st;
    fprintf(f, "\n%s]", ind);
    return CUZK_OK;
}

static int put_g2(FILE *f, const char *ind, const cuzk_g2_affine *p)
{
    char in2[16];
    snprintf(in2, sizeof in2, "%s ", ind);
    int st;
    fprintf(f, "[\n%s", in2);
    if ((st = put_fp2(f, in2, &p->x))) return st;
    fprintf(f, ",\n%s", in2);
    if ((st = put_fp2(f, in2, &p->y))) return st;
    fprintf(f, ",\n%s[\n%s \"1\",\n%s \"0\"\n%s]\n%s]", in2, in2, in2, in2, ind);
    return CUZK_OK;
}

static int put_fp6(FILE *f, const char *ind, const cuzk_fp6 *a)
{
    char in2[16];
    snprintf(in2, sizeof in2, "%s ", ind);
    const cuzk_fp2 *c[3] = {&a->c0, &a->c1, &a->c2};
    fprintf(f, "[");
    for (int i = 0; i < 3; i++) {
        fprintf(f, "%s\n%s", i ? "," : "", in2);
        int st = put_fp2(f, in2, c[i]);
        if (st) return st;
    }
    fprintf(f, "\n%s]", ind);
    return CUZK_OK;
}

int cuzk_groth16_snarkjs_vk(FILE *f, const cuzk_groth16_vk *vk)
{
    int st;
    cuzk_fp12 ab;
    cuzk_pairing(&ab, &vk->alpha_g1, &vk->beta_g2);
    fprintf(f, "{\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\",\n \"nPublic\": %zu,\n",
            vk->n_ic ? vk->n_ic - 1 : 0);
    fprintf(f, " \"vk_alpha_1\": ");
    if ((st = put_g1(f, " ", &vk->alpha_g1))) return st;
    fprintf(f, ",\n \"vk_beta_2\": ");
    if ((st = put_g2(f, " ", &vk->beta_g2))) return st;
    fprintf(f, ",\n \"vk_gamma_2\": ");
    if ((st = put_g2(f, " ", &vk->gamma_g2))) return st;
    fprintf(f, ",\n \"vk_delta_2\": ");
    if ((st = put_g2(f, " ", &vk->delta_g2))) return st;
    fprintf(f, ",\n \"vk_alphabeta_12\": [\n  ");
    if ((st = put_fp6(f, "  ", &ab.c0))) return st;
    fprintf(f, ",\n  ");
    if ((st = put_fp6(f, "  ", &ab.c1))) return st;
    fprintf(f, "\n ],\n \"IC\": [");
    for (size_t i = 0; i < vk->n_ic; i++) {
        fprintf(f, "%s\n  ", i ? "," : "");
        if ((st = put_g1(f, "  ", &vk->ic[i]))) return st;
    }
    fprintf(f, "\n ]\n}\n");
    return ferror(f) ? CUZK_ERR_IO : CUZK_OK;
}

int cuzk_groth16_snarkjs_proof(FILE *f, const uint8_t proof[CUZK_G16_PROOF_BYTES])
{
    cuzk_g1_affine a, c;
    cuzk_g2_affine b;
    int st;
    if ((st = cuzk_g1_decompress(&a, proof)) || (st = cuzk_g2_decompress(&b, proof + 48)) ||
        (st = cuzk_g1_decompress(&c, proof + 144)))
        return st;
    fprintf(f, "{\n \"pi_a\": ");
    if ((st = put_g1(f, " ", &a))) return st;
    fprintf(f, ",\n \"pi_b\": ");
    if ((st = put_g2(f, " ", &b))) return st;
    fprintf(f, ",\n \"pi_c\": ");
    if ((st = put_g1(f, " ", &c))) return st;
    fprintf(f, ",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}\n");
    return ferror(f) ? CUZK_ERR_IO : CUZK_OK;
}

int cuzk_groth16_snarkjs_public(FILE *f, const cuzk_fr *inputs, size_t n)
{
    fprintf(f, "[");
    for (size_t i = 0; i < n; i++) {
        uint8_t le[32], be[32];
        char d[128];
        cuzk_fr_to_bytes_le(le, &inputs[i]);
        for (int k = 0; k < 32; k++) be[k] = le[31 - k];
        int st = dec_be(d, be, 32);
        if (st) return st;
        fprintf(f, "%s\n \"%s\"", i ? "," : "", d);
    }
    fprintf(f, "\n]\n");
    return ferror(f) ? CUZK_ERR_IO : CUZK_OK;
}
