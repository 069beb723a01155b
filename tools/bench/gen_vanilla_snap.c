/* cuzk-bench gen-vanilla snap: a SnapDeals update and what Curio would
 * send for its proof.
 *
 * Dense (2 KiB, 8 MiB, 512 MiB; --sealed DIR): an update of a sector
 * written by `gen-vanilla porep` (its sealed.dat is the sector key,
 * summary.json gives comm_c / comm_r_last / comm_r), with new
 * deterministic Fr32 data:
 *   data node i = SHA-256("cuzk-snap data" || seed || i, u64 LE), [31] &= 0x3f,
 * encoded with h = h_default (cuzk_snap_update_encode).
 *
 * Sparse (--sparse at any size, always at 32 and 64 GiB; no --sealed):
 * cuzk_snap_sparse_make, a sector that is never stored, periodic inside
 * each rho region (the old replica and the new data repeat a 64-node
 * pattern per region, so every tree is real and its root costs ~2^h x 20
 * hashes: tree R new must exist before its root picks the challenges).
 * The trees take ~1 s at 32 GiB, each partition ~0.1 s plus its check,
 * a few MiB of memory (docs/perf-notes.md "Sparse SnapDeals sectors").
 * --partitions K,L,... writes only those partitions, and then no
 * vanilla-proofs.json (a prover takes every partition or none).
 *
 * Output in DIR2:
 *   partition-K.bin     bincode PartitionProof of partition K
 *   vanilla-proofs.json JSON array of base64 strings (Go's [][]byte)
 *   summary.json        hex comm_r_old, comm_r_new, comm_d_new (and more),
 *                       registered_proof (update proof 0-4), sector_size,
 *                       partitions, h; sparse adds "sparse": true,
 *                       partitions_written, partition_seconds (mean of
 *                       prove + write + read back + verify) and
 *                       peak_rss_bytes; update_seconds is then the trees'
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
#include "cli_util.h"
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

/* What the writers need of an update, dense or sparse (both types carry
 * the same commitment fields), and how to prove one of its partitions. */
typedef struct {
    const cuzk_snap_shape *shape;
    uint32_t h;
    const uint8_t *comm_c, *comm_r_last_old, *comm_r_old, *comm_d_new, *phi, *comm_r_last_new, *comm_r_new;
    int (*prove)(const void *src, cuzk_snap_partition_proof **out, uint32_t k, char *err, size_t err_len);
    const void *src;
} gs_update;

#define GS_VIEW(v, u, fn)                                                                                    \
    (v) = (gs_update){.shape = &(u)->shape,                                                                  \
                      .h = (u)->h,                                                                           \
                      .comm_c = (u)->comm_c,                                                                 \
                      .comm_r_last_old = (u)->comm_r_last_old,                                               \
                      .comm_r_old = (u)->comm_r_old,                                                         \
                      .comm_d_new = (u)->comm_d_new,                                                         \
                      .phi = (u)->phi,                                                                       \
                      .comm_r_last_new = (u)->comm_r_last_new,                                               \
                      .comm_r_new = (u)->comm_r_new,                                                         \
                      .prove = (fn),                                                                         \
                      .src = (u)}

static int gs_prove_dense(const void *src, cuzk_snap_partition_proof **out, uint32_t k, char *err, size_t len)
{
    return cuzk_snap_update_prove(out, src, k, err, len);
}

static int gs_prove_sparse(const void *src, cuzk_snap_partition_proof **out, uint32_t k, char *err, size_t len)
{
    return cuzk_snap_sparse_prove(out, src, k, err, len);
}

typedef struct {
    const char *out;
    const uint8_t *sel; /* partitions to write; NULL: all */
    uint64_t proof, seed;
    unsigned threads;
    bool sparse;
    double update_s, partition_s; /* partition_s: mean over the written ones */
    uint32_t written;
} gs_run_info;

/* Prove, write, parse back and verify one partition; its base64 (a JSON
 * array element) goes to json when json != NULL. */
static int gs_partition(const gs_run_info *ri, const gs_update *u, uint32_t k, FILE *json)
{
    char err[512] = "";
    cuzk_snap_partition_proof *p = NULL, *q = NULL;
    int st = u->prove(u->src, &p, k, err, sizeof err);
    size_t len = st ? 0 : cuzk_snap_partition_size(p), w = 0;
    uint8_t *b = st ? NULL : malloc(len);
    unsigned char *b64 = b ? malloc(4 * ((len + 2) / 3) + 1) : NULL;
    if (!st && !b64) st = cuzk_errf(err, sizeof err, CUZK_ERR_NOMEM, "out of memory");
    if (!st) st = cuzk_snap_partition_write(b, len, &w, p);
    if (!st) st = cuzk_snap_partition_parse(&q, b, len, u->shape, err, sizeof err);
    if (!st)
        st = cuzk_snap_partition_verify(q, u->shape, k, u->h, u->comm_r_old, u->comm_d_new, u->comm_r_new, err,
                                        sizeof err);
    char name[64];
    snprintf(name, sizeof name, "partition-%u.bin", k);
    if (!st && gs_write(ri->out, name, b, len)) st = CUZK_ERR_IO;
    if (!st && json)
        fprintf(json, "%s\"%.*s\"", k ? "," : "", EVP_EncodeBlock(b64, b, (int)len), (const char *)b64);
    cuzk_snap_partition_free(p);
    cuzk_snap_partition_free(q);
    free(b);
    free(b64);
    if (st) {
        fprintf(stderr, GS ": partition %u: %s\n", k, err[0] ? err : cuzk_strerror(st));
        return 1;
    }
    if (!ri->written)
        printf("%s/partition-K.bin: %zu bytes each, %u challenges\n", ri->out, len, u->shape->challenges);
    return 0;
}

/* Every selected partition; the JSON array of base64 strings grows in
 * `json` (NULL when only some are written). */
static int gs_partitions(gs_run_info *ri, const gs_update *u, FILE *json)
{
    if (json) fputc('[', json);
    double t0 = cli_now();
    for (uint32_t k = 0; k < u->shape->partitions; k++) {
        if (ri->sel && !ri->sel[k]) continue;
        double t = cli_now();
        if (gs_partition(ri, u, k, json)) return 1;
        ri->written++;
        if (ri->sparse) fprintf(stderr, GS ": partition %u: %.3f s\n", k, cli_now() - t);
    }
    ri->partition_s = ri->written ? (cli_now() - t0) / ri->written : 0;
    if (json) fputs("]\n", json);
    return 0;
}

static int gs_summary(const gs_run_info *ri, const gs_update *u)
{
    char h[7][65], path[1024];
    const uint8_t *v[7] = {u->comm_r_old,      u->comm_r_new,      u->comm_d_new, u->comm_c,
                           u->comm_r_last_old, u->comm_r_last_new, u->phi};
    for (int i = 0; i < 7; i++)
        gs_hex(h[i], v[i]);
    snprintf(path, sizeof path, "%s/summary.json", ri->out);
    FILE *f = fopen(path, "w");
    if (!f) return fprintf(stderr, GS ": cannot write %s: %s\n", path, strerror(errno)), 1;
    fprintf(f, "{\n  \"comm_r_old\": \"%s\",\n  \"comm_r_new\": \"%s\",\n  \"comm_d_new\": \"%s\",\n", h[0],
            h[1], h[2]);
    fprintf(f, "  \"comm_c\": \"%s\",\n  \"comm_r_last_old\": \"%s\",\n  \"comm_r_last_new\": \"%s\",\n",
            h[3], h[4], h[5]);
    fprintf(f, "  \"phi\": \"%s\",\n  \"registered_proof\": %llu,\n  \"sector_size\": %llu,\n", h[6],
            (unsigned long long)ri->proof, (unsigned long long)u->shape->sector_size);
    fprintf(f, "  \"partitions\": %u,\n  \"challenges\": %u,\n  \"h\": %u,\n  \"h_select\": %llu,\n",
            u->shape->partitions, u->shape->challenges, u->h,
            (unsigned long long)cuzk_snap_h_select(u->shape, u->h));
    if (ri->sparse)
        fprintf(f,
                "  \"sparse\": true,\n  \"partitions_written\": %u,\n  \"partition_seconds\": %.3f,\n"
                "  \"peak_rss_bytes\": %llu,\n",
                ri->written, ri->partition_s, (unsigned long long)cli_peak_rss());
    fprintf(f, "  \"seed\": %llu,\n  \"update_seconds\": %.3f,\n  \"threads\": %u\n}\n",
            (unsigned long long)ri->seed, ri->update_s, ri->threads);
    if (fclose(f)) return 1;
    printf("%s: comm_r_new %s (%s in %.2f s, %u thread%s)\n", path, h[1],
           ri->sparse ? "sparse trees made" : "updated", ri->update_s, ri->threads, ri->threads == 1 ? "" : "s");
    return 0;
}

/* The partitions, vanilla-proofs.json (all partitions only), summary.json. */
static int gs_write_all(gs_run_info *ri, const gs_update *u)
{
    char *json = NULL;
    size_t len = 0;
    FILE *m = ri->sel ? NULL : open_memstream(&json, &len);
    int rc = (!ri->sel && !m) || gs_partitions(ri, u, m);
    if (m) fclose(m);
    rc = rc || (!ri->sel && gs_write(ri->out, "vanilla-proofs.json", json, len)) || gs_summary(ri, u);
    free(json);
    return rc;
}

/* Read the porep sector, check its commitments, update, write. */
static int gs_dense(gs_run_info *ri, const char *sealed, const cuzk_snap_shape *s, cuzk_par *par)
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
    gs_data_job dj = {data, s->nodes, ri->seed};
    cuzk_par_for(par, gs_data_task, &dj, (size_t)((s->nodes + 4095) / 4096));
    cuzk_snap_update *u = NULL;
    char err[512] = "";
    int st = cuzk_snap_update_encode(&u, s, s->hs[3], comm_c, replica, data, par, gs_progress, &ps, err,
                                     sizeof err);
    ri->update_s = gs_now() - ps.t0;
    if (st) {
        fprintf(stderr, GS ": %s\n", err[0] ? err : cuzk_strerror(st));
    } else if (memcmp(u->comm_r_last_old, crl, 32) || memcmp(u->comm_r_old, cr, 32)) {
        fprintf(stderr, GS ": tree R of %s/sealed.dat does not give the summary's comm_r_last / comm_r\n",
                sealed);
    } else {
        gs_update v;
        GS_VIEW(v, u, gs_prove_dense);
        rc = gs_write_all(ri, &v);
    }
    cuzk_snap_update_free(u);
out:
    free(replica);
    free(sum);
    free(data);
    return rc;
}

static int gs_sparse(gs_run_info *ri, const cuzk_snap_shape *s, cuzk_par *par)
{
    cuzk_snap_sparse *sp = NULL;
    char err[512] = "";
    double t0 = cli_now();
    int st = cuzk_snap_sparse_make(&sp, s, s->hs[3], ri->seed, par, err, sizeof err);
    ri->update_s = cli_now() - t0;
    if (st) {
        fprintf(stderr, GS ": %s\n", err[0] ? err : cuzk_strerror(st));
        return 1;
    }
    fprintf(stderr, GS ": sparse trees of %llu regions (a pattern of %u nodes) in %.2f s\n", 1ull << sp->h,
            1u << sp->period_log, ri->update_s);
    gs_update v;
    GS_VIEW(v, sp, gs_prove_sparse);
    int rc = gs_write_all(ri, &v);
    cuzk_snap_sparse_free(sp);
    return rc;
}

static const char gs_usage[] =
    "usage: cuzk-bench gen-vanilla snap --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB --out DIR2 "
    "(--sealed DIR | --sparse) [--partitions K,L,... (sparse)] [--seed S] [--threads T (default: all cores)]\n"
    "       (sparse, always at 32/64 GiB: no sector, a periodic one made on the fly)\n";

typedef struct {
    const char *size, *sealed, *out, *partitions;
    uint64_t seed, threads;
    bool sparse;
} gs_opts;

/* 0, or 2 (usage error, reported).  String options from a table; the
 * numbers checked. */
static int gs_parse(gs_opts *o, int argc, char **argv)
{
    const char *names[] = {"--sector-size", "--sealed", "--out", "--partitions"};
    const char **dst[] = {&o->size, &o->sealed, &o->out, &o->partitions};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t n = 0;
        while (n < 4 && strcmp(a, names[n]))
            n++;
        bool ok = v != NULL, seed = !strcmp(a, "--seed"), threads = !strcmp(a, "--threads");
        if (!strcmp(a, "--sparse")) {
            o->sparse = true;
            continue;
        }
        if (n == 4 && !seed && !threads) {
            fprintf(stderr, GS ": unknown option %s\n%s", a, gs_usage);
            return 2;
        }
        if (ok && n < 4) *dst[n] = v;
        if (ok && seed) ok = !cli_u64(&o->seed, v, "--seed");
        if (ok && threads) ok = !cli_u64(&o->threads, v, "--threads") && o->threads >= 1 && o->threads <= 1024;
        if (!ok) {
            fprintf(stderr, GS ": bad or missing value for %s\n%s", a, gs_usage);
            return 2;
        }
        i++;
    }
    if (!o->size || !o->out) return fputs(gs_usage, stderr), 2;
    return 0;
}

/* The registered update proof and shape of o->size; sparse forced above
 * 512 MiB (no sector of 1 G nodes in memory). */
static int gs_check(gs_opts *o, const cuzk_snap_info **info, cuzk_snap_shape *s)
{
    uint64_t size = cli_sector_size(o->size);
    *info = NULL;
    for (uint64_t id = 0; id < 5 && !*info; id++)
        if (cuzk_snap_lookup(info, id) || (*info)->sector_size != size) *info = NULL;
    if (!*info || cuzk_snap_shape_for(s, (*info)->sector_size, false)) {
        fprintf(stderr, GS ": sector size '%s' not supported (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)\n", o->size);
        return 2;
    }
    if (size > (512ull << 20)) o->sparse = true;
    if (o->sparse == (o->sealed != NULL)) {
        fprintf(stderr, GS ": %s\n%s",
                o->sparse ? "--sealed is for a dense update; a sparse one makes its own sector"
                          : "a dense update needs --sealed DIR (a `gen-vanilla porep` sector), or use --sparse",
                gs_usage);
        return 2;
    }
    if (o->partitions && !o->sparse) {
        fprintf(stderr, GS ": --partitions is for --sparse (a dense update writes every partition)\n");
        return 2;
    }
    return 0;
}

int cmd_gen_vanilla_snap(int argc, char **argv)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    gs_opts o = {.threads = ncpu > 0 ? (uint64_t)ncpu : 1}; /* default: every core */
    const cuzk_snap_info *info = NULL;
    cuzk_snap_shape s;
    uint8_t sel[16] = {0};
    int rc = gs_parse(&o, argc, argv);
    if (!rc) rc = gs_check(&o, &info, &s);
    if (!rc && o.partitions) rc = cli_partition_list(sel, s.partitions, o.partitions, GS, info->name);
    if (rc) return rc;
    if (mkdir(o.out, 0777) && errno != EEXIST) {
        fprintf(stderr, GS ": cannot create %s: %s\n", o.out, strerror(errno));
        return 1;
    }
    cuzk_pool *pool = NULL;
    if (o.threads > 1 && cuzk_pool_create(&pool, (unsigned)o.threads)) {
        fprintf(stderr, GS ": cannot start %llu threads\n", (unsigned long long)o.threads);
        return 1;
    }
    cuzk_par *par = pool ? cuzk_pool_par(pool) : NULL;
    gs_run_info ri = {.out = o.out,
                      .sel = o.partitions ? sel : NULL,
                      .proof = info->id,
                      .seed = o.seed,
                      .threads = (unsigned)o.threads,
                      .sparse = o.sparse};
    rc = o.sparse ? gs_sparse(&ri, &s, par) : gs_dense(&ri, o.sealed, &s, par);
    cuzk_pool_destroy(pool);
    return rc;
}
