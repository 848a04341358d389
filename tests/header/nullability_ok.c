/*
 * NULL wherever gw.h says GW_NULLABLE: scripts/test-header.sh compiles this with clang
 * -Wnonnull -Wnullable-to-nonnull-conversion -Wnullability-completeness -Werror, so a
 * pointer wrongly left non-null in the header fails the build of this file.
 */
#include <stddef.h>

#include "gw.h"

void null_where_allowed(const gw_client *c, const gw_file *image, gw_stream *s);

void null_where_allowed(const gw_client *c, const gw_file *image, gw_stream *s)
{
    gw_client *made = NULL;
    gw_stream *opened = NULL;
    const gw_event *event = NULL;
    static const uint8_t bytes[] = {1, 2, 3};
    gw_file f = {sizeof(gw_file), bytes, sizeof bytes, NULL, NULL};

    gw_client_free(gw_client_new(NULL, NULL));
    gw_client_free(gw_client_new_with_options(NULL));
    gw_client_free(NULL);
    gw_free(NULL);
    gw_chat(c, "{}", NULL);
    gw_chat_stream(c, "{}", NULL, NULL, NULL);
    gw_responses_stream(c, "{}", NULL, NULL, NULL);
    gw_image_edit_upload(c, "{}", image, NULL, NULL);
    gw_image_edit_upload(c, "{}", &f, NULL, NULL);
    gw_request(c, "GET", "/v1/models", NULL, NULL);
    gw_video_wait(c, GW_VIDEO_UNIFIED, "task", NULL, NULL, NULL, NULL);

    gw_client_create(NULL, &made, NULL);
    gw_client_free(made);
    gw_client_free(gw_client_derive(c, NULL));
    gw_client_create_derived(c, NULL, &made, NULL);
    gw_client_last_response(c, NULL);
    gw_set_logger(NULL, NULL, GW_LOG_INFO);
    gw_chat_stream_open(c, "{}", &opened, NULL);
    gw_stream_next(s, &event);
    gw_stream_finish(s, NULL);
    gw_stream_free(NULL);
    /* Documented as "NULL is fine"; the pointer is const like every other call's. */
    gw_client_cancel(NULL);
    gw_client_cancel(c);
    gw_json_quote("text", NULL);
    gw_json_get("{}", "a.b", NULL);
    {
        float *floats = NULL;
        size_t n = 0;
        gw_embedding_decode_err("AAAA", &floats, &n, NULL);
        gw_free(floats);
    }
}
