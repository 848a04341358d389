/* gwbench's big-request figures (issue 20): one big gw_chat body, a data-URI image chat or a
 * long text chat, measured call by call interleaved with the floor (the bytes gw sent, replayed
 * on a raw keep-alive socket in this same process), so both see the same machine load:
 *   CPU per call (CLOCK_PROCESS_CPUTIME_ID around each call), median of the rounds, for gw and
 *   for the floor; heap allocations per call and the bytes they asked for (median); peak RSS
 *   growth during one gw call (VmHWM reset just before it; the largest of the rounds), also
 *   as a multiple of the body's size. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"
#include "bodies.h"
#include "gwbench.h"
#include "measure.h"
#include "rawhttp.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One gw call of the body: gw_chat, or gw_chat_stream with `out` NULL (the load server answers
 * a stream request with 20 events). */
static int gw_call(gw_client *client, const char *req, int streamed, char **out) {
    if (streamed) return gw_chat_stream(client, req, NULL, NULL, NULL);
    return gw_chat(client, req, out);
}

void mode_bigbody(const char *kind, long long kib, long long reps, const char *api) {
    int streamed = strcmp(api, "stream") == 0;
    if (!streamed && strcmp(api, "plain") != 0) fail("api must be plain or stream");
    if (reps < 1 || reps > 1000) fail("reps must be 1..1000");
    if (kib < 128 || kib > (256 << 10)) fail("kib must be 128..262144");
    size_t bytes = (size_t)kib << 10;
    char *req;
    if (strcmp(kind, "image") == 0) req = image_chat(bytes);
    else if (strcmp(kind, "text") == 0) req = text_chat(bytes, 0);
    else if (strcmp(kind, "cjk") == 0) req = text_chat(bytes, 1);
    else fail("kind must be image, text or cjk");
    size_t body_len = strlen(req);

    gw_client *client = bench_client();
    check_alloc_counting(client);
    for (int i = 0; i < 3; i++) { /* connection pooled, pages touched */
        char *out = NULL;
        int status = gw_call(client, req, streamed, &out);
        check(status, out, "gw_chat (big body, warm-up)");
    }
    struct rh_bytes sent = {0};
    const char *last = streamed ? "/__last?kind=stream" : "/__last?kind=big";
    if (rh_get(g_port, last, &sent) != 200) fail("GET /__last (big body) failed");
    struct rh_conn conn;
    if (rh_open(&conn, g_port) < 0) fail("cannot connect to the load server");
    for (int i = 0; i < 3; i++) {
        if (rh_write_all(conn.fd, sent.p, sent.len) < 0) fail("floor write failed");
        if (rh_read_answer(&conn, NULL) != 200) fail("floor answer is not 200");
    }

    double *gw_cpu = malloc((size_t)reps * sizeof *gw_cpu);
    double *fl_cpu = malloc((size_t)reps * sizeof *fl_cpu);
    double *allocs = malloc((size_t)reps * sizeof *allocs);
    double *alloc_mib = malloc((size_t)reps * sizeof *alloc_mib);
    if (!gw_cpu || !fl_cpu || !allocs || !alloc_mib) fail("out of memory");
    long rss_growth_kib = 0;
    for (long long i = 0; i < reps; i++) {
        char *out = NULL;
        reset_hwm();
        long hwm0 = vm_hwm_kib();
        unsigned long long a0 = alloc_count(), b0 = alloc_bytes();
        double c0 = cpu_ns_now();
        int status = gw_call(client, req, streamed, &out);
        double c1 = cpu_ns_now();
        unsigned long long a1 = alloc_count(), b1 = alloc_bytes();
        long hwm1 = vm_hwm_kib();
        check(status, out, "gw_chat (big body)");
        gw_cpu[i] = (c1 - c0) / 1e3;
        allocs[i] = (double)(a1 - a0);
        alloc_mib[i] = (double)(b1 - b0) / (1 << 20);
        if (hwm1 - hwm0 > rss_growth_kib) rss_growth_kib = hwm1 - hwm0;

        c0 = cpu_ns_now();
        if (rh_write_all(conn.fd, sent.p, sent.len) < 0) fail("floor write failed");
        if (rh_read_answer(&conn, NULL) != 200) fail("floor answer is not 200");
        fl_cpu[i] = (cpu_ns_now() - c0) / 1e3;
    }
    double g = median(gw_cpu, (size_t)reps), f = median(fl_cpu, (size_t)reps);
    double rss_mib = (double)rss_growth_kib / 1024.0;
    printf("kind=%s api=%s body_bytes=%zu sent_bytes=%zu reps=%lld gw_cpu_us=%.1f floor_cpu_us=%.1f "
           "ratio=%.2f allocs_per_call=%.0f alloc_mib_per_call=%.2f rss_growth_mib=%.2f "
           "rss_per_body=%.2f\n",
           kind, api, body_len, sent.len, reps, g, f, g / f, median(allocs, (size_t)reps),
           median(alloc_mib, (size_t)reps), rss_mib,
           rss_mib / ((double)body_len / (1 << 20)));
    rh_close(&conn);
    free(gw_cpu);
    free(fl_cpu);
    free(allocs);
    free(alloc_mib);
    free(sent.p);
    free(req);
    gw_client_free(client);
}
