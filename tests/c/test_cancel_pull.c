/* Pull streams (gw_*_stream_open, gw_stream_next/finish/free), cancelling from another
 * thread (gw_client_cancel), and freeing a handle while a call still uses it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

#define CHAT(text) "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"" text "\"}]}"

/* Cancel-to-return bound: generous for valgrind on a loaded machine (the target is 50 ms). */
#define CANCEL_BOUND_MS 1500

static void pull_chat_stream_to_the_end(void)
{
    gw_client *c = test_client(NULL);
    gw_stream *s = NULL;
    char *out = NULL;
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("one two three"), &s, &out), GW_OK);
    CHECK(s != NULL);
    CHECK(out == NULL);
    char text[256] = "";
    const gw_event *ev = NULL;
    int rc, events = 0;
    while ((rc = gw_stream_next(s, &ev)) == GW_OK) {
        CHECK(ev != NULL);
        CHECK_EQ_INT(ev->index, events);
        CHECK_EQ_INT(ev->choice_index, 0);
        if (ev->text_delta) strncat(text, ev->text_delta, sizeof text - strlen(text) - 1);
        events++;
    }
    CHECK_STATUS(rc, GW_DONE);
    CHECK(ev == NULL);
    CHECK(strcmp(text, "Echo: one two three") == 0);
    CHECK_STATUS(gw_stream_next(s, &ev), GW_DONE); /* sticky */
    CHECK_STATUS(gw_stream_finish(s, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"object\":\"chat.completion\"");
    CHECK_STR_CONTAINS(out, "Echo: one two three");
    gw_free(out);
    gw_stream_free(s);
    gw_client_free(c);
}

static void pull_responses_stream_names_its_events(void)
{
    gw_client *c = test_client(NULL);
    gw_stream *s = NULL;
    CHECK_STATUS(gw_responses_stream_open(c, "{\"model\": \"m\", \"input\": \"hello there\"}", &s, NULL), GW_OK);
    const gw_event *ev = NULL;
    int deltas = 0, completed = 0;
    while (gw_stream_next(s, &ev) == GW_OK) {
        if (strcmp(ev->event, "response.output_text.delta") == 0 && ev->text_delta) deltas++;
        if (strcmp(ev->event, "response.completed") == 0) completed++;
    }
    CHECK(deltas > 0);
    CHECK_EQ_INT(completed, 1);
    char *out = NULL;
    CHECK_STATUS(gw_stream_finish(s, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"status\":\"completed\"");
    gw_free(out);
    gw_stream_free(s);
    gw_client_free(c);
}

static void pull_stream_failures_stick_and_finish_explains(void)
{
    gw_client *c = test_client("\"max_retries\": 0");
    mock_reset();
    mock_fault("{\"action\": \"stream_error\", \"after_events\": 1}");
    gw_stream *s = NULL;
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("one two three"), &s, NULL), GW_OK);
    const gw_event *ev = NULL;
    int rc;
    while ((rc = gw_stream_next(s, &ev)) == GW_OK) {
    }
    CHECK_STATUS(rc, GW_STREAM);
    CHECK_STATUS(gw_stream_next(s, &ev), GW_STREAM);
    char *out = NULL;
    CHECK_STATUS(gw_stream_finish(s, &out), GW_STREAM);
    CHECK_STR_CONTAINS(out, "\"status\":-7");
    gw_free(out);
    gw_stream_free(s);

    /* An HTTP error fails the open itself, with the gateway's body. */
    mock_fault("{\"action\": \"status\", \"status\": 400}");
    s = (gw_stream *)&out;
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("x"), &s, &out), GW_BAD_REQUEST);
    CHECK(s == NULL);
    CHECK_STR_CONTAINS(out, "\"status\":400");
    gw_free(out);
    gw_client_free(c);
}

static void pull_stream_arguments_are_checked(void)
{
    gw_client *c = test_client(NULL);
    const gw_event *ev = NULL;
    char *out = NULL;
    CHECK_STATUS(gw_stream_next(NULL, &ev), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_stream_finish(NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "stream");
    gw_free(out);
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("x"), NULL, NULL), GW_INVALID_ARGUMENT);
    gw_stream *s = NULL;
    CHECK_STATUS(gw_chat_stream_open(c, "{not json", &s, &out), GW_INVALID_ARGUMENT);
    CHECK(s == NULL);
    CHECK_STR_CONTAINS(out, "request_json");
    gw_free(out);
    CHECK_STATUS(gw_chat_stream_open(NULL, CHAT("x"), &s, NULL), GW_INVALID_ARGUMENT);
    gw_stream_free(NULL);
    /* A stream freed mid-way leaves the client usable. */
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("a b c d"), &s, NULL), GW_OK);
    CHECK_STATUS(gw_stream_next(s, &ev), GW_OK);
    gw_stream_free(s);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

/* gw_stream_next_buffered: GW_WOULD_BLOCK before any byte and wherever gw_stream_next would
 * read; the events it gives mixed with gw_stream_next's are every event once, in order; NULL
 * arguments are GW_INVALID_ARGUMENT with *event NULL; the end and a failure stick for both. */
static void buffered_next_never_reads_and_loses_nothing(void)
{
    gw_client *c = test_client(NULL);
    const gw_event *ev = (const gw_event *)&c;
    CHECK_STATUS(gw_stream_next_buffered(NULL, &ev), GW_INVALID_ARGUMENT);
    CHECK(ev == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "stream");
    CHECK(strcmp(gw_status_str(GW_WOULD_BLOCK), "GW_WOULD_BLOCK") == 0);

    mock_reset();
    gw_stream *s = NULL;
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("a b c d e f g h i j k l m n o p"), &s, NULL), GW_OK);
    CHECK_STATUS(gw_stream_next_buffered(s, NULL), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(gw_last_error(), "event");
    ev = (const gw_event *)&c;
    CHECK_STATUS(gw_stream_next_buffered(s, &ev), GW_WOULD_BLOCK); /* nothing read yet */
    CHECK(ev == NULL);
    CHECK_STATUS(gw_stream_next_buffered(s, &ev), GW_WOULD_BLOCK); /* and still nothing */
    char text[256] = "";
    int rc, events = 0, buffered = 0, blocks = 0;
    for (;;) {
        rc = gw_stream_next_buffered(s, &ev);
        if (rc == GW_WOULD_BLOCK) {
            CHECK(ev == NULL);
            blocks++;
            rc = gw_stream_next(s, &ev);
        } else if (rc == GW_OK) {
            buffered++;
        }
        if (rc != GW_OK) break;
        CHECK(ev != NULL);
        CHECK_EQ_INT(ev->index, events);
        CHECK(strlen(ev->data) == ev->data_len);
        if (ev->text_delta) strncat(text, ev->text_delta, sizeof text - strlen(text) - 1);
        events++;
    }
    CHECK_STATUS(rc, GW_DONE);
    CHECK(strcmp(text, "Echo: a b c d e f g h i j k l m n o p") == 0);
    CHECK(blocks >= 2); /* before the first byte, and the body's end after [DONE] */
    CHECK(buffered + blocks >= events);
    CHECK_STATUS(gw_stream_next_buffered(s, &ev), GW_DONE); /* sticky */
    CHECK_STATUS(gw_stream_next(s, &ev), GW_DONE);
    char *out = NULL;
    CHECK_STATUS(gw_stream_finish(s, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "Echo: a b c d e f g h i j k l m n o p");
    gw_free(out);
    gw_stream_free(s);

    /* An in-stream error found in the buffer is the same failure, and sticks. */
    mock_fault("{\"action\": \"stream_error\", \"after_events\": 1}");
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("one two three"), &s, NULL), GW_OK);
    do {
        rc = gw_stream_next_buffered(s, &ev);
        if (rc == GW_WOULD_BLOCK) rc = gw_stream_next(s, &ev);
    } while (rc == GW_OK);
    CHECK_STATUS(rc, GW_STREAM);
    CHECK_STATUS(gw_stream_next_buffered(s, &ev), GW_STREAM);
    CHECK(ev == NULL);
    CHECK_STATUS(gw_stream_finish(s, &out), GW_STREAM);
    CHECK_STR_CONTAINS(out, "\"status\":-7");
    gw_free(out);
    gw_stream_free(s);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void a_stream_outlives_its_client(void)
{
    gw_client *c = test_client(NULL);
    gw_stream *s = NULL;
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("after the free"), &s, NULL), GW_OK);
    gw_client_free(c);
    const gw_event *ev = NULL;
    while (gw_stream_next(s, &ev) == GW_OK) {
    }
    char *out = NULL;
    CHECK_STATUS(gw_stream_finish(s, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "after the free");
    gw_free(out);
    gw_stream_free(s);
}

struct canceller {
    gw_client *handle;
    int delay_ms;
    long long cancelled_at;
};

static void *cancel_later(void *arg)
{
    struct canceller *k = arg;
    struct timespec pause = {k->delay_ms / 1000, (long)(k->delay_ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
    k->cancelled_at = now_ms();
    gw_client_cancel(k->handle);
    return NULL;
}

static void cancel_from_another_thread_ends_a_waiting_call(void)
{
    gw_client *base = test_client("\"max_retries\": 0");
    mock_reset();
    mock_fault("{\"action\": \"delay\", \"ms\": 5000}");
    gw_client *call = gw_client_derive(base, NULL);
    struct canceller k = {call, 200, 0};
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, &k);
    char *out = NULL;
    CHECK_STATUS(gw_chat(call, CHAT("slow"), &out), GW_CANCELLED);
    long long returned = now_ms();
    pthread_join(t, NULL);
    long long latency = returned - k.cancelled_at;
    printf("    cancel while waiting for the answer: returned %lld ms after the cancel\n", latency);
    CHECK(latency < CANCEL_BOUND_MS);
    CHECK_STR_CONTAINS(out, "\"type\":\"cancelled\"");
    gw_free(out);
    /* Later calls on it end at once; the base goes on. */
    CHECK_STATUS(gw_chat(call, CHAT("again"), NULL), GW_CANCELLED);
    gw_stream *s = NULL;
    CHECK_STATUS(gw_chat_stream_open(call, CHAT("again"), &s, NULL), GW_CANCELLED);
    CHECK(s == NULL);
    gw_client_cancel(call); /* idempotent */
    gw_client_cancel(NULL);
    CHECK_STILL_WORKS(base);
    gw_client_free(call);
    gw_client_free(base);
}

static void cancel_ends_a_pulled_stream(void)
{
    gw_client *base = test_client("\"max_retries\": 0");
    mock_reset();
    mock_fault("{\"action\": \"drip\", \"interval_ms\": 2000}");
    gw_client *call = gw_client_derive(base, NULL);
    gw_stream *s = NULL;
    CHECK_STATUS(gw_chat_stream_open(call, CHAT("one two three"), &s, NULL), GW_OK);
    struct canceller k = {call, 300, 0};
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, &k);
    const gw_event *ev = NULL;
    int rc;
    while ((rc = gw_stream_next(s, &ev)) == GW_OK) {
    }
    long long returned = now_ms();
    pthread_join(t, NULL);
    CHECK_STATUS(rc, GW_CANCELLED);
    CHECK(returned - k.cancelled_at < CANCEL_BOUND_MS);
    char *out = NULL;
    CHECK_STATUS(gw_stream_finish(s, &out), GW_CANCELLED);
    gw_free(out);
    gw_stream_free(s);
    gw_client_free(call);
    CHECK_STILL_WORKS(base);
    gw_client_free(base);
}

static void cancel_ends_a_backoff_and_a_video_wait(void)
{
    gw_client *base = test_client("\"max_retries\": 3");
    mock_reset();
    mock_fault("{\"action\": \"status\", \"status\": 503, \"headers\": {\"retry-after-ms\": \"20000\"}}");
    gw_client *call = gw_client_derive(base, NULL);
    struct canceller k = {call, 200, 0};
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, &k);
    CHECK_STATUS(gw_chat(call, CHAT("x"), NULL), GW_CANCELLED);
    long long returned = now_ms();
    pthread_join(t, NULL);
    CHECK(returned - k.cancelled_at < CANCEL_BOUND_MS);
    CHECK_EQ_INT(mock_request_count(), 1);
    gw_client_free(call);

    char *task = NULL;
    CHECK_STATUS(gw_video_create(base, "{\"model\": \"v\", \"prompt\": \"cat\", \"duration\": 5}", &task), GW_OK);
    const char *id_at = strstr(task, "\"task_id\":\"");
    CHECK(id_at != NULL);
    char id[128] = "";
    if (id_at) sscanf(id_at + strlen("\"task_id\":\""), "%127[^\"]", id);
    gw_free(task);
    call = gw_client_derive(base, NULL);
    k.handle = call;
    pthread_create(&t, NULL, cancel_later, &k);
    char *out = NULL;
    CHECK_STATUS(gw_video_wait(call, GW_VIDEO_UNIFIED, id, "{\"interval_ms\": 20000}", NULL, NULL, &out),
                 GW_CANCELLED);
    returned = now_ms();
    pthread_join(t, NULL);
    CHECK(returned - k.cancelled_at < CANCEL_BOUND_MS);
    gw_free(out);
    gw_client_free(call);
    gw_client_free(base);
}

struct freeing {
    gw_client *client;
    int events;
};

static int free_client_in_callback(const gw_event *ev, void *user_data)
{
    (void)ev;
    struct freeing *f = user_data;
    if (f->events++ == 0) {
        gw_client_free(f->client); /* takes effect when this call returns */
        f->client = NULL;
    }
    return 0;
}

static void freeing_a_client_inside_its_callback_is_safe(void)
{
    struct freeing f = {test_client(NULL), 0};
    char *out = NULL;
    CHECK_STATUS(gw_chat_stream(f.client, CHAT("free me"), free_client_in_callback, &f, &out), GW_OK);
    CHECK(f.events > 1);
    CHECK_STR_CONTAINS(out, "Echo: free me");
    gw_free(out);
}

void run_cancel_pull_tests(void)
{
    RUN(pull_chat_stream_to_the_end);
    RUN(pull_responses_stream_names_its_events);
    RUN(pull_stream_failures_stick_and_finish_explains);
    RUN(pull_stream_arguments_are_checked);
    RUN(buffered_next_never_reads_and_loses_nothing);
    RUN(a_stream_outlives_its_client);
    RUN(cancel_from_another_thread_ends_a_waiting_call);
    RUN(cancel_ends_a_pulled_stream);
    RUN(cancel_ends_a_backoff_and_a_video_wait);
    RUN(freeing_a_client_inside_its_callback_is_safe);
}
