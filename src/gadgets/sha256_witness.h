/* Witness fast path of the SHA-256 compression gadget (gadgets layer
 * internal).  Used by cuzk_sha256_compress when the cs records no
 * constraint (!cuzk_cs_records_constraints: WITNESS mode, or parallel
 * synthesis's count-only pilot): same aux values in the same order, same constraint count, same output
 * words (variables, kinds, values) as the gadget path. */
#ifndef CUZK_GADGETS_SHA256_WITNESS_H
#define CUZK_GADGETS_SHA256_WITNESS_H

#include "cuzk/gadgets_sha256.h"

/* The 64 round constants K (defined in sha256.c). */
extern const uint32_t cuzk_sha256_round_k[64];

int cuzk_sha256_compress_native(cuzk_cs *cs, cuzk_u32 out[8], const cuzk_bool in[512], const cuzk_u32 cur[8]);

#endif
