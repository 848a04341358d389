/*
 * NULL (or a maybe-NULL pointer) where gw.h says non-null: scripts/test-header.sh compiles
 * this with clang -Wnonnull -Wnullable-to-nonnull-conversion and checks that clang warns on
 * exactly the lines marked "warns" below, so the annotations are really there.
 */
#include <stddef.h>

#include "gw.h"

void misuse(const gw_client *c, const gw_event *e, gw_stream *s);

void misuse(const gw_client *c, const gw_event *e, gw_stream *s)
{
    char *out = NULL;
    size_t n = 0;
    const char *_Nonnull name;

    gw_chat(NULL, "{}", &out);                        /* warns: client */
    gw_chat(c, NULL, &out);                           /* warns: request_json */
    gw_request(c, NULL, "/v1/models", NULL, &out);    /* warns: method */
    gw_image_edit_upload(c, "{}", NULL, NULL, &out);  /* warns: image */
    gw_embedding_decode("AAAA", NULL, &n);            /* warns: out_floats */
    gw_chat(gw_client_new(NULL, NULL), "{}", &out);   /* warns: the new client may be NULL */
    name = e->text_delta;                             /* warns: text_delta may be NULL */
    gw_client_create(NULL, NULL, &out);               /* warns: the client out-parameter */
    gw_stream_next(s, NULL);                          /* warns: the event out-parameter */
    gw_json_quote(NULL, &out);                        /* warns: text */
    gw_json_get(NULL, "a", &out);                     /* warns: json */
    gw_json_get("{}", NULL, &out);                    /* warns: path */
    gw_embedding_decode_err("AAAA", NULL, &n, &out);  /* warns: out_floats */
    name = e->event;
    (void)name;
    gw_chat(c, "{}", &out);
}
