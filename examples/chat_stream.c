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
#include "json_field.h"

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

int main(void)
{
    /* NULL, NULL: the base URL and key come from GW_BASE_URL and GW_API_KEY. */
    gw_client *client = gw_client_new(NULL, NULL);
    if (client == NULL) {
        fprintf(stderr, "gw_client_new failed: %s\n", gw_last_error());
        return 1;
    }

    const char *model = getenv("GW_CHAT_MODEL") ? getenv("GW_CHAT_MODEL") : "chat-model";
    char request[512];
    snprintf(request, sizeof request,
             "{\"model\": \"%s\","
             " \"messages\": [{\"role\": \"user\", \"content\": \"Say hello to C in five words\"}],"
             " \"stream_options\": {\"include_usage\": true}}",
             model);

    char *out = NULL;
    int status = gw_chat_stream(client, request, print_delta, NULL, &out);
    printf("\n");
    if (status != GW_OK) {
        fprintf(stderr, "gw_chat_stream failed: %s (%d)\n%s\n", gw_status_str(status), status,
                out ? out : "");
        gw_free(out);
        gw_client_free(client);
        return 1;
    }

    /* out is the chat.completion assembled from the chunks. */
    char usage[256];
    if (json_field(out, "usage", usage, sizeof usage))
        printf("usage: %s\n", usage);
    else
        printf("usage: (the gateway sent none)\n");

    gw_free(out);
    gw_client_free(client);
    return 0;
}
