/*
 * A chat answer streamed token by token, then the assembled completion's token usage.
 *
 *   GW_BASE_URL=https://... GW_API_KEY=sk-... ./chat_stream
 *
 * Build: cc -std=c11 chat_stream.c $(pkg-config --cflags --libs gw)
 */
#include <stdio.h>
#include <stdlib.h>

#include "gw.h"

/* Called once per streamed chunk; text_delta is the new text, already extracted. With
 * "n" > 1 each choice's text comes as its own event: print choice 0 only. */
static int print_delta(const gw_event *event, void *user_data)
{
    (void)user_data;
    if (event->text_delta != NULL && event->choice_index == 0) {
        fwrite(event->text_delta, 1, event->text_delta_len, stdout);
        fflush(stdout);
    }
    return 0; /* non-zero would cancel the stream */
}

/* The request, with the model name quoted by gw_json_quote: text from outside (here an
 * environment variable) never goes into JSON unquoted, or a name such as
 * `m", "temperature": 9, "x": "` would add fields. Freed with free(); NULL on failure. */
static char *chat_request(const char *model)
{
    static const char format[] =
        "{\"model\": %s,"
        " \"messages\": [{\"role\": \"user\", \"content\": \"Say hello to C in five words\"}],"
        " \"stream_options\": {\"include_usage\": true}}";
    char *model_json = NULL;
    if (gw_json_quote(model, &model_json) != GW_OK) {
        fprintf(stderr, "GW_CHAT_MODEL: %s\n", gw_last_error());
        gw_free(model_json);
        return NULL;
    }
    int len = snprintf(NULL, 0, format, model_json);
    char *request = len < 0 ? NULL : malloc((size_t)len + 1);
    if (request != NULL) snprintf(request, (size_t)len + 1, format, model_json);
    gw_free(model_json);
    return request;
}

int main(void)
{
    /* NULL, NULL: the base URL and key come from GW_BASE_URL and GW_API_KEY. */
    gw_client *client = gw_client_new(NULL, NULL);
    if (client == NULL) {
        fprintf(stderr, "gw_client_new failed: %s\n", gw_last_error());
        return 1;
    }

    const char *model = getenv("GW_CHAT_MODEL") ? getenv("GW_CHAT_MODEL") : "chat-model";
    char *request = chat_request(model);
    if (request == NULL) {
        gw_client_free(client);
        return 1;
    }

    char *out = NULL;
    int status = gw_chat_stream(client, request, print_delta, NULL, &out);
    free(request);
    printf("\n");
    if (status != GW_OK) {
        /* out is the error object: {"error":{"message","type","code","status"}}. */
        char *message = NULL;
        gw_json_get(out, "error.message", &message);
        fprintf(stderr, "gw_chat_stream failed: %s (%d): %s\n", gw_status_str(status), status,
                message ? message : (out ? out : ""));
        gw_free(message);
        gw_free(out);
        gw_client_free(client);
        return 1;
    }

    /* out is the chat.completion assembled from the chunks; "usage" comes back as JSON. */
    char *usage = NULL;
    if (gw_json_get(out, "usage", &usage) == GW_OK)
        printf("usage: %s\n", usage);
    else
        printf("usage: (the gateway sent none)\n");
    gw_free(usage);

    gw_free(out);
    gw_client_free(client);
    return 0;
}
