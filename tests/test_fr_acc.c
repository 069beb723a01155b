/* Tests of the PCE mat-vec's lazy accumulator (src/r1cs/fr_acc.h) against
 * an obviously-correct reference: +-2^k * z as k modular doublings of z
 * and a cuzk_fr_add / cuzk_fr_sub chain.  Values are raw residues (the
 * accumulator is linear, Montgomery form or not), drawn at random and from
 * the edges (0, 1, r - 1, r - 2^64), shifts from 0 to 63, both signs, rows
 * up to thousands of terms at the largest magnitude (the 384-bit range),
 * and the constants (r, 2r, 2^384 mod r) derived independently.  Plus a
 * memcheck constant-time check.  test_fr_acc_portable.c runs the same
 * cases on the portable C path. */
#include <string.h>

#include "cuzk/ff.h"
#include "harness.h"
#include "r1cs/fr_acc.h"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_MEMCHECK 1
#endif

/* A residue < r: random limbs, or an edge value. */
static void rnd_residue(cuzk_fr *z)
{
    static const cuzk_fr edges[5] = {{{0, 0, 0, 0}},
                                     {{1, 0, 0, 0}},
                                     {{0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                       0x73eda753299d7d48ull}}, /* r - 1 */
                                     {{0xffffffff00000001ull, 0x53bda402fffe5bfdull, 0x3339d80809a1d805ull,
                                       0x73eda753299d7d48ull}}, /* r - 2^64 */
                                     {{~0ull, ~0ull, ~0ull, 0x73eda753299d7d47ull}}};
    uint64_t x = test_rand64();
    if (x % 4 == 0) {
        *z = edges[(x >> 8) % 5];
        return;
    }
    do {
        for (int i = 0; i < 4; i++)
            z->l[i] = test_rand64();
        z->l[3] &= 0x7fffffffffffffffull;
    } while (z->l[3] > CUZK_FR_MODULUS[3] || /* keep z < r */
             (z->l[3] == CUZK_FR_MODULUS[3] && z->l[2] >= CUZK_FR_MODULUS[2]));
}

/* ref += (neg ? -1 : 1) * 2^s * z, by doublings. */
static void ref_add(cuzk_fr *ref, const cuzk_fr *z, unsigned s, int neg)
{
    cuzk_fr t = *z;
    for (unsigned i = 0; i < s; i++)
        cuzk_fr_add(&t, &t, &t);
    if (neg)
        cuzk_fr_sub(ref, ref, &t);
    else
        cuzk_fr_add(ref, ref, &t);
}

static void test_constants(void)
{
    CHECK(memcmp(fr_wide_r1, CUZK_FR_MODULUS, 32) == 0);
    uint64_t two_r[4], c = 0; /* 2r < 2^256 */
    for (int i = 0; i < 4; i++) {
        two_r[i] = (CUZK_FR_MODULUS[i] << 1) | c;
        c = CUZK_FR_MODULUS[i] >> 63;
    }
    CHECK(c == 0);
    CHECK(memcmp(fr_wide_r2, two_r, 32) == 0);
    cuzk_fr c384, ref = {{1, 0, 0, 0}};
    fr_wide_c384(&c384);
    for (int i = 0; i < 384; i++)
        cuzk_fr_add(&ref, &ref, &ref);
    CHECK(cuzk_fr_eq(&c384, &ref));
}

/* One row of n random terms (shift up to max_s, sign by mode: 0 random,
 * 1 all +, 2 all -), reduced and compared with the reference. */
static void check_row(size_t n, unsigned max_s, int mode, int edge_only)
{
    cuzk_fr c384, ref = CUZK_FR_ZERO, got, z;
    fr_wide_c384(&c384);
    fr_wide w = {{0, 0, 0, 0, 0, 0}};
    for (size_t i = 0; i < n; i++) {
        if (edge_only)
            z = (cuzk_fr){
                {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull}};
        else
            rnd_residue(&z);
        uint64_t x = test_rand64();
        unsigned s = edge_only ? max_s : (unsigned)(x % (max_s + 1));
        int neg = mode == 0 ? (int)(x >> 63) : mode == 2;
        fr_wide_add_shl(&w, &z, s, (uint64_t)neg);
        ref_add(&ref, &z, s, neg);
    }
    fr_wide_reduce(&got, &w, &c384);
    CHECK(cuzk_fr_eq(&got, &ref));
}

static void test_rows(void)
{
    for (int it = 0; it < 400 * test_iterations; it++) {
        size_t n = 1 + test_rand64() % 40;
        unsigned max_s = (unsigned)(test_rand64() % 64);
        check_row(n, max_s, (int)(test_rand64() % 3), 0);
    }
}

/* Magnitude near the top of the range: thousands of (r - 1) << 63 of one
 * sign (sum about 2^330), and long rows of random signs. */
static void test_extremes(void)
{
    check_row(1, 63, 1, 1);
    check_row(1, 63, 2, 1);
    check_row(4096, 63, 1, 1);
    check_row(4096, 63, 2, 1);
    check_row(3000, 63, 0, 0);
    check_row(1, 0, 2, 1);
    check_row(0, 0, 0, 0);
    /* a sum that is exactly a multiple of r: z + (r - z) */
    cuzk_fr c384, z, got, nz;
    fr_wide_c384(&c384);
    rnd_residue(&z);
    cuzk_fr_neg(&nz, &z);
    fr_wide w = {{0, 0, 0, 0, 0, 0}};
    fr_wide_add_shl(&w, &z, 5, 0);
    fr_wide_add_shl(&w, &nz, 5, 0);
    fr_wide_reduce(&got, &w, &c384);
    CHECK(cuzk_fr_is_zero(&got));
}

/* Under memcheck the values are undefined: a branch or an index on them in
 * the add or the reduction is reported. */
static void test_wide_consttime(void)
{
#ifdef HAVE_MEMCHECK
    if (!RUNNING_ON_VALGRIND) {
        test_skip("needs valgrind (memcheck)");
        return;
    }
    cuzk_fr c384, z[3], got;
    fr_wide_c384(&c384);
    for (int i = 0; i < 3; i++)
        rnd_residue(&z[i]);
    unsigned long before = VALGRIND_COUNT_ERRORS;
    VALGRIND_MAKE_MEM_UNDEFINED(z, sizeof z);
    fr_wide w = {{0, 0, 0, 0, 0, 0}};
    fr_wide_add_shl(&w, &z[0], 0, 0);
    fr_wide_add_shl(&w, &z[1], 17, 1);
    fr_wide_add_shl(&w, &z[2], 63, 0);
    fr_wide_reduce(&got, &w, &c384);
    VALGRIND_MAKE_MEM_DEFINED(&got, sizeof got);
    CHECK(VALGRIND_COUNT_ERRORS == before);
#else
    test_skip("built without valgrind/memcheck.h");
#endif
}

int main(int argc, char **argv)
{
    static const test_case tests[] = {
        {"constants", test_constants},
        {"rows", test_rows},
        {"extremes", test_extremes},
        {"wide_consttime", test_wide_consttime},
    };
    return test_main(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
