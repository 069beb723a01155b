/* Engine: a front end that abuse cannot slow (issue 23, item 3).
 *
 *   ended_cap       records of ended jobs are capped (scheduler.max_ended_jobs),
 *                   oldest end first, with a counter; a dropped id is NOT_FOUND
 *   failed_100k     100,000 failing submits: RSS grows < 150 MB, /status and
 *                   the metrics answer in < 100 ms, and the page is valid UTF-8
 *   status_utf8     request ids with invalid UTF-8 (overlong, surrogate,
 *                   > U+10FFFF, truncated, stray bytes) reach /status as U+FFFD,
 *                   valid sequences and escapes as they are
 *   evict_unlocked  freeing a ~600 MB HOT entry (EvictSRS, then an LRU
 *                   eviction) does not hold GetStatus up by more than 50 ms
 *
 * The big entry is a synthetic chain-N params file: the vk and one valid
 * point of a small chain file repeated to chain-N's shape, loaded with
 * srs.validate = none (no proof is made with it). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/engine.h"
#include "harness.h"

#define ENGINE_TEST_NAME "front"
#include "engine_util.h"

/* ---- helpers ---------------------------------------------------------------- */

/* A TEST submit whose parse fails ("n=0"): the job is accepted and ends
 * FAILED at once, keeping a record -- the cheapest path to one. */
static int submit_failing(cuzk_engine *e, char id[CUZK_JOB_ID_MAX], const char *request_id)
{
    static const char bad[] = "n=0";
    cuzk_engine_request r = {.kind = CUZK_PROOF_TEST,
                             .request_id = request_id,
                             .vanilla_proof = (const uint8_t *)bad,
                             .vanilla_proof_len = sizeof bad - 1};
    return cuzk_engine_submit(e, id, NULL, NULL, &r, NULL, 0);
}

static uint64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%llu %llu", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Strict UTF-8 (RFC 3629): no overlong form, no surrogate, nothing above
 * U+10FFFF, no truncated sequence.  Written from the RFC's table, apart
 * from the engine's decoder. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        uint32_t cp;
        size_t k;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            cp = c & 0x1f, k = 1;
        } else if ((c & 0xf0) == 0xe0) {
            cp = c & 0x0f, k = 2;
        } else if ((c & 0xf8) == 0xf0) {
            cp = c & 0x07, k = 3;
        } else {
            return false;
        }
        for (size_t j = 1; j <= k; j++) {
            if (i + j >= n || (s[i + j] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        static const uint32_t min_cp[4] = {0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += k + 1;
    }
    return true;
}

static char *status_json(cuzk_engine *e, size_t *len, double *ms)
{
    char *js = NULL;
    double t0 = now_s();
    int rc = cuzk_engine_status_json(e, &js, len);
    if (ms) *ms = (now_s() - t0) * 1e3;
    CHECK(rc == CUZK_OK && js);
    return rc ? NULL : js;
}

/* ---- the cap on ended records -------------------------------------------------- */

static void test_ended_cap(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.log_level = CUZK_LOG_ERROR;
    c.max_ended_jobs = 50;
    cuzk_engine *e = start(&c);
    REQUIRE(e);
    char first[CUZK_JOB_ID_MAX] = "", id[CUZK_JOB_ID_MAX];
    for (int i = 0; i < 200; i++) {
        CHECK(submit_failing(e, id, NULL) == CUZK_OK);
        if (!i) snprintf(first, sizeof first, "%s", id);
    }
    cuzk_engine_status st;
    REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
    /* trimmed at admission: the cap, plus the one ended since */
    CHECK(st.ended_jobs <= 51 && st.ended_jobs >= 50);
    CHECK(st.ended_jobs_limit == 50);
    CHECK(st.ended_jobs_dropped == 200 - st.ended_jobs);
    CHECK(st.failed == 200);
    cuzk_engine_status_clear(&st);
    cuzk_engine_result r;
    memset(&r, 0, sizeof r);
    CHECK(cuzk_engine_await(e, &r, first, 1000) == CUZK_ENGINE_ERR_NOT_FOUND);           /* oldest: dropped */
    CHECK(cuzk_engine_await(e, &r, id, 1000) == CUZK_OK && r.status == CUZK_JOB_FAILED); /* newest: kept */
    cuzk_engine_result_clear(&r);
    /* the housekeeping thread trims the one that ended after admission's
     * trim, once a second (its period here): wait for it, so that
     * the count the metrics and /status are checked against no longer moves
     * (once it moved between the two: make test, a loaded machine) */
    for (int i = 0;; i++) {
        REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
        if (st.ended_jobs <= 50 || i == 600) break;
        cuzk_engine_status_clear(&st);
        sleep_ms(5);
    }
    CHECK(st.ended_jobs == 50 && st.ended_jobs_dropped == 150);
    unsigned long long dropped = (unsigned long long)st.ended_jobs_dropped;
    cuzk_engine_status_clear(&st);
    char *m = NULL;
    size_t ml = 0;
    REQUIRE(cuzk_engine_metrics_text(e, &m, &ml) == CUZK_OK);
    char want[96];
    snprintf(want, sizeof want, "\ncuzk_ended_jobs_dropped_total %llu\n", dropped);
    CHECK(strstr(m, want) != NULL);
    free(m);
    size_t jl;
    char *js = status_json(e, &jl, NULL);
    snprintf(want, sizeof want, "\"limit\":50,\"dropped\":%llu}", dropped);
    CHECK(js && strstr(js, "\"ended_jobs\":{\"retained\":") && strstr(js, want));
    free(js);
    cuzk_engine_destroy(e);
    /* 0 is refused */
    engine_cfg_base(&c);
    c.max_ended_jobs = 0;
    char err[256] = "";
    cuzk_engine *bad = NULL;
    CHECK(cuzk_engine_create(&bad, &c, err, sizeof err) == CUZK_ERR_ARG && strstr(err, "max_ended_jobs"));
}

/* ---- 100,000 failed requests ------------------------------------------------------ */

static void test_failed_100k(void)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.log_level = CUZK_LOG_ERROR; /* 100 k WARN lines otherwise */
    cuzk_engine *e = start(&c);
    REQUIRE(e);
    char id[CUZK_JOB_ID_MAX], rid[64];
    CHECK(submit_failing(e, id, "warm-up") == CUZK_OK);
    uint64_t rss0 = rss_bytes();
    double t0 = now_s();
    const int n = 100000 * test_iterations;
    int fails = 0;
    for (int i = 0; i < n; i++) {
        /* every 7th carries a request id with a byte >= 0x80 (accepted: only
         * control characters are refused) */
        snprintf(rid, sizeof rid, "abuse-%d%s", i, i % 7 ? "" : "\xc3\x28");
        fails += submit_failing(e, id, i % 2 ? rid : NULL) != CUZK_OK;
    }
    double submit_s = now_s() - t0;
    CHECK(fails == 0);
    uint64_t rss1 = rss_bytes();
    cuzk_engine_status st;
    double ts = now_s();
    REQUIRE(cuzk_engine_get_status(e, &st) == CUZK_OK);
    double get_ms = (now_s() - ts) * 1e3;
    CHECK(st.failed == (uint64_t)n + 1);
    CHECK(st.ended_jobs <= c.max_ended_jobs + 1);
    CHECK(st.ended_jobs_dropped >= (uint64_t)n + 1 - c.max_ended_jobs - 1);
    double json_ms = 0, best_ms = 1e9;
    size_t jl = 0;
    char *js = NULL;
    for (int k = 0; k < 3; k++) { /* the best of three: a loaded machine may stall one */
        free(js);
        js = status_json(e, &jl, &json_ms);
        if (json_ms < best_ms) best_ms = json_ms;
    }
    CHECK(js && utf8_valid((const unsigned char *)js, jl));
    char *m = NULL;
    size_t ml = 0;
    ts = now_s();
    CHECK(cuzk_engine_metrics_text(e, &m, &ml) == CUZK_OK);
    double metrics_ms = (now_s() - ts) * 1e3;
    printf("  %d failed submits in %.2f s; RSS %+.1f MB; %u records kept, %llu dropped; "
           "GetStatus %.2f ms, /status %.1f ms (best of 3, %zu bytes), metrics %.2f ms\n",
           n, submit_s, ((double)rss1 - (double)rss0) / 1e6, st.ended_jobs,
           (unsigned long long)st.ended_jobs_dropped, get_ms, best_ms, jl, metrics_ms);
#if defined(__SANITIZE_ADDRESS__)
    /* ASan keeps freed blocks in its quarantine (256 MB by default), so RSS
     * measures the quarantine here (+184 MB with the cap working); the
     * release build checks the bound, this build the counts above. */
    printf("  RSS bound not checked under ASan (its quarantine); the release build checks it\n");
#else
    CHECK(rss1 < rss0 + (150ull << 20));
#endif
    /* the bound is the release build's (6 ms there); the sanitizers run
     * the formatting 10-25x slower (136 ms under TSan on a loaded machine) */
    const double bound_ms = CUZK_TEST_SANITIZED ? 1000 : 100;
    CHECK(best_ms < bound_ms);
    CHECK(metrics_ms < bound_ms);
    cuzk_engine_status_clear(&st);
    free(js);
    free(m);
    cuzk_engine_destroy(e);
}

/* ---- invalid UTF-8 in request ids ----------------------------------------------------- */

static void test_status_utf8(void)
{
    static const struct {
        const char *rid, *want; /* want: the JSON string body /status must show */
    } cases[] = {
        {"ok-\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "ok-\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"}, /* é € 😀 */
        {"overlong-\xc0\xaf", "overlong-\\ufffd\\ufffd"},              /* C0: never a lead */
        {"overlong3-\xe0\x80\xaf", "overlong3-\\ufffd\\ufffd\\ufffd"}, /* E0 80: overlong */
        {"surrogate-\xed\xa0\x80", "surrogate-\\ufffd\\ufffd\\ufffd"}, /* U+D800 */
        {"big-\xf4\x90\x80\x80", "big-\\ufffd\\ufffd\\ufffd\\ufffd"},  /* U+110000 */
        {"f5-\xf5\x80", "f5-\\ufffd\\ufffd"},
        {"trunc-\xe2\x82", "trunc-\\ufffd"}, /* a valid prefix cut by the end: one U+FFFD */
        {"trunc4-\xf0\x9f\x98-x", "trunc4-\\ufffd-x"},
        {"stray-\x80\xbf-\xff", "stray-\\ufffd\\ufffd-\\ufffd"},
        {"quote-\"-\\-/", "quote-\\\"-\\\\-/"},
    };
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.log_level = CUZK_LOG_ERROR;
    cuzk_engine *e = start(&c);
    REQUIRE(e);
    char id[CUZK_JOB_ID_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(submit_failing(e, id, cases[i].rid) == CUZK_OK);
    size_t jl = 0;
    char *js = status_json(e, &jl, NULL);
    REQUIRE(js);
    CHECK(strlen(js) == jl);
    CHECK(utf8_valid((const unsigned char *)js, jl));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[160];
        snprintf(want, sizeof want, "\"job_id\":\"%s\"", cases[i].want);
        if (!strstr(js, want)) fprintf(stderr, "  not in /status: %s\n", want);
        CHECK(strstr(js, want) != NULL);
    }
    free(js);
    cuzk_engine_destroy(e);
}

/* ---- eviction without the lock --------------------------------------------------------- */

static void put_u32be(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    fwrite(b, 1, 4, f);
}

static void put_points(FILE *f, const uint8_t *pt, size_t sz, size_t n)
{
    enum { CHUNK = 4096 };
    uint8_t *buf = malloc(CHUNK * sz);
    if (!buf) return;
    for (size_t i = 0; i < CHUNK; i++)
        memcpy(buf + i * sz, pt, sz);
    put_u32be(f, (uint32_t)n);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < CHUNK ? n - done : CHUNK;
        fwrite(buf, sz, k, f);
        done += k;
    }
    free(buf);
}

/* <cache>/cuzk-test/chain-<n>.params with chain-n's shape, made of the vk
 * and the first H and B_G2 points of the small file `small` (bellperson
 * layout: vk, then h, l, a, b_g1, b_g2, each a u32 count and uncompressed
 * points of 96 / 192 bytes). */
static bool write_synthetic_params(const char *small, size_t n)
{
    cuzk_cs *cs = NULL;
    cuzk_chain_ctx cc = {.n = n};
    if (cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0) || cuzk_cs_synthesize(cs, cuzk_chain_circuit, &cc)) return false;
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    cuzk_cs_free(cs);
    size_t m = 1;
    while (m < k.constraints)
        m <<= 1;
    cuzk_groth16_vk *vk = NULL;
    if (cuzk_groth16_vk_load(&vk, small, NULL)) return false;
    size_t len = 0;
    uint8_t *src = test_read_file(small, &len);
    char path[300];
    snprintf(path, sizeof path, "%s/cuzk-test/chain-%zu.params", cache_dir(), n);
    FILE *f = fopen(path, "wb");
    bool ok = src && f && !cuzk_groth16_vk_write(f, vk);
    long vk_len = f ? ftell(f) : 0;
    /* the small file's first H point, and its first B_G2 point after the
     * four G1 vectors */
    size_t at = (size_t)vk_len, g1 = 0, g2 = 0;
    for (int v = 0; ok && v < 5; v++) {
        ok = at + 4 <= len;
        if (!ok) break;
        size_t cnt =
            (size_t)src[at] << 24 | (size_t)src[at + 1] << 16 | (size_t)src[at + 2] << 8 | src[at + 3];
        if (v == 0) g1 = at + 4;
        if (v == 4) g2 = at + 4;
        at += 4 + cnt * (v == 4 ? 192 : 96);
        ok = cnt > 0 && at <= len;
    }
    if (ok) {
        put_points(f, src + g1, 96, m - 1);                                /* h */
        put_points(f, src + g1, 96, k.aux);                                /* l */
        put_points(f, src + g1, 96, k.inputs + k.a_aux_density);           /* a */
        put_points(f, src + g1, 96, k.b_input_density + k.b_aux_density);  /* b_g1 */
        put_points(f, src + g2, 192, k.b_input_density + k.b_aux_density); /* b_g2 */
    }
    if (f && fclose(f)) ok = false;
    free(src);
    cuzk_groth16_vk_free(vk);
    return ok;
}

typedef struct {
    cuzk_engine *e;
    atomic_bool stop;
    double max_ms;
    unsigned calls;
} status_poller;

static void *poll_status(void *arg)
{
    status_poller *p = arg;
    while (!atomic_load(&p->stop)) {
        cuzk_engine_status st;
        double t0 = now_s();
        if (cuzk_engine_get_status(p->e, &st) == CUZK_OK) cuzk_engine_status_clear(&st);
        double ms = (now_s() - t0) * 1e3;
        if (ms > p->max_ms) p->max_ms = ms;
        p->calls++;
        sleep_ms(1);
    }
    return NULL;
}

static bool hot_bytes(cuzk_engine *e, const char *id, uint64_t *bytes)
{
    cuzk_engine_status st;
    if (cuzk_engine_get_status(e, &st)) return false;
    bool hot = false;
    for (size_t i = 0; i < st.n_srs; i++)
        if (!strcmp(st.srs[i].circuit_id, id) && st.srs[i].tier == CUZK_SRS_HOT) {
            hot = true;
            *bytes = st.srs[i].size_bytes;
        }
    cuzk_engine_status_clear(&st);
    return hot;
}

/* Runs op (an eviction) while a thread polls GetStatus; the longest call. */
static double status_delay_during(cuzk_engine *e, int (*op)(cuzk_engine *e), double *op_ms)
{
    status_poller p = {.e = e};
    pthread_t th;
    if (pthread_create(&th, NULL, poll_status, &p)) return 1e9;
    sleep_ms(20);
    double t0 = now_s();
    CHECK(op(e) == CUZK_OK);
    *op_ms = (now_s() - t0) * 1e3;
    sleep_ms(20);
    atomic_store(&p.stop, true);
    pthread_join(th, NULL);
    return p.max_ms;
}

/* The bound of the issue, 50 ms, and well below the time the eviction took
 * (freeing 600 MB takes 30-60 ms here: with the free under the lock a
 * GetStatus waited 52-58 ms, all of it), so that the check means something
 * on a machine that frees faster; 10 ms of slack for a loaded machine. */
static bool delay_ok(double delay_ms, double evict_ms)
{
    return delay_ms < 50 && (delay_ms < 10 || delay_ms < evict_ms / 3);
}

static char g_big[32];

static int evict_big(cuzk_engine *e)
{
    bool was = false;
    uint64_t freed = 0;
    int rc = cuzk_engine_srs_evict(e, &was, &freed, g_big, NULL, 0);
    return rc ? rc : was && freed ? CUZK_OK : CUZK_ERR_ARG;
}

static int preload_small(cuzk_engine *e) /* evicts the big entry (LRU) to fit */
{
    bool already = false;
    uint64_t ms = 0;
    char err[256] = "";
    int rc = cuzk_engine_srs_preload(e, &already, &ms, "chain-4096", err, sizeof err);
    if (rc) fprintf(stderr, "  preload chain-4096: %s\n", err);
    return rc;
}

static void test_evict_unlocked(void)
{
    /* m = 2^20: ~600 MB resident.  Under the sanitizers 2^18 (~150 MB):
     * loading 600 MB took 29 s of the test's 73 s under TSan, and the races
     * and lock order it is there to watch are the same at any size; the
     * latency bound below is checked at full size by the release build. */
    const size_t n = CUZK_TEST_SANITIZED ? (1u << 18) - 64 : (1u << 20) - 64;
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.eviction_min_idle_ms = 0;
    c.srs_validate = CUZK_SRS_VALIDATE_NONE; /* the synthetic file's points are one point repeated */
    c.memory_total_budget = 4ull << 30;
    cuzk_engine *e = start(&c);
    REQUIRE(e);
    bool already;
    uint64_t ms, big = 0, small = 0;
    char err[256] = "", small_path[300];
    REQUIRE(cuzk_engine_srs_preload(e, &already, &ms, "chain-4096", err, sizeof err) == CUZK_OK);
    REQUIRE(hot_bytes(e, "chain-4096", &small));
    snprintf(small_path, sizeof small_path, "%s/cuzk-test/chain-4096.params", cache_dir());
    double t0 = now_s();
    REQUIRE(write_synthetic_params(small_path, n));
    double write_s = now_s() - t0;
    snprintf(g_big, sizeof g_big, "chain-%zu", n);
    cuzk_engine_destroy(e);

    /* EvictSRS */
    e = start(&c);
    REQUIRE(e);
    t0 = now_s();
    if (cuzk_engine_srs_preload(e, &already, &ms, g_big, err, sizeof err)) fprintf(stderr, "  %s\n", err);
    REQUIRE(hot_bytes(e, g_big, &big));
    double load_s = now_s() - t0;
    double evict_ms = 0, delay = status_delay_during(e, evict_big, &evict_ms);
    printf("  synthetic %s: %.0f MB HOT (file written in %.1f s, loaded in %.1f s); EvictSRS %.1f ms, "
           "longest concurrent GetStatus %.2f ms\n",
           g_big, (double)big / 1e6, write_s, load_s, evict_ms, delay);
    CHECK(delay_ok(delay, evict_ms));
    cuzk_engine_destroy(e);

    /* LRU: a budget that holds the big entry but not both */
    c.memory_total_budget = big + small / 2;
    e = start(&c);
    REQUIRE(e);
    if (cuzk_engine_srs_preload(e, &already, &ms, g_big, err, sizeof err)) fprintf(stderr, "  %s\n", err);
    REQUIRE(hot_bytes(e, g_big, &big));
    double lru_ms = 0;
    delay = status_delay_during(e, preload_small, &lru_ms);
    uint64_t b2;
    CHECK(!hot_bytes(e, g_big, &b2) && hot_bytes(e, "chain-4096", &b2));
    printf("  LRU eviction of %s by a preload: %.1f ms, longest concurrent GetStatus %.2f ms\n", g_big,
           lru_ms, delay);
    CHECK(delay_ok(delay, lru_ms));
    cuzk_engine_destroy(e);
    char path[300];
    snprintf(path, sizeof path, "%s/cuzk-test/%s.params", cache_dir(), g_big);
    unlink(path);
}

static const test_case tests[] = {
    {"ended_cap", test_ended_cap},
    {"failed_100k", test_failed_100k},
    {"status_utf8", test_status_utf8},
    {"evict_unlocked", test_evict_unlocked},
};

TEST_MAIN(tests)
