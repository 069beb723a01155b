/* libFuzzer harness: the .vk decoder (cuzk_groth16_vk_decode).  An accepted
 * vk must write back byte-identically and prepare for verification. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[CUZK_G16_ERR_LEN];
    cuzk_groth16_vk *vk = NULL;
    cuzk_groth16_load_opts o = {.err = err, .err_len = sizeof err};
    if (cuzk_groth16_vk_decode(&vk, data, size, &o) == CUZK_OK) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (cuzk_groth16_vk_write(f, vk) != CUZK_OK) abort();
        fclose(f);
        if (len != size || memcmp(buf, data, size)) abort();
        free(buf);
        cuzk_groth16_pvk pvk;
        cuzk_groth16_pvk_prepare(&pvk, vk);
    }
    cuzk_groth16_vk_free(vk);
    return 0;
}
