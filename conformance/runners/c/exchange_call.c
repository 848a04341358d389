/* The corpus's verbs as exchanges driven by gw_loop (exchange_call.h). */
#define _POSIX_C_SOURCE 200809L
#include "exchange_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the loop's handlers fill in. */
typedef struct outcome {
    int status;
    char *out;
    events *evs;
} outcome;

static int on_event(const gw_event *ev, void *user)
{
    outcome *o = user;
    return collect_event(ev, o->evs);
}

static void on_done(int status, const char *out, void *user)
{
    outcome *o = user;
    o->status = status;
    o->out = out ? strdup(out) : NULL;
}

static const char *text_at(const cJSON *doc, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* `value` as one path segment, percent-encoded as gw encodes path parameters: an id holding
 * '/' or '?' stays one segment. */
static void add_segment(char *path, size_t size, const char *value)
{
    size_t at = strlen(path);
    for (const unsigned char *p = (const unsigned char *)value; *p && at + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~:@", *p) != NULL)
            path[at++] = (char)*p;
        else
            at += (size_t)snprintf(path + at, size - at, "%%%02X", *p);
    }
    path[at] = '\0';
}

/* The method, path and flags of `verb`; 0, or -1 for a verb no single exchange is. */
static int route(const char *verb, const cJSON *args, const char **method, char *path,
                 size_t size, int *flags)
{
    static const struct {
        const char *verb, *path;
        int flags;
    } posts[] = {
        {"chat", "/v1/chat/completions", 0},
        {"chatStream", "/v1/chat/completions", GW_EXCHANGE_STREAM},
        {"responses", "/v1/responses", 0},
        {"responsesStream", "/v1/responses", GW_EXCHANGE_STREAM},
        {"embeddings", "/v1/embeddings", 0},
        {"imageGenerate", "/v1/images/generations", 0},
        {"imageEdit", "/v1/images/edits", 0},
        {"videoCreate", "/v1/video/create", 0},
        {"videoGenerate", "/v1/video/generations", 0},
        {"videoCharacter", "/v1/videos", 0},
    };
    *method = "POST";
    *flags = 0;
    path[0] = '\0';
    for (size_t i = 0; i < sizeof posts / sizeof posts[0]; i++) {
        if (strcmp(verb, posts[i].verb) == 0) {
            snprintf(path, size, "%s", posts[i].path);
            *flags = posts[i].flags;
            return 0;
        }
    }
    const char *id = text_at(args, "id");
    if (strcmp(verb, "videoRemix") == 0) {
        snprintf(path, size, "/v1/videos/");
        add_segment(path, size, id);
        strncat(path, "/remix", size - strlen(path) - 1);
        return 0;
    }
    if (strcmp(verb, "generateContent") == 0) {
        snprintf(path, size, "/v1beta/models/");
        add_segment(path, size, text_at(args, "model"));
        strncat(path, ":generateContent", size - strlen(path) - 1);
        return 0;
    }
    if (strcmp(verb, "videoStatus") == 0) {
        static const struct {
            const char *family, *prefix;
        } families[] = {
            {"unified", "/v1/video/generations/"},
            {"character", "/v1/videos/"},
            {"vendor_k", "/vendorK/v1/videos/"},
            {"vendor_r", "/vendorR/task/"},
        };
        const char *family = text_at(args, "family");
        for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
            if (strcmp(family, families[i].family) == 0) {
                *method = "GET";
                snprintf(path, size, "%s", families[i].prefix);
                add_segment(path, size, id);
                return 0;
            }
        }
        return -1;
    }
    if (strcmp(verb, "request") == 0) {
        *method = text_at(args, "method");
        snprintf(path, size, "%s", text_at(args, "path"));
        return 0;
    }
    return -1; /* videoWait is an exchange of its own (wait_exchange) */
}

static int family_of(const char *name)
{
    if (!strcmp(name, "unified")) return GW_VIDEO_UNIFIED;
    if (!strcmp(name, "character")) return GW_VIDEO_CHARACTER;
    if (!strcmp(name, "vendor_k")) return GW_VIDEO_VENDOR_K;
    if (!strcmp(name, "vendor_r")) return GW_VIDEO_VENDOR_R;
    return -1;
}

/* videoWait's exchange: gw_exchange_new_video_wait with the case's wait options. */
static int wait_exchange(const gw_client *client, const cJSON *args, gw_exchange **ex,
                         char **err)
{
    char *wait = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(args, "wait"));
    int status = gw_exchange_new_video_wait(client, family_of(text_at(args, "family")),
                                            text_at(args, "id"), wait, ex, err);
    free(wait);
    return status;
}

/* A wait's events are its polls' records, which gw_video_wait's runner asks no callback for:
 * not collected, so both runners see the same. */
static int skip_event(const gw_event *ev, void *user)
{
    (void)ev;
    (void)user;
    return 0;
}

int exchange_call(gwl_loop *loop, const gw_client *client, const char *verb, const char *body,
                  const cJSON *args, events *evs, char **out)
{
    const char *method;
    char path[2048];
    int flags;
    *out = NULL;
    gw_exchange *ex = NULL;
    char *err = NULL;
    int status;
    int waiting = strcmp(verb, "videoWait") == 0;
    if (waiting)
        status = wait_exchange(client, args, &ex, &err);
    else if (route(verb, args, &method, path, sizeof path, &flags) != 0)
        return EXCHANGE_NO_SUCH_CALL;
    else
        status = gw_exchange_new(client, method, path, body, flags, &ex, &err);
    if (status != GW_OK) {
        *out = err ? strdup(err) : NULL;
        gw_free(err);
        return status;
    }
    outcome o = {GW_INTERNAL, NULL, evs};
    static const gwl_handlers handlers = {on_event, on_done};
    static const gwl_handlers wait_handlers = {skip_event, on_done};
    if (gwl_add(loop, ex, waiting ? &wait_handlers : &handlers, &o) != 0 || gwl_run(loop) != 0) {
        fprintf(stderr, "conformance c-exchange: the loop failed\n");
        return GW_INTERNAL;
    }
    *out = o.out;
    return o.status;
}
