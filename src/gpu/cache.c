/* The program binary cache: a compiled OpenCL program stored on disk under
 * the SHA-256 of everything that decides its contents (kernel source, build
 * options, platform, device, device and driver versions), so the second
 * start of a process skips the compiler (pocl took seconds to build the
 * kernel source, docs/gpu.md "Program cache").
 *
 * A cached file is never trusted by its name alone: it carries its length
 * and its own SHA-256 in a header, and a file that fails either is rebuilt
 * and replaced (a crash mid-write or a full disk cannot leave a program
 * that loads wrong).  Writes go through a temporary file, fsync and
 * rename, so readers see the old file or the new one.  The directory must
 * pass the PCE directory rule (cuzk_pce_dir_check: no other user can write
 * to it or to a component above it), since a planted binary would run on
 * the device. */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/pce.h"
#include "gpu/gpu_internal.h"

#define CACHE_MAGIC "cuzk-gpu-program 1\n" /* 19 bytes, then u64 length LE, then 32-byte digest */
#define MAGIC_LEN 19
#define HEADER_LEN (MAGIC_LEN + 8 + 32)

static int mkdir_p(const char *dir)
{
    char d[4096];
    if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d) return -1;
    for (char *p = d + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(d, 0700) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(d, 0700) && errno != EEXIST ? -1 : 0;
}

void cuzk_gpu_cache_dir(char *dir, size_t cap, const char *requested, char *note, size_t note_len)
{
    const char *env = getenv("CUZK_GPU_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    dir[0] = 0;
    note[0] = 0;
    if (requested)
        n = snprintf(dir, cap, "%s", requested);
    else if (env)
        n = snprintf(dir, cap, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(dir, cap, "%s/cuzk/gpu", xdg);
    else if (home && *home)
        n = snprintf(dir, cap, "%s/.cache/cuzk/gpu", home);
    else
        n = snprintf(note, note_len, "no cache directory (neither $XDG_CACHE_HOME nor $HOME is set)"),
        dir[0] = 0;
    if (n < 0 || (size_t)n >= cap) {
        snprintf(note, note_len, "cache directory path too long");
        dir[0] = 0;
    }
    if (!dir[0]) {
        if (!note[0]) snprintf(note, note_len, "program cache turned off");
        return;
    }
    char why[600] = "";
    /* judged before it is made (by its existing ancestors), then again once
     * it exists: someone else could have created it in between */
    if (cuzk_pce_dir_check(dir, why, sizeof why) || mkdir_p(dir) ||
        cuzk_pce_dir_check(dir, why, sizeof why)) {
        const char *r = strstr(why, "refused: "); /* the rule's own words, without "PCE directory" */
        snprintf(note, note_len, "program cache %s not used: %s", dir,
                 r        ? r + 9
                 : why[0] ? why
                          : strerror(errno));
        dir[0] = 0;
    }
}

int cuzk_gpu_cache_key(char hex[65], const char *const *parts, size_t nparts, char *err, size_t err_len)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    uint8_t h[32];
    unsigned hl = 0;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    for (size_t i = 0; ok && i < nparts; i++) {
        const char *p = parts[i] ? parts[i] : "";
        uint64_t len = strlen(p); /* length-prefixed: ("ab","c") != ("a","bc") */
        ok = EVP_DigestUpdate(c, &len, sizeof len) && EVP_DigestUpdate(c, p, len);
    }
    ok = ok && EVP_DigestFinal_ex(c, h, &hl) && hl == 32;
    EVP_MD_CTX_free(c);
    if (!ok) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "program cache: SHA-256 failed (OpenSSL)");
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
    return CUZK_OK;
}

bool cuzk_gpu_cache_path(char *out, size_t cap, const char *dir, const char *key, const char *ext)
{
    int n = snprintf(out, cap, "%s/%s%s", dir, key, ext);
    return n > 0 && (size_t)n < cap;
}

static bool sha256(uint8_t out[32], const uint8_t *data, size_t len)
{
    unsigned hl = 0;
    return EVP_Digest(data, len, out, &hl, EVP_sha256(), NULL) && hl == 32;
}

static int read_all(int fd, uint8_t *buf, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

int cuzk_gpu_cache_load(const char *path, uint8_t **data, size_t *len, char *note, size_t note_len)
{
    *data = NULL;
    *len = 0;
    note[0] = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) snprintf(note, note_len, "%s: %s", path, strerror(errno));
        return CUZK_ERR_IO;
    }
    struct stat sb;
    uint8_t head[HEADER_LEN], digest[32];
    int st = CUZK_ERR_FORMAT;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < HEADER_LEN || read_all(fd, head, HEADER_LEN)) {
        snprintf(note, note_len, "%s: not a cache file (short or unreadable)", path);
    } else if (memcmp(head, CACHE_MAGIC, MAGIC_LEN)) {
        snprintf(note, note_len, "%s: wrong magic", path);
    } else {
        uint64_t n;
        memcpy(&n, head + MAGIC_LEN, 8);
        uint8_t *buf = n == (uint64_t)sb.st_size - HEADER_LEN ? malloc(n ? n : 1) : NULL;
        if (n != (uint64_t)sb.st_size - HEADER_LEN)
            snprintf(note, note_len, "%s: length %llu in its header, %llu bytes present", path,
                     (unsigned long long)n, (unsigned long long)(sb.st_size - HEADER_LEN));
        else if (!buf)
            snprintf(note, note_len, "%s: out of memory", path), st = CUZK_ERR_NOMEM;
        else if (read_all(fd, buf, n) || !sha256(digest, buf, n) || memcmp(digest, head + MAGIC_LEN + 8, 32))
            snprintf(note, note_len, "%s: SHA-256 mismatch (damaged)", path);
        else
            *data = buf, *len = n, buf = NULL, st = CUZK_OK;
        free(buf);
    }
    close(fd);
    return st;
}

int cuzk_gpu_cache_store(const char *path, const uint8_t *data, size_t len, char *note, size_t note_len)
{
    char tmp[4200];
    uint8_t head[HEADER_LEN];
    uint64_t n = len;
    memcpy(head, CACHE_MAGIC, MAGIC_LEN);
    memcpy(head + MAGIC_LEN, &n, 8);
    if (!sha256(head + MAGIC_LEN + 8, data, len) ||
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        snprintf(note, note_len, "%s: not stored (digest or path)", path);
        return CUZK_ERR_IO;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST && !unlink(tmp)) /* left by a crashed run with our pid */
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(note, note_len, "%s: not stored: %s", tmp, strerror(errno));
        return CUZK_ERR_IO;
    }
    bool ok = write(fd, head, HEADER_LEN) == HEADER_LEN;
    for (size_t done = 0; ok && done < len;) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        done += ok ? (size_t)w : 0;
    }
    int e = ok ? 0 : errno;
    ok = ok && fsync(fd) == 0;
    if (close(fd) && ok) ok = false;
    if (ok && rename(tmp, path) == 0) return CUZK_OK;
    snprintf(note, note_len, "%s: not stored: %s", path, strerror(e ? e : errno));
    unlink(tmp);
    return CUZK_ERR_IO;
}
