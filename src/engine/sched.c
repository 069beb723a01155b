/* The pipeline's first half: the ready queue, synthesis workers and
 * housekeeping (the prover workers are in prover.c).
 *
 * A job is split into partitions.  Synthesis workers take the next
 * partition of the most urgent job in the ready queue (priority, then
 * arrival) when three gates open: a pipeline slot (synthesizing + waiting
 * for the prover < pipeline.max_pending; CRITICAL ignores this gate), memory
 * (its reservation fits the budget, after evicting idle SRS if needed; the
 * job waits, never fails), and, for the urgent worker, priority CRITICAL.
 * The head job is never overtaken by a smaller lower-priority one, so a big
 * job cannot starve.  A synthesized partition goes to the prove queue
 * (same order), where the prover workers take it (prover.c).
 *
 * Safe points, where a cancelled job's part is dropped: after SRS load,
 * inside synthesis (the provider polls), after synthesis, and in the
 * prover (prover.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

/* Working = anything but idle, waiting (work is queued but cannot start:
 * memory) and stopped; its time feeds cuzk_worker_busy_seconds_total. */
static bool worker_working(const char *state)
{
    return strcmp(state, "idle") && strcmp(state, "waiting") && strcmp(state, "stopped") && strcmp(state, "failed");
}

void cuzk_eng_worker_set(worker *w, const char *state, const job *j)
{
    bool was = worker_working(w->info.state), is = worker_working(state);
    uint64_t now = was != is ? cuzk_eng_now_ms() : 0;
    if (!was && is) w->info.busy_since_ms = now ? now : 1; /* nonzero: "working" */
    if (was && !is) {
        w->info.busy_ms += now - w->info.busy_since_ms;
        w->info.busy_since_ms = 0;
    }
    snprintf(w->info.state, sizeof w->info.state, "%s", state);
    snprintf(w->info.job_id, sizeof w->info.job_id, "%s", j ? j->id : "");
    w->info.kind = j ? j->kind : CUZK_PROOF_UNSPECIFIED;
    if (!j) w->info.partition = -1;
}

static bool before(cuzk_priority pa, uint64_t sa, cuzk_priority pb, uint64_t sb)
{
    return pa != pb ? pa > pb : sa < sb;
}

void cuzk_eng_ready_insert_locked(cuzk_engine *e, job *j)
{
    job **pp = &e->ready;
    while (*pp && !before(j->prio, j->seq, (*pp)->prio, (*pp)->seq)) pp = &(*pp)->rnext;
    j->rnext = *pp;
    *pp = j;
    j->in_ready = true;
}

void cuzk_eng_ready_remove_locked(cuzk_engine *e, job *j)
{
    job **pp = &e->ready;
    while (*pp && *pp != j) pp = &(*pp)->rnext;
    if (*pp) *pp = j->rnext;
    j->rnext = NULL;
    j->in_ready = false;
}

void cuzk_eng_proveq_drop_job_locked(cuzk_engine *e, job *j)
{
    part **pp = &e->proveq;
    while (*pp) {
        part *p = *pp;
        if (p->j == j) {
            *pp = p->pnext;
            p->pnext = NULL;
            e->n_proveq--;
            cuzk_eng_part_release_locked(e, p);
        } else {
            pp = &p->pnext;
        }
    }
}

/* ---- synthesis ------------------------------------------------------------------- */

static size_t pipeline_limit(const cuzk_engine *e)
{
    return e->cfg.pipeline_enabled ? e->cfg.pipeline_depth : 1;
}

/* The job whose next partition this worker may start now, or NULL. */
static job *pick_locked(cuzk_engine *e, const worker *w)
{
    job *j = e->ready;
    if (!j) return NULL;
    if (w->urgent && j->prio != CUZK_PRIO_CRITICAL) return NULL;
    if (j->prio != CUZK_PRIO_CRITICAL && e->n_synth + e->n_proveq >= pipeline_limit(e))
        return NULL;
    /* the newest idle buffer set becomes this partition's own (synth_one_locked):
     * counting it twice would drop the very buffers the partition is to reuse */
    uint64_t need = j->part_bytes, lend = cuzk_eng_pool_newest_bytes_locked(e, j->circuit_id);
    need = need > lend ? need - lend : 0;
    if (e->mem_reserved + e->srs_hot_bytes + need > e->mem_limit &&
        !cuzk_eng_srs_evict_idle_locked(e, need))
        return NULL;
    return j;
}

static void synth_one_locked(cuzk_engine *e, worker *w, job *j)
{
    part *p;
    if (j->redo) { /* preempted after the prover clobbered its evaluations */
        p = j->redo;
        j->redo = p->redo;
        p->redo = NULL;
    } else {
        p = &j->parts[j->next_part++];
    }
    if (j->next_part == j->nparts && !j->redo) cuzk_eng_ready_remove_locked(e, j);
    uint64_t now = cuzk_eng_now_ms();
    p->state = P_SYNTH;
    p->reserved = j->part_bytes;
    e->mem_reserved += p->reserved;
    if (!p->bufs.aux && !p->bufs.ev[0]) /* this circuit's newest idle set, now inside the reservation */
        cuzk_eng_pool_take_locked(e, j->circuit_id, &p->bufs);
    j->n_inflight++;
    j->n_synthing++;
    e->n_synth++;
    if (!j->t_start) {
        j->t_start = now;
        j->t.queue_wait_ms = now - j->t_submit;
    }
    p->t_start = now;
    p->synth_by = w->info.name;
    char err[CUZK_ENGINE_ERR_LEN] = "";

    cuzk_eng_worker_set(w, "loading", j);
    w->info.partition = (int64_t)p->k;
    uint64_t load_ms = 0;
    int st = cuzk_eng_srs_acquire(e, &p->srs, j->circuit_id, &load_ms, err, sizeof err);
    j->t.srs_load_ms += load_ms;
    if (st) p->srs = NULL;
    if (st && j->status == CUZK_JOB_UNKNOWN)
        cuzk_eng_end_job_locked(e, j, CUZK_JOB_FAILED, "parameters for %s: %s", j->circuit_id, err);
    cuzk_cs *cs = NULL;
    if (!st && j->status == CUZK_JOB_UNKNOWN) {
        cuzk_eng_worker_set(w, "synthesizing", j);
        /* alone in synthesis: the idle synthesis threads help with this partition */
        if (e->synth_pool && e->n_synth == 1 && !e->synth_pool_busy) {
            e->synth_pool_busy = true;
            p->synth_par = cuzk_pool_par(e->synth_pool);
        }
        eng_dead *dead = cuzk_eng_srs_dead_take_locked(e); /* what pick_locked evicted for this */
        pthread_mutex_unlock(&e->mu);
        cuzk_eng_srs_dead_free(dead);
        uint64_t t0 = cuzk_eng_now_ms();
        cuzk_engine_task task = {e, j};
        st = cuzk_eng_pce_synthesize(e, p, &task, &cs, err, sizeof err); /* pce_cache.c */
        uint64_t dt = cuzk_eng_now_ms() - t0;
        pthread_mutex_lock(&e->mu);
        if (p->synth_par) e->synth_pool_busy = false;
        p->synth_par = NULL;
        p->synth_ms = dt;
        j->t.synthesis_ms += dt;
        cuzk_log(CUZK_LOG_DEBUG, j->id, "partition %zu synthesized in %llu ms", p->k,
                 (unsigned long long)dt);
    }
    j->n_synthing--;
    e->n_synth--;
    if (!st && p->lean.pce) { /* lean form (pce_cache.c): one domain vector less */
        uint64_t back = eng_lean_saving(cuzk_groth16_params_count(p->srs->params, CUZK_G16_H) + 1);
        if (back < p->reserved) {
            p->reserved -= back;
            e->mem_reserved -= back;
        }
    }
    if (!st && j->status == CUZK_JOB_UNKNOWN) {
        p->cs = cs;
        p->state = P_READY;
        p->t_ready = cuzk_eng_now_ms();
        cuzk_eng_proveq_insert_locked(e, p);
        cuzk_eng_prover_ready_locked(e, p); /* prover.c: a CRITICAL one may preempt a batch */
    } else {
        if (st && st != CUZK_ENGINE_ERR_CANCELLED && j->status == CUZK_JOB_UNKNOWN)
            cuzk_eng_end_job_locked(e, j, CUZK_JOB_FAILED, "partition %zu synthesis failed: %s", p->k,
                               err[0] ? err : cuzk_engine_strerror(st));
        else if (st == CUZK_ENGINE_ERR_CANCELLED && j->status == CUZK_JOB_UNKNOWN)
            cuzk_eng_end_job_locked(e, j, CUZK_JOB_CANCELLED, "partition %zu: synthesis cancelled", p->k);
        p->cs = cs;
        cuzk_eng_part_release_locked(e, p);
    }
    pthread_cond_broadcast(&e->cv_work);
}

/* Params that this thread's eviction or release demoted (srs.c), freed
 * with mu released. */
static void free_dead_relock(cuzk_engine *e)
{
    eng_dead *d = cuzk_eng_srs_dead_take_locked(e);
    if (!d) return;
    pthread_mutex_unlock(&e->mu);
    cuzk_eng_srs_dead_free(d);
    pthread_mutex_lock(&e->mu);
}

void *cuzk_eng_synth_main(void *arg)
{
    worker *w = arg;
    cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        job *j = pick_locked(e, w);
        if (!j) {
            cuzk_eng_worker_set(w, e->ready ? "waiting" : "idle", NULL);
            pthread_cond_wait(&e->cv_work, &e->mu);
            continue;
        }
        synth_one_locked(e, w, j);
        free_dead_relock(e);
    }
    cuzk_eng_worker_set(w, "stopped", NULL);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- housekeeping -------------------------------------------------------------------- */

void *cuzk_eng_house_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        cuzk_eng_reap_locked(e, cuzk_eng_now_ms());
        cuzk_eng_ended_trim_locked(e); /* records a waiter held at admission */
        free_dead_relock(e);
        cuzk_eng_pool_reap_locked(e, cuzk_eng_now_ms());
        /* SRS entries become evictable by the passing of time
         * (eviction_min_idle), which no event announces: let workers
         * waiting for memory look again. */
        if (e->ready) pthread_cond_broadcast(&e->cv_work);
        uint64_t period = e->cfg.result_retention_ms / 4;
        period = period < 10 ? 10 : period > 1000 ? 1000 : period;
        struct timespec ts;
        cuzk_eng_timeout_at(&ts, period);
        if (!e->dead) pthread_cond_timedwait(&e->cv_house, &e->mu, &ts); /* demote wakes it */
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
