/* cuzk_seal_c1_verify_graph: a C1 verified with the caller's graph (what
 * the PoRep job does, so it builds the graph once for the C1 check and
 * the public inputs) gives the same answers as cuzk_seal_c1_verify, which
 * builds its own; a graph of another sector size or api version is
 * refused with CUZK_ERR_ARG before anything is checked with it. */
#include <string.h>

#include "cuzk/seal.h"
#include "cuzk/seal_c1.h"
#include "cuzk/seal_graph.h"
#include "cuzk/status.h"
#include "harness.h"

static void graph_of(cuzk_seal_graph *g, uint64_t proof_id)
{
    const cuzk_fil_seal_info *info;
    char err[256] = "";
    CHECK(cuzk_fil_seal_lookup(&info, proof_id) == CUZK_OK);
    CHECK(cuzk_seal_graph_init_for_proof(g, info, NULL, err, sizeof err) == CUZK_OK);
}

static void test_verify_graph(void)
{
    cuzk_seal_config cfg = {
        .registered_proof = 5, .sector_id = 42, .miner_id = 1000, .seed = 7}; /* 2 KiB V1_1 */
    cuzk_seal_sector *s = NULL;
    char err[512] = "", err2[512] = "";
    int st = cuzk_seal_sector_seal(&s, &cfg, NULL, NULL, NULL, err, sizeof err);
    if (st) printf("  seal: %s\n", err);
    REQUIRE(st == CUZK_OK);
    cuzk_seal_graph g, v1, big;
    graph_of(&g, 5);
    graph_of(&v1, 0);  /* 2 KiB V1: same nodes, api V1_0 */
    graph_of(&big, 6); /* 8 MiB V1_1 */
    CHECK(cuzk_seal_c1_verify_graph(&s->c1, &g, s->prover_id, s->sector_id, NULL, err, sizeof err) ==
          CUZK_OK);
    CHECK(cuzk_seal_c1_verify_graph(&s->c1, NULL, s->prover_id, s->sector_id, NULL, err, sizeof err) ==
          CUZK_OK);
    /* a wrong replica: the same first failure with either graph */
    st = cuzk_seal_c1_verify_graph(&s->c1, &g, s->prover_id, 43, NULL, err, sizeof err);
    CHECK(st == CUZK_ERR_ARG && cuzk_seal_c1_verify(&s->c1, s->prover_id, 43, NULL, err2, sizeof err2) == st);
    CHECK(strstr(err, "replica_id: mismatch") != NULL && !strcmp(err, err2));
    st = cuzk_seal_c1_verify_graph(&s->c1, &v1, s->prover_id, s->sector_id, NULL, err, sizeof err);
    if (st != CUZK_ERR_ARG || !strstr(err, "api 0")) printf("  v1 graph: %d '%s'\n", st, err);
    CHECK(st == CUZK_ERR_ARG &&
          strstr(err, "c1 verify: graph of 64 nodes (api 0), StackedDrg2KiBV1_1 needs 64") != NULL);
    st = cuzk_seal_c1_verify_graph(&s->c1, &big, s->prover_id, s->sector_id, NULL, err, sizeof err);
    CHECK(st == CUZK_ERR_ARG && strstr(err, "graph of 262144 nodes") != NULL);
    cuzk_seal_graph_free(&g);
    cuzk_seal_graph_free(&v1);
    cuzk_seal_graph_free(&big);
    cuzk_seal_sector_free(s);
}

static const test_case tests[] = {
    {"verify_graph", test_verify_graph},
};

TEST_MAIN(tests)
