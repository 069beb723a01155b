/* Helpers shared by the Filecoin data files (fr32.c, merkle.c, cid.c,
 * registry.c, vanilla.c, challenges.c). */
#ifndef CUZK_FIL_INTERNAL_H
#define CUZK_FIL_INTERNAL_H

#include <stdio.h>

#include "cuzk/filecoin.h"
#include "cuzk/status.h"

/* Write a message into err (if given) and return status. */

static inline uint64_t fil_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static inline void fil_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#endif
