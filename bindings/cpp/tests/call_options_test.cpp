// gw::CallOptions: headers, idempotency key, timeouts, retries and validation for one call,
// and the call's response metadata, on success and in gw::Error.
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <chrono>
#include <string>

#include "support.hpp"

using support::chat_request;
using std::chrono::milliseconds;

namespace {

class CallOpts : public ::testing::Test {
protected:
    void SetUp() override { support::mock_reset(); }
    const gw::Client c = support::client();
};

}  // namespace

TEST_F(CallOpts, HeadersAndIdempotencyKeyReachTheWireForThatCallOnly)
{
    gw::CallOptions o;
    o.headers["x-trace"] = "t-1";
    o.idempotency_key = "idem-42";
    c.chat(chat_request(), o);
    c.chat(chat_request());
    const std::string req = support::mock_requests();
    EXPECT_EQ(support::recorded_header(req, 0, "x-trace"), "t-1");
    EXPECT_EQ(support::recorded_header(req, 0, "idempotency-key"), "idem-42");
    EXPECT_EQ(support::recorded_header(req, 1, "x-trace"), "");
    // The next call has gw's own automatic key, not this call's.
    const std::string automatic = support::recorded_header(req, 1, "idempotency-key");
    EXPECT_FALSE(automatic.empty());
    EXPECT_NE(automatic, "idem-42");
}

TEST_F(CallOpts, ClientWithoutAutomaticIdempotencyKeys)
{
    gw::ClientOptions opts = support::options();
    opts.idempotency_keys = false;
    const gw::Client plain(opts);
    plain.chat(chat_request());
    gw::CallOptions o;
    o.idempotency_key = "explicit";
    plain.chat(chat_request(), o);
    const std::string req = support::mock_requests();
    EXPECT_EQ(support::recorded_header(req, 0, "idempotency-key"), "");
    EXPECT_EQ(support::recorded_header(req, 1, "idempotency-key"), "explicit");
}

TEST_F(CallOpts, IdempotencyKeyIsKeptAcrossRetries)
{
    support::mock_fault(R"({"match": "/v1/chat", "action": "status", "status": 500})");
    gw::CallOptions o;
    o.idempotency_key = "idem-retry";
    c.chat(chat_request(), o);
    const std::string req = support::mock_requests();
    EXPECT_EQ(support::mock_request_count(), 2);
    EXPECT_EQ(support::recorded_header(req, 0, "idempotency-key"), "idem-retry");
    EXPECT_EQ(support::recorded_header(req, 1, "idempotency-key"), "idem-retry");
}

TEST_F(CallOpts, TotalTimeoutForOneCall)
{
    support::mock_fault(R"({"match": "/v1/chat", "action": "delay", "ms": 3000})");
    gw::CallOptions o;
    o.total_timeout = milliseconds(300);
    const auto start = std::chrono::steady_clock::now();
    const auto r = c.try_chat(chat_request(), o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), GW_TIMEOUT);
    EXPECT_EQ(r.error().type(), "timeout_error");
    EXPECT_LT(support::ms_since(start), 2000);
}

TEST_F(CallOpts, MaxRetriesForOneCallAndTheAttemptsInTheMetadata)
{
    support::mock_fault(R"({"match": "/v1/chat", "action": "status", "status": 503, "times": 5})");
    gw::CallOptions o;
    o.max_retries = 0;
    gw::ResponseMeta meta;
    o.meta = &meta;
    const auto r = c.try_chat(chat_request(), o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().status(), 503);
    EXPECT_EQ(support::mock_request_count(), 1);
    EXPECT_EQ(meta.attempts(), 1);
    EXPECT_EQ(meta.status(), 503);
    EXPECT_EQ(r.error().meta().attempts(), 1);

    o.max_retries = 3;  // 4 attempts, all 503
    const auto r2 = c.try_chat(chat_request(), o);
    ASSERT_FALSE(r2.ok());
    EXPECT_EQ(r2.error().meta().attempts(), 4);
    EXPECT_EQ(meta.attempts(), 4);
}

TEST_F(CallOpts, ValidateFalseLetsTheGatewayJudge)
{
    const std::string hot = R"({"model": "m", "temperature": 3, "messages": [{"role": "user", "content": "x"}]})";
    const auto local = c.try_chat(hot);
    ASSERT_FALSE(local.ok());
    EXPECT_EQ(local.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_EQ(local.error().param().value_or(""), "temperature");
    EXPECT_EQ(support::mock_request_count(), 0);

    gw::CallOptions o;
    o.validate = false;
    o.max_retries = 0;
    const auto remote = c.try_chat(hot, o);
    ASSERT_FALSE(remote.ok());
    EXPECT_EQ(remote.error().status(), 400);
    EXPECT_EQ(remote.error().code(), "invalid_parameter");
    EXPECT_EQ(support::mock_request_count(), 1);
}

TEST_F(CallOpts, MetadataOfASuccess)
{
    support::mock_fault(R"({"match": "/v1/chat", "action": "status", "status": 429,
                            "headers": {"retry-after-ms": "10"}})");
    gw::ResponseMeta meta;
    gw::CallOptions o;
    o.meta = &meta;
    c.chat(chat_request(), o);
    ASSERT_TRUE(meta.has_value()) << meta.json();
    EXPECT_EQ(meta.status(), 200);
    EXPECT_EQ(meta.attempts(), 2);
    EXPECT_TRUE(meta.url().find("/v1/chat/completions") != std::string::npos) << meta.url();
    EXPECT_EQ(meta.url().find("sk-test"), std::string::npos);
    EXPECT_TRUE(meta.header("content-type").value_or("").find("json") != std::string::npos);
    EXPECT_GE(meta.elapsed().count(), 0);

    // Refused before sending: no exchange, empty metadata.
    gw::ResponseMeta none;
    o.meta = &none;
    EXPECT_FALSE(c.try_chat(R"({"model": "m"})", o).ok());
    EXPECT_FALSE(none.has_value());
}

TEST_F(CallOpts, ErrorsCarryTheRequestIdAndHeaders)
{
    support::mock_fault(R"({"match": "/v1/embeddings", "action": "status", "status": 401,
                            "headers": {"x-fault-note": "injected"}})");
    try {
        c.embeddings(R"({"model": "e", "input": "x"})");
        FAIL() << "401 must throw";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), 401);
        EXPECT_STREQ(e.status_name(), "GW_UNAUTHORIZED");
        EXPECT_EQ(e.type(), "authentication_error");
        // The mock names every answer in x-request-id (req_mock_N).
        EXPECT_EQ(e.request_id().value_or("").rfind("req_mock_", 0), 0u) << e.meta().json();
        EXPECT_EQ(e.meta().header("X-Request-Id"), e.request_id());
        EXPECT_EQ(e.meta().header("X-Fault-Note").value_or(""), "injected");
        EXPECT_EQ(e.meta().status(), 401);
    }
}

TEST_F(CallOpts, TheKeyIsNeverInAnErrorOrItsMetadata)
{
    const std::string secret = "sk-secret-do-not-print-77";
    gw::ClientOptions opts = support::options();
    opts.api_key = secret;
    const gw::Client wrong(opts);
    try {
        wrong.generate_content("m", R"({"contents": [{"parts": [{"text": "x"}]}]})");
        FAIL() << "a wrong key must be refused";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), 401);
        EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos) << e.what();
        EXPECT_EQ(e.json().find(secret), std::string::npos) << e.json();
        EXPECT_EQ(e.meta().json().find(secret), std::string::npos) << e.meta().json();
        EXPECT_TRUE(e.meta().url().find("generateContent") != std::string::npos) << e.meta().url();
    }
}
