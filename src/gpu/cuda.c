/* The CUDA driver (gpu_internal.h's table): the NVIDIA driver API from
 * libcuda.so.1, opened with dlopen so a machine without the NVIDIA driver
 * runs the same binary ("libcuda.so.1 not found" from cuzk_gpu_list).  The
 * kernels are the PTX nvcc made from the one kernel source at build time,
 * embedded in the binary; the driver JIT-compiles it for the card at
 * cuModuleLoadData and keeps its own cache (~/.nv/ComputeCache).
 *
 * The driver API's few types and constants are declared here (the ABI of
 * cuda.h since CUDA 4: handles are pointers, CUdeviceptr 64 bits), so the
 * driver compiles without the CUDA toolkit.  Every call first makes the
 * device's primary context current on the calling thread: cuzk_gpu objects
 * may be used from any thread.  The primary context (not cuCtxCreate, whose
 * signature CUDA 13 changed) is shared with anything else in the process
 * that uses the runtime API. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.h"

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
    CU_ATTR_MULTIPROCESSOR_COUNT = 16,
    CU_ATTR_CC_MAJOR = 75,
    CU_ATTR_CC_MINOR = 76,
    CU_STREAM_NON_BLOCKING = 1,
    CU_EVENT_DISABLE_TIMING = 2,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_NOT_FOUND = 500,
};

/* name in libcuda.so.1, type */
#define CU_FNS(X)                                                                                            \
    X(cuInit, CUresult (*)(unsigned))                                                                        \
    X(cuDriverGetVersion, CUresult (*)(int *))                                                               \
    X(cuDeviceGetCount, CUresult (*)(int *))                                                                 \
    X(cuDeviceGet, CUresult (*)(CUdevice *, int))                                                            \
    X(cuDeviceGetName, CUresult (*)(char *, int, CUdevice))                                                  \
    X(cuDeviceTotalMem_v2, CUresult (*)(size_t *, CUdevice))                                                 \
    X(cuDeviceGetAttribute, CUresult (*)(int *, int, CUdevice))                                              \
    X(cuDevicePrimaryCtxRetain, CUresult (*)(CUcontext *, CUdevice))                                         \
    X(cuDevicePrimaryCtxRelease_v2, CUresult (*)(CUdevice))                                                  \
    X(cuCtxSetCurrent, CUresult (*)(CUcontext))                                                              \
    X(cuModuleLoadData, CUresult (*)(CUmodule *, const void *))                                              \
    X(cuModuleUnload, CUresult (*)(CUmodule))                                                                \
    X(cuModuleGetFunction, CUresult (*)(CUfunction *, CUmodule, const char *))                               \
    X(cuMemAlloc_v2, CUresult (*)(CUdeviceptr *, size_t))                                                    \
    X(cuMemFree_v2, CUresult (*)(CUdeviceptr))                                                               \
    X(cuMemHostAlloc, CUresult (*)(void **, size_t, unsigned))                                               \
    X(cuMemFreeHost, CUresult (*)(void *))                                                                   \
    X(cuMemcpyHtoDAsync_v2, CUresult (*)(CUdeviceptr, const void *, size_t, CUstream))                       \
    X(cuMemcpyDtoHAsync_v2, CUresult (*)(void *, CUdeviceptr, size_t, CUstream))                             \
    X(cuStreamCreate, CUresult (*)(CUstream *, unsigned))                                                    \
    X(cuStreamDestroy_v2, CUresult (*)(CUstream))                                                            \
    X(cuStreamSynchronize, CUresult (*)(CUstream))                                                           \
    X(cuStreamWaitEvent, CUresult (*)(CUstream, CUevent, unsigned))                                          \
    X(cuEventCreate, CUresult (*)(CUevent *, unsigned))                                                      \
    X(cuEventRecord, CUresult (*)(CUevent, CUstream))                                                        \
    X(cuEventSynchronize, CUresult (*)(CUevent))                                                             \
    X(cuEventDestroy_v2, CUresult (*)(CUevent))                                                              \
    X(cuLaunchKernel, CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
                                   unsigned, CUstream, void **, void **))                                    \
    X(cuGetErrorName, CUresult (*)(CUresult, const char **))

#define X_MEMBER(f, t) __typeof__(t) f;
#define X_NAME(f, t) #f,
static struct {
    CU_FNS(X_MEMBER)
} cu;
static const char *const cu_names[] = {CU_FNS(X_NAME) NULL};
#define NFNS (sizeof cu_names / sizeof cu_names[0] - 1)
_Static_assert(sizeof cu == NFNS * sizeof(void *), "one pointer per CUDA function");

static cuzk_gpu_dylib lib = {
    .what = "CUDA",
    .env = "CUZK_GPU_CUDA_LIB",
    .lib = "libcuda.so.1",
    .hint = "the NVIDIA driver is not installed",
    .names = cu_names,
    .table = &cu,
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

int cuzk_gpu_cuda_probe(const char *name, char *err, size_t err_len)
{
    return cuzk_gpu_dylib_probe(&lib, name, err, err_len);
}

static const char *cu_err(CUresult r)
{
    const char *s = NULL;
    if (!cu.cuGetErrorName || cu.cuGetErrorName(r, &s) || !s) return "CUDA error";
    return s;
}

static int fail(char *err, size_t err_len, CUresult r, const char *what, const char *detail)
{
    return cuzk_errf(err, err_len, r == CUDA_ERROR_OUT_OF_MEMORY ? CUZK_ERR_NOMEM : CUZK_ERR_IO,
                     "CUDA %s%s%s: %s (%d)", what, detail ? " " : "", detail ? detail : "", cu_err(r), r);
}

/* The library, then cuInit once (its result kept: a machine whose driver
 * sees no device says so at every call). */
static int load(char *err, size_t err_len)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static bool inited;
    static CUresult init_result;
    int st = cuzk_gpu_dylib_load(&lib, err, err_len);
    if (st) return st;
    pthread_mutex_lock(&mu);
    if (!inited) init_result = cu.cuInit(0), inited = true;
    CUresult r = init_result;
    pthread_mutex_unlock(&mu);
    if (r == CUDA_ERROR_NO_DEVICE)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "CUDA: the driver is installed but sees no device");
    return r ? fail(err, err_len, r, "cuInit", NULL) : CUZK_OK;
}

#define PTR(x) ((uint64_t)(uintptr_t)(x))
#define STREAM(q) ((CUstream)(uintptr_t)(q)->h)

typedef struct {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
} cu_dev;

static int current(cuzk_gpu *g, char *err, size_t err_len)
{
    cu_dev *d = g->impl;
    CUresult r = cu.cuCtxSetCurrent(d->ctx);
    return r ? fail(err, err_len, r, "cuCtxSetCurrent", NULL) : CUZK_OK;
}

/* ---- devices ------------------------------------------------------------------- */

static int describe(cuzk_gpu_device_info *o, int index, char *err, size_t err_len)
{
    CUdevice d;
    size_t mem = 0;
    int sms = 0, maj = 0, min = 0, ver = 0;
    CUresult r = cu.cuDeviceGet(&d, index);
    memset(o, 0, sizeof *o);
    if (!r) r = cu.cuDeviceGetName(o->name, (int)sizeof o->name - 1, d);
    if (!r) r = cu.cuDeviceTotalMem_v2(&mem, d);
    if (!r) r = cu.cuDeviceGetAttribute(&sms, CU_ATTR_MULTIPROCESSOR_COUNT, d);
    if (!r) r = cu.cuDeviceGetAttribute(&maj, CU_ATTR_CC_MAJOR, d);
    if (!r) r = cu.cuDeviceGetAttribute(&min, CU_ATTR_CC_MINOR, d);
    if (!r) r = cu.cuDriverGetVersion(&ver);
    if (r) return fail(err, err_len, r, "device query", NULL);
    o->driver = CUZK_GPU_CUDA;
    o->index = (unsigned)index;
    snprintf(o->platform, sizeof o->platform, "NVIDIA CUDA");
    snprintf(o->driver_version, sizeof o->driver_version, "%d.%d", ver / 1000, ver % 1000 / 10);
    snprintf(o->version, sizeof o->version, "sm_%d%d", maj, min);
    o->mem_bytes = mem;
    o->max_alloc_bytes = mem;
    o->compute_units = (unsigned)sms;
    return CUZK_OK;
}

static int cu_list(cuzk_gpu_device_info *out, size_t cap, size_t *n, char *err, size_t err_len)
{
    int st = load(err, err_len), count = 0;
    if (st) return st;
    CUresult r = cu.cuDeviceGetCount(&count);
    if (r) return fail(err, err_len, r, "cuDeviceGetCount", NULL);
    if (!count) return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "CUDA: no device");
    for (int i = 0; i < count && (size_t)i < cap; i++)
        if ((st = describe(&out[i], i, err, err_len))) return st;
    *n = (size_t)count;
    return CUZK_OK;
}

/* ---- open / close -------------------------------------------------------------- */

static int cu_open(cuzk_gpu *g, const cuzk_gpu_open_opts *opts, cuzk_gpu_program_info *info, char *err,
                   size_t err_len)
{
    (void)opts; /* build options and the cache are OpenCL's: the PTX is fixed at build time */
    size_t ptx_len;
    const char *ptx = cuzk_gpu_kernel_ptx(&ptx_len);
    int st = load(err, err_len);
    if (st) return st;
    if (!ptx_len)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "CUDA: this build has no CUDA kernels (nvcc was not found when it was built)");
    if ((st = describe(&g->info, (int)g->info.index, err, err_len))) return st;
    cu_dev *d = calloc(1, sizeof *d);
    if (!d) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "CUDA: out of memory");
    CUstream s = NULL;
    CUresult r = cu.cuDeviceGet(&d->dev, (int)g->info.index);
    const char *what = "cuDeviceGet";
    if (!r) r = cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev), what = "cuDevicePrimaryCtxRetain";
    if (!r) r = cu.cuCtxSetCurrent(d->ctx), what = "cuCtxSetCurrent";
    if (!r) r = cu.cuModuleLoadData(&d->mod, ptx), what = "cuModuleLoadData (the embedded PTX)";
    if (!r) r = cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), what = "cuStreamCreate";
    if (r) {
        if (d->mod) cu.cuModuleUnload(d->mod);
        if (d->ctx) cu.cuDevicePrimaryCtxRelease_v2(d->dev);
        free(d);
        return fail(err, err_len, r, what, g->info.name);
    }
    info->cache = CUZK_GPU_CACHE_OFF;
    snprintf(info->note, sizeof info->note,
             "CUDA: PTX embedded at build time (the driver caches its JIT output)");
    g->impl = d;
    g->queue0->h = PTR(s);
    return CUZK_OK;
}

static void cu_close(cuzk_gpu *g)
{
    cu_dev *d = g->impl;
    cu.cuCtxSetCurrent(d->ctx);
    cu.cuModuleUnload(d->mod);
    cu.cuDevicePrimaryCtxRelease_v2(d->dev);
    free(d);
}

/* ---- memory, queues, copies ------------------------------------------------------ */

static int cu_alloc(cuzk_gpu_buf *b, char *err, size_t err_len)
{
    CUdeviceptr p = 0;
    int st = current(b->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuMemAlloc_v2(&p, b->size);
    if (r) return fail(err, err_len, r, "cuMemAlloc", NULL);
    b->h = p;
    return CUZK_OK;
}

static void cu_free(cuzk_gpu_buf *b)
{
    char e[8];
    if (!current(b->g, e, sizeof e)) cu.cuMemFree_v2(b->h);
}

static int cu_host_alloc(cuzk_gpu_hostbuf *h, char *err, size_t err_len)
{
    void *p = NULL;
    int st = current(h->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuMemHostAlloc(&p, h->size, 0);
    if (r) return fail(err, err_len, r, "cuMemHostAlloc", NULL);
    h->ptr = p;
    h->pinned = true;
    return CUZK_OK;
}

static void cu_host_free(cuzk_gpu_hostbuf *h)
{
    char e[8];
    if (!current(h->g, e, sizeof e)) cu.cuMemFreeHost(h->ptr);
}

static int cu_queue_create(cuzk_gpu_queue *q, char *err, size_t err_len)
{
    CUstream s = NULL;
    int st = current(q->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    if (r) return fail(err, err_len, r, "cuStreamCreate", NULL);
    q->h = PTR(s);
    return CUZK_OK;
}

static void cu_queue_free(cuzk_gpu_queue *q)
{
    char e[8];
    if (!current(q->g, e, sizeof e)) cu.cuStreamDestroy_v2(STREAM(q));
}

static int cu_finish(cuzk_gpu_queue *q, char *err, size_t err_len)
{
    int st = current(q->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuStreamSynchronize(STREAM(q));
    return r ? fail(err, err_len, r, "cuStreamSynchronize", NULL) : CUZK_OK;
}

static int cu_write(cuzk_gpu_queue *q, cuzk_gpu_buf *b, size_t off, const void *src, size_t n, bool blocking,
                    char *err, size_t err_len)
{
    int st = current(q->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuMemcpyHtoDAsync_v2(b->h + off, src, n, STREAM(q));
    if (r) return fail(err, err_len, r, "cuMemcpyHtoDAsync", NULL);
    return blocking ? cu_finish(q, err, err_len) : CUZK_OK;
}

static int cu_read(cuzk_gpu_queue *q, void *dst, const cuzk_gpu_buf *b, size_t off, size_t n, bool blocking,
                   char *err, size_t err_len)
{
    int st = current(q->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuMemcpyDtoHAsync_v2(dst, b->h + off, n, STREAM(q));
    if (r) return fail(err, err_len, r, "cuMemcpyDtoHAsync", NULL);
    return blocking ? cu_finish(q, err, err_len) : CUZK_OK;
}

/* ---- kernels and events --------------------------------------------------------- */

static int cu_kernel_get(cuzk_gpu_kernel *k, char *err, size_t err_len)
{
    cu_dev *d = k->g->impl;
    CUfunction f = NULL;
    int st = current(k->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuModuleGetFunction(&f, d->mod, k->name);
    if (r == CUDA_ERROR_NOT_FOUND)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "kernel \"%s\": the program has no kernel of that name",
                         k->name);
    if (r) return fail(err, err_len, r, "cuModuleGetFunction", k->name);
    k->h = PTR(f);
    return CUZK_OK;
}

static void cu_kernel_free(cuzk_gpu_kernel *k)
{
    (void)k; /* functions belong to the module */
}

#define MAX_ARGS 32

static int cu_launch(cuzk_gpu_queue *q, cuzk_gpu_kernel *k, size_t global, size_t local,
                     const cuzk_gpu_arg *args, size_t nargs, char *err, size_t err_len)
{
    uint64_t vals[MAX_ARGS];
    void *params[MAX_ARGS];
    size_t np = 0, shared = 0;
    if (nargs > MAX_ARGS)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "kernel %s: %zu arguments (%d at most)", k->name, nargs,
                         MAX_ARGS);
    for (size_t i = 0; i < nargs; i++) {
        const cuzk_gpu_arg *a = &args[i];
        if (a->kind == CUZK_GPU_ARG_LOCAL) { /* dynamic shared memory, not a parameter */
            shared = a->v.local_bytes;
            continue;
        }
        vals[np] = a->kind == CUZK_GPU_ARG_BUF ? a->v.buf->h : a->kind == CUZK_GPU_ARG_U64 ? a->v.u64 : 0;
        if (a->kind == CUZK_GPU_ARG_U32) memcpy(&vals[np], &a->v.u32, sizeof a->v.u32);
        params[np] = &vals[np];
        np++;
    }
    size_t block = local ? local : 256, grid = (global + block - 1) / block;
    if (grid > 0x7fffffffu || shared > 0xffffffffu)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "kernel %s: %zu work items: too many", k->name, global);
    int st = current(q->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuLaunchKernel((CUfunction)(uintptr_t)k->h, (unsigned)grid, 1, 1, (unsigned)block, 1, 1,
                                   (unsigned)shared, STREAM(q), params, NULL);
    return r ? fail(err, err_len, r, "cuLaunchKernel", k->name) : CUZK_OK;
}

static int cu_event_record(cuzk_gpu_queue *q, cuzk_gpu_event *ev, char *err, size_t err_len)
{
    CUevent e = NULL;
    int st = current(q->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
    if (!r && (r = cu.cuEventRecord(e, STREAM(q)))) cu.cuEventDestroy_v2(e);
    if (r) return fail(err, err_len, r, "cuEventRecord", NULL);
    ev->h = PTR(e);
    return CUZK_OK;
}

static int cu_event_wait(cuzk_gpu_event *ev, char *err, size_t err_len)
{
    int st = current(ev->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuEventSynchronize((CUevent)(uintptr_t)ev->h);
    return r ? fail(err, err_len, r, "cuEventSynchronize", NULL) : CUZK_OK;
}

static int cu_queue_wait_event(cuzk_gpu_queue *q, cuzk_gpu_event *ev, char *err, size_t err_len)
{
    int st = current(q->g, err, err_len);
    if (st) return st;
    CUresult r = cu.cuStreamWaitEvent(STREAM(q), (CUevent)(uintptr_t)ev->h, 0);
    return r ? fail(err, err_len, r, "cuStreamWaitEvent", NULL) : CUZK_OK;
}

static void cu_event_free(cuzk_gpu_event *ev)
{
    char e[8];
    if (!current(ev->g, e, sizeof e)) cu.cuEventDestroy_v2((CUevent)(uintptr_t)ev->h);
}

const cuzk_gpu_driver cuzk_gpu_driver_cuda = {
    .kind = CUZK_GPU_CUDA,
    .list = cu_list,
    .open = cu_open,
    .close = cu_close,
    .alloc = cu_alloc,
    .free = cu_free,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .queue_create = cu_queue_create,
    .queue_free = cu_queue_free,
    .write = cu_write,
    .read = cu_read,
    .finish = cu_finish,
    .kernel_get = cu_kernel_get,
    .kernel_free = cu_kernel_free,
    .launch = cu_launch,
    .event_record = cu_event_record,
    .event_wait = cu_event_wait,
    .queue_wait_event = cu_queue_wait_event,
    .event_free = cu_event_free,
};
