/* gwbench's thread scaling: T threads sharing one gw_client against one thread on the same
 * client, non-streamed calls, throughput in calls per second. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "gwbench.h"
#include "measure.h"

struct worker {
    gw_client *client;
    long long calls;
    pthread_barrier_t *start;
};

static void *worker_run(void *arg) {
    struct worker *w = arg;
    const char *req = chat_request(20);
    if (w->start) pthread_barrier_wait(w->start);
    for (long long i = 0; i < w->calls; i++) {
        char *out = NULL;
        int status = gw_chat(w->client, req, &out);
        check(status, out, "gw_chat");
    }
    return NULL;
}

/* Runs `threads` threads of `calls` calls each; the wall time from a common start. */
static double run(gw_client *client, int threads, long long calls) {
    pthread_t tid[64];
    struct worker w[64];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        w[i] = (struct worker){client, calls, &start};
        if (pthread_create(&tid[i], NULL, worker_run, &w[i]) != 0) fail("pthread_create");
    }
    pthread_barrier_wait(&start);
    uint64_t t0 = now_ns();
    for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
    double wall = (double)(now_ns() - t0) / 1e9;
    pthread_barrier_destroy(&start);
    return wall;
}

void mode_scale(int threads, long long n) {
    if (threads < 1 || threads > 64) fail("threads must be 1..64");
    gw_client *client = bench_client();
    run(client, threads, 50); /* the pool holds a connection per thread, as in steady use */
    long long per = n / threads;
    double one = (double)n / run(client, 1, n);
    double many = (double)(per * threads) / run(client, threads, per);
    printf("threads=%d calls_per_s_1=%.0f calls_per_s_n=%.0f ratio=%.2f\n", threads, one, many,
           many / one);
    gw_client_free(client);
}
