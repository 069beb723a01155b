/* The proving engine: jobs, priority scheduling, batching, a synthesis ||
 * prove pipeline, a memory budget, an SRS (parameter) manager with tiers,
 * self-verification, observability.  The gRPC daemon (src/server) is a thin
 * layer over this API; tests and tools drive it in-process.
 *
 * Threads (docs/engine.md has the full design):
 *  - callers (gRPC handlers, tests) call submit/await/cancel/status from any
 *    thread; none of them does heavy work: submit validates and enqueues,
 *    await sleeps on a condition variable;
 *  - synthesis.threads synthesis workers take PARTITION tasks (job, k) from
 *    one ready queue ordered by (priority, arrival), reserve memory, acquire
 *    the circuit's SRS (loading it if needed: srs_load time), synthesize
 *    into a cuzk_cs and hand the result to the prove queue;
 *  - prover workers (the CPU prover, and gpus.gpu_workers_per_device per
 *    selected device: see "prover workers" below) take synthesized
 *    partitions from the prove queue in priority order, each collects a
 *    batch of same-circuit partitions (flushed at max_batch_size, after
 *    max_batch_wait_ms, or when a more urgent partition arrives), runs
 *    cuzk_groth16_prove with its backend (CPU: on its own cuzk_pool),
 *    verifies every proof with the SRS's prepared vk, and completes jobs;
 *  - one housekeeping thread reaps finished jobs after result_retention_ms
 *    and demotes idle SRS entries.
 * One mutex guards all scheduling state; heavy work (synthesis, loading,
 * proving, verification) runs with it released.
 *
 * Priorities hold end to end: the ready queue, the start-of-synthesis gate,
 * the prove queue and batch flushing all order by priority first, so a
 * CRITICAL job never waits behind queued NORMAL partitions; a lower-priority
 * batch already in the prover is preempted at its next phase boundary and
 * its partitions are synthesized again (the prover works in their
 * evaluations in place; the CRITICAL one waits at most one prover phase).
 *
 * Every accepted job ends COMPLETED, FAILED or CANCELLED exactly once and
 * every waiter is told; TIMEOUT is only an await answer (the job goes on).
 * Jobs live in a hash table keyed by the full job id string: two ids never
 * share an entry.  A request_id names a proof, not one attempt (Curio
 * retries with the same id): resubmitting it with the same content attaches
 * to a live or COMPLETED job; after FAILED/CANCELLED it starts a fresh
 * attempt; other content while the job is live is refused (see submit).
 *
 * Status codes: CUZK_OK or a cuzk_status (cuzk/status.h), or one of the
 * engine codes below (cuzk_engine_strerror knows all of them). */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff.h"
#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"
#include "cuzk/srs_trust.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- codes, kinds, priorities -------------------------------------------- */

enum {
    CUZK_ENGINE_ERR_NOT_FOUND = -100, /* unknown job id / circuit id (gRPC NOT_FOUND) */
    CUZK_ENGINE_ERR_SHUTDOWN = -101,  /* engine is shutting down: not accepting */
    CUZK_ENGINE_ERR_BUSY = -102,      /* SRS entry in use: evict refused */
    CUZK_ENGINE_ERR_CANCELLED = -103, /* internal: work stopped at a safe point */
    CUZK_ENGINE_ERR_ABANDONED = -104, /* await_ex: the caller's abandon flag was set */
    CUZK_ENGINE_ERR_TOO_BIG = -105,   /* a partition needs more than the whole budget */
    CUZK_ENGINE_ERR_EXISTS = -106,    /* request_id in use by a live job with other
                                         content (gRPC ALREADY_EXISTS) */
    CUZK_ENGINE_ERR_EXHAUSTED = -107, /* too many live jobs or too much decoded
                                         request memory (gRPC RESOURCE_EXHAUSTED) */
};
const char *cuzk_engine_strerror(int code);

/* Values equal to the wire enum ProofKind; CUZK_PROOF_TEST is in-process
 * only (the built-in chain provider; a daemon may register that provider
 * for a wire kind in test setups). */
typedef enum {
    CUZK_PROOF_UNSPECIFIED = 0,
    CUZK_PROOF_POREP = 1,        /* POREP_SEAL_COMMIT */
    CUZK_PROOF_SNAP = 2,         /* SNAP_DEALS_UPDATE */
    CUZK_PROOF_WINDOW_POST = 3,  /* WINDOW_POST_PARTITION */
    CUZK_PROOF_WINNING_POST = 4, /* WINNING_POST */
    CUZK_PROOF_TEST = 5,
} cuzk_proof_kind;
#define CUZK_PROOF_KINDS 6
/* "porep", "snap", "window_post", "winning_post", "test", "unspecified". */
/* The Rust daemon's strings (QueueStatus, GPUStatus, /status): "porep-c2",
 * "snap-update", "window-post", "winning-post"; others as above. */
const char *cuzk_proof_kind_rust_name(cuzk_proof_kind k);
const char *cuzk_proof_kind_name(cuzk_proof_kind k);

/* Values equal to the wire enum Priority.  DEFAULT (0) = per-kind default:
 * Winning CRITICAL, Window HIGH, PoRep/Snap/test NORMAL. */
typedef enum {
    CUZK_PRIO_DEFAULT = 0,
    CUZK_PRIO_LOW = 1,
    CUZK_PRIO_NORMAL = 2,
    CUZK_PRIO_HIGH = 3,
    CUZK_PRIO_CRITICAL = 4,
} cuzk_priority;
cuzk_priority cuzk_priority_default(cuzk_proof_kind k);

/* Values equal to AwaitProofResponse.Status. */
typedef enum {
    CUZK_JOB_UNKNOWN = 0,   /* still running (only in status listings) */
    CUZK_JOB_COMPLETED = 1,
    CUZK_JOB_FAILED = 2,
    CUZK_JOB_CANCELLED = 3,
    CUZK_JOB_TIMEOUT = 4,   /* await answer only: the job keeps running */
} cuzk_job_status;
const char *cuzk_job_status_name(cuzk_job_status s); /* "COMPLETED", ... */

/* ---- logging --------------------------------------------------------------- */
/* One line per call on stderr: "2026-11-29T08:40:01.123Z INFO  [job-id] msg".
 * The level is process-wide (set once by the daemon from logging.level). */
typedef enum {
    CUZK_LOG_ERROR = 0,
    CUZK_LOG_WARN = 1,
    CUZK_LOG_INFO = 2,
    CUZK_LOG_DEBUG = 3,
    CUZK_LOG_TRACE = 4,
} cuzk_log_level;
void cuzk_log_set_level(cuzk_log_level level);
cuzk_log_level cuzk_log_get_level(void);
/* "error" | "warn" | "info" | "debug" | "trace" (case-insensitive). */
CUZK_MUST_CHECK int cuzk_log_level_parse(cuzk_log_level *out, const char *name);
/* job_id may be NULL (no job column). */
void cuzk_log(cuzk_log_level level, const char *job_id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- prover workers: the CPU and the devices -------------------------------- */
/* The prove stage runs on prover workers that share one prove queue: the
 * CPU prover (worker "prover", device "cpu", on pipeline.prover_threads)
 * and, per selected device, gpus.gpu_workers_per_device device workers
 * ("gpu-<ordinal>.<k>", device "<driver>:<ordinal>"), each with its own
 * Groth16 backend handle; the workers of one device call it under one lock
 * (one backend call at a time: while one worker is in host work -- witness
 * preparation, assembly, verification -- the other uses the device).  A
 * synthesized partition goes to whichever worker is free first; the CPU
 * prover takes partitions only while every device worker is busy
 * (gpus.cpu_worker).  A device error, or a device proof that fails
 * self-verification, sends the partition back to synthesis and then to the
 * CPU prover (one WARN); a device that fails 3 times in a row is no longer
 * used.  docs/engine.md "Prover workers". */
#define CUZK_ENGINE_MAX_DEVICES 64

/* One device as the device backend lists it. */
typedef struct cuzk_engine_device_desc {
    char name[128];
    uint64_t mem_bytes;
    bool is_cpu; /* a CPU device (pocl): "auto" does not pick it */
} cuzk_engine_device_desc;

/* How the engine reaches device backends.  NULL in the config = the
 * build's Groth16 GPU backend (cuzk/gpu_groth16.h over cuzk/gpu.h); tests
 * may substitute their own (a CPU backend that records which worker ran,
 * or fails on demand).  list: as cuzk_gpu_list (*n devices; a non-zero
 * return with the reason in err when the driver is absent).  open: one
 * handle per worker; backend/name/memory/close as cuzk_gpu_groth16_*;
 * error (optional): the message of the handle's last failed call. */
typedef struct cuzk_engine_device_ops {
    void *ctx;
    int (*list)(void *ctx, const char *driver, cuzk_engine_device_desc *out, size_t cap, size_t *n, char *err,
                size_t err_len);
    int (*open)(void *ctx, void **dev, const char *driver, unsigned index, char *err, size_t err_len);
    const cuzk_groth16_backend *(*backend)(void *dev);
    const char *(*name)(const void *dev);
    uint64_t (*memory)(const void *dev);
    const char *(*error)(const void *dev);
    void (*close)(void *dev);
} cuzk_engine_device_ops;

typedef struct cuzk_engine_gpus {
    uint32_t n_devices;                       /* gpus.devices: ordinals of the chosen
                                                 driver; 0 = every device it has */
    uint32_t devices[CUZK_ENGINE_MAX_DEVICES]; /* (n_devices first: the config
                                                 table stores the list so) */
    uint32_t workers_per_device;              /* gpus.gpu_workers_per_device
                                                 (default 2; 0 = no device worker) */
    uint32_t threads;                         /* gpus.gpu_threads: host threads of
                                                 each device worker (0 =
                                                 pipeline.prover_threads) */
    char backend[8];                          /* gpus.backend (ours): "auto"
                                                 (the daemon's default: CUDA
                                                 devices, else OpenCL devices
                                                 that are not CPUs, else none),
                                                 "cpu" (no device; this
                                                 library's default), "opencl",
                                                 "cuda" (that driver, CPU
                                                 devices included: pocl) */
    char cpu_worker[8];                       /* gpus.cpu_worker (ours): "auto"
                                                 (default: "on"), "on" (the CPU
                                                 prover takes partitions while
                                                 every device worker is busy),
                                                 "off" (only those a device gave
                                                 back after an error) */
    const cuzk_engine_device_ops *ops;        /* NULL = the build's backend */
} cuzk_engine_gpus;

/* ---- configuration --------------------------------------------------------- */
/* The keys of curio's cuzk.toml that apply, in the config file's section.key
 * naming.  cuzk_engine_config_default fills every field; the daemon's config
 * parser overwrites what the file sets. */
typedef struct cuzk_engine_config {
    char param_cache[512];        /* srs.param_cache: directory of .params/.vk
                                     (default $FIL_PROOFS_PARAMETER_CACHE or
                                     /var/tmp/filecoin-proof-parameters) */
    cuzk_srs_validate srs_validate; /* srs.validate (ours): "digest" (default:
                                     official digest or a validation record,
                                     else full), "full" or "none"; see
                                     cuzk/srs_trust.h */
    char srs_state_dir[512];      /* srs.state_dir (ours): validation records
                                     when param_cache is not writable; "" =
                                     $CUZK_STATE_DIR or ~/.local/state/cuzk */
    bool srs_allow_test_params;   /* srs.allow_test_params (ours; default
                                     false): a file under an official name
                                     with a `.test` marker is loaded as our
                                     TEST params (test setups only; WARN at
                                     start); off: refused unless its digest
                                     is parameters.json's */
    uint64_t memory_total_budget; /* memory.total_budget, bytes; 0 = physical
                                     RAM minus safety_margin */
    uint64_t memory_safety_margin;/* memory.safety_margin, bytes (default 2 GiB;
                                     subtracted only when total_budget = 0) */
    uint64_t eviction_min_idle_ms;/* memory.eviction_min_idle: an SRS entry idle
                                     for less is never evicted for space
                                     (default 60000) */
    uint64_t buffer_pool_idle_ms; /* memory.buffer_pool_idle: partition buffers
                                     kept this long for the next partition
                                     (0 = no pool; default 300000) */
    uint32_t max_batch_size;      /* scheduler.max_batch_size (default 4; 1 = no
                                     batching) */
    uint32_t max_batch_wait_ms;   /* scheduler.max_batch_wait_ms (default 50) */
    uint32_t synthesis_threads;   /* synthesis.threads: synthesis workers
                                     (default 1; 0 = one per CPU, at most 64) */
    char synthesis_pce[8];        /* synthesis.pce (ours): "auto" (or "") = use
                                     a verified pre-compiled constraint evaluator
                                     (<param_cache>/<circuit id>.pce) when present
                                     and extract it after a circuit's first
                                     proof; "off" = always direct (docs/pce.md) */
    uint32_t prover_threads;      /* pipeline.prover_threads (ours): threads of
                                     the prover's pool (default = CPU count) */
    bool pipeline_enabled;        /* pipeline.enabled: synthesis of the next
                                     partitions overlaps proving (default true);
                                     false = one partition in flight at a time */
    uint32_t pipeline_depth;      /* pipeline.max_pending (ours): synthesized or
                                     synthesizing partitions not yet proved
                                     (default 2); CRITICAL may exceed it */
    uint64_t result_retention_ms; /* results kept after a job ends (default
                                     300000); then reaped */
    uint32_t shutdown_grace_ms;   /* default 30000 */
    cuzk_log_level log_level;     /* logging.level (default INFO) */
    uint32_t max_live_jobs;       /* scheduler.max_queued_jobs (ours): jobs
                                     queued or running at once (default 1024);
                                     submit beyond it: CUZK_ENGINE_ERR_EXHAUSTED */
    uint32_t max_ended_jobs;      /* scheduler.max_ended_jobs (ours): records of
                                     ended jobs kept for await (default 4096,
                                     >= 1); beyond it the oldest are dropped
                                     before result_retention_ms (await on them:
                                     NOT_FOUND, as for a reaped one) */
    uint64_t request_budget;      /* memory.request_budget (ours): bytes of
                                     decoded request inputs live jobs may hold
                                     (default 2 GiB), a pool apart from
                                     total_budget; beyond it submit answers
                                     CUZK_ENGINE_ERR_EXHAUSTED.  The server
                                     also charges received and decoded wire
                                     messages to it (request_reserve) */
    uint32_t verify_threads;      /* scheduler.verify_threads (ours): submits
                                     that parse and natively verify at once
                                     (default 2; 0 = 2); higher priority goes
                                     first, HIGH has one slot more and CRITICAL
                                     never waits for one */
    uint32_t max_preemptions;     /* scheduler.max_preemptions (ours): a
                                     partition preempted this many times is
                                     proved without yielding again, so a steady
                                     CRITICAL stream cannot starve it (default
                                     2; 0 = never preempt) */
    bool test_provider;           /* engine.test_provider (ours): serve
                                     CUZK_PROOF_TEST with the chain circuit
                                     (default false; tests and demos only).  Its
                                     params go to <param_cache>/cuzk-test/,
                                     never beside real params */
    cuzk_engine_gpus gpus;        /* gpus.*: the prover workers (below) */
} cuzk_engine_config;
void cuzk_engine_config_default(cuzk_engine_config *c);

/* ---- requests and results -------------------------------------------------- */

/* Mirrors SubmitProofRequest.  Buffers are copied at submit; NULL/0 =
 * absent. */
typedef struct cuzk_engine_request {
    const char *request_id;     /* NULL or "" = the engine makes a UUID */
    cuzk_proof_kind kind;
    uint64_t sector_size;
    uint64_t registered_proof;
    cuzk_priority priority;     /* DEFAULT = per-kind default */
    const uint8_t *vanilla_proof;
    size_t vanilla_proof_len;
    const uint8_t *const *vanilla_proofs; /* n_vanilla_proofs buffers */
    const size_t *vanilla_proofs_len;
    size_t n_vanilla_proofs;
    uint64_t sector_number;
    uint64_t miner_id;
    const uint8_t *randomness;
    size_t randomness_len;
    uint32_t partition_index;
    const uint8_t *comm_r_old, *comm_r_new, *comm_d_new; /* 32 bytes each or NULL */
} cuzk_engine_request;

#define CUZK_JOB_ID_MAX 128      /* longest job id accepted, incl. NUL */
#define CUZK_ENGINE_ERR_LEN 512

/* Milliseconds per phase.  synthesis and prove are summed over the job's
 * partitions (they may overlap each other, so they can exceed total);
 * prove is reported as gpu_compute_ms on the wire (CPU prover here). */
typedef struct cuzk_engine_timings {
    uint64_t queue_wait_ms; /* submit -> first partition started */
    uint64_t srs_load_ms;   /* time this job waited for its SRS to load */
    uint64_t synthesis_ms;
    uint64_t prove_ms;      /* this job's share of batched prove calls */
    uint64_t verify_ms;
    uint64_t total_ms;      /* submit -> end */
} cuzk_engine_timings;

typedef struct cuzk_engine_result {
    char job_id[CUZK_JOB_ID_MAX];
    cuzk_job_status status;
    uint8_t *proof;           /* COMPLETED: partitions x 192 bytes, malloc'd */
    size_t proof_len;
    char error[CUZK_ENGINE_ERR_LEN]; /* FAILED/CANCELLED/TIMEOUT: why */
    cuzk_engine_timings t;
    uint64_t end_seq;         /* 1, 2, ...: order in which jobs ended
                                 (0 = not ended); for tests and logs */
} cuzk_engine_result;
/* Frees proof and zeroes the struct; safe on a zeroed struct. */
void cuzk_engine_result_clear(cuzk_engine_result *r);

/* ---- proof-kind providers ---------------------------------------------------- */
/* A circuit family (PoRep, PoSt, Snap, the test chain) plugs in through
 * this table.  All functions are called WITHOUT the engine lock held and
 * may run concurrently for different jobs; they must be thread safe with
 * respect to their ctx.  Errors: a status code and a precise message in err
 * (the message becomes the job's error_message). */
typedef struct cuzk_engine_task cuzk_engine_task; /* opaque: one partition */
/* For long synthesis: true once the job is cancelled or the engine is
 * shutting down without grace; return CUZK_ENGINE_ERR_CANCELLED then. */
bool cuzk_engine_task_cancelled(const cuzk_engine_task *t);
const char *cuzk_engine_task_job_id(const cuzk_engine_task *t);

typedef struct cuzk_engine_provider {
    const char *name;     /* for logs and status, e.g. "winning-post" */
    void *ctx;            /* passed to every call */
    /* Parse and validate the request at submit (caller's thread; keep it
     * fast: decode and check, no synthesis).  *state is the provider's
     * per-job data, freed with free_state.  Sets circuit_id (the SRS key,
     * e.g. "winning-2k", < 64 chars), *partitions (>= 1), and
     * *partition_bytes, the memory one partition holds from the start of
     * its synthesis until its proof is done (the budget reservation). A
     * failure rejects the job: submit still returns a job id and the job
     * ends FAILED with err at once (so Prove answers FAILED, not a gRPC
     * error). */
    int (*parse)(void *ctx, void **state, char circuit_id[64], size_t *partitions,
                 uint64_t *partition_bytes, const cuzk_engine_request *req, char *err,
                 size_t err_len);
    /* Optional: the most memory parse may hold for req (its decoded
     * structures and any temporary ones at their peak), charged to
     * memory.request_budget before parse runs.  NULL: twice the request's
     * bytes (input-sized results, e.g. the bincode decoders). */
    uint64_t (*parse_bytes)(void *ctx, const cuzk_engine_request *req);
    void (*free_state)(void *ctx, void *state); /* only frees: may be called
                                                  with the engine lock held,
                                                  as soon as the job ends */
    /* SRS of a circuit id: the params file name inside param_cache (e.g.
     * "v28-proof-of-spacetime-fallback-...params") and, if shape is not
     * NULL, the shape the loader checks.  CUZK_ENGINE_ERR_NOT_FOUND if this
     * provider does not know the id (the engine asks every provider). */
    int (*srs_file)(void *ctx, const char *circuit_id, char *file, size_t file_cap,
                    cuzk_groth16_shape *shape);
    /* Optional (tests): create the params file when it is missing. */
    int (*srs_create)(void *ctx, const char *circuit_id, const char *path, char *err,
                      size_t err_len);
    /* Synthesize partition k of the job into cs (fresh, PROVE mode,
     * created by the engine); finish is called by the engine. */
    int (*synthesize)(void *ctx, cuzk_cs *cs, const void *state, size_t k,
                      const cuzk_engine_task *task, char *err, size_t err_len);
    /* Public inputs of partition k (without ONE) as the VERIFIER computes
     * them from the request: up to cap values into out, count in *n.  NULL =
     * take them from the synthesized cs (weaker: checks the prover only). */
    int (*public_inputs)(void *ctx, cuzk_fr *out, size_t cap, size_t *n, const void *state,
                         size_t k, char *err, size_t err_len);
} cuzk_engine_provider;

/* ---- the engine -------------------------------------------------------------- */

typedef struct cuzk_engine cuzk_engine;

/* Start the engine's threads.  cfg is copied.  Returns CUZK_OK,
 * CUZK_ERR_ARG (message in err) or CUZK_ERR_NOMEM. */
CUZK_MUST_CHECK int cuzk_engine_create(cuzk_engine **out, const cuzk_engine_config *cfg, char *err,
                       size_t err_len);
/* Shutdown (with cfg.shutdown_grace_ms if not yet shut down), then free.
 * Waits until callers blocked in await have returned.  NULL: no-op. */
void cuzk_engine_destroy(cuzk_engine *e);

/* Register the provider for a kind (one call; replaces a previous one;
 * the table is copied, ctx must outlive the engine).  Allowed at any time;
 * jobs already parsed keep their provider. */
CUZK_MUST_CHECK int cuzk_engine_register(cuzk_engine *e, cuzk_proof_kind kind, const cuzk_engine_provider *p);
/* A copy of the provider registered for kind (tests wrap one);
 * CUZK_ENGINE_ERR_NOT_FOUND if none. */
CUZK_MUST_CHECK int cuzk_engine_provider_get(cuzk_engine *e, cuzk_proof_kind kind, cuzk_engine_provider *out);

/* Register every provider this build has for the wire kinds: WinningPoSt
 * and WindowPoSt (cuzk/post.h), PoRep C2 (cuzk/porep.h; circuit ids
 * porep-2k ... porep-64g) and SnapDeals (cuzk/snap.h; snap-2k ...
 * snap-64g), params looked up in param_cache by their v28 file names.
 * Circuits whose params are already in param_cache are listed as COLD SRS
 * entries.  One call for daemons. */
CUZK_MUST_CHECK int cuzk_engine_register_builtin(cuzk_engine *e);

/* Enqueue.  job_id gets the job id (request_id, else a random UUID v4 from
 * getrandom); *queue_position the number of queued jobs that will start
 * before it (0 = next).  A known request_id, with the same request content
 * (a SHA-256 of every field that defines the proof: kind, sizes, registered
 * proof, vanilla proofs, sector, miner, randomness, partition, commitments;
 * not the priority): a queued, running or COMPLETED job is returned
 * (*existing = true) and nothing changes; a job that ended FAILED or
 * CANCELLED is never handed back: the old result is dropped and a fresh
 * attempt starts under the same id.  Different content: refused with
 * CUZK_ENGINE_ERR_EXISTS while the old job is live (except a WindowPoSt or
 * WinningPoSt job that no caller awaits: it ends CANCELLED "superseded by a
 * retry with other inputs" and the new content starts under the id); after
 * it ended, a fresh attempt replaces it.  A request that fails to
 * parse, has no provider for its kind, or needs more memory than the whole
 * budget still yields a job, which ends FAILED with the reason at once.
 * Errors: CUZK_ERR_ARG (bad request_id: too long or control characters;
 * priority out of range; message in err), CUZK_ENGINE_ERR_EXISTS (message
 * names the id), CUZK_ENGINE_ERR_SHUTDOWN, CUZK_ERR_UNSUPPORTED (kind
 * CUZK_PROOF_TEST while engine.test_provider is off),
 * CUZK_ENGINE_ERR_EXHAUSTED (scheduler.max_queued_jobs live jobs, or the
 * memory the parse may hold (provider parse_bytes) would pass
 * memory.request_budget; both checked before the request is hashed or
 * decoded, unless its request_id names a job it may attach to).  The
 * parse waits for one of scheduler.verify_threads slots, higher priority
 * first. */
CUZK_MUST_CHECK int cuzk_engine_submit(cuzk_engine *e, char job_id[CUZK_JOB_ID_MAX], uint32_t *queue_position,
                       bool *existing, const cuzk_engine_request *req, char *err,
                       size_t err_len);

/* memory.request_budget outside a job: the server holds a received
 * message, and then its decoded form, under a reservation taken before the
 * bytes are copied or decoded.  `what` names the holder in the refusal:
 * CUZK_ENGINE_ERR_EXHAUSTED "<what> needs N MiB of request memory; live
 * requests hold U MiB and memory.request_budget is B MiB".  Release exactly
 * what was reserved (in any number of parts). */
CUZK_MUST_CHECK int cuzk_engine_request_reserve(cuzk_engine *e, uint64_t bytes, const char *what, char *err,
                                                size_t err_len);
void cuzk_engine_request_release(cuzk_engine *e, uint64_t bytes);

/* Block until the job ends or timeout_ms passes (0 = no limit).  res gets
 * the job's final status (COMPLETED with the proof, FAILED/CANCELLED with
 * the reason), or TIMEOUT (res->t.total_ms so far; the job keeps running).
 * CUZK_ENGINE_ERR_NOT_FOUND for an unknown or reaped id (res untouched). */
CUZK_MUST_CHECK int cuzk_engine_await(cuzk_engine *e, cuzk_engine_result *res, const char *job_id,
                      uint64_t timeout_ms);

typedef struct cuzk_engine_await_opts {
    uint64_t timeout_ms;          /* 0 = no limit */
    const atomic_int *abandon;    /* polled every ~20 ms: non-zero -> return
                                     CUZK_ENGINE_ERR_ABANDONED */
    bool cancel_if_abandoned;     /* ... and cancel the job if no other
                                     caller is waiting on it.  The daemon does
                                     not set it: a Prove whose client goes
                                     away leaves its job running, so Curio's
                                     retry (same request_id) attaches to it */
} cuzk_engine_await_opts;
CUZK_MUST_CHECK int cuzk_engine_await_ex(cuzk_engine *e, cuzk_engine_result *res, const char *job_id,
                         const cuzk_engine_await_opts *opts);

/* Cancel: a queued job is removed now; a running one stops at its next
 * safe point (between partitions, between synthesis and proving, between
 * the prover's NTT and MSM phases); either way it ends CANCELLED and all
 * waiters are told.  *was_running = some partition had started.  An ended
 * job is left as it is (CUZK_OK, was_running false).  NOT_FOUND if unknown. */
CUZK_MUST_CHECK int cuzk_engine_cancel(cuzk_engine *e, bool *was_running, const char *job_id);

/* Stop accepting; wait up to grace_ms for in-flight jobs; then cancel what
 * is left and answer every waiter; join the threads.  Idempotent. */
void cuzk_engine_shutdown(cuzk_engine *e, uint32_t grace_ms);

/* ---- SRS manager --------------------------------------------------------------- */
/* Tiers: HOT = decoded and validated in RAM (counts against the budget);
 * WARM = mmap'd and validated (page cache, not counted); COLD = known on
 * disk by name only.  Jobs hold a reference while they use an entry.
 * When a reservation does not fit, idle HOT entries (refcount 0, idle >=
 * eviction_min_idle) are demoted to COLD least recently used first. */
typedef enum { CUZK_SRS_HOT = 0, CUZK_SRS_WARM = 1, CUZK_SRS_COLD = 2 } cuzk_srs_tier;

/* Load circuit_id's params into the hot tier (validated); blocks.
 * *already = it was hot; *load_ms = time spent.  NOT_FOUND if no provider
 * knows the id; CUZK_ERR_IO/FORMAT (message) if the file is bad;
 * CUZK_ENGINE_ERR_TOO_BIG if it cannot fit even after evicting. */
CUZK_MUST_CHECK int cuzk_engine_srs_preload(cuzk_engine *e, bool *already, uint64_t *load_ms,
                            const char *circuit_id, char *err, size_t err_len);
/* Map circuit_id's params (WARM) without decoding. */
CUZK_MUST_CHECK int cuzk_engine_srs_map(cuzk_engine *e, const char *circuit_id, char *err, size_t err_len);
/* Drop HOT/WARM data to COLD.  *was_loaded, *freed_bytes (resident bytes
 * released, or the mapping's size for WARM).  CUZK_ENGINE_ERR_BUSY (nothing
 * done) while a job holds it; NOT_FOUND if unknown. */
CUZK_MUST_CHECK int cuzk_engine_srs_evict(cuzk_engine *e, bool *was_loaded, uint64_t *freed_bytes,
                          const char *circuit_id, char *err, size_t err_len);

/* ---- status and metrics ------------------------------------------------------------ */

typedef struct cuzk_engine_srs_info {
    char circuit_id[64];
    cuzk_srs_tier tier;
    uint64_t size_bytes;   /* HOT: resident bytes; WARM/COLD: file size */
    uint32_t ref_count;
    uint64_t idle_ms;      /* since last release (0 while in use) */
} cuzk_engine_srs_info;

typedef struct cuzk_engine_queue_info {
    cuzk_proof_kind kind;
    uint32_t pending;      /* jobs not started */
    uint32_t in_progress;  /* jobs started, not ended */
} cuzk_engine_queue_info;

typedef struct cuzk_engine_worker_info {
    char name[32];          /* "synth-0", "prover" (the CPU prover),
                               "gpu-0.1" (device 0's second worker) */
    char device[24];        /* provers: "cpu", "opencl:0", "cuda:1"; "" for
                               synthesis workers */
    char device_name[128];  /* provers: the device's name ("cpu" for the CPU) */
    uint64_t device_mem;    /* provers on a device: its memory, bytes */
    int64_t partition;      /* provers: the partition index being proved (the
                               batch's first), -1 when none */
    char state[16];         /* "idle", "waiting", "loading", "synthesizing",
                               "batching", "proving", "verifying"; a device
                               worker no longer used after errors: "failed" */
    char job_id[CUZK_JOB_ID_MAX]; /* "" when idle */
    cuzk_proof_kind kind;
    uint64_t busy_ms;       /* time spent working (loading .. verifying), up to
                               the last time it stopped working */
    uint64_t busy_since_ms; /* engine clock at which the current stretch of
                               work began; 0 while not working */
} cuzk_engine_worker_info;

typedef struct cuzk_engine_status {
    uint64_t uptime_s;
    uint64_t completed, failed, cancelled; /* totals since start */
    uint64_t memory_used, memory_limit;    /* reservations + HOT SRS bytes */
    uint64_t srs_bytes[3];                 /* per tier */
    cuzk_engine_queue_info queues[CUZK_PROOF_KINDS];
    size_t n_srs;
    cuzk_engine_srs_info *srs;             /* malloc'd */
    size_t n_workers;
    cuzk_engine_worker_info *workers;      /* malloc'd */
    uint64_t batches;                      /* prover calls so far */
    uint64_t batched_partitions;           /* partitions they proved */
    uint64_t preemptions;                  /* prover calls stopped for CRITICAL */
    uint64_t request_memory_used;          /* decoded inputs held by live jobs */
    uint64_t request_memory_limit;         /* memory.request_budget */
    uint32_t live_jobs, live_jobs_limit;   /* queued or running; max_queued_jobs */
    uint64_t buffer_pool_bytes;            /* idle partition buffers kept (in memory_used) */
    uint64_t buffer_pool_hits, buffer_pool_misses; /* partitions that found / did not find a set */
    uint32_t ended_jobs, ended_jobs_limit; /* records kept for await; max_ended_jobs */
    uint64_t ended_jobs_dropped;           /* records dropped by that cap before their retention */
    size_t n_provers;                      /* workers[0 .. n_provers) are the prover workers
                                              (workers[0] the CPU prover), the rest synthesis */
    size_t n_devices;
    struct cuzk_engine_device_info {
        char device[24];                   /* "cpu", "opencl:0" */
        char name[128];
        uint32_t workers;
        uint64_t mem_bytes;
        uint64_t partitions;               /* partitions it proved (verified) */
        uint64_t fallbacks;                /* partitions given back to the CPU after an error */
        uint64_t busy_ms;                  /* time inside its backend calls (the device lock);
                                              the CPU: its prover's working time */
    } *devices;                            /* malloc'd; [0] = "cpu" */
} cuzk_engine_status;
CUZK_MUST_CHECK int cuzk_engine_get_status(cuzk_engine *e, cuzk_engine_status *out);
void cuzk_engine_status_clear(cuzk_engine_status *s);

/* Prometheus text exposition (version 0.0.4): counters and duration
 * histograms per proof kind, queue depths, memory, SRS bytes per tier,
 * worker states.  *out is malloc'd, NUL-terminated; free() it. */
CUZK_MUST_CHECK int cuzk_engine_metrics_text(cuzk_engine *e, char **out, size_t *len);
/* The /status JSON document: the status above plus every live (and
 * retained) job with per-partition state and timings.  *out malloc'd. */
CUZK_MUST_CHECK int cuzk_engine_status_json(cuzk_engine *e, char **out, size_t *len);

/* ---- built-in test provider ------------------------------------------------------------ */
/* The `chain` circuit (cuzk/r1cs.h).  The request's vanilla_proof is a text
 * line of space-separated key=value settings (every key optional):
 *   n=64           chain length (constraints), 1..1<<20; circuit id "chain-<n>"
 *   partitions=1   1..64
 *   x0=3           private start value (partition k uses x0 + k)
 *   sleep_ms=0     synthesis sleeps this long per partition, polling for
 *                  cancellation every 5 ms (deterministic scheduling tests)
 *   bad_inputs=0   1: public_inputs returns a wrong output, so the proof
 *                  fails verification and the job must end FAILED
 *   fail=0         1: parse fails ("test provider: fail=1 requested")
 *   mem=0          override partition_bytes (budget tests)
 * Params file: "chain-<n>.params" in param_cache, created on first use with
 * cuzk_groth16_setup_test (seed "cuzk-engine-test") and its `.test`
 * sidecar.  *out is a ready-to-register table (ctx = NULL). */
void cuzk_engine_test_provider(cuzk_engine_provider *out);

#ifdef __cplusplus
}
#endif
#endif
