/* The NTT over Fr on a device (src/gpu/ntt.c, kernels in
 * src/gpu/kernels/ntt.cl; docs/gpu.md "The NTT on the device"), and H of Groth16 with it.
 *
 * The transforms are those of cuzk/ntt.h, with the same contract: natural
 * order in and out, n = 2^log_n with 0 <= log_n <= 27,
 *   forward a[i] <- sum_j a[j] w^(ij), inverse (with the 1/n), and the coset
 *   forms with g = 7 (cuzk_ntt_coset_generator),
 * and the same values: every result equals the CPU library's bit for bit
 * (both give the fully reduced Montgomery residue; tests/test_gpu_ntt.c
 * compares them).
 *
 * Twiddles and powers of g are generated on the device from the roots when
 * a context is created (four 768 KiB tables, whatever the size); nothing of
 * size n is uploaded besides the data.
 *
 * Device memory: a context has a limit, mem_limit bytes, on what its data
 * buffers take.  A host vector that fits (32 n bytes <= the limit and the
 * device's largest buffer) is transformed whole on the device; a larger one
 * in chunks (the four-step split n = N1 N2: columns, then rows, each chunk
 * uploaded, transformed and read back, then a bit reversal on the host),
 * with the same result.  cuzk_gpu_h_poly keeps a, b and c on the device
 * when 96 m bytes fit, and otherwise runs each transform through the chunked
 * path and the pointwise step in chunks.
 *
 * Threads: a context is used by one thread at a time (it holds its kernels'
 * argument state and the last error).  It uses the device's default queue
 * and finishes it before a host-memory call returns. */
#ifndef CUZK_GPU_NTT_H
#define CUZK_GPU_NTT_H

#include <stddef.h>

#include "cuzk/ff.h"
#include "cuzk/gpu.h"
#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_ntt cuzk_gpu_ntt;

typedef enum {
    CUZK_GPU_NTT_FORWARD = 0,
    CUZK_GPU_NTT_INVERSE,
    CUZK_GPU_NTT_COSET_FORWARD,
    CUZK_GPU_NTT_COSET_INVERSE,
} cuzk_gpu_ntt_kind;

typedef struct {
    /* Bytes of device memory the data buffers may take (tables and
     * constants, ~3 MiB, not counted).  0: 3/4 of the device's memory.
     * Tests set small limits to exercise the chunked path. */
    size_t mem_limit;
    /* log2 of the elements a work-group transforms in work-group memory
     * (2 .. 10; 32 bytes each, half as many threads).  0: 9 (16 KiB,
     * 256 threads: within every device's limits). */
    unsigned tile_log;
} cuzk_gpu_ntt_opts;

/* *out = a context on g (which must outlive it): the kernels, the constants
 * and the generated tables.  opts may be NULL.  CUZK_ERR_ARG for a tile_log
 * out of range or a limit below 64 bytes; the device's errors otherwise. */
CUZK_MUST_CHECK int cuzk_gpu_ntt_create(cuzk_gpu_ntt **out, cuzk_gpu *g, const cuzk_gpu_ntt_opts *opts, char *err,
                                        size_t err_len);
void cuzk_gpu_ntt_destroy(cuzk_gpu_ntt *t); /* NULL is a no-op */

/* The transform `kind` of a[0 .. n) in host memory, in place, through the
 * device (whole or in chunks, see above).  CUZK_ERR_ARG if n is not a power
 * of two up to 2^27, or larger than the chunked path can split (rows of
 * 2^ceil(log2(n)/2) elements must fit in mem_limit: n <= E^2 with E the
 * elements it holds). */
CUZK_MUST_CHECK int cuzk_gpu_ntt_run(cuzk_gpu_ntt *t, cuzk_gpu_ntt_kind kind, cuzk_fr *a, size_t n, char *err,
                                     size_t err_len);

/* The same on a device buffer holding 2^log_n elements from its start, in
 * place, enqueued on the default queue (not finished: read the buffer on
 * that queue, or finish it). */
CUZK_MUST_CHECK int cuzk_gpu_ntt_run_buf(cuzk_gpu_ntt *t, cuzk_gpu_ntt_kind kind, cuzk_gpu_buf *a, unsigned log_n,
                                         char *err, size_t err_len);

/* cuzk_groth16_backend.h_poly on the device, ctx = a cuzk_gpu_ntt: a, b, c
 * hold n evaluations each and room for m = 2^log_m; on return a[0 .. m)
 * holds H's coefficients (a[m-1] = 0), equal to the CPU backend's.  b and c
 * are clobbered (the device path leaves them as they were).  par runs the
 * host's bit reversals of the chunked path (may be NULL).  On failure the
 * message is in cuzk_gpu_ntt_error(ctx). */
CUZK_MUST_CHECK int cuzk_gpu_h_poly(void *ctx, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, size_t n, unsigned log_m,
                                    cuzk_par *par);
/* cuzk_groth16_backend.h_poly_lean on the device: the same H from a and b,
 * fill_c(fill_ctx, b, n) asked for C once A*B is formed (on the device,
 * while the device path holds only a and b: 64 m bytes), then C's
 * transforms and the quotient.  Equal to the CPU backend's h_poly_lean. */
CUZK_MUST_CHECK int cuzk_gpu_h_poly_lean(void *ctx, cuzk_fr *a, cuzk_fr *b, size_t n, unsigned log_m,
                                         int (*fill_c)(void *, cuzk_fr *, size_t), void *fill_ctx, cuzk_par *par);
/* The message of the last failed cuzk_gpu_h_poly or _lean ("" if none). */
const char *cuzk_gpu_ntt_error(const cuzk_gpu_ntt *t);

#ifdef __cplusplus
}
#endif
#endif
