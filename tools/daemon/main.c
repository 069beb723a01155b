/* cuzk-daemon (also installed as `cuzk`, the Rust daemon's name): the
 * persistent proving engine behind cuzk.v1.ProvingEngine.
 *
 *   cuzk-daemon [-c|--config FILE] [-l|--listen ADDR] [--status-listen HOST:PORT]
 *               [--param-cache DIR] [--log-level L] [--set section.key=value]...
 *               [--test-provider KIND] [--tls-cert PEM --tls-key PEM --tls-client-ca PEM]
 *               [--socket-mode MODE] [--socket-group GROUP] [--print-config] [--version]
 *
 * The command line of the Rust daemon works unchanged: -c/--config (default
 * /data/zk/cuzk.toml; missing there = defaults), -l/--listen, --log-level, and RUST_LOG
 * (if set) overrides the log level.
 *
 * Process-wide state lives here only: the engine, the server, the signal
 * mask.  SIGINT/SIGTERM are blocked in every thread (set before any thread
 * starts) and taken by sigwait in main, so shutdown runs in normal context:
 * stop accepting, let in-flight work finish within the grace period,
 * answer every waiter, exit 0.  A fatal server error takes the same path
 * (the server raises SIGTERM through on_fatal) and exits 1, so that a
 * supervisor restarts the daemon. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cuzk/engine.h"
#include "server.h"

#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif
#define DEFAULT_CONFIG "/data/zk/cuzk.toml"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-daemon [-c|--config FILE] [-l|--listen ADDR] [--status-listen HOST:PORT]\n"
            "                   [--param-cache DIR] [--log-level LEVEL] [--set section.key=value]...\n"
            "                   [--test-provider KIND] [--tls-cert PEM --tls-key PEM --tls-client-ca PEM]\n"
            "                   [--socket-mode MODE] [--socket-group GROUP] [--print-config] [--version]\n"
            "  -c, --config FILE     cuzk.toml (default " DEFAULT_CONFIG "; missing there = defaults)\n"
            "  -l, --listen ADDR     unix:///path/to.sock, /path/to.sock or host:port\n"
            "  --log-level LEVEL     error, warn, info, debug, trace (RUST_LOG, if set, overrides)\n"
            "  --test-provider KIND  serve KIND (test, porep, window_post, ...) with the engine's\n"
            "                        chain TEST circuit (tests and demos only)\n"
            "  --tls-cert, --tls-key, --tls-client-ca PEM\n"
            "                        TLS for a TCP listen, clients need a certificate signed by\n"
            "                        the CA (daemon.tls_*); plain TCP serves loopback and\n"
            "                        daemon.allow_plaintext_from only\n"
            "  --socket-mode MODE    unix socket permissions, octal (default 0660)\n"
            "  --socket-group GROUP  unix socket group (name or number)\n"
            "  --print-config        print the effective configuration (TOML) and exit\n"
            "  --version             print the version and exit\n"
            "Signals: SIGINT/SIGTERM = graceful shutdown (pipeline.shutdown_grace).\n");
}

static void warn_line(void *arg, const char *msg)
{
    (void)arg;
    fprintf(stderr, "cuzk-daemon: warning: %s\n", msg);
}

/* Options that map to config keys, applied after the file. */
static const struct {
    const char *opt, *alias, *key;
} shortcuts[] = {
    {"--listen", "-l", "daemon.listen"},
    {"--status-listen", NULL, "daemon.status_listen"},
    {"--param-cache", NULL, "srs.param_cache"},
    {"--log-level", NULL, "logging.level"},
    {"--test-provider", NULL, "daemon.test_provider"},
    {"--tls-cert", NULL, "daemon.tls_cert"},
    {"--tls-key", NULL, "daemon.tls_key"},
    {"--tls-client-ca", NULL, "daemon.tls_client_ca"},
    {"--socket-mode", NULL, "daemon.socket_mode"},
    {"--socket-group", NULL, "daemon.socket_group"},
    {"--set", NULL, NULL},
    {"--config", "-c", NULL},
};
#define NSHORT (sizeof shortcuts / sizeof shortcuts[0])

/* Option argv[*i] (also "--opt=value"): its table row and value, advancing
 * *i past a separate value.  -1 unknown option, -2 value missing. */
static int match_option(int argc, char **argv, int *i, const char **val)
{
    const char *a = argv[*i];
    for (int k = 0; k < (int)NSHORT; k++) {
        size_t ol = strlen(shortcuts[k].opt);
        if (!strncmp(a, shortcuts[k].opt, ol) && a[ol] == '=') {
            *val = a + ol + 1;
            return k;
        }
        if (strcmp(a, shortcuts[k].opt) && (!shortcuts[k].alias || strcmp(a, shortcuts[k].alias))) continue;
        if (*i + 1 >= argc) return -2;
        *val = argv[++*i];
        return k;
    }
    return -1;
}

/* The file: -c/--config, else DEFAULT_CONFIG.  A missing DEFAULT_CONFIG,
 * named or not, means the defaults with one warning: the Rust daemon does
 * so, and Curio's unit passes that path explicitly.  Any other missing file
 * is an error (the Rust daemon runs on defaults there too, silently; a
 * mistyped path must not start a daemon on the wrong socket). */
static int load_config(cuzk_daemon_config *cfg, int argc, char **argv, char *err, size_t err_len)
{
    const char *path = DEFAULT_CONFIG;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int k = match_option(argc, argv, &i, &v);
        if (k >= 0 && !strcmp(shortcuts[k].opt, "--config")) path = v;
    }
    if (!strcmp(path, DEFAULT_CONFIG) && access(path, F_OK)) {
        warn_line(NULL, "config file " DEFAULT_CONFIG " not found: using the defaults");
        return 0;
    }
    return cuzk_config_load(cfg, path, err, err_len, warn_line, NULL);
}

/* The server's on_fatal: the normal shutdown path, taken by sigwait. */
static void raise_shutdown(void *arg)
{
    (void)arg;
    kill(getpid(), SIGTERM);
}

/* Built-in providers, and the chain TEST circuit for the kind that
 * daemon.test_provider names (kind: -1 = none).  The wire kind TEST itself
 * is served by the engine when engine.test_provider is on (set with
 * daemon.test_provider).  0, or an exit code with the reason printed. */
static int register_providers(cuzk_engine *e, int kind)
{
    int rc = cuzk_engine_register_builtin(e);
    if (rc != CUZK_OK) {
        fprintf(stderr, "cuzk-daemon: engine: cannot register the proof providers: %s\n", cuzk_strerror(rc));
        return 1;
    }
    if (kind < 0 || kind == CUZK_PROOF_TEST) return 0;
    cuzk_engine_provider p;
    cuzk_engine_test_provider(&p);
    rc = cuzk_engine_register(e, (cuzk_proof_kind)kind, &p);
    if (rc != CUZK_OK) {
        fprintf(stderr, "cuzk-daemon: daemon.test_provider: cannot register for %s: %s\n",
                cuzk_proof_kind_name((cuzk_proof_kind)kind), cuzk_strerror(rc));
        return 1;
    }
    cuzk_log(CUZK_LOG_WARN, NULL, "proof kind %s is served by the chain TEST circuit (daemon.test_provider)",
             cuzk_proof_kind_name((cuzk_proof_kind)kind));
    return 0;
}

int main(int argc, char **argv)
{
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &sigs, NULL)) {
        fprintf(stderr, "cuzk-daemon: cannot block SIGINT/SIGTERM\n");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);

    cuzk_daemon_config cfg;
    cuzk_config_default(&cfg);
    char err[1024];
    bool print = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            printf("cuzk-daemon %s\n", CUZK_VERSION);
            return 0;
        }
    }
    if (load_config(&cfg, argc, argv, err, sizeof err)) {
        fprintf(stderr, "cuzk-daemon: %s\n", err);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--print-config")) {
            print = true;
            continue;
        }
        int k = match_option(argc, argv, &i, &v);
        if (k == -2) {
            fprintf(stderr, "cuzk-daemon: %s needs a value\n", a);
            return 2;
        }
        if (k == -1) {
            fprintf(stderr, "cuzk-daemon: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (!strcmp(shortcuts[k].opt, "--config")) continue;
        char assign[1200];
        snprintf(assign, sizeof assign, "%s%s%s", shortcuts[k].key ? shortcuts[k].key : "",
                 shortcuts[k].key ? "=" : "", v);
        if (cuzk_config_set(&cfg, assign, err, sizeof err)) {
            fprintf(stderr, "cuzk-daemon: %s\n", err);
            return 2;
        }
    }
    /* $CUZK_BACKEND (tests, the device check) overrides gpus.backend */
    const char *backend = getenv("CUZK_BACKEND");
    if (backend && *backend) {
        char assign[64];
        snprintf(assign, sizeof assign, "gpus.backend=%.40s", backend);
        if (cuzk_config_set(&cfg, assign, err, sizeof err)) {
            fprintf(stderr, "cuzk-daemon: $CUZK_BACKEND: %s\n", err);
            return 2;
        }
    }
    const char *rust_log = getenv("RUST_LOG");
    if (rust_log && *rust_log && cuzk_config_rust_log(&cfg.engine.log_level, rust_log))
        fprintf(stderr, "cuzk-daemon: warning: RUST_LOG='%s' names no level for cuzk; ignored\n", rust_log);
    /* --print-config exits as a start with this configuration would: the
     * checks below come first (exit 2 with the reason), then the print. */
    if (cuzk_server_check_access(&cfg, err, sizeof err)) {
        fprintf(stderr, "cuzk-daemon: %s\n", err);
        return 2;
    }
    int test_kind = cfg.test_provider[0] ? cuzk_config_kind_parse(cfg.test_provider) : -1;
    if (cfg.test_provider[0] && test_kind <= CUZK_PROOF_UNSPECIFIED) {
        fprintf(stderr, "cuzk-daemon: daemon.test_provider '%s': not a proof kind\n", cfg.test_provider);
        return 2;
    }
    if (print) {
        cuzk_config_write_toml(&cfg, stdout);
        return 0;
    }
    if (test_kind >= 0)
        cfg.engine.test_provider = true; /* a test setup: TEST kind on, params in cuzk-test/ */
    cuzk_log_set_level(cfg.engine.log_level);
    /* As the Rust daemon: libraries that read the variable see our cache. */
    if (setenv("FIL_PROOFS_PARAMETER_CACHE", cfg.engine.param_cache, 1))
        fprintf(stderr, "cuzk-daemon: warning: cannot set FIL_PROOFS_PARAMETER_CACHE\n");

    cuzk_engine *e = NULL;
    if (cuzk_engine_create(&e, &cfg.engine, err, sizeof err)) {
        fprintf(stderr, "cuzk-daemon: engine: %s\n", err);
        return 1;
    }
    int rc = register_providers(e, test_kind);
    if (rc) {
        cuzk_engine_destroy(e);
        return rc;
    }
    cuzk_server *s = NULL;
    if (cuzk_server_start(&s, e, &cfg, raise_shutdown, NULL, err, sizeof err)) {
        fprintf(stderr, "cuzk-daemon: %s\n", err);
        cuzk_engine_destroy(e);
        return 1;
    }
    cuzk_log(CUZK_LOG_INFO, NULL, "cuzk-daemon ready (version %s, pid %ld, listen %s, param_cache %s)",
             CUZK_VERSION, (long)getpid(), cfg.listen, cfg.engine.param_cache);
    int sig = 0;
    if (sigwait(&sigs, &sig)) /* EINVAL only, for a bad set */
        cuzk_log(CUZK_LOG_ERROR, NULL, "sigwait failed: shutting down");
    bool failed = cuzk_server_failed(s);
    cuzk_log(CUZK_LOG_INFO, NULL, "%s: shutting down (grace %u ms)",
             failed          ? "fatal server error"
             : sig == SIGINT ? "SIGINT"
                             : "SIGTERM",
             cfg.engine.shutdown_grace_ms);
    cuzk_server_stop(s, cfg.engine.shutdown_grace_ms);
    cuzk_engine_destroy(e);
    cuzk_log(CUZK_LOG_INFO, NULL, "cuzk-daemon stopped%s", failed ? " after a fatal server error" : "");
    return failed ? 1 : 0;
}
