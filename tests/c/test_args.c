/*
 * Every export refuses unusable arguments with GW_INVALID_ARGUMENT, the error JSON in *out and
 * a non-empty gw_last_error(), sends nothing, and accepts out == NULL.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

typedef int (*json_export)(const gw_client *, const char *, char **);

static const struct {
    const char *name;
    json_export fn;
} EXPORTS[] = {
    {"gw_chat", gw_chat},
    {"gw_responses", gw_responses},
    {"gw_embeddings", gw_embeddings},
    {"gw_image_generate", gw_image_generate},
    {"gw_image_edit", gw_image_edit},
    {"gw_video_create", gw_video_create},
    {"gw_video_generate", gw_video_generate},
    {"gw_video_character", gw_video_character},
    {"gw_vendor_k_text2video", gw_vendor_k_text2video},
    {"gw_vendor_k_image2video", gw_vendor_k_image2video},
    {"gw_vendor_k_multi_image2video", gw_vendor_k_multi_image2video},
    {"gw_vendor_k_effects", gw_vendor_k_effects},
    {"gw_vendor_k_extend", gw_vendor_k_extend},
    {"gw_vendor_h_image_to_video", gw_vendor_h_image_to_video},
    {"gw_vendor_m_imagine", gw_vendor_m_imagine},
    {"gw_vendor_i_describe", gw_vendor_i_describe},
    {"gw_vendor_i_generate", gw_vendor_i_generate},
    {"gw_vendor_i_text_to_image", gw_vendor_i_text_to_image},
};
#define N_EXPORTS (sizeof EXPORTS / sizeof EXPORTS[0])

/* Request texts no export may accept, and a word the message must hold. */
static const struct {
    const char *json;
    const char *says;
} BAD_REQUESTS[] = {
    {NULL, "must not be NULL"},
    {"\xff\xfe{}", "UTF-8"},
    {"{\"model\": ", "invalid JSON"},
    {"[1, 2]", "JSON object"},
    {"\"text\"", "JSON object"},
};
#define N_BAD (sizeof BAD_REQUESTS / sizeof BAD_REQUESTS[0])

/* Checks one refused call: status, error JSON and gw_last_error; frees *out. (out is passed
 * by address because the call that fills it is an argument of the same call.) */
static void check_refused(const char *what, int rc, char **outp, const char *says)
{
    char *out = *outp;
    *outp = NULL;
    if (rc != GW_INVALID_ARGUMENT) printf("    in %s\n", what);
    CHECK_STATUS(rc, GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "\"status\":-1");
    CHECK_STR_CONTAINS(out, "\"type\":\"invalid_request_error\"");
    CHECK_STR_CONTAINS(out, "\"code\":\"invalid_argument\"");
    CHECK_STR_CONTAINS(out, says);
    CHECK(strlen(gw_last_error()) > 0);
    CHECK_STR_CONTAINS(gw_last_error(), says);
    gw_free(out);
}

static void json_exports_refuse_null_client(void)
{
    for (size_t i = 0; i < N_EXPORTS; i++) {
        char *out = NULL;
        int rc = EXPORTS[i].fn(NULL, "{}", &out);
        check_refused(EXPORTS[i].name, rc, &out, "client");
        CHECK_STATUS(EXPORTS[i].fn(NULL, "{}", NULL), GW_INVALID_ARGUMENT);
    }
}

static void json_exports_refuse_bad_request_text(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    for (size_t i = 0; i < N_EXPORTS; i++) {
        for (size_t j = 0; j < N_BAD; j++) {
            char *out = NULL;
            int rc = EXPORTS[i].fn(c, BAD_REQUESTS[j].json, &out);
            check_refused(EXPORTS[i].name, rc, &out, BAD_REQUESTS[j].says);
            CHECK_STATUS(EXPORTS[i].fn(c, BAD_REQUESTS[j].json, NULL), GW_INVALID_ARGUMENT);
        }
    }
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

static int never_called(const gw_event *ev, void *user_data)
{
    (void)ev;
    *(int *)user_data += 1;
    return 0;
}

static void stream_exports_refuse_bad_arguments(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    int calls = 0;
    char *out = NULL;
    check_refused("gw_chat_stream", gw_chat_stream(NULL, "{}", never_called, &calls, &out), &out,
                  "client");
    check_refused("gw_responses_stream",
                  gw_responses_stream(NULL, "{}", never_called, &calls, &out), &out, "client");
    for (size_t j = 0; j < N_BAD; j++) {
        check_refused("gw_chat_stream",
                      gw_chat_stream(c, BAD_REQUESTS[j].json, never_called, &calls, &out), &out,
                      BAD_REQUESTS[j].says);
        check_refused("gw_responses_stream",
                      gw_responses_stream(c, BAD_REQUESTS[j].json, never_called, &calls, &out),
                      &out, BAD_REQUESTS[j].says);
        CHECK_STATUS(gw_chat_stream(c, BAD_REQUESTS[j].json, NULL, NULL, NULL),
                     GW_INVALID_ARGUMENT);
    }
    CHECK_EQ_INT(calls, 0);
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

static void path_parameter_exports_refuse_bad_arguments(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    const char *edit = "{\"image\": \"https://x.example/a.png\", \"prompt\": \"p\"}";
    const char *native = "{\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}]}";
    char *out = NULL;

    check_refused("gw_vendor_f_edit", gw_vendor_f_edit(NULL, "slug", edit, &out), &out, "client");
    check_refused("gw_vendor_f_edit", gw_vendor_f_edit(c, NULL, edit, &out), &out, "model_slug");
    check_refused("gw_vendor_f_edit", gw_vendor_f_edit(c, "\xff", edit, &out), &out, "UTF-8");
    check_refused("gw_vendor_f_edit", gw_vendor_f_edit(c, "slug", "[]", &out), &out, "JSON object");

    check_refused("gw_generate_content", gw_generate_content(NULL, "m", native, &out), &out, "client");
    check_refused("gw_generate_content", gw_generate_content(c, NULL, native, &out), &out, "model");
    check_refused("gw_generate_content", gw_generate_content(c, "m", "{", &out), &out, "invalid JSON");

    check_refused("gw_video_status", gw_video_status(NULL, GW_VIDEO_UNIFIED, "id", &out), &out, "client");
    check_refused("gw_video_status", gw_video_status(c, GW_VIDEO_UNIFIED, NULL, &out), &out, "task_id");
    check_refused("gw_video_status", gw_video_status(c, GW_VIDEO_UNIFIED, "\xc3", &out), &out, "UTF-8");
    /* An empty id is refused naming the C argument, as NULL is. */
    check_refused("gw_video_status", gw_video_status(c, GW_VIDEO_UNIFIED, "", &out), &out, "task_id");
    check_refused("gw_video_status", gw_video_status(c, GW_VIDEO_VENDOR_R, "", &out), &out, "task_id");

    check_refused("gw_video_remix", gw_video_remix(NULL, "video_1", "{}", &out), &out, "client");
    check_refused("gw_video_remix", gw_video_remix(c, NULL, "{\"prompt\": \"p\"}", &out), &out, "video_id");
    check_refused("gw_video_remix", gw_video_remix(c, "video_1", "1", &out), &out, "JSON object");
    check_refused("gw_video_remix", gw_video_remix(c, "", "{\"prompt\": \"p\"}", &out), &out, "video_id");
    check_refused("gw_vendor_f_edit", gw_vendor_f_edit(c, "", edit, &out), &out, "model_slug");
    check_refused("gw_generate_content", gw_generate_content(c, "", native, &out), &out, "model");

    CHECK_STATUS(gw_video_remix(c, NULL, "{}", NULL), GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

static void image_upload_refuses_bad_arguments(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    static const uint8_t png[] = {0x89, 'P', 'N', 'G'};
    gw_file image = {sizeof(gw_file), png, sizeof png, "a.png", "image/png"};
    const char *req = "{\"model\": \"m\", \"prompt\": \"p\"}";
    char *out = NULL;
    check_refused("gw_image_edit_upload", gw_image_edit_upload(NULL, req, &image, NULL, &out), &out, "client");
    check_refused("gw_image_edit_upload", gw_image_edit_upload(c, req, NULL, NULL, &out), &out, "image");
    check_refused("gw_image_edit_upload", gw_image_edit_upload(c, "{", &image, NULL, &out), &out, "invalid JSON");
    gw_file no_bytes = {sizeof(gw_file), NULL, 4, "a.png", "image/png"};
    check_refused("gw_image_edit_upload", gw_image_edit_upload(c, req, &no_bytes, NULL, &out), &out, "image.data");
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

/* struct_size tells gw which gw_file the caller was built with: a size it does not know
 * (0 from a zeroed struct, or another version's) is refused, naming the field. */
static void image_upload_refuses_unknown_struct_size(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    static const uint8_t png[] = {0x89, 'P', 'N', 'G'};
    const char *req = "{\"model\": \"m\", \"prompt\": \"p\"}";
    const size_t bad_sizes[] = {0, sizeof(gw_file) - 1, sizeof(gw_file) + sizeof(void *)};
    gw_file good = {sizeof(gw_file), png, sizeof png, "a.png", "image/png"};
    char *out = NULL;
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        gw_file bad = good;
        bad.struct_size = bad_sizes[i];
        check_refused("gw_image_edit_upload", gw_image_edit_upload(c, req, &bad, NULL, &out), &out,
                      "image.struct_size");
        check_refused("gw_image_edit_upload", gw_image_edit_upload(c, req, &good, &bad, &out), &out,
                      "mask.struct_size");
    }
    /* The message says what the size should be. */
    gw_file zeroed = {0};
    CHECK_STATUS(gw_image_edit_upload(c, req, &zeroed, NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "sizeof(gw_file)");
    gw_free(out);
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

static void request_refuses_bad_arguments(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    check_refused("gw_request", gw_request(NULL, "GET", "/v1/x", NULL, &out), &out, "client");
    check_refused("gw_request", gw_request(c, NULL, "/v1/x", NULL, &out), &out, "method");
    check_refused("gw_request", gw_request(c, "DELETE", "/v1/x", NULL, &out), &out, "method");
    check_refused("gw_request", gw_request(c, "GET", NULL, NULL, &out), &out, "path");
    check_refused("gw_request", gw_request(c, "GET", "v1/x", NULL, &out), &out, "path");
    check_refused("gw_request", gw_request(c, "POST", "/v1/x", "{oops", &out), &out, "invalid JSON");
    check_refused("gw_request", gw_request(c, "POST", "/v1/x", "\xff", &out), &out, "UTF-8");
    check_refused("gw_request", gw_request(c, "POST", "/v1/x", "[]", &out), &out, "JSON object");
    check_refused("gw_request", gw_request(c, "GET", "/v1/x", "{}", &out), &out, "body");
    CHECK_STATUS(gw_request(c, NULL, NULL, NULL, NULL), GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

void run_args_tests(void)
{
    RUN(json_exports_refuse_null_client);
    RUN(json_exports_refuse_bad_request_text);
    RUN(stream_exports_refuse_bad_arguments);
    RUN(path_parameter_exports_refuse_bad_arguments);
    RUN(image_upload_refuses_bad_arguments);
    RUN(image_upload_refuses_unknown_struct_size);
    RUN(request_refuses_bad_arguments);
}
