/* cuzk-bench batch (N proofs at a fixed concurrency: throughput and
 * latency percentiles) and stress (mixed kinds at given rates for a
 * duration).  Every answer is checked: status COMPLETED and a proof of
 * whole 192-byte Groth16 proofs (the daemon verified each one before
 * answering; we check that it said so and sent what it proved).  With
 * --vk each proof is also verified here (client_verify.c) and one that
 * does not verify counts as invalid, a failure. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli_util.h"
#include "client.h"
#include "cuzk/filecoin.h"
#include "cuzk/seal_snap.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *sorted, size_t n, double p)
{
    if (!n) return 0;
    size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

/* One checked Prove; latency in *ms.  0 = good proof, -1 = failed, 1 =
 * answered COMPLETED but the proof does not verify under v (if given). */
static int prove_checked(cuzk_rpc_client *c, const Cuzk__V1__SubmitProofRequest *tmpl,
                         const client_verifier *v, const char *id, double *ms, char *why, size_t whylen)
{
    Cuzk__V1__SubmitProofRequest m = *tmpl;
    m.request_id = (char *)id;
    Cuzk__V1__ProveResponse *resp = NULL;
    char err[512];
    double t0 = cli_now();
    int code = client_prove(c, &m, 0, &resp, err, sizeof err);
    *ms = (cli_now() - t0) * 1e3;
    if (code) {
        snprintf(why, whylen, "%s: %s", cuzk_rpc_code_name(code), err);
        return -1;
    }
    const Cuzk__V1__AwaitProofResponse *r = resp->result;
    int rc = 0;
    if (r->status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
        snprintf(why, whylen, "%s: %s", client_status_name(r->status), r->error_message);
        rc = -1;
    } else if (!r->proof.len || r->proof.len % 192) {
        snprintf(why, whylen, "proof of %zu bytes is not whole 192-byte proofs", r->proof.len);
        rc = -1;
    } else if (strcmp(r->job_id, id)) {
        snprintf(why, whylen, "answer for job '%s', asked '%s'", r->job_id, id);
        rc = -1;
    } else if (v && !client_verifier_check(v, r->proof.data, r->proof.len, why, whylen)) {
        rc = 1;
    }
    protobuf_c_message_free_unpacked(&resp->base, NULL);
    return rc;
}

/* What a run of one kind came to, for the text and --json reports. */
typedef struct {
    const char *kind;
    size_t sent, failed, invalid, verified; /* failed includes invalid */
    bool verify;                            /* --vk given */
    double *lat;                            /* latencies (ms), n_lat of them; sorted here */
    size_t n_lat;
} run_tally;

static void tally_text(const char *what, run_tally *t, double wall)
{
    qsort(t->lat, t->n_lat, sizeof *t->lat, cmp_double);
    size_t n = t->n_lat;
    printf("%s: %zu proofs in %.2f s = %.2f proofs/s; latency ms p50 %.1f p95 %.1f p99 %.1f max %.1f\n", what,
           n, wall, wall > 0 ? (double)n / wall : 0, pct(t->lat, n, 50), pct(t->lat, n, 95),
           pct(t->lat, n, 99), n ? t->lat[n - 1] : 0);
    printf("  failed: %zu\n", t->failed);
    if (t->verify) printf("  verified: %zu, invalid: %zu (checked against --vk)\n", t->verified, t->invalid);
}

/* The kind's fields of one JSON object (no braces): counts and latencies. */
static void tally_json(const run_tally *t)
{
    size_t n = t->n_lat;
    printf("\"kind\":\"%s\",\"sent\":%zu,\"completed\":%zu,\"failed\":%zu,", t->kind, t->sent,
           t->sent - t->failed, t->failed);
    if (t->verify)
        printf("\"verified\":%zu,\"invalid\":%zu,", t->verified, t->invalid);
    else
        printf("\"verified\":null,\"invalid\":null,");
    printf("\"latency_ms\":{\"p50\":%.3f,\"p95\":%.3f,\"p99\":%.3f,\"max\":%.3f}", pct(t->lat, n, 50),
           pct(t->lat, n, 95), pct(t->lat, n, 99), n ? t->lat[n - 1] : 0);
}

/* Counts one answer of prove_checked (rc) in t; the caller holds its lock. */
static void tally_add(run_tally *t, int rc, const char *cmd, const char *id, const char *why)
{
    if (rc && t->failed++ < 5) fprintf(stderr, "%s: %s: %s\n", cmd, id, why);
    t->invalid += rc == 1;
    t->verified += t->verify && rc == 0;
}

typedef struct {
    cuzk_rpc_client *c;
    const Cuzk__V1__SubmitProofRequest *tmpl;
    const client_verifier *v;
    char prefix[96];
    size_t count;
    atomic_size_t next;
    pthread_mutex_t mu;
    run_tally t;
} batch_ctx;

static void *batch_worker(void *arg)
{
    batch_ctx *b = arg;
    char id[128], why[600];
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->count) return NULL;
        snprintf(id, sizeof id, "%s-%zu", b->prefix, i);
        int rc = prove_checked(b->c, b->tmpl, b->v, id, &b->t.lat[i], why, sizeof why);
        pthread_mutex_lock(&b->mu);
        tally_add(&b->t, rc, "batch", id, why);
        pthread_mutex_unlock(&b->mu);
    }
}

typedef struct {
    const char *addr, *vk;
    size_t count, conc;
    bool json;
} batch_opts;

/* batch's own options (the request options are client_req_arg's):
 * 0 consumed, -1 unknown or without its value, -2 bad value (printed). */
static int batch_arg(batch_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    uint64_t u;
    if (!strcmp(a, "--json")) {
        o->json = true;
        return 0;
    }
    bool count = !strcmp(a, "--count") || !strcmp(a, "-c");
    bool conc = !strcmp(a, "--concurrency") || !strcmp(a, "-j");
    if (!v || !(count || conc || !strcmp(a, "--addr") || !strcmp(a, "--vk"))) return -1;
    ++*i;
    if (!strcmp(a, "--addr"))
        o->addr = v;
    else if (!strcmp(a, "--vk"))
        o->vk = v;
    else if (cli_u64(&u, v, a))
        return -2;
    else
        *(count ? &o->count : &o->conc) = (size_t)u;
    return 0;
}

int cmd_batch(int argc, char **argv)
{
    client_req r;
    client_req_init(&r);
    batch_opts o = {.count = 10, .conc = 4};
    batch_ctx b;
    memset(&b, 0, sizeof b);
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        int k = client_req_arg(&r, argc, argv, &i);
        if (!k) k = client_tls_arg(argc, argv, &i);
        if (k < 0) goto out;
        if (k) continue;
        k = batch_arg(&o, argc, argv, &i);
        if (k == -1) fprintf(stderr, "batch: unknown or incomplete option '%s'\n", argv[i]);
        if (k) goto out;
    }
    if (client_req_check(&r)) goto out;
    if (!o.count || !o.conc || o.conc > 1024) {
        fprintf(stderr, "batch: --count >= 1 and --concurrency 1..1024\n");
        goto out;
    }
    client_verifier *v = NULL;
    if (o.vk && client_verifier_new(&v, o.vk, &r.m, "batch")) goto out;
    b.c = client_open(o.addr);
    if (!b.c) goto out;
    b.tmpl = &r.m;
    b.v = v;
    b.count = o.count;
    b.t = (run_tally){.kind = r.kind_name, .sent = o.count, .verify = v != NULL, .n_lat = o.count};
    b.t.lat = calloc(o.count, sizeof *b.t.lat);
    pthread_mutex_init(&b.mu, NULL);
    snprintf(b.prefix, sizeof b.prefix, "%.32s%sbatch-%ld-%ld", r.request_id, *r.request_id ? "-" : "",
             (long)getpid(), (long)(cli_now() * 1e3));
    pthread_t *t = calloc(o.conc, sizeof *t);
    double t0 = cli_now();
    for (size_t i = 0; i < o.conc; i++)
        pthread_create(&t[i], NULL, batch_worker, &b);
    for (size_t i = 0; i < o.conc; i++)
        pthread_join(t[i], NULL);
    double wall = cli_now() - t0;
    if (o.json) {
        qsort(b.t.lat, b.t.n_lat, sizeof *b.t.lat, cmp_double);
        printf(
            "{\"command\":\"batch\",\"count\":%zu,\"concurrency\":%zu,\"wall_s\":%.3f,\"proofs_per_s\":%.3f,",
            o.count, o.conc, wall, wall > 0 ? (double)o.count / wall : 0);
        tally_json(&b.t);
        printf("}\n");
    } else {
        char what[96];
        snprintf(what, sizeof what, "batch %s x%zu, concurrency %zu", r.kind_name, o.count, o.conc);
        tally_text(what, &b.t, wall);
    }
    rc = b.t.failed ? 1 : 0;
    free(t);
    free(b.t.lat);
    pthread_mutex_destroy(&b.mu);
    cuzk_rpc_client_close(b.c);
    client_verifier_free(v);
out:
    client_req_free(&r);
    return rc;
}

/* ---- stress ------------------------------------------------------------ */

typedef struct stress_kind {
    client_req req;
    double rate; /* proofs per second */
    char name[32];
    pthread_mutex_t mu;
    run_tally t; /* t.lat holds the good proofs' latencies */
    size_t cap;
    client_verifier *v;
} stress_kind;

typedef struct {
    cuzk_rpc_client *c;
    stress_kind *k;
    char id[128];
} stress_one;

static atomic_int stress_inflight;

static void *stress_worker(void *arg)
{
    stress_one *o = arg;
    stress_kind *k = o->k;
    char why[600];
    double ms;
    int rc = prove_checked(o->c, &k->req.m, k->v, o->id, &ms, why, sizeof why);
    pthread_mutex_lock(&k->mu);
    tally_add(&k->t, rc, "stress", o->id, why);
    if (!rc && k->t.n_lat == k->cap) {
        double *l = realloc(k->t.lat, (k->cap ? 2 * k->cap : 256) * sizeof *l);
        if (l) k->t.lat = l, k->cap = k->cap ? 2 * k->cap : 256;
    }
    if (!rc && k->t.n_lat < k->cap) k->t.lat[k->t.n_lat++] = ms;
    pthread_mutex_unlock(&k->mu);
    atomic_fetch_sub(&stress_inflight, 1);
    free(o);
    return NULL;
}

/* --vk [KIND=]FILE for the jobs of that kind (every job without KIND=):
 * each job gets a verifier for its own request. */
static int stress_vks(stress_kind *kinds, size_t nk, const char *const *vks, size_t nvk)
{
    for (size_t j = 0; j < nvk; j++) {
        const char *eq = strchr(vks[j], '='), *file = eq ? eq + 1 : vks[j];
        char kind[32] = "";
        if (eq) snprintf(kind, sizeof kind, "%.*s", (int)(eq - vks[j]), vks[j]);
        int want = eq ? client_kind_from_name(kind) : -1;
        if (eq && want < 0) {
            fprintf(stderr, "stress: --vk %s: '%s' is not a proof kind (as --kind)\n", vks[j], kind);
            return -1;
        }
        bool used = false;
        for (size_t k = 0; k < nk; k++) {
            if (eq && (int)kinds[k].req.m.proof_kind != want) continue;
            char what[64];
            snprintf(what, sizeof what, "stress: job %zu (%s)", k + 1, kinds[k].name);
            client_verifier_free(kinds[k].v);
            kinds[k].v = NULL;
            if (client_verifier_new(&kinds[k].v, file, &kinds[k].req.m, what)) return -1;
            kinds[k].t.verify = used = true;
        }
        if (!used) {
            fprintf(stderr, "stress: --vk %s: no --job of that kind\n", vks[j]);
            return -1;
        }
    }
    return 0;
}

/* Is id a registered proof of this kind (and, if known, sector size)? */
static bool rp_fits(int kind, uint64_t id, uint64_t size)
{
    const cuzk_fil_post_info *p;
    const cuzk_fil_seal_info *sl;
    const cuzk_snap_info *sn;
    switch (kind) {
    case 1:
        return !cuzk_fil_seal_lookup(&sl, id) && (!size || sl->sector_size == size);
    case 2:
        return !cuzk_snap_lookup(&sn, id) && (!size || sn->sector_size == size);
    case 3:
        return !cuzk_fil_post_lookup(&p, id) && !p->winning && (!size || p->sector_size == size);
    case 4:
        return !cuzk_fil_post_lookup(&p, id) && p->winning && (!size || p->sector_size == size);
    default:
        return true;
    }
}

/* The job's registered proof: its own (":N" after the input), else the
 * shared --registered-proof when it is one of this kind, else derived from
 * the kind and --sector-size (WindowPoSt: the V1_2 proof; PoRep: 0, the
 * daemon reads the type from the C1).  So mixed kinds share one command. */
static int job_registered_proof(stress_kind *k, const char *own, const char *spec)
{
    Cuzk__V1__SubmitProofRequest *m = &k->req.m;
    int kind = (int)m->proof_kind;
    if (own) {
        char *e;
        unsigned long long id = strtoull(own, &e, 10);
        if (*e || !*own || !rp_fits(kind, id, m->sector_size)) {
            fprintf(stderr, "stress: --job '%s': %s is not a registered proof of that kind and size\n", spec,
                    own);
            return -1;
        }
        m->registered_proof = id;
        return 0;
    }
    if (m->registered_proof && rp_fits(kind, m->registered_proof, m->sector_size)) return 0;
    m->registered_proof = 0;
    if (!m->sector_size || kind == 1) return 0;
    for (uint64_t id = kind == 3 ? 10 : 0; id < (kind == 3 ? 15u : 5u); id++)
        if (rp_fits(kind, id, m->sector_size)) {
            m->registered_proof = id;
            return 0;
        }
    return 0;
}

/* --job KIND:RATE:INPUT[:REGISTERED_PROOF], INPUT = @file (vanilla proof
 * file, repeatable with ',') or the test provider's text. */
static int parse_job(stress_kind *k, const char *spec, int argc, char **argv)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    char *kind = buf, *rate = strchr(buf, ':'), *input = NULL, *own_rp = NULL;
    if (rate) {
        *rate++ = 0;
        input = strchr(rate, ':');
        if (input) *input++ = 0;
    }
    if (input) { /* a trailing ":digits" is the job's registered proof */
        char *last = strrchr(input, ':');
        if (last && last[1] && strspn(last + 1, "0123456789") == strlen(last + 1)) {
            *last = 0;
            own_rp = last + 1;
        }
    }
    if (!rate || !input || (k->rate = atof(rate)) <= 0) {
        fprintf(stderr, "stress: --job '%s': expected KIND:RATE:INPUT (RATE proofs/s > 0)\n", spec);
        return -1;
    }
    client_req_init(&k->req);
    char *av[3] = {"x", "--kind", kind};
    int i = 1;
    if (client_req_arg(&k->req, 3, av, &i) != 1) return -1;
    for (char *f = input; input[0] == '@' && f;) {
        char *next = strchr(f, ',');
        if (next) *next++ = 0;
        char *fa[3] = {"x", "--vanilla", f + (f[0] == '@')};
        i = 1;
        if (client_req_arg(&k->req, 3, fa, &i) != 1) return -1;
        f = next;
    }
    if (input[0] != '@') {
        char *ta[3] = {"x", "--vanilla-text", input};
        i = 1;
        client_req_arg(&k->req, 3, ta, &i);
    }
    /* the shared request options (sector size, randomness, ...) apply to every kind */
    for (int j = 1; j < argc; j++)
        if (client_req_arg(&k->req, argc, argv, &j) < 0) return -1;
    if (job_registered_proof(k, own_rp, spec)) return -1;
    snprintf(k->name, sizeof k->name, "%.31s", kind);
    k->t.kind = k->name;
    pthread_mutex_init(&k->mu, NULL);
    return 0;
}

/* Reports every job; returns the number of failed, invalid and lost proofs. */
static size_t stress_report(stress_kind *kinds, size_t nk, double wall, bool json)
{
    size_t bad = 0;
    if (json) printf("{\"command\":\"stress\",\"wall_s\":%.3f,\"jobs\":[", wall);
    for (size_t k = 0; k < nk; k++) {
        run_tally *t = &kinds[k].t;
        size_t lost = t->sent - t->n_lat - t->failed;
        bad += t->failed + lost;
        if (json) {
            qsort(t->lat, t->n_lat, sizeof *t->lat, cmp_double);
            printf("%s{\"rate\":%.3f,\"lost\":%zu,", k ? "," : "", kinds[k].rate, lost);
            tally_json(t);
            printf("}");
            continue;
        }
        char what[96];
        snprintf(what, sizeof what, "stress %s (%.2f/s offered, %zu sent)", kinds[k].name, kinds[k].rate,
                 t->sent);
        tally_text(what, t, wall);
        if (lost) printf("  LOST: %zu answers missing\n", lost);
    }
    if (json) printf("]}\n");
    return bad;
}

int cmd_stress(int argc, char **argv)
{
    const char *addr = NULL, *vks[8];
    double duration = 10;
    stress_kind kinds[8];
    size_t nk = 0, nvk = 0;
    bool json = false;
    memset(kinds, 0, sizeof kinds);
    /* First pass: our options; the rest are request options shared by all jobs. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    rest[nrest++] = argv[0];
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        int t = client_tls_arg(argc, argv, &i);
        if (t < 0) goto out;
        if (t) continue;
        if (!strcmp(argv[i], "--addr") && i + 1 < argc)
            addr = argv[++i];
        else if (!strcmp(argv[i], "--duration") && i + 1 < argc)
            duration = atof(argv[++i]);
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else if ((!strcmp(argv[i], "--job") || !strcmp(argv[i], "--vk")) && i + 1 < argc) {
            if ((argv[i][2] == 'j' ? nk : nvk) == 8) {
                fprintf(stderr, "stress: at most 8 %s\n", argv[i]);
                goto out;
            }
            if (argv[i][2] == 'j')
                nk++;
            else
                vks[nvk++] = argv[i + 1];
            i++;
        } else
            rest[nrest++] = argv[i];
    }
    if (!nk || duration <= 0) {
        fprintf(stderr, "stress: give --duration S and one or more --job KIND:RATE:INPUT\n");
        goto out;
    }
    nk = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--job") && i + 1 < argc && parse_job(&kinds[nk++], argv[++i], nrest, rest))
            goto out;
    if (stress_vks(kinds, nk, vks, nvk)) goto out;
    cuzk_rpc_client *c = client_open(addr);
    if (!c) goto out;
    double t0 = cli_now(), next[8];
    for (size_t k = 0; k < nk; k++)
        next[k] = t0;
    long seq = 0, pid = (long)getpid();
    while (cli_now() - t0 < duration) {
        double now = cli_now(), soonest = t0 + duration;
        for (size_t k = 0; k < nk; k++) {
            if (now >= next[k]) {
                stress_one *o = calloc(1, sizeof *o);
                o->c = c;
                o->k = &kinds[k];
                snprintf(o->id, sizeof o->id, "stress-%ld-%ld-%s-%ld", pid, (long)(t0 * 1e3), kinds[k].name,
                         seq++);
                pthread_t t;
                atomic_fetch_add(&stress_inflight, 1);
                kinds[k].t.sent++;
                if (pthread_create(&t, NULL, stress_worker, o)) {
                    atomic_fetch_sub(&stress_inflight, 1);
                    kinds[k].t.failed++;
                    free(o);
                } else {
                    pthread_detach(t);
                }
                next[k] += 1.0 / kinds[k].rate;
            }
            if (next[k] < soonest) soonest = next[k];
        }
        double wait = soonest - cli_now();
        if (wait > 0) usleep((useconds_t)(wait * 1e6));
    }
    while (atomic_load(&stress_inflight))
        usleep(10000);
    rc = stress_report(kinds, nk, cli_now() - t0, json) ? 1 : 0;
    cuzk_rpc_client_close(c);
out:
    for (size_t k = 0; k < 8; k++) {
        client_req_free(&kinds[k].req);
        client_verifier_free(kinds[k].v);
        free(kinds[k].t.lat);
    }
    free(rest);
    return rc;
}
