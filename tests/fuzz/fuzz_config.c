/* libFuzzer harness: the daemon's config file parser (cuzk_config_parse,
 * the TOML subset of the Rust daemon's cuzk.toml, src/server/config.c).
 * Oracles: any text gives 0, or -1 with a message (never a crash, a read
 * past the buffer -- the input is not NUL-terminated -- or a leak); an
 * accepted file is printed back with cuzk_config_write_toml, and that text
 * must parse again to a configuration that prints identically (what
 * --print-config writes is a valid config file meaning the same thing).
 * Seeds: the example configs in the repository and cli-tests' files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *print_toml(const cuzk_daemon_config *c, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) abort();
    cuzk_config_write_toml(c, f);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_daemon_config c;
    char err[1024] = "";
    cuzk_config_default(&c);
    char *copy = malloc(size ? size : 1); /* exactly size bytes: no NUL to lean on */
    if (!copy) abort();
    memcpy(copy, data, size);
    int rc = cuzk_config_parse(&c, "fuzz.toml", copy, size, err, sizeof err, NULL, NULL);
    free(copy);
    if (rc != 0) {
        if (rc != -1 || !err[0]) abort();
        return 0;
    }
    size_t n1 = 0, n2 = 0;
    char *t1 = print_toml(&c, &n1);
    cuzk_daemon_config c2;
    cuzk_config_default(&c2);
    if (cuzk_config_parse(&c2, "printed.toml", t1, n1, err, sizeof err, NULL, NULL) != 0) {
        fprintf(stderr, "printed config does not parse: %s\n%s\n", err, t1);
        abort();
    }
    char *t2 = print_toml(&c2, &n2);
    if (n1 != n2 || memcmp(t1, t2, n1)) {
        fprintf(stderr, "printed config changes on a re-parse:\n%s\n---\n%s\n", t1, t2);
        abort();
    }
    free(cuzk_config_json(&c));
    free(t1);
    free(t2);
    return 0;
}
