/* Shared between poseidon_constants.c (generation) and poseidon.c (hashing). */
#ifndef CUZK_FIL_POSEIDON_INTERNAL_H
#define CUZK_FIL_POSEIDON_INTERNAL_H

#include "cuzk/poseidon.h"

/* Index into the table of supported arities, or -1. */
int cuzk_poseidon_arity_index(size_t arity);

/* Grain LFSR round constants for (t, R_F, R_P): out holds t * (R_F + R_P).
 * Exposed for the known-answer test. */
void cuzk_poseidon_grain_constants(cuzk_fr *out, size_t t, size_t rf, size_t rp);

#endif
