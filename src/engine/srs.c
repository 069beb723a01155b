/* SRS (Groth16 parameter) manager with three tiers.
 *
 *   COLD  known by name: the provider maps a circuit id to a file in
 *         param_cache (v28-... for Filecoin circuits); nothing in memory.
 *   WARM  mmap'd and validated: the prover decodes points from the page
 *         cache in chunks; costs no budget (the kernel can drop the pages).
 *   HOT   decoded into resident arrays and validated: fastest proving;
 *         counts against memory.total_budget.
 *
 * A job's partition takes a reference (acquire) before synthesis and drops
 * it when its proof is done; an entry with references is never demoted or
 * evicted.  A COLD entry is loaded HOT when it fits the budget (after
 * evicting idle HOT entries, least recently used first, each idle for at
 * least eviction_min_idle), else WARM.  Loading happens with the engine
 * lock released; `loading` makes other users wait on cv_srs instead of
 * loading twice.
 *
 * Validation (cuzk/srs_trust.h): a file is point-validated once and then
 * trusted by its record or, for official files, by parameters.json's
 * digest; params this engine creates (test params) get their record when
 * written.  Files on disk can change under a running daemon: every acquire
 * compares the file with what was loaded (size, inode, mtime) -- an idle
 * entry is dropped to COLD and loaded again, one in use is marked stale
 * and the acquiring job fails with the change; a WARM file that shrinks
 * during a prove fails that prove with CUZK_ERR_CHANGED (the map guard
 * installed here turns the SIGBUS into a status) and cuzk_eng_srs_fault words it
 * the same way.  A stale entry goes COLD when its last user releases it.
 *
 * Freeing: demoting an entry (LRU eviction, EvictSRS, a changed file)
 * unlinks its params under the lock and frees them after it is released
 * (munmap / free of a 32 GiB entry's ~tens of GB takes long enough to stall
 * every GetStatus and submit behind the lock): EvictSRS, PreloadSRS and a
 * load free them before they return or allocate; a synthesis worker that
 * evicted to make room frees them before it synthesizes; housekeeping
 * frees anything left. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/engine_internal.h"

static srs_entry *find_entry_locked(cuzk_engine *e, const char *id)
{
    for (srs_entry *s = e->srs; s; s = s->next)
        if (!strcmp(s->id, id)) return s;
    return NULL;
}

static int srs_lookup_locked(cuzk_engine *e, srs_entry **out, const char *id, char *err, size_t err_len)
{
    srs_entry *s = find_entry_locked(e, id);
    if (s) {
        *out = s;
        return CUZK_OK;
    }
    if (strlen(id) >= sizeof s->id) {
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_NOT_FOUND, "circuit id '%.80s' is too long", id);
    }
    /* Providers are asked without the lock (they may compute a shape). */
    cuzk_engine_provider prov[CUZK_PROOF_KINDS];
    bool has[CUZK_PROOF_KINDS];
    memcpy(prov, e->prov, sizeof prov);
    memcpy(has, e->has_prov, sizeof has);
    pthread_mutex_unlock(&e->mu);
    char file[400];
    cuzk_groth16_shape shape;
    int found = -1;
    for (int k = 0; k < CUZK_PROOF_KINDS && found < 0; k++) {
        if (!has[k]) continue;
        memset(&shape, 0, sizeof shape);
        if (prov[k].srs_file(prov[k].ctx, id, file, sizeof file, &shape) == CUZK_OK) found = k;
    }
    pthread_mutex_lock(&e->mu);
    if (found < 0) {
        return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_NOT_FOUND,
                         "no registered prover knows circuit id '%s'", id);
    }
    s = find_entry_locked(e, id); /* another thread may have added it */
    if (s) {
        *out = s;
        return CUZK_OK;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "out of memory");
    }
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->path, sizeof s->path, "%s/%s", e->cfg.param_cache, file);
    s->shape = shape;
    s->has_shape = shape.n_inputs != 0;
    s->tier = CUZK_SRS_COLD;
    s->create = prov[found].srs_create;
    s->create_ctx = prov[found].ctx;
    struct stat sb;
    s->file_size = stat(s->path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    s->size = s->file_size;
    s->last_used = cuzk_eng_now_ms();
    s->next = e->srs;
    e->srs = s;
    *out = s;
    return CUZK_OK;
}

static uint64_t resident_bytes(const cuzk_groth16_params *p)
{
    uint64_t g1 = 0;
    for (int v = CUZK_G16_H; v <= CUZK_G16_B_G1; v++)
        g1 += cuzk_groth16_params_count(p, (cuzk_groth16_vec)v);
    g1 += cuzk_groth16_params_vk(p)->n_ic;
    return g1 * sizeof(cuzk_g1_affine) + cuzk_groth16_params_count(p, CUZK_G16_B_G2) * sizeof(cuzk_g2_affine);
}

/* ---- params freed without the lock ---------------------------------------- */

struct eng_dead {
    eng_dead *next;
    cuzk_groth16_params *params;
};

/* Unlinked params go to e->dead; freed by whoever takes the list next (see
 * engine_internal.h).  No node memory: the params are freed here, under mu,
 * as before -- correct, only slow. */
static void dead_push_locked(cuzk_engine *e, cuzk_groth16_params *p)
{
    if (!p) return;
    eng_dead *d = malloc(sizeof *d);
    if (!d) {
        cuzk_groth16_params_free(p);
        return;
    }
    d->params = p;
    d->next = e->dead;
    e->dead = d;
    pthread_cond_broadcast(&e->cv_house);
}

eng_dead *cuzk_eng_srs_dead_take_locked(cuzk_engine *e)
{
    eng_dead *d = e->dead;
    e->dead = NULL;
    return d;
}

void cuzk_eng_srs_dead_free(eng_dead *d)
{
    while (d) {
        eng_dead *nx = d->next;
        cuzk_groth16_params_free(d->params);
        free(d);
        d = nx;
    }
}

/* The entry drops to COLD at once (its bytes leave the budget); its params
 * are freed after mu is released (e->dead). */
static uint64_t demote_locked(cuzk_engine *e, srs_entry *s)
{
    uint64_t freed = s->tier == CUZK_SRS_HOT ? s->size : s->tier == CUZK_SRS_WARM ? s->file_size : 0;
    if (s->tier == CUZK_SRS_HOT) e->srs_hot_bytes -= s->size;
    dead_push_locked(e, s->params);
    s->params = NULL;
    s->tier = CUZK_SRS_COLD;
    s->size = s->file_size;
    s->stale = false;
    return freed;
}

bool cuzk_eng_srs_evict_idle_locked(cuzk_engine *e, uint64_t need)
{
    if (cuzk_eng_pool_shrink_locked(e, need)) return true; /* idle partition buffers go first */
    uint64_t now = cuzk_eng_now_ms();
    while (e->mem_reserved + e->srs_hot_bytes + need > e->mem_limit) {
        srs_entry *lru = NULL;
        for (srs_entry *s = e->srs; s; s = s->next)
            if (s->tier == CUZK_SRS_HOT && !s->refs && !s->loading &&
                now - s->last_used >= e->cfg.eviction_min_idle_ms && (!lru || s->last_used < lru->last_used))
                lru = s;
        if (!lru) return false;
        uint64_t freed = demote_locked(e, lru);
        cuzk_log(CUZK_LOG_INFO, NULL, "srs %s evicted (LRU, idle %llu ms): %llu MiB freed", lru->id,
                 (unsigned long long)(now - lru->last_used), (unsigned long long)(freed >> 20));
    }
    return true;
}

/* Our own test params: we made the points, so they are valid. */
static void record_created(cuzk_engine *e, srs_entry *s)
{
    char rerr[CUZK_ENGINE_ERR_LEN];
    if (cuzk_srs_record_write(s->path, e->cfg.srs_state_dir, rerr, sizeof rerr))
        cuzk_log(CUZK_LOG_WARN, NULL, "srs %s: %s (it will be validated at load)", s->id, rerr);
}

/* The hash of a large params file (minutes for 100+ GB) stops once
 * shutdown's grace is over, like every other piece of work. */
static int load_stop(void *ctx)
{
    const cuzk_engine *e = ctx;
    return atomic_load(&e->abort_work) ? CUZK_ENGINE_ERR_SHUTDOWN : 0;
}

/* Load s's file (mu not held): trusted by record/digest or validated. */
static int load_file(cuzk_engine *e, srs_entry *s, bool hot, cuzk_groth16_params **params, char *err,
                     size_t err_len)
{
    char lerr[CUZK_G16_ERR_LEN] = "";
    if (!hot && cuzk_map_guard_install(lerr, sizeof lerr))
        cuzk_log(CUZK_LOG_WARN, NULL, "srs %s: %s: a file truncated while mapped will stop the process",
                 s->id, lerr);
    cuzk_groth16_load_opts o = {.flags = hot ? 0u : (unsigned)CUZK_G16_LOAD_MMAP,
                                .shape = s->has_shape ? &s->shape : NULL,
                                .par = cuzk_pool_par(e->pool),
                                .err = lerr,
                                .err_len = sizeof lerr};
    cuzk_srs_load_info info;
    cuzk_srs_load_opts so = {.mode = e->cfg.srs_validate,
                             .state_dir = e->cfg.srs_state_dir,
                             .allow_test_params = e->cfg.srs_allow_test_params,
                             .stop = load_stop,
                             .stop_ctx = e};
    int st = cuzk_srs_params_load_ex(params, s->path, &so, &o, &info);
    if (st)
        return cuzk_errf(err, err_len, st, "loading %s: %s%s", s->path,
                         st == CUZK_ENGINE_ERR_SHUTDOWN ? "engine shutting down: " : "",
                         lerr[0] ? lerr : cuzk_strerror(st));
    if (info.test_marker)
        cuzk_log(CUZK_LOG_WARN, NULL,
                 "srs %s: %s is TEST params under an official name (srs.allow_test_params)", s->id, s->path);
    s->fid = info.id;
    cuzk_log(CUZK_LOG_INFO, NULL, "srs %s: %s (digest %.2f s, load %.2f s)", s->id,
             cuzk_srs_trust_name(info.how), info.digest_s, info.load_s);
    if (info.note[0]) cuzk_log(CUZK_LOG_WARN, NULL, "srs %s: %s", s->id, info.note);
    return CUZK_OK;
}

/* mode 0: HOT if it fits, else WARM; 1: HOT or CUZK_ENGINE_ERR_TOO_BIG;
 * 2: WARM.  s is COLD and not loading; mu is held and dropped inside. */
static int load_locked(cuzk_engine *e, srs_entry *s, int mode, char *err, size_t err_len)
{
    s->loading = true;
    pthread_mutex_unlock(&e->mu);
    struct stat sb;
    int st = CUZK_OK;
    bool sb_missing = false; /* the file was absent and could not be made */
    if (stat(s->path, &sb) != 0) {
        if (s->create) {
            cuzk_log(CUZK_LOG_INFO, NULL, "srs %s: creating %s", s->id, s->path);
            st = s->create(s->create_ctx, s->id, s->path, err, err_len);
        } else {
            st = cuzk_errf(err, err_len, CUZK_ERR_IO, "parameter file %s not found (circuit %s)", s->path,
                           s->id);
        }
        if (!st && stat(s->path, &sb) != 0) {
            st = cuzk_errf(err, err_len, CUZK_ERR_IO, "parameter file %s still missing after creation",
                           s->path);
        }
        if (!st) record_created(e, s);
        sb_missing = st != CUZK_OK;
    }
    pthread_mutex_lock(&e->mu);
    bool hot = false;
    uint64_t est = 0;
    if (!st) {
        s->file_size = (uint64_t)sb.st_size;
        est = s->file_size; /* 96/192-byte points on disk ~ resident affine points */
        if (mode != 2) {
            hot =
                e->mem_reserved + e->srs_hot_bytes + est <= e->mem_limit || cuzk_eng_srs_evict_idle_locked(e, est);
            if (!hot && mode == 1) {
                st =
                    cuzk_errf(err, err_len, CUZK_ENGINE_ERR_TOO_BIG,
                              "%s needs ~%llu MiB resident but only %llu of %llu MiB are free after "
                              "evicting idle entries",
                              s->id, (unsigned long long)(est >> 20),
                              (unsigned long long)((e->mem_limit - e->mem_reserved - e->srs_hot_bytes) >> 20),
                              (unsigned long long)(e->mem_limit >> 20));
            }
            if (hot) e->srs_hot_bytes += est; /* held while loading */
        }
    }
    cuzk_groth16_params *params = NULL;
    if (!st) {
        eng_dead *dead = cuzk_eng_srs_dead_take_locked(e); /* evicted for this load: gone first */
        pthread_mutex_unlock(&e->mu);
        cuzk_eng_srs_dead_free(dead);
        st = load_file(e, s, hot, &params, err, err_len);
        pthread_mutex_lock(&e->mu);
        if (hot) e->srs_hot_bytes -= est;
    }
    s->loading = false;
    pthread_cond_broadcast(&e->cv_srs);
    if (st && st != CUZK_ENGINE_ERR_SHUTDOWN) /* metrics: cuzk_srs_load_failures_total */
        e->n_srs_fail[st == CUZK_ENGINE_ERR_TOO_BIG ? ENG_SRS_FAIL_TOO_BIG
                      : sb_missing                  ? ENG_SRS_FAIL_MISSING
                                                    : ENG_SRS_FAIL_INVALID]++;
    if (st) return st;
    s->params = params;
    cuzk_groth16_pvk_prepare(&s->pvk, cuzk_groth16_params_vk(params));
    if (hot) {
        s->size = resident_bytes(params);
        e->srs_hot_bytes += s->size;
        s->tier = CUZK_SRS_HOT;
    } else {
        s->size = s->file_size;
        s->tier = CUZK_SRS_WARM;
    }
    s->last_used = cuzk_eng_now_ms();
    cuzk_log(CUZK_LOG_INFO, NULL, "srs %s loaded %s: %llu MiB%s", s->id, hot ? "HOT" : "WARM (mmap)",
             (unsigned long long)(s->size >> 20),
             cuzk_groth16_params_is_test(params)
                 ? " -- TEST PARAMETERS (anyone with the seed can forge proofs)"
                 : "");
    return CUZK_OK;
}

/* A reload after a change failed: say both. */
static int changed_reload_err(int st, const char *changed, char *err, size_t err_len)
{
    if (!changed[0]) return st;
    char load[CUZK_ENGINE_ERR_LEN];
    snprintf(load, sizeof load, "%s", err);
    return cuzk_errf(err, err_len, st, "%s; loading it again failed: %s", changed, load);
}

/* A loaded entry whose file changed on disk: idle, it goes COLD (and
 * *changed keeps why, for a reload that fails); in use, it turns stale and
 * the caller fails with the change.  mu held. */
static int check_file_locked(cuzk_engine *e, srs_entry *s, char *changed, size_t cap, char *err,
                             size_t err_len)
{
    if (s->tier == CUZK_SRS_COLD) return CUZK_OK;
    char why[CUZK_ENGINE_ERR_LEN];
    if (cuzk_srs_file_id_check(&s->fid, s->path, why, sizeof why) == CUZK_OK) {
        if (!s->stale) return CUZK_OK;
        cuzk_errf(why, sizeof why, 0, "params file %s changed while in use (a mapped page could not be read)",
                  s->path);
    }
    if (s->refs) {
        if (!s->stale) cuzk_log(CUZK_LOG_WARN, NULL, "srs %s: %s", s->id, why);
        s->stale = true;
        return cuzk_errf(err, err_len, CUZK_ERR_CHANGED,
                         "%s; it is loaded again when its current users are done", why);
    }
    cuzk_log(CUZK_LOG_WARN, NULL, "srs %s: %s; dropped to COLD, loading it again", s->id, why);
    snprintf(changed, cap, "%s", why);
    demote_locked(e, s);
    return CUZK_OK;
}

int cuzk_eng_srs_acquire(cuzk_engine *e, srs_entry **out, const char *id, uint64_t *load_ms, char *err,
                    size_t err_len)
{
    uint64_t t0 = cuzk_eng_now_ms();
    bool waited = false;
    srs_entry *s;
    char changed[CUZK_ENGINE_ERR_LEN] = "";
    int st = srs_lookup_locked(e, &s, id, err, err_len);
    if (st) return st;
    for (;;) {
        if (e->stopping) {
            return cuzk_errf(err, err_len, CUZK_ENGINE_ERR_SHUTDOWN, "engine stopping");
        }
        if (s->loading) {
            waited = true;
            pthread_cond_wait(&e->cv_srs, &e->mu);
            continue;
        }
        if ((st = check_file_locked(e, s, changed, sizeof changed, err, err_len))) return st;
        if (s->tier != CUZK_SRS_COLD) break;
        waited = true;
        if ((st = load_locked(e, s, 0, err, err_len))) return changed_reload_err(st, changed, err, err_len);
    }
    s->refs++;
    s->last_used = cuzk_eng_now_ms();
    *load_ms = waited ? s->last_used - t0 : 0;
    *out = s;
    return CUZK_OK;
}

void cuzk_eng_srs_release_locked(cuzk_engine *e, srs_entry *s)
{
    s->refs--;
    s->last_used = cuzk_eng_now_ms();
    if (s->stale && !s->refs && !s->loading) {
        cuzk_log(CUZK_LOG_INFO, NULL, "srs %s: changed on disk; dropped to COLD (last user done)", s->id);
        demote_locked(e, s);
    }
    pthread_cond_broadcast(&e->cv_work);
}

void cuzk_eng_srs_fault(cuzk_engine *e, srs_entry *s, int st, char *err, size_t err_len)
{
    pthread_mutex_lock(&e->mu);
    char why[CUZK_ENGINE_ERR_LEN];
    bool changed = cuzk_srs_file_id_check(&s->fid, s->path, why, sizeof why) != CUZK_OK;
    if (!changed && st == CUZK_ERR_CHANGED)
        cuzk_errf(why, sizeof why, 0,
                  "params file %s changed while in use: a mapped page could not be read (it shrank, and "
                  "is back at %llu bytes)",
                  s->path, (unsigned long long)s->fid.size);
    if (changed || st == CUZK_ERR_CHANGED) {
        /* a file cut inside a page reads zeros there: any prover error */
        if (!s->stale) cuzk_log(CUZK_LOG_WARN, NULL, "srs %s: %s", s->id, why);
        s->stale = true;
        cuzk_errf(err, err_len, 0, "%s", why);
    }
    pthread_mutex_unlock(&e->mu);
}

void cuzk_eng_srs_free_all(cuzk_engine *e)
{
    cuzk_eng_srs_dead_free(cuzk_eng_srs_dead_take_locked(e));
    for (srs_entry *s = e->srs, *nx; s; s = nx) {
        nx = s->next;
        cuzk_groth16_params_free(s->params);
        free(s);
    }
    e->srs = NULL;
}

void cuzk_eng_srs_discover(cuzk_engine *e, const char *id)
{
    char err[CUZK_ENGINE_ERR_LEN];
    srs_entry *s;
    pthread_mutex_lock(&e->mu);
    if (!srs_lookup_locked(e, &s, id, err, sizeof err) && !s->file_size && s->tier == CUZK_SRS_COLD &&
        !s->refs && !s->loading) {
        /* not on disk: forget it again (it was just added, or never used) */
        srs_entry **pp = &e->srs;
        while (*pp && *pp != s)
            pp = &(*pp)->next;
        if (*pp) *pp = s->next;
        free(s);
    }
    pthread_mutex_unlock(&e->mu);
}

static int wait_idle_load_locked(cuzk_engine *e, srs_entry *s)
{
    while (s->loading)
        pthread_cond_wait(&e->cv_srs, &e->mu);
    return CUZK_OK;
}

int cuzk_engine_srs_preload(cuzk_engine *e, bool *already, uint64_t *load_ms, const char *circuit_id,
                            char *err, size_t err_len)
{
    if (!e || !circuit_id) return CUZK_ERR_ARG;
    char tmp[CUZK_ENGINE_ERR_LEN];
    if (!err) err = tmp, err_len = sizeof tmp;
    uint64_t t0 = cuzk_eng_now_ms();
    if (already) *already = false;
    if (load_ms) *load_ms = 0;
    pthread_mutex_lock(&e->mu);
    srs_entry *s;
    char changed[CUZK_ENGINE_ERR_LEN] = "";
    int st = srs_lookup_locked(e, &s, circuit_id, err, err_len);
    if (!st) wait_idle_load_locked(e, s);
    if (!st) st = check_file_locked(e, s, changed, sizeof changed, err, err_len);
    if (!st && s->tier == CUZK_SRS_HOT) {
        if (already) *already = true;
        s->last_used = cuzk_eng_now_ms();
    } else if (!st) {
        if (s->tier == CUZK_SRS_WARM && s->refs) {
            st = cuzk_errf(err, err_len, CUZK_ENGINE_ERR_BUSY,
                           "%s is WARM and in use by %u partition(s); retry when idle", s->id, s->refs);
        } else {
            if (s->tier == CUZK_SRS_WARM) demote_locked(e, s);
            st = changed_reload_err(load_locked(e, s, 1, err, err_len), changed, err, err_len);
        }
    }
    eng_dead *dead = cuzk_eng_srs_dead_take_locked(e);
    pthread_mutex_unlock(&e->mu);
    cuzk_eng_srs_dead_free(dead); /* a WARM or changed entry demoted above */
    if (load_ms) *load_ms = cuzk_eng_now_ms() - t0;
    return st;
}

int cuzk_engine_srs_map(cuzk_engine *e, const char *circuit_id, char *err, size_t err_len)
{
    if (!e || !circuit_id) return CUZK_ERR_ARG;
    char tmp[CUZK_ENGINE_ERR_LEN];
    if (!err) err = tmp, err_len = sizeof tmp;
    pthread_mutex_lock(&e->mu);
    srs_entry *s;
    char changed[CUZK_ENGINE_ERR_LEN] = "";
    int st = srs_lookup_locked(e, &s, circuit_id, err, err_len);
    if (!st) wait_idle_load_locked(e, s);
    if (!st) st = check_file_locked(e, s, changed, sizeof changed, err, err_len);
    if (!st && s->tier == CUZK_SRS_COLD)
        st = changed_reload_err(load_locked(e, s, 2, err, err_len), changed, err, err_len);
    eng_dead *dead = cuzk_eng_srs_dead_take_locked(e);
    pthread_mutex_unlock(&e->mu);
    cuzk_eng_srs_dead_free(dead); /* a changed entry demoted above */
    return st;
}

int cuzk_engine_srs_evict(cuzk_engine *e, bool *was_loaded, uint64_t *freed_bytes, const char *circuit_id,
                          char *err, size_t err_len)
{
    if (!e || !circuit_id) return CUZK_ERR_ARG;
    char tmp[CUZK_ENGINE_ERR_LEN];
    if (!err) err = tmp, err_len = sizeof tmp;
    if (was_loaded) *was_loaded = false;
    if (freed_bytes) *freed_bytes = 0;
    pthread_mutex_lock(&e->mu);
    srs_entry *s;
    int st = srs_lookup_locked(e, &s, circuit_id, err, err_len);
    if (!st && (s->refs || s->loading)) {
        st = cuzk_errf(err, err_len, CUZK_ENGINE_ERR_BUSY, "%s is %s (%u reference(s)); not evicted", s->id,
                       s->loading ? "loading" : "in use", s->refs);
    } else if (!st && s->tier != CUZK_SRS_COLD) {
        if (was_loaded) *was_loaded = true;
        uint64_t f = demote_locked(e, s);
        if (freed_bytes) *freed_bytes = f;
        cuzk_log(CUZK_LOG_INFO, NULL, "srs %s evicted on request: %llu bytes", s->id, (unsigned long long)f);
        pthread_cond_broadcast(&e->cv_work);
    }
    eng_dead *dead = cuzk_eng_srs_dead_take_locked(e);
    pthread_mutex_unlock(&e->mu);
    cuzk_eng_srs_dead_free(dead); /* EvictSRS returns once the memory is gone */
    return st;
}
