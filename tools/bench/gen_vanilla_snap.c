/* cuzk-bench gen-vanilla snap: a SnapDeals update of a sector written by
 * `gen-vanilla porep` (its sealed.dat is the sector key, summary.json gives
 * comm_c / comm_r_last / comm_r), with new deterministic Fr32 data:
 *   data node i = SHA-256("cuzk-snap data" || seed || i, u64 LE), [31] &= 0x3f,
 * encoded with h = h_default (cuzk_snap_update_encode), and writes what
 * Curio would send for the SnapDeals proof:
 *
 *   partition-K.bin     bincode PartitionProof of partition K
 *   vanilla-proofs.json JSON array of base64 strings (Go's [][]byte)
 *   summary.json        hex comm_r_old, comm_r_new, comm_d_new (and more),
 *                       registered_proof (update proof 0-4), sector_size,
 *                       partitions, h
 *
 * Every partition is verified natively (cuzk_snap_partition_verify) after
 * a bincode round trip before the command succeeds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "bench.h"
#include "cuzk/pool.h"
#include "cuzk/seal_snap.h"
#include "cuzk/status.h"

#define GS "gen-vanilla snap"

static double gs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void gs_hex(char *out, const uint8_t *b)
{
    for (size_t i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static uint8_t *gs_read(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n = -1;
    if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = 0;
        *len = (size_t)n;
    } else {
        fprintf(stderr, GS ": cannot read %s: %s\n", path, strerror(errno));
        free(buf);
        buf = NULL;
    }
    if (f) fclose(f);
    return buf;
}

static int gs_write(const char *dir, const char *name, const void *buf, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(buf, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    if (!ok) fprintf(stderr, GS ": cannot write %s: %s\n", path, strerror(errno));
    return ok ? 0 : 1;
}

/* "key": "<64 hex>" from gen-vanilla porep's summary.json. */
static int gs_json_hex(uint8_t out[32], const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *p = strstr(json, pat);
    if (!p) return fprintf(stderr, GS ": summary.json has no \"%s\"\n", key), 1;
    p += strlen(pat);
    for (int i = 0; i < 32; i++) {
        unsigned b;
        if (sscanf(p + 2 * i, "%2x", &b) != 1)
            return fprintf(stderr, GS ": summary.json: \"%s\" is not 64 hex digits\n", key), 1;
        out[i] = (uint8_t)b;
    }
    return p[64] == '"' ? 0 : (fprintf(stderr, GS ": summary.json: \"%s\" is not 64 hex digits\n", key), 1);
}

typedef struct {
    uint8_t *data;
    uint64_t nodes, seed;
} gs_data_job;

static void gs_data_task(void *arg, size_t i)
{
    gs_data_job *j = arg;
    uint64_t first = (uint64_t)i * 4096, end = first + 4096 < j->nodes ? first + 4096 : j->nodes;
    uint8_t msg[32] = "cuzk-snap data";
    for (uint64_t x = first; x < end; x++) {
        for (int b = 0; b < 8; b++) {
            msg[14 + b] = (uint8_t)(j->seed >> (8 * b));
            msg[22 + b] = (uint8_t)(x >> (8 * b));
        }
        SHA256(msg, 30, j->data + 32 * x);
        j->data[32 * x + 31] &= 0x3f;
    }
}

typedef struct {
    double t0, last_pct;
    const char *last_phase;
    bool verbose;
} gs_progress_state;

static void gs_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    gs_progress_state *p = ctx;
    double pct = total ? 100.0 * (double)done / (double)total : 100.0;
    bool new_phase = !p->last_phase || strcmp(p->last_phase, phase);
    if (!p->verbose && !(done == total)) return;
    if (new_phase || pct - p->last_pct >= 10.0 || done == total) {
        if (!new_phase && pct == p->last_pct) return;
        fprintf(stderr, GS ": %-10s %5.1f%%  (%.1f s)\n", phase, pct, gs_now() - p->t0);
        p->last_pct = pct;
        p->last_phase = phase;
    }
}

/* Prove, write, parse back and verify every partition; the JSON array of
 * base64 strings grows in `json`. */
static int gs_partitions(const char *out, const cuzk_snap_update *u, FILE *json)
{
    char err[512] = "";
    fputc('[', json);
    for (uint32_t k = 0; k < u->shape.partitions; k++) {
        cuzk_snap_partition_proof *p = NULL, *q = NULL;
        int st = cuzk_snap_update_prove(&p, u, k, err, sizeof err);
        size_t len = st ? 0 : cuzk_snap_partition_size(p), w = 0;
        uint8_t *b = st ? NULL : malloc(len);
        unsigned char *b64 = b ? malloc(4 * ((len + 2) / 3) + 1) : NULL;
        if (!st && !b64) st = cuzk_errf(err, sizeof err, CUZK_ERR_NOMEM, "out of memory");
        if (!st) st = cuzk_snap_partition_write(b, len, &w, p);
        if (!st) st = cuzk_snap_partition_parse(&q, b, len, &u->shape, err, sizeof err);
        if (!st)
            st = cuzk_snap_partition_verify(q, &u->shape, k, u->h, u->comm_r_old, u->comm_d_new,
                                            u->comm_r_new, err, sizeof err);
        char name[64];
        snprintf(name, sizeof name, "partition-%u.bin", k);
        if (!st && gs_write(out, name, b, len)) st = CUZK_ERR_IO;
        if (!st)
            fprintf(json, "%s\"%.*s\"", k ? "," : "", EVP_EncodeBlock(b64, b, (int)len), (const char *)b64);
        cuzk_snap_partition_free(p);
        cuzk_snap_partition_free(q);
        free(b);
        free(b64);
        if (st) {
            fprintf(stderr, GS ": partition %u: %s\n", k, err[0] ? err : cuzk_strerror(st));
            return 1;
        }
        if (k == 0)
            printf("%s/partition-K.bin: %zu bytes each, %u challenges\n", out, len, u->shape.challenges);
    }
    fputs("]\n", json);
    return 0;
}

static int gs_summary(const char *out, const cuzk_snap_update *u, uint64_t proof, uint64_t seed, double secs,
                      unsigned threads)
{
    char h[7][65], path[1024];
    const uint8_t *v[7] = {u->comm_r_old,      u->comm_r_new,      u->comm_d_new, u->comm_c,
                           u->comm_r_last_old, u->comm_r_last_new, u->phi};
    for (int i = 0; i < 7; i++)
        gs_hex(h[i], v[i]);
    snprintf(path, sizeof path, "%s/summary.json", out);
    FILE *f = fopen(path, "w");
    if (!f) return fprintf(stderr, GS ": cannot write %s: %s\n", path, strerror(errno)), 1;
    fprintf(f, "{\n  \"comm_r_old\": \"%s\",\n  \"comm_r_new\": \"%s\",\n  \"comm_d_new\": \"%s\",\n", h[0],
            h[1], h[2]);
    fprintf(f, "  \"comm_c\": \"%s\",\n  \"comm_r_last_old\": \"%s\",\n  \"comm_r_last_new\": \"%s\",\n",
            h[3], h[4], h[5]);
    fprintf(f, "  \"phi\": \"%s\",\n  \"registered_proof\": %llu,\n  \"sector_size\": %llu,\n", h[6],
            (unsigned long long)proof, (unsigned long long)u->shape.sector_size);
    fprintf(f, "  \"partitions\": %u,\n  \"challenges\": %u,\n  \"h\": %u,\n  \"h_select\": %llu,\n",
            u->shape.partitions, u->shape.challenges, u->h,
            (unsigned long long)cuzk_snap_h_select(&u->shape, u->h));
    fprintf(f, "  \"seed\": %llu,\n  \"update_seconds\": %.3f,\n  \"threads\": %u\n}\n",
            (unsigned long long)seed, secs, threads);
    if (fclose(f)) return 1;
    printf("%s: comm_r_new %s (updated in %.2f s, %u thread%s)\n", path, h[1], secs, threads,
           threads == 1 ? "" : "s");
    return 0;
}

static bool gs_u64(uint64_t *out, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || *s == '-') return false;
    *out = v;
    return true;
}

/* Read the porep sector, check its commitments, update, write. */
static int gs_run(const char *sealed, const char *out, const cuzk_snap_shape *s, uint64_t proof,
                  uint64_t seed, cuzk_par *par, unsigned threads)
{
    size_t rlen = 0, jlen = 0;
    uint8_t *replica = gs_read(sealed, "sealed.dat", &rlen), *sum = gs_read(sealed, "summary.json", &jlen);
    uint8_t comm_c[32], crl[32], cr[32], *data = NULL;
    int rc = 1;
    if (!replica || !sum) goto out;
    if (rlen != 32 * s->nodes) {
        fprintf(stderr, GS ": %s/sealed.dat has %zu bytes, a %llu-byte sector needs %llu\n", sealed, rlen,
                (unsigned long long)s->sector_size, (unsigned long long)(32 * s->nodes));
        goto out;
    }
    if (gs_json_hex(comm_c, (char *)sum, "comm_c") || gs_json_hex(crl, (char *)sum, "comm_r_last") ||
        gs_json_hex(cr, (char *)sum, "comm_r"))
        goto out;
    if (!(data = malloc(rlen))) goto out;
    gs_progress_state ps = {.t0 = gs_now(), .last_pct = -100.0, .verbose = s->sector_size > (8ull << 20)};
    gs_data_job dj = {data, s->nodes, seed};
    cuzk_par_for(par, gs_data_task, &dj, (size_t)((s->nodes + 4095) / 4096));
    cuzk_snap_update *u = NULL;
    char err[512] = "";
    int st = cuzk_snap_update_encode(&u, s, s->hs[3], comm_c, replica, data, par, gs_progress, &ps, err,
                                     sizeof err);
    double secs = gs_now() - ps.t0;
    if (st) {
        fprintf(stderr, GS ": %s\n", err[0] ? err : cuzk_strerror(st));
    } else if (memcmp(u->comm_r_last_old, crl, 32) || memcmp(u->comm_r_old, cr, 32)) {
        fprintf(stderr, GS ": tree R of %s/sealed.dat does not give the summary's comm_r_last / comm_r\n",
                sealed);
    } else {
        char *json = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&json, &len);
        rc = !m || gs_partitions(out, u, m);
        if (m) fclose(m);
        rc = rc || gs_write(out, "vanilla-proofs.json", json, len) ||
             gs_summary(out, u, proof, seed, secs, threads);
        free(json);
    }
    cuzk_snap_update_free(u);
out:
    free(replica);
    free(sum);
    free(data);
    return rc;
}

int cmd_gen_vanilla_snap(int argc, char **argv)
{
    const char *usage =
        "usage: cuzk-bench gen-vanilla snap --sector-size 2KiB|8MiB|512MiB --sealed DIR --out DIR2 "
        "[--seed S] [--threads T (default: all cores)]\n";
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t seed = 0, threads = ncpu > 0 ? (uint64_t)ncpu : 1; /* default: every core */
    const char *size_s = NULL, *sealed = NULL, *out = NULL;
    for (int i = 2; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (!ok) {
        } else if (!strcmp(a, "--sector-size")) {
            size_s = v;
        } else if (!strcmp(a, "--sealed")) {
            sealed = v;
        } else if (!strcmp(a, "--out")) {
            out = v;
        } else if (!strcmp(a, "--seed")) {
            ok = gs_u64(&seed, v);
        } else if (!strcmp(a, "--threads")) {
            ok = gs_u64(&threads, v) && threads >= 1 && threads <= 1024;
        } else {
            fprintf(stderr, GS ": unknown option %s\n%s", a, usage);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, GS ": bad or missing value for %s\n%s", a, usage);
            return 2;
        }
    }
    if (!size_s || !sealed || !out) return fputs(usage, stderr), 2;
    static const struct {
        const char *n;
        uint64_t proof;
    } sizes[] = {{"2KiB", 0}, {"8MiB", 1}, {"512MiB", 2}};
    const cuzk_snap_info *info = NULL;
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(size_s, sizes[i].n) && cuzk_snap_lookup(&info, sizes[i].proof)) info = NULL;
    cuzk_snap_shape s;
    if (!info || cuzk_snap_shape_for(&s, info->sector_size, false)) {
        fprintf(stderr, GS ": sector size '%s' not supported here (2KiB, 8MiB, 512MiB)\n", size_s);
        return 2;
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, GS ": cannot create %s: %s\n", out, strerror(errno));
        return 1;
    }
    cuzk_pool *pool = NULL;
    if (threads > 1 && cuzk_pool_create(&pool, (unsigned)threads)) {
        fprintf(stderr, GS ": cannot start %llu threads\n", (unsigned long long)threads);
        return 1;
    }
    int rc = gs_run(sealed, out, &s, info->id, seed, pool ? cuzk_pool_par(pool) : NULL, (unsigned)threads);
    cuzk_pool_destroy(pool);
    return rc;
}
