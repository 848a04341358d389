/* Minimal HTTP/1.1 head reading shared by the load server and the clients: where a head
 * ends and what a header says. Enough for what gw and the floor send, not a general parser. */
#ifndef BENCH_HTTP_HEAD_H
#define BENCH_HTTP_HEAD_H

#include <stddef.h>
#include <stdint.h>

/* Length of the head including its final CRLF CRLF, or 0 while it is incomplete. */
size_t head_length(const char *buf, size_t n);

/* The value of header `name` (case-insensitive, leading and trailing blanks trimmed) in a
 * complete head. Returns 1 and sets *value / *len when present, 0 otherwise. */
int header_value(const char *head, size_t head_len, const char *name, const char **value,
                 size_t *len);

/* 1 when header `name` is present and contains `token` (case-insensitive). */
int header_has(const char *head, size_t head_len, const char *name, const char *token);

/* Content-Length as a number; -1 when absent, -2 when not a number. */
int64_t header_content_length(const char *head, size_t head_len);

#endif
