/* The growable text buffer the engine's status documents are written into
 * (report.c: GetStatus text, Prometheus, /status JSON; history.c: the
 * status page's history), with a JSON string writer that keeps every
 * string valid UTF-8.
 *
 * Contract: a zeroed sbuf is empty.  An allocation failure is sticky (oom):
 * later calls do nothing and cuzk_eng_sb_finish frees the text and returns
 * CUZK_ERR_NOMEM, so writers need not check each call.  The text is kept
 * NUL-terminated. */
#ifndef CUZK_ENGINE_SBUF_H
#define CUZK_ENGINE_SBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/status.h"

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

/* Room for `more` bytes beyond len; false after an allocation failure. */
bool cuzk_eng_sb_grow(sbuf *b, size_t more);
/* n bytes of s. */
void cuzk_eng_sb_put(sbuf *b, const void *s, size_t n);
void cuzk_eng_sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string body (the caller writes the quotes): '"', '\\' and control
 * characters escaped; request ids are bytes, so a sequence that is not
 * UTF-8 (overlong, a surrogate, above U+10FFFF, truncated, a stray byte)
 * becomes U+FFFD, one per maximal ill-formed subpart. */
void cuzk_eng_sb_json_str(sbuf *b, const char *s);
/* Hands the text to *out (len: its length) or, after a failure, frees it:
 * CUZK_ERR_NOMEM. */
CUZK_MUST_CHECK int cuzk_eng_sb_finish(sbuf *b, char **out, size_t *len);

#endif
