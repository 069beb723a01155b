/* circom 2 import: .r1cs (constraint system) and .wtns (witness) files,
 * run through the ordinary cuzk_cs (cuzk/r1cs.h) as a circuit.
 *
 * Formats (iden3 binary files, all integers little endian): magic (4 bytes,
 * "r1cs" / "wtns"), u32 version, u32 section count, then sections
 * {u32 type, u64 size, payload}.
 *  .r1cs v1: type 1 header {u32 n8, prime (n8 bytes), u32 nWires, u32 nPubOut,
 *            u32 nPubIn, u32 nPrvIn, u64 nLabels, u32 nConstraints};
 *            type 2 constraints: per constraint A, B, C, each
 *            {u32 nTerms, nTerms x (u32 wire, coefficient n8 bytes)};
 *            type 3 wire-to-label map: nWires x u64.  Types 4 and 5 (PLONK
 *            custom gates) are rejected; other types are skipped.
 *  .wtns v2: type 1 header {u32 n8, prime, u32 nValues}; type 2 values
 *            (nValues x n8 bytes).
 * Field elements are canonical little-endian integers; the prime must be
 * the BLS12-381 scalar field r (circom --prime bls12381).
 *
 * Wire numbering: circom wire 0 is ONE, then the public outputs, the public
 * inputs, the private inputs and the internal signals.  Wires
 * 0 .. nPubOut+nPubIn become cs inputs 0 .. nPub (so ONE = input 0 and the
 * public signals keep their order: outputs first, as snarkjs's public.json),
 * the remaining wires become aux 0, 1, ... in wire order.  The unified CSR
 * index (r1cs.h) of every variable therefore equals its circom wire.
 *
 * Every size field is validated against the bytes present; errors are
 * CUZK_ERR_FORMAT (malformed, truncated), CUZK_ERR_UNSUPPORTED (another
 * prime, another version, custom gates), CUZK_ERR_ENC_NONCANONICAL
 * (a value >= r), CUZK_ERR_IO or CUZK_ERR_NOMEM, with a message in the
 * caller's err buffer (may be NULL). */
#ifndef CUZK_CIRCOM_H
#define CUZK_CIRCOM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/r1cs.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels;
    /* constraint i side k (0 A, 1 B, 2 C) is terms[lc[3i+k] .. lc[3i+k+1]),
     * variables already mapped to cuzk_var as described above */
    size_t *lc;          /* 3 * n_constraints + 1 offsets */
    cuzk_term *terms;
    size_t n_terms;
    cuzk_fr *witness;    /* n_wires values after a .wtns was attached, else NULL */
} cuzk_circom;

CUZK_MUST_CHECK int cuzk_circom_r1cs_parse(cuzk_circom **out, const uint8_t *buf, size_t len, char *err,
                           size_t err_len);
CUZK_MUST_CHECK int cuzk_circom_r1cs_load(cuzk_circom **out, const char *path, char *err, size_t err_len);
/* Attach a witness: its count must equal n_wires and value 0 must be 1. */
CUZK_MUST_CHECK int cuzk_circom_wtns_parse(cuzk_circom *c, const uint8_t *buf, size_t len, char *err, size_t err_len);
CUZK_MUST_CHECK int cuzk_circom_wtns_load(cuzk_circom *c, const char *path, char *err, size_t err_len);
void cuzk_circom_free(cuzk_circom *c);

/* Circuit function for cuzk_cs_synthesize; ctx is a const cuzk_circom *.
 * Modes that need values need an attached witness.  Must run on a fresh
 * cs (only ONE allocated). */
CUZK_MUST_CHECK int cuzk_circom_circuit(cuzk_cs *cs, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
