/* FallbackPoSt circuit and public inputs (rust-fil-proofs
 * storage-proofs-post fallback/circuit.rs and compound.rs); see
 * cuzk/post.h.  The sectors are the circuit's repeated items
 * (cuzk_cs_synthesize_items: in parallel when the cs has a cuzk_par); they
 * share nothing, not even a header. */
#include "cuzk/post.h"

#include <stdio.h>
#include <string.h>

#include "cuzk/status.h"
#include "post_internal.h"

int cuzk_post_por_shape(cuzk_por_shape *out, uint64_t sector_size)
{
    cuzk_fil_tree_shape t;
    int st = cuzk_fil_tree_shape_for_sector(&t, sector_size);
    if (st) return st;
    out->base_arity = t.base_arity;
    out->base_levels = t.base_levels;
    out->sub_arity = t.sub_arity;
    out->top_arity = t.top_arity;
    return cuzk_por_shape_check(out);
}

int cuzk_post_circuit_blank(cuzk_post_circuit_ctx *ctx, const cuzk_fil_post_info *info)
{
    memset(ctx, 0, sizeof *ctx);
    if (!info) return CUZK_ERR_ARG;
    int st = cuzk_post_por_shape(&ctx->shape, info->sector_size);
    if (st) return st;
    ctx->info = info;
    ctx->n_sectors = info->circuit_sector_count;
    ctx->n_challenges = info->circuit_challenge_count;
    return CUZK_OK;
}

/* Sector header: comm_r_last, comm_c, comm_r, inputize, Poseidon2, equal. */
#define POST_SECTOR_HEADER 313

size_t cuzk_post_num_constraints(const cuzk_fil_post_info *info)
{
    cuzk_por_shape s;
    if (!info || cuzk_post_por_shape(&s, info->sector_size)) return 0;
    size_t per = POST_SECTOR_HEADER + info->circuit_challenge_count * cuzk_por_constraints(&s);
    return info->circuit_sector_count * per;
}

size_t cuzk_post_num_inputs(const cuzk_fil_post_info *info)
{
    return info ? (size_t)info->circuit_sector_count * (1 + info->circuit_challenge_count) : 0;
}

/* Witness of one inclusion proof as Fr values, checked against the shape. */
static int por_witness(cuzk_cs *cs, cuzk_fr *leaf, cuzk_fr *sib, uint32_t *index, const cuzk_por_shape *s,
                       const cuzk_fil_merkle_proof *p, size_t si, size_t ci)
{
    uint32_t want_kind = s->top_arity   ? CUZK_FIL_PROOF_TOP
                         : s->sub_arity ? CUZK_FIL_PROOF_SUB
                                        : CUZK_FIL_PROOF_SINGLE;
    const uint32_t ar[3] = {s->base_arity, s->sub_arity, s->top_arity};
    const uint32_t lv[3] = {s->base_levels, 1, 1};
    if (p->kind != want_kind)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "sector %zu challenge %zu: proof kind %u, tree needs %u",
                                 si, ci, p->kind, want_kind);
    if (cuzk_fr_from_bytes_le(leaf, p->leaf))
        return cuzk_cs_set_error(cs, CUZK_ERR_ENC_NONCANONICAL,
                                 "sector %zu challenge %zu: leaf is not a canonical Fr", si, ci);
    size_t o = 0, l = 0;
    for (uint32_t k = 0; k <= want_kind; k++) {
        const cuzk_fil_path *path = &p->path[k];
        if (path->levels != lv[k] || path->arity != ar[k])
            return cuzk_cs_set_error(
                cs, CUZK_ERR_ARG,
                "sector %zu challenge %zu: path %u has %u levels of arity %u, want %u of %u", si, ci, k,
                path->levels, path->arity, lv[k], ar[k]);
        for (uint32_t i = 0; i < path->levels; i++, l++) {
            index[l] = (uint32_t)path->index[i];
            for (uint32_t h = 0; h + 1 < path->arity; h++, o++)
                if (cuzk_fr_from_bytes_le(&sib[o], path->hashes + 32 * ((size_t)i * (path->arity - 1) + h)))
                    return cuzk_cs_set_error(cs, CUZK_ERR_ENC_NONCANONICAL,
                                             "sector %zu challenge %zu: path hash is not a canonical Fr", si,
                                             ci);
        }
    }
    return CUZK_OK;
}

static int alloc_comm(cuzk_cs *cs, cuzk_num *n, const uint8_t *bytes, const char *what, size_t si)
{
    if (!bytes) return cuzk_num_alloc(cs, n, NULL);
    cuzk_fr v;
    if (cuzk_fr_from_bytes_le(&v, bytes))
        return cuzk_cs_set_error(cs, CUZK_ERR_ENC_NONCANONICAL, "sector %zu: %s is not a canonical Fr", si,
                                 what);
    return cuzk_num_alloc(cs, n, &v);
}

/* Sector::synthesize (circuit.rs). */
static int post_sector(cuzk_cs *cs, const cuzk_post_circuit_ctx *c, size_t si)
{
    const cuzk_post_circuit_sector *sec = c->sectors ? &c->sectors[si] : NULL;
    cuzk_num comm_r_last, comm_c, comm_r, hash;
    int rc = alloc_comm(cs, &comm_r_last, sec ? sec->comm_r_last : NULL, "comm_r_last", si);
    if (!rc) rc = alloc_comm(cs, &comm_c, sec ? sec->comm_c : NULL, "comm_c", si);
    if (!rc) rc = alloc_comm(cs, &comm_r, sec ? sec->comm_r : NULL, "comm_r", si);
    if (!rc) rc = cuzk_num_inputize(cs, &comm_r);
    if (!rc) {
        cuzk_num pre[2] = {comm_c, comm_r_last};
        rc = cuzk_poseidon_gadget(cs, &hash, pre, 2);
    }
    if (!rc) rc = cuzk_num_enforce_equal(cs, &comm_r, &hash);
    if (rc) return rc;
    cuzk_fr leaf, sib[CUZK_POR_MAX_LEVELS * 7];
    uint32_t index[CUZK_POR_MAX_LEVELS];
    for (size_t ci = 0; ci < c->n_challenges; ci++) {
        cuzk_por_witness w = {&leaf, sib, index};
        if (sec && (rc = por_witness(cs, &leaf, sib, index, &c->shape, &sec->proofs[ci], si, ci))) return rc;
        if ((rc = cuzk_por_gadget(cs, &c->shape, sec ? &w : NULL, &comm_r_last))) return rc;
    }
    return CUZK_OK;
}

static int post_item(cuzk_cs *cs, void *ctx, void *scratch, size_t si)
{
    const cuzk_post_circuit_ctx *c = ctx;
    (void)scratch;
    if (c->gate) {
        int rc = c->gate(c->gate_ctx, si);
        if (rc) return cuzk_cs_set_error(cs, rc, "post sector %zu: stopped (%s)", si, cuzk_strerror(rc));
    }
    return post_sector(cs, c, si);
}

int cuzk_post_circuit(cuzk_cs *cs, void *ctx)
{
    const cuzk_post_circuit_ctx *c = ctx;
    if (!c || !c->info || cuzk_por_shape_check(&c->shape))
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "post circuit: context not initialized");
    if (!c->sectors && cuzk_cs_needs_values(cs))
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "post circuit: blank circuit needs SHAPE mode");
    cuzk_cs_items it = {c->n_sectors, post_item, NULL, NULL, (void *)c, "post sector"};
    return cuzk_cs_synthesize_items(cs, &it);
}

/* ---- public inputs -------------------------------------------------------------- */

int cuzk_post_public_inputs(cuzk_fr *out, size_t cap, size_t *n_out, const cuzk_fil_post_info *info,
                            const uint8_t randomness[32], const cuzk_post_sector *sectors, size_t n_sectors,
                            uint32_t partition, char *err, size_t err_len)
{
    if (!info || !out || !randomness || (!sectors && n_sectors))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "public inputs: NULL argument");
    size_t need = cuzk_post_num_inputs(info), sc = info->circuit_sector_count;
    size_t cc = info->circuit_challenge_count, per = 1 + cc;
    if (cap < need)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "public inputs: room for %zu, need %zu", cap, need);
    if (!cuzk_fil_domain_valid(randomness))
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "randomness is not a canonical Fr (>= r)");
    const cuzk_post_sector *chunk = sectors;
    size_t n = n_sectors;
    if (info->winning) {
        if (n_sectors != 1 || partition != 0)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "WinningPoSt: %zu sectors, partition %u (want one sector, partition 0)",
                             n_sectors, partition);
    } else if (n_sectors > sc) {
        /* the whole list: partition k is chunk k (compound.rs chunks().nth(k)) */
        if ((size_t)partition * sc >= n_sectors)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "partition %u out of range for %zu sectors",
                             partition, n_sectors);
        chunk = sectors + (size_t)partition * sc;
        n = n_sectors - (size_t)partition * sc < sc ? n_sectors - (size_t)partition * sc : sc;
    } else if (n_sectors == 0) {
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "WindowPoSt: no sectors");
    }
    size_t k = 0;
    /* Winning: the sector repeated 66 times, copy i is sector_index i
     * (verify_winning_post builds exactly that list) */
    size_t rows = info->winning ? sc : n;
    for (size_t i = 0; i < rows; i++) {
        const cuzk_post_sector *s = info->winning ? &chunk[0] : &chunk[i];
        if (cuzk_fr_from_bytes_le(&out[k++], s->comm_r))
            return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL,
                             "sector %llu: comm_r is not a canonical Fr", (unsigned long long)s->sector_id);
        uint64_t sector_index = info->winning ? i : (uint64_t)partition * sc + i;
        for (size_t c = 0; c < cc; c++) {
            uint64_t ci = cuzk_fil_post_challenge_index(info->api_version, sector_index, cc, c);
            uint64_t leaf = cuzk_fil_post_leaf_challenge(randomness, s->sector_id, ci, info->sector_size);
            cuzk_fr_from_u64(&out[k++], leaf);
        }
    }
    /* a short partition repeats the last sector's inputs */
    while (k < need) {
        memcpy(&out[k], &out[k - per], per * sizeof *out);
        k += per;
    }
    *n_out = k;
    return CUZK_OK;
}
