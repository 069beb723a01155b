/* Pre-compiled constraint evaluator (cuzk/pce.h).
 *
 * The reference is direct PROVE-mode synthesis (cs.c's own enforce path,
 * independent of the PCE file, its encoding and its mat-vec): for every
 * circuit that fits a test, WITNESS mode + cuzk_pce_evaluate must give the
 * same a, b, c, density, counts and assignments bit for bit.  The random
 * R1CS covers every coefficient class (zero, +-1, +-2^k up to 2^254,
 * random values) and duplicate terms that merge to zero.  Corrupt files
 * (a byte flipped in every region, truncation) and another circuit's file
 * must be refused; the evaluator must not read out of bounds for any of
 * them (run under the ASan build). */
#include <dirent.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/pce.h"
#include "cuzk/pool.h"
#include "cuzk/porep.h"
#include "cuzk/post.h"
#include "cuzk/snap.h"
#include "cuzk/status.h"
#include "harness.h"
#include "pce_util.h"
#include "post_util.h"
#include "r1cs/pce_internal.h"

static char tmpdir[256];

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static const char *tmp_path(const char *name)
{
    static char p[512];
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/test_pce.XXXXXX");
        if (!mkdtemp(tmpdir)) return NULL;
    }
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

static bool same_bits(const uint64_t *a, const uint64_t *b, size_t bits)
{
    if (!bits) return true;
    if (!a || !b) return false;
    for (size_t i = 0; i < bits / 64; i++)
        if (a[i] != b[i]) return false;
    uint64_t mask = bits % 64 ? ((uint64_t)1 << (bits % 64)) - 1 : ~(uint64_t)0;
    return bits % 64 == 0 || ((a[bits / 64] ^ b[bits / 64]) & mask) == 0;
}

/* The circuit in PROVE mode, and in WITNESS mode evaluated through the PCE
 * file at path: everything the prover reads must be identical. */
static void compare_with_direct(const char *path, const cuzk_pce_identity *id, cuzk_circuit_fn fn, void *ctx,
                                cuzk_par *par)
{
    char err[512] = "";
    cuzk_pce *p = NULL;
    int st = cuzk_pce_open(&p, path, id, err, sizeof err);
    if (st) fprintf(stderr, "  open: %s\n", err);
    REQUIRE(st == CUZK_OK);
    cuzk_cs *d = NULL, *w = NULL;
    REQUIRE(cuzk_cs_new(&d, CUZK_CS_PROVE, 0) == CUZK_OK);
    REQUIRE(cuzk_cs_synthesize(d, fn, ctx) == CUZK_OK);
    REQUIRE(cuzk_cs_new(&w, CUZK_CS_WITNESS, 0) == CUZK_OK);
    REQUIRE(cuzk_cs_synthesize(w, fn, ctx) == CUZK_OK);
    st = cuzk_pce_evaluate(p, w, par, err, sizeof err);
    if (st) fprintf(stderr, "  evaluate: %s\n", err);
    CHECK(st == CUZK_OK);
    cuzk_cs_counts kd, kw;
    cuzk_cs_get_counts(d, &kd);
    cuzk_cs_get_counts(w, &kw);
    CHECK(!memcmp(&kd, &kw, sizeof kd));
    CHECK(cuzk_cs_get_mode(w) == CUZK_CS_PROVE);
    for (int s = 0; s < 3; s++) {
        const cuzk_fr *a = cuzk_cs_eval(d, s), *b = cuzk_cs_eval(w, s);
        CHECK(a && b && !memcmp(a, b, kd.constraints * sizeof *a));
    }
    CHECK(!memcmp(cuzk_cs_input_assignment(d), cuzk_cs_input_assignment(w), kd.inputs * sizeof(cuzk_fr)));
    CHECK(kd.aux == 0 ||
          !memcmp(cuzk_cs_aux_assignment(d), cuzk_cs_aux_assignment(w), kd.aux * sizeof(cuzk_fr)));
    CHECK(same_bits(cuzk_cs_density_a_aux(d), cuzk_cs_density_a_aux(w), kd.aux));
    CHECK(same_bits(cuzk_cs_density_b_aux(d), cuzk_cs_density_b_aux(w), kd.aux));
    CHECK(same_bits(cuzk_cs_density_b_input(d), cuzk_cs_density_b_input(w), kd.inputs));
    /* the evaluations can be taken as from a PROVE-mode cs */
    cuzk_fr *ev[3];
    CHECK(cuzk_cs_take_evals(w, &ev[0], &ev[1], &ev[2]) == CUZK_OK);
    for (int s = 0; s < 3; s++)
        free(ev[s]);
    CHECK(cuzk_pce_check(p, par, err, sizeof err) == CUZK_OK);
    cuzk_cs_free(d);
    cuzk_cs_free(w);
    cuzk_pce_close(p);
}

static void extract_and_compare(const char *name, const cuzk_pce_identity *id, cuzk_circuit_fn fn, void *ctx,
                                cuzk_par *par)
{
    const char *path = tmp_path(name);
    REQUIRE(path);
    char err[512] = "";
    cuzk_pce_info info;
    int st = cuzk_pce_extract(path, id, fn, ctx, NULL, NULL, &info, err, sizeof err);
    if (st) fprintf(stderr, "  extract: %s\n", err);
    REQUIRE(st == CUZK_OK);
    printf("  %s: %zu constraints, nnz %zu/%zu/%zu, dict %zu, %llu bytes (%.2f per nonzero)\n", name,
           info.constraints, info.nnz[0], info.nnz[1], info.nnz[2], info.dict,
           (unsigned long long)info.file_bytes,
           (double)info.file_bytes / (double)(info.nnz[0] + info.nnz[1] + info.nnz[2]));
    /* the R1CS digest, recomputed without a file, is the one recorded */
    uint8_t d[32];
    uint64_t t0 = now_ns();
    st = cuzk_pce_digest(d, fn, ctx, NULL, NULL, err, sizeof err);
    printf("  %s: R1CS digest recomputed in %.1f ms\n", name, (double)(now_ns() - t0) / 1e6);
    CHECK(st == CUZK_OK && !memcmp(d, info.r1cs_digest, 32));
    cuzk_pce *p = NULL;
    CHECK(cuzk_pce_open_digest(&p, path, id, d, err, sizeof err) == CUZK_OK);
    cuzk_pce_close(p);
    compare_with_direct(path, id, fn, ctx, par);
    unlink(path);
}

static void test_chain(void)
{
    cuzk_chain_ctx c = {.n = 3000};
    cuzk_fr_from_u64(&c.x0, 3);
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_OTHER, .id = "chain-3000"};
    extract_and_compare("chain.pce", &id, cuzk_chain_circuit, &c, NULL);
}

/* ---- random R1CS: every coefficient class ------------------------------------ */

typedef struct {
    uint64_t seed;
    size_t n_cons, n_aux, n_inp;
} rnd_ctx;

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void rnd_coeff(cuzk_fr *c, uint64_t *s)
{
    unsigned k = (unsigned)(xs(s) % 255);
    switch (xs(s) % 6) {
    case 0:
        *c = CUZK_FR_ZERO;
        break;
    case 1:
        *c = CUZK_FR_ONE;
        break;
    case 2:
        cuzk_fr_neg(c, &CUZK_FR_ONE);
        break;
    case 3:
    case 4: { /* +-2^k, k <= 254 */
        uint64_t l[4] = {0, 0, 0, 0};
        l[k / 64] = (uint64_t)1 << (k % 64);
        CHECK(cuzk_fr_from_limbs(c, l) == CUZK_OK);
        if (xs(s) & 1) cuzk_fr_neg(c, c);
        break;
    }
    default: { /* random value, a few of them repeated */
        uint64_t l[4] = {xs(s) % 8, xs(s) & 1, 0, xs(s) >> 4};
        if (xs(s) & 1) l[0] = xs(s);
        CHECK(cuzk_fr_from_limbs(c, l) == CUZK_OK);
    }
    }
}

static int rnd_circuit(cuzk_cs *cs, void *vctx)
{
    const rnd_ctx *r = vctx;
    uint64_t s = r->seed | 1, vs = r->seed * 3 + 1;
    bool values = cuzk_cs_needs_values(cs);
    cuzk_var vars[512];
    size_t nv = 0;
    for (size_t i = 0; i < r->n_inp + r->n_aux && nv < 512; i++) {
        cuzk_fr v;
        uint64_t l[4] = {xs(&vs), xs(&vs), xs(&vs), xs(&vs) >> 3};
        if (cuzk_fr_from_limbs(&v, l)) return CUZK_ERR_ARG;
        int rc = i < r->n_inp ? cuzk_cs_alloc_input(cs, &vars[nv], values ? &v : NULL)
                              : cuzk_cs_alloc(cs, &vars[nv], values ? &v : NULL);
        if (rc) return rc;
        nv++;
    }
    vars[nv++] = CUZK_ONE;
    cuzk_term t[3][40];
    for (size_t c = 0; c < r->n_cons; c++) {
        size_t n[3];
        for (int k = 0; k < 3; k++) {
            n[k] = xs(&s) % (c % 97 == 0 ? 40 : 6);
            for (size_t i = 0; i < n[k]; i++) {
                t[k][i].var = vars[xs(&s) % nv];
                rnd_coeff(&t[k][i].coeff, &s);
            }
            if (n[k] >= 2 && xs(&s) % 4 == 0) { /* duplicate that merges to zero */
                t[k][n[k] - 1].var = t[k][0].var;
                cuzk_fr_neg(&t[k][n[k] - 1].coeff, &t[k][0].coeff);
            }
        }
        int rc = cuzk_cs_enforce(cs, t[0], n[0], t[1], n[1], t[2], n[2]);
        if (rc) return rc;
    }
    return CUZK_OK;
}

static void test_random_r1cs(void)
{
    cuzk_pool *pool = NULL;
    REQUIRE(cuzk_pool_create(&pool, 3) == CUZK_OK);
    for (int it = 0; it < 3 * test_iterations; it++) {
        rnd_ctx r = {test_rand64(), 20000 + (size_t)it * 777, 200 + (size_t)it, 1 + (size_t)it};
        cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_OTHER, .id = "random"};
        extract_and_compare("random.pce", &id, rnd_circuit, &r, it & 1 ? cuzk_pool_par(pool) : NULL);
    }
    cuzk_pool_destroy(pool);
}

/* ---- Filecoin circuits at 2 KiB ----------------------------------------------- */

static void test_porep_2k(void)
{
    const cuzk_fil_seal_info *info;
    REQUIRE(cuzk_fil_seal_lookup(&info, 5) == CUZK_OK); /* 2 KiB V1_1 */
    cuzk_porep_random_witness rw = {test_rand64(), {0}};
    REQUIRE(cuzk_porep_shape_for(&rw.shape, info) == CUZK_OK);
    cuzk_porep_circuit_ctx ctx;
    cuzk_porep_random_circuit(&ctx, &rw);
    cuzk_pool *pool = NULL;
    REQUIRE(cuzk_pool_create(&pool, 2) == CUZK_OK);
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_POREP, .registered_proof = 5, .id = "porep-2k"};
    extract_and_compare("porep.pce", &id, cuzk_porep_circuit, &ctx, cuzk_pool_par(pool));
    cuzk_pool_destroy(pool);
}

static void post_case(uint64_t proof)
{
    const cuzk_fil_post_info *p;
    REQUIRE(cuzk_fil_post_lookup(&p, proof) == 0);
    pt_sector s;
    pt_sector_make(&s, 1 + (test_rand64() & 0xffff), 2048);
    uint8_t rnd[32], pid[32];
    pt_rand_dom(rnd);
    cuzk_post_prover_id(pid, 1000);
    size_t len;
    uint8_t *v = pt_vanilla(&len, &s, p, rnd, 0);
    const uint8_t *vs[1] = {v};
    cuzk_post_job *j = NULL;
    char err[256] = "";
    int st = cuzk_post_job_new(&j, proof, vs, &len, 1, rnd, pid, 0, err, sizeof err);
    if (st) fprintf(stderr, "  post job: %s\n", err);
    CHECK(st == 0);
    if (!st) {
        cuzk_circuit_fn fn;
        void *ctx;
        cuzk_post_job_circuit(j, &fn, &ctx);
        cuzk_pce_identity id = {.kind = p->winning ? CUZK_PCE_KIND_WINNING_POST : CUZK_PCE_KIND_WINDOW_POST,
                                .registered_proof = proof};
        snprintf(id.id, sizeof id.id, "%s", p->name);
        extract_and_compare("post.pce", &id, fn, ctx, NULL);
    }
    cuzk_post_job_free(j);
    free(v);
    cuzk_fil_tree_free(s.tree);
}

static void test_post_2k(void)
{
    post_case(0); /* WinningPoSt 2 KiB */
    post_case(5); /* WindowPoSt 2 KiB */
}

static void test_snap_2k(void)
{
    cuzk_snap_random_witness rw = {test_rand64(), {0}};
    REQUIRE(cuzk_snap_shape_for(&rw.shape, 2048, true) == CUZK_OK);
    cuzk_snap_circuit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.shape = rw.shape;
    ctx.witness = cuzk_snap_random_witness_fn;
    ctx.wctx = &rw;
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_SNAP, .id = "snap-2k"};
    extract_and_compare("snap.pce", &id, cuzk_snap_circuit, &ctx, NULL);
}

/* ---- corrupt, stale and malformed files ------------------------------------------ */

/* A small random-R1CS file at tmp_path(name), copied to path[512]; its bytes. */
static uint8_t *small_file(char path[512], const char *name, size_t *len, rnd_ctx *r, cuzk_pce_identity *id)
{
    char err[512];
    const char *p = tmp_path(name);
    if (!p) return NULL;
    snprintf(path, 512, "%s", p);
    *r = (rnd_ctx){test_rand64(), 3000, 150, 2};
    *id = (cuzk_pce_identity){.kind = CUZK_PCE_KIND_OTHER, .id = "small"};
    if (cuzk_pce_extract(path, id, rnd_circuit, r, NULL, NULL, NULL, err, sizeof err)) return NULL;
    return test_read_file(path, len);
}


static int open_status(const char *path, const cuzk_pce_identity *id)
{
    cuzk_pce *p = NULL;
    char err[512];
    int st = cuzk_pce_open(&p, path, id, err, sizeof err);
    CHECK((st == CUZK_OK) == (p != NULL));
    cuzk_pce_close(p);
    return st;
}

static void test_corrupt(void)
{
    char good[512];
    size_t len;
    rnd_ctx r;
    cuzk_pce_identity id;
    uint8_t *b = small_file(good, "corrupt.pce", &len, &r, &id);
    REQUIRE(b);
    REQUIRE(open_status(good, &id) == CUZK_OK);
    cuzk_pce *p = NULL;
    char err[512];
    REQUIRE(cuzk_pce_open(&p, good, &id, err, sizeof err) == CUZK_OK);
    cuzk_pce_info in;
    cuzk_pce_get_info(p, &in);
    cuzk_pce_close(p);
    REQUIRE(in.dict > 0);
    pce_layout l;
    REQUIRE(cuzk_pce_layout_make(&l, in.constraints, in.inputs, in.aux, in.dict, in.record_bytes));
    /* one flipped byte in every region: header fields, identity, checksums,
     * records, checkpoints, dictionary, density */
    size_t at[] = {0,
                   PCE_H_VERSION,
                   PCE_H_KIND,
                   PCE_H_CONSTRAINTS,
                   PCE_H_NNZ + 8,
                   PCE_H_DICT,
                   PCE_H_REC_LEN,
                   PCE_H_FILE_BYTES,
                   PCE_H_DENSITY,
                   PCE_H_ID + 2,
                   PCE_H_BSHA + 5,
                   PCE_H_R1CS + 7,
                   PCE_H_HSHA + 31,
                   l.rec_off,
                   l.rec_off + l.rec_len / 2,
                   l.ckpt_off + 8,
                   l.dict_off + 3,
                   l.dens_off,
                   len - 1};
    char bad[600];
    snprintf(bad, sizeof bad, "%s.bad", good);
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        REQUIRE(at[i] < len);
        b[at[i]] ^= 0x10;
        pce_test_write(bad, b, len);
        int st = open_status(bad, &id);
        if (st == CUZK_OK) fprintf(stderr, "  flip at %zu not detected\n", at[i]);
        CHECK(st == CUZK_ERR_FORMAT || (at[i] == PCE_H_VERSION && st == CUZK_ERR_CHANGED));
        b[at[i]] ^= 0x10;
    }
    /* truncated at every region boundary, and one byte too long */
    size_t cut[] = {0, 100, PCE_HEADER_BYTES, l.rec_off + 7, l.ckpt_off, l.dict_off, l.dens_off, len - 1};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        pce_test_write(bad, b, cut[i]);
        CHECK(open_status(bad, &id) == CUZK_ERR_FORMAT);
    }
    uint8_t *longer = malloc(len + 1);
    REQUIRE(longer);
    memcpy(longer, b, len);
    longer[len] = 0;
    pce_test_write(bad, longer, len + 1);
    CHECK(open_status(bad, &id) == CUZK_ERR_FORMAT);
    free(longer);
    CHECK(open_status(tmp_path("missing.pce"), &id) == CUZK_ERR_IO);
    /* another circuit's file */
    cuzk_pce_identity other = id;
    snprintf(other.id, sizeof other.id, "other");
    CHECK(open_status(good, &other) == CUZK_ERR_CHANGED);
    other = id;
    other.kind = CUZK_PCE_KIND_POREP;
    CHECK(open_status(good, &other) == CUZK_ERR_CHANGED);
    other = id;
    other.registered_proof = 3;
    CHECK(open_status(good, &other) == CUZK_ERR_CHANGED);
    CHECK(open_status(good, NULL) == CUZK_OK);
    /* a cs of another circuit is refused by evaluate */
    REQUIRE(cuzk_pce_open(&p, good, &id, err, sizeof err) == CUZK_OK);
    rnd_ctx r2 = r;
    r2.n_cons++;
    cuzk_cs *cs = NULL;
    REQUIRE(cuzk_cs_new(&cs, CUZK_CS_WITNESS, 0) == CUZK_OK);
    REQUIRE(cuzk_cs_synthesize(cs, rnd_circuit, &r2) == CUZK_OK);
    CHECK(cuzk_pce_evaluate(p, cs, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_cs_get_mode(cs) == CUZK_CS_WITNESS && !cuzk_cs_eval(cs, 0));
    cuzk_cs_free(cs);
    cuzk_pce_close(p);
    unlink(bad);
    unlink(good);
    free(b);
}

/* Corrupt the records or checkpoints and re-sign the file (valid checksums):
 * open, check and evaluate must fail cleanly or succeed, never read out of
 * bounds (ASan build); two targeted corruptions must be reported. */

static int resigned_status(const char *path, const uint8_t *b, size_t len, const cuzk_pce_identity *id,
                           const rnd_ctx *r)
{
    pce_test_write(path, b, len);
    cuzk_pce *p = NULL;
    char err[512];
    int st = cuzk_pce_open(&p, path, id, err, sizeof err);
    if (st) return st;
    st = cuzk_pce_check(p, NULL, err, sizeof err);
    cuzk_cs *cs = NULL;
    if (cuzk_cs_new(&cs, CUZK_CS_WITNESS, 0) == CUZK_OK &&
        cuzk_cs_synthesize(cs, rnd_circuit, (void *)r) == 0) {
        int st2 = cuzk_pce_evaluate(p, cs, NULL, err, sizeof err);
        CHECK((st == CUZK_OK) == (st2 == CUZK_OK));
    }
    cuzk_cs_free(cs);
    cuzk_pce_close(p);
    return st;
}

static void test_malformed_signed(void)
{
    char good[512];
    size_t len;
    rnd_ctx r;
    cuzk_pce_identity id;
    uint8_t *b = small_file(good, "signed.pce", &len, &r, &id);
    REQUIRE(b);
    uint64_t rec_len = pce_get64(b + PCE_H_REC_LEN);
    uint8_t *m = malloc(len);
    REQUIRE(m);
    /* the last record is input constraint ONE...: A = {input n-1: +1} = 03 bytes
     * of lengths, a 4-byte column and the code 1 */
    size_t last = PCE_HEADER_BYTES + rec_len - 8;
    REQUIRE(b[last] == 1 && b[last + 1] == 0 && b[last + 2] == 0 && b[last + 7] == 1);
    memcpy(m, b, len);
    pce_put32(m + last + 3, 0x7fffffffu);
    pce_test_resign(m, len);
    CHECK(resigned_status(good, m, len, &id, &r) == CUZK_ERR_FORMAT);
    memcpy(m, b, len);
    m[last + 7] = 0x80; /* a varint that runs past the chunk */
    pce_test_resign(m, len);
    CHECK(resigned_status(good, m, len, &id, &r) == CUZK_ERR_FORMAT);
    memcpy(m, b, len);
    m[last] = 0x7f; /* more entries than bytes */
    pce_test_resign(m, len);
    CHECK(resigned_status(good, m, len, &id, &r) == CUZK_ERR_FORMAT);
    size_t detected = 0, n = 300 * (size_t)test_iterations;
    for (size_t i = 0; i < n; i++) {
        memcpy(m, b, len);
        size_t at = PCE_HEADER_BYTES + test_rand64() % (len - PCE_HEADER_BYTES);
        m[at] ^= (uint8_t)(1u << (test_rand64() % 8));
        pce_test_resign(m, len);
        detected += resigned_status(good, m, len, &id, &r) != CUZK_OK;
    }
    printf("  %zu of %zu re-signed single-bit corruptions detected structurally\n", detected, n);
    unlink(good);
    free(m);
    free(b);
}


/* ---- trust: R1CS digest, stale versions, links ---------------------------------- */

static int open_digest_status(const char *path, const cuzk_pce_identity *id, const uint8_t d[32], char *err)
{
    cuzk_pce *p = NULL;
    int st = cuzk_pce_open_digest(&p, path, id, d, err, 512);
    cuzk_pce_close(p);
    return st;
}

/* A file of other matrices -- one coefficient changed, every checksum and
 * its own R1CS digest recomputed, so it is well formed -- is refused as
 * stale against this build's digest; a recorded digest that disagrees with
 * the contents is corrupt; a version 1 file is stale, not corrupt. */
static void test_digest(void)
{
    char good[512], bad[600], err[512] = "";
    size_t len;
    rnd_ctx r;
    cuzk_pce_identity id;
    uint8_t *b = small_file(good, "digest.pce", &len, &r, &id);
    REQUIRE(b);
    uint8_t ours[32], other[32];
    REQUIRE(cuzk_pce_digest(ours, rnd_circuit, &r, NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(!memcmp(ours, b + PCE_H_R1CS, 32));
    rnd_ctx r2 = r;
    r2.seed ^= 2;
    REQUIRE(cuzk_pce_digest(other, rnd_circuit, &r2, NULL, NULL, err, sizeof err) == CUZK_OK);
    CHECK(memcmp(ours, other, 32) != 0);
    CHECK(open_digest_status(good, &id, ours, err) == CUZK_OK);
    CHECK(open_digest_status(good, &id, other, err) == CUZK_ERR_CHANGED && strstr(err, "other matrices"));
    snprintf(bad, sizeof bad, "%s.bad", good);
    /* the last record (input constraint: A = {input: +1}) gets +2 instead */
    uint8_t *m = malloc(len);
    REQUIRE(m);
    memcpy(m, b, len);
    size_t last = PCE_HEADER_BYTES + pce_get64(b + PCE_H_REC_LEN) - 8;
    REQUIRE(m[last + 7] == 1);
    m[last + 7] = 3;
    pce_test_resign(m, len);
    pce_test_write(bad, m, len);
    CHECK(open_status(bad, &id) == CUZK_OK); /* well formed */
    CHECK(open_digest_status(bad, &id, ours, err) == CUZK_ERR_CHANGED && strstr(err, "other matrices"));
    /* the recorded digest not the contents' (header re-signed only) */
    memcpy(m, b, len);
    m[PCE_H_R1CS] ^= 1;
    unsigned n = 32;
    CHECK(EVP_Digest(m, PCE_H_HSHA, m + PCE_H_HSHA, &n, EVP_sha256(), NULL) == 1);
    pce_test_write(bad, m, len);
    CHECK(open_digest_status(bad, &id, NULL, err) == CUZK_ERR_FORMAT && strstr(err, "R1CS digest"));
    /* a version 1 file: stale */
    memcpy(m, b, len);
    pce_put32(m + PCE_H_VERSION, 1);
    pce_test_resign(m, len);
    pce_test_write(bad, m, len);
    CHECK(open_digest_status(bad, &id, ours, err) == CUZK_ERR_CHANGED && strstr(err, "version 1"));
    unlink(bad);
    unlink(good);
    free(m);
    free(b);
}

/* Opening never follows a link nor reads a non-file; extracting over a
 * link replaces the link, never writes through it, and leaves no
 * temporary file behind. */
static void test_links(void)
{
    char good[512], link[600], victim[600], fifo[600], err[512];
    size_t len;
    rnd_ctx r;
    cuzk_pce_identity id;
    uint8_t *b = small_file(good, "links.pce", &len, &r, &id);
    REQUIRE(b);
    snprintf(link, sizeof link, "%s.link", good);
    snprintf(victim, sizeof victim, "%s.victim", good);
    snprintf(fifo, sizeof fifo, "%s.fifo", good);
    REQUIRE(symlink(good, link) == 0);
    cuzk_pce *p = NULL;
    CHECK(cuzk_pce_open(&p, link, &id, err, sizeof err) == CUZK_ERR_IO && strstr(err, "symbolic link"));
    REQUIRE(mkfifo(fifo, 0600) == 0);
    CHECK(cuzk_pce_open(&p, fifo, &id, err, sizeof err) == CUZK_ERR_IO && strstr(err, "not a regular file"));
    pce_test_write(victim, (const uint8_t *)"precious", 8);
    unlink(link);
    REQUIRE(symlink(victim, link) == 0);
    CHECK(cuzk_pce_extract(link, &id, rnd_circuit, &r, NULL, NULL, NULL, err, sizeof err) == CUZK_OK);
    size_t vlen = 0;
    uint8_t *v = test_read_file(victim, &vlen);
    CHECK(v && vlen == 8 && !memcmp(v, "precious", 8));
    free(v);
    struct stat sb;
    CHECK(lstat(link, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & 0777) == 0644);
    CHECK(open_status(link, &id) == CUZK_OK);
    DIR *d = opendir(tmpdir);
    struct dirent *de;
    while (d && (de = readdir(d)))
        CHECK(!strstr(de->d_name, ".tmp."));
    if (d) closedir(d);
    unlink(link);
    unlink(victim);
    unlink(fifo);
    unlink(good);
    free(b);
}

/* ---- the PCE directory rule (cuzk_pce_dir_check) --------------------------------- */

static int dir_status(const char *dir, const char *want)
{
    char err[600] = "";
    int st = cuzk_pce_dir_check(dir, err, sizeof err);
    if (want && !strstr(err, want)) fprintf(stderr, "  %s: \"%s\" lacks \"%s\"\n", dir, err, want);
    if (want) CHECK(strstr(err, want) != NULL);
    return st;
}

static void test_dir_rule(void)
{
    char top[300], mid[350], sub[400], deep[500], file[400], link[400], open_dir[400];
    snprintf(top, sizeof top, "/tmp/test_pce_dir.XXXXXX");
    REQUIRE(mkdtemp(top));
    snprintf(mid, sizeof mid, "%s/m", top);
    snprintf(sub, sizeof sub, "%s/m/sub", top);
    snprintf(deep, sizeof deep, "%s/m/sub/deep", top);
    snprintf(file, sizeof file, "%s/file", top);
    snprintf(link, sizeof link, "%s/link", top);
    snprintf(open_dir, sizeof open_dir, "%s/open", top);
    REQUIRE(mkdir(mid, 0755) == 0 && mkdir(sub, 0755) == 0);
    CHECK(dir_status(top, NULL) == CUZK_OK); /* ours, 0700, under sticky /tmp */
    CHECK(dir_status("/tmp", "writable by others") == CUZK_ERR_ARG);
    CHECK(dir_status(deep, NULL) == CUZK_OK); /* missing: judged by its ancestors */
    chmod(sub, 0775);
    CHECK(dir_status(sub, "writable by its group") == CUZK_ERR_ARG);
    CHECK(dir_status(deep, "writable by its group") == CUZK_ERR_ARG);
    chmod(sub, 0755);
    chmod(mid, 01777); /* a sticky parent over a closed directory of ours: accepted */
    CHECK(dir_status(sub, NULL) == CUZK_OK);
    CHECK(dir_status(mid, "writable by others") == CUZK_ERR_ARG);
    chmod(mid, 0777); /* not sticky: sub could be renamed away and replaced */
    CHECK(dir_status(sub, "without the sticky bit") == CUZK_ERR_ARG);
    chmod(mid, 01777);
    chmod(sub, 01777); /* two writable in a row: sub could be replaced in mid */
    REQUIRE(mkdir(deep, 0755) == 0);
    CHECK(dir_status(deep, "above another writable") == CUZK_ERR_ARG);
    chmod(sub, 0755);
    chmod(mid, 0755);
    pce_test_write(file, (const uint8_t *)"x", 1);
    CHECK(dir_status(file, "not a directory") == CUZK_ERR_ARG);
    REQUIRE(mkdir(open_dir, 0700) == 0);
    chmod(open_dir, 0777);
    REQUIRE(symlink(open_dir, link) == 0); /* judged where it leads */
    CHECK(dir_status(link, "writable by others") == CUZK_ERR_ARG);
    if (geteuid() == 0) { /* another user's directory */
        CHECK(chown(sub, 65534, 65534) == 0);
        CHECK(dir_status(sub, "owned by uid 65534") == CUZK_ERR_ARG);
    } else {
        printf("  not root: the other-owner case is not run\n");
    }
    unlink(link);
    unlink(file);
    rmdir(open_dir);
    rmdir(deep);
    rmdir(sub);
    rmdir(mid);
    rmdir(top);
}

int main(int argc, char **argv)
{
    static const test_case tests[] = {
        {"chain", test_chain},       {"random_r1cs", test_random_r1cs},
        {"corrupt", test_corrupt},   {"malformed_signed", test_malformed_signed},
        {"porep_2k", test_porep_2k}, {"post_2k", test_post_2k},
        {"snap_2k", test_snap_2k},   {"digest", test_digest},
        {"links", test_links},       {"dir_rule", test_dir_rule},
    };
    int rc = test_main(argc, argv, tests, sizeof tests / sizeof tests[0]);
    if (tmpdir[0]) rmdir(tmpdir);
    return rc;
}
