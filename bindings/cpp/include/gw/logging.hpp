// gw::set_logger: gw's process-wide log lines (attempts, retries, redirects, stream ends,
// failures; keys redacted) handed to any callable.
#ifndef GW_CPP_LOGGING_HPP
#define GW_CPP_LOGGING_HPP

#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>

#include "config.hpp"

namespace gw {

enum class LogLevel : int {
    error = GW_LOG_ERROR,
    warn = GW_LOG_WARN,
    info = GW_LOG_INFO,
    debug = GW_LOG_DEBUG,
    trace = GW_LOG_TRACE,
};

namespace detail {

using LogFn = std::function<void(LogLevel, std::string_view)>;

// The installed callable. gw may log from many threads at once: each line takes a reference
// under the mutex and calls it outside, so replacing the logger never frees one in use.
struct LoggerSlot {
    std::mutex mutex;
    std::shared_ptr<const LogFn> fn;
};

inline LoggerSlot& logger_slot()
{
    static LoggerSlot slot;
    return slot;
}

inline void log_line(int level, const char* message, void*) noexcept
{
    std::shared_ptr<const LogFn> fn;
    {
        std::lock_guard<std::mutex> lock(logger_slot().mutex);
        fn = logger_slot().fn;
    }
    if (!fn) return;
#if GW_CPP_EXCEPTIONS
    // A throwing logger must not unwind through gw or fail the call it reports on: the
    // line is dropped.
    try {
        (*fn)(static_cast<LogLevel>(level), message != nullptr ? message : "");
    } catch (...) {
    }
#else
    (*fn)(static_cast<LogLevel>(level), message != nullptr ? message : "");
#endif
}

}  // namespace detail

// Installs `fn(gw::LogLevel, std::string_view line)` for lines up to `max_level`. It is
// called on the thread making the gw call, possibly on several threads at once.
template <class F>
void set_logger(F&& fn, LogLevel max_level = LogLevel::info)
{
    auto installed = std::make_shared<const detail::LogFn>(std::forward<F>(fn));
    {
        std::lock_guard<std::mutex> lock(detail::logger_slot().mutex);
        detail::logger_slot().fn = std::move(installed);
    }
    gw_set_logger(&detail::log_line, nullptr, static_cast<int>(max_level));
}

// Turns logging off.
inline void clear_logger()
{
    gw_set_logger(nullptr, nullptr, GW_LOG_ERROR);
    std::lock_guard<std::mutex> lock(detail::logger_slot().mutex);
    detail::logger_slot().fn.reset();
}

}  // namespace gw

#endif  // GW_CPP_LOGGING_HPP
