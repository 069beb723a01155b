/* Constraint system: results (counts, assignments, evaluations, density,
 * CSR export). */
#include <stdlib.h>

#include "r1cs/cs_internal.h"

static size_t popcount_words(const uint64_t *w, size_t nbits)
{
    if (!w) return 0;
    size_t c = 0;
    for (size_t i = 0; i < nbits / 64; i++) c += (size_t)__builtin_popcountll(w[i]);
    if (nbits % 64) c += (size_t)__builtin_popcountll(w[nbits / 64] & (((uint64_t)1 << (nbits % 64)) - 1));
    return c;
}

void cuzk_cs_get_counts(const cuzk_cs *cs, cuzk_cs_counts *out)
{
    out->constraints = cs->n_constraints;
    out->inputs = cs->n_inputs;
    out->aux = cs->n_aux;
    out->nnz_a = cs->nnz[0];
    out->nnz_b = cs->nnz[1];
    out->nnz_c = cs->nnz[2];
    out->a_aux_density = popcount_words(cs->d_a_aux, cs->n_aux);
    out->b_input_density = popcount_words(cs->d_b_inp, cs->n_inputs);
    out->b_aux_density = popcount_words(cs->d_b_aux, cs->n_aux);
}

bool cuzk_cs_is_satisfied(const cuzk_cs *cs, size_t *index, const char **path)
{
    if (!cs->unsat) return true;
    if (index) *index = cs->unsat_index;
    if (path) *path = cs->unsat_path ? cs->unsat_path : "";
    return false;
}

const cuzk_fr *cuzk_cs_input_assignment(const cuzk_cs *cs) { return cs->values ? cs->inp : NULL; }
const cuzk_fr *cuzk_cs_aux_assignment(const cuzk_cs *cs) { return cs->values ? cs->aux : NULL; }

const cuzk_fr *cuzk_cs_eval(const cuzk_cs *cs, int which)
{
    return (unsigned)which < 3 ? cs->ev[which] : NULL;
}

int cuzk_cs_take_evals(cuzk_cs *cs, cuzk_fr **a, cuzk_fr **b, cuzk_fr **c)
{
    if (!a || !b || !c) return CUZK_ERR_ARG;
    *a = *b = *c = NULL;
    if (!cs->evals || !cs->finished || !cs->ev[0])
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "take_evals: needs a finished PROVE system whose evaluations were not taken");
    *a = cs->ev[0];
    *b = cs->ev[1];
    *c = cs->ev[2];
    cs->ev[0] = cs->ev[1] = cs->ev[2] = NULL;
    cs->ev_cap = 0;
    return CUZK_OK;
}

const uint64_t *cuzk_cs_density_a_aux(const cuzk_cs *cs) { return cs->d_a_aux; }
const uint64_t *cuzk_cs_density_b_input(const cuzk_cs *cs) { return cs->d_b_inp; }
const uint64_t *cuzk_cs_density_b_aux(const cuzk_cs *cs) { return cs->d_b_aux; }

int cuzk_cs_matrix(const cuzk_cs *cs, int which, cuzk_csr *out)
{
    if (!out || (unsigned)which > 2 || !cs->matrices || !cs->finished || cs->status) return CUZK_ERR_ARG;
    const cs_matrix *m = &cs->m[which];
    out->rows = cs->n_constraints;
    out->cols = cs->n_inputs + cs->n_aux;
    out->nnz = m->row_ptr[cs->n_constraints];
    out->row_ptr = m->row_ptr;
    out->col = m->col;
    out->val = m->val;
    return CUZK_OK;
}
