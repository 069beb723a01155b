/* The default compute backend: MSMs from cuzk/msm.h, H from cuzk/ntt.h.
 *
 * h_poly follows bellperson: iNTT a, b, c to coefficients, evaluate them on
 * the coset g*<omega> (g = 7) where Z(x) = x^m - 1 is the constant g^m - 1,
 * form (a*b - c) / Z pointwise, and come back with the coset iNTT.  The
 * quotient has degree <= m - 2, so a[m-1] ends up zero.  h_poly_lean does
 * the same with C asked for only after A*B is formed (two buffers). */
#include <stdlib.h>

#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "g16_internal.h"

static int cpu_msm_g1(void *ctx, cuzk_g1 *r, const cuzk_g1_affine *bases, size_t nbases,
                      const cuzk_fr *s, size_t nvars, const uint64_t *density, cuzk_par *par)
{
    (void)ctx;
    return cuzk_msm_g1(par, r, bases, nbases, s, nvars, density, NULL, 0);
}

static int cpu_msm_g2(void *ctx, cuzk_g2 *r, const cuzk_g2_affine *bases, size_t nbases,
                      const cuzk_fr *s, size_t nvars, const uint64_t *density, cuzk_par *par)
{
    (void)ctx;
    return cuzk_msm_g2(par, r, bases, nbases, s, nvars, density, NULL, 0);
}

/* Pointwise on the coset: a = (a*b - c) / Z, or in the lean order first
 * a = a*b (c == NULL, zinv unused) and later a = (a - c) / Z (b == NULL). */
typedef struct {
    cuzk_fr *a;
    const cuzk_fr *b, *c;
    cuzk_fr zinv;
    size_t n, chunk;
} quot_job;

static void quot_task(void *arg, size_t t)
{
    quot_job *j = arg;
    size_t lo = t * j->chunk, hi = lo + j->chunk < j->n ? lo + j->chunk : j->n;
    for (size_t i = lo; i < hi; i++) {
        if (j->b) cuzk_fr_mul(&j->a[i], &j->a[i], &j->b[i]);
        if (!j->c) continue;
        cuzk_fr_sub(&j->a[i], &j->a[i], &j->c[i]);
        cuzk_fr_mul(&j->a[i], &j->a[i], &j->zinv);
    }
}

static void pointwise(cuzk_par *par, cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c, unsigned log_m)
{
    size_t m = (size_t)1 << log_m;
    quot_job j = {a, b, c, CUZK_FR_ZERO, m, 4096};
    if (c) { /* Z on the coset: g^m - 1 */
        cuzk_fr g, z;
        cuzk_ntt_coset_generator(&g);
        z = g;
        for (unsigned i = 0; i < log_m; i++) cuzk_fr_sqr(&z, &z);
        cuzk_fr_sub(&z, &z, &CUZK_FR_ONE);
        cuzk_fr_inv_var(&j.zinv, &z);
    }
    cuzk_par_for(par, quot_task, &j, (m + j.chunk - 1) / j.chunk);
}

/* Evaluations at the first n domain points (zero-padded to m) -> values on
 * the coset. */
static int to_coset(cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *v, size_t n, size_t m)
{
    for (size_t i = n; i < m; i++) v[i] = CUZK_FR_ZERO;
    int st = cuzk_ntt_inverse(dom, par, v, m);
    return st ? st : cuzk_ntt_coset_forward(dom, par, v, m);
}

static int cpu_h_poly(void *ctx, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, size_t n, unsigned log_m,
                      cuzk_par *par)
{
    (void)ctx;
    size_t m = (size_t)1 << log_m;
    if (n > m) return CUZK_ERR_ARG;
    cuzk_ntt_domain *dom;
    int st = cuzk_ntt_domain_create(&dom, log_m, par);
    if (st) return st;
    cuzk_fr *v[3] = {a, b, c};
    for (int k = 0; k < 3 && !st; k++) st = to_coset(dom, par, v[k], n, m);
    if (!st) {
        pointwise(par, a, b, c, log_m);
        st = cuzk_ntt_coset_inverse(dom, par, a, m);
    }
    cuzk_ntt_domain_destroy(dom);
    return st;
}

/* The same transforms as cpu_h_poly in another order: A and B to the coset,
 * a = A*B, then C into b's buffer, to the coset, a = (a - C)/Z. */
static int cpu_h_poly_lean(void *ctx, cuzk_fr *a, cuzk_fr *b, size_t n, unsigned log_m,
                           int (*fill_c)(void *, cuzk_fr *, size_t), void *fill_ctx, cuzk_par *par)
{
    (void)ctx;
    size_t m = (size_t)1 << log_m;
    if (n > m || !fill_c) return CUZK_ERR_ARG;
    cuzk_ntt_domain *dom;
    int st = cuzk_ntt_domain_create(&dom, log_m, par);
    if (st) return st;
    if (!(st = to_coset(dom, par, a, n, m)) && !(st = to_coset(dom, par, b, n, m))) {
        pointwise(par, a, b, NULL, log_m);
        if (!(st = fill_c(fill_ctx, b, n)) && !(st = to_coset(dom, par, b, n, m))) {
            pointwise(par, a, NULL, b, log_m);
            st = cuzk_ntt_coset_inverse(dom, par, a, m);
        }
    }
    cuzk_ntt_domain_destroy(dom);
    return st;
}

static const cuzk_groth16_backend cpu_backend = {
    .name = "cpu",
    .ctx = NULL,
    .msm_g1 = cpu_msm_g1,
    .msm_g2 = cpu_msm_g2,
    .h_poly = cpu_h_poly,
    .h_poly_lean = cpu_h_poly_lean,
};

const cuzk_groth16_backend *cuzk_groth16_backend_cpu(void) { return &cpu_backend; }
