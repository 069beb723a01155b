/* bincode (1.x default: little endian, u64 lengths, u32 enum tags) of
 * storage-proofs-update's PartitionProof: comm_c, apex_leafs,
 * challenge_proofs {proof_r_old, proof_d_new, proof_r_new}, with the
 * MerkleProof / InclusionPath encoding of wire-contract.md.
 *
 * It reads with the PoSt parser's bincode reader (fil/bincode.h) and runs,
 * like it, twice over the input: pass 1 validates everything (counts
 * against limits and against the bytes left, shapes, canonical elements)
 * and counts levels and hash bytes; one block is then allocated and pass 2
 * fills it.  Garbage can neither crash the parser nor make it allocate
 * more than a small multiple of its size.  What is Snap's own here: the
 * expected shapes of trees R and D for a sector size, and every 32-byte
 * element must be a canonical Fr. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/seal_snap.h"
#include "cuzk/status.h"
#include "fil/bincode.h"

#define SNAP_MAX_COUNT 4096 /* without a shape */
#define SNAP_MAX_LEVELS 64

/* The parse state: a bincode reader (canonical elements) plus the
 * pass-2 arrays it fills. */
typedef struct {
    cuzk_fil_bc bc;
    const cuzk_snap_shape *s;
    size_t n_apex, n_ch;
    cuzk_snap_challenge_proof *ch;
    uint8_t *apex;
} sp_rd;

/* Expected MerkleProof shape of tree R (tree_d false) or tree D. */
static cuzk_fil_bc_shape sp_want(const cuzk_snap_shape *s, bool tree_d)
{
    const uint32_t any = CUZK_FIL_BC_ANY32;
    cuzk_fil_bc_shape w = {any, {any, any, any}, {any, any, any}, "this sector size needs"};
    if (tree_d) {
        w.kind = CUZK_FIL_PROOF_SINGLE;
        w.arity[0] = 2;
        if (s)
            w.levels[0] = s->challenge_bits;
        else
            w.rule = "tree D proofs are";
        return w;
    }
    if (!s) return w;
    w.kind = s->tree_top_arity   ? CUZK_FIL_PROOF_TOP
             : s->tree_sub_arity ? CUZK_FIL_PROOF_SUB
                                 : CUZK_FIL_PROOF_SINGLE;
    w.levels[0] = s->tree_base_levels;
    w.arity[0] = s->tree_base_arity;
    w.levels[1] = w.levels[2] = 1;
    w.arity[1] = s->tree_sub_arity;
    w.arity[2] = s->tree_top_arity;
    return w;
}

/* ChallengeProof: proof_r_old, proof_d_new, proof_r_new. */
static int sp_challenge(sp_rd *r, cuzk_snap_challenge_proof *c)
{
    static const char *const names[3] = {".proof_r_old", ".proof_d_new", ".proof_r_new"};
    cuzk_fil_merkle_proof *out[3] = {c ? &c->r_old : NULL, c ? &c->d_new : NULL, c ? &c->r_new : NULL};
    const cuzk_fil_bc_shape tree_r = sp_want(r->s, false), tree_d = sp_want(r->s, true);
    for (int k = 0; k < 3; k++) {
        size_t f = cuzk_fil_bc_push(&r->bc, "%s", names[k]);
        int st = cuzk_fil_bc_merkle(&r->bc, out[k], k == 1 ? &tree_d : &tree_r);
        if (st) return st;
        cuzk_fil_bc_pop(&r->bc, f);
    }
    return CUZK_OK;
}

static int sp_all(sp_rd *r, cuzk_snap_partition_proof *p)
{
    cuzk_fil_bc *b = &r->bc;
    const cuzk_snap_shape *s = r->s;
    uint64_t na, nc;
    int st;
    if ((st = cuzk_fil_bc_elems(b, p ? p->comm_c : NULL, 1, "comm_c"))) return st;
    if ((st = cuzk_fil_bc_count(b, &na, s ? s->apex_leaves : CUZK_FIL_BC_ANY, SNAP_MAX_COUNT, 32,
                                "apex_leafs.len")))
        return st;
    if ((st = cuzk_fil_bc_elems(b, r->apex, (size_t)na, "apex_leafs"))) return st;
    if ((st = cuzk_fil_bc_count(b, &nc, s ? s->challenges : CUZK_FIL_BC_ANY, SNAP_MAX_COUNT, 3 * (4 + 64 + 8),
                                "challenge_proofs.len")))
        return st;
    r->n_apex = (size_t)na;
    r->n_ch = (size_t)nc;
    if (p) {
        p->n_apex = (uint32_t)na;
        p->apex_leafs = r->apex;
        p->n_challenges = (uint32_t)nc;
        p->challenges = r->ch;
    }
    for (uint64_t i = 0; i < nc; i++) {
        size_t f = cuzk_fil_bc_push(b, "challenge_proofs[%llu]", (unsigned long long)i);
        if ((st = sp_challenge(r, p ? &r->ch[i] : NULL))) return st;
        cuzk_fil_bc_pop(b, f);
    }
    return CUZK_OK;
}

static void sp_start(sp_rd *r, const uint8_t *buf, size_t len, const cuzk_snap_shape *s, char *err,
                     size_t err_len)
{
    memset(r, 0, sizeof *r);
    cuzk_fil_bc_init(&r->bc, "snap proof", buf, len, err, err_len);
    r->bc.canonical = true;
    r->bc.max_levels = SNAP_MAX_LEVELS;
    r->s = s;
}

/* Both passes; whole: nothing may follow the proof. */
static int sp_parse(cuzk_snap_partition_proof **out, size_t *used, const uint8_t *buf, size_t len,
                    const cuzk_snap_shape *s, bool whole, char *err, size_t err_len)
{
    if (!out || (!buf && len)) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap proof: NULL argument");
    *out = NULL;
    sp_rd r;
    sp_start(&r, buf, len, s, err, err_len);
    int st = sp_all(&r, NULL);
    if (!st && whole) st = cuzk_fil_bc_end(&r.bc);
    if (st) return st;
    size_t nc = r.n_ch, na = r.n_apex, n_hash = r.bc.n_hash;
    size_t sz_p = sizeof(cuzk_snap_partition_proof), sz_c = nc * sizeof(cuzk_snap_challenge_proof);
    size_t sz_i = r.bc.n_levels * sizeof(uint64_t);
    uint8_t *mem = malloc(sz_p + sz_c + sz_i + 32 * na + n_hash + 1);
    if (!mem) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "snap proof: out of memory");
    cuzk_snap_partition_proof *p = (cuzk_snap_partition_proof *)mem;
    memset(p, 0, sizeof *p);
    sp_start(&r, buf, len, s, err, err_len);
    r.ch = (cuzk_snap_challenge_proof *)(mem + sz_p);
    r.apex = mem + sz_p + sz_c + sz_i;
    r.bc.fill = true;
    r.bc.idx = (uint64_t *)(mem + sz_p + sz_c);
    r.bc.hash = mem + sz_p + sz_c + sz_i + 32 * na;
    if ((st = sp_all(&r, p))) { /* cannot happen: pass 1 accepted the same bytes */
        free(mem);
        return st;
    }
    p->mem = mem;
    if (used) *used = r.bc.pos;
    *out = p;
    return CUZK_OK;
}

int cuzk_snap_partition_parse_prefix(cuzk_snap_partition_proof **out, size_t *used, const uint8_t *buf,
                                     size_t len, const cuzk_snap_shape *s, char *err, size_t err_len)
{
    return sp_parse(out, used, buf, len, s, false, err, err_len);
}

int cuzk_snap_partition_parse(cuzk_snap_partition_proof **out, const uint8_t *buf, size_t len,
                              const cuzk_snap_shape *s, char *err, size_t err_len)
{
    return sp_parse(out, NULL, buf, len, s, true, err, err_len);
}

void cuzk_snap_partition_free(cuzk_snap_partition_proof *p)
{
    if (p) free(p->mem);
}

/* ---- writer ------------------------------------------------------------------ */

size_t cuzk_snap_partition_size(const cuzk_snap_partition_proof *p)
{
    size_t n = 32 + 8 + 32 * (size_t)p->n_apex + 8;
    for (uint32_t i = 0; i < p->n_challenges; i++) {
        const cuzk_snap_challenge_proof *c = &p->challenges[i];
        n += cuzk_fil_bc_merkle_size(&c->r_old) + cuzk_fil_bc_merkle_size(&c->d_new) +
             cuzk_fil_bc_merkle_size(&c->r_new);
    }
    return n;
}

int cuzk_snap_partition_write(uint8_t *out, size_t cap, size_t *written, const cuzk_snap_partition_proof *p)
{
    if (!out || !p || (p->n_apex && !p->apex_leafs) || (p->n_challenges && !p->challenges))
        return CUZK_ERR_ARG;
    for (uint32_t i = 0; i < p->n_challenges; i++) {
        const cuzk_snap_challenge_proof *c = &p->challenges[i];
        if (!cuzk_fil_bc_merkle_ok(&c->r_old) || !cuzk_fil_bc_merkle_ok(&c->d_new) ||
            !cuzk_fil_bc_merkle_ok(&c->r_new))
            return CUZK_ERR_ARG;
    }
    if (cap < cuzk_snap_partition_size(p)) return CUZK_ERR_ARG;
    uint8_t *o = out;
    memcpy(o, p->comm_c, 32);
    cuzk_fil_bc_put_u64(o + 32, p->n_apex);
    memcpy(o + 40, p->apex_leafs, 32 * (size_t)p->n_apex);
    o += 40 + 32 * (size_t)p->n_apex;
    cuzk_fil_bc_put_u64(o, p->n_challenges);
    o += 8;
    for (uint32_t i = 0; i < p->n_challenges; i++) {
        o = cuzk_fil_bc_put_merkle(o, &p->challenges[i].r_old);
        o = cuzk_fil_bc_put_merkle(o, &p->challenges[i].d_new);
        o = cuzk_fil_bc_put_merkle(o, &p->challenges[i].r_new);
    }
    if (written) *written = (size_t)(o - out);
    return CUZK_OK;
}
