/* SnapDeals public inputs (storage-proofs-update compound.rs
 * generate_public_inputs) and the update-proof verifier; see cuzk/snap.h. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/snap.h"
#include "cuzk/status.h"

int cuzk_snap_public_inputs(cuzk_fr out[4], const cuzk_snap_shape *s, uint32_t k, uint32_t h,
                            const uint8_t comm_r_old[32], const uint8_t comm_d_new[32],
                            const uint8_t comm_r_new[32], char *err, size_t err_len)
{
    if (k >= s->partitions)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "partition %u of %u", k, s->partitions);
    if (!cuzk_snap_h_select(s, h))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "h = %u is not allowed for this size", h);
    cuzk_fr_from_u64(&out[0], cuzk_snap_k_and_h_select(s, k, h));
    int st;
    if ((st = cuzk_fil_domain_to_fr(&out[1], comm_r_old, "comm_r_old", err, err_len)) ||
        (st = cuzk_fil_domain_to_fr(&out[2], comm_d_new, "comm_d_new", err, err_len)) ||
        (st = cuzk_fil_domain_to_fr(&out[3], comm_r_new, "comm_r_new", err, err_len)))
        return st;
    return CUZK_OK;
}

int cuzk_snap_verify(bool *valid, const cuzk_groth16_vk *vk, const cuzk_snap_shape *s, uint32_t h,
                     const uint8_t comm_r_old[32], const uint8_t comm_d_new[32], const uint8_t comm_r_new[32],
                     const uint8_t *proofs, size_t proofs_len, char *err, size_t err_len)
{
    *valid = false;
    if (!vk || !s || !proofs) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "verify: NULL argument");
    size_t parts = s->partitions;
    if (proofs_len != parts * CUZK_G16_PROOF_BYTES)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "proof is %zu bytes, want %zu partitions x %d = %zu",
                         proofs_len, parts, CUZK_G16_PROOF_BYTES, parts * CUZK_G16_PROOF_BYTES);
    if (vk->n_ic != 5)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "verifying key has %zu IC points, the update circuit needs 5", vk->n_ic);
    cuzk_fr *in = malloc(parts * 4 * sizeof *in);
    if (!in) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "verify: no memory");
    int st = CUZK_OK;
    for (uint32_t k = 0; k < parts && !st; k++)
        st = cuzk_snap_public_inputs(in + 4 * k, s, k, h, comm_r_old, comm_d_new, comm_r_new, err, err_len);
    if (!st) {
        cuzk_groth16_pvk pvk;
        cuzk_groth16_pvk_prepare(&pvk, vk);
        st = cuzk_groth16_verify_batch(valid, &pvk, (const uint8_t(*)[CUZK_G16_PROOF_BYTES])proofs, parts, in,
                                       4, err, err_len);
        if (!st && !*valid)
            cuzk_errf(err, err_len, CUZK_OK,
                      "the update proof does not verify for these inputs (%zu partitions)", parts);
    }
    free(in);
    return st;
}
