/* The prover workers: the CPU prover and the device workers (devices.c)
 * share the prove queue.  Each takes the head partition it may prove and
 * batches same-circuit, same-priority partitions behind it (a share of
 * them when other device workers are free, so that a queue spreads over
 * the devices); it waits for more only while more are coming, less than
 * max_batch_wait_ms, and no more urgent partition is ready.  Proofs are
 * verified before their job may complete.
 *
 * Who takes what: a device worker any partition but those a device gave
 * back; the CPU prover those, and the others only while every device
 * worker is busy (gpus.cpu_worker; always when no device is used).
 *
 * Safe points (cancellation, preemption): before each prover phase
 * (batch_checkpoint, the prover's checkpoint hook, returns CANCELLED once
 * every job in the batch has ended or the worker is asked to yield to a
 * CRITICAL partition), after proving.  A device call in flight runs to its
 * end.
 *
 * A device that fails (a backend call returns an error, or its proof does
 * not verify) gives the partitions back: they are synthesized again (the
 * prover transformed their evaluations in place) and marked for the CPU,
 * one WARN line each time; after ENG_DEV_MAX_FAILS failures in a row the
 * worker is no longer used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

void cuzk_eng_proveq_insert_locked(cuzk_engine *e, part *p)
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



/* A batch in the prover: batch_checkpoint reads it before every prover
 * phase (H NTT, each MSM) to check that some job still wants its proof. */
typedef struct batch {
    cuzk_engine *e;
    worker *w;
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
    if (b->preemptible && atomic_load(&b->w->preempt)) {
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
        cuzk_pool *pool = w->dev ? w->pool : e->pool; /* a device worker of one host thread has none */
        cuzk_groth16_prove_opts o = {.par = pool ? cuzk_pool_par(pool) : NULL,
                                     .backend = w->dev ? &w->be : NULL,
                                     .err = r->err,
                                     .err_len = sizeof r->err,
                                     .checkpoint = batch_checkpoint,
                                     .checkpoint_ctx = b};
        r->st = cuzk_groth16_prove(r->proofs, ps[0]->srs->params, r->wit, n, &o);
        if (r->st && !(r->pce_changed = pce_changed(e, ps, n)))
            cuzk_eng_srs_fault(e, ps[0]->srs, r->st, r->err, sizeof r->err);
        r->prove_ms = cuzk_eng_now_ms() - r->t0;
    }
    if (r->st) return;
    pthread_mutex_lock(&e->mu);
    cuzk_eng_worker_set(w, "verifying", ps[0]->j);
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

/* A device failed on these partitions (a backend call, or a proof that
 * did not verify): they go back to synthesis and then to the CPU prover
 * (their evaluations were transformed in place), one WARN line; the worker
 * is retired after ENG_DEV_MAX_FAILS failures in a row. */
static void device_fallback_locked(cuzk_engine *e, worker *w, part **ps, size_t n, const char *why)
{
    size_t live = 0;
    for (size_t i = 0; i < n; i++) {
        part *p = ps[i];
        p->cpu_only = true;
        if (p->j->status == CUZK_JOB_UNKNOWN) {
            live++;
            requeue_synth_locked(e, p);
        } else {
            cuzk_eng_part_release_locked(e, p);
        }
    }
    w->fallbacks += live;
    w->fails++;
    cuzk_log(CUZK_LOG_WARN, ps[0]->j->id,
             "device %s (%s, worker %s) failed on partition %zu%s of %s: %s; %zu partition(s) go to the CPU prover",
             w->dev->label, w->dev->name, w->info.name, ps[0]->k, n > 1 ? " and others" : "", ps[0]->j->circuit_id,
             why, live);
    if (w->fails >= ENG_DEV_MAX_FAILS && !w->disabled) {
        w->disabled = true;
        cuzk_log(CUZK_LOG_ERROR, NULL, "device worker %s (%s) failed %u times in a row: no longer used", w->info.name,
                 w->dev->label, w->fails);
    }
    pthread_cond_broadcast(&e->cv_work);
}

/* Each partition's outcome goes to its job; a job whose last partition is
 * done completes.  A device worker's proof that fails verification is the
 * device's failure: that partition goes to the CPU instead. */
static void commit_batch_locked(cuzk_engine *e, worker *w, part **ps, size_t n, const batch_run *r)
{
    for (size_t i = 0; i < n; i++) {
        part *p = ps[i];
        job *j = p->j;
        p->prove_ms = r->prove_ms / n;
        j->t.prove_ms += r->prove_ms / n;
        j->t.verify_ms += r->verify_ms / n;
        if (!r->st && r->vst[i] && w->dev && j->status == CUZK_JOB_UNKNOWN && !atomic_load(&e->abort_work)) {
            char why[CUZK_ENGINE_ERR_LEN + 32];
            snprintf(why, sizeof why, "self-verification failed: %s", r->verr[i]);
            device_fallback_locked(e, w, &ps[i], 1, why);
            continue;
        }
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
            w->proved++;
            w->fails = 0;
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
    batch b = {e, w, ps, n, w->preemptible, false};
    batch_run r = {0};
    w->dev_st = 0;
    w->dev_err[0] = 0;
    run_prove(e, w, &b, &r);
    pthread_mutex_lock(&e->mu);
    w->preemptible = false;
    bool abort = atomic_load(&e->abort_work);
    if (r.st == CUZK_ENGINE_ERR_CANCELLED && atomic_load(&b.preempted) && !abort)
        requeue_batch_locked(e, ps, n, &r);
    else if (r.pce_changed && !abort)
        requeue_pce_locked(e, ps, n, &r);
    else if (r.st && w->dev && w->dev_st && !abort)
        device_fallback_locked(e, w, ps, n, w->dev_err);
    else
        commit_batch_locked(e, w, ps, n, &r);
    run_free(&r);
}

/* ---- who takes what ------------------------------------------------------------ */

static bool usable_devices(const cuzk_engine *e)
{
    for (size_t i = 1; i < e->n_provers; i++)
        if (!e->provers[i].disabled) return true;
    return false;
}

/* Waiting on the prove queue: idle, or collecting a batch. */
static bool prover_free(const worker *w)
{
    return !w->disabled && (!strcmp(w->info.state, "idle") || !strcmp(w->info.state, "batching"));
}

/* The CPU prover takes any partition now: no device worker is in use, or
 * gpus.cpu_worker lets it and every device worker is busy. */
static bool cpu_takes_any_locked(const cuzk_engine *e)
{
    size_t usable = 0, free = 0;
    for (size_t i = 1; i < e->n_provers; i++) {
        usable += !e->provers[i].disabled;
        free += prover_free(&e->provers[i]);
    }
    return !usable || (e->cpu_takes && !free);
}

static bool may_take(const worker *w, const part *p, bool cpu_any)
{
    return w->dev ? !w->disabled && !p->cpu_only : cpu_any || p->cpu_only;
}

/* The first partition of the prove queue this worker may take. */
static part *head_for_locked(cuzk_engine *e, const worker *w, bool cpu_any)
{
    for (part *q = e->proveq; q; q = q->pnext)
        if (may_take(w, q, cpu_any)) return q;
    return NULL;
}

/* A device worker takes its share of a batch when other device workers are
 * free too, so that queued partitions spread over the devices. */
static size_t batch_cap_locked(const cuzk_engine *e, const worker *w, size_t have)
{
    size_t max = e->cfg.max_batch_size, free = 0;
    if (!w->dev) return max;
    for (size_t i = 1; i < e->n_provers; i++)
        free += prover_free(&e->provers[i]);
    size_t share = free > 1 ? (have + free - 1) / free : have;
    return share && share < max ? share : max;
}

void cuzk_eng_prover_ready_locked(cuzk_engine *e, const part *p)
{
    if (p->j->prio != CUZK_PRIO_CRITICAL) return;
    bool cpu_any = cpu_takes_any_locked(e);
    for (size_t i = 0; i < e->n_provers; i++)
        if (prover_free(&e->provers[i]) && may_take(&e->provers[i], p, cpu_any)) return; /* taken soon */
    /* a busy worker that may take it once free: device workers first (the
     * CPU prover would take it only while they are busy anyway) */
    for (size_t k = 0; k < e->n_provers; k++) {
        worker *w = &e->provers[(k + 1) % e->n_provers];
        bool could = w->dev ? !w->disabled && !p->cpu_only : p->cpu_only || e->cpu_takes || !usable_devices(e);
        if (could && w->preemptible && !atomic_load(&w->preempt)) {
            atomic_store(&w->preempt, true);
            cuzk_log(CUZK_LOG_INFO, p->j->id, "CRITICAL partition ready: preempting prover worker %s", w->info.name);
            return;
        }
    }
}

/* Take the batch (mu held): head and the same circuit and priority behind
 * it that this worker may prove, at most cap. */
static size_t take_batch_locked(cuzk_engine *e, worker *w, const part *head, size_t cap, bool cpu_any)
{
    size_t n = 0;
    part **pp = &e->proveq, **ps = w->batch;
    while (*pp && n < cap) {
        part *q = *pp;
        if (same_batch(q, head) && may_take(w, q, cpu_any)) {
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
    return n;
}

void *cuzk_eng_prover_main(void *arg)
{
    worker *w = arg;
    cuzk_engine *e = w->e;
    size_t max = e->cfg.max_batch_size;
    part **ps = w->batch; /* allocated by create */
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        bool cpu_any = cpu_takes_any_locked(e);
        part *head = w->disabled ? NULL : head_for_locked(e, w, cpu_any);
        if (!head) {
            cuzk_eng_worker_set(w, w->disabled ? "failed" : "idle", NULL);
            pthread_cond_wait(&e->cv_work, &e->mu);
            continue;
        }
        size_t have = 0;
        for (part *q = head; q && have < max; q = q->pnext) have += same_batch(q, head) && may_take(w, q, cpu_any);
        uint64_t now = cuzk_eng_now_ms(), dl = head->t_ready + e->cfg.max_batch_wait_ms;
        if (have < max && now < dl && more_coming_locked(e, head)) {
            /* Waiting re-reads the head on every wake-up: a more urgent
             * partition arriving becomes the head and is proved first. */
            cuzk_eng_worker_set(w, "batching", head->j);
            w->info.partition = (int64_t)head->k;
            struct timespec ts;
            cuzk_eng_timeout_at(&ts, dl - now);
            pthread_cond_timedwait(&e->cv_work, &e->mu, &ts);
            continue;
        }
        size_t n = take_batch_locked(e, w, head, batch_cap_locked(e, w, have), cpu_any);
        cuzk_eng_worker_set(w, "proving", ps[0]->j);
        w->info.partition = (int64_t)ps[0]->k;
        w->preemptible = batch_preemptible(e, ps, n);
        atomic_store(&w->preempt, false);
        e->n_batches++;
        e->n_batched_parts += n;
        cuzk_log(CUZK_LOG_DEBUG, ps[0]->j->id, "%s proving a batch of %zu partition(s) of %s", w->info.name, n,
                 ps[0]->j->circuit_id);
        pthread_cond_broadcast(&e->cv_work); /* pipeline slots freed; the CPU prover sees this worker busy */
        eng_dead *dead = cuzk_eng_srs_dead_take_locked(e); /* stale entries released by the last commit */
        pthread_mutex_unlock(&e->mu);
        cuzk_eng_srs_dead_free(dead);
        prove_batch(e, w, ps, n); /* returns with mu held */
    }
    cuzk_eng_worker_set(w, "stopped", NULL);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
