/* Incremental decoder for HTTP/1.1 chunked bodies, shared by the load server (request
 * bodies) and the floor client (answers): it is fed raw bytes as they arrive and hands the
 * data bytes to a callback, so neither side needs the whole body in memory. */
#ifndef BENCH_CHUNKED_H
#define BENCH_CHUNKED_H

#include <stddef.h>
#include <stdint.h>

struct chunked {
    int state;     /* internal: where in the framing the next byte falls */
    uint64_t size; /* the chunk size being read, then the data left in it */
    int digits;    /* hex digits seen in the size line */
    int done;      /* 1 once the last chunk and its trailers were read */
};

/* Receives a run of data bytes (never empty). */
typedef void (*chunked_data_fn)(void *ctx, const char *p, size_t n);

void chunked_init(struct chunked *c);

/* Feeds up to n raw bytes; stops right after the body's end. Returns how many bytes were
 * consumed, or (size_t)-1 for malformed framing. `data` may be NULL. */
size_t chunked_feed(struct chunked *c, const char *in, size_t n, chunked_data_fn data,
                    void *ctx);

#endif
