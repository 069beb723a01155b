/* Domain elements and the Fr32 rule (rust-fil-proofs fr32/, filecoin-hashers
 * Domain::try_from_bytes). */
#include <string.h>

#include <openssl/sha.h>

#include "fil/fil_internal.h"

bool cuzk_fil_fr32_valid(const uint8_t node[32])
{
    return (node[31] & 0xc0) == 0;
}

bool cuzk_fil_domain_valid(const uint8_t dom[32])
{
    cuzk_fr t;
    return cuzk_fr_from_bytes_le(&t, dom) == CUZK_OK;
}

int cuzk_fil_domain_to_fr(cuzk_fr *out, const uint8_t dom[32], const char *what, char *err,
                          size_t err_len)
{
    if (cuzk_fr_from_bytes_le(out, dom) != CUZK_OK)
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL,
                         "%s is not a canonical field element (>= r; last byte 0x%02x)",
                         what ? what : "domain element", dom[31]);
    return CUZK_OK;
}

void cuzk_fil_sha256_trunc254(uint8_t out[32], const uint8_t *data, size_t len)
{
    /* The sha256 hasher keeps 254 bits so every node is also an Fr32 value
     * (the circuit packs the hash bits into one field element). */
    SHA256(data, len, out);
    out[31] &= 0x3f;
}
