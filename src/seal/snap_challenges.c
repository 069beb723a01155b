/* SnapDeals randomness: the partition challenges (storage-proofs-update
 * challenges.rs), phi and rho (vanilla.rs) and the label update.  All three
 * hash with Poseidon arity 2 under neptune's HashType::Custom(
 * CType::Arbitrary(1)) domain tag, 1 * 2^40, so they can never collide with
 * a tree node (MerkleTree tag 3) hashed from the same two values. */
#include <string.h>

#include "cuzk/poseidon.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"

#define SNAP_FR_CAPACITY 254 /* Fr::CAPACITY: bits usable from one digest */

int cuzk_snap_hash_randomness(cuzk_fr *out, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr tag, in[2] = {*a, *b};
    int st = cuzk_poseidon_tag_custom(&tag, 1);
    if (st) return st;
    return cuzk_poseidon_hash_tagged(out, 2, &tag, in, 2);
}

static int snap_fr(cuzk_fr *out, const uint8_t b[32], const char *what, char *err, size_t err_len)
{
    if (cuzk_fr_from_bytes_le(out, b) != CUZK_OK)
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL,
                         "%s is not a canonical field element (>= r)", what);
    return CUZK_OK;
}

int cuzk_snap_challenges(uint32_t *out, size_t cap, const cuzk_snap_shape *s, const uint8_t comm_r_new[32],
                         uint32_t k, char *err, size_t err_len)
{
    if (!out || !s || !comm_r_new || cap < s->challenges || k >= s->partitions ||
        s->challenge_bits <= s->partition_bits || s->challenge_bits > 32)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "snap challenges: bad arguments (k = %u of %u partitions)", k,
                         s ? s->partitions : 0);
    cuzk_fr comm, idx, digest;
    int st = snap_fr(&comm, comm_r_new, "comm_r_new", err, err_len);
    if (st) return st;
    uint32_t rb = s->challenge_bits - s->partition_bits;
    uint32_t per_digest = SNAP_FR_CAPACITY / rb;
    uint64_t digests_per_partition = (s->challenges + per_digest - 1) / per_digest;
    uint64_t digest_index = (uint64_t)k * digests_per_partition;
    uint8_t bits[32];
    for (uint32_t n = 0, i = 0; n < s->challenges; n++) {
        if (i == 0) {
            cuzk_fr_from_u64(&idx, digest_index);
            if ((st = cuzk_snap_hash_randomness(&digest, &comm, &idx)))
                return cuzk_errf(err, err_len, st, "snap challenges: poseidon: %s", cuzk_strerror(st));
            cuzk_fr_to_bytes_le(bits, &digest);
        }
        uint32_t c = 0;
        for (uint32_t b = 0; b < rb; b++) {
            uint32_t at = i * rb + b;
            c |= (uint32_t)((bits[at / 8] >> (at % 8)) & 1) << b;
        }
        out[n] = c | (uint32_t)((uint64_t)k << rb);
        if (++i == per_digest) {
            i = 0;
            digest_index++;
        }
    }
    return CUZK_OK;
}

int cuzk_snap_phi(uint8_t phi[32], const uint8_t comm_d_new[32], const uint8_t comm_r_old[32], char *err,
                  size_t err_len)
{
    cuzk_fr d, r, out;
    int st = snap_fr(&d, comm_d_new, "comm_d_new", err, err_len);
    if (!st) st = snap_fr(&r, comm_r_old, "comm_r_old", err, err_len);
    if (st) return st;
    if ((st = cuzk_snap_hash_randomness(&out, &d, &r)))
        return cuzk_errf(err, err_len, st, "snap phi: poseidon: %s", cuzk_strerror(st));
    cuzk_fr_to_bytes_le(phi, &out);
    return CUZK_OK;
}

int cuzk_snap_rho(cuzk_fr *rho, const uint8_t phi[32], uint32_t high, char *err, size_t err_len)
{
    cuzk_fr p, hi;
    int st = snap_fr(&p, phi, "phi", err, err_len);
    if (st) return st;
    cuzk_fr_from_u64(&hi, high);
    if ((st = cuzk_snap_hash_randomness(rho, &p, &hi)))
        return cuzk_errf(err, err_len, st, "snap rho: poseidon: %s", cuzk_strerror(st));
    return CUZK_OK;
}

int cuzk_snap_encode_node(uint8_t out[32], const uint8_t old[32], const uint8_t data[32], const cuzk_fr *rho)
{
    cuzk_fr o, d;
    if (cuzk_fr_from_bytes_le(&o, old) != CUZK_OK || cuzk_fr_from_bytes_le(&d, data) != CUZK_OK)
        return CUZK_ERR_ENC_NONCANONICAL;
    cuzk_fr_mul(&d, &d, rho);
    cuzk_fr_add(&o, &o, &d);
    cuzk_fr_to_bytes_le(out, &o);
    return CUZK_OK;
}
