/* Shared by the device-layer tests (test_gpu_*.c): one device per process,
 * opened on first use and closed at exit, and elementwise kernel runs.
 *
 * Device choice: $CUZK_BACKEND=cuda takes the CUDA driver (the device
 * check on an NVIDIA machine), anything else OpenCL; $CUZK_GPU_DEVICE its
 * index (default 0).  No device: the test is skipped with the driver's
 * reason -- except under CI=true, where a missing OpenCL platform is a
 * failure (CI installs pocl: every kernel test must run there). */
#ifndef CUZK_TEST_GPU_UTIL_H
#define CUZK_TEST_GPU_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu.h"
#include "harness.h"

static cuzk_gpu *gpu_dev;
static cuzk_gpu_program_info gpu_prog;
static char gpu_why[600];

static void gpu_close_at_exit(void)
{
    cuzk_gpu_close(gpu_dev);
}

static cuzk_gpu_driver_kind gpu_test_driver(void)
{
    const char *b = getenv("CUZK_BACKEND");
    return b && !strcmp(b, "cuda") ? CUZK_GPU_CUDA : CUZK_GPU_OPENCL;
}

/* The device's description (its driver's, index $CUZK_GPU_DEVICE); false
 * with the reason in why when there is none. */
static bool gpu_test_pick(cuzk_gpu_device_info *info, char *why, size_t why_len)
{
    cuzk_gpu_device_info devs[16];
    size_t n = 0;
    const char *e = getenv("CUZK_GPU_DEVICE");
    unsigned want = e && *e ? (unsigned)strtoul(e, NULL, 10) : 0;
    if (cuzk_gpu_list(gpu_test_driver(), devs, 16, &n, why, why_len)) return false;
    if (want >= n || want >= 16) {
        snprintf(why, why_len, "$CUZK_GPU_DEVICE=%u but %zu device(s)", want, n);
        return false;
    }
    *info = devs[want];
    return true;
}

/* The process's device, or NULL after test_skip / test_fail: callers
 * return at once on NULL. */
static cuzk_gpu *gpu_test_device(void)
{
    if (gpu_dev) return gpu_dev;
    cuzk_gpu_device_info info;
    const char *ci = getenv("CI");
    /* $CUZK_TEST_GPU_OPTIONS: extra build options (ctest's test_gpu_ff_portable
     * passes -DCZ_NO_INT128: pocl's portable limb primitives, cuzk_kernel.h) */
    cuzk_gpu_open_opts opts = {NULL, getenv("CUZK_TEST_GPU_OPTIONS")};
    if (gpu_why[0]) { /* an earlier case found none */
    } else if (!gpu_test_pick(&info, gpu_why, sizeof gpu_why)) {
    } else if (cuzk_gpu_open(&gpu_dev, &info, &opts, &gpu_prog, gpu_why, sizeof gpu_why)) {
        fprintf(stderr, "  open %s: %s\n", info.name, gpu_why);
        test_fail(__FILE__, __LINE__, "cuzk_gpu_open");
        return NULL;
    } else {
        atexit(gpu_close_at_exit);
        printf("  device: %s / %s (%s)%s%s, program ready in %.2f s, cache %s%s%s\n", info.platform, info.name,
               info.driver_version, opts.build_options ? ", build options " : "",
               opts.build_options ? opts.build_options : "", gpu_prog.build_s,
               gpu_prog.cache == CUZK_GPU_CACHE_HIT       ? "hit"
               : gpu_prog.cache == CUZK_GPU_CACHE_MISS    ? "miss"
               : gpu_prog.cache == CUZK_GPU_CACHE_REBUILT ? "rebuilt"
                                                          : "off",
               gpu_prog.note[0] ? ": " : "", gpu_prog.note);
        return gpu_dev;
    }
    if (ci && !strcmp(ci, "true") && gpu_test_driver() == CUZK_GPU_OPENCL) {
        fprintf(stderr, "  no OpenCL device under CI=true (install pocl-opencl-icd): %s\n", gpu_why);
        test_fail(__FILE__, __LINE__, "an OpenCL device (CI=true)");
    } else {
        test_skip(gpu_why);
    }
    return NULL;
}

/* r[i] = kernel(in..., op) for i < n: the test kernels' signature
 * (r, in0, in1, ..., op, n); elem bytes per element of r, in_bytes[k]
 * per element of input k.  false on a device error (reported). */
__attribute__((unused)) static bool gpu_test_run(const char *kernel, void *r, size_t elem,
                                                 const void *const *ins, const size_t *in_bytes, size_t nin,
                                                 uint32_t op, size_t n)
{
    cuzk_gpu *g = gpu_test_device();
    cuzk_gpu_queue *q = cuzk_gpu_default_queue(g);
    cuzk_gpu_kernel *k = NULL;
    cuzk_gpu_buf *b[4] = {NULL, NULL, NULL, NULL};
    cuzk_gpu_arg args[6];
    char err[512] = "";
    int st = nin > 3 ? CUZK_ERR_ARG : cuzk_gpu_kernel_get(g, &k, kernel, err, sizeof err);
    if (!st) st = cuzk_gpu_alloc(g, &b[0], elem * n, err, sizeof err);
    args[0] = CUZK_GPU_ARG_B(b[0]);
    for (size_t i = 0; !st && i < nin; i++) {
        st = cuzk_gpu_alloc(g, &b[i + 1], in_bytes[i] * n, err, sizeof err);
        if (!st) st = cuzk_gpu_write(q, b[i + 1], 0, ins[i], in_bytes[i] * n, false, err, sizeof err);
        args[i + 1] = CUZK_GPU_ARG_B(b[i + 1]);
    }
    args[nin + 1] = CUZK_GPU_ARG_32(op);
    args[nin + 2] = CUZK_GPU_ARG_32((uint32_t)n);
    if (!st) st = cuzk_gpu_launch(q, k, n, 64, args, nin + 3, err, sizeof err);
    if (!st) st = cuzk_gpu_read(q, r, b[0], 0, elem * n, true, err, sizeof err);
    for (int i = 0; i < 4; i++)
        cuzk_gpu_free(b[i]);
    cuzk_gpu_kernel_free(k);
    if (st) {
        fprintf(stderr, "  %s op %u: %s\n", kernel, (unsigned)op, err);
        test_fail(__FILE__, __LINE__, kernel);
    }
    return st == CUZK_OK;
}

#endif
