/*
 * reference-server.c: a minimal HTTP/1.1 + SQLite server in C, the yardstick for sqlited's HTTP benchmarks.
 *
 * It is meant to be close to the fastest simple design on Linux, so that sqlited's figures can be read as
 * a ratio to it: one worker thread per core, each with its own SO_REUSEPORT listener, its own epoll
 * instance and (in `query` mode) its own read-only SQLite connection with a prepared statement reused
 * for every request. Sockets are non-blocking, connections are kept alive, and several requests arriving
 * in one read (pipelining) are all answered in order, in one write when possible.
 *
 * It is "correct enough" for a benchmark, not a general server: it frames requests by Content-Length
 * only (RFC 9112 §6.3; Transfer-Encoding is answered 501 and the connection closed), answers
 * `Expect: 100-continue`, honours `Connection: close` and HTTP/1.0 keep-alive rules, and caps the
 * header and body sizes.
 *
 * Modes:
 *   static  any request -> 200 with a fixed ~20-byte JSON body (HTTP-server-only comparison).
 *   query   POST /query {"sql": ..., "params": [N]} -> runs `SELECT * FROM t WHERE id = ?` with N and
 *           answers {"columns":[...],"types":[...],"rows":[{...}]} like sqlited. The SQL text in the body
 *           is ignored: the reference measures the transport + one indexed lookup, not an SQL gateway.
 *   update  POST /update {"sql": ..., "params": ["x"]} -> `INSERT INTO w(v) VALUES (?)` on one writer
 *           connection shared under a mutex (SQLite has a single writer), WAL, synchronous=FULL; answers
 *           {"changes":1,"last_insert_rowid":N}.
 *   all     the three together, routed like sqlited: GET / (static), POST /query, POST /update. Not used by
 *           the benchmark pairs; it lets scripts/bench-http.sh be tried end to end before sqlited exists.
 *
 * The buffer, the JSON output, the `params` reading, the listener setup and the `query` statement and answer
 * are shared with reference-h2-server.c through reference-common.h, included from this folder.
 *
 * Usage:   reference-server static|query|update|all PORT [DATABASE] [THREADS]
 *          (PORT 0 picks a free port; THREADS defaults to the number of online CPUs.)
 * Prints   "reference-server: listening on http://127.0.0.1:PORT" on stderr once every worker listens.
 * Build:   cc -O2 -o reference-server reference-server.c -lsqlite3 -lpthread
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "reference-common.h"

#define MAX_HEADER_BYTES (16 * 1024)
#define MAX_BODY_BYTES (1024 * 1024)
#define READ_CHUNK 16384
#define MAX_EVENTS 256
#define MAX_THREADS 64

enum mode { MODE_STATIC, MODE_QUERY, MODE_UPDATE, MODE_ALL };

static enum mode g_mode;
static const char *g_database;

/* The single writer connection of `update` mode, shared by every worker under g_writer_lock. */
static pthread_mutex_t g_writer_lock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3 *g_writer;
static sqlite3_stmt *g_insert;

/* ---------------------------------------------------------------- JSON input: a string parameter (update mode) */

static void utf8_append(struct buf *b, uint32_t cp) {
    unsigned char o[4];
    size_t n;
    if (cp < 0x80) { o[0] = (unsigned char)cp; n = 1; }
    else if (cp < 0x800) { o[0] = 0xC0 | (cp >> 6); o[1] = 0x80 | (cp & 63); n = 2; }
    else if (cp < 0x10000) { o[0] = 0xE0 | (cp >> 12); o[1] = 0x80 | ((cp >> 6) & 63); o[2] = 0x80 | (cp & 63); n = 3; }
    else { o[0] = 0xF0 | (cp >> 18); o[1] = 0x80 | ((cp >> 12) & 63); o[2] = 0x80 | ((cp >> 6) & 63); o[3] = 0x80 | (cp & 63); n = 4; }
    buf_append(b, o, n);
}

static int hex4(const char *p, const char *end, uint32_t *out) {
    if (end - p < 4) return -1;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* Decodes the first "params" element, which must be a JSON string, into `out` (escapes resolved). */
static int parse_string_param(const char *body, size_t len, struct buf *out) {
    const char *p = find_first_param(body, len);
    const char *end = body + len;
    out->len = 0;
    if (!p || *p != '"') return -1;
    for (p++; p < end; p++) {
        char c = *p;
        if (c == '"') return 0;
        if ((unsigned char)c < 0x20) return -1;
        if (c != '\\') { buf_append(out, p, 1); continue; }
        if (++p >= end) return -1;
        switch (*p) {
        case '"': case '\\': case '/': buf_append(out, p, 1); break;
        case 'b': buf_append(out, "\b", 1); break;
        case 'f': buf_append(out, "\f", 1); break;
        case 'n': buf_append(out, "\n", 1); break;
        case 'r': buf_append(out, "\r", 1); break;
        case 't': buf_append(out, "\t", 1); break;
        case 'u': {
            uint32_t cp;
            if (hex4(p + 1, end, &cp)) return -1;
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                uint32_t low;
                if (end - p < 7 || p[1] != '\\' || p[2] != 'u' || hex4(p + 3, end, &low) || low < 0xDC00 || low > 0xDFFF)
                    return -1;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return -1;
            }
            utf8_append(out, cp);
            break;
        }
        default: return -1;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- per-worker state */

struct worker {
    int index;
    int listen_fd;
    int epoll_fd;
    sqlite3 *reader;          /* query mode: this worker's read-only connection */
    sqlite3_stmt *select;     /* query mode: prepared once, reset after every request */
    struct buf result_prefix; /* query mode: {"columns":[...],"types":[...],"rows":[ , computed once */
    struct buf scratch;       /* response body under construction */
    struct buf text;          /* decoded string parameter */
    pthread_t thread;
};

struct conn {
    int fd;
    struct buf in;
    size_t in_start; /* first byte of in not yet consumed */
    struct buf out;
    size_t out_start; /* first byte of out not yet written */
    int close_after_write;
    int continue_sent; /* "100 Continue" already answered for the request being received */
    int peer_eof;      /* the client shut down its side: answer what is buffered, then close */
    int want_write; /* registered for EPOLLOUT (reads paused until the output drains) */
};

static const char *reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

static void respond(struct conn *c, int status, const char *body, size_t body_len, int close) {
    buf_printf(&c->out,
               "HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %zu\r\n%s\r\n",
               status, reason(status), body_len, close ? "Connection: close\r\n" : "");
    buf_append(&c->out, body, body_len);
    if (close) c->close_after_write = 1;
}

static void respond_error(struct conn *c, int status, const char *code, const char *message, int close) {
    char body[256];
    int n = snprintf(body, sizeof body, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, message);
    respond(c, status, body, (size_t)n, close);
}

/* ---------------------------------------------------------------- request handlers */

static const char STATIC_BODY[] = "{\"status\":\"ok\",\"n\":1}";

static void handle_query(struct worker *w, struct conn *c, const char *body, size_t len, int close) {
    sqlite3_int64 id;
    if (parse_int_param(body, len, &id)) {
        respond_error(c, 400, "INVALID_REQUEST", "params must be [integer]", close);
        return;
    }
    if (query_answer(&w->scratch, w->select, &w->result_prefix, id)) {
        respond_error(c, 500, "SQLITE_ERROR", "query failed", close);
        return;
    }
    respond(c, 200, w->scratch.data, w->scratch.len, close);
}

static void handle_update(struct worker *w, struct conn *c, const char *body, size_t len, int close) {
    if (parse_string_param(body, len, &w->text)) {
        respond_error(c, 400, "INVALID_REQUEST", "params must be [string]", close);
        return;
    }
    sqlite3_int64 rowid = 0;
    int changes = 0, rc;
    pthread_mutex_lock(&g_writer_lock);
    sqlite3_bind_text(g_insert, 1, w->text.len ? w->text.data : "", (int)w->text.len, SQLITE_STATIC);
    rc = sqlite3_step(g_insert);
    if (rc == SQLITE_DONE) {
        changes = sqlite3_changes(g_writer);
        rowid = sqlite3_last_insert_rowid(g_writer);
    }
    sqlite3_reset(g_insert);
    sqlite3_clear_bindings(g_insert);
    pthread_mutex_unlock(&g_writer_lock);
    if (rc != SQLITE_DONE) {
        respond_error(c, 500, "SQLITE_ERROR", "insert failed", close);
        return;
    }
    char out[96];
    int n = snprintf(out, sizeof out, "{\"changes\":%d,\"last_insert_rowid\":%lld}", changes, (long long)rowid);
    respond(c, 200, out, (size_t)n, close);
}

static void dispatch(struct worker *w, struct conn *c, const char *method, size_t method_len, const char *path,
                     size_t path_len, const char *body, size_t body_len, int close) {
    if (g_mode == MODE_STATIC) {
        respond(c, 200, STATIC_BODY, sizeof STATIC_BODY - 1, close);
        return;
    }
    int is_query = path_len == 6 && memcmp(path, "/query", 6) == 0;
    int is_update = path_len == 7 && memcmp(path, "/update", 7) == 0;
    if (g_mode == MODE_ALL && path_len == 1 && path[0] == '/') {
        respond(c, 200, STATIC_BODY, sizeof STATIC_BODY - 1, close);
        return;
    }
    if (!((is_query && g_mode != MODE_UPDATE) || (is_update && g_mode != MODE_QUERY))) {
        respond_error(c, 404, "NOT_FOUND", "no such route", close);
        return;
    }
    if (method_len != 4 || memcmp(method, "POST", 4) != 0) {
        respond_error(c, 405, "METHOD_NOT_ALLOWED", "use POST", close);
        return;
    }
    if (is_query) handle_query(w, c, body, body_len, close);
    else handle_update(w, c, body, body_len, close);
}

/* ---------------------------------------------------------------- HTTP/1.1 framing */

static int header_is(const char *name, size_t len, const char *want) {
    return len == strlen(want) && strncasecmp(name, want, len) == 0;
}

/* Whether a comma-separated header value holds `token` (case-insensitive), as Connection does (RFC 9110 §7.6.1). */
static int has_token(const char *v, size_t len, const char *token) {
    size_t tlen = strlen(token);
    size_t i = 0;
    while (i < len) {
        while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) i++;
        size_t start = i;
        while (i < len && v[i] != ',') i++;
        size_t stop = i;
        while (stop > start && (v[stop - 1] == ' ' || v[stop - 1] == '\t')) stop--;
        if (stop - start == tlen && strncasecmp(v + start, token, tlen) == 0) return 1;
    }
    return 0;
}

/* Parses and answers one request from c->in. Returns 1 when a request was consumed, 0 when more bytes are
 * needed, -1 when the connection must stop reading (an error response has been queued). */
static int process_one(struct worker *w, struct conn *c) {
    const char *start = c->in.data + c->in_start;
    size_t avail = c->in.len - c->in_start;
    if (avail == 0) return 0;
    const char *head_end = memmem(start, avail, "\r\n\r\n", 4);
    if (!head_end) {
        if (avail > MAX_HEADER_BYTES) {
            respond_error(c, 431, "HEADERS_TOO_LARGE", "request header too large", 1);
            return -1;
        }
        return 0;
    }
    size_t head_len = (size_t)(head_end - start) + 4;
    if (head_len > MAX_HEADER_BYTES) {
        respond_error(c, 431, "HEADERS_TOO_LARGE", "request header too large", 1);
        return -1;
    }

    /* Request line: METHOD SP request-target SP HTTP-version (RFC 9112 §3). */
    const char *line_end = memmem(start, head_len, "\r\n", 2);
    const char *sp1 = memchr(start, ' ', (size_t)(line_end - start));
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
    if (!sp1 || !sp2 || sp1 == start || sp2 == sp1 + 1 || line_end - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7)) {
        respond_error(c, 400, "BAD_REQUEST", "malformed request line", 1);
        return -1;
    }
    char minor = sp2[8];
    if (minor != '0' && minor != '1') {
        respond_error(c, 505, "HTTP_VERSION", "only HTTP/1.0 and HTTP/1.1", 1);
        return -1;
    }
    int keep_alive = minor == '1';
    const char *path = sp1 + 1;
    size_t path_len = (size_t)(sp2 - path);
    const char *q = memchr(path, '?', path_len);
    if (q) path_len = (size_t)(q - path);

    /* Header fields (RFC 9112 §5). */
    long long content_length = 0;
    int have_length = 0, expect_continue = 0;
    const char *p = line_end + 2;
    while (p < head_end + 2) {
        const char *eol = memmem(p, (size_t)(head_end + 2 - p), "\r\n", 2);
        const char *colon = memchr(p, ':', (size_t)(eol - p));
        if (!colon || colon == p || memchr(p, ' ', (size_t)(colon - p))) {
            respond_error(c, 400, "BAD_REQUEST", "malformed header field", 1);
            return -1;
        }
        size_t name_len = (size_t)(colon - p);
        const char *v = colon + 1;
        const char *v_end = eol;
        while (v < v_end && (*v == ' ' || *v == '\t')) v++;
        while (v_end > v && (v_end[-1] == ' ' || v_end[-1] == '\t')) v_end--;
        size_t v_len = (size_t)(v_end - v);
        if (header_is(p, name_len, "content-length")) {
            long long n = 0;
            if (v_len == 0 || v_len > 12) { respond_error(c, 400, "BAD_REQUEST", "bad Content-Length", 1); return -1; }
            for (size_t i = 0; i < v_len; i++) {
                if (!isdigit((unsigned char)v[i])) { respond_error(c, 400, "BAD_REQUEST", "bad Content-Length", 1); return -1; }
                n = n * 10 + (v[i] - '0');
            }
            if (have_length && n != content_length) {
                respond_error(c, 400, "BAD_REQUEST", "conflicting Content-Length", 1);
                return -1;
            }
            have_length = 1;
            content_length = n;
        } else if (header_is(p, name_len, "transfer-encoding")) {
            respond_error(c, 501, "NOT_IMPLEMENTED", "Transfer-Encoding not supported", 1);
            return -1;
        } else if (header_is(p, name_len, "connection")) {
            if (has_token(v, v_len, "close")) keep_alive = 0;
            else if (has_token(v, v_len, "keep-alive")) keep_alive = 1;
        } else if (header_is(p, name_len, "expect")) {
            if (v_len == 12 && strncasecmp(v, "100-continue", 12) == 0) expect_continue = 1;
        }
        p = eol + 2;
    }
    if (content_length > MAX_BODY_BYTES) {
        respond_error(c, 413, "BODY_TOO_LARGE", "request body too large", 1);
        return -1;
    }
    if (avail < head_len + (size_t)content_length) {
        /* Answer 100 Continue once, when nothing of the body has arrived yet (RFC 9110 §10.1.1). */
        if (expect_continue && !c->continue_sent && avail == head_len && minor == '1') {
            buf_puts(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
            c->continue_sent = 1;
        }
        return 0;
    }

    dispatch(w, c, start, (size_t)(sp1 - start), path, path_len, start + head_len, (size_t)content_length,
             !keep_alive);
    c->in_start += head_len + (size_t)content_length;
    c->continue_sent = 0;
    return c->close_after_write ? -1 : 1;
}

/* ---------------------------------------------------------------- connection I/O */

static void conn_close(struct worker *w, struct conn *c) {
    epoll_ctl(w->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->in.data);
    free(c->out.data);
    free(c);
}

static void set_interest(struct worker *w, struct conn *c, int want_write) {
    if (c->want_write == want_write) return;
    struct epoll_event ev = {.events = want_write ? EPOLLOUT : EPOLLIN, .data.ptr = c};
    epoll_ctl(w->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_write = want_write;
}

/* Answers every complete request buffered, then writes; pauses reading while output is pending so a
 * client that pipelines without reading cannot grow our buffers without bound. Returns -1 to close. */
static int conn_progress(struct worker *w, struct conn *c) {
    int r = 0;
    if (!c->close_after_write) {
        while ((r = process_one(w, c)) == 1) {}
        /* Compact the input so the buffer holds at most one partial request. */
        if (c->in_start == c->in.len) {
            c->in.len = c->in_start = 0;
        } else if (c->in_start > 0) {
            memmove(c->in.data, c->in.data + c->in_start, c->in.len - c->in_start);
            c->in.len -= c->in_start;
            c->in_start = 0;
        }
        /* A half-closed client gets the answers to every complete request it sent, then the close. */
        if (c->peer_eof) c->close_after_write = 1;
    }
    int f = flush_output(c->fd, &c->out, &c->out_start);
    if (f < 0) return -1;
    if (f == 1) { set_interest(w, c, 1); return 0; }
    if (c->close_after_write) return -1;
    set_interest(w, c, 0);
    return 0;
}

static void on_readable(struct worker *w, struct conn *c) {
    for (int rounds = 0; rounds < 64; rounds++) {
        buf_reserve(&c->in, READ_CHUNK);
        ssize_t n = recv(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len, 0);
        if (n > 0) {
            size_t room = c->in.cap - c->in.len;
            c->in.len += (size_t)n;
            if ((size_t)n == room) continue; /* the buffer filled: there may be more */
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
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            close(fd);
            free(c);
        }
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

static void exec_pragma(sqlite3 *db, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) die("%s: %s", sql, err ? err : "failed");
}

static void open_writer(void) {
    check(sqlite3_open_v2(g_database, &g_writer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL), g_writer,
          "open writer");
    sqlite3_busy_timeout(g_writer, 5000);
    exec_pragma(g_writer, "PRAGMA journal_mode=WAL");
    exec_pragma(g_writer, "PRAGMA synchronous=FULL");
    check(sqlite3_prepare_v3(g_writer, "INSERT INTO w(v) VALUES (?)", -1, SQLITE_PREPARE_PERSISTENT, &g_insert, NULL),
          g_writer, "prepare insert");
}

int main(int argc, char **argv) {
    g_program_name = "reference-server";
    if (argc < 3) die("usage: reference-server static|query|update|all PORT [DATABASE] [THREADS]");
    if (!strcmp(argv[1], "static")) g_mode = MODE_STATIC;
    else if (!strcmp(argv[1], "query")) g_mode = MODE_QUERY;
    else if (!strcmp(argv[1], "update")) g_mode = MODE_UPDATE;
    else if (!strcmp(argv[1], "all")) g_mode = MODE_ALL;
    else die("unknown mode %s", argv[1]);
    int port = atoi(argv[2]);
    if (port < 0 || port > 65535) die("bad port %s", argv[2]);
    g_database = argc > 3 ? argv[3] : NULL;
    if (g_mode != MODE_STATIC && !g_database) die("mode %s needs a DATABASE", argv[1]);
    long threads = argc > 4 ? atol(argv[4]) : sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;

    signal(SIGPIPE, SIG_IGN);
    if (g_mode == MODE_UPDATE || g_mode == MODE_ALL) open_writer();

    static struct worker workers[MAX_THREADS];
    for (long i = 0; i < threads; i++) {
        struct worker *w = &workers[i];
        w->index = (int)i;
        open_listener(&port, &w->listen_fd, &w->epoll_fd);
        if (g_mode == MODE_QUERY || g_mode == MODE_ALL)
            open_reader(g_database, &w->reader, &w->select, &w->result_prefix);
    }
    for (long i = 0; i < threads; i++) {
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) die("pthread_create failed");
    }
    fprintf(stderr, "reference-server: listening on http://127.0.0.1:%d (mode %s, %ld threads)\n", port, argv[1],
            threads);
    for (long i = 0; i < threads; i++) pthread_join(workers[i].thread, NULL);
    return 0;
}
