/* zcash encodings of G1 and G2 points (filecoin-formats.md section 2).
 *
 * Byte 0 carries three flags: 0x80 compressed, 0x40 infinity, 0x20 sign
 * (y is the lexicographically larger root).  The checks run in a fixed
 * order so that every malformed input gets one precise code:
 *   compression flag vs length -> CUZK_ERR_ENC_COMPRESSION
 *   sign flag where not allowed (uncompressed, infinity) -> CUZK_ERR_ENC_SIGN
 *   infinity flag with any other bit set -> CUZK_ERR_ENC_INFINITY
 *   a coordinate >= p once the flag bits are masked -> CUZK_ERR_ENC_NONCANONICAL
 *   x without a y / (x, y) not on the curve -> CUZK_ERR_ENC_NOT_ON_CURVE
 *   not in the prime-order subgroup (checked variants) -> CUZK_ERR_ENC_SUBGROUP
 * Encodings are public data: the decoders are not constant time.  On any
 * error the output point is set to infinity. */
#include <string.h>

#include "ec/ec_internal.h"

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SIGN 0x20
#define FLAG_MASK 0x1f

/* Are all bits zero except the three flags of byte 0? */
static bool rest_is_zero(const uint8_t *in, size_t len)
{
    uint8_t acc = in[0] & FLAG_MASK;
    for (size_t i = 1; i < len; i++) acc |= in[i];
    return acc == 0;
}

/* Flag checks shared by G1 and G2; *inf is set when the encoding is a
 * (well-formed) infinity. */
static int check_flags(bool *inf, const uint8_t *in, size_t len, bool compressed)
{
    uint8_t f = in[0];
    *inf = false;
    if (((f & FLAG_COMPRESSED) != 0) != compressed) return CUZK_ERR_ENC_COMPRESSION;
    if ((f & FLAG_SIGN) && (!compressed || (f & FLAG_INFINITY))) return CUZK_ERR_ENC_SIGN;
    if (f & FLAG_INFINITY) {
        if (!rest_is_zero(in, len)) return CUZK_ERR_ENC_INFINITY;
        *inf = true;
    }
    return CUZK_OK;
}

/* The first field element of an encoding, flag bits masked. */
static int fp_from_masked(cuzk_fp *r, const uint8_t in[48])
{
    uint8_t buf[48];
    memcpy(buf, in, 48);
    buf[0] &= FLAG_MASK;
    return cuzk_fp_from_bytes_be(r, buf);
}

/* ---- G1 ------------------------------------------------------------------ */
void cuzk_g1_compress(uint8_t out[48], const cuzk_g1_affine *p)
{
    if (cuzk_g1_affine_is_inf(p)) {
        memset(out, 0, 48);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    cuzk_fp_to_bytes_be(out, &p->x);
    out[0] |= FLAG_COMPRESSED;
    if (cuzk_fp_is_lexicographically_largest(&p->y)) out[0] |= FLAG_SIGN;
}

void cuzk_g1_serialize(uint8_t out[96], const cuzk_g1_affine *p)
{
    if (cuzk_g1_affine_is_inf(p)) {
        memset(out, 0, 96);
        out[0] = FLAG_INFINITY;
        return;
    }
    cuzk_fp_to_bytes_be(out, &p->x);
    cuzk_fp_to_bytes_be(out + 48, &p->y);
}

int cuzk_g1_decompress_unchecked(cuzk_g1_affine *r, const uint8_t in[48])
{
    bool inf;
    cuzk_fp x, y, rhs;
    r->x = r->y = CUZK_FP_ZERO;
    int rc = check_flags(&inf, in, 48, true);
    if (rc != CUZK_OK || inf) return rc;
    if (fp_from_masked(&x, in) != CUZK_OK) return CUZK_ERR_ENC_NONCANONICAL;
    cuzk_fp_sqr(&rhs, &x);
    cuzk_fp_mul(&rhs, &rhs, &x);
    cuzk_fp_add(&rhs, &rhs, &CUZK_G1_B);
    if (!cuzk_fp_sqrt(&y, &rhs)) return CUZK_ERR_ENC_NOT_ON_CURVE;
    if (cuzk_fp_is_lexicographically_largest(&y) != ((in[0] & FLAG_SIGN) != 0)) cuzk_fp_neg(&y, &y);
    r->x = x;
    r->y = y;
    return CUZK_OK;
}

int cuzk_g1_deserialize_unchecked(cuzk_g1_affine *r, const uint8_t in[96])
{
    bool inf;
    cuzk_g1_affine p;
    r->x = r->y = CUZK_FP_ZERO;
    int rc = check_flags(&inf, in, 96, false);
    if (rc != CUZK_OK || inf) return rc;
    if (fp_from_masked(&p.x, in) != CUZK_OK || cuzk_fp_from_bytes_be(&p.y, in + 48) != CUZK_OK)
        return CUZK_ERR_ENC_NONCANONICAL;
    /* (0, 0) without the infinity flag is rejected here: 0 != 0^3 + 4 */
    if (cuzk_g1_affine_is_inf(&p) || !cuzk_g1_affine_is_on_curve(&p)) return CUZK_ERR_ENC_NOT_ON_CURVE;
    *r = p;
    return CUZK_OK;
}

static int g1_subgroup_or_fail(cuzk_g1_affine *r, int rc)
{
    if (rc != CUZK_OK) return rc;
    if (!cuzk_g1_affine_in_subgroup(r)) {
        r->x = r->y = CUZK_FP_ZERO;
        return CUZK_ERR_ENC_SUBGROUP;
    }
    return CUZK_OK;
}

int cuzk_g1_decompress(cuzk_g1_affine *r, const uint8_t in[48])
{
    return g1_subgroup_or_fail(r, cuzk_g1_decompress_unchecked(r, in));
}

int cuzk_g1_deserialize(cuzk_g1_affine *r, const uint8_t in[96])
{
    return g1_subgroup_or_fail(r, cuzk_g1_deserialize_unchecked(r, in));
}

int cuzk_g1_decode(cuzk_g1_affine *r, const uint8_t *in, size_t len)
{
    r->x = r->y = CUZK_FP_ZERO;
    if (len == 48) return cuzk_g1_decompress(r, in);
    if (len == 96) return cuzk_g1_deserialize(r, in);
    return CUZK_ERR_ENC_LENGTH;
}

/* ---- G2: Fp2 elements are written c1 first, then c0 ----------------------- */
static void fp2_to_bytes(uint8_t out[96], const cuzk_fp2 *a)
{
    cuzk_fp_to_bytes_be(out, &a->c1);
    cuzk_fp_to_bytes_be(out + 48, &a->c0);
}

void cuzk_g2_compress(uint8_t out[96], const cuzk_g2_affine *p)
{
    if (cuzk_g2_affine_is_inf(p)) {
        memset(out, 0, 96);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp2_to_bytes(out, &p->x);
    out[0] |= FLAG_COMPRESSED;
    if (cuzk_fp2_is_lexicographically_largest(&p->y)) out[0] |= FLAG_SIGN;
}

void cuzk_g2_serialize(uint8_t out[192], const cuzk_g2_affine *p)
{
    if (cuzk_g2_affine_is_inf(p)) {
        memset(out, 0, 192);
        out[0] = FLAG_INFINITY;
        return;
    }
    fp2_to_bytes(out, &p->x);
    fp2_to_bytes(out + 96, &p->y);
}

int cuzk_g2_decompress_unchecked(cuzk_g2_affine *r, const uint8_t in[96])
{
    bool inf;
    cuzk_fp2 x, y, rhs;
    r->x = r->y = CUZK_FP2_ZERO;
    int rc = check_flags(&inf, in, 96, true);
    if (rc != CUZK_OK || inf) return rc;
    if (fp_from_masked(&x.c1, in) != CUZK_OK || cuzk_fp_from_bytes_be(&x.c0, in + 48) != CUZK_OK)
        return CUZK_ERR_ENC_NONCANONICAL;
    cuzk_fp2_sqr(&rhs, &x);
    cuzk_fp2_mul(&rhs, &rhs, &x);
    cuzk_fp2_add(&rhs, &rhs, &CUZK_G2_B);
    if (!cuzk_fp2_sqrt(&y, &rhs)) return CUZK_ERR_ENC_NOT_ON_CURVE;
    if (cuzk_fp2_is_lexicographically_largest(&y) != ((in[0] & FLAG_SIGN) != 0)) cuzk_fp2_neg(&y, &y);
    r->x = x;
    r->y = y;
    return CUZK_OK;
}

int cuzk_g2_deserialize_unchecked(cuzk_g2_affine *r, const uint8_t in[192])
{
    bool inf;
    cuzk_g2_affine p;
    r->x = r->y = CUZK_FP2_ZERO;
    int rc = check_flags(&inf, in, 192, false);
    if (rc != CUZK_OK || inf) return rc;
    if (fp_from_masked(&p.x.c1, in) != CUZK_OK || cuzk_fp_from_bytes_be(&p.x.c0, in + 48) != CUZK_OK ||
        cuzk_fp_from_bytes_be(&p.y.c1, in + 96) != CUZK_OK ||
        cuzk_fp_from_bytes_be(&p.y.c0, in + 144) != CUZK_OK)
        return CUZK_ERR_ENC_NONCANONICAL;
    if (cuzk_g2_affine_is_inf(&p) || !cuzk_g2_affine_is_on_curve(&p)) return CUZK_ERR_ENC_NOT_ON_CURVE;
    *r = p;
    return CUZK_OK;
}

static int g2_subgroup_or_fail(cuzk_g2_affine *r, int rc)
{
    if (rc != CUZK_OK) return rc;
    if (!cuzk_g2_affine_in_subgroup(r)) {
        r->x = r->y = CUZK_FP2_ZERO;
        return CUZK_ERR_ENC_SUBGROUP;
    }
    return CUZK_OK;
}

int cuzk_g2_decompress(cuzk_g2_affine *r, const uint8_t in[96])
{
    return g2_subgroup_or_fail(r, cuzk_g2_decompress_unchecked(r, in));
}

int cuzk_g2_deserialize(cuzk_g2_affine *r, const uint8_t in[192])
{
    return g2_subgroup_or_fail(r, cuzk_g2_deserialize_unchecked(r, in));
}

int cuzk_g2_decode(cuzk_g2_affine *r, const uint8_t *in, size_t len)
{
    r->x = r->y = CUZK_FP2_ZERO;
    if (len == 96) return cuzk_g2_decompress(r, in);
    if (len == 192) return cuzk_g2_deserialize(r, in);
    return CUZK_ERR_ENC_LENGTH;
}
