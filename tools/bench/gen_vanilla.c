/* cuzk-bench gen-vanilla post: synthetic sectors and their PoSt vanilla
 * proofs, exactly as Curio would send them for real sectors.
 *
 * Dense (the default at 2 KiB, 8 MiB and 512 MiB; one sector): replica
 * data is deterministic: node i = SHA-256("cuzk-gen-vanilla node" || seed
 * || sector || i, all u64 LE) with the top two bits cleared (an Fr32
 * value).  tree_r_last is the sector's 8-ary Poseidon tree over those nodes
 * (2 KiB = 64 nodes, 8 MiB = 2^18, 512 MiB = 2^24), comm_c is another such
 * hash, and comm_r = Poseidon2(comm_c, comm_r_last).  The nodes are never
 * stored: the tree keeps levels >= 1 and regenerates leaves for proofs.
 *
 * Sparse (--sparse at any size, always at 32 GiB and 64 GiB): --sectors N
 * sectors with ids S .. S+N-1, whose trees are never built.  Each sector's
 * tree_r_last is a sparse synthetic tree (cuzk_fil_sparse_post_vanilla,
 * src/fil/sparse_tree.c: 8-8-0 at 32 GiB, 8-8-2 at 64 GiB) that computes
 * only the paths its challenges open -- the real challenges for the
 * randomness and sector id: WindowPoSt's for every sector, WinningPoSt's
 * for the one sector WinningPoSt picks for --miner-id among the N
 * (cuzk_fil_winning_sector_challenge) -- and takes every subtree no path
 * opens, and every leaf, as a digest derived from SHA-256(tag || seed ||
 * sector).  comm_c is made as in dense mode; comm_r_last and comm_r =
 * Poseidon2(comm_c, comm_r_last) follow as for a real sector.  A full
 * 32 GiB partition (--sectors 2349, 24,960 bytes a sector) takes ~20 CPU-s
 * (half of it the read-back check below), 21-29 s wall on the busy 2-vCPU
 * dev VM, 12 MiB peak RSS; 64 GiB (2300) the same (docs/perf-notes.md,
 * "Sparse PoSt vanilla proofs").
 *
 * Output in DIR: window-post.vproof (the first sector's WindowPoSt proof),
 * winning-post.vproof, summary.json (sector_size, sector, seed,
 * randomness, comm_r, comm_c, comm_r_last and sealed_cid of the first
 * sector, the registered proofs, winning_challenges of the WinningPoSt
 * sector, window_challenges of the first, tree_build_seconds: the tree
 * build, or in sparse mode the making, checking and writing of every
 * sector).  Sparse mode adds window-post-00001.vproof ... (sector i of the
 * list), window-post.list (those file names in partition order, one a
 * line: the --vanilla arguments), window-post.sectors (ID:COMM_R, one a
 * line: the --sector arguments of `verify`) and the summary keys sparse,
 * sectors, miner_id, winning_sector, winning_comm_r, peak_rss_bytes.
 * Every file is read back through the parser and the native verifier
 * (cuzk_fil_vanilla_verify) before it is written. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/sha.h>

#include "bench.h"
#include "cli_util.h"
#include "cuzk/filecoin.h"
#include "cuzk/pool.h"
#include "cuzk/post.h"
#include "cuzk/status.h"

#define GV_MAX_SECTORS 100000 /* file names carry 5 digits */
#define GV_ERR 512

typedef struct {
    uint64_t size, sector, seed, sectors, miner_id;
    unsigned threads;
    bool sparse, have_sector;
    uint8_t rnd[32];
    const char *out;
    const cuzk_fil_post_info *win, *wnd;
} gv_opts;

/* What summary.json reports (sector = the first; winning = WinningPoSt's). */
typedef struct {
    uint8_t comm_r[32], comm_c[32], comm_r_last[32], win_comm_r[32];
    uint64_t win_sector, ch_win[66], ch_wnd[10];
    double build_s;
} gv_summary;

typedef struct {
    uint64_t seed, sector;
} gv_ctx;

static void gv_node(uint8_t out[32], const char *label, uint64_t seed, uint64_t sector, uint64_t i)
{
    uint8_t msg[64];
    size_t l = strlen(label);
    memcpy(msg, label, l);
    for (int b = 0; b < 8; b++) {
        msg[l + b] = (uint8_t)(seed >> (8 * b));
        msg[l + 8 + b] = (uint8_t)(sector >> (8 * b));
        msg[l + 16 + b] = (uint8_t)(i >> (8 * b));
    }
    SHA256(msg, l + 24, out);
    out[31] &= 0x3f;
}

static int gv_leaves(void *ctx, uint64_t first, size_t n, uint8_t *out)
{
    const gv_ctx *c = ctx;
    for (size_t i = 0; i < n; i++)
        gv_node(out + 32 * i, "cuzk-gen-vanilla node", c->seed, c->sector, first + i);
    return CUZK_OK;
}

static void gv_progress(void *ctx, uint64_t done, uint64_t total)
{
    double *last = ctx;
    double pct = 100.0 * (double)done / (double)total;
    if (pct - *last >= 10.0 || done == total) {
        fprintf(stderr, "gen-vanilla: tree_r_last %5.1f%%\n", pct);
        *last = pct;
    }
}

static void gv_hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

/* Serialize v, read the bytes back through the parser and the native
 * verifier, write DIR/name; *written = the file's size. */
static int gv_emit(const char *dir, const char *name, const cuzk_fil_post_vanilla *v,
                   const cuzk_fil_post_info *info, const uint8_t rnd[32], uint64_t sector_index,
                   size_t *written, char *err, size_t err_len)
{
    size_t len = cuzk_fil_vanilla_size(v), w = 0;
    uint8_t *buf = malloc(len);
    char sub[CUZK_FIL_ERR_LEN] = "";
    if (!buf) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory for %zu bytes", name, len);
    int st = cuzk_fil_vanilla_write(buf, len, &w, v);
    cuzk_fil_post_vanilla back;
    bool ok = false;
    if (!st) st = cuzk_fil_vanilla_parse(&back, buf, w, NULL, sub, sizeof sub);
    if (!st) {
        st = cuzk_fil_vanilla_verify(&ok, &back, info, rnd, sector_index, sub, sizeof sub);
        cuzk_fil_vanilla_free(&back);
    }
    if (st || !ok) {
        free(buf);
        return cuzk_errf(err, err_len, st ? st : CUZK_ERR_FORMAT, "%s (%s) does not verify: %s", name,
                         info->name, sub[0] ? sub : cuzk_strerror(st));
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    bool bad = !f || fwrite(buf, 1, w, f) != w;
    if (f && fclose(f)) bad = true;
    free(buf);
    if (bad) return cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    *written = w;
    return CUZK_OK;
}

/* Dense: prove the challenges of `info` from the whole tree, emit DIR/name. */
static int gv_write_proof(const char *dir, const char *name, const cuzk_fil_post_info *info,
                          const cuzk_fil_tree *t, const uint8_t comm_r[32], const uint8_t comm_c[32],
                          const uint8_t rnd[32], uint64_t sector, uint64_t *challenges, char *err,
                          size_t err_len)
{
    int st = cuzk_fil_post_challenges(challenges, info, rnd, sector, 0);
    if (st) return cuzk_errf(err, err_len, st, "randomness is not a field element");
    size_t sl = cuzk_fil_tree_proof_storage(t), n = info->challenge_count, w = 0;
    uint64_t *store = malloc(sl * n);
    cuzk_fil_merkle_proof *pr = calloc(n, sizeof *pr);
    if (!store || !pr) st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory", name);
    for (size_t i = 0; i < n && !st; i++)
        if ((st = cuzk_fil_tree_prove(&pr[i], (uint8_t *)store + sl * i, sl, t, challenges[i])))
            cuzk_errf(err, err_len, st, "%s: cannot prove leaf %llu", name,
                      (unsigned long long)challenges[i]);
    cuzk_fil_sector_proof sp = {.n_proofs = n, .proofs = pr};
    cuzk_fil_post_vanilla v = {.sector_id = sector, .n_sectors = 1, .sectors = &sp};
    memcpy(sp.comm_c, comm_c, 32);
    cuzk_fil_tree_root(sp.comm_r_last, t);
    memcpy(v.comm_r, comm_r, 32);
    if (!st) st = gv_emit(dir, name, &v, info, rnd, 0, &w, err, err_len);
    if (!st) printf("%s/%s: %s, %zu bytes, %zu inclusion proofs\n", dir, name, info->name, w, n);
    free(pr);
    free(store);
    return st;
}

static void gv_json_list(FILE *f, const char *key, const uint64_t *v, size_t n)
{
    fprintf(f, "  \"%s\": [", key);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    fprintf(f, "],\n");
}

/* DIR/summary.json; the sparse keys when o->sparse. */
static int gv_write_summary(const gv_opts *o, const gv_summary *s)
{
    char path[1024], hx[4][65], cid[80], rh[65];
    gv_hex(hx[0], s->comm_r, 32);
    gv_hex(hx[1], s->comm_c, 32);
    gv_hex(hx[2], s->comm_r_last, 32);
    gv_hex(hx[3], s->win_comm_r, 32);
    gv_hex(rh, o->rnd, 32);
    if (cuzk_fil_cid_encode(cid, sizeof cid, s->comm_r, CUZK_FIL_COMM_R)) {
        fprintf(stderr, "gen-vanilla: cannot write comm_r as a CID\n");
        return 1;
    }
    snprintf(path, sizeof path, "%s/summary.json", o->out);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gen-vanilla: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(f, "{\n  \"sector_size\": %llu,\n  \"sector\": %llu,\n  \"seed\": %llu,\n",
            (unsigned long long)o->size, (unsigned long long)o->sector, (unsigned long long)o->seed);
    fprintf(f, "  \"randomness\": \"%s\",\n", rh);
    fprintf(f, "  \"comm_r\": \"%s\",\n  \"comm_c\": \"%s\",\n  \"comm_r_last\": \"%s\",\n", hx[0], hx[1],
            hx[2]);
    fprintf(f, "  \"sealed_cid\": \"%s\",\n", cid);
    fprintf(f, "  \"winning_registered_proof\": %llu,\n  \"window_registered_proof\": %llu,\n",
            (unsigned long long)o->win->id, (unsigned long long)o->wnd->id);
    gv_json_list(f, "winning_challenges", s->ch_win, o->win->challenge_count);
    gv_json_list(f, "window_challenges", s->ch_wnd, o->wnd->challenge_count);
    if (o->sparse) {
        fprintf(f, "  \"sparse\": true,\n  \"sectors\": %llu,\n  \"miner_id\": %llu,\n",
                (unsigned long long)o->sectors, (unsigned long long)o->miner_id);
        fprintf(f, "  \"winning_sector\": %llu,\n  \"winning_comm_r\": \"%s\",\n",
                (unsigned long long)s->win_sector, hx[3]);
        fprintf(f, "  \"peak_rss_bytes\": %llu,\n", (unsigned long long)cli_peak_rss());
    }
    fprintf(f, "  \"tree_build_seconds\": %.3f\n}\n", s->build_s);
    if (fclose(f)) return 1;
    printf("%s: comm_r %s (%s in %.2f s, %u thread%s)\n", path, hx[0],
           o->sparse ? "sparse sectors made" : "tree_r_last built", s->build_s, o->threads,
           o->threads == 1 ? "" : "s");
    return 0;
}

/* ---- dense: one sector, its whole tree ------------------------------------ */

static int gv_dense(const gv_opts *o)
{
    cuzk_fil_tree_shape shape;
    if (cuzk_fil_tree_shape_for_sector(&shape, o->size)) {
        fprintf(stderr, "gen-vanilla: no tree shape for %llu-byte sectors\n", (unsigned long long)o->size);
        return 1;
    }
    cuzk_pool *pool = NULL;
    if (o->threads > 1 && cuzk_pool_create(&pool, o->threads)) {
        fprintf(stderr, "gen-vanilla: cannot start %u threads\n", o->threads);
        return 1;
    }
    gv_ctx ctx = {.seed = o->seed, .sector = o->sector};
    cuzk_fil_tree *t = NULL;
    char err[GV_ERR] = "";
    double last = -100.0, t0 = cli_now();
    int st = cuzk_fil_tree_build(&t, &shape, gv_leaves, &ctx, pool ? cuzk_pool_par(pool) : NULL,
                                 o->size > (8ull << 20) ? gv_progress : NULL, &last, err, sizeof err);
    gv_summary s = {.win_sector = o->sector, .build_s = cli_now() - t0};
    if (!st) {
        gv_node(s.comm_c, "cuzk-gen-vanilla comm_c", o->seed, o->sector, 0);
        cuzk_fil_tree_root(s.comm_r_last, t);
        st = cuzk_fil_comm_r(s.comm_r, s.comm_c, s.comm_r_last, err, sizeof err);
        memcpy(s.win_comm_r, s.comm_r, 32);
    }
    if (!st)
        st = gv_write_proof(o->out, "winning-post.vproof", o->win, t, s.comm_r, s.comm_c, o->rnd, o->sector,
                            s.ch_win, err, sizeof err);
    if (!st)
        st = gv_write_proof(o->out, "window-post.vproof", o->wnd, t, s.comm_r, s.comm_c, o->rnd, o->sector,
                            s.ch_wnd, err, sizeof err);
    cuzk_fil_tree_free(t);
    cuzk_pool_destroy(pool);
    if (st) {
        fprintf(stderr, "gen-vanilla: %s\n", err);
        return 1;
    }
    return gv_write_summary(o, &s);
}

/* ---- sparse: N sectors, only the paths their challenges open ------------- */

typedef struct {
    const gv_opts *o;
    uint64_t win_index;     /* position of the sector WinningPoSt picks */
    uint8_t (*comm)[3][32]; /* per sector: comm_r, comm_c, comm_r_last */
    atomic_size_t done, bytes;
    atomic_int failed;
    int st;
    char err[GV_ERR];
} gv_sparse_ctx;

static void gv_window_name(char *out, size_t cap, uint64_t i)
{
    if (i)
        snprintf(out, cap, "window-post-%05llu.vproof", (unsigned long long)i);
    else
        snprintf(out, cap, "window-post.vproof");
}

/* Sector i: make its proofs (WinningPoSt's too when it is the picked
 * one), check and write them, keep its commitments for the summary. */
static int gv_sparse_sector(gv_sparse_ctx *c, uint64_t i, char *err, size_t err_len)
{
    const gv_opts *o = c->o;
    cuzk_fil_sparse_sector sec = {.sector_id = o->sector + i};
    gv_node(sec.comm_c, "cuzk-gen-vanilla comm_c", o->seed, sec.sector_id, 0);
    gv_node(sec.seed, "cuzk-gen-vanilla sparse tree", o->seed, sec.sector_id, 0);
    cuzk_fil_sparse_post_target tg[2] = {{o->wnd, i}, {o->win, 0}};
    size_t nt = i == c->win_index ? 2 : 1, w = 0, w2 = 0;
    cuzk_fil_post_vanilla v[2];
    int st = cuzk_fil_sparse_post_vanilla(v, tg, nt, &sec, o->rnd, err, err_len);
    if (st) return st;
    memcpy(c->comm[i][0], v[0].comm_r, 32);
    memcpy(c->comm[i][1], v[0].sectors[0].comm_c, 32);
    memcpy(c->comm[i][2], v[0].sectors[0].comm_r_last, 32);
    char name[64];
    gv_window_name(name, sizeof name, i);
    st = gv_emit(o->out, name, &v[0], o->wnd, o->rnd, i, &w, err, err_len);
    if (!st && nt == 2)
        st = gv_emit(o->out, "winning-post.vproof", &v[1], o->win, o->rnd, 0, &w2, err, err_len);
    for (size_t k = 0; k < nt; k++)
        cuzk_fil_vanilla_free(&v[k]);
    atomic_fetch_add(&c->bytes, w + w2);
    return st;
}

static void gv_sparse_task(void *arg, size_t i)
{
    gv_sparse_ctx *c = arg;
    if (atomic_load(&c->failed)) return;
    char err[GV_ERR] = "";
    int st = gv_sparse_sector(c, i, err, sizeof err);
    if (st && !atomic_exchange(&c->failed, 1)) {
        c->st = st;
        snprintf(c->err, sizeof c->err, "sector %llu: %.480s", (unsigned long long)(c->o->sector + i), err);
    }
    size_t n = c->o->sectors, d = atomic_fetch_add(&c->done, 1) + 1;
    if (n >= 100 && d * 10 / n != (d - 1) * 10 / n)
        fprintf(stderr, "gen-vanilla: %zu of %zu sectors\n", d, n);
}

/* window-post.list and window-post.sectors, in partition order. */
static int gv_write_lists(const gv_opts *o, uint8_t (*comm)[3][32])
{
    char p1[1024], p2[1024], name[64], hx[65];
    snprintf(p1, sizeof p1, "%s/window-post.list", o->out);
    snprintf(p2, sizeof p2, "%s/window-post.sectors", o->out);
    FILE *f1 = fopen(p1, "w"), *f2 = fopen(p2, "w");
    for (uint64_t i = 0; f1 && f2 && i < o->sectors; i++) {
        gv_window_name(name, sizeof name, i);
        gv_hex(hx, comm[i][0], 32);
        fprintf(f1, "%s\n", name);
        fprintf(f2, "%llu:%s\n", (unsigned long long)(o->sector + i), hx);
    }
    bool bad = !f1 || !f2;
    if (f1 && fclose(f1)) bad = true;
    if (f2 && fclose(f2)) bad = true;
    if (bad) fprintf(stderr, "gen-vanilla: cannot write %s or %s\n", p1, p2);
    return bad;
}

/* Make every sector over T threads; fill the summary. */
static int gv_sparse_run(const gv_opts *o, gv_sparse_ctx *c, gv_summary *s)
{
    cuzk_pool *pool = NULL;
    if (o->threads > 1 && cuzk_pool_create(&pool, o->threads)) {
        fprintf(stderr, "gen-vanilla: cannot start %u threads\n", o->threads);
        return 1;
    }
    double t0 = cli_now();
    cuzk_par_for(pool ? cuzk_pool_par(pool) : NULL, gv_sparse_task, c, (size_t)o->sectors);
    s->build_s = cli_now() - t0;
    cuzk_pool_destroy(pool);
    if (c->st) {
        fprintf(stderr, "gen-vanilla: %s\n", c->err);
        return 1;
    }
    memcpy(s->comm_r, c->comm[0][0], 32);
    memcpy(s->comm_c, c->comm[0][1], 32);
    memcpy(s->comm_r_last, c->comm[0][2], 32);
    memcpy(s->win_comm_r, c->comm[c->win_index][0], 32);
    s->win_sector = o->sector + c->win_index;
    if (cuzk_fil_post_challenges(s->ch_win, o->win, o->rnd, s->win_sector, 0) ||
        cuzk_fil_post_challenges(s->ch_wnd, o->wnd, o->rnd, o->sector, 0)) {
        fprintf(stderr, "gen-vanilla: the challenges of the summary cannot be derived\n");
        return 1; /* cannot happen: every sector's challenges were derived already */
    }
    printf("%s: %llu sparse %s sectors: window-post*.vproof (%llu bytes in all, list in window-post.list), "
           "winning-post.vproof (sector %llu), %.2f s, peak RSS %.1f MiB\n",
           o->out, (unsigned long long)o->sectors, o->wnd->name, (unsigned long long)atomic_load(&c->bytes),
           (unsigned long long)s->win_sector, s->build_s, (double)cli_peak_rss() / (1 << 20));
    return 0;
}

static int gv_sparse(const gv_opts *o)
{
    uint8_t pid[32];
    cuzk_post_prover_id(pid, o->miner_id);
    gv_sparse_ctx *c = calloc(1, sizeof *c);
    if (!c || !(c->comm = calloc((size_t)o->sectors, sizeof *c->comm))) {
        fprintf(stderr, "gen-vanilla: out of memory for %llu sectors\n", (unsigned long long)o->sectors);
        free(c);
        return 1;
    }
    c->o = o;
    atomic_init(&c->done, 0);
    atomic_init(&c->bytes, 0);
    atomic_init(&c->failed, 0);
    c->win_index = cuzk_fil_winning_sector_challenge(o->rnd, pid, 0, o->sectors);
    gv_summary s = {0};
    int rc = gv_sparse_run(o, c, &s);
    if (!rc) rc = gv_write_lists(o, c->comm);
    if (!rc) rc = gv_write_summary(o, &s);
    free(c->comm);
    free(c);
    return rc;
}

/* ---- options ---------------------------------------------------------------- */

/* gen_vanilla_porep.c: `gen-vanilla porep`, a natively sealed test sector */
int cmd_gen_vanilla_porep(int argc, char **argv);
int cmd_gen_vanilla_snap(int argc, char **argv); /* gen_vanilla_snap.c: `gen-vanilla snap` */

static const char gv_usage[] =
    "usage: cuzk-bench gen-vanilla post --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB --sector N "
    "--randomness HEX64 --out DIR [--sparse] [--sectors COUNT] [--miner-id M] [--seed S] [--threads T]\n"
    "       (sparse trees at 32/64 GiB or with --sparse: COUNT sectors N.., only the challenged paths;\n"
    "        --miner-id (default 1000) picks the WinningPoSt sector)\n"
    "       cuzk-bench gen-vanilla porep --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB --out DIR [--sparse] "
    "[--partitions K,L,...] [--registered-proof N] [--sector N] [--miner-id N] [--seed S] [--threads T]\n"
    "       (sparse C1 at 32/64 GiB or with --sparse: no sealing, only what the proofs open)\n"
    "       cuzk-bench gen-vanilla snap --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB --out DIR2 "
    "(--sealed DIR | --sparse) [--partitions K,L,...] [--seed S] [--threads T]\n"
    "       (sparse at 32/64 GiB or with --sparse: no sector, periodic trees; --partitions: only those)\n";

/* One option with its value; 0, or 2 after a message. */
static int gv_option(gv_opts *o, const char *a, const char *v)
{
    uint64_t n;
    if (!strcmp(a, "--sector-size")) {
        if (!(o->size = cli_sector_size(v))) {
            fprintf(stderr, "gen-vanilla: sector size '%s' not supported (2KiB 8MiB 512MiB 32GiB 64GiB)\n",
                    v);
            return 2;
        }
    } else if (!strcmp(a, "--sector")) {
        if (cli_u64(&o->sector, v, "--sector")) return 2;
        o->have_sector = true;
    } else if (!strcmp(a, "--sectors")) {
        if (cli_u64(&o->sectors, v, "--sectors")) return 2;
    } else if (!strcmp(a, "--miner-id")) {
        if (cli_u64(&o->miner_id, v, "--miner-id")) return 2;
    } else if (!strcmp(a, "--randomness")) {
        if (cli_hex32(o->rnd, v, "--randomness")) return 2;
        if (o->rnd[31] & 0xc0) fprintf(stderr, "gen-vanilla: randomness[31] &= 0x3f (as Curio does)\n");
        o->rnd[31] &= 0x3f;
    } else if (!strcmp(a, "--out")) {
        o->out = v;
    } else if (!strcmp(a, "--seed")) {
        if (cli_u64(&o->seed, v, "--seed")) return 2;
    } else if (!strcmp(a, "--threads")) {
        if (cli_u64(&n, v, "--threads")) return 2;
        o->threads = n > 1024 ? 1024 : (unsigned)n;
    } else {
        fprintf(stderr, "gen-vanilla: unknown option %s\n%s", a, gv_usage);
        return 2;
    }
    return 0;
}

/* The registered proofs of the size: Winning V1 (0-4), Window V1_2 (10-14). */
static int gv_lookup(gv_opts *o)
{
    for (uint64_t id = 0; id < 15; id++) {
        const cuzk_fil_post_info *p;
        if (cuzk_fil_post_lookup(&p, id) || p->sector_size != o->size) continue;
        if (p->winning) o->win = p;
        if (!p->winning && p->api_version == CUZK_FIL_API_V1_2) o->wnd = p;
    }
    if (o->win && o->wnd) return 0;
    fprintf(stderr, "gen-vanilla: no PoSt proof for %llu-byte sectors (2KiB 8MiB 512MiB 32GiB 64GiB)\n",
            (unsigned long long)o->size);
    return 2;
}

static int gv_parse(gv_opts *o, int argc, char **argv)
{
    *o = (gv_opts){.threads = 1, .sectors = 1, .miner_id = 1000};
    bool have_rnd = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sparse")) {
            o->sparse = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "gen-vanilla: %s needs a value\n%s", a, gv_usage);
            return 2;
        }
        if (gv_option(o, a, v)) return 2;
        have_rnd |= !strcmp(a, "--randomness");
        i++;
    }
    if (!o->size || !o->have_sector || !have_rnd || !o->out) {
        fputs(gv_usage, stderr);
        return 2;
    }
    if (o->size > (512ull << 20)) o->sparse = true; /* no dense tree of 1 G nodes and more */
    if (!o->threads) o->threads = 1;
    if (!o->sectors || o->sectors > GV_MAX_SECTORS || (!o->sparse && o->sectors != 1)) {
        fprintf(stderr,
                "gen-vanilla: --sectors %llu: 1 in dense mode (more need --sparse), 1 to %d with --sparse\n",
                (unsigned long long)o->sectors, GV_MAX_SECTORS);
        return 2;
    }
    if (o->sector > UINT64_MAX - o->sectors) {
        fprintf(stderr, "gen-vanilla: sector ids %llu + %llu overflow\n", (unsigned long long)o->sector,
                (unsigned long long)o->sectors);
        return 2;
    }
    return gv_lookup(o);
}

int cmd_gen_vanilla(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "porep")) return cmd_gen_vanilla_porep(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "snap")) return cmd_gen_vanilla_snap(argc, argv);
    if (argc < 2 || strcmp(argv[1], "post")) {
        fputs(gv_usage, stderr);
        return 2;
    }
    gv_opts o;
    int rc = gv_parse(&o, argc, argv);
    if (rc) return rc;
    if (mkdir(o.out, 0777) && errno != EEXIST) {
        fprintf(stderr, "gen-vanilla: cannot create %s: %s\n", o.out, strerror(errno));
        return 1;
    }
    return o.sparse ? gv_sparse(&o) : gv_dense(&o);
}
