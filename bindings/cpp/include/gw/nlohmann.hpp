// gw/nlohmann.hpp: the C++ binding with nlohmann::json in and out, for code that already
// uses nlohmann/json (as openai-cpp and liboai users do). Optional: gw/gw.hpp does not
// include it, and it needs <nlohmann/json.hpp> (Debian: nlohmann-json3-dev) and exceptions.
//
//   #include <gw/nlohmann.hpp>
//   using json = nlohmann::json;
//   using namespace gw;              // no clash: gw's own JSON helpers are gw::json_text
//
//   JsonClient client{ClientOptions{}};
//   json answer = client.chat({{"model", "m"},
//                              {"messages", {{{"role", "user"}, {"content", "Hello!"}}}}});
//   std::cout << answer["choices"][0]["message"]["content"].get<std::string>() << "\n";
//   for (const Event& ev : client.chat_stream(request)) use(gw::event_json(ev));
//
// Every operation of gw::Client is here with the same name: the request is a json (dumped
// once, UTF-8 checked), the answer is parsed into a json. Failures throw gw::Error as in
// gw::Client (its json() is the error object's text; gw::error_json(e) parses it); an
// answer that is not JSON throws gw::Error with GW_DECODE. The try_ forms return
// gw::Result<nlohmann::json> instead of throwing.
#ifndef GW_CPP_NLOHMANN_HPP
#define GW_CPP_NLOHMANN_HPP

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gw.hpp"

#if !GW_CPP_EXCEPTIONS
#error "gw/nlohmann.hpp needs exceptions (nlohmann::json reports errors with them)"
#endif

namespace gw {

namespace detail {

// The request as JSON text; a string that is not UTF-8 is GW_INVALID_ARGUMENT, not a throw
// from inside nlohmann::json::dump.
inline Result<std::string> dump_request(const ::nlohmann::json& request, const char* what)
{
    try {
        return request.dump();
    } catch (const ::nlohmann::json::exception& e) {
        return usage_error(what, std::string("request: ") + e.what());
    }
}

// gw's answer parsed; text that is not JSON is GW_DECODE (gw checks answers, so only a
// gateway's non-JSON body on a passed-through path gets here).
inline Result<::nlohmann::json> parse_answer(Result<std::string> answer, const char* what)
{
    if (!answer) return answer.error();
    ::nlohmann::json parsed = ::nlohmann::json::parse(*answer, nullptr, false);
    if (parsed.is_discarded()) {
        const std::string message = "the answer is not JSON";
        return Error(GW_DECODE,
                     "{\"error\":{\"message\":" + json_text::quote(message) +
                         ",\"type\":\"decode_error\",\"code\":\"decode\",\"status\":-4}}",
                     {}, what);
    }
    return parsed;
}

}  // namespace detail

// An event's data (its JSON text) parsed: a chat chunk, a Responses event object.
inline ::nlohmann::json event_json(const Event& ev)
{
    return ::nlohmann::json::parse(ev.data);
}

// A failure's JSON parsed: {"error":{...}}, or for GW_VENDOR the vendor's body / the failed
// task's record. A discarded value (is_discarded()) in the impossible case it is not JSON.
inline ::nlohmann::json error_json(const Error& e)
{
    return ::nlohmann::json::parse(e.json(), nullptr, false);
}

// gw::Client with nlohmann::json in and out. Move-only like Client; thread-safe (all methods
// const). client() gives the underlying gw::Client for the text API and streams' details.
class JsonClient {
public:
    // From a struct or options JSON text; throws gw::Error on bad options.
    explicit JsonClient(const ClientOptions& options) : c_(options) {}
    explicit JsonClient(std::string_view options_json) : c_(options_json) {}
    // Options as a json object (every key of the option table in docs/c-api.md).
    explicit JsonClient(const ::nlohmann::json& options) : c_(options.dump()) {}
    explicit JsonClient(Client client) noexcept : c_(std::move(client)) {}

    const Client& client() const noexcept { return c_; }
    explicit operator bool() const noexcept { return static_cast<bool>(c_); }

    // A client on the same pool with these per-call settings (gw::Client::derive).
    JsonClient derive(const CallOptions& overrides) const { return JsonClient(c_.derive(overrides)); }

#define GW_CPP_NLOHMANN_OPERATION(name)                                                         \
    Result<::nlohmann::json> try_##name(const ::nlohmann::json& request,                        \
                                        const CallOptions& o = {}) const                        \
    {                                                                                           \
        constexpr const char* what = "gw::JsonClient::" #name;                                  \
        auto text = detail::dump_request(request, what);                                        \
        if (!text) return text.error();                                                         \
        return detail::parse_answer(c_.try_##name(*text, o), what);                             \
    }                                                                                           \
    ::nlohmann::json name(const ::nlohmann::json& request, const CallOptions& o = {}) const     \
    {                                                                                           \
        return try_##name(request, o).value();                                                  \
    }

    GW_CPP_NLOHMANN_OPERATION(chat)
    GW_CPP_NLOHMANN_OPERATION(responses)
    GW_CPP_NLOHMANN_OPERATION(embeddings)
    GW_CPP_NLOHMANN_OPERATION(image_generate)
    GW_CPP_NLOHMANN_OPERATION(image_edit)
    GW_CPP_NLOHMANN_OPERATION(video_create)
    GW_CPP_NLOHMANN_OPERATION(video_generate)
    GW_CPP_NLOHMANN_OPERATION(video_character)
    GW_CPP_NLOHMANN_OPERATION(vendor_k_text2video)
    GW_CPP_NLOHMANN_OPERATION(vendor_k_image2video)
    GW_CPP_NLOHMANN_OPERATION(vendor_k_multi_image2video)
    GW_CPP_NLOHMANN_OPERATION(vendor_k_effects)
    GW_CPP_NLOHMANN_OPERATION(vendor_k_extend)
    GW_CPP_NLOHMANN_OPERATION(vendor_h_image_to_video)
    GW_CPP_NLOHMANN_OPERATION(vendor_m_imagine)
    GW_CPP_NLOHMANN_OPERATION(vendor_i_describe)
    GW_CPP_NLOHMANN_OPERATION(vendor_i_generate)
    GW_CPP_NLOHMANN_OPERATION(vendor_i_text_to_image)
#undef GW_CPP_NLOHMANN_OPERATION

#define GW_CPP_NLOHMANN_ID_OPERATION(name, id_name)                                             \
    Result<::nlohmann::json> try_##name(std::string_view id_name, const ::nlohmann::json& request, \
                                        const CallOptions& o = {}) const                        \
    {                                                                                           \
        constexpr const char* what = "gw::JsonClient::" #name;                                  \
        auto text = detail::dump_request(request, what);                                        \
        if (!text) return text.error();                                                         \
        return detail::parse_answer(c_.try_##name(id_name, *text, o), what);                    \
    }                                                                                           \
    ::nlohmann::json name(std::string_view id_name, const ::nlohmann::json& request,            \
                          const CallOptions& o = {}) const                                      \
    {                                                                                           \
        return try_##name(id_name, request, o).value();                                         \
    }

    GW_CPP_NLOHMANN_ID_OPERATION(video_remix, video_id)
    GW_CPP_NLOHMANN_ID_OPERATION(vendor_f_edit, model_slug)
    GW_CPP_NLOHMANN_ID_OPERATION(generate_content, model)
#undef GW_CPP_NLOHMANN_ID_OPERATION

    Result<::nlohmann::json> try_video_status(VideoFamily family, std::string_view task_id,
                                              const CallOptions& o = {}) const
    {
        return detail::parse_answer(c_.try_video_status(family, task_id, o),
                                    "gw::JsonClient::video_status");
    }
    ::nlohmann::json video_status(VideoFamily family, std::string_view task_id,
                                  const CallOptions& o = {}) const
    {
        return try_video_status(family, task_id, o).value();
    }

    Result<::nlohmann::json> try_video_wait(VideoFamily family, std::string_view task_id,
                                            const WaitOptions& w = {}, const CallOptions& o = {}) const
    {
        return detail::parse_answer(c_.try_video_wait(family, task_id, w, o),
                                    "gw::JsonClient::video_wait");
    }
    ::nlohmann::json video_wait(VideoFamily family, std::string_view task_id,
                                const WaitOptions& w = {}, const CallOptions& o = {}) const
    {
        return try_video_wait(family, task_id, w, o).value();
    }

    // `method` "GET" or "POST" to `path`; `body` for POST, nullopt for GET.
    Result<::nlohmann::json> try_request(std::string_view method, std::string_view path,
                                         const std::optional<::nlohmann::json>& body = std::nullopt,
                                         const CallOptions& o = {}) const
    {
        constexpr const char* what = "gw::JsonClient::request";
        std::optional<std::string> text;
        if (body) {
            auto dumped = detail::dump_request(*body, what);
            if (!dumped) return dumped.error();
            text = std::move(dumped).value();
        }
        std::optional<std::string_view> view;
        if (text) view = *text;
        return detail::parse_answer(c_.try_request(method, path, view, o), what);
    }
    ::nlohmann::json request(std::string_view method, std::string_view path,
                             const std::optional<::nlohmann::json>& body = std::nullopt,
                             const CallOptions& o = {}) const
    {
        return try_request(method, path, body, o).value();
    }

    // Streams: the events as gw::Event (event_json(ev) parses one); finish_json(stream) the
    // assembled answer.
    Result<Stream> try_chat_stream(const ::nlohmann::json& request, const CallOptions& o = {}) const
    {
        auto text = detail::dump_request(request, "gw::JsonClient::chat_stream");
        if (!text) return text.error();
        return c_.try_chat_stream(*text, o);
    }
    Stream chat_stream(const ::nlohmann::json& request, const CallOptions& o = {}) const
    {
        return try_chat_stream(request, o).value();
    }
    Result<Stream> try_responses_stream(const ::nlohmann::json& request,
                                        const CallOptions& o = {}) const
    {
        auto text = detail::dump_request(request, "gw::JsonClient::responses_stream");
        if (!text) return text.error();
        return c_.try_responses_stream(*text, o);
    }
    Stream responses_stream(const ::nlohmann::json& request, const CallOptions& o = {}) const
    {
        return try_responses_stream(request, o).value();
    }

private:
    Client c_;
};

// The assembled answer of a stream (Stream::finish), parsed.
inline ::nlohmann::json finish_json(Stream& stream)
{
    return ::nlohmann::json::parse(stream.finish());
}

}  // namespace gw

#endif  // GW_CPP_NLOHMANN_HPP
