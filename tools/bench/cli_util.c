/* cuzk-bench shared parsing and I/O helpers; see cli_util.h. */
#include "cli_util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t cli_sector_size(const char *s)
{
    static const struct {
        const char *n;
        uint64_t v;
    } t[] = {{"1KiB", 1024},           {"2KiB", 2048},       {"4KiB", 4096},         {"8KiB", 8192},
             {"16KiB", 16384},         {"32KiB", 32768},     {"8MiB", 8ull << 20},   {"16MiB", 16ull << 20},
             {"512MiB", 512ull << 20}, {"1GiB", 1ull << 30}, {"32GiB", 32ull << 30}, {"64GiB", 64ull << 30}};
    if (!s) return 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].n)) return t[i].v;
    uint64_t v;
    return cli_u64(&v, s, NULL) ? 0 : v;
}

int cli_partition_list(uint8_t *sel, uint32_t n, const char *list, const char *cmd, const char *what)
{
    for (const char *p = list;;) {
        char *end;
        errno = 0;
        unsigned long long k = strtoull(p, &end, 10);
        if (*p < '0' || *p > '9' || errno || (*end && *end != ',')) {
            fprintf(stderr, "%s: --partitions %s: not a comma-separated list of numbers\n", cmd, list);
            return 2;
        }
        if (k >= n) {
            fprintf(stderr, "%s: --partitions: %llu is not a partition of %s (0..%u)\n", cmd, k, what, n - 1);
            return 2;
        }
        sel[k] = 1;
        if (!*end) return 0;
        p = end + 1;
    }
}

int cli_hex32(uint8_t out[32], const char *hex, const char *what)
{
    bool ok = hex && strlen(hex) == 64;
    for (int i = 0; ok && i < 32; i++) {
        unsigned b;
        char two[3] = {hex[2 * i], hex[2 * i + 1], 0};
        char *e;
        b = (unsigned)strtoul(two, &e, 16);
        ok = *e == 0 && two[0] != '-' && two[0] != '+' && two[0] != ' ';
        out[i] = (uint8_t)b;
    }
    if (!ok) fprintf(stderr, "cuzk-bench: %s must be 64 hex digits\n", what);
    return ok ? 0 : -1;
}

int cli_u64(uint64_t *out, const char *s, const char *what)
{
    char *e;
    errno = 0;
    unsigned long long v = s && *s >= '0' && *s <= '9' ? strtoull(s, &e, 10) : 0;
    if (!s || *s < '0' || *s > '9' || *e || errno) {
        if (what) fprintf(stderr, "cuzk-bench: %s: '%s' is not a whole number\n", what, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_write_file(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cuzk-bench: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    bool short_write = fwrite(b, 1, n, f) != n;
    if (fclose(f) || short_write) { /* fclose flushes: a full disk shows here */
        fprintf(stderr, "cuzk-bench: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

int cli_params_load(cuzk_groth16_params **out, const char *path, cuzk_srs_validate mode,
                    const cuzk_groth16_load_opts *lo, cuzk_srs_load_info *li)
{
    cuzk_srs_load_opts so = {.mode = mode, .allow_test_params = true};
    return cuzk_srs_params_load_ex(out, path, &so, lo, li);
}

double cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double cli_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double cli_sys_now(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru)) return 0;
    return (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

uint64_t cli_proc_status_bytes(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kl = strlen(key);
    uint64_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') kb = strtoull(line + kl + 1, NULL, 10);
    if (f) fclose(f);
    return kb * 1024;
}

uint64_t cli_peak_rss(void)
{
    return cli_proc_status_bytes("VmHWM");
}
