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

/* Error bodies that are not OpenAI-shaped still give the contract's four fields (issue 9). */
static void error_bodies_of_real_servers_fill_the_contract(void)
{
    gw_client *c = test_client("\"max_retries\": 0");
    mock_reset();
    mock_fault("{\"action\": \"error_body\", \"shape\": \"google\", \"status\": 400}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), 400);
    CHECK_STR_CONTAINS(out, "\"status\":400");
    CHECK_STR_CONTAINS(out, "\"type\":\"http_error\"");
    CHECK_STR_CONTAINS(out, "\"code\":\"http_400\"");
    CHECK_STR_CONTAINS(out, "\"server_status\":\"INVALID_ARGUMENT\"");
    gw_free(out);

    mock_fault("{\"action\": \"error_body\", \"shape\": \"sse\", \"status\": 500}");
    out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), 500);
    CHECK_STR_CONTAINS(out, "\"message\":\"Upstream failed with 500\"");
    CHECK_STR_CONTAINS(out, "\"code\":\"upstream_error\"");
    CHECK_STR_LACKS(gw_last_error(), "data:");
    gw_free(out);
    gw_client_free(c);
}

/* The request JSON reaches the gateway as written: key order and exact numbers. */
static void request_json_reaches_the_gateway_as_written(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    CHECK_STATUS(gw_chat(c,
                         "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                         "\"zeta\":1,\"alpha\":2,\"big\":123456789012345678901234567890,\"price\":1.10}",
                         &out),
                 GW_OK);
    gw_free(out);
    char *requests = mock_requests();
    /* The recorded body is a JSON string, so its quotes come escaped. */
    CHECK_STR_CONTAINS(requests, "\\\"zeta\\\":1,\\\"alpha\\\":2,\\\"big\\\":123456789012345678901234567890,"
                                 "\\\"price\\\":1.10}");
    gw_free(requests);
    gw_client_free(c);
}

void run_errors_tests(void)
{
    RUN(garbage_answer_is_gw_decode);
    RUN(wrong_shape_is_gw_decode);
    RUN(huge_body_is_gw_too_large);
    RUN(unknown_path_is_404);
    RUN(request_reaches_any_documented_path);
    RUN(error_bodies_of_real_servers_fill_the_contract);
    RUN(request_json_reaches_the_gateway_as_written);
}
