//! `gw_stream_next_buffered`: the next event from the bytes gw has already read,
//! never a read. Mixed in any order with `gw_stream_next`, a stream gives the
//! same events, texts, end and final answer as `gw_stream_next` alone.

mod common;

use std::ffi::{c_char, c_int, CStr, CString};
use std::ptr;

use common::c_client::{take, CClient};
use common::*;
use gw::ffi::{self, gw_client, gw_event, gw_stream};
use gw::{GW_CANCELLED, GW_DONE, GW_INVALID_ARGUMENT, GW_OK, GW_WOULD_BLOCK};
use gw_mock::MockGateway;
use serde_json::{json, Value};

type Open = unsafe extern "C" fn(
    *const gw_client,
    *const c_char,
    *mut *mut gw_stream,
    *mut *mut c_char,
) -> c_int;

/// How a run pulls its events.
#[derive(Clone, Copy, Debug)]
enum How {
    /// `gw_stream_next` only: the reference.
    Blocking,
    /// `gw_stream_next_buffered` first, `gw_stream_next` on `GW_WOULD_BLOCK` (the
    /// Swift binding's way).
    BufferedFirst,
    /// Either, picked by a seeded generator: buffered steps that stop are just
    /// repeated or followed by a blocking one, some time later.
    Mixed(u64),
}

/// One event as C sees it, with the ids and timestamps the mock makes per
/// request left out (two requests are compared).
#[derive(Debug, PartialEq)]
struct Seen {
    event: String,
    data: Value,
    text: Option<String>,
    index: usize,
    choice: usize,
}

#[derive(Debug)]
struct Run {
    events: Vec<Seen>,
    /// The status that ended the stream (GW_DONE or a failure).
    end: c_int,
    finish: (c_int, Value),
    /// Events `gw_stream_next_buffered` gave, and its `GW_WOULD_BLOCK`s.
    from_buffer: usize,
    would_block: usize,
}

/// The value without the per-request fields (`id`, `item_id`, `created`, `created_at`), anywhere in it.
fn without_ids(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for k in ["id", "item_id", "created", "created_at"] {
                    map.remove(k);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

fn text_of(ptr: *const c_char, len: usize) -> String {
    assert!(!ptr.is_null());
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    assert_eq!(unsafe { *ptr.add(len) }, 0, "NUL-terminated");
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn seen(ev: &gw_event) -> Seen {
    let data = text_of(ev.data, ev.data_len);
    Seen {
        event: unsafe { CStr::from_ptr(ev.event) }
            .to_str()
            .unwrap()
            .to_string(),
        data: without_ids(serde_json::from_str(&data).unwrap_or(Value::String(data))),
        text: (!ev.text_delta.is_null()).then(|| text_of(ev.text_delta, ev.text_delta_len)),
        index: ev.index,
        choice: ev.choice_index,
    }
}

/// Pulls a whole stream of `request` the `how` way, then finishes it.
fn run(c: &CClient, open: Open, request: &Value, how: How) -> Run {
    let request = CString::new(request.to_string()).unwrap();
    let mut stream: *mut gw_stream = ptr::null_mut();
    let mut out: *mut c_char = ptr::null_mut();
    let status = unsafe { open(c.0, request.as_ptr(), &mut stream, &mut out) };
    assert_eq!(status, GW_OK, "{}", take(out));
    let mut run = Run {
        events: Vec::new(),
        end: GW_OK,
        finish: (GW_OK, Value::Null),
        from_buffer: 0,
        would_block: 0,
    };
    let mut pick = match how {
        How::Mixed(seed) => seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
        _ => 1,
    };
    loop {
        let mut event: *const gw_event = ptr::null();
        let buffered = match how {
            How::Blocking => false,
            How::BufferedFirst => true,
            How::Mixed(_) => {
                pick ^= pick << 13;
                pick ^= pick >> 7;
                pick ^= pick << 17;
                pick % 3 != 0
            }
        };
        let mut status = if buffered {
            unsafe { ffi::gw_stream_next_buffered(stream, &mut event) }
        } else {
            unsafe { ffi::gw_stream_next(stream, &mut event) }
        };
        if buffered {
            if status == GW_WOULD_BLOCK {
                assert!(event.is_null(), "no event with GW_WOULD_BLOCK");
                run.would_block += 1;
                if matches!(how, How::Mixed(_)) {
                    continue;
                }
                status = unsafe { ffi::gw_stream_next(stream, &mut event) };
            } else if status == GW_OK {
                run.from_buffer += 1;
            }
        }
        if status != GW_OK {
            assert!(event.is_null());
            run.end = status;
            break;
        }
        run.events.push(seen(unsafe { &*event }));
    }
    // The end is sticky, for both.
    let mut event: *const gw_event = ptr::null();
    assert_eq!(
        unsafe { ffi::gw_stream_next_buffered(stream, &mut event) },
        run.end
    );
    assert_eq!(unsafe { ffi::gw_stream_next(stream, &mut event) }, run.end);
    let mut out: *mut c_char = ptr::null_mut();
    let status = unsafe { ffi::gw_stream_finish(stream, &mut out) };
    run.finish = (status, without_ids(parse(&take(out))));
    unsafe { ffi::gw_stream_free(stream) };
    run
}

/// Every way gives what `gw_stream_next` alone gives; returns the runs (the
/// reference first) for the caller's checks on how they went.
fn same_every_way(c: &CClient, open: Open, request: &Value, seeds: u64) -> Vec<Run> {
    let reference = run(c, open, request, How::Blocking);
    let mut runs = vec![reference];
    let mut hows = vec![How::BufferedFirst];
    hows.extend((0..seeds).map(How::Mixed));
    for how in hows {
        let got = run(c, open, request, how);
        let reference = &runs[0];
        assert_eq!(got.end, reference.end, "{how:?}");
        assert_eq!(got.events, reference.events, "{how:?}");
        assert_eq!(got.finish, reference.finish, "{how:?}");
        runs.push(got);
    }
    runs
}

fn words(n: usize) -> String {
    (0..n)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_long_chat_stream_gives_the_same_events_and_answer_every_way() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    let runs = same_every_way(&c, ffi::gw_chat_stream_open, &chat(&words(400)), 6);
    let reference = &runs[0];
    assert_eq!(reference.end, GW_DONE);
    assert!(reference.events.len() > 400, "{}", reference.events.len());
    assert_eq!(reference.finish.0, GW_OK);
    let answer = reference.finish.1["choices"][0]["message"]["content"].clone();
    assert_eq!(answer, format!("Echo: {}", words(400)));
    // Buffered first: it stops before the first byte and at the end (the body's
    // end is read by gw_stream_next), and takes most of a burst's events itself.
    let buffered_first = &runs[1];
    assert!(buffered_first.would_block >= 2, "{buffered_first:?}");
    assert!(
        buffered_first.from_buffer > 0,
        "no event came from the buffer: {} would-blocks",
        buffered_first.would_block
    );
}

#[test]
fn a_responses_stream_gives_the_same_events_and_answer_every_way() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    let request = json!({"model": "m", "input": words(200)});
    let runs = same_every_way(&c, ffi::gw_responses_stream_open, &request, 4);
    assert_eq!(runs[0].end, GW_DONE);
    assert_eq!(runs[0].finish.1["status"], "completed");
    assert_eq!(
        runs[0].events.last().map(|e| e.event.as_str()),
        Some("response.completed")
    );
}

/// Events that come one read at a time (the mock sleeps before each): buffered
/// steps mostly stop, and nothing is lost or doubled where they do.
#[test]
fn a_dripping_stream_gives_the_same_events_and_answer_every_way() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    for _ in 0..4 {
        mock.push_fault(json!({"action": "drip", "interval_ms": 3}));
    }
    let runs = same_every_way(&c, ffi::gw_chat_stream_open, &chat(&words(30)), 2);
    assert_eq!(runs[0].end, GW_DONE);
    assert!(runs[1].would_block > 10, "{:?}", runs[1].would_block);
}

/// The failures a stream's bytes carry are the same failures, with the same
/// error JSON: an in-stream error event, a broken event, a line over the cap.
#[test]
fn in_stream_failures_are_the_same_every_way() {
    let faults = [
        json!({"action": "stream_error", "after_events": 40}),
        json!({"action": "garbage_event", "after_events": 40}),
        json!({"action": "huge_line", "after_events": 40, "bytes": 100_000}),
    ];
    for fault in faults {
        let mock = MockGateway::start();
        let c = CClient::new(&mock, r#","max_line_bytes":65536"#);
        for _ in 0..4 {
            mock.push_fault(fault.clone());
        }
        let runs = same_every_way(&c, ffi::gw_chat_stream_open, &chat(&words(100)), 2);
        let reference = &runs[0];
        assert!(reference.end < 0, "{fault}: {}", reference.end);
        assert_eq!(reference.finish.0, reference.end, "{fault}");
        assert!(
            reference.finish.1["error"]["message"].is_string(),
            "{fault}"
        );
        assert_eq!(reference.events.len(), 40, "{fault}");
    }
}

/// A cancel ends a buffered step as it ends a reading one, even with events
/// still in the buffer.
#[test]
fn a_cancel_ends_buffered_steps_too() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    let request = CString::new(chat(&words(200)).to_string()).unwrap();
    let mut stream: *mut gw_stream = ptr::null_mut();
    let status =
        unsafe { ffi::gw_chat_stream_open(c.0, request.as_ptr(), &mut stream, ptr::null_mut()) };
    assert_eq!(status, GW_OK);
    let mut event: *const gw_event = ptr::null();
    assert_eq!(unsafe { ffi::gw_stream_next(stream, &mut event) }, GW_OK);
    unsafe { ffi::gw_client_cancel(c.0) };
    assert_eq!(
        unsafe { ffi::gw_stream_next_buffered(stream, &mut event) },
        GW_CANCELLED
    );
    assert!(event.is_null());
    assert_eq!(
        unsafe { ffi::gw_stream_next(stream, &mut event) },
        GW_CANCELLED
    );
    let mut out: *mut c_char = ptr::null_mut();
    assert_eq!(
        unsafe { ffi::gw_stream_finish(stream, &mut out) },
        GW_CANCELLED
    );
    assert_eq!(parse(&take(out))["error"]["code"], "cancelled");
    unsafe { ffi::gw_stream_free(stream) };
}

#[test]
fn null_arguments_are_invalid_not_a_crash() {
    let mut event: *const gw_event = ptr::dangling();
    assert_eq!(
        unsafe { ffi::gw_stream_next_buffered(ptr::null_mut(), &mut event) },
        GW_INVALID_ARGUMENT
    );
    assert!(event.is_null(), "*event is NULL unless GW_OK");
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    let request = CString::new(chat("a b").to_string()).unwrap();
    let mut stream: *mut gw_stream = ptr::null_mut();
    let status =
        unsafe { ffi::gw_chat_stream_open(c.0, request.as_ptr(), &mut stream, ptr::null_mut()) };
    assert_eq!(status, GW_OK);
    assert_eq!(
        unsafe { ffi::gw_stream_next_buffered(stream, ptr::null_mut()) },
        GW_INVALID_ARGUMENT
    );
    let run_after = {
        let mut out: *mut c_char = ptr::null_mut();
        let status = unsafe { ffi::gw_stream_finish(stream, &mut out) };
        (status, take(out))
    };
    assert_eq!(run_after.0, GW_OK, "the stream goes on: {}", run_after.1);
    unsafe { ffi::gw_stream_free(stream) };
}
