/* Whole-MSM driver for one group, included by msm_g1.c / msm_g2.c after
 * msm_tmpl.h (same macros): density compaction, scalar conversion, the 0/1
 * split, the tile plan over the caller's cuzk_par, and the final combine. */

/* ---- whole MSM ------------------------------------------------------------ */
/* Work split: ntasks = P point ranges x NG window groups; task i owns tile
 * scratch i, a 1/ntasks share of the ones, and window sums win[p][w].
 * With K <= nwin threads (P = 1, NG = K) whole-window groups would leave
 * one task a window more than another when K does not divide nwin (19
 * windows on 2 threads: 10 vs 9, ~5 % of the wall time), so each task
 * takes exactly nwin / K windows: whole windows plus point ranges of the
 * windows at its edges, with its own window sums win[task][w]
 * ("balanced"; the split window costs one extra running sum). */
typedef struct {
    size_t P, NG, ntasks, tile_bytes;
    int balanced;
} split;

static split plan_split(size_t K, unsigned nwin)
{
    split s;
    s.balanced = 0;
    if (K <= nwin) {
        s.P = 1;
        s.NG = K;
        s.balanced = K > 1 && nwin % K != 0;
    } else {
        s.NG = nwin;
        s.P = (K + nwin - 1) / nwin;
    }
    s.ntasks = s.P * s.NG;
    s.tile_bytes = 0;
    return s;
}

/* Bytes of the whole-MSM scratch for a given c: the converted scalars of
 * the Pippenger terms (Fr input) or their variable indices (canonical
 * input, read in place), base indices and the ones list, window sums, then
 * one tile scratch per task. */
static size_t scratch_for(size_t nvars, size_t K, unsigned c, int is_fr, int forced, split *sp)
{
    unsigned nwin = cuzk_msm_nwindows(c);
    split s = plan_split(K, nwin);
    /* default options: the cost model's strategies only; forced ones: any */
    s.tile_bytes = msm_align(forced ? G(tile_scratch_sizeof)((nvars + s.P - 1) / s.P, c) : tile_auto_bytes(c));
    if (sp) *sp = s;
    return msm_align(nvars * (is_fr ? sizeof(cuzk_scalar) : sizeof(uint32_t))) +
           2 * msm_align(nvars * sizeof(uint32_t)) +
           msm_align((s.balanced ? s.ntasks : s.P) * nwin * sizeof(xyzz)) +
           msm_align(s.ntasks * sizeof(xyzz)) + s.ntasks * s.tile_bytes + 64;
}

static size_t scratch_bound(size_t nvars, size_t K, unsigned cup, int is_fr, int forced)
{
    size_t best = 0;
    for (unsigned c = 1; c <= cup; c++) {
        size_t b = scratch_for(nvars, K, c, is_fr, forced, NULL);
        if (b > best) best = b;
    }
    return best;
}

static unsigned model_c(size_t n)
{
    unsigned c;
    int st;
    cuzk_msm_choose(n, MSM_INV_COST, MSM_BATCH, &c, &st);
    return c;
}

size_t G(scratch_sizeof)(size_t nvars, const cuzk_par *par)
{
    return scratch_bound(nvars, cuzk_par_threads(par), model_c(nvars), 1, 0);
}

size_t G(canonical_scratch_sizeof)(size_t nvars, const cuzk_par *par)
{
    return scratch_bound(nvars, cuzk_par_threads(par), model_c(nvars), 0, 0);
}

typedef struct {
    const AFF *bases, *tbases; /* ones are bases[ones[t]]; term t is tbases[idx[t]] */
    const uint32_t *idx, *ones, *kidx; /* idx: NULL = tbases compact; kidx: NULL = k compact */
    const cuzk_scalar *k;
    size_t m, nones;
    unsigned c, nwin;
    int strategy;
    split sp;
    uint8_t *tiles;
    xyzz *win, *onesum;
} job;

static void job_task(void *arg, size_t i)
{
    job *j = arg;
    size_t p = i / j->sp.NG, g = i % j->sp.NG, T = j->sp.ntasks;
    uint8_t *s = j->tiles + i * j->sp.tile_bytes;
    size_t o0 = j->nones * i / T, o1 = j->nones * (i + 1) / T;
    ba_ctx cx;
    ba_ctx_init(&cx, s);
    sum_impl(&j->onesum[i], &cx, j->bases, j->ones + o0, o1 - o0);
    const AFF *tb = j->idx ? j->tbases : NULL;
    if (j->sp.balanced) {
        /* task i covers [i nwin, (i+1) nwin) in units of 1/T window */
        size_t u0 = i * j->nwin, u1 = (i + 1) * j->nwin;
        xyzz *win = &j->win[i * j->nwin];
        for (size_t w = u0 / T; w * T < u1; w++) {
            size_t a = u0 > w * T ? u0 - w * T : 0, b = u1 < (w + 1) * T ? u1 - w * T : T;
            size_t w1 = w + 1;
            if (a == 0 && b == T) /* whole windows: one tile over the run */
                while (w1 * T + T <= u1)
                    w1++;
            size_t t0 = j->m * a / T, t1 = j->m * b / T;
            (void)tile_impl(&win[w], tb ? tb : j->tbases + t0, tb ? j->idx + t0 : NULL,
                            j->kidx ? j->k : j->k + t0,
                            j->kidx ? j->kidx + t0 : NULL, t1 - t0, j->c, (unsigned)w, (unsigned)w1,
                            j->strategy, s, j->sp.tile_bytes);
            w = w1 - 1;
        }
        return;
    }
    size_t t0 = j->m * p / j->sp.P, t1 = j->m * (p + 1) / j->sp.P;
    unsigned w0 = (unsigned)(j->nwin * g / j->sp.NG), w1 = (unsigned)(j->nwin * (g + 1) / j->sp.NG);
    /* cannot fail: arguments were validated and scratch sized by the driver */
    (void)tile_impl(&j->win[p * j->nwin + w0], tb ? tb : j->tbases + t0, tb ? j->idx + t0 : NULL,
                    j->kidx ? j->k : j->k + t0,
                    j->kidx ? j->kidx + t0 : NULL, t1 - t0, j->c, w0, w1, j->strategy, s, j->sp.tile_bytes);
}

static int msm_run(cuzk_par *par, JAC *out, const AFF *bases, size_t nbases, const void *scalars, int is_fr,
                   size_t nvars, const uint64_t *density, void *scratch, size_t scratch_len,
                   const cuzk_msm_opts *opts)
{
    cuzk_msm_opts o = {0, 0, 0};
    if (opts) o = *opts;
    if (!out || (nvars && (!bases || !scalars)) || nvars > CUZK_MSM_MAX_TERMS ||
        o.window > CUZK_MSM_MAX_WINDOW || o.strategy < 0 || o.strategy > MSM_STRAT_SORTED)
        return CUZK_ERR_ARG;
    if (nvars == 0) {
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    size_t nb_needed = density ? cuzk_msm_popcount(density, nvars) : nvars;
    if (nbases < nb_needed) return CUZK_ERR_ARG;

    size_t K = cuzk_par_threads(par);
    unsigned cup = model_c(nvars);
    if (o.window > cup) cup = o.window;
    const int forced = o.window || o.strategy;
    size_t need = scratch_bound(nvars, K, cup, is_fr, forced);
    void *mem = NULL;
    if (!scratch) {
        mem = malloc(need);
        if (!mem) return CUZK_ERR_NOMEM;
        scratch = mem;
        scratch_len = need;
    } else if (scratch_len < need) {
        return CUZK_ERR_ARG;
    }
    uint8_t *p = (uint8_t *)msm_align((uintptr_t)scratch);
    cuzk_scalar *rk = is_fr ? (cuzk_scalar *)p : NULL;
    uint32_t *kidx = is_fr ? NULL : (uint32_t *)p;
    p += msm_align(nvars * (is_fr ? sizeof(cuzk_scalar) : sizeof(uint32_t)));
    uint32_t *ridx = (uint32_t *)p;
    p += msm_align(nvars * sizeof(uint32_t));
    uint32_t *ones = (uint32_t *)p;
    p += msm_align(nvars * sizeof(uint32_t));

    /* Compact the present variables (density), convert, split 0 / 1 / rest. */
    size_t m = 0, nones = 0, b = 0;
    int rc = CUZK_OK;
    for (size_t i = 0; i < nvars; i++) {
        if (density && !((density[i >> 6] >> (i & 63)) & 1)) continue;
        uint32_t base = (uint32_t)b++;
        cuzk_scalar k;
        if (is_fr) {
            cuzk_fr_to_limbs(k.l, &((const cuzk_fr *)scalars)[i]);
        } else {
            k = ((const cuzk_scalar *)scalars)[i];
            /* canonical input must be < r */
            int lt = 0;
            for (int l = 3; l >= 0; l--)
                if (k.l[l] != CUZK_FR_MODULUS[l]) {
                    lt = k.l[l] < CUZK_FR_MODULUS[l];
                    break;
                }
            if (!lt) {
                rc = CUZK_ERR_ENC_NONCANONICAL;
                goto done;
            }
        }
        if (msm_is_zero(&k)) continue;
        if (!o.no_01_split && msm_is_one(&k)) {
            ones[nones++] = base;
            continue;
        }
        ridx[m] = base;
        if (is_fr)
            rk[m++] = k;
        else
            kidx[m++] = (uint32_t)i;
    }

    /* Sparse vectors (Filecoin's: 75 % zeros, 20 % ones): every window
     * would read each remaining term's base (and, for canonical input, its
     * scalar through kidx) from a scattered position, a cache miss per term
     * and window.  Copy them once into the index regions, which are free
     * enough when m is small (perf-notes, MSM session 2). */
    const cuzk_scalar *kv = is_fr ? rk : (const cuzk_scalar *)scalars;
    const AFF *tbases = bases;
    const uint32_t *tidx = ridx;
    uint8_t *r0 = (uint8_t *)msm_align((uintptr_t)scratch);
    size_t kbytes = msm_align(nvars * (is_fr ? sizeof(cuzk_scalar) : sizeof(uint32_t)));
    size_t ibytes = msm_align(nvars * sizeof(uint32_t));
    if (m && m <= nvars / 16) {
        if (is_fr && msm_align(m * sizeof(cuzk_scalar)) + m * sizeof(AFF) <= kbytes) {
            /* rk is compact already; bases go after it in rk's region */
            AFF *cb = (AFF *)(r0 + msm_align(m * sizeof(cuzk_scalar)));
            for (size_t t = 0; t < m; t++) cb[t] = bases[ridx[t]];
            tbases = cb;
            tidx = NULL;
        } else if (!is_fr && msm_align(nones * sizeof(uint32_t)) + 2 * m * sizeof(uint32_t) <= ibytes &&
                   msm_align(m * sizeof(AFF)) + m * sizeof(cuzk_scalar) <= kbytes + ibytes) {
            /* both index lists move behind the ones; then the kidx and ridx
             * regions (contiguous) take the bases and the scalars */
            uint32_t *ki = (uint32_t *)((uint8_t *)ones + msm_align(nones * sizeof(uint32_t)));
            uint32_t *ri = ki + m;
            memcpy(ki, kidx, m * sizeof(uint32_t));
            memcpy(ri, ridx, m * sizeof(uint32_t));
            AFF *cb = (AFF *)r0;
            cuzk_scalar *ck = (cuzk_scalar *)(r0 + msm_align(m * sizeof(AFF)));
            for (size_t t = 0; t < m; t++) {
                cb[t] = bases[ri[t]];
                ck[t] = kv[ki[t]];
            }
            tbases = cb;
            tidx = NULL;
            kv = ck;
            kidx = NULL;
        }
    }
    if (kidx && m && m * sizeof(cuzk_scalar) <= kbytes) {
        /* scalars only, in place, last term first: compact[t] covers kidx
         * slots [8t, 8t + 8), all >= t, so every slot it overwrites has
         * been read */
        cuzk_scalar *compact = (cuzk_scalar *)kidx;
        for (size_t t = m; t-- > 0;) {
            cuzk_scalar v = kv[kidx[t]];
            compact[t] = v;
        }
        kv = compact;
        kidx = NULL;
    }

    job j;
    memset(&j, 0, sizeof j);
    j.bases = bases;
    j.tbases = tbases;
    j.idx = tidx;
    j.ones = ones;
    j.k = kv;
    j.kidx = kidx;
    j.m = m;
    j.nones = nones;
    if (o.window) {
        j.c = o.window;
        j.strategy = o.strategy;
    } else {
        cuzk_msm_choose(m, MSM_INV_COST, MSM_BATCH, &j.c, &j.strategy);
        if (j.c > cup) j.c = cup;
        if (o.strategy) j.strategy = o.strategy;
    }
    j.nwin = cuzk_msm_nwindows(j.c);
    scratch_for(nvars, K, j.c, is_fr, forced, &j.sp);
    j.win = (xyzz *)p;
    size_t nsums = j.sp.balanced ? j.sp.ntasks : j.sp.P;
    p += msm_align(nsums * j.nwin * sizeof(xyzz));
    if (j.sp.balanced)
        for (size_t q = 0; q < nsums * j.nwin; q++)
            xyzz_set_inf(&j.win[q]);
    j.onesum = (xyzz *)p;
    p += msm_align(j.sp.ntasks * sizeof(xyzz));
    j.tiles = p;
    cuzk_par_for(par, job_task, &j, j.sp.ntasks);

    for (size_t q = 1; q < nsums; q++)
        for (unsigned w = 0; w < j.nwin; w++)
            xyzz_add(&j.win[w], &j.win[q * j.nwin + w]);
    xyzz acc;
    combine_impl(&acc, j.win, j.nwin, j.c);
    for (size_t i = 0; i < j.sp.ntasks; i++)
        xyzz_add(&acc, &j.onesum[i]);
    xyzz_to_jac(out, &acc);
done:
    free(mem);
    return rc;
}

int G(opts)(cuzk_par *par, JAC *out, const AFF *bases, size_t nbases, const cuzk_scalar *scalars,
            size_t nvars, const uint64_t *density, void *scratch, size_t scratch_len,
            const cuzk_msm_opts *opts)
{
    return msm_run(par, out, bases, nbases, scalars, 0, nvars, density, scratch, scratch_len, opts);
}

int G(canonical)(cuzk_par *par, JAC *out, const AFF *bases, size_t nbases, const cuzk_scalar *scalars,
                 size_t nvars, const uint64_t *density, void *scratch, size_t scratch_len)
{
    return msm_run(par, out, bases, nbases, scalars, 0, nvars, density, scratch, scratch_len, NULL);
}
