/* Engine lifecycle and the job API: create/destroy, provider registry,
 * submit (idempotent on request_id), await, cancel, shutdown, reaping.
 * Scheduling itself lives in sched.c; see engine_internal.h for locking. */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine_internal.h"

uint64_t eng_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Absolute CLOCK_MONOTONIC deadline for pthread_cond_timedwait (every
 * condition variable here is created with that clock: wall-clock jumps
 * must not stretch or cut awaits). */
void eng_timeout_at(struct timespec *ts, uint64_t ms_from_now)
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

static job *find_locked(cuzk_engine *e, const char *id)
{
    for (job *j = e->table[id_hash(id)]; j; j = j->hnext)
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

static void free_job(job *j)
{
    if (j->parts)
        for (size_t k = 0; k < j->nparts; k++) {
            cuzk_cs_free(j->parts[k].cs);
            for (int q = 0; q < 3; q++)
                free(j->parts[k].ev[q]);
        }
    if (j->state && j->prov.free_state) j->prov.free_state(j->prov.ctx, j->state);
    free(j->parts);
    free(j->proof);
    free(j);
}

static void unlink_job_locked(cuzk_engine *e, job *j)
{
    job **pp = &e->table[id_hash(j->id)];
    while (*pp && *pp != j)
        pp = &(*pp)->hnext;
    if (*pp) *pp = j->hnext;
    if (j->prev)
        j->prev->next = j->next;
    else
        e->jobs_head = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        e->jobs_tail = j->prev;
}

/* Results are kept result_retention_ms after the end; a job is never freed
 * while a caller waits on it or a worker still holds one of its parts. */
void eng_reap_locked(cuzk_engine *e, uint64_t now)
{
    job *j = e->jobs_head;
    while (j) {
        job *nx = j->next;
        if (j->status != CUZK_JOB_UNKNOWN && !j->waiters && !j->n_inflight && !j->parsing &&
            now - j->t_end >= e->cfg.result_retention_ms) {
            unlink_job_locked(e, j);
            cuzk_log(CUZK_LOG_DEBUG, j->id, "result reaped");
            free_job(j);
        }
        j = nx;
    }
}

/* ---- ending jobs and releasing parts ---------------------------------------- */

void eng_end_job_locked(cuzk_engine *e, job *j, cuzk_job_status st, const char *fmt, ...)
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
    uint64_t now = eng_now_ms();
    j->t_end = now;
    j->t.total_ms = now - j->t_submit;
    if (!j->t_start) j->t.queue_wait_ms = j->t.total_ms;
    j->end_seq = ++e->end_seq;
    e->n_live--;
    if (j->in_ready) eng_ready_remove_locked(e, j);
    eng_proveq_drop_job_locked(e, j);
    if (st != CUZK_JOB_COMPLETED) {
        free(j->proof);
        j->proof = NULL;
    }
    eng_stats_record_locked(e, j);
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
void eng_part_release_locked(cuzk_engine *e, part *p)
{
    cuzk_cs_free(p->cs);
    p->cs = NULL;
    for (int q = 0; q < 3; q++) {
        free(p->ev[q]);
        p->ev[q] = NULL;
    }
    if (p->srs) eng_srs_release_locked(e, p->srs);
    p->srs = NULL;
    e->mem_reserved -= p->reserved;
    p->reserved = 0;
    p->j->n_inflight--;
    if (p->state != P_DONE) p->state = P_DROPPED;
    pthread_cond_broadcast(&e->cv_work);
}

/* ---- lifecycle ----------------------------------------------------------------- */

static int start_thread(pthread_t *th, void *(*fn)(void *), void *arg)
{
    return pthread_create(th, NULL, fn, arg) ? CUZK_ERR_NOMEM : CUZK_OK;
}

int cuzk_engine_create(cuzk_engine **out, const cuzk_engine_config *cfg, char *err, size_t err_len)
{
    if (!out || !cfg) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "engine: NULL argument");
    *out = NULL;
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
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: out of memory");
    e->cfg = *cfg;
    if (!e->cfg.synthesis_threads) { /* 0 = one per CPU, as synthesis.threads in the Rust daemon */
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        e->cfg.synthesis_threads = ncpu < 1                        ? 1
                                   : ncpu > (long)ENGINE_MAX_SYNTH ? ENGINE_MAX_SYNTH
                                                                   : (uint32_t)ncpu;
    }
    cfg = &e->cfg;
    cuzk_log_set_level(cfg->log_level);
    if (cfg->memory_total_budget) {
        e->mem_limit = cfg->memory_total_budget;
    } else {
        struct sysinfo si;
        uint64_t ram = sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 0;
        e->mem_limit =
            ram > cfg->memory_safety_margin + (256ull << 20) ? ram - cfg->memory_safety_margin : 256ull << 20;
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->cv_work, &ca);
    pthread_cond_init(&e->cv_done, &ca);
    pthread_cond_init(&e->cv_srs, &ca);
    pthread_cond_init(&e->cv_house, &ca);
    pthread_condattr_destroy(&ca);
    e->accepting = true;
    e->t_create = eng_now_ms();
    cuzk_engine_provider tp;
    cuzk_engine_test_provider(&tp);
    e->prov[CUZK_PROOF_TEST] = tp;
    e->has_prov[CUZK_PROOF_TEST] = true;

    int st = cuzk_pool_create(&e->pool, cfg->prover_threads);
    if (st) {
        e->pool = NULL;
        cuzk_engine_destroy(e);
        return cuzk_errf(err, err_len, st, "engine: cannot create the prover pool (%u threads)",
                         cfg->prover_threads);
    }
    /* synthesis_threads general workers plus one urgent worker that takes
     * CRITICAL work only, so a WinningPoSt never waits for a long PoRep
     * partition synthesis to finish before its own can start. */
    e->n_synth_workers = cfg->synthesis_threads + 1;
    for (size_t i = 0; i < e->n_synth_workers && !st; i++) {
        worker *w = &e->synth[i];
        w->e = e;
        w->urgent = i == cfg->synthesis_threads;
        if (w->urgent)
            snprintf(w->info.name, sizeof w->info.name, "synth-urgent");
        else
            snprintf(w->info.name, sizeof w->info.name, "synth-%zu", i);
        snprintf(w->info.state, sizeof w->info.state, "idle");
        st = start_thread(&w->th, eng_synth_main, w);
        w->started = !st;
    }
    e->prover.e = e;
    snprintf(e->prover.info.name, sizeof e->prover.info.name, "prover-cpu");
    snprintf(e->prover.info.state, sizeof e->prover.info.state, "idle");
    if (!st) {
        st = start_thread(&e->prover.th, eng_prover_main, &e->prover);
        e->prover.started = !st;
    }
    if (!st) {
        st = start_thread(&e->house, eng_house_main, e);
        e->house_started = !st;
    }
    if (st) {
        cuzk_engine_destroy(e);
        return cuzk_errf(err, err_len, st, "engine: cannot start threads");
    }
    cuzk_log(CUZK_LOG_INFO, NULL,
             "engine started: budget %llu MiB, %u synthesis + 1 urgent worker(s), prover pool %u "
             "thread(s), batch <= %u / %u ms, param_cache %s",
             (unsigned long long)(e->mem_limit >> 20), cfg->synthesis_threads, cfg->prover_threads,
             cfg->max_batch_size, cfg->max_batch_wait_ms, cfg->param_cache);
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
    eng_timeout_at(&dl, grace_ms);
    while (count_live_locked(e) > 0)
        if (pthread_cond_timedwait(&e->cv_done, &e->mu, &dl) == ETIMEDOUT) break;
    atomic_store(&e->abort_work, true);
    for (job *j = e->jobs_head; j; j = j->next)
        if (j->status == CUZK_JOB_UNKNOWN && !j->parsing)
            eng_end_job_locked(e, j, CUZK_JOB_CANCELLED,
                               "engine shut down before the job finished (grace %u ms)", grace_ms);
    e->stopping = true;
    pthread_cond_broadcast(&e->cv_work);
    pthread_cond_broadcast(&e->cv_house);
    pthread_cond_broadcast(&e->cv_srs);
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < e->n_synth_workers; i++)
        if (e->synth[i].started) pthread_join(e->synth[i].th, NULL);
    if (e->prover.started) pthread_join(e->prover.th, NULL);
    if (e->house_started) pthread_join(e->house, NULL);
    pthread_mutex_lock(&e->mu);
    /* A submit that was parsing when we stopped ends here (it saw the flag
     * when it came back, or it is still out: it checks `stopping`). */
    e->shut_down = true;
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
    cuzk_log(CUZK_LOG_INFO, NULL, "shutdown complete");
}

void cuzk_engine_destroy(cuzk_engine *e)
{
    if (!e) return;
    cuzk_engine_shutdown(e, e->cfg.shutdown_grace_ms);
    pthread_mutex_lock(&e->mu);
    for (;;) {
        bool parsing = false;
        for (job *j = e->jobs_head; j; j = j->next)
            parsing |= j->parsing;
        if (!e->api_waiters && !parsing) break;
        pthread_cond_wait(&e->cv_done, &e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    for (job *j = e->jobs_head, *nx; j; j = nx) {
        nx = j->next;
        free_job(j);
    }
    eng_srs_free_all(e);
    cuzk_pool_destroy(e->pool);
    pthread_cond_destroy(&e->cv_work);
    pthread_cond_destroy(&e->cv_done);
    pthread_cond_destroy(&e->cv_srs);
    pthread_cond_destroy(&e->cv_house);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

/* ---- submit --------------------------------------------------------------------- */

static int make_uuid(char out[37])
{
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return CUZK_ERR_IO;
        }
        got += (size_t)r;
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    static const char hx[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
        out[o++] = hx[b[i] >> 4];
        out[o++] = hx[b[i] & 15];
    }
    out[o] = 0;
    return CUZK_OK;
}

/* SHA-256 of every field that defines the proof (not request_id, not the
 * priority), each length-prefixed so that no two requests encode alike. */
static void digest_put(EVP_MD_CTX *c, const void *p, size_t n)
{
    uint64_t len = p ? n : UINT64_MAX; /* absent != empty */
    EVP_DigestUpdate(c, &len, sizeof len);
    if (p && n) EVP_DigestUpdate(c, p, n);
}

static int request_digest(uint8_t out[32], const cuzk_engine_request *r)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL)) {
        EVP_MD_CTX_free(c);
        return CUZK_ERR_NOMEM;
    }
    uint64_t num[6] = {(uint64_t)r->kind, r->sector_size, r->registered_proof,
                       r->sector_number,  r->miner_id,    r->partition_index};
    digest_put(c, num, sizeof num);
    digest_put(c, r->vanilla_proof, r->vanilla_proof_len);
    uint64_t nv = r->n_vanilla_proofs;
    digest_put(c, &nv, sizeof nv);
    for (size_t i = 0; i < r->n_vanilla_proofs; i++)
        digest_put(c, r->vanilla_proofs[i], r->vanilla_proofs_len[i]);
    digest_put(c, r->randomness, r->randomness_len);
    digest_put(c, r->comm_r_old, 32);
    digest_put(c, r->comm_r_new, 32);
    digest_put(c, r->comm_d_new, 32);
    unsigned len = 0;
    int ok = EVP_DigestFinal_ex(c, out, &len);
    EVP_MD_CTX_free(c);
    return ok && len == 32 ? CUZK_OK : CUZK_ERR_NOMEM;
}

/* A request_id already in the table (rid's job `old`), the new content's
 * digest: 1 = attach to old; 0 = old is retired (ended FAILED/CANCELLED,
 * or ended with other content), a fresh attempt may take the id;
 * CUZK_ENGINE_ERR_EXISTS = live with other content. */
static int resubmit_locked(cuzk_engine *e, job *old, const uint8_t digest[32])
{
    bool same = !memcmp(old->digest, digest, 32);
    bool live = old->status == CUZK_JOB_UNKNOWN;
    if (same && (live || old->status == CUZK_JOB_COMPLETED)) return 1;
    if (!same && live) return CUZK_ENGINE_ERR_EXISTS;
    cuzk_log(CUZK_LOG_INFO, old->id, "resubmitted after it ended %s%s: fresh attempt",
             cuzk_job_status_name(old->status), same ? "" : " (with different content)");
    /* Out of the table now: AwaitProof on the id finds the new attempt.
     * The old one stays on the jobs list until no caller holds it. */
    job **pp = &e->table[id_hash(old->id)];
    while (*pp && *pp != old)
        pp = &(*pp)->hnext;
    if (*pp) *pp = old->hnext;
    old->hnext = NULL;
    if (!old->waiters && !old->n_inflight && !old->parsing) {
        unlink_job_locked(e, old);
        free_job(old);
    } else {
        old->t_end = eng_now_ms() - e->cfg.result_retention_ms; /* reap as soon as free */
    }
    return 0;
}

static uint32_t ready_position_locked(cuzk_engine *e, const job *j)
{
    uint32_t pos = 0;
    for (job *r = e->ready; r && r != j; r = r->rnext)
        pos++;
    return pos;
}

int cuzk_engine_submit(cuzk_engine *e, char job_id[CUZK_JOB_ID_MAX], uint32_t *queue_position, bool *existing,
                       const cuzk_engine_request *req, char *err, size_t err_len)
{
    if (!e || !job_id || !req) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "submit: NULL argument");
    if (existing) *existing = false;
    if (queue_position) *queue_position = 0;
    const char *rid = req->request_id && *req->request_id ? req->request_id : NULL;
    if (rid) {
        size_t n = strlen(rid);
        if (n >= CUZK_JOB_ID_MAX)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "request_id is %zu bytes long; at most %d are accepted", n, CUZK_JOB_ID_MAX - 1);
        for (size_t i = 0; i < n; i++)
            if ((uint8_t)rid[i] < 0x20 || rid[i] == 0x7f)
                return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                                 "request_id contains a control character at byte %zu", i);
    }
    if ((unsigned)req->priority > CUZK_PRIO_CRITICAL)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "priority %d is not one of 0..4", (int)req->priority);
    job *j = calloc(1, sizeof *j);
    if (!j) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "submit: out of memory");
    if (request_digest(j->digest, req)) {
        free(j);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "submit: cannot hash the request");
    }

    pthread_mutex_lock(&e->mu);
    if (!e->accepting) {
        pthread_mutex_unlock(&e->mu);
        free(j);
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_SHUTDOWN, "%s",
                         cuzk_engine_strerror(CUZK_ENGINE_ERR_SHUTDOWN));
    }
    if (rid) {
        job *old = find_locked(e, rid);
        int how = old ? resubmit_locked(e, old, j->digest) : 0;
        if (how == CUZK_ENGINE_ERR_EXISTS) {
            pthread_mutex_unlock(&e->mu);
            free(j);
            return cuzk_errf(
                err, err_len, CUZK_ENGINE_ERR_EXISTS,
                "request_id '%s' is in use by a queued or running job with different request content; "
                "it was not replaced (cancel it first, or use another id)",
                rid);
        }
        if (how == 1) {
            snprintf(job_id, CUZK_JOB_ID_MAX, "%s", old->id);
            if (queue_position) *queue_position = old->in_ready ? ready_position_locked(e, old) : 0;
            if (existing) *existing = true;
            pthread_mutex_unlock(&e->mu);
            free(j);
            cuzk_log(CUZK_LOG_DEBUG, rid, "resubmitted: same job returned");
            return CUZK_OK;
        }
        snprintf(j->id, sizeof j->id, "%s", rid);
    } else {
        /* A random UUID colliding with a live id is (2^-122-)unlikely, but
         * checking costs nothing and no two jobs may ever share a key. */
        do {
            if (make_uuid(j->id)) {
                pthread_mutex_unlock(&e->mu);
                free(j);
                return cuzk_errf(err, err_len, CUZK_ERR_IO, "submit: getrandom failed");
            }
        } while (find_locked(e, j->id));
    }
    j->kind = req->kind;
    j->prio = req->priority ? req->priority : cuzk_priority_default(req->kind);
    j->seq = ++e->seq;
    j->t_submit = eng_now_ms();
    j->parsing = true;
    bool have = req->kind > 0 && req->kind < CUZK_PROOF_KINDS && e->has_prov[req->kind];
    if (have) j->prov = e->prov[req->kind];
    /* Visible (for idempotence and await) before the unlocked parse. */
    unsigned h = id_hash(j->id);
    j->hnext = e->table[h];
    e->table[h] = j;
    j->prev = e->jobs_tail;
    if (e->jobs_tail)
        e->jobs_tail->next = j;
    else
        e->jobs_head = j;
    e->jobs_tail = j;
    e->n_live++;
    pthread_mutex_unlock(&e->mu);

    char perr[CUZK_ENGINE_ERR_LEN] = "";
    int pst = CUZK_OK;
    if (!have) {
        pst = CUZK_ERR_UNSUPPORTED;
        snprintf(perr, sizeof perr, "no prover registered for proof kind %d (%s)", (int)req->kind,
                 cuzk_proof_kind_name(req->kind));
    } else {
        pst = j->prov.parse(j->prov.ctx, &j->state, j->circuit_id, &j->nparts, &j->part_bytes, req, perr,
                            sizeof perr);
        if (!pst && (j->nparts < 1 || j->nparts > 1u << 16)) {
            pst = CUZK_ERR_ARG;
            snprintf(perr, sizeof perr, "provider %s: %zu partitions", j->prov.name, j->nparts);
        }
        if (!pst) {
            j->parts = calloc(j->nparts, sizeof *j->parts);
            j->proof = malloc(j->nparts * CUZK_G16_PROOF_BYTES);
            if (!j->parts || !j->proof) {
                pst = CUZK_ERR_NOMEM;
                snprintf(perr, sizeof perr, "submit: out of memory for %zu partitions", j->nparts);
            }
        }
    }

    pthread_mutex_lock(&e->mu);
    j->parsing = false;
    if (!pst && j->part_bytes > e->mem_limit) {
        pst = CUZK_ENGINE_ERR_TOO_BIG;
        snprintf(perr, sizeof perr, "one partition of %s needs %llu MiB but memory.total_budget is %llu MiB",
                 j->circuit_id, (unsigned long long)(j->part_bytes >> 20),
                 (unsigned long long)(e->mem_limit >> 20));
    }
    if (j->status != CUZK_JOB_UNKNOWN) {
        /* cancelled (or shut down) while parsing: already ended */
    } else if (pst) {
        eng_end_job_locked(e, j, CUZK_JOB_FAILED, "%s", perr);
    } else if (!e->accepting) {
        eng_end_job_locked(e, j, CUZK_JOB_CANCELLED, "engine shut down before the job started");
    } else {
        for (size_t k = 0; k < j->nparts; k++) {
            j->parts[k].j = j;
            j->parts[k].k = k;
        }
        eng_ready_insert_locked(e, j);
        if (queue_position) *queue_position = ready_position_locked(e, j);
        cuzk_log(CUZK_LOG_INFO, j->id,
                 "submitted %s %s, priority %d, %zu partition(s), %llu MiB "
                 "each",
                 cuzk_proof_kind_name(j->kind), j->circuit_id, (int)j->prio, j->nparts,
                 (unsigned long long)(j->part_bytes >> 20));
        pthread_cond_broadcast(&e->cv_work);
    }
    snprintf(job_id, CUZK_JOB_ID_MAX, "%s", j->id);
    pthread_cond_broadcast(&e->cv_done); /* destroy may wait for parsing to end */
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
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
    eng_end_job_locked(e, j, CUZK_JOB_CANCELLED, "%s", why);
    return CUZK_OK;
}

int cuzk_engine_await_ex(cuzk_engine *e, cuzk_engine_result *res, const char *job_id,
                         const cuzk_engine_await_opts *opts)
{
    if (!e || !res || !job_id || !opts) return CUZK_ERR_ARG;
    pthread_mutex_lock(&e->mu);
    job *j = find_locked(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CUZK_ENGINE_ERR_NOT_FOUND;
    }
    j->waiters++;
    e->api_waiters++;
    uint64_t t0 = eng_now_ms();
    int rc = CUZK_OK;
    while (j->status == CUZK_JOB_UNKNOWN) {
        uint64_t now = eng_now_ms();
        if (opts->abandon && *opts->abandon) {
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
            eng_timeout_at(&dl, wait);
            pthread_cond_timedwait(&e->cv_done, &e->mu, &dl);
        }
    }
    j->waiters--;
    if (rc == CUZK_ENGINE_ERR_ABANDONED) {
        if (opts->cancel_if_abandoned && !j->waiters)
            cancel_locked(e, j, NULL, "cancelled: the only waiting client went away");
    } else if (j->status == CUZK_JOB_UNKNOWN) {
        fill_result_locked(res, j, CUZK_JOB_TIMEOUT);
        res->t.total_ms = eng_now_ms() - j->t_submit;
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
    job *j = find_locked(e, job_id);
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
