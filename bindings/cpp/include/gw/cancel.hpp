// gw::CancelToken: stops calls from another thread.
#ifndef GW_CPP_CANCEL_HPP
#define GW_CPP_CANCEL_HPP

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "config.hpp"

namespace gw {

namespace detail {
class CallHandle;
}

// Give a token to calls through CallOptions::cancel; cancel() from any thread then makes
// every call in flight with it fail with GW_CANCELLED within ~50 ms (connect, upload, waiting,
// streaming, retry backoff, video_wait's sleep), and every later call with it fail at once
// without sending. A token stays cancelled. Copies share one state, so a copy captured by
// another thread cancels the original's calls.
class CancelToken {
public:
    CancelToken() : s_(std::make_shared<State>()) {}

    void cancel() const noexcept
    {
        std::lock_guard<std::mutex> lock(s_->mutex);
        s_->cancelled = true;
        for (gw_client* h : s_->handles) gw_client_cancel(h);
    }

    bool cancelled() const noexcept
    {
        std::lock_guard<std::mutex> lock(s_->mutex);
        return s_->cancelled;
    }

private:
    friend class detail::CallHandle;

    // The per-call handles of the calls running with this token. A handle is removed (under
    // the mutex) before it is freed, so cancel() never touches a freed handle.
    struct State {
        std::mutex mutex;
        bool cancelled = false;
        std::vector<gw_client*> handles;
    };

    void add(gw_client* h) const
    {
        std::lock_guard<std::mutex> lock(s_->mutex);
        s_->handles.push_back(h);
        if (s_->cancelled) gw_client_cancel(h);
    }

    void remove(gw_client* h) const noexcept
    {
        std::lock_guard<std::mutex> lock(s_->mutex);
        auto& hs = s_->handles;
        hs.erase(std::remove(hs.begin(), hs.end(), h), hs.end());
    }

    std::shared_ptr<State> s_;
};

}  // namespace gw

#endif  // GW_CPP_CANCEL_HPP
