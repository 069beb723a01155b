/* Observability: per-kind counters and phase histograms, the status
 * snapshot (GetStatus), Prometheus text (GetMetrics, /metrics) and the
 * /status JSON page.  All of it is read under the engine lock, so every
 * document is one consistent snapshot. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

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

int cuzk_engine_get_status(cuzk_engine *e, cuzk_engine_status *out)
{
    if (!e || !out) return CUZK_ERR_ARG;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
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
    out->memory_limit = e->mem_limit;
    size_t ns = 0;
    for (srs_entry *s = e->srs; s; s = s->next)
        ns++;
    out->srs = calloc(ns ? ns : 1, sizeof *out->srs);
    out->workers = calloc(e->n_synth_workers + 1, sizeof *out->workers);
    if (!out->srs || !out->workers) {
        pthread_mutex_unlock(&e->mu);
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
    out->workers[out->n_workers++] = e->prover.info;
    for (size_t i = 0; i < e->n_synth_workers; i++)
        out->workers[out->n_workers++] = e->synth[i].info;
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

void cuzk_engine_status_clear(cuzk_engine_status *s)
{
    if (!s) return;
    free(s->srs);
    free(s->workers);
    memset(s, 0, sizeof *s);
}

/* ---- growable text buffer --------------------------------------------------------- */

typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
        char *q = realloc(b->p, nc);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = nc;
    }
}

/* JSON string body (quotes added by the caller). */
static void sb_json_str(sbuf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(b, "\\%c", c);
        else if (c < 0x20)
            sb_printf(b, "\\u%04x", c);
        else
            sb_printf(b, "%c", c);
    }
}

static int sb_finish(sbuf *b, char **out, size_t *len)
{
    if (b->oom || !b->p) {
        free(b->p);
        return CUZK_ERR_NOMEM;
    }
    *out = b->p;
    if (len) *len = b->len;
    return CUZK_OK;
}

static const char *tier_name(cuzk_srs_tier t)
{
    return t == CUZK_SRS_HOT ? "hot" : t == CUZK_SRS_WARM ? "warm" : "cold";
}

/* The Rust cuzk daemon's metric names and labels, so that its dashboards
 * keep working: totals over the wire kinds, per-kind counters labelled
 * proof_kind = porep_c2 | snap_update | window_post | winning_post, and the
 * duration of completed proofs (the "total" phase of cuzk_phase_seconds). */
static void rust_metrics_locked(sbuf *b, const cuzk_engine *e, const cuzk_engine_status *st)
{
    static const char *const label[CUZK_PROOF_KINDS] = {NULL,          "porep_c2",     "snap_update",
                                                        "window_post", "winning_post", NULL};
    uint64_t done = 0, failed = 0;
    uint32_t pending = 0, running = 0;
    for (int k = 0; k < CUZK_PROOF_KINDS; k++) { /* totals: every kind, as GetStatus */
        done += e->stats[k].completed;
        failed += e->stats[k].failed;
        pending += st->queues[k].pending;
        running += st->queues[k].in_progress;
    }
    sb_printf(b,
              "# HELP cuzk_proofs_completed_total Proofs completed (Rust cuzk name).\n"
              "# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total %llu\n"
              "# HELP cuzk_proofs_failed_total Proofs failed (Rust cuzk name).\n"
              "# TYPE cuzk_proofs_failed_total counter\ncuzk_proofs_failed_total %llu\n"
              "# HELP cuzk_queue_depth Jobs waiting to start (Rust cuzk name).\n"
              "# TYPE cuzk_queue_depth gauge\ncuzk_queue_depth %u\n"
              "# HELP cuzk_running_jobs Jobs started, not ended (Rust cuzk name).\n"
              "# TYPE cuzk_running_jobs gauge\ncuzk_running_jobs %u\n"
              "# HELP cuzk_gpu_workers Prover workers (this build: the CPU prover).\n"
              "# TYPE cuzk_gpu_workers gauge\ncuzk_gpu_workers 1\n",
              (unsigned long long)done, (unsigned long long)failed, pending, running);
    static const char *const fam[] = {"cuzk_proofs_completed", "cuzk_proofs_failed",
                                      "cuzk_proof_duration_seconds"};
    for (int f = 0; f < 3; f++) {
        sb_printf(b, "# TYPE %s %s\n", fam[f], f == 2 ? "summary" : "counter");
        for (int k = 1; k <= CUZK_PROOF_WINNING_POST; k++) {
            const kind_stats *s = &e->stats[k];
            if (f < 2)
                sb_printf(b, "%s{proof_kind=\"%s\"} %llu\n", fam[f], label[k],
                          (unsigned long long)(f ? s->failed : s->completed));
            else
                sb_printf(b, "%s_sum{proof_kind=\"%s\"} %.3f\n%s_count{proof_kind=\"%s\"} %llu\n", fam[f],
                          label[k], s->hist_sum[4], fam[f], label[k], (unsigned long long)s->hist_count[4]);
        }
    }
}

int cuzk_engine_metrics_text(cuzk_engine *e, char **out, size_t *len)
{
    if (!e || !out) return CUZK_ERR_ARG;
    cuzk_engine_status st;
    int rc = cuzk_engine_get_status(e, &st);
    if (rc) return rc;
    sbuf b = {0};
    sb_printf(&b,
              "# HELP cuzk_build_info The daemon's version (as --version prints it).\n"
              "# TYPE cuzk_build_info gauge\ncuzk_build_info{version=\"%s\"} 1\n"
              "# HELP cuzk_uptime_seconds Seconds since the engine started.\n"
              "# TYPE cuzk_uptime_seconds gauge\ncuzk_uptime_seconds %llu\n",
              CUZK_VERSION, (unsigned long long)st.uptime_s);
    pthread_mutex_lock(&e->mu);
    sb_printf(&b, "# HELP cuzk_jobs_total Jobs that ended, by proof kind and status.\n"
                  "# TYPE cuzk_jobs_total counter\n");
    for (int k = 1; k < CUZK_PROOF_KINDS; k++) {
        const kind_stats *s = &e->stats[k];
        const char *kn = cuzk_proof_kind_name((cuzk_proof_kind)k);
        sb_printf(&b, "cuzk_jobs_total{kind=\"%s\",status=\"completed\"} %llu\n", kn,
                  (unsigned long long)s->completed);
        sb_printf(&b, "cuzk_jobs_total{kind=\"%s\",status=\"failed\"} %llu\n", kn,
                  (unsigned long long)s->failed);
        sb_printf(&b, "cuzk_jobs_total{kind=\"%s\",status=\"cancelled\"} %llu\n", kn,
                  (unsigned long long)s->cancelled);
    }
    sb_printf(&b, "# HELP cuzk_phase_seconds Per-phase duration of completed proofs.\n"
                  "# TYPE cuzk_phase_seconds histogram\n");
    for (int k = 1; k < CUZK_PROOF_KINDS; k++) {
        const kind_stats *s = &e->stats[k];
        const char *kn = cuzk_proof_kind_name((cuzk_proof_kind)k);
        for (int p = 0; p < 5; p++) {
            uint64_t cum = 0;
            for (int i = 0; i <= HIST_BUCKETS; i++) {
                cum += s->hist[p][i];
                if (i < HIST_BUCKETS)
                    sb_printf(&b, "cuzk_phase_seconds_bucket{kind=\"%s\",phase=\"%s\",le=\"%g\"} %llu\n", kn,
                              phase_names[p], bucket_s[i], (unsigned long long)cum);
                else
                    sb_printf(&b, "cuzk_phase_seconds_bucket{kind=\"%s\",phase=\"%s\",le=\"+Inf\"} %llu\n",
                              kn, phase_names[p], (unsigned long long)cum);
            }
            sb_printf(&b, "cuzk_phase_seconds_sum{kind=\"%s\",phase=\"%s\"} %.3f\n", kn, phase_names[p],
                      s->hist_sum[p]);
            sb_printf(&b, "cuzk_phase_seconds_count{kind=\"%s\",phase=\"%s\"} %llu\n", kn, phase_names[p],
                      (unsigned long long)s->hist_count[p]);
        }
    }
    rust_metrics_locked(&b, e, &st);
    size_t nproveq = e->n_proveq, nsynth = e->n_synth;
    pthread_mutex_unlock(&e->mu);
    sb_printf(&b, "# HELP cuzk_queue_jobs Jobs not ended, by kind and state.\n"
                  "# TYPE cuzk_queue_jobs gauge\n");
    for (int k = 1; k < CUZK_PROOF_KINDS; k++) {
        const char *kn = cuzk_proof_kind_name((cuzk_proof_kind)k);
        sb_printf(&b, "cuzk_queue_jobs{kind=\"%s\",state=\"pending\"} %u\n", kn, st.queues[k].pending);
        sb_printf(&b, "cuzk_queue_jobs{kind=\"%s\",state=\"in_progress\"} %u\n", kn,
                  st.queues[k].in_progress);
    }
    sb_printf(&b,
              "# HELP cuzk_pipeline_partitions Partitions synthesizing / waiting for the prover.\n"
              "# TYPE cuzk_pipeline_partitions gauge\n"
              "cuzk_pipeline_partitions{stage=\"synthesis\"} %zu\n"
              "cuzk_pipeline_partitions{stage=\"prove_queue\"} %zu\n",
              nsynth, nproveq);
    sb_printf(&b,
              "# HELP cuzk_prover_batches_total Prover calls (batches).\n"
              "# TYPE cuzk_prover_batches_total counter\ncuzk_prover_batches_total %llu\n"
              "# HELP cuzk_prover_partitions_total Partitions proved in those batches.\n"
              "# TYPE cuzk_prover_partitions_total counter\ncuzk_prover_partitions_total %llu\n",
              (unsigned long long)st.batches, (unsigned long long)st.batched_partitions);
    sb_printf(&b,
              "# HELP cuzk_prover_preemptions_total Prover calls stopped for a CRITICAL partition.\n"
              "# TYPE cuzk_prover_preemptions_total counter\ncuzk_prover_preemptions_total %llu\n",
              (unsigned long long)st.preemptions);
    sb_printf(&b,
              "# HELP cuzk_memory_bytes Memory budget: used (reservations + hot SRS) and limit.\n"
              "# TYPE cuzk_memory_bytes gauge\n"
              "cuzk_memory_bytes{type=\"used\"} %llu\ncuzk_memory_bytes{type=\"limit\"} %llu\n",
              (unsigned long long)st.memory_used, (unsigned long long)st.memory_limit);
    sb_printf(&b, "# HELP cuzk_srs_bytes SRS bytes per tier.\n# TYPE cuzk_srs_bytes gauge\n");
    for (int t = 0; t < 3; t++)
        sb_printf(&b, "cuzk_srs_bytes{tier=\"%s\"} %llu\n", tier_name((cuzk_srs_tier)t),
                  (unsigned long long)st.srs_bytes[t]);
    sb_printf(&b, "# HELP cuzk_srs_refs References held per SRS entry.\n# TYPE cuzk_srs_refs gauge\n");
    for (size_t i = 0; i < st.n_srs; i++)
        sb_printf(&b, "cuzk_srs_refs{circuit=\"%s\",tier=\"%s\"} %u\n", st.srs[i].circuit_id,
                  tier_name(st.srs[i].tier), st.srs[i].ref_count);
    sb_printf(&b, "# HELP cuzk_worker_busy 1 when a worker is not idle.\n"
                  "# TYPE cuzk_worker_busy gauge\n");
    for (size_t i = 0; i < st.n_workers; i++)
        sb_printf(&b, "cuzk_worker_busy{worker=\"%s\",state=\"%s\"} %d\n", st.workers[i].name,
                  st.workers[i].state, strcmp(st.workers[i].state, "idle") != 0);
    cuzk_engine_status_clear(&st);
    return sb_finish(&b, out, len);
}

static const char *part_state_name(int s)
{
    static const char *const n[] = {"queued", "synthesizing", "ready", "proving", "done", "dropped"};
    return s >= 0 && s <= P_DROPPED ? n[s] : "?";
}

/* The Rust daemon's /status fields (curio-compat.md), for operator UIs
 * written against it: uptime_secs, (memory{total,used,available}_bytes is
 * merged into our "memory" object above),
 * synthesis{max_concurrent, active}, pipelines (running jobs with their
 * partitions), gpu_workers (here the CPU prover as worker 0, ordinal -1),
 * allocations{srs, pce}, counters, buffers.  Caller holds e->mu. */
static void rust_status_fields(cuzk_engine *e, sbuf *b, uint64_t now)
{
    size_t active = 0;
    for (size_t i = 0; i < e->n_synth_workers; i++)
        active += strcmp(e->synth[i].info.state, "idle") != 0;
    sb_printf(b,
              ",\"uptime_secs\":%llu,\"synthesis\":{\"max_concurrent\":%zu,\"active\":%zu},\"pipelines\":[",
              (unsigned long long)((now - e->t_create) / 1000), e->n_synth_workers, active);
    bool first = true;
    for (job *j = e->jobs_head; j; j = j->next) {
        if (j->status != CUZK_JOB_UNKNOWN || !j->t_start || !j->parts) continue;
        sb_printf(b, "%s{\"job_id\":\"", first ? "" : ",");
        first = false;
        sb_json_str(b, j->id);
        sb_printf(b,
                  "\",\"proof_kind\":\"%s\",\"started_secs_ago\":%llu,\"total_partitions\":%zu,"
                  "\"partitions_done\":%zu,\"partitions\":[",
                  cuzk_proof_kind_rust_name(j->kind), (unsigned long long)((now - j->t_start) / 1000),
                  j->nparts, j->n_done);
        for (size_t k = 0; k < j->nparts; k++)
            sb_printf(b, "%s{\"index\":%zu,\"state\":\"%s\",\"synth_ms\":%llu,\"gpu_ms\":%llu}", k ? "," : "",
                      k, part_state_name(j->parts[k].state), (unsigned long long)j->parts[k].synth_ms,
                      (unsigned long long)j->parts[k].prove_ms);
        sb_printf(b, "]}");
    }
    sb_printf(b, "],\"gpu_workers\":[{\"worker_id\":0,\"gpu_ordinal\":-1,\"state\":\"%s\",\"current_job\":\"",
              e->prover.info.state);
    sb_json_str(b, e->prover.info.job_id);
    sb_printf(b, "\",\"current_partition\":null,\"busy_secs\":0}],\"allocations\":{\"srs\":[");
    first = true;
    for (srs_entry *s = e->srs; s; s = s->next) {
        if (s->tier == CUZK_SRS_COLD) continue;
        sb_printf(b, "%s\"", first ? "" : ",");
        first = false;
        sb_json_str(b, s->id);
        sb_printf(b, "\"");
    }
    uint64_t done = 0, failed = 0;
    for (int k = 0; k < CUZK_PROOF_KINDS; k++)
        done += e->stats[k].completed, failed += e->stats[k].failed;
    sb_printf(b,
              "],\"pce\":[]},\"counters\":{\"proofs_completed\":%llu,\"proofs_failed\":%llu},\"buffers\":{}",
              (unsigned long long)done, (unsigned long long)failed);
}

int cuzk_engine_status_json(cuzk_engine *e, char **out, size_t *len)
{
    if (!e || !out) return CUZK_ERR_ARG;
    cuzk_engine_status st;
    int rc = cuzk_engine_get_status(e, &st);
    if (rc) return rc;
    sbuf b = {0};
    sb_printf(&b,
              "{\"version\":\"" CUZK_VERSION "\",\"uptime_seconds\":%llu,\"completed\":%llu,\"failed\":%llu,"
              "\"cancelled\":%llu,"
              "\"memory\":{\"used\":%llu,\"limit\":%llu,\"total_bytes\":%llu,\"used_bytes\":%llu,"
              "\"available_bytes\":%llu,\"buffer_pool_bytes\":%llu,\"buffer_pool_hits\":%llu,"
              "\"buffer_pool_misses\":%llu},\"srs_bytes\":{\"hot\":%llu,"
              "\"warm\":%llu,\"cold\":%llu},\"queues\":[",
              (unsigned long long)st.uptime_s, (unsigned long long)st.completed,
              (unsigned long long)st.failed, (unsigned long long)st.cancelled,
              (unsigned long long)st.memory_used, (unsigned long long)st.memory_limit,
              (unsigned long long)st.memory_limit, (unsigned long long)st.memory_used,
              (unsigned long long)(st.memory_limit > st.memory_used ? st.memory_limit - st.memory_used : 0),
              (unsigned long long)st.buffer_pool_bytes, (unsigned long long)st.buffer_pool_hits,
              (unsigned long long)st.buffer_pool_misses, (unsigned long long)st.srs_bytes[0], (unsigned long long)st.srs_bytes[1],
              (unsigned long long)st.srs_bytes[2]);
    for (int k = 1; k < CUZK_PROOF_KINDS; k++)
        sb_printf(&b, "%s{\"kind\":\"%s\",\"pending\":%u,\"in_progress\":%u}", k > 1 ? "," : "",
                  cuzk_proof_kind_name((cuzk_proof_kind)k), st.queues[k].pending, st.queues[k].in_progress);
    sb_printf(&b, "],\"srs\":[");
    for (size_t i = 0; i < st.n_srs; i++) {
        sb_printf(&b, "%s{\"circuit_id\":\"", i ? "," : "");
        sb_json_str(&b, st.srs[i].circuit_id);
        sb_printf(&b, "\",\"tier\":\"%s\",\"size_bytes\":%llu,\"ref_count\":%u,\"idle_ms\":%llu}",
                  tier_name(st.srs[i].tier), (unsigned long long)st.srs[i].size_bytes, st.srs[i].ref_count,
                  (unsigned long long)st.srs[i].idle_ms);
    }
    sb_printf(&b, "],\"workers\":[");
    for (size_t i = 0; i < st.n_workers; i++) {
        sb_printf(&b, "%s{\"name\":\"%s\",\"state\":\"%s\",\"job_id\":\"", i ? "," : "", st.workers[i].name,
                  st.workers[i].state);
        sb_json_str(&b, st.workers[i].job_id);
        sb_printf(&b, "\"}");
    }
    sb_printf(&b, "],\"jobs\":[");
    cuzk_engine_status_clear(&st);
    pthread_mutex_lock(&e->mu);
    uint64_t now = cuzk_eng_now_ms();
    bool first = true;
    for (job *j = e->jobs_head; j; j = j->next) {
        sb_printf(&b, "%s{\"job_id\":\"", first ? "" : ",");
        first = false;
        sb_json_str(&b, j->id);
        sb_printf(&b, "\",\"kind\":\"%s\",\"priority\":%d,\"circuit_id\":\"", cuzk_proof_kind_name(j->kind),
                  (int)j->prio);
        sb_json_str(&b, j->circuit_id);
        sb_printf(&b, "\",\"status\":\"%s\",\"age_ms\":%llu,\"error\":\"",
                  j->status == CUZK_JOB_UNKNOWN ? (j->next_part ? "RUNNING" : "QUEUED")
                                                : cuzk_job_status_name(j->status),
                  (unsigned long long)(now - j->t_submit));
        sb_json_str(&b, j->error);
        sb_printf(&b,
                  "\",\"timings_ms\":{\"queue_wait\":%llu,\"srs_load\":%llu,\"synthesis\":%llu,"
                  "\"prove\":%llu,\"verify\":%llu,\"total\":%llu},\"partitions\":[",
                  (unsigned long long)j->t.queue_wait_ms, (unsigned long long)j->t.srs_load_ms,
                  (unsigned long long)j->t.synthesis_ms, (unsigned long long)j->t.prove_ms,
                  (unsigned long long)j->t.verify_ms,
                  (unsigned long long)(j->status == CUZK_JOB_UNKNOWN ? now - j->t_submit : j->t.total_ms));
        for (size_t k = 0; j->parts && k < j->nparts; k++)
            sb_printf(&b, "%s{\"index\":%zu,\"state\":\"%s\",\"synthesis_ms\":%llu,\"prove_ms\":%llu}",
                      k ? "," : "", k, part_state_name(j->parts[k].state),
                      (unsigned long long)j->parts[k].synth_ms, (unsigned long long)j->parts[k].prove_ms);
        sb_printf(&b, "]}");
    }
    sb_printf(&b, "]");
    rust_status_fields(e, &b, now);
    pthread_mutex_unlock(&e->mu);
    sb_printf(&b, "}\n");
    return sb_finish(&b, out, len);
}
