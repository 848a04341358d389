/* bench/gwexchange: a streamed chat driven through the exchange in memory (no network), the
 * way the Go binding drives it over net/http: each SSE event comes in a read of its own, so
 * the driver feeds one event's bytes (gw_exchange_feed_body), steps (GW_WANT_EVENT), takes
 * the event (gw_exchange_event) and steps again (GW_WANT_RECEIVE). The events are those the
 * mock gateway sends (a role chunk, text chunks, a finish chunk, then [DONE]); the answer's
 * head is the mock's.
 *
 *   gwexchange instr mode=stream|events streams=S words=W
 *       one warm-up stream, then S streams of W text chunks (W + 2 events), one after
 *       another: for callgrind (scripts/bench-exchange.sh counts gw_exchange* only, at two
 *       lengths, for marginal figures per event and per stream)
 *   gwexchange inflight mode=stream|events streams=S words=W inflight=K
 *       the S streams K at a time, fed round-robin one event each in turn: for callgrind's
 *       cache simulator (the cache lines an event touches, which a clock on a shared
 *       machine measures too noisily)
 *   gwexchange time mode=stream|events streams=S words=W rounds=R
 *       ns per event (feed, step, event, step) with S exchanges in flight, fed round-robin
 *       one event each in turn, against the same S streams run one at a time (one exchange
 *       in flight); plus ns per stream outside the events (new ... head, and [DONE] ...
 *       finish, free). Best of R rounds.
 *
 * mode=stream: GW_EXCHANGE_STREAM (the answer assembled); mode=events: with
 * GW_EXCHANGE_EVENTS_ONLY. Every event, text and outcome is checked (outside the counted
 * calls): a broken build never passes for a fast one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gw.h>

#include "args.h"

#define MAX_WORDS 4096

static const char *const WORDS[] = {"one ", "two ", "three ", "four ", "five ", "six ",
                                    "seven ", "eight ", "nine ", "ten "};
#define NWORDS (sizeof WORDS / sizeof WORDS[0])

static const gw_header HEAD[] = {
    {"content-type", "text/event-stream"},
    {"cache-control", "no-cache"},
    {"x-request-id", "req_mock_2"},
    {"transfer-encoding", "chunked"},
};

static const char *const REQUEST =
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Say a few words.\"}]}";

static void die(const char *what, int status) {
    fprintf(stderr, "gwexchange: %s: status %d (%s)\n", what, status, gw_last_error());
    exit(1);
}

/* The events of one stream, as the mock sends them (each with its blank line). */
typedef struct events {
    int count; /* text chunks + role + finish + [DONE] */
    char *text[MAX_WORDS + 3];
    size_t len[MAX_WORDS + 3];
    char *expected_text; /* the text deltas joined */
} events;

static char *chunk(const char *delta, const char *finish) {
    char *s = NULL;
    if (asprintf(&s,
                 "data: {\"id\":\"chatcmpl-2\",\"object\":\"chat.completion.chunk\","
                 "\"created\":1795811687,\"model\":\"m\",\"choices\":[{\"index\":0,"
                 "\"delta\":%s,\"finish_reason\":%s}]}\n\n",
                 delta, finish) < 0)
        exit(1);
    return s;
}

static void make_events(events *ev, int words) {
    if (words < 1 || words > MAX_WORDS) {
        fprintf(stderr, "gwexchange: words must be 1..%d\n", MAX_WORDS);
        exit(2);
    }
    size_t text_len = 0;
    ev->expected_text = calloc((size_t)words * 8 + 1, 1);
    int n = 0;
    ev->text[n++] = chunk("{\"role\":\"assistant\",\"content\":\"\"}", "null");
    for (int i = 0; i < words; i++) {
        char delta[64];
        const char *w = WORDS[i % NWORDS];
        snprintf(delta, sizeof delta, "{\"content\":\"%s\"}", w);
        ev->text[n++] = chunk(delta, "null");
        memcpy(ev->expected_text + text_len, w, strlen(w));
        text_len += strlen(w);
    }
    ev->text[n++] = chunk("{}", "\"stop\"");
    ev->text[n++] = strdup("data: [DONE]\n\n");
    ev->count = n;
    for (int i = 0; i < n; i++) ev->len[i] = strlen(ev->text[i]);
}

/* One stream in flight and what it gave so far. */
typedef struct flight {
    gw_exchange *ex;
    int delivered;
    size_t text_at;
    int mismatch;
} flight;

static const events *g_ev;
static int g_flags;

static gw_client *g_client;

static void start_on(flight *f) {
    gw_request_view view;
    int rc = gw_exchange_new(g_client, "POST", "/v1/chat/completions", REQUEST, g_flags, &f->ex,
                             NULL);
    if (rc != GW_OK) die("gw_exchange_new", rc);
    if ((rc = gw_exchange_step(f->ex, NULL)) != GW_WANT_SEND) die("step to send", rc);
    if ((rc = gw_exchange_request(f->ex, &view)) != GW_OK) die("gw_exchange_request", rc);
    if ((rc = gw_exchange_feed_head(f->ex, 200, HEAD, sizeof HEAD / sizeof HEAD[0])) != GW_OK)
        die("gw_exchange_feed_head", rc);
    if ((rc = gw_exchange_step(f->ex, NULL)) != GW_WANT_RECEIVE) die("step to receive", rc);
    f->delivered = 0;
    f->text_at = 0;
    f->mismatch = 0;
}

/* Feeds event `k` (not [DONE]) and takes what it gives: one event, then a receive. */
static inline void feed_event(flight *f, int k) {
    size_t taken = 0;
    int rc = gw_exchange_feed_body(f->ex, (const uint8_t *)g_ev->text[k], g_ev->len[k], &taken);
    if (rc != GW_OK || taken != g_ev->len[k]) die("gw_exchange_feed_body", rc);
    int want;
    while ((want = gw_exchange_step(f->ex, NULL)) == GW_WANT_EVENT) {
        gw_event ev;
        if ((rc = gw_exchange_event(f->ex, &ev)) != GW_OK) die("gw_exchange_event", rc);
        if (ev.index != (size_t)f->delivered || ev.choice_index != 0 ||
            strcmp(ev.event, "message") != 0 || ev.data_len != g_ev->len[k] - 8 ||
            memcmp(ev.data, g_ev->text[k] + 6, ev.data_len) != 0)
            f->mismatch = 1;
        if (ev.text_delta) {
            if (memcmp(g_ev->expected_text + f->text_at, ev.text_delta, ev.text_delta_len) != 0)
                f->mismatch = 1;
            f->text_at += ev.text_delta_len;
        }
        f->delivered++;
    }
    if (want != GW_WANT_RECEIVE) die("step after an event", want);
}

/* Feeds [DONE], checks the outcome, frees the exchange. */
static void end(flight *f) {
    int k = g_ev->count - 1;
    size_t taken = 0;
    int rc = gw_exchange_feed_body(f->ex, (const uint8_t *)g_ev->text[k], g_ev->len[k], &taken);
    if (rc != GW_OK) die("gw_exchange_feed_body [DONE]", rc);
    if ((rc = gw_exchange_step(f->ex, NULL)) != GW_WANT_DONE) die("step to done", rc);
    char *out = NULL;
    rc = gw_exchange_finish(f->ex, &out);
    if (rc != GW_OK) die("gw_exchange_finish", rc);
    gw_exchange_free(f->ex);
    f->ex = NULL;
    int assembled = !(g_flags & GW_EXCHANGE_EVENTS_ONLY);
    if (f->mismatch || f->delivered != g_ev->count - 1 ||
        f->text_at != strlen(g_ev->expected_text) ||
        (assembled && (!out || !strstr(out, "\"object\":\"chat.completion\"") ||
                       !strstr(out, g_ev->expected_text))) ||
        (!assembled && out && *out)) {
        fprintf(stderr, "gwexchange: a stream gave other events or answer (%d events): %s\n",
                f->delivered, out ? out : "(null)");
        exit(1);
    }
    gw_free(out);
}

static void one_stream(flight *f) {
    start_on(f);
    for (int k = 0; k < g_ev->count - 1; k++) feed_event(f, k);
    end(f);
}

static _Noreturn void fail_usage(void) {
    fprintf(stderr,
            "usage: gwexchange instr|inflight|time mode=stream|events streams=S words=W "
            "[inflight=K (dividing S)] [rounds=R]\n");
    exit(2);
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    const char *cmd = argc > 1 ? argv[1] : "";
    args_only(argc, argv, "mode,streams,words,rounds,inflight");
    const char *mode = arg_str(argc, argv, "mode", "stream");
    long long streams = arg_num(argc, argv, "streams", 1);
    long long words = arg_num(argc, argv, "words", 17);
    long long rounds = arg_num(argc, argv, "rounds", 5);
    if (strcmp(mode, "stream") == 0) {
        g_flags = GW_EXCHANGE_STREAM;
    } else if (strcmp(mode, "events") == 0) {
        g_flags = GW_EXCHANGE_STREAM | GW_EXCHANGE_EVENTS_ONLY;
    } else {
        fprintf(stderr, "gwexchange: mode=stream|events\n");
        return 2;
    }
    if (streams < 1 || rounds < 1) return 2;
    static events ev;
    make_events(&ev, (int)words);
    g_ev = &ev;
    /* No server: the exchange does no I/O. Default options, as a user leaves them. */
    g_client = gw_client_new_with_options(
        "{\"base_url\":\"http://127.0.0.1:9\",\"api_key\":\"bench-key\"}");
    if (!g_client) die("gw_client_new_with_options", 0);

    flight warm;
    one_stream(&warm);
    if (strcmp(cmd, "instr") == 0) {
        for (long long s = 0; s < streams; s++) one_stream(&warm);
    } else if (strcmp(cmd, "inflight") == 0) {
        /* `streams` streams, `inflight` at a time fed round-robin: for a cache simulator
         * (callgrind --cache-sim=yes), which counts misses where a clock is too noisy. */
        long long k = arg_num(argc, argv, "inflight", 1);
        if (k < 1 || streams % k != 0) fail_usage();
        flight *fl = calloc((size_t)k, sizeof *fl);
        for (long long g = 0; g < streams / k; g++) {
            for (long long s = 0; s < k; s++) start_on(&fl[s]);
            for (int e = 0; e < ev.count - 1; e++)
                for (long long s = 0; s < k; s++) feed_event(&fl[s], e);
            for (long long s = 0; s < k; s++) end(&fl[s]);
        }
        free(fl);
    } else if (strcmp(cmd, "time") == 0) {
        flight *fl = calloc((size_t)streams, sizeof *fl);
        double events_per_round = (double)streams * (double)(ev.count - 1);
        double best_inter = 1e300, best_single = 1e300, best_set_i = 1e300,
               best_set_s = 1e300;
        for (long long r = 0; r < rounds; r++) {
            /* Interleaved: every stream in flight, fed one event each in turn. */
            double t0 = now_ns();
            for (long long s = 0; s < streams; s++) start_on(&fl[s]);
            double t1 = now_ns();
            for (int k = 0; k < ev.count - 1; k++)
                for (long long s = 0; s < streams; s++) feed_event(&fl[s], k);
            double t2 = now_ns();
            for (long long s = 0; s < streams; s++) end(&fl[s]);
            double t3 = now_ns();
            double inter = (t2 - t1) / events_per_round;
            double set_i = ((t1 - t0) + (t3 - t2)) / (double)streams;
            /* One at a time: the same streams, one exchange in flight. */
            double ev_ns = 0, set_ns = 0;
            for (long long s = 0; s < streams; s++) {
                double a = now_ns();
                start_on(&fl[s]);
                double b = now_ns();
                for (int k = 0; k < ev.count - 1; k++) feed_event(&fl[s], k);
                double c = now_ns();
                end(&fl[s]);
                double d = now_ns();
                ev_ns += c - b;
                set_ns += (b - a) + (d - c);
            }
            double single = ev_ns / events_per_round;
            double set_s = set_ns / (double)streams;
            if (inter < best_inter) best_inter = inter;
            if (single < best_single) best_single = single;
            if (set_i < best_set_i) best_set_i = set_i;
            if (set_s < best_set_s) best_set_s = set_s;
        }
        printf("mode=%s streams=%lld events/stream=%d (best of %lld)\n", mode, streams,
               ev.count - 1, rounds);
        printf("  ns per event, %lld in flight (round-robin): %8.0f\n", streams, best_inter);
        printf("  ns per event, 1 in flight:                   %8.0f\n", best_single);
        printf("  ns per stream outside its events, %lld in flight: %8.0f\n", streams,
               best_set_i);
        printf("  ns per stream outside its events, 1 in flight:   %8.0f\n", best_set_s);
        free(fl);
    } else {
        fail_usage();
    }
    gw_client_free(g_client);
    return 0;
}
