/* Validation records and official digests: see cuzk/srs_trust.h.
 *
 * A record is one text line, so an operator can read it:
 *   cuzk-valid 2 size=47245320 mtime_ns=1733... ctime_ns=1733... dev=2049
 *     ino=1234 blake2b=<32 hex> NAME
 * It is trusted only as far as it proves something: its metadata (size,
 * mtime, ctime, device, inode -- ctime because an in-place write that puts
 * the mtime back still moves it) must match the file, else its digest must
 * match a fresh hash (always so for a version-1 record, which has no ctime
 * or device); and for an official
 * name its digest must also be parameters.json's.  Records are written to a
 * temporary name and renamed, so a reader never sees half a record. */
#define _GNU_SOURCE
#include "cuzk/srs_trust.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/filecoin.h"
#include "engine/srs_trust_internal.h"

#define RECORD_EXT ".cuzk-valid"

static const char *const mode_names[3] = {"none", "full", "digest"};

int cuzk_srs_validate_parse(cuzk_srs_validate *out, const char *s)
{
    if (!out || !s) return CUZK_ERR_ARG;
    for (int m = 0; m < 3; m++)
        if (!strcmp(s, mode_names[m])) {
            *out = (cuzk_srs_validate)m;
            return CUZK_OK;
        }
    if (!strcmp(s, "true"))
        *out = CUZK_SRS_VALIDATE_FULL;
    else if (!strcmp(s, "false"))
        *out = CUZK_SRS_VALIDATE_NONE;
    else
        return CUZK_ERR_ARG;
    return CUZK_OK;
}

const char *cuzk_srs_validate_name(cuzk_srs_validate m)
{
    return (unsigned)m < 3 ? mode_names[m] : "?";
}

const char *cuzk_srs_trust_name(cuzk_srs_trust t)
{
    static const char *const n[] = {"unchecked (srs.validate = none)", "official digest", "validation record",
                                    "validation record (digest)", "validated"};
    return (unsigned)t < 5 ? n[t] : "?";
}

/* ---- file identity ------------------------------------------------------------ */

int cuzk_srs_file_id_get(cuzk_srs_file_id *out, const char *path, char *err, size_t err_len)
{
    return cuzk_file_id_get(out, path, -1, err, err_len);
}

int cuzk_srs_file_id_check(const cuzk_srs_file_id *was, const char *path, char *err, size_t err_len)
{
    return cuzk_file_id_check(was, path, "params", err, err_len);
}

const char *cuzk_srs_official_digest(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (size_t i = 0; i < cuzk_srs_official_count; i++)
        if (!strcmp(cuzk_srs_official[i].name, base)) return cuzk_srs_official[i].digest;
    return NULL;
}

/* ---- record locations ----------------------------------------------------------- */

static const char *default_state_dir(char *buf, size_t cap)
{
    const char *e = getenv("CUZK_STATE_DIR");
    if (e && *e) return e;
    if ((e = getenv("XDG_STATE_HOME")) && *e) return snprintf(buf, cap, "%s/cuzk", e) < (int)cap ? buf : NULL;
    if ((e = getenv("HOME")) && *e)
        return snprintf(buf, cap, "%s/.local/state/cuzk", e) < (int)cap ? buf : NULL;
    return NULL;
}

/* <state>/<base>.<first 16 hex of sha256(directory)>.cuzk-valid: one state
 * directory serves several parameter directories. */
static bool state_record_path(char *out, size_t cap, const char *path, const char *state_dir)
{
    char buf[1024], dir[4096];
    const char *sd = state_dir && *state_dir ? state_dir : default_state_dir(buf, sizeof buf);
    if (!sd) return false;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!realpath(slash ? (snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path), dir) : ".", dir))
        return false;
    uint8_t h[32];
    unsigned hl = 0;
    if (!EVP_Digest(dir, strlen(dir), h, &hl, EVP_sha256(), NULL)) return false;
    int n = snprintf(out, cap, "%s/%s.%02x%02x%02x%02x%02x%02x%02x%02x" RECORD_EXT, sd, base, h[0], h[1],
                     h[2], h[3], h[4], h[5], h[6], h[7]);
    return n > 0 && (size_t)n < cap;
}

static bool side_record_path(char *out, size_t cap, const char *path)
{
    int n = snprintf(out, cap, "%s" RECORD_EXT, path);
    return n > 0 && (size_t)n < cap;
}

/* ---- reading and writing records ---------------------------------------------- */

typedef struct {
    cuzk_srs_file_id id;
    char digest[33];
    bool v1; /* no ctime, no device: its metadata proves nothing */
} record;

static bool record_read_at(record *r, const char *rp)
{
    char line[512];
    FILE *f = fopen(rp, "r");
    if (!f) return false;
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!got) return false;
    unsigned long long size, dev = 0, ino;
    long long mtime, ctime = 0;
    int n = sscanf(line,
                   "cuzk-valid 2 size=%llu mtime_ns=%lld ctime_ns=%lld dev=%llu ino=%llu blake2b=%32[0-9a-f]",
                   &size, &mtime, &ctime, &dev, &ino, r->digest);
    r->v1 = n != 6;
    /* A version-1 record (no ctime, no device) still names a validated
     * digest, but its metadata cannot show the file unchanged: only a fresh
     * hash that matches trusts it (and rewrites it as version 2). */
    if (r->v1 && sscanf(line, "cuzk-valid 1 size=%llu mtime_ns=%lld ino=%llu blake2b=%32[0-9a-f]", &size,
                        &mtime, &ino, r->digest) != 4)
        return false;
    if (strlen(r->digest) != 32) return false;
    r->id = (cuzk_srs_file_id){.size = size, .ino = ino, .dev = dev, .mtime_ns = mtime, .ctime_ns = ctime};
    return true;
}

static bool record_read(record *r, const char *path, const char *state_dir)
{
    char rp[4200];
    if (side_record_path(rp, sizeof rp, path) && record_read_at(r, rp)) return true;
    return state_record_path(rp, sizeof rp, path, state_dir) && record_read_at(r, rp);
}

static int mkdir_p(const char *dir)
{
    char d[4096];
    if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d) return -1;
    for (char *p = d + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(d, 0755) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(d, 0755) && errno != EEXIST ? -1 : 0;
}

/* Write the record to rp via rp.tmp.PID + rename; errno on failure. */
static int record_write_at(const char *rp, const record *r, const char *name)
{
    char tmp[4300];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", rp, (long)getpid()) >= (int)sizeof tmp) return ENAMETOOLONG;
    FILE *f = fopen(tmp, "w");
    if (!f) return errno;
    int ok = fprintf(f,
                     "cuzk-valid 2 size=%" PRIu64 " mtime_ns=%" PRId64 " ctime_ns=%" PRId64 " dev=%" PRIu64
                     " ino=%" PRIu64 " blake2b=%s %s\n",
                     r->id.size, r->id.mtime_ns, r->id.ctime_ns, r->id.dev, r->id.ino, r->digest, name) > 0;
    ok &= fflush(f) == 0 && fsync(fileno(f)) == 0;
    int e = errno;
    if (fclose(f) != 0 && ok) ok = 0, e = errno;
    if (ok && rename(tmp, rp) == 0) return 0;
    e = ok ? errno : e;
    unlink(tmp);
    return e ? e : EIO;
}

/* Next to the file, else in the state directory; note says where it went
 * wrong when neither works. */
static int record_store(const char *path, const char *state_dir, const record *r, char *note, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char rp[4200], sp[4200];
    int e1 = side_record_path(rp, sizeof rp, path) ? record_write_at(rp, r, base) : ENAMETOOLONG;
    if (!e1) return CUZK_OK;
    if (!state_record_path(sp, sizeof sp, path, state_dir))
        return cuzk_errf(note, cap, CUZK_ERR_IO, "validation record not written: %s: %s; no state directory",
                         rp, strerror(e1));
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", sp);
    *strrchr(dir, '/') = 0;
    int e2 = mkdir_p(dir) ? errno : record_write_at(sp, r, base);
    if (!e2) return CUZK_OK;
    return cuzk_errf(note, cap, CUZK_ERR_IO, "validation record not written: %s: %s; %s: %s", rp,
                     strerror(e1), sp, strerror(e2));
}

int cuzk_srs_record_write(const char *path, const char *state_dir, char *err, size_t err_len)
{
    if (!path) return CUZK_ERR_ARG;
    record r;
    int st = cuzk_srs_file_id_get(&r.id, path, err, err_len);
    if (!st) st = cuzk_fil_file_digest(r.digest, path, err, err_len);
    cuzk_srs_file_id after;
    if (!st && !(st = cuzk_srs_file_id_get(&after, path, err, err_len)) &&
        (after.mtime_ns != r.id.mtime_ns || after.ctime_ns != r.id.ctime_ns))
        st = cuzk_errf(err, err_len, CUZK_ERR_CHANGED, "%s changed while its record was computed", path);
    return st ? st : record_store(path, state_dir, &r, err, err_len);
}

/* ---- loading ---------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool same_file(const cuzk_srs_file_id *rec, const cuzk_srs_file_id *now)
{
    return rec->size == now->size && rec->ino == now->ino && rec->dev == now->dev &&
           rec->mtime_ns == now->mtime_ns && rec->ctime_ns == now->ctime_ns;
}

/* The official digest path must match, or NULL.  Our TEST params under an
 * official name (the `.test` marker) are exempt only when so allows it:
 * otherwise a planted file with a planted marker would be trusted. */
static const char *official_for(const char *path, const cuzk_srs_load_opts *so, cuzk_srs_load_info *info)
{
    const char *official = cuzk_srs_official_digest(path);
    if (!official || !cuzk_groth16_is_test_file(path)) return official;
    info->test_marker = true;
    return so->allow_test_params ? NULL : official;
}

static int refuse_official(const char *path, const char *digest, const char *official, bool marker, char *err,
                           size_t el)
{
    if (marker)
        return cuzk_errf(
            err, el, CUZK_ERR_FORMAT,
            "srs.allow_test_params is off: %s has a .test marker (TEST params) under an official "
            "name, refused -- fetch the official file, or turn srs.allow_test_params on for a test "
            "setup (BLAKE2b-512 %s, parameters.json %s)",
            path, digest, official);
    return cuzk_errf(err, el, CUZK_ERR_FORMAT,
                     "params file %s is not the official file of that name: its BLAKE2b-512 digest %s "
                     "does not match parameters.json (%s); it is corrupt, incomplete or replaced -- "
                     "delete it and fetch it again",
                     path, digest, official);
}

/* Decide how far to trust path; digest receives the file's hash when one
 * was computed (for the record).  Refuses an official name with a wrong
 * digest. */
static int decide(cuzk_srs_trust *how, char digest[33], const char *path, const cuzk_srs_load_opts *so,
                  cuzk_srs_load_info *info, char *err, size_t el)
{
    *how = CUZK_SRS_TRUST_VALIDATED;
    if (so->mode == CUZK_SRS_VALIDATE_NONE) {
        *how = CUZK_SRS_TRUST_UNCHECKED;
        return CUZK_OK;
    }
    const char *official = official_for(path, so, info);
    record rec;
    bool have = so->mode == CUZK_SRS_VALIDATE_DIGEST && record_read(&rec, path, so->state_dir);
    if (have && !rec.v1 && same_file(&rec.id, &info->id) && (!official || !strcmp(rec.digest, official))) {
        *how = CUZK_SRS_TRUST_RECORD;
        return CUZK_OK;
    }
    double t = now_s();
    int st = cuzk_fil_file_digest_stop(digest, path, so->stop, so->stop_ctx, err, el);
    info->digest_s = now_s() - t;
    if (st) return st;
    if (official && strcmp(digest, official))
        return refuse_official(path, digest, official, info->test_marker, err, el);
    if (so->mode != CUZK_SRS_VALIDATE_DIGEST) return CUZK_OK;
    if (official)
        *how = CUZK_SRS_TRUST_OFFICIAL;
    else if (have && rec.id.size == info->id.size && !strcmp(rec.digest, digest))
        *how = CUZK_SRS_TRUST_RECORD_DIGEST;
    return CUZK_OK;
}

int cuzk_srs_params_load(cuzk_groth16_params **out, const char *path, cuzk_srs_validate mode,
                         const char *state_dir, const cuzk_groth16_load_opts *opts, cuzk_srs_load_info *info)
{
    cuzk_srs_load_opts so = {.mode = mode, .state_dir = state_dir};
    return cuzk_srs_params_load_ex(out, path, &so, opts, info);
}

int cuzk_srs_params_load_ex(cuzk_groth16_params **out, const char *path, const cuzk_srs_load_opts *so,
                            const cuzk_groth16_load_opts *opts, cuzk_srs_load_info *info)
{
    cuzk_srs_load_info tmp;
    if (!info) info = &tmp;
    memset(info, 0, sizeof *info);
    if (!out || !path || !so) return CUZK_ERR_ARG;
    *out = NULL;
    cuzk_groth16_load_opts o = opts ? *opts : (cuzk_groth16_load_opts){0};
    char digest[33] = "";
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) /* before hashing: a directory reads as EISDIR */
        return cuzk_errf(o.err, o.err_len, CUZK_ERR_IO, "params: %s is %s, not a params file", path,
                         S_ISDIR(sb.st_mode) ? "a directory" : "not a regular file");
    int st = cuzk_srs_file_id_get(&info->id, path, o.err, o.err_len);
    if (!st) st = decide(&info->how, digest, path, so, info, o.err, o.err_len);
    if (st) return st;
    if (info->how == CUZK_SRS_TRUST_VALIDATED)
        o.flags &= ~(unsigned)CUZK_G16_LOAD_NO_VALIDATE;
    else
        o.flags |= CUZK_G16_LOAD_NO_VALIDATE;
    double t = now_s();
    st = cuzk_groth16_params_load(out, path, &o);
    info->load_s = now_s() - t;
    /* what was loaded must be the file that was hashed or matched */
    if (!st) st = cuzk_srs_file_id_check(&info->id, path, o.err, o.err_len);
    if (st) {
        cuzk_groth16_params_free(*out);
        *out = NULL;
        return st;
    }
    if (digest[0] && info->how != CUZK_SRS_TRUST_UNCHECKED) {
        record r = {.id = info->id};
        memcpy(r.digest, digest, sizeof r.digest);
        (void)record_store(path, so->state_dir, &r, info->note, sizeof info->note);
    }
    return CUZK_OK;
}
