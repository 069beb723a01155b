/* The Groth16 GPU backend: a cuzk_groth16_backend whose MSMs and H run on
 * one device of the device layer (cuzk/gpu.h), so that
 *     opts.backend = cuzk_gpu_groth16_backend(g);  cuzk_groth16_prove(...)
 * proves there (src/gpu/groth16_gpu.c; docs/gpu.md "Groth16 on the device").
 *
 * What runs where: msm_g1 and msm_g2 on the device MSM (cuzk/gpu_msm.h: the
 * 0/1 split, Pippenger on the tail), h_poly and h_poly_lean on the device
 * NTT (cuzk/gpu_ntt.h).  G2 may be moved to the CPU MSM
 * (cuzk_gpu_groth16_g2_on_cpu), on the caller's par: issue 21 asks to keep
 * whichever is faster, which only a real device can say.  Every result
 * equals the CPU backend's (the same points; H bit for bit), so a
 * deterministic proof (r = s = 0) is byte-identical to the CPU backend's
 * (tests/test_gpu_groth16.c).
 *
 * Contract, as the CPU backend's: the functions return a status
 * (CUZK_ERR_ARG, CUZK_ERR_NOMEM for device or host memory, CUZK_ERR_IO for
 * a device failure); the message of the last failure is kept in the handle
 * (cuzk_gpu_groth16_error) since the backend's signature has no err.  par
 * (may be NULL) runs the host parts: the chunked NTT's bit reversals and a
 * CPU G2.  Checkpoints (cancellation) are the prover's, between backend
 * calls: a call in flight on the device runs to its end.
 *
 * Threads: one prove at a time per handle (the NTT and MSM contexts hold
 * kernel arguments and grow-only buffers).  For several provers on one
 * device, open one handle each. */
#ifndef CUZK_GPU_GROTH16_H
#define CUZK_GPU_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/groth16.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_groth16 cuzk_gpu_groth16;

/* driver: "opencl" or "cuda"; device: index in cuzk_gpu_list's enumeration
 * of that driver.  Opens the device, builds or loads the kernel program
 * (OpenCL through the program cache), sets up the NTT and MSM contexts.
 * CUZK_ERR_UNSUPPORTED with the driver's reason when it or the device is
 * absent ("opencl: no OpenCL platform (...)", "cuda: device 2 of 1");
 * CUZK_ERR_ARG for another driver name. */
CUZK_MUST_CHECK int cuzk_gpu_groth16_open(cuzk_gpu_groth16 **out, const char *driver, unsigned device,
                                          char *err, size_t err_len);
/* The backend; valid until close; one prove at a time per handle. */
const cuzk_groth16_backend *cuzk_gpu_groth16_backend(cuzk_gpu_groth16 *g);
/* "opencl:0 pthread-skylake-avx512" (driver:index device name). */
const char *cuzk_gpu_groth16_name(const cuzk_gpu_groth16 *g);
/* The device's global memory, bytes. */
uint64_t cuzk_gpu_groth16_memory(const cuzk_gpu_groth16 *g);
void cuzk_gpu_groth16_close(cuzk_gpu_groth16 *g); /* NULL ok */

/* ---- additions ------------------------------------------------------------ */

/* The message of the backend's last failed call ("" if none). */
const char *cuzk_gpu_groth16_error(const cuzk_gpu_groth16 *g);
/* true: msm_g2 runs the CPU MSM (cuzk/msm.h) on the prover's par instead of
 * the device.  Default false (the device). */
void cuzk_gpu_groth16_g2_on_cpu(cuzk_gpu_groth16 *g, bool on);
/* Whether the device is a CPU (pocl): correct, but its timings are not GPU
 * timings. */
bool cuzk_gpu_groth16_is_cpu(const cuzk_gpu_groth16 *g);
/* The opened device (owned by g), for callers that run their own NTT or
 * MSM contexts on it (cuzk-bench ntt / msm): not while a prove runs. */
struct cuzk_gpu *cuzk_gpu_groth16_device(cuzk_gpu_groth16 *g);

#ifdef __cplusplus
}
#endif
#endif
