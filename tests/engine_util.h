/* Test helpers shared by the engine tests: a private param cache directory
 * (created on first use, removed with its files at exit; the chain TEST
 * params are in its cuzk-test/ subdirectory), a small engine
 * configuration that uses it, engine start-up checked by CHECK, and
 * millisecond sleep / monotonic clock for the scheduling tests.
 *
 * Define ENGINE_TEST_NAME (a short word: it names the cache directory,
 * /tmp/cuzk-engine-<name>-XXXXXX) before including this header. */
#ifndef CUZK_TEST_ENGINE_UTIL_H
#define CUZK_TEST_ENGINE_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/groth16.h"
#include "cuzk/pce.h"
#include "cuzk/r1cs.h"
#include "harness.h"

#ifndef ENGINE_TEST_NAME
#error "define ENGINE_TEST_NAME before including engine_util.h"
#endif

static char g_cache[64];

/* Removes the files of dir, then dir (one level of subdirectories: the
 * test provider's cuzk-test/). */
static void remove_dir(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    char p[512];
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            if (unlink(p) && depth < 1) remove_dir(p, depth + 1);
        }
    closedir(d);
    rmdir(dir);
}

static void cleanup_cache(void)
{
    remove_dir(g_cache, 0);
}

/* The test's cache directory; "/tmp" (and a failed CHECK) if it cannot be
 * created, so that the rest of the test still runs. */
static inline const char *cache_dir(void)
{
    if (!g_cache[0]) {
        snprintf(g_cache, sizeof g_cache, "/tmp/cuzk-engine-" ENGINE_TEST_NAME "-XXXXXX");
        if (!mkdtemp(g_cache)) {
            CHECK(!"mkdtemp failed");
            g_cache[0] = 0;
            return "/tmp";
        }
        atexit(cleanup_cache);
    }
    return g_cache;
}

/* Defaults, the cache above, a 1 GiB budget, 2 prover threads, warnings
 * only, the chain TEST provider on; each test adjusts the rest. */
static inline void engine_cfg_base(cuzk_engine_config *c)
{
    cuzk_engine_config_default(c);
    c->test_provider = true;
    snprintf(c->param_cache, sizeof c->param_cache, "%s", cache_dir());
    c->memory_total_budget = 1ull << 30;
    c->prover_threads = 2;
    c->log_level = CUZK_LOG_WARN;
}

static inline cuzk_engine *start(const cuzk_engine_config *c)
{
    cuzk_engine *e = NULL;
    char err[256] = "";
    int st = cuzk_engine_create(&e, c, err, sizeof err);
    if (st) fprintf(stderr, "create: %s\n", err);
    CHECK(st == CUZK_OK && e);
    return e;
}

static inline void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline uint64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* Independent check of a chain-n proof for x0: vk from the TEST params
 * file in the cache, x_n from the slow reference. */
static inline bool engine_chain_proof_ok(const uint8_t *proof, size_t n, uint64_t x0)
{
    char path[256];
    snprintf(path, sizeof path, "%s/cuzk-test/chain-%zu.params", cache_dir(), n);
    cuzk_groth16_vk *vk = NULL;
    if (!proof || cuzk_groth16_vk_load(&vk, path, NULL)) return false;
    cuzk_groth16_pvk pvk;
    cuzk_groth16_pvk_prepare(&pvk, vk);
    cuzk_fr x, out;
    cuzk_fr_from_u64(&x, x0);
    cuzk_chain_output(&out, &x, n);
    bool ok = false;
    int st = cuzk_groth16_verify(&ok, &pvk, proof, &out, 1, NULL, 0);
    cuzk_groth16_vk_free(vk);
    return st == CUZK_OK && ok;
}

/* Until path holds a valid PCE file of chain-n (a background extraction's
 * rename), or ms. */
static inline bool engine_wait_pce(const char *path, size_t n, unsigned ms)
{
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_OTHER};
    snprintf(id.id, sizeof id.id, "chain-%zu", n);
    for (uint64_t t0 = mono_ms(); mono_ms() - t0 < ms; sleep_ms(20)) {
        cuzk_pce *p = NULL;
        char err[256];
        if (!cuzk_pce_open(&p, path, &id, err, sizeof err)) {
            cuzk_pce_close(p);
            return true;
        }
    }
    fprintf(stderr, "  %s: no valid PCE within %u ms\n", path, ms);
    return false;
}

/* stderr into <cache>.log from engine_log_begin to engine_log_end, which
 * returns the text (malloc'd; NULL if it could not be read) and echoes it. */
static int g_log_saved = -1;
static FILE *g_log_f;

static inline bool engine_log_begin(void)
{
    char log[300];
    snprintf(log, sizeof log, "%s.log", cache_dir());
    fflush(stderr);
    g_log_saved = dup(2);
    g_log_f = fopen(log, "w");
    if (!g_log_f || g_log_saved < 0) return false;
    dup2(fileno(g_log_f), 2);
    return true;
}

static inline char *engine_log_end(void)
{
    char log[300];
    snprintf(log, sizeof log, "%s.log", cache_dir());
    fflush(stderr);
    dup2(g_log_saved, 2);
    close(g_log_saved);
    fclose(g_log_f);
    size_t len;
    char *text = (char *)test_read_file(log, &len);
    unlink(log);
    if (text) fputs(text, stderr);
    return text;
}

#endif
