/* The Feistel permutation behind the expander parents (rust-fil-proofs
 * storage-proofs-core crypto/feistel.rs), with its round function
 * tabulated.
 *
 * The round function F(right, key) is BLAKE2b-512(right BE || key BE)
 * masked to half_bits, and `right` itself has only half_bits bits (<= 17
 * for every Filecoin sector size, <= 18 for any graph of < 2^32 nodes).
 * A permutation costs ~48 rounds per node (8 parents x 3 rounds x ~2
 * cycle-walk steps), and BLAKE2b through libcrypto's EVP (the project's
 * rule: no hand-rolled hashes) costs ~3,100 instructions a call, so hashing
 * per query made a graph sweep 12x slower than the former hand-written
 * compression (docs/perf-notes.md).  Instead init hashes every round input
 * once, 3 x 2^half_bits BLAKE2b (393 K, ~94 ms on one core at 32/64
 * GiB; spread over a cuzk_par), into three u32 tables; a permutation is
 * then table lookups only, and so cannot fail: no hashing, no allocation,
 * no libcrypto state per thread.  Each table-building task owns one
 * EVP_MD_CTX, re-initialised per hash; any libcrypto failure fails init. */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "cuzk/seal_graph.h"
#include "cuzk/status.h"

#define FEISTEL_ROUNDS 3
#define TABLE_TASK_MIN 2048 /* entries per table-building task, at least */
#define TABLE_TASK_MAX 256  /* tasks, at most */

/* BLAKE2b-512(right BE || key BE)[..8] BE, masked, through c; 0 on a
 * libcrypto failure. */
static int round_hash(uint64_t *out, EVP_MD_CTX *c, const EVP_MD *md, uint64_t right, uint64_t key,
                      uint64_t right_mask)
{
    uint8_t data[16], h[64];
    for (int b = 0; b < 8; b++) {
        data[b] = (uint8_t)(right >> (56 - 8 * b));
        data[8 + b] = (uint8_t)(key >> (56 - 8 * b));
    }
    unsigned len = 0;
    if (EVP_DigestInit_ex2(c, md, NULL) != 1 || EVP_DigestUpdate(c, data, 16) != 1 ||
        EVP_DigestFinal_ex(c, h, &len) != 1 || len != 64)
        return 0;
    uint64_t w = 0; /* the first 8 digest bytes, big endian */
    for (int b = 0; b < 8; b++)
        w = w << 8 | h[b];
    *out = w & right_mask;
    return 1;
}

static int no_blake2b(char *err, size_t err_len)
{
    return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                     "seal graph: libcrypto has no BLAKE2B-512 (the Feistel round function of the "
                     "expander graph); OpenSSL 3 with its default provider is needed");
}

int cuzk_seal_feistel_round(uint64_t *out, uint64_t right, uint64_t key, uint64_t right_mask, char *err,
                            size_t err_len)
{
    if (!out) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "feistel round: NULL output");
    EVP_MD *md = EVP_MD_fetch(NULL, "BLAKE2B-512", NULL);
    if (!md) return no_blake2b(err, err_len);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int ok = c && round_hash(out, c, md, right, key, right_mask);
    EVP_MD_CTX_free(c);
    EVP_MD_free(md);
    return ok ? CUZK_OK : cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "feistel round: BLAKE2b-512 failed");
}

/* ---- tables ---------------------------------------------------------------- */

typedef struct {
    cuzk_seal_feistel *f;
    const EVP_MD *md;
    size_t entries, per_task; /* 3 * 2^half_bits entries in all */
    int failed[TABLE_TASK_MAX];
} table_job;

static void table_task(void *arg, size_t index)
{
    table_job *j = arg;
    const size_t size = (size_t)1 << j->f->half_bits;
    size_t lo = index * j->per_task, hi = lo + j->per_task < j->entries ? lo + j->per_task : j->entries;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int ok = c != NULL;
    for (size_t e = lo; ok && e < hi; e++) {
        uint64_t v;
        ok = round_hash(&v, c, j->md, e % size, j->f->keys[e / size], j->f->right_mask);
        j->f->table[e] = (uint32_t)v; /* < 2^half_bits <= 2^20 */
    }
    EVP_MD_CTX_free(c);
    j->failed[index] = !ok;
}

static int build_tables(cuzk_seal_feistel *f, cuzk_par *par, char *err, size_t err_len)
{
    const size_t entries = (size_t)FEISTEL_ROUNDS << f->half_bits;
    f->table = malloc(entries * sizeof *f->table);
    if (!f->table)
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM,
                         "seal graph: cannot allocate %zu bytes of Feistel tables",
                         entries * sizeof *f->table);
    EVP_MD *md = EVP_MD_fetch(NULL, "BLAKE2B-512", NULL);
    if (!md) return no_blake2b(err, err_len);
    table_job *j = calloc(1, sizeof *j);
    if (!j) {
        EVP_MD_free(md);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "seal graph: out of memory");
    }
    j->f = f, j->md = md, j->entries = entries;
    size_t tasks = 4 * (size_t)cuzk_par_threads(par);
    if (tasks > TABLE_TASK_MAX) tasks = TABLE_TASK_MAX;
    j->per_task = (entries + tasks - 1) / tasks;
    if (j->per_task < TABLE_TASK_MIN) j->per_task = TABLE_TASK_MIN;
    tasks = (entries + j->per_task - 1) / j->per_task;
    cuzk_par_for(par, table_task, j, tasks);
    int failed = 0;
    for (size_t t = 0; t < tasks; t++)
        failed |= j->failed[t];
    free(j);
    EVP_MD_free(md);
    if (failed)
        return cuzk_errf(
            err, err_len, CUZK_ERR_NOMEM,
            "seal graph: BLAKE2b-512 failed while tabulating the Feistel rounds (out of memory?)");
    return CUZK_OK;
}

int cuzk_seal_feistel_init(cuzk_seal_feistel *f, uint64_t num_elements, const uint64_t keys[4], cuzk_par *par,
                           char *err, size_t err_len)
{
    if (!f || !keys) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "feistel: NULL argument");
    memset(f, 0, sizeof *f);
    /* feistel.rs precompute: the smallest power of 4 >= n, at least 4 */
    unsigned log4 = 1;
    uint64_t next_pow4 = 4;
    while (next_pow4 < num_elements && log4 <= CUZK_SEAL_FEISTEL_MAX_HALF_BITS)
        next_pow4 *= 4, log4++;
    if (log4 > CUZK_SEAL_FEISTEL_MAX_HALF_BITS)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "feistel: %llu elements; the round tables allow at most 4^%d (a graph of up to "
                         "2^32 nodes needs 4^18)",
                         (unsigned long long)num_elements, CUZK_SEAL_FEISTEL_MAX_HALF_BITS);
    f->n = num_elements ? num_elements : 1;
    for (int i = 0; i < 4; i++)
        f->keys[i] = keys[i];
    f->right_mask = (1ull << log4) - 1;
    f->left_mask = f->right_mask << log4;
    f->half_bits = log4;
    int st = build_tables(f, par, err, err_len);
    if (st) cuzk_seal_feistel_free(f);
    return st;
}

void cuzk_seal_feistel_free(cuzk_seal_feistel *f)
{
    if (!f) return;
    free(f->table);
    f->table = NULL;
    f->n = 0; /* permute / invert of a freed permutation answer UINT64_MAX */
}

/* ---- the permutation: lookups only ------------------------------------------ */

uint64_t cuzk_seal_feistel_encode(const cuzk_seal_feistel *f, uint64_t index)
{
    const uint32_t *t = f->table;
    const size_t size = (size_t)1 << f->half_bits;
    uint64_t left = (index & f->left_mask) >> f->half_bits, right = index & f->right_mask;
    for (int i = 0; i < FEISTEL_ROUNDS; i++) {
        uint64_t l = right;
        right = left ^ t[(size_t)i * size + right];
        left = l;
    }
    return (left << f->half_bits) | right;
}

uint64_t cuzk_seal_feistel_decode(const cuzk_seal_feistel *f, uint64_t index)
{
    const uint32_t *t = f->table;
    const size_t size = (size_t)1 << f->half_bits;
    uint64_t left = (index & f->left_mask) >> f->half_bits, right = index & f->right_mask;
    for (int i = FEISTEL_ROUNDS - 1; i >= 0; i--) {
        uint64_t l = right ^ t[(size_t)i * size + left];
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
    (void)allow_simd; /* lookups: nothing to vectorise */
    for (int i = 0; i < 8; i++)
        out[i] = cuzk_seal_feistel_permute(f, in[i]);
}

void cuzk_seal_feistel_permute_range(const cuzk_seal_feistel *f, uint64_t first, size_t count, uint64_t *out)
{
    for (size_t i = 0; i < count; i++)
        out[i] = first + i >= first ? cuzk_seal_feistel_permute(f, first + i) : UINT64_MAX;
}
