/* Clients for the mock and its control endpoints, used by every test file. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static gw_client *control; /* for the /__mock endpoints; never retries, so faults stay queued */

const char *test_base_url(void)
{
    const char *url = getenv("GW_TEST_BASE_URL");
    if (url == NULL || *url == '\0') {
        fprintf(stderr, "GW_TEST_BASE_URL is not set: run the suite with scripts/test-c.sh\n");
        exit(2);
    }
    return url;
}

gw_client *test_client_with(const char *members)
{
    char options[1024];
    snprintf(options, sizeof options, "{\"base_url\": \"%s\", \"api_key\": \"" TEST_KEY "\"%s%s}",
             test_base_url(), members ? ", " : "", members ? members : "");
    gw_client *c = gw_client_new_with_options(options);
    if (c == NULL) harness_fail(__FILE__, __LINE__, "options %s refused: %s", options, gw_last_error());
    return c;
}

gw_client *test_client(const char *extra)
{
    char members[768];
    snprintf(members, sizeof members, "\"retry_base_delay_ms\": 10, \"retry_max_delay_ms\": 50%s%s",
             extra ? ", " : "", extra ? extra : "");
    return test_client_with(members);
}

static gw_client *control_client(void)
{
    if (control == NULL) control = test_client("\"max_retries\": 0");
    return control;
}

static void control_call(const char *method, const char *path, const char *body)
{
    char *out = NULL;
    int rc = gw_request(control_client(), method, path, body, &out);
    if (rc != GW_OK)
        harness_fail(__FILE__, __LINE__, "%s %s: %s %s", method, path, gw_status_str(rc),
                     harness_show(out));
    gw_free(out);
}

void mock_reset(void)
{
    control_call("POST", "/__mock/reset", "{}");
}

void mock_fault(const char *fault_json)
{
    control_call("POST", "/__mock/faults", fault_json);
}

void mock_normalize_paths(int on)
{
    control_call("POST", "/__mock/mode", on ? "{\"normalize_paths\": true}" : "{\"normalize_paths\": false}");
}

char *mock_requests(void)
{
    char *out = NULL;
    int rc = gw_request(control_client(), "GET", "/__mock/requests", NULL, &out);
    if (rc != GW_OK)
        harness_fail(__FILE__, __LINE__, "GET /__mock/requests: %s %s", gw_status_str(rc),
                     harness_show(out));
    return out;
}

int mock_request_count(void)
{
    char *requests = mock_requests();
    /* Each record has one "method" member; bodies are escaped strings, so never match. */
    int n = count_substr(requests, "\"method\":");
    gw_free(requests);
    return n;
}

void check_still_works(gw_client *c, const char *file, int line)
{
    char *out = NULL;
    int rc = gw_chat(c, "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"again\"}]}", &out);
    if (rc != GW_OK || !harness_contains(out, "Echo: again"))
        harness_fail(file, line, "the client no longer works: %s %s", gw_status_str(rc), harness_show(out));
    gw_free(out);
}

int count_substr(const char *haystack, const char *needle)
{
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = haystack; p && (p = strstr(p, needle)) != NULL; p += len) n++;
    return n;
}

long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void support_cleanup(void)
{
    gw_client_free(control);
    control = NULL;
}
