/* HTTP/1.1 as the loop writes and reads it (gwl_http.h). */
#define _POSIX_C_SOURCE 200809L
#include "gwl_http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int fail(char *why, size_t why_len, const char *text)
{
    snprintf(why, why_len, "%s", text);
    return -1;
}

int gwl_target_of(const char *url, gwl_target *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    if (strncasecmp(url, "http://", 7) != 0)
        return fail(why, why_len, "the example loop speaks plain http:// only (no TLS)");
    const char *authority = url + 7;
    size_t authority_len = strcspn(authority, "/?#");
    if (authority_len == 0 || authority_len >= sizeof out->authority)
        return fail(why, why_len, "the URL has no host, or one too long");
    memcpy(out->authority, authority, authority_len);
    out->authority[authority_len] = '\0';
    out->path = authority[authority_len] == '\0' ? "/" : authority + authority_len;
    if (strchr(out->authority, '@') != NULL)
        return fail(why, why_len, "the URL holds user info, which the loop does not send");

    /* host, then an optional :port; an IPv6 literal is bracketed. */
    char host[300];
    const char *port_text = NULL;
    if (out->authority[0] == '[') {
        const char *close = strchr(out->authority, ']');
        if (close == NULL) return fail(why, why_len, "the URL's IPv6 address lacks its ']'");
        snprintf(host, sizeof host, "%.*s", (int)(close - out->authority - 1), out->authority + 1);
        if (close[1] == ':') port_text = close + 2;
        else if (close[1] != '\0') return fail(why, why_len, "the URL's host is malformed");
    } else {
        const char *colon = strchr(out->authority, ':');
        size_t host_len = colon ? (size_t)(colon - out->authority) : strlen(out->authority);
        snprintf(host, sizeof host, "%.*s", (int)host_len, out->authority);
        if (colon) port_text = colon + 1;
    }
    unsigned long port = 80;
    if (port_text != NULL) {
        char *end = NULL;
        errno = 0;
        port = strtoul(port_text, &end, 10);
        if (*port_text == '\0' || *end != '\0' || errno != 0 || port == 0 || port > 65535)
            return fail(why, why_len, "the URL's port is not a number in 1..65535");
    }

    /* A name would need getaddrinfo, which blocks: the loop takes numeric addresses (and
     * localhost) only, so no call ever stalls the others. */
    struct sockaddr_in *v4 = (struct sockaddr_in *)&out->addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&out->addr;
    if (strcasecmp(host, "localhost") == 0) snprintf(host, sizeof host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        out->addr_len = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        out->addr_len = sizeof *v6;
    } else {
        snprintf(why, why_len,
                 "the example loop resolves no names (getaddrinfo would block the loop): "
                 "use a numeric address or localhost");
        return -1;
    }
    return 0;
}

/* A growing text; `failed` once an allocation failed. */
typedef struct text {
    char *data;
    size_t len, cap;
    int failed;
} text;

static void add(text *t, const char *s, size_t n)
{
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 512;
        while (cap < t->len + n + 1) cap *= 2;
        char *data = realloc(t->data, cap);
        if (data == NULL) {
            t->failed = 1;
            return;
        }
        t->data = data;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void add_str(text *t, const char *s) { add(t, s, strlen(s)); }

char *gwl_request_head(const gw_request_view *view, const gwl_target *target, size_t *len)
{
    text t = {0};
    add_str(&t, view->method);
    add_str(&t, " ");
    if (target->path[0] != '/') add_str(&t, "/");
    add(&t, target->path, strcspn(target->path, "#"));
    add_str(&t, " HTTP/1.1\r\nHost: ");
    add_str(&t, target->authority);
    add_str(&t, "\r\n");
    for (size_t i = 0; i < view->header_count; i++) {
        add_str(&t, view->headers[i].name);
        add_str(&t, ": ");
        add_str(&t, view->headers[i].value);
        add_str(&t, "\r\n");
    }
    if (view->body_count > 0 || strcmp(view->method, "GET") != 0) {
        char length[64];
        snprintf(length, sizeof length, "Content-Length: %" PRIu64 "\r\n", view->body_len);
        add_str(&t, length);
    }
    /* One request per connection: the answer's end is its length, its last chunk or the
     * close, and a retry or a redirect never meets a half-read answer. */
    add_str(&t, "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n");
    if (t.failed) {
        free(t.data);
        return NULL;
    }
    *len = t.len;
    return t.data;
}

size_t gwl_head_end(const char *buf, size_t len)
{
    /* A line feed, then an empty line (CRLF or a bare LF, which some servers send). */
    for (size_t i = 0; i + 1 < len; i++) {
        if (buf[i] != '\n') continue;
        if (buf[i + 1] == '\n') return i + 2;
        if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n') return i + 3;
    }
    return 0;
}

static char *trim(char *s, char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    *end = '\0';
    return s;
}

static int is_token_char(int c)
{
    return c > 32 && c < 127 && strchr("()<>@,;:\\\"/[]?={}", c) == NULL;
}

/* Whether the last coding of a Transfer-Encoding list is chunked. */
static int ends_chunked(const char *codings)
{
    const char *last = strrchr(codings, ',');
    last = last ? last + 1 : codings;
    while (*last == ' ' || *last == '\t') last++;
    return strcasecmp(last, "chunked") == 0;
}

int gwl_head_parse(char *text, size_t len, gwl_head *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    text[len - 1] = '\0'; /* the blank line's LF: every line below ends at a '\n' or here */
    char *line = text, *nl = strchr(line, '\n');
    if (nl == NULL) return fail(why, why_len, "HTTP protocol error: no status line");
    *nl = '\0';
    /* "HTTP/1.x NNN reason" */
    if (strncmp(line, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)line[7]) || line[8] != ' ' ||
        !isdigit((unsigned char)line[9]) || !isdigit((unsigned char)line[10]) ||
        !isdigit((unsigned char)line[11]) ||
        (line[12] != ' ' && line[12] != '\r' && line[12] != '\0')) {
        snprintf(why, why_len, "HTTP protocol error: bad status line '%.60s'", line);
        return -1;
    }
    out->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    int http10 = line[7] == '0';

    size_t lines = 0;
    for (char *p = nl + 1; *p; p++) lines += *p == '\n';
    out->headers = calloc(lines + 1, sizeof *out->headers);
    if (out->headers == NULL) return fail(why, why_len, "out of memory");

    int has_length = 0, chunked = 0, has_te = 0;
    for (line = nl + 1; *line != '\0' && *line != '\r'; line = nl + 1) {
        nl = strchr(line, '\n');
        char *end = nl ? nl : line + strlen(line);
        if (*line == ' ' || *line == '\t') {
            gwl_head_free(out);
            return fail(why, why_len, "HTTP protocol error: folded header line");
        }
        char *colon = memchr(line, ':', (size_t)(end - line));
        if (colon == NULL || colon == line) {
            gwl_head_free(out);
            return fail(why, why_len, "HTTP protocol error: a header line without a name");
        }
        for (char *c = line; c < colon; c++) {
            if (!is_token_char((unsigned char)*c)) {
                gwl_head_free(out);
                return fail(why, why_len, "HTTP protocol error: a header name is not a token");
            }
        }
        *colon = '\0';
        char *value = trim(colon + 1, end);
        const char *name = line;
        if (strcasecmp(name, "content-length") == 0) {
            char *stop = NULL;
            errno = 0;
            unsigned long long n = strtoull(value, &stop, 10);
            if (!isdigit((unsigned char)*value) || *stop != '\0' || errno != 0 ||
                (has_length && n != out->length)) {
                gwl_head_free(out);
                return fail(why, why_len, "HTTP protocol error: bad Content-Length");
            }
            has_length = 1;
            out->length = n;
        } else if (strcasecmp(name, "transfer-encoding") == 0) {
            has_te = 1;
            chunked = ends_chunked(value);
        } else if (strcasecmp(name, "content-encoding") == 0) {
            if (strcasecmp(value, "gzip") == 0 || strcasecmp(value, "x-gzip") == 0) {
                out->gzip = 1;
                continue;
            }
            if (strcasecmp(value, "identity") != 0) {
                snprintf(why, why_len,
                         "the answer's Content-Encoding '%.40s' is not one the loop decodes "
                         "(it asks for gzip only)", value);
                gwl_head_free(out);
                return -1;
            }
        }
        out->headers[out->count++] = (gw_header){name, value};
        if (nl == NULL) break;
    }
    if (out->gzip) {
        /* gw gets the decoded body: the compressed length is not its length. */
        size_t kept = 0;
        for (size_t i = 0; i < out->count; i++)
            if (strcasecmp(out->headers[i].name, "content-length") != 0)
                out->headers[kept++] = out->headers[i];
        out->count = kept;
    }
    if (out->status == 204 || out->status == 304 || out->status / 100 == 1) {
        out->framing = GWL_BY_LENGTH;
        out->length = 0;
    } else if (has_te) {
        /* A response whose last coding is not chunked runs to the close (RFC 9112 6.3). */
        out->framing = chunked && !http10 ? GWL_CHUNKED : GWL_TO_CLOSE;
    } else {
        out->framing = has_length ? GWL_BY_LENGTH : GWL_TO_CLOSE;
    }
    return 0;
}

void gwl_head_free(gwl_head *head)
{
    free(head->headers);
    head->headers = NULL;
    head->count = 0;
}
