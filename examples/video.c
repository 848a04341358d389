/*
 * A unified video task: create it, poll its status until it is done, print the video URL.
 *
 *   GW_BASE_URL=https://... GW_API_KEY=sk-... ./video     (GW_POLL_MS: poll interval, ms)
 *
 * Build: cc -std=c11 video.c $(pkg-config --cflags --libs gw)
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw.h"

#define MAX_POLLS 600

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Status words a finished task reports (the gateway's vendors differ in wording). */
static int is_terminal(const char *status)
{
    const char *done[] = {"succeeded", "completed", "success", "failed", "error", "cancelled"};
    for (size_t i = 0; i < sizeof done / sizeof done[0]; i++)
        if (strcmp(status, done[i]) == 0) return 1;
    return 0;
}

static int fail(const char *what, int status, char *out, gw_client *client)
{
    fprintf(stderr, "%s failed: %s (%d)\n%s\n", what, gw_status_str(status), status,
            out ? out : "");
    gw_free(out);
    gw_client_free(client);
    return 1;
}

int main(void)
{
    gw_client *client = gw_client_new(NULL, NULL); /* from GW_BASE_URL, GW_API_KEY */
    if (client == NULL) {
        fprintf(stderr, "gw_client_new failed: %s\n", gw_last_error());
        return 1;
    }
    const char *model = getenv("GW_VIDEO_MODEL") ? getenv("GW_VIDEO_MODEL") : "video-model";
    long poll_ms = getenv("GW_POLL_MS") ? atol(getenv("GW_POLL_MS")) : 2000;

    /* Text from outside goes into the request through gw_json_quote, never unquoted. */
    char *model_json = NULL;
    if (gw_json_quote(model, &model_json) != GW_OK)
        return fail("quoting GW_VIDEO_MODEL", GW_INVALID_ARGUMENT, model_json, client);
    static const char format[] =
        "{\"model\": %s, \"prompt\": \"A paper boat drifting down a rainy street\", \"duration\": 5}";
    int len = snprintf(NULL, 0, format, model_json);
    char *request = len < 0 ? NULL : malloc((size_t)len + 1);
    if (request != NULL) snprintf(request, (size_t)len + 1, format, model_json);
    gw_free(model_json);
    if (request == NULL) return fail("building the request", GW_INTERNAL, NULL, client);

    char *out = NULL;
    int status = gw_video_create(client, request, &out);
    free(request);
    if (status != GW_OK) return fail("gw_video_create", status, out, client);

    char *task_id = NULL;
    if (gw_json_get(out, "task_id", &task_id) != GW_OK)
        return fail("reading task_id", GW_DECODE, out, client);
    gw_free(out);
    printf("task: %s\n", task_id);

    /* Poll until the status is terminal; `record` keeps that last answer. */
    char *task_status = NULL;
    char *record = NULL;
    for (int poll = 0; poll < MAX_POLLS && record == NULL; poll++) {
        if (poll > 0) sleep_ms(poll_ms);
        status = gw_video_status(client, GW_VIDEO_UNIFIED, task_id, &out);
        if (status != GW_OK) {
            gw_free(task_id);
            return fail("gw_video_status", status, out, client);
        }
        gw_free(task_status);
        task_status = NULL;
        gw_json_get(out, "status", &task_status);
        printf("status: %s\n", task_status ? task_status : "(none)");
        if (task_status != NULL && is_terminal(task_status))
            record = out;
        else
            gw_free(out);
    }
    gw_free(task_id);
    if (record == NULL) {
        fprintf(stderr, "the task did not finish after %d polls\n", MAX_POLLS);
        gw_free(task_status);
        gw_client_free(client);
        return 1;
    }

    int ok = (strcmp(task_status, "succeeded") == 0 || strcmp(task_status, "completed") == 0 ||
              strcmp(task_status, "success") == 0);
    gw_free(task_status);
    /* Where the URL is depends on the gateway's vendor: try the usual places. */
    const char *url_paths[] = {"video_url", "url", "data.0.url", "output.video_url"};
    char *url = NULL;
    for (size_t i = 0; ok && url == NULL && i < sizeof url_paths / sizeof url_paths[0]; i++)
        if (gw_json_get(record, url_paths[i], &url) != GW_OK) url = NULL;
    if (url != NULL)
        printf("video: %s\n", url);
    else
        printf("final record: %s\n", record);

    gw_free(url);
    gw_free(record);
    gw_client_free(client);
    return ok ? 0 : 1;
}
