/* libFuzzer harness: PCE files (.pce, src/r1cs/pce_file.c and pce_eval.c:
 * the pre-compiled R1CS the daemon maps and evaluates for every proof).
 *
 * Input: byte 0 = mode, then the file.  The file carries SHA-256 digests of
 * its header and body, so a mutated file is nearly always refused at the
 * checksum; with bit 0 of the mode set the harness first writes correct
 * digests (body: bytes 512.., at 416; header: bytes 0..447, at 448), so
 * that the structural checks behind them are what gets fuzzed.  The file is
 * rewritten in place in one private temp file (mkstemp under $TMPDIR or
 * /tmp, removed at exit) and opened by its path: cuzk_pce_open maps a path
 * and refuses symlinks (O_NOFOLLOW), so a memfd's /proc/self/fd link will
 * not do.
 *
 * Oracles, besides "no crash, leak, UB":
 *  - open returns OK, or FORMAT / CHANGED (another format version) with a
 *    message; check (decode only) returns OK or FORMAT;
 *  - for an accepted file of at most 2^20 variables, the mat-vec on a
 *    pseudo-random witness (cuzk_pce_matvec, the decoding path of
 *    evaluate) succeeds exactly when check does, and then equals a naive
 *    decoder written here from the format (pce_internal.h / docs/pce.md):
 *    records read in sequence, every column and code bounds-checked, each
 *    coefficient 0, +-2^k or a dictionary value multiplied in; when that
 *    decoder accepts the records, their nonzeros match the header and they
 *    fit one task's chunk (<= 16 K constraints), check must accept too;
 *  - a file whose identity is "chain-N" (N <= 4096) is evaluated against
 *    the chain circuit synthesized in WITNESS mode (cuzk_pce_evaluate, what
 *    the prover calls): CUZK_ERR_ARG exactly when the counts differ,
 *    otherwise the status of check, and a PROVE-mode cs whose evaluations
 *    equal the naive decoder's on the circuit's own assignment.
 *
 * FUZZ_PCE_SEED_OUT=FILE: write one seed (mode 1 + a file recorded from a
 * small circuit with every coefficient class: zero, +-1, +-2^k up to
 * k = 254 with one- and two-byte codes, dictionary values) and exit;
 * tests/fuzz/seeds.sh runs it.  The chain seeds come from cuzk-bench. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "cuzk/pce.h"
#include "cuzk/r1cs.h"
#include "r1cs/pce_internal.h" /* cuzk_pce_matvec: evaluate's decoding on any witness */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define HDR 512
#define MAX_VARS ((size_t)1 << 20)

static cuzk_fr pow2[255]; /* 2^k */

/* ---- the naive decoder ------------------------------------------------------ */

typedef struct {
    const uint8_t *p, *end;
} rd;

static int rd_var(rd *r, uint64_t *v) /* LEB128, at most 6 bytes as the writer's reader */
{
    uint64_t x = 0;
    for (int i = 0; i < 6; i++) {
        if (r->p >= r->end) return -1;
        uint8_t b = *r->p++;
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* Rows a, b, c of A z, B z, C z for z = (inp, aux) into ev[3][constraints],
 * the entries per matrix into nnz; 0 when the records do not decode. */
static int naive_eval(const uint8_t *f, size_t n, const cuzk_pce_info *in, const cuzk_fr *inp,
                      const cuzk_fr *aux, cuzk_fr *ev[3], uint64_t nnz[3])
{
    uint64_t n_ckpt = (in->constraints + 1023) / 1024 + 1;
    uint64_t dict_off = HDR + in->record_bytes + 8 * n_ckpt;
    if (dict_off + 32 * (uint64_t)in->dict > n) abort(); /* open checked the layout */
    rd r = {f + HDR, f + HDR + in->record_bytes};
    nnz[0] = nnz[1] = nnz[2] = 0;
    for (size_t row = 0; row < in->constraints; row++) {
        uint64_t len[3];
        for (int s = 0; s < 3; s++)
            if (rd_var(&r, &len[s])) return 0;
        for (int s = 0; s < 3; s++) {
            cuzk_fr sum = CUZK_FR_ZERO;
            for (uint64_t e = 0; e < len[s]; e++) {
                if (r.end - r.p < 4) return 0;
                uint32_t col = (uint32_t)r.p[0] | (uint32_t)r.p[1] << 8 | (uint32_t)r.p[2] << 16 |
                               (uint32_t)r.p[3] << 24;
                r.p += 4;
                uint64_t code;
                if (rd_var(&r, &code)) return 0;
                const cuzk_fr *v;
                if (col & 0x80000000u) {
                    if ((col & 0x7fffffffu) >= in->aux) return 0;
                    v = &aux[col & 0x7fffffffu];
                } else {
                    if (col >= in->inputs) return 0;
                    v = &inp[col];
                }
                cuzk_fr k, t;
                if (code == 0) {
                    k = CUZK_FR_ZERO;
                } else if (code <= 510) {
                    k = pow2[(code - 1) / 2];
                    if (code % 2 == 0) cuzk_fr_neg(&k, &k);
                } else if (code - 511 < in->dict) {
                    if (cuzk_fr_from_bytes_le(&k, f + dict_off + 32 * (code - 511)))
                        abort(); /* open checked */
                } else {
                    return 0;
                }
                cuzk_fr_mul(&t, &k, v);
                cuzk_fr_add(&sum, &sum, &t);
            }
            nnz[s] += len[s];
            if (ev) ev[s][row] = sum;
        }
    }
    return r.p == r.end;
}

/* ---- helpers ---------------------------------------------------------------- */

static void resign(uint8_t *f, size_t n)
{
    SHA256(f + HDR, n - HDR, f + 416);
    SHA256(f, 448, f + 448);
}

static void witness(cuzk_fr *v, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = (seed + i) * 0x9e3779b97f4a7c15ull;
        uint64_t l[4] = {x, x ^ (x >> 29), x * 3, (x >> 7) & 0x0fffffffffffffffull};
        if (cuzk_fr_from_limbs(&v[i], l)) abort();
    }
}

static void bad_status(const char *what, int st, const char *err)
{
    fprintf(stderr, "%s: status %d (%s)\n", what, st, err);
    abort();
}

static int same_rows(cuzk_fr *const a[3], cuzk_fr *const b[3], size_t n)
{
    for (int s = 0; s < 3; s++)
        for (size_t i = 0; i < n; i++)
            if (!cuzk_fr_eq(&a[s][i], &b[s][i])) return 0;
    return 1;
}

/* The mat-vec on a pseudo-random witness against the naive decoder. */
static void check_matvec(const cuzk_pce *p, const cuzk_pce_info *in, const uint8_t *f, size_t n, int st_check)
{
    size_t nc = in->constraints;
    cuzk_fr *inp = malloc(in->inputs * sizeof *inp), *aux = malloc((in->aux + 1) * sizeof *aux);
    cuzk_fr *ev[3], *ref[3];
    for (int s = 0; s < 3; s++) {
        ev[s] = malloc((nc + 1) * sizeof(cuzk_fr));
        ref[s] = malloc((nc + 1) * sizeof(cuzk_fr));
        if (!ev[s] || !ref[s]) abort();
    }
    if (!inp || !aux) abort();
    witness(inp, in->inputs, 1);
    inp[0] = CUZK_FR_ONE;
    witness(aux, in->aux, 1u << 31);
    char err[512] = "";
    int st = cuzk_pce_matvec(p, inp, aux, ev, NULL, err, sizeof err);
    if (st != st_check) bad_status("matvec (check gave another status)", st, err);
    uint64_t nnz[3];
    int ok = naive_eval(f, n, in, inp, aux, ref, nnz);
    int nnz_ok = ok && nnz[0] == in->nnz[0] && nnz[1] == in->nnz[1] && nnz[2] == in->nnz[2];
    if (st == CUZK_OK && (!nnz_ok || !same_rows(ev, ref, nc))) {
        fprintf(stderr, "matvec accepted records the naive decoder %s\n",
                !ok       ? "refuses"
                : !nnz_ok ? "counts differently"
                          : "sums differently");
        abort();
    }
    if (st != CUZK_OK && nnz_ok && nc <= 16 * 1024) {
        fprintf(stderr, "matvec refused records the naive decoder accepts: %s\n", err);
        abort();
    }
    free(inp);
    free(aux);
    for (int s = 0; s < 3; s++) {
        free(ev[s]);
        free(ref[s]);
    }
}

/* cuzk_pce_evaluate with the chain circuit of the file's identity. */
static void check_chain(const cuzk_pce *p, const cuzk_pce_info *in, const uint8_t *f, size_t n, int st_check)
{
    char *end;
    if (strncmp(in->identity.id, "chain-", 6) || in->identity.id[6] < '1' || in->identity.id[6] > '9') return;
    unsigned long cn = strtoul(in->identity.id + 6, &end, 10);
    if (*end || cn > 4096) return;
    cuzk_chain_ctx ctx = {.n = cn};
    cuzk_fr_from_u64(&ctx.x0, 5);
    cuzk_cs *cs = NULL;
    if (cuzk_cs_new(&cs, CUZK_CS_WITNESS, 0) || cuzk_cs_synthesize(cs, cuzk_chain_circuit, &ctx)) abort();
    cuzk_cs_counts cc;
    cuzk_cs_get_counts(cs, &cc);
    int counts_differ = cc.constraints != in->constraints || cc.inputs != in->inputs || cc.aux != in->aux;
    char err[512] = "";
    int st = cuzk_pce_evaluate(p, cs, NULL, err, sizeof err);
    if (st != (counts_differ ? CUZK_ERR_ARG : st_check)) bad_status("evaluate", st, err);
    if (st == CUZK_OK) {
        cuzk_fr *ref[3], *got[3];
        for (int s = 0; s < 3; s++) {
            if (!(ref[s] = malloc((in->constraints + 1) * sizeof(cuzk_fr)))) abort();
            got[s] = (cuzk_fr *)cuzk_cs_eval(cs, s);
            if (!got[s]) abort(); /* not a PROVE-mode cs */
        }
        uint64_t nnz[3];
        cuzk_cs_get_counts(cs, &cc);
        if (!naive_eval(f, n, in, cuzk_cs_input_assignment(cs), cuzk_cs_aux_assignment(cs), ref, nnz) ||
            !same_rows(got, ref, in->constraints) || cc.nnz_a != nnz[0] || cc.nnz_b != nnz[1] ||
            cc.nnz_c != nnz[2]) {
            fprintf(stderr, "evaluate disagrees with the naive decoder\n");
            abort();
        }
        for (int s = 0; s < 3; s++)
            free(ref[s]);
    } else if (!err[0]) {
        bad_status("evaluate without a message", st, err);
    }
    cuzk_cs_free(cs);
}

static char g_path[4096];
static int g_fd = -1;

static void remove_temp(void)
{
    if (g_fd >= 0) unlink(g_path);
}

/* The one temp file every input is written to (0600, ours: what
 * cuzk_pce_open accepts). */
static int temp_file(void)
{
    if (g_fd < 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(g_path, sizeof g_path, "%s/cuzk-fuzz-pce-XXXXXX", dir && *dir ? dir : "/tmp");
        g_fd = mkstemp(g_path);
        if (g_fd < 0) abort();
        atexit(remove_temp);
    }
    return g_fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t n = size - 1;
    uint8_t *f = malloc(n ? n : 1);
    if (!f) abort();
    memcpy(f, data + 1, n);
    if ((data[0] & 1) && n >= HDR) resign(f, n);
    int fd = temp_file();
    if (ftruncate(fd, 0) || (n && pwrite(fd, f, n, 0) != (ssize_t)n)) abort();
    char err[512] = "";
    cuzk_pce *p = NULL;
    int st = cuzk_pce_open(&p, g_path, NULL, err, sizeof err);
    if (st != CUZK_OK) {
        if ((st != CUZK_ERR_FORMAT && st != CUZK_ERR_CHANGED) || !err[0] || p) bad_status("open", st, err);
    } else {
        cuzk_pce_info in;
        cuzk_pce_get_info(p, &in);
        int st_check = cuzk_pce_check(p, NULL, err, sizeof err);
        if (st_check != CUZK_OK && (st_check != CUZK_ERR_FORMAT || !err[0]))
            bad_status("check", st_check, err);
        if (in.inputs + in.aux <= MAX_VARS) {
            check_matvec(p, &in, f, n, st_check);
            check_chain(p, &in, f, n, st_check);
        }
        cuzk_pce_close(p);
    }
    free(f);
    return 0;
}

/* ---- the mixed-coefficient seed ------------------------------------------------ */

static int mixed_circuit(cuzk_cs *cs, void *ctx)
{
    (void)ctx;
    cuzk_var v[8];
    int rc = 0;
    for (int i = 0; i < 8 && !rc; i++)
        rc = i < 2 ? cuzk_cs_alloc_input(cs, &v[i], NULL) : cuzk_cs_alloc(cs, &v[i], NULL);
    uint64_t s = 7;
    for (int row = 0; row < 40 && !rc; row++) {
        cuzk_term t[3][4];
        for (int side = 0; side < 3; side++)
            for (int e = 0; e < 4; e++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                t[side][e].var = e == 3 ? CUZK_ONE : v[(s >> 33) % 8];
                unsigned kind = (unsigned)(s >> 60) % 5, k = (unsigned)(s >> 40) % 255;
                if (kind == 0) t[side][e].coeff = CUZK_FR_ZERO;
                if (kind == 1 || kind == 2) { /* +-2^k: codes 1..510, one or two varint bytes */
                    t[side][e].coeff = pow2[k];
                    if (kind == 2) cuzk_fr_neg(&t[side][e].coeff, &t[side][e].coeff);
                }
                if (kind >= 3) cuzk_fr_from_u64(&t[side][e].coeff, 3 + (s >> 50) % 6); /* dictionary */
            }
        rc = cuzk_cs_enforce(cs, t[0], 3 + (row & 1), t[1], 2 + (row % 3), t[2], 4);
    }
    return rc;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    pow2[0] = CUZK_FR_ONE;
    for (int k = 1; k < 255; k++)
        cuzk_fr_dbl(&pow2[k], &pow2[k - 1]);
    const char *seed = getenv("FUZZ_PCE_SEED_OUT");
    if (!seed) return 0;
    char tmp[4096], err[512];
    snprintf(tmp, sizeof tmp, "%s.pce", seed);
    cuzk_pce_identity id = {.kind = CUZK_PCE_KIND_OTHER, .id = "mixed"};
    if (cuzk_pce_extract(tmp, &id, mixed_circuit, NULL, NULL, NULL, NULL, err, sizeof err)) {
        fprintf(stderr, "fuzz_pce: %s\n", err);
        exit(1);
    }
    FILE *in = fopen(tmp, "rb"), *out = fopen(seed, "wb");
    if (!in || !out) exit(1);
    fputc(1, out);
    int c;
    while ((c = fgetc(in)) != EOF)
        fputc(c, out);
    fclose(in);
    fclose(out);
    unlink(tmp);
    exit(0);
}
