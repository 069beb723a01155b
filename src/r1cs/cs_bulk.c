/* Bulk allocation for witness fast paths.
 *
 * In plain WITNESS mode the cs keeps only the assignments and the counts:
 * an enforce there is a variable check and a counter increment, and an
 * alloc one 32-byte store behind a dozen checks.  A gadget that knows its
 * witness natively (the SHA-256 compression: ~26,000 bits, all 0 or 1) can
 * therefore hand over all its aux values at once and count its
 * constraints, instead of building ~26,000 term arrays that nobody reads.
 * These calls refuse every mode that looks at constraints, so a gadget
 * can only take the shortcut where it is invisible.  The count-only system
 * of parallel synthesis (cs_par.c's pilot: no values, no structure) takes
 * them too, and then they only count. */
#include <string.h>

#include "r1cs/cs_internal.h"

bool cuzk_cs_records_constraints(const cuzk_cs *cs)
{
    return cs->structure || cs->evals || cs->check || cs->row_fn;
}

static int bulk_usable(cuzk_cs *cs, const char *what)
{
    if (cs->status) return cs->status;
    if (cs->finished) return cuzk_cs_fail(cs, CUZK_ERR_ARG, "%s after cuzk_cs_finish", what);
    if (cuzk_cs_records_constraints(cs))
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "%s: only in WITNESS mode without matrices or a row observer", what);
    return CUZK_OK;
}

int cuzk_cs_alloc_bits(cuzk_cs *cs, cuzk_var *first, const uint64_t *bits, size_t n)
{
    int rc = bulk_usable(cs, "alloc_bits");
    if (rc) return rc;
    if (!first || (n && !bits && cs->values))
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "alloc_bits: first or bits is NULL");
    size_t at = cs->n_aux;
    if (n > (size_t)~CUZK_VAR_AUX - at)
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "alloc_bits: too many variables (%zu + %zu)", at, n);
    /* growth through the public path: the cs decides how (and whether) it grows */
    if (at + n > cs->aux_cap && (rc = cuzk_cs_reserve(cs, 0, cs->n_inputs, at + n))) return rc;
    *first = CUZK_VAR_AUX | (cuzk_var)at;
    cs->n_aux = at + n;
    if (!cs->values) return CUZK_OK; /* a count-only system */
    cuzk_fr *z = cs->aux + at;
    /* a local table: indexed without a branch (witness bits are random),
     * and the stores to z cannot alias it */
    const cuzk_fr tab[2] = {CUZK_FR_ZERO, CUZK_FR_ONE};
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t x = bits[i / 64];
        for (int j = 0; j < 64; j++, x >>= 1)
            z[i + (size_t)j] = tab[x & 1];
    }
    for (uint64_t x = i < n ? bits[i / 64] : 0; i < n; i++, x >>= 1)
        z[i] = tab[x & 1];
    return CUZK_OK;
}

int cuzk_cs_skip_constraints(cuzk_cs *cs, size_t n)
{
    int rc = bulk_usable(cs, "skip_constraints");
    if (rc) return rc;
    cs->n_constraints += n;
    return CUZK_OK;
}
