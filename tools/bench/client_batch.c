/* cuzk-bench batch (N proofs at a fixed concurrency: throughput and
 * latency percentiles) and stress (mixed kinds at given rates for a
 * duration).  Every answer is checked: status COMPLETED and a proof of
 * whole 192-byte Groth16 proofs (the daemon verified each one before
 * answering; we check that it said so and sent what it proved). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
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

/* One checked Prove; latency in *ms.  0 = good proof. */
static int prove_checked(cuzk_rpc_client *c, const Cuzk__V1__SubmitProofRequest *tmpl, const char *id,
                         double *ms, char *why, size_t whylen)
{
    Cuzk__V1__SubmitProofRequest m = *tmpl;
    m.request_id = (char *)id;
    Cuzk__V1__ProveResponse *resp = NULL;
    char err[512];
    double t0 = client_now();
    int code = client_prove(c, &m, 0, &resp, err, sizeof err);
    *ms = (client_now() - t0) * 1e3;
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
    }
    protobuf_c_message_free_unpacked(&resp->base, NULL);
    return rc;
}

typedef struct {
    cuzk_rpc_client *c;
    const Cuzk__V1__SubmitProofRequest *tmpl;
    char prefix[96];
    size_t count;
    atomic_size_t next;
    atomic_size_t failed;
    double *lat;
} batch_ctx;

static void *batch_worker(void *arg)
{
    batch_ctx *b = arg;
    char id[128], why[600];
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->count) return NULL;
        snprintf(id, sizeof id, "%s-%zu", b->prefix, i);
        if (prove_checked(b->c, b->tmpl, id, &b->lat[i], why, sizeof why)) {
            if (atomic_fetch_add(&b->failed, 1) < 5) fprintf(stderr, "batch: %s: %s\n", id, why);
        }
    }
}

static void print_latency(const char *what, double *lat, size_t n, double wall)
{
    qsort(lat, n, sizeof *lat, cmp_double);
    printf("%s: %zu proofs in %.2f s = %.2f proofs/s; latency ms p50 %.1f p95 %.1f p99 %.1f max %.1f\n", what,
           n, wall, wall > 0 ? (double)n / wall : 0, pct(lat, n, 50), pct(lat, n, 95), pct(lat, n, 99),
           n ? lat[n - 1] : 0);
}

int cmd_batch(int argc, char **argv)
{
    client_req r;
    client_req_init(&r);
    const char *addr = NULL;
    size_t count = 10, conc = 4;
    for (int i = 1; i < argc; i++) {
        int k = client_req_arg(&r, argc, argv, &i);
        if (k < 0) goto bad;
        if (k) continue;
        if (!strcmp(argv[i], "--addr") && i + 1 < argc)
            addr = argv[++i];
        else if ((!strcmp(argv[i], "--count") || !strcmp(argv[i], "-c")) && i + 1 < argc)
            count = strtoull(argv[++i], NULL, 10);
        else if ((!strcmp(argv[i], "--concurrency") || !strcmp(argv[i], "-j")) && i + 1 < argc)
            conc = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "batch: unknown option '%s'\n", argv[i]);
            goto bad;
        }
    }
    if (client_req_check(&r)) goto bad;
    if (!count || !conc || conc > 1024) {
        fprintf(stderr, "batch: --count >= 1 and --concurrency 1..1024\n");
        goto bad;
    }
    batch_ctx b;
    memset(&b, 0, sizeof b);
    b.c = client_open(addr);
    if (!b.c) goto bad;
    b.tmpl = &r.m;
    b.count = count;
    b.lat = calloc(count, sizeof *b.lat);
    snprintf(b.prefix, sizeof b.prefix, "%.32s%sbatch-%ld-%ld", r.request_id, *r.request_id ? "-" : "",
             (long)getpid(), (long)(client_now() * 1e3));
    pthread_t *t = calloc(conc, sizeof *t);
    double t0 = client_now();
    for (size_t i = 0; i < conc; i++)
        pthread_create(&t[i], NULL, batch_worker, &b);
    for (size_t i = 0; i < conc; i++)
        pthread_join(t[i], NULL);
    double wall = client_now() - t0;
    char what[96];
    snprintf(what, sizeof what, "batch %s x%zu, concurrency %zu", r.kind_name, count, conc);
    print_latency(what, b.lat, count, wall);
    size_t failed = atomic_load(&b.failed);
    printf("failed: %zu\n", failed);
    free(t);
    free(b.lat);
    cuzk_rpc_client_close(b.c);
    client_req_free(&r);
    return failed ? 1 : 0;
bad:
    client_req_free(&r);
    return 2;
}

/* ---- stress ------------------------------------------------------------ */

typedef struct stress_kind {
    client_req req;
    double rate; /* proofs per second */
    char name[32];
    pthread_mutex_t mu;
    double *lat;
    size_t n, cap, failed, sent;
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
    char why[600];
    double ms;
    int bad = prove_checked(o->c, &o->k->req.m, o->id, &ms, why, sizeof why);
    pthread_mutex_lock(&o->k->mu);
    if (bad) {
        if (o->k->failed++ < 5) fprintf(stderr, "stress: %s: %s\n", o->id, why);
    } else {
        if (o->k->n == o->k->cap) {
            o->k->cap = o->k->cap ? 2 * o->k->cap : 256;
            o->k->lat = realloc(o->k->lat, o->k->cap * sizeof *o->k->lat);
        }
        o->k->lat[o->k->n++] = ms;
    }
    pthread_mutex_unlock(&o->k->mu);
    atomic_fetch_sub(&stress_inflight, 1);
    free(o);
    return NULL;
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
    pthread_mutex_init(&k->mu, NULL);
    return 0;
}

int cmd_stress(int argc, char **argv)
{
    const char *addr = NULL;
    double duration = 10;
    stress_kind kinds[8];
    size_t nk = 0;
    memset(kinds, 0, sizeof kinds);
    /* First pass: our options; the rest are request options shared by all jobs. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    rest[nrest++] = argv[0];
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--addr") && i + 1 < argc)
            addr = argv[++i];
        else if (!strcmp(argv[i], "--duration") && i + 1 < argc)
            duration = atof(argv[++i]);
        else if (!strcmp(argv[i], "--job") && i + 1 < argc) {
            if (nk == 8) {
                fprintf(stderr, "stress: at most 8 --job\n");
                goto out;
            }
            nk++;
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
    cuzk_rpc_client *c = client_open(addr);
    if (!c) goto out;
    double t0 = client_now(), next[8];
    for (size_t k = 0; k < nk; k++)
        next[k] = t0;
    long seq = 0, pid = (long)getpid();
    while (client_now() - t0 < duration) {
        double now = client_now(), soonest = t0 + duration;
        for (size_t k = 0; k < nk; k++) {
            if (now >= next[k]) {
                stress_one *o = calloc(1, sizeof *o);
                o->c = c;
                o->k = &kinds[k];
                snprintf(o->id, sizeof o->id, "stress-%ld-%ld-%s-%ld", pid, (long)(t0 * 1e3), kinds[k].name,
                         seq++);
                pthread_t t;
                atomic_fetch_add(&stress_inflight, 1);
                kinds[k].sent++;
                if (pthread_create(&t, NULL, stress_worker, o)) {
                    atomic_fetch_sub(&stress_inflight, 1);
                    kinds[k].failed++;
                    free(o);
                } else {
                    pthread_detach(t);
                }
                next[k] += 1.0 / kinds[k].rate;
            }
            if (next[k] < soonest) soonest = next[k];
        }
        double wait = soonest - client_now();
        if (wait > 0) usleep((useconds_t)(wait * 1e6));
    }
    while (atomic_load(&stress_inflight))
        usleep(10000);
    double wall = client_now() - t0;
    size_t failed = 0;
    for (size_t k = 0; k < nk; k++) {
        char what[96];
        snprintf(what, sizeof what, "stress %s (%.2f/s offered, %zu sent)", kinds[k].name, kinds[k].rate,
                 kinds[k].sent);
        print_latency(what, kinds[k].lat, kinds[k].n, wall);
        printf("  failed: %zu\n", kinds[k].failed);
        failed += kinds[k].failed;
        if (kinds[k].n + kinds[k].failed != kinds[k].sent) {
            printf("  LOST: %zu answers missing\n", kinds[k].sent - kinds[k].n - kinds[k].failed);
            failed++;
        }
    }
    cuzk_rpc_client_close(c);
    rc = failed ? 1 : 0;
out:
    for (size_t k = 0; k < 8; k++) {
        client_req_free(&kinds[k].req);
        free(kinds[k].lat);
    }
    free(rest);
    return rc;
}
