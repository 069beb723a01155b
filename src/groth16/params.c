/* bellperson .vk / .params reading (streamed, from memory, or mapped),
 * parallel validation, and writing.
 *
 * One parser serves all sources: a g16_src is either a memory range (a
 * buffer or an mmap'd file: points are validated in place, zero copy) or a
 * FILE* (points are read in chunks of CHUNK_POINTS into a bounce buffer and
 * validated chunk by chunk).  Validation of a chunk is split into tasks for
 * the caller's cuzk_par; the first failure by index is reported.
 *
 * Every read of a memory source (a map may shrink under us) happens inside
 * cuzk_map_guard_run / cuzk_map_guard_copy (cuzk/mapguard.h): a fault there
 * turns into CUZK_ERR_CHANGED.  Only leaf code runs guarded -- never the
 * pool, malloc or stdio -- so abandoning it half way leaves nothing
 * inconsistent. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "g16_internal.h"

#define CHUNK_POINTS ((size_t)1 << 16) /* stream bounce buffer: 6 / 12 MiB */
#define TASK_POINTS ((size_t)1 << 10)  /* points per validation task */

static const char *const vec_name[5] = {"h", "l", "a", "b_g1", "b_g2"};

typedef struct {
    const uint8_t *mem; /* memory source, or NULL */
    size_t len, pos;
    FILE *f;          /* stream source */
    uint8_t *bounce;  /* CHUNK_POINTS * 192 bytes for streams */
    const char *what; /* "params" or "vk" for messages */
} g16_src;

static enum g16_mode mode_of(const cuzk_groth16_load_opts *o)
{
    if (o && (o->flags & CUZK_G16_LOAD_NO_VALIDATE)) return G16_RAW;
    if (o && (o->flags & CUZK_G16_LOAD_NO_SUBGROUP)) return G16_NO_SUBGROUP;
    return G16_CHECKED;
}

/* Copy n bytes into buf (streams; memory too when buf is given: the copy
 * is guarded) or point at them (memory, buf NULL: the caller reads them
 * under a guard).  CUZK_ERR_FORMAT at EOF, CUZK_ERR_CHANGED on a fault. */
static int src_get(g16_src *s, const uint8_t **p, uint8_t *buf, size_t n)
{
    if (s->mem) {
        if (s->len - s->pos < n) return CUZK_ERR_FORMAT;
        *p = s->mem + s->pos;
        if (buf) {
            if (cuzk_map_guard_copy(buf, *p, n, s->mem, s->len)) return CUZK_ERR_CHANGED;
            *p = buf;
        }
        s->pos += n;
        return CUZK_OK;
    }
    if (fread(buf, 1, n, s->f) != n) return CUZK_ERR_FORMAT;
    *p = buf;
    s->pos += n;
    return CUZK_OK;
}

static int changed_err(const g16_src *s, size_t at, char *err, size_t err_len)
{
    return cuzk_errf(err, err_len, CUZK_ERR_CHANGED,
                     "%s: the mapped file shrank or changed while it was read (fault at byte %zu)", s->what,
                     at);
}

/* ---- parallel validation -------------------------------------------------- */

typedef struct {
    const uint8_t *in;
    size_t n;
    bool g2;
    enum g16_mode mode;
    void *out;   /* decoded points, or NULL to validate only */
    int *code;   /* per task: first failing status */
    size_t *idx; /* per task: its index */
} vjob;

typedef struct {
    vjob *j;
    size_t t;
} vjob_arg;

static void vjob_range(void *arg)
{
    vjob *j = ((vjob_arg *)arg)->j;
    size_t t = ((vjob_arg *)arg)->t;
    size_t lo = t * TASK_POINTS, hi = lo + TASK_POINTS < j->n ? lo + TASK_POINTS : j->n;
    for (size_t i = lo; i < hi; i++) {
        int st;
        if (j->g2) {
            cuzk_g2_affine tmp, *o = j->out ? (cuzk_g2_affine *)j->out + i : &tmp;
            st = cuzk_g16_decode_g2(o, j->in + i * G16_G2_BYTES, j->mode);
        } else {
            cuzk_g1_affine tmp, *o = j->out ? (cuzk_g1_affine *)j->out + i : &tmp;
            st = cuzk_g16_decode_g1(o, j->in + i * G16_G1_BYTES, j->mode);
        }
        if (st) {
            j->code[t] = st;
            j->idx[t] = i;
            return;
        }
    }
}

static void vjob_task(void *arg, size_t t)
{
    vjob *j = arg;
    vjob_arg a = {j, t};
    j->code[t] = CUZK_OK;
    if (cuzk_map_guard_run(j->in, j->n * (j->g2 ? G16_G2_BYTES : G16_G1_BYTES), vjob_range, &a)) {
        j->code[t] = CUZK_ERR_CHANGED;
        j->idx[t] = t * TASK_POINTS;
    }
}

/* Decode/validate n points at in; on failure *bad = index of the first bad
 * point and the status is returned. */
static int validate_points(void *out, const uint8_t *in, size_t n, bool g2, enum g16_mode mode, cuzk_par *par,
                           size_t *bad)
{
    if (!n) return CUZK_OK;
    if (!out && mode == G16_RAW) return CUZK_OK; /* nothing to check */
    size_t ntasks = (n + TASK_POINTS - 1) / TASK_POINTS;
    int *code = malloc(ntasks * sizeof *code);
    size_t *idx = malloc(ntasks * sizeof *idx);
    if (!code || !idx) {
        free(code);
        free(idx);
        return CUZK_ERR_NOMEM;
    }
    vjob j = {in, n, g2, mode, out, code, idx};
    cuzk_par_for(par, vjob_task, &j, ntasks);
    int st = CUZK_OK;
    for (size_t t = 0; t < ntasks; t++)
        if (code[t]) {
            st = code[t];
            *bad = idx[t];
            break;
        }
    free(code);
    free(idx);
    return st;
}

/* Read a u32 BE count followed by that many points.  keep: decode into a
 * malloc'd array (*dst); otherwise only validate (memory sources) and
 * record the offset.  name/what feed the error message. */
static int read_vec(g16_src *s, const char *name, bool g2, enum g16_mode mode, bool keep, void **dst,
                    size_t *count, size_t *off, cuzk_par *par, char *err, size_t err_len)
{
    const size_t esz = g2 ? G16_G2_BYTES : G16_G1_BYTES;
    const size_t psz = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    uint8_t cb[4];
    const uint8_t *p;
    size_t at = s->pos;
    int gst = src_get(s, &p, cb, 4);
    if (gst == CUZK_ERR_CHANGED) return changed_err(s, at, err, err_len);
    if (gst)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: truncated: file ends at byte %zu, before the count of vector %s", s->what, at,
                         name);
    size_t n = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
    *count = n;
    *off = s->pos;
    if (s->mem && (s->len - s->pos) / esz < n)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: truncated: vector %s declares %zu points (%zu bytes) but only %zu "
                         "bytes remain",
                         s->what, name, n, n * esz, s->len - s->pos);
    uint8_t *arr = NULL;
    if (keep && n) {
        /* streams may lie about n: allocate as points arrive */
        size_t cap = s->mem ? n : (n < CHUNK_POINTS ? n : CHUNK_POINTS);
        if (!(arr = malloc(cap * psz)))
            return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory for vector %s (%zu points)",
                             s->what, name, n);
        for (size_t done = 0; done < n;) {
            size_t k = s->mem ? n : (n - done < CHUNK_POINTS ? n - done : CHUNK_POINTS);
            if (done + k > cap) {
                size_t ncap = cap * 2 < n ? cap * 2 : n;
                uint8_t *t = realloc(arr, ncap * psz);
                if (!t) {
                    free(arr);
                    return cuzk_errf(err, err_len, CUZK_ERR_NOMEM,
                                     "%s: out of memory for vector %s (%zu points)", s->what, name, n);
                }
                arr = t;
                cap = ncap;
            }
            at = s->pos;
            if ((gst = src_get(s, &p, s->bounce, k * esz))) {
                free(arr);
                if (gst == CUZK_ERR_CHANGED) return changed_err(s, at, err, err_len);
                return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                                 "%s: truncated: vector %s declares %zu points, file ends within "
                                 "points %zu..%zu (byte %zu on)",
                                 s->what, name, n, done, done + k - 1, at);
            }
            size_t bad = 0;
            int st = validate_points(arr + done * psz, p, k, g2, mode, par, &bad);
            if (st) {
                free(arr);
                return cuzk_errf(err, err_len, st, "%s: %s[%zu]: %s", s->what, name, done + bad,
                                 cuzk_strerror(st));
            }
            done += k;
        }
    } else if (n) {
        /* mapped: validate in place (memory sources only) */
        if (src_get(s, &p, NULL, n * esz)) return CUZK_ERR_FORMAT; /* checked above */
        size_t bad = 0;
        int st = validate_points(NULL, p, n, g2, mode, par, &bad);
        if (st) return cuzk_errf(err, err_len, st, "%s: %s[%zu]: %s", s->what, name, bad, cuzk_strerror(st));
    }
    if (dst) *dst = arr;
    return CUZK_OK;
}

/* The 864-byte fixed part and the IC vector. */
static int read_vk(cuzk_groth16_vk *vk, g16_src *s, enum g16_mode mode, cuzk_par *par, char *err,
                   size_t err_len)
{
    static const struct {
        const char *name;
        bool g2;
        size_t field;
    } fixed[6] = {
        {"alpha_g1", false, offsetof(cuzk_groth16_vk, alpha_g1)},
        {"beta_g1", false, offsetof(cuzk_groth16_vk, beta_g1)},
        {"beta_g2", true, offsetof(cuzk_groth16_vk, beta_g2)},
        {"gamma_g2", true, offsetof(cuzk_groth16_vk, gamma_g2)},
        {"delta_g1", false, offsetof(cuzk_groth16_vk, delta_g1)},
        {"delta_g2", true, offsetof(cuzk_groth16_vk, delta_g2)},
    };
    uint8_t buf[G16_G2_BYTES];
    memset(vk, 0, sizeof *vk);
    for (int i = 0; i < 6; i++) {
        const uint8_t *p;
        size_t at = s->pos;
        int gst = src_get(s, &p, buf, fixed[i].g2 ? G16_G2_BYTES : G16_G1_BYTES);
        if (gst == CUZK_ERR_CHANGED) return changed_err(s, at, err, err_len);
        if (gst)
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                             "%s: truncated: file ends at byte %zu, inside vk.%s (the fixed part is "
                             "864 bytes)",
                             s->what, at, fixed[i].name);
        void *dst = (uint8_t *)vk + fixed[i].field;
        int st = fixed[i].g2 ? cuzk_g16_decode_g2(dst, p, mode) : cuzk_g16_decode_g1(dst, p, mode);
        if (st)
            return cuzk_errf(err, err_len, st, "%s: vk.%s: %s", s->what, fixed[i].name, cuzk_strerror(st));
    }
    size_t off;
    void *ic = NULL;
    int st = read_vec(s, "vk.ic", false, mode, true, &ic, &vk->n_ic, &off, par, err, err_len);
    vk->ic = ic;
    if (st) return st;
    if (vk->n_ic == 0)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: vk.ic is empty (it needs one point per input including ONE)", s->what);
    return CUZK_OK;
}

static bool is_pow2(size_t x)
{
    return x && !(x & (x - 1));
}

int cuzk_groth16_params_check_shape(const cuzk_groth16_params *p, const cuzk_groth16_shape *sh, char *err,
                                    size_t err_len)
{
    const size_t *c = p->count;
    size_t n_ic = p->vk.n_ic;
    /* internal consistency, independent of the circuit */
    if (!is_pow2(c[CUZK_G16_H] + 1))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: h has %zu points; it must have m-1 for a power-of-two domain size m",
                         c[CUZK_G16_H]);
    if (c[CUZK_G16_B_G1] != c[CUZK_G16_B_G2])
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: b_g1 has %zu points but b_g2 has %zu (they share one index set)",
                         c[CUZK_G16_B_G1], c[CUZK_G16_B_G2]);
    if (c[CUZK_G16_A] < n_ic || c[CUZK_G16_A] > n_ic + c[CUZK_G16_L])
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: a has %zu points; it must hold every input (%zu) plus at most one "
                         "per aux variable (%zu)",
                         c[CUZK_G16_A], n_ic, c[CUZK_G16_L]);
    if (c[CUZK_G16_B_G1] > n_ic + c[CUZK_G16_L])
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: b_g1 has %zu points, more than inputs + aux (%zu)", c[CUZK_G16_B_G1],
                         n_ic + c[CUZK_G16_L]);
    if (!sh) return CUZK_OK;
    size_t m = (size_t)1 << cuzk_g16_log2_ceil(sh->n_constraints ? sh->n_constraints : 1);
    if (n_ic != sh->n_inputs)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: vk.ic has %zu points but the circuit has %zu inputs (including ONE)", n_ic,
                         sh->n_inputs);
    if (c[CUZK_G16_H] != m - 1)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: h has %zu points but the circuit's %zu constraints need m-1 = %zu",
                         c[CUZK_G16_H], sh->n_constraints, m - 1);
    if (c[CUZK_G16_L] != sh->n_aux)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: l has %zu points but the circuit has %zu aux variables", c[CUZK_G16_L],
                         sh->n_aux);
    if (c[CUZK_G16_A] != sh->n_inputs + sh->n_a_aux)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: a has %zu points but the circuit's A density needs %zu "
                         "(%zu inputs + %zu aux)",
                         c[CUZK_G16_A], sh->n_inputs + sh->n_a_aux, sh->n_inputs, sh->n_a_aux);
    if (c[CUZK_G16_B_G1] != sh->n_b_inputs + sh->n_b_aux)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "params: b_g1/b_g2 have %zu points but the circuit's B density needs %zu "
                         "(%zu inputs + %zu aux)",
                         c[CUZK_G16_B_G1], sh->n_b_inputs + sh->n_b_aux, sh->n_b_inputs, sh->n_b_aux);
    return CUZK_OK;
}

/* Parse a whole .params from s; keep = resident arrays. */
static int parse_params(cuzk_groth16_params *p, g16_src *s, bool keep, const cuzk_groth16_load_opts *o)
{
    enum g16_mode mode = mode_of(o);
    cuzk_par *par = o ? o->par : NULL;
    char *err = o ? o->err : NULL;
    size_t el = o ? o->err_len : 0;
    int st = read_vk(&p->vk, s, mode, par, err, el);
    if (st) return st;
    for (int v = 0; v < 5; v++) {
        void *arr = NULL;
        st = read_vec(s, vec_name[v], v == CUZK_G16_B_G2, mode, keep, &arr, &p->count[v], &p->off[v], par,
                      err, el);
        if (v < 4)
            p->g1[v] = arr;
        else
            p->g2 = arr;
        if (st) return st;
    }
    if (s->mem && s->pos != s->len)
        return cuzk_errf(err, el, CUZK_ERR_FORMAT, "params: %zu trailing bytes after vector b_g2",
                         s->len - s->pos);
    if (!s->mem && fgetc(s->f) != EOF)
        return cuzk_errf(err, el, CUZK_ERR_FORMAT, "params: trailing bytes after vector b_g2");
    return cuzk_groth16_params_check_shape(p, o ? o->shape : NULL, err, el);
}

void cuzk_groth16_params_free(cuzk_groth16_params *p)
{
    if (!p) return;
    free(p->vk.ic);
    for (int v = 0; v < 4; v++)
        free(p->g1[v]);
    free(p->g2);
    if (p->map) munmap((void *)p->map, p->map_len);
    free(p);
}

int cuzk_groth16_params_read(cuzk_groth16_params **out, FILE *f, const cuzk_groth16_load_opts *o)
{
    *out = NULL;
    if (!f) return CUZK_ERR_ARG;
    cuzk_groth16_params *p = calloc(1, sizeof *p);
    g16_src s = {.f = f, .what = "params", .bounce = malloc(CHUNK_POINTS * G16_G2_BYTES)};
    if (!p || !s.bounce) {
        free(p);
        free(s.bounce);
        return CUZK_ERR_NOMEM;
    }
    int st = parse_params(p, &s, true, o);
    free(s.bounce);
    if (st) {
        cuzk_groth16_params_free(p);
        return st;
    }
    *out = p;
    return CUZK_OK;
}

int cuzk_groth16_params_decode(cuzk_groth16_params **out, const uint8_t *buf, size_t len,
                               const cuzk_groth16_load_opts *o)
{
    *out = NULL;
    if (!buf && len) return CUZK_ERR_ARG;
    cuzk_groth16_params *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ERR_NOMEM;
    g16_src s = {.mem = buf ? buf : (const uint8_t *)"", .len = len, .what = "params"};
    int st = parse_params(p, &s, true, o);
    if (st) {
        cuzk_groth16_params_free(p);
        return st;
    }
    *out = p;
    return CUZK_OK;
}

static int map_file(const uint8_t **map, size_t *len, const char *path, char *err, size_t el)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cuzk_errf(err, el, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_errf(err, el, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    *len = (size_t)st.st_size;
    if (!*len) {
        close(fd);
        return cuzk_errf(err, el, CUZK_ERR_FORMAT, "%s: empty file", path);
    }
    void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) return cuzk_errf(err, el, CUZK_ERR_IO, "%s: mmap: %s", path, strerror(e));
    *map = m;
    return CUZK_OK;
}

int cuzk_groth16_params_load(cuzk_groth16_params **out, const char *path, const cuzk_groth16_load_opts *o)
{
    *out = NULL;
    char *err = o ? o->err : NULL;
    size_t el = o ? o->err_len : 0;
    if (!path) return CUZK_ERR_ARG;
    int st;
    if (o && (o->flags & CUZK_G16_LOAD_MMAP)) {
        cuzk_groth16_params *p = calloc(1, sizeof *p);
        if (!p) return CUZK_ERR_NOMEM;
        if ((st = map_file(&p->map, &p->map_len, path, err, el))) {
            free(p);
            return st;
        }
        g16_src s = {.mem = p->map, .len = p->map_len, .what = "params"};
        if ((st = parse_params(p, &s, false, o))) {
            cuzk_groth16_params_free(p);
            return st;
        }
        *out = p;
    } else {
        FILE *f = fopen(path, "rb");
        if (!f) return cuzk_errf(err, el, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
        st = cuzk_groth16_params_read(out, f, o);
        fclose(f);
        if (st) return st;
    }
    (*out)->is_test = (*out)->vk.is_test = cuzk_groth16_is_test_file(path);
    return CUZK_OK;
}

/* ---- accessors -------------------------------------------------------------- */

const cuzk_groth16_vk *cuzk_groth16_params_vk(const cuzk_groth16_params *p)
{
    return &p->vk;
}
bool cuzk_groth16_params_is_mapped(const cuzk_groth16_params *p)
{
    return p->map != NULL;
}
bool cuzk_groth16_params_is_test(const cuzk_groth16_params *p)
{
    return p->is_test;
}

size_t cuzk_groth16_params_count(const cuzk_groth16_params *p, cuzk_groth16_vec v)
{
    return (unsigned)v < 5 ? p->count[v] : 0;
}

const cuzk_g1_affine *cuzk_groth16_params_g1_data(const cuzk_groth16_params *p, cuzk_groth16_vec v)
{
    return (unsigned)v < 4 ? p->g1[v] : NULL;
}

const cuzk_g2_affine *cuzk_groth16_params_g2_data(const cuzk_groth16_params *p)
{
    return p->g2;
}

/* Decode n mapped points (run under the map's guard). */
typedef struct {
    void *out;
    const uint8_t *in;
    size_t n;
    bool g2;
    int st;
} map_dec;

static void map_dec_run(void *arg)
{
    map_dec *d = arg;
    for (size_t i = 0; i < d->n && !d->st; i++)
        d->st = d->g2 ? cuzk_g16_decode_g2((cuzk_g2_affine *)d->out + i, d->in + i * G16_G2_BYTES, G16_RAW)
                      : cuzk_g16_decode_g1((cuzk_g1_affine *)d->out + i, d->in + i * G16_G1_BYTES, G16_RAW);
}

static int map_decode(void *out, const cuzk_groth16_params *p, int v, size_t start, size_t n)
{
    const size_t esz = v == CUZK_G16_B_G2 ? G16_G2_BYTES : G16_G1_BYTES;
    map_dec d = {out, p->map + p->off[v] + start * esz, n, v == CUZK_G16_B_G2, CUZK_OK};
    int st = cuzk_map_guard_run(p->map, p->map_len, map_dec_run, &d);
    return st ? st : d.st;
}

int cuzk_groth16_params_g1(cuzk_g1_affine *out, const cuzk_groth16_params *p, cuzk_groth16_vec v,
                           size_t start, size_t n)
{
    if ((unsigned)v >= 4 || start > p->count[v] || n > p->count[v] - start) return CUZK_ERR_ARG;
    if (!p->map) {
        memcpy(out, p->g1[v] + start, n * sizeof *out);
        return CUZK_OK;
    }
    return map_decode(out, p, v, start, n);
}

int cuzk_groth16_params_g2(cuzk_g2_affine *out, const cuzk_groth16_params *p, size_t start, size_t n)
{
    if (start > p->count[4] || n > p->count[4] - start) return CUZK_ERR_ARG;
    if (!p->map) {
        memcpy(out, p->g2 + start, n * sizeof *out);
        return CUZK_OK;
    }
    return map_decode(out, p, CUZK_G16_B_G2, start, n);
}

/* ---- verifying key alone ------------------------------------------------------ */

static int vk_from_src(cuzk_groth16_vk **out, g16_src *s, const cuzk_groth16_load_opts *o, bool exact)
{
    char *err = o ? o->err : NULL;
    size_t el = o ? o->err_len : 0;
    cuzk_groth16_vk *vk = calloc(1, sizeof *vk);
    if (!vk) return CUZK_ERR_NOMEM;
    int st = read_vk(vk, s, mode_of(o), o ? o->par : NULL, err, el);
    if (!st && exact && s->mem && s->pos != s->len)
        st = cuzk_errf(err, el, CUZK_ERR_FORMAT, "vk: %zu trailing bytes after vk.ic", s->len - s->pos);
    if (!st && exact && !s->mem && fgetc(s->f) != EOF)
        st = cuzk_errf(err, el, CUZK_ERR_FORMAT, "vk: trailing bytes after vk.ic");
    if (!st && o && o->shape && o->shape->n_inputs != vk->n_ic)
        st = cuzk_errf(err, el, CUZK_ERR_FORMAT,
                       "vk: ic has %zu points but the circuit has %zu inputs (including ONE)", vk->n_ic,
                       o->shape->n_inputs);
    if (st) {
        cuzk_groth16_vk_free(vk);
        return st;
    }
    *out = vk;
    return CUZK_OK;
}

int cuzk_groth16_vk_decode(cuzk_groth16_vk **out, const uint8_t *buf, size_t len,
                           const cuzk_groth16_load_opts *o)
{
    *out = NULL;
    if (!buf && len) return CUZK_ERR_ARG;
    g16_src s = {.mem = buf ? buf : (const uint8_t *)"", .len = len, .what = "vk"};
    return vk_from_src(out, &s, o, true);
}

int cuzk_groth16_vk_read(cuzk_groth16_vk **out, FILE *f, const cuzk_groth16_load_opts *o)
{
    *out = NULL;
    if (!f) return CUZK_ERR_ARG;
    g16_src s = {.f = f, .what = "vk", .bounce = malloc(CHUNK_POINTS * G16_G2_BYTES)};
    if (!s.bounce) return CUZK_ERR_NOMEM;
    /* a .vk file must end after ic; the head of a .params need not */
    int st = vk_from_src(out, &s, o, false);
    free(s.bounce);
    return st;
}

int cuzk_groth16_vk_load(cuzk_groth16_vk **out, const char *path, const cuzk_groth16_load_opts *o)
{
    *out = NULL;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        return cuzk_errf(o ? o->err : NULL, o ? o->err_len : 0, CUZK_ERR_IO, "%s: %s", path ? path : "(null)",
                         strerror(errno));
    int st = cuzk_groth16_vk_read(out, f, o);
    fclose(f);
    if (!st) (*out)->is_test = cuzk_groth16_is_test_file(path);
    return st;
}

void cuzk_groth16_vk_free(cuzk_groth16_vk *vk)
{
    if (!vk) return;
    free(vk->ic);
    free(vk);
}

/* ---- writing ------------------------------------------------------------------ */

static int put_u32(FILE *f, size_t n)
{
    if (n > 0xffffffffu) return CUZK_ERR_ARG;
    uint8_t b[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    return fwrite(b, 1, 4, f) == 4 ? CUZK_OK : CUZK_ERR_IO;
}

static int put_g1(FILE *f, const cuzk_g1_affine *p)
{
    uint8_t b[G16_G1_BYTES];
    cuzk_g1_serialize(b, p);
    return fwrite(b, 1, sizeof b, f) == sizeof b ? CUZK_OK : CUZK_ERR_IO;
}

static int put_g2(FILE *f, const cuzk_g2_affine *p)
{
    uint8_t b[G16_G2_BYTES];
    cuzk_g2_serialize(b, p);
    return fwrite(b, 1, sizeof b, f) == sizeof b ? CUZK_OK : CUZK_ERR_IO;
}

/* stdio must not run guarded: copy the map in guarded chunks, then write. */
static int write_mapped(FILE *f, const cuzk_groth16_params *p, size_t off, size_t bytes)
{
    uint8_t buf[1 << 16];
    for (size_t done = 0; done < bytes;) {
        size_t k = bytes - done < sizeof buf ? bytes - done : sizeof buf;
        int st = cuzk_map_guard_copy(buf, p->map + off + done, k, p->map, p->map_len);
        if (st) return st;
        if (fwrite(buf, 1, k, f) != k) return CUZK_ERR_IO;
        done += k;
    }
    return CUZK_OK;
}

int cuzk_groth16_vk_write(FILE *f, const cuzk_groth16_vk *vk)
{
    int st;
    if ((st = put_g1(f, &vk->alpha_g1)) || (st = put_g1(f, &vk->beta_g1)) || (st = put_g2(f, &vk->beta_g2)) ||
        (st = put_g2(f, &vk->gamma_g2)) || (st = put_g1(f, &vk->delta_g1)) ||
        (st = put_g2(f, &vk->delta_g2)) || (st = put_u32(f, vk->n_ic)))
        return st;
    for (size_t i = 0; i < vk->n_ic; i++)
        if ((st = put_g1(f, &vk->ic[i]))) return st;
    return CUZK_OK;
}

int cuzk_groth16_params_write(FILE *f, const cuzk_groth16_params *p)
{
    int st = cuzk_groth16_vk_write(f, &p->vk);
    for (int v = 0; v < 5 && !st; v++) {
        if ((st = put_u32(f, p->count[v]))) break;
        if (p->map) {
            size_t bytes = p->count[v] * (v == 4 ? G16_G2_BYTES : G16_G1_BYTES);
            st = write_mapped(f, p, p->off[v], bytes);
        } else {
            for (size_t i = 0; i < p->count[v] && !st; i++)
                st = v == 4 ? put_g2(f, &p->g2[i]) : put_g1(f, &p->g1[v][i]);
        }
    }
    return st;
}

/* ---- test-parameter marker ---------------------------------------------------- */

int cuzk_groth16_mark_test(const char *path, const char *note)
{
    char side[4096];
    if (snprintf(side, sizeof side, "%s.test", path) >= (int)sizeof side) return CUZK_ERR_ARG;
    FILE *f = fopen(side, "w");
    if (!f) return CUZK_ERR_IO;
    fprintf(f,
            "cuzk TEST parameters: %s was generated from a known seed by cuzk_groth16_setup_test.\n"
            "Anyone with the seed can forge proofs. Never use it for real proofs.\n%s%s",
            path, note ? note : "", note && *note ? "\n" : "");
    return fclose(f) ? CUZK_ERR_IO : CUZK_OK;
}

bool cuzk_groth16_is_test_file(const char *path)
{
    char side[4096];
    if (snprintf(side, sizeof side, "%s.test", path) >= (int)sizeof side) return false;
    return access(side, F_OK) == 0;
}
