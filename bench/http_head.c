/* Header lookups over a raw head (see http_head.h). */
#define _GNU_SOURCE
#include "http_head.h"

#include <string.h>
#include <strings.h>

size_t head_length(const char *buf, size_t n) {
    const char *end = memmem(buf, n, "\r\n\r\n", 4);
    return end ? (size_t)(end - buf) + 4 : 0;
}

int header_value(const char *head, size_t head_len, const char *name, const char **value,
                 size_t *len) {
    size_t name_len = strlen(name);
    const char *end = head + head_len;
    /* Skip the start line: headers begin after the first CRLF. */
    const char *line = memmem(head, head_len, "\r\n", 2);
    while (line && line + 2 < end) {
        line += 2;
        const char *eol = memmem(line, (size_t)(end - line), "\r\n", 2);
        if (!eol || eol == line) return 0;
        if ((size_t)(eol - line) > name_len && line[name_len] == ':' &&
            strncasecmp(line, name, name_len) == 0) {
            const char *v = line + name_len + 1;
            const char *e = eol;
            while (v < e && (*v == ' ' || *v == '\t')) v++;
            while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
            *value = v;
            *len = (size_t)(e - v);
            return 1;
        }
        line = eol;
    }
    return 0;
}

int header_has(const char *head, size_t head_len, const char *name, const char *token) {
    const char *v;
    size_t len;
    size_t tlen = strlen(token);
    if (!header_value(head, head_len, name, &v, &len)) return 0;
    for (size_t i = 0; i + tlen <= len; i++) {
        if (strncasecmp(v + i, token, tlen) == 0) return 1;
    }
    return 0;
}

int64_t header_content_length(const char *head, size_t head_len) {
    const char *v;
    size_t len;
    if (!header_value(head, head_len, "Content-Length", &v, &len)) return -1;
    if (len == 0 || len > 18) return -2;
    int64_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9') return -2;
        n = n * 10 + (v[i] - '0');
    }
    return n;
}
