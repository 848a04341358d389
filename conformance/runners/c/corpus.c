/* The corpus for the C runner: loading, skips, checks and the printed line (corpus.h). */
#define _POSIX_C_SOURCE 200809L
#include "corpus.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include "gw.h"

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) { free(buf); buf = NULL; break; }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const conf_case *)a)->name, ((const conf_case *)b)->name);
}

static void walk(const char *root, const char *rel, conf_case **cases, size_t *n, size_t *cap)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d) { fprintf(stderr, "conformance c: cannot open %s\n", dir); exit(2); }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[1024], path[2048];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(path, sizeof path, "%s/%s", root, sub);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) { walk(root, sub, cases, n, cap); continue; }
        size_t len = strlen(sub);
        if (len < 6 || strcmp(sub + len - 5, ".json") != 0) continue;
        char *text = read_file(path);
        cJSON *doc = text ? cJSON_Parse(text) : NULL;
        free(text);
        if (!doc) { fprintf(stderr, "conformance c: %s is not JSON\n", path); exit(2); }
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *cases = realloc(*cases, *cap * sizeof **cases);
            if (!*cases) exit(2);
        }
        conf_case *c = &(*cases)[(*n)++];
        snprintf(c->name, sizeof c->name, "%.*s", (int)(len - 5), sub);
        c->doc = doc;
    }
    closedir(d);
}

size_t corpus_load(const char *dir, conf_case **cases)
{
    char root[1024];
    snprintf(root, sizeof root, "%s/cases", dir);
    size_t n = 0, cap = 0;
    *cases = NULL;
    walk(root, "", cases, &n, &cap);
    qsort(*cases, n, sizeof **cases, by_name);
    return n;
}

void corpus_free(conf_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) cJSON_Delete(cases[i].doc);
    free(cases);
}

static cJSON *skip_doc;

const char *corpus_skip_reason(const char *dir, const char *language, const char *name)
{
    if (!skip_doc) {
        char path[1024];
        snprintf(path, sizeof path, "%s/skip.json", dir);
        char *text = read_file(path);
        skip_doc = text ? cJSON_Parse(text) : NULL;
        free(text);
        if (!skip_doc) { fprintf(stderr, "conformance c: %s is unreadable\n", path); exit(2); }
    }
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(skip_doc, language), name);
    return cJSON_IsString(why) ? why->valuestring : NULL;
}

const cJSON *corpus_value_at(const cJSON *doc, const char *path)
{
    if (!doc) return NULL;
    if (!*path) return doc;
    char step[256];
    const char *p = path;
    const cJSON *node = doc;
    while (node && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        snprintf(step, sizeof step, "%.*s", (int)len, p);
        if (cJSON_IsArray(node)) {
            char *end;
            long i = strtol(step, &end, 10);
            node = (*end || i < 0) ? NULL : cJSON_GetArrayItem(node, (int)i);
        } else if (cJSON_IsObject(node)) {
            node = cJSON_GetObjectItemCaseSensitive(node, step);
        } else {
            node = NULL;
        }
        p = dot ? dot + 1 : p + len;
    }
    return node;
}

/* JSON equality, numbers by value (1 == 1.0). */
static int same(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) return a->valuedouble == b->valuedouble;
    return cJSON_Compare(a, b, 1);
}

/* A growing description of differences. */
typedef struct problems { char *text; size_t len; } problems;

static void add(problems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(problems *p, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t more = strlen(line) + 2;
    p->text = realloc(p->text, p->len + more + 1);
    if (!p->text) exit(2);
    sprintf(p->text + p->len, "%s%s", p->len ? "; " : "", line);
    p->len = strlen(p->text);
}

static char *show(const cJSON *v)
{
    return v ? cJSON_PrintUnformatted(v) : strdup("nothing");
}

static void check_pairs(problems *p, const char *what, const cJSON *doc, const cJSON *pairs)
{
    const cJSON *pair;
    cJSON_ArrayForEach(pair, pairs) {
        const cJSON *path = cJSON_GetArrayItem(pair, 0), *want = cJSON_GetArrayItem(pair, 1);
        if (!cJSON_IsString(path) || !want) { add(p, "%s: malformed pair", what); continue; }
        const cJSON *got = corpus_value_at(doc, path->valuestring);
        int ok = (cJSON_IsNull(want) && (!got || cJSON_IsNull(got))) || (got && same(got, want));
        if (!ok) {
            char *g = show(got), *w = show(want);
            add(p, "%s %s: got %.300s, expected %s", what, path->valuestring, g, w);
            free(g);
            free(w);
        }
    }
}

static void check_error(problems *p, const cJSON *want, const cJSON *out)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(out, "error");
    const cJSON *item;
    cJSON_ArrayForEach(item, want) {
        const char *k = item->string;
        if (!strcmp(k, "message_contains") || !strcmp(k, "message_lacks")) {
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
            const char *message = cJSON_IsString(m) ? m->valuestring : "";
            int holds = cJSON_IsString(item) && strstr(message, item->valuestring) != NULL;
            if (holds != !strcmp(k, "message_contains"))
                add(p, "error.message %s \"%s\": \"%.300s\"", k, item->valuestring, message);
            continue;
        }
        const cJSON *got = cJSON_GetObjectItemCaseSensitive(err, k);
        if (!got || !same(got, item)) {
            char *g = show(got), *w = show(item);
            add(p, "error.%s: got %s, expected %s", k, g, w);
            free(g);
            free(w);
        }
    }
}

static void check_events(problems *p, const cJSON *want, const conf_observed *seen)
{
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(want, "count");
    const cJSON *min = cJSON_GetObjectItemCaseSensitive(want, "min_count");
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(want, "text");
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(want, "names");
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(want, "first_name");
    const cJSON *last = cJSON_GetObjectItemCaseSensitive(want, "last_name");
    size_t n = seen->n_events;
    if (cJSON_IsNumber(count) && (double)n != count->valuedouble)
        add(p, "events: %zu, expected %g", n, count->valuedouble);
    if (cJSON_IsNumber(min) && (double)n < min->valuedouble)
        add(p, "events: %zu, expected at least %g", n, min->valuedouble);
    if (cJSON_IsString(text)) {
        size_t len = 0;
        for (size_t i = 0; i < n; i++)
            if (seen->events[i].text_delta && seen->events[i].choice_index == 0)
                len += strlen(seen->events[i].text_delta);
        char *joined = calloc(len + 1, 1);
        for (size_t i = 0; joined && i < n; i++)
            if (seen->events[i].text_delta && seen->events[i].choice_index == 0)
                strcat(joined, seen->events[i].text_delta);
        if (!joined || strcmp(joined, text->valuestring) != 0)
            add(p, "event text \"%.300s\", expected \"%s\"", joined ? joined : "", text->valuestring);
        free(joined);
    }
    if (cJSON_IsArray(names)) {
        int ok = (size_t)cJSON_GetArraySize(names) == n;
        for (size_t i = 0; ok && i < n; i++) {
            const cJSON *w = cJSON_GetArrayItem(names, (int)i);
            ok = cJSON_IsString(w) && !strcmp(w->valuestring, seen->events[i].name);
        }
        if (!ok) add(p, "event names differ (%zu events)", n);
    }
    if (cJSON_IsString(first) && (n == 0 || strcmp(seen->events[0].name, first->valuestring)))
        add(p, "first_name: %s, expected %s", n ? seen->events[0].name : "none", first->valuestring);
    if (cJSON_IsString(last) && (n == 0 || strcmp(seen->events[n - 1].name, last->valuestring)))
        add(p, "last_name: %s, expected %s", n ? seen->events[n - 1].name : "none", last->valuestring);
}

static void check_headers(problems *p, const cJSON *want, const cJSON *headers)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, want) {
        const char *got = NULL;
        const cJSON *h;
        cJSON_ArrayForEach(h, headers) {
            const cJSON *n = cJSON_GetArrayItem(h, 0), *v = cJSON_GetArrayItem(h, 1);
            if (cJSON_IsString(n) && cJSON_IsString(v) && !strcasecmp(n->valuestring, item->string))
                got = v->valuestring;
        }
        int ok = cJSON_IsNull(item) ? got == NULL
                                    : (cJSON_IsString(item) && got && !strcmp(got, item->valuestring));
        if (!ok) add(p, "sent header %s: got %s", item->string, got ? got : "none");
    }
}

/* Whether needle occurs in haystack, ASCII letters in any case. */
static int strcasestr_ascii(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (; *haystack; haystack++)
        if (strncasecmp(haystack, needle, n) == 0) return 1;
    return 0;
}

char *corpus_check(const cJSON *c, const conf_observed *seen)
{
    problems p = {NULL, 0};
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(c, "expect");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(e, "status");
    if (cJSON_IsNumber(status) && seen->status != status->valueint) {
        char *o = show(seen->out);
        add(&p, "status %d (%s), expected %d; out: %.300s", seen->status,
            gw_status_str(seen->status), status->valueint, o);
        free(o);
    }
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(e, "error");
    if (err) check_error(&p, err, seen->out);
    const cJSON *answer = cJSON_GetObjectItemCaseSensitive(e, "answer");
    if (answer) check_pairs(&p, "answer", seen->out, answer);
    const cJSON *lacks = cJSON_GetObjectItemCaseSensitive(e, "answer_lacks"), *path;
    cJSON_ArrayForEach(path, lacks) {
        const cJSON *got = corpus_value_at(seen->out, cJSON_IsString(path) ? path->valuestring : "");
        if (got && !cJSON_IsNull(got)) add(&p, "answer %s: expected absent", path->valuestring);
    }
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(e, "events");
    if (events) check_events(&p, events, seen);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(e, "meta");
    const cJSON *attempts = cJSON_GetObjectItemCaseSensitive(meta, "attempts");
    if (cJSON_IsNumber(attempts) && seen->attempts != (long long)attempts->valuedouble)
        add(&p, "meta.attempts %lld, expected %g", seen->attempts, attempts->valuedouble);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(meta, "request_id")) && !seen->request_id)
        add(&p, "meta.request_id: absent");
    const cJSON *lacks_text = cJSON_GetObjectItemCaseSensitive(meta, "text_lacks");
    if (cJSON_IsString(lacks_text) && seen->meta_text && strcasestr_ascii(seen->meta_text, lacks_text->valuestring))
        add(&p, "metadata holds \"%s\" (any case)", lacks_text->valuestring);
    const cJSON *query = cJSON_GetObjectItemCaseSensitive(e, "sent_query");
    if (cJSON_IsString(query) && (!seen->last_query || strcmp(seen->last_query, query->valuestring)))
        add(&p, "sent query %s, expected %s", seen->last_query ? seen->last_query : "none", query->valuestring);
    const cJSON *sent = cJSON_GetObjectItemCaseSensitive(e, "sent");
    if (cJSON_IsNumber(sent) && seen->sent != (long long)sent->valuedouble)
        add(&p, "sent %lld requests, expected %g", seen->sent, sent->valuedouble);
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(e, "sent_body");
    if (body) check_pairs(&p, "sent_body", seen->last_body, body);
    const cJSON *headers = cJSON_GetObjectItemCaseSensitive(e, "sent_header");
    if (headers) check_headers(&p, headers, seen->last_headers);
    const cJSON *cancel = cJSON_GetObjectItemCaseSensitive(c, "cancel");
    const cJSON *bound = cJSON_GetObjectItemCaseSensitive(cancel, "bound_ms");
    if (cJSON_IsNumber(bound) &&
        (seen->cancel_to_return_ms < 0 || seen->cancel_to_return_ms > (long long)bound->valuedouble))
        add(&p, "cancel to return: %lld ms, bound %g ms", seen->cancel_to_return_ms, bound->valuedouble);
    return p.text;
}

/* Outcomes, kept in the order recorded (the cases come sorted). */
static char *tsv;
static size_t tsv_len;
static int passed, failed, skipped;

static const char *language_name = "c";

void corpus_language(const char *language) { language_name = language; }

void corpus_record(const char *name, const char *word, const char *why)
{
    if (!strcmp(word, "pass")) passed++;
    else if (!strcmp(word, "fail")) {
        failed++;
        printf("conformance %s FAIL %s: %s\n", language_name, name, why);
    }
    else skipped++;
    size_t more = strlen(name) + strlen(word) + strlen(why) + 4;
    tsv = realloc(tsv, tsv_len + more);
    if (!tsv) exit(2);
    int n = sprintf(tsv + tsv_len, "%s\t%s\t", name, word);
    for (const char *w = why; *w; w++) tsv[tsv_len + n++] = (*w == '\t' || *w == '\n') ? ' ' : *w;
    tsv[tsv_len + n++] = '\n';
    tsv[tsv_len + n] = '\0';
    tsv_len += (size_t)n;
}

int corpus_finish(const char *tsv_path, const char *language)
{
    FILE *f = fopen(tsv_path, "w");
    if (f) {
        if (tsv) fputs(tsv, f);
        fclose(f);
    }
    free(tsv);
    tsv = NULL;
    cJSON_Delete(skip_doc);
    skip_doc = NULL;
    printf("conformance %s: %d passed, %d failed, %d skipped\n", language, passed, failed, skipped);
    return failed ? 1 : 0;
}
