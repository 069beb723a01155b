/* The official parameter table (srs_official.c, generated) for srs_trust.c. */
#ifndef CUZK_SRS_TRUST_INTERNAL_H
#define CUZK_SRS_TRUST_INTERNAL_H

#include <stddef.h>

typedef struct {
    const char *name;   /* v28-....params / .vk */
    const char *digest; /* first 32 hex chars of BLAKE2b-512 */
} cuzk_srs_official_entry;

extern const cuzk_srs_official_entry cuzk_srs_official[];
extern const size_t cuzk_srs_official_count;

#endif
