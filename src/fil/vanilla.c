/* bincode (1.x default options: little endian, u64 lengths, u32 enum tags)
 * of FallbackPoStSectorProof (filecoin-proofs types, storage-proofs-post
 * fallback SectorProof, storage-proofs-core MerkleProof/InclusionPath).
 *
 * The parser runs twice over the input: pass 1 validates everything and
 * counts proofs, levels and hash bytes; one allocation is then made and
 * pass 2 fills it.  Every count is checked against a limit and against the
 * bytes that remain (each element has a known minimum encoded size) before
 * it is used, so garbage can neither crash the parser nor make it allocate
 * more than a small multiple of the input size.  The reading and the
 * MerkleProof encoding are fil/bincode.h's, shared with the SnapDeals
 * parser. */
#include <stdlib.h>
#include <string.h>

#include "fil/bincode.h"
#include "fil/fil_internal.h"

/* The parse state: a bincode reader plus the pass-2 arrays it fills. */
typedef struct {
    cuzk_fil_bc bc;
    cuzk_fil_vanilla_limits lim;
    size_t n_sectors, n_proofs;
    cuzk_fil_sector_proof *sec;
    cuzk_fil_merkle_proof *prf;
} rd;

/* SectorProof: inclusion_proofs, comm_c, comm_r_last. */
static int rd_sector(rd *r, cuzk_fil_sector_proof *sp)
{
    cuzk_fil_bc *b = &r->bc;
    uint64_t np;
    int st =
        cuzk_fil_bc_count(b, &np, CUZK_FIL_BC_ANY, r->lim.max_proofs, 4 + 64 + 8, ".inclusion_proofs.len");
    if (st) return st;
    if (sp) {
        sp->n_proofs = (size_t)np;
        sp->proofs = r->prf + r->n_proofs;
    }
    for (uint64_t i = 0; i < np; i++) {
        size_t f1 = cuzk_fil_bc_push(b, ".inclusion_proofs[%llu]", (unsigned long long)i);
        if ((st = cuzk_fil_bc_merkle(b, sp ? &sp->proofs[i] : NULL, NULL))) return st;
        cuzk_fil_bc_pop(b, f1);
    }
    r->n_proofs += np;
    if ((st = cuzk_fil_bc_elems(b, sp ? sp->comm_c : NULL, 1, ".comm_c")) ||
        (st = cuzk_fil_bc_elems(b, sp ? sp->comm_r_last : NULL, 1, ".comm_r_last")))
        return st;
    return CUZK_OK;
}

static int rd_all(rd *r, cuzk_fil_post_vanilla *v)
{
    cuzk_fil_bc *b = &r->bc;
    uint64_t ns, sid;
    int st;
    if ((st = cuzk_fil_bc_u64(b, &sid, "sector_id"))) return st;
    if ((st = cuzk_fil_bc_elems(b, v ? v->comm_r : NULL, 1, "comm_r"))) return st;
    if ((st = cuzk_fil_bc_count(b, &ns, CUZK_FIL_BC_ANY, r->lim.max_sectors, 8 + 64,
                                "vanilla_proof.sectors.len")))
        return st;
    if (v) {
        v->sector_id = sid;
        v->n_sectors = (size_t)ns;
        v->sectors = r->sec;
    }
    for (uint64_t s = 0; s < ns; s++) {
        size_t f0 = cuzk_fil_bc_push(b, "vanilla_proof.sectors[%llu]", (unsigned long long)s);
        if ((st = rd_sector(r, v ? &r->sec[s] : NULL))) return st;
        cuzk_fil_bc_pop(b, f0);
    }
    r->n_sectors = ns;
    return cuzk_fil_bc_end(b);
}

/* Pass 1 (v NULL) validates and counts; pass 2 fills v from mem. */
static void rd_start(rd *r, const uint8_t *buf, size_t len, const cuzk_fil_vanilla_limits *lim, char *err,
                     size_t err_len)
{
    memset(r, 0, sizeof *r);
    cuzk_fil_bc_init(&r->bc, "vanilla proof", buf, len, err, err_len);
    r->lim = *lim;
    r->bc.max_levels = lim->max_levels;
}

int cuzk_fil_vanilla_parse(cuzk_fil_post_vanilla *out, const uint8_t *buf, size_t len,
                           const cuzk_fil_vanilla_limits *limits, char *err, size_t err_len)
{
    if (!out || (!buf && len)) return CUZK_ERR_ARG;
    memset(out, 0, sizeof *out);
    cuzk_fil_vanilla_limits lim = limits ? *limits : (cuzk_fil_vanilla_limits){0};
    if (!lim.max_sectors) lim.max_sectors = 4096;
    if (!lim.max_proofs) lim.max_proofs = 4096;
    if (!lim.max_levels) lim.max_levels = 40;
    rd r;
    rd_start(&r, buf, len, &lim, err, err_len);
    int st = rd_all(&r, NULL);
    if (st) return st;
    size_t sz_sec = r.n_sectors * sizeof(cuzk_fil_sector_proof);
    size_t sz_prf = r.n_proofs * sizeof(cuzk_fil_merkle_proof);
    size_t sz_idx = r.bc.n_levels * sizeof(uint64_t);
    uint8_t *mem = malloc(sz_sec + sz_prf + sz_idx + r.bc.n_hash + 1);
    if (!mem) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "vanilla proof: out of memory");
    rd_start(&r, buf, len, &lim, err, err_len);
    r.sec = (cuzk_fil_sector_proof *)mem;
    r.prf = (cuzk_fil_merkle_proof *)(mem + sz_sec);
    r.bc.fill = true;
    r.bc.idx = (uint64_t *)(mem + sz_sec + sz_prf);
    r.bc.hash = mem + sz_sec + sz_prf + sz_idx;
    if ((st = rd_all(&r, out))) { /* cannot happen: pass 1 accepted the same bytes */
        free(mem);
        memset(out, 0, sizeof *out);
        return st;
    }
    out->mem = mem;
    return CUZK_OK;
}

void cuzk_fil_vanilla_free(cuzk_fil_post_vanilla *v)
{
    if (!v) return;
    free(v->mem);
    memset(v, 0, sizeof *v);
}

/* ---- writer --------------------------------------------------------------- */

size_t cuzk_fil_vanilla_size(const cuzk_fil_post_vanilla *v)
{
    size_t n = 8 + 32 + 8;
    for (size_t s = 0; s < v->n_sectors; s++) {
        const cuzk_fil_sector_proof *sp = &v->sectors[s];
        n += 8 + 64;
        for (size_t i = 0; i < sp->n_proofs; i++)
            n += cuzk_fil_bc_merkle_size(&sp->proofs[i]);
    }
    return n;
}

int cuzk_fil_vanilla_write(uint8_t *out, size_t cap, size_t *written, const cuzk_fil_post_vanilla *v)
{
    if (!out || !v) return CUZK_ERR_ARG;
    for (size_t s = 0; s < v->n_sectors; s++)
        for (size_t i = 0; i < v->sectors[s].n_proofs; i++)
            if (!cuzk_fil_bc_merkle_ok(&v->sectors[s].proofs[i])) return CUZK_ERR_ARG;
    if (cap < cuzk_fil_vanilla_size(v)) return CUZK_ERR_ARG;
    uint8_t *o = out;
    fil_put_le64(o, v->sector_id);
    memcpy(o + 8, v->comm_r, 32);
    fil_put_le64(o + 40, v->n_sectors);
    o += 48;
    for (size_t s = 0; s < v->n_sectors; s++) {
        const cuzk_fil_sector_proof *sp = &v->sectors[s];
        fil_put_le64(o, sp->n_proofs);
        o += 8;
        for (size_t i = 0; i < sp->n_proofs; i++)
            o = cuzk_fil_bc_put_merkle(o, &sp->proofs[i]);
        memcpy(o, sp->comm_c, 32);
        memcpy(o + 32, sp->comm_r_last, 32);
        o += 64;
    }
    if (written) *written = (size_t)(o - out);
    return CUZK_OK;
}
