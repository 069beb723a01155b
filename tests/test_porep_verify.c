/* PoRep public inputs and verify_seal (src/circuits/porep_verify.c)
 * against independent references:
 *  - tests/vectors/porep_inputs.txt, made by tests/vectors/porep_inputs.py
 *    (a stdlib-only Python implementation written from the spec: replica
 *    id, interactive / synthetic / NI challenges, DRG and expander
 *    parents), for 2 KiB (every mode), 8 MiB and a 32 GiB partition, plus
 *    raw parent lists for 2 KiB, 8 MiB and 32 GiB graphs;
 *  - the real polka-storage 2 KiB PoRep proof (../shared/data/external),
 *    which must verify, and be rejected after any single-byte mutation of
 *    the proof or of any public value. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/porep.h"
#include "cuzk/post.h"
#include "cuzk/seal_graph.h"
#include "cuzk/status.h"
#include "harness.h"
#include "vec_reader.h"

/* ---- vectors ------------------------------------------------------------------ */

static struct {
    bool active;
    cuzk_porep_config cfg;
    cuzk_porep_sector sec;
    uint32_t partition;
    size_t ninputs, checked;
    cuzk_fr in[400];
    bool computed;
    cuzk_seal_graph g;
    bool graph;
    size_t cases, parents;
} V;

static int parse_api(const char *s)
{
    return !strcmp(s, "1.0") ? CUZK_FIL_API_V1_0 : !strcmp(s, "1.1") ? CUZK_FIL_API_V1_1 : CUZK_FIL_API_V1_2;
}

static void compute(const vec *v)
{
    if (V.computed) return;
    char err[256] = "";
    size_t n = 0;
    int st = cuzk_porep_public_inputs(V.in, 400, &n, &V.cfg, &V.sec, V.partition, NULL, err, sizeof err);
    if (st)
        vfail(v, "public inputs: %s", err);
    else if (n != V.ninputs)
        vfail(v, "%zu inputs, want %zu", n, V.ninputs);
    V.computed = true;
}

static void on_vec(const vec *v)
{
    const char *op = v->tok[0];
    if (!strcmp(op, "case")) {
        if (!want_ntok(v, 8)) return;
        memset(&V.sec, 0, sizeof V.sec);
        V.active = true, V.computed = false, V.checked = 0;
        V.partition = (uint32_t)strtoul(v->tok[6], NULL, 10);
        V.ninputs = strtoul(v->tok[7], NULL, 10);
        char err[256];
        if (strcmp(v->tok[2], "-")) {
            if (cuzk_porep_config_for(&V.cfg, strtoull(v->tok[2], NULL, 10), err, sizeof err))
                vfail(v, "%s", err);
        } else {
            memset(&V.cfg, 0, sizeof V.cfg);
            V.cfg.info.sector_size = strtoull(v->tok[5], NULL, 10);
            V.cfg.info.api_version = parse_api(v->tok[3]);
        }
        V.cases++;
    } else if (!strcmp(op, "porep_id") && V.active) {
        uint8_t id[32];
        if (!hexbytes(v, 1, id, 32)) return;
        if (!memcmp(V.cfg.porep_id, id, 32) && V.cfg.info.name) return; /* the registry's own */
        char err[256];
        if (cuzk_porep_config_custom(&V.cfg, V.cfg.info.sector_size, id, V.cfg.info.api_version, err,
                                     sizeof err))
            vfail(v, "%s", err);
    } else if (!strcmp(op, "prover_id"))
        hexbytes(v, 1, V.sec.prover_id, 32);
    else if (!strcmp(op, "sector_id"))
        V.sec.sector_id = strtoull(v->tok[1], NULL, 10);
    else if (!strcmp(op, "ticket"))
        hexbytes(v, 1, V.sec.ticket, 32);
    else if (!strcmp(op, "seed"))
        hexbytes(v, 1, V.sec.seed, 32);
    else if (!strcmp(op, "comm_d"))
        hexbytes(v, 1, V.sec.comm_d, 32);
    else if (!strcmp(op, "comm_r"))
        hexbytes(v, 1, V.sec.comm_r, 32);
    else if (!strcmp(op, "replica_id")) {
        compute(v);
        uint8_t want[32], got[32];
        if (!hexbytes(v, 1, want, 32)) return;
        char err[256];
        size_t n;
        CHECK(cuzk_porep_public_inputs(V.in, 400, &n, &V.cfg, &V.sec, V.partition, got, err, sizeof err) == CUZK_OK);
        same(v, "replica_id", got, 32, 1);
    } else if (!strcmp(op, "input")) {
        compute(v);
        size_t i = strtoul(v->tok[1], NULL, 10);
        if (i >= V.ninputs)
            vfail(v, "input index %zu out of range", i);
        else
            same_fr(v, "input", &V.in[i], 2), V.checked++;
    } else if (!strcmp(op, "end")) {
        if (V.checked != V.ninputs) vfail(v, "checked %zu of %zu inputs", V.checked, V.ninputs);
        V.active = false;
    } else if (!strcmp(op, "graph")) {
        uint8_t id[32];
        char err[256];
        if (!want_ntok(v, 5) || !hexbytes(v, 4, id, 32)) return;
        cuzk_seal_graph_free(&V.g);
        V.graph = cuzk_seal_graph_init(&V.g, strtoull(v->tok[3], NULL, 10), id, parse_api(v->tok[2]), NULL,
                                       err, sizeof err) == CUZK_OK;
        if (!V.graph) vfail(v, "graph: %s", err);
    } else if (!strcmp(op, "parents") && V.graph) {
        if (!want_ntok(v, 16)) return;
        uint32_t p[14];
        cuzk_seal_graph_parents(&V.g, strtoull(v->tok[1], NULL, 10), p);
        for (int k = 0; k < 14; k++)
            if (p[k] != strtoul(v->tok[2 + k], NULL, 10)) {
                vfail(v, "parent %d is %u, want %s", k, p[k], v->tok[2 + k]);
                break;
            }
        V.parents++;
    }
}

static void test_inputs_vectors(void)
{
    memset(&V, 0, sizeof V);
    run_file("porep_inputs.txt", on_vec, 100);
    cuzk_seal_graph_free(&V.g);
    CHECK(V.cases >= 8);
    CHECK(V.parents >= 50);
}

/* ---- polka-storage 2 KiB PoRep proof ---------------------------------------------- */

static const char *json_str(const char *json, const char *key, size_t *len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(json, pat);
    if (!p || !(p = strchr(p + strlen(pat), '"'))) return NULL;
    const char *e = strchr(p + 1, '"');
    if (!e) return NULL;
    *len = (size_t)(e - p - 1);
    return p + 1;
}

static int vfy(const cuzk_groth16_vk *vk, const cuzk_porep_config *cfg, const cuzk_porep_sector *s,
               const uint8_t proof[192])
{
    bool ok = false;
    char err[256];
    int st = cuzk_porep_verify(&ok, vk, cfg, s, proof, 192, err, sizeof err);
    return st ? -1 : ok;
}

static void test_polka_porep(void)
{
    const char *sh = test_shared_dir();
    char path[1024];
    snprintf(path, sizeof path, "%s/data/external/polka-2kib-porep.json", sh ? sh : "");
    size_t flen, l;
    char *json = sh ? (char *)test_read_file(path, &flen) : NULL;
    if (!json) {
        test_skip("../shared/data/external/polka-2kib-porep.json not found");
        return;
    }
    const char *h;
    uint8_t vkb[4096], proof[192], porep_id[32];
    cuzk_porep_sector s = {0};
    h = json_str(json, "vk_hex", &l);
    long vkn = h ? test_hex_decode(vkb, sizeof vkb, h, l) : -1;
    CHECK(vkn > 0);
#define HEX(key, dst, n) CHECK((h = json_str(json, key, &l)) && test_hex_decode(dst, n, h, l) == n)
    HEX("proof_hex", proof, 192);
    HEX("prover_id_hex", s.prover_id, 32);
    HEX("ticket_hex", s.ticket, 32);
    HEX("seed_hex", s.seed, 32);
    HEX("comm_r_hex", s.comm_r, 32);
    HEX("comm_d_hex", s.comm_d, 32);
    HEX("porep_id_hex", porep_id, 32);
#undef HEX
    s.sector_id = 77;
    CHECK(strstr(json, "\"sector_number\": 77") || strstr(json, "\"sector_number\":77"));
    cuzk_groth16_vk *vk = NULL;
    char err[256];
    CHECK(cuzk_post_vk_decode_compressed(&vk, vkb, (size_t)vkn, err, sizeof err) == CUZK_OK);
    cuzk_porep_config cfg;
    CHECK(cuzk_porep_config_custom(&cfg, 2048, porep_id, CUZK_FIL_API_V1_2, err, sizeof err) == CUZK_OK);
    CHECK(vfy(vk, &cfg, &s, proof) == 1);
    /* every single-byte mutation of the proof */
    for (int i = 0; i < 192; i++) {
        uint8_t p2[192];
        memcpy(p2, proof, 192);
        p2[i] ^= (uint8_t)(1 + test_rand64() % 255);
        CHECK(vfy(vk, &cfg, &s, p2) != 1);
    }
    /* every byte of every public value: rejected (or a non-canonical
     * status) unless the public inputs it yields are the same -- a seed
     * whose two challenges at 2 KiB (63 possible nodes each) happen to be
     * the original ones makes the same statement, which must verify. */
    cuzk_fr orig[64], mut[64];
    size_t no = 0, nm = 0;
    CHECK(cuzk_porep_public_inputs(orig, 64, &no, &cfg, &s, 0, NULL, err, sizeof err) == CUZK_OK);
    uint8_t *fields[] = {s.prover_id, s.ticket, s.seed, s.comm_r, s.comm_d};
    for (size_t f = 0; f < 5; f++)
        for (int i = 0; i < 32; i++) {
            uint8_t keep = fields[f][i];
            fields[f][i] ^= (uint8_t)(1 + test_rand64() % 255);
            bool same =
                cuzk_porep_public_inputs(mut, 64, &nm, &cfg, &s, 0, NULL, err, sizeof err) == CUZK_OK &&
                nm == no && !memcmp(mut, orig, no * sizeof *orig);
            int r = vfy(vk, &cfg, &s, proof);
            if ((r == 1) != same)
                fprintf(stderr, "  field %zu byte %d (%02x -> %02x): verify %d, same inputs %d\n", f, i, keep,
                        fields[f][i], r, same);
            CHECK(same ? r == 1 : r != 1);
            fields[f][i] = keep;
        }
    s.sector_id = 78;
    CHECK(vfy(vk, &cfg, &s, proof) == 0);
    s.sector_id = 77;
    /* the same record under api 1.0 (node-1 last) or the registry's porep_id */
    cuzk_porep_config c2;
    CHECK(cuzk_porep_config_custom(&c2, 2048, porep_id, CUZK_FIL_API_V1_0, err, sizeof err) == CUZK_OK);
    CHECK(vfy(vk, &c2, &s, proof) == 0);
    CHECK(cuzk_porep_config_for(&c2, 5, err, sizeof err) == CUZK_OK);
    CHECK(vfy(vk, &c2, &s, proof) == 0);
    CHECK(vfy(vk, &cfg, &s, proof) == 1);
    /* wrong length */
    bool ok;
    CHECK(cuzk_porep_verify(&ok, vk, &cfg, &s, proof, 191, err, sizeof err) == CUZK_ERR_ARG);
    cuzk_groth16_vk_free(vk);
    free(json);
}

static const test_case tests[] = {
    {"inputs_vectors", test_inputs_vectors},
    {"polka_porep", test_polka_porep},
};

TEST_MAIN(tests)
