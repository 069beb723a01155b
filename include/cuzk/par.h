/* Parallelism without threads in the math library.
 *
 * The math layers (poly, msm, groth16) never create threads: they split work
 * into independent tasks and hand them to a cuzk_par supplied by the caller.
 * The engine implements it with its own worker pool (cuzk/pool.h); passing
 * NULL runs everything on the calling thread.  A GPU backend or a NUMA-aware
 * scheduler can implement the same interface.
 *
 * Contract: for_each runs fn(arg, i) exactly once for every i in [0, n),
 * possibly concurrently and in any order, and returns only when all calls
 * have returned.  fn must not call for_each on the same cuzk_par. */
#ifndef CUZK_PAR_H
#define CUZK_PAR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*cuzk_task_fn)(void *arg, size_t index);

typedef struct cuzk_par {
    void (*for_each)(struct cuzk_par *par, cuzk_task_fn fn, void *arg, size_t n);
    unsigned nthreads; /* how many tasks may run at once (>= 1); a splitting hint */
    void *impl;        /* implementation state */
} cuzk_par;

static inline unsigned cuzk_par_threads(const cuzk_par *par)
{
    return par && par->nthreads > 1 ? par->nthreads : 1;
}

static inline void cuzk_par_for(cuzk_par *par, cuzk_task_fn fn, void *arg, size_t n)
{
    if (!par || par->nthreads <= 1 || n <= 1) {
        for (size_t i = 0; i < n; i++) fn(arg, i);
    } else {
        par->for_each(par, fn, arg, n);
    }
}

#ifdef __cplusplus
}
#endif
#endif
