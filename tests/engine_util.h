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

#endif
