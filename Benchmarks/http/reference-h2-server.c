/*
 * reference-h2-server.c: a minimal HTTP/2 (h2c) + SQLite server in C over libnghttp2, the ceiling for sqlited's
 * HTTP/2 benchmarks.
 *
 * It is reference-server.c's `query` mode with HTTP/2 framing instead of HTTP/1.1, and nothing else: the
 * same worker design (one worker thread per core, each with its own SO_REUSEPORT listener, its own epoll
 * instance and its own read-only SQLite connection with `SELECT * FROM t WHERE id = ?` prepared once and
 * reused), the same id parsing (the first element of `"params": [N]`) and the same JSON answer byte for byte:
 * that code is shared with reference-server.c through reference-common.h, included from this folder.
 * Compared with reference-server query over HTTP/1.1 on the same workload, it shows what libnghttp2's framing
 * costs by itself, with no framework around it.
 *
 * Every connection is h2c with prior knowledge (RFC 9113 §3.3): no TLS, no `Upgrade: h2c`. Each connection
 * has one nghttp2 server session (`nghttp2_session_server_new`, SETTINGS_MAX_CONCURRENT_STREAMS 100, default
 * windows) and is driven the way a real event-loop server drives it: on a readable event, every byte the
 * non-blocking socket has is read and fed to `nghttp2_session_mem_recv`; the requests completed in those
 * bytes are answered from the callbacks (`nghttp2_submit_response` with a data provider over the answer
 * bytes); then everything `nghttp2_session_mem_send` has to say is appended to one output buffer and written
 * with one send. Unsent bytes are kept and the connection waits for EPOLLOUT, reading nothing meanwhile.
 * The callbacks are the minimum: on_begin_headers (per-stream state, taken from a per-worker free list),
 * on_header (:method and :path only), on_data_chunk_recv (the body, capped), on_frame_recv (END_STREAM on
 * HEADERS or DATA: run the query, submit the response: :status, content-type, content-length, the body) and
 * on_stream_close (the state goes back to the free list). libnghttp2 itself checks the rest of HTTP/2's
 * semantics (pseudo-headers, content-length against DATA, flow control, window updates).
 *
 *   POST /query {"sql": ..., "params": [N]} -> runs `SELECT * FROM t WHERE id = ?` with N and answers
 *   {"columns":[...],"types":[...],"rows":[{...}]}, as reference-server query and sqlited do. The SQL text
 *   is ignored. Another path is 404, another method 405, a bad params 400, a body over 1 MiB 413.
 *
 * Usage:   reference-h2-server PORT DATABASE [THREADS]
 *          (PORT 0 picks a free port; THREADS defaults to the number of online CPUs.)
 * Prints   "reference-h2-server: listening on http://127.0.0.1:PORT" on stderr once every worker listens.
 * Build:   cc -O2 -o reference-h2-server reference-h2-server.c -lsqlite3 -lnghttp2 -lpthread
 * Try:     curl --http2-prior-knowledge --json '{"sql":"SELECT * FROM t WHERE id = ?","params":[42]}' \
 *               http://127.0.0.1:PORT/query
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "reference-common.h"

#define MAX_BODY_BYTES (1024 * 1024)
#define READ_CHUNK 16384
#define MAX_EVENTS 256
#define MAX_THREADS 64
#define MAX_CONCURRENT_STREAMS 100
#define FREE_STREAMS 256 /* stream states kept for reuse per worker */

static const char *g_database;

/* ---------------------------------------------------------------- per-worker, per-connection, per-stream state */

struct stream {
    struct stream *prev, *next; /* the connection's open streams, or (next) the worker's free list */
    int is_post;           /* :method was POST */
    int is_query;          /* :path was /query (query string ignored) */
    int body_too_large;    /* more than MAX_BODY_BYTES of DATA: answered 413 */
    int answered;          /* response submitted */
    struct buf body;       /* request body (DATA payloads) */
    struct buf answer;     /* response body */
    size_t answer_sent;    /* bytes of answer handed to libnghttp2 so far */
    char content_length[24];
};

struct worker {
    int index;
    int listen_fd;
    int epoll_fd;
    sqlite3 *reader;             /* this worker's read-only connection */
    sqlite3_stmt *select;        /* prepared once, reset after every request */
    struct buf result_prefix;    /* {"columns":[...],"types":[...],"rows":[ , computed once */
    nghttp2_session_callbacks *callbacks;
    struct stream *free_streams; /* stream states kept for reuse */
    int free_count;
    char read_buffer[READ_CHUNK];
    pthread_t thread;
};

struct conn {
    int fd;
    struct worker *w;
    nghttp2_session *session;
    struct buf out;
    size_t out_start; /* first byte of out not yet written */
    struct stream *streams; /* open streams (nghttp2_session_del does not call on_stream_close) */
    int peer_eof;     /* the client shut down its side: write what is pending, then close */
    int want_write;   /* registered for EPOLLOUT (reads paused until the output drains) */
};

static struct stream *stream_new(struct conn *c) {
    struct worker *w = c->w;
    struct stream *s = w->free_streams;
    if (s) {
        w->free_streams = s->next;
        w->free_count--;
        struct buf body = s->body, answer = s->answer;
        memset(s, 0, sizeof *s);
        body.len = answer.len = 0;
        s->body = body;
        s->answer = answer;
    } else {
        s = calloc(1, sizeof *s);
        if (!s) die("out of memory");
    }
    s->next = c->streams;
    if (s->next) s->next->prev = s;
    c->streams = s;
    return s;
}

static void stream_free(struct conn *c, struct stream *s) {
    struct worker *w = c->w;
    if (s->prev) s->prev->next = s->next;
    else c->streams = s->next;
    if (s->next) s->next->prev = s->prev;
    /* Buffers grown by an unusual request are not kept. */
    if (w->free_count < FREE_STREAMS && s->body.cap <= 4096 && s->answer.cap <= 4096) {
        s->next = w->free_streams;
        w->free_streams = s;
        w->free_count++;
        return;
    }
    free(s->body.data);
    free(s->answer.data);
    free(s);
}

/* ---------------------------------------------------------------- the request handler */

static void answer_error(struct stream *s, const char *code, const char *message) {
    s->answer.len = 0;
    buf_printf(&s->answer, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, message);
}

/* Fills s->answer; returns the status. */
static int handle_query(struct worker *w, struct stream *s) {
    sqlite3_int64 id;
    if (parse_int_param(s->body.data ? s->body.data : "", s->body.len, &id)) {
        answer_error(s, "INVALID_REQUEST", "params must be [integer]");
        return 400;
    }
    if (query_answer(&s->answer, w->select, &w->result_prefix, id)) {
        answer_error(s, "SQLITE_ERROR", "query failed");
        return 500;
    }
    return 200;
}

/* ---------------------------------------------------------------- nghttp2 callbacks */

/* The data provider: copies the answer into the DATA frames libnghttp2 builds. */
static ssize_t read_answer(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                           uint32_t *data_flags, nghttp2_data_source *source, void *user_data) {
    (void)session, (void)stream_id, (void)user_data;
    struct stream *s = source->ptr;
    size_t n = s->answer.len - s->answer_sent;
    if (n > length) n = length;
    if (n) memcpy(buf, s->answer.data + s->answer_sent, n);
    s->answer_sent += n;
    if (s->answer_sent == s->answer.len) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static void respond(nghttp2_session *session, int32_t stream_id, struct stream *s, int status) {
    static const char *status_text[] = {"200", "400", "404", "405", "413", "500"};
    const char *code;
    switch (status) {
    case 200: code = status_text[0]; break;
    case 400: code = status_text[1]; break;
    case 404: code = status_text[2]; break;
    case 405: code = status_text[3]; break;
    case 413: code = status_text[4]; break;
    default: code = status_text[5]; break;
    }
    int cl = snprintf(s->content_length, sizeof s->content_length, "%zu", s->answer.len);
    /* NO_COPY: the names and values outlive the HEADERS frame (literals, or the stream's state, freed only at
     * stream close). */
    const uint8_t flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
    nghttp2_nv nv[] = {
        {(uint8_t *)":status", (uint8_t *)code, 7, 3, flags},
        {(uint8_t *)"content-type", (uint8_t *)"application/json; charset=utf-8", 12, 31, flags},
        {(uint8_t *)"content-length", (uint8_t *)s->content_length, 14, (size_t)cl, flags},
    };
    nghttp2_data_provider provider = {.source.ptr = s, .read_callback = read_answer};
    s->answered = 1;
    s->answer_sent = 0;
    nghttp2_submit_response(session, stream_id, nv, sizeof nv / sizeof nv[0], &provider);
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    struct conn *c = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    struct stream *s = stream_new(c);
    nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, s);
    return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user_data) {
    (void)flags, (void)user_data;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    if (namelen < 5 || name[0] != ':') return 0;
    struct stream *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s) return 0;
    if (namelen == 7 && memcmp(name, ":method", 7) == 0) {
        s->is_post = valuelen == 4 && memcmp(value, "POST", 4) == 0;
    } else if (namelen == 5 && memcmp(name, ":path", 5) == 0) {
        const uint8_t *q = memchr(value, '?', valuelen);
        size_t len = q ? (size_t)(q - value) : valuelen;
        s->is_query = len == 6 && memcmp(value, "/query", 6) == 0;
    }
    return 0;
}

static int on_data_chunk_recv(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
                              size_t len, void *user_data) {
    (void)flags, (void)user_data;
    struct stream *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!s || s->body_too_large) return 0;
    if (s->body.len + len > MAX_BODY_BYTES) {
        s->body_too_large = 1;
        return 0;
    }
    buf_append(&s->body, data, len);
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    struct conn *c = user_data;
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    struct stream *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s || s->answered) return 0;
    int status;
    if (!s->is_query) { answer_error(s, "NOT_FOUND", "no such route"); status = 404; }
    else if (!s->is_post) { answer_error(s, "METHOD_NOT_ALLOWED", "use POST"); status = 405; }
    else if (s->body_too_large) { answer_error(s, "BODY_TOO_LARGE", "request body too large"); status = 413; }
    else status = handle_query(c->w, s);
    respond(session, frame->hd.stream_id, s, status);
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data) {
    (void)error_code;
    struct conn *c = user_data;
    struct stream *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (s) stream_free(c, s);
    return 0;
}

/* ---------------------------------------------------------------- connection I/O */

static void conn_close(struct worker *w, struct conn *c) {
    epoll_ctl(w->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    nghttp2_session_del(c->session);
    while (c->streams) stream_free(c, c->streams);
    free(c->out.data);
    free(c);
}

static void set_interest(struct worker *w, struct conn *c, int want_write) {
    if (c->want_write == want_write) return;
    struct epoll_event ev = {.events = want_write ? EPOLLOUT : EPOLLIN, .data.ptr = c};
    epoll_ctl(w->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_write = want_write;
}

/* Appends everything libnghttp2 has to send to the output, then writes it with one send. Reading stays paused
 * while output is pending, so a client that does not read cannot grow the buffer without bound. Returns -1 to
 * close. */
static int conn_progress(struct worker *w, struct conn *c) {
    for (;;) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(c->session, &data);
        if (n < 0) return -1;
        if (n == 0) break;
        buf_append(&c->out, data, (size_t)n);
    }
    int f = flush_output(c->fd, &c->out, &c->out_start);
    if (f < 0) return -1;
    if (f == 1) { set_interest(w, c, 1); return 0; }
    /* Drained: done when the client has gone, or when the session is over (GOAWAY both ways, or an error). */
    if (c->peer_eof) return -1;
    if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session)) return -1;
    set_interest(w, c, 0);
    return 0;
}

static void on_readable(struct worker *w, struct conn *c) {
    for (int rounds = 0; rounds < 64; rounds++) {
        ssize_t n = recv(c->fd, w->read_buffer, sizeof w->read_buffer, 0);
        if (n > 0) {
            if (nghttp2_session_mem_recv(c->session, (const uint8_t *)w->read_buffer, (size_t)n) < 0) {
                conn_close(w, c); /* bad client preface, flood, out of memory: no point in a GOAWAY */
                return;
            }
            if ((size_t)n == sizeof w->read_buffer) continue; /* the buffer filled: there may be more */
            break;
        }
        if (n == 0) { c->peer_eof = 1; break; }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        conn_close(w, c);
        return;
    }
    if (conn_progress(w, c) < 0) conn_close(w, c);
}

static void on_writable(struct worker *w, struct conn *c) {
    if (conn_progress(w, c) < 0) conn_close(w, c);
}

static void accept_all(struct worker *w) {
    static const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, MAX_CONCURRENT_STREAMS},
    };
    for (int i = 0; i < 1024; i++) {
        int fd = accept4(w->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return; /* EAGAIN, or EMFILE and friends: try again on the next event */
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct conn *c = calloc(1, sizeof *c);
        if (!c) die("out of memory");
        c->fd = fd;
        c->w = w;
        if (nghttp2_session_server_new(&c->session, w->callbacks, c)) die("nghttp2_session_server_new failed");
        nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            close(fd);
            nghttp2_session_del(c->session);
            free(c);
            continue;
        }
        /* The server's connection preface (its SETTINGS) goes out at once, as servers do. */
        if (conn_progress(w, c) < 0) conn_close(w, c);
    }
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int n = epoll_wait(w->epoll_fd, events, MAX_EVENTS, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait: %s", strerror(errno));
        }
        for (int i = 0; i < n; i++) {
            if (events[i].data.ptr == NULL) { accept_all(w); continue; }
            struct conn *c = events[i].data.ptr;
            if (events[i].events & (EPOLLERR | EPOLLHUP) && !(events[i].events & EPOLLIN)) conn_close(w, c);
            else if (events[i].events & EPOLLOUT) on_writable(w, c);
            else on_readable(w, c);
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------- setup */

static nghttp2_session_callbacks *make_callbacks(void) {
    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb)) die("out of memory");
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk_recv);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    return cb;
}

int main(int argc, char **argv) {
    g_program_name = "reference-h2-server";
    if (argc < 3) die("usage: reference-h2-server PORT DATABASE [THREADS]");
    int port = atoi(argv[1]);
    if (port < 0 || port > 65535) die("bad port %s", argv[1]);
    g_database = argv[2];
    long threads = argc > 3 ? atol(argv[3]) : sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;

    signal(SIGPIPE, SIG_IGN);
    static struct worker workers[MAX_THREADS];
    for (long i = 0; i < threads; i++) {
        struct worker *w = &workers[i];
        w->index = (int)i;
        open_listener(&port, &w->listen_fd, &w->epoll_fd);
        w->callbacks = make_callbacks();
        open_reader(g_database, &w->reader, &w->select, &w->result_prefix);
    }
    for (long i = 0; i < threads; i++) {
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) die("pthread_create failed");
    }
    fprintf(stderr, "reference-h2-server: listening on http://127.0.0.1:%d (h2c prior knowledge, %ld threads)\n",
            port, threads);
    for (long i = 0; i < threads; i++) pthread_join(workers[i].thread, NULL);
    return 0;
}
