/* Tests of the test-parameter setup (src/groth16/setup.c) beyond what
 * test_groth16 / test_params check (that proofs made with the parameters
 * verify): the exact bytes.  The hashes below were taken from
 *     cuzk-bench setup --circuit chain --size 1024 --seed cuzk-test-seed
 * built from commit 3d6bc8e, when every point was a variable-base
 * cuzk_g1_mul / cuzk_g2_mul of the generator; the fixed-base tables must
 * give the same group elements, hence the same files.  Also: the same bytes
 * with and without a thread pool, and the progress reports; and the
 * streaming variable-time setup (setup_file.c) from the circuit's PCE file:
 * the same pinned bytes whatever its memory budget (one pass or 1024
 * columns a pass) and threads, refused budgets, nothing left on failure. */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include <unistd.h>

#include "cuzk/pce.h"
#include "cuzk/pool.h"
#include "groth16_util.h"

static const char PARAMS_SHA256[] = "c90dc755d0613b84a534f1b55ab350975c0af74623cdc00f9ee13c803b7bd4d9";
static const char VK_SHA256[] = "b5bf048d945781d9d80f3fcd70f159463a1589ff95289d4c44acb1e8f5416ea3";

/* SHA-256 (hex) of the params (vk_only = 0) or vk file bytes. */
static void file_sha256(char hex[65], const cuzk_groth16_params *p, int vk_only)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f) return;
    int st = vk_only ? cuzk_groth16_vk_write(f, cuzk_groth16_params_vk(p)) : cuzk_groth16_params_write(f, p);
    CHECK(st == CUZK_OK);
    CHECK(fclose(f) == 0);
    uint8_t md[32];
    unsigned mdlen = 0;
    CHECK(EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) == 1 && mdlen == 32);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
    free(buf);
}

typedef struct {
    size_t calls, last_done, total;
    int monotone;
} progress_log;

static void on_progress(void *ctx, const char *phase, size_t done, size_t total)
{
    progress_log *l = ctx;
    if (l->calls && (done <= l->last_done || total != l->total)) l->monotone = 0;
    if (!phase || !*phase || done > total) l->monotone = 0;
    l->calls++;
    l->last_done = done;
    l->total = total;
}

static void setup_chain(cuzk_groth16_params **p, const g16t_circuit *c, cuzk_par *par, progress_log *log)
{
    static const char seed[] = "cuzk-test-seed";
    char err[CUZK_G16_ERR_LEN] = "";
    int st = cuzk_groth16_setup_test_progress(p, &c->r1cs, (const uint8_t *)seed, sizeof seed - 1, par,
                                              log ? on_progress : NULL, log, err, sizeof err);
    if (st) fprintf(stderr, "  setup: %s\n", err);
    CHECK(st == CUZK_OK);
}

static void test_setup_bytes_pinned(void)
{
    g16t_circuit c;
    cuzk_fr x0 = fr_u64(3);
    CHECK(g16t_chain(&c, 1024, &x0) == CUZK_OK);
    cuzk_pool *pool = NULL;
    CHECK(cuzk_pool_create(&pool, 2) == CUZK_OK);
    for (int threaded = 0; threaded < 2; threaded++) {
        cuzk_groth16_params *p = NULL;
        progress_log log = {0, 0, 0, 1};
        setup_chain(&p, &c, threaded ? cuzk_pool_par(pool) : NULL, &log);
        if (!p) continue;
        char h[65];
        file_sha256(h, p, 0);
        CHECK(!strcmp(h, PARAMS_SHA256));
        file_sha256(h, p, 1);
        CHECK(!strcmp(h, VK_SHA256));
        /* H 1023 + IC 2 + L 1024 + A, B_G1, B_G2: at least one call per query */
        CHECK(log.monotone && log.calls >= 6 && log.last_done == log.total);
        CHECK(log.total >= 1023 + 2 + 1024);
        cuzk_groth16_params_free(p);
    }
    cuzk_pool_destroy(pool);
    g16t_free(&c);
}

static void hash_bytes(char hex[65], const uint8_t *b, size_t n)
{
    uint8_t md[32];
    unsigned mdlen = 0;
    CHECK(EVP_Digest(b, n, md, &mdlen, EVP_sha256(), NULL) == 1 && mdlen == 32);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static int hash_path(char hex[65], const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0, k;
    do {
        if (n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 1 << 20))) break;
        k = fread(buf + n, 1, cap - n, f);
        n += k;
    } while (k);
    fclose(f);
    if (buf) hash_bytes(hex, buf, n);
    free(buf);
    return buf ? 0 : -1;
}

static void test_setup_file_pinned(void)
{
    static const char seed[] = "cuzk-test-seed";
    char dir[] = "/tmp/cuzk-setup-file-XXXXXX", pce_path[256], out[256], vk[256], err[CUZK_G16_ERR_LEN] = "";
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(pce_path, sizeof pce_path, "%s/chain.pce", dir);
    snprintf(out, sizeof out, "%s/chain.params", dir);
    snprintf(vk, sizeof vk, "%s/chain.vk", dir);
    cuzk_chain_ctx chain = {.n = 1024};
    cuzk_fr_from_u64(&chain.x0, 3);
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_OTHER, .id = "chain-1024"};
    int st = cuzk_pce_extract(pce_path, &id, cuzk_chain_circuit, &chain, NULL, NULL, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  extract: %s\n", err);
    REQUIRE(st == CUZK_OK);
    cuzk_pce *pce = NULL;
    REQUIRE(cuzk_pce_open(&pce, pce_path, NULL, err, sizeof err) == CUZK_OK);
    cuzk_pce_info info_pce;
    cuzk_pce_get_info(pce, &info_pce);
    cuzk_pool *pool = NULL;
    REQUIRE(cuzk_pool_create(&pool, 2) == CUZK_OK);
    /* budgets: default (one pass), 1024 columns (two passes: 2 inputs + 1024
     * aux), inputs + 1 (342 passes) */
    static const size_t budgets[] = {0, 1024 * 96, 3 * 96};
    for (int threaded = 0; threaded < 2; threaded++)
        for (size_t b = threaded ? 0 : 1; b < sizeof budgets / sizeof budgets[0]; b++) { /* wide tables once */
            progress_log log = {0, 0, 0, 1};
            cuzk_groth16_setup_file_opts o = {.path = out, .vk_path = vk, .mem_budget = budgets[b],
                                              .window_g1 = b == 2 ? 5 : b ? 8 : 0, .window_g2 = b == 2 ? 3 : b ? 8 : 0,
                                              .par = threaded ? cuzk_pool_par(pool) : NULL,
                                              .progress = on_progress, .progress_ctx = &log};
            cuzk_groth16_setup_file_info info;
            st = cuzk_groth16_setup_test_file(pce, (const uint8_t *)seed, sizeof seed - 1, &o, &info, err,
                                              sizeof err);
            if (st) fprintf(stderr, "  setup file: %s\n", err);
            CHECK(st == CUZK_OK);
            char h[65] = "";
            CHECK(hash_path(h, out) == 0 && !strcmp(h, PARAMS_SHA256));
            CHECK(hash_path(h, vk) == 0 && !strcmp(h, VK_SHA256));
            size_t cols = info_pce.inputs + info_pce.aux, range = b ? budgets[b] / 96 : cols;
            CHECK(info.passes == (cols + range - 1) / range && info.passes == (b ? (b == 1 ? 2u : 342u) : 1u));
            CHECK(info.g1_points + info.g2_points == log.total && log.last_done == log.total);
            CHECK(info.file_bytes > 0 && info.g2_points > 0);
        }
    /* a budget below the inputs is refused before any file is made */
    unlink(out);
    cuzk_groth16_setup_file_opts o = {.path = out, .mem_budget = 96};
    CHECK(cuzk_groth16_setup_test_file(pce, (const uint8_t *)seed, sizeof seed - 1, &o, NULL, err, sizeof err) ==
          CUZK_ERR_ARG);
    CHECK(strstr(err, "fewer than the 2 inputs") != NULL);
    CHECK(access(out, F_OK) != 0);
    /* an unwritable place: a precise error, no file */
    o.path = "/nonexistent-dir/x.params";
    o.mem_budget = 0;
    CHECK(cuzk_groth16_setup_test_file(pce, (const uint8_t *)seed, sizeof seed - 1, &o, NULL, err, sizeof err) ==
          CUZK_ERR_IO);
    CHECK(strstr(err, "cannot create") != NULL);
    cuzk_pce_close(pce);
    cuzk_pool_destroy(pool);
    unlink(out);
    unlink(vk);
    unlink(pce_path);
    rmdir(dir);
}

static const test_case tests[] = {
    {"setup_bytes_pinned", test_setup_bytes_pinned},
    {"setup_file_pinned", test_setup_file_pinned},
};

TEST_MAIN(tests)
