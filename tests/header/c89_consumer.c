/*
 * gw.h as a strict C89 compiler sees it (scripts/test-header.sh builds this with
 * -std=c89 -pedantic -Wall -Wextra -Werror): declarations first, no // comments, no
 * designated initializers. Linked with libgw.so and run; no gateway needed.
 */
#include <stdio.h>
#include <string.h>

#include "gw.h"

static int failures = 0;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "c89_consumer: %s\n", what);
        failures++;
    }
}

int main(void)
{
    char version[64];
    gw_client *client;
    char *out = NULL;
    int rc;
    static const uint8_t png[] = {0x89, 'P', 'N', 'G'};
    gw_file image;

    sprintf(version, "%d.%d.%d", GW_VERSION_MAJOR, GW_VERSION_MINOR, GW_VERSION_PATCH);
    expect(strcmp(gw_version(), version) == 0, "gw_version() differs from GW_VERSION_*");
    expect(strcmp(gw_status_str(GW_TIMEOUT), "GW_TIMEOUT") == 0, "gw_status_str(GW_TIMEOUT)");

    client = gw_client_new("http://127.0.0.1:9", "sk-test");
    expect(client != NULL, "gw_client_new refused a loopback URL");

    /* Refused before anything is sent: the port need not answer. */
    rc = gw_chat(client, "{not json", &out);
    expect(rc == GW_INVALID_ARGUMENT, "gw_chat with broken JSON is not GW_INVALID_ARGUMENT");
    expect(out != NULL && strstr(out, "JSON") != NULL, "the error JSON does not say JSON");
    gw_free(out);

    /* gw_file filled the C89 way: struct_size first. */
    memset(&image, 0, sizeof image);
    image.struct_size = sizeof image;
    image.data = png;
    image.len = sizeof png;
    out = NULL;
    rc = gw_image_edit_upload(client, "[]", &image, NULL, &out);
    expect(rc == GW_INVALID_ARGUMENT && out != NULL && strstr(out, "JSON object") != NULL,
           "gw_image_edit_upload with a JSON array is not refused as such");
    gw_free(out);

    gw_client_free(client);
    if (failures == 0)
        printf("c89_consumer: ok (gw %s)\n", gw_version());
    return failures == 0 ? 0 : 1;
}
