/* The JSON helpers for C callers: gw_json_quote, gw_json_get; and gw_embedding_decode_err. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

/* The model name from issue 22: spliced into a request unquoted, it adds a field. */
#define INJECTION "m\", \"temperature\": 9, \"x\": \""

static void quote_escapes_what_json_needs(void)
{
    char *out = NULL;
    CHECK_STATUS(gw_json_quote("say \"hi\"\\\n\t\x01 caf\xc3\xa9 \xe2\x82\xac/", &out), GW_OK);
    CHECK(out != NULL && strcmp(out, "\"say \\\"hi\\\"\\\\\\n\\t\\u0001 caf\xc3\xa9 \xe2\x82\xac/\"") == 0);
    if (out != NULL && strcmp(out, "\"say \\\"hi\\\"\\\\\\n\\t\\u0001 caf\xc3\xa9 \xe2\x82\xac/\"") != 0)
        harness_fail(__FILE__, __LINE__, "quoted: %s", out);
    gw_free(out);

    CHECK_STATUS(gw_json_quote("", &out), GW_OK);
    CHECK(out != NULL && strcmp(out, "\"\"") == 0);
    gw_free(out);

    /* Round trip: what gw_json_quote writes, gw_json_get reads back unchanged. */
    char *quoted = NULL;
    CHECK_STATUS(gw_json_quote(INJECTION, &quoted), GW_OK);
    CHECK_STATUS(gw_json_get(quoted, "", &out), GW_OK);
    CHECK(out != NULL && strcmp(out, INJECTION) == 0);
    gw_free(out);
    gw_free(quoted);
}

static void quote_refuses_null_and_invalid_utf8(void)
{
    char *out = NULL;
    CHECK_STATUS(gw_json_quote(NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "\"param\":\"text\"");
    gw_free(out);
    CHECK_STATUS(gw_json_quote("ab\xff", &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "UTF-8");
    CHECK_STR_CONTAINS(gw_last_error(), "UTF-8");
    gw_free(out);
    CHECK_STATUS(gw_json_quote("ok", NULL), GW_OK); /* out may be NULL */
}

/* Issue 22's injection, through gw_json_quote: the model name arrives as one string and no
 * field is added. Spliced in raw, the same name adds "temperature": 9 (refused here). */
static void quoted_user_text_cannot_inject_a_field(void)
{
    gw_client *c = test_client(NULL);
    if (c == NULL) return;
    const char *format =
        "{\"model\": %s, \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}";
    char request[512];

    /* The bug the issue shows: printf around unquoted text. */
    char *out = NULL;
    snprintf(request, sizeof request, format, "\"" INJECTION "\"");
    CHECK_STATUS(gw_chat(c, request, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "temperature");
    gw_free(out);

    /* The fix: quote it. */
    char *model = NULL;
    CHECK_STATUS(gw_json_quote(INJECTION, &model), GW_OK);
    CHECK_STR_CONTAINS(model, "\"m\\\", \\\"temperature\\\": 9, \\\"x\\\": \\\"\"");
    snprintf(request, sizeof request, format, model ? model : "null");
    gw_free(model);
    mock_reset();
    CHECK_STATUS(gw_chat(c, request, &out), GW_OK);
    gw_free(out);

    char *requests = mock_requests();
    char *sent_model = NULL;
    CHECK_STATUS(gw_json_get(requests, "0.json.model", &sent_model), GW_OK);
    CHECK(sent_model != NULL && strcmp(sent_model, INJECTION) == 0);
    if (sent_model != NULL && strcmp(sent_model, INJECTION) != 0)
        harness_fail(__FILE__, __LINE__, "the gateway got model %s", sent_model);
    CHECK_STATUS(gw_json_get(requests, "0.json.temperature", &out), GW_ABSENT);
    CHECK_STATUS(gw_json_get(requests, "0.json.x", &out), GW_ABSENT);
    gw_free(sent_model);
    gw_free(requests);
    gw_client_free(c);
}

/* The paths the issue names, on real answers from the mock. */
static void get_reads_answers_by_path(void)
{
    gw_client *c = test_client(NULL);
    if (c == NULL) return;
    char *out = NULL, *value = NULL;

    CHECK_STATUS(gw_chat(c, "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", "
                            "\"content\": \"quote \\\"me\\\"\"}]}", &out), GW_OK);
    CHECK_STATUS(gw_json_get(out, "choices.0.message.content", &value), GW_OK);
    CHECK_STR_CONTAINS(value, "quote \"me\""); /* unescaped */
    gw_free(value);
    CHECK_STATUS(gw_json_get(out, "choices[0].message.role", &value), GW_OK);
    CHECK(value != NULL && strcmp(value, "assistant") == 0);
    gw_free(value);
    CHECK_STATUS(gw_json_get(out, "/choices/0/message/role", &value), GW_OK);
    CHECK(value != NULL && strcmp(value, "assistant") == 0);
    gw_free(value);
    /* A number as written, an object as JSON. */
    CHECK_STATUS(gw_json_get(out, "usage.total_tokens", &value), GW_OK);
    CHECK(value != NULL && value[0] >= '0' && value[0] <= '9');
    gw_free(value);
    CHECK_STATUS(gw_json_get(out, "usage", &value), GW_OK);
    CHECK(value != NULL && value[0] == '{');
    CHECK_STR_CONTAINS(value, "\"total_tokens\":");
    gw_free(value);
    gw_free(out);

    CHECK_STATUS(gw_image_generate(c, "{\"model\": \"img\", \"prompt\": \"a cat\"}", &out), GW_OK);
    CHECK_STATUS(gw_json_get(out, "data.0.url", &value), GW_OK);
    CHECK(value != NULL && strncmp(value, "http", 4) == 0);
    gw_free(value);
    gw_free(out);

    /* A refused request's error object. */
    CHECK_STATUS(gw_chat(c, "{\"model\": \"m\", \"messages\": []}", &out), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_json_get(out, "error.message", &value), GW_OK);
    CHECK_STR_CONTAINS(value, "messages");
    CHECK(value != NULL && value[0] != '"');
    gw_free(value);
    CHECK_STATUS(gw_json_get(out, "error.status", &value), GW_OK);
    CHECK(value != NULL && strcmp(value, "-1") == 0);
    gw_free(value);
    gw_free(out);
    gw_client_free(c);
}

/* GW_ABSENT (not an error, *out NULL) vs GW_DECODE (not JSON) vs GW_INVALID_ARGUMENT. */
static void get_tells_absent_from_not_json(void)
{
    const char *doc = "{\"a\": {\"b\": [10, {\"c\": null}]}, \"s\": \"x\", \"k.d\": 1}";
    char *out = (char *)1;

    gw_json_quote(NULL, NULL); /* leaves a last error behind */
    const char *paths[] = {"missing", "a.b.2", "a.b.1.c", "a.b.x", "s.0", "a.b.01", "k.d"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        out = (char *)1;
        int rc = gw_json_get(doc, paths[i], &out);
        if (rc != GW_ABSENT || out != NULL)
            harness_fail(__FILE__, __LINE__, "%s: %s, out %s", paths[i], gw_status_str(rc),
                         out ? "set" : "NULL");
        if (rc == GW_OK) gw_free(out);
    }
    CHECK_STR_CONTAINS(gw_last_error(), "text"); /* GW_ABSENT is not a failure */
    CHECK(strcmp(gw_status_str(GW_ABSENT), "GW_ABSENT") == 0);

    CHECK_STATUS(gw_json_get(doc, "/k.d", &out), GW_OK);
    CHECK(out != NULL && strcmp(out, "1") == 0);
    gw_free(out);
    CHECK_STATUS(gw_json_get(doc, "a.b[0]", &out), GW_OK);
    CHECK(out != NULL && strcmp(out, "10") == 0);
    gw_free(out);

    const char *not_json[] = {"", "{\"a\": 1", "{\"a\": 1} trailing", "<html>", "{'a': 1}"};
    for (size_t i = 0; i < sizeof not_json / sizeof not_json[0]; i++) {
        int rc = gw_json_get(not_json[i], "a", &out);
        if (rc != GW_DECODE) harness_fail(__FILE__, __LINE__, "%s: %s", not_json[i], gw_status_str(rc));
        CHECK_STR_CONTAINS(out, "\"code\":\"decode\"");
        gw_free(out);
    }

    CHECK_STATUS(gw_json_get(NULL, "a", &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "\"param\":\"json\"");
    gw_free(out);
    CHECK_STATUS(gw_json_get(doc, NULL, &out), GW_INVALID_ARGUMENT);
    gw_free(out);
    CHECK_STATUS(gw_json_get(doc, "a..b", &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "\"param\":\"path\"");
    gw_free(out);
    CHECK_STATUS(gw_json_get(doc, "a[x]", NULL), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_json_get(doc, "s", NULL), GW_OK); /* out may be NULL */
}

static void embedding_decode_err_reports_through_err_json(void)
{
    float *floats = (float *)1;
    size_t n = 99;
    char *err = (char *)1;
    CHECK_STATUS(gw_embedding_decode_err("AACAPwAAIMA=", &floats, &n, &err), GW_OK);
    CHECK_EQ_INT(n, 2);
    CHECK(err == NULL);
    CHECK(floats != NULL && floats[0] == 1.0f && floats[1] == -2.5f);
    gw_free(floats);

    CHECK_STATUS(gw_embedding_decode_err("", &floats, &n, &err), GW_OK);
    CHECK(floats != NULL && n == 0 && err == NULL);
    gw_free(floats);

    CHECK_STATUS(gw_embedding_decode_err("AAAA", &floats, &n, &err), GW_INVALID_ARGUMENT);
    CHECK(floats == NULL && n == 0);
    CHECK_STR_CONTAINS(err, "\"code\":\"invalid_argument\"");
    CHECK_STR_CONTAINS(err, "\"param\":\"base64\"");
    CHECK_STR_CONTAINS(err, "float32");
    gw_free(err);

    CHECK_STATUS(gw_embedding_decode_err(NULL, &floats, &n, &err), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "base64");
    gw_free(err);
    CHECK_STATUS(gw_embedding_decode_err("AACAPw==", NULL, &n, &err), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "out_floats");
    CHECK(n == 0);
    gw_free(err);
    CHECK_STATUS(gw_embedding_decode_err("AACAPw==", &floats, NULL, &err), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err, "out_len");
    CHECK(floats == NULL);
    gw_free(err);
    CHECK_STATUS(gw_embedding_decode_err("!!", &floats, &n, NULL), GW_INVALID_ARGUMENT);
}

void run_json_tests(void)
{
    RUN(quote_escapes_what_json_needs);
    RUN(quote_refuses_null_and_invalid_utf8);
    RUN(quoted_user_text_cannot_inject_a_field);
    RUN(get_reads_answers_by_path);
    RUN(get_tells_absent_from_not_json);
    RUN(embedding_decode_err_reports_through_err_json);
}
