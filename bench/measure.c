/* Measurement helpers (see measure.h). */
#define _GNU_SOURCE
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double cpu_us(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double cpu_ns_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

long vm_hwm_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

int reset_hwm(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

double percentile_us(uint64_t *samples_ns, size_t n, double p) {
    if (n == 0) return 0;
    qsort(samples_ns, n, sizeof *samples_ns, cmp_u64);
    size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return (double)samples_ns[i] / 1e3;
}

double median_ms(uint64_t *samples_ns, size_t n) {
    if (n == 0) return 0;
    qsort(samples_ns, n, sizeof *samples_ns, cmp_u64);
    uint64_t m = n % 2 ? samples_ns[n / 2] : (samples_ns[n / 2 - 1] + samples_ns[n / 2]) / 2;
    return (double)m / 1e6;
}
