/* Lean PCE evaluation (cuzk/pce_lean.h): A z and B z into the prover's two
 * domain buffers now, C z on demand during H.  The decoding, bounds checks
 * and arithmetic are pce_eval.c's (cuzk_pce_matvec); this file only decides
 * which matrices are summed where and what the cs gains.
 *
 * Why: a 32 GiB PoRep partition has m = 2^27 domain points; at 32 bytes
 * each, a third evaluation vector is 4.3 GB.  With C produced after A*B
 * (the prover's lean order, backend h_poly_lean), a partition in flight
 * holds two domain vectors and the assignment. */
#include <stdlib.h>

#include "cuzk/pce_lean.h"
#include "r1cs/cs_internal.h"
#include "r1cs/pce_internal.h"

/* A finished WITNESS-mode system with the file's counts, or a message. */
static int check_cs(const cuzk_pce *p, const cuzk_cs *cs, const char *what, char *err, size_t err_len)
{
    if (cs->mode != CUZK_CS_WITNESS || !cs->finished || cs->status || cs->matrices || !cs->values)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "pce %s: needs a finished WITNESS-mode system without matrices", what);
    const cuzk_pce_info *in = &p->info;
    if (cs->n_constraints != in->constraints || cs->n_inputs != in->inputs || cs->n_aux != in->aux)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "pce %s: the circuit has %zu constraints, %zu inputs, %zu aux; the file '%s' "
                         "recorded %zu, %zu, %zu",
                         what, cs->n_constraints, cs->n_inputs, cs->n_aux, in->identity.id, in->constraints,
                         in->inputs, in->aux);
    return CUZK_OK;
}

/* The density maps and nonzero counts cuzk_pce_evaluate gives the cs. */
static int set_structure(const cuzk_pce *p, cuzk_cs *cs, char *err, size_t err_len)
{
    uint64_t *maps[3] = {NULL, NULL, NULL};
    int st = cuzk_pce_density_for(p, cs, maps, err, err_len);
    if (st) {
        for (int s = 0; s < 3; s++)
            free(maps[s]);
        return st;
    }
    cuzk_pce_set_structure(p, cs, maps);
    return CUZK_OK;
}

int cuzk_pce_evaluate_ab(const cuzk_pce *p, cuzk_cs *cs, cuzk_fr *a, cuzk_fr *b, size_t m, cuzk_par *par,
                         char *err, size_t err_len)
{
    if (!p || !cs || !a || !b) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce evaluate_ab: NULL argument");
    int st = check_cs(p, cs, "evaluate_ab", err, err_len);
    if (st) return st;
    size_t n = p->info.constraints;
    if (m < n || a == b)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "pce evaluate_ab: buffers of %zu elements for %zu constraints (need two distinct "
                         "ones of at least that many)",
                         m, n);
    cuzk_fr *ev[3] = {a, b, NULL}; /* C is decoded and checked, not summed */
    if ((st = cuzk_pce_matvec(p, cs->inp, cs->aux, ev, par, err, err_len))) return st;
    if ((st = set_structure(p, cs, err, err_len))) return st;
    for (size_t i = n; i < m; i++)
        a[i] = b[i] = CUZK_FR_ZERO;
    return CUZK_OK;
}

int cuzk_pce_fill_c(void *ctx, cuzk_fr *out, size_t n)
{
    const cuzk_pce_lean *l = ctx;
    if (!l || !l->pce || !l->cs || !out) return CUZK_ERR_ARG;
    int st = check_cs(l->pce, l->cs, "fill_c", l->err, l->err_len);
    if (st) return st;
    if (n != l->pce->info.constraints)
        return cuzk_errf(l->err, l->err_len, CUZK_ERR_ARG,
                         "pce fill_c: asked for %zu values, the circuit has %zu", n,
                         l->pce->info.constraints);
    cuzk_fr *ev[3] = {NULL, NULL, out};
    return cuzk_pce_matvec(l->pce, l->cs->inp, l->cs->aux, ev, l->par, l->err, l->err_len);
}
