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

int main(void)
{
    gw_client *client = gw_client_new(NULL, NULL); /* from GW_BASE_URL, GW_API_KEY */
    if (client == NULL) {
        fprintf(stderr, "gw_client_new failed: %s\n", gw_last_error());
        return 1;
    }

    /* Text from outside goes into the request through gw_json_quote, never unquoted. */
    const char *model = getenv("GW_IMAGE_MODEL") ? getenv("GW_IMAGE_MODEL") : "image-model";
    char *model_json = NULL;
    if (gw_json_quote(model, &model_json) != GW_OK) {
        fprintf(stderr, "GW_IMAGE_MODEL: %s\n", gw_last_error());
        gw_free(model_json);
        gw_client_free(client);
        return 1;
    }
    static const char format[] =
        "{\"model\": %s, \"prompt\": \"A lighthouse at dawn, watercolor\", \"size\": \"1024x1024\"}";
    int len = snprintf(NULL, 0, format, model_json);
    char *request = len < 0 ? NULL : malloc((size_t)len + 1);
    if (request != NULL) snprintf(request, (size_t)len + 1, format, model_json);
    gw_free(model_json);
    if (request == NULL) {
        gw_client_free(client);
        return 1;
    }

    char *out = NULL;
    int status = gw_image_generate(client, request, &out);
    free(request);
    if (status != GW_OK) {
        char *message = NULL;
        gw_json_get(out, "error.message", &message);
        fprintf(stderr, "gw_image_generate failed: %s (%d): %s\n", gw_status_str(status), status,
                message ? message : (out ? out : ""));
        gw_free(message);
        gw_free(out);
        gw_client_free(client);
        return 1;
    }

    char *url = NULL;
    if (gw_json_get(out, "data.0.url", &url) == GW_OK)
        printf("image: %s\n", url);
    else
        printf("image result: %s\n", out); /* e.g. b64_json instead of a URL */

    gw_free(url);
    gw_free(out);
    gw_client_free(client);
    return 0;
}
