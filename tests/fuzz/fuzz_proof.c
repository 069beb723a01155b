/* libFuzzer harness: proof (192 bytes) and public-input decoding through
 * cuzk_groth16_verify against a fixed test vk with one public input.
 * Input: 192 proof bytes, then the public inputs file.  Any input gives a
 * status; "valid" is only possible for a real proof (the fuzzer cannot
 * find one), so an accepted mutated proof aborts. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cuzk_groth16_params *params;
static cuzk_groth16_pvk pvk;
static uint8_t good[192];
static uint8_t good_in[32];

static void init(void)
{
    cuzk_cs *cs = NULL;
    cuzk_chain_ctx ctx = {.n = 3};
    cuzk_fr_from_u64(&ctx.x0, 3);
    cuzk_groth16_r1cs r;
    cuzk_groth16_witness w;
    if (cuzk_cs_new(&cs, CUZK_CS_PROVE, CUZK_CS_MATRICES) ||
        cuzk_cs_synthesize(cs, cuzk_chain_circuit, &ctx) || cuzk_groth16_r1cs_from_cs(&r, cs) ||
        cuzk_groth16_witness_from_cs(&w, cs) ||
        cuzk_groth16_setup_test(&params, &r, (const uint8_t *)"fuzz", 4, NULL, NULL, 0))
        abort();
    cuzk_groth16_prove_opts o = {.deterministic = true};
    if (cuzk_groth16_prove((uint8_t(*)[192])good, params, &w, 1, &o)) abort();
    cuzk_fr_to_bytes_le(good_in, &w.input[1]);
    cuzk_groth16_pvk_prepare(&pvk, cuzk_groth16_params_vk(params));
    cuzk_cs_free(cs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!params) init();
    if (size < 192) return 0;
    cuzk_fr in[4];
    size_t n = 0;
    char err[CUZK_G16_ERR_LEN];
    if (cuzk_groth16_inputs_decode(in, data + 192, size - 192, &n, 4, err, sizeof err)) return 0;
    bool ok = false;
    int st = cuzk_groth16_verify(&ok, &pvk, data, in, n, err, sizeof err);
    if (st == CUZK_OK && ok &&
        (memcmp(data, good, 192) || size != 224 || memcmp(data + 192, good_in, 32)))
        abort(); /* only the real proof with its input may verify */
    return 0;
}
