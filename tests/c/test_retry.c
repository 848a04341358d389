/* The retry policy through injected faults, and the connect/read/total deadlines. */
#include <stdio.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

static const char *CHAT_HI = "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";

static void status_503_then_success_is_retried(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_fault("{\"match\": \"/v1/chat/completions\", \"action\": \"status\", \"status\": 503}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "Echo: hi");
    CHECK_EQ_INT(mock_request_count(), 2);
    gw_free(out);
    gw_client_free(c);
}

static void status_429_honours_retry_after_ms(void)
{
    /* A backoff far longer than the test would wait: only the server's 30 ms can apply. */
    gw_client *c = test_client_with("\"retry_base_delay_ms\": 5000, \"retry_max_delay_ms\": 5000");
    mock_reset();
    mock_fault("{\"action\": \"status\", \"status\": 429, \"headers\": {\"retry-after-ms\": \"30\"}}");
    long long start = now_ms();
    CHECK_STATUS(gw_chat(c, CHAT_HI, NULL), GW_OK);
    long long took = now_ms() - start;
    CHECK(took < 4000);
    CHECK_EQ_INT(mock_request_count(), 2);
    gw_client_free(c);
}

static void x_should_retry_false_stops_retries(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_fault("{\"action\": \"status\", \"status\": 503, \"times\": 3,"
               " \"headers\": {\"x-should-retry\": \"false\"}}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), 503);
    CHECK_STR_CONTAINS(out, "\"status\":503");
    CHECK_STR_CONTAINS(out, "\"code\":\"injected_fault\"");
    CHECK_EQ_INT(mock_request_count(), 1);
    gw_free(out);
    gw_client_free(c);
}

/* Retries run out: the last answer's status and the server's own error body. */
static void exhausted_retries_give_the_last_status(void)
{
    const int statuses[] = {500, 503};
    for (size_t i = 0; i < 2; i++) {
        gw_client *c = test_client("\"max_retries\": 2");
        mock_reset();
        char fault[256];
        snprintf(fault, sizeof fault,
                 "{\"action\": \"status\", \"status\": %d, \"times\": 5}", statuses[i]);
        mock_fault(fault);
        char *out = NULL;
        CHECK_STATUS(gw_chat(c, CHAT_HI, &out), statuses[i]);
        CHECK_STR_CONTAINS(out, "\"type\":\"server_error\"");
        CHECK_STR_CONTAINS(out, "\"code\":\"injected_fault\"");
        CHECK_STR_CONTAINS(out, "Injected fault: status");
        char status_member[32];
        snprintf(status_member, sizeof status_member, "\"status\":%d", statuses[i]);
        CHECK_STR_CONTAINS(out, status_member);
        CHECK_STR_CONTAINS(gw_last_error(), "Injected fault");
        CHECK_EQ_INT(mock_request_count(), 3); /* first try + 2 retries */
        gw_free(out);
        gw_client_free(c);
    }
}

static void status_400_is_not_retried(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_fault("{\"action\": \"status\", \"status\": 400, \"times\": 3,"
               " \"body\": \"{\\\"error\\\": {\\\"message\\\": \\\"nope\\\", \\\"type\\\": \\\"invalid_request_error\\\", \\\"code\\\": \\\"bad\\\"}}\"}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_BAD_REQUEST);
    CHECK_STR_CONTAINS(out, "\"message\":\"nope\"");
    CHECK_STR_CONTAINS(out, "\"code\":\"bad\"");
    CHECK_STR_CONTAINS(out, "\"status\":400");
    CHECK_EQ_INT(mock_request_count(), 1);
    gw_free(out);
    gw_client_free(c);
}

static void x_should_retry_true_retries_a_400(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_fault("{\"action\": \"status\", \"status\": 400, \"headers\": {\"x-should-retry\": \"true\"}}");
    CHECK_STATUS(gw_chat(c, CHAT_HI, NULL), GW_OK);
    CHECK_EQ_INT(mock_request_count(), 2);
    gw_client_free(c);
}

static void non_json_error_body_is_wrapped(void)
{
    gw_client *c = test_client("\"max_retries\": 0");
    mock_reset();
    mock_fault("{\"action\": \"status\", \"status\": 502, \"content_type\": \"text/html\","
               " \"body\": \"<html>bad gateway</html>\"}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), 502);
    CHECK_STR_CONTAINS(out, "\"code\":\"http_502\"");
    CHECK_STR_CONTAINS(out, "\"type\":\"http_error\"");
    CHECK_STR_CONTAINS(out, "\"status\":502");
    CHECK_STR_CONTAINS(out, "bad gateway");
    CHECK_EQ_INT(mock_request_count(), 1);
    gw_free(out);
    gw_client_free(c);
}

static void slow_answer_is_a_first_byte_timeout(void)
{
    gw_client *c = test_client("\"max_retries\": 0, \"first_byte_timeout_ms\": 300");
    mock_reset();
    mock_fault("{\"action\": \"delay\", \"ms\": 3000}");
    char *out = NULL;
    long long start = now_ms();
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_TIMEOUT);
    CHECK(now_ms() - start < 2500);
    CHECK_STR_CONTAINS(out, "\"type\":\"timeout_error\"");
    CHECK_STR_CONTAINS(out, "\"code\":\"timeout\"");
    CHECK_STR_CONTAINS(out, "\"status\":-3");
    CHECK_STR_CONTAINS(out, "first_byte_timeout_ms");
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void total_timeout_bounds_the_whole_call(void)
{
    /* Each attempt is slow and retried; total_timeout_ms ends the call, not read_timeout. */
    gw_client *c = test_client("\"max_retries\": 5, \"read_timeout_ms\": 0, \"total_timeout_ms\": 500");
    mock_reset();
    mock_fault("{\"action\": \"delay\", \"ms\": 3000, \"times\": 5}");
    char *out = NULL;
    long long start = now_ms();
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_TIMEOUT);
    CHECK(now_ms() - start < 2500);
    CHECK_STR_CONTAINS(out, "\"type\":\"timeout_error\"");
    CHECK_STR_CONTAINS(out, "total");
    gw_free(out);
    mock_reset(); /* drops the delays the deadline left unused */
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void refused_connection_is_a_network_error(void)
{
    /* Port 1 on loopback: nothing listens, so every attempt is refused. */
    gw_client *c = gw_client_new_with_options(
        "{\"base_url\": \"http://127.0.0.1:1\", \"api_key\": \"" TEST_KEY "\","
        " \"max_retries\": 1, \"retry_base_delay_ms\": 10}");
    CHECK(c != NULL);
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_NETWORK);
    CHECK_STR_CONTAINS(out, "\"type\":\"network_error\"");
    CHECK_STR_CONTAINS(out, "\"status\":-2");
    CHECK_STR_LACKS(out, TEST_KEY);
    gw_free(out);
    gw_client_free(c);
}

void run_retry_tests(void)
{
    RUN(status_503_then_success_is_retried);
    RUN(status_429_honours_retry_after_ms);
    RUN(x_should_retry_false_stops_retries);
    RUN(exhausted_retries_give_the_last_status);
    RUN(status_400_is_not_retried);
    RUN(x_should_retry_true_retries_a_400);
    RUN(non_json_error_body_is_wrapped);
    RUN(slow_answer_is_a_first_byte_timeout);
    RUN(total_timeout_bounds_the_whole_call);
    RUN(refused_connection_is_a_network_error);
}
