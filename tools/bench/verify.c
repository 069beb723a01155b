/* `cuzk-bench verify --vk F --proof F --inputs F [--no-subgroup]`: prints
 * `valid` (exit 0) or `invalid: <reason>` (exit 1); bad arguments or an
 * unreadable / malformed verifying key exit 2.  F for --vk may also be a
 * .params file (its head is the vk).  A proof that does not decode, or
 * public inputs that are malformed or of the wrong count, are invalid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "porep_cmds.h"
#include "snap_cmds.h"
#include "post_cmds.h"
#include "cuzk/groth16.h"
#include "g16_cli.h"

int cmd_verify(int argc, char **argv)
{
    if (cuzk_bench_post_wants(argc, argv)) return cuzk_bench_post_verify(argc, argv);
    if (cuzk_bench_porep_wants(argc, argv)) return cuzk_bench_porep_verify(argc, argv);
    if (cuzk_bench_snap_wants(argc, argv)) return cuzk_bench_snap_verify(argc, argv);
    const char *vkp = NULL, *proofp = NULL, *inp = NULL;
    unsigned flags = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-subgroup")) flags |= CUZK_G16_LOAD_NO_SUBGROUP;
        else if (i + 1 < argc && !strcmp(argv[i], "--vk")) vkp = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--proof")) proofp = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--inputs")) inp = argv[++i];
        else vkp = proofp = inp = NULL, i = argc;
    }
    if (!vkp || !proofp || !inp) {
        fprintf(stderr, "usage: cuzk-bench verify --vk F --proof F --inputs F [--no-subgroup]\n");
        return 2;
    }
    char err[CUZK_G16_ERR_LEN] = "";
    cuzk_groth16_load_opts o = {.flags = flags, .err = err, .err_len = sizeof err};
    cuzk_groth16_vk *vk = NULL;
    if (cuzk_groth16_vk_load(&vk, vkp, &o)) {
        fprintf(stderr, "cuzk-bench verify: %s\n", err);
        return 2;
    }
    if (vk->is_test) fprintf(stderr, "warning: %s is a TEST verifying key\n", vkp);
    size_t plen = 0, ilen = 0, n = 0;
    uint8_t *proof = g16_cli_read_file(proofp, &plen), *ib = g16_cli_read_file(inp, &ilen);
    cuzk_fr *in = malloc((ilen / 32 + 1) * sizeof *in);
    int rc = 2;
    if (!proof || !ib || !in) goto done;
    rc = 1;
    bool ok = false;
    if (plen != CUZK_G16_PROOF_BYTES) {
        printf("invalid: proof is %zu bytes, expected %d\n", plen, CUZK_G16_PROOF_BYTES);
        goto done;
    }
    if (cuzk_groth16_inputs_decode(in, ib, ilen, &n, ilen / 32 + 1, err, sizeof err)) {
        printf("invalid: %s\n", err);
        goto done;
    }
    cuzk_groth16_pvk pvk;
    cuzk_groth16_pvk_prepare(&pvk, vk);
    err[0] = 0;
    if (cuzk_groth16_verify(&ok, &pvk, proof, in, n, err, sizeof err) || !ok) {
        printf("invalid: %s\n", err);
        goto done;
    }
    printf("valid\n");
    rc = 0;
done:
    free(proof);
    free(ib);
    free(in);
    cuzk_groth16_vk_free(vk);
    return rc;
}
