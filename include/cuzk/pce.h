/* Pre-compiled constraint evaluator (PCE): a circuit's R1CS recorded once
 * in a file, so that later proofs synthesize by witness generation only
 * (CUZK_CS_WITNESS: no linear combinations recorded) followed by a sparse
 * matrix-vector product that yields a, b, c and the density bitmaps --
 * exactly what a PROVE-mode cs holds.  See docs/pce.md.
 *
 * Contract:
 *  - cuzk_pce_extract runs the circuit once in SHAPE mode and streams every
 *    constraint (cuzk_cs_set_row_observer) into `path`: memory stays
 *    O(variables / 8) plus the coefficient dictionary.  The file is written
 *    to a temporary name in the same directory and renamed, so a reader
 *    never sees a partial file.
 *  - cuzk_pce_open maps a file and trusts nothing in it: header, section
 *    bounds, the SHA-256 of header and body (CUZK_ERR_FORMAT with the reason
 *    when any fails) and the identity (CUZK_ERR_CHANGED when it is another
 *    circuit's or another format version's file: rebuild it).
 *  - cuzk_pce_evaluate turns a finished WITNESS-mode cs into one that is
 *    indistinguishable from the same circuit synthesized in PROVE mode
 *    (evaluations, density, nonzero counts), so cuzk_groth16_witness_from_cs
 *    and take_evals work unchanged.  It bounds-checks every column and
 *    coefficient code again (a file is never trusted, even a verified one).
 *  - A file that changes while open: every read of the map (checksums and
 *    sections at open, the records in check and evaluate, the density
 *    maps) runs under cuzk_map_guard_run (cuzk/mapguard.h), so that once
 *    cuzk_map_guard_install has been called, a file truncated under us
 *    fails that call with CUZK_ERR_CHANGED ("PCE file X changed while in
 *    use: size A -> B, inode I -> J[, modified]") instead of killing the
 *    process; any failure of a file that no longer is the one opened
 *    (stat: size, inode, device, mtime) is reported as that change.  A
 *    rewrite that keeps the size is not seen by the reads: callers that
 *    keep a cuzk_pce open ask cuzk_pce_unchanged before each use.
 *  - Library code: no threads; parallel work goes through the caller's
 *    cuzk_par (NULL = the calling thread). */
#ifndef CUZK_PCE_H
#define CUZK_PCE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/par.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_PCE_VERSION 2u /* 2: the R1CS digest; version 1 files are stale */
#define CUZK_PCE_ID_MAX 255 /* identity string length, without the NUL */

/* Circuit kinds (recorded in the header, checked on open). */
enum {
    CUZK_PCE_KIND_OTHER = 0, /* tests, chain, circom imports */
    CUZK_PCE_KIND_POREP = 1,
    CUZK_PCE_KIND_WINNING_POST = 2,
    CUZK_PCE_KIND_WINDOW_POST = 3,
    CUZK_PCE_KIND_SNAP = 4,
};

/* Which circuit a file belongs to: kind, registered proof (0 if none) and
 * a shape identity string free of per-sector data (the parameter id for
 * Filecoin circuits, which names the params file too). */
typedef struct {
    uint32_t kind;
    uint64_t registered_proof;
    char id[CUZK_PCE_ID_MAX + 1];
} cuzk_pce_identity;

typedef struct {
    cuzk_pce_identity identity;
    uint32_t version;
    size_t constraints, inputs, aux;
    size_t nnz[3];
    size_t a_aux_density, b_input_density, b_aux_density; /* popcounts */
    size_t dict;                                          /* coefficients outside 0, +-2^k */
    size_t class_counts[4]; /* entries that are 0, +-1, +-2^k (k >= 1), dictionary */
    uint64_t file_bytes, record_bytes;
    uint8_t r1cs_digest[32]; /* see cuzk_pce_digest */
} cuzk_pce_info;

typedef struct cuzk_pce cuzk_pce;

/* Progress of an extraction: constraints recorded so far (called every
 * 2^20 constraints and once at the end).  A non-zero return stops the
 * extraction, which returns that status (nothing is left behind). */
typedef int (*cuzk_pce_progress_fn)(void *ctx, size_t constraints);

/* Record circuit fn(ctx) into path (see above).  fn must accept a SHAPE-mode
 * cs (values NULL).  info (may be NULL) receives the file's summary. */
CUZK_MUST_CHECK int cuzk_pce_extract(const char *path, const cuzk_pce_identity *id, cuzk_circuit_fn fn, void *ctx,
                     cuzk_pce_progress_fn progress, void *progress_ctx, cuzk_pce_info *info, char *err,
                     size_t err_len);

/* The R1CS digest an extraction of fn(ctx) by this build records (info's
 * r1cs_digest): SHA-256 over the counts and the encoded matrices, density
 * and dictionary, computed by the extraction's own SHAPE-mode pass without
 * writing a file.  Its cost is the extraction's less the writes (one
 * SHAPE synthesis and one SHA-256 of the would-be file): callers that open
 * a file repeatedly compute it once per circuit and keep it. */
CUZK_MUST_CHECK int cuzk_pce_digest(uint8_t out[32], cuzk_circuit_fn fn, void *ctx, cuzk_pce_progress_fn progress,
                                    void *progress_ctx, char *err, size_t err_len);

/* Map and verify path.  expect NULL accepts any circuit (the `pce info`
 * and `pce verify` tools); otherwise a different kind, registered proof or
 * id is CUZK_ERR_CHANGED.  CUZK_ERR_IO when it cannot be read (missing:
 * CUZK_ERR_IO with errno ENOENT left in errno; a symbolic link is not
 * followed: ELOOP; not a regular file: CUZK_ERR_IO too).  A version 1 file
 * (no R1CS digest) is CUZK_ERR_CHANGED: stale. */
CUZK_MUST_CHECK int cuzk_pce_open(cuzk_pce **out, const char *path, const cuzk_pce_identity *expect, char *err,
                  size_t err_len);
/* cuzk_pce_open, and r1cs_digest (from cuzk_pce_digest; NULL: not checked)
 * must equal the file's: otherwise CUZK_ERR_CHANGED ("recorded from other
 * matrices ...": a file of another build, or a planted one).  Checked
 * before the body's SHA-256, so a stale file costs one header read. */
CUZK_MUST_CHECK int cuzk_pce_open_digest(cuzk_pce **out, const char *path, const cuzk_pce_identity *expect,
                                         const uint8_t r1cs_digest[32], char *err, size_t err_len);
void cuzk_pce_close(cuzk_pce *p);
void cuzk_pce_get_info(const cuzk_pce *p, cuzk_pce_info *out);

/* CUZK_OK when the file at p's path is still the one opened (size, inode,
 * device, mtime); otherwise CUZK_ERR_CHANGED with the message above ("...
 * was removed" style when it is gone).  One stat(2). */
CUZK_MUST_CHECK int cuzk_pce_unchanged(const cuzk_pce *p, char *err, size_t err_len);

/* cs: a finished WITNESS-mode system of the recorded circuit (counts must
 * match: CUZK_ERR_ARG otherwise).  On success cs is a finished PROVE-mode
 * system.  On failure cs is unchanged apart from possibly allocated, unused
 * evaluation arrays. */
CUZK_MUST_CHECK int cuzk_pce_evaluate(const cuzk_pce *p, cuzk_cs *cs, cuzk_par *par, char *err, size_t err_len);

/* Decode every record without a witness: each column within the recorded
 * inputs and aux, each code within the dictionary, each chunk ending at
 * its checkpoint, and the per-matrix nonzeros equal to the header's
 * (CUZK_ERR_FORMAT naming the constraint otherwise).  `pce verify` runs it
 * after cuzk_pce_open. */
CUZK_MUST_CHECK int cuzk_pce_check(const cuzk_pce *p, cuzk_par *par, char *err, size_t err_len);

/* Row weights for cuzk_pce_column_sums: w[i] = the weight of row rows[i]
 * for i < n (rows ascending, distinct); tmp: n scratch elements.  Called
 * from the tasks of the caller's cuzk_par, possibly concurrently.  A
 * non-zero return stops the sums, which return that status. */
typedef int (*cuzk_pce_row_weight_fn)(void *ctx, const uint64_t *rows, size_t n, cuzk_fr *w, cuzk_fr *tmp);

/* Weighted column sums of the recorded matrices over the columns [c0, c1)
 * of the global numbering (inputs 0 .. inputs - 1, then aux):
 *     out[k][j - c0] = sum_i M_k[i][j] weight(i),   k = A, B, C,
 * each out[k] holding c1 - c0 elements (overwritten).  Only the weights of
 * rows with an entry in the range are asked for.  Memory: the outputs plus
 * ~2 MB per task, so a caller bounds it by the range (the setup sums a few
 * ranges over the whole file).  Decoded with the checks of cuzk_pce_check
 * (CUZK_ERR_FORMAT / CHANGED as there).  One task per thread of par. */
CUZK_MUST_CHECK int cuzk_pce_column_sums(const cuzk_pce *p, size_t c0, size_t c1, cuzk_fr *out[3],
                                         cuzk_pce_row_weight_fn fn, void *ctx, cuzk_par *par, char *err,
                                         size_t err_len);

/* The file's density bitmaps, as the prover uses them: maps[0] a_aux (aux
 * bits), maps[1] b_input (input bits), maps[2] b_aux (aux bits); u64 words,
 * malloc'd (the caller frees them). */
CUZK_MUST_CHECK int cuzk_pce_density_copy(const cuzk_pce *p, uint64_t *maps[3], char *err, size_t err_len);

/* Whether dir may hold PCE files that this process opens and writes
 * (src/r1cs/pce_dir.c, docs/pce.md "Trust in the engine"): every component
 * of its canonical path up to "/" owned by us (effective uid) or root and
 * not writable by group or others -- OpenSSH's safe_path -- except that a
 * writable parent with the sticky bit (/tmp) is accepted when the entry
 * below it on the path passed; dir itself is never accepted writable.  A
 * dir that does not exist yet is judged by its existing ancestors (check
 * again after creating it).  CUZK_ERR_ARG with the reason when refused,
 * CUZK_ERR_IO when a component cannot be examined. */
CUZK_MUST_CHECK int cuzk_pce_dir_check(const char *dir, char *err, size_t err_len);

/* ---- Filecoin circuits (src/engine/pce_cache.c) ------------------------------ */

/* The blank circuit (SHAPE mode) and PCE identity of a daemon circuit id
 * (porep-32g, winning-2k, wpost-32g, snap-32g, ...; chain-N of the engine's
 * test provider): kind, the first
 * registered proof with that id, and the id itself.  *ctx is malloc'd: the
 * caller frees it.  CUZK_ERR_ARG for an unknown id. */
CUZK_MUST_CHECK int cuzk_pce_filecoin_circuit(const char *circuit_id, cuzk_pce_identity *id, cuzk_circuit_fn *fn, void **ctx,
                              char *err, size_t err_len);
/* The daemon circuit id of a kind (CUZK_PCE_KIND_*) and sector size, or
 * CUZK_ERR_ARG. */
CUZK_MUST_CHECK int cuzk_pce_filecoin_circuit_id(char out[64], uint32_t kind, uint64_t sector_size);

#ifdef __cplusplus
}
#endif
#endif
