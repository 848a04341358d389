/* Counts heap allocation calls in the whole process, libgw.so's included: alloc_count.c
 * defines malloc and friends in the executable, which the dynamic linker binds every
 * library's calls to. */
#ifndef BENCH_ALLOC_COUNT_H
#define BENCH_ALLOC_COUNT_H

/* malloc, calloc, realloc (to a non-zero size) and aligned allocations so far. */
unsigned long long alloc_count(void);

/* The bytes those calls asked for (a realloc counts its new size). */
unsigned long long alloc_bytes(void);

#endif
