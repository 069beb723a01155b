/* Reader for the known-answer vector files in tests/vectors/ (shared by
 * test_vectors.c and test_vectors_ec.c): tokenizing, hex parsing into field
 * elements, comparison with precise got/want output naming the vector's file
 * and line.  A malformed token is a test failure, never a crash. */
#ifndef CUZK_TEST_VEC_READER_H
#define CUZK_TEST_VEC_READER_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/ff.h"
#include "cuzk/status.h"
#include "harness.h"

#define VEC_HELPER static __attribute__((unused))

#define MAXTOK 16

typedef struct {
    const char *file;
    int line;
    int ntok;
    char *tok[MAXTOK];
} vec;

VEC_HELPER int details_left = 30; /* limit the got/want dumps */

VEC_HELPER void vfail(const vec *v, const char *fmt, ...)
{
    if (details_left > 0) {
        details_left--;
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "  %s:%d: %s: ", v->file, v->line, v->tok[0]);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    test_fail(v->file, v->line, v->tok[0]);
}

/* ---- parsing helpers: a malformed token is a failure, never a crash ------- */
VEC_HELPER int hexbytes(const vec *v, int i, uint8_t *out, size_t n)
{
    if (i >= v->ntok || test_hex_decode(out, n, v->tok[i], strlen(v->tok[i])) != (long)n) {
        vfail(v, "token %d is not %zu bytes of hex", i, n);
        return 0;
    }
    return 1;
}

VEC_HELPER int get_fp(const vec *v, int i, cuzk_fp *r)
{
    uint8_t b[48];
    if (!hexbytes(v, i, b, 48)) return 0;
    if (cuzk_fp_from_bytes_be(r, b) != CUZK_OK) {
        vfail(v, "token %d: cuzk_fp_from_bytes_be rejects a canonical value", i);
        return 0;
    }
    return 1;
}

VEC_HELPER int get_fr(const vec *v, int i, cuzk_fr *r)
{
    uint8_t b[32], le[32];
    if (!hexbytes(v, i, b, 32)) return 0;
    for (int j = 0; j < 32; j++) le[j] = b[31 - j];
    if (cuzk_fr_from_bytes_le(r, le) != CUZK_OK) {
        vfail(v, "token %d: cuzk_fr_from_bytes_le rejects a canonical value", i);
        return 0;
    }
    return 1;
}

VEC_HELPER int get_fp2(const vec *v, int i, cuzk_fp2 *r) { return get_fp(v, i, &r->c0) && get_fp(v, i + 1, &r->c1); }

/* fp6/fp12 tokens: Fp coefficients in the cuzk_fp12_to_bytes_be order. */
VEC_HELPER cuzk_fp *fp6_coeff(cuzk_fp6 *a, int k)
{
    cuzk_fp2 *c = k / 2 == 0 ? &a->c0 : k / 2 == 1 ? &a->c1 : &a->c2;
    return k % 2 ? &c->c1 : &c->c0;
}

VEC_HELPER int get_fpn(const vec *v, int i, cuzk_fp6 *a, int n6)
{
    size_t len = strlen(v->tok[i < v->ntok ? i : 0]);
    if (i >= v->ntok || len != (size_t)n6 * 6 * 96) {
        vfail(v, "token %d is not %d bytes of hex", i, n6 * 288);
        return 0;
    }
    for (int k = 0; k < 6 * n6; k++) {
        uint8_t b[48];
        if (test_hex_decode(b, 48, v->tok[i] + 96 * k, 96) != 48 ||
            cuzk_fp_from_bytes_be(fp6_coeff(&a[k / 6], k % 6), b) != CUZK_OK) {
            vfail(v, "token %d: bad Fp coefficient %d", i, k);
            return 0;
        }
    }
    return 1;
}

VEC_HELPER int get_fp6(const vec *v, int i, cuzk_fp6 *a) { return get_fpn(v, i, a, 1); }
VEC_HELPER int get_fp12(const vec *v, int i, cuzk_fp12 *a) { return get_fpn(v, i, &a->c0, 2); }

/* Big-endian exponent token -> little-endian limbs. */
VEC_HELPER int get_exp(const vec *v, int i, uint64_t *e, size_t *n)
{
    uint8_t b[128];
    size_t len = i < v->ntok ? strlen(v->tok[i]) : 0;
    if (!len || len % 16 || len / 2 > sizeof b || test_hex_decode(b, sizeof b, v->tok[i], len) < 0) {
        vfail(v, "token %d is not an exponent", i);
        return 0;
    }
    *n = len / 16;
    for (size_t k = 0; k < *n; k++) {
        e[k] = 0;
        for (int j = 0; j < 8; j++) e[k] |= (uint64_t)b[len / 2 - 1 - 8 * k - j] << (8 * j);
    }
    return 1;
}

VEC_HELPER void tohex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

/* Compare bytes with a hex token; on mismatch print both. */
VEC_HELPER int same(const vec *v, const char *what, const uint8_t *got, size_t n, int i)
{
    char *h = malloc(2 * n + 1);
    if (!h) return 0;
    tohex(h, got, n);
    int ok = i < v->ntok && !strcmp(h, v->tok[i]);
    if (!ok) vfail(v, "%s\n    got  %s\n    want %s", what, h, i < v->ntok ? v->tok[i] : "(missing)");
    free(h);
    return ok;
}

VEC_HELPER int same_fp(const vec *v, const char *what, const cuzk_fp *a, int i)
{
    uint8_t b[48];
    cuzk_fp_to_bytes_be(b, a);
    return same(v, what, b, 48, i);
}

VEC_HELPER int same_fr(const vec *v, const char *what, const cuzk_fr *a, int i)
{
    uint8_t le[32], be[32];
    cuzk_fr_to_bytes_le(le, a);
    for (int j = 0; j < 32; j++) be[j] = le[31 - j];
    return same(v, what, be, 32, i);
}

VEC_HELPER int same_fp2(const vec *v, const char *what, const cuzk_fp2 *a, int i)
{
    return same_fp(v, what, &a->c0, i) && same_fp(v, what, &a->c1, i + 1);
}

VEC_HELPER int same_fp6(const vec *v, const char *what, const cuzk_fp6 *a, int i)
{
    uint8_t b[288];
    cuzk_fp6 t = *a;
    for (int k = 0; k < 6; k++) cuzk_fp_to_bytes_be(b + 48 * k, fp6_coeff(&t, k));
    return same(v, what, b, 288, i);
}

VEC_HELPER int same_fp12(const vec *v, const char *what, const cuzk_fp12 *a, int i)
{
    uint8_t b[576];
    cuzk_fp12_to_bytes_be(b, a);
    return same(v, what, b, 576, i);
}

VEC_HELPER int want_ntok(const vec *v, int n)
{
    if (v->ntok != n) vfail(v, "%d tokens, want %d", v->ntok, n);
    return v->ntok == n;
}

/* ---- file driver ------------------------------------------------------------ */
/* Runs fn on every vector of tests/vectors/<name>; returns the count.
 * Prints per-op counts so a shrunken file is visible in the log. */
VEC_HELPER int run_file(const char *name, void (*fn)(const vec *), int min_vectors)
{
    char path[4096];
    static char label[8][64]; /* "tests/vectors/NAME" for failure lines; one per file */
    static int nlabel;
    char *lab = label[nlabel++ % 8];
    snprintf(lab, sizeof label[0], "tests/vectors/%s", name);
    snprintf(path, sizeof path, "%s/tests/vectors/%s", test_source_dir(), name);
    size_t len;
    char *buf = (char *)test_read_file(path, &len);
    if (!buf) {
        fprintf(stderr, "  cannot read %s (the vector files are committed)\n", path);
        CHECK(buf != NULL);
        return 0;
    }
    enum { MAXOPS = 64 };
    char ops[MAXOPS][32];
    int counts[MAXOPS], nops = 0, total = 0, lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++; /* strtok_r skips empty lines; the generator writes none */
        if (line[0] == '#') continue;
        vec v = {lab, lineno, 0, {0}};
        char *s2 = NULL;
        for (char *t = strtok_r(line, " ", &s2); t; t = strtok_r(NULL, " ", &s2)) {
            if (v.ntok == MAXTOK) {
                vfail(&v, "more than %d tokens", MAXTOK);
                break;
            }
            v.tok[v.ntok++] = t;
        }
        if (!v.ntok) continue;
        fn(&v);
        total++;
        int k = 0;
        while (k < nops && strcmp(ops[k], v.tok[0])) k++;
        if (k == nops && nops < MAXOPS) {
            snprintf(ops[nops], sizeof ops[0], "%s", v.tok[0]);
            counts[nops++] = 0;
        }
        if (k < MAXOPS) counts[k]++;
    }
    printf("  %s: %d vectors", name, total);
    printf(":");
    for (int k = 0; k < nops; k++) printf(" %s=%d", ops[k], counts[k]);
    printf("\n");
    CHECK(total >= min_vectors);
    free(buf);
    return total;
}

#endif
