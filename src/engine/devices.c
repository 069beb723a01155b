/* The prover workers' devices: gpus.* resolved to a driver and a list of
 * devices, one backend handle opened per device worker, and the backend
 * every device worker proves with -- its handle's calls made under the
 * device's lock, timed, and their first failure kept for the prover
 * (prover.c falls back to the CPU on it).
 *
 * Why a lock per device and a handle per worker: a handle runs one prove
 * at a time (cuzk/gpu_groth16.h), and two workers on one device are there
 * so that one prepares or finishes a partition on the host (witness,
 * assembly, self-verification) while the other has the device.  The lock
 * covers one backend call (an MSM, the H transforms), never the host work
 * between them.
 *
 * "auto" picks CUDA devices, else OpenCL devices that are not CPUs: pocl
 * (an OpenCL CPU device) is correct but slower than the CPU prover, so it
 * is used only when named (gpus.backend = "opencl"; the tests do). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/gpu.h"
#include "cuzk/gpu_groth16.h"
#include "engine/engine_internal.h"

/* ---- the build's backend (cuzk/gpu_groth16.h) ---------------------------- */

static int real_list(void *ctx, const char *driver, cuzk_engine_device_desc *out, size_t cap, size_t *n, char *err,
                     size_t err_len)
{
    cuzk_gpu_driver_kind d = !strcmp(driver, "cuda") ? CUZK_GPU_CUDA : CUZK_GPU_OPENCL;
    cuzk_gpu_device_info info[CUZK_ENGINE_MAX_DEVICES];
    *n = 0;
    int st = cuzk_gpu_list(d, info, CUZK_ENGINE_MAX_DEVICES, n, err, err_len);
    if (st) return st;
    for (size_t i = 0; i < *n && i < cap && i < CUZK_ENGINE_MAX_DEVICES; i++) {
        snprintf(out[i].name, sizeof out[i].name, "%s", info[i].name);
        out[i].mem_bytes = info[i].mem_bytes;
        out[i].is_cpu = info[i].is_cpu;
    }
    return CUZK_OK;
}

static int real_open(void *ctx, void **dev, const char *driver, unsigned index, char *err, size_t err_len)
{
    cuzk_gpu_groth16 *g = NULL;
    int st = cuzk_gpu_groth16_open(&g, driver, index, err, err_len);
    *dev = st ? NULL : g;
    return st;
}

static const cuzk_groth16_backend *real_backend(void *dev)
{
    return cuzk_gpu_groth16_backend(dev);
}
static const char *real_name(const void *dev)
{
    return cuzk_gpu_groth16_name(dev);
}
static uint64_t real_memory(const void *dev)
{
    return cuzk_gpu_groth16_memory(dev);
}
static const char *real_error(const void *dev)
{
    return cuzk_gpu_groth16_error(dev);
}
static void real_close(void *dev)
{
    cuzk_gpu_groth16_close(dev);
}

static const cuzk_engine_device_ops real_ops = {NULL,      real_list,   real_open,  real_backend,
                                                real_name, real_memory, real_error, real_close};

/* ---- the device worker's backend: the handle's calls under the lock ------- */

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void dev_enter(worker *w, uint64_t *t0)
{
    pthread_mutex_lock(&w->dev->mu);
    *t0 = now_us();
}

/* Leaves the device; a failure is kept (the first of this prove) with the
 * handle's message, for prover.c's fallback and its WARN. */
static int dev_leave(worker *w, uint64_t t0, int st, const char *call)
{
    atomic_fetch_add(&w->dev->busy_us, now_us() - t0);
    pthread_mutex_unlock(&w->dev->mu);
    if (st && !w->dev_st) {
        const char *m = w->e->dev_ops->error ? w->e->dev_ops->error(w->handle) : NULL;
        w->dev_st = st;
        snprintf(w->dev_err, sizeof w->dev_err, "%s: %s", call, m && *m ? m : cuzk_engine_strerror(st));
    }
    return st;
}

static int dev_msm_g1(void *ctx, cuzk_g1 *r, const cuzk_g1_affine *bases, size_t nbases, const cuzk_fr *s,
                      size_t nvars, const uint64_t *density, cuzk_par *par)
{
    worker *w = ctx;
    uint64_t t0;
    dev_enter(w, &t0);
    int st = w->inner->msm_g1(w->inner->ctx, r, bases, nbases, s, nvars, density, par);
    return dev_leave(w, t0, st, "G1 MSM");
}

static int dev_msm_g2(void *ctx, cuzk_g2 *r, const cuzk_g2_affine *bases, size_t nbases, const cuzk_fr *s,
                      size_t nvars, const uint64_t *density, cuzk_par *par)
{
    worker *w = ctx;
    uint64_t t0;
    dev_enter(w, &t0);
    int st = w->inner->msm_g2(w->inner->ctx, r, bases, nbases, s, nvars, density, par);
    return dev_leave(w, t0, st, "G2 MSM");
}

static int dev_h_poly(void *ctx, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, size_t n, unsigned log_m, cuzk_par *par)
{
    worker *w = ctx;
    uint64_t t0;
    dev_enter(w, &t0);
    int st = w->inner->h_poly(w->inner->ctx, a, b, c, n, log_m, par);
    return dev_leave(w, t0, st, "H");
}

static int dev_h_poly_lean(void *ctx, cuzk_fr *a, cuzk_fr *b, size_t n, unsigned log_m,
                           int (*fill_c)(void *, cuzk_fr *, size_t), void *fill_ctx, cuzk_par *par)
{
    worker *w = ctx;
    uint64_t t0;
    dev_enter(w, &t0);
    int st = w->inner->h_poly_lean(w->inner->ctx, a, b, n, log_m, fill_c, fill_ctx, par);
    return dev_leave(w, t0, st, "H");
}

/* ---- choosing the devices ----------------------------------------------------- */

typedef struct dev_choice {
    const char *driver; /* NULL: no device */
    cuzk_engine_device_desc desc[CUZK_ENGINE_MAX_DEVICES];
    size_t n;                                  /* devices the driver has */
    uint32_t pick[CUZK_ENGINE_MAX_DEVICES], n_pick; /* ordinals to use */
} dev_choice;

static int list_driver(const cuzk_engine_device_ops *ops, dev_choice *c, const char *driver, char *why,
                       size_t why_len)
{
    c->n = 0;
    int st = ops->list(ops->ctx, driver, c->desc, CUZK_ENGINE_MAX_DEVICES, &c->n, why, why_len);
    if (!st && !c->n) st = cuzk_errf(why, why_len, CUZK_ERR_UNSUPPORTED, "no device");
    if (c->n > CUZK_ENGINE_MAX_DEVICES) c->n = CUZK_ENGINE_MAX_DEVICES;
    return st;
}

static bool usable_auto(const dev_choice *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (!c->desc[i].is_cpu) return true;
    return false;
}

/* Whether an OpenCL ICD other than pocl's is installed ($OCL_ICD_VENDORS
 * or /etc/OpenCL/vendors): "auto" loads the OpenCL runtime only then, so
 * a host whose only OpenCL is pocl (a CPU device "auto" would not use)
 * never loads it -- pocl and its LLVM keep their allocations and threads
 * for the life of the process. */
static bool opencl_gpu_icd(void)
{
    const char *dir = getenv("OCL_ICD_VENDORS");
    DIR *d = opendir(dir && *dir ? dir : "/etc/OpenCL/vendors");
    if (!d) return false;
    bool found = false;
    struct dirent *de;
    char path[1024], line[512];
    while (!found && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".icd")) continue;
        snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/etc/OpenCL/vendors", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(line, sizeof line, f) && !strstr(line, "pocl")) found = true;
        fclose(f);
    }
    closedir(d);
    return found;
}

/* "auto": CUDA devices, else OpenCL devices that are not CPUs, else none
 * (a WARN when gpus.devices named some: the daemon still starts, on the
 * CPU, as a Curio file written for a GPU host expects of a CPU host). */
static int choose_auto(const cuzk_engine *e, dev_choice *c)
{
    char why_cuda[256] = "", why_cl[256] = "";
    if (!list_driver(e->dev_ops, c, "cuda", why_cuda, sizeof why_cuda)) {
        c->driver = "cuda";
        return CUZK_OK;
    }
    if (e->dev_ops == &real_ops && !opencl_gpu_icd())
        snprintf(why_cl, sizeof why_cl, "no OpenCL ICD but pocl's (a CPU device; gpus.backend = \"opencl\" uses it)");
    else if (!list_driver(e->dev_ops, c, "opencl", why_cl, sizeof why_cl)) {
        if (usable_auto(c)) {
            c->driver = "opencl";
            return CUZK_OK;
        }
        snprintf(why_cl, sizeof why_cl, "only CPU devices (%s%s; gpus.backend = \"opencl\" uses them)",
                 c->desc[0].name, c->n > 1 ? ", ..." : "");
    }
    if (e->cfg.gpus.n_devices)
        cuzk_log(CUZK_LOG_WARN, NULL,
                 "gpus.devices lists %u device(s) but gpus.backend = \"auto\" found no GPU (cuda: %s; opencl: %s): "
                 "proving on the CPU",
                 e->cfg.gpus.n_devices, why_cuda, why_cl);
    else
        cuzk_log(CUZK_LOG_INFO, NULL, "no GPU found (cuda: %s; opencl: %s): proving on the CPU", why_cuda, why_cl);
    c->driver = NULL;
    return CUZK_OK;
}

static int choose_driver(const cuzk_engine *e, dev_choice *c, char *err, size_t err_len)
{
    const char *b = e->cfg.gpus.backend;
    if (!*b || !strcmp(b, "auto")) return choose_auto(e, c);
    if (!strcmp(b, "cpu")) {
        c->driver = NULL;
        return CUZK_OK;
    }
    if (strcmp(b, "opencl") && strcmp(b, "cuda"))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpus.backend = \"%s\": expected auto, cpu, opencl or cuda", b);
    char why[256];
    if (list_driver(e->dev_ops, c, b, why, sizeof why))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpus.backend = \"%s\": not available: %s", b, why);
    c->driver = !strcmp(b, "cuda") ? "cuda" : "opencl";
    return CUZK_OK;
}

/* gpus.devices against what the driver has (every ordinal exists, none
 * twice; "auto" takes no CPU device); [] = all (auto: all but CPUs). */
static int choose_devices(const cuzk_engine *e, dev_choice *c, char *err, size_t err_len)
{
    const cuzk_engine_gpus *g = &e->cfg.gpus;
    bool is_auto = !g->backend[0] || !strcmp(g->backend, "auto");
    c->n_pick = 0;
    if (!g->n_devices) {
        for (size_t i = 0; i < c->n; i++)
            if (!is_auto || !c->desc[i].is_cpu) c->pick[c->n_pick++] = (uint32_t)i;
        return CUZK_OK;
    }
    for (uint32_t k = 0; k < g->n_devices && k < CUZK_ENGINE_MAX_DEVICES; k++) {
        uint32_t d = g->devices[k];
        if (d >= c->n)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "gpus.devices: device %u does not exist: %s has %zu device(s) (0 .. %zu; 0 = %s)", d,
                             c->driver, c->n, c->n - 1, c->desc[0].name);
        for (uint32_t q = 0; q < k; q++)
            if (g->devices[q] == d)
                return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpus.devices: device %u is listed twice", d);
        if (is_auto && c->desc[d].is_cpu)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "gpus.devices: %s:%u (%s) is a CPU device, which gpus.backend = \"auto\" does not "
                             "use; set gpus.backend = \"%s\" to prove on it",
                             c->driver, d, c->desc[d].name, c->driver);
        c->pick[c->n_pick++] = d;
    }
    return CUZK_OK;
}

/* ---- opening the workers' handles ---------------------------------------------- */

static int open_worker(cuzk_engine *e, worker *w, eng_device *d, const char *driver, uint32_t ord, uint32_t k,
                       char *err, size_t err_len)
{
    char why[CUZK_ENGINE_ERR_LEN] = "";
    w->e = e;
    w->dev = d;
    snprintf(w->info.name, sizeof w->info.name, "gpu-%u.%u", ord, k);
    snprintf(w->info.device, sizeof w->info.device, "%s", d->label);
    snprintf(w->info.state, sizeof w->info.state, "idle");
    w->info.partition = -1;
    int st = e->dev_ops->open(e->dev_ops->ctx, &w->handle, driver, ord, why, sizeof why);
    if (st) {
        w->handle = NULL;
        return cuzk_errf(err, err_len, st, "gpus: opening %s for worker %s: %s", d->label, w->info.name, why);
    }
    w->inner = e->dev_ops->backend(w->handle);
    if (!w->inner || !w->inner->msm_g1 || !w->inner->msm_g2 || !w->inner->h_poly)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpus: %s: the backend lacks a function", d->label);
    if (!d->name[0]) {
        const char *nm = e->dev_ops->name ? e->dev_ops->name(w->handle) : NULL;
        snprintf(d->name, sizeof d->name, "%s", nm && *nm ? nm : d->label);
        d->mem = e->dev_ops->memory ? e->dev_ops->memory(w->handle) : 0;
    }
    snprintf(w->info.device_name, sizeof w->info.device_name, "%s", d->name);
    w->info.device_mem = d->mem;
    w->be = (cuzk_groth16_backend){.name = w->info.name,
                                   .ctx = w,
                                   .msm_g1 = dev_msm_g1,
                                   .msm_g2 = dev_msm_g2,
                                   .h_poly = dev_h_poly,
                                   .h_poly_lean = w->inner->h_poly_lean ? dev_h_poly_lean : NULL};
    unsigned threads = e->cfg.gpus.threads ? e->cfg.gpus.threads : e->cfg.prover_threads;
    if (threads > 1 && (st = cuzk_pool_create(&w->pool, threads))) {
        w->pool = NULL;
        return cuzk_errf(err, err_len, st, "gpus: worker %s: cannot create its %u host threads", w->info.name,
                         threads);
    }
    w->batch = calloc(e->cfg.max_batch_size, sizeof *w->batch);
    if (!w->batch) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "gpus: out of memory");
    return CUZK_OK;
}

/* The CPU prover (worker 0): e->pool, the name engine.h documents. */
static int cpu_worker_init(cuzk_engine *e, worker *w, char *err, size_t err_len)
{
    w->e = e;
    snprintf(w->info.name, sizeof w->info.name, "prover");
    snprintf(w->info.device, sizeof w->info.device, "cpu");
    snprintf(w->info.device_name, sizeof w->info.device_name, "cpu");
    snprintf(w->info.state, sizeof w->info.state, "idle");
    w->info.partition = -1;
    w->batch = calloc(e->cfg.max_batch_size, sizeof *w->batch);
    return w->batch ? CUZK_OK : cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: out of memory");
}

static int cpu_takes(const cuzk_engine *e, bool *out, char *err, size_t err_len)
{
    const char *c = e->cfg.gpus.cpu_worker;
    if (!*c || !strcmp(c, "auto"))
        *out = e->n_devs == 0; /* a partition on the CPU takes minutes where a device takes seconds */
    else if (!strcmp(c, "on") || !strcmp(c, "off"))
        *out = !strcmp(c, "on") || e->n_devs == 0;
    else
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpus.cpu_worker = \"%s\": expected auto, on or off", c);
    if (e->n_devs == 0 && !strcmp(c, "off"))
        cuzk_log(CUZK_LOG_WARN, NULL, "gpus.cpu_worker = \"off\" but no device is used: the CPU proves");
    return CUZK_OK;
}

static int alloc_devices(cuzk_engine *e, const dev_choice *c, char *err, size_t err_len)
{
    uint32_t per = c->driver ? e->cfg.gpus.workers_per_device : 0;
    size_t nd = per ? c->n_pick : 0;
    e->devs = calloc(nd ? nd : 1, sizeof *e->devs);
    e->provers = calloc(1 + nd * per, sizeof *e->provers);
    if (!e->devs || !e->provers) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: out of memory");
    e->n_provers = 1;
    int st = cpu_worker_init(e, &e->provers[0], err, err_len);
    for (size_t i = 0; i < nd && !st; i++) {
        eng_device *d = &e->devs[e->n_devs++];
        snprintf(d->label, sizeof d->label, "%s:%u", c->driver, c->pick[i]);
        d->workers = per;
        if (pthread_mutex_init(&d->mu, NULL)) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: mutex");
        d->mu_init = true;
        for (uint32_t k = 0; k < per && !st; k++)
            st = open_worker(e, &e->provers[e->n_provers++], d, c->driver, c->pick[i], k, err, err_len);
    }
    return st;
}

int cuzk_eng_devices_open(cuzk_engine *e, char *err, size_t err_len)
{
    e->dev_ops = e->cfg.gpus.ops ? e->cfg.gpus.ops : &real_ops;
    dev_choice *c = calloc(1, sizeof *c);
    if (!c) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: out of memory");
    int st = choose_driver(e, c, err, err_len);
    if (!st && c->driver) st = choose_devices(e, c, err, err_len);
    if (!st) st = alloc_devices(e, c, err, err_len);
    if (!st) st = cpu_takes(e, &e->cpu_takes, err, err_len);
    for (size_t i = 0; !st && i < e->n_devs; i++)
        cuzk_log(CUZK_LOG_INFO, NULL, "device %s (%s, %llu MiB): %u prover worker(s)", e->devs[i].label,
                 e->devs[i].name, (unsigned long long)(e->devs[i].mem >> 20), e->devs[i].workers);
    if (!st && e->n_devs)
        cuzk_log(CUZK_LOG_INFO, NULL, "CPU prover: %s", e->cpu_takes ? "takes partitions while every device worker is busy"
                                                                   : "proves only what a device gives back");
    free(c);
    return st;
}

void cuzk_eng_devices_close(cuzk_engine *e)
{
    for (size_t i = 0; e->provers && i < e->n_provers; i++) {
        worker *w = &e->provers[i];
        if (w->handle) e->dev_ops->close(w->handle);
        cuzk_pool_destroy(w->pool);
        free(w->batch);
    }
    for (size_t i = 0; e->devs && i < e->n_devs; i++)
        if (e->devs[i].mu_init) pthread_mutex_destroy(&e->devs[i].mu);
    free(e->provers);
    free(e->devs);
    e->provers = NULL;
    e->devs = NULL;
    e->n_provers = e->n_devs = 0;
}
