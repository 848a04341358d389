// Clients for the mock and its control endpoints, used by every test file.
#include "support.hpp"

#include <cstdio>
#include <cstdlib>

namespace support {

std::string chat_request(std::string_view content)
{
    return R"({"model": "m", "messages": [{"role": "user", "content": )" +
           gw::json_text::quote(content) + R"(}], "stream_options": {"include_usage": true}})";
}

std::string base_url()
{
    const char* url = std::getenv("GW_TEST_BASE_URL");
    if (url == nullptr || *url == '\0') {
        std::fprintf(stderr, "GW_TEST_BASE_URL is not set: run the suite with scripts/test-cpp.sh\n");
        std::exit(2);
    }
    return url;
}

gw::ClientOptions options()
{
    gw::ClientOptions o;
    o.base_url = base_url();
    o.api_key = kKey;
    o.retry_base_delay = std::chrono::milliseconds(10);
    o.retry_max_delay = std::chrono::milliseconds(50);
    return o;
}

gw::Client client()
{
    return gw::Client(options());
}

gw::Client client(const gw::ClientOptions& o)
{
    return gw::Client(o);
}

// Never retries, so queued faults stay queued for the client under test.
static const gw::Client& control()
{
    static const gw::Client c = [] {
        gw::ClientOptions o = options();
        o.max_retries = 0;
        return gw::Client(o);
    }();
    return c;
}

void mock_reset()
{
    control().request("POST", "/__mock/reset", "{}");
}

void mock_fault(std::string_view fault_json)
{
    control().request("POST", "/__mock/faults", fault_json);
}

std::string mock_requests()
{
    return control().request("GET", "/__mock/requests");
}

int mock_request_count()
{
    const std::string requests = mock_requests();
    int n = 0;
    while (gw::json_text::find(requests, {std::to_string(n)})) ++n;
    return n;
}

std::string recorded_header(const std::string& requests, int index, std::string_view name)
{
    // Headers are recorded as [name, value] pairs.
    const auto headers = gw::json_text::find(requests, {std::to_string(index), "headers"});
    if (!headers) return "";
    for (int i = 0;; ++i) {
        const std::string k = std::to_string(i);
        const auto n = gw::json_text::string_at(*headers, {k, "0"});
        if (!n) return "";
        if (*n == name) return gw::json_text::string_at(*headers, {k, "1"}).value_or("");
    }
}

long long ms_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now() - start)
        .count();
}

}  // namespace support
