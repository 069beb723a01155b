/* The status documents' text buffer and JSON string writer (sbuf.h).
 * Runs that need no escape are appended as one span: a page of 4 k jobs is
 * a few hundred appends, not a vsnprintf per character. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/status.h"
#include "engine/sbuf.h"

bool cuzk_eng_sb_grow(sbuf *b, size_t more)
{
    if (b->oom) return false;
    if (b->len + more < b->cap) return true;
    size_t nc = (b->cap ? b->cap * 2 : 4096) + more;
    char *q = realloc(b->p, nc);
    if (!q) {
        b->oom = true;
        return false;
    }
    b->p = q;
    b->cap = nc;
    return true;
}

/* n bytes of s, kept NUL-terminated. */
void cuzk_eng_sb_put(sbuf *b, const void *s, size_t n)
{
    if (!cuzk_eng_sb_grow(b, n + 1)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void cuzk_eng_sb_printf(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        if (!cuzk_eng_sb_grow(b, 0)) return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        if (!cuzk_eng_sb_grow(b, (size_t)n + 1)) return;
    }
}

/* The UTF-8 sequence that starts with s[0] >= 0x80: its length when it is
 * well formed (RFC 3629: no overlong form, no surrogate, nothing above
 * U+10FFFF), else 0 with *bad = the length of its longest well-formed
 * prefix (>= 1), the bytes one U+FFFD replaces (Unicode's "maximal subpart"
 * rule).  s is NUL-terminated: a NUL is never a continuation byte. */
static size_t utf8_seq(const unsigned char *s, size_t *bad)
{
    unsigned c = s[0], lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80; /* E0 80..9F: overlong */
        hi = c == 0xed ? 0x9f : 0xbf; /* ED A0..BF: surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80; /* F0 80..8F: overlong */
        hi = c == 0xf4 ? 0x8f : 0xbf; /* F4 90..: above U+10FFFF */
    } else {                          /* a lone continuation byte, C0/C1 (overlong), F5..FF */
        *bad = 1;
        return 0;
    }
    for (size_t i = 1; i < n; i++)
        if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf)) {
            *bad = i;
            return 0;
        }
    return n;
}

/* JSON string body (quotes added by the caller): runs of bytes that need
 * no escape are appended as one span. */
void cuzk_eng_sb_json_str(sbuf *b, const char *str)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str, *run = s;
    while (*s) {
        unsigned c = *s;
        size_t n = 0, bad = 0;
        if ((c >= 0x20 && c < 0x80 && c != '"' && c != '\\') || (c >= 0x80 && (n = utf8_seq(s, &bad)))) {
            s += n ? n : 1;
            continue;
        }
        cuzk_eng_sb_put(b, run, (size_t)(s - run));
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            cuzk_eng_sb_put(b, esc, 2);
            s++;
        } else if (c < 0x20) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            cuzk_eng_sb_put(b, esc, 6);
            s++;
        } else {
            cuzk_eng_sb_put(b, "\\ufffd", 6);
            s += bad;
        }
        run = s;
    }
    cuzk_eng_sb_put(b, run, (size_t)(s - run));
}

int cuzk_eng_sb_finish(sbuf *b, char **out, size_t *len)
{
    if (b->oom || !b->p) {
        free(b->p);
        return CUZK_ERR_NOMEM;
    }
    *out = b->p;
    if (len) *len = b->len;
    return CUZK_OK;
}
