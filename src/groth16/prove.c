/* The Groth16 prover (filecoin-formats.md section 4) for a batch of
 * circuits sharing one set of parameters.
 *
 * Per proof: H = coefficients of (A*B - C)/Z by the backend's h_poly
 * (coset NTTs), then five MSMs (H, L, A, B_G1, B_G2) through the backend,
 * then the assembly with the blinding r, s (constant time):
 *     A = alpha1 + SA + r delta1         B = beta2 + SB2 + s delta2
 *     B1 = beta1 + SB1 + s delta1        C = s A + r B1 - r s delta1 + H + L
 * Mapped parameters are walked in chunks of chunk_vars variables (default
 * CHUNK_VARS; a multiple of 64 so a chunk's density starts on a word): a chunk of
 * bases is decoded once into a buffer and used by every proof of the batch,
 * so memory stays bounded whatever the file size.  Resident parameters are
 * passed to the MSM directly. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>

#include "cuzk/msm.h"
#include "g16_internal.h"

#define CHUNK_VARS ((size_t)1 << 20) /* multiple of 64 */

static size_t popcount_range(const uint64_t *bits, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n / 64; i++)
        c += (size_t)__builtin_popcountll(bits[i]);
    if (n % 64) c += (size_t)__builtin_popcountll(bits[n / 64] & ((1ull << (n % 64)) - 1));
    return c;
}

int cuzk_groth16_witness_take_evals(cuzk_groth16_witness *w, cuzk_cs *cs, size_t m, cuzk_fr *owned[3])
{
    if (!w || !cs || !owned || m < w->n_constraints || m > SIZE_MAX / sizeof(cuzk_fr)) return CUZK_ERR_ARG;
    cuzk_fr *ev[3];
    if (cuzk_cs_take_evals(cs, &ev[0], &ev[1], &ev[2])) return CUZK_ERR_ARG;
    int st = CUZK_OK;
    for (int k = 0; k < 3; k++) {
        cuzk_fr *t = realloc(ev[k], m * sizeof *t); /* usually in place: the cs grows them by doubling */
        if (t)
            ev[k] = t;
        else
            st = CUZK_ERR_NOMEM;
        owned[k] = ev[k];
    }
    w->a = ev[0];
    w->b = ev[1];
    w->c = ev[2];
    w->a_mut = w->b_mut = w->c_mut = NULL;
    if (!st) {
        w->a_mut = ev[0];
        w->b_mut = ev[1];
        w->c_mut = ev[2];
    }
    return st;
}

static size_t words(size_t bits)
{
    return (bits + 63) / 64;
}

int cuzk_groth16_witness_from_cs(cuzk_groth16_witness *w, const cuzk_cs *cs)
{
    cuzk_cs_counts n;
    cuzk_cs_get_counts(cs, &n);
    memset(w, 0, sizeof *w);
    w->n_constraints = n.constraints;
    w->n_inputs = n.inputs;
    w->n_aux = n.aux;
    w->a = cuzk_cs_eval(cs, CUZK_LC_A);
    w->b = cuzk_cs_eval(cs, CUZK_LC_B);
    w->c = cuzk_cs_eval(cs, CUZK_LC_C);
    w->input = cuzk_cs_input_assignment(cs);
    w->aux = cuzk_cs_aux_assignment(cs);
    w->a_aux_density = cuzk_cs_density_a_aux(cs);
    w->b_input_density = cuzk_cs_density_b_input(cs);
    w->b_aux_density = cuzk_cs_density_b_aux(cs);
    bool inplace = w->a_mut && w->b_mut && w->c_mut;
    if ((!inplace && (!w->a || !w->b || !w->c)) || !w->input || (n.aux && !w->aux) ||
        (n.aux && (!w->a_aux_density || !w->b_aux_density)) || !w->b_input_density)
        return CUZK_ERR_ARG; /* not a finished PROVE-mode cs */
    return CUZK_OK;
}

int cuzk_groth16_witness_lean(cuzk_groth16_witness *w, const cuzk_cs *cs, cuzk_fr *a, cuzk_fr *b,
                              int (*fill_c)(void *, cuzk_fr *, size_t), void *fill_c_ctx)
{
    int filled = cuzk_groth16_witness_from_cs(w, cs); /* every field; it fails only on the absent evaluations */
    (void)filled;
    w->a = w->b = w->c = NULL;
    w->a_mut = a;
    w->b_mut = b;
    w->fill_c = fill_c;
    w->fill_c_ctx = fill_c_ctx;
    if (!a || !b || a == b || !fill_c || !w->input || (w->n_aux && !w->aux) || !w->b_input_density ||
        (w->n_aux && (!w->a_aux_density || !w->b_aux_density)))
        return CUZK_ERR_ARG;
    return CUZK_OK;
}

/* The caller's writable evaluations are transformed in place (three
 * buffers, or two and fill_c: the lean H). */
static bool in_place(const cuzk_groth16_witness *w) { return w->a_mut && w->b_mut && (w->c_mut || w->fill_c); }
static bool lean(const cuzk_groth16_witness *w) { return w->a_mut && w->b_mut && !w->c_mut && w->fill_c; }

static int check_witness(const cuzk_groth16_params *p, const cuzk_groth16_witness *w, size_t i,
                         const cuzk_groth16_witness *w0, char *err, size_t el)
{
    bool inplace = in_place(w);
    if ((!inplace && (!w->a || !w->b || !w->c)) || !w->input || (w->n_aux && !w->aux) ||
        !w->b_input_density || (w->n_aux && (!w->a_aux_density || !w->b_aux_density)))
        return cuzk_errf(err, el, CUZK_ERR_ARG,
                         "prove: circuit %zu: missing evaluations, assignment "
                         "or density",
                         i);
    cuzk_groth16_shape sh = {
        .n_inputs = w->n_inputs,
        .n_aux = w->n_aux,
        .n_constraints = w->n_constraints,
        .n_a_aux = w->n_aux ? popcount_range(w->a_aux_density, w->n_aux) : 0,
        .n_b_inputs = popcount_range(w->b_input_density, w->n_inputs),
        .n_b_aux = w->n_aux ? popcount_range(w->b_aux_density, w->n_aux) : 0,
    };
    char msg[CUZK_G16_ERR_LEN];
    int st = cuzk_groth16_params_check_shape(p, &sh, msg, sizeof msg);
    if (st) return cuzk_errf(err, el, st, "prove: circuit %zu does not match the parameters: %s", i, msg);
    if (!cuzk_fr_is_one(&w->input[0]))
        return cuzk_errf(err, el, CUZK_ERR_ARG, "prove: circuit %zu: input 0 (ONE) is not 1", i);
    /* chunked MSMs over mapped bases use one density for the whole batch */
    if (w != w0 && (w->n_aux != w0->n_aux || w->n_inputs != w0->n_inputs ||
                    (w->n_aux && (memcmp(w->a_aux_density, w0->a_aux_density, words(w->n_aux) * 8) ||
                                  memcmp(w->b_aux_density, w0->b_aux_density, words(w->n_aux) * 8))) ||
                    memcmp(w->b_input_density, w0->b_input_density, words(w->n_inputs) * 8)))
        return cuzk_errf(err, el, CUZK_ERR_ARG,
                         "prove: circuit %zu has a different density from circuit 0; a batch must "
                         "share one circuit",
                         i);
    return CUZK_OK;
}

/* ---- chunked MSM over one query ------------------------------------------- */

typedef struct {
    const cuzk_groth16_params *p;
    int v;                   /* cuzk_groth16_vec */
    size_t base0;            /* first base of this query part in the vector */
    const uint64_t *density; /* shared by the batch, NULL = dense */
    size_t nvars;
    const cuzk_fr *const *scalars; /* per proof */
    size_t nproofs;
    size_t chunk; /* variables per chunk (mapped params) */
    /* CPU backend fast path: the same scalars already converted to
     * canonical integers (per proof), so L, A, B_G1 and B_G2 share one
     * conversion and the MSM needs only its small canonical scratch */
    const cuzk_scalar *const *canon;
    void *scratch;
    size_t scratch_len;
    const cuzk_groth16_prove_opts *o; /* for the checkpoint hook (may be NULL) */
} query;

/* One MSM of the query for proof i over bases [b, b + nb) and variables
 * [v0, v0 + nv): the backend's, or cuzk/msm.h directly on canonical
 * scalars. */
static int query_msm(const cuzk_groth16_backend *be, cuzk_par *par, const query *q, size_t i, void *r,
                     const void *bases, size_t nb, size_t v0, size_t nv, const uint64_t *dens)
{
    const bool g2 = q->v == CUZK_G16_B_G2;
    int st;
    if (q->o && q->o->checkpoint && (st = q->o->checkpoint(q->o->checkpoint_ctx))) return st;
    if (q->canon) {
        const cuzk_scalar *k = q->canon[i] + v0;
        return g2 ? cuzk_msm_g2_canonical(par, r, bases, nb, k, nv, dens, q->scratch, q->scratch_len)
                  : cuzk_msm_g1_canonical(par, r, bases, nb, k, nv, dens, q->scratch, q->scratch_len);
    }
    const cuzk_fr *s = q->scalars[i] + v0;
    return g2 ? be->msm_g2(be->ctx, r, bases, nb, s, nv, dens, par)
              : be->msm_g1(be->ctx, r, bases, nb, s, nv, dens, par);
}

typedef struct {
    const cuzk_groth16_params *p;
    int v;
    size_t start, n;
    void *out;
    int *st;
} dec_job;

#define DEC_TASK 4096

static void dec_task(void *arg, size_t t)
{
    dec_job *j = arg;
    size_t lo = t * DEC_TASK, k = j->n - lo < DEC_TASK ? j->n - lo : DEC_TASK;
    int st = j->v == CUZK_G16_B_G2
                 ? cuzk_groth16_params_g2((cuzk_g2_affine *)j->out + lo, j->p, j->start + lo, k)
                 : cuzk_groth16_params_g1((cuzk_g1_affine *)j->out + lo, j->p, j->v, j->start + lo, k);
    if (st) j->st[t] = st;
}

/* acc[i] (G1 or G2 Jacobian) += the query's MSM for proof i. */
static int run_query(const cuzk_groth16_backend *be, cuzk_par *par, const query *q, void *acc, void *buf)
{
    const bool g2 = q->v == CUZK_G16_B_G2;
    const cuzk_groth16_params *p = q->p;
    size_t nb_total = q->density ? popcount_range(q->density, q->nvars) : q->nvars;
    if (!q->nvars) return CUZK_OK;
    if (!p->map) {
        for (size_t i = 0; i < q->nproofs; i++) {
            int st;
            if (g2) {
                cuzk_g2 r, *a = (cuzk_g2 *)acc + i;
                st = query_msm(be, par, q, i, &r, p->g2 + q->base0, nb_total, 0, q->nvars, q->density);
                if (!st) cuzk_g2_add(a, a, &r);
            } else {
                cuzk_g1 r, *a = (cuzk_g1 *)acc + i;
                st = query_msm(be, par, q, i, &r, p->g1[q->v] + q->base0, nb_total, 0, q->nvars, q->density);
                if (!st) cuzk_g1_add(a, a, &r);
            }
            if (st) return st;
        }
        return CUZK_OK;
    }
    size_t base = q->base0;
    for (size_t v0 = 0; v0 < q->nvars; v0 += q->chunk) {
        size_t nv = q->nvars - v0 < q->chunk ? q->nvars - v0 : q->chunk;
        const uint64_t *dens = q->density ? q->density + v0 / 64 : NULL;
        size_t nb = dens ? popcount_range(dens, nv) : nv;
        size_t ntasks = (nb + DEC_TASK - 1) / DEC_TASK;
        int sts[CHUNK_VARS / DEC_TASK + 1] = {0};
        dec_job dj = {p, q->v, base, nb, buf, sts};
        cuzk_par_for(par, dec_task, &dj, ntasks);
        for (size_t t = 0; t < ntasks; t++)
            if (sts[t]) return sts[t];
        for (size_t i = 0; i < q->nproofs; i++) {
            int st;
            if (g2) {
                cuzk_g2 r, *a = (cuzk_g2 *)acc + i;
                st = query_msm(be, par, q, i, &r, buf, nb, v0, nv, dens);
                if (!st) cuzk_g2_add(a, a, &r);
            } else {
                cuzk_g1 r, *a = (cuzk_g1 *)acc + i;
                st = query_msm(be, par, q, i, &r, buf, nb, v0, nv, dens);
                if (!st) cuzk_g1_add(a, a, &r);
            }
            if (st) return st;
        }
        base += nb;
    }
    return CUZK_OK;
}

/* ---- assembly (constant time in r, s) -------------------------------------- */

static int random_fr(cuzk_fr *r)
{
    uint8_t b[64];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t k = getrandom(b + got, sizeof b - got, 0);
        if (k <= 0) return CUZK_ERR_IO;
        got += (size_t)k;
    }
    cuzk_fr_from_bytes_le_reduce(r, b, sizeof b);
    OPENSSL_cleanse(b, sizeof b);
    return CUZK_OK;
}

static void assemble(uint8_t proof[CUZK_G16_PROOF_BYTES], const cuzk_groth16_vk *vk, const cuzk_g1 *sa,
                     const cuzk_g1 *sb1, const cuzk_g2 *sb2, const cuzk_g1 *sh, const cuzk_g1 *sl,
                     const cuzk_fr *r, const cuzk_fr *s)
{
    cuzk_g1 a, b1, c, t, d1;
    cuzk_g2 b2, t2, d2;
    cuzk_fr rs;
    cuzk_g1_from_affine(&d1, &vk->delta_g1);
    cuzk_g2_from_affine(&d2, &vk->delta_g2);
    /* A = alpha1 + SA + r delta1 */
    cuzk_g1_mul(&t, &d1, r);
    cuzk_g1_add_affine(&a, sa, &vk->alpha_g1);
    cuzk_g1_add(&a, &a, &t);
    /* B1 = beta1 + SB1 + s delta1, B = beta2 + SB2 + s delta2 */
    cuzk_g1_mul(&t, &d1, s);
    cuzk_g1_add_affine(&b1, sb1, &vk->beta_g1);
    cuzk_g1_add(&b1, &b1, &t);
    cuzk_g2_mul(&t2, &d2, s);
    cuzk_g2_add_affine(&b2, sb2, &vk->beta_g2);
    cuzk_g2_add(&b2, &b2, &t2);
    /* C = s A + r B1 - r s delta1 + H + L */
    cuzk_g1_mul(&c, &a, s);
    cuzk_g1_mul(&t, &b1, r);
    cuzk_g1_add(&c, &c, &t);
    cuzk_fr_mul(&rs, r, s);
    cuzk_fr_neg(&rs, &rs);
    cuzk_g1_mul(&t, &d1, &rs);
    cuzk_g1_add(&c, &c, &t);
    cuzk_g1_add(&c, &c, sh);
    cuzk_g1_add(&c, &c, sl);
    OPENSSL_cleanse(&rs, sizeof rs);

    cuzk_g1_affine aa, ca;
    cuzk_g2_affine ba;
    cuzk_g1_to_affine(&aa, &a);
    cuzk_g2_to_affine(&ba, &b2);
    cuzk_g1_to_affine(&ca, &c);
    cuzk_g1_compress(proof, &aa);
    cuzk_g2_compress(proof + 48, &ba);
    cuzk_g1_compress(proof + 144, &ca);
}

/* ---- canonical scalars (CPU backend) --------------------------------------- */

typedef struct {
    cuzk_scalar *out;
    const cuzk_fr *in;
    size_t n;
} conv_job;

#define CONV_TASK 16384

static void conv_task(void *arg, size_t t)
{
    conv_job *j = arg;
    size_t lo = t * CONV_TASK, k = j->n - lo < CONV_TASK ? j->n - lo : CONV_TASK;
    cuzk_scalars_from_fr(j->out + lo, j->in + lo, k);
}

/* out[i] = canonical in[i] over par; out may alias in. */
static void convert(cuzk_par *par, cuzk_scalar *out, const cuzk_fr *in, size_t n)
{
    conv_job j = {out, in, n};
    cuzk_par_for(par, conv_task, &j, (n + CONV_TASK - 1) / CONV_TASK);
}

static size_t max3(size_t a, size_t b, size_t c)
{
    size_t x = a > b ? a : b;
    return x > c ? x : c;
}

/* ---- the prover ------------------------------------------------------------ */

typedef struct {
    cuzk_g1 *h, *l, *a, *b1;
    cuzk_g2 *b2;
    cuzk_fr **hcoef; /* per proof: m elements (a buffer reused as H coefficients) */
    bool *owned;     /* hcoef[i] was allocated here (not the caller's a_mut) */
    /* CPU fast path, per proof: canonical aux (the caller's clobbered b_mut
     * when it is large enough, else allocated) and inputs */
    cuzk_scalar **kaux, **kin;
    bool *kaux_owned;
    void *scratch; /* MSM scratch allocated here (NULL: none or the caller's c_mut) */
} accs;

static void free_accs(accs *x, size_t n)
{
    free(x->h);
    free(x->l);
    free(x->a);
    free(x->b1);
    free(x->b2);
    if (x->hcoef)
        for (size_t i = 0; i < n; i++)
            if (x->owned && x->owned[i]) free(x->hcoef[i]);
    free(x->hcoef);
    free(x->owned);
    for (size_t i = 0; i < n; i++) {
        if (x->kaux && x->kaux_owned && x->kaux_owned[i]) free(x->kaux[i]);
        if (x->kin) free(x->kin[i]);
    }
    free(x->kaux);
    free(x->kin);
    free(x->kaux_owned);
    free(x->scratch);
}

static int h_phase(const cuzk_groth16_backend *be, cuzk_par *par, const cuzk_groth16_witness *w, size_t m,
                   unsigned log_m, cuzk_fr **out)
{
    size_t n = w->n_constraints;
    if (w->a_mut && w->b_mut && w->c_mut) {
        *out = w->a_mut;
        return be->h_poly(be->ctx, w->a_mut, w->b_mut, w->c_mut, n, log_m, par);
    }
    if (lean(w)) {
        *out = w->a_mut;
        if (be->h_poly_lean)
            return be->h_poly_lean(be->ctx, w->a_mut, w->b_mut, n, log_m, w->fill_c, w->fill_c_ctx, par);
        cuzk_fr *c = malloc(m * sizeof *c); /* a backend without the lean order */
        if (!c) return CUZK_ERR_NOMEM;
        int st = w->fill_c(w->fill_c_ctx, c, n);
        if (!st) st = be->h_poly(be->ctx, w->a_mut, w->b_mut, c, n, log_m, par);
        free(c);
        return st;
    }
    cuzk_fr *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b), *c = malloc(m * sizeof *c);
    int st = CUZK_ERR_NOMEM;
    if (a && b && c) {
        memcpy(a, w->a, n * sizeof *a);
        memcpy(b, w->b, n * sizeof *b);
        memcpy(c, w->c, n * sizeof *c);
        st = be->h_poly(be->ctx, a, b, c, n, log_m, par);
    }
    free(b);
    free(c);
    if (st) {
        free(a);
        return st;
    }
    *out = a;
    return CUZK_OK;
}

int cuzk_groth16_prove(uint8_t (*proofs)[CUZK_G16_PROOF_BYTES], const cuzk_groth16_params *p,
                       const cuzk_groth16_witness *w, size_t n, const cuzk_groth16_prove_opts *o)
{
    const cuzk_groth16_backend *be = o && o->backend ? o->backend : cuzk_groth16_backend_cpu();
    cuzk_par *par = o ? o->par : NULL;
    char *err = o ? o->err : NULL;
    size_t el = o ? o->err_len : 0;
    cuzk_groth16_timings tm = {0};
    const bool cpu = o && o->cpu_time;
    double t0 = cuzk_g16_clock(cpu), t;
    if (!proofs || !p || (!w && n)) return cuzk_errf(err, el, CUZK_ERR_ARG, "prove: NULL argument");
    if (!n) return CUZK_OK;
    size_t chunk = o && o->chunk_vars ? o->chunk_vars : CHUNK_VARS;
    if (chunk % 64 || chunk > CHUNK_VARS)
        return cuzk_errf(err, el, CUZK_ERR_ARG, "prove: chunk_vars must be a multiple of 64, <= 2^20");
    int st;
    for (size_t i = 0; i < n; i++)
        if ((st = check_witness(p, &w[i], i, &w[0], err, el))) return st;

    size_t m = p->count[CUZK_G16_H] + 1;
    unsigned log_m = cuzk_g16_log2_ceil(m);
    size_t n_in = w[0].n_inputs, n_aux = w[0].n_aux;
    size_t nb_in = popcount_range(w[0].b_input_density, n_in);
    accs x = {0};
    x.h = calloc(n, sizeof *x.h);
    x.l = calloc(n, sizeof *x.l);
    x.a = calloc(n, sizeof *x.a);
    x.b1 = calloc(n, sizeof *x.b1);
    x.b2 = calloc(n, sizeof *x.b2);
    x.hcoef = calloc(n, sizeof *x.hcoef);
    x.owned = calloc(n, sizeof *x.owned);
    const cuzk_fr **sc = calloc(n, sizeof *sc);
    /* decode buffer for mapped params: one chunk of G2 (the largest) */
    size_t most = 0;
    for (int v = 0; v < 5; v++)
        most = p->count[v] > most ? p->count[v] : most;
    most = most < chunk ? most : chunk;
    void *buf = p->map ? malloc((most ? most : 1) * sizeof(cuzk_g2_affine)) : NULL;
    if (!x.h || !x.l || !x.a || !x.b1 || !x.b2 || !x.hcoef || !x.owned || !sc || (p->map && !buf)) {
        st = cuzk_errf(err, el, CUZK_ERR_NOMEM, "prove: out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        cuzk_g1_set_inf(&x.h[i]);
        cuzk_g1_set_inf(&x.l[i]);
        cuzk_g1_set_inf(&x.a[i]);
        cuzk_g1_set_inf(&x.b1[i]);
        cuzk_g2_set_inf(&x.b2[i]);
    }

    /* H: polynomial, then MSM */
    t = cuzk_g16_clock(cpu);
    for (size_t i = 0; i < n; i++) {
        x.owned[i] = !in_place(&w[i]);
        if (o && o->checkpoint && (st = o->checkpoint(o->checkpoint_ctx))) {
            cuzk_errf(err, el, st, "prove: stopped at a safe point before H (circuit %zu)", i);
            goto done;
        }
        if ((st = h_phase(be, par, &w[i], m, log_m, &x.hcoef[i]))) {
            cuzk_errf(err, el, st, "prove: circuit %zu: H computation failed: %s", i, cuzk_strerror(st));
            goto done;
        }
    }
    tm.h_ntt = cuzk_g16_clock(cpu) - t;

    /* CPU backend: scalars go to cuzk/msm.h as canonical integers, converted
     * once per vector (H in place; the aux once for L, A, B_G1 and B_G2),
     * with one scratch for all MSMs -- the clobbered c_mut when it is large
     * enough, so the MSMs add no O(n) allocation of their own.  The lean H
     * has no c_mut: the H MSM's scratch is b_mut (free until the aux is
     * converted into it), the other MSMs' is a_mut (the H coefficients are
     * dead by then). */
    const bool fast = be == cuzk_groth16_backend_cpu();
    size_t scratch_len = 0;
    void *scratch = NULL;
    if (fast) {
        size_t nv = max3(m - 1, n_aux, n_in);
        if (p->map && nv > chunk) nv = chunk;
        size_t g1 = cuzk_msm_g1_canonical_scratch_sizeof(nv, par);
        size_t g2 = cuzk_msm_g2_canonical_scratch_sizeof(nv, par);
        scratch_len = g1 > g2 ? g1 : g2;
        if (w[0].c_mut && w[0].a_mut && w[0].b_mut && scratch_len <= m * sizeof(cuzk_fr))
            scratch = w[0].c_mut;
        else if (lean(&w[0]) && scratch_len <= m * sizeof(cuzk_fr))
            scratch = w[0].b_mut;
        else
            scratch = x.scratch = malloc(scratch_len);
        x.kaux = calloc(n, sizeof *x.kaux);
        x.kin = calloc(n, sizeof *x.kin);
        x.kaux_owned = calloc(n, sizeof *x.kaux_owned);
        if (!scratch || !x.kaux || !x.kin || !x.kaux_owned) {
            st = cuzk_errf(err, el, CUZK_ERR_NOMEM, "prove: out of memory");
            goto done;
        }
    }
    const cuzk_scalar **kc = calloc(n, sizeof *kc);
    if (!kc) {
        st = cuzk_errf(err, el, CUZK_ERR_NOMEM, "prove: out of memory");
        goto done;
    }

#define RUN(field, acc, vec, b0, dens, nv, scal, kscal)                                                      \
    do {                                                                                                     \
        for (size_t i = 0; i < n; i++) {                                                                     \
            sc[i] = (scal);                                                                                  \
            kc[i] = fast ? (kscal) : NULL;                                                                   \
        }                                                                                                    \
        query q = {p, vec, b0, dens, nv, sc, n, chunk, fast ? kc : NULL, scratch, scratch_len, o};           \
        t = cuzk_g16_clock(cpu);                                                                                  \
        st = run_query(be, par, &q, acc, buf);                                                               \
        tm.field += cuzk_g16_clock(cpu) - t;                                                                      \
        if (st) {                                                                                            \
            cuzk_errf(err, el, st, "prove: MSM over %s failed: %s", #vec, cuzk_strerror(st));                \
            free(kc);                                                                                        \
            goto done;                                                                                       \
        }                                                                                                    \
    } while (0)

    t = cuzk_g16_clock(cpu);
    if (fast)
        for (size_t i = 0; i < n; i++)
            convert(par, (cuzk_scalar *)x.hcoef[i], x.hcoef[i], m - 1);
    tm.msm_h += cuzk_g16_clock(cpu) - t;
    RUN(msm_h, x.h, CUZK_G16_H, 0, NULL, m - 1, x.hcoef[i], (const cuzk_scalar *)x.hcoef[i]);
    for (size_t i = 0; i < n; i++) {
        if (x.owned[i]) free(x.hcoef[i]); /* H coefficients are no longer needed */
        x.hcoef[i] = NULL;
    }
    if (fast && scratch == w[0].b_mut) scratch = w[0].a_mut; /* lean: b_mut takes the aux */
    t = cuzk_g16_clock(cpu);
    for (size_t i = 0; fast && i < n; i++) {
        bool reuse = in_place(&w[i]) && n_aux <= m;
        x.kaux_owned[i] = !reuse;
        x.kaux[i] = reuse ? (cuzk_scalar *)w[i].b_mut : malloc((n_aux ? n_aux : 1) * sizeof(cuzk_scalar));
        x.kin[i] = malloc(n_in * sizeof(cuzk_scalar));
        if (!x.kaux[i] || !x.kin[i]) {
            st = cuzk_errf(err, el, CUZK_ERR_NOMEM, "prove: out of memory");
            free(kc);
            goto done;
        }
        convert(par, x.kaux[i], w[i].aux, n_aux);
        convert(par, x.kin[i], w[i].input, n_in);
    }
    tm.msm_l += cuzk_g16_clock(cpu) - t;
    RUN(msm_l, x.l, CUZK_G16_L, 0, NULL, n_aux, w[i].aux, x.kaux[i]);
    RUN(msm_a, x.a, CUZK_G16_A, 0, NULL, n_in, w[i].input, x.kin[i]);
    RUN(msm_a, x.a, CUZK_G16_A, n_in, w[0].a_aux_density, n_aux, w[i].aux, x.kaux[i]);
    RUN(msm_b_g1, x.b1, CUZK_G16_B_G1, 0, w[0].b_input_density, n_in, w[i].input, x.kin[i]);
    RUN(msm_b_g1, x.b1, CUZK_G16_B_G1, nb_in, w[0].b_aux_density, n_aux, w[i].aux, x.kaux[i]);
    RUN(msm_b_g2, x.b2, CUZK_G16_B_G2, 0, w[0].b_input_density, n_in, w[i].input, x.kin[i]);
    RUN(msm_b_g2, x.b2, CUZK_G16_B_G2, nb_in, w[0].b_aux_density, n_aux, w[i].aux, x.kaux[i]);
#undef RUN
    free(kc);

    t = cuzk_g16_clock(cpu);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr r = CUZK_FR_ZERO, s = CUZK_FR_ZERO;
        if (!(o && o->deterministic) && ((st = random_fr(&r)) || (st = random_fr(&s)))) {
            cuzk_errf(err, el, st, "prove: getrandom failed");
            goto done;
        }
        assemble(proofs[i], &p->vk, &x.a[i], &x.b1[i], &x.b2[i], &x.h[i], &x.l[i], &r, &s);
        OPENSSL_cleanse(&r, sizeof r);
        OPENSSL_cleanse(&s, sizeof s);
    }
    tm.assembly = cuzk_g16_clock(cpu) - t;
    st = CUZK_OK;
done:
    free_accs(&x, n);
    free(sc);
    free(buf);
    tm.total = cuzk_g16_clock(cpu) - t0;
    if (o && o->timings) {
        tm.synthesis = o->timings->synthesis;
        *o->timings = tm;
    }
    return st;
}

int cuzk_groth16_prove_cs(uint8_t proof[CUZK_G16_PROOF_BYTES], const cuzk_groth16_params *params,
                          const cuzk_cs *cs, const cuzk_groth16_prove_opts *opts, const char *what, char *err,
                          size_t err_len)
{
    cuzk_groth16_witness w;
    cuzk_groth16_prove_opts o = opts ? *opts : (cuzk_groth16_prove_opts){0};
    char e[CUZK_G16_ERR_LEN] = "";
    if (!o.err) {
        o.err = e;
        o.err_len = sizeof e;
    }
    int st = cuzk_groth16_witness_from_cs(&w, cs);
    if (!st) st = cuzk_groth16_prove((uint8_t(*)[CUZK_G16_PROOF_BYTES])proof, params, &w, 1, &o);
    if (st) cuzk_errf(err, err_len, st, "%s: prove failed: %s", what, o.err);
    return st;
}
