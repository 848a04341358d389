/* bench/gwbench: gw measured through its C ABI (include/gw.h, libgw.so) against the load
 * server, one figure per mode; bench/floor measures the same figures on a raw socket.
 *
 *   gwbench latency port=P n=N warmup=W      gw_chat: p50/p99 and CPU per call
 *   gwbench connections port=P calls=C       connections opened by C streamed, then C plain calls
 *   gwbench stream port=P events=E api=callback|callback-assembled|pull   CPU and
 *                                            allocations per event (callback-assembled: `out`
 *                                            given, the answer assembled)
 *   gwbench rss port=P bytes=B [max_response_bytes=M]   peak RSS growth over a B-byte
 *                                            stream, out NULL; exit status 3 on GW_TOO_LARGE
 *   gwbench scale port=P threads=T n=N       calls/s, T threads sharing one client vs 1
 *   gwbench upload port=P reps=R mib=M       gw_image_edit_upload of M MiB, best and median
 *   gwbench bigbody port=P kind=image|text|cjk kib=K reps=R [api=plain|stream]   gw_chat (or
 *                                            gw_chat_stream, out NULL) of a K KiB body (data-URI
 *                                            image or long text) interleaved with the floor:
 *                                            CPU, allocations, peak RSS growth per call
 *   gwbench version                          gw_version() of the library under test
 *
 * Output: one line of key=value figures. Every gw status is checked: a failed call ends the
 * program with gw's error and exit status 1. */
#define _GNU_SOURCE
#include "gwbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"
#include "args.h"
#include "measure.h"
#include "rawhttp.h"

const char *const g_program = "gwbench";

long long server_accepted(void) {
    struct rh_bytes b = {0};
    if (rh_get(g_port, "/__stats", &b) != 200) fail("GET /__stats failed");
    long long n = rh_json_number(&b, "accepted");
    free(b.p);
    if (n < 0) fail("/__stats has no accepted count");
    return n;
}

const char *chat_request(unsigned long long events) {
    static _Thread_local char req[256];
    snprintf(req, sizeof req,
             "{\"model\":\"events-%llu\",\"messages\":[{\"role\":\"user\",\"content\":"
             "\"Say a few words.\"}],\"max_tokens\":64}",
             events);
    return req;
}

static void latency(long long n, long long warmup) {
    gw_client *client = bench_client();
    const char *req = chat_request(20);
    for (long long i = 0; i < warmup; i++) {
        char *out = NULL;
        int status = gw_chat(client, req, &out);
        check(status, out, "gw_chat (warm-up)");
    }
    uint64_t *t = malloc((size_t)n * sizeof *t);
    if (!t) fail("out of memory");
    double cpu0 = cpu_us();
    for (long long i = 0; i < n; i++) {
        char *out = NULL;
        uint64_t t0 = now_ns();
        int status = gw_chat(client, req, &out);
        t[i] = now_ns() - t0;
        check(status, out, "gw_chat");
    }
    double cpu = cpu_us() - cpu0;
    double p50 = percentile_us(t, (size_t)n, 50), p99 = percentile_us(t, (size_t)n, 99);
    printf("calls=%lld p50_us=%.2f p99_us=%.2f cpu_us_per_call=%.3f\n", n, p50, p99,
           cpu / (double)n);
    free(t);
    gw_client_free(client);
}

static int ignore_event(const gw_event *ev, void *user_data) {
    (void)ev;
    (void)user_data;
    return 0;
}

/* Connections the server accepted during `calls` calls on one client; the stats request
 * made afterwards opens one of its own. */
static void connections(long long calls) {
    gw_client *client = bench_client();
    const char *req = chat_request(20);
    long long before = server_accepted();
    for (long long i = 0; i < calls; i++) {
        check(gw_chat_stream(client, req, ignore_event, NULL, NULL), NULL, "gw_chat_stream");
    }
    long long streamed = server_accepted() - before - 1;
    before = server_accepted();
    for (long long i = 0; i < calls; i++) {
        char *out = NULL;
        int status = gw_chat(client, req, &out);
        check(status, out, "gw_chat");
    }
    long long plain = server_accepted() - before - 1;
    printf("calls=%lld streamed_connections=%lld plain_connections=%lld\n", calls, streamed,
           plain);
    gw_client_free(client);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    args_only(argc, argv, "port,n,warmup,calls,events,api,bytes,max_response_bytes,threads,reps,mib,kind,kib");
    if (strcmp(mode, "version") == 0) {
        printf("version=%s\n", gw_version());
        return 0;
    }
    g_port = (int)arg_num(argc, argv, "port", 0);
    if (g_port <= 0) fail("port=P is required");
    if (strcmp(mode, "latency") == 0) {
        latency(arg_num(argc, argv, "n", 20000), arg_num(argc, argv, "warmup", 2000));
    } else if (strcmp(mode, "connections") == 0) {
        connections(arg_num(argc, argv, "calls", 21));
    } else if (strcmp(mode, "stream") == 0) {
        mode_stream((unsigned long long)arg_num(argc, argv, "events", 1000000),
                    arg_str(argc, argv, "api", "callback"));
    } else if (strcmp(mode, "rss") == 0) {
        mode_rss((unsigned long long)arg_num(argc, argv, "bytes", 1LL << 30),
                 arg_num(argc, argv, "max_response_bytes", 0));
    } else if (strcmp(mode, "scale") == 0) {
        mode_scale((int)arg_num(argc, argv, "threads", 8), arg_num(argc, argv, "n", 20000));
    } else if (strcmp(mode, "upload") == 0) {
        mode_upload(arg_num(argc, argv, "reps", 5), arg_num(argc, argv, "mib", 50));
    } else if (strcmp(mode, "bigbody") == 0) {
        mode_bigbody(arg_str(argc, argv, "kind", "image"), arg_num(argc, argv, "kib", 5120),
                     arg_num(argc, argv, "reps", 30), arg_str(argc, argv, "api", "plain"));
    } else {
        fail("usage: gwbench latency|connections|stream|rss|scale|upload|bigbody port=P [key=value...]");
    }
    return 0;
}
