/* A method whose next call cannot be requested from gRPC must not go
 * silent (review finding, issue 14 item 7): the server logs it, reports it
 * through on_fatal and cuzk_server_failed, and the daemon shuts down.
 *
 * grpc_server_request_registered_call is wrapped at link time
 * (-Wl,--wrap, src/server/CMakeLists.txt): once armed, the next re-arm --
 * the one after the GetStatus call below -- fails as gRPC would on a bad
 * queue.  The call itself is still answered; then on_fatal must fire.
 * Before the fix the failure was only logged and GetStatus stopped
 * answering for good. */
#include <grpc/grpc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "rpc.h"
#include "server.h"

grpc_call_error __real_grpc_server_request_registered_call(grpc_server *, void *, grpc_call **,
                                                           gpr_timespec *, grpc_metadata_array *,
                                                           grpc_byte_buffer **, grpc_completion_queue *,
                                                           grpc_completion_queue *, void *);
grpc_call_error __wrap_grpc_server_request_registered_call(grpc_server *, void *, grpc_call **,
                                                           gpr_timespec *, grpc_metadata_array *,
                                                           grpc_byte_buffer **, grpc_completion_queue *,
                                                           grpc_completion_queue *, void *);

static atomic_int fail_next, fatal_calls;

grpc_call_error __wrap_grpc_server_request_registered_call(grpc_server *s, void *m, grpc_call **c,
                                                           gpr_timespec *d, grpc_metadata_array *md,
                                                           grpc_byte_buffer **p, grpc_completion_queue *cq1,
                                                           grpc_completion_queue *cq2, void *tag)
{
    if (atomic_exchange(&fail_next, 0)) return GRPC_CALL_ERROR_NOT_SERVER_COMPLETION_QUEUE;
    return __real_grpc_server_request_registered_call(s, m, c, d, md, p, cq1, cq2, tag);
}

static void on_fatal(void *arg)
{
    (void)arg;
    atomic_fetch_add(&fatal_calls, 1);
}

#define CHECK(x)                                                                                             \
    do {                                                                                                     \
        if (!(x)) {                                                                                          \
            fprintf(stderr, "test_server_fatal: FAILED: %s (line %d)\n", #x, __LINE__);                      \
            return 1;                                                                                        \
        }                                                                                                    \
    } while (0)

static int get_status(cuzk_rpc_client *cl, char *err, size_t err_len)
{
    Cuzk__V1__GetStatusRequest rq = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *resp = NULL;
    int code = cuzk_rpc_call(cl, CUZK_RPC_STATUS, &rq.base, &cuzk__v1__get_status_response__descriptor, &resp,
                             10000, err, err_len);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    return code;
}

int main(void)
{
    char dir[] = "/tmp/cuzk-fatal-XXXXXX", err[1024];
    CHECK(mkdtemp(dir));
    cuzk_daemon_config cfg;
    cuzk_config_default(&cfg);
    snprintf(cfg.listen, sizeof cfg.listen, "unix://%s/cuzk.sock", dir);
    snprintf(cfg.engine.param_cache, sizeof cfg.engine.param_cache, "%s", dir);
    cfg.engine.log_level = CUZK_LOG_ERROR;
    cuzk_log_set_level(CUZK_LOG_ERROR);
    cuzk_engine *e = NULL;
    CHECK(cuzk_engine_create(&e, &cfg.engine, err, sizeof err) == CUZK_OK);
    cuzk_server *s = NULL;
    CHECK(cuzk_server_start(&s, e, &cfg, on_fatal, NULL, err, sizeof err) == CUZK_OK);
    cuzk_rpc_client *cl = cuzk_rpc_client_open(cfg.listen);
    CHECK(cl);
    CHECK(get_status(cl, err, sizeof err) == GRPC_STATUS_OK);
    CHECK(!cuzk_server_failed(s) && atomic_load(&fatal_calls) == 0);

    atomic_store(&fail_next, 1); /* the re-arm after the next GetStatus fails */
    CHECK(get_status(cl, err, sizeof err) == GRPC_STATUS_OK);
    for (int i = 0; i < 500 && !atomic_load(&fatal_calls); i++)
        usleep(10000);
    CHECK(atomic_load(&fatal_calls) == 1);
    CHECK(cuzk_server_failed(s));

    cuzk_rpc_client_close(cl);
    cuzk_server_stop(s, 1000);
    cuzk_engine_destroy(e);
    char lock[600];
    snprintf(lock, sizeof lock, "%s/cuzk.sock.lock", dir);
    unlink(lock);
    rmdir(dir);
    printf("test_server_fatal: ok (a failed re-arm is reported once; the call itself was answered)\n");
    return 0;
}
