/*
 * The C runner's view of the corpus (conformance/README.md): case files read with cJSON,
 * the skip list, the checks of `expect`, and the printed line. Knows nothing of gw's calls.
 */
#ifndef GW_CONFORMANCE_CORPUS_H
#define GW_CONFORMANCE_CORPUS_H

#include <stddef.h>
#include <cjson/cJSON.h>

typedef struct conf_case {
    char name[512];   /* path under cases/ without .json */
    cJSON *doc;       /* the whole case */
} conf_case;

typedef struct conf_event {
    char *name;
    char *text_delta; /* NULL when the event carries none */
    size_t choice_index;
} conf_event;

/* What one call gave. */
typedef struct conf_observed {
    int status;
    cJSON *out;            /* the answer, or the error object; may be NULL */
    conf_event *events;
    size_t n_events;
    long long attempts;    /* -1: no metadata */
    int request_id;
    char *meta_text;       /* gw_client_last_response's JSON, or NULL */
    long long cancel_to_return_ms; /* -1: no cancel */
    long long sent;
    cJSON *last_body;      /* the last recorded request's JSON body, or NULL */
    cJSON *last_headers;   /* array of [name, value] from the mock, or NULL */
    char *last_query;      /* the last recorded request's raw query, or NULL */
} conf_observed;

/* Reads every case under dir/cases, sorted by name; returns the count. */
size_t corpus_load(const char *dir, conf_case **cases);
void corpus_free(conf_case *cases, size_t n);
/* The skip reason of `name` for `language` in dir/skip.json, or NULL. Owned by the corpus. */
const char *corpus_skip_reason(const char *dir, const char *language, const char *name);

/* NULL when every expectation holds, else a malloc'd description of the differences. */
char *corpus_check(const cJSON *c, const conf_observed *seen);

/* Walks a dotted path of keys and indexes. */
const cJSON *corpus_value_at(const cJSON *doc, const char *path);

/* The language the FAIL lines name ("c" unless set). */
void corpus_language(const char *language);
/* Records outcomes and writes build/conformance/<language>.tsv; prints the line. */
void corpus_record(const char *name, const char *word, const char *why);
int corpus_finish(const char *tsv_path, const char *language);

#endif
