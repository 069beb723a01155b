/* Observability: per-kind counters and phase histograms, the status
 * snapshot (GetStatus), Prometheus text (GetMetrics, /metrics) and the
 * /status JSON page.  Each document is one consistent snapshot: the figures
 * (and, for /status, every retained job with its partitions) are copied
 * under the engine lock in one pass, then formatted after it is released,
 * so a large page costs the lock a copy, not its formatting.  Every JSON
 * string is valid UTF-8 (request ids are bytes: a broken sequence becomes
 * U+FFFD). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "engine/sbuf.h"

/* The build's version (tools/CMakeLists.txt sets it for this file too, the
 * string `cuzk-daemon --version` prints): cuzk_build_info and /status. */
#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif

/* Seconds; the last bucket is +Inf.  Spans WinningPoSt (< 1 s) to a
 * 32 GiB PoRep on CPU (hours). */
static const double bucket_s[HIST_BUCKETS] = {0.05, 0.1, 0.25, 0.5, 1,   2.5,  5,
                                              10,   30,  60,   300, 900, 3600, 14400};
static const char *const phase_names[5] = {"queue_wait", "srs_load", "synthesis", "prove", "total"};

void cuzk_eng_stats_record_locked(cuzk_engine *e, const job *j)
{
    kind_stats *k = &e->stats[j->kind < CUZK_PROOF_KINDS ? j->kind : 0];
    if (j->status == CUZK_JOB_COMPLETED)
        k->completed++;
    else if (j->status == CUZK_JOB_FAILED)
        k->failed++;
    else
        k->cancelled++;
    if (j->status != CUZK_JOB_COMPLETED) return; /* durations of finished proofs only */
    const uint64_t ms[5] = {j->t.queue_wait_ms, j->t.srs_load_ms, j->t.synthesis_ms, j->t.prove_ms,
                            j->t.total_ms};
    for (int p = 0; p < 5; p++) {
        double s = (double)ms[p] / 1000.0;
        int b = 0;
        while (b < HIST_BUCKETS && s > bucket_s[b])
            b++;
        k->hist[p][b]++;
        k->hist_sum[p] += s;
        k->hist_count[p]++;
    }
}

/* Per device (the CPU first): its workers' counters; busy time is the
 * device lock's (devices.c), the CPU's its prover's working time. */
static void devices_locked(const cuzk_engine *e, cuzk_engine_status *out, uint64_t now)
{
    struct cuzk_engine_device_info *cpu = &out->devices[out->n_devices++];
    const worker *c = &e->provers[0];
    snprintf(cpu->device, sizeof cpu->device, "cpu");
    snprintf(cpu->name, sizeof cpu->name, "cpu");
    cpu->workers = 1;
    cpu->partitions = c->proved;
    cpu->busy_ms = c->info.busy_ms + (c->info.busy_since_ms && now > c->info.busy_since_ms ? now - c->info.busy_since_ms : 0);
    for (size_t d = 0; d < e->n_devs; d++) {
        struct cuzk_engine_device_info *o = &out->devices[out->n_devices++];
        const eng_device *dv = &e->devs[d];
        snprintf(o->device, sizeof o->device, "%s", dv->label);
        snprintf(o->name, sizeof o->name, "%s", dv->name);
        o->workers = dv->workers;
        o->mem_bytes = dv->mem;
        o->busy_ms = atomic_load(&((eng_device *)dv)->busy_us) / 1000u;
        for (size_t i = 1; i < e->n_provers; i++)
            if (e->provers[i].dev == dv) {
                o->partitions += e->provers[i].proved;
                o->fallbacks += e->provers[i].fallbacks;
            }
    }
}

/* The GetStatus figures (mu held); CUZK_ERR_NOMEM leaves out cleared. */
static int status_locked(cuzk_engine *e, cuzk_engine_status *out)
{
    memset(out, 0, sizeof *out);
    out->uptime_s = (cuzk_eng_now_ms() - e->t_create) / 1000u;
    for (int k = 0; k < CUZK_PROOF_KINDS; k++) {
        out->completed += e->stats[k].completed;
        out->failed += e->stats[k].failed;
        out->cancelled += e->stats[k].cancelled;
        out->queues[k].kind = (cuzk_proof_kind)k;
    }
    for (job *j = e->jobs_head; j; j = j->next) {
        if (j->status != CUZK_JOB_UNKNOWN || j->kind >= CUZK_PROOF_KINDS) continue;
        if (j->next_part == 0)
            out->queues[j->kind].pending++;
        else
            out->queues[j->kind].in_progress++;
    }
    out->memory_used = e->mem_reserved + e->srs_hot_bytes;
    out->batches = e->n_batches;
    out->batched_partitions = e->n_batched_parts;
    out->preemptions = e->n_preemptions;
    out->request_memory_used = e->req_reserved;
    out->buffer_pool_bytes = e->pool_idle_bytes;
    out->buffer_pool_hits = e->n_pool_hits;
    out->buffer_pool_misses = e->n_pool_misses;
    out->request_memory_limit = e->cfg.request_budget;
    out->live_jobs = (uint32_t)e->n_live;
    out->live_jobs_limit = e->cfg.max_live_jobs;
    out->ended_jobs = (uint32_t)e->n_ended;
    out->ended_jobs_limit = e->cfg.max_ended_jobs;
    out->ended_jobs_dropped = e->n_ended_dropped;
    out->memory_limit = e->mem_limit;
    size_t ns = 0;
    for (srs_entry *s = e->srs; s; s = s->next)
        ns++;
    out->srs = calloc(ns ? ns : 1, sizeof *out->srs);
    out->workers = calloc(e->n_synth_workers + e->n_provers, sizeof *out->workers);
    out->devices = calloc(e->n_devs + 1, sizeof *out->devices);
    if (!out->srs || !out->workers || !out->devices) {
        cuzk_engine_status_clear(out);
        return CUZK_ERR_NOMEM;
    }
    uint64_t now = cuzk_eng_now_ms();
    for (srs_entry *s = e->srs; s; s = s->next) {
        cuzk_engine_srs_info *i = &out->srs[out->n_srs++];
        snprintf(i->circuit_id, sizeof i->circuit_id, "%s", s->id);
        i->tier = s->tier;
        i->size_bytes = s->size;
        i->ref_count = s->refs;
        i->idle_ms = s->refs ? 0 : now - s->last_used;
        out->srs_bytes[s->tier] += s->size;
    }
    for (size_t i = 0; i < e->n_provers; i++)
        out->workers[out->n_workers++] = e->provers[i].info;
    out->n_provers = e->n_provers;
    for (size_t i = 0; i < e->n_synth_workers; i++)
        out->workers[out->n_workers++] = e->synth[i].info;
    devices_locked(e, out, now);
    return CUZK_OK;
}

int cuzk_engine_get_status(cuzk_engine *e, cuzk_engine_status *out)
{
    if (!e || !out) return CUZK_ERR_ARG;
    pthread_mutex_lock(&e->mu);
    int rc = status_locked(e, out);
    pthread_mutex_unlock(&e->mu);
    return rc;
}

void cuzk_engine_status_clear(cuzk_engine_status *s)
{
    if (!s) return;
    free(s->srs);
    free(s->workers);
    free(s->devices);
    memset(s, 0, sizeof *s);
}

static const char *tier_name(cuzk_srs_tier t)
{
    return t == CUZK_SRS_HOT ? "hot" : t == CUZK_SRS_WARM ? "warm" : "cold";
}

/* ---- the snapshot ------------------------------------------------------------------ */

typedef struct snap_part {
    int state;
    uint64_t synth_ms, prove_ms;
    uint64_t mark[5];                /* ms after the job's submit: synthesis, ready, prove, verify, done */
    size_t n_marks;                  /* those reached in this attempt */
    const char *synth_by, *prove_by; /* worker names (the engine's, fixed at create) */
} snap_part;

typedef struct snap_job {
    size_t id, circuit, error; /* offsets into report_snap.str */
    cuzk_proof_kind kind;
    int prio;
    const char *status; /* a static name */
    bool running;       /* started, not ended: a Rust-style "pipeline" */
    uint64_t age_ms, started_ago_ms, total_ms;
    cuzk_engine_timings t;
    size_t part0, nparts, n_done; /* parts[part0 .. part0 + nparts) */
} snap_job;

/* Everything the three documents print, copied under mu. */
typedef struct report_snap {
    cuzk_engine_status st;
    kind_stats stats[CUZK_PROOF_KINDS];
    size_t n_proveq, n_synth, synth_active;
    uint64_t uptime_secs;
    uint64_t now_ms;                      /* engine clock of the copy */
    uint64_t oldest_ms[CUZK_PROOF_KINDS]; /* oldest live job per kind */
    uint64_t srs_fail[3], rejected[2];    /* metrics_ops */
    snap_job *jobs;                       /* with_jobs only */
    size_t n_jobs;
    snap_part *parts;
    size_t n_parts;
    sbuf str;                  /* the jobs' strings, each NUL-terminated */
    eng_history_snap *history; /* with_jobs only (history.c) */
} report_snap;

static void snap_free(report_snap *s)
{
    cuzk_engine_status_clear(&s->st);
    free(s->jobs);
    free(s->parts);
    free(s->str.p);
    cuzk_eng_history_snap_free(s->history);
    memset(s, 0, sizeof *s);
}

static size_t snap_str(report_snap *s, const char *str)
{
    size_t off = s->str.len;
    cuzk_eng_sb_put(&s->str, str, strlen(str) + 1);
    return off;
}

/* A partition's timeline: the marks its state has passed, in order (a
 * preempted partition synthesized again has older marks from its first
 * attempt: a mark before the one it follows is not of this attempt). */
static void snap_part_locked(snap_part *o, const part *p, uint64_t t_submit)
{
    static const size_t cap[] = {0, 1, 2, 4, 5, 5}; /* by state: queued .. dropped */
    const uint64_t t[5] = {p->t_start, p->t_ready, p->t_prove, p->t_verify, p->t_done};
    *o = (snap_part){.state = p->state,
                     .synth_ms = p->synth_ms,
                     .prove_ms = p->prove_ms,
                     .synth_by = p->synth_by,
                     .prove_by = p->prove_by};
    size_t n = p->state >= 0 && p->state <= P_DROPPED ? cap[p->state] : 0;
    for (size_t i = 0; i < n && t[i] >= t_submit && (i == 0 || t[i] >= t[i - 1]) && t[i]; i++)
        o->mark[o->n_marks++] = t[i] - t_submit;
}

static void snap_job_locked(report_snap *s, const job *j, uint64_t now)
{
    snap_job *o = &s->jobs[s->n_jobs++];
    bool live = j->status == CUZK_JOB_UNKNOWN;
    o->id = snap_str(s, j->id);
    o->circuit = snap_str(s, j->circuit_id);
    o->error = snap_str(s, j->error);
    o->kind = j->kind;
    o->prio = (int)j->prio;
    o->status = live ? (j->next_part ? "RUNNING" : "QUEUED") : cuzk_job_status_name(j->status);
    o->running = live && j->t_start && j->parts;
    o->age_ms = now - j->t_submit;
    o->started_ago_ms = j->t_start ? now - j->t_start : 0;
    o->total_ms = live ? now - j->t_submit : j->t.total_ms;
    o->t = j->t;
    o->part0 = s->n_parts;
    o->nparts = j->parts ? j->nparts : 0;
    o->n_done = j->n_done;
    for (size_t k = 0; k < o->nparts; k++)
        snap_part_locked(&s->parts[s->n_parts++], &j->parts[k], j->t_submit);
}

/* Every job on the list (live and retained), mu held. */
static int snap_jobs_locked(report_snap *s, cuzk_engine *e, uint64_t now)
{
    size_t nj = 0, np = 0;
    for (const job *j = e->jobs_head; j; j = j->next) {
        nj++;
        np += j->parts ? j->nparts : 0;
    }
    s->jobs = calloc(nj ? nj : 1, sizeof *s->jobs);
    s->parts = calloc(np ? np : 1, sizeof *s->parts);
    if (!s->jobs || !s->parts || !cuzk_eng_sb_grow(&s->str, nj * 64)) return CUZK_ERR_NOMEM;
    for (const job *j = e->jobs_head; j; j = j->next)
        snap_job_locked(s, j, now);
    return s->str.oom ? CUZK_ERR_NOMEM : CUZK_OK;
}

/* The figures metrics_ops prints (mu held). */
static void snap_ops_locked(report_snap *s, const cuzk_engine *e, uint64_t now)
{
    s->now_ms = now;
    for (const job *j = e->jobs_head; j; j = j->next)
        if (j->status == CUZK_JOB_UNKNOWN && j->kind < CUZK_PROOF_KINDS &&
            now - j->t_submit > s->oldest_ms[j->kind])
            s->oldest_ms[j->kind] = now - j->t_submit;
    memcpy(s->srs_fail, e->n_srs_fail, sizeof s->srs_fail);
    memcpy(s->rejected, e->n_rejected, sizeof s->rejected);
}

static int snap_take(cuzk_engine *e, report_snap *s, bool with_jobs)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&e->mu);
    uint64_t now = cuzk_eng_now_ms();
    int rc = status_locked(e, &s->st);
    memcpy(s->stats, e->stats, sizeof s->stats);
    s->n_proveq = e->n_proveq;
    s->n_synth = e->n_synth;
    for (size_t i = 0; i < e->n_synth_workers; i++)
        s->synth_active += strcmp(e->synth[i].info.state, "idle") != 0;
    s->uptime_secs = (now - e->t_create) / 1000;
    snap_ops_locked(s, e, now);
    if (!rc && with_jobs) rc = snap_jobs_locked(s, e, now);
    if (!rc && with_jobs && !(s->history = cuzk_eng_history_snap_locked(e, now))) rc = CUZK_ERR_NOMEM;
    pthread_mutex_unlock(&e->mu);
    if (rc) snap_free(s);
    return rc;
}

/* ---- Prometheus text ------------------------------------------------------------------ */

/* The Rust cuzk daemon's metric names and labels, so that its dashboards
 * keep working: totals over the wire kinds, per-kind counters labelled
 * proof_kind = porep_c2 | snap_update | window_post | winning_post, and the
 * duration of completed proofs (the "total" phase of cuzk_phase_seconds). */
static void rust_metrics(sbuf *b, const report_snap *s)
{
    static const char *const label[CUZK_PROOF_KINDS] = {NULL,          "porep_c2",     "snap_update",
                                                        "window_post", "winning_post", NULL};
    uint32_t pending = 0, running = 0;
    for (int k = 0; k < CUZK_PROOF_KINDS; k++) { /* totals: every kind, as GetStatus */
        pending += s->st.queues[k].pending;
        running += s->st.queues[k].in_progress;
    }
    cuzk_eng_sb_printf(b,
                       "# HELP cuzk_proofs_completed_total Proofs completed (Rust cuzk name).\n"
                       "# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total %llu\n"
                       "# HELP cuzk_proofs_failed_total Proofs failed (Rust cuzk name).\n"
                       "# TYPE cuzk_proofs_failed_total counter\ncuzk_proofs_failed_total %llu\n"
                       "# HELP cuzk_queue_depth Jobs waiting to start (Rust cuzk name).\n"
                       "# TYPE cuzk_queue_depth gauge\ncuzk_queue_depth %u\n"
                       "# HELP cuzk_running_jobs Jobs started, not ended (Rust cuzk name).\n"
                       "# TYPE cuzk_running_jobs gauge\ncuzk_running_jobs %u\n"
                       "# HELP cuzk_gpu_workers Prover workers: the CPU prover and the device workers.\n"
                       "# TYPE cuzk_gpu_workers gauge\ncuzk_gpu_workers %zu\n",
                       (unsigned long long)s->st.completed, (unsigned long long)s->st.failed, pending,
                       running, s->st.n_provers);
    static const char *const fam[] = {"cuzk_proofs_completed", "cuzk_proofs_failed",
                                      "cuzk_proof_duration_seconds"};
    for (int f = 0; f < 3; f++) {
        cuzk_eng_sb_printf(b, "# TYPE %s %s\n", fam[f], f == 2 ? "summary" : "counter");
        for (int k = 1; k <= CUZK_PROOF_WINNING_POST; k++) {
            const kind_stats *ks = &s->stats[k];
            if (f < 2)
                cuzk_eng_sb_printf(b, "%s{proof_kind=\"%s\"} %llu\n", fam[f], label[k],
                                   (unsigned long long)(f ? ks->failed : ks->completed));
            else
                cuzk_eng_sb_printf(b, "%s_sum{proof_kind=\"%s\"} %.3f\n%s_count{proof_kind=\"%s\"} %llu\n",
                                   fam[f], label[k], ks->hist_sum[4], fam[f], label[k],
                                   (unsigned long long)ks->hist_count[4]);
        }
    }
}

static void metrics_jobs(sbuf *b, const report_snap *s)
{
    cuzk_eng_sb_printf(b, "# HELP cuzk_jobs_total Jobs that ended, by proof kind and status.\n"
                          "# TYPE cuzk_jobs_total counter\n");
    for (int k = 1; k < CUZK_PROOF_KINDS; k++) {
        const kind_stats *ks = &s->stats[k];
        const char *kn = cuzk_proof_kind_name((cuzk_proof_kind)k);
        cuzk_eng_sb_printf(b, "cuzk_jobs_total{kind=\"%s\",status=\"completed\"} %llu\n", kn,
                           (unsigned long long)ks->completed);
        cuzk_eng_sb_printf(b, "cuzk_jobs_total{kind=\"%s\",status=\"failed\"} %llu\n", kn,
                           (unsigned long long)ks->failed);
        cuzk_eng_sb_printf(b, "cuzk_jobs_total{kind=\"%s\",status=\"cancelled\"} %llu\n", kn,
                           (unsigned long long)ks->cancelled);
    }
    cuzk_eng_sb_printf(b, "# HELP cuzk_phase_seconds Per-phase duration of completed proofs.\n"
                          "# TYPE cuzk_phase_seconds histogram\n");
    for (int k = 1; k < CUZK_PROOF_KINDS; k++) {
        const kind_stats *ks = &s->stats[k];
        const char *kn = cuzk_proof_kind_name((cuzk_proof_kind)k);
        for (int p = 0; p < 5; p++) {
            uint64_t cum = 0;
            for (int i = 0; i <= HIST_BUCKETS; i++) {
                cum += ks->hist[p][i];
                if (i < HIST_BUCKETS)
                    cuzk_eng_sb_printf(b,
                                       "cuzk_phase_seconds_bucket{kind=\"%s\",phase=\"%s\",le=\"%g\"} %llu\n",
                                       kn, phase_names[p], bucket_s[i], (unsigned long long)cum);
                else
                    cuzk_eng_sb_printf(
                        b, "cuzk_phase_seconds_bucket{kind=\"%s\",phase=\"%s\",le=\"+Inf\"} %llu\n", kn,
                        phase_names[p], (unsigned long long)cum);
            }
            cuzk_eng_sb_printf(b, "cuzk_phase_seconds_sum{kind=\"%s\",phase=\"%s\"} %.3f\n", kn,
                               phase_names[p], ks->hist_sum[p]);
            cuzk_eng_sb_printf(b, "cuzk_phase_seconds_count{kind=\"%s\",phase=\"%s\"} %llu\n", kn,
                               phase_names[p], (unsigned long long)ks->hist_count[p]);
        }
    }
}

static void metrics_pipeline(sbuf *b, const report_snap *s)
{
    const cuzk_engine_status *st = &s->st;
    cuzk_eng_sb_printf(b, "# HELP cuzk_queue_jobs Jobs not ended, by kind and state.\n"
                          "# TYPE cuzk_queue_jobs gauge\n");
    for (int k = 1; k < CUZK_PROOF_KINDS; k++) {
        const char *kn = cuzk_proof_kind_name((cuzk_proof_kind)k);
        cuzk_eng_sb_printf(b, "cuzk_queue_jobs{kind=\"%s\",state=\"pending\"} %u\n", kn,
                           st->queues[k].pending);
        cuzk_eng_sb_printf(b, "cuzk_queue_jobs{kind=\"%s\",state=\"in_progress\"} %u\n", kn,
                           st->queues[k].in_progress);
    }
    cuzk_eng_sb_printf(
        b,
        "# HELP cuzk_ended_jobs Ended jobs whose records are kept for AwaitProof.\n"
        "# TYPE cuzk_ended_jobs gauge\ncuzk_ended_jobs %u\n"
        "# HELP cuzk_ended_jobs_dropped_total Ended-job records dropped by scheduler.max_ended_jobs "
        "before their retention.\n"
        "# TYPE cuzk_ended_jobs_dropped_total counter\ncuzk_ended_jobs_dropped_total %llu\n",
        st->ended_jobs, (unsigned long long)st->ended_jobs_dropped);
    cuzk_eng_sb_printf(b,
                       "# HELP cuzk_pipeline_partitions Partitions synthesizing / waiting for the prover.\n"
                       "# TYPE cuzk_pipeline_partitions gauge\n"
                       "cuzk_pipeline_partitions{stage=\"synthesis\"} %zu\n"
                       "cuzk_pipeline_partitions{stage=\"prove_queue\"} %zu\n",
                       s->n_synth, s->n_proveq);
    cuzk_eng_sb_printf(b,
                       "# HELP cuzk_prover_batches_total Prover calls (batches).\n"
                       "# TYPE cuzk_prover_batches_total counter\ncuzk_prover_batches_total %llu\n"
                       "# HELP cuzk_prover_partitions_total Partitions proved in those batches.\n"
                       "# TYPE cuzk_prover_partitions_total counter\ncuzk_prover_partitions_total %llu\n",
                       (unsigned long long)st->batches, (unsigned long long)st->batched_partitions);
    cuzk_eng_sb_printf(b,
                       "# HELP cuzk_prover_preemptions_total Prover calls stopped for a CRITICAL partition.\n"
                       "# TYPE cuzk_prover_preemptions_total counter\ncuzk_prover_preemptions_total %llu\n",
                       (unsigned long long)st->preemptions);
}

static void metrics_resources(sbuf *b, const cuzk_engine_status *st)
{
    cuzk_eng_sb_printf(b,
                       "# HELP cuzk_memory_bytes Memory budget: used (reservations + hot SRS) and limit.\n"
                       "# TYPE cuzk_memory_bytes gauge\n"
                       "cuzk_memory_bytes{type=\"used\"} %llu\ncuzk_memory_bytes{type=\"limit\"} %llu\n",
                       (unsigned long long)st->memory_used, (unsigned long long)st->memory_limit);
    cuzk_eng_sb_printf(b, "# HELP cuzk_srs_bytes SRS bytes per tier.\n# TYPE cuzk_srs_bytes gauge\n");
    for (int t = 0; t < 3; t++)
        cuzk_eng_sb_printf(b, "cuzk_srs_bytes{tier=\"%s\"} %llu\n", tier_name((cuzk_srs_tier)t),
                           (unsigned long long)st->srs_bytes[t]);
    cuzk_eng_sb_printf(b,
                       "# HELP cuzk_srs_refs References held per SRS entry.\n# TYPE cuzk_srs_refs gauge\n");
    for (size_t i = 0; i < st->n_srs; i++)
        cuzk_eng_sb_printf(b, "cuzk_srs_refs{circuit=\"%s\",tier=\"%s\"} %u\n", st->srs[i].circuit_id,
                           tier_name(st->srs[i].tier), st->srs[i].ref_count);
    cuzk_eng_sb_printf(b, "# HELP cuzk_worker_busy 1 when a worker is not idle.\n"
                          "# TYPE cuzk_worker_busy gauge\n");
    for (size_t i = 0; i < st->n_workers; i++)
        cuzk_eng_sb_printf(b, "cuzk_worker_busy{worker=\"%s\",state=\"%s\"} %d\n", st->workers[i].name,
                           st->workers[i].state, strcmp(st->workers[i].state, "idle") != 0);
}

/* What the operator's dashboard and alert rules need beyond the above
 * (packaging/grafana/cuzk.json, packaging/prometheus/cuzk-alerts.yml):
 * worker time spent working (rate() = busy fraction, which a 0/1 gauge
 * sampled every 15 s cannot give), how long the oldest live job of each
 * kind has waited (a WindowPoSt near its deadline shows before it ends),
 * parameter loads that failed and requests refused for lack of room. */
static void metrics_ops(sbuf *b, const report_snap *s)
{
    const cuzk_engine_status *st = &s->st;
    cuzk_eng_sb_printf(b, "# HELP cuzk_worker_busy_seconds_total Seconds each worker spent working (loading, "
                          "synthesizing, batching, proving, verifying).\n"
                          "# TYPE cuzk_worker_busy_seconds_total counter\n");
    for (size_t i = 0; i < st->n_workers; i++) {
        const cuzk_engine_worker_info *w = &st->workers[i];
        uint64_t ms = w->busy_ms +
                      (w->busy_since_ms && s->now_ms > w->busy_since_ms ? s->now_ms - w->busy_since_ms : 0);
        cuzk_eng_sb_printf(b, "cuzk_worker_busy_seconds_total{worker=\"%s\"} %.3f\n", w->name,
                           (double)ms / 1000.0);
    }
    cuzk_eng_sb_printf(b, "# HELP cuzk_worker_device The device of each prover worker (1).\n"
                          "# TYPE cuzk_worker_device gauge\n");
    for (size_t i = 0; i < st->n_provers; i++)
        cuzk_eng_sb_printf(b, "cuzk_worker_device{worker=\"%s\",device=\"%s\"} 1\n", st->workers[i].name,
                           st->workers[i].device);
    static const char *const dev_fam[4][2] = {
        {"cuzk_device_busy_seconds_total", "Seconds each device spent in backend calls (the CPU: its prover working)."},
        {"cuzk_device_partitions_total", "Partitions each device proved (self-verified)."},
        {"cuzk_device_fallbacks_total", "Partitions a device gave back to the CPU prover after an error."},
        {"cuzk_device_workers", "Prover workers per device."}};
    for (int f = 0; f < 4; f++) {
        cuzk_eng_sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", dev_fam[f][0], dev_fam[f][1], dev_fam[f][0],
                           f == 3 ? "gauge" : "counter");
        for (size_t d = 0; d < st->n_devices; d++) {
            const struct cuzk_engine_device_info *dv = &st->devices[d];
            if (f == 0)
                cuzk_eng_sb_printf(b, "%s{device=\"%s\"} %.3f\n", dev_fam[f][0], dv->device, (double)dv->busy_ms / 1000.0);
            else
                cuzk_eng_sb_printf(b, "%s{device=\"%s\"} %llu\n", dev_fam[f][0], dv->device,
                                   (unsigned long long)(f == 1 ? dv->partitions : f == 2 ? dv->fallbacks : dv->workers));
        }
    }
    cuzk_eng_sb_printf(
        b, "# HELP cuzk_oldest_job_seconds Age of the oldest queued or running job, by kind (0: none).\n"
           "# TYPE cuzk_oldest_job_seconds gauge\n");
    for (int k = 1; k < CUZK_PROOF_KINDS; k++)
        cuzk_eng_sb_printf(b, "cuzk_oldest_job_seconds{kind=\"%s\"} %.3f\n",
                           cuzk_proof_kind_name((cuzk_proof_kind)k), (double)s->oldest_ms[k] / 1000.0);
    static const char *const fail[3] = {"missing", "invalid", "too_big"};
    cuzk_eng_sb_printf(
        b, "# HELP cuzk_srs_load_failures_total Parameter loads that failed: file missing, refused "
           "(digest, validation, read error) or larger than the free budget.\n"
           "# TYPE cuzk_srs_load_failures_total counter\n");
    for (int r = 0; r < 3; r++)
        cuzk_eng_sb_printf(b, "cuzk_srs_load_failures_total{reason=\"%s\"} %llu\n", fail[r],
                           (unsigned long long)s->srs_fail[r]);
    cuzk_eng_sb_printf(
        b,
        "# HELP cuzk_requests_rejected_total Requests refused RESOURCE_EXHAUSTED: "
        "scheduler.max_queued_jobs or memory.request_budget reached.\n"
        "# TYPE cuzk_requests_rejected_total counter\n"
        "cuzk_requests_rejected_total{reason=\"queue_full\"} %llu\n"
        "cuzk_requests_rejected_total{reason=\"request_memory\"} %llu\n"
        "# HELP cuzk_request_memory_bytes Request memory (memory.request_budget): used and limit.\n"
        "# TYPE cuzk_request_memory_bytes gauge\n"
        "cuzk_request_memory_bytes{type=\"used\"} %llu\ncuzk_request_memory_bytes{type=\"limit\"} %llu\n",
        (unsigned long long)s->rejected[0], (unsigned long long)s->rejected[1],
        (unsigned long long)st->request_memory_used, (unsigned long long)st->request_memory_limit);
}

int cuzk_engine_metrics_text(cuzk_engine *e, char **out, size_t *len)
{
    if (!e || !out) return CUZK_ERR_ARG;
    report_snap s;
    int rc = snap_take(e, &s, false);
    if (rc) return rc;
    sbuf b = {0};
    cuzk_eng_sb_printf(&b,
                       "# HELP cuzk_build_info The daemon's version (as --version prints it).\n"
                       "# TYPE cuzk_build_info gauge\ncuzk_build_info{version=\"%s\"} 1\n"
                       "# HELP cuzk_uptime_seconds Seconds since the engine started.\n"
                       "# TYPE cuzk_uptime_seconds gauge\ncuzk_uptime_seconds %llu\n",
                       CUZK_VERSION, (unsigned long long)s.st.uptime_s);
    metrics_jobs(&b, &s);
    rust_metrics(&b, &s);
    metrics_pipeline(&b, &s);
    metrics_resources(&b, &s.st);
    metrics_ops(&b, &s);
    snap_free(&s);
    return cuzk_eng_sb_finish(&b, out, len);
}

/* ---- /status JSON --------------------------------------------------------------------- */

static const char *part_state_name(int s)
{
    static const char *const n[] = {"queued", "synthesizing", "ready", "proving", "done", "dropped"};
    return s >= 0 && s <= P_DROPPED ? n[s] : "?";
}

/* "key":"<escaped s>" */
static void json_kv_str(sbuf *b, const char *key, const char *s)
{
    cuzk_eng_sb_printf(b, "\"%s\":\"", key);
    cuzk_eng_sb_json_str(b, s);
    cuzk_eng_sb_put(b, "\"", 1);
}

/* The Rust daemon's /status fields (curio-compat.md), for operator UIs
 * written against it: uptime_secs, (memory{total,used,available}_bytes is
 * merged into our "memory" object above),
 * synthesis{max_concurrent, active}, pipelines (running jobs with their
 * partitions), gpu_workers (here the CPU prover as worker 0, ordinal -1),
 * allocations{srs, pce}, counters, buffers. */
static void rust_status_fields(sbuf *b, const report_snap *s)
{
    const cuzk_engine_status *st = &s->st;
    cuzk_eng_sb_printf(
        b, ",\"uptime_secs\":%llu,\"synthesis\":{\"max_concurrent\":%zu,\"active\":%zu},\"pipelines\":[",
        (unsigned long long)s->uptime_secs, st->n_workers - st->n_provers, s->synth_active);
    bool first = true;
    for (size_t i = 0; i < s->n_jobs; i++) {
        const snap_job *j = &s->jobs[i];
        if (!j->running) continue;
        cuzk_eng_sb_printf(b, "%s{", first ? "" : ",");
        first = false;
        json_kv_str(b, "job_id", s->str.p + j->id);
        cuzk_eng_sb_printf(b,
                           ",\"proof_kind\":\"%s\",\"started_secs_ago\":%llu,\"total_partitions\":%zu,"
                           "\"partitions_done\":%zu,\"partitions\":[",
                           cuzk_proof_kind_rust_name(j->kind), (unsigned long long)(j->started_ago_ms / 1000),
                           j->nparts, j->n_done);
        for (size_t k = 0; k < j->nparts; k++) {
            const snap_part *p = &s->parts[j->part0 + k];
            cuzk_eng_sb_printf(b, "%s{\"index\":%zu,\"state\":\"%s\",\"synth_ms\":%llu,\"gpu_ms\":%llu}",
                               k ? "," : "", k, part_state_name(p->state), (unsigned long long)p->synth_ms,
                               (unsigned long long)p->prove_ms);
        }
        cuzk_eng_sb_printf(b, "]}");
    }
    /* workers[0 .. n_provers) are the prover workers, [0] the CPU (status_locked) */
    cuzk_eng_sb_printf(b, "],\"gpu_workers\":[");
    for (size_t i = 0; i < st->n_provers; i++) {
        const cuzk_engine_worker_info *w = &st->workers[i];
        const char *colon = strchr(w->device, ':');
        uint64_t ms = w->busy_ms + (w->busy_since_ms && s->now_ms > w->busy_since_ms ? s->now_ms - w->busy_since_ms : 0);
        cuzk_eng_sb_printf(b, "%s{\"worker_id\":%zu,\"gpu_ordinal\":%ld,\"device\":\"%s\",\"state\":\"%s\",",
                           i ? "," : "", i, colon ? strtol(colon + 1, NULL, 10) : -1L, w->device, w->state);
        json_kv_str(b, "current_job", w->job_id);
        if (w->partition >= 0)
            cuzk_eng_sb_printf(b, ",\"current_partition\":%lld", (long long)w->partition);
        else
            cuzk_eng_sb_printf(b, ",\"current_partition\":null");
        cuzk_eng_sb_printf(b, ",\"busy_secs\":%llu}", (unsigned long long)(ms / 1000));
    }
    cuzk_eng_sb_printf(b, "],\"allocations\":{\"srs\":[");
    first = true;
    for (size_t i = 0; i < st->n_srs; i++) {
        if (st->srs[i].tier == CUZK_SRS_COLD) continue;
        cuzk_eng_sb_printf(b, "%s\"", first ? "" : ",");
        first = false;
        cuzk_eng_sb_json_str(b, st->srs[i].circuit_id);
        cuzk_eng_sb_put(b, "\"", 1);
    }
    cuzk_eng_sb_printf(
        b, "],\"pce\":[]},\"counters\":{\"proofs_completed\":%llu,\"proofs_failed\":%llu},\"buffers\":{}",
        (unsigned long long)st->completed, (unsigned long long)st->failed);
}

/* Budget bytes held by partitions in flight: what is used beyond HOT params
 * and the idle buffer sets (both also in memory_used). */
static uint64_t partitions_bytes(const cuzk_engine_status *st)
{
    uint64_t other = st->srs_bytes[CUZK_SRS_HOT] + st->buffer_pool_bytes;
    return st->memory_used > other ? st->memory_used - other : 0;
}

static void json_summary(sbuf *b, const cuzk_engine_status *st)
{
    cuzk_eng_sb_printf(
        b,
        "{\"version\":\"" CUZK_VERSION "\",\"uptime_seconds\":%llu,\"completed\":%llu,\"failed\":%llu,"
        "\"cancelled\":%llu,"
        "\"memory\":{\"used\":%llu,\"limit\":%llu,\"total_bytes\":%llu,\"used_bytes\":%llu,"
        "\"available_bytes\":%llu,\"buffer_pool_bytes\":%llu,\"buffer_pool_hits\":%llu,"
        "\"buffer_pool_misses\":%llu,\"partitions_bytes\":%llu,\"request_used\":%llu,"
        "\"request_limit\":%llu,\"live_jobs\":%u,\"live_jobs_limit\":%u},\"srs_bytes\":{\"hot\":%llu,"
        "\"warm\":%llu,\"cold\":%llu},"
        "\"ended_jobs\":{\"retained\":%u,\"limit\":%u,\"dropped\":%llu},\"queues\":[",
        (unsigned long long)st->uptime_s, (unsigned long long)st->completed, (unsigned long long)st->failed,
        (unsigned long long)st->cancelled, (unsigned long long)st->memory_used,
        (unsigned long long)st->memory_limit, (unsigned long long)st->memory_limit,
        (unsigned long long)st->memory_used,
        (unsigned long long)(st->memory_limit > st->memory_used ? st->memory_limit - st->memory_used : 0),
        (unsigned long long)st->buffer_pool_bytes, (unsigned long long)st->buffer_pool_hits,
        (unsigned long long)st->buffer_pool_misses, (unsigned long long)partitions_bytes(st),
        (unsigned long long)st->request_memory_used, (unsigned long long)st->request_memory_limit,
        st->live_jobs, st->live_jobs_limit, (unsigned long long)st->srs_bytes[0],
        (unsigned long long)st->srs_bytes[1], (unsigned long long)st->srs_bytes[2], st->ended_jobs,
        st->ended_jobs_limit, (unsigned long long)st->ended_jobs_dropped);
    for (int k = 1; k < CUZK_PROOF_KINDS; k++)
        cuzk_eng_sb_printf(b, "%s{\"kind\":\"%s\",\"pending\":%u,\"in_progress\":%u}", k > 1 ? "," : "",
                           cuzk_proof_kind_name((cuzk_proof_kind)k), st->queues[k].pending,
                           st->queues[k].in_progress);
    cuzk_eng_sb_printf(b, "],\"srs\":[");
    for (size_t i = 0; i < st->n_srs; i++) {
        cuzk_eng_sb_printf(b, "%s{", i ? "," : "");
        json_kv_str(b, "circuit_id", st->srs[i].circuit_id);
        cuzk_eng_sb_printf(b, ",\"tier\":\"%s\",\"size_bytes\":%llu,\"ref_count\":%u,\"idle_ms\":%llu}",
                           tier_name(st->srs[i].tier), (unsigned long long)st->srs[i].size_bytes,
                           st->srs[i].ref_count, (unsigned long long)st->srs[i].idle_ms);
    }
    cuzk_eng_sb_printf(b, "],\"workers\":[");
    for (size_t i = 0; i < st->n_workers; i++) {
        const cuzk_engine_worker_info *w = &st->workers[i];
        cuzk_eng_sb_printf(b, "%s{\"name\":\"%s\",\"state\":\"%s\",\"device\":", i ? "," : "", w->name,
                           w->state);
        if (w->device[0])
            cuzk_eng_sb_printf(b, "\"%s\"", w->device);
        else
            cuzk_eng_sb_put(b, "null", 4);
        cuzk_eng_sb_put(b, ",", 1);
        json_kv_str(b, "job_id", w->job_id);
        if (w->partition >= 0)
            cuzk_eng_sb_printf(b, ",\"partition\":%lld}", (long long)w->partition);
        else
            cuzk_eng_sb_printf(b, ",\"partition\":null}");
    }
    cuzk_eng_sb_printf(b, "],\"devices\":[");
    for (size_t d = 0; d < st->n_devices; d++) {
        const struct cuzk_engine_device_info *dv = &st->devices[d];
        cuzk_eng_sb_printf(b, "%s{\"device\":\"%s\",", d ? "," : "", dv->device);
        json_kv_str(b, "name", dv->name);
        cuzk_eng_sb_printf(b,
                           ",\"workers\":%u,\"memory_bytes\":%llu,\"partitions\":%llu,\"fallbacks\":%llu,"
                           "\"busy_ms\":%llu}",
                           dv->workers, (unsigned long long)dv->mem_bytes, (unsigned long long)dv->partitions,
                           (unsigned long long)dv->fallbacks, (unsigned long long)dv->busy_ms);
    }
    cuzk_eng_sb_put(b, "]", 1);
}

/* ,"timeline_ms":[...],"synthesis_worker":..,"prove_worker":..} -- the
 * marks reached (ms after submit: synthesis, ready, prove, verify, done)
 * and who did the work (absent until then). */
static void json_part_timeline(sbuf *b, const snap_part *p)
{
    cuzk_eng_sb_printf(b, ",\"timeline_ms\":[");
    for (size_t i = 0; i < p->n_marks; i++)
        cuzk_eng_sb_printf(b, "%s%llu", i ? "," : "", (unsigned long long)p->mark[i]);
    cuzk_eng_sb_put(b, "]", 1);
    if (p->n_marks >= 1 && p->synth_by) cuzk_eng_sb_printf(b, ",\"synthesis_worker\":\"%s\"", p->synth_by);
    if (p->n_marks >= 3 && p->prove_by) cuzk_eng_sb_printf(b, ",\"prove_worker\":\"%s\"", p->prove_by);
    cuzk_eng_sb_put(b, "}", 1);
}

static void json_job(sbuf *b, const report_snap *s, const snap_job *j)
{
    cuzk_eng_sb_put(b, "{", 1);
    json_kv_str(b, "job_id", s->str.p + j->id);
    cuzk_eng_sb_printf(b, ",\"kind\":\"%s\",\"priority\":%d,", cuzk_proof_kind_name(j->kind), j->prio);
    json_kv_str(b, "circuit_id", s->str.p + j->circuit);
    cuzk_eng_sb_printf(b, ",\"status\":\"%s\",\"age_ms\":%llu,", j->status, (unsigned long long)j->age_ms);
    json_kv_str(b, "error", s->str.p + j->error);
    cuzk_eng_sb_printf(b,
                       ",\"timings_ms\":{\"queue_wait\":%llu,\"srs_load\":%llu,\"synthesis\":%llu,"
                       "\"prove\":%llu,\"verify\":%llu,\"total\":%llu},\"partitions\":[",
                       (unsigned long long)j->t.queue_wait_ms, (unsigned long long)j->t.srs_load_ms,
                       (unsigned long long)j->t.synthesis_ms, (unsigned long long)j->t.prove_ms,
                       (unsigned long long)j->t.verify_ms, (unsigned long long)j->total_ms);
    for (size_t k = 0; k < j->nparts; k++) {
        const snap_part *p = &s->parts[j->part0 + k];
        cuzk_eng_sb_printf(b, "%s{\"index\":%zu,\"state\":\"%s\",\"synthesis_ms\":%llu,\"prove_ms\":%llu",
                           k ? "," : "", k, part_state_name(p->state), (unsigned long long)p->synth_ms,
                           (unsigned long long)p->prove_ms);
        json_part_timeline(b, p);
    }
    cuzk_eng_sb_put(b, "]}", 2);
}

int cuzk_engine_status_json(cuzk_engine *e, char **out, size_t *len)
{
    if (!e || !out) return CUZK_ERR_ARG;
    report_snap s;
    int rc = snap_take(e, &s, true);
    if (rc) return rc;
    sbuf b = {0};
    json_summary(&b, &s.st);
    cuzk_eng_sb_put(&b, ",\"jobs\":[", 9);
    for (size_t i = 0; i < s.n_jobs; i++) {
        if (i) cuzk_eng_sb_put(&b, ",", 1);
        json_job(&b, &s, &s.jobs[i]);
    }
    cuzk_eng_sb_put(&b, "]", 1);
    rust_status_fields(&b, &s);
    cuzk_eng_history_json(&b, s.history); /* recent, history, pce */
    cuzk_eng_sb_put(&b, "}\n", 2);
    snap_free(&s);
    return cuzk_eng_sb_finish(&b, out, len);
}
