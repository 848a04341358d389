// Every gw::Client method against gw-mock: the answer it gives, and what reached the wire.
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <string>
#include <vector>

#include "support.hpp"

using support::chat_request;

namespace {

bool has(const std::string& haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string::npos;
}

class Methods : public ::testing::Test {
protected:
    void SetUp() override { support::mock_reset(); }
    // The path of recorded request `i`.
    static std::string path(int i)
    {
        return gw::json_text::string_at(support::mock_requests(), {std::to_string(i), "path"}).value_or("");
    }
    // The multipart part named `name` of the first recorded request, as JSON.
    static std::string part(std::string_view name)
    {
        const std::string req = support::mock_requests();
        for (int i = 0;; ++i) {
            const auto p = gw::json_text::find(req, {"0", "multipart", std::to_string(i)});
            if (!p) return "";
            if (gw::json_text::string_at(*p, {"name"}) == name) return std::string(*p);
        }
    }
    const gw::Client c = support::client();
};

}  // namespace

TEST_F(Methods, Chat)
{
    const std::string out = c.chat(R"({"model": "m", "messages": [{"role": "user", "content": "hello"}],
                                       "x_unknown": {"kept": true}})");
    EXPECT_EQ(gw::json_text::string_at(out, {"object"}).value(), "chat.completion");
    EXPECT_EQ(gw::json_text::string_at(out, {"choices", "0", "message", "content"}).value(), "Echo: hello");
    EXPECT_TRUE(has(support::mock_requests(), R"("x_unknown":{"kept":true})"));
    EXPECT_EQ(path(0), "/v1/chat/completions");
}

TEST_F(Methods, Responses)
{
    const std::string out = c.responses(R"({"model": "m", "input": "alpha beta"})");
    EXPECT_EQ(gw::json_text::string_at(out, {"object"}).value(), "response");
    EXPECT_TRUE(has(out, "alpha beta"));
    EXPECT_EQ(path(0), "/v1/responses");
}

TEST_F(Methods, EmbeddingsAsFloatsAndAsBase64Agree)
{
    const std::string floats = c.embeddings(R"({"model": "e", "input": "cat", "dimensions": 4})");
    const std::string b64 = c.embeddings(
        R"({"model": "e", "input": "cat", "dimensions": 4, "encoding_format": "base64"})");
    const std::vector<float> decoded =
        gw::embedding_decode(gw::json_text::string_at(b64, {"data", "0", "embedding"}).value());
    ASSERT_EQ(decoded.size(), 4u);
    for (int i = 0; i < 4; ++i) {
        const auto raw = gw::json_text::find(floats, {"data", "0", "embedding", std::to_string(i)});
        ASSERT_TRUE(raw) << floats;
        EXPECT_EQ(decoded[i], static_cast<float>(std::stod(std::string(*raw)))) << i;
    }
    EXPECT_EQ(path(0), "/v1/embeddings");
}

TEST_F(Methods, EmbeddingDecode)
{
    // 1.0f and -2.5f as little-endian float32.
    EXPECT_EQ(gw::embedding_decode("AACAPwAAIMA="), (std::vector<float>{1.0f, -2.5f}));
    EXPECT_TRUE(gw::embedding_decode("").empty());
    const auto bad = gw::try_embedding_decode("not base64!");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_TRUE(has(bad.error().message(), "base64")) << bad.error().message();
    const auto odd = gw::try_embedding_decode("AAAA");  // 3 bytes
    ASSERT_FALSE(odd.ok());
    EXPECT_TRUE(has(odd.error().message(), "4")) << odd.error().message();
    // From gw_embedding_decode_err's error JSON, not the thread's last error.
    EXPECT_EQ(odd.error().param(), "base64");
    EXPECT_EQ(odd.error().code(), "invalid_argument");
    EXPECT_TRUE(has(odd.error().what(), "gw::embedding_decode: GW_INVALID_ARGUMENT")) << odd.error().what();
}

TEST_F(Methods, ImageGenerateAndEdit)
{
    const std::string gen = c.image_generate(R"({"model": "img", "prompt": "a red fox", "seed": 42})");
    EXPECT_TRUE(has(gen, "https://images.example/gen/")) << gen;
    const std::string edit = c.image_edit(
        R"({"model": "img", "prompt": "make it blue", "image": "https://x.example/a.png"})");
    EXPECT_EQ(gw::json_text::string_at(edit, {"data", "0", "revised_prompt"}).value(), "Edited: make it blue");
    EXPECT_EQ(path(0), "/v1/images/generations");
    EXPECT_EQ(path(1), "/v1/images/edits");
}

TEST_F(Methods, ImageEditUploadSendsTheBytesAsParts)
{
    const std::string png("\x89PNG\r\n\x1a\n\0\0binary", 16);  // NUL bytes included
    const std::string out = c.image_edit_upload(R"({"model": "img", "prompt": "sky", "n": 1})",
                                                gw::File(png, "photo.png", "image/png"));
    EXPECT_TRUE(has(out, "Edited: sky")) << out;
    std::string image = part("image");
    EXPECT_EQ(gw::json_text::string_at(image, {"filename"}).value_or(""), "photo.png") << image;
    EXPECT_EQ(gw::json_text::string_at(image, {"content_type"}).value_or(""), "image/png");
    EXPECT_EQ(gw::json_text::int_at(image, {"size"}).value_or(0), 16);
    EXPECT_EQ(gw::json_text::string_at(part("prompt"), {"text"}).value_or(""), "sky");

    // With a mask, and the default names when none are given.
    support::mock_reset();
    const unsigned char mask_bytes[] = {1, 2, 3};
    c.image_edit_upload(R"({"model": "img", "prompt": "sky"})", gw::File(png),
                        gw::File(mask_bytes, sizeof mask_bytes));
    image = part("image");
    const std::string mask = part("mask");
    EXPECT_EQ(gw::json_text::string_at(image, {"filename"}).value_or(""), "image.png") << image;
    EXPECT_EQ(gw::json_text::string_at(mask, {"filename"}).value_or(""), "mask.png") << mask;
    EXPECT_EQ(gw::json_text::string_at(mask, {"content_type"}).value_or(""), "application/octet-stream");
    EXPECT_EQ(gw::json_text::int_at(mask, {"size"}).value_or(0), 3);

    // An empty image is refused before sending.
    const auto empty = c.try_image_edit_upload(R"({"model": "img", "prompt": "sky"})", gw::File(""));
    ASSERT_FALSE(empty.ok());
    EXPECT_EQ(empty.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_EQ(support::mock_request_count(), 1);
}

TEST_F(Methods, UnifiedVideoCreatedPolledAndWaitedFor)
{
    const std::string created = c.video_create(R"({"model": "vid", "prompt": "a boat", "duration": 5})");
    const std::string id = gw::json_text::string_at(created, {"task_id"}).value();
    EXPECT_EQ(gw::json_text::string_at(c.video_status(gw::VideoFamily::unified, id), {"status"}).value(),
              "processing");
    gw::WaitOptions w;
    w.interval = std::chrono::milliseconds(10);
    const std::string done = c.video_wait(gw::VideoFamily::unified, id, w);
    EXPECT_EQ(gw::json_text::string_at(done, {"status"}).value(), "succeeded");
    EXPECT_EQ(path(1), "/v1/video/generations/" + id);

    const std::string gen = c.video_generate(R"({"model": "vid", "prompt": "a kite"})");
    const std::string gen_id = gw::json_text::string_at(gen, {"task_id"}).value();
    EXPECT_EQ(gw::json_text::string_at(c.video_wait(gw::VideoFamily::unified, gen_id, w), {"status"}).value(),
              "succeeded");
}

TEST_F(Methods, VideoWaitReportsEveryPoll)
{
    const std::string id = gw::json_text::string_at(
        c.video_create(R"({"model": "vid", "prompt": "a boat"})"), {"task_id"}).value();
    std::vector<std::string> seen;
    gw::WaitOptions w;
    w.interval = std::chrono::milliseconds(10);
    const std::string done = c.video_wait(gw::VideoFamily::unified, id, w,
                                          [&](std::string_view status, std::string_view task) {
                                              seen.emplace_back(status);
                                              EXPECT_TRUE(has(std::string(task), id));
                                          });
    EXPECT_EQ(seen, (std::vector<std::string>{"processing", "processing", "succeeded"}));
    EXPECT_TRUE(has(done, "video_url"));
}

TEST_F(Methods, FailedTaskIsGwVendorWithTheRecord)
{
    const std::string id = gw::json_text::string_at(
        c.video_create(R"({"model": "vid", "prompt": "please fail"})"), {"task_id"}).value();
    gw::WaitOptions w;
    w.interval = std::chrono::milliseconds(10);
    try {
        c.video_wait(gw::VideoFamily::unified, id, w);
        FAIL() << "a failed task must throw";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), GW_VENDOR);
        EXPECT_EQ(gw::json_text::string_at(e.json(), {"status"}).value(), "failed");
        EXPECT_EQ(e.code(), "generation_failed");
        EXPECT_EQ(e.message(), "video generation failed");
    }
}

TEST_F(Methods, CharacterVideoAndRemix)
{
    const std::string created = c.video_character(
        R"({"model": "vid", "prompt": "a dance", "character_id": "char_1"})");
    const std::string id = gw::json_text::string_at(created, {"id"}).value();
    const std::string remix = c.video_remix(id, R"({"prompt": "faster"})");
    EXPECT_EQ(gw::json_text::string_at(remix, {"remixed_from_video_id"}).value(), id);
    gw::WaitOptions w;
    w.interval = std::chrono::milliseconds(10);
    const std::string done = c.video_wait(gw::VideoFamily::character, id, w);
    EXPECT_EQ(gw::json_text::string_at(done, {"status"}).value(), "completed");
    EXPECT_EQ(path(1), "/v1/videos/" + id + "/remix");
}

TEST_F(Methods, VendorK)
{
    const std::string t2v = c.vendor_k_text2video(R"({"prompt": "a comet", "duration": 5})");
    const std::string id = gw::json_text::string_at(t2v, {"data", "task_id"}).value();
    gw::WaitOptions w;
    w.interval = std::chrono::milliseconds(10);
    EXPECT_EQ(gw::json_text::string_at(c.video_wait(gw::VideoFamily::vendor_k, id, w), {"data", "task_status"}).value(),
              "succeed");
    EXPECT_EQ(gw::json_text::int_at(c.vendor_k_image2video(R"({"image": "https://x.example/a.png"})"), {"code"}).value(), 0);
    EXPECT_EQ(gw::json_text::int_at(c.vendor_k_multi_image2video(R"({"image_list": [{"image": "u"}]})"), {"code"}).value(), 0);
    EXPECT_EQ(gw::json_text::int_at(c.vendor_k_effects(R"({"video": "https://x.example/v.mp4", "effect": "zoom"})"), {"code"}).value(), 0);
    EXPECT_EQ(gw::json_text::int_at(c.vendor_k_extend(R"({"video_id": "k_1"})"), {"code"}).value(), 0);
    const std::string requests = support::mock_requests();
    EXPECT_TRUE(has(requests, R"("path":"/vendorK/v1/videos/image2video")"));
    EXPECT_TRUE(has(requests, R"("path":"/vendorK/v1/videos/multi-image2video")"));
    EXPECT_TRUE(has(requests, R"("path":"/vendorK/video/effects")"));
    EXPECT_TRUE(has(requests, R"("path":"/vendorK/video/extend")"));
}

TEST_F(Methods, VendorHAndM)
{
    const std::string h = c.vendor_h_image_to_video(
        R"({"image_url": "https://x.example/a.png", "prompt": "wave"})");
    EXPECT_EQ(gw::json_text::int_at(h, {"code"}).value(), 0);
    const std::string m = c.vendor_m_imagine(R"({"prompt": "a cat", "botType": "MID_JOURNEY"})");
    EXPECT_EQ(gw::json_text::int_at(m, {"code"}).value(), 1);

    const auto hf = c.try_vendor_h_image_to_video(
        R"({"image_url": "https://x.example/a.png", "prompt": "vendor-fail"})");
    ASSERT_FALSE(hf.ok());
    EXPECT_EQ(hf.error().status(), GW_VENDOR);
    EXPECT_EQ(hf.error().code(), "1001");
    EXPECT_EQ(hf.error().message(), "insufficient quota");
    const auto mf = c.try_vendor_m_imagine(R"({"prompt": "vendor-fail", "botType": "MID_JOURNEY"})");
    ASSERT_FALSE(mf.ok());
    EXPECT_EQ(mf.error().message(), "banned prompt");
}

TEST_F(Methods, VendorIAndF)
{
    const std::string d = c.vendor_i_describe(R"({"image": "https://x.example/cat.png"})");
    EXPECT_EQ(gw::json_text::string_at(d, {"descriptions", "0"}).value(), "Description 1 of 4 for cat.png");
    EXPECT_TRUE(gw::json_text::find(c.vendor_i_generate(R"({"prompt": "p", "aspect_ratio": "1:1"})"),
                               {"data", "0", "url"}));
    EXPECT_TRUE(gw::json_text::find(c.vendor_i_text_to_image(R"({"prompt": "p"})"), {"data", "0", "url"}));
    const std::string f = c.vendor_f_edit("org/model", R"({"image": "https://x.example/a.png", "prompt": "p"})");
    EXPECT_TRUE(has(f, "https://images.example/vendorF/")) << f;
    EXPECT_EQ(path(0), "/vendorI/describe");
    EXPECT_EQ(path(1), "/vendorI/generate");
    EXPECT_EQ(path(2), "/vendorI/text-to-image");
    EXPECT_EQ(path(3), "/vendorF/org/model/edit");
}

TEST_F(Methods, VendorRStatus)
{
    EXPECT_EQ(gw::json_text::string_at(c.video_status(gw::VideoFamily::vendor_r, "a b/c?d"), {"status"}).value(),
              "PENDING");
    EXPECT_EQ(path(0), "/vendorR/task/a%20b%2Fc%3Fd");  // the id is URL-encoded
}

TEST_F(Methods, GenerateContentPutsTheKeyInTheQuery)
{
    const std::string out = c.generate_content(
        "native-model", R"({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})");
    EXPECT_EQ(gw::json_text::string_at(out, {"candidates", "0", "content", "parts", "0", "text"}).value(),
              "Echo: hi");
    const std::string req = support::mock_requests();
    EXPECT_EQ(gw::json_text::string_at(req, {"0", "path"}).value(), "/v1beta/models/native-model:generateContent");
    EXPECT_EQ(gw::json_text::string_at(req, {"0", "query"}).value(), "key=sk-test");
    EXPECT_EQ(support::recorded_header(req, 0, "authorization"), "");
}

TEST_F(Methods, RawRequestGetAndPost)
{
    const std::string post = c.request("POST", "/v1/chat/completions", chat_request("raw"));
    EXPECT_TRUE(has(post, "Echo: raw"));
    const std::string get = c.request("GET", "/vendorR/task/r1");
    EXPECT_EQ(gw::json_text::string_at(get, {"id"}).value(), "r1");
    const auto unknown = c.try_request("GET", "/v1/nothing-here");
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().status(), 404);
    const auto bad_method = c.try_request("DELETE", "/v1/chat/completions");
    ASSERT_FALSE(bad_method.ok());
    EXPECT_EQ(bad_method.error().status(), GW_INVALID_ARGUMENT);
}

TEST_F(Methods, TryFormsReturnTheSameAnswers)
{
    const auto chat = c.try_chat(chat_request("try"));
    ASSERT_TRUE(chat.ok());
    EXPECT_TRUE(has(*chat, "Echo: try"));
    const auto status = c.try_video_status(gw::VideoFamily::vendor_r, "t1");
    ASSERT_TRUE(status.ok());
    EXPECT_TRUE(has(*status, "PENDING"));
    const auto gc = c.try_generate_content("m", R"({"contents": [{"parts": [{"text": "x"}]}]})");
    ASSERT_TRUE(gc.ok()) << gc.error().what();
    const auto refused = c.try_chat(R"({"model": "m", "messages": []})");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().param().value_or(""), "messages");
}

// Issue 39: the reasoning effort is a string the upstream extends (OpenAI's "max",
// 2026-07); the binding has no typed enum for it, and gw sends a value it does not know.
// A number in its place is still refused before sending.
TEST_F(Methods, ReasoningEffortMaxReachesTheGateway)
{
    c.chat(R"({"model": "m", "messages": [{"role": "user", "content": "hi"}], "reasoning_effort": "max"})");
    EXPECT_TRUE(has(support::mock_requests(), R"("reasoning_effort":"max")")) << support::mock_requests();
    const std::string out = c.responses(R"({"model": "m", "input": "hi", "reasoning": {"effort": "max"}})");
    EXPECT_EQ(gw::json_text::string_at(out, {"reasoning", "effort"}).value_or(""), "max") << out;
    EXPECT_EQ(support::mock_request_count(), 2);
    const auto unknown =
        c.try_chat(R"({"model": "m", "messages": [{"role": "user", "content": "hi"}], "reasoning_effort": "ultra"})");
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().status(), 400);  // this gateway's answer, not gw's refusal
    EXPECT_EQ(support::mock_request_count(), 3);
    const auto number =
        c.try_chat(R"({"model": "m", "messages": [{"role": "user", "content": "hi"}], "reasoning_effort": 5})");
    ASSERT_FALSE(number.ok());
    EXPECT_EQ(number.error().status(), GW_INVALID_ARGUMENT);
    EXPECT_EQ(support::mock_request_count(), 3);
}

// Issue 39: a null member is "not given": the form leaves it out instead of sending the
// text null, which the gateway refuses for an integer n.
TEST_F(Methods, ImageEditUploadLeavesNullMembersOut)
{
    const std::string out = c.image_edit_upload(R"({"model": "img", "prompt": "sky", "n": null, "background": null})",
                                                gw::File(std::string("\x89PNG", 4)));
    EXPECT_TRUE(has(out, "Edited: sky")) << out;
    EXPECT_EQ(part("n"), "");
    EXPECT_EQ(part("background"), "");
    EXPECT_NE(part("image"), "");
}
