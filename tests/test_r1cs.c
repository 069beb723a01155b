/* Constraint system tests.
 *
 * References: the chain counts are derived by hand from its definition; the
 * per-constraint evaluations are recomputed densely from the CSR export
 * (a slow, obviously-correct matrix-vector product); density is recomputed
 * from the CSR columns; shape, witness and check runs are compared with
 * the proving run of the same circuit. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/r1cs.h"
#include "cuzk/status.h"
#include "fr_util.h"
#include "harness.h"

static bool bit(const uint64_t *m, size_t i) { return m && ((m[i / 64] >> (i % 64)) & 1); }

static cuzk_cs *run(cuzk_cs_mode mode, unsigned flags, cuzk_circuit_fn fn, void *ctx)
{
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, mode, flags) == CUZK_OK);
    if (!cs) return NULL;
    int rc = cuzk_cs_synthesize(cs, fn, ctx);
    if (rc) fprintf(stderr, "  synthesize: %s\n", cuzk_cs_error(cs));
    CHECK(rc == CUZK_OK);
    return cs;
}

/* ---- chain ----------------------------------------------------------------- */

static void test_chain_counts(void)
{
    static const size_t sizes[] = {1, 2, 5, 100, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        cuzk_chain_ctx ctx = {.n = n, .x0 = fr_rand()};
        cuzk_cs_mode modes[2] = {CUZK_CS_SHAPE, CUZK_CS_PROVE};
        for (int m = 0; m < 2; m++) {
            cuzk_cs *cs = run(modes[m], 0, cuzk_chain_circuit, &ctx);
            if (!cs) continue;
            cuzk_cs_counts c;
            cuzk_cs_get_counts(cs, &c);
            /* n squarings + 2 input constraints (ONE, y); x and x_1..x_{n-1} aux */
            CHECK(c.constraints == n + 2);
            CHECK(c.inputs == 2);
            CHECK(c.aux == n);
            CHECK(c.nnz_a == n + 2);
            CHECK(c.nnz_b == n);
            CHECK(c.nnz_c == 2 * n);
            CHECK(c.a_aux_density == n);
            CHECK(c.b_input_density == 0);
            CHECK(c.b_aux_density == n);
            cuzk_cs_free(cs);
        }
        cuzk_cs *cs = run(CUZK_CS_CHECK, 0, cuzk_chain_circuit, &ctx);
        if (!cs) continue;
        CHECK(cuzk_cs_is_satisfied(cs, NULL, NULL));
        cuzk_fr y;
        cuzk_chain_output(&y, &ctx.x0, n);
        CHECK(cuzk_fr_eq(&cuzk_cs_input_assignment(cs)[1], &y));
        CHECK(cuzk_fr_eq(&cuzk_cs_aux_assignment(cs)[0], &ctx.x0));
        cuzk_cs_free(cs);
    }
    /* n = 2 by hand: 3^2+7 = 16, 16^2+7 = 263 */
    cuzk_chain_ctx ctx = {.n = 2, .x0 = fr_u64(3)};
    cuzk_fr y, want = fr_u64(263);
    cuzk_chain_output(&y, &ctx.x0, 2);
    CHECK(cuzk_fr_eq(&y, &want));
}

/* chain with namespaces and one wrong witness value at step `bad` */
typedef struct {
    size_t n, bad;
} bad_chain_ctx;

static int bad_chain(cuzk_cs *cs, void *vctx)
{
    const bad_chain_ctx *ctx = vctx;
    cuzk_fr x = fr_u64(5), seven = fr_u64(7), m1;
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    cuzk_var cur, nxt;
    cuzk_cs_push_namespace(cs, "chain");
    cuzk_cs_alloc(cs, &cur, &x);
    for (size_t i = 0; i < ctx->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "step %zu", i);
        cuzk_cs_push_namespace(cs, name);
        cuzk_fr_sqr(&x, &x);
        cuzk_fr_add(&x, &x, &seven);
        cuzk_fr stored = x;
        if (i == ctx->bad) cuzk_fr_add(&stored, &stored, &CUZK_FR_ONE);
        cuzk_cs_alloc(cs, &nxt, &stored);
        cuzk_term a = {cur, m1}, b = {cur, CUZK_FR_ONE}, c[2] = {{CUZK_ONE, seven}, {nxt, m1}};
        cuzk_cs_enforce(cs, &a, 1, &b, 1, c, 2);
        cuzk_cs_pop_namespace(cs);
        x = stored; /* later steps are consistent with the stored value */
        cur = nxt;
    }
    cuzk_cs_pop_namespace(cs);
    return cuzk_cs_status(cs);
}

static void test_unsatisfied(void)
{
    for (int it = 0; it < 5 * test_iterations; it++) {
        bad_chain_ctx ctx = {.n = 50, .bad = test_rand64() % 50};
        cuzk_cs *cs = run(CUZK_CS_CHECK, CUZK_CS_NAMES, bad_chain, &ctx);
        if (!cs) continue;
        size_t idx = 0;
        const char *path = NULL;
        CHECK(!cuzk_cs_is_satisfied(cs, &idx, &path));
        CHECK(idx == ctx.bad);
        char want[64];
        snprintf(want, sizeof want, "chain/step %zu", ctx.bad);
        CHECK(path && !strcmp(path, want));
        cuzk_cs_free(cs);
        /* without CUZK_CS_NAMES the index is still exact, the path empty */
        cs = run(CUZK_CS_CHECK, 0, bad_chain, &ctx);
        if (!cs) continue;
        CHECK(!cuzk_cs_is_satisfied(cs, &idx, &path));
        CHECK(idx == ctx.bad && path && !*path);
        cuzk_cs_free(cs);
    }
    bad_chain_ctx good = {.n = 50, .bad = 1000};
    cuzk_cs *cs = run(CUZK_CS_CHECK, CUZK_CS_NAMES, bad_chain, &good);
    if (cs) CHECK(cuzk_cs_is_satisfied(cs, NULL, NULL));
    cuzk_cs_free(cs);
}

/* ---- density on hand-built systems -------------------------------------------- */

static void test_density_semantics(void)
{
    cuzk_fr two = fr_u64(2), three = fr_u64(3), m1;
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    unsigned flagsets[2] = {CUZK_CS_MATRICES, CUZK_CS_MATRICES | CUZK_CS_DENSITY_PRESENCE};
    for (int f = 0; f < 2; f++) {
        bool presence = f == 1;
        cuzk_cs *cs = NULL;
        CHECK(cuzk_cs_new(&cs, CUZK_CS_PROVE, flagsets[f]) == CUZK_OK);
        if (!cs) return;
        cuzk_var x, y, z, in1;
        cuzk_fr vx = fr_u64(10), vy = fr_u64(20), vz = fr_u64(30), vi = fr_u64(40);
        CHECK(cuzk_cs_alloc(cs, &x, &vx) == CUZK_OK);
        CHECK(cuzk_cs_alloc(cs, &y, &vy) == CUZK_OK);
        CHECK(cuzk_cs_alloc_input(cs, &in1, &vi) == CUZK_OK);
        CHECK(cuzk_cs_alloc(cs, &z, &vz) == CUZK_OK);
        /* row 0: A = x - x (zero sum) + 2y; B = in1 + z - z; C = z */
        cuzk_term a0[3] = {{x, CUZK_FR_ONE}, {y, two}, {x, m1}};
        cuzk_term b0[3] = {{z, CUZK_FR_ONE}, {in1, CUZK_FR_ONE}, {z, m1}};
        cuzk_term c0[1] = {{z, CUZK_FR_ONE}};
        CHECK(cuzk_cs_enforce(cs, a0, 3, b0, 3, c0, 1) == CUZK_OK);
        /* row 1: A = 2y + 3*ONE + 1y (duplicates merge to 3y); B = empty; C = y */
        cuzk_term a1[3] = {{y, two}, {CUZK_ONE, three}, {y, CUZK_FR_ONE}}, c1[1] = {{y, CUZK_FR_ONE}};
        CHECK(cuzk_cs_enforce(cs, a1, 3, NULL, 0, c1, 1) == CUZK_OK);
        CHECK(cuzk_cs_finish(cs) == CUZK_OK);

        cuzk_cs_counts c;
        cuzk_cs_get_counts(cs, &c);
        CHECK(c.constraints == 2 + 2); /* two rows + ONE + in1 */
        CHECK(c.inputs == 2 && c.aux == 3);
        CHECK(c.nnz_a == 2 + 2 + 2); /* row0 {y, x(0)}, row1 {ONE, y}, input rows */
        CHECK(c.nnz_b == 2 && c.nnz_c == 2);
        /* A: y dense; x only with coefficient sum 0 */
        CHECK(bit(cuzk_cs_density_a_aux(cs), 1));
        CHECK(bit(cuzk_cs_density_a_aux(cs), 0) == presence);
        CHECK(!bit(cuzk_cs_density_a_aux(cs), 2));
        CHECK(bit(cuzk_cs_density_b_aux(cs), 2) == presence);
        CHECK(!bit(cuzk_cs_density_b_aux(cs), 0) && !bit(cuzk_cs_density_b_aux(cs), 1));
        CHECK(bit(cuzk_cs_density_b_input(cs), 1) && !bit(cuzk_cs_density_b_input(cs), 0));
        CHECK(c.a_aux_density == (presence ? 2u : 1u));
        CHECK(c.b_aux_density == (presence ? 1u : 0u));
        CHECK(c.b_input_density == 1);

        cuzk_csr A, B;
        CHECK(cuzk_cs_matrix(cs, CUZK_LC_A, &A) == CUZK_OK);
        CHECK(cuzk_cs_matrix(cs, CUZK_LC_B, &B) == CUZK_OK);
        if (A.row_ptr && B.row_ptr) {
            CHECK(A.rows == 4 && A.cols == 5 && A.nnz == 6);
            /* unified columns: ONE 0, in1 1, x 2, y 3, z 4 */
            CHECK(A.row_ptr[1] == 2 && A.col[0] == 2 && A.col[1] == 3);
            CHECK(cuzk_fr_is_zero(&A.val[0]) && cuzk_fr_eq(&A.val[1], &two));
            cuzk_fr five = fr_u64(5), three_y = fr_u64(3);
            CHECK(A.row_ptr[2] == 4 && A.col[2] == 0 && A.col[3] == 3);
            CHECK(cuzk_fr_eq(&A.val[2], &three) && cuzk_fr_eq(&A.val[3], &three_y));
            (void)five;
            /* input constraints last: A = [input i], B and C empty */
            for (size_t i = 0; i < 2; i++) {
                size_t r = 2 + i;
                CHECK(A.row_ptr[r + 1] - A.row_ptr[r] == 1 && A.col[A.row_ptr[r]] == i);
                CHECK(cuzk_fr_is_one(&A.val[A.row_ptr[r]]));
                CHECK(B.row_ptr[r + 1] == B.row_ptr[r]);
            }
            CHECK(B.row_ptr[1] == 2 && B.col[0] == 1 && B.col[1] == 4);
        }
        /* evaluations: row0 a = 2*20 = 40, b = 40, c = 30; row1 a = 3 + 60 = 63, b = 0 */
        const cuzk_fr *ea = cuzk_cs_eval(cs, 0), *eb = cuzk_cs_eval(cs, 1), *ec = cuzk_cs_eval(cs, 2);
        cuzk_fr w40 = fr_u64(40), w30 = fr_u64(30), w63 = fr_u64(63), w20 = fr_u64(20);
        CHECK(cuzk_fr_eq(&ea[0], &w40) && cuzk_fr_eq(&eb[0], &w40) && cuzk_fr_eq(&ec[0], &w30));
        CHECK(cuzk_fr_eq(&ea[1], &w63) && cuzk_fr_is_zero(&eb[1]) && cuzk_fr_eq(&ec[1], &w20));
        CHECK(cuzk_fr_is_one(&ea[2]) && cuzk_fr_eq(&ea[3], &vi));
        CHECK(cuzk_fr_is_zero(&eb[3]) && cuzk_fr_is_zero(&ec[3]));
        cuzk_cs_free(cs);
    }
}

/* ---- random circuits: proving evaluations vs dense recomputation ---------------- */

typedef struct {
    uint64_t seed;
    size_t rows, inputs, aux;
} rand_ctx;

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static cuzk_fr fr_from_rng(uint64_t *s)
{
    switch (xs(s) % 8) { /* the fast paths 1, -1, 0 and ONE-heavy coefficients */
    case 0: return CUZK_FR_ONE;
    case 1: {
        cuzk_fr m;
        cuzk_fr_neg(&m, &CUZK_FR_ONE);
        return m;
    }
    case 2: return CUZK_FR_ZERO;
    default: {
        uint8_t b[48];
        for (int i = 0; i < 48; i++) b[i] = (uint8_t)xs(s);
        cuzk_fr r;
        cuzk_fr_from_bytes_le_reduce(&r, b, sizeof b);
        return r;
    }
    }
}

static int rand_circuit(cuzk_cs *cs, void *vctx)
{
    const rand_ctx *ctx = vctx;
    uint64_t s = ctx->seed | 1;
    bool values = cuzk_cs_needs_values(cs);
    cuzk_var *vars = malloc((ctx->inputs + ctx->aux + 1) * sizeof *vars);
    size_t nv = 0;
    vars[nv++] = CUZK_ONE;
    size_t ni = 0, na = 0;
    while (ni < ctx->inputs || na < ctx->aux) { /* interleave inputs and aux */
        bool in = ni < ctx->inputs && (na == ctx->aux || xs(&s) % 4 == 0);
        cuzk_fr v = fr_from_rng(&s);
        int rc = in ? cuzk_cs_alloc_input(cs, &vars[nv], values ? &v : NULL)
                    : cuzk_cs_alloc(cs, &vars[nv], values ? &v : NULL);
        if (rc) break;
        nv++;
        in ? ni++ : na++;
    }
    cuzk_term t[3][160];
    for (size_t r = 0; r < ctx->rows; r++) {
        size_t n[3];
        for (int k = 0; k < 3; k++) {
            size_t len = xs(&s) % 9;
            /* long LCs take the sort path (> 32 terms: the merge sort) */
            if (xs(&s) % 16 == 0) len = 20 + xs(&s) % 140;
            /* as a sum of u32 words makes them: increasing runs of
             * variables, each starting anywhere (runs, wraps, repeats) */
            bool runs = len > 32 && xs(&s) % 2;
            size_t at = xs(&s) % nv;
            n[k] = len;
            for (size_t i = 0; i < len; i++) {
                if (runs) {
                    if (xs(&s) % 24 == 0) at = xs(&s) % nv; /* a new run */
                    t[k][i].var = vars[at++ % nv];
                } else {
                    /* small pools make duplicates frequent */
                    size_t pool = xs(&s) % 2 ? 6 : nv;
                    t[k][i].var = vars[xs(&s) % (pool < nv ? pool : nv)];
                }
                t[k][i].coeff = fr_from_rng(&s);
            }
        }
        cuzk_cs_enforce(cs, t[0], n[0], t[1], n[1], t[2], n[2]);
    }
    free(vars);
    return cuzk_cs_status(cs);
}

static void test_prove_vs_dense(void)
{
    for (int it = 0; it < 20 * test_iterations; it++) {
        rand_ctx ctx = {.seed = test_rand64(), .rows = 1 + test_rand64() % 300,
                        .inputs = test_rand64() % 6, .aux = 1 + test_rand64() % 60};
        cuzk_cs *full = run(CUZK_CS_PROVE, CUZK_CS_MATRICES, rand_circuit, &ctx);
        cuzk_cs *plain = run(CUZK_CS_PROVE, 0, rand_circuit, &ctx);
        cuzk_cs *shape = run(CUZK_CS_SHAPE, 0, rand_circuit, &ctx);
        cuzk_cs *wit = run(CUZK_CS_WITNESS, 0, rand_circuit, &ctx);
        cuzk_cs *chk = run(CUZK_CS_CHECK, CUZK_CS_MATRICES, rand_circuit, &ctx);
        if (!full || !plain || !shape || !wit || !chk) goto done;
        cuzk_cs_counts cf, cp, csh, cc;
        cuzk_cs_get_counts(full, &cf);
        cuzk_cs_get_counts(plain, &cp);
        cuzk_cs_get_counts(shape, &csh);
        cuzk_cs_get_counts(chk, &cc);
        CHECK(!memcmp(&cf, &cp, sizeof cf) && !memcmp(&cf, &csh, sizeof cf) && !memcmp(&cf, &cc, sizeof cf));
        CHECK(cf.constraints == ctx.rows + ctx.inputs + 1);
        CHECK(cf.inputs == ctx.inputs + 1 && cf.aux == ctx.aux);

        const cuzk_fr *in = cuzk_cs_input_assignment(full), *aux = cuzk_cs_aux_assignment(full);
        CHECK(!memcmp(in, cuzk_cs_input_assignment(wit), cf.inputs * sizeof *in));
        CHECK(!memcmp(aux, cuzk_cs_aux_assignment(wit), cf.aux * sizeof *aux));
        CHECK(cuzk_cs_eval(wit, 0) == NULL && cuzk_cs_input_assignment(shape) == NULL);

        size_t ncols = cf.inputs + cf.aux, nnz_total[3] = {0};
        bool dens[3][128] = {{0}}; /* A aux, B input, B aux */
        for (int k = 0; k < 3; k++) {
            cuzk_csr m;
            CHECK(cuzk_cs_matrix(full, k, &m) == CUZK_OK);
            if (!m.row_ptr) continue;
            CHECK(m.rows == cf.constraints && m.cols == ncols);
            nnz_total[k] = m.nnz;
            const cuzk_fr *ev = cuzk_cs_eval(full, k);
            for (size_t r = 0; r < m.rows; r++) {
                /* dense row times z */
                cuzk_fr *row = calloc(ncols, sizeof *row), acc = CUZK_FR_ZERO, tmp;
                for (size_t e = m.row_ptr[r]; e < m.row_ptr[r + 1]; e++) {
                    CHECK(m.col[e] < ncols);
                    if (e > m.row_ptr[r]) CHECK(m.col[e] > m.col[e - 1]);
                    row[m.col[e]] = m.val[e];
                    size_t j = m.col[e];
                    if (!cuzk_fr_is_zero(&m.val[e]) && k < 2) {
                        if (j >= cf.inputs) dens[k == 0 ? 0 : 2][j - cf.inputs] = true;
                        else if (k == 1) dens[1][j] = true;
                    }
                }
                for (size_t j = 0; j < ncols; j++) {
                    cuzk_fr_mul(&tmp, &row[j], j < cf.inputs ? &in[j] : &aux[j - cf.inputs]);
                    cuzk_fr_add(&acc, &acc, &tmp);
                }
                free(row);
                CHECK(cuzk_fr_eq(&acc, &ev[r]));
                CHECK(cuzk_fr_eq(&ev[r], &cuzk_cs_eval(plain, k)[r]));
            }
        }
        CHECK(nnz_total[0] == cf.nnz_a && nnz_total[1] == cf.nnz_b && nnz_total[2] == cf.nnz_c);
        for (size_t j = 0; j < cf.aux; j++) {
            CHECK(bit(cuzk_cs_density_a_aux(plain), j) == dens[0][j]);
            CHECK(bit(cuzk_cs_density_b_aux(plain), j) == dens[2][j]);
            CHECK(bit(cuzk_cs_density_a_aux(shape), j) == dens[0][j]);
        }
        for (size_t j = 0; j < cf.inputs; j++) CHECK(bit(cuzk_cs_density_b_input(plain), j) == dens[1][j]);
    done:
        cuzk_cs_free(full);
        cuzk_cs_free(plain);
        cuzk_cs_free(shape);
        cuzk_cs_free(wit);
        cuzk_cs_free(chk);
    }
}

/* ---- row observer ------------------------------------------------------------------ */

typedef struct {
    size_t inputs; /* to map aux cuzk_var to the unified column */
    cuzk_csr m[3]; /* the reference export */
    size_t seen[3], next_row;
    int next_side;
    bool ok;
} obs_ctx;

static int observe(void *vctx, size_t row, int side, const cuzk_term *t, size_t n)
{
    obs_ctx *o = vctx;
    if (row != o->next_row || side != o->next_side) o->ok = false;
    o->next_side = (side + 1) % 3;
    if (o->next_side == 0) o->next_row = row + 1;
    const cuzk_csr *m = &o->m[side];
    size_t lo = m->row_ptr ? m->row_ptr[row] : 0, hi = m->row_ptr ? m->row_ptr[row + 1] : 0;
    if (hi - lo != n) o->ok = false;
    for (size_t i = 0; i < n && o->ok; i++) {
        cuzk_var v = t[i].var;
        size_t col = CUZK_VAR_IS_AUX(v) ? o->inputs + CUZK_VAR_INDEX(v) : (size_t)v;
        if (m->col[lo + i] != col || !cuzk_fr_eq(&m->val[lo + i], &t[i].coeff)) o->ok = false;
    }
    o->seen[side] += n;
    return CUZK_OK;
}

static int observer_refuses(void *ctx, size_t row, int side, const cuzk_term *t, size_t n)
{
    (void)ctx, (void)t, (void)n;
    return row == 3 && side == 1 ? CUZK_ERR_IO : CUZK_OK;
}

/* What the observer sees is, entry for entry and in order, the CSR export of
 * the same circuit (built independently with CUZK_CS_MATRICES). */
static void test_row_observer(void)
{
    for (int it = 0; it < 10 * test_iterations; it++) {
        rand_ctx ctx = {.seed = test_rand64(), .rows = 1 + test_rand64() % 200,
                        .inputs = test_rand64() % 6, .aux = 1 + test_rand64() % 60};
        cuzk_cs *ref = run(CUZK_CS_SHAPE, CUZK_CS_MATRICES, rand_circuit, &ctx), *cs = NULL;
        CHECK(ref != NULL);
        if (!ref) return;
        obs_ctx o = {.inputs = ctx.inputs + 1, .ok = true};
        for (int k = 0; k < 3; k++) CHECK(cuzk_cs_matrix(ref, k, &o.m[k]) == CUZK_OK);
        cuzk_cs_mode mode = it % 2 ? CUZK_CS_SHAPE : CUZK_CS_PROVE;
        CHECK(cuzk_cs_new(&cs, mode, 0) == CUZK_OK);
        CHECK(cuzk_cs_set_row_observer(cs, observe, &o) == CUZK_OK);
        CHECK(cuzk_cs_synthesize(cs, rand_circuit, &ctx) == CUZK_OK);
        cuzk_cs_counts c;
        cuzk_cs_get_counts(cs, &c);
        CHECK(o.ok && o.next_row == c.constraints && o.next_side == 0);
        CHECK(o.seen[0] == c.nnz_a && o.seen[1] == c.nnz_b && o.seen[2] == c.nnz_c);
        cuzk_cs_free(cs);
        cuzk_cs_free(ref);
    }
    cuzk_cs *cs = NULL; /* refusals */
    CHECK(cuzk_cs_new(&cs, CUZK_CS_WITNESS, 0) == CUZK_OK);
    CHECK(cuzk_cs_set_row_observer(cs, observe, NULL) == CUZK_ERR_ARG);
    cuzk_cs_free(cs);
    rand_ctx ctx = {.seed = 7, .rows = 10, .inputs = 1, .aux = 5};
    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0) == CUZK_OK);
    CHECK(cuzk_cs_set_row_observer(cs, observer_refuses, NULL) == CUZK_OK);
    CHECK(cuzk_cs_synthesize(cs, rand_circuit, &ctx) == CUZK_ERR_IO);
    CHECK(strstr(cuzk_cs_error(cs), "constraint 3 (B)") != NULL);
    cuzk_cs_free(cs);
}

/* ---- errors ------------------------------------------------------------------------ */

static void test_errors(void)
{
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, (cuzk_cs_mode)7, 0) == CUZK_ERR_ARG && cs == NULL);
    CHECK(cuzk_cs_new(&cs, CUZK_CS_PROVE, 0x100) == CUZK_ERR_ARG);
    CHECK(cuzk_cs_new(&cs, CUZK_CS_PROVE, 0) == CUZK_OK);
    if (!cs) return;
    cuzk_var x, bogus = CUZK_VAR_AUX | 1;
    cuzk_fr v = fr_u64(1);
    CHECK(cuzk_cs_alloc(cs, &x, &v) == CUZK_OK);
    cuzk_term a = {x, CUZK_FR_ONE}, b = {bogus, CUZK_FR_ONE};
    CHECK(cuzk_cs_enforce(cs, &a, 1, &b, 1, NULL, 0) == CUZK_ERR_ARG);
    CHECK(strstr(cuzk_cs_error(cs), "B term 0 refers to aux 1, but only 1 exist") != NULL);
    /* sticky: later calls return the first error, message unchanged */
    CHECK(cuzk_cs_alloc(cs, &x, &v) == CUZK_ERR_ARG);
    CHECK(cuzk_cs_finish(cs) == CUZK_ERR_ARG);
    CHECK(strstr(cuzk_cs_error(cs), "refers to aux 1") != NULL);
    cuzk_cs_free(cs);

    CHECK(cuzk_cs_new(&cs, CUZK_CS_WITNESS, 0) == CUZK_OK);
    if (!cs) return;
    cuzk_term in5 = {(cuzk_var)5, CUZK_FR_ONE};
    CHECK(cuzk_cs_enforce(cs, NULL, 0, NULL, 0, &in5, 1) == CUZK_ERR_ARG);
    CHECK(strstr(cuzk_cs_error(cs), "C term 0 refers to input 5, but only 1 exist") != NULL);
    cuzk_cs_free(cs);

    CHECK(cuzk_cs_new(&cs, CUZK_CS_PROVE, 0) == CUZK_OK);
    if (!cs) return;
    CHECK(cuzk_cs_alloc(cs, &x, NULL) == CUZK_ERR_ARG);
    CHECK(strstr(cuzk_cs_error(cs), "value is NULL") != NULL);
    cuzk_cs_free(cs);

    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0) == CUZK_OK); /* SHAPE takes NULL values */
    if (!cs) return;
    CHECK(cuzk_cs_alloc(cs, &x, NULL) == CUZK_OK);
    CHECK(cuzk_cs_value(cs, x) == NULL);
    CHECK(cuzk_cs_finish(cs) == CUZK_OK);
    CHECK(cuzk_cs_alloc(cs, &x, NULL) == CUZK_ERR_ARG);
    CHECK(strstr(cuzk_cs_error(cs), "after cuzk_cs_finish") != NULL);
    cuzk_cs_free(cs);

    cuzk_chain_ctx bad = {.n = 0};
    CHECK(cuzk_cs_new(&cs, CUZK_CS_PROVE, 0) == CUZK_OK);
    if (!cs) return;
    CHECK(cuzk_cs_synthesize(cs, cuzk_chain_circuit, &bad) == CUZK_ERR_ARG);
    CHECK(strstr(cuzk_cs_error(cs), "n >= 1") != NULL);
    cuzk_cs_free(cs);
}

static void test_take_evals(void)
{
    cuzk_chain_ctx ctx = {.n = 10, .x0 = fr_u64(2)};
    cuzk_cs *cs = run(CUZK_CS_PROVE, 0, cuzk_chain_circuit, &ctx);
    if (!cs) return;
    cuzk_fr *a, *b, *c;
    CHECK(cuzk_cs_take_evals(cs, &a, &b, &c) == CUZK_OK);
    for (size_t i = 0; i < 12; i++) { /* a*b = c on every row of a satisfied system */
        cuzk_fr t;
        cuzk_fr_mul(&t, &a[i], &b[i]);
        CHECK(cuzk_fr_eq(&t, &c[i]));
    }
    CHECK(cuzk_cs_eval(cs, 0) == NULL);
    free(a), free(b), free(c);
    cuzk_cs_free(cs);
}

static const test_case tests[] = {
    {"chain_counts", test_chain_counts},
    {"unsatisfied", test_unsatisfied},
    {"density_semantics", test_density_semantics},
    {"prove_vs_dense", test_prove_vs_dense},
    {"row_observer", test_row_observer},
    {"errors", test_errors},
    {"take_evals", test_take_evals},
};
TEST_MAIN(tests)
