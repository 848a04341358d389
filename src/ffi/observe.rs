//! `gw_client_create_observed`: a derived handle that reports the start and end of
//! every attempt to a C callback (tracing, metrics).

use std::ffi::{c_char, c_void, CString};
use std::os::raw::c_int;
use std::sync::Arc;

use crate::{AttemptEvent, AttemptPhase, CallOptions, Observer};

use super::args;
use super::client::hand_out_into;
use super::handle::gw_client;
use super::user_data::UserData;

/// `gw_attempt.phase` of an attempt about to be sent.
pub const GW_ATTEMPT_START: c_int = 0;
/// `gw_attempt.phase` of an attempt that got an answer's head or failed.
pub const GW_ATTEMPT_END: c_int = 1;

/// One attempt's start or end, handed to a `gw_attempt_cb`. Every pointer is owned
/// by gw and valid only during the callback: copy what you keep.
#[repr(C)]
pub struct gw_attempt {
    /// `sizeof(gw_attempt)` of this version of gw: fields are only ever added at the end.
    pub struct_size: usize,
    /// `GW_ATTEMPT_START` or `GW_ATTEMPT_END`.
    pub phase: c_int,
    /// "GET" or "POST". Never NULL.
    pub method: *const c_char,
    /// The API path with its query, never with the key (e.g. "/v1/chat/completions").
    /// Never NULL.
    pub path: *const c_char,
    /// 1-based, counting every attempt of the call (retries, stream reopenings).
    pub attempt: u32,
    /// End: the HTTP status of the answer (after redirects), or a negative GW_* code
    /// when there was none (GW_NETWORK, GW_TIMEOUT, GW_CANCELLED, ...). Start: 0.
    pub status: c_int,
    /// End: microseconds from the attempt's start to the answer's head (or the
    /// failure). Start: 0.
    pub elapsed_us: u64,
    /// End: the answer's request id (x-request-id, request-id, openai-request-id),
    /// or NULL.
    pub request_id: *const c_char,
    /// The request body's size in bytes (0 without a body).
    pub request_bytes: u64,
    /// End: the answer's Content-Length, or -1 when it gave none (a stream, a
    /// chunked answer, a failure). Start: -1.
    pub response_bytes: i64,
}

/// Told of each attempt of a call on an observed handle, on the thread of the
/// call, at its start and at its end. Keep it short: the call waits for it. It may
/// call gw functions other than on the same handle's call in progress.
///
/// The callback must return normally: it must never throw a C++ exception,
/// `longjmp` out, or unwind (a Rust panic, a foreign exception) across gw.
pub type gw_attempt_cb =
    Option<unsafe extern "C" fn(attempt: *const gw_attempt, user_data: *mut c_void)>;

fn observer(
    cb: unsafe extern "C" fn(*const gw_attempt, *mut c_void),
    user_data: UserData,
) -> Observer {
    Observer(Arc::new(move |ev: &AttemptEvent<'_>| {
        let text = |s: &str| CString::new(s).unwrap_or_default();
        let (method, path) = (text(ev.method), text(ev.path));
        let request_id = ev.request_id.map(text);
        let attempt = gw_attempt {
            struct_size: std::mem::size_of::<gw_attempt>(),
            phase: match ev.phase {
                AttemptPhase::Start => GW_ATTEMPT_START,
                AttemptPhase::End => GW_ATTEMPT_END,
            },
            method: method.as_ptr(),
            path: path.as_ptr(),
            attempt: ev.attempt,
            status: ev.status,
            elapsed_us: u64::try_from(ev.elapsed.as_micros()).unwrap_or(u64::MAX),
            request_id: request_id.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            request_bytes: ev.request_bytes,
            response_bytes: ev
                .response_bytes
                .and_then(|n| i64::try_from(n).ok())
                .unwrap_or(-1),
        };
        // SAFETY: the caller's callback, with a struct valid for the call.
        unsafe { cb(&attempt, user_data.get()) }
    }))
}

/// `gw_client_create_derived` with an attempt callback: the new handle (and handles
/// derived from it) calls `cb` with `user_data` at the start and at the end of every
/// attempt of every call made on it (a retry is a new attempt; a redirect is part
/// of its attempt). `cb` must not be NULL. Other handles are not observed, and
/// cost nothing. Returns `GW_OK` with the handle in `*client`, or a status with
/// `*client` NULL and the error JSON in `*err_json` (may be NULL).
#[no_mangle]
pub unsafe extern "C" fn gw_client_create_observed(
    base: *const gw_client,
    options_json: *const c_char,
    cb: gw_attempt_cb,
    user_data: *mut c_void,
    client: *mut *mut gw_client,
    err_json: *mut *mut c_char,
) -> c_int {
    hand_out_into(client, err_json, || {
        let base = args::client(base)
            .map_err(|_| crate::Error::invalid_param("base", "base: must not be NULL"))?;
        let cb = cb.ok_or_else(|| crate::Error::invalid_param("cb", "cb: must not be NULL"))?;
        let json = args::optional_text(options_json, "options_json")?.unwrap_or("");
        base.observed(
            &CallOptions::from_json(json)?,
            observer(cb, UserData(user_data)),
        )
    })
}
