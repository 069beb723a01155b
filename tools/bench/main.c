/* cuzk-bench: benchmarks and offline tools for the cuzk proving engine. */
#include <stdio.h>
#include <string.h>

#include "bench.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
    {"micro", cmd_micro, "micro [--filter OP] [--json]   field/curve/pairing ns per op"},
    {"point", cmd_point, "point (--g1|--g2) HEX          decode and validate a point"},
    {"ntt", cmd_ntt, "ntt [--log N] [--threads T] [--op OP] [--naive]  NTT over Fr timing"},
    {"msm", cmd_msm, "msm [--group g1|g2] [--log N] [--scalars random|bits|filecoin] [--threads T]  MSM timing"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %s\n", commands[i].help);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cuzk-bench: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
