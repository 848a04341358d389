// gw::json_text: the few JSON operations the binding needs, with no JSON library.
//
// Named json_text, not json, so that `using json = nlohmann::json;` beside
// `using namespace gw;` stays unambiguous (gw/nlohmann.hpp takes and returns
// nlohmann::json for who has that library).
//
// gw speaks JSON text in and out; the binding only has to read a handful of fields (an
// error's status/type/code/message, response metadata) and to quote strings when it builds
// options. This is a small, strict scanner for that: it never allocates for what it skips,
// never reads past the text, and answers std::nullopt for anything absent or malformed.
// Users may call it too, but for real work pick a JSON library.
#ifndef GW_CPP_JSON_HPP
#define GW_CPP_JSON_HPP

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace gw {
namespace json_text {
namespace detail {

constexpr std::size_t npos = std::string_view::npos;
// Deeper nesting than this is treated as malformed rather than recursed into.
constexpr int max_depth = 128;

inline std::size_t skip_ws(std::string_view s, std::size_t i) noexcept
{
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    return i;
}

// s[i] must be the opening quote; returns the index after the closing quote, or npos.
inline std::size_t skip_string(std::string_view s, std::size_t i) noexcept
{
    if (i >= s.size() || s[i] != '"') return npos;
    for (++i; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '\\') {
            ++i;  // the escaped character; a string ending in a lone backslash falls out below
        } else if (c == '"') {
            return i + 1;
        } else if (c < 0x20) {
            return npos;  // raw control characters are not allowed inside JSON strings
        }
    }
    return npos;
}

inline std::size_t skip_literal(std::string_view s, std::size_t i, std::string_view word) noexcept
{
    return s.substr(i, word.size()) == word ? i + word.size() : npos;
}

inline std::size_t skip_number(std::string_view s, std::size_t i) noexcept
{
    const std::size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    const std::size_t digits = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == digits) return npos;
    if (i < s.size() && s[i] == '.') {
        const std::size_t frac = ++i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == frac) return npos;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        const std::size_t exp = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == exp) return npos;
    }
    return i > start ? i : npos;
}

inline std::size_t skip_value(std::string_view s, std::size_t i, int depth) noexcept;

// s[i] is '{' or '['; returns the index after the matching bracket, or npos.
inline std::size_t skip_container(std::string_view s, std::size_t i, int depth) noexcept
{
    if (depth >= max_depth) return npos;
    const bool object = s[i] == '{';
    const char close = object ? '}' : ']';
    i = skip_ws(s, i + 1);
    if (i < s.size() && s[i] == close) return i + 1;
    for (;;) {
        if (object) {
            i = skip_string(s, i);
            if (i == npos) return npos;
            i = skip_ws(s, i);
            if (i >= s.size() || s[i] != ':') return npos;
            i = skip_ws(s, i + 1);
        }
        i = skip_value(s, i, depth + 1);
        if (i == npos) return npos;
        i = skip_ws(s, i);
        if (i >= s.size()) return npos;
        if (s[i] == close) return i + 1;
        if (s[i] != ',') return npos;
        i = skip_ws(s, i + 1);
    }
}

// s[i] is the first character of a value; returns the index after it, or npos.
inline std::size_t skip_value(std::string_view s, std::size_t i, int depth) noexcept
{
    if (i >= s.size()) return npos;
    switch (s[i]) {
    case '"': return skip_string(s, i);
    case '{':
    case '[': return skip_container(s, i, depth);
    case 't': return skip_literal(s, i, "true");
    case 'f': return skip_literal(s, i, "false");
    case 'n': return skip_literal(s, i, "null");
    default: return skip_number(s, i);
    }
}

inline int hex_digit(char c) noexcept
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The 4 hex digits at s[i..i+4) as a code unit, or -1.
inline long hex4(std::string_view s, std::size_t i) noexcept
{
    if (i + 4 > s.size()) return -1;
    long v = 0;
    for (std::size_t k = i; k < i + 4; ++k) {
        const int d = hex_digit(s[k]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

inline void append_utf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace detail

// The string a JSON string literal stands for (`raw` includes the quotes), or nullopt when
// `raw` is not exactly one valid string. A lone UTF-16 surrogate becomes U+FFFD.
inline std::optional<std::string> decode_string(std::string_view raw)
{
    if (raw.size() < 2 || raw.front() != '"' || detail::skip_string(raw, 0) != raw.size())
        return std::nullopt;
    std::string out;
    out.reserve(raw.size() - 2);
    for (std::size_t i = 1; i + 1 < raw.size(); ++i) {
        const char c = raw[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        const char e = raw[++i];
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            const long hi = detail::hex4(raw, i + 1);
            if (hi < 0) return std::nullopt;
            i += 4;
            std::uint32_t cp = static_cast<std::uint32_t>(hi);
            if (hi >= 0xD800 && hi <= 0xDBFF) {
                // A high surrogate: combine with the low one that should follow.
                const long lo = (i + 2 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u')
                                    ? detail::hex4(raw, i + 3)
                                    : -1;
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((static_cast<std::uint32_t>(hi) - 0xD800) << 10) +
                         (static_cast<std::uint32_t>(lo) - 0xDC00);
                    i += 6;
                } else {
                    cp = 0xFFFD;
                }
            } else if (hi >= 0xDC00 && hi <= 0xDFFF) {
                cp = 0xFFFD;
            }
            detail::append_utf8(out, cp);
            break;
        }
        default: return std::nullopt;
        }
    }
    return out;
}

// The raw text of the value at `path` in `text`: each step is an object key, or a decimal
// index when the value there is an array. find(t, {}) is the whole (trimmed) value.
// nullopt when `text` is not one well-formed JSON value, or the path is not there.
// Examples: find(t, {"error", "code"}), find(t, {"choices", "0", "message"}).
inline std::optional<std::string_view> find(std::string_view text,
                                            std::initializer_list<std::string_view> path)
{
    using detail::npos;
    std::size_t i = detail::skip_ws(text, 0);
    // The whole text must be one well-formed value: a truncated or garbled answer gives
    // nothing rather than a field that happened to come before the damage.
    const std::size_t whole = detail::skip_value(text, i, 0);
    if (whole == npos || detail::skip_ws(text, whole) != text.size()) return std::nullopt;
    int depth = 0;
    for (const std::string_view step : path) {
        if (i >= text.size() || ++depth >= detail::max_depth) return std::nullopt;
        const bool object = text[i] == '{';
        if (!object && text[i] != '[') return std::nullopt;
        std::size_t wanted = 0;
        if (!object) {
            const auto* end = step.data() + step.size();
            const auto r = std::from_chars(step.data(), end, wanted);
            if (step.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
        }
        const char close = object ? '}' : ']';
        i = detail::skip_ws(text, i + 1);
        if (i < text.size() && text[i] == close) return std::nullopt;
        bool found = false;
        for (std::size_t index = 0; !found; ++index) {
            if (object) {
                const std::size_t key_end = detail::skip_string(text, i);
                if (key_end == npos) return std::nullopt;
                const std::string_view raw_key = text.substr(i, key_end - i);
                // Keys without escapes (all of gw's) compare in place; others are decoded.
                found = raw_key.find('\\') == npos
                            ? raw_key.substr(1, raw_key.size() - 2) == step
                            : decode_string(raw_key) == step;
                i = detail::skip_ws(text, key_end);
                if (i >= text.size() || text[i] != ':') return std::nullopt;
                i = detail::skip_ws(text, i + 1);
            } else {
                found = index == wanted;
            }
            if (found) break;
            i = detail::skip_value(text, i, depth);
            if (i == npos) return std::nullopt;
            i = detail::skip_ws(text, i);
            if (i >= text.size() || text[i] != ',') return std::nullopt;  // end: not there
            i = detail::skip_ws(text, i + 1);
        }
    }
    const std::size_t end = detail::skip_value(text, i, depth);
    if (end == npos) return std::nullopt;
    return text.substr(i, end - i);
}

// The string at `path`, decoded; nullopt when absent or not a string.
inline std::optional<std::string> string_at(std::string_view text,
                                            std::initializer_list<std::string_view> path)
{
    const auto raw = find(text, path);
    if (!raw || raw->front() != '"') return std::nullopt;
    return decode_string(*raw);
}

// The integer at `path`; nullopt when absent, not an integer, or out of range.
inline std::optional<long long> int_at(std::string_view text,
                                       std::initializer_list<std::string_view> path)
{
    const auto raw = find(text, path);
    if (!raw) return std::nullopt;
    long long v = 0;
    const auto* end = raw->data() + raw->size();
    const auto r = std::from_chars(raw->data(), end, v);
    if (r.ec != std::errc() || r.ptr != end) return std::nullopt;
    return v;
}

// A string decoded, or a number/true/false as written; nullopt for null, objects, arrays
// and absent values. For fields like an error's "code" that may be "rate_limit" or 1001.
inline std::optional<std::string> text_at(std::string_view text,
                                          std::initializer_list<std::string_view> path)
{
    const auto raw = find(text, path);
    if (!raw || raw->front() == '{' || raw->front() == '[' || *raw == "null") return std::nullopt;
    if (raw->front() == '"') return decode_string(*raw);
    return std::string(*raw);
}

// `s` as a JSON string literal, quotes included. `s` is expected to be UTF-8; its bytes
// are copied as they are, except '"', '\\' and control characters, which are escaped.
inline std::string quote(std::string_view s)
{
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    for (const char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                out += "\\u00";
                out += hex[(c >> 4) & 0xF];
                out += hex[c & 0xF];
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

}  // namespace json_text
}  // namespace gw

#endif  // GW_CPP_JSON_HPP
