/* Event boundaries by memchr (see floor_sse.h). */
#define _GNU_SOURCE
#include "floor_sse.h"

#include <string.h>

void sse_counter_init(struct sse_counter *s) { memset(s, 0, sizeof *s); }

static void keep_tail(struct sse_counter *s, const char *p, size_t n) {
    size_t cap = sizeof s->tail;
    if (n >= cap) {
        memcpy(s->tail, p + n - cap, cap);
        s->tail_len = cap;
        return;
    }
    size_t keep = s->tail_len + n > cap ? cap - n : s->tail_len;
    memmove(s->tail, s->tail + s->tail_len - keep, keep);
    memcpy(s->tail + keep, p, n);
    s->tail_len = keep + n;
}

void sse_counter_feed(void *ctx, const char *p, size_t n) {
    struct sse_counter *s = ctx;
    const char *q = p, *end = p + n;
    if (s->pending_nl) {
        s->pending_nl = 0;
        if (*q == '\n') {
            s->events++;
            q++;
        }
    }
    while (q < end) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        if (!nl) break;
        if (nl + 1 == end) {
            s->pending_nl = 1;
            break;
        }
        if (nl[1] == '\n') {
            s->events++;
            q = nl + 2;
        } else {
            q = nl + 1;
        }
    }
    keep_tail(s, p, n);
}

int sse_counter_saw_done(const struct sse_counter *s) {
    static const char done[] = "data: [DONE]\n\n";
    size_t len = sizeof done - 1;
    return s->tail_len >= len && memcmp(s->tail + s->tail_len - len, done, len) == 0;
}
