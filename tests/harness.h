/* Minimal seeded test runner (after libsecp256k1's tests.c).
 *
 * Each test executable defines a table of test_case and calls test_main().
 * Flags: --seed N (replay), --iterations N (scale random loops), --list,
 * --exclude SUBSTR (repeatable), and positional substrings that select
 * tests by name (a filter that selects nothing is an error).  The seed is
 * printed first so every failure can be replayed.
 *
 * The summary line says how many cases passed, failed and skipped and
 * names the skipped ones ("9 tests: 7 passed, 0 failed, 2 skipped (a, b)").
 * With $CUZK_SKIP_LOG set, every skip is appended there as one line
 * "SKIPPED exe test: reason", and an executable with skips adds
 * "SKIPPED exe: S of N cases skipped (a, b); P passed" (make test prints
 * them at the end).  A skipped case never counts as passed.
 *
 * Exit status: 1 a failure, 2 usage; 77 (ctest's SKIP_RETURN_CODE: listed
 * as "Skipped", never "Passed") when every case that ran was skipped, or
 * when cases were skipped and no $CUZK_SKIP_LOG recorded them; 0 when
 * nothing failed and any skips are in the log -- so one skipped case does
 * not hide the executable's passes. */
#ifndef CUZK_TEST_HARNESS_H
#define CUZK_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    const char *name;
    void (*fn)(void);
} test_case;

/* 1 in a sanitizer build (ASan/UBSan or TSan, gcc's __SANITIZE_*__ and
 * clang's __has_feature): there every memory access is a runtime call
 * (3-20x slower), so a test may run a smaller size of the same case.  The
 * release build runs the full size; the smaller one must still reach every
 * branch the sanitizer is there to watch.  Say so where it is used. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CUZK_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CUZK_TEST_SANITIZED 1
#endif
#endif
#ifndef CUZK_TEST_SANITIZED
#define CUZK_TEST_SANITIZED 0
#endif

extern uint64_t test_seed;
extern int test_iterations; /* default 1; loops multiply their counts by it */

uint64_t test_rand64(void);
void test_rand_bytes(uint8_t *out, size_t n);
void test_fail(const char *file, int line, const char *expr);
/* Mark the current test skipped with a reason (prints, returns normally:
 * the test function should return right after; SKIP() does both). */
void test_skip(const char *reason);
/* Path of the repository root (compile-time), e.g. for tests/vectors. */
const char *test_source_dir(void);
/* ../shared next to the repository, or $CUZK_SHARED; NULL if absent.  An
 * independent reference: under CI=true its absence is a failure of the
 * calling test (CI must run every independent check), not a skip. */
const char *test_shared_dir(void);
/* Read a whole file; returns malloc'd buffer (NUL-terminated) or NULL. */
uint8_t *test_read_file(const char *path, size_t *len);
/* Parse hex (no 0x) into out; returns bytes written or -1. */
long test_hex_decode(uint8_t *out, size_t cap, const char *hex, size_t hexlen);

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) test_fail(__FILE__, __LINE__, #cond);                                                   \
    } while (0)

/* Stop the current test at the first failed precondition (a failure, like
 * CHECK): for what later checks need -- an allocation, a setup call. */
#define REQUIRE(cond)                                                                                        \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            test_fail(__FILE__, __LINE__, "REQUIRE " #cond);                                                 \
            return;                                                                                          \
        }                                                                                                    \
    } while (0)

/* Skip the rest of the current test with a reason (reported as skipped). */
#define SKIP(reason)                                                                                         \
    do {                                                                                                     \
        test_skip(reason);                                                                                   \
        return;                                                                                              \
    } while (0)

int test_main(int argc, char **argv, const test_case *tests, size_t ntests);

#define TEST_MAIN(table)                                                                                     \
    int main(int argc, char **argv)                                                                          \
    {                                                                                                        \
        return test_main(argc, argv, table, sizeof table / sizeof table[0]);                                 \
    }

#endif
