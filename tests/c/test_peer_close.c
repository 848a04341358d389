/* A server that hangs up while gw is still sending a big body. gw writes a big body from the
 * caller's memory (src/net/direct_body.rs); a write to a socket the peer has reset raises
 * SIGPIPE unless it says not to, and SIGPIPE ends a C program that has not ignored it, as this
 * one has not. The call must end with an error and the process must live on. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

struct hang_up {
    int listener;
};

/* Accepts one connection, reads a little of the request, says it is done (FIN: gw's side goes
 * to CLOSE_WAIT), then closes with the rest unread, which resets it: the next write on gw's
 * side fails with EPIPE, the error that comes with SIGPIPE. */
static void *accept_and_reset(void *arg)
{
    struct hang_up *h = arg;
    int fd = accept(h->listener, NULL, NULL);
    if (fd < 0) return NULL;
    char buf[4096];
    if (read(fd, buf, sizeof buf) < 0) perror("test_peer_close: read");
    shutdown(fd, SHUT_WR);
    usleep(20 * 1000);
    close(fd);
    return NULL;
}

/* {"model":"m","messages":[{"role":"user","content":"xxxx..."}]} of about `bytes`. */
static char *big_chat(size_t bytes)
{
    static const char head[] = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"";
    static const char tail[] = "\"}]}";
    char *body = malloc(sizeof head - 1 + bytes + sizeof tail);
    if (!body) return NULL;
    memcpy(body, head, sizeof head - 1);
    memset(body + sizeof head - 1, 'x', bytes);
    memcpy(body + sizeof head - 1 + bytes, tail, sizeof tail);
    return body;
}

static void a_peer_that_resets_mid_body_is_an_error_not_sigpipe(void)
{
    /* The default disposition, whatever the runner inherited: SIGPIPE would end the process. */
    struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
    sigaction(SIGPIPE, &dfl, &old);

    struct hang_up h;
    h.listener = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(h.listener >= 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    CHECK(bind(h.listener, (struct sockaddr *)&addr, sizeof addr) == 0);
    CHECK(listen(h.listener, 1) == 0);
    CHECK(getsockname(h.listener, (struct sockaddr *)&addr, &len) == 0);
    pthread_t server;
    CHECK(pthread_create(&server, NULL, accept_and_reset, &h) == 0);

    char options[256];
    snprintf(options, sizeof options,
             "{\"base_url\": \"http://127.0.0.1:%d\", \"api_key\": \"k\", \"max_retries\": 0}",
             ntohs(addr.sin_port));
    gw_client *c = gw_client_new_with_options(options);
    CHECK(c != NULL);
    char *body = big_chat((size_t)32 << 20);
    CHECK(body != NULL);
    char *out = NULL;
    if (c && body) {
        int rc = gw_chat(c, body, &out);
        CHECK_STATUS(rc, GW_NETWORK);
    }
    gw_free(out);
    free(body);
    gw_client_free(c);
    pthread_join(server, NULL);
    close(h.listener);
    sigaction(SIGPIPE, &old, NULL);
}

void run_peer_close_tests(void)
{
    RUN(a_peer_that_resets_mid_body_is_an_error_not_sigpipe);
}
