/* Real Groth16 proofs from Filecoin's seal regression records (made by
 * rust-fil-proofs with the real parameters; ../shared/data/filecoin, see
 * ../shared/data/README.md).  Without the verifying keys they cannot be
 * verified, but every proof must consist of valid compressed points:
 * A (G1, 48 B) | B (G2, 96 B) | C (G1, 48 B), each on the curve, in the
 * subgroup, not the identity, and re-encoding to the same bytes.
 *
 * Mutations.  "Rejected" cannot mean "decode fails" for every mutation:
 * flipping the sign flag yields the encoding of -P, a valid point, and
 * changing x can (rarely) land on another subgroup point.  What the checked
 * decoder must guarantee is: (1) it never returns the original point for
 * different bytes, (2) whatever it accepts re-encodes to exactly the bytes it
 * was given (the encoding is canonical), and (3) it rejects with the right
 * class.  The class is predicted independently of the decoder under test:
 * non-canonical from a byte comparison with p, not-on-curve from the
 * Euler criterion of x^3 + b, subgroup from [r]P by plain double-and-add
 * (not the endomorphism-based check the decoder uses).
 *
 * Records whose porep_config lists NonInteractivePoRep hold SnarkPack
 * aggregates (not concatenated 192-byte proofs): they are counted and
 * skipped.  The data folder is optional; without it the tests SKIP. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/ec.h"
#include "harness.h"

static const char *files[] = {"seal_regression_records-v16.json", "seal_regression_records-v18.json"};

typedef struct {
    long records, plain_records, aggregates, proofs, points, mutations, rejected, accepted_other;
    long by_class[8]; /* rejections: compression, infinity, sign, noncanonical, not_on_curve, subgroup */
} counts;

static uint8_t p_be[48]; /* the modulus, big-endian, for the canonical check */

/* ---- independent predictions ------------------------------------------------ */
static int below_p(const uint8_t *x48, int first) /* first: mask the flag bits */
{
    uint8_t x[48];
    memcpy(x, x48, 48);
    if (first) x[0] &= 0x1f;
    return memcmp(x, p_be, 48) < 0;
}

/* [r]P == O by MSB-first double-and-add over the bits of r (needs no GLV,
 * which is only valid inside the subgroup). */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                    0x73eda753299d7d48ull};

static int g1_r_torsion(const cuzk_g1_affine *a)
{
    cuzk_g1 p, acc;
    cuzk_g1_from_affine(&p, a);
    cuzk_g1_set_inf(&acc);
    for (int i = 254; i >= 0; i--) {
        cuzk_g1_dbl(&acc, &acc);
        if (R_LIMBS[i / 64] >> (i % 64) & 1) cuzk_g1_add(&acc, &acc, &p);
    }
    return cuzk_g1_is_inf(&acc);
}

static int g2_r_torsion(const cuzk_g2_affine *a)
{
    cuzk_g2 p, acc;
    cuzk_g2_from_affine(&p, a);
    cuzk_g2_set_inf(&acc);
    for (int i = 254; i >= 0; i--) {
        cuzk_g2_dbl(&acc, &acc);
        if (R_LIMBS[i / 64] >> (i % 64) & 1) cuzk_g2_add(&acc, &acc, &p);
    }
    return cuzk_g2_is_inf(&acc);
}

/* ---- one group's checks behind a small table ---------------------------------- */
typedef union { cuzk_g1_affine g1; cuzk_g2_affine g2; } aff_t;
typedef struct {
    const char *name;
    size_t len;
    int (*decompress)(aff_t *, const uint8_t *);
    int (*decompress_unchecked)(aff_t *, const uint8_t *);
    void (*compress)(uint8_t *, const aff_t *);
    bool (*eq)(const aff_t *, const aff_t *);
    void (*neg)(aff_t *, const aff_t *);
    bool (*is_inf)(const aff_t *);
    bool (*valid)(const aff_t *);            /* on curve and in subgroup */
    int (*canonical)(const uint8_t *);       /* every coordinate < p */
    int (*rhs_square)(const uint8_t *);      /* x^3 + b is a square (x canonical) */
    int (*r_torsion)(const aff_t *);
} group;

static int g1_dc(aff_t *r, const uint8_t *b) { return cuzk_g1_decompress(&r->g1, b); }
static int g1_dcu(aff_t *r, const uint8_t *b) { return cuzk_g1_decompress_unchecked(&r->g1, b); }
static void g1_comp(uint8_t *o, const aff_t *p) { cuzk_g1_compress(o, &p->g1); }
static bool g1_eq(const aff_t *p, const aff_t *q) { return cuzk_g1_affine_eq(&p->g1, &q->g1); }
static void g1_neg(aff_t *r, const aff_t *p) { cuzk_g1_affine_neg(&r->g1, &p->g1); }
static bool g1_inf(const aff_t *p) { return cuzk_g1_affine_is_inf(&p->g1); }
static bool g1_valid(const aff_t *p) { return cuzk_g1_affine_is_on_curve(&p->g1) && cuzk_g1_affine_in_subgroup(&p->g1); }
static int g1_canon(const uint8_t *b) { return below_p(b, 1); }
static int g1_rt(const aff_t *p) { return g1_r_torsion(&p->g1); }
static int g1_rhs(const uint8_t *b)
{
    uint8_t xb[48];
    cuzk_fp x, t, four;
    memcpy(xb, b, 48);
    xb[0] &= 0x1f;
    if (cuzk_fp_from_bytes_be(&x, xb) != CUZK_OK) return 0;
    cuzk_fp_from_u64(&four, 4);
    cuzk_fp_sqr(&t, &x);
    cuzk_fp_mul(&t, &t, &x);
    cuzk_fp_add(&t, &t, &four);
    return cuzk_fp_is_square(&t);
}

static int g2_dc(aff_t *r, const uint8_t *b) { return cuzk_g2_decompress(&r->g2, b); }
static int g2_dcu(aff_t *r, const uint8_t *b) { return cuzk_g2_decompress_unchecked(&r->g2, b); }
static void g2_comp(uint8_t *o, const aff_t *p) { cuzk_g2_compress(o, &p->g2); }
static bool g2_eq(const aff_t *p, const aff_t *q) { return cuzk_g2_affine_eq(&p->g2, &q->g2); }
static void g2_neg(aff_t *r, const aff_t *p) { cuzk_g2_affine_neg(&r->g2, &p->g2); }
static bool g2_inf(const aff_t *p) { return cuzk_g2_affine_is_inf(&p->g2); }
static bool g2_valid(const aff_t *p) { return cuzk_g2_affine_is_on_curve(&p->g2) && cuzk_g2_affine_in_subgroup(&p->g2); }
static int g2_canon(const uint8_t *b) { return below_p(b, 1) && below_p(b + 48, 0); }
static int g2_rt(const aff_t *p) { return g2_r_torsion(&p->g2); }
/* a in Fp2 is a square iff its norm c0^2 + c1^2 is a square in Fp. */
static int g2_rhs(const uint8_t *b)
{
    uint8_t xb[48];
    cuzk_fp2 x, t, b2;
    cuzk_fp n, m;
    memcpy(xb, b, 48);
    xb[0] &= 0x1f;
    if (cuzk_fp_from_bytes_be(&x.c1, xb) != CUZK_OK || cuzk_fp_from_bytes_be(&x.c0, b + 48) != CUZK_OK) return 0;
    cuzk_fp_from_u64(&b2.c0, 4);
    b2.c1 = b2.c0;
    cuzk_fp2_sqr(&t, &x);
    cuzk_fp2_mul(&t, &t, &x);
    cuzk_fp2_add(&t, &t, &b2);
    cuzk_fp_sqr(&n, &t.c0);
    cuzk_fp_sqr(&m, &t.c1);
    cuzk_fp_add(&n, &n, &m);
    return cuzk_fp_is_square(&n);
}

static const group G1 = {"G1", 48, g1_dc, g1_dcu, g1_comp, g1_eq, g1_neg, g1_inf, g1_valid, g1_canon, g1_rhs, g1_rt};
static const group G2 = {"G2", 96, g2_dc, g2_dcu, g2_comp, g2_eq, g2_neg, g2_inf, g2_valid, g2_canon, g2_rhs, g2_rt};

/* ---- checks ------------------------------------------------------------------ */
static int where_fails; /* limit the per-failure context lines */

static void report(const char *file, long rec, int proof, const group *g, const char *what, size_t pos, int rc)
{
    if (where_fails++ < 20)
        fprintf(stderr, "  %s record %ld proof %d %s: %s (byte %zu, status %d: %s)\n", file, rec, proof, g->name,
                what, pos, rc, cuzk_strerror(rc));
}

static int class_index(int rc)
{
    return rc >= CUZK_ERR_ENC_SUBGROUP && rc <= CUZK_ERR_ENC_COMPRESSION ? CUZK_ERR_ENC_COMPRESSION - rc : 7;
}

/* Mutated encoding m of the valid point orig: check the decoder's verdict. */
static void check_mutation(const group *g, const uint8_t *m, const aff_t *orig, int pred, counts *c,
                           const char *file, long rec, int proof, size_t pos)
{
    aff_t q;
    uint8_t e[96];
    int rc = g->decompress(&q, m);
    c->mutations++;
    if (rc == CUZK_OK) {
        c->accepted_other++;
        g->compress(e, &q);
        if (g->eq(&q, orig)) {
            report(file, rec, proof, g, "mutated bytes decode to the ORIGINAL point", pos, rc);
            CHECK(!"mutation decodes to the original point");
        } else if (memcmp(e, m, g->len)) {
            report(file, rec, proof, g, "accepted mutation does not re-encode to its bytes", pos, rc);
            CHECK(!"accepted mutation is not canonical");
        }
    } else {
        c->rejected++;
        c->by_class[class_index(rc)]++;
    }
    if (pred != 1 && rc != pred) { /* pred 1: any outcome allowed (checked above) */
        report(file, rec, proof, g, "status differs from the independent prediction", pos, rc);
        fprintf(stderr, "    predicted %d (%s)\n", pred, cuzk_strerror(pred));
        CHECK(rc == pred);
    }
}

/* Prediction for a mutation that leaves the flag bits alone. */
static int predict_x_mutation(const group *g, const uint8_t *m)
{
    aff_t q;
    if (!g->canonical(m)) return CUZK_ERR_ENC_NONCANONICAL;
    if (!g->rhs_square(m)) return CUZK_ERR_ENC_NOT_ON_CURVE;
    /* on the curve: recover y with the unchecked decoder (which must agree). */
    int rc = g->decompress_unchecked(&q, m);
    if (rc != CUZK_OK) return 2; /* impossible outcome: flags a failure */
    return g->r_torsion(&q) ? CUZK_OK : CUZK_ERR_ENC_SUBGROUP;
}

static void check_point(const group *g, const uint8_t *enc, counts *c, const char *file, long rec, int proof,
                        int nsample)
{
    aff_t p, n;
    uint8_t e[96], m[96];
    int rc = g->decompress(&p, enc);
    c->points++;
    if (rc != CUZK_OK) {
        report(file, rec, proof, g, "does not decode", 0, rc);
        CHECK(rc == CUZK_OK);
        return;
    }
    g->compress(e, &p);
    if (memcmp(e, enc, g->len)) report(file, rec, proof, g, "re-encodes differently", 0, 0);
    CHECK(memcmp(e, enc, g->len) == 0);
    CHECK(!g->is_inf(&p));
    CHECK(g->valid(&p));
    /* flag bits: compression off -> COMPRESSION; infinity on -> INFINITY
     * (or SIGN if the sign bit is set: both describe it); sign -> -P. */
    memcpy(m, enc, g->len);
    m[0] ^= 0x80;
    check_mutation(g, m, &p, CUZK_ERR_ENC_COMPRESSION, c, file, rec, proof, 0);
    memcpy(m, enc, g->len);
    m[0] ^= 0x40;
    {
        aff_t q;
        int r2 = g->decompress(&q, m);
        int ok = r2 == CUZK_ERR_ENC_INFINITY || ((enc[0] & 0x20) && r2 == CUZK_ERR_ENC_SIGN);
        check_mutation(g, m, &p, 1, c, file, rec, proof, 0);
        if (!ok) report(file, rec, proof, g, "infinity flag added: wrong status", 0, r2);
        CHECK(ok);
    }
    memcpy(m, enc, g->len);
    m[0] ^= 0x20;
    check_mutation(g, m, &p, CUZK_OK, c, file, rec, proof, 0);
    g->neg(&n, &p);
    {
        aff_t q;
        if (g->decompress(&q, m) == CUZK_OK && !g->eq(&q, &n)) {
            report(file, rec, proof, g, "sign flip does not give -P", 0, 0);
            CHECK(!"sign flip does not give -P");
        }
    }
    /* sampled x mutations: a random byte position, a random non-zero xor
     * that leaves the three flag bits alone */
    for (int s = 0; s < nsample; s++) {
        size_t pos = (size_t)(test_rand64() % g->len);
        uint8_t x;
        do x = (uint8_t)test_rand64() & (pos == 0 ? 0x1f : 0xff);
        while (!x);
        memcpy(m, enc, g->len);
        m[pos] ^= x;
        check_mutation(g, m, &p, predict_x_mutation(g, m), c, file, rec, proof, pos);
    }
}

/* Finds "key":[ ... ] in a record line; returns the text after '[' or NULL. */
static const char *json_array(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":[", key);
    const char *s = strstr(line, pat);
    return s ? s + strlen(pat) : NULL;
}

static long parse_bytes(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (s && *s && *s != ']') {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 255 || n == cap) return -1;
        out[n++] = (uint8_t)v;
        s = end;
        if (*s == ',') s++;
    }
    return s && *s == ']' ? (long)n : -1;
}

static void run_file(const char *dir, const char *name, counts *c, int nsample)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/filecoin/%s", dir, name);
    char *buf = (char *)test_read_file(path, NULL);
    if (!buf) {
        printf("  SKIP %s: cannot read %s\n", name, path);
        return;
    }
    static uint8_t proof[65536];
    long rec = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        rec++;
        c->records++;
        const char *feat = json_array(line, "api_features"), *ps = json_array(line, "proof");
        const char *parts = strstr(line, "\"partitions\":");
        long n = parse_bytes(ps, proof, sizeof proof);
        if (!feat || !parts || n < 0) {
            fprintf(stderr, "  %s record %ld: no api_features/partitions/proof array\n", name, rec);
            CHECK(!"malformed record");
            continue;
        }
        const char *fend = strchr(feat, ']');
        const char *ni = strstr(feat, "NonInteractivePoRep");
        if (ni && fend && ni < fend) {
            c->aggregates++; /* SnarkPack aggregate, not 192-byte proofs */
            continue;
        }
        long partitions = atol(parts + 13);
        if (n != 192 * partitions) {
            fprintf(stderr, "  %s record %ld: %ld proof bytes for %ld partitions\n", name, rec, n, partitions);
            CHECK(n == 192 * partitions);
            continue;
        }
        c->plain_records++;
        for (long k = 0; k < partitions; k++) {
            const uint8_t *pr = proof + 192 * k;
            c->proofs++;
            check_point(&G1, pr, c, name, rec, (int)k, nsample);
            check_point(&G2, pr + 48, c, name, rec, (int)k, nsample);
            check_point(&G1, pr + 144, c, name, rec, (int)k, nsample);
        }
    }
    free(buf);
}

static void test_seal_proofs(void)
{
    const char *dir = test_shared_dir();
    if (!dir) {
        test_skip("no ../shared folder (set CUZK_SHARED): real Filecoin proofs not available");
        return;
    }
    for (int i = 0; i < 48; i++) p_be[47 - i] = (uint8_t)(CUZK_FP_MODULUS[i / 8] >> (8 * (i % 8)));
    counts c = {0};
    int nsample = 3 * test_iterations;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) run_file(dir, files[f], &c, nsample);
    if (!c.records) {
        test_skip("seal regression records not found under ../shared/data/filecoin");
        return;
    }
    printf("  records %ld (plain %ld, NI-PoRep aggregates skipped %ld); proofs %ld; points decoded %ld\n",
           c.records, c.plain_records, c.aggregates, c.proofs, c.points);
    printf("  mutations %ld: rejected %ld (compression %ld, infinity %ld, sign %ld, noncanonical %ld, "
           "not_on_curve %ld, subgroup %ld), accepted as another valid point %ld\n",
           c.mutations, c.rejected, c.by_class[0], c.by_class[1], c.by_class[2], c.by_class[3], c.by_class[4],
           c.by_class[5], c.accepted_other);
    CHECK(c.points == 3 * c.proofs);
    CHECK(c.proofs > 0);
}

static const test_case tests[] = {
    {"seal_proofs", test_seal_proofs},
};

TEST_MAIN(tests)
