/*
 * The exchange's C ABI misused: NULL pointers, feeds in the wrong state, twice, after the
 * end. Each is the documented status (GW_INVALID_ARGUMENT, or the end's own status from
 * gw_exchange_finish), never a crash, and a refused call leaves the exchange as it was.
 * No I/O: the tests feed the answers themselves.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

static const char *CHAT = "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
static const char SSE_BODY[] =
    "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: [DONE]\n\n";
static const gw_header SSE_HEAD[] = {{"content-type", "text/event-stream"}};

static gw_exchange *open_stream(gw_client *c)
{
    gw_exchange *ex = NULL;
    CHECK_STATUS(gw_exchange_new(c, "POST", "/v1/chat/completions", CHAT, GW_EXCHANGE_STREAM,
                                 &ex, NULL),
                 GW_OK);
    return ex;
}

/* Steps through the events; returns the want that is not GW_WANT_EVENT. */
static int take_events(gw_exchange *ex)
{
    int want;
    while ((want = gw_exchange_step(ex, NULL)) == GW_WANT_EVENT) {
        gw_event ev;
        CHECK_STATUS(gw_exchange_event(ex, &ev), GW_OK);
    }
    return want;
}

static void null_pointers_are_invalid_argument(void)
{
    gw_client *c = test_client(NULL);
    gw_exchange *ex = (gw_exchange *)&ex; /* must come back NULL */
    char *err = NULL;
    CHECK_STATUS(gw_exchange_new(NULL, "POST", "/v1/chat/completions", CHAT, 0, &ex, &err),
                 GW_INVALID_ARGUMENT);
    CHECK(ex == NULL);
    CHECK_STR_CONTAINS(err, "\"type\":\"invalid_request_error\"");
    gw_free(err);
    CHECK_STATUS(gw_exchange_new(c, "POST", "/v1/chat/completions", CHAT, 0, NULL, NULL),
                 GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_new(c, NULL, "/v1/chat/completions", CHAT, 0, &ex, NULL),
                 GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_new(c, "POST", NULL, CHAT, 0, &ex, NULL), GW_INVALID_ARGUMENT);
    err = NULL;
    CHECK_STATUS(gw_exchange_new(c, "POST", "/v1/chat/completions", CHAT, 8, &ex, &err),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "flags");
    gw_free(err);
    err = NULL;
    CHECK_STATUS(gw_exchange_new(c, "POST", "/v1/chat/completions", "{not json", 0, &ex, &err),
                 GW_INVALID_ARGUMENT);
    CHECK(ex == NULL);
    gw_free(err);
    err = NULL;
    CHECK_STATUS(gw_exchange_new(c, "POST", "/v1/embeddings", "{\"model\": \"e\", \"input\": \"x\"}",
                                 GW_EXCHANGE_STREAM, &ex, &err),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "no streaming operation");
    gw_free(err);

    int64_t wait = 7;
    size_t taken = 9;
    gw_request_view view;
    gw_event event;
    char *out = NULL;
    CHECK_STATUS(gw_exchange_step(NULL, &wait), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_request(NULL, &view), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_head(NULL, 200, SSE_HEAD, 1), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_body(NULL, (const uint8_t *)"x", 1, &taken), GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(taken, 0);
    CHECK_STATUS(gw_exchange_feed_end(NULL), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_error(NULL, GW_NETWORK, 0, "x"), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_event(NULL, &event), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_finish(NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "exchange");
    gw_free(out);
    gw_exchange_free(NULL);

    /* A live exchange with NULL where a pointer is required. */
    ex = open_stream(c);
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_SEND);
    CHECK_STATUS(gw_exchange_request(ex, NULL), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_request(ex, &view), GW_OK);
    CHECK_STATUS(gw_exchange_feed_head(ex, 200, NULL, 2), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_head(ex, 200, SSE_HEAD, 1), GW_OK);
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_RECEIVE);
    taken = 9;
    CHECK_STATUS(gw_exchange_feed_body(ex, NULL, 5, &taken), GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(taken, 0);
    CHECK_STATUS(gw_exchange_feed_body(ex, (const uint8_t *)SSE_BODY, strlen(SSE_BODY), NULL), GW_OK);
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_EVENT);
    CHECK_STATUS(gw_exchange_event(ex, NULL), GW_INVALID_ARGUMENT);
    gw_exchange_free(ex); /* abandoned mid-stream: fine */
    gw_client_free(c);
}

static void feeds_in_the_wrong_state_are_refused_and_change_nothing(void)
{
    gw_client *c = test_client(NULL);
    gw_exchange *ex = open_stream(c);
    size_t taken = 3;
    gw_event event;
    gw_request_view view;
    const uint8_t *body = (const uint8_t *)SSE_BODY;
    /* A request is due: nothing is to be fed yet. */
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_SEND);
    CHECK_STATUS(gw_exchange_feed_head(ex, 200, SSE_HEAD, 1), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(gw_last_error(), "has a request to send");
    CHECK_STATUS(gw_exchange_feed_body(ex, body, 4, &taken), GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(taken, 0);
    CHECK_STATUS(gw_exchange_feed_end(ex), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_error(ex, GW_NETWORK, 0, "x"), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_event(ex, &event), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_finish(ex, NULL), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_SEND);
    /* The request, twice: the second is not due. */
    CHECK_STATUS(gw_exchange_request(ex, &view), GW_OK);
    CHECK_STATUS(gw_exchange_request(ex, &view), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(gw_last_error(), "no request is due");
    /* Awaiting the head: no body, no end, no event; no status that is none; no bad header. */
    CHECK_STATUS(gw_exchange_feed_body(ex, body, 4, &taken), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_end(ex), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_event(ex, &event), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_head(ex, 1000, SSE_HEAD, 1), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_head(ex, -200, SSE_HEAD, 1), GW_INVALID_ARGUMENT);
    const gw_header bad_name[] = {{"content type", "text/event-stream"}};
    CHECK_STATUS(gw_exchange_feed_head(ex, 200, bad_name, 1), GW_INVALID_ARGUMENT);
    const gw_header bad_value[] = {{"content-type", "text/event-stream\r\nx: y"}};
    CHECK_STATUS(gw_exchange_feed_head(ex, 200, bad_value, 1), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_error(ex, GW_OK, 0, NULL), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_error(ex, 404, 0, NULL), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_feed_error(ex, GW_DECODE, 0, NULL), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_RECEIVE);
    /* None of that changed it: the answer is read as if they never happened. */
    CHECK_STATUS(gw_exchange_feed_head(ex, 200, SSE_HEAD, 1), GW_OK);
    CHECK_STATUS(gw_exchange_feed_head(ex, 200, SSE_HEAD, 1), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_RECEIVE);
    CHECK_STATUS(gw_exchange_event(ex, &event), GW_INVALID_ARGUMENT); /* none ready */
    CHECK_STATUS(gw_exchange_feed_body(ex, body, strlen(SSE_BODY), &taken), GW_OK);
    CHECK_EQ_INT(taken, strlen(SSE_BODY));
    CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_EVENT);
    CHECK_STATUS(gw_exchange_event(ex, &event), GW_OK);
    CHECK_STR_CONTAINS(event.text_delta, "Hello");
    CHECK_STATUS(take_events(ex), GW_WANT_DONE);
    char *out = NULL;
    CHECK_STATUS(gw_exchange_finish(ex, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"content\":\"Hello\"");
    gw_free(out);
    gw_exchange_free(ex);
    gw_client_free(c);
}

/* After the end every feed and the request are refused; the outcome stays as it was. */
static void after_the_end_everything_is_refused(void)
{
    gw_client *c = test_client("\"max_retries\": 0");
    for (int failed = 0; failed < 2; failed++) {
        gw_exchange *ex = open_stream(c);
        gw_request_view view;
        CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_SEND);
        CHECK_STATUS(gw_exchange_request(ex, &view), GW_OK);
        if (failed) {
            CHECK_STATUS(gw_exchange_feed_error(ex, GW_NETWORK, 1, "connection refused"), GW_OK);
        } else {
            CHECK_STATUS(gw_exchange_feed_head(ex, 200, SSE_HEAD, 1), GW_OK);
            CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_RECEIVE);
            CHECK_STATUS(gw_exchange_feed_body(ex, (const uint8_t *)SSE_BODY, strlen(SSE_BODY), NULL),
                         GW_OK);
            CHECK_STATUS(gw_exchange_feed_end(ex), GW_OK);
        }
        CHECK_STATUS(take_events(ex), GW_WANT_DONE);
        int expected = failed ? GW_NETWORK : GW_OK;
        char *first = NULL, *second = NULL;
        CHECK_STATUS(gw_exchange_finish(ex, &first), expected);
        CHECK_STATUS(gw_exchange_finish(ex, &second), expected); /* may be called again */
        CHECK(first != NULL && second != NULL && strcmp(first, second) == 0);
        gw_free(first);
        gw_free(second);
        size_t taken = 5;
        gw_event event;
        CHECK_STATUS(gw_exchange_feed_head(ex, 200, SSE_HEAD, 1), GW_INVALID_ARGUMENT);
        CHECK_STR_CONTAINS(gw_last_error(), "is over");
        CHECK_STATUS(gw_exchange_feed_body(ex, (const uint8_t *)"data: x\n\n", 9, &taken),
                     GW_INVALID_ARGUMENT);
        CHECK_EQ_INT(taken, 0);
        CHECK_STATUS(gw_exchange_feed_end(ex), GW_INVALID_ARGUMENT);
        CHECK_STATUS(gw_exchange_feed_error(ex, GW_NETWORK, 0, NULL), GW_INVALID_ARGUMENT);
        CHECK_STATUS(gw_exchange_event(ex, &event), GW_INVALID_ARGUMENT);
        /* No request is due after the end: the call's own failure is finish's to tell. */
        CHECK_STATUS(gw_exchange_request(ex, &view), GW_INVALID_ARGUMENT);
        CHECK_STATUS(gw_exchange_step(ex, NULL), GW_WANT_DONE);
        CHECK_STATUS(gw_exchange_finish(ex, NULL), expected);
        gw_exchange_free(ex);
    }
    gw_client_free(c);
}

void run_exchange_misuse_tests(void)
{
    RUN(null_pointers_are_invalid_argument);
    RUN(feeds_in_the_wrong_state_are_refused_and_change_nothing);
    RUN(after_the_end_everything_is_refused);
}
