/* `cuzk-bench export-snarkjs --vk F --proof F --inputs F --out DIR` writes
 * DIR/verification_key.json, DIR/proof.json and DIR/public.json in the
 * format of snarkjs 0.7.6 (curve bls12381), so that
 * `snarkjs groth16 verify DIR/verification_key.json DIR/public.json
 * DIR/proof.json` checks our proof independently. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "cuzk/groth16.h"
#include "g16_cli.h"

int cmd_export_snarkjs(int argc, char **argv)
{
    const char *vkp = NULL, *proofp = NULL, *inp = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--vk")) vkp = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--proof")) proofp = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--inputs")) inp = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--out")) out = argv[++i];
        else vkp = NULL, i = argc;
    }
    if (!vkp || !proofp || !inp || !out) {
        fprintf(stderr, "usage: cuzk-bench export-snarkjs --vk F --proof F --inputs F --out DIR\n");
        return 2;
    }
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_load_opts o = {.err = err, .err_len = sizeof err};
    cuzk_groth16_vk *vk = NULL;
    if (cuzk_groth16_vk_load(&vk, vkp, &o)) {
        fprintf(stderr, "cuzk-bench export-snarkjs: %s\n", err);
        return 1;
    }
    size_t plen = 0, ilen = 0, n = 0;
    uint8_t *proof = g16_cli_read_file(proofp, &plen), *ib = g16_cli_read_file(inp, &ilen);
    cuzk_fr *in = malloc((ilen / 32 + 1) * sizeof *in);
    int rc = 1;
    if (!proof || !ib || !in) goto done;
    if (plen != CUZK_G16_PROOF_BYTES) {
        fprintf(stderr, "cuzk-bench export-snarkjs: %s: %zu bytes, expected 192\n", proofp, plen);
        goto done;
    }
    if (cuzk_groth16_inputs_decode(in, ib, ilen, &n, ilen / 32 + 1, err, sizeof err)) {
        fprintf(stderr, "cuzk-bench export-snarkjs: %s: %s\n", inp, err);
        goto done;
    }
    mkdir(out, 0777);
    static const char *names[3] = {"verification_key.json", "proof.json", "public.json"};
    for (int k = 0; k < 3; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", out, names[k]);
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "cuzk-bench export-snarkjs: %s: %s\n", path, strerror(errno));
            goto done;
        }
        int st = k == 0 ? cuzk_groth16_snarkjs_vk(f, vk)
                 : k == 1 ? cuzk_groth16_snarkjs_proof(f, proof)
                          : cuzk_groth16_snarkjs_public(f, in, n);
        if (fclose(f) || st) {
            fprintf(stderr, "cuzk-bench export-snarkjs: %s: %s\n", path, cuzk_strerror(st));
            goto done;
        }
        printf("%s\n", path);
    }
    rc = 0;
done:
    free(proof);
    free(ib);
    free(in);
    cuzk_groth16_vk_free(vk);
    return rc;
}
