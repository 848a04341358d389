/* What the parts of gwbench share: the client under test and the checks that make a
 * broken harness fail loudly instead of printing figures for failed calls. */
#ifndef BENCH_GWBENCH_H
#define BENCH_GWBENCH_H

#include <gw.h>

/* The size of one load-server event on the wire ("data: {...}\n\n"), see
 * loadserver_routes.c; gwbench checks it against the first event it gets. */
#define LOAD_EVENT_BYTES 157

/* The load server's port. */
extern int g_port;

/* The program's name, for its error messages (each main file defines it). gwcheck.c holds
 * the functions below up to `fail`. */
extern const char *const g_program;

/* A client on the load server with gw's default options (timeouts and retries as a user
 * leaves them). Exits on failure. */
gw_client *bench_client(void);
/* The same plus `extra`, more members of the options object (e.g. "\"max_response_bytes\":1"). */
gw_client *bench_client_with(const char *extra);

/* Exits with gw's error when `status` is not GW_OK; frees `out` otherwise. Call it after the
 * gw call, never around it: `check(gw_chat(c, r, &out), out, ...)` may read `out` before
 * gw_chat sets it (argument order is unspecified), leaking the answer. */
void check(int status, char *out, const char *what);

_Noreturn void fail(const char *what);

/* The load server's count of accepted connections. */
long long server_accepted(void);

/* A chat request for the load server: "events-N" as the model asks it for N events. */
const char *chat_request(unsigned long long events);

/* Ends the program unless the allocation counter sees libgw.so's allocations. */
void check_alloc_counting(gw_client *client);

/* Modes (gwbench_stream.c, gwbench_scale.c, gwbench_upload.c). */
void mode_stream(unsigned long long events, const char *api);
void mode_rss(unsigned long long bytes, long long max_response_bytes);
void mode_scale(int threads, long long n);
void mode_upload(long long reps, long long mib);
void mode_bigbody(const char *kind, long long kib, long long reps, const char *api);

#endif
