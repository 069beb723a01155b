/* C1 (SealCommitPhase1Output) JSON parser and native verifier.
 *
 * Parsing: a 2 KiB-shaped C1 written here by an independent fprintf
 * generator (random canonical values, serde's key order) parses, bare and
 * in Curio's base64 envelope, to the values written; each mutation (cut,
 * wrong type, missing key, wrong count, non-canonical element, non-byte
 * element, bad base64, SectorSize, unknown proof, wrong map key) is
 * rejected with its exact JSON path.
 * Verification: sectors sealed natively by cuzk_seal_sector_seal (plain,
 * synthetic and NI 2 KiB) verify, in memory and after a JSON round trip
 * through cuzk_seal_c1_write_json; single mutations (a sibling hash, a
 * label row, a column index, a label parent, the seed, comm_r, the
 * prover) are rejected naming the first failing value.
 * Memory (tree_cost): the JSON tree of a real C1 (a natively sealed 2 KiB
 * sector written by cuzk_seal_c1_write_json) stays within half the limit
 * the parser enforces (C1J_TREE_PER_BYTE_MAX per byte); a document that is
 * not a C1 and would need more ("[0,0,0,...") is refused at the limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/seal.h"
#include "cuzk/seal_c1.h"
#include "cuzk/status.h"
#include "harness.h"
#include "seal/c1_internal.h"

/* ---- independent generator (2 KiB: 64 nodes, Single 8-ary x 2 levels,
 * comm_d 6 levels, 2 layers, 1 partition x 2 challenges) ---------------- */
enum { M_NONE, M_WRONG_TYPE, M_MISSING, M_DRG_COUNT, M_NONCANON, M_NOT_BYTE, M_ELEMS, M_KEY };
static int g_mut;
static uint8_t g_comm_r[32], g_hash0[32];

static void dom(FILE *f, uint8_t *keep, int noncanon)
{
    uint8_t b[32];
    test_rand_bytes(b, 32);
    b[31] &= 0x3f;
    if (noncanon) memset(b, 0xff, 32);
    if (keep) memcpy(keep, b, 32);
    fputc('[', f);
    for (int i = 0; i < 32; i++)
        fprintf(f, i ? ",%u" : "%u", b[i]);
    fputc(']', f);
}

static void path(FILE *f, int levels, int arity, uint8_t *keep)
{
    fputs("{\"path\":[", f);
    for (int l = 0; l < levels; l++) {
        fputs(l ? ",{\"hashes\":[" : "{\"hashes\":[", f);
        for (int k = 0; k < arity - 1; k++) {
            if (k) fputc(',', f);
            dom(f, l == 0 && k == 0 ? keep : NULL, 0);
        }
        fprintf(f, "],\"index\":%d}", (int)(test_rand64() % (uint64_t)arity));
    }
    fputs("]}", f);
}

static void merkle(FILE *f, int levels, int arity, uint8_t *keep, int noncanon_root)
{
    fputs("{\"data\":{\"Single\":{\"root\":", f);
    dom(f, NULL, noncanon_root);
    fputs(",\"leaf\":", f);
    dom(f, NULL, 0);
    fputs(",\"path\":", f);
    path(f, levels, arity, keep);
    fputs("}}}", f);
}

static void column(FILE *f, int j, int i)
{
    fprintf(f, "{\"column\":{\"index\":%u,\"rows\":[", (unsigned)(test_rand64() % 64));
    dom(f, NULL, 0);
    fputc(',', f);
    if (g_mut == M_ELEMS && i == 1 && j == 3)
        fputs("[1,2,3]", f);
    else if (g_mut == M_NOT_BYTE && i == 1 && j == 3)
        fputs("[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,"
              "31,256]",
              f);
    else
        dom(f, NULL, 0);
    fputs("],\"_h\":null},\"inclusion_proof\":", f);
    merkle(f, 2, 8, NULL, g_mut == M_NONCANON && i == 1 && j == 2);
    fputc('}', f);
}

static void labeling(FILE *f, int layer, int wrong_type)
{
    fputs("{\"parents\":[", f);
    for (int k = 0; k < 37; k++) {
        if (k) fputc(',', f);
        dom(f, NULL, 0);
    }
    if (wrong_type)
        fprintf(f, "],\"layer_index\":\"%d\",\"node\":5}", layer);
    else
        fprintf(f, "],\"layer_index\":%d,\"node\":5}", layer);
}

static void proof(FILE *f, int i)
{
    fputs("{\"comm_d_proofs\":", f);
    merkle(f, 6, 2, i == 0 ? g_hash0 : NULL, 0);
    fputs(",\"comm_r_last_proof\":", f);
    merkle(f, 2, 8, NULL, 0);
    fputs(",\"replica_column_proofs\":{\"c_x\":", f);
    column(f, -1, i);
    fputs(",\"drg_parents\":[", f);
    int ndrg = g_mut == M_DRG_COUNT && i == 0 ? 5 : 6;
    for (int j = 0; j < ndrg; j++) {
        if (j) fputc(',', f);
        column(f, j, i);
    }
    fputs("],\"exp_parents\":[", f);
    for (int j = 0; j < 8; j++) {
        if (j) fputc(',', f);
        column(f, 100 + j, i);
    }
    fputs("]},\"labeling_proofs\":[", f);
    labeling(f, 1, 0);
    fputc(',', f);
    labeling(f, 2, g_mut == M_WRONG_TYPE && i == 1);
    fputs("],\"encoding_proof\":", f);
    labeling(f, 2, 0);
    fputc('}', f);
}

/* A C1 JSON for StackedDrg2KiBV1_1 (id 5), mutated as g_mut says. */
static char *gen_c1(int mut, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    g_mut = mut;
    fprintf(f, "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"%s\":[[",
            mut == M_KEY ? "StackedDrg2KiBV1_1" : "StackedDrg2KiBV1");
    proof(f, 0);
    fputc(',', f);
    proof(f, 1);
    fputs("]]},\"comm_r\":", f);
    dom(f, g_comm_r, 0);
    static const char *const keys[4] = {"comm_d", "replica_id", "seed", "ticket"};
    for (int k = 0; k < 4; k++) {
        if (mut == M_MISSING && k == 3) continue;
        fprintf(f, ",\"%s\":", keys[k]);
        dom(f, NULL, 0);
    }
    fputc('}', f);
    fclose(f);
    return buf;
}

static char *envelope(const char *json, size_t len, uint64_t sector_size, const char *corrupt)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = (len + 2) / 3 * 4;
    char *e = malloc(n + 128), *p;
    p = e + sprintf(e, "{\"SectorNum\":7,\"Phase1Out\":\"");
    for (size_t i = 0; i < len; i += 3) { /* plain reference encoder */
        uint32_t v = (uint32_t)(uint8_t)json[i] << 16;
        if (i + 1 < len) v |= (uint32_t)(uint8_t)json[i + 1] << 8;
        if (i + 2 < len) v |= (uint8_t)json[i + 2];
        *p++ = b64[v >> 18];
        *p++ = b64[(v >> 12) & 63];
        *p++ = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        *p++ = i + 2 < len ? b64[v & 63] : '=';
    }
    if (corrupt) memcpy(e + 40, corrupt, strlen(corrupt));
    sprintf(p, "\",\"SectorSize\":%llu}", (unsigned long long)sector_size);
    return e;
}

/* parse must fail with status st and a message containing want */
static void expect_fail(const char *json, size_t len, uint64_t expected, int st, const char *want)
{
    cuzk_seal_c1 *c1 = NULL;
    char err[512] = "";
    int got = cuzk_seal_c1_parse(&c1, json, len, expected, err, sizeof err);
    if (got != st || !strstr(err, want)) printf("    got %d \"%s\", want %d \"%s\"\n", got, err, st, want);
    CHECK(got == st);
    CHECK(strstr(err, want) != NULL);
    CHECK(c1 == NULL);
}

static void test_parse_valid(void)
{
    size_t len;
    char *j = gen_c1(M_NONE, &len);
    cuzk_seal_c1 *c1;
    char err[512] = "";
    CHECK(cuzk_seal_c1_parse(&c1, j, len, UINT64_MAX, err, sizeof err) == CUZK_OK);
    CHECK(c1->registered_proof == 5 && c1->partitions == 1 && c1->challenges_per_partition == 2);
    CHECK(!memcmp(c1->comm_r, g_comm_r, 32) && !c1->has_envelope);
    const cuzk_seal_challenge_proof *p = &c1->proofs[0];
    CHECK(p->comm_d_proof.kind == CUZK_FIL_PROOF_SINGLE && p->comm_d_proof.path[0].levels == 6);
    CHECK(p->comm_d_proof.path[0].arity == 2 && !memcmp(p->comm_d_proof.path[0].hashes, g_hash0, 32));
    CHECK(p->c_x.n_rows == 2 && p->n_layers == 2 && p->labeling[1].layer_index == 2);
    CHECK(p->labeling[1].node == 5 && p->encoding.n_parents == 37);
    CHECK(p->exp_parents[7].inclusion.path[0].levels == 2);
    cuzk_seal_c1_free(c1);
    /* the same in the envelope */
    char *e = envelope(j, len, 2048, NULL);
    CHECK(cuzk_seal_c1_parse(&c1, e, strlen(e), 5, err, sizeof err) == CUZK_OK);
    CHECK(c1->has_envelope && c1->sector_num == 7 && c1->envelope_sector_size == 2048);
    CHECK(!memcmp(c1->comm_r, g_comm_r, 32));
    cuzk_seal_c1_free(c1);
    free(e);
    free(j);
}

static void test_parse_errors(void)
{
    size_t len;
    char *j = gen_c1(M_NONE, &len);
    for (size_t cut = 0; cut < len; cut += 997)
        expect_fail(j, cut, UINT64_MAX, CUZK_ERR_FORMAT, "C1 JSON: ");
    expect_fail(j, len - 1, UINT64_MAX, CUZK_ERR_FORMAT,
                "C1 JSON: truncated: parse error: premature EOF at the end (byte ");
    expect_fail(j, len, 3, CUZK_ERR_ARG,
                "registered_proof: StackedDrg2KiBV1_1 (id 5), but the caller expects id 3");
    char *e = envelope(j, len, 34359738368ull, NULL);
    expect_fail(e, strlen(e), UINT64_MAX, CUZK_ERR_FORMAT,
                "SectorSize: 34359738368 does not match registered_proof StackedDrg2KiBV1_1");
    free(e);
    e = envelope(j, len, 2048, "!");
    expect_fail(e, strlen(e), UINT64_MAX, CUZK_ERR_FORMAT,
                "Phase1Out: invalid base64 character 0x21 at offset 12");
    free(e);
    e = envelope(j, len - 1, 2048, NULL); /* valid base64 of a cut document */
    expect_fail(e, strlen(e), UINT64_MAX, CUZK_ERR_FORMAT, "Phase1Out (decoded C1 JSON): ");
    free(e);
    char *u = strdup(j);
    memcpy(strstr(u, "StackedDrg2KiBV1_1"), "StackedDrg4KiBV1_1", 18);
    expect_fail(u, len, UINT64_MAX, CUZK_ERR_ARG,
                "registered_proof: unknown registered seal proof \"StackedDrg4KiBV1_1\"");
    free(u);
    free(j);
    static const struct {
        int mut, st;
        const char *want;
    } cases[] = {
        {M_WRONG_TYPE, CUZK_ERR_FORMAT,
         "vanilla_proofs[0][1].labeling_proofs[1].layer_index: expected an integer, got a string"},
        {M_MISSING, CUZK_ERR_FORMAT, "(top level): missing key \"ticket\""},
        {M_DRG_COUNT, CUZK_ERR_FORMAT,
         "vanilla_proofs[0][0].replica_column_proofs.drg_parents: expected 6 column proofs for "
         "StackedDrg2KiBV1_1, got 5"},
        {M_NONCANON, CUZK_ERR_ENC_NONCANONICAL,
         "vanilla_proofs[0][1].replica_column_proofs.drg_parents[2].inclusion_proof.data.Single.root: not a "
         "canonical field element"},
        {M_NOT_BYTE, CUZK_ERR_FORMAT,
         "vanilla_proofs[0][1].replica_column_proofs.drg_parents[3].column.rows[1]: element [31] = 256 is "
         "not a byte"},
        {M_ELEMS, CUZK_ERR_FORMAT,
         "vanilla_proofs[0][1].replica_column_proofs.drg_parents[3].column.rows[1]: expected an array of 32 "
         "bytes, got 3 elements"},
        {M_KEY, CUZK_ERR_FORMAT,
         "vanilla_proofs: expected one key \"StackedDrg2KiBV1\" for StackedDrg2KiBV1_1, got "
         "\"StackedDrg2KiBV1_1\""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        j = gen_c1(cases[k].mut, &len);
        expect_fail(j, len, UINT64_MAX, cases[k].st, cases[k].want);
        free(j);
    }
}

/* ---- verification against the native sealer ----------------------------- */

static cuzk_seal_sector *seal(uint64_t proof_id, char *err, size_t err_len)
{
    cuzk_seal_config cfg = {.registered_proof = proof_id, .sector_id = 42, .miner_id = 1000, .seed = 7};
    cuzk_seal_sector *s = NULL;
    int st = cuzk_seal_sector_seal(&s, &cfg, NULL, NULL, NULL, err, err_len);
    if (st) printf("    seal %llu: %s\n", (unsigned long long)proof_id, err);
    return st ? NULL : s;
}

static cuzk_seal_c1 *round_trip(const cuzk_seal_c1 *in)
{
    char *buf = NULL, err[512] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(cuzk_seal_c1_write_json(in, f, err, sizeof err) == CUZK_OK);
    fclose(f);
    cuzk_seal_c1 *c1 = NULL;
    int st = cuzk_seal_c1_parse(&c1, buf, len, in->registered_proof, err, sizeof err);
    if (st) printf("    round trip parse: %s\n", err);
    CHECK(st == CUZK_OK);
    free(buf);
    return c1;
}

static void test_verify_sealed(void)
{
    static const uint64_t ids[3] = {5, 10, 15}; /* 2 KiB V1_1, synthetic, NI */
    for (int k = 0; k < 3; k++) {
        char err[512] = "";
        cuzk_seal_sector *s = seal(ids[k], err, sizeof err);
        CHECK(s != NULL);
        if (!s) continue;
        int st = cuzk_seal_c1_verify(&s->c1, s->prover_id, s->sector_id, NULL, err, sizeof err);
        if (st) printf("    verify %llu: %s\n", (unsigned long long)ids[k], err);
        CHECK(st == CUZK_OK);
        cuzk_seal_c1 *c1 = round_trip(&s->c1);
        if (c1) {
            st = cuzk_seal_c1_verify(c1, s->prover_id, s->sector_id, NULL, err, sizeof err);
            if (st) printf("    verify parsed %llu: %s\n", (unsigned long long)ids[k], err);
            CHECK(st == CUZK_OK);
            cuzk_seal_c1_free(c1);
        }
        cuzk_seal_sector_free(s);
    }
}

static void expect_reject(const cuzk_seal_c1 *c1, const uint8_t *prover, uint64_t sector, const char *want)
{
    char err[512] = "";
    int st = cuzk_seal_c1_verify(c1, prover, sector, NULL, err, sizeof err);
    if (st != CUZK_ERR_ARG || !strstr(err, want)) printf("    got %d \"%s\", want \"%s\"\n", st, err, want);
    CHECK(st == CUZK_ERR_ARG);
    CHECK(strstr(err, want) != NULL);
}

static void test_verify_mutations(void)
{
    char err[512] = "";
    cuzk_seal_sector *s = seal(5, err, sizeof err);
    CHECK(s != NULL);
    if (!s) return;
    cuzk_seal_c1 *c1 = round_trip(&s->c1);
    if (!c1) return;
    /* the parsed C1 owns its memory: mutate through it, undo after */
    cuzk_seal_challenge_proof *p = (cuzk_seal_challenge_proof *)&c1->proofs[1];
    uint8_t *h = (uint8_t *)p->drg_parents[2].inclusion.path[0].hashes + 32;
    h[0] ^= 1;
    expect_reject(c1, s->prover_id, 42,
                  "vanilla_proofs[0][1].replica_column_proofs.drg_parents[2].inclusion_proof.data.Single."
                  "path: mismatch: the path does not hash to root");
    h[0] ^= 1;
    uint8_t *row = (uint8_t *)p->c_x.rows + 32;
    row[3] ^= 4;
    expect_reject(c1, s->prover_id, 42,
                  "vanilla_proofs[0][1].replica_column_proofs.c_x.inclusion_proof.data.Single.leaf: "
                  "mismatch: not the column hash");
    row[3] ^= 4;
    p->exp_parents[5].index ^= 1;
    expect_reject(c1, s->prover_id, 42,
                  "vanilla_proofs[0][1].replica_column_proofs.exp_parents[5].column.index: mismatch");
    p->exp_parents[5].index ^= 1;
    uint8_t *lp = (uint8_t *)p->labeling[1].parents + 9 * 32;
    lp[0] ^= 1;
    expect_reject(c1, s->prover_id, 42, "vanilla_proofs[0][1].labeling_proofs[1].parents[9]: mismatch");
    lp[0] ^= 1;
    p->encoding.node++;
    expect_reject(c1, s->prover_id, 42, "vanilla_proofs[0][1].encoding_proof.node: mismatch");
    p->encoding.node--;
    c1->seed[0] ^= 1;
    expect_reject(c1, s->prover_id, 42,
                  "vanilla_proofs[0][0].comm_d_proofs.data.Single.path: leaf index mismatch");
    c1->seed[0] ^= 1;
    c1->comm_r[0] ^= 1;
    expect_reject(c1, s->prover_id, 42, "comm_r: mismatch");
    c1->comm_r[0] ^= 1;
    expect_reject(c1, s->prover_id, 43, "replica_id: mismatch");
    CHECK(cuzk_seal_c1_verify(c1, NULL, 0, NULL, err, sizeof err) == CUZK_OK);
    cuzk_seal_c1_free(c1);
    cuzk_seal_sector_free(s);
}

static void test_tree_cost(void)
{
    char err[512] = "", *buf = NULL;
    size_t len = 0;
    cuzk_seal_sector *s = seal(5, err, sizeof err);
    REQUIRE(s != NULL);
    FILE *f = open_memstream(&buf, &len);
    CHECK(cuzk_seal_c1_write_json(&s->c1, f, err, sizeof err) == CUZK_OK);
    fclose(f);
    c1j_tree t;
    REQUIRE(cuzk_seal_c1j_parse(&t, buf, len, "C1 JSON", SIZE_MAX, err, sizeof err) == CUZK_OK);
    size_t used = t.n_nodes * sizeof(c1j_node) + t.n_bytes + t.n_chars;
    printf("    2 KiB C1: %zu bytes of JSON, tree %zu bytes used (%.2f/byte), %zu at peak capacity "
           "(%.2f/byte)\n",
           len, used, (double)used / len, t.peak, (double)t.peak / len);
    CHECK(t.peak * 2 <= len * C1J_TREE_PER_BYTE_MAX + C1J_TREE_SLACK);
    cuzk_seal_c1j_free(&t);
    /* the whole parse, bare and in the envelope, within its own charge */
    cuzk_seal_c1 *c1 = NULL;
    CHECK(cuzk_seal_c1_parse(&c1, buf, len, 5, err, sizeof err) == CUZK_OK);
    cuzk_seal_c1_free(c1);
    CHECK(cuzk_seal_c1_parse_bytes(len) >= 4 * len);
    /* the limit holds: the real C1 refused under a limit below its need */
    CHECK(cuzk_seal_c1j_parse(&t, buf, len, "C1 JSON", len / 4, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "not a C1: its tree would need more than") != NULL);
    /* "[0,0,...]": one 32-byte node per 2 bytes (16x) -> refused at 3x */
    size_t n = 4u << 20;
    char *z = malloc(n);
    REQUIRE(z != NULL);
    z[0] = '[';
    for (size_t i = 1; i + 1 < n; i += 2) {
        z[i] = '0';
        z[i + 1] = ',';
    }
    z[n - 2] = '0';
    z[n - 1] = ']';
    cuzk_seal_c1 *bad = NULL;
    CHECK(cuzk_seal_c1_parse(&bad, z, n, UINT64_MAX, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "not a C1: its tree would need more than") != NULL);
    printf("    [0,0,...] of %zu bytes: %s\n", n, err);
    free(z);
    free(buf);
    cuzk_seal_sector_free(s);
}

static const test_case tests[] = {
    {"parse_valid", test_parse_valid},     {"parse_errors", test_parse_errors},
    {"verify_sealed", test_verify_sealed}, {"verify_mutations", test_verify_mutations},
    {"tree_cost", test_tree_cost},
};

TEST_MAIN(tests)
