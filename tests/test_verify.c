/* The invariant macros of src/ff/verify.h: CUZK_CANNOT_FAIL runs its call
 * exactly once in every build; in the VERIFY build (CUZK_VERIFY, the
 * sanitizer build of make test) a failing status or a false
 * CUZK_VERIFY_CHECK aborts with the condition named, and in release it does
 * not.  The aborting cases run in a child process. */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/ff.h"
#include "ff/verify.h"
#include "harness.h"

#ifdef CUZK_VERIFY
static const bool verify_build = true;
#else
static const bool verify_build = false;
#endif

static int calls;
static int counted(int status)
{
    calls++;
    return status;
}

static void test_runs_once(void)
{
    calls = 0;
    CUZK_CANNOT_FAIL(counted(CUZK_OK));
    CHECK(calls == 1);
    /* a real call that cannot fail: 2^254 - 1 < r */
    uint8_t b[32];
    memset(b, 0xff, sizeof b);
    b[31] = 0x3f;
    cuzk_fr x = CUZK_FR_ZERO, want;
    CUZK_CANNOT_FAIL(cuzk_fr_from_bytes_le(&x, b));
    cuzk_fr_from_bytes_le_reduce(&want, b, sizeof b);
    CHECK(cuzk_fr_eq(&x, &want));
}

/* How a child that runs fn ends: its signal, or 0 after a normal exit 0. */
static int child_outcome(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* keep the child's abort message out of the test log's way */
        if (!freopen("/dev/null", "w", stderr)) _exit(3);
        fn();
        _exit(0);
    }
    int ws = 0;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid) return -1;
    if (WIFSIGNALED(ws)) return WTERMSIG(ws);
    return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : -1;
}

static void failing_call(void)
{
    CUZK_CANNOT_FAIL(counted(CUZK_ERR_ARG));
}

static void false_check(void)
{
    int two = 2;
    CUZK_VERIFY_CHECK(two == 3);
    (void)two;
}

static void test_failures(void)
{
    int want = verify_build ? SIGABRT : 0;
    CHECK(child_outcome(failing_call) == want);
    CHECK(child_outcome(false_check) == want);
}

static const test_case tests[] = {
    {"runs_once", test_runs_once},
    {"failures", test_failures},
};

TEST_MAIN(tests)
