/* cuzk.v1.ProvingEngine over gRPC's C core; design in server.h. */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "rpc.h"
#include "server_access.h"
#include "server_internal.h"

/* Every srv_call crosses threads through gRPC's completion queue: the
 * thread that starts an operation (request_call: main or cq thread;
 * cuzk_srv_reply: a handler thread) writes the call, gRPC's poller completes it,
 * and cq_main reads (and may free) it.  Debian's libgrpc is not built with
 * ThreadSanitizer, so that ordering is invisible to it and every hand-off
 * would read as a race.  Under TSan the start of an operation releases its
 * tag and cq_main acquires the tag it receives -- exactly the happens-before
 * edge that the queue provides -- so that TSan checks everything else. */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define TAG_HANDOFF(tag) __tsan_release(tag)
#define TAG_RECEIVED(tag) __tsan_acquire(tag)
#else
#define TAG_HANDOFF(tag) ((void)(tag))
#define TAG_RECEIVED(tag) ((void)(tag))
#endif

enum { TAG_NEW, TAG_CLOSE, TAG_SEND, TAG_SHUTDOWN };
typedef struct srv_tag {
    int type;
    struct srv_call *call;
} srv_tag;

/* Bounds the number of handler threads (each waiting call holds one). */
#define MAX_HANDLERS 8192

/* Requests other than SubmitProof and Prove carry an id at most (job ids
 * are < 128 bytes): larger ones are refused before decoding, so that those
 * calls need no request memory (decoded, 4 KiB of tiny fields is < 200
 * KiB; see wire.c). */
#define SMALL_REQUEST_MAX 4096

typedef struct srv_method {
    const char *path;
    const ProtobufCMessageDescriptor *req;
    void *handle;
    bool threaded; /* may block: runs on its own handler thread */
    bool big;      /* SubmitProof, Prove: up to CUZK_RPC_MAX_MESSAGE, charged to
                      memory.request_budget; others: SMALL_REQUEST_MAX */
    void (*fn)(srv_call *c);
} srv_method;

struct cuzk_server {
    cuzk_engine *e;
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t cq_thread;
    srv_method methods[M_COUNT];
    srv_tag shutdown_tag;
    int port;
    char sock_path[600];
    int lock_fd;
    cuzk_http *http;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int handlers;       /* live handler threads */
    int calls;          /* accepted calls not yet freed (both completions pending) */
    bool shutdown_done; /* TAG_SHUTDOWN seen */
    atomic_bool failed; /* a method could not be re-armed: see server_fatal */
    void (*on_fatal)(void *arg);
    void *fatal_arg;
    srv_peer_guard guard; /* protected mode of plain-text TCP (cq thread only) */
};

struct srv_call {
    cuzk_server *srv;
    int method;
    grpc_call *call;
    gpr_timespec deadline;
    grpc_metadata_array md;
    grpc_byte_buffer *payload;
    srv_tag t_new, t_close, t_send;
    int close_cancelled;
    atomic_int abandon;
    atomic_int refs;
    ProtobufCMessage *req;
    cuzk_rpc_budget budget; /* req's allocator (decode_request) */
    uint64_t held;          /* memory.request_budget held for the payload and req */
    grpc_byte_buffer *resp_bb;
    grpc_slice details;
    bool has_details;
    grpc_call_details generic; /* method == M_COUNT: an unregistered method */
};

cuzk_engine *cuzk_srv_engine(const srv_call *c)
{
    return c->srv->e;
}
const ProtobufCMessage *cuzk_srv_request(const srv_call *c)
{
    return c->req;
}
const atomic_int *cuzk_srv_abandon_flag(const srv_call *c)
{
    return &c->abandon;
}

/* Frees the decoded request and gives back the request memory it held. */
void cuzk_srv_drop_request(srv_call *c)
{
    if (c->req) cuzk_rpc_free_budget(c->req, &c->budget);
    c->req = NULL;
    cuzk_engine_request_release(c->srv->e, c->held);
    c->held = 0;
}

static void call_free(srv_call *c)
{
    cuzk_server *s = c->srv;
    pthread_mutex_lock(&s->mu);
    if (--s->calls == 0) pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (c->method == M_COUNT) grpc_call_details_destroy(&c->generic);
    if (c->call) grpc_call_unref(c->call);
    grpc_metadata_array_destroy(&c->md);
    if (c->payload) grpc_byte_buffer_destroy(c->payload);
    if (c->method < M_COUNT) cuzk_srv_drop_request(c);
    if (c->resp_bb) grpc_byte_buffer_destroy(c->resp_bb);
    if (c->has_details) grpc_slice_unref(c->details);
    free(c);
}

static void call_unref(srv_call *c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1) call_free(c);
}

/* A method whose next call cannot be requested would stop answering for
 * good while the daemon looks alive (Curio's Prove would hang to its
 * deadline).  grpc_server_request_*call fails only on a wrong queue or
 * handle (a bug: a retry fails the same way) or when memory runs out, and
 * the completion-queue API has no timer to retry later.  So it is fatal:
 * logged, reported to the daemon (on_fatal), which shuts down cleanly --
 * answering every waiter -- and exits non-zero for its supervisor. */
static void server_fatal(cuzk_server *s, const char *method, const char *why)
{
    cuzk_log(CUZK_LOG_ERROR, NULL, "server: cannot accept further %s calls (%s): shutting down", method, why);
    if (atomic_exchange(&s->failed, true)) return;
    if (s->on_fatal) s->on_fatal(s->fatal_arg);
}

/* Ask gRPC for the next call of method m (one outstanding per method). */
static void request_call(cuzk_server *s, int m)
{
    srv_call *c = calloc(1, sizeof *c);
    if (!c) {
        server_fatal(s, s->methods[m].path, "out of memory");
        return;
    }
    c->srv = s;
    c->method = m;
    c->t_new = (srv_tag){TAG_NEW, c};
    c->t_close = (srv_tag){TAG_CLOSE, c};
    c->t_send = (srv_tag){TAG_SEND, c};
    grpc_metadata_array_init(&c->md);
    TAG_HANDOFF(&c->t_new);
    grpc_call_error ce =
        grpc_server_request_registered_call(s->server, s->methods[m].handle, &c->call, &c->deadline, &c->md,
                                            &c->payload, s->cq, s->cq, &c->t_new);
    if (ce != GRPC_CALL_OK) {
        char why[64];
        snprintf(why, sizeof why, "grpc_server_request_registered_call error %d", (int)ce);
        grpc_metadata_array_destroy(&c->md);
        free(c);
        server_fatal(s, s->methods[m].path, why);
    }
}

/* Calls to methods we do not register arrive here, so that they get
 * UNIMPLEMENTED at once instead of hanging until their deadline. */
static void request_generic(cuzk_server *s)
{
    srv_call *c = calloc(1, sizeof *c);
    if (!c) {
        server_fatal(s, "unregistered-method", "out of memory");
        return;
    }
    c->srv = s;
    c->method = M_COUNT;
    c->t_new = (srv_tag){TAG_NEW, c};
    c->t_send = (srv_tag){TAG_SEND, c};
    grpc_metadata_array_init(&c->md);
    grpc_call_details_init(&c->generic);
    TAG_HANDOFF(&c->t_new);
    grpc_call_error ce =
        grpc_server_request_call(s->server, &c->call, &c->generic, &c->md, s->cq, s->cq, &c->t_new);
    if (ce != GRPC_CALL_OK) {
        char why[64];
        snprintf(why, sizeof why, "grpc_server_request_call error %d", (int)ce);
        grpc_call_details_destroy(&c->generic);
        grpc_metadata_array_destroy(&c->md);
        free(c);
        server_fatal(s, "unregistered-method", why);
    }
}

static void reply_unimplemented(srv_call *c)
{
    char *m = grpc_slice_to_c_string(c->generic.method), msg[420];
    snprintf(msg, sizeof msg,
             "unknown method %.200s (cuzk.v1.ProvingEngine has SubmitProof, AwaitProof, Prove, "
             "CancelProof, GetStatus, GetMetrics, PreloadSRS, EvictSRS)",
             m);
    gpr_free(m);
    atomic_store(&c->refs, 1);
    cuzk_srv_reply(c, GRPC_STATUS_UNIMPLEMENTED, msg, NULL);
}

void cuzk_srv_reply(srv_call *c, int code, const char *msg, const ProtobufCMessage *resp)
{
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (resp && code == GRPC_STATUS_OK) {
        c->resp_bb = cuzk_rpc_pack(resp);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = c->resp_bb;
    }
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = (grpc_status_code)code;
    if (msg && *msg) {
        c->details = grpc_slice_from_copied_string(msg);
        c->has_details = true;
        ops[n].data.send_status_from_server.status_details = &c->details;
    }
    n++;
    if (code != GRPC_STATUS_OK)
        cuzk_log(CUZK_LOG_DEBUG, NULL, "%s -> %s: %s",
                 c->method < M_COUNT ? c->srv->methods[c->method].path : "(unregistered)",
                 cuzk_rpc_code_name(code), msg ? msg : "");
    grpc_call *call = c->call; /* read before the hand-off: cq_main may free c */
    TAG_HANDOFF(&c->t_send);
    if (grpc_call_start_batch(call, ops, n, &c->t_send, NULL) != GRPC_CALL_OK) call_unref(c);
}

/* The payload copied into one flat slice (protobuf-c decodes contiguous
 * bytes); the payload is freed at once.  The caller unrefs *flat. */
static int flatten(srv_call *c, grpc_slice *flat, char *err, size_t err_len)
{
    grpc_byte_buffer_reader r;
    if (!grpc_byte_buffer_reader_init(&r, c->payload))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "cannot read the %s message (compression?)",
                         c->srv->methods[c->method].req->name);
    *flat = grpc_byte_buffer_reader_readall(&r);
    grpc_byte_buffer_reader_destroy(&r);
    grpc_byte_buffer_destroy(c->payload);
    c->payload = NULL;
    return CUZK_OK;
}

/* Decodes the payload into c->req within request memory (handler thread
 * for SubmitProof and Prove, cq thread for the small ones).  The received
 * bytes are already held (dispatch: twice their size, for gRPC's buffer
 * and the flat copy); the decoded form is reserved at its bound before
 * protobuf-c allocates any of it, and the allocator stops there.  0, or
 * -1 after replying. */
static int decode_request(srv_call *c)
{
    cuzk_server *s = c->srv;
    const ProtobufCMessageDescriptor *d = s->methods[c->method].req;
    char err[CUZK_ENGINE_ERR_LEN], what[160];
    grpc_slice flat = grpc_empty_slice();
    uint64_t bound = 0;
    int code = GRPC_STATUS_INVALID_ARGUMENT;
    if (!c->payload) {
        cuzk_errf(err, sizeof err, CUZK_ERR_FORMAT, "no %s message received", d->name);
        goto fail;
    }
    if (flatten(c, &flat, err, sizeof err)) goto fail;
    const uint8_t *buf = GRPC_SLICE_START_PTR(flat);
    size_t len = GRPC_SLICE_LENGTH(flat);
    if (cuzk_rpc_decode_bound(&bound, d, buf, len, err, sizeof err)) goto fail;
    snprintf(what, sizeof what, "decoding this %s (%zu bytes on the wire, up to %llu bytes decoded)", d->name,
             len, (unsigned long long)bound);
    if (s->methods[c->method].big && cuzk_engine_request_reserve(s->e, bound, what, err, sizeof err)) {
        code = GRPC_STATUS_RESOURCE_EXHAUSTED;
        goto fail;
    }
    if (s->methods[c->method].big) c->held += bound;
    cuzk_rpc_budget_init(&c->budget, bound);
    c->req = cuzk_rpc_unpack_budget(d, buf, len, &c->budget, err, sizeof err);
    grpc_slice_unref(flat);
    if (!c->req) {
        if (c->budget.exhausted) code = GRPC_STATUS_RESOURCE_EXHAUSTED;
        goto fail_held;
    }
    /* gRPC's buffer and the flat copy are gone: hold what the decoded form does */
    if (s->methods[c->method].big && c->held > c->budget.used) {
        cuzk_engine_request_release(s->e, c->held - c->budget.used);
        c->held = c->budget.used;
    }
    return 0;
fail:
    grpc_slice_unref(flat);
fail_held:
    cuzk_srv_drop_request(c);
    cuzk_srv_reply(c, code, err, NULL);
    return -1;
}

static void *handler_main(void *arg)
{
    srv_call *c = arg;
    cuzk_server *s = c->srv;
    if (!decode_request(c)) s->methods[c->method].fn(c);
    pthread_mutex_lock(&s->mu);
    if (--s->handlers == 0) pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Completion-queue thread: receives the bytes and hands them on.  Only
 * the small methods are decoded here; SubmitProof and Prove are charged
 * their received bytes (twice: gRPC's buffer, then the flat copy the
 * handler makes) and decoded on their handler thread. */
static void dispatch(cuzk_server *s, srv_call *c)
{
    char err[CUZK_ENGINE_ERR_LEN];
    const srv_method *m = &s->methods[c->method];
    /* Both completions (close + send) hold a reference. */
    atomic_store(&c->refs, 2);
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->close_cancelled;
    TAG_HANDOFF(&c->t_close);
    if (grpc_call_start_batch(c->call, &op, 1, &c->t_close, NULL) != GRPC_CALL_OK)
        atomic_fetch_sub(&c->refs, 1);

    size_t wire = c->payload ? grpc_byte_buffer_length(c->payload) : 0;
    if (!m->big && wire > SMALL_REQUEST_MAX) {
        snprintf(err, sizeof err, "%s of %zu bytes: this method takes at most %d", m->req->name, wire,
                 SMALL_REQUEST_MAX);
        cuzk_srv_reply(c, GRPC_STATUS_INVALID_ARGUMENT, err, NULL);
        return;
    }
    if (m->big) {
        char what[160];
        snprintf(what, sizeof what, "this %s of %zu bytes (held twice while it is copied and decoded)",
                 m->req->name, wire);
        if (cuzk_engine_request_reserve(s->e, 2 * (uint64_t)wire, what, err, sizeof err)) {
            cuzk_srv_reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, err, NULL);
            return;
        }
        c->held = 2 * (uint64_t)wire;
    }
    if (!m->threaded) {
        if (!decode_request(c)) m->fn(c);
        return;
    }
    pthread_mutex_lock(&s->mu);
    bool ok = s->handlers < MAX_HANDLERS;
    if (ok) s->handlers++;
    pthread_mutex_unlock(&s->mu);
    if (!ok) {
        cuzk_srv_reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "too many concurrent waiting calls", NULL);
        return;
    }
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 256 * 1024);
    pthread_t t;
    int rc = pthread_create(&t, &at, handler_main, c);
    pthread_attr_destroy(&at);
    if (rc) {
        pthread_mutex_lock(&s->mu);
        if (--s->handlers == 0) pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        cuzk_srv_reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "cannot start a handler thread", NULL);
    }
}

/* Protected mode (server_access.h): a peer that may not call gets
 * PERMISSION_DENIED before its request is charged or decoded (its bytes,
 * already received, are freed with the call). */
static bool peer_ok(cuzk_server *s, srv_call *c)
{
    if (!s->guard.on) return true;
    char *peer = grpc_call_get_peer(c->call), msg[640];
    bool ok = cuzk_srv_peer_allowed(&s->guard, peer, msg, sizeof msg);
    gpr_free(peer);
    if (ok) return true;
    atomic_store(&c->refs, 1); /* the send's completion only: nothing else was started */
    cuzk_srv_reply(c, GRPC_STATUS_PERMISSION_DENIED, msg, NULL);
    return false;
}

static void *cq_main(void *arg)
{
    cuzk_server *s = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        if (ev.type != GRPC_OP_COMPLETE) continue;
        srv_tag *tag = ev.tag;
        TAG_RECEIVED(tag);
        srv_call *c = tag->call;
        switch (tag->type) {
        case TAG_NEW:
            if (!ev.success) { /* server shutting down: no call */
                if (c->method == M_COUNT) grpc_call_details_destroy(&c->generic);
                grpc_metadata_array_destroy(&c->md);
                if (c->payload) grpc_byte_buffer_destroy(c->payload);
                if (c->call) grpc_call_unref(c->call);
                free(c);
                break;
            }
            pthread_mutex_lock(&s->mu);
            s->calls++;
            pthread_mutex_unlock(&s->mu);
            if (c->method == M_COUNT)
                request_generic(s);
            else
                request_call(s, c->method);
            if (!peer_ok(s, c)) break;
            if (c->method == M_COUNT)
                reply_unimplemented(c);
            else
                dispatch(s, c);
            break;
        case TAG_CLOSE:
            if (c->close_cancelled) c->abandon = 1;
            call_unref(c);
            break;
        case TAG_SEND:
            call_unref(c);
            break;
        case TAG_SHUTDOWN:
            pthread_mutex_lock(&s->mu);
            s->shutdown_done = true;
            pthread_cond_broadcast(&s->cv);
            pthread_mutex_unlock(&s->mu);
            break;
        }
    }
    return NULL;
}

/* Unix socket path of a listen address, or "" for TCP. */
static void unix_path(char *out, size_t cap, const char *addr)
{
    out[0] = 0;
    const char *p = NULL;
    if (!strncmp(addr, "unix://", 7))
        p = addr + 7;
    else if (!strncmp(addr, "unix:", 5))
        p = addr + 5;
    else if (addr[0] == '/')
        p = addr;
    if (p) snprintf(out, cap, "%s", p);
}

/* mkdir -p of the socket's directory (the Rust daemon does the same:
 * /run/curio is usually missing after a reboot). */
static int make_parent_dirs(const char *sock_path, char *err, size_t err_len)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s", sock_path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return CUZK_OK;
    *slash = 0;
    for (char *p = dir + 1;; p++) {
        bool last = !*p;
        if (*p != '/' && !last) continue;
        *p = 0;
        if (mkdir(dir, 0755) && errno != EEXIST)
            return cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot create the socket directory %s: %s", dir,
                             strerror(errno));
        if (last) return CUZK_OK;
        *p = '/';
    }
}

static const char *file_kind(mode_t m)
{
    switch (m & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFLNK:
        return "a symbolic link";
    case S_IFIFO:
        return "a FIFO";
    case S_IFSOCK:
        return "a socket";
    default:
        return "a device or other special file";
    }
}

/* The lock file is opened without following a symlink and must be a plain
 * file of one link: the daemon often runs as root in a directory others
 * may write, and ftruncate would clobber whatever a planted name points at. */
static int open_lock(int *fdp, const char *lock, char *err, size_t err_len)
{
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd < 0 && errno == ELOOP)
        return cuzk_errf(err, err_len, CUZK_ERR_IO,
                         "lock file %s is a symbolic link: refusing to follow it (remove it, or choose "
                         "another daemon.listen)",
                         lock);
    if (fd < 0)
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot open lock file %s: %s", lock, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_nlink != 1) {
        int st = cuzk_errf(err, err_len, CUZK_ERR_IO,
                           "lock file %s is %s with %lu link(s), not a plain file of its own: refusing it",
                           lock, file_kind(sb.st_mode), (unsigned long)sb.st_nlink);
        close(fd);
        return st;
    }
    *fdp = fd;
    return CUZK_OK;
}

/* Remove the socket at path (a stale one, or ours at stop): only a socket (lstat, so a symlink
 * is not followed); anything else there is refused by name. */
static int remove_socket(const char *path, char *err, size_t err_len)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT ? CUZK_OK
                               : cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot inspect the socket path %s: %s",
                                           path, strerror(errno));
    if (!S_ISSOCK(sb.st_mode))
        return cuzk_errf(err, err_len, CUZK_ERR_IO,
                         "socket path %s is %s, not a socket: refusing to remove it (move it away, or choose "
                         "another daemon.listen)",
                         path, file_kind(sb.st_mode));
    if (unlink(path) && errno != ENOENT)
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "cannot remove the stale socket %s: %s", path,
                         strerror(errno));
    return CUZK_OK;
}

static int take_lock(cuzk_server *s, char *err, size_t err_len)
{
    char lock[640];
    snprintf(lock, sizeof lock, "%s.lock", s->sock_path);
    int fd = -1, st = open_lock(&fd, lock, err, err_len);
    if (st) return st;
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        char pid[32] = "";
        ssize_t r = pread(fd, pid, sizeof pid - 1, 0);
        pid[r > 0 ? r : 0] = 0;
        pid[strcspn(pid, "\n")] = 0;
        close(fd);
        return cuzk_errf(err, err_len, CUZK_ERR_IO,
                         "another cuzk-daemon (pid %s) holds %s: refusing to take over %s", *pid ? pid : "?",
                         lock, s->sock_path);
    }
    /* We hold the lock, so a socket left there is stale. */
    if ((st = remove_socket(s->sock_path, err, err_len))) {
        close(fd);
        return st;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n)
        cuzk_log(CUZK_LOG_WARN, NULL, "cannot write pid into %s", lock);
    s->lock_fd = fd;
    return CUZK_OK;
}

static void method_handlers(cuzk_server *s);

/* The gRPC server, its queue and the eight registered methods. */
static int grpc_setup(cuzk_server *s, char *err, size_t err_len)
{
    grpc_arg a[3];
    a[0].type = a[1].type = a[2].type = GRPC_ARG_INTEGER;
    a[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    a[1].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    a[0].value.integer = a[1].value.integer = (int)CUZK_RPC_MAX_MESSAGE;
    a[2].key = (char *)GRPC_ARG_ALLOW_REUSEPORT;
    a[2].value.integer = 0;
    grpc_channel_args args = {3, a};
    s->server = grpc_server_create(&args, NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    if (!s->server || !s->cq) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cannot create the gRPC server");
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    method_handlers(s);
    for (int m = 0; m < M_COUNT; m++) {
        s->methods[m].handle = grpc_server_register_method(s->server, s->methods[m].path, NULL,
                                                           GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
        if (!s->methods[m].handle)
            return cuzk_errf(err, err_len, CUZK_ERR_ARG, "gRPC refused to register %s", s->methods[m].path);
    }
    return CUZK_OK;
}

/* Undo grpc_setup (and a bind) of a server that never served.  A server
 * with listeners must be shut down before it is destroyed. */
static void grpc_teardown(cuzk_server *s, bool bound)
{
    if (bound) {
        s->shutdown_tag = (srv_tag){TAG_SHUTDOWN, NULL};
        TAG_HANDOFF(&s->shutdown_tag);
        grpc_server_shutdown_and_notify(s->server, s->cq, &s->shutdown_tag);
        while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).tag !=
               &s->shutdown_tag)
            ;
    }
    if (s->server) grpc_server_destroy(s->server);
    if (s->cq) {
        grpc_completion_queue_shutdown(s->cq);
        while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN)
            ;
        grpc_completion_queue_destroy(s->cq);
    }
}

/* Binds daemon.listen with the credentials its address requires; a unix
 * socket is bound in its stage and published with its mode and group. */
static int bind_listener(cuzk_server *s, const cuzk_daemon_config *cfg, const char *target,
                         srv_socket_stage *st, bool *bound, char *err, size_t err_len)
{
    char at[700];
    snprintf(at, sizeof at, "%s%s", s->sock_path[0] ? "unix:" : "", s->sock_path[0] ? st->path : target);
    grpc_server_credentials *cr;
    if (cuzk_srv_credentials(&cr, cfg, err, err_len)) return CUZK_ERR_ARG;
    s->port = grpc_server_add_http2_port(s->server, at, cr);
    grpc_server_credentials_release(cr);
    if (s->port <= 0)
        return cuzk_errf(err, err_len, CUZK_ERR_IO,
                         "cannot listen on %s (address in use, bad address or no permission)", target);
    *bound = true;
    if (s->sock_path[0]) return cuzk_srv_socket_publish(st, s->sock_path, cfg, err, err_len);
    return CUZK_OK;
}

static void log_listening(const cuzk_server *s, const cuzk_daemon_config *cfg, const char *target)
{
    if (s->sock_path[0])
        cuzk_log(CUZK_LOG_INFO, NULL, "gRPC listening on %s (mode 0%03o%s%s)", target, cfg->socket_mode,
                 cfg->socket_group[0] ? ", group " : "", cfg->socket_group);
    else if (cfg->tls_cert[0])
        cuzk_log(CUZK_LOG_INFO, NULL, "gRPC listening on %s (tcp port %d, TLS, client certificate required)",
                 target, s->port);
    else {
        char who[200];
        cuzk_srv_peer_guard_describe(&s->guard, who, sizeof who);
        cuzk_log(CUZK_LOG_INFO, NULL,
                 "gRPC listening on %s (tcp port %d, %s; other peers get PERMISSION_DENIED)", target, s->port,
                 who);
    }
}

int cuzk_server_start(cuzk_server **out, cuzk_engine *e, const cuzk_daemon_config *cfg,
                      void (*on_fatal)(void *arg), void *fatal_arg, char *err, size_t err_len)
{
    *out = NULL;
    if (cuzk_server_check_access(cfg, err, err_len)) return CUZK_ERR_ARG;
    cuzk_server *s = calloc(1, sizeof *s);
    if (!s) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "out of memory");
    s->e = e;
    s->lock_fd = -1;
    s->on_fatal = on_fatal;
    s->fatal_arg = fatal_arg;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    srv_socket_stage st = {.dir = "", .path = ""};
    bool grpc_up = false, bound = false;
    int rc = CUZK_ERR_ARG;
    char target[600];
    if (cuzk_rpc_target(target, sizeof target, cfg->listen)) {
        cuzk_errf(err, err_len, CUZK_ERR_ARG, "daemon.listen '%s': empty or too long", cfg->listen);
        goto fail;
    }
    unix_path(s->sock_path, sizeof s->sock_path, target);
    cuzk_srv_peer_guard_init(&s->guard, cfg, !s->sock_path[0] && !cfg->tls_cert[0]);
    if (!s->guard.on && cfg->allow_plaintext_from.n)
        cuzk_log(CUZK_LOG_WARN, NULL, "daemon.allow_plaintext_from has no effect: daemon.listen %s is %s",
                 cfg->listen, s->sock_path[0] ? "a unix socket (its access is daemon.socket_mode/group)"
                                              : "TLS (clients need a certificate of daemon.tls_client_ca)");
    if (s->sock_path[0] &&
        ((rc = make_parent_dirs(s->sock_path, err, err_len)) || (rc = take_lock(s, err, err_len)) ||
         (rc = cuzk_srv_socket_stage_make(&st, s->sock_path, err, err_len))))
        goto fail;
    if (cfg->status_listen[0] && (rc = cuzk_http_start(&s->http, e, cfg, err, err_len))) goto fail;
    grpc_init();
    grpc_up = true;
    if ((rc = grpc_setup(s, err, err_len)) || (rc = bind_listener(s, cfg, target, &st, &bound, err, err_len)))
        goto fail;
    if (pthread_create(&s->cq_thread, NULL, cq_main, s)) {
        rc = cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "cannot start the completion-queue thread");
        goto fail;
    }
    grpc_server_start(s->server);
    for (int m = 0; m < M_COUNT; m++)
        request_call(s, m);
    request_generic(s);
    log_listening(s, cfg, target);
    *out = s;
    return CUZK_OK;
fail:
    if (grpc_up) {
        grpc_teardown(s, bound);
        grpc_shutdown();
    }
    cuzk_srv_socket_stage_drop(&st);
    if (s->http) cuzk_http_stop(s->http);
    if (s->lock_fd >= 0) close(s->lock_fd);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
    return rc;
}

bool cuzk_server_failed(const cuzk_server *s)
{
    return atomic_load(&s->failed);
}

int cuzk_server_port(const cuzk_server *s)
{
    return s->sock_path[0] ? 0 : s->port;
}
int cuzk_server_http_port(const cuzk_server *s)
{
    return s->http ? cuzk_http_port(s->http) : 0;
}

void cuzk_server_stop(cuzk_server *s, uint32_t grace_ms)
{
    if (!s) return;
    s->shutdown_tag = (srv_tag){TAG_SHUTDOWN, NULL};
    TAG_HANDOFF(&s->shutdown_tag);
    grpc_server_shutdown_and_notify(s->server, s->cq, &s->shutdown_tag);
    cuzk_engine_shutdown(s->e, grace_ms);
    /* The engine has answered every waiter: handler threads finish now. */
    pthread_mutex_lock(&s->mu);
    while (s->handlers)
        pthread_cond_wait(&s->cv, &s->mu);
    /* Their answers are on the wire: gRPC's shutdown completes once each
     * call has ended and each client has closed its connection after the
     * GOAWAY -- which an idle client that polls only during calls (Python's
     * grpc) does not do.  So wait (up to 2 s) for the calls alone; then,
     * with none left, cancel_all_calls only disconnects idle channels
     * (without this every stop with such a client attached took 2 s). */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    while (!s->shutdown_done && s->calls > 0)
        if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT) break;
    bool done = s->shutdown_done;
    pthread_mutex_unlock(&s->mu);
    if (!done) {
        grpc_server_cancel_all_calls(s->server);
        pthread_mutex_lock(&s->mu);
        while (!s->shutdown_done)
            pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
    }
    grpc_completion_queue_shutdown(s->cq);
    pthread_join(s->cq_thread, NULL);
    grpc_server_destroy(s->server);
    grpc_completion_queue_destroy(s->cq);
    grpc_shutdown();
    if (s->http) cuzk_http_stop(s->http);
    char uerr[256];
    if (s->sock_path[0] && remove_socket(s->sock_path, uerr, sizeof uerr))
        cuzk_log(CUZK_LOG_WARN, NULL, "%s", uerr);
    if (s->lock_fd >= 0) close(s->lock_fd);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

static void method_handlers(cuzk_server *s)
{
    static const struct {
        const char *path;
        const ProtobufCMessageDescriptor *req;
        bool threaded;
        void (*fn)(srv_call *);
    } t[M_COUNT] = {
        /* SubmitProof and Prove (the `big` ones below) parse, verify and may
         * wait; Await waits; Preload loads params; Evict frees them. */
        [M_SUBMIT] = {CUZK_RPC_SUBMIT, &cuzk__v1__submit_proof_request__descriptor, true,
                      cuzk_srv_handle_submit},
        [M_AWAIT] = {CUZK_RPC_AWAIT, &cuzk__v1__await_proof_request__descriptor, true, cuzk_srv_handle_await},
        [M_PROVE] = {CUZK_RPC_PROVE, &cuzk__v1__prove_request__descriptor, true, cuzk_srv_handle_prove},
        [M_CANCEL] = {CUZK_RPC_CANCEL, &cuzk__v1__cancel_proof_request__descriptor, false,
                      cuzk_srv_handle_cancel},
        [M_STATUS] = {CUZK_RPC_STATUS, &cuzk__v1__get_status_request__descriptor, false,
                      cuzk_srv_handle_status},
        [M_METRICS] = {CUZK_RPC_METRICS, &cuzk__v1__get_metrics_request__descriptor, false,
                       cuzk_srv_handle_metrics},
        [M_PRELOAD] = {CUZK_RPC_PRELOAD, &cuzk__v1__preload_srs_request__descriptor, true,
                       cuzk_srv_handle_preload},
        [M_EVICT] = {CUZK_RPC_EVICT, &cuzk__v1__evict_srs_request__descriptor, true, cuzk_srv_handle_evict},
    };
    for (int m = 0; m < M_COUNT; m++) {
        s->methods[m].path = t[m].path;
        s->methods[m].req = t[m].req;
        s->methods[m].threaded = t[m].threaded;
        s->methods[m].big = m == M_SUBMIT || m == M_PROVE;
        s->methods[m].fn = t[m].fn;
    }
}
