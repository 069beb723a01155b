/* Registered proofs, parameter file names (checked against the official
 * parameters.json), parameters.json lookup, BLAKE2b digests, CIDs
 * (checked against the golden public info of a real WindowPoSt). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/status.h"
#include "harness.h"

static char *load_shared(const char *rel, size_t *len)
{
    const char *sh = test_shared_dir();
    if (!sh) return NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", sh, rel);
    return (char *)test_read_file(path, len);
}

static void test_post_table(void)
{
    const cuzk_fil_post_info *p;
    CHECK(cuzk_fil_post_lookup(&p, 0) == CUZK_OK);
    CHECK(p->winning && p->sector_size == 2048 && p->challenge_count == 66 && p->sector_count == 1);
    CHECK(p->circuit_sector_count == 66 && p->circuit_challenge_count == 1);
    CHECK(!strcmp(p->name, "StackedDrgWinning2KiBV1") && !strcmp(p->circuit_id, "winning-2k"));
    CHECK(cuzk_fil_post_lookup(&p, 8) == CUZK_OK);
    CHECK(!p->winning && p->sector_size == 32ull << 30 && p->sector_count == 2349);
    CHECK(p->api_version == CUZK_FIL_API_V1_0 && p->challenge_count == 10);
    CHECK(cuzk_fil_post_lookup(&p, 14) == CUZK_OK);
    CHECK(!strcmp(p->name, "StackedDrgWindow64GiBV1_2") && p->sector_count == 2300);
    CHECK(p->api_version == CUZK_FIL_API_V1_2 && !strcmp(p->circuit_id, "wpost-64g"));
    CHECK(cuzk_fil_post_lookup(&p, 15) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_post_lookup_circuit(&p, "wpost-512m") == CUZK_OK && p->id == 12);
    CHECK(cuzk_fil_post_lookup_circuit(&p, "winning-8m") == CUZK_OK && p->id == 1);
    CHECK(cuzk_fil_post_lookup_circuit(&p, "wpost-1t") == CUZK_ERR_ARG);
    const cuzk_fil_seal_info *s;
    CHECK(cuzk_fil_seal_lookup(&s, 8) == CUZK_OK);
    CHECK(!strcmp(s->name, "StackedDrg32GiBV1_1") && s->partitions == 10 && s->layers == 11);
    CHECK(s->challenges_per_partition == 18 && s->api_version == CUZK_FIL_API_V1_1);
    CHECK(cuzk_fil_seal_lookup(&s, 15) == CUZK_OK);
    CHECK(s->feature == CUZK_FIL_SEAL_NI && s->partitions == 13 && s->api_version == CUZK_FIL_API_V1_2);
    uint8_t id[32];
    cuzk_fil_seal_porep_id(id, s);
    CHECK(id[0] == 15 && id[1] == 0 && id[31] == 0);
    CHECK(cuzk_fil_seal_lookup(&s, 20) == CUZK_ERR_ARG);
}

/* Every PoSt and PoRep file name we compute must be in parameters.json,
 * with the right sector size; and every PoSt/PoRep entry there must be
 * one we compute. */
static void test_param_names(void)
{
    size_t len;
    char *json = load_shared("data/filecoin/parameters.json", &len);
    if (!json) {
        test_skip("../shared/data/filecoin/parameters.json not found");
        return;
    }
    char id[200], name[220], err[CUZK_FIL_ERR_LEN];
    int found = 0;
    for (uint64_t k = 0; k < 15; k++) {
        const cuzk_fil_post_info *p;
        CHECK(cuzk_fil_post_lookup(&p, k) == CUZK_OK);
        CHECK(cuzk_fil_post_param_id(id, sizeof id, p) == CUZK_OK);
        for (int e = 0; e < 2; e++) {
            CHECK(cuzk_fil_param_file_name(name, sizeof name, id, e ? "vk" : "params") == CUZK_OK);
            cuzk_fil_param_entry ent;
            int st = cuzk_fil_params_json_lookup(&ent, json, len, name, err, sizeof err);
            if (st) printf("missing %s (%s)\n", name, p->name);
            CHECK(st == CUZK_OK && ent.sector_size == p->sector_size && strlen(ent.digest) == 32);
            found += st == CUZK_OK;
        }
    }
    for (uint64_t k = 0; k < 20; k++) {
        const cuzk_fil_seal_info *s;
        CHECK(cuzk_fil_seal_lookup(&s, k) == CUZK_OK);
        CHECK(cuzk_fil_seal_param_id(id, sizeof id, s) == CUZK_OK);
        CHECK(cuzk_fil_param_file_name(name, sizeof name, id, "params") == CUZK_OK);
        cuzk_fil_param_entry ent;
        int st = cuzk_fil_params_json_lookup(&ent, json, len, name, err, sizeof err);
        if (st) printf("missing %s (%s)\n", name, s->name);
        CHECK(st == CUZK_OK && ent.sector_size == s->sector_size);
    }
    CHECK(found == 30);
    /* SnapDeals: every production size's params and vk are listed */
    static const uint64_t snap_sizes[5] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    char sid[200], sname[220];
    for (int k = 0; k < 5; k++) {
        CHECK(cuzk_fil_snap_param_id(sid, sizeof sid, snap_sizes[k]) == CUZK_OK);
        for (int e = 0; e < 2; e++) {
            CHECK(cuzk_fil_param_file_name(sname, sizeof sname, sid, e ? "vk" : "params") == CUZK_OK);
            cuzk_fil_param_entry ent;
            int st = cuzk_fil_params_json_lookup(&ent, json, len, sname, err, sizeof err);
            if (st) printf("missing %s\n", sname);
            CHECK(st == CUZK_OK && ent.sector_size == snap_sizes[k]);
        }
    }
    CHECK(cuzk_fil_snap_param_id(sid, sizeof sid, 3000) == CUZK_ERR_ARG);
    /* the file lists 2 PoSt circuits x 5 sizes x (params, vk) */
    int posts = 0;
    for (const char *q = json; (q = strstr(q, "\"v28-proof-of-spacetime-fallback-")); q++) posts++;
    CHECK(posts == 20);
    /* the 2 KiB WindowPoSt entry, by hand */
    const cuzk_fil_post_info *w;
    CHECK(cuzk_fil_post_lookup(&w, 10) == CUZK_OK);
    CHECK(cuzk_fil_post_param_id(id, sizeof id, w) == CUZK_OK);
    CHECK(!strncmp(id, "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-", 61));
    cuzk_fil_param_entry ent;
    CHECK(cuzk_fil_params_json_lookup(&ent, json, len, "v28-nope.params", err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_params_json_lookup(&ent, json, len / 2, name, err, sizeof err) != CUZK_OK);
    free(json);
}

static void test_json_lookup_synthetic(void)
{
    const char *j = "{\n \"a.params\": {\"cid\": \"Qm1\", \"digest\": \"0123\", \"sector_size\": 2048},\n"
                    " \"b.vk\": {\"cid\": \"Qm2\", \"digest\": \"abcd\", \"sector_size\": 68719476736}}";
    cuzk_fil_param_entry e;
    char err[CUZK_FIL_ERR_LEN];
    CHECK(cuzk_fil_params_json_lookup(&e, j, strlen(j), "b.vk", err, sizeof err) == CUZK_OK);
    CHECK(!strcmp(e.cid, "Qm2") && !strcmp(e.digest, "abcd") && e.sector_size == 68719476736ull);
    CHECK(cuzk_fil_params_json_lookup(&e, j, strlen(j), "a.params", err, sizeof err) == CUZK_OK);
    CHECK(e.sector_size == 2048);
    const char *bad = "{\"a.params\": {\"cid\": \"Qm1\", \"digest\": 5}}";
    CHECK(cuzk_fil_params_json_lookup(&e, bad, strlen(bad), "a.params", err, sizeof err) ==
          CUZK_ERR_FORMAT);
    CHECK(strstr(err, "a.params") != NULL);
    /* a raw control character is not JSON: a NUL in the cid once cut it short silently (fuzz_paramsjson) */
    static const char nul[] = "{\"a.params\": {\"cid\": \"Qm\0x\", \"digest\": \"0123\", \"sector_size\": 2048}}";
    CHECK(cuzk_fil_params_json_lookup(&e, nul, sizeof nul - 1, "a.params", err, sizeof err) == CUZK_ERR_FORMAT);
    static const char tab[] = "{\"a.params\": {\"cid\": \"Qm1\", \"digest\": \"01\t23\", \"sector_size\": 2048}}";
    CHECK(cuzk_fil_params_json_lookup(&e, tab, sizeof tab - 1, "a.params", err, sizeof err) == CUZK_ERR_FORMAT);
}

static void test_digest(void)
{
    /* BLAKE2b-512 of "abc" (RFC 7693 appendix A): ba80a53f981c4d0d... */
    char path[] = "/tmp/cuzk_fil_digest_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fputs("abc", f);
    fclose(f);
    char d[33], err[CUZK_FIL_ERR_LEN];
    CHECK(cuzk_fil_file_digest(d, path, err, sizeof err) == CUZK_OK);
    CHECK(!strcmp(d, "ba80a53f981c4d0d6a2797b69f12f6e9"));
    /* integrity check against a parameters.json naming this file */
    const char *base = strrchr(path, '/') + 1;
    char json[256];
    snprintf(json, sizeof json, "{\"%s\": {\"cid\": \"Qm\", \"digest\": \"%s\", \"sector_size\": 2048}}",
             base, "ba80a53f981c4d0d6a2797b69f12f6e9");
    CHECK(cuzk_fil_params_check_file(json, strlen(json), path, err, sizeof err) == CUZK_OK);
    json[strlen(json) - 30] ^= 1; /* one digest character */
    CHECK(cuzk_fil_params_check_file(json, strlen(json), path, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "does not match") != NULL);
    remove(path);
    CHECK(cuzk_fil_file_digest(d, path, err, sizeof err) == CUZK_ERR_IO);
}

static void test_cid_golden(void)
{
    size_t len, vlen;
    char *pub = load_shared("data/filecoin/window-post-32g-golden.pub.json", &len);
    uint8_t *vp = (uint8_t *)load_shared("data/filecoin/window-post-32g-golden.vproof", &vlen);
    if (!pub || !vp) {
        free(pub);
        free(vp);
        test_skip("../shared/data/filecoin golden files not found");
        return;
    }
    const char *k = strstr(pub, "\"SealedCID\":{\"/\":\"");
    CHECK(k != NULL);
    k += strlen("\"SealedCID\":{\"/\":\"");
    char cid[128];
    size_t n = (size_t)(strchr(k, '"') - k);
    CHECK(n < sizeof cid);
    memcpy(cid, k, n);
    cid[n] = 0;
    uint8_t comm[32];
    int kind = 0;
    char err[CUZK_FIL_ERR_LEN];
    CHECK(cuzk_fil_cid_decode(comm, &kind, cid, err, sizeof err) == CUZK_OK);
    CHECK(kind == CUZK_FIL_COMM_R);
    CHECK(memcmp(comm, vp + 8, 32) == 0); /* comm_r of the golden proof */
    char back[80];
    CHECK(cuzk_fil_cid_encode(back, sizeof back, comm, CUZK_FIL_COMM_R) == CUZK_OK);
    CHECK(!strcmp(back, cid));
    free(pub);
    free(vp);
}

static void test_cid_roundtrip_and_errors(void)
{
    char err[CUZK_FIL_ERR_LEN], s[80];
    for (int it = 0; it < 64; it++) {
        uint8_t c[32], back[32];
        test_rand_bytes(c, 32);
        int kind = (it & 1) ? CUZK_FIL_COMM_D : CUZK_FIL_COMM_R, got;
        CHECK(cuzk_fil_cid_encode(s, sizeof s, c, kind) == CUZK_OK);
        CHECK(s[0] == 'b' && strlen(s) == (kind == CUZK_FIL_COMM_R ? 65u : 64u));
        CHECK(cuzk_fil_cid_decode(back, &got, s, err, sizeof err) == CUZK_OK);
        CHECK(got == kind && !memcmp(back, c, 32));
    }
    /* comm_d of a 2 KiB piece, as lotus prints it: prefix baga6ea4sea */
    uint8_t z[32] = {0};
    CHECK(cuzk_fil_cid_encode(s, sizeof s, z, CUZK_FIL_COMM_D) == CUZK_OK);
    CHECK(!strncmp(s, "baga6ea4sea", 11));
    CHECK(cuzk_fil_cid_encode(s, sizeof s, z, CUZK_FIL_COMM_R) == CUZK_OK);
    CHECK(!strncmp(s, "bagboea4b5a", 11));
    uint8_t c[32];
    int kind;
    char m[80];
    strcpy(m, s);
    m[0] = 'B';
    CHECK(cuzk_fil_cid_decode(c, &kind, m, err, sizeof err) == CUZK_ERR_FORMAT && strstr(err, "multibase"));
    strcpy(m, s);
    m[10] = '1';
    CHECK(cuzk_fil_cid_decode(c, &kind, m, err, sizeof err) == CUZK_ERR_FORMAT && strstr(err, "character 10"));
    strcpy(m, s);
    m[strlen(m) - 2] = 0;
    CHECK(cuzk_fil_cid_decode(c, &kind, m, err, sizeof err) == CUZK_ERR_FORMAT);
    strcpy(m, s);
    m[5] = 'c'; /* changes the codec/multihash bits */
    CHECK(cuzk_fil_cid_decode(c, &kind, m, err, sizeof err) == CUZK_ERR_FORMAT);
    CHECK(cuzk_fil_cid_encode(s, 10, z, CUZK_FIL_COMM_D) == CUZK_ERR_ARG);
    CHECK(cuzk_fil_cid_encode(s, sizeof s, z, 7) == CUZK_ERR_ARG);
}

static const test_case tests[] = {
    {"post_table", test_post_table},
    {"param_names", test_param_names},
    {"json_lookup_synthetic", test_json_lookup_synthetic},
    {"digest", test_digest},
    {"cid_golden", test_cid_golden},
    {"cid_roundtrip_errors", test_cid_roundtrip_and_errors},
};
TEST_MAIN(tests)
