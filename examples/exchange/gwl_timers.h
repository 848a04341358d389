/*
 * The loop's timers: a binary min-heap of deadlines (monotonic milliseconds). A timer is a
 * field of the call it belongs to, so setting, moving and clearing one allocate nothing but
 * the heap's array, and a call's timer is found in O(1) to move it.
 */
#ifndef GWL_TIMERS_H
#define GWL_TIMERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct gwl_timer {
    int64_t due_ms; /* when it fires (CLOCK_MONOTONIC ms) */
    size_t pos;     /* its place in the heap; SIZE_MAX when not set */
} gwl_timer;

typedef struct gwl_timers {
    gwl_timer **heap;
    size_t count, cap;
} gwl_timers;

#define GWL_TIMER_INIT {0, SIZE_MAX}

/* Monotonic milliseconds. */
int64_t gwl_now_ms(void);

/* Sets (or moves) `t` to fire at `due_ms`. 0, or -1 when out of memory (`t` then unset). */
int gwl_timer_set(gwl_timers *timers, gwl_timer *t, int64_t due_ms);
/* Unsets `t` (nothing when it is not set). */
void gwl_timer_clear(gwl_timers *timers, gwl_timer *t);
/* The earliest timer, or NULL. */
gwl_timer *gwl_timer_first(const gwl_timers *timers);
void gwl_timers_free(gwl_timers *timers);

#endif
