#include "cuzk/status.h"

#include <stdarg.h>
#include <stdio.h>

int cuzk_errf(char *err, size_t len, int status, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *cuzk_strerror(int status)
{
    switch (status) {
    case CUZK_OK: return "ok";
    case CUZK_ERR_ARG: return "invalid argument";
    case CUZK_ERR_NOMEM: return "out of memory";
    case CUZK_ERR_IO: return "I/O error";
    case CUZK_ERR_FORMAT: return "malformed input";
    case CUZK_ERR_UNSUPPORTED: return "not supported by this build";
    case CUZK_ERR_CHANGED: return "file changed or shrank while mapped";
    case CUZK_ERR_ENC_LENGTH: return "wrong encoding length";
    case CUZK_ERR_ENC_COMPRESSION: return "compression flag does not match the encoding length";
    case CUZK_ERR_ENC_INFINITY: return "infinity flag set but the remaining bits are not all zero";
    case CUZK_ERR_ENC_SIGN: return "sign flag set on an uncompressed or infinity encoding";
    case CUZK_ERR_ENC_NONCANONICAL: return "coordinate is not canonical (>= field modulus)";
    case CUZK_ERR_ENC_NOT_ON_CURVE: return "point is not on the curve";
    case CUZK_ERR_ENC_SUBGROUP: return "point is not in the prime-order subgroup";
    case CUZK_ERR_ENC_IDENTITY: return "point is the identity where a non-identity point is required";
    default: return "unknown error";
    }
}
