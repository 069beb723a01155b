/* The device layer's inside: the driver table that gpu.c dispatches to, the
 * objects every driver shares, and the program cache (cache.c).
 *
 * A driver is one table of functions (cuzk_gpu_driver below).  gpu.c checks
 * arguments, allocates the generic objects and calls the driver, which only
 * fills or releases their `h` handles, so a driver file holds vendor calls
 * and nothing else.  Adding a driver: docs/gpu.md "Adding a driver". */
#ifndef CUZK_GPU_INTERNAL_H
#define CUZK_GPU_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "cuzk/gpu.h"

typedef struct cuzk_gpu_driver cuzk_gpu_driver;

struct cuzk_gpu {
    const cuzk_gpu_driver *drv;
    cuzk_gpu_device_info info;
    void *impl; /* the driver's per-device state (context, program) */
    cuzk_gpu_queue *queue0;
};

/* Driver handles are kept as 64-bit values: an OpenCL object pointer, a
 * CUdeviceptr, a CUstream. */
struct cuzk_gpu_buf {
    cuzk_gpu *g;
    size_t size;
    uint64_t h; /* on an OpenCL CPU device, a buffer over a mapping of our own (huge pages, opencl.c) */
};

struct cuzk_gpu_hostbuf {
    cuzk_gpu *g;
    size_t size;
    void *ptr;
    bool pinned;
    uint64_t h; /* OpenCL: the mapped cl_mem; 0 for plain memory */
};

struct cuzk_gpu_queue {
    cuzk_gpu *g;
    uint64_t h;
};

struct cuzk_gpu_kernel {
    cuzk_gpu *g;
    char name[64];
    uint64_t h;
};

struct cuzk_gpu_event {
    cuzk_gpu *g;
    uint64_t h;
};

/* Every function returns a status and writes err (cuzk_errf) on failure;
 * gpu.c has checked the arguments (non-NULL, in bounds) before calling. */
struct cuzk_gpu_driver {
    cuzk_gpu_driver_kind kind;
    int (*list)(cuzk_gpu_device_info *out, size_t cap, size_t *n, char *err, size_t err_len);
    /* g->info is set; creates g->impl, the program and g->queue0->h. */
    int (*open)(cuzk_gpu *g, const cuzk_gpu_open_opts *opts, cuzk_gpu_program_info *info, char *err,
                size_t err_len);
    void (*close)(cuzk_gpu *g); /* after queue0 was finished and freed */
    int (*alloc)(cuzk_gpu_buf *b, char *err, size_t err_len);
    void (*free)(cuzk_gpu_buf *b);
    int (*host_alloc)(cuzk_gpu_hostbuf *h, char *err, size_t err_len); /* sets ptr, pinned, h */
    void (*host_free)(cuzk_gpu_hostbuf *h);
    int (*queue_create)(cuzk_gpu_queue *q, char *err, size_t err_len);
    void (*queue_free)(cuzk_gpu_queue *q);
    int (*write)(cuzk_gpu_queue *q, cuzk_gpu_buf *b, size_t off, const void *src, size_t n, bool blocking,
                 char *err, size_t err_len);
    int (*read)(cuzk_gpu_queue *q, void *dst, const cuzk_gpu_buf *b, size_t off, size_t n, bool blocking,
                char *err, size_t err_len);
    int (*finish)(cuzk_gpu_queue *q, char *err, size_t err_len);
    int (*kernel_get)(cuzk_gpu_kernel *k, char *err, size_t err_len); /* k->name set */
    void (*kernel_free)(cuzk_gpu_kernel *k);
    /* global already rounded up to a multiple of local (when local > 0) */
    int (*launch)(cuzk_gpu_queue *q, cuzk_gpu_kernel *k, size_t global, size_t local,
                  const cuzk_gpu_arg *args, size_t nargs, char *err, size_t err_len);
    int (*event_record)(cuzk_gpu_queue *q, cuzk_gpu_event *e, char *err, size_t err_len);
    int (*event_wait)(cuzk_gpu_event *e, char *err, size_t err_len);
    int (*queue_wait_event)(cuzk_gpu_queue *q, cuzk_gpu_event *e, char *err, size_t err_len);
    void (*event_free)(cuzk_gpu_event *e);
};

extern const cuzk_gpu_driver cuzk_gpu_driver_opencl;
extern const cuzk_gpu_driver cuzk_gpu_driver_cuda;

/* A driver's library, opened with dlopen: its name ($env overrides lib),
 * the symbols it must have, and the table of function pointers (one per
 * name, in order) they fill.  Loaded once and kept for the life of the
 * process (ICDs do not survive being unloaded); a failed load is tried
 * again at the next call. */
typedef struct {
    const char *what, *env, *lib, *hint; /* "CUDA", "CUZK_GPU_CUDA_LIB", "libcuda.so.1", advice */
    const char *const *names;            /* NULL-terminated */
    void *table;                         /* names' count of function pointers */
    pthread_mutex_t mu;
    bool loaded;
} cuzk_gpu_dylib;

/* CUZK_OK once d->table is filled, else CUZK_ERR_UNSUPPORTED with
 * "<what>: <lib> not found (<dlerror>): <hint>" or the missing symbol. */
int cuzk_gpu_dylib_load(cuzk_gpu_dylib *d, char *err, size_t err_len);
/* The same check for the library file `lib` (NULL: d's), without keeping
 * it: behind "libcuda.so.1 not found", testable with any name. */
int cuzk_gpu_dylib_probe(const cuzk_gpu_dylib *d, const char *lib, char *err, size_t err_len);
int cuzk_gpu_cuda_probe(const char *lib, char *err, size_t err_len);
int cuzk_gpu_opencl_probe(const char *lib, char *err, size_t err_len);

/* ---- program binary cache (cache.c) ---------------------------------------------- */

/* The cache directory per cuzk_gpu_open_opts.cache_dir's rules, made if
 * missing and checked safe; CUZK_OK with dir = "" when the cache is off,
 * with the reason in note. */
void cuzk_gpu_cache_dir(char *dir, size_t cap, const char *requested, char *note, size_t note_len);
/* key = SHA-256 over the parts (each length-prefixed), as 64 hex digits. */
int cuzk_gpu_cache_key(char hex[65], const char *const *parts, size_t nparts, char *err, size_t err_len);
/* <dir>/<key><ext>; false if too long. */
bool cuzk_gpu_cache_path(char *out, size_t cap, const char *dir, const char *key, const char *ext);
/* Reads a cached binary written by cuzk_gpu_cache_store: CUZK_OK with a
 * malloc'd *data; CUZK_ERR_IO if absent (errno ENOENT: a miss, note ""),
 * CUZK_ERR_FORMAT if damaged (wrong magic, length or digest: note says
 * which). */
int cuzk_gpu_cache_load(const char *path, uint8_t **data, size_t *len, char *note, size_t note_len);
/* Writes data under path atomically (temporary file, fsync, rename) with a
 * header carrying its length and SHA-256; failures only fill note. */
int cuzk_gpu_cache_store(const char *path, const uint8_t *data, size_t len, char *note, size_t note_len);

/* The embedded kernel texts (generated kernel_blobs.c). */
extern const char cuzk_gpu_kernel_source_data[];
extern const uint64_t cuzk_gpu_kernel_source_size;
extern const char cuzk_gpu_kernel_ptx_data[];
extern const uint64_t cuzk_gpu_kernel_ptx_size;

double cuzk_gpu_now(void);

#endif
