/* The floor's event-stream reader: finds event boundaries ("\n\n") in the decoded body as
 * it arrives, with no copy and no allocation; what any SSE client must do at least. */
#ifndef BENCH_FLOOR_SSE_H
#define BENCH_FLOOR_SSE_H

#include <stddef.h>

struct sse_counter {
    unsigned long long events; /* every event, the closing data: [DONE] included */
    int pending_nl;            /* the last run ended in a lone '\n' */
    char tail[16];             /* the body's last bytes, to check how it ended */
    size_t tail_len;
};

void sse_counter_init(struct sse_counter *s);

/* A chunked_data_fn: takes the next run of body bytes. */
void sse_counter_feed(void *ctx, const char *p, size_t n);

/* 1 when the body ended with the event data: [DONE]. */
int sse_counter_saw_done(const struct sse_counter *s);

#endif
