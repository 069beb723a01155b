/* cuzk-daemon configuration: one declarative table (name, type, bounds,
 * default, where stored) shared by the config file, command-line overrides
 * (--set section.key=value) and the status output (--print-config, HTTP
 * /config).  The file is a TOML subset with the keys of curio's cuzk.toml
 * that apply:
 *
 *   # comment
 *   [section]
 *   key = "string" | 'literal' | 123 | 1_000 | true | false   # comment
 *
 * Sizes accept bytes (integer) or a string with a unit ("64GiB", "512 MiB",
 * "2G" = GiB, "1GB" = 10^9); durations accept an integer in the key's
 * unit or a string "500ms" / "60s" / "5m" / "1h".  Unknown keys and gpus.*
 * (CPU build) are warnings; a malformed line or value is an error that
 * names the file, line and key. */
#ifndef CUZK_SERVER_CONFIG_H
#define CUZK_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cuzk/engine.h"

typedef struct cuzk_daemon_config {
    char listen[512];        /* daemon.listen: "unix:///path", "/path" or "host:port" */
    char status_listen[256]; /* daemon.status_listen: "host:port" for HTTP /metrics
                                /status /config; "" = off */
    char test_provider[32];  /* daemon.test_provider (ours): "" or a wire kind name
                                ("test", "porep", ...) served by the engine's
                                built-in chain test circuit -- test setups only */
    cuzk_engine_config engine;
} cuzk_daemon_config;

/* Defaults (engine defaults + daemon.listen "unix:///tmp/cuzk.sock"). */
void cuzk_config_default(cuzk_daemon_config *c);

/* Parse a config file (text in buf, name for messages).  Returns 0, or -1
 * with a precise message in err.  Warnings go through warn (may be NULL)
 * one line at a time. */
int cuzk_config_parse(cuzk_daemon_config *c, const char *name, const char *buf, size_t len, char *err,
                      size_t errlen, void (*warn)(void *arg, const char *msg), void *warn_arg);
int cuzk_config_load(cuzk_daemon_config *c, const char *path, char *err, size_t errlen,
                     void (*warn)(void *arg, const char *msg), void *warn_arg);

/* One override "section.key=value" (value as in the file, quotes optional
 * for strings).  0 or -1 with err. */
int cuzk_config_set(cuzk_daemon_config *c, const char *assignment, char *err, size_t errlen);

/* Every key with its current value as TOML (sections in table order). */
void cuzk_config_write_toml(const cuzk_daemon_config *c, FILE *f);
/* Same as one JSON object {"daemon.listen": "...", ...}; malloc'd. */
char *cuzk_config_json(const cuzk_daemon_config *c);

/* Proof kind from a name: "porep", "snap", "window_post"/"window-post",
 * "winning_post"/"winning-post", "test", "unspecified" or the wire enum
 * names ("WINNING_POST", ...).  -1 if unknown. */
int cuzk_config_kind_parse(const char *name);

#endif
