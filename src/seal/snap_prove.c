/* The layout of one SnapDeals PartitionProof (prove_inner): the apex leaves
 * of partition k and, for each of its challenges, proof_r_old, proof_d_new
 * and proof_r_new, all in one allocation that the proof owns.  The trees
 * are opened through a cuzk_snap_opener (snap_internal.h): the dense
 * updater's trees in memory or the sparse generator's periodic ones. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/seal_snap.h"
#include "cuzk/status.h"
#include "seal/snap_internal.h"

#define SNAP_MAX_CHALLENGES 256

static size_t snap_align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

int cuzk_snap_partition_assemble(cuzk_snap_partition_proof **out, const cuzk_snap_shape *s,
                                 const uint8_t comm_c[32], const uint8_t comm_r_new[32], uint32_t k,
                                 const cuzk_snap_opener *o, char *err, size_t err_len)
{
    *out = NULL;
    uint32_t ch[SNAP_MAX_CHALLENGES];
    if (s->challenges > SNAP_MAX_CHALLENGES || (o->r_storage & 7))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "snap prove: too many challenges");
    int st = cuzk_snap_challenges(ch, SNAP_MAX_CHALLENGES, s, comm_r_new, k, err, err_len);
    if (st) return st;
    size_t head = snap_align8(sizeof(cuzk_snap_partition_proof));
    size_t chs = snap_align8((size_t)s->challenges * sizeof(cuzk_snap_challenge_proof));
    size_t per = 2 * o->r_storage + (size_t)s->challenge_bits * 40, apex = 32 * (size_t)s->apex_leaves;
    uint8_t *mem = malloc(head + chs + (size_t)s->challenges * per + apex);
    if (!mem) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "snap prove: out of memory");
    cuzk_snap_partition_proof *p = (cuzk_snap_partition_proof *)mem;
    cuzk_snap_challenge_proof *cp = (cuzk_snap_challenge_proof *)(mem + head);
    uint8_t *store = mem + head + chs, *apex_leafs = store + (size_t)s->challenges * per;
    memset(p, 0, sizeof *p);
    p->mem = mem;
    memcpy(p->comm_c, comm_c, 32);
    p->n_apex = s->apex_leaves;
    p->apex_leafs = apex_leafs;
    p->n_challenges = s->challenges;
    p->challenges = cp;
    st = o->apex(o, apex_leafs, k);
    uint32_t i = 0;
    for (; i < s->challenges && !st; i++)
        st = o->open(o, &cp[i], store + (size_t)i * per, ch[i]);
    if (st) {
        free(mem);
        if (i == 0) return cuzk_errf(err, err_len, st, "snap prove: apex leaves: %s", cuzk_strerror(st));
        return cuzk_errf(err, err_len, st, "snap prove: challenge %u (node %u): %s", i - 1, ch[i - 1],
                         cuzk_strerror(st));
    }
    *out = p;
    return CUZK_OK;
}
