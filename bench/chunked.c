/* The chunked-body state machine (see chunked.h). Framing bytes go one at a time, data
 * runs in bulk: the data is what is large. */
#include "chunked.h"

enum {
    SIZE,       /* hex digits of the size line */
    SIZE_EXT,   /* a chunk extension, skipped up to LF */
    SIZE_LF,    /* CR seen at the end of the size line */
    DATA,       /* `size` data bytes left */
    DATA_CR,    /* CRLF after the data */
    DATA_LF,
    TRAILER,    /* start of a trailer line, or of the final empty line */
    TRAILER_LINE,
    FINAL_LF
};

void chunked_init(struct chunked *c) {
    c->state = SIZE;
    c->size = 0;
    c->digits = 0;
    c->done = 0;
}

static int hex_value(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* The size line ended: a data run follows, or the trailers after the last chunk. */
static int end_size_line(struct chunked *c) {
    if (c->digits == 0) return -1;
    c->state = c->size == 0 ? TRAILER : DATA;
    return 0;
}

size_t chunked_feed(struct chunked *c, const char *in, size_t n, chunked_data_fn data,
                    void *ctx) {
    size_t i = 0;
    while (i < n && !c->done) {
        char ch = in[i];
        switch (c->state) {
        case SIZE: {
            int v = hex_value(ch);
            if (v >= 0) {
                if (c->digits++ >= 15) return (size_t)-1; /* over 2^60: nonsense */
                c->size = c->size * 16 + (uint64_t)v;
            } else if (ch == ';' || ch == ' ' || ch == '\t') {
                c->state = SIZE_EXT;
            } else if (ch == '\r') {
                c->state = SIZE_LF;
            } else if (ch == '\n') {
                if (end_size_line(c) < 0) return (size_t)-1;
            } else {
                return (size_t)-1;
            }
            i++;
            break;
        }
        case SIZE_EXT:
            if (ch == '\n' && end_size_line(c) < 0) return (size_t)-1;
            i++;
            break;
        case SIZE_LF:
            if (ch != '\n' || end_size_line(c) < 0) return (size_t)-1;
            i++;
            break;
        case DATA: {
            size_t take = n - i;
            if (take > c->size) take = (size_t)c->size;
            if (data) data(ctx, in + i, take);
            c->size -= take;
            i += take;
            if (c->size == 0) c->state = DATA_CR;
            break;
        }
        case DATA_CR:
            if (ch == '\r') {
                c->state = DATA_LF;
            } else if (ch == '\n') {
                c->state = SIZE;
                c->digits = 0;
            } else {
                return (size_t)-1;
            }
            i++;
            break;
        case DATA_LF:
            if (ch != '\n') return (size_t)-1;
            c->state = SIZE;
            c->digits = 0;
            i++;
            break;
        case TRAILER:
            if (ch == '\r') c->state = FINAL_LF;
            else if (ch == '\n') c->done = 1;
            else c->state = TRAILER_LINE;
            i++;
            break;
        case TRAILER_LINE:
            if (ch == '\n') c->state = TRAILER;
            i++;
            break;
        case FINAL_LF:
            if (ch != '\n') return (size_t)-1;
            c->done = 1;
            i++;
            break;
        default:
            return (size_t)-1;
        }
    }
    return i;
}
