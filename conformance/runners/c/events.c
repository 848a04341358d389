/* The events a streamed call gave (events.h). */
#define _POSIX_C_SOURCE 200809L
#include "events.h"

#include <stdlib.h>
#include <string.h>

int collect_event(const gw_event *ev, void *user_data)
{
    events *evs = user_data;
    if (evs->n == evs->cap) {
        size_t cap = evs->cap ? evs->cap * 2 : 16;
        conf_event *items = realloc(evs->items, cap * sizeof *items);
        if (!items) return 1;
        evs->items = items;
        evs->cap = cap;
    }
    conf_event *e = &evs->items[evs->n++];
    e->name = strdup(ev->event);
    e->text_delta = ev->text_delta ? strdup(ev->text_delta) : NULL;
    e->choice_index = ev->choice_index;
    return 0;
}

void events_free(events *evs)
{
    for (size_t i = 0; i < evs->n; i++) {
        free(evs->items[i].name);
        free(evs->items[i].text_delta);
    }
    free(evs->items);
    evs->items = NULL;
    evs->n = evs->cap = 0;
}
