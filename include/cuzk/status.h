/* cuzk status codes shared by every layer.
 *
 * Every fallible function returns int: CUZK_OK (0) on success or one of the
 * negative codes below.  cuzk_strerror() gives a sentence a user can act on.
 * Codes are stable; add new ones at the end of their group. */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cuzk_status {
    CUZK_OK = 0,
    /* generic */
    CUZK_ERR_ARG = -1,          /* invalid argument (NULL, bad size, out of range) */
    CUZK_ERR_NOMEM = -2,        /* allocation failed */
    CUZK_ERR_IO = -3,           /* read/write/mmap failed (errno is preserved) */
    CUZK_ERR_FORMAT = -4,       /* malformed file or message */
    CUZK_ERR_UNSUPPORTED = -5,  /* valid but not supported by this build */
    CUZK_ERR_CHANGED = -6,      /* a mapped file shrank or changed while in use */
    /* encodings (filecoin-formats.md section 2) */
    CUZK_ERR_ENC_LENGTH = -20,       /* wrong number of bytes for this encoding */
    CUZK_ERR_ENC_COMPRESSION = -21,  /* compression flag does not match the length */
    CUZK_ERR_ENC_INFINITY = -22,     /* infinity flag set but other bits non-zero */
    CUZK_ERR_ENC_SIGN = -23,         /* sign flag set where it is not allowed */
    CUZK_ERR_ENC_NONCANONICAL = -24, /* a coordinate or scalar is >= the modulus */
    CUZK_ERR_ENC_NOT_ON_CURVE = -25, /* point is not on the curve (or x has no y) */
    CUZK_ERR_ENC_SUBGROUP = -26,     /* point is not in the prime-order subgroup */
    CUZK_ERR_ENC_IDENTITY = -27,     /* identity where a non-identity point is required */
};

/* On a fallible function's declaration: a caller that drops the returned
 * status fails the build (-Werror; a (void) cast does not silence it). */
#ifndef CUZK_MUST_CHECK
#define CUZK_MUST_CHECK __attribute__((warn_unused_result))
#endif

/* Human-readable description of a status code; never NULL. */
const char *cuzk_strerror(int status);

/* Formats a precise message into err (if err != NULL and len > 0, always
 * NUL-terminated) and returns status, so that error paths read
 * `return cuzk_errf(err, len, CUZK_ERR_FORMAT, "...", ...)`.  The one helper
 * every layer uses for its caller-supplied error buffers (not CUZK_MUST_CHECK:
 * a caller may set the message and go on to its own cleanup path). */
int cuzk_errf(char *err, size_t len, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif
#endif
