/* circom .r1cs / .wtns import (format and wire mapping: cuzk/circom.h).
 *
 * The parser trusts nothing: every count is checked against the bytes that
 * remain before anything is allocated from it, so a corrupt file produces a
 * message naming the field and the offset instead of a huge allocation or
 * an out-of-bounds read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/circom.h"
#include "cuzk/status.h"

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p) { return get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }

typedef struct {
    size_t off, size;
    int present;
} section;

#define MAX_TYPE 5

/* Walk the section table of an iden3 binary file.  sec[t] records the
 * first section of type t (1..MAX_TYPE); duplicates are errors. */
static int scan(const char *what, const uint8_t *buf, size_t len, const char *magic,
                uint32_t version, section sec[MAX_TYPE + 1], char *err, size_t err_len)
{
    memset(sec, 0, sizeof(section) * (MAX_TYPE + 1));
    if (len < 12)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: truncated: %zu bytes, the file header needs 12",
                         what, len);
    if (memcmp(buf, magic, 4))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: bad magic %02x%02x%02x%02x, expected \"%s\"",
                         what, buf[0], buf[1], buf[2], buf[3], magic);
    uint32_t v = get_u32(buf + 4), n = get_u32(buf + 8);
    if (v != version)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "%s: version %u, only version %u is supported",
                         what, v, version);
    size_t off = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (len - off < 12)
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                             "%s: truncated: section %u of %u starts at offset %zu but the file ends at %zu",
                             what, i, n, off, len);
        uint32_t type = get_u32(buf + off);
        uint64_t size = get_u64(buf + off + 4);
        off += 12;
        if (size > len - off)
            return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                             "%s: truncated: section %u (type %u) declares %llu bytes at offset %zu but only "
                             "%zu remain",
                             what, i, type, (unsigned long long)size, off, len - off);
        if (type >= 1 && type <= MAX_TYPE) {
            if (sec[type].present)
                return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: section type %u appears twice", what,
                                 type);
            sec[type] = (section){.off = off, .size = (size_t)size, .present = 1};
        }
        off += (size_t)size;
    }
    if (off != len)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: %zu trailing bytes after the last of %u sections",
                         what, len - off, n);
    return CUZK_OK;
}

/* Field header shared by both formats: u32 n8 then the prime. */
static int check_prime(const char *what, const uint8_t *p, size_t avail, uint32_t *n8_out, char *err,
                       size_t err_len)
{
    if (avail < 4)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: header section too short (%zu bytes)", what,
                         avail);
    uint32_t n8 = get_u32(p);
    if (n8 == 0 || n8 > 64 || n8 % 8)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: field size n8 = %u bytes is not valid", what, n8);
    if (avail - 4 < n8)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: header truncated inside the %u-byte prime", what,
                         n8);
    uint8_t r[32];
    for (int i = 0; i < 32; i++) r[i] = (uint8_t)(CUZK_FR_MODULUS[i / 8] >> (8 * (i % 8)));
    if (n8 != 32 || memcmp(p + 4, r, 32)) {
        char hex[2 * 64 + 1];
        for (uint32_t i = 0; i < n8; i++) snprintf(hex + 2 * i, 3, "%02x", p[4 + n8 - 1 - i]);
        const char *name = "";
        if (!strcmp(hex, "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001"))
            name = " (bn128 / BN254 scalar field)";
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "%s: field prime is 0x%s%s; only the BLS12-381 scalar field r = 0x73eda753..."
                         "00000001 is supported (compile with circom --prime bls12381)",
                         what, hex, name);
    }
    *n8_out = n8;
    return CUZK_OK;
}

void cuzk_circom_free(cuzk_circom *c)
{
    if (!c) return;
    free(c->lc);
    free(c->terms);
    free(c->witness);
    free(c);
}

static int parse_constraints(cuzk_circom *c, const uint8_t *p, size_t size, char *err, size_t err_len)
{
    const char *what = "r1cs";
    const size_t term_bytes = 4 + 32;
    if ((uint64_t)c->n_constraints * 12 > size)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: header declares %u constraints but the constraints section has only %zu bytes "
                         "(at least 12 per constraint)",
                         what, c->n_constraints, size);
    size_t max_terms = size / term_bytes;
    c->lc = malloc((3 * (size_t)c->n_constraints + 1) * sizeof *c->lc);
    c->terms = malloc((max_terms ? max_terms : 1) * sizeof *c->terms);
    if (!c->lc || !c->terms)
        return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: cannot allocate %u constraints", what,
                         c->n_constraints);
    uint32_t npub = c->n_pub_out + c->n_pub_in;
    size_t off = 0, nt = 0;
    for (size_t i = 0; i < c->n_constraints; i++) {
        for (int k = 0; k < 3; k++) {
            c->lc[3 * i + k] = nt;
            if (size - off < 4)
                return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                                 "%s: constraints section truncated at constraint %zu side %c", what, i,
                                 "ABC"[k]);
            uint32_t n = get_u32(p + off);
            off += 4;
            if (n > (size - off) / term_bytes)
                return cuzk_errf(
                    err, err_len, CUZK_ERR_FORMAT,
                    "%s: constraint %zu side %c declares %u terms but only %zu bytes remain in the "
                    "constraints section",
                    what, i, "ABC"[k], n, size - off);
            for (uint32_t j = 0; j < n; j++, off += term_bytes) {
                uint32_t w = get_u32(p + off);
                if (w >= c->n_wires)
                    return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                                     "%s: constraint %zu side %c term %u uses wire %u but there are %u wires",
                                     what, i, "ABC"[k], j, w, c -> n_wires);
                cuzk_term *t = &c->terms[nt++];
                t->var = w <= npub ? (cuzk_var)w : CUZK_VAR_AUX | (cuzk_var)(w - npub - 1);
                if (cuzk_fr_from_bytes_le(&t->coeff, p + off + 4) != CUZK_OK)
                    return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL,
                                     "%s: constraint %zu side %c term %u: coefficient is not below r", what,
                                     i, "ABC"[k], j);
            }
        }
    }
    c->lc[3 * (size_t)c->n_constraints] = nt;
    c->n_terms = nt;
    if (off != size)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: %zu bytes left in the constraints section after constraint %u", what,
                         size - off, c->n_constraints);
    return CUZK_OK;
}

int cuzk_circom_r1cs_parse(cuzk_circom **out, const uint8_t *buf, size_t len, char *err, size_t err_len)
{
    const char *what = "r1cs";
    if (!out || (!buf && len)) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: NULL argument", what);
    *out = NULL;
    section sec[MAX_TYPE + 1];
    int rc = scan(what, buf, len, "r1cs", 1, sec, err, err_len);
    if (rc) return rc;
    if (sec[4].present || sec[5].present)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED,
                         "%s: custom gates (PLONK sections 4/5) are not supported", what);
    if (!sec[1].present)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: no header section (type 1)", what);
    if (!sec[2].present)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: no constraints section (type 2)", what);
    const uint8_t *h = buf + sec[1].off;
    uint32_t n8;
    if ((rc = check_prime(what, h, sec[1].size, &n8, err, err_len))) return rc;
    if (sec[1].size != (size_t)n8 + 32)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: header section is %zu bytes, expected %u", what,
                         sec[1].size, n8 + 32);
    cuzk_circom *c = calloc(1, sizeof *c);
    if (!c) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory", what);
    h += 4 + n8;
    c->n_wires = get_u32(h);
    c->n_pub_out = get_u32(h + 4);
    c->n_pub_in = get_u32(h + 8);
    c->n_prv_in = get_u32(h + 12);
    c->n_labels = get_u64(h + 16);
    c->n_constraints = get_u32(h + 24);
    if (c->n_wires == 0 ||
        1 + (uint64_t)c->n_pub_out + c->n_pub_in + c->n_prv_in > c->n_wires) {
        rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                       "%s: header: %u wires cannot hold ONE + %u outputs + %u public + %u private inputs",
                       what, c->n_wires, c->n_pub_out, c->n_pub_in, c->n_prv_in);
        goto out;
    }
    if (c->n_labels < c->n_wires) {
        rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: header: %llu labels for %u wires", what,
                       (unsigned long long)c->n_labels, c->n_wires);
        goto out;
    }
    if (sec[3].present) {
        if (sec[3].size != (size_t)c->n_wires * 8) {
            rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                           "%s: wire-to-label section is %zu bytes, expected %u x 8", what, sec[3].size,
                           c->n_wires);
            goto out;
        }
        for (uint32_t w = 0; w < c->n_wires; w++) {
            uint64_t l = get_u64(buf + sec[3].off + 8 * (size_t)w);
            if (l >= c->n_labels) {
                rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                               "%s: wire %u maps to label %llu but there are %llu labels", what, w,
                               (unsigned long long)l, (unsigned long long)c->n_labels);
                goto out;
            }
        }
    }
    rc = parse_constraints(c, buf + sec[2].off, sec[2].size, err, err_len);
out:
    if (rc) cuzk_circom_free(c);
    else *out = c;
    return rc;
}

int cuzk_circom_wtns_parse(cuzk_circom *c, const uint8_t *buf, size_t len, char *err, size_t err_len)
{
    const char *what = "wtns";
    if (!c || (!buf && len)) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: NULL argument", what);
    section sec[MAX_TYPE + 1];
    int rc = scan(what, buf, len, "wtns", 2, sec, err, err_len);
    if (rc) return rc;
    if (!sec[1].present)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: no header section (type 1)", what);
    if (!sec[2].present)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: no values section (type 2)", what);
    uint32_t n8;
    if ((rc = check_prime(what, buf + sec[1].off, sec[1].size, &n8, err, err_len))) return rc;
    if (sec[1].size != (size_t)n8 + 8)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: header section is %zu bytes, expected %u", what,
                         sec[1].size, n8 + 8);
    uint32_t n = get_u32(buf + sec[1].off + 4 + n8);
    if (sec[2].size != (size_t)n * n8)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                         "%s: values section is %zu bytes, expected %u values x %u", what, sec[2].size, n,
                         n8);
    if (n != c->n_wires)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: %u values but the r1cs has %u wires", what, n,
                         c->n_wires);
    cuzk_fr *w = malloc((n ? n : 1) * sizeof *w);
    if (!w) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: cannot allocate %u values", what, n);
    for (uint32_t i = 0; i < n; i++) {
        if (cuzk_fr_from_bytes_le(&w[i], buf + sec[2].off + (size_t)i * n8) != CUZK_OK) {
            free(w);
            return cuzk_errf(err, err_len, CUZK_ERR_ENC_NONCANONICAL, "%s: value %u is not below r", what, i);
        }
    }
    if (!cuzk_fr_is_one(&w[0])) {
        free(w);
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: value 0 (wire ONE) is not 1", what);
    }
    free(c->witness);
    c->witness = w;
    return CUZK_OK;
}

static uint8_t *read_all(const char *path, size_t *len, int *rc, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *rc = cuzk_errf(err, err_len, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (!buf)
        *rc = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s: out of memory reading the file", path);
    else if (ferror(f)) {
        *rc = cuzk_errf(err, err_len, CUZK_ERR_IO, "%s: read error: %s", path, strerror(errno));
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Prefix a parser message with the file path. */
static void prefix_path(const char *path, char *err, size_t err_len)
{
    if (!err || !err_len) return;
    size_t pl = strlen(path), el = strlen(err);
    if (pl + 2 + el + 1 > err_len) return;
    memmove(err + pl + 2, err, el + 1);
    memcpy(err, path, pl);
    err[pl] = ':';
    err[pl + 1] = ' ';
}

int cuzk_circom_r1cs_load(cuzk_circom **out, const char *path, char *err, size_t err_len)
{
    size_t len;
    int rc = CUZK_OK;
    if (!out || !path) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "r1cs: NULL argument");
    *out = NULL;
    uint8_t *buf = read_all(path, &len, &rc, err, err_len);
    if (!buf) return rc;
    rc = cuzk_circom_r1cs_parse(out, buf, len, err, err_len);
    free(buf);
    if (rc) prefix_path(path, err, err_len);
    return rc;
}

int cuzk_circom_wtns_load(cuzk_circom *c, const char *path, char *err, size_t err_len)
{
    size_t len;
    int rc = CUZK_OK;
    if (!c || !path) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "wtns: NULL argument");
    uint8_t *buf = read_all(path, &len, &rc, err, err_len);
    if (!buf) return rc;
    rc = cuzk_circom_wtns_parse(c, buf, len, err, err_len);
    free(buf);
    if (rc) prefix_path(path, err, err_len);
    return rc;
}

int cuzk_circom_circuit(cuzk_cs *cs, void *ctx)
{
    const cuzk_circom *c = ctx;
    if (!c) return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "circom: no circuit");
    bool values = cuzk_cs_needs_values(cs);
    if (values && !c->witness)
        return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "circom: this mode needs values but no .wtns is attached");
    size_t npub = (size_t)c->n_pub_out + c->n_pub_in, naux = c->n_wires - npub - 1;
    int rc = cuzk_cs_reserve(cs, c->n_constraints + npub + 1, npub + 1, naux);
    if (rc) return rc;
    for (size_t w = 1; w < c->n_wires; w++) {
        cuzk_var v;
        const cuzk_fr *val = values ? &c->witness[w] : NULL;
        rc = w <= npub ? cuzk_cs_alloc_input(cs, &v, val) : cuzk_cs_alloc(cs, &v, val);
        if (rc) return rc;
        cuzk_var want = w <= npub ? (cuzk_var)w : CUZK_VAR_AUX | (cuzk_var)(w - npub - 1);
        if (v != want)
            return cuzk_cs_set_error(cs, CUZK_ERR_ARG, "circom: circuit must run on a fresh cs (wire %zu)", w);
    }
    const size_t *lc = c->lc;
    for (size_t i = 0; i < c->n_constraints; i++, lc += 3) {
        rc = cuzk_cs_enforce(cs, c->terms + lc[0], lc[1] - lc[0], c->terms + lc[1], lc[2] - lc[1],
                             c->terms + lc[2], lc[3] - lc[2]);
        if (rc) return rc;
    }
    return CUZK_OK;
}
