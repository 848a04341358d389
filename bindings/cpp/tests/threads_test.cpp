// One gw::Client shared by many threads: every call gets its own answer.
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

TEST(Threads, OneClientManyThreadsCallsAndStreams)
{
    support::mock_reset();
    const gw::Client c = support::client();
    constexpr int kThreads = 8;
    std::vector<std::string> chats(kThreads), streams(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
        threads.emplace_back([&, i] {
            chats[i] = c.chat(support::chat_request("t" + std::to_string(i)));
            for (const gw::Event& ev : c.chat_stream(support::chat_request("s" + std::to_string(i))))
                streams[i] += ev.text();
        });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < kThreads; ++i) {
        EXPECT_NE(chats[i].find("Echo: t" + std::to_string(i)), std::string::npos) << chats[i];
        EXPECT_EQ(streams[i], "Echo: s" + std::to_string(i));
    }
    EXPECT_EQ(support::mock_request_count(), 2 * kThreads);
}
