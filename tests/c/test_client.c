/* Client creation: env fallbacks, base URL forms, insecure http, options JSON. */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

static const char *CHAT_HI = "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";

/* Saves and restores GW_BASE_URL / GW_API_KEY around a test that changes them. */
static char *saved_url, *saved_key;
static void save_env(void)
{
    const char *u = getenv("GW_BASE_URL"), *k = getenv("GW_API_KEY");
    saved_url = u ? strdup(u) : NULL;
    saved_key = k ? strdup(k) : NULL;
}
static void restore_env(void)
{
    if (saved_url) setenv("GW_BASE_URL", saved_url, 1); else unsetenv("GW_BASE_URL");
    if (saved_key) setenv("GW_API_KEY", saved_key, 1); else unsetenv("GW_API_KEY");
    free(saved_url);
    free(saved_key);
    saved_url = saved_key = NULL;
}

static void new_with_explicit_args_works(void)
{
    mock_reset();
    gw_client *c = gw_client_new(test_base_url(), TEST_KEY);
    CHECK(c != NULL);
    char *out = NULL;
    CHECK_STATUS(gw_chat(c, CHAT_HI, &out), GW_OK);
    CHECK_STR_CONTAINS(out, "Echo: hi");
    gw_free(out);
    gw_client_free(c);
}

static void null_args_come_from_env(void)
{
    save_env();
    mock_reset();
    setenv("GW_BASE_URL", test_base_url(), 1);
    setenv("GW_API_KEY", TEST_KEY, 1);
    gw_client *c = gw_client_new(NULL, NULL);
    CHECK(c != NULL);
    CHECK_STATUS(gw_chat(c, CHAT_HI, NULL), GW_OK);
    gw_client_free(c);

    /* Options without base_url / api_key fall back the same way. */
    c = gw_client_new_with_options("{\"max_retries\": 0}");
    CHECK(c != NULL);
    CHECK_STATUS(gw_chat(c, CHAT_HI, NULL), GW_OK);
    gw_client_free(c);

    /* An explicit argument wins over the environment. */
    setenv("GW_API_KEY", "sk-from-env-is-wrong", 1);
    c = gw_client_new(NULL, TEST_KEY);
    CHECK(c != NULL);
    CHECK_STATUS(gw_chat(c, CHAT_HI, NULL), GW_OK);
    gw_client_free(c);
    restore_env();
}

static void null_args_without_env_are_refused(void)
{
    save_env();
    unsetenv("GW_BASE_URL");
    unsetenv("GW_API_KEY");
    CHECK(gw_client_new(NULL, TEST_KEY) == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "base_url");
    CHECK_STR_CONTAINS(gw_last_error(), "GW_BASE_URL");
    CHECK(gw_client_new(test_base_url(), NULL) == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "api_key");
    CHECK_STR_CONTAINS(gw_last_error(), "GW_API_KEY");
    CHECK(gw_client_new_with_options(NULL) == NULL);
    CHECK(strlen(gw_last_error()) > 0);
    restore_env();
}

/* Every accepted form of the base URL reaches /v1/chat/completions, never /v1/v1/... */
static void base_url_forms_hit_the_right_path(void)
{
    const char *suffixes[] = {"", "/", "/v1", "/v1/"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        mock_reset();
        char url[256];
        snprintf(url, sizeof url, "%s%s", test_base_url(), suffixes[i]);
        gw_client *c = gw_client_new(url, TEST_KEY);
        CHECK(c != NULL);
        char *out = NULL;
        int rc = gw_chat(c, CHAT_HI, &out);
        if (rc != GW_OK) printf("    base URL %s\n", url);
        CHECK_STATUS(rc, GW_OK);
        char *requests = mock_requests();
        CHECK_STR_CONTAINS(requests, "\"path\":\"/v1/chat/completions\"");
        CHECK_STR_LACKS(requests, "/v1/v1");
        gw_free(requests);
        gw_free(out);
        gw_client_free(c);
    }
}

static void plain_http_to_remote_host_is_refused(void)
{
    CHECK(gw_client_new("http://api.example.com", TEST_KEY) == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "http://");
    CHECK_STR_CONTAINS(gw_last_error(), "api.example.com");
    CHECK_STR_CONTAINS(gw_last_error(), "allow_insecure_http");
    CHECK_STR_LACKS(gw_last_error(), TEST_KEY);

    /* ...unless the options allow it (no request is made by creating a client). */
    gw_client *c = gw_client_new_with_options(
        "{\"base_url\": \"http://api.example.com\", \"api_key\": \"k\", \"allow_insecure_http\": true}");
    CHECK(c != NULL);
    gw_client_free(c);

    /* https and loopback http are fine. */
    c = gw_client_new("https://api.example.com/v1", TEST_KEY);
    CHECK(c != NULL);
    gw_client_free(c);
    c = gw_client_new("http://localhost:1", TEST_KEY);
    CHECK(c != NULL);
    gw_client_free(c);
}

static void bad_base_urls_are_named(void)
{
    CHECK(gw_client_new("ftp://example.com", TEST_KEY) == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "base_url");
    CHECK(gw_client_new("api.example.com", TEST_KEY) == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "base_url");
    CHECK(gw_client_new("\xff\xfe", TEST_KEY) == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "UTF-8");
}

static void bad_options_json_is_refused(void)
{
    CHECK(gw_client_new_with_options("{not json") == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "options");

    /* A typo is an error, not a silently ignored setting; the message names the key. */
    char options[512];
    snprintf(options, sizeof options,
             "{\"base_url\": \"%s\", \"api_key\": \"" TEST_KEY "\", \"timout_ms\": 5}",
             test_base_url());
    CHECK(gw_client_new_with_options(options) == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "timout_ms");
    CHECK_STR_LACKS(gw_last_error(), TEST_KEY);

    /* A known key with the wrong type. */
    snprintf(options, sizeof options,
             "{\"base_url\": \"%s\", \"api_key\": \"" TEST_KEY "\", \"max_retries\": \"two\"}",
             test_base_url());
    CHECK(gw_client_new_with_options(options) == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "options");

    CHECK(gw_client_new_with_options("\xff") == NULL);
    CHECK(strlen(gw_last_error()) > 0);
}

static void free_null_is_fine(void)
{
    gw_client_free(NULL);
    gw_free(NULL);
    CHECK(1);
}

void run_client_tests(void)
{
    RUN(new_with_explicit_args_works);
    RUN(null_args_come_from_env);
    RUN(null_args_without_env_are_refused);
    RUN(base_url_forms_hit_the_right_path);
    RUN(plain_http_to_remote_host_is_refused);
    RUN(bad_base_urls_are_named);
    RUN(bad_options_json_is_refused);
    RUN(free_null_is_fine);
}
