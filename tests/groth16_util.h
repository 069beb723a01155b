/* Helpers shared by test_groth16.c and test_params.c: a synthesized circuit
 * (PROVE mode with matrices) and its test parameters. */
#ifndef CUZK_TEST_GROTH16_UTIL_H
#define CUZK_TEST_GROTH16_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"
#include "fr_util.h"
#include "harness.h"

/* A synthesized circuit and views of it. */
typedef struct {
    cuzk_cs *cs;
    cuzk_groth16_r1cs r1cs;
    cuzk_groth16_witness w;
    cuzk_groth16_shape shape;
} g16t_circuit;

static inline int g16t_synth(g16t_circuit *c, cuzk_circuit_fn fn, void *ctx)
{
    memset(c, 0, sizeof *c);
    int st = cuzk_cs_new(&c->cs, CUZK_CS_PROVE, CUZK_CS_MATRICES);
    if (!st) st = cuzk_cs_synthesize(c->cs, fn, ctx);
    if (st && c->cs) fprintf(stderr, "  synthesize: %s\n", cuzk_cs_error(c->cs));
    if (!st) st = cuzk_groth16_r1cs_from_cs(&c->r1cs, c->cs);
    if (!st) st = cuzk_groth16_witness_from_cs(&c->w, c->cs);
    if (!st) st = cuzk_groth16_r1cs_shape(&c->shape, &c->r1cs);
    return st;
}

static inline void g16t_free(g16t_circuit *c)
{
    cuzk_cs_free(c->cs);
    c->cs = NULL;
}

static inline int g16t_chain(g16t_circuit *c, size_t n, const cuzk_fr *x0)
{
    cuzk_chain_ctx ctx = {.n = n, .x0 = *x0};
    return g16t_synth(c, cuzk_chain_circuit, &ctx);
}

static inline cuzk_groth16_params *g16t_setup(const g16t_circuit *c, uint64_t seed)
{
    cuzk_groth16_params *p = NULL;
    uint8_t s[8];
    char err[CUZK_G16_ERR_LEN] = "";
    for (int i = 0; i < 8; i++) s[i] = (uint8_t)(seed >> (8 * i));
    int st = cuzk_groth16_setup_test(&p, &c->r1cs, s, sizeof s, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  setup: %s\n", err);
    CHECK(st == CUZK_OK);
    return p;
}

#endif
