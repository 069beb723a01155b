/* FallbackPoSt circuit: constraint and input counts against rust-fil-proofs'
 * own numbers (storage-proofs-post tests/fallback_circuit.rs and the known
 * n_ic of the published parameters), satisfiability of real witnesses,
 * public inputs equal to the circuit's inputs, padding, error paths. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/pool.h"
#include "cuzk/post.h"
#include "cuzk/status.h"
#include "harness.h"
#include "post_util.h"

static const cuzk_fil_post_info *info(uint64_t id)
{
    const cuzk_fil_post_info *p = NULL;
    CHECK(cuzk_fil_post_lookup(&p, id) == 0);
    return p;
}

/* Synthesize the blank circuit of shape/sectors/challenges in SHAPE mode:
 * constraints without input rows, inputs with ONE. */
static void shape_counts(size_t *cons, size_t *inputs, const cuzk_por_shape *s, size_t sectors,
                         size_t challenges)
{
    cuzk_post_circuit_ctx c = {
        .info = info(0), .shape = *s, .n_sectors = sectors, .n_challenges = challenges};
    cuzk_cs *cs;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0) == 0);
    CHECK(cuzk_cs_synthesize(cs, cuzk_post_circuit, &c) == 0);
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    *cons = k.constraints - k.inputs;
    *inputs = k.inputs;
    cuzk_cs_free(cs);
}

/* storage-proofs-post tests/fallback_circuit.rs: 64 leaves per base tree,
 * 5 challenges; (sector_count, expected inputs incl. ONE, constraints). */
static void test_rust_fallback_counts(void)
{
    static const struct {
        cuzk_por_shape s;
        size_t sectors, inputs, cons;
    } t[] = {
        {{8, 2, 0, 0}, 3, 19, 16869},   /* single_partition_base_8 */
        {{8, 2, 4, 0}, 3, 19, 22674},   /* single_partition_sub_8_4 */
        {{8, 2, 4, 2}, 3, 19, 27384},   /* single_partition_top_8_4_2 */
        {{8, 2, 0, 0}, 2, 13, 11246},   /* two_partitions_base_8 */
        {{8, 10, 0, 0}, 5, 56, 266665}, /* base_8_bench_cs: 32 GiB, 10 challenges */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t cons, inputs, ch = t[i].cons == 266665 ? 10 : 5;
        shape_counts(&cons, &inputs, &t[i].s, t[i].sectors, ch);
        if (t[i].cons != 266665) CHECK(inputs == t[i].inputs);
        CHECK(cons == t[i].cons);
        CHECK(t[i].sectors * (313 + ch * cuzk_por_constraints(&t[i].s)) == t[i].cons);
    }
    /* 32 GiB tree_r_last is 8/8/0 with 9 base levels: same count per PoR */
    cuzk_por_shape g32 = {8, 9, 8, 0}, b10 = {8, 10, 0, 0};
    CHECK(cuzk_por_constraints(&g32) == cuzk_por_constraints(&b10));
    CHECK(cuzk_por_constraints(&b10) == 10 * 530 + 2);
}

/* Every registered PoSt proof: the synthesized blank circuit has the
 * formula's counts, and n_ic matches the published parameters
 * (filecoin-formats.md section 3: Winning 133, Window 23 / 25,840 / 25,301). */
static void test_registered_counts(void)
{
    for (uint64_t id = 0; id < 15; id++) {
        const cuzk_fil_post_info *p = info(id);
        size_t n_ic = cuzk_post_num_inputs(p) + 1;
        if (p->winning)
            CHECK(n_ic == 133);
        else if (p->sector_size == (32ull << 30))
            CHECK(n_ic == 25840);
        else if (p->sector_size == (64ull << 30))
            CHECK(n_ic == 25301);
        else
            CHECK(n_ic == 23);
        cuzk_post_circuit_ctx c;
        CHECK(cuzk_post_circuit_blank(&c, p) == 0);
        if (!p->winning && p->sector_size > (512ull << 20)) c.n_sectors = 2; /* count 2, scale */
        size_t cons, inputs;
        shape_counts(&cons, &inputs, &c.shape, c.n_sectors, c.n_challenges);
        CHECK(cons * p->circuit_sector_count / c.n_sectors == cuzk_post_num_constraints(p));
        CHECK((inputs - 1) * p->circuit_sector_count / c.n_sectors == n_ic - 1);
    }
    CHECK(cuzk_post_num_constraints(info(3)) == 370590);          /* Winning 32 GiB */
    CHECK(cuzk_post_num_constraints(info(13)) == 2349u * 53333u); /* Window 32 GiB */
}

/* Known LEB128 prover ids (ID address payloads): f01000 -> e8 07,
 * f0127 -> 7f, f0128 -> 80 01. */
static void test_prover_id(void)
{
    uint8_t id[32], want[32] = {0xe8, 0x07};
    cuzk_post_prover_id(id, 1000);
    CHECK(!memcmp(id, want, 32));
    cuzk_post_prover_id(id, 127);
    CHECK(id[0] == 0x7f && id[1] == 0);
    cuzk_post_prover_id(id, 128);
    CHECK(id[0] == 0x80 && id[1] == 0x01 && id[2] == 0);
    cuzk_post_prover_id(id, 0);
    CHECK(id[0] == 0 && id[1] == 0);
}

/* A job's circuit in CHECK mode: satisfied, inputs equal the job's. */
static void check_job_satisfied(const cuzk_post_job *j)
{
    char err[256] = "";
    cuzk_cs *cs;
    CHECK(cuzk_post_job_synthesize(&cs, j, CUZK_CS_CHECK, 0, err, sizeof err) == 0);
    size_t idx;
    const char *path;
    CHECK(cuzk_cs_is_satisfied(cs, &idx, &path));
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    CHECK(k.constraints - k.inputs == cuzk_post_num_constraints(cuzk_post_job_info(j)));
    cuzk_cs_free(cs);
}

static void test_winning_2k_job(void)
{
    const cuzk_fil_post_info *p = info(0);
    pt_sector s;
    pt_sector_make(&s, 1 + (test_rand64() & 0xffff), 2048);
    uint8_t rnd[32], pid[32];
    pt_rand_dom(rnd);
    cuzk_post_prover_id(pid, 1000);
    size_t len;
    uint8_t *v = pt_vanilla(&len, &s, p, rnd, 0);
    const uint8_t *vs[1] = {v};
    cuzk_post_job *j;
    char err[256] = "";
    CHECK(cuzk_post_job_new(&j, 0, vs, &len, 1, rnd, pid, 0, err, sizeof err) == 0);
    check_job_satisfied(j);
    /* inputs: comm_r then challenge i of the vanilla proof, 66 times */
    size_t n;
    const cuzk_fr *in = cuzk_post_job_inputs(j, &n);
    CHECK(n == 132);
    uint64_t ch[66];
    CHECK(cuzk_fil_post_challenges(ch, p, rnd, s.sector_id, 0) == 0);
    for (size_t i = 0; i < 66; i++) {
        cuzk_fr r, c;
        CHECK(cuzk_fr_from_bytes_le(&r, s.comm_r) == 0);
        cuzk_fr_from_u64(&c, ch[i]);
        CHECK(cuzk_fr_eq(&in[2 * i], &r) && cuzk_fr_eq(&in[2 * i + 1], &c));
    }
    cuzk_post_job_free(j);
    /* a vanilla proof for other randomness is rejected natively */
    rnd[0] ^= 1;
    CHECK(cuzk_post_job_new(&j, 0, vs, &len, 1, rnd, pid, 0, err, sizeof err) == CUZK_ERR_ARG && !j);
    CHECK(strstr(err, "does not verify") != NULL);
    rnd[0] ^= 1;
    /* truncated bytes, two proofs, a partition, non-canonical randomness */
    size_t short_len = len - 1;
    CHECK(cuzk_post_job_new(&j, 0, vs, &short_len, 1, rnd, pid, 0, err, sizeof err) == CUZK_ERR_FORMAT);
    const uint8_t *two[2] = {v, v};
    size_t lens[2] = {len, len};
    CHECK(cuzk_post_job_new(&j, 0, two, lens, 2, rnd, pid, 0, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_post_job_new(&j, 0, vs, &len, 1, rnd, pid, 1, err, sizeof err) == CUZK_ERR_ARG);
    uint8_t big[32];
    memset(big, 0xff, 32);
    CHECK(cuzk_post_job_new(&j, 0, vs, &len, 1, big, pid, 0, err, sizeof err) == CUZK_ERR_ENC_NONCANONICAL);
    CHECK(cuzk_post_job_new(&j, 99, vs, &len, 1, rnd, pid, 0, err, sizeof err) == CUZK_ERR_ARG);
    /* a Window proof type does not accept a Winning vanilla proof (66 != 10) */
    CHECK(cuzk_post_job_new(&j, 10, vs, &len, 1, rnd, pid, 0, err, sizeof err) != 0);
    free(v);
    cuzk_fil_tree_free(s.tree);
}

/* Window 2 KiB, api 1.0 (id 5) and 1.2 (id 10), partitions 0 and 3, one
 * sector (padded) and two sectors. */
static void test_window_2k_job(void)
{
    static const uint64_t ids[2] = {5, 10};
    pt_sector s[2];
    pt_sector_make(&s[0], 11, 2048);
    pt_sector_make(&s[1], 12, 2048);
    uint8_t rnd[32], pid[32];
    pt_rand_dom(rnd);
    cuzk_post_prover_id(pid, 1234);
    for (int t = 0; t < 2; t++)
        for (uint32_t part = 0; part < 4; part += 3)
            for (size_t n = 1; n <= 2; n++) {
                const cuzk_fil_post_info *p = info(ids[t]);
                uint8_t *v[2];
                size_t len[2];
                for (size_t i = 0; i < n; i++)
                    v[i] = pt_vanilla(&len[i], &s[i], p, rnd, part * 2 + i);
                cuzk_post_job *j;
                char err[256] = "";
                CHECK(cuzk_post_job_new(&j, ids[t], (const uint8_t *const *)v, len, n, rnd, pid, part, err,
                                        sizeof err) == 0);
                if (!j) {
                    fprintf(stderr, "job: %s\n", err);
                    continue;
                }
                check_job_satisfied(j);
                size_t ni;
                const cuzk_fr *in = cuzk_post_job_inputs(j, &ni);
                CHECK(ni == 22);
                /* padding repeats the last sector's 11 inputs */
                if (n == 1)
                    CHECK(!memcmp(&in[0], &in[11], 11 * sizeof *in));
                else
                    CHECK(memcmp(&in[0], &in[11], sizeof *in));
                /* the same inputs from the whole sector list with the
                 * partition's chunk (4 partitions of 2 sectors) */
                cuzk_post_sector all[8];
                for (size_t i = 0; i < 8; i++)
                    all[i].sector_id = 100 + i;
                memset(all, 0, 0);
                for (size_t i = 0; i < 8; i++)
                    pt_rand_dom(all[i].comm_r);
                for (size_t i = 0; i < n; i++) {
                    all[part * 2 + i].sector_id = s[i].sector_id;
                    memcpy(all[part * 2 + i].comm_r, s[i].comm_r, 32);
                }
                cuzk_fr full[22];
                size_t nf;
                if (n == 2) {
                    CHECK(cuzk_post_public_inputs(full, 22, &nf, p, rnd, all, 8, part, err, sizeof err) == 0);
                    CHECK(nf == 22 && !memcmp(full, in, sizeof full));
                }
                /* a proof made for another partition fails natively on api 1.0 */
                if (t == 0) {
                    cuzk_post_job *j2 = NULL;
                    CHECK(cuzk_post_job_new(&j2, ids[t], (const uint8_t *const *)v, len, n, rnd, pid,
                                            part + 1, err, sizeof err) == CUZK_ERR_ARG);
                    cuzk_post_job_free(j2);
                }
                cuzk_post_job_free(j);
                for (size_t i = 0; i < n; i++)
                    free(v[i]);
            }
    /* three sectors is more than a 2 KiB partition holds */
    const cuzk_fil_post_info *p = info(10);
    size_t len;
    uint8_t *v = pt_vanilla(&len, &s[0], p, rnd, 0);
    const uint8_t *three[3] = {v, v, v};
    size_t lens[3] = {len, len, len};
    cuzk_post_job *j;
    char err[256];
    CHECK(cuzk_post_job_new(&j, 10, three, lens, 3, rnd, pid, 0, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_post_job_new(&j, 10, three, lens, 2, rnd, pid, 0, err, sizeof err) == CUZK_ERR_ARG); /* dup */
    free(v);
    cuzk_fil_tree_free(s[0].tree);
    cuzk_fil_tree_free(s[1].tree);
}

/* The circuit itself rejects a wrong witness (native checks bypassed). */
static void test_circuit_rejects(void)
{
    const cuzk_fil_post_info *p = info(10);
    pt_sector s;
    pt_sector_make(&s, 7, 2048);
    uint8_t rnd[32], pid[32] = {0};
    pt_rand_dom(rnd);
    size_t len;
    uint8_t *v = pt_vanilla(&len, &s, p, rnd, 0);
    cuzk_fil_post_vanilla pv;
    char err[256];
    CHECK(cuzk_fil_vanilla_parse(&pv, v, len, NULL, err, sizeof err) == 0);
    cuzk_post_circuit_sector cs_ok[2];
    for (int i = 0; i < 2; i++) {
        memcpy(cs_ok[i].comm_r, pv.comm_r, 32);
        memcpy(cs_ok[i].comm_c, pv.sectors[0].comm_c, 32);
        memcpy(cs_ok[i].comm_r_last, pv.sectors[0].comm_r_last, 32);
        cs_ok[i].proofs = pv.sectors[0].proofs;
    }
    for (int mut = 0; mut < 4; mut++) {
        cuzk_post_circuit_sector sec[2];
        memcpy(sec, cs_ok, sizeof sec);
        cuzk_fil_merkle_proof pr[10];
        memcpy(pr, pv.sectors[0].proofs, sizeof pr);
        uint64_t idx[8];
        if (mut == 1) sec[1].comm_c[0] ^= 1;
        if (mut == 2) {
            pr[3].leaf[0] ^= 1;
            sec[0].proofs = pr;
        }
        if (mut == 3) { /* another insertion index at level 0 */
            memcpy(idx, pr[5].path[0].index, pr[5].path[0].levels * sizeof *idx);
            idx[0] = (idx[0] + 1) % 8;
            pr[5].path[0].index = idx;
            sec[1].proofs = pr;
        }
        cuzk_post_circuit_ctx c;
        CHECK(cuzk_post_circuit_blank(&c, p) == 0);
        c.sectors = sec;
        cuzk_cs *cs;
        CHECK(cuzk_cs_new(&cs, CUZK_CS_CHECK, 0) == 0);
        CHECK(cuzk_cs_synthesize(cs, cuzk_post_circuit, &c) == 0);
        size_t at;
        const char *path;
        CHECK(cuzk_cs_is_satisfied(cs, &at, &path) == (mut == 0));
        cuzk_cs_free(cs);
    }
    (void)pid;
    cuzk_fil_vanilla_free(&pv);
    free(v);
    cuzk_fil_tree_free(s.tree);
}

/* The real 32 GiB WindowPoSt vanilla proof (../shared, sector 1, miner
 * f01000, zero randomness, base + sub tree paths): the job accepts it
 * natively, and one circuit sector built from it (53,333 constraints, the
 * per-sector count of rust-fil-proofs' 32 GiB bench) is satisfied with the
 * job's first 11 public inputs. */
static void test_golden_32g_sector(void)
{
    const char *sh = test_shared_dir();
    char path[1024];
    snprintf(path, sizeof path, "%s/data/filecoin/window-post-32g-golden.vproof", sh ? sh : "");
    size_t len;
    uint8_t *buf = sh ? test_read_file(path, &len) : NULL;
    if (!buf) {
        test_skip("../shared/data/filecoin/window-post-32g-golden.vproof not found");
        return;
    }
    uint8_t rnd[32] = {0}, pid[32];
    cuzk_post_prover_id(pid, 1000);
    const uint8_t *vs[1] = {buf};
    cuzk_post_job *j = NULL;
    char err[256] = "";
    CHECK(cuzk_post_job_new(&j, 8, vs, &len, 1, rnd, pid, 0, err, sizeof err) == 0);
    if (!j) {
        fprintf(stderr, "golden: %s\n", err);
        free(buf);
        return;
    }
    size_t ni;
    const cuzk_fr *in = cuzk_post_job_inputs(j, &ni);
    CHECK(ni == 25839);
    cuzk_circuit_fn fn;
    void *vctx;
    cuzk_post_job_circuit(j, &fn, &vctx);
    cuzk_post_circuit_ctx one = *(const cuzk_post_circuit_ctx *)vctx;
    one.n_sectors = 1;
    cuzk_cs *cs;
    CHECK(cuzk_cs_new(&cs, CUZK_CS_CHECK, 0) == 0);
    CHECK(cuzk_cs_synthesize(cs, fn, &one) == 0);
    size_t at;
    const char *where;
    CHECK(cuzk_cs_is_satisfied(cs, &at, &where));
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    CHECK(k.constraints - k.inputs == 53333 && k.inputs == 12);
    const cuzk_fr *ci = cuzk_cs_input_assignment(cs);
    CHECK(!memcmp(ci + 1, in, 11 * sizeof *in));
    cuzk_cs_free(cs);
    /* the last sector (a padded copy) has the same inputs */
    CHECK(!memcmp(in + 11 * 2348, in, 11 * sizeof *in));
    cuzk_post_job_free(j);
    /* other randomness: the vanilla proof no longer matches its challenges */
    rnd[0] = 1;
    CHECK(cuzk_post_job_new(&j, 8, vs, &len, 1, rnd, pid, 0, err, sizeof err) == CUZK_ERR_ARG);
    free(buf);
}

/* The parallel native checks give the same job as the serial ones, and
 * report the first bad proof by its position. */
static void test_job_par(void)
{
    const cuzk_fil_post_info *p = info(10);
    pt_sector s[2];
    pt_sector_make(&s[0], 21, 2048);
    pt_sector_make(&s[1], 22, 2048);
    uint8_t rnd[32], pid[32] = {1};
    pt_rand_dom(rnd);
    uint8_t *v[2];
    size_t len[2];
    for (int i = 0; i < 2; i++)
        v[i] = pt_vanilla(&len[i], &s[i], p, rnd, (uint64_t)i);
    cuzk_pool *pool = NULL;
    CHECK(cuzk_pool_create(&pool, 2) == 0);
    cuzk_post_job *a = NULL, *b = NULL;
    char err[256] = "";
    CHECK(cuzk_post_job_new(&a, 10, (const uint8_t *const *)v, len, 2, rnd, pid, 0, err, sizeof err) == 0);
    CHECK(cuzk_post_job_new_par(&b, 10, (const uint8_t *const *)v, len, 2, rnd, pid, 0, cuzk_pool_par(pool),
                                err, sizeof err) == 0);
    if (a && b) {
        size_t na, nb;
        const cuzk_fr *ia = cuzk_post_job_inputs(a, &na), *ib = cuzk_post_job_inputs(b, &nb);
        CHECK(na == nb && !memcmp(ia, ib, na * sizeof *ia));
    }
    cuzk_post_job_free(a);
    cuzk_post_job_free(b);
    v[1][len[1] - 40] ^= 1; /* inside comm_c of the second proof */
    CHECK(cuzk_post_job_new_par(&b, 10, (const uint8_t *const *)v, len, 2, rnd, pid, 0, cuzk_pool_par(pool),
                                err, sizeof err) != 0 &&
          !b);
    CHECK(strstr(err, "vanilla proof 1") != NULL);
    cuzk_pool_destroy(pool);
    for (int i = 0; i < 2; i++) {
        free(v[i]);
        cuzk_fil_tree_free(s[i].tree);
    }
}

static const test_case tests[] = {
    {"rust_fallback_counts", test_rust_fallback_counts},
    {"registered_counts", test_registered_counts},
    {"prover_id", test_prover_id},
    {"winning_2k_job", test_winning_2k_job},
    {"window_2k_job", test_window_2k_job},
    {"circuit_rejects", test_circuit_rejects},
    {"golden_32g_sector", test_golden_32g_sector},
    {"job_par", test_job_par},
};
TEST_MAIN(tests)
