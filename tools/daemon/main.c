/* cuzk-daemon: the persistent proving engine behind cuzk.v1.ProvingEngine.
 *
 *   cuzk-daemon [--config FILE] [--listen ADDR] [--status-listen HOST:PORT]
 *               [--param-cache DIR] [--log-level L] [--set section.key=value]...
 *               [--test-provider KIND] [--print-config]
 *
 * Process-wide state lives here only: the engine, the server, the signal
 * mask.  SIGINT/SIGTERM are blocked in every thread (set before any thread
 * starts) and taken by sigwait in main, so shutdown runs in normal context:
 * stop accepting, let in-flight work finish within the grace period,
 * answer every waiter, exit 0. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cuzk/engine.h"
#include "server.h"


static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-daemon [--config FILE] [--listen ADDR] [--status-listen HOST:PORT]\n"
            "                   [--param-cache DIR] [--log-level LEVEL] [--set section.key=value]...\n"
            "                   [--test-provider KIND] [--print-config]\n"
            "  ADDR: unix:///path/to.sock, /path/to.sock or host:port\n"
            "  --test-provider KIND  serve KIND (test, porep, window_post, ...) with the engine's\n"
            "                        chain TEST circuit (tests and demos only)\n"
            "  --print-config        print the effective configuration (TOML) and exit\n"
            "Signals: SIGINT/SIGTERM = graceful shutdown (pipeline.shutdown_grace).\n");
}

static void warn_line(void *arg, const char *msg)
{
    (void)arg;
    cuzk_log(CUZK_LOG_WARN, NULL, "%s", msg);
}

/* Options that map to config keys, applied after the file. */
static const struct {
    const char *opt, *key;
} shortcuts[] = {
    {"--listen", "daemon.listen"},
    {"--status-listen", "daemon.status_listen"},
    {"--param-cache", "srs.param_cache"},
    {"--log-level", "logging.level"},
    {"--test-provider", "daemon.test_provider"},
};

int main(int argc, char **argv)
{
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    cuzk_daemon_config cfg;
    cuzk_config_default(&cfg);
    char err[1024];
    bool print = false;
    const char *config_path = NULL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--config") && i + 1 < argc) config_path = argv[++i];
    if (config_path && cuzk_config_load(&cfg, config_path, err, sizeof err, warn_line, NULL)) {
        fprintf(stderr, "cuzk-daemon: %s\n", err);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--print-config")) {
            print = true;
            continue;
        }
        if (!strcmp(a, "--config")) {
            i++;
            continue;
        }
        const char *key = NULL;
        for (size_t k = 0; k < sizeof shortcuts / sizeof shortcuts[0]; k++)
            if (!strcmp(a, shortcuts[k].opt)) key = shortcuts[k].key;
        if (key || !strcmp(a, "--set")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzk-daemon: %s needs a value\n", a);
                return 2;
            }
            char assign[1200];
            snprintf(assign, sizeof assign, key ? "%s=%s" : "%s%s", key ? key : "", argv[++i]);
            if (cuzk_config_set(&cfg, assign, err, sizeof err)) {
                fprintf(stderr, "cuzk-daemon: %s\n", err);
                return 2;
            }
            continue;
        }
        fprintf(stderr, "cuzk-daemon: unknown option '%s'\n", a);
        usage(stderr);
        return 2;
    }
    if (print) {
        cuzk_config_write_toml(&cfg, stdout);
        return 0;
    }
    cuzk_log_set_level(cfg.engine.log_level);

    cuzk_engine *e = NULL;
    if (cuzk_engine_create(&e, &cfg.engine, err, sizeof err)) {
        fprintf(stderr, "cuzk-daemon: engine: %s\n", err);
        return 1;
    }
    cuzk_engine_register_builtin(e); /* WinningPoSt, WindowPoSt */
    if (cfg.test_provider[0]) {
        int kind = cuzk_config_kind_parse(cfg.test_provider);
        if (kind < 0) {
            fprintf(stderr, "cuzk-daemon: daemon.test_provider '%s': not a proof kind\n", cfg.test_provider);
            cuzk_engine_destroy(e);
            return 2;
        }
        cuzk_engine_provider p;
        cuzk_engine_test_provider(&p);
        cuzk_engine_register(e, (cuzk_proof_kind)kind, &p);
        cuzk_log(CUZK_LOG_WARN, NULL, "proof kind %s is served by the chain TEST circuit (daemon.test_provider)",
                 cuzk_proof_kind_name((cuzk_proof_kind)kind));
    }
    cuzk_server *s = NULL;
    if (cuzk_server_start(&s, e, &cfg, err, sizeof err)) {
        fprintf(stderr, "cuzk-daemon: %s\n", err);
        cuzk_engine_destroy(e);
        return 1;
    }
    cuzk_log(CUZK_LOG_INFO, NULL, "cuzk-daemon ready (pid %ld, param_cache %s)", (long)getpid(),
             cfg.engine.param_cache);
    int sig = 0;
    sigwait(&sigs, &sig);
    cuzk_log(CUZK_LOG_INFO, NULL, "%s: shutting down (grace %u ms)", sig == SIGINT ? "SIGINT" : "SIGTERM",
             cfg.engine.shutdown_grace_ms);
    cuzk_server_stop(s, cfg.engine.shutdown_grace_ms);
    cuzk_engine_destroy(e);
    cuzk_log(CUZK_LOG_INFO, NULL, "cuzk-daemon stopped");
    return 0;
}
