/* Test helpers for PCE files (tests/test_pce*.c): writing a file's bytes,
 * and re-signing a modified file -- body SHA-256, the R1CS digest of what
 * it now holds, header SHA-256 -- so that only the checks past the
 * checksums (structure, this build's R1CS digest) stand in its way. */
#ifndef CUZK_TEST_PCE_UTIL_H
#define CUZK_TEST_PCE_UTIL_H

#include <openssl/evp.h>
#include <stdio.h>

#include "harness.h"
#include "r1cs/pce_internal.h"

static inline void pce_test_write(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(b, 1, n, f) == n);
    fclose(f);
}

static inline void pce_test_resign(uint8_t *b, size_t len)
{
    unsigned n = 32;
    CHECK(EVP_Digest(b + PCE_HEADER_BYTES, len - PCE_HEADER_BYTES, b + PCE_H_BSHA, &n, EVP_sha256(), NULL) ==
          1);
    CHECK(cuzk_pce_r1cs_digest(b + PCE_H_R1CS, b, b + PCE_H_BSHA) == CUZK_OK);
    CHECK(EVP_Digest(b, PCE_H_HSHA, b + PCE_H_HSHA, &n, EVP_sha256(), NULL) == 1);
}

#endif
