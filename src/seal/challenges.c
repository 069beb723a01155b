/* PoRep challenge derivation (storage-proofs-porep stacked/vanilla
 * challenges.rs): interactive (seed), synthetic (a fixed set derived from
 * replica_id and comm_r, then a seed-driven selection of it) and
 * non-interactive (comm_r alone).  Every challenge is a 256-bit LE integer
 * reduced as `x mod (nodes - 1) + 1`, so node 0 is never challenged.
 *
 * The synthetic PRFs are ChaCha20 (IETF: 32-bit block counter, 96-bit
 * nonce "synth-porep\0") keyed by keyed BLAKE2b-256; OpenSSL's
 * EVP_chacha20 takes the IV as counter (u32 LE) || nonce, so seeking to
 * byte offset o is counter o / 64 and skipping o % 64 keystream bytes. */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>

#include "cuzk/seal.h"
#include "cuzk/status.h"

#define SYNTH_DEFAULT_COUNT (1ull << 18)

/* x (32 bytes LE) mod (nodes - 1) + 1, most significant byte first. */
static uint64_t ch_reduce(const uint8_t x[32], uint64_t nodes)
{
    uint64_t m = nodes - 1, r = 0;
    for (int i = 31; i >= 0; i--)
        r = ((r << 8) | x[i]) % m;
    return r + 1;
}

static void ch_put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Keyed BLAKE2b-256 of a || b (blake2b_simd Params::key, hash_length 32). */
static int ch_blake2b_key(uint8_t out[32], const char *key, const uint8_t a[32], const uint8_t b[32],
                          char *err, size_t err_len)
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    size_t size = 32, outl = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_END};
    int ok = ctx && EVP_MAC_init(ctx, (const unsigned char *)key, strlen(key), params) &&
             EVP_MAC_update(ctx, a, 32) && EVP_MAC_update(ctx, b, 32) && EVP_MAC_final(ctx, out, &outl, 32) &&
             outl == 32;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    if (!ok)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "synthetic challenges: libcrypto has no BLAKE2BMAC with a 32-byte output");
    return CUZK_OK;
}

/* len keystream bytes of ChaCha20(key, "synth-porep\0") from byte offset off. */
static int ch_chacha20(uint8_t *out, size_t len, const uint8_t key[32], uint64_t off, char *err,
                       size_t err_len)
{
    if (off + len > (1ull << 32))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "synthetic challenges: keystream offset %llu + %zu past 2^32",
                         (unsigned long long)off, len);
    uint8_t iv[16];
    ch_put_le32(iv, (uint32_t)(off / 64));
    memcpy(iv + 4, "synth-porep\0", 12);
    size_t skip = (size_t)(off % 64), total = skip + len;
    uint8_t zero[256], buf[256];
    memset(zero, 0, sizeof zero);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx && EVP_EncryptInit_ex(ctx, EVP_chacha20(), NULL, key, iv);
    for (size_t done = 0; ok && done < total;) {
        int n = (int)(total - done < sizeof buf ? total - done : sizeof buf), w = 0;
        ok = EVP_EncryptUpdate(ctx, buf, &w, zero, n) && w == n;
        for (int i = 0; ok && i < n; i++)
            if (done + (size_t)i >= skip) out[done + (size_t)i - skip] = buf[i];
        done += (size_t)n;
    }
    EVP_CIPHER_CTX_free(ctx);
    if (!ok)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "synthetic challenges: libcrypto ChaCha20 failed");
    return CUZK_OK;
}

uint64_t cuzk_seal_synth_count(uint64_t nodes)
{
    return nodes < SYNTH_DEFAULT_COUNT ? nodes : SYNTH_DEFAULT_COUNT;
}

int cuzk_seal_synth_generate(uint64_t *out, uint64_t first, size_t n, uint64_t nodes,
                             const uint8_t replica_id[32], const uint8_t comm_r[32], char *err,
                             size_t err_len)
{
    if (!out || !replica_id || !comm_r || nodes < 2 || nodes >= (1ull << 32) || first + n > (1ull << 27))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "synthetic challenges: bad arguments (nodes %llu, first %llu, n %zu)",
                         (unsigned long long)nodes, (unsigned long long)first, n);
    uint8_t key[32], ks[32];
    int st =
        ch_blake2b_key(key, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r, err, err_len);
    for (size_t i = 0; !st && i < n; i++) {
        st = ch_chacha20(ks, 32, key, 32 * (first + i), err, err_len);
        if (!st) out[i] = ch_reduce(ks, nodes);
    }
    return st;
}

int cuzk_seal_synth_select(uint64_t *out, uint64_t first, size_t n, uint64_t num_synth,
                           const uint8_t replica_id[32], const uint8_t seed[32], char *err, size_t err_len)
{
    if (!out || !replica_id || !seed || !num_synth || first + n > (1ull << 30))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "synthetic selection: bad arguments (num_synth %llu, first %llu, n %zu)",
                         (unsigned long long)num_synth, (unsigned long long)first, n);
    uint8_t key[32], ks[4];
    int st = ch_blake2b_key(key, "filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed, err, err_len);
    for (size_t i = 0; !st && i < n; i++) {
        st = ch_chacha20(ks, 4, key, 4 * (first + i), err, err_len);
        uint32_t v = (uint32_t)ks[0] | (uint32_t)ks[1] << 8 | (uint32_t)ks[2] << 16 | (uint32_t)ks[3] << 24;
        if (!st) out[i] = v % num_synth;
    }
    return st;
}

/* sha256(prefix || a || b || j u32 LE) reduced; prefix may be empty. */
static uint64_t ch_hash_challenge(const char *prefix, const uint8_t a[32], const uint8_t b[32], uint32_t j,
                                  uint64_t nodes)
{
    uint8_t msg[128], h[32];
    size_t l = strlen(prefix);
    memcpy(msg, prefix, l);
    memcpy(msg + l, a, 32);
    memcpy(msg + l + 32, b, 32);
    ch_put_le32(msg + l + 64, j);
    SHA256(msg, l + 68, h);
    return ch_reduce(h, nodes);
}

int cuzk_seal_challenges(uint64_t *out, size_t cap, const cuzk_fil_seal_info *info,
                         const uint8_t replica_id[32], const uint8_t seed[32], const uint8_t comm_r[32],
                         uint32_t partition, char *err, size_t err_len)
{
    if (!out || !info || !replica_id)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "challenges: NULL argument");
    uint64_t nodes = info->sector_size / CUZK_FIL_NODE_SIZE, cpp = info->challenges_per_partition;
    if (cap < cpp || partition >= info->partitions || nodes < 2 || nodes >= (1ull << 32))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "challenges: partition %u of %u, room for %zu of %llu challenges", partition,
                         info->partitions, cap, (unsigned long long)cpp);
    if ((info->feature != CUZK_FIL_SEAL_NI && !seed) || (info->feature != CUZK_FIL_SEAL_PLAIN && !comm_r))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "challenges: %s needs %s", info->name,
                         !seed ? "the seed" : "comm_r");
    /* Rust passes the partition as u8 (`k as u8`); every registered proof
     * has fewer than 256 partitions. */
    uint32_t k = partition & 0xff;
    if (info->feature == CUZK_FIL_SEAL_SYNTHETIC) {
        uint64_t idx[64];
        if (cpp > 64)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "challenges: %llu per partition",
                             (unsigned long long)cpp);
        int st = cuzk_seal_synth_select(idx, (uint64_t)k * cpp, cpp, cuzk_seal_synth_count(nodes), replica_id,
                                        seed, err, err_len);
        for (size_t i = 0; !st && i < cpp; i++)
            st = cuzk_seal_synth_generate(&out[i], idx[i], 1, nodes, replica_id, comm_r, err, err_len);
        return st;
    }
    for (uint64_t i = 0; i < cpp; i++) {
        uint32_t j = (uint32_t)(cpp * k + i);
        out[i] = info->feature == CUZK_FIL_SEAL_NI
                     ? ch_hash_challenge("filecoin.io|PoRep|1|NonInteractive|1", replica_id, comm_r, j, nodes)
                     : ch_hash_challenge("", replica_id, seed, j, nodes);
    }
    return CUZK_OK;
}
