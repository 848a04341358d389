// Internals every call shares: owned gw strings, C-string arguments, and the per-call handle
// (derived from the client, registered with the call's CancelToken while the call runs).
#ifndef GW_CPP_CALL_HPP
#define GW_CPP_CALL_HPP

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cancel.hpp"
#include "config.hpp"
#include "error.hpp"
#include "options.hpp"

namespace gw {
namespace detail {

// A string gw returned, freed with gw_free.
class CString {
public:
    explicit CString(char* p = nullptr) noexcept : p_(p) {}
    CString(const CString&) = delete;
    CString& operator=(const CString&) = delete;
    ~CString() { gw_free(p_); }
    std::string str() const { return p_ ? std::string(p_) : std::string(); }

private:
    char* p_;
};

// Copies `in` into `out` as a C string; a NUL byte inside would silently cut it, so it is
// refused naming the argument.
inline std::optional<Error> c_arg(std::string_view context, std::string_view name,
                                  std::string_view in, std::string& out)
{
    const auto nul = in.find('\0');
    if (nul != std::string_view::npos)
        return usage_error(context, std::string(name) + ": contains a NUL byte at offset " +
                                        std::to_string(nul));
    out.assign(in);
    return std::nullopt;
}

// The handle one call runs on: gw_client_create_derived(base, overrides) (cheap: the pool is
// shared), registered with the call's CancelToken until it is destroyed, then freed.
class CallHandle {
public:
    CallHandle() = default;
    CallHandle(CallHandle&& o) noexcept
        : h_(std::exchange(o.h_, nullptr)), token_(std::move(o.token_))
    {
    }
    CallHandle& operator=(CallHandle&& o) noexcept
    {
        if (this != &o) {
            release();
            h_ = std::exchange(o.h_, nullptr);
            token_ = std::move(o.token_);
        }
        return *this;
    }
    CallHandle(const CallHandle&) = delete;
    CallHandle& operator=(const CallHandle&) = delete;
    ~CallHandle() { release(); }

    static Result<CallHandle> open(const gw_client* base, const CallOptions& o,
                                   std::string_view context)
    {
        if (base == nullptr)
            return usage_error(context, "this gw::Client was moved from (it has no handle)");
        const std::string overrides = o.to_json();
        gw_client* h = nullptr;
        char* err = nullptr;
        const int st = gw_client_create_derived(
            base, overrides.empty() ? nullptr : overrides.c_str(), &h, &err);
        CString owned(err);
        if (st != GW_OK || h == nullptr) {
            if (h != nullptr) gw_client_free(h);
            return Error(st != GW_OK ? st : GW_INTERNAL, owned.str(), {}, context);
        }
        CallHandle ch;
        ch.h_ = h;
        if (o.cancel) {
            ch.token_ = *o.cancel;
            ch.token_->add(h);  // cancels h at once when the token already is
        }
        return ch;
    }

    gw_client* get() const noexcept { return h_; }

    // From any thread: the call(s) on this handle end with GW_CANCELLED.
    void cancel() const noexcept
    {
        if (h_ != nullptr) gw_client_cancel(h_);
    }

    // The metadata of the last exchange finished on this handle (empty when none).
    ResponseMeta meta() const
    {
        if (h_ == nullptr) return ResponseMeta();
        char* out = nullptr;
        const int st = gw_client_last_response(h_, &out);
        CString owned(out);
        return st == GW_OK ? ResponseMeta(owned.str()) : ResponseMeta();
    }

private:
    void release() noexcept
    {
        if (h_ == nullptr) return;
        if (token_) token_->remove(h_);
        gw_client_free(h_);
        h_ = nullptr;
        token_.reset();
    }

    gw_client* h_ = nullptr;
    std::optional<CancelToken> token_;
};

}  // namespace detail
}  // namespace gw

#endif  // GW_CPP_CALL_HPP
