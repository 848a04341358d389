/*
 * Back-pressure: a stream fed faster than its events are taken. Once whole lines wait,
 * gw_exchange_feed_body takes at most 64 KiB of them and says GW_WOULD_BLOCK with *taken
 * short; the rest, fed after the events are taken, gives the same events and answer as a
 * feed in small pieces with a step after each. No I/O: the test feeds the body itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

#define EVENTS 2000
#define SOFT_LIMIT (64 * 1024) /* gw_exchange_feed_body's documented bound */

static const gw_header SSE_HEAD[] = {{"content-type", "text/event-stream"}};

/* A chat stream of EVENTS text chunks (about 200 KiB), then [DONE]; malloc'd. */
static char *long_stream(size_t *len)
{
    size_t cap = (size_t)EVENTS * 160 + 64, at = 0;
    char *body = malloc(cap);
    for (int i = 0; body != NULL && i < EVENTS; i++)
        at += (size_t)snprintf(body + at, cap - at,
                               "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                               "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
                               "\"w%d \"},\"finish_reason\":null}]}\n\n", i);
    if (body != NULL) at += (size_t)snprintf(body + at, cap - at, "data: [DONE]\n\n");
    *len = at;
    return body;
}

/* What a fed stream gave. */
typedef struct seen {
    size_t events;
    char *text; /* the deltas joined */
    size_t text_len, text_cap;
    int status;
    char *out;
} seen;

static void take_event(gw_exchange *ex, seen *s)
{
    gw_event ev;
    CHECK_STATUS(gw_exchange_event(ex, &ev), GW_OK);
    s->events++;
    if (ev.text_delta == NULL) return;
    if (s->text_len + ev.text_delta_len + 1 > s->text_cap) {
        s->text_cap = (s->text_len + ev.text_delta_len + 1) * 2;
        s->text = realloc(s->text, s->text_cap);
    }
    memcpy(s->text + s->text_len, ev.text_delta, ev.text_delta_len);
    s->text_len += ev.text_delta_len;
    s->text[s->text_len] = '\0';
}

/* Steps through the ready events; the want that follows them. */
static int take_events(gw_exchange *ex, seen *s)
{
    int want;
    while ((want = gw_exchange_step(ex, NULL)) == GW_WANT_EVENT) take_event(ex, s);
    return want;
}

static gw_exchange *stream_at_its_body(gw_client *c)
{
    gw_exchange *ex = NULL;
    gw_request_view view;
    CHECK_STATUS(gw_exchange_new(c, "POST", "/v1/chat/completions",
                                 "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}",
                                 GW_EXCHANGE_STREAM, &ex, NULL),
                 GW_OK);
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_SEND);
    CHECK_STATUS(gw_exchange_request(ex, &view), GW_OK);
    CHECK_STATUS(gw_exchange_feed_head(ex, 200, SSE_HEAD, 1), GW_OK);
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_RECEIVE);
    return ex;
}

/* The end: [DONE] already ended the stream; else the body's end is fed. */
static void finish(gw_exchange *ex, seen *s)
{
    int want = take_events(ex, s);
    if (want == GW_WANT_RECEIVE) {
        CHECK_STATUS(gw_exchange_feed_end(ex), GW_OK);
        want = take_events(ex, s);
    }
    CHECK_STATUS(want, GW_WANT_DONE);
    s->status = gw_exchange_finish(ex, &s->out);
    gw_exchange_free(ex);
}

/* The reference: 7 bytes at a time, every event taken after each feed. */
static void fed_in_small_pieces(gw_client *c, const char *body, size_t len, seen *s)
{
    gw_exchange *ex = stream_at_its_body(c);
    for (size_t at = 0; at < len; at += 7) {
        size_t piece = len - at < 7 ? len - at : 7, taken = 0;
        CHECK_STATUS(gw_exchange_feed_body(ex, (const uint8_t *)body + at, piece, &taken), GW_OK);
        CHECK_EQ_INT(taken, piece);
        take_events(ex, s);
    }
    finish(ex, s);
}

static void a_feed_over_64_kib_of_waiting_lines_would_block_and_loses_nothing(void)
{
    gw_client *c = test_client(NULL);
    size_t len = 0;
    char *body = long_stream(&len);
    CHECK(body != NULL && len > 3 * SOFT_LIMIT);
    if (body == NULL) return;
    seen reference = {0}, pushed = {0};
    fed_in_small_pieces(c, body, len, &reference);
    CHECK_STATUS(reference.status, GW_OK);
    CHECK(reference.events >= EVENTS);

    /* The first event alone (a whole line now waits), then everything else without a step. */
    gw_exchange *ex = stream_at_its_body(c);
    const uint8_t *bytes = (const uint8_t *)body;
    size_t first = (size_t)(strstr(body, "\n\n") - body) + 2, taken = 0, at = first;
    CHECK_STATUS(gw_exchange_feed_body(ex, bytes, first, &taken), GW_OK);
    CHECK_EQ_INT(taken, first);
    CHECK_STATUS(gw_exchange_feed_body(ex, bytes + at, len - at, &taken), GW_WOULD_BLOCK);
    CHECK(taken > 0 && taken < len - at);
    CHECK(first + taken <= SOFT_LIMIT); /* gw holds no more than 64 KiB of waiting lines */
    at += taken;
    /* Fed again without a step: nothing more goes in. */
    CHECK_STATUS(gw_exchange_feed_body(ex, bytes + at, len - at, &taken), GW_WOULD_BLOCK);
    CHECK_EQ_INT(taken, 0);
    int blocked = 2, rounds = 0;
    while (at < len && rounds++ < 1000) {
        CHECK_STATUS(take_events(ex, &pushed), GW_WANT_RECEIVE);
        int rc = gw_exchange_feed_body(ex, bytes + at, len - at, &taken);
        CHECK(rc == GW_OK || rc == GW_WOULD_BLOCK);
        blocked += rc == GW_WOULD_BLOCK;
        CHECK(taken > 0);
        at += taken;
    }
    CHECK_EQ_INT(at, len);
    finish(ex, &pushed);
    CHECK(blocked >= 2);

    CHECK_STATUS(pushed.status, GW_OK);
    CHECK_EQ_INT(pushed.events, reference.events);
    CHECK(pushed.text != NULL && reference.text != NULL &&
          strcmp(pushed.text, reference.text) == 0);
    CHECK(pushed.out != NULL && reference.out != NULL && strcmp(pushed.out, reference.out) == 0);
    CHECK_STR_CONTAINS(pushed.out, "w1999");
    free(reference.text);
    free(pushed.text);
    gw_free(reference.out);
    gw_free(pushed.out);
    free(body);
    gw_client_free(c);
}

void run_exchange_feed_tests(void)
{
    RUN(a_feed_over_64_kib_of_waiting_lines_would_block_and_loses_nothing);
}
