/*
 * One image generation; prints the image URL.
 *
 *   GW_BASE_URL=https://... GW_API_KEY=sk-... ./image
 *
 * Build: cc -std=c11 image.c $(pkg-config --cflags --libs gw)
 */
#include <stdio.h>
#include <stdlib.h>

#include "gw.h"
#include "json_field.h"

int main(void)
{
    gw_client *client = gw_client_new(NULL, NULL); /* from GW_BASE_URL, GW_API_KEY */
    if (client == NULL) {
        fprintf(stderr, "gw_client_new failed: %s\n", gw_last_error());
        return 1;
    }

    const char *model = getenv("GW_IMAGE_MODEL") ? getenv("GW_IMAGE_MODEL") : "image-model";
    char request[512];
    snprintf(request, sizeof request,
             "{\"model\": \"%s\", \"prompt\": \"A lighthouse at dawn, watercolor\","
             " \"size\": \"1024x1024\"}",
             model);

    char *out = NULL;
    int status = gw_image_generate(client, request, &out);
    if (status != GW_OK) {
        fprintf(stderr, "gw_image_generate failed: %s (%d)\n%s\n", gw_status_str(status), status,
                out ? out : "");
        gw_free(out);
        gw_client_free(client);
        return 1;
    }

    char url[1024];
    if (json_field(out, "url", url, sizeof url))
        printf("image: %s\n", url);
    else
        printf("image result: %s\n", out); /* e.g. b64_json instead of a URL */

    gw_free(out);
    gw_client_free(client);
    return 0;
}
