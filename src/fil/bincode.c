/* The bincode reader and writer shared by the PoSt and SnapDeals vanilla
 * proof parsers (see fil/bincode.h): one place that bounds-checks reads,
 * checks length prefixes before anything is allocated for them, and words
 * the errors (subject, field path, byte offset), and one encoding of
 * storage-proofs-core's MerkleProof / InclusionPath for both formats. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "fil/bincode.h"
#include "fil/field_path.h"
#include "fil/fil_internal.h"

void cuzk_fil_bc_init(cuzk_fil_bc *r, const char *subject, const uint8_t *buf, size_t len, char *err,
                      size_t err_len)
{
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->len = len;
    r->subject = subject;
    r->err = err;
    r->err_len = err_len;
}

size_t cuzk_fil_bc_push(cuzk_fil_bc *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t mark = cuzk_fil_field_vpush(r->field, sizeof r->field, &r->flen, fmt, ap);
    va_end(ap);
    return mark;
}

void cuzk_fil_bc_pop(cuzk_fil_bc *r, size_t mark)
{
    cuzk_fil_field_pop(r->field, &r->flen, mark);
}

int cuzk_fil_bc_fail(const cuzk_fil_bc *r, int status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cuzk_errf(r->err, r->err_len, status, "%s: %s", r->subject, msg);
}

static int bc_truncated(const cuzk_fil_bc *r, const char *name, size_t need)
{
    return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                     "%s truncated at byte %zu reading %s%s (need %zu bytes, %zu left)", r->subject, r->pos,
                     r->field, name, need, r->len - r->pos);
}

int cuzk_fil_bc_u32(cuzk_fil_bc *r, uint32_t *v, const char *name)
{
    if (r->len - r->pos < 4) return bc_truncated(r, name, 4);
    const uint8_t *b = r->buf + r->pos;
    *v = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->pos += 4;
    return CUZK_OK;
}

int cuzk_fil_bc_u64(cuzk_fil_bc *r, uint64_t *v, const char *name)
{
    if (r->len - r->pos < 8) return bc_truncated(r, name, 8);
    *v = fil_le64(r->buf + r->pos);
    r->pos += 8;
    return CUZK_OK;
}

int cuzk_fil_bc_elems(cuzk_fil_bc *r, uint8_t *out, size_t n, const char *name)
{
    if ((r->len - r->pos) / 32 < n) return bc_truncated(r, name, 32 * n);
    for (size_t i = 0; r->canonical && i < n; i++) {
        if (cuzk_fil_domain_valid(r->buf + r->pos + 32 * i)) continue;
        char idx[32] = "";
        if (n > 1) snprintf(idx, sizeof idx, "[%zu]", i);
        return cuzk_fil_bc_fail(r, CUZK_ERR_ENC_NONCANONICAL,
                                "%s%s%s at byte %zu is not a canonical field element (>= r)", r->field, name,
                                idx, r->pos + 32 * i);
    }
    if (out) memcpy(out, r->buf + r->pos, 32 * n);
    r->pos += 32 * n;
    return CUZK_OK;
}

int cuzk_fil_bc_count(cuzk_fil_bc *r, uint64_t *n, uint64_t want, uint64_t max, size_t min_size,
                      const char *name)
{
    size_t at = r->pos;
    int st = cuzk_fil_bc_u64(r, n, name);
    if (st) return st;
    unsigned long long v = (unsigned long long)*n;
    if (want != CUZK_FIL_BC_ANY && *n != want)
        return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT, "%s%s = %llu at byte %zu, expected %llu", r->field, name,
                                v, at, (unsigned long long)want);
    if (*n > max)
        return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT, "%s%s = %llu at byte %zu exceeds the limit %llu",
                                r->field, name, v, at, (unsigned long long)max);
    if (*n > (r->len - r->pos) / min_size)
        return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT,
                                "%s%s = %llu at byte %zu is inconsistent with the %zu bytes left", r->field,
                                name, v, at, r->len - r->pos);
    return CUZK_OK;
}

int cuzk_fil_bc_end(const cuzk_fil_bc *r)
{
    if (r->pos == r->len) return CUZK_OK;
    return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT,
                            "%zu trailing bytes after the proof (ends at byte %zu of %zu)", r->len - r->pos,
                            r->pos, r->len);
}

/* Level l of a path: hashes.len (level 0 fixes the arity, k0), the hashes,
 * the index.  hash / idx: the path's arrays in pass 2, else NULL. */
static int bc_level(cuzk_fil_bc *r, uint64_t l, uint64_t *k0, uint32_t want_arity, uint8_t *hash,
                    uint64_t *idx)
{
    uint64_t k, index, want = l || want_arity == CUZK_FIL_BC_ANY32 ? CUZK_FIL_BC_ANY : want_arity - 1;
    size_t at = r->pos;
    int st = cuzk_fil_bc_count(r, &k, want, CUZK_POSEIDON_MAX_ARITY - 1, 32, ".hashes.len");
    if (st) return st;
    if (l == 0 && !cuzk_poseidon_arity_supported((size_t)k + 1))
        return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT,
                                "%s.hashes.len = %llu at byte %zu: arity %llu is not supported", r->field,
                                (unsigned long long)k, at, (unsigned long long)k + 1);
    if (l == 0) *k0 = k;
    if (k != *k0)
        return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT,
                                "%s.hashes.len = %llu at byte %zu is inconsistent with level 0 (%llu)",
                                r->field, (unsigned long long)k, at, (unsigned long long)*k0);
    if ((st = cuzk_fil_bc_elems(r, hash ? hash + l * k * 32 : NULL, (size_t)k, ".hashes"))) return st;
    at = r->pos;
    if ((st = cuzk_fil_bc_u64(r, &index, ".index"))) return st;
    if (index > k)
        return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT, "%s.index = %llu at byte %zu is >= arity %llu", r->field,
                                (unsigned long long)index, at, (unsigned long long)k + 1);
    if (idx) idx[l] = index;
    return CUZK_OK;
}

/* One InclusionPath under the field name `name` (".path", ".base_proof");
 * want_levels / want_arity: CUZK_FIL_BC_ANY32 = any. */
static int bc_path(cuzk_fil_bc *r, cuzk_fil_path *out, const char *name, uint32_t want_levels,
                   uint32_t want_arity)
{
    size_t f0 = cuzk_fil_bc_push(r, "%s", name);
    uint64_t levels, k0 = 0;
    int st = cuzk_fil_bc_count(r, &levels, want_levels == CUZK_FIL_BC_ANY32 ? CUZK_FIL_BC_ANY : want_levels,
                               r->max_levels, 16, ".len");
    if (st) return st;
    uint64_t *idx = r->fill ? r->idx + r->n_levels : NULL;
    uint8_t *hash = r->fill ? r->hash + r->n_hash : NULL;
    for (uint64_t l = 0; l < levels; l++) {
        size_t f1 = cuzk_fil_bc_push(r, "[%llu]", (unsigned long long)l);
        if ((st = bc_level(r, l, &k0, want_arity, hash, idx))) return st;
        cuzk_fil_bc_pop(r, f1);
    }
    if (r->fill)
        *out = (cuzk_fil_path){
            .levels = (uint32_t)levels, .arity = levels ? (uint32_t)k0 + 1 : 0, .hashes = hash, .index = idx};
    r->n_levels += levels;
    r->n_hash += levels * k0 * 32;
    cuzk_fil_bc_pop(r, f0);
    return CUZK_OK;
}

static const char *const bc_kinds[3] = {"Single", "Sub", "Top"};

/* The u32 enum tag of a MerkleProof, checked against want. */
static int bc_tag(cuzk_fil_bc *r, uint32_t *tag, const cuzk_fil_bc_shape *want)
{
    size_t at = r->pos;
    int st = cuzk_fil_bc_u32(r, tag, ".tag");
    if (st) return st;
    if (*tag > CUZK_FIL_PROOF_TOP)
        return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT,
                                "%s has unknown MerkleProof tag %u at byte %zu (0 Single, 1 Sub, 2 Top)",
                                r->field, *tag, at);
    if (want && want->kind != CUZK_FIL_BC_ANY32 && *tag != want->kind)
        return cuzk_fil_bc_fail(r, CUZK_ERR_FORMAT, "%s is a %s MerkleProof (tag %u at byte %zu), %s %s",
                                r->field, bc_kinds[*tag], *tag, at, want->rule, bc_kinds[want->kind]);
    return CUZK_OK;
}

int cuzk_fil_bc_merkle(cuzk_fil_bc *r, cuzk_fil_merkle_proof *p, const cuzk_fil_bc_shape *want)
{
    static const char *const names[3] = {".base_proof", ".sub_proof", ".top_proof"};
    uint32_t tag;
    int st = bc_tag(r, &tag, want);
    if (st) return st;
    uint8_t *root = r->fill ? p->root : NULL, *leaf = r->fill ? p->leaf : NULL;
    if (r->fill) {
        memset(p, 0, sizeof *p);
        p->kind = tag;
    }
    bool single = tag == CUZK_FIL_PROOF_SINGLE;
    if (single &&
        ((st = cuzk_fil_bc_elems(r, root, 1, ".root")) || (st = cuzk_fil_bc_elems(r, leaf, 1, ".leaf"))))
        return st;
    for (uint32_t k = 0; k <= tag; k++) {
        uint32_t lv = want ? want->levels[k] : CUZK_FIL_BC_ANY32,
                 ar = want ? want->arity[k] : CUZK_FIL_BC_ANY32;
        if ((st = bc_path(r, p ? &p->path[k] : NULL, single ? ".path" : names[k], lv, ar))) return st;
    }
    if (!single &&
        ((st = cuzk_fil_bc_elems(r, root, 1, ".root")) || (st = cuzk_fil_bc_elems(r, leaf, 1, ".leaf"))))
        return st;
    return CUZK_OK;
}

/* ---- writer ------------------------------------------------------------------ */

void cuzk_fil_bc_put_u64(uint8_t *p, uint64_t v)
{
    fil_put_le64(p, v);
}

bool cuzk_fil_bc_merkle_ok(const cuzk_fil_merkle_proof *p)
{
    if (p->kind > CUZK_FIL_PROOF_TOP) return false;
    for (uint32_t k = 0; k <= p->kind; k++)
        if (p->path[k].levels && (p->path[k].arity < 2 || !p->path[k].hashes || !p->path[k].index))
            return false;
    return true;
}

static size_t bc_path_size(const cuzk_fil_path *p)
{
    size_t a = p->levels ? p->arity - 1 : 0;
    return 8 + (size_t)p->levels * (16 + 32 * a);
}

size_t cuzk_fil_bc_merkle_size(const cuzk_fil_merkle_proof *p)
{
    size_t n = 4 + 64;
    for (uint32_t k = 0; k <= p->kind && k < 3; k++)
        n += bc_path_size(&p->path[k]);
    return n;
}

static uint8_t *bc_put_path(uint8_t *o, const cuzk_fil_path *p)
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

uint8_t *cuzk_fil_bc_put_merkle(uint8_t *o, const cuzk_fil_merkle_proof *p)
{
    for (int b = 0; b < 4; b++)
        o[b] = (uint8_t)(p->kind >> (8 * b));
    o += 4;
    if (p->kind == CUZK_FIL_PROOF_SINGLE) {
        memcpy(o, p->root, 32);
        memcpy(o + 32, p->leaf, 32);
        return bc_put_path(o + 64, &p->path[0]);
    }
    for (uint32_t k = 0; k <= p->kind; k++)
        o = bc_put_path(o, &p->path[k]);
    memcpy(o, p->root, 32);
    memcpy(o + 32, p->leaf, 32);
    return o + 64;
}
