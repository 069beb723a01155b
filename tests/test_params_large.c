/* Offsets past 2^31 and 2^32 bytes in a parameter file, without allocating
 * them: a sparse file laid out like a 32 GiB PoRep's (H 2^27 - 1, L and A
 * past 2^27, B 2^25: ~47 GB logical, a few KB on disk), real points written
 * only at the first and last index of every query, loaded mapped without
 * validation (the WARM path of the daemon and `prove --mmap`), and those
 * points read back through the mapped accessors at their indices.  A layout
 * or count computed in 32 bits anywhere would read the wrong bytes (the
 * zeros of a hole, which do not decode) or refuse the file.  The expected
 * offsets are computed here from the format (filecoin-formats.md section 3)
 * in 128-bit arithmetic, not by the code under test.  Also the streaming
 * setup's pwrite offsets: the same layout. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "groth16_util.h"

static int put_at(int fd, const void *b, size_t n, unsigned __int128 off)
{
    return pwrite(fd, b, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

static void be32(uint8_t b[4], uint32_t v)
{
    b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
}

static void test_params_offsets_past_4g(void)
{
    g16t_circuit c;
    cuzk_fr x0 = fr_u64(3);
    REQUIRE(g16t_chain(&c, 4, &x0) == CUZK_OK);
    cuzk_groth16_params *small = NULL;
    char err[CUZK_G16_ERR_LEN] = "";
    REQUIRE(cuzk_groth16_setup_test(&small, &c.r1cs, (const uint8_t *)"s", 1, NULL, err, sizeof err) ==
            CUZK_OK);
    const cuzk_groth16_vk *vk = cuzk_groth16_params_vk(small);
    char *vkb = NULL;
    size_t vkl = 0;
    FILE *m = open_memstream(&vkb, &vkl);
    REQUIRE(m && cuzk_groth16_vk_write(m, vk) == CUZK_OK && fclose(m) == 0);
    /* counts of a 32 GiB PoRep partition's params, rounded to shapes that
     * put L's and A's ends past 2^33 and B_G2's past 2^35 bytes */
    const size_t count[5] = {((size_t)1 << 27) - 1, ((size_t)1 << 27) + 5, ((size_t)1 << 27) + 7,
                             ((size_t)1 << 25) + 3, ((size_t)1 << 25) + 3};
    unsigned __int128 off[5], end = vkl;
    for (int v = 0; v < 5; v++) {
        off[v] = end + 4;
        end = off[v] + (unsigned __int128)count[v] * (v == 4 ? 192 : 96);
    }
    char dir[] = "/tmp/cuzk-params-large-XXXXXX", path[300];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/big.params", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    REQUIRE(fd >= 0);
    struct statvfs sv;
    bool ok = ftruncate(fd, (off_t)end) == 0 && !fstatvfs(fd, &sv);
    if (!ok) { /* a filesystem without sparse files or 47 GB files: nothing to test here */
        close(fd);
        unlink(path);
        rmdir(dir);
        free(vkb);
        cuzk_groth16_params_free(small);
        g16t_free(&c);
        test_skip("no sparse 47 GB file possible in /tmp");
        return;
    }
    uint8_t g1[2][96], g2[2][192], cb[4];
    cuzk_g1_serialize(g1[0], &vk->alpha_g1);
    cuzk_g1_serialize(g1[1], &vk->beta_g1);
    cuzk_g2_serialize(g2[0], &vk->beta_g2);
    cuzk_g2_serialize(g2[1], &vk->gamma_g2);
    CHECK(put_at(fd, vkb, vkl, 0) == 0);
    for (int v = 0; v < 5; v++) {
        size_t esz = v == 4 ? 192 : 96;
        be32(cb, (uint32_t)count[v]);
        CHECK(put_at(fd, cb, 4, off[v] - 4) == 0);
        CHECK(put_at(fd, v == 4 ? (void *)g2[0] : (void *)g1[0], esz, off[v]) == 0);
        CHECK(put_at(fd, v == 4 ? (void *)g2[1] : (void *)g1[1], esz, off[v] + (count[v] - 1) * esz) == 0);
    }
    close(fd);
    CHECK(off[4] + count[4] * 192 > ((unsigned __int128)1 << 35));
    cuzk_groth16_load_opts lo = {
        .flags = CUZK_G16_LOAD_MMAP | CUZK_G16_LOAD_NO_VALIDATE, .err = err, .err_len = sizeof err};
    cuzk_groth16_params *p = NULL;
    int st = cuzk_groth16_params_load(&p, path, &lo);
    if (st) fprintf(stderr, "  load: %s\n", err);
    CHECK(st == CUZK_OK);
    for (int v = 0; v < 5 && p; v++) {
        CHECK(cuzk_groth16_params_count(p, (cuzk_groth16_vec)v) == count[v]);
        if (v < 4) {
            cuzk_g1_affine a[2];
            CHECK(cuzk_groth16_params_g1(&a[0], p, (cuzk_groth16_vec)v, 0, 1) == CUZK_OK);
            CHECK(cuzk_groth16_params_g1(&a[1], p, (cuzk_groth16_vec)v, count[v] - 1, 1) == CUZK_OK);
            CHECK(cuzk_g1_affine_eq(&a[0], &vk->alpha_g1) && cuzk_g1_affine_eq(&a[1], &vk->beta_g1));
            CHECK(cuzk_groth16_params_g1(&a[0], p, (cuzk_groth16_vec)v, count[v] - 1, 2) == CUZK_ERR_ARG);
            CHECK(cuzk_groth16_params_g1(&a[0], p, (cuzk_groth16_vec)v, 1, 1) != CUZK_OK); /* a hole */
        } else {
            cuzk_g2_affine b[2];
            CHECK(cuzk_groth16_params_g2(&b[0], p, 0, 1) == CUZK_OK);
            CHECK(cuzk_groth16_params_g2(&b[1], p, count[v] - 1, 1) == CUZK_OK);
            CHECK(cuzk_g2_affine_eq(&b[0], &vk->beta_g2) && cuzk_g2_affine_eq(&b[1], &vk->gamma_g2));
        }
    }
    cuzk_groth16_params_free(p);
    /* one byte short: refused (the declared counts no longer fit) */
    CHECK(truncate(path, (off_t)(end - 1)) == 0);
    CHECK(cuzk_groth16_params_load(&p, path, &lo) == CUZK_ERR_FORMAT);
    unlink(path);
    rmdir(dir);
    free(vkb);
    cuzk_groth16_params_free(small);
    g16t_free(&c);
}

static const test_case tests[] = {
    {"params_offsets_past_4g", test_params_offsets_past_4g},
};
TEST_MAIN(tests)
