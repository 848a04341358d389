/* bench/gwinstr: the calls `make bench-instructions` counts under callgrind, against the load
 * server. Only gw's entry points are counted (callgrind --toggle-collect=gw_chat*), so building
 * the request bodies here costs nothing in the figures; running each mode at two lengths and
 * taking the difference cancels the first call's set-up (connection, lazy statics).
 *
 *   gwinstr call port=P n=N        N gw_chat calls of a small chat (the load server's fixed answer)
 *   gwinstr stream port=P n=N      one gw_chat_stream of N events of 157 B, `out` given (so the
 *                                  answer is assembled), text deltas checked
 *   gwinstr bigtext port=P n=N     N gw_chat calls of a 1 MiB text chat
 *   gwinstr bigimage port=P n=N    N gw_chat calls of a 5 MiB data-URI image chat
 *
 * Every mode makes one warm-up call first. Every gw status is checked: a failed call ends the
 * program with gw's error and exit status 1, so a broken build never passes for a fast one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "bodies.h"
#include "gwbench.h"

const char *const g_program = "gwinstr";

static void chat_n(gw_client *client, const char *req, long long n) {
    for (long long i = 0; i < n; i++) {
        char *out = NULL;
        int status = gw_chat(client, req, &out);
        check(status, out, "gw_chat");
    }
}

struct tally {
    long long events;
    long long text_bytes;
};

static int count_event(const gw_event *ev, void *user_data) {
    struct tally *t = user_data;
    t->events++;
    t->text_bytes += (long long)ev->text_delta_len;
    return 0;
}

static void stream_of(gw_client *client, long long events) {
    char req[256];
    snprintf(req, sizeof req,
             "{\"model\":\"events-%lld\",\"messages\":[{\"role\":\"user\",\"content\":"
             "\"Say a few words.\"}],\"max_tokens\":64}",
             events);
    struct tally t = {0, 0};
    char *out = NULL;
    int status = gw_chat_stream(client, req, count_event, &t, &out);
    if (status == GW_OK && (!out || !strstr(out, "chat.completion"))) {
        fail("gw_chat_stream assembled no chat.completion");
    }
    check(status, out, "gw_chat_stream");
    /* Each load-server event carries the text "word " (5 bytes). */
    if (t.events != events || t.text_bytes != 5 * events) {
        fprintf(stderr, "gwinstr: %lld events with %lld text bytes, expected %lld and %lld\n",
                t.events, t.text_bytes, events, 5 * events);
        exit(1);
    }
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    args_only(argc, argv, "port,n");
    g_port = (int)arg_num(argc, argv, "port", 0);
    long long n = arg_num(argc, argv, "n", -1);
    if (g_port <= 0 || n < 0) fail("usage: gwinstr call|stream|bigtext|bigimage port=P n=N");
    gw_client *client = bench_client();
    if (strcmp(mode, "call") == 0 || strcmp(mode, "bigtext") == 0 ||
        strcmp(mode, "bigimage") == 0) {
        char small[256];
        char *big = NULL;
        const char *req = small;
        if (strcmp(mode, "call") == 0) {
            snprintf(small, sizeof small,
                     "{\"model\":\"events-20\",\"messages\":[{\"role\":\"user\",\"content\":"
                     "\"Say a few words.\"}],\"max_tokens\":64}");
        } else {
            big = strcmp(mode, "bigtext") == 0 ? text_chat((size_t)1 << 20, 0)
                                               : image_chat((size_t)5 << 20);
            req = big;
        }
        chat_n(client, req, 1 + n);
        free(big);
    } else if (strcmp(mode, "stream") == 0) {
        stream_of(client, 20);
        stream_of(client, n);
    } else {
        fail("usage: gwinstr call|stream|bigtext|bigimage port=P n=N");
    }
    gw_client_free(client);
    return 0;
}
