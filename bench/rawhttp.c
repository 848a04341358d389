/* The raw-socket client (see rawhttp.h). Minimal parsing: find the head's end, read the
 * status and the framing headers, read the body. */
#define _GNU_SOURCE
#include "rawhttp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "chunked.h"
#include "http_head.h"

void rh_bytes_append(struct rh_bytes *b, const char *p, size_t n) {
    /* One byte more than asked: the bytes stay NUL-terminated for string functions. */
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            fprintf(stderr, "rawhttp: out of memory\n");
            exit(1);
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

int rh_open(struct rh_conn *c, int port) {
    memset(c, 0, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        perror("rawhttp: socket");
        return -1;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* A stuck server ends the run with an error instead of hanging `make bench`. */
    struct timeval limit = {.tv_sec = 60};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        fprintf(stderr, "rawhttp: connect to 127.0.0.1:%d: %s\n", port, strerror(errno));
        close(c->fd);
        return -1;
    }
    c->cap = 131072;
    c->buf = malloc(c->cap);
    if (!c->buf) {
        fprintf(stderr, "rawhttp: out of memory\n");
        exit(1);
    }
    return 0;
}

void rh_close(struct rh_conn *c) {
    if (c->fd >= 0) close(c->fd);
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
}

int rh_write_all(int fd, const void *p, size_t n) {
    const char *q = p;
    while (n > 0) {
        ssize_t w = write(fd, q, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            perror("rawhttp: write");
            return -1;
        }
        q += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One read into the free end of the buffer (grown when full). 0 or -1. */
static int fill(struct rh_conn *c) {
    if (c->len == c->cap) {
        char *q = realloc(c->buf, c->cap * 2);
        if (!q) {
            fprintf(stderr, "rawhttp: out of memory\n");
            exit(1);
        }
        c->buf = q;
        c->cap *= 2;
    }
    for (;;) {
        ssize_t n = read(c->fd, c->buf + c->len, c->cap - c->len);
        if (n > 0) {
            c->len += (size_t)n;
            return 0;
        }
        if (n < 0 && errno == EINTR) continue;
        fprintf(stderr, "rawhttp: %s\n",
                n == 0 ? "the server closed the connection"
                : errno == EAGAIN || errno == EWOULDBLOCK ? "no answer within 60 s"
                                                          : strerror(errno));
        return -1;
    }
}

static void drop(struct rh_conn *c, size_t n) {
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

static void append_body(void *ctx, const char *p, size_t n) {
    if (ctx) rh_bytes_append(ctx, p, n);
}

int rh_read_answer(struct rh_conn *c, struct rh_bytes *body) {
    return rh_read_answer_cb(c, append_body, body);
}

int rh_read_answer_cb(struct rh_conn *c, chunked_data_fn data, void *ctx) {
    size_t hl;
    while ((hl = head_length(c->buf, c->len)) == 0) {
        if (fill(c) < 0) return -1;
    }
    int status = 0;
    if (hl < 12 || memcmp(c->buf, "HTTP/1.", 7) != 0 ||
        sscanf(c->buf + 9, "%3d", &status) != 1) {
        fprintf(stderr, "rawhttp: not an HTTP answer\n");
        return -1;
    }
    if (status == 100) { /* 100 Continue: the real answer follows */
        drop(c, hl);
        return rh_read_answer_cb(c, data, ctx);
    }
    if (header_has(c->buf, hl, "Transfer-Encoding", "chunked")) {
        struct chunked ck;
        chunked_init(&ck);
        drop(c, hl);
        for (;;) {
            size_t used = chunked_feed(&ck, c->buf, c->len, data, ctx);
            if (used == (size_t)-1) {
                fprintf(stderr, "rawhttp: bad chunked framing\n");
                return -1;
            }
            drop(c, used);
            if (ck.done) return status;
            if (fill(c) < 0) return -1;
        }
    }
    int64_t cl = header_content_length(c->buf, hl);
    if (cl < 0) {
        fprintf(stderr, "rawhttp: answer without Content-Length or chunked framing\n");
        return -1;
    }
    drop(c, hl);
    size_t left = (size_t)cl;
    for (;;) {
        size_t take = c->len < left ? c->len : left;
        if (take) data(ctx, c->buf, take);
        drop(c, take);
        left -= take;
        if (left == 0) return status;
        if (fill(c) < 0) return -1;
    }
}

int rh_get(int port, const char *path, struct rh_bytes *body) {
    struct rh_conn c;
    if (rh_open(&c, port) < 0) return -1;
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", path,
                     port);
    int status = -1;
    if (n > 0 && (size_t)n < sizeof req && rh_write_all(c.fd, req, (size_t)n) == 0) {
        status = rh_read_answer(&c, body);
    }
    rh_close(&c);
    return status;
}

long long rh_json_number(const struct rh_bytes *body, const char *key) {
    char pat[64];
    int n = snprintf(pat, sizeof pat, "\"%s\":", key);
    if (!body->p || n <= 0 || (size_t)n >= sizeof pat) return -1;
    const char *p = memmem(body->p, body->len, pat, (size_t)n);
    if (!p) return -1;
    return strtoll(p + n, NULL, 10);
}
