/* Allocation counter (see alloc_count.h): each entry point counts with a relaxed atomic and
 * hands over to glibc's own allocator through its __libc_* names, so behaviour and speed
 * stay glibc's. free is not replaced: the blocks are glibc's. */
#define _GNU_SOURCE
#include "alloc_count.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

/* Our definitions of the standard names (their prototypes are in stdlib.h and malloc.h,
 * which this file does not include so the declarations cannot disagree). */
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
int posix_memalign(void **out, size_t alignment, size_t size);
void *aligned_alloc(size_t alignment, size_t size);
void *memalign(size_t alignment, size_t size);

static atomic_ullong count;
static atomic_ullong bytes;

static void counted_size(size_t size) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
}

unsigned long long alloc_count(void) { return atomic_load_explicit(&count, memory_order_relaxed); }

unsigned long long alloc_bytes(void) { return atomic_load_explicit(&bytes, memory_order_relaxed); }

void *malloc(size_t size) {
    counted_size(size);
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    counted_size(n * size);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    if (size != 0) counted_size(size);
    return __libc_realloc(p, size);
}

void *memalign(size_t alignment, size_t size) {
    counted_size(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    counted_size(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    counted_size(size);
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
