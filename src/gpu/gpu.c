/* The driver-independent half of the device layer (cuzk/gpu.h): argument
 * checks, the generic objects, and dispatch to the driver table
 * (gpu_internal.h).  Checks live here once so that a driver never sees a
 * NULL object or a copy past a buffer's end. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu_internal.h"

static const cuzk_gpu_driver *driver_of(cuzk_gpu_driver_kind d)
{
    switch (d) {
    case CUZK_GPU_OPENCL:
        return &cuzk_gpu_driver_opencl;
    case CUZK_GPU_CUDA:
        return &cuzk_gpu_driver_cuda;
    }
    return NULL;
}

const char *cuzk_gpu_driver_name(cuzk_gpu_driver_kind d)
{
    return d == CUZK_GPU_OPENCL ? "opencl" : d == CUZK_GPU_CUDA ? "cuda" : NULL;
}

static const char *dylib_name(const cuzk_gpu_dylib *d, const char *lib)
{
    const char *e = getenv(d->env);
    return lib ? lib : e && *e ? e : d->lib;
}

static size_t dylib_count(const cuzk_gpu_dylib *d)
{
    size_t n = 0;
    while (d->names[n])
        n++;
    return n;
}

/* dlopen + every symbol into fns (dylib_count entries); *handle open on success. */
static int dylib_open(const cuzk_gpu_dylib *d, const char *lib, void **handle, void **fns, char *err,
                      size_t err_len)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "%s: %s not found (%s): %s", d->what, lib,
                         dlerror(), d->hint);
    for (size_t i = 0; d->names[i]; i++) {
        dlerror();
        if (!(fns[i] = dlsym(h, d->names[i]))) {
            dlclose(h);
            return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                             "%s: %s has no %s: a driver too old for cuzk", d->what, lib, d->names[i]);
        }
    }
    *handle = h;
    return CUZK_OK;
}

int cuzk_gpu_dylib_probe(const cuzk_gpu_dylib *d, const char *lib, char *err, size_t err_len)
{
    void *h, **fns = calloc(dylib_count(d) + 1, sizeof *fns);
    if (!fns) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory", d->what);
    int st = dylib_open(d, dylib_name(d, lib), &h, fns, err, err_len);
    if (!st) dlclose(h);
    free(fns);
    return st;
}

int cuzk_gpu_dylib_load(cuzk_gpu_dylib *d, char *err, size_t err_len)
{
    pthread_mutex_lock(&d->mu);
    int st = CUZK_OK;
    if (!d->loaded) {
        size_t n = dylib_count(d);
        void *h, **fns = calloc(n + 1, sizeof *fns);
        st = fns ? dylib_open(d, dylib_name(d, NULL), &h, fns, err, err_len)
                 : cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory", d->what);
        if (st == CUZK_OK) memcpy(d->table, fns, n * sizeof *fns); /* a struct of n function pointers */
        free(fns);
        d->loaded = st == CUZK_OK;
    }
    pthread_mutex_unlock(&d->mu);
    return st;
}

double cuzk_gpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *cuzk_gpu_kernel_source(size_t *len)
{
    if (len) *len = (size_t)cuzk_gpu_kernel_source_size;
    return cuzk_gpu_kernel_source_data;
}

const char *cuzk_gpu_kernel_ptx(size_t *len)
{
    if (len) *len = (size_t)cuzk_gpu_kernel_ptx_size;
    return cuzk_gpu_kernel_ptx_data;
}

int cuzk_gpu_list(cuzk_gpu_driver_kind d, cuzk_gpu_device_info *out, size_t cap, size_t *n, char *err,
                  size_t err_len)
{
    const cuzk_gpu_driver *drv = driver_of(d);
    if (!n || (cap && !out) || !drv)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_list: bad arguments");
    *n = 0;
    return drv->list(out, cap, n, err, err_len);
}

int cuzk_gpu_open(cuzk_gpu **out, const cuzk_gpu_device_info *dev, const cuzk_gpu_open_opts *opts,
                  cuzk_gpu_program_info *info, char *err, size_t err_len)
{
    const cuzk_gpu_driver *drv = dev ? driver_of(dev->driver) : NULL;
    if (!out || !drv) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_open: bad arguments");
    *out = NULL;
    if (!drv->open) { /* a driver compiled out: its list said why */
        size_t n;
        return drv->list(NULL, 0, &n, err, err_len);
    }
    cuzk_gpu_open_opts none = {0};
    cuzk_gpu_program_info scratch;
    if (!info) info = &scratch;
    memset(info, 0, sizeof *info);
    cuzk_gpu *g = calloc(1, sizeof *g);
    cuzk_gpu_queue *q = calloc(1, sizeof *q);
    if (!g || !q) {
        free(g);
        free(q);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cuzk_gpu_open: out of memory");
    }
    g->drv = drv;
    g->info = *dev;
    q->g = g;
    g->queue0 = q;
    double t0 = cuzk_gpu_now();
    int st = drv->open(g, opts ? opts : &none, info, err, err_len);
    if (st) {
        free(q);
        free(g);
        return st;
    }
    info->build_s = cuzk_gpu_now() - t0;
    *out = g;
    return CUZK_OK;
}

void cuzk_gpu_close(cuzk_gpu *g)
{
    if (!g) return;
    char e[8];
    (void)!g->drv->finish(g->queue0, e, sizeof e); /* nothing to report to: closing */
    g->drv->queue_free(g->queue0);
    free(g->queue0);
    g->drv->close(g);
    free(g);
}

const cuzk_gpu_device_info *cuzk_gpu_info(const cuzk_gpu *g)
{
    return g ? &g->info : NULL;
}

/* ---- memory ------------------------------------------------------------------ */

int cuzk_gpu_alloc(cuzk_gpu *g, cuzk_gpu_buf **out, size_t bytes, char *err, size_t err_len)
{
    if (!g || !out || !bytes) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_alloc: bad arguments");
    *out = NULL;
    cuzk_gpu_buf *b = calloc(1, sizeof *b);
    if (!b) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cuzk_gpu_alloc: out of memory");
    b->g = g;
    b->size = bytes;
    int st = g->drv->alloc(b, err, err_len);
    if (st) {
        free(b);
        return st;
    }
    *out = b;
    return CUZK_OK;
}

void cuzk_gpu_free(cuzk_gpu_buf *b)
{
    if (!b) return;
    b->g->drv->free(b);
    free(b);
}

size_t cuzk_gpu_buf_size(const cuzk_gpu_buf *b)
{
    return b ? b->size : 0;
}

int cuzk_gpu_host_alloc(cuzk_gpu *g, cuzk_gpu_hostbuf **out, size_t bytes, bool *pinned, char *err,
                        size_t err_len)
{
    if (!g || !out || !bytes)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_host_alloc: bad arguments");
    *out = NULL;
    cuzk_gpu_hostbuf *h = calloc(1, sizeof *h);
    if (!h) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cuzk_gpu_host_alloc: out of memory");
    h->g = g;
    h->size = bytes;
    int st = g->drv->host_alloc(h, err, err_len);
    if (st) {
        free(h);
        return st;
    }
    if (pinned) *pinned = h->pinned;
    *out = h;
    return CUZK_OK;
}

void *cuzk_gpu_host_ptr(const cuzk_gpu_hostbuf *h)
{
    return h ? h->ptr : NULL;
}

void cuzk_gpu_host_free(cuzk_gpu_hostbuf *h)
{
    if (!h) return;
    h->g->drv->host_free(h);
    free(h);
}

/* ---- queues, copies, events ------------------------------------------------- */

cuzk_gpu_queue *cuzk_gpu_default_queue(cuzk_gpu *g)
{
    return g ? g->queue0 : NULL;
}

int cuzk_gpu_queue_create(cuzk_gpu *g, cuzk_gpu_queue **out, char *err, size_t err_len)
{
    if (!g || !out) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_queue_create: bad arguments");
    *out = NULL;
    cuzk_gpu_queue *q = calloc(1, sizeof *q);
    if (!q) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cuzk_gpu_queue_create: out of memory");
    q->g = g;
    int st = g->drv->queue_create(q, err, err_len);
    if (st) {
        free(q);
        return st;
    }
    *out = q;
    return CUZK_OK;
}

void cuzk_gpu_queue_free(cuzk_gpu_queue *q)
{
    if (!q || q == q->g->queue0) return; /* the default queue goes with the device */
    char e[8];
    (void)!q->g->drv->finish(q, e, sizeof e);
    q->g->drv->queue_free(q);
    free(q);
}

static int copy_check(const char *what, const cuzk_gpu_queue *q, const cuzk_gpu_buf *b, size_t off, size_t n,
                      const void *host, char *err, size_t err_len)
{
    if (!q || !b || (!host && n)) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: bad arguments", what);
    if (q->g != b->g)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: queue and buffer of two devices", what);
    if (off > b->size || n > b->size - off)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: bytes [%zu, %zu + %zu) past the buffer's %zu", what,
                         off, off, n, b->size);
    return CUZK_OK;
}

int cuzk_gpu_write(cuzk_gpu_queue *q, cuzk_gpu_buf *dst, size_t off, const void *src, size_t n, bool blocking,
                   char *err, size_t err_len)
{
    int st = copy_check("cuzk_gpu_write", q, dst, off, n, src, err, err_len);
    if (st || !n) return st;
    return q->g->drv->write(q, dst, off, src, n, blocking, err, err_len);
}

int cuzk_gpu_read(cuzk_gpu_queue *q, void *dst, const cuzk_gpu_buf *src, size_t off, size_t n, bool blocking,
                  char *err, size_t err_len)
{
    int st = copy_check("cuzk_gpu_read", q, src, off, n, dst, err, err_len);
    if (st || !n) return st;
    return q->g->drv->read(q, dst, src, off, n, blocking, err, err_len);
}

int cuzk_gpu_finish(cuzk_gpu_queue *q, char *err, size_t err_len)
{
    if (!q) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_finish: no queue");
    return q->g->drv->finish(q, err, err_len);
}

int cuzk_gpu_event_record(cuzk_gpu_queue *q, cuzk_gpu_event **out, char *err, size_t err_len)
{
    if (!q || !out) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_event_record: bad arguments");
    *out = NULL;
    cuzk_gpu_event *e = calloc(1, sizeof *e);
    if (!e) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cuzk_gpu_event_record: out of memory");
    e->g = q->g;
    int st = q->g->drv->event_record(q, e, err, err_len);
    if (st) {
        free(e);
        return st;
    }
    *out = e;
    return CUZK_OK;
}

int cuzk_gpu_event_wait(cuzk_gpu_event *e, char *err, size_t err_len)
{
    if (!e) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_event_wait: no event");
    return e->g->drv->event_wait(e, err, err_len);
}

int cuzk_gpu_queue_wait_event(cuzk_gpu_queue *q, cuzk_gpu_event *e, char *err, size_t err_len)
{
    if (!q || !e || q->g != e->g)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_queue_wait_event: bad arguments");
    return q->g->drv->queue_wait_event(q, e, err, err_len);
}

void cuzk_gpu_event_free(cuzk_gpu_event *e)
{
    if (!e) return;
    e->g->drv->event_free(e);
    free(e);
}

/* ---- kernels ------------------------------------------------------------------ */

int cuzk_gpu_kernel_get(cuzk_gpu *g, cuzk_gpu_kernel **out, const char *name, char *err, size_t err_len)
{
    if (!g || !out || !name || !*name)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_kernel_get: bad arguments");
    *out = NULL;
    cuzk_gpu_kernel *k = calloc(1, sizeof *k);
    if (!k) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cuzk_gpu_kernel_get: out of memory");
    if (strlen(name) >= sizeof k->name) {
        free(k);
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "kernel \"%.64s...\": name too long (%zu characters at most)", name,
                         sizeof k->name - 1);
    }
    strcpy(k->name, name);
    k->g = g;
    int st = g->drv->kernel_get(k, err, err_len);
    if (st) {
        free(k);
        return st;
    }
    *out = k;
    return CUZK_OK;
}

void cuzk_gpu_kernel_free(cuzk_gpu_kernel *k)
{
    if (!k) return;
    k->g->drv->kernel_free(k);
    free(k);
}

int cuzk_gpu_launch(cuzk_gpu_queue *q, cuzk_gpu_kernel *k, size_t global, size_t local,
                    const cuzk_gpu_arg *args, size_t nargs, char *err, size_t err_len)
{
    if (!q || !k || (nargs && !args) || q->g != k->g)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "cuzk_gpu_launch: bad arguments");
    size_t nlocal = 0;
    for (size_t i = 0; i < nargs; i++) {
        if (args[i].kind == CUZK_GPU_ARG_BUF && (!args[i].v.buf || args[i].v.buf->g != q->g))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "kernel %s: argument %zu is not a buffer of this device", k->name, i);
        if (args[i].kind == CUZK_GPU_ARG_LOCAL && (nlocal++ || i + 1 != nargs))
            return cuzk_errf(
                err, err_len, CUZK_ERR_ARG,
                "kernel %s: one work-group memory argument at most, and last (CUDA has one per launch)",
                k->name);
    }
    if (!global) return CUZK_OK;
    if (local && global % local) {
        if (global > SIZE_MAX - local)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "kernel %s: %zu work items: too many", k->name,
                             global);
        global += local - global % local;
    }
    return q->g->drv->launch(q, k, global, local, args, nargs, err, err_len);
}
