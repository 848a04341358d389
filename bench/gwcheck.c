/* What gwbench and gwinstr share: a client on the load server and the checks that make a
 * broken harness fail loudly instead of printing figures for failed calls (gwbench.h). */
#include <stdio.h>
#include <stdlib.h>

#include "gwbench.h"

int g_port;

_Noreturn void fail(const char *what) {
    fprintf(stderr, "%s: %s\n", g_program, what);
    exit(1);
}

void check(int status, char *out, const char *what) {
    if (status == GW_OK) {
        gw_free(out);
        return;
    }
    fprintf(stderr, "%s: %s: %s (%d): %s\n  answer: %s\n", g_program, what, gw_status_str(status),
            status, gw_last_error(), out ? out : "(none)");
    exit(1);
}

gw_client *bench_client_with(const char *extra) {
    char opts[512];
    snprintf(opts, sizeof opts,
             "{\"base_url\":\"http://127.0.0.1:%d\",\"api_key\":\"bench-key\"%s%s}", g_port,
             extra ? "," : "", extra ? extra : "");
    gw_client *c = gw_client_new_with_options(opts);
    if (!c) {
        fprintf(stderr, "%s: gw_client_new_with_options: %s\n", g_program, gw_last_error());
        exit(1);
    }
    return c;
}

gw_client *bench_client(void) { return bench_client_with(NULL); }
