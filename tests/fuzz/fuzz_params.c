/* libFuzzer harness: the .params decoder (cuzk_groth16_params_decode) in
 * its three trust modes, and the stream reader on the same bytes.  Any
 * input must give a status (never crash, leak or read out of bounds); an
 * accepted file must write back byte-identically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned modes[3] = {0, CUZK_G16_LOAD_NO_SUBGROUP, CUZK_G16_LOAD_NO_VALIDATE};
    char err[CUZK_G16_ERR_LEN];
    for (int m = 0; m < 3; m++) {
        cuzk_groth16_params *p = NULL;
        cuzk_groth16_load_opts o = {.flags = modes[m], .err = err, .err_len = sizeof err};
        int st = cuzk_groth16_params_decode(&p, data, size, &o);
        if (st == CUZK_OK) {
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            if (cuzk_groth16_params_write(f, p) != CUZK_OK) abort();
            fclose(f);
            if (len != size || memcmp(buf, data, size)) abort(); /* round trip */
            free(buf);
        }
        cuzk_groth16_params_free(p);
        if (m == 0 && size) {
            FILE *f = fmemopen((void *)data, size, "rb");
            int st2 = cuzk_groth16_params_read(&p, f, &o);
            fclose(f);
            cuzk_groth16_params_free(p);
            if (st2 != st) abort(); /* stream and memory agree */
        }
    }
    return 0;
}
