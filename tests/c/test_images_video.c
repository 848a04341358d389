/* Image generation, and video tasks of every family polled until they finish. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

static const char *IMAGE_OK = "{\"model\": \"img\", \"prompt\": \"a red fox\", \"size\": \"1024x1024\", \"seed\": 42, \"guidance_scale\": 2.5}";

static void image_generation_gives_a_url(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    CHECK_STATUS(gw_image_generate(c, IMAGE_OK, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"url\":\"https://images.example/gen/");
    CHECK_STR_CONTAINS(out, "\"model\":\"img\"");
    CHECK_STR_CONTAINS(out, "\"generated_images\":1");
    gw_free(out);
    gw_client_free(c);
}

static void image_limits_are_checked(void)
{
    static const struct {
        const char *json;
        const char *field;
    } broken[] = {
        {"{\"model\": \"img\", \"prompt\": \"p\", \"seed\": 2147483648}", "seed"},
        {"{\"model\": \"img\", \"prompt\": \"p\", \"seed\": -2}", "seed"},
        {"{\"model\": \"img\", \"prompt\": \"p\", \"guidance_scale\": 11}", "guidance_scale"},
        {"{\"model\": \"img\", \"prompt\": \"p\", \"size\": \"1024x\"}", "size"},
        {"{\"model\": \"img\"}", "prompt"},
    };
    gw_client *c = test_client(NULL);
    mock_reset();
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        char *out = NULL;
        int rc = gw_image_generate(c, broken[i].json, &out);
        if (rc != GW_INVALID_ARGUMENT) printf("    request %s\n", broken[i].json);
        CHECK_STATUS(rc, GW_INVALID_ARGUMENT);
        CHECK_STR_CONTAINS(out, "\"status\":-1");
        CHECK_STR_CONTAINS(out, broken[i].field);
        CHECK_STR_CONTAINS(gw_last_error(), broken[i].field);
        gw_free(out);
    }
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

/* Copies the string value of "key" (first occurrence) into buf; 0 when absent. */
static int string_field(const char *json, const char *key, char *buf, size_t size)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *p = json ? strstr(json, pattern) : NULL;
    if (p == NULL) return 0;
    p += strlen(pattern);
    size_t n = strcspn(p, "\"");
    if (n >= size) n = size - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return 1;
}

/*
 * Polls a task until `key` takes one of the terminal values; returns the polls it took
 * (0 on error). The last record is left in *last (freed by the caller).
 */
static int poll_until(gw_client *c, int family, const char *id, const char *key,
                      const char *done, const char *failed, char **last)
{
    char status[64] = "";
    for (int poll = 1; poll <= 10; poll++) {
        char *out = NULL;
        int rc = gw_video_status(c, family, id, &out);
        CHECK_STATUS(rc, GW_OK);
        if (rc != GW_OK || !string_field(out, key, status, sizeof status)) {
            harness_fail(__FILE__, __LINE__, "no %s in %s", key, harness_show(out));
            gw_free(out);
            return 0;
        }
        if (strcmp(status, done) == 0 || strcmp(status, failed) == 0) {
            *last = out;
            return poll;
        }
        gw_free(out);
    }
    harness_fail(__FILE__, __LINE__, "task %s still '%s' after 10 polls", id, status);
    return 0;
}

/* A gw_file set up as the header says (struct_size first) reaches the mock as file parts;
 * a NULL filename or content type takes gw's defaults. */
static void image_upload_sends_both_files(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0x00, 0xff};
    static const uint8_t mask_bytes[] = {0x89, 'P', 'N', 'G', 'M'};
    gw_file image = {sizeof(gw_file), png, sizeof png, "fox.png", "image/png"};
    gw_file mask = {sizeof(gw_file), mask_bytes, sizeof mask_bytes, NULL, NULL};
    char *out = NULL;
    CHECK_STATUS(gw_image_edit_upload(c, "{\"model\": \"edit\", \"prompt\": \"remove the sky\"}",
                                      &image, &mask, &out),
                 GW_OK);
    CHECK_STR_CONTAINS(out, "Edited: remove the sky");
    gw_free(out);

    char *requests = mock_requests();
    CHECK_EQ_INT(count_substr(requests, "\"path\":\"/v1/images/edits\""), 1);
    CHECK_STR_CONTAINS(requests, "\"name\":\"image\",\"filename\":\"fox.png\",\"content_type\":\"image/png\",\"size\":10");
    CHECK_STR_CONTAINS(requests, "\"name\":\"mask\",\"filename\":\"mask.png\",\"content_type\":\"application/octet-stream\",\"size\":5");
    gw_free(requests);
    gw_client_free(c);
}

/* Issue 39: a null member is "not given": it is left out of the form, never sent as the
 * text null (which the document's integer n refuses, as gw-mock does). An array or object
 * field is JSON text, so the nulls inside it are sent as JSON. */
static void image_upload_leaves_null_members_out(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    gw_file image = {sizeof(gw_file), png, sizeof png, "fox.png", "image/png"};
    char *out = NULL;
    CHECK_STATUS(gw_image_edit_upload(c,
                                      "{\"model\": \"edit\", \"prompt\": \"sepia\", \"n\": null, "
                                      "\"background\": null, \"stops\": [\"a\", null], \"metadata\": {\"k\": null}}",
                                      &image, NULL, &out),
                 GW_OK);
    CHECK_STR_CONTAINS(out, "Edited: sepia");
    gw_free(out);

    char *requests = mock_requests();
    CHECK_EQ_INT(count_substr(requests, "\"path\":\"/v1/images/edits\""), 1);
    CHECK_EQ_INT(count_substr(requests, "\"name\":\"n\""), 0);
    CHECK_EQ_INT(count_substr(requests, "\"name\":\"background\""), 0);
    CHECK_EQ_INT(count_substr(requests, "\"text\":\"null\""), 0);
    CHECK_EQ_INT(count_substr(requests, "\"name\":\"image\""), 1);
    CHECK_STR_CONTAINS(requests, "\"name\":\"stops\",\"filename\":null,\"content_type\":null,\"size\":10,"
                                 "\"text\":\"[\\\"a\\\",null]\"");
    CHECK_STR_CONTAINS(requests, "\"text\":\"{\\\"k\\\":null}\"");
    gw_free(requests);

    /* `image: null` is not given either, so it does not clash with the image file. */
    mock_reset();
    CHECK_STATUS(gw_image_edit_upload(c, "{\"model\": \"edit\", \"prompt\": \"p\", \"image\": null, \"mask\": null}",
                                      &image, NULL, &out),
                 GW_OK);
    gw_free(out);
    requests = mock_requests();
    CHECK_EQ_INT(count_substr(requests, "\"name\":\"image\",\"filename\":\"fox.png\""), 1);
    CHECK_EQ_INT(count_substr(requests, "\"name\":\"mask\""), 0);
    gw_free(requests);
    gw_client_free(c);
}

static void unified_video_is_polled_to_success(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL, id[64] = "";
    CHECK_STATUS(gw_video_create(c, "{\"model\": \"vid\", \"prompt\": \"a boat\", \"duration\": 5}", &out), GW_OK);
    CHECK(string_field(out, "task_id", id, sizeof id));
    gw_free(out);

    char *last = NULL;
    CHECK_EQ_INT(poll_until(c, GW_VIDEO_UNIFIED, id, "status", "succeeded", "failed", &last), 3);
    CHECK_STR_CONTAINS(last, "\"status\":\"succeeded\"");
    CHECK_STR_CONTAINS(last, "\"video_url\":\"https://videos.example/");
    gw_free(last);

    char *requests = mock_requests();
    char path[128];
    snprintf(path, sizeof path, "\"path\":\"/v1/video/generations/%s\"", id);
    CHECK_EQ_INT(count_substr(requests, path), 3);
    gw_free(requests);
    gw_client_free(c);
}

static void unified_video_can_end_failed(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL, id[64] = "";
    CHECK_STATUS(gw_video_create(c, "{\"model\": \"vid\", \"prompt\": \"please fail\"}", &out), GW_OK);
    CHECK(string_field(out, "task_id", id, sizeof id));
    gw_free(out);
    char *last = NULL;
    CHECK(poll_until(c, GW_VIDEO_UNIFIED, id, "status", "succeeded", "failed", &last) > 0);
    CHECK_STR_CONTAINS(last, "\"status\":\"failed\"");
    CHECK_STR_CONTAINS(last, "generation_failed");
    gw_free(last);
    gw_client_free(c);
}

static void character_video_is_polled_to_completion(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL, id[64] = "";
    CHECK_STATUS(gw_video_character(c, "{\"model\": \"vid\", \"prompt\": \"a dance\", \"character_id\": \"char_1\"}", &out), GW_OK);
    CHECK(string_field(out, "id", id, sizeof id));
    gw_free(out);
    char *last = NULL;
    CHECK(poll_until(c, GW_VIDEO_CHARACTER, id, "status", "completed", "failed", &last) > 0);
    CHECK_STR_CONTAINS(last, "\"status\":\"completed\"");
    CHECK_STR_CONTAINS(last, "\"character_id\":\"char_1\"");
    CHECK_STR_CONTAINS(last, "\"video_url\":\"https://videos.example/");
    gw_free(last);
    gw_client_free(c);
}

static void vendor_k_video_is_polled_to_success(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL, id[64] = "";
    CHECK_STATUS(gw_vendor_k_text2video(c, "{\"prompt\": \"a comet\", \"duration\": 5}", &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"code\":0");
    CHECK(string_field(out, "task_id", id, sizeof id));
    gw_free(out);
    char *last = NULL;
    CHECK(poll_until(c, GW_VIDEO_VENDOR_K, id, "task_status", "succeed", "failed", &last) > 0);
    CHECK_STR_CONTAINS(last, "\"task_status\":\"succeed\"");
    CHECK_STR_CONTAINS(last, "\"url\":\"https://videos.example/");
    gw_free(last);
    gw_client_free(c);
}

static void vendor_r_task_is_polled_to_success(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *last = NULL;
    CHECK(poll_until(c, GW_VIDEO_VENDOR_R, "any-task-42", "status", "SUCCEEDED", "FAILED", &last) > 0);
    CHECK_STR_CONTAINS(last, "\"status\":\"SUCCEEDED\"");
    CHECK_STR_CONTAINS(last, "https://videos.example/any-task-42.mp4");
    gw_free(last);

    /* The id is URL-encoded: any text is safe in the path. */
    char *out = NULL;
    CHECK_STATUS(gw_video_status(c, GW_VIDEO_VENDOR_R, "a b/c?d", &out), GW_OK);
    gw_free(out);
    char *requests = mock_requests();
    CHECK_STR_CONTAINS(requests, "\"path\":\"/vendorR/task/a%20b%2Fc%3Fd\"");
    gw_free(requests);
    gw_client_free(c);
}

static void invalid_family_is_refused(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    const int families[] = {-1, 4, 99};
    for (size_t i = 0; i < 3; i++) {
        char *out = NULL;
        CHECK_STATUS(gw_video_status(c, families[i], "vtask_1", &out), GW_INVALID_ARGUMENT);
        CHECK_STR_CONTAINS(out, "family");
        CHECK_STR_CONTAINS(out, "\"status\":-1");
        CHECK_STR_CONTAINS(gw_last_error(), "family");
        gw_free(out);
    }
    CHECK_STATUS(gw_video_status(c, 42, "vtask_1", NULL), GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

static void unknown_task_is_404(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    CHECK_STATUS(gw_video_status(c, GW_VIDEO_UNIFIED, "vtask_999", &out), GW_NOT_FOUND);
    CHECK_STR_CONTAINS(out, "\"status\":404");
    CHECK_STR_CONTAINS(out, "\"code\":\"not_found\"");
    CHECK_STR_CONTAINS(out, "vtask_999");
    gw_free(out);
    out = NULL;
    CHECK_STATUS(gw_video_status(c, GW_VIDEO_CHARACTER, "video_999", &out), GW_NOT_FOUND);
    CHECK_STR_CONTAINS(out, "not_found");
    gw_free(out);
    out = NULL;
    CHECK_STATUS(gw_video_status(c, GW_VIDEO_VENDOR_K, "k_999", &out), GW_NOT_FOUND);
    gw_free(out);
    gw_client_free(c);
}

/* A vendor body whose own code says failure is GW_VENDOR, with the vendor's body in *out. */
static void vendor_failure_code_is_gw_vendor(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char *out = NULL;
    CHECK_STATUS(gw_vendor_h_image_to_video(c, "{\"image_url\": \"https://x.example/a.png\", \"prompt\": \"vendor-fail\"}", &out),
                 GW_VENDOR);
    CHECK_STR_CONTAINS(out, "\"code\":1001");
    CHECK_STR_CONTAINS(out, "insufficient quota");
    CHECK_STR_CONTAINS(gw_last_error(), "insufficient quota");
    gw_free(out);

    out = NULL;
    CHECK_STATUS(gw_vendor_m_imagine(c, "{\"prompt\": \"vendor-fail\", \"botType\": \"MID_JOURNEY\"}", &out), GW_VENDOR);
    CHECK_STR_CONTAINS(out, "banned prompt");
    gw_free(out);

    /* Their success codes (0 and 1) are GW_OK. */
    out = NULL;
    CHECK_STATUS(gw_vendor_m_imagine(c, "{\"prompt\": \"a cat\", \"botType\": \"MID_JOURNEY\"}", &out), GW_OK);
    CHECK_STR_CONTAINS(out, "\"code\":1");
    gw_free(out);
    gw_client_free(c);
}

void run_images_video_tests(void)
{
    RUN(image_generation_gives_a_url);
    RUN(image_limits_are_checked);
    RUN(image_upload_sends_both_files);
    RUN(image_upload_leaves_null_members_out);
    RUN(unified_video_is_polled_to_success);
    RUN(unified_video_can_end_failed);
    RUN(character_video_is_polled_to_completion);
    RUN(vendor_k_video_is_polled_to_success);
    RUN(vendor_r_task_is_polled_to_success);
    RUN(invalid_family_is_refused);
    RUN(unknown_task_is_404);
    RUN(vendor_failure_code_is_gw_vendor);
}
