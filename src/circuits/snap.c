/* SnapDeals circuit (storage-proofs-update circuit.rs and gadgets.rs); see
 * cuzk/snap.h.  The header (apex tree, generated challenge bits) lives in
 * one heap block per call that every challenge reads; the challenges are
 * the circuit's repeated items (cuzk_cs_synthesize_items: in parallel when
 * the cs has a cuzk_par), each thread with its own scratch (the challenge
 * witness and a path buffer). */
#include "cuzk/snap.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets.h"
#include "cuzk/gadgets_sha256.h"
#include "cuzk/poseidon.h"
#include "cuzk/status.h"
#include "random_witness.h"

#define FR_CAPACITY 254

size_t cuzk_snap_num_inputs(const cuzk_snap_shape *s)
{
    (void)s;
    return 4;
}

static size_t por_nci(uint32_t arity, uint32_t levels)
{
    return (size_t)levels * (cuzk_insert_constraints(arity) + cuzk_poseidon_gadget_constraints(arity));
}

size_t cuzk_snap_num_constraints(const cuzk_snap_shape *s)
{
    const size_t sha2 = 45379, pos2 = cuzk_poseidon_gadget_constraints(2);
    size_t pb = s->partition_bits, to_apex = s->challenge_bits - pb - s->apex_bits;
    size_t per_digest = FR_CAPACITY / (s->challenge_bits - pb);
    size_t digests = (s->challenges + per_digest - 1) / per_digest;
    size_t header = 1 + (pb + CUZK_SNAP_HS + 1) + 1 + 3 + pos2 + 2 * (pos2 + 1) +
                    (s->apex_leaves - 1) * sha2 + pb * (2 + sha2) + 1;
    size_t gen = digests * (1 + pos2 + 255 + 1);
    size_t tree_r = por_nci(s->tree_base_arity, s->tree_base_levels) +
                    (s->tree_sub_arity ? por_nci(s->tree_sub_arity, 1) : 0) +
                    (s->tree_top_arity ? por_nci(s->tree_top_arity, 1) : 0) + 1;
    size_t per =
        CUZK_SNAP_HS * 2 + 1 + pos2 + 2 + 2 * tree_r + (s->apex_leaves - 1) + to_apex * (2 + sha2) + 1;
    return header + gen + s->challenges * per;
}

/* Per synthesizing thread. */
typedef struct {
    cuzk_snap_challenge_witness w;
    cuzk_num path[CUZK_SNAP_MAX_SIBS];
    char err[256];
} snap_scratch;

static cuzk_fr fr_u64(uint64_t v)
{
    cuzk_fr r;
    cuzk_fr_from_u64(&r, v);
    return r;
}

static int tagged2(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_fr tag;
    int rc = cuzk_poseidon_tag_custom(&tag, 1);
    if (rc) return cuzk_cs_set_error(cs, rc, "snap: Poseidon custom tag");
    cuzk_num in[2] = {*a, *b};
    return cuzk_poseidon_gadget_tagged(cs, out, &tag, in, 2);
}

/* AllocatedNum -> 255 allocated bits (field_into_allocated_bits_le) with
 * (sum 2^i b_i) * ONE = num (gadgets.rs allocated_num_to_allocated_bits). */
static int num_to_bits(cuzk_cs *cs, cuzk_bool out[255], const cuzk_num *n)
{
    int rc = cuzk_bools_alloc_fr_le(cs, out, cuzk_cs_needs_values(cs) ? &n->value : NULL);
    if (rc) return rc;
    cuzk_term ta[255], one = {CUZK_ONE, CUZK_FR_ONE}, tc = {n->var, CUZK_FR_ONE};
    cuzk_fr c = CUZK_FR_ONE;
    for (int i = 0; i < 255; i++) {
        ta[i].var = out[i].var;
        ta[i].coeff = c;
        cuzk_fr_dbl(&c, &c);
    }
    return cuzk_cs_enforce(cs, ta, 255, &one, 1, &tc, 1);
}

/* The header up to the challenge loop; nums: k_and_h, comm_r_old,
 * comm_d_new, comm_r_new, phi, comm_c, root_r_old, root_r_new, partition. */
enum { N_KH, N_CRO, N_CDN, N_CRN, N_PHI, N_CC, N_RRO, N_RRN, N_PART, N_COUNT };

/* The header's results, read by every challenge. */
typedef struct {
    const cuzk_snap_circuit_ctx *c;
    cuzk_num apex_tree[2 * CUZK_SNAP_MAX_APEX];
    cuzk_bool gen_bits[86][64]; /* generated challenge bits, LSB first */
    cuzk_num n[N_COUNT];
    cuzk_bool khbits[8 + CUZK_SNAP_HS];
    cuzk_num *apex; /* apex leaves; partition path after CUZK_SNAP_MAX_APEX */
} snap_header;

static int alloc_in(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *v, bool vals)
{
    int rc = cuzk_num_alloc(cs, out, vals ? v : NULL);
    return rc ? rc : cuzk_num_inputize(cs, out);
}

static int k_and_h_bits(cuzk_cs *cs, const cuzk_snap_circuit_ctx *c, cuzk_num *kh, cuzk_bool *bits,
                        size_t nbits, bool vals)
{
    uint64_t khv = vals ? cuzk_snap_k_and_h_select(&c->shape, c->k, c->h) : 0;
    cuzk_fr khf = fr_u64(khv);
    int rc = alloc_in(cs, kh, &khf, vals);
    if (rc) return rc;
    cuzk_term ta[64], one = {CUZK_ONE, CUZK_FR_ONE}, tc = {kh->var, CUZK_FR_ONE};
    cuzk_fr p = CUZK_FR_ONE;
    for (size_t i = 0; i < nbits; i++) {
        if ((rc = cuzk_bit_alloc(cs, &bits[i], (khv >> i) & 1))) return rc;
        ta[i].var = bits[i].var;
        ta[i].coeff = p;
        cuzk_fr_dbl(&p, &p);
    }
    return cuzk_cs_enforce(cs, ta, nbits, &one, 1, &tc, 1);
}

static int header(cuzk_cs *cs, const cuzk_snap_circuit_ctx *c, snap_header *p, cuzk_num *n, cuzk_bool *khbits,
                  cuzk_num *apex, cuzk_num *ppath)
{
    const cuzk_snap_shape *s = &c->shape;
    bool vals = cuzk_cs_needs_values(cs);
    size_t pb = s->partition_bits;
    int rc;
    if ((rc = k_and_h_bits(cs, c, &n[N_KH], khbits, pb + CUZK_SNAP_HS, vals))) return rc;
    if ((rc = cuzk_pack_bits(cs, &n[N_PART], khbits, pb))) return rc;
    if ((rc = alloc_in(cs, &n[N_CRO], &c->comm_r_old, vals)) ||
        (rc = alloc_in(cs, &n[N_CDN], &c->comm_d_new, vals)) ||
        (rc = alloc_in(cs, &n[N_CRN], &c->comm_r_new, vals)))
        return rc;
    if ((rc = tagged2(cs, &n[N_PHI], &n[N_CDN], &n[N_CRO]))) return rc;
    if ((rc = cuzk_num_alloc(cs, &n[N_CC], vals ? &c->comm_c : NULL)) ||
        (rc = cuzk_num_alloc(cs, &n[N_RRO], vals ? &c->root_r_old : NULL)) ||
        (rc = cuzk_num_alloc(cs, &n[N_RRN], vals ? &c->root_r_new : NULL)))
        return rc;
    for (uint32_t i = 0; i < s->apex_leaves; i++)
        if ((rc = cuzk_num_alloc(cs, &apex[i], vals ? &c->apex[i] : NULL))) return rc;
    for (uint32_t i = 0; i < pb; i++)
        if ((rc = cuzk_num_alloc(cs, &ppath[i], vals ? &c->partition_path[i] : NULL))) return rc;
    cuzk_num in[2], h;
    in[0] = n[N_CC], in[1] = n[N_RRO];
    if ((rc = cuzk_poseidon_gadget(cs, &h, in, 2)) || (rc = cuzk_num_enforce_equal(cs, &h, &n[N_CRO])))
        return rc;
    in[1] = n[N_RRN];
    if ((rc = cuzk_poseidon_gadget(cs, &h, in, 2)) || (rc = cuzk_num_enforce_equal(cs, &h, &n[N_CRN])))
        return rc;
    /* apex_por: the apex tree row by row, then its root's path to comm_d_new */
    cuzk_num *row = p->apex_tree;
    memcpy(row, apex, s->apex_leaves * sizeof *row);
    for (uint32_t w = s->apex_leaves; w > 1; w /= 2) {
        cuzk_num *next = row + w;
        for (uint32_t i = 0; i < w / 2; i++)
            if ((rc = cuzk_fil_sha256_hash2(cs, &next[i], &row[2 * i], &row[2 * i + 1]))) return rc;
        row = next;
    }
    cuzk_por_shape d = {2, pb, 0, 0};
    if (pb == 0) return cuzk_num_enforce_equal(cs, row, &n[N_CDN]);
    return cuzk_por_no_challenge_input(cs, &d, CUZK_POR_SHA256, khbits, row, ppath, &n[N_CDN]);
}

/* gen_challenge_bits: the challenges' low bits (without the partition),
 * bits_per LSB-first bits each, into p->gen_bits. */
static int gen_challenge_bits(cuzk_cs *cs, const cuzk_snap_shape *s, snap_header *p,
                              const cuzk_num *comm_r_new, const cuzk_num *partition)
{
    size_t bits_per = s->challenge_bits - s->partition_bits, per_digest = FR_CAPACITY / bits_per;
    size_t digests = (s->challenges + per_digest - 1) / per_digest, done = 0;
    bool vals = cuzk_cs_needs_values(cs);
    cuzk_fr dpp = fr_u64(digests);
    int rc;
    for (size_t j = 0; j < digests; j++) {
        cuzk_fr jf = fr_u64(j), v;
        cuzk_fr_mul(&v, &partition->value, &dpp);
        cuzk_fr_add(&v, &v, &jf);
        cuzk_num idx, digest;
        if ((rc = cuzk_num_alloc(cs, &idx, vals ? &v : NULL))) return rc;
        /* (dpp * partition + j * ONE) * ONE = digest_index; j = 0 keeps a zero term, as Rust's lc does */
        cuzk_term ta[2] = {{partition->var, dpp}, {CUZK_ONE, jf}}, one = {CUZK_ONE, CUZK_FR_ONE},
                  tc = {idx.var, CUZK_FR_ONE};
        if ((rc = cuzk_cs_enforce(cs, ta, 2, &one, 1, &tc, 1))) return rc;
        if ((rc = tagged2(cs, &digest, comm_r_new, &idx))) return rc;
        cuzk_bool bits[255];
        if ((rc = num_to_bits(cs, bits, &digest))) return rc;
        size_t take = j == digests - 1 ? s->challenges - done : per_digest;
        for (size_t t = 0; t < take; t++, done++)
            memcpy(p->gen_bits[done], bits + t * bits_per, bits_per * sizeof *bits);
    }
    return CUZK_OK;
}

/* get_challenge_high_bits: c_high of the selected h. */
static int challenge_high(cuzk_cs *cs, cuzk_num *out, const cuzk_snap_shape *s, const cuzk_bool *c_bits,
                          const cuzk_bool *h_select)
{
    bool vals = cuzk_cs_needs_values(cs);
    cuzk_num or_zero[CUZK_SNAP_HS];
    cuzk_fr sum = CUZK_FR_ZERO;
    int rc;
    for (int k = 0; k < CUZK_SNAP_HS; k++) {
        cuzk_num high;
        uint32_t h = s->hs[k];
        if ((rc = cuzk_pack_bits(cs, &high, c_bits + s->challenge_bits - h, h))) return rc;
        cuzk_fr v = h_select[k].value ? high.value : CUZK_FR_ZERO;
        if ((rc = cuzk_num_alloc(cs, &or_zero[k], vals ? &v : NULL))) return rc;
        cuzk_term ta = {high.var, CUZK_FR_ONE}, tb = {h_select[k].var, CUZK_FR_ONE},
                  tc = {or_zero[k].var, CUZK_FR_ONE};
        if ((rc = cuzk_cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1))) return rc;
        cuzk_fr_add(&sum, &sum, &v);
    }
    if ((rc = cuzk_num_alloc(cs, out, vals ? &sum : NULL))) return rc;
    cuzk_term ta[CUZK_SNAP_HS], one = {CUZK_ONE, CUZK_FR_ONE}, tc = {out->var, CUZK_FR_ONE};
    for (int k = 0; k < CUZK_SNAP_HS; k++)
        ta[k].var = or_zero[k].var, ta[k].coeff = CUZK_FR_ONE;
    return cuzk_cs_enforce(cs, ta, CUZK_SNAP_HS, &one, 1, &tc, 1);
}

/* label_r_new: leaf_d_new * rho (mul), then leaf_r_old + that = new. */
static int label_r_new(cuzk_cs *cs, cuzk_num *out, const cuzk_num *old, const cuzk_num *data,
                       const cuzk_num *rho)
{
    cuzk_num prod;
    int rc = cuzk_num_mul(cs, &prod, data, rho);
    if (rc) return rc;
    return cuzk_num_add(cs, out, old, &prod);
}

static int alloc_path(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *v, size_t n, bool vals)
{
    int rc;
    for (size_t i = 0; i < n; i++)
        if ((rc = cuzk_num_alloc(cs, &out[i], vals ? &v[i] : NULL))) return rc;
    return CUZK_OK;
}

static int challenge(cuzk_cs *cs, const snap_header *hd, snap_scratch *p, size_t ci)
{
    const cuzk_snap_circuit_ctx *c = hd->c;
    const cuzk_num *n = hd->n, *apex = hd->apex;
    const cuzk_bool *khbits = hd->khbits;
    const cuzk_snap_shape *s = &c->shape;
    const cuzk_snap_challenge_witness *w = &p->w;
    bool vals = cuzk_cs_needs_values(cs);
    size_t pb = s->partition_bits, low = s->challenge_bits - pb, to_apex = low - s->apex_bits;
    cuzk_bool c_bits[64];
    memcpy(c_bits, hd->gen_bits[ci], low * sizeof *c_bits);
    memcpy(c_bits + low, khbits, pb * sizeof *c_bits);
    cuzk_num c_high, rho, old, data, nw, apex_leaf;
    cuzk_num *path = p->path;
    cuzk_por_shape r = {s->tree_base_arity, s->tree_base_levels, s->tree_sub_arity, s->tree_top_arity};
    size_t rsibs = (size_t)s->tree_base_levels * (s->tree_base_arity - 1) +
                   (s->tree_sub_arity ? s->tree_sub_arity - 1 : 0) +
                   (s->tree_top_arity ? s->tree_top_arity - 1 : 0);
    int rc;
    if ((rc = challenge_high(cs, &c_high, s, c_bits, khbits + pb))) return rc;
    if ((rc = tagged2(cs, &rho, &n[N_PHI], &c_high))) return rc;
    if ((rc = cuzk_num_alloc(cs, &old, vals ? &w->leaf_r_old : NULL)) ||
        (rc = cuzk_num_alloc(cs, &data, vals ? &w->leaf_d_new : NULL)))
        return rc;
    if ((rc = label_r_new(cs, &nw, &old, &data, &rho))) return rc;
    if ((rc = alloc_path(cs, path, w->r_old, rsibs, vals))) return rc;
    if ((rc = cuzk_por_no_challenge_input(cs, &r, CUZK_POR_POSEIDON, c_bits, &old, path, &n[N_RRO])))
        return rc;
    if ((rc = alloc_path(cs, path, w->r_new, rsibs, vals))) return rc;
    if ((rc = cuzk_por_no_challenge_input(cs, &r, CUZK_POR_POSEIDON, c_bits, &nw, path, &n[N_RRN])))
        return rc;
    if ((rc = cuzk_num_select(cs, &apex_leaf, apex, c_bits + to_apex, s->apex_bits))) return rc;
    if ((rc = alloc_path(cs, path, w->d_new, to_apex, vals))) return rc;
    cuzk_por_shape d = {2, (uint32_t)to_apex, 0, 0};
    return cuzk_por_no_challenge_input(cs, &d, CUZK_POR_SHA256, c_bits, &data, path, &apex_leaf);
}

static void *snap_scratch_new(void *ctx)
{
    (void)ctx;
    return calloc(1, sizeof(snap_scratch));
}

static int snap_item(cuzk_cs *cs, void *ctx, void *scratch, size_t i)
{
    const snap_header *h = ctx;
    const cuzk_snap_circuit_ctx *c = h->c;
    snap_scratch *p = scratch;
    int rc;
    if (cuzk_cs_needs_values(cs) && (rc = c->witness(c->wctx, i, &p->w, p->err, sizeof p->err)))
        return cuzk_cs_set_error(cs, rc, "snap challenge %zu: %s", i, p->err);
    return challenge(cs, h, p, i);
}

int cuzk_snap_circuit(cuzk_cs *cs, void *ctx)
{
    const cuzk_snap_circuit_ctx *c = ctx;
    bool vals = cuzk_cs_needs_values(cs);
    const cuzk_snap_shape *s = c ? &c->shape : NULL;
    cuzk_snap_shape chk; /* the fixed scratch relies on a shape cuzk_snap_shape_for makes */
    if (!s || !s->nodes || cuzk_snap_shape_for(&chk, s->sector_size, true) || memcmp(&chk, s, sizeof chk))
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG,
                                 "snap: no or unsupported circuit shape (use cuzk_snap_shape_for)");
    if (vals && !c->witness)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "snap: blank circuit needs SHAPE mode");
    snap_header *h = calloc(1, sizeof *h);
    cuzk_num *apex = calloc(CUZK_SNAP_MAX_APEX + 8, sizeof *apex);
    if (!h || !apex) {
        free(h);
        free(apex);
        return cuzk_cs_set_error(cs, CUZK_ERR_NOMEM, "snap: no memory for the synthesis scratch");
    }
    h->c = c;
    h->apex = apex;
    int rc = header(cs, c, h, h->n, h->khbits, apex, apex + CUZK_SNAP_MAX_APEX);
    if (!rc) rc = gen_challenge_bits(cs, s, h, &h->n[N_CRN], &h->n[N_PART]);
    if (!rc) {
        cuzk_cs_items it = {s->challenges, snap_item, snap_scratch_new, free, h, "snap challenge"};
        rc = cuzk_cs_synthesize_items(cs, &it);
    }
    free(apex);
    free(h);
    return rc;
}

int cuzk_snap_random_witness_fn(void *wctx, size_t i, cuzk_snap_challenge_witness *out, char *err,
                                size_t err_len)
{
    const cuzk_snap_random_witness *r = wctx;
    uint64_t st = rw_mix(r->seed ^ (i * 0x100000001b3ull));
    rw_frs(&out->leaf_r_old, 1, &st);
    rw_frs(&out->leaf_d_new, 1, &st);
    rw_frs(out->r_old, CUZK_SNAP_MAX_SIBS, &st);
    rw_frs(out->r_new, CUZK_SNAP_MAX_SIBS, &st);
    rw_frs(out->d_new, 64, &st);
    (void)err, (void)err_len;
    return CUZK_OK;
}
