//! The exchange's C ABI driven by a plain-HTTP test driver
//! (`common/exchange_driver.rs`): the same answers, events and failures as the
//! blocking calls, whatever the split of the body bytes.

mod common;

use std::ffi::{c_char, CString};
use std::ptr;

use common::c_client::CClient;
use common::exchange_driver::drive;
use common::*;
use gw::ffi::{self, gw_exchange};
use gw::{GW_INVALID_ARGUMENT, GW_OK};
use gw_mock::MockGateway;
use serde_json::json;

unsafe fn open(
    client: &CClient,
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
        client.0,
        method.as_ptr(),
        path.as_ptr(),
        body.as_ref().map_or(ptr::null(), |b| b.as_ptr()),
        flags,
        &mut ex,
        &mut err,
    );
    if status == GW_OK {
        return Ok(ex);
    }
    let text = common::c_client::take(err);
    Err((status, text))
}

#[test]
fn a_plain_call_and_a_stream_give_what_the_blocking_calls_give() {
    let mock = MockGateway::start();
    let client = CClient::new(&mock, "");
    let request = chat("hello exchange").to_string();
    for split in [1, 7, 64, 100_000] {
        let ex =
            unsafe { open(&client, "POST", "/v1/chat/completions", Some(&request), 0).unwrap() };
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
                &client,
                "POST",
                "/v1/chat/completions",
                Some(&request),
                ffi::GW_EXCHANGE_STREAM,
            )
            .unwrap()
        };
        let driven = unsafe { drive(ex, split) };
        assert_eq!(driven.status, GW_OK, "split {split}: {}", driven.out);
        assert!(driven.events > 1);
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
    let (status, text) = unsafe {
        open(
            &client,
            "POST",
            "/v1/chat/completions",
            Some(&request.to_string()),
            0,
        )
        .unwrap_err()
    };
    assert_eq!(status, GW_INVALID_ARGUMENT);
    assert!(text.contains("temperature"), "{text}");
    assert_eq!(mock.request_count(), 0);
}

/// (phase, status) of each attempt event an observed handle reported.
static SEEN: std::sync::Mutex<Vec<(i32, i32)>> = std::sync::Mutex::new(Vec::new());

unsafe extern "C" fn record(attempt: *const ffi::gw_attempt, _user: *mut std::ffi::c_void) {
    let a = &*attempt;
    SEEN.lock().unwrap().push((a.phase, a.status));
}

#[test]
fn an_attempt_cut_by_the_total_deadline_is_reported_ended() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "delay", "ms": 1000}));
    let base = CClient::new(&mock, r#","total_timeout_ms":100"#);
    let mut observed: *mut ffi::gw_client = ptr::null_mut();
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
    let ex = unsafe { open(&observed, "POST", "/v1/chat/completions", Some(&request), 0).unwrap() };
    // A driver that sends and then waits for the head as long as the exchange says,
    // without an answer: the exchange's own deadline ends the attempt.
    unsafe {
        let mut wait = 0i64;
        assert_eq!(ffi::gw_exchange_step(ex, &mut wait), ffi::GW_WANT_SEND);
        let mut view: ffi::gw_request_view = std::mem::zeroed();
        assert_eq!(ffi::gw_exchange_request(ex, &mut view), GW_OK);
        assert_eq!(ffi::gw_exchange_step(ex, &mut wait), ffi::GW_WANT_RECEIVE);
        assert!((0..=100).contains(&wait), "wait {wait}");
        std::thread::sleep(std::time::Duration::from_millis(wait as u64 + 5));
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
