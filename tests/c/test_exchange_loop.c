/*
 * The exchange driven by examples/exchange/gw_loop (one thread, epoll, non-blocking sockets)
 * against gw-mock: many streamed chats at once, each with its own text; a retry and a
 * redirect decided by gw and carried out by the loop; a cancel from another thread; what the
 * loop cannot do, refused with a clear error. GW_TEST_LOOP_STREAMS sets how many chats run
 * at once (default 1000; scripts/test-c.sh asks fewer under valgrind).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gw_loop.h"
#include "harness.h"
#include "support.h"
#include "tests.h"

/* One call through the loop: what it asked, what came back. */
typedef struct chat {
    char prompt[64];
    char text[256]; /* deltas of choice 0, joined (cut short past its size) */
    size_t text_len;
    size_t events;
    int status; /* 1: not over */
    char *out;
    int cancel_after; /* > 0: the event handler cancels at this event */
    long long done_at;
} chat;

static int on_event(const gw_event *ev, void *user)
{
    chat *c = user;
    c->events++;
    if (ev->text_delta != NULL && ev->choice_index == 0 &&
        c->text_len + ev->text_delta_len < sizeof c->text) {
        memcpy(c->text + c->text_len, ev->text_delta, ev->text_delta_len);
        c->text_len += ev->text_delta_len;
    }
    return c->cancel_after > 0 && (int)c->events >= c->cancel_after;
}

static void on_done(int status, const char *out, void *user)
{
    chat *c = user;
    c->status = status;
    c->out = out ? strdup(out) : NULL;
    c->done_at = now_ms();
}

static const gwl_handlers HANDLERS = {on_event, on_done};

/* Adds a streamed chat asking c->prompt on `client` to the loop. */
static void add_chat(gwl_loop *loop, gw_client *client, chat *c)
{
    char request[256];
    snprintf(request, sizeof request,
             "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"%s\"}]}",
             c->prompt);
    c->status = 1;
    gw_exchange *ex = NULL;
    char *err = NULL;
    int rc = gw_exchange_new(client, "POST", "/v1/chat/completions", request, GW_EXCHANGE_STREAM,
                             &ex, &err);
    CHECK_STATUS(rc, GW_OK);
    gw_free(err);
    if (rc == GW_OK) CHECK_EQ_INT(gwl_add(loop, ex, &HANDLERS, c), 0);
}

static int streams_wanted(void)
{
    const char *env = getenv("GW_TEST_LOOP_STREAMS");
    int n = env ? atoi(env) : 1000;
    return n > 0 ? n : 1000;
}

static void one_thread_drives_many_streams_each_with_its_own_text(void)
{
    int n = streams_wanted();
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim); /* a socket per stream */
    }
    gw_client *client = test_client(NULL);
    gwl_loop *loop = gwl_loop_new();
    chat *chats = calloc((size_t)n, sizeof *chats);
    CHECK(loop != NULL && chats != NULL);
    if (loop == NULL || chats == NULL) return;
    mock_reset();
    for (int i = 0; i < n; i++) {
        snprintf(chats[i].prompt, sizeof chats[i].prompt, "loop stream %d", i);
        add_chat(loop, client, &chats[i]);
    }
    CHECK_EQ_INT(gwl_calls(loop), n);
    /* All in flight at once: after the first round every call has its connection going. */
    CHECK(gwl_run_once(loop, 0) > 0);
    CHECK_EQ_INT(gwl_run(loop), 0);
    CHECK_EQ_INT(gwl_calls(loop), 0);
    int right = 0;
    for (int i = 0; i < n; i++) {
        char want[96];
        snprintf(want, sizeof want, "Echo: %s", chats[i].prompt);
        int ok = chats[i].status == GW_OK && strcmp(chats[i].text, want) == 0 &&
                 chats[i].events > 2 && harness_contains(chats[i].out, want);
        if (!ok && right == i) /* the first wrong one only */
            harness_fail(__FILE__, __LINE__, "chat %d: %s, text '%s', answer %s", i,
                         gw_status_str(chats[i].status), chats[i].text, harness_show(chats[i].out));
        right += ok;
        free(chats[i].out);
    }
    CHECK_EQ_INT(right, n);
    CHECK_EQ_INT(mock_request_count(), n);
    free(chats);
    gwl_loop_free(loop);
    gw_client_free(client);
}

/* Runs one chat through a loop of its own. */
static void run_one(gw_client *client, chat *c)
{
    gwl_loop *loop = gwl_loop_new();
    CHECK(loop != NULL);
    if (loop == NULL) return;
    add_chat(loop, client, c);
    CHECK_EQ_INT(gwl_run(loop), 0);
    gwl_loop_free(loop);
}

static void a_429_then_success_is_retried_by_gw_through_the_loop(void)
{
    gw_client *client = test_client(NULL);
    mock_reset();
    mock_fault("{\"match\": \"/v1/chat/completions\", \"action\": \"status\", \"status\": 429,"
               " \"headers\": {\"retry-after-ms\": \"40\"}}");
    chat c = {.prompt = "retried"};
    long long start = now_ms();
    run_one(client, &c);
    CHECK_STATUS(c.status, GW_OK);
    CHECK_STR_CONTAINS(c.text, "Echo: retried");
    CHECK(c.done_at - start >= 40); /* the server's retry-after-ms, waited on the loop's timer */
    CHECK_EQ_INT(mock_request_count(), 2);
    char *meta = NULL;
    CHECK_STATUS(gw_client_last_response(client, &meta), GW_OK);
    CHECK_STR_CONTAINS(meta, "\"attempts\":2");
    gw_free(meta);
    free(c.out);
    gw_client_free(client);
}

static void a_redirect_is_followed_by_gw_through_the_loop(void)
{
    gw_client *client = test_client(NULL);
    mock_reset();
    mock_fault("{\"action\": \"redirect\", \"status\": 307, \"location\": \"/v1/chat/completions\"}");
    chat c = {.prompt = "redirected"};
    run_one(client, &c);
    CHECK_STATUS(c.status, GW_OK);
    CHECK_STR_CONTAINS(c.text, "Echo: redirected");
    CHECK_EQ_INT(mock_request_count(), 2);
    free(c.out);
    /* To another origin: refused by gw, nothing sent there (the loop is never asked to). */
    mock_reset();
    mock_fault("{\"action\": \"redirect\", \"status\": 307,"
               " \"location\": \"http://127.0.0.2:9/v1/chat/completions\"}");
    chat away = {.prompt = "away"};
    gw_client *once = test_client("\"max_retries\": 0");
    run_one(once, &away);
    CHECK_STATUS(away.status, GW_NETWORK);
    CHECK_EQ_INT(mock_request_count(), 1);
    free(away.out);
    gw_client_free(once);
    gw_client_free(client);
}

typedef struct canceller {
    gw_client *handle;
    gwl_loop *loop;
    long long cancelled_at;
} canceller;

static void *cancel_soon(void *arg)
{
    canceller *k = arg;
    struct timespec pause = {0, 150 * 1000000L};
    nanosleep(&pause, NULL);
    k->cancelled_at = now_ms();
    gw_client_cancel(k->handle);
    gwl_wake(k->loop);
    return NULL;
}

static void a_cancel_from_another_thread_ends_only_its_call(void)
{
    gw_client *client = test_client(NULL);
    gw_client *handle = gw_client_derive(client, NULL);
    mock_reset();
    /* Both streams drip an event every 300 ms. */
    mock_fault("{\"action\": \"drip\", \"interval_ms\": 300, \"times\": 2}");
    gwl_loop *loop = gwl_loop_new();
    chat cancelled = {.prompt = "to be cancelled"}, kept = {.prompt = "kept"};
    add_chat(loop, handle, &cancelled);
    add_chat(loop, client, &kept);
    canceller k = {handle, loop, 0};
    pthread_t thread;
    pthread_create(&thread, NULL, cancel_soon, &k);
    CHECK_EQ_INT(gwl_run(loop), 0);
    pthread_join(thread, NULL);
    CHECK_STATUS(cancelled.status, GW_CANCELLED);
    CHECK(cancelled.done_at - k.cancelled_at < 100); /* the wake, not the next drip */
    CHECK_STATUS(kept.status, GW_OK);
    CHECK_STR_CONTAINS(kept.text, "Echo: kept");
    /* A handler's non-zero return cancels its call too. */
    chat stopped = {.prompt = "stop after two events", .cancel_after = 2};
    add_chat(loop, client, &stopped);
    CHECK_EQ_INT(gwl_run(loop), 0);
    CHECK_STATUS(stopped.status, GW_CANCELLED);
    CHECK_EQ_INT(stopped.events, 2);
    free(cancelled.out);
    free(kept.out);
    free(stopped.out);
    gwl_loop_free(loop);
    gw_client_free(handle);
    gw_client_free(client);
}

static void what_the_loop_cannot_do_is_a_clear_network_error(void)
{
    const char *bases[] = {"https://127.0.0.1:9", "http://gateway.invalid:9"};
    const char *says[] = {"plain http:// only", "resolves no names"};
    for (int i = 0; i < 2; i++) {
        char options[256];
        snprintf(options, sizeof options,
                 "{\"base_url\": \"%s\", \"api_key\": \"" TEST_KEY "\", \"max_retries\": 0,"
                 " \"allow_insecure_http\": true}", bases[i]);
        gw_client *client = gw_client_new_with_options(options);
        CHECK(client != NULL);
        if (client == NULL) continue;
        chat c = {.prompt = "unreachable"};
        run_one(client, &c);
        CHECK_STATUS(c.status, GW_NETWORK);
        CHECK_STR_CONTAINS(c.out, says[i]);
        CHECK_STR_LACKS(c.out, TEST_KEY);
        free(c.out);
        gw_client_free(client);
    }
}

void run_exchange_loop_tests(void)
{
    RUN(one_thread_drives_many_streams_each_with_its_own_text);
    RUN(a_429_then_success_is_retried_by_gw_through_the_loop);
    RUN(a_redirect_is_followed_by_gw_through_the_loop);
    RUN(a_cancel_from_another_thread_ends_only_its_call);
    RUN(what_the_loop_cannot_do_is_a_clear_network_error);
}
