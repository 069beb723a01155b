/* The Groth16 GPU backend (cuzk/gpu_groth16.h): one opened device, its NTT
 * and MSM contexts, and the cuzk_groth16_backend that routes the prover's
 * calls to them.
 *
 * Only the struct type of cuzk/groth16.h is used here (no groth16 symbol is
 * linked), so the device layer stays below groth16 in the build's layer
 * check; the prover reaches this code through the function pointers.
 *
 * The wrappers exist for one reason each: the backend's signature has no
 * err, so a failure's message (kept by the NTT / MSM context) is copied
 * into the handle; and G2 may go to the CPU MSM on the prover's par
 * instead of the device (issue 21: keep whichever is faster; only a real
 * device can say, so the default is the device and the switch is
 * cuzk_gpu_groth16_g2_on_cpu). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu.h"
#include "cuzk/gpu_groth16.h"
#include "cuzk/gpu_msm.h"
#include "cuzk/gpu_ntt.h"
#include "cuzk/msm.h"

struct cuzk_gpu_groth16 {
    cuzk_gpu *dev;
    cuzk_gpu_ntt *ntt;
    cuzk_gpu_msm *msm;
    cuzk_groth16_backend be;
    bool g2_cpu;
    char name[300];
    char err[1024];
};

static int keep_err(cuzk_gpu_groth16 *g, int st, const char *what, const char *msg)
{
    if (st) snprintf(g->err, sizeof g->err, "%s: %s", what, msg && msg[0] ? msg : cuzk_strerror(st));
    return st;
}

static int be_msm_g1(void *ctx, cuzk_g1 *r, const cuzk_g1_affine *bases, size_t nbases, const cuzk_fr *s,
                     size_t nvars, const uint64_t *density, cuzk_par *par)
{
    cuzk_gpu_groth16 *g = ctx;
    int st = cuzk_gpu_msm_backend_g1(g->msm, r, bases, nbases, s, nvars, density, par);
    return keep_err(g, st, "gpu msm_g1", cuzk_gpu_msm_last_error(g->msm));
}

static int be_msm_g2(void *ctx, cuzk_g2 *r, const cuzk_g2_affine *bases, size_t nbases, const cuzk_fr *s,
                     size_t nvars, const uint64_t *density, cuzk_par *par)
{
    cuzk_gpu_groth16 *g = ctx;
    if (g->g2_cpu) {
        int st = cuzk_msm_g2(par, r, bases, nbases, s, nvars, density, NULL, 0);
        return keep_err(g, st, "cpu msm_g2", NULL);
    }
    int st = cuzk_gpu_msm_backend_g2(g->msm, r, bases, nbases, s, nvars, density, par);
    return keep_err(g, st, "gpu msm_g2", cuzk_gpu_msm_last_error(g->msm));
}

static int be_h_poly(void *ctx, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, size_t n, unsigned log_m, cuzk_par *par)
{
    cuzk_gpu_groth16 *g = ctx;
    int st = cuzk_gpu_h_poly(g->ntt, a, b, c, n, log_m, par);
    return keep_err(g, st, "gpu h_poly", cuzk_gpu_ntt_error(g->ntt));
}

static int be_h_poly_lean(void *ctx, cuzk_fr *a, cuzk_fr *b, size_t n, unsigned log_m,
                          int (*fill_c)(void *, cuzk_fr *, size_t), void *fill_ctx, cuzk_par *par)
{
    cuzk_gpu_groth16 *g = ctx;
    int st = cuzk_gpu_h_poly_lean(g->ntt, a, b, n, log_m, fill_c, fill_ctx, par);
    return keep_err(g, st, "gpu h_poly_lean", cuzk_gpu_ntt_error(g->ntt));
}

/* The device `device` of the driver named `driver`: its description. */
static int find_device(cuzk_gpu_device_info *out, const char *driver, unsigned device, char *err,
                       size_t err_len)
{
    cuzk_gpu_driver_kind kind;
    if (driver && !strcmp(driver, "opencl"))
        kind = CUZK_GPU_OPENCL;
    else if (driver && !strcmp(driver, "cuda"))
        kind = CUZK_GPU_CUDA;
    else
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu backend: driver '%s' is neither opencl nor cuda",
                         driver ? driver : "(null)");
    size_t n = 0;
    int st = cuzk_gpu_list(kind, NULL, 0, &n, err, err_len);
    if (st) return st; /* the driver's sentence: "OpenCL: libOpenCL.so.1 not found ..." */
    if (device >= n)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "%s: no device %u (%zu found: 0..%zu)", driver,
                         device, n, n - 1);
    cuzk_gpu_device_info *all = calloc(n, sizeof *all);
    if (!all) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "gpu backend: out of memory");
    size_t n2 = 0;
    st = cuzk_gpu_list(kind, all, n, &n2, err, err_len);
    if (!st && device >= n2)
        st = cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "%s: device %u went away", driver, device);
    if (!st) *out = all[device];
    free(all);
    return st;
}

int cuzk_gpu_groth16_open(cuzk_gpu_groth16 **out, const char *driver, unsigned device, char *err,
                          size_t err_len)
{
    if (!out) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gpu backend: NULL out");
    *out = NULL;
    cuzk_gpu_device_info info;
    int st = find_device(&info, driver, device, err, err_len);
    if (st) return st;
    cuzk_gpu_groth16 *g = calloc(1, sizeof *g);
    if (!g) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "gpu backend: out of memory");
    st = cuzk_gpu_open(&g->dev, &info, NULL, NULL, err, err_len);
    if (!st) st = cuzk_gpu_ntt_create(&g->ntt, g->dev, NULL, err, err_len);
    if (!st) st = cuzk_gpu_msm_create(&g->msm, g->dev, err, err_len);
    if (st) {
        cuzk_gpu_groth16_close(g);
        return st;
    }
    snprintf(g->name, sizeof g->name, "%s:%u %s", driver, device, info.name);
    g->be = (cuzk_groth16_backend){
        .name = g->name,
        .ctx = g,
        .msm_g1 = be_msm_g1,
        .msm_g2 = be_msm_g2,
        .h_poly = be_h_poly,
        .h_poly_lean = be_h_poly_lean,
    };
    *out = g;
    return CUZK_OK;
}

const cuzk_groth16_backend *cuzk_gpu_groth16_backend(cuzk_gpu_groth16 *g)
{
    return g ? &g->be : NULL;
}

const char *cuzk_gpu_groth16_name(const cuzk_gpu_groth16 *g)
{
    return g ? g->name : "";
}

uint64_t cuzk_gpu_groth16_memory(const cuzk_gpu_groth16 *g)
{
    return g ? cuzk_gpu_info(g->dev)->mem_bytes : 0;
}

bool cuzk_gpu_groth16_is_cpu(const cuzk_gpu_groth16 *g)
{
    return g && cuzk_gpu_info(g->dev)->is_cpu;
}

cuzk_gpu *cuzk_gpu_groth16_device(cuzk_gpu_groth16 *g)
{
    return g ? g->dev : NULL;
}

const char *cuzk_gpu_groth16_error(const cuzk_gpu_groth16 *g)
{
    return g ? g->err : "";
}

void cuzk_gpu_groth16_g2_on_cpu(cuzk_gpu_groth16 *g, bool on)
{
    if (g) g->g2_cpu = on;
}

void cuzk_gpu_groth16_close(cuzk_gpu_groth16 *g)
{
    if (!g) return;
    cuzk_gpu_msm_free(g->msm);
    cuzk_gpu_ntt_destroy(g->ntt);
    cuzk_gpu_close(g->dev);
    free(g);
}
