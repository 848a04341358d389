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
 *   gwinstr exchange n=N           N plain chat calls through the sans-IO exchange, driven in
 *                                  memory as the Go binding drives it (no server, no I/O): a
 *                                  derived handle, the request taken, a canned answer fed
 *                                  (the mock's head and body), the outcome read, all freed.
 *                                  Each phase is a function of its own (exch_phase_*), so
 *                                  callgrind --toggle-collect='exch_phase_*' counts the calls
 *                                  and callgrind_annotate --inclusive=yes splits them by phase;
 *                                  exch_phase_last_response (gw_client_last_response, which
 *                                  the Go stream reads once) is counted beside, not in, a call.
 *
 * Every mode makes one warm-up call first. Every gw status is checked: a failed call ends the
 * program with gw's error and exit status 1, so a broken build never passes for a fast one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
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

/* The exchange mode's canned call: the Go binding's request and the mock's answer. */
static const char k_exchange_request[] =
    "{\"model\":\"bench-model\",\"messages\":[{\"role\":\"user\",\"content\":"
    "\"What is the capital of France?\"}]}";
static const char k_exchange_answer[] =
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1795811687,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Echo: What is the "
    "capital of France?\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":6,"
    "\"completion_tokens\":7,\"total_tokens\":13}}";
static const gw_header k_exchange_head[] = {
    {"content-type", "application/json"},
    {"x-request-id", "req_mock_1"},
    {"content-length", "274"},
    {"date", "Fri, 27 Nov 2026 20:34:47 GMT"},
};

static void want(int got, int expected, const char *what) {
    if (got != expected) {
        fprintf(stderr, "gwinstr: %s: step said %d, expected %d (%s)\n", what, got, expected,
                gw_last_error());
        exit(1);
    }
}

static void ok(int status, char *err, const char *what) {
    if (status != GW_OK) check(status, err, what);
}

/* The phases, each a function of its own that callgrind counts inclusively. */
__attribute__((noinline)) static gw_client *exch_phase_derive(gw_client *base) {
    gw_client *c = NULL;
    char *err = NULL;
    ok(gw_client_create_derived(base, NULL, &c, &err), err, "gw_client_create_derived");
    return c;
}

__attribute__((noinline)) static gw_exchange *exch_phase_new(gw_client *c) {
    gw_exchange *ex = NULL;
    char *err = NULL;
    ok(gw_exchange_new(c, "POST", "/v1/chat/completions", k_exchange_request, 0, &ex, &err), err,
       "gw_exchange_new");
    return ex;
}

__attribute__((noinline)) static void exch_phase_request(gw_exchange *ex, gw_request_view *view) {
    int64_t wait = 0;
    want(gw_exchange_step(ex, &wait), GW_WANT_SEND, "step before the request");
    ok(gw_exchange_request(ex, view), NULL, "gw_exchange_request");
}

__attribute__((noinline)) static void exch_phase_feed_head(gw_exchange *ex) {
    int64_t wait = 0;
    want(gw_exchange_step(ex, &wait), GW_WANT_RECEIVE, "step after the request");
    ok(gw_exchange_feed_head(ex, 200, k_exchange_head,
                             sizeof k_exchange_head / sizeof k_exchange_head[0]),
       NULL, "gw_exchange_feed_head");
}

__attribute__((noinline)) static char *exch_phase_body_end_finish(gw_exchange *ex) {
    int64_t wait = 0;
    size_t taken = 0;
    size_t len = sizeof k_exchange_answer - 1;
    ok(gw_exchange_feed_body(ex, (const uint8_t *)k_exchange_answer, len, &taken), NULL,
       "gw_exchange_feed_body");
    if (taken != len) fail("the exchange took part of the body");
    want(gw_exchange_step(ex, &wait), GW_WANT_RECEIVE, "step after the body");
    ok(gw_exchange_feed_end(ex), NULL, "gw_exchange_feed_end");
    want(gw_exchange_step(ex, &wait), GW_WANT_DONE, "step after the end");
    char *out = NULL;
    ok(gw_exchange_finish(ex, &out), out, "gw_exchange_finish");
    return out;
}

/* The answer's text (gw_free), the exchange and the derived handle. */
__attribute__((noinline)) static void exch_phase_frees(char *out, gw_exchange *ex, gw_client *c) {
    gw_free(out);
    gw_exchange_free(ex);
    gw_client_free(c);
}

__attribute__((noinline)) static char *exch_phase_last_response(gw_client *c) {
    char *meta = NULL;
    ok(gw_client_last_response(c, &meta), meta, "gw_client_last_response");
    return meta;
}

/* The request view as a driver reads it: the method, the URL, every header, the body. */
static void check_view(const gw_request_view *v) {
    size_t body = 0;
    for (size_t i = 0; i < v->body_count; i++) body += v->body[i].len;
    int auth = 0;
    for (size_t i = 0; i < v->header_count; i++) {
        if (strcmp(v->headers[i].name, "authorization") == 0) {
            auth = strcmp(v->headers[i].value, "Bearer bench-key") == 0;
        }
    }
    if (strcmp(v->method, "POST") != 0 || !strstr(v->url, "/v1/chat/completions") || !auth ||
        body != v->body_len || body != sizeof k_exchange_request - 1) {
        fail("the exchange's request view is not the chat request");
    }
}

static void exchange_n(long long n) {
    gw_client *base = gw_client_new_with_options(
        "{\"base_url\":\"http://127.0.0.1:9\",\"api_key\":\"bench-key\"}");
    if (!base) fail("gw_client_new_with_options");
    for (long long i = 0; i < n; i++) {
        gw_client *c = exch_phase_derive(base);
        gw_exchange *ex = exch_phase_new(c);
        gw_request_view view;
        exch_phase_request(ex, &view);
        check_view(&view);
        exch_phase_feed_head(ex);
        char *out = exch_phase_body_end_finish(ex);
        if (!out || strcmp(out, k_exchange_answer) != 0) {
            fail("the exchange's answer is not the body fed");
        }
        char *meta = exch_phase_last_response(c);
        if (!meta || !strstr(meta, "\"request_id\":\"req_mock_1\"")) {
            fail("gw_client_last_response lacks the request id");
        }
        gw_free(meta);
        exch_phase_frees(out, ex, c);
    }
    gw_client_free(base);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    args_only(argc, argv, "port,n");
    g_port = (int)arg_num(argc, argv, "port", 0);
    long long n = arg_num(argc, argv, "n", -1);
    if (strcmp(mode, "exchange") == 0 && n >= 0) {
        exchange_n(1 + n);
        return 0;
    }
    if (g_port <= 0 || n < 0) fail("usage: gwinstr call|stream|bigtext|bigimage port=P n=N, or gwinstr exchange n=N");
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
        fail("usage: gwinstr call|stream|bigtext|bigimage port=P n=N, or gwinstr exchange n=N");
    }
    gw_client_free(client);
    return 0;
}
