/* bincode (1.x default options: little endian, u64 lengths, u32 enum tags)
 * of FallbackPoStSectorProof (filecoin-proofs types, storage-proofs-post
 * fallback SectorProof, storage-proofs-core MerkleProof/InclusionPath).
 *
 * The parser runs twice over the input: pass 1 validates everything and
 * counts proofs, levels and hash bytes; one allocation is then made and
 * pass 2 fills it.  Every count is checked against a limit and against the
 * bytes that remain (each element has a known minimum encoded size) before
 * it is used, so garbage can neither crash the parser nor make it allocate
 * more than a small multiple of the input size. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "fil/fil_internal.h"

typedef struct {
    const uint8_t *buf;
    size_t len, pos;
    char field[200];
    size_t flen;
    char *err;
    size_t err_len;
    cuzk_fil_vanilla_limits lim;
    bool fill; /* pass 2 */
    size_t n_sectors, n_proofs, n_levels, n_hash;
    cuzk_fil_sector_proof *sec;
    cuzk_fil_merkle_proof *prf;
    uint64_t *idx;
    uint8_t *hash;
} rd;

static size_t rd_push(rd *r, const char *fmt, unsigned long long i)
{
    size_t old = r->flen;
    int n = snprintf(r->field + old, sizeof r->field - old, fmt, i);
    if (n > 0) r->flen = old + (size_t)n < sizeof r->field ? old + (size_t)n : sizeof r->field - 1;
    return old;
}

static size_t rd_push_str(rd *r, const char *name)
{
    size_t old = r->flen;
    int n = snprintf(r->field + old, sizeof r->field - old, ".%s", name);
    if (n > 0) r->flen = old + (size_t)n < sizeof r->field ? old + (size_t)n : sizeof r->field - 1;
    return old;
}

static void rd_pop(rd *r, size_t old)
{
    r->flen = old;
    r->field[old] = 0;
}

static int rd_fail(rd *r, const char *what, size_t need)
{
    return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                     "vanilla proof truncated at byte %zu reading %s%s (need %zu bytes, %zu left)", r->pos,
                     r->field, what, need, r->len - r->pos);
}

static int rd_bytes(rd *r, uint8_t *out, size_t n, const char *what)
{
    if (r->len - r->pos < n) return rd_fail(r, what, n);
    if (out && r->fill) memcpy(out, r->buf + r->pos, n);
    r->pos += n;
    return CUZK_OK;
}

static int rd_u64(rd *r, uint64_t *v, const char *what)
{
    if (r->len - r->pos < 8) return rd_fail(r, what, 8);
    *v = fil_le64(r->buf + r->pos);
    r->pos += 8;
    return CUZK_OK;
}

/* A count n of elements of at least `min_size` bytes each. */
static int rd_count(rd *r, uint64_t *n, uint64_t max, size_t min_size, const char *what)
{
    size_t at = r->pos;
    int st = rd_u64(r, n, what);
    if (st) return st;
    if (*n > max)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "vanilla proof: %s%s = %llu at byte %zu exceeds the limit %llu", r->field, what,
                         (unsigned long long)*n, at, (unsigned long long)max);
    if (*n > (r->len - r->pos) / min_size)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "vanilla proof: %s%s = %llu at byte %zu is inconsistent with the %zu bytes left",
                         r->field, what, (unsigned long long)*n, at, r->len - r->pos);
    return CUZK_OK;
}

static int rd_path(rd *r, cuzk_fil_path *out, const char *name)
{
    size_t f0 = rd_push_str(r, name), f1;
    uint64_t levels, k0 = 0;
    int st = rd_count(r, &levels, r->lim.max_levels, 16, ".len");
    if (st) return st;
    uint64_t *idx = r->fill ? r->idx + r->n_levels : NULL;
    uint8_t *hash = r->fill ? r->hash + r->n_hash : NULL;
    for (uint64_t l = 0; l < levels; l++) {
        f1 = rd_push(r, "[%llu]", l);
        uint64_t k, at, index;
        at = r->pos;
        if ((st = rd_count(r, &k, CUZK_POSEIDON_MAX_ARITY - 1, 32, ".hashes.len"))) return st;
        if (l == 0 && (k == 0 || !cuzk_poseidon_arity_supported((size_t)k + 1)))
            return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                             "vanilla proof: %s.hashes.len = %llu at byte %zu: arity %llu is not supported",
                             r->field, (unsigned long long)k, at, (unsigned long long)k + 1);
        if (l == 0) k0 = k;
        if (k != k0)
            return cuzk_errf(
                r->err, r->err_len, CUZK_ERR_FORMAT,
                "vanilla proof: %s.hashes.len = %llu at byte %zu is inconsistent with level 0 (%llu)",
                r->field, (unsigned long long)k, at, (unsigned long long)k0);
        if ((st = rd_bytes(r, hash ? hash + l * k * 32 : NULL, (size_t)k * 32, ".hashes"))) return st;
        at = r->pos;
        if ((st = rd_u64(r, &index, ".index"))) return st;
        if (index > k)
            return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                             "vanilla proof: %s.index = %llu at byte %zu is >= arity %llu", r->field,
                             (unsigned long long)index, at, (unsigned long long)k + 1);
        if (idx) idx[l] = index;
        rd_pop(r, f1);
    }
    if (r->fill)
        *out = (cuzk_fil_path){.levels = (uint32_t)levels, .arity = levels ? (uint32_t)k0 + 1 : 0,
                               .hashes = hash, .index = idx};
    r->n_levels += levels;
    r->n_hash += levels * k0 * 32;
    rd_pop(r, f0);
    return CUZK_OK;
}

static int rd_merkle(rd *r, cuzk_fil_merkle_proof *p)
{
    size_t at = r->pos;
    if (r->len - r->pos < 4) return rd_fail(r, ".tag", 4);
    const uint8_t *b = r->buf + at;
    uint32_t tag = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->pos += 4;
    if (tag > CUZK_FIL_PROOF_TOP)
        return cuzk_errf(
            r->err, r->err_len, CUZK_ERR_FORMAT,
            "vanilla proof: %s has unknown MerkleProof tag %u at byte %zu (0 Single, 1 Sub, 2 Top)", r->field,
            tag, at);
    static const char *const names[3] = {"base_proof", "sub_proof", "top_proof"};
    int st;
    uint8_t *root = r->fill ? p->root : NULL, *leaf = r->fill ? p->leaf : NULL;
    if (r->fill) {
        memset(p, 0, sizeof *p);
        p->kind = tag;
    }
    if (tag == CUZK_FIL_PROOF_SINGLE) {
        if ((st = rd_bytes(r, root, 32, ".root")) || (st = rd_bytes(r, leaf, 32, ".leaf")) ||
            (st = rd_path(r, p ? &p->path[0] : NULL, "path")))
            return st;
        return CUZK_OK;
    }
    for (uint32_t k = 0; k <= tag; k++)
        if ((st = rd_path(r, p ? &p->path[k] : NULL, names[k]))) return st;
    if ((st = rd_bytes(r, root, 32, ".root")) || (st = rd_bytes(r, leaf, 32, ".leaf"))) return st;
    return CUZK_OK;
}

static int rd_all(rd *r, cuzk_fil_post_vanilla *v)
{
    uint64_t ns, np, sid;
    int st;
    r->flen = 0;
    r->field[0] = 0;
    if ((st = rd_u64(r, &sid, "sector_id"))) return st;
    if ((st = rd_bytes(r, r->fill ? v->comm_r : NULL, 32, "comm_r"))) return st;
    if ((st = rd_count(r, &ns, r->lim.max_sectors, 8 + 64, "vanilla_proof.sectors.len"))) return st;
    if (r->fill) {
        v->sector_id = sid;
        v->n_sectors = (size_t)ns;
        v->sectors = r->sec;
    }
    for (uint64_t s = 0; s < ns; s++) {
        size_t f0 = rd_push(r, "vanilla_proof.sectors[%llu]", s);
        if ((st = rd_count(r, &np, r->lim.max_proofs, 4 + 64 + 8, ".inclusion_proofs.len"))) return st;
        cuzk_fil_sector_proof *sp = r->fill ? &r->sec[s] : NULL;
        if (sp) {
            sp->n_proofs = (size_t)np;
            sp->proofs = r->prf + r->n_proofs;
        }
        for (uint64_t i = 0; i < np; i++) {
            size_t f1 = rd_push(r, ".inclusion_proofs[%llu]", i);
            if ((st = rd_merkle(r, sp ? &sp->proofs[i] : NULL))) return st;
            rd_pop(r, f1);
        }
        r->n_proofs += np;
        if ((st = rd_bytes(r, sp ? sp->comm_c : NULL, 32, ".comm_c")) ||
            (st = rd_bytes(r, sp ? sp->comm_r_last : NULL, 32, ".comm_r_last")))
            return st;
        rd_pop(r, f0);
    }
    r->n_sectors = ns;
    if (r->pos != r->len)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "vanilla proof: %zu trailing bytes after the proof (ends at byte %zu of %zu)",
                         r->len - r->pos, r->pos, r->len);
    return CUZK_OK;
}

int cuzk_fil_vanilla_parse(cuzk_fil_post_vanilla *out, const uint8_t *buf, size_t len,
                           const cuzk_fil_vanilla_limits *limits, char *err, size_t err_len)
{
    if (!out || (!buf && len)) return CUZK_ERR_ARG;
    memset(out, 0, sizeof *out);
    rd r = {.buf = buf, .len = len, .err = err, .err_len = err_len};
    r.lim = limits ? *limits : (cuzk_fil_vanilla_limits){0};
    if (!r.lim.max_sectors) r.lim.max_sectors = 4096;
    if (!r.lim.max_proofs) r.lim.max_proofs = 4096;
    if (!r.lim.max_levels) r.lim.max_levels = 40;
    int st = rd_all(&r, NULL);
    if (st) return st;
    size_t sz_sec = r.n_sectors * sizeof(cuzk_fil_sector_proof);
    size_t sz_prf = r.n_proofs * sizeof(cuzk_fil_merkle_proof);
    size_t sz_idx = r.n_levels * sizeof(uint64_t);
    uint8_t *mem = malloc(sz_sec + sz_prf + sz_idx + r.n_hash + 1);
    if (!mem) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "vanilla proof: out of memory");
    rd w = {.buf = buf, .len = len, .err = err, .err_len = err_len, .lim = r.lim, .fill = true,
            .sec = (cuzk_fil_sector_proof *)mem, .prf = (cuzk_fil_merkle_proof *)(mem + sz_sec),
            .idx = (uint64_t *)(mem + sz_sec + sz_prf), .hash = mem + sz_sec + sz_prf + sz_idx};
    if ((st = rd_all(&w, out))) { /* cannot happen: pass 1 accepted the same bytes */
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

static size_t path_size(const cuzk_fil_path *p)
{
    size_t a = p->levels ? p->arity - 1 : 0;
    return 8 + (size_t)p->levels * (16 + 32 * a);
}

size_t cuzk_fil_vanilla_size(const cuzk_fil_post_vanilla *v)
{
    size_t n = 8 + 32 + 8;
    for (size_t s = 0; s < v->n_sectors; s++) {
        const cuzk_fil_sector_proof *sp = &v->sectors[s];
        n += 8 + 64;
        for (size_t i = 0; i < sp->n_proofs; i++) {
            const cuzk_fil_merkle_proof *p = &sp->proofs[i];
            n += 4 + 64;
            for (uint32_t k = 0; k <= p->kind && k < 3; k++) n += path_size(&p->path[k]);
        }
    }
    return n;
}

static uint8_t *wr_path(uint8_t *o, const cuzk_fil_path *p)
{
    size_t a = p->levels ? p->arity - 1 : 0;
    fil_put_le64(o, p->levels);
    o += 8;
    for (uint32_t l = 0; l < p->levels; l++) {
        fil_put_le64(o, a);
        memcpy(o + 8, p->hashes + l * a * 32, a * 32);
        o += 8 + a * 32;
        fil_put_le64(o, p->index[l]);
        o += 8;
    }
    return o;
}

int cuzk_fil_vanilla_write(uint8_t *out, size_t cap, size_t *written, const cuzk_fil_post_vanilla *v)
{
    if (!out || !v) return CUZK_ERR_ARG;
    for (size_t s = 0; s < v->n_sectors; s++)
        for (size_t i = 0; i < v->sectors[s].n_proofs; i++)
        {
            const cuzk_fil_merkle_proof *p = &v->sectors[s].proofs[i];
            if (p->kind > CUZK_FIL_PROOF_TOP) return CUZK_ERR_ARG;
            for (uint32_t k = 0; k <= p->kind; k++)
                if (p->path[k].levels && (p->path[k].arity < 2 || !p->path[k].hashes || !p->path[k].index))
                    return CUZK_ERR_ARG;
        }
    size_t n = cuzk_fil_vanilla_size(v);
    if (cap < n) return CUZK_ERR_ARG;
    uint8_t *o = out;
    fil_put_le64(o, v->sector_id);
    memcpy(o + 8, v->comm_r, 32);
    fil_put_le64(o + 40, v->n_sectors);
    o += 48;
    for (size_t s = 0; s < v->n_sectors; s++) {
        const cuzk_fil_sector_proof *sp = &v->sectors[s];
        fil_put_le64(o, sp->n_proofs);
        o += 8;
        for (size_t i = 0; i < sp->n_proofs; i++) {
            const cuzk_fil_merkle_proof *p = &sp->proofs[i];
            for (int b = 0; b < 4; b++) o[b] = (uint8_t)(p->kind >> (8 * b));
            o += 4;
            if (p->kind == CUZK_FIL_PROOF_SINGLE) {
                memcpy(o, p->root, 32);
                memcpy(o + 32, p->leaf, 32);
                o = wr_path(o + 64, &p->path[0]);
            } else {
                for (uint32_t k = 0; k <= p->kind; k++) o = wr_path(o, &p->path[k]);
                memcpy(o, p->root, 32);
                memcpy(o + 32, p->leaf, 32);
                o += 64;
            }
        }
        memcpy(o, sp->comm_c, 32);
        memcpy(o + 32, sp->comm_r_last, 32);
        o += 64;
    }
    if (written) *written = (size_t)(o - out);
    return CUZK_OK;
}
