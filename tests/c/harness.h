/*
 * A minimal test harness: checks record a failure and let the test go on, so one run shows
 * every broken expectation. RUN(fn) prints each test's name and verdict; harness_report()
 * prints the last line, exactly "N passed, N failed", and gives the exit status.
 */
#ifndef GW_TEST_HARNESS_H
#define GW_TEST_HARNESS_H

#include "gw.h"

void harness_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void harness_run(const char *name, void (*test)(void));
int harness_report(void);

/* Helpers for the macros below; NULL-safe. */
int harness_contains(const char *haystack, const char *needle);
const char *harness_show(const char *text);

#define RUN(test) harness_run(#test, test)

#define CHECK(cond)                                                   \
    do {                                                              \
        if (!(cond)) harness_fail(__FILE__, __LINE__, "%s", #cond);   \
    } while (0)

#define CHECK_EQ_INT(actual, expected)                                              \
    do {                                                                            \
        long long a_ = (long long)(actual), e_ = (long long)(expected);             \
        if (a_ != e_)                                                               \
            harness_fail(__FILE__, __LINE__, "%s is %lld, expected %s (%lld)",      \
                         #actual, a_, #expected, e_);                               \
    } while (0)

/* A gw status, reported by name: "rc is GW_DECODE (-4), expected GW_OK (0)". */
#define CHECK_STATUS(actual, expected)                                                     \
    do {                                                                                   \
        int a_ = (actual), e_ = (expected);                                                \
        if (a_ != e_)                                                                      \
            harness_fail(__FILE__, __LINE__, "%s is %s (%d), expected %s (%d); last error: %s", \
                         #actual, gw_status_str(a_), a_, gw_status_str(e_), e_,            \
                         gw_last_error());                                                 \
    } while (0)

#define CHECK_STR_CONTAINS(haystack, needle)                                          \
    do {                                                                              \
        const char *h_ = (haystack), *n_ = (needle);                                  \
        if (!harness_contains(h_, n_))                                                \
            harness_fail(__FILE__, __LINE__, "%s lacks \"%s\": %s", #haystack, n_,    \
                         harness_show(h_));                                           \
    } while (0)

#define CHECK_STR_LACKS(haystack, needle)                                             \
    do {                                                                              \
        const char *h_ = (haystack), *n_ = (needle);                                  \
        if (h_ == NULL || harness_contains(h_, n_))                                   \
            harness_fail(__FILE__, __LINE__, "%s holds \"%s\": %s", #haystack, n_,    \
                         harness_show(h_));                                           \
    } while (0)

#endif /* GW_TEST_HARNESS_H */
