// What the C++ tests share: the mock's address (GW_TEST_BASE_URL, set by scripts/test-cpp.sh),
// clients made for it, and the mock's control endpoints, reached through the binding itself.
#ifndef GW_CPP_TEST_SUPPORT_HPP
#define GW_CPP_TEST_SUPPORT_HPP

#include <gw/gw.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace support {

// The key the mock accepts.
inline constexpr const char* kKey = "sk-test";

// A chat request the mock answers with "Echo: <content>".
std::string chat_request(std::string_view content = "one two three four");

// GW_TEST_BASE_URL; ends the run when unset.
std::string base_url();

// Options for the mock with fast retries (10..50 ms).
gw::ClientOptions options();
gw::Client client();
gw::Client client(const gw::ClientOptions& options);

// Forget the mock's recordings, faults and tasks.
void mock_reset();
// Queue a fault object or array (the body of POST /__mock/faults).
void mock_fault(std::string_view fault_json);
// The recorded requests, a JSON array, oldest first.
std::string mock_requests();
// How many requests the mock recorded since the last reset.
int mock_request_count();
// Header `name` (lower case) of recorded request `index`, or "" when absent.
std::string recorded_header(const std::string& requests, int index, std::string_view name);

// Milliseconds since `start`.
long long ms_since(std::chrono::steady_clock::time_point start);

}  // namespace support

#endif  // GW_CPP_TEST_SUPPORT_HPP
