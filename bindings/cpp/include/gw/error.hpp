// gw::ResponseMeta (what gw knows about an HTTP exchange), gw::Error (a failed call) and
// gw::Result<T> (the non-throwing form of every call).
#ifndef GW_CPP_ERROR_HPP
#define GW_CPP_ERROR_HPP

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "config.hpp"
#include "json.hpp"

namespace gw {

// The name of a status code, e.g. "GW_TIMEOUT"; "GW_HTTP_STATUS" for other HTTP statuses.
inline const char* status_name(int status) noexcept
{
    return gw_status_str(status);
}

// The library version, e.g. "0.1.0".
inline std::string version()
{
    return gw_version();
}

// The metadata of one HTTP exchange, from gw_client_last_response:
// {"status","request_id","headers":{lower-name: value},"attempts","elapsed_ms","url"}.
// Empty (has_value() false) when no exchange finished, e.g. a request refused before sending.
class ResponseMeta {
public:
    ResponseMeta() = default;

    // Parses the JSON gw returns; "null", "" or anything that is not an object is empty.
    explicit ResponseMeta(std::string json) : json_(std::move(json))
    {
        const auto trimmed = json_text::find(json_, {});
        if (!trimmed || trimmed->front() != '{') return;
        present_ = true;
        status_ = static_cast<int>(json_text::int_at(json_, {"status"}).value_or(0));
        request_id_ = json_text::string_at(json_, {"request_id"});
        attempts_ = static_cast<int>(json_text::int_at(json_, {"attempts"}).value_or(0));
        elapsed_ = std::chrono::milliseconds(json_text::int_at(json_, {"elapsed_ms"}).value_or(0));
        url_ = json_text::string_at(json_, {"url"}).value_or("");
    }

    bool has_value() const noexcept { return present_; }
    explicit operator bool() const noexcept { return present_; }
    // The HTTP status of the last attempt (0 when empty).
    int status() const noexcept { return status_; }
    const std::optional<std::string>& request_id() const noexcept { return request_id_; }
    // How many attempts the call made (1 + retries).
    int attempts() const noexcept { return attempts_; }
    std::chrono::milliseconds elapsed() const noexcept { return elapsed_; }
    // The URL of the last attempt, the key redacted.
    const std::string& url() const noexcept { return url_; }
    // A response header by name (any case), or nullopt.
    std::optional<std::string> header(std::string_view name) const
    {
        std::string lower(name);
        for (char& c : lower)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        const auto headers = json_text::find(json_, {"headers"});
        if (!headers) return std::nullopt;
        return json_text::string_at(*headers, {lower});
    }
    // The raw JSON as gw gave it ("" when none was asked for).
    const std::string& json() const noexcept { return json_; }

private:
    std::string json_;
    bool present_ = false;
    int status_ = 0;
    std::optional<std::string> request_id_;
    int attempts_ = 0;
    std::chrono::milliseconds elapsed_{0};
    std::string url_;
};

namespace detail {

// The type and code gw gives each negative status (src/error.rs), for bodies without them
// (a vendor's own failure body, a failed task's record).
inline std::pair<const char*, std::string> default_type_and_code(int status)
{
    switch (status) {
    case GW_INVALID_ARGUMENT: return {"invalid_request_error", "invalid_argument"};
    case GW_NETWORK: return {"network_error", "network"};
    case GW_TIMEOUT: return {"timeout_error", "timeout"};
    case GW_DECODE: return {"decode_error", "decode"};
    case GW_CANCELLED: return {"cancelled", "cancelled"};
    case GW_VENDOR: return {"vendor_error", "vendor_failure"};
    case GW_STREAM: return {"stream_error", "stream"};
    case GW_TOO_LARGE: return {"too_large", "too_large"};
    case GW_INTERNAL: return {"internal_error", "internal"};
    default:
        if (status >= 100) return {"http_error", "http_" + std::to_string(status)};
        return {"unknown_error", "unknown"};
    }
}

// The first of these JSON paths that holds text.
inline std::optional<std::string> first_text(
    std::string_view json, std::initializer_list<std::initializer_list<std::string_view>> paths)
{
    for (const auto& path : paths)
        if (auto v = json_text::text_at(json, path)) return v;
    return std::nullopt;
}

}  // namespace detail

// A failed gw call. status() is gw's status (an HTTP status such as 429, or a negative GW_*
// code); type(), code() and message() come from the error JSON gw returned, which json()
// holds unchanged: {"error":{"message","type","code","status"}}, or for GW_VENDOR the
// vendor's own body / the failed task's record. meta() is the exchange's metadata when the
// call reached the gateway. Copying an Error never throws (its data is shared).
class Error : public std::runtime_error {
public:
    // `context` names the call ("gw::Client::chat") at the start of what().
    Error(int status, std::string json, ResponseMeta meta = {}, std::string_view context = {})
        : Error(parse(status, std::move(json), std::move(meta), context))
    {
    }

    int status() const noexcept { return d_->status; }
    // "GW_TIMEOUT", "GW_RATE_LIMITED", "GW_HTTP_STATUS" (e.g. 502) ...
    const char* status_name() const noexcept { return gw::status_name(d_->status); }
    // error.type, e.g. "rate_limit_error", "timeout_error", "vendor_error".
    const std::string& type() const noexcept { return d_->type; }
    // error.code (a number is given as its text, e.g. a vendor's "1001"), e.g. "timeout".
    const std::string& code() const noexcept { return d_->code; }
    const std::string& message() const noexcept { return d_->message; }
    // error.param: the request field a refused request broke, when gw names one.
    const std::optional<std::string>& param() const noexcept { return d_->param; }
    // The error JSON exactly as gw returned it.
    const std::string& json() const noexcept { return d_->json; }
    const ResponseMeta& meta() const noexcept { return d_->meta; }
    // The gateway's request id: from the response metadata, else from the error body.
    std::optional<std::string> request_id() const
    {
        if (d_->meta.request_id()) return d_->meta.request_id();
        return detail::first_text(d_->json, {{"error", "request_id"}, {"request_id"}});
    }

private:
    struct Data {
        int status = 0;
        std::string json, type, code, message, what;
        std::optional<std::string> param;
        ResponseMeta meta;
    };

    explicit Error(std::shared_ptr<const Data> d) : std::runtime_error(d->what), d_(std::move(d)) {}

    static std::shared_ptr<const Data> parse(int status, std::string json, ResponseMeta meta,
                                             std::string_view context)
    {
        auto d = std::make_shared<Data>();
        d->status = status;
        const auto defaults = detail::default_type_and_code(status);
        d->type = detail::first_text(json, {{"error", "type"}}).value_or(defaults.first);
        d->code = detail::first_text(json, {{"error", "code"}, {"code"}}).value_or(defaults.second);
        d->message = detail::first_text(json, {{"error", "message"},
                                               {"message"},
                                               {"description"},
                                               {"failure"},
                                               {"data", "task_status_msg"}})
                         .value_or("");
        if (d->message.empty()) d->message = "the call failed";
        d->param = json_text::string_at(json, {"error", "param"});
        d->json = std::move(json);
        d->meta = std::move(meta);
        // e.g. "gw::Client::chat: GW_RATE_LIMITED (429): Rate limit reached"
        if (!context.empty()) {
            d->what.append(context);
            d->what += ": ";
        }
        d->what += gw::status_name(status);
        d->what += " (" + std::to_string(status) + "): " + d->message;
        return d;
    }

    std::shared_ptr<const Data> d_;
};

namespace detail {

// An error found by the binding itself, before anything reached gw (a NUL byte inside a
// string, a moved-from object). Same shape as gw's GW_INVALID_ARGUMENT.
inline Error usage_error(std::string_view context, std::string_view message)
{
    std::string json = "{\"error\":{\"message\":" + json_text::quote(message) +
                       ",\"type\":\"invalid_request_error\",\"code\":\"invalid_argument\","
                       "\"status\":-1}}";
    return Error(GW_INVALID_ARGUMENT, std::move(json), {}, context);
}

// Throws the error, or without exceptions reports it and aborts (like an unchecked
// std::optional access would).
[[noreturn]] inline void raise(const Error& e)
{
#if GW_CPP_EXCEPTIONS
    throw e;
#else
    std::fprintf(stderr, "gw: unchecked error: %s\n", e.what());
    std::abort();
#endif
}

[[noreturn]] inline void misuse(const char* what)
{
    std::fprintf(stderr, "gw: %s\n", what);
    std::abort();
}

}  // namespace detail

// The outcome of a try_* call: a value, or the Error the throwing form would have thrown.
//
//   gw::Result<std::string> r = client.try_chat(request);
//   if (!r) { std::fprintf(stderr, "%s\n", r.error().what()); return 1; }
//   use(*r);
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

    bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }

    // The value; on a failure this throws the Error (without exceptions: aborts).
    T& value() &
    {
        check();
        return std::get<0>(v_);
    }
    const T& value() const&
    {
        check();
        return std::get<0>(v_);
    }
    // On a temporary (`client.try_chat(req).value()`) the value is moved out and returned
    // by value, not as T&&: a reference into the temporary would dangle once the full
    // expression ends, e.g. in `for (auto& ev : client.try_chat_stream(req).value())`,
    // where the range-for keeps only what value() returns alive.
    T value() &&
    {
        check();
        return std::get<0>(std::move(v_));
    }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    template <class U>
    T value_or(U&& fallback) const&
    {
        return ok() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
    }
    // On a temporary the value is moved out (a move-only T such as gw::Stream works too).
    template <class U>
    T value_or(U&& fallback) &&
    {
        return ok() ? std::get<0>(std::move(v_)) : static_cast<T>(std::forward<U>(fallback));
    }

    // The failure; calling it on a success is a bug and aborts.
    const Error& error() const
    {
        if (ok()) detail::misuse("gw::Result::error() called on a success");
        return std::get<1>(v_);
    }

private:
    void check() const
    {
        if (!ok()) detail::raise(std::get<1>(v_));
    }

    std::variant<T, Error> v_;
};

}  // namespace gw

#endif  // GW_CPP_ERROR_HPP
