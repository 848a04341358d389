/*
 * The conformance corpus run through gw's C API against gw-mock (GW_TEST_BASE_URL):
 * every case file a test. Usage: runner [--exchange] <conformance dir> <tsv out>. Prints
 * "conformance c: P passed, F failed, S skipped"; exits 1 when a case failed.
 * --exchange: every call is an exchange (gw_exchange_new) driven by examples/exchange's
 * gw_loop on this thread instead of a blocking gw call; the language is then "c-exchange".
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "events.h"
#include "exchange_call.h"
#include "gw.h"

static gw_client *control; /* the mock's /__mock endpoints */
static gwl_loop *loop;     /* --exchange: the loop every call runs on; NULL: blocking calls */
static const char *language = "c";

/* Frees a call's *out: gw's text from a blocking call, a copy from the loop. */
static void release(char *out)
{
    if (loop) free(out);
    else gw_free(out);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static cJSON *control_call(const char *method, const char *path, const char *body)
{
    char *out = NULL;
    int rc = gw_request(control, method, path, body, &out);
    cJSON *doc = (rc == GW_OK && out) ? cJSON_Parse(out) : NULL;
    if (rc != GW_OK) fprintf(stderr, "conformance c: %s %s: %s\n", method, path, out ? out : "");
    gw_free(out);
    return doc;
}

static int family_of(const char *name)
{
    if (!strcmp(name, "unified")) return GW_VIDEO_UNIFIED;
    if (!strcmp(name, "character")) return GW_VIDEO_CHARACTER;
    if (!strcmp(name, "vendor_k")) return GW_VIDEO_VENDOR_K;
    if (!strcmp(name, "vendor_r")) return GW_VIDEO_VENDOR_R;
    return -1;
}

static const char *text_at(const cJSON *doc, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* One call of `verb`, the way a C user makes it. -100: the runner knows no such verb. */
static int call(gw_client *c, const char *verb, const char *body, const cJSON *args, events *evs,
                char **out)
{
    if (loop) return exchange_call(loop, c, verb, body, args, evs, out);
    const char *id = text_at(args, "id");
    if (!strcmp(verb, "chat")) return gw_chat(c, body, out);
    if (!strcmp(verb, "chatStream")) return gw_chat_stream(c, body, collect_event, evs, out);
    if (!strcmp(verb, "responses")) return gw_responses(c, body, out);
    if (!strcmp(verb, "responsesStream")) return gw_responses_stream(c, body, collect_event, evs, out);
    if (!strcmp(verb, "embeddings")) return gw_embeddings(c, body, out);
    if (!strcmp(verb, "imageGenerate")) return gw_image_generate(c, body, out);
    if (!strcmp(verb, "imageEdit")) return gw_image_edit(c, body, out);
    if (!strcmp(verb, "videoCreate")) return gw_video_create(c, body, out);
    if (!strcmp(verb, "videoGenerate")) return gw_video_generate(c, body, out);
    if (!strcmp(verb, "videoCharacter")) return gw_video_character(c, body, out);
    if (!strcmp(verb, "videoRemix")) return gw_video_remix(c, id, body, out);
    if (!strcmp(verb, "generateContent"))
        return gw_generate_content(c, text_at(args, "model"), body, out);
    if (!strcmp(verb, "videoStatus"))
        return gw_video_status(c, family_of(text_at(args, "family")), id, out);
    if (!strcmp(verb, "videoWait")) {
        char *wait = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(args, "wait"));
        int rc = gw_video_wait(c, family_of(text_at(args, "family")), id, wait, NULL, NULL, out);
        free(wait);
        return rc;
    }
    if (!strcmp(verb, "request"))
        return gw_request(c, text_at(args, "method"), text_at(args, "path"), body, out);
    return -100;
}

typedef struct canceller {
    gw_client *handle;
    long long after_ms;
    long long cancelled_at;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *k = arg;
    struct timespec ts = {k->after_ms / 1000, (k->after_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    k->cancelled_at = now_ms();
    gw_client_cancel(k->handle);
    if (loop) gwl_wake(loop); /* the loop steps its call, which sees the cancel */
    return NULL;
}

/* The client options of a case: the runner's own, then the case's over them. */
static char *client_options(const char *base_url, const cJSON *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "base_url", base_url);
    cJSON_AddStringToObject(o, "api_key", "sk-test");
    cJSON_AddNumberToObject(o, "retry_base_delay_ms", 5);
    cJSON_AddNumberToObject(o, "retry_max_delay_ms", 20);
    const cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(c, "options")) {
        cJSON_DeleteItemFromObjectCaseSensitive(o, item->string);
        cJSON_AddItemToObject(o, item->string, cJSON_Duplicate(item, 1));
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static long long recorded_count(cJSON **last_body, cJSON **last_headers, char **last_query)
{
    cJSON *reqs = control_call("GET", "/__mock/requests", NULL);
    int n = cJSON_GetArraySize(reqs);
    if (last_body && n > 0) {
        cJSON *last = cJSON_GetArrayItem(reqs, n - 1);
        *last_body = cJSON_DetachItemFromObjectCaseSensitive(last, "json");
        *last_headers = cJSON_DetachItemFromObjectCaseSensitive(last, "headers");
        const cJSON *query = cJSON_GetObjectItemCaseSensitive(last, "query");
        *last_query = cJSON_IsString(query) ? strdup(query->valuestring) : NULL;
    }
    cJSON_Delete(reqs);
    return n;
}

/* Runs one case; returns NULL when it passed, else why (malloc'd). */
static char *run_case(const char *base_url, const cJSON *c)
{
    cJSON_Delete(control_call("POST", "/__mock/reset", "{}"));
    conf_observed seen = {0};
    seen.attempts = -1;
    seen.cancel_to_return_ms = -1;
    char *out = NULL, *why = NULL;
    const char *verb = text_at(c, "operation");
    char *options = client_options(base_url, c);
    gw_client *base = NULL;
    int rc = gw_client_create(options, &base, &out);
    free(options);
    cJSON *args = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(c, "args"), 1);
    if (!args) args = cJSON_CreateObject();
    events evs = {0};
    long long setup_requests = 0;
    if (rc == GW_OK) {
        const cJSON *setup = cJSON_GetObjectItemCaseSensitive(c, "setup");
        if (setup) {
            char *body = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(setup, "request"));
            char *made = NULL;
            events ignored = {0};
            int src = call(base, text_at(setup, "operation"), body, args, &ignored, &made);
            cJSON *doc = src == GW_OK ? cJSON_Parse(made) : NULL;
            const char *id_path = text_at(setup, "id_path");
            const cJSON *id = corpus_value_at(doc, *id_path ? id_path : "id");
            if (cJSON_IsString(id)) {
                cJSON_DeleteItemFromObjectCaseSensitive(args, "id");
                cJSON_AddStringToObject(args, "id", id->valuestring);
            } else {
                why = strdup("setup failed");
            }
            cJSON_Delete(doc);
            release(made);
            free(body);
            setup_requests = recorded_count(NULL, NULL, NULL);
        }
        const cJSON *faults = cJSON_GetObjectItemCaseSensitive(c, "faults");
        const cJSON *fault, *queue = why ? NULL : faults;
        /* One POST a fault (they queue in order): gw_request sends only JSON objects. */
        cJSON_ArrayForEach(fault, queue) {
            char *f = cJSON_PrintUnformatted(fault);
            cJSON_Delete(control_call("POST", "/__mock/faults", f));
            free(f);
        }
        /* A handle of its own per call, as bindings derive one: its metadata is this call's. */
        gw_client *handle = gw_client_derive(base, NULL);
        const cJSON *cancel = cJSON_GetObjectItemCaseSensitive(c, "cancel");
        canceller k = {handle, 0, 0};
        pthread_t thread;
        if (cancel) {
            k.after_ms = (long long)cJSON_GetObjectItemCaseSensitive(cancel, "after_ms")->valuedouble;
            pthread_create(&thread, NULL, cancel_later, &k);
        }
        const cJSON *request = cJSON_GetObjectItemCaseSensitive(c, "request");
        const cJSON *request_text = cJSON_GetObjectItemCaseSensitive(c, "request_text");
        char *body = request ? cJSON_PrintUnformatted(request)
                   : cJSON_IsString(request_text) ? strdup(request_text->valuestring) : NULL;
        if (!why) {
            rc = call(handle, verb, body, args, &evs, &out);
            if (rc == EXCHANGE_NO_SUCH_CALL) why = strdup("the C runner knows no such verb");
        }
        long long returned = now_ms();
        if (cancel) {
            pthread_join(thread, NULL);
            seen.cancel_to_return_ms = returned - k.cancelled_at;
        }
        free(body);
        char *meta_text = NULL;
        if (gw_client_last_response(handle, &meta_text) == GW_OK && meta_text) {
            cJSON *meta = cJSON_Parse(meta_text);
            const cJSON *attempts = cJSON_GetObjectItemCaseSensitive(meta, "attempts");
            if (cJSON_IsNumber(attempts)) seen.attempts = (long long)attempts->valuedouble;
            seen.request_id = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(meta, "request_id"));
            cJSON_Delete(meta);
            seen.meta_text = strdup(meta_text);
        }
        gw_free(meta_text);
        gw_client_free(handle);
    }
    gw_client_free(base);
    seen.status = rc;
    seen.out = out ? cJSON_Parse(out) : NULL;
    if (out && !seen.out) seen.out = cJSON_CreateString(out);
    release(out);
    seen.events = evs.items;
    seen.n_events = evs.n;
    seen.sent = recorded_count(&seen.last_body, &seen.last_headers, &seen.last_query) - setup_requests;
    if (!why) why = corpus_check(c, &seen);
    events_free(&evs);
    cJSON_Delete(seen.out);
    cJSON_Delete(seen.last_body);
    cJSON_Delete(seen.last_headers);
    free(seen.last_query);
    free(seen.meta_text);
    cJSON_Delete(args);
    return why;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--exchange")) {
        loop = gwl_loop_new();
        if (!loop) { perror("conformance c-exchange: gwl_loop_new"); return 2; }
        language = "c-exchange";
        corpus_language(language);
        argv++;
        argc--;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: %s [--exchange] <conformance dir> <tsv out>\n", argv[0]);
        return 2;
    }
    const char *base_url = getenv("GW_TEST_BASE_URL");
    if (!base_url) {
        fprintf(stderr, "conformance %s: GW_TEST_BASE_URL is not set (the gw-mock address)\n", language);
        return 2;
    }
    char options[1024];
    snprintf(options, sizeof options,
             "{\"base_url\":\"%s\",\"api_key\":\"sk-test\",\"max_retries\":0}", base_url);
    char *err = NULL;
    if (gw_client_create(options, &control, &err) != GW_OK) {
        fprintf(stderr, "conformance c: %s\n", err);
        gw_free(err);
        return 2;
    }
    conf_case *cases;
    size_t n = corpus_load(argv[1], &cases);
    for (size_t i = 0; i < n; i++) {
        const char *skip = corpus_skip_reason(argv[1], language, cases[i].name);
        if (skip) {
            corpus_record(cases[i].name, "skip", skip);
            continue;
        }
        char *why = run_case(base_url, cases[i].doc);
        corpus_record(cases[i].name, why ? "fail" : "pass", why ? why : "");
        free(why);
    }
    corpus_free(cases, n);
    gw_client_free(control);
    gwl_loop_free(loop);
    return corpus_finish(argv[2], language);
}
