/* libFuzzer harness: C1 JSON (cuzk_seal_c1_parse, bare or in Curio's
 * envelope) and native verification of what parses.
 * Oracles: any input gives CUZK_OK, or CUZK_ERR_FORMAT /
 * CUZK_ERR_ENC_NONCANONICAL / CUZK_ERR_ARG with a message (never a crash,
 * a leak or a silent failure); an accepted input re-parses after
 * cuzk_seal_c1_write_json to the same registered proof, and verification
 * returns a status with a message when it fails.  Seeds: a 2 KiB C1 from
 * cuzk-bench gen-vanilla porep when available; libFuzzer's -max_len in
 * run.sh keeps inputs small, so mostly the error paths are explored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/seal_c1.h"
#include "cuzk/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_seal_c1 *c1 = NULL;
    char err[512] = "";
    int st = cuzk_seal_c1_parse(&c1, (const char *)data, size, UINT64_MAX, err, sizeof err);
    if (st != CUZK_OK) {
        if ((st != CUZK_ERR_FORMAT && st != CUZK_ERR_ENC_NONCANONICAL && st != CUZK_ERR_ARG) || !err[0] || c1)
            abort();
        return 0;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f || cuzk_seal_c1_write_json(c1, f, err, sizeof err) != CUZK_OK) abort();
    fclose(f);
    cuzk_seal_c1 *again = NULL;
    if (cuzk_seal_c1_parse(&again, buf, len, c1->registered_proof, err, sizeof err) != CUZK_OK) abort();
    cuzk_seal_c1_free(again);
    free(buf);
    err[0] = 0;
    st = cuzk_seal_c1_verify(c1, NULL, 0, NULL, err, sizeof err);
    if (st != CUZK_OK && !err[0]) abort();
    cuzk_seal_c1_free(c1);
    return 0;
}
