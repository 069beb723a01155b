/* Parameter and verifying-key files: write/read round trips through the
 * three sources (memory, stream, mmap), every validation rule on corrupted
 * files (each source must report the same status and message), shape
 * checks, trust flags, parallel validation, the test-parameter marker, and
 * the map guard (a mapped file truncated under the reader fails the read
 * with CUZK_ERR_CHANGED; an unguarded fault keeps its default action).
 *
 * References: byte-level file layout computed here from the format
 * description (filecoin-formats.md section 3), not from the writer. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/pool.h"
#include "groth16_util.h"

#ifndef REQUIRE /* stop the test at the first failed precondition */
#define REQUIRE(cond)                                                                                        \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            test_fail(__FILE__, __LINE__, #cond);                                                            \
            return;                                                                                          \
        }                                                                                                    \
    } while (0)
#endif

/* ---- a shared fixture --------------------------------------------------------- */

static g16t_circuit fx_c;
static cuzk_groth16_params *fx_p;
static uint8_t *fx_buf; /* the written .params */
static size_t fx_len;

static bool fixture(void)
{
    if (fx_p) return true;
    cuzk_fr x0 = fr_u64(5);
    if (g16t_chain(&fx_c, 40, &x0) != CUZK_OK) return false;
    fx_p = g16t_setup(&fx_c, 42);
    if (!fx_p) return false;
    FILE *f = open_memstream((char **)&fx_buf, &fx_len);
    CHECK(cuzk_groth16_params_write(f, fx_p) == CUZK_OK);
    fclose(f);
    return true;
}

/* Byte offset of the count word of vector v (0..4), or of vk.ic for v = -1. */
static size_t vec_off(int v)
{
    size_t off = CUZK_G16_VK_FIXED_BYTES;
    if (v < 0) return off;
    off += 4 + 96 * cuzk_groth16_params_vk(fx_p)->n_ic;
    for (int k = 0; k < v; k++)
        off += 4 + (k == 4 ? 192 : 96) * cuzk_groth16_params_count(fx_p, k);
    return off;
}
static size_t point_off(int v, size_t i)
{
    return vec_off(v) + 4 + (v == 4 ? 192 : 96) * i;
}

static char *tmpfile_with(const uint8_t *b, size_t n)
{
    static char path[64];
    strcpy(path, "/tmp/cuzk_test_params_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return NULL;
    CHECK(write(fd, b, n) == (ssize_t)n);
    close(fd);
    return path;
}

/* Load b through all three sources; each must return want and (when
 * failing) a message containing sub.  Returns the status. */
static int load3(const uint8_t *b, size_t n, unsigned flags, const cuzk_groth16_shape *sh, int want,
                 const char *sub, cuzk_par *par)
{
    char e[3][CUZK_G16_ERR_LEN] = {"", "", ""};
    int st[3];
    cuzk_groth16_params *p = NULL;
    cuzk_groth16_load_opts o = {.flags = flags, .shape = sh, .par = par, .err_len = CUZK_G16_ERR_LEN};
    o.err = e[0];
    st[0] = cuzk_groth16_params_decode(&p, b, n, &o);
    cuzk_groth16_params_free(p);
    FILE *f = fmemopen((void *)b, n ? n : 1, "rb");
    if (!n) fgetc(f); /* fmemopen needs size >= 1: consume it for the empty case */
    o.err = e[1];
    st[1] = cuzk_groth16_params_read(&p, f, &o);
    fclose(f);
    cuzk_groth16_params_free(p);
    char *path = tmpfile_with(b, n);
    o.err = e[2];
    o.flags |= CUZK_G16_LOAD_MMAP;
    st[2] = path ? cuzk_groth16_params_load(&p, path, &o) : CUZK_ERR_IO;
    cuzk_groth16_params_free(p);
    if (path) remove(path);
    for (int k = 0; k < 3; k++) {
        if (n == 0 && k == 2) continue; /* mmap of an empty file: its own message */
        /* mapped + NO_VALIDATE checks nothing at load (points decode on use) */
        if (k == 2 && (flags & CUZK_G16_LOAD_NO_VALIDATE)) continue;
        if (st[k] != want || (sub && !strstr(e[k], sub))) {
            fprintf(stderr, "  source %d: status %d (want %d), message '%s' (want '%s')\n", k, st[k], want,
                    e[k], sub ? sub : "");
            CHECK(0);
        }
    }
    return st[0];
}

static uint8_t *copy_fx(void)
{
    uint8_t *b = malloc(fx_len);
    memcpy(b, fx_buf, fx_len);
    return b;
}

/* A point on E(Fp) outside the prime-order subgroup. */
static void g1_off_subgroup(cuzk_g1_affine *p)
{
    for (uint64_t x = 1;; x++) {
        cuzk_fp rhs, four;
        cuzk_fp_from_u64(&p->x, x);
        cuzk_fp_from_u64(&four, 4);
        cuzk_fp_sqr(&rhs, &p->x);
        cuzk_fp_mul(&rhs, &rhs, &p->x);
        cuzk_fp_add(&rhs, &rhs, &four);
        if (cuzk_fp_sqrt(&p->y, &rhs) && !cuzk_g1_affine_in_subgroup(p)) return;
    }
}

static void g2_off_subgroup(cuzk_g2_affine *p)
{
    for (uint64_t x = 1;; x++) {
        cuzk_fp2 rhs, b;
        cuzk_fp_from_u64(&p->x.c0, x);
        p->x.c1 = CUZK_FP_ONE;
        cuzk_fp_from_u64(&b.c0, 4);
        b.c1 = b.c0;
        cuzk_fp2_sqr(&rhs, &p->x);
        cuzk_fp2_mul(&rhs, &rhs, &p->x);
        cuzk_fp2_add(&rhs, &rhs, &b);
        if (cuzk_fp2_sqrt(&p->y, &rhs) && cuzk_g2_affine_is_on_curve(p) && !cuzk_g2_affine_in_subgroup(p))
            return;
    }
}

/* ---- tests --------------------------------------------------------------------- */

static void test_roundtrip(void)
{
    REQUIRE(fixture());
    CHECK(fx_len == point_off(4, cuzk_groth16_params_count(fx_p, CUZK_G16_B_G2)));
    cuzk_pool *pool = NULL;
    CHECK(cuzk_pool_create(&pool, 2) == CUZK_OK);
    char *path = tmpfile_with(fx_buf, fx_len);
    for (int mode = 0; mode < 3 && path; mode++) {
        cuzk_groth16_params *p = NULL;
        cuzk_groth16_load_opts o = {.shape = &fx_c.shape, .par = pool ? cuzk_pool_par(pool) : NULL};
        if (mode == 0) CHECK(cuzk_groth16_params_decode(&p, fx_buf, fx_len, &o) == CUZK_OK);
        if (mode == 1) CHECK(cuzk_groth16_params_load(&p, path, &o) == CUZK_OK);
        o.flags = CUZK_G16_LOAD_MMAP;
        if (mode == 2) CHECK(cuzk_groth16_params_load(&p, path, &o) == CUZK_OK);
        if (!p) continue;
        CHECK(cuzk_groth16_params_is_mapped(p) == (mode == 2));
        CHECK(!cuzk_groth16_params_is_test(p)); /* no sidecar */
        const cuzk_groth16_vk *a = cuzk_groth16_params_vk(fx_p), *b = cuzk_groth16_params_vk(p);
        CHECK(a->n_ic == b->n_ic && cuzk_g1_affine_eq(&a->alpha_g1, &b->alpha_g1) &&
              cuzk_g2_affine_eq(&a->delta_g2, &b->delta_g2) && cuzk_g1_affine_eq(&a->ic[1], &b->ic[1]));
        for (int v = 0; v < 5; v++) {
            size_t n = cuzk_groth16_params_count(p, v);
            CHECK(n == cuzk_groth16_params_count(fx_p, v));
            size_t i = test_rand64() % n;
            if (v < 4) {
                cuzk_g1_affine x, y;
                CHECK(cuzk_groth16_params_g1(&x, p, v, i, 1) == CUZK_OK);
                CHECK(cuzk_groth16_params_g1(&y, fx_p, v, i, 1) == CUZK_OK);
                CHECK(cuzk_g1_affine_eq(&x, &y));
                CHECK(cuzk_groth16_params_g1(&x, p, v, n, 1) == CUZK_ERR_ARG);
            } else {
                cuzk_g2_affine x, y;
                CHECK(cuzk_groth16_params_g2(&x, p, i, 1) == CUZK_OK);
                CHECK(cuzk_groth16_params_g2(&y, fx_p, i, 1) == CUZK_OK);
                CHECK(cuzk_g2_affine_eq(&x, &y));
            }
        }
        /* writing again gives the same bytes */
        uint8_t *w = NULL;
        size_t wl = 0;
        FILE *f = open_memstream((char **)&w, &wl);
        CHECK(cuzk_groth16_params_write(f, p) == CUZK_OK);
        fclose(f);
        CHECK(wl == fx_len && memcmp(w, fx_buf, wl) == 0);
        free(w);
        cuzk_groth16_params_free(p);
    }
    /* the .vk is the head of the .params */
    uint8_t *vb = NULL;
    size_t vl = 0;
    FILE *f = open_memstream((char **)&vb, &vl);
    CHECK(cuzk_groth16_vk_write(f, cuzk_groth16_params_vk(fx_p)) == CUZK_OK);
    fclose(f);
    CHECK(vl == vec_off(0) && memcmp(vb, fx_buf, vl) == 0);
    cuzk_groth16_vk *vk = NULL;
    CHECK(cuzk_groth16_vk_decode(&vk, vb, vl, NULL) == CUZK_OK);
    CHECK(vk && vk->n_ic == 2);
    cuzk_groth16_vk_free(vk);
    CHECK(cuzk_groth16_vk_decode(&vk, vb, vl - 1, NULL) == CUZK_ERR_FORMAT);
    CHECK(cuzk_groth16_vk_decode(&vk, fx_buf, vl + 1, NULL) == CUZK_ERR_FORMAT); /* trailing */
    /* a .params read as a .vk stream is fine (the head) */
    if (path) {
        CHECK(cuzk_groth16_vk_load(&vk, path, NULL) == CUZK_OK);
        cuzk_groth16_vk_free(vk);
        remove(path);
    }
    free(vb);
    cuzk_pool_destroy(pool);
}

static void test_truncated(void)
{
    REQUIRE(fixture());
    size_t cuts[] = {0,
                     1,
                     95,
                     96,
                     863,
                     864,
                     866,
                     vec_off(0) - 1,
                     vec_off(0),
                     vec_off(0) + 2,
                     point_off(0, 5) + 17,
                     vec_off(3),
                     point_off(4, 0) + 191,
                     fx_len - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++)
        load3(fx_buf, cuts[k], 0, NULL, CUZK_ERR_FORMAT, cuts[k] ? "truncated" : NULL, NULL);
    for (int it = 0; it < 4 * test_iterations; it++)
        load3(fx_buf, test_rand64() % fx_len, CUZK_G16_LOAD_NO_SUBGROUP, NULL, CUZK_ERR_FORMAT, NULL, NULL);
    uint8_t *b = malloc(fx_len + 1);
    memcpy(b, fx_buf, fx_len);
    b[fx_len] = 0;
    load3(b, fx_len + 1, 0, NULL, CUZK_ERR_FORMAT, "trailing", NULL);
    free(b);
}

static void put_u32(uint8_t *at, uint32_t v)
{
    at[0] = (uint8_t)(v >> 24), at[1] = (uint8_t)(v >> 16), at[2] = (uint8_t)(v >> 8), at[3] = (uint8_t)v;
}

/* Remove the last point of vector v (count - 1): a consistent file with a
 * wrong count. */
static void test_counts(void)
{
    REQUIRE(fixture());
    /* l - 1 makes a (inputs + every aux) too long for the aux count */
    static const char *msg[5] = {"h has", "a has", "a has", "b_g1 has", "b_g1 has"};
    for (int v = 0; v < 5; v++) {
        size_t n = cuzk_groth16_params_count(fx_p, v), esz = v == 4 ? 192 : 96;
        size_t cut = point_off(v, n - 1);
        uint8_t *b = malloc(fx_len);
        memcpy(b, fx_buf, cut);
        memcpy(b + cut, fx_buf + cut + esz, fx_len - cut - esz);
        put_u32(b + vec_off(v), (uint32_t)(n - 1));
        /* without a shape only h and b_g1 vs b_g2 are inconsistent by themselves */
        if (v != 2)
            load3(b, fx_len - esz, 0, NULL, CUZK_ERR_FORMAT, msg[v], NULL);
        else
            load3(b, fx_len - esz, 0, NULL, CUZK_OK, NULL, NULL);
        if (v == 3 || v == 4) /* with a shape the count itself is named */
            load3(b, fx_len - esz, 0, &fx_c.shape, CUZK_ERR_FORMAT, "b_g", NULL);
        else if (v != 0)
            load3(b, fx_len - esz, 0, &fx_c.shape, CUZK_ERR_FORMAT, msg[v], NULL);
        free(b);
    }
    /* a shape from another circuit */
    cuzk_groth16_shape sh = fx_c.shape;
    sh.n_inputs = 3;
    load3(fx_buf, fx_len, 0, &sh, CUZK_ERR_FORMAT, "vk.ic has 2 points but the circuit has 3", NULL);
    sh = fx_c.shape;
    sh.n_constraints = 100;
    load3(fx_buf, fx_len, 0, &sh, CUZK_ERR_FORMAT, "need m-1 = 127", NULL);
    sh = fx_c.shape;
    sh.n_a_aux--;
    load3(fx_buf, fx_len, 0, &sh, CUZK_ERR_FORMAT, "A density", NULL);
    /* vk with n_ic = 0 */
    uint8_t vk0[CUZK_G16_VK_FIXED_BYTES + 4];
    memcpy(vk0, fx_buf, CUZK_G16_VK_FIXED_BYTES);
    put_u32(vk0 + CUZK_G16_VK_FIXED_BYTES, 0);
    cuzk_groth16_vk *vk = NULL;
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_load_opts o = {.err = err, .err_len = sizeof err};
    CHECK(cuzk_groth16_vk_decode(&vk, vk0, sizeof vk0, &o) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "vk.ic is empty") != NULL);
}

/* Overwrite one point and expect (status, "name[i]"). */
static void corrupt(int v, size_t i, const uint8_t *enc, int want, const char *name, unsigned flags)
{
    uint8_t *b = copy_fx();
    size_t off = v == -2 ? 0 : v == -1 ? vec_off(-1) + 4 + 96 * i : point_off(v, i);
    memcpy(b + off, enc, v == 4 ? 192 : 96);
    load3(b, fx_len, flags, NULL, want, name, NULL);
    free(b);
}

static void test_point_rules(void)
{
    REQUIRE(fixture());
    uint8_t g1[96], g2[192];
    cuzk_g1_affine q1;
    cuzk_g2_affine q2;
    g1_off_subgroup(&q1);
    g2_off_subgroup(&q2);
    cuzk_g1_serialize(g1, &q1);
    cuzk_g2_serialize(g2, &q2);
    corrupt(2, 2, g1, CUZK_ERR_ENC_SUBGROUP, "params: a[2]: point is not in the prime-order", 0);
    corrupt(4, 1, g2, CUZK_ERR_ENC_SUBGROUP, "params: b_g2[1]:", 0);
    corrupt(-1, 1, g1, CUZK_ERR_ENC_SUBGROUP, "params: vk.ic[1]:", 0);
    corrupt(-2, 0, g1, CUZK_ERR_ENC_SUBGROUP, "params: vk.alpha_g1:", 0);
    /* bellperson's checked=false: subgroup skipped, curve still checked */
    corrupt(2, 2, g1, CUZK_OK, NULL, CUZK_G16_LOAD_NO_SUBGROUP);
    corrupt(4, 1, g2, CUZK_OK, NULL, CUZK_G16_LOAD_NO_SUBGROUP);

    /* not on the curve: y + 1 */
    uint8_t *b = copy_fx();
    memcpy(g1, b + point_off(1, 3), 96);
    CHECK(cuzk_fp_from_bytes_be(&q1.y, g1 + 48) == CUZK_OK);
    cuzk_fp_add(&q1.y, &q1.y, &CUZK_FP_ONE);
    cuzk_fp_to_bytes_be(g1 + 48, &q1.y);
    free(b);
    corrupt(1, 3, g1, CUZK_ERR_ENC_NOT_ON_CURVE, "params: l[3]: point is not on the curve", 0);
    corrupt(1, 3, g1, CUZK_ERR_ENC_NOT_ON_CURVE, "l[3]", CUZK_G16_LOAD_NO_SUBGROUP);
    corrupt(1, 3, g1, CUZK_OK, NULL, CUZK_G16_LOAD_NO_VALIDATE);

    /* identity (the canonical infinity encoding) */
    memset(g1, 0, 96);
    g1[0] = 0x40;
    corrupt(0, 0, g1, CUZK_ERR_ENC_IDENTITY, "params: h[0]: point is the identity", 0);
    corrupt(0, 0, g1, CUZK_ERR_ENC_IDENTITY, "h[0]", CUZK_G16_LOAD_NO_VALIDATE);
    memset(g2, 0, 192);
    g2[0] = 0x40;
    corrupt(-2, 0, g1, CUZK_ERR_ENC_IDENTITY, "vk.alpha_g1", 0);
    corrupt(4, 0, g2, CUZK_ERR_ENC_IDENTITY, "b_g2[0]", 0);
    /* infinity flag with garbage */
    g1[95] = 1;
    corrupt(3, 7, g1, CUZK_ERR_ENC_INFINITY, "b_g1[7]", 0);
    /* compressed flag on a 96-byte point */
    memcpy(g1, fx_buf + point_off(3, 7), 96);
    g1[0] |= 0x80;
    corrupt(3, 7, g1, CUZK_ERR_ENC_COMPRESSION, "b_g1[7]", 0);
    /* sign flag */
    g1[0] = (uint8_t)((g1[0] & 0x1f) | 0x20);
    corrupt(3, 7, g1, CUZK_ERR_ENC_SIGN, "b_g1[7]", 0);
    /* x >= p */
    memset(g1, 0xff, 48);
    g1[0] = 0x1f;
    corrupt(3, 7, g1, CUZK_ERR_ENC_NONCANONICAL, "b_g1[7]", 0);
    corrupt(3, 7, g1, CUZK_ERR_ENC_NONCANONICAL, "b_g1[7]", CUZK_G16_LOAD_NO_VALIDATE);
}

/* Two bad points in different validation tasks: the lowest index is
 * reported, whatever the thread count. */
static void test_parallel_first_error(void)
{
    cuzk_pool *pool = NULL;
    CHECK(cuzk_pool_create(&pool, 2) == CUZK_OK);
    cuzk_fr x0 = fr_u64(9);
    g16t_circuit c;
    CHECK(g16t_chain(&c, 1100, &x0) == CUZK_OK); /* h: 2047 points, several tasks */
    cuzk_groth16_params *p = g16t_setup(&c, 1);
    if (!pool || !p) goto out;
    uint8_t *b = NULL;
    size_t len = 0;
    FILE *f = open_memstream((char **)&b, &len);
    CHECK(cuzk_groth16_params_write(f, p) == CUZK_OK);
    fclose(f);
    size_t h0 = CUZK_G16_VK_FIXED_BYTES + 4 + 96 * 2 + 4;
    uint8_t inf[96] = {0x40};
    memcpy(b + h0 + 96 * 1500, inf, 96);
    b[h0 + 96 * 2000 + 95] ^= 1; /* off curve, later index */
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_load_opts o = {
        .par = cuzk_pool_par(pool), .err = err, .err_len = sizeof err, .flags = CUZK_G16_LOAD_NO_SUBGROUP};
    cuzk_groth16_params *q = NULL;
    CHECK(cuzk_groth16_params_decode(&q, b, len, &o) == CUZK_ERR_ENC_IDENTITY);
    CHECK(strstr(err, "h[1500]") != NULL);
    memcpy(b + h0 + 96 * 30, inf, 96);
    CHECK(cuzk_groth16_params_decode(&q, b, len, &o) == CUZK_ERR_ENC_IDENTITY);
    CHECK(strstr(err, "h[30]") != NULL);
    free(b);
out:
    cuzk_groth16_params_free(p);
    g16t_free(&c);
    cuzk_pool_destroy(pool);
}

static void test_marker(void)
{
    REQUIRE(fixture());
    char *path = tmpfile_with(fx_buf, fx_len);
    REQUIRE(path);
    char keep[64];
    strcpy(keep, path);
    cuzk_groth16_params *p = NULL;
    CHECK(!cuzk_groth16_is_test_file(keep));
    CHECK(cuzk_groth16_mark_test(keep, "seed=42") == CUZK_OK);
    CHECK(cuzk_groth16_is_test_file(keep));
    cuzk_groth16_load_opts o = {.flags = CUZK_G16_LOAD_MMAP};
    CHECK(cuzk_groth16_params_load(&p, keep, &o) == CUZK_OK);
    CHECK(p && cuzk_groth16_params_is_test(p) && cuzk_groth16_params_vk(p)->is_test);
    cuzk_groth16_params_free(p);
    cuzk_groth16_vk *vk = NULL;
    CHECK(cuzk_groth16_vk_load(&vk, keep, NULL) == CUZK_OK);
    CHECK(vk && vk->is_test);
    cuzk_groth16_vk_free(vk);
    char side[80];
    snprintf(side, sizeof side, "%s.test", keep);
    size_t sl = 0;
    uint8_t *txt = test_read_file(side, &sl);
    CHECK(txt && strstr((char *)txt, "TEST parameters") && strstr((char *)txt, "seed=42"));
    free(txt);
    remove(side);
    CHECK(cuzk_groth16_params_load(&p, keep, NULL) == CUZK_OK);
    CHECK(p && !cuzk_groth16_params_is_test(p));
    cuzk_groth16_params_free(p);
    remove(keep);
    /* setup marks its result */
    CHECK(cuzk_groth16_params_is_test(fx_p));
}

static void test_setup_errors(void)
{
    /* an aux variable that appears in no constraint is unconstrained */
    cuzk_cs *cs = NULL;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_PROVE, CUZK_CS_MATRICES) == CUZK_OK);
    cuzk_var a, b;
    cuzk_fr one = CUZK_FR_ONE;
    cuzk_cs_alloc(cs, &a, &one);
    cuzk_cs_alloc(cs, &b, &one);
    cuzk_term t[] = {{a, one}};
    cuzk_cs_enforce(cs, t, 1, t, 1, t, 1);
    CHECK(cuzk_cs_finish(cs) == CUZK_OK);
    cuzk_groth16_r1cs r;
    CHECK(cuzk_groth16_r1cs_from_cs(&r, cs) == CUZK_OK);
    cuzk_groth16_params *p = NULL;
    char err[CUZK_G16_ERR_LEN] = "";
    CHECK(cuzk_groth16_setup_test(&p, &r, (const uint8_t *)"s", 1, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "aux variable 1 is unconstrained") != NULL);
    CHECK(p == NULL);
    /* a malformed matrix */
    r.b.rows--;
    CHECK(cuzk_groth16_setup_test(&p, &r, (const uint8_t *)"s", 1, NULL, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "matrix B") != NULL);
    cuzk_cs_free(cs);
}

/* A mapped file truncated to one page: points past it fault.  With the
 * guard installed every read (decode on use, write, validation at load)
 * fails with CUZK_ERR_CHANGED and the process survives. */
static void test_map_guard(void)
{
    REQUIRE(fixture());
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    REQUIRE(fx_len > 3 * page);
    char *path = tmpfile_with(fx_buf, fx_len);
    REQUIRE(path);
    char err[CUZK_G16_ERR_LEN] = "";
    CHECK(cuzk_map_guard_install(err, sizeof err) == CUZK_OK);
    CHECK(cuzk_map_guard_installed());
    cuzk_groth16_params *p = NULL;
    cuzk_groth16_load_opts o = {.flags = CUZK_G16_LOAD_MMAP, .err = err, .err_len = sizeof err};
    REQUIRE(cuzk_groth16_params_load(&p, path, &o) == CUZK_OK);
    size_t nl = cuzk_groth16_params_count(p, CUZK_G16_L), nb2 = cuzk_groth16_params_count(p, CUZK_G16_B_G2);
    cuzk_g1_affine *g1 = malloc((nl ? nl : 1) * sizeof *g1), *ref = malloc((nl ? nl : 1) * sizeof *ref);
    cuzk_g2_affine *g2 = malloc((nb2 ? nb2 : 1) * sizeof *g2);
    REQUIRE(g1 && ref && g2);
    CHECK(cuzk_groth16_params_g1(g1, p, CUZK_G16_L, 0, nl) == CUZK_OK);
    CHECK(cuzk_groth16_params_g1(ref, fx_p, CUZK_G16_L, 0, nl) == CUZK_OK);
    CHECK(!memcmp(g1, ref, nl * sizeof *g1));
    REQUIRE(point_off(CUZK_G16_L, 0) >= page); /* L lies past the first page */
    REQUIRE(truncate(path, (off_t)page) == 0);
    CHECK(cuzk_groth16_params_g1(g1, p, CUZK_G16_L, 0, nl) == CUZK_ERR_CHANGED);
    CHECK(cuzk_groth16_params_g2(g2, p, 0, nb2) == CUZK_ERR_CHANGED);
    FILE *devnull = fopen("/dev/null", "wb");
    REQUIRE(devnull);
    CHECK(cuzk_groth16_params_write(devnull, p) == CUZK_ERR_CHANGED);
    fclose(devnull);
    cuzk_groth16_params_free(p);
    free(g1);
    free(ref);
    free(g2);
    unlink(path);
}

static void chained(int sig)
{
    (void)sig;
    _exit(42);
}

/* In a child: map a one-page-truncated file and touch its second page
 * outside any guard.  before: install a handler before the guard, else
 * the default action (not ASan's handler, which the ASan build installs at
 * start and which would report the fault instead).  The install in the
 * child must be its first (pthread_once state is inherited): see
 * test_map_guard_chains. */
static int unguarded_fault(bool before)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *b = calloc(1, 2 * page);
    char *path = b ? tmpfile_with(b, 2 * page) : NULL;
    free(b);
    if (!path) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGBUS, before ? chained : SIG_DFL);
        if (cuzk_map_guard_install(NULL, 0)) _exit(3);
        int fd = open(path, O_RDONLY);
        volatile uint8_t *m = mmap(NULL, 2 * page, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED || truncate(path, (off_t)page)) _exit(4);
        (void)m[page + 1];
        _exit(0);
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    unlink(path);
    return ws;
}

static void test_map_guard_chains(void)
{
    REQUIRE(!cuzk_map_guard_installed()); /* runs before map_guard installs it in this process */
    int ws = unguarded_fault(false);
    CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGBUS); /* the default action, as before */
    ws = unguarded_fault(true);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 42); /* the earlier handler still runs */
}

static void test_cleanup(void)
{
    cuzk_groth16_params_free(fx_p);
    fx_p = NULL;
    free(fx_buf);
    fx_buf = NULL;
    g16t_free(&fx_c);
}

static const test_case tests[] = {
    {"roundtrip", test_roundtrip},
    {"truncated", test_truncated},
    {"counts", test_counts},
    {"point_rules", test_point_rules},
    {"parallel_first_error", test_parallel_first_error},
    {"marker", test_marker},
    {"setup_errors", test_setup_errors},
    {"map_guard_chains", test_map_guard_chains},
    {"map_guard", test_map_guard},
    {"zz_cleanup", test_cleanup},
};

TEST_MAIN(tests)
