//! Chat completions and the Responses format, plain and streamed.

use std::ffi::{c_char, c_void};
use std::os::raw::c_int;

use crate::api::ops::{self, Operation};
use crate::StreamEvent;

use super::args;
use super::event::gw_event_cb;
use super::event_buffers::EventBuffers;
use super::guard::call;
use super::handle::gw_client;
use super::op::json_op;

/// POST /v1/chat/completions. `request_json` is the request body (passed
/// through: fields gw does not know reach the gateway untouched); documented
/// limits are checked first unless the client has `"validate": false`.
/// `"stream": true` is refused here: use `gw_chat_stream`.
///
/// Returns `GW_OK` with the `chat.completion` JSON in `*out`, or a status with
/// the error JSON `{"error":{"message","type","code","status"}}` in `*out`.
/// `*out` is freed with `gw_free`; `out` may be NULL.
/// Thread-safe: many threads may call this on one client at once.
#[no_mangle]
pub unsafe extern "C" fn gw_chat(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::CHAT, &[], request_json, out)
}

/// POST /v1/chat/completions with `"stream": true` (set by gw).
///
/// `callback` (may be NULL) is called once per chunk with the text delta
/// already extracted. On success `*out` holds a `chat.completion` assembled
/// from the chunks; with `out` NULL nothing is assembled, so memory stays flat
/// however long the stream (the events are all you get). A stream that ends before `data: [DONE]` is `GW_STREAM`,
/// an error object inside the stream is `GW_STREAM`, a line over
/// `max_line_bytes` is `GW_TOO_LARGE`, a non-zero callback return is
/// `GW_CANCELLED`. A stream is never retried once an event reached the callback.
#[no_mangle]
pub unsafe extern "C" fn gw_chat_stream(
    client: *const gw_client,
    request_json: *const c_char,
    callback: gw_event_cb,
    user_data: *mut c_void,
    out: *mut *mut c_char,
) -> c_int {
    streamed(client, request_json, callback, user_data, out, &ops::CHAT)
}

/// POST /v1/responses (the Responses format). Ownership and errors as `gw_chat`.
#[no_mangle]
pub unsafe extern "C" fn gw_responses(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::RESPONSES, &[], request_json, out)
}

/// POST /v1/responses with `"stream": true`. Events carry their `event:` name;
/// `text_delta` is set for `response.output_text.delta`. On success `*out` is
/// the `response` object of `response.completed`, or of `response.incomplete`
/// (`status` "incomplete", e.g. max_output_tokens reached); `error` and
/// `response.failed` events (the error JSON then holds the failed `response`),
/// or an end before a terminal event, are `GW_STREAM`. Callback rules as
/// `gw_chat_stream`.
#[no_mangle]
pub unsafe extern "C" fn gw_responses_stream(
    client: *const gw_client,
    request_json: *const c_char,
    callback: gw_event_cb,
    user_data: *mut c_void,
    out: *mut *mut c_char,
) -> c_int {
    streamed(
        client,
        request_json,
        callback,
        user_data,
        out,
        &ops::RESPONSES,
    )
}

unsafe fn streamed(
    client: *const gw_client,
    request_json: *const c_char,
    callback: gw_event_cb,
    user_data: *mut c_void,
    out: *mut *mut c_char,
    op: &Operation,
) -> c_int {
    call(out, || {
        let client = args::client(client)?;
        let mut spare = String::new();
        let body = args::json_object(request_json, "request_json", &mut spare)?;
        let mut buffers = EventBuffers::default();
        let mut deliver = |ev: &StreamEvent<'_>| match callback {
            None => true,
            Some(cb) => cb(&buffers.expose(ev), user_data) == 0,
        };
        if out.is_null() {
            // Nobody takes the assembled answer: don't build it (flat memory).
            client.stream_events_text(op, &body, &mut deliver)?;
            Ok(String::new())
        } else {
            client.stream_text(op, &body, &mut deliver)
        }
    })
}
