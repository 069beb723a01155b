/* SnapDeals end to end below the prover (src/circuits/snap_job.c): an
 * update encoded natively (cuzk/seal_snap.h) over a random old replica,
 * its partition proofs written as bincode and as Curio's JSON array of
 * base64, then cuzk_snap_job_new (decode + native verification) and the
 * synthesis of each partition in CHECK mode, which must be satisfied with
 * the public inputs the verifier computes -- so the circuit, the witness
 * conversion, the native updater and the inputs agree: 2 KiB (bincode
 * and JSON input) and the last of 8 MiB's 4 partitions (k > 0, 10 M
 * constraints, ~4 s). */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/seal_snap.h"
#include "cuzk/snap.h"
#include "cuzk/status.h"
#include "harness.h"

static void rand_fr32(uint8_t *b, uint64_t n)
{
    test_rand_bytes(b, 32 * n);
    for (uint64_t i = 0; i < n; i++)
        b[32 * i + 31] &= 0x3f;
}

static void run(uint64_t id, uint32_t only_k, bool json)
{
    const cuzk_snap_info *info;
    cuzk_snap_shape s;
    CHECK(cuzk_snap_lookup(&info, id) == CUZK_OK &&
          cuzk_snap_shape_for(&s, info->sector_size, false) == CUZK_OK);
    uint8_t *old = malloc(32 * s.nodes), *data = malloc(32 * s.nodes), comm_c[32];
    rand_fr32(old, s.nodes);
    rand_fr32(data, s.nodes);
    rand_fr32(comm_c, 1);
    char err[512] = "";
    cuzk_snap_update *u = NULL;
    CHECK(cuzk_snap_update_encode(&u, &s, s.hs[3], comm_c, old, data, NULL, NULL, NULL, err, sizeof err) ==
          CUZK_OK);
    uint8_t *bufs[16] = {0};
    size_t lens[16] = {0};
    for (uint32_t k = 0; u && k < s.partitions; k++) {
        cuzk_snap_partition_proof *p = NULL;
        CHECK(cuzk_snap_update_prove(&p, u, k, err, sizeof err) == CUZK_OK);
        lens[k] = cuzk_snap_partition_size(p);
        bufs[k] = malloc(lens[k]);
        size_t w = 0;
        CHECK(cuzk_snap_partition_write(bufs[k], lens[k], &w, p) == CUZK_OK && w == lens[k]);
        cuzk_snap_partition_free(p);
    }
    /* Curio's stored form: one JSON array of base64 strings */
    char *js = NULL;
    size_t jl = 0;
    if (json) {
        size_t cap = 16;
        for (uint32_t k = 0; k < s.partitions; k++)
            cap += 4 * lens[k] / 3 + 16;
        js = malloc(cap);
        jl = (size_t)sprintf(js, "[");
        for (uint32_t k = 0; k < s.partitions; k++) {
            js[jl++] = '"';
            jl += (size_t)EVP_EncodeBlock((unsigned char *)js + jl, bufs[k], (int)lens[k]);
            jl += (size_t)sprintf(js + jl, "\"%s", k + 1 < s.partitions ? "," : "]");
        }
    }
    cuzk_snap_job *j = NULL;
    const uint8_t *in[16];
    for (int k = 0; k < 16; k++)
        in[k] = bufs[k];
    const uint8_t *jin[1] = {(const uint8_t *)js};
    int st = u ? (json ? cuzk_snap_job_new(&j, id, jin, &jl, 1, u->comm_r_old, u->comm_d_new, u->comm_r_new,
                                           NULL, err, sizeof err)
                       : cuzk_snap_job_new(&j, id, in, lens, s.partitions, u->comm_r_old, u->comm_d_new,
                                           u->comm_r_new, NULL, err, sizeof err))
               : CUZK_ERR_ARG;
    if (st) fprintf(stderr, "  job: %s\n", err);
    CHECK(st == CUZK_OK);
    for (uint32_t k = 0; j && k < s.partitions; k++) {
        if (only_k != UINT32_MAX && k != only_k) continue;
        cuzk_cs *cs = NULL;
        st = cuzk_snap_job_synthesize(&cs, j, k, CUZK_CS_CHECK, 0, err, sizeof err);
        if (st) fprintf(stderr, "  synthesize: %s\n", err);
        CHECK(st == CUZK_OK);
        size_t at = 0;
        const char *path;
        bool sat = cs && cuzk_cs_is_satisfied(cs, &at, &path);
        if (cs && !sat) fprintf(stderr, "  partition %u: constraint %zu unsatisfied\n", k, at);
        CHECK(sat);
        cuzk_cs_free(cs);
    }
    cuzk_snap_job_free(j);
    /* a wrong comm_r_new is refused before any synthesis */
    if (u) {
        uint8_t bad[32];
        memcpy(bad, u->comm_r_new, 32);
        bad[0] ^= 1;
        CHECK(cuzk_snap_job_new(&j, id, in, lens, s.partitions, u->comm_r_old, u->comm_d_new, bad, NULL, err,
                                sizeof err) != CUZK_OK);
        CHECK(cuzk_snap_job_new(&j, id, in, lens, s.partitions > 1 ? s.partitions - 1 : 0, u->comm_r_old,
                                u->comm_d_new, u->comm_r_new, NULL, err, sizeof err) != CUZK_OK);
    }
    for (int k = 0; k < 16; k++)
        free(bufs[k]);
    free(js);
    cuzk_snap_update_free(u);
    free(old);
    free(data);
}

static void test_2k_bincode(void)
{
    run(0, UINT32_MAX, false);
}
static void test_2k_json(void)
{
    run(0, UINT32_MAX, true);
}
static void test_8m_last_partition(void)
{
    run(1, 3, true);
}

static const test_case tests[] = {
    {"2k_bincode", test_2k_bincode},
    {"2k_json", test_2k_json},
    {"8m_last_partition", test_8m_last_partition},
};

TEST_MAIN(tests)
