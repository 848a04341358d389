/* gwbench's upload figure: gw_image_edit_upload of one large in-memory file (pseudo-random
 * bytes, like a compressed image), best and median wall time of a few repetitions. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gwbench.h"
#include "measure.h"

void mode_upload(long long reps, long long mib) {
    if (reps < 1 || reps > 64) fail("reps must be 1..64");
    if (mib < 1 || mib > 1024) fail("mib must be 1..1024");
    size_t len = (size_t)mib << 20;
    uint8_t *data = malloc(len);
    if (!data) fail("out of memory");
    uint64_t x = 0x9E3779B97F4A7C15u; /* xorshift64: fixed bytes, nothing compressible */
    for (size_t i = 0; i < len; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        for (size_t k = 0; k < 8 && i + k < len; k++) data[i + k] = (uint8_t)(x >> (8 * k));
    }
    gw_file image = {0};
    image.struct_size = sizeof image;
    image.data = data;
    image.len = len;
    image.filename = "photo.png";
    image.content_type = "image/png";
    const char *req = "{\"model\":\"m\",\"prompt\":\"Make the sky brighter.\",\"n\":1}";
    gw_client *client = bench_client();
    char *out = NULL;
    int status = gw_image_edit_upload(client, req, &image, NULL, &out);
    check(status, out, "gw_image_edit_upload");
    uint64_t t[64];
    for (long long i = 0; i < reps; i++) {
        out = NULL;
        uint64_t t0 = now_ns();
        status = gw_image_edit_upload(client, req, &image, NULL, &out);
        t[i] = now_ns() - t0;
        check(status, out, "gw_image_edit_upload");
    }
    uint64_t best = t[0];
    for (long long i = 1; i < reps; i++) best = t[i] < best ? t[i] : best;
    printf("bytes=%zu reps=%lld best_ms=%.2f median_ms=%.2f\n", len, reps, (double)best / 1e6,
           median_ms(t, (size_t)reps));
    gw_client_free(client);
    free(data);
}
