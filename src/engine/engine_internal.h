/* Engine internals shared by engine.c (jobs and API), sched.c (workers),
 * submit.c (admission), srs.c (parameter manager), report.c (status/metrics)
 * and the providers.
 *
 * Locking: ONE mutex, e->mu, guards every field below that is not marked
 * otherwise: the job table and lists, queues, partition states, SRS entry
 * metadata, the memory counters, worker states and statistics.  Heavy work
 * (provider calls, params loading, proving, verification) runs with mu
 * released, on objects the running thread owns exclusively at that moment
 * (a part in state P_SYNTH/P_PROVING belongs to its worker; an SRS entry
 * with loading = true belongs to its loader).  Condition variables:
 *   cv_work   synthesis workers and the prover: new work, freed memory,
 *             freed pipeline slots, shutdown;
 *   cv_done   awaiters: some job ended; destroy: an awaiter left;
 *   cv_srs    an SRS load finished;
 *   cv_house  the housekeeping thread (timed). */
#ifndef CUZK_ENGINE_INTERNAL_H
#define CUZK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/ntt.h"
#include "cuzk/pce_lean.h"
#include "cuzk/pool.h"
#include "cuzk/status.h"

typedef struct job job;
typedef struct srs_entry srs_entry;

/* Partition states. */
enum { P_QUEUED = 0, P_SYNTH, P_READY, P_PROVING, P_DONE, P_DROPPED };

typedef struct part {
    job *j;
    size_t k;
    int state;
    cuzk_cs *cs;                       /* P_READY: synthesized */
    cuzk_fr *ev[3];                    /* A, B, C evaluations taken from cs for the prover
                                          to clobber (owned here while set) */
    cuzk_pce_lean lean;                /* lean.pce set: cs is WITNESS-mode, ev[0], ev[1] hold A
                                          and B at the domain size, C comes from the PCE
                                          during H (pce_cache.c cuzk_eng_pce_synthesize) */
    struct part *redo;                 /* next partition to synthesize again (job's list) */
    srs_entry *srs;                    /* referenced from start to end */
    uint64_t reserved;                 /* budget bytes held */
    uint64_t t_start, t_ready, t_done; /* ms (monotonic) */
    uint64_t t_prove, t_verify;        /* ms: the prover took it, verification began */
    const char *synth_by, *prove_by;   /* the workers' names (engine-lifetime strings) */
    uint64_t synth_ms, prove_ms;
    uint32_t preempted; /* times the prover gave it up for CRITICAL work */
    bool cpu_only;      /* a device failed on it: the CPU prover proves it */
    struct part *pnext; /* prove queue link */
    cuzk_par *synth_par; /* set while its synthesis spreads over e->synth_pool */
    cuzk_cs_buffers bufs; /* from the buffer pool (bufpool.c) until the cs / ev own them */
} part;

struct job {
    char id[CUZK_JOB_ID_MAX];
    job *hnext;       /* hash chain */
    job *prev, *next; /* all-jobs list (arrival order) */
    job *eprev, *enext; /* ended list (end order): the records kept for
                           AwaitProof, capped by scheduler.max_ended_jobs */
    bool in_ended;
    job *rnext;       /* ready queue link (has unstarted parts) */
    bool in_ready;
    cuzk_proof_kind kind;
    cuzk_priority prio;
    uint64_t seq; /* arrival number, tie-breaker */
    cuzk_engine_provider prov;
    void *state; /* provider's */
    char circuit_id[64];
    size_t nparts, next_part, n_done, n_inflight;
    struct part *redo; /* preempted partitions to synthesize again first */
    uint64_t part_bytes;
    part *parts;
    uint8_t *proof;         /* nparts * 192 */
    cuzk_job_status status; /* UNKNOWN while running */
    char error[CUZK_ENGINE_ERR_LEN];
    cuzk_engine_timings t;
    uint64_t t_submit, t_start, t_end; /* ms */
    uint64_t end_seq;
    int waiters;
    size_t n_synthing; /* parts in P_SYNTH (batch collector looks) */
    atomic_bool ended; /* = status != UNKNOWN; read without mu at
                          safe points */
    bool parsing;      /* placeholder while submit parses: the fields the
                          parse fills (circuit_id, nparts, parts, proof,
                          state, part_bytes) are set only after it, under mu */
    uint64_t req_bytes; /* memory.request_budget held until the inputs
                           (state) are freed: when the job has ended and no
                           part is in flight */
    uint8_t digest[32]; /* of the request's content (retry identity) */
};

/* What providers and the prover's cancel checks see. */
struct cuzk_engine_task {
    cuzk_engine *e;
    job *j;
};

struct srs_entry {
    srs_entry *next;
    char id[64];
    char path[1024];
    cuzk_groth16_shape shape;
    bool has_shape;
    cuzk_srs_tier tier;
    bool loading;
    cuzk_groth16_params *params; /* HOT or WARM */
    cuzk_groth16_pvk pvk;
    uint64_t size; /* HOT resident bytes / file bytes */
    uint64_t file_size;
    uint32_t refs;
    uint64_t last_used; /* ms */
    cuzk_srs_file_id fid; /* the loaded file (HOT/WARM): change detection */
    bool stale;           /* file changed while in use: COLD at the last release */
    /* provider's optional creator (test params) */
    int (*create)(void *ctx, const char *circuit_id, const char *path, char *err, size_t err_len);
    void *create_ctx;
};

#define ENGINE_HASH 1024u
#define ENGINE_MAX_SYNTH 64u
#define HIST_BUCKETS 14

enum { ENG_SRS_FAIL_MISSING, ENG_SRS_FAIL_INVALID, ENG_SRS_FAIL_TOO_BIG };
enum { ENG_REJECT_QUEUE_FULL, ENG_REJECT_REQUEST_MEMORY };

typedef struct kind_stats {
    uint64_t completed, failed, cancelled;
    /* phase histograms: 0 queue_wait, 1 srs_load, 2 synthesis, 3 prove, 4 total */
    uint64_t hist[5][HIST_BUCKETS + 1];
    double hist_sum[5];
    uint64_t hist_count[5];
} kind_stats;

/* What the status page shows of the past (history.c), bounded: the last
 * ENG_RECENT ended jobs with their errors, and one sample per ended proof
 * (COMPLETED or FAILED) for the per-minute throughput and percentiles,
 * the last ENG_SAMPLES of them. */
#define ENG_RECENT 32
#define ENG_SAMPLES 4096
typedef struct eng_recent {
    char id[CUZK_JOB_ID_MAX];
    char circuit_id[64];
    char error[CUZK_ENGINE_ERR_LEN];
    cuzk_proof_kind kind;
    cuzk_priority prio;
    cuzk_job_status status;
    size_t nparts;
    uint64_t t_end, total_ms; /* ms (monotonic) */
} eng_recent;
typedef struct eng_sample {
    uint64_t t_end; /* ms (monotonic) */
    uint32_t total_ms;
    uint8_t kind;
    uint8_t ok; /* COMPLETED */
} eng_sample;
typedef struct eng_history {
    eng_recent recent[ENG_RECENT]; /* ring: n_recent % ENG_RECENT is the next */
    uint64_t n_recent;
    eng_sample samples[ENG_SAMPLES]; /* ring, likewise */
    uint64_t n_samples;
} eng_history;

/* A device of the prover workers (devices.c): its workers each hold a
 * backend handle and call it under mu (one backend call at a time on the
 * device); the counters are read by the status without mu. */
typedef struct eng_device {
    char label[24]; /* "opencl:0" */
    char name[128];
    uint64_t mem;
    uint32_t workers;
    pthread_mutex_t mu;   /* the device: held for the length of one backend call */
    bool mu_init;
    _Atomic uint64_t busy_us; /* time inside backend calls */
} eng_device;

typedef struct worker {
    cuzk_engine *e;
    pthread_t th;
    bool started;
    bool urgent; /* takes CRITICAL work only */
    cuzk_engine_worker_info info;
    /* prover workers (prover.c) */
    eng_device *dev;      /* NULL: the CPU prover */
    void *handle;         /* the device backend's handle (dev set) */
    const cuzk_groth16_backend *inner; /* its backend */
    cuzk_groth16_backend be;           /* inner's calls under dev->mu (devices.c) */
    cuzk_pool *pool;      /* a device worker's host threads; NULL: the CPU prover's e->pool */
    struct part **batch;  /* max_batch_size entries, from create */
    bool preemptible;     /* its batch may yield to CRITICAL work (under e->mu) */
    atomic_bool preempt;  /* ... and is asked to */
    bool disabled;        /* a device worker that failed ENG_DEV_MAX_FAILS times in a row */
    uint32_t fails;
    uint64_t proved, fallbacks; /* partitions proved (verified); given back to the CPU (under e->mu) */
    int dev_st;           /* the first failed backend call of this prove (the worker's thread) */
    char dev_err[256];
} worker;
#define ENG_DEV_MAX_FAILS 3

struct cuzk_engine {
    cuzk_engine_config cfg;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done, cv_srs, cv_house;
    bool accepting, stopping; /* stopping: threads exit */
    atomic_bool abort_work;   /* shutdown past grace: cancel in-flight */
    uint64_t t_create;
    uint64_t seq, end_seq;
    job *table[ENGINE_HASH];
    job *jobs_head, *jobs_tail;
    job *ready;                       /* sorted: prio desc, seq asc */
    part *proveq;                     /* sorted: prio desc, seq asc, k asc */
    size_t n_proveq, n_synth;         /* pipeline occupancy */
    uint64_t mem_limit, mem_reserved; /* partition reservations */
    uint64_t srs_hot_bytes;           /* also counted against mem_limit */
    srs_entry *srs;
    cuzk_engine_provider prov[CUZK_PROOF_KINDS];
    bool has_prov[CUZK_PROOF_KINDS];
    kind_stats stats[CUZK_PROOF_KINDS];
    worker synth[ENGINE_MAX_SYNTH + 1];
    size_t n_synth_workers;
    worker *provers; /* n_provers: [0] the CPU prover, then the device workers */
    size_t n_provers;
    eng_device *devs; /* n_devs selected devices (devices.c) */
    size_t n_devs;
    const cuzk_engine_device_ops *dev_ops;
    bool cpu_takes;  /* gpus.cpu_worker: the CPU prover takes partitions while
                        every device worker is busy (always when there is none) */
    pthread_t house;
    bool house_started;
    cuzk_pool *pool; /* prover's */
    /* Synthesis helpers (synthesis.threads of them, NULL for 1): a partition
     * that starts while no other is synthesizing spreads its challenges /
     * sectors over them (cuzk_cs_set_par); synth_pool_busy (under mu) says
     * one holds them. */
    cuzk_pool *synth_pool;
    bool synth_pool_busy;
    int api_waiters; /* callers inside await */
    bool shut_down;
    size_t n_live; /* jobs not ended */
    uint64_t n_batches, n_batched_parts, n_preemptions;
    uint64_t req_reserved;      /* decoded request bytes held (request_budget) */
    /* Submit-time parse and native verification (submit.c): verify_active
     * run now; a waiter of priority p holds ticket verify_next[p]++ and goes
     * when verify_serving[p] reaches it, no higher priority waits, and a
     * slot is free (HIGH has one more, CRITICAL never waits for one).
     * Waits on cv_done. */
    uint32_t verify_active;
    uint64_t verify_next[CUZK_PRIO_CRITICAL + 1], verify_serving[CUZK_PRIO_CRITICAL + 1];
    int sync_init;              /* create: 1 = mu, 2..5 = + cv_work..cv_house */
    struct eng_pce_cache *pce;  /* pce_cache.c */
    struct eng_bufpool *bufpool; /* bufpool.c; NULL: no pool */
    uint64_t pool_idle_bytes;    /* idle sets (also in mem_reserved) */
    uint64_t n_pool_hits, n_pool_misses;
    job *ended_head, *ended_tail; /* ended jobs, oldest end first */
    size_t n_ended;
    uint64_t n_ended_dropped;     /* records dropped by the cap before their retention */
    /* for the metrics (report.c): SRS loads that failed, by ENG_SRS_FAIL_*;
     * submits refused RESOURCE_EXHAUSTED, by ENG_REJECT_* */
    uint64_t n_srs_fail[3], n_rejected[2];
    struct eng_dead *dead;        /* SRS params unlinked under mu, to be freed without it */
    eng_history history;          /* history.c: for the status page */
};

/* engine.c */
uint64_t cuzk_eng_now_ms(void);
job *cuzk_eng_find_locked(cuzk_engine *e, const char *id);
void cuzk_eng_table_insert_locked(cuzk_engine *e, job *j);
void cuzk_eng_table_remove_locked(cuzk_engine *e, job *j);
void cuzk_eng_unlink_job_locked(cuzk_engine *e, job *j); /* table and jobs list */
void cuzk_eng_free_job_locked(cuzk_engine *e, job *j);
void cuzk_eng_job_inputs_free_locked(cuzk_engine *e, job *j);
void cuzk_eng_end_job_locked(cuzk_engine *e, job *j, cuzk_job_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void cuzk_eng_part_release_locked(cuzk_engine *e, part *p);
void cuzk_eng_reap_locked(cuzk_engine *e, uint64_t now);
/* Drop the oldest ended records beyond scheduler.max_ended_jobs (never one
 * that a caller waits on, a worker holds or a submit still parses); called
 * at admission and by housekeeping, never inside end_job (whose callers
 * walk the job lists). */
void cuzk_eng_ended_trim_locked(cuzk_engine *e);
void cuzk_eng_timeout_at(struct timespec *ts, uint64_t ms_from_now);
/* bufpool.c: partition buffers kept for the next partition (all under mu) */
typedef struct eng_bufpool eng_bufpool;
int cuzk_eng_pool_init(cuzk_engine *e);
void cuzk_eng_pool_free(cuzk_engine *e);
uint64_t cuzk_eng_pool_set_bytes(const cuzk_cs_buffers *b);
/* The newest set a partition of `circuit` left (out zeroed when none): a
 * set only serves partitions of the circuit that made it, so a small
 * WinningPoSt between two PoRep partitions never takes (and frees) theirs. */
void cuzk_eng_pool_take_locked(cuzk_engine *e, const char *circuit, cuzk_cs_buffers *out);
/* Bytes of the set the next partition of `circuit` takes, 0 if none: memory
 * that is not in that partition's way (sched.c pick_locked). */
uint64_t cuzk_eng_pool_newest_bytes_locked(const cuzk_engine *e, const char *circuit);
/* A finished partition's buffers (of `circuit`): kept if the budget has
 * room, else freed (b is emptied either way). */
void cuzk_eng_pool_put_locked(cuzk_engine *e, const char *circuit, cuzk_cs_buffers *b);
/* Free idle sets, oldest first, until need more bytes fit; whether they do. */
bool cuzk_eng_pool_shrink_locked(cuzk_engine *e, uint64_t need);
void cuzk_eng_pool_reap_locked(cuzk_engine *e, uint64_t now);
/* pce_cache.c: pre-compiled constraint evaluators (cuzk/pce.h) */
typedef struct eng_pce_cache eng_pce_cache;
int cuzk_eng_pce_init(cuzk_engine *e, char *err, size_t err_len);
void cuzk_eng_pce_free(cuzk_engine *e); /* stops and joins a background extraction */
const struct cuzk_pce *cuzk_eng_pce_get(cuzk_engine *e, const char *circuit_id); /* without mu; NULL = direct */
/* failed: p is retired when its file changed (extracted again), else FAILED */
void cuzk_eng_pce_put(cuzk_engine *e, const struct cuzk_pce *p, bool failed);
void cuzk_eng_pce_proved_locked(cuzk_engine *e, const char *circuit_id); /* may start an extraction */
/* A proof made through p failed self-verification: p is retired for the
 * life of the engine, its file renamed aside, one WARN line (the first
 * partition to report it; later ones are silent). */
void cuzk_eng_pce_bad_proof_locked(cuzk_engine *e, const struct cuzk_pce *p, const char *job_id, size_t k,
                                   const char *why);
/* Synthesize partition pt (P_SYNTH: this worker's alone) into *out, PCE
 * (lean form: pt->ev[0..1], pt->lean) or direct; without mu. */
int cuzk_eng_pce_synthesize(cuzk_engine *e, part *pt, const cuzk_engine_task *task, cuzk_cs **out, char *err,
                       size_t err_len);
/* sched.c */
void *cuzk_eng_synth_main(void *arg);
void *cuzk_eng_house_main(void *arg);
void cuzk_eng_ready_insert_locked(cuzk_engine *e, job *j);
void cuzk_eng_ready_remove_locked(cuzk_engine *e, job *j);
void cuzk_eng_proveq_drop_job_locked(cuzk_engine *e, job *j);
void cuzk_eng_worker_set(worker *w, const char *state, const job *j);
/* prover.c: the prover workers */
void *cuzk_eng_prover_main(void *arg);
void cuzk_eng_proveq_insert_locked(cuzk_engine *e, part *p);
/* A partition p entered the prove queue: if it is CRITICAL and no prover
 * worker may take it now, ask a preemptible one to yield. */
void cuzk_eng_prover_ready_locked(cuzk_engine *e, const part *p);
/* devices.c: gpus.* resolved to devices and their workers' handles (create,
 * before any thread starts; err names what is wrong), closed by destroy. */
int cuzk_eng_devices_open(cuzk_engine *e, char *err, size_t err_len);
void cuzk_eng_devices_close(cuzk_engine *e);
/* srs.c */
int cuzk_eng_srs_acquire(cuzk_engine *e, srs_entry **out, const char *circuit_id, uint64_t *load_ms, char *err,
                    size_t err_len); /* called with mu held; may drop it */
void cuzk_eng_srs_release_locked(cuzk_engine *e, srs_entry *s);
bool cuzk_eng_srs_evict_idle_locked(cuzk_engine *e, uint64_t need);
void cuzk_eng_srs_free_all(cuzk_engine *e);
/* Params demoted under mu are not freed there (munmap / free of tens of GB
 * takes seconds): demote moves them to e->dead, and whoever releases mu
 * next on a path that demotes frees them with it released:
 *   eng_dead *d = cuzk_eng_srs_dead_take_locked(e);  (under mu)
 *   pthread_mutex_unlock(&e->mu); cuzk_eng_srs_dead_free(d);
 * Housekeeping frees what is left (demote wakes it). */
typedef struct eng_dead eng_dead;
eng_dead *cuzk_eng_srs_dead_take_locked(cuzk_engine *e);
void cuzk_eng_srs_dead_free(eng_dead *d);
/* Add a COLD entry for id if its params file exists in param_cache. */
void cuzk_eng_srs_discover(cuzk_engine *e, const char *circuit_id);
/* The prover failed with st on s: if s's file changed (or st is
 * CUZK_ERR_CHANGED, a fault in the map), err becomes "params file X changed
 * while in use: size A -> B, inode I -> J" and s goes COLD when its last
 * user releases it.  Takes mu. */
void cuzk_eng_srs_fault(cuzk_engine *e, srs_entry *s, int st, char *err, size_t err_len);
/* Providers' partition_bytes from the constraint count c (with the input
 * constraints) and the H domain m (a power of two), from the peak measured
 * through H (docs/perf-notes.md "A lean partition in flight", "NTT domain:
 * two-level twiddles").  Direct PROVE synthesis: a, b, c at m each, the
 * assignment (c), the NTT domain (cuzk_ntt_domain_bytes: 18 bytes a point
 * up to 2^22, 72 MiB above) and three density maps (3 bits a variable) are
 * resident together during H, the peak; the MSMs after it keep their
 * scratch and canonical aux in the dead vectors.  A partition synthesized
 * through a PCE takes the lean form (one domain vector less) and hands
 * eng_lean_saving back after its synthesis (sched.c).  32 GiB PoRep (c =
 * 130.3 M, m = 2^27): 17.19 GB reserved direct, 12.90 GB lean; measured
 * lean RssAnon peak 12.87 GB (at 512 MiB both forms were measured: they
 * differ by exactly one domain vector). */
static inline uint64_t eng_partition_bytes(uint64_t c, uint64_t m)
{
    unsigned log_m = m > 1 ? (unsigned)(63 - __builtin_clzll(m - 1)) + 1 : 0;
    uint64_t dom = cuzk_ntt_domain_bytes(log_m < CUZK_NTT_MAX_LOG ? log_m : CUZK_NTT_MAX_LOG);
    return (3 * m + c) * sizeof(cuzk_fr) + dom + 3 * c / 8 + (8u << 20);
}
static inline uint64_t eng_lean_saving(uint64_t m)
{
    return m * sizeof(cuzk_fr);
}
/* Providers' public_inputs: copy the verifier's inputs, refusing more
 * than the verifying key takes. */
static inline int eng_inputs_copy(cuzk_fr *out, size_t cap, size_t *n, const cuzk_fr *in, size_t have,
                                  char *err, size_t err_len)
{
    if (have > cap)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "circuit has %zu public inputs, verifying key %zu", have,
                         cap);
    memcpy(out, in, have * sizeof *in);
    *n = have;
    return CUZK_OK;
}
/* porep_provider.c: the PoRep C2 provider (called by register_builtin). */
int cuzk_engine_porep_register(cuzk_engine *e);
/* snap_provider.c: the SnapDeals provider (called by register_builtin). */
int cuzk_engine_snap_register(cuzk_engine *e);
/* report.c */
void cuzk_eng_stats_record_locked(cuzk_engine *e, const job *j);
/* history.c: an ended job joins the recent list and the samples. */
void cuzk_eng_history_record_locked(cuzk_engine *e, const job *j);
/* Per kind and minute (0 = the oldest of ENG_MINUTES, the last = the
 * current one), and per kind over those minutes (hour), from samples
 * copied out of the engine: completed and failed proofs and the 50th /
 * 95th percentile of the completed ones' total_ms (nearest rank; 0 with
 * none).  Pure; reorders s.  CUZK_ERR_NOMEM leaves out and hour zeroed. */
#define ENG_MINUTES 60
typedef struct eng_minute {
    uint32_t completed, failed;
    uint32_t p50_ms, p95_ms;
} eng_minute;
CUZK_MUST_CHECK int cuzk_eng_history_series(eng_minute out[CUZK_PROOF_KINDS][ENG_MINUTES],
                                            eng_minute hour[CUZK_PROOF_KINDS], eng_sample *s, size_t n,
                                            uint64_t now);
/* pce_cache.c: each known evaluator (circuit id, state name, file) for
 * the status page, at most cap; e->mu held.  The file's size is read by
 * the caller, without the lock. */
typedef struct eng_pce_report {
    char circuit_id[64];
    const char *state; /* static */
    char path[1200];
} eng_pce_report;
size_t cuzk_eng_pce_report_locked(cuzk_engine *e, eng_pce_report *out, size_t cap);
/* history.c: what /status adds from it, copied under mu (NULL: out of
 * memory) and written after: ,"recent":[..],"history":{..},"pce":[..]
 * (nothing for NULL). */
typedef struct eng_history_snap eng_history_snap;
struct sbuf;
eng_history_snap *cuzk_eng_history_snap_locked(cuzk_engine *e, uint64_t now);
void cuzk_eng_history_json(struct sbuf *b, eng_history_snap *h);
void cuzk_eng_history_snap_free(eng_history_snap *h);

#endif
