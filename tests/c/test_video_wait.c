/* gw_video_wait: polls a task to its end, reporting each poll; failure, cancel, deadline. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

struct polls {
    int count;
    char last_status[32];
    int stop_after; /* 0: never stop */
};

static int on_poll(const char *status, const char *task_json, void *user_data)
{
    struct polls *p = user_data;
    p->count++;
    snprintf(p->last_status, sizeof p->last_status, "%s", status ? status : "(NULL)");
    if (task_json == NULL || strstr(task_json, "\"id\"") == NULL) p->last_status[0] = '?';
    return p->stop_after > 0 && p->count >= p->stop_after;
}

/* Creates a unified task for `prompt`; its id goes to id. */
static void create_task(gw_client *c, const char *prompt, char *id, size_t size)
{
    char request[256], *out = NULL;
    snprintf(request, sizeof request, "{\"model\": \"vid\", \"prompt\": \"%s\"}", prompt);
    CHECK_STATUS(gw_video_create(c, request, &out), GW_OK);
    const char *p = out ? strstr(out, "\"task_id\":\"") : NULL;
    CHECK(p != NULL);
    if (p) snprintf(id, size, "%.*s", (int)strcspn(p + 11, "\""), p + 11);
    gw_free(out);
}

static void wait_returns_the_finished_record(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char id[64] = "";
    create_task(c, "a boat", id, sizeof id);
    struct polls p = {0};
    char *out = NULL;
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, id, "{\"interval_ms\": 10}", on_poll, &p, &out), GW_OK);
    CHECK_EQ_INT(p.count, 3);
    CHECK_STR_CONTAINS(p.last_status, "succeeded");
    CHECK_STR_CONTAINS(out, "\"video_url\":\"https://videos.example/");
    gw_free(out);

    /* NULL options and NULL callback are fine (vendor R: any id). */
    out = NULL;
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_VENDOR_R, "wait-r-1", "{\"interval_ms\": 10}", NULL, NULL, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "SUCCEEDED");
    gw_free(out);
    gw_client_free(c);
}

static void failed_task_is_gw_vendor_with_the_record(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char id[64] = "";
    create_task(c, "please fail", id, sizeof id);
    char *out = NULL;
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, id, "{\"interval_ms\": 10}", NULL, NULL, &out), GW_VENDOR);
    CHECK_STR_CONTAINS(out, "\"status\":\"failed\"");
    CHECK_STR_CONTAINS(out, id);
    gw_free(out);
    gw_client_free(c);
}

static void progress_callback_can_stop_it(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char id[64] = "";
    create_task(c, "a boat", id, sizeof id);
    struct polls p = {.stop_after = 1};
    char *out = NULL;
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, id, "{\"interval_ms\": 10}", on_poll, &p, &out), GW_CANCELLED);
    CHECK_EQ_INT(p.count, 1);
    CHECK_STR_CONTAINS(out, "\"status\":-5");
    gw_free(out);
    gw_client_free(c);
}

static void deadline_is_gw_timeout(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char id[64] = "";
    create_task(c, "a boat", id, sizeof id);
    char *out = NULL;
    long long start = now_ms();
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, id, "{\"interval_ms\": 3000, \"timeout_ms\": 200}", NULL, NULL, &out),
                 GW_TIMEOUT);
    CHECK(now_ms() - start < 2000); /* not the whole 3 s interval */
    CHECK_STR_CONTAINS(out, "\"type\":\"timeout_error\"");
    gw_free(out);
    gw_client_free(c);
}

static void bad_arguments_are_refused(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    CHECK_STATUS(gw_video_wait(NULL, GW_VIDEO_UNIFIED, "x", NULL, NULL, NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "client");
    gw_free(out);
    out = NULL;
    CHECK_STATUS(gw_video_wait(c, 9, "x", NULL, NULL, NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "family");
    gw_free(out);
    out = NULL;
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, NULL, NULL, NULL, NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "task_id");
    gw_free(out);
    out = NULL;
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, "x", "{\"intervl_ms\": 5}", NULL, NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "intervl_ms");
    gw_free(out);
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, "x", "[", NULL, NULL, NULL), GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(mock_request_count(), 0);

    /* An unknown task: the failed poll's status and body. */
    out = NULL;
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, "vtask_404", "{\"interval_ms\": 10}", NULL, NULL, &out), GW_NOT_FOUND);
    CHECK_STR_CONTAINS(out, "not_found");
    gw_free(out);
    gw_client_free(c);
}

void run_video_wait_tests(void)
{
    RUN(wait_returns_the_finished_record);
    RUN(failed_task_is_gw_vendor_with_the_record);
    RUN(progress_callback_can_stop_it);
    RUN(deadline_is_gw_timeout);
    RUN(bad_arguments_are_refused);
}
