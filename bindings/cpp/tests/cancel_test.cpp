// Cancellation from another thread: a CancelToken stops a waiting call, a stream, a
// video_wait sleep and later calls; Stream::cancel; a throwing progress callable.
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#include "support.hpp"

using support::chat_request;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

class Cancel : public ::testing::Test {
protected:
    void SetUp() override { support::mock_reset(); }
    const gw::Client c = support::client();
};

// Cancels `token` from another thread after `delay`.
std::thread cancel_later(const gw::CancelToken& token, milliseconds delay)
{
    return std::thread([token, delay] {
        std::this_thread::sleep_for(delay);
        token.cancel();
    });
}

}  // namespace

TEST_F(Cancel, TokenStopsACallWaitingForTheGateway)
{
    support::mock_fault(R"({"match": "/v1/chat", "action": "delay", "ms": 5000})");
    gw::CancelToken token;
    gw::CallOptions o;
    o.cancel = token;
    const auto start = Clock::now();
    std::thread canceller = cancel_later(token, milliseconds(200));
    const auto r = c.try_chat(chat_request(), o);
    canceller.join();
    const long long took = support::ms_since(start);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_CANCELLED);
    EXPECT_EQ(r.error().code(), "cancelled");
    EXPECT_GE(took, 150);
    EXPECT_LT(took, 2000) << "cancel must not wait for the 5 s delay";
}

TEST_F(Cancel, ACancelledTokenFailsLaterCallsAtOnceWithoutSending)
{
    gw::CancelToken token;
    token.cancel();
    gw::CallOptions o;
    o.cancel = token;
    EXPECT_EQ(c.try_chat(chat_request(), o).error().status(), GW_CANCELLED);
    EXPECT_EQ(c.try_chat_stream(chat_request(), o).error().status(), GW_CANCELLED);
    EXPECT_EQ(support::mock_request_count(), 0);
    // Calls without the token are not affected.
    EXPECT_NO_THROW(c.chat(chat_request()));
}

TEST_F(Cancel, TokenStopsAStreamMidway)
{
    support::mock_fault(R"({"action": "drip", "interval_ms": 300})");
    gw::CancelToken token;
    gw::CallOptions o;
    o.cancel = token;
    gw::Stream stream = c.chat_stream(chat_request(), o);
    int seen = 0;
    const auto start = Clock::now();
    try {
        for (const gw::Event& ev : stream) {
            (void)ev;
            if (++seen == 1) token.cancel();  // from this thread: the next pull ends
        }
        FAIL() << "a cancelled stream must throw";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), GW_CANCELLED);
    }
    EXPECT_EQ(seen, 1);
    EXPECT_LT(support::ms_since(start), 1000);
}

TEST_F(Cancel, StreamCancelFromAnotherThread)
{
    support::mock_fault(R"({"action": "drip", "interval_ms": 400})");
    gw::Stream stream = c.chat_stream(chat_request());
    gw::Stream* s = &stream;
    const auto start = Clock::now();
    std::thread canceller([s] {
        std::this_thread::sleep_for(milliseconds(250));
        s->cancel();
    });
    gw::Event ev;
    auto r = stream.try_next(ev);
    while (r.ok() && *r) r = stream.try_next(ev);
    canceller.join();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_CANCELLED);
    EXPECT_LT(support::ms_since(start), 1500) << "the whole drip takes seconds";
}

TEST_F(Cancel, TokenStopsVideoWaitWhileItSleeps)
{
    const std::string id = gw::json_text::string_at(
        c.video_create(R"({"model": "vid", "prompt": "a boat"})"), {"task_id"}).value();
    gw::CancelToken token;
    gw::CallOptions o;
    o.cancel = token;
    gw::WaitOptions w;
    w.interval = milliseconds(5000);
    const auto start = Clock::now();
    std::thread canceller = cancel_later(token, milliseconds(200));
    const auto r = c.try_video_wait(gw::VideoFamily::unified, id, w, o);
    canceller.join();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_CANCELLED);
    EXPECT_LT(support::ms_since(start), 2000);
}

TEST_F(Cancel, OneTokenCancelsEveryCallUsingItAndNoOther)
{
    support::mock_fault(R"({"match": "/v1/chat", "action": "delay", "ms": 3000, "times": 2})");
    gw::CancelToken token;
    gw::CallOptions with_token;
    with_token.cancel = token;
    auto a = std::async(std::launch::async, [&] { return c.try_chat(chat_request("a"), with_token); });
    auto b = std::async(std::launch::async, [&] { return c.try_chat(chat_request("b"), with_token); });
    std::this_thread::sleep_for(milliseconds(300));
    const auto start = Clock::now();
    token.cancel();
    EXPECT_EQ(a.get().error().status(), GW_CANCELLED);
    EXPECT_EQ(b.get().error().status(), GW_CANCELLED);
    EXPECT_LT(support::ms_since(start), 1500);
    // The faults are used up; a call with a fresh token goes through.
    gw::CallOptions fresh;
    fresh.cancel = gw::CancelToken();
    EXPECT_TRUE(c.try_chat(chat_request("c"), fresh).ok());
}

TEST_F(Cancel, ProgressCallableThrowingStopsThePollingAndIsRethrown)
{
    const std::string id = gw::json_text::string_at(
        c.video_create(R"({"model": "vid", "prompt": "a boat"})"), {"task_id"}).value();
    gw::WaitOptions w;
    w.interval = milliseconds(10);
    int polls = 0;
    try {
        c.video_wait(gw::VideoFamily::unified, id, w, [&](std::string_view, std::string_view) {
            ++polls;
            throw std::logic_error("stop polling");
        });
        FAIL() << "the progress callable's exception must come back";
    } catch (const std::logic_error& e) {
        EXPECT_STREQ(e.what(), "stop polling");
    }
    EXPECT_EQ(polls, 1);
    EXPECT_EQ(support::mock_request_count(), 2);  // the create and one poll: no more

    // Returning false stops it with GW_CANCELLED.
    const auto r = c.try_video_wait(gw::VideoFamily::unified, id, w,
                                    [](std::string_view, std::string_view) { return false; });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_CANCELLED);
}
