/* StackedDRG PoRep circuit (rust-fil-proofs storage-proofs-porep
 * stacked/circuit/proof.rs and params.rs); see cuzk/porep.h.
 *
 * The challenges are the circuit's repeated items (cuzk_cs_synthesize_items:
 * in parallel when the cs has a cuzk_par); each synthesizing thread keeps
 * one heap scratch (the challenge witness, the allocated columns and the
 * 9,984-bit label preimage: ~300 KB), so the per-challenge work allocates
 * nothing.  The header's values (commitments, replica_id bits) are shared
 * read-only by every challenge. */
#include "cuzk/porep.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets.h"
#include "cuzk/gadgets_sha256.h"
#include "cuzk/status.h"
#include "random_witness.h"

/* One label: sha256 of 9,984 bits (20 blocks) with Rust's constant pattern
 * plus pack_bits; measured by SHAPE synthesis and checked against the
 * asserted totals in tests/test_porep_circuit.c. */
#define LABEL_CONSTRAINTS 522269

static unsigned log2u(uint64_t x)
{
    unsigned l = 0;
    while (x > 1)
        x >>= 1, l++;
    return l;
}

int cuzk_porep_shape_make(cuzk_porep_shape *out, uint64_t nodes, uint32_t layers, uint32_t challenges,
                          const cuzk_por_shape *tree)
{
    memset(out, 0, sizeof *out);
    if (nodes < 2 || (nodes & (nodes - 1)) || (layers != 2 && layers != 11) || challenges == 0 || !tree ||
        cuzk_por_shape_check(tree))
        return CUZK_ERR_ARG;
    uint64_t leaves = 1;
    for (uint32_t i = 0; i < tree->base_levels; i++)
        leaves *= tree->base_arity;
    if (tree->sub_arity) leaves *= tree->sub_arity;
    if (tree->top_arity) leaves *= tree->top_arity;
    if (leaves != nodes) return CUZK_ERR_ARG;
    out->nodes = nodes;
    out->layers = layers;
    out->challenges = challenges;
    out->comm_d_levels = log2u(nodes);
    out->tree = *tree;
    return CUZK_OK;
}

int cuzk_porep_shape_for(cuzk_porep_shape *out, const cuzk_fil_seal_info *info)
{
    if (!info) return CUZK_ERR_ARG;
    cuzk_fil_tree_shape t;
    int st = cuzk_fil_tree_shape_for_sector(&t, info->sector_size);
    if (st) return st;
    cuzk_por_shape s = {t.base_arity, t.base_levels, t.sub_arity, t.top_arity};
    return cuzk_porep_shape_make(out, t.leaves, info->layers, info->challenges_per_partition, &s);
}

size_t cuzk_porep_num_inputs(const cuzk_porep_shape *s)
{
    return 3 + (size_t)s->challenges * (1 + CUZK_POREP_DRG + CUZK_POREP_EXP + 3);
}

size_t cuzk_porep_num_constraints(const cuzk_porep_shape *s)
{
    size_t pos2 = cuzk_poseidon_gadget_constraints(2), col = cuzk_poseidon_gadget_constraints(s->layers);
    size_t tree = cuzk_por_constraints(&s->tree);
    size_t header = 1 + 256 + 1 + 1 + pos2 + 1;
    size_t comm_d = (size_t)s->comm_d_levels * 45382 + (s->comm_d_levels + 253) / 254 + 1;
    size_t per = comm_d + (CUZK_POREP_DRG + CUZK_POREP_EXP) * (col + tree) + 64 + 1;
    for (uint32_t l = 1; l <= s->layers; l++)
        per += (l == 1 ? CUZK_POREP_DRG : CUZK_POREP_DRG + CUZK_POREP_EXP) * 256 + LABEL_CONSTRAINTS;
    per += 1 + tree + col + tree;
    return header + (size_t)s->challenges * per;
}

typedef struct {
    cuzk_porep_challenge_witness w;
    cuzk_num drg[CUZK_POREP_DRG][CUZK_POREP_MAX_LAYERS];
    cuzk_num exp[CUZK_POREP_EXP][CUZK_POREP_MAX_LAYERS];
    cuzk_bool parents[CUZK_POREP_DRG + CUZK_POREP_EXP][256];
    cuzk_bool preimage[CUZK_POREP_LABEL_BITS];
    char err[256];
} porep_scratch;

static cuzk_por_witness por_w(const cuzk_porep_path_witness *p)
{
    cuzk_por_witness w = {NULL, p->sib, p->index};
    return w;
}

/* reverse_bit_numbering(num.to_bits_le()): 255 allocated bits + constant 0,
 * reversed within each byte. */
static int num_bits_rev(cuzk_cs *cs, cuzk_bool out[256], const cuzk_num *n)
{
    cuzk_bool le[255];
    int rc = cuzk_num_to_bits_le(cs, le, n);
    if (rc) return rc;
    cuzk_bits_reverse_bytes(out, le, 255);
    return CUZK_OK;
}

int cuzk_porep_create_label(cuzk_cs *cs, cuzk_num *out, cuzk_bool *scratch, const cuzk_bool replica[256],
                            const cuzk_bool *const parents[CUZK_POREP_LABEL_PARENTS], uint32_t layer,
                            const cuzk_bool node_le[64])
{
    cuzk_bool *b = scratch;
    size_t n = 0;
    memcpy(b, replica, 256 * sizeof *b);
    n = 256;
    for (int i = 31; i >= 0; i--)
        b[n++] = cuzk_bool_constant((layer >> i) & 1);
    for (int i = 63; i >= 0; i--)
        b[n++] = node_le[i];
    while (n < 512)
        b[n++] = cuzk_bool_constant(false);
    for (size_t k = 0; k < CUZK_POREP_LABEL_PARENTS; k++, n += 256)
        memcpy(b + n, parents[k], 256 * sizeof *b);
    cuzk_bool digest[256], le[256];
    int rc = cuzk_sha256(cs, digest, b, n);
    if (rc) return rc;
    cuzk_bits_reverse_bytes(le, digest, 256);
    return cuzk_pack_bits(cs, out, le, 254);
}

/* The 37 parents of Rust's expansion: 14 + 14 + the first 9 after layer
 * 1; the 6 DRG parents six times and the first once more in layer 1 --
 * both are "parent k mod np". */
static int label_circuit(cuzk_cs *cs, cuzk_num *out, porep_scratch *p, const cuzk_bool replica[256],
                         size_t np, uint32_t layer, const cuzk_bool node_le[64])
{
    const cuzk_bool *par[CUZK_POREP_LABEL_PARENTS];
    for (size_t k = 0; k < CUZK_POREP_LABEL_PARENTS; k++)
        par[k] = p->parents[k % np];
    return cuzk_porep_create_label(cs, out, p->preimage, replica, par, layer, node_le);
}

static int column(cuzk_cs *cs, cuzk_num *rows, const cuzk_porep_column_witness *cw, const cuzk_porep_shape *s,
                  const cuzk_num *comm_c, bool vals)
{
    int rc;
    for (uint32_t l = 0; l < s->layers; l++)
        if ((rc = cuzk_num_alloc(cs, &rows[l], vals ? &cw->rows[l] : NULL))) return rc;
    cuzk_num h;
    if ((rc = cuzk_poseidon_gadget(cs, &h, rows, s->layers))) return rc;
    cuzk_por_witness w = por_w(&cw->path);
    return cuzk_por_gadget_var(cs, &s->tree, CUZK_POR_POSEIDON, &w, &h, comm_c);
}

static int challenge(cuzk_cs *cs, const cuzk_porep_circuit_ctx *c, porep_scratch *p, const cuzk_num *comm_d,
                     const cuzk_num *comm_c, const cuzk_num *comm_r_last, const cuzk_bool replica[256])
{
    const cuzk_porep_shape *s = &c->shape;
    const cuzk_porep_challenge_witness *w = &p->w;
    bool vals = cuzk_cs_needs_values(cs);
    cuzk_por_shape dshape = {2, s->comm_d_levels, 0, 0};
    cuzk_num data, labels[CUZK_POREP_MAX_LAYERS], enc, colh;
    cuzk_por_witness pw;
    int rc;
    if ((rc = cuzk_num_alloc(cs, &data, vals ? &w->data_leaf : NULL))) return rc;
    pw = por_w(&w->comm_d);
    if ((rc = cuzk_por_gadget_var(cs, &dshape, CUZK_POR_SHA256, &pw, &data, comm_d))) return rc;
    for (int i = 0; i < CUZK_POREP_DRG; i++)
        if ((rc = column(cs, p->drg[i], &w->drg[i], s, comm_c, vals))) return rc;
    for (int i = 0; i < CUZK_POREP_EXP; i++)
        if ((rc = column(cs, p->exp[i], &w->exp[i], s, comm_c, vals))) return rc;
    cuzk_bool node[64];
    if ((rc = cuzk_bools_alloc_u64_le(cs, node, vals ? w->challenge : 0))) return rc;
    if ((rc = cuzk_pack_into_inputs(cs, node, 64))) return rc;
    for (uint32_t layer = 1; layer <= s->layers; layer++) {
        size_t np = 0;
        for (int i = 0; i < CUZK_POREP_DRG; i++)
            if ((rc = num_bits_rev(cs, p->parents[np++], &p->drg[i][layer - 1]))) return rc;
        if (layer > 1)
            for (int i = 0; i < CUZK_POREP_EXP; i++)
                if ((rc = num_bits_rev(cs, p->parents[np++], &p->exp[i][layer - 2]))) return rc;
        if ((rc = label_circuit(cs, &labels[layer - 1], p, replica, np, layer, node))) return rc;
    }
    if ((rc = cuzk_num_add(cs, &enc, &labels[s->layers - 1], &data))) return rc;
    pw = por_w(&w->comm_r_last);
    if ((rc = cuzk_por_gadget_var(cs, &s->tree, CUZK_POR_POSEIDON, &pw, &enc, comm_r_last))) return rc;
    if ((rc = cuzk_poseidon_gadget(cs, &colh, labels, s->layers))) return rc;
    pw = por_w(&w->comm_c);
    return cuzk_por_gadget_var(cs, &s->tree, CUZK_POR_POSEIDON, &pw, &colh, comm_c);
}

/* StackedCircuit::synthesize's header: the commitments and replica_id. */
static int header(cuzk_cs *cs, const cuzk_porep_circuit_ctx *c, cuzk_num nums[5], cuzk_bool replica[256])
{
    bool vals = cuzk_cs_needs_values(cs);
    enum { RID, CD, CR, CRL, CC };
    int rc;
    if ((rc = cuzk_num_alloc(cs, &nums[RID], vals ? &c->replica_id : NULL))) return rc;
    if ((rc = cuzk_num_inputize(cs, &nums[RID]))) return rc;
    if ((rc = num_bits_rev(cs, replica, &nums[RID]))) return rc;
    if ((rc = cuzk_num_alloc(cs, &nums[CD], vals ? &c->comm_d : NULL))) return rc;
    if ((rc = cuzk_num_inputize(cs, &nums[CD]))) return rc;
    if ((rc = cuzk_num_alloc(cs, &nums[CR], vals ? &c->comm_r : NULL))) return rc;
    if ((rc = cuzk_num_inputize(cs, &nums[CR]))) return rc;
    if ((rc = cuzk_num_alloc(cs, &nums[CRL], vals ? &c->comm_r_last : NULL))) return rc;
    if ((rc = cuzk_num_alloc(cs, &nums[CC], vals ? &c->comm_c : NULL))) return rc;
    cuzk_num in[2] = {nums[CC], nums[CRL]}, h;
    if ((rc = cuzk_poseidon_gadget(cs, &h, in, 2))) return rc;
    return cuzk_num_enforce_equal(cs, &nums[CR], &h);
}

/* What every challenge reads from the header. */
typedef struct {
    const cuzk_porep_circuit_ctx *c;
    cuzk_num nums[5]; /* replica_id, comm_d, comm_r, comm_r_last, comm_c */
    cuzk_bool replica[256];
} porep_header;

static void *porep_scratch_new(void *ctx)
{
    (void)ctx;
    return calloc(1, sizeof(porep_scratch));
}

static int porep_item(cuzk_cs *cs, void *ctx, void *scratch, size_t i)
{
    const porep_header *h = ctx;
    const cuzk_porep_circuit_ctx *c = h->c;
    porep_scratch *p = scratch;
    int rc;
    if (cuzk_cs_needs_values(cs) && (rc = c->witness(c->wctx, i, &p->w, p->err, sizeof p->err)))
        return cuzk_cs_set_error(cs, rc, "porep challenge %zu: %s", i, p->err);
    return challenge(cs, c, p, &h->nums[1], &h->nums[4], &h->nums[3], h->replica);
}

int cuzk_porep_circuit(cuzk_cs *cs, void *ctx)
{
    const cuzk_porep_circuit_ctx *c = ctx;
    bool vals = cuzk_cs_needs_values(cs);
    cuzk_porep_shape chk;
    if (!c || c->shape.nodes == 0 ||
        cuzk_porep_shape_make(&chk, c->shape.nodes, c->shape.layers, c->shape.challenges, &c->shape.tree) ||
        chk.comm_d_levels != c->shape.comm_d_levels)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG,
                                 "porep: no or unsupported circuit shape (use cuzk_porep_shape_*)");
    if (vals && !c->witness)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "porep: blank circuit needs SHAPE mode");
    porep_header h = {.c = c};
    int rc = header(cs, c, h.nums, h.replica);
    if (rc) return rc;
    cuzk_cs_items it = {c->shape.challenges, porep_item, porep_scratch_new, free, &h, "porep challenge"};
    return cuzk_cs_synthesize_items(cs, &it);
}

/* ---- random witness ----------------------------------------------------------- */

static void rand_path(cuzk_porep_path_witness *p, const cuzk_por_shape *s, uint64_t *st)
{
    uint32_t levels = cuzk_por_levels(s), o = 0;
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t a = l < s->base_levels ? s->base_arity : l == s->base_levels ? s->sub_arity : s->top_arity;
        p->index[l] = (uint32_t)(rw_mix((*st)++) % a);
        for (uint32_t k = 0; k + 1 < a; k++)
            rw_frs(&p->sib[o++], 1, st);
    }
}

void cuzk_porep_random_circuit(cuzk_porep_circuit_ctx *ctx, cuzk_porep_random_witness *rw)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->shape = rw->shape;
    ctx->witness = cuzk_porep_random_witness_fn;
    ctx->wctx = rw;
}

int cuzk_porep_random_witness_fn(void *wctx, size_t i, cuzk_porep_challenge_witness *out, char *err,
                                 size_t err_len)
{
    const cuzk_porep_random_witness *r = wctx;
    const cuzk_porep_shape *s = &r->shape;
    uint64_t st = rw_mix(r->seed ^ (i * 0x100000001b3ull));
    cuzk_por_shape d = {2, s->comm_d_levels, 0, 0};
    out->challenge = 1 + rw_mix(st++) % (s->nodes - 1);
    rw_frs(&out->data_leaf, 1, &st);
    rand_path(&out->comm_d, &d, &st);
    for (int k = 0; k < CUZK_POREP_DRG + CUZK_POREP_EXP; k++) {
        cuzk_porep_column_witness *c = k < CUZK_POREP_DRG ? &out->drg[k] : &out->exp[k - CUZK_POREP_DRG];
        for (uint32_t l = 0; l < s->layers; l++)
            rw_frs(&c->rows[l], 1, &st);
        rand_path(&c->path, &s->tree, &st);
    }
    rand_path(&out->comm_r_last, &s->tree, &st);
    rand_path(&out->comm_c, &s->tree, &st);
    (void)err, (void)err_len;
    return CUZK_OK;
}
