/* PCE file format (version 2), shared by pce_write.c, pce_file.c and
 * pce_eval.c.  Not part of the public API; docs/pce.md describes it.
 *
 *   [0, 512)          header, little-endian fields at the offsets below
 *   records           one per constraint: varint nA, nB, nC, then nA + nB + nC
 *                     entries (u32 LE column: input i = i, aux j =
 *                     PCE_COL_AUX | j; varint coefficient code)
 *   checkpoints       u64 LE byte offset (relative to records) of constraint
 *                     i * PCE_CKPT_EVERY, for every i, then the records' length
 *   dictionary        32-byte canonical LE Fr per entry
 *   density           a_aux (aux bits), b_input (input bits), b_aux (aux
 *                     bits), each as ceil(bits / 64) u64 LE words
 *
 * Coefficient codes: 0 = zero, 1 + 2k = +2^k, 2 + 2k = -2^k (k <= 254),
 * PCE_CODE_DICT + d = dictionary entry d.  Codes below 128 (0, +-2^k for
 * k <= 62) take one varint byte.
 *
 * Integrity: body_sha256 = SHA-256 of every byte after the header;
 * header_sha256 = SHA-256 of header bytes [0, PCE_H_HSHA).
 *
 * Structure: r1cs_digest = SHA-256(PCE_R1CS_TAG, header bytes
 * [PCE_H_CKPT_SHIFT, +4) and [PCE_H_CONSTRAINTS, PCE_H_ID) -- the
 * checkpoint shift and every count --, body_sha256): a function of the
 * matrices as this build records them and of nothing else (not the
 * identity), so cuzk_pce_digest recomputes it from the circuit without a
 * file.  Version 1 files have none: they are stale. */
#ifndef CUZK_R1CS_PCE_INTERNAL_H
#define CUZK_R1CS_PCE_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "cuzk/mapguard.h"
#include "cuzk/pce.h"
#include "cuzk/status.h"

#define PCE_MAGIC "CUZKPCE\0"
#define PCE_HEADER_BYTES 512u
#define PCE_CKPT_SHIFT 10u
#define PCE_CKPT_EVERY ((size_t)1 << PCE_CKPT_SHIFT)
#define PCE_MAX_POW 254u
#define PCE_CODE_DICT (3u + 2u * PCE_MAX_POW) /* 511 */
#define PCE_COL_AUX 0x80000000u
#define PCE_MAX_DICT ((size_t)1 << 30)

/* header field offsets */
enum {
    PCE_H_MAGIC = 0,        /* 8 bytes */
    PCE_H_VERSION = 8,      /* u32 */
    PCE_H_HBYTES = 12,      /* u32 = PCE_HEADER_BYTES */
    PCE_H_KIND = 16,        /* u32 */
    PCE_H_CKPT_SHIFT = 20,  /* u32 */
    PCE_H_PROOF = 24,       /* u64 registered proof */
    PCE_H_CONSTRAINTS = 32, /* u64 x 3: constraints, inputs, aux */
    PCE_H_NNZ = 56,         /* u64 x 3 */
    PCE_H_DICT = 80,        /* u64 dictionary entries */
    PCE_H_REC_LEN = 88,     /* u64 records length (they start at PCE_HEADER_BYTES) */
    PCE_H_FILE_BYTES = 96,  /* u64 total file length */
    PCE_H_DENSITY = 104,    /* u64 x 3 popcounts: a_aux, b_input, b_aux */
    PCE_H_CLASSES = 128,    /* u64 x 4 entry counts: zero, +-1, +-2^k, dictionary */
    PCE_H_ID = 160,         /* CUZK_PCE_ID_MAX + 1 bytes, NUL padded */
    PCE_H_BSHA = 416,       /* 32 bytes */
    PCE_H_R1CS = 448,       /* 32 bytes: r1cs_digest (version 2) */
    PCE_H_HSHA = 480,       /* 32 bytes, the header's last */
};

#define PCE_R1CS_TAG "cuzk PCE R1CS v2"

/* r1cs_digest of a header h whose counts are filled in, and the body's
 * SHA-256 (pce_write.c; pce_file.c checks a file's against it). */
int cuzk_pce_r1cs_digest(uint8_t out[32], const uint8_t *h, const uint8_t body_sha[32]);

static inline void pce_put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
static inline void pce_put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}
static inline uint64_t pce_get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline uint32_t pce_get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* A varint of at most 36 bits from [*pp, end): 0 and *pp moved on, or -1. */
static inline int pce_rd_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    uint64_t x = 0;
    for (unsigned sh = 0; sh <= 35; sh += 7) {
        if (p >= end) return -1;
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) {
            *v = x;
            *pp = p;
            return 0;
        }
    }
    return -1;
}

/* Section layout implied by the counts (all checked against overflow by
 * the caller: pce_layout returns 0 when a size overflows). */
typedef struct {
    uint64_t rec_off, rec_len, ckpt_off, n_ckpt, dict_off, dens_off, file_bytes;
    uint64_t w_aux, w_inp; /* density words */
} pce_layout;

int cuzk_pce_layout_make(pce_layout *l, uint64_t constraints, uint64_t inputs, uint64_t aux, uint64_t dict,
                         uint64_t rec_len);

struct cuzk_pce {
    cuzk_pce_info info;
    char *path;       /* as opened, for the change check and messages */
    cuzk_file_id fid; /* at open: what "changed while in use" compares */
    const uint8_t *map;
    size_t map_len;
    pce_layout lay;
    const uint8_t *rec; /* records */
    uint64_t *ckpt;     /* n_ckpt offsets, validated monotone and in range */
    cuzk_fr *code_val;  /* value of every code, PCE_CODE_DICT + dict entries */
    size_t n_codes;
    const uint8_t *dens; /* density section */
};

/* Every read of p->map runs under cuzk_map_guard_run (cuzk/mapguard.h).
 * pce_file.c: after a guarded read was stopped by a fault, the message
 * that says how the file changed (CUZK_ERR_CHANGED, always). */
int cuzk_pce_fault(const cuzk_pce *p, char *err, size_t err_len);

/* pce_eval.c, for pce_lean.c: a = A z, b = B z, c = C z over every
 * constraint into ev[0..2] (NULL: that matrix is decoded and checked but
 * not summed), with the same bounds checks as cuzk_pce_evaluate; and the
 * file's density maps sized for cs (maps[] malloc'd; CUZK_ERR_NOMEM, or
 * CUZK_ERR_CHANGED when the map cannot be read, with the message). */
int cuzk_pce_matvec(const cuzk_pce *p, const cuzk_fr *inp, const cuzk_fr *aux, cuzk_fr *ev[3], cuzk_par *par,
                    char *err, size_t err_len);
int cuzk_pce_density_for(const cuzk_pce *p, cuzk_cs *cs, uint64_t *maps[3], char *err, size_t err_len);
/* cs takes maps (from cuzk_pce_density_for) and the file's nonzero counts:
 * the structure a PROVE-mode cs tracks. */
void cuzk_pce_set_structure(const cuzk_pce *p, cuzk_cs *cs, uint64_t *maps[3]);

#endif
