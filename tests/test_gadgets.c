/* Gadgets (src/gadgets): constraint counts against the numbers published
 * by bellperson / rust-fil-proofs / neptune tests (filecoin-formats.md
 * section 6; neptune circuit.rs test_poseidon_hash), witness values against
 * native computations (the Poseidon output against the native hash, which
 * test_poseidon checks against neptune's vectors), satisfiability in CHECK
 * mode, soundness by tampering one assignment and re-evaluating the CSR
 * export (a slow dense evaluator here), and SHAPE runs against PROVE runs
 * (same counts, nonzeros and density without values). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets.h"
#include "cuzk/poseidon.h"
#include "cuzk/r1cs.h"
#include "cuzk/status.h"
#include "fr_util.h"
#include "harness.h"

static cuzk_cs *new_cs(cuzk_cs_mode mode, unsigned flags)
{
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, mode, flags) == CUZK_OK);
    return cs;
}

/* Finish and check: satisfied, no error. */
static void finish_ok(cuzk_cs *cs)
{
    int rc = cuzk_cs_finish(cs);
    if (rc) fprintf(stderr, "  cs error: %s\n", cuzk_cs_error(cs));
    CHECK(rc == CUZK_OK);
    size_t idx = 0;
    const char *path = "";
    bool sat = cuzk_cs_is_satisfied(cs, &idx, &path);
    if (!sat) fprintf(stderr, "  unsatisfied at constraint %zu (%s)\n", idx, path);
    CHECK(sat);
}

/* Dense evaluation of the CSR export with assignment z (unified index). */
static bool csr_satisfied(const cuzk_cs *cs, const cuzk_fr *z)
{
    cuzk_csr m[3];
    for (int k = 0; k < 3; k++) CHECK(cuzk_cs_matrix(cs, k, &m[k]) == CUZK_OK);
    for (size_t r = 0; r < m[0].rows; r++) {
        cuzk_fr v[3];
        for (int k = 0; k < 3; k++) {
            v[k] = CUZK_FR_ZERO;
            for (size_t i = m[k].row_ptr[r]; i < m[k].row_ptr[r + 1]; i++) {
                cuzk_fr t;
                cuzk_fr_mul(&t, &m[k].val[i], &z[m[k].col[i]]);
                cuzk_fr_add(&v[k], &v[k], &t);
            }
        }
        cuzk_fr_mul(&v[0], &v[0], &v[1]);
        if (!cuzk_fr_eq(&v[0], &v[2])) return false;
    }
    return true;
}

/* Every aux variable of a fully determined gadget is pinned: changing any
 * one (tries of them, chosen at random) must break a constraint. */
static void tamper_check(const cuzk_cs *cs, int tries)
{
    cuzk_cs_counts c;
    cuzk_cs_get_counts(cs, &c);
    size_t n = c.inputs + c.aux;
    cuzk_fr *z = malloc(n * sizeof *z);
    CHECK(z != NULL);
    if (!z) return;
    memcpy(z, cuzk_cs_input_assignment(cs), c.inputs * sizeof *z);
    memcpy(z + c.inputs, cuzk_cs_aux_assignment(cs), c.aux * sizeof *z);
    CHECK(csr_satisfied(cs, z));
    for (int t = 0; t < tries && c.aux; t++) {
        size_t j = c.inputs + test_rand64() % c.aux;
        cuzk_fr old = z[j];
        cuzk_fr_add(&z[j], &z[j], &CUZK_FR_ONE);
        CHECK(!csr_satisfied(cs, z));
        z[j] = old;
    }
    free(z);
}

static size_t ncons(const cuzk_cs *cs)
{
    cuzk_cs_counts c;
    cuzk_cs_get_counts(cs, &c);
    return c.constraints;
}

/* ---- boolean ---------------------------------------------------------------- */

static cuzk_bool make_bool(cuzk_cs *cs, int kind, bool value)
{
    cuzk_bool b = cuzk_bool_constant(value);
    if (kind == CUZK_BOOL_CONST) return b;
    CHECK(cuzk_bit_alloc(cs, &b, kind == CUZK_BOOL_IS ? value : !value) == CUZK_OK);
    return kind == CUZK_BOOL_IS ? b : cuzk_bool_not(b);
}

typedef int (*bool2_fn)(cuzk_cs *, cuzk_bool *, const cuzk_bool *, const cuzk_bool *);

/* Truth tables over every kind pair; allocations happen only when neither
 * input is constant (bellperson's folding), then exactly one constraint. */
static void test_bool_ops(void)
{
    static const bool2_fn fns[3] = {cuzk_bool_xor, cuzk_bool_and, cuzk_bool_or};
    for (int f = 0; f < 3; f++)
        for (int ka = 0; ka < 3; ka++)
            for (int kb = 0; kb < 3; kb++)
                for (int va = 0; va < 2; va++)
                    for (int vb = 0; vb < 2; vb++) {
                        cuzk_cs *cs = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
                        cuzk_bool a = make_bool(cs, ka, va), b = make_bool(cs, kb, vb), r;
                        size_t before = ncons(cs);
                        CHECK(fns[f](cs, &r, &a, &b) == CUZK_OK);
                        bool want = f == 0 ? (va ^ vb) : f == 1 ? (va & vb) : (va | vb);
                        CHECK(r.value == (bool)want);
                        size_t added = ncons(cs) - before;
                        bool folds = ka == CUZK_BOOL_CONST || kb == CUZK_BOOL_CONST;
                        CHECK(added == (folds ? 0u : 1u));
                        /* enforce the result equals the expected constant */
                        cuzk_bool w = cuzk_bool_constant(want);
                        if (r.kind != CUZK_BOOL_CONST) CHECK(cuzk_bool_enforce_equal(cs, &r, &w) == CUZK_OK);
                        finish_ok(cs);
                        cuzk_cs_free(cs);
                    }
}

static void test_sha256_ch_maj(void)
{
    for (int ka = 0; ka < 3; ka++)
        for (int kb = 0; kb < 3; kb++)
            for (int kc = 0; kc < 3; kc++)
                for (int v = 0; v < 8; v++) {
                    bool va = v & 1, vb = (v >> 1) & 1, vc = (v >> 2) & 1;
                    for (int which = 0; which < 2; which++) {
                        cuzk_cs *cs = new_cs(CUZK_CS_CHECK, 0);
                        cuzk_bool a = make_bool(cs, ka, va), b = make_bool(cs, kb, vb);
                        cuzk_bool c = make_bool(cs, kc, vc), r;
                        size_t before = ncons(cs);
                        int rc = which ? cuzk_bool_sha256_maj(cs, &r, &a, &b, &c)
                                       : cuzk_bool_sha256_ch(cs, &r, &a, &b, &c);
                        CHECK(rc == CUZK_OK);
                        bool want = which ? ((va & vb) ^ (va & vc) ^ (vb & vc))
                                          : ((va & vb) ^ (!va & vc));
                        CHECK(r.value == want);
                        size_t added = ncons(cs) - before;
                        bool all_alloc = ka && kb && kc;
                        /* bellperson: ch = 1 constraint, maj = 2 (maj + b&c)
                         * when nothing is constant */
                        if (all_alloc) CHECK(added == (which ? 2u : 1u));
                        CHECK(added <= 2);
                        cuzk_bool w = cuzk_bool_constant(want);
                        if (r.kind != CUZK_BOOL_CONST) CHECK(cuzk_bool_enforce_equal(cs, &r, &w) == CUZK_OK);
                        finish_ok(cs);
                        cuzk_cs_free(cs);
                    }
                }
}

static void test_bool_enforce_equal(void)
{
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK, 0);
    cuzk_bool t = cuzk_bool_constant(true), f = cuzk_bool_constant(false), x, y;
    CHECK(cuzk_bool_enforce_equal(cs, &t, &t) == CUZK_OK);
    CHECK(ncons(cs) == 0); /* equal constants: nothing (input rows come at finish) */
    cuzk_cs_free(cs);

    cs = new_cs(CUZK_CS_CHECK, 0);
    CHECK(cuzk_bool_enforce_equal(cs, &t, &f) == CUZK_ERR_ARG);
    cuzk_cs_free(cs);

    /* x = 1, y = !x-bit with bit 0: Is(1) == Not(0) holds; Is(1) == Is(0) fails */
    cs = new_cs(CUZK_CS_CHECK, 0);
    CHECK(cuzk_bit_alloc(cs, &x, true) == CUZK_OK);
    CHECK(cuzk_bit_alloc(cs, &y, false) == CUZK_OK);
    cuzk_bool ny = cuzk_bool_not(y);
    CHECK(cuzk_bool_enforce_equal(cs, &x, &ny) == CUZK_OK);
    CHECK(cuzk_bool_enforce_equal(cs, &t, &x) == CUZK_OK);
    CHECK(cuzk_bool_enforce_equal(cs, &y, &f) == CUZK_OK);
    finish_ok(cs);
    cuzk_cs_free(cs);

    cs = new_cs(CUZK_CS_CHECK, 0);
    CHECK(cuzk_bit_alloc(cs, &x, true) == CUZK_OK);
    CHECK(cuzk_bit_alloc(cs, &y, false) == CUZK_OK);
    CHECK(cuzk_bool_enforce_equal(cs, &x, &y) == CUZK_OK);
    CHECK(cuzk_cs_finish(cs) == CUZK_OK);
    size_t idx;
    const char *path;
    CHECK(!cuzk_cs_is_satisfied(cs, &idx, &path) && idx == 2);
    cuzk_cs_free(cs);
}

static void test_alloc_bits(void)
{
    uint64_t v = test_rand64();
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
    cuzk_bool bits[64];
    CHECK(cuzk_bools_alloc_u64_le(cs, bits, v) == CUZK_OK);
    CHECK(ncons(cs) == 64); /* UInt64::alloc = 64 */
    for (int i = 0; i < 64; i++) CHECK(bits[i].value == ((v >> i) & 1) && bits[i].kind == CUZK_BOOL_IS);
    /* allocated in order: bit i is aux i */
    for (int i = 0; i < 64; i++) CHECK(bits[i].var == (CUZK_VAR_AUX | (cuzk_var)i));
    finish_ok(cs);
    cuzk_cs_free(cs);

    /* alloc_conditionally: must_be_false = 1 forces the new bit to 0 */
    cs = new_cs(CUZK_CS_CHECK, 0);
    cuzk_bool m, b;
    CHECK(cuzk_bit_alloc(cs, &m, true) == CUZK_OK);
    CHECK(cuzk_bit_alloc_conditionally(cs, &b, true, &m) == CUZK_OK);
    CHECK(cuzk_cs_finish(cs) == CUZK_OK);
    size_t idx;
    const char *path;
    CHECK(!cuzk_cs_is_satisfied(cs, &idx, &path) && idx == 1);
    cuzk_cs_free(cs);
    cs = new_cs(CUZK_CS_CHECK, 0);
    CHECK(cuzk_bit_alloc(cs, &m, false) == CUZK_OK);
    CHECK(cuzk_bit_alloc_conditionally(cs, &b, true, &m) == CUZK_OK);
    finish_ok(cs);
    cuzk_cs_free(cs);
}

/* ---- num -------------------------------------------------------------------- */

static void test_num_ops(void)
{
    for (int it = 0; it < 8 * test_iterations; it++) {
        cuzk_cs *cs = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
        cuzk_fr va = fr_rand(), vb = fr_rand(), want;
        cuzk_num a, b, s, p, q, c, d, e;
        CHECK(cuzk_num_alloc(cs, &a, &va) == CUZK_OK);
        CHECK(cuzk_num_alloc(cs, &b, &vb) == CUZK_OK);
        CHECK(cuzk_num_add(cs, &s, &a, &b) == CUZK_OK);
        cuzk_fr_add(&want, &va, &vb);
        CHECK(cuzk_fr_eq(&s.value, &want));
        CHECK(cuzk_num_mul(cs, &p, &a, &b) == CUZK_OK);
        cuzk_fr_mul(&want, &va, &vb);
        CHECK(cuzk_fr_eq(&p.value, &want));
        CHECK(cuzk_num_square(cs, &q, &a) == CUZK_OK);
        cuzk_fr_sqr(&want, &va);
        CHECK(cuzk_fr_eq(&q.value, &want));
        CHECK(cuzk_num_assert_nonzero(cs, &a) == CUZK_OK);
        CHECK(ncons(cs) == 4);
        cuzk_bool cond;
        bool cv = test_rand64() & 1;
        CHECK(cuzk_bit_alloc(cs, &cond, cv) == CUZK_OK);
        CHECK(cuzk_num_conditionally_reverse(cs, &c, &d, &a, &b, &cond) == CUZK_OK);
        CHECK(cuzk_fr_eq(&c.value, cv ? &vb : &va) && cuzk_fr_eq(&d.value, cv ? &va : &vb));
        CHECK(ncons(cs) == 7);
        cuzk_bool ncond = cuzk_bool_not(cond);
        CHECK(cuzk_num_pick(cs, &e, &ncond, &a, &b) == CUZK_OK);
        CHECK(cuzk_fr_eq(&e.value, cv ? &vb : &va));
        CHECK(cuzk_num_inputize(cs, &e) == CUZK_OK); /* inputize = 1 */
        CHECK(cuzk_num_enforce_equal(cs, &e, &c) == CUZK_OK); /* equal = 1 */
        CHECK(ncons(cs) == 10);
        finish_ok(cs);
        cuzk_cs_counts cnt;
        cuzk_cs_get_counts(cs, &cnt);
        CHECK(cnt.inputs == 2 && cnt.constraints == 12);
        tamper_check(cs, 6);
        cuzk_cs_free(cs);
    }
    /* assert_nonzero of zero is refused with a message */
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK, 0);
    cuzk_num z;
    CHECK(cuzk_num_alloc(cs, &z, &CUZK_FR_ZERO) == CUZK_OK);
    CHECK(cuzk_num_assert_nonzero(cs, &z) == CUZK_ERR_ARG);
    CHECK(strlen(cuzk_cs_error(cs)) > 0);
    cuzk_cs_free(cs);
    /* a value is required outside SHAPE mode */
    cs = new_cs(CUZK_CS_PROVE, 0);
    CHECK(cuzk_num_alloc(cs, &z, NULL) == CUZK_ERR_ARG);
    cuzk_cs_free(cs);
}

static void test_to_bits_le(void)
{
    cuzk_fr vals[3];
    vals[0] = fr_rand();
    vals[1] = CUZK_FR_ZERO;
    cuzk_fr_neg(&vals[2], &CUZK_FR_ONE); /* r - 1: top bit pattern */
    for (int k = 0; k < 3; k++) {
        cuzk_cs *cs = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
        cuzk_num a;
        cuzk_bool bits[255];
        CHECK(cuzk_num_alloc(cs, &a, &vals[k]) == CUZK_OK);
        CHECK(cuzk_num_to_bits_le(cs, bits, &a) == CUZK_OK);
        CHECK(ncons(cs) == 256); /* filecoin-formats.md: to_bits_le = 256 */
        uint64_t l[4];
        cuzk_fr_to_limbs(l, &vals[k]);
        for (int i = 0; i < 255; i++) CHECK(bits[i].value == ((l[i / 64] >> (i % 64)) & 1));
        finish_ok(cs);
        tamper_check(cs, 4);
        cuzk_cs_free(cs);
    }
}

static void test_pack_into_inputs(void)
{
    static const size_t lens[] = {1, 254, 255, 300, 508, 600};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t n = lens[k];
        bool raw[600];
        cuzk_bool bits[600];
        cuzk_cs *cs = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
        for (size_t i = 0; i < n; i++) {
            raw[i] = test_rand64() & 1;
            /* a mix of kinds: constants and negations fold into the LC */
            int kind = (int)(test_rand64() % 3);
            bits[i] = make_bool(cs, kind, raw[i]);
        }
        size_t before = ncons(cs);
        CHECK(cuzk_pack_into_inputs(cs, bits, n) == CUZK_OK);
        size_t chunks = (n + 253) / 254;
        CHECK(ncons(cs) - before == chunks);
        finish_ok(cs);
        cuzk_fr want[3];
        cuzk_multipack_bits(want, raw, n);
        cuzk_cs_counts c;
        cuzk_cs_get_counts(cs, &c);
        CHECK(c.inputs == 1 + chunks);
        const cuzk_fr *in = cuzk_cs_input_assignment(cs);
        for (size_t i = 0; i < chunks; i++) CHECK(cuzk_fr_eq(&in[1 + i], &want[i]));
        cuzk_cs_free(cs);
    }
    /* pack_bits: aux, first 254 bits only, 1 constraint */
    {
        bool raw[256];
        cuzk_bool bits[256];
        cuzk_cs *cs = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
        for (size_t i = 0; i < 256; i++) {
            raw[i] = test_rand64() & 1;
            bits[i] = make_bool(cs, (int)(test_rand64() % 3), raw[i]);
        }
        size_t before = ncons(cs);
        cuzk_num packed;
        CHECK(cuzk_pack_bits(cs, &packed, bits, 256) == CUZK_OK);
        CHECK(ncons(cs) == before + 1 && CUZK_VAR_IS_AUX(packed.var));
        cuzk_fr want[1];
        cuzk_multipack_bits(want, raw, 254);
        CHECK(cuzk_fr_eq(&packed.value, &want[0]));
        finish_ok(cs);
        cuzk_cs_free(cs);
    }
    /* Native multipack against a direct big-integer reading */
    bool raw[8] = {1, 0, 1, 1, 0, 0, 0, 1};
    cuzk_fr out, want = fr_u64(0x8d);
    cuzk_multipack_bits(&out, raw, 8);
    CHECK(cuzk_fr_eq(&out, &want));
}

static void test_insert(void)
{
    /* insert_2 = 2, insert_4 = 8, insert_8 = 22 (filecoin-formats.md);
     * general size n: n (n - 1) picks. */
    static const size_t want_cons[] = {0, 2, 8, 22, 16 * 15};
    for (size_t nb = 1; nb <= 4; nb++) {
        size_t size = (size_t)1 << nb;
        for (size_t idx = 0; idx < size; idx++) {
            cuzk_cs *cs = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
            cuzk_num el[16], x, out[16];
            cuzk_bool bits[4];
            cuzk_fr vx = fr_rand(), ve[16];
            CHECK(cuzk_num_alloc(cs, &x, &vx) == CUZK_OK);
            for (size_t i = 0; i + 1 < size; i++) {
                ve[i] = fr_rand();
                CHECK(cuzk_num_alloc(cs, &el[i], &ve[i]) == CUZK_OK);
            }
            for (size_t b = 0; b < nb; b++) CHECK(cuzk_bit_alloc(cs, &bits[b], (idx >> b) & 1) == CUZK_OK);
            size_t before = ncons(cs);
            CHECK(cuzk_num_insert(cs, out, &x, bits, nb, el) == CUZK_OK);
            CHECK(ncons(cs) - before == want_cons[nb]);
            for (size_t pos = 0; pos < size; pos++) {
                const cuzk_fr *w = pos < idx ? &ve[pos] : pos == idx ? &vx : &ve[pos - 1];
                CHECK(cuzk_fr_eq(&out[pos].value, w));
            }
            finish_ok(cs);
            cuzk_cs_free(cs);
        }
    }
    /* select of a 4-vector */
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK, 0);
    cuzk_num from[4], out;
    cuzk_fr v[4];
    cuzk_bool bits[2];
    for (int i = 0; i < 4; i++) {
        v[i] = fr_rand();
        CHECK(cuzk_num_alloc(cs, &from[i], &v[i]) == CUZK_OK);
    }
    CHECK(cuzk_bit_alloc(cs, &bits[0], false) == CUZK_OK);
    CHECK(cuzk_bit_alloc(cs, &bits[1], true) == CUZK_OK);
    CHECK(cuzk_num_select(cs, &out, from, bits, 2) == CUZK_OK);
    CHECK(cuzk_fr_eq(&out.value, &v[2]));
    CHECK(ncons(cs) == 2 + 3);
    finish_ok(cs);
    cuzk_cs_free(cs);
}

/* ---- Poseidon --------------------------------------------------------------- */

static const size_t k_ar[] = {2, 4, 8, 11, 16, 24, 36};
/* neptune circuit.rs test_poseidon_hash (Standard) + arity 11 from
 * filecoin-formats.md. */
static const size_t k_pos_cons[] = {311, 377, 505, 598, 761, 1009, 1385};

typedef struct {
    size_t n;
    const cuzk_fr *vals;
    const cuzk_fr *tag;  /* NULL: MerkleTree */
    bool dup;            /* pass the same variable twice */
    cuzk_num out;
} pos_ctx;

static int pos_circuit(cuzk_cs *cs, void *vctx)
{
    pos_ctx *ctx = vctx;
    cuzk_num in[36];
    bool vals = cuzk_cs_needs_values(cs);
    for (size_t i = 0; i < ctx->n; i++) {
        if (ctx->dup && i == 1) {
            in[1] = in[0];
            continue;
        }
        int rc = cuzk_num_alloc(cs, &in[i], vals ? &ctx->vals[i] : NULL);
        if (rc) return rc;
    }
    return ctx->tag ? cuzk_poseidon_gadget_tagged(cs, &ctx->out, ctx->tag, in, ctx->n)
                    : cuzk_poseidon_gadget(cs, &ctx->out, in, ctx->n);
}

static void test_poseidon_gadget(void)
{
    for (size_t a = 0; a < sizeof k_ar / sizeof k_ar[0]; a++) {
        size_t n = k_ar[a];
        CHECK(cuzk_poseidon_gadget_constraints(n) == k_pos_cons[a]);
        cuzk_fr vals[36], native;
        for (size_t i = 0; i < n; i++) vals[i] = fr_rand();
        CHECK(cuzk_poseidon_hash(&native, vals, n) == CUZK_OK);
        pos_ctx ctx = {n, vals, NULL, false, {0, {{0}}}};

        cuzk_cs *chk = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
        CHECK(pos_circuit(chk, &ctx) == CUZK_OK);
        CHECK(cuzk_fr_eq(&ctx.out.value, &native));
        CHECK(ncons(chk) == k_pos_cons[a]);
        finish_ok(chk);
        const cuzk_fr *aux = cuzk_cs_aux_assignment(chk);
        cuzk_cs_counts cc;
        cuzk_cs_get_counts(chk, &cc);
        /* one allocation per constraint, after the n preimage variables */
        CHECK(cc.aux == n + k_pos_cons[a]);
        CHECK(cuzk_fr_eq(&aux[cc.aux - 1], &native));
        CHECK(ctx.out.var == (CUZK_VAR_AUX | (cc.aux - 1)));
        tamper_check(chk, 6);

        /* PROVE and SHAPE: same counts, nonzeros and density */
        cuzk_cs *pr = new_cs(CUZK_CS_PROVE, 0), *sh = new_cs(CUZK_CS_SHAPE, 0);
        CHECK(cuzk_cs_synthesize(pr, pos_circuit, &ctx) == CUZK_OK);
        CHECK(cuzk_cs_synthesize(sh, pos_circuit, &ctx) == CUZK_OK);
        cuzk_cs_counts cp, cs_;
        cuzk_cs_get_counts(pr, &cp);
        cuzk_cs_get_counts(sh, &cs_);
        CHECK(memcmp(&cp, &cs_, sizeof cp) == 0);
        CHECK(cp.constraints == k_pos_cons[a] + 1 && cp.aux == cc.aux);
        CHECK(cp.nnz_a == cc.nnz_a && cp.nnz_b == cc.nnz_b && cp.nnz_c == cc.nnz_c);
        /* Nonzeros derived by hand from circuit.rs (one input row, A = ONE):
         * B: one term per row, two in round 0's square_sum (l + key);
         * C: one term per row, two where mul_sum adds a post key (all
         *    S-boxes but the terminal round's t);
         * A: round 0: 5 per S-box (l + key twice, l2), other S-boxes 3,
         *    plus the allocated linear combinations: t terms (round 1: ONE
         *    and t-1 variables; rounds 2-3, 5-7: t variables), partial
         *    round r: t + r, first round after them t + R_P, result t. */
        size_t t = n + 1, rp = cuzk_poseidon_partial_rounds(n), S = 8 * t + rp - 1;
        size_t want_a = 1 + 5 * (t - 1) + 3 * (S - (t - 1)) + 6 * t * t + rp * t +
                        rp * (rp - 1) / 2 + t * (t + rp) + t;
        CHECK(cp.nnz_b == k_pos_cons[a] + (t - 1));
        CHECK(cp.nnz_c == k_pos_cons[a] + (S - t));
        CHECK(cp.nnz_a == want_a);
        printf("  arity %2zu: %zu constraints, nnz A/B/C %zu/%zu/%zu\n", n, k_pos_cons[a],
               cp.nnz_a, cp.nnz_b, cp.nnz_c);
        cuzk_cs_free(pr), cuzk_cs_free(sh), cuzk_cs_free(chk);
    }
}

static void test_poseidon_gadget_tags(void)
{
    /* Custom(1) (SnapDeals phi/rho) and ConstantLength(arity) tags: output
     * equals the native tagged hash; the MerkleTree tag passed explicitly
     * gives the same system as the default. */
    for (size_t a = 0; a < 3; a++) {
        size_t n = k_ar[a];
        cuzk_fr vals[8], tags[3], native;
        for (size_t i = 0; i < n; i++) vals[i] = fr_rand();
        CHECK(cuzk_poseidon_tag_custom(&tags[0], 1) == CUZK_OK);
        cuzk_poseidon_tag_constant_length(&tags[1], n);
        cuzk_poseidon_tag_merkle(&tags[2], n);
        for (int k = 0; k < 3; k++) {
            CHECK(cuzk_poseidon_hash_tagged(&native, n, &tags[k], vals, n) == CUZK_OK);
            pos_ctx ctx = {n, vals, &tags[k], false, {0, {{0}}}};
            cuzk_cs *cs = new_cs(CUZK_CS_CHECK, CUZK_CS_MATRICES);
            CHECK(pos_circuit(cs, &ctx) == CUZK_OK);
            CHECK(cuzk_fr_eq(&ctx.out.value, &native));
            CHECK(ncons(cs) == k_pos_cons[a]);
            finish_ok(cs);
            tamper_check(cs, 3);
            cuzk_cs_free(cs);
        }
    }
    /* The same variable twice in the preimage ([x, x]) is fine. */
    cuzk_fr vals[2], native;
    vals[0] = vals[1] = fr_rand();
    CHECK(cuzk_poseidon_hash(&native, vals, 2) == CUZK_OK);
    pos_ctx ctx = {2, vals, NULL, true, {0, {{0}}}};
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK, 0);
    CHECK(pos_circuit(cs, &ctx) == CUZK_OK);
    CHECK(cuzk_fr_eq(&ctx.out.value, &native));
    finish_ok(cs);
    cuzk_cs_free(cs);
    /* unsupported arity: error recorded in the cs */
    cs = new_cs(CUZK_CS_CHECK, 0);
    cuzk_num in[3], out;
    for (int i = 0; i < 3; i++) CHECK(cuzk_num_alloc(cs, &in[i], &vals[0]) == CUZK_OK);
    CHECK(cuzk_poseidon_gadget(cs, &out, in, 3) == CUZK_ERR_ARG);
    CHECK(strstr(cuzk_cs_error(cs), "arity") != NULL);
    cuzk_cs_free(cs);
}

/* ---- reference: neptune circuit.rs, ported literally ---------------------
 * Slow and obviously structured like the original: every state element is
 * an Elt (allocated number or tracked linear combination with merged,
 * zero-keeping terms), matrices are applied symbolically per call.  The
 * gadget's template must give the same CSR matrices and assignment. */
typedef struct {
    bool alloc;
    cuzk_var var;
    cuzk_fr val;
    cuzk_term *t;
    size_t n;
} relt;

static void rlc_add(relt *e, cuzk_var v, const cuzk_fr *c)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->t[i].var == v) {
            cuzk_fr_add(&e->t[i].coeff, &e->t[i].coeff, c);
            return;
        }
    e->t = realloc(e->t, (e->n + 1) * sizeof *e->t);
    CHECK(e->t != NULL);
    e->t[e->n].var = v, e->t[e->n].coeff = *c, e->n++;
}

/* acc (a Num) += s * e: Elt::scale then Num::add */
static void relt_add_scaled(relt *acc, const relt *e, const cuzk_fr *s)
{
    cuzk_fr c;
    if (e->alloc) {
        rlc_add(acc, e->var, s);
    } else {
        for (size_t i = 0; i < e->n; i++) {
            cuzk_fr_mul(&c, &e->t[i].coeff, s);
            rlc_add(acc, e->t[i].var, &c);
        }
    }
    cuzk_fr_mul(&c, &e->val, s);
    cuzk_fr_add(&acc->val, &acc->val, &c);
}

static void relt_num(relt *e) { e->alloc = false, e->n = 0, e->val = CUZK_FR_ZERO; }

static cuzk_var ralloc(cuzk_cs *cs, const cuzk_fr *v)
{
    cuzk_var x = 0;
    CHECK(cuzk_cs_alloc(cs, &x, cuzk_cs_needs_values(cs) ? v : NULL) == CUZK_OK);
    return x;
}

static void renforce(cuzk_cs *cs, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                     const cuzk_term *c, size_t nc)
{
    CHECK(cuzk_cs_enforce(cs, a, na, b, nb, c, nc) == CUZK_OK);
}

static void ensure_allocated(cuzk_cs *cs, relt *e)
{
    if (e->alloc) return;
    cuzk_var v = ralloc(cs, &e->val);
    cuzk_term one = {CUZK_ONE, CUZK_FR_ONE}, tv = {v, CUZK_FR_ONE};
    renforce(cs, e->t, e->n, &one, 1, &tv, 1);
    e->alloc = true, e->var = v;
}

/* square_sum (pre != NULL) or AllocatedNum::square */
static void rsquare(cuzk_cs *cs, relt *out, const relt *l, const cuzk_fr *pre)
{
    cuzk_fr x = l->val;
    if (pre) cuzk_fr_add(&x, &x, pre);
    cuzk_fr_sqr(&out->val, &x);
    cuzk_var v = ralloc(cs, &out->val);
    cuzk_term a[2] = {{l->var, CUZK_FR_ONE}, {CUZK_ONE, pre ? *pre : CUZK_FR_ZERO}};
    cuzk_term c = {v, CUZK_FR_ONE};
    renforce(cs, a, pre ? 2 : 1, a, pre ? 2 : 1, &c, 1);
    out->alloc = true, out->var = v;
}

/* mul_sum(a = l4, b = l, pre, post) */
static void rmul_sum(cuzk_cs *cs, relt *out, const relt *l4, const relt *l, const cuzk_fr *pre,
                     const cuzk_fr *post)
{
    cuzk_fr x = l->val, neg = CUZK_FR_ZERO;
    if (pre) cuzk_fr_add(&x, &x, pre);
    cuzk_fr_mul(&x, &x, &l4->val);
    if (post) cuzk_fr_add(&x, &x, post), cuzk_fr_neg(&neg, post);
    out->val = x;
    cuzk_var v = ralloc(cs, &x);
    cuzk_term a[2] = {{l->var, CUZK_FR_ONE}, {CUZK_ONE, pre ? *pre : CUZK_FR_ZERO}};
    cuzk_term b = {l4->var, CUZK_FR_ONE}, c[2] = {{v, CUZK_FR_ONE}, {CUZK_ONE, neg}};
    renforce(cs, a, pre ? 2 : 1, &b, 1, c, post ? 2 : 1);
    out->alloc = true, out->var = v;
}

static void rsbox(cuzk_cs *cs, relt *e, const cuzk_fr *pre, const cuzk_fr *post)
{
    relt l2 = {0}, l4 = {0};
    ensure_allocated(cs, e);
    rsquare(cs, &l2, e, pre);
    rsquare(cs, &l4, &l2, NULL);
    rmul_sum(cs, e, &l4, e, pre, post);
    e->n = 0;
}

static void rproduct(relt *e, relt *tmp, const cuzk_poseidon_constants *pc, size_t *round)
{
    size_t t = pc->t, half = pc->full_rounds / 2;
    if (*round > half - 1 && *round < half + pc->partial_rounds) {
        const cuzk_fr *w = pc->sparse + (*round - half) * (2 * t - 1), *v = w + t;
        relt_num(&tmp[0]);
        for (size_t i = 0; i < t; i++) relt_add_scaled(&tmp[0], &e[i], &w[i]);
        for (size_t j = 1; j < t; j++) {
            CHECK(!e[j].alloc);
            relt_add_scaled(&e[j], &e[0], &v[j - 1]);
        }
        relt x = e[0];
        e[0] = tmp[0], tmp[0] = x;
    } else {
        const cuzk_fr *m = *round == half - 1 ? pc->pre_sparse : pc->mds;
        for (size_t j = 0; j < t; j++) {
            relt_num(&tmp[j]);
            for (size_t i = 0; i < t; i++) relt_add_scaled(&tmp[j], &e[i], &m[i * t + j]);
        }
        for (size_t j = 0; j < t; j++) {
            relt x = e[j];
            e[j] = tmp[j], tmp[j] = x;
        }
    }
    (*round)++;
}

static cuzk_var ref_poseidon(cuzk_cs *cs, const cuzk_fr *tag, const cuzk_num *in, size_t n)
{
    const cuzk_poseidon_constants *pc;
    CHECK(cuzk_poseidon_constants_get(&pc, n) == CUZK_OK);
    size_t t = n + 1, half = pc->full_rounds / 2, off = 0, round = 0;
    const cuzk_fr *k = pc->compressed_round_constants;
    relt e[37], tmp[37];
    memset(e, 0, sizeof e), memset(tmp, 0, sizeof tmp);
    for (size_t i = 0; i < n; i++) e[i + 1].alloc = true, e[i + 1].var = in[i].var, e[i + 1].val = in[i].value;
    /* first round: the tag's S-box is a constant */
    cuzk_fr c, c4;
    cuzk_fr_add(&c, tag, &k[0]);
    cuzk_fr_sqr(&c4, &c), cuzk_fr_sqr(&c4, &c4), cuzk_fr_mul(&c, &c, &c4);
    cuzk_fr_add(&c, &c, &k[t]);
    relt_num(&e[0]);
    rlc_add(&e[0], CUZK_ONE, &c);
    e[0].val = c;
    for (size_t i = 1; i < t; i++) rsbox(cs, &e[i], &k[i], &k[t + i]);
    off = 2 * t;
    rproduct(e, tmp, pc, &round);
    for (size_t r = 1; r < half; r++, off += t) {
        for (size_t i = 0; i < t; i++) rsbox(cs, &e[i], NULL, &k[off + i]);
        rproduct(e, tmp, pc, &round);
    }
    for (size_t r = 0; r < pc->partial_rounds; r++, off++) {
        rsbox(cs, &e[0], NULL, &k[off]);
        rproduct(e, tmp, pc, &round);
    }
    for (size_t r = 0; r < half; r++) {
        bool last = r + 1 == half;
        for (size_t i = 0; i < t; i++) rsbox(cs, &e[i], NULL, last ? NULL : &k[off + i]);
        if (!last) off += t;
        rproduct(e, tmp, pc, &round);
    }
    CHECK(off == t * pc->full_rounds + pc->partial_rounds);
    ensure_allocated(cs, &e[1]);
    cuzk_var out = e[1].var;
    for (size_t i = 0; i < 37; i++) free(e[i].t), free(tmp[i].t);
    return out;
}

static void test_poseidon_vs_reference(void)
{
    for (size_t a = 0; a < sizeof k_ar / sizeof k_ar[0]; a++) {
        size_t n = k_ar[a];
        cuzk_fr vals[36], tags[2];
        for (size_t i = 0; i < n; i++) vals[i] = fr_rand();
        cuzk_poseidon_tag_merkle(&tags[0], n);
        CHECK(cuzk_poseidon_tag_custom(&tags[1], 1 + test_rand64() % 256) == CUZK_OK);
        for (int tg = 0; tg < (n <= 8 ? 2 : 1); tg++) {
            cuzk_cs *cs[2];
            cuzk_var outv[2];
            for (int w = 0; w < 2; w++) {
                cs[w] = new_cs(CUZK_CS_PROVE, CUZK_CS_MATRICES);
                cuzk_num in[36], out;
                /* an input variable in the preimage too */
                for (size_t i = 0; i < n; i++)
                    CHECK((i == 1 ? cuzk_num_alloc_input : cuzk_num_alloc)(cs[w], &in[i], &vals[i]) == CUZK_OK);
                if (w == 0) {
                    outv[0] = ref_poseidon(cs[0], &tags[tg], in, n);
                } else {
                    CHECK((tg ? cuzk_poseidon_gadget_tagged(cs[1], &out, &tags[1], in, n)
                              : cuzk_poseidon_gadget(cs[1], &out, in, n)) == CUZK_OK);
                    outv[1] = out.var;
                }
                CHECK(cuzk_cs_finish(cs[w]) == CUZK_OK);
            }
            CHECK(outv[0] == outv[1]);
            cuzk_cs_counts c0, c1;
            cuzk_cs_get_counts(cs[0], &c0);
            cuzk_cs_get_counts(cs[1], &c1);
            CHECK(memcmp(&c0, &c1, sizeof c0) == 0);
            for (int m = 0; m < 3; m++) {
                cuzk_csr x, y;
                CHECK(cuzk_cs_matrix(cs[0], m, &x) == CUZK_OK && cuzk_cs_matrix(cs[1], m, &y) == CUZK_OK);
                CHECK(x.rows == y.rows && x.nnz == y.nnz);
                if (x.rows != y.rows || x.nnz != y.nnz) continue;
                CHECK(memcmp(x.row_ptr, y.row_ptr, (x.rows + 1) * sizeof *x.row_ptr) == 0);
                CHECK(memcmp(x.col, y.col, x.nnz * sizeof *x.col) == 0);
                CHECK(memcmp(x.val, y.val, x.nnz * sizeof *x.val) == 0);
                CHECK(memcmp(cuzk_cs_eval(cs[0], m), cuzk_cs_eval(cs[1], m),
                             c0.constraints * sizeof(cuzk_fr)) == 0);
            }
            CHECK(memcmp(cuzk_cs_aux_assignment(cs[0]), cuzk_cs_aux_assignment(cs[1]),
                         c0.aux * sizeof(cuzk_fr)) == 0);
            CHECK(memcmp(cuzk_cs_density_a_aux(cs[0]), cuzk_cs_density_a_aux(cs[1]),
                         (c0.aux + 63) / 64 * 8) == 0);
            cuzk_cs_free(cs[0]), cuzk_cs_free(cs[1]);
        }
    }
}

/* FallbackPoSt per-sector header: comm_r inputized, Poseidon2(comm_c,
 * comm_r_last) and equal = 313 constraints (filecoin-formats.md). */
static int post_header(cuzk_cs *cs, void *vctx)
{
    const cuzk_fr *v = vctx; /* comm_c, comm_r_last, comm_r */
    bool vals = cuzk_cs_needs_values(cs);
    cuzk_num c, rl, r, h, pre[2];
    int rc = cuzk_num_alloc(cs, &rl, vals ? &v[1] : NULL);
    rc = rc ? rc : cuzk_num_alloc(cs, &c, vals ? &v[0] : NULL);
    rc = rc ? rc : cuzk_num_alloc(cs, &r, vals ? &v[2] : NULL);
    rc = rc ? rc : cuzk_num_inputize(cs, &r);
    pre[0] = c, pre[1] = rl;
    rc = rc ? rc : cuzk_poseidon_gadget(cs, &h, pre, 2);
    rc = rc ? rc : cuzk_num_enforce_equal(cs, &h, &r);
    return rc;
}

static void test_post_header_count(void)
{
    cuzk_fr v[3];
    v[0] = fr_rand(), v[1] = fr_rand();
    CHECK(cuzk_poseidon_hash(&v[2], v, 2) == CUZK_OK);
    cuzk_cs *cs = new_cs(CUZK_CS_CHECK, 0);
    CHECK(post_header(cs, v) == CUZK_OK);
    CHECK(ncons(cs) == 313);
    finish_ok(cs);
    cuzk_cs_free(cs);
    /* wrong comm_r: unsatisfied */
    cuzk_fr_add(&v[2], &v[2], &CUZK_FR_ONE);
    cs = new_cs(CUZK_CS_CHECK, 0);
    CHECK(post_header(cs, v) == CUZK_OK);
    CHECK(cuzk_cs_finish(cs) == CUZK_OK);
    size_t idx;
    const char *path;
    CHECK(!cuzk_cs_is_satisfied(cs, &idx, &path) && idx == 312);
    cuzk_cs_free(cs);
}

/* One 8-ary Poseidon Merkle level as por.rs synthesizes it: 3 index bits,
 * 7 path elements, insert_8, Poseidon-8: 3 + 22 + 505 = 530 constraints
 * (filecoin-formats.md), and the result is the native hash of the path
 * with the current node inserted at the index. */
static void test_por_level(void)
{
    for (size_t idx = 0; idx < 8; idx += 3) {
        cuzk_cs *cs = new_cs(CUZK_CS_CHECK, 0);
        cuzk_fr vcur = fr_rand(), vpath[7], pre[8], native;
        cuzk_num cur, path[7], ins[8], out;
        cuzk_bool bits[3];
        CHECK(cuzk_num_alloc(cs, &cur, &vcur) == CUZK_OK);
        size_t before = ncons(cs);
        for (int b = 0; b < 3; b++) CHECK(cuzk_bit_alloc(cs, &bits[b], (idx >> b) & 1) == CUZK_OK);
        for (int i = 0; i < 7; i++) {
            vpath[i] = fr_rand();
            CHECK(cuzk_num_alloc(cs, &path[i], &vpath[i]) == CUZK_OK);
        }
        CHECK(cuzk_num_insert(cs, ins, &cur, bits, 3, path) == CUZK_OK);
        CHECK(cuzk_poseidon_gadget(cs, &out, ins, 8) == CUZK_OK);
        CHECK(ncons(cs) - before == 530);
        for (size_t i = 0, j = 0; i < 8; i++) pre[i] = i == idx ? vcur : vpath[j++];
        CHECK(cuzk_poseidon_hash(&native, pre, 8) == CUZK_OK);
        CHECK(cuzk_fr_eq(&out.value, &native));
        finish_ok(cs);
        cuzk_cs_free(cs);
    }
}

static const test_case tests[] = {
    {"bool_ops", test_bool_ops},
    {"sha256_ch_maj", test_sha256_ch_maj},
    {"bool_enforce_equal", test_bool_enforce_equal},
    {"alloc_bits", test_alloc_bits},
    {"num_ops", test_num_ops},
    {"to_bits_le", test_to_bits_le},
    {"pack_into_inputs", test_pack_into_inputs},
    {"insert", test_insert},
    {"poseidon_gadget", test_poseidon_gadget},
    {"poseidon_gadget_tags", test_poseidon_gadget_tags},
    {"poseidon_vs_reference", test_poseidon_vs_reference},
    {"post_header_count", test_post_header_count},
    {"por_level", test_por_level},
};

TEST_MAIN(tests)
