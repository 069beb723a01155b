/* FallbackPoSt prover job (vanilla proofs -> circuit witness + public
 * inputs), verifier, compressed verifying keys and prover ids; see
 * cuzk/post.h.  The job mirrors filecoin-proofs'
 * generate_winning_post_with_vanilla / generate_single_window_post_with_vanilla
 * (post_util.rs single_partition_vanilla_proofs). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/post.h"
#include "cuzk/status.h"
#include "post_internal.h"

struct cuzk_post_job {
    const cuzk_fil_post_info *info;
    size_t n_vanilla;
    cuzk_fil_post_vanilla *v;
    cuzk_post_circuit_sector *csec;
    cuzk_post_circuit_ctx ctx;
    cuzk_fr *inputs;
    size_t n_inputs;
    uint8_t prover_id[32], randomness[32];
    uint32_t partition;
};

void cuzk_post_prover_id(uint8_t out[32], uint64_t miner_id)
{
    memset(out, 0, 32);
    size_t i = 0;
    do {
        uint8_t b = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        out[i++] = (uint8_t)(b | (miner_id ? 0x80 : 0));
    } while (miner_id);
}

void cuzk_post_job_free(cuzk_post_job *j)
{
    if (!j) return;
    for (size_t i = 0; i < j->n_vanilla; i++)
        cuzk_fil_vanilla_free(&j->v[i]);
    free(j->v);
    free(j->csec);
    free(j->inputs);
    free(j);
}

const cuzk_fil_post_info *cuzk_post_job_info(const cuzk_post_job *j)
{
    return j->info;
}

void cuzk_post_job_circuit(const cuzk_post_job *j, cuzk_circuit_fn *fn, void **ctx)
{
    *fn = cuzk_post_circuit;
    *ctx = (void *)&j->ctx;
}

const cuzk_fr *cuzk_post_job_inputs(const cuzk_post_job *j, size_t *n)
{
    *n = j->n_inputs;
    return j->inputs;
}

typedef struct {
    cuzk_post_job *j;
    const uint8_t *const *vanilla;
    const size_t *len;
    int *st;
    char (*err)[CUZK_FIL_ERR_LEN];
} parse_task;

/* Parse and natively verify vanilla proof i (one task; ~3.7 ms of
 * Poseidon per 32 GiB sector, so a 2349-sector partition is worth
 * spreading over the caller's threads). */
static void parse_one(void *arg, size_t i)
{
    parse_task *t = arg;
    cuzk_post_job *j = t->j;
    const cuzk_fil_post_info *p = j->info;
    char *e = t->err[i];
    int st = cuzk_fil_vanilla_parse(&j->v[i], t->vanilla[i], t->len[i], NULL, e, CUZK_FIL_ERR_LEN);
    if (st) {
        t->st[i] = st;
        return;
    }
    /* api 1.0/1.1 challenges depend on the position in the whole list */
    uint64_t sector_index = p->winning ? 0 : (uint64_t)j->partition * p->circuit_sector_count + i;
    bool ok = false;
    st = cuzk_fil_vanilla_verify(&ok, &j->v[i], p, j->randomness, sector_index, e, CUZK_FIL_ERR_LEN);
    t->st[i] = st ? st : ok ? CUZK_OK : 1; /* 1: well formed but wrong */
}

static int job_parse(cuzk_post_job *j, const uint8_t *const *vanilla, const size_t *len, cuzk_par *par,
                     char *err, size_t err_len)
{
    size_t n = j->n_vanilla;
    if (!len) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "vanilla proof lengths: NULL");
    for (size_t i = 0; i < n; i++)
        if (!vanilla[i]) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "vanilla proof %zu: NULL", i);
    parse_task t = {j, vanilla, len, calloc(n, sizeof(int)), calloc(n, CUZK_FIL_ERR_LEN)};
    int st = CUZK_OK;
    if (!t.st || !t.err) {
        st = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "post job: out of memory");
        goto done;
    }
    cuzk_par_for(par, parse_one, &t, n);
    for (size_t i = 0; i < n && !st; i++) {
        if (t.st[i] == 1)
            st = cuzk_errf(err, err_len, CUZK_ERR_ARG, "vanilla proof %zu (sector %llu) does not verify: %s",
                           i, (unsigned long long)j->v[i].sector_id, t.err[i]);
        else if (t.st[i])
            st = cuzk_errf(err, err_len, t.st[i], "vanilla proof %zu: %s", i, t.err[i]);
    }
    /* duplicates: single_partition_vanilla_proofs finds proofs by sector id */
    for (size_t i = 0; i < n && !st; i++)
        for (size_t k = 0; k < i && !st; k++)
            if (j->v[k].sector_id == j->v[i].sector_id)
                st = cuzk_errf(err, err_len, CUZK_ERR_ARG, "vanilla proofs %zu and %zu: same sector %llu", k,
                               i, (unsigned long long)j->v[i].sector_id);
done:
    free(t.st);
    free(t.err);
    return st;
}

/* Circuit sectors: Window = one per vanilla proof, the last repeated;
 * Winning = the one sector's 66 inclusion proofs, one per circuit sector. */
static void job_circuit_sectors(cuzk_post_job *j)
{
    size_t n = j->ctx.n_sectors, cc = j->ctx.n_challenges;
    for (size_t i = 0; i < n; i++) {
        const cuzk_fil_post_vanilla *v =
            &j->v[j->info->winning ? 0 : (i < j->n_vanilla ? i : j->n_vanilla - 1)];
        const cuzk_fil_sector_proof *sp = &v->sectors[0];
        cuzk_post_circuit_sector *c = &j->csec[i];
        memcpy(c->comm_r, v->comm_r, 32);
        memcpy(c->comm_c, sp->comm_c, 32);
        memcpy(c->comm_r_last, sp->comm_r_last, 32);
        c->proofs = j->info->winning ? sp->proofs + i * cc : sp->proofs;
    }
}

int cuzk_post_job_new(cuzk_post_job **out, uint64_t registered_proof, const uint8_t *const *vanilla,
                      const size_t *len, size_t n_vanilla, const uint8_t randomness[32],
                      const uint8_t prover_id[32], uint32_t partition, char *err, size_t err_len)
{
    return cuzk_post_job_new_par(out, registered_proof, vanilla, len, n_vanilla, randomness, prover_id,
                                 partition, NULL, err, err_len);
}

int cuzk_post_job_new_par(cuzk_post_job **out, uint64_t registered_proof, const uint8_t *const *vanilla,
                          const size_t *len, size_t n_vanilla, const uint8_t randomness[32],
                          const uint8_t prover_id[32], uint32_t partition, cuzk_par *par, char *err,
                          size_t err_len)
{
    const cuzk_fil_post_info *p;
    *out = NULL;
    if (cuzk_fil_post_lookup(&p, registered_proof))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "unknown registered PoSt proof %llu",
                         (unsigned long long)registered_proof);
    if (!randomness || !prover_id || !vanilla)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "post job: NULL argument");
    if (p->winning && (n_vanilla != 1 || partition != 0))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "%s: %zu vanilla proofs, partition %u (want exactly one, partition 0)", p->name,
                         n_vanilla, partition);
    if (!p->winning && (n_vanilla == 0 || n_vanilla > p->circuit_sector_count))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: %zu vanilla proofs (want 1 to %u per partition)",
                         p->name, n_vanilla, p->circuit_sector_count);
    if (!cuzk_fil_domain_valid(randomness))
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL,
                         "randomness is not a canonical Fr (>= r; Curio clears the top two bits)");
    if (!cuzk_fil_domain_valid(prover_id))
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "prover_id is not a canonical Fr");
    cuzk_post_job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ERR_NOMEM;
    j->info = p;
    j->partition = partition;
    memcpy(j->randomness, randomness, 32);
    memcpy(j->prover_id, prover_id, 32);
    int st = cuzk_post_circuit_blank(&j->ctx, p);
    if (st) {
        cuzk_post_job_free(j);
        return cuzk_errf(err, err_len, st, "%s: unsupported sector size", p->name);
    }
    j->n_vanilla = n_vanilla;
    j->v = calloc(n_vanilla, sizeof *j->v);
    j->csec = calloc(j->ctx.n_sectors, sizeof *j->csec);
    j->n_inputs = cuzk_post_num_inputs(p);
    j->inputs = calloc(j->n_inputs, sizeof *j->inputs);
    cuzk_post_sector *ps = calloc(n_vanilla, sizeof *ps);
    if (!j->v || !j->csec || !j->inputs || !ps) {
        free(ps);
        cuzk_post_job_free(j);
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "post job: out of memory");
    }
    st = job_parse(j, vanilla, len, par, err, err_len);
    if (!st) {
        for (size_t i = 0; i < n_vanilla; i++) {
            ps[i].sector_id = j->v[i].sector_id;
            memcpy(ps[i].comm_r, j->v[i].comm_r, 32);
        }
        size_t n = 0;
        /* the partition's own sectors: challenge positions use `partition` */
        st = cuzk_post_public_inputs(j->inputs, j->n_inputs, &n, p, randomness, ps, n_vanilla, partition, err,
                                     err_len);
    }
    free(ps);
    if (st) {
        cuzk_post_job_free(j);
        return st;
    }
    job_circuit_sectors(j);
    j->ctx.sectors = j->csec;
    *out = j;
    return CUZK_OK;
}

int cuzk_post_job_synthesize(cuzk_cs **out, const cuzk_post_job *j, cuzk_cs_mode mode, unsigned flags,
                             char *err, size_t err_len)
{
    return cuzk_post_job_synthesize_par(out, j, mode, flags, NULL, err, err_len);
}

int cuzk_post_job_synthesize_par(cuzk_cs **out, const cuzk_post_job *j, cuzk_cs_mode mode, unsigned flags,
                                 cuzk_par *par, char *err, size_t err_len)
{
    *out = NULL;
    cuzk_cs *cs;
    int st = cuzk_cs_new(&cs, mode, flags);
    if (st) return cuzk_errf(err, err_len, st, "post: cannot create the constraint system");
    size_t nc = cuzk_post_num_constraints(j->info);
    st = cuzk_cs_reserve(cs, nc + j->n_inputs + 1, j->n_inputs + 1, nc);
    if (!st) st = cuzk_cs_set_par(cs, par, 0);
    if (!st) st = cuzk_cs_synthesize(cs, cuzk_post_circuit, (void *)&j->ctx);
    if (st) {
        cuzk_errf(err, err_len, st, "post: synthesis failed: %s", cuzk_cs_error(cs));
        cuzk_cs_free(cs);
        return st;
    }
    const cuzk_fr *in = cuzk_cs_input_assignment(cs);
    cuzk_cs_counts k;
    cuzk_cs_get_counts(cs, &k);
    if (k.inputs != j->n_inputs + 1) {
        cuzk_cs_free(cs);
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "post: circuit has %zu inputs, expected %zu",
                         k.inputs - 1, j->n_inputs);
    }
    for (size_t i = 0; in && i < j->n_inputs; i++)
        if (!cuzk_fr_eq(&in[i + 1], &j->inputs[i])) {
            cuzk_cs_free(cs);
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "post: circuit input %zu differs from the computed public input", i);
        }
    *out = cs;
    return CUZK_OK;
}

int cuzk_post_job_prove(uint8_t proof[CUZK_G16_PROOF_BYTES], const cuzk_post_job *j,
                        const cuzk_groth16_params *params, const cuzk_groth16_prove_opts *opts, char *err,
                        size_t err_len)
{
    cuzk_cs *cs;
    int st = cuzk_post_job_synthesize(&cs, j, CUZK_CS_PROVE, 0, err, err_len);
    if (st) return st;
    st = cuzk_groth16_prove_cs(proof, params, cs, opts, "post", err, err_len);
    cuzk_cs_free(cs);
    return st;
}

int cuzk_post_verify(bool *valid, const cuzk_groth16_vk *vk, uint64_t registered_proof,
                     const uint8_t proof[CUZK_G16_PROOF_BYTES], const uint8_t randomness[32],
                     const cuzk_post_sector *sectors, size_t n_sectors, uint32_t partition, char *err,
                     size_t err_len)
{
    *valid = false;
    const cuzk_fil_post_info *p;
    if (cuzk_fil_post_lookup(&p, registered_proof))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "unknown registered PoSt proof %llu",
                         (unsigned long long)registered_proof);
    if (!vk || !proof) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "verify: NULL argument");
    size_t need = cuzk_post_num_inputs(p), n = 0;
    if (vk->n_ic != need + 1)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "verifying key has %zu IC points, %s needs %zu",
                         vk->n_ic, p->name, need + 1);
    cuzk_fr *in = malloc(need * sizeof *in);
    if (!in) return CUZK_ERR_NOMEM;
    int st =
        cuzk_post_public_inputs(in, need, &n, p, randomness, sectors, n_sectors, partition, err, err_len);
    if (!st) {
        cuzk_groth16_pvk pvk;
        cuzk_groth16_pvk_prepare(&pvk, vk);
        st = cuzk_groth16_verify(valid, &pvk, proof, in, n, err, err_len);
        if (!st && !*valid) cuzk_errf(err, err_len, CUZK_OK, "proof does not verify for these inputs");
    }
    free(in);
    return st;
}

static int vk_g1(cuzk_g1_affine *r, const uint8_t **b, const char *what, size_t i, char *err, size_t err_len)
{
    int st = cuzk_g1_decompress(r, *b);
    *b += 48;
    if (st) return cuzk_errf(err, err_len, st, "compressed vk: %s[%zu]: %s", what, i, cuzk_strerror(st));
    return CUZK_OK;
}

static int vk_g2(cuzk_g2_affine *r, const uint8_t **b, const char *what, char *err, size_t err_len)
{
    int st = cuzk_g2_decompress(r, *b);
    *b += 96;
    if (st) return cuzk_errf(err, err_len, st, "compressed vk: %s: %s", what, cuzk_strerror(st));
    return CUZK_OK;
}

int cuzk_post_vk_decode_compressed(cuzk_groth16_vk **out, const uint8_t *buf, size_t len, char *err,
                                   size_t err_len)
{
    enum { FIXED = 48 + 48 + 96 + 96 + 48 + 96 };
    *out = NULL;
    if (!buf || len < FIXED + 4)
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_LENGTH, "compressed vk: %zu bytes, too short", len);
    const uint8_t *b = buf + FIXED;
    size_t n_ic = (size_t)b[0] << 24 | (size_t)b[1] << 16 | (size_t)b[2] << 8 | b[3];
    if (n_ic == 0 || (len - FIXED - 4) / 48 != n_ic || (len - FIXED - 4) % 48)
        return cuzk_errf(err, err_len, CUZK_ERR_ENC_LENGTH, "compressed vk: %zu bytes for %zu IC points", len,
                         n_ic);
    cuzk_groth16_vk *vk = calloc(1, sizeof *vk);
    if (vk) vk->ic = malloc(n_ic * sizeof *vk->ic);
    if (!vk || !vk->ic) {
        cuzk_groth16_vk_free(vk);
        return CUZK_ERR_NOMEM;
    }
    vk->n_ic = n_ic;
    b = buf;
    int st = vk_g1(&vk->alpha_g1, &b, "alpha_g1", 0, err, err_len);
    if (!st) st = vk_g1(&vk->beta_g1, &b, "beta_g1", 0, err, err_len);
    if (!st) st = vk_g2(&vk->beta_g2, &b, "beta_g2", err, err_len);
    if (!st) st = vk_g2(&vk->gamma_g2, &b, "gamma_g2", err, err_len);
    if (!st) st = vk_g1(&vk->delta_g1, &b, "delta_g1", 0, err, err_len);
    if (!st) st = vk_g2(&vk->delta_g2, &b, "delta_g2", err, err_len);
    b += 4;
    for (size_t i = 0; !st && i < n_ic; i++)
        st = vk_g1(&vk->ic[i], &b, "ic", i, err, err_len);
    if (st) {
        cuzk_groth16_vk_free(vk);
        return st;
    }
    *out = vk;
    return CUZK_OK;
}
