/* One client shared by many threads at once; each thread keeps its own last error. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

#define THREADS 8
#define CALLS_PER_THREAD 5

struct worker {
    gw_client *client;
    int index;
    int ok_calls;
    int echo_mismatches;
    int own_last_error; /* 1 when gw_last_error() named this thread's own failure */
};

static void *chat_worker(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < CALLS_PER_THREAD; i++) {
        char request[256], expected[64];
        snprintf(request, sizeof request,
                 "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"thread %d call %d\"}]}",
                 w->index, i);
        snprintf(expected, sizeof expected, "Echo: thread %d call %d", w->index, i);
        char *out = NULL;
        if (gw_chat(w->client, request, &out) == GW_OK) w->ok_calls++;
        if (out == NULL || strstr(out, expected) == NULL) w->echo_mismatches++;
        gw_free(out);
    }
    /* A failure on this thread sets this thread's last error only: message i has a bad
     * role, so the error names messages[i].role and no other thread's index. */
    char request[512] = "{\"model\": \"m\", \"messages\": [";
    for (int i = 0; i < w->index; i++) strcat(request, "{\"role\": \"user\", \"content\": \"x\"}, ");
    strcat(request, "{\"role\": \"robot\", \"content\": \"x\"}]}");
    char expected[32];
    snprintf(expected, sizeof expected, "messages[%d].role", w->index);
    gw_chat(w->client, request, NULL);
    w->own_last_error = strstr(gw_last_error(), expected) != NULL;
    return NULL;
}

static void one_client_serves_eight_threads(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    pthread_t threads[THREADS];
    struct worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (struct worker){.client = c, .index = i};
        CHECK_EQ_INT(pthread_create(&threads[i], NULL, chat_worker, &workers[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        CHECK_EQ_INT(workers[i].ok_calls, CALLS_PER_THREAD);
        CHECK_EQ_INT(workers[i].echo_mismatches, 0);
        CHECK_EQ_INT(workers[i].own_last_error, 1);
    }
    CHECK_EQ_INT(mock_request_count(), THREADS * CALLS_PER_THREAD);
    gw_client_free(c);
}

static void *fresh_thread_last_error(void *arg)
{
    const char **seen = arg;
    *seen = strlen(gw_last_error()) == 0 ? "" : "not empty";
    return NULL;
}

static void last_error_is_per_thread(void)
{
    /* This thread has failed calls behind it; a new thread starts with "". */
    gw_chat(NULL, "{}", NULL);
    CHECK(strlen(gw_last_error()) > 0);
    const char *seen = NULL;
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, fresh_thread_last_error, &seen), 0);
    pthread_join(t, NULL);
    CHECK(seen != NULL && strcmp(seen, "") == 0);
}

void run_threads_tests(void)
{
    RUN(one_client_serves_eight_threads);
    RUN(last_error_is_per_thread);
}
