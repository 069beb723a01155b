/* PCE files that cannot hurt (src/engine/pce_cache.c, docs/pce.md "Trust in
 * the engine"), with the chain test provider:
 *  - a file of other matrices (one coefficient changed, every checksum and
 *    its R1CS digest recomputed: well formed) and an old-format file are
 *    found stale against this build's digest, removed, the proof made
 *    directly, and the file extracted again and used;
 *  - a file that changes in place behind an unchanged stat (size, inode,
 *    mtime restored -- what a bad disk or an editor that keeps the mtime
 *    looks like) after the engine verified it slips past every check: the
 *    partitions proved through it fail self-verification, are synthesized
 *    again directly, the job completes with valid proofs, one WARN line
 *    says so, the file is renamed aside and never used or extracted again
 *    by that engine;
 *  - directories writable by others are refused with one WARN line: the
 *    other one is used, or with none left no PCE at all, and the proofs
 *    complete; without $HOME the state directory is $STATE_DIRECTORY. */
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/groth16.h"
#include "cuzk/pce.h"
#include "harness.h"
#include "pce_util.h"
#include "r1cs/pce_internal.h"

#define ENGINE_TEST_NAME "pcetrust"
#include "engine_util.h"

#define CHAIN_N 3000

static size_t count(const char *log, const char *what)
{
    size_t n = 0;
    for (const char *p = log; p && (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static bool has(const char *log, const char *what)
{
    if (log && strstr(log, what)) return true;
    fprintf(stderr, "  the log does not say \"%s\"\n", what);
    return false;
}

/* One job of `parts` partitions (x0 = 5 + k) with stderr captured: it
 * completes and every proof verifies independently.  The log (malloc'd). */
static char *prove(cuzk_engine *e, const char *rid, size_t parts, bool *ok)
{
    char id[CUZK_JOB_ID_MAX], settings[96], err[256];
    snprintf(settings, sizeof settings, "n=%d partitions=%zu x0=5", CHAIN_N, parts);
    cuzk_engine_request r = {.request_id = rid, .kind = CUZK_PROOF_TEST};
    r.vanilla_proof = (const uint8_t *)settings;
    r.vanilla_proof_len = strlen(settings);
    if (!engine_log_begin()) return NULL;
    cuzk_engine_result res = {0};
    *ok = cuzk_engine_submit(e, id, NULL, NULL, &r, err, sizeof err) == 0 &&
          cuzk_engine_await(e, &res, id, 0) == 0 && res.status == CUZK_JOB_COMPLETED &&
          res.proof_len == parts * CUZK_G16_PROOF_BYTES;
    for (size_t k = 0; *ok && k < parts; k++)
        *ok = engine_chain_proof_ok(res.proof + k * CUZK_G16_PROOF_BYTES, CHAIN_N, 5 + k);
    if (!*ok) fprintf(stderr, "  job %s: status %d: %s\n", id, (int)res.status, res.error);
    cuzk_engine_result_clear(&res);
    return engine_log_end();
}

static void pce_path(char *out, size_t cap, const char *dir)
{
    snprintf(out, cap, "%s/chain-%d.pce", dir, CHAIN_N);
}

/* Until path holds a valid file of the circuit (an extraction's rename). */
static bool wait_valid(const char *path, unsigned ms)
{
    if (!engine_wait_pce(path, CHAIN_N, ms)) return false;
    sleep_ms(200); /* the extraction thread tells the slot after its rename */
    return true;
}

static cuzk_engine *engine(const char *state_dir)
{
    cuzk_engine_config c;
    engine_cfg_base(&c);
    c.log_level = CUZK_LOG_INFO;
    snprintf(c.srs_state_dir, sizeof c.srs_state_dir, "%s", state_dir ? state_dir : "");
    return start(&c);
}

/* A valid file of the circuit in the param cache (made by an engine). */
static void make_pce(const char *path)
{
    if (!access(path, F_OK)) return;
    cuzk_engine *e = engine(NULL);
    REQUIRE(e);
    bool ok = false;
    free(prove(e, "make", 1, &ok));
    CHECK(ok && wait_valid(path, 60000));
    cuzk_engine_destroy(e);
}

/* The offset of the last record's coefficient code: the input constraint
 * A = {input: +1} (three length bytes, a 4-byte column, code 1). */
static size_t last_code(const uint8_t *b)
{
    size_t last = PCE_HEADER_BYTES + pce_get64(b + PCE_H_REC_LEN) - 8;
    CHECK(b[last] == 1 && b[last + 7] == 1);
    return last + 7;
}

/* A stale file (version 1, or other matrices made to look valid) is
 * removed at open; the proof is direct; the file is extracted again and
 * used. */
static void test_stale(void)
{
    char path[300];
    pce_path(path, sizeof path, cache_dir());
    make_pce(path);
    size_t len;
    uint8_t *good = test_read_file(path, &len);
    REQUIRE(good && len > PCE_HEADER_BYTES);
    for (int v = 0; v < 2; v++) {
        uint8_t *b = malloc(len);
        REQUIRE(b);
        memcpy(b, good, len);
        if (v == 0)
            b[last_code(b)] = 3; /* +2 instead of +1 */
        else
            pce_put32(b + PCE_H_VERSION, 1);
        pce_test_resign(b, len);
        pce_test_write(path, b, len);
        free(b);
        cuzk_engine *e = engine(NULL);
        REQUIRE(e);
        bool ok = false;
        char *log = prove(e, v ? "old-format" : "other-matrices", 1, &ok);
        CHECK(ok && has(log, v ? "version 1" : "other matrices") && has(log, "removed") &&
              !strstr(log, "uses the PCE") && count(log, "WARN") == 1);
        free(log);
        CHECK(wait_valid(path, 60000));
        log = prove(e, "again", 1, &ok);
        CHECK(ok && has(log, "uses the PCE") && !strstr(log, "WARN"));
        free(log);
        cuzk_engine_destroy(e);
    }
    free(good);
}

/* Change the coefficient in place: same inode and size, mtime put back. */
static void change_in_place(const char *path)
{
    struct stat sb;
    REQUIRE(stat(path, &sb) == 0);
    size_t len;
    uint8_t *b = test_read_file(path, &len);
    REQUIRE(b);
    size_t at = last_code(b);
    free(b);
    int fd = open(path, O_WRONLY);
    REQUIRE(fd >= 0);
    const uint8_t three = 3;
    CHECK(pwrite(fd, &three, 1, (off_t)at) == 1);
    struct timespec ts[2] = {sb.st_atim, sb.st_mtim};
    CHECK(futimens(fd, ts) == 0);
    close(fd);
}

static void test_bad_proof(void)
{
    char path[300], retired[320];
    pce_path(path, sizeof path, cache_dir());
    snprintf(retired, sizeof retired, "%s.retired", path);
    unlink(path);
    make_pce(path);
    cuzk_engine *e = engine(NULL);
    REQUIRE(e);
    bool ok = false;
    char *log = prove(e, "verified", 2, &ok);
    CHECK(ok && has(log, "uses the PCE") && !strstr(log, "WARN"));
    free(log);
    change_in_place(path);
    log = prove(e, "slipped", 2, &ok); /* both partitions fail through the PCE */
    CHECK(ok && has(log, "failed self-verification") && has(log, "renamed to") && count(log, "WARN") == 1 &&
          !strstr(log, "FAILED"));
    free(log);
    CHECK(access(path, F_OK) != 0 && access(retired, F_OK) == 0);
    log = prove(e, "after", 1, &ok); /* direct, and nothing extracted again */
    CHECK(ok && !strstr(log, "uses the PCE") && !strstr(log, "extracting") && !strstr(log, "WARN"));
    free(log);
    sleep_ms(500);
    CHECK(access(path, F_OK) != 0);
    cuzk_engine_destroy(e);
    unlink(retired);
}

/* Directories writable by others: refused with one WARN line. */
static void test_unsafe_dirs(void)
{
    char state[300] = "/tmp/cuzk-pcetrust-state-XXXXXX", path[300], spath[400];
    REQUIRE(mkdtemp(state));
    pce_path(path, sizeof path, cache_dir());
    pce_path(spath, sizeof spath, state);
    unlink(path);
    /* param cache open to all: the state directory is used */
    REQUIRE(chmod(cache_dir(), 0777) == 0);
    REQUIRE(engine_log_begin());
    cuzk_engine *e = engine(state);
    char *log = engine_log_end();
    CHECK(e && count(log, "WARN") == 1 && has(log, "writable by others") &&
          has(log, "other directory is used"));
    free(log);
    REQUIRE(e);
    bool ok = false;
    log = prove(e, "one-refused", 1, &ok);
    CHECK(ok && !strstr(log, "WARN"));
    free(log);
    CHECK(wait_valid(spath, 60000) && access(path, F_OK) != 0);
    log = prove(e, "state-used", 1, &ok);
    CHECK(ok && has(log, "uses the PCE") && has(log, state));
    free(log);
    cuzk_engine_destroy(e);
    unlink(spath);
    /* both open to all: no PCE, one WARN, the proofs complete */
    REQUIRE(chmod(state, 0777) == 0);
    REQUIRE(engine_log_begin());
    e = engine(state);
    char *created = engine_log_end();
    CHECK(e && count(created, "WARN") == 1 && has(created, "writable by others") &&
          has(created, "no safe directory"));
    free(created);
    REQUIRE(e);
    for (int i = 0; i < 2; i++) {
        log = prove(e, i ? "none-2" : "none-1", 1, &ok);
        CHECK(ok && !strstr(log, "PCE") && !strstr(log, "WARN"));
        free(log);
    }
    sleep_ms(500);
    CHECK(access(path, F_OK) != 0 && access(spath, F_OK) != 0);
    cuzk_engine_destroy(e);
    /* no $HOME (nor srs.state_dir, $CUZK_STATE_DIR): $STATE_DIRECTORY */
    REQUIRE(chmod(state, 0700) == 0);
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *csd = getenv("CUZK_STATE_DIR") ? strdup(getenv("CUZK_STATE_DIR")) : NULL;
    unsetenv("HOME");
    unsetenv("CUZK_STATE_DIR");
    setenv("STATE_DIRECTORY", state, 1);
    e = engine(NULL);
    REQUIRE(e);
    free(prove(e, "no-home", 1, &ok));
    CHECK(ok && wait_valid(spath, 60000));
    cuzk_engine_destroy(e);
    unsetenv("STATE_DIRECTORY");
    if (home) setenv("HOME", home, 1);
    if (csd) setenv("CUZK_STATE_DIR", csd, 1);
    free(home);
    free(csd);
    unlink(spath);
    rmdir(state);
    REQUIRE(chmod(cache_dir(), 0700) == 0);
}

static const test_case tests[] = {
    {"pce_stale", test_stale},
    {"pce_bad_proof", test_bad_proof},
    {"pce_unsafe_dirs", test_unsafe_dirs},
};
TEST_MAIN(tests)
