/* Prover workers per device, with the CPU prover as one more (issue 21
 * item 4): gpus.* resolved by the engine, partitions spread over device
 * workers and the CPU, every proof verified, a device error or a wrong
 * device proof given back to the CPU, cancellation mid-proof on a device
 * worker, shutdown with work queued, precise configuration errors, and the
 * real OpenCL backend on pocl.
 *
 * Most cases use a stand-in device backend (cuzk_engine_device_ops): the
 * CPU backend's functions behind a handle that records which handle ran,
 * sleeps in each call (so that work overlaps deterministically enough) and
 * fails or returns a wrong point on demand.  "pocl" uses the build's
 * backend on the OpenCL device ($CUZK_BACKEND=cuda: the CUDA one): skipped
 * without one unless CI=true. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/gpu.h"
#include "harness.h"

#define ENGINE_TEST_NAME "gpu"
#include "engine_util.h"

/* ---- the stand-in device backend ---------------------------------------- */

enum { FAKE_OK = 0, FAKE_FAIL, FAKE_WRONG };

typedef struct fake_dev {
    unsigned index;
    cuzk_groth16_backend be;
    atomic_int calls;
    char name[32];
} fake_dev;

static atomic_int g_mode[2];   /* per device index: FAKE_* */
static atomic_int g_sleep_ms;  /* per backend call */
static atomic_int g_in_call;   /* calls in flight on device 0 (the lock: never 2) */
static atomic_int g_overlap;

static void fake_enter(const fake_dev *d)
{
    if (d->index == 0 && atomic_fetch_add(&g_in_call, 1)) atomic_store(&g_overlap, 1);
    int ms = atomic_load(&g_sleep_ms);
    if (ms) sleep_ms((unsigned)ms);
}

static void fake_leave(const fake_dev *d)
{
    if (d->index == 0) atomic_fetch_sub(&g_in_call, 1);
}

static int fake_msm_g1(void *ctx, cuzk_g1 *r, const cuzk_g1_affine *bases, size_t nbases, const cuzk_fr *s,
                       size_t nvars, const uint64_t *density, cuzk_par *par)
{
    fake_dev *d = ctx;
    atomic_fetch_add(&d->calls, 1);
    fake_enter(d);
    int mode = atomic_load(&g_mode[d->index]);
    int st = mode == FAKE_FAIL ? CUZK_ERR_IO
                               : cuzk_groth16_backend_cpu()->msm_g1(NULL, r, bases, nbases, s, nvars, density, par);
    if (!st && mode == FAKE_WRONG) cuzk_g1_dbl(r, r);
    fake_leave(d);
    return st;
}

static int fake_msm_g2(void *ctx, cuzk_g2 *r, const cuzk_g2_affine *bases, size_t nbases, const cuzk_fr *s,
                       size_t nvars, const uint64_t *density, cuzk_par *par)
{
    fake_dev *d = ctx;
    fake_enter(d);
    int st = atomic_load(&g_mode[d->index]) == FAKE_FAIL
                 ? CUZK_ERR_IO
                 : cuzk_groth16_backend_cpu()->msm_g2(NULL, r, bases, nbases, s, nvars, density, par);
    fake_leave(d);
    return st;
}

static int fake_h(void *ctx, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, size_t n, unsigned log_m, cuzk_par *par)
{
    fake_dev *d = ctx;
    fake_enter(d);
    int st = cuzk_groth16_backend_cpu()->h_poly(NULL, a, b, c, n, log_m, par);
    fake_leave(d);
    return st;
}

static int fake_list(void *ctx, const char *driver, cuzk_engine_device_desc *out, size_t cap, size_t *n, char *err,
                     size_t err_len)
{
    *n = 2;
    for (size_t i = 0; i < 2 && i < cap; i++) {
        snprintf(out[i].name, sizeof out[i].name, "fake-%zu", i);
        out[i].mem_bytes = 1u << 30;
        out[i].is_cpu = false;
    }
    return CUZK_OK;
}

static int fake_open(void *ctx, void **dev, const char *driver, unsigned index, char *err, size_t err_len)
{
    fake_dev *d = calloc(1, sizeof *d);
    if (!d) return CUZK_ERR_NOMEM;
    d->index = index;
    snprintf(d->name, sizeof d->name, "fake-%u", index);
    d->be = (cuzk_groth16_backend){.name = "fake", .ctx = d, .msm_g1 = fake_msm_g1, .msm_g2 = fake_msm_g2,
                                   .h_poly = fake_h};
    *dev = d;
    return CUZK_OK;
}

static const cuzk_groth16_backend *fake_backend(void *dev)
{
    return &((fake_dev *)dev)->be;
}
static const char *fake_name(const void *dev)
{
    return ((const fake_dev *)dev)->name;
}
static uint64_t fake_memory(const void *dev)
{
    return 1u << 30;
}
static const char *fake_error(const void *dev)
{
    return "fake device error";
}
static void fake_close(void *dev)
{
    free(dev);
}

static const cuzk_engine_device_ops fake_ops = {NULL,      fake_list,   fake_open,  fake_backend,
                                                fake_name, fake_memory, fake_error, fake_close};

static void fake_reset(int sleep)
{
    atomic_store(&g_mode[0], FAKE_OK);
    atomic_store(&g_mode[1], FAKE_OK);
    atomic_store(&g_sleep_ms, sleep);
    atomic_store(&g_overlap, 0);
}

/* Two fake devices (one worker each unless per says), the CPU prover on,
 * batches of one partition so that every worker gets some. */
static void cfg_fake(cuzk_engine_config *c, uint32_t per, const char *cpu)
{
    engine_cfg_base(c);
    c->gpus.ops = &fake_ops;
    snprintf(c->gpus.backend, sizeof c->gpus.backend, "opencl");
    snprintf(c->gpus.cpu_worker, sizeof c->gpus.cpu_worker, "%s", cpu);
    c->gpus.workers_per_device = per;
    c->gpus.threads = 1;
    c->max_batch_size = 1;
    c->synthesis_threads = 2;
    c->pipeline_depth = 8;
    c->prover_threads = 1;
    c->result_retention_ms = 600000;
}

static int submit_chain(cuzk_engine *e, char *id, const char *settings)
{
    cuzk_engine_request r = {.kind = CUZK_PROOF_TEST, .vanilla_proof = (const uint8_t *)settings,
                             .vanilla_proof_len = strlen(settings)};
    char err[512] = "";
    int st = cuzk_engine_submit(e, id, NULL, NULL, &r, err, sizeof err);
    if (st) fprintf(stderr, "  submit %s: %s\n", settings, err);
    return st;
}

typedef struct chain_job {
    const char *settings;
    size_t n, parts;
    uint64_t x0;
    char id[CUZK_JOB_ID_MAX];
} chain_job;

/* Submit them all, await each: COMPLETED and every partition's proof checked
 * against the vk on disk and the slow reference output. */
static void prove_all(cuzk_engine *e, chain_job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK(submit_chain(e, jobs[i].id, jobs[i].settings) == CUZK_OK);
    for (size_t i = 0; i < n; i++) {
        cuzk_engine_result r = {0};
        CHECK(cuzk_engine_await(e, &r, jobs[i].id, 120000) == CUZK_OK);
        if (r.status != CUZK_JOB_COMPLETED) fprintf(stderr, "  %s: %s\n", jobs[i].settings, r.error);
        CHECK(r.status == CUZK_JOB_COMPLETED && r.proof_len == jobs[i].parts * CUZK_G16_PROOF_BYTES);
        for (size_t k = 0; r.proof && k < jobs[i].parts; k++)
            CHECK(engine_chain_proof_ok(r.proof + k * CUZK_G16_PROOF_BYTES, jobs[i].n, jobs[i].x0 + k));
        cuzk_engine_result_clear(&r);
    }
}

/* Partitions proved by worker `name`, from the retained jobs in /status. */
static size_t proved_by(cuzk_engine *e, const char *name)
{
    char *json = NULL, pat[64];
    size_t len = 0, n = 0;
    CHECK(cuzk_engine_status_json(e, &json, &len) == CUZK_OK);
    snprintf(pat, sizeof pat, "\"prove_worker\":\"%s\"", name);
    for (const char *p = json; p && (p = strstr(p, pat)); p += strlen(pat)) n++;
    free(json);
    return n;
}

static const struct cuzk_engine_device_info *dev_info(const cuzk_engine_status *s, const char *label)
{
    for (size_t i = 0; i < s->n_devices; i++)
        if (!strcmp(s->devices[i].device, label)) return &s->devices[i];
    return NULL;
}

/* ---- cases ------------------------------------------------------------------------ */

/* Two device workers and the CPU prover: mixed circuits and partition
 * counts, every proof verified, each worker used; the status names each
 * worker's device; the device lock holds (two workers on one device never
 * call it at once: per = 2 on device 0 in the second half). */
static void test_spread(void)
{
    fake_reset(15);
    cuzk_engine_config c;
    cfg_fake(&c, 1, "on");
    cuzk_engine *e = start(&c);
    chain_job jobs[] = {{"n=64 partitions=3 x0=5", 64, 3, 5, ""},  {"n=128 x0=7", 128, 1, 7, ""},
                        {"n=64 partitions=2 x0=11", 64, 2, 11, ""}, {"n=128 partitions=2 x0=13", 128, 2, 13, ""},
                        {"n=64 x0=17", 64, 1, 17, ""},             {"n=128 partitions=3 x0=19", 128, 3, 19, ""}};
    prove_all(e, jobs, sizeof jobs / sizeof jobs[0]);
    size_t cpu = proved_by(e, "prover"), g0 = proved_by(e, "gpu-0.0"), g1 = proved_by(e, "gpu-1.0");
    printf("  partitions: cpu %zu, gpu-0.0 %zu, gpu-1.0 %zu\n", cpu, g0, g1);
    CHECK(cpu + g0 + g1 == 12);
    CHECK(cpu > 0 && g0 > 0 && g1 > 0);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    CHECK(s.n_provers == 3 && s.n_devices == 3);
    CHECK(!strcmp(s.workers[0].name, "prover") && !strcmp(s.workers[0].device, "cpu"));
    CHECK(!strcmp(s.workers[1].name, "gpu-0.0") && !strcmp(s.workers[1].device, "opencl:0"));
    CHECK(!strcmp(s.workers[2].device, "opencl:1") && !strcmp(s.workers[2].device_name, "fake-1"));
    const struct cuzk_engine_device_info *d0 = dev_info(&s, "opencl:0"), *cp = dev_info(&s, "cpu");
    CHECK(d0 && d0->partitions == g0 && d0->busy_ms > 0 && cp && cp->partitions == cpu);
    cuzk_engine_status_clear(&s);
    char *m = NULL;
    size_t len;
    CHECK(cuzk_engine_metrics_text(e, &m, &len) == CUZK_OK);
    CHECK(m && strstr(m, "cuzk_worker_device{worker=\"gpu-1.0\",device=\"opencl:1\"} 1"));
    CHECK(m && strstr(m, "cuzk_device_partitions_total{device=\"cpu\"}"));
    CHECK(m && strstr(m, "cuzk_gpu_workers 3"));
    CHECK(m && strstr(m, "cuzk_worker_busy_seconds_total{worker=\"prover\"}")); /* the old series stay */
    free(m);
    cuzk_engine_destroy(e);

    /* two workers on device 0 share it under the lock; the CPU prover
     * off: the devices take everything */
    fake_reset(5);
    cfg_fake(&c, 2, "off");
    c.gpus.n_devices = 1;
    c.gpus.devices[0] = 0;
    e = start(&c);
    chain_job more[] = {{"n=64 partitions=4 x0=23", 64, 4, 23, ""}, {"n=128 partitions=3 x0=29", 128, 3, 29, ""}};
    prove_all(e, more, 2);
    size_t a = proved_by(e, "gpu-0.0"), b = proved_by(e, "gpu-0.1");
    printf("  one device, two workers: %zu + %zu, cpu %zu\n", a, b, proved_by(e, "prover"));
    CHECK(a > 0 && b > 0 && a + b == 7 && proved_by(e, "prover") == 0);
    CHECK(atomic_load(&g_overlap) == 0);
    cuzk_engine_destroy(e);
}

/* A device whose calls fail, and one whose proofs are wrong: the
 * partitions go to the CPU (even with the CPU prover "off"), every job
 * completes with verified proofs; the failing worker is retired after 3
 * failures in a row ("failed"), and the fallbacks are counted. */
static void test_fallback(void)
{
    fake_reset(0);
    atomic_store(&g_mode[0], FAKE_FAIL);
    atomic_store(&g_mode[1], FAKE_WRONG);
    cuzk_engine_config c;
    cfg_fake(&c, 1, "off");
    cuzk_engine *e = start(&c);
    chain_job jobs[] = {{"n=64 partitions=3 x0=31", 64, 3, 31, ""}, {"n=128 partitions=2 x0=37", 128, 2, 37, ""},
                        {"n=64 x0=41", 64, 1, 41, ""}};
    CHECK(engine_log_begin());
    prove_all(e, jobs, 3);
    char *log = engine_log_end();
    CHECK(log && strstr(log, "WARN") && strstr(log, "go to the CPU prover"));
    CHECK(log && strstr(log, "fake device error"));
    CHECK(log && strstr(log, "self-verification failed"));
    free(log);
    CHECK(proved_by(e, "prover") == 6);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    const struct cuzk_engine_device_info *d0 = dev_info(&s, "opencl:0"), *d1 = dev_info(&s, "opencl:1");
    CHECK(d0 && d1 && d0->fallbacks + d1->fallbacks == 6 && d0->partitions + d1->partitions == 0);
    CHECK(!strcmp(s.workers[1].state, "failed") && !strcmp(s.workers[2].state, "failed"));
    cuzk_engine_status_clear(&s);
    /* retired devices: the CPU proves what comes next */
    chain_job next[] = {{"n=64 x0=43", 64, 1, 43, ""}};
    prove_all(e, next, 1);
    cuzk_engine_destroy(e);
}

/* Cancel a job while a device worker proves it: it ends CANCELLED at the
 * prover's next checkpoint (a device call in flight finishes first), the
 * worker goes back to work, and shutdown with jobs queued tells every
 * waiter. */
static void test_cancel_and_shutdown(void)
{
    fake_reset(150);
    cuzk_engine_config c;
    cfg_fake(&c, 1, "off");
    cuzk_engine *e = start(&c);
    char id[CUZK_JOB_ID_MAX];
    CHECK(submit_chain(e, id, "n=64 x0=47") == CUZK_OK);
    bool seen = false;
    for (uint64_t t0 = mono_ms(); !seen && mono_ms() - t0 < 20000; sleep_ms(5)) {
        cuzk_engine_status s;
        CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
        for (size_t i = 1; i < s.n_provers; i++)
            seen |= !strcmp(s.workers[i].state, "proving") && !strcmp(s.workers[i].job_id, id) &&
                    s.workers[i].partition == 0;
        cuzk_engine_status_clear(&s);
    }
    CHECK(seen);
    uint64_t t0 = mono_ms();
    bool running = false;
    CHECK(cuzk_engine_cancel(e, &running, id) == CUZK_OK && running);
    cuzk_engine_result r = {0};
    CHECK(cuzk_engine_await(e, &r, id, 10000) == CUZK_OK && r.status == CUZK_JOB_CANCELLED);
    for (int i = 0; i < 200; i++) { /* the worker lets go within one device call */
        cuzk_engine_status s;
        CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
        bool busy = !strcmp(s.workers[1].state, "proving") || !strcmp(s.workers[2].state, "proving");
        cuzk_engine_status_clear(&s);
        if (!busy) break;
        sleep_ms(10);
    }
    printf("  cancelled mid-proof; the device worker free after %llu ms\n", (unsigned long long)(mono_ms() - t0));
    CHECK(mono_ms() - t0 < 1500);
    fake_reset(0);
    chain_job after[] = {{"n=64 x0=53", 64, 1, 53, ""}};
    prove_all(e, after, 1);

    /* shutdown with work queued: every job ends, every waiter is told */
    atomic_store(&g_sleep_ms, 100);
    char ids[6][CUZK_JOB_ID_MAX];
    for (int i = 0; i < 6; i++)
        CHECK(submit_chain(e, ids[i], "n=64 partitions=2") == CUZK_OK);
    sleep_ms(100);
    cuzk_engine_shutdown(e, 50);
    int cancelled = 0;
    for (int i = 0; i < 6; i++) {
        CHECK(cuzk_engine_await(e, &r, ids[i], 5000) == CUZK_OK);
        CHECK(r.status == CUZK_JOB_COMPLETED || r.status == CUZK_JOB_CANCELLED);
        cancelled += r.status == CUZK_JOB_CANCELLED;
    }
    CHECK(cancelled > 0);
    cuzk_engine_result_clear(&r);
    cuzk_engine_destroy(e);
}

/* Precise errors for what cannot be: a device ordinal that does not
 * exist, one listed twice, an unknown backend; "cpu" opens nothing. */
static void test_config_errors(void)
{
    cuzk_engine_config c;
    cfg_fake(&c, 1, "on");
    c.gpus.n_devices = 2;
    c.gpus.devices[0] = 0;
    c.gpus.devices[1] = 5;
    cuzk_engine *e = NULL;
    char err[512] = "";
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_ERR_ARG && !e);
    CHECK(strstr(err, "gpus.devices: device 5 does not exist") && strstr(err, "2 device(s)"));
    c.gpus.devices[1] = 0;
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_ERR_ARG && strstr(err, "listed twice"));
    c.gpus.n_devices = 0;
    snprintf(c.gpus.backend, sizeof c.gpus.backend, "metal");
    CHECK(cuzk_engine_create(&e, &c, err, sizeof err) == CUZK_ERR_ARG && strstr(err, "gpus.backend = \"metal\""));
    snprintf(c.gpus.backend, sizeof c.gpus.backend, "cpu");
    e = start(&c);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK && s.n_provers == 1 && s.n_devices == 1);
    cuzk_engine_status_clear(&s);
    cuzk_engine_destroy(e);
}

/* The build's backend on the OpenCL device (pocl here): two workers on
 * device 0 and the CPU prover beside them, every proof verified. */
static void test_pocl(void)
{
    const char *drv = getenv("CUZK_BACKEND") && !strcmp(getenv("CUZK_BACKEND"), "cuda") ? "cuda" : "opencl";
    cuzk_gpu_device_info info[4];
    size_t n = 0;
    char why[512] = "";
    if (cuzk_gpu_list(!strcmp(drv, "cuda") ? CUZK_GPU_CUDA : CUZK_GPU_OPENCL, info, 4, &n, why, sizeof why) || !n) {
        const char *ci = getenv("CI");
        if (ci && !strcmp(ci, "true") && !strcmp(drv, "opencl")) {
            fprintf(stderr, "  no OpenCL device under CI=true: %s\n", why);
            CHECK(!"an OpenCL device (CI=true)");
        } else {
            test_skip(why[0] ? why : "no device");
        }
        return;
    }
    cuzk_engine_config c;
    engine_cfg_base(&c);
    snprintf(c.gpus.backend, sizeof c.gpus.backend, "%s", drv);
    snprintf(c.gpus.cpu_worker, sizeof c.gpus.cpu_worker, "on");
    c.gpus.n_devices = 1;
    c.gpus.devices[0] = 0;
    c.gpus.workers_per_device = 2;
    c.gpus.threads = 1;
    c.max_batch_size = 1;
    c.synthesis_threads = 2;
    c.pipeline_depth = 6;
    c.prover_threads = 1;
    c.result_retention_ms = 600000;
    cuzk_engine *e = NULL;
    char err[512] = "";
    int st = cuzk_engine_create(&e, &c, err, sizeof err);
    if (st) fprintf(stderr, "  create: %s\n", err);
    CHECK(st == CUZK_OK);
    if (st) return;
    chain_job jobs[] = {{"n=64 partitions=2 x0=61", 64, 2, 61, ""}, {"n=128 x0=67", 128, 1, 67, ""},
                        {"n=64 partitions=3 x0=71", 64, 3, 71, ""}, {"n=128 partitions=2 x0=73", 128, 2, 73, ""}};
    uint64_t t0 = mono_ms();
    prove_all(e, jobs, 4);
    size_t a = proved_by(e, "gpu-0.0"), b = proved_by(e, "gpu-0.1"), cpu = proved_by(e, "prover");
    printf("  %s:0 (%s): 8 partitions in %llu ms: gpu-0.0 %zu, gpu-0.1 %zu, cpu %zu\n", drv, info[0].name,
           (unsigned long long)(mono_ms() - t0), a, b, cpu);
    CHECK(a + b + cpu == 8 && a + b > 0);
    cuzk_engine_status s;
    CHECK(cuzk_engine_get_status(e, &s) == CUZK_OK);
    const struct cuzk_engine_device_info *d = s.n_devices > 1 ? &s.devices[1] : NULL;
    CHECK(d && d->workers == 2 && d->fallbacks == 0 && d->partitions == a + b);
    cuzk_engine_status_clear(&s);
    cuzk_engine_destroy(e);
}

static const test_case tests[] = {
    {"spread", test_spread},
    {"fallback", test_fallback},
    {"cancel_and_shutdown", test_cancel_and_shutdown},
    {"config_errors", test_config_errors},
    {"pocl", test_pocl},
};
TEST_MAIN(tests)
