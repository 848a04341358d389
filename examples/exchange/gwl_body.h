/*
 * An answer's body as the loop reads it: unframed (Content-Length, chunked, or to the
 * close) and, for Content-Encoding: gzip, inflated (zlib), handed out piece by piece. The
 * caller pulls (gwl_body_next) so it may stop after any piece without the decoder running on:
 * a retry or the call's end drops the answer in the middle of a read.
 */
#ifndef GWL_BODY_H
#define GWL_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "gwl_http.h"

typedef struct gwl_body gwl_body;

/* What gwl_body_next gives. */
enum gwl_body_step {
    GWL_BODY_MORE,  /* the input is used up: read more */
    GWL_BODY_PIECE, /* `*piece` holds decoded bytes (valid until the next call) */
    GWL_BODY_END,   /* the body is over */
    GWL_BODY_ERROR  /* a framing or gzip error: gwl_body_error says what */
};

/* A decoder for a body framed as `head` says; NULL when out of memory. */
gwl_body *gwl_body_new(const gwl_head *head);
void gwl_body_free(gwl_body *body);

/* Gives the next decoded piece of the input `*in` (`*in_len` bytes, advanced as they are
 * used). The input must stay valid until GWL_BODY_MORE: gzip keeps a pointer into it. */
enum gwl_body_step gwl_body_next(gwl_body *body, const uint8_t **in, size_t *in_len,
                                 const uint8_t **piece, size_t *piece_len);

/* The connection closed: the end of a body that runs to the close; for any other framing a
 * body cut short (gwl_body_next then says GWL_BODY_ERROR). */
void gwl_body_closed(gwl_body *body);

const char *gwl_body_error(const gwl_body *body);

/* Bytes the decoder holds for its body (its state, zlib's window and output buffer). */
size_t gwl_body_footprint(const gwl_body *body);

#endif
