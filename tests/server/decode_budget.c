/* Request decoding within memory.request_budget (src/server/wire.c).
 *
 * protobuf-c is the reference here: every message is decoded by it through
 * a counting allocator (cuzk_rpc_budget, no limit) and the measured peak
 * must never pass cuzk_rpc_decode_bound's figure for the same bytes, which
 * the server reserves before decoding.  The shapes are the ones that cost
 * most per wire byte (many tiny `vanilla_proofs` entries, unknown fields,
 * repeated singular messages) and random ones; the factors printed are the
 * measurement wire.c and docs/engine.md quote.  A decode under a limit
 * below its peak fails with `exhausted` set and leaves nothing allocated. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/status.h"
#include "harness.h"
#include "rpc.h"

typedef struct {
    uint8_t *p;
    size_t n, cap;
} wbuf;

static void put(wbuf *w, const void *src, size_t n)
{
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 64;
        w->p = realloc(w->p, w->cap);
        if (!w->p) abort();
    }
    memcpy(w->p + w->n, src, n);
    w->n += n;
}

static void put_varint(wbuf *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(w, b, n);
}

static void put_bytes(wbuf *w, uint32_t field, const void *data, size_t n)
{
    put_varint(w, (uint64_t)field << 3 | 2);
    put_varint(w, n);
    put(w, data, n);
}

/* Peak bytes protobuf-c takes for buf (no limit), -1 if it refuses it. */
static int64_t measure(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len)
{
    cuzk_rpc_budget b;
    cuzk_rpc_budget_init(&b, UINT64_MAX);
    char err[256];
    ProtobufCMessage *m = cuzk_rpc_unpack_budget(d, buf, len, &b, err, sizeof err);
    if (!m) return -1;
    cuzk_rpc_free_budget(m, &b);
    CHECK(b.used == 0);
    return (int64_t)b.peak;
}

/* bound >= peak for buf, and decoding under any smaller limit fails clean. */
static void check_bound(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len, bool limits)
{
    uint64_t bound = 0;
    char err[256] = "";
    int64_t peak = measure(d, buf, len);
    int st = cuzk_rpc_decode_bound(&bound, d, buf, len, err, sizeof err);
    if (peak < 0) return; /* protobuf-c refuses it: nothing is allocated for long */
    if (st || (uint64_t)peak > bound)
        printf("    %s, %zu bytes: bound %llu (st %d %s), peak %lld\n", d->name, len,
               (unsigned long long)bound, st, err, (long long)peak);
    for (size_t i = 0; i < len && getenv("DUMP"); i++)
        printf("%02x%s", buf[i], i + 1 == len ? "\n" : "");
    CHECK(st == 0);
    CHECK((uint64_t)peak <= bound);
    if (!limits) return;
    for (uint64_t lim = 0; lim < (uint64_t)peak; lim += (uint64_t)peak / 7 + 1) {
        cuzk_rpc_budget b;
        cuzk_rpc_budget_init(&b, lim);
        ProtobufCMessage *m = cuzk_rpc_unpack_budget(d, buf, len, &b, err, sizeof err);
        CHECK(m == NULL && b.exhausted && b.used == 0 && b.peak <= lim);
        CHECK(strstr(err, "needed more than") != NULL);
        if (m) cuzk_rpc_free_budget(m, &b);
    }
}

/* A SubmitProofRequest of entries of `size` bytes filling ~target bytes. */
static wbuf tiny_entries(size_t size, size_t target)
{
    wbuf w = {0};
    uint8_t data[4096] = {0};
    put_bytes(&w, 1, "req", 3);
    while (w.n < target)
        put_bytes(&w, 11, data, size);
    return w;
}

static void test_factors(void)
{
    static const size_t sizes[] = {0, 1, 2, 4, 8, 16, 32, 64, 256, 4096};
    const size_t target = 8u << 20;
    double worst = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        wbuf w = tiny_entries(sizes[i], target);
        int64_t peak = measure(&cuzk__v1__submit_proof_request__descriptor, w.p, w.n);
        uint64_t bound = 0;
        char err[256];
        CHECK(cuzk_rpc_decode_bound(&bound, &cuzk__v1__submit_proof_request__descriptor, w.p, w.n, err,
                                    sizeof err) == 0);
        /* what the process really holds afterwards, default allocator */
        struct mallinfo2 m0 = mallinfo2();
        ProtobufCMessage *m =
            protobuf_c_message_unpack(&cuzk__v1__submit_proof_request__descriptor, NULL, w.n, w.p);
        struct mallinfo2 m1 = mallinfo2();
        REQUIRE(m != NULL);
        protobuf_c_message_free_unpacked(m, NULL);
        double f = (double)peak / (double)w.n;
        if (f > worst) worst = f;
        printf(
            "    %4zu-byte entries: wire %zu, decoded peak %.1fx, bound %.1fx, held after (malloc) %.1fx\n",
            sizes[i], w.n, f, (double)bound / (double)w.n,
            (double)(m1.uordblks + m1.hblkhd - m0.uordblks - m0.hblkhd) / (double)w.n);
        CHECK(peak > 0 && (uint64_t)peak <= bound);
        CHECK(bound <= (uint64_t)peak + (uint64_t)peak / 4 + 4096); /* tight: the reservation is not wasted */
        free(w.p);
    }
    printf("    worst factor: %.1fx the wire size\n", worst);
    CHECK(worst > 20 && worst <= 41); /* wire.c's figure */
    /* one big entry: ~1x */
    wbuf w = {0};
    uint8_t *big = calloc(1, 4u << 20);
    REQUIRE(big != NULL);
    put_bytes(&w, 10, big, 4u << 20);
    int64_t peak = measure(&cuzk__v1__submit_proof_request__descriptor, w.p, w.n);
    printf("    one 4 MiB vanilla_proof: decoded peak %.3fx\n", (double)peak / (double)w.n);
    CHECK(peak < (int64_t)w.n + 4096);
    check_bound(&cuzk__v1__submit_proof_request__descriptor, w.p, w.n, true);
    free(big);
    free(w.p);
}

static void test_shapes(void)
{
    const ProtobufCMessageDescriptor *sd = &cuzk__v1__submit_proof_request__descriptor,
                                     *pd = &cuzk__v1__prove_request__descriptor;
    wbuf s = tiny_entries(1, 20000);
    check_bound(sd, s.p, s.n, true);
    /* nested in Prove, once and three times (merged) */
    wbuf p = {0};
    put_bytes(&p, 1, s.p, s.n);
    check_bound(pd, p.p, p.n, true);
    put_bytes(&p, 1, s.p, s.n);
    put_bytes(&p, 1, s.p, s.n);
    check_bound(pd, p.p, p.n, true);
    /* unknown fields of every wire type, strings, a repeated singular field */
    wbuf u = {0};
    for (uint32_t k = 0; k < 3000; k++) {
        put_bytes(&u, 100 + k % 7, "xyz", k % 3);
        put_varint(&u, (uint64_t)(200 + k % 5) << 3 | 0);
        put_varint(&u, k);
        put_varint(&u, (uint64_t)300 << 3 | 5);
        put(&u, "abcd", 4);
        put_varint(&u, (uint64_t)301 << 3 | 1);
        put(&u, "abcdefgh", 8);
        put_bytes(&u, 1, "id", k % 4);    /* request_id again and again */
        put_bytes(&u, 22, "rand", k % 5); /* randomness again */
    }
    check_bound(sd, u.p, u.n, true);
    /* the small methods */
    check_bound(&cuzk__v1__await_proof_request__descriptor, u.p, u.n, true);
    check_bound(&cuzk__v1__get_status_request__descriptor, u.p, u.n, false);
    free(s.p);
    free(p.p);
    free(u.p);
}

static void test_random(void)
{
    const ProtobufCMessageDescriptor *ds[3] = {&cuzk__v1__submit_proof_request__descriptor,
                                               &cuzk__v1__prove_request__descriptor,
                                               &cuzk__v1__await_proof_request__descriptor};
    static const uint32_t fields[] = {1, 2, 3, 4, 5, 10, 11, 20, 21, 22, 23, 30, 31, 32, 7, 99, 1000};
    for (int it = 0; it < 3000; it++) {
        wbuf w = {0};
        int nf = (int)(test_rand64() % 40);
        for (int k = 0; k < nf; k++) {
            uint32_t f = fields[test_rand64() % (sizeof fields / sizeof *fields)];
            unsigned wt = (unsigned)(test_rand64() % 4);
            uint8_t junk[64];
            for (size_t i = 0; i < sizeof junk; i++)
                junk[i] = (uint8_t)test_rand64();
            if (wt == 2) {
                put_bytes(&w, f, junk, test_rand64() % sizeof junk);
            } else {
                put_varint(&w, (uint64_t)f << 3 | (wt == 3 ? 5 : wt));
                if (wt == 0)
                    put_varint(&w, test_rand64());
                else
                    put(&w, junk, wt == 1 ? 8 : 4);
            }
        }
        if (test_rand64() % 4 == 0 && w.n) w.p[test_rand64() % w.n] ^= (uint8_t)(1u << (test_rand64() % 8));
        if (test_rand64() % 8 == 0 && w.n) w.n -= 1 + test_rand64() % w.n; /* truncated */
        check_bound(ds[it % 3], w.p, w.n, it % 50 == 0);
        free(w.p);
    }
}

static void test_malformed(void)
{
    uint64_t bound = 7;
    char err[256] = "";
    static const uint8_t cut[] = {0x5a, 0x05, 'a'}; /* 5 bytes announced, 1 sent */
    CHECK(cuzk_rpc_decode_bound(&bound, &cuzk__v1__submit_proof_request__descriptor, cut, sizeof cut, err,
                                sizeof err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err, "bad length") != NULL);
    static const uint8_t group[] = {0x0b}; /* wire type 3 */
    CHECK(cuzk_rpc_decode_bound(&bound, &cuzk__v1__submit_proof_request__descriptor, group, sizeof group, err,
                                sizeof err) == CUZK_ERR_FORMAT);
    CHECK(cuzk_rpc_decode_bound(&bound, &cuzk__v1__submit_proof_request__descriptor, NULL, 0, err,
                                sizeof err) == 0);
    CHECK(bound > 0);
}

static const test_case tests[] = {
    {"factors", test_factors},
    {"shapes", test_shapes},
    {"random", test_random},
    {"malformed", test_malformed},
};

TEST_MAIN(tests)
