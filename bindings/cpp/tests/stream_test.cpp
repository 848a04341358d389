// gw::Stream pulled in a range-for and with next(), early break, finish(), stream faults as
// gw::Error, and the callback form (a callable that stops it, and one that throws).
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "support.hpp"

using support::chat_request;

namespace {

bool has(const std::string& haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string::npos;
}

class Streams : public ::testing::Test {
protected:
    void SetUp() override { support::mock_reset(); }
    const gw::Client c = support::client();
};

}  // namespace

TEST_F(Streams, RangeForGivesEveryEventInOrderThenFinishAssembles)
{
    gw::Stream stream = c.chat_stream(chat_request());
    std::string text;
    std::size_t expected_index = 0;
    int deltas = 0;
    for (const gw::Event& ev : stream) {
        EXPECT_EQ(ev.index, expected_index++);
        EXPECT_EQ(ev.name, "message");
        EXPECT_EQ(ev.choice_index, 0u);
        EXPECT_TRUE(gw::json_text::find(ev.data, {"choices"}) || gw::json_text::find(ev.data, {"usage"})) << ev.data;
        if (ev.text_delta) ++deltas;
        text += ev.text();
    }
    EXPECT_EQ(text, "Echo: one two three four");
    EXPECT_GE(deltas, 5);  // one per word
    EXPECT_TRUE(stream.done());
    const std::string final = stream.finish();
    EXPECT_EQ(gw::json_text::string_at(final, {"object"}).value(), "chat.completion");
    EXPECT_EQ(gw::json_text::string_at(final, {"choices", "0", "message", "content"}).value(), text);
    EXPECT_TRUE(gw::json_text::find(final, {"usage", "total_tokens"}));
    EXPECT_EQ(stream.finish(), final);  // may be called again
    EXPECT_TRUE(has(support::mock_requests(), R"("stream":true)"));

    // A finished stream iterates as empty.
    EXPECT_TRUE(stream.begin() == stream.end());
}

TEST_F(Streams, ExpressionInRangeForAndEventsMayBeKept)
{
    std::vector<gw::Event> kept;
    for (const gw::Event& ev : c.chat_stream(chat_request("keep these")))
        kept.push_back(ev);  // copies own their text
    ASSERT_GE(kept.size(), 3u);
    std::string text;
    for (const auto& ev : kept) text += ev.text();
    EXPECT_EQ(text, "Echo: keep these");
}

// The no-exceptions loop from issue 22: the range-for keeps alive only what value() (or *)
// returns, so on a temporary Result it must be the Stream itself, not a reference into the
// Result (ASan: stack-use-after-scope in gw::Stream::begin()).
TEST_F(Streams, RangeForOverTheValueOfATemporaryResult)
{
    std::string text;
    for (auto& ev : c.try_chat_stream(chat_request("from a temporary")).value()) text += ev.text();
    EXPECT_EQ(text, "Echo: from a temporary");

    text.clear();
    for (const gw::Event& ev : *c.try_responses_stream(R"({"model": "m", "input": "star form"})"))
        text += ev.text();
    EXPECT_EQ(text, "Echo: star form");

    static_assert(std::is_same_v<decltype(std::declval<gw::Result<gw::Stream>>().value()), gw::Stream>);
    static_assert(std::is_same_v<decltype(*std::declval<gw::Result<gw::Stream>>()), gw::Stream>);
    static_assert(std::is_same_v<decltype(std::declval<gw::Result<gw::Stream>&>().value()), gw::Stream&>);

    // value_or on a temporary moves a move-only value out.
    gw::Stream s = c.try_chat_stream(chat_request("or")).value_or(gw::Stream{});
    text.clear();
    for (const gw::Event& ev : s) text += ev.text();
    EXPECT_EQ(text, "Echo: or");
}

TEST_F(Streams, EarlyBreakClosesTheStreamAndTheClientGoesOn)
{
    {
        gw::Stream stream = c.chat_stream(chat_request());
        int seen = 0;
        for (const gw::Event& ev : stream) {
            (void)ev;
            if (++seen == 2) break;
        }
        EXPECT_EQ(seen, 2);
        EXPECT_FALSE(stream.done());
    }  // destroyed mid-stream: the connection is dropped
    EXPECT_TRUE(has(c.chat(chat_request("after a break")), "Echo: after a break"));
    EXPECT_EQ(support::mock_request_count(), 2);
}

TEST_F(Streams, FinishAfterABreakReadsTheRest)
{
    gw::Stream stream = c.chat_stream(chat_request());
    std::string first;
    for (const gw::Event& ev : stream) {
        first = std::string(ev.text());
        break;
    }
    const std::string final = stream.finish();
    EXPECT_EQ(gw::json_text::string_at(final, {"choices", "0", "message", "content"}).value(),
              "Echo: one two three four");
    EXPECT_TRUE(stream.done());
}

TEST_F(Streams, NextPullsOneEventAtATime)
{
    gw::Stream stream = c.responses_stream(R"({"model": "m", "input": "alpha beta"})");
    gw::Event ev;
    std::vector<std::string> names;
    std::string text;
    while (stream.next(ev)) {
        names.push_back(ev.name);
        text += ev.text();
    }
    EXPECT_FALSE(stream.next(ev));  // stays at the end
    EXPECT_EQ(names.front(), "response.created");
    EXPECT_EQ(names.back(), "response.completed");
    EXPECT_EQ(text, "Echo: alpha beta");
    const std::string response = stream.finish();
    EXPECT_EQ(gw::json_text::string_at(response, {"object"}).value(), "response");
    EXPECT_EQ(gw::json_text::string_at(response, {"status"}).value(), "completed");
}

TEST_F(Streams, AnInStreamErrorIsThrownFromTheLoop)
{
    support::mock_fault(R"({"action": "stream_error", "after_events": 2})");
    gw::Stream stream = c.chat_stream(chat_request());
    int seen = 0;
    try {
        for (const gw::Event& ev : stream) {
            (void)ev;
            ++seen;
        }
        FAIL() << "the stream error must be thrown";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), GW_STREAM);
        EXPECT_EQ(e.code(), "stream_failure");
        EXPECT_TRUE(has(e.message(), "upstream model failed")) << e.what();
        EXPECT_TRUE(has(e.what(), "gw::Client::chat_stream: GW_STREAM (-7)")) << e.what();
    }
    EXPECT_EQ(seen, 2);
    ASSERT_NE(stream.error(), nullptr);
    EXPECT_EQ(stream.error()->status(), GW_STREAM);
    EXPECT_THROW(stream.finish(), gw::Error);  // the same failure again
    gw::Event ev;
    EXPECT_THROW(stream.next(ev), gw::Error);
}

TEST_F(Streams, TruncatedStreamIsGwStreamAndNotASilentSuccess)
{
    support::mock_fault(R"({"action": "truncate", "after_events": 3})");
    gw::Stream stream = c.chat_stream(chat_request());
    gw::Event ev;
    int seen = 0;
    auto r = stream.try_next(ev);
    while (r.ok() && *r) {
        ++seen;
        r = stream.try_next(ev);
    }
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(seen, 3);
    EXPECT_EQ(r.error().status(), GW_STREAM);
    EXPECT_EQ(r.error().type(), "stream_error");
    const auto fin = stream.try_finish();
    ASSERT_FALSE(fin.ok());
    EXPECT_EQ(fin.error().status(), GW_STREAM);
}

TEST_F(Streams, OpenFailuresAreErrorsWithMetadata)
{
    support::mock_fault(R"({"action": "status", "status": 403, "headers": {"x-fault-note": "open"}})");
    try {
        c.chat_stream(chat_request());
        FAIL() << "a 403 must be thrown at open";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), 403);
        EXPECT_EQ(e.type(), "permission_error");
        EXPECT_EQ(e.meta().status(), 403);
        EXPECT_EQ(e.meta().header("x-fault-note").value_or(""), "open");
        EXPECT_EQ(e.request_id().value_or("").rfind("req_mock_", 0), 0u) << e.meta().json();
    }
    const auto refused = c.try_chat_stream(R"({"model": "m", "messages": []})");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_FALSE(refused.error().meta().has_value());  // nothing was sent
    EXPECT_EQ(support::mock_request_count(), 1);
}

TEST_F(Streams, MetaOfAStream)
{
    gw::Stream stream = c.chat_stream(chat_request());
    const std::string final = stream.finish();
    const gw::ResponseMeta meta = stream.meta();
    ASSERT_TRUE(meta.has_value()) << meta.json();
    EXPECT_EQ(meta.status(), 200);
    EXPECT_EQ(meta.attempts(), 1);
    EXPECT_TRUE(has(meta.url(), "/v1/chat/completions"));
}

TEST_F(Streams, MovedStreamKeepsGoingAndTheSourceIsEmpty)
{
    gw::Stream a = c.chat_stream(chat_request());
    gw::Event ev;
    ASSERT_TRUE(a.next(ev));
    gw::Stream b = std::move(a);
    std::string text(ev.text());
    while (b.next(ev)) text += ev.text();
    EXPECT_EQ(text, "Echo: one two three four");
    EXPECT_TRUE(a.begin() == a.end());  // NOLINT(bugprone-use-after-move)
    const auto r = a.try_next(ev);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error().message(), "moved from"));

    // Move assignment closes the target's own stream first.
    gw::Stream c1 = c.chat_stream(chat_request("first"));
    c1 = c.chat_stream(chat_request("second"));
    EXPECT_TRUE(has(c1.finish(), "Echo: second"));
}

TEST_F(Streams, CallbackFormStreamsAndReturnsTheCompletion)
{
    std::string text;
    std::size_t events = 0;
    const std::string final = c.chat_stream(chat_request(), [&](const gw::Event& ev) {
        text += ev.text();
        ++events;
    });
    EXPECT_EQ(text, "Echo: one two three four");
    EXPECT_GE(events, 5u);
    EXPECT_EQ(gw::json_text::string_at(final, {"choices", "0", "message", "content"}).value(), text);

    std::string rtext;
    const std::string response = c.responses_stream(
        R"({"model": "m", "input": "alpha beta"})", [&](const gw::Event& ev) { rtext += ev.text(); });
    EXPECT_EQ(rtext, "Echo: alpha beta");
    EXPECT_EQ(gw::json_text::string_at(response, {"status"}).value(), "completed");
}

TEST_F(Streams, CallbackReturningFalseStopsWithGwCancelled)
{
    int deltas = 0;
    const auto r = c.try_chat_stream(chat_request(), [&](const gw::Event& ev) {
        if (ev.text_delta) ++deltas;
        return deltas < 2;
    });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_CANCELLED);
    EXPECT_EQ(deltas, 2);
    EXPECT_EQ(support::mock_request_count(), 1);  // not retried
    EXPECT_TRUE(has(c.chat(chat_request("still fine")), "Echo: still fine"));
}

TEST_F(Streams, ExceptionFromTheCallbackCancelsAndPropagates)
{
    struct Boom : std::runtime_error {
        using std::runtime_error::runtime_error;
    };
    int calls = 0;
    try {
        c.chat_stream(chat_request(), [&](const gw::Event&) {
            if (++calls == 2) throw Boom("from the callback");
        });
        FAIL() << "the callback's exception must propagate";
    } catch (const Boom& e) {
        EXPECT_STREQ(e.what(), "from the callback");  // the very exception, not a gw::Error
    }
    EXPECT_EQ(calls, 2);
    // The stream was cancelled and closed: the client keeps working, nothing leaked (ASan).
    EXPECT_TRUE(has(c.chat(chat_request("after a throw")), "Echo: after a throw"));
    EXPECT_EQ(support::mock_request_count(), 2);

    // The try_ form lets it through too: it is the caller's exception, not gw's failure.
    EXPECT_THROW((void)c.try_responses_stream(R"({"model": "m", "input": "x y"})",
                                              [](const gw::Event&) { throw Boom("again"); }),
                 Boom);
}

TEST_F(Streams, CallbackFormReportsStreamFailures)
{
    support::mock_fault(R"({"action": "stream_error", "after_events": 1})");
    int calls = 0;
    try {
        c.chat_stream(chat_request(), [&](const gw::Event&) { ++calls; });
        FAIL() << "must throw";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), GW_STREAM);
    }
    EXPECT_EQ(calls, 1);
}
