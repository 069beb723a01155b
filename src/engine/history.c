/* The engine's short memory for the status page: the last ENG_RECENT ended
 * jobs (with their error text, which the job record loses when it is
 * reaped after pipeline.result_retention) and one small sample per ended
 * proof, from which the page's throughput and latency chart is computed.
 *
 * Both are fixed rings inside the engine (~90 KB), written under e->mu at
 * a job's end and copied out by report.c's snapshot: nothing grows with
 * the number of jobs.  The samples cover the last hour unless more than
 * ENG_SAMPLES proofs ended in it (68 a minute); /status says how far back
 * they reach, so a chart never claims an hour it does not have. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/engine_internal.h"
#include "engine/sbuf.h"

void cuzk_eng_history_record_locked(cuzk_engine *e, const job *j)
{
    eng_history *h = &e->history;
    eng_recent *r = &h->recent[h->n_recent++ % ENG_RECENT];
    snprintf(r->id, sizeof r->id, "%s", j->id);
    snprintf(r->circuit_id, sizeof r->circuit_id, "%s", j->circuit_id);
    snprintf(r->error, sizeof r->error, "%s", j->error);
    r->kind = j->kind;
    r->prio = j->prio;
    r->status = j->status;
    r->nparts = j->nparts;
    r->t_end = j->t_end;
    r->total_ms = j->t.total_ms;
    if (j->status != CUZK_JOB_COMPLETED && j->status != CUZK_JOB_FAILED) return; /* cancelled: not a proof */
    h->samples[h->n_samples++ % ENG_SAMPLES] = (eng_sample){
        .t_end = j->t_end,
        .total_ms = j->t.total_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)j->t.total_ms,
        .kind = (uint8_t)(j->kind < CUZK_PROOF_KINDS ? j->kind : 0),
        .ok = j->status == CUZK_JOB_COMPLETED,
    };
}

/* Sort key: kind, then end time's minute slot, then duration. */
static int sample_cmp(const void *a, const void *b)
{
    const eng_sample *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->t_end / 60000 != y->t_end / 60000) return x->t_end / 60000 < y->t_end / 60000 ? -1 : 1;
    return x->total_ms < y->total_ms ? -1 : x->total_ms > y->total_ms;
}

/* The nearest-rank percentile q (0..100) of the n sorted durations. */
static uint32_t rank(const uint32_t *d, size_t n, unsigned q)
{
    size_t r = (n * q + 99) / 100; /* ceil(n q / 100), 1-based */
    return d[(r ? r : 1) - 1];
}

/* Slot of a sample's minute, counted back from now's (ENG_MINUTES - 1);
 * -1 when older than the window. */
static int minute_slot(uint64_t t_end, uint64_t now)
{
    uint64_t m_now = now / 60000, m = t_end / 60000;
    if (m > m_now) m = m_now; /* clocks are monotonic, but be safe */
    if (m_now - m >= ENG_MINUTES) return -1;
    return ENG_MINUTES - 1 - (int)(m_now - m);
}

/* Durations of the completed samples s[i .. end) (sorted) into d; their count. */
static size_t completed_of(uint32_t *d, const eng_sample *s, size_t i, size_t end)
{
    size_t nd = 0;
    for (; i < end; i++)
        if (s[i].ok) d[nd++] = s[i].total_ms;
    return nd;
}

static void fill(eng_minute *m, const uint32_t *d, size_t nd, size_t n)
{
    m->completed += (uint32_t)nd;
    m->failed += (uint32_t)(n - nd);
    if (nd) {
        m->p50_ms = rank(d, nd, 50);
        m->p95_ms = rank(d, nd, 95);
    }
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int cuzk_eng_history_series(eng_minute out[CUZK_PROOF_KINDS][ENG_MINUTES], eng_minute hour[CUZK_PROOF_KINDS],
                            eng_sample *s, size_t n, uint64_t now)
{
    memset(out, 0, sizeof(eng_minute) * CUZK_PROOF_KINDS * ENG_MINUTES);
    memset(hour, 0, sizeof(eng_minute) * CUZK_PROOF_KINDS);
    uint32_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!d) return CUZK_ERR_NOMEM;
    size_t in = 0; /* samples inside the window, moved to the front */
    for (size_t i = 0; i < n; i++)
        if (minute_slot(s[i].t_end, now) >= 0 && s[i].kind < CUZK_PROOF_KINDS) s[in++] = s[i];
    qsort(s, in, sizeof *s, sample_cmp);
    for (size_t i = 0; i < in;) { /* one group: a kind's minute */
        size_t end = i;
        while (end < in && s[end].kind == s[i].kind && s[end].t_end / 60000 == s[i].t_end / 60000)
            end++;
        fill(&out[s[i].kind][minute_slot(s[i].t_end, now)], d, completed_of(d, s, i, end), end - i);
        i = end;
    }
    for (size_t i = 0; i < in;) { /* the whole window per kind */
        size_t end = i;
        while (end < in && s[end].kind == s[i].kind)
            end++;
        size_t nd = completed_of(d, s, i, end);
        qsort(d, nd, sizeof *d, u32_cmp);
        fill(&hour[s[i].kind], d, nd, end - i);
        i = end;
    }
    free(d);
    return CUZK_OK;
}

/* ---- the page's copy ------------------------------------------------------------------ */

#define PCE_REPORT_MAX 32

struct eng_history_snap {
    uint64_t now;
    eng_recent recent[ENG_RECENT]; /* newest first */
    size_t n_recent;
    eng_sample samples[ENG_SAMPLES];
    size_t n_samples;
    bool wrapped; /* samples were dropped: they reach back to the oldest kept */
    eng_pce_report pce[PCE_REPORT_MAX];
    size_t n_pce;
};

eng_history_snap *cuzk_eng_history_snap_locked(cuzk_engine *e, uint64_t now)
{
    eng_history_snap *s = malloc(sizeof *s);
    if (!s) return NULL;
    const eng_history *h = &e->history;
    s->now = now;
    s->n_recent = h->n_recent < ENG_RECENT ? (size_t)h->n_recent : ENG_RECENT;
    for (size_t i = 0; i < s->n_recent; i++)
        s->recent[i] = h->recent[(h->n_recent - 1 - i) % ENG_RECENT];
    s->n_samples = h->n_samples < ENG_SAMPLES ? (size_t)h->n_samples : ENG_SAMPLES;
    memcpy(s->samples, h->samples, s->n_samples * sizeof *s->samples);
    s->wrapped = h->n_samples > ENG_SAMPLES;
    s->n_pce = cuzk_eng_pce_report_locked(e, s->pce, PCE_REPORT_MAX);
    return s;
}

void cuzk_eng_history_snap_free(eng_history_snap *h)
{
    free(h);
}

static void json_recent(sbuf *b, const eng_history_snap *h)
{
    cuzk_eng_sb_put(b, ",\"recent\":[", 11);
    for (size_t i = 0; i < h->n_recent; i++) {
        const eng_recent *r = &h->recent[i];
        cuzk_eng_sb_put(b, i ? ",{\"job_id\":\"" : "{\"job_id\":\"", i ? 12 : 11);
        cuzk_eng_sb_json_str(b, r->id);
        cuzk_eng_sb_printf(b, "\",\"kind\":\"%s\",\"circuit_id\":\"", cuzk_proof_kind_name(r->kind));
        cuzk_eng_sb_json_str(b, r->circuit_id);
        cuzk_eng_sb_printf(b,
                           "\",\"priority\":%d,\"status\":\"%s\",\"total_ms\":%llu,\"ended_ago_ms\":%llu,"
                           "\"partitions\":%zu,\"error\":\"",
                           (int)r->prio, cuzk_job_status_name(r->status), (unsigned long long)r->total_ms,
                           (unsigned long long)(h->now - r->t_end), r->nparts);
        cuzk_eng_sb_json_str(b, r->error);
        cuzk_eng_sb_put(b, "\"}", 2);
    }
    cuzk_eng_sb_put(b, "]", 1);
}

static uint32_t minute_field(const eng_minute *m, size_t f)
{
    return f == 0 ? m->completed : f == 1 ? m->failed : f == 2 ? m->p50_ms : m->p95_ms;
}

/* "history": per kind with proofs in the window, the window's totals and
 * percentiles, and per minute (oldest first) the same.  since_ms: how far
 * back the samples reach (the whole window unless some were dropped). */
static void json_series(sbuf *b, eng_history_snap *h)
{
    static const char *const key[4] = {"completed", "failed", "p50_ms", "p95_ms"};
    eng_minute(*per)[ENG_MINUTES] = malloc(sizeof(eng_minute) * CUZK_PROOF_KINDS * ENG_MINUTES);
    eng_minute hour[CUZK_PROOF_KINDS];
    uint64_t window = (uint64_t)ENG_MINUTES * 60000, since = window;
    if (h->wrapped && h->n_samples) {
        uint64_t oldest = h->samples[0].t_end;
        for (size_t i = 1; i < h->n_samples; i++)
            if (h->samples[i].t_end < oldest) oldest = h->samples[i].t_end;
        since = h->now - oldest < window ? h->now - oldest : window;
    }
    if (!per || cuzk_eng_history_series(per, hour, h->samples, h->n_samples, h->now) != CUZK_OK) {
        b->oom = true; /* the document fails as a whole: CUZK_ERR_NOMEM */
        free(per);
        return;
    }
    cuzk_eng_sb_printf(b, ",\"history\":{\"minutes\":%d,\"since_ms\":%llu,\"kinds\":[", ENG_MINUTES,
                       (unsigned long long)since);
    bool first = true;
    for (int k = 1; k < CUZK_PROOF_KINDS; k++) {
        if (!hour[k].completed && !hour[k].failed) continue;
        cuzk_eng_sb_printf(b,
                           "%s{\"kind\":\"%s\",\"completed\":%u,\"failed\":%u,\"p50_ms\":%u,\"p95_ms\":%u,"
                           "\"per_minute\":{",
                           first ? "" : ",", cuzk_proof_kind_name((cuzk_proof_kind)k), hour[k].completed,
                           hour[k].failed, hour[k].p50_ms, hour[k].p95_ms);
        first = false;
        for (size_t f = 0; f < 4; f++) {
            cuzk_eng_sb_printf(b, "%s\"%s\":[", f ? "," : "", key[f]);
            for (size_t i = 0; i < ENG_MINUTES; i++)
                cuzk_eng_sb_printf(b, "%s%u", i ? "," : "", minute_field(&per[k][i], f));
            cuzk_eng_sb_put(b, "]", 1);
        }
        cuzk_eng_sb_put(b, "}}", 2);
    }
    cuzk_eng_sb_put(b, "]}", 2);
    free(per);
}

/* "pce": each evaluator the engine knows, with its file's size (mapped,
 * page cache: not in the budget); stat here, without the engine lock. */
static void json_pce(sbuf *b, const eng_history_snap *h)
{
    cuzk_eng_sb_put(b, ",\"pce\":[", 8);
    for (size_t i = 0; i < h->n_pce; i++) {
        struct stat st;
        unsigned long long bytes =
            h->pce[i].path[0] && !stat(h->pce[i].path, &st) ? (unsigned long long)st.st_size : 0;
        cuzk_eng_sb_printf(b, "%s{\"circuit_id\":\"", i ? "," : "");
        cuzk_eng_sb_json_str(b, h->pce[i].circuit_id);
        cuzk_eng_sb_printf(b, "\",\"state\":\"%s\",\"file_bytes\":%llu}", h->pce[i].state, bytes);
    }
    cuzk_eng_sb_put(b, "]", 1);
}

void cuzk_eng_history_json(sbuf *b, eng_history_snap *h)
{
    if (!h) return;
    json_recent(b, h);
    json_series(b, h);
    json_pce(b, h);
}
