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
    d = gw_client_derive(base, "{\"proxy\": \"http://127.0.0.1:1\"}");
    CHECK(d == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "proxy");
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

/* Per-call api_key and base_url: a tenant's key on the client's pool, another address,
 * checked like the client options, the key never in an error. */
static void derived_api_key_and_base_url(void)
{
    gw_client *base = test_client("\"max_retries\": 0");
    mock_reset();
    gw_client *d = gw_client_derive(base, "{\"api_key\": \"sk-tenant-c\"}");
    CHECK(d != NULL);
    char *out = NULL;
    CHECK_STATUS(gw_chat(d, CHAT_HI, &out), GW_UNAUTHORIZED); /* the mock knows only TEST_KEY */
    CHECK_STR_LACKS(out, "sk-tenant-c");
    gw_free(out);
    gw_client_free(d);
    CHECK_STATUS(gw_chat(base, CHAT_HI, NULL), GW_OK);
    char *requests = mock_requests();
    CHECK_STR_CONTAINS(requests, "\"authorization\",\"Bearer sk-tenant-c\"");
    CHECK_STR_CONTAINS(requests, "\"authorization\",\"Bearer " TEST_KEY "\"");
    gw_free(requests);

    char options[512];
    snprintf(options, sizeof options, "{\"base_url\": \"%s/v1/\", \"api_key\": \"" TEST_KEY "\"}",
             test_base_url());
    d = NULL;
    char *err = NULL;
    CHECK_STATUS(gw_client_create_derived(base, options, &d, &err), GW_OK);
    CHECK_STILL_WORKS(d);
    gw_client_free(d);

    CHECK_STATUS(gw_client_create_derived(base, "{\"base_url\": \"http://gateway.example.com\"}", &d, &err),
                 GW_INVALID_ARGUMENT);
    CHECK(d == NULL);
    CHECK_STR_CONTAINS(err, "allow_insecure_http");
    gw_free(err);
    CHECK_STATUS(gw_client_create_derived(base, "{\"api_key\": \"sk-hidden-2 \"}", &d, &err),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "api_key");
    CHECK_STR_LACKS(err, "sk-hidden-2");
    gw_free(err);
    gw_client_free(base);
}

/* gw_client_create_observed: the callback sees each attempt start and end, in order. */
struct attempt_capture {
    int starts, ends, open, out_of_order;
    int first_end_status, last_status;
    unsigned last_attempt;
    char path[128], request_id[64], method[8];
    unsigned long long request_bytes;
    long long response_bytes;
};

static void capture_attempt(const gw_attempt *a, void *user_data)
{
    struct attempt_capture *cap = user_data;
    if (a->struct_size < sizeof(gw_attempt)) cap->out_of_order++;
    if (a->phase == GW_ATTEMPT_START) {
        if (cap->open || a->status != 0) cap->out_of_order++;
        cap->open = 1;
        cap->starts++;
        snprintf(cap->path, sizeof cap->path, "%s", a->path);
        snprintf(cap->method, sizeof cap->method, "%s", a->method);
        return;
    }
    if (!cap->open) cap->out_of_order++;
    cap->open = 0;
    if (cap->ends++ == 0) cap->first_end_status = a->status;
    cap->last_status = a->status;
    cap->last_attempt = a->attempt;
    cap->request_bytes = a->request_bytes;
    cap->response_bytes = a->response_bytes;
    snprintf(cap->request_id, sizeof cap->request_id, "%s", a->request_id ? a->request_id : "");
}

static void observed_handles_report_each_attempt(void)
{
    gw_client *base = test_client("\"max_retries\": 2");
    mock_reset();
    struct attempt_capture cap;
    memset(&cap, 0, sizeof cap);
    gw_client *d = NULL;
    char *err = NULL;
    CHECK_STATUS(gw_client_create_observed(base, "{\"headers\": {\"X-Call\": \"o\"}}", capture_attempt, &cap,
                                           &d, &err), GW_OK);
    mock_fault("{\"action\": \"status\", \"status\": 503}");
    CHECK_STATUS(gw_chat(d, CHAT_HI, NULL), GW_OK);
    CHECK_EQ_INT(cap.starts, 2);
    CHECK_EQ_INT(cap.ends, 2);
    CHECK_EQ_INT(cap.out_of_order, 0);
    CHECK_EQ_INT(cap.first_end_status, 503);
    CHECK_EQ_INT(cap.last_status, 200);
    CHECK_EQ_INT((int)cap.last_attempt, 2);
    CHECK_STR_CONTAINS(cap.method, "POST");
    CHECK_STR_CONTAINS(cap.path, "/v1/chat/completions");
    CHECK_STR_CONTAINS(cap.request_id, "req_mock_");
    CHECK(cap.request_bytes >= strlen(CHAT_HI));
    CHECK(cap.response_bytes > 0);

    /* A failure without an answer ends with a negative code. */
    mock_fault("{\"action\": \"delay\", \"ms\": 600}");
    gw_client *quick = NULL;
    CHECK_STATUS(gw_client_create_observed(base, "{\"total_timeout_ms\": 150, \"max_retries\": 0}",
                                           capture_attempt, &cap, &quick, NULL), GW_OK);
    CHECK_STATUS(gw_chat(quick, CHAT_HI, NULL), GW_TIMEOUT);
    CHECK_EQ_INT(cap.ends, 3);
    CHECK_EQ_INT(cap.last_status, GW_TIMEOUT);
    gw_client_free(quick);

    /* The base is not observed. */
    CHECK_STATUS(gw_chat(base, CHAT_HI, NULL), GW_OK);
    CHECK_EQ_INT(cap.starts, 3);

    CHECK_STATUS(gw_client_create_observed(base, NULL, NULL, NULL, &quick, &err), GW_INVALID_ARGUMENT);
    CHECK(quick == NULL);
    CHECK_STR_CONTAINS(err, "cb");
    gw_free(err);
    gw_client_free(d);
    gw_client_free(base);
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
    RUN(derived_api_key_and_base_url);
    RUN(observed_handles_report_each_attempt);
    RUN(last_response_per_handle);
    RUN(logger_sees_retries_never_the_key);
}
