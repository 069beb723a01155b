/* PoR gadget (storage-proofs-core gadgets/por.rs, PoRCircuit with a
 * private root): see cuzk/gadgets_por.h for the exact R1CS. */
#include "cuzk/gadgets_por.h"

#include "cuzk/gadgets_sha256.h"

#include "cuzk/status.h"

static unsigned log2_arity(uint32_t a)
{
    return a == 2 ? 1 : a == 4 ? 2 : a == 8 ? 3 : 0;
}

uint32_t cuzk_por_levels(const cuzk_por_shape *s)
{
    return s->base_levels + (s->sub_arity ? 1 : 0) + (s->top_arity ? 1 : 0);
}

uint32_t cuzk_por_index_bits(const cuzk_por_shape *s)
{
    return s->base_levels * log2_arity(s->base_arity) + log2_arity(s->sub_arity) + log2_arity(s->top_arity);
}

int cuzk_por_shape_check(const cuzk_por_shape *s)
{
    if (!s || !log2_arity(s->base_arity)) return CUZK_ERR_ARG;
    if (s->sub_arity && !log2_arity(s->sub_arity)) return CUZK_ERR_ARG;
    if (s->top_arity && (!log2_arity(s->top_arity) || !s->sub_arity)) return CUZK_ERR_ARG;
    if (cuzk_por_levels(s) == 0 || cuzk_por_levels(s) > CUZK_POR_MAX_LEVELS) return CUZK_ERR_ARG;
    /* the challenge is a u64 leaf index (por.rs packs it into one input) */
    if (cuzk_por_index_bits(s) > 64) return CUZK_ERR_ARG;
    return CUZK_OK;
}

size_t cuzk_insert_constraints(size_t arity)
{
    return arity == 2 ? 2 : arity == 4 ? 8 : arity == 8 ? 22 : arity * (arity - 1);
}

static size_t level_constraints(uint32_t arity)
{
    return log2_arity(arity) + cuzk_insert_constraints(arity) + cuzk_poseidon_gadget_constraints(arity);
}

size_t cuzk_por_constraints(const cuzk_por_shape *s)
{
    if (cuzk_por_shape_check(s)) return 0;
    size_t n = (size_t)s->base_levels * level_constraints(s->base_arity);
    if (s->sub_arity) n += level_constraints(s->sub_arity);
    if (s->top_arity) n += level_constraints(s->top_arity);
    size_t bits = cuzk_por_index_bits(s);
    return n + (bits + 253) / 254 + 1;
}

/* One level of SubPath::synthesize: index bits, siblings, insert, hash. */
static int por_level(cuzk_cs *cs, cuzk_por_hasher h, cuzk_num *cur, cuzk_bool *bits_out, uint32_t arity,
                     const cuzk_fr *sib, const uint32_t *index)
{
    unsigned nb = log2_arity(arity);
    bool vals = cuzk_cs_needs_values(cs);
    int rc;
    for (unsigned i = 0; i < nb; i++)
        if ((rc = cuzk_bit_alloc(cs, &bits_out[i], vals && ((*index >> i) & 1)))) return rc;
    cuzk_num path[7], ins[8];
    for (uint32_t i = 0; i + 1 < arity; i++)
        if ((rc = cuzk_num_alloc(cs, &path[i], vals ? &sib[i] : NULL))) return rc;
    if ((rc = cuzk_num_insert(cs, ins, cur, bits_out, nb, path))) return rc;
    if (h == CUZK_POR_SHA256) return cuzk_fil_sha256_hash2(cs, cur, &ins[0], &ins[1]);
    return cuzk_poseidon_gadget(cs, cur, ins, arity);
}

/* PoRCircuit::synthesize after the leaf: the path levels, the packed
 * index input and the root equality. */
static int por_path(cuzk_cs *cs, const cuzk_por_shape *s, cuzk_por_hasher h, const cuzk_por_witness *w,
                    cuzk_num cur, const cuzk_num *root)
{
    bool vals = cuzk_cs_needs_values(cs);
    uint32_t levels = cuzk_por_levels(s);
    cuzk_bool bits[64];
    size_t nbits = 0, sib_off = 0;
    int rc;
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t a = l < s->base_levels ? s->base_arity : l == s->base_levels ? s->sub_arity : s->top_arity;
        rc = por_level(cs, h, &cur, &bits[nbits], a, vals ? w->siblings + sib_off : NULL,
                       vals ? &w->index[l] : NULL);
        if (rc) return rc;
        nbits += log2_arity(a);
        sib_off += a - 1;
    }
    if ((rc = cuzk_pack_into_inputs(cs, bits, nbits))) return rc;
    return cuzk_num_enforce_equal(cs, &cur, root);
}

static int por_check(cuzk_cs *cs, const cuzk_por_shape *s, cuzk_por_hasher h, const cuzk_por_witness *w,
                     bool need_leaf)
{
    if (cuzk_por_shape_check(s) || (h == CUZK_POR_SHA256 && (s->base_arity != 2 || s->sub_arity)))
        return cuzk_cs_set_error(
            cs, CUZK_ERR_ARG, "por: unsupported tree shape (arities %u/%u/%u, %u levels)",
            s ? s->base_arity : 0, s ? s->sub_arity : 0, s ? s->top_arity : 0, s ? s->base_levels : 0);
    if (!cuzk_cs_needs_values(cs)) return CUZK_OK;
    if (!w || (need_leaf && !w->leaf) || !w->siblings || !w->index)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "por: witness values missing");
    uint32_t levels = cuzk_por_levels(s);
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t a = l < s->base_levels ? s->base_arity : l == s->base_levels ? s->sub_arity : s->top_arity;
        if (w->index[l] >= a)
            return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "por: level %u index %u >= arity %u", l, w->index[l],
                                     a);
    }
    return CUZK_OK;
}

int cuzk_por_gadget(cuzk_cs *cs, const cuzk_por_shape *s, const cuzk_por_witness *w, const cuzk_num *root)
{
    int rc = por_check(cs, s, CUZK_POR_POSEIDON, w, true);
    if (rc) return rc;
    cuzk_num cur;
    if ((rc = cuzk_num_alloc(cs, &cur, cuzk_cs_needs_values(cs) ? w->leaf : NULL))) return rc;
    return por_path(cs, s, CUZK_POR_POSEIDON, w, cur, root);
}

int cuzk_por_gadget_var(cuzk_cs *cs, const cuzk_por_shape *s, cuzk_por_hasher h, const cuzk_por_witness *w,
                        const cuzk_num *leaf, const cuzk_num *root)
{
    int rc = por_check(cs, s, h, w, false);
    if (rc) return rc;
    return por_path(cs, s, h, w, *leaf, root);
}

int cuzk_por_no_challenge_input(cuzk_cs *cs, const cuzk_por_shape *s, cuzk_por_hasher h,
                                const cuzk_bool *challenge_bits, const cuzk_num *leaf, const cuzk_num *path,
                                const cuzk_num *root)
{
    cuzk_por_shape shape_only = *s; /* the witness is in the caller's numbers */
    if (cuzk_por_shape_check(&shape_only) || (h == CUZK_POR_SHA256 && (s->base_arity != 2 || s->sub_arity)))
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "por_no_challenge_input: unsupported tree shape");
    int rc;
    uint32_t levels = cuzk_por_levels(s);
    cuzk_num cur = *leaf, ins[8];
    size_t bit = 0, sib = 0;
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t a = l < s->base_levels ? s->base_arity : l == s->base_levels ? s->sub_arity : s->top_arity;
        unsigned nb = log2_arity(a);
        if ((rc = cuzk_num_insert(cs, ins, &cur, challenge_bits + bit, nb, path + sib))) return rc;
        if (h == CUZK_POR_SHA256)
            rc = cuzk_fil_sha256_hash2(cs, &cur, &ins[0], &ins[1]);
        else
            rc = cuzk_poseidon_gadget(cs, &cur, ins, a);
        if (rc) return rc;
        bit += nb;
        sib += a - 1;
    }
    return cuzk_num_enforce_equal(cs, &cur, root);
}
