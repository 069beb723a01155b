/* The harness's own accounting (issue 23): one skipped case must not hide
 * a binary's other passes, and a skip must never read as a pass.  This
 * executable runs itself with --demo-* to get a small table of its own
 * (pass, skip, fail cases) and checks the exit status, the summary line
 * and the $CUZK_SKIP_LOG lines.  Before: a pass beside a skip exited 77
 * (ctest: the whole binary "Skipped") and the summary named no case. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static void demo_pass(void)
{
    CHECK(1 + 1 == 2);
}

static void demo_skip_a(void)
{
    SKIP("demo reason a");
}

static void demo_skip_b(void)
{
    SKIP("demo reason b");
}

static void demo_fail(void)
{
    CHECK(!"demo failure");
}

static const test_case demo_partial[] = {
    {"pass_one", demo_pass}, {"skip_a", demo_skip_a}, {"pass_two", demo_pass}, {"skip_b", demo_skip_b}};
static const test_case demo_all_skip[] = {{"skip_a", demo_skip_a}, {"skip_b", demo_skip_b}};
static const test_case demo_skip_fail[] = {{"skip_a", demo_skip_a}, {"fail_one", demo_fail}};

typedef struct {
    int rc;
    char out[4096], log[4096];
} run_result;

/* Run this executable with `mode`, $CUZK_SKIP_LOG set to a fresh file when
 * with_log; collect exit status, stdout and the log. */
static bool run_self(run_result *r, const char *mode, bool with_log)
{
    memset(r, 0, sizeof *r);
    char dir[] = "/tmp/cuzk-harness-XXXXXX";
    if (!mkdtemp(dir)) return false;
    char outp[64], logp[64], self[1024], cmd[2048];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return false;
    self[n] = 0; /* run by its own name: the log lines carry it */
    snprintf(outp, sizeof outp, "%s/out", dir);
    snprintf(logp, sizeof logp, "%s/skip.log", dir);
    if (with_log)
        snprintf(cmd, sizeof cmd, "CUZK_SKIP_LOG='%s' '%s' %s >'%s' 2>&1", logp, self, mode, outp);
    else
        snprintf(cmd, sizeof cmd, "env -u CUZK_SKIP_LOG '%s' %s >'%s' 2>&1", self, mode, outp);
    int ws = system(cmd);
    r->rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    uint8_t *b = test_read_file(outp, NULL);
    if (b) snprintf(r->out, sizeof r->out, "%s", (char *)b);
    free(b);
    b = test_read_file(logp, NULL);
    if (b) snprintf(r->log, sizeof r->log, "%s", (char *)b);
    free(b);
    unlink(outp);
    unlink(logp);
    rmdir(dir);
    return true;
}

/* Passes beside skips: exit 0 with the skips in the log; the summary says
 * how many passed and names each skipped case. */
static void test_partial_skip_passes(void)
{
    run_result r;
    REQUIRE(run_self(&r, "--demo-partial", true));
    printf("%s", r.out);
    CHECK(r.rc == 0);
    CHECK(strstr(r.out, "4 tests: 2 passed, 0 failed, 2 skipped (skip_a, skip_b)") != NULL);
    CHECK(strstr(r.log, "SKIPPED test_harness skip_a: demo reason a\n") != NULL);
    CHECK(strstr(r.log, "SKIPPED test_harness skip_b: demo reason b\n") != NULL);
    CHECK(strstr(r.log, "SKIPPED test_harness: 2 of 4 cases skipped (skip_a, skip_b); 2 passed\n") != NULL);
}

/* Without a log nothing would list the skips: ctest must not show Passed. */
static void test_partial_skip_no_log(void)
{
    run_result r;
    REQUIRE(run_self(&r, "--demo-partial", false));
    CHECK(r.rc == 77);
    CHECK(strstr(r.out, "2 passed, 0 failed, 2 skipped (skip_a, skip_b)") != NULL);
}

static void test_all_skipped(void)
{
    run_result r;
    REQUIRE(run_self(&r, "--demo-all-skip", true));
    CHECK(r.rc == 77);
    CHECK(strstr(r.out, "2 tests: 0 passed, 0 failed, 2 skipped (skip_a, skip_b)") != NULL);
    CHECK(strstr(r.log, "SKIPPED test_harness: 2 of 2 cases skipped (skip_a, skip_b); 0 passed\n") != NULL);
}

static void test_failure_wins(void)
{
    run_result r;
    REQUIRE(run_self(&r, "--demo-skip-fail", true));
    CHECK(r.rc == 1);
    CHECK(strstr(r.out, "2 tests: 0 passed, 1 failed, 1 skipped (skip_a)") != NULL);
}

static const test_case tests[] = {
    {"partial_skip_passes", test_partial_skip_passes},
    {"partial_skip_no_log", test_partial_skip_no_log},
    {"all_skipped", test_all_skipped},
    {"failure_wins", test_failure_wins},
};

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--demo-partial"))
        return test_main(1, argv, demo_partial, sizeof demo_partial / sizeof demo_partial[0]);
    if (argc == 2 && !strcmp(argv[1], "--demo-all-skip"))
        return test_main(1, argv, demo_all_skip, sizeof demo_all_skip / sizeof demo_all_skip[0]);
    if (argc == 2 && !strcmp(argv[1], "--demo-skip-fail"))
        return test_main(1, argv, demo_skip_fail, sizeof demo_skip_fail / sizeof demo_skip_fail[0]);
    return test_main(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
