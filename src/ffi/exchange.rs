//! The exchange in C: one call's protocol as a state machine that the caller's
//! own I/O drives (an event loop, Go's net/http, URLSession).

use std::ffi::c_char;
use std::os::raw::c_int;
use std::time::Duration;

use crate::api::ops::{self, Method};
use crate::client::exchange::{Exchange, Spec, Want};
use crate::client::task_wait::Driven;
use crate::error::{
    Error, GW_CANCELLED, GW_INVALID_ARGUMENT, GW_NETWORK, GW_OK, GW_TIMEOUT, GW_WOULD_BLOCK,
};

use super::args;
use super::error_slot::set_last_error;
use super::event::gw_event;
use super::event_buffers::EventBuffers;
use super::exchange_head::{head_map, refused_head};
use super::guard::{call_borrowed, catch, report};
use super::handle::gw_client;
use super::images::{gw_file, upload_form};

/// `gw_exchange_step`: send the request `gw_exchange_request` gives, then feed
/// its answer.
pub const GW_WANT_SEND: c_int = 1;
/// `gw_exchange_step`: feed what the transport gives (the head, body bytes,
/// the end or a failure); step again after `*wait_ms` at the latest even
/// without input (-1: no timer).
pub const GW_WANT_RECEIVE: c_int = 2;
/// `gw_exchange_step`: step again after `*wait_ms` (a backoff before the next
/// attempt); nothing is to be fed meanwhile.
pub const GW_WANT_WAIT: c_int = 3;
/// `gw_exchange_step`: an event is ready (`gw_exchange_event`); step again for
/// the next.
pub const GW_WANT_EVENT: c_int = 4;
/// `gw_exchange_step`: the call is over (`gw_exchange_finish`).
pub const GW_WANT_DONE: c_int = 5;

/// `gw_exchange_new` flag: read the answer as an event stream (the path must
/// be a streaming operation: POST /v1/chat/completions or /v1/responses; gw
/// sets `"stream": true`).
pub const GW_EXCHANGE_STREAM: c_int = 1;
/// `gw_exchange_new` flag, with `GW_EXCHANGE_STREAM`: do not assemble the final
/// object (memory stays flat however long the stream; `gw_exchange_finish`
/// then gives an empty text).
pub const GW_EXCHANGE_EVENTS_ONLY: c_int = 2;

/// One header: NUL-terminated name and value.
#[repr(C)]
pub struct gw_header {
    pub name: *const c_char,
    pub value: *const c_char,
}

/// A run of bytes.
#[repr(C)]
pub struct gw_bytes {
    pub data: *const u8,
    pub len: usize,
}

/// The request to send, as `gw_exchange_request` gives it. Every pointer is
/// owned by the exchange and valid until its next `gw_exchange_request` or
/// `gw_exchange_free`.
#[repr(C)]
pub struct gw_request_view {
    /// "GET" or "POST".
    pub method: *const c_char,
    /// The absolute URL. It holds the API key on `?key=` operations
    /// (`/v1beta/...`): never log it.
    pub url: *const c_char,
    /// The headers to send, User-Agent included (Authorization holds the key:
    /// never log it). No Content-Length: frame the body as your stack does
    /// (its length is `body_len`).
    pub headers: *const gw_header,
    pub header_count: usize,
    /// The body, as pieces to send one after another (no copy of the caller's
    /// JSON or files was made); none for a GET.
    pub body: *const gw_bytes,
    pub body_count: usize,
    pub body_len: u64,
    /// The client's connect timeout (0: none), for the driver's connect. gw
    /// itself times the wait for the answer's head, the silences of the body
    /// and the total deadline (`GW_WANT_RECEIVE`'s `wait_ms`).
    pub connect_timeout_ms: u64,
}

/// One call's exchange, or a video task's wait (`gw_exchange_new_video_wait`).
/// See `gw_exchange_new`.
pub struct gw_exchange {
    /// Either kind: every step, feed, event and outcome goes through `Driven`'s
    /// own methods; it derefs to the exchange whose request is sent.
    inner: Driven,
    view: ViewBuffers,
    events: EventBuffers,
}

/// The texts and arrays a `gw_request_view` points into.
#[derive(Default)]
struct ViewBuffers {
    /// Every text of the view but the method, one after another, each
    /// NUL-terminated: the URL, then each header's name and value (User-Agent
    /// last). One buffer, not a C string each.
    texts: Vec<u8>,
    headers: Vec<gw_header>,
    body: Vec<gw_bytes>,
}

/// Creates an exchange: one call of `method` to `path` (as `gw_request`: a
/// path of a documented operation gets that operation's checks and answer
/// rules) with `request_json` (NULL for a GET), on the handle `client`. With
/// `GW_EXCHANGE_STREAM` in `flags` the answer's events are read.
///
/// The exchange does no I/O: the caller drives it. Loop on
/// `gw_exchange_step` and do what it says: on `GW_WANT_SEND` take the request
/// (`gw_exchange_request`) and send it, feeding back the answer's head
/// (`gw_exchange_feed_head`), its body bytes as they come in any split
/// (`gw_exchange_feed_body`), its end (`gw_exchange_feed_end`) or the
/// transport's failure (`gw_exchange_feed_error`), stepping after each feed; on
/// `GW_WANT_WAIT` step again after `wait_ms`; on `GW_WANT_EVENT` read
/// `gw_exchange_event`; on `GW_WANT_DONE` read `gw_exchange_finish`. A
/// redirect or a retry is a new `GW_WANT_SEND`: drop the old answer (close its
/// connection or read it to its end) and send the new request.
///
/// gw decides everything it decides for its blocking calls, in the same code:
/// limits checked before sending, auth, idempotency keys, retries and backoff,
/// redirects and the cross-origin rule, the deadlines, SSE parsing, chunk
/// assembly, size caps, the handle's `gw_client_last_response` and its
/// attempt observer. Do not follow redirects or retry in the driver.
///
/// No exchange function blocks, sleeps or reads a socket; each returns in
/// microseconds for a typical chunk. The only functions they call are the
/// handle's logger (`gw_set_logger`) and attempt observer
/// (`gw_client_create_observed`), which you set yourself.
///
/// Threads: an exchange is used by one thread at a time (it may move between
/// threads between calls, as a goroutine or a URLSession delegate queue does);
/// nothing in it is thread-local. `gw_client_cancel` on the handle, from any
/// thread, ends it: the next step says `GW_WANT_DONE` with `GW_CANCELLED` (and
/// the driver should cancel its own I/O).
///
/// Returns `GW_OK` with the exchange in `*out_exchange` and `*err_out` NULL,
/// or a failure status (a bad argument, a limit broken: nothing is to be sent)
/// with `*out_exchange` NULL and the error JSON in `*err_out` (freed with
/// `gw_free`; may be NULL). The exchange keeps a counted reference to the
/// handle and a copy of `request_json`. Free it with `gw_exchange_free`.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_new(
    client: *const gw_client,
    method: *const c_char,
    path: *const c_char,
    request_json: *const c_char,
    flags: c_int,
    out_exchange: *mut *mut gw_exchange,
    err_out: *mut *mut c_char,
) -> c_int {
    construct(out_exchange, err_out, || {
        if flags & !(GW_EXCHANGE_STREAM | GW_EXCHANGE_EVENTS_ONLY) != 0 {
            return Err(Error::invalid_param(
                "flags",
                format!("flags: unknown bits in {flags:#x}"),
            ));
        }
        let client = args::client(client)?;
        let method = args::text(method, "method")?;
        let path = args::text(path, "path")?;
        let mut spare = String::new();
        let body = if request_json.is_null() {
            None
        } else {
            Some(args::json_object(request_json, "request_json", &mut spare)?)
        };
        let stream =
            (flags & GW_EXCHANGE_STREAM != 0).then_some(flags & GW_EXCHANGE_EVENTS_ONLY == 0);
        let name = if stream.is_some() {
            "stream"
        } else {
            "request"
        };
        // The spec is made owned before the exchange is built around it: no
        // second move of the whole exchange to free it of the caller's text.
        let exchange = Spec::request(&client, method, path, body.as_ref(), stream)
            .and_then(|spec| Exchange::new(&client, spec.into_owned()))
            .map_err(|e| client.failed(name, e))?;
        Ok(exchange)
    })
}

/// As `gw_exchange_new`, for POST /v1/images/edits as multipart/form-data
/// (`gw_image_edit_upload`'s form: the fields of `request_json` as text parts,
/// then `image` and, when not NULL, `mask` as file parts). The exchange keeps
/// a copy of the encoded form (the files included), so the caller's buffers may
/// be freed once this returns.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_new_image_edit_upload(
    client: *const gw_client,
    request_json: *const c_char,
    image: *const gw_file,
    mask: *const gw_file,
    out_exchange: *mut *mut gw_exchange,
    err_out: *mut *mut c_char,
) -> c_int {
    construct(out_exchange, err_out, || {
        let client = args::client(client)?;
        let op = &ops::IMAGE_EDIT_UPLOAD;
        let spec = upload_form(request_json, image, mask)
            .and_then(|form| Ok(Spec::multipart(&client, op, &[], &form)?.into_owned()));
        let exchange = spec
            .and_then(|spec| Exchange::new(&client, spec))
            .map_err(|e| client.failed(op.name, e))?;
        Ok(exchange)
    })
}

impl gw_exchange {
    pub(super) fn new(inner: impl Into<Driven>) -> gw_exchange {
        gw_exchange {
            inner: inner.into(),
            view: ViewBuffers::default(),
            events: EventBuffers::default(),
        }
    }
}

/// Every constructor: `*out_exchange` is NULL unless `build` gives the exchange, which
/// must not be NULL; a failure is reported through `err_out`.
///
/// # Safety
/// `out_exchange` is NULL or writable, `err_out` NULL or writable (the header's contract).
pub(super) unsafe fn construct<T: Into<Driven>>(
    out_exchange: *mut *mut gw_exchange,
    err_out: *mut *mut c_char,
    build: impl FnOnce() -> Result<T, Error>,
) -> c_int {
    args::put(out_exchange, std::ptr::null_mut());
    report(err_out, || {
        if out_exchange.is_null() {
            return Err(Error::invalid_param(
                "out_exchange",
                "out_exchange: must not be NULL",
            ));
        }
        let exchange = build()?;
        args::put(
            out_exchange,
            Box::into_raw(Box::new(gw_exchange::new(exchange))),
        );
        Ok(())
    })
}

/// The exchange behind a pointer, or the error a NULL one is.
unsafe fn exchange<'a>(ex: *mut gw_exchange) -> Result<&'a mut gw_exchange, Error> {
    ex.as_mut()
        .ok_or_else(|| Error::invalid_param("exchange", "exchange: must not be NULL"))
}

/// A feed's status: GW_OK, or the refusal's (the thread's last error says why).
fn status_of(result: Result<(), Error>) -> c_int {
    match result {
        Ok(()) => GW_OK,
        Err(e) => {
            set_last_error(&e.to_string());
            e.status()
        }
    }
}

/// What the driver is to do next: one of the `GW_WANT_*` values, or
/// `GW_INVALID_ARGUMENT` for a NULL exchange. `wait_ms` (may be NULL) gets,
/// for `GW_WANT_WAIT`, how long to wait before stepping again; for
/// `GW_WANT_RECEIVE`, how long at most before stepping again without input
/// (the total deadline or a read timer falls due then; -1: none); else 0.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_step(ex: *mut gw_exchange, wait_ms: *mut i64) -> c_int {
    catch(GW_INVALID_ARGUMENT, || {
        let ms = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        let ex = match exchange(ex) {
            Ok(ex) => ex,
            Err(e) => return status_of(Err(e)),
        };
        let (want, wait) = match ex.inner.step() {
            Want::Send => (GW_WANT_SEND, 0),
            Want::Receive { wait } => (GW_WANT_RECEIVE, wait.map_or(-1, ms)),
            Want::Wait(d) => (GW_WANT_WAIT, ms(d)),
            Want::Event => (GW_WANT_EVENT, 0),
            Want::Done => (GW_WANT_DONE, 0),
        };
        args::put(wait_ms, wait);
        want
    })
}

/// After `GW_WANT_SEND`: starts the attempt (or the redirect hop) and fills
/// `*out` with the request to send. Returns `GW_OK`; or, when the request
/// cannot be made (the deadline passed, a cancel), that failure's status: the
/// exchange is then over (`GW_WANT_DONE`). `GW_INVALID_ARGUMENT` when no
/// request is due (the last step was not `GW_WANT_SEND`) or `out` is NULL.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_request(
    ex: *mut gw_exchange,
    out: *mut gw_request_view,
) -> c_int {
    catch(GW_INVALID_ARGUMENT, || {
        let result = (|| {
            let ex = exchange(ex)?;
            if out.is_null() {
                return Err(Error::invalid_param("out", "out: must not be NULL"));
            }
            // Over before this call: no request is due, whatever the outcome was (it is
            // gw_exchange_finish's to tell); over by it: starting the attempt failed.
            let over_before = ex.inner.outcome().is_some();
            if !ex.inner.start_request() {
                return Err(match ex.inner.outcome() {
                    Some(Err(e)) if !over_before => e.clone(),
                    _ => Error::invalid(
                        "exchange: no request is due (step until GW_WANT_SEND first)",
                    ),
                });
            }
            let view = ex.view.fill(&ex.inner);
            args::put(out, view);
            Ok(())
        })();
        status_of(result)
    })
}

impl ViewBuffers {
    fn fill(&mut self, exchange: &Exchange<'static>) -> gw_request_view {
        let url = exchange.request_url().expect("a request was just started");
        let user_agent = exchange.user_agent();
        // Room for every text at its longest (a value's lossy text is at most three
        // times its bytes): the buffer then never moves while the texts go in, so
        // each one's start is known as it is pushed.
        let mut size = url.len() + "user-agent".len() + user_agent.len() + 3;
        let mut count = 1;
        exchange.each_header(|name, value| {
            size += name.len() + 3 * value.len() + 2;
            count += 1;
        });
        let texts = &mut self.texts;
        texts.clear();
        texts.reserve(size);
        let base = texts.as_ptr().cast::<c_char>();
        // The URL as args::c_string makes it: an interior NUL becomes a space.
        texts.extend_from_slice(url.as_bytes());
        if memchr::memchr(0, texts).is_some() {
            texts
                .iter_mut()
                .filter(|b| **b == 0)
                .for_each(|b| *b = b' ');
        }
        texts.push(0);
        // Header names and values (the User-Agent too) hold no NUL: http refuses
        // control characters in them.
        let mut push = |text: &[u8]| {
            let start = base.wrapping_add(texts.len());
            texts.extend_from_slice(text);
            texts.push(0);
            start
        };
        let headers = &mut self.headers;
        headers.clear();
        headers.reserve(count);
        exchange.each_header(|name, value| {
            let name = push(name.as_bytes());
            let value = push(value_text(value).as_bytes());
            headers.push(gw_header { name, value });
        });
        let name = push(b"user-agent");
        let value = push(user_agent.as_bytes());
        headers.push(gw_header { name, value });
        assert!(std::ptr::eq(self.texts.as_ptr().cast(), base));
        self.body.clear();
        self.body
            .extend(exchange.body().iter().map(|piece| gw_bytes {
                data: piece.as_ptr(),
                len: piece.len(),
            }));
        let method = match exchange.method() {
            Method::Get => c"GET",
            Method::Post => c"POST",
        };
        gw_request_view {
            method: method.as_ptr(),
            url: base,
            headers: self.headers.as_ptr(),
            header_count: self.headers.len(),
            body: self.body.as_ptr(),
            body_count: self.body.len(),
            body_len: exchange.body_len(),
            connect_timeout_ms: exchange.client().options().connect_timeout_ms,
        }
    }
}

/// A header value as text: UTF-8 (nearly every value: ASCII) as it is, other
/// bytes with what is not UTF-8 replaced.
fn value_text(value: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(value) {
        Ok(text) => text.into(),
        Err(_) => String::from_utf8_lossy(value),
    }
}

/// Feeds the answer's head: its HTTP status and `count` headers (a name may
/// repeat). Returns `GW_OK`, or `GW_INVALID_ARGUMENT` when the exchange awaits
/// no head (or a header is not a valid HTTP header); the exchange is unchanged
/// then. Step next: a redirect or a retry says `GW_WANT_SEND` (drop this
/// answer), else the body is wanted.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_feed_head(
    ex: *mut gw_exchange,
    status: c_int,
    headers: *const gw_header,
    count: usize,
) -> c_int {
    catch(GW_INVALID_ARGUMENT, || {
        let result = (|| {
            let ex = exchange(ex)?;
            if headers.is_null() && count > 0 {
                return Err(Error::invalid_param(
                    "headers",
                    "headers: NULL with a count",
                ));
            }
            let status = u16::try_from(status)
                .ok()
                .filter(|s| *s <= 999)
                .ok_or_else(|| {
                    Error::invalid_param("status", format!("status: {status} is no HTTP status"))
                })?;
            let headers = if count == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(headers, count)
            };
            let map = match head_map(headers) {
                Some(map) => map,
                None => refused_head(headers)?,
            };
            ex.inner.feed_head(status, map)
        })();
        status_of(result)
    })
}

/// Feeds `len` body bytes (any split of the body, after the head). `*taken`
/// (may be NULL) gets how many were taken. Returns `GW_OK` when all were;
/// `GW_WOULD_BLOCK` when fewer were: a stream's buffer already holds 64 KiB of
/// whole lines whose events were not taken (step, take the events, then feed
/// the rest) — the reason is back-pressure: gw's memory per stream stays
/// bounded however fast the network is, and the driver, which owns the socket,
/// decides whether to stop reading. `GW_INVALID_ARGUMENT` when no body is
/// awaited (nothing taken). The bytes are copied; step after feeding.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_feed_body(
    ex: *mut gw_exchange,
    bytes: *const u8,
    len: usize,
    taken: *mut usize,
) -> c_int {
    args::put(taken, 0);
    catch(GW_INVALID_ARGUMENT, || {
        let result = (|| {
            let ex = exchange(ex)?;
            if bytes.is_null() && len > 0 {
                return Err(Error::invalid_param("bytes", "bytes: NULL with a length"));
            }
            let slice = if len == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(bytes, len)
            };
            ex.inner.feed_body(slice)
        })();
        match result {
            Ok(n) => {
                args::put(taken, n);
                if n < len {
                    GW_WOULD_BLOCK
                } else {
                    GW_OK
                }
            }
            Err(e) => status_of(Err(e)),
        }
    })
}

/// Feeds the end of the body (the connection closed it, or its length was
/// reached). Returns `GW_OK`, or `GW_INVALID_ARGUMENT` when no body is
/// awaited. Step next: a stream gives its last events and ends.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_feed_end(ex: *mut gw_exchange) -> c_int {
    catch(GW_INVALID_ARGUMENT, || {
        status_of((|| exchange(ex)?.inner.feed_end())())
    })
}

/// Feeds the transport's failure: `status` is `GW_NETWORK` (DNS, connect,
/// reset, TLS), `GW_TIMEOUT` (the driver's own connect timeout) or
/// `GW_CANCELLED` (the driver's I/O was cancelled); `message` (may be NULL)
/// says what happened. `request_sent`: non-zero when the whole request went and
/// its answer's head did not come, so the gateway may have taken it (a POST
/// without an idempotency key is then not sent again). Returns `GW_OK`, or
/// `GW_INVALID_ARGUMENT` (another status, or no transport in use: the
/// exchange is unchanged). Step next: a retry, or the end.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_feed_error(
    ex: *mut gw_exchange,
    status: c_int,
    request_sent: c_int,
    message: *const c_char,
) -> c_int {
    catch(GW_INVALID_ARGUMENT, || {
        let result = (|| {
            let ex = exchange(ex)?;
            let said = if message.is_null() {
                "the transport failed".to_string()
            } else {
                args::text(message, "message")?.to_string()
            };
            let e = match status {
                GW_NETWORK => Error::Network(said),
                GW_TIMEOUT => Error::Timeout(said),
                GW_CANCELLED => Error::Cancelled,
                other => {
                    return Err(Error::invalid_param(
                        "status",
                        format!(
                            "status: {other} is no transport failure \
                             (GW_NETWORK, GW_TIMEOUT or GW_CANCELLED)"
                        ),
                    ))
                }
            };
            ex.inner.feed_error(e, request_sent != 0)
        })();
        status_of(result)
    })
}

/// After `GW_WANT_EVENT`: the event, as `gw_stream_next` gives it. Its
/// pointers are valid until the exchange's next step, feed or free. Returns
/// `GW_OK`, or `GW_INVALID_ARGUMENT` when no event is ready or `out` is NULL.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_event(ex: *mut gw_exchange, out: *mut gw_event) -> c_int {
    catch(GW_INVALID_ARGUMENT, || {
        let result = (|| {
            let ex = exchange(ex)?;
            if out.is_null() {
                return Err(Error::invalid_param("out", "out: must not be NULL"));
            }
            let event = ex
                .inner
                .current_mut()
                .ok_or_else(|| Error::invalid("exchange: no event is ready"))?;
            let exposed = ex.events.expose_in_place(event);
            args::put(out, exposed);
            Ok(())
        })();
        status_of(result)
    })
}

/// After `GW_WANT_DONE`: the call's status, with `*out` (may be NULL; freed
/// with `gw_free`) the answer (a stream's assembled final object) or the error
/// JSON, as the blocking call gives them. May be called again. Before the end:
/// `GW_INVALID_ARGUMENT`. The answer's metadata is the handle's
/// `gw_client_last_response`.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_finish(ex: *mut gw_exchange, out: *mut *mut c_char) -> c_int {
    call_borrowed(out, || {
        let ex = exchange(ex)?;
        match ex.inner.outcome() {
            Some(Ok(text)) => Ok(text.as_str()),
            Some(Err(e)) => Err(e.clone()),
            None => Err(Error::invalid(
                "exchange: not over yet (step until GW_WANT_DONE)",
            )),
        }
    })
}

/// Frees an exchange (NULL is fine). An exchange freed before its end is
/// abandoned: nothing more is sent. Must not be called twice with the same
/// value.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_free(ex: *mut gw_exchange) {
    catch((), || {
        if !ex.is_null() {
            drop(Box::from_raw(ex));
        }
    })
}
