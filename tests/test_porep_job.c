/* PoRep C2 end to end on a natively sealed 2 KiB sector (cuzk/seal.h):
 * sealer -> C1 JSON (cuzk_seal_c1_write_json) -> cuzk_porep_job_new
 * (parse + native verification) -> synthesis of the partition in CHECK
 * mode, which must be satisfied with the public inputs that the verifier
 * computes (so circuit, witness conversion, sealer and inputs agree), in
 * every mode (interactive V1 / V1_1, synthetic, NI partitions).  A
 * tampered C1 must be refused before synthesis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/porep.h"
#include "cuzk/seal.h"
#include "cuzk/seal_c1.h"
#include "cuzk/status.h"
#include "harness.h"

static char *seal_json(uint64_t proof, uint64_t seed, size_t *len, cuzk_seal_sector **keep)
{
    cuzk_seal_config cfg = {proof, 7, 1000, seed};
    cuzk_seal_sector *s = NULL;
    char err[256] = "";
    int st = cuzk_seal_sector_seal(&s, &cfg, NULL, NULL, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  seal: %s\n", err);
    CHECK(st == CUZK_OK);
    if (st) return NULL;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    CHECK(f != NULL);
    CHECK(cuzk_seal_c1_write_json(&s->c1, f, err, sizeof err) == CUZK_OK);
    fclose(f);
    *keep = s;
    return buf;
}

static void check_partition(const cuzk_porep_job *j, uint32_t k)
{
    cuzk_cs *cs = NULL;
    char err[512] = "";
    int st = cuzk_porep_job_synthesize(&cs, j, k, CUZK_CS_CHECK, 0, err, sizeof err);
    if (st) fprintf(stderr, "  synthesize: %s\n", err);
    CHECK(st == CUZK_OK);
    if (st) return;
    size_t idx = 0;
    const char *path = "";
    bool sat = cuzk_cs_is_satisfied(cs, &idx, &path);
    if (!sat) fprintf(stderr, "  partition %u: constraint %zu unsatisfied\n", k, idx);
    CHECK(sat);
    cuzk_cs_free(cs);
}

static void roundtrip(uint64_t proof, bool all_partitions)
{
    size_t len = 0;
    cuzk_seal_sector *s = NULL;
    char *json = seal_json(proof, test_rand64(), &len, &s);
    if (!json) return;
    cuzk_porep_job *j = NULL;
    char err[512] = "";
    int st = cuzk_porep_job_new(&j, json, len, proof, s->prover_id, s->sector_id, NULL, err, sizeof err);
    if (st) fprintf(stderr, "  job: %s\n", err);
    CHECK(st == CUZK_OK);
    if (!st) {
        uint32_t parts = cuzk_porep_job_partitions(j);
        CHECK(parts == s->info->partitions);
        check_partition(j, 0);
        if (all_partitions && parts > 1) check_partition(j, parts - 1);
        /* inputs equal the verifier's (prover id + sector id route) */
        cuzk_porep_config cfg;
        CHECK(cuzk_porep_config_for(&cfg, proof, err, sizeof err) == CUZK_OK);
        cuzk_porep_sector sec;
        memcpy(sec.prover_id, s->prover_id, 32);
        sec.sector_id = s->sector_id;
        memcpy(sec.ticket, s->ticket, 32);
        memcpy(sec.seed, s->seed, 32);
        memcpy(sec.comm_d, s->comm_d, 32);
        memcpy(sec.comm_r, s->comm_r, 32);
        cuzk_fr in[64];
        size_t n = 0, nj = 0;
        CHECK(cuzk_porep_public_inputs(in, 64, &n, &cfg, &sec, 0, NULL, err, sizeof err) == CUZK_OK);
        const cuzk_fr *ji = cuzk_porep_job_inputs(j, 0, &nj);
        CHECK(n == nj);
        for (size_t i = 0; i < n && i < nj; i++)
            CHECK(cuzk_fr_eq(&in[i], &ji[i]));
    }
    cuzk_porep_job_free(j);
    /* a wrong sector id (replica_id mismatch) is refused */
    st = cuzk_porep_job_new(&j, json, len, proof, s->prover_id, s->sector_id + 1, NULL, err, sizeof err);
    CHECK(st != CUZK_OK && j == NULL);
    free(json);
    cuzk_seal_sector_free(s);
}

static void test_v1_1(void)
{
    roundtrip(5, false);
}
static void test_v1(void)
{
    roundtrip(0, false);
}
static void test_synthetic(void)
{
    roundtrip(10, false);
}
static void test_ni(void)
{
    roundtrip(15, true);
}

static const test_case tests[] = {
    {"v1_1_2k", test_v1_1},
    {"v1_2k", test_v1},
    {"synthetic_2k", test_synthetic},
    {"ni_2k", test_ni},
};

TEST_MAIN(tests)
