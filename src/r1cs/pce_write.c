/* PCE extraction: runs a circuit once in SHAPE mode and streams each
 * constraint, as the row observer delivers it (merged, sorted terms), into
 * the records section of a temporary file; checkpoints, dictionary and
 * density follow, then the header is written at offset 0 and the file is
 * renamed into place.  Memory: the SHAPE cs (bits per variable), the
 * checkpoint table (8 bytes per 1024 constraints) and a hash table of the
 * distinct coefficient values -- never the matrices.
 *
 * Coefficients are classified once per distinct value (canonical form:
 * zero, +-2^k or dictionary); the hash table maps the Montgomery limbs to
 * the code, so the per-term cost is one hash probe.
 *
 * The same writer without a file (cuzk_pce_digest) yields the R1CS digest
 * that an extraction by this build would record: the engine compares a
 * file's with it before trusting the file's matrices.
 *
 * The temporary file is created with O_CREAT | O_EXCL | O_NOFOLLOW under
 * an unpredictable name, so nothing planted in the directory (a symlink to
 * a file of ours) is written through; it is fsync'd, renamed over path and
 * the directory fsync'd. */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "r1cs/cs_internal.h"  /* cuzk_cs_grow */
#include "r1cs/pce_internal.h" /* first: cuzk/par.h */

typedef struct {
    cuzk_fr key;
    uint32_t code;
    uint32_t used;
} code_slot;

typedef struct {
    FILE *f;
    EVP_MD_CTX *sha;
    uint64_t written; /* body bytes so far */
    code_slot *tab;
    size_t tab_cap, tab_n;
    cuzk_fr *dict;
    size_t dict_n, dict_cap;
    uint64_t *ckpt;
    size_t ckpt_n, ckpt_cap;
    uint64_t classes[4];
    uint8_t *rec; /* the current constraint's record, sides A and B buffered */
    size_t rec_len, rec_cap;
    size_t side_len[3];
    size_t n_inputs; /* unified column of aux j = n_inputs + j (known only at finish) */
    int status;
    char msg[200];
    cuzk_pce_progress_fn progress;
    void *progress_ctx;
} writer;

static void writer_free(writer *w)
{
    EVP_MD_CTX_free(w->sha);
    free(w->tab);
    free(w->dict);
    free(w->ckpt);
    free(w->rec);
}

static int wfail(writer *w, int st, const char *fmt, const char *arg)
{
    if (!w->status) {
        w->status = st;
        snprintf(w->msg, sizeof w->msg, fmt, arg);
    }
    return st;
}

static int body_write(writer *w, const void *p, size_t n)
{
    if (w->status) return w->status;
    if (n && w->f && fwrite(p, 1, n, w->f) != n) return wfail(w, CUZK_ERR_IO, "write failed: %s", strerror(errno));
    if (EVP_DigestUpdate(w->sha, p, n) != 1) return wfail(w, CUZK_ERR_IO, "%s", "SHA-256 update failed");
    w->written += n;
    return CUZK_OK;
}

static inline uint64_t slot_hash(const cuzk_fr *v)
{
    uint64_t h = v->l[0] * 0x9e3779b97f4a7c15ull ^ v->l[1];
    h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull ^ v->l[2];
    h = (h ^ (h >> 31)) * 0x94d049bb133111ebull ^ v->l[3];
    return h ^ (h >> 32);
}

static int tab_grow(writer *w)
{
    size_t ncap = w->tab_cap ? 2 * w->tab_cap : 1024;
    code_slot *t = calloc(ncap, sizeof *t);
    if (!t) return wfail(w, CUZK_ERR_NOMEM, "%s", "out of memory (coefficient table)");
    for (size_t i = 0; i < w->tab_cap; i++) {
        if (!w->tab[i].used) continue;
        size_t j = slot_hash(&w->tab[i].key) & (ncap - 1);
        while (t[j].used)
            j = (j + 1) & (ncap - 1);
        t[j] = w->tab[i];
    }
    free(w->tab);
    w->tab = t;
    w->tab_cap = ncap;
    return CUZK_OK;
}

/* Canonical class of a value never seen before. */
static int classify(writer *w, const cuzk_fr *v, uint32_t *code)
{
    uint64_t l[4];
    cuzk_fr_to_limbs(l, v);
    for (int neg = 0; neg < 2; neg++) {
        int bits = 0, k = 0;
        for (int i = 0; i < 4; i++) {
            bits += __builtin_popcountll(l[i]);
            if (l[i]) k = 64 * i + __builtin_ctzll(l[i]);
        }
        if (bits == 0) {
            *code = 0;
            return CUZK_OK;
        }
        if (bits == 1 && k <= (int)PCE_MAX_POW) {
            *code = 1u + 2u * (uint32_t)k + (uint32_t)neg;
            return CUZK_OK;
        }
        cuzk_fr m;
        cuzk_fr_neg(&m, v);
        cuzk_fr_to_limbs(l, &m);
    }
    if (w->dict_n >= PCE_MAX_DICT)
        return wfail(w, CUZK_ERR_UNSUPPORTED, "%s", "more than 2^30 distinct coefficients");
    if (cuzk_cs_grow((void **)&w->dict, &w->dict_cap, w->dict_n + 1, sizeof *w->dict, false))
        return wfail(w, CUZK_ERR_NOMEM, "%s", "out of memory (dictionary)");
    w->dict[w->dict_n] = *v;
    *code = PCE_CODE_DICT + (uint32_t)w->dict_n++;
    return CUZK_OK;
}

static int code_of(writer *w, const cuzk_fr *v, uint32_t *code)
{
    if (2 * (w->tab_n + 1) > w->tab_cap && tab_grow(w)) return w->status;
    size_t j = slot_hash(v) & (w->tab_cap - 1);
    for (; w->tab[j].used; j = (j + 1) & (w->tab_cap - 1))
        if (!memcmp(&w->tab[j].key, v, sizeof *v)) {
            *code = w->tab[j].code;
            return CUZK_OK;
        }
    if (classify(w, v, code)) return w->status;
    w->tab[j] = (code_slot){*v, *code, 1};
    w->tab_n++;
    return CUZK_OK;
}

static inline size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static int rec_reserve(writer *w, size_t more)
{
    if (cuzk_cs_grow((void **)&w->rec, &w->rec_cap, w->rec_len + more, 1, false))
        return wfail(w, CUZK_ERR_NOMEM, "%s", "out of memory (record buffer)");
    return CUZK_OK;
}

/* Row observer: buffer sides A and B, emit the record on C.  Columns keep
 * the cuzk_var split (input i = i, aux j = PCE_COL_AUX | j): the number of
 * inputs is not final while the circuit runs. */
static int on_row(void *ctx, size_t row, int side, const cuzk_term *t, size_t n)
{
    writer *w = ctx;
    if (w->status) return w->status;
    if (side == CUZK_LC_A) {
        w->rec_len = 0;
        if (!(row & (PCE_CKPT_EVERY - 1))) {
            if (cuzk_cs_grow((void **)&w->ckpt, &w->ckpt_cap, w->ckpt_n + 1, sizeof *w->ckpt, false))
                return wfail(w, CUZK_ERR_NOMEM, "%s", "out of memory (checkpoints)");
            w->ckpt[w->ckpt_n++] = w->written;
        }
        if (w->progress && row && !(row & ((1u << 20) - 1))) {
            int rc = w->progress(w->progress_ctx, row);
            if (rc) return wfail(w, rc, "%s", "stopped by the caller");
        }
    }
    w->side_len[side] = n;
    if (rec_reserve(w, n * 9 + 16)) return w->status;
    for (size_t i = 0; i < n; i++) {
        cuzk_var v = t[i].var;
        size_t idx = CUZK_VAR_INDEX(v);
        if (idx > 0x7fffffffu) return wfail(w, CUZK_ERR_UNSUPPORTED, "%s", "more than 2^31 variables");
        uint32_t col = (uint32_t)idx | (CUZK_VAR_IS_AUX(v) ? PCE_COL_AUX : 0);
        uint32_t code = 0;
        if (code_of(w, &t[i].coeff, &code)) return w->status;
        w->classes[code == 0 ? 0 : code <= 2 ? 1 : code < PCE_CODE_DICT ? 2 : 3]++;
        pce_put32(w->rec + w->rec_len, col);
        w->rec_len += 4;
        w->rec_len += put_varint(w->rec + w->rec_len, code);
    }
    if (side != CUZK_LC_C) return CUZK_OK;
    uint8_t hdr[30];
    size_t h = 0;
    for (int k = 0; k < 3; k++)
        h += put_varint(hdr + h, w->side_len[k]);
    if (body_write(w, hdr, h) || body_write(w, w->rec, w->rec_len)) return w->status;
    return CUZK_OK;
}

static int write_tail(writer *w, const cuzk_cs *cs, const pce_layout *l)
{
    uint8_t b[32];
    for (size_t i = 0; i < w->ckpt_n && !w->status; i++) {
        pce_put64(b, w->ckpt[i]);
        body_write(w, b, 8);
    }
    for (size_t i = 0; i < w->dict_n && !w->status; i++) {
        cuzk_fr_to_bytes_le(b, &w->dict[i]);
        body_write(w, b, 32);
    }
    const uint64_t *maps[3] = {cuzk_cs_density_a_aux(cs), cuzk_cs_density_b_input(cs),
                               cuzk_cs_density_b_aux(cs)};
    uint64_t words[3] = {l->w_aux, l->w_inp, l->w_aux};
    for (int m = 0; m < 3; m++)
        for (uint64_t i = 0; i < words[m] && !w->status; i++) {
            pce_put64(b, maps[m] ? maps[m][i] : 0);
            body_write(w, b, 8);
        }
    if (!w->status && w->written + PCE_HEADER_BYTES != l->file_bytes)
        return wfail(w, CUZK_ERR_ARG, "%s", "internal error: body length differs from the layout");
    return w->status;
}

int cuzk_pce_r1cs_digest(uint8_t out[32], const uint8_t *h, const uint8_t body_sha[32])
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned n = 32;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1 &&
             EVP_DigestUpdate(c, PCE_R1CS_TAG, sizeof PCE_R1CS_TAG - 1) == 1 &&
             EVP_DigestUpdate(c, h + PCE_H_CKPT_SHIFT, 4) == 1 &&
             EVP_DigestUpdate(c, h + PCE_H_CONSTRAINTS, PCE_H_ID - PCE_H_CONSTRAINTS) == 1 &&
             EVP_DigestUpdate(c, body_sha, 32) == 1 && EVP_DigestFinal_ex(c, out, &n) == 1;
    EVP_MD_CTX_free(c);
    return ok ? CUZK_OK : CUZK_ERR_NOMEM;
}

static int fill_header(uint8_t *h, const cuzk_pce_identity *id, const cuzk_cs_counts *k, const writer *w,
                       const pce_layout *l, const uint8_t body_sha[32])
{
    memset(h, 0, PCE_HEADER_BYTES);
    memcpy(h + PCE_H_MAGIC, PCE_MAGIC, 8);
    pce_put32(h + PCE_H_VERSION, CUZK_PCE_VERSION);
    pce_put32(h + PCE_H_HBYTES, PCE_HEADER_BYTES);
    pce_put32(h + PCE_H_KIND, id->kind);
    pce_put32(h + PCE_H_CKPT_SHIFT, PCE_CKPT_SHIFT);
    pce_put64(h + PCE_H_PROOF, id->registered_proof);
    uint64_t v[] = {k->constraints,     k->inputs,       k->aux,     k->nnz_a,      k->nnz_b,
                    k->nnz_c,           w->dict_n,       l->rec_len, l->file_bytes, k->a_aux_density,
                    k->b_input_density, k->b_aux_density};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        pce_put64(h + PCE_H_CONSTRAINTS + 8 * i, v[i]);
    for (int i = 0; i < 4; i++)
        pce_put64(h + PCE_H_CLASSES + 8 * i, w->classes[i]);
    memcpy(h + PCE_H_ID, id->id, strnlen(id->id, CUZK_PCE_ID_MAX));
    memcpy(h + PCE_H_BSHA, body_sha, 32);
    unsigned n = 32;
    if (cuzk_pce_r1cs_digest(h + PCE_H_R1CS, h, body_sha) ||
        EVP_Digest(h, PCE_H_HSHA, h + PCE_H_HSHA, &n, EVP_sha256(), NULL) != 1)
        return CUZK_ERR_NOMEM;
    return CUZK_OK;
}

/* Synthesize in SHAPE mode with the observer; lays out the rest. */
static int record(writer *w, cuzk_cs **csp, cuzk_circuit_fn fn, void *ctx, cuzk_cs_counts *k, pce_layout *l,
                  char *err, size_t err_len)
{
    int st = cuzk_cs_new(csp, CUZK_CS_SHAPE, 0);
    if (st) return cuzk_errf(err, err_len, st, "pce extract: cannot create the constraint system");
    cuzk_cs *cs = *csp;
    st = cuzk_cs_set_row_observer(cs, on_row, w);
    if (!st) st = cuzk_cs_synthesize(cs, fn, ctx);
    if (w->status) return cuzk_errf(err, err_len, w->status, "pce extract: %s", w->msg);
    if (st) return cuzk_errf(err, err_len, st, "pce extract: synthesis failed: %s", cuzk_cs_error(cs));
    cuzk_cs_get_counts(cs, k);
    if (!cuzk_pce_layout_make(l, k->constraints, k->inputs, k->aux, w->dict_n, w->written))
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "pce extract: file size overflows");
    if (w->ckpt_n + 1 != l->n_ckpt)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce extract: %zu checkpoints for %zu constraints",
                         w->ckpt_n, k->constraints);
    if (cuzk_cs_grow((void **)&w->ckpt, &w->ckpt_cap, w->ckpt_n + 1, sizeof *w->ckpt, false))
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce extract: out of memory (checkpoints)");
    w->ckpt[w->ckpt_n++] = w->written; /* the records' end */
    if (w->progress) (void)w->progress(w->progress_ctx, k->constraints);
    return CUZK_OK;
}

/* The rename made durable: fsync of path's directory (best effort: the
 * file itself is already on disk). */
static void sync_dir(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= sizeof dir) return;
    memcpy(dir, slash ? path : ".", slash ? n : 1);
    dir[slash ? (n ? n : 1) : 1] = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* A new file "<path>.tmp.<pid>.<16 hex>" that did not exist and is not a
 * link (O_EXCL | O_NOFOLLOW): nothing planted under a guessable name is
 * written through.  tmp: plen + 48 bytes. */
static int create_tmp(FILE **f, char *tmp, size_t cap, const char *path, char *err, size_t err_len)
{
    static atomic_ulong seq;
    int fd = -1, e = EEXIST;
    for (int tries = 0; fd < 0 && e == EEXIST && tries < 16; tries++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t r = ((uint64_t)ts.tv_sec * 1000000007u + (uint64_t)ts.tv_nsec) * 0x9e3779b97f4a7c15ull ^
                     (uint64_t)atomic_fetch_add(&seq, 1) * 0xbf58476d1ce4e5b9ull;
        snprintf(tmp, cap, "%s.tmp.%ld.%016llx", path, (long)getpid(), (unsigned long long)r);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        e = errno;
    }
    if (fd >= 0 && (*f = fdopen(fd, "wb"))) return CUZK_OK;
    if (fd >= 0) {
        e = errno;
        close(fd);
        unlink(tmp);
    }
    tmp[0] = 0; /* nothing of ours to remove */
    return cuzk_errf(err, err_len, CUZK_ERR_IO, "pce extract: cannot create a temporary file beside %s: %s", path,
                     strerror(e));
}

static int finish_file(writer *w, const char *tmp, const char *path, const cuzk_pce_identity *id,
                       const cuzk_cs_counts *k, const pce_layout *l, char *err, size_t err_len)
{
    uint8_t bsha[32], h[PCE_HEADER_BYTES];
    unsigned n = 32;
    if (EVP_DigestFinal_ex(w->sha, bsha, &n) != 1 || fill_header(h, id, k, w, l, bsha))
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "pce extract: SHA-256 failed");
    if (fseek(w->f, 0, SEEK_SET) || fwrite(h, 1, sizeof h, w->f) != sizeof h || fflush(w->f) ||
        fsync(fileno(w->f)))
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "pce extract: writing %s: %s", tmp, strerror(errno));
    int rc = fclose(w->f);
    w->f = NULL;
    if (rc) return cuzk_errf(err, err_len, CUZK_ERR_IO, "pce extract: closing %s: %s", tmp, strerror(errno));
    if (rename(tmp, path))
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "pce extract: renaming %s to %s: %s", tmp, path,
                         strerror(errno));
    sync_dir(path);
    return CUZK_OK;
}

int cuzk_pce_extract(const char *path, const cuzk_pce_identity *id, cuzk_circuit_fn fn, void *ctx,
                     cuzk_pce_progress_fn progress, void *progress_ctx, cuzk_pce_info *info, char *err,
                     size_t err_len)
{
    if (!path || !id || !fn) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce extract: NULL argument");
    if (strnlen(id->id, sizeof id->id) > CUZK_PCE_ID_MAX)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce extract: identity longer than %d bytes",
                         CUZK_PCE_ID_MAX);
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 48);
    writer w = {.progress = progress, .progress_ctx = progress_ctx, .sha = EVP_MD_CTX_new()};
    cuzk_cs *cs = NULL;
    int st = CUZK_OK;
    if (tmp) tmp[0] = 0;
    if (!tmp || !w.sha || EVP_DigestInit_ex(w.sha, EVP_sha256(), NULL) != 1) {
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce extract: out of memory");
        goto out;
    }
    if ((st = create_tmp(&w.f, tmp, plen + 48, path, err, err_len))) goto out;
    static const uint8_t zero[PCE_HEADER_BYTES];
    if (fwrite(zero, 1, sizeof zero, w.f) != sizeof zero) {
        st = cuzk_errf(err, err_len, CUZK_ERR_IO, "pce extract: writing %s: %s", tmp, strerror(errno));
        goto out;
    }
    cuzk_cs_counts k;
    pce_layout l;
    st = record(&w, &cs, fn, ctx, &k, &l, err, err_len);
    if (!st && write_tail(&w, cs, &l))
        st = cuzk_errf(err, err_len, w.status, "pce extract: %s: %s", tmp, w.msg);
    if (!st) st = finish_file(&w, tmp, path, id, &k, &l, err, err_len);
    if (!st && info) {
        cuzk_pce *p;
        st = cuzk_pce_open(&p, path, id, err, err_len);
        if (!st) cuzk_pce_get_info(p, info);
        cuzk_pce_close(p);
    }
out:
    if (w.f) fclose(w.f);
    if (st && tmp && tmp[0]) unlink(tmp);
    cuzk_cs_free(cs);
    writer_free(&w);
    free(tmp);
    return st;
}

int cuzk_pce_digest(uint8_t out[32], cuzk_circuit_fn fn, void *ctx, cuzk_pce_progress_fn progress,
                    void *progress_ctx, char *err, size_t err_len)
{
    if (!out || !fn) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "pce digest: NULL argument");
    writer w = {.progress = progress, .progress_ctx = progress_ctx, .sha = EVP_MD_CTX_new()};
    cuzk_cs *cs = NULL;
    cuzk_cs_counts k;
    pce_layout l;
    uint8_t bsha[32], h[PCE_HEADER_BYTES];
    unsigned n = 32;
    const cuzk_pce_identity none = {0};
    int st = w.sha && EVP_DigestInit_ex(w.sha, EVP_sha256(), NULL) == 1
                 ? CUZK_OK
                 : cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce digest: out of memory");
    if (!st) st = record(&w, &cs, fn, ctx, &k, &l, err, err_len);
    if (!st && write_tail(&w, cs, &l)) st = cuzk_errf(err, err_len, w.status, "pce digest: %s", w.msg);
    if (!st && (EVP_DigestFinal_ex(w.sha, bsha, &n) != 1 || fill_header(h, &none, &k, &w, &l, bsha)))
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "pce digest: SHA-256 failed");
    if (!st) memcpy(out, h + PCE_H_R1CS, 32);
    cuzk_cs_free(cs);
    writer_free(&w);
    return st;
}
