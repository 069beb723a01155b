/* Validate parameter files once, remember it, and trust official files by
 * their digest.
 *
 * Checking every point of a params file (on the curve, in the subgroup)
 * costs ~44 us per G1 point: 27 s for the 45 MiB 2 KiB WinningPoSt params,
 * core-hours for 32 GiB ones.  A file needs it only once:
 *
 *  - Official Filecoin files (the names in parameters.json, compiled in) are
 *    trusted when their BLAKE2b-512 digest matches parameters.json -- the
 *    check Filecoin's own fetcher does.  An official name whose digest does
 *    not match is refused (a wrong but well-formed file would otherwise
 *    yield proofs that pass self-verification: the vk comes from the same
 *    file).  A file carrying our `<file>.test` marker under an official
 *    name is our own TEST params (`cuzk-bench setup` writes them so) --
 *    accepted as such only with allow_test_params (the daemon's
 *    srs.allow_test_params, off by default: otherwise a planted file and a
 *    planted marker would be trusted); without it, refused like any other
 *    wrong file of that name.
 *  - Any other file is point-validated once; a validation record
 *    (`<file>.cuzk-valid`: size, mtime, ctime, device, inode and the
 *    BLAKE2b digest) is then written next to it (temp file + rename), or
 *    into a state directory when the parameter directory is not writable.
 *    A record whose size/mtime/ctime/device/inode match skips the
 *    validation (ctime: an in-place write moves it even when the writer
 *    puts the mtime back); one whose metadata differ but whose digest
 *    (recomputed at disk speed) matches does too.  A version-1 record
 *    (without ctime and device) is never trusted by its metadata: only by
 *    a fresh hash that matches its digest (disk speed, no point
 *    validation), after which it is rewritten as version 2.
 *  - Files we generate ourselves (test params) are written together with
 *    their record: the writer made the points.
 *
 * Modes (`srs.validate`): "digest" (default) as above; "full" validates
 * every point at every load (and still refuses a wrong official digest);
 * "none" trusts every file.  The old booleans read as true = full, false =
 * none.
 *
 * State directory: the caller's, else $CUZK_STATE_DIR, else
 * $XDG_STATE_HOME/cuzk, else $HOME/.local/state/cuzk; records there are
 * named `<basename>.<hash of the directory>.cuzk-valid`.
 *
 * Thread-safety: every function may run concurrently on different files;
 * two writers of one record race benignly (each renames a whole file). */
#ifndef CUZK_SRS_TRUST_H
#define CUZK_SRS_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/groth16.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUZK_SRS_VALIDATE_NONE = 0,   /* trust every file: no checks (bool false) */
    CUZK_SRS_VALIDATE_FULL = 1,   /* validate every point at every load (bool true) */
    CUZK_SRS_VALIDATE_DIGEST = 2, /* official digest or a valid record, else full */
} cuzk_srs_validate;

/* "full" | "digest" | "none", also "true" (full) and "false" (none). */
CUZK_MUST_CHECK int cuzk_srs_validate_parse(cuzk_srs_validate *out, const char *s);
const char *cuzk_srs_validate_name(cuzk_srs_validate m);

/* Why a file was trusted. */
typedef enum {
    CUZK_SRS_TRUST_UNCHECKED = 0, /* mode none */
    CUZK_SRS_TRUST_OFFICIAL,      /* digest matches parameters.json */
    CUZK_SRS_TRUST_RECORD,        /* record matches size/mtime/ctime/dev/inode */
    CUZK_SRS_TRUST_RECORD_DIGEST, /* record's digest matches (file copied/touched) */
    CUZK_SRS_TRUST_VALIDATED,     /* every point validated now */
} cuzk_srs_trust;
const char *cuzk_srs_trust_name(cuzk_srs_trust t);

/* A file's identity: what "changed under us" compares (cuzk/mapguard.h). */
typedef cuzk_file_id cuzk_srs_file_id;

CUZK_MUST_CHECK int cuzk_srs_file_id_get(cuzk_srs_file_id *out, const char *path, char *err, size_t err_len);
/* CUZK_ERR_CHANGED with "params file P changed while in use: size A -> B,
 * inode I -> J" (or "... was removed") when path no longer is `was`. */
CUZK_MUST_CHECK int cuzk_srs_file_id_check(const cuzk_srs_file_id *was, const char *path, char *err,
                                           size_t err_len);

typedef struct cuzk_srs_load_info {
    cuzk_srs_trust how;
    cuzk_srs_file_id id; /* the file that was loaded */
    double digest_s;     /* seconds spent hashing (0 if not hashed) */
    double load_s;       /* seconds in cuzk_groth16_params_load */
    bool test_marker;    /* an official name with a `.test` marker (TEST params
                            when allowed, else the load was refused) */
    char note[320];      /* non-fatal: a record that could not be written */
} cuzk_srs_load_info;

/* Load params at path (opts as for cuzk_groth16_params_load; its NO_VALIDATE
 * flag is decided here) under mode, with records in/next to state_dir (NULL
 * = the default), TEST params under an official name refused, never
 * stopped (cuzk_srs_params_load_ex has those options).  Writes the record
 * after a successful validation.
 * CUZK_ERR_FORMAT for an official name with a wrong digest, CUZK_ERR_CHANGED
 * if the file changed during the load.  info may be NULL. */
CUZK_MUST_CHECK int cuzk_srs_params_load(cuzk_groth16_params **out, const char *path, cuzk_srs_validate mode,
                                         const char *state_dir, const cuzk_groth16_load_opts *opts,
                                         cuzk_srs_load_info *info);

/* cuzk_srs_params_load's options, and more. */
typedef struct cuzk_srs_load_opts {
    cuzk_srs_validate mode;
    const char *state_dir;  /* NULL = the default */
    bool allow_test_params; /* an official name with a `.test` marker is our
                               TEST params, not checked against parameters.json
                               (off: refused unless its digest is the official) */
    /* Polled before each 1 MiB read while the file is hashed; a nonzero
     * answer stops the load with that status ("hashing P stopped after N
     * of M MiB").  NULL: never stopped.  The engine stops at shutdown. */
    int (*stop)(void *ctx);
    void *stop_ctx;
} cuzk_srs_load_opts;
CUZK_MUST_CHECK int cuzk_srs_params_load_ex(cuzk_groth16_params **out, const char *path,
                                            const cuzk_srs_load_opts *so, const cuzk_groth16_load_opts *opts,
                                            cuzk_srs_load_info *info);

/* Record path as it is written for a file we made ourselves (we made the
 * points, so they are valid): hashes the file and writes its record. */
CUZK_MUST_CHECK int cuzk_srs_record_write(const char *path, const char *state_dir, char *err, size_t err_len);

/* parameters.json digest of an official file name (base name), or NULL. */
const char *cuzk_srs_official_digest(const char *name);

#ifdef __cplusplus
}
#endif

#endif
