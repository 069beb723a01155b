/* cuzk-daemon configuration table and TOML-subset parser; see config.h. */
#include "config.h"
#include "server_http_guard.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* T_ANY: any well-formed value (keys accepted for compatibility only);
 * T_LIST_U32: an array of unsigned integers into a uint32_t count followed
 * by its elements (cuzk_config_gpus). */
/* T_MODE: a file mode in octal ("0660", 0660 or 0o660) into a uint32_t.
 * T_NETS, T_HOSTS, T_ORIGINS: an array of strings (one string is a list of
 * one, "" an empty list) checked at load, into cuzk_config_nets (CIDR) or
 * cuzk_config_names (host names/addresses; web origins). */
typedef enum {
    T_STR, T_BOOL, T_U32, T_U64, T_SIZE, T_DUR_MS, T_LEVEL, T_ANY, T_LIST_U32, T_MODE, T_VALIDATE,
    T_NETS, T_HOSTS, T_ORIGINS
} cfg_type;

/* What a key does here.  Every key of the Rust cuzk.toml is in the table:
 * the ones this engine has no use for are accepted with a warning that
 * says why, so an operator's file works unchanged and nothing is silent. */
typedef enum {
    K_USED = 0,   /* stored and used */
    K_NO_EFFECT,  /* Rust key with no counterpart here: accepted, warned */
    K_DEPRECATED, /* deprecated in the Rust daemon too: accepted, warned */
} cfg_role;

/* One key.  off/cap locate the field inside cuzk_daemon_config (cap 0 = not
 * stored); unit_ms is what a bare integer means for durations (1 = ms,
 * 1000 = s); auto_zero: the string "auto" means 0 (sizes). */
typedef struct {
    const char *name;
    cfg_type type;
    uint64_t min, max;
    size_t off, cap;
    uint64_t unit_ms;
    const char *help;
    cfg_role role;
    bool auto_zero;
} cfg_key;

#define D(f) offsetof(cuzk_daemon_config, f), sizeof(((cuzk_daemon_config *)0)->f)
#define E(f) offsetof(cuzk_daemon_config, engine.f), sizeof(((cuzk_daemon_config *)0)->engine.f)
#define NONE 0, 0
#define GIB (1024ull * 1024 * 1024)

static const cfg_key keys[] = {
    {"daemon.listen", T_STR, 1, 0, D(listen), 0, "gRPC address: unix:///path, /path or host:port", K_USED,
     false},
    {"daemon.status_listen", T_STR, 0, 0, D(status_listen), 0,
     "HTTP /metrics /status /config host:port; \"\" = off", K_USED, false},
    {"daemon.test_provider", T_STR, 0, 0, D(test_provider), 0,
     "serve this wire kind with the chain TEST circuit", K_USED, false},
    {"daemon.tls_cert", T_STR, 0, 0, D(tls_cert), 0,
     "PEM server certificate (chain) for TCP; required with tls_key and tls_client_ca off loopback", K_USED,
     false},
    {"daemon.tls_key", T_STR, 0, 0, D(tls_key), 0, "PEM private key of daemon.tls_cert", K_USED, false},
    {"daemon.tls_client_ca", T_STR, 0, 0, D(tls_client_ca), 0,
     "PEM CA certificate(s): clients must present a certificate signed by one", K_USED, false},
    {"daemon.socket_mode", T_MODE, 0, 07777, D(socket_mode), 0, "permissions of the unix socket (octal)",
     K_USED, false},
    {"daemon.socket_group", T_STR, 0, 0, D(socket_group), 0,
     "group (name or number) of the unix socket; \"\" = the daemon's group", K_USED, false},
    {"daemon.status_allow_remote", T_BOOL, 0, 1, D(status_allow_remote), 0,
     "allow status_listen on a non-loopback address (it has no authentication)", K_USED, false},
    {"daemon.allow_plaintext_from", T_NETS, 0, 0, D(allow_plaintext_from), 0,
     "networks (CIDR) served over plain-text TCP besides loopback; others get PERMISSION_DENIED", K_USED,
     false},
    {"daemon.trust_loopback", T_BOOL, 0, 1, D(trust_loopback), 0,
     "plain-text TCP serves loopback peers unlisted; false only to test allow_plaintext_from", K_USED, false},
    {"daemon.status_hosts", T_HOSTS, 0, 0, D(status_hosts), 0,
     "Host names/addresses the HTTP status answers besides localhost, 127.x, [::1] (else 421)", K_USED,
     false},
    {"daemon.status_cors_origins", T_ORIGINS, 0, 0, D(status_cors_origins), 0,
     "web origins (\"https://host:port\") sent Access-Control-Allow-Origin; \"*\" = any (warned)", K_USED,
     false},
    {"srs.param_cache", T_STR, 1, 0, E(param_cache), 0, "directory of v28 .params/.vk files", K_USED, false},
    {"srs.validate", T_VALIDATE, 0, 0, E(srs_validate), 0,
     "digest (official digest or a validation record, else every point) | full | none", K_USED, false},
    {"srs.state_dir", T_STR, 0, 0, E(srs_state_dir), 0,
     "validation records when param_cache is read-only; \"\" = ~/.local/state/cuzk", K_USED, false},
    {"srs.allow_test_params", T_BOOL, 0, 1, E(srs_allow_test_params), 0,
     "load TEST params (.test marker) under official file names without the digest check; test setups only",
     K_USED, false},
    {"srs.preload", T_ANY, 0, 0, NONE, 0, "circuits load on first use (or PreloadSRS)", K_DEPRECATED, false},
    {"memory.total_budget", T_SIZE, 0, UINT64_MAX, E(memory_total_budget), 0,
     "bytes, \"64GiB\" or \"auto\" (= RAM - safety_margin)", K_USED, true},
    {"memory.safety_margin", T_SIZE, 0, UINT64_MAX, E(memory_safety_margin), 0,
     "bytes kept free when total_budget = \"auto\"", K_USED, false},
    {"memory.eviction_min_idle", T_DUR_MS, 0, UINT64_MAX, E(eviction_min_idle_ms), 1000,
     "idle SRS entries younger than this are never evicted", K_USED, false},
    {"memory.buffer_pool_idle", T_DUR_MS, 0, UINT64_MAX, E(buffer_pool_idle_ms), 1000,
     "partition buffers kept this long for the next partition (0 = freed at once)", K_USED, false},
    {"memory.pinned_budget", T_ANY, 0, 0, NONE, 0, "memory.total_budget covers all memory", K_DEPRECATED,
     false},
    {"memory.working_memory_budget", T_ANY, 0, 0, NONE, 0, "memory.total_budget covers all memory",
     K_DEPRECATED, false},
    {"gpus.devices", T_LIST_U32, 0, UINT32_MAX, E(gpus.n_devices), 0,
     "device ordinals of gpus.backend's driver, [] = all it has (auto: all but CPU devices)", K_USED, false},
    {"gpus.gpu_threads", T_U32, 0, 4096, E(gpus.threads), 0,
     "host threads of each device worker, 0 = pipeline.prover_threads", K_USED, false},
    {"gpus.gpu_workers_per_device", T_U32, 0, 64, E(gpus.workers_per_device), 0,
     "prover workers per device (each its own backend handle; one device call at a time)", K_USED, false},
    {"gpus.backend", T_STR, 1, 0, E(gpus.backend), 0,
     "auto (CUDA, else OpenCL GPUs; never a CPU device) | cpu | opencl | cuda; $CUZK_BACKEND overrides", K_USED,
     false},
    {"gpus.cpu_worker", T_STR, 1, 0, E(gpus.cpu_worker), 0,
     "auto (on without devices, else off) | on (CPU proves while every device worker is busy) | off", K_USED,
     false},
    {"scheduler.max_batch_size", T_U32, 1, 1024, E(max_batch_size), 0,
     "same-circuit partitions per prove call", K_USED, false},
    {"scheduler.max_batch_wait_ms", T_DUR_MS, 0, 600000, E(max_batch_wait_ms), 1, "batch collector wait",
     K_USED, false},
    {"scheduler.max_queued_jobs", T_U32, 1, UINT32_MAX, E(max_live_jobs), 0,
     "jobs queued or running at once; more: RESOURCE_EXHAUSTED", K_USED, false},
    {"scheduler.max_ended_jobs", T_U32, 1, UINT32_MAX, E(max_ended_jobs), 0,
     "ended-job records kept for AwaitProof; the oldest beyond it are dropped (NOT_FOUND)", K_USED, false},
    {"scheduler.max_preemptions", T_U32, 0, UINT32_MAX, E(max_preemptions), 0,
     "times a partition yields the prover to CRITICAL work; 0 = never", K_USED, false},
    {"memory.request_budget", T_SIZE, 1048576, UINT64_MAX, E(request_budget), 0,
     "received and decoded requests and their parses, charged before allocating; more: RESOURCE_EXHAUSTED",
     K_USED, false},
    {"scheduler.verify_threads", T_U32, 1, 1024, E(verify_threads), 0,
     "submits parsing and verifying natively at once; HIGH first (+1 slot), CRITICAL never waits", K_USED,
     false},
    {"scheduler.sort_by_type", T_ANY, 0, 0, NONE, 0, "batches are always one circuit; order is by priority",
     K_NO_EFFECT, false},
    {"synthesis.threads", T_U32, 0, 1024, E(synthesis_threads), 0,
     "synthesis workers; 0 = one per CPU (at most 64)", K_USED, false},
    {"synthesis.pce", T_STR, 0, 0, E(synthesis_pce), 0,
     "auto (pre-compiled constraint evaluator when present; extracted after a first proof) | off", K_USED,
     false},
    {"synthesis.partition_workers", T_ANY, 0, 0, NONE, 0, "see synthesis.threads", K_DEPRECATED, false},
    {"pipeline.enabled", T_BOOL, 0, 1, E(pipeline_enabled), 0, "overlap synthesis with proving", K_USED,
     false},
    {"pipeline.max_pending", T_U32, 1, 1024, E(pipeline_depth), 0,
     "partitions synthesized ahead of the prover", K_USED, false},
    {"pipeline.prover_threads", T_U32, 1, 4096, E(prover_threads), 0, "threads of the prover's pool", K_USED,
     false},
    {"pipeline.result_retention", T_DUR_MS, 0, UINT64_MAX, E(result_retention_ms), 1000,
     "finished results kept this long", K_USED, false},
    {"pipeline.shutdown_grace", T_DUR_MS, 0, 3600000, E(shutdown_grace_ms), 1000,
     "in-flight work gets this long at shutdown", K_USED, false},
    {"pipeline.synthesis_lookahead", T_ANY, 0, 0, NONE, 0, "see pipeline.max_pending", K_NO_EFFECT, false},
    {"pipeline.synthesis_concurrency", T_ANY, 0, 0, NONE, 0, "see synthesis.threads", K_NO_EFFECT, false},
    {"pipeline.max_parallel_synthesis", T_ANY, 0, 0, NONE, 0, "see synthesis.threads", K_NO_EFFECT, false},
    {"pipeline.slot_size", T_ANY, 0, 0, NONE, 0, "partitions are scheduled one by one", K_NO_EFFECT, false},
    {"pipeline.max_gpu_queue_depth", T_ANY, 0, 0, NONE, 0, "see pipeline.max_pending", K_NO_EFFECT, false},
    {"logging.level", T_LEVEL, 0, 0, E(log_level), 0,
     "error | warn | info | debug | trace (RUST_LOG overrides)", K_USED, false},
    {"logging.format", T_ANY, 0, 0, NONE, 0, "logs are one text line per event", K_NO_EFFECT, false},
};
#define NKEYS (sizeof keys / sizeof keys[0])
#define MAX_ITEMS CUZK_CONFIG_MAX_DEVICES

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

void cuzk_config_default(cuzk_daemon_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->listen, sizeof c->listen, "unix:///run/curio/cuzk.sock");
    c->socket_mode = 0660;
    c->trust_loopback = true;
    cuzk_engine_config_default(&c->engine);
    const char *env = getenv("FIL_PROOFS_PARAMETER_CACHE");
    snprintf(c->engine.param_cache, sizeof c->engine.param_cache, "%s",
             env && *env ? env : "/data/zk/params");
    c->engine.memory_safety_margin = 5 * GIB;
    c->engine.eviction_min_idle_ms = 5 * 60 * 1000;
    c->engine.buffer_pool_idle_ms = 5 * 60 * 1000;
    snprintf(c->engine.gpus.backend, sizeof c->engine.gpus.backend, "auto");
}

static const cfg_key *find_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].name, name)) return &keys[i];
    return NULL;
}

/* Unsigned integer with optional '_' separators; whole string. */
static int parse_uint(uint64_t *out, const char *s)
{
    uint64_t v = 0;
    int digits = 0;
    for (; *s; s++) {
        if (*s == '_' && digits) continue;
        if (!isdigit((unsigned char)*s)) return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
        digits++;
    }
    if (!digits) return -1;
    *out = v;
    return 0;
}

/* "<number>[.<frac>] <unit>" -> value * multiplier of the unit. */
static int parse_scaled(uint64_t *out, const char *s, const char *const *units, const uint64_t *mult,
                        size_t nunits)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s)) return -1;
    long double v = strtold(s, &end);
    if (errno || end == s) return -1;
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < nunits; i++) {
        if (strcasecmp(end, units[i])) continue;
        long double r = v * (long double)mult[i];
        if (r > (long double)UINT64_MAX) return -1;
        *out = (uint64_t)(r + 0.5L);
        return 0;
    }
    return -1;
}

/* Octal digits, optionally after "0o" (TOML) -- "0660", "660", "0o660". */
static int parse_mode(uint64_t *out, const char *s)
{
    if (!strncmp(s, "0o", 2)) s += 2;
    uint64_t v = 0;
    if (!*s || strlen(s) > 6) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '7') return -1;
        v = v * 8 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

static int parse_size(uint64_t *out, const char *s)
{
    static const char *const u[] = {"",    "B", "K",   "KiB", "M",  "MiB", "G",
                                    "GiB", "T", "TiB", "KB",  "MB", "GB",  "TB"};
    static const uint64_t m[] = {1,          1,          1ull << 10,    1ull << 10,      1ull << 20,
                                 1ull << 20, 1ull << 30, 1ull << 30,    1ull << 40,      1ull << 40,
                                 1000ull,    1000000ull, 1000000000ull, 1000000000000ull};
    if (!parse_uint(out, s)) return 0;
    return parse_scaled(out, s, u, m, sizeof m / sizeof m[0]);
}

static int parse_dur(uint64_t *out, const char *s, uint64_t unit_ms)
{
    static const char *const u[] = {"ms", "s", "m", "min", "h"};
    static const uint64_t m[] = {1, 1000, 60000, 60000, 3600000};
    uint64_t v;
    if (!parse_uint(&v, s)) {
        if (v > UINT64_MAX / unit_ms) return -1;
        *out = v * unit_ms;
        return 0;
    }
    return parse_scaled(out, s, u, m, sizeof m / sizeof m[0]);
}

static void store_uint(cuzk_daemon_config *c, const cfg_key *k, uint64_t v)
{
    char *p = (char *)c + k->off;
    if (k->cap == 4) {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, 4);
    } else {
        memcpy(p, &v, 8);
    }
}

static uint64_t load_uint(const cuzk_daemon_config *c, const cfg_key *k)
{
    const char *p = (const char *)c + k->off;
    if (k->cap == 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        return w;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* A decoded TOML scalar (quoted = it was a string). */
typedef struct {
    char v[256];
    bool quoted;
} cfg_item;

/* An array of strings to a T_NETS, T_HOSTS or T_ORIGINS key, every element
 * checked; the key keeps its old value when one is refused. */
static int apply_strings(cuzk_daemon_config *c, const cfg_key *k, const cfg_item *it, size_t n, char *err,
                         size_t err_len)
{
    size_t max = k->type == T_NETS ? CUZK_CONFIG_MAX_NETS : CUZK_CONFIG_MAX_NAMES;
    if (n > max) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: more than %zu elements", k->name, max);
    cuzk_config_nets nets = {.n = (uint32_t)n};
    cuzk_config_names names = {.n = (uint32_t)n};
    char why[256];
    for (size_t i = 0; i < n; i++) {
        const char *v = it[i].v;
        if (!it[i].quoted)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "%s: element %zu: expected a string in quotes, got %s", k->name, i, v);
        if (k->type == T_NETS && cuzk_net_parse(&nets.v[i], v, why, sizeof why))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: element %zu: %s", k->name, i, why);
        if (k->type == T_HOSTS && !cuzk_http_host_valid(v))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "%s: element %zu: '%.64s' is not a host name or IP address (no port, no scheme: "
                             "\"prover1.example\", \"10.0.0.5\", \"fd00::5\")",
                             k->name, i, v);
        if (k->type == T_ORIGINS && !cuzk_http_origin_valid(v))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "%s: element %zu: '%.64s' is not a web origin (\"https://host\", "
                             "\"http://host:port\", no path nor final '/'; or \"*\" for any)",
                             k->name, i, v);
        if (k->type != T_NETS) snprintf(names.v[i], sizeof names.v[i], "%s", v); /* < 256: cfg_item */
    }
    if (k->type == T_NETS)
        memcpy((char *)c + k->off, &nets, sizeof nets);
    else
        memcpy((char *)c + k->off, &names, sizeof names);
    return 0;
}

/* gpus.backend and gpus.cpu_worker: one word of a fixed set, checked here
 * so that a typo names the key and the file line (the engine checks again:
 * whether the driver is there is known only when it starts). */
static int apply_gpus_word(char *p, const cfg_key *k, const char *v, char *err, size_t err_len)
{
    static const char *const backends[] = {"auto", "cpu", "opencl", "cuda", NULL};
    static const char *const onoff[] = {"auto", "on", "off", NULL};
    const char *const *w = !strcmp(k->name, "gpus.backend") ? backends : onoff;
    for (size_t i = 0; w[i]; i++)
        if (!strcmp(v, w[i])) {
            memcpy(p, v, strlen(v) + 1); /* < 8 bytes: the field's size */
            return 0;
        }
    return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: expected %s, got '%s'", k->name,
                     w == backends ? "auto, cpu, opencl or cuda" : "auto, on or off", v);
}

/* Apply a decoded scalar to key k. */
static int apply(cuzk_daemon_config *c, const cfg_key *k, const char *v, bool quoted, char *err,
                 size_t err_len)
{
    char *p = (char *)c + k->off;
    uint64_t u = 0;
    switch (k->type) {
    case T_ANY:
        return 0;
    case T_LIST_U32:
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: expected an array like [0, 1], got '%s'", k->name,
                         v);
    case T_NETS:
    case T_HOSTS:
    case T_ORIGINS: { /* one string: a list of one; "": empty */
        cfg_item one;
        if (strlen(v) >= sizeof one.v)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: value longer than %zu bytes", k->name,
                             sizeof one.v - 1);
        memcpy(one.v, v, strlen(v) + 1);
        one.quoted = true;
        return apply_strings(c, k, &one, *v ? 1 : 0, err, err_len);
    }
    case T_STR:
        if (!strncmp(k->name, "gpus.", 5)) return apply_gpus_word(p, k, v, err, err_len);
        if (strlen(v) >= k->cap)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: value longer than %zu bytes", k->name,
                             k->cap - 1);
        if (k->min && !*v) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: must not be empty", k->name);
        memcpy(p, v, strlen(v) + 1);
        return 0;
    case T_BOOL:
        if (quoted || (strcmp(v, "true") && strcmp(v, "false")))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: expected true or false, got '%s'", k->name, v);
        *(bool *)p = !strcmp(v, "true");
        return 0;
    case T_VALIDATE: /* also the old boolean: true = full, false = none */
        if (cuzk_srs_validate_parse((cuzk_srs_validate *)p, v))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: expected \"digest\", \"full\" or \"none\", got '%s'",
                             k->name, v);
        return 0;
    case T_LEVEL: {
        cuzk_log_level lv;
        if (cuzk_log_level_parse(&lv, v))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "%s: expected error, warn, info, debug or trace, got '%s'", k->name, v);
        *(cuzk_log_level *)p = lv;
        return 0;
    }
    case T_MODE:
        if (parse_mode(&u, v))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: expected an octal mode like \"0660\", got '%s'",
                             k->name, v);
        break;
    case T_U32:
    case T_U64:
        if (parse_uint(&u, v))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: expected an unsigned integer, got '%s'",
                             k->name, v);
        break;
    case T_SIZE:
        if (k->auto_zero && !strcasecmp(v, "auto")) break;
        if (parse_size(&u, v))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "%s: expected bytes or a size like \"64GiB\"%s, got '%s'", k->name,
                             k->auto_zero ? " or \"auto\"" : "", v);
        break;
    case T_DUR_MS:
        if (parse_dur(&u, v, k->unit_ms))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "%s: expected %s or a duration like \"500ms\", \"30s\", \"5m\", got '%s'",
                             k->name, k->unit_ms == 1 ? "milliseconds" : "seconds", v);
        break;
    }
    if (u < k->min || u > k->max || (k->cap == 4 && u > UINT32_MAX))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: %llu out of range [%llu, %llu]", k->name,
                         (unsigned long long)u, (unsigned long long)k->min,
                         (unsigned long long)(k->cap == 4 && k->max > UINT32_MAX ? UINT32_MAX : k->max));
    store_uint(c, k, u);
    return 0;
}

/* Apply an array to key k (T_LIST_U32: count then elements; T_ANY: checked
 * for form only). */
static int apply_list(cuzk_daemon_config *c, const cfg_key *k, const cfg_item *it, size_t n, char *err,
                      size_t err_len)
{
    if (k->type == T_ANY) return 0;
    if (k->type == T_NETS || k->type == T_HOSTS || k->type == T_ORIGINS)
        return apply_strings(c, k, it, n, err, err_len);
    if (k->type != T_LIST_U32)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: expected a single value, got an array", k->name);
    uint32_t v[MAX_ITEMS];
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        if (it[i].quoted || parse_uint(&u, it[i].v) || u > k->max)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                             "%s: element %zu: expected an unsigned integer, got '%s'", k->name, i, it[i].v);
        v[i] = (uint32_t)u;
    }
    uint32_t cnt = (uint32_t)n;
    memcpy((char *)c + k->off, &cnt, 4);
    memcpy((char *)c + k->off + 4, v, n * 4);
    return 0;
}

/* A string value at *s (its opening quote); *s ends past the closing one. */
static int decode_string(char *out, size_t cap, const char **sp, char *why, size_t why_len)
{
    const char *s = *sp;
    char q = *s++;
    size_t n = 0;
    for (;; s++) {
        if (!*s) return cuzk_errf(why, why_len, CUZK_ERR_ARG, "unterminated string");
        if (*s == q) break;
        char ch = *s;
        if ((unsigned char)ch < 0x20 && ch != '\t') /* TOML: control characters only as escapes */
            return cuzk_errf(why, why_len, CUZK_ERR_ARG, "control character 0x%02x in a string", (unsigned char)ch);
        if (q == '"' && ch == '\\') {
            s++;
            switch (*s) {
            case 'n':
                ch = '\n';
                break;
            case 't':
                ch = '\t';
                break;
            case '\\':
                ch = '\\';
                break;
            case '"':
                ch = '"';
                break;
            default:
                return cuzk_errf(why, why_len, CUZK_ERR_ARG, "unsupported escape '\\%c'", *s ? *s : '0');
            }
        }
        if (n + 1 >= cap) return cuzk_errf(why, why_len, CUZK_ERR_ARG, "value too long");
        out[n++] = ch;
    }
    out[n] = 0;
    *sp = s + 1;
    return 0;
}

/* A bare value (number, true/false) at *s, up to a space, ',', ']' or '#'. */
static int decode_bare(char *out, size_t cap, const char **sp, char *why, size_t why_len)
{
    const char *s = *sp;
    size_t n = 0;
    while (*s && *s != '#' && *s != ',' && *s != ']' && !isspace((unsigned char)*s)) {
        if ((unsigned char)*s < 0x20)
            return cuzk_errf(why, why_len, CUZK_ERR_ARG, "control character 0x%02x in a value", (unsigned char)*s);
        if (n + 1 >= cap) return cuzk_errf(why, why_len, CUZK_ERR_ARG, "value too long");
        out[n++] = *s++;
    }
    if (!n) return cuzk_errf(why, why_len, CUZK_ERR_ARG, "missing value");
    out[n] = 0;
    *sp = s;
    return 0;
}

static int expect_end(const char *s, char *why, size_t why_len)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s && *s != '#')
        return cuzk_errf(why, why_len, CUZK_ERR_ARG, "unexpected text after the value: '%s'", s);
    return 0;
}

/* Decodes a TOML scalar starting at s into out; *quoted tells strings apart.
 * Whatever follows the value must be blank or a comment. */
static int decode_value(char *out, size_t cap, bool *quoted, const char *s, char *why, size_t why_len)
{
    *quoted = *s == '"' || *s == '\'';
    int rc = *quoted ? decode_string(out, cap, &s, why, why_len) : decode_bare(out, cap, &s, why, why_len);
    return rc ? rc : expect_end(s, why, why_len);
}

/* Line reader over the file buffer (arrays may span lines). */
typedef struct {
    const char *name, *buf;
    size_t len, pos;
    unsigned lineno;
    char line[4096];
} reader;

/* 1 = a line in rd->line, 0 = end of input, -1 = error (in err). */
static int next_line(reader *rd, char *err, size_t err_len)
{
    if (rd->pos >= rd->len) return 0;
    size_t end = rd->pos;
    while (end < rd->len && rd->buf[end] != '\n')
        end++;
    size_t ll = end - rd->pos;
    rd->lineno++;
    if (ll >= sizeof rd->line)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s:%u: line longer than %zu bytes", rd->name,
                         rd->lineno, sizeof rd->line - 1);
    memcpy(rd->line, rd->buf + rd->pos, ll);
    rd->line[ll] = 0;
    if (memchr(rd->line, 0, ll))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s:%u: NUL byte in the line", rd->name, rd->lineno);
    rd->pos = end + 1;
    if (ll && rd->line[ll - 1] == '\r') rd->line[ll - 1] = 0;
    return 1;
}

/* The array whose '[' is at s (inside rd->line, or a --set value when rd is
 * NULL), over as many lines as it takes: elements into it[], count in *n. */
static int decode_array(cfg_item *it, size_t *n, const char *s, reader *rd, char *why, size_t why_len)
{
    bool need_sep = false;
    *n = 0;
    for (s++;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#') {
            char dummy[8];
            if (!rd || next_line(rd, dummy, sizeof dummy) != 1)
                return cuzk_errf(why, why_len, CUZK_ERR_ARG, "unterminated array");
            s = rd->line;
            continue;
        }
        if (*s == ']') return expect_end(s + 1, why, why_len);
        if (need_sep) {
            if (*s != ',')
                return cuzk_errf(why, why_len, CUZK_ERR_ARG, "expected ',' or ']' in the array, got '%s'", s);
            s++;
            need_sep = false;
            continue;
        }
        if (*s == '[' || *s == '{')
            return cuzk_errf(why, why_len, CUZK_ERR_ARG, "nested arrays and tables are not supported");
        if (*n == MAX_ITEMS) return cuzk_errf(why, why_len, CUZK_ERR_ARG, "more than %d elements", MAX_ITEMS);
        cfg_item *x = &it[(*n)++];
        x->quoted = *s == '"' || *s == '\'';
        int rc = x->quoted ? decode_string(x->v, sizeof x->v, &s, why, why_len)
                           : decode_bare(x->v, sizeof x->v, &s, why, why_len);
        if (rc) return rc;
        need_sep = true;
    }
}

static bool key_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '.';
}

static void warn_role(const cfg_key *k, const char *where, void (*warn)(void *, const char *), void *arg)
{
    char msg[512];
    if (!warn || k->role == K_USED) return;
    snprintf(msg, sizeof msg, "%s: %s %s, ignored: %s", where, k->name,
             k->role == K_DEPRECATED ? "is deprecated (also in the Rust cuzk)" : "has no effect in this engine",
             k->help);
    warn(arg, msg);
}

/* "[section]" at s: 0 with section set, or -1 with err. */
static int parse_section(char *section, size_t cap, const char *s, const reader *rd, char *err,
                         size_t err_len)
{
    const char *e = strchr(s, ']');
    size_t sl = e ? (size_t)(e - s - 1) : 0;
    if (!e || s[1] == '[' || !sl || sl >= cap)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s:%u: malformed section header '%s'", rd->name,
                         rd->lineno, s);
    for (size_t i = 1; i <= sl; i++)
        if (!key_char(s[i]))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s:%u: bad character in section name '%s'",
                             rd->name, rd->lineno, s);
    memcpy(section, s + 1, sl);
    section[sl] = 0;
    for (e++; *e == ' ' || *e == '\t'; e++)
        ;
    if (*e && *e != '#')
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s:%u: unexpected text after section header: '%s'",
                         rd->name, rd->lineno, e);
    return 0;
}

int cuzk_config_parse(cuzk_daemon_config *c, const char *name, const char *buf, size_t len, char *err,
                      size_t err_len, void (*warn)(void *arg, const char *msg), void *warn_arg)
{
    char section[128] = "", full[256], val[1024], why[256], where[300], msg[600];
    cfg_item items[MAX_ITEMS];
    reader rd = {.name = name, .buf = buf, .len = len};
    int r;
    while ((r = next_line(&rd, err, err_len)) == 1) {
        char *s = rd.line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#') continue;
        if (*s == '[') {
            if (parse_section(section, sizeof section, s, &rd, err, err_len)) return -1;
            continue;
        }
        char *k = s;
        while (key_char(*s))
            s++;
        size_t kl = (size_t)(s - k);
        while (*s == ' ' || *s == '\t')
            s++;
        if (!kl || *s != '=')
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s:%u: expected 'key = value', got '%s'", name,
                             rd.lineno, k);
        k[kl] = 0;
        for (s++; *s == ' ' || *s == '\t'; s++)
            ;
        int fl = section[0] ? snprintf(full, sizeof full, "%s.%s", section, k)
                            : snprintf(full, sizeof full, "%s", k);
        if (fl < 0 || (size_t)fl >= sizeof full)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s:%u: key too long", name, rd.lineno);
        unsigned at = rd.lineno; /* an array may end on a later line */
        snprintf(where, sizeof where, "%s:%u", name, at);
        const cfg_key *key = find_key(full);
        bool quoted = false;
        size_t n = 0;
        bool array = *s == '[';
        if (array ? decode_array(items, &n, s, &rd, why, sizeof why)
                  : decode_value(val, sizeof val, &quoted, s, why, sizeof why))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: %s: %s", where, full, why);
        if (!key) {
            snprintf(msg, sizeof msg, "%s: unknown key '%s' ignored", where, full);
            if (warn) warn(warn_arg, msg);
            continue;
        }
        if (array ? apply_list(c, key, items, n, why, sizeof why)
                  : apply(c, key, val, quoted, why, sizeof why))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: %s", where, why);
        warn_role(key, where, warn, warn_arg);
    }
    return r < 0 ? -1 : 0;
}

int cuzk_config_load(cuzk_daemon_config *c, const char *path, char *err, size_t err_len,
                     void (*warn)(void *arg, const char *msg), void *warn_arg)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            if (cap > (64u << 20)) {
                free(buf);
                fclose(f);
                return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: larger than 64 MiB, not a config file",
                                 path);
            }
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: out of memory", path);
            }
            buf = nb;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    int rc = bad ? cuzk_errf(err, err_len, CUZK_ERR_ARG, "%s: read error", path)
                 : cuzk_config_parse(c, path, buf, len, err, err_len, warn, warn_arg);
    free(buf);
    return rc;
}

int cuzk_config_set(cuzk_daemon_config *c, const char *assignment, char *err, size_t err_len)
{
    const char *eq = strchr(assignment, '=');
    char name[128], val[1024], why[256];
    cfg_item items[MAX_ITEMS];
    if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof name)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "--set '%s': expected section.key=value", assignment);
    memcpy(name, assignment, (size_t)(eq - assignment));
    name[eq - assignment] = 0;
    const cfg_key *k = find_key(name);
    if (!k)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG,
                         "--set: unknown key '%s' (cuzk-daemon --print-config lists them)", name);
    if (k->type == T_ANY)
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "--set %s: has no effect in this engine (%s)", name,
                         k->help);
    bool quoted = false;
    const char *v = eq + 1;
    if (*v == '[' && k->type != T_STR) { /* "[::1]:9820" is an address, not an array */
        size_t n = 0;
        if (decode_array(items, &n, v, NULL, why, sizeof why))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "--set %s: %s", name, why);
        if (apply_list(c, k, items, n, why, sizeof why))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "--set %s", why);
        return 0;
    }
    if (*v == '"' || *v == '\'') {
        if (decode_value(val, sizeof val, &quoted, v, why, sizeof why))
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "--set %s: %s", name, why);
    } else {
        if (strlen(v) >= sizeof val)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "--set %s: value too long", name);
        strcpy(val, v);
    }
    /* An unquoted command-line string is still a string. */
    if (k->type == T_STR || k->type == T_LEVEL) quoted = true;
    if (apply(c, k, val, quoted, why, sizeof why))
        return cuzk_errf(err, err_len, CUZK_ERR_ARG, "--set %s", why);
    return 0;
}

/* The longest value text: a string key (< 512 bytes, escaped: 1 KiB), or a
 * list key (64 networks, or 16 names of < 256 bytes). */
#define CFG_VALUE_MAX 4608

/* Value of key i as text: strings quoted (JSON/TOML-compatible escapes). */
static void format_value(char *out, size_t cap, const cuzk_daemon_config *c, const cfg_key *k)
{
    const char *p = (const char *)c + k->off;
    switch (k->type) {
    case T_STR: {
        size_t n = 0;
        out[n++] = '"';
        for (; *p && n + 8 < cap; p++) {
            /* the escapes decode_string reads back (it takes no other
             * control character): at most 2 bytes per byte, no truncation */
            if (*p == '"' || *p == '\\' || *p == '\n' || *p == '\t') out[n++] = '\\';
            out[n++] = *p == '\n' ? 'n' : *p == '\t' ? 't' : *p;
        }
        out[n++] = '"';
        out[n] = 0;
        return;
    }
    case T_BOOL:
        snprintf(out, cap, "%s", *(const bool *)p ? "true" : "false");
        return;
    case T_VALIDATE:
        snprintf(out, cap, "\"%s\"", cuzk_srs_validate_name(*(const cuzk_srs_validate *)p));
        return;
    case T_LEVEL: {
        cuzk_log_level lv = *(const cuzk_log_level *)p;
        snprintf(out, cap, "\"%s\"", (unsigned)lv < 5 ? level_names[lv] : "info");
        return;
    }
    case T_LIST_U32: {
        uint32_t n, x;
        memcpy(&n, p, 4);
        size_t o = (size_t)snprintf(out, cap, "[");
        for (uint32_t i = 0; i < n && o + 16 < cap; i++) {
            memcpy(&x, p + 4 + 4 * i, 4);
            o += (size_t)snprintf(out + o, cap - o, "%s%u", i ? ", " : "", x);
        }
        snprintf(out + o, cap - o, "]");
        return;
    }
    case T_NETS:
    case T_HOSTS:
    case T_ORIGINS: { /* fits: 64 networks of <= 43 bytes, 16 names of < 256 (no escapes: checked) */
        const cuzk_config_nets *nets = (const void *)p;
        const cuzk_config_names *names = (const void *)p;
        uint32_t cnt = k->type == T_NETS ? nets->n : names->n;
        size_t o = (size_t)snprintf(out, cap, "[");
        for (uint32_t i = 0; i < cnt && o + 300 < cap; i++) {
            char net[64];
            if (k->type == T_NETS) cuzk_net_format(net, sizeof net, &nets->v[i]);
            o += (size_t)snprintf(out + o, cap - o, "%s\"%s\"", i ? ", " : "",
                                  k->type == T_NETS ? net : names->v[i]);
        }
        snprintf(out + o, cap - o, "]");
        return;
    }
    case T_SIZE:
        if (k->auto_zero && !load_uint(c, k))
            snprintf(out, cap, "\"auto\"");
        else
            snprintf(out, cap, "%llu", (unsigned long long)load_uint(c, k));
        return;
    case T_MODE:
        snprintf(out, cap, "\"0%03llo\"", (unsigned long long)load_uint(c, k));
        return;
    case T_DUR_MS: /* with its unit, so the output reads back the same */
        snprintf(out, cap, "\"%llums\"", (unsigned long long)load_uint(c, k));
        return;
    default:
        snprintf(out, cap, "%llu", (unsigned long long)load_uint(c, k));
        return;
    }
}

void cuzk_config_write_toml(const cuzk_daemon_config *c, FILE *f)
{
    char sec[64] = "", v[CFG_VALUE_MAX];
    for (size_t i = 0; i < NKEYS; i++) {
        if (!keys[i].cap) continue; /* accepted, not stored */
        const char *dot = strchr(keys[i].name, '.');
        size_t sl = (size_t)(dot - keys[i].name);
        if (strlen(sec) != sl || strncmp(sec, keys[i].name, sl)) {
            memcpy(sec, keys[i].name, sl);
            sec[sl] = 0;
            fprintf(f, "%s[%s]\n", i ? "\n" : "", sec);
        }
        format_value(v, sizeof v, c, &keys[i]);
        fprintf(f, "%s = %s  # %s\n", dot + 1, v, keys[i].help);
    }
}

char *cuzk_config_json(const cuzk_daemon_config *c)
{
    size_t cap = 256 + NKEYS * 1300 + 3 * CFG_VALUE_MAX, n = 0; /* 3 list keys */
    char *out = malloc(cap), v[CFG_VALUE_MAX];
    if (!out) return NULL;
    n += (size_t)snprintf(out + n, cap - n, "{");
    for (size_t i = 0, first = 1; i < NKEYS; i++) {
        if (!keys[i].cap) continue;
        format_value(v, sizeof v, c, &keys[i]);
        n += (size_t)snprintf(out + n, cap - n, "%s\"%s\": %s", first ? "" : ", ", keys[i].name, v);
        first = 0;
    }
    snprintf(out + n, cap - n, "}\n");
    return out;
}

/* One RUST_LOG level word; "off" = errors only, "warning" as in tracing. */
static int rust_level(cuzk_log_level *out, const char *w)
{
    if (!strcasecmp(w, "off")) w = "error";
    if (!strcasecmp(w, "warning")) w = "warn";
    return cuzk_log_level_parse(out, w);
}

int cuzk_config_rust_log(cuzk_log_level *out, const char *spec)
{
    char buf[512], *save = NULL;
    if (!spec || strlen(spec) >= sizeof buf) return -1;
    strcpy(buf, spec);
    cuzk_log_level bare = CUZK_LOG_INFO, mine = CUZK_LOG_INFO;
    bool have_bare = false, have_mine = false;
    for (char *d = strtok_r(buf, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
        while (*d == ' ')
            d++;
        char *eq = strchr(d, '=');
        if (!*d) continue;
        if (!eq) {
            if (rust_level(&bare, d)) return -1;
            have_bare = true;
            continue;
        }
        *eq = 0;
        /* targets: cuzk, cuzk_daemon, cuzk_core::engine, ... */
        if (strncmp(d, "cuzk", 4)) continue;
        if (rust_level(&mine, eq + 1)) return -1;
        have_mine = true;
    }
    if (!have_bare && !have_mine) return -1;
    *out = have_mine ? mine : bare;
    return 0;
}

int cuzk_config_kind_parse(const char *name)
{
    static const struct {
        const char *a, *b, *c;
        int kind;
    } t[] = {
        {"porep", "POREP_SEAL_COMMIT", "porep-c2", CUZK_PROOF_POREP},
        {"snap", "SNAP_DEALS_UPDATE", "snap-deals", CUZK_PROOF_SNAP},
        {"window_post", "WINDOW_POST_PARTITION", "window-post", CUZK_PROOF_WINDOW_POST},
        {"winning_post", "WINNING_POST", "winning-post", CUZK_PROOF_WINNING_POST},
        {"test", "TEST", "chain", CUZK_PROOF_TEST},
        {"unspecified", "PROOF_KIND_UNSPECIFIED", "none", CUZK_PROOF_UNSPECIFIED},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp(name, t[i].a) || !strcasecmp(name, t[i].b) || !strcasecmp(name, t[i].c))
            return t[i].kind;
    return -1;
}
