/* The Feistel permutation behind the expander parents (rust-fil-proofs
 * storage-proofs-core crypto/feistel.rs).
 *
 * Its round function is BLAKE2b-512 of 16 bytes, about 16 calls per node
 * on average, which makes it the cost of the whole graph.  OpenSSL's
 * EVP_Digest costs ~600 ns per call here (a context allocated and set up
 * per call) against ~100 ns for one compression written out, and the
 * parent queries must not allocate, so the one-block BLAKE2b (RFC 7693
 * section 3, unkeyed, 64-byte digest) is implemented here; the tests
 * compare the round function with OpenSSL's EVP_blake2b512 on random
 * inputs. */
#include "cuzk/seal_graph.h"

static const uint64_t blake2b_iv[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
};

static const uint8_t blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t rotr64(uint64_t x, unsigned r)
{
    return (x >> r) | (x << (64 - r));
}

#define G(a, b, c, d, x, y)                                                                                  \
    do {                                                                                                     \
        a = a + b + (x), d = rotr64(d ^ a, 32);                                                              \
        c = c + d, b = rotr64(b ^ c, 24);                                                                    \
        a = a + b + (y), d = rotr64(d ^ a, 16);                                                              \
        c = c + d, b = rotr64(b ^ c, 63);                                                                    \
    } while (0)

/* First 64-bit word of BLAKE2b-512 of the 16-byte message whose two
 * little-endian words are m0, m1: one final compression with t = 16. */
static uint64_t blake2b512_16_word0(uint64_t m0, uint64_t m1)
{
    uint64_t m[16] = {m0, m1};
    /* parameter block: digest length 64, key length 0, fanout 1, depth 1 */
    const uint64_t h0 = blake2b_iv[0] ^ 0x01010040ull;
    uint64_t v[16] = {h0,
                      blake2b_iv[1],
                      blake2b_iv[2],
                      blake2b_iv[3],
                      blake2b_iv[4],
                      blake2b_iv[5],
                      blake2b_iv[6],
                      blake2b_iv[7],
                      blake2b_iv[0],
                      blake2b_iv[1],
                      blake2b_iv[2],
                      blake2b_iv[3],
                      blake2b_iv[4] ^ 16, /* byte counter */
                      blake2b_iv[5],
                      ~blake2b_iv[6], /* final block */
                      blake2b_iv[7]};
    /* fully unrolled: sigma indices become constants and the 14 zero
     * message words fold away */
#pragma GCC unroll 12
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = blake2b_sigma[r];
        G(v[0], v[4], v[8], v[12], m[s[0]], m[s[1]]);
        G(v[1], v[5], v[9], v[13], m[s[2]], m[s[3]]);
        G(v[2], v[6], v[10], v[14], m[s[4]], m[s[5]]);
        G(v[3], v[7], v[11], v[15], m[s[6]], m[s[7]]);
        G(v[0], v[5], v[10], v[15], m[s[8]], m[s[9]]);
        G(v[1], v[6], v[11], v[12], m[s[10]], m[s[11]]);
        G(v[2], v[7], v[8], v[13], m[s[12]], m[s[13]]);
        G(v[3], v[4], v[9], v[14], m[s[14]], m[s[15]]);
    }
    return h0 ^ v[0] ^ v[8];
}

uint64_t cuzk_seal_feistel_round(uint64_t right, uint64_t key, uint64_t right_mask)
{
    /* data = right BE || key BE: as little-endian message words, byte swapped;
     * the first 8 digest bytes are read back big endian */
    uint64_t w = blake2b512_16_word0(__builtin_bswap64(right), __builtin_bswap64(key));
    return __builtin_bswap64(w) & right_mask;
}

void cuzk_seal_feistel_init(cuzk_seal_feistel *f, uint64_t num_elements, const uint64_t keys[4])
{
    /* feistel.rs precompute: the smallest power of 4 >= n, at least 4 */
    unsigned log4 = 1;
    uint64_t next_pow4 = 4;
    while (next_pow4 < num_elements)
        next_pow4 *= 4, log4++;
    f->n = num_elements ? num_elements : 1;
    for (int i = 0; i < 4; i++)
        f->keys[i] = keys[i];
    f->right_mask = (1ull << log4) - 1;
    f->left_mask = f->right_mask << log4;
    f->half_bits = log4;
}

uint64_t cuzk_seal_feistel_encode(const cuzk_seal_feistel *f, uint64_t index)
{
    uint64_t left = (index & f->left_mask) >> f->half_bits, right = index & f->right_mask;
    for (int i = 0; i < 3; i++) {
        uint64_t l = right;
        right = left ^ cuzk_seal_feistel_round(right, f->keys[i], f->right_mask);
        left = l;
    }
    return (left << f->half_bits) | right;
}

uint64_t cuzk_seal_feistel_decode(const cuzk_seal_feistel *f, uint64_t index)
{
    uint64_t left = (index & f->left_mask) >> f->half_bits, right = index & f->right_mask;
    for (int i = 2; i >= 0; i--) {
        uint64_t l = right ^ cuzk_seal_feistel_round(left, f->keys[i], f->right_mask);
        right = left;
        left = l;
    }
    return (left << f->half_bits) | right;
}

/* Cycle walking terminates because index < n lies on its own cycle. */
uint64_t cuzk_seal_feistel_permute(const cuzk_seal_feistel *f, uint64_t index)
{
    if (index >= f->n) return UINT64_MAX; /* its cycle may never enter [0, n) */
    uint64_t u = cuzk_seal_feistel_encode(f, index);
    while (u >= f->n)
        u = cuzk_seal_feistel_encode(f, u);
    return u;
}

uint64_t cuzk_seal_feistel_invert(const cuzk_seal_feistel *f, uint64_t index)
{
    if (index >= f->n) return UINT64_MAX;
    uint64_t u = cuzk_seal_feistel_decode(f, index);
    while (u >= f->n)
        u = cuzk_seal_feistel_decode(f, u);
    return u;
}

/* ---- eight permutations at once (the eight expander parents of a node) ---
 * With AVX-512 each lane runs one BLAKE2b; lanes whose value left [0, n)
 * keep encoding (a masked blend) until all eight are in range: on average
 * ~4.3 passes of the network instead of 8 x 2 scalar ones. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw")))

#define G8(a, b, c, d, x, y)                                                                                 \
    do {                                                                                                     \
        a = _mm512_add_epi64(_mm512_add_epi64(a, b), x);                                                     \
        d = _mm512_ror_epi64(_mm512_xor_si512(d, a), 32);                                                    \
        c = _mm512_add_epi64(c, d);                                                                          \
        b = _mm512_ror_epi64(_mm512_xor_si512(b, c), 24);                                                    \
        a = _mm512_add_epi64(_mm512_add_epi64(a, b), y);                                                     \
        d = _mm512_ror_epi64(_mm512_xor_si512(d, a), 16);                                                    \
        c = _mm512_add_epi64(c, d);                                                                          \
        b = _mm512_ror_epi64(_mm512_xor_si512(b, c), 63);                                                    \
    } while (0)

AVX512 static inline __m512i bswap64x8(__m512i x)
{
    const __m512i idx =
        _mm512_broadcast_i32x4(_mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
    return _mm512_shuffle_epi8(x, idx);
}

/* cuzk_seal_feistel_round on eight `right` values with one key */
AVX512 static __m512i feistel_round8(__m512i right, uint64_t key, __m512i right_mask)
{
    const __m512i zero = _mm512_setzero_si512();
    __m512i m[16];
    for (int i = 0; i < 16; i++)
        m[i] = zero;
    m[0] = bswap64x8(right);
    m[1] = _mm512_set1_epi64((long long)__builtin_bswap64(key));
    const __m512i h0 = _mm512_set1_epi64((long long)(blake2b_iv[0] ^ 0x01010040ull));
    __m512i v[16];
    v[0] = h0;
    for (int i = 1; i < 8; i++)
        v[i] = _mm512_set1_epi64((long long)blake2b_iv[i]);
    for (int i = 0; i < 8; i++)
        v[8 + i] = _mm512_set1_epi64((long long)blake2b_iv[i]);
    v[12] = _mm512_set1_epi64((long long)(blake2b_iv[4] ^ 16));
    v[14] = _mm512_set1_epi64((long long)~blake2b_iv[6]);
#pragma GCC unroll 12
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = blake2b_sigma[r];
        G8(v[0], v[4], v[8], v[12], m[s[0]], m[s[1]]);
        G8(v[1], v[5], v[9], v[13], m[s[2]], m[s[3]]);
        G8(v[2], v[6], v[10], v[14], m[s[4]], m[s[5]]);
        G8(v[3], v[7], v[11], v[15], m[s[6]], m[s[7]]);
        G8(v[0], v[5], v[10], v[15], m[s[8]], m[s[9]]);
        G8(v[1], v[6], v[11], v[12], m[s[10]], m[s[11]]);
        G8(v[2], v[7], v[8], v[13], m[s[12]], m[s[13]]);
        G8(v[3], v[4], v[9], v[14], m[s[14]], m[s[15]]);
    }
    __m512i w = _mm512_xor_si512(h0, _mm512_xor_si512(v[0], v[8]));
    return _mm512_and_si512(bswap64x8(w), right_mask);
}

AVX512 static __m512i encode8(const cuzk_seal_feistel *f, __m512i index)
{
    const __m512i rmask = _mm512_set1_epi64((long long)f->right_mask);
    const __m512i lmask = _mm512_set1_epi64((long long)f->left_mask);
    __m512i left = _mm512_srli_epi64(_mm512_and_si512(index, lmask), f->half_bits);
    __m512i right = _mm512_and_si512(index, rmask);
    for (int i = 0; i < 3; i++) {
        __m512i l = right;
        right = _mm512_xor_si512(left, feistel_round8(right, f->keys[i], rmask));
        left = l;
    }
    return _mm512_or_si512(_mm512_slli_epi64(left, f->half_bits), right);
}

AVX512 static void permute8_avx512(const cuzk_seal_feistel *f, const uint64_t in[8], uint64_t out[8])
{
    const __m512i n = _mm512_set1_epi64((long long)f->n);
    __m512i x = _mm512_loadu_si512(in);
    __mmask8 bad = _mm512_cmpge_epu64_mask(x, n);
    __m512i u = encode8(f, x);
    __mmask8 pending = (__mmask8)(~bad & _mm512_cmpge_epu64_mask(u, n));
    while (pending) {
        u = _mm512_mask_mov_epi64(u, pending, encode8(f, u));
        pending &= _mm512_cmpge_epu64_mask(u, n);
    }
    u = _mm512_mask_mov_epi64(u, bad, _mm512_set1_epi64(-1)); /* index >= n */
    _mm512_storeu_si512(out, u);
}

/* Lanes are refilled with the next index as soon as theirs lands in
 * [0, n), so every pass does eight useful encodings.  first + count <= n. */
AVX512 static void permute_range_avx512(const cuzk_seal_feistel *f, uint64_t first, size_t count,
                                        uint64_t *out)
{
    const __m512i n = _mm512_set1_epi64((long long)f->n);
    uint64_t x[8], slot[8];
    __mmask8 active = 0;
    size_t next = 0;
    for (int l = 0; l < 8 && next < count; l++, next++) {
        x[l] = first + next, slot[l] = next;
        active |= (__mmask8)(1u << l);
    }
    while (active) {
        __m512i u = encode8(f, _mm512_loadu_si512(x));
        __mmask8 done = active & _mm512_cmplt_epu64_mask(u, n);
        _mm512_storeu_si512(x, u); /* lanes still walking continue from u */
        for (int l = 0; l < 8; l++) {
            if (!(done >> l & 1)) continue;
            out[slot[l]] = x[l];
            if (next < count) {
                x[l] = first + next, slot[l] = next++;
            } else {
                active &= (__mmask8) ~(1u << l);
            }
        }
    }
}

static int have_avx512(void)
{
    static int cached = -1; /* benign race: every thread computes the same value */
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    }
    return cached;
}
#endif

void cuzk_seal_feistel_permute8(const cuzk_seal_feistel *f, const uint64_t in[8], uint64_t out[8],
                                int allow_simd)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (allow_simd && have_avx512()) return permute8_avx512(f, in, out);
#endif
    for (int i = 0; i < 8; i++)
        out[i] = cuzk_seal_feistel_permute(f, in[i]);
}

void cuzk_seal_feistel_permute_range(const cuzk_seal_feistel *f, uint64_t first, size_t count, uint64_t *out)
{
    size_t valid = first >= f->n ? 0 : f->n - first < count ? (size_t)(f->n - first) : count;
    for (size_t i = valid; i < count; i++)
        out[i] = UINT64_MAX;
#if defined(__x86_64__) && defined(__GNUC__)
    if (valid && have_avx512()) return permute_range_avx512(f, first, valid, out);
#endif
    for (size_t i = 0; i < valid; i++)
        out[i] = cuzk_seal_feistel_permute(f, first + i);
}
