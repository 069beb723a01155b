/* The built-in test provider: the `chain` circuit (cuzk/r1cs.h) with knobs
 * that make scheduling tests deterministic (sleep_ms), exercise failure
 * paths (fail, bad_inputs) and the budget (mem).  Settings arrive as a text
 * line in vanilla_proof (engine.h documents the keys).
 *
 * The engine registers it only when configured (engine.test_provider; the
 * daemon's daemon.test_provider): its params are made from a public seed,
 * so they must never be served, or written, where real params live.  They
 * go to TEST_DIR inside param_cache, a directory of their own that no
 * Filecoin file name can reach (those are flat v28-* names). */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine_internal.h"

#define TEST_DIR "cuzk-test"

typedef struct {
    size_t n, partitions;
    uint64_t x0, sleep_ms, mem;
    bool bad_inputs;
} chain_req;

static int parse_u64(uint64_t *out, const char *v, uint64_t max)
{
    if (!*v) return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || x > max || *v == '-') return -1;
    *out = x;
    return 0;
}

/* Bytes one partition reserves: the estimate of the prover that copied the
 * evaluations (3 cs arrays, 3 NTT arrays of m = 2^ceil(log2 constraints),
 * assignment, scratch).  The in-place prover needs ~(4.5 m + c) x 32 B
 * (post_provider.c); the test budgets were tuned with this larger figure,
 * which only makes the test provider's reservations conservative. */
static uint64_t chain_bytes(size_t n)
{
    uint64_t c = n + 2, m = 1;
    while (m < c) m <<= 1;
    return 7 * m * sizeof(cuzk_fr) + 2 * (n + 2) * sizeof(cuzk_fr) + (64u << 10);
}

static int tp_parse(void *ctx, void **state, char circuit_id[64], size_t *partitions,
                    uint64_t *partition_bytes, const cuzk_engine_request *req, char *err,
                    size_t err_len)
{
    chain_req r = {.n = 64, .partitions = 1, .x0 = 3};
    char line[512];
    size_t len = req->vanilla_proof_len;
    if (len >= sizeof line)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "test provider: settings longer than %zu bytes",
                         sizeof line - 1);
    if (len) memcpy(line, req->vanilla_proof, len);
    line[len] = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "test provider: '%s' is not key=value", tok);
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        uint64_t x;
        int bad = 0;
        if (!strcmp(k, "n")) bad = parse_u64(&x, v, 1u << 20) || x < 1, r.n = x;
        else if (!strcmp(k, "partitions")) bad = parse_u64(&x, v, 64) || x < 1, r.partitions = x;
        else if (!strcmp(k, "x0")) bad = parse_u64(&r.x0, v, UINT64_MAX);
        else if (!strcmp(k, "sleep_ms")) bad = parse_u64(&r.sleep_ms, v, 600000);
        else if (!strcmp(k, "mem")) bad = parse_u64(&r.mem, v, UINT64_MAX);
        else if (!strcmp(k, "bad_inputs")) bad = parse_u64(&x, v, 1), r.bad_inputs = x;
        else if (!strcmp(k, "fail")) {
            bad = parse_u64(&x, v, 1);
            if (!bad && x) return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "test provider: fail=1 requested");
        } else {
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "test provider: unknown key '%s'", k);
        }
        if (bad)
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "test provider: bad value '%s' for %s", v, k);
    }
    chain_req *s = malloc(sizeof *s);
    if (!s) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "test provider: out of memory");
    *s = r;
    *state = s;
    snprintf(circuit_id, 64, "chain-%zu", r.n);
    *partitions = r.partitions;
    *partition_bytes = r.mem ? r.mem : chain_bytes(r.n);
    return CUZK_OK;
}

static void tp_free(void *ctx, void *state) { free(state); }

static int circuit_n(size_t *n, const char *id)
{
    uint64_t x;
    if (strncmp(id, "chain-", 6) || parse_u64(&x, id + 6, 1u << 20) || x < 1)
        return CUZK_ENGINE_ERR_NOT_FOUND;
    *n = x;
    return CUZK_OK;
}

static int tp_srs_file(void *ctx, const char *id, char *file, size_t cap, cuzk_groth16_shape *shape)
{
    size_t n;
    if (circuit_n(&n, id)) return CUZK_ENGINE_ERR_NOT_FOUND;
    if ((size_t)snprintf(file, cap, TEST_DIR "/%s.params", id) >= cap) return CUZK_ENGINE_ERR_NOT_FOUND;
    if (!shape) return CUZK_OK;
    /* the shape the loader checks, from a values-free synthesis */
    cuzk_cs *cs = NULL;
    cuzk_chain_ctx cc = {.n = n};
    int st = cuzk_cs_new(&cs, CUZK_CS_SHAPE, 0);
    if (!st) st = cuzk_cs_synthesize(cs, cuzk_chain_circuit, &cc);
    if (!st) {
        cuzk_cs_counts c;
        cuzk_cs_get_counts(cs, &c);
        *shape = (cuzk_groth16_shape){c.inputs, c.aux, c.constraints, c.a_aux_density,
                                      c.b_input_density, c.b_aux_density};
    } else {
        memset(shape, 0, sizeof *shape); /* loader checks consistency only */
    }
    cuzk_cs_free(cs);
    return CUZK_OK;
}

static int tp_srs_create(void *ctx, const char *id, const char *path, char *err, size_t err_len)
{
    size_t n;
    if (circuit_n(&n, id))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "test provider: unknown circuit %s", id);
    cuzk_cs *cs = NULL;
    cuzk_chain_ctx cc = {.n = n};
    cuzk_fr_from_u64(&cc.x0, 3);
    cuzk_groth16_params *p = NULL;
    cuzk_groth16_r1cs r;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    static const char seed[] = "cuzk-engine-test";
    int st = cuzk_cs_new(&cs, CUZK_CS_WITNESS, CUZK_CS_MATRICES);
    if (!st) st = cuzk_cs_synthesize(cs, cuzk_chain_circuit, &cc);
    if (!st) st = cuzk_groth16_r1cs_from_cs(&r, cs);
    if (!st) st = cuzk_groth16_setup_test(&p, &r, (const uint8_t *)seed, sizeof seed - 1, NULL, err, err_len);
    FILE *f = NULL;
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", path);
    const char *d = dirname(dir); /* param_cache/cuzk-test: made on first use */
    if (!st && mkdir(d, 0755) && errno != EEXIST)
        st = cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot create the TEST params directory %s: %s", d,
                       strerror(errno));
    if (!st && !(f = fopen(tmp, "wb")))
        st = cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    if (!st) st = cuzk_groth16_params_write(f, p);
    if (f && fclose(f) && !st) st = CUZK_ERR_IO;
    /* sidecar first, then the atomic rename: a reader never sees the
     * params without the test marker */
    if (!st) st = cuzk_groth16_mark_test(path, "cuzk engine test provider, seed cuzk-engine-test");
    if (!st && rename(tmp, path))
        st = cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (st) {
        unlink(tmp);
        if (!err[0]) cuzk_errf(err, err_len, st, "creating %s: %s", path, cuzk_strerror(st));
    }
    cuzk_groth16_params_free(p);
    cuzk_cs_free(cs);
    return st;
}

static int tp_synthesize(void *ctx, cuzk_cs *cs, const void *state, size_t k,
                         const cuzk_engine_task *task, char *err, size_t err_len)
{
    const chain_req *r = state;
    for (uint64_t slept = 0; slept < r->sleep_ms; slept += 5) {
        if (cuzk_engine_task_cancelled(task)) return CUZK_ENGINE_ERR_CANCELLED;
        struct timespec ts = {0, 5 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (cuzk_engine_task_cancelled(task)) return CUZK_ENGINE_ERR_CANCELLED;
    cuzk_chain_ctx cc = {.n = r->n};
    cuzk_fr_from_u64(&cc.x0, r->x0 + k);
    int st = cuzk_cs_synthesize(cs, cuzk_chain_circuit, &cc);
    return st ? cuzk_errf(err, err_len, st, "chain synthesis: %s", cuzk_cs_error(cs)) : CUZK_OK;
}

static int tp_public_inputs(void *ctx, cuzk_fr *out, size_t cap, size_t *n, const void *state,
                            size_t k, char *err, size_t err_len)
{
    const chain_req *r = state;
    if (cap < 1)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "test provider: vk has no public input slot");
    cuzk_fr x0;
    cuzk_fr_from_u64(&x0, r->x0 + k);
    cuzk_chain_output(&out[0], &x0, r->n); /* independent slow reference */
    if (r->bad_inputs) {
        cuzk_fr one;
        cuzk_fr_from_u64(&one, 1);
        cuzk_fr_add(&out[0], &out[0], &one);
    }
    *n = 1;
    return CUZK_OK;
}

void cuzk_engine_test_provider(cuzk_engine_provider *out)
{
    *out = (cuzk_engine_provider){
        .name = "chain-test",
        .ctx = NULL,
        .parse = tp_parse,
        .free_state = tp_free,
        .srs_file = tp_srs_file,
        .srs_create = tp_srs_create,
        .synthesize = tp_synthesize,
        .public_inputs = tp_public_inputs,
    };
}
