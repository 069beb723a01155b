/* Multi-scalar multiplication on a device of the device layer (cuzk/gpu.h):
 *   out = sum_i k_i * P_i over G1 or G2,
 * with the CPU MSM's contract (cuzk/msm.h): affine bases (infinity =
 * (0, 0), contributing nothing), cuzk_fr scalars in Montgomery form, and
 * bellperson's density -- the j-th variable whose density bit is set uses
 * bases[j]; density == NULL: bases[i] goes with scalars[i].  The result is
 * the same point as cuzk_msm_g1 / cuzk_msm_g2 give (its Jacobian
 * coordinates may differ: compare after normalizing).
 *
 * Algorithm (docs/gpu.md "MSM on the device"): the host walks the variables once and, with
 * the 0/1 split on, skips scalars equal to 0, lists the bases of scalars
 * equal to 1 (summed on the device by a tree of additions) and sends the
 * rest, the "tail", through Pippenger on the device: signed c-bit window
 * digits, a counting sort of (term, window) pairs by bucket, bucket sums
 * split into bounded pieces, bucket reduction by running sums over
 * segments, window sums by a tree; the host combines the windows.  With the
 * split off every present variable goes through Pippenger (the dense H
 * query: no host pass over the scalars when density is NULL); by default
 * a sample of the scalars decides.
 *
 * Chunks: bases are uploaded in ranges of at most chunk_bases (from the
 * options, else sized from the device's memory), each range's variables
 * processed as one pass, the passes' results added on the host -- so an
 * input larger than device memory works, and equals the unchunked result.
 *
 * Threads: a cuzk_gpu_msm is used by one thread at a time (it holds kernel
 * objects and grow-only device buffers, reused from call to call); open one
 * per worker thread on the same cuzk_gpu.  No threads are created here. */
#ifndef CUZK_GPU_MSM_H
#define CUZK_GPU_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec.h"
#include "cuzk/gpu.h"
#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_msm cuzk_gpu_msm;

typedef enum {
    CUZK_GPU_MSM_SPLIT_AUTO = 0, /* the default: on when at least 1 in 8 of 256
                                  * variables sampled across the vector has
                                  * scalar 0 or 1 (witness vectors: L, A, B),
                                  * off otherwise (the H query's random values) */
    CUZK_GPU_MSM_SPLIT_ON,       /* 0 skipped, 1 summed, the rest Pippenger */
    CUZK_GPU_MSM_SPLIT_OFF,      /* every present variable through Pippenger */
} cuzk_gpu_msm_split;

/* What one call did (optional out, for tests and benchmarks). */
typedef struct {
    size_t zeros, ones, tail; /* present variables by class (split off: all tail) */
    size_t chunks;            /* device passes */
    unsigned window;          /* c of the largest tail pass (0: no tail) */
    int split;                /* 1 if the 0/1 split was on */
} cuzk_gpu_msm_stats;

typedef struct {
    size_t chunk_bases; /* most bases per device pass; 0: from device memory */
    cuzk_gpu_msm_split split;
    unsigned window;           /* c in 2..20; 0: the cost model */
    cuzk_gpu_msm_stats *stats; /* optional out */
    cuzk_par *par;             /* host threads for the walk over the scalars
                                * (density, 0/1 split); NULL: the calling thread */
} cuzk_gpu_msm_opts;

/* Largest chunk_bases a pass takes (offsets on the device are 32-bit). */
#define CUZK_GPU_MSM_MAX_CHUNK ((size_t)1 << 27)

/* A context on device g (which must outlive it): gets the MSM kernels of
 * g's program.  CUZK_ERR_ARG if the program lacks them (an old cached
 * binary cannot: the cache key is the source's hash). */
CUZK_MUST_CHECK int cuzk_gpu_msm_create(cuzk_gpu_msm **out, cuzk_gpu *g, char *err, size_t err_len);
void cuzk_gpu_msm_free(cuzk_gpu_msm *m); /* NULL is a no-op */

/* out = sum over variables i < nvars with density bit set of
 * scalars[i] * (next base).  opts may be NULL (defaults).  CUZK_OK;
 * CUZK_ERR_ARG (NULL pointer with a nonzero count, nvars >
 * CUZK_MSM_MAX_TERMS, fewer bases than set bits, a window out of range);
 * CUZK_ERR_NOMEM (device or host memory: a smaller chunk_bases may fit);
 * CUZK_ERR_IO (a device failure).  nvars == 0 gives infinity. */
CUZK_MUST_CHECK int cuzk_gpu_msm_g1(cuzk_gpu_msm *m, cuzk_g1 *out, const cuzk_g1_affine *bases, size_t nbases,
                                    const cuzk_fr *scalars, size_t nvars, const uint64_t *density,
                                    const cuzk_gpu_msm_opts *opts, char *err, size_t err_len);
CUZK_MUST_CHECK int cuzk_gpu_msm_g2(cuzk_gpu_msm *m, cuzk_g2 *out, const cuzk_g2_affine *bases, size_t nbases,
                                    const cuzk_fr *scalars, size_t nvars, const uint64_t *density,
                                    const cuzk_gpu_msm_opts *opts, char *err, size_t err_len);

/* The shapes of cuzk_groth16_backend.msm_g1 / msm_g2 (ctx: a
 * cuzk_gpu_msm; par: the host walk's threads), default options.
 * The message of a failure is kept in the context:
 * cuzk_gpu_msm_last_error. */
CUZK_MUST_CHECK int cuzk_gpu_msm_backend_g1(void *ctx, cuzk_g1 *r, const cuzk_g1_affine *bases, size_t nbases,
                                            const cuzk_fr *s, size_t nvars, const uint64_t *density,
                                            cuzk_par *par);
CUZK_MUST_CHECK int cuzk_gpu_msm_backend_g2(void *ctx, cuzk_g2 *r, const cuzk_g2_affine *bases, size_t nbases,
                                            const cuzk_fr *s, size_t nvars, const uint64_t *density,
                                            cuzk_par *par);
const char *cuzk_gpu_msm_last_error(const cuzk_gpu_msm *m);

#ifdef __cplusplus
}
#endif
#endif
