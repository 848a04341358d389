// gw::Event and gw::Stream: a chat or Responses stream pulled one event at a time
// (gw_stream_next), usable in a range-for.
#ifndef GW_CPP_STREAM_HPP
#define GW_CPP_STREAM_HPP

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "call.hpp"
#include "config.hpp"
#include "error.hpp"

namespace gw {

// One streamed event, copied out of gw (it may be kept).
struct Event {
    std::string name;  // SSE event name: "message" (chat), "response.output_text.delta", ...
    std::string data;  // the event's JSON text
    // The text the event adds (chat delta.content, Responses delta); nullopt when none.
    std::optional<std::string> text_delta;
    std::size_t index = 0;         // 0-based position among the delivered events
    std::size_t choice_index = 0;  // chat: the choice text_delta belongs to

    // text_delta, or "" when the event carries no text.
    std::string_view text() const noexcept
    {
        return text_delta ? std::string_view(*text_delta) : std::string_view();
    }
};

// An open stream. Iterate it (each event once), or call next(); then finish() gives the
// assembled result (a chat.completion, or the Responses `response`). Breaking out early is
// fine: destroying the Stream closes the connection. cancel() may be called from another
// thread. A failure ends the iteration with a thrown gw::Error; without exceptions the
// iteration just stops and error() / try_finish() tell why. Not copyable; movable.
class Stream {
public:
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = Event;
        using difference_type = std::ptrdiff_t;
        using pointer = const Event*;
        using reference = const Event&;

        iterator() = default;
        reference operator*() const { return s_->current_; }
        pointer operator->() const { return &s_->current_; }
        iterator& operator++()
        {
            s_->step();
            if (!s_->has_current_) s_ = nullptr;
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator& a, const iterator& b) noexcept
        {
            return a.s_ == b.s_;
        }
        friend bool operator!=(const iterator& a, const iterator& b) noexcept
        {
            return a.s_ != b.s_;
        }

    private:
        friend class Stream;
        explicit iterator(Stream* s) noexcept : s_(s) {}
        Stream* s_ = nullptr;
    };

    Stream() = default;
    Stream(Stream&& o) noexcept
        : handle_(std::move(o.handle_)), s_(std::exchange(o.s_, nullptr)),
          context_(std::move(o.context_)), current_(std::move(o.current_)),
          has_current_(std::exchange(o.has_current_, false)),
          ended_(std::exchange(o.ended_, true)), error_(std::move(o.error_))
    {
    }
    Stream& operator=(Stream&& o) noexcept
    {
        if (this != &o) {
            close();
            handle_ = std::move(o.handle_);
            s_ = std::exchange(o.s_, nullptr);
            context_ = std::move(o.context_);
            current_ = std::move(o.current_);
            has_current_ = std::exchange(o.has_current_, false);
            ended_ = std::exchange(o.ended_, true);
            error_ = std::move(o.error_);
        }
        return *this;
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() { close(); }

    // Starts at the next event not yet handed out (pulling it when needed).
    iterator begin()
    {
        if (!has_current_ && !ended_) step();
        return has_current_ ? iterator(this) : iterator();
    }
    iterator end() noexcept { return iterator(); }

    // Pulls the next event into `ev`: true, or false after the last one. The failure that
    // ends a stream is returned as the Error.
    Result<bool> try_next(Event& ev)
    {
        if (s_ == nullptr) return closed_error();
        if (error_) return *error_;
        if (ended_) return false;
        const gw_event* e = nullptr;
        const int st = gw_stream_next(s_, &e);
        if (st == GW_OK && e != nullptr) {
            ev.name.assign(e->event != nullptr ? e->event : "");
            ev.data.assign(e->data != nullptr ? e->data : "", e->data != nullptr ? e->data_len : 0);
            if (e->text_delta != nullptr)
                ev.text_delta.emplace(e->text_delta, e->text_delta_len);
            else
                ev.text_delta.reset();
            ev.index = e->index;
            ev.choice_index = e->choice_index;
            return true;
        }
        ended_ = true;
        if (st == GW_DONE) return false;
        // gw_stream_next gives only the status; the error JSON comes from gw_stream_finish,
        // which repeats the same failure.
        char* out = nullptr;
        gw_stream_finish(s_, &out);
        detail::CString owned(out);
        error_.emplace(st == GW_OK ? GW_INTERNAL : st, owned.str(), handle_.meta(), context_);
        return *error_;
    }

    // The assembled result. Called before the end, it reads (and drops) the events left.
    Result<std::string> try_finish()
    {
        if (s_ == nullptr) return closed_error();
        char* out = nullptr;
        const int st = gw_stream_finish(s_, &out);
        detail::CString owned(out);
        ended_ = true;
        has_current_ = false;
        if (st == GW_OK) return owned.str();
        if (!error_) error_.emplace(st, owned.str(), handle_.meta(), context_);
        return *error_;
    }

#if GW_CPP_EXCEPTIONS
    bool next(Event& ev) { return try_next(ev).value(); }
    std::string finish() { return try_finish().value(); }
#endif

    // From any thread: the stream ends with GW_CANCELLED (within ~50 ms).
    void cancel() const noexcept { handle_.cancel(); }

    // The failure that ended the stream, or nullptr.
    const Error* error() const noexcept { return error_ ? &*error_ : nullptr; }
    // True once the last event was pulled, or the stream failed or was finished.
    bool done() const noexcept { return ended_ && !has_current_; }
    // The stream's response metadata (status, request id, headers) once gw recorded it.
    ResponseMeta meta() const { return handle_.meta(); }

private:
    friend class Client;

    Stream(detail::CallHandle handle, gw_stream* s, std::string context)
        : handle_(std::move(handle)), s_(s), context_(std::move(context)), ended_(false)
    {
    }

    Error closed_error() const
    {
        return detail::usage_error(context_.empty() ? "gw::Stream" : context_,
                                   "this gw::Stream was moved from or never opened");
    }

    // Advances the iteration: the next event becomes current, or the iteration ends
    // (throwing the failure when exceptions are on).
    void step()
    {
        auto r = try_next(current_);
        has_current_ = r.ok() && *r;
#if GW_CPP_EXCEPTIONS
        if (!r.ok()) throw r.error();
#endif
    }

    void close() noexcept
    {
        gw_stream_free(s_);  // NULL is fine
        s_ = nullptr;
        handle_ = detail::CallHandle();
    }

    detail::CallHandle handle_;
    gw_stream* s_ = nullptr;
    std::string context_;
    Event current_;
    bool has_current_ = false;
    bool ended_ = true;
    std::optional<Error> error_;
};

}  // namespace gw

#endif  // GW_CPP_STREAM_HPP
