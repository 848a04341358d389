/* Clocks, CPU time, peak RSS and percentiles for the bench clients (gwbench and floor). */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);

/* CPU time of the whole process so far (user + system, every thread), in microseconds. */
double cpu_us(void);

/* CPU time of the whole process so far in nanoseconds (CLOCK_PROCESS_CPUTIME_ID): fine
 * enough for one call. */
double cpu_ns_now(void);

/* VmHWM (peak resident set) from /proc/self/status in KiB; -1 when unreadable. */
long vm_hwm_kib(void);

/* Resets VmHWM to the current RSS (/proc/self/clear_refs, Linux >= 4.0). 0 or -1. */
int reset_hwm(void);

/* Sorts the samples, then gives the p-th percentile (p in 0..100) in microseconds. */
double percentile_us(uint64_t *samples_ns, size_t n, double p);

/* The median of a few samples (sorted in place), in milliseconds. */
double median_ms(uint64_t *samples_ns, size_t n);

#endif
