/*
 * One program, two Rust static libraries: libgw.a and libstatic_neighbour.a. It links only
 * when libgw.a exports nothing but gw_* (scripts/test-static.sh); here both libraries run.
 */
#include <stdio.h>
#include <string.h>

#include "gw.h"

size_t neighbour_word_count(const char *text);

int main(void)
{
    int failures = 0;
    char expected[64];
    char *out = NULL;
    size_t words;
    int rc;

    sprintf(expected, "%d.%d.%d", GW_VERSION_MAJOR, GW_VERSION_MINOR, GW_VERSION_PATCH);
    if (strcmp(gw_version(), expected) != 0) {
        fprintf(stderr, "gw_version() is %s, expected %s\n", gw_version(), expected);
        failures++;
    }

    words = neighbour_word_count("three little words");
    if (words != 3) {
        fprintf(stderr, "neighbour_word_count gave %zu, expected 3\n", words);
        failures++;
    }

    /* gw allocates the error JSON and frees it: its allocator shim, not the neighbour's. */
    rc = gw_chat(NULL, "{}", &out);
    if (rc != GW_INVALID_ARGUMENT || out == NULL || strstr(out, "client") == NULL) {
        fprintf(stderr, "gw_chat(NULL, ...) gave %s: %s\n", gw_status_str(rc), out ? out : "(null)");
        failures++;
    }
    gw_free(out);

    if (failures == 0)
        printf("static-neighbour: gw %s and the neighbour library ran in one program\n",
               gw_version());
    return failures == 0 ? 0 : 1;
}
