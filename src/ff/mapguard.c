/* Recovery from SIGBUS inside mapped files (cuzk/mapguard.h).
 *
 * A mapped file (WARM params, a PCE) that is truncated while mapped (a
 * re-download in place, a copy over it, a full disk) raises SIGBUS when a
 * page past the new end is touched, whose default action kills the process
 * with every queued job.  Every read of a mapped file goes through
 * cuzk_map_guard_run / cuzk_map_guard_copy: they push a recovery point
 * (sigjmp_buf and the mapped range) on a thread-local stack for the
 * duration of a short leaf computation (a decode task: no locks, no
 * allocation, no calls into the pool), and the handler jumps back to it
 * when the faulting address lies in that range; the read then fails with
 * CUZK_ERR_CHANGED.  Here, in the base layer, so that every layer that maps
 * (r1cs below groth16) can use it.
 *
 * The library installs no handler by itself: cuzk_map_guard_install is
 * called by the engine before it maps a file, and by the tools that map.
 * Without it a fault keeps its default action.  A SIGBUS that no armed
 * recovery point claims goes to the handler that was installed before ours,
 * or, if that was the default, kills the process as before.
 *
 * Also here: the file identity (cuzk_file_id) that the layers keep for a
 * mapped file, so that a failed read can say how the file changed.
 *
 * sigsetjmp does not save the signal mask (no syscall per task); the handler
 * runs with SA_NODEFER so that SIGBUS is not left blocked after the jump. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/mapguard.h"

typedef struct map_guard {
    sigjmp_buf jb;
    const uint8_t *lo, *hi;
    struct map_guard *prev;
} map_guard;

static _Thread_local map_guard *guard_top;
static struct sigaction prev_action;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_errno = -1; /* -1: never installed, 0: installed */

static void chain_previous(int sig, siginfo_t *si, void *uc)
{
    if (prev_action.sa_flags & SA_SIGINFO) {
        if (prev_action.sa_sigaction) {
            prev_action.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (prev_action.sa_handler != SIG_DFL && prev_action.sa_handler != SIG_IGN) {
        prev_action.sa_handler(sig);
        return;
    }
    /* Default action: restore it.  A fault repeats when the access is
     * retried on return; a signal sent by kill() must be raised again. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGBUS, &dfl, NULL);
    if (!si || si->si_code <= 0) raise(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    map_guard *g = guard_top;
    const uint8_t *a = si ? (const uint8_t *)si->si_addr : NULL;
    if (g && si && si->si_code > 0 && a >= g->lo && a < g->hi) siglongjmp(g->jb, 1);
    chain_previous(sig, si, uc);
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    install_errno = sigaction(SIGBUS, &sa, &prev_action) ? errno : 0;
}

int cuzk_map_guard_install(char *err, size_t err_len)
{
    pthread_once(&install_once, install);
    if (install_errno)
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot install the SIGBUS handler: %s",
                         strerror(install_errno));
    return CUZK_OK;
}

bool cuzk_map_guard_installed(void)
{
    return install_errno == 0;
}

int cuzk_map_guard_run(const void *lo, size_t len, void (*fn)(void *), void *arg)
{
    map_guard g;
    g.lo = lo;
    g.hi = (const uint8_t *)lo + len;
    g.prev = guard_top;
    if (sigsetjmp(g.jb, 0)) {
        guard_top = g.prev;
        return CUZK_ERR_CHANGED;
    }
    guard_top = &g;
    fn(arg);
    guard_top = g.prev;
    return CUZK_OK;
}

typedef struct {
    void *dst;
    const void *src;
    size_t n;
} copy_job;

static void copy_fn(void *arg)
{
    copy_job *c = arg;
    memcpy(c->dst, c->src, c->n);
}

int cuzk_map_guard_copy(void *dst, const void *src, size_t n, const void *lo, size_t len)
{
    copy_job c = {dst, src, n};
    return cuzk_map_guard_run(lo, len, copy_fn, &c);
}

/* ---- file identity ---------------------------------------------------------- */

static void id_of(cuzk_file_id *id, const struct stat *sb)
{
    id->size = (uint64_t)sb->st_size;
    id->ino = (uint64_t)sb->st_ino;
    id->dev = (uint64_t)sb->st_dev;
    id->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
    id->ctime_ns = (int64_t)sb->st_ctim.tv_sec * 1000000000 + sb->st_ctim.tv_nsec;
}

int cuzk_file_id_get(cuzk_file_id *out, const char *path, int fd, char *err, size_t err_len)
{
    struct stat sb;
    if ((fd >= 0 ? fstat(fd, &sb) : stat(path, &sb)) != 0)
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    id_of(out, &sb);
    return CUZK_OK;
}

int cuzk_file_id_check(const cuzk_file_id *was, const char *path, const char *what, char *err, size_t err_len)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cuzk_errf(err, err_len, CUZK_ERR_CHANGED,
                         "%s file %s changed while in use: %s (was %" PRIu64 " bytes, inode %" PRIu64 ")",
                         what, path, strerror(errno), was->size, was->ino);
    cuzk_file_id now;
    id_of(&now, &sb);
    if (now.size == was->size && now.ino == was->ino && now.dev == was->dev && now.mtime_ns == was->mtime_ns)
        return CUZK_OK;
    return cuzk_errf(err, err_len, CUZK_ERR_CHANGED,
                     "%s file %s changed while in use: size %" PRIu64 " -> %" PRIu64 ", inode %" PRIu64
                     " -> %" PRIu64 "%s",
                     what, path, was->size, now.size, was->ino, now.ino,
                     now.mtime_ns != was->mtime_ns ? ", modified" : "");
}
