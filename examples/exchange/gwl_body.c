/* An answer's body unframed and inflated, pulled piece by piece (gwl_body.h). */
#include "gwl_body.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* zlib's window for gzip (32 KiB) plus its state: what its inflate allocates. */
#define ZLIB_FOOTPRINT (32u * 1024 + 7200)
/* Inflated bytes handed out at a time. */
#define INFLATED_PIECE (16u * 1024)

enum chunk_state { CHUNK_SIZE, CHUNK_EXTENSION, CHUNK_DATA, CHUNK_DATA_END, CHUNK_TRAILER };

struct gwl_body {
    enum gwl_framing framing;
    uint64_t left;      /* bytes left of the body (by length) or of the chunk */
    int closed;         /* the connection closed */
    int framing_done;   /* the last framed byte came */
    const char *error;
    /* chunked */
    enum chunk_state chunk;
    uint64_t chunk_size;
    int size_digits;
    size_t trailer_line; /* bytes of the trailer line so far (0: at a line's start) */
    /* gzip */
    z_stream *z;
    int z_end;          /* the gzip stream ended */
    int z_full;         /* the last inflate filled the output: more may come without input */
    uint8_t *inflated;  /* INFLATED_PIECE bytes */
};

gwl_body *gwl_body_new(const gwl_head *head)
{
    gwl_body *b = calloc(1, sizeof *b);
    if (b == NULL) return NULL;
    b->framing = head->framing;
    b->left = head->framing == GWL_BY_LENGTH ? head->length : 0;
    b->chunk = CHUNK_SIZE;
    if (head->gzip) {
        b->z = calloc(1, sizeof *b->z);
        b->inflated = malloc(INFLATED_PIECE);
        /* 15 + 16: a gzip wrapper (not zlib's, not raw deflate). */
        if (b->z == NULL || b->inflated == NULL || inflateInit2(b->z, 15 + 16) != Z_OK) {
            free(b->z);
            b->z = NULL;
            gwl_body_free(b);
            return NULL;
        }
    }
    return b;
}

void gwl_body_free(gwl_body *b)
{
    if (b == NULL) return;
    if (b->z != NULL) {
        inflateEnd(b->z);
        free(b->z);
    }
    free(b->inflated);
    free(b);
}

void gwl_body_closed(gwl_body *b) { b->closed = 1; }

const char *gwl_body_error(const gwl_body *b) { return b->error ? b->error : "no error"; }

size_t gwl_body_footprint(const gwl_body *b)
{
    return sizeof *b + (b->z ? sizeof *b->z + ZLIB_FOOTPRINT + INFLATED_PIECE : 0);
}

static enum gwl_body_step broken(gwl_body *b, const char *why)
{
    b->error = why;
    return GWL_BODY_ERROR;
}

static int hex_value(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The next run of framed bytes (still compressed when gzip), or the end, or more wanted. */
static enum gwl_body_step unframe(gwl_body *b, const uint8_t **in, size_t *in_len,
                                  const uint8_t **run, size_t *run_len)
{
    if (b->framing_done) return GWL_BODY_END;
    if (b->framing == GWL_TO_CLOSE) {
        if (*in_len > 0) {
            *run = *in;
            *run_len = *in_len;
            *in += *in_len;
            *in_len = 0;
            return GWL_BODY_PIECE;
        }
        if (b->closed) {
            b->framing_done = 1;
            return GWL_BODY_END;
        }
        return GWL_BODY_MORE;
    }
    if (b->framing == GWL_BY_LENGTH) {
        if (b->left == 0) {
            b->framing_done = 1;
            return GWL_BODY_END;
        }
        if (*in_len == 0) {
            return b->closed ? broken(b, "the connection closed before the body's length came")
                             : GWL_BODY_MORE;
        }
        size_t n = *in_len < b->left ? *in_len : (size_t)b->left;
        *run = *in;
        *run_len = n;
        *in += n;
        *in_len -= n;
        b->left -= n;
        return GWL_BODY_PIECE;
    }
    /* chunked: size line [;extension] CRLF, data, CRLF ... 0 CRLF, trailers, CRLF */
    while (*in_len > 0) {
        if (b->chunk == CHUNK_DATA) {
            size_t n = *in_len < b->left ? *in_len : (size_t)b->left;
            *run = *in;
            *run_len = n;
            *in += n;
            *in_len -= n;
            b->left -= n;
            if (b->left == 0) b->chunk = CHUNK_DATA_END;
            return GWL_BODY_PIECE;
        }
        uint8_t c = **in;
        int v;
        (*in)++;
        (*in_len)--;
        switch (b->chunk) {
        case CHUNK_SIZE:
            v = hex_value(c);
            if (v >= 0) {
                if (b->chunk_size > (UINT64_MAX >> 4)) return broken(b, "a chunk size overflows");
                b->chunk_size = b->chunk_size * 16 + (uint64_t)v;
                b->size_digits++;
                break;
            }
            if (c == ';' || c == ' ' || c == '\t') {
                b->chunk = CHUNK_EXTENSION;
                break;
            }
            if (c == '\r') break;
            if (c != '\n' || b->size_digits == 0) return broken(b, "a chunk size is not hex");
            /* the size line's end: */
            /* fall through */
        case CHUNK_EXTENSION:
            if (c != '\n') break;
            if (b->size_digits == 0) return broken(b, "a chunk size is missing");
            b->left = b->chunk_size;
            b->chunk = b->chunk_size ? CHUNK_DATA : CHUNK_TRAILER;
            b->chunk_size = 0;
            b->size_digits = 0;
            b->trailer_line = 0;
            break;
        case CHUNK_DATA_END:
            if (c == '\r') break;
            if (c != '\n') return broken(b, "a chunk's data runs past its size");
            b->chunk = CHUNK_SIZE;
            break;
        case CHUNK_TRAILER:
            if (c == '\r') break;
            if (c == '\n') {
                if (b->trailer_line == 0) {
                    b->framing_done = 1;
                    return GWL_BODY_END;
                }
                b->trailer_line = 0;
            } else {
                b->trailer_line++;
            }
            break;
        case CHUNK_DATA:
            break;
        }
    }
    return b->closed ? broken(b, "the connection closed inside the chunked body") : GWL_BODY_MORE;
}

enum gwl_body_step gwl_body_next(gwl_body *b, const uint8_t **in, size_t *in_len,
                                 const uint8_t **piece, size_t *piece_len)
{
    if (b->error) return GWL_BODY_ERROR;
    if (b->z == NULL) return unframe(b, in, in_len, piece, piece_len);
    for (;;) {
        if (!b->z_end && (b->z->avail_in > 0 || b->z_full)) {
            b->z->next_out = b->inflated;
            b->z->avail_out = INFLATED_PIECE;
            int rc = inflate(b->z, Z_NO_FLUSH);
            if (rc == Z_STREAM_END) b->z_end = 1;
            else if (rc != Z_OK && rc != Z_BUF_ERROR) return broken(b, "the gzip body is corrupt");
            size_t produced = INFLATED_PIECE - b->z->avail_out;
            b->z_full = b->z->avail_out == 0;
            if (produced > 0) {
                *piece = b->inflated;
                *piece_len = produced;
                return GWL_BODY_PIECE;
            }
            if (b->z_end) b->z->avail_in = 0; /* bytes after the gzip stream: ignored */
            if (b->z->avail_in > 0 && !b->z_end) continue;
        }
        const uint8_t *run;
        size_t run_len;
        enum gwl_body_step got = unframe(b, in, in_len, &run, &run_len);
        if (got == GWL_BODY_PIECE) {
            if (b->z_end) continue; /* past the gzip stream's end */
            b->z->next_in = (Bytef *)(uintptr_t)run;
            b->z->avail_in = (uInt)run_len;
            continue;
        }
        if (got == GWL_BODY_END && !b->z_end) return broken(b, "the gzip body is cut short");
        return got;
    }
}
