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

mod answer;
mod c_abi;

use answer::*;
use c_abi::*;
use std::ffi::{c_char, CStr, CString};
use std::io::{self, BufReader, Read};
use std::ptr;
use std::sync::OnceLock;

use crate::api::raw_json::JsonText;
use crate::client::exchange::{Exchange, Spec, Want};
use crate::client::Client;
use crate::error::GW_OK;
use crate::ffi::{self, gw_client, gw_request_view};
use crate::stream::driver::{Step, StreamDriver, StreamEvent};
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

/// An event as the C ABI would hand it out.
fn recorded(event: &StreamEvent<'_>) -> Event {
    (
        as_c(event.event),
        as_c(event.data),
        event.text_delta.map(as_c),
        event.index,
        event.choice_index,
    )
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
                events.push(recorded(&ex.current().expect("an event")));
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
                events.push(recorded(&driver.current()));
            }
            Ok(Step::Done) => {
                return (GW_OK, driver.take_final().unwrap_or_default(), events);
            }
            Err(e) => return (e.status(), e.to_string(), events),
        }
    }
}
