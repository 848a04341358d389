// gw::Client: every capability of the C ABI as a method, JSON text in, JSON text out.
#ifndef GW_CPP_CLIENT_HPP
#define GW_CPP_CLIENT_HPP

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "call.hpp"
#include "config.hpp"
#include "error.hpp"
#include "options.hpp"
#include "stream.hpp"

namespace gw {

namespace detail {

// Calls a user callable that returns void (go on) or something testable as bool (false
// stops the stream / the polling, like a non-zero return in C).
template <class F, class... A>
bool keep_going(F& f, A&&... args)
{
    if constexpr (std::is_void_v<std::invoke_result_t<F&, A...>>) {
        std::invoke(f, std::forward<A>(args)...);
        return true;
    } else {
        return static_cast<bool>(std::invoke(f, std::forward<A>(args)...));
    }
}

template <class F>
inline constexpr bool is_event_handler_v =
    std::is_invocable_v<std::decay_t<F>&, const Event&> &&
    !std::is_convertible_v<F, const CallOptions&>;

template <class F>
inline constexpr bool is_progress_handler_v =
    std::is_invocable_v<std::decay_t<F>&, std::string_view, std::string_view>;

// gw_video_wait's progress callback. The user's callable runs inside the C call, so an
// exception it throws is caught here (never unwinding through gw), stops the polling, and
// is rethrown by the caller once gw_video_wait has returned.
// video_wait without a progress callable.
struct NoProgress {};

template <class F>
struct Progress {
    F* f;
    std::exception_ptr thrown;

    static int call(const char* status, const char* task_json, void* user_data) noexcept
    {
        auto* self = static_cast<Progress*>(user_data);
        const std::string_view s = status != nullptr ? status : "";
        const std::string_view t = task_json != nullptr ? task_json : "";
#if GW_CPP_EXCEPTIONS
        try {
            return keep_going(*self->f, s, t) ? 0 : 1;
        } catch (...) {
            self->thrown = std::current_exception();
            return 1;
        }
#else
        return keep_going(*self->f, s, t) ? 0 : 1;
#endif
    }
};

}  // namespace detail

// A gateway client. Move-only; the handle is freed by the destructor. All methods are
// const and thread-safe: share one Client between threads (they share its connection pool).
// Each method has a throwing form (returning the answer, throwing gw::Error) and a try_
// form (returning gw::Result) for code built without exceptions.
class Client {
public:
#if GW_CPP_EXCEPTIONS
    // From a struct; throws gw::Error on bad options (the message names the option).
    explicit Client(const ClientOptions& options) : Client(create(options).value()) {}
    // From options JSON text ("" for all defaults, the key and URL from the environment).
    explicit Client(std::string_view options_json) : Client(create(options_json).value()) {}
#endif

    static Result<Client> create(const ClientOptions& options)
    {
        return create(options.to_json());
    }

    static Result<Client> create(std::string_view options_json)
    {
        std::string opts;
        if (auto e = detail::c_arg("gw::Client", "options_json", options_json, opts)) return *e;
        gw_client* c = nullptr;
        char* err = nullptr;
        const int st = gw_client_create(opts.empty() ? nullptr : opts.c_str(), &c, &err);
        detail::CString owned(err);
        if (st != GW_OK || c == nullptr) {
            if (c != nullptr) gw_client_free(c);
            return Error(st != GW_OK ? st : GW_INTERNAL, owned.str(), {}, "gw::Client");
        }
        return Client(c);
    }

    Client(Client&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    Client& operator=(Client&& o) noexcept
    {
        if (this != &o) {
            gw_client_free(h_);
            h_ = std::exchange(o.h_, nullptr);
        }
        return *this;
    }
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    // Calls still running on other threads keep the handle alive until they return.
    ~Client() { gw_client_free(h_); }

    // False once moved from.
    explicit operator bool() const noexcept { return h_ != nullptr; }
    // The C handle, for calling gw.h directly; owned by this Client.
    gw_client* native_handle() const noexcept { return h_; }

    // A client with these settings over this one's (same pool). Its cancel token and meta
    // are ignored: those belong to calls.
    Result<Client> try_derive(const CallOptions& overrides) const
    {
        if (h_ == nullptr)
            return detail::usage_error("gw::Client::derive", "this gw::Client was moved from");
        const std::string o = overrides.to_json();
        gw_client* c = nullptr;
        char* err = nullptr;
        const int st = gw_client_create_derived(h_, o.empty() ? nullptr : o.c_str(), &c, &err);
        detail::CString owned(err);
        if (st != GW_OK || c == nullptr) {
            if (c != nullptr) gw_client_free(c);
            return Error(st != GW_OK ? st : GW_INTERNAL, owned.str(), {}, "gw::Client::derive");
        }
        return Client(c);
    }

    // ---- chat and Responses -------------------------------------------------------------

    // POST /v1/chat/completions -> the chat.completion JSON. "stream": true is refused.
    Result<std::string> try_chat(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::chat", gw_chat, request_json, o);
    }
    // Opens a chat stream: iterate it, then finish() for the assembled chat.completion.
    Result<Stream> try_chat_stream(std::string_view request_json, const CallOptions& o = {}) const
    {
        return open_stream("gw::Client::chat_stream", gw_chat_stream_open, request_json, o);
    }
    // Streams a chat to `on_event` (void, or bool: false stops with GW_CANCELLED) and
    // returns the assembled chat.completion. An exception from on_event cancels the stream
    // and propagates.
    template <class F, std::enable_if_t<detail::is_event_handler_v<F>, int> = 0>
    Result<std::string> try_chat_stream(std::string_view request_json, F&& on_event,
                                        const CallOptions& o = {}) const
    {
        return drive(try_chat_stream(request_json, o), on_event, o);
    }

    // POST /v1/responses -> the response JSON.
    Result<std::string> try_responses(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::responses", gw_responses, request_json, o);
    }
    Result<Stream> try_responses_stream(std::string_view request_json, const CallOptions& o = {}) const
    {
        return open_stream("gw::Client::responses_stream", gw_responses_stream_open, request_json, o);
    }
    template <class F, std::enable_if_t<detail::is_event_handler_v<F>, int> = 0>
    Result<std::string> try_responses_stream(std::string_view request_json, F&& on_event,
                                             const CallOptions& o = {}) const
    {
        return drive(try_responses_stream(request_json, o), on_event, o);
    }

    // ---- embeddings and images ----------------------------------------------------------

    Result<std::string> try_embeddings(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::embeddings", gw_embeddings, request_json, o);
    }
    Result<std::string> try_image_generate(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::image_generate", gw_image_generate, request_json, o);
    }
    // The JSON form: image (and mask) given as URLs.
    Result<std::string> try_image_edit(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::image_edit", gw_image_edit, request_json, o);
    }
    // multipart/form-data: the request's fields as text parts, then the image (and mask).
    Result<std::string> try_image_edit_upload(std::string_view request_json, const File& image,
                                              const CallOptions& o = {}) const
    {
        return upload(request_json, image, nullptr, o);
    }
    Result<std::string> try_image_edit_upload(std::string_view request_json, const File& image,
                                              const File& mask, const CallOptions& o = {}) const
    {
        return upload(request_json, image, &mask, o);
    }

    // ---- video ----------------------------------------------------------------------------

    Result<std::string> try_video_create(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::video_create", gw_video_create, request_json, o);
    }
    Result<std::string> try_video_generate(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::video_generate", gw_video_generate, request_json, o);
    }
    Result<std::string> try_video_character(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::video_character", gw_video_character, request_json, o);
    }
    Result<std::string> try_video_remix(std::string_view video_id, std::string_view request_json,
                                        const CallOptions& o = {}) const
    {
        return id_call("gw::Client::video_remix", gw_video_remix, "video_id", video_id, request_json, o);
    }
    // Queries a task once.
    Result<std::string> try_video_status(VideoFamily family, std::string_view task_id,
                                         const CallOptions& o = {}) const
    {
        constexpr const char* what = "gw::Client::video_status";
        std::string id;
        if (auto e = detail::c_arg(what, "task_id", task_id, id)) return *e;
        return call(what, o, [&](gw_client* h, char** out) {
            return gw_video_status(h, static_cast<int>(family), id.c_str(), out);
        });
    }
    // Polls a task until it ends: the final record; a failed task is GW_VENDOR with the
    // record in Error::json(); past the timeout GW_TIMEOUT.
    Result<std::string> try_video_wait(VideoFamily family, std::string_view task_id,
                                       const WaitOptions& w = {}, const CallOptions& o = {}) const
    {
        return wait(family, task_id, w, static_cast<detail::NoProgress*>(nullptr), o);
    }
    // The same, calling on_progress(status, task_json) after every poll (void, or bool:
    // false stops with GW_CANCELLED). An exception it throws stops the polling and is
    // rethrown once gw has returned.
    template <class F, std::enable_if_t<detail::is_progress_handler_v<F>, int> = 0>
    Result<std::string> try_video_wait(VideoFamily family, std::string_view task_id,
                                       const WaitOptions& w, F&& on_progress,
                                       const CallOptions& o = {}) const
    {
        using Fn = std::remove_reference_t<F>;
        detail::Progress<Fn> p{&on_progress, nullptr};
        return wait(family, task_id, w, &p, o);
    }

    // ---- vendor APIs ------------------------------------------------------------------

    Result<std::string> try_vendor_k_text2video(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_k_text2video", gw_vendor_k_text2video, request_json, o);
    }
    Result<std::string> try_vendor_k_image2video(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_k_image2video", gw_vendor_k_image2video, request_json, o);
    }
    Result<std::string> try_vendor_k_multi_image2video(std::string_view request_json,
                                                       const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_k_multi_image2video", gw_vendor_k_multi_image2video,
                         request_json, o);
    }
    Result<std::string> try_vendor_k_effects(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_k_effects", gw_vendor_k_effects, request_json, o);
    }
    Result<std::string> try_vendor_k_extend(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_k_extend", gw_vendor_k_extend, request_json, o);
    }
    // A body whose code says failure (code != 0) is GW_VENDOR, the body in Error::json().
    Result<std::string> try_vendor_h_image_to_video(std::string_view request_json,
                                                    const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_h_image_to_video", gw_vendor_h_image_to_video,
                         request_json, o);
    }
    // A body whose code says failure (code != 1) is GW_VENDOR, the body in Error::json().
    Result<std::string> try_vendor_m_imagine(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_m_imagine", gw_vendor_m_imagine, request_json, o);
    }
    Result<std::string> try_vendor_i_describe(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_i_describe", gw_vendor_i_describe, request_json, o);
    }
    Result<std::string> try_vendor_i_generate(std::string_view request_json, const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_i_generate", gw_vendor_i_generate, request_json, o);
    }
    Result<std::string> try_vendor_i_text_to_image(std::string_view request_json,
                                                   const CallOptions& o = {}) const
    {
        return json_call("gw::Client::vendor_i_text_to_image", gw_vendor_i_text_to_image,
                         request_json, o);
    }
    // POST /vendorF/{model_slug}/edit; the slug may span segments ("org/model").
    Result<std::string> try_vendor_f_edit(std::string_view model_slug, std::string_view request_json,
                                          const CallOptions& o = {}) const
    {
        return id_call("gw::Client::vendor_f_edit", gw_vendor_f_edit, "model_slug", model_slug,
                       request_json, o);
    }
    // POST /v1beta/models/{model}:generateContent (the key goes in ?key=, never shown).
    Result<std::string> try_generate_content(std::string_view model, std::string_view request_json,
                                             const CallOptions& o = {}) const
    {
        return id_call("gw::Client::generate_content", gw_generate_content, "model", model,
                       request_json, o);
    }

    // ---- anything else ----------------------------------------------------------------

    // `method` "GET" or "POST" to `path` ("/v1/...", may carry a query); body JSON for POST,
    // nullopt for GET. Documented paths get their operation's checks and answer rules.
    Result<std::string> try_request(std::string_view method, std::string_view path,
                                    std::optional<std::string_view> body_json = std::nullopt,
                                    const CallOptions& o = {}) const
    {
        constexpr const char* what = "gw::Client::request";
        std::string m, p, b;
        if (auto e = detail::c_arg(what, "method", method, m)) return *e;
        if (auto e = detail::c_arg(what, "path", path, p)) return *e;
        if (body_json)
            if (auto e = detail::c_arg(what, "body_json", *body_json, b)) return *e;
        return call(what, o, [&](gw_client* h, char** out) {
            return gw_request(h, m.c_str(), p.c_str(), body_json ? b.c_str() : nullptr, out);
        });
    }

#if GW_CPP_EXCEPTIONS
    // The throwing forms: the answer, or gw::Error.
    Client derive(const CallOptions& overrides) const { return try_derive(overrides).value(); }
    std::string chat(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_chat(request_json, o).value();
    }
    Stream chat_stream(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_chat_stream(request_json, o).value();
    }
    template <class F, std::enable_if_t<detail::is_event_handler_v<F>, int> = 0>
    std::string chat_stream(std::string_view request_json, F&& on_event, const CallOptions& o = {}) const
    {
        return try_chat_stream(request_json, std::forward<F>(on_event), o).value();
    }
    std::string responses(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_responses(request_json, o).value();
    }
    Stream responses_stream(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_responses_stream(request_json, o).value();
    }
    template <class F, std::enable_if_t<detail::is_event_handler_v<F>, int> = 0>
    std::string responses_stream(std::string_view request_json, F&& on_event,
                                 const CallOptions& o = {}) const
    {
        return try_responses_stream(request_json, std::forward<F>(on_event), o).value();
    }
    std::string embeddings(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_embeddings(request_json, o).value();
    }
    std::string image_generate(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_image_generate(request_json, o).value();
    }
    std::string image_edit(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_image_edit(request_json, o).value();
    }
    std::string image_edit_upload(std::string_view request_json, const File& image,
                                  const CallOptions& o = {}) const
    {
        return try_image_edit_upload(request_json, image, o).value();
    }
    std::string image_edit_upload(std::string_view request_json, const File& image, const File& mask,
                                  const CallOptions& o = {}) const
    {
        return try_image_edit_upload(request_json, image, mask, o).value();
    }
    std::string video_create(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_video_create(request_json, o).value();
    }
    std::string video_generate(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_video_generate(request_json, o).value();
    }
    std::string video_character(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_video_character(request_json, o).value();
    }
    std::string video_remix(std::string_view video_id, std::string_view request_json,
                            const CallOptions& o = {}) const
    {
        return try_video_remix(video_id, request_json, o).value();
    }
    std::string video_status(VideoFamily family, std::string_view task_id,
                             const CallOptions& o = {}) const
    {
        return try_video_status(family, task_id, o).value();
    }
    std::string video_wait(VideoFamily family, std::string_view task_id, const WaitOptions& w = {},
                           const CallOptions& o = {}) const
    {
        return try_video_wait(family, task_id, w, o).value();
    }
    template <class F, std::enable_if_t<detail::is_progress_handler_v<F>, int> = 0>
    std::string video_wait(VideoFamily family, std::string_view task_id, const WaitOptions& w,
                           F&& on_progress, const CallOptions& o = {}) const
    {
        return try_video_wait(family, task_id, w, std::forward<F>(on_progress), o).value();
    }
    std::string vendor_k_text2video(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_k_text2video(request_json, o).value();
    }
    std::string vendor_k_image2video(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_k_image2video(request_json, o).value();
    }
    std::string vendor_k_multi_image2video(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_k_multi_image2video(request_json, o).value();
    }
    std::string vendor_k_effects(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_k_effects(request_json, o).value();
    }
    std::string vendor_k_extend(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_k_extend(request_json, o).value();
    }
    std::string vendor_h_image_to_video(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_h_image_to_video(request_json, o).value();
    }
    std::string vendor_m_imagine(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_m_imagine(request_json, o).value();
    }
    std::string vendor_i_describe(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_i_describe(request_json, o).value();
    }
    std::string vendor_i_generate(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_i_generate(request_json, o).value();
    }
    std::string vendor_i_text_to_image(std::string_view request_json, const CallOptions& o = {}) const
    {
        return try_vendor_i_text_to_image(request_json, o).value();
    }
    std::string vendor_f_edit(std::string_view model_slug, std::string_view request_json,
                              const CallOptions& o = {}) const
    {
        return try_vendor_f_edit(model_slug, request_json, o).value();
    }
    std::string generate_content(std::string_view model, std::string_view request_json,
                                 const CallOptions& o = {}) const
    {
        return try_generate_content(model, request_json, o).value();
    }
    std::string request(std::string_view method, std::string_view path,
                        std::optional<std::string_view> body_json = std::nullopt,
                        const CallOptions& o = {}) const
    {
        return try_request(method, path, body_json, o).value();
    }
#endif

private:
    explicit Client(gw_client* h) noexcept : h_(h) {}

    using JsonFn = int (*)(const gw_client*, const char*, char**);
    using IdJsonFn = int (*)(const gw_client*, const char*, const char*, char**);
    using OpenFn = int (*)(const gw_client*, const char*, gw_stream**, char**);

    // Runs fn(handle, &out) on a handle derived for this call and turns the status and
    // *out into the answer or an Error carrying the call's metadata.
    template <class Fn>
    Result<std::string> call(const char* what, const CallOptions& o, Fn&& fn) const
    {
        auto handle = detail::CallHandle::open(h_, o, what);
        if (!handle) return handle.error();
        char* out = nullptr;
        const int st = fn(handle->get(), &out);
        detail::CString owned(out);
        if (st == GW_OK && o.meta == nullptr) return owned.str();
        ResponseMeta meta = handle->meta();
        if (o.meta != nullptr) *o.meta = meta;
        if (st == GW_OK) return owned.str();
        return Error(st, owned.str(), std::move(meta), what);
    }

    Result<std::string> json_call(const char* what, JsonFn fn, std::string_view request_json,
                                  const CallOptions& o) const
    {
        std::string req;
        if (auto e = detail::c_arg(what, "request_json", request_json, req)) return *e;
        return call(what, o, [&](gw_client* h, char** out) { return fn(h, req.c_str(), out); });
    }

    Result<std::string> id_call(const char* what, IdJsonFn fn, const char* id_name,
                                std::string_view id, std::string_view request_json,
                                const CallOptions& o) const
    {
        std::string i, req;
        if (auto e = detail::c_arg(what, id_name, id, i)) return *e;
        if (auto e = detail::c_arg(what, "request_json", request_json, req)) return *e;
        return call(what, o, [&](gw_client* h, char** out) {
            return fn(h, i.c_str(), req.c_str(), out);
        });
    }

    Result<std::string> upload(std::string_view request_json, const File& image, const File* mask,
                               const CallOptions& o) const
    {
        constexpr const char* what = "gw::Client::image_edit_upload";
        std::string req, image_name, image_type, mask_name, mask_type;
        if (auto e = detail::c_arg(what, "request_json", request_json, req)) return *e;
        if (auto e = detail::c_arg(what, "image.filename", image.filename, image_name)) return *e;
        if (auto e = detail::c_arg(what, "image.content_type", image.content_type, image_type))
            return *e;
        if (mask != nullptr) {
            if (auto e = detail::c_arg(what, "mask.filename", mask->filename, mask_name)) return *e;
            if (auto e = detail::c_arg(what, "mask.content_type", mask->content_type, mask_type))
                return *e;
        }
        const auto to_c = [](const File& f, const std::string& name, const std::string& type) {
            gw_file c{};
            c.struct_size = sizeof(gw_file);
            c.data = reinterpret_cast<const std::uint8_t*>(f.bytes.data());
            c.len = f.bytes.size();
            c.filename = name.empty() ? nullptr : name.c_str();
            c.content_type = type.empty() ? nullptr : type.c_str();
            return c;
        };
        const gw_file img = to_c(image, image_name, image_type);
        gw_file msk{};
        if (mask != nullptr) msk = to_c(*mask, mask_name, mask_type);
        return call(what, o, [&](gw_client* h, char** out) {
            return gw_image_edit_upload(h, req.c_str(), &img, mask != nullptr ? &msk : nullptr, out);
        });
    }

    template <class P>
    Result<std::string> wait(VideoFamily family, std::string_view task_id, const WaitOptions& w,
                             P* progress, const CallOptions& o) const
    {
        constexpr const char* what = "gw::Client::video_wait";
        std::string id;
        if (auto e = detail::c_arg(what, "task_id", task_id, id)) return *e;
        const std::string wopts = w.to_json();
        auto r = call(what, o, [&](gw_client* h, char** out) {
            if constexpr (std::is_same_v<P, detail::NoProgress>) {
                return gw_video_wait(h, static_cast<int>(family), id.c_str(),
                                     wopts.empty() ? nullptr : wopts.c_str(), nullptr, nullptr, out);
            } else {
                return gw_video_wait(h, static_cast<int>(family), id.c_str(),
                                     wopts.empty() ? nullptr : wopts.c_str(), &P::call, progress, out);
            }
        });
#if GW_CPP_EXCEPTIONS
        if constexpr (!std::is_same_v<P, detail::NoProgress>) {
            if (progress->thrown) std::rethrow_exception(progress->thrown);
        }
#endif
        return r;
    }

    Result<Stream> open_stream(const char* what, OpenFn fn, std::string_view request_json,
                               const CallOptions& o) const
    {
        std::string req;
        if (auto e = detail::c_arg(what, "request_json", request_json, req)) return *e;
        auto handle = detail::CallHandle::open(h_, o, what);
        if (!handle) return handle.error();
        gw_stream* s = nullptr;
        char* out = nullptr;
        const int st = fn(handle->get(), req.c_str(), &s, &out);
        detail::CString owned(out);
        if (st != GW_OK || s == nullptr) {
            gw_stream_free(s);
            ResponseMeta meta = handle->meta();
            if (o.meta != nullptr) *o.meta = meta;
            return Error(st != GW_OK ? st : GW_INTERNAL, owned.str(), std::move(meta), what);
        }
        return Stream(std::move(*handle), s, what);
    }

    // The callback form of a stream: pulls every event into on_event, then finishes.
    template <class F>
    static Result<std::string> drive(Result<Stream> opened, F& on_event, const CallOptions& o)
    {
        if (!opened) return opened.error();
        Stream& stream = *opened;
        Event ev;
        for (;;) {
            auto more = stream.try_next(ev);
            if (!more || !*more) break;
            bool go = true;
#if GW_CPP_EXCEPTIONS
            try {
                go = detail::keep_going(on_event, static_cast<const Event&>(ev));
            } catch (...) {
                stream.cancel();  // the Stream's destructor then closes the connection
                throw;
            }
#else
            go = detail::keep_going(on_event, static_cast<const Event&>(ev));
#endif
            if (!go) {
                stream.cancel();  // finish() below reports GW_CANCELLED
                break;
            }
        }
        auto result = stream.try_finish();
        if (o.meta != nullptr) *o.meta = stream.meta();
        return result;
    }

    gw_client* h_ = nullptr;
};

}  // namespace gw

#endif  // GW_CPP_CLIENT_HPP
