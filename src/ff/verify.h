/* Internal invariant checks, libsecp256k1's VERIFY_CHECK: compiled in the
 * VERIFY build (cmake -DCUZK_VERIFY=ON; `make build-asan`, which make test
 * runs) and free in release.  A failed check is a bug in this library,
 * never bad input (input errors are statuses with messages): it names the
 * condition and aborts, so the sanitizer build stops at the first one.
 *
 * CUZK_VERIFY_CHECK(cond): cond must have no side effects (release builds
 * do not evaluate it).
 * CUZK_CANNOT_FAIL(call): for a CUZK_MUST_CHECK function whose arguments
 * make failure impossible by construction (say why next to the call); the
 * call always runs, its status is checked in the VERIFY build. */
#ifndef CUZK_FF_VERIFY_H
#define CUZK_FF_VERIFY_H

#ifdef CUZK_VERIFY
#include <stdio.h>
#include <stdlib.h>

static inline void cuzk_verify_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "%s:%d: internal invariant failed: %s\n", file, line, cond);
    abort();
}
#define CUZK_VERIFY_CHECK(cond)                                        \
    do {                                                               \
        if (!(cond)) cuzk_verify_fail(#cond, __FILE__, __LINE__);      \
    } while (0)
#else
#define CUZK_VERIFY_CHECK(cond) \
    do {                        \
    } while (0)
#endif

#define CUZK_CANNOT_FAIL(call)                     \
    do {                                           \
        int cuzk_cannot_fail_st_ = (call);         \
        CUZK_VERIFY_CHECK(cuzk_cannot_fail_st_ == 0); \
        (void)cuzk_cannot_fail_st_;                \
    } while (0)

#endif
