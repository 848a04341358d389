// gw.h included from C++ (scripts/test-header.sh builds this with g++ -std=c++11 and
// -std=c++17, -Wall -Wextra -Werror -pedantic, and links it with libgw.a): the declarations
// get C linkage and the structs and callbacks are usable from C++ code.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "gw.h"

namespace {

int failures = 0;

void expect(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "cxx_consumer: %s\n", what);
        ++failures;
    }
}

struct ClientDeleter {
    void operator()(gw_client *c) const { gw_client_free(c); }
};

// Takes ownership of a gw string (freed with gw_free).
std::string take(char *s)
{
    std::string copy = s ? s : "";
    gw_free(s);
    return copy;
}

int on_event(const gw_event *event, void *user_data)
{
    static_cast<std::string *>(user_data)->append(event->event);
    return 0;
}

}  // namespace

int main()
{
    std::string version = std::to_string(GW_VERSION_MAJOR) + "." +
                          std::to_string(GW_VERSION_MINOR) + "." +
                          std::to_string(GW_VERSION_PATCH);
    expect(version == gw_version(), "gw_version() differs from GW_VERSION_*");

    std::unique_ptr<gw_client, ClientDeleter> client(
        gw_client_new_with_options("{\"base_url\": \"http://127.0.0.1:9\", \"api_key\": \"sk-test\"}"));
    expect(client != nullptr, "gw_client_new_with_options refused loopback options");

    // A callback of C++ code, passed where gw_event_cb goes; refused before it is needed.
    std::string events;
    char *out = nullptr;
    int rc = gw_chat_stream(client.get(), "{not json", on_event, &events, &out);
    std::string error = take(out);
    expect(rc == GW_INVALID_ARGUMENT, "gw_chat_stream with broken JSON is not refused");
    expect(error.find("JSON") != std::string::npos, "the error does not say JSON");
    expect(events.empty(), "the callback ran for a refused request");

    gw_file image = {sizeof(gw_file), nullptr, 0, nullptr, nullptr};
    out = nullptr;
    rc = gw_image_edit_upload(client.get(), "{}", &image, nullptr, &out);
    error = take(out);
    expect(rc == GW_INVALID_ARGUMENT && error.find("image.data") != std::string::npos,
           "a gw_file without bytes is not refused by name");

    if (failures == 0)
        std::printf("cxx_consumer: ok (C++ %ld, gw %s)\n", static_cast<long>(__cplusplus),
                    gw_version());
    return failures == 0 ? 0 : 1;
}
