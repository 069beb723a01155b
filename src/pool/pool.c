/* Worker pool behind cuzk_par (see cuzk/pool.h for the rules).
 *
 * One job at a time.  A job is (fn, arg, n) plus two counters: `next`, the
 * next index to hand out, and `pending`, the indices not yet finished.  The
 * caller publishes a job under the mutex and bumps `generation`; sleeping
 * workers wake, copy the job and count themselves in `active`, then every
 * participant (the caller too) claims indices with one atomic add each until
 * they run out.  The caller returns once `pending` reaches zero.
 *
 * Why `active` exists: a worker that woke late may still be between copying
 * a finished job and its failed claim.  If the next job reset `next` at that
 * moment, the straggler would run the old fn with a new index.  So a new job
 * is published only when no worker is inside the previous one. */
#include "cuzk/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cuzk/status.h"

struct cuzk_pool {
    cuzk_par par;
    unsigned nthreads;
    unsigned nworkers; /* threads started (nthreads - 1 when healthy) */
    pthread_t *workers;
    pthread_mutex_t caller; /* serializes for_each callers */
    pthread_mutex_t m;      /* guards everything below except the atomics */
    pthread_cond_t wake;    /* workers: new generation or shutdown */
    pthread_cond_t idle;    /* callers: pending hit 0 or active hit 0 */
    cuzk_task_fn fn;
    void *arg;
    size_t n;
    atomic_size_t next;
    atomic_size_t pending;
    unsigned long generation;
    unsigned active;
    int shutdown;
};

/* The pool whose task this thread is running (nested for_each detection). */
static _Thread_local cuzk_pool *current_pool;

static size_t run_tasks(cuzk_pool *p, cuzk_task_fn fn, void *arg, size_t n)
{
    size_t done = 0;
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= n) break;
        fn(arg, i);
        done++;
    }
    return done;
}

static void *worker_main(void *vp)
{
    cuzk_pool *p = vp;
    unsigned long seen = 0;
    current_pool = p;
    pthread_mutex_lock(&p->m);
    for (;;) {
        while (!p->shutdown && p->generation == seen) pthread_cond_wait(&p->wake, &p->m);
        if (p->shutdown) break;
        seen = p->generation;
        cuzk_task_fn fn = p->fn;
        void *arg = p->arg;
        size_t n = p->n;
        p->active++;
        pthread_mutex_unlock(&p->m);

        size_t done = run_tasks(p, fn, arg, n);

        pthread_mutex_lock(&p->m);
        /* release: the tasks' writes happen before the caller sees 0 */
        size_t left = atomic_fetch_sub_explicit(&p->pending, done, memory_order_acq_rel) - done;
        p->active--;
        if (left == 0 || p->active == 0) pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->m);
    return NULL;
}

static void pool_for_each(cuzk_par *par, cuzk_task_fn fn, void *arg, size_t n)
{
    cuzk_pool *p = par->impl;
    if (n == 0) return;
    if (current_pool == p || p->nworkers == 0 || n == 1) {
        /* nested call from one of our own tasks, or nothing to share */
        for (size_t i = 0; i < n; i++) fn(arg, i);
        return;
    }
    pthread_mutex_lock(&p->caller);
    pthread_mutex_lock(&p->m);
    while (p->active) pthread_cond_wait(&p->idle, &p->m);
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->pending, n, memory_order_relaxed);
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->m);

    cuzk_pool *saved = current_pool;
    current_pool = p;
    size_t done = run_tasks(p, fn, arg, n);
    current_pool = saved;

    pthread_mutex_lock(&p->m);
    atomic_fetch_sub_explicit(&p->pending, done, memory_order_acq_rel);
    while (atomic_load_explicit(&p->pending, memory_order_acquire) != 0)
        pthread_cond_wait(&p->idle, &p->m);
    pthread_mutex_unlock(&p->m);
    pthread_mutex_unlock(&p->caller);
}

static void stop_workers(cuzk_pool *p)
{
    pthread_mutex_lock(&p->m);
    p->shutdown = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->m);
    for (unsigned i = 0; i < p->nworkers; i++) pthread_join(p->workers[i], NULL);
    p->nworkers = 0;
}

static void free_pool(cuzk_pool *p)
{
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->m);
    pthread_mutex_destroy(&p->caller);
    free(p->workers);
    free(p);
}

int cuzk_pool_create(cuzk_pool **out, unsigned nthreads)
{
    if (!out) return CUZK_ERR_ARG;
    *out = NULL;
    if (nthreads < 1 || nthreads > CUZK_POOL_MAX_THREADS) return CUZK_ERR_ARG;
    cuzk_pool *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ERR_NOMEM;
    p->workers = calloc(nthreads, sizeof *p->workers);
    if (!p->workers) {
        free(p);
        return CUZK_ERR_NOMEM;
    }
    pthread_mutex_init(&p->caller, NULL);
    pthread_mutex_init(&p->m, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->idle, NULL);
    atomic_init(&p->next, 0);
    atomic_init(&p->pending, 0);
    p->nthreads = nthreads;
    p->par.for_each = pool_for_each;
    p->par.nthreads = nthreads;
    p->par.impl = p;
    for (unsigned i = 0; i + 1 < nthreads; i++) {
        if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
            stop_workers(p);
            free_pool(p);
            return CUZK_ERR_NOMEM;
        }
        p->nworkers++;
    }
    *out = p;
    return CUZK_OK;
}

void cuzk_pool_destroy(cuzk_pool *pool)
{
    if (!pool) return;
    stop_workers(pool);
    free_pool(pool);
}

cuzk_par *cuzk_pool_par(cuzk_pool *pool) { return pool ? &pool->par : NULL; }

unsigned cuzk_pool_threads(const cuzk_pool *pool) { return pool ? pool->nthreads : 0; }
