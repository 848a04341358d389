//! The retry policy against injected status sequences.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use common::*;
use gw::{ops, GW_NETWORK};
use gw_mock::MockGateway;
use serde_json::json;

fn fault(status: u16, headers: serde_json::Value) -> serde_json::Value {
    json!({"action": "status", "status": status, "headers": headers})
}

#[test]
fn retryable_statuses_are_retried_until_success() {
    for status in [408, 409, 429, 500, 502, 503, 504] {
        let mock = MockGateway::start();
        mock.push_fault(fault(status, json!({})));
        let answer = client(&mock).call(&ops::CHAT, &[], Some(&chat("hi")));
        assert!(answer.is_ok(), "{status}: {answer:?}");
        assert_eq!(mock.request_count(), 2, "{status}");
    }
}

#[test]
fn client_errors_are_not_retried() {
    for status in [400, 401, 403, 404, 422] {
        let mock = MockGateway::start();
        mock.push_fault(fault(status, json!({})));
        let e = client(&mock)
            .call(&ops::CHAT, &[], Some(&chat("hi")))
            .unwrap_err();
        assert_eq!(e.status(), i32::from(status));
        assert_eq!(mock.request_count(), 1, "{status}");
    }
}

#[test]
fn giving_up_returns_the_last_answer_with_the_server_body() {
    let mock = MockGateway::start();
    let body = r#"{"error":{"message":"overloaded, try later","type":"server_error","code":"overloaded"}}"#;
    mock.push_fault(json!({"action": "status", "status": 503, "body": body, "times": 5}));
    let e = client_with(&mock, json!({"max_retries": 2}))
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), 503);
    assert_eq!(mock.request_count(), 3, "first try + 2 retries");
    let v = error_json(&e);
    assert_eq!(v["error"]["code"], "overloaded");
    assert_eq!(v["error"]["message"], "overloaded, try later");
    assert_eq!(v["error"]["status"], 503);
}

#[test]
fn max_retries_zero_sends_once() {
    let mock = MockGateway::start();
    mock.push_fault(fault(500, json!({})));
    let e = client_with(&mock, json!({"max_retries": 0}))
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), 500);
    assert_eq!(mock.request_count(), 1);
}

#[test]
fn x_should_retry_overrides_the_status() {
    let mock = MockGateway::start();
    mock.push_fault(fault(503, json!({"x-should-retry": "false"})));
    let e = client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), 503);
    assert_eq!(mock.request_count(), 1);

    let mock = MockGateway::start();
    mock.push_fault(fault(400, json!({"x-should-retry": "true"})));
    client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap();
    assert_eq!(mock.request_count(), 2);
}

/// Runs one retried call and returns how long it took.
fn timed_retry(headers: serde_json::Value, extra: serde_json::Value) -> Duration {
    let mock = MockGateway::start();
    mock.push_fault(fault(429, headers));
    let c = client_with(&mock, extra);
    let started = Instant::now();
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert_eq!(mock.request_count(), 2);
    started.elapsed()
}

#[test]
fn retry_after_ms_is_honoured() {
    // Backoff alone would wait at most 20 ms here.
    assert!(timed_retry(json!({"retry-after-ms": "400"}), json!({})) >= Duration::from_millis(390));
}

#[test]
fn retry_after_seconds_is_honoured() {
    assert!(timed_retry(json!({"retry-after": "1"}), json!({})) >= Duration::from_millis(990));
}

#[test]
fn retry_after_http_date_is_honoured() {
    // Four seconds out: a date has one-second resolution, and a loaded machine may
    // take a while to start the mock and send; at least a second must remain.
    let in_four_seconds =
        httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(4));
    let took = timed_retry(json!({"retry-after": in_four_seconds}), json!({}));
    assert!(took >= Duration::from_millis(990), "{took:?}");
    let past = "Wed, 21 Oct 2015 07:28:00 GMT";
    assert!(timed_retry(json!({"retry-after": past}), json!({})) < Duration::from_secs(2));
}

#[test]
fn retry_after_is_capped() {
    let took = timed_retry(
        json!({"retry-after": "3600"}),
        json!({"retry_after_cap_ms": 50}),
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn a_wait_past_the_total_deadline_gives_up_at_once() {
    let mock = MockGateway::start();
    mock.push_fault(fault(429, json!({"retry-after": "30"})));
    let c = client_with(&mock, json!({"total_timeout_ms": 1000}));
    let started = Instant::now();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), 429);
    assert!(started.elapsed() < Duration::from_millis(900));
    assert_eq!(mock.request_count(), 1);
}

/// A server that closes the first connection without answering, then answers
/// the second: a connection failure is retried.
#[test]
fn connection_failures_are_retried() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (first, _) = listener.accept().unwrap();
        drop(first);
        let (mut second, _) = listener.accept().unwrap();
        let mut buf = [0u8; 4096];
        let _ = second.read(&mut buf).unwrap();
        let body = r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}"#;
        let answer = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
        second.write_all(answer.as_bytes()).unwrap();
    });
    let c = gw::Client::new(gw::Options {
        base_url: Some(format!("http://{addr}")),
        api_key: Some("sk-test".into()),
        retry_base_delay_ms: 5,
        ..gw::Options::default()
    })
    .unwrap();
    let answer = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert!(answer.contains("\"ok\""));
    server.join().unwrap();
}

#[test]
fn a_refused_connection_is_a_network_error_after_the_retries() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let c = gw::Client::new(gw::Options {
        base_url: Some(format!("http://127.0.0.1:{port}")),
        api_key: Some("sk-test".into()),
        retry_base_delay_ms: 5,
        ..gw::Options::default()
    })
    .unwrap();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_NETWORK);
    assert_eq!(error_json(&e)["error"]["type"], "network_error");
}
