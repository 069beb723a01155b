/* Partition buffer pool: the big per-partition vectors (the aux assignment,
 * the domain-sized A / B (/ C) evaluations: ~13 GB for a 32 GiB PoRep
 * partition) kept after a partition ends and lent to the next one, so that
 * synthesis writes into memory that is already faulted in instead of
 * first-touching fresh pages (docs/perf-notes.md "Partition buffers": a
 * 4 KiB first touch costs ~2.8 us on these VMs, 72 of the 80 cpu-s of a
 * 32 GiB partition).
 *
 * Accounting: an idle set's bytes stay in e->mem_reserved, so every budget
 * check sees them; a partition that takes a set takes over those bytes as
 * part of its own reservation.  Idle sets are the first thing given back
 * under memory pressure (cuzk_eng_srs_evict_idle_locked asks here before it
 * demotes any SRS) and are freed by the housekeeping thread after
 * memory.buffer_pool_idle (0 = no pool).  All under e->mu.  Freeing a set
 * (munmap of a few GB) takes ~0.1-0.5 s under the mutex; acceptable for a
 * path taken once per pressure event, not per proof. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

#define POOL_SETS 8

typedef struct {
    cuzk_cs_buffers b;
    uint64_t bytes, idle_since;
    char circuit[64]; /* whose partition left it: only that circuit's partitions take it */
} pool_set;

struct eng_bufpool {
    pool_set set[POOL_SETS];
    size_t n;
};

uint64_t cuzk_eng_pool_set_bytes(const cuzk_cs_buffers *b)
{
    uint64_t n = (uint64_t)b->aux_cap * sizeof(cuzk_fr);
    for (int k = 0; k < 3; k++)
        if (b->ev[k]) n += (uint64_t)b->ev_cap * sizeof(cuzk_fr);
    return n;
}

static void drop_locked(cuzk_engine *e, size_t i, const char *why)
{
    eng_bufpool *p = e->bufpool;
    pool_set *s = &p->set[i];
    cuzk_log(CUZK_LOG_DEBUG, NULL, "partition buffers (%llu MiB) freed: %s",
             (unsigned long long)(s->bytes >> 20), why);
    e->mem_reserved -= s->bytes;
    e->pool_idle_bytes -= s->bytes;
    cuzk_cs_buffers_free(&s->b);
    p->set[i] = p->set[--p->n];
}

/* The newest set a partition of `circuit` may take, or SIZE_MAX. */
static size_t newest_for(const eng_bufpool *p, const char *circuit)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; p && i < p->n; i++)
        if (!strcmp(p->set[i].circuit, circuit) &&
            (best == SIZE_MAX || p->set[i].idle_since > p->set[best].idle_since))
            best = i;
    return best;
}

void cuzk_eng_pool_take_locked(cuzk_engine *e, const char *circuit, cuzk_cs_buffers *out)
{
    memset(out, 0, sizeof *out);
    eng_bufpool *p = e->bufpool;
    if (!p) return;
    size_t best = newest_for(p, circuit);
    if (best == SIZE_MAX) {
        e->n_pool_misses++;
        return;
    }
    pool_set *s = &p->set[best];
    *out = s->b;
    e->mem_reserved -= s->bytes; /* now part of the partition's own reservation */
    e->pool_idle_bytes -= s->bytes;
    e->n_pool_hits++;
    p->set[best] = p->set[--p->n];
}

void cuzk_eng_pool_put_locked(cuzk_engine *e, const char *circuit, cuzk_cs_buffers *b)
{
    eng_bufpool *p = e->bufpool;
    uint64_t bytes = cuzk_eng_pool_set_bytes(b);
    bool keep =
        p && bytes && b->ev_cap && !e->stopping && e->mem_reserved + e->srs_hot_bytes + bytes <= e->mem_limit;
    if (keep && p->n == POOL_SETS) { /* full: the oldest goes */
        size_t old = 0;
        for (size_t i = 1; i < p->n; i++)
            if (p->set[i].idle_since < p->set[old].idle_since) old = i;
        drop_locked(e, old, "pool full");
    }
    if (!keep) {
        cuzk_cs_buffers_free(b);
        return;
    }
    pool_set *ns = &p->set[p->n++];
    *ns = (pool_set){*b, bytes, cuzk_eng_now_ms(), ""};
    snprintf(ns->circuit, sizeof ns->circuit, "%s", circuit);
    e->mem_reserved += bytes;
    e->pool_idle_bytes += bytes;
    memset(b, 0, sizeof *b);
}

uint64_t cuzk_eng_pool_newest_bytes_locked(const cuzk_engine *e, const char *circuit)
{
    size_t best = newest_for(e->bufpool, circuit);
    return best == SIZE_MAX ? 0 : e->bufpool->set[best].bytes;
}

bool cuzk_eng_pool_shrink_locked(cuzk_engine *e, uint64_t need)
{
    eng_bufpool *p = e->bufpool;
    while (p && p->n && e->mem_reserved + e->srs_hot_bytes + need > e->mem_limit) {
        size_t old = 0;
        for (size_t i = 1; i < p->n; i++)
            if (p->set[i].idle_since < p->set[old].idle_since) old = i;
        drop_locked(e, old, "memory needed");
    }
    return e->mem_reserved + e->srs_hot_bytes + need <= e->mem_limit;
}

void cuzk_eng_pool_reap_locked(cuzk_engine *e, uint64_t now)
{
    eng_bufpool *p = e->bufpool;
    for (size_t i = p ? p->n : 0; i-- > 0;)
        if (now - p->set[i].idle_since >= e->cfg.buffer_pool_idle_ms) drop_locked(e, i, "idle");
}

int cuzk_eng_pool_init(cuzk_engine *e)
{
    e->bufpool = NULL;
    if (!e->cfg.buffer_pool_idle_ms) return CUZK_OK; /* no pool */
    e->bufpool = calloc(1, sizeof *e->bufpool);
    return e->bufpool ? CUZK_OK : CUZK_ERR_NOMEM;
}

void cuzk_eng_pool_free(cuzk_engine *e)
{
    eng_bufpool *p = e->bufpool;
    while (p && p->n)
        drop_locked(e, p->n - 1, "engine destroyed");
    free(p);
    e->bufpool = NULL;
}
