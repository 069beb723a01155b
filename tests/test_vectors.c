/* Known-answer tests: every vector in tests/vectors/ff.txt (test_vectors_ec.c
 * does ec.txt and pairing.txt),
 * computed by the independent reference @noble/curves (tests/vectors/gen.mjs;
 * the token formats are described in each file's header).  Node is not
 * needed here: the files are committed, scripts/npm-checks.sh proves they
 * are what the generator produces.
 *
 * Every vector is checked against the public API; a failure names the file
 * and line of the vector and prints got/want.  An op this reader does not
 * know is a failure too, so no vector is silently ignored. */
#include "cuzk/pairing.h"
#include "vec_reader.h"

/* ---- ff.txt ---------------------------------------------------------------- */
typedef void (*fp_bin)(cuzk_fp *, const cuzk_fp *, const cuzk_fp *);
typedef void (*fp_un)(cuzk_fp *, const cuzk_fp *);
typedef void (*fr_bin)(cuzk_fr *, const cuzk_fr *, const cuzk_fr *);
typedef void (*fr_un)(cuzk_fr *, const cuzk_fr *);

static void fp_vec(const vec *v, const char *op)
{
    cuzk_fp a, b, r, w;
    static const struct { const char *n; fp_bin f; } bin[] = {
        {"add", cuzk_fp_add}, {"sub", cuzk_fp_sub}, {"mul", cuzk_fp_mul}};
    static const struct { const char *n; fp_un f; } un[] = {
        {"sqr", cuzk_fp_sqr}, {"neg", cuzk_fp_neg}, {"inv", cuzk_fp_inv}, {"inv", cuzk_fp_inv_var}};
    for (size_t k = 0; k < 3; k++) {
        if (strcmp(op, bin[k].n)) continue;
        if (!want_ntok(v, 4) || !get_fp(v, 1, &a) || !get_fp(v, 2, &b)) return;
        bin[k].f(&r, &a, &b);
        same_fp(v, "r = a op b", &r, 3);
        r = a;
        bin[k].f(&r, &r, &b); /* outputs may alias inputs */
        same_fp(v, "r = r op b (aliased)", &r, 3);
        return;
    }
    int hit = 0;
    for (size_t k = 0; k < 4; k++) {
        if (strcmp(op, un[k].n)) continue;
        if (!want_ntok(v, 3) || !get_fp(v, 1, &a)) return;
        un[k].f(&r, &a);
        same_fp(v, k == 3 ? "inv_var" : "r = op a", &r, 2);
        r = a;
        un[k].f(&r, &r);
        same_fp(v, "aliased", &r, 2);
        hit = 1;
    }
    if (hit) return;
    if (!strcmp(op, "pow")) {
        uint64_t e[16];
        size_t n;
        if (!want_ntok(v, 4) || !get_fp(v, 1, &a) || !get_exp(v, 2, e, &n)) return;
        cuzk_fp_pow(&r, &a, e, n);
        same_fp(v, "a^e", &r, 3);
    } else if (!strcmp(op, "sqrt")) {
        if (!want_ntok(v, 4) || !get_fp(v, 1, &a)) return;
        bool want = !strcmp(v->tok[2], "1");
        if (cuzk_fp_is_square(&a) != want) vfail(v, "is_square says %d", !want);
        if (cuzk_fp_sqrt(&r, &a) != want) vfail(v, "sqrt returns %d", !want);
        else if (want && get_fp(v, 3, &w)) {
            cuzk_fp_neg(&b, &w);
            if (!cuzk_fp_eq(&r, &w) && !cuzk_fp_eq(&r, &b)) same_fp(v, "sqrt is neither root", &r, 3);
        }
    } else if (!strcmp(op, "noncanonical")) {
        uint8_t bytes[48];
        uint64_t l[6] = {0};
        if (!want_ntok(v, 2) || !hexbytes(v, 1, bytes, 48)) return;
        for (int i = 0; i < 48; i++) l[i / 8] |= (uint64_t)bytes[47 - i] << (8 * (i % 8));
        if (cuzk_fp_from_bytes_be(&r, bytes) != CUZK_ERR_ENC_NONCANONICAL) vfail(v, "from_bytes_be accepts it");
        if (cuzk_fp_from_limbs(&r, l) != CUZK_ERR_ENC_NONCANONICAL) vfail(v, "from_limbs accepts it");
    } else if (!strcmp(op, "lex")) {
        if (!want_ntok(v, 3) || !get_fp(v, 1, &a)) return;
        if (cuzk_fp_is_lexicographically_largest(&a) != !strcmp(v->tok[2], "1")) vfail(v, "wrong answer");
    } else {
        vfail(v, "unknown op");
    }
}

static void fr_vec(const vec *v, const char *op)
{
    cuzk_fr a, b, r, w;
    static const struct { const char *n; fr_bin f; } bin[] = {
        {"add", cuzk_fr_add}, {"sub", cuzk_fr_sub}, {"mul", cuzk_fr_mul}};
    static const struct { const char *n; fr_un f; } un[] = {
        {"sqr", cuzk_fr_sqr}, {"neg", cuzk_fr_neg}, {"inv", cuzk_fr_inv}, {"inv", cuzk_fr_inv_var}};
    for (size_t k = 0; k < 3; k++) {
        if (strcmp(op, bin[k].n)) continue;
        if (!want_ntok(v, 4) || !get_fr(v, 1, &a) || !get_fr(v, 2, &b)) return;
        bin[k].f(&r, &a, &b);
        same_fr(v, "r = a op b", &r, 3);
        r = a;
        bin[k].f(&r, &r, &b);
        same_fr(v, "r = r op b (aliased)", &r, 3);
        return;
    }
    int hit = 0;
    for (size_t k = 0; k < 4; k++) {
        if (strcmp(op, un[k].n)) continue;
        if (!want_ntok(v, 3) || !get_fr(v, 1, &a)) return;
        un[k].f(&r, &a);
        same_fr(v, k == 3 ? "inv_var" : "r = op a", &r, 2);
        hit = 1;
    }
    if (hit) return;
    if (!strcmp(op, "pow")) {
        uint64_t e[16];
        size_t n;
        if (!want_ntok(v, 4) || !get_fr(v, 1, &a) || !get_exp(v, 2, e, &n)) return;
        cuzk_fr_pow(&r, &a, e, n);
        same_fr(v, "a^e", &r, 3);
    } else if (!strcmp(op, "sqrt")) {
        if (!want_ntok(v, 4) || !get_fr(v, 1, &a)) return;
        bool want = !strcmp(v->tok[2], "1");
        if (cuzk_fr_sqrt(&r, &a) != want) vfail(v, "sqrt returns %d", !want);
        else if (want && get_fr(v, 3, &w)) {
            cuzk_fr_neg(&b, &w);
            if (!cuzk_fr_eq(&r, &w) && !cuzk_fr_eq(&r, &b)) same_fr(v, "sqrt is neither root", &r, 3);
        }
    } else if (!strcmp(op, "noncanonical")) {
        uint8_t be[32], le[32];
        uint64_t l[4] = {0};
        if (!want_ntok(v, 2) || !hexbytes(v, 1, be, 32)) return;
        for (int i = 0; i < 32; i++) le[i] = be[31 - i], l[i / 8] |= (uint64_t)be[31 - i] << (8 * (i % 8));
        if (cuzk_fr_from_bytes_le(&r, le) != CUZK_ERR_ENC_NONCANONICAL) vfail(v, "from_bytes_le accepts it");
        if (cuzk_fr_from_limbs(&r, l) != CUZK_ERR_ENC_NONCANONICAL) vfail(v, "from_limbs accepts it");
    } else {
        vfail(v, "unknown op");
    }
}

static void fp2_vec(const vec *v, const char *op)
{
    cuzk_fp2 a, b, r, w;
    typedef void (*bin_f)(cuzk_fp2 *, const cuzk_fp2 *, const cuzk_fp2 *);
    typedef void (*un_f)(cuzk_fp2 *, const cuzk_fp2 *);
    static const struct { const char *n; bin_f f; } bin[] = {
        {"add", cuzk_fp2_add}, {"sub", cuzk_fp2_sub}, {"mul", cuzk_fp2_mul}};
    static const struct { const char *n; un_f f; } un[] = {
        {"sqr", cuzk_fp2_sqr}, {"neg", cuzk_fp2_neg}, {"inv", cuzk_fp2_inv},
        {"conj", cuzk_fp2_conj}, {"mul_by_nonresidue", cuzk_fp2_mul_by_nonresidue}};
    for (size_t k = 0; k < sizeof bin / sizeof bin[0]; k++) {
        if (strcmp(op, bin[k].n)) continue;
        if (!want_ntok(v, 7) || !get_fp2(v, 1, &a) || !get_fp2(v, 3, &b)) return;
        bin[k].f(&r, &a, &b);
        same_fp2(v, "r = a op b", &r, 5);
        r = b;
        bin[k].f(&r, &a, &r);
        same_fp2(v, "r = a op r (aliased)", &r, 5);
        return;
    }
    for (size_t k = 0; k < sizeof un / sizeof un[0]; k++) {
        if (strcmp(op, un[k].n)) continue;
        if (!want_ntok(v, 5) || !get_fp2(v, 1, &a)) return;
        un[k].f(&r, &a);
        same_fp2(v, "r = op a", &r, 3);
        r = a;
        un[k].f(&r, &r);
        same_fp2(v, "aliased", &r, 3);
        return;
    }
    if (!strcmp(op, "pow")) {
        uint64_t e[16];
        size_t n;
        if (!want_ntok(v, 6) || !get_fp2(v, 1, &a) || !get_exp(v, 3, e, &n)) return;
        cuzk_fp2_pow(&r, &a, e, n);
        same_fp2(v, "a^e", &r, 4);
    } else if (!strcmp(op, "sqrt")) {
        if (!want_ntok(v, 6) || !get_fp2(v, 1, &a)) return;
        bool want = !strcmp(v->tok[3], "1");
        if (cuzk_fp2_sqrt(&r, &a) != want) vfail(v, "sqrt returns %d", !want);
        else if (want && get_fp2(v, 4, &w)) {
            cuzk_fp2_neg(&b, &w);
            if (!cuzk_fp2_eq(&r, &w) && !cuzk_fp2_eq(&r, &b)) same_fp2(v, "sqrt is neither root", &r, 4);
        }
    } else if (!strcmp(op, "lex")) {
        if (!want_ntok(v, 4) || !get_fp2(v, 1, &a)) return;
        if (cuzk_fp2_is_lexicographically_largest(&a) != !strcmp(v->tok[3], "1")) vfail(v, "wrong answer");
    } else {
        vfail(v, "unknown op");
    }
}

static void fp6_vec(const vec *v, const char *op)
{
    cuzk_fp6 a, b, r;
    if (!strcmp(op, "mul")) {
        if (!want_ntok(v, 4) || !get_fp6(v, 1, &a) || !get_fp6(v, 2, &b)) return;
        cuzk_fp6_mul(&r, &a, &b);
        same_fp6(v, "a*b", &r, 3);
        cuzk_fp6_mul(&a, &a, &b);
        same_fp6(v, "a*b (aliased)", &a, 3);
    } else if (!strcmp(op, "frobenius")) {
        if (!want_ntok(v, 4) || !get_fp6(v, 1, &a)) return;
        cuzk_fp6_frobenius(&r, &a, (unsigned)atoi(v->tok[2]));
        same_fp6(v, "a^(p^k)", &r, 3);
    } else {
        void (*f)(cuzk_fp6 *, const cuzk_fp6 *) = !strcmp(op, "sqr") ? cuzk_fp6_sqr
            : !strcmp(op, "inv") ? cuzk_fp6_inv : !strcmp(op, "mul_by_nonresidue") ? cuzk_fp6_mul_by_nonresidue : NULL;
        if (!f) {
            vfail(v, "unknown op");
            return;
        }
        if (!want_ntok(v, 3) || !get_fp6(v, 1, &a)) return;
        f(&r, &a);
        same_fp6(v, "op a", &r, 2);
    }
}

static void fp12_vec(const vec *v, const char *op)
{
    cuzk_fp12 a, b, r;
    if (!strcmp(op, "mul")) {
        if (!want_ntok(v, 4) || !get_fp12(v, 1, &a) || !get_fp12(v, 2, &b)) return;
        cuzk_fp12_mul(&r, &a, &b);
        same_fp12(v, "a*b", &r, 3);
        cuzk_fp12_mul(&b, &a, &b);
        same_fp12(v, "a*b (aliased)", &b, 3);
    } else if (!strcmp(op, "frobenius") || !strcmp(op, "pow")) {
        if (!want_ntok(v, 4) || !get_fp12(v, 1, &a)) return;
        if (op[0] == 'f') {
            cuzk_fp12_frobenius(&r, &a, (unsigned)atoi(v->tok[2]));
        } else {
            uint64_t e[16];
            size_t n;
            if (!get_exp(v, 2, e, &n)) return;
            cuzk_fp12_pow(&r, &a, e, n);
        }
        same_fp12(v, op, &r, 3);
    } else {
        void (*f)(cuzk_fp12 *, const cuzk_fp12 *) = !strcmp(op, "sqr") ? cuzk_fp12_sqr
            : !strcmp(op, "inv") ? cuzk_fp12_inv : !strcmp(op, "conj") ? cuzk_fp12_conj
            : !strcmp(op, "cyclotomic_sqr") ? cuzk_fp12_cyclotomic_sqr : NULL;
        if (!f) {
            vfail(v, "unknown op");
            return;
        }
        if (!want_ntok(v, 3) || !get_fp12(v, 1, &a)) return;
        f(&r, &a);
        same_fp12(v, "op a", &r, 2);
        f(&a, &a);
        same_fp12(v, "aliased", &a, 2);
    }
}

static void final_exp_vec(const vec *v)
{
    cuzk_fp12 f, r;
    if (!want_ntok(v, 3) || !get_fp12(v, 1, &f)) return;
    cuzk_final_exp(&r, &f);
    same_fp12(v, "final_exp(f)", &r, 2);
}

static void ff_dispatch(const vec *v)
{
    const char *op = v->tok[0];
    if (!strncmp(op, "fp_", 3)) fp_vec(v, op + 3);
    else if (!strncmp(op, "fr_", 3)) fr_vec(v, op + 3);
    else if (!strncmp(op, "fp2_", 4)) fp2_vec(v, op + 4);
    else if (!strncmp(op, "fp6_", 4)) fp6_vec(v, op + 4);
    else if (!strncmp(op, "fp12_", 5)) fp12_vec(v, op + 5);
    else if (!strcmp(op, "final_exp")) final_exp_vec(v);
    else vfail(v, "unknown op");
}

static void test_ff_vectors(void) { run_file("ff.txt", ff_dispatch, 650); }

/* Same vectors on the portable limb backend (the default may be the ADX one). */
static void test_ff_vectors_portable(void)
{
    cuzk_ff_force_portable(1);
    printf("  backend %s\n", cuzk_ff_backend());
    run_file("ff.txt", ff_dispatch, 650);
    cuzk_ff_force_portable(0);
}

static const test_case tests[] = {
    {"ff_vectors", test_ff_vectors},
    {"ff_vectors_portable", test_ff_vectors_portable},
};

TEST_MAIN(tests)
