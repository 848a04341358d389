// Built with -fno-exceptions (no GoogleTest: it wants exceptions): the try_ API, streams that
// end on failure with Stream::error(), and callables, against gw-mock. Exit status 0 = pass.
#include <gw/gw.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#if GW_CPP_EXCEPTIONS
#error "this file must be compiled with -fno-exceptions"
#endif

static int failures = 0;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            std::fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                      \
        }                                                                    \
    } while (0)

static const char* kChat =
    R"({"model": "m", "messages": [{"role": "user", "content": "no exceptions here"}]})";

static gw::Client make_client(const std::string& url)
{
    gw::ClientOptions o;
    o.base_url = url;
    o.api_key = "sk-test";
    o.retry_base_delay = std::chrono::milliseconds(10);
    o.retry_max_delay = std::chrono::milliseconds(50);
    auto r = gw::Client::create(o);
    if (!r) {
        std::fprintf(stderr, "create: %s\n", r.error().what());
        std::exit(1);
    }
    return std::move(r).value();
}

static void control(const gw::Client& c, const char* path, const char* body)
{
    auto r = c.try_request("POST", path, std::string_view(body));
    if (!r) {
        std::fprintf(stderr, "%s: %s\n", path, r.error().what());
        std::exit(1);
    }
}

int main()
{
    const char* url = std::getenv("GW_TEST_BASE_URL");
    if (url == nullptr) {
        std::fprintf(stderr, "GW_TEST_BASE_URL is not set: run scripts/test-cpp.sh\n");
        return 2;
    }
    const gw::Client c = make_client(url);
    control(c, "/__mock/reset", "{}");

    // Plain calls and refused ones.
    auto chat = c.try_chat(kChat);
    CHECK(chat.ok() && chat->find("Echo: no exceptions here") != std::string::npos);
    auto refused = c.try_chat(R"({"model": "m", "messages": []})");
    CHECK(!refused.ok() && refused.error().status() == GW_INVALID_ARGUMENT);
    CHECK(!gw::Client::create(std::string_view(R"({"nope": 1})")).ok());

    // A stream in a range-for: success, then a failure that just ends the loop.
    auto opened = c.try_chat_stream(kChat);
    CHECK(opened.ok());
    if (opened.ok()) {
        std::string text;
        for (const gw::Event& ev : *opened) text += ev.text();
        CHECK(text == "Echo: no exceptions here");
        CHECK(opened->error() == nullptr);
        auto final = opened->try_finish();
        CHECK(final.ok() && final->find("chat.completion") != std::string::npos);
    }
    // The same loop over a temporary Result (issue 22): value() returns the Stream itself, so
    // nothing dangles (this program runs under AddressSanitizer).
    {
        std::string text;
        for (auto& ev : c.try_chat_stream(kChat).value()) text += ev.text();
        CHECK(text == "Echo: no exceptions here");
    }
    control(c, "/__mock/faults", R"({"action": "stream_error", "after_events": 2})");
    auto failing = c.try_chat_stream(kChat);
    CHECK(failing.ok());
    if (failing.ok()) {
        int seen = 0;
        for (const gw::Event& ev : *failing) {
            (void)ev;
            ++seen;
        }
        CHECK(seen == 2);
        CHECK(failing->error() != nullptr && failing->error()->status() == GW_STREAM);
        CHECK(!failing->try_finish().ok());
    }

    // The callback form and a callable that stops it.
    std::string text;
    auto streamed = c.try_chat_stream(kChat, [&](const gw::Event& ev) { text += ev.text(); });
    CHECK(streamed.ok() && text == "Echo: no exceptions here");
    auto stopped = c.try_chat_stream(kChat, [](const gw::Event&) { return false; });
    CHECK(!stopped.ok() && stopped.error().status() == GW_CANCELLED);

    // Embeddings decode and the logger, exception-free.
    auto floats = gw::try_embedding_decode("AACAPwAAIMA=");
    CHECK(floats.ok() && floats->size() == 2 && (*floats)[1] == -2.5f);
    int lines = 0;
    gw::set_logger([&](gw::LogLevel, std::string_view) { ++lines; }, gw::LogLevel::debug);
    CHECK(c.try_chat(kChat).ok());
    gw::clear_logger();
    CHECK(lines > 0);

    if (failures != 0) {
        std::fprintf(stderr, "no-exceptions build: %d check(s) failed\n", failures);
        return 1;
    }
    std::printf("no-exceptions build: all checks passed\n");
    return 0;
}
