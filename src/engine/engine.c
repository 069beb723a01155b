/* Engine lifecycle and the job API: create/destroy, provider registry,
 * await, cancel, shutdown, the job table, ending jobs, freeing their inputs
 * and reaping.  submit lives in submit.c, scheduling in sched.c; see
 * engine_internal.h for locking. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine_internal.h"

uint64_t cuzk_eng_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Absolute CLOCK_MONOTONIC deadline for pthread_cond_timedwait (every
 * condition variable here is created with that clock: wall-clock jumps
 * must not stretch or cut awaits). */
void cuzk_eng_timeout_at(struct timespec *ts, uint64_t ms_from_now)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)(ms_from_now / 1000u);
    ts->tv_nsec += (long)(ms_from_now % 1000u) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* ---- job table ------------------------------------------------------------ */

static unsigned id_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h % ENGINE_HASH;
}

job *cuzk_eng_find_locked(cuzk_engine *e, const char *id)
{
    for (job *j = e->table[id_hash(id)]; j; j = j->hnext)
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

void cuzk_eng_table_insert_locked(cuzk_engine *e, job *j)
{
    unsigned h = id_hash(j->id);
    j->hnext = e->table[h];
    e->table[h] = j;
}

void cuzk_eng_table_remove_locked(cuzk_engine *e, job *j)
{
    job **pp = &e->table[id_hash(j->id)];
    while (*pp && *pp != j)
        pp = &(*pp)->hnext;
    if (*pp) *pp = j->hnext;
    j->hnext = NULL;
}

/* The decoded request (the provider's state) is needed only while some
 * partition may still synthesize or verify: free it as soon as the job has
 * ended and no worker holds one of its parts, and give its bytes back to
 * memory.request_budget.  Only the result is retained.  free_state only
 * frees (engine.h), so calling it under mu is cheap. */
void cuzk_eng_job_inputs_free_locked(cuzk_engine *e, job *j)
{
    if (j->status == CUZK_JOB_UNKNOWN || j->n_inflight || j->parsing) return;
    if (j->state && j->prov.free_state) j->prov.free_state(j->prov.ctx, j->state);
    j->state = NULL;
    e->req_reserved -= j->req_bytes;
    j->req_bytes = 0;
}

void cuzk_eng_free_job_locked(cuzk_engine *e, job *j)
{
    if (j->parts)
        for (size_t k = 0; k < j->nparts; k++) {
            cuzk_cs_free(j->parts[k].cs);
            for (int q = 0; q < 3; q++)
                free(j->parts[k].ev[q]);
        }
    if (j->state && j->prov.free_state) j->prov.free_state(j->prov.ctx, j->state);
    e->req_reserved -= j->req_bytes;
    free(j->parts);
    free(j->proof);
    free(j);
}

/* ---- ended records ---------------------------------------------------------- */

static void ended_append_locked(cuzk_engine *e, job *j)
{
    j->eprev = e->ended_tail;
    j->enext = NULL;
    if (e->ended_tail)
        e->ended_tail->enext = j;
    else
        e->ended_head = j;
    e->ended_tail = j;
    j->in_ended = true;
    e->n_ended++;
}

static void ended_remove_locked(cuzk_engine *e, job *j)
{
    if (!j->in_ended) return;
    if (j->eprev)
        j->eprev->enext = j->enext;
    else
        e->ended_head = j->enext;
    if (j->enext)
        j->enext->eprev = j->eprev;
    else
        e->ended_tail = j->eprev;
    j->eprev = j->enext = NULL;
    j->in_ended = false;
    e->n_ended--;
}

void cuzk_eng_unlink_job_locked(cuzk_engine *e, job *j)
{
    cuzk_eng_table_remove_locked(e, j);
    ended_remove_locked(e, j);
    if (j->prev)
        j->prev->next = j->next;
    else
        e->jobs_head = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        e->jobs_tail = j->prev;
}

/* An ended record nobody holds: no caller waits on it, no worker has one
 * of its parts, no submit is parsing into it. */
static bool ended_free_to_drop(const job *j)
{
    return !j->waiters && !j->n_inflight && !j->parsing;
}

/* Results are kept result_retention_ms after the end; a job is never freed
 * while a caller waits on it or a worker still holds one of its parts. */
void cuzk_eng_reap_locked(cuzk_engine *e, uint64_t now)
{
    for (job *j = e->ended_head, *nx; j; j = nx) {
        nx = j->enext;
        if (ended_free_to_drop(j) && now - j->t_end >= e->cfg.result_retention_ms) {
            cuzk_eng_unlink_job_locked(e, j);
            cuzk_log(CUZK_LOG_DEBUG, j->id, "result reaped");
            cuzk_eng_free_job_locked(e, j);
        }
    }
}

/* Failed submits end at once and each keeps a ~1 KB record for the whole
 * retention (5 min), outside scheduler.max_queued_jobs: without a cap a
 * client sending garbage could grow the table (and every walk of it: the
 * status page, the batch collector) without bound.  Oldest end first; a
 * held record is skipped and dropped by a later call. */
void cuzk_eng_ended_trim_locked(cuzk_engine *e)
{
    for (job *j = e->ended_head, *nx; j && e->n_ended > e->cfg.max_ended_jobs; j = nx) {
        nx = j->enext;
        if (!ended_free_to_drop(j)) continue;
        cuzk_eng_unlink_job_locked(e, j);
        if (!e->n_ended_dropped++)
            cuzk_log(CUZK_LOG_WARN, j->id,
                     "more than scheduler.max_ended_jobs = %u ended jobs: the oldest records are dropped "
                     "before their retention (AwaitProof on them answers NOT_FOUND); logged once",
                     e->cfg.max_ended_jobs);
        cuzk_eng_free_job_locked(e, j);
    }
}

/* ---- ending jobs and releasing parts ---------------------------------------- */

void cuzk_eng_end_job_locked(cuzk_engine *e, job *j, cuzk_job_status st, const char *fmt, ...)
{
    if (j->status != CUZK_JOB_UNKNOWN) return; /* ends exactly once */
    j->status = st;
    atomic_store(&j->ended, true);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->error, sizeof j->error, fmt, ap);
        va_end(ap);
    }
    uint64_t now = cuzk_eng_now_ms();
    j->t_end = now;
    j->t.total_ms = now - j->t_submit;
    if (!j->t_start) j->t.queue_wait_ms = j->t.total_ms;
    j->end_seq = ++e->end_seq;
    e->n_live--;
    ended_append_locked(e, j);
    if (j->in_ready) cuzk_eng_ready_remove_locked(e, j);
    cuzk_eng_proveq_drop_job_locked(e, j);
    if (st != CUZK_JOB_COMPLETED) {
        free(j->proof);
        j->proof = NULL;
    }
    cuzk_eng_stats_record_locked(e, j);
    cuzk_eng_history_record_locked(e, j);
    cuzk_eng_job_inputs_free_locked(e, j);
    if (st == CUZK_JOB_COMPLETED)
        cuzk_log(CUZK_LOG_INFO, j->id,
                 "%s COMPLETED: %zu partition(s), total %llu ms "
                 "(queue %llu, srs %llu, synth %llu, prove %llu, verify %llu)",
                 cuzk_proof_kind_name(j->kind), j->nparts, (unsigned long long)j->t.total_ms,
                 (unsigned long long)j->t.queue_wait_ms, (unsigned long long)j->t.srs_load_ms,
                 (unsigned long long)j->t.synthesis_ms, (unsigned long long)j->t.prove_ms,
                 (unsigned long long)j->t.verify_ms);
    else
        cuzk_log(st == CUZK_JOB_FAILED ? CUZK_LOG_WARN : CUZK_LOG_INFO, j->id, "%s %s: %s",
                 cuzk_proof_kind_name(j->kind), cuzk_job_status_name(st), j->error);
    pthread_cond_broadcast(&e->cv_done);
    pthread_cond_broadcast(&e->cv_work);
}

/* A part leaves the pipeline (proved or dropped): give back its memory
 * reservation and SRS reference. */
/* The part's big vectors as one set for the buffer pool (bufpool.c): the
 * cs's aux assignment, the lean form's A and B, and whatever the pool lent
 * that nobody used; everything else is freed. */
static void part_buffers_collect(part *p, cuzk_cs_buffers *b)
{
    cuzk_cs_take_buffers(p->cs, b); /* zeroed when there is no cs */
    cuzk_cs_free(p->cs);
    p->cs = NULL;
    for (int q = 0; q < 3; q++) { /* direct form's (never PCE'd) evaluations: not pooled */
        free(b->ev[q]);
        b->ev[q] = NULL;
    }
    b->ev_cap = 0;
    /* the lean form's A and B are exactly the domain size (lean_ab); the
     * evaluations the prover took in the direct form may be shorter
     * (take_evals could not grow them), so only the lean ones are kept */
    if (p->lean.pce && p->ev[0] && p->ev[1] && p->srs && p->srs->params) {
        b->ev[0] = p->ev[0];
        b->ev[1] = p->ev[1];
        p->ev[0] = p->ev[1] = NULL;
        b->ev_cap = cuzk_groth16_params_count(p->srs->params, CUZK_G16_H) + 1;
    } else if (p->bufs.ev[0] && p->bufs.ev[1]) { /* lent, not used */
        b->ev[0] = p->bufs.ev[0];
        b->ev[1] = p->bufs.ev[1];
        b->ev_cap = p->bufs.ev_cap;
        p->bufs.ev[0] = p->bufs.ev[1] = NULL;
    }
    if (b->aux_cap < p->bufs.aux_cap) { /* lent but not used: keep the larger */
        free(b->aux);
        b->aux = p->bufs.aux;
        b->aux_cap = p->bufs.aux_cap;
        p->bufs.aux = NULL;
    }
    cuzk_cs_buffers_free(&p->bufs);
    for (int q = 0; q < 3; q++) {
        free(p->ev[q]);
        p->ev[q] = NULL;
    }
}

void cuzk_eng_part_release_locked(cuzk_engine *e, part *p)
{
    cuzk_cs_buffers b;
    part_buffers_collect(p, &b);
    if (p->srs) cuzk_eng_srs_release_locked(e, p->srs);
    p->srs = NULL;
    e->mem_reserved -= p->reserved;
    p->reserved = 0;
    cuzk_eng_pool_put_locked(e, p->j->circuit_id, &b); /* after the reservation is returned: it may fit now */
    p->j->n_inflight--;
    if (p->state != P_DONE) p->state = P_DROPPED;
    cuzk_eng_job_inputs_free_locked(e, p->j);
    pthread_cond_broadcast(&e->cv_work);
}

/* ---- lifecycle ----------------------------------------------------------------- */

/* create, phase 1: the configuration is one the engine can run. */
static int check_config(const cuzk_engine_config *cfg, char *err, size_t err_len)
{
    if (cfg->max_batch_size < 1 || cfg->max_batch_size > 1024)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "scheduler.max_batch_size = %u: must be 1..1024",
                         cfg->max_batch_size);
    if (cfg->synthesis_threads > ENGINE_MAX_SYNTH)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "synthesis.threads = %u: must be 0 (one per CPU) or 1..%u", cfg->synthesis_threads,
                         ENGINE_MAX_SYNTH);
    if (cfg->prover_threads < 1 || cfg->prover_threads > CUZK_POOL_MAX_THREADS)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pipeline.prover_threads = %u: must be 1..%u",
                         cfg->prover_threads, CUZK_POOL_MAX_THREADS);
    if (cfg->pipeline_depth < 1)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pipeline.max_pending must be >= 1");
    if (cfg->max_live_jobs < 1)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "scheduler.max_queued_jobs must be >= 1");
    if (cfg->max_ended_jobs < 1)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "scheduler.max_ended_jobs must be >= 1");
    if (cfg->request_budget < (1u << 20))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "memory.request_budget = %llu bytes: must be >= 1 MiB",
                         (unsigned long long)cfg->request_budget);
    return CUZK_OK;
}

/* create, phase 2: derived settings (thread count, memory limit). */
static void derive_limits(cuzk_engine *e)
{
    cuzk_engine_config *cfg = &e->cfg;
    if (!cfg->synthesis_threads) { /* 0 = one per CPU, as synthesis.threads in the Rust daemon */
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        cfg->synthesis_threads = ncpu < 1                        ? 1
                                 : ncpu > (long)ENGINE_MAX_SYNTH ? ENGINE_MAX_SYNTH
                                                                 : (uint32_t)ncpu;
    }
    if (cfg->memory_total_budget) {
        e->mem_limit = cfg->memory_total_budget;
    } else {
        struct sysinfo si;
        uint64_t ram = sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 0;
        e->mem_limit =
            ram > cfg->memory_safety_margin + (256ull << 20) ? ram - cfg->memory_safety_margin : 256ull << 20;
    }
}

/* create, phase 3: lock and condition variables (all on CLOCK_MONOTONIC). */
static int init_sync(cuzk_engine *e, char *err, size_t err_len)
{
    pthread_condattr_t ca;
    if (pthread_mutex_init(&e->mu, NULL))
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: cannot initialize its mutex");
    e->sync_init = 1;
    int rc = pthread_condattr_init(&ca);
    if (!rc) rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_t *cv[4] = {&e->cv_work, &e->cv_done, &e->cv_srs, &e->cv_house};
    for (int i = 0; i < 4 && !rc; i++) {
        rc = pthread_cond_init(cv[i], &ca);
        if (!rc) e->sync_init = 2 + i;
    }
    pthread_condattr_destroy(&ca);
    return rc ? cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: cannot initialize condition variables: %s",
                          strerror(rc))
              : CUZK_OK;
}

/* create, phase 4: the prover's pool, the synthesis helpers and the
 * prover workers (devices.c: gpus.*, each worker's backend handle and batch
 * table), made before any thread starts, so that a failure is create's
 * error and never a prover that cannot take work (every job would hang). */
static int alloc_prover(cuzk_engine *e, char *err, size_t err_len)
{
    int st = cuzk_pool_create(&e->pool, e->cfg.prover_threads);
    if (st) {
        e->pool = NULL;
        return cuzk_errf(err, err_len, st, "engine: cannot create the prover pool (%u threads)",
                         e->cfg.prover_threads);
    }
    if (e->cfg.synthesis_threads > 1 && (st = cuzk_pool_create(&e->synth_pool, e->cfg.synthesis_threads))) {
        e->synth_pool = NULL;
        return cuzk_errf(err, err_len, st, "engine: cannot create the synthesis helpers (%u threads)",
                         e->cfg.synthesis_threads);
    }
    return cuzk_eng_devices_open(e, err, err_len);
}

static int start_thread(bool *started, pthread_t *th, void *(*fn)(void *), void *arg)
{
    *started = !pthread_create(th, NULL, fn, arg);
    return *started ? CUZK_OK : CUZK_ERR_NOMEM;
}

/* create, phase 5: synthesis_threads general workers plus one urgent
 * worker that takes CRITICAL work only (a WinningPoSt never waits for a
 * long PoRep partition synthesis to finish before its own can start), the
 * prover, housekeeping. */
static int start_threads(cuzk_engine *e, char *err, size_t err_len)
{
    int st = CUZK_OK;
    e->n_synth_workers = e->cfg.synthesis_threads + 1;
    for (size_t i = 0; i < e->n_synth_workers && !st; i++) {
        worker *w = &e->synth[i];
        w->e = e;
        w->urgent = i == e->cfg.synthesis_threads;
        if (w->urgent)
            snprintf(w->info.name, sizeof w->info.name, "synth-urgent");
        else
            snprintf(w->info.name, sizeof w->info.name, "synth-%zu", i);
        snprintf(w->info.state, sizeof w->info.state, "idle");
        w->info.partition = -1;
        st = start_thread(&w->started, &w->th, cuzk_eng_synth_main, w);
    }
    /* provers[0] is "prover", the CPU (the name engine.h documents), then
     * the device workers (devices.c) */
    for (size_t i = 0; i < e->n_provers && !st; i++)
        st = start_thread(&e->provers[i].started, &e->provers[i].th, cuzk_eng_prover_main, &e->provers[i]);
    if (!st) st = start_thread(&e->house_started, &e->house, cuzk_eng_house_main, e);
    return st ? cuzk_errf(err, err_len, st, "engine: cannot start threads") : CUZK_OK;
}

int cuzk_engine_create(cuzk_engine **out, const cuzk_engine_config *cfg, char *err, size_t err_len)
{
    if (!out || !cfg) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "engine: NULL argument");
    *out = NULL;
    int st = check_config(cfg, err, err_len);
    if (st) return st;
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: out of memory");
    e->cfg = *cfg;
    derive_limits(e);
    cuzk_log_set_level(e->cfg.log_level);
    e->accepting = true;
    e->t_create = cuzk_eng_now_ms();
    if (e->cfg.test_provider) {
        cuzk_engine_test_provider(&e->prov[CUZK_PROOF_TEST]);
        e->has_prov[CUZK_PROOF_TEST] = true;
    }
    st = init_sync(e, err, err_len);
    if (!st) st = alloc_prover(e, err, err_len);
    if (!st) st = cuzk_eng_pce_init(e, err, err_len);
    if (!st && cuzk_eng_pool_init(e)) st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "out of memory");
    if (!st) st = start_threads(e, err, err_len);
    if (st) { /* the one cleanup path: destroy copes with any phase reached */
        cuzk_engine_destroy(e);
        return st;
    }
    cuzk_log(CUZK_LOG_INFO, NULL,
             "engine started: budget %llu MiB, %u synthesis + 1 urgent worker(s), CPU prover pool %u "
             "thread(s), %zu device worker(s), batch <= %u / %u ms, param_cache %s%s",
             (unsigned long long)(e->mem_limit >> 20), e->cfg.synthesis_threads, e->cfg.prover_threads,
             e->n_provers - 1,
             e->cfg.max_batch_size, e->cfg.max_batch_wait_ms, e->cfg.param_cache,
             e->cfg.test_provider ? ", TEST chain provider on" : "");
    if (e->cfg.srs_allow_test_params)
        cuzk_log(CUZK_LOG_WARN, NULL,
                 "srs.allow_test_params is ON: a params file under an official name with a .test marker is "
                 "loaded as TEST params without the parameters.json digest check -- proofs made with it are "
                 "worthless on chain; never set this on a production prover");
    *out = e;
    return CUZK_OK;
}

int cuzk_engine_register(cuzk_engine *e, cuzk_proof_kind kind, const cuzk_engine_provider *p)
{
    if (!e || !p || kind <= CUZK_PROOF_UNSPECIFIED || kind >= CUZK_PROOF_KINDS || !p->parse || !p->srs_file ||
        !p->synthesize)
        return CUZK_ERR_ARG;
    pthread_mutex_lock(&e->mu);
    e->prov[kind] = *p;
    e->has_prov[kind] = true;
    pthread_mutex_unlock(&e->mu);
    cuzk_log(CUZK_LOG_INFO, NULL, "provider %s registered for %s", p->name ? p->name : "?",
             cuzk_proof_kind_name(kind));
    return CUZK_OK;
}

int cuzk_engine_provider_get(cuzk_engine *e, cuzk_proof_kind kind, cuzk_engine_provider *out)
{
    if (!e || !out || kind <= CUZK_PROOF_UNSPECIFIED || kind >= CUZK_PROOF_KINDS) return CUZK_ERR_ARG;
    pthread_mutex_lock(&e->mu);
    bool have = e->has_prov[kind];
    if (have) *out = e->prov[kind];
    pthread_mutex_unlock(&e->mu);
    return have ? CUZK_OK : CUZK_ENGINE_ERR_NOT_FOUND;
}

static size_t count_live_locked(cuzk_engine *e)
{
    return e->n_live;
}

void cuzk_engine_shutdown(cuzk_engine *e, uint32_t grace_ms)
{
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    if (e->shut_down || e->stopping) {
        pthread_mutex_unlock(&e->mu);
        return;
    }
    e->accepting = false;
    cuzk_log(CUZK_LOG_INFO, NULL, "shutdown: %zu job(s) in flight, grace %u ms", count_live_locked(e),
             grace_ms);
    struct timespec dl;
    cuzk_eng_timeout_at(&dl, grace_ms);
    while (count_live_locked(e) > 0)
        if (pthread_cond_timedwait(&e->cv_done, &e->mu, &dl) == ETIMEDOUT) break;
    atomic_store(&e->abort_work, true);
    for (job *j = e->jobs_head; j; j = j->next)
        if (j->status == CUZK_JOB_UNKNOWN && !j->parsing)
            cuzk_eng_end_job_locked(e, j, CUZK_JOB_CANCELLED,
                               "engine shut down before the job finished (grace %u ms)", grace_ms);
    e->stopping = true;
    pthread_cond_broadcast(&e->cv_work);
    pthread_cond_broadcast(&e->cv_house);
    pthread_cond_broadcast(&e->cv_srs);
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < e->n_synth_workers; i++)
        if (e->synth[i].started) pthread_join(e->synth[i].th, NULL);
    for (size_t i = 0; i < e->n_provers; i++)
        if (e->provers[i].started) pthread_join(e->provers[i].th, NULL);
    if (e->house_started) pthread_join(e->house, NULL);
    pthread_mutex_lock(&e->mu);
    /* A submit that was parsing when we stopped ends here (it saw the flag
     * when it came back, or it is still out: it checks `stopping`). */
    e->shut_down = true;
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
    cuzk_log(CUZK_LOG_INFO, NULL, "shutdown complete");
}

/* destroy: callers still inside await (or a submit still parsing) keep
 * the engine alive until they are out. */
static void wait_for_callers(cuzk_engine *e)
{
    pthread_mutex_lock(&e->mu);
    for (;;) {
        bool parsing = false;
        for (job *j = e->jobs_head; j; j = j->next)
            parsing |= j->parsing;
        if (!e->api_waiters && !parsing) break;
        pthread_cond_wait(&e->cv_done, &e->mu);
    }
    pthread_mutex_unlock(&e->mu);
}

static void destroy_sync(cuzk_engine *e)
{
    pthread_cond_t *cv[4] = {&e->cv_work, &e->cv_done, &e->cv_srs, &e->cv_house};
    for (int i = 0; i < 4; i++)
        if (e->sync_init >= 2 + i) pthread_cond_destroy(cv[i]);
    if (e->sync_init >= 1) pthread_mutex_destroy(&e->mu);
}

/* Also create's cleanup path: copes with an engine at any phase of create
 * (sync_init says how far init_sync got; threads not started are not
 * joined). */
void cuzk_engine_destroy(cuzk_engine *e)
{
    if (!e) return;
    if (e->sync_init == 5) {
        cuzk_engine_shutdown(e, e->cfg.shutdown_grace_ms);
        wait_for_callers(e);
    }
    for (job *j = e->jobs_head, *nx; j; j = nx) {
        nx = j->next;
        cuzk_eng_free_job_locked(e, j); /* no other thread is left */
    }
    cuzk_eng_pce_free(e);
    cuzk_eng_pool_free(e);
    cuzk_eng_srs_free_all(e);
    cuzk_pool_destroy(e->pool);
    cuzk_pool_destroy(e->synth_pool);
    cuzk_eng_devices_close(e); /* the threads are joined: the handles are free */
    destroy_sync(e);
    free(e);
}

/* ---- await / cancel --------------------------------------------------------------- */

static void fill_result_locked(cuzk_engine_result *res, const job *j, cuzk_job_status st)
{
    free(res->proof);
    memset(res, 0, sizeof *res);
    snprintf(res->job_id, sizeof res->job_id, "%s", j->id);
    res->status = st;
    res->t = j->t;
    res->end_seq = j->end_seq;
    if (st == CUZK_JOB_COMPLETED && j->proof) {
        res->proof = malloc(j->nparts * CUZK_G16_PROOF_BYTES);
        if (res->proof) {
            memcpy(res->proof, j->proof, j->nparts * CUZK_G16_PROOF_BYTES);
            res->proof_len = j->nparts * CUZK_G16_PROOF_BYTES;
        } else {
            res->status = CUZK_JOB_FAILED;
            snprintf(res->error, sizeof res->error, "await: out of memory copying the proof");
        }
    } else {
        snprintf(res->error, sizeof res->error, "%s", j->error);
    }
}

static int cancel_locked(cuzk_engine *e, job *j, bool *was_running, const char *why)
{
    if (was_running) *was_running = false;
    if (j->status != CUZK_JOB_UNKNOWN) return CUZK_OK;
    if (was_running) *was_running = j->next_part > 0;
    cuzk_eng_end_job_locked(e, j, CUZK_JOB_CANCELLED, "%s", why);
    return CUZK_OK;
}

int cuzk_engine_await_ex(cuzk_engine *e, cuzk_engine_result *res, const char *job_id,
                         const cuzk_engine_await_opts *opts)
{
    if (!e || !res || !job_id || !opts) return CUZK_ERR_ARG;
    pthread_mutex_lock(&e->mu);
    job *j = cuzk_eng_find_locked(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CUZK_ENGINE_ERR_NOT_FOUND;
    }
    j->waiters++;
    e->api_waiters++;
    uint64_t t0 = cuzk_eng_now_ms();
    int rc = CUZK_OK;
    while (j->status == CUZK_JOB_UNKNOWN) {
        uint64_t now = cuzk_eng_now_ms();
        if (opts->abandon && atomic_load(opts->abandon)) {
            rc = CUZK_ENGINE_ERR_ABANDONED;
            break;
        }
        uint64_t wait = UINT64_MAX;
        if (opts->timeout_ms) {
            if (now - t0 >= opts->timeout_ms) break;
            wait = opts->timeout_ms - (now - t0);
        }
        if (opts->abandon && wait > 20) wait = 20;
        if (wait == UINT64_MAX) {
            pthread_cond_wait(&e->cv_done, &e->mu);
        } else {
            struct timespec dl;
            cuzk_eng_timeout_at(&dl, wait);
            pthread_cond_timedwait(&e->cv_done, &e->mu, &dl);
        }
    }
    j->waiters--;
    if (rc == CUZK_ENGINE_ERR_ABANDONED) {
        if (opts->cancel_if_abandoned && !j->waiters)
            cancel_locked(e, j, NULL, "cancelled: the only waiting client went away");
    } else if (j->status == CUZK_JOB_UNKNOWN) {
        fill_result_locked(res, j, CUZK_JOB_TIMEOUT);
        res->t.total_ms = cuzk_eng_now_ms() - j->t_submit;
        snprintf(res->error, sizeof res->error, "await timed out after %llu ms; the job is still running",
                 (unsigned long long)opts->timeout_ms);
    } else {
        fill_result_locked(res, j, j->status);
    }
    e->api_waiters--;
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int cuzk_engine_await(cuzk_engine *e, cuzk_engine_result *res, const char *job_id, uint64_t timeout_ms)
{
    cuzk_engine_await_opts o = {.timeout_ms = timeout_ms};
    return cuzk_engine_await_ex(e, res, job_id, &o);
}

int cuzk_engine_cancel(cuzk_engine *e, bool *was_running, const char *job_id)
{
    if (!e || !job_id) return CUZK_ERR_ARG;
    if (was_running) *was_running = false;
    pthread_mutex_lock(&e->mu);
    job *j = cuzk_eng_find_locked(e, job_id);
    int rc = j ? cancel_locked(e, j, was_running, "cancelled by request") : CUZK_ENGINE_ERR_NOT_FOUND;
    pthread_mutex_unlock(&e->mu);
    return rc;
}

bool cuzk_engine_task_cancelled(const cuzk_engine_task *t)
{
    return t && (atomic_load(&t->j->ended) || atomic_load(&t->e->abort_work));
}

const char *cuzk_engine_task_job_id(const cuzk_engine_task *t)
{
    return t ? t->j->id : "";
}
