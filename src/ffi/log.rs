//! `gw_set_logger`: gw's log lines to a C callback.

use std::ffi::{c_char, c_void};
use std::os::raw::c_int;
use std::sync::Arc;

use crate::log::{self, Level};

use super::args;
use super::guard::catch;
use super::user_data::UserData;

/// Error: a call failed.
pub const GW_LOG_ERROR: c_int = 1;
/// Warning: a call failed (the line names the call and the error).
pub const GW_LOG_WARN: c_int = 2;
/// Info: a retry (reason and delay) or a redirect.
pub const GW_LOG_INFO: c_int = 3;
/// Debug: each request attempt, each stream end.
pub const GW_LOG_DEBUG: c_int = 4;
/// Trace: everything.
pub const GW_LOG_TRACE: c_int = 5;

/// Receives one log line (`message`, valid during the call only) at `level`
/// (`GW_LOG_*`). Called on the thread of the gw call that logs, never while gw
/// holds a lock, so it may call gw.
///
/// The callback must return normally: it must never throw a C++ exception,
/// `longjmp` out, or unwind (a Rust panic, a foreign exception) across gw.
/// gw cannot catch those: an exception reaching gw aborts the process, and a
/// `longjmp` over gw's frames is undefined behaviour (locks, connections and
/// handles it holds are never released).
/// Catch everything inside the callback (the C++
/// wrapper in bindings/cpp does this for its users).
pub type gw_log_cb =
    Option<unsafe extern "C" fn(level: c_int, message: *const c_char, user_data: *mut c_void)>;

/// Sets the process-wide logger: one line per request attempt, retry (with the
/// reason and the delay), redirect, stream end and failure, at most
/// `max_level` (`GW_LOG_ERROR` .. `GW_LOG_TRACE`). The API key, `?key=` values
/// and Authorization headers never appear in a line. NULL `cb` turns logging
/// off. Replaces any earlier logger; safe to call from any thread.
///
/// When it returns (called from outside a log callback), the callback it
/// replaced is not running on any thread and is never called again: its
/// `user_data` may be freed then. It waits for calls of the old callback in
/// progress on other threads to return. Called from inside a log callback it
/// cannot wait for that callback (it is the one running): it then returns at
/// once, and the old `user_data` must live until that callback returns.
/// Because it waits, do not call it while holding a lock that the old callback
/// takes: a call of that callback on another thread would wait for the lock and
/// this function for the call.
#[no_mangle]
pub unsafe extern "C" fn gw_set_logger(cb: gw_log_cb, user_data: *mut c_void, max_level: c_int) {
    catch((), || {
        let level = match max_level {
            i32::MIN..=GW_LOG_ERROR => Level::Error,
            GW_LOG_WARN => Level::Warn,
            GW_LOG_INFO => Level::Info,
            GW_LOG_DEBUG => Level::Debug,
            _ => Level::Trace,
        };
        let sink = cb.map(|cb| {
            let data = UserData(user_data);
            Arc::new(move |level: Level, line: &str| {
                let text = args::c_string(line);
                // SAFETY: the caller's callback, with the pointer it gave us.
                unsafe { cb(level as c_int, text.as_ptr(), data.get()) };
            }) as log::LogSink
        });
        log::set_logger(sink, level);
    })
}
