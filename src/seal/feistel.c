/* The Feistel permutation behind the expander parents (rust-fil-proofs
 * storage-proofs-core crypto/feistel.rs).
 *
 * Its round function is BLAKE2b-512 of 16 bytes, ~48 calls per node (8
 * parents x 3 rounds x ~2 cycle-walk steps; ~24 at 64 GiB, where 8 * nodes
 * is a power of 4 and nothing walks), which makes it the cost of the whole
 * graph.  BLAKE2b comes from OpenSSL's libcrypto (the project's rule: no
 * hand-rolled hashes).  EVP_Digest with EVP_blake2b512() spends ~5,900
 * instructions a call, ~2,600 of them on the implicit fetch, so the EVP_MD
 * is fetched once and each thread keeps one EVP_MD_CTX, re-initialised per
 * call (~3,100 instructions, of which the compression is ~1,700).  OpenSSL
 * 3.0 still frees and re-allocates its small provider context inside every
 * EVP_DigestInit (newer releases keep it when the digest is unchanged);
 * that comes from the thread's malloc cache.  The per-thread context lives
 * under a pthread key whose destructor frees it when the thread exits
 * (pool threads come and go).  docs/perf-notes.md "Feistel BLAKE2b: OpenSSL
 * instead of a hand-written compression" compares it with the former
 * hand-written code. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "cuzk/seal_graph.h"
#include "cuzk/status.h"

static pthread_once_t blake2b_once = PTHREAD_ONCE_INIT;
static EVP_MD *blake2b_md;        /* NULL: libcrypto has no BLAKE2b-512 */
static pthread_key_t blake2b_key; /* this thread's EVP_MD_CTX */
static int blake2b_key_ok;

static void free_thread_ctx(void *c)
{
    EVP_MD_CTX_free(c);
}

static void blake2b_setup(void)
{
    blake2b_key_ok = pthread_key_create(&blake2b_key, free_thread_ctx) == 0;
    blake2b_md = EVP_MD_fetch(NULL, "BLAKE2B-512", NULL);
}

/* This thread's context, created at its first call; NULL if that fails. */
static EVP_MD_CTX *thread_ctx(void)
{
    EVP_MD_CTX *c = pthread_getspecific(blake2b_key);
    if (c) return c;
    c = EVP_MD_CTX_new();
    if (c && pthread_setspecific(blake2b_key, c) != 0) {
        EVP_MD_CTX_free(c);
        c = NULL;
    }
    return c;
}

/* BLAKE2b-512 of 16 bytes into h; 0 on any libcrypto failure. */
static int blake2b512_16(uint8_t h[64], const uint8_t data[16])
{
    pthread_once(&blake2b_once, blake2b_setup);
    if (!blake2b_md || !blake2b_key_ok) return 0;
    EVP_MD_CTX *c = thread_ctx();
    unsigned len = 0;
    return c && EVP_DigestInit_ex2(c, blake2b_md, NULL) == 1 && EVP_DigestUpdate(c, data, 16) == 1 &&
           EVP_DigestFinal_ex(c, h, &len) == 1 && len == 64;
}

int cuzk_seal_feistel_setup(char *err, size_t err_len)
{
    pthread_once(&blake2b_once, blake2b_setup);
    if (!blake2b_md)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "seal graph: libcrypto has no BLAKE2B-512 (the Feistel round function of the "
                         "expander graph); OpenSSL 3 with its default provider is needed");
    if (!blake2b_key_ok)
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph: cannot create a thread key for BLAKE2b");
    uint8_t h[64], zero[16] = {0};
    if (!blake2b512_16(h, zero))
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph: BLAKE2b-512 context failed");
    return CUZK_OK;
}

uint64_t cuzk_seal_feistel_round(uint64_t right, uint64_t key, uint64_t right_mask)
{
    uint8_t data[16], h[64]; /* right BE || key BE */
    for (int b = 0; b < 8; b++) {
        data[b] = (uint8_t)(right >> (56 - 8 * b));
        data[8 + b] = (uint8_t)(key >> (56 - 8 * b));
    }
    if (!blake2b512_16(h, data)) {
        /* Once cuzk_seal_feistel_setup succeeded, only an allocation inside
         * libcrypto (out of memory) can fail.  No value would be correct,
         * and a wrong one silently corrupts a sealed sector. */
        fputs("cuzk: BLAKE2b-512 failed in the seal graph (out of memory, or cuzk_seal_feistel_setup "
              "not called / failed)\n",
              stderr);
        abort();
    }
    uint64_t w = 0; /* the first 8 digest bytes, big endian */
    for (int b = 0; b < 8; b++)
        w = w << 8 | h[b];
    return w & right_mask;
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

void cuzk_seal_feistel_permute8(const cuzk_seal_feistel *f, const uint64_t in[8], uint64_t out[8],
                                int allow_simd)
{
    (void)allow_simd; /* libcrypto's BLAKE2b has no multi-lane entry point */
    for (int i = 0; i < 8; i++)
        out[i] = cuzk_seal_feistel_permute(f, in[i]);
}

void cuzk_seal_feistel_permute_range(const cuzk_seal_feistel *f, uint64_t first, size_t count, uint64_t *out)
{
    for (size_t i = 0; i < count; i++)
        out[i] = first + i >= first ? cuzk_seal_feistel_permute(f, first + i) : UINT64_MAX;
}
