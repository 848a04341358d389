/* bench/loadserver: a minimal HTTP/1.1 server for `make bench`, run as its own process so
 * the measured client shares nothing with it. 127.0.0.1 only; `--port 0` (the default)
 * picks a free port, printed on stdout's first line. One thread, level-triggered epoll,
 * non-blocking keep-alive connections; answers go out from prebuilt bytes so the server
 * stays cheap next to the client it serves. Routes: see loadserver_routes.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "chunked.h"
#include "http_head.h"
#include "loadserver.h"

#define MAX_HEAD (1u << 20)     /* a head longer than this closes the connection */
#define MAX_BUFFERED (64u << 20) /* largest non-upload request kept in memory */
#define UPLOAD_READ (1u << 20)   /* room made in the upload record before each read */

struct conn {
    int fd;
    uint32_t interest;
    char *in; /* received bytes not yet answered */
    size_t in_len, in_cap;
    struct record *upload; /* non-NULL while an upload body streams in */
    int upload_chunked;
    uint64_t upload_left;
    struct chunked upload_ck;
    struct reply out; /* the answer being written */
    int cur;          /* its segment being written, the offset in it and repeats done */
    size_t off;
    uint64_t reps;
    int close_after;
};

static int epfd;

static void die(const char *what) {
    fprintf(stderr, "loadserver: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int pending(const struct conn *c) { return c->cur < c->out.nseg; }

static void conn_close(struct conn *c) {
    close(c->fd); /* also leaves the epoll set */
    free(c->in);
    free(c->out.own);
    free(c);
}

static void set_interest(struct conn *c, uint32_t events) {
    if (c->interest == events) return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0) die("epoll_ctl");
    c->interest = events;
}

static void consume(struct conn *c, size_t n) {
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

static void start_reply(struct conn *c) {
    c->cur = 0;
    c->off = 0;
    c->reps = 0;
}

/* Writes what the socket takes. 0: all sent or the socket is full; -1: the peer is gone. */
static int flush(struct conn *c) {
    while (pending(c)) {
        struct out_seg *s = &c->out.seg[c->cur];
        const char *p = s->p ? s->p : c->out.own + s->off;
        ssize_t n = send(c->fd, p + c->off, s->len - c->off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        }
        c->off += (size_t)n;
        if (c->off == s->len) {
            c->off = 0;
            if (++c->reps == s->repeat) {
                c->reps = 0;
                c->cur++;
            }
        }
    }
    return 0;
}

/* Takes upload body bytes: how many belong to the body; sets the answer at its end. */
static size_t upload_take(struct conn *c, const char *p, size_t n, int *bad) {
    size_t take;
    int done;
    if (c->upload_chunked) {
        take = chunked_feed(&c->upload_ck, p, n, NULL, NULL);
        if (take == (size_t)-1) {
            *bad = 1;
            return 0;
        }
        done = c->upload_ck.done;
    } else {
        take = n < c->upload_left ? n : (size_t)c->upload_left;
        c->upload_left -= take;
        done = c->upload_left == 0;
    }
    if (done) {
        c->upload = NULL;
        upload_answer(&c->out);
        start_reply(c);
    }
    return take;
}

struct decoded {
    char *p;
    size_t len, cap;
};

static void append_decoded(void *ctx, const char *p, size_t n) {
    struct decoded *d = ctx;
    if (d->len + n > d->cap) {
        size_t cap = d->cap ? d->cap : 4096;
        while (cap < d->len + n) cap *= 2;
        char *q = realloc(d->p, cap);
        if (!q) die("realloc");
        d->p = q;
        d->cap = cap;
    }
    memcpy(d->p + d->len, p, n);
    d->len += n;
}

/* Starts an upload: its body is appended to the upload record, not kept in `in`. */
static int begin_upload(struct conn *c, size_t hl, int chunked, int64_t cl) {
    int bad = 0;
    struct record *rec = upload_record_begin(c->in, hl);
    c->upload = rec;
    c->upload_chunked = chunked;
    c->upload_left = cl < 0 ? 0 : (uint64_t)cl;
    chunked_init(&c->upload_ck);
    consume(c, hl);
    if (!chunked && c->upload_left == 0) {
        upload_take(c, NULL, 0, &bad);
        return 0;
    }
    size_t take = upload_take(c, c->in, c->in_len, &bad);
    if (bad) return -1;
    record_reserve(rec, take);
    memcpy(rec->p + rec->len, c->in, take);
    rec->len += take;
    consume(c, take);
    return 0;
}

/* Answers the request at the front of `in` once it is whole. -1: unusable request. */
static int process(struct conn *c) {
    static struct decoded decoded; /* one thread: one scratch buffer */
    if (c->upload || pending(c)) return 0;
    size_t hl = head_length(c->in, c->in_len);
    if (hl == 0) return c->in_len > MAX_HEAD ? -1 : 0;
    int64_t cl = header_content_length(c->in, hl);
    int chunked = header_has(c->in, hl, "Transfer-Encoding", "chunked");
    if (cl == -2) return -1;
    c->close_after = header_has(c->in, hl, "Connection", "close");
    /* Only before any body byte arrived, so a re-parsed head does not send it twice. */
    if (c->in_len == hl && header_has(c->in, hl, "Expect", "100-continue")) {
        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
        if (send(c->fd, cont, sizeof cont - 1, MSG_NOSIGNAL) != (ssize_t)sizeof cont - 1) {
            return -1;
        }
    }
    if (route_is_upload(c->in, hl)) return begin_upload(c, hl, chunked, cl);

    size_t raw_len;
    const char *body;
    size_t body_len;
    if (chunked) {
        struct chunked ck;
        chunked_init(&ck);
        decoded.len = 0;
        raw_len = chunked_feed(&ck, c->in + hl, c->in_len - hl, append_decoded, &decoded);
        if (raw_len == (size_t)-1) return -1;
        if (!ck.done) return c->in_len > MAX_BUFFERED ? -1 : 0;
        body = decoded.p;
        body_len = decoded.len;
    } else {
        raw_len = cl < 0 ? 0 : (size_t)cl;
        if (raw_len > MAX_BUFFERED) return -1;
        if (c->in_len - hl < raw_len) return 0;
        body = c->in + hl;
        body_len = raw_len;
    }
    answer_request(c->in, hl, c->in + hl, raw_len, body, body_len, &c->out);
    start_reply(c);
    consume(c, hl + raw_len);
    return 0;
}

/* One read. 1: bytes arrived; 0: nothing to read now; -1: closed or failed. */
static int receive(struct conn *c) {
    ssize_t n;
    if (c->upload) {
        struct record *rec = c->upload;
        record_reserve(rec, UPLOAD_READ);
        n = recv(c->fd, rec->p + rec->len, rec->cap - rec->len, 0);
        if (n > 0) {
            /* The body lands in the record in place; bytes past its end start the next
             * request. */
            int bad = 0;
            char *p = rec->p + rec->len;
            size_t take = upload_take(c, p, (size_t)n, &bad);
            if (bad) return -1;
            rec->len += take;
            size_t extra = (size_t)n - take;
            if (extra) {
                if (c->in_len + extra > c->in_cap) return -1; /* pipelining past a buffer */
                memcpy(c->in + c->in_len, p + take, extra);
                c->in_len += extra;
            }
        }
    } else {
        if (c->in_len == c->in_cap) {
            if (c->in_cap >= MAX_BUFFERED + MAX_HEAD) return -1;
            char *q = realloc(c->in, c->in_cap * 2);
            if (!q) die("realloc");
            c->in = q;
            c->in_cap *= 2;
        }
        n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
        if (n > 0) c->in_len += (size_t)n;
    }
    if (n > 0) return 1;
    if (n == 0) return -1;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
}

/* Writes, answers and reads until the socket would block. One read per wake-up: level-
 * triggered epoll reports the rest, and a request-answer exchange costs three syscalls. */
static void service(struct conn *c) {
    int received = 0;
    for (;;) {
        if (pending(c)) {
            if (flush(c) < 0) goto dead;
            if (pending(c)) break;
            if (c->close_after) goto dead;
        }
        if (process(c) < 0) goto dead;
        if (pending(c)) continue;
        if (received) break;
        int r = receive(c);
        if (r < 0) goto dead;
        if (r == 0) break;
        received = 1;
    }
    set_interest(c, pending(c) ? EPOLLOUT : EPOLLIN);
    return;
dead:
    conn_close(c);
}

static void accept_all(int lfd) {
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            if (errno == EINTR || errno == ECONNABORTED) continue;
            die("accept4");
        }
        int one = 1;
        /* Small answers must not wait for a delayed ACK. */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct conn *c = calloc(1, sizeof *c);
        if (!c || !(c->in = malloc(65536))) die("malloc");
        c->fd = fd;
        c->in_cap = 65536;
        c->interest = EPOLLIN;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) die("epoll_ctl");
        g_stats.accepted++;
    }
}

int main(int argc, char **argv) {
    int port = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            port = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: loadserver [--port N]\n");
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    routes_init();

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (lfd < 0) die("socket");
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0) die("bind");
    if (listen(lfd, 256) < 0) die("listen");
    socklen_t alen = sizeof addr;
    if (getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0) die("getsockname");
    printf("%d\n", ntohs(addr.sin_port));
    fflush(stdout);

    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) die("epoll_create1");
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &lev) < 0) die("epoll_ctl");
    struct epoll_event events[64];
    for (;;) {
        int n = epoll_wait(epfd, events, 64, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int i = 0; i < n; i++) {
            if (events[i].data.ptr == NULL) accept_all(lfd);
            else service(events[i].data.ptr);
        }
    }
}
