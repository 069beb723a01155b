/* libFuzzer harness: circom .r1cs and .wtns parsing (src/r1cs/circom.c),
 * what `cuzk-bench setup/prove --r1cs --wtns` reads from a user's files.
 * Input framing: u16 LE n, then n bytes of .r1cs, then the .wtns.
 * Oracles: any input gives CUZK_OK or a documented status (FORMAT,
 * UNSUPPORTED, NONCANONICAL) with a message and nothing allocated; an
 * accepted pair synthesizes into a cs (the parser's counts and wire map
 * must be consistent with it) without a crash.  Seeds: the committed
 * tests/vectors/circom pairs framed this way. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/circom.h"
#include "cuzk/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int st, const char *err)
{
    if (st != CUZK_OK &&
        ((st != CUZK_ERR_FORMAT && st != CUZK_ERR_UNSUPPORTED && st != CUZK_ERR_ENC_NONCANONICAL) || !err[0]))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    size_t n = (size_t)data[0] | (size_t)data[1] << 8;
    if (n > size - 2) n = size - 2;
    cuzk_circom *c = NULL;
    char err[512] = "";
    int st = cuzk_circom_r1cs_parse(&c, data + 2, n, err, sizeof err);
    check(st, err);
    if (st != CUZK_OK) {
        if (c) abort();
        return 0;
    }
    err[0] = 0;
    st = cuzk_circom_wtns_parse(c, data + 2 + n, size - 2 - n, err, sizeof err);
    check(st, err);
    if (st == CUZK_OK) {
        cuzk_cs *cs = NULL;
        if (cuzk_cs_new(&cs, CUZK_CS_PROVE, CUZK_CS_MATRICES) != CUZK_OK) abort();
        (void)cuzk_cs_synthesize(cs, cuzk_circom_circuit, c);
        cuzk_cs_free(cs);
    }
    cuzk_circom_free(c);
    return 0;
}
