/* bincode (1.x default: little endian, u64 lengths, u32 enum tags) of
 * storage-proofs-update's PartitionProof: comm_c, apex_leafs,
 * challenge_proofs {proof_r_old, proof_d_new, proof_r_new}, with the
 * MerkleProof / InclusionPath encoding of wire-contract.md.
 *
 * Like the PoSt parser (src/fil/vanilla.c) it runs twice over the input:
 * pass 1 validates everything (counts against limits and against the bytes
 * left, shapes, canonical elements) and counts levels and hash bytes; one
 * block is then allocated and pass 2 fills it.  Garbage can neither crash
 * the parser nor make it allocate more than a small multiple of its size.
 * The field path in messages is kept in a small stack of names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"

#define SNAP_MAX_COUNT 4096 /* without a shape */
#define SNAP_MAX_LEVELS 64

typedef struct {
    const uint8_t *buf;
    size_t len, pos;
    char field[160];
    size_t flen;
    char *err;
    size_t err_len;
    const cuzk_snap_shape *s;
    bool fill;
    size_t n_levels, n_hash, n_apex, n_ch;
    cuzk_snap_challenge_proof *ch;
    uint64_t *idx;
    uint8_t *hash, *apex;
} sp_rd;

static uint64_t sp_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void sp_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static size_t sp_push(sp_rd *r, const char *fmt, unsigned long long i)
{
    size_t old = r->flen;
    int n = snprintf(r->field + old, sizeof r->field - old, fmt, i);
    if (n > 0) r->flen = old + (size_t)n < sizeof r->field ? old + (size_t)n : sizeof r->field - 1;
    return old;
}

static size_t sp_push_str(sp_rd *r, const char *name)
{
    size_t old = r->flen;
    int n = snprintf(r->field + old, sizeof r->field - old, "%s", name);
    if (n > 0) r->flen = old + (size_t)n < sizeof r->field ? old + (size_t)n : sizeof r->field - 1;
    return old;
}

static void sp_pop(sp_rd *r, size_t old)
{
    r->flen = old;
    r->field[old] = 0;
}

static int sp_trunc(sp_rd *r, const char *what, size_t need)
{
    return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                     "snap proof truncated at byte %zu reading %s%s (need %zu bytes, %zu left)", r->pos,
                     r->field, what, need, r->len - r->pos);
}

static int sp_u64(sp_rd *r, uint64_t *v, const char *what)
{
    if (r->len - r->pos < 8) return sp_trunc(r, what, 8);
    *v = sp_le64(r->buf + r->pos);
    r->pos += 8;
    return CUZK_OK;
}

/* n elements of 32 bytes, each a canonical Fr. */
static int sp_elems(sp_rd *r, uint8_t *out, size_t n, const char *what)
{
    if ((r->len - r->pos) / 32 < n) return sp_trunc(r, what, 32 * n);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = r->buf + r->pos + 32 * i;
        if (!cuzk_fil_domain_valid(e)) {
            char idx[32] = "";
            if (n > 1) snprintf(idx, sizeof idx, "[%zu]", i);
            return cuzk_errf(r->err, r->err_len, CUZK_ERR_ENC_NONCANONICAL,
                             "snap proof: %s%s%s at byte %zu is not a canonical field element (>= r)",
                             r->field, what, idx, r->pos + 32 * i);
        }
    }
    if (out && r->fill) memcpy(out, r->buf + r->pos, 32 * n);
    r->pos += 32 * n;
    return CUZK_OK;
}

/* A count that must equal `want` (when want != UINT64_MAX), be at most max
 * and fit in the bytes left at min_size bytes per element. */
static int sp_count(sp_rd *r, uint64_t *n, uint64_t want, uint64_t max, size_t min_size, const char *what)
{
    size_t at = r->pos;
    int st = sp_u64(r, n, what);
    if (st) return st;
    if (want != UINT64_MAX && *n != want)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "snap proof: %s%s = %llu at byte %zu, expected %llu", r->field, what,
                         (unsigned long long)*n, at, (unsigned long long)want);
    if (*n > max)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "snap proof: %s%s = %llu at byte %zu exceeds the limit %llu", r->field, what,
                         (unsigned long long)*n, at, (unsigned long long)max);
    if (*n > (r->len - r->pos) / min_size)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "snap proof: %s%s = %llu at byte %zu is inconsistent with the %zu bytes left",
                         r->field, what, (unsigned long long)*n, at, r->len - r->pos);
    return CUZK_OK;
}

/* One InclusionPath; want_levels / want_arity: UINT32_MAX = any. */
static int sp_path(sp_rd *r, cuzk_fil_path *out, const char *name, uint32_t want_levels, uint32_t want_arity)
{
    size_t f0 = sp_push_str(r, name), f1;
    uint64_t levels, k0 = 0;
    int st = sp_count(r, &levels, want_levels == UINT32_MAX ? UINT64_MAX : want_levels, SNAP_MAX_LEVELS, 16,
                      ".len");
    if (st) return st;
    uint64_t *idx = r->fill ? r->idx + r->n_levels : NULL;
    uint8_t *hash = r->fill ? r->hash + r->n_hash : NULL;
    for (uint64_t l = 0; l < levels; l++) {
        f1 = sp_push(r, "[%llu]", l);
        uint64_t k, index, at = r->pos;
        uint64_t want_k = l ? k0 : want_arity == UINT32_MAX ? UINT64_MAX : want_arity - 1;
        if ((st = sp_count(r, &k, want_k, CUZK_POSEIDON_MAX_ARITY - 1, 32, ".hashes.len"))) return st;
        if (l == 0 && !cuzk_poseidon_arity_supported((size_t)k + 1))
            return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                             "snap proof: %s.hashes.len = %llu at byte %llu: arity %llu is not supported",
                             r->field, (unsigned long long)k, (unsigned long long)at,
                             (unsigned long long)k + 1);
        if (l == 0) k0 = k;
        if ((st = sp_elems(r, hash ? hash + l * k * 32 : NULL, (size_t)k, ".hashes"))) return st;
        at = r->pos;
        if ((st = sp_u64(r, &index, ".index"))) return st;
        if (index > k)
            return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                             "snap proof: %s.index = %llu at byte %llu is >= arity %llu", r->field,
                             (unsigned long long)index, (unsigned long long)at, (unsigned long long)k + 1);
        if (idx) idx[l] = index;
        sp_pop(r, f1);
    }
    if (r->fill)
        *out = (cuzk_fil_path){
            .levels = (uint32_t)levels, .arity = levels ? (uint32_t)k0 + 1 : 0, .hashes = hash, .index = idx};
    r->n_levels += levels;
    r->n_hash += levels * k0 * 32;
    sp_pop(r, f0);
    return CUZK_OK;
}

/* Expected path shape of tree R (d == false) or tree D (d == true). */
static void sp_want(const sp_rd *r, bool d, uint32_t *kind, uint32_t lv[3], uint32_t ar[3])
{
    const cuzk_snap_shape *s = r->s;
    for (int i = 0; i < 3; i++)
        lv[i] = ar[i] = UINT32_MAX;
    *kind = UINT32_MAX;
    if (!s) return;
    if (d) {
        *kind = CUZK_FIL_PROOF_SINGLE;
        lv[0] = s->challenge_bits;
        ar[0] = 2;
        return;
    }
    *kind = s->tree_top_arity   ? CUZK_FIL_PROOF_TOP
            : s->tree_sub_arity ? CUZK_FIL_PROOF_SUB
                                : CUZK_FIL_PROOF_SINGLE;
    lv[0] = s->tree_base_levels;
    ar[0] = s->tree_base_arity;
    lv[1] = lv[2] = 1;
    ar[1] = s->tree_sub_arity;
    ar[2] = s->tree_top_arity;
}

static int sp_merkle(sp_rd *r, cuzk_fil_merkle_proof *p, const char *name, bool tree_d)
{
    size_t f0 = sp_push_str(r, name), at = r->pos;
    uint32_t want_kind, lv[3], ar[3];
    sp_want(r, tree_d, &want_kind, lv, ar);
    if (r->len - r->pos < 4) return sp_trunc(r, ".tag", 4);
    const uint8_t *b = r->buf + at;
    uint32_t tag = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->pos += 4;
    if (tag > CUZK_FIL_PROOF_TOP)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "snap proof: %s has unknown MerkleProof tag %u at byte %zu (0 Single, 1 Sub, 2 Top)",
                         r->field, tag, at);
    static const char *const kinds[3] = {"Single", "Sub", "Top"};
    if (want_kind != UINT32_MAX && tag != want_kind)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "snap proof: %s is a %s MerkleProof (tag %u at byte %zu), this sector size needs %s",
                         r->field, kinds[tag], tag, at, kinds[want_kind]);
    if (tree_d && tag != CUZK_FIL_PROOF_SINGLE)
        return cuzk_errf(r->err, r->err_len, CUZK_ERR_FORMAT,
                         "snap proof: %s is a %s MerkleProof (tag %u at byte %zu), tree D proofs are Single",
                         r->field, kinds[tag], tag, at);
    static const char *const names[3] = {".base_proof", ".sub_proof", ".top_proof"};
    uint8_t *root = r->fill ? p->root : NULL, *leaf = r->fill ? p->leaf : NULL;
    if (r->fill) {
        memset(p, 0, sizeof *p);
        p->kind = tag;
    }
    int st;
    if (tag == CUZK_FIL_PROOF_SINGLE) {
        if ((st = sp_elems(r, root, 1, ".root")) || (st = sp_elems(r, leaf, 1, ".leaf")) ||
            (st = sp_path(r, p ? &p->path[0] : NULL, ".path", lv[0], tree_d ? 2 : ar[0])))
            return st;
    } else {
        for (uint32_t k = 0; k <= tag; k++)
            if ((st = sp_path(r, p ? &p->path[k] : NULL, names[k], lv[k], ar[k]))) return st;
        if ((st = sp_elems(r, root, 1, ".root")) || (st = sp_elems(r, leaf, 1, ".leaf"))) return st;
    }
    sp_pop(r, f0);
    return CUZK_OK;
}

static int sp_all(sp_rd *r, cuzk_snap_partition_proof *p)
{
    const cuzk_snap_shape *s = r->s;
    uint64_t na, nc;
    int st;
    r->flen = 0;
    r->field[0] = 0;
    if ((st = sp_elems(r, r->fill ? p->comm_c : NULL, 1, "comm_c"))) return st;
    if ((st = sp_count(r, &na, s ? s->apex_leaves : UINT64_MAX, SNAP_MAX_COUNT, 32, "apex_leafs.len")))
        return st;
    if ((st = sp_elems(r, r->apex, (size_t)na, "apex_leafs"))) return st;
    if ((st = sp_count(r, &nc, s ? s->challenges : UINT64_MAX, SNAP_MAX_COUNT, 3 * (4 + 64 + 8),
                       "challenge_proofs.len")))
        return st;
    r->n_apex = (size_t)na;
    r->n_ch = (size_t)nc;
    if (r->fill) {
        p->n_apex = (uint32_t)na;
        p->apex_leafs = r->apex;
        p->n_challenges = (uint32_t)nc;
        p->challenges = r->ch;
    }
    for (uint64_t i = 0; i < nc; i++) {
        size_t f = sp_push(r, "challenge_proofs[%llu]", i);
        cuzk_snap_challenge_proof *c = r->fill ? &r->ch[i] : NULL;
        if ((st = sp_merkle(r, c ? &c->r_old : NULL, ".proof_r_old", false)) ||
            (st = sp_merkle(r, c ? &c->d_new : NULL, ".proof_d_new", true)) ||
            (st = sp_merkle(r, c ? &c->r_new : NULL, ".proof_r_new", false)))
            return st;
        sp_pop(r, f);
    }
    return CUZK_OK;
}

int cuzk_snap_partition_parse_prefix(cuzk_snap_partition_proof **out, size_t *used, const uint8_t *buf,
                                     size_t len, const cuzk_snap_shape *s, char *err, size_t err_len)
{
    if (!out || (!buf && len)) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap proof: NULL argument");
    *out = NULL;
    sp_rd r = {.buf = buf, .len = len, .err = err, .err_len = err_len, .s = s};
    int st = sp_all(&r, NULL);
    if (st) return st;
    size_t nc = r.n_ch, na = r.n_apex;
    size_t sz_p = sizeof(cuzk_snap_partition_proof), sz_c = nc * sizeof(cuzk_snap_challenge_proof);
    size_t sz_i = r.n_levels * sizeof(uint64_t);
    uint8_t *mem = malloc(sz_p + sz_c + sz_i + 32 * na + r.n_hash + 1);
    if (!mem) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "snap proof: out of memory");
    cuzk_snap_partition_proof *p = (cuzk_snap_partition_proof *)mem;
    memset(p, 0, sizeof *p);
    sp_rd w = {.buf = buf,
               .len = len,
               .err = err,
               .err_len = err_len,
               .s = s,
               .fill = true,
               .ch = (cuzk_snap_challenge_proof *)(mem + sz_p),
               .idx = (uint64_t *)(mem + sz_p + sz_c),
               .apex = mem + sz_p + sz_c + sz_i,
               .hash = mem + sz_p + sz_c + sz_i + 32 * na};
    if ((st = sp_all(&w, p))) { /* cannot happen: pass 1 accepted the same bytes */
        free(mem);
        return st;
    }
    p->mem = mem;
    if (used) *used = w.pos;
    *out = p;
    return CUZK_OK;
}

int cuzk_snap_partition_parse(cuzk_snap_partition_proof **out, const uint8_t *buf, size_t len,
                              const cuzk_snap_shape *s, char *err, size_t err_len)
{
    size_t used = 0;
    int st = cuzk_snap_partition_parse_prefix(out, &used, buf, len, s, err, err_len);
    if (st || used == len) return st;
    cuzk_snap_partition_free(*out);
    *out = NULL;
    return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                     "snap proof: %zu trailing bytes after the proof (ends at byte %zu of %zu)", len - used,
                     used, len);
}

void cuzk_snap_partition_free(cuzk_snap_partition_proof *p)
{
    if (p) free(p->mem);
}

/* ---- writer ------------------------------------------------------------------ */

static size_t sp_path_size(const cuzk_fil_path *p)
{
    size_t a = p->levels ? p->arity - 1 : 0;
    return 8 + (size_t)p->levels * (16 + 32 * a);
}

static size_t sp_merkle_size(const cuzk_fil_merkle_proof *p)
{
    size_t n = 4 + 64;
    for (uint32_t k = 0; k <= p->kind && k < 3; k++)
        n += sp_path_size(&p->path[k]);
    return n;
}

size_t cuzk_snap_partition_size(const cuzk_snap_partition_proof *p)
{
    size_t n = 32 + 8 + 32 * (size_t)p->n_apex + 8;
    for (uint32_t i = 0; i < p->n_challenges; i++) {
        const cuzk_snap_challenge_proof *c = &p->challenges[i];
        n += sp_merkle_size(&c->r_old) + sp_merkle_size(&c->d_new) + sp_merkle_size(&c->r_new);
    }
    return n;
}

static uint8_t *sp_wr_path(uint8_t *o, const cuzk_fil_path *p)
{
    size_t a = p->levels ? p->arity - 1 : 0;
    sp_put_le64(o, p->levels);
    o += 8;
    for (uint32_t l = 0; l < p->levels; l++) {
        sp_put_le64(o, a);
        memcpy(o + 8, p->hashes + l * a * 32, a * 32);
        o += 8 + a * 32;
        sp_put_le64(o, p->index[l]);
        o += 8;
    }
    return o;
}

static uint8_t *sp_wr_merkle(uint8_t *o, const cuzk_fil_merkle_proof *p)
{
    for (int b = 0; b < 4; b++)
        o[b] = (uint8_t)(p->kind >> (8 * b));
    o += 4;
    if (p->kind == CUZK_FIL_PROOF_SINGLE) {
        memcpy(o, p->root, 32);
        memcpy(o + 32, p->leaf, 32);
        return sp_wr_path(o + 64, &p->path[0]);
    }
    for (uint32_t k = 0; k <= p->kind; k++)
        o = sp_wr_path(o, &p->path[k]);
    memcpy(o, p->root, 32);
    memcpy(o + 32, p->leaf, 32);
    return o + 64;
}

static bool sp_merkle_ok(const cuzk_fil_merkle_proof *p)
{
    if (p->kind > CUZK_FIL_PROOF_TOP) return false;
    for (uint32_t k = 0; k <= p->kind; k++)
        if (p->path[k].levels && (p->path[k].arity < 2 || !p->path[k].hashes || !p->path[k].index))
            return false;
    return true;
}

int cuzk_snap_partition_write(uint8_t *out, size_t cap, size_t *written, const cuzk_snap_partition_proof *p)
{
    if (!out || !p || (p->n_apex && !p->apex_leafs) || (p->n_challenges && !p->challenges))
        return CUZK_ERR_ARG;
    for (uint32_t i = 0; i < p->n_challenges; i++) {
        const cuzk_snap_challenge_proof *c = &p->challenges[i];
        if (!sp_merkle_ok(&c->r_old) || !sp_merkle_ok(&c->d_new) || !sp_merkle_ok(&c->r_new))
            return CUZK_ERR_ARG;
    }
    if (cap < cuzk_snap_partition_size(p)) return CUZK_ERR_ARG;
    uint8_t *o = out;
    memcpy(o, p->comm_c, 32);
    sp_put_le64(o + 32, p->n_apex);
    memcpy(o + 40, p->apex_leafs, 32 * (size_t)p->n_apex);
    o += 40 + 32 * (size_t)p->n_apex;
    sp_put_le64(o, p->n_challenges);
    o += 8;
    for (uint32_t i = 0; i < p->n_challenges; i++) {
        o = sp_wr_merkle(o, &p->challenges[i].r_old);
        o = sp_wr_merkle(o, &p->challenges[i].d_new);
        o = sp_wr_merkle(o, &p->challenges[i].r_new);
    }
    if (written) *written = (size_t)(o - out);
    return CUZK_OK;
}
