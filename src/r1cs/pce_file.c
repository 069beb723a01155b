/* PCE file: mapping and validation.  Nothing in the file is trusted: the
 * header's magic, version, identity and checksum, every section's bounds
 * (derived from the counts with overflow checks and compared with the file
 * size), the body checksum, the checkpoint table (monotone, in range), the
 * dictionary (canonical field elements) and the density popcounts are all
 * checked before a cuzk_pce is returned.  The records are checked again
 * entry by entry while they are evaluated (pce_eval.c).
 *
 * The map may shrink under us (an extraction or a copy rewriting the file
 * in place): every read of it runs as a leaf under cuzk_map_guard_run
 * (cuzk/mapguard.h) -- the header is copied out, the body hashed, the
 * sections parsed into memory allocated beforehand, reasons recorded as
 * codes and worded afterwards -- and a failure of a file that is no longer
 * the one opened (size, inode, device, mtime) is reported as the change. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/mapguard.h"
#include "r1cs/pce_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PCE file format is read with little-endian loads"
#endif

static int add_ovf(uint64_t *r, uint64_t a, uint64_t b)
{
    return __builtin_add_overflow(a, b, r);
}
static int mul_ovf(uint64_t *r, uint64_t a, uint64_t b)
{
    return __builtin_mul_overflow(a, b, r);
}

int cuzk_pce_layout_make(pce_layout *l, uint64_t constraints, uint64_t inputs, uint64_t aux, uint64_t dict,
                         uint64_t rec_len)
{
    uint64_t t;
    memset(l, 0, sizeof *l);
    l->rec_off = PCE_HEADER_BYTES;
    l->rec_len = rec_len;
    l->n_ckpt = constraints / PCE_CKPT_EVERY + (constraints % PCE_CKPT_EVERY != 0) + 1;
    l->w_aux = aux / 64 + (aux % 64 != 0);
    l->w_inp = inputs / 64 + (inputs % 64 != 0);
    if (add_ovf(&l->ckpt_off, l->rec_off, rec_len) || mul_ovf(&t, l->n_ckpt, 8) ||
        add_ovf(&l->dict_off, l->ckpt_off, t) || mul_ovf(&t, dict, 32) ||
        add_ovf(&l->dens_off, l->dict_off, t) || mul_ovf(&t, l->w_aux, 2) || add_ovf(&t, t, l->w_inp) ||
        mul_ovf(&t, t, 8) || add_ovf(&l->file_bytes, l->dens_off, t) || l->file_bytes > (uint64_t)SIZE_MAX)
        return 0;
    return 1;
}

static size_t popcount_bits(const uint8_t *w, uint64_t nbits, bool *stray)
{
    size_t c = 0;
    uint64_t words = nbits / 64 + (nbits % 64 != 0);
    for (uint64_t i = 0; i < words; i++) {
        uint64_t x = pce_get64(w + 8 * i);
        if (i == nbits / 64 && nbits % 64) {
            uint64_t keep = ((uint64_t)1 << (nbits % 64)) - 1;
            if (x & ~keep) *stray = true;
        }
        c += (size_t)__builtin_popcountll(x);
    }
    return c;
}

static bool all_zero(const uint8_t *b, size_t n)
{
    uint8_t o = 0;
    for (size_t i = 0; i < n; i++)
        o |= b[i];
    return o == 0;
}

/* Header fields (h: a copy of the map's first bytes) into p->info;
 * identity and version checks. */
static void hex8(char out[17], const uint8_t *d)
{
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static int read_header(cuzk_pce *p, const uint8_t *h, const cuzk_pce_identity *expect, const uint8_t *digest,
                       const char *path, char *err, size_t err_len)
{
    if (memcmp(h + PCE_H_MAGIC, PCE_MAGIC, 8))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: not a PCE file (bad magic)", path);
    uint32_t ver = pce_get32(h + PCE_H_VERSION);
    if (ver != CUZK_PCE_VERSION)
        return cuzk_errf(err, err_len, CUZK_ERR_CHANGED,
                         "%s: PCE format version %u, this build reads %u: rebuild it", path, ver,
                         CUZK_PCE_VERSION);
    uint8_t d[32];
    unsigned n = 32;
    if (EVP_Digest(h, PCE_H_HSHA, d, &n, EVP_sha256(), NULL) != 1 || memcmp(d, h + PCE_H_HSHA, 32))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: header checksum mismatch (corrupt file)", path);
    if (pce_get32(h + PCE_H_HBYTES) != PCE_HEADER_BYTES ||
        pce_get32(h + PCE_H_CKPT_SHIFT) != PCE_CKPT_SHIFT || h[PCE_H_ID + CUZK_PCE_ID_MAX] != 0 ||
        !all_zero(h + PCE_H_HSHA + 32, PCE_HEADER_BYTES - PCE_H_HSHA - 32))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: header layout fields are invalid", path);
    cuzk_pce_info *in = &p->info;
    in->version = ver;
    in->identity.kind = pce_get32(h + PCE_H_KIND);
    in->identity.registered_proof = pce_get64(h + PCE_H_PROOF);
    memcpy(in->identity.id, h + PCE_H_ID, CUZK_PCE_ID_MAX + 1);
    size_t *f[] = {&in->constraints, &in->inputs, &in->aux, &in->nnz[0], &in->nnz[1], &in->nnz[2], &in->dict};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        *f[i] = (size_t)pce_get64(h + PCE_H_CONSTRAINTS + 8 * i);
    in->record_bytes = pce_get64(h + PCE_H_REC_LEN);
    in->file_bytes = pce_get64(h + PCE_H_FILE_BYTES);
    in->a_aux_density = (size_t)pce_get64(h + PCE_H_DENSITY);
    in->b_input_density = (size_t)pce_get64(h + PCE_H_DENSITY + 8);
    in->b_aux_density = (size_t)pce_get64(h + PCE_H_DENSITY + 16);
    for (int i = 0; i < 4; i++)
        in->class_counts[i] = (size_t)pce_get64(h + PCE_H_CLASSES + 8 * i);
    memcpy(in->r1cs_digest, h + PCE_H_R1CS, 32);
    if (expect &&
        (expect->kind != in->identity.kind || expect->registered_proof != in->identity.registered_proof ||
         strncmp(expect->id, in->identity.id, CUZK_PCE_ID_MAX + 1)))
        return cuzk_errf(
            err, err_len, CUZK_ERR_CHANGED,
            "%s: recorded for another circuit (kind %u, proof %llu, '%s'; wanted kind %u, proof %llu, "
            "'%s'): rebuild it",
            path, in->identity.kind, (unsigned long long)in->identity.registered_proof, in->identity.id,
            expect->kind, (unsigned long long)expect->registered_proof, expect->id);
    if (digest && memcmp(digest, in->r1cs_digest, 32)) {
        char a[17], b[17];
        hex8(a, in->r1cs_digest);
        hex8(b, digest);
        return cuzk_errf(err, err_len, CUZK_ERR_CHANGED,
                         "%s: recorded from other matrices (R1CS digest %s..., this build's %s...: another "
                         "build's file, or not ours): rebuild it",
                         path, a, b);
    }
    return CUZK_OK;
}

static int check_counts(cuzk_pce *p, const char *path, char *err, size_t err_len)
{
    const cuzk_pce_info *in = &p->info;
    uint64_t nnz = (uint64_t)in->nnz[0] + in->nnz[1] + in->nnz[2];
    uint64_t cls =
        (uint64_t)in->class_counts[0] + in->class_counts[1] + in->class_counts[2] + in->class_counts[3];
    if (in->inputs < 1 || in->inputs > PCE_COL_AUX || in->aux > PCE_COL_AUX || in->constraints < in->inputs ||
        in->dict > PCE_MAX_DICT || in->nnz[0] > (uint64_t)SIZE_MAX / 4 || nnz != cls ||
        in->a_aux_density > in->aux || in->b_aux_density > in->aux || in->b_input_density > in->inputs)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: inconsistent counts in the header", path);
    if (!cuzk_pce_layout_make(&p->lay, in->constraints, in->inputs, in->aux, in->dict, in->record_bytes) ||
        p->lay.file_bytes != in->file_bytes)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: section sizes do not add up to the file size",
                         path);
    /* every record holds at least its three one-byte lengths, every entry five bytes */
    if (nnz > in->record_bytes / 5 || in->record_bytes - 5 * nnz < 3 * (uint64_t)in->constraints)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: records too short for the counts", path);
    if (in->file_bytes != p->map_len)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: %zu bytes, the header says %llu (truncated?)",
                         path, p->map_len, (unsigned long long)in->file_bytes);
    return CUZK_OK;
}

typedef struct {
    EVP_MD_CTX *c;
    const uint8_t *b;
    size_t len;
    int ok;
} body_job;

/* Guarded: SHA-256 updates of the mapped body (no allocation in them). */
static void body_run(void *arg)
{
    body_job *j = arg;
    for (size_t off = 0; j->ok && off < j->len; off += (size_t)1 << 24) {
        size_t m = j->len - off < ((size_t)1 << 24) ? j->len - off : (size_t)1 << 24;
        j->ok = EVP_DigestUpdate(j->c, j->b + off, m) == 1;
        if (j->ok) madvise((void *)((uintptr_t)(j->b + off) & ~(uintptr_t)4095), m, MADV_WILLNEED);
    }
}

static int check_body(cuzk_pce *p, const uint8_t *h, const char *path, char *err, size_t err_len)
{
    uint8_t d[32];
    unsigned n = 32;
    body_job j = {EVP_MD_CTX_new(), p->map + PCE_HEADER_BYTES, p->map_len - PCE_HEADER_BYTES, 0};
    j.ok = j.c && EVP_DigestInit_ex(j.c, EVP_sha256(), NULL) == 1;
    int g = cuzk_map_guard_run(p->map, p->map_len, body_run, &j);
    int ok = !g && j.ok && EVP_DigestFinal_ex(j.c, d, &n) == 1;
    EVP_MD_CTX_free(j.c);
    if (g) return cuzk_pce_fault(p, err, err_len);
    if (!ok) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: SHA-256 failed", path);
    if (memcmp(d, h + PCE_H_BSHA, 32))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: body checksum mismatch (corrupt file)", path);
    /* the recorded R1CS digest must be the one of what the file holds */
    if (cuzk_pce_r1cs_digest(d, h, h + PCE_H_BSHA))
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: SHA-256 failed", path);
    if (memcmp(d, h + PCE_H_R1CS, 32))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: R1CS digest disagrees with the contents", path);
    return CUZK_OK;
}

enum { SEC_OK, SEC_CKPT, SEC_DICT, SEC_DENS };

typedef struct {
    cuzk_pce *p;
    int why; /* SEC_* */
    uint64_t at;
} sect_job;

/* Guarded: checkpoints and dictionary into p's arrays, density popcounts. */
static void sections_run(void *arg)
{
    sect_job *j = arg;
    cuzk_pce *p = j->p;
    const pce_layout *l = &p->lay;
    for (uint64_t i = 0; i < l->n_ckpt; i++) {
        uint64_t c = pce_get64(p->map + l->ckpt_off + 8 * i);
        if ((i == 0 && c != 0) || (i && c < p->ckpt[i - 1]) || c > l->rec_len ||
            (i == l->n_ckpt - 1 && c != l->rec_len)) {
            *j = (sect_job){p, SEC_CKPT, i};
            return;
        }
        p->ckpt[i] = c;
    }
    for (size_t i = 0; i < p->info.dict; i++)
        if (cuzk_fr_from_bytes_le(&p->code_val[PCE_CODE_DICT + i], p->map + l->dict_off + 32 * i)) {
            *j = (sect_job){p, SEC_DICT, i};
            return;
        }
    bool stray = false;
    size_t a = popcount_bits(p->dens, p->info.aux, &stray);
    size_t bi = popcount_bits(p->dens + 8 * l->w_aux, p->info.inputs, &stray);
    size_t ba = popcount_bits(p->dens + 8 * (l->w_aux + l->w_inp), p->info.aux, &stray);
    if (stray || a != p->info.a_aux_density || bi != p->info.b_input_density || ba != p->info.b_aux_density)
        j->why = SEC_DENS;
}

/* Checkpoints, dictionary, density: copied or validated. */
static int load_sections(cuzk_pce *p, const char *path, char *err, size_t err_len)
{
    const pce_layout *l = &p->lay;
    p->rec = p->map + l->rec_off;
    p->dens = p->map + l->dens_off;
    p->ckpt = malloc(l->n_ckpt * sizeof *p->ckpt);
    p->n_codes = PCE_CODE_DICT + p->info.dict;
    p->code_val = malloc(p->n_codes * sizeof *p->code_val);
    if (!p->ckpt || !p->code_val) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory", path);
    p->code_val[0] = CUZK_FR_ZERO;
    cuzk_fr pw = CUZK_FR_ONE;
    for (unsigned k = 0; k <= PCE_MAX_POW; k++) {
        p->code_val[1 + 2 * k] = pw;
        cuzk_fr_neg(&p->code_val[2 + 2 * k], &pw);
        cuzk_fr_dbl(&pw, &pw);
    }
    sect_job j = {p, SEC_OK, 0};
    if (cuzk_map_guard_run(p->map, p->map_len, sections_run, &j)) return cuzk_pce_fault(p, err, err_len);
    if (j.why == SEC_CKPT)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: checkpoint %" PRIu64 " is out of order or range",
                         path, j.at);
    if (j.why == SEC_DICT)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: dictionary entry %" PRIu64 " is not a field element", path, j.at);
    if (j.why == SEC_DENS)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: density bitmaps disagree with the header", path);
    return CUZK_OK;
}

/* ---- the file as opened --------------------------------------------------------- */

int cuzk_pce_unchanged(const cuzk_pce *p, char *err, size_t err_len)
{
    if (!p || !p->path) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce unchanged: NULL argument");
    return cuzk_file_id_check(&p->fid, p->path, "PCE", err, err_len);
}

int cuzk_pce_fault(const cuzk_pce *p, char *err, size_t err_len)
{
    if (cuzk_pce_unchanged(p, err, err_len)) return CUZK_ERR_CHANGED;
    return cuzk_errf(err, err_len, CUZK_ERR_CHANGED,
                     "PCE file %s changed while in use: a mapped page could not be read (it shrank, and is "
                     "back at %" PRIu64 " bytes)",
                     p->path, p->fid.size);
}

/* The checks of cuzk_pce_open on a mapped file, in order. */
static int verify_map(cuzk_pce *p, const cuzk_pce_identity *expect, const uint8_t *digest, const char *path,
                      char *err, size_t err_len)
{
    uint8_t h[PCE_HEADER_BYTES];
    if (cuzk_map_guard_copy(h, p->map, sizeof h, p->map, p->map_len)) return cuzk_pce_fault(p, err, err_len);
    int rc = read_header(p, h, expect, digest, path, err, err_len);
    if (!rc) rc = check_counts(p, path, err, err_len);
    if (!rc) rc = check_body(p, h, path, err, err_len);
    if (!rc) rc = load_sections(p, path, err, err_len);
    /* a file rewritten while we read it fails some check: say so */
    if (rc && rc != CUZK_ERR_NOMEM && cuzk_pce_unchanged(p, err, err_len)) rc = CUZK_ERR_CHANGED;
    return rc;
}

int cuzk_pce_open(cuzk_pce **out, const char *path, const cuzk_pce_identity *expect, char *err,
                  size_t err_len)
{
    return cuzk_pce_open_digest(out, path, expect, NULL, err, err_len);
}

/* path opened for reading: never through a symbolic link, only a regular
 * file (a FIFO would block, a device is not ours to map). */
static int open_regular(int *fdp, cuzk_file_id *fid, const char *path, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        cuzk_errf(err, err_len, CUZK_ERR_IO, "%s: %s", path,
                  e == ELOOP ? "is a symbolic link (not followed)" : strerror(e));
        errno = e;
        return CUZK_ERR_IO;
    }
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        int rc = cuzk_errf(err, err_len, CUZK_ERR_IO, "%s: not a regular file", path);
        errno = EINVAL;
        return rc;
    }
    if (cuzk_file_id_get(fid, path, fd, err, err_len)) {
        close(fd);
        return CUZK_ERR_IO;
    }
    *fdp = fd;
    return CUZK_OK;
}

int cuzk_pce_open_digest(cuzk_pce **out, const char *path, const cuzk_pce_identity *expect,
                         const uint8_t r1cs_digest[32], char *err, size_t err_len)
{
    if (!out || !path) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce open: NULL argument");
    *out = NULL;
    int fd = -1;
    cuzk_file_id fid;
    if (open_regular(&fd, &fid, path, err, err_len)) return CUZK_ERR_IO;
    if (fid.size < PCE_HEADER_BYTES || fid.size > SIZE_MAX) {
        close(fd);
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: %" PRIu64 " bytes: %s", path, fid.size,
                         fid.size < PCE_HEADER_BYTES ? "shorter than a PCE header (truncated?)"
                                                     : "too large");
    }
    cuzk_pce *p = calloc(1, sizeof *p);
    if (p && !(p->path = strdup(path))) {
        free(p);
        p = NULL;
    }
    void *m = p ? mmap(NULL, (size_t)fid.size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    int map_errno = errno;
    close(fd);
    if (m == MAP_FAILED) {
        int rc = p ? CUZK_ERR_IO : CUZK_ERR_NOMEM;
        cuzk_pce_close(p);
        return cuzk_errf(err, err_len, rc, "%s: cannot map: %s", path,
                         rc == CUZK_ERR_IO ? strerror(map_errno) : "out of memory");
    }
    p->map = m;
    p->map_len = (size_t)fid.size;
    p->fid = fid;
    int rc = verify_map(p, expect, r1cs_digest, path, err, err_len);
    if (rc) {
        cuzk_pce_close(p);
        return rc;
    }
    madvise((void *)p->map, p->map_len, MADV_SEQUENTIAL);
    *out = p;
    return CUZK_OK;
}

void cuzk_pce_close(cuzk_pce *p)
{
    if (!p) return;
    if (p->map) munmap((void *)p->map, p->map_len);
    free(p->path);
    free(p->ckpt);
    free(p->code_val);
    free(p);
}

void cuzk_pce_get_info(const cuzk_pce *p, cuzk_pce_info *out)
{
    *out = p->info;
}
