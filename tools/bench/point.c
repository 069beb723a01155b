/* `cuzk-bench point (--g1|--g2) HEX`: decode a compressed or uncompressed
 * zcash point, fully checked (flags, canonical, on curve, subgroup). */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cuzk/ec.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void print_fp(const char *label, const cuzk_fp *a)
{
    uint8_t b[48];
    cuzk_fp_to_bytes_be(b, a);
    printf("%s=", label);
    for (int i = 0; i < 48; i++) printf("%02x", b[i]);
    printf("\n");
}

int cmd_point(int argc, char **argv)
{
    int group = 0;
    const char *hex = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--g1") || !strcmp(argv[i], "--g2")) {
            int g = argv[i][3] - '0';
            group = group == 0 ? g : -1; /* exactly one group flag */
        }
        else if (!hex) hex = argv[i];
        else group = -1;
    }
    if (group <= 0 || !hex) {
        fprintf(stderr, "usage: cuzk-bench point (--g1|--g2) HEX\n");
        return 2;
    }
    if (!strncmp(hex, "0x", 2) || !strncmp(hex, "0X", 2)) hex += 2;
    size_t hl = strlen(hex);
    uint8_t buf[192];
    if (hl % 2 || hl / 2 > sizeof buf) {
        printf("invalid: %s\n", hl % 2 ? "odd number of hex digits" : "too long for a point encoding");
        return 1;
    }
    for (size_t i = 0; i < hl / 2; i++) {
        int h = hexval(hex[2 * i]), l = hexval(hex[2 * i + 1]);
        if (h < 0 || l < 0) {
            printf("invalid: not a hex string (at digit %zu)\n", 2 * i + (h < 0 ? 0 : 1));
            return 1;
        }
        buf[i] = (uint8_t)(h << 4 | l);
    }
    int rc;
    if (group == 1) {
        cuzk_g1_affine p;
        rc = cuzk_g1_decode(&p, buf, hl / 2);
        if (rc == CUZK_OK) {
            printf("valid\n");
            print_fp("x", &p.x);
            print_fp("y", &p.y);
        }
    } else {
        cuzk_g2_affine p;
        rc = cuzk_g2_decode(&p, buf, hl / 2);
        if (rc == CUZK_OK) {
            printf("valid\n");
            print_fp("x.c0", &p.x.c0);
            print_fp("x.c1", &p.x.c1);
            print_fp("y.c0", &p.y.c0);
            print_fp("y.c1", &p.y.c1);
        }
    }
    if (rc != CUZK_OK) {
        printf("invalid: %s\n", cuzk_strerror(rc));
        return 1;
    }
    return 0;
}
