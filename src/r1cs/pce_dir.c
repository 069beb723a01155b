/* Whether a directory is safe to keep PCE files in (cuzk/pce.h,
 * cuzk_pce_dir_check).  A PCE file decides what the prover computes and the
 * daemon writes into its directory, often as root: a directory that another
 * local user can write to, or replace, lets that user plant a file or have
 * us write through a link of theirs.
 *
 * The rule is OpenSSH's safe_path (auth.c): every component of the
 * canonical path, from the directory up to "/", must be owned by us or by
 * root and not writable by group or others -- with one exception that
 * OpenSSH does not make and that the common layouts need (/tmp, /var/tmp):
 * a group/other-writable *parent* is accepted when it has the sticky bit and
 * the entry below it on our path passed the rule (owned by us or root, not
 * group/other-writable).  The sticky bit stops others from renaming or
 * removing that entry, which is what a writable parent would otherwise let
 * them do; the entry itself being ours and closed stops the rest.  The PCE
 * directory itself is never accepted writable by group/others, sticky or
 * not, and two writable components in a row are refused.
 *
 * A directory that does not exist yet is judged by its existing ancestors
 * (it will be created by us, 0755); the caller checks again once it exists,
 * since someone may create it first. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/pce.h"

static bool trusted_owner(uid_t owner)
{
    return owner == 0 || owner == geteuid();
}

/* The longest existing prefix of dir, canonical (realpath), into out;
 * *missing: whether some trailing component does not exist. */
static int existing_prefix(char *out, const char *dir, bool *missing, char *err, size_t err_len)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: path too long", dir);
    *missing = false;
    for (;;) {
        if (realpath(buf, out)) return CUZK_OK;
        if (errno != ENOENT) return cuzk_errf(err, err_len, CUZK_ERR_IO, "%s: %s", buf, strerror(errno));
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf) { /* "name" or "/name": relative to "." or "/" */
            snprintf(buf, sizeof buf, "%s", slash ? "/" : ".");
        } else {
            *slash = 0;
        }
        *missing = true;
    }
}

static void parent_of(char *p)
{
    char *slash = strrchr(p, '/');
    if (slash == p)
        p[1] = 0; /* "/x" -> "/" */
    else if (slash)
        *slash = 0;
}

int cuzk_pce_dir_check(const char *dir, char *err, size_t err_len)
{
    if (!dir || !*dir) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "PCE directory: empty path");
    char p[PATH_MAX];
    bool missing = false;
    int st = existing_prefix(p, dir, &missing, err, err_len);
    if (st) return st;
    /* whether the entry below the current component (on our path) is
     * group/other-writable; a missing tail is created by us, closed */
    bool below_writable = false, first = !missing;
    for (;;) {
        struct stat sb;
        if (stat(p, &sb)) return cuzk_errf(err, err_len, CUZK_ERR_IO, "%s: %s", p, strerror(errno));
        if (!S_ISDIR(sb.st_mode))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "PCE directory %s: %s is not a directory", dir, p);
        if (!trusted_owner(sb.st_uid))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "PCE directory %s refused: %s is owned by uid %u (neither us, uid %u, nor root)",
                             dir, p, (unsigned)sb.st_uid, (unsigned)geteuid());
        bool writable = (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0;
        if (writable && (first || !(sb.st_mode & S_ISVTX) || below_writable))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "PCE directory %s refused: %s is writable by %s (mode %04o%s)", dir, p,
                             (sb.st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(sb.st_mode & 07777),
                             first                    ? ""
                             : (sb.st_mode & S_ISVTX) ? ", sticky, above another writable directory"
                                                      : ", without the sticky bit");
        if (!strcmp(p, "/") || !strcmp(p, ".")) return CUZK_OK;
        below_writable = writable;
        first = false;
        parent_of(p);
    }
}
