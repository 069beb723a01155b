/* The pipeline: synthesis workers, the prover with its batch collector, and
 * housekeeping.
 *
 * A job is split into partitions.  Synthesis workers take the next
 * partition of the most urgent job in the ready queue (priority, then
 * arrival) when three gates open: a pipeline slot (synthesizing + waiting
 * for the prover < pipeline.max_pending; CRITICAL ignores this gate), memory
 * (its reservation fits the budget, after evicting idle SRS if needed; the
 * job waits, never fails), and, for the urgent worker, priority CRITICAL.
 * The head job is never overtaken by a smaller lower-priority one, so a big
 * job cannot starve.  A synthesized partition goes to the prove queue
 * (same order).  The prover takes the head and batches same-circuit,
 * same-priority partitions behind it; it waits for more only while more
 * are coming, less than max_batch_wait_ms, and no more urgent partition is
 * ready.  Proofs are verified before their job may complete.
 *
 * Safe points, where a cancelled job's part is dropped: after SRS load,
 * inside synthesis (the provider polls), after synthesis, before each
 * prover phase (batch_checkpoint, the prover's checkpoint hook, returns
 * CANCELLED once every job in the batch has ended), after proving. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

/* Working = anything but idle, waiting (work is queued but cannot start:
 * memory) and stopped; its time feeds cuzk_worker_busy_seconds_total. */
static bool worker_working(const char *state)
{
    return strcmp(state, "idle") && strcmp(state, "waiting") && strcmp(state, "stopped");
}

static void worker_set(worker *w, const char *state, const job *j)
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

static void proveq_insert_locked(cuzk_engine *e, part *p)
{
    part **pp = &e->proveq;
    while (*pp) {
        const part *q = *pp;
        if (p->j->prio != q->j->prio ? p->j->prio > q->j->prio
                                     : (p->j->seq != q->j->seq ? p->j->seq < q->j->seq : p->k < q->k))
            break;
        pp = &(*pp)->pnext;
    }
    p->pnext = *pp;
    *pp = p;
    e->n_proveq++;
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

    worker_set(w, "loading", j);
    uint64_t load_ms = 0;
    int st = cuzk_eng_srs_acquire(e, &p->srs, j->circuit_id, &load_ms, err, sizeof err);
    j->t.srs_load_ms += load_ms;
    if (st) p->srs = NULL;
    if (st && j->status == CUZK_JOB_UNKNOWN)
        cuzk_eng_end_job_locked(e, j, CUZK_JOB_FAILED, "parameters for %s: %s", j->circuit_id, err);
    cuzk_cs *cs = NULL;
    if (!st && j->status == CUZK_JOB_UNKNOWN) {
        worker_set(w, "synthesizing", j);
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
        proveq_insert_locked(e, p);
        if (j->prio == CUZK_PRIO_CRITICAL && e->proving_preemptible) {
            atomic_store(&e->preempt, true);
            cuzk_log(CUZK_LOG_INFO, j->id, "CRITICAL partition ready: preempting the prover");
        }
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
            worker_set(w, e->ready ? "waiting" : "idle", NULL);
            pthread_cond_wait(&e->cv_work, &e->mu);
            continue;
        }
        synth_one_locked(e, w, j);
        free_dead_relock(e);
    }
    worker_set(w, "stopped", NULL);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- prover ------------------------------------------------------------------------ */

/* A batch in the prover: batch_checkpoint reads it before every prover
 * phase (H NTT, each MSM) to check that some job still wants its proof. */
typedef struct batch {
    cuzk_engine *e;
    part **parts;
    size_t n;
    bool preemptible;   /* below CRITICAL: yields to a CRITICAL partition */
    atomic_bool preempted;
} batch;

/* A batch below CRITICAL yields to a CRITICAL partition unless one of its
 * partitions has already yielded scheduler.max_preemptions times: a steady
 * CRITICAL stream cannot starve it; the CRITICAL work then waits for this
 * batch (one prove) instead. */
static bool batch_preemptible(const cuzk_engine *e, part **ps, size_t n)
{
    if (ps[0]->j->prio >= CUZK_PRIO_CRITICAL) return false;
    for (size_t i = 0; i < n; i++)
        if (ps[i]->preempted >= e->cfg.max_preemptions) return false;
    return true;
}

static bool batch_dead(batch *b)
{
    if (atomic_load(&b->e->abort_work)) return true;
    if (b->preemptible && atomic_load(&b->e->preempt)) {
        atomic_store(&b->preempted, true);
        return true;
    }
    for (size_t i = 0; i < b->n; i++)
        if (!atomic_load(&b->parts[i]->j->ended)) return false;
    return true;
}

/* The prover's safe-point hook (before H and before every MSM call):
 * stops a cancelled or preempted batch without wrapping the CPU backend,
 * which would cost it its fast path (shared canonical scalars). */
static int batch_checkpoint(void *ctx)
{
    return batch_dead(ctx) ? CUZK_ENGINE_ERR_CANCELLED : 0;
}

static bool same_batch(const part *a, const part *b)
{
    return a->j->prio == b->j->prio && !strcmp(a->j->circuit_id, b->j->circuit_id);
}

/* More partitions of head's circuit and priority are queued or being
 * synthesized: worth waiting for them. */
static bool more_coming_locked(cuzk_engine *e, const part *head)
{
    for (job *j = e->jobs_head; j; j = j->next)
        if (j->status == CUZK_JOB_UNKNOWN && !j->parsing && j->prio == head->j->prio &&
            !strcmp(j->circuit_id, head->j->circuit_id) &&
            (j->n_synthing || j->redo || (j->parts && j->next_part < j->nparts)))
            return true;
    return false;
}

/* Verify one proof; returns 0 or a status with err set. */
static int verify_part(const part *p, const uint8_t proof[CUZK_G16_PROOF_BYTES], char *err,
                       size_t err_len)
{
    const job *j = p->j;
    const cuzk_groth16_vk *vk = p->srs->pvk.vk;
    size_t cap = vk->n_ic ? vk->n_ic - 1 : 0, n = 0;
    cuzk_fr *in = malloc((cap ? cap : 1) * sizeof *in);
    if (!in) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "out of memory for %zu public inputs", cap);
    int st = CUZK_OK;
    if (j->prov.public_inputs) {
        st = j->prov.public_inputs(j->prov.ctx, in, cap, &n, j->state, p->k, err, err_len);
    } else {
        cuzk_cs_counts c;
        cuzk_cs_get_counts(p->cs, &c);
        n = c.inputs - 1;
        if (n <= cap) memcpy(in, cuzk_cs_input_assignment(p->cs) + 1, n * sizeof *in);
    }
    if (!st && n != cap)
        st = cuzk_errf(err, err_len, CUZK_ERR_ARG, "%zu public inputs but the verifying key expects %zu", n, cap);
    bool ok = false;
    if (!st) st = cuzk_groth16_verify(&ok, &p->srs->pvk, proof, in, n, err, err_len);
    if (!st && !ok)
        st = cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                       "proof does not verify against %s's verifying key and the public inputs", j->circuit_id);
    free(in);
    return st;
}

/* The prover's view of a synthesized partition.  Its A, B, C evaluations
 * are taken from the cs and handed to the prover to transform in place: no
 * 3 x 32 bytes per constraint of copies (12.9 GB for a 32 GiB WindowPoSt,
 * m = 2^27), and the MSM scratch lives in them too.  The price: a batch
 * preempted after the prover started is synthesized again
 * (requeue_synth_locked).  If growing them fails, the prover copies them. */
static int part_witness(cuzk_groth16_witness *w, part *p, const cuzk_groth16_params *params)
{
    if (p->lean.pce) /* A and B already at the domain size, C on demand: two vectors, not three */
        return cuzk_groth16_witness_lean(w, p->cs, p->ev[0], p->ev[1], cuzk_pce_fill_c, &p->lean);
    int st = cuzk_groth16_witness_from_cs(w, p->cs);
    if (st) return st;
    /* CUZK_ERR_NOMEM: w points at the intact evaluations (the prover copies
     * them); CUZK_ERR_ARG (a circuit larger than the params' domain): w is
     * unchanged and the prover reports the mismatch precisely */
    size_t m = cuzk_groth16_params_count(params, CUZK_G16_H) + 1;
    int kept = cuzk_groth16_witness_take_evals(w, p->cs, m, p->ev);
    (void)kept;
    return CUZK_OK;
}

/* A preempted partition whose evaluations the prover may have clobbered
 * goes back to synthesis (ahead of the job's unstarted partitions); its
 * memory reservation and SRS reference are released until then. */
static void requeue_synth_locked(cuzk_engine *e, part *p)
{
    job *j = p->j;
    cuzk_eng_part_release_locked(e, p); /* cs, evaluations, SRS reference, reservation */
    p->state = P_QUEUED;
    p->redo = j->redo;
    j->redo = p;
    if (!j->in_ready) cuzk_eng_ready_insert_locked(e, j);
}

/* One prove call's buffers and outcome. */
typedef struct batch_run {
    cuzk_groth16_witness *wit;
    uint8_t (*proofs)[CUZK_G16_PROOF_BYTES];
    int *vst;                          /* per partition: verification status */
    char (*verr)[CUZK_ENGINE_ERR_LEN]; /* ... and message */
    char err[CUZK_ENGINE_ERR_LEN];     /* the prove call's */
    int st;
    bool pce_changed; /* a PCE file changed under fill_c: synthesize again */
    uint64_t t0, prove_ms, verify_ms;
} batch_run;

static int run_alloc(batch_run *r, size_t n)
{
    r->wit = calloc(n, sizeof *r->wit);
    r->proofs = calloc(n, CUZK_G16_PROOF_BYTES);
    r->vst = calloc(n, sizeof *r->vst);
    r->verr = calloc(n, CUZK_ENGINE_ERR_LEN);
    if (r->wit && r->proofs && r->vst && r->verr) return CUZK_OK;
    return cuzk_errf(r->err, sizeof r->err, CUZK_ERR_NOMEM, "prover: out of memory for a batch of %zu", n);
}

static void run_free(batch_run *r)
{
    free(r->wit);
    free(r->proofs);
    free(r->vst);
    free(r->verr);
}

/* A prove that failed while a partition's PCE file changed under its
 * fill_c: the evaluator is retired (pce_cache.c) and the batch goes back
 * to synthesis, which is then direct; a job never fails for its PCE. */
static bool pce_changed(cuzk_engine *e, part **ps, size_t n)
{
    bool changed = false;
    for (size_t i = 0; i < n; i++)
        if (ps[i]->lean.pce && cuzk_pce_unchanged(ps[i]->lean.pce, NULL, 0)) {
            cuzk_eng_pce_put(e, ps[i]->lean.pce, true);
            changed = true;
        }
    return changed;
}

/* Prove the batch (mu released), then verify every proof still wanted. */
static void run_prove(cuzk_engine *e, worker *w, batch *b, batch_run *r)
{
    part **ps = b->parts;
    size_t n = b->n;
    r->st = run_alloc(r, n);
    for (size_t i = 0; i < n && !r->st; i++)
        if ((r->st = part_witness(&r->wit[i], ps[i], ps[0]->srs->params)))
            cuzk_errf(r->err, sizeof r->err, r->st, "partition %zu: not a finished PROVE-mode system", ps[i]->k);
    r->t0 = cuzk_eng_now_ms();
    if (!r->st) {
        cuzk_groth16_prove_opts o = {.par = cuzk_pool_par(e->pool), .err = r->err, .err_len = sizeof r->err,
                                     .checkpoint = batch_checkpoint, .checkpoint_ctx = b};
        r->st = cuzk_groth16_prove(r->proofs, ps[0]->srs->params, r->wit, n, &o);
        if (r->st && !(r->pce_changed = pce_changed(e, ps, n)))
            cuzk_eng_srs_fault(e, ps[0]->srs, r->st, r->err, sizeof r->err);
        r->prove_ms = cuzk_eng_now_ms() - r->t0;
    }
    if (r->st) return;
    pthread_mutex_lock(&e->mu);
    worker_set(w, "verifying", ps[0]->j);
    uint64_t t1 = cuzk_eng_now_ms();
    for (size_t i = 0; i < n; i++) ps[i]->t_verify = t1;
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < n; i++)
        if (!atomic_load(&ps[i]->j->ended))
            r->vst[i] = verify_part(ps[i], r->proofs[i], r->verr[i], CUZK_ENGINE_ERR_LEN);
    r->verify_ms = cuzk_eng_now_ms() - t1;
}

/* Preempted for a CRITICAL partition.  The prover transforms the
 * evaluations in place, so live partitions are synthesized again (ahead
 * of their jobs' other partitions); the work done is lost. */
static void requeue_batch_locked(cuzk_engine *e, part **ps, size_t n, const batch_run *r)
{
    for (size_t i = 0; i < n; i++) {
        part *p = ps[i];
        p->preempted++;
        p->j->t.prove_ms += (cuzk_eng_now_ms() - r->t0) / n;
        if (p->j->status == CUZK_JOB_UNKNOWN)
            requeue_synth_locked(e, p);
        else
            cuzk_eng_part_release_locked(e, p);
    }
    pthread_cond_broadcast(&e->cv_work);
    e->n_preemptions++;
    cuzk_log(CUZK_LOG_INFO, ps[0]->j->id, "prover preempted after %llu ms; %zu partition(s) requeued for synthesis",
             (unsigned long long)(cuzk_eng_now_ms() - r->t0), n);
}

/* After pce_changed: the batch's partitions are synthesized again. */
static void requeue_pce_locked(cuzk_engine *e, part **ps, size_t n, const batch_run *r)
{
    for (size_t i = 0; i < n; i++)
        if (ps[i]->j->status == CUZK_JOB_UNKNOWN)
            requeue_synth_locked(e, ps[i]);
        else
            cuzk_eng_part_release_locked(e, ps[i]);
    pthread_cond_broadcast(&e->cv_work);
    cuzk_log(CUZK_LOG_WARN, ps[0]->j->id, "prover: %s; %zu partition(s) requeued for direct synthesis",
             r->err[0] ? r->err : cuzk_engine_strerror(r->st), n);
}

/* A proof made through a PCE that fails self-verification: the PCE had
 * other matrices than the circuit (whatever slipped past its R1CS digest:
 * a file changed in place behind an unchanged stat, a blank circuit that
 * differs from the assigned one).  The PCE is retired for good (pce_cache.c,
 * one WARN line) and the partition synthesized again, directly: the job
 * does not fail for its PCE. */
static bool redo_without_pce_locked(cuzk_engine *e, part *p, const batch_run *r, size_t i)
{
    if (!p->lean.pce || !r->vst[i] || p->j->status != CUZK_JOB_UNKNOWN || atomic_load(&e->abort_work))
        return false;
    cuzk_eng_pce_bad_proof_locked(e, p->lean.pce, p->j->id, p->k, r->verr[i]);
    requeue_synth_locked(e, p);
    return true;
}

/* Each partition's outcome goes to its job; a job whose last partition is
 * done completes. */
static void commit_batch_locked(cuzk_engine *e, part **ps, size_t n, const batch_run *r)
{
    for (size_t i = 0; i < n; i++) {
        part *p = ps[i];
        job *j = p->j;
        p->prove_ms = r->prove_ms / n;
        j->t.prove_ms += r->prove_ms / n;
        j->t.verify_ms += r->verify_ms / n;
        if (!r->st && redo_without_pce_locked(e, p, r, i)) continue;
        if (j->status != CUZK_JOB_UNKNOWN) {
            /* ended meanwhile (cancelled, another partition failed) */
        } else if (r->st == CUZK_ENGINE_ERR_CANCELLED) {
            cuzk_eng_end_job_locked(e, j, CUZK_JOB_CANCELLED, "cancelled while proving");
        } else if (r->st) {
            cuzk_eng_end_job_locked(e, j, CUZK_JOB_FAILED, "partition %zu: %s", p->k,
                               r->err[0] ? r->err : cuzk_engine_strerror(r->st));
        } else if (r->vst[i]) {
            cuzk_eng_end_job_locked(e, j, CUZK_JOB_FAILED, "partition %zu: self-verification failed: %s", p->k,
                               r->verr[i]);
        } else {
            memcpy(j->proof + p->k * CUZK_G16_PROOF_BYTES, r->proofs[i], CUZK_G16_PROOF_BYTES);
            p->state = P_DONE;
            p->t_done = cuzk_eng_now_ms();
            j->n_done++;
            cuzk_eng_pce_proved_locked(e, j->circuit_id); /* pce_cache.c: background extraction */
        }
        cuzk_eng_part_release_locked(e, p);
        if (j->status == CUZK_JOB_UNKNOWN && j->n_done == j->nparts)
            cuzk_eng_end_job_locked(e, j, CUZK_JOB_COMPLETED, NULL);
    }
}

/* Called without mu; returns with mu held (results are committed under it). */
static void prove_batch(cuzk_engine *e, worker *w, part **ps, size_t n)
{
    batch b = {e, ps, n, e->proving_preemptible, false};
    batch_run r = {0};
    run_prove(e, w, &b, &r);
    pthread_mutex_lock(&e->mu);
    e->proving_prio = CUZK_PRIO_DEFAULT;
    e->proving_preemptible = false;
    if (r.st == CUZK_ENGINE_ERR_CANCELLED && atomic_load(&b.preempted) && !atomic_load(&e->abort_work))
        requeue_batch_locked(e, ps, n, &r);
    else if (r.pce_changed && !atomic_load(&e->abort_work))
        requeue_pce_locked(e, ps, n, &r);
    else
        commit_batch_locked(e, ps, n, &r);
    run_free(&r);
}

void *cuzk_eng_prover_main(void *arg)
{
    worker *w = arg;
    cuzk_engine *e = w->e;
    size_t max = e->cfg.max_batch_size;
    part **ps = e->batch_table; /* allocated by create */
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        part *head = e->proveq;
        if (!head) {
            worker_set(w, "idle", NULL);
            pthread_cond_wait(&e->cv_work, &e->mu);
            continue;
        }
        size_t have = 0;
        for (part *q = head; q && have < max; q = q->pnext) have += same_batch(q, head);
        uint64_t now = cuzk_eng_now_ms(), dl = head->t_ready + e->cfg.max_batch_wait_ms;
        if (have < max && now < dl && more_coming_locked(e, head)) {
            /* Waiting re-reads the head on every wake-up: a more urgent
             * partition arriving becomes the head and is proved first. */
            worker_set(w, "batching", head->j);
            struct timespec ts;
            cuzk_eng_timeout_at(&ts, dl - now);
            pthread_cond_timedwait(&e->cv_work, &e->mu, &ts);
            continue;
        }
        size_t n = 0;
        part **pp = &e->proveq;
        while (*pp && n < max) {
            part *q = *pp;
            if (same_batch(q, head)) {
                *pp = q->pnext;
                q->pnext = NULL;
                q->state = P_PROVING;
                q->t_prove = cuzk_eng_now_ms();
                q->prove_by = w->info.name;
                e->n_proveq--;
                ps[n++] = q;
            } else {
                pp = &q->pnext;
            }
        }
        worker_set(w, "proving", ps[0]->j);
        e->proving_prio = ps[0]->j->prio;
        e->proving_preemptible = batch_preemptible(e, ps, n);
        atomic_store(&e->preempt, false);
        e->n_batches++;
        e->n_batched_parts += n;
        cuzk_log(CUZK_LOG_DEBUG, ps[0]->j->id, "proving a batch of %zu partition(s) of %s", n,
                 ps[0]->j->circuit_id);
        pthread_cond_broadcast(&e->cv_work); /* pipeline slots freed */
        eng_dead *dead = cuzk_eng_srs_dead_take_locked(e); /* stale entries released by the last commit */
        pthread_mutex_unlock(&e->mu);
        cuzk_eng_srs_dead_free(dead);
        prove_batch(e, w, ps, n); /* returns with mu held */
    }
    worker_set(w, "stopped", NULL);
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
