/*
 * gw_exchange_new_video_wait: a video task's wait driven by examples/exchange/gw_loop (one
 * thread, epoll): every poll is the loop's request, every record an event whose name is the
 * task's status, the pauses the loop's timers; the end what gw_video_wait gives. Misuse and
 * bad arguments refused as for every exchange.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_loop.h"
#include "harness.h"
#include "support.h"
#include "tests.h"

/* One wait through the loop. */
typedef struct waited {
    char statuses[128]; /* the events' names, comma-separated */
    size_t events;
    int bad_event; /* an event's data was not the record */
    int stop_at;   /* > 0: the handler stops the wait at this event */
    int status;
    char *out;
} waited;

static int on_event(const gw_event *ev, void *user)
{
    waited *w = user;
    w->events++;
    if (ev->text_delta != NULL || strstr(ev->data, "\"status\":") == NULL ||
        ev->index != w->events - 1)
        w->bad_event = 1;
    size_t used = strlen(w->statuses);
    snprintf(w->statuses + used, sizeof w->statuses - used, "%s%s", used ? "," : "", ev->event);
    return w->stop_at > 0 && (int)w->events >= w->stop_at;
}

static void on_done(int status, const char *out, void *user)
{
    waited *w = user;
    w->status = status;
    w->out = out ? strdup(out) : NULL;
}

static const gwl_handlers HANDLERS = {on_event, on_done};

/* Waits for vendor R task `id` with `options` through a loop of its own. */
static void run_wait(gw_client *client, const char *id, const char *options, waited *w)
{
    gw_exchange *ex = NULL;
    char *err = NULL;
    w->status = 1;
    int rc = gw_exchange_new_video_wait(client, GW_VIDEO_VENDOR_R, id, options, &ex, &err);
    CHECK_STATUS(rc, GW_OK);
    CHECK(err == NULL);
    gw_free(err);
    if (rc != GW_OK) return;
    gwl_loop *loop = gwl_loop_new();
    CHECK(loop != NULL);
    if (loop == NULL) {
        gw_exchange_free(ex);
        return;
    }
    CHECK_EQ_INT(gwl_add(loop, ex, &HANDLERS, w), 0);
    CHECK_EQ_INT(gwl_run(loop), 0);
    gwl_loop_free(loop);
}

static const char *FAST = "{\"interval_ms\": 5, \"timeout_ms\": 10000}";

static void the_loop_sees_every_poll_and_gets_the_final_record(void)
{
    gw_client *client = test_client("\"max_retries\": 0");
    mock_reset();
    waited w = {0};
    run_wait(client, "loop-wait-1", FAST, &w);
    CHECK_STATUS(w.status, GW_OK);
    CHECK_STR_CONTAINS(w.statuses, "PENDING,RUNNING,SUCCEEDED");
    CHECK(!w.bad_event);
    CHECK_STR_CONTAINS(w.out, "\"status\":\"SUCCEEDED\"");
    CHECK_STR_CONTAINS(w.out, "https://videos.example/loop-wait-1.mp4");
    CHECK_EQ_INT(mock_request_count(), 3);
    free(w.out);
    gw_client_free(client);
}

static void a_failed_task_is_gw_vendor_with_the_record(void)
{
    gw_client *client = test_client("\"max_retries\": 0");
    mock_reset();
    waited w = {0};
    run_wait(client, "loop-fail-1", FAST, &w);
    CHECK_STATUS(w.status, GW_VENDOR);
    CHECK_STR_CONTAINS(w.statuses, "PENDING,RUNNING,FAILED");
    CHECK_STR_CONTAINS(w.out, "\"failureCode\":\"INTERNAL\"");
    free(w.out);
    gw_client_free(client);
}

static void the_timeout_ends_the_wait(void)
{
    gw_client *client = test_client("\"max_retries\": 0");
    mock_reset();
    waited w = {0};
    long long start = now_ms();
    run_wait(client, "loop-slow-1", "{\"interval_ms\": 200, \"timeout_ms\": 50}", &w);
    CHECK_STATUS(w.status, GW_TIMEOUT);
    CHECK_STR_CONTAINS(w.out, "still 'PENDING'");
    CHECK_STR_CONTAINS(w.out, "(timeout_ms)");
    CHECK(now_ms() - start < 1000);
    CHECK_EQ_INT(mock_request_count(), 1);
    free(w.out);
    gw_client_free(client);
}

static void the_event_handler_stops_the_wait(void)
{
    gw_client *client = test_client("\"max_retries\": 0");
    mock_reset();
    waited w = {.stop_at = 2};
    run_wait(client, "loop-stop-1", FAST, &w);
    CHECK_STATUS(w.status, GW_CANCELLED);
    CHECK_STR_CONTAINS(w.statuses, "PENDING,RUNNING");
    CHECK_EQ_INT(mock_request_count(), 2);
    free(w.out);
    gw_client_free(client);
}

static void a_failed_poll_ends_the_wait_with_its_status(void)
{
    gw_client *client = test_client("\"max_retries\": 0");
    mock_reset();
    mock_fault("{\"match\": \"/vendorR/\", \"action\": \"status\", \"status\": 500}");
    waited w = {0};
    run_wait(client, "loop-500-1", FAST, &w);
    CHECK_STATUS(w.status, GW_SERVER_ERROR);
    CHECK_EQ_INT((int)w.events, 0);
    mock_fault("{\"match\": \"/vendorR/\", \"action\": \"status\", \"status\": 500}");
    char *out = NULL;
    CHECK_STATUS(gw_video_wait(client, GW_VIDEO_VENDOR_R, "loop-500-1", FAST, NULL, NULL, &out),
                 GW_SERVER_ERROR);
    CHECK(out != NULL && w.out != NULL && strcmp(out, w.out) == 0);
    gw_free(out);
    free(w.out);
    gw_client_free(client);
}

static void bad_arguments_and_misuse_are_refused(void)
{
    gw_client *client = test_client("\"max_retries\": 0");
    mock_reset();
    gw_exchange *ex = (gw_exchange *)1;
    char *err = NULL;
    CHECK_STATUS(gw_exchange_new_video_wait(NULL, GW_VIDEO_UNIFIED, "t", NULL, &ex, &err),
                 GW_INVALID_ARGUMENT);
    CHECK(ex == NULL);
    CHECK_STR_CONTAINS(err, "client");
    gw_free(err);
    err = NULL;
    CHECK_STATUS(gw_exchange_new_video_wait(client, GW_VIDEO_UNIFIED, NULL, NULL, &ex, &err),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "task_id");
    gw_free(err);
    err = NULL;
    CHECK_STATUS(gw_exchange_new_video_wait(client, 42, "t", NULL, &ex, &err),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "family");
    gw_free(err);
    err = NULL;
    CHECK_STATUS(gw_exchange_new_video_wait(client, GW_VIDEO_UNIFIED, "t", "{\"every\": 1}", &ex,
                                            &err),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "wait_options_json");
    gw_free(err);
    err = NULL;
    CHECK_STATUS(gw_exchange_new_video_wait(client, GW_VIDEO_UNIFIED, "t", NULL, NULL, &err),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "out_exchange");
    gw_free(err);
    CHECK_STATUS(gw_exchange_new_video_wait(client, 42, "t", NULL, &ex, NULL),
                 GW_INVALID_ARGUMENT);
    CHECK(ex == NULL);

    /* Out of order: refused, nothing changed; then abandoned with nothing sent. */
    CHECK_STATUS(gw_exchange_new_video_wait(client, GW_VIDEO_VENDOR_R, "t", NULL, &ex, NULL),
                 GW_OK);
    int64_t wait_ms = -5;
    CHECK_EQ_INT(gw_exchange_step(ex, &wait_ms), GW_WANT_SEND);
    gw_event ev;
    CHECK_STATUS(gw_exchange_event(ex, &ev), GW_INVALID_ARGUMENT);
    char *out = NULL;
    CHECK_STATUS(gw_exchange_finish(ex, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "not over yet");
    gw_free(out);
    CHECK_STATUS(gw_exchange_feed_end(ex), GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(gw_exchange_step(ex, &wait_ms), GW_WANT_SEND);
    gw_exchange_free(ex);
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(client);
}

void run_exchange_wait_tests(void)
{
    RUN(the_loop_sees_every_poll_and_gets_the_final_record);
    RUN(a_failed_task_is_gw_vendor_with_the_record);
    RUN(the_timeout_ends_the_wait);
    RUN(the_event_handler_stops_the_wait);
    RUN(a_failed_poll_ends_the_wait_with_its_status);
    RUN(bad_arguments_and_misuse_are_refused);
}
