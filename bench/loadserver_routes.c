/* The load server's answers: a fixed chat.completion, a chunked event stream of N equal
 * chat.completion.chunk events (N from the model name "events-N"), a small images answer
 * for uploads, and the control routes GET /__stats and GET /__last?kind=chat|stream|upload|big
 * (the raw bytes of the last request of that kind, so the floor can replay them; "big" is a
 * non-streamed chat over 64 KiB). */
#define _GNU_SOURCE
#include "loadserver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct server_stats g_stats;

/* Events in the stream: "events-N" as the model, else this many. */
#define DEFAULT_EVENTS 20
/* Full stream chunks are this size at most, so the server writes in big runs. */
#define BLOCK_BYTES 65536

static const char CHAT_BODY[] =
    "{\"id\":\"chatcmpl-b\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
    "\"system_fingerprint\":\"fp_bench\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
    "\"assistant\",\"content\":\"The load server answers every call with this same text.\"},"
    "\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9,"
    "\"completion_tokens\":11,\"total_tokens\":20}}";
static const char EVENT[] =
    "data: {\"id\":\"chatcmpl-b\",\"object\":\"chat.completion.chunk\",\"created\":1,"
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word \"},"
    "\"finish_reason\":null}]}\n\n";
static const char DONE[] = "data: [DONE]\n\n";
static const char STREAM_HEAD[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    "Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n";
static const char IMAGES_BODY[] = "{\"created\":1,\"data\":[{\"b64_json\":\"eA==\"}]}";

static char chat_answer[1024];
static size_t chat_answer_len;
static char images_answer[512];
static size_t images_answer_len;
/* One chunk of `block_events` events, written `repeat` times for long streams. */
static char *block;
static size_t block_len;
static uint64_t block_events;

enum kind { KIND_CHAT, KIND_STREAM, KIND_UPLOAD, KIND_BIG, KINDS };
static const char *const KIND_NAMES[KINDS] = {"chat", "stream", "upload", "big"};
/* A non-streamed chat body past this size is recorded as "big", so the small chat the
 * latency figures replay stays recorded beside it. */
#define BIG_BODY 65536
static struct record records[KINDS];

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "loadserver: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return q;
}

void reply_reset(struct reply *r) {
    r->nseg = 0;
    r->own_len = 0;
}

void reply_append(struct reply *r, const void *p, size_t n) {
    if (r->own_len + n > r->own_cap) {
        size_t cap = r->own_cap ? r->own_cap : 4096;
        while (cap < r->own_len + n) cap *= 2;
        r->own = xrealloc(r->own, cap);
        r->own_cap = cap;
    }
    memcpy(r->own + r->own_len, p, n);
    r->own_len += n;
}

static void add_seg(struct reply *r, const char *p, size_t off, size_t len, uint64_t repeat) {
    if (len == 0 || repeat == 0) return;
    r->seg[r->nseg++] = (struct out_seg){p, off, len, repeat};
}

/* An answer built whole in the reply's own buffer. */
static void answer_own(struct reply *r, const char *status, const char *type, const char *body,
                       size_t body_len) {
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: keep-alive\r\n\r\n",
                     status, type, body_len);
    size_t start = r->own_len;
    reply_append(r, head, (size_t)n);
    reply_append(r, body, body_len);
    add_seg(r, NULL, start, r->own_len - start, 1);
}

void record_reserve(struct record *rec, size_t more) {
    if (rec->len + more <= rec->cap) return;
    size_t cap = rec->cap ? rec->cap : 65536;
    while (cap < rec->len + more) cap *= 2;
    rec->p = xrealloc(rec->p, cap);
    rec->cap = cap;
}

static void record_set(struct record *rec, const char *head, size_t head_len, const char *raw,
                       size_t raw_len) {
    rec->len = 0;
    record_reserve(rec, head_len + raw_len);
    memcpy(rec->p, head, head_len);
    if (raw_len) memcpy(rec->p + head_len, raw, raw_len);
    rec->len = head_len + raw_len;
}

void routes_init(void) {
    chat_answer_len = (size_t)snprintf(
        chat_answer, sizeof chat_answer,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
        "Connection: keep-alive\r\n\r\n%s",
        sizeof CHAT_BODY - 1, CHAT_BODY);
    images_answer_len = (size_t)snprintf(
        images_answer, sizeof images_answer,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
        "Connection: keep-alive\r\n\r\n%s",
        sizeof IMAGES_BODY - 1, IMAGES_BODY);
    size_t ev = sizeof EVENT - 1;
    block_events = (BLOCK_BYTES - 16) / ev;
    size_t data = block_events * ev;
    block = xrealloc(NULL, data + 16);
    block_len = (size_t)sprintf(block, "%zx\r\n", data);
    for (uint64_t i = 0; i < block_events; i++, block_len += ev) {
        memcpy(block + block_len, EVENT, ev);
    }
    memcpy(block + block_len, "\r\n", 2);
    block_len += 2;
}

/* The start of `"key"` followed by optional blanks and a colon, then optional blanks: the
 * value's first byte, or NULL. */
static const char *json_value(const char *body, size_t len, const char *key) {
    size_t klen = strlen(key);
    const char *end = body + len;
    const char *p = body;
    while ((p = memmem(p, (size_t)(end - p), key, klen)) != NULL) {
        const char *v = p + klen;
        while (v < end && (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')) v++;
        if (v < end && *v == ':') {
            v++;
            while (v < end && (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')) v++;
            return v;
        }
        p += klen;
    }
    return NULL;
}

static int wants_stream(const char *body, size_t len) {
    const char *v = json_value(body, len, "\"stream\"");
    return v && (size_t)(body + len - v) >= 4 && memcmp(v, "true", 4) == 0;
}

static uint64_t stream_events(const char *body, size_t len) {
    const char *v = json_value(body, len, "\"model\"");
    static const char prefix[] = "\"events-";
    size_t plen = sizeof prefix - 1;
    if (!v || (size_t)(body + len - v) <= plen || memcmp(v, prefix, plen) != 0) {
        return DEFAULT_EVENTS;
    }
    uint64_t n = 0;
    for (v += plen; v < body + len && *v >= '0' && *v <= '9'; v++) n = n * 10 + (uint64_t)(*v - '0');
    return n;
}

/* Head, then full blocks, then one chunk with the remaining events and [DONE], then the
 * last chunk. A short stream goes out as one write. */
static void answer_stream(uint64_t events, struct reply *r) {
    uint64_t full = events / block_events;
    uint64_t rest = events % block_events;
    size_t ev = sizeof EVENT - 1;
    size_t tail_data = (size_t)rest * ev + sizeof DONE - 1;
    char size_line[32];
    int n = snprintf(size_line, sizeof size_line, "%zx\r\n", tail_data);
    if (full == 0) reply_append(r, STREAM_HEAD, sizeof STREAM_HEAD - 1);
    size_t tail = r->own_len;
    reply_append(r, size_line, (size_t)n);
    for (uint64_t i = 0; i < rest; i++) reply_append(r, EVENT, ev);
    reply_append(r, DONE, sizeof DONE - 1);
    reply_append(r, "\r\n0\r\n\r\n", 7);
    if (full == 0) {
        add_seg(r, NULL, 0, r->own_len, 1);
    } else {
        add_seg(r, STREAM_HEAD, 0, sizeof STREAM_HEAD - 1, 1);
        add_seg(r, block, 0, block_len, full);
        add_seg(r, NULL, tail, r->own_len - tail, 1);
    }
}

static void answer_stats(struct reply *r) {
    char body[128];
    int n = snprintf(body, sizeof body, "{\"accepted\":%llu,\"requests\":%llu}",
                     (unsigned long long)g_stats.accepted, (unsigned long long)g_stats.requests);
    answer_own(r, "200 OK", "application/json", body, (size_t)n);
}

static void answer_last(const char *target, size_t len, struct reply *r) {
    const char *q = memmem(target, len, "kind=", 5);
    for (int k = 0; q && k < KINDS; k++) {
        size_t klen = strlen(KIND_NAMES[k]);
        const char *v = q + 5;
        if ((size_t)(target + len - v) == klen && memcmp(v, KIND_NAMES[k], klen) == 0) {
            struct record *rec = &records[k];
            if (rec->len == 0) break;
            char head[160];
            int n = snprintf(head, sizeof head,
                             "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                             "Content-Length: %zu\r\nConnection: keep-alive\r\n\r\n",
                             rec->len);
            reply_append(r, head, (size_t)n);
            add_seg(r, NULL, 0, (size_t)n, 1);
            add_seg(r, rec->p, 0, rec->len, 1);
            return;
        }
    }
    static const char msg[] = "{\"error\":\"no such kind recorded (chat, stream, upload, big)\"}";
    answer_own(r, "404 Not Found", "application/json", msg, sizeof msg - 1);
}

/* The request line's method and target. */
static int request_line(const char *head, size_t head_len, const char **method, size_t *mlen,
                        const char **target, size_t *tlen) {
    const char *eol = memmem(head, head_len, "\r\n", 2);
    const char *sp = eol ? memchr(head, ' ', (size_t)(eol - head)) : NULL;
    const char *sp2 = sp ? memchr(sp + 1, ' ', (size_t)(eol - sp - 1)) : NULL;
    if (!sp2) return -1;
    *method = head;
    *mlen = (size_t)(sp - head);
    *target = sp + 1;
    *tlen = (size_t)(sp2 - sp - 1);
    return 0;
}

static int is(const char *p, size_t len, const char *s) {
    return strlen(s) == len && memcmp(p, s, len) == 0;
}

/* The target without its query. */
static size_t path_length(const char *target, size_t len) {
    const char *q = memchr(target, '?', len);
    return q ? (size_t)(q - target) : len;
}

int route_is_upload(const char *head, size_t head_len) {
    const char *m, *t;
    size_t ml, tl;
    return request_line(head, head_len, &m, &ml, &t, &tl) == 0 && is(m, ml, "POST") &&
           is(t, path_length(t, tl), "/v1/images/edits");
}

void answer_request(const char *head, size_t head_len, const char *raw, size_t raw_len,
                    const char *body, size_t body_len, struct reply *r) {
    const char *m, *t;
    size_t ml, tl;
    reply_reset(r);
    if (request_line(head, head_len, &m, &ml, &t, &tl) < 0) {
        static const char msg[] = "{\"error\":\"bad request line\"}";
        answer_own(r, "400 Bad Request", "application/json", msg, sizeof msg - 1);
        return;
    }
    size_t pl = path_length(t, tl);
    if (is(m, ml, "POST") && is(t, pl, "/v1/chat/completions")) {
        g_stats.requests++;
        if (wants_stream(body, body_len)) {
            record_set(&records[KIND_STREAM], head, head_len, raw, raw_len);
            answer_stream(stream_events(body, body_len), r);
        } else {
            record_set(&records[raw_len > BIG_BODY ? KIND_BIG : KIND_CHAT], head, head_len, raw,
                       raw_len);
            add_seg(r, chat_answer, 0, chat_answer_len, 1);
        }
    } else if (is(m, ml, "GET") && is(t, pl, "/__stats")) {
        answer_stats(r);
    } else if (is(m, ml, "GET") && is(t, pl, "/__last")) {
        answer_last(t, tl, r);
    } else {
        static const char msg[] = "{\"error\":\"the load server has no such route\"}";
        answer_own(r, "404 Not Found", "application/json", msg, sizeof msg - 1);
    }
}

struct record *upload_record_begin(const char *head, size_t head_len) {
    struct record *rec = &records[KIND_UPLOAD];
    record_set(rec, head, head_len, NULL, 0);
    return rec;
}

void upload_answer(struct reply *r) {
    reply_reset(r);
    g_stats.requests++;
    add_seg(r, images_answer, 0, images_answer_len, 1);
}
