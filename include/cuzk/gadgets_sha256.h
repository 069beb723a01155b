/* SHA-256 in R1CS with bellperson's exact constraint system (gadgets
 * uint32.rs, multieq.rs, sha256.rs; bellperson 0.27), and the Filecoin
 * SHA-256 hasher circuits built on it (filecoin-hashers sha256.rs): the
 * node hash of comm_d trees, PoRep labels and SnapDeals' tree D.  Same
 * allocation order, constraints, coefficients and order as Rust, so the
 * Groth16 parameters of the real circuits apply (filecoin-formats.md 8).
 *
 * Costs (asserted in Rust's tests, reproduced in tests/test_sha256_gadget.c):
 * one compression of 512 allocated bits 25,840; sha256() of 512 allocated
 * bits (two blocks, the second all padding) 44,874; an all-constant block
 * 0; hash_leaf_bits of 2 x 256 allocated bits 45,387.
 *
 * The ordering trap: every compression function runs in a fresh MultiEq,
 * which packs the equalities of its addmany calls into one constraint of
 * at most 253 bits and flushes it when the next equality would not fit
 * -- that is, AFTER the boolean constraints of the result bits of the
 * addmany that did not fit -- and once more at the end of the block.
 *
 * WITNESS mode (a cs that keeps assignments and records no constraint,
 * cuzk_cs_records_constraints false): cuzk_sha256_compress computes the
 * block natively on 32-bit words and hands the same aux values, in the same
 * order, to the cs in one cuzk_cs_alloc_bits, with the same constraint
 * count and the same output words (src/gadgets/sha256_witness.c; ~35x
 * fewer instructions; tests/test_fast_witness.c keeps it bit-identical).
 *
 * Conventions as gadgets.h: cs first, outputs next, inputs last; errors are
 * the cs's sticky status; values are computed in every mode but only
 * meaningful when cuzk_cs_needs_values(cs).  Not constant time in the
 * circuit structure (public); witness bits go through the boolean gadgets.
 * The MultiEq accumulator lives in thread-local storage (about 100 KB per
 * thread that hashes), so these gadgets allocate nothing. */
#ifndef CUZK_GADGETS_SHA256_H
#define CUZK_GADGETS_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/gadgets.h"
#include "cuzk/gadgets_por.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- UInt32 ---------------------------------------------------------------- */
/* bits least significant first; value = the integer the bits hold. */
typedef struct {
    cuzk_bool bits[32];
    uint32_t value;
} cuzk_u32;

void cuzk_u32_constant(cuzk_u32 *out, uint32_t value);
/* 32 allocated bits (LSB first), 32 constraints. */
CUZK_MUST_CHECK int cuzk_u32_alloc(cuzk_cs *cs, cuzk_u32 *out, uint32_t value);
/* from_bits_be: bits[0] is the most significant. */
void cuzk_u32_from_bits_be(cuzk_u32 *out, const cuzk_bool bits[32]);
/* into_bits_be: out[0] is the most significant. */
void cuzk_u32_into_bits_be(cuzk_bool out[32], const cuzk_u32 *a);
/* Rotation and shift only move bits (shr fills with constant false). */
void cuzk_u32_rotr(cuzk_u32 *out, const cuzk_u32 *a, unsigned by);
void cuzk_u32_shr(cuzk_u32 *out, const cuzk_u32 *a, unsigned by);
/* Bitwise with Boolean's constant folding (out may not alias inputs). */
CUZK_MUST_CHECK int cuzk_u32_xor(cuzk_cs *cs, cuzk_u32 *out, const cuzk_u32 *a, const cuzk_u32 *b);
CUZK_MUST_CHECK int cuzk_u32_sha256_ch(cuzk_cs *cs, cuzk_u32 *out, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c);
CUZK_MUST_CHECK int cuzk_u32_sha256_maj(cuzk_cs *cs, cuzk_u32 *out, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c);

/* ---- MultiEq ---------------------------------------------------------------- */
/* Packs equalities lhs_k = rhs_k of num_bits_k bits into one constraint
 * (sum 2^off_k lhs_k) * ONE = (sum 2^off_k rhs_k) while the total stays
 * below Fr::CAPACITY (254).  One per thread may be open at a time (its
 * accumulator is thread-local); open with begin, close with end (which
 * flushes, as Rust's Drop does).  Nested begin is CUZK_ERR_ARG. */
typedef struct cuzk_multieq cuzk_multieq;
CUZK_MUST_CHECK int cuzk_multieq_begin(cuzk_cs *cs, cuzk_multieq **me);
CUZK_MUST_CHECK int cuzk_multieq_end(cuzk_multieq *me);

/* UInt32::addmany of n (2..10) operands modulo 2^32: a constant if every
 * operand bit is constant, else bitlen(n * (2^32 - 1)) allocated result
 * bits (of which the low 32 are the result) and one MultiEq equality. */
CUZK_MUST_CHECK int cuzk_u32_addmany(cuzk_multieq *me, cuzk_u32 *out, const cuzk_u32 *ops, size_t n);

/* ---- SHA-256 ---------------------------------------------------------------- */
/* sha256_compression_function: out = compress(cur, in), in 512 bits with
 * in[0] the most significant bit of the first word. */
CUZK_MUST_CHECK int cuzk_sha256_compress(cuzk_cs *cs, cuzk_u32 out[8], const cuzk_bool in[512], const cuzk_u32 cur[8]);
/* sha256(): constant padding, then one compression per 512-bit block;
 * in has nbits bits (a multiple of 8, at most 2^20), out 256 digest bits,
 * out[0] the most significant bit of the first digest byte. */
CUZK_MUST_CHECK int cuzk_sha256(cuzk_cs *cs, cuzk_bool out[256], const cuzk_bool *in, size_t nbits);

/* ---- Filecoin Sha256Function circuits ---------------------------------------- */
/* hash_circuit: sha256(bits), digest bits reversed within each byte (LE
 * bit order), the first 254 packed into one new AllocatedNum (pack_bits). */
CUZK_MUST_CHECK int cuzk_fil_sha256_hash_circuit(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *bits, size_t nbits);
/* hash_leaf_bits_circuit: each side padded with constant false to whole
 * bytes, bits reversed within each byte, concatenated, hash_circuit.
 * nl, nr <= 256. */
CUZK_MUST_CHECK int cuzk_fil_sha256_hash_leaf_bits(cuzk_cs *cs, cuzk_num *out, const cuzk_bool *left, size_t nl,
                                   const cuzk_bool *right, size_t nr);
/* hash2_circuit / hash_multi_leaf_circuit of two numbers: to_bits_le of
 * each (256 constraints each), then hash_leaf_bits. */
CUZK_MUST_CHECK int cuzk_fil_sha256_hash2(cuzk_cs *cs, cuzk_num *out, const cuzk_num *a, const cuzk_num *b);

/* reverse_bit_numbering: pad bits[0..n) with constant false to whole bytes
 * and reverse the bit order inside each byte; out holds (n + 7) / 8 * 8. */
size_t cuzk_bits_reverse_bytes(cuzk_bool *out, const cuzk_bool *bits, size_t n);

#ifdef __cplusplus
}
#endif
#endif
