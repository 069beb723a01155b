/* libFuzzer harness: the daemon's PoSt request path (cuzk_post_job_new):
 * a list of bincode FallbackPoStSectorProofs for a registered PoSt proof,
 * parsed, counted against the proof type and natively verified.
 * fuzz_vanilla covers one proof's parser; this one covers what the PoSt
 * provider does with a request: several buffers, the sector/partition
 * counts, the challenge derivation per sector index.
 * Input framing: byte 0 selects the proof type (Winning 2KiB V1, Window
 * 2KiB V1, Window 2KiB V1_2), the number of buffers (1..3) and the
 * partition (0/1); the rest is split into that many equal parts.  Seeds:
 * cuzk-bench gen-vanilla post outputs (randomness zero) framed this way.
 * Oracles: CUZK_OK or a documented status (ARG / FORMAT / NONCANONICAL)
 * with a message, never a crash or a leak; an accepted job reports the
 * type it was asked for and as many public inputs as the type has. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/post.h"
#include "cuzk/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t types[3] = {0, 5, 10};
    static const uint8_t rnd[32], prover[32];
    if (size < 1) return 0;
    uint64_t type = types[data[0] % 3];
    size_t nbuf = 1 + (data[0] / 3) % 3;
    uint32_t partition = (data[0] >> 5) & 1;
    const uint8_t *bufs[3];
    size_t lens[3], part = (size - 1) / nbuf;
    for (size_t i = 0; i < nbuf; i++) {
        bufs[i] = data + 1 + i * part;
        lens[i] = i + 1 < nbuf ? part : size - 1 - i * part;
    }
    cuzk_post_job *j = NULL;
    char err[512] = "";
    int st = cuzk_post_job_new(&j, type, bufs, lens, nbuf, rnd, prover, partition, err, sizeof err);
    if (st != CUZK_OK) {
        if ((st != CUZK_ERR_ARG && st != CUZK_ERR_FORMAT && st != CUZK_ERR_ENC_NONCANONICAL) || !err[0] || j)
            abort();
        return 0;
    }
    const cuzk_fil_post_info *info = cuzk_post_job_info(j);
    size_t n = 0;
    if (!info || info->id != type || !cuzk_post_job_inputs(j, &n) || n != cuzk_post_num_inputs(info)) abort();
    cuzk_post_job_free(j);
    return 0;
}
