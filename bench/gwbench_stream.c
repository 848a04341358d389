/* gwbench's stream figures: CPU and heap allocations per event through the callback API
 * (gw_chat_stream with `out` NULL, or with `out` given, which assembles the final object) or
 * the pull API (open / next / finish, which assembles it too), and peak RSS over a long
 * stream with `out` NULL. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"
#include "gwbench.h"
#include "measure.h"

struct tally {
    unsigned long long events;
    unsigned long long text_bytes;
    int bad_size;
};

static int count_event(const gw_event *ev, void *user_data) {
    struct tally *t = user_data;
    /* "data: " + data + "\n\n" is what the server wrote for one event. */
    if (t->events == 0 && ev->data_len + 8 != LOAD_EVENT_BYTES) t->bad_size = 1;
    t->events++;
    t->text_bytes += ev->text_delta_len;
    return 0;
}

void check_alloc_counting(gw_client *client) {
    unsigned long long before = alloc_count();
    char *out = NULL;
    int status = gw_chat(client, chat_request(20), &out);
    check(status, out, "gw_chat (allocation check)");
    if (alloc_count() == before) {
        fail("the allocation counter saw none of libgw's allocations (malloc not interposed)");
    }
}

static void verify(const struct tally *t, unsigned long long events) {
    if (t->bad_size) fail("an event's size differs from LOAD_EVENT_BYTES: fix gwbench.h");
    if (t->events != events || t->text_bytes != 5 * events) {
        fprintf(stderr, "gwbench: got %llu events with %llu text bytes, expected %llu and %llu\n",
                t->events, t->text_bytes, events, 5 * events);
        exit(1);
    }
}

static void stream_callback(gw_client *client, unsigned long long events, struct tally *t) {
    check(gw_chat_stream(client, chat_request(events), count_event, t, NULL), NULL,
          "gw_chat_stream");
}

static void stream_callback_assembled(gw_client *client, unsigned long long events,
                                      struct tally *t) {
    char *out = NULL;
    int status = gw_chat_stream(client, chat_request(events), count_event, t, &out);
    if (status == GW_OK && (!out || !strstr(out, "chat.completion"))) {
        fail("gw_chat_stream gave no chat.completion");
    }
    check(status, out, "gw_chat_stream (out given)");
}

static void stream_pull(gw_client *client, unsigned long long events, struct tally *t) {
    gw_stream *s = NULL;
    char *out = NULL;
    int status = gw_chat_stream_open(client, chat_request(events), &s, &out);
    check(status, out, "gw_chat_stream_open");
    const gw_event *ev = NULL;
    while ((status = gw_stream_next(s, &ev)) == GW_OK) count_event(ev, t);
    if (status != GW_DONE) {
        gw_stream_finish(s, &out);
        check(status, out, "gw_stream_next");
    }
    status = gw_stream_finish(s, &out);
    if (status == GW_OK && (!out || !strstr(out, "chat.completion"))) {
        fail("gw_stream_finish gave no chat.completion");
    }
    check(status, out, "gw_stream_finish");
    gw_stream_free(s);
}

void mode_stream(unsigned long long events, const char *api) {
    void (*run)(gw_client *, unsigned long long, struct tally *);
    if (strcmp(api, "callback") == 0) run = stream_callback;
    else if (strcmp(api, "callback-assembled") == 0) run = stream_callback_assembled;
    else if (strcmp(api, "pull") == 0) run = stream_pull;
    else fail("api must be callback, callback-assembled or pull");
    gw_client *client = bench_client();
    check_alloc_counting(client);
    struct tally warm = {0};
    run(client, 20, &warm); /* the connection is open and pooled before the clock starts */
    verify(&warm, 20);

    struct tally t = {0};
    unsigned long long allocs0 = alloc_count();
    double cpu0 = cpu_us();
    uint64_t t0 = now_ns();
    run(client, events, &t);
    double wall = (double)(now_ns() - t0) / 1e9;
    double cpu = cpu_us() - cpu0;
    unsigned long long allocs = alloc_count() - allocs0;
    verify(&t, events);
    double n = (double)events;
    printf("api=%s events=%llu cpu_us_per_event=%.4f allocs_per_event=%.3f wall_s=%.3f "
           "events_per_s=%.0f\n",
           api, events, cpu / n, (double)allocs / n, wall, n / wall);
    gw_client_free(client);
}

/* Exit status of `rss` when gw refuses the stream with GW_TOO_LARGE: gw assembled the final
 * answer although `out` is NULL and hit max_response_bytes (issue 10, finding 5). The script
 * measures again with a larger cap (max_response_bytes=M) so the growth still shows. */
#define EXIT_TOO_LARGE 3

void mode_rss(unsigned long long bytes, long long max_response_bytes) {
    unsigned long long events = bytes / LOAD_EVENT_BYTES;
    char extra[64];
    snprintf(extra, sizeof extra, "\"max_response_bytes\":%lld", max_response_bytes);
    gw_client *client = bench_client_with(max_response_bytes > 0 ? extra : NULL);
    struct tally warm = {0};
    stream_callback(client, 20, &warm);
    verify(&warm, 20);
    reset_hwm(); /* growth from here: start-up peaks (CA store) do not count */
    long hwm0 = vm_hwm_kib();
    if (hwm0 < 0) fail("cannot read VmHWM from /proc/self/status");
    struct tally t = {0};
    double cpu0 = cpu_us();
    uint64_t t0 = now_ns();
    int status = gw_chat_stream(client, chat_request(events), count_event, &t, NULL);
    if (status == GW_TOO_LARGE) {
        fprintf(stderr, "gwbench: GW_TOO_LARGE after %llu of %llu events: %s\n", t.events,
                events, gw_last_error());
        exit(EXIT_TOO_LARGE);
    }
    check(status, NULL, "gw_chat_stream");
    double wall = (double)(now_ns() - t0) / 1e9;
    double cpu = cpu_us() - cpu0;
    verify(&t, events);
    long hwm1 = vm_hwm_kib();
    printf("events=%llu bytes=%llu hwm_before_mib=%.1f hwm_after_mib=%.1f rss_growth_mib=%.2f "
           "wall_s=%.3f events_per_s=%.0f cpu_us_per_event=%.4f\n",
           events, events * LOAD_EVENT_BYTES, (double)hwm0 / 1024.0, (double)hwm1 / 1024.0,
           (double)(hwm1 - hwm0) / 1024.0, wall, (double)events / wall, cpu / (double)events);
    gw_client_free(client);
}
