/* Internal state of cuzk_cs, shared by cs.c (synthesis) and cs_query.c
 * (results).  Not part of the public API. */
#ifndef CUZK_R1CS_CS_INTERNAL_H
#define CUZK_R1CS_CS_INTERNAL_H

#include <stdarg.h>

#include "cuzk/r1cs.h"
#include "cuzk/status.h"

/* Matrix columns are kept as 32-bit values: while synthesizing, aux j is
 * CSR_AUX | j (so the order matches cuzk_var order: inputs first); finish
 * rewrites them into the unified index space. */
#define CSR_AUX 0x80000000u
#define CSR_MAX_INDEX 0x7fffffffu

typedef struct {
    size_t *row_ptr; /* rows + 1 */
    size_t rows_cap;
    uint32_t *col;
    cuzk_fr *val;
    size_t cap;
} cs_matrix;

struct cuzk_cs {
    cuzk_cs_mode mode;
    unsigned flags;
    bool values;     /* assignments are stored */
    bool evals;      /* a, b, c are stored (PROVE) */
    bool structure;  /* density and nonzeros are tracked (PROVE, SHAPE, MATRICES) */
    bool check;      /* constraints are checked (CHECK) */
    bool matrices;   /* CSR kept */
    bool presence;   /* legacy density rule */
    bool names;      /* namespace path kept */
    bool finished;
    int status;
    char msg[256];

    size_t n_inputs, n_aux, n_constraints;
    size_t inputs_cap, aux_cap; /* capacity (variables) of assignments and bitmaps */
    cuzk_fr *inp, *aux;
    uint64_t *d_a_aux, *d_b_aux, *d_b_inp;
    cuzk_fr *ev[3];
    size_t ev_cap;
    size_t nnz[3];
    cs_matrix m[3];

    cuzk_term *scratch; /* merge buffer */
    size_t scratch_cap;

    char *ns;           /* "outer/inner" path when names */
    size_t ns_len, ns_cap;
    size_t *ns_marks;   /* ns_len before each push */
    size_t ns_depth, ns_marks_cap;

    bool unsat;
    size_t unsat_index;
    char *unsat_path;

    cuzk_fr minus_one;

    cuzk_cs_row_fn row_fn; /* cuzk_cs_set_row_observer */
    void *row_ctx;

    /* Parallel synthesis (cs_par.c).  A chunk ("child") numbers its
     * variables and rows from lo_* / row_base on, sees the parent's
     * variables below hdr_* (the header), and writes assignments,
     * evaluations and density into the parent's arrays, whose capacities
     * it is given as its own: reaching one is an error, never a regrowth.
     * Density words outside [dw_lo, dw_lo + dw_n) may be shared with
     * another chunk and are set atomically.  A plain cs has lo = hdr = 0
     * and owns every word. */
    cuzk_par *par;     /* cuzk_cs_set_par */
    size_t par_chunks; /* 0: automatic */
    bool child;
    size_t hdr_inputs, hdr_aux, lo_inputs, lo_aux, row_base;
    size_t dw_lo[2], dw_n[2]; /* [0] inputs, [1] aux */
};

/* Is input / aux index i visible to cs (its own or, for a chunk, the header's)? */
static inline bool cs_var_visible(size_t i, size_t n, size_t lo, size_t hdr)
{
    return i - lo < n - lo || i < hdr;
}

/* Set density bit i of map (side 0 = inputs, 1 = aux words of cs). */
static inline void cs_density_set(const cuzk_cs *cs, uint64_t *map, int side, size_t i)
{
    size_t w = i >> 6;
    uint64_t bit = (uint64_t)1 << (i & 63);
    if (w - cs->dw_lo[side] < cs->dw_n[side]) map[w] |= bit;
    else __atomic_fetch_or(&map[w], bit, __ATOMIC_RELAXED);
}

int cuzk_cs_fail(cuzk_cs *cs, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Grow *p (elements of size elem) so that it holds at least need; new
 * capacity at least doubles.  Zero-fills the new part if zero. */
int cuzk_cs_grow(void **p, size_t *cap, size_t need, size_t elem, bool zero);
/* Capacity of the per-variable arrays of one kind (cs.c). */
int cuzk_cs_grow_vars(cuzk_cs *cs, bool aux, size_t need);
/* Capacity of the evaluations (PROVE) for `rows` constraints (cs.c). */
int cuzk_cs_grow_evals(cuzk_cs *cs, size_t rows);

#endif
