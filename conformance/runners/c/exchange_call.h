/*
 * The corpus's verbs as exchanges (gw_exchange_new with the verb's method and path;
 * gw_exchange_new_video_wait for videoWait) driven by
 * examples/exchange/gw_loop: the C runner's --exchange mode, where no blocking gw call runs.
 */
#ifndef GW_CONFORMANCE_EXCHANGE_CALL_H
#define GW_CONFORMANCE_EXCHANGE_CALL_H

#include <cjson/cJSON.h>

#include "events.h"
#include "gw.h"
#include "gw_loop.h"

/* The code for a verb the runner knows no exchange for. */
#define EXCHANGE_NO_SUCH_CALL (-100)

/* One call of `verb` on `client` through `loop`, run to its end. Returns its status with the
 * answer or the error JSON in *out (malloc'd: free() it; may be NULL). */
int exchange_call(gwl_loop *loop, const gw_client *client, const char *verb, const char *body,
                  const cJSON *args, events *evs, char **out);

#endif
