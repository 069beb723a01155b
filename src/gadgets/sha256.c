/* bellperson sha256.rs and filecoin-hashers' Sha256Function circuits.
 *
 * The round structure follows Rust's exactly, including its deferred
 * additions: `a` and `e` are kept as lists of operands (Maybe::Deferred)
 * and summed by one addmany when next needed, so e = d + temp1 costs one
 * 6-operand addmany and a = temp1 + temp2 one 7-operand addmany; the final
 * h0 and h4 fold the chaining value into the same deferred sums (8 and 7
 * operands).  Which operands are constant (the IV in the first block, the
 * round constants) decides what folds, so the constant/allocated pattern
 * of the inputs must be exactly Rust's. */
#include <string.h>

#include "cuzk/gadgets_sha256.h"
#include "cuzk/status.h"
#include "gadgets/sha256_witness.h"

/* FIPS 180-4 round constants (shared with sha256_witness.c). */
const uint32_t cuzk_sha256_round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* A value that is either concrete or a deferred sum (Rust's Maybe). */
typedef struct {
    bool deferred;
    size_t n;
    cuzk_u32 ops[8];
} maybe_u32;

/* Maybe::compute(others): the concrete value, or addmany(ops ++ others). */
static int maybe_compute(cuzk_multieq *me, cuzk_u32 *out, maybe_u32 *m, const cuzk_u32 *other)
{
    if (!m->deferred) {
        *out = m->ops[0];
        return CUZK_OK;
    }
    if (other) m->ops[m->n++] = *other;
    return cuzk_u32_addmany(me, out, m->ops, m->n);
}

/* s = rotr(x, r0) ^ rotr(x, r1) ^ (shift ? shr(x, r2) : rotr(x, r2)) */
static int sigma(cuzk_cs *cs, cuzk_u32 *out, const cuzk_u32 *x, unsigned r0, unsigned r1, unsigned r2,
                 bool shift)
{
    cuzk_u32 a, b, t;
    cuzk_u32_rotr(&a, x, r0);
    cuzk_u32_rotr(&b, x, r1);
    int rc = cuzk_u32_xor(cs, &t, &a, &b);
    if (rc) return rc;
    if (shift)
        cuzk_u32_shr(&b, x, r2);
    else
        cuzk_u32_rotr(&b, x, r2);
    return cuzk_u32_xor(cs, out, &t, &b);
}

static int message_schedule(cuzk_cs *cs, cuzk_multieq *me, cuzk_u32 w[64], const cuzk_bool in[512])
{
    int rc;
    for (int i = 0; i < 16; i++)
        cuzk_u32_from_bits_be(&w[i], in + 32 * i);
    for (int i = 16; i < 64; i++) {
        cuzk_u32 ops[4];
        ops[0] = w[i - 16];
        ops[2] = w[i - 7];
        if ((rc = sigma(cs, &ops[1], &w[i - 15], 7, 18, 3, true))) return rc;
        if ((rc = sigma(cs, &ops[3], &w[i - 2], 17, 19, 10, true))) return rc;
        if ((rc = cuzk_u32_addmany(me, &w[i], ops, 4))) return rc;
    }
    return CUZK_OK;
}

typedef struct {
    maybe_u32 a, e;
    cuzk_u32 b, c, d, f, g, h;
} sha_state;

static int round_fn(cuzk_cs *cs, cuzk_multieq *me, sha_state *s, const cuzk_u32 *w, uint32_t k)
{
    cuzk_u32 new_e, new_a, s1, ch, s0, maj, kc;
    int rc;
    if ((rc = maybe_compute(me, &new_e, &s->e, NULL))) return rc;
    if ((rc = sigma(cs, &s1, &new_e, 6, 11, 25, false))) return rc;
    if ((rc = cuzk_u32_sha256_ch(cs, &ch, &new_e, &s->f, &s->g))) return rc;
    cuzk_u32_constant(&kc, k);
    if ((rc = maybe_compute(me, &new_a, &s->a, NULL))) return rc;
    if ((rc = sigma(cs, &s0, &new_a, 2, 13, 22, false))) return rc;
    if ((rc = cuzk_u32_sha256_maj(cs, &maj, &new_a, &s->b, &s->c))) return rc;
    /* temp1 = [h, s1, ch, K, w]; e = temp1 ++ [d]; a = temp1 ++ [s0, maj] */
    cuzk_u32 temp1[5] = {s->h, s1, ch, kc, *w};
    s->h = s->g;
    s->g = s->f;
    s->f = new_e;
    s->e.deferred = true;
    memcpy(s->e.ops, temp1, sizeof temp1);
    s->e.ops[5] = s->d;
    s->e.n = 6;
    s->d = s->c;
    s->c = s->b;
    s->b = new_a;
    s->a.deferred = true;
    memcpy(s->a.ops, temp1, sizeof temp1);
    s->a.ops[5] = s0;
    s->a.ops[6] = maj;
    s->a.n = 7;
    return CUZK_OK;
}

static int compress_body(cuzk_cs *cs, cuzk_multieq *me, cuzk_u32 out[8], const cuzk_bool in[512],
                         const cuzk_u32 cur[8])
{
    cuzk_u32 w[64];
    int rc;
    if ((rc = message_schedule(cs, me, w, in))) return rc;
    sha_state s;
    s.a.deferred = s.e.deferred = false;
    s.a.n = s.e.n = 1;
    s.a.ops[0] = cur[0];
    s.b = cur[1], s.c = cur[2], s.d = cur[3];
    s.e.ops[0] = cur[4];
    s.f = cur[5], s.g = cur[6], s.h = cur[7];
    for (int i = 0; i < 64; i++)
        if ((rc = round_fn(cs, me, &s, &w[i], cuzk_sha256_round_k[i]))) return rc;
    cuzk_u32 pair[2];
#define ADD2(dst, idx, x) (pair[0] = cur[idx], pair[1] = (x), cuzk_u32_addmany(me, &out[dst], pair, 2))
    if ((rc = maybe_compute(me, &out[0], &s.a, &cur[0]))) return rc;
    if ((rc = ADD2(1, 1, s.b)) || (rc = ADD2(2, 2, s.c)) || (rc = ADD2(3, 3, s.d))) return rc;
    if ((rc = maybe_compute(me, &out[4], &s.e, &cur[4]))) return rc;
    if ((rc = ADD2(5, 5, s.f)) || (rc = ADD2(6, 6, s.g)) || (rc = ADD2(7, 7, s.h))) return rc;
#undef ADD2
    return CUZK_OK;
}

int cuzk_sha256_compress(cuzk_cs *cs, cuzk_u32 out[8], const cuzk_bool in[512], const cuzk_u32 cur[8])
{
    /* a cs that records no constraint (WITNESS mode, a count-only pilot)
     * gets the assignments natively (sha256_witness.c) */
    if (!cuzk_cs_records_constraints(cs)) return cuzk_sha256_compress_native(cs, out, in, cur);
    cuzk_multieq *me;
    int rc = cuzk_multieq_begin(cs, &me);
    if (rc) return rc;
    rc = compress_body(cs, me, out, in, cur);
    int rc2 = cuzk_multieq_end(me);
    return rc ? rc : rc2;
}

int cuzk_sha256(cuzk_cs *cs, cuzk_bool out[256], const cuzk_bool *in, size_t nbits)
{
    if (nbits % 8 || nbits > ((size_t)1 << 20))
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "sha256: %zu input bits (a multiple of 8, at most 2^20)",
                                 nbits);
    size_t total = (nbits + 1 + 64 + 511) / 512 * 512;
    cuzk_u32 cur[8], next[8];
    for (int i = 0; i < 8; i++)
        cuzk_u32_constant(&cur[i], IV[i]);
    cuzk_bool block[512];
    int rc = CUZK_OK;
    for (size_t off = 0; off < total && !rc; off += 512) {
        for (size_t i = 0; i < 512; i++) {
            size_t p = off + i;
            if (p < nbits)
                block[i] = in[p];
            else if (p == nbits)
                block[i] = cuzk_bool_constant(true);
            else if (p >= total - 64)
                block[i] = cuzk_bool_constant(((uint64_t)nbits >> (total - 1 - p)) & 1);
            else
                block[i] = cuzk_bool_constant(false);
        }
        rc = cuzk_sha256_compress(cs, next, block, cur);
        memcpy(cur, next, sizeof cur);
    }
    if (rc) return rc;
    for (int i = 0; i < 8; i++)
        cuzk_u32_into_bits_be(out + 32 * i, &cur[i]);
    return CUZK_OK;
}

/* ---- Filecoin Sha256Function ------------------------------------------------------ */

size_t cuzk_bits_reverse_bytes(cuzk_bool *out, const cuzk_bool *bits, size_t n)
{
    size_t m = (n + 7) / 8 * 8;
    for (size_t i = 0; i < m; i++) {
        size_t src = (i & ~(size_t)7) | (7 - (i & 7));
        out[i] = src < n ? bits[src] : cuzk_bool_constant(false);
    }
    return m;
}

int cuzk_fil_sha256_hash_circuit(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *bits, size_t nbits)
{
    cuzk_bool be[256], le[256];
    int rc = cuzk_sha256(cs, be, bits, nbits);
    if (rc) return rc;
    cuzk_bits_reverse_bytes(le, be, 256);
    return cuzk_pack_bits(cs, out, le, 254);
}

int cuzk_fil_sha256_hash_leaf_bits(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *left, size_t nl,
                                   const cuzk_bool *right, size_t nr)
{
    if (nl > 256 || nr > 256)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "sha256 hash_leaf_bits: %zu + %zu bits (256 each at most)",
                                 nl, nr);
    cuzk_bool pre[512];
    size_t n = cuzk_bits_reverse_bytes(pre, left, nl);
    n += cuzk_bits_reverse_bytes(pre + n, right, nr);
    return cuzk_fil_sha256_hash_circuit(cs, out, pre, n);
}

int cuzk_fil_sha256_hash2(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_bool ab[255], bb[255];
    int rc;
    if ((rc = cuzk_num_to_bits_le(cs, ab, a))) return rc;
    if ((rc = cuzk_num_to_bits_le(cs, bb, b))) return rc;
    return cuzk_fil_sha256_hash_leaf_bits(cs, out, ab, 255, bb, 255);
}
