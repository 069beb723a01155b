/* cuzk-bench gen-vanilla post: a synthetic sector and its PoSt vanilla
 * proofs, exactly as Curio would send them for a real sector.
 *
 * Replica data is deterministic: node i = SHA-256("cuzk-gen-vanilla node" ||
 * seed || sector || i, all u64 LE) with the top two bits cleared (an Fr32
 * value).  tree_r_last is the sector's 8-ary Poseidon tree over those nodes
 * (2 KiB = 64 nodes, 8 MiB = 2^18, 512 MiB = 2^24), comm_c is another such
 * hash, and comm_r = Poseidon2(comm_c, comm_r_last).  The nodes are never
 * stored: the tree keeps levels >= 1 and regenerates leaves for proofs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/sha.h>

#include "bench.h"
#include "cuzk/filecoin.h"
#include "cuzk/pool.h"
#include "cuzk/status.h"

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
    for (size_t i = 0; i < n; i++) gv_node(out + 32 * i, "cuzk-gen-vanilla node", c->seed, c->sector, first + i);
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

static double gv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void gv_hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

/* Prove the challenges of `info`, write DIR/name, verify the bytes back. */
static int gv_write_proof(const char *dir, const char *name, const cuzk_fil_post_info *info,
                          const cuzk_fil_tree *t, const uint8_t comm_c[32], const uint8_t rnd[32],
                          uint64_t sector, uint64_t *challenges)
{
    int st = cuzk_fil_post_challenges(challenges, info, rnd, sector, 0);
    if (st) return st;
    size_t sl = cuzk_fil_tree_proof_storage(t), n = info->challenge_count;
    uint64_t *store = malloc(sl * n);
    cuzk_fil_merkle_proof *pr = calloc(n, sizeof *pr);
    uint8_t *buf = NULL;
    char err[CUZK_FIL_ERR_LEN] = "";
    if (!store || !pr) {
        st = CUZK_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < n && !st; i++)
        st = cuzk_fil_tree_prove(&pr[i], (uint8_t *)store + sl * i, sl, t, challenges[i]);
    if (st) goto done;
    cuzk_fil_sector_proof sp = {.n_proofs = n, .proofs = pr};
    memcpy(sp.comm_c, comm_c, 32);
    cuzk_fil_tree_root(sp.comm_r_last, t);
    cuzk_fil_post_vanilla v = {.sector_id = sector, .n_sectors = 1, .sectors = &sp};
    if ((st = cuzk_fil_comm_r(v.comm_r, comm_c, sp.comm_r_last, err, sizeof err))) goto done;
    size_t len = cuzk_fil_vanilla_size(&v), w = 0;
    if (!(buf = malloc(len))) {
        st = CUZK_ERR_NOMEM;
        goto done;
    }
    if ((st = cuzk_fil_vanilla_write(buf, len, &w, &v))) goto done;
    /* read our own bytes back through the parser and the native verifier */
    cuzk_fil_post_vanilla back;
    bool ok = false;
    if ((st = cuzk_fil_vanilla_parse(&back, buf, w, NULL, err, sizeof err))) goto done;
    st = cuzk_fil_vanilla_verify(&ok, &back, info, rnd, 0, err, sizeof err);
    cuzk_fil_vanilla_free(&back);
    if (st || !ok) {
        fprintf(stderr, "gen-vanilla: %s does not verify: %s\n", name, err);
        st = st ? st : CUZK_ERR_FORMAT;
        goto done;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, w, f) != w) {
        fprintf(stderr, "gen-vanilla: cannot write %s: %s\n", path, strerror(errno));
        st = CUZK_ERR_IO;
    }
    if (f && fclose(f)) st = CUZK_ERR_IO;
    if (!st) printf("%s: %s, %zu bytes, %zu inclusion proofs\n", path, info->name, w, n);
done:
    free(buf);
    free(pr);
    free(store);
    return st;
}

static uint64_t gv_parse_size(const char *s)
{
    static const struct { const char *n; uint64_t v; } t[] = {
        {"2KiB", 2048}, {"8MiB", 8ull << 20}, {"512MiB", 512ull << 20}, {"2048", 2048},
        {"8388608", 8ull << 20}, {"536870912", 512ull << 20}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].n)) return t[i].v;
    return 0;
}

static void gv_json_list(FILE *f, const char *key, const uint64_t *v, size_t n)
{
    fprintf(f, "  \"%s\": [", key);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    fprintf(f, "],\n");
}

/* gen_vanilla_porep.c: `gen-vanilla porep`, a natively sealed test sector */
int cmd_gen_vanilla_porep(int argc, char **argv);
int cmd_gen_vanilla_snap(int argc, char **argv); /* gen_vanilla_snap.c: `gen-vanilla snap` */

int cmd_gen_vanilla(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "porep")) return cmd_gen_vanilla_porep(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "snap")) return cmd_gen_vanilla_snap(argc, argv);
    const char *usage = "usage: cuzk-bench gen-vanilla post --sector-size 2KiB|8MiB|512MiB --sector N "
                        "--randomness HEX64 --out DIR [--seed S] [--threads T]\n"
                        "       cuzk-bench gen-vanilla porep --sector-size 2KiB|8MiB|512MiB --out DIR "
                        "[--registered-proof N] [--sector N] [--miner-id N] [--seed S] [--threads T]\n";
    if (argc < 2 || strcmp(argv[1], "post")) {
        fputs(usage, stderr);
        return 2;
    }
    uint64_t size = 0, sector = 0, seed = 0;
    unsigned threads = 1;
    const char *rhex = NULL, *out = NULL;
    bool have_sector = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "gen-vanilla: %s needs a value\n%s", a, usage);
            return 2;
        }
        if (!strcmp(a, "--sector-size")) {
            if (!(size = gv_parse_size(v))) {
                fprintf(stderr, "gen-vanilla: sector size '%s' not supported here (2KiB, 8MiB, 512MiB)\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--sector")) {
            sector = strtoull(v, NULL, 0);
            have_sector = true;
        } else if (!strcmp(a, "--randomness")) {
            rhex = v;
        } else if (!strcmp(a, "--out")) {
            out = v;
        } else if (!strcmp(a, "--seed")) {
            seed = strtoull(v, NULL, 0);
        } else if (!strcmp(a, "--threads")) {
            threads = (unsigned)strtoul(v, NULL, 0);
        } else {
            fprintf(stderr, "gen-vanilla: unknown option %s\n%s", a, usage);
            return 2;
        }
        i++;
    }
    uint8_t rnd[32];
    if (!size || !have_sector || !rhex || !out || strlen(rhex) != 64) {
        fputs(usage, stderr);
        return 2;
    }
    for (int i = 0; i < 32; i++) {
        unsigned b;
        if (sscanf(rhex + 2 * i, "%2x", &b) != 1) {
            fprintf(stderr, "gen-vanilla: --randomness must be 64 hex digits\n");
            return 2;
        }
        rnd[i] = (uint8_t)b;
    }
    if (rnd[31] & 0xc0) fprintf(stderr, "gen-vanilla: randomness[31] &= 0x3f (as Curio does)\n");
    rnd[31] &= 0x3f;
    if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "gen-vanilla: cannot create %s: %s\n", out, strerror(errno));
        return 1;
    }
    const cuzk_fil_post_info *win = NULL, *wnd = NULL;
    int si = size == 2048 ? 0 : size == (8ull << 20) ? 1 : 2;
    cuzk_fil_tree_shape shape;
    if (cuzk_fil_post_lookup(&win, (uint64_t)si) ||      /* StackedDrgWinning*V1 */
        cuzk_fil_post_lookup(&wnd, (uint64_t)si + 10) || /* StackedDrgWindow*V1_2 */
        cuzk_fil_tree_shape_for_sector(&shape, size)) {
        fprintf(stderr, "gen-vanilla: no PoSt proof or tree shape for %llu-byte sectors\n", (unsigned long long)size);
        return 1;
    }
    cuzk_pool *pool = NULL;
    if (threads > 1 && cuzk_pool_create(&pool, threads)) {
        fprintf(stderr, "gen-vanilla: cannot start %u threads\n", threads);
        return 1;
    }
    gv_ctx ctx = {.seed = seed, .sector = sector};
    cuzk_fil_tree *t = NULL;
    char err[CUZK_FIL_ERR_LEN] = "";
    double last = -100.0, t0 = gv_now();
    int st = cuzk_fil_tree_build(&t, &shape, gv_leaves, &ctx, pool ? cuzk_pool_par(pool) : NULL,
                                 size > (8ull << 20) ? gv_progress : NULL, &last, err, sizeof err);
    double build_s = gv_now() - t0;
    if (st) {
        fprintf(stderr, "gen-vanilla: %s\n", err);
        cuzk_pool_destroy(pool);
        return 1;
    }
    uint8_t comm_c[32], comm_r_last[32], comm_r[32];
    gv_node(comm_c, "cuzk-gen-vanilla comm_c", seed, sector, 0);
    cuzk_fil_tree_root(comm_r_last, t);
    uint64_t ch_win[66], ch_wnd[10];
    st = cuzk_fil_comm_r(comm_r, comm_c, comm_r_last, err, sizeof err);
    if (st) fprintf(stderr, "gen-vanilla: %s\n", err);
    if (!st) st = gv_write_proof(out, "winning-post.vproof", win, t, comm_c, rnd, sector, ch_win);
    if (!st) st = gv_write_proof(out, "window-post.vproof", wnd, t, comm_c, rnd, sector, ch_wnd);
    cuzk_fil_tree_free(t);
    cuzk_pool_destroy(pool);
    if (st) {
        fprintf(stderr, "gen-vanilla: %s\n", cuzk_strerror(st));
        return 1;
    }
    char path[1024], hx[3][65], cid[80], rh[65];
    gv_hex(hx[0], comm_r, 32);
    gv_hex(hx[1], comm_c, 32);
    gv_hex(hx[2], comm_r_last, 32);
    gv_hex(rh, rnd, 32);
    if (cuzk_fil_cid_encode(cid, sizeof cid, comm_r, CUZK_FIL_COMM_R)) {
        fprintf(stderr, "gen-vanilla: cannot write comm_r as a CID\n");
        return 1;
    }
    snprintf(path, sizeof path, "%s/summary.json", out);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gen-vanilla: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(f, "{\n  \"sector_size\": %llu,\n  \"sector\": %llu,\n  \"seed\": %llu,\n",
            (unsigned long long)size, (unsigned long long)sector, (unsigned long long)seed);
    fprintf(f, "  \"randomness\": \"%s\",\n", rh);
    fprintf(f, "  \"comm_r\": \"%s\",\n  \"comm_c\": \"%s\",\n  \"comm_r_last\": \"%s\",\n", hx[0], hx[1],
            hx[2]);
    fprintf(f, "  \"sealed_cid\": \"%s\",\n", cid);
    fprintf(f, "  \"winning_registered_proof\": %llu,\n  \"window_registered_proof\": %llu,\n",
            (unsigned long long)win->id, (unsigned long long)wnd->id);
    gv_json_list(f, "winning_challenges", ch_win, 66);
    gv_json_list(f, "window_challenges", ch_wnd, 10);
    fprintf(f, "  \"tree_build_seconds\": %.3f\n}\n", build_s);
    if (fclose(f)) return 1;
    printf("%s: comm_r %s (tree_r_last built in %.2f s, %u thread%s)\n", path, hx[0], build_s, threads,
           threads == 1 ? "" : "s");
    return 0;
}
