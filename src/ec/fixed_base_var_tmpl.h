/* Variable-time fixed-base batch multiplication, written once for G1 and G2
 * (included by fixed_base_var.c after defining):
 *   FE, JAC, AFF, TB      -- field element, Jacobian, affine, table types;
 *   G(name)               -- public prefix (cuzk_g1_##name);
 *   F_ADD/SUB/NEG/MUL/SQR -- inline field operations; F_IS_ZERO, F_EQ (bool);
 *   F_INV_VAR             -- one inversion per window of a batch.
 * See fixed_base_var.c for the algorithm and its cost. */

typedef struct {
    int32_t d[FBV_BATCH * FBV_MAX_WINDOWS];
    uint32_t idx[FBV_BATCH], seq[FBV_BATCH];
    uint8_t inf[FBV_BATCH], zero[FBV_BATCH];
    AFF q[FBV_BATCH];
    FE den[FBV_BATCH], pre[FBV_BATCH];
} G(fbv_state);

int G(fbv_table_init)(TB *tb, const JAC *p, unsigned w)
{
    memset(tb, 0, sizeof *tb); /* no accelerator: the caller may set one */
    if (w < 2 || w > FBV_MAX_W) return CUZK_ERR_ARG;
    tb->w = w;
    tb->windows = (256 + w - 1) / w;
    tb->row = (size_t)1 << (w - 1);
    JAC *row = malloc(tb->row * sizeof *row);
    tb->t = malloc(tb->windows * tb->row * sizeof *tb->t);
    if (!row || !tb->t) {
        free(row);
        free(tb->t);
        tb->t = NULL;
        return CUZK_ERR_NOMEM;
    }
    JAC base = *p;
    for (unsigned i = 0; i < tb->windows; i++) {
        row[0] = base;
        for (size_t j = 1; j < tb->row; j++)
            G(add_var)(&row[j], &row[j - 1], &base);
        G(batch_to_affine_var)(tb->t + i * tb->row, row, tb->row);
        G(dbl)(&base, &row[tb->row - 1]); /* 2^w base */
    }
    free(row);
    return CUZK_OK;
}

void G(fbv_table_free)(TB *tb)
{
    free(tb->t);
    tb->t = NULL;
}

/* The state first, then the accelerator's work area (64-byte aligned). */
size_t G(fbv_scratch_size)(const TB *tb)
{
    size_t st = (sizeof(G(fbv_state)) + 63) & ~(size_t)63;
    return st + (tb->pairs ? tb->pairs_work_bytes(FBV_BATCH) : 0);
}

/* The rare exceptional sums (accumulator = +-table point): exactly, through
 * Jacobian coordinates.  *inf is updated. */
static void G(fbv_exceptional)(AFF *acc, uint8_t *inf, const AFF *q)
{
    if (!F_EQ(&acc->y, &q->y)) { /* opposite points */
        memset(acc, 0, sizeof *acc);
        *inf = 1;
        return;
    }
    JAC j;
    G(from_affine)(&j, acc);
    G(dbl)(&j, &j);
    G(to_affine)(acc, &j);
}

static void G(fbv_batch)(AFF *acc, const TB *tb, const cuzk_fr *k, size_t m, G(fbv_state) * st)
{
    const unsigned W = tb->windows;
    if (tb->pairs)
        for (size_t p = 0; p < FBV_BATCH; p++)
            st->seq[p] = (uint32_t)p, st->zero[p] = 0;
    for (size_t p = 0; p < m; p++) {
        int32_t *d = st->d + p * W;
        fbv_recode(d, &k[p], tb->w, W);
        st->inf[p] = d[0] == 0;
        if (d[0]) {
            acc[p] = tb->t[(d[0] < 0 ? -d[0] : d[0]) - 1];
            if (d[0] < 0) F_NEG(&acc[p].y, &acc[p].y);
        }
    }
    for (unsigned i = 1; i < W; i++) {
        const AFF *row = tb->t + (size_t)i * tb->row;
        size_t cnt = 0;
        for (size_t p = 0; p < m; p++) {
            if (p + FBV_PREFETCH < m) {
                int32_t dn = st->d[(p + FBV_PREFETCH) * W + i];
                if (dn) {
                    const char *e = (const char *)&row[(dn < 0 ? -dn : dn) - 1];
                    __builtin_prefetch(e);
                    __builtin_prefetch(e + sizeof(AFF) - 1);
                }
            }
            int32_t di = st->d[p * W + i];
            if (!di) continue;
            AFF *q = &st->q[cnt];
            *q = row[(di < 0 ? -di : di) - 1];
            if (di < 0) F_NEG(&q->y, &q->y);
            if (st->inf[p]) {
                acc[p] = *q;
                st->inf[p] = 0;
                continue;
            }
            FE *den = &st->den[cnt];
            F_SUB(den, &q->x, &acc[p].x);
            if (F_IS_ZERO(den)) {
                G(fbv_exceptional)(&acc[p], &st->inf[p], q);
                continue;
            }
            if (cnt)
                F_MUL(&st->pre[cnt], &st->pre[cnt - 1], den);
            else
                st->pre[0] = *den;
            st->idx[cnt++] = (uint32_t)p;
        }
        if (!cnt) continue;
        if (tb->pairs) { /* the same chord additions, eight lanes at a time */
            tb->pairs(acc, acc, st->q, st->idx, st->idx, st->seq, st->zero, st->den,
                      (char *)st + ((sizeof *st + 63) & ~(size_t)63), cnt);
            continue;
        }
        FE inv;
        F_INV_VAR(&inv, &st->pre[cnt - 1]);
        for (size_t c = cnt; c-- > 0;) {
            FE ip, lam, t;
            if (c) {
                F_MUL(&ip, &inv, &st->pre[c - 1]);
                F_MUL(&inv, &inv, &st->den[c]);
            } else {
                ip = inv;
            }
            AFF *a = &acc[st->idx[c]];
            const AFF *q = &st->q[c];
            F_SUB(&t, &q->y, &a->y);
            F_MUL(&lam, &t, &ip);
            F_SQR(&t, &lam);
            F_SUB(&t, &t, &a->x);
            F_SUB(&t, &t, &q->x); /* x3 */
            FE dx;
            F_SUB(&dx, &a->x, &t);
            a->x = t;
            F_MUL(&dx, &dx, &lam);
            F_SUB(&a->y, &dx, &a->y);
        }
    }
    for (size_t p = 0; p < m; p++)
        if (st->inf[p]) memset(&acc[p], 0, sizeof acc[p]);
}

void G(mul_fixed_many_var)(AFF *out, const TB *tb, const cuzk_fr *k, size_t n, void *scratch)
{
    for (size_t lo = 0; lo < n; lo += FBV_BATCH)
        G(fbv_batch)(out + lo, tb, k + lo, n - lo < FBV_BATCH ? n - lo : FBV_BATCH, scratch);
}
