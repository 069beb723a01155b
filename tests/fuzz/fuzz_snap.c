/* libFuzzer harness: SnapDeals vanilla proofs (cuzk/seal_snap.h): raw
 * bincode PartitionProof parsing with and without a shape, the JSON /
 * base64 / concatenated input forms, and native verification.
 * Oracles: any input gives CUZK_OK or a FORMAT / NONCANONICAL status with
 * a message; an accepted proof re-serializes to exactly its bytes (bincode
 * has one encoding per value); verification of an accepted proof returns
 * a status without crashing.  Seed: a 2 KiB gen-vanilla snap partition. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/seal_snap.h"
#include "cuzk/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_check(int st, const char *err)
{
    if (st != CUZK_OK && ((st != CUZK_ERR_FORMAT && st != CUZK_ERR_ENC_NONCANONICAL) || !err[0])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_snap_shape s;
    if (cuzk_snap_shape_for(&s, 2048, false) != CUZK_OK) abort();
    char err[512] = "";
    for (int shaped = 0; shaped < 2; shaped++) {
        cuzk_snap_partition_proof *p = NULL;
        err[0] = 0;
        int st = cuzk_snap_partition_parse(&p, data, size, shaped ? &s : NULL, err, sizeof err);
        fz_check(st, err);
        if (st) continue;
        size_t n = cuzk_snap_partition_size(p), w = 0;
        uint8_t *out = malloc(n ? n : 1);
        if (!out || n != size || cuzk_snap_partition_write(out, n, &w, p) != CUZK_OK || w != size ||
            memcmp(out, data, size))
            abort();
        free(out);
        static const uint8_t zero[32];
        (void)cuzk_snap_partition_verify(p, &s, 0, 1, zero, zero, zero, err, sizeof err);
        cuzk_snap_partition_free(p);
    }
    cuzk_snap_partition_proof **v = NULL;
    size_t n = 0;
    err[0] = 0;
    int st = cuzk_snap_vanilla_decode(&v, &n, data, size, NULL, 4, err, sizeof err);
    fz_check(st, err);
    cuzk_snap_vanilla_free(v, n);
    return 0;
}
