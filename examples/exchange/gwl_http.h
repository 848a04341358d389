/*
 * HTTP/1.1 as the loop writes and reads it: the target of a URL (plain http:// only, a
 * numeric address or localhost), the request's head from a gw_request_view, and the answer's
 * head found and parsed in place. No I/O here.
 */
#ifndef GWL_HTTP_H
#define GWL_HTTP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "gw.h"

/* Where a request goes. */
typedef struct gwl_target {
    struct sockaddr_storage addr;
    socklen_t addr_len;
    char authority[300]; /* the Host header: host[:port] as the URL wrote it */
    const char *path;    /* path and query, pointing into the URL ("/" when it has none) */
} gwl_target;

/* Reads `url` into `out`. 0, or -1 with why in `why`: not http://, a name that would need a
 * (blocking) DNS lookup, a bad port. */
int gwl_target_of(const char *url, gwl_target *out, char *why, size_t why_len);

/* The request line and headers for `view` to `target` (gw's headers, Host, Content-Length
 * when there is a body, Accept-Encoding: gzip, Connection: close), malloc'd; NULL when out
 * of memory. `*len` gets its length. */
char *gwl_request_head(const gw_request_view *view, const gwl_target *target, size_t *len);

/* How the answer's body is framed. */
enum gwl_framing { GWL_BY_LENGTH, GWL_CHUNKED, GWL_TO_CLOSE };

/* An answer's head, parsed in place: the header pointers point into the parsed text. */
typedef struct gwl_head {
    int status;
    gw_header *headers; /* malloc'd; free with gwl_head_free */
    size_t count;
    enum gwl_framing framing;
    uint64_t length; /* GWL_BY_LENGTH */
    int gzip;        /* Content-Encoding: gzip (those two headers are then not in `headers`) */
} gwl_head;

/* The length of the head at the start of `buf` (through its blank line), or 0 when its end
 * has not come yet. */
size_t gwl_head_end(const char *buf, size_t len);

/* Parses the head `text[0..len)` (as gwl_head_end measured it), writing NULs into it. 0, or
 * -1 with why in `why` (the answer is no HTTP/1.x). */
int gwl_head_parse(char *text, size_t len, gwl_head *out, char *why, size_t why_len);
void gwl_head_free(gwl_head *head);

#endif
