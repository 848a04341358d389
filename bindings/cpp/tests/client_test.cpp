// gw::Client: made from a struct or JSON text, refused options named (never with the key),
// move-only ownership, use after move, and derived clients.
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <string>
#include <type_traits>
#include <utility>

#include "support.hpp"

using support::chat_request;

static_assert(!std::is_copy_constructible_v<gw::Client>);
static_assert(!std::is_copy_assignable_v<gw::Client>);
static_assert(std::is_nothrow_move_constructible_v<gw::Client>);
static_assert(std::is_nothrow_move_assignable_v<gw::Client>);
static_assert(!std::is_copy_constructible_v<gw::Stream>);
static_assert(std::is_nothrow_move_constructible_v<gw::Stream>);

TEST(Client, FromStructAndFromJson)
{
    support::mock_reset();
    const gw::Client a(support::options());
    EXPECT_NE(a.chat(chat_request("from a struct")).find("Echo: from a struct"), std::string::npos);

    const std::string json = R"({"base_url": ")" + support::base_url() +
                             R"(", "api_key": "sk-test", "max_retries": 0})";
    const gw::Client b(json);
    EXPECT_NE(b.chat(chat_request("from json")).find("Echo: from json"), std::string::npos);
    EXPECT_TRUE(static_cast<bool>(b));
    EXPECT_NE(b.native_handle(), nullptr);
}

TEST(Client, BadOptionsAreNamedAndTheKeyIsNeverShown)
{
    const std::string secret = "sk-very-secret-0123456789";
    try {
        gw::Client c(R"({"api_key": ")" + secret + R"(", "base_url": "http://127.0.0.1:1", "max_retriez": 1})");
        FAIL() << "a misspelled option must be refused";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), GW_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("max_retriez"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos);
        EXPECT_EQ(e.json().find(secret), std::string::npos);
        EXPECT_EQ(std::string(e.what()).rfind("gw::Client: GW_INVALID_ARGUMENT (-1): ", 0), 0u) << e.what();
    }
    gw::ClientOptions o = support::options();
    o.api_key = secret;
    o.base_url = "ftp://example.com";
    const auto r = gw::Client::create(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_NE(r.error().message().find("base_url"), std::string::npos) << r.error().message();
    EXPECT_EQ(r.error().json().find(secret), std::string::npos);

    const auto not_json = gw::Client::create(std::string_view("{"));
    ASSERT_FALSE(not_json.ok());
    EXPECT_EQ(not_json.error().status(), GW_INVALID_ARGUMENT);
}

TEST(Client, NulInsideAStringIsRefusedNamingTheArgument)
{
    const gw::Client c = support::client();
    support::mock_reset();
    const std::string req = chat_request("a") + std::string(1, '\0') + "tail";
    const auto r = c.try_chat(req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_NE(r.error().message().find("request_json: contains a NUL byte at offset"), std::string::npos);
    EXPECT_EQ(r.error().code(), "invalid_argument");
    const auto s = c.try_video_status(gw::VideoFamily::vendor_r, std::string("id\0x", 4));
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message().find("task_id"), std::string::npos);
    EXPECT_EQ(support::mock_request_count(), 0);
}

TEST(Client, MoveTransfersTheHandle)
{
    gw::Client a = support::client();
    gw_client* const handle = a.native_handle();
    gw::Client b(std::move(a));
    EXPECT_EQ(b.native_handle(), handle);
    EXPECT_EQ(a.native_handle(), nullptr);  // NOLINT(bugprone-use-after-move): checked on purpose
    EXPECT_FALSE(static_cast<bool>(a));
    EXPECT_NE(b.chat(chat_request("moved")).find("Echo: moved"), std::string::npos);

    // Move assignment frees the target's own handle (ASan would see a leak otherwise) and
    // takes the source's.
    gw::Client c = support::client();
    c = std::move(b);
    EXPECT_EQ(c.native_handle(), handle);
    EXPECT_EQ(b.native_handle(), nullptr);
    EXPECT_NE(c.chat(chat_request("assigned")).find("Echo: assigned"), std::string::npos);

    // Self-move leaves it working.
    gw::Client& same = c;
    c = std::move(same);
    EXPECT_EQ(c.native_handle(), handle);
}

TEST(Client, UseAfterMoveIsAnErrorNotACrash)
{
    gw::Client a = support::client();
    gw::Client b = std::move(a);
    const auto r = a.try_chat(chat_request());  // NOLINT(bugprone-use-after-move)
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_NE(r.error().message().find("moved from"), std::string::npos);
    EXPECT_THROW(a.chat_stream(chat_request()), gw::Error);
    EXPECT_THROW(a.derive({}), gw::Error);
    EXPECT_TRUE(static_cast<bool>(b));
}

TEST(Client, ResultOfCreateCarriesAMoveOnlyClient)
{
    auto r = gw::Client::create(support::options());
    ASSERT_TRUE(r.ok()) << r.error().what();
    gw::Client c = std::move(r).value();
    EXPECT_NE(c.chat(chat_request("created")).find("Echo: created"), std::string::npos);
}

TEST(Client, DerivedClientAddsHeadersAndOutlivesItsBase)
{
    support::mock_reset();
    gw::CallOptions extra;
    extra.headers["x-team"] = "blue";
    gw::Client derived = [&] {
        const gw::Client base = support::client();
        return base.derive(extra);
    }();  // the base is gone; the derived handle keeps what it shares alive
    derived.chat(chat_request());
    EXPECT_EQ(support::recorded_header(support::mock_requests(), 0, "x-team"), "blue");

    gw::CallOptions bad;
    bad.headers["bad header\n"] = "x";
    const auto r = derived.try_derive(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_INVALID_ARGUMENT);
}

TEST(Client, VersionAndStatusNames)
{
    EXPECT_EQ(gw::version(), std::to_string(GW_VERSION_MAJOR) + "." + std::to_string(GW_VERSION_MINOR) +
                                 "." + std::to_string(GW_VERSION_PATCH));
    EXPECT_STREQ(gw::status_name(GW_TIMEOUT), "GW_TIMEOUT");
    EXPECT_STREQ(gw::status_name(503), "GW_HTTP_STATUS");
}
