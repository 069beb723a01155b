/* cuzk-bench: CPU time per thread of this process, for the subcommands
 * that report how busy the pool's threads were (msm, prove). */
#ifndef CUZK_BENCH_THREAD_CPU_H
#define CUZK_BENCH_THREAD_CPU_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

/* Nanoseconds on CPU of each thread (/proc/self/task/<tid>/schedstat,
 * first field), by tid; returns the count (at most max).  The busiest
 * thread's share is what the wall time would be on an idle machine,
 * whatever the load while measuring. */
static inline size_t thread_cpu(long *tid, double *ns, size_t max)
{
    DIR *d = opendir("/proc/self/task");
    size_t n = 0;
    struct dirent *e;
    while (d && n < max && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        unsigned long long v;
        if (f && fscanf(f, "%llu", &v) == 1) {
            tid[n] = atol(e->d_name);
            ns[n++] = (double)v;
        }
        if (f) fclose(f);
    }
    if (d) closedir(d);
    return n;
}

#endif
