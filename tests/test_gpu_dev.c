/* The device layer itself (cuzk/gpu.h) on the OpenCL driver (pocl here):
 * enumeration, copies in and out (offsets, non-blocking, pinned host
 * buffers, bounds), kernel arguments and ranges, work-group memory and
 * barriers, atomics, queues and events, a kernel name the program lacks,
 * the program binary cache (miss, hit, a damaged file rebuilt, a refused
 * directory), and both drivers' "library absent" paths. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/gpu_internal.h"
#include "test_gpu_util.h"

static void test_list(void)
{
    cuzk_gpu_device_info d[8];
    size_t n = 0;
    char err[512] = "";
    int st = cuzk_gpu_list(CUZK_GPU_OPENCL, d, 8, &n, err, sizeof err);
    if (st) {
        CHECK(st == CUZK_ERR_UNSUPPORTED && n == 0 && err[0]);
        if (!gpu_test_device()) return; /* skip (or fail under CI) with the reason */
    }
    REQUIRE(n > 0);
    for (size_t i = 0; i < n && i < 8; i++) {
        CHECK(d[i].driver == CUZK_GPU_OPENCL && d[i].index == i);
        CHECK(d[i].name[0] && d[i].platform[0] && d[i].version[0] && d[i].mem_bytes > 0);
        CHECK(d[i].max_alloc_bytes > 0 && d[i].max_alloc_bytes <= d[i].mem_bytes && d[i].compute_units > 0);
    }
    size_t n2 = 99; /* counting only */
    CHECK(cuzk_gpu_list(CUZK_GPU_OPENCL, NULL, 0, &n2, err, sizeof err) == CUZK_OK && n2 == n);
    CHECK(cuzk_gpu_list((cuzk_gpu_driver_kind)7, NULL, 0, &n2, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(!strcmp(cuzk_gpu_driver_name(CUZK_GPU_OPENCL), "opencl"));
    CHECK(!strcmp(cuzk_gpu_driver_name(CUZK_GPU_CUDA), "cuda"));
}

/* Without the NVIDIA driver (every machine without a GPU), the CUDA driver
 * says which library is missing; with it, it lists devices. */
static void test_cuda_absent(void)
{
    char err[512] = "";
    size_t n = 99;
    int st = cuzk_gpu_list(CUZK_GPU_CUDA, NULL, 0, &n, err, sizeof err);
    if (cuzk_gpu_cuda_probe("libcuda.so.1", err, sizeof err) == CUZK_OK) {
        printf("  libcuda.so.1 present: CUDA list -> %d, %zu device(s)\n", st, n);
        CHECK(st == CUZK_OK || st == CUZK_ERR_UNSUPPORTED);
    } else if (!getenv("CUZK_GPU_CUDA_LIB")) {
        printf("  %s\n", err);
        CHECK(st == CUZK_ERR_UNSUPPORTED && n == 0 && strstr(err, "libcuda.so.1 not found"));
    }
    CHECK(cuzk_gpu_cuda_probe("libcuda-cuzk-absent.so.1", err, sizeof err) == CUZK_ERR_UNSUPPORTED);
    CHECK(strstr(err, "CUDA: libcuda-cuzk-absent.so.1 not found") != NULL);
    CHECK(cuzk_gpu_opencl_probe("libOpenCL-cuzk-absent.so.1", err, sizeof err) == CUZK_ERR_UNSUPPORTED);
    CHECK(strstr(err, "libOpenCL-cuzk-absent.so.1 not found") != NULL);
    /* a library without the driver's symbols */
    CHECK(cuzk_gpu_cuda_probe("libm.so.6", err, sizeof err) == CUZK_ERR_UNSUPPORTED);
    CHECK(strstr(err, "libm.so.6 has no cuInit") != NULL);
    /* the source is always embedded; the PTX whenever nvcc built it */
    size_t len = 0;
    const char *src = cuzk_gpu_kernel_source(&len);
    CHECK(len > 1000 && strlen(src) == len && strstr(src, "cz_test_fp"));
    const char *ptx = cuzk_gpu_kernel_ptx(&len);
    CHECK(strlen(ptx) == len);
}

static void test_roundtrip(void)
{
    cuzk_gpu *g = gpu_test_device();
    if (!g) return;
    cuzk_gpu_queue *q = cuzk_gpu_default_queue(g);
    enum { N = 1 << 20 };
    uint8_t *a = malloc(N), *back = malloc(N);
    cuzk_gpu_buf *b = NULL;
    cuzk_gpu_hostbuf *h = NULL;
    bool pinned = false;
    char err[512] = "";
    REQUIRE(a && back);
    test_rand_bytes(a, N);
    REQUIRE(cuzk_gpu_alloc(g, &b, N, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_buf_size(b) == N);
    CHECK(cuzk_gpu_write(q, b, 0, a, N, true, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_read(q, back, b, 0, N, true, err, sizeof err) == CUZK_OK && !memcmp(a, back, N));
    /* offsets, non-blocking both ways, then one finish */
    memset(back, 0, N);
    CHECK(cuzk_gpu_write(q, b, 12345, a + 7, 100000, false, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_read(q, back, b, 12345, 100000, false, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_finish(q, err, sizeof err) == CUZK_OK && !memcmp(back, a + 7, 100000));
    /* pinned (driver-allocated) host memory as source and destination */
    REQUIRE(cuzk_gpu_host_alloc(g, &h, N, &pinned, err, sizeof err) == CUZK_OK);
    uint8_t *hp = cuzk_gpu_host_ptr(h);
    REQUIRE(hp != NULL);
    memcpy(hp, a, N);
    CHECK(cuzk_gpu_write(q, b, 0, hp, N, true, err, sizeof err) == CUZK_OK);
    memset(hp, 0, N);
    CHECK(cuzk_gpu_read(q, hp, b, 0, N, true, err, sizeof err) == CUZK_OK && !memcmp(hp, a, N));
    /* bounds: a copy past the end is refused before the driver sees it */
    CHECK(cuzk_gpu_write(q, b, N - 10, a, 11, true, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(strstr(err, "past the buffer") != NULL);
    CHECK(cuzk_gpu_read(q, back, b, N + 1, 0, true, err, sizeof err) == CUZK_ERR_ARG);
    CHECK(cuzk_gpu_write(q, b, N, a, 0, true, err, sizeof err) == CUZK_OK); /* empty, at the end */
    CHECK(cuzk_gpu_alloc(g, &(cuzk_gpu_buf *){NULL}, 0, err, sizeof err) == CUZK_ERR_ARG);
    cuzk_gpu_host_free(h);
    cuzk_gpu_free(b);
    free(a);
    free(back);
}

/* r[i] = a[i] + k over a range that is not a multiple of the group: the
 * rounded-up items must not write past n. */
static void test_kernel_args(void)
{
    cuzk_gpu *g = gpu_test_device();
    if (!g) return;
    cuzk_gpu_queue *q = cuzk_gpu_default_queue(g);
    enum { N = 1000, PAD = 64 };
    uint64_t a[N], r[N + PAD], k = 0x0123456789abcdefull;
    for (int i = 0; i < N; i++)
        a[i] = test_rand64();
    for (int i = 0; i < N + PAD; i++)
        r[i] = 0xdeadbeefdeadbeefull;
    cuzk_gpu_buf *br = NULL, *ba = NULL;
    cuzk_gpu_kernel *kk = NULL;
    char err[512] = "";
    REQUIRE(cuzk_gpu_kernel_get(g, &kk, "cz_test_add_u64", err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_alloc(g, &br, sizeof r, err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_alloc(g, &ba, sizeof a, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_write(q, br, 0, r, sizeof r, false, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_write(q, ba, 0, a, sizeof a, false, err, sizeof err) == CUZK_OK);
    cuzk_gpu_arg args[] = {CUZK_GPU_ARG_B(br), CUZK_GPU_ARG_B(ba), CUZK_GPU_ARG_64(k), CUZK_GPU_ARG_32(N)};
    CHECK(cuzk_gpu_launch(q, kk, N, 64, args, 4, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_launch(q, kk, 0, 64, args, 4, err, sizeof err) == CUZK_OK); /* nothing */
    CHECK(cuzk_gpu_read(q, r, br, 0, sizeof r, true, err, sizeof err) == CUZK_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += r[i] != a[i] + k;
    for (int i = N; i < N + PAD; i++)
        bad += r[i] != 0xdeadbeefdeadbeefull;
    CHECK(bad == 0);
    /* the driver's own group size (local 0) */
    CHECK(cuzk_gpu_launch(q, kk, N, 0, args, 4, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_read(q, r, br, 0, sizeof a, true, err, sizeof err) == CUZK_OK && r[N - 1] == a[N - 1] + k);
    /* a work-group memory argument that is not last is refused */
    cuzk_gpu_arg bad_args[] = {CUZK_GPU_ARG_L(64), CUZK_GPU_ARG_B(ba), CUZK_GPU_ARG_32(N)};
    CHECK(cuzk_gpu_launch(q, kk, N, 64, bad_args, 3, err, sizeof err) == CUZK_ERR_ARG);
    cuzk_gpu_kernel_free(kk);
    cuzk_gpu_free(br);
    cuzk_gpu_free(ba);
}

/* Work-group memory, barriers and group ids: per-group sums; a global
 * atomic counter. */
static void test_local_atomic(void)
{
    cuzk_gpu *g = gpu_test_device();
    if (!g) return;
    cuzk_gpu_queue *q = cuzk_gpu_default_queue(g);
    enum { N = 4096 + 100, L = 64, G = (N + L - 1) / L };
    uint64_t a[N], sums[G];
    uint32_t count = 0, want = 0;
    for (int i = 0; i < N; i++)
        want += (a[i] = test_rand64() >> 8) & 1;
    cuzk_gpu_buf *bs = NULL, *ba = NULL, *bc = NULL;
    cuzk_gpu_kernel *ks = NULL, *kc = NULL;
    char err[512] = "";
    REQUIRE(cuzk_gpu_kernel_get(g, &ks, "cz_test_group_sum", err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_kernel_get(g, &kc, "cz_test_count", err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_alloc(g, &bs, sizeof sums, err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_alloc(g, &ba, sizeof a, err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_alloc(g, &bc, sizeof count, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_write(q, ba, 0, a, sizeof a, false, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_write(q, bc, 0, &count, sizeof count, false, err, sizeof err) == CUZK_OK);
    cuzk_gpu_arg sa[] = {CUZK_GPU_ARG_B(bs), CUZK_GPU_ARG_B(ba), CUZK_GPU_ARG_32(N), CUZK_GPU_ARG_L(L * 8)};
    CHECK(cuzk_gpu_launch(q, ks, N, L, sa, 4, err, sizeof err) == CUZK_OK);
    cuzk_gpu_arg ca[] = {CUZK_GPU_ARG_B(bc), CUZK_GPU_ARG_B(ba), CUZK_GPU_ARG_32(N)};
    CHECK(cuzk_gpu_launch(q, kc, N, L, ca, 3, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_read(q, sums, bs, 0, sizeof sums, false, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_read(q, &count, bc, 0, sizeof count, true, err, sizeof err) == CUZK_OK);
    int bad = 0;
    for (int gi = 0; gi < G; gi++) {
        uint64_t s = 0;
        for (int i = gi * L; i < (gi + 1) * L && i < N; i++)
            s += a[i];
        bad += sums[gi] != s;
    }
    CHECK(bad == 0);
    CHECK(count == want);
    cuzk_gpu_kernel_free(ks);
    cuzk_gpu_kernel_free(kc);
    cuzk_gpu_free(bs);
    cuzk_gpu_free(ba);
    cuzk_gpu_free(bc);
}

/* A copy on one queue, an event, a kernel on a second queue that waits
 * for it, and the host waiting for an event of the second. */
static void test_queues_events(void)
{
    cuzk_gpu *g = gpu_test_device();
    if (!g) return;
    enum { N = 1 << 16 };
    uint64_t *a = malloc(N * 8), *r = malloc(N * 8);
    cuzk_gpu_queue *q2 = NULL, *q1 = cuzk_gpu_default_queue(g);
    cuzk_gpu_buf *ba = NULL, *br = NULL;
    cuzk_gpu_kernel *k = NULL;
    cuzk_gpu_event *e1 = NULL, *e2 = NULL;
    char err[512] = "";
    REQUIRE(a && r);
    for (int i = 0; i < N; i++)
        a[i] = test_rand64();
    REQUIRE(cuzk_gpu_queue_create(g, &q2, err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_kernel_get(g, &k, "cz_test_add_u64", err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_alloc(g, &ba, N * 8, err, sizeof err) == CUZK_OK);
    REQUIRE(cuzk_gpu_alloc(g, &br, N * 8, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_write(q1, ba, 0, a, N * 8, false, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_event_record(q1, &e1, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_queue_wait_event(q2, e1, err, sizeof err) == CUZK_OK);
    cuzk_gpu_arg args[] = {CUZK_GPU_ARG_B(br), CUZK_GPU_ARG_B(ba), CUZK_GPU_ARG_64(1), CUZK_GPU_ARG_32(N)};
    CHECK(cuzk_gpu_launch(q2, k, N, 256, args, 4, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_read(q2, r, br, 0, N * 8, false, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_event_record(q2, &e2, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_gpu_event_wait(e2, err, sizeof err) == CUZK_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += r[i] != a[i] + 1;
    CHECK(bad == 0);
    cuzk_gpu_event_free(e1);
    cuzk_gpu_event_free(e2);
    cuzk_gpu_kernel_free(k);
    cuzk_gpu_free(ba);
    cuzk_gpu_free(br);
    cuzk_gpu_queue_free(q2);
    free(a);
    free(r);
}

static void test_no_such_kernel(void)
{
    cuzk_gpu *g = gpu_test_device();
    if (!g) return;
    cuzk_gpu_kernel *k = (cuzk_gpu_kernel *)&k;
    char err[512] = "";
    CHECK(cuzk_gpu_kernel_get(g, &k, "cz_no_such_kernel", err, sizeof err) == CUZK_ERR_ARG && k == NULL);
    printf("  %s\n", err);
    CHECK(strstr(err, "\"cz_no_such_kernel\"") && strstr(err, "no kernel of that name"));
    CHECK(cuzk_gpu_kernel_get(g, &k, "", err, sizeof err) == CUZK_ERR_ARG);
}

/* ---- program cache ---------------------------------------------------------------- */

static int open_cached(const cuzk_gpu_device_info *info, const char *dir, cuzk_gpu_program_info *pi)
{
    cuzk_gpu *g = NULL;
    cuzk_gpu_open_opts o = {.cache_dir = dir};
    char err[1024] = "";
    int st = cuzk_gpu_open(&g, info, &o, pi, err, sizeof err);
    if (st) fprintf(stderr, "  open: %s\n", err);
    /* whatever way it was built, the program must run */
    cuzk_gpu_kernel *k = NULL;
    if (!st) st = cuzk_gpu_kernel_get(g, &k, "cz_test_add_u64", err, sizeof err);
    cuzk_gpu_kernel_free(k);
    cuzk_gpu_close(g);
    printf("  cache %d in %.2f s%s%s\n", (int)pi->cache, pi->build_s, pi->note[0] ? ": " : "", pi->note);
    return st;
}

static void flip_byte(const char *path, off_t at)
{
    int fd = open(path, O_RDWR);
    uint8_t c = 0;
    CHECK(fd >= 0 && pread(fd, &c, 1, at) == 1);
    c ^= 0x40;
    CHECK(pwrite(fd, &c, 1, at) == 1);
    close(fd);
}

static void test_program_cache(void)
{
    if (!gpu_test_device()) return;
    if (gpu_test_driver() != CUZK_GPU_OPENCL) SKIP("the program cache is the OpenCL driver's");
    cuzk_gpu_device_info info = *cuzk_gpu_info(gpu_dev);
    char dir[] = "/tmp/cuzk-gpu-cache-XXXXXX", sub[64];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(sub, sizeof sub, "%s/made/here", dir); /* created by the open */
    cuzk_gpu_program_info pi;
    struct stat sb;
    char err[256];
    REQUIRE(open_cached(&info, sub, &pi) == CUZK_OK);
    CHECK(pi.cache == CUZK_GPU_CACHE_MISS && strstr(pi.cache_path, sub) == pi.cache_path);
    CHECK(stat(pi.cache_path, &sb) == 0 && sb.st_size > 64 && (sb.st_mode & 077) == 0);
    char path[1024];
    snprintf(path, sizeof path, "%s", pi.cache_path);
    CHECK(open_cached(&info, sub, &pi) == CUZK_OK && pi.cache == CUZK_GPU_CACHE_HIT && !pi.note[0]);
    /* a damaged binary is rebuilt, never trusted, and replaced */
    flip_byte(path, sb.st_size / 2);
    CHECK(open_cached(&info, sub, &pi) == CUZK_OK && pi.cache == CUZK_GPU_CACHE_REBUILT);
    CHECK(strstr(pi.note, "SHA-256 mismatch") != NULL);
    CHECK(open_cached(&info, sub, &pi) == CUZK_OK && pi.cache == CUZK_GPU_CACHE_HIT);
    CHECK(truncate(path, sb.st_size - 1) == 0); /* short: a crash mid-write */
    CHECK(open_cached(&info, sub, &pi) == CUZK_OK && pi.cache == CUZK_GPU_CACHE_REBUILT);
    CHECK(strstr(pi.note, "length") != NULL);
    flip_byte(path, 3); /* the magic */
    CHECK(open_cached(&info, sub, &pi) == CUZK_OK && pi.cache == CUZK_GPU_CACHE_REBUILT);
    CHECK(open_cached(&info, sub, &pi) == CUZK_OK && pi.cache == CUZK_GPU_CACHE_HIT);
    /* every part of the key matters, its boundaries too (a build with other
     * options compiles again: too slow on pocl to run here twice) */
    char k1[65], k2[65], k3[65];
    const char *p1[] = {"src", "-DA=1", "dev"}, *p2[] = {"src", "-DA=2", "dev"},
               *p3[] = {"src-DA=1", "", "dev"};
    CHECK(!cuzk_gpu_cache_key(k1, p1, 3, err, sizeof err) && !cuzk_gpu_cache_key(k2, p2, 3, err, sizeof err));
    CHECK(!cuzk_gpu_cache_key(k3, p3, 3, err, sizeof err) && strcmp(k1, k2) && strcmp(k1, k3) &&
          strlen(k1) == 64);
    /* off; a directory others can write to is refused, and the open
     * still succeeds uncached */
    CHECK(open_cached(&info, "", &pi) == CUZK_OK && pi.cache == CUZK_GPU_CACHE_OFF && !pi.cache_path[0]);
    CHECK(chmod(sub, 0777) == 0);
    CHECK(open_cached(&info, sub, &pi) == CUZK_OK && pi.cache == CUZK_GPU_CACHE_OFF);
    CHECK(strstr(pi.note, "not used") && strstr(pi.note, "writable by others"));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static const test_case tests[] = {
    {"list", test_list},
    {"cuda_absent", test_cuda_absent},
    {"roundtrip", test_roundtrip},
    {"kernel_args", test_kernel_args},
    {"local_atomic", test_local_atomic},
    {"queues_events", test_queues_events},
    {"no_such_kernel", test_no_such_kernel},
    {"program_cache", test_program_cache},
};

TEST_MAIN(tests)
