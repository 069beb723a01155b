/* One reader (and writer) of bincode 1.x with the default options Rust's
 * filecoin crates use -- little endian, u64 lengths, u32 enum tags -- for
 * the two vanilla-proof formats that carry storage-proofs-core's
 * MerkleProof / InclusionPath: the PoSt FallbackPoStSectorProof
 * (src/fil/vanilla.c) and the SnapDeals PartitionProof
 * (src/seal/snap_parse.c).  Internal to libcuzk: the fil layer and the
 * layers above it (seal) include it as "fil/bincode.h".
 *
 * Contract:
 *  - Every read is bounds-checked against what is left of the buffer and
 *    fails with CUZK_ERR_FORMAT and a message that starts with the
 *    reader's subject ("vanilla proof", "snap proof"), names the field path
 *    (r->field plus the name given) and the byte offset, e.g. "snap proof
 *    truncated at byte 296 reading challenge_proofs.len (need 8 bytes, 4
 *    left)".  Nothing is read past buf + len, whatever the input.
 *  - A length prefix is checked before the caller allocates for it:
 *    against an expected value (CUZK_FIL_BC_ANY: none), a caller-given
 *    maximum, and the bytes left at a known minimum encoded size per
 *    element, so garbage cannot make a parser allocate more than a small
 *    multiple of its input.
 *  - Parsers run two passes over the same bytes: pass 1 (fill false)
 *    validates and counts path levels and hash bytes (n_levels, n_hash);
 *    the caller allocates once; pass 2 (fill true) copies path indices and
 *    hashes into idx / hash at those running offsets.  Reads copy into an
 *    output only when it is non-NULL.
 *  - The field path is a small stack: push returns a mark, pop restores
 *    it.  It is clamped to its buffer (paths are far shorter).
 *  - The writer functions write exactly what the reader accepts; the
 *    caller sizes the buffer with cuzk_fil_bc_merkle_size.
 * Nothing here is constant time (public data). */
#ifndef CUZK_FIL_BINCODE_H
#define CUZK_FIL_BINCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin.h"
#include "cuzk/status.h"

#define CUZK_FIL_BC_ANY UINT64_MAX   /* a count with no expected value */
#define CUZK_FIL_BC_ANY32 UINT32_MAX /* a shape entry with no expected value */

typedef struct {
    const uint8_t *buf;
    size_t len, pos;
    const char *subject; /* first words of every message */
    char *err;
    size_t err_len;
    bool canonical;      /* 32-byte elements must be canonical Fr (< r) */
    uint64_t max_levels; /* most levels of one InclusionPath */
    bool fill;           /* pass 2: copy path indices and hashes */
    uint64_t *idx;       /* pass 2: every path's indices, in order */
    uint8_t *hash;       /* pass 2: every path's hashes, in order */
    size_t n_levels, n_hash;
    size_t flen;
    char field[200];
} cuzk_fil_bc;

/* Expected shape of one MerkleProof; CUZK_FIL_BC_ANY32 entries are free.
 * levels / arity per path: base, sub, top.  A tag other than `kind` fails
 * with "... is a Sub MerkleProof (tag 1 at byte N), <rule> Single". */
typedef struct {
    uint32_t kind;
    uint32_t levels[3], arity[3];
    const char *rule;
} cuzk_fil_bc_shape;

/* A reader at byte 0 of buf with an empty field path and no counts;
 * canonical false, max_levels 0 (no path may have a level): the caller
 * sets both. */
void cuzk_fil_bc_init(cuzk_fil_bc *r, const char *subject, const uint8_t *buf, size_t len, char *err,
                      size_t err_len);

/* Append a printf-formatted segment to the field path; returns the mark
 * that cuzk_fil_bc_pop restores. */
size_t cuzk_fil_bc_push(cuzk_fil_bc *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cuzk_fil_bc_pop(cuzk_fil_bc *r, size_t mark);

/* "<subject>: <formatted>" into err; returns status. */
int cuzk_fil_bc_fail(const cuzk_fil_bc *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

CUZK_MUST_CHECK int cuzk_fil_bc_u32(cuzk_fil_bc *r, uint32_t *v, const char *name);
CUZK_MUST_CHECK int cuzk_fil_bc_u64(cuzk_fil_bc *r, uint64_t *v, const char *name);
/* n 32-byte domain elements into out (NULL: skipped); with r->canonical
 * each must be < r (CUZK_ERR_ENC_NONCANONICAL naming "name[i]"). */
CUZK_MUST_CHECK int cuzk_fil_bc_elems(cuzk_fil_bc *r, uint8_t *out, size_t n, const char *name);
/* A u64 length prefix n: = want (unless CUZK_FIL_BC_ANY), <= max, and
 * n elements of at least min_size (>= 1) bytes each fit in what is left;
 * checked in that order, before the caller allocates for n. */
CUZK_MUST_CHECK int cuzk_fil_bc_count(cuzk_fil_bc *r, uint64_t *n, uint64_t want, uint64_t max,
                                      size_t min_size, const char *name);
/* Nothing may follow the value: "<n> trailing bytes after the proof". */
CUZK_MUST_CHECK int cuzk_fil_bc_end(const cuzk_fil_bc *r);

/* One MerkleProof: u32 tag (0 Single, 1 Sub, 2 Top); Single is root,
 * leaf, path; Sub / Top are base_proof, sub_proof[, top_proof], root,
 * leaf.  Each InclusionPath has levels <= r->max_levels, every level the
 * same number of hashes (an arity Poseidon supports) and index < arity.
 * want NULL: any shape (with a kind, want->rule words the mismatch).
 * out: NULL in pass 1, required in pass 2 (written only then). */
CUZK_MUST_CHECK int cuzk_fil_bc_merkle(cuzk_fil_bc *r, cuzk_fil_merkle_proof *out,
                                       const cuzk_fil_bc_shape *want);

/* ---- writer ---------------------------------------------------------------- */

void cuzk_fil_bc_put_u64(uint8_t *p, uint64_t v);
/* Whether p can be written: a known kind, every used path with arity >= 2
 * and its arrays. */
bool cuzk_fil_bc_merkle_ok(const cuzk_fil_merkle_proof *p);
/* Encoded size of p (p->kind <= CUZK_FIL_PROOF_TOP). */
size_t cuzk_fil_bc_merkle_size(const cuzk_fil_merkle_proof *p);
/* Write p (cuzk_fil_bc_merkle_ok) at o; returns the byte after it. */
uint8_t *cuzk_fil_bc_put_merkle(uint8_t *o, const cuzk_fil_merkle_proof *p);

#endif
