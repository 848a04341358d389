/* The loop's timers: a binary min-heap keyed by due time (gwl_timers.h). */
#define _POSIX_C_SOURCE 200809L
#include "gwl_timers.h"

#include <stdlib.h>
#include <time.h>

int64_t gwl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void place(gwl_timers *timers, gwl_timer *t, size_t pos)
{
    timers->heap[pos] = t;
    t->pos = pos;
}

static void sift_up(gwl_timers *timers, size_t pos)
{
    gwl_timer *t = timers->heap[pos];
    while (pos > 0) {
        size_t parent = (pos - 1) / 2;
        if (timers->heap[parent]->due_ms <= t->due_ms) break;
        place(timers, timers->heap[parent], pos);
        pos = parent;
    }
    place(timers, t, pos);
}

static void sift_down(gwl_timers *timers, size_t pos)
{
    gwl_timer *t = timers->heap[pos];
    for (;;) {
        size_t child = 2 * pos + 1;
        if (child >= timers->count) break;
        if (child + 1 < timers->count &&
            timers->heap[child + 1]->due_ms < timers->heap[child]->due_ms)
            child++;
        if (t->due_ms <= timers->heap[child]->due_ms) break;
        place(timers, timers->heap[child], pos);
        pos = child;
    }
    place(timers, t, pos);
}

int gwl_timer_set(gwl_timers *timers, gwl_timer *t, int64_t due_ms)
{
    if (t->pos != SIZE_MAX) {
        int64_t was = t->due_ms;
        t->due_ms = due_ms;
        if (due_ms < was) sift_up(timers, t->pos);
        else sift_down(timers, t->pos);
        return 0;
    }
    if (timers->count == timers->cap) {
        size_t cap = timers->cap ? timers->cap * 2 : 64;
        gwl_timer **heap = realloc(timers->heap, cap * sizeof *heap);
        if (heap == NULL) return -1;
        timers->heap = heap;
        timers->cap = cap;
    }
    t->due_ms = due_ms;
    timers->heap[timers->count] = t;
    t->pos = timers->count++;
    sift_up(timers, t->pos);
    return 0;
}

void gwl_timer_clear(gwl_timers *timers, gwl_timer *t)
{
    if (t->pos == SIZE_MAX) return;
    size_t pos = t->pos;
    t->pos = SIZE_MAX;
    gwl_timer *last = timers->heap[--timers->count];
    if (pos == timers->count) return;
    place(timers, last, pos);
    sift_up(timers, pos);
    sift_down(timers, last->pos);
}

gwl_timer *gwl_timer_first(const gwl_timers *timers)
{
    return timers->count ? timers->heap[0] : NULL;
}

void gwl_timers_free(gwl_timers *timers)
{
    free(timers->heap);
    timers->heap = NULL;
    timers->count = timers->cap = 0;
}
