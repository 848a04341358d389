/* gw_chat: success, the streaming flag refused, documented limits checked before sending. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

static void chat_answers_with_a_completion(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    int rc = gw_chat(c,
                     "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hello there\"}],"
                     " \"x_unknown_field\": {\"kept\": true}}",
                     &out);
    CHECK_STATUS(rc, GW_OK);
    CHECK_STR_CONTAINS(out, "\"object\":\"chat.completion\"");
    CHECK_STR_CONTAINS(out, "Echo: hello there");
    CHECK_STR_CONTAINS(out, "\"usage\"");
    gw_free(out);

    /* Unknown fields reach the gateway untouched. */
    char *requests = mock_requests();
    CHECK_STR_CONTAINS(requests, "\"x_unknown_field\":{\"kept\":true}");
    CHECK_STR_CONTAINS(requests, "\"method\":\"POST\"");
    gw_free(requests);
    gw_client_free(c);
}

static void chat_with_stream_true_is_refused(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    int rc = gw_chat(c, "{\"model\": \"m\", \"stream\": true, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", &out);
    CHECK_STATUS(rc, GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "gw_chat_stream");
    CHECK_STR_CONTAINS(out, "\"param\":\"stream\"");
    CHECK_STR_CONTAINS(gw_last_error(), "stream");
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_free(out);
    gw_client_free(c);
}

/* One request breaking one documented limit, and the field its error must name. */
static const struct {
    const char *json;
    const char *field;
} BROKEN[] = {
    {"{\"model\": \"m\", \"messages\": []}", "messages"},
    {"{\"model\": \"m\"}", "messages"},
    {"{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", "model"},
    {"{\"model\": \"m\", \"temperature\": 3, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", "temperature"},
    {"{\"model\": \"m\", \"top_p\": 1.5, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", "top_p"},
    {"{\"model\": \"m\", \"stop\": [\"a\", \"b\", \"c\", \"d\", \"e\"], \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", "stop"},
    {"{\"model\": \"m\", \"presence_penalty\": -2.5, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", "presence_penalty"},
    /* An open set (issue 39): an effort gw does not know is sent, a number is refused. */
    {"{\"model\": \"m\", \"reasoning_effort\": 5, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", "reasoning_effort"},
    {"{\"model\": \"m\", \"messages\": [{\"role\": \"robot\", \"content\": \"x\"}]}", "messages[0].role"},
};

/* Issue 39: the reasoning effort is a set the upstream extends: OpenAI's "max" (2026-07)
 * reaches the gateway, plain and streamed, and so does an effort gw has never heard of
 * (this gateway refuses that one itself: 400, not GW_INVALID_ARGUMENT). */
static void open_reasoning_efforts_reach_the_gateway(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    const char *max = "{\"model\": \"m\", \"reasoning_effort\": \"max\", "
                      "\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}";
    CHECK_STATUS(gw_chat(c, max, &out), GW_OK);
    gw_free(out);
    CHECK_STATUS(gw_chat_stream(c, max, NULL, NULL, NULL), GW_OK);
    CHECK_STATUS(gw_responses(c, "{\"model\": \"m\", \"input\": \"x\", \"reasoning\": {\"effort\": \"max\"}}", &out),
                 GW_OK);
    CHECK_STR_CONTAINS(out, "\"effort\":\"max\"");
    gw_free(out);
    CHECK_STATUS(gw_chat(c,
                         "{\"model\": \"m\", \"reasoning_effort\": \"ultra\", "
                         "\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}",
                         &out),
                 GW_BAD_REQUEST);
    gw_free(out);
    char *requests = mock_requests();
    CHECK_EQ_INT(count_substr(requests, "\"reasoning_effort\":\"max\""), 2);
    CHECK_EQ_INT(count_substr(requests, "\"reasoning\":{\"effort\":\"max\"}"), 1);
    CHECK_EQ_INT(count_substr(requests, "\"reasoning_effort\":\"ultra\""), 1);
    gw_free(requests);
    gw_client_free(c);
}

static void broken_limits_are_refused_before_sending(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    for (size_t i = 0; i < sizeof BROKEN / sizeof BROKEN[0]; i++) {
        char *out = NULL;
        int rc = gw_chat(c, BROKEN[i].json, &out);
        if (rc != GW_INVALID_ARGUMENT || !harness_contains(out, BROKEN[i].field))
            printf("    request %s\n", BROKEN[i].json);
        CHECK_STATUS(rc, GW_INVALID_ARGUMENT);
        CHECK_STR_CONTAINS(out, "\"status\":-1");
        CHECK_STR_CONTAINS(out, "\"type\":\"invalid_request_error\"");
        CHECK_STR_CONTAINS(out, BROKEN[i].field);
        CHECK_STR_CONTAINS(gw_last_error(), BROKEN[i].field);
        gw_free(out);
        /* The streaming call checks the same limits. */
        CHECK_STATUS(gw_chat_stream(c, BROKEN[i].json, NULL, NULL, NULL), GW_INVALID_ARGUMENT);
    }
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

static void validate_false_lets_the_server_judge(void)
{
    gw_client *c = test_client("\"validate\": false, \"max_retries\": 0");
    mock_reset();
    char *out = NULL;
    int rc = gw_chat(c, "{\"model\": \"m\", \"temperature\": 3, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", &out);
    CHECK_STATUS(rc, GW_BAD_REQUEST);
    /* The server's own error body, with the status added. */
    CHECK_STR_CONTAINS(out, "\"type\":\"invalid_request_error\"");
    CHECK_STR_CONTAINS(out, "\"code\":\"invalid_parameter\"");
    CHECK_STR_CONTAINS(out, "\"status\":400");
    CHECK_STR_CONTAINS(out, "temperature");
    CHECK_STR_CONTAINS(gw_last_error(), "400");
    CHECK_STR_CONTAINS(gw_last_error(), "temperature");
    CHECK_EQ_INT(mock_request_count(), 1);
    gw_free(out);
    gw_client_free(c);
}

/* gw reads request_json in one pass, 16 aligned bytes at a time, or 64 with AVX2 in a long
 * string (src/api/raw_json/c_source.rs). Under valgrind (make test-c) this shows that no load
 * leaves the caller's block, whatever the text's length and where it starts: bodies that scan
 * whole and are then refused by a limit, and bodies cut short (in a string, in a UTF-8
 * character). Nothing reaches the mock. */
static void request_json_is_read_within_its_bytes(void)
{
    static const char *const bodies[] = {
        "{\"model\":\"m\",\"messages\":[],\"note\":\"caf\\u00e9 \xc3\xa9 \\\"q\\\" long enough "
        "for two runs of 32 bytes\"}",
        "{\"model\":\"m\",\"messages\":[],\"note\":\"prose long enough for two 64-byte blocks,\\n"
        "with line breaks\\n and \\\"quoted\\\" words, as a pasted document has them, to the end\"}",
        "{\"model\":\"m\",\"messages\":[],\"s\":\"\xe4\xb8",
        "{\"a\":\"unterminated",
    };
    gw_client *c = test_client(NULL);
    mock_reset();
    int wrong = 0;
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++) {
        size_t len = strlen(bodies[b]);
        for (size_t off = 0; off < 64; off++) {
            for (size_t pad = 0; pad < 34; pad++) {
                char *block = malloc(off + len + pad + 1);
                CHECK(block != NULL);
                if (!block) return;
                char *text = block + off;
                memcpy(text, bodies[b], len);
                memset(text + len, ' ', pad);
                text[len + pad] = '\0';
                char *out = NULL;
                if (gw_chat(c, text, &out) != GW_INVALID_ARGUMENT) wrong++;
                gw_free(out);
                free(block);
            }
        }
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

/* A 1 MiB data-URI image chat goes to the socket from the caller's own memory
 * (src/net/direct_body.rs): the mock records the caller's bytes, every one in its place, for
 * gw_chat and for gw_chat_stream (its text around the "stream":true gw adds). */
static void a_big_body_arrives_as_written(void)
{
    static const char head[] = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":["
                               "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,";
    static const char tail[] = "\"}}]}]}";
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t data = (size_t)1 << 20;
    char *body = malloc(sizeof head - 1 + data + sizeof tail);
    CHECK(body != NULL);
    if (!body) return;
    memcpy(body, head, sizeof head - 1);
    char *d = body + sizeof head - 1;
    for (size_t i = 0; i < data; i++) d[i] = b64[(i * 31 + (i >> 7) + (i >> 17)) % 64];
    memcpy(d + data, tail, sizeof tail);

    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, body, &out), GW_OK);
    gw_free(out);
    out = NULL;
    CHECK_STATUS(gw_chat_stream(c, body, NULL, NULL, &out), GW_OK);
    gw_free(out);

    /* The mock's record holds each body twice, as text and parsed; base64 needs no escape. */
    char *requests = mock_requests();
    CHECK_EQ_INT(mock_request_count(), 2);
    d[data] = '\0';
    CHECK_EQ_INT(count_substr(requests, d), 4);
    CHECK_STR_CONTAINS(requests, "}}]}],\\\"stream\\\":true}");
    gw_free(requests);
    free(body);
    gw_client_free(c);
}

void run_chat_tests(void)
{
    RUN(chat_answers_with_a_completion);
    RUN(chat_with_stream_true_is_refused);
    RUN(broken_limits_are_refused_before_sending);
    RUN(open_reasoning_efforts_reach_the_gateway);
    RUN(validate_false_lets_the_server_judge);
    RUN(request_json_is_read_within_its_bytes);
    RUN(a_big_body_arrives_as_written);
}
