/* `cuzk-bench devices [--build] [--json]`: the compute devices each driver
 * of the device layer (cuzk/gpu.h) finds -- platform, name, memory, driver
 * version -- or, per driver, the sentence saying why it found none.
 * --build also opens each device and gets the kernel program ready
 * (OpenCL: compiled or loaded from the program cache), with its time: on
 * pocl that is the CPU compiling OpenCL C, not a GPU figure. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cuzk/gpu.h"

#define USAGE "usage: cuzk-bench devices [--build] [--json]\n"

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static const char *cache_word(cuzk_gpu_cache_state c)
{
    return c == CUZK_GPU_CACHE_HIT       ? "hit"
           : c == CUZK_GPU_CACHE_MISS    ? "miss"
           : c == CUZK_GPU_CACHE_REBUILT ? "rebuilt"
                                         : "off";
}

/* Opens d and builds its program; prints the outcome; 0 or 1. */
static int build_one(const cuzk_gpu_device_info *d, bool json)
{
    cuzk_gpu *g = NULL;
    cuzk_gpu_program_info pi;
    char err[1024];
    int st = cuzk_gpu_open(&g, d, NULL, &pi, err, sizeof err);
    cuzk_gpu_close(g);
    if (json) {
        printf(", \"build\": {\"ok\": %s, ", st ? "false" : "true");
        if (st) {
            printf("\"error\": ");
            json_str(err);
        } else {
            printf("\"seconds\": %.3f, \"cache\": \"%s\", \"note\": ", pi.build_s, cache_word(pi.cache));
            json_str(pi.note);
        }
        printf("}");
    } else if (st) {
        printf("    program: FAILED: %s\n", err);
    } else {
        printf("    program: ready in %.2f s (cache %s)%s%s\n", pi.build_s, cache_word(pi.cache),
               pi.note[0] ? ": " : "", pi.note);
    }
    return st ? 1 : 0;
}

static void print_device(const cuzk_gpu_device_info *d, bool json)
{
    if (json) {
        printf("{\"index\": %u, \"platform\": ", d->index);
        json_str(d->platform);
        printf(", \"name\": ");
        json_str(d->name);
        printf(", \"driver_version\": ");
        json_str(d->driver_version);
        printf(", \"version\": ");
        json_str(d->version);
        printf(", \"mem_bytes\": %llu, \"max_alloc_bytes\": %llu, \"compute_units\": %u, \"cpu\": %s",
               (unsigned long long)d->mem_bytes, (unsigned long long)d->max_alloc_bytes, d->compute_units,
               d->is_cpu ? "true" : "false");
        return;
    }
    printf("  [%u] %s / %s\n", d->index, d->platform, d->name);
    printf("    memory %.2f GiB (largest buffer %.2f GiB), %u compute units, %s, driver %s%s\n",
           (double)d->mem_bytes / (1u << 30), (double)d->max_alloc_bytes / (1u << 30), d->compute_units,
           d->version, d->driver_version,
           d->is_cpu ? " -- a CPU device: its timings are not GPU timings" : "");
}

int cmd_devices(int argc, char **argv)
{
    bool json = false, build = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--build"))
            build = true;
        else {
            fprintf(stderr, "cuzk-bench devices: unknown option '%s'\n" USAGE, argv[i]);
            return 2;
        }
    }
    int rc = 0;
    if (json) printf("{\"drivers\": [");
    for (int k = 0; k < CUZK_GPU_NDRIVERS; k++) {
        cuzk_gpu_device_info devs[32];
        size_t n = 0;
        char why[1024];
        int st = cuzk_gpu_list((cuzk_gpu_driver_kind)k, devs, 32, &n, why, sizeof why);
        const char *name = cuzk_gpu_driver_name((cuzk_gpu_driver_kind)k);
        if (json) {
            printf("%s{\"driver\": \"%s\", \"devices\": [", k ? ", " : "", name);
        } else {
            if (st)
                printf("%s: none: %s\n", name, why);
            else
                printf("%s: %zu device(s)\n", name, n);
        }
        for (size_t i = 0; !st && i < n && i < 32; i++) {
            if (json) printf("%s", i ? ", " : "");
            print_device(&devs[i], json);
            if (build) rc |= build_one(&devs[i], json);
            if (json) printf("}");
        }
        if (json) {
            printf("]");
            if (st) {
                printf(", \"none\": ");
                json_str(why);
            }
            printf("}");
        }
    }
    if (json) printf("]}\n");
    return rc;
}
