//! The event a stream hands to C (`gw_event`) and the callback type that takes
//! it (`gw_event_cb`).

use std::ffi::{c_char, c_void};
use std::os::raw::c_int;

/// One streamed event, handed to a `gw_event_cb`.
///
/// Every pointer is owned by gw and valid only during the callback: copy what
/// you keep.
#[repr(C)]
pub struct gw_event {
    /// The SSE event name: "message" for chat chunks, e.g.
    /// "response.output_text.delta" for the Responses format (a Responses
    /// event sent without an `event:` line is named by its data's `type`).
    /// Never NULL.
    pub event: *const c_char,
    /// The event's data, a JSON text. Never NULL.
    pub data: *const c_char,
    pub data_len: usize,
    /// The text fragment the event carries (chat `delta.content`, Responses
    /// `delta`), or NULL when it carries none. Print it as it comes.
    pub text_delta: *const c_char,
    pub text_delta_len: usize,
    /// 0-based position of the event in the stream.
    pub index: usize,
    /// Chat: the choice `text_delta` belongs to. With `n` > 1 a chunk that
    /// carries text for several choices is delivered as one event per choice
    /// (sharing `data`), so printing `text_delta` of choice 0 never interleaves
    /// two answers. 0 for events without a choice.
    pub choice_index: usize,
}

impl gw_event {
    pub(crate) fn empty() -> gw_event {
        gw_event {
            event: std::ptr::null(),
            data: std::ptr::null(),
            data_len: 0,
            text_delta: std::ptr::null(),
            text_delta_len: 0,
            index: 0,
            choice_index: 0,
        }
    }
}

/// Called once per streamed event, on the thread that called the stream
/// function. Return 0 to go on, non-zero to cancel: the connection is dropped
/// and the call returns `GW_CANCELLED`.
///
/// The callback must return normally: it must never throw a C++ exception,
/// `longjmp` out, or unwind (a Rust panic, a foreign exception) across gw.
/// gw cannot catch those: an exception reaching gw aborts the process, and a
/// `longjmp` over gw's frames is undefined behaviour (locks, connections and
/// handles it holds are never released).
/// Catch everything inside the callback and return non-zero to stop (the C++
/// wrapper in bindings/cpp does this for its users).
pub type gw_event_cb =
    Option<unsafe extern "C" fn(event: *const gw_event, user_data: *mut c_void) -> c_int>;
