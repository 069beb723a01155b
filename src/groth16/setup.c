/* Random test parameters (bellperson's generate_parameters, from a seed).
 *
 * Toxic waste alpha, beta, gamma, delta, tau = SHA-512(domain tag || label
 * || seed) reduced mod r.  With m = 2^ceil(log2 n) and omega the domain
 * generator, the Lagrange basis at tau is
 *     L_i(tau) = Z(tau) / m * omega^i / (tau - omega^i),   Z(tau) = tau^m - 1,
 * so no FFT over secret data is needed.  Per variable j the QAP columns
 * give u_j = sum A_ij L_i, v_j = sum B_ij L_i, w_j = sum C_ij L_i, and
 *     h[i]  = tau^i Z(tau) / delta            (i < m - 1)
 *     ic[j] = (beta u_j + alpha v_j + w_j) / gamma    (inputs)
 *     l[k]  = (beta u_k + alpha v_k + w_k) / delta    (aux)
 *     a     = u_j for inputs and A-dense aux;  b_g1, b_g2 = v_j for B-dense
 * all times the standard generators.  Everything derived from the toxic
 * waste goes through constant-time field arithmetic (including our own
 * batch inversion with one constant-time inverse) and the constant-time
 * fixed-base multiplications of src/ec/fixed_base.c; the scalars are wiped
 * afterwards. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "cuzk/ntt.h"
#include "ec/ec_internal.h"
#include "g16_internal.h"

#define MUL_TASK 256 /* points per scalar-multiplication task (one affine batch) */

int cuzk_g16_setup_derive(cuzk_fr *r, const char *label, const uint8_t *seed, size_t seed_len)
{
    static const char tag[] = "cuzk groth16 test setup v1";
    uint8_t md[64];
    unsigned mdlen = 0;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int ok = c && EVP_DigestInit_ex(c, EVP_sha512(), NULL) &&
             EVP_DigestUpdate(c, tag, sizeof tag) &&
             EVP_DigestUpdate(c, label, strlen(label) + 1) &&
             EVP_DigestUpdate(c, seed, seed_len) && EVP_DigestFinal_ex(c, md, &mdlen);
    EVP_MD_CTX_free(c);
    if (!ok || mdlen != 64) return CUZK_ERR_NOMEM;
    cuzk_fr_from_bytes_le_reduce(r, md, sizeof md);
    OPENSSL_cleanse(md, sizeof md);
    return cuzk_fr_is_zero(r) ? CUZK_ERR_ARG : CUZK_OK;
}

/* out[i] = in[i]^-1, constant time (prefix products, one cuzk_fr_inv);
 * every in[i] must be nonzero.  tmp has n elements. */
static void batch_inv_ct(cuzk_fr *out, const cuzk_fr *in, cuzk_fr *tmp, size_t n)
{
    cuzk_fr acc = CUZK_FR_ONE, inv;
    for (size_t i = 0; i < n; i++) {
        tmp[i] = acc;
        cuzk_fr_mul(&acc, &acc, &in[i]);
    }
    cuzk_fr_inv(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &inv, &tmp[i]);
        cuzk_fr_mul(&inv, &inv, &in[i]);
        out[i] = t;
    }
}

static bool col_nonzero(const cuzk_csr *m, size_t rows, size_t col_count, uint8_t *mark)
{
    (void)rows;
    (void)col_count;
    for (size_t t = 0; t < m->nnz; t++)
        if (!cuzk_fr_is_zero(&m->val[t])) mark[m->col[t]] = 1;
    return true;
}

static int check_cs(const cuzk_groth16_r1cs *cs, char *err, size_t el)
{
    const cuzk_csr *m[3] = {&cs->a, &cs->b, &cs->c};
    size_t cols = cs->n_inputs + cs->n_aux;
    if (!cs->n_constraints || !cs->n_inputs)
        return cuzk_errf(err, el, CUZK_ERR_ARG, "setup: empty circuit (%zu constraints, %zu inputs)",
                         cs->n_constraints, cs->n_inputs);
    if (cols > UINT32_MAX || cs->n_constraints > ((size_t)1 << 31))
        return cuzk_errf(err, el, CUZK_ERR_ARG, "setup: circuit too large");
    for (int k = 0; k < 3; k++) {
        if (m[k]->rows != cs->n_constraints || m[k]->cols != cols || !m[k]->row_ptr ||
            m[k]->row_ptr[m[k]->rows] != m[k]->nnz)
            return cuzk_errf(err, el, CUZK_ERR_ARG,
                             "setup: matrix %c is %zux%zu with %zu nonzeros; expected %zux%zu", "ABC"[k],
                             m[k] -> rows, m[k] -> cols, m[k] -> nnz, cs -> n_constraints, cols);
        for (size_t t = 0; t < m[k]->nnz; t++)
            if (m[k]->col[t] >= cols)
                return cuzk_errf(err, el, CUZK_ERR_ARG, "setup: matrix %c entry %zu: column %u >= %zu",
                                 "ABC"[k], t, m[k] -> col[t], cols);
    }
    return CUZK_OK;
}

int cuzk_groth16_r1cs_shape(cuzk_groth16_shape *out, const cuzk_groth16_r1cs *cs)
{
    int st = check_cs(cs, NULL, 0);
    if (st) return st;
    size_t cols = cs->n_inputs + cs->n_aux;
    uint8_t *ma = calloc(cols ? cols : 1, 1), *mb = calloc(cols ? cols : 1, 1);
    if (!ma || !mb) {
        free(ma);
        free(mb);
        return CUZK_ERR_NOMEM;
    }
    col_nonzero(&cs->a, cs->n_constraints, cols, ma);
    col_nonzero(&cs->b, cs->n_constraints, cols, mb);
    memset(out, 0, sizeof *out);
    out->n_inputs = cs->n_inputs;
    out->n_aux = cs->n_aux;
    out->n_constraints = cs->n_constraints;
    for (size_t j = 0; j < cols; j++) {
        if (j >= cs->n_inputs) out->n_a_aux += ma[j];
        if (j < cs->n_inputs) out->n_b_inputs += mb[j];
        else out->n_b_aux += mb[j];
    }
    free(ma);
    free(mb);
    return CUZK_OK;
}

int cuzk_groth16_r1cs_from_cs(cuzk_groth16_r1cs *out, const cuzk_cs *cs)
{
    cuzk_cs_counts n;
    cuzk_cs_get_counts(cs, &n);
    out->n_constraints = n.constraints;
    out->n_inputs = n.inputs;
    out->n_aux = n.aux;
    int st;
    if ((st = cuzk_cs_matrix(cs, CUZK_LC_A, &out->a)) || (st = cuzk_cs_matrix(cs, CUZK_LC_B, &out->b)) ||
        (st = cuzk_cs_matrix(cs, CUZK_LC_C, &out->c)))
        return st;
    return CUZK_OK;
}

/* ---- parallel constant-time scalar multiplication ------------------------- */

/* Every point is a multiple of a standard generator, so the multiplications
 * use fixed-base tables of G1 and G2 and affine additions batched over
 * MUL_TASK points (src/ec/fixed_base.c; ~5x faster than the variable-base
 * ladder, constant time in the scalars).
 * The outputs are unique group elements, so the parameters are the same
 * bytes as with cuzk_g1_mul / cuzk_g2_mul (tests/test_groth16_setup.c pins
 * their hash). */
typedef struct {
    const cuzk_fr *s;
    size_t lo, n;       /* this chunk: points lo .. lo + n - 1 */
    cuzk_g1_affine *g1; /* one of g1 / g2 */
    cuzk_g2_affine *g2;
    const cuzk_g1_affine *t1;
    const cuzk_g2_affine *t2;
} mul_job;

static void mul_task(void *arg, size_t t)
{
    const mul_job *j = arg;
    size_t lo = j->lo + t * MUL_TASK, end = j->lo + j->n;
    size_t k = end - lo < MUL_TASK ? end - lo : MUL_TASK;
    /* the batch state lives on the heap (pool and daemon threads may have
     * small stacks); without it, the per-point path gives the same points */
    void *scratch = malloc(j->g1 ? cuzk_g1_mul_fixed_batch_scratch_size()
                                 : cuzk_g2_mul_fixed_batch_scratch_size());
    if (scratch && j->g1) {
        cuzk_g1_mul_fixed_batch(j->g1 + lo, j->t1, &j->s[lo], k, scratch);
    } else if (scratch) {
        cuzk_g2_mul_fixed_batch(j->g2 + lo, j->t2, &j->s[lo], k, scratch);
    } else if (j->g1) {
        for (size_t i = 0; i < k; i++) {
            cuzk_g1 r;
            cuzk_g1_mul_fixed(&r, j->t1, &j->s[lo + i]);
            cuzk_g1_to_affine(&j->g1[lo + i], &r);
        }
    } else {
        for (size_t i = 0; i < k; i++) {
            cuzk_g2 r;
            cuzk_g2_mul_fixed(&r, j->t2, &j->s[lo + i]);
            cuzk_g2_to_affine(&j->g2[lo + i], &r);
        }
    }
    free(scratch);
}

typedef struct {
    cuzk_par *par;
    const cuzk_g1_affine *t1;
    const cuzk_g2_affine *t2;
    cuzk_groth16_progress_fn progress;
    void *ctx;
    size_t done, total; /* points, over all queries */
} mul_ctx;

/* The query in chunks of a few tasks per thread, so that progress can be
 * reported from the calling thread between them (cuzk_par_for blocks). */
static void mul_all(mul_ctx *m, const char *phase, cuzk_g1_affine *g1, cuzk_g2_affine *g2,
                    const cuzk_fr *s, size_t n)
{
    size_t chunk = (size_t)8 * cuzk_par_threads(m->par) * MUL_TASK;
    for (size_t lo = 0; lo < n; lo += chunk) {
        mul_job j = {s, lo, n - lo < chunk ? n - lo : chunk, g1, g2, m->t1, m->t2};
        cuzk_par_for(m->par, mul_task, &j, (j.n + MUL_TASK - 1) / MUL_TASK);
        m->done += j.n;
        if (m->progress) m->progress(m->ctx, phase, m->done, m->total);
    }
}

/* ---- the setup ------------------------------------------------------------- */

typedef struct {
    cuzk_fr alpha, beta, gamma, delta, tau;
} toxic;

/* Scalars of every query (secret: wiped by the caller). */
typedef struct {
    cuzk_fr *h, *ic, *l, *a, *b;
    size_t n_h, n_a, n_b;
} scalars;

static int compute_scalars(scalars *sc, const cuzk_groth16_r1cs *cs, const toxic *tw, char *err,
                           size_t el)
{
    size_t n = cs->n_constraints, cols = cs->n_inputs + cs->n_aux;
    unsigned log_m = cuzk_g16_log2_ceil(n);
    size_t m = (size_t)1 << log_m;
    cuzk_fr omega, zt, t, m_inv, gamma_inv, delta_inv;
    int st = cuzk_ntt_root_of_unity(&omega, log_m);
    if (st) return cuzk_errf(err, el, st, "setup: no root of unity of order 2^%u", log_m);

    /* Z(tau) = tau^m - 1 (constant time: square log_m times) */
    zt = tw->tau;
    for (unsigned i = 0; i < log_m; i++) cuzk_fr_sqr(&zt, &zt);
    cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
    cuzk_fr_from_u64(&t, m);
    cuzk_fr_inv(&m_inv, &t);
    cuzk_fr_inv(&gamma_inv, &tw->gamma);
    cuzk_fr_inv(&delta_inv, &tw->delta);

    cuzk_fr *lag = malloc(n * sizeof *lag), *tmp = malloc(n * sizeof *tmp), *wpow = malloc(n * sizeof *wpow);
    cuzk_fr *uvw = calloc(3 * (cols ? cols : 1), sizeof *uvw);
    sc->n_h = m - 1;
    sc->h = malloc((m > 1 ? m - 1 : 1) * sizeof *sc->h);
    sc->ic = malloc(cs->n_inputs * sizeof *sc->ic);
    sc->l = malloc((cs->n_aux ? cs->n_aux : 1) * sizeof *sc->l);
    sc->a = malloc(cols * sizeof *sc->a);
    sc->b = malloc(cols * sizeof *sc->b);
    if (!lag || !tmp || !wpow || !uvw || !sc->h || !sc->ic || !sc->l || !sc->a || !sc->b) {
        st = cuzk_errf(err, el, CUZK_ERR_NOMEM, "setup: out of memory");
        goto done;
    }
    /* tau - omega^i, which must be nonzero (probability n/r of failing) */
    cuzk_fr w = CUZK_FR_ONE;
    for (size_t i = 0; i < n; i++) {
        wpow[i] = w;
        cuzk_fr_sub(&lag[i], &tw->tau, &w);
        if (cuzk_fr_is_zero(&lag[i])) {
            st = cuzk_errf(err, el, CUZK_ERR_ARG, "setup: tau is a root of unity; use another seed");
            goto done;
        }
        cuzk_fr_mul(&w, &w, &omega);
    }
    batch_inv_ct(lag, lag, tmp, n);
    cuzk_fr_mul(&t, &zt, &m_inv); /* Z(tau)/m */
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_mul(&lag[i], &lag[i], &wpow[i]);
        cuzk_fr_mul(&lag[i], &lag[i], &t);
    }
    /* h[i] = tau^i Z(tau) / delta */
    cuzk_fr_mul(&t, &zt, &delta_inv);
    for (size_t i = 0; i + 1 < m; i++) {
        sc->h[i] = t;
        cuzk_fr_mul(&t, &t, &tw->tau);
    }
    /* QAP columns */
    const cuzk_csr *mat[3] = {&cs->a, &cs->b, &cs->c};
    for (int k = 0; k < 3; k++)
        for (size_t r = 0; r < n; r++)
            for (size_t e = mat[k]->row_ptr[r]; e < mat[k]->row_ptr[r + 1]; e++) {
                cuzk_fr_mul(&t, &mat[k]->val[e], &lag[r]);
                cuzk_fr *dst = &uvw[3 * mat[k]->col[e] + k];
                cuzk_fr_add(dst, dst, &t);
            }
    uint8_t *da = calloc(cols, 1), *db = calloc(cols, 1);
    if (!da || !db) {
        free(da);
        free(db);
        st = cuzk_errf(err, el, CUZK_ERR_NOMEM, "setup: out of memory");
        goto done;
    }
    col_nonzero(&cs->a, n, cols, da);
    col_nonzero(&cs->b, n, cols, db);
    sc->n_a = sc->n_b = 0;
    for (size_t j = 0; j < cols; j++) {
        const cuzk_fr *u = &uvw[3 * j], *v = u + 1, *wc = u + 2;
        cuzk_fr e, f;
        cuzk_fr_mul(&e, u, &tw->beta);
        cuzk_fr_mul(&f, v, &tw->alpha);
        cuzk_fr_add(&e, &e, &f);
        cuzk_fr_add(&e, &e, wc);
        if (j < cs->n_inputs) {
            cuzk_fr_mul(&sc->ic[j], &e, &gamma_inv);
        } else {
            if (cuzk_fr_is_zero(&e)) {
                st = cuzk_errf(err, el, CUZK_ERR_ARG,
                               "setup: aux variable %zu is unconstrained (its L point would be the "
                               "identity)",
                               j - cs->n_inputs);
                break;
            }
            cuzk_fr_mul(&sc->l[j - cs->n_inputs], &e, &delta_inv);
        }
        if (j < cs->n_inputs || da[j]) sc->a[sc->n_a++] = *u;
        if (db[j]) sc->b[sc->n_b++] = *v;
    }
    free(da);
    free(db);
done:
    if (uvw) OPENSSL_cleanse(uvw, 3 * (cols ? cols : 1) * sizeof *uvw);
    if (lag) OPENSSL_cleanse(lag, n * sizeof *lag);
    if (tmp) OPENSSL_cleanse(tmp, n * sizeof *tmp);
    free(uvw);
    free(lag);
    free(tmp);
    free(wpow);
    OPENSSL_cleanse(&zt, sizeof zt);
    OPENSSL_cleanse(&t, sizeof t);
    OPENSSL_cleanse(&gamma_inv, sizeof gamma_inv);
    OPENSSL_cleanse(&delta_inv, sizeof delta_inv);
    return st;
}

static void free_scalars(scalars *sc, const cuzk_groth16_r1cs *cs)
{
    size_t cols = cs->n_inputs + cs->n_aux;
    if (sc->h) OPENSSL_cleanse(sc->h, sc->n_h * sizeof *sc->h);
    if (sc->ic) OPENSSL_cleanse(sc->ic, cs->n_inputs * sizeof *sc->ic);
    if (sc->l) OPENSSL_cleanse(sc->l, cs->n_aux * sizeof *sc->l);
    if (sc->a) OPENSSL_cleanse(sc->a, cols * sizeof *sc->a);
    if (sc->b) OPENSSL_cleanse(sc->b, cols * sizeof *sc->b);
    free(sc->h);
    free(sc->ic);
    free(sc->l);
    free(sc->a);
    free(sc->b);
}

int cuzk_groth16_setup_test(cuzk_groth16_params **out, const cuzk_groth16_r1cs *cs,
                            const uint8_t *seed, size_t seed_len, cuzk_par *par, char *err,
                            size_t el)
{
    return cuzk_groth16_setup_test_progress(out, cs, seed, seed_len, par, NULL, NULL, err, el);
}

int cuzk_groth16_setup_test_progress(cuzk_groth16_params **out, const cuzk_groth16_r1cs *cs,
                                     const uint8_t *seed, size_t seed_len, cuzk_par *par,
                                     cuzk_groth16_progress_fn progress, void *progress_ctx,
                                     char *err, size_t el)
{
    *out = NULL;
    if (!cs || (!seed && seed_len)) return CUZK_ERR_ARG;
    int st = check_cs(cs, err, el);
    if (st) return st;
    toxic tw;
    if ((st = cuzk_g16_setup_derive(&tw.alpha, "alpha", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&tw.beta, "beta", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&tw.gamma, "gamma", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&tw.delta, "delta", seed, seed_len)) ||
        (st = cuzk_g16_setup_derive(&tw.tau, "tau", seed, seed_len))) {
        OPENSSL_cleanse(&tw, sizeof tw);
        return cuzk_errf(err, el, st, "setup: could not derive the toxic waste from the seed");
    }
    scalars sc = {0};
    cuzk_groth16_params *p = calloc(1, sizeof *p);
    cuzk_g1_affine *t1 = malloc(CUZK_EC_FB_ENTRIES * sizeof *t1);
    cuzk_g2_affine *t2 = malloc(CUZK_EC_FB_ENTRIES * sizeof *t2);
    if (!p || !t1 || !t2) st = cuzk_errf(err, el, CUZK_ERR_NOMEM, "setup: out of memory");
    if (!st) st = compute_scalars(&sc, cs, &tw, err, el);
    if (!st) {
        p->count[CUZK_G16_H] = sc.n_h;
        p->count[CUZK_G16_L] = cs->n_aux;
        p->count[CUZK_G16_A] = sc.n_a;
        p->count[CUZK_G16_B_G1] = p->count[CUZK_G16_B_G2] = sc.n_b;
        p->vk.n_ic = cs->n_inputs;
        p->vk.ic = malloc(cs->n_inputs * sizeof *p->vk.ic);
        for (int v = 0; v < 4; v++) p->g1[v] = malloc((p->count[v] ? p->count[v] : 1) * sizeof(cuzk_g1_affine));
        p->g2 = malloc((sc.n_b ? sc.n_b : 1) * sizeof *p->g2);
        if (!p->vk.ic || !p->g1[0] || !p->g1[1] || !p->g1[2] || !p->g1[3] || !p->g2)
            st = cuzk_errf(err, el, CUZK_ERR_NOMEM, "setup: out of memory for the parameters");
    }
    if (!st) {
        cuzk_g1 g1, r1;
        cuzk_g2 g2, r2;
        cuzk_g1_generator(&g1);
        cuzk_g2_generator(&g2);
        cuzk_g1_fixed_table_var(t1, &g1); /* public: multiples of the generators */
        cuzk_g2_fixed_table_var(t2, &g2);
        mul_ctx m = {par, t1, t2, progress, progress_ctx, 0,
                     sc.n_h + cs->n_inputs + cs->n_aux + sc.n_a + 2 * sc.n_b};
        mul_all(&m, "H", p->g1[CUZK_G16_H], NULL, sc.h, sc.n_h);
        mul_all(&m, "IC", p->vk.ic, NULL, sc.ic, cs->n_inputs);
        mul_all(&m, "L", p->g1[CUZK_G16_L], NULL, sc.l, cs->n_aux);
        mul_all(&m, "A", p->g1[CUZK_G16_A], NULL, sc.a, sc.n_a);
        mul_all(&m, "B_G1", p->g1[CUZK_G16_B_G1], NULL, sc.b, sc.n_b);
        mul_all(&m, "B_G2", NULL, p->g2, sc.b, sc.n_b);
        cuzk_g1_mul_fixed(&r1, t1, &tw.alpha);
        cuzk_g1_to_affine(&p->vk.alpha_g1, &r1);
        cuzk_g1_mul_fixed(&r1, t1, &tw.beta);
        cuzk_g1_to_affine(&p->vk.beta_g1, &r1);
        cuzk_g1_mul_fixed(&r1, t1, &tw.delta);
        cuzk_g1_to_affine(&p->vk.delta_g1, &r1);
        cuzk_g2_mul_fixed(&r2, t2, &tw.beta);
        cuzk_g2_to_affine(&p->vk.beta_g2, &r2);
        cuzk_g2_mul_fixed(&r2, t2, &tw.gamma);
        cuzk_g2_to_affine(&p->vk.gamma_g2, &r2);
        cuzk_g2_mul_fixed(&r2, t2, &tw.delta);
        cuzk_g2_to_affine(&p->vk.delta_g2, &r2);
        /* a zero u_j / v_j for a dense variable would write the identity,
         * which no loader accepts (probability ~ n/r) */
        for (int v = 0; v < 4 && !st; v++)
            for (size_t i = 0; i < p->count[v]; i++)
                if (cuzk_g1_affine_is_inf(&p->g1[v][i])) {
                    st = cuzk_errf(err, el, CUZK_ERR_ARG,
                                   "setup: query %d point %zu is the identity; use another seed", v, i);
                    break;
                }
        p->is_test = p->vk.is_test = true;
    }
    free_scalars(&sc, cs);
    OPENSSL_cleanse(&tw, sizeof tw);
    free(t1);
    free(t2);
    if (st) {
        cuzk_groth16_params_free(p);
        return st;
    }
    *out = p;
    return CUZK_OK;
}
