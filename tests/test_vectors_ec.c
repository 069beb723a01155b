/* Known-answer tests for the curve groups and the pairing: every vector in
 * tests/vectors/ec.txt and pairing.txt (made by tests/vectors/gen.mjs with
 * @noble/curves; formats in the files' headers).  ff.txt is test_vectors.c.
 *
 * G1 and G2 run through the same checks via a small table of wrappers, so a
 * check written once covers both groups. */
#include "cuzk/pairing.h"
#include "vec_reader.h"

typedef union { cuzk_g1_affine g1; cuzk_g2_affine g2; } aff_t;
typedef union { cuzk_g1 g1; cuzk_g2 g2; } jac_t;

typedef struct {
    const char *name;
    size_t clen, ulen; /* compressed / uncompressed encoding length */
    int (*decode)(aff_t *, const uint8_t *, size_t);
    int (*decompress_unchecked)(aff_t *, const uint8_t *);
    int (*deserialize_unchecked)(aff_t *, const uint8_t *);
    int (*decompress)(aff_t *, const uint8_t *);
    int (*deserialize)(aff_t *, const uint8_t *);
    void (*compress)(uint8_t *, const aff_t *);
    void (*serialize)(uint8_t *, const aff_t *);
    void (*generator)(jac_t *);
    void (*affine_generator)(aff_t *);
    void (*set_inf)(jac_t *);
    bool (*is_inf)(const jac_t *);
    bool (*affine_is_inf)(const aff_t *);
    bool (*affine_eq)(const aff_t *, const aff_t *);
    bool (*eq)(const jac_t *, const jac_t *);
    void (*from_affine)(jac_t *, const aff_t *);
    void (*to_affine)(aff_t *, const jac_t *);
    void (*add)(jac_t *, const jac_t *, const jac_t *);
    void (*add_affine)(jac_t *, const jac_t *, const aff_t *);
    void (*dbl)(jac_t *, const jac_t *);
    void (*neg)(jac_t *, const jac_t *);
    void (*affine_neg)(aff_t *, const aff_t *);
    void (*mul)(jac_t *, const jac_t *, const cuzk_fr *);
    void (*mul_var)(jac_t *, const jac_t *, const cuzk_fr *);
    bool (*affine_is_on_curve)(const aff_t *);
    bool (*is_on_curve)(const jac_t *);
    bool (*affine_in_subgroup)(const aff_t *);
    bool (*in_subgroup)(const jac_t *);
} group;

/* One wrapper per API function: casting function pointers would be UB. */
#define GROUP_WRAPPERS(N, CLEN, ULEN)                                                                      \
    static int N##_decode(aff_t *r, const uint8_t *in, size_t n) { return cuzk_##N##_decode(&r->N, in, n); } \
    static int N##_dcu(aff_t *r, const uint8_t *in) { return cuzk_##N##_decompress_unchecked(&r->N, in); } \
    static int N##_dsu(aff_t *r, const uint8_t *in) { return cuzk_##N##_deserialize_unchecked(&r->N, in); } \
    static int N##_dc(aff_t *r, const uint8_t *in) { return cuzk_##N##_decompress(&r->N, in); }             \
    static int N##_ds(aff_t *r, const uint8_t *in) { return cuzk_##N##_deserialize(&r->N, in); }            \
    static void N##_comp(uint8_t *o, const aff_t *p) { cuzk_##N##_compress(o, &p->N); }                     \
    static void N##_ser(uint8_t *o, const aff_t *p) { cuzk_##N##_serialize(o, &p->N); }                     \
    static void N##_gen(jac_t *r) { cuzk_##N##_generator(&r->N); }                                          \
    static void N##_agen(aff_t *r) { cuzk_##N##_affine_generator(&r->N); }                                  \
    static void N##_sinf(jac_t *r) { cuzk_##N##_set_inf(&r->N); }                                           \
    static bool N##_isinf(const jac_t *p) { return cuzk_##N##_is_inf(&p->N); }                             \
    static bool N##_aisinf(const aff_t *p) { return cuzk_##N##_affine_is_inf(&p->N); }                      \
    static bool N##_aeq(const aff_t *p, const aff_t *q) { return cuzk_##N##_affine_eq(&p->N, &q->N); }      \
    static bool N##_eq(const jac_t *p, const jac_t *q) { return cuzk_##N##_eq(&p->N, &q->N); }              \
    static void N##_fa(jac_t *r, const aff_t *p) { cuzk_##N##_from_affine(&r->N, &p->N); }                  \
    static void N##_ta(aff_t *r, const jac_t *p) { cuzk_##N##_to_affine(&r->N, &p->N); }                    \
    static void N##_add(jac_t *r, const jac_t *p, const jac_t *q) { cuzk_##N##_add(&r->N, &p->N, &q->N); }  \
    static void N##_adda(jac_t *r, const jac_t *p, const aff_t *q) { cuzk_##N##_add_affine(&r->N, &p->N, &q->N); } \
    static void N##_dbl(jac_t *r, const jac_t *p) { cuzk_##N##_dbl(&r->N, &p->N); }                         \
    static void N##_neg(jac_t *r, const jac_t *p) { cuzk_##N##_neg(&r->N, &p->N); }                         \
    static void N##_aneg(aff_t *r, const aff_t *p) { cuzk_##N##_affine_neg(&r->N, &p->N); }                 \
    static void N##_mul(jac_t *r, const jac_t *p, const cuzk_fr *k) { cuzk_##N##_mul(&r->N, &p->N, k); }    \
    static void N##_mulv(jac_t *r, const jac_t *p, const cuzk_fr *k) { cuzk_##N##_mul_var(&r->N, &p->N, k); } \
    static bool N##_aoc(const aff_t *p) { return cuzk_##N##_affine_is_on_curve(&p->N); }                    \
    static bool N##_oc(const jac_t *p) { return cuzk_##N##_is_on_curve(&p->N); }                            \
    static bool N##_asg(const aff_t *p) { return cuzk_##N##_affine_in_subgroup(&p->N); }                    \
    static bool N##_sg(const jac_t *p) { return cuzk_##N##_in_subgroup(&p->N); }                            \
    static const group N##_group = {#N, CLEN, ULEN, N##_decode, N##_dcu, N##_dsu, N##_dc, N##_ds, N##_comp, N##_ser,           \
        N##_gen, N##_agen, N##_sinf, N##_isinf, N##_aisinf, N##_aeq, N##_eq, N##_fa, N##_ta, N##_add,       \
        N##_adda, N##_dbl, N##_neg, N##_aneg, N##_mul, N##_mulv, N##_aoc, N##_oc, N##_asg, N##_sg};

GROUP_WRAPPERS(g1, 48, 96)
GROUP_WRAPPERS(g2, 96, 192)

/* Decode token i (length picks compressed/uncompressed) with the checked
 * decoder; a failure is reported with the status text. */
static int get_pt(const vec *v, const group *g, int i, aff_t *p)
{
    uint8_t b[192];
    size_t n = i < v->ntok ? strlen(v->tok[i]) / 2 : 0;
    if ((n != g->clen && n != g->ulen) || !hexbytes(v, i, b, n)) {
        if (n != g->clen && n != g->ulen) vfail(v, "token %d is not a %s encoding", i, g->name);
        return 0;
    }
    int rc = g->decode(p, b, n);
    if (rc != CUZK_OK) vfail(v, "token %d: decode fails: %s", i, cuzk_strerror(rc));
    return rc == CUZK_OK;
}

static int same_ser(const vec *v, const group *g, const char *what, const aff_t *p, int i)
{
    uint8_t b[192];
    g->serialize(b, p);
    return same(v, what, b, g->ulen, i);
}

static int same_jac(const vec *v, const group *g, const char *what, const jac_t *p, int i)
{
    aff_t a;
    g->to_affine(&a, p);
    return same_ser(v, g, what, &a, i);
}

/* comp/uncomp tokens i, i+1 describe the same point: every decoder agrees,
 * both encoders reproduce the bytes.  Returns the point in *out. */
static int check_encodings(const vec *v, const group *g, int i, aff_t *out)
{
    aff_t a, b, c, d;
    uint8_t cb[96], ub[192], e[192];
    if (!hexbytes(v, i, cb, g->clen) || !hexbytes(v, i + 1, ub, g->ulen)) return 0;
    int r1 = g->decompress(&a, cb), r2 = g->deserialize(&b, ub);
    int r3 = g->decompress_unchecked(&c, cb), r4 = g->deserialize_unchecked(&d, ub);
    if (r1 || r2 || r3 || r4) {
        vfail(v, "decoders fail: decompress %d deserialize %d unchecked %d %d", r1, r2, r3, r4);
        return 0;
    }
    if (!g->affine_eq(&a, &b) || !g->affine_eq(&a, &c) || !g->affine_eq(&a, &d))
        vfail(v, "compressed and uncompressed decode to different points");
    g->compress(e, &a);
    same(v, "compress(decompress(comp))", e, g->clen, i);
    same_ser(v, g, "serialize(decompress(comp))", &a, i + 1);
    if (!g->affine_is_inf(&a) && (!g->affine_is_on_curve(&a) || !g->affine_in_subgroup(&a)))
        vfail(v, "decoded point fails is_on_curve/in_subgroup");
    *out = a;
    return 1;
}

static const struct { const char *name; int code; } classes[] = {
    {"length", CUZK_ERR_ENC_LENGTH}, {"compression", CUZK_ERR_ENC_COMPRESSION},
    {"infinity", CUZK_ERR_ENC_INFINITY}, {"sign", CUZK_ERR_ENC_SIGN},
    {"noncanonical", CUZK_ERR_ENC_NONCANONICAL}, {"not_on_curve", CUZK_ERR_ENC_NOT_ON_CURVE},
    {"subgroup", CUZK_ERR_ENC_SUBGROUP},
};

/* CLASS is "a" or "a|b": is rc one of them? */
static int class_has(const char *cls, int rc)
{
    for (size_t k = 0; k < sizeof classes / sizeof classes[0]; k++) {
        const char *p = strstr(cls, classes[k].name);
        size_t n = strlen(classes[k].name);
        if (p && (p == cls || p[-1] == '|') && (p[n] == 0 || p[n] == '|') && rc == classes[k].code) return 1;
    }
    return 0;
}

static void invalid_vec(const vec *v, const group *g)
{
    uint8_t b[200];
    aff_t p;
    if (!want_ntok(v, 4)) return;
    size_t hl = strlen(v->tok[2]), n = hl / 2;
    if (n > sizeof b || test_hex_decode(b, sizeof b, v->tok[2], hl) != (long)n) {
        vfail(v, "bad hex");
        return;
    }
    int rc = g->decode(&p, b, n);
    if (!class_has(v->tok[1], rc)) {
        vfail(v, "decode returns %d (%s), want %s [%s]", rc, cuzk_strerror(rc), v->tok[1], v->tok[3]);
        return;
    }
    if (n != g->clen && n != g->ulen) return;
    /* the _unchecked decoders skip only the subgroup check */
    int ru = n == g->clen ? g->decompress_unchecked(&p, b) : g->deserialize_unchecked(&p, b);
    if (!strcmp(v->tok[1], "subgroup")) {
        if (ru != CUZK_OK) vfail(v, "unchecked decode of an on-curve point fails: %s", cuzk_strerror(ru));
        else if (!g->affine_is_on_curve(&p) || g->affine_in_subgroup(&p))
            vfail(v, "unchecked result: on_curve %d in_subgroup %d, want 1 0", g->affine_is_on_curve(&p),
                  g->affine_in_subgroup(&p));
    } else if (!class_has(v->tok[1], ru)) {
        vfail(v, "unchecked decode returns %d (%s), want %s", ru, cuzk_strerror(ru), v->tok[1]);
    }
}

static void offsub_vec(const vec *v, const group *g)
{
    uint8_t cb[96], ub[192], e[192];
    aff_t a, b;
    jac_t j;
    if (!want_ntok(v, 3) || !hexbytes(v, 1, cb, g->clen) || !hexbytes(v, 2, ub, g->ulen)) return;
    int r1 = g->decompress(&a, cb), r2 = g->deserialize(&a, ub);
    if (r1 != CUZK_ERR_ENC_SUBGROUP || r2 != CUZK_ERR_ENC_SUBGROUP)
        vfail(v, "checked decoders return %d, %d; want %d (subgroup)", r1, r2, CUZK_ERR_ENC_SUBGROUP);
    r1 = g->decompress_unchecked(&a, cb);
    r2 = g->deserialize_unchecked(&b, ub);
    if (r1 || r2) {
        vfail(v, "unchecked decoders fail: %d %d", r1, r2);
        return;
    }
    if (!g->affine_eq(&a, &b)) vfail(v, "compressed/uncompressed differ (sign rule?)");
    same_ser(v, g, "serialize(decompress_unchecked(comp))", &a, 2);
    g->compress(e, &b);
    same(v, "compress(deserialize_unchecked(uncomp))", e, g->clen, 1);
    g->from_affine(&j, &a);
    if (!g->affine_is_on_curve(&a) || !g->is_on_curve(&j)) vfail(v, "not on curve");
    if (g->affine_in_subgroup(&a) || g->in_subgroup(&j)) vfail(v, "in_subgroup says yes");
}

static void group_vec(const vec *v, const group *g, const char *op)
{
    aff_t a, b, c;
    jac_t j, k, r;
    cuzk_fr s;
    if (!strcmp(op, "gen") || !strcmp(op, "inf")) {
        if (!want_ntok(v, 3) || !check_encodings(v, g, 1, &a)) return;
        if (op[0] == 'g') {
            g->affine_generator(&b);
            g->generator(&j);
            g->to_affine(&c, &j);
            if (!g->affine_eq(&a, &b) || !g->affine_eq(&a, &c)) vfail(v, "generator differs");
        } else {
            g->set_inf(&j);
            g->to_affine(&b, &j);
            if (!g->affine_is_inf(&a) || !g->is_inf(&j) || !g->affine_is_inf(&b)) vfail(v, "not infinity");
            same_ser(v, g, "serialize(to_affine(set_inf))", &b, 2);
        }
    } else if (!strcmp(op, "mul")) {
        if (!want_ntok(v, 4) || !get_fr(v, 1, &s) || !check_encodings(v, g, 2, &a)) return;
        g->generator(&j);
        g->mul(&r, &j, &s);
        same_jac(v, g, "mul(G, k)", &r, 3);
        g->mul_var(&j, &j, &s); /* aliased */
        same_jac(v, g, "mul_var(G, k)", &j, 3);
        if (!g->is_on_curve(&j) || !g->in_subgroup(&j)) vfail(v, "k*G not on curve / in subgroup");
    } else if (!strcmp(op, "mul_pt")) {
        if (!want_ntok(v, 4) || !get_fr(v, 1, &s) || !get_pt(v, g, 2, &a)) return;
        g->from_affine(&j, &a);
        g->mul(&r, &j, &s);
        same_jac(v, g, "mul(P, k)", &r, 3);
        g->mul_var(&r, &j, &s);
        same_jac(v, g, "mul_var(P, k)", &r, 3);
    } else if (!strcmp(op, "add")) {
        if (!want_ntok(v, 4) || !get_pt(v, g, 1, &a) || !get_pt(v, g, 2, &b)) return;
        g->from_affine(&j, &a);
        g->from_affine(&k, &b);
        g->add(&r, &j, &k);
        same_jac(v, g, "add(P, Q)", &r, 3);
        g->add_affine(&r, &j, &b);
        same_jac(v, g, "add_affine(P, Q)", &r, 3);
        g->add(&k, &j, &k); /* aliased */
        same_jac(v, g, "add(P, Q) into Q", &k, 3);
        g->from_affine(&k, &b);
        g->add(&j, &k, &j); /* Q + P */
        same_jac(v, g, "add(Q, P)", &j, 3);
    } else if (!strcmp(op, "dbl")) {
        if (!want_ntok(v, 3) || !get_pt(v, g, 1, &a)) return;
        g->from_affine(&j, &a);
        g->dbl(&r, &j);
        same_jac(v, g, "dbl(P)", &r, 2);
        g->add(&r, &j, &j); /* the complete add handles P == Q */
        same_jac(v, g, "add(P, P)", &r, 2);
        g->add_affine(&r, &j, &a);
        same_jac(v, g, "add_affine(P, P)", &r, 2);
        g->dbl(&j, &j);
        same_jac(v, g, "dbl aliased", &j, 2);
    } else if (!strcmp(op, "neg")) {
        if (!want_ntok(v, 3) || !get_pt(v, g, 1, &a)) return;
        g->from_affine(&j, &a);
        g->neg(&r, &j);
        same_jac(v, g, "neg(P)", &r, 2);
        g->affine_neg(&b, &a);
        same_ser(v, g, "affine_neg(P)", &b, 2);
        g->add(&r, &r, &j);
        if (!g->is_inf(&r)) vfail(v, "P + (-P) is not infinity");
    } else if (!strcmp(op, "offsub")) {
        offsub_vec(v, g);
    } else if (!strcmp(op, "invalid")) {
        invalid_vec(v, g);
    } else {
        vfail(v, "unknown op");
    }
}

static void ec_dispatch(const vec *v)
{
    const char *op = v->tok[0];
    if (!strncmp(op, "g1_", 3)) group_vec(v, &g1_group, op + 3);
    else if (!strncmp(op, "g2_", 3)) group_vec(v, &g2_group, op + 3);
    else vfail(v, "unknown op");
}

static void pairing_dispatch(const vec *v)
{
    aff_t p[8], q[8];
    cuzk_g1_affine p1[8];
    cuzk_g2_affine q2[8];
    cuzk_fp12 e, f;
    if (!strcmp(v->tok[0], "pairing")) {
        if (!want_ntok(v, 4) || !get_pt(v, &g1_group, 1, &p[0]) || !get_pt(v, &g2_group, 2, &q[0])) return;
        cuzk_pairing(&e, &p[0].g1, &q[0].g2);
        same_fp12(v, "pairing(P, Q)", &e, 3);
        cuzk_miller_loop(&f, &q[0].g2, &p[0].g1);
        cuzk_final_exp(&f, &f);
        same_fp12(v, "final_exp(miller_loop(Q, P))", &f, 3);
        cuzk_miller_loop_n(&f, &q[0].g2, &p[0].g1, 1);
        cuzk_final_exp(&f, &f);
        same_fp12(v, "final_exp(miller_loop_n(n=1))", &f, 3);
    } else if (!strcmp(v->tok[0], "pairing_product")) {
        int n = v->ntok >= 3 ? atoi(v->tok[2]) : -1;
        if (n < 0 || n > 8 || !want_ntok(v, 3 + 2 * n)) return;
        for (int i = 0; i < n; i++) {
            if (!get_pt(v, &g1_group, 3 + 2 * i, &p[i]) || !get_pt(v, &g2_group, 4 + 2 * i, &q[i])) return;
            p1[i] = p[i].g1;
            q2[i] = q[i].g2;
        }
        bool want = !strcmp(v->tok[1], "1");
        if (cuzk_pairing_product_is_one(p1, q2, (size_t)n) != want) vfail(v, "product_is_one != %d", want);
        cuzk_miller_loop_n(&f, q2, p1, (size_t)n);
        cuzk_final_exp(&f, &f);
        if (cuzk_fp12_is_one(&f) != want) vfail(v, "final_exp(miller_loop_n) is_one != %d", want);
    } else {
        vfail(v, "unknown op");
    }
}

static void test_ec_vectors(void) { run_file("ec.txt", ec_dispatch, 250); }
static void test_pairing_vectors(void) { run_file("pairing.txt", pairing_dispatch, 30); }

/* Same vectors on the portable limb backend (the default may be the ADX one). */
static void test_vectors_portable(void)
{
    cuzk_ff_force_portable(1);
    printf("  backend %s\n", cuzk_ff_backend());
    run_file("ec.txt", ec_dispatch, 250);
    run_file("pairing.txt", pairing_dispatch, 30);
    cuzk_ff_force_portable(0);
}

static const test_case tests[] = {
    {"ec_vectors", test_ec_vectors},
    {"pairing_vectors", test_pairing_vectors},
    {"ec_pairing_vectors_portable", test_vectors_portable},
};

TEST_MAIN(tests)
