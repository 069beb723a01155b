/* Merkle insertion (storage-proofs-core insertion.rs, implemented in
 * src/gadgets/num.c): constraint counts 2 / 8 / 22 for arity 2 / 4 / 8 and
 * n (n - 1) for other powers of two, every insertion position yields the
 * arrangement the tables in insertion.rs describe, the system is
 * satisfied, and insert_2's rows are exactly pick's
 * (b - a) * cond = (b - out) in Rust's order. */
#include <string.h>

#include "cuzk/gadgets.h"
#include "cuzk/status.h"
#include "harness.h"

static cuzk_fr fr_rand(void)
{
    uint8_t b[32];
    test_rand_bytes(b, 32);
    b[31] &= 0x3f;
    cuzk_fr r = CUZK_FR_ZERO;
    CHECK(cuzk_fr_from_bytes_le(&r, b) == CUZK_OK); /* < 2^254 < r */
    return r;
}

static size_t rows(const cuzk_cs *cs)
{
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    return k.constraints;
}

static void test_insert_all_positions(void)
{
    static const size_t nbits_list[] = {1, 2, 3, 4};
    for (size_t t = 0; t < 4; t++) {
        size_t nb = nbits_list[t], n = (size_t)1 << nb;
        size_t want = n == 2 ? 2 : n == 4 ? 8 : n == 8 ? 22 : n * (n - 1);
        for (size_t pos = 0; pos < n; pos++) {
            cuzk_cs *cs;
            CHECK(cuzk_cs_new(&cs, CUZK_CS_CHECK, 0) == 0);
            cuzk_fr ve = fr_rand(), vel[15];
            cuzk_num e, el[15], out[16];
            cuzk_bool bits[4];
            CHECK(cuzk_num_alloc(cs, &e, &ve) == 0);
            for (size_t i = 0; i < nb; i++)
                CHECK(cuzk_bit_alloc(cs, &bits[i], (pos >> i) & 1) == 0);
            for (size_t i = 0; i + 1 < n; i++) {
                vel[i] = fr_rand();
                CHECK(cuzk_num_alloc(cs, &el[i], &vel[i]) == 0);
            }
            size_t before = rows(cs);
            CHECK(cuzk_num_insert(cs, out, &e, bits, nb, el) == 0);
            CHECK(rows(cs) - before == want);
            /* out = elements[0..pos) ++ [element] ++ elements[pos..) */
            for (size_t i = 0, j = 0; i < n; i++) {
                const cuzk_fr *w = i == pos ? &ve : &vel[j++];
                CHECK(cuzk_fr_eq(&out[i].value, w));
            }
            CHECK(cuzk_cs_finish(cs) == 0);
            size_t at;
            const char *path;
            CHECK(cuzk_cs_is_satisfied(cs, &at, &path));
            cuzk_cs_free(cs);
        }
    }
}

/* insert_8 needs allocated, unnegated bits (insertion.rs panics otherwise;
 * we report an error). */
static void test_insert8_constant_bits(void)
{
    cuzk_cs *cs;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0) == 0);
    cuzk_num e, el[7], out[8];
    CHECK(cuzk_num_alloc(cs, &e, NULL) == 0);
    for (int i = 0; i < 7; i++)
        CHECK(cuzk_num_alloc(cs, &el[i], NULL) == 0);
    cuzk_bool bits[3] = {cuzk_bool_constant(true), cuzk_bool_constant(false), cuzk_bool_constant(false)};
    CHECK(cuzk_num_insert(cs, out, &e, bits, 3, el) == CUZK_ERR_ARG);
    cuzk_cs_free(cs);
}

/* insert_2 rows exactly: pick(bit, elements[0], element) then
 * pick(bit, element, elements[0]); pick(c, a, b) allocates out and
 * enforces (b - a) * c = (b - out). */
static void test_insert2_matrix(void)
{
    cuzk_cs *cs;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, CUZK_CS_MATRICES) == 0);
    cuzk_num e, el, out[2];
    cuzk_bool bit;
    CHECK(cuzk_num_alloc(cs, &e, NULL) == 0);               /* aux 0 */
    CHECK(cuzk_bit_alloc(cs, &bit, false) == 0);            /* aux 1, row 0 */
    CHECK(cuzk_num_alloc(cs, &el, NULL) == 0);              /* aux 2 */
    CHECK(cuzk_num_insert(cs, out, &e, &bit, 1, &el) == 0); /* aux 3, 4; rows 1, 2 */
    CHECK(cuzk_cs_finish(cs) == 0);
    cuzk_csr a, b, c;
    CHECK(cuzk_cs_matrix(cs, CUZK_LC_A, &a) == 0 && cuzk_cs_matrix(cs, CUZK_LC_B, &b) == 0 &&
          cuzk_cs_matrix(cs, CUZK_LC_C, &c) == 0);
    /* columns: ONE = 0, aux k = 1 + k */
    cuzk_fr one = CUZK_FR_ONE, m1;
    cuzk_fr_neg(&m1, &one);
    /* row 1: pick(bit, a = el, b = e): A = e - el, B = bit, C = e - out0 */
    /* row 2: pick(bit, a = e, b = el): A = el - e, B = bit, C = el - out1 */
    static const uint32_t acol[2][2] = {{1, 3}, {1, 3}}, ccol[2][2] = {{1, 4}, {3, 5}};
    const int asgn[2][2] = {{1, -1}, {-1, 1}}, csgn[2][2] = {{1, -1}, {1, -1}};
    for (size_t r = 1; r <= 2; r++) {
        CHECK(a.row_ptr[r + 1] - a.row_ptr[r] == 2 && b.row_ptr[r + 1] - b.row_ptr[r] == 1 &&
              c.row_ptr[r + 1] - c.row_ptr[r] == 2);
        CHECK(b.col[b.row_ptr[r]] == 2 && cuzk_fr_eq(&b.val[b.row_ptr[r]], &one));
        for (size_t k = 0; k < 2; k++) {
            CHECK(a.col[a.row_ptr[r] + k] == acol[r - 1][k]);
            CHECK(cuzk_fr_eq(&a.val[a.row_ptr[r] + k], asgn[r - 1][k] > 0 ? &one : &m1));
            CHECK(c.col[c.row_ptr[r] + k] == ccol[r - 1][k]);
            CHECK(cuzk_fr_eq(&c.val[c.row_ptr[r] + k], csgn[r - 1][k] > 0 ? &one : &m1));
        }
    }
    cuzk_cs_free(cs);
}

static const test_case tests[] = {
    {"insert_all_positions", test_insert_all_positions},
    {"insert8_constant_bits", test_insert8_constant_bits},
    {"insert2_matrix", test_insert2_matrix},
};
TEST_MAIN(tests)
