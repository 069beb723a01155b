/* Engine: SRS manager (tiers, preload/evict, reference counts, LRU under
 * the budget), the memory budget (backpressure, too-big jobs), validation
 * records and official digests (cuzk/srs_trust.h), and files that change
 * under the engine (truncated while WARM, replaced while HOT). */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "harness.h"

#define ENGINE_TEST_NAME "srs"
#include "engine_util.h"

static void cfg_small(cuzk_engine_config *c)
{
    engine_cfg_base(c);
    c->eviction_min_idle_ms = 0;
}

static int submit(cuzk_engine *e, char *id, const char *settings)
{
    cuzk_engine_request r = {.kind = CUZK_PROOF_TEST,
                             .vanilla_proof = (const uint8_t *)settings,
                             .vanilla_proof_len = strlen(settings)};
    return cuzk_engine_submit(e, id, NULL, NULL, &r, NULL, 0);
}

/* The status entry for circuit id, copied; false if absent. */
static bool srs_info(cuzk_engine *e, const char *id, cuzk_engine_srs_info *out)
{
    cuzk_engine_status s;
    if (cuzk_engine_get_status(e, &s)) return false;
    bool found = false;
    for (size_t i = 0; i < s.n_srs; i++)
        if (!strcmp(s.srs[i].circuit_id, id)) {
            *out = s.srs[i];
            found = true;
        }
    cuzk_engine_status_clear(&s);
    return found;
}

static void test_preload_evict(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    bool already = true, was = false;
    uint64_t ms = 0, freed = 0;
    char err[256];
    CHECK(cuzk_engine_srs_preload(e, &already, &ms, "chain-48", err, sizeof err) == CUZK_OK);
    CHECK(!already);
    cuzk_engine_srs_info i;
    CHECK(srs_info(e, "chain-48", &i) && i.tier == CUZK_SRS_HOT && i.ref_count == 0);
    CHECK(i.size_bytes > 0);
    uint64_t hot_size = i.size_bytes;
    CHECK(cuzk_engine_srs_preload(e, &already, &ms, "chain-48", err, sizeof err) == CUZK_OK);
    CHECK(already);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.srs_bytes[CUZK_SRS_HOT] == hot_size && s.memory_used == hot_size);
    cuzk_engine_status_clear(&s);
    CHECK(cuzk_engine_srs_evict(e, &was, &freed, "chain-48", err, sizeof err) == CUZK_OK);
    CHECK(was && freed == hot_size);
    CHECK(srs_info(e, "chain-48", &i) && i.tier == CUZK_SRS_COLD);
    CHECK(cuzk_engine_srs_evict(e, &was, &freed, "chain-48", err, sizeof err) == CUZK_OK);
    CHECK(!was && freed == 0);
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.srs_bytes[CUZK_SRS_HOT] == 0 && s.memory_used == 0);
    cuzk_engine_status_clear(&s);
    /* unknown ids */
    CHECK(cuzk_engine_srs_preload(e, &already, &ms, "porep-32g", err, sizeof err) ==
          CUZK_ENGINE_ERR_NOT_FOUND);
    CHECK(strstr(err, "porep-32g"));
    CHECK(cuzk_engine_srs_evict(e, &was, &freed, "chain-x", err, sizeof err) == CUZK_ENGINE_ERR_NOT_FOUND);
    /* WARM: mapped; a job proves from the mapping */
    CHECK(cuzk_engine_srs_map(e, "chain-48", err, sizeof err) == CUZK_OK);
    CHECK(srs_info(e, "chain-48", &i) && i.tier == CUZK_SRS_WARM);
    char id[CUZK_JOB_ID_MAX];
    CHECK(submit(e, id, "n=48 x0=7") == CUZK_OK);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(srs_info(e, "chain-48", &i) && i.tier == CUZK_SRS_WARM && i.ref_count == 0);
    /* preload promotes WARM to HOT */
    CHECK(cuzk_engine_srs_preload(e, &already, &ms, "chain-48", err, sizeof err) == CUZK_OK);
    CHECK(!already && srs_info(e, "chain-48", &i) && i.tier == CUZK_SRS_HOT);
    /* a corrupt params file fails the job with the loader's reason */
    char path[256];
    snprintf(path, sizeof path, "%s/cuzk-test/chain-50.params", cache_dir());
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite("garbage", 1, 7, f) == 7 && fclose(f) == 0);
    CHECK(submit(e, id, "n=50") == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_FAILED);
    CHECK(strstr(r.error, "chain-50.params"));
    unlink(path);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

static void test_refcount(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    char id[CUZK_JOB_ID_MAX], err[256];
    CHECK(submit(e, id, "n=40 sleep_ms=400 partitions=2") == CUZK_OK);
    cuzk_engine_srs_info i = {0};
    for (int t = 0; t < 200 && !(srs_info(e, "chain-40", &i) && i.ref_count > 0); t++)
        sleep_ms(5);
    CHECK(i.ref_count >= 1 && i.tier == CUZK_SRS_HOT);
    bool was = true;
    uint64_t freed = 1;
    CHECK(cuzk_engine_srs_evict(e, &was, &freed, "chain-40", err, sizeof err) == CUZK_ENGINE_ERR_BUSY);
    CHECK(!was && freed == 0 && strstr(err, "in use"));
    CHECK(srs_info(e, "chain-40", &i) && i.tier == CUZK_SRS_HOT);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(srs_info(e, "chain-40", &i) && i.ref_count == 0);
    CHECK(cuzk_engine_srs_evict(e, &was, &freed, "chain-40", err, sizeof err) == CUZK_OK);
    CHECK(was && freed > 0);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* Budget = room for two chain-256-sized entries: loading a third evicts
 * the least recently used idle one. */
static void test_lru(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    cuzk_engine_srs_info i;
    uint64_t sz[3] = {0};
    const char *ids[3] = {"chain-256", "chain-257", "chain-258"};
    for (int k = 0; k < 3; k++) {
        CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[k], NULL, 0) == CUZK_OK);
        CHECK(srs_info(e, ids[k], &i));
        sz[k] = i.size_bytes;
    }
    cuzk_engine_destroy(e);
    uint64_t big = sz[0] > sz[1] ? sz[0] : sz[1];
    big = big > sz[2] ? big : sz[2];

    c.memory_total_budget = 2 * big + big / 2;
    e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[0], NULL, 0) == CUZK_OK);
    sleep_ms(5);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[1], NULL, 0) == CUZK_OK);
    sleep_ms(5);
    bool already = false;
    CHECK(cuzk_engine_srs_preload(e, &already, NULL, ids[0], NULL, 0) == CUZK_OK && already);
    sleep_ms(5);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[2], NULL, 0) == CUZK_OK);
    /* chain-257 was least recently used */
    CHECK(srs_info(e, ids[0], &i) && i.tier == CUZK_SRS_HOT);
    CHECK(srs_info(e, ids[1], &i) && i.tier == CUZK_SRS_COLD);
    CHECK(srs_info(e, ids[2], &i) && i.tier == CUZK_SRS_HOT);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.memory_used <= s.memory_limit);
    cuzk_engine_status_clear(&s);
    cuzk_engine_destroy(e);

    /* entries idle for less than eviction_min_idle are not evicted: the
     * job still runs, from a WARM mapping */
    c.eviction_min_idle_ms = 60000;
    e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[0], NULL, 0) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[1], NULL, 0) == CUZK_OK);
    char err[256];
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[2], err, sizeof err) == CUZK_ENGINE_ERR_TOO_BIG);
    char id[CUZK_JOB_ID_MAX];
    CHECK(submit(e, id, "n=258 mem=1000") == CUZK_OK);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    CHECK(srs_info(e, ids[2], &i) && i.tier == CUZK_SRS_WARM);
    CHECK(srs_info(e, ids[0], &i) && i.tier == CUZK_SRS_HOT);
    cuzk_engine_destroy(e);

    /* a reservation that fits only after an entry reaches
     * eviction_min_idle waits for that moment (no event announces it),
     * then runs */
    c.eviction_min_idle_ms = 300;
    e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-8", NULL, 0) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[0], NULL, 0) == CUZK_OK);
    uint64_t t_a = mono_ms(); /* >= ids[0]'s last use */
    sleep_ms(5);              /* last uses are in ms: loaded in the same ms, ids[0] and ids[1] would tie */
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, ids[1], NULL, 0) == CUZK_OK);
    char set[64];
    snprintf(set, sizeof set, "n=8 mem=%llu", (unsigned long long)big);
    uint64_t t_s = mono_ms();
    CHECK(submit(e, id, set) == CUZK_OK);
    CHECK(cuzk_engine_await(e, &r, id, 10000) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    /* ids[0] became evictable >= 300 ms after t_a; if we submitted well
     * before that (a loaded machine may not), the job must have waited */
    if (t_s - t_a < 200)
        CHECK(r.t.queue_wait_ms >= 50);
    else
        printf("  (loaded machine: submitted %llu ms after the preload, wait not checked)\n",
               (unsigned long long)(t_s - t_a));
    CHECK(srs_info(e, ids[0], &i) && i.tier == CUZK_SRS_COLD); /* the LRU one went */
    CHECK(srs_info(e, ids[1], &i) && i.tier == CUZK_SRS_HOT);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* Budget backpressure: each job reserves 1 MiB, the budget holds 2.5 MiB
 * beyond the SRS; with 4 synthesis workers and a deep pipeline at most 2
 * partitions may be in flight, none fails, and usage never exceeds the
 * limit.  A job needing more than the whole budget fails at once. */
typedef struct {
    cuzk_engine *e;
    atomic_int stop;
    uint64_t peak_used, limit;
    uint32_t peak_in_progress;
} watch_arg;

static void *watch(void *p)
{
    watch_arg *w = p;
    while (!atomic_load(&w->stop)) {
        cuzk_engine_status s;
        if (cuzk_engine_get_status(w->e, &s) == CUZK_OK) {
            if (s.memory_used > w->peak_used) w->peak_used = s.memory_used;
            if (s.queues[CUZK_PROOF_TEST].in_progress > w->peak_in_progress)
                w->peak_in_progress = s.queues[CUZK_PROOF_TEST].in_progress;
            w->limit = s.memory_limit;
            cuzk_engine_status_clear(&s);
        }
        sleep_ms(2);
    }
    return NULL;
}

static void test_budget(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    c.synthesis_threads = 4;
    c.pipeline_depth = 16;
    c.max_batch_size = 1;
    cuzk_engine *e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-20", NULL, 0) == CUZK_OK);
    cuzk_engine_srs_info i;
    CHECK(srs_info(e, "chain-20", &i));
    cuzk_engine_destroy(e);

    c.memory_total_budget = i.size_bytes + (5u << 20) / 2;
    e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-20", NULL, 0) == CUZK_OK);
    watch_arg w = {.e = e};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, watch, &w) == 0);
    enum { N = 10 };
    char ids[N][CUZK_JOB_ID_MAX];
    for (int k = 0; k < N; k++)
        CHECK(submit(e, ids[k], "n=20 sleep_ms=40 mem=1048576") == CUZK_OK);
    char big[CUZK_JOB_ID_MAX];
    CHECK(submit(e, big, "n=20 mem=1073741824") == CUZK_OK);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, big, 0) == CUZK_OK && r.status == CUZK_JOB_FAILED);
    CHECK(strstr(r.error, "needs 1024 MiB") && strstr(r.error, "total_budget"));
    for (int k = 0; k < N; k++)
        CHECK(cuzk_engine_await(e, &r, ids[k], 0) == CUZK_OK && r.status == CUZK_JOB_COMPLETED);
    atomic_store(&w.stop, 1);
    pthread_join(th, NULL);
    CHECK(w.peak_used <= w.limit);
    CHECK(w.peak_used >= i.size_bytes + (1u << 20)); /* the watcher saw work */
    CHECK(w.peak_in_progress <= 2);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.completed == N && s.failed == 1 && s.memory_used == i.size_bytes);
    cuzk_engine_status_clear(&s);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* ---- validation records and official digests ----------------------------------- */

static char *params_path(char *out, size_t cap, int n)
{
    snprintf(out, cap, "%s/cuzk-test/chain-%d.params", cache_dir(), n);
    return out;
}

static bool write_bytes(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(b, 1, n, f) == n;
    return (f && fclose(f) == 0) && ok;
}

/* Flip the x coordinate of the last point (a b_g2 point) so it leaves the
 * curve: only point validation notices. */
static void corrupt_last_point(uint8_t *b, size_t n)
{
    b[n - 100] ^= 0x5a;
}

static int trust_load(cuzk_srs_trust *how, const char *path, cuzk_srs_validate mode, char *err, size_t el)
{
    cuzk_groth16_params *p = NULL;
    cuzk_groth16_load_opts o = {.err = err, .err_len = el};
    cuzk_srs_load_info info;
    int st = cuzk_srs_params_load(&p, path, mode, NULL, &o, &info);
    *how = info.how;
    cuzk_groth16_params_free(p);
    return st;
}

static void test_trust_modes(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    char err[512], path[256], rec[300], copy[300], crec[320];
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-60", err, sizeof err) == CUZK_OK);
    cuzk_engine_destroy(e);
    params_path(path, sizeof path, 60);
    snprintf(rec, sizeof rec, "%s.cuzk-valid", path);
    /* the engine wrote the record with the params it made */
    CHECK(access(rec, F_OK) == 0);
    cuzk_srs_trust how;
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD);
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_FULL, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_VALIDATED);
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_NONE, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_UNCHECKED);
    /* no record: validated, and the record is written again */
    CHECK(unlink(rec) == 0);
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_VALIDATED && access(rec, F_OK) == 0);
    /* a copy (new inode and mtime) with the record copied too: trusted by digest */
    size_t n = 0;
    uint8_t *b = test_read_file(path, &n), *rb = NULL;
    size_t rn = 0;
    snprintf(copy, sizeof copy, "%s/cuzk-test/copy.params", cache_dir());
    snprintf(crec, sizeof crec, "%s.cuzk-valid", copy);
    CHECK(b && write_bytes(copy, b, n) && (rb = test_read_file(rec, &rn)) && write_bytes(crec, rb, rn));
    CHECK(trust_load(&how, copy, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD_DIGEST);
    CHECK(trust_load(&how, copy, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD); /* the record now names the copy */
    /* a bad point written in place with size, inode and mtime put back: the
     * ctime moved, so the record is not trusted by its metadata; the digest
     * no longer matches either: validated, refused (issue 23) */
    struct stat sb;
    CHECK(stat(copy, &sb) == 0);
    corrupt_last_point(b, n);
    int fd = open(copy, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, b + n - 100, 1, (off_t)(n - 100)) == 1);
    struct timespec ts[2] = {sb.st_atim, sb.st_mtim};
    CHECK(futimens(fd, ts) == 0 && close(fd) == 0);
    CHECK(trust_load(&how, copy, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_ERR_ENC_NOT_ON_CURVE);
    CHECK(strstr(err, "b_g2["));
    CHECK(trust_load(&how, copy, CUZK_SRS_VALIDATE_FULL, err, sizeof err) == CUZK_ERR_ENC_NOT_ON_CURVE);
    unlink(copy);
    unlink(crec);
    free(rb);
    free(b);
}

/* The engine's own chain-60 TEST params (with their record) at path. */
static void make_chain60(char *path, size_t cap)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-60", NULL, 0) == CUZK_OK);
    cuzk_engine_destroy(e);
    params_path(path, cap, 60);
}

/* Replace " key=<digits>" in the record line by " key=<value>". */
static bool record_set(const char *rec, const char *key, const char *value)
{
    size_t n = 0;
    char *t = (char *)test_read_file(rec, &n), out[1024];
    char *k = t ? strstr(t, key) : NULL;
    if (!k) {
        free(t);
        return false;
    }
    size_t kl = strlen(key), tail = strspn(k + kl, "0123456789");
    snprintf(out, sizeof out, "%.*s%s%s%s", (int)(k - t), t, key, value, k + kl + tail);
    free(t);
    return write_bytes(rec, (const uint8_t *)out, strlen(out));
}

/* What a record binds (issue 23): ctime and device besides size, mtime and
 * inode.  A version-1 record (without them) is no error and is never
 * trusted by its metadata: only by a fresh hash of the same digest (a
 * 32 GiB file hashes in minutes; its points would take hours), and it
 * comes back as version 2. */
static void test_record_binds(void)
{
    char err[512], path[256], rec[300], line[512] = "";
    make_chain60(path, sizeof path);
    snprintf(rec, sizeof rec, "%s.cuzk-valid", path);
    cuzk_srs_trust how;
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    uint8_t *t = test_read_file(rec, NULL);
    CHECK(t && !strncmp((char *)t, "cuzk-valid 2 ", 13) && strstr((char *)t, " ctime_ns=") &&
          strstr((char *)t, " dev="));
    /* another device (same inode number): not trusted by metadata */
    CHECK(record_set(rec, "dev=", "999999"));
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD_DIGEST);
    /* another ctime: the same */
    CHECK(record_set(rec, "ctime_ns=", "1"));
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD_DIGEST);
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD); /* rewritten */
    /* a version-1 record with matching size, mtime and inode: hashed */
    struct stat sb;
    CHECK(stat(path, &sb) == 0);
    char *d = t ? strstr((char *)t, "blake2b=") : NULL;
    CHECK(d != NULL);
    if (d) {
        snprintf(line, sizeof line, "cuzk-valid 1 size=%lld mtime_ns=%lld ino=%llu %.40s chain-60.params\n",
                 (long long)sb.st_size, (long long)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec,
                 (unsigned long long)sb.st_ino, d);
        CHECK(write_bytes(rec, (const uint8_t *)line, strlen(line)));
    }
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD_DIGEST);
    free(t);
    t = test_read_file(rec, NULL);
    CHECK(t && !strncmp((char *)t, "cuzk-valid 2 ", 13));
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD);
    /* ... and one with another digest: every point validated */
    char *hex = strstr(line, "blake2b=");
    CHECK(hex != NULL);
    if (hex) {
        memcpy(hex + 8, "00000000", 8);
        CHECK(write_bytes(rec, (const uint8_t *)line, strlen(line)));
    }
    CHECK(trust_load(&how, path, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_VALIDATED);
    free(t);
}

static int trust_load_ex(cuzk_srs_trust *how, const char *path, const cuzk_srs_load_opts *so, char *err,
                         size_t el)
{
    cuzk_groth16_params *p = NULL;
    cuzk_groth16_load_opts o = {.err = err, .err_len = el};
    cuzk_srs_load_info info;
    int st = cuzk_srs_params_load_ex(&p, path, so, &o, &info);
    *how = info.how;
    cuzk_groth16_params_free(p);
    return st;
}

/* An official file name with other content is refused in digest and full
 * modes (the vk comes from the same file, so self-verification would pass).
 * Our own TEST params under that name (the .test marker) pass only with
 * allow_test_params (srs.allow_test_params): a planted marker must not
 * switch the check off (issue 23). */
static void test_official_digest(void)
{
    static const char name[] = "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                               "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params";
    const char *want = cuzk_srs_official_digest(name);
    CHECK(want && strlen(want) == 32);
    CHECK(cuzk_srs_official_digest("chain-60.params") == NULL);
    char err[512], path[256], off[400], mark[420];
    make_chain60(path, sizeof path);
    snprintf(off, sizeof off, "%s/cuzk-test/%s", cache_dir(), name);
    size_t n = 0;
    uint8_t *b = test_read_file(path, &n);
    CHECK(b && write_bytes(off, b, n));
    cuzk_srs_trust how;
    CHECK(trust_load(&how, off, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "not the official file") && strstr(err, want) && strstr(err, "parameters.json"));
    CHECK(trust_load(&how, off, CUZK_SRS_VALIDATE_FULL, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(trust_load(&how, off, CUZK_SRS_VALIDATE_NONE, err, sizeof err) == CUZK_OK);
    snprintf(mark, sizeof mark, "%s.test", off);
    CHECK(write_bytes(mark, (const uint8_t *)"test\n", 5));
    CHECK(trust_load(&how, off, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, ".test marker") && strstr(err, "srs.allow_test_params is off") && strstr(err, want));
    CHECK(trust_load(&how, off, CUZK_SRS_VALIDATE_FULL, err, sizeof err) == CUZK_ERR_FORMAT);
    cuzk_srs_load_opts so = {.mode = CUZK_SRS_VALIDATE_DIGEST};
    CHECK(trust_load_ex(&how, off, &so, err, sizeof err) == CUZK_ERR_FORMAT);
    so.allow_test_params = true;
    CHECK(trust_load_ex(&how, off, &so, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_VALIDATED);
    CHECK(trust_load_ex(&how, off, &so, err, sizeof err) == CUZK_OK);
    CHECK(how == CUZK_SRS_TRUST_RECORD);
    /* the record written while allowed does not help once the opt-in is off */
    CHECK(trust_load(&how, off, CUZK_SRS_VALIDATE_DIGEST, err, sizeof err) == CUZK_ERR_FORMAT);
    unlink(mark);
    snprintf(mark, sizeof mark, "%s.cuzk-valid", off);
    unlink(mark);
    unlink(off);
    free(b);
}

/* The engine passes srs.allow_test_params through: TEST params (any params
 * with a .test marker) under the official 2 KiB WindowPoSt name are
 * refused by default and load with the opt-in. */
static void test_engine_test_params_opt_in(void)
{
    static const char name[] = "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                               "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params";
    char err[1024] = "", src[256], off[400], mark[420];
    make_chain60(src, sizeof src);
    snprintf(off, sizeof off, "%s/%s", cache_dir(), name);
    snprintf(mark, sizeof mark, "%s.test", off);
    size_t n = 0;
    uint8_t *b = test_read_file(src, &n);
    REQUIRE(b && write_bytes(off, b, n) && write_bytes(mark, (const uint8_t *)"test\n", 5));
    for (int allow = 0; allow < 2; allow++) {
        cuzk_engine_config c;
        cfg_small(&c);
        c.srs_allow_test_params = allow;
        cuzk_engine *e = start(&c);
        REQUIRE(e);
        CHECK(cuzk_engine_register_builtin(e) == CUZK_OK);
        int st = cuzk_engine_srs_preload(e, NULL, NULL, "wpost-2k", err, sizeof err);
        if (!allow) CHECK(st == CUZK_ERR_FORMAT && strstr(err, "srs.allow_test_params is off"));
        if (allow) CHECK(st == CUZK_OK);
        cuzk_engine_destroy(e);
    }
    unlink(mark);
    snprintf(mark, sizeof mark, "%s.cuzk-valid", off);
    unlink(mark);
    unlink(off);
    free(b);
}

/* A parameter directory we cannot write: the record goes to the state dir. */
static void test_record_state_dir(void)
{
    if (geteuid() == 0) {
        test_skip("running as root: a read-only directory cannot be made");
        return;
    }
    char dir[300], path[330], state[300], err[512];
    snprintf(dir, sizeof dir, "%s/ro", cache_dir());
    snprintf(path, sizeof path, "%s/chain.params", dir);
    snprintf(state, sizeof state, "%s/state", cache_dir());
    char src[256];
    size_t n = 0;
    uint8_t *b = test_read_file(params_path(src, sizeof src, 60), &n);
    CHECK(b && mkdir(dir, 0755) == 0 && write_bytes(path, b, n) && chmod(dir, 0555) == 0);
    cuzk_groth16_params *p = NULL;
    cuzk_groth16_load_opts o = {.err = err, .err_len = sizeof err};
    cuzk_srs_load_info info;
    CHECK(cuzk_srs_params_load(&p, path, CUZK_SRS_VALIDATE_DIGEST, state, &o, &info) == CUZK_OK);
    CHECK(info.how == CUZK_SRS_TRUST_VALIDATED && !info.note[0]);
    cuzk_groth16_params_free(p);
    CHECK(cuzk_srs_params_load(&p, path, CUZK_SRS_VALIDATE_DIGEST, state, &o, &info) == CUZK_OK);
    CHECK(info.how == CUZK_SRS_TRUST_RECORD);
    cuzk_groth16_params_free(p);
    chmod(dir, 0755);
    free(b);
}

static void test_validate_names(void)
{
    cuzk_srs_validate m;
    CHECK(cuzk_srs_validate_parse(&m, "digest") == CUZK_OK && m == CUZK_SRS_VALIDATE_DIGEST);
    CHECK(cuzk_srs_validate_parse(&m, "full") == CUZK_OK && m == CUZK_SRS_VALIDATE_FULL);
    CHECK(cuzk_srs_validate_parse(&m, "none") == CUZK_OK && m == CUZK_SRS_VALIDATE_NONE);
    CHECK(cuzk_srs_validate_parse(&m, "true") == CUZK_OK && m == CUZK_SRS_VALIDATE_FULL);
    CHECK(cuzk_srs_validate_parse(&m, "false") == CUZK_OK && m == CUZK_SRS_VALIDATE_NONE);
    CHECK(cuzk_srs_validate_parse(&m, "yes") == CUZK_ERR_ARG);
    cuzk_engine_config c;
    cuzk_engine_config_default(&c);
    CHECK(c.srs_validate == CUZK_SRS_VALIDATE_DIGEST);
}

/* ---- a long hash and shutdown (issue 23) ------------------------------------------- */

/* A sparse file of `gib` GiB: no disk, but hashing reads every byte. */
static bool make_sparse(const char *path, unsigned gib)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    bool ok = fd >= 0 && ftruncate(fd, (off_t)gib << 30) == 0;
    return (fd >= 0 && close(fd) == 0) && ok;
}

typedef struct {
    int polls, stop_at;
} stop_count;

static int stop_after(void *ctx)
{
    stop_count *c = ctx;
    return ++c->polls >= c->stop_at ? CUZK_ENGINE_ERR_SHUTDOWN : 0;
}

/* The hash polls its stop hook before every 1 MiB read and ends with the
 * hook's status and how far it got. */
static void test_hash_stop(void)
{
    char path[300], err[512] = "", want[400];
    snprintf(path, sizeof path, "%s/sparse-4g.params", cache_dir());
    REQUIRE(make_sparse(path, 4));
    stop_count c = {0, 3};
    cuzk_srs_load_opts so = {.mode = CUZK_SRS_VALIDATE_DIGEST, .stop = stop_after, .stop_ctx = &c};
    cuzk_groth16_params *p = NULL;
    cuzk_groth16_load_opts o = {.err = err, .err_len = sizeof err};
    uint64_t t0 = mono_ms();
    CHECK(cuzk_srs_params_load_ex(&p, path, &so, &o, NULL) == CUZK_ENGINE_ERR_SHUTDOWN);
    CHECK(mono_ms() - t0 < 2000 && c.polls == 3 && !p);
    snprintf(want, sizeof want, "hashing %s stopped after 2 of 4096 MiB", path);
    CHECK(strstr(err, want) != NULL);
    unlink(path);
}

/* A job whose params are still being hashed when shutdown's grace ends:
 * the hash stops, and shutdown returns within the grace (plus a margin),
 * not after the whole file -- 8 GiB here, many seconds at disk speed. */
static void test_shutdown_during_hash(void)
{
    char dir[300], path[340], id[CUZK_JOB_ID_MAX];
    snprintf(dir, sizeof dir, "%s/cuzk-test", cache_dir());
    snprintf(path, sizeof path, "%s/chain-77.params", dir);
    mkdir(dir, 0755);
    REQUIRE(make_sparse(path, 8));
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    REQUIRE(e);
    CHECK(submit(e, id, "n=77") == CUZK_OK);
    sleep_ms(500); /* the synthesis worker is hashing the params now */
    uint64_t t0 = mono_ms();
    cuzk_engine_shutdown(e, 300);
    uint64_t took = mono_ms() - t0;
    printf("  shutdown with grace 300 ms took %llu ms during an 8 GiB hash\n", (unsigned long long)took);
    CHECK(took < 2500);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 0) == CUZK_OK && r.status == CUZK_JOB_CANCELLED);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
    unlink(path);
}

/* ---- files that change under the engine ----------------------------------------- */

static int await_job(cuzk_engine *e, const char *id, char *msg, size_t cap)
{
    cuzk_engine_result r = {0};
    int st = cuzk_engine_await(e, &r, id, 0) == CUZK_OK ? (int)r.status : -1;
    snprintf(msg, cap, "%s", r.error);
    cuzk_engine_result_clear(&r);
    return st;
}

/* WARM (mapped) params truncated while a job holds them: the prove fails
 * with the change instead of SIGBUS, the entry drops to COLD, and once the
 * file is back the next job works. */
static void test_truncated_while_warm(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    char err[512], path[256], id[CUZK_JOB_ID_MAX], msg[1024];
    CHECK(cuzk_engine_srs_map(e, "chain-300", err, sizeof err) == CUZK_OK);
    cuzk_engine_srs_info i = {0};
    CHECK(srs_info(e, "chain-300", &i) && i.tier == CUZK_SRS_WARM);
    size_t n = 0;
    uint8_t *b = test_read_file(params_path(path, sizeof path, 300), &n);
    CHECK(b && n > 4 * 4096);
    CHECK(submit(e, id, "n=300 sleep_ms=300") == CUZK_OK);
    for (int t = 0; t < 400 && !(srs_info(e, "chain-300", &i) && i.ref_count > 0); t++)
        sleep_ms(5);
    CHECK(i.ref_count > 0);
    CHECK(truncate(path, 4096) == 0);
    CHECK(await_job(e, id, msg, sizeof msg) == CUZK_JOB_FAILED);
    CHECK(strstr(msg, "changed while in use") && strstr(msg, " -> 4096") && strstr(msg, "chain-300.params"));
    CHECK(srs_info(e, "chain-300", &i) && i.tier == CUZK_SRS_COLD);
    /* still truncated: the next job fails to load it, precisely */
    CHECK(submit(e, id, "n=300") == CUZK_OK);
    CHECK(await_job(e, id, msg, sizeof msg) == CUZK_JOB_FAILED && strstr(msg, "truncated"));
    /* restored (same bytes): proves again, trusted by the record's digest */
    CHECK(write_bytes(path, b, n));
    CHECK(submit(e, id, "n=300") == CUZK_OK);
    CHECK(await_job(e, id, msg, sizeof msg) == CUZK_JOB_COMPLETED);
    free(b);
    cuzk_engine_destroy(e);
}

/* HOT params replaced by rename: the next use sees the new file (inode),
 * drops the old copy and loads the new one -- a bad one fails that job
 * with both reasons, a good one serves again. */
static void test_renamed_while_hot(void)
{
    cuzk_engine_config c;
    cfg_small(&c);
    cuzk_engine *e = start(&c);
    char err[512], path[256], tmp[300], id[CUZK_JOB_ID_MAX], msg[1024];
    CHECK(cuzk_engine_srs_preload(e, NULL, NULL, "chain-70", err, sizeof err) == CUZK_OK);
    size_t n = 0;
    uint8_t *b = test_read_file(params_path(path, sizeof path, 70), &n);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    CHECK(b);
    corrupt_last_point(b, n);
    CHECK(write_bytes(tmp, b, n) && rename(tmp, path) == 0);
    CHECK(submit(e, id, "n=70") == CUZK_OK);
    CHECK(await_job(e, id, msg, sizeof msg) == CUZK_JOB_FAILED);
    CHECK(strstr(msg, "changed while in use") && strstr(msg, "inode") &&
          strstr(msg, "loading it again failed") && strstr(msg, "b_g2["));
    corrupt_last_point(b, n);
    CHECK(write_bytes(tmp, b, n) && rename(tmp, path) == 0);
    CHECK(submit(e, id, "n=70") == CUZK_OK);
    CHECK(await_job(e, id, msg, sizeof msg) == CUZK_JOB_COMPLETED);
    cuzk_engine_srs_info i;
    CHECK(srs_info(e, "chain-70", &i) && i.tier == CUZK_SRS_HOT);
    free(b);
    cuzk_engine_destroy(e);
}

static const test_case tests[] = {
    {"preload_evict", test_preload_evict},
    {"refcount", test_refcount},
    {"lru", test_lru},
    {"budget", test_budget},
    {"validate_names", test_validate_names},
    {"trust_modes", test_trust_modes},
    {"record_binds", test_record_binds},
    {"official_digest", test_official_digest},
    {"engine_test_params_opt_in", test_engine_test_params_opt_in},
    {"record_state_dir", test_record_state_dir},
    {"hash_stop", test_hash_stop},
    {"shutdown_during_hash", test_shutdown_during_hash},
    {"truncated_while_warm", test_truncated_while_warm},
    {"renamed_while_hot", test_renamed_while_hot},
};
TEST_MAIN(tests)
