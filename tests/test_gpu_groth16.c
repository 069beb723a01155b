/* The Groth16 GPU backend (cuzk/gpu_groth16.h) against the CPU backend:
 * deterministic proofs (r = s = 0) through cuzk_groth16_prove with
 * opts.backend = the device's must be byte-identical to the CPU backend's
 * and verify, for chain circuits (power-of-two and other constraint
 * counts; the three H paths of the prover: copied, in place, lean), mapped
 * parameters in small chunks, a batch, G2 on the CPU, and the 2 KiB
 * WinningPoSt, WindowPoSt and SnapDeals circuits.  SnapDeals 2 KiB (1.7 M
 * constraints) runs only with $CUZK_GPU_G16_SLOW=1 (scripts/device-check.sh
 * sets it), and PoRep 2 KiB (2.7 M) through cuzk-bench prove --backend
 * --deterministic in scripts/device-check.sh: minutes each on pocl.
 *
 * Device: $CUZK_BACKEND=cuda -> CUDA, else OpenCL, index $CUZK_GPU_DEVICE;
 * skipped without one unless CI=true (tests/test_gpu_util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/gpu_groth16.h"
#include "cuzk/pool.h"
#include "cuzk/post.h"
#include "cuzk/seal_snap.h"
#include "cuzk/snap.h"
#include "groth16_util.h"
#include "post_util.h"
#include "test_gpu_util.h"

static cuzk_gpu_groth16 *g16;
static cuzk_pool *pool; /* test setups and the CPU proofs: a thread per CPU, at most 16 */

static cuzk_par *test_par(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (!pool && cuzk_pool_create(&pool, n < 1 ? 1 : n > 16 ? 16 : (unsigned)n)) return NULL;
    return cuzk_pool_par(pool);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void g16_close_at_exit(void)
{
    cuzk_gpu_groth16_close(g16);
    cuzk_pool_destroy(pool);
}

/* The backend under test, or NULL after a skip / failure. */
static const cuzk_groth16_backend *gpu_backend(void)
{
    if (g16) return cuzk_gpu_groth16_backend(g16);
    if (!gpu_test_device()) return NULL; /* skip or CI failure, with the reason */
    const char *e = getenv("CUZK_GPU_DEVICE");
    unsigned dev = e && *e ? (unsigned)strtoul(e, NULL, 10) : 0;
    char err[1024] = "";
    const char *drv = gpu_test_driver() == CUZK_GPU_CUDA ? "cuda" : "opencl";
    int st = cuzk_gpu_groth16_open(&g16, drv, dev, err, sizeof err);
    if (st) {
        fprintf(stderr, "  cuzk_gpu_groth16_open: %s\n", err);
        test_fail(__FILE__, __LINE__, "cuzk_gpu_groth16_open");
        return NULL;
    }
    atexit(g16_close_at_exit);
    printf("  backend %s, %.1f GiB%s\n", cuzk_gpu_groth16_name(g16),
           (double)cuzk_gpu_groth16_memory(g16) / (1u << 30),
           cuzk_gpu_groth16_is_cpu(g16) ? " (a CPU device: timings are not GPU timings)" : "");
    return cuzk_gpu_groth16_backend(g16);
}

/* Proves w (n of them) with be, deterministic; false on failure (reported). */
static bool prove_with(uint8_t (*proofs)[CUZK_G16_PROOF_BYTES], const cuzk_groth16_params *p,
                       const cuzk_groth16_witness *w, size_t n, const cuzk_groth16_backend *be, size_t chunk)
{
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_prove_opts o = {.deterministic = true,
                                 .backend = be,
                                 .par = test_par(),
                                 .chunk_vars = chunk,
                                 .err = err,
                                 .err_len = sizeof err};
    int st = cuzk_groth16_prove(proofs, p, w, n, &o);
    if (st)
        fprintf(stderr, "  prove (%s): %s [%s]\n", be ? be->name : "cpu", err,
                be && g16 ? cuzk_gpu_groth16_error(g16) : "");
    CHECK(st == CUZK_OK);
    return st == CUZK_OK;
}

static bool verifies(const cuzk_groth16_params *p, const uint8_t proof[CUZK_G16_PROOF_BYTES],
                     const cuzk_cs *cs)
{
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    cuzk_groth16_pvk pvk;
    cuzk_groth16_pvk_prepare(&pvk, cuzk_groth16_params_vk(p));
    bool ok = false;
    char err[256] = "";
    int st = cuzk_groth16_verify(&ok, &pvk, proof, cuzk_cs_input_assignment(cs) + 1, k.inputs - 1, err,
                                 sizeof err);
    if (st) fprintf(stderr, "  verify: %s\n", err);
    return st == CUZK_OK && ok;
}

/* The CPU's and the device's deterministic proofs of cs's witness: equal
 * bytes, and valid. */
static void same_proof(const cuzk_groth16_params *p, const cuzk_cs *cs, const char *what)
{
    const cuzk_groth16_backend *be = gpu_backend();
    if (!be) return;
    cuzk_groth16_witness w;
    REQUIRE(cuzk_groth16_witness_from_cs(&w, cs) == CUZK_OK);
    uint8_t cpu[1][CUZK_G16_PROOF_BYTES], gpu[1][CUZK_G16_PROOF_BYTES];
    double t0 = now_s();
    if (!prove_with(cpu, p, &w, 1, NULL, 0)) return;
    double t1 = now_s();
    if (!prove_with(gpu, p, &w, 1, be, 0)) return;
    printf("  %s: prove cpu %.2f s, device %.2f s (pocl: CPU time, not GPU time)\n", what, t1 - t0,
           now_s() - t1);
    bool same = !memcmp(cpu[0], gpu[0], CUZK_G16_PROOF_BYTES);
    if (!same) fprintf(stderr, "  %s: the device's proof differs from the CPU's\n", what);
    CHECK(same);
    CHECK(verifies(p, gpu[0], cs));
}

/* Chain circuits: n constraints + the input constraints (1 input: n + 2
 * rows, so powers of two and their neighbours both occur). */
static void test_chain(void)
{
    static const size_t sizes[] = {1, 6, 7, 100, 1000, 4094};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (!gpu_backend()) return;
        cuzk_fr x0 = fr_rand();
        g16t_circuit c;
        REQUIRE(g16t_chain(&c, sizes[i], &x0) == CUZK_OK);
        cuzk_groth16_params *p = g16t_setup(&c, 100 + i);
        char what[64];
        snprintf(what, sizeof what, "chain %zu (%zu constraints)", sizes[i], c.shape.n_constraints);
        if (p) same_proof(p, c.cs, what);
        cuzk_groth16_params_free(p);
        g16t_free(&c);
    }
}

/* fill_c of the lean witness below: C copied from the cs. */
static int copy_c(void *ctx, cuzk_fr *out, size_t n)
{
    memcpy(out, cuzk_cs_eval(ctx, CUZK_LC_C), n * sizeof *out);
    return CUZK_OK;
}

/* The prover's other H paths on the device: the evaluations transformed in
 * place (a_mut, b_mut, c_mut) and the lean order (h_poly_lean, C asked for
 * after A*B); and a random (non-deterministic) device proof verifies. */
static void test_h_paths(void)
{
    const cuzk_groth16_backend *be = gpu_backend();
    if (!be) return;
    cuzk_fr x0 = fr_rand();
    g16t_circuit c;
    REQUIRE(g16t_chain(&c, 1000, &x0) == CUZK_OK);
    cuzk_groth16_params *p = g16t_setup(&c, 7);
    REQUIRE(p != NULL);
    size_t n = c.shape.n_constraints, m = cuzk_groth16_params_count(p, CUZK_G16_H) + 1;
    uint8_t want[1][CUZK_G16_PROOF_BYTES], got[1][CUZK_G16_PROOF_BYTES];
    cuzk_groth16_witness w;
    REQUIRE(cuzk_groth16_witness_from_cs(&w, c.cs) == CUZK_OK);
    REQUIRE(prove_with(want, p, &w, 1, NULL, 0));
    cuzk_fr *ev[3];
    for (int k = 0; k < 3; k++) {
        ev[k] = calloc(m, sizeof(cuzk_fr));
        REQUIRE(ev[k] != NULL);
        memcpy(ev[k], cuzk_cs_eval(c.cs, k), n * sizeof(cuzk_fr));
    }
    cuzk_groth16_witness wi = w; /* in place */
    wi.a_mut = ev[0], wi.b_mut = ev[1], wi.c_mut = ev[2];
    if (prove_with(got, p, &wi, 1, be, 0)) CHECK(!memcmp(want, got, sizeof want));
    for (int k = 0; k < 2; k++) /* lean: a and b fresh, C from fill_c */
        memcpy(ev[k], cuzk_cs_eval(c.cs, k), n * sizeof(cuzk_fr));
    cuzk_groth16_witness wl;
    REQUIRE(cuzk_groth16_witness_lean(&wl, c.cs, ev[0], ev[1], copy_c, c.cs) == CUZK_OK);
    if (prove_with(got, p, &wl, 1, be, 0)) CHECK(!memcmp(want, got, sizeof want));
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_prove_opts o = {.backend = be, .err = err, .err_len = sizeof err};
    CHECK(cuzk_groth16_prove(got, p, &w, 1, &o) == CUZK_OK);
    CHECK(verifies(p, got[0], c.cs) && memcmp(want, got, sizeof want));
    for (int k = 0; k < 3; k++)
        free(ev[k]);
    cuzk_groth16_params_free(p);
    g16t_free(&c);
}

/* Mapped parameters walked in chunks of 64 and 128 variables (the prover
 * calls the backend per chunk), a batch of two proofs, G2 on the CPU. */
static void test_mapped_batch_g2(void)
{
    const cuzk_groth16_backend *be = gpu_backend();
    if (!be) return;
    cuzk_fr x0[2] = {fr_rand(), fr_rand()};
    g16t_circuit c[2];
    REQUIRE(g16t_chain(&c[0], 300, &x0[0]) == CUZK_OK);
    REQUIRE(g16t_chain(&c[1], 300, &x0[1]) == CUZK_OK);
    cuzk_groth16_params *p = g16t_setup(&c[0], 11), *mp = NULL;
    REQUIRE(p != NULL);
    char path[] = "/tmp/cuzk_gpu_g16_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    REQUIRE(f != NULL);
    CHECK(cuzk_groth16_params_write(f, p) == CUZK_OK);
    CHECK(fclose(f) == 0);
    cuzk_groth16_load_opts lo = {.flags = CUZK_G16_LOAD_MMAP};
    CHECK(cuzk_groth16_params_load(&mp, path, &lo) == CUZK_OK);
    unlink(path);
    REQUIRE(mp && cuzk_groth16_params_is_mapped(mp));
    cuzk_groth16_witness w[2];
    REQUIRE(cuzk_groth16_witness_from_cs(&w[0], c[0].cs) == CUZK_OK);
    REQUIRE(cuzk_groth16_witness_from_cs(&w[1], c[1].cs) == CUZK_OK);
    uint8_t want[2][CUZK_G16_PROOF_BYTES], got[2][CUZK_G16_PROOF_BYTES];
    REQUIRE(prove_with(want, p, w, 2, NULL, 0));
    CHECK(verifies(p, want[0], c[0].cs) && verifies(p, want[1], c[1].cs));
    if (prove_with(got, p, w, 2, be, 0)) CHECK(!memcmp(want, got, sizeof want));
    static const size_t chunks[] = {64, 128};
    for (int k = 0; k < 2; k++) {
        memset(got, 0, sizeof got);
        if (prove_with(got, mp, w, 2, be, chunks[k])) CHECK(!memcmp(want, got, sizeof want));
    }
    cuzk_gpu_groth16_g2_on_cpu(g16, true);
    memset(got, 0, sizeof got);
    if (prove_with(got, p, w, 2, be, 0)) CHECK(!memcmp(want, got, sizeof want));
    cuzk_gpu_groth16_g2_on_cpu(g16, false);
    cuzk_groth16_params_free(mp);
    cuzk_groth16_params_free(p);
    g16t_free(&c[0]);
    g16t_free(&c[1]);
}

/* Test params for cs (PROVE mode with matrices), the proof comparison. */
static void kind_proof(cuzk_cs *cs, const char *what)
{
    cuzk_groth16_r1cs r;
    REQUIRE(cuzk_groth16_r1cs_from_cs(&r, cs) == CUZK_OK);
    cuzk_groth16_params *p = NULL;
    char err[256] = "";
    uint8_t seed[16];
    test_rand_bytes(seed, sizeof seed);
    double t0 = now_s();
    int st = cuzk_groth16_setup_test(&p, &r, seed, sizeof seed, test_par(), err, sizeof err);
    if (st) fprintf(stderr, "  %s setup: %s\n", what, err);
    printf("  %s: test setup %.2f s\n", what, now_s() - t0);
    REQUIRE(st == CUZK_OK);
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    printf("  %s: %zu constraints, %zu inputs, %zu aux\n", what, k.constraints, k.inputs, k.aux);
    same_proof(p, cs, what);
    cuzk_groth16_params_free(p);
}

/* WinningPoSt (registered proof 0: 1 sector) and WindowPoSt (10: 2 of 2
 * sectors) at 2 KiB. */
static void post_kind(uint64_t id, size_t nsec, const char *what)
{
    if (!gpu_backend()) return;
    const cuzk_fil_post_info *info;
    REQUIRE(cuzk_fil_post_lookup(&info, id) == 0);
    pt_sector s[2];
    uint8_t rnd[32], pid[32], *v[2];
    size_t len[2];
    char err[512] = "";
    pt_rand_dom(rnd);
    cuzk_post_prover_id(pid, 1000);
    for (size_t i = 0; i < nsec; i++) {
        pt_sector_make(&s[i], 1000 + i, 2048);
        v[i] = pt_vanilla(&len[i], &s[i], info, rnd, i);
    }
    cuzk_post_job *j = NULL;
    int st = cuzk_post_job_new(&j, id, (const uint8_t *const *)v, len, nsec, rnd, pid, 0, err, sizeof err);
    if (st) fprintf(stderr, "  %s job: %s\n", what, err);
    CHECK(st == CUZK_OK);
    cuzk_cs *cs = NULL;
    if (!st && (st = cuzk_post_job_synthesize(&cs, j, CUZK_CS_PROVE, CUZK_CS_MATRICES, err, sizeof err)))
        fprintf(stderr, "  %s synthesize: %s\n", what, err);
    CHECK(st == CUZK_OK);
    if (!st) kind_proof(cs, what);
    cuzk_cs_free(cs);
    cuzk_post_job_free(j);
    for (size_t i = 0; i < nsec; i++) {
        free(v[i]);
        cuzk_fil_tree_free(s[i].tree);
    }
}

static void test_winning_2k(void)
{
#if CUZK_TEST_SANITIZED
    /* 90,883 constraints: ~55 s of the sanitized CPU's test setup and
     * reference proof for what window_2k's path already runs here; the
     * release build proves it (as make test's daemon test does on the
     * device) */
    test_skip("WinningPoSt 2 KiB under a sanitizer: ~55 s of instrumented setup; window_2k covers its path, the "
              "release build runs it");
    return;
#endif
    post_kind(0, 1, "WinningPoSt 2 KiB");
}

static void test_window_2k(void)
{
    post_kind(10, 2, "WindowPoSt 2 KiB");
}

static void rand_fr32(uint8_t *b, uint64_t n)
{
    test_rand_bytes(b, 32 * n);
    for (uint64_t i = 0; i < n; i++)
        b[32 * i + 31] &= 0x3f;
}

/* SnapDeals (registered update proof 0: 2 KiB, one partition): an update
 * encoded natively over a random replica, its vanilla proof, the job.
 * 1.7 M constraints: 244 s here on pocl with 2 cores (test setup
 * included), too slow for make test; $CUZK_GPU_G16_SLOW=1 runs it
 * (scripts/device-check.sh does). */
static void test_snap_2k(void)
{
    const char *slow = getenv("CUZK_GPU_G16_SLOW");
    if (!slow || strcmp(slow, "1")) {
        printf("  not run: 1.7 M constraints, minutes on pocl; CUZK_GPU_G16_SLOW=1 runs it "
               "(scripts/device-check.sh does)\n");
        return;
    }
    if (!gpu_backend()) return;
    const cuzk_snap_info *info;
    cuzk_snap_shape s;
    REQUIRE(cuzk_snap_lookup(&info, 0) == CUZK_OK &&
            cuzk_snap_shape_for(&s, info->sector_size, false) == CUZK_OK);
    REQUIRE(s.partitions == 1);
    uint8_t *old = malloc(32 * s.nodes), *data = malloc(32 * s.nodes), comm_c[32], *buf = NULL;
    REQUIRE(old && data);
    rand_fr32(old, s.nodes);
    rand_fr32(data, s.nodes);
    rand_fr32(comm_c, 1);
    char err[512] = "";
    cuzk_snap_update *u = NULL;
    cuzk_snap_partition_proof *pp = NULL;
    cuzk_snap_job *j = NULL;
    cuzk_cs *cs = NULL;
    size_t len = 0, wrote = 0;
    int st = cuzk_snap_update_encode(&u, &s, s.hs[3], comm_c, old, data, NULL, NULL, NULL, err, sizeof err);
    if (!st) st = cuzk_snap_update_prove(&pp, u, 0, err, sizeof err);
    if (!st) {
        len = cuzk_snap_partition_size(pp);
        buf = malloc(len);
        st = buf ? cuzk_snap_partition_write(buf, len, &wrote, pp) : CUZK_ERR_NOMEM;
    }
    const uint8_t *in[1] = {buf};
    if (!st)
        st = cuzk_snap_job_new(&j, 0, in, &len, 1, u->comm_r_old, u->comm_d_new, u->comm_r_new, NULL, err,
                               sizeof err);
    if (!st) st = cuzk_snap_job_synthesize(&cs, j, 0, CUZK_CS_PROVE, CUZK_CS_MATRICES, err, sizeof err);
    if (st) fprintf(stderr, "  snap: %s\n", err);
    CHECK(st == CUZK_OK);
    if (!st) kind_proof(cs, "SnapDeals 2 KiB");
    cuzk_cs_free(cs);
    cuzk_snap_job_free(j);
    cuzk_snap_partition_free(pp);
    cuzk_snap_update_free(u);
    free(buf);
    free(old);
    free(data);
}

/* Opening refuses what is not there, with the reason. */
static void test_open_errors(void)
{
    if (!gpu_backend()) return;
    cuzk_gpu_groth16 *x = (cuzk_gpu_groth16 *)1;
    char err[512] = "";
    CHECK(cuzk_gpu_groth16_open(&x, "vulkan", 0, err, sizeof err) == CUZK_ERR_ARG && !x);
    CHECK(strstr(err, "vulkan") != NULL);
    CHECK(cuzk_gpu_groth16_open(&x, "opencl", 4096, err, sizeof err) == CUZK_ERR_UNSUPPORTED && !x);
    CHECK(strstr(err, "no device 4096") != NULL);
    err[0] = 0;
    int st = cuzk_gpu_groth16_open(&x, "cuda", 0, err, sizeof err);
    if (st) { /* no NVIDIA driver or no CUDA kernels here: a sentence saying which */
        CHECK(st == CUZK_ERR_UNSUPPORTED && !x && strstr(err, "CUDA") != NULL);
        printf("  cuda: %s\n", err);
    }
    cuzk_gpu_groth16_close(x);
    cuzk_gpu_groth16_close(NULL);
    CHECK(!strcmp(cuzk_gpu_groth16_name(NULL), "") && cuzk_gpu_groth16_memory(NULL) == 0);
}

static const test_case tests[] = {
    {"chain", test_chain},
    {"h_paths", test_h_paths},
    {"mapped_batch_g2", test_mapped_batch_g2},
    {"winning_2k", test_winning_2k},
    {"window_2k", test_window_2k},
    {"snap_2k", test_snap_2k},
    {"open_errors", test_open_errors},
};

TEST_MAIN(tests)
