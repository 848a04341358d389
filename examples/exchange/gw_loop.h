/*
 * gw_loop: a small single-threaded event loop (Linux epoll, non-blocking sockets) that drives
 * many gw exchanges at once: what a libuv or event-loop user writes around gw_exchange_*.
 * One thread, any number of calls in flight; no thread per call, no blocking call.
 *
 * Its limits, on purpose (it is an example, and the C suite's driver of the exchange):
 *   - plain http:// only (no TLS), HTTP/1.1, one request per connection (Connection: close,
 *     no pool): a retry or a redirect opens a new connection;
 *   - numeric addresses and localhost only: getaddrinfo blocks, so a name is refused
 *     (GW_NETWORK) instead of stalling every other call;
 *   - answers framed by Content-Length, chunked or the close; gzip inflated with zlib.
 * gw decides everything else (retries, backoff, redirects, deadlines, SSE, assembly, caps):
 * the loop only does what gw_exchange_step says.
 *
 * Threads: a loop and its calls belong to the thread that runs it; gwl_wake is the one
 * function another thread may call. To cancel a call from anywhere, create its exchange on a
 * handle of its own (gw_client_derive), gw_client_cancel that handle, then gwl_wake the loop.
 */
#ifndef GW_LOOP_H
#define GW_LOOP_H

#include <stddef.h>

#include "gw.h"

typedef struct gwl_loop gwl_loop;

/* What a call tells its owner, on the loop's thread, from inside gwl_run / gwl_run_once. */
typedef struct gwl_handlers {
    /* A stream's event (its pointers live during the call only). Return 0 to go on, non-zero
     * to cancel the call: it then ends with GW_CANCELLED. May be NULL. */
    int (*on_event)(const gw_event *event, void *user);
    /* The call is over: its status and `out` (the answer, a stream's assembled object, or
     * the error JSON; may be NULL; valid during the call only). Called exactly once per call
     * gwl_add took. May start new calls (gwl_add). May be NULL. */
    void (*on_done)(int status, const char *out, void *user);
} gwl_handlers;

/* A new loop; NULL when the system refuses epoll or an eventfd (errno says why). */
gwl_loop *gwl_loop_new(void);

/* Hands `exchange` (from gw_exchange_new, not stepped yet) to the loop, which frees it when
 * the call is over. `handlers` is copied; `user` is passed back to them. The call starts at
 * the next gwl_run / gwl_run_once. Returns 0; or -1 when out of memory or `exchange` is NULL:
 * the exchange is then freed and no handler is called. */
int gwl_add(gwl_loop *loop, gw_exchange *exchange, const gwl_handlers *handlers, void *user);

/* Runs until no call is left. Returns 0, or -1 when epoll_wait failed (errno). */
int gwl_run(gwl_loop *loop);

/* One round: waits at most `timeout_ms` (-1: until something happens) for I/O, a timer or a
 * wake, and handles what came. Returns the number of calls still in the loop, or -1 when
 * epoll_wait failed. */
int gwl_run_once(gwl_loop *loop, int timeout_ms);

/* From any thread: wakes the loop, which then steps every call (after gw_client_cancel, the
 * cancelled calls end with GW_CANCELLED). Async-signal-safe (one write to an eventfd). */
void gwl_wake(gwl_loop *loop);

/* Calls in the loop (added and not over). */
size_t gwl_calls(const gwl_loop *loop);

/* Bytes the loop holds for its calls besides gw's own: per call its state, the request head
 * being written, the answer's head being read and the body decoder. For memory figures. */
size_t gwl_footprint(const gwl_loop *loop);

/* Frees the loop. Calls still in it are abandoned: their exchanges freed, connections closed,
 * no handler called. NULL is fine. Not from inside a handler. */
void gwl_loop_free(gwl_loop *loop);

#endif
