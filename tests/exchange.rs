//! The exchange's C ABI driven by a plain-HTTP test driver
//! (`common/exchange_driver.rs`): the same answers, events and failures as the
//! blocking calls, whatever the split of the body bytes; misuse refused without
//! a change; and the policy the exchange owns (timers, cancel, retries,
//! redirects, the key, idempotency keys, the observer) seen from a driver.

mod common;

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::c_client::{take, CClient};
use common::exchange_driver::{drive, drive_with, sent_of, Driven, Driver, Phase, Seen};
use common::*;
use gw::ffi::{self, gw_attempt, gw_client, gw_event, gw_exchange, gw_header, gw_request_view};
use gw::{
    GW_CANCELLED, GW_DECODE, GW_INVALID_ARGUMENT, GW_NETWORK, GW_OK, GW_TIMEOUT, GW_WOULD_BLOCK,
};
use gw_mock::MockGateway;
use serde_json::{json, Value};

const CHAT: &str = "/v1/chat/completions";

unsafe fn open(
    client: *const gw_client,
    method: &str,
    path: &str,
    body: Option<&str>,
    flags: i32,
) -> Result<*mut gw_exchange, (i32, String)> {
    let method = CString::new(method).unwrap();
    let path = CString::new(path).unwrap();
    let body = body.map(|b| CString::new(b).unwrap());
    let mut ex: *mut gw_exchange = ptr::null_mut();
    let mut err: *mut c_char = ptr::null_mut();
    let status = ffi::gw_exchange_new(
        client,
        method.as_ptr(),
        path.as_ptr(),
        body.as_ref().map_or(ptr::null(), |b| b.as_ptr()),
        flags,
        &mut ex,
        &mut err,
    );
    if status == GW_OK {
        assert!(err.is_null());
        return Ok(ex);
    }
    assert!(ex.is_null(), "a refused exchange was handed out");
    Err((status, take(err)))
}

/// A chat stream exchange of `text` on `client`, driven with `driver`.
fn stream_chat(client: *const gw_client, text: &str, driver: &mut Driver<'_>) -> Driven {
    let request = chat(text).to_string();
    unsafe {
        let ex = open(
            client,
            "POST",
            CHAT,
            Some(&request),
            ffi::GW_EXCHANGE_STREAM,
        )
        .unwrap();
        drive_with(ex, driver)
    }
}

/// A handle on `mock` with `extra` options over the tests' own (no retries).
fn handle_with(mock: &MockGateway, extra: Value) -> CClient {
    let mut options = json!({"base_url": mock.url(), "api_key": mock.api_key(), "max_retries": 0});
    for (k, v) in extra.as_object().unwrap() {
        options[k] = v.clone();
    }
    CClient::with_options(&options.to_string())
}

fn derive(base: &CClient, options: &str) -> CClient {
    let options = CString::new(options).unwrap();
    let handle = unsafe { ffi::gw_client_derive(base.0, options.as_ptr()) };
    assert!(!handle.is_null());
    CClient(handle)
}

fn last_response(client: *const gw_client) -> String {
    let mut out: *mut c_char = ptr::null_mut();
    assert_eq!(
        unsafe { ffi::gw_client_last_response(client, &mut out) },
        GW_OK
    );
    take(out)
}

#[test]
fn a_plain_call_and_a_stream_give_what_the_blocking_calls_give() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let request = chat("hello exchange").to_string();
    for split in [1, 7, 64, 100_000] {
        let ex = unsafe { open(client.0, "POST", CHAT, Some(&request), 0).unwrap() };
        let driven = unsafe { drive(ex, split) };
        assert_eq!(driven.status, GW_OK, "{}", driven.out);
        let (status, blocking) = client.run(ffi::gw_chat, &request);
        assert_eq!(status, GW_OK);
        assert_eq!(
            parse(&driven.out)["choices"][0]["message"]["content"],
            parse(&blocking)["choices"][0]["message"]["content"]
        );
        let ex = unsafe {
            open(
                client.0,
                "POST",
                CHAT,
                Some(&request),
                ffi::GW_EXCHANGE_STREAM,
            )
            .unwrap()
        };
        let driven = unsafe { drive(ex, split) };
        assert_eq!(driven.status, GW_OK, "split {split}: {}", driven.out);
        assert!(driven.events.len() > 1);
        let answer = parse(&driven.out);
        assert_eq!(answer["object"], "chat.completion");
        assert_eq!(answer["choices"][0]["message"]["content"], driven.text);
    }
}

#[test]
fn a_limit_broken_is_refused_before_anything_is_sent() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let request =
        json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": 3});
    let (status, text) =
        unsafe { open(client.0, "POST", CHAT, Some(&request.to_string()), 0).unwrap_err() };
    assert_eq!(status, GW_INVALID_ARGUMENT);
    assert!(text.contains("temperature"), "{text}");
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn bad_arguments_to_gw_exchange_new_are_refused_naming_them() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let body = chat("x").to_string();
    let refused =
        |client: *const gw_client, method: &str, path: &str, body: Option<&str>, flags| {
            let (status, err) = unsafe { open(client, method, path, body, flags) }.unwrap_err();
            assert_eq!(status, GW_INVALID_ARGUMENT, "{err}");
            parse(&err)
        };
    let e = refused(ptr::null(), "POST", CHAT, Some(&body), 0);
    assert!(
        e["error"]["message"].as_str().unwrap().contains("client"),
        "{e}"
    );
    for flags in [4, 0x100, -1] {
        assert_eq!(
            refused(client.0, "POST", CHAT, Some(&body), flags)["error"]["param"],
            "flags"
        );
    }
    refused(client.0, "PUT", CHAT, Some(&body), 0);
    refused(client.0, "POST", CHAT, Some("{oops"), 0);
    refused(client.0, "GET", "/v1/models", None, ffi::GW_EXCHANGE_STREAM);
    refused(client.0, "POST", CHAT, None, ffi::GW_EXCHANGE_STREAM);
    unsafe {
        let method = CString::new("POST").unwrap();
        let path = CString::new(CHAT).unwrap();
        let json = CString::new(body.as_str()).unwrap();
        let mut ex: *mut gw_exchange = ptr::null_mut();
        let mut err: *mut c_char = ptr::null_mut();
        let args = [(ptr::null(), path.as_ptr()), (method.as_ptr(), ptr::null())];
        for (m, p) in args {
            let status = ffi::gw_exchange_new(client.0, m, p, json.as_ptr(), 0, &mut ex, &mut err);
            assert_eq!(status, GW_INVALID_ARGUMENT);
            assert!(ex.is_null());
            assert!(!take(err).is_empty());
        }
        let status = ffi::gw_exchange_new(
            client.0,
            method.as_ptr(),
            path.as_ptr(),
            json.as_ptr(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        );
        assert_eq!(status, GW_INVALID_ARGUMENT);
    }
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn every_function_refuses_a_null_exchange() {
    unsafe {
        let null: *mut gw_exchange = ptr::null_mut();
        let mut wait = 7i64;
        assert_eq!(ffi::gw_exchange_step(null, &mut wait), GW_INVALID_ARGUMENT);
        assert_eq!(
            ffi::gw_exchange_step(null, ptr::null_mut()),
            GW_INVALID_ARGUMENT
        );
        let mut view: gw_request_view = std::mem::zeroed();
        assert_eq!(
            ffi::gw_exchange_request(null, &mut view),
            GW_INVALID_ARGUMENT
        );
        assert_eq!(
            ffi::gw_exchange_feed_head(null, 200, ptr::null(), 0),
            GW_INVALID_ARGUMENT
        );
        let mut taken = 9usize;
        let bytes = b"data: x\n\n";
        let fed = ffi::gw_exchange_feed_body(null, bytes.as_ptr(), bytes.len(), &mut taken);
        assert_eq!((fed, taken), (GW_INVALID_ARGUMENT, 0));
        assert_eq!(ffi::gw_exchange_feed_end(null), GW_INVALID_ARGUMENT);
        let failed = ffi::gw_exchange_feed_error(null, GW_NETWORK, 0, ptr::null());
        assert_eq!(failed, GW_INVALID_ARGUMENT);
        let mut event = std::mem::zeroed::<gw_event>();
        assert_eq!(
            ffi::gw_exchange_event(null, &mut event),
            GW_INVALID_ARGUMENT
        );
        let mut out: *mut c_char = ptr::null_mut();
        assert_eq!(ffi::gw_exchange_finish(null, &mut out), GW_INVALID_ARGUMENT);
        assert!(take(out).contains("exchange"));
        ffi::gw_exchange_free(null);
        let why = CStr::from_ptr(ffi::gw_last_error()).to_string_lossy();
        assert!(why.contains("exchange"), "{why}");
    }
}

/// Calls every exchange function the driver's phase does not allow and
/// checks each is refused with GW_INVALID_ARGUMENT, nothing taken. Counts the
/// calls made.
fn misuse(ex: *mut gw_exchange, phase: Phase, calls: &mut usize) {
    let want = phase.want;
    let awaits_head = want == ffi::GW_WANT_RECEIVE && !phase.head_fed;
    let body_open = phase.head_fed
        && !phase.ended
        && (want == ffi::GW_WANT_RECEIVE || want == ffi::GW_WANT_EVENT);
    let transport_in_use = awaits_head || body_open;
    let name = CString::new("x-ok").unwrap();
    let bad_name = CString::new("bad name").unwrap();
    let bad_value = CString::new("a\rb").unwrap();
    let message = CString::new("misuse").unwrap();
    let bytes = b"data: {}\n\n";
    let mut refused = |what: &str, status: i32| {
        *calls += 1;
        assert_eq!(status, GW_INVALID_ARGUMENT, "{what} in {phase:?}");
    };
    unsafe {
        for status in [GW_OK, GW_DECODE, 12345] {
            let s = ffi::gw_exchange_feed_error(ex, status, 1, message.as_ptr());
            refused("feed_error with a status no transport gives", s);
        }
        let mut taken = 7usize;
        let s = ffi::gw_exchange_feed_body(ex, ptr::null(), 5, &mut taken);
        refused("feed_body of NULL", s);
        assert_eq!(taken, 0);
        refused(
            "feed_head, NULL headers with a count",
            ffi::gw_exchange_feed_head(ex, 200, ptr::null(), 1),
        );
        for status in [-1, 1000] {
            refused(
                "feed_head, no HTTP status",
                ffi::gw_exchange_feed_head(ex, status, ptr::null(), 0),
            );
        }
        for header in [
            gw_header {
                name: bad_name.as_ptr(),
                value: name.as_ptr(),
            },
            gw_header {
                name: name.as_ptr(),
                value: bad_value.as_ptr(),
            },
            gw_header {
                name: ptr::null(),
                value: name.as_ptr(),
            },
        ] {
            refused(
                "feed_head, a bad header",
                ffi::gw_exchange_feed_head(ex, 200, &header, 1),
            );
        }
        refused(
            "event into NULL",
            ffi::gw_exchange_event(ex, ptr::null_mut()),
        );
        refused(
            "request into NULL",
            ffi::gw_exchange_request(ex, ptr::null_mut()),
        );
        if want != ffi::GW_WANT_DONE {
            let mut out: *mut c_char = ptr::null_mut();
            refused(
                "finish before the end",
                ffi::gw_exchange_finish(ex, &mut out),
            );
            assert!(take(out).contains("not over"));
        }
        if want != ffi::GW_WANT_EVENT {
            let mut event = std::mem::zeroed::<gw_event>();
            refused(
                "event when none is ready",
                ffi::gw_exchange_event(ex, &mut event),
            );
        }
        if want != ffi::GW_WANT_SEND {
            let mut view: gw_request_view = std::mem::zeroed();
            refused(
                "request when none is due",
                ffi::gw_exchange_request(ex, &mut view),
            );
        }
        if !awaits_head {
            refused(
                "feed_head when no head is awaited",
                ffi::gw_exchange_feed_head(ex, 200, ptr::null(), 0),
            );
        }
        if !body_open {
            let mut taken = 7usize;
            let s = ffi::gw_exchange_feed_body(ex, bytes.as_ptr(), bytes.len(), &mut taken);
            refused("feed_body when no body is awaited", s);
            assert_eq!(taken, 0, "bytes taken in {phase:?}");
            refused(
                "feed_end when no body is awaited",
                ffi::gw_exchange_feed_end(ex),
            );
        }
        if !transport_in_use {
            let s = ffi::gw_exchange_feed_error(ex, GW_NETWORK, 0, message.as_ptr());
            refused("feed_error with no transport in use", s);
        }
    }
}

/// What a drive gave, without what differs from one answer to the next
/// (ids, timestamps).
fn gist(driven: &Driven) -> (i32, Vec<Seen>, Value, usize) {
    let content = serde_json::from_str::<Value>(&driven.out)
        .map(|v| v["choices"][0]["message"]["content"].clone())
        .unwrap_or(Value::Null);
    (
        driven.status,
        driven.events.clone(),
        content,
        driven.requests.len(),
    )
}

#[test]
fn misuse_in_every_phase_is_refused_and_changes_nothing() {
    let mock = MockGateway::start();
    let client = handle_with(&mock, json!({"max_retries": 1, "retry_base_delay_ms": 1}));
    // A clean stream, a retried one (a 503 first), and a stream cut short.
    let faults = [
        Value::Null,
        json!({"action": "status", "status": 503}),
        json!({"action": "truncate", "after_events": 2}),
    ];
    for fault in faults {
        for split in [5, 100_000] {
            mock.reset();
            if !fault.is_null() {
                mock.push_fault(fault.clone());
            }
            let clean = stream_chat(
                client.0,
                "misuse me",
                &mut Driver {
                    split,
                    ..Driver::default()
                },
            );
            mock.reset();
            if !fault.is_null() {
                mock.push_fault(fault.clone());
            }
            let mut calls = 0;
            let mut phases = Vec::new();
            let mut hook = |ex: *mut gw_exchange, phase: Phase| {
                phases.push(phase);
                misuse(ex, phase, &mut calls);
            };
            let misused = stream_chat(
                client.0,
                "misuse me",
                &mut Driver {
                    split,
                    hook: Some(&mut hook),
                    ..Driver::default()
                },
            );
            assert_eq!(gist(&misused), gist(&clean), "{fault}, split {split}");
            assert!(calls >= 12 * phases.len(), "{calls} calls");
            // Every phase was visited: before the head, in the body, after its end.
            assert!(phases
                .iter()
                .any(|p| p.want == ffi::GW_WANT_RECEIVE && !p.head_fed));
            assert!(phases.iter().any(|p| p.want == ffi::GW_WANT_EVENT));
            if fault["action"] == "truncate" {
                assert!(
                    phases.iter().any(|p| p.want == 0 && p.ended),
                    "after the end"
                );
            }
        }
    }
}

#[test]
fn the_end_and_a_failure_are_taken_once() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    // Cut short (no [DONE]): the end is fed while the stream is still read.
    mock.push_fault(json!({"action": "truncate", "after_events": 2}));
    let mut seen_after_end = 0;
    let mut hook = |ex: *mut gw_exchange, phase: Phase| unsafe {
        if phase.want == 0 && phase.ended {
            seen_after_end += 1;
            let bytes = b"data: {\"injected\":1}\n\n";
            let mut taken = 7usize;
            let fed = ffi::gw_exchange_feed_body(ex, bytes.as_ptr(), bytes.len(), &mut taken);
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
    };
    let driven = stream_chat(
        client.0,
        "ends once",
        &mut Driver {
            hook: Some(&mut hook),
            ..Driver::default()
        },
    );
    assert_eq!(driven.status, gw::GW_STREAM, "{}", driven.out);
    assert_eq!(driven.events.len(), 2);
    assert_eq!(seen_after_end, 1);
}

#[test]
fn a_refused_request_twice_and_a_finish_twice() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let body = chat("twice").to_string();
    unsafe {
        let ex = open(client.0, "POST", CHAT, Some(&body), 0).unwrap();
        assert_eq!(
            ffi::gw_exchange_step(ex, ptr::null_mut()),
            ffi::GW_WANT_SEND
        );
        let mut view: gw_request_view = std::mem::zeroed();
        assert_eq!(ffi::gw_exchange_request(ex, &mut view), GW_OK);
        let first = sent_of(&view);
        let mut again: gw_request_view = std::mem::zeroed();
        assert_eq!(
            ffi::gw_exchange_request(ex, &mut again),
            GW_INVALID_ARGUMENT
        );
        // The first view is still the exchange's: its pointers were not freed.
        assert_eq!(sent_of(&view).url, first.url);
        // The answer: a head with no body, then its end.
        assert_eq!(ffi::gw_exchange_feed_head(ex, 204, ptr::null(), 0), GW_OK);
        assert_eq!(
            ffi::gw_exchange_step(ex, ptr::null_mut()),
            ffi::GW_WANT_RECEIVE
        );
        assert_eq!(ffi::gw_exchange_feed_end(ex), GW_OK);
        assert_eq!(
            ffi::gw_exchange_step(ex, ptr::null_mut()),
            ffi::GW_WANT_DONE
        );
        let mut out: *mut c_char = ptr::null_mut();
        let status = ffi::gw_exchange_finish(ex, &mut out);
        let text = take(out);
        assert_eq!(status, GW_DECODE, "an empty 204 is no chat answer: {text}");
        let mut out: *mut c_char = ptr::null_mut();
        assert_eq!(ffi::gw_exchange_finish(ex, &mut out), status);
        assert_eq!(take(out), text);
        assert_eq!(ffi::gw_exchange_finish(ex, ptr::null_mut()), status);
        ffi::gw_exchange_free(ex);
    }
}

#[test]
fn a_full_buffer_takes_part_of_a_feed_and_the_rest_after_the_events() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    // ~2,000 words: a stream of about 300 KB, far over the 64 KiB of whole lines
    // a stream's buffer holds before refusing more.
    let words: Vec<String> = (0..2000).map(|i| format!("w{i}")).collect();
    let prompt = words.join(" ");
    let reference = stream_chat(
        client.0,
        &prompt,
        &mut Driver {
            split: 4096,
            ..Driver::default()
        },
    );
    assert_eq!(reference.status, GW_OK, "{}", reference.out);
    let body = chat(&prompt).to_string();
    unsafe {
        let ex = open(client.0, "POST", CHAT, Some(&body), ffi::GW_EXCHANGE_STREAM).unwrap();
        assert_eq!(
            ffi::gw_exchange_step(ex, ptr::null_mut()),
            ffi::GW_WANT_SEND
        );
        let mut view: gw_request_view = std::mem::zeroed();
        assert_eq!(ffi::gw_exchange_request(ex, &mut view), GW_OK);
        let (status, headers, stream) = common::exchange_driver::fetch(&view);
        assert_eq!(status, 200);
        assert!(stream.len() > 200_000, "{} bytes", stream.len());
        let names: Vec<(CString, CString)> = headers
            .iter()
            .map(|(k, v)| {
                (
                    CString::new(k.as_str()).unwrap(),
                    CString::new(v.as_str()).unwrap(),
                )
            })
            .collect();
        let list: Vec<gw_header> = names
            .iter()
            .map(|(k, v)| gw_header {
                name: k.as_ptr(),
                value: v.as_ptr(),
            })
            .collect();
        assert_eq!(
            ffi::gw_exchange_feed_head(ex, 200, list.as_ptr(), list.len()),
            GW_OK
        );
        let mut rest: &[u8] = &stream;
        let mut texts = String::new();
        let mut events = 0;
        let mut blocked = 0;
        let mut ended = false;
        loop {
            match ffi::gw_exchange_step(ex, ptr::null_mut()) {
                ffi::GW_WANT_RECEIVE if rest.is_empty() => {
                    assert!(!ended, "input wanted after the end");
                    assert_eq!(ffi::gw_exchange_feed_end(ex), GW_OK);
                    ended = true;
                }
                ffi::GW_WANT_RECEIVE => {
                    // A fast network: 16 KiB pieces fed until one is refused.
                    while !rest.is_empty() {
                        let piece = rest.len().min(16 * 1024);
                        let mut taken = usize::MAX;
                        let fed = ffi::gw_exchange_feed_body(ex, rest.as_ptr(), piece, &mut taken);
                        rest = &rest[taken.min(piece)..];
                        if fed == GW_WOULD_BLOCK {
                            assert!(taken < piece);
                            blocked += 1;
                            break;
                        }
                        assert_eq!((fed, taken), (GW_OK, piece));
                    }
                }
                ffi::GW_WANT_EVENT => {
                    let mut event = std::mem::zeroed::<gw_event>();
                    assert_eq!(ffi::gw_exchange_event(ex, &mut event), GW_OK);
                    events += 1;
                    if !event.text_delta.is_null() {
                        texts.push_str(&CStr::from_ptr(event.text_delta).to_string_lossy());
                    }
                }
                ffi::GW_WANT_DONE => break,
                other => panic!("step gave {other}"),
            }
        }
        let mut out: *mut c_char = ptr::null_mut();
        assert_eq!(ffi::gw_exchange_finish(ex, &mut out), GW_OK);
        let answer = parse(&take(out));
        ffi::gw_exchange_free(ex);
        assert!(blocked >= 3, "the buffer refused {blocked} times");
        assert_eq!(events, reference.events.len());
        assert_eq!(texts, reference.text);
        assert_eq!(answer["choices"][0]["message"]["content"], reference.text);
    }
}

#[test]
fn the_wait_for_the_head_is_bounded_by_first_byte_timeout_ms() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, r#","first_byte_timeout_ms":200"#);
    mock.push_fault(json!({"action": "delay", "ms": 3000}));
    let started = Instant::now();
    let driven = stream_chat(client.0, "slow", &mut Driver::default());
    let took = started.elapsed();
    assert_eq!(driven.status, GW_TIMEOUT, "{}", driven.out);
    assert!(
        driven.out.contains("first_byte_timeout_ms"),
        "{}",
        driven.out
    );
    assert!(
        took >= Duration::from_millis(190) && took < Duration::from_millis(2000),
        "{took:?}"
    );
    assert!(!driven.receive_waits.is_empty());
    assert!(
        driven.receive_waits.iter().all(|w| (0..=200).contains(w)),
        "{:?}",
        driven.receive_waits
    );
}

#[test]
fn a_silent_stream_is_bounded_by_read_timeout_ms() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, r#","read_timeout_ms":150"#);
    mock.push_fault(json!({"action": "drip", "interval_ms": 1000}));
    let started = Instant::now();
    let driven = stream_chat(client.0, "drip", &mut Driver::default());
    assert_eq!(driven.status, GW_TIMEOUT, "{}", driven.out);
    assert!(driven.out.contains("read_timeout_ms"), "{}", driven.out);
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "{:?}",
        started.elapsed()
    );
    // Up to the head first_byte_timeout_ms bounds the wait; in the body, 150 ms.
    let waits = &driven.receive_waits;
    let in_body: Vec<_> = waits.iter().skip_while(|w| **w > 150).collect();
    assert!(in_body.len() > 2, "{waits:?}");
    assert!(in_body.iter().all(|w| (0..=150).contains(*w)), "{waits:?}");
}

#[test]
fn the_whole_call_is_bounded_by_total_timeout_ms() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, r#","total_timeout_ms":300"#);
    mock.push_fault(json!({"action": "drip", "interval_ms": 100}));
    let started = Instant::now();
    let driven = stream_chat(client.0, "a b c d e f g h i j", &mut Driver::default());
    assert_eq!(driven.status, GW_TIMEOUT, "{}", driven.out);
    assert!(driven.out.contains("total_timeout_ms"), "{}", driven.out);
    assert!(!driven.events.is_empty(), "events came before the deadline");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert!(
        driven.receive_waits.iter().all(|w| (0..=300).contains(w)),
        "{:?}",
        driven.receive_waits
    );
}

#[test]
fn gw_client_cancel_from_another_thread_ends_a_stream() {
    let mock = MockGateway::start();
    let base = CClient::new(&mock, "");
    let handle = derive(&base, "{}");
    mock.push_fault(json!({"action": "drip", "interval_ms": 300}));
    let address = handle.0 as usize;
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        unsafe { ffi::gw_client_cancel(address as *const gw_client) };
        Instant::now()
    });
    let driven = stream_chat(handle.0, "cancel me please", &mut Driver::default());
    let returned = Instant::now();
    let cancelled_at = canceller.join().unwrap();
    assert_eq!(driven.status, GW_CANCELLED, "{}", driven.out);
    assert!(
        !driven.events.is_empty(),
        "cancelled mid-stream, after its first event"
    );
    assert!(returned.duration_since(cancelled_at) < Duration::from_millis(500));
    // The handle stays cancelled: a new exchange on it is refused; the base is untouched.
    let body = chat("again").to_string();
    let (status, _) = unsafe { open(handle.0, "POST", CHAT, Some(&body), 0) }.unwrap_err();
    assert_eq!(status, GW_CANCELLED);
    let ex = unsafe { open(base.0, "POST", CHAT, Some(&body), 0) }.unwrap();
    assert_eq!(unsafe { drive(ex, 64) }.status, GW_OK);
}

#[test]
fn a_429_with_retry_after_is_a_wait_of_that_long() {
    let mock = MockGateway::start();
    let client = handle_with(&mock, json!({"max_retries": 1}));
    mock.push_fault(json!({"action": "status", "status": 429, "headers": {"retry-after": "1"}}));
    let body = chat("patience").to_string();
    let driven = unsafe { drive(open(client.0, "POST", CHAT, Some(&body), 0).unwrap(), 64) };
    assert_eq!(driven.status, GW_OK, "{}", driven.out);
    assert_eq!(driven.requests.len(), 2);
    let first = *driven.waits.first().expect("a wait");
    assert!((900..=1000).contains(&first), "{:?}", driven.waits);
    assert!(
        driven.waits.windows(2).all(|w| w[1] <= w[0]),
        "the wait counts down"
    );
    assert!(last_response(client.0).contains("\"attempts\":2"));
}

#[test]
fn a_redirect_to_another_origin_goes_bare_and_a_post_never_goes() {
    let mock = MockGateway::start();
    let other = MockGateway::start();
    let client = CClient::new(&mock, r#","headers":{"x-custom":"home-only"}"#);
    let path = "/v1/videos/generations/task_1";
    mock.push_fault(json!({"action": "redirect", "status": 307,
        "location": format!("{}{path}", other.url())}));
    let driven = unsafe { drive(open(client.0, "GET", path, None, 0).unwrap(), 64) };
    assert_eq!(driven.requests.len(), 2, "{}", driven.out);
    let (home, away) = (&driven.requests[0], &driven.requests[1]);
    assert!(home
        .header("authorization")
        .is_some_and(|v| v.starts_with("Bearer ")));
    assert_eq!(home.header("x-custom"), Some("home-only"));
    assert!(away.url.starts_with(&other.url()), "{}", away.url);
    assert_eq!(away.header("authorization"), None);
    assert_eq!(away.header("x-custom"), None);
    let seen = other.requests();
    assert_eq!(seen.len(), 1);
    assert!(!seen[0]
        .headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("authorization")));
    // A POST is refused, not replayed: one request, none to the other origin.
    mock.reset();
    other.reset();
    mock.push_fault(json!({"action": "redirect", "status": 307,
        "location": format!("{}{CHAT}", other.url())}));
    let body = chat("stay home").to_string();
    let driven = unsafe { drive(open(client.0, "POST", CHAT, Some(&body), 0).unwrap(), 64) };
    assert_eq!(driven.status, GW_NETWORK, "{}", driven.out);
    assert!(driven.out.contains("never replayed"), "{}", driven.out);
    assert_eq!(driven.requests.len(), 1);
    assert_eq!(other.request_count(), 0);
}

#[test]
fn the_key_is_only_in_authorization_or_the_key_url() {
    let mock = MockGateway::start();
    let key = mock.api_key();
    let client = CClient::new(&mock, "");
    let said = format!(r#"{{"error":{{"message":"bad key {key}"}}}}"#);
    let echo = format!(
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nx-echo-{key}: 1\r\n\
         x-echo: {key}\r\ncontent-length: {}\r\n\r\n{said}",
        said.len()
    );
    let cases: Vec<(Value, &str, &str, Option<String>)> = vec![
        (
            json!({"action": "raw", "bytes": echo, "then": "close"}),
            "POST",
            CHAT,
            Some(chat("a").to_string()),
        ),
        (
            json!({"action": "status", "status": 400}),
            "POST",
            CHAT,
            Some(chat("b").to_string()),
        ),
        (
            Value::Null,
            "POST",
            "/v1beta/models/gemini-x:generateContent",
            Some(json!({"contents": [{"parts": [{"text": "hi"}]}]}).to_string()),
        ),
        (
            json!({"action": "redirect", "status": 307, "location": "http://127.0.0.2:9/v1/chat/completions"}),
            "POST",
            CHAT,
            Some(chat("c").to_string()),
        ),
    ];
    for (fault, method, path, body) in cases {
        mock.reset();
        if !fault.is_null() {
            mock.push_fault(fault.clone());
        }
        let driven = unsafe {
            drive(
                open(client.0, method, path, body.as_deref(), 0).unwrap(),
                16,
            )
        };
        assert!(!driven.requests.is_empty());
        for sent in &driven.requests {
            for (name, value) in &sent.headers {
                if !name.eq_ignore_ascii_case("authorization") {
                    assert!(!value.contains(&key), "{name} holds the key");
                }
            }
            if !path.starts_with("/v1beta/") {
                assert!(!sent.url.contains(&key), "{}", sent.url);
            }
        }
        let shown = format!("{} {}", driven.out, last_response(client.0)).to_ascii_lowercase();
        if driven.status != GW_OK {
            assert!(
                !shown.contains(&key.to_ascii_lowercase()),
                "{fault}: {shown}"
            );
        }
        assert!(!last_response(client.0)
            .to_ascii_lowercase()
            .contains(&key.to_ascii_lowercase()));
    }
}

#[test]
fn every_attempt_carries_the_same_idempotency_key() {
    let mock = MockGateway::start();
    let client = handle_with(&mock, json!({"max_retries": 2, "retry_base_delay_ms": 1}));
    mock.push_fault(json!({"action": "status", "status": 503, "times": 2}));
    let body = chat("once only").to_string();
    let driven = unsafe { drive(open(client.0, "POST", CHAT, Some(&body), 0).unwrap(), 64) };
    assert_eq!(driven.status, GW_OK, "{}", driven.out);
    assert_eq!(driven.requests.len(), 3);
    let keys: Vec<&str> = driven
        .requests
        .iter()
        .map(|r| r.header("idempotency-key").expect("a key on every attempt"))
        .collect();
    assert!(!keys[0].is_empty());
    assert!(keys.iter().all(|k| *k == keys[0]), "{keys:?}");
    let recorded: Vec<String> = mock
        .requests()
        .iter()
        .filter_map(|r| {
            r.headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("idempotency-key"))
                .map(|(_, v)| v.clone())
        })
        .collect();
    assert_eq!(recorded, vec![keys[0].to_string(); 3]);
    // A second call gets a key of its own.
    let again = unsafe { drive(open(client.0, "POST", CHAT, Some(&body), 0).unwrap(), 64) };
    assert_ne!(again.requests[0].header("idempotency-key"), Some(keys[0]));
}

/// (phase, attempt, status) of every observed attempt.
static OBSERVED: Mutex<Vec<(i32, u32, i32)>> = Mutex::new(Vec::new());

unsafe extern "C" fn observe(attempt: *const gw_attempt, _: *mut c_void) {
    let a = &*attempt;
    OBSERVED
        .lock()
        .unwrap()
        .push((a.phase, a.attempt, a.status));
}

#[test]
fn an_observed_handle_sees_each_attempt_of_an_exchange() {
    let mock = MockGateway::start();
    let base = handle_with(&mock, json!({"max_retries": 1, "retry_base_delay_ms": 1}));
    let mut observed: *mut gw_client = ptr::null_mut();
    let status = unsafe {
        ffi::gw_client_create_observed(
            base.0,
            ptr::null(),
            Some(observe),
            ptr::null_mut(),
            &mut observed,
            ptr::null_mut(),
        )
    };
    assert_eq!(status, GW_OK);
    let observed = CClient(observed);
    mock.push_fault(json!({"action": "status", "status": 500}));
    let driven = stream_chat(observed.0, "watched", &mut Driver::default());
    assert_eq!(driven.status, GW_OK, "{}", driven.out);
    let (start, end) = (ffi::GW_ATTEMPT_START, ffi::GW_ATTEMPT_END);
    assert_eq!(
        *OBSERVED.lock().unwrap(),
        vec![(start, 1, 0), (end, 1, 500), (start, 2, 0), (end, 2, 200)]
    );
    // The unobserved base is not seen.
    let body = chat("unseen").to_string();
    unsafe { drive(open(base.0, "POST", CHAT, Some(&body), 0).unwrap(), 64) };
    assert_eq!(OBSERVED.lock().unwrap().len(), 4);
}

#[test]
fn a_redirect_whose_location_holds_the_key_is_refused() {
    let mock = MockGateway::start();
    let key = mock.api_key();
    let client = CClient::new(&mock, "");
    // Same origin, the key in the path: following it would put the key in a URL
    // (the request view's, the logs', the metadata's).
    for location in [
        format!("/v1/echo/{key}/x"),
        format!("{}/v1/x?k={key}", mock.url()),
    ] {
        mock.reset();
        mock.push_fault(json!({"action": "redirect", "status": 307, "location": location}));
        let body = chat("no key in urls").to_string();
        let driven = unsafe { drive(open(client.0, "POST", CHAT, Some(&body), 0).unwrap(), 64) };
        assert_eq!(driven.status, GW_NETWORK, "{}", driven.out);
        assert!(driven.out.contains("redirect refused"), "{}", driven.out);
        assert_eq!(driven.requests.len(), 1, "{:?}", driven.requests);
        assert!(!driven.out.contains(&key), "{}", driven.out);
        assert!(!last_response(client.0).contains(&key));
    }
}

/// (phase, status) of each attempt event `record` saw (its own list: tests run at once).
static SEEN: Mutex<Vec<(i32, i32)>> = Mutex::new(Vec::new());

unsafe extern "C" fn record(attempt: *const gw_attempt, _user: *mut c_void) {
    let a = &*attempt;
    SEEN.lock().unwrap().push((a.phase, a.status));
}

#[test]
fn an_attempt_cut_by_the_total_deadline_is_reported_ended() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "delay", "ms": 1000}));
    let base = CClient::new(&mock, r#","total_timeout_ms":100"#);
    let mut observed: *mut gw_client = ptr::null_mut();
    let status = unsafe {
        ffi::gw_client_create_observed(
            base.0,
            ptr::null(),
            Some(record),
            ptr::null_mut(),
            &mut observed,
            ptr::null_mut(),
        )
    };
    assert_eq!(status, GW_OK);
    let observed = CClient(observed);
    let request = chat("hello").to_string();
    let ex = unsafe { open(observed.0, "POST", CHAT, Some(&request), 0).unwrap() };
    // A driver that sends and then waits for the head as long as the exchange says,
    // without an answer: the exchange's own deadline ends the attempt.
    unsafe {
        let mut wait = 0i64;
        assert_eq!(ffi::gw_exchange_step(ex, &mut wait), ffi::GW_WANT_SEND);
        let mut view: gw_request_view = std::mem::zeroed();
        assert_eq!(ffi::gw_exchange_request(ex, &mut view), GW_OK);
        assert_eq!(ffi::gw_exchange_step(ex, &mut wait), ffi::GW_WANT_RECEIVE);
        assert!((0..=100).contains(&wait), "wait {wait}");
        std::thread::sleep(Duration::from_millis(wait as u64 + 5));
        assert_eq!(ffi::gw_exchange_step(ex, &mut wait), ffi::GW_WANT_DONE);
        assert_eq!(ffi::gw_exchange_finish(ex, ptr::null_mut()), gw::GW_TIMEOUT);
        ffi::gw_exchange_free(ex);
    }
    let seen = SEEN.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            (ffi::GW_ATTEMPT_START, 0),
            (ffi::GW_ATTEMPT_END, gw::GW_TIMEOUT)
        ],
        "the attempt's end is reported"
    );
}

/// A line with no end, fed in small pieces, is refused at the line cap after each
/// byte was looked at about once: were every piece to send the parser over the
/// whole unfinished line again, 2 MiB fed 64 bytes at a time would scan some
/// 100 GB (minutes), not 2 MiB.
#[test]
fn a_long_unfinished_line_fed_in_small_pieces_is_searched_once() {
    let client = CClient::with_options(
        r#"{"base_url":"http://127.0.0.1:9","api_key":"sk-test","max_retries":0,"max_line_bytes":1048576}"#,
    );
    let request = chat("long line").to_string();
    let ex = unsafe {
        open(
            client.0,
            "POST",
            CHAT,
            Some(&request),
            ffi::GW_EXCHANGE_STREAM,
        )
        .unwrap()
    };
    let name = CString::new("content-type").unwrap();
    let value = CString::new("text/event-stream").unwrap();
    let head = [gw_header {
        name: name.as_ptr(),
        value: value.as_ptr(),
    }];
    let piece = [b'a'; 64];
    let mut fed = 0usize;
    unsafe {
        let mut wait = 0i64;
        assert_eq!(ffi::gw_exchange_step(ex, &mut wait), ffi::GW_WANT_SEND);
        let mut view: gw_request_view = std::mem::zeroed();
        assert_eq!(ffi::gw_exchange_request(ex, &mut view), GW_OK);
        assert_eq!(ffi::gw_exchange_feed_head(ex, 200, head.as_ptr(), 1), GW_OK);
        let mut taken = 0usize;
        assert_eq!(
            ffi::gw_exchange_feed_body(ex, b"data: ".as_ptr(), 6, &mut taken),
            GW_OK
        );
        loop {
            match ffi::gw_exchange_step(ex, &mut wait) {
                ffi::GW_WANT_RECEIVE => {}
                ffi::GW_WANT_DONE => break,
                other => panic!("step gave {other} after {fed} bytes"),
            }
            assert!(fed < 4 << 20, "the line was never refused");
            let status = ffi::gw_exchange_feed_body(ex, piece.as_ptr(), piece.len(), &mut taken);
            // At the cap a feed takes only what fits (GW_WOULD_BLOCK), and the line is over.
            assert!(
                status == GW_OK || status == gw::GW_WOULD_BLOCK,
                "{status} after {fed} bytes"
            );
            fed += taken;
        }
        let mut out: *mut c_char = ptr::null_mut();
        assert_eq!(ffi::gw_exchange_finish(ex, &mut out), gw::GW_TOO_LARGE);
        let text = take(out);
        assert!(text.contains("max_line_bytes"), "{text}");
        ffi::gw_exchange_free(ex);
    }
    assert!(
        (1 << 20..(1 << 20) + 128).contains(&(fed + 6)),
        "refused after {fed} bytes"
    );
}
