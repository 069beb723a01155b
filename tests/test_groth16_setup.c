/* Tests of the test-parameter setup (src/groth16/setup.c) beyond what
 * test_groth16 / test_params check (that proofs made with the parameters
 * verify): the exact bytes.  The hashes below were taken from
 *     cuzk-bench setup --circuit chain --size 1024 --seed cuzk-test-seed
 * built from commit 3d6bc8e, when every point was a variable-base
 * cuzk_g1_mul / cuzk_g2_mul of the generator; the fixed-base tables must
 * give the same group elements, hence the same files.  Also: the same bytes
 * with and without a thread pool, and the progress reports. */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

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

static const test_case tests[] = {
    {"setup_bytes_pinned", test_setup_bytes_pinned},
};

TEST_MAIN(tests)
