//! `gw_exchange_new_video_wait`: a video task's wait driven over the C ABI by
//! the tests' plain-HTTP driver (`common/exchange_driver.rs`). Every poll is a
//! request of the driver's, every record an event, the pauses `GW_WANT_WAIT`s,
//! and the end what `gw_video_wait` gives: the final record, a failed task as
//! `GW_VENDOR` with its record, the timeout, a failed poll, a cancel; misuse
//! and bad arguments refused as for every exchange.

mod common;

use std::ffi::{c_char, c_int, CStr, CString};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::c_client::{take, CClient};
use common::exchange_driver::{drive, drive_with, Driven, Driver, Phase};
use common::*;
use gw::ffi::{self, gw_client, gw_event, gw_exchange, gw_request_view};
use gw::{GW_CANCELLED, GW_INVALID_ARGUMENT, GW_OK, GW_TIMEOUT, GW_VENDOR};
use gw_mock::MockGateway;
use serde_json::{json, Value};

const FAST: &str = r#"{"interval_ms": 5, "timeout_ms": 10000}"#;

/// The exchange, or the constructor's status and error JSON.
type Opened = Result<*mut gw_exchange, (c_int, String)>;

unsafe fn open(
    client: *const gw_client,
    family: c_int,
    task_id: &str,
    options: Option<&str>,
) -> Opened {
    let task_id = CString::new(task_id).unwrap();
    let options = options.map(|o| CString::new(o).unwrap());
    let mut ex: *mut gw_exchange = ptr::null_mut();
    let mut err: *mut c_char = ptr::null_mut();
    let status = ffi::gw_exchange_new_video_wait(
        client,
        family,
        task_id.as_ptr(),
        options.as_ref().map_or(ptr::null(), |o| o.as_ptr()),
        &mut ex,
        &mut err,
    );
    if status == GW_OK {
        assert!(err.is_null());
        assert!(!ex.is_null());
        return Ok(ex);
    }
    assert!(ex.is_null(), "a refused exchange was handed out");
    Err((status, take(err)))
}

/// The blocking call's status and `*out`, with (status, record) of every poll.
fn blocking_wait(
    client: *const gw_client,
    family: c_int,
    task_id: &str,
    options: &str,
) -> (c_int, String, Vec<(String, Value)>) {
    unsafe extern "C" fn progress(
        status: *const c_char,
        record: *const c_char,
        user_data: *mut std::ffi::c_void,
    ) -> c_int {
        let seen = &mut *(user_data as *mut Vec<(String, Value)>);
        let status = CStr::from_ptr(status).to_string_lossy().into_owned();
        seen.push((status, parse(&CStr::from_ptr(record).to_string_lossy())));
        0
    }
    let task_id = CString::new(task_id).unwrap();
    let options = CString::new(options).unwrap();
    let mut seen: Vec<(String, Value)> = Vec::new();
    let mut out: *mut c_char = ptr::null_mut();
    let status = unsafe {
        ffi::gw_video_wait(
            client,
            family,
            task_id.as_ptr(),
            options.as_ptr(),
            Some(progress),
            (&mut seen as *mut Vec<(String, Value)>).cast(),
            &mut out,
        )
    };
    (status, take(out), seen)
}

unsafe fn c_text(p: *const c_char) -> String {
    CStr::from_ptr(p).to_string_lossy().into_owned()
}

/// Drives a wait, gathering (status, record) of every event as the driver
/// reads it; `also` runs after every step too.
fn drive_wait(
    ex: *mut gw_exchange,
    also: &mut dyn FnMut(*mut gw_exchange, Phase, usize),
) -> (Driven, Vec<(String, Value)>) {
    let mut seen: Vec<(String, Value)> = Vec::new();
    let mut hook = |ex: *mut gw_exchange, phase: Phase| {
        if phase.want == ffi::GW_WANT_EVENT {
            let mut event: gw_event = unsafe { std::mem::zeroed() };
            assert_eq!(unsafe { ffi::gw_exchange_event(ex, &mut event) }, GW_OK);
            assert!(event.text_delta.is_null());
            assert_eq!(event.index, seen.len(), "one event per poll, in order");
            let data = unsafe { c_text(event.data) };
            assert_eq!(data.len(), event.data_len);
            seen.push((unsafe { c_text(event.event) }, parse(&data)));
        }
        also(ex, phase, seen.len());
    };
    let driven = unsafe {
        drive_with(
            ex,
            &mut Driver {
                hook: Some(&mut hook),
                ..Driver::default()
            },
        )
    };
    (driven, seen)
}

/// An answer with the task's id and creation time taken out, to compare two tasks'.
fn comparable(out: &str, id: &str) -> Value {
    let mut value = parse(&out.replace(id, "ID"));
    if let Some(map) = value.as_object_mut() {
        map.remove("createdAt");
    }
    value
}

fn statuses(seen: &[(String, Value)]) -> Vec<&str> {
    seen.iter().map(|(s, _)| s.as_str()).collect()
}

#[test]
fn a_task_polled_to_its_end_gives_an_event_per_poll_and_the_final_record() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-job-1", Some(FAST)).unwrap() };
    let (driven, seen) = drive_wait(ex, &mut |_, _, _| {});
    assert_eq!(driven.status, GW_OK, "{}", driven.out);
    assert_eq!(statuses(&seen), ["PENDING", "RUNNING", "SUCCEEDED"]);
    let record = parse(&driven.out);
    assert_eq!(record["id"], "r-job-1");
    assert_eq!(record, seen[2].1, "the answer is the last record seen");
    // Every poll went through the driver: a GET of the task, with the key.
    assert_eq!(driven.requests.len(), 3);
    for sent in &driven.requests {
        assert_eq!(sent.method, "GET");
        assert!(sent.url.ends_with("/vendorR/task/r-job-1"), "{}", sent.url);
        assert!(sent.header("authorization").is_some());
    }
    assert_eq!(mock.request_count(), 3);
    // Two pauses (each at least the floor, stepped in ticks), none after the last poll.
    assert!(!driven.waits.is_empty());
    assert!(
        driven.waits.iter().all(|w| (0..=100).contains(w)),
        "{:?}",
        driven.waits
    );

    // The blocking call gives the same, poll for poll.
    let (status, out, blocking_seen) =
        blocking_wait(client.0, ffi::GW_VIDEO_VENDOR_R, "r-job-1b", FAST);
    assert_eq!(status, GW_OK);
    assert_eq!(statuses(&blocking_seen), statuses(&seen));
    assert_eq!(parse(&out)["status"], record["status"]);
}

#[test]
fn every_family_is_polled_where_its_status_lives() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let client = CClient::new(&mock, "");
    let task = parse(
        &c.call(
            &gw::ops::VENDOR_K_TEXT2VIDEO,
            &[],
            Some(&json!({"model_name": "k-model", "prompt": "a fox"})),
        )
        .unwrap(),
    );
    let id = task["data"]["task_id"].as_str().unwrap();
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_K, id, Some(FAST)).unwrap() };
    let (driven, seen) = drive_wait(ex, &mut |_, _, _| {});
    assert_eq!(driven.status, GW_OK, "{}", driven.out);
    assert_eq!(statuses(&seen), ["submitted", "processing", "succeed"]);
    assert_eq!(parse(&driven.out)["data"]["task_status"], "succeed");
}

#[test]
fn a_failed_task_is_gw_vendor_with_its_record_as_the_blocking_call_says() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-fail-2", Some(FAST)).unwrap() };
    let (driven, seen) = drive_wait(ex, &mut |_, _, _| {});
    assert_eq!(driven.status, GW_VENDOR, "{}", driven.out);
    assert_eq!(statuses(&seen), ["PENDING", "RUNNING", "FAILED"]);
    let (status, out, _) = blocking_wait(client.0, ffi::GW_VIDEO_VENDOR_R, "r-fail-3", FAST);
    assert_eq!(status, GW_VENDOR);
    assert_eq!(
        comparable(&driven.out, "r-fail-2"),
        comparable(&out, "r-fail-3"),
        "the same error JSON, record and all"
    );
    assert_eq!(
        parse(&driven.out)["failureCode"],
        "INTERNAL",
        "{}",
        driven.out
    );
}

#[test]
fn the_timeout_ends_the_wait_with_the_blocking_calls_text() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let options = r#"{"interval_ms": 200, "timeout_ms": 50}"#;
    let started = Instant::now();
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-slow", Some(options)).unwrap() };
    let (driven, seen) = drive_wait(ex, &mut |_, _, _| {});
    assert_eq!(driven.status, GW_TIMEOUT, "{}", driven.out);
    assert!(
        driven.out.contains("task r-slow still 'PENDING' after"),
        "{}",
        driven.out
    );
    assert!(driven.out.contains("(timeout_ms)"), "{}", driven.out);
    assert_eq!(statuses(&seen), ["PENDING"]);
    assert!(driven.waits.is_empty(), "no pause past the deadline");
    assert!(started.elapsed() < Duration::from_millis(200));
    assert_eq!(mock.request_count(), 1);
    let (status, out, _) = blocking_wait(client.0, ffi::GW_VIDEO_VENDOR_R, "r-slow-2", options);
    assert_eq!(status, GW_TIMEOUT);
    let without_time = |s: &str| s.split(" after ").next().unwrap().to_string();
    assert_eq!(
        without_time(&driven.out),
        without_time(&out.replace("r-slow-2", "r-slow"))
    );
}

#[test]
fn a_slow_poll_does_not_outlive_the_timeout() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"match": "/vendorR/", "action": "delay", "ms": 1500}));
    let client = CClient::new(&mock, "");
    let options = r#"{"interval_ms": 10, "timeout_ms": 150}"#;
    let started = Instant::now();
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-stalled", Some(options)).unwrap() };
    let (driven, seen) = drive_wait(ex, &mut |_, _, _| {});
    assert_eq!(driven.status, GW_TIMEOUT, "{}", driven.out);
    assert!(
        driven.out.contains("task r-stalled not done after"),
        "{}",
        driven.out
    );
    assert!(seen.is_empty());
    // The poll's own timers say when: the driver stepped in time.
    assert!(
        driven.receive_waits.iter().all(|w| *w <= 150),
        "{:?}",
        driven.receive_waits
    );
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(1000), "{elapsed:?}");
}

#[test]
fn a_failed_poll_ends_the_wait_with_its_status() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let fault = json!({"match": "/vendorR/", "action": "status", "status": 500, "times": 1});
    mock.push_fault(
        json!([{"match": "/vendorR/", "action": "status", "status": 200,
        "body": "{\"id\":\"r-500\",\"status\":\"RUNNING\"}", "times": 1}, fault]),
    );
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-500", Some(FAST)).unwrap() };
    let (driven, seen) = drive_wait(ex, &mut |_, _, _| {});
    assert_eq!(statuses(&seen), ["RUNNING"]);
    assert_eq!(driven.requests.len(), 2, "no retry with max_retries 0");
    mock.push_fault(fault);
    let (status, out, _) = blocking_wait(client.0, ffi::GW_VIDEO_VENDOR_R, "r-500", FAST);
    assert_ne!(status, GW_OK);
    assert_eq!(driven.status, status, "{}", driven.out);
    assert_eq!(driven.out, out);
}

#[test]
fn a_poll_is_retried_inside_the_wait() {
    let mock = MockGateway::start();
    let client = CClient::with_options(
        &json!({"base_url": mock.url(), "api_key": mock.api_key(), "max_retries": 2,
                "retry_base_delay_ms": 1})
        .to_string(),
    );
    mock.push_fault(json!({"match": "/vendorR/", "action": "status", "status": 503, "times": 1}));
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-retry", Some(FAST)).unwrap() };
    let (driven, seen) = drive_wait(ex, &mut |_, _, _| {});
    assert_eq!(driven.status, GW_OK, "{}", driven.out);
    assert_eq!(statuses(&seen), ["PENDING", "RUNNING", "SUCCEEDED"]);
    assert_eq!(driven.requests.len(), 4, "the 503 was sent again, once");
}

#[test]
fn the_server_poll_hint_paces_the_pause() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    mock.push_fault(json!([{
        "action": "status", "status": 200, "times": 1, "match": "/vendorR/",
        "headers": {"openai-poll-after-ms": "150"},
        "body": "{\"id\":\"r-hint\",\"status\":\"RUNNING\"}"
    }, {
        "action": "status", "status": 200, "match": "/vendorR/",
        "body": "{\"id\":\"r-hint\",\"status\":\"SUCCEEDED\"}"
    }]));
    let options = r#"{"interval_ms": 20000, "timeout_ms": 60000}"#;
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-hint", Some(options)).unwrap() };
    let started = Instant::now();
    let (driven, _) = drive_wait(ex, &mut |_, _, _| {});
    assert_eq!(driven.status, GW_OK, "{}", driven.out);
    let first = driven.waits[0];
    assert!((100..=150).contains(&first), "the hint, not 20 s: {first}");
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_cancel_ends_the_wait_between_polls_and_during_the_pause() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    // After the second record (as a progress callback would stop it).
    let handle = client.0;
    let ex = unsafe { open(handle, ffi::GW_VIDEO_VENDOR_R, "r-cancel", Some(FAST)).unwrap() };
    let (driven, seen) = drive_wait(ex, &mut |_, phase, events| {
        if phase.want == ffi::GW_WANT_EVENT && events == 2 {
            unsafe { ffi::gw_client_cancel(handle) };
        }
    });
    assert_eq!(driven.status, GW_CANCELLED, "{}", driven.out);
    assert_eq!(statuses(&seen), ["PENDING", "RUNNING"]);
    assert_eq!(mock.request_count(), 2, "no poll after the cancel");

    // From another thread, in a long pause: over within a tick.
    let client = CClient::new(&mock, "");
    let ex = unsafe {
        open(
            client.0,
            ffi::GW_VIDEO_VENDOR_R,
            "r-cancel-2",
            Some(r#"{"interval_ms": 10000}"#),
        )
        .unwrap()
    };
    let handle = client.0 as usize;
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        unsafe { ffi::gw_client_cancel(handle as *const gw_client) };
        Instant::now()
    });
    let driven = unsafe { drive(ex, 1024) };
    let cancelled_at = canceller.join().unwrap();
    assert_eq!(driven.status, GW_CANCELLED, "{}", driven.out);
    assert!(cancelled_at.elapsed() < Duration::from_millis(50));
    assert_eq!(driven.requests.len(), 1);
}

#[test]
fn a_cancelled_handle_refuses_the_wait() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    unsafe { ffi::gw_client_cancel(client.0) };
    let (status, err) = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-x", None).unwrap_err() };
    assert_eq!(status, GW_CANCELLED, "{err}");
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn misuse_between_polls_is_refused_and_changes_nothing() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let ex = unsafe { open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-misuse", Some(FAST)).unwrap() };
    let refused = AtomicUsize::new(0);
    let (driven, seen) = drive_wait(ex, &mut |ex, phase, _| unsafe {
        let mut out: *mut c_char = ptr::null_mut();
        let mut view: gw_request_view = std::mem::zeroed();
        let mut event: gw_event = std::mem::zeroed();
        let headers: [ffi::gw_header; 0] = [];
        let check = |status: c_int| {
            assert_eq!(status, GW_INVALID_ARGUMENT, "at {phase:?}");
            refused.fetch_add(1, Ordering::Relaxed);
        };
        match phase.want {
            ffi::GW_WANT_EVENT => {
                check(ffi::gw_exchange_feed_head(ex, 200, headers.as_ptr(), 0));
                check(ffi::gw_exchange_feed_body(
                    ex,
                    b"x".as_ptr(),
                    1,
                    ptr::null_mut(),
                ));
                check(ffi::gw_exchange_feed_end(ex));
                check(ffi::gw_exchange_request(ex, &mut view));
                check(ffi::gw_exchange_finish(ex, &mut out));
                assert!(take(out).contains("not over yet"));
                // The event is still there.
                assert_eq!(ffi::gw_exchange_event(ex, &mut event), GW_OK);
            }
            ffi::GW_WANT_WAIT => {
                check(ffi::gw_exchange_event(ex, &mut event));
                check(ffi::gw_exchange_feed_error(
                    ex,
                    gw::GW_NETWORK,
                    0,
                    ptr::null(),
                ));
                check(ffi::gw_exchange_request(ex, &mut view));
            }
            _ => {}
        }
    });
    assert_eq!(driven.status, GW_OK, "{}", driven.out);
    assert_eq!(statuses(&seen), ["PENDING", "RUNNING", "SUCCEEDED"]);
    assert!(refused.load(Ordering::Relaxed) >= 3 * 5 + 2 * 3);
}

#[test]
fn bad_arguments_are_refused_by_name() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let cases: [(&str, Opened); 4] = unsafe {
        [
            ("client", open(ptr::null(), 0, "t", None)),
            ("family", open(client.0, 9, "t", None)),
            (
                "wait_options_json",
                open(client.0, 0, "t", Some(r#"{"interval":5}"#)),
            ),
            ("wait_options_json", open(client.0, 0, "t", Some("[1]"))),
        ]
    };
    for (name, result) in cases {
        let (status, err) = result.unwrap_err();
        assert_eq!(status, GW_INVALID_ARGUMENT, "{name}: {err}");
        assert!(err.contains(name), "{name}: {err}");
    }
    unsafe {
        let mut ex: *mut gw_exchange = ptr::null_mut();
        let mut err: *mut c_char = ptr::null_mut();
        let status = ffi::gw_exchange_new_video_wait(
            client.0,
            0,
            ptr::null(),
            ptr::null(),
            &mut ex,
            &mut err,
        );
        assert_eq!(status, GW_INVALID_ARGUMENT);
        assert!(ex.is_null());
        assert!(take(err).contains("task_id"));
        let id = CString::new("t").unwrap();
        let status = ffi::gw_exchange_new_video_wait(
            client.0,
            0,
            id.as_ptr(),
            ptr::null(),
            ptr::null_mut(),
            &mut err,
        );
        assert_eq!(status, GW_INVALID_ARGUMENT);
        assert!(take(err).contains("out_exchange"));
        // A NULL err_out is fine.
        let status = ffi::gw_exchange_new_video_wait(
            client.0,
            7,
            id.as_ptr(),
            ptr::null(),
            &mut ex,
            ptr::null_mut(),
        );
        assert_eq!(status, GW_INVALID_ARGUMENT);
        assert!(ex.is_null());
    }
    assert_eq!(mock.request_count(), 0, "nothing was sent");
}

#[test]
fn a_wait_freed_mid_way_sends_nothing_more() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    unsafe {
        let ex = open(client.0, ffi::GW_VIDEO_VENDOR_R, "r-free", Some(FAST)).unwrap();
        let mut wait_ms = 0;
        assert_eq!(ffi::gw_exchange_step(ex, &mut wait_ms), ffi::GW_WANT_SEND);
        ffi::gw_exchange_free(ex);
    }
    assert_eq!(mock.request_count(), 0);
}
