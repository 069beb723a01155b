/* Tower and pairing micro-benchmarks.  Field ops run as dependency chains
 * (result feeds the next op); the pairing ops repeat on the generators
 * (one op is long enough that chaining does not change its latency).
 * The generators are decoded here from their zcash encoding so that the
 * benchmark needs only the field layer and the pairing. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "cuzk/pairing.h"

static cuzk_fp2 a2, b2;
static cuzk_fp12 a12, b12, cyc12;
static cuzk_g1_affine gp;
static cuzk_g2_affine gq;

static void rand_fp12(cuzk_fp12 *r)
{
    cuzk_fp2 *c[6] = {&r->c0.c0, &r->c0.c1, &r->c0.c2, &r->c1.c0, &r->c1.c1, &r->c1.c2};
    for (int i = 0; i < 6; i++) {
        bench_rand_fp(&c[i]->c0);
        bench_rand_fp(&c[i]->c1);
    }
}

static int hexval(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static void fp_from_hex(cuzk_fp *r, const char *h)
{
    uint8_t b[48];
    for (int i = 0; i < 48; i++) b[i] = (uint8_t)(hexval(h[2 * i]) << 4 | hexval(h[2 * i + 1]));
    if (cuzk_fp_from_bytes_be(r, b)) { /* the generator's coordinates below are < p */
        fprintf(stderr, "micro pairing: constant %.16s... is not a canonical Fp\n", h);
        abort();
    }
}

static void setup(void)
{
    bench_rand_fp(&a2.c0);
    bench_rand_fp(&a2.c1);
    bench_rand_fp(&b2.c0);
    bench_rand_fp(&b2.c1);
    rand_fp12(&a12);
    rand_fp12(&b12);
    /* a12^((p^6 - 1)(p^2 + 1)) is in the cyclotomic subgroup */
    cuzk_fp12 t, inv;
    cuzk_fp12_conj(&t, &a12);
    cuzk_fp12_inv(&inv, &a12);
    cuzk_fp12_mul(&t, &t, &inv);
    cuzk_fp12_frobenius(&cyc12, &t, 2);
    cuzk_fp12_mul(&cyc12, &cyc12, &t);
    fp_from_hex(&gp.x,
                "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905"
                "a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    fp_from_hex(&gp.y,
                "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af6"
                "00db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    fp_from_hex(&gq.x.c1,
                "13e02b6052719f607dacd3a088274f65596bd0d09920b61a"
                "b5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
    fp_from_hex(&gq.x.c0,
                "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02"
                "b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    fp_from_hex(&gq.y.c1,
                "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af"
                "267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
    fp_from_hex(&gq.y.c0,
                "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a7"
                "6d429a695160d12c923ac9cc3baca289e193548608b82801");
}

static void fp2_mul_run(uint64_t n)
{
    cuzk_fp2 a = a2;
    for (uint64_t i = 0; i < n; i++) cuzk_fp2_mul(&a, &a, &b2);
    bench_sink(&a, sizeof a);
}

/* (sqrt(x) + b)^2 is again a square, so every call takes the success path
 * (the cost is the same either way: the root is constant time). */
static void fp2_sqrt_run(uint64_t n)
{
    cuzk_fp2 a;
    cuzk_fp2_sqr(&a, &a2);
    for (uint64_t i = 0; i < n; i++) {
        cuzk_fp2_sqrt(&a, &a);
        cuzk_fp2_add(&a, &a, &b2);
        cuzk_fp2_sqr(&a, &a);
    }
    bench_sink(&a, sizeof a);
}

static void fp2_sqr_run(uint64_t n)
{
    cuzk_fp2 a = a2;
    for (uint64_t i = 0; i < n; i++) cuzk_fp2_sqr(&a, &a);
    bench_sink(&a, sizeof a);
}

static void fp12_mul_run(uint64_t n)
{
    cuzk_fp12 a = a12;
    for (uint64_t i = 0; i < n; i++) cuzk_fp12_mul(&a, &a, &b12);
    bench_sink(&a, sizeof a);
}

static void fp12_sqr_run(uint64_t n)
{
    cuzk_fp12 a = a12;
    for (uint64_t i = 0; i < n; i++) cuzk_fp12_sqr(&a, &a);
    bench_sink(&a, sizeof a);
}

static void fp12_cyclotomic_sqr_run(uint64_t n)
{
    cuzk_fp12 a = cyc12;
    for (uint64_t i = 0; i < n; i++) cuzk_fp12_cyclotomic_sqr(&a, &a);
    bench_sink(&a, sizeof a);
}

static void fp12_inv_run(uint64_t n)
{
    cuzk_fp12 a = a12;
    for (uint64_t i = 0; i < n; i++) cuzk_fp12_inv(&a, &a);
    bench_sink(&a, sizeof a);
}

static void miller_loop_run(uint64_t n)
{
    cuzk_fp12 f;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_miller_loop(&f, &gq, &gp);
        bench_sink(&f, sizeof f);
    }
}

static void final_exp_run(uint64_t n)
{
    cuzk_fp12 f = a12;
    for (uint64_t i = 0; i < n; i++) cuzk_final_exp(&f, &f);
    bench_sink(&f, sizeof f);
}

static void pairing_run(uint64_t n)
{
    cuzk_fp12 f;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_pairing(&f, &gp, &gq);
        bench_sink(&f, sizeof f);
    }
}

const struct micro_op micro_ops_pairing[] = {
    {"fp2_mul", setup, fp2_mul_run},
    {"fp2_sqr", setup, fp2_sqr_run},
    {"fp2_sqrt", setup, fp2_sqrt_run},
    {"fp12_mul", setup, fp12_mul_run},
    {"fp12_sqr", setup, fp12_sqr_run},
    {"fp12_cyclotomic_sqr", setup, fp12_cyclotomic_sqr_run},
    {"fp12_inv", setup, fp12_inv_run},
    {"miller_loop", setup, miller_loop_run},
    {"final_exp", setup, final_exp_run},
    {"pairing", setup, pairing_run},
    {0, 0, 0},
};
