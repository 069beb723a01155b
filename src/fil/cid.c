/* CID <-> commitment (go-fil-commcid): a CIDv1 whose multicodec says
 * "sealed" (FilCommitmentSealed 0xf102, multihash
 * poseidon-bls12_381-a2-fc1 0xb401) or "unsealed" (FilCommitmentUnsealed
 * 0xf101, sha2-256-trunc254-padded 0x1012), with the 32 commitment bytes as
 * the digest, written in multibase base32 lower without padding ("b...").
 * Binary: varint 1 | varint codec | varint mh code | varint 32 | digest. */
#include <string.h>

#include "fil/fil_internal.h"

#define CID_BIN_MAX 64

static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";

static int fil_b32_value(char c)
{
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= '2' && c <= '7') return c - '2' + 26;
    return -1;
}

/* Unsigned LEB128 varint, at most 9 bytes and minimal (as multiformats). */
static int fil_varint(uint64_t *v, const uint8_t *b, size_t len, size_t *pos)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < 9; i++) {
        if (*pos >= len) return -1;
        uint8_t c = b[(*pos)++];
        r |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            if (i > 0 && c == 0) return -1; /* non-minimal */
            *v = r;
            return 0;
        }
    }
    return -1;
}

static size_t fil_put_varint(uint8_t *b, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        b[n++] = c | (v ? 0x80 : 0);
    } while (v);
    return n;
}

int cuzk_fil_cid_decode(uint8_t comm[32], int *kind, const char *cid, char *err, size_t err_len)
{
    if (!comm || !kind || !cid) return CUZK_ERR_ARG;
    size_t n = strlen(cid);
    if (n < 2 || cid[0] != 'b')
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "cid: expected multibase base32 lower (prefix 'b'), got '%.1s'", cid);
    if (n - 1 > CID_BIN_MAX * 8 / 5)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "cid: %zu characters is too long", n);
    uint8_t bin[CID_BIN_MAX];
    size_t len = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 1; i < n; i++) {
        int v = fil_b32_value(cid[i]);
        if (v < 0)
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "cid: character %zu ('%c') is not base32 lower",
                             i, cid[i]);
        acc = (acc << 5) | (uint32_t)v;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            bin[len++] = (uint8_t)(acc >> bits);
        }
    }
    if (bits >= 5 || (acc & ((1u << bits) - 1)))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "cid: base32 tail has stray bits");
    size_t pos = 0;
    uint64_t version, codec, mh, dlen;
    if (fil_varint(&version, bin, len, &pos) || fil_varint(&codec, bin, len, &pos) ||
        fil_varint(&mh, bin, len, &pos) || fil_varint(&dlen, bin, len, &pos))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "cid: truncated or bad varint at byte %zu", pos);
    if (version != 1)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "cid: version %llu, expected 1",
                         (unsigned long long)version);
    if (codec == 0xf102 && mh == 0xb401) {
        *kind = CUZK_FIL_COMM_R;
    } else if (codec == 0xf101 && mh == 0x1012) {
        *kind = CUZK_FIL_COMM_D;
    } else {
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "cid: codec 0x%llx with multihash 0x%llx is not a Filecoin commitment "
                         "(sealed 0xf102/0xb401 or unsealed 0xf101/0x1012)",
                         (unsigned long long)codec, (unsigned long long)mh);
    }
    if (dlen != 32 || len - pos != 32)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "cid: digest length %llu (%zu bytes present), expected 32", (unsigned long long)dlen,
                         len - pos);
    memcpy(comm, bin + pos, 32);
    return CUZK_OK;
}

int cuzk_fil_cid_encode(char *out, size_t cap, const uint8_t comm[32], int kind)
{
    if (!out || !comm || (kind != CUZK_FIL_COMM_R && kind != CUZK_FIL_COMM_D)) return CUZK_ERR_ARG;
    uint8_t bin[CID_BIN_MAX];
    size_t len = fil_put_varint(bin, 1);
    len += fil_put_varint(bin + len, kind == CUZK_FIL_COMM_R ? 0xf102 : 0xf101);
    len += fil_put_varint(bin + len, kind == CUZK_FIL_COMM_R ? 0xb401 : 0x1012);
    len += fil_put_varint(bin + len, 32);
    memcpy(bin + len, comm, 32);
    len += 32;
    size_t need = 1 + (len * 8 + 4) / 5 + 1;
    if (cap < need) return CUZK_ERR_ARG;
    size_t o = 0;
    out[o++] = 'b';
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        acc = (acc << 8) | bin[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            out[o++] = b32[(acc >> bits) & 31];
        }
    }
    if (bits) out[o++] = b32[(acc << (5 - bits)) & 31];
    out[o] = 0;
    return CUZK_OK;
}
