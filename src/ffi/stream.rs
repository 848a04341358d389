//! Pull streams: open, next, finish, free. The callback functions
//! (`gw_chat_stream`, `gw_responses_stream`) run on the same stream driver.

use std::ffi::c_char;
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::api::ops::{self, Operation};
use crate::error::{Error, GW_DONE, GW_INTERNAL, GW_INVALID_ARGUMENT, GW_OK, GW_WOULD_BLOCK};
use crate::EventStream;

use super::args;
use super::error_slot::set_last_error;
use super::event::gw_event;
use super::event_buffers::EventBuffers;
use super::guard::{call, catch, panic_error, report};
use super::handle::gw_client;

/// An open stream whose events the caller pulls with `gw_stream_next`.
///
/// Use one stream from one thread at a time (it may move between threads
/// between calls). Cancel it with `gw_client_cancel` on the handle it was
/// opened on. Free it with `gw_stream_free`.
pub struct gw_stream {
    inner: EventStream<'static>,
    /// The current event's texts as C strings.
    buffers: EventBuffers,
    event: gw_event,
    /// The status every call after the end returns (GW_DONE or the failure).
    ended: Option<c_int>,
}

impl gw_stream {
    fn new(inner: EventStream<'static>) -> gw_stream {
        gw_stream {
            inner,
            buffers: EventBuffers::default(),
            event: gw_event::empty(),
            ended: None,
        }
    }

    fn step(&mut self) -> c_int {
        if let Some(status) = self.ended {
            return status;
        }
        let advanced = self.inner.advance().map(Some);
        self.settle(advanced)
    }

    /// As `step`, from the bytes already read only (`EventStream::advance_buffered`).
    fn step_buffered(&mut self) -> c_int {
        if let Some(status) = self.ended {
            return status;
        }
        let advanced = self.inner.advance_buffered();
        self.settle(advanced)
    }

    /// The status of an advance (None: it stopped short of a read), the event
    /// exposed when there is one, the end recorded when it is one.
    #[inline(always)]
    fn settle(&mut self, advanced: Result<Option<bool>, Error>) -> c_int {
        let status = match advanced {
            Ok(None) => return GW_WOULD_BLOCK,
            Ok(Some(true)) => {
                if let Some(ev) = self.inner.current() {
                    self.event = self.buffers.expose(&ev);
                }
                return GW_OK;
            }
            Ok(Some(false)) => GW_DONE,
            Err(e) => {
                set_last_error(&e.to_string());
                e.status()
            }
        };
        self.ended = Some(status);
        status
    }
}

/// POST /v1/chat/completions with `"stream": true` (set by gw), pulled: sends
/// the request and waits for the answer's headers (retrying as any call does).
///
/// Returns `GW_OK` with the stream in `*stream` (and `*out` NULL), or a
/// failure status with `*stream` NULL and the error JSON in `*out` (as for
/// `gw_chat`). Then call `gw_stream_next` until it returns `GW_DONE` or a
/// failure, `gw_stream_finish` for the assembled `chat.completion`, and
/// `gw_stream_free`. `stream` must not be NULL; `out` may be NULL.
#[no_mangle]
pub unsafe extern "C" fn gw_chat_stream_open(
    client: *const gw_client,
    request_json: *const c_char,
    stream: *mut *mut gw_stream,
    out: *mut *mut c_char,
) -> c_int {
    open(client, request_json, stream, out, &ops::CHAT)
}

/// POST /v1/responses with `"stream": true`, pulled; as `gw_chat_stream_open`.
/// `gw_stream_finish` gives the `response` of `response.completed` (or of
/// `response.incomplete`).
#[no_mangle]
pub unsafe extern "C" fn gw_responses_stream_open(
    client: *const gw_client,
    request_json: *const c_char,
    stream: *mut *mut gw_stream,
    out: *mut *mut c_char,
) -> c_int {
    open(client, request_json, stream, out, &ops::RESPONSES)
}

unsafe fn open(
    client: *const gw_client,
    request_json: *const c_char,
    stream: *mut *mut gw_stream,
    out: *mut *mut c_char,
    op: &Operation,
) -> c_int {
    report(out, || {
        args::put(stream, std::ptr::null_mut());
        if stream.is_null() {
            return Err(Error::invalid_param("stream", "stream: must not be NULL"));
        }
        let client = args::client(client)?;
        let mut spare = String::new();
        let body = args::json_object(request_json, "request_json", &mut spare)?;
        let opened = client.stream_open_text(op, &body)?;
        *stream = Box::into_raw(Box::new(gw_stream::new(opened)));
        Ok(())
    })
}

/// Moves to the next event of `stream`.
///
/// Returns `GW_OK` with `*event` pointing at the event (owned by the stream,
/// valid until the next call on it); `GW_DONE` after the terminal event (chat:
/// `data: [DONE]`, not itself an event; Responses: after `response.completed`
/// or `response.incomplete` was handed out); or a failure status (`GW_STREAM`, `GW_NETWORK`,
/// `GW_TIMEOUT`, `GW_CANCELLED`, `GW_TOO_LARGE`, `GW_DECODE`, ...) whose error
/// JSON `gw_stream_finish` gives. After `GW_DONE` or a failure every further
/// call returns the same status. `*event` is NULL unless `GW_OK`.
#[no_mangle]
pub unsafe extern "C" fn gw_stream_next(
    stream: *mut gw_stream,
    event: *mut *const gw_event,
) -> c_int {
    next(stream, event, gw_stream::step)
}

/// As `gw_stream_next`, but never reads the socket (nor waits, sleeps or
/// connects): the next event from the bytes gw has already read, for a caller
/// that must not block (an event loop, Swift's cooperative pool) to take the
/// events of a burst without a hop to a thread that may block.
///
/// Returns what `gw_stream_next` would (`GW_OK` with `*event`, a failure
/// status, `GW_DONE` once the stream ended) when the bytes already read decide
/// it, or `GW_WOULD_BLOCK` (3, not an error, `*event` NULL) when
/// `gw_stream_next` would read to go on: the next event is not whole in gw's
/// read buffer, no byte came yet, or the terminal event was seen and the rest
/// of the body (read so the connection is reused) is still to be read: there
/// `gw_stream_next` returns `GW_DONE`. Nothing is lost by `GW_WOULD_BLOCK`: the
/// stream goes on where it stopped. Calls of the two may be mixed in any order:
/// the events, their texts and `gw_stream_finish`'s answer are those
/// `gw_stream_next` alone gives. `*event` is owned by the stream and valid
/// until the next call on it, as for `gw_stream_next`; a cancel
/// (`gw_client_cancel`) and the caps act the same. One thread at a time per
/// stream, as for `gw_stream_next`; NULL `stream` or `event`:
/// `GW_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn gw_stream_next_buffered(
    stream: *mut gw_stream,
    event: *mut *const gw_event,
) -> c_int {
    next(stream, event, gw_stream::step_buffered)
}

#[inline(always)]
unsafe fn next(
    stream: *mut gw_stream,
    event: *mut *const gw_event,
    step: fn(&mut gw_stream) -> c_int,
) -> c_int {
    // All of it guarded: nothing here may unwind into C, whatever the thread's state.
    catch(GW_INTERNAL, || {
        args::put(event, std::ptr::null());
        let Some(s) = stream.as_mut() else {
            set_last_error("stream: must not be NULL");
            return GW_INVALID_ARGUMENT;
        };
        if event.is_null() {
            set_last_error("event: must not be NULL");
            return GW_INVALID_ARGUMENT;
        }
        match catch_unwind(AssertUnwindSafe(|| step(s))) {
            Ok(GW_OK) => {
                *event = &s.event;
                GW_OK
            }
            Ok(status) => status,
            Err(panic) => {
                let e = panic_error(panic);
                set_last_error(&e.to_string());
                s.ended = Some(e.status());
                e.status()
            }
        }
    })
}

/// The stream's result: `GW_OK` with the assembled final object in `*out`
/// (chat: a `chat.completion`; Responses: the `response`), or the failure
/// status with its error JSON. Called before the end, it first reads the
/// remaining events (they are not handed out). May be called more than once.
/// `*out` is freed with `gw_free`; `out` may be NULL.
#[no_mangle]
pub unsafe extern "C" fn gw_stream_finish(stream: *mut gw_stream, out: *mut *mut c_char) -> c_int {
    call(out, || {
        let s = stream
            .as_mut()
            .ok_or_else(|| Error::invalid_param("stream", "stream: must not be NULL"))?;
        let result = s.inner.finish();
        s.ended.get_or_insert(match &result {
            Ok(_) => GW_DONE,
            Err(e) => e.status(),
        });
        result
    })
}

/// Frees a stream, at any time: mid-stream it closes the connection (never
/// pooled half-read). NULL is fine. Must not be called twice.
#[no_mangle]
pub unsafe extern "C" fn gw_stream_free(stream: *mut gw_stream) {
    catch((), || {
        if !stream.is_null() {
            drop(Box::from_raw(stream));
        }
    })
}
