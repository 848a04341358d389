/* Live heap bytes (see alloc_live.h): every entry point hands over to glibc's own allocator
 * through its __libc_* names and keeps a relaxed atomic tally of usable sizes. */
#define _GNU_SOURCE
#include "alloc_live.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *p);
extern size_t malloc_usable_size(void *p);

/* Our definitions of the standard names (stdlib.h and malloc.h are not included, so the
 * declarations cannot disagree). */
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void free(void *p);
int posix_memalign(void **out, size_t alignment, size_t size);
void *aligned_alloc(size_t alignment, size_t size);
void *memalign(size_t alignment, size_t size);

static atomic_llong live;
static atomic_ullong calls;
static atomic_ullong asked;

static void *counted(void *p, size_t size)
{
    if (p == NULL) return NULL;
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&asked, size, memory_order_relaxed);
    atomic_fetch_add_explicit(&live, (long long)malloc_usable_size(p), memory_order_relaxed);
    return p;
}

static void uncounted(void *p)
{
    if (p != NULL)
        atomic_fetch_sub_explicit(&live, (long long)malloc_usable_size(p), memory_order_relaxed);
}

long long alloc_live_bytes(void) { return atomic_load_explicit(&live, memory_order_relaxed); }
unsigned long long alloc_live_calls(void) { return atomic_load_explicit(&calls, memory_order_relaxed); }
unsigned long long alloc_live_asked(void) { return atomic_load_explicit(&asked, memory_order_relaxed); }

void *malloc(size_t size) { return counted(__libc_malloc(size), size); }

void *calloc(size_t n, size_t size) { return counted(__libc_calloc(n, size), n * size); }

void *realloc(void *p, size_t size)
{
    if (size == 0) {
        uncounted(p);
        return __libc_realloc(p, size);
    }
    long long before = p ? (long long)malloc_usable_size(p) : 0;
    void *q = __libc_realloc(p, size);
    if (q == NULL) return NULL; /* p is untouched */
    atomic_fetch_sub_explicit(&live, before, memory_order_relaxed);
    return counted(q, size);
}

void free(void *p)
{
    uncounted(p);
    __libc_free(p);
}

void *memalign(size_t alignment, size_t size) { return counted(__libc_memalign(alignment, size), size); }

void *aligned_alloc(size_t alignment, size_t size)
{
    return counted(__libc_memalign(alignment, size), size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = counted(__libc_memalign(alignment, size), size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
