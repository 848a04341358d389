// gw::Error, gw::ResponseMeta and gw::Result read from the JSON shapes gw returns, and the
// option structs' JSON. No gateway needed.
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <string>
#include <type_traits>

TEST(Error, ReadsTheErrorContract)
{
    const gw::Error e(429,
                      R"({"error":{"message":"Rate limit reached","type":"rate_limit_error",)"
                      R"("code":"rate_limit","status":429,"request_id":"req_9"}})",
                      {}, "gw::Client::chat");
    EXPECT_EQ(e.status(), 429);
    EXPECT_STREQ(e.status_name(), "GW_RATE_LIMITED");
    EXPECT_EQ(e.type(), "rate_limit_error");
    EXPECT_EQ(e.code(), "rate_limit");
    EXPECT_EQ(e.message(), "Rate limit reached");
    EXPECT_FALSE(e.param());
    EXPECT_EQ(e.request_id().value(), "req_9");  // no metadata: taken from the body
    EXPECT_STREQ(e.what(), "gw::Client::chat: GW_RATE_LIMITED (429): Rate limit reached");
    EXPECT_NE(e.json().find("\"status\":429"), std::string::npos);
}

TEST(Error, ParamOfARefusedRequest)
{
    const gw::Error e(GW_INVALID_ARGUMENT,
                      R"j({"error":{"message":"temperature: must be between 0 and 2 (got 3)",)j"
                      R"("type":"invalid_request_error","code":"invalid_argument","status":-1,)"
                      R"("param":"temperature"}})");
    EXPECT_EQ(e.param().value(), "temperature");
    EXPECT_EQ(e.code(), "invalid_argument");
    EXPECT_STREQ(e.what(), "GW_INVALID_ARGUMENT (-1): temperature: must be between 0 and 2 (got 3)");
}

TEST(Error, VendorBodiesGiveTheirCodeAndMessage)
{
    const gw::Error h(GW_VENDOR, R"({"code":1001,"message":"insufficient quota","data":null})");
    EXPECT_EQ(h.code(), "1001");
    EXPECT_EQ(h.message(), "insufficient quota");
    EXPECT_EQ(h.type(), "vendor_error");
    const gw::Error m(GW_VENDOR, R"({"code":4,"description":"banned prompt","result":null})");
    EXPECT_EQ(m.code(), "4");
    EXPECT_EQ(m.message(), "banned prompt");
    const gw::Error k(GW_VENDOR, R"({"code":0,"data":{"task_status":"failed","task_status_msg":"video generation failed"}})");
    EXPECT_EQ(k.message(), "video generation failed");
}

TEST(Error, DefaultsWhenTheBodySaysNothing)
{
    for (const char* body : {"", "not json", "{}", "null", "{\"error\": 5}"}) {
        const gw::Error e(GW_TIMEOUT, body);
        EXPECT_EQ(e.type(), "timeout_error") << body;
        EXPECT_EQ(e.code(), "timeout") << body;
        EXPECT_EQ(e.message(), "the call failed") << body;
        EXPECT_EQ(e.json(), body);
    }
    EXPECT_EQ(gw::Error(502, "").type(), "http_error");
    EXPECT_EQ(gw::Error(502, "").code(), "http_502");
    EXPECT_STREQ(gw::Error(502, "").status_name(), "GW_HTTP_STATUS");
    EXPECT_EQ(gw::Error(GW_CANCELLED, "").code(), "cancelled");
}

TEST(Error, IsARuntimeErrorAndCopiesWithoutThrowing)
{
    static_assert(std::is_base_of_v<std::runtime_error, gw::Error>);
    static_assert(std::is_nothrow_copy_constructible_v<gw::Error>);
    const gw::Error a(500, R"({"error":{"message":"boom","type":"server_error"}})");
    const gw::Error b = a;
    EXPECT_EQ(b.message(), "boom");
    EXPECT_EQ(&a.message(), &b.message());  // shared, not copied
    try {
        throw a;
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "GW_SERVER_ERROR (500): boom");
    }
}

TEST(ResponseMeta, ReadsGwLastResponse)
{
    const gw::ResponseMeta m(
        R"({"status":429,"request_id":"req_1","headers":{"retry-after":"1","x-request-id":"req_1"},)"
        R"("attempts":3,"elapsed_ms":812,"url":"http://127.0.0.1:9/v1/chat/completions"})");
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m.status(), 429);
    EXPECT_EQ(m.request_id().value(), "req_1");
    EXPECT_EQ(m.attempts(), 3);
    EXPECT_EQ(m.elapsed().count(), 812);
    EXPECT_EQ(m.url(), "http://127.0.0.1:9/v1/chat/completions");
    EXPECT_EQ(m.header("Retry-After").value(), "1");
    EXPECT_EQ(m.header("X-REQUEST-ID").value(), "req_1");
    EXPECT_FALSE(m.header("content-type"));

    const gw::Error e(429, "{}", m);
    EXPECT_EQ(e.meta().attempts(), 3);
    EXPECT_EQ(e.request_id().value(), "req_1");
}

TEST(ResponseMeta, NullAndGarbageAreEmpty)
{
    for (const char* text : {"null", "", "[]", "{\"status\":", "42"}) {
        const gw::ResponseMeta m(text);
        EXPECT_FALSE(m.has_value()) << text;
        EXPECT_EQ(m.status(), 0);
        EXPECT_FALSE(m.request_id());
        EXPECT_FALSE(m.header("x"));
    }
    const gw::ResponseMeta none(R"({"status":200,"request_id":null,"headers":{},"attempts":1,)"
                                R"("elapsed_ms":3,"url":"u"})");
    EXPECT_TRUE(none.has_value());
    EXPECT_FALSE(none.request_id());
}

TEST(Result, HoldsAValueOrAnError)
{
    gw::Result<std::string> ok(std::string("answer"));
    EXPECT_TRUE(ok.ok());
    EXPECT_TRUE(static_cast<bool>(ok));
    EXPECT_EQ(*ok, "answer");
    EXPECT_EQ(ok->size(), 6u);
    EXPECT_EQ(ok.value_or("x"), "answer");
    EXPECT_EQ(std::move(ok).value(), "answer");

    gw::Result<std::string> bad(gw::Error(GW_NETWORK, R"({"error":{"message":"refused"}})"));
    EXPECT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().status(), GW_NETWORK);
    EXPECT_EQ(bad.value_or("fallback"), "fallback");
    try {
        (void)bad.value();
        FAIL() << "value() of a failure must throw";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.message(), "refused");
    }
}

TEST(ResultDeathTest, ErrorOfASuccessAborts)
{
    const gw::Result<int> ok(5);
    EXPECT_DEATH((void)ok.error(), "error\\(\\) called on a success");
}

TEST(Options, ClientOptionsJson)
{
    EXPECT_EQ(gw::ClientOptions{}.to_json(), "{}");
    gw::ClientOptions o;
    o.base_url = "http://127.0.0.1:1";
    o.api_key = "sk-\"quoted\"";
    o.total_timeout = std::chrono::seconds(30);
    o.connect_timeout = std::chrono::milliseconds(0);
    o.max_retries = 0;
    o.headers["X-Team"] = "a\\b";
    o.validate = false;
    o.max_line_bytes = 1024;
    o.first_byte_timeout = std::chrono::minutes(2);
    o.idempotency_keys = false;
    o.user_agent = "app/1";
    o.max_idle_connections = 4;
    EXPECT_EQ(o.to_json(),
              R"({"base_url":"http://127.0.0.1:1","api_key":"sk-\"quoted\"","connect_timeout_ms":0,)"
              R"("first_byte_timeout_ms":120000,"total_timeout_ms":30000,"max_retries":0,)"
              R"("headers":{"X-Team":"a\\b"},"validate":false,"max_line_bytes":1024,)"
              R"("idempotency_keys":false,"user_agent":"app/1","max_idle_connections":4})");
}

TEST(Options, CallAndWaitOptionsJson)
{
    EXPECT_EQ(gw::CallOptions{}.to_json(), "");
    gw::CallOptions c;
    c.cancel = gw::CancelToken();  // not part of the JSON
    EXPECT_EQ(c.to_json(), "");
    c.read_timeout = std::chrono::milliseconds(250);
    c.first_byte_timeout = std::chrono::seconds(1);
    c.max_retries = 5;
    c.headers["x-a"] = "1";
    c.headers["x-b"] = "2";
    c.idempotency_key = "key-1";
    c.validate = true;
    EXPECT_EQ(c.to_json(), R"({"first_byte_timeout_ms":1000,"read_timeout_ms":250,"max_retries":5,"headers":{"x-a":"1","x-b":"2"},)"
                           R"("idempotency_key":"key-1","validate":true})");
    EXPECT_EQ(gw::WaitOptions{}.to_json(), "");
    gw::WaitOptions w;
    w.interval = std::chrono::milliseconds(10);
    w.timeout = std::chrono::minutes(1);
    EXPECT_EQ(w.to_json(), R"({"interval_ms":10,"timeout_ms":60000})");
}

TEST(Options, CancelTokenCopiesShareOneState)
{
    const gw::CancelToken a;
    const gw::CancelToken b = a;
    EXPECT_FALSE(b.cancelled());
    a.cancel();
    EXPECT_TRUE(b.cancelled());
    a.cancel();  // idempotent
    EXPECT_TRUE(gw::CancelToken(b).cancelled());
    EXPECT_FALSE(gw::CancelToken().cancelled());
}
