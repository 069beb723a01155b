/* cuzk-daemon configuration: one declarative table (name, type, bounds,
 * default, where stored) shared by the config file, command-line overrides
 * (--set section.key=value) and the status output (--print-config, HTTP
 * /config).  The file is the TOML subset that the Rust cuzk daemon's
 * cuzk.toml uses, so an operator's existing file works unchanged:
 *
 *   # comment
 *   [section]
 *   key = "string" | 'literal' | 123 | 1_000 | true | false   # comment
 *   key = [0, 1]            # arrays of those, possibly over several lines
 *
 * Sizes accept bytes (integer) or a string with a unit ("64GiB", "512 MiB",
 * "2G" = GiB, "5GB" = 5*10^9), and memory.total_budget also "auto";
 * durations accept an integer in the key's unit (seconds, or ms for *_ms
 * keys) or a string "500ms" / "30s" / "5m" / "1h".  Keys of the Rust file
 * that have no effect here, deprecated keys and unknown keys are accepted
 * with a warning naming file:line.  A malformed line or value is an error that names the
 * file, line and key.  docs/curio-migration.md maps every Rust key. */
#ifndef CUZK_SERVER_CONFIG_H
#define CUZK_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/engine.h"
#include "cuzk/status.h"
#include "server_netacl.h"

#define CUZK_CONFIG_MAX_DEVICES CUZK_ENGINE_MAX_DEVICES
#define CUZK_CONFIG_MAX_NETS 64  /* daemon.allow_plaintext_from entries */
#define CUZK_CONFIG_MAX_NAMES 16 /* daemon.status_hosts, daemon.status_cors_origins entries */

/* A list of networks (CIDR, checked at load: server_netacl.h). */
typedef struct cuzk_config_nets {
    uint32_t n;
    cuzk_net v[CUZK_CONFIG_MAX_NETS];
} cuzk_config_nets;

/* A list of host names or origins (checked at load: server_http_guard.h). */
typedef struct cuzk_config_names {
    uint32_t n;
    char v[CUZK_CONFIG_MAX_NAMES][256];
} cuzk_config_names;

typedef struct cuzk_daemon_config {
    char listen[512];        /* daemon.listen: "unix:///path", "/path" or "host:port" */
    char status_listen[256]; /* daemon.status_listen: "host:port" for HTTP /metrics
                                /status /config; "" = off */
    char test_provider[32];  /* daemon.test_provider (ours): "" or a wire kind name
                                ("test", "porep", ...) served by the engine's
                                built-in chain test circuit -- test setups only */
    /* Who may talk to the daemon (docs/daemon.md, "Security"): TLS with
     * client certificates for TCP (required off loopback), the unix
     * socket's mode and group, and whether HTTP status may leave loopback. */
    char tls_cert[512];       /* daemon.tls_cert: PEM file; "" = no TLS */
    char tls_key[512];        /* daemon.tls_key */
    char tls_client_ca[512];  /* daemon.tls_client_ca */
    uint32_t socket_mode;     /* daemon.socket_mode (0660) */
    char socket_group[64];    /* daemon.socket_group: name or gid; "" = ours */
    bool status_allow_remote; /* daemon.status_allow_remote (false) */
    /* Protected mode of plain-text TCP (server_access.h): peers served
     * besides loopback, and whether loopback is trusted (tests turn it off). */
    cuzk_config_nets allow_plaintext_from; /* daemon.allow_plaintext_from ([]) */
    bool trust_loopback;                   /* daemon.trust_loopback (true) */
    /* HTTP status: Host names served besides loopback ones, and the web
     * origins that may read the pages (server_http_guard.h). */
    cuzk_config_names status_hosts;        /* daemon.status_hosts ([]) */
    cuzk_config_names status_cors_origins; /* daemon.status_cors_origins ([]) */
    cuzk_engine_config engine; /* with gpus.* (engine.gpus: the prover workers) */
} cuzk_daemon_config;

/* Defaults: the engine's, with the Rust daemon's deployment defaults on
 * top: daemon.listen "unix:///run/curio/cuzk.sock", srs.param_cache
 * $FIL_PROOFS_PARAMETER_CACHE else "/data/zk/params", memory.safety_margin
 * 5 GiB, memory.eviction_min_idle 5 min. */
void cuzk_config_default(cuzk_daemon_config *c);

/* Parse a config file (text in buf, name for messages).  Returns 0, or -1
 * with a precise message in err.  Warnings go through warn (may be NULL)
 * one line at a time. */
CUZK_MUST_CHECK int cuzk_config_parse(cuzk_daemon_config *c, const char *name, const char *buf, size_t len,
                                      char *err, size_t err_len, void (*warn)(void *arg, const char *msg),
                                      void *warn_arg);
CUZK_MUST_CHECK int cuzk_config_load(cuzk_daemon_config *c, const char *path, char *err, size_t err_len,
                                     void (*warn)(void *arg, const char *msg), void *warn_arg);

/* One override "section.key=value" (value as in the file, quotes optional
 * for strings).  0 or -1 with err. */
CUZK_MUST_CHECK int cuzk_config_set(cuzk_daemon_config *c, const char *assignment, char *err, size_t err_len);

/* Every key with its current value as TOML (sections in table order). */
void cuzk_config_write_toml(const cuzk_daemon_config *c, FILE *f);
/* Same as one JSON object {"daemon.listen": "...", ...}; malloc'd. */
char *cuzk_config_json(const cuzk_daemon_config *c);

/* A RUST_LOG-style directive list ("debug", "cuzk=debug", "info,cuzk=trace",
 * "warn,h2=off"): the level of a "cuzk..." target if one is given, else the
 * bare default level ("off" = error).  0, or -1 if no directive applies or
 * one does not parse (then *out is untouched). */
CUZK_MUST_CHECK int cuzk_config_rust_log(cuzk_log_level *out, const char *spec);

/* Proof kind from a name: "porep", "snap", "window_post"/"window-post",
 * "winning_post"/"winning-post", "test", "unspecified" or the wire enum
 * names ("WINNING_POST", ...).  -1 if unknown. */
int cuzk_config_kind_parse(const char *name);

#endif
