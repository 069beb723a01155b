/* The engine's pre-compiled constraint evaluators (cuzk/pce.h): one slot
 * per circuit id, the file `<param_cache>/<circuit id>.pce` (or the state
 * directory when param_cache is not writable), opened and verified on the
 * first synthesis that wants it, extracted by one background thread after
 * a circuit's first proof when it is missing, stale or corrupt.
 *
 * Synthesis asks eng_pce_get for a verified evaluator; NULL (switched off,
 * absent, being opened or extracted, or a circuit below the size where the
 * PCE pays: docs/pce.md) means direct PROVE-mode synthesis, so a PCE can
 * only ever make a proof faster, never block or fail it.  A slot that
 * failed to open or extract is not retried (its error is logged once).
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
    } else {
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "pce: unknown circuit id '%s' (porep-2k .. porep-64g, winning-*, wpost-*, snap-*)",
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
