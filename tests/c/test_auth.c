/* Auth placement (Bearer, or ?key= for /v1beta) and the key kept out of every error. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

static const char *CHAT_HI = "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
static const char *NATIVE_HI = "{\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}]}";
/* A key with characters that URL-encoding changes, to catch an encoded leak too. */
#define WRONG_KEY "sk-wrong/secret+4242"

static gw_client *client_with_key(const char *key, const char *extra)
{
    char options[512];
    snprintf(options, sizeof options,
             "{\"base_url\": \"%s\", \"api_key\": \"%s\", \"retry_base_delay_ms\": 10%s%s}",
             test_base_url(), key, extra ? ", " : "", extra ? extra : "");
    gw_client *c = gw_client_new_with_options(options);
    CHECK(c != NULL);
    return c;
}

static void wrong_key_is_401_without_the_key(void)
{
    gw_client *c = client_with_key(WRONG_KEY, NULL);
    mock_reset();
    char *out = NULL;
    int rc = gw_chat(c, CHAT_HI, &out);
    CHECK_STATUS(rc, GW_UNAUTHORIZED);
    CHECK_STR_CONTAINS(out, "\"type\":\"authentication_error\"");
    CHECK_STR_CONTAINS(out, "\"code\":\"invalid_api_key\"");
    CHECK_STR_CONTAINS(out, "\"status\":401");
    CHECK_STR_LACKS(out, "wrong/secret");
    CHECK_STR_LACKS(out, "wrong%2Fsecret");
    CHECK_STR_LACKS(gw_last_error(), "wrong/secret");
    CHECK_STR_LACKS(gw_last_error(), "wrong%2Fsecret");
    CHECK_EQ_INT(mock_request_count(), 1); /* 401 is not retried */
    gw_free(out);
    gw_client_free(c);
}

static void bearer_header_is_sent(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    CHECK_STATUS(gw_chat(c, CHAT_HI, NULL), GW_OK);
    char *requests = mock_requests();
    CHECK_STR_CONTAINS(requests, "[\"authorization\",\"Bearer " TEST_KEY "\"]");
    CHECK_STR_CONTAINS(requests, "\"query\":null");
    gw_free(requests);
    gw_client_free(c);
}

static void generate_content_puts_the_key_in_the_query(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    CHECK_STATUS(gw_generate_content(c, "native-model", NATIVE_HI, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"candidates\"");
    char *requests = mock_requests();
    CHECK_STR_CONTAINS(requests, "\"path\":\"/v1beta/models/native-model:generateContent\"");
    CHECK_STR_CONTAINS(requests, "\"query\":\"key=" TEST_KEY "\"");
    CHECK_STR_LACKS(requests, "\"authorization\"");
    gw_free(requests);
    gw_free(out);
    gw_client_free(c);
}

static void generate_content_errors_hide_the_key(void)
{
    /* A 500 answer (not retried here): the URL carried the key, the error must not. */
    gw_client *c = client_with_key(WRONG_KEY, "\"max_retries\": 0, \"first_byte_timeout_ms\": 300");
    mock_reset();
    mock_fault("{\"match\": \"/v1beta/\", \"action\": \"status\", \"status\": 500}");
    char *out = NULL;
    CHECK_STATUS(gw_generate_content(c, "native-model", NATIVE_HI, &out), GW_SERVER_ERROR);
    CHECK_STR_CONTAINS(out, "\"status\":500");
    CHECK_STR_LACKS(out, "wrong/secret");
    CHECK_STR_LACKS(out, "wrong%2Fsecret");
    CHECK_STR_LACKS(gw_last_error(), "wrong/secret");
    CHECK_STR_LACKS(gw_last_error(), "wrong%2Fsecret");
    gw_free(out);

    /* A transport failure (no answer in time) says nothing of the key either. */
    mock_fault("{\"match\": \"/v1beta/\", \"action\": \"delay\", \"ms\": 2000}");
    out = NULL;
    CHECK_STATUS(gw_generate_content(c, "native-model", NATIVE_HI, &out), GW_TIMEOUT);
    CHECK_STR_LACKS(out, "wrong/secret");
    CHECK_STR_LACKS(out, "wrong%2Fsecret");
    CHECK_STR_LACKS(gw_last_error(), "wrong/secret");
    CHECK_STR_LACKS(gw_last_error(), "wrong%2Fsecret");
    gw_free(out);

    /* And a 401 from the native endpoint (the key was sent in the query). */
    out = NULL;
    CHECK_STATUS(gw_generate_content(c, "native-model", NATIVE_HI, &out), GW_UNAUTHORIZED);
    CHECK_STR_CONTAINS(out, "invalid_api_key");
    CHECK_STR_LACKS(out, "wrong/secret");
    CHECK_STR_LACKS(out, "wrong%2Fsecret");
    CHECK_STR_LACKS(gw_last_error(), "wrong/secret");
    gw_free(out);
    gw_client_free(c);
}

/* A redirect to another origin (same port, other host name): a POST is not replayed there
 * at all (the prompt stays home), a GET follows without credentials. */
static void redirect_to_another_origin_drops_the_key(void)
{
    gw_client *c = test_client("\"max_retries\": 0");
    mock_reset();
    const char *port = strrchr(test_base_url(), ':');
    char fault[256];
    snprintf(fault, sizeof fault,
             "{\"action\": \"redirect\", \"status\": 307,"
             " \"location\": \"http://localhost%s/v1/chat/completions\"}", port);
    mock_fault(fault);
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_NETWORK);
    CHECK_STR_CONTAINS(out, "never replayed to another origin");
    CHECK_STR_CONTAINS(out, "localhost");
    CHECK_EQ_INT(mock_request_count(), 1);
    gw_free(out);

    mock_reset();
    snprintf(fault, sizeof fault,
             "{\"action\": \"redirect\", \"status\": 302,"
             " \"location\": \"http://localhost%s/v1/videos/v1\"}", port);
    mock_fault(fault);
    out = NULL;
    CHECK_STATUS(gw_video_status(c, GW_VIDEO_CHARACTER, "v1", &out), GW_UNAUTHORIZED);
    CHECK_STR_CONTAINS(out, "invalid_api_key");
    char *requests = mock_requests();
    CHECK_EQ_INT(count_substr(requests, "\"method\":"), 2);
    CHECK_EQ_INT(count_substr(requests, "\"authorization\""), 1); /* the first hop only */
    gw_free(requests);
    gw_free(out);
    gw_client_free(c);
}

static void redirect_within_the_origin_keeps_the_key(void)
{
    gw_client *c = test_client("\"max_retries\": 0");
    mock_reset();
    mock_fault("{\"action\": \"redirect\", \"status\": 307, \"location\": \"/v1/chat/completions\"}");
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "Echo: hi");
    char *requests = mock_requests();
    CHECK_EQ_INT(count_substr(requests, "\"authorization\""), 2);
    gw_free(requests);
    gw_free(out);
    gw_client_free(c);
}

/* Found by the response fuzzer: a vendor failure's body naming a member twice, the first
 * time with the key. *out is the vendor's body as sent; the key in it is redacted even where
 * a JSON parser would keep only the second member. */
static void a_key_in_a_member_named_twice_is_redacted_from_a_vendor_failure(void)
{
    gw_client *c = test_client("\"max_retries\": 0");
    mock_reset();
    mock_fault("{\"action\": \"status\", \"status\": 200, \"body\": "
               "\"{\\\"code\\\":1001,\\\"message\\\":\\\"key sk-test\\\",\\\"message\\\":\\\"quota\\\"}\"}");
    char *out = NULL;
    int rc = gw_vendor_h_image_to_video(c,
                                        "{\"image_url\": \"https://img.example/p.png\", \"prompt\": \"p\", "
                                        "\"model\": \"h-model\", \"duration\": 5, \"aspect_ratio\": \"9:16\"}",
                                        &out);
    CHECK_STATUS(rc, GW_VENDOR);
    CHECK_STR_CONTAINS(out, "\"message\":\"key [REDACTED]\",\"message\":\"quota\"");
    CHECK_STR_LACKS(out, "sk-test");
    CHECK_STR_LACKS(gw_last_error(), "sk-test");
    gw_free(out);
    gw_client_free(c);
}

void run_auth_tests(void)
{
    RUN(wrong_key_is_401_without_the_key);
    RUN(bearer_header_is_sent);
    RUN(generate_content_puts_the_key_in_the_query);
    RUN(generate_content_errors_hide_the_key);
    RUN(redirect_to_another_origin_drops_the_key);
    RUN(redirect_within_the_origin_keeps_the_key);
    RUN(a_key_in_a_member_named_twice_is_redacted_from_a_vendor_failure);
}
