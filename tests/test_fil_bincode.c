/* The bincode reader and writer shared by the PoSt and SnapDeals parsers
 * (src/fil/bincode.h), against an encoder written here from the format
 * (wire-contract.md: u32 LE enum tag; Single = root, leaf, path; Sub /
 * Top = base, sub[, top] paths, root, leaf; a path = u64 levels, then per
 * level u64 hash count, the hashes, u64 index): random proofs of every
 * kind parse to what was encoded and are written back byte for byte;
 * every truncation fails; and each check (length prefix: expected, limit,
 * bytes left -- before anything is allocated; canonical elements; shape;
 * arity; index; trailing bytes) fails with its message. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/status.h"
#include "fil/bincode.h"
#include "harness.h"

#define MAXL 64

/* ---- an independent encoder -------------------------------------------------- */

typedef struct {
    uint8_t b[8192];
    size_t n;
} enc;

static void e_u(enc *e, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        e->b[e->n++] = (uint8_t)(v >> (8 * i));
}

static void e_elem(enc *e, uint8_t *keep)
{
    test_rand_bytes(e->b + e->n, 32);
    e->b[e->n + 31] &= 0x3f; /* < 2^254 < r: canonical */
    if (keep) memcpy(keep, e->b + e->n, 32);
    e->n += 32;
}

typedef struct {
    uint32_t levels, arity;
    uint8_t hash[MAXL * 7 * 32];
    uint64_t index[MAXL];
} src_path;

typedef struct {
    uint32_t kind;
    uint8_t root[32], leaf[32];
    src_path path[3];
} src_proof;

static void e_path(enc *e, src_path *p, uint32_t levels, uint32_t arity)
{
    p->levels = levels;
    p->arity = arity;
    e_u(e, levels, 8);
    for (uint32_t l = 0; l < levels; l++) {
        e_u(e, arity - 1, 8);
        for (uint32_t h = 0; h + 1 < arity; h++)
            e_elem(e, p->hash + 32 * (l * (arity - 1) + h));
        p->index[l] = test_rand64() % arity;
        e_u(e, p->index[l], 8);
    }
}

/* kind 0: base arity 8, 3 levels; 1: + sub arity 2; 2: + sub 8, top 2. */
static void e_proof(enc *e, src_proof *s, uint32_t kind)
{
    static const uint32_t lv[3] = {3, 1, 1}, ar[3][3] = {{8, 0, 0}, {8, 2, 0}, {8, 8, 2}};
    memset(s, 0, sizeof *s);
    s->kind = kind;
    e_u(e, kind, 4);
    if (kind == CUZK_FIL_PROOF_SINGLE) {
        e_elem(e, s->root);
        e_elem(e, s->leaf);
    }
    for (uint32_t k = 0; k <= kind; k++)
        e_path(e, &s->path[k], lv[k], ar[kind][k]);
    if (kind != CUZK_FIL_PROOF_SINGLE) {
        e_elem(e, s->root);
        e_elem(e, s->leaf);
    }
}

/* ---- the reader, as the parsers drive it -------------------------------------- */

typedef struct {
    cuzk_fil_merkle_proof p;
    uint64_t idx[3 * MAXL];
    uint8_t hash[3 * MAXL * 7 * 32];
} parsed;

static void start(cuzk_fil_bc *r, const uint8_t *b, size_t n, char *err)
{
    cuzk_fil_bc_init(r, "test proof", b, n, err, 512);
    r->canonical = true;
    r->max_levels = 40;
    cuzk_fil_bc_push(r, "proof");
}

/* Pass 1 (validate, count), pass 2 (fill), nothing may follow. */
static int parse(parsed *out, const uint8_t *b, size_t n, const cuzk_fil_bc_shape *want, char *err)
{
    cuzk_fil_bc r;
    start(&r, b, n, err);
    int st = cuzk_fil_bc_merkle(&r, NULL, want);
    if (!st) st = cuzk_fil_bc_end(&r);
    if (st) return st;
    size_t nl = r.n_levels, nh = r.n_hash;
    if (nl > 3 * MAXL || nh > sizeof out->hash) return CUZK_ERR_ARG;
    start(&r, b, n, err);
    r.fill = true;
    r.idx = out->idx;
    r.hash = out->hash;
    st = cuzk_fil_bc_merkle(&r, &out->p, want);
    CHECK(st == CUZK_OK && r.n_levels == nl && r.n_hash == nh && r.pos == n);
    return st;
}

static void expect(const uint8_t *b, size_t n, const cuzk_fil_bc_shape *want, int st, const char *msg)
{
    static parsed p;
    char err[512] = "";
    int got = parse(&p, b, n, want, err);
    if (got != st || !strstr(err, msg)) printf("  want %d '%s', got %d '%s'\n", st, msg, got, err);
    CHECK(got == st && strstr(err, msg) != NULL);
}

static void test_round_trip(void)
{
    static enc e;
    static src_proof s;
    static parsed p;
    for (int it = 0; it < 20 * test_iterations; it++) {
        uint32_t kind = (uint32_t)(it % 3);
        e.n = 0;
        e_proof(&e, &s, kind);
        char err[512] = "";
        int st = parse(&p, e.b, e.n, NULL, err);
        if (st) printf("  kind %u: %s\n", kind, err);
        REQUIRE(st == CUZK_OK);
        CHECK(p.p.kind == kind && !memcmp(p.p.root, s.root, 32) && !memcmp(p.p.leaf, s.leaf, 32));
        for (uint32_t k = 0; k <= kind; k++) {
            const cuzk_fil_path *q = &p.p.path[k];
            const src_path *w = &s.path[k];
            REQUIRE(q->levels == w->levels && q->arity == w->arity);
            CHECK(!memcmp(q->hashes, w->hash, (size_t)w->levels * (w->arity - 1) * 32));
            CHECK(!memcmp(q->index, w->index, w->levels * sizeof(uint64_t)));
        }
        uint8_t out[8192];
        CHECK(cuzk_fil_bc_merkle_ok(&p.p));
        REQUIRE(cuzk_fil_bc_merkle_size(&p.p) == e.n);
        CHECK(cuzk_fil_bc_put_merkle(out, &p.p) == out + e.n && !memcmp(out, e.b, e.n));
        for (size_t cut = 0; cut < e.n; cut += 1 + test_rand64() % 7) /* truncations */
            expect(e.b, cut, NULL, CUZK_ERR_FORMAT, "test proof");    /* truncated, or a count too large */
    }
    uint8_t u[8];
    cuzk_fil_bc_put_u64(u, 0x0102030405060708ull);
    CHECK(u[0] == 8 && u[7] == 1);
}

/* One Single proof, base arity 8, 2 levels: tag 0, root 4, leaf 36,
 * path.len 68, level 0: hashes.len 76, hashes 84, index 308; level 1:
 * hashes.len 316, index 548; end 556. */
static void test_merkle_errors(void)
{
    static enc e;
    static src_proof s;
    e.n = 0;
    e_u(&e, 0, 4);
    e_elem(&e, NULL);
    e_elem(&e, NULL);
    e_path(&e, &s.path[0], 2, 8);
    REQUIRE(e.n == 556);
    uint8_t m[600];
    memcpy(m, e.b, e.n);
    expect(m, 2, NULL, CUZK_ERR_FORMAT,
           "test proof truncated at byte 0 reading proof.tag (need 4 bytes, 2 left)");
    expect(m, 555, NULL, CUZK_ERR_FORMAT,
           "truncated at byte 548 reading proof.path[1].index (need 8 bytes, 7 left)");
    m[556] = 0;
    expect(m, 557, NULL, CUZK_ERR_FORMAT,
           "test proof: 1 trailing bytes after the proof (ends at byte 556 of 557)");
    m[0] = 3;
    expect(m, 556, NULL, CUZK_ERR_FORMAT,
           "test proof: proof has unknown MerkleProof tag 3 at byte 0 (0 Single, 1 Sub, 2 Top)");
    m[0] = 0;
    const uint32_t any = CUZK_FIL_BC_ANY32;
    cuzk_fil_bc_shape top = {CUZK_FIL_PROOF_TOP, {any, any, any}, {any, any, any}, "this size needs"};
    expect(m, 556, &top, CUZK_ERR_FORMAT,
           "proof is a Single MerkleProof (tag 0 at byte 0), this size needs Top");
    cuzk_fil_bc_shape single = {CUZK_FIL_PROOF_SINGLE, {3, any, any}, {8, any, any}, "-"};
    expect(m, 556, &single, CUZK_ERR_FORMAT, "proof.path.len = 2 at byte 68, expected 3");
    single.levels[0] = 2;
    single.arity[0] = 4;
    expect(m, 556, &single, CUZK_ERR_FORMAT, "proof.path[0].hashes.len = 7 at byte 76, expected 3");
    single.arity[0] = 8;
    expect(m, 556, &single, CUZK_OK, "");
    m[76] = 6;
    expect(m, 556, NULL, CUZK_ERR_FORMAT,
           "proof.path[0].hashes.len = 6 at byte 76: arity 7 is not supported");
    m[76] = 7;
    m[316] = 3;
    expect(m, 556, NULL, CUZK_ERR_FORMAT,
           "proof.path[1].hashes.len = 3 at byte 316 is inconsistent with level 0 (7)");
    m[316] = 7;
    m[308] = 8;
    expect(m, 556, NULL, CUZK_ERR_FORMAT, "proof.path[0].index = 8 at byte 308 is >= arity 8");
    m[308] = e.b[308];
    m[68] = 41;
    expect(m, 556, NULL, CUZK_ERR_FORMAT, "proof.path.len = 41 at byte 68 exceeds the limit 40");
    m[68] = 2;
    memset(m + 84 + 32, 0xff, 32); /* hash 1 of level 0 >= r */
    expect(m, 556, NULL, CUZK_ERR_ENC_NONCANONICAL,
           "test proof: proof.path[0].hashes[1] at byte 116 is not a canonical field element (>= r)");
    memset(m + 4, 0xff, 32);
    expect(m, 556, NULL, CUZK_ERR_ENC_NONCANONICAL, "proof.root at byte 4 is not a canonical");
    cuzk_fil_bc r; /* without the canonical rule the same bytes are read */
    char err[512] = "";
    start(&r, m, 556, err);
    r.canonical = false;
    CHECK(cuzk_fil_bc_merkle(&r, NULL, NULL) == CUZK_OK && cuzk_fil_bc_end(&r) == CUZK_OK);
}

/* Length prefixes: expected value, then the limit, then the bytes left
 * (n * min_size never computed: a count near 2^64 cannot overflow). */
static void count_expect(uint64_t v, uint64_t want, uint64_t max, int st, const char *msg)
{
    uint8_t b[8 + 16] = {0};
    cuzk_fil_bc_put_u64(b, v);
    cuzk_fil_bc r;
    char err[512] = "";
    cuzk_fil_bc_init(&r, "x", b, sizeof b, err, sizeof err);
    cuzk_fil_bc_push(&r, "a[%d]", 2);
    uint64_t n = 0;
    int got = cuzk_fil_bc_count(&r, &n, want, max, 8, ".len");
    if (got != st || !strstr(err, msg)) printf("  want %d '%s', got %d '%s'\n", st, msg, got, err);
    CHECK(got == st && strstr(err, msg) != NULL && n == v);
}

static void test_count(void)
{
    count_expect(2, CUZK_FIL_BC_ANY, 10, CUZK_OK, "");
    count_expect(2, 2, 10, CUZK_OK, "");
    count_expect(5, 4, 3, CUZK_ERR_FORMAT, "x: a[2].len = 5 at byte 0, expected 4");
    count_expect(1ull << 63, CUZK_FIL_BC_ANY, 10, CUZK_ERR_FORMAT,
                 "x: a[2].len = 9223372036854775808 at byte 0 exceeds the limit 10");
    count_expect(3, CUZK_FIL_BC_ANY, 10, CUZK_ERR_FORMAT,
                 "x: a[2].len = 3 at byte 0 is inconsistent with the 16 bytes left");
    count_expect(UINT64_MAX - 1, CUZK_FIL_BC_ANY, UINT64_MAX, CUZK_ERR_FORMAT, "is inconsistent with the 16");
    uint8_t b[3] = {1, 2, 3};
    cuzk_fil_bc r;
    char err[512] = "";
    uint32_t v32;
    cuzk_fil_bc_init(&r, "x", b, 3, err, sizeof err);
    CHECK(cuzk_fil_bc_u32(&r, &v32, "t") == CUZK_ERR_FORMAT &&
          !strcmp(err, "x truncated at byte 0 reading t (need 4 bytes, 3 left)"));
}

/* The field path: marks restore it; an overlong one is cut, never overrun. */
static void test_field_path(void)
{
    cuzk_fil_bc r;
    cuzk_fil_bc_init(&r, "x", NULL, 0, NULL, 0);
    size_t m0 = cuzk_fil_bc_push(&r, "a[%d]", 1), m1 = cuzk_fil_bc_push(&r, ".%s", "b");
    CHECK(m0 == 0 && m1 == 4 && !strcmp(r.field, "a[1].b"));
    cuzk_fil_bc_pop(&r, m1);
    CHECK(!strcmp(r.field, "a[1]"));
    char long_name[400];
    memset(long_name, 'z', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    cuzk_fil_bc_push(&r, "%s", long_name);
    CHECK(r.flen == sizeof r.field - 1 && strlen(r.field) == r.flen);
    cuzk_fil_bc_pop(&r, m0);
    CHECK(r.flen == 0 && r.field[0] == 0);
}

static const test_case tests[] = {
    {"round_trip", test_round_trip},
    {"merkle_errors", test_merkle_errors},
    {"count", test_count},
    {"field_path", test_field_path},
};

TEST_MAIN(tests)
