// gw::set_logger: gw's lines reach the callable (key redacted); a throwing logger does not
// break the call; clear_logger stops the lines.
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "support.hpp"

using support::chat_request;

namespace {

struct Lines {
    std::mutex mutex;
    std::vector<std::pair<gw::LogLevel, std::string>> lines;
    void add(gw::LogLevel level, std::string_view line)
    {
        std::lock_guard<std::mutex> lock(mutex);
        lines.emplace_back(level, std::string(line));
    }
};

class Logger : public ::testing::Test {
protected:
    void SetUp() override { support::mock_reset(); }
    void TearDown() override { gw::clear_logger(); }
};

}  // namespace

TEST_F(Logger, LinesReachTheCallableWithoutTheKey)
{
    const std::string secret = "sk-logged-secret-123";
    support::mock_fault(R"({"match": "/v1beta", "action": "status", "status": 500})");
    Lines seen;
    gw::set_logger([&](gw::LogLevel level, std::string_view line) { seen.add(level, line); },
                   gw::LogLevel::trace);
    gw::ClientOptions o = support::options();
    o.api_key = secret;
    const gw::Client c(o);
    (void)c.try_generate_content("m", R"({"contents": [{"parts": [{"text": "x"}]}]})");
    ASSERT_FALSE(seen.lines.empty());
    bool attempt = false, retry = false;
    for (const auto& [level, line] : seen.lines) {
        EXPECT_EQ(line.find(secret), std::string::npos) << line;
        if (line.find("attempt") != std::string::npos) attempt = true;
        if (line.find("retrying") != std::string::npos) {
            retry = true;
            EXPECT_EQ(level, gw::LogLevel::info);
        }
    }
    EXPECT_TRUE(attempt);
    EXPECT_TRUE(retry);
}

TEST_F(Logger, MaxLevelFiltersAndClearStops)
{
    Lines seen;
    gw::set_logger([&](gw::LogLevel level, std::string_view line) { seen.add(level, line); },
                   gw::LogLevel::warn);
    const gw::Client c = support::client();
    c.chat(chat_request());  // only debug/info lines: none pass
    EXPECT_TRUE(seen.lines.empty());
    (void)c.try_chat(R"({"model": "m"})");  // a refused call: a warning
    ASSERT_FALSE(seen.lines.empty());
    for (const auto& entry : seen.lines) EXPECT_LE(static_cast<int>(entry.first), GW_LOG_WARN);

    gw::clear_logger();
    const std::size_t before = seen.lines.size();
    (void)c.try_chat(R"({"model": "m"})");
    EXPECT_EQ(seen.lines.size(), before);
}

TEST_F(Logger, AThrowingLoggerDoesNotBreakTheCall)
{
    int calls = 0;
    gw::set_logger(
        [&](gw::LogLevel, std::string_view) {
            ++calls;
            throw std::runtime_error("logger failed");
        },
        gw::LogLevel::trace);
    const gw::Client c = support::client();
    EXPECT_NE(c.chat(chat_request("logged")).find("Echo: logged"), std::string::npos);
    EXPECT_GT(calls, 0);
}
