/* gw_chat_stream: deltas in order, the assembled completion, cancel, and every stream fault. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

static const char *CHAT = "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"one two three four\"}],"
                          " \"stream_options\": {\"include_usage\": true}}";

/* What a callback saw: the text so far, event count, and whether indexes were in order. */
struct seen {
    char text[512];
    int events;
    int deltas;
    int out_of_order;
    int cancel_after_deltas; /* 0: never cancel */
};

static int collect(const gw_event *ev, void *user_data)
{
    struct seen *s = user_data;
    if (ev->index != (size_t)s->events) s->out_of_order = 1;
    if (ev->event == NULL || ev->data == NULL || strlen(ev->data) != ev->data_len) s->out_of_order = 1;
    s->events++;
    if (ev->text_delta != NULL) {
        if (strlen(ev->text_delta) != ev->text_delta_len) s->out_of_order = 1;
        strncat(s->text, ev->text_delta, sizeof s->text - strlen(s->text) - 1);
        s->deltas++;
    }
    return s->cancel_after_deltas > 0 && s->deltas >= s->cancel_after_deltas;
}

static void tokens_arrive_in_order_and_assemble(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(gw_chat_stream(c, CHAT, collect, &s, &out), GW_OK);
    CHECK_STR_CONTAINS(s.text, "Echo: one two three four");
    CHECK(s.deltas >= 5); /* one per word */
    CHECK_EQ_INT(s.out_of_order, 0);
    CHECK_STR_CONTAINS(out, "\"object\":\"chat.completion\"");
    CHECK_STR_CONTAINS(out, "\"content\":\"Echo: one two three four\"");
    CHECK_STR_CONTAINS(out, "\"finish_reason\":\"stop\"");
    CHECK_STR_CONTAINS(out, "\"total_tokens\"");
    gw_free(out);

    /* gw set "stream": true on the wire. */
    char *requests = mock_requests();
    CHECK_STR_CONTAINS(requests, "\"stream\":true");
    gw_free(requests);

    /* A NULL callback still gives the assembled answer. */
    out = NULL;
    CHECK_STATUS(gw_chat_stream(c, CHAT, NULL, NULL, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "Echo: one two three four");
    gw_free(out);

    /* With out NULL nothing is assembled (flat memory); the events are the same. */
    struct seen bare = {0};
    CHECK_STATUS(gw_chat_stream(c, CHAT, collect, &bare, NULL), GW_OK);
    CHECK_STR_CONTAINS(bare.text, "Echo: one two three four");
    CHECK_EQ_INT(bare.events, s.events);
    CHECK_EQ_INT(bare.deltas, s.deltas);
    CHECK_EQ_INT(bare.out_of_order, 0);
    gw_client_free(c);
}

static void callback_cancels_after_first_delta(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    struct seen s = {0};
    s.cancel_after_deltas = 1;
    char *out = NULL;
    CHECK_STATUS(gw_chat_stream(c, CHAT, collect, &s, &out), GW_CANCELLED);
    CHECK_EQ_INT(s.deltas, 1);
    CHECK_STR_CONTAINS(out, "\"code\":\"cancelled\"");
    CHECK_STR_CONTAINS(out, "\"status\":-5");
    CHECK_STR_CONTAINS(gw_last_error(), "cancel");
    CHECK_EQ_INT(mock_request_count(), 1); /* a cancelled stream is not retried */
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

/* Runs one stream against a queued fault; returns the status, *out kept for checks. */
static int stream_with_fault(gw_client *c, const char *fault, struct seen *s, char **out)
{
    mock_reset();
    mock_fault(fault);
    return gw_chat_stream(c, CHAT, collect, s, out);
}

static void reset_mid_stream_is_an_error(void)
{
    gw_client *c = test_client(NULL);
    struct seen s = {0};
    char *out = NULL;
    int rc = stream_with_fault(c, "{\"action\": \"reset\", \"after_events\": 2}", &s, &out);
    if (rc != GW_NETWORK && rc != GW_STREAM)
        harness_fail(__FILE__, __LINE__, "reset gave %s (%d), expected GW_NETWORK or GW_STREAM: %s",
                     gw_status_str(rc), rc, harness_show(out));
    CHECK(s.events >= 1);
    CHECK_STR_LACKS(out, "chat.completion"); /* no partial result */
    CHECK_STR_CONTAINS(out, "\"error\"");
    CHECK_EQ_INT(mock_request_count(), 1);   /* events reached the callback: no retry */
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void truncated_stream_is_gw_stream(void)
{
    gw_client *c = test_client(NULL);
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(stream_with_fault(c, "{\"action\": \"truncate\", \"after_events\": 3}", &s, &out), GW_STREAM);
    CHECK_EQ_INT(s.events, 3);
    CHECK_STR_CONTAINS(out, "\"type\":\"stream_error\"");
    CHECK_STR_CONTAINS(out, "\"status\":-7");
    CHECK_STR_CONTAINS(out, "[DONE]");
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void in_stream_error_is_gw_stream_with_its_message(void)
{
    gw_client *c = test_client(NULL);
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(stream_with_fault(c, "{\"action\": \"stream_error\", \"after_events\": 2}", &s, &out), GW_STREAM);
    CHECK_STR_CONTAINS(out, "upstream model failed");
    CHECK_STR_CONTAINS(out, "\"code\":\"stream_failure\"");
    CHECK_STR_CONTAINS(out, "\"status\":-7");
    CHECK_STR_CONTAINS(gw_last_error(), "upstream model failed");
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void garbage_event_is_gw_decode(void)
{
    gw_client *c = test_client(NULL);
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(stream_with_fault(c, "{\"action\": \"garbage_event\", \"after_events\": 1}", &s, &out), GW_DECODE);
    CHECK_EQ_INT(s.events, 1);
    CHECK_STR_CONTAINS(out, "\"type\":\"decode_error\"");
    CHECK_STR_CONTAINS(out, "\"status\":-4");
    CHECK_STR_CONTAINS(out, "not valid JSON");
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void huge_line_is_gw_too_large(void)
{
    gw_client *c = test_client("\"max_line_bytes\": 4096");
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(stream_with_fault(c, "{\"action\": \"huge_line\", \"after_events\": 1, \"bytes\": 1000000}", &s, &out),
                 GW_TOO_LARGE);
    CHECK_STR_CONTAINS(out, "\"type\":\"too_large\"");
    CHECK_STR_CONTAINS(out, "\"status\":-8");
    CHECK_STR_CONTAINS(out, "max_line_bytes");
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void status_503_before_the_stream_is_retried(void)
{
    gw_client *c = test_client(NULL);
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(stream_with_fault(c, "{\"action\": \"status\", \"status\": 503}", &s, &out), GW_OK);
    CHECK_STR_CONTAINS(s.text, "Echo: one two three four");
    CHECK_STR_CONTAINS(out, "Echo: one two three four");
    CHECK_EQ_INT(mock_request_count(), 2);
    gw_free(out);
    gw_client_free(c);
}

static void slow_drip_hits_the_read_timeout(void)
{
    gw_client *c = test_client("\"read_timeout_ms\": 200, \"max_retries\": 0");
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(stream_with_fault(c, "{\"action\": \"drip\", \"interval_ms\": 1500}", &s, &out), GW_TIMEOUT);
    CHECK_STR_CONTAINS(out, "\"type\":\"timeout_error\"");
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void responses_stream_gives_deltas_and_the_response(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(gw_responses_stream(c, "{\"model\": \"m\", \"input\": \"alpha beta\"}", collect, &s, &out), GW_OK);
    CHECK_STR_CONTAINS(s.text, "Echo: alpha beta");
    CHECK_EQ_INT(s.out_of_order, 0);
    CHECK_STR_CONTAINS(out, "\"output\"");
    CHECK_STR_CONTAINS(out, "Echo: alpha beta");
    gw_free(out);

    /* The Responses in-stream error event is GW_STREAM too. */
    memset(&s, 0, sizeof s);
    mock_fault("{\"action\": \"stream_error\", \"after_events\": 2}");
    out = NULL;
    CHECK_STATUS(gw_responses_stream(c, "{\"model\": \"m\", \"input\": \"alpha beta\"}", collect, &s, &out), GW_STREAM);
    CHECK_STR_CONTAINS(out, "upstream model failed");
    CHECK_STR_CONTAINS(out, "\"status\":-7");
    gw_free(out);
    gw_client_free(c);
}

/* n = 2 (issue 9): one event per choice with text; printing choice 0 gives one answer. */
struct by_choice {
    char text[2][256];
    int other_choice;
};

static int collect_by_choice(const gw_event *ev, void *user_data)
{
    struct by_choice *b = user_data;
    if (ev->text_delta == NULL) return 0;
    if (ev->choice_index > 1) {
        b->other_choice = 1;
        return 0;
    }
    char *text = b->text[ev->choice_index];
    strncat(text, ev->text_delta, sizeof b->text[0] - strlen(text) - 1);
    return 0;
}

static void n2_events_carry_their_choice_index(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_fault("{\"action\": \"stream_shape\", \"shape\": \"n2\"}");
    struct by_choice b = {0};
    char *out = NULL;
    CHECK_STATUS(gw_chat_stream(c, "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"one two\"}]}",
                                collect_by_choice, &b, &out),
                 GW_OK);
    CHECK(strcmp(b.text[0], "Echo: one two") == 0);
    CHECK(strcmp(b.text[1], "ECHO: ONE TWO") == 0);
    CHECK_EQ_INT(b.other_choice, 0);
    CHECK_STR_CONTAINS(out, "\"content\":\"ECHO: ONE TWO\"");
    gw_free(out);
    gw_client_free(c);
}

/* Counts events named response.output_text.delta and keeps their text. */
static int collect_named_deltas(const gw_event *ev, void *user_data)
{
    struct seen *s = user_data;
    s->events++;
    if (strcmp(ev->event, "response.output_text.delta") == 0 && ev->text_delta != NULL) {
        strncat(s->text, ev->text_delta, sizeof s->text - strlen(s->text) - 1);
        s->deltas++;
    }
    return 0;
}

static void responses_shapes_of_real_servers(void)
{
    static const char *REQ = "{\"model\": \"m\", \"input\": \"one two\"}";
    gw_client *c = test_client(NULL);

    /* Bare data: lines, no event: line: the event is named by the data's type. */
    mock_reset();
    mock_fault("{\"action\": \"stream_shape\", \"shape\": \"responses_no_event_lines\"}");
    struct seen s = {0};
    char *out = NULL;
    CHECK_STATUS(gw_responses_stream(c, REQ, collect_named_deltas, &s, &out), GW_OK);
    CHECK_EQ_INT(s.deltas, 3);
    CHECK(strcmp(s.text, "Echo: one two") == 0);
    gw_free(out);

    /* response.incomplete ends the stream: GW_OK with the partial response. */
    mock_fault("{\"action\": \"stream_shape\", \"shape\": \"responses_incomplete\"}");
    out = NULL;
    CHECK_STATUS(gw_responses_stream(c, REQ, NULL, NULL, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"status\":\"incomplete\"");
    CHECK_STR_CONTAINS(out, "\"max_output_tokens\"");
    gw_free(out);

    /* A usage chunk without choices after the last delta is no decode error. */
    mock_fault("{\"action\": \"stream_shape\", \"shape\": \"usage_chunk\"}");
    out = NULL;
    CHECK_STATUS(gw_chat_stream(c, CHAT, NULL, NULL, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"total_tokens\"");
    gw_free(out);
    gw_client_free(c);
}

void run_stream_tests(void)
{
    RUN(tokens_arrive_in_order_and_assemble);
    RUN(callback_cancels_after_first_delta);
    RUN(reset_mid_stream_is_an_error);
    RUN(truncated_stream_is_gw_stream);
    RUN(in_stream_error_is_gw_stream_with_its_message);
    RUN(garbage_event_is_gw_decode);
    RUN(huge_line_is_gw_too_large);
    RUN(status_503_before_the_stream_is_retried);
    RUN(slow_drip_hits_the_read_timeout);
    RUN(responses_stream_gives_deltas_and_the_response);
    RUN(n2_events_carry_their_choice_index);
    RUN(responses_shapes_of_real_servers);
}
