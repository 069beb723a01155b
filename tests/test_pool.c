/* Worker pool tests: exactly-once execution, real concurrency, nested and
 * concurrent callers, many back-to-back jobs, argument errors, shutdown. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/pool.h"
#include "cuzk/status.h"
#include "harness.h"

struct count_job {
    atomic_int *hits;
    size_t n;
    atomic_int out_of_range;
};

static void count_task(void *arg, size_t i)
{
    struct count_job *job = arg;
    if (i >= job->n) {
        atomic_fetch_add(&job->out_of_range, 1);
        return;
    }
    atomic_fetch_add(&job->hits[i], 1);
}

/* Runs for_each over n indices and checks each ran exactly once. */
static void check_once(cuzk_par *par, size_t n)
{
    struct count_job job;
    job.hits = calloc(n ? n : 1, sizeof *job.hits);
    job.n = n;
    atomic_init(&job.out_of_range, 0);
    if (!job.hits) {
        CHECK(0);
        return;
    }
    cuzk_par_for(par, count_task, &job, n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += atomic_load(&job.hits[i]) != 1;
    CHECK(bad == 0);
    CHECK(atomic_load(&job.out_of_range) == 0);
    free(job.hits);
}

static void test_exactly_once(void)
{
    unsigned threads[] = {1, 2, 3, 4, 8};
    size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 100003};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        cuzk_pool *p;
        CHECK(cuzk_pool_create(&p, threads[t]) == CUZK_OK);
        if (!p) return;
        CHECK(cuzk_pool_threads(p) == threads[t]);
        CHECK(cuzk_pool_par(p)->nthreads == threads[t]);
        CHECK(cuzk_par_threads(cuzk_pool_par(p)) == threads[t]);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            check_once(cuzk_pool_par(p), sizes[s]);
            /* the raw entry point too, not only through cuzk_par_for */
            struct count_job job;
            atomic_int hits[5] = {0};
            job.hits = hits;
            job.n = 5;
            atomic_init(&job.out_of_range, 0);
            cuzk_pool_par(p)->for_each(cuzk_pool_par(p), count_task, &job, 5);
            for (int i = 0; i < 5; i++) CHECK(atomic_load(&hits[i]) == 1);
        }
        cuzk_pool_destroy(p);
    }
    check_once(NULL, 100); /* NULL par: serial */
}

/* n tasks that each wait until all n have started: passes only if the pool
 * really runs n tasks at once (a serial pool times out). */
struct rendezvous {
    atomic_int started;
    int n;
    atomic_int timed_out;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void rendezvous_task(void *arg, size_t i)
{
    struct rendezvous *r = arg;
    atomic_fetch_add(&r->started, 1);
    double t0 = now_s();
    while (atomic_load(&r->started) < r->n) {
        if (now_s() - t0 > 10.0) {
            atomic_fetch_add(&r->timed_out, 1);
            return;
        }
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

static void test_concurrency(void)
{
    for (int t = 2; t <= 4; t++) {
        cuzk_pool *p;
        CHECK(cuzk_pool_create(&p, (unsigned)t) == CUZK_OK);
        if (!p) return;
        struct rendezvous r = {.n = t};
        atomic_init(&r.started, 0);
        atomic_init(&r.timed_out, 0);
        cuzk_par_for(cuzk_pool_par(p), rendezvous_task, &r, (size_t)t);
        CHECK(atomic_load(&r.timed_out) == 0);
        CHECK(atomic_load(&r.started) == t);
        cuzk_pool_destroy(p);
    }
}

/* A task calling for_each on its own pool runs the inner loop inline. */
struct nested {
    cuzk_par *par;
    atomic_int *hits; /* outer * INNER */
};
enum { OUTER = 16, INNER = 33 };

struct inner_arg {
    atomic_int *row;
};

static void inner_task(void *arg, size_t j)
{
    struct inner_arg *a = arg;
    atomic_fetch_add(&a->row[j], 1);
}

static void outer_task(void *arg, size_t i)
{
    struct nested *nj = arg;
    struct inner_arg a = {nj->hits + i * INNER};
    cuzk_par_for(nj->par, inner_task, &a, INNER);
}

static void test_nested(void)
{
    cuzk_pool *p;
    CHECK(cuzk_pool_create(&p, 3) == CUZK_OK);
    if (!p) return;
    atomic_int hits[OUTER * INNER];
    for (int i = 0; i < OUTER * INNER; i++) atomic_init(&hits[i], 0);
    struct nested nj = {cuzk_pool_par(p), hits};
    cuzk_par_for(nj.par, outer_task, &nj, OUTER);
    int bad = 0;
    for (int i = 0; i < OUTER * INNER; i++) bad += atomic_load(&hits[i]) != 1;
    CHECK(bad == 0);
    cuzk_pool_destroy(p);
}

/* Several external threads share one pool; their jobs serialize. */
struct caller_arg {
    cuzk_par *par;
    int rounds;
    int failures;
};

static void *caller_main(void *vp)
{
    struct caller_arg *c = vp;
    for (int r = 0; r < c->rounds; r++) {
        size_t n = 1 + (size_t)(r * 7 % 50);
        atomic_int hits[64];
        for (size_t i = 0; i < n; i++) atomic_init(&hits[i], 0);
        struct count_job job;
        job.hits = hits;
        job.n = n;
        atomic_init(&job.out_of_range, 0);
        cuzk_par_for(c->par, count_task, &job, n);
        for (size_t i = 0; i < n; i++) c->failures += atomic_load(&hits[i]) != 1;
        c->failures += atomic_load(&job.out_of_range);
    }
    return NULL;
}

static void test_concurrent_callers(void)
{
    cuzk_pool *p;
    CHECK(cuzk_pool_create(&p, 3) == CUZK_OK);
    if (!p) return;
    enum { CALLERS = 4 };
    pthread_t th[CALLERS];
    struct caller_arg args[CALLERS];
    for (int i = 0; i < CALLERS; i++) {
        args[i] = (struct caller_arg){cuzk_pool_par(p), 300 * test_iterations, 0};
        CHECK(pthread_create(&th[i], NULL, caller_main, &args[i]) == 0);
    }
    for (int i = 0; i < CALLERS; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].failures == 0);
    }
    cuzk_pool_destroy(p);
}

/* Many tiny jobs back to back: stresses the hand-over between jobs (a late
 * worker must never run an old job's function with a new job's index). */
struct tagged {
    atomic_int *hits;
    size_t n;
    int tag;
    atomic_int *wrong_tag;
    const int *current;
};

static void tagged_task(void *arg, size_t i)
{
    struct tagged *t = arg;
    /* ~1 us of work so that woken workers take part in most jobs */
    for (volatile int k = 0; k < 300; k++) {
    }
    if (t->tag != *t->current || i >= t->n) atomic_fetch_add(t->wrong_tag, 1);
    else atomic_fetch_add(&t->hits[i], 1);
}

static void test_back_to_back(void)
{
    cuzk_pool *p;
    CHECK(cuzk_pool_create(&p, 4) == CUZK_OK);
    if (!p) return;
    atomic_int hits[8], wrong;
    atomic_init(&wrong, 0);
    int current = 0, bad = 0;
    int rounds = 20000 * test_iterations;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 8; i++) atomic_init(&hits[i], 0);
        current = r;
        struct tagged t = {hits, 1 + (size_t)(r % 8), r, &wrong, &current};
        cuzk_par_for(cuzk_pool_par(p), tagged_task, &t, t.n);
        for (size_t i = 0; i < t.n; i++) bad += atomic_load(&hits[i]) != 1;
    }
    CHECK(bad == 0);
    CHECK(atomic_load(&wrong) == 0);
    cuzk_pool_destroy(p);
}

static void test_create_destroy(void)
{
    cuzk_pool *p = (cuzk_pool *)1;
    CHECK(cuzk_pool_create(&p, 0) == CUZK_ERR_ARG);
    CHECK(p == NULL);
    CHECK(cuzk_pool_create(&p, CUZK_POOL_MAX_THREADS + 1) == CUZK_ERR_ARG);
    CHECK(cuzk_pool_create(NULL, 2) == CUZK_ERR_ARG);
    CHECK(cuzk_pool_par(NULL) == NULL);
    CHECK(cuzk_pool_threads(NULL) == 0);
    cuzk_pool_destroy(NULL);
    /* idle pools and pools that ran one job shut down cleanly */
    for (int i = 0; i < 50; i++) {
        CHECK(cuzk_pool_create(&p, 1 + (unsigned)(i % 5)) == CUZK_OK);
        if (!p) return;
        if (i & 1) check_once(cuzk_pool_par(p), 10);
        cuzk_pool_destroy(p);
    }
}

static const test_case tests[] = {
    {"exactly_once", test_exactly_once},
    {"concurrency", test_concurrency},
    {"nested", test_nested},
    {"concurrent_callers", test_concurrent_callers},
    {"back_to_back", test_back_to_back},
    {"create_destroy", test_create_destroy},
};

TEST_MAIN(tests)
