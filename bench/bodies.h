/* Big chat bodies for the bench programs (bodies.c). Both end the program when out of memory. */
#ifndef BENCH_BODIES_H
#define BENCH_BODIES_H

#include <stddef.h>

/* {"model":..,"messages":[{"role":"user","content":[{text},{image_url: data URI}]}]}, `bytes`
 * long (to 4 bytes). */
char *image_chat(size_t bytes);

/* A long text chat, `bytes` long (to a few bytes); `cjk` writes Chinese instead of English. */
char *text_chat(size_t bytes, int cjk);

#endif
