/* Curve micro-benchmarks (G1, G2).  Group operations run as dependency
 * chains (each result feeds the next), as in blst_bench; decoders decode the
 * same encoding repeatedly (they are long enough that latency ~ throughput).
 * Names: g?_add = Jacobian + Jacobian, g?_add_mixed = Jacobian + affine;
 * plain names are the constant-time public functions, _var the branching
 * ones from src/ec/ec_internal.h. */
#include "bench.h"
#include "cuzk/ec.h"
#include "ec/ec_internal.h"

static cuzk_g1 p1, q1;
static cuzk_g1_affine q1a;
static cuzk_g2 p2, q2;
static cuzk_g2_affine q2a;
static cuzk_fr k;
static uint8_t c1[48], c2[96];

static void rand_fr(cuzk_fr *r)
{
    uint8_t buf[64];
    bench_rand_bytes(buf, sizeof buf);
    cuzk_fr_from_bytes_le_reduce(r, buf, sizeof buf);
}

static void setup(void)
{
    cuzk_fr a;
    cuzk_g1_generator(&p1);
    cuzk_g2_generator(&p2);
    rand_fr(&a);
    cuzk_g1_mul_var(&p1, &p1, &a);
    cuzk_g2_mul_var(&p2, &p2, &a);
    rand_fr(&a);
    cuzk_g1_generator(&q1);
    cuzk_g2_generator(&q2);
    cuzk_g1_mul_var(&q1, &q1, &a);
    cuzk_g2_mul_var(&q2, &q2, &a);
    cuzk_g1_to_affine(&q1a, &q1);
    cuzk_g2_to_affine(&q2a, &q2);
    cuzk_g1_compress(c1, &q1a);
    cuzk_g2_compress(c2, &q2a);
    rand_fr(&k);
}

#define CHAIN(name, type, init, stmt)                                  \
    static void name(uint64_t n)                                       \
    {                                                                  \
        type acc = init;                                               \
        for (uint64_t i = 0; i < n; i++) stmt;                         \
        bench_sink(&acc, sizeof acc);                                  \
    }

CHAIN(g1_add_run, cuzk_g1, p1, cuzk_g1_add(&acc, &acc, &q1))
CHAIN(g1_add_var_run, cuzk_g1, p1, cuzk_g1_add_var(&acc, &acc, &q1))
CHAIN(g1_add_mixed_run, cuzk_g1, p1, cuzk_g1_add_affine(&acc, &acc, &q1a))
CHAIN(g1_add_mixed_var_run, cuzk_g1, p1, cuzk_g1_add_affine_var(&acc, &acc, &q1a))
CHAIN(g1_dbl_run, cuzk_g1, p1, cuzk_g1_dbl(&acc, &acc))
CHAIN(g1_mul_run, cuzk_g1, p1, cuzk_g1_mul(&acc, &acc, &k))
CHAIN(g1_mul_var_run, cuzk_g1, p1, cuzk_g1_mul_var(&acc, &acc, &k))
CHAIN(g1_to_affine_run, cuzk_g1_affine, q1a,
      do {
          cuzk_g1 t = p1;
          t.x = acc.x;
          cuzk_g1_to_affine(&acc, &t);
      } while (0))
CHAIN(g1_subgroup_run, cuzk_g1, p1, acc.x.l[0] ^= (uint64_t)cuzk_g1_in_subgroup(&acc))

CHAIN(g2_add_run, cuzk_g2, p2, cuzk_g2_add(&acc, &acc, &q2))
CHAIN(g2_add_var_run, cuzk_g2, p2, cuzk_g2_add_var(&acc, &acc, &q2))
CHAIN(g2_add_mixed_run, cuzk_g2, p2, cuzk_g2_add_affine(&acc, &acc, &q2a))
CHAIN(g2_add_mixed_var_run, cuzk_g2, p2, cuzk_g2_add_affine_var(&acc, &acc, &q2a))
CHAIN(g2_dbl_run, cuzk_g2, p2, cuzk_g2_dbl(&acc, &acc))
CHAIN(g2_mul_run, cuzk_g2, p2, cuzk_g2_mul(&acc, &acc, &k))
CHAIN(g2_mul_var_run, cuzk_g2, p2, cuzk_g2_mul_var(&acc, &acc, &k))
CHAIN(g2_subgroup_run, cuzk_g2, p2, acc.x.c0.l[0] ^= (uint64_t)cuzk_g2_in_subgroup(&acc))

/* the encodings are valid points: the statuses (all CUZK_OK) go to a sink */
static int dec_status;
CHAIN(g1_decompress_run, cuzk_g1_affine, q1a, dec_status |= cuzk_g1_decompress(&acc, c1))
CHAIN(g1_decompress_unchecked_run, cuzk_g1_affine, q1a, dec_status |= cuzk_g1_decompress_unchecked(&acc, c1))
CHAIN(g2_decompress_run, cuzk_g2_affine, q2a, dec_status |= cuzk_g2_decompress(&acc, c2))
CHAIN(g2_decompress_unchecked_run, cuzk_g2_affine, q2a, dec_status |= cuzk_g2_decompress_unchecked(&acc, c2))

const struct micro_op micro_ops_ec[] = {
    {"g1_add", setup, g1_add_run},
    {"g1_add_var", setup, g1_add_var_run},
    {"g1_add_mixed", setup, g1_add_mixed_run},
    {"g1_add_mixed_var", setup, g1_add_mixed_var_run},
    {"g1_dbl", setup, g1_dbl_run},
    {"g1_to_affine", setup, g1_to_affine_run},
    {"g1_mul", setup, g1_mul_run},
    {"g1_mul_var", setup, g1_mul_var_run},
    {"g1_subgroup", setup, g1_subgroup_run},
    {"g1_decompress", setup, g1_decompress_run},
    {"g1_decompress_unchecked", setup, g1_decompress_unchecked_run},
    {"g2_add", setup, g2_add_run},
    {"g2_add_var", setup, g2_add_var_run},
    {"g2_add_mixed", setup, g2_add_mixed_run},
    {"g2_add_mixed_var", setup, g2_add_mixed_var_run},
    {"g2_dbl", setup, g2_dbl_run},
    {"g2_mul", setup, g2_mul_run},
    {"g2_mul_var", setup, g2_mul_var_run},
    {"g2_subgroup", setup, g2_subgroup_run},
    {"g2_decompress", setup, g2_decompress_run},
    {"g2_decompress_unchecked", setup, g2_decompress_unchecked_run},
    {0, 0, 0},
};
