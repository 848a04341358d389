// The option structs: ClientOptions (a client's settings), CallOptions (one call's
// overrides, cancel token and metadata), WaitOptions (video_wait), File (an upload), and
// VideoFamily. Each turns itself into the JSON gw takes.
#ifndef GW_CPP_OPTIONS_HPP
#define GW_CPP_OPTIONS_HPP

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cancel.hpp"
#include "config.hpp"
#include "error.hpp"
#include "json.hpp"

namespace gw {

namespace detail {

// Appends "key": value to a JSON object under construction (`out` starts as "{").
inline void raw_member(std::string& out, std::string_view key, std::string_view raw_value)
{
    if (out.size() > 1) out += ',';
    out += json_text::quote(key);
    out += ':';
    out += raw_value;
}

inline void member(std::string& out, std::string_view key,
                   const std::optional<std::chrono::milliseconds>& ms)
{
    if (ms) raw_member(out, key, std::to_string(ms->count()));
}

inline void member(std::string& out, std::string_view key, const std::optional<bool>& b)
{
    if (b) raw_member(out, key, *b ? "true" : "false");
}

inline void string_member(std::string& out, std::string_view key, const std::string& s)
{
    if (!s.empty()) raw_member(out, key, json_text::quote(s));
}

inline void headers_member(std::string& out, const std::map<std::string, std::string>& headers)
{
    if (headers.empty()) return;
    std::string h = "{";
    for (const auto& [name, value] : headers) raw_member(h, name, json_text::quote(value));
    raw_member(out, "headers", h + "}");
}

}  // namespace detail

// A client's settings (see README "Options"). Unset fields keep gw's defaults; an empty
// base_url / api_key falls back to $GW_BASE_URL / $GW_API_KEY. A timeout of 0 means none.
// To pass options gw knows but this struct does not, construct the Client from JSON text.
struct ClientOptions {
    std::string base_url;
    std::string api_key;  // never printed by gw, nor by this binding
    std::optional<std::chrono::milliseconds> connect_timeout;
    std::optional<std::chrono::milliseconds> first_byte_timeout;  // wait for an answer's head
    std::optional<std::chrono::milliseconds> read_timeout;        // silence once it has begun
    std::optional<std::chrono::milliseconds> total_timeout;
    std::optional<unsigned> max_retries;
    std::optional<std::chrono::milliseconds> retry_base_delay;
    std::optional<std::chrono::milliseconds> retry_max_delay;
    std::optional<std::chrono::milliseconds> retry_after_cap;
    std::string proxy;
    std::map<std::string, std::string> headers;  // sent with every request
    std::optional<bool> validate;                // false: skip the documented limit checks
    std::optional<bool> allow_insecure_http;
    std::optional<std::size_t> max_response_bytes;
    std::optional<std::size_t> max_line_bytes;
    std::optional<std::size_t> max_event_bytes;
    std::optional<bool> idempotency_keys;  // false: no automatic Idempotency-Key on POSTs
    std::string user_agent;
    std::optional<unsigned> max_idle_connections;
    // Trust for a gateway whose certificate a private CA signed (a proxy that inspects TLS);
    // the built-in roots stay trusted. tls_verifier: "webpki" (default) or "platform".
    std::string ca_file;  // a PEM file of CA certificates
    std::string ca_pem;   // PEM text of CA certificates
    std::string tls_verifier;

    // The options JSON for gw_client_create. It holds the API key: do not log it.
    std::string to_json() const
    {
        using detail::member;
        std::string out = "{";
        detail::string_member(out, "base_url", base_url);
        detail::string_member(out, "api_key", api_key);
        member(out, "connect_timeout_ms", connect_timeout);
        member(out, "first_byte_timeout_ms", first_byte_timeout);
        member(out, "read_timeout_ms", read_timeout);
        member(out, "total_timeout_ms", total_timeout);
        if (max_retries) detail::raw_member(out, "max_retries", std::to_string(*max_retries));
        member(out, "retry_base_delay_ms", retry_base_delay);
        member(out, "retry_max_delay_ms", retry_max_delay);
        member(out, "retry_after_cap_ms", retry_after_cap);
        detail::string_member(out, "proxy", proxy);
        detail::headers_member(out, headers);
        member(out, "validate", validate);
        member(out, "allow_insecure_http", allow_insecure_http);
        if (max_response_bytes)
            detail::raw_member(out, "max_response_bytes", std::to_string(*max_response_bytes));
        if (max_line_bytes) detail::raw_member(out, "max_line_bytes", std::to_string(*max_line_bytes));
        if (max_event_bytes)
            detail::raw_member(out, "max_event_bytes", std::to_string(*max_event_bytes));
        member(out, "idempotency_keys", idempotency_keys);
        detail::string_member(out, "user_agent", user_agent);
        if (max_idle_connections)
            detail::raw_member(out, "max_idle_connections", std::to_string(*max_idle_connections));
        detail::string_member(out, "ca_file", ca_file);
        detail::string_member(out, "ca_pem", ca_pem);
        detail::string_member(out, "tls_verifier", tls_verifier);
        return out + "}";
    }
};

// One call's settings. Every call runs on its own handle derived from the client (sharing
// its connection pool), so these apply to that call only, and the metadata is that call's.
struct CallOptions {
    std::optional<std::chrono::milliseconds> total_timeout;
    std::optional<std::chrono::milliseconds> first_byte_timeout;
    std::optional<std::chrono::milliseconds> read_timeout;
    std::optional<std::chrono::milliseconds> connect_timeout;
    std::optional<unsigned> max_retries;
    std::map<std::string, std::string> headers;  // merged over the client's headers
    // Sent as Idempotency-Key on every attempt (in place of gw's automatic one).
    std::string idempotency_key;
    std::optional<bool> validate;
    // Cancels the call (streams: until the Stream is finished or destroyed).
    std::optional<CancelToken> cancel;
    // When set, receives the call's response metadata, on success and on failure (a failure
    // also carries it in Error::meta()). Not used by the pull streams: see Stream::meta().
    ResponseMeta* meta = nullptr;

    // The overrides JSON for gw_client_create_derived ("" when there is none).
    std::string to_json() const
    {
        using detail::member;
        std::string out = "{";
        member(out, "total_timeout_ms", total_timeout);
        member(out, "first_byte_timeout_ms", first_byte_timeout);
        member(out, "read_timeout_ms", read_timeout);
        member(out, "connect_timeout_ms", connect_timeout);
        if (max_retries) detail::raw_member(out, "max_retries", std::to_string(*max_retries));
        detail::headers_member(out, headers);
        detail::string_member(out, "idempotency_key", idempotency_key);
        member(out, "validate", validate);
        return out.size() == 1 ? std::string() : out + "}";
    }
};

// How video_wait polls; unset fields keep gw's defaults (every 2 s, up to 10 min).
struct WaitOptions {
    std::optional<std::chrono::milliseconds> interval;
    std::optional<std::chrono::milliseconds> timeout;

    std::string to_json() const
    {
        std::string out = "{";
        detail::member(out, "interval_ms", interval);
        detail::member(out, "timeout_ms", timeout);
        return out.size() == 1 ? std::string() : out + "}";
    }
};

// A file for image_edit_upload, given from memory. The bytes are only read during the call.
struct File {
    std::string_view bytes;    // any bytes (NULs included); must not be empty
    std::string filename;      // empty: "image.png" / "mask.png"
    std::string content_type;  // empty: "application/octet-stream"

    File() = default;
    File(std::string_view data, std::string name = {}, std::string type = {})
        : bytes(data), filename(std::move(name)), content_type(std::move(type))
    {
    }
    File(const void* data, std::size_t size, std::string name = {}, std::string type = {})
        : bytes(static_cast<const char*>(data), size), filename(std::move(name)),
          content_type(std::move(type))
    {
    }
};

// Which API a video task id belongs to (for video_status and video_wait).
enum class VideoFamily : int {
    unified = GW_VIDEO_UNIFIED,      // video_create, video_generate: /v1/video/generations/{id}
    character = GW_VIDEO_CHARACTER,  // video_character, video_remix: /v1/videos/{id}
    vendor_k = GW_VIDEO_VENDOR_K,    // vendor_k_*: /vendorK/v1/videos/{id}
    vendor_r = GW_VIDEO_VENDOR_R,    // /vendorR/task/{id}
};

}  // namespace gw

#endif  // GW_CPP_OPTIONS_HPP
