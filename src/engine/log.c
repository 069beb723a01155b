/* Small things every engine file and the daemon need: the logger, names of
 * enums, error strings, default configuration. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine_internal.h"

/* Process-wide by design: log lines come from every layer of one process
 * and the daemon sets the level once from logging.level. */
static atomic_int g_level = CUZK_LOG_INFO;
/* One line = one fputs under this lock, so lines from threads never mix. */
static pthread_mutex_t g_log_mu = PTHREAD_MUTEX_INITIALIZER;

void cuzk_log_set_level(cuzk_log_level level)
{
    atomic_store(&g_level, (int)level);
}
cuzk_log_level cuzk_log_get_level(void)
{
    return (cuzk_log_level)atomic_load(&g_level);
}

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

int cuzk_log_level_parse(cuzk_log_level *out, const char *name)
{
    if (!out || !name) return CUZK_ERR_ARG;
    for (int i = 0; i < 5; i++)
        if (!strcasecmp(name, level_names[i])) {
            *out = (cuzk_log_level)i;
            return CUZK_OK;
        }
    if (!strcasecmp(name, "warning")) {
        *out = CUZK_LOG_WARN;
        return CUZK_OK;
    }
    return CUZK_ERR_ARG;
}

void cuzk_log(cuzk_log_level level, const char *job_id, const char *fmt, ...)
{
    if ((int)level > atomic_load(&g_level)) return;
    char line[1400];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    static const char *const tags[] = {"ERROR", "WARN ", "INFO ", "DEBUG", "TRACE"};
    int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
                     tags[level < 5 ? level : 4]);
    if (job_id && *job_id && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, "[%s] ", job_id);
    if (n > 0 && (size_t)n < sizeof line) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_lock(&g_log_mu);
    fputs(line, stderr);
    fputc('\n', stderr);
    pthread_mutex_unlock(&g_log_mu);
}

const char *cuzk_engine_strerror(int code)
{
    switch (code) {
    case CUZK_ENGINE_ERR_NOT_FOUND:
        return "not found (unknown or expired job id, or unknown circuit id)";
    case CUZK_ENGINE_ERR_SHUTDOWN:
        return "the engine is shutting down and accepts no new work";
    case CUZK_ENGINE_ERR_BUSY:
        return "the SRS entry is in use by a running job";
    case CUZK_ENGINE_ERR_CANCELLED:
        return "cancelled";
    case CUZK_ENGINE_ERR_ABANDONED:
        return "the caller abandoned the wait";
    case CUZK_ENGINE_ERR_TOO_BIG:
        return "the work needs more memory than the whole budget";
    case CUZK_ENGINE_ERR_EXISTS:
        return "request_id in use by a running job with different content";
    case CUZK_ENGINE_ERR_EXHAUSTED:
        return "too many live jobs or too much request memory";
    default:
        return cuzk_strerror(code);
    }
}

const char *cuzk_proof_kind_name(cuzk_proof_kind k)
{
    switch (k) {
    case CUZK_PROOF_POREP:
        return "porep";
    case CUZK_PROOF_SNAP:
        return "snap";
    case CUZK_PROOF_WINDOW_POST:
        return "window_post";
    case CUZK_PROOF_WINNING_POST:
        return "winning_post";
    case CUZK_PROOF_TEST:
        return "test";
    default:
        return "unspecified";
    }
}

const char *cuzk_proof_kind_rust_name(cuzk_proof_kind k)
{
    switch (k) {
    case CUZK_PROOF_POREP:
        return "porep-c2";
    case CUZK_PROOF_SNAP:
        return "snap-update";
    case CUZK_PROOF_WINDOW_POST:
        return "window-post";
    case CUZK_PROOF_WINNING_POST:
        return "winning-post";
    default:
        return cuzk_proof_kind_name(k);
    }
}

cuzk_priority cuzk_priority_default(cuzk_proof_kind k)
{
    switch (k) {
    case CUZK_PROOF_WINNING_POST:
        return CUZK_PRIO_CRITICAL;
    case CUZK_PROOF_WINDOW_POST:
        return CUZK_PRIO_HIGH;
    default:
        return CUZK_PRIO_NORMAL;
    }
}

const char *cuzk_job_status_name(cuzk_job_status s)
{
    switch (s) {
    case CUZK_JOB_COMPLETED:
        return "COMPLETED";
    case CUZK_JOB_FAILED:
        return "FAILED";
    case CUZK_JOB_CANCELLED:
        return "CANCELLED";
    case CUZK_JOB_TIMEOUT:
        return "TIMEOUT";
    default:
        return "UNKNOWN";
    }
}

void cuzk_engine_config_default(cuzk_engine_config *c)
{
    memset(c, 0, sizeof *c);
    const char *pc = getenv("FIL_PROOFS_PARAMETER_CACHE");
    snprintf(c->param_cache, sizeof c->param_cache, "%s",
             pc && *pc ? pc : "/var/tmp/filecoin-proof-parameters");
    c->srs_validate = CUZK_SRS_VALIDATE_DIGEST;
    c->memory_total_budget = 0;
    c->memory_safety_margin = 2ull << 30;
    c->eviction_min_idle_ms = 60000;
    c->buffer_pool_idle_ms = 300000;
    c->max_batch_size = 4;
    c->max_batch_wait_ms = 50;
    c->synthesis_threads = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c->prover_threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    c->pipeline_enabled = true;
    c->pipeline_depth = 2;
    c->result_retention_ms = 300000;
    c->shutdown_grace_ms = 30000;
    c->log_level = CUZK_LOG_INFO;
    c->max_live_jobs = 1024;
    c->max_ended_jobs = 4096;
    c->request_budget = 2ull << 30;
    c->verify_threads = 2;
    c->max_preemptions = 2;
    c->test_provider = false;
    c->gpus.workers_per_device = 2;
    snprintf(c->gpus.backend, sizeof c->gpus.backend, "cpu"); /* in-process users opt in; the daemon: auto */
    snprintf(c->gpus.cpu_worker, sizeof c->gpus.cpu_worker, "auto");
}

void cuzk_engine_result_clear(cuzk_engine_result *r)
{
    if (!r) return;
    free(r->proof);
    memset(r, 0, sizeof *r);
}
