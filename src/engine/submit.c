/* Admission: cuzk_engine_submit and its phases.
 *
 *   check_request   request_id, priority, a kind this engine serves
 *   new_job         the job record
 *   reserve_locked  under mu: accepting?, the live-job cap and
 *                   memory.request_budget taken for the parse -- before
 *                   anything is hashed, so a request that cannot be
 *                   admitted costs nothing (a request_id of an existing
 *                   job defers the check: the retry may attach to it)
 *   job_digest      mu released: the request's content digest
 *   admit_locked    under mu: the same request_id again (attach / fresh
 *                   attempt / refuse), the deferred cap check, the id; the
 *                   job becomes visible (table, jobs list) as a `parsing`
 *                   placeholder
 *   parse_request   mu released: waits for a verify slot (verify_enter,
 *                   higher priority first), then the provider decodes and
 *                   natively verifies the request into a parsed record that
 *                   only this thread sees (so /status, reading the
 *                   placeholder under mu, never races with it)
 *   commit_locked   under mu: the parsed fields move into the job, which
 *                   is queued or ends FAILED with the parse error
 *
 * Request memory: the decoded inputs live outside the partition budget.
 * They are counted in their own pool (memory.request_budget) from before
 * the parse until cuzk_eng_job_inputs_free_locked frees them when the job ends;
 * the number of live jobs is capped too (scheduler.max_queued_jobs).  Both
 * refusals are CUZK_ENGINE_ERR_EXHAUSTED with the figures in the message. */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "engine/engine_internal.h"

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
static bool digest_put(EVP_MD_CTX *c, const void *p, size_t n)
{
    uint64_t len = p ? n : UINT64_MAX; /* absent != empty */
    return EVP_DigestUpdate(c, &len, sizeof len) && (!p || !n || EVP_DigestUpdate(c, p, n));
}

static int request_digest(uint8_t out[32], const cuzk_engine_request *r)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    bool ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    uint64_t num[6] = {(uint64_t)r->kind, r->sector_size, r->registered_proof,
                       r->sector_number,  r->miner_id,    r->partition_index};
    uint64_t nv = r->n_vanilla_proofs;
    ok = ok && digest_put(c, num, sizeof num) && digest_put(c, r->vanilla_proof, r->vanilla_proof_len) &&
         digest_put(c, &nv, sizeof nv);
    for (size_t i = 0; ok && i < r->n_vanilla_proofs; i++)
        ok = digest_put(c, r->vanilla_proofs[i], r->vanilla_proofs_len[i]);
    ok = ok && digest_put(c, r->randomness, r->randomness_len) && digest_put(c, r->comm_r_old, 32) &&
         digest_put(c, r->comm_r_new, 32) && digest_put(c, r->comm_d_new, 32);
    unsigned len = 0;
    ok = ok && EVP_DigestFinal_ex(c, out, &len) && len == 32;
    EVP_MD_CTX_free(c);
    return ok ? CUZK_OK : CUZK_ERR_NOMEM;
}

/* The memory the parse of r may hold, charged to memory.request_budget
 * before anything is hashed or decoded.  The bincode decoders (PoSt, Snap)
 * yield structures no larger than their input, so by default twice the
 * encoded bytes (input and result side by side) plus 256 bytes per vanilla
 * proof entry (allocation and pointer overhead) and 8 KiB for the job; a
 * provider whose decoder needs more says so (PoRep: the C1 JSON tree,
 * porep_provider.c).  The request's own bytes (the decoded wire message)
 * are the server's reservation, not this one. */
static uint64_t request_bytes(const cuzk_engine_provider *p, const cuzk_engine_request *r)
{
    if (p->parse_bytes) return p->parse_bytes(p->ctx, r) + 8192;
    uint64_t n = (uint64_t)r->vanilla_proof_len + r->randomness_len + 4096;
    for (size_t i = 0; i < r->n_vanilla_proofs; i++)
        n += (uint64_t)r->vanilla_proofs_len[i] + 128;
    return 2 * n;
}

/* Whether `bytes` more request memory fit.  The last sixteenth of the
 * budget is kept for small reservations (at most a sixteenth each): a
 * WinningPoSt request, its parse and an AwaitProof still get in while
 * large messages keep the rest full.  *limit: the limit that applied. */
static bool request_fits_locked(const cuzk_engine *e, uint64_t bytes, uint64_t *limit)
{
    uint64_t budget = e->cfg.request_budget, used = e->req_reserved;
    *limit = bytes > budget / 16 ? budget - budget / 16 : budget;
    return used <= *limit && bytes <= *limit - used;
}

int cuzk_engine_request_reserve(cuzk_engine *e, uint64_t bytes, const char *what, char *err, size_t err_len)
{
    if (!e) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "request_reserve: NULL engine");
    pthread_mutex_lock(&e->mu);
    uint64_t used = e->req_reserved, limit;
    bool fits = request_fits_locked(e, bytes, &limit);
    if (fits)
        e->req_reserved += bytes;
    else
        e->n_rejected[ENG_REJECT_REQUEST_MEMORY]++;
    pthread_mutex_unlock(&e->mu);
    if (fits) return CUZK_OK;
    return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_EXHAUSTED,
                     "request memory full: %s needs %llu MiB (%llu bytes) of request memory; live requests "
                     "hold %llu MiB and memory.request_budget is %llu MiB (%llu MiB for a request over a "
                     "sixteenth of it)",
                     what, (unsigned long long)((bytes + (1u << 20) - 1) >> 20), (unsigned long long)bytes,
                     (unsigned long long)(used >> 20), (unsigned long long)(e->cfg.request_budget >> 20),
                     (unsigned long long)(limit >> 20));
}

void cuzk_engine_request_release(cuzk_engine *e, uint64_t bytes)
{
    if (!e || !bytes) return;
    pthread_mutex_lock(&e->mu);
    e->req_reserved -= bytes < e->req_reserved ? bytes : e->req_reserved;
    pthread_mutex_unlock(&e->mu);
}

/* submit, phase 1: the request's identity fields are well formed. */
static int check_request(const cuzk_engine_request *req, char *err, size_t err_len)
{
    const char *rid = req->request_id;
    if (rid && *rid) {
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
    if (req->n_vanilla_proofs && (!req->vanilla_proofs || !req->vanilla_proofs_len))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%zu vanilla proofs announced without their buffers",
                         req->n_vanilla_proofs);
    return CUZK_OK;
}

/* submit, phase 2: the job record (its digest comes after reserve_locked). */
static int new_job(job **out, char *err, size_t err_len)
{
    job *j = calloc(1, sizeof *j);
    if (!j) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "submit: out of memory");
    *out = j;
    return CUZK_OK;
}

/* A live PoSt job that a retry under its id with other content replaces:
 * Curio's WindowPoSt id (wdpost-<miner>-<partition>-<randomness[:8]>) stays
 * the same across its retries while the sector set may change (a faulty
 * sector dropped), and its 5 attempts must not be burnt on ALREADY_EXISTS
 * inside the deadline.  Only while no caller waits on the old job (its
 * client went away) and its submit has finished: someone still waiting
 * keeps it, and the retry is refused as for every other kind. */
static bool supersedes_locked(const job *old, cuzk_proof_kind kind)
{
    bool post = kind == CUZK_PROOF_WINDOW_POST || kind == CUZK_PROOF_WINNING_POST;
    return post && old->kind == kind && !old->waiters && !old->parsing;
}

/* A request_id already in the table (its job `old`), the new content's
 * digest and kind: 1 = attach to old; 0 = old is retired (ended
 * FAILED/CANCELLED, or ended with other content, or a PoSt job superseded
 * now), a fresh attempt may take the id; CUZK_ENGINE_ERR_EXISTS = live
 * with other content. */
static int resubmit_locked(cuzk_engine *e, job *old, const uint8_t digest[32], cuzk_proof_kind kind)
{
    bool same = !memcmp(old->digest, digest, 32);
    bool live = old->status == CUZK_JOB_UNKNOWN;
    if (same && (live || old->status == CUZK_JOB_COMPLETED)) return 1;
    if (!same && live && !supersedes_locked(old, kind)) return CUZK_ENGINE_ERR_EXISTS;
    if (!same && live) {
        cuzk_log(CUZK_LOG_WARN, old->id,
                 "a retry with other inputs supersedes the live job (no caller waits on it)");
        cuzk_eng_end_job_locked(e, old, CUZK_JOB_CANCELLED, "superseded by a retry with other inputs");
    }
    cuzk_log(CUZK_LOG_INFO, old->id, "resubmitted after it ended %s%s: fresh attempt",
             cuzk_job_status_name(old->status), same ? "" : " (with different content)");
    /* Out of the table now: AwaitProof on the id finds the new attempt.
     * The old one stays on the jobs list until no caller holds it. */
    cuzk_eng_table_remove_locked(e, old);
    if (!old->waiters && !old->n_inflight && !old->parsing) {
        cuzk_eng_unlink_job_locked(e, old);
        cuzk_eng_free_job_locked(e, old);
    } else {
        old->t_end = cuzk_eng_now_ms() - e->cfg.result_retention_ms; /* reap as soon as free */
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

/* admit_locked: room for one more live job and its decoded inputs. */
static int check_capacity_locked(cuzk_engine *e, const job *j, char *err, size_t err_len)
{
    if (e->n_live >= e->cfg.max_live_jobs) {
        e->n_rejected[ENG_REJECT_QUEUE_FULL]++;
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_EXHAUSTED,
                         "queue full: %zu jobs are queued or running (scheduler.max_queued_jobs = %u); "
                         "retry when some have finished",
                         e->n_live, e->cfg.max_live_jobs);
    }
    uint64_t limit;
    if (!request_fits_locked(e, j->req_bytes, &limit)) {
        e->n_rejected[ENG_REJECT_REQUEST_MEMORY]++;
        return cuzk_errf(
            err, err_len, CUZK_ENGINE_ERR_EXHAUSTED,
            "request memory full: live requests hold %llu MiB of request memory, this one's parse "
            "needs ~%llu MiB more and memory.request_budget is %llu MiB",
            (unsigned long long)(e->req_reserved >> 20), (unsigned long long)(j->req_bytes >> 20),
            (unsigned long long)(e->cfg.request_budget >> 20));
    }
    return CUZK_OK;
}

/* admit_locked: the job's id, a request_id's or a fresh UUID.  Returns 1
 * (with job_id set) when the request attaches to an existing job. */
static int assign_id_locked(cuzk_engine *e, job *j, const char *rid, char job_id[CUZK_JOB_ID_MAX],
                            uint32_t *queue_position, char *err, size_t err_len)
{
    if (!rid) {
        /* A random UUID colliding with a live id is (2^-122-)unlikely, but
         * checking costs nothing and no two jobs may ever share a key. */
        do
            if (make_uuid(j->id)) return cuzk_errf(err, err_len, CUZK_ERR_IO, "submit: getrandom failed");
        while (cuzk_eng_find_locked(e, j->id));
        return CUZK_OK;
    }
    job *old = cuzk_eng_find_locked(e, rid);
    int how = old ? resubmit_locked(e, old, j->digest, j->kind) : 0;
    if (how == CUZK_ENGINE_ERR_EXISTS)
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_EXISTS,
                         "request_id '%s' is in use by a queued or running job with different request "
                         "content; it was not replaced (cancel it first, or use another id)",
                         rid);
    if (how == 1) {
        snprintf(job_id, CUZK_JOB_ID_MAX, "%s", old->id);
        if (queue_position) *queue_position = old->in_ready ? ready_position_locked(e, old) : 0;
        cuzk_log(CUZK_LOG_DEBUG, rid, "resubmitted: same job returned");
        return 1;
    }
    snprintf(j->id, sizeof j->id, "%s", rid);
    return CUZK_OK;
}

/* submit, phase 3 (under mu): what can be refused before the request is
 * hashed.  *held: the live-job slot and the parse's request memory are
 * taken (false when request_id names a job this request may attach to:
 * admit_locked checks the capacity after the digest says it does not). */
static int reserve_locked(cuzk_engine *e, job *j, const cuzk_engine_request *req, bool *held, char *err,
                          size_t err_len)
{
    *held = false;
    if (!e->accepting)
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_SHUTDOWN, "%s",
                         cuzk_engine_strerror(CUZK_ENGINE_ERR_SHUTDOWN));
    if (req->kind == CUZK_PROOF_TEST && !e->has_prov[CUZK_PROOF_TEST])
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "proof kind 5 (test) is the chain TEST circuit, which this engine does not serve "
                         "(engine.test_provider is off; test setups only)");
    if (req->kind > 0 && req->kind < CUZK_PROOF_KINDS && e->has_prov[req->kind]) j->prov = e->prov[req->kind];
    j->req_bytes = request_bytes(&j->prov, req);
    if (req->request_id && *req->request_id && cuzk_eng_find_locked(e, req->request_id)) return CUZK_OK;
    int st = check_capacity_locked(e, j, err, err_len);
    if (st) return st;
    e->n_live++;
    e->req_reserved += j->req_bytes;
    *held = true;
    return CUZK_OK;
}

/* Gives back what reserve_locked took (a refused or attached request). */
static void unreserve_locked(cuzk_engine *e, const job *j)
{
    e->n_live--;
    e->req_reserved -= j->req_bytes;
    pthread_cond_broadcast(&e->cv_done); /* shutdown counts live jobs */
}

/* submit, phase 5 (under mu).  1 = attached to an existing job. */
static int admit_locked(cuzk_engine *e, job *j, const cuzk_engine_request *req, bool held,
                        char job_id[CUZK_JOB_ID_MAX], uint32_t *queue_position, char *err, size_t err_len)
{
    int st = e->accepting ? CUZK_OK
                          : cuzk_errf(err, err_len, CUZK_ENGINE_ERR_SHUTDOWN, "%s",
                                      cuzk_engine_strerror(CUZK_ENGINE_ERR_SHUTDOWN));
    const char *rid = req->request_id && *req->request_id ? req->request_id : NULL;
    j->kind = req->kind; /* resubmit_locked: a PoSt retry may supersede */
    if (!st) st = assign_id_locked(e, j, rid, job_id, queue_position, err, err_len);
    if (st) { /* attached (1) or refused */
        if (held) unreserve_locked(e, j);
        return st;
    }
    if (!held) {
        if ((st = check_capacity_locked(e, j, err, err_len))) return st;
        e->n_live++;
        e->req_reserved += j->req_bytes;
    }
    cuzk_eng_ended_trim_locked(e); /* ended records: max_ended_jobs + those ended since */
    j->kind = req->kind;
    j->prio = req->priority ? req->priority : cuzk_priority_default(req->kind);
    j->seq = ++e->seq;
    j->t_submit = cuzk_eng_now_ms();
    j->parsing = true;
    /* Visible (for idempotence, await and cancel) before the unlocked parse. */
    cuzk_eng_table_insert_locked(e, j);
    j->prev = e->jobs_tail;
    if (e->jobs_tail)
        e->jobs_tail->next = j;
    else
        e->jobs_head = j;
    e->jobs_tail = j;
    return CUZK_OK;
}

/* parse_request: a verify slot.  Higher priority first, FIFO within one;
 * HIGH may use one slot beyond scheduler.verify_threads and CRITICAL
 * never waits for one, so a WinningPoSt (one small vanilla proof) never
 * waits behind running or queued big WindowPoSt or PoRep verifications
 * (8.7 s of CPU each for a 32 GiB WindowPoSt partition). */
static void verify_enter(cuzk_engine *e, cuzk_priority p)
{
    uint32_t cap = (e->cfg.verify_threads ? e->cfg.verify_threads : 2) + (p >= CUZK_PRIO_HIGH);
    if (p == CUZK_PRIO_CRITICAL) cap = UINT32_MAX;
    pthread_mutex_lock(&e->mu);
    uint64_t ticket = e->verify_next[p]++;
    for (;;) {
        bool higher = false;
        for (int q = (int)p + 1; q <= CUZK_PRIO_CRITICAL; q++)
            higher |= e->verify_next[q] != e->verify_serving[q];
        if (!higher && e->verify_serving[p] == ticket && e->verify_active < cap) break;
        pthread_cond_wait(&e->cv_done, &e->mu);
    }
    e->verify_serving[p]++;
    e->verify_active++;
    pthread_cond_broadcast(&e->cv_done); /* the next ticket of p may go too */
    pthread_mutex_unlock(&e->mu);
}

static void verify_leave(cuzk_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->verify_active--;
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
}

/* What the parse produces; moved into the job by commit_locked. */
typedef struct parsed {
    int st;
    char err[CUZK_ENGINE_ERR_LEN];
    void *state;
    char circuit_id[64];
    size_t nparts;
    uint64_t part_bytes;
    part *parts;
    uint8_t *proof;
} parsed;

/* submit, phase 6 (mu released): j->prov, j->kind and j->prio are stable
 * while `parsing` is set; nothing else of j is touched. */
static void parse_request(cuzk_engine *e, const job *j, const cuzk_engine_request *req, parsed *p)
{
    if (!j->prov.parse) {
        p->st = cuzk_errf(p->err, sizeof p->err, CUZK_ERR_UNSUPPORTED,
                          "no prover registered for proof kind %d (%s)", (int)req->kind,
                          cuzk_proof_kind_name(req->kind));
        return;
    }
    verify_enter(e, j->prio);
    p->st = j->prov.parse(j->prov.ctx, &p->state, p->circuit_id, &p->nparts, &p->part_bytes, req, p->err,
                          sizeof p->err);
    verify_leave(e);
    if (!p->st && (p->nparts < 1 || p->nparts > 1u << 16))
        p->st = cuzk_errf(p->err, sizeof p->err, CUZK_ERR_ARG, "provider %s: %zu partitions", j->prov.name,
                          p->nparts);
    if (p->st) return;
    p->parts = calloc(p->nparts, sizeof *p->parts);
    p->proof = malloc(p->nparts * CUZK_G16_PROOF_BYTES);
    if (!p->parts || !p->proof)
        p->st = cuzk_errf(p->err, sizeof p->err, CUZK_ERR_NOMEM, "submit: out of memory for %zu partitions",
                          p->nparts);
}

/* submit, phase 7 (under mu): the job takes the parse's results (freed
 * with it from here on) and is queued, or ends. */
static void commit_locked(cuzk_engine *e, job *j, parsed *p, uint32_t *queue_position)
{
    j->parsing = false;
    j->state = p->state;
    memcpy(j->circuit_id, p->circuit_id, sizeof j->circuit_id);
    j->nparts = p->parts ? p->nparts : 0;
    j->part_bytes = p->part_bytes;
    j->parts = p->parts;
    j->proof = p->proof;
    if (!p->st && j->part_bytes > e->mem_limit)
        p->st =
            cuzk_errf(p->err, sizeof p->err, CUZK_ENGINE_ERR_TOO_BIG,
                      "one partition of %s needs %llu MiB but memory.total_budget is %llu MiB", j->circuit_id,
                      (unsigned long long)(j->part_bytes >> 20), (unsigned long long)(e->mem_limit >> 20));
    if (j->status != CUZK_JOB_UNKNOWN) {
        cuzk_eng_job_inputs_free_locked(e, j); /* cancelled (or shut down) while parsing */
        free(j->proof);
        j->proof = NULL;
    } else if (p->st) {
        cuzk_eng_end_job_locked(e, j, CUZK_JOB_FAILED, "%s", p->err);
    } else if (!e->accepting) {
        cuzk_eng_end_job_locked(e, j, CUZK_JOB_CANCELLED, "engine shut down before the job started");
    } else {
        for (size_t k = 0; k < j->nparts; k++) {
            j->parts[k].j = j;
            j->parts[k].k = k;
        }
        cuzk_eng_ready_insert_locked(e, j);
        if (queue_position) *queue_position = ready_position_locked(e, j);
        cuzk_log(CUZK_LOG_INFO, j->id, "submitted %s %s, priority %d, %zu partition(s), %llu MiB each",
                 cuzk_proof_kind_name(j->kind), j->circuit_id, (int)j->prio, j->nparts,
                 (unsigned long long)(j->part_bytes >> 20));
        pthread_cond_broadcast(&e->cv_work);
    }
    pthread_cond_broadcast(&e->cv_done); /* destroy may wait for parsing to end */
}

int cuzk_engine_submit(cuzk_engine *e, char job_id[CUZK_JOB_ID_MAX], uint32_t *queue_position, bool *existing,
                       const cuzk_engine_request *req, char *err, size_t err_len)
{
    if (!e || !job_id || !req) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "submit: NULL argument");
    if (existing) *existing = false;
    if (queue_position) *queue_position = 0;
    job *j = NULL;
    int st = check_request(req, err, err_len);
    if (!st) st = new_job(&j, err, err_len);
    if (st) return st;

    bool held = false;
    pthread_mutex_lock(&e->mu);
    st = reserve_locked(e, j, req, &held, err, err_len);
    pthread_mutex_unlock(&e->mu);
    if (!st && request_digest(j->digest, req))
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "submit: cannot hash the request");
    pthread_mutex_lock(&e->mu);
    if (st && held) unreserve_locked(e, j);
    if (!st) st = admit_locked(e, j, req, held, job_id, queue_position, err, err_len);
    pthread_mutex_unlock(&e->mu);
    if (st) { /* attached to an existing job (1), or refused */
        free(j);
        if (st == 1 && existing) *existing = true;
        return st == 1 ? CUZK_OK : st;
    }

    parsed p = {0};
    parse_request(e, j, req, &p);

    pthread_mutex_lock(&e->mu);
    commit_locked(e, j, &p, queue_position);
    snprintf(job_id, CUZK_JOB_ID_MAX, "%s", j->id);
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}
