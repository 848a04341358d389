// Compiled only (-fsyntax-only), never run: users build with stricter warnings than the suite,
// so test-cpp compiles every template of gw/gw.hpp here under -Wpedantic -Wconversion
// -Wsign-conversion -Wshadow -Wold-style-cast ... with g++ and clang++, as C++17 and C++20.
#include <gw/gw.hpp>
#if GW_CPP_EXCEPTIONS && __has_include(<nlohmann/json.hpp>)
#include <gw/nlohmann.hpp>
#define GW_STRICT_NLOHMANN 1
#endif

#include <string>
#include <string_view>

void instantiate_everything(const gw::Client& c, gw::Stream& s);

void instantiate_everything(const gw::Client& c, gw::Stream& s)
{
    gw::CallOptions o;
    o.cancel = gw::CancelToken();
    std::string text;
    for (const gw::Event& ev : s) text += ev.text();
    (void)c.try_chat_stream("{}", [&](const gw::Event& ev) { text += ev.text(); }, o);
    (void)c.try_responses_stream("{}", [](const gw::Event&) { return false; });
    (void)c.try_video_wait(gw::VideoFamily::unified, "t", gw::WaitOptions{},
                           [](std::string_view, std::string_view) {});
    (void)c.try_video_wait(gw::VideoFamily::vendor_r, "t", {}, [](std::string_view, std::string_view) { return true; }, o);
    (void)c.try_image_edit_upload("{}", gw::File("x"), gw::File("y", 1));
    (void)c.try_request("GET", "/x");
    (void)gw::try_embedding_decode("");
    gw::set_logger([](gw::LogLevel, std::string_view) {});
#if GW_CPP_EXCEPTIONS
    text += c.chat("{}", o);
    text += c.chat_stream("{}", [](const gw::Event&) {});
    text += c.responses_stream("{}", [](const gw::Event&) { return true; });
    text += c.video_wait(gw::VideoFamily::character, "t", {}, [](std::string_view, std::string_view) {});
    text += c.derive(o).request("POST", "/x", "{}");
    (void)gw::embedding_decode("");
    gw::Event ev;
    while (s.next(ev)) text += s.finish();
#endif
    const gw::Result<std::string> r(text);
    text = r.value_or("");
    text = gw::Result<std::string>(text).value_or("");
#ifdef GW_STRICT_NLOHMANN
    const gw::JsonClient j(gw::ClientOptions{});
    nlohmann::json answer = j.chat({{"model", "m"}});
    answer = j.request("GET", "/x");
    answer = j.video_remix("id", answer);
    answer = j.video_wait(gw::VideoFamily::unified, "t");
    for (const gw::Event& e : j.chat_stream(answer)) answer = gw::event_json(e);
    gw::Stream st = j.responses_stream(answer);
    answer = gw::finish_json(st);
    (void)j.try_embeddings(answer);
#endif
}
