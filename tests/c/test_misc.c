/* Static helpers: status names, version, gw_free, gw_last_error, embedding decoding. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support.h"
#include "tests.h"

static void status_names(void)
{
    static const struct {
        int status;
        const char *name;
    } names[] = {
        {GW_OK, "GW_OK"},
        {GW_BAD_REQUEST, "GW_BAD_REQUEST"},
        {GW_UNAUTHORIZED, "GW_UNAUTHORIZED"},
        {GW_FORBIDDEN, "GW_FORBIDDEN"},
        {GW_NOT_FOUND, "GW_NOT_FOUND"},
        {GW_RATE_LIMITED, "GW_RATE_LIMITED"},
        {GW_SERVER_ERROR, "GW_SERVER_ERROR"},
        {GW_INVALID_ARGUMENT, "GW_INVALID_ARGUMENT"},
        {GW_NETWORK, "GW_NETWORK"},
        {GW_TIMEOUT, "GW_TIMEOUT"},
        {GW_DECODE, "GW_DECODE"},
        {GW_CANCELLED, "GW_CANCELLED"},
        {GW_VENDOR, "GW_VENDOR"},
        {GW_STREAM, "GW_STREAM"},
        {GW_TOO_LARGE, "GW_TOO_LARGE"},
        {GW_INTERNAL, "GW_INTERNAL"},
        {502, "GW_HTTP_STATUS"},
        {503, "GW_HTTP_STATUS"},
        {-12345, "GW_UNKNOWN"},
        {1000, "GW_UNKNOWN"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *got = gw_status_str(names[i].status);
        CHECK(got != NULL);
        if (got && strcmp(got, names[i].name) != 0)
            harness_fail(__FILE__, __LINE__, "gw_status_str(%d) is %s, expected %s",
                         names[i].status, got, names[i].name);
    }
}

static void version_is_set(void)
{
    const char *v = gw_version();
    CHECK(v != NULL);
    CHECK(v && strlen(v) > 0);
    CHECK_STR_CONTAINS(v, ".");
}

/* The header's GW_VERSION_* macros describe the library it was generated with. */
static void version_macros_match_gw_version(void)
{
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", GW_VERSION_MAJOR, GW_VERSION_MINOR,
             GW_VERSION_PATCH);
    if (strcmp(gw_version(), expected) != 0)
        harness_fail(__FILE__, __LINE__, "gw_version() is %s, the header's macros say %s",
                     gw_version(), expected);
}

static void free_and_last_error_basics(void)
{
    gw_free(NULL);
    CHECK(gw_last_error() != NULL);
    gw_chat(NULL, "{}", NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "client");
}

static void embedding_decode(void)
{
    /* 1.0f and -2.5f as little-endian float32: 00 00 80 3f, 00 00 20 c0. */
    float *floats = NULL;
    size_t n = 0;
    CHECK_STATUS(gw_embedding_decode("AACAPwAAIMA=", &floats, &n), GW_OK);
    CHECK_EQ_INT(n, 2);
    CHECK(floats != NULL && floats[0] == 1.0f && floats[1] == -2.5f);
    gw_free(floats);

    /* Empty input is zero floats. */
    floats = NULL;
    CHECK_STATUS(gw_embedding_decode("", &floats, &n), GW_OK);
    CHECK_EQ_INT(n, 0);
    gw_free(floats);

    floats = NULL;
    CHECK_STATUS(gw_embedding_decode("not base64!", &floats, &n), GW_INVALID_ARGUMENT);
    CHECK(floats == NULL);
    CHECK_STR_CONTAINS(gw_last_error(), "base64");
    CHECK_STATUS(gw_embedding_decode("AAAA", &floats, &n), GW_INVALID_ARGUMENT); /* 3 bytes */
    CHECK_STR_CONTAINS(gw_last_error(), "4");
    CHECK_STATUS(gw_embedding_decode(NULL, &floats, &n), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_embedding_decode("AACAPw==", NULL, &n), GW_INVALID_ARGUMENT);
    CHECK_STATUS(gw_embedding_decode("AACAPw==", &floats, NULL), GW_INVALID_ARGUMENT);
    CHECK(strlen(gw_last_error()) > 0);
}

void run_misc_tests(void)
{
    RUN(status_names);
    RUN(version_is_set);
    RUN(version_macros_match_gw_version);
    RUN(free_and_last_error_basics);
    RUN(embedding_decode);
}
