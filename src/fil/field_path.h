/* The field path that a parser's error messages name
 * ("vanilla_proofs[3][7].comm_d_proofs", "challenge_proofs[0].proof_r_old
 * .path[1].index"): a string in a caller's fixed buffer that grows by
 * printf-formatted segments and shrinks back to a mark.  Shared by the
 * bincode reader (fil/bincode.h) and the C1 JSON parser (src/seal).
 *
 * Contract: field holds a NUL-terminated string of *len bytes, *len < cap.
 * A segment that does not fit is cut at the buffer (paths are far shorter
 * than the buffers their parsers give), never written past it.  Header
 * only (static inline): nothing exported. */
#ifndef CUZK_FIL_FIELD_PATH_H
#define CUZK_FIL_FIELD_PATH_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Append fmt (with ap); returns the mark that cuzk_fil_field_pop restores. */
static inline size_t cuzk_fil_field_vpush(char *field, size_t cap, size_t *len, const char *fmt, va_list ap)
{
    size_t old = *len;
    int n = vsnprintf(field + old, cap - old, fmt, ap);
    if (n > 0) *len = old + (size_t)n < cap ? old + (size_t)n : cap - 1;
    return old;
}

static inline void cuzk_fil_field_pop(char *field, size_t *len, size_t mark)
{
    *len = mark;
    field[mark] = 0;
}

#endif
