// gw::json_text, the minimal extractor errors and metadata are read with: paths, decoding,
// numbers, and malformed input answered with nullopt (never a crash or an overread).
#include <gtest/gtest.h>

#include <gw/json.hpp>

#include <string>

namespace json = gw::json_text;

TEST(Json, FindsNestedMembersAndArrayItems)
{
    const std::string t = R"( {"a": 1, "error": {"type": "rate_limit_error", "code": null},
        "list": [10, {"x": "y"}, [true]]} )";
    EXPECT_EQ(json::find(t, {"a"}).value(), "1");
    EXPECT_EQ(json::find(t, {"error", "type"}).value(), "\"rate_limit_error\"");
    EXPECT_EQ(json::find(t, {"error", "code"}).value(), "null");
    EXPECT_EQ(json::find(t, {"list", "0"}).value(), "10");
    EXPECT_EQ(json::find(t, {"list", "1", "x"}).value(), "\"y\"");
    EXPECT_EQ(json::find(t, {"list", "2", "0"}).value(), "true");
    EXPECT_EQ(json::find(t, {"error"}).value(), R"({"type": "rate_limit_error", "code": null})");
    EXPECT_EQ(json::find("  [1]  ", {}).value(), "[1]");
}

TEST(Json, AbsentPathsAreNullopt)
{
    const std::string t = R"({"a": {"b": [1, 2]}, "e": {}, "l": []})";
    EXPECT_FALSE(json::find(t, {"missing"}));
    EXPECT_FALSE(json::find(t, {"a", "c"}));
    EXPECT_FALSE(json::find(t, {"a", "b", "2"}));
    EXPECT_FALSE(json::find(t, {"a", "b", "x"}));   // not an index
    EXPECT_FALSE(json::find(t, {"a", "b", "-1"}));
    EXPECT_FALSE(json::find(t, {"a", "b", "0", "z"}));  // a number has no members
    EXPECT_FALSE(json::find(t, {"e", "k"}));
    EXPECT_FALSE(json::find(t, {"l", "0"}));
    EXPECT_FALSE(json::find("", {"a"}));
    EXPECT_FALSE(json::find("null", {"a"}));
}

TEST(Json, KeysInsideStringsAndNestedObjectsAreNotMatched)
{
    // A value that looks like a key, and the same key one level down, must not be taken for
    // the member itself.
    const std::string t = R"({"message": "\"code\": 7", "inner": {"code": 8}, "code": 9})";
    EXPECT_EQ(json::int_at(t, {"code"}).value(), 9);
    EXPECT_EQ(json::string_at(t, {"message"}).value(), "\"code\": 7");
    EXPECT_EQ(json::int_at(t, {"inner", "code"}).value(), 8);
}

TEST(Json, EscapedKeysAreDecodedBeforeComparing)
{
    EXPECT_EQ(json::int_at(R"({"a\u0062c": 5, "q\"k": 6})", {"abc"}).value(), 5);
    EXPECT_EQ(json::int_at(R"({"a\u0062c": 5, "q\"k": 6})", {"q\"k"}).value(), 6);
}

TEST(Json, DecodesEveryEscape)
{
    EXPECT_EQ(json::string_at(R"({"s": "a\"b\\c\/d\be\ff\ng\rh\ti"})", {"s"}).value(),
              "a\"b\\c/d\be\ff\ng\rh\ti");
    EXPECT_EQ(json::string_at(R"({"s": "\u00e9\u4e2d"})", {"s"}).value(), "\xC3\xA9\xE4\xB8\xAD");
    // A surrogate pair is one code point (U+1F600), a lone surrogate U+FFFD.
    EXPECT_EQ(json::string_at(R"({"s": "\ud83d\ude00"})", {"s"}).value(), "\xF0\x9F\x98\x80");
    EXPECT_EQ(json::string_at(R"({"s": "\ud83dx"})", {"s"}).value(), "\xEF\xBF\xBD" "x");
    EXPECT_EQ(json::string_at(R"({"s": "\ude00"})", {"s"}).value(), "\xEF\xBF\xBD");
    // UTF-8 passes through untouched.
    EXPECT_EQ(json::string_at("{\"s\": \"\xE4\xB8\xAD\"}", {"s"}).value(), "\xE4\xB8\xAD");
}

TEST(Json, BadStringsAreNullopt)
{
    EXPECT_FALSE(json::decode_string(R"("\x")"));
    EXPECT_FALSE(json::decode_string(R"("\u12")"));
    EXPECT_FALSE(json::decode_string(R"("\u12g4")"));
    EXPECT_FALSE(json::decode_string(R"("abc)"));
    EXPECT_FALSE(json::decode_string(R"("abc\")"));
    EXPECT_FALSE(json::decode_string("\"a\nb\""));  // raw control character
    EXPECT_FALSE(json::decode_string(R"("a" )"));
    EXPECT_FALSE(json::decode_string("\""));
    EXPECT_EQ(json::decode_string(R"("")").value(), "");
}

TEST(Json, StringAtRefusesOtherTypes)
{
    const std::string t = R"({"n": 5, "b": true, "z": null, "o": {}, "s": "5"})";
    EXPECT_FALSE(json::string_at(t, {"n"}));
    EXPECT_FALSE(json::string_at(t, {"b"}));
    EXPECT_FALSE(json::string_at(t, {"z"}));
    EXPECT_FALSE(json::string_at(t, {"o"}));
    EXPECT_EQ(json::string_at(t, {"s"}).value(), "5");
}

TEST(Json, IntegersOnly)
{
    const std::string t = R"({"a": -42, "b": 3.5, "c": "7", "d": 1e3, "e": 9223372036854775807,
        "f": 9223372036854775808, "g": 0})";
    EXPECT_EQ(json::int_at(t, {"a"}).value(), -42);
    EXPECT_FALSE(json::int_at(t, {"b"}));
    EXPECT_FALSE(json::int_at(t, {"c"}));
    EXPECT_FALSE(json::int_at(t, {"d"}));
    EXPECT_EQ(json::int_at(t, {"e"}).value(), 9223372036854775807LL);
    EXPECT_FALSE(json::int_at(t, {"f"}));  // out of range
    EXPECT_EQ(json::int_at(t, {"g"}).value(), 0);
}

TEST(Json, TextAtGivesStringsAndScalarsAsText)
{
    const std::string t = R"({"code": 1001, "type": "vendor", "ok": false, "z": null, "o": {"a": 1}})";
    EXPECT_EQ(json::text_at(t, {"code"}).value(), "1001");
    EXPECT_EQ(json::text_at(t, {"type"}).value(), "vendor");
    EXPECT_EQ(json::text_at(t, {"ok"}).value(), "false");
    EXPECT_FALSE(json::text_at(t, {"z"}));
    EXPECT_FALSE(json::text_at(t, {"o"}));
}

TEST(Json, MalformedInputIsNulloptNotACrash)
{
    const char* broken[] = {
        "{",          "{\"a\"",       "{\"a\":",       "{\"a\": 1",     "{\"a\" 1}",
        "{\"a\": 1,}", "{a: 1}",      "[1, 2",         "{\"a\": tru}",  "{\"a\": -}",
        "{\"a\": 1.}", "{\"a\": 1e}", "{\"a\": \"x}",  "{\"b\": 1 \"a\": 2}", "\x01",
    };
    for (const char* t : broken) {
        EXPECT_FALSE(json::find(t, {"a"})) << t;
        EXPECT_FALSE(json::int_at(t, {"a"})) << t;
    }
    // A truncated copy of a real answer, at every length, gives nothing (not the fields that
    // happened to come before the cut).
    const std::string full = R"({"error": {"message": "x\"y", "type": "t", "status": 429}})";
    for (std::size_t n = 0; n < full.size(); ++n) {
        EXPECT_FALSE(json::find(full.substr(0, n), {"error", "type"})) << n;
    }
    EXPECT_FALSE(json::find(full + " x", {"error", "type"}));  // trailing garbage
    EXPECT_EQ(json::int_at(full, {"error", "status"}).value(), 429);
}

TEST(Json, DeepNestingIsRefusedNotRecursedInto)
{
    const std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') +
                             ", \"b\": 1}";
    EXPECT_FALSE(json::find(deep, {"b"}));
    const std::string shallow = "{\"a\": " + std::string(50, '[') + std::string(50, ']') +
                                ", \"b\": 1}";
    EXPECT_EQ(json::int_at(shallow, {"b"}).value(), 1);
}

TEST(Json, QuoteEscapesWhatJsonRequires)
{
    EXPECT_EQ(json::quote("plain"), "\"plain\"");
    EXPECT_EQ(json::quote("a\"b\\c\nd\re\tf\bg\fh"), R"("a\"b\\c\nd\re\tf\bg\fh")");
    EXPECT_EQ(json::quote(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
    EXPECT_EQ(json::quote("\xE4\xB8\xAD"), "\"\xE4\xB8\xAD\"");
    // quote and decode_string round-trip every byte below 0x80.
    std::string all;
    for (int c = 1; c < 0x80; ++c) all += static_cast<char>(c);
    EXPECT_EQ(json::decode_string(json::quote(all)).value(), all);
}
