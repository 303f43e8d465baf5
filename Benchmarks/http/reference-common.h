/*
 * reference-common.h: the code reference-server.c (HTTP/1.1) and reference-h2-server.c (h2c) share, so that
 * both answer `query` with the same bytes: `die`, the growable byte buffer, the JSON output, the reading of
 * the first element of `"params": [N]`, the listener and epoll setup of a worker, the read-only SQLite
 * connection with `SELECT * FROM t WHERE id = ?` prepared once and turned into the JSON answer, and the
 * non-blocking write of a connection's pending output.
 *
 * Header-only (every function is static), so each server still builds with one `cc` command; include it
 * after `#define _GNU_SOURCE` (for memmem). Each server sets g_program_name first thing in main().
 */
#ifndef REFERENCE_COMMON_H
#define REFERENCE_COMMON_H

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

/* The prefix of every message `die` prints ("reference-server", "reference-h2-server"). */
static const char *g_program_name;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs(g_program_name, stderr);
    fputs(": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---------------------------------------------------------------- growable byte buffer */

struct buf {
    char *data;
    size_t len, cap;
};

static void buf_reserve(struct buf *b, size_t extra) {
    if (b->len + extra <= b->cap) return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) die("out of memory");
    b->data = p;
    b->cap = cap;
}

static void buf_append(struct buf *b, const void *p, size_t n) {
    buf_reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void buf_puts(struct buf *b, const char *s) { buf_append(b, s, strlen(s)); }

static void buf_printf(struct buf *b, const char *fmt, ...) {
    va_list ap;
    buf_reserve(b, 64);
    va_start(ap, fmt);
    int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) die("vsnprintf failed");
    if ((size_t)n >= b->cap - b->len) {
        buf_reserve(b, (size_t)n + 1);
        va_start(ap, fmt);
        vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

/* ---------------------------------------------------------------- JSON output */

static void json_string(struct buf *b, const unsigned char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    buf_reserve(b, n + 2);
    b->data[b->len++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            buf_append(b, e, 2);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            buf_append(b, e, 6);
        } else {
            buf_append(b, &c, 1);
        }
    }
    buf_append(b, "\"", 1);
}

/* A REAL as sqlited writes it: a text that reads back as the same double, always with a fraction or an
 * exponent so it is never mistaken for an INTEGER. */
static void json_real(struct buf *b, double d) {
    if (isinf(d)) { buf_puts(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\""); return; }
    if (isnan(d)) { buf_puts(b, "null"); return; }
    char tmp[40];
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(tmp, sizeof tmp, "%.*g", precision, d);
        if (strtod(tmp, NULL) == d) break;
    }
    buf_puts(b, tmp);
    if (!strpbrk(tmp, ".e")) buf_puts(b, ".0");
}

static void json_base64(struct buf *b, const unsigned char *p, size_t n) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    buf_puts(b, "{\"base64\":\"");
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        char o[4] = {alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63],
                     i + 1 < n ? alphabet[(v >> 6) & 63] : '=', i + 2 < n ? alphabet[v & 63] : '='};
        buf_append(b, o, 4);
    }
    buf_puts(b, "\"}");
}

/* ---------------------------------------------------------------- JSON input (just enough) */

static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

/* Finds the first element of the body's "params" array; NULL when there is none. A reference server does
 * not need a full JSON parser: the benchmark bodies are fixed-shape. */
static const char *find_first_param(const char *body, size_t len) {
    const char *end = body + len;
    const char *key = memmem(body, len, "\"params\"", 8);
    if (!key) return NULL;
    const char *p = skip_ws(key + 8, end);
    if (p >= end || *p != ':') return NULL;
    p = skip_ws(p + 1, end);
    if (p >= end || *p != '[') return NULL;
    p = skip_ws(p + 1, end);
    return p < end ? p : NULL;
}

static int parse_int_param(const char *body, size_t len, sqlite3_int64 *out) {
    const char *p = find_first_param(body, len);
    const char *end = body + len;
    if (!p) return -1;
    int negative = 0;
    if (*p == '-') { negative = 1; p++; }
    if (p >= end || !isdigit((unsigned char)*p)) return -1;
    uint64_t v = 0;
    while (p < end && isdigit((unsigned char)*p)) {
        unsigned digit = (unsigned)(*p++ - '0');
        if (v > (UINT64_MAX - digit) / 10) return -1;
        v = v * 10 + digit;
    }
    if (v > (uint64_t)INT64_MAX + (uint64_t)negative) return -1;
    p = skip_ws(p, end);
    if (p >= end || (*p != ']' && *p != ',')) return -1;
    *out = negative ? (sqlite3_int64)(0 - v) : (sqlite3_int64)v;
    return 0;
}

/* ---------------------------------------------------------------- the query */

/* Answers `SELECT * FROM t WHERE id = ?` with `id` into `out` (emptied first): the statement's precomputed
 * {"columns":[...],"types":[...],"rows":[ prefix, then the rows and "]}". Returns -1 when the statement fails
 * (what `out` holds then is meaningless). */
static int query_answer(struct buf *out, sqlite3_stmt *select, const struct buf *prefix, sqlite3_int64 id) {
    out->len = 0;
    buf_append(out, prefix->data, prefix->len);
    sqlite3_bind_int64(select, 1, id);
    int rc, rows = 0, columns = sqlite3_column_count(select);
    while ((rc = sqlite3_step(select)) == SQLITE_ROW) {
        buf_puts(out, rows++ ? ",{" : "{");
        for (int i = 0; i < columns; i++) {
            if (i) buf_append(out, ",", 1);
            const char *name = sqlite3_column_name(select, i);
            json_string(out, (const unsigned char *)name, strlen(name));
            buf_append(out, ":", 1);
            switch (sqlite3_column_type(select, i)) {
            case SQLITE_INTEGER: buf_printf(out, "%lld", (long long)sqlite3_column_int64(select, i)); break;
            case SQLITE_FLOAT: json_real(out, sqlite3_column_double(select, i)); break;
            case SQLITE_TEXT: {
                const unsigned char *t = sqlite3_column_text(select, i);
                json_string(out, t, (size_t)sqlite3_column_bytes(select, i));
                break;
            }
            case SQLITE_BLOB: {
                const unsigned char *p = sqlite3_column_blob(select, i);
                json_base64(out, p, (size_t)sqlite3_column_bytes(select, i));
                break;
            }
            default: buf_puts(out, "null");
            }
        }
        buf_append(out, "}", 1);
    }
    sqlite3_reset(select);
    if (rc != SQLITE_DONE) return -1;
    buf_puts(out, "]}");
    return 0;
}

/* ---------------------------------------------------------------- setup */

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK) die("%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

/* A worker's read-only connection to `database`, its `SELECT * FROM t WHERE id = ?` prepared once, and the
 * answer's prefix built once into `prefix`. */
static void open_reader(const char *database, sqlite3 **reader, sqlite3_stmt **select, struct buf *prefix) {
    check(sqlite3_open_v2(database, reader, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL), *reader,
          "open read-only");
    sqlite3_busy_timeout(*reader, 5000);
    check(sqlite3_prepare_v3(*reader, "SELECT * FROM t WHERE id = ?", -1, SQLITE_PREPARE_PERSISTENT, select, NULL),
          *reader, "prepare select");
    /* Column names and declared types never change for a prepared statement: build that prefix once. */
    int n = sqlite3_column_count(*select);
    buf_puts(prefix, "{\"columns\":[");
    for (int i = 0; i < n; i++) {
        const char *name = sqlite3_column_name(*select, i);
        if (i) buf_puts(prefix, ",");
        json_string(prefix, (const unsigned char *)name, strlen(name));
    }
    buf_puts(prefix, "],\"types\":[");
    for (int i = 0; i < n; i++) {
        const char *type = sqlite3_column_decltype(*select, i);
        if (i) buf_puts(prefix, ",");
        if (type) json_string(prefix, (const unsigned char *)type, strlen(type));
        else buf_puts(prefix, "null");
    }
    buf_puts(prefix, "],\"rows\":[");
}

/* A worker's own listener on 127.0.0.1:*port and the epoll instance watching it (data.ptr NULL marks the
 * listener). Each worker has its own listener on the same port (SO_REUSEPORT); the kernel spreads connections
 * among them. Port 0: the first call picks the port and writes it back, so the next ones join it. */
static void open_listener(int *port, int *listen_fd, int *epoll_fd) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket: %s", strerror(errno));
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one))
        die("setsockopt: %s", strerror(errno));
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)*port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr)) die("bind 127.0.0.1:%d: %s", *port, strerror(errno));
    if (listen(fd, 1024)) die("listen: %s", strerror(errno));
    if (*port == 0) {
        socklen_t len = sizeof addr;
        getsockname(fd, (struct sockaddr *)&addr, &len);
        *port = ntohs(addr.sin_port);
    }
    *listen_fd = fd;
    *epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (*epoll_fd < 0) die("epoll_create1: %s", strerror(errno));
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(*epoll_fd, EPOLL_CTL_ADD, fd, &ev)) die("epoll_ctl: %s", strerror(errno));
}

/* ---------------------------------------------------------------- connection I/O */

/* Writes what it can of out from *out_start on. Returns 0 when the output is drained (out is then emptied), 1
 * when it must wait for EPOLLOUT, -1 on error. */
static int flush_output(int fd, struct buf *out, size_t *out_start) {
    while (*out_start < out->len) {
        ssize_t n = send(fd, out->data + *out_start, out->len - *out_start, MSG_NOSIGNAL);
        if (n > 0) { *out_start += (size_t)n; continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 1;
        return -1;
    }
    out->len = *out_start = 0;
    return 0;
}

#endif
