/* gw_loop: many gw exchanges driven from one thread with epoll (gw_loop.h). */
#define _GNU_SOURCE
#include "gw_loop.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "gwl_body.h"
#include "gwl_http.h"
#include "gwl_timers.h"

#define READ_SIZE (64u * 1024) /* one recv; shared by every call (gw copies what it takes) */
#define MAX_HEAD (64u * 1024)  /* a longer answer head is refused */
#define IOV_BATCH 64           /* request pieces per sendmsg */
#define EVENT_BATCH 256
#define WAKE_SLOT UINT32_MAX

/* Where the connection of the current attempt stands. */
enum phase { IDLE, CONNECTING, SENDING, HEAD, BODY };

typedef struct call {
    uint32_t slot;
    gw_exchange *ex;
    gwl_handlers handlers;
    void *user;
    int starting; /* added, not stepped yet */
    /* The connection: `serial` tells its epoll events from a dropped one's (0: none). */
    int fd;
    uint32_t serial;
    enum phase phase;
    char *request_head;
    struct iovec *iov; /* the head, then gw's body pieces (gw owns those) */
    size_t iov_count, iov_at;
    char *answer_head; /* what came before the body */
    size_t answer_head_len, answer_head_cap;
    gwl_body *body;
    /* One timer: the earlier of gw's (its wait_ms) and the connect deadline. */
    gwl_timer timer;
    int64_t gw_due, connect_due; /* -1: none */
} call;

struct gwl_loop {
    int epfd, wakefd;
    call **slots; /* by slot number; NULL: free */
    uint32_t slot_count, slot_cap;
    uint32_t *free_slots;
    uint32_t free_count;
    call **starting;
    size_t starting_count, starting_cap;
    size_t live;
    gwl_timers timers;
    uint32_t next_serial;
    uint8_t *read_buf;
    size_t held; /* a head buffer whose body bytes are being fed now (gwl_footprint) */
};

/* --- the loop's bookkeeping ------------------------------------------------------------ */

gwl_loop *gwl_loop_new(void)
{
    gwl_loop *l = calloc(1, sizeof *l);
    if (l == NULL) return NULL;
    l->read_buf = malloc(READ_SIZE);
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    l->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)WAKE_SLOT << 32};
    if (l->read_buf == NULL || l->epfd < 0 || l->wakefd < 0 ||
        epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev) != 0) {
        int saved = errno;
        if (l->epfd >= 0) close(l->epfd);
        if (l->wakefd >= 0) close(l->wakefd);
        free(l->read_buf);
        free(l);
        errno = saved;
        return NULL;
    }
    return l;
}

static int take_slot(gwl_loop *l, call *c)
{
    if (l->free_count > 0) {
        c->slot = l->free_slots[--l->free_count];
    } else {
        if (l->slot_count == l->slot_cap) {
            uint32_t cap = l->slot_cap ? l->slot_cap * 2 : 64;
            call **slots = realloc(l->slots, cap * sizeof *slots);
            if (slots == NULL) return -1;
            l->slots = slots;
            uint32_t *free_slots = realloc(l->free_slots, cap * sizeof *free_slots);
            if (free_slots == NULL) return -1;
            l->free_slots = free_slots;
            l->slot_cap = cap;
        }
        c->slot = l->slot_count++;
    }
    l->slots[c->slot] = c;
    return 0;
}

int gwl_add(gwl_loop *l, gw_exchange *ex, const gwl_handlers *handlers, void *user)
{
    if (l == NULL || ex == NULL) {
        gw_exchange_free(ex);
        return -1;
    }
    call *c = calloc(1, sizeof *c);
    if (c != NULL && l->starting_count == l->starting_cap) {
        size_t cap = l->starting_cap ? l->starting_cap * 2 : 64;
        call **starting = realloc(l->starting, cap * sizeof *starting);
        if (starting == NULL) {
            free(c);
            c = NULL;
        } else {
            l->starting = starting;
            l->starting_cap = cap;
        }
    }
    if (c == NULL || take_slot(l, c) != 0) {
        free(c);
        gw_exchange_free(ex);
        return -1;
    }
    c->ex = ex;
    if (handlers != NULL) c->handlers = *handlers;
    c->user = user;
    c->fd = -1;
    c->timer = (gwl_timer)GWL_TIMER_INIT;
    c->gw_due = c->connect_due = -1;
    c->starting = 1;
    l->starting[l->starting_count++] = c;
    l->live++;
    return 0;
}

size_t gwl_calls(const gwl_loop *l) { return l->live; }

void gwl_wake(gwl_loop *l)
{
    uint64_t one = 1;
    ssize_t written = write(l->wakefd, &one, sizeof one);
    (void)written; /* a full counter already wakes the loop */
}

/* --- a call's connection and timer ------------------------------------------------------ */

static void set_timer(gwl_loop *l, call *c)
{
    int64_t due = c->gw_due;
    if (c->connect_due >= 0 && (due < 0 || c->connect_due < due)) due = c->connect_due;
    if (due < 0) {
        gwl_timer_clear(&l->timers, &c->timer);
    } else if (gwl_timer_set(&l->timers, &c->timer, due) != 0) {
        /* Out of memory for the heap: the call would never time out. */
        gw_exchange_feed_error(c->ex, GW_NETWORK, 0, "the loop is out of memory for a timer");
    }
}

static void conn_drop(call *c)
{
    if (c->fd >= 0) close(c->fd); /* also leaves the epoll set */
    c->fd = -1;
    c->serial = 0;
    c->phase = IDLE;
    free(c->request_head);
    c->request_head = NULL;
    free(c->iov);
    c->iov = NULL;
    c->iov_count = c->iov_at = 0;
    free(c->answer_head);
    c->answer_head = NULL;
    c->answer_head_len = c->answer_head_cap = 0;
    gwl_body_free(c->body);
    c->body = NULL;
    c->connect_due = -1;
}

static void watch(gwl_loop *l, call *c, uint32_t events, int op)
{
    struct epoll_event ev = {.events = events, .data.u64 = ((uint64_t)c->slot << 32) | c->serial};
    if (epoll_ctl(l->epfd, op, c->fd, &ev) != 0) {
        char why[160];
        snprintf(why, sizeof why, "epoll_ctl: %s", strerror(errno));
        conn_drop(c);
        gw_exchange_feed_error(c->ex, GW_NETWORK, 0, why);
    }
}

/* The transport failed: gw hears it (and decides on a retry); the connection goes. */
static void transport_failed(call *c, int status, const char *what, int err)
{
    int request_sent = c->phase == HEAD;
    char why[300];
    if (err) snprintf(why, sizeof why, "%s: %s", what, strerror(err));
    else snprintf(why, sizeof why, "%s", what);
    conn_drop(c);
    gw_exchange_feed_error(c->ex, status, request_sent, why);
}

/* --- driving one call ---------------------------------------------------------------- */

static void send_request(gwl_loop *l, call *c);

/* The call is over: its handler hears the outcome after the loop let go of it, so it may
 * add calls. */
static void finish(gwl_loop *l, call *c)
{
    char *out = NULL;
    int status = gw_exchange_finish(c->ex, &out);
    conn_drop(c);
    gwl_timer_clear(&l->timers, &c->timer);
    l->slots[c->slot] = NULL;
    l->free_slots[l->free_count++] = c->slot;
    l->live--;
    gwl_handlers handlers = c->handlers;
    void *user = c->user;
    gw_exchange_free(c->ex);
    free(c);
    if (handlers.on_done != NULL) handlers.on_done(status, out, user);
    gw_free(out);
}

/* Does what gw says until the call waits on its socket or a timer (0), or is over and freed
 * (1). */
static int drive(gwl_loop *l, call *c)
{
    for (;;) {
        int64_t wait_ms = 0;
        switch (gw_exchange_step(c->ex, &wait_ms)) {
        case GW_WANT_SEND:
            conn_drop(c); /* a retry or a redirect: the old answer goes unread */
            send_request(l, c);
            break;
        case GW_WANT_RECEIVE:
            if (c->phase == IDLE) {
                gw_exchange_feed_error(c->ex, GW_NETWORK, 0,
                                       "gw awaits an answer the loop has no connection for");
                break;
            }
            c->gw_due = wait_ms < 0 ? -1 : gwl_now_ms() + wait_ms;
            set_timer(l, c);
            return 0;
        case GW_WANT_WAIT:
            conn_drop(c);
            /* At least 1 ms: gw rounds the backoff left down, and 0 would spin until it passed. */
            c->gw_due = gwl_now_ms() + (wait_ms > 0 ? wait_ms : 1);
            set_timer(l, c);
            return 0;
        case GW_WANT_EVENT: {
            gw_event event;
            if (gw_exchange_event(c->ex, &event) == GW_OK && c->handlers.on_event != NULL &&
                c->handlers.on_event(&event, c->user) != 0)
                gw_exchange_feed_error(c->ex, GW_CANCELLED, 0, "the event handler cancelled");
            break;
        }
        default: /* GW_WANT_DONE */
            finish(l, c);
            return 1;
        }
    }
}

static void send_request(gwl_loop *l, call *c)
{
    gw_request_view view;
    if (gw_exchange_request(c->ex, &view) != GW_OK) return; /* over: the next step says so */
    gwl_target target;
    char why[200];
    if (gwl_target_of(view.url, &target, why, sizeof why) != 0) {
        gw_exchange_feed_error(c->ex, GW_NETWORK, 0, why);
        return;
    }
    size_t head_len = 0;
    c->request_head = gwl_request_head(&view, &target, &head_len);
    c->iov = calloc(1 + view.body_count, sizeof *c->iov);
    if (c->request_head == NULL || c->iov == NULL) {
        conn_drop(c);
        gw_exchange_feed_error(c->ex, GW_NETWORK, 0, "the loop is out of memory for a request");
        return;
    }
    c->iov[0] = (struct iovec){c->request_head, head_len};
    for (size_t i = 0; i < view.body_count; i++)
        c->iov[i + 1] = (struct iovec){(void *)(uintptr_t)view.body[i].data, view.body[i].len};
    c->iov_count = 1 + view.body_count;

    c->fd = socket(target.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        transport_failed(c, GW_NETWORK, "socket", errno);
        return;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&target.addr, target.addr_len) != 0 &&
        errno != EINPROGRESS) {
        transport_failed(c, GW_NETWORK, "connect", errno);
        return;
    }
    c->phase = CONNECTING;
    c->serial = ++l->next_serial ? l->next_serial : ++l->next_serial; /* never 0 */
    if (view.connect_timeout_ms > 0) c->connect_due = gwl_now_ms() + (int64_t)view.connect_timeout_ms;
    watch(l, c, EPOLLOUT, EPOLL_CTL_ADD);
}

/* Writes what the socket takes of the request; once all went, reads the answer. */
static void write_request(gwl_loop *l, call *c)
{
    while (c->iov_at < c->iov_count) {
        if (c->iov[c->iov_at].iov_len == 0) {
            c->iov_at++;
            continue;
        }
        size_t left = c->iov_count - c->iov_at;
        struct msghdr msg = {.msg_iov = c->iov + c->iov_at,
                             .msg_iovlen = left < IOV_BATCH ? left : IOV_BATCH};
        ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return; /* EPOLLOUT says when */
            transport_failed(c, GW_NETWORK, "send", errno);
            return;
        }
        for (size_t sent = (size_t)n; sent > 0;) {
            struct iovec *v = &c->iov[c->iov_at];
            if (sent >= v->iov_len) {
                sent -= v->iov_len;
                c->iov_at++;
            } else {
                v->iov_base = (char *)v->iov_base + sent;
                v->iov_len -= sent;
                sent = 0;
            }
        }
    }
    free(c->request_head);
    c->request_head = NULL;
    free(c->iov);
    c->iov = NULL;
    c->iov_count = c->iov_at = 0;
    c->phase = HEAD;
    watch(l, c, EPOLLIN, EPOLL_CTL_MOD);
}

static void connected(gwl_loop *l, call *c)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err != 0) {
        transport_failed(c, GW_NETWORK, "connect", err);
        return;
    }
    c->phase = SENDING;
    c->connect_due = -1;
    set_timer(l, c);
    write_request(l, c);
}

/* What feeding a body piece led to. */
enum fed { STILL_READING, MOVED_ON, ENDED };

/* Hands gw one decoded piece, stepping through its events; gw may take it in parts. */
static enum fed feed(gwl_loop *l, call *c, const uint8_t *piece, size_t len)
{
    uint32_t serial = c->serial;
    int stalled = 0;
    while (len > 0) {
        size_t taken = 0;
        int rc = gw_exchange_feed_body(c->ex, piece, len, &taken);
        if (rc != GW_OK && rc != GW_WOULD_BLOCK) taken = 0; /* no body awaited: step says why */
        piece += taken;
        len -= taken;
        /* Stepping takes the events out of gw's buffer, which makes room for the rest. */
        stalled = taken == 0 ? stalled + 1 : 0;
        if (stalled == 2) {
            transport_failed(c, GW_NETWORK, "gw took no body bytes, even after its events", 0);
        }
        if (drive(l, c)) return ENDED;
        if (c->serial != serial) return MOVED_ON;
    }
    return STILL_READING;
}

/* Decodes and feeds body bytes; `in` may be in the answer head's buffer or the read buffer. */
static void take_body(gwl_loop *l, call *c, const uint8_t *in, size_t in_len)
{
    uint32_t serial = c->serial;
    for (;;) {
        const uint8_t *piece = NULL;
        size_t piece_len = 0;
        switch (gwl_body_next(c->body, &in, &in_len, &piece, &piece_len)) {
        case GWL_BODY_MORE:
            return;
        case GWL_BODY_PIECE:
            if (feed(l, c, piece, piece_len) != STILL_READING) return;
            break;
        case GWL_BODY_END:
            conn_drop(c);
            gw_exchange_feed_end(c->ex);
            drive(l, c);
            return;
        case GWL_BODY_ERROR:
            transport_failed(c, GW_NETWORK, gwl_body_error(c->body), 0);
            drive(l, c);
            return;
        }
        if (c->serial != serial) return;
    }
}

/* Head bytes came (`n`, 0 at the close): once the head is whole, gw gets it, then the body
 * bytes that followed it. */
static void take_head(gwl_loop *l, call *c, const uint8_t *bytes, size_t n)
{
    if (c->answer_head_len + n + 1 > c->answer_head_cap) {
        /* What this read needs, in 1 KiB steps: the body bytes read with the head are fed
         * from here, and doubling would hold twice a read per call in flight. */
        size_t cap = (c->answer_head_len + n + 1 + 1023) / 1024 * 1024;
        char *grown = realloc(c->answer_head, cap);
        if (grown == NULL) {
            transport_failed(c, GW_NETWORK, "the loop is out of memory for an answer head", 0);
            drive(l, c);
            return;
        }
        c->answer_head = grown;
        c->answer_head_cap = cap;
    }
    memcpy(c->answer_head + c->answer_head_len, bytes, n);
    c->answer_head_len += n;
    for (;;) {
        size_t end = gwl_head_end(c->answer_head, c->answer_head_len);
        if (end == 0) {
            if (c->answer_head_len > MAX_HEAD)
                transport_failed(c, GW_NETWORK, "HTTP protocol error: answer head over 64 KiB", 0);
            else if (n == 0)
                transport_failed(c, GW_NETWORK, "the connection closed before the answer's head", 0);
            else
                return;
            drive(l, c);
            return;
        }
        gwl_head head;
        char why[200];
        if (gwl_head_parse(c->answer_head, end, &head, why, sizeof why) != 0) {
            transport_failed(c, GW_NETWORK, why, 0);
            drive(l, c);
            return;
        }
        if (head.status / 100 == 1 && head.status != 101) {
            /* 100 Continue, 103 Early Hints: the real head follows. */
            gwl_head_free(&head);
            memmove(c->answer_head, c->answer_head + end, c->answer_head_len - end);
            c->answer_head_len -= end;
            continue;
        }
        int rc = gw_exchange_feed_head(c->ex, head.status, head.headers, head.count);
        c->body = rc == GW_OK ? gwl_body_new(&head) : NULL;
        gwl_head_free(&head);
        if (rc != GW_OK) {
            transport_failed(c, GW_NETWORK, gw_last_error(), 0);
            drive(l, c);
            return;
        }
        uint32_t serial = c->serial;
        c->phase = BODY;
        if (c->body == NULL) transport_failed(c, GW_NETWORK, "the loop is out of memory", 0);
        if (drive(l, c) || c->serial != serial) return; /* over, a retry or a redirect */
        if (n == 0) gwl_body_closed(c->body);
        /* The bytes after the head: fed from the head's buffer, freed after. */
        char *rest_buf = c->answer_head;
        size_t rest_cap = c->answer_head_cap;
        c->answer_head = NULL;
        c->answer_head_cap = 0;
        size_t rest = c->answer_head_len - end;
        c->answer_head_len = 0;
        l->held = rest_cap;
        take_body(l, c, (const uint8_t *)rest_buf + end, rest);
        free(rest_buf);
        l->held = 0;
        return;
    }
}

static void readable(gwl_loop *l, call *c)
{
    ssize_t n = recv(c->fd, l->read_buf, READ_SIZE, 0);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
        transport_failed(c, GW_NETWORK, "recv", errno);
        drive(l, c);
        return;
    }
    if (c->phase == HEAD) {
        take_head(l, c, l->read_buf, (size_t)n);
        return;
    }
    if (n == 0) gwl_body_closed(c->body);
    take_body(l, c, l->read_buf, (size_t)n);
}

/* --- the loop ------------------------------------------------------------------------ */

static void dispatch(gwl_loop *l, const struct epoll_event *ev)
{
    uint32_t slot = (uint32_t)(ev->data.u64 >> 32), serial = (uint32_t)ev->data.u64;
    if (slot == WAKE_SLOT) {
        uint64_t count;
        ssize_t got = read(l->wakefd, &count, sizeof count);
        (void)got;
        /* A cancel may be behind the wake: every call steps (gw reads its cancel state). */
        for (uint32_t i = 0; i < l->slot_count; i++) {
            call *c = l->slots[i];
            if (c != NULL && !c->starting) drive(l, c);
        }
        return;
    }
    call *c = slot < l->slot_count ? l->slots[slot] : NULL;
    if (c == NULL || c->serial != serial) return; /* a connection dropped earlier this round */
    switch (c->phase) {
    case CONNECTING:
        connected(l, c);
        break;
    case SENDING:
        write_request(l, c);
        break;
    case HEAD:
    case BODY:
        readable(l, c);
        return;
    case IDLE:
        return;
    }
    if (c->phase == IDLE) drive(l, c); /* connect or send failed: gw decides what next */
}

static void start_added(gwl_loop *l)
{
    /* Handlers may add calls while these start: take the list as it grows. */
    for (size_t i = 0; i < l->starting_count; i++) {
        call *c = l->starting[i];
        c->starting = 0;
        drive(l, c);
    }
    l->starting_count = 0;
}

static void fire_timers(gwl_loop *l)
{
    int64_t now = gwl_now_ms();
    gwl_timer *t;
    while ((t = gwl_timer_first(&l->timers)) != NULL && t->due_ms <= now) {
        call *c = (call *)((char *)t - offsetof(call, timer));
        gwl_timer_clear(&l->timers, t);
        if (c->phase == CONNECTING && c->connect_due >= 0 && c->connect_due <= now) {
            transport_failed(c, GW_TIMEOUT, "connect timed out (connect_timeout_ms)", 0);
        } else {
            c->gw_due = -1;
        }
        drive(l, c);
    }
}

int gwl_run_once(gwl_loop *l, int timeout_ms)
{
    start_added(l);
    if (l->live == 0) return 0;
    int wait = timeout_ms;
    gwl_timer *first = gwl_timer_first(&l->timers);
    if (first != NULL) {
        int64_t until = first->due_ms - gwl_now_ms();
        if (until < 0) until = 0;
        if (wait < 0 || until < wait) wait = until > INT32_MAX ? INT32_MAX : (int)until;
    }
    struct epoll_event events[EVENT_BATCH];
    int n = epoll_wait(l->epfd, events, EVENT_BATCH, wait);
    if (n < 0 && errno != EINTR) return -1;
    for (int i = 0; i < n; i++) dispatch(l, &events[i]);
    fire_timers(l);
    start_added(l);
    return (int)l->live;
}

int gwl_run(gwl_loop *l)
{
    int left;
    while ((left = gwl_run_once(l, -1)) > 0) {
    }
    return left < 0 ? -1 : 0;
}

size_t gwl_footprint(const gwl_loop *l)
{
    size_t bytes = l->held;
    for (uint32_t i = 0; i < l->slot_count; i++) {
        const call *c = l->slots[i];
        if (c == NULL) continue;
        bytes += sizeof *c + c->answer_head_cap + c->iov_count * sizeof *c->iov;
        if (c->request_head != NULL) bytes += c->iov_count ? c->iov[0].iov_len : 0;
        if (c->body != NULL) bytes += gwl_body_footprint(c->body);
    }
    return bytes;
}

void gwl_loop_free(gwl_loop *l)
{
    if (l == NULL) return;
    for (uint32_t i = 0; i < l->slot_count; i++) {
        call *c = l->slots[i];
        if (c == NULL) continue;
        conn_drop(c);
        gw_exchange_free(c->ex);
        free(c);
    }
    close(l->epfd);
    close(l->wakefd);
    gwl_timers_free(&l->timers);
    free(l->slots);
    free(l->free_slots);
    free(l->starting);
    free(l->read_buf);
    free(l);
}
