/* NTT domains and the four public transforms (contract in cuzk/ntt.h).
 *
 * forward         = DIF (natural -> bit-reversed) + bit reversal.
 * inverse         = forward, then a[k] <-> a[n-k] and scale by 1/n: the DFT
 *                   with omega^-1 is the DFT with omega read backwards
 *                   (omega^-ik = omega^i(n-k)), so one kernel and one
 *                   twiddle table serve both directions.
 * coset_forward   = a[i] *= g^i, then forward.
 * coset_inverse   = forward, then reversal fused with the factor n^-1 g^-k.
 * The element-wise passes walk powers of g by a running product inside each
 * task (two multiplications per element) instead of storing n powers. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuzk/status.h"
#include "ff/verify.h"
#include "poly/fr_arith.h"
#include "poly/ntt_internal.h"

/* ---- roots ---------------------------------------------------------------- */

int cuzk_ntt_root_of_unity(cuzk_fr *r, unsigned log_n)
{
    if (!r || log_n > CUZK_FR_TWO_ADICITY) return CUZK_ERR_ARG;
    /* t = (r - 1) / 2^32: the modulus minus one, shifted right 32 bits */
    uint64_t m[4], t[4];
    memcpy(m, CUZK_FR_MODULUS, sizeof m);
    m[0] -= 1; /* r is odd: no borrow */
    for (int i = 0; i < 4; i++)
        t[i] = m[i] >> CUZK_FR_TWO_ADICITY | (i < 3 ? m[i + 1] << (64 - CUZK_FR_TWO_ADICITY) : 0);
    cuzk_fr g;
    cuzk_ntt_coset_generator(&g);
    cuzk_fr_pow(r, &g, t, 4); /* 7^t has order exactly 2^32 */
    for (unsigned i = log_n; i < CUZK_FR_TWO_ADICITY; i++)
        cuzk_fr_sqr(r, r);
    return CUZK_OK;
}

/* Inside a domain every root asked for has k <= log_n <= CUZK_NTT_MAX_LOG
 * (cuzk_ntt_domain_create checks log_n): it cannot fail. */
_Static_assert(CUZK_NTT_MAX_LOG <= CUZK_FR_TWO_ADICITY, "an NTT domain needs 2^log_n-th roots of unity in Fr");
static void domain_root(cuzk_fr *w, unsigned k)
{
    CUZK_CANNOT_FAIL(cuzk_ntt_root_of_unity(w, k));
}

void cuzk_ntt_coset_generator(cuzk_fr *g)
{
    cuzk_fr_from_u64(g, 7);
}

static void fr_pow_u64(cuzk_fr *r, const cuzk_fr *a, uint64_t e)
{
    cuzk_fr_pow(r, a, &e, 1);
}

static void scale16(cuzk_fr *r, const cuzk_fr *a);

/* ---- domain --------------------------------------------------------------- */

int cuzk_ntt_ifma_disabled;
unsigned cuzk_ntt_top_log = NTT_TOP_LOG;

static unsigned top_log_of(unsigned log_n)
{
    unsigned cap = cuzk_ntt_top_log >= NTT_TOP_LOG_MIN ? cuzk_ntt_top_log : NTT_TOP_LOG;
    unsigned half = log_n ? log_n - 1 : 0;
    return half < cap ? half : cap;
}

/* 2^e' lo entries of generated stage s (e' = max(e, 3)) */
static unsigned lo_log(unsigned s, unsigned top_log)
{
    unsigned e = s - top_log;
    return e > 3 ? e : 3;
}

/* Table entries of a domain: top_tw, the per-stage tables, the lo tables. */
static size_t table_len(unsigned log_n, unsigned top_log)
{
    size_t top = (size_t)1 << top_log, len = top;
    if (top >= 2 * NTT_STRIDE_MAX) len += top / NTT_STRIDE_MAX;
    for (unsigned s = top_log + 1; s < log_n; s++)
        len += (size_t)1 << lo_log(s, top_log);
    return len;
}

size_t cuzk_ntt_domain_bytes(unsigned log_n)
{
    if (log_n > CUZK_NTT_MAX_LOG) return 0;
    return sizeof(cuzk_ntt_domain) + table_len(log_n, top_log_of(log_n)) * sizeof(cuzk_fr);
}

struct fill_job {
    cuzk_ntt_domain *d;
    size_t chunks;
};

static void lane_factors(cuzk_fr f[8], cuzk_fr *step, const cuzk_fr *base, const cuzk_fr *x, size_t k);

/* w[i] = x^i (times 2^4 in an IFMA domain) for i in [lo, hi) */
static void fill_powers(const cuzk_ntt_domain *d, cuzk_fr *w, const cuzk_fr *x, size_t lo, size_t hi)
{
    if (lo >= hi) return;
    cuzk_fr p;
    fr_pow_u64(&p, x, lo);
    for (size_t i = lo; i < hi; i++) {
        if (d->ifma) /* w * 2^260 mod r: see ntt_ifma.c */
            scale16(&w[i], &p);
        else
            w[i] = p;
        nfr_mul(&p, &p, x);
    }
}

/* top_tw[i] = w_{2 top}^i, chunk c */
static void fill_top_task(void *arg, size_t c)
{
    const struct fill_job *job = arg;
    cuzk_ntt_domain *d = job->d;
    size_t len = d->top, lo = len * c / job->chunks, hi = len * (c + 1) / job->chunks;
    size_t vlo = (lo + 7) & ~(size_t)7, vhi = hi & ~(size_t)7;
    cuzk_fr w;
    domain_root(&w, d->top_log + 1);
    if (!d->ifma || vlo >= vhi) {
        fill_powers(d, d->top_tw, &w, lo, hi);
        return;
    }
    cuzk_fr f[8], step;
    lane_factors(f, &step, &CUZK_FR_ONE, &w, vlo);
    fill_powers(d, d->top_tw, &w, lo, vlo);
    cuzk_ntt_ifma_powers(d->top_tw + vlo, vhi - vlo, f, &step);
    fill_powers(d, d->top_tw, &w, vhi, hi);
}

static void fill_small(cuzk_ntt_domain *d)
{
    for (unsigned s = 0; s < 4; s++) { /* stage h = 2^s: w_{2h}^j, unscaled */
        size_t h = (size_t)1 << s;
        cuzk_fr w2h, w = CUZK_FR_ONE;
        domain_root(&w2h, s + 1);
        for (size_t j = 0; j < h; j++) {
            d->small[h - 1 + j] = w;
            cuzk_fr_mul(&w, &w, &w2h);
        }
    }
    for (int j = 0; j < 4; j++) /* small[4 + i] = w8^i, small[2] = w4^1 */
        scale16(&d->tail_tw[j], &d->small[j < 3 ? 4 + j : 2]);
}

static void fill_constants(cuzk_ntt_domain *d)
{
    domain_root(&d->omega, d->log_n);
    cuzk_fr_inv_var(&d->omega_inv, &d->omega);
    cuzk_fr nf;
    cuzk_fr_from_u64(&nf, d->n);
    cuzk_fr_inv_var(&d->n_inv, &nf);
    cuzk_ntt_coset_generator(&d->g);
    cuzk_fr_inv_var(&d->g_inv, &d->g);
    fr_pow_u64(&d->g_inv_n, &d->g_inv, d->n);
}

/* Everything after top_tw: the per-stage tables gathered from it, then the
 * lo tables of the generated stages. */
static void fill_tables(cuzk_ntt_domain *d, cuzk_fr *rest)
{
    size_t top = d->top;
    if (top >= 2 * NTT_STRIDE_MAX) {
        d->stage = rest;
        rest += top / NTT_STRIDE_MAX;
        for (size_t h = 1; h < top / NTT_STRIDE_MAX; h *= 2) /* w_{2h}^j = top_tw[j top/h] */
            for (size_t j = 0; j < h; j++)
                d->stage[h - 1 + j] = d->top_tw[j * (top / h)];
    }
    for (unsigned s = d->top_log + 1; s < d->log_n; s++) {
        cuzk_fr w;
        domain_root(&w, s + 1);
        d->lo[s] = rest;
        fill_powers(d, rest, &w, 0, (size_t)1 << lo_log(s, d->top_log));
        rest += (size_t)1 << lo_log(s, d->top_log);
    }
}

static cuzk_ntt_domain *domain_alloc(unsigned log_n)
{
    unsigned top_log = top_log_of(log_n);
    size_t tables = table_len(log_n, top_log) * sizeof(cuzk_fr);
    cuzk_ntt_domain *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    /* 2 MiB alignment lets the kernel back big tables with huge pages */
    size_t align = tables >= ((size_t)4 << 20) ? ((size_t)2 << 20) : 64;
    if (posix_memalign(&d->mem, align, tables) != 0) {
        free(d);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (align > 64) madvise(d->mem, tables, MADV_HUGEPAGE); /* a hint; failure is harmless */
#endif
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    d->top_log = top_log;
    d->top = (size_t)1 << top_log;
    d->bytes = sizeof *d + tables;
    d->top_tw = d->mem;
    return d;
}

int cuzk_ntt_domain_create(cuzk_ntt_domain **out, unsigned log_n, cuzk_par *par)
{
    if (!out) return CUZK_ERR_ARG;
    *out = NULL;
    if (log_n > CUZK_NTT_MAX_LOG) return CUZK_ERR_ARG;
    cuzk_ntt_domain *d = domain_alloc(log_n);
    if (!d) return CUZK_ERR_NOMEM;
    d->ifma = !cuzk_ntt_ifma_disabled && cuzk_ntt_ifma_available();
    fill_small(d);
    fill_constants(d);
    struct fill_job job = {d, 1};
    if (d->top_log >= 15) job.chunks = ntt_chunks(par, d->top);
    cuzk_par_for(par, fill_top_task, &job, job.chunks);
    fill_tables(d, d->top_tw + d->top);
    *out = d;
    return CUZK_OK;
}

/* Generated stage s: w_{2h}^j = w_{2h}^(2^e' a) * w_{2h}^b with j = 2^e' a + b,
 * and w_{2h}^(2^e' a) = w_{2 top}^(2^(e'-e) a) = top_tw[(j >> e') << (e' - e)]. */
void cuzk_ntt_gen_twiddles(const cuzk_ntt_domain *d, unsigned s, size_t j0, size_t cnt, cuzk_fr *out)
{
    unsigned e = s - d->top_log, ep = lo_log(s, d->top_log);
    if (d->ifma) {
        cuzk_ntt_ifma_twiddles(out, cnt, j0, d->top_tw, d->lo[s], e, ep);
        return;
    }
    size_t mask = ((size_t)1 << ep) - 1;
    for (size_t i = 0; i < cnt; i++) {
        size_t j = j0 + i;
        nfr_mul(&out[i], &d->top_tw[(j >> ep) << (ep - e)], &d->lo[s][j & mask]);
    }
}

void cuzk_ntt_domain_destroy(cuzk_ntt_domain *dom)
{
    if (!dom) return;
    free(dom->mem);
    free(dom);
}

unsigned cuzk_ntt_domain_log_n(const cuzk_ntt_domain *dom)
{
    return dom ? dom->log_n : 0;
}

void cuzk_ntt_domain_omega(cuzk_fr *omega, const cuzk_ntt_domain *dom)
{
    *omega = dom ? dom->omega : CUZK_FR_ZERO;
}

/* ---- element-wise passes -------------------------------------------------- */

struct scale_job {
    const cuzk_ntt_domain *d;
    cuzk_fr *a;
    size_t chunks;
};

/* r = 16 * a: the R' = 2^260 form the IFMA kernels take factors in */
static void scale16(cuzk_fr *r, const cuzk_fr *a)
{
    *r = *a;
    for (int k = 0; k < 4; k++)
        nfr_add(r, r, r);
}

/* f[i] = base * x^(k + i) * 16 for i < 8; *step = x^8 * 16 */
static void lane_factors(cuzk_fr f[8], cuzk_fr *step, const cuzk_fr *base, const cuzk_fr *x, size_t k)
{
    cuzk_fr p;
    fr_pow_u64(&p, x, k);
    nfr_mul(&p, &p, base);
    for (int i = 0; i < 8; i++) {
        scale16(&f[i], &p);
        nfr_mul(&p, &p, x);
    }
    fr_pow_u64(&p, x, 8);
    scale16(step, &p);
}

/* a[i] *= g^i for i in [lo, hi) */
static void coset_scale_range(const cuzk_ntt_domain *d, cuzk_fr *a, size_t lo, size_t hi)
{
    cuzk_fr f;
    fr_pow_u64(&f, &d->g, lo);
    for (size_t i = lo; i < hi; i++) {
        nfr_mul(&a[i], &a[i], &f);
        nfr_mul(&f, &f, &d->g);
    }
}

static void coset_scale_task(void *arg, size_t c)
{
    const struct scale_job *job = arg;
    const cuzk_ntt_domain *d = job->d;
    size_t n = d->n, lo = n * c / job->chunks, hi = n * (c + 1) / job->chunks;
    size_t vlo = (lo + 7) & ~(size_t)7, vhi = hi & ~(size_t)7;
    if (!d->ifma || vlo >= vhi) {
        coset_scale_range(d, job->a, lo, hi);
        return;
    }
    cuzk_fr f[8], step;
    lane_factors(f, &step, &CUZK_FR_ONE, &d->g, vlo);
    coset_scale_range(d, job->a, lo, vlo);
    cuzk_ntt_ifma_scale(job->a + vlo, vhi - vlo, f, &step);
    coset_scale_range(d, job->a, vhi, hi);
}

/* For k in [0, n/2]: (a[k], a[n-k]) <- (a[n-k] * u_k, a[k] * v_k) where
 * u_k = s * x^k and v_k = s * y * z^k; k = 0 and k = n/2 touch one element
 * (a[0] *= u_0, a[n/2] *= u_{n/2}).  Plain inverse: x = y = z = 1,
 * s = 1/n.  Coset inverse: s = 1/n, x = g^-1, y = g^-n, z = g. */
struct reverse_job {
    const cuzk_ntt_domain *d;
    cuzk_fr *a;
    size_t chunks;
    int coset;
};

static void reverse_scale_range(const struct reverse_job *job, size_t lo, size_t hi)
{
    const cuzk_ntt_domain *d = job->d;
    size_t n = d->n, half = n / 2;
    cuzk_fr *a = job->a, u = d->n_inv, v = d->n_inv;
    if (lo >= hi) return;
    if (job->coset) {
        cuzk_fr t;
        fr_pow_u64(&t, &d->g_inv, lo);
        nfr_mul(&u, &u, &t);
        fr_pow_u64(&t, &d->g, lo);
        nfr_mul(&v, &v, &t);
        nfr_mul(&v, &v, &d->g_inv_n);
    }
    for (size_t k = lo; k < hi; k++) {
        if (k == 0 || k == half) {
            nfr_mul(&a[k], &a[k], &u);
        } else {
            cuzk_fr x = a[k];
            nfr_mul(&a[k], &a[n - k], &u);
            nfr_mul(&a[n - k], &x, &v);
        }
        if (job->coset) {
            nfr_mul(&u, &u, &d->g_inv);
            nfr_mul(&v, &v, &d->g);
        }
    }
}

static void reverse_scale_task(void *arg, size_t c)
{
    const struct reverse_job *job = arg;
    const cuzk_ntt_domain *d = job->d;
    size_t n = d->n, count = n / 2 + 1;
    size_t lo = count * c / job->chunks, hi = count * (c + 1) / job->chunks;
    /* vector blocks of 8 must not meet their mirror images: k < n/2 - 8 */
    size_t vlo = (lo > 8 ? lo + 7 : 8) & ~(size_t)7, vhi = hi & ~(size_t)7;
    if (n >= 32 && vhi > n / 2 - 8) vhi = (n / 2 - 8) & ~(size_t)7;
    if (!d->ifma || n < 32 || vlo >= vhi) {
        reverse_scale_range(job, lo, hi);
        return;
    }
    cuzk_fr u[8], v[8], us, vs, vbase;
    if (job->coset) {
        lane_factors(u, &us, &d->n_inv, &d->g_inv, vlo);
        nfr_mul(&vbase, &d->n_inv, &d->g_inv_n);
        lane_factors(v, &vs, &vbase, &d->g, vlo);
    } else {
        for (int i = 0; i < 8; i++)
            scale16(&u[i], &d->n_inv), v[i] = u[i];
    }
    reverse_scale_range(job, lo, vlo);
    cuzk_ntt_ifma_revscale(job->a, n, vlo, vhi - vlo, u, job->coset ? &us : NULL, v, job->coset ? &vs : NULL);
    reverse_scale_range(job, vhi, hi);
}

/* ---- transforms ----------------------------------------------------------- */

static int check(const cuzk_ntt_domain *dom, const cuzk_fr *a, size_t n)
{
    if (!dom || !a || n != dom->n) return CUZK_ERR_ARG;
    return CUZK_OK;
}

static void forward(const cuzk_ntt_domain *d, cuzk_par *par, cuzk_fr *a)
{
    cuzk_ntt_dif(d, par, a);
    cuzk_ntt_bitrev_permute(par, a, d->log_n);
}

static size_t pass_chunks(const cuzk_ntt_domain *d, cuzk_par *par)
{
    return d->log_n >= 12 ? ntt_chunks(par, d->n) : 1;
}

static void reverse_scale(const cuzk_ntt_domain *d, cuzk_par *par, cuzk_fr *a, int coset)
{
    struct reverse_job job = {d, a, pass_chunks(d, par), coset};
    cuzk_par_for(par, reverse_scale_task, &job, job.chunks);
}

int cuzk_ntt_forward(const cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *a, size_t n)
{
    int rc = check(dom, a, n);
    if (rc == CUZK_OK) forward(dom, par, a);
    return rc;
}

int cuzk_ntt_inverse(const cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *a, size_t n)
{
    int rc = check(dom, a, n);
    if (rc != CUZK_OK) return rc;
    forward(dom, par, a);
    reverse_scale(dom, par, a, 0);
    return CUZK_OK;
}

int cuzk_ntt_coset_forward(const cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *a, size_t n)
{
    int rc = check(dom, a, n);
    if (rc != CUZK_OK) return rc;
    struct scale_job job = {dom, a, pass_chunks(dom, par)};
    cuzk_par_for(par, coset_scale_task, &job, job.chunks);
    forward(dom, par, a);
    return CUZK_OK;
}

int cuzk_ntt_coset_inverse(const cuzk_ntt_domain *dom, cuzk_par *par, cuzk_fr *a, size_t n)
{
    int rc = check(dom, a, n);
    if (rc != CUZK_OK) return rc;
    forward(dom, par, a);
    reverse_scale(dom, par, a, 1);
    return CUZK_OK;
}
