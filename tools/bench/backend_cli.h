/* --backend cpu|opencl|cuda and --device N for cuzk-bench's prove, msm,
 * ntt and synth --through-h (backend_cli.c): taken out of argv before the
 * command's own parser sees it, the device opened once, the backend handed
 * to every prove of the run (cuzk/gpu_groth16.h). */
#ifndef CUZK_BENCH_BACKEND_CLI_H
#define CUZK_BENCH_BACKEND_CLI_H

#include "cuzk/gpu_groth16.h"

#define CLI_BACKEND_USAGE "[--backend cpu|opencl|cuda] [--device N]"

/* Removes --backend X / --device N (also --backend=X) from argv, updating
 * *argc, and opens the device for opencl / cuda.  0; 2 for a bad value, 1
 * when the device cannot be opened (the reason printed, prefixed by cmd:
 * "cuzk-bench prove: OpenCL: no platform ..."). */
int cli_backend_take(int *argc, char **argv, const char *cmd);
/* The chosen backend: NULL for cpu (cuzk_groth16_prove's default). */
const cuzk_groth16_backend *cli_backend(void);
/* The opened device's handle (NULL for cpu) and the backend's name
 * ("cpu", "opencl:0 <device>"). */
cuzk_gpu_groth16 *cli_backend_gpu(void);
const char *cli_backend_name(void);
/* A line saying whether timings are GPU timings ("" for cpu or a GPU; a
 * warning for a CPU device such as pocl). */
const char *cli_backend_note(void);

#endif
