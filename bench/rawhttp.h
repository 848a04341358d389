/* A plain-socket HTTP/1.1 client for the bench: one keep-alive loopback connection with
 * TCP_NODELAY (as gw sets it), whole writes, and answers framed by Content-Length or chunked.
 * The floor measures with it; gwbench uses it only for the server's control routes. */
#ifndef BENCH_RAWHTTP_H
#define BENCH_RAWHTTP_H

#include <stddef.h>

#include "chunked.h"

struct rh_conn {
    int fd;
    char *buf; /* bytes read and not yet part of an answer */
    size_t len, cap;
};

/* A growable byte buffer, NUL-terminated once anything was appended; `p` is malloc'd. */
struct rh_bytes {
    char *p;
    size_t len, cap;
};

/* Connects to 127.0.0.1:port. 0 or -1 (reason on stderr). */
int rh_open(struct rh_conn *c, int port);
void rh_close(struct rh_conn *c);

/* Writes all n bytes (a blocking socket takes them in as few writes as it can). */
int rh_write_all(int fd, const void *p, size_t n);

/* Reads one answer. Returns its HTTP status and appends its body to `body` (NULL discards
 * it), or -1 on a broken connection or framing (reason on stderr). */
int rh_read_answer(struct rh_conn *c, struct rh_bytes *body);

/* The same, handing each run of body bytes to `data` as it arrives (for streams). */
int rh_read_answer_cb(struct rh_conn *c, chunked_data_fn data, void *ctx);

/* GET `path` on a fresh connection: the status (-1 on failure), the body in `body`. */
int rh_get(int port, const char *path, struct rh_bytes *body);

/* A number field of a small JSON object ("accepted" of /__stats): -1 when absent. */
long long rh_json_number(const struct rh_bytes *body, const char *key);

void rh_bytes_append(struct rh_bytes *b, const char *p, size_t n);

#endif
