/* Native verification of one SnapDeals partition proof: vanilla.rs
 * EmptySectorUpdate::verify, plus the tree D checks the circuit makes in
 * another form (apex root + partition path = comm_d_new, each challenge's
 * path meets its apex leaf).  Used before synthesis so that a bad vanilla
 * proof fails with a sentence instead of an unsatisfied circuit, and by
 * the test-sector updater to check what it writes.  The first failed
 * check names its field; nothing here is constant time (public data). */
#include <stdio.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"

#define SV_MAX_APEX_BITS 7 /* 128 apex leaves (constants.rs apex_leaf_count) */

typedef struct {
    const cuzk_snap_partition_proof *p;
    const cuzk_snap_shape *s;
    cuzk_fil_tree_shape tree_r;
    uint32_t k, h, apex_h;
    const uint8_t *root_r_old, *root_r_new, *comm_d_new;
    uint8_t phi[32];
    uint8_t *apex_tree; /* rows of the apex tree: apex_leaves, /2, ..., root */
    char *err;
    size_t err_len;
} sv_ctx;

static void sv_hash2(uint8_t out[32], const uint8_t a[32], const uint8_t b[32])
{
    uint8_t buf[64];
    memcpy(buf, a, 32);
    memcpy(buf + 32, b, 32);
    cuzk_fil_sha256_trunc254(out, buf, 64);
}

/* The row offsets of the apex tree inside v->apex_tree. */
static size_t sv_row(const sv_ctx *v, uint32_t level)
{
    size_t off = 0, w = v->s->apex_leaves;
    for (uint32_t l = 0; l < level; l++, w /= 2)
        off += w;
    return off;
}

static int sv_comm_r(const sv_ctx *v, const uint8_t comm_c[32], const uint8_t *root, const uint8_t want[32],
                     const char *which, const char *proof)
{
    uint8_t got[32];
    char msg[200] = "";
    int st = cuzk_fil_comm_r(got, comm_c, root, msg, sizeof msg);
    if (st) return cuzk_errf(v->err, v->err_len, st, "%s: %s", which, msg);
    if (memcmp(got, want, 32))
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                         "%s mismatch: Poseidon2(comm_c, challenge_proofs[0].%s.root) != %s", which, proof,
                         which);
    return CUZK_OK;
}

/* Apex tree over the partition's apex leaves, then up the partition path
 * of challenge 0 with the bits of k to comm_d_new. */
static int sv_apex(sv_ctx *v)
{
    const cuzk_snap_shape *s = v->s;
    memcpy(v->apex_tree, v->p->apex_leafs, 32 * (size_t)s->apex_leaves);
    for (uint32_t l = 0; l < s->apex_bits; l++) {
        uint8_t *src = v->apex_tree + 32 * sv_row(v, l), *dst = v->apex_tree + 32 * sv_row(v, l + 1);
        for (size_t j = 0; j < (size_t)(s->apex_leaves >> (l + 1)); j++)
            sv_hash2(dst + 32 * j, src + 64 * j, src + 64 * j + 32);
    }
    uint8_t h[32];
    memcpy(h, v->apex_tree + 32 * sv_row(v, s->apex_bits), 32);
    const cuzk_fil_path *path = &v->p->challenges[0].d_new.path[0];
    for (uint32_t j = 0; j < s->partition_bits; j++) {
        const uint8_t *sib = path->hashes + 32 * (size_t)(v->apex_h + s->apex_bits + j);
        if ((v->k >> j) & 1)
            sv_hash2(h, sib, h);
        else
            sv_hash2(h, h, sib);
    }
    if (memcmp(h, v->comm_d_new, 32))
        return cuzk_errf(
            v->err, v->err_len, CUZK_ERR_ARG,
            "apex_leafs: the apex root along challenge_proofs[0].proof_d_new's partition path (k = %u) "
            "does not hash to comm_d_new",
            v->k);
    return CUZK_OK;
}

/* One Merkle proof: shape, hashes to its root, proves leaf c, root is `want`. */
static int sv_merkle(const sv_ctx *v, uint32_t i, const char *name, const cuzk_fil_merkle_proof *m,
                     uint32_t c, const uint8_t want[32], bool tree_d)
{
    bool shape_ok = tree_d ? m->kind == CUZK_FIL_PROOF_SINGLE && m->path[0].levels == v->s->challenge_bits &&
                                 (m->path[0].levels == 0 || m->path[0].arity == 2)
                           : cuzk_fil_merkle_proof_matches(m, &v->tree_r);
    if (!shape_ok)
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                         "challenge_proofs[%u].%s: path shape does not match the sector's tree %s", i, name,
                         tree_d ? "D" : "R");
    bool ok = false;
    uint64_t leaf = 0;
    char msg[200] = "";
    int st = tree_d ? cuzk_fil_merkle_verify_sha256(&ok, &leaf, m, msg, sizeof msg)
                    : cuzk_fil_merkle_verify_poseidon(&ok, &leaf, m, msg, sizeof msg);
    if (st) return cuzk_errf(v->err, v->err_len, st, "challenge_proofs[%u].%s: %s", i, name, msg);
    if (!ok)
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                         "challenge_proofs[%u].%s: path does not hash to its root", i, name);
    if (leaf != c)
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                         "challenge_proofs[%u].%s: proves leaf %llu but the challenge is %u", i, name,
                         (unsigned long long)leaf, c);
    if (memcmp(m->root, want, 32))
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG, "challenge_proofs[%u].%s: root mismatch", i, name);
    return CUZK_OK;
}

/* Tree D path of challenge i against the apex tree and challenge 0's
 * partition path (its hash to comm_d_new is checked by sv_merkle). */
static int sv_apex_path(const sv_ctx *v, uint32_t i, uint32_t c)
{
    const cuzk_snap_shape *s = v->s;
    const cuzk_fil_path *path = &v->p->challenges[i].d_new.path[0];
    uint8_t h[32];
    memcpy(h, v->p->challenges[i].d_new.leaf, 32);
    for (uint32_t l = 0; l < v->apex_h; l++) {
        const uint8_t *sib = path->hashes + 32 * (size_t)l;
        if (path->index[l])
            sv_hash2(h, sib, h);
        else
            sv_hash2(h, h, sib);
    }
    uint32_t a = (c >> v->apex_h) & (s->apex_leaves - 1);
    if (memcmp(h, v->p->apex_leafs + 32 * (size_t)a, 32))
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                         "challenge_proofs[%u].proof_d_new: node at height %u is not apex_leafs[%u]", i,
                         v->apex_h, a);
    for (uint32_t j = 0; j < s->apex_bits; j++) {
        uint32_t at = ((a >> j) ^ 1);
        const uint8_t *want = v->apex_tree + 32 * (sv_row(v, j) + at);
        if (memcmp(path->hashes + 32 * (size_t)(v->apex_h + j), want, 32))
            return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                             "challenge_proofs[%u].proof_d_new.path[%u]: sibling is not the apex tree's node",
                             i, v->apex_h + j);
    }
    const cuzk_fil_path *p0 = &v->p->challenges[0].d_new.path[0];
    uint32_t top = v->apex_h + s->apex_bits;
    if (memcmp(path->hashes + 32 * (size_t)top, p0->hashes + 32 * (size_t)top,
               32 * (size_t)s->partition_bits))
        return cuzk_errf(
            v->err, v->err_len, CUZK_ERR_ARG,
            "challenge_proofs[%u].proof_d_new: partition path differs from challenge_proofs[0]'s", i);
    return CUZK_OK;
}

static int sv_label(const sv_ctx *v, uint32_t i, uint32_t c)
{
    const cuzk_snap_challenge_proof *cp = &v->p->challenges[i];
    cuzk_fr rho;
    uint8_t want[32];
    char msg[200] = "";
    int st = cuzk_snap_rho(&rho, v->phi, cuzk_snap_high(v->s, v->h, c), msg, sizeof msg);
    if (!st && (st = cuzk_snap_encode_node(want, cp->r_old.leaf, cp->d_new.leaf, &rho)))
        snprintf(msg, sizeof msg, "a leaf of proof_r_old or proof_d_new is not a canonical field element");
    if (st) return cuzk_errf(v->err, v->err_len, st, "challenge_proofs[%u]: label update: %s", i, msg);
    if (memcmp(want, cp->r_new.leaf, 32))
        return cuzk_errf(
            v->err, v->err_len, CUZK_ERR_ARG,
            "challenge_proofs[%u]: proof_r_new.leaf != proof_r_old.leaf + proof_d_new.leaf * rho "
            "(label update, challenge %u, high bits %u)",
            i, c, cuzk_snap_high(v->s, v->h, c));
    return CUZK_OK;
}

static int sv_args(sv_ctx *v)
{
    const cuzk_snap_shape *s = v->s;
    const cuzk_snap_partition_proof *p = v->p;
    if (v->k >= s->partitions)
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG, "partition k = %u, the sector has %u partition(s)",
                         v->k, s->partitions);
    if (!cuzk_snap_h_select(s, v->h))
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                         "h = %u is not allowed for this sector size (hs[3] = %u)", v->h, s->hs[3]);
    if (s->apex_bits > SV_MAX_APEX_BITS || s->apex_leaves != 1u << s->apex_bits || s->challenges == 0 ||
        s->challenge_bits < s->partition_bits + s->apex_bits)
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG, "unusable snap shape");
    if (p->n_apex != s->apex_leaves)
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG, "apex_leafs: %u leaves, this sector size needs %u",
                         p->n_apex, s->apex_leaves);
    if (p->n_challenges != s->challenges)
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                         "challenge_proofs: %u challenge proofs, this sector size needs %u", p->n_challenges,
                         s->challenges);
    v->apex_h = cuzk_snap_apex_height(s);
    int st = cuzk_fil_tree_shape_make(&v->tree_r, s->nodes, s->tree_base_arity, s->tree_sub_arity,
                                      s->tree_top_arity);
    if (st)
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG, "no tree R shape for %llu nodes",
                         (unsigned long long)s->nodes);
    /* challenge 0's tree D path must be long enough for sv_apex */
    const cuzk_fil_merkle_proof *d0 = &p->challenges[0].d_new;
    if (d0->kind != CUZK_FIL_PROOF_SINGLE || d0->path[0].levels != s->challenge_bits ||
        (d0->path[0].levels && d0->path[0].arity != 2))
        return cuzk_errf(v->err, v->err_len, CUZK_ERR_ARG,
                         "challenge_proofs[0].proof_d_new: path shape does not match the sector's tree D");
    return CUZK_OK;
}

int cuzk_snap_partition_verify(const cuzk_snap_partition_proof *p, const cuzk_snap_shape *s, uint32_t k,
                               uint32_t h, const uint8_t comm_r_old[32], const uint8_t comm_d_new[32],
                               const uint8_t comm_r_new[32], char *err, size_t err_len)
{
    if (!p || !s || !comm_r_old || !comm_d_new || !comm_r_new)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap verify: NULL argument");
    uint8_t apex_tree[32 * (2u << SV_MAX_APEX_BITS)];
    sv_ctx v = {.p = p,
                .s = s,
                .k = k,
                .h = h,
                .comm_d_new = comm_d_new,
                .apex_tree = apex_tree,
                .err = err,
                .err_len = err_len};
    int st = sv_args(&v);
    if (st) return st;
    v.root_r_old = p->challenges[0].r_old.root;
    v.root_r_new = p->challenges[0].r_new.root;
    if ((st = sv_comm_r(&v, p->comm_c, v.root_r_old, comm_r_old, "comm_r_old", "proof_r_old")) ||
        (st = sv_comm_r(&v, p->comm_c, v.root_r_new, comm_r_new, "comm_r_new", "proof_r_new")))
        return st;
    if ((st = sv_apex(&v))) return st;
    if ((st = cuzk_snap_phi(v.phi, comm_d_new, comm_r_old, err, err_len))) return st;
    uint32_t ch[256];
    if (s->challenges > 256) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap verify: too many challenges");
    if ((st = cuzk_snap_challenges(ch, 256, s, comm_r_new, k, err, err_len))) return st;
    for (uint32_t i = 0; i < s->challenges; i++) {
        const cuzk_snap_challenge_proof *cp = &p->challenges[i];
        if ((st = sv_merkle(&v, i, "proof_r_old", &cp->r_old, ch[i], v.root_r_old, false)) ||
            (st = sv_merkle(&v, i, "proof_d_new", &cp->d_new, ch[i], comm_d_new, true)) ||
            (st = sv_merkle(&v, i, "proof_r_new", &cp->r_new, ch[i], v.root_r_new, false)) ||
            (st = sv_label(&v, i, ch[i])) || (st = sv_apex_path(&v, i, ch[i])))
            return st;
    }
    return CUZK_OK;
}
