/*
 * N streamed chats at once on one thread: gw's exchange driven by gw_loop (epoll,
 * non-blocking sockets), the way an event-loop program uses gw. Each chat asks for its own
 * text and checks the answer it streamed; the summary says how many came back right.
 *
 *   GW_BASE_URL=http://127.0.0.1:8080 GW_API_KEY=sk-... ./many_streams [N]
 *
 * gw_loop speaks plain http:// to numeric addresses (see gw_loop.h). Against gw-mock, which
 * answers "Echo: <the prompt>", every text is checked; against another gateway, say
 * GW_EXPECT_ECHO=0 and the program only counts what streamed.
 * Build: cc -std=c11 many_streams.c gw_loop.c gwl_*.c -lz $(pkg-config --cflags --libs gw)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gw.h"
#include "gw_loop.h"

/* One chat: what it asked, what it heard. */
typedef struct chat {
    int number;
    char prompt[64];
    char *text; /* the streamed text of choice 0 */
    size_t text_len;
    size_t events;
    int status; /* 1: not over yet */
    int *over;  /* counts finished chats */
} chat;

static int on_event(const gw_event *event, void *user)
{
    chat *c = user;
    c->events++;
    if (event->text_delta == NULL || event->choice_index != 0) return 0;
    char *grown = realloc(c->text, c->text_len + event->text_delta_len + 1);
    if (grown == NULL) return 1; /* cancels this chat */
    memcpy(grown + c->text_len, event->text_delta, event->text_delta_len);
    c->text = grown;
    c->text_len += event->text_delta_len;
    c->text[c->text_len] = '\0';
    return 0;
}

static void on_done(int status, const char *out, void *user)
{
    chat *c = user;
    c->status = status;
    (*c->over)++;
    if (status != GW_OK)
        fprintf(stderr, "chat %d: %s %s\n", c->number, gw_status_str(status), out ? out : "");
}

/* Each open socket is a file descriptor: ask for as many as the hard limit allows. */
static void raise_fd_limit(void)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    if (n < 1 || n > 100000) {
        fprintf(stderr, "usage: %s [number of chats, 1..100000]\n", argv[0]);
        return 2;
    }
    const char *expect = getenv("GW_EXPECT_ECHO");
    int check_echo = expect == NULL || strcmp(expect, "0") != 0;
    const char *model = getenv("GW_CHAT_MODEL");
    char *model_json = NULL;
    if (gw_json_quote(model ? model : "chat-model", &model_json) != GW_OK) {
        fprintf(stderr, "GW_CHAT_MODEL: %s\n", gw_last_error());
        return 1;
    }
    raise_fd_limit();

    gw_client *client = gw_client_new(NULL, NULL); /* GW_BASE_URL, GW_API_KEY */
    gwl_loop *loop = gwl_loop_new();
    chat *chats = calloc((size_t)n, sizeof *chats);
    if (client == NULL || loop == NULL || chats == NULL) {
        fprintf(stderr, "setup failed: %s\n", client ? "out of memory" : gw_last_error());
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int over = 0;
    gwl_handlers handlers = {on_event, on_done};
    for (int i = 0; i < n; i++) {
        chat *c = &chats[i];
        c->number = i;
        c->status = 1;
        c->over = &over;
        snprintf(c->prompt, sizeof c->prompt, "stream %d of %d", i, n);
        char request[512];
        snprintf(request, sizeof request,
                 "{\"model\": %s, \"messages\": [{\"role\": \"user\", \"content\": \"%s\"}]}",
                 model_json, c->prompt);
        gw_exchange *ex = NULL;
        char *err = NULL;
        int rc = gw_exchange_new(client, "POST", "/v1/chat/completions", request,
                                 GW_EXCHANGE_STREAM, &ex, &err);
        if (rc != GW_OK || gwl_add(loop, ex, &handlers, c) != 0) {
            fprintf(stderr, "chat %d not started: %s\n", i, err ? err : "out of memory");
            gw_free(err);
            c->status = rc != GW_OK ? rc : GW_INTERNAL;
            over++;
        }
    }
    if (gwl_run(loop) != 0) perror("epoll_wait");
    clock_gettime(CLOCK_MONOTONIC, &t1);

    int ok = 0, wrong = 0, failed = 0;
    size_t events = 0;
    for (int i = 0; i < n; i++) {
        chat *c = &chats[i];
        events += c->events;
        if (c->status != GW_OK) {
            failed++;
        } else if (check_echo) {
            char want[96];
            snprintf(want, sizeof want, "Echo: %s", c->prompt);
            if (c->text != NULL && strcmp(c->text, want) == 0) {
                ok++;
            } else {
                wrong++;
                fprintf(stderr, "chat %d streamed '%s', not '%s'\n", i, c->text ? c->text : "", want);
            }
        } else {
            ok += c->text_len > 0;
            wrong += c->text_len == 0;
        }
        free(c->text);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    printf("many_streams: %d streamed chats on one thread: %d right, %d wrong text, %d failed; "
           "%zu events in %.2f s (CPU %.2f s, peak RSS %.1f MiB)\n",
           n, ok, wrong, failed, events, wall, cpu, (double)ru.ru_maxrss / 1024.0);
    free(chats);
    gwl_loop_free(loop);
    gw_client_free(client);
    gw_free(model_json);
    return ok == n && over == n ? 0 : 1;
}
