/* What the load server's event loop (loadserver.c) and its routes (loadserver_routes.c)
 * share: the bytes queued as one answer, and the record of the last request of a kind. */
#ifndef BENCH_LOADSERVER_H
#define BENCH_LOADSERVER_H

#include <stddef.h>
#include <stdint.h>

/* One run of bytes to send `repeat` times (a stream repeats one prebuilt block). `p` NULL
 * means the reply's own buffer at `off`: that buffer may move while the reply is built. */
struct out_seg {
    const char *p;
    size_t off;
    size_t len;
    uint64_t repeat;
};

struct reply {
    struct out_seg seg[3];
    int nseg;
    char *own; /* bytes built for this answer (heads, a stream's tail, stats) */
    size_t own_len, own_cap;
};

/* The raw bytes of a request as they arrived (head, then the body as framed on the wire). */
struct record {
    char *p;
    size_t len, cap;
};

struct server_stats {
    uint64_t accepted; /* connections accepted */
    uint64_t requests; /* API requests answered (control endpoints not counted) */
};
extern struct server_stats g_stats;

/* Builds the constant answers; call once before serving. */
void routes_init(void);

/* 1 when the head is a POST /v1/images/edits: its body streams into the upload record
 * instead of being buffered. */
int route_is_upload(const char *head, size_t head_len);

/* Answers a buffered request: `raw` is the body as framed on the wire, `body` the decoded
 * body. Chat requests are recorded for GET /__last. */
void answer_request(const char *head, size_t head_len, const char *raw, size_t raw_len,
                    const char *body, size_t body_len, struct reply *r);

/* Starts recording an upload: the record holds the head; the caller appends the body. */
struct record *upload_record_begin(const char *head, size_t head_len);
void upload_answer(struct reply *r);

/* Room for `more` bytes after rec->len; exits the server when memory runs out. */
void record_reserve(struct record *rec, size_t more);

/* Appends to the reply's own buffer (exits when memory runs out). */
void reply_append(struct reply *r, const void *p, size_t n);
void reply_reset(struct reply *r);

#endif
