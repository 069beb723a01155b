/* libFuzzer harness: bincode FallbackPoStSectorProof parsing
 * (cuzk_fil_vanilla_parse) and native verification.
 * Oracles: any input gives CUZK_OK or CUZK_ERR_FORMAT with a message; an
 * accepted input re-serializes to exactly the same bytes (bincode has one
 * encoding per value); verification of an accepted input returns a status
 * without crashing, for a Single-shaped (2 KiB) and a Sub-shaped (32 GiB)
 * PoSt type.  Seeds: the golden 32 GiB proof and gen-vanilla outputs. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin.h"
#include "cuzk/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_fil_post_vanilla v;
    char err[CUZK_FIL_ERR_LEN] = "";
    int st = cuzk_fil_vanilla_parse(&v, data, size, NULL, err, sizeof err);
    if (st != CUZK_OK) {
        if (st != CUZK_ERR_FORMAT || !err[0]) abort(); /* errors are FORMAT with a message */
        return 0;
    }
    size_t n = cuzk_fil_vanilla_size(&v), w = 0;
    if (n != size) abort();
    uint8_t *out = malloc(n ? n : 1);
    if (!out) abort();
    if (cuzk_fil_vanilla_write(out, n, &w, &v) != CUZK_OK || w != size || memcmp(out, data, size))
        abort();
    free(out);
    static const uint64_t types[2] = {10, 13}; /* Window 2KiB V1_2, Window 32GiB V1_2 */
    static const uint8_t rnd[32];
    for (int i = 0; i < 2; i++) {
        const cuzk_fil_post_info *p;
        if (cuzk_fil_post_lookup(&p, types[i]) != CUZK_OK) abort();
        bool ok = false;
        (void)cuzk_fil_vanilla_verify(&ok, &v, p, rnd, 0, err, sizeof err);
    }
    cuzk_fil_vanilla_free(&v);
    return 0;
}
