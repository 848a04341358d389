/* The C program test-dist builds against each unpacked SDK archive (pkg-config and CMake,
 * shared and static, x86_64 and aarch64 under qemu): one chat against gw-mock at GW_BASE_URL
 * (GW_API_KEY), and the library's version against the header's. */
#include <gw.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    if (strcmp(gw_version(), GW_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: library %s, header %s\n", gw_version(), GW_VERSION_STRING);
        return 1;
    }
    struct gw_client *client = NULL;
    char *err = NULL;
    int status = gw_client_create(NULL, &client, &err);
    if (status != GW_OK) {
        fprintf(stderr, "consumer: gw_client_create: %d %s\n", status, err ? err : "");
        gw_free(err);
        return 1;
    }
    char *out = NULL;
    status = gw_chat(client,
                     "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"from the SDK\"}]}",
                     &out);
    int ok = status == GW_OK && out != NULL && strstr(out, "Echo: from the SDK") != NULL;
    if (!ok)
        fprintf(stderr, "consumer: gw_chat: %d %s\n", status, out ? out : "");
    gw_free(out);
    gw_client_free(client);
    if (ok)
        printf("consumer: gw %s, chat ok\n", gw_version());
    return ok ? 0 : 1;
}
