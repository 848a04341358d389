/* Live heap bytes of the whole process, libgw.so's included: alloc_live.c defines malloc,
 * free and friends in the executable (as alloc_count.c does, which counts calls only), adding
 * and taking away each block's usable size. A program links one of the two, never both. */
#ifndef BENCH_ALLOC_LIVE_H
#define BENCH_ALLOC_LIVE_H

/* Bytes in blocks allocated and not freed (malloc_usable_size: what the block really holds),
 * counted since the program started. Compare two readings: a block allocated before the
 * counter saw it (by the loader) and freed later makes readings a little low. */
long long alloc_live_bytes(void);

/* Allocation calls (malloc, calloc, realloc to a non-zero size, aligned) so far, and the
 * bytes they asked for. */
unsigned long long alloc_live_calls(void);
unsigned long long alloc_live_asked(void);

#endif
