//! The `exchange` fuzz target: one answer (a head, a body, a transport failure
//! at some point) fed to an exchange in several ways gives one result.
//!
//! The input (every byte string is one):
//! - byte 0, the call: bits 0-1 chat stream, Responses stream, plain chat, GET;
//!   bit 2 events only (no assembly); bit 3 one retry; bit 4 small size caps;
//!   bits 5-7 the status (200 four times in eight, 400, 429, 307, 503).
//! - byte 1, the transport: bits 0-1 the content type (SSE, JSON, none, SSE with
//!   a charset); bits 2-3 a failure at the cut (none, GW_NETWORK, GW_TIMEOUT,
//!   GW_CANCELLED); bit 4 `request_sent`; bits 5-7 misuse (0: none).
//! - bytes 2-3, the cut: 0xffff before the head, else a body offset (modulo).
//! - bytes 4-7, the split: piece sizes, cycled (1 + byte).
//! - the rest: `name: value` lines, each up to its first NUL (a first line of
//!   three digits is the status), `\0\0`, the body; without `\0\0` all of it
//!   is the body.
//!
//! Every hop (retry, redirect) is given the same answer. The ways: the C ABI
//! fed the body whole; the C ABI fed it in the split's pieces, with misuse of
//! every kind the state allows between them; the Rust API fed by `fill_from`
//! as the built-in driver feeds it (a reader giving a few bytes a read); and
//! for a 2xx event stream, the plain `StreamDriver` over the same bytes (the
//! stream logic the blocking calls ran before the exchange). Asserted: no
//! panic (no GW_INTERNAL either), the exchange ends within a bounded number of
//! steps, never wants input after the answer ended, never stalls on a
//! refused feed; misuse is refused and changes nothing; the key goes nowhere
//! but the Authorization of a same-origin hop; every attempt sends the same
//! idempotency key; and every way gives the same events and outcome.

use std::ffi::{c_char, CStr, CString};
use std::io::{self, BufReader, Read};
use std::ptr;
use std::sync::OnceLock;

use ureq::http::{HeaderMap, HeaderName, HeaderValue};

use crate::api::raw_json::JsonText;
use crate::client::exchange::{Exchange, Spec, Want};
use crate::client::Client;
use crate::error::{
    Error, GW_CANCELLED, GW_INTERNAL, GW_INVALID_ARGUMENT, GW_NETWORK, GW_OK, GW_TIMEOUT,
    GW_WOULD_BLOCK,
};
use crate::ffi::{
    self, gw_client, gw_event, gw_exchange, gw_header, gw_request_view, GW_EXCHANGE_EVENTS_ONLY,
    GW_EXCHANGE_STREAM, GW_WANT_DONE, GW_WANT_EVENT, GW_WANT_RECEIVE, GW_WANT_SEND, GW_WANT_WAIT,
};
use crate::stream::driver::{Step, StreamDriver, StreamKind};
use crate::stream::sse::SseParser;

use super::FUZZ_KEY;

/// The origin every exchange of the target is on (nothing is ever sent there).
const ORIGIN: &str = "http://127.0.0.1:9";

/// One event as every way reports it: name, data, text delta, index, choice.
type Event = (String, String, Option<String>, usize, usize);

/// What one way of feeding gave.
#[derive(Debug, PartialEq)]
struct Outcome {
    status: i32,
    /// The answer, or the error JSON.
    out: String,
    events: Vec<Event>,
    requests: usize,
}

#[derive(Clone, Copy)]
enum Call {
    ChatStream,
    ResponsesStream,
    Chat,
    Get,
}

impl Call {
    fn method(self) -> &'static str {
        match self {
            Call::Get => "GET",
            _ => "POST",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Call::ChatStream | Call::Chat => "/v1/chat/completions",
            Call::ResponsesStream => "/v1/responses",
            Call::Get => "/v1/models",
        }
    }

    fn body(self) -> Option<&'static str> {
        match self {
            Call::ChatStream | Call::Chat => {
                Some(r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#)
            }
            Call::ResponsesStream => Some(r#"{"model":"m","input":"hi"}"#),
            Call::Get => None,
        }
    }

    fn stream(self) -> Option<StreamKind> {
        match self {
            Call::ChatStream => Some(StreamKind::Chat),
            Call::ResponsesStream => Some(StreamKind::Responses),
            _ => None,
        }
    }
}

/// A transport failure fed at the cut.
#[derive(Clone, Copy)]
struct Failure {
    status: i32,
    request_sent: bool,
    /// None: before the head; else after this many body bytes.
    at: Option<usize>,
}

impl Failure {
    fn error(self) -> Error {
        let said = "the fuzzer's transport failed".to_string();
        match self.status {
            GW_NETWORK => Error::Network(said),
            GW_TIMEOUT => Error::Timeout(said),
            _ => Error::Cancelled,
        }
    }
}

/// The answer the input describes, and how to feed it.
struct Answer<'a> {
    call: Call,
    events_only: bool,
    client: usize,
    status: u16,
    /// As given: a name or value may be no valid HTTP header.
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    body: &'a [u8],
    failure: Option<Failure>,
    pieces: [u8; 4],
    misuse: u8,
}

impl<'a> Answer<'a> {
    fn read(data: &'a [u8]) -> Option<Answer<'a>> {
        let (head, rest) = data.split_at_checked(8)?;
        let (call_bits, transport) = (head[0], head[1]);
        let call = match call_bits & 3 {
            0 => Call::ChatStream,
            1 => Call::ResponsesStream,
            2 => Call::Chat,
            _ => Call::Get,
        };
        let mut status = [200, 200, 200, 200, 400, 429, 307, 503][usize::from(call_bits >> 5)];
        let content_type: Option<&[u8]> = match transport & 3 {
            0 => Some(b"text/event-stream"),
            1 => Some(b"application/json"),
            2 => None,
            _ => Some(b"Text/Event-Stream; charset=utf-8"),
        };
        let mut headers: Vec<(Vec<u8>, Vec<u8>)> = content_type
            .map(|ct| (b"content-type".to_vec(), ct.to_vec()))
            .into_iter()
            .collect();
        let (lines, body) = match memchr::memmem::find(rest, b"\0\0") {
            Some(at) => (&rest[..at], &rest[at + 2..]),
            None => (&[][..], rest),
        };
        // A header is C strings: a line ends at its first NUL, as a C caller's would.
        let lines = lines
            .split(|b| *b == b'\n')
            .map(|l| l.split(|b| *b == 0).next().unwrap_or(l));
        for (i, line) in lines.enumerate() {
            let digits = std::str::from_utf8(line).ok().filter(|l| l.len() == 3);
            if let (0, Some(code)) = (i, digits.and_then(|l| l.parse::<u16>().ok())) {
                status = code;
            } else if let Some(colon) = memchr::memchr(b':', line) {
                let value = line[colon + 1..]
                    .strip_prefix(b" ")
                    .unwrap_or(&line[colon + 1..]);
                headers.push((line[..colon].to_vec(), value.to_vec()));
            }
        }
        let cut = u16::from_le_bytes([head[2], head[3]]);
        let failure = match (transport >> 2) & 3 {
            0 => None,
            kind => Some(Failure {
                status: [GW_NETWORK, GW_TIMEOUT, GW_CANCELLED][usize::from(kind - 1)],
                request_sent: transport & 0x10 != 0,
                at: (cut != u16::MAX).then(|| usize::from(cut) % (body.len() + 1)),
            }),
        };
        Some(Answer {
            call,
            events_only: call_bits & 4 != 0,
            client: usize::from((call_bits >> 3) & 3),
            status,
            headers,
            body,
            failure,
            pieces: [head[4], head[5], head[6], head[7]],
            misuse: transport >> 5,
        })
    }

    /// The body bytes fed before the end (or the failure).
    fn fed_body(&self) -> &'a [u8] {
        match self.failure {
            Some(Failure { at: Some(at), .. }) => &self.body[..at],
            _ => self.body,
        }
    }

    /// The headers an HTTP stack can carry (the others are refused by the C ABI).
    fn valid_headers(&self) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in &self.headers {
            if let (Ok(name), Some(value)) = (HeaderName::from_bytes(name), valid_value(value)) {
                map.append(name, value);
            }
        }
        map
    }

    /// Whether the exchange reads this answer as an event stream.
    fn is_event_stream(&self) -> bool {
        let sse = self
            .valid_headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/event-stream"));
        self.call.stream().is_some() && (200..300).contains(&self.status) && sse
    }

    /// The most steps an exchange of this answer may take: a few per byte fed
    /// and per event, on each of at most (1 + retries) * (1 + redirects) hops.
    fn step_bound(&self) -> usize {
        (64 + 8 * self.body.len()) * 2 * 6
    }
}

/// A header value as the C ABI takes it (a C string an HTTP stack can send).
fn valid_value(value: &[u8]) -> Option<HeaderValue> {
    let text = std::str::from_utf8(value).ok()?;
    if value.contains(&0) {
        return None;
    }
    HeaderValue::from_str(text).ok()
}

/// The handles the target drives exchanges on (built once): one retry or none,
/// small caps or roomy ones. No timers and no backoff, so nothing depends on
/// the clock: a retry is due at once, and a Retry-After is capped at 0.
struct Handles([usize; 4]);

fn handle(index: usize) -> *const gw_client {
    static HANDLES: OnceLock<Handles> = OnceLock::new();
    let handles = HANDLES.get_or_init(|| {
        Handles(std::array::from_fn(|i| {
            let (max_line, max_event, max_answer) = if i & 2 != 0 {
                (256, 1024, 2048)
            } else {
                (1 << 16, 1 << 17, 1 << 20)
            };
            let options = serde_json::json!({
                "base_url": ORIGIN,
                "api_key": FUZZ_KEY,
                "max_retries": i & 1,
                "retry_base_delay_ms": 0,
                "retry_max_delay_ms": 0,
                "retry_after_cap_ms": 0,
                "read_timeout_ms": 0,
                "first_byte_timeout_ms": 0,
                "total_timeout_ms": 0,
                "max_line_bytes": max_line,
                "max_event_bytes": max_event,
                "max_response_bytes": max_answer,
                "headers": {"x-custom": "kept-home"},
            });
            let text = CString::new(options.to_string()).expect("no NUL");
            // SAFETY: a valid C string; the handle lives as long as the process.
            let client = unsafe { ffi::gw_client_new_with_options(text.as_ptr()) };
            assert!(!client.is_null(), "the fuzz handles build");
            client as usize
        }))
    });
    handles.0[index] as *const gw_client
}

/// An event's text as the C ABI exposes it: a NUL (JSON text has none) is a space.
fn as_c(text: &str) -> String {
    text.replace('\0', " ")
}

fn text_of(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: gw hands out NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The exchange's answer to the input, fed through every way; panics when
/// they disagree or an invariant breaks.
pub fn exchange(data: &[u8]) {
    let Some(answer) = Answer::read(data) else {
        return;
    };
    let whole = drive_c(&answer, None);
    let pieces = drive_c(&answer, Some(answer.pieces));
    assert_eq!(
        whole, pieces,
        "the outcome depends on how the body was split"
    );
    let read = drive_rust(&answer, 1 + usize::from(answer.pieces[0]));
    assert_eq!(
        whole, read,
        "the C ABI's feeds and the built-in driver's reads differ"
    );
    if answer.is_event_stream() && answer.failure.is_none() {
        let (status, out, events) = stream_driver(&answer);
        assert_eq!(
            whole.events, events,
            "the exchange's events and the stream driver's differ"
        );
        assert_eq!(whole.status, status, "{} vs {out}", whole.out);
        if status == GW_OK {
            assert_eq!(whole.out, out, "the assembled answers differ");
        }
    }
    // An answer is the gateway's text, handed out as sent; what gw writes must not hold the key.
    let error = if whole.status == GW_OK {
        ""
    } else {
        &whole.out
    };
    let shown = format!("{error} {}", last_response(handle(answer.client)));
    assert!(
        !shown
            .to_ascii_lowercase()
            .contains(&FUZZ_KEY.to_ascii_lowercase()),
        "the key shows: {shown}"
    );
}

fn last_response(client: *const gw_client) -> String {
    let mut out: *mut c_char = ptr::null_mut();
    // SAFETY: a live handle and a writable out.
    unsafe { ffi::gw_client_last_response(client, &mut out) };
    let text = text_of(out);
    // SAFETY: gw's string, freed once.
    unsafe { ffi::gw_free(out.cast()) };
    text
}

/// The request of one hop: the key only in a same-origin Authorization, the
/// idempotency key the same on every hop that carries one.
fn check_request(view: &gw_request_view, idempotency: &mut Option<String>) {
    let url = text_of(view.url);
    let home = url.starts_with(&format!("{ORIGIN}/"));
    assert!(!url.contains(FUZZ_KEY), "the key is in the URL");
    for i in 0..view.header_count {
        // SAFETY: the view's headers are `header_count` valid entries.
        let header = unsafe { &*view.headers.add(i) };
        let (name, value) = (text_of(header.name), text_of(header.value));
        let name = name.to_ascii_lowercase();
        if name == "authorization" {
            assert!(home, "credentials sent to another origin: {url}");
        } else {
            assert!(!value.contains(FUZZ_KEY), "the key is in {name}");
        }
        if !home {
            assert!(
                name != "x-custom" && name != "idempotency-key",
                "{name} sent to another origin: {url}"
            );
        }
        if name == "idempotency-key" {
            let first = idempotency.get_or_insert_with(|| value.clone());
            assert_eq!(
                *first, value,
                "the idempotency key changed between attempts"
            );
        }
    }
}

/// Where the answer of the current hop stands (the C ways).
#[derive(Default)]
struct Hop {
    head_fed: bool,
    offset: usize,
    /// The end or the failure was fed: the exchange may want no more input.
    ended: bool,
    /// Consecutive feeds that took nothing.
    stalls: u8,
    piece: usize,
}

/// Drives the exchange through the C ABI: the body whole (`pieces` None) or in
/// the pieces' sizes, with misuse between feeds.
fn drive_c(answer: &Answer<'_>, pieces: Option<[u8; 4]>) -> Outcome {
    let client = handle(answer.client);
    let mut flags = 0;
    if answer.call.stream().is_some() {
        flags |= GW_EXCHANGE_STREAM;
        if answer.events_only {
            flags |= GW_EXCHANGE_EVENTS_ONLY;
        }
    }
    let method = CString::new(answer.call.method()).expect("no NUL");
    let path = CString::new(answer.call.path()).expect("no NUL");
    let body = answer.call.body().map(|b| CString::new(b).expect("no NUL"));
    let mut ex: *mut gw_exchange = ptr::null_mut();
    let mut err: *mut c_char = ptr::null_mut();
    // SAFETY: valid C strings and writable outs.
    let status = unsafe {
        ffi::gw_exchange_new(
            client,
            method.as_ptr(),
            path.as_ptr(),
            body.as_ref().map_or(ptr::null(), |b| b.as_ptr()),
            flags,
            &mut ex,
            &mut err,
        )
    };
    assert_eq!(
        status,
        GW_OK,
        "the fuzz request is refused: {}",
        text_of(err)
    );
    let misuse = if pieces.is_some() { answer.misuse } else { 0 };
    // SAFETY: `ex` is a live exchange, freed by `run_c` only.
    unsafe { run_c(ex, answer, pieces, misuse) }
}

/// # Safety
/// `ex` is a live exchange; it is freed here.
unsafe fn run_c(
    ex: *mut gw_exchange,
    answer: &Answer<'_>,
    pieces: Option<[u8; 4]>,
    misuse: u8,
) -> Outcome {
    let fed = answer.fed_body();
    let names: Vec<CString> = answer
        .headers
        .iter()
        .map(|(n, _)| CString::new(n.clone()).unwrap_or_default())
        .collect();
    let values: Vec<CString> = answer
        .headers
        .iter()
        .map(|(_, v)| CString::new(v.clone()).unwrap_or_default())
        .collect();
    let all: Vec<gw_header> = names
        .iter()
        .zip(&values)
        .map(|(n, v)| gw_header {
            name: n.as_ptr(),
            value: v.as_ptr(),
        })
        .collect();
    let valid: Vec<gw_header> = answer
        .headers
        .iter()
        .zip(&all)
        .filter(|((n, v), _)| {
            HeaderName::from_bytes(n).is_ok() && valid_value(v).is_some() && !n.contains(&0)
        })
        .map(|(_, h)| gw_header {
            name: h.name,
            value: h.value,
        })
        .collect();
    let mut events = Vec::new();
    let mut requests = 0;
    let mut idempotency = None;
    let mut hop: Option<Hop> = None;
    for steps in 0.. {
        assert!(steps < answer.step_bound(), "the exchange does not end");
        let mut wait_ms = -2i64;
        let want = ffi::gw_exchange_step(ex, &mut wait_ms);
        if misuse != 0 && want != GW_WANT_DONE {
            misuse_between(ex, want, hop.as_ref(), misuse, steps);
        }
        match want {
            GW_WANT_SEND => {
                let mut view: gw_request_view = std::mem::zeroed();
                let status = ffi::gw_exchange_request(ex, &mut view);
                assert_ne!(status, GW_INTERNAL);
                if status != GW_OK {
                    continue; // the exchange is over; the next step says so
                }
                check_request(&view, &mut idempotency);
                requests += 1;
                hop = Some(Hop::default());
            }
            GW_WANT_RECEIVE => {
                let h = hop.as_mut().expect("input wanted before a request went");
                assert!(!h.ended, "input wanted after the answer's end");
                feed_c(ex, answer, h, fed, pieces, &all, &valid);
                if h.ended && misuse != 0 {
                    misuse_after_end(ex);
                }
            }
            GW_WANT_WAIT => assert_eq!(wait_ms, 0, "a wait without backoff or Retry-After"),
            GW_WANT_EVENT => {
                let mut event = gw_event::empty();
                assert_eq!(ffi::gw_exchange_event(ex, &mut event), GW_OK);
                events.push(owned_event(&event));
                if let Some(h) = hop.as_mut() {
                    h.stalls = 0;
                }
            }
            GW_WANT_DONE => {
                let outcome = finish_c(ex, events, requests);
                ffi::gw_exchange_free(ex);
                return outcome;
            }
            other => panic!("gw_exchange_step gave {other}"),
        }
    }
    unreachable!()
}

/// Feeds the next thing the answer has: its head, body bytes, the end or the failure.
unsafe fn feed_c(
    ex: *mut gw_exchange,
    answer: &Answer<'_>,
    h: &mut Hop,
    fed: &[u8],
    pieces: Option<[u8; 4]>,
    all: &[gw_header],
    valid: &[gw_header],
) {
    let fail = |request_sent: bool| {
        let f = answer.failure.expect("a failure");
        let message = CString::new("the fuzzer's transport failed").expect("no NUL");
        let status =
            ffi::gw_exchange_feed_error(ex, f.status, i32::from(request_sent), message.as_ptr());
        assert_eq!(status, GW_OK, "a transport failure refused");
    };
    if !h.head_fed {
        h.head_fed = true;
        if matches!(answer.failure, Some(Failure { at: None, .. })) {
            h.ended = true;
            return fail(answer.failure.is_some_and(|f| f.request_sent));
        }
        let status = i32::from(answer.status);
        if all.len() != valid.len() {
            let refused = ffi::gw_exchange_feed_head(ex, status, all.as_ptr(), all.len());
            assert_eq!(refused, GW_INVALID_ARGUMENT, "a bad header taken");
        }
        let taken = ffi::gw_exchange_feed_head(ex, status, valid.as_ptr(), valid.len());
        assert_eq!(taken, GW_OK, "a head refused");
        return;
    }
    if h.offset == fed.len() {
        h.ended = true;
        if answer.failure.is_some() {
            return fail(true);
        }
        assert_eq!(ffi::gw_exchange_feed_end(ex), GW_OK, "the end refused");
        return;
    }
    let left = fed.len() - h.offset;
    let size = match pieces {
        None => left,
        Some(sizes) => {
            h.piece += 1;
            left.min(1 + usize::from(sizes[h.piece % 4]))
        }
    };
    let mut taken = usize::MAX;
    let status = ffi::gw_exchange_feed_body(ex, fed[h.offset..].as_ptr(), size, &mut taken);
    match status {
        GW_OK => assert_eq!(taken, size),
        GW_WOULD_BLOCK => assert!(taken < size),
        other => panic!("body bytes refused while wanted: {other}"),
    }
    if taken == 0 {
        h.stalls += 1;
        assert!(h.stalls < 3, "the exchange wants bytes and takes none");
    } else {
        h.stalls = 0;
    }
    h.offset += taken;
}

/// One call the state does not allow, chosen by `kind` and the step: refused
/// with GW_INVALID_ARGUMENT. That it changed nothing is the outcome's to show.
unsafe fn misuse_between(
    ex: *mut gw_exchange,
    want: i32,
    hop: Option<&Hop>,
    kind: u8,
    step: usize,
) {
    let head_fed = hop.is_some_and(|h| h.head_fed);
    let ended = hop.is_some_and(|h| h.ended);
    // Body bytes, the end and a failure are awaited while the answer's body is
    // read (between events too) and before its end came.
    let body_open = head_fed && !ended && (want == GW_WANT_RECEIVE || want == GW_WANT_EVENT);
    let awaits_head = want == GW_WANT_RECEIVE && !head_fed;
    let bytes = b"data: {}\n\n";
    let mut taken = usize::MAX;
    let status = match (usize::from(kind) + step) % 8 {
        0 => ffi::gw_exchange_feed_error(ex, GW_INTERNAL, 1, ptr::null()),
        1 => ffi::gw_exchange_finish(ex, ptr::null_mut()),
        2 if want != GW_WANT_EVENT => {
            let mut event = gw_event::empty();
            ffi::gw_exchange_event(ex, &mut event)
        }
        3 if want != GW_WANT_SEND => {
            let mut view: gw_request_view = std::mem::zeroed();
            ffi::gw_exchange_request(ex, &mut view)
        }
        4 if !body_open => {
            let status = ffi::gw_exchange_feed_body(ex, bytes.as_ptr(), bytes.len(), &mut taken);
            assert_eq!(taken, 0, "misplaced body bytes taken");
            status
        }
        5 if !body_open => ffi::gw_exchange_feed_end(ex),
        6 if !awaits_head => ffi::gw_exchange_feed_head(ex, 200, ptr::null(), 0),
        7 if !body_open && !awaits_head => {
            ffi::gw_exchange_feed_error(ex, GW_NETWORK, 0, ptr::null())
        }
        _ => {
            let bad = CString::new("bad name").expect("no NUL");
            let header = gw_header {
                name: bad.as_ptr(),
                value: bad.as_ptr(),
            };
            ffi::gw_exchange_feed_head(ex, 200, &header, 1)
        }
    };
    assert_eq!(
        status, GW_INVALID_ARGUMENT,
        "misuse {kind} at step {step} (want {want})"
    );
}

/// Right after the end or a failure was fed, before a step: no body, no second
/// end and no failure is taken.
unsafe fn misuse_after_end(ex: *mut gw_exchange) {
    let mut taken = usize::MAX;
    let fed = ffi::gw_exchange_feed_body(ex, b"\n\n".as_ptr(), 2, &mut taken);
    assert_eq!(
        (fed, taken),
        (GW_INVALID_ARGUMENT, 0),
        "bytes after the end"
    );
    assert_eq!(
        ffi::gw_exchange_feed_end(ex),
        GW_INVALID_ARGUMENT,
        "a second end"
    );
    let failed = ffi::gw_exchange_feed_error(ex, GW_NETWORK, 0, ptr::null());
    assert_eq!(failed, GW_INVALID_ARGUMENT, "a failure after the end");
}

unsafe fn owned_event(event: &gw_event) -> Event {
    let delta = (!event.text_delta.is_null()).then(|| text_of(event.text_delta));
    (
        text_of(event.event),
        text_of(event.data),
        delta,
        event.index,
        event.choice_index,
    )
}

/// The outcome, read twice (the same both times); then every feed is refused.
unsafe fn finish_c(ex: *mut gw_exchange, events: Vec<Event>, requests: usize) -> Outcome {
    let read = || {
        let mut out: *mut c_char = ptr::null_mut();
        let status = ffi::gw_exchange_finish(ex, &mut out);
        let text = text_of(out);
        ffi::gw_free(out.cast());
        (status, text)
    };
    let (status, out) = read();
    assert_eq!(read(), (status, out.clone()), "a second finish differs");
    assert_ne!(status, GW_INTERNAL, "{out}");
    let mut taken = 0;
    assert_eq!(
        ffi::gw_exchange_feed_body(ex, b"x".as_ptr(), 1, &mut taken),
        GW_INVALID_ARGUMENT
    );
    assert_eq!(ffi::gw_exchange_feed_end(ex), GW_INVALID_ARGUMENT);
    assert_eq!(
        ffi::gw_exchange_feed_head(ex, 200, ptr::null(), 0),
        GW_INVALID_ARGUMENT
    );
    assert_eq!(
        ffi::gw_exchange_feed_error(ex, GW_NETWORK, 0, ptr::null()),
        GW_INVALID_ARGUMENT
    );
    assert_eq!(ffi::gw_exchange_step(ex, ptr::null_mut()), GW_WANT_DONE);
    Outcome {
        status,
        out,
        events,
        requests,
    }
}

/// A reader giving `step` bytes a read, then its end or the failure.
struct Reads<'a> {
    rest: &'a [u8],
    step: usize,
    fails: bool,
}

impl Read for Reads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.rest.is_empty() && self.fails {
            return Err(io::Error::other("the fuzzer's transport failed"));
        }
        let n = self.rest.len().min(self.step).min(buf.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

/// Drives the exchange through the Rust API as the built-in driver does: the
/// head as a `HeaderMap`, the body read in by `fill_from`.
fn drive_rust(answer: &Answer<'_>, step: usize) -> Outcome {
    // SAFETY: the handles live as long as the process.
    let client: &Client = unsafe { &*handle(answer.client) };
    let text = answer.call.body();
    let tree = text.map(|t| JsonText::parse(t).expect("the fuzz request is JSON"));
    let stream = answer.call.stream().map(|_| !answer.events_only);
    let spec = Spec::request(
        client,
        answer.call.method(),
        answer.call.path(),
        tree.as_ref(),
        stream,
    )
    .expect("the fuzz request is valid");
    let mut ex = Exchange::new(client, spec).expect("the fuzz handle is not cancelled");
    let mut events = Vec::new();
    let mut requests = 0;
    let mut reads: Option<Reads<'_>> = None;
    for steps in 0.. {
        assert!(steps < answer.step_bound(), "the exchange does not end");
        match ex.step() {
            Want::Send => {
                if ex.take_request().is_some() {
                    requests += 1;
                    reads = None;
                }
            }
            Want::Receive { .. } => match &mut reads {
                None => {
                    if let Some(Failure {
                        at: None,
                        request_sent,
                        ..
                    }) = answer.failure
                    {
                        let e = answer.failure.expect("a failure").error();
                        ex.feed_error(e, request_sent).expect("a failure taken");
                        continue;
                    }
                    ex.feed_head(answer.status, answer.valid_headers())
                        .expect("a head taken");
                    reads = Some(Reads {
                        rest: answer.fed_body(),
                        step,
                        fails: answer.failure.is_some(),
                    });
                }
                Some(reader) => match ex.fill_from(reader) {
                    Ok(0) => ex.feed_end().expect("the end taken"),
                    Ok(_) => {}
                    Err(_) => {
                        let e = answer.failure.expect("a failure").error();
                        ex.feed_error(e, true).expect("a failure taken");
                    }
                },
            },
            Want::Wait(d) => assert!(d.is_zero(), "a wait without backoff or Retry-After"),
            Want::Event => {
                let event = ex.current().expect("an event");
                events.push((
                    as_c(event.event),
                    as_c(event.data),
                    event.text_delta.map(as_c),
                    event.index,
                    event.choice_index,
                ));
            }
            Want::Done => {
                let (status, out) = match ex.take_outcome() {
                    Ok(text) => (GW_OK, text),
                    Err(e) => (e.status(), e.to_json()),
                };
                return Outcome {
                    status,
                    out,
                    events,
                    requests,
                };
            }
        }
    }
    unreachable!()
}

/// The plain stream driver over the body (a 2xx event stream with no failure
/// in it; one that failed is read to the failure): status, answer, events.
fn stream_driver(answer: &Answer<'_>) -> (i32, String, Vec<Event>) {
    // SAFETY: the handles live as long as the process.
    let options = unsafe { &*handle(answer.client) }.options().clone();
    let kind = answer.call.stream().expect("a stream");
    let reads = Reads {
        rest: answer.fed_body(),
        step: 1 + usize::from(answer.pieces[1]),
        fails: answer.failure.is_some(),
    };
    let parser = SseParser::new(BufReader::with_capacity(64, reads), options.max_line_bytes)
        .max_event_bytes(options.max_event_bytes);
    let mut driver = StreamDriver::new(kind, parser)
        .assembly_limit(usize::try_from(options.max_response_bytes).unwrap_or(usize::MAX))
        .assemble(!answer.events_only);
    let mut events = Vec::new();
    loop {
        match driver.step() {
            Ok(Step::Event) => {
                let event = driver.current();
                events.push((
                    as_c(event.event),
                    as_c(event.data),
                    event.text_delta.map(as_c),
                    event.index,
                    event.choice_index,
                ));
            }
            Ok(Step::Done) => {
                return (GW_OK, driver.take_final().unwrap_or_default(), events);
            }
            Err(e) => return (e.status(), e.to_string(), events),
        }
    }
}
