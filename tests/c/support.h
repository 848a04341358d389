/*
 * What the tests share: the mock's address (GW_TEST_BASE_URL), clients made for it, and the
 * mock's control endpoints (reset, faults, recorded requests) reached through gw_request.
 */
#ifndef GW_TEST_SUPPORT_H
#define GW_TEST_SUPPORT_H

#include "gw.h"

/* The key the mock accepts. */
#define TEST_KEY "sk-test"

/* GW_TEST_BASE_URL; exits the run when it is unset (run the suite with scripts/test-c.sh). */
const char *test_base_url(void);

/* A client for the mock with fast retries (10..50 ms). `extra` is NULL or more option
 * members without braces, e.g. "\"max_retries\": 0". Fails the test and returns NULL if the
 * options are refused. */
gw_client *test_client(const char *extra);
/* A client for the mock with exactly these option members besides base_url and api_key. */
gw_client *test_client_with(const char *members);

/* Forget the mock's recordings, faults and tasks. */
void mock_reset(void);
/* Queue a fault object or array (the body of POST /__mock/faults). */
void mock_fault(const char *fault_json);
/* Turn on (1) or off (0) the mock's proxy-like path normalisation (/a/../b -> /b); reset
 * turns it off. */
void mock_normalize_paths(int on);
/* The recorded requests as JSON text, freed with gw_free. */
char *mock_requests(void);
/* How many requests the mock recorded since the last reset. */
int mock_request_count(void);

/* Checks that client c still answers a plain chat (after a failure, its pool must be sane). */
#define CHECK_STILL_WORKS(c) check_still_works((c), __FILE__, __LINE__)
void check_still_works(gw_client *c, const char *file, int line);

/* Occurrences of needle in haystack. */
int count_substr(const char *haystack, const char *needle);
/* Monotonic milliseconds, for timing checks. */
long long now_ms(void);
/* Frees the control client; called once before exit so valgrind sees no leak. */
void support_cleanup(void);

#endif /* GW_TEST_SUPPORT_H */
