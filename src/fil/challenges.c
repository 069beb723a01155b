/* FallbackPoSt challenge derivation and native vanilla-proof verification
 * (storage-proofs-post fallback/vanilla.rs, utils.rs; filecoin-proofs
 * api/post_util.rs, api/winning_post.rs). */
#include <string.h>

#include <openssl/sha.h>

#include "cuzk/poseidon.h"
#include "fil/fil_internal.h"

uint64_t cuzk_fil_post_challenge_index(int api_version, uint64_t sector_index,
                                       uint64_t challenge_count, uint64_t n)
{
    /* api 1.2 fixed WindowPoSt grinding: a sector's challenges no longer
     * depend on where it sits in the partition. */
    if (api_version >= CUZK_FIL_API_V1_2) return n;
    return sector_index * challenge_count + n;
}

uint64_t cuzk_fil_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                      uint64_t challenge_index, uint64_t sector_size)
{
    uint8_t msg[48], h[32];
    memcpy(msg, randomness, 32);
    fil_put_le64(msg + 32, sector_id);
    fil_put_le64(msg + 40, challenge_index);
    SHA256(msg, sizeof msg, h);
    uint64_t nodes = sector_size / CUZK_FIL_NODE_SIZE;
    return nodes ? fil_le64(h) % nodes : 0;
}

int cuzk_fil_post_challenges(uint64_t *out, const cuzk_fil_post_info *p,
                             const uint8_t randomness[32], uint64_t sector_id,
                             uint64_t sector_index)
{
    if (!out || !p || !randomness) return CUZK_ERR_ARG;
    /* as_safe_commitment: the randomness must be a field element */
    if (!cuzk_fil_domain_valid(randomness)) return CUZK_ERR_ENC_NONCANONICAL;
    for (uint32_t n = 0; n < p->challenge_count; n++) {
        uint64_t ci = cuzk_fil_post_challenge_index(p->api_version, sector_index, p->challenge_count, n);
        out[n] = cuzk_fil_post_leaf_challenge(randomness, sector_id, ci, p->sector_size);
    }
    return CUZK_OK;
}

uint64_t cuzk_fil_winning_sector_challenge(const uint8_t randomness[32], const uint8_t prover_id[32],
                                           uint64_t n, uint64_t sector_set_len)
{
    uint8_t msg[72], h[32];
    memcpy(msg, prover_id, 32);
    memcpy(msg + 32, randomness, 32);
    fil_put_le64(msg + 64, n);
    SHA256(msg, sizeof msg, h);
    return sector_set_len ? fil_le64(h) % sector_set_len : 0;
}

int cuzk_fil_comm_r(uint8_t comm_r[32], const uint8_t comm_c[32], const uint8_t comm_r_last[32],
                    char *err, size_t err_len)
{
    cuzk_fr in[2], out;
    int st = cuzk_fil_domain_to_fr(&in[0], comm_c, "comm_c", err, err_len);
    if (!st) st = cuzk_fil_domain_to_fr(&in[1], comm_r_last, "comm_r_last", err, err_len);
    if (!st) st = cuzk_poseidon_hash(&out, in, 2);
    if (st) return st;
    cuzk_fr_to_bytes_le(comm_r, &out);
    return CUZK_OK;
}

int cuzk_fil_vanilla_verify(bool *ok, const cuzk_fil_post_vanilla *v, const cuzk_fil_post_info *p,
                            const uint8_t randomness[32], uint64_t sector_index, char *err,
                            size_t err_len)
{
    if (!ok || !v || !p || !randomness) return CUZK_ERR_ARG;
    *ok = false;
    cuzk_fil_tree_shape shape;
    if (cuzk_fil_tree_shape_for_sector(&shape, p->sector_size))
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "sector size %llu has no tree shape",
                         (unsigned long long)p->sector_size);
    if (!cuzk_fil_domain_valid(randomness))
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "randomness is not a field element");
    if (v->n_sectors != 1)
        return cuzk_errf(err, err_len, CUZK_OK, "sector %llu: %zu SectorProofs, expected 1",
                         (unsigned long long)v->sector_id, v->n_sectors);
    const cuzk_fil_sector_proof *sp = &v->sectors[0];
    uint8_t comm_r[32];
    int st = cuzk_fil_comm_r(comm_r, sp->comm_c, sp->comm_r_last, err, err_len);
    if (st) return st;
    if (memcmp(comm_r, v->comm_r, 32))
        return cuzk_errf(err, err_len, CUZK_OK, "sector %llu: comm_r != Poseidon2(comm_c, comm_r_last)",
                         (unsigned long long)v->sector_id);
    if (sp->n_proofs != p->challenge_count)
        return cuzk_errf(err, err_len, CUZK_OK, "sector %llu: %zu inclusion proofs, expected %u",
                         (unsigned long long)v->sector_id, sp->n_proofs, p->challenge_count);
    for (size_t n = 0; n < sp->n_proofs; n++) {
        const cuzk_fil_merkle_proof *mp = &sp->proofs[n];
        if (!cuzk_fil_merkle_proof_matches(mp, &shape))
            return cuzk_errf(err, err_len, CUZK_OK,
                             "sector %llu proof %zu: path shape does not match a %llu-byte sector",
                             (unsigned long long)v->sector_id, n, (unsigned long long)p->sector_size);
        if (memcmp(mp->root, sp->comm_r_last, 32))
            return cuzk_errf(err, err_len, CUZK_OK, "sector %llu proof %zu: root != comm_r_last",
                             (unsigned long long)v->sector_id, n);
        bool path_ok;
        uint64_t leaf;
        char sub[CUZK_FIL_ERR_LEN] = "";
        st = cuzk_fil_merkle_verify_poseidon(&path_ok, &leaf, mp, sub, sizeof sub);
        if (st)
            return cuzk_errf(err, err_len, st, "sector %llu proof %zu: %s", (unsigned long long)v->sector_id,
                             n, sub);
        if (!path_ok)
            return cuzk_errf(err, err_len, CUZK_OK, "sector %llu proof %zu: %s",
                             (unsigned long long)v->sector_id, n, sub);
        uint64_t ci = cuzk_fil_post_challenge_index(p->api_version, sector_index, p->challenge_count, n);
        uint64_t want = cuzk_fil_post_leaf_challenge(randomness, v->sector_id, ci, p->sector_size);
        if (leaf != want)
            return cuzk_errf(
                err, err_len, CUZK_OK, "sector %llu proof %zu: proves leaf %llu, the challenge is leaf %llu",
                (unsigned long long)v->sector_id, n, (unsigned long long)leaf, (unsigned long long)want);
    }
    *ok = true;
    return CUZK_OK;
}
