/* bench/floor: the raw-socket floor for `make bench`. It replays, byte for byte, the last
 * request gw sent of each kind (GET /__last on the load server) over one keep-alive
 * connection with TCP_NODELAY, one write per request, and reads the answers with minimal
 * parsing: the least any client must do, so gw's figures are read against it.
 *
 *   floor latency port=P n=N warmup=W      p50/p99 and CPU per non-streamed call
 *   floor connections port=P calls=C       connections opened: C streamed, then C plain calls
 *   floor stream port=P                    one stream: CPU and allocations per event
 *   floor scale port=P threads=T n=N       calls/s with 1 and with T connections+threads
 *   floor upload port=P reps=R             the recorded upload replayed, best and median
 *
 * Output: one line of key=value figures. Exit 1 when the harness breaks. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"
#include "args.h"
#include "floor_sse.h"
#include "measure.h"
#include "rawhttp.h"

static int port;

_Noreturn static void fail(const char *what) {
    fprintf(stderr, "floor: %s\n", what);
    exit(1);
}

/* The raw bytes gw sent last for `kind` (chat, stream, upload). */
static struct rh_bytes recorded(const char *kind) {
    char path[64];
    snprintf(path, sizeof path, "/__last?kind=%s", kind);
    struct rh_bytes b = {0};
    int status = rh_get(port, path, &b);
    if (status != 200) {
        fprintf(stderr, "floor: GET %s gave %d: run gwbench's %s figure first\n", path, status,
                kind);
        exit(1);
    }
    return b;
}

static long long accepted(void) {
    struct rh_bytes b = {0};
    if (rh_get(port, "/__stats", &b) != 200) fail("GET /__stats failed");
    long long n = rh_json_number(&b, "accepted");
    free(b.p);
    if (n < 0) fail("/__stats has no accepted count");
    return n;
}

/* One request in one write, its answer read and dropped. */
static void call(struct rh_conn *c, const struct rh_bytes *req) {
    if (rh_write_all(c->fd, req->p, req->len) < 0) fail("write failed");
    int status = rh_read_answer(c, NULL);
    if (status != 200) {
        fprintf(stderr, "floor: the answer's status is %d\n", status);
        exit(1);
    }
}

static void open_or_fail(struct rh_conn *c) {
    if (rh_open(c, port) < 0) fail("cannot connect to the load server");
}

static void latency(long long n, long long warmup) {
    struct rh_bytes req = recorded("chat");
    struct rh_conn c;
    open_or_fail(&c);
    for (long long i = 0; i < warmup; i++) call(&c, &req);
    uint64_t *t = malloc((size_t)n * sizeof *t);
    if (!t) fail("out of memory");
    double cpu0 = cpu_us();
    for (long long i = 0; i < n; i++) {
        uint64_t t0 = now_ns();
        call(&c, &req);
        t[i] = now_ns() - t0;
    }
    double cpu = cpu_us() - cpu0;
    double p50 = percentile_us(t, (size_t)n, 50), p99 = percentile_us(t, (size_t)n, 99);
    printf("calls=%lld p50_us=%.2f p99_us=%.2f cpu_us_per_call=%.3f\n", n, p50, p99,
           cpu / (double)n);
    rh_close(&c);
    free(t);
    free(req.p);
}

/* As gwbench: C streamed calls, then C non-streamed ones, on one connection; the second
 * stats request of each pair opens a connection of its own. */
static void connections(long long calls) {
    struct rh_bytes streamed = recorded("stream"), plain = recorded("chat");
    struct rh_conn c;
    long long before = accepted();
    open_or_fail(&c);
    for (long long i = 0; i < calls; i++) call(&c, &streamed);
    long long opened_streamed = accepted() - before - 1;
    before = accepted();
    for (long long i = 0; i < calls; i++) call(&c, &plain);
    long long opened_plain = accepted() - before - 1;
    rh_close(&c);
    printf("calls=%lld streamed_connections=%lld plain_connections=%lld\n", calls,
           opened_streamed, opened_plain);
    free(streamed.p);
    free(plain.p);
}

static void stream(void) {
    struct rh_bytes req = recorded("stream");
    struct rh_conn c;
    open_or_fail(&c);
    struct sse_counter sse;
    sse_counter_init(&sse);
    reset_hwm();
    long hwm0 = vm_hwm_kib();
    unsigned long long allocs0 = alloc_count();
    double cpu0 = cpu_us();
    uint64_t t0 = now_ns();
    if (rh_write_all(c.fd, req.p, req.len) < 0) fail("write failed");
    int status = rh_read_answer_cb(&c, sse_counter_feed, &sse);
    double wall = (double)(now_ns() - t0) / 1e9;
    double cpu = cpu_us() - cpu0;
    unsigned long long allocs = alloc_count() - allocs0;
    if (status != 200) fail("the stream's status is not 200");
    if (!sse_counter_saw_done(&sse) || sse.events < 1) fail("the stream did not end with [DONE]");
    double events = (double)(sse.events - 1); /* [DONE] is not an event for gw */
    printf("events=%llu cpu_us_per_event=%.4f allocs_per_event=%.3f wall_s=%.3f "
           "events_per_s=%.0f rss_growth_mib=%.2f\n",
           sse.events - 1, cpu / events, (double)allocs / events, wall, events / wall,
           (double)(vm_hwm_kib() - hwm0) / 1024.0);
    rh_close(&c);
    free(req.p);
}

struct worker {
    const struct rh_bytes *req;
    long long calls;
    pthread_barrier_t *start;
};

static void *worker_run(void *arg) {
    struct worker *w = arg;
    struct rh_conn c;
    open_or_fail(&c);
    call(&c, w->req); /* connected and warm before the clock starts */
    pthread_barrier_wait(w->start);
    for (long long i = 0; i < w->calls; i++) call(&c, w->req);
    rh_close(&c);
    return NULL;
}

/* Calls per second with `threads` threads, each on its own connection, n calls in all. */
static double throughput(const struct rh_bytes *req, int threads, long long n) {
    pthread_t tid[64];
    struct worker w[64];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        w[i] = (struct worker){req, n / threads, &start};
        if (pthread_create(&tid[i], NULL, worker_run, &w[i]) != 0) fail("pthread_create");
    }
    pthread_barrier_wait(&start);
    uint64_t t0 = now_ns();
    for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
    double wall = (double)(now_ns() - t0) / 1e9;
    pthread_barrier_destroy(&start);
    return (double)(n / threads * threads) / wall;
}

static void scale(int threads, long long n) {
    if (threads < 1 || threads > 64) fail("threads must be 1..64");
    struct rh_bytes req = recorded("chat");
    double one = throughput(&req, 1, n);
    double many = throughput(&req, threads, n);
    printf("threads=%d calls_per_s_1=%.0f calls_per_s_n=%.0f ratio=%.2f\n", threads, one, many,
           many / one);
    free(req.p);
}

static void upload(long long reps) {
    if (reps < 1 || reps > 64) fail("reps must be 1..64");
    struct rh_bytes req = recorded("upload");
    struct rh_conn c;
    open_or_fail(&c);
    call(&c, &req); /* warm-up */
    uint64_t t[64];
    for (long long i = 0; i < reps; i++) {
        uint64_t t0 = now_ns();
        call(&c, &req);
        t[i] = now_ns() - t0;
    }
    uint64_t best = t[0];
    for (long long i = 1; i < reps; i++) best = t[i] < best ? t[i] : best;
    printf("bytes=%zu reps=%lld best_ms=%.2f median_ms=%.2f\n", req.len, reps,
           (double)best / 1e6, median_ms(t, (size_t)reps));
    rh_close(&c);
    free(req.p);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    args_only(argc, argv, "port,n,warmup,calls,threads,reps");
    port = (int)arg_num(argc, argv, "port", 0);
    if (port <= 0) fail("port=P is required");
    if (strcmp(mode, "latency") == 0) {
        latency(arg_num(argc, argv, "n", 20000), arg_num(argc, argv, "warmup", 2000));
    } else if (strcmp(mode, "connections") == 0) {
        connections(arg_num(argc, argv, "calls", 21));
    } else if (strcmp(mode, "stream") == 0) {
        stream();
    } else if (strcmp(mode, "scale") == 0) {
        scale((int)arg_num(argc, argv, "threads", 8), arg_num(argc, argv, "n", 20000));
    } else if (strcmp(mode, "upload") == 0) {
        upload(arg_num(argc, argv, "reps", 5));
    } else {
        fail("usage: floor latency|connections|stream|scale|upload port=P [key=value...]");
    }
    return 0;
}
