/* Basic R1CS gadgets whose constraint systems are IDENTICAL to
 * bellperson / bellpepper-core (boolean.rs, num.rs, multipack.rs),
 * rust-fil-proofs storage-proofs-core (constraint.rs, insertion.rs) and
 * neptune's legacy Poseidon circuit (circuit.rs `poseidon_hash`): same
 * allocation order, same constraints, same coefficients, same order.  The
 * Groth16 parameters Filecoin uses were generated from those circuits, so
 * any difference (one extra variable, one reordered constraint) makes every
 * proof invalid.
 *
 * Conventions (see r1cs.h):
 *  - every function takes the cs first, outputs next, then inputs;
 *  - values: a gadget computes witness values only when
 *    cuzk_cs_needs_values(cs); in SHAPE mode the value fields of its
 *    outputs are unspecified (zero) and nothing is computed;
 *  - errors are the cs's sticky status: a gadget returns it, with a message
 *    recorded in the cs (cuzk_cs_error);
 *  - no allocation except inside the cs; all functions are _var in the sense
 *    that circuits are public: witness values go through field arithmetic
 *    but booleans branch on their values. */
#ifndef CUZK_GADGETS_H
#define CUZK_GADGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Boolean ------------------------------------------------------------
 * bellperson's Boolean: Constant(b) | Is(bit) | Not(bit), where bit is an
 * AllocatedBit (a variable constrained to {0, 1}).  Constants fold: xor
 * with a constant allocates nothing, etc. (what SHA-256's circuit relies on
 * for its counts). */
typedef enum { CUZK_BOOL_CONST = 0, CUZK_BOOL_IS = 1, CUZK_BOOL_NOT = 2 } cuzk_bool_kind;
typedef struct {
    cuzk_var var;      /* the AllocatedBit's variable (unused for constants) */
    uint8_t kind;      /* cuzk_bool_kind */
    bool value;        /* value of the Boolean itself (Not: !bit) */
} cuzk_bool;

static inline cuzk_bool cuzk_bool_constant(bool b)
{
    cuzk_bool r = {CUZK_ONE, CUZK_BOOL_CONST, b};
    return r;
}
static inline cuzk_bool cuzk_bool_not(cuzk_bool a)
{
    if (a.kind == CUZK_BOOL_IS) a.kind = CUZK_BOOL_NOT;
    else if (a.kind == CUZK_BOOL_NOT) a.kind = CUZK_BOOL_IS;
    a.value = !a.value;
    return a;
}

/* Boolean::lc(ONE, coeff) appended at terms: Constant(true) -> coeff*ONE,
 * Constant(false) -> nothing, Is -> coeff*bit, Not -> coeff*ONE - coeff*bit.
 * Returns the number of terms written (0..2). */
size_t cuzk_bool_lc(cuzk_term *terms, const cuzk_bool *a, const cuzk_fr *coeff);

/* AllocatedBit::alloc: new aux b, constraint (ONE - b) * b = 0; out = Is(b). */
CUZK_MUST_CHECK int cuzk_bit_alloc(cuzk_cs *cs, cuzk_bool *out, bool value);
/* AllocatedBit::alloc_conditionally: (ONE - must_be_false - b) * b = 0.
 * must_be_false must be an allocated bit (kind IS). */
CUZK_MUST_CHECK int cuzk_bit_alloc_conditionally(cuzk_cs *cs, cuzk_bool *out, bool value,
                                 const cuzk_bool *must_be_false);
/* AllocatedBit operations; a, b must be allocated bits (their kind is
 * ignored: the bit variables are used), out is Is(result):
 *  xor:     (2a) * b = a + b - r      and:  a * b = r
 *  and_not: a * (ONE - b) = r         nor:  (ONE - a) * (ONE - b) = r */
CUZK_MUST_CHECK int cuzk_bit_xor(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b);
CUZK_MUST_CHECK int cuzk_bit_and(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b);
CUZK_MUST_CHECK int cuzk_bit_and_not(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b);
CUZK_MUST_CHECK int cuzk_bit_nor(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b);

/* Boolean::xor / and / or with bellperson's constant folding and Not
 * handling (or = not(and(not a, not b))). */
CUZK_MUST_CHECK int cuzk_bool_xor(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b);
CUZK_MUST_CHECK int cuzk_bool_and(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b);
CUZK_MUST_CHECK int cuzk_bool_or(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b);
/* Boolean::enforce_equal (0 * 0 = lc difference); two different constants
 * are unsatisfiable: CUZK_ERR_ARG recorded in the cs. */
CUZK_MUST_CHECK int cuzk_bool_enforce_equal(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b);
/* Boolean::sha256_ch (a & b) ^ (!a & c) and sha256_maj (majority), with
 * bellperson's constant cases. */
CUZK_MUST_CHECK int cuzk_bool_sha256_ch(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b,
                        const cuzk_bool *c);
CUZK_MUST_CHECK int cuzk_bool_sha256_maj(cuzk_cs *cs, cuzk_bool *out, const cuzk_bool *a, const cuzk_bool *b,
                         const cuzk_bool *c);

/* u64_into_boolean_vec_le: 64 allocated bits, least significant first. */
CUZK_MUST_CHECK int cuzk_bools_alloc_u64_le(cuzk_cs *cs, cuzk_bool out[64], uint64_t value);
/* field_into_allocated_bits_le: 255 allocated bits of value (canonical
 * integer), least significant first, allocated in that order.  value may
 * be NULL in SHAPE mode. */
CUZK_MUST_CHECK int cuzk_bools_alloc_fr_le(cuzk_cs *cs, cuzk_bool out[255], const cuzk_fr *value);

/* ---- AllocatedNum --------------------------------------------------------- */
typedef struct {
    cuzk_var var;
    cuzk_fr value; /* zero in SHAPE mode */
} cuzk_num;

/* value may be NULL in SHAPE mode. */
CUZK_MUST_CHECK int cuzk_num_alloc(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *value);
CUZK_MUST_CHECK int cuzk_num_alloc_input(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *value);
/* inputize: new input x, constraint x * ONE = a. */
CUZK_MUST_CHECK int cuzk_num_inputize(cuzk_cs *cs, const cuzk_num *a);
/* to_bits_le (non-strict, what Filecoin's circuits use): 255 bits as
 * cuzk_bools_alloc_fr_le, then 0 * 0 = sum 2^i bit_i - a: 256 constraints. */
CUZK_MUST_CHECK int cuzk_num_to_bits_le(cuzk_cs *cs, cuzk_bool out[255], const cuzk_num *a);
/* add: (a + b) * ONE = r;  mul: a * b = r;  square: a * a = r. */
CUZK_MUST_CHECK int cuzk_num_add(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a, const cuzk_num *b);
CUZK_MUST_CHECK int cuzk_num_mul(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a, const cuzk_num *b);
CUZK_MUST_CHECK int cuzk_num_square(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a);
/* assert_nonzero: aux inv, a * inv = ONE (a = 0 with values: CUZK_ERR_ARG). */
CUZK_MUST_CHECK int cuzk_num_assert_nonzero(cuzk_cs *cs, const cuzk_num *a);
/* conditionally_reverse: (c, d) = cond ? (b, a) : (a, b); two allocations
 * and two constraints, interleaved as bellperson does. */
CUZK_MUST_CHECK int cuzk_num_conditionally_reverse(cuzk_cs *cs, cuzk_num *c, cuzk_num *d, const cuzk_num *a,
                                   const cuzk_num *b, const cuzk_bool *cond);
/* storage-proofs-core constraint::equal: a * ONE = b (1 constraint). */
CUZK_MUST_CHECK int cuzk_num_enforce_equal(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b);

/* storage-proofs-core insertion.rs.  pick: out = cond ? a : b with
 * (b - a) * cond = (b - out).  select (nbits <= 7): element `bits` (LSB first) of
 * from[1 << nbits].  insert: `element` inserted into elements[n - 1] at
 * position bits (LSB first), n = 1 << nbits; hand-optimized for n = 2, 4, 8
 * (2, 8, 22 constraints; bits of n = 8 must be allocated, kind IS),
 * general n * (n - 1) otherwise.  out holds n. */
CUZK_MUST_CHECK int cuzk_num_pick(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *cond, const cuzk_num *a,
                  const cuzk_num *b);
CUZK_MUST_CHECK int cuzk_num_select(cuzk_cs *cs, cuzk_num *out, const cuzk_num *from, const cuzk_bool *bits,
                    size_t nbits);
CUZK_MUST_CHECK int cuzk_num_insert(cuzk_cs *cs, cuzk_num *out, const cuzk_num *element, const cuzk_bool *bits,
                    size_t nbits, const cuzk_num *elements);

/* ---- multipack ------------------------------------------------------------ */
/* pack_into_inputs: for each chunk of 254 bits (Fr::CAPACITY), a new input
 * x and the constraint (sum 2^i bit_i) * ONE = x. */
CUZK_MUST_CHECK int cuzk_pack_into_inputs(cuzk_cs *cs, const cuzk_bool *bits, size_t n);
/* bellperson multipack::pack_bits: the first min(n, 254) bits packed into
 * one new aux variable, 1 constraint (used by Filecoin's SHA-256 hasher
 * and PoRep labels to turn 256 digest bits into a field element). */
CUZK_MUST_CHECK int cuzk_pack_bits(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *bits, size_t n);
/* Native counterpart of pack_into_inputs (compute_multipacking): out
 * holds ceil(n / 254) elements. */
void cuzk_multipack_bits(cuzk_fr *out, const bool *bits, size_t n);

/* ---- Poseidon (neptune circuit.rs, legacy `poseidon_hash`) ---------------
 * out = Poseidon(MerkleTree tag of arity n; in[0..n)) with arity n in
 * {2, 4, 8, 11, 16, 24, 36}; constraints: t*R_F + R_P - n (allocations
 * of linear combinations) + 3 (t*R_F + R_P - 1) (S-boxes), e.g. 311, 377,
 * 505, 598, 761, 1009, 1385.  The linear structure (coefficients from the
 * optimized constants of poseidon.h) is precomputed once per arity, so
 * synthesis costs the witness (one optimized native hash) plus copying
 * terms. */
CUZK_MUST_CHECK int cuzk_poseidon_gadget(cuzk_cs *cs, cuzk_num *out, const cuzk_num *in, size_t n);
/* Same with an explicit domain tag (e.g. Custom(1) for SnapDeals), arity =
 * n (neptune asserts ConstantLength(L) has L = arity in this circuit). */
CUZK_MUST_CHECK int cuzk_poseidon_gadget_tagged(cuzk_cs *cs, cuzk_num *out, const cuzk_fr *tag,
                                const cuzk_num *in, size_t n);
/* Constraint count of the Poseidon gadget for arity n (0 if unsupported). */
size_t cuzk_poseidon_gadget_constraints(size_t n);

#ifdef __cplusplus
}
#endif
#endif
