/* Lean PCE evaluation: a partition proved in two domain-size vectors plus
 * its assignment instead of three (docs/pce.md "The lean order").
 *
 * cuzk_pce_evaluate (cuzk/pce.h) allocates a, b and c next to the
 * assignment; the prover then needs all three at the H domain size m.  The
 * lean form evaluates only A z and B z, straight into the two buffers the
 * prover transforms in place (cuzk_groth16_witness.a_mut / b_mut), and
 * computes C z later, when the prover asks for it through the witness's
 * fill_c callback -- after A*B has been formed on the coset, into the
 * buffer that held B.  C is never resident next to A and B.
 *
 * Contract:
 *  - cuzk_pce_evaluate_ab: cs is a finished WITNESS-mode system of the
 *    recorded circuit (CUZK_ERR_ARG otherwise); a and b have room for m >=
 *    constraints elements each: [0, n) receives A z and B z, [n, m) zeros.
 *    On success cs keeps its mode and assignment and gains the density
 *    bitmaps and nonzero counts that cuzk_pce_evaluate would give it
 *    (cuzk_cs_get_counts and cuzk_cs_density_* then equal PROVE mode's); it
 *    holds no evaluations.  Every record is decoded and bounds-checked (all
 *    three matrices), so a corrupt file fails here, before the prover.
 *    On failure cs is unchanged; a and b hold garbage.
 *  - cuzk_pce_fill_c is a cuzk_groth16_witness fill_c callback: ctx is a
 *    cuzk_pce_lean whose pce and cs (the same cs, still alive and
 *    unchanged) were given to cuzk_pce_evaluate_ab; it writes C z into
 *    out[0, n) (n must be the constraint count) and records a failure's
 *    message in the context's err.  The file is decoded again (and checked
 *    again: a file is never trusted).
 *  - No threads: parallel work goes through par (NULL = calling thread);
 *    fill_c uses the context's par. */
#ifndef CUZK_PCE_LEAN_H
#define CUZK_PCE_LEAN_H

#include <stddef.h>

#include "cuzk/pce.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_pce_lean {
    const cuzk_pce *pce;
    const cuzk_cs *cs; /* WITNESS mode, after cuzk_pce_evaluate_ab */
    cuzk_par *par;     /* NULL: calling thread */
    char *err;         /* may be NULL; receives fill_c's failure */
    size_t err_len;
} cuzk_pce_lean;

CUZK_MUST_CHECK int cuzk_pce_evaluate_ab(const cuzk_pce *p, cuzk_cs *cs, cuzk_fr *a, cuzk_fr *b, size_t m, cuzk_par *par,
                         char *err, size_t err_len);

/* fill_c callback (see above); ctx is a cuzk_pce_lean *. */
CUZK_MUST_CHECK int cuzk_pce_fill_c(void *ctx, cuzk_fr *out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
