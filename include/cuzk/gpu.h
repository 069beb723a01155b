/* The device layer: one small interface to a compute device, two drivers
 * behind it (OpenCL, CUDA), one kernel source built for both (docs/gpu.md).
 *
 * Everything above this layer (NTT and MSM orchestration, the Groth16 GPU
 * backend) is written once against these calls and tested on the portable
 * driver (OpenCL on pocl, the CPU) in CI.  Host code outside src/gpu never
 * includes a vendor header.
 *
 * Drivers are loaded at run time with dlopen (libOpenCL.so.1 from the ICD
 * loader, libcuda.so.1 from the NVIDIA driver), so one binary runs with
 * both, either or neither; a driver that is absent is reported by
 * cuzk_gpu_list with a sentence saying what is missing (CUZK_ERR_UNSUPPORTED),
 * never by a crash.  $CUZK_GPU_OPENCL_LIB / $CUZK_GPU_CUDA_LIB name another
 * library file (read at the first successful load, which is then kept for
 * the life of the process: ICDs are never unloaded).
 *
 * Objects: a cuzk_gpu is one opened device (context, the kernel program,
 * a default queue).  Buffers, host buffers, queues, kernels and events
 * belong to one cuzk_gpu and are freed before it.  Contract:
 *  - every fallible call returns CUZK_OK or a negative status and writes a
 *    message naming the driver call and its error into err;
 *    CUZK_ERR_UNSUPPORTED: no such driver/device; CUZK_ERR_NOMEM: device or
 *    host memory exhausted; CUZK_ERR_ARG: a bad argument (a kernel name the
 *    program lacks, a copy past a buffer's end); CUZK_ERR_IO: any other
 *    driver failure;
 *  - threads: a cuzk_gpu may be used from several threads; a queue, a
 *    kernel object (its arguments are set at launch) and an event are used
 *    by one thread at a time.  This layer creates no threads (the drivers
 *    may: pocl runs kernels on its own pthreads);
 *  - copies and launches are ordered within a queue; across queues only
 *    through events.  A non-blocking copy's host memory must stay valid and
 *    untouched until the queue is finished or an event after it waited on.
 *
 * Kernels see device memory in the CPU library's layout, byte for byte:
 * cuzk_fp / cuzk_fr / cuzk_fp2 in Montgomery form, cuzk_g1_affine (infinity
 * = (0,0)) and Jacobian cuzk_g1 (infinity iff Z = 0), the same for G2; a
 * buffer is copied in and out without conversion (little-endian hosts and
 * devices only: x86-64, aarch64, every GPU we target). */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUZK_GPU_OPENCL = 0, CUZK_GPU_CUDA = 1 } cuzk_gpu_driver_kind;
#define CUZK_GPU_NDRIVERS 2

/* "opencl" / "cuda" (NULL for another value). */
const char *cuzk_gpu_driver_name(cuzk_gpu_driver_kind d);

typedef struct {
    cuzk_gpu_driver_kind driver;
    unsigned index;           /* within its driver: OpenCL counts the devices of
                               * every platform, in platform order */
    char platform[128];       /* OpenCL platform name; "NVIDIA CUDA" */
    char name[128];           /* device name */
    char driver_version[64];  /* OpenCL CL_DRIVER_VERSION; CUDA "13.0" (driver API) */
    char version[128];        /* OpenCL CL_DEVICE_VERSION; CUDA "sm_90" */
    uint64_t mem_bytes;       /* global memory */
    uint64_t max_alloc_bytes; /* largest single buffer */
    unsigned compute_units;   /* OpenCL compute units; CUDA multiprocessors */
    bool is_cpu;              /* a CPU device (pocl): correct, but its timings
                               * are not GPU timings */
} cuzk_gpu_device_info;

/* The devices of driver d: *n = how many there are (all of them, also when
 * n > cap), the first min(n, cap) described in out (out may be NULL when cap
 * is 0).  CUZK_ERR_UNSUPPORTED with the reason when the driver is absent
 * ("libcuda.so.1 not found ..."), the build has no kernels for it, or it has
 * no device at all; *n is 0 then. */
CUZK_MUST_CHECK int cuzk_gpu_list(cuzk_gpu_driver_kind d, cuzk_gpu_device_info *out, size_t cap, size_t *n,
                                  char *err, size_t err_len);

/* ---- an opened device and its program ------------------------------------ */

typedef struct cuzk_gpu cuzk_gpu;
typedef struct cuzk_gpu_buf cuzk_gpu_buf;
typedef struct cuzk_gpu_hostbuf cuzk_gpu_hostbuf;
typedef struct cuzk_gpu_queue cuzk_gpu_queue;
typedef struct cuzk_gpu_kernel cuzk_gpu_kernel;
typedef struct cuzk_gpu_event cuzk_gpu_event;

typedef struct {
    /* Where OpenCL program binaries are cached.  NULL: $CUZK_GPU_CACHE_DIR,
     * else $XDG_CACHE_HOME/cuzk/gpu, else $HOME/.cache/cuzk/gpu; "" turns
     * the cache off.  A directory that another user could write to is
     * refused (the PCE directory rule) and the program built uncached. */
    const char *cache_dir;
    /* Extra compiler options (OpenCL build options; part of the cache key).
     * NULL: none.  For a CPU device the driver puts -DCZ_INT128 before them
     * (cuzk_kernel.h: the limb primitives as 128-bit sums); -DCZ_NO_INT128
     * here turns that off. */
    const char *build_options;
} cuzk_gpu_open_opts;

typedef enum {
    CUZK_GPU_CACHE_OFF = 0, /* no cache (turned off, refused directory, CUDA) */
    CUZK_GPU_CACHE_MISS,    /* built from source, binary stored */
    CUZK_GPU_CACHE_HIT,     /* loaded from a verified cached binary */
    CUZK_GPU_CACHE_REBUILT, /* a cached file was unusable (corrupt, refused by
                             * the driver): built from source and replaced */
} cuzk_gpu_cache_state;

typedef struct {
    cuzk_gpu_cache_state cache;
    double build_s;        /* wall seconds to get the program ready */
    char cache_path[1024]; /* the binary's file, "" without a cache */
    char note[512];        /* why the cache was off or rebuilt; "" if neither */
} cuzk_gpu_program_info;

/* Opens device dev (from cuzk_gpu_list: its driver and index are used) and
 * builds the kernel program (OpenCL: compiled for the device, through the
 * binary cache; CUDA: the PTX embedded at build time, loaded by the
 * driver).  opts and info may be NULL.  A build failure returns
 * CUZK_ERR_IO with the start of the compiler's log in err. */
CUZK_MUST_CHECK int cuzk_gpu_open(cuzk_gpu **out, const cuzk_gpu_device_info *dev,
                                  const cuzk_gpu_open_opts *opts, cuzk_gpu_program_info *info, char *err,
                                  size_t err_len);
/* Waits for the default queue and frees the device's objects; NULL is a
 * no-op.  Every buffer, queue, kernel and event must be freed first. */
void cuzk_gpu_close(cuzk_gpu *g);
const cuzk_gpu_device_info *cuzk_gpu_info(const cuzk_gpu *g);

/* ---- memory ------------------------------------------------------------------ */

/* A device buffer of bytes (> 0) bytes, contents undefined. */
CUZK_MUST_CHECK int cuzk_gpu_alloc(cuzk_gpu *g, cuzk_gpu_buf **out, size_t bytes, char *err, size_t err_len);
void cuzk_gpu_free(cuzk_gpu_buf *b); /* NULL is a no-op */
size_t cuzk_gpu_buf_size(const cuzk_gpu_buf *b);

/* Host memory for fast transfers: page-locked where the driver provides it
 * (CUDA cuMemHostAlloc; OpenCL an ALLOC_HOST_PTR buffer kept mapped), else
 * plain memory; *pinned (optional) says which.  Pin a reused pool, not
 * every allocation: pinning is slow (gpu-facts.md). */
CUZK_MUST_CHECK int cuzk_gpu_host_alloc(cuzk_gpu *g, cuzk_gpu_hostbuf **out, size_t bytes, bool *pinned,
                                        char *err, size_t err_len);
void *cuzk_gpu_host_ptr(const cuzk_gpu_hostbuf *h);
void cuzk_gpu_host_free(cuzk_gpu_hostbuf *h); /* NULL is a no-op */

/* ---- queues, copies, events ------------------------------------------------- */

/* The queue the device was opened with (owned by g: never freed by the caller). */
cuzk_gpu_queue *cuzk_gpu_default_queue(cuzk_gpu *g);
/* Another in-order queue (CUDA stream), for overlapping copies and kernels. */
CUZK_MUST_CHECK int cuzk_gpu_queue_create(cuzk_gpu *g, cuzk_gpu_queue **out, char *err, size_t err_len);
void cuzk_gpu_queue_free(cuzk_gpu_queue *q); /* waits for it first; NULL is a no-op */

/* dst[off, off+n) = src / dst = src[off, off+n); off + n must not pass the
 * buffer's end (CUZK_ERR_ARG).  blocking: return when the copy is done. */
CUZK_MUST_CHECK int cuzk_gpu_write(cuzk_gpu_queue *q, cuzk_gpu_buf *dst, size_t off, const void *src,
                                   size_t n, bool blocking, char *err, size_t err_len);
CUZK_MUST_CHECK int cuzk_gpu_read(cuzk_gpu_queue *q, void *dst, const cuzk_gpu_buf *src, size_t off, size_t n,
                                  bool blocking, char *err, size_t err_len);
/* Returns when everything enqueued on q has completed. */
CUZK_MUST_CHECK int cuzk_gpu_finish(cuzk_gpu_queue *q, char *err, size_t err_len);

/* *out = an event that completes when everything enqueued on q so far has. */
CUZK_MUST_CHECK int cuzk_gpu_event_record(cuzk_gpu_queue *q, cuzk_gpu_event **out, char *err, size_t err_len);
/* The host waits for e. */
CUZK_MUST_CHECK int cuzk_gpu_event_wait(cuzk_gpu_event *e, char *err, size_t err_len);
/* Work enqueued on q after this call starts only once e has completed
 * (e may come from another queue of the same device). */
CUZK_MUST_CHECK int cuzk_gpu_queue_wait_event(cuzk_gpu_queue *q, cuzk_gpu_event *e, char *err,
                                              size_t err_len);
void cuzk_gpu_event_free(cuzk_gpu_event *e); /* NULL is a no-op */

/* ---- kernels ------------------------------------------------------------------ */

/* The program's kernel called name; CUZK_ERR_ARG naming it if the program
 * has none of that name. */
CUZK_MUST_CHECK int cuzk_gpu_kernel_get(cuzk_gpu *g, cuzk_gpu_kernel **out, const char *name, char *err,
                                        size_t err_len);
void cuzk_gpu_kernel_free(cuzk_gpu_kernel *k); /* NULL is a no-op */

typedef enum {
    CUZK_GPU_ARG_BUF,   /* a device buffer: CZ_GLOBAL T *p in the kernel */
    CUZK_GPU_ARG_U32,   /* u32 */
    CUZK_GPU_ARG_U64,   /* u64 */
    CUZK_GPU_ARG_LOCAL, /* bytes of work-group memory: CZ_LOCAL_PARAM in the kernel's
                         * parameter list (OpenCL: a __local pointer argument;
                         * CUDA: the launch's dynamic shared memory, at most one) */
} cuzk_gpu_arg_kind;

typedef struct {
    cuzk_gpu_arg_kind kind;
    union {
        cuzk_gpu_buf *buf;
        uint32_t u32;
        uint64_t u64;
        size_t local_bytes;
    } v;
} cuzk_gpu_arg;

#define CUZK_GPU_ARG_B(b) ((cuzk_gpu_arg){.kind = CUZK_GPU_ARG_BUF, .v.buf = (b)})
#define CUZK_GPU_ARG_32(x) ((cuzk_gpu_arg){.kind = CUZK_GPU_ARG_U32, .v.u32 = (x)})
#define CUZK_GPU_ARG_64(x) ((cuzk_gpu_arg){.kind = CUZK_GPU_ARG_U64, .v.u64 = (x)})
#define CUZK_GPU_ARG_L(n) ((cuzk_gpu_arg){.kind = CUZK_GPU_ARG_LOCAL, .v.local_bytes = (n)})

/* Enqueues k on q over a 1-D range of `global` work items in groups of
 * `local` (0: the driver's choice; OpenCL needs global to be a multiple of
 * local, so global is rounded up to one: kernels bound-check their index).
 * args are the kernel's parameters, in order.  global == 0 enqueues
 * nothing. */
CUZK_MUST_CHECK int cuzk_gpu_launch(cuzk_gpu_queue *q, cuzk_gpu_kernel *k, size_t global, size_t local,
                                    const cuzk_gpu_arg *args, size_t nargs, char *err, size_t err_len);

/* ---- the kernel source --------------------------------------------------------- */

/* The one kernel source (src/gpu/kernels, its includes resolved at build
 * time) as the OpenCL driver compiles it; the CUDA build's PTX, compiled
 * from the same text by nvcc when the build found it (*len = 0 without). */
const char *cuzk_gpu_kernel_source(size_t *len);
const char *cuzk_gpu_kernel_ptx(size_t *len);

#ifdef __cplusplus
}
#endif
#endif
