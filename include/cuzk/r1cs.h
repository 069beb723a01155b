/* Rank-1 constraint system with bellperson semantics.
 *
 * A circuit is one C function, int circuit(cuzk_cs *cs, void *ctx), that
 * allocates variables and enforces constraints <A_i,z> * <B_i,z> = <C_i,z>.
 * The same function runs in every synthesis mode; the mode is fixed when
 * the cs is created:
 *
 *   CUZK_CS_PROVE    assignments, per-constraint evaluations a, b, c and the
 *                    density bitmaps: what the Groth16 prover consumes.
 *   CUZK_CS_WITNESS  assignments only.
 *   CUZK_CS_SHAPE    no values at all: counts, per-matrix nonzeros and
 *                    density popcounts, in O(#variables / 8) memory.
 *   CUZK_CS_CHECK    assignments; evaluates every constraint and records the
 *                    first unsatisfied one (index and namespace path).
 * Flag CUZK_CS_MATRICES (any mode) also keeps A, B, C as CSR matrices.
 *
 * Variables (bellperson numbering, filecoin-formats.md section 1):
 *  - inputs are numbered in alloc_input order; input 0 is ONE, allocated by
 *    cuzk_cs_new;  aux variables are numbered in alloc order;
 *  - a cuzk_var encodes input i as the integer i and aux j as
 *    CUZK_VAR_AUX | j, so CUZK_ONE == 0 and sorting cuzk_var values puts
 *    inputs before aux;
 *  - the CSR export uses ONE index space: input i -> column i,
 *    aux j -> column num_inputs + j (the same numbering as circom wires for
 *    imported circuits, see circom.h).
 *
 * Linear combinations: terms (variable, Fr coefficient).  Duplicate
 * variables inside one A, B or C are merged (coefficients summed), as
 * bellperson's LinearCombination does; a merged term whose coefficient is
 * zero stays in the CSR export (it is a structural entry and is counted in
 * the nonzeros).  They are passed as caller-built term arrays (usually on
 * the stack or in a buffer the gadget reuses): enforce copies nothing and
 * allocates nothing.  A builder API with cs-owned recycled term buffers was
 * measured against this and cost 5-7 % more (docs/perf-notes.md,
 * "Constraint system").
 *
 * Density (what the Groth16 A and B MSMs skip): a_aux bit j is set iff aux
 * j has a nonzero merged coefficient in A of some constraint; b_input and
 * b_aux likewise for B.  This is what bellperson >= 0.26 computes (PR #307,
 * "backport of zkcrypto fix for Zero coefficient bug": the prover skips
 * zero coefficients) and what the parameters encode (the generator drops
 * the identity points of variables whose A or B column vanishes, so a
 * zero-only variable has no base in the SRS).  bellperson <= 0.25 marked a
 * variable present even when its coefficient summed to zero, which made
 * such circuits fail with "expected more bases from source"; flag
 * CUZK_CS_DENSITY_PRESENCE selects that old rule (for comparisons only).
 * Inputs are always A-dense: after the circuit, cuzk_cs_finish appends one
 * constraint per input, input_i * 0 = 0 (only A non-empty).
 *
 * Errors are sticky: the first failing call (unknown variable, missing
 * value, allocation failure) records a status and a message
 * (cuzk_cs_error) and every later call returns that status, so a circuit
 * may check only at the end.  So the builder calls (reserve, alloc,
 * alloc_input, alloc_bits, skip_constraints, enforce, push_namespace) are
 * not CUZK_MUST_CHECK: their status is for an early exit, and a dropped one
 * is not lost (cuzk_cs_finish, cuzk_cs_synthesize and cuzk_cs_status
 * return it).  Every other fallible call here is.  All counts are size_t.  Not thread safe: one
 * cs per thread -- except that cuzk_cs_synthesize_items spreads a circuit's
 * repeated items over the threads of a caller's cuzk_par (see there). */
#ifndef CUZK_R1CS_H
#define CUZK_R1CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff.h"
#include "cuzk/par.h"
#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t cuzk_var;
#define CUZK_VAR_AUX ((cuzk_var)1 << 63)
#define CUZK_ONE ((cuzk_var)0)
#define CUZK_VAR_IS_AUX(v) (((v) & CUZK_VAR_AUX) != 0)
#define CUZK_VAR_INDEX(v) ((size_t)((v) & ~CUZK_VAR_AUX))

typedef struct {
    cuzk_var var;
    cuzk_fr coeff;
} cuzk_term;

typedef enum {
    CUZK_CS_PROVE = 0,
    CUZK_CS_WITNESS = 1,
    CUZK_CS_SHAPE = 2,
    CUZK_CS_CHECK = 3,
} cuzk_cs_mode;

#define CUZK_CS_MATRICES 1u          /* keep A, B, C as CSR */
#define CUZK_CS_DENSITY_PRESENCE 2u  /* legacy density rule, see above */
#define CUZK_CS_NAMES 4u             /* keep namespace paths (CHECK mode) */

typedef struct cuzk_cs cuzk_cs;
typedef int (*cuzk_circuit_fn)(cuzk_cs *cs, void *ctx);

/* Create an empty system in `mode` with `flags`; ONE (input 0) is allocated
 * with value 1.  Returns CUZK_OK, CUZK_ERR_ARG or CUZK_ERR_NOMEM. */
CUZK_MUST_CHECK int cuzk_cs_new(cuzk_cs **cs, cuzk_cs_mode mode, unsigned flags);
void cuzk_cs_free(cuzk_cs *cs);
/* Partition buffers (src/r1cs/cs_buffers.c): the aux assignment (aux_cap
 * elements) and the three evaluation vectors (ev_cap elements each, all
 * three or none), lent to a cs so that a caller can reuse the same,
 * already faulted memory for partition after partition instead of fresh
 * pages each time.  give: to a cs just made by cuzk_cs_new (nothing but ONE
 * allocated; CUZK_ERR_ARG otherwise); the cs takes the buffers that are
 * larger than its own (b's entries it took become NULL) and grows them as
 * usual if the circuit needs more.  cuzk_pce_evaluate then writes into the
 * evaluation vectors instead of allocating (when they hold the constraint
 * count).  take: moves the cs's aux assignment and evaluations (possibly
 * regrown, or still the ones given) out into b for the next partition;
 * the cs may then only be freed.  Values are left as they are (garbage to
 * the next user: every element is written before it is read). */
typedef struct {
    cuzk_fr *aux;
    size_t aux_cap;
    cuzk_fr *ev[3];
    size_t ev_cap;
} cuzk_cs_buffers;
CUZK_MUST_CHECK int cuzk_cs_give_buffers(cuzk_cs *cs, cuzk_cs_buffers *b);
void cuzk_cs_take_buffers(cuzk_cs *cs, cuzk_cs_buffers *b);
void cuzk_cs_buffers_free(cuzk_cs_buffers *b);
/* Optional capacity hints (avoid regrowth); never required. */
int cuzk_cs_reserve(cuzk_cs *cs, size_t constraints, size_t inputs, size_t aux);

cuzk_cs_mode cuzk_cs_get_mode(const cuzk_cs *cs);
/* True in PROVE, WITNESS and CHECK: alloc needs a value.  In SHAPE a circuit
 * may skip witness computation and pass value = NULL. */
bool cuzk_cs_needs_values(const cuzk_cs *cs);

/* Allocate an aux / input variable.  value may be NULL only when
 * !cuzk_cs_needs_values(cs). */
int cuzk_cs_alloc(cuzk_cs *cs, cuzk_var *var, const cuzk_fr *value);
int cuzk_cs_alloc_input(cuzk_cs *cs, cuzk_var *var, const cuzk_fr *value);
/* Witness fast paths (src/r1cs/cs_bulk.c).  records_constraints: true
 * when enforce must see each constraint (PROVE, SHAPE, CHECK, matrices, a
 * row observer); false in plain WITNESS mode, where a gadget may compute
 * its witness natively and use the two bulk calls, which fail with
 * CUZK_ERR_ARG in any other mode.  alloc_bits: n aux variables holding bit
 * i of bits[i / 64] (0 or 1), consecutive from *first (a system without
 * values -- parallel synthesis's count-only pilot -- only counts them and
 * bits may be NULL).  skip_constraints:
 * count n constraints the gadget satisfies by construction instead of
 * enforcing them. */
bool cuzk_cs_records_constraints(const cuzk_cs *cs);
int cuzk_cs_alloc_bits(cuzk_cs *cs, cuzk_var *first, const uint64_t *bits, size_t n);
int cuzk_cs_skip_constraints(cuzk_cs *cs, size_t n);
/* Value of a variable, or NULL in SHAPE mode or for an unknown variable.
 * The pointer is invalidated by the next alloc. */
const cuzk_fr *cuzk_cs_value(const cuzk_cs *cs, cuzk_var var);

/* Enforce (sum a) * (sum b) = (sum c) from caller-built term arrays. */
int cuzk_cs_enforce(cuzk_cs *cs, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                    const cuzk_term *c, size_t nc);

/* Sides of a constraint, for cuzk_cs_eval and cuzk_cs_matrix. */
enum { CUZK_LC_A = 0, CUZK_LC_B = 1, CUZK_LC_C = 2 };

/* Row observer, for recording the R1CS as it is built (the pre-compiled
 * constraint evaluator streams it to a file this way instead of keeping
 * CUZK_CS_MATRICES in memory).  fn is called once per side (CUZK_LC_A, B, C,
 * in that order) of every constraint, in constraint order, the input
 * constraints of cuzk_cs_finish included, with exactly the entries the CSR
 * export would hold: duplicates merged (a merged zero coefficient kept),
 * sorted by cuzk_var (inputs first; aux keep their cuzk_var encoding, not the
 * unified column).  t is valid only during the call.  Needs a mode that
 * tracks structure (PROVE, SHAPE, or CUZK_CS_MATRICES) and must be set
 * before the first enforce; a non-zero return becomes the sticky error. */
typedef int (*cuzk_cs_row_fn)(void *ctx, size_t row, int side, const cuzk_term *t, size_t n);
CUZK_MUST_CHECK int cuzk_cs_set_row_observer(cuzk_cs *cs, cuzk_cs_row_fn fn, void *ctx);

/* Namespaces: accepted in every mode; kept (for error messages) only with
 * CUZK_CS_NAMES in CHECK mode.  The name is copied. */
int cuzk_cs_push_namespace(cuzk_cs *cs, const char *name);
void cuzk_cs_pop_namespace(cuzk_cs *cs);

/* Append the per-input constraints and close the system (later alloc or
 * enforce is CUZK_ERR_ARG).  Idempotent. */
CUZK_MUST_CHECK int cuzk_cs_finish(cuzk_cs *cs);
/* fn(cs, ctx), then cuzk_cs_finish.  Returns the first error. */
CUZK_MUST_CHECK int cuzk_cs_synthesize(cuzk_cs *cs, cuzk_circuit_fn fn, void *ctx);

/* ---- repeated items, synthesized in parallel ---------------------------- */
/* Filecoin circuits are a header followed by n items of one shape (PoRep
 * and SnapDeals challenges, PoSt sectors).  A circuit synthesizes its items
 * with cuzk_cs_synthesize_items.  Without cuzk_cs_set_par that is exactly
 *   scratch = scratch_new(ctx); item(cs, ctx, scratch, i) for i = 0..n-1
 *   (stopping at the first error); scratch_free(scratch).
 * With a cuzk_par, the items are cut into chunks synthesized concurrently
 * into the cs; the result is bit-identical to the sequential one: variable
 * numbering, rows, assignments, evaluations, density, nonzeros, CSR, the
 * first unsatisfied row (CHECK), and the error (the sticky error of the
 * first failing item in item order, with its message).  What a circuit
 * must guarantee (checked where it can be: an error, never a wrong R1CS):
 *  - every item allocates the same numbers of inputs and aux and enforces
 *    the same number of constraints (the counts of item 0 -- run once
 *    more, in a count-only system, to learn them -- decide each chunk's
 *    numbering);
 *  - item i refers only to its own variables and to those allocated before
 *    the call (the header), never to another item's;
 *  - item and scratch_new are thread safe: ctx is shared and read-only,
 *    each thread has its own scratch, and whatever they call (a witness
 *    provider) may run on several threads at once.
 * The row observer is not available in parallel synthesis (set_par and
 * set_row_observer refuse each other): PCE recording runs sequentially. */
typedef struct {
    size_t n;
    int (*item)(cuzk_cs *cs, void *ctx, void *scratch, size_t i);
    void *(*scratch_new)(void *ctx);     /* NULL: scratch is NULL; NULL return = no memory */
    void (*scratch_free)(void *scratch); /* may be NULL */
    void *ctx;
    const char *what; /* names an item in messages ("porep challenge") */
} cuzk_cs_items;

/* Let cuzk_cs_synthesize_items use par (NULL: sequential, the default).
 * chunks: how many chunks to cut the items into (0: 4 per thread of par;
 * clipped to n); a par of one thread with chunks >= 2 still takes the
 * chunked path, in order (tests).  CUZK_ERR_ARG with a row observer. */
CUZK_MUST_CHECK int cuzk_cs_set_par(cuzk_cs *cs, cuzk_par *par, size_t chunks);
/* Synthesize items as described above; returns the sticky status. */
CUZK_MUST_CHECK int cuzk_cs_synthesize_items(cuzk_cs *cs, const cuzk_cs_items *items);

/* Sticky status and its message ("" when CUZK_OK). */
CUZK_MUST_CHECK int cuzk_cs_status(const cuzk_cs *cs);
const char *cuzk_cs_error(const cuzk_cs *cs);
/* For circuits and gadgets: record status (non-zero) with a printf-style
 * message unless an error is already recorded; returns the sticky status
 * (not CUZK_MUST_CHECK: like cuzk_errf, the status stays in the system). */
int cuzk_cs_set_error(cuzk_cs *cs, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- results ------------------------------------------------------------ */
/* Nonzeros and density are tracked in PROVE and SHAPE modes and whenever
 * CUZK_CS_MATRICES is set; in WITNESS and CHECK modes without it they are 0. */
typedef struct {
    size_t constraints;       /* including the appended input constraints */
    size_t inputs;            /* including ONE */
    size_t aux;
    size_t nnz_a, nnz_b, nnz_c;  /* merged terms per matrix (incl. input rows) */
    size_t a_aux_density, b_input_density, b_aux_density; /* popcounts */
} cuzk_cs_counts;
void cuzk_cs_get_counts(const cuzk_cs *cs, cuzk_cs_counts *out);

/* CHECK mode after finish: true if every constraint held.  Otherwise
 * *index is the first failing constraint and the path (may be "") names
 * its namespace. */
bool cuzk_cs_is_satisfied(const cuzk_cs *cs, size_t *index, const char **path);

/* Assignments (NULL in SHAPE mode).  Valid until cuzk_cs_free. */
const cuzk_fr *cuzk_cs_input_assignment(const cuzk_cs *cs);
const cuzk_fr *cuzk_cs_aux_assignment(const cuzk_cs *cs);
/* PROVE mode: evaluations, one per constraint (NULL otherwise or after take). */
const cuzk_fr *cuzk_cs_eval(const cuzk_cs *cs, int which);
/* PROVE mode: hand the a, b, c arrays (malloc'd, length = constraints) to
 * the caller, who frees them with free(); the cs no longer owns them. */
CUZK_MUST_CHECK int cuzk_cs_take_evals(cuzk_cs *cs, cuzk_fr **a, cuzk_fr **b, cuzk_fr **c);
/* Density bitmaps (PROVE and SHAPE modes): bit i of word i / 64. */
const uint64_t *cuzk_cs_density_a_aux(const cuzk_cs *cs);
const uint64_t *cuzk_cs_density_b_input(const cuzk_cs *cs);
const uint64_t *cuzk_cs_density_b_aux(const cuzk_cs *cs);

/* CSR export (flag CUZK_CS_MATRICES, after finish).  Row r's entries are
 * col[row_ptr[r] .. row_ptr[r+1]), sorted by column, one per distinct
 * variable, in the unified index space described above. */
typedef struct {
    size_t rows, cols, nnz;
    const size_t *row_ptr;   /* rows + 1 entries */
    const uint32_t *col;
    const cuzk_fr *val;
} cuzk_csr;
CUZK_MUST_CHECK int cuzk_cs_matrix(const cuzk_cs *cs, int which, cuzk_csr *out);

/* ---- built-in circuits -------------------------------------------------- */
/* chain: x_{i+1} = x_i^2 + 7 for i < n, x_0 = x0 private (aux 0), x_n public
 * (input 1), x_1..x_{n-1} aux 1..n-1.  Constraint i is circom's arrangement
 * of the same statement (snarkjs anchor chain.circom.tmpl compiled by
 * circom 2.2): A = -1*x_i, B = x_i, C = 7*ONE - x_{i+1}.  So the import of
 * that circuit and this one have identical CSR matrices. n >= 1. */
typedef struct {
    size_t n;
    cuzk_fr x0;
} cuzk_chain_ctx;
CUZK_MUST_CHECK int cuzk_chain_circuit(cuzk_cs *cs, void *ctx);
/* The public output x_n for x0 (slow reference: n squarings). */
void cuzk_chain_output(cuzk_fr *out, const cuzk_fr *x0, size_t n);

#ifdef __cplusplus
}
#endif
#endif
