/* Handles for bindings: gw_client_create, gw_client_derive / gw_client_create_derived with
 * per-call options, gw_client_last_response, and the logger. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

#define CHAT_HI "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"

static void create_reports_through_out_parameters(void)
{
    char options[512];
    snprintf(options, sizeof options, "{\"base_url\": \"%s\", \"api_key\": \"" TEST_KEY "\"}",
             test_base_url());
    gw_client *c = NULL;
    char *err = NULL;
    CHECK_STATUS(gw_client_create(options, &c, &err), GW_OK);
    CHECK(c != NULL);
    CHECK(err == NULL);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);

    c = (gw_client *)&err; /* must be reset to NULL on failure */
    CHECK_STATUS(gw_client_create("{\"timout_ms\": 5}", &c, &err), GW_INVALID_ARGUMENT);
    CHECK(c == NULL);
    CHECK_STR_CONTAINS(err, "timout_ms");
    CHECK_STR_CONTAINS(err, "\"status\":-1");
    gw_free(err);

    /* The error JSON never carries the key. */
    err = NULL;
    CHECK_STATUS(gw_client_create("{\"base_url\": \"ftp://x\", \"api_key\": \"sk-hidden-1\"}", &c, &err),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "scheme");
    CHECK_STR_LACKS(err, "sk-hidden-1");
    gw_free(err);

    CHECK_STATUS(gw_client_create(options, NULL, NULL), GW_INVALID_ARGUMENT);
}

static void derived_handles_override_per_call(void)
{
    gw_client *base = test_client("\"max_retries\": 0");
    mock_reset();
    gw_client *d = NULL;
    char *err = NULL;
    CHECK_STATUS(gw_client_create_derived(base,
                     "{\"headers\": {\"X-Call\": \"c1\"}, \"idempotency_key\": \"k-1\", \"total_timeout_ms\": 200}",
                     &d, &err), GW_OK);
    CHECK(err == NULL);
    CHECK_STATUS(gw_chat(d, CHAT_HI, NULL), GW_OK);
    char *requests = mock_requests();
    CHECK_STR_CONTAINS(requests, "\"x-call\",\"c1\"");
    CHECK_STR_CONTAINS(requests, "\"idempotency-key\",\"k-1\"");
    gw_free(requests);

    /* Its 200 ms deadline is its own: the base waits out a 600 ms delay. */
    mock_fault("{\"action\": \"delay\", \"ms\": 600, \"times\": 2}");
    CHECK_STATUS(gw_chat(d, CHAT_HI, NULL), GW_TIMEOUT);
    CHECK_STATUS(gw_chat(base, CHAT_HI, NULL), GW_OK);
    gw_client_free(d);

    /* Bad overrides are named, through both forms. */
    d = gw_client_derive(base, "{\"api_key\": \"sk-other\"}");
    CHECK(d == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "api_key");
    CHECK_STATUS(gw_client_create_derived(base, "{\"max_retries\": -1}", &d, &err), GW_INVALID_ARGUMENT);
    CHECK(d == NULL);
    CHECK_STR_CONTAINS(err, "max_retries");
    gw_free(err);
    CHECK_STATUS(gw_client_create_derived(NULL, NULL, &d, &err), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "base");
    gw_free(err);

    /* NULL options: a plain copy of the base. Freed after the base: still fine. */
    d = gw_client_derive(base, NULL);
    CHECK(d != NULL);
    gw_client_free(base);
    CHECK_STILL_WORKS(d);
    gw_client_free(d);
}

static void last_response_per_handle(void)
{
    gw_client *base = test_client("\"max_retries\": 2");
    mock_reset();
    gw_client *d = gw_client_derive(base, NULL);
    char *meta = NULL;
    CHECK_STATUS(gw_client_last_response(d, &meta), GW_OK);
    CHECK_STR_CONTAINS(meta, "null");
    gw_free(meta);

    mock_fault("{\"action\": \"status\", \"status\": 429, \"times\": 3, "
               "\"headers\": {\"retry-after-ms\": \"5\", \"x-ratelimit-limit-requests\": \"60\"}}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(d, CHAT_HI, &out), GW_RATE_LIMITED);
    gw_free(out);
    CHECK_STATUS(gw_client_last_response(d, &meta), GW_OK);
    CHECK_STR_CONTAINS(meta, "\"status\":429");
    CHECK_STR_CONTAINS(meta, "\"attempts\":3");
    CHECK_STR_CONTAINS(meta, "\"x-ratelimit-limit-requests\":\"60\"");
    CHECK_STR_CONTAINS(meta, "\"request_id\":\"req_mock_");
    CHECK_STR_CONTAINS(meta, "/v1/chat/completions");
    gw_free(meta);

    /* The base saw none of it. */
    CHECK_STATUS(gw_client_last_response(base, &meta), GW_OK);
    CHECK_STR_CONTAINS(meta, "null");
    gw_free(meta);
    CHECK_STATUS(gw_client_last_response(NULL, &meta), GW_INVALID_ARGUMENT);
    gw_free(meta);
    gw_client_free(d);
    gw_client_free(base);
}

struct log_capture {
    int lines;
    int retries;
    int leaked_key;
};

static void capture_line(int level, const char *message, void *user_data)
{
    struct log_capture *cap = user_data;
    cap->lines++;
    if (level == GW_LOG_INFO && strstr(message, "retrying") != NULL) cap->retries++;
    if (strstr(message, TEST_KEY) != NULL) cap->leaked_key++;
}

static void logger_sees_retries_never_the_key(void)
{
    struct log_capture cap = {0, 0, 0};
    gw_set_logger(capture_line, &cap, GW_LOG_TRACE);
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_fault("{\"action\": \"status\", \"status\": 503}");
    CHECK_STATUS(gw_chat(c, CHAT_HI, NULL), GW_OK);
    mock_fault("{\"action\": \"status\", \"status\": 500, \"times\": 3}");
    CHECK_STATUS(gw_generate_content(c, "m", "{\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"x\"}]}]}", NULL),
                 GW_SERVER_ERROR);
    gw_set_logger(NULL, NULL, GW_LOG_TRACE);
    CHECK(cap.lines >= 4);
    CHECK(cap.retries >= 2);
    CHECK_EQ_INT(cap.leaked_key, 0);
    int before = cap.lines;
    CHECK_STATUS(gw_chat(c, CHAT_HI, NULL), GW_OK);
    CHECK_EQ_INT(cap.lines, before); /* off means off */
    gw_client_free(c);
}

void run_handles_tests(void)
{
    RUN(create_reports_through_out_parameters);
    RUN(derived_handles_override_per_call);
    RUN(last_response_per_handle);
    RUN(logger_sees_retries_never_the_key);
}
