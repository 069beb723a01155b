/* The engine's pre-compiled constraint evaluators (cuzk/pce.h): one slot
 * per circuit id, the file `<param_cache>/<circuit id>.pce` (or the state
 * directory when param_cache is not writable), opened and verified on the
 * first synthesis that wants it, extracted by one background thread after
 * a circuit's first proof when it is missing, stale or corrupt.
 *
 * Synthesis asks cuzk_eng_pce_get for a verified evaluator; NULL (switched off,
 * absent, being opened or extracted, or a circuit below the size where the
 * PCE pays: docs/pce.md) means direct PROVE-mode synthesis, so a PCE never
 * blocks a proof; one that yields a proof failing self-verification costs
 * that partition a second, direct proof (below).  A slot that failed to
 * open or extract is not retried (its error is logged once).
 *
 * A file that changes while the engine uses it (an extraction by another
 * process, a copy over it, truncation) is retired, not trusted: every use
 * first compares the file with the one opened (one stat), reads of the map
 * run under the SIGBUS guard (cuzk/mapguard.h, installed before the first
 * open) so that a file cut during a mat-vec fails it with CUZK_ERR_CHANGED,
 * and a failure in a changed file retires the evaluator (kept mapped until
 * cuzk_eng_pce_free: partitions in flight may still hold it) and marks the slot
 * ABSENT, so that the partition is synthesized directly and the file
 * extracted again after the circuit's next proof.  A fault in the prover's
 * fill_c sends the batch back to direct synthesis (sched.c).
 *
 * Trust (docs/pce.md "Trust in the engine"): files are read from and
 * written to directories that pass cuzk_pce_dir_check (checked at create;
 * one WARN line names those refused; with none left the engine proves
 * without PCE), only regular files owned by us or root and not writable by
 * others are opened, and a file must carry this build's R1CS digest of the
 * circuit (cuzk_pce_digest: one SHAPE pass per circuit per engine, kept in
 * the slot, or taken from our own extraction): another build's or a
 * planted file is removed (corrupt: renamed to <file>.retired) and
 * extracted again.  Whatever still slips through -- a proof made through
 * the PCE that fails self-verification -- retires the evaluator for the
 * life of the engine (cuzk_eng_pce_bad_proof_locked: the file is renamed
 * aside, never re-extracted by this process) and sched.c synthesizes that
 * partition again, directly.
 *
 * Also here: the daemon circuit ids' blank circuits and PCE identities
 * (cuzk_pce_filecoin_circuit), shared with `cuzk-bench pce`. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/mapguard.h"
#include "cuzk/pce.h"
#include "cuzk/porep.h"
#include "cuzk/post.h"
#include "cuzk/seal_snap.h"
#include "cuzk/snap.h"
#include "engine_internal.h"

/* ---- daemon circuit ids ------------------------------------------------------ */

static int porep_by_id(const cuzk_fil_seal_info **out, const char *circuit_id)
{
    for (uint64_t k = 0; k < 64; k++)
        if (!cuzk_fil_seal_lookup(out, k) && !strcmp((*out)->circuit_id, circuit_id)) return CUZK_OK;
    return CUZK_ERR_ARG;
}

int cuzk_pce_filecoin_circuit(const char *circuit_id, cuzk_pce_identity *id, cuzk_circuit_fn *fn, void **ctx,
                              char *err, size_t err_len)
{
    const cuzk_fil_seal_info *seal;
    const cuzk_fil_post_info *post;
    const cuzk_snap_info *snap;
    char *end = NULL;
    *ctx = NULL;
    memset(id, 0, sizeof *id);
    if (!circuit_id || strlen(circuit_id) > CUZK_PCE_ID_MAX)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce: bad circuit id");
    snprintf(id->id, sizeof id->id, "%s", circuit_id);
    int st = CUZK_ERR_ARG;
    if (!porep_by_id(&seal, circuit_id)) {
        cuzk_porep_circuit_ctx *c = calloc(1, sizeof *c);
        if (!c) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce: out of memory");
        st = cuzk_porep_shape_for(&c->shape, seal);
        *ctx = c;
        *fn = cuzk_porep_circuit;
        id->kind = CUZK_PCE_KIND_POREP;
        id->registered_proof = seal->id;
    } else if (!cuzk_fil_post_lookup_circuit(&post, circuit_id)) {
        cuzk_post_circuit_ctx *c = calloc(1, sizeof *c);
        if (!c) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce: out of memory");
        st = cuzk_post_circuit_blank(c, post);
        *ctx = c;
        *fn = cuzk_post_circuit;
        id->kind = post->winning ? CUZK_PCE_KIND_WINNING_POST : CUZK_PCE_KIND_WINDOW_POST;
        id->registered_proof = post->id;
    } else if (!cuzk_snap_lookup_circuit(&snap, circuit_id)) {
        cuzk_snap_circuit_ctx *c = calloc(1, sizeof *c);
        if (!c) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce: out of memory");
        st = cuzk_snap_shape_for(&c->shape, snap->sector_size, false);
        *ctx = c;
        *fn = cuzk_snap_circuit;
        id->kind = CUZK_PCE_KIND_SNAP;
        id->registered_proof = snap->id;
    } else if (!strncmp(circuit_id, "chain-", 6) && circuit_id[6] >= '1' && circuit_id[6] <= '9' &&
               strtoull(circuit_id + 6, &end, 10) <= (1u << 20) && !*end) {
        /* the engine's test provider (engine.test_provider): chain-N */
        cuzk_chain_ctx *c = calloc(1, sizeof *c);
        if (!c) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce: out of memory");
        c->n = (size_t)strtoull(circuit_id + 6, NULL, 10);
        *ctx = c;
        *fn = cuzk_chain_circuit;
        id->kind = CUZK_PCE_KIND_OTHER;
        st = CUZK_OK;
    } else {
        return cuzk_errf(
            err, err_len, CUZK_ERR_ARG,
            "pce: unknown circuit id '%s' (porep-2k .. porep-64g, winning-*, wpost-*, snap-*, chain-N)",
            circuit_id);
    }
    if (st) {
        free(*ctx);
        *ctx = NULL;
        return cuzk_errf(err, err_len, st, "pce: no circuit shape for '%s'", circuit_id);
    }
    return CUZK_OK;
}

int cuzk_pce_filecoin_circuit_id(char out[64], uint32_t kind, uint64_t sector_size)
{
    out[0] = 0;
    for (uint64_t k = 0; k < 64; k++) {
        const cuzk_fil_seal_info *s;
        const cuzk_fil_post_info *p;
        const cuzk_snap_info *u;
        const char *cid = NULL;
        if (kind == CUZK_PCE_KIND_POREP && !cuzk_fil_seal_lookup(&s, k) && s->sector_size == sector_size)
            cid = s->circuit_id;
        if ((kind == CUZK_PCE_KIND_WINNING_POST || kind == CUZK_PCE_KIND_WINDOW_POST) &&
            !cuzk_fil_post_lookup(&p, k) && p->sector_size == sector_size &&
            p->winning == (kind == CUZK_PCE_KIND_WINNING_POST))
            cid = p->circuit_id;
        if (kind == CUZK_PCE_KIND_SNAP && !cuzk_snap_lookup(&u, k) && u->sector_size == sector_size)
            cid = u->circuit_id;
        if (cid) {
            snprintf(out, 64, "%s", cid);
            return CUZK_OK;
        }
    }
    return CUZK_ERR_ARG;
}

/* ---- the engine's cache --------------------------------------------------------- */

/* What an extraction holds beyond the engine's other reservations: the
 * SHAPE cs (3 bits per variable: ~50 MB at 32 GiB), the coefficient table,
 * the checkpoints and stdio buffers. */
#define PCE_EXTRACT_BYTES (256ull << 20)
#define PCE_SLOTS 32

enum { S_UNKNOWN, S_OPENING, S_READY, S_ABSENT, S_EXTRACTING, S_FAILED, S_UNSUPPORTED };

typedef struct {
    char circuit_id[64];
    int state;
    cuzk_pce *pce;
    char path[1200];  /* pce's file */
    bool have_digest; /* digest: this build's R1CS digest of the circuit */
    uint8_t digest[32];
} pce_slot;

/* An evaluator whose file changed: closed at cuzk_eng_pce_free. */
typedef struct pce_retired {
    cuzk_pce *pce;
    struct pce_retired *next;
} pce_retired;

struct eng_pce_cache {
    pthread_mutex_t mu;
    bool off;
    pce_slot slot[PCE_SLOTS];
    size_t n;
    pce_retired *retired;
    pthread_t th;
    bool th_started, extracting;
    atomic_bool stop;
    cuzk_engine *e;
    pce_slot *job;     /* the slot being extracted */
    char dir[2][1024]; /* param_cache, then the state directory; "" = none or refused */
};

/* The state directory for PCE files: srs.state_dir, $CUZK_STATE_DIR,
 * $STATE_DIRECTORY (systemd's StateDirectory=, first entry),
 * $HOME/.local/state/cuzk, else param_cache, else /var/lib/cuzk -- never a
 * path under a world-writable directory picked for want of a home. */
static void state_dir(char *out, size_t cap, const cuzk_engine_config *cfg)
{
    const char *env = getenv("CUZK_STATE_DIR"), *sd = getenv("STATE_DIRECTORY"), *h = getenv("HOME");
    if (cfg->srs_state_dir[0])
        snprintf(out, cap, "%s", cfg->srs_state_dir);
    else if (env && *env)
        snprintf(out, cap, "%s", env);
    else if (sd && *sd)
        snprintf(out, cap, "%.*s", (int)strcspn(sd, ":"), sd);
    else if (h && *h)
        snprintf(out, cap, "%s/.local/state/cuzk", h);
    else
        snprintf(out, cap, "%s", cfg->param_cache[0] ? cfg->param_cache : "/var/lib/cuzk");
}

/* Both directories, each kept only if cuzk_pce_dir_check accepts it; one
 * WARN line for those refused (none left: the engine proves without PCE). */
static void pce_dirs(eng_pce_cache *c, const cuzk_engine_config *cfg)
{
    char why[2][600] = {"", ""};
    snprintf(c->dir[0], sizeof c->dir[0], "%s", cfg->param_cache);
    state_dir(c->dir[1], sizeof c->dir[1], cfg);
    if (!strcmp(c->dir[0], c->dir[1])) c->dir[1][0] = 0;
    int refused = 0;
    for (int d = 0; d < 2; d++)
        if (c->dir[d][0] && cuzk_pce_dir_check(c->dir[d], why[d], sizeof why[d])) {
            c->dir[d][0] = 0;
            refused++;
        }
    if (!refused) return;
    bool none = !c->dir[0][0] && !c->dir[1][0];
    cuzk_log(CUZK_LOG_WARN, NULL, "PCE: %s%s%s; %s", why[0], why[0][0] && why[1][0] ? "; " : "", why[1],
             none ? "no safe directory is left: synthesis stays direct (no PCE)"
                  : "the other directory is used");
}

int cuzk_eng_pce_init(cuzk_engine *e, char *err, size_t err_len)
{
    const char *m = e->cfg.synthesis_pce;
    if (*m && strcmp(m, "auto") && strcmp(m, "off"))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "synthesis.pce: expected \"auto\" or \"off\", got \"%s\"", m);
    eng_pce_cache *c = calloc(1, sizeof *c);
    if (!c) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: out of memory (PCE cache)");
    if (pthread_mutex_init(&c->mu, NULL)) {
        free(c);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "engine: cannot initialize the PCE cache's mutex");
    }
    c->off = !strcmp(m, "off");
    c->e = e;
    e->pce = c;
    if (!c->off) pce_dirs(c, &e->cfg);
    return CUZK_OK;
}

void cuzk_eng_pce_free(cuzk_engine *e)
{
    eng_pce_cache *c = e->pce;
    if (!c) return;
    atomic_store(&c->stop, true);
    if (c->th_started) pthread_join(c->th, NULL);
    for (size_t i = 0; i < c->n; i++)
        cuzk_pce_close(c->slot[i].pce);
    while (c->retired) {
        pce_retired *r = c->retired;
        c->retired = r->next;
        cuzk_pce_close(r->pce);
        free(r);
    }
    pthread_mutex_destroy(&c->mu);
    free(c);
    e->pce = NULL;
}

/* <dir>/<id>.pce: param_cache first (dir 0), then the state directory. */
static void pce_path(const eng_pce_cache *c, char *out, size_t cap, const char *id, int dir)
{
    snprintf(out, cap, "%s/%s.pce", c->dir[dir], id);
}

static pce_slot *slot_locked(eng_pce_cache *c, const char *id)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->slot[i].circuit_id, id)) return &c->slot[i];
    if (c->n == PCE_SLOTS) return NULL;
    pce_slot *s = &c->slot[c->n++];
    snprintf(s->circuit_id, sizeof s->circuit_id, "%s", id);
    return s;
}

/* A PCE file we may open: a regular file (not a link), owned by us or
 * root, not writable by group or others.  ENOENT: silently absent. */
static int file_trusted(const char *path, char *why, size_t cap)
{
    struct stat sb;
    if (lstat(path, &sb))
        return errno == ENOENT ? CUZK_ERR_IO
                               : cuzk_errf(why, cap, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return cuzk_errf(why, cap, CUZK_ERR_ARG, "%s refused: not a regular file", path);
    if ((sb.st_uid != 0 && sb.st_uid != geteuid()) || (sb.st_mode & (S_IWGRP | S_IWOTH)))
        return cuzk_errf(why, cap, CUZK_ERR_ARG,
                         "%s refused: owned by uid %u, mode %04o (ours or root's, "
                         "not writable by others, wanted)",
                         path, (unsigned)sb.st_uid, (unsigned)(sb.st_mode & 07777));
    return CUZK_OK;
}

/* A file that is not to be used again: a stale one (another build's,
 * version or matrices) is removed, anything else renamed to
 * <path>.retired (kept for a look; one per circuit).  The note for the log. */
static void retire_file(const char *path, bool stale, char *note, size_t cap)
{
    char to[1300];
    snprintf(to, sizeof to, "%s.retired", path);
    if (stale ? unlink(path) : rename(path, to))
        snprintf(note, cap, "; could not %s it: %s", stale ? "remove" : "rename", strerror(errno));
    else
        snprintf(note, cap, stale ? "; removed" : "; renamed to %s", to);
}

/* This build's R1CS digest of the slot's circuit, once per engine. */
static int slot_digest(pce_slot *s, cuzk_circuit_fn fn, void *ctx, char *err, size_t err_len)
{
    if (s->have_digest) return CUZK_OK;
    uint64_t t0 = cuzk_eng_now_ms();
    int st = cuzk_pce_digest(s->digest, fn, ctx, NULL, NULL, err, err_len);
    if (st) return st;
    s->have_digest = true; /* only this thread uses it while the slot is OPENING */
    cuzk_log(CUZK_LOG_INFO, NULL, "R1CS digest of %s computed in %llu ms", s->circuit_id,
             (unsigned long long)(cuzk_eng_now_ms() - t0));
    return CUZK_OK;
}

/* One directory's file: CUZK_OK with *p, or why not (logged here unless
 * simply absent). */
static int open_in(eng_pce_cache *c, pce_slot *s, int dir, const cuzk_pce_identity *id, cuzk_circuit_fn fn,
                   void *ctx, cuzk_pce **p)
{
    char err[512] = "", path[1200], note[1400] = "";
    pce_path(c, path, sizeof path, s->circuit_id, dir);
    int st = file_trusted(path, err, sizeof err);
    if (st == CUZK_ERR_IO && !err[0]) return st; /* absent */
    if (!st) st = slot_digest(s, fn, ctx, err, sizeof err);
    if (!st) st = cuzk_pce_open_digest(p, path, id, s->digest, err, sizeof err);
    if (!st) {
        snprintf(s->path, sizeof s->path, "%s", path);
        cuzk_log(CUZK_LOG_INFO, NULL, "synthesis of %s uses the PCE %s", s->circuit_id, path);
        return CUZK_OK;
    }
    if (st == CUZK_ERR_CHANGED || st == CUZK_ERR_FORMAT)
        retire_file(path, st == CUZK_ERR_CHANGED, note, sizeof note);
    if (!(st == CUZK_ERR_IO && errno == ENOENT))
        cuzk_log(CUZK_LOG_WARN, NULL, "PCE: %s%s; it will be rebuilt after the next proof", err, note);
    return st;
}

/* Open and verify the slot's file (without the lock: a 32 GiB PoRep file
 * is ~4 GB of SHA-256, and the first open of a circuit also computes its
 * R1CS digest); the new state under the lock. */
static cuzk_pce *open_slot(cuzk_engine *e, pce_slot *s)
{
    eng_pce_cache *c = e->pce;
    cuzk_pce_identity id;
    cuzk_circuit_fn fn;
    void *ctx = NULL;
    char err[512];
    cuzk_pce *p = NULL;
    int st = cuzk_pce_filecoin_circuit(s->circuit_id, &id, &fn, &ctx, err, sizeof err);
    if (!st && cuzk_map_guard_install(err, sizeof err))
        cuzk_log(CUZK_LOG_WARN, NULL, "PCE: %s: a PCE file truncated while in use will stop the process",
                 err);
    for (int dir = 0; !st && dir < 2 && !p; dir++)
        if (c->dir[dir][0] && open_in(c, s, dir, &id, fn, ctx, &p)) p = NULL;
    free(ctx);
    pthread_mutex_lock(&c->mu);
    s->state = st ? S_UNSUPPORTED : p ? S_READY : S_ABSENT;
    s->pce = p;
    pthread_mutex_unlock(&c->mu);
    return p;
}

/* s's evaluator, whose file changed (why), leaves the slot: kept open for
 * the partitions that may still hold it; the slot is ABSENT, so the file
 * is extracted again after the next proof.  Without memory for the list
 * entry the slot keeps it, FAILED. */
static void retire_locked(eng_pce_cache *c, pce_slot *s, const char *why)
{
    pce_retired *r = malloc(sizeof *r);
    cuzk_log(CUZK_LOG_WARN, NULL, "PCE of %s retired: %s; synthesizing directly%s", s->circuit_id, why,
             r ? ", it will be extracted again" : "");
    if (!r) {
        s->state = S_FAILED;
        return;
    }
    *r = (pce_retired){s->pce, c->retired};
    c->retired = r;
    s->pce = NULL;
    s->state = S_ABSENT;
}

static pce_slot *slot_of_locked(eng_pce_cache *c, const cuzk_pce *p)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->slot[i].pce == p) return &c->slot[i];
    return NULL;
}

void cuzk_eng_pce_bad_proof_locked(cuzk_engine *e, const cuzk_pce *p, const char *job_id, size_t k,
                                   const char *why)
{
    eng_pce_cache *c = e->pce;
    if (!c || !p) return;
    char note[1400] = "";
    pthread_mutex_lock(&c->mu);
    pce_slot *s = slot_of_locked(c, p); /* NULL: retired already, by another partition */
    pce_retired *r = s ? malloc(sizeof *r) : NULL;
    if (s && !cuzk_pce_unchanged(p, NULL, 0)) retire_file(s->path, false, note, sizeof note);
    if (s)
        cuzk_log(CUZK_LOG_WARN, job_id,
                 "PCE of %s retired: partition %zu's proof made through it failed self-verification (%s)%s; "
                 "synthesizing it again directly, and every partition of %s from now on",
                 s->circuit_id, k, why, note, s->circuit_id);
    if (r) { /* kept mapped: partitions in flight may hold it */
        *r = (pce_retired){s->pce, c->retired};
        c->retired = r;
        s->pce = NULL;
    }
    if (s) s->state = S_FAILED; /* neither opened nor extracted again by this engine */
    pthread_mutex_unlock(&c->mu);
}

const cuzk_pce *cuzk_eng_pce_get(cuzk_engine *e, const char *circuit_id)
{
    eng_pce_cache *c = e->pce;
    if (!c || c->off || (!c->dir[0][0] && !c->dir[1][0])) return NULL;
    char why[512];
    pthread_mutex_lock(&c->mu);
    pce_slot *s = slot_locked(c, circuit_id);
    cuzk_pce *p = NULL;
    bool open = s && s->state == S_UNKNOWN;
    if (s && s->state == S_READY && cuzk_pce_unchanged(s->pce, why, sizeof why))
        retire_locked(c, s, why); /* its map may be cut short or hold another file's bytes */
    if (s && s->state == S_READY) p = s->pce;
    if (open) s->state = S_OPENING;
    pthread_mutex_unlock(&c->mu);
    return open ? open_slot(e, s) : p;
}

size_t cuzk_eng_pce_report_locked(cuzk_engine *e, eng_pce_report *out, size_t cap)
{
    static const char *const name[] = {"unknown", "opening", "ready", "absent", "extracting", "failed",
                                       "unsupported"};
    eng_pce_cache *c = e->pce;
    size_t n = 0;
    if (!c) return 0;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n && n < cap; i++) {
        const pce_slot *s = &c->slot[i];
        if (s->state == S_UNKNOWN) continue;
        eng_pce_report *r = &out[n++];
        snprintf(r->circuit_id, sizeof r->circuit_id, "%s", s->circuit_id);
        r->state = name[s->state];
        snprintf(r->path, sizeof r->path, "%s", s->state == S_READY ? s->path : "");
    }
    pthread_mutex_unlock(&c->mu);
    return n;
}

/* Evaluators stay open until cuzk_eng_pce_free (a lean partition holds its
 * one until its proof), so only a failure needs telling: p is retired when
 * its file changed, else its slot is FAILED (no new users). */
void cuzk_eng_pce_put(cuzk_engine *e, const cuzk_pce *p, bool failed)
{
    eng_pce_cache *c = e->pce;
    if (!c || !p || !failed) return;
    char why[512];
    bool changed = cuzk_pce_unchanged(p, why, sizeof why) != CUZK_OK;
    pthread_mutex_lock(&c->mu);
    pce_slot *s = slot_of_locked(c, p); /* NULL: retired meanwhile */
    if (s && changed)
        retire_locked(c, s, why);
    else if (s)
        s->state = S_FAILED;
    pthread_mutex_unlock(&c->mu);
}

static int extract_progress(void *ctx, size_t n)
{
    eng_pce_cache *c = ctx;
    (void)n;
    return atomic_load(&c->stop) || atomic_load(&c->e->abort_work) ? CUZK_ENGINE_ERR_CANCELLED : 0;
}

/* Param_cache when it is writable, else the state directory (created,
 * then checked again: someone may have made it first). */
static int extract_to(eng_pce_cache *c, const char *cid, char *path, size_t cap, char *err, size_t err_len)
{
    int d = c->dir[0][0] && !access(c->dir[0], W_OK) ? 0 : 1;
    if (!c->dir[d][0])
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "no writable PCE directory (param_cache %s)",
                         c->dir[0][0] ? "is read-only, no state directory is usable"
                                      : "and state directory refused");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", c->dir[d]);
    for (char *q = dir + 1; *q; q++) /* mkdir -p */
        if (*q == '/') {
            *q = 0;
            (void)mkdir(dir, 0755);
            *q = '/';
        }
    (void)mkdir(dir, 0755);
    int st = cuzk_pce_dir_check(dir, err, err_len);
    if (!st) pce_path(c, path, cap, cid, d);
    return st;
}

static void *extract_main(void *arg)
{
    eng_pce_cache *c = arg;
    cuzk_engine *e = c->e;
    pce_slot *s = c->job;
    cuzk_pce_identity id;
    cuzk_pce_info info;
    cuzk_circuit_fn fn;
    void *ctx = NULL;
    char err[512], path[1200];
    uint64_t t0 = cuzk_eng_now_ms();
    int st = cuzk_pce_filecoin_circuit(s->circuit_id, &id, &fn, &ctx, err, sizeof err);
    if (!st) st = extract_to(c, s->circuit_id, path, sizeof path, err, sizeof err);
    if (!st) {
        cuzk_log(CUZK_LOG_INFO, NULL, "extracting the PCE of %s to %s in the background", s->circuit_id,
                 path);
        st = cuzk_pce_extract(path, &id, fn, ctx, extract_progress, c, &info, err, sizeof err);
    }
    free(ctx);
    if (st)
        cuzk_log(st == CUZK_ENGINE_ERR_CANCELLED ? CUZK_LOG_INFO : CUZK_LOG_WARN, NULL,
                 "PCE of %s not extracted: %s; synthesis stays direct", s->circuit_id, err);
    else
        cuzk_log(CUZK_LOG_INFO, NULL, "PCE of %s extracted in %llu ms", s->circuit_id,
                 (unsigned long long)(cuzk_eng_now_ms() - t0));
    pthread_mutex_lock(&e->mu);
    e->mem_reserved -= PCE_EXTRACT_BYTES;
    pthread_mutex_lock(&c->mu);
    s->state = st ? S_FAILED : S_UNKNOWN; /* the next synthesis opens and verifies it */
    if (!st && !s->have_digest) {         /* our own SHAPE pass made it: no second one to open it */
        memcpy(s->digest, info.r1cs_digest, 32);
        s->have_digest = true;
    }
    c->extracting = false;
    pthread_mutex_unlock(&c->mu);
    pthread_cond_broadcast(&e->cv_work); /* the reservation is back */
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

void cuzk_eng_pce_proved_locked(cuzk_engine *e, const char *circuit_id)
{
    eng_pce_cache *c = e->pce;
    if (!c || c->off || e->stopping || (!c->dir[0][0] && !c->dir[1][0])) return;
    pthread_mutex_lock(&c->mu);
    pce_slot *s = slot_locked(c, circuit_id);
    bool go = s && s->state == S_ABSENT && !c->extracting &&
              e->mem_reserved + e->srs_hot_bytes + PCE_EXTRACT_BYTES <= e->mem_limit;
    if (go && c->th_started) pthread_join(c->th, NULL); /* finished: extracting is false */
    if (go) c->th_started = false;
    if (go) { /* set before the thread reads them (it takes c->mu only at its end) */
        c->job = s;
        s->state = S_EXTRACTING;
        c->extracting = true;
        e->mem_reserved += PCE_EXTRACT_BYTES;
        c->th_started = !pthread_create(&c->th, NULL, extract_main, c);
        if (!c->th_started) {
            s->state = S_ABSENT;
            c->extracting = false;
            e->mem_reserved -= PCE_EXTRACT_BYTES;
        }
    }
    pthread_mutex_unlock(&c->mu);
}

/* The lean form (cuzk/pce_lean.h): A and B straight into the part's two
 * domain buffers, C left to the prover's fill_c; the PCE stays open until
 * cuzk_eng_pce_free, after every part is gone. */
static int lean_ab(cuzk_engine *e, part *pt, const cuzk_pce *p, cuzk_cs *cs, size_t m, char *err,
                   size_t err_len)
{
    cuzk_fr *a, *b;
    if (pt->bufs.ev[0] && pt->bufs.ev[1] && pt->bufs.ev_cap == m) { /* from the buffer pool: faulted in */
        a = pt->bufs.ev[0];
        b = pt->bufs.ev[1];
        pt->bufs.ev[0] = pt->bufs.ev[1] = NULL;
    } else {
        a = malloc(m * sizeof *a);
        b = malloc(m * sizeof *b);
    }
    int st = a && b ? cuzk_pce_evaluate_ab(p, cs, a, b, m, NULL, err, err_len)
                    : cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "out of memory for 2 x %zu evaluations", m);
    if (st) {
        free(a);
        free(b);
        return st;
    }
    pt->ev[0] = a;
    pt->ev[1] = b;
    pt->lean = (cuzk_pce_lean){.pce = p, .cs = cs, .par = cuzk_pool_par(e->pool)};
    return CUZK_OK;
}

/* The provider's circuit into a fresh cs, then what the prover needs at
 * the params' domain size m: with a PCE the lean form (two domain vectors
 * and the assignment per partition in flight); without, a PROVE-mode cs
 * whose evaluations are reserved at m up front, so that take_evals finds
 * them in place (no regrowth copies).  A PCE that fails to evaluate is
 * retired and the partition synthesized directly. */
int cuzk_eng_pce_synthesize(cuzk_engine *e, part *pt, const cuzk_engine_task *task, cuzk_cs **out, char *err,
                            size_t err_len)
{
    job *j = pt->j;
    size_t k = pt->k, m = cuzk_groth16_params_count(pt->srs->params, CUZK_G16_H) + 1;
    const cuzk_pce *p = cuzk_eng_pce_get(e, j->circuit_id);
    pt->lean = (cuzk_pce_lean){0};
    for (;;) {
        cuzk_cs *cs = NULL;
        int st = cuzk_cs_new(&cs, p ? CUZK_CS_WITNESS : CUZK_CS_PROVE, 0);
        if (st) cuzk_errf(err, err_len, st, "out of memory creating the constraint system");
        if (pt->bufs.ev_cap != m || !p) { /* another domain's vectors (or none wanted): not kept twice */
            for (int q = 0; q < 3; q++) {
                free(pt->bufs.ev[q]);
                pt->bufs.ev[q] = NULL;
            }
            pt->bufs.ev_cap = 0;
        }
        if (!st && p) { /* the lean form: the pooled set's aux, A and B (bufpool.c, sched.c) */
            cuzk_cs_buffers lend = {pt->bufs.aux, pt->bufs.aux_cap, {NULL, NULL, NULL}, 0};
            if ((st = cuzk_cs_give_buffers(cs, &lend))) cuzk_errf(err, err_len, st, "%s", cuzk_cs_error(cs));
            if (!lend.aux) pt->bufs.aux = NULL, pt->bufs.aux_cap = 0; /* the cs owns it now */
        }
        if (!st && !p && (st = cuzk_cs_reserve(cs, m, 0, 0)))
            cuzk_errf(err, err_len, st, "out of memory for 3 x %zu evaluations", m);
        if (!st && pt->synth_par && (st = cuzk_cs_set_par(cs, pt->synth_par, 0)))
            cuzk_errf(err, err_len, st, "%s", cuzk_cs_error(cs));
        if (!st) st = j->prov.synthesize(j->prov.ctx, cs, j->state, k, task, err, err_len);
        if (!st) st = cuzk_cs_finish(cs);
        if (!st && cuzk_cs_status(cs)) st = cuzk_cs_status(cs);
        if (st && !err[0] && cs) cuzk_errf(err, err_len, st, "%s", cuzk_cs_error(cs));
        if (!st && p && (st = lean_ab(e, pt, p, cs, m, err, err_len))) {
            cuzk_log(CUZK_LOG_WARN, j->id, "PCE of %s failed (%s): synthesizing directly", j->circuit_id,
                     err);
            cuzk_eng_pce_put(e, p, true);
            p = NULL;
            cuzk_cs_free(cs);
            err[0] = 0;
            continue;
        }
        cuzk_eng_pce_put(e, p, false);
        *out = cs;
        return st;
    }
}
