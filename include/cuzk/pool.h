/* A fixed pthread worker pool that implements cuzk_par (cuzk/par.h).
 *
 * The math layers never create threads; the engine and the tools own pools
 * and hand cuzk_pool_par(pool) to them.  A pool of T threads starts T-1
 * workers at create time: the thread that calls for_each works on its own
 * job too, so T tasks run at once.  Threads live until destroy; between jobs
 * they sleep on a condition variable (no spinning).
 *
 * Rules:
 *  - for_each(fn, arg, n) runs fn(arg, i) exactly once for every i < n and
 *    returns when all of them have returned (cuzk/par.h).  Indices are handed
 *    out one at a time from a shared counter, so tasks of uneven length
 *    balance themselves; make n a few times the thread count.
 *  - Concurrent use: several threads may call for_each on the same pool; the
 *    jobs run one after another (a second caller waits for the first job).
 *  - Nested use: a task that calls for_each on the pool it runs in does not
 *    deadlock: the inner loop runs serially on that thread.
 *  - destroy must not race with for_each (the owner stops using the pool
 *    first); it wakes the workers and joins them. */
#ifndef CUZK_POOL_H
#define CUZK_POOL_H

#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_pool cuzk_pool;

/* Largest thread count a pool accepts. */
#define CUZK_POOL_MAX_THREADS 1024u

/* *out = a pool running nthreads tasks at once (1 <= nthreads <=
 * CUZK_POOL_MAX_THREADS; 1 creates no thread).  Returns CUZK_OK,
 * CUZK_ERR_ARG, or CUZK_ERR_NOMEM (allocation or thread creation failed;
 * nothing is left running). */
CUZK_MUST_CHECK int cuzk_pool_create(cuzk_pool **out, unsigned nthreads);
/* Stops and joins the workers and frees the pool; NULL is a no-op. */
void cuzk_pool_destroy(cuzk_pool *pool);
/* The pool as a cuzk_par; valid until destroy. */
cuzk_par *cuzk_pool_par(cuzk_pool *pool);
unsigned cuzk_pool_threads(const cuzk_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
