/* The events a streamed call gave, collected for corpus_check (both ways of calling). */
#ifndef GW_CONFORMANCE_EVENTS_H
#define GW_CONFORMANCE_EVENTS_H

#include <stddef.h>

#include "corpus.h"
#include "gw.h"

typedef struct events {
    conf_event *items;
    size_t n, cap;
} events;

/* A gw_event_cb (and a gw_loop on_event) appending a copy of `ev` to the `events` in
 * user_data; non-zero (stop) when out of memory. */
int collect_event(const gw_event *ev, void *user_data);
void events_free(events *evs);

#endif
