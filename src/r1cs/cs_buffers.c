/* Buffers a cs borrows instead of allocating its own (cuzk_cs_give_buffers,
 * cuzk_cs_take_buffers): the aux assignment and the three evaluation
 * vectors, which at 32 GiB are 4.2 GB each.  Freshly allocated, every 4 KiB
 * page of them is first-touched by the synthesis or the mat-vec (a fault of
 * ~2.8 us on the VMs here: 72 of the 80 cpu-s of a 32 GiB PoRep partition
 * went to the kernel); handed the same memory again, partition after
 * partition, they cost nothing (docs/perf-notes.md "Partition buffers").
 * The caller owns the pool: which buffers, how many, when to drop them. */
#include <stdlib.h>
#include <string.h>

#include "r1cs/cs_internal.h"

int cuzk_cs_give_buffers(cuzk_cs *cs, cuzk_cs_buffers *b)
{
    if (!cs || !b) return CUZK_ERR_ARG;
    if (cs->status) return cs->status;
    if (cs->n_aux || cs->n_constraints || cs->child || cs->finished)
        return cuzk_cs_fail(cs, CUZK_ERR_ARG, "give_buffers: only to a new, empty system");
    size_t aux_cap = b->aux ? b->aux_cap & ~(size_t)63 : 0; /* bitmaps are whole words */
    if (b->aux && aux_cap > cs->aux_cap) {
        if (cs->structure) { /* density maps sized like the assignment (zeroed) */
            uint64_t *m0 = calloc(aux_cap / 64, 8), *m1 = calloc(aux_cap / 64, 8);
            if (!m0 || !m1) {
                free(m0);
                free(m1);
                return cuzk_cs_fail(cs, CUZK_ERR_NOMEM, "give_buffers: density maps for %zu aux", aux_cap);
            }
            free(cs->d_a_aux);
            free(cs->d_b_aux);
            cs->d_a_aux = m0;
            cs->d_b_aux = m1;
        }
        free(cs->aux);
        cs->aux = b->aux;
        cs->aux_cap = aux_cap;
        b->aux = NULL;
        b->aux_cap = 0;
    }
    bool ev = b->ev[0] && b->ev[1] && b->ev[2];
    if (ev && b->ev_cap > cs->ev_cap) {
        for (int k = 0; k < 3; k++) {
            free(cs->ev[k]);
            cs->ev[k] = b->ev[k];
            b->ev[k] = NULL;
        }
        cs->ev_cap = b->ev_cap;
        b->ev_cap = 0;
    }
    return CUZK_OK;
}

void cuzk_cs_take_buffers(cuzk_cs *cs, cuzk_cs_buffers *b)
{
    memset(b, 0, sizeof *b);
    if (!cs) return;
    b->aux = cs->aux;
    b->aux_cap = cs->aux_cap;
    cs->aux = NULL;
    cs->aux_cap = 0;
    if (cs->ev[0] && cs->ev[1] && cs->ev[2]) {
        for (int k = 0; k < 3; k++) {
            b->ev[k] = cs->ev[k];
            cs->ev[k] = NULL;
        }
        b->ev_cap = cs->ev_cap;
        cs->ev_cap = 0;
    }
    cs->status = cs->status ? cs->status : CUZK_ERR_ARG; /* nothing but free from here */
}

void cuzk_cs_buffers_free(cuzk_cs_buffers *b)
{
    free(b->aux);
    for (int k = 0; k < 3; k++)
        free(b->ev[k]);
    memset(b, 0, sizeof *b);
}
