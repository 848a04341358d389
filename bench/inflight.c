/* bench/inflight: N streamed chats in flight at once against gw-mock, whose drip fault sends
 * each event `drip_ms` apart so every stream is open at the same time, two ways:
 *   loop     one thread: N exchanges driven by examples/exchange/gw_loop (epoll)
 *   threads  N threads, each in gw_chat_stream on one shared client (the built-in driver)
 *   fast     one stream of `words` events as fast as gw-mock sends them, through the loop
 *            (events only, no assembly): the peak of gw's live bytes while it is read
 * Usage: inflight loop|threads url=http://127.0.0.1:PORT n=1000 drip_ms=200
 *        inflight fast url=http://127.0.0.1:PORT words=20000
 * Prints one key=value line: wall and CPU (user+sys) time, peak RSS and its growth, the
 * threads at a steady point mid-stream (every stream past its second event, none over), and
 * there the live heap bytes per stream (bench/alloc_live.c): all of them, the loop's own
 * (gwl_footprint) and so gw's (exchange, parser, assembly, buffers; in `threads`, the
 * connection's ureq buffers and the thread's gw state too), with the allocations made per
 * stream up to that point; in `loop`, also the live bytes per exchange just made (created_*,
 * before any step), and the loop's share of them. Exits non-zero when a chat fails
 * or streams a wrong text: a figure of failed calls is no figure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "alloc_live.h"
#include "args.h"
#include "gw.h"
#include "gw_loop.h"
#include "measure.h"

#define EVENTS_BEFORE_SAMPLE 2

typedef struct chat {
    int number;
    char request[256];
    char want[64]; /* the text gw-mock streams back */
    char text[64];
    size_t text_len;
    atomic_int events;
    int status; /* 1: not over */
} chat;

static chat *chats;
static int n_chats;
static atomic_int over;

static _Noreturn void die(const char *what, const char *detail)
{
    fprintf(stderr, "inflight: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static int on_event(const gw_event *ev, void *user)
{
    chat *c = user;
    atomic_fetch_add_explicit(&c->events, 1, memory_order_relaxed);
    if (ev->text_delta != NULL && c->text_len + ev->text_delta_len < sizeof c->text) {
        memcpy(c->text + c->text_len, ev->text_delta, ev->text_delta_len);
        c->text_len += ev->text_delta_len;
    }
    return 0;
}

static void on_done(int status, const char *out, void *user)
{
    chat *c = user;
    c->status = status;
    if (status != GW_OK) fprintf(stderr, "inflight: chat %d: %s %s\n", c->number, gw_status_str(status), out ? out : "");
    atomic_fetch_add(&over, 1);
}

/* Every stream past its first events and none over: the state of N streams in flight. */
static int steady(void)
{
    if (atomic_load(&over) > 0) return 0;
    for (int i = 0; i < n_chats; i++)
        if (atomic_load_explicit(&chats[i].events, memory_order_relaxed) < EVENTS_BEFORE_SAMPLE)
            return 0;
    return 1;
}

static int threads_now(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "Threads:", 8) == 0) n = atoi(line + 8);
    if (f) fclose(f);
    return n;
}

/* What the sample at the steady point saw. */
typedef struct sample {
    int taken;
    long long live;
    size_t loop_bytes;
    int threads;
    unsigned long long calls, asked;
} sample;

static sample at_steady;
static long long live_created; /* loop: live bytes once every exchange was made, none stepped */

static void take_sample(gwl_loop *loop)
{
    at_steady.taken = 1;
    at_steady.live = alloc_live_bytes();
    at_steady.calls = alloc_live_calls();
    at_steady.asked = alloc_live_asked();
    at_steady.loop_bytes = loop ? gwl_footprint(loop) : 0;
    at_steady.threads = threads_now();
}

static void run_loop(gw_client *client)
{
    gwl_loop *loop = gwl_loop_new();
    if (!loop) die("gwl_loop_new", NULL);
    gwl_handlers handlers = {on_event, on_done};
    for (int i = 0; i < n_chats; i++) {
        gw_exchange *ex = NULL;
        char *err = NULL;
        if (gw_exchange_new(client, "POST", "/v1/chat/completions", chats[i].request,
                            GW_EXCHANGE_STREAM, &ex, &err) != GW_OK)
            die("gw_exchange_new", err);
        if (gwl_add(loop, ex, &handlers, &chats[i]) != 0) die("gwl_add", NULL);
    }
    live_created = alloc_live_bytes();
    int left;
    while ((left = gwl_run_once(loop, -1)) > 0)
        if (!at_steady.taken && steady()) take_sample(loop);
    if (left < 0) die("epoll_wait", NULL);
    gwl_loop_free(loop);
}

typedef struct worker {
    gw_client *client;
    chat *chat;
} worker;

static void *stream_one(void *arg)
{
    worker *w = arg;
    char *out = NULL;
    int status = gw_chat_stream(w->client, w->chat->request, on_event, w->chat, NULL);
    on_done(status, out, w->chat);
    return NULL;
}

static void run_threads(gw_client *client)
{
    pthread_t *tids = calloc((size_t)n_chats, sizeof *tids);
    worker *workers = calloc((size_t)n_chats, sizeof *workers);
    if (!tids || !workers) die("out of memory", NULL);
    for (int i = 0; i < n_chats; i++) {
        workers[i] = (worker){client, &chats[i]};
        if (pthread_create(&tids[i], NULL, stream_one, &workers[i]) != 0) die("pthread_create", NULL);
    }
    while (atomic_load(&over) < n_chats) {
        if (!at_steady.taken && steady()) take_sample(NULL);
        usleep(2000);
    }
    for (int i = 0; i < n_chats; i++) pthread_join(tids[i], NULL);
    free(tids);
    free(workers);
}

/* fast: the highest live heap (over the start) an event saw, less the loop's own bytes. */
static long long fast_base, fast_peak;
static gwl_loop *fast_loop;

static int on_fast_event(const gw_event *ev, void *user)
{
    (void)ev;
    long long live = alloc_live_bytes() - fast_base - (long long)gwl_footprint(fast_loop);
    if (live > fast_peak) fast_peak = live;
    return on_event(ev, user);
}

static void run_fast(gw_client *client, long long words)
{
    size_t cap = (size_t)words * 8 + 256, at = 0;
    char *request = malloc(cap);
    if (!request) die("out of memory", NULL);
    at += (size_t)snprintf(request, cap, "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"");
    for (long long i = 0; i < words; i++) at += (size_t)snprintf(request + at, cap - at, "w%lld ", i % 1000);
    snprintf(request + at, cap - at, "\"}]}");
    fast_loop = gwl_loop_new();
    gw_exchange *ex = NULL;
    char *err = NULL;
    if (!fast_loop) die("gwl_loop_new", NULL);
    if (gw_exchange_new(client, "POST", "/v1/chat/completions", request,
                        GW_EXCHANGE_STREAM | GW_EXCHANGE_EVENTS_ONLY, &ex, &err) != GW_OK)
        die("gw_exchange_new", err);
    free(request);
    chat one = {.status = 1};
    gwl_handlers handlers = {on_fast_event, on_done};
    fast_base = alloc_live_bytes(); /* the exchange's copy of the long request not counted */
    if (gwl_add(fast_loop, ex, &handlers, &one) != 0 || gwl_run(fast_loop) != 0) die("the loop failed", NULL);
    if (one.status != GW_OK || atomic_load(&one.events) < words) die("the fast stream failed", NULL);
    gwl_loop_free(fast_loop);
    printf("mode=fast words=%lld events=%d gw_peak_b=%lld\n", words, atomic_load(&one.events), fast_peak);
}

static void control(gw_client *c, const char *path, const char *body)
{
    char *out = NULL;
    if (gw_request(c, "POST", path, body, &out) != GW_OK) die(path, out);
    gw_free(out);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "loop") != 0 && strcmp(mode, "threads") != 0 && strcmp(mode, "fast") != 0) {
        fprintf(stderr, "usage: %s loop|threads url=http://127.0.0.1:PORT n=1000 drip_ms=200\n"
                        "       %s fast url=http://127.0.0.1:PORT words=20000\n", argv[0], argv[0]);
        return 2;
    }
    args_only(argc, argv, "url,n,drip_ms,words");
    const char *url = arg_str(argc, argv, "url", NULL);
    n_chats = (int)arg_num(argc, argv, "n", 1000);
    long long drip_ms = arg_num(argc, argv, "drip_ms", 200);
    if (!url || n_chats < 1) die("url= and n >= 1 are needed", NULL);
    struct rlimit lim; /* a socket per stream */
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
    }

    char options[512];
    snprintf(options, sizeof options, "{\"base_url\": \"%s\", \"api_key\": \"sk-test\"}", url);
    gw_client *client = gw_client_new_with_options(options);
    if (!client) die("gw_client_new_with_options", gw_last_error());
    control(client, "/__mock/reset", "{}");
    if (mode[0] == 'f') {
        run_fast(client, arg_num(argc, argv, "words", 20000));
        gw_client_free(client);
        return 0;
    }
    char fault[256];
    snprintf(fault, sizeof fault,
             "{\"match\": \"/v1/chat/completions\", \"action\": \"drip\", \"interval_ms\": %lld,"
             " \"times\": %d}", drip_ms, n_chats);
    control(client, "/__mock/faults", fault);
    chats = calloc((size_t)n_chats, sizeof *chats);
    if (!chats) die("out of memory", NULL);
    for (int i = 0; i < n_chats; i++) {
        chat *c = &chats[i];
        c->number = i;
        c->status = 1;
        snprintf(c->want, sizeof c->want, "Echo: in flight %d", i);
        snprintf(c->request, sizeof c->request,
                 "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"in flight %d\"}]}", i);
    }

    long rss_before = vm_hwm_kib();
    reset_hwm();
    rss_before = vm_hwm_kib() > 0 ? vm_hwm_kib() : rss_before;
    long long live_before = alloc_live_bytes();
    unsigned long long calls_before = alloc_live_calls(), asked_before = alloc_live_asked();
    double cpu0 = cpu_us();
    uint64_t t0 = now_ns();
    if (mode[0] == 'l') run_loop(client);
    else run_threads(client);
    double wall = (double)(now_ns() - t0) / 1e9;
    double cpu = (cpu_us() - cpu0) / 1e6;
    long rss_peak = vm_hwm_kib();

    int right = 0;
    for (int i = 0; i < n_chats; i++)
        right += chats[i].status == GW_OK && strcmp(chats[i].text, chats[i].want) == 0;
    if (right != n_chats) {
        fprintf(stderr, "inflight: %d of %d chats streamed the right text\n", right, n_chats);
        return 1;
    }
    if (!at_steady.taken) die("no steady point: a stream ended before every one was past its first events (raise drip_ms)", NULL);
    double per = (double)(at_steady.live - live_before) / n_chats;
    double loop_per = (double)at_steady.loop_bytes / n_chats;
    printf("mode=%s n=%d wall_s=%.2f cpu_s=%.2f peak_rss_mib=%.1f rss_growth_mib=%.1f "
           "threads=%d live_per_stream_b=%.0f loop_per_stream_b=%.0f gw_per_stream_b=%.0f "
           "created_per_stream_b=%.0f allocs_per_stream=%.1f asked_per_stream_b=%.0f\n",
           mode, n_chats, wall, cpu, (double)rss_peak / 1024, (double)(rss_peak - rss_before) / 1024,
           at_steady.threads, per, loop_per, per - loop_per,
           live_created ? (double)(live_created - live_before) / n_chats : 0.0,
           (double)(at_steady.calls - calls_before) / n_chats,
           (double)(at_steady.asked - asked_before) / n_chats);
    free(chats);
    gw_client_free(client);
    return 0;
}
