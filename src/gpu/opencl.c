/* The OpenCL driver (gpu_internal.h's table): libOpenCL.so.1 (the ICD
 * loader) opened with dlopen, so the binary runs where OpenCL is absent,
 * and the kernel source compiled at run time for the device, through the
 * program binary cache (cache.c).  Tested on pocl (the CPU) in make test;
 * the NVIDIA, AMD and Intel drivers ship ICDs that it loads the same way.
 *
 * The only file that includes an OpenCL header; built without the header
 * (opencl-headers), the driver reports itself absent. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuzk/ff.h"
#include "gpu/gpu_internal.h"

#if __has_include(<CL/cl.h>)
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#define CL_FNS(X)                                                                                            \
    X(clGetPlatformIDs)                                                                                      \
    X(clGetPlatformInfo)                                                                                     \
    X(clGetDeviceIDs)                                                                                        \
    X(clGetDeviceInfo)                                                                                       \
    X(clCreateContext)                                                                                       \
    X(clReleaseContext)                                                                                      \
    X(clCreateCommandQueue)                                                                                  \
    X(clReleaseCommandQueue)                                                                                 \
    X(clCreateBuffer)                                                                                        \
    X(clReleaseMemObject)                                                                                    \
    X(clSetMemObjectDestructorCallback)                                                                      \
    X(clEnqueueWriteBuffer)                                                                                  \
    X(clEnqueueReadBuffer)                                                                                   \
    X(clEnqueueMapBuffer)                                                                                    \
    X(clEnqueueUnmapMemObject)                                                                               \
    X(clCreateProgramWithSource)                                                                             \
    X(clCreateProgramWithBinary)                                                                             \
    X(clBuildProgram)                                                                                        \
    X(clGetProgramInfo)                                                                                      \
    X(clGetProgramBuildInfo)                                                                                 \
    X(clReleaseProgram)                                                                                      \
    X(clCreateKernel)                                                                                        \
    X(clReleaseKernel)                                                                                       \
    X(clSetKernelArg)                                                                                        \
    X(clEnqueueNDRangeKernel)                                                                                \
    X(clFinish)                                                                                              \
    X(clEnqueueMarkerWithWaitList)                                                                           \
    X(clEnqueueBarrierWithWaitList)                                                                          \
    X(clWaitForEvents)                                                                                       \
    X(clReleaseEvent)

#define X_MEMBER(f) __typeof__(f) *f;
#define X_NAME(f) #f,
static struct {
    CL_FNS(X_MEMBER)
} cl;
static const char *const cl_names[] = {CL_FNS(X_NAME) NULL};
#define NFNS (sizeof cl_names / sizeof cl_names[0] - 1)
_Static_assert(sizeof cl == NFNS * sizeof(void *), "one pointer per OpenCL function");

static cuzk_gpu_dylib lib = {
    .what = "OpenCL",
    .env = "CUZK_GPU_OPENCL_LIB",
    .lib = "libOpenCL.so.1",
    .hint = "install an ICD loader and a driver (Debian: apt-get install ocl-icd-libopencl1 pocl-opencl-icd)",
    .names = cl_names,
    .table = &cl,
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

int cuzk_gpu_opencl_probe(const char *name, char *err, size_t err_len)
{
    return cuzk_gpu_dylib_probe(&lib, name, err, err_len);
}

static int load(char *err, size_t err_len)
{
    return cuzk_gpu_dylib_load(&lib, err, err_len);
}

static const char *cl_err(cl_int e)
{
    switch (e) {
    case CL_DEVICE_NOT_FOUND:
        return "CL_DEVICE_NOT_FOUND";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
        return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
        return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE:
        return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE:
        return "CL_INVALID_VALUE";
    case CL_INVALID_BINARY:
        return "CL_INVALID_BINARY";
    case CL_INVALID_BUFFER_SIZE:
        return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_KERNEL_NAME:
        return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS:
        return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_INDEX:
        return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_SIZE:
        return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_WORK_GROUP_SIZE:
        return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
        return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "OpenCL error";
    }
}

/* CUZK_ERR_NOMEM for the allocation failures, CUZK_ERR_IO for the rest. */
static int fail(char *err, size_t err_len, cl_int e, const char *what, const char *detail)
{
    int st = e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_HOST_MEMORY ||
                     e == CL_OUT_OF_RESOURCES || e == CL_INVALID_BUFFER_SIZE
                 ? CUZK_ERR_NOMEM
                 : CUZK_ERR_IO;
    return cuzk_errf(err, err_len, st, "OpenCL %s%s%s: %s (%d)", what, detail ? " " : "",
                     detail ? detail : "", cl_err(e), (int)e);
}

#define H(x) ((uint64_t)(uintptr_t)(x))
#define MEM(b) ((cl_mem)(uintptr_t)(b)->h)
#define QUEUE(q) ((cl_command_queue)(uintptr_t)(q)->h)

/* ---- devices ------------------------------------------------------------------- */

/* Every device of every platform in order; visit returns nonzero to stop. */
typedef int (*visit_fn)(void *ctx, unsigned index, cl_platform_id p, cl_device_id d);

static int each_device(visit_fn visit, void *ctx, size_t *count, char *err, size_t err_len)
{
    int st = load(err, err_len);
    if (st) return st;
    cl_uint np = 0;
    cl_int e = cl.clGetPlatformIDs(0, NULL, &np);
    if (e == -1001 || (e == CL_SUCCESS && np == 0))
        return cuzk_errf(
            err, err_len, CUZK_ERR_UNSUPPORTED,
            "OpenCL: no platform (no ICD in /etc/OpenCL/vendors: apt-get install pocl-opencl-icd "
            "for the CPU, or a GPU vendor's driver)");
    if (e) return fail(err, err_len, e, "clGetPlatformIDs", NULL);
    cl_platform_id ps[16];
    np = np > 16 ? 16 : np;
    if ((e = cl.clGetPlatformIDs(np, ps, NULL))) return fail(err, err_len, e, "clGetPlatformIDs", NULL);
    unsigned index = 0;
    for (cl_uint i = 0; i < np; i++) {
        cl_uint nd = 0;
        cl_device_id ds[64];
        e = cl.clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 64, ds, &nd);
        if (e == CL_DEVICE_NOT_FOUND) continue;
        if (e) return fail(err, err_len, e, "clGetDeviceIDs", NULL);
        for (cl_uint j = 0; j < nd && j < 64; j++, index++)
            if (visit && visit(ctx, index, ps[i], ds[j])) return CUZK_OK;
    }
    if (count) *count = index;
    if (!index) return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "OpenCL: %u platform(s), no device", np);
    return CUZK_OK;
}

static void describe(cuzk_gpu_device_info *o, unsigned index, cl_platform_id p, cl_device_id d)
{
    memset(o, 0, sizeof *o);
    o->driver = CUZK_GPU_OPENCL;
    o->index = index;
    cl_ulong mem = 0, maxa = 0;
    cl_uint cu = 0;
    cl_device_type t = 0;
    cl.clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof o->platform - 1, o->platform, NULL);
    cl.clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof o->name - 1, o->name, NULL);
    cl.clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof o->driver_version - 1, o->driver_version, NULL);
    cl.clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof o->version - 1, o->version, NULL);
    cl.clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    cl.clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxa, &maxa, NULL);
    cl.clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    cl.clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    o->mem_bytes = mem;
    o->max_alloc_bytes = maxa;
    o->compute_units = cu;
    o->is_cpu = (t & CL_DEVICE_TYPE_CPU) != 0;
}

typedef struct {
    cuzk_gpu_device_info *out;
    size_t cap;
} list_ctx;

static int list_visit(void *ctx, unsigned index, cl_platform_id p, cl_device_id d)
{
    list_ctx *c = ctx;
    if (index < c->cap) describe(&c->out[index], index, p, d);
    return 0;
}

static int ocl_list(cuzk_gpu_device_info *out, size_t cap, size_t *n, char *err, size_t err_len)
{
    list_ctx c = {out, cap};
    return each_device(list_visit, &c, n, err, err_len);
}

typedef struct {
    unsigned want;
    cl_platform_id p;
    cl_device_id d;
    bool found;
} find_ctx;

static int find_visit(void *ctx, unsigned index, cl_platform_id p, cl_device_id d)
{
    find_ctx *c = ctx;
    if (index != c->want) return 0;
    c->p = p, c->d = d, c->found = true;
    return 1;
}

/* ---- the program ------------------------------------------------------------------ */

typedef struct {
    cl_context ctx;
    cl_device_id dev;
    cl_platform_id plat;
    cl_program prog;
} ocl_dev;

static int build(ocl_dev *o, cl_program p, const char *opts, const char *what, char *err, size_t err_len)
{
    cl_int e = cl.clBuildProgram(p, 1, &o->dev, opts ? opts : "", NULL, NULL);
    if (!e) return CUZK_OK;
    char log[1024] = "";
    size_t n = 0;
    cl.clGetProgramBuildInfo(p, o->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &n);
    log[sizeof log - 1] = 0;
    return cuzk_errf(err, err_len, CUZK_ERR_IO, "OpenCL clBuildProgram (%s): %s (%d); log: %.700s", what,
                     cl_err(e), (int)e, log[0] ? log : "(empty)");
}

static int from_source(ocl_dev *o, const char *opts, char *err, size_t err_len)
{
    size_t len;
    const char *src = cuzk_gpu_kernel_source(&len);
    cl_int e;
    cl_program p = cl.clCreateProgramWithSource(o->ctx, 1, &src, &len, &e);
    if (!p) return fail(err, err_len, e, "clCreateProgramWithSource", NULL);
    int st = build(o, p, opts, "kernel source", err, err_len);
    if (st) {
        cl.clReleaseProgram(p);
        return st;
    }
    o->prog = p;
    return CUZK_OK;
}

static int from_binary(ocl_dev *o, const uint8_t *bin, size_t len, const char *opts, char *err,
                       size_t err_len)
{
    cl_int e, bs = CL_SUCCESS;
    cl_program p = cl.clCreateProgramWithBinary(o->ctx, 1, &o->dev, &len, &bin, &bs, &e);
    if (!p || bs) {
        if (p) cl.clReleaseProgram(p);
        return fail(err, err_len, p ? bs : e, "clCreateProgramWithBinary", "(cached)");
    }
    int st = build(o, p, opts, "cached binary", err, err_len);
    if (st) {
        cl.clReleaseProgram(p);
        return st;
    }
    o->prog = p;
    return CUZK_OK;
}

/* The built program's binary into the cache; a failure only notes. */
static void store_binary(ocl_dev *o, const char *path, cuzk_gpu_program_info *info)
{
    size_t len = 0;
    if (cl.clGetProgramInfo(o->prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) || !len) {
        snprintf(info->note, sizeof info->note, "the driver gives no program binary: not cached");
        return;
    }
    uint8_t *bin = malloc(len);
    char note[sizeof info->note];
    if (!bin || cl.clGetProgramInfo(o->prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL))
        snprintf(info->note, sizeof info->note, "could not read the program binary: not cached");
    else if (cuzk_gpu_cache_store(path, bin, len, note, sizeof note))
        snprintf(info->note, sizeof info->note, "%s", note);
    free(bin);
}

static int program(ocl_dev *o, const cuzk_gpu_open_opts *opts, const cuzk_gpu_device_info *di,
                   cuzk_gpu_program_info *info, char *err, size_t err_len)
{
    char dir[1024], key[65], pv[128] = "", bo[1024];
    size_t slen;
    const char *src = cuzk_gpu_kernel_source(&slen);
    /* A CPU device (pocl) computes the limb primitives with its compiler's
     * 128-bit integers (cuzk_kernel.h, CZ_INT128); the caller's options come
     * after, so -DCZ_NO_INT128 selects the portable path there too. */
    int n = snprintf(bo, sizeof bo, "%s%s%s", di->is_cpu ? "-DCZ_INT128 " : "",
                     di->is_cpu && !strcmp(cuzk_ff_backend(), "adx") ? "-DCZ_X86_ADX " : "",
                     opts->build_options ? opts->build_options : "");
    if (n < 0 || (size_t)n >= sizeof bo)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "OpenCL build options: %d bytes with the driver's, at most %zu",
                         n, sizeof bo - 1);
    cuzk_gpu_cache_dir(dir, sizeof dir, opts->cache_dir, info->note, sizeof info->note);
    cl.clGetPlatformInfo(o->plat, CL_PLATFORM_VERSION, sizeof pv - 1, pv, NULL);
    const char *parts[] = {"cuzk-gpu opencl 1", src, bo, di->platform, pv, di->name, di->version, di->driver_version};
    if (!dir[0] || cuzk_gpu_cache_key(key, parts, sizeof parts / sizeof parts[0], err, err_len) ||
        !cuzk_gpu_cache_path(info->cache_path, sizeof info->cache_path, dir, key, ".clbin")) {
        info->cache = CUZK_GPU_CACHE_OFF;
        info->cache_path[0] = 0;
        return from_source(o, bo, err, err_len);
    }
    uint8_t *bin;
    size_t len;
    int st = cuzk_gpu_cache_load(info->cache_path, &bin, &len, info->note, sizeof info->note);
    if (st == CUZK_OK) {
        char why[512];
        st = from_binary(o, bin, len, bo, why, sizeof why);
        free(bin);
        if (st == CUZK_OK) {
            info->cache = CUZK_GPU_CACHE_HIT;
            return CUZK_OK;
        }
        snprintf(info->note, sizeof info->note, "the driver refused the cached binary: %.400s", why);
    }
    info->cache = info->note[0] ? CUZK_GPU_CACHE_REBUILT : CUZK_GPU_CACHE_MISS;
    if ((st = from_source(o, bo, err, err_len))) return st;
    store_binary(o, info->cache_path, info);
    return CUZK_OK;
}

/* ---- open / close -------------------------------------------------------------- */

static int ocl_open(cuzk_gpu *g, const cuzk_gpu_open_opts *opts, cuzk_gpu_program_info *info, char *err,
                    size_t err_len)
{
    find_ctx f = {.want = g->info.index};
    int st = each_device(find_visit, &f, NULL, err, err_len);
    if (st) return st;
    if (!f.found) return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "OpenCL: no device %u", g->info.index);
    ocl_dev *o = calloc(1, sizeof *o);
    if (!o) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "OpenCL: out of memory");
    describe(&g->info, f.want, f.p, f.d);
    o->dev = f.d;
    o->plat = f.p;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)f.p, 0};
    cl_int e;
    cl_command_queue q = NULL;
    o->ctx = cl.clCreateContext(props, 1, &f.d, NULL, NULL, &e);
    if (!o->ctx)
        st = fail(err, err_len, e, "clCreateContext", g->info.name);
    else if (!(q = cl.clCreateCommandQueue(o->ctx, f.d, 0, &e)))
        st = fail(err, err_len, e, "clCreateCommandQueue", g->info.name);
    else
        st = program(o, opts, &g->info, info, err, err_len);
    if (st) {
        if (q) cl.clReleaseCommandQueue(q);
        if (o->ctx) cl.clReleaseContext(o->ctx);
        free(o);
        return st;
    }
    g->impl = o;
    g->queue0->h = H(q);
    return CUZK_OK;
}

static void ocl_close(cuzk_gpu *g)
{
    ocl_dev *o = g->impl;
    cl.clReleaseProgram(o->prog);
    cl.clReleaseContext(o->ctx);
    free(o);
}

/* ---- memory, queues, copies ------------------------------------------------------ */

/* A CPU device's large buffer in memory of our own, 2 MiB aligned and
 * advised to transparent huge pages: the MSM kernels read bases at random
 * (the NTT's passes with large strides), and with 4 KiB pages such a read
 * missed the TLB too (pocl's own allocation gets no huge pages where THP is "madvise",
 * Debian's default).  A/B in docs/perf-notes.md. */
#define HUGE_MIN ((size_t)2 << 20)
static void *huge_map(size_t size, size_t *len)
{
    size_t keep = (size + HUGE_MIN - 1) / HUGE_MIN * HUGE_MIN, n = keep + HUGE_MIN;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    size_t lead = (HUGE_MIN - (uintptr_t)p % HUGE_MIN) % HUGE_MIN;
    if (lead) munmap(p, lead);
    if (n - lead > keep) munmap(p + lead + keep, n - lead - keep);
    (void)madvise(p + lead, keep, MADV_HUGEPAGE); /* a hint: without THP the buffer still works */
    *len = keep;
    return p + lead;
}

/* The mapping under a CL_MEM_USE_HOST_PTR buffer, unmapped by the driver's
 * destructor callback: when the buffer is really gone, i.e. released AND no
 * command that uses it is still queued or running (OpenCL 1.2 5.4.1), so a
 * free never depends on the caller having waited. */
typedef struct {
    void *p;
    size_t len;
} huge_region;

static void CL_CALLBACK huge_unmap(cl_mem m, void *arg)
{
    huge_region *r = arg;
    (void)m;
    munmap(r->p, r->len);
    free(r);
}

static int ocl_alloc(cuzk_gpu_buf *b, char *err, size_t err_len)
{
    ocl_dev *o = b->g->impl;
    cl_int e;
    cl_mem m = NULL;
    size_t len;
    void *host = NULL;
    if (b->g->info.is_cpu && b->size >= HUGE_MIN && (host = huge_map(b->size, &len)) != NULL) {
        huge_region *r = malloc(sizeof *r);
        m = r ? cl.clCreateBuffer(o->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, b->size, host, &e) : NULL;
        if (m) *r = (huge_region){host, len};
        if (m && cl.clSetMemObjectDestructorCallback(m, huge_unmap, r) != CL_SUCCESS) {
            cl.clReleaseMemObject(m); /* no command has used it: gone now */
            m = NULL;
        }
        if (!m) { /* plain driver memory instead */
            free(r);
            munmap(host, len);
        }
    }
    if (!m) m = cl.clCreateBuffer(o->ctx, CL_MEM_READ_WRITE, b->size, NULL, &e);
    if (!m) return fail(err, err_len, e, "clCreateBuffer", NULL);
    b->h = H(m);
    return CUZK_OK;
}

static void ocl_free(cuzk_gpu_buf *b)
{
    cl.clReleaseMemObject(MEM(b)); /* a huge_region goes with it (huge_unmap) */
}

/* A driver-allocated buffer kept mapped: page-locked on GPU drivers
 * (the transfer path they optimize), plain memory on pocl. */
static int ocl_host_alloc(cuzk_gpu_hostbuf *h, char *err, size_t err_len)
{
    ocl_dev *o = h->g->impl;
    cl_int e;
    cl_mem m = cl.clCreateBuffer(o->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, h->size, NULL, &e);
    if (!m) return fail(err, err_len, e, "clCreateBuffer", "(host)");
    void *p = cl.clEnqueueMapBuffer(QUEUE(h->g->queue0), m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, h->size,
                                    0, NULL, NULL, &e);
    if (!p) {
        cl.clReleaseMemObject(m);
        return fail(err, err_len, e, "clEnqueueMapBuffer", NULL);
    }
    h->ptr = p;
    h->h = H(m);
    h->pinned = !h->g->info.is_cpu;
    return CUZK_OK;
}

static void ocl_host_free(cuzk_gpu_hostbuf *h)
{
    cl_command_queue q = QUEUE(h->g->queue0);
    cl.clEnqueueUnmapMemObject(q, (cl_mem)(uintptr_t)h->h, h->ptr, 0, NULL, NULL);
    cl.clFinish(q);
    cl.clReleaseMemObject((cl_mem)(uintptr_t)h->h);
}

static int ocl_queue_create(cuzk_gpu_queue *q, char *err, size_t err_len)
{
    ocl_dev *o = q->g->impl;
    cl_int e;
    cl_command_queue c = cl.clCreateCommandQueue(o->ctx, o->dev, 0, &e);
    if (!c) return fail(err, err_len, e, "clCreateCommandQueue", NULL);
    q->h = H(c);
    return CUZK_OK;
}

static void ocl_queue_free(cuzk_gpu_queue *q)
{
    cl.clReleaseCommandQueue(QUEUE(q));
}

static int ocl_write(cuzk_gpu_queue *q, cuzk_gpu_buf *b, size_t off, const void *src, size_t n, bool blocking,
                     char *err, size_t err_len)
{
    cl_int e =
        cl.clEnqueueWriteBuffer(QUEUE(q), MEM(b), blocking ? CL_TRUE : CL_FALSE, off, n, src, 0, NULL, NULL);
    return e ? fail(err, err_len, e, "clEnqueueWriteBuffer", NULL) : CUZK_OK;
}

static int ocl_read(cuzk_gpu_queue *q, void *dst, const cuzk_gpu_buf *b, size_t off, size_t n, bool blocking,
                    char *err, size_t err_len)
{
    cl_int e =
        cl.clEnqueueReadBuffer(QUEUE(q), MEM(b), blocking ? CL_TRUE : CL_FALSE, off, n, dst, 0, NULL, NULL);
    return e ? fail(err, err_len, e, "clEnqueueReadBuffer", NULL) : CUZK_OK;
}

static int ocl_finish(cuzk_gpu_queue *q, char *err, size_t err_len)
{
    cl_int e = cl.clFinish(QUEUE(q));
    return e ? fail(err, err_len, e, "clFinish", NULL) : CUZK_OK;
}

/* ---- kernels and events --------------------------------------------------------- */

static int ocl_kernel_get(cuzk_gpu_kernel *k, char *err, size_t err_len)
{
    ocl_dev *o = k->g->impl;
    cl_int e;
    cl_kernel kk = cl.clCreateKernel(o->prog, k->name, &e);
    if (!kk && e == CL_INVALID_KERNEL_NAME)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "kernel \"%s\": the program has no kernel of that name",
                         k->name);
    if (!kk) return fail(err, err_len, e, "clCreateKernel", k->name);
    k->h = H(kk);
    return CUZK_OK;
}

static void ocl_kernel_free(cuzk_gpu_kernel *k)
{
    cl.clReleaseKernel((cl_kernel)(uintptr_t)k->h);
}

static int ocl_launch(cuzk_gpu_queue *q, cuzk_gpu_kernel *k, size_t global, size_t local,
                      const cuzk_gpu_arg *args, size_t nargs, char *err, size_t err_len)
{
    cl_kernel kk = (cl_kernel)(uintptr_t)k->h;
    for (size_t i = 0; i < nargs; i++) {
        const cuzk_gpu_arg *a = &args[i];
        cl_mem m = a->kind == CUZK_GPU_ARG_BUF ? MEM(a->v.buf) : NULL;
        cl_uint u32 = a->v.u32;
        cl_ulong u64 = a->v.u64;
        cl_int e = a->kind == CUZK_GPU_ARG_BUF   ? cl.clSetKernelArg(kk, (cl_uint)i, sizeof m, &m)
                   : a->kind == CUZK_GPU_ARG_U32 ? cl.clSetKernelArg(kk, (cl_uint)i, sizeof u32, &u32)
                   : a->kind == CUZK_GPU_ARG_U64 ? cl.clSetKernelArg(kk, (cl_uint)i, sizeof u64, &u64)
                                                 : cl.clSetKernelArg(kk, (cl_uint)i, a->v.local_bytes, NULL);
        if (e) {
            char what[96];
            snprintf(what, sizeof what, "%s argument %zu", k->name, i);
            return fail(err, err_len, e, "clSetKernelArg", what);
        }
    }
    cl_int e =
        cl.clEnqueueNDRangeKernel(QUEUE(q), kk, 1, NULL, &global, local ? &local : NULL, 0, NULL, NULL);
    return e ? fail(err, err_len, e, "clEnqueueNDRangeKernel", k->name) : CUZK_OK;
}

static int ocl_event_record(cuzk_gpu_queue *q, cuzk_gpu_event *ev, char *err, size_t err_len)
{
    cl_event e = NULL;
    cl_int r = cl.clEnqueueMarkerWithWaitList(QUEUE(q), 0, NULL, &e);
    if (r) return fail(err, err_len, r, "clEnqueueMarkerWithWaitList", NULL);
    ev->h = H(e);
    return CUZK_OK;
}

static int ocl_event_wait(cuzk_gpu_event *ev, char *err, size_t err_len)
{
    cl_event e = (cl_event)(uintptr_t)ev->h;
    cl_int r = cl.clWaitForEvents(1, &e);
    return r ? fail(err, err_len, r, "clWaitForEvents", NULL) : CUZK_OK;
}

static int ocl_queue_wait_event(cuzk_gpu_queue *q, cuzk_gpu_event *ev, char *err, size_t err_len)
{
    cl_event e = (cl_event)(uintptr_t)ev->h;
    cl_int r = cl.clEnqueueBarrierWithWaitList(QUEUE(q), 1, &e, NULL);
    return r ? fail(err, err_len, r, "clEnqueueBarrierWithWaitList", NULL) : CUZK_OK;
}

static void ocl_event_free(cuzk_gpu_event *ev)
{
    cl.clReleaseEvent((cl_event)(uintptr_t)ev->h);
}

const cuzk_gpu_driver cuzk_gpu_driver_opencl = {
    .kind = CUZK_GPU_OPENCL,
    .list = ocl_list,
    .open = ocl_open,
    .close = ocl_close,
    .alloc = ocl_alloc,
    .free = ocl_free,
    .host_alloc = ocl_host_alloc,
    .host_free = ocl_host_free,
    .queue_create = ocl_queue_create,
    .queue_free = ocl_queue_free,
    .write = ocl_write,
    .read = ocl_read,
    .finish = ocl_finish,
    .kernel_get = ocl_kernel_get,
    .kernel_free = ocl_kernel_free,
    .launch = ocl_launch,
    .event_record = ocl_event_record,
    .event_wait = ocl_event_wait,
    .queue_wait_event = ocl_queue_wait_event,
    .event_free = ocl_event_free,
};

#else /* no <CL/cl.h> at build time */

int cuzk_gpu_opencl_probe(const char *lib, char *err, size_t err_len)
{
    (void)lib;
    return cuzk_errf(
        err, err_len, CUZK_ERR_UNSUPPORTED,
        "OpenCL: built without the OpenCL headers (apt-get install opencl-headers, then rebuild)");
}

static int ocl_absent(cuzk_gpu_device_info *out, size_t cap, size_t *n, char *err, size_t err_len)
{
    (void)out, (void)cap, (void)n;
    return cuzk_gpu_opencl_probe(NULL, err, err_len);
}

const cuzk_gpu_driver cuzk_gpu_driver_opencl = {.kind = CUZK_GPU_OPENCL, .list = ocl_absent};

#endif
