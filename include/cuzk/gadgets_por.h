/* Proof-of-retrievability gadget over Poseidon Merkle trees with optional
 * sub and top trees: rust-fil-proofs storage-proofs-core gadgets/por.rs,
 * `PoRCircuit::synthesize` with the value given as a witness
 * (Root::Val), the root an already allocated number (Root::Var) and
 * private = true -- exactly how FallbackPoSt (Winning/Window PoSt) calls it.
 * The R1CS is identical to Rust's: same allocation order, constraints,
 * coefficients and order (filecoin-formats.md section 1).
 *
 * Per path level of arity k = 2^b (base levels, then one sub level, then
 * one top level):
 *   b index bits (AllocatedBit, LSB first)          b constraints
 *   k - 1 sibling numbers (AllocatedNum)            0
 *   insertion of the running hash (insertion.rs)    2 / 8 / 22 for k = 2 / 4 / 8
 *   Poseidon of arity k (MerkleTree tag)            311 / 377 / 505
 * so an 8-ary level is 3 + 22 + 505 = 530.  Then pack_into_inputs of all
 * index bits (base first; one new input = the leaf index, 1 constraint per
 * 254 bits) and computed_root * ONE = root (1).  The leaf is allocated
 * first (no constraint).
 *
 * Conventions as gadgets.h: errors are the cs's sticky status; witness
 * values are needed only when cuzk_cs_needs_values(cs) (SHAPE mode: pass
 * NULL).  Not constant time (circuits are public). */
#ifndef CUZK_GADGETS_POR_H
#define CUZK_GADGETS_POR_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff.h"
#include "cuzk/gadgets.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_POR_MAX_LEVELS 40 /* 64 index bits at most in total */

/* Tree shape: base_levels levels of base_arity, then one level of
 * sub_arity (0 = no sub tree), then one of top_arity (0 = none; needs a
 * sub tree).  Arities in {2, 4, 8}. */
typedef struct {
    uint32_t base_arity, base_levels;
    uint32_t sub_arity, top_arity;
} cuzk_por_shape;

/* Witness of one inclusion proof: values of the leaf and of the siblings,
 * level after level (base levels, sub, top), arity - 1 per level, and each
 * level's insertion index (0 <= index < arity).  All NULL in SHAPE mode. */
typedef struct {
    const cuzk_fr *leaf;
    const cuzk_fr *siblings;
    const uint32_t *index;
} cuzk_por_witness;

/* Levels of the shape (base + sub + top) and total index bits. */
uint32_t cuzk_por_levels(const cuzk_por_shape *s);
uint32_t cuzk_por_index_bits(const cuzk_por_shape *s);
/* CUZK_OK if the shape is one the gadget supports, else CUZK_ERR_ARG. */
CUZK_MUST_CHECK int cuzk_por_shape_check(const cuzk_por_shape *s);
/* Constraints one cuzk_por_gadget call adds (0 for an unsupported shape). */
size_t cuzk_por_constraints(const cuzk_por_shape *s);
/* Constraints of insertion of one element into arity - 1 (2, 8, 22 for
 * arity 2, 4, 8; general arity * (arity - 1)). */
size_t cuzk_insert_constraints(size_t arity);

/* Hasher of the tree: Poseidon (tree C, tree R, PoSt) or SHA-256 (comm_d
 * trees: binary only, each level hashes the two inserted numbers with
 * Sha256Function::hash_multi_leaf_circuit = to_bits_le of both (512) +
 * sha256 + pack, 45,379 constraints; a level is 1 + 2 + 45,379 = 45,382). */
typedef enum { CUZK_POR_POSEIDON = 0, CUZK_POR_SHA256 = 1 } cuzk_por_hasher;

/* PoRCircuit::synthesize(value = Root::Val(leaf), root = Root::Var(root),
 * private = true).  Adds one public input: the leaf index (packed index
 * bits). */
CUZK_MUST_CHECK int cuzk_por_gadget(cuzk_cs *cs, const cuzk_por_shape *s, const cuzk_por_witness *w, const cuzk_num *root);
/* The same with value = Root::Var(leaf): the leaf is an already allocated
 * number (w->leaf is ignored) -- how StackedDRG's enforce_inclusion calls
 * it -- over either hasher (SHA-256: base arity 2, no sub/top tree). */
CUZK_MUST_CHECK int cuzk_por_gadget_var(cuzk_cs *cs, const cuzk_por_shape *s, cuzk_por_hasher h, const cuzk_por_witness *w,
                        const cuzk_num *leaf, const cuzk_num *root);

/* por.rs por_no_challenge_input (SnapDeals): the challenge's index bits
 * (already allocated bits, LSB first, cuzk_por_index_bits(s) of them), the
 * leaf and the path values (arity - 1 allocated numbers per level, base
 * levels then sub then top) are the caller's; per level insert + hash, then
 * computed_root * ONE = root.  No allocation and no public input here. */
CUZK_MUST_CHECK int cuzk_por_no_challenge_input(cuzk_cs *cs, const cuzk_por_shape *s, cuzk_por_hasher h,
                                const cuzk_bool *challenge_bits, const cuzk_num *leaf, const cuzk_num *path,
                                const cuzk_num *root);

#ifdef __cplusplus
}
#endif
#endif
