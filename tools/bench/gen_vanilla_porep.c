/* cuzk-bench gen-vanilla porep: seal a synthetic test sector natively
 * (cuzk_seal_sector_seal) and write what Curio would send for its PoRep C2
 * plus what later generators (SnapDeals) need:
 *
 *   c1.json           bare SealCommitPhase1Output (serde JSON)
 *   c1-envelope.json  {"SectorNum":N,"Phase1Out":"<base64 c1.json>","SectorSize":S}
 *   data.dat          the unsealed data, nodes x 32 bytes (Fr32 nodes)
 *   sealed.dat        the sealed replica, nodes x 32 bytes (= tree R last leaves)
 *   tree-d.dat        tree D (binary SHA-256 trunc254) level by level: leaves
 *                     (= data.dat), then each level, root (comm_d) last:
 *                     (2 nodes - 1) x 32 bytes, rust-fil-proofs' tree-d layout
 *   summary.json      hex ids and commitments, numbers, timings
 *
 * Sparse mode (--sparse; the only mode at 32 and 64 GiB, which cannot be
 * sealed in memory): cuzk_seal_sparse_c1 makes the C1 of a sector that is
 * consistent only where the proofs look -- the real challenges, random
 * labels in their parents' columns, the challenges' labels hashed from
 * them, replica = last label + data, trees C and R hashed along the opened
 * paths with random digests for every unopened subtree, and tree D the
 * real tree of data repeating a 2^14-node pattern (comm_d must exist before
 * the challenges that hash it).  It writes c1.json, c1-envelope.json and
 * summary.json (same keys; seal_seconds is the generation time), not the
 * sector-sized .dat files.  Interactive PoRep only (registered proofs 0-9).
 * Every partition is always generated: the C1 format, our parser and our
 * verifier need all of them, and all 10 at 32 GiB take ~1 s of CPU
 * against 0.25 s for one (docs/perf-notes.md "Sparse C1").  --partitions
 * K,L,... only checks the list and prints those partitions' challenges
 * (for synth --partition K).
 *
 * Everything is deterministic in (--seed, --sector, --miner-id,
 * --registered-proof).  The C1 written is read back with the native parser
 * and verified before the command succeeds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/evp.h>

#include "bench.h"
#include "cli_util.h"
#include "cuzk/pool.h"
#include "cuzk/seal.h"
#include "cuzk/status.h"

static double gp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    double t0, last_pct;
    const char *last_phase;
    bool verbose;
} gp_progress_state;

static void gp_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    gp_progress_state *p = ctx;
    double pct = total ? 100.0 * (double)done / (double)total : 100.0;
    bool new_phase = !p->last_phase || strcmp(p->last_phase, phase);
    if (!p->verbose && !(done == total && new_phase)) return;
    if (new_phase || pct - p->last_pct >= 10.0 || done == total) {
        if (!new_phase && done == total && pct == p->last_pct) return;
        fprintf(stderr, "gen-vanilla porep: %-7s %5.1f%%  (%.1f s)\n", phase, pct, gp_now() - p->t0);
        p->last_pct = pct;
        p->last_phase = phase;
    }
}

static void gp_hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static int gp_write(const char *dir, const char *name, const void *buf, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(buf, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    if (!ok) fprintf(stderr, "gen-vanilla porep: cannot write %s: %s\n", path, strerror(errno));
    return ok ? 0 : 1;
}

/* The sizes gen-vanilla porep makes; index i's default proof is 5 + i (V1_1). */
static const struct {
    const char *name;
    uint64_t size;
} gp_sizes[] = {{"2KiB", 2048},
                {"8MiB", 8ull << 20},
                {"512MiB", 512ull << 20},
                {"32GiB", 32ull << 30},
                {"64GiB", 64ull << 30}};
#define GP_SIZES (sizeof gp_sizes / sizeof gp_sizes[0])
#define GP_DENSE_MAX (512ull << 20)

/* A size's index in gp_sizes (by name or byte count), or -1. */
static int gp_parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    for (size_t i = 0; i < GP_SIZES; i++)
        if (!strcmp(s, gp_sizes[i].name) || (end != s && !*end && v == gp_sizes[i].size)) return (int)i;
    return -1;
}

static bool gp_parse_u64(uint64_t *out, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || *s == '-') return false;
    *out = v;
    return true;
}

/* c1.json bytes, the envelope around them, and a parse + verify round trip. */
static int gp_write_c1(const char *out, const cuzk_seal_sector *s, cuzk_par *par)
{
    char *json = NULL, err[512] = "";
    size_t len = 0;
    FILE *m = open_memstream(&json, &len);
    int st = m ? cuzk_seal_c1_write_json(&s->c1, m, err, sizeof err) : CUZK_ERR_NOMEM;
    if (m) fclose(m);
    if (st) {
        fprintf(stderr, "gen-vanilla porep: c1.json: %s\n", err);
        free(json);
        return 1;
    }
    cuzk_seal_c1 *back = NULL;
    st = cuzk_seal_c1_parse(&back, json, len, s->info->id, err, sizeof err);
    if (!st) st = cuzk_seal_c1_verify(back, s->prover_id, s->sector_id, par, err, sizeof err);
    cuzk_seal_c1_free(back);
    if (st) {
        fprintf(stderr, "gen-vanilla porep: c1.json does not parse/verify natively: %s\n", err);
        free(json);
        return 1;
    }
    size_t b64cap = 4 * ((len + 2) / 3) + 1;
    char *env = malloc(b64cap + 128);
    unsigned char *b64 = malloc(b64cap);
    int rc = 1;
    if (env && b64 && len < (size_t)1 << 30) {
        int n = EVP_EncodeBlock(b64, (const unsigned char *)json, (int)len);
        int e = snprintf(env, b64cap + 128, "{\"SectorNum\":%llu,\"Phase1Out\":\"%.*s\",\"SectorSize\":%llu}",
                         (unsigned long long)s->sector_id, n, (const char *)b64,
                         (unsigned long long)s->info->sector_size);
        rc = gp_write(out, "c1.json", json, len) || gp_write(out, "c1-envelope.json", env, (size_t)e);
    }
    free(env);
    free(b64);
    free(json);
    if (!rc)
        printf("%s/c1.json: %s, %zu bytes, %u partition(s) x %u challenges\n", out, s->info->name, len,
               s->c1.partitions, s->c1.challenges_per_partition);
    return rc;
}

/* summary.json; `made` says how ("sealed", "generated sparse"). */
static int gp_summary(const char *out, const cuzk_seal_sector *s, double seal_s, unsigned threads,
                      const char *made)
{
    char path[1024], h[7][65];
    const uint8_t *v[7] = {s->prover_id, s->ticket,     s->seed,    s->comm_d,
                           s->comm_r,    s->replica_id, s->porep_id};
    for (int i = 0; i < 7; i++)
        gp_hex(h[i], v[i], 32);
    char cc[65], crl[65];
    gp_hex(cc, s->comm_c, 32);
    gp_hex(crl, s->comm_r_last, 32);
    snprintf(path, sizeof path, "%s/summary.json", out);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gen-vanilla porep: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(f, "{\n  \"prover_id\": \"%s\",\n  \"ticket\": \"%s\",\n  \"seed\": \"%s\",\n", h[0], h[1], h[2]);
    fprintf(f, "  \"comm_d\": \"%s\",\n  \"comm_r\": \"%s\",\n  \"replica_id\": \"%s\",\n", h[3], h[4], h[5]);
    fprintf(f, "  \"porep_id\": \"%s\",\n  \"comm_c\": \"%s\",\n  \"comm_r_last\": \"%s\",\n", h[6], cc, crl);
    fprintf(f, "  \"sector_id\": %llu,\n  \"miner_id\": %llu,\n  \"registered_proof\": %llu,\n",
            (unsigned long long)s->sector_id, (unsigned long long)s->miner_id,
            (unsigned long long)s->info->id);
    fprintf(f, "  \"registered_proof_name\": \"%s\",\n  \"sector_size\": %llu,\n", s->info->name,
            (unsigned long long)s->info->sector_size);
    fprintf(f, "  \"seal_seconds\": %.3f,\n  \"threads\": %u\n}\n", seal_s, threads);
    if (fclose(f)) return 1;
    printf("%s: comm_r %s (%s in %.2f s, %u thread%s)\n", path, h[4], made, seal_s, threads,
           threads == 1 ? "" : "s");
    return 0;
}

typedef struct {
    int size; /* index in gp_sizes, -1 unset */
    uint64_t proof, sector, miner, seed, threads;
    const char *out, *partitions;
    bool sparse;
} gp_opts;

static const char gp_usage[] =
    "usage: cuzk-bench gen-vanilla porep --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB --out DIR [--sparse] "
    "[--partitions K,L,...] [--registered-proof N] [--sector N] [--miner-id N] [--seed S] [--threads T]\n";

/* 0, or 2 (usage error, reported). */
static int gp_parse_args(gp_opts *o, int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--sparse")) {
            o->sparse = true;
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        bool ok = v != NULL;
        if (!ok) {
        } else if (!strcmp(a, "--sector-size")) {
            ok = (o->size = gp_parse_size(v)) >= 0;
        } else if (!strcmp(a, "--out")) {
            o->out = v;
        } else if (!strcmp(a, "--partitions")) {
            o->partitions = v;
        } else if (!strcmp(a, "--registered-proof")) {
            ok = gp_parse_u64(&o->proof, v);
        } else if (!strcmp(a, "--sector")) {
            ok = gp_parse_u64(&o->sector, v);
        } else if (!strcmp(a, "--miner-id")) {
            ok = gp_parse_u64(&o->miner, v);
        } else if (!strcmp(a, "--seed")) {
            ok = gp_parse_u64(&o->seed, v);
        } else if (!strcmp(a, "--threads")) {
            ok = gp_parse_u64(&o->threads, v) && o->threads >= 1 && o->threads <= 1024;
        } else {
            fprintf(stderr, "gen-vanilla porep: unknown option %s\n%s", a, gp_usage);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "gen-vanilla porep: bad or missing value for %s\n%s", a, gp_usage);
            return 2;
        }
    }
    if (o->size < 0 || !o->out) {
        fputs(gp_usage, stderr);
        return 2;
    }
    return 0;
}

/* The challenges of the selected partitions (sel NULL: none). */
static void gp_print_partitions(const cuzk_seal_c1 *c1, const uint8_t *sel)
{
    for (uint32_t k = 0; sel && k < c1->partitions; k++) {
        if (!sel[k]) continue;
        printf("partition %u challenges:", k);
        for (uint32_t i = 0; i < c1->challenges_per_partition; i++)
            printf(" %u", c1->proofs[(size_t)k * c1->challenges_per_partition + i].c_x.index);
        printf("\n");
    }
}

static int gp_dense(const gp_opts *o, const cuzk_seal_config *cfg, cuzk_par *par, const uint8_t *sel)
{
    uint64_t size = gp_sizes[o->size].size;
    gp_progress_state ps = {.t0 = gp_now(), .last_pct = -100.0, .verbose = size > (8ull << 20)};
    cuzk_seal_sector *s = NULL;
    char err[512] = "";
    int st = cuzk_seal_sector_seal(&s, cfg, par, gp_progress, &ps, err, sizeof err);
    double seal_s = gp_now() - ps.t0;
    int rc = 1;
    if (st) {
        fprintf(stderr, "gen-vanilla porep: %s\n", err[0] ? err : cuzk_strerror(st));
    } else {
        size_t nb = 32 * (size_t)s->nodes;
        rc = gp_write_c1(o->out, s, par) || gp_write(o->out, "data.dat", s->data, nb) ||
             gp_write(o->out, "sealed.dat", s->replica, nb) ||
             gp_write(o->out, "tree-d.dat", s->tree_d, 2 * nb - 32) ||
             gp_summary(o->out, s, seal_s, (unsigned)o->threads, "sealed");
        if (!rc) gp_print_partitions(&s->c1, sel);
    }
    cuzk_seal_sector_free(s);
    return rc;
}

/* The sparse C1 seen as a sector without data, layers or trees, so that it
 * is written and summarized by the dense path's code. */
static void gp_sparse_view(cuzk_seal_sector *v, const cuzk_seal_sparse *sp)
{
    memset(v, 0, sizeof *v);
    v->info = sp->info;
    v->nodes = sp->nodes;
    v->sector_id = sp->sector_id;
    v->miner_id = sp->miner_id;
    uint8_t *dst[9] = {v->prover_id, v->porep_id, v->ticket,      v->seed,  v->replica_id,
                       v->comm_d,    v->comm_c,   v->comm_r_last, v->comm_r};
    const uint8_t *src[9] = {sp->prover_id, sp->porep_id, sp->ticket,      sp->seed,  sp->replica_id,
                             sp->comm_d,    sp->comm_c,   sp->comm_r_last, sp->comm_r};
    for (int i = 0; i < 9; i++)
        memcpy(dst[i], src[i], 32);
    v->c1 = *sp->c1; /* a view: sp keeps owning the proofs */
}

static int gp_sparse(const gp_opts *o, const cuzk_seal_config *cfg, cuzk_par *par, const uint8_t *sel)
{
    cuzk_seal_sparse sp;
    char err[512] = "";
    double t0 = gp_now();
    int st = cuzk_seal_sparse_c1(&sp, cfg, par, err, sizeof err);
    double gen_s = gp_now() - t0;
    if (st) {
        fprintf(stderr, "gen-vanilla porep: %s\n", err[0] ? err : cuzk_strerror(st));
        return 1;
    }
    fprintf(stderr, "gen-vanilla porep: sparse C1 of %s: %u partitions x %u challenges in %.2f s\n",
            sp.info->name, sp.c1->partitions, sp.c1->challenges_per_partition, gen_s);
    cuzk_seal_sector v;
    gp_sparse_view(&v, &sp);
    t0 = gp_now();
    int rc = gp_write_c1(o->out, &v, par);
    if (!rc)
        fprintf(stderr, "gen-vanilla porep: written, parsed back and verified in %.2f s\n", gp_now() - t0);
    rc = rc || gp_summary(o->out, &v, gen_s, (unsigned)o->threads, "generated sparse");
    if (!rc) gp_print_partitions(&v.c1, sel);
    cuzk_seal_sparse_free(&sp);
    return rc;
}

int cmd_gen_vanilla_porep(int argc, char **argv)
{
    gp_opts o = {.size = -1, .proof = UINT64_MAX, .sector = 1, .miner = 1000, .threads = 1};
    int rc = gp_parse_args(&o, argc, argv);
    if (rc) return rc;
    uint64_t size = gp_sizes[o.size].size;
    if (o.proof == UINT64_MAX) o.proof = 5 + (uint64_t)o.size; /* V1_1 */
    const cuzk_fil_seal_info *info;
    if (cuzk_fil_seal_lookup(&info, o.proof) || info->sector_size != size) {
        fprintf(stderr, "gen-vanilla porep: registered proof %llu is not a seal proof of %llu bytes\n",
                (unsigned long long)o.proof, (unsigned long long)size);
        return 2;
    }
    if (size > GP_DENSE_MAX) o.sparse = true; /* cannot be sealed in memory */
    uint8_t sel[256] = {0};
    if (o.partitions && cli_partition_list(sel, info->partitions, o.partitions, "gen-vanilla porep", info->name))
        return 2;
    if (mkdir(o.out, 0777) && errno != EEXIST) {
        fprintf(stderr, "gen-vanilla porep: cannot create %s: %s\n", o.out, strerror(errno));
        return 1;
    }
    cuzk_pool *pool = NULL;
    if (o.threads > 1 && cuzk_pool_create(&pool, (unsigned)o.threads)) {
        fprintf(stderr, "gen-vanilla porep: cannot start %llu threads\n", (unsigned long long)o.threads);
        return 1;
    }
    cuzk_par *par = pool ? cuzk_pool_par(pool) : NULL;
    cuzk_seal_config cfg = {
        .registered_proof = o.proof, .sector_id = o.sector, .miner_id = o.miner, .seed = o.seed};
    const uint8_t *s = o.partitions ? sel : NULL;
    rc = o.sparse ? gp_sparse(&o, &cfg, par, s) : gp_dense(&o, &cfg, par, s);
    cuzk_pool_destroy(pool);
    return rc;
}
