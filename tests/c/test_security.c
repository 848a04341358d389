/*
 * Paths, processes, callbacks and the panic guard: dot-segment ids are refused before anything
 * is sent, fork() never shares a connection between parent and child, a handle freed from
 * another thread during a call stays alive until the call returns, and gw called from a
 * thread-key destructor (after the thread's Rust thread-locals are gone) returns normally
 * instead of aborting the process.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

#define CHAT(text) "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"" text "\"}]}"

/* ---- fork() --------------------------------------------------------------------------- */

#define FORK_RUNS 15

static void forked_child_never_shares_its_parents_connection(void)
{
    gw_client *c = test_client("\"max_retries\": 0");
    int child_wrong = 0, parent_wrong = 0, child_failed = 0;
    for (int run = 0; run < FORK_RUNS; run++) {
        /* A warm-up call leaves a pooled connection behind, which the child inherits. */
        char *out = NULL;
        CHECK_STATUS(gw_chat(c, CHAT("warm up"), &out), GW_OK);
        gw_free(out);
        int verdict_pipe[2];
        CHECK_EQ_INT(pipe(verdict_pipe), 0);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            close(verdict_pipe[0]);
            char *mine = NULL;
            int rc = gw_chat(c, CHAT("from the child"), &mine);
            char verdict = rc != GW_OK ? 'f' : (strstr(mine, "Echo: from the child") ? 'y' : 'n');
            gw_free(mine);
            gw_client_free(c);
            support_cleanup(); /* the child frees what it holds, for valgrind's leak check */
            if (write(verdict_pipe[1], &verdict, 1) != 1) _exit(3);
            _exit(0);
        }
        CHECK(pid > 0);
        close(verdict_pipe[1]);
        out = NULL;
        int rc = gw_chat(c, CHAT("from the parent"), &out);
        if (rc != GW_OK || strstr(out, "Echo: from the parent") == NULL) parent_wrong++;
        gw_free(out);
        char verdict = '?';
        if (read(verdict_pipe[0], &verdict, 1) != 1) verdict = '?';
        close(verdict_pipe[0]);
        int status = -1;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (verdict == 'n') child_wrong++;
        if (verdict != 'y' && verdict != 'n') child_failed++;
    }
    CHECK_EQ_INT(child_wrong, 0);
    CHECK_EQ_INT(parent_wrong, 0);
    CHECK_EQ_INT(child_failed, 0);
    gw_client_free(c);
}

/*
 * A pull stream open in the parent (no thread inside gw) when it forks: whatever the child does
 * with the handle or the stream, the parent's stream goes on whole. `act` 0: the child cancels
 * the handle; 1: the child pulls from the stream (it must fail, not read the parent's events).
 */
static void forked_child_leaves_its_parents_open_stream_alone(int act)
{
    gw_client *c = test_client("\"max_retries\": 0");
    mock_fault("{\"action\": \"drip\", \"interval_ms\": 100}");
    gw_stream *s = NULL;
    CHECK_STATUS(gw_chat_stream_open(c, CHAT("one two three four"), &s, NULL), GW_OK);
    const gw_event *ev = NULL;
    char text[256] = "";
    CHECK_STATUS(gw_stream_next(s, &ev), GW_OK);
    if (ev->text_delta) strncat(text, ev->text_delta, sizeof text - strlen(text) - 1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int ok;
        if (act == 0) {
            gw_client_cancel(c);
            ok = 1;
        } else {
            const gw_event *mine = NULL;
            int rc = gw_stream_next(s, &mine);
            ok = rc != GW_OK && rc != GW_DONE;
        }
        gw_stream_free(s);
        gw_client_free(c);
        support_cleanup();
        _exit(ok ? 0 : 1);
    }
    CHECK(pid > 0);
    int status = -1;
    /* The child is done before the parent reads on: each step of it could only spoil the
     * parent's stream, never race it. */
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    int rc;
    while ((rc = gw_stream_next(s, &ev)) == GW_OK) {
        if (ev->text_delta) strncat(text, ev->text_delta, sizeof text - strlen(text) - 1);
    }
    CHECK_STATUS(rc, GW_DONE);
    CHECK(strcmp(text, "Echo: one two three four") == 0);
    gw_stream_free(s);
    gw_client_free(c);
}

static void forked_child_cancelling_leaves_the_parents_stream_alone(void)
{
    forked_child_leaves_its_parents_open_stream_alone(0);
}

static void forked_child_cannot_read_the_parents_stream(void)
{
    forked_child_leaves_its_parents_open_stream_alone(1);
}

/* ---- freeing from another thread during a call ------------------------------------------ */

/* A one-shot signal between two threads. */
struct latch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int set;
};
#define LATCH_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0}

static void latch_set(struct latch *l)
{
    pthread_mutex_lock(&l->mu);
    l->set = 1;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

static void latch_wait(struct latch *l)
{
    pthread_mutex_lock(&l->mu);
    while (!l->set) pthread_cond_wait(&l->cv, &l->mu);
    pthread_mutex_unlock(&l->mu);
}

struct in_flight {
    gw_client *client;
    struct latch started; /* the call is running: its handle is counted */
    struct latch freed;   /* the other thread has called gw_client_free */
    int events;
    int rc;
    char *out;
};

static int wait_for_the_free(const gw_event *ev, void *user_data)
{
    (void)ev;
    struct in_flight *f = user_data;
    if (f->events++ == 0) {
        latch_set(&f->started);
        latch_wait(&f->freed);
    }
    return 0;
}

static void *stream_worker(void *arg)
{
    struct in_flight *f = arg;
    f->rc = gw_chat_stream(f->client, CHAT("outlive the free"), wait_for_the_free, f, &f->out);
    return NULL;
}

static void a_free_from_another_thread_waits_for_the_call(void)
{
    struct in_flight f = {.client = test_client(NULL), .started = LATCH_INIT, .freed = LATCH_INIT};
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, stream_worker, &f), 0);
    latch_wait(&f.started);
    gw_client_free(f.client); /* the caller's reference: the call still holds its own */
    latch_set(&f.freed);
    pthread_join(t, NULL);
    CHECK_STATUS(f.rc, GW_OK);
    CHECK(f.events > 1);
    CHECK_STR_CONTAINS(f.out, "Echo: outlive the free");
    gw_free(f.out);
}

/* The same for a plain call, caught mid-call through the logger's first line. */
static struct in_flight *logged_call;

static void log_waits_for_the_free(int level, const char *message, void *user_data)
{
    (void)level;
    (void)message;
    (void)user_data;
    struct in_flight *f = logged_call;
    if (f != NULL && f->events++ == 0) {
        latch_set(&f->started);
        latch_wait(&f->freed);
    }
}

static void *plain_worker(void *arg)
{
    struct in_flight *f = arg;
    f->rc = gw_chat(f->client, CHAT("plain call"), &f->out);
    return NULL;
}

static void a_free_from_another_thread_during_a_plain_call(void)
{
    struct in_flight f = {.client = test_client(NULL), .started = LATCH_INIT, .freed = LATCH_INIT};
    logged_call = &f;
    gw_set_logger(log_waits_for_the_free, NULL, GW_LOG_DEBUG);
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, plain_worker, &f), 0);
    latch_wait(&f.started);
    gw_client_free(f.client);
    latch_set(&f.freed);
    pthread_join(t, NULL);
    gw_set_logger(NULL, NULL, GW_LOG_ERROR);
    logged_call = NULL;
    CHECK_STATUS(f.rc, GW_OK);
    CHECK_STR_CONTAINS(f.out, "Echo: plain call");
    gw_free(f.out);
}

/* ---- a thread-key destructor -------------------------------------------------------------- */

struct late_calls {
    gw_client *client;
    int ran;
    int chat_rc;
    int answered;
    int null_rc;
    int last_error_ok;
    int status_str_ok;
};

static pthread_key_t late_key;

/* Runs at thread exit, after the thread's Rust thread-locals were destroyed. */
static void call_gw_while_the_thread_dies(void *arg)
{
    struct late_calls *r = arg;
    r->ran = 1;
    char *out = NULL;
    r->chat_rc = gw_chat(r->client, CHAT("from a destructor"), &out);
    r->answered = out != NULL && strstr(out, "Echo: from a destructor") != NULL;
    gw_free(out);
    r->null_rc = gw_chat(NULL, "{}", NULL);
    r->last_error_ok = gw_last_error() != NULL;
    r->status_str_ok = strcmp(gw_status_str(GW_NETWORK), "GW_NETWORK") == 0;
}

static void *thread_with_a_late_destructor(void *arg)
{
    /* A failed call first: gw_last_error's thread-local now exists (and has a destructor). */
    gw_chat(NULL, "{}", NULL);
    pthread_setspecific(late_key, arg);
    return NULL;
}

static void gw_from_a_thread_key_destructor_returns_normally(void)
{
    struct late_calls r = {.client = test_client(NULL)};
    CHECK_EQ_INT(pthread_key_create(&late_key, call_gw_while_the_thread_dies), 0);
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, thread_with_a_late_destructor, &r), 0);
    pthread_join(t, NULL); /* an abort here would end the whole suite */
    pthread_key_delete(late_key);
    CHECK_EQ_INT(r.ran, 1);
    CHECK_STATUS(r.chat_rc, GW_OK);
    CHECK_EQ_INT(r.answered, 1);
    CHECK_STATUS(r.null_rc, GW_INVALID_ARGUMENT);
    CHECK_EQ_INT(r.last_error_ok, 1);
    CHECK_EQ_INT(r.status_str_ok, 1);
    gw_client_free(r.client);
}

/* ---- dot segments -------------------------------------------------------------------------- */

/* Against a mock that normalises paths as a proxy does, "/v1/videos/../remix" would be
 * "/v1/remix": gw refuses such ids before sending anything. */
static void dot_segment_ids_are_refused_before_sending(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    mock_normalize_paths(1);
    const char *ids[] = {".", ".."};
    for (int i = 0; i < 2; i++) {
        char *out = NULL;
        CHECK_STATUS(gw_video_status(c, GW_VIDEO_CHARACTER, ids[i], &out), GW_INVALID_ARGUMENT);
        CHECK_STR_CONTAINS(out, "'.' or '..'");
        gw_free(out);
        out = NULL;
        CHECK_STATUS(gw_video_remix(c, ids[i], "{\"prompt\": \"p\"}", &out), GW_INVALID_ARGUMENT);
        gw_free(out);
    }
    char *out = NULL;
    CHECK_STATUS(gw_request(c, "POST", "/v1/videos/%2e%2e/remix", "{\"prompt\": \"p\"}", &out),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "\"param\":\"path\"");
    gw_free(out);
    CHECK_EQ_INT(mock_request_count(), 0);
    mock_reset();
    gw_client_free(c);
}

/* Issue 30: options given as an array (serde would map it by field position), a POST to an
 * operation with a NULL body, and a percent-encoded key parameter are all refused before
 * anything is sent. */
static void options_arrays_bodiless_posts_and_encoded_keys_are_refused_before_sending(void)
{
    gw_client *c = test_client(NULL);
    mock_reset();
    char options[256];
    snprintf(options, sizeof options, "[\"%s\", \"%s\", 1, 2, 3]", test_base_url(), TEST_KEY);
    gw_client *made = NULL;
    char *err = NULL;
    CHECK_STATUS(gw_client_create(options, &made, &err), GW_INVALID_ARGUMENT);
    CHECK(made == NULL);
    CHECK_STR_CONTAINS(err, "must be a JSON object");
    gw_free(err);
    err = NULL;
    CHECK_STATUS(gw_client_create_derived(c, "[1, 1, 1, 1, 0, null, null, false]", &made, &err),
                 GW_INVALID_ARGUMENT);
    CHECK(made == NULL);
    gw_free(err);
    char *out = NULL;
    CHECK_STATUS(gw_video_wait(c, GW_VIDEO_UNIFIED, "task", "[1]", NULL, NULL, &out),
                 GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "must be a JSON object");
    gw_free(out);
    out = NULL;
    CHECK_STATUS(gw_request(c, "POST", "/v1/chat/completions", NULL, &out), GW_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(out, "\"param\":\"body\"");
    gw_free(out);
    const char *keyed[] = {"/v1beta/models/m:generateContent?%6bey=x", "/v1/models?%4BEY=x",
                           "/v1/models?k%65y=x"};
    for (int i = 0; i < 3; i++) {
        out = NULL;
        CHECK_STATUS(gw_request(c, "GET", keyed[i], NULL, &out), GW_INVALID_ARGUMENT);
        gw_free(out);
    }
    CHECK_EQ_INT(mock_request_count(), 0);
    gw_client_free(c);
}

void run_security_tests(void)
{
    RUN(options_arrays_bodiless_posts_and_encoded_keys_are_refused_before_sending);
    RUN(dot_segment_ids_are_refused_before_sending);
    RUN(forked_child_never_shares_its_parents_connection);
    RUN(forked_child_cancelling_leaves_the_parents_stream_alone);
    RUN(forked_child_cannot_read_the_parents_stream);
    RUN(a_free_from_another_thread_waits_for_the_call);
    RUN(a_free_from_another_thread_during_a_plain_call);
    RUN(gw_from_a_thread_key_destructor_returns_normally);
}
