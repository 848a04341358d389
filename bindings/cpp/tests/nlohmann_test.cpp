// gw/nlohmann.hpp beside nlohmann/json (Debian's nlohmann-json3-dev): json in and out, and
// the combination issue 22 found ambiguous, `using json = nlohmann::json;` with
// `using namespace gw;`, which this file compiles at file scope.
#include <gtest/gtest.h>

#if __has_include(<nlohmann/json.hpp>)

#include <gw/nlohmann.hpp>

#include <string>

#include "support.hpp"

using json = nlohmann::json;
using namespace gw;

namespace {

class Nlohmann : public ::testing::Test {
protected:
    void SetUp() override { support::mock_reset(); }
    const JsonClient c{support::client()};
};

json chat_request(const std::string& content)
{
    return {{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", content}}}},
            {"stream_options", {{"include_usage", true}}}};
}

}  // namespace

TEST_F(Nlohmann, JsonNamesNoGwNamespace)
{
    json j = json::parse(R"({"a": [1, 2]})");  // `json` alone is nlohmann's: no ambiguity
    EXPECT_EQ(j["a"][1].get<int>(), 2);
    EXPECT_EQ(json_text::string_at(R"({"s": "x"})", {"s"}).value(), "x");  // gw's own, renamed
}

TEST_F(Nlohmann, ChatTakesAndReturnsJson)
{
    const json answer = c.chat(chat_request("quote \"me\""));
    EXPECT_EQ(answer["object"], "chat.completion");
    EXPECT_EQ(answer["choices"][0]["message"]["content"].get<std::string>(), "Echo: quote \"me\"");
    EXPECT_GT(answer["usage"]["total_tokens"].get<int>(), 0);
    // The request went out as the json said.
    const json sent = json::parse(support::mock_requests())[0]["json"];
    EXPECT_EQ(sent["messages"][0]["content"], "quote \"me\"");
}

TEST_F(Nlohmann, StreamsGiveEventsAndTheAssembledAnswer)
{
    Stream stream = c.chat_stream(chat_request("one two"));
    std::string text;
    int chunks = 0;
    for (const Event& ev : stream) {
        const json chunk = event_json(ev);
        if (chunk.contains("choices")) ++chunks;
        text += ev.text();
    }
    EXPECT_EQ(text, "Echo: one two");
    EXPECT_GE(chunks, 3);
    EXPECT_EQ(finish_json(stream)["choices"][0]["message"]["content"], "Echo: one two");
}

TEST_F(Nlohmann, FailuresThrowGwErrorOrReturnAResult)
{
    try {
        c.chat({{"model", "m"}, {"messages", json::array()}});
        FAIL() << "an empty messages array must be refused";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), GW_INVALID_ARGUMENT);
        EXPECT_EQ(error_json(e)["error"]["param"], "messages");
    }
    const Result<json> r = c.try_chat({{"model", "m"}, {"messages", json::array()}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_INVALID_ARGUMENT);

    // A string that is not UTF-8 is refused before anything is sent, not thrown by dump().
    const Result<json> bad = c.try_chat({{"model", std::string("m\xff")}, {"messages", json::array()}});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_EQ(support::mock_request_count(), 0);
}

TEST_F(Nlohmann, OtherOperationsAndOptionsAsJson)
{
    const json image = c.image_generate({{"model", "img"}, {"prompt", "a cat"}});
    EXPECT_EQ(image["data"][0]["url"].get<std::string>().rfind("http", 0), 0u);
    const json task = c.video_create({{"model", "v"}, {"prompt", "a boat"}});
    const json status = c.video_status(VideoFamily::unified, task["task_id"].get<std::string>());
    EXPECT_EQ(status["task_id"], task["task_id"]);
    const json models = c.request("POST", "/v1/embeddings", json{{"model", "e"}, {"input", "hi"}});
    EXPECT_TRUE(models["data"].is_array());

    const JsonClient from_json{json{{"base_url", support::base_url()}, {"api_key", support::kKey}}};
    EXPECT_EQ(from_json.chat(chat_request("x"))["choices"][0]["message"]["content"], "Echo: x");
}

#else
// Never a silent skip: the suite's installer brings it (scripts/ci/install-gtest.sh).
#error "<nlohmann/json.hpp> is not installed (Debian: nlohmann-json3-dev)"
#endif
