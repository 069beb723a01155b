/* A PCE file that changes while it is open (cuzk/pce.h, cuzk/mapguard.h).
 *
 * A chain circuit's PCE is opened, then its file is cut to half (at a page
 * boundary, so that the first byte read past the cut is on a page that is
 * gone) on the same inode, as an in-place rewrite or a full disk does:
 * touching that page raises SIGBUS.  With the
 * guard installed, cuzk_pce_evaluate, cuzk_pce_check, cuzk_pce_evaluate_ab
 * and cuzk_pce_fill_c must each return CUZK_ERR_CHANGED with a message that
 * names the file and both sizes, leave the cs as it was, and the process
 * must live on -- on the calling thread and on pool threads (each task
 * arms its own recovery point).  The reference that the fault is real: the
 * same cuzk_pce_check in a forked child whose SIGBUS is at its default
 * action kills the child with SIGBUS.  Rewrites that keep the size (a
 * rename over the file, a removal) are seen by cuzk_pce_unchanged. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/mapguard.h"
#include "cuzk/pce_lean.h"
#include "cuzk/pool.h"
#include "harness.h"
#include "r1cs/pce_internal.h"

#define CHAIN_N 4000

static char path[256];
static off_t full_len, cut_len;
static cuzk_chain_ctx chain = {.n = CHAIN_N};

/* The chain's PCE, written afresh to path and opened (NULL on failure). */
static cuzk_pce *fresh(void)
{
    snprintf(path, sizeof path, "/tmp/test_pce_guard.%ld.pce", (long)getpid());
    cuzk_fr_from_u64(&chain.x0, 5);
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_OTHER, .id = "chain-guard"};
    char err[512] = "";
    cuzk_pce *p = NULL;
    int st = cuzk_pce_extract(path, &id, cuzk_chain_circuit, &chain, NULL, NULL, NULL, err, sizeof err);
    if (!st) st = cuzk_pce_open(&p, path, &id, err, sizeof err);
    if (st) fprintf(stderr, "  pce: %s\n", err);
    struct stat sb;
    full_len = st || stat(path, &sb) ? 0 : sb.st_size;
    return p;
}

/* Cut the file to half, at a page boundary inside the records: the
 * decoding never sees the end coming, it faults on the next page. */
static bool cut_half(const cuzk_pce *p)
{
    cuzk_pce_info in;
    cuzk_pce_get_info(p, &in);
    long page = sysconf(_SC_PAGESIZE);
    off_t half = full_len / 2 / page * page;
    cut_len = half;
    if ((off_t)(PCE_HEADER_BYTES + in.record_bytes) < half + page) {
        fprintf(stderr, "  %lld-byte file: too small to cut inside its records\n", (long long)full_len);
        return false;
    }
    int fd = open(path, O_RDWR);
    bool ok = fd >= 0 && ftruncate(fd, half) == 0;
    if (fd >= 0) close(fd);
    return ok;
}

/* err says which file changed and how. */
static bool names_change(const char *err)
{
    char want[512];
    snprintf(want, sizeof want, "PCE file %s changed while in use: size %lld -> %lld", path,
             (long long)full_len, (long long)cut_len);
    if (!strstr(err, want)) fprintf(stderr, "  message: %s\n  wanted:  %s\n", err, want);
    return strstr(err, want) != NULL;
}

static cuzk_cs *witness(void)
{
    cuzk_cs *cs = NULL;
    if (cuzk_cs_new(&cs, CUZK_CS_WITNESS, 0) || cuzk_cs_synthesize(cs, cuzk_chain_circuit, &chain)) {
        cuzk_cs_free(cs);
        return NULL;
    }
    return cs;
}

static void install(void)
{
    char err[256] = "";
    int st = cuzk_map_guard_install(err, sizeof err);
    if (st) fprintf(stderr, "  %s\n", err);
    REQUIRE(st == CUZK_OK && cuzk_map_guard_installed());
}

/* evaluate and check after the cut, with par (NULL or a pool). */
static void evaluate_and_check(cuzk_par *par)
{
    cuzk_pce *p = fresh();
    REQUIRE(p);
    cuzk_cs *cs = witness();
    REQUIRE(cs);
    char err[512] = "";
    REQUIRE(cut_half(p));
    CHECK(cuzk_pce_evaluate(p, cs, par, err, sizeof err) == CUZK_ERR_CHANGED && names_change(err));
    CHECK(cuzk_cs_get_mode(cs) == CUZK_CS_WITNESS && !cuzk_cs_eval(cs, 0)); /* unchanged */
    err[0] = 0;
    CHECK(cuzk_pce_check(p, par, err, sizeof err) == CUZK_ERR_CHANGED && names_change(err));
    err[0] = 0;
    CHECK(cuzk_pce_unchanged(p, err, sizeof err) == CUZK_ERR_CHANGED && names_change(err));
    cuzk_cs_free(cs);
    cuzk_pce_close(p);
    unlink(path);
}

static void test_truncated(void)
{
    install();
    evaluate_and_check(NULL);
    cuzk_pool *pool = NULL;
    REQUIRE(cuzk_pool_create(&pool, 3) == CUZK_OK);
    evaluate_and_check(cuzk_pool_par(pool));
    cuzk_pool_destroy(pool);
}

/* Cut inside a page: the bytes up to the page end read as zeros and are
 * misdecoded before the next page faults, or fault first; either way the
 * failure of a changed file is reported as the change, not as corruption. */
static void test_cut_mid_page(void)
{
    install();
    cuzk_pce *p = fresh();
    REQUIRE(p);
    REQUIRE(cut_half(p));
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0);
    cut_len += 37;
    CHECK(ftruncate(fd, cut_len) == 0);
    close(fd);
    char err[512] = "";
    CHECK(cuzk_pce_check(p, NULL, err, sizeof err) == CUZK_ERR_CHANGED && names_change(err));
    cuzk_pce_close(p);
    unlink(path);
}

/* The lean form: A and B before the cut; C (fill_c, during H) after it;
 * evaluate_ab of another partition after it too. */
static void test_lean_truncated(void)
{
    install();
    cuzk_pool *pool = NULL;
    REQUIRE(cuzk_pool_create(&pool, 2) == CUZK_OK);
    cuzk_pce *p = fresh();
    REQUIRE(p);
    cuzk_pce_info in;
    cuzk_pce_get_info(p, &in);
    size_t n = in.constraints;
    cuzk_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    cuzk_cs *cs = witness(), *cs2 = witness();
    REQUIRE(a && b && cs && cs2);
    char err[512] = "";
    REQUIRE(cuzk_pce_evaluate_ab(p, cs, a, b, n, cuzk_pool_par(pool), err, sizeof err) == CUZK_OK);
    REQUIRE(cut_half(p));
    cuzk_pce_lean l = {.pce = p, .cs = cs, .par = cuzk_pool_par(pool), .err = err, .err_len = sizeof err};
    err[0] = 0;
    CHECK(cuzk_pce_fill_c(&l, b, n) == CUZK_ERR_CHANGED && names_change(err));
    err[0] = 0;
    CHECK(cuzk_pce_evaluate_ab(p, cs2, a, b, n, NULL, err, sizeof err) == CUZK_ERR_CHANGED &&
          names_change(err));
    cuzk_cs_free(cs);
    cuzk_cs_free(cs2);
    free(a);
    free(b);
    cuzk_pce_close(p);
    unlink(path);
    cuzk_pool_destroy(pool);
}

/* The same check in a child with SIGBUS at its default action (as if the
 * guard had never been installed): it must die by SIGBUS. */
static void test_unguarded_dies(void)
{
    cuzk_pce *p = fresh();
    REQUIRE(p);
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        signal(SIGBUS, SIG_DFL);
        if (!cut_half(p)) _exit(3);
        char err[512];
        int st = cuzk_pce_check(p, NULL, err, sizeof err);
        _exit(st == CUZK_ERR_CHANGED ? 0 : 4);
    }
    int ws = 0;
    REQUIRE(waitpid(pid, &ws, 0) == pid);
    if (!WIFSIGNALED(ws)) fprintf(stderr, "  child exited with %d\n", WEXITSTATUS(ws));
    CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGBUS);
    cuzk_pce_close(p);
    unlink(path);
}

/* A copy renamed over the file (same size, another inode), then removed. */
static void test_replaced(void)
{
    cuzk_pce *p = fresh();
    REQUIRE(p);
    char err[512] = "", copy[300];
    CHECK(cuzk_pce_unchanged(p, err, sizeof err) == CUZK_OK);
    size_t len;
    uint8_t *b = test_read_file(path, &len);
    REQUIRE(b && (off_t)len == full_len);
    snprintf(copy, sizeof copy, "%s.new", path);
    FILE *f = fopen(copy, "wb");
    REQUIRE(f);
    CHECK(fwrite(b, 1, len, f) == len);
    fclose(f);
    free(b);
    REQUIRE(rename(copy, path) == 0);
    CHECK(cuzk_pce_unchanged(p, err, sizeof err) == CUZK_ERR_CHANGED && strstr(err, "changed while in use") &&
          strstr(err, "inode"));
    char want[64];
    snprintf(want, sizeof want, "size %lld -> %lld", (long long)len, (long long)len);
    CHECK(strstr(err, want) != NULL);
    unlink(path);
    CHECK(cuzk_pce_unchanged(p, err, sizeof err) == CUZK_ERR_CHANGED && strstr(err, "No such file"));
    /* the map still holds the old file: the PCE stays usable */
    CHECK(cuzk_pce_check(p, NULL, err, sizeof err) == CUZK_OK);
    cuzk_pce_close(p);
}

static const test_case tests[] = {
    {"unguarded_dies", test_unguarded_dies},
    {"truncated", test_truncated},
    {"cut_mid_page", test_cut_mid_page},
    {"lean_truncated", test_lean_truncated},
    {"replaced", test_replaced},
};
TEST_MAIN(tests)
