/* Answers that break the API's promises: bad JSON, wrong shape, oversize, unknown paths. */
#include "harness.h"
#include "support.h"
#include "tests.h"

static const char *CHAT_HI = "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";

static void garbage_answer_is_gw_decode(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_fault("{\"action\": \"garbage\"}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_DECODE);
    CHECK_STR_CONTAINS(out, "\"type\":\"decode_error\"");
    CHECK_STR_CONTAINS(out, "\"code\":\"decode\"");
    CHECK_STR_CONTAINS(out, "\"status\":-4");
    CHECK_STR_CONTAINS(out, "not valid JSON");
    CHECK_EQ_INT(mock_request_count(), 1); /* a 200 is an answer: never retried */
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void wrong_shape_is_gw_decode(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_fault("{\"action\": \"wrong_shape\"}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_DECODE);
    CHECK_STR_CONTAINS(out, "\"type\":\"decode_error\"");
    CHECK_STR_CONTAINS(out, "choices"); /* names what is missing */
    CHECK_STR_CONTAINS(gw_last_error(), "choices");
    gw_free(out);
    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void huge_body_is_gw_too_large(void)
{
    gw_client *c = test_client("\"max_response_bytes\": 10000");
    mock_reset();
    mock_fault("{\"action\": \"huge_body\", \"bytes\": 200000}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_TOO_LARGE);
    CHECK_STR_CONTAINS(out, "\"type\":\"too_large\"");
    CHECK_STR_CONTAINS(out, "\"status\":-8");
    CHECK_STR_CONTAINS(out, "max_response_bytes");
    gw_free(out);

    CHECK_STILL_WORKS(c);
    gw_client_free(c);
}

static void unknown_path_is_404(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    CHECK_STATUS(gw_request(c, "GET", "/v1/no-such-thing", NULL, &out), GW_NOT_FOUND);
    CHECK_STR_CONTAINS(out, "\"status\":404");
    CHECK_STR_CONTAINS(out, "\"code\":\"not_found\"");
    CHECK_STR_CONTAINS(out, "Invalid endpoint: GET /v1/no-such-thing");
    CHECK_EQ_INT(mock_request_count(), 1);
    gw_free(out);
    gw_client_free(c);
}

static void request_reaches_any_documented_path(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    /* A documented path through gw_request gets that operation's checks... */
    CHECK_STATUS(gw_request(c, "POST", "/v1/chat/completions", "{\"model\": \"m\", \"messages\": []}", &out),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "messages");
    gw_free(out);
    CHECK_EQ_INT(mock_request_count(), 0);
    /* ...and its answer. */
    out = NULL;
    CHECK_STATUS(gw_request(c, "POST", "/v1/chat/completions",
                            "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"via request\"}]}", &out),
                 GW_OK);
    CHECK_STR_CONTAINS(out, "Echo: via request");
    gw_free(out);
    gw_client_free(c);
}

void run_errors_tests(void)
{
    RUN(garbage_answer_is_gw_decode);
    RUN(wrong_shape_is_gw_decode);
    RUN(huge_body_is_gw_too_large);
    RUN(unknown_path_is_404);
    RUN(request_reaches_any_documented_path);
}
