/* Reads of memory-mapped files that survive the file changing under them.
 *
 * A file mapped with MAP_SHARED that is truncated while mapped (a download
 * or an extraction rewriting it in place, a copy over it, a full disk)
 * raises SIGBUS when a page past its new end is touched; the default action
 * kills the process with every job in it.  Every layer that maps a file
 * (groth16 params, r1cs PCE files) reads the map only inside
 * cuzk_map_guard_run / cuzk_map_guard_copy, which turn such a fault into
 * CUZK_ERR_CHANGED.
 *
 * Contract:
 *  - cuzk_map_guard_install installs the process-wide SIGBUS handler (once;
 *    later calls only report the first call's outcome).  The library never
 *    calls it: a handler is process state, so the engine calls it before it
 *    maps a file and the tools that map call it too.  Without it a fault
 *    keeps its default action (the process dies, as it would without us).
 *    A SIGBUS that no armed recovery point claims (another address, another
 *    thread, kill -BUS) goes to the handler installed before ours, or, if
 *    that was the default, kills the process as before.
 *  - cuzk_map_guard_run(lo, len, fn, arg) runs fn(arg) on the calling
 *    thread with a recovery point for [lo, lo + len): CUZK_OK when fn
 *    returns, CUZK_ERR_CHANGED when a SIGBUS at an address in that range
 *    stopped it.  fn may be abandoned at any instruction, so it must be a
 *    leaf: no locks, no allocation, no stdio, no calls into a cuzk_par --
 *    only reads of the map and writes to memory the caller owns.  Guards
 *    nest per thread (the innermost one covering the address wins); each
 *    thread of a parallel loop arms its own.  Cost: one sigsetjmp without a
 *    mask save and two thread-local stores per call.
 *  - cuzk_map_guard_copy: memcpy(dst, src, n) run so.
 *  - Async-signal-safety: the handler only compares addresses and jumps.
 *  - cuzk_file_id: what "changed while in use" compares (size, inode,
 *    device, mtime): taken when a file is mapped, checked when a read
 *    failed or before a use, so that the message says what happened. */
#ifndef CUZK_MAPGUARD_H
#define CUZK_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUZK_ERR_IO with the reason when sigaction fails. */
CUZK_MUST_CHECK int cuzk_map_guard_install(char *err, size_t err_len);
bool cuzk_map_guard_installed(void);

CUZK_MUST_CHECK int cuzk_map_guard_run(const void *lo, size_t len, void (*fn)(void *), void *arg);
CUZK_MUST_CHECK int cuzk_map_guard_copy(void *dst, const void *src, size_t n, const void *lo, size_t len);

/* ctime_ns is kept for validation records (cuzk/srs_trust.h): an in-place
 * write moves it even when the writer restores the mtime.  The "changed
 * while in use" check compares size, inode, device and mtime only. */
typedef struct cuzk_file_id {
    uint64_t size, ino, dev;
    int64_t mtime_ns, ctime_ns;
} cuzk_file_id;

/* fstat(fd), or stat(path) when fd < 0; CUZK_ERR_IO "path: reason". */
CUZK_MUST_CHECK int cuzk_file_id_get(cuzk_file_id *out, const char *path, int fd, char *err, size_t err_len);
/* CUZK_OK when path still is `was`; otherwise CUZK_ERR_CHANGED with
 * "<what> file P changed while in use: size A -> B, inode I -> J[,
 * modified]", or "...: <reason> (was A bytes, inode I)" when it cannot be
 * stat'ed (removed).  what: "params", "PCE", ... */
CUZK_MUST_CHECK int cuzk_file_id_check(const cuzk_file_id *was, const char *path, const char *what, char *err,
                                       size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
