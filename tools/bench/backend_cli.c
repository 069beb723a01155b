/* The bench's backend choice (backend_cli.h).  One device per process,
 * opened when the options are taken and closed at exit: the bench runs one
 * command, and every prove of it uses the same device. */
#include "backend_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

static cuzk_gpu_groth16 *gpu;

static void close_at_exit(void)
{
    cuzk_gpu_groth16_close(gpu);
    gpu = NULL;
}

/* argv[i] is opt (value in argv[i + 1]) or opt=value: the value, and how
 * many arguments it took (0: not this option). */
static int match(const char *opt, int argc, char **argv, int i, const char **val)
{
    size_t n = strlen(opt);
    if (!strncmp(argv[i], opt, n) && argv[i][n] == '=') {
        *val = argv[i] + n + 1;
        return 1;
    }
    if (strcmp(argv[i], opt)) return 0;
    *val = i + 1 < argc ? argv[i + 1] : NULL;
    return 2;
}

int cli_backend_take(int *argc, char **argv, const char *cmd)
{
    const char *kind = "cpu", *dev = NULL;
    int out = 0;
    for (int i = 0; i < *argc; i++) {
        const char *v = NULL;
        int k = match("--backend", *argc, argv, i, &v);
        int d = k ? 0 : match("--device", *argc, argv, i, &v);
        if (!k && !d) {
            argv[out++] = argv[i];
            continue;
        }
        if (!v) {
            fprintf(stderr, "%s: %s needs a value\n", cmd, argv[i]);
            return 2;
        }
        if (k)
            kind = v;
        else
            dev = v;
        i += (k ? k : d) - 1;
    }
    argv[out] = NULL;
    *argc = out;
    uint64_t index = 0;
    if (dev && (cli_u64(&index, dev, "--device") || index > 1023)) return 2;
    if (strcmp(kind, "cpu") && strcmp(kind, "opencl") && strcmp(kind, "cuda")) {
        fprintf(stderr, "%s: --backend %s: expected cpu, opencl or cuda\n", cmd, kind);
        return 2;
    }
    if (!strcmp(kind, "cpu")) {
        if (dev) fprintf(stderr, "%s: warning: --device has no effect with --backend cpu\n", cmd);
        return 0;
    }
    char err[1024] = "";
    if (cuzk_gpu_groth16_open(&gpu, kind, (unsigned)index, err, sizeof err)) {
        fprintf(stderr, "%s: --backend %s: %s\n", cmd, kind, err);
        return 1;
    }
    atexit(close_at_exit);
    return 0;
}

const cuzk_groth16_backend *cli_backend(void)
{
    return gpu ? cuzk_gpu_groth16_backend(gpu) : NULL;
}

cuzk_gpu_groth16 *cli_backend_gpu(void)
{
    return gpu;
}

const char *cli_backend_name(void)
{
    return gpu ? cuzk_gpu_groth16_name(gpu) : "cpu";
}

const char *cli_backend_note(void)
{
    return gpu && cuzk_gpu_groth16_is_cpu(gpu)
               ? " (a CPU device: its timings are CPU timings, not GPU timings)"
               : "";
}
