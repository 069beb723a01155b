/* Built-in circuit `chain`: x_{i+1} = x_i^2 + 7, the statement of the
 * snarkjs anchor (shared/tools/snarkjs-anchor/chain.circom.tmpl).
 *
 * circom 2.2 compiles `s[i+1] <== s[i] * s[i] + 7` into
 *   A = -1*s_i,  B = 1*s_i,  C = 7*ONE - 1*s_{i+1}
 * and folds s[0] = x and y = s[n] into the wires, numbering them
 * ONE, y (public output), x (private input), s_1 .. s_{n-1}.  Allocating
 * x first (aux 0), s_1.. as aux 1.., and y as input 1 reproduces exactly
 * that matrix in the unified index space (column = circom wire). */
#include "cuzk/r1cs.h"
#include "cuzk/status.h"

void cuzk_chain_output(cuzk_fr *out, const cuzk_fr *x0, size_t n)
{
    cuzk_fr x = *x0, seven;
    cuzk_fr_from_u64(&seven, 7);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_sqr(&x, &x);
        cuzk_fr_add(&x, &x, &seven);
    }
    *out = x;
}

int cuzk_chain_circuit(cuzk_cs *cs, void *vctx)
{
    const cuzk_chain_ctx *ctx = vctx;
    if (!ctx || ctx->n < 1)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "chain: needs a context with n >= 1");
    size_t n = ctx->n;
    bool values = cuzk_cs_needs_values(cs);
    cuzk_fr seven, minus_one, x = ctx->x0, next = CUZK_FR_ZERO;
    cuzk_fr_from_u64(&seven, 7);
    cuzk_fr_neg(&minus_one, &CUZK_FR_ONE);
    int rc = cuzk_cs_reserve(cs, n + 2, 2, n);
    if (rc) return rc;

    cuzk_var cur, nxt;
    rc = cuzk_cs_alloc(cs, &cur, values ? &x : NULL);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
        if (values) {
            cuzk_fr_sqr(&next, &x);
            cuzk_fr_add(&next, &next, &seven);
        }
        rc = i + 1 == n ? cuzk_cs_alloc_input(cs, &nxt, values ? &next : NULL)
                        : cuzk_cs_alloc(cs, &nxt, values ? &next : NULL);
        if (rc) return rc;
        cuzk_term a = {cur, minus_one}, b = {cur, CUZK_FR_ONE};
        cuzk_term c[2] = {{CUZK_ONE, seven}, {nxt, minus_one}};
        rc = cuzk_cs_enforce(cs, &a, 1, &b, 1, c, 2);
        if (rc) return rc;
        x = next;
        cur = nxt;
    }
    return CUZK_OK;
}
