/* The seeded test runner of harness.h: RNG, failure/skip accounting, the
 * ctest exit codes (77 = every case skipped, or skips with no log to record
 * them) and the skip log that make test prints. */
#include "harness.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

uint64_t test_seed;
int test_iterations = 1;
static uint64_t rng_s[4];
static int failures_in_test, skipped_in_test;
static char shared_buf[4096];
static const char *exe_name = "test", *test_name = "";

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_init(uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        rng_s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t test_rand64(void) /* xoshiro256** */
{
    uint64_t r = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return r;
}

void test_rand_bytes(uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)test_rand64();
}

void test_fail(const char *file, int line, const char *expr)
{
    if (failures_in_test < 10)
        fprintf(stderr, "  FAIL %s:%d: %s (seed %" PRIu64 ")\n", file, line, expr, test_seed);
    failures_in_test++;
}

/* Append one line to $CUZK_SKIP_LOG; false when there is none (or it
 * cannot be written): then nothing records the skip but the exit status. */
static bool skip_log_line(const char *fmt, ...)
{
    const char *path = getenv("CUZK_SKIP_LOG");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) return false;
    va_list ap;
    va_start(ap, fmt);
    bool ok = vfprintf(f, fmt, ap) > 0;
    va_end(ap);
    return fclose(f) == 0 && ok;
}

static void skip_log(const char *reason)
{
    skip_log_line("SKIPPED %s %s: %s\n", exe_name, test_name, reason);
}

void test_skip(const char *reason)
{
    printf("  SKIPPED: %s\n", reason);
    if (!skipped_in_test) skip_log(reason);
    skipped_in_test = 1;
}

static int ci_mode(void)
{
    const char *ci = getenv("CI");
    return ci && !strcmp(ci, "true");
}

const char *test_source_dir(void)
{
    return CUZK_SOURCE_DIR;
}

const char *test_shared_dir(void)
{
    struct stat st;
    const char *env = getenv("CUZK_SHARED");
    if (env && stat(env, &st) == 0 && S_ISDIR(st.st_mode)) return env;
    snprintf(shared_buf, sizeof shared_buf, "%s/../shared", CUZK_SOURCE_DIR);
    if (stat(shared_buf, &st) == 0 && S_ISDIR(st.st_mode)) return shared_buf;
    if (ci_mode()) {
        fprintf(stderr, "  ../shared (or $CUZK_SHARED) is missing: with CI=true the independent "
                        "reference data must be present\n");
        test_fail(__FILE__, __LINE__, "test_shared_dir() != NULL under CI=true");
    }
    return NULL;
}

uint8_t *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, 2 * cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

long test_hex_decode(uint8_t *out, size_t cap, const char *hex, size_t hexlen)
{
    if (hexlen % 2 || hexlen / 2 > cap) return -1;
    for (size_t i = 0; i < hexlen / 2; i++) {
        int h = hexval(hex[2 * i]), l = hexval(hex[2 * i + 1]);
        if (h < 0 || l < 0) return -1;
        out[i] = (uint8_t)(h << 4 | l);
    }
    return (long)(hexlen / 2);
}

/* "N tests: P passed, F failed, S skipped (a, b) (seed X)", and with skips a
 * line "SKIPPED exe: S of N cases skipped (a, b); P passed" in the skip log.
 * A skipped case never counts as passed (a case that failed and skipped is
 * a failure).  Exit status: 1 a failure; 77 every case skipped, or skips
 * that no $CUZK_SKIP_LOG records (ctest must not show them as Passed); 0
 * otherwise -- passes beside skips that the log lists. */
static int summarize(int ran, int failed, int skipped, const char **names)
{
    int passed = ran - failed - skipped;
    char list[1024] = "";
    size_t at = 0;
    for (int i = 0; i < skipped && at < sizeof list; i++) {
        int n = snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", names[i]);
        at += n > 0 ? (size_t)n : 0;
    }
    if (at >= sizeof list) snprintf(list + sizeof list - 5, 5, "...");
    printf("%d tests: %d passed, %d failed, %d skipped%s%s%s (seed %" PRIu64 ")\n", ran, passed, failed,
           skipped, skipped ? " (" : "", list, skipped ? ")" : "", test_seed);
    if (failed) return 1;
    if (!skipped) return 0;
    bool logged = skip_log_line("SKIPPED %s: %d of %d cases skipped (%s); %d passed\n", exe_name, skipped,
                                ran, list, passed);
    return passed && logged ? 0 : 77;
}

int test_main(int argc, char **argv, const test_case *tests, size_t ntests)
{
    int list = 0, nfilters = 0, nexcl = 0;
    const char *filters[32], *excl[32];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    test_seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            test_seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
            test_iterations = atoi(argv[++i]);
            if (test_iterations < 1) test_iterations = 1;
        } else if (!strcmp(argv[i], "--exclude") && i + 1 < argc) {
            if (nexcl == 32) {
                fprintf(stderr, "%s: more than 32 --exclude\n", argv[0]);
                return 2;
            }
            excl[nexcl++] = argv[++i];
        } else if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr,
                    "usage: %s [--seed N] [--iterations N] [--list] [--exclude SUBSTR] [name-filter...]\n",
                    argv[0]);
            return 2;
        } else if (nfilters < 32) {
            filters[nfilters++] = argv[i];
        } else {
            fprintf(stderr, "%s: more than 32 name filters\n", argv[0]);
            return 2;
        }
    }
    if (list) {
        for (size_t i = 0; i < ntests; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    printf("%s: seed %" PRIu64 " (replay with --seed %" PRIu64 "), iterations %d\n", argv[0], test_seed,
           test_seed, test_iterations);
    const char *slash = strrchr(argv[0], '/');
    exe_name = slash ? slash + 1 : argv[0];
    int failed = 0, ran = 0, skipped = 0;
    const char **skipped_names = calloc(ntests ? ntests : 1, sizeof *skipped_names);
    if (!skipped_names) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    for (size_t i = 0; i < ntests; i++) {
        int hit = !nfilters, out = 0;
        for (int f = 0; f < nfilters; f++)
            hit |= strstr(tests[i].name, filters[f]) != NULL;
        for (int x = 0; x < nexcl; x++)
            out |= strstr(tests[i].name, excl[x]) != NULL;
        if (!hit || out) continue;
        test_name = tests[i].name;
        rng_init(test_seed ^ (0x1000193ull * (i + 1)));
        failures_in_test = skipped_in_test = 0;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double t0 = ts.tv_sec + ts.tv_nsec * 1e-9;
        tests[i].fn();
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double dt = ts.tv_sec + ts.tv_nsec * 1e-9 - t0;
        ran++;
        if (failures_in_test)
            failed++;
        else if (skipped_in_test)
            skipped_names[skipped++] = tests[i].name;
        printf("%-7s %-40s %8.3f s\n",
               failures_in_test  ? "FAIL"
               : skipped_in_test ? "SKIPPED"
                                 : "ok",
               tests[i].name, dt);
        fflush(stdout);
    }
    int rc = summarize(ran, failed, skipped, skipped_names);
    free(skipped_names);
    if (!ran) { /* a filter that selects nothing must not pass */
        fprintf(stderr, "%s: no test matches the name filters (--list shows the names)\n", argv[0]);
        return 2;
    }
    return rc;
}
