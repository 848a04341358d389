//! Handles derived per call (`Client::derive`): overrides, independence from the
//! base, and the metadata of the last exchange (`Client::last_response`).

mod common;

use std::time::{Duration, Instant};

use common::*;
use gw::{ops, CallOptions, GW_INVALID_ARGUMENT, GW_TIMEOUT};
use gw_mock::MockGateway;
use serde_json::json;

fn overrides(v: serde_json::Value) -> CallOptions {
    CallOptions::from_json(&v.to_string()).expect("overrides parse")
}

#[test]
fn unknown_override_keys_are_refused_by_name() {
    let e = CallOptions::from_json(r#"{"total_timeout":5}"#).unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT);
    assert!(e.to_string().contains("total_timeout"), "{e}");
    // Client-wide settings are not per-call overrides.
    assert!(CallOptions::from_json(r#"{"proxy":"http://127.0.0.1:1"}"#).is_err());
    assert!(CallOptions::from_json("").is_ok());
}

#[test]
fn a_derived_total_timeout_applies_to_that_handle_only() {
    let mock = MockGateway::start();
    let base = client_with(&mock, json!({"max_retries": 0}));
    let quick = base
        .derive(&overrides(json!({"total_timeout_ms": 200})))
        .unwrap();
    mock.push_fault(json!({"action": "delay", "ms": 1500, "times": 2}));
    let started = Instant::now();
    let e = quick.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
    assert!(started.elapsed() < Duration::from_millis(1300));
    // The base keeps its own (long) deadline and waits the delay out.
    assert!(base.call(&ops::CHAT, &[], Some(&chat("hi"))).is_ok());
}

#[test]
fn a_derived_read_timeout_and_retry_count_apply() {
    let mock = MockGateway::start();
    let base = client_with(&mock, json!({"max_retries": 2}));
    let strict = base
        .derive(&overrides(
            json!({"first_byte_timeout_ms": 150, "read_timeout_ms": 150, "max_retries": 0}),
        ))
        .unwrap();
    mock.push_fault(json!({"action": "delay", "ms": 600}));
    let e = strict.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
    assert!(e.to_string().contains("first_byte_timeout_ms"), "{e}");
    assert_eq!(mock.request_count(), 1, "max_retries 0: one attempt");
    // The read idle bounds the gaps of a stream.
    mock.reset();
    mock.push_fault(json!({"action": "drip", "interval_ms": 600}));
    let e = strict
        .stream(&ops::CHAT, &chat("one two"), &mut |_| true)
        .unwrap_err();
    assert!(e.to_string().contains("read_timeout_ms"), "{e}");
    // The base retries a 503 twice over.
    mock.reset();
    mock.push_fault(json!({"action": "status", "status": 503, "times": 2}));
    assert!(base.call(&ops::CHAT, &[], Some(&chat("hi"))).is_ok());
    assert_eq!(mock.request_count(), 3);
}

#[test]
fn derived_headers_merge_over_the_base_and_the_idempotency_key_rides_every_attempt() {
    let mock = MockGateway::start();
    let base = client_with(
        &mock,
        json!({"headers": {"X-Team": "base", "X-Base-Only": "1"}}),
    );
    let derived = base
        .derive(&overrides(json!({
            "headers": {"x-team": "call"},
            "idempotency_key": "call-123"
        })))
        .unwrap();
    mock.push_fault(json!({"action": "status", "status": 500}));
    derived
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .expect("a retry after the 500 succeeds");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_eq!(r.header("x-team"), Some("call"), "the call's value wins");
        assert_eq!(r.header("x-base-only"), Some("1"), "the base's others stay");
        assert_eq!(r.header("idempotency-key"), Some("call-123"));
    }
    // The base sends its own header and a key of its own for each call.
    mock.reset();
    base.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    base.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    let r = mock.requests();
    assert_eq!(r[0].header("x-team"), Some("base"));
    let (k0, k1) = (
        r[0].header("idempotency-key").unwrap(),
        r[1].header("idempotency-key").unwrap(),
    );
    assert!(
        k0.starts_with("gw-") && k0 != k1 && k0 != "call-123",
        "{k0} {k1}"
    );
}

#[test]
fn bad_override_values_are_named() {
    let mock = MockGateway::start();
    let base = client(&mock);
    let e = base
        .derive(&overrides(json!({"headers": {"Host": "evil"}})))
        .unwrap_err();
    assert!(e.to_string().contains("Host"), "{e}");
    let e = base
        .derive(&overrides(json!({"idempotency_key": "a\nb"})))
        .unwrap_err();
    assert!(e.to_string().contains("idempotency_key"), "{e}");
}

#[test]
fn validate_false_on_a_derived_handle_lets_the_server_judge() {
    let mock = MockGateway::start();
    let base = client_with(&mock, json!({"max_retries": 0}));
    let lax = base.derive(&overrides(json!({"validate": false}))).unwrap();
    let bad =
        json!({"model": "m", "temperature": 3, "messages": [{"role": "user", "content": "x"}]});
    assert_eq!(
        base.call(&ops::CHAT, &[], Some(&bad)).unwrap_err().status(),
        GW_INVALID_ARGUMENT
    );
    assert_eq!(mock.request_count(), 0);
    assert_eq!(
        lax.call(&ops::CHAT, &[], Some(&bad)).unwrap_err().status(),
        400
    );
    assert_eq!(mock.request_count(), 1);
}

#[test]
fn last_response_describes_a_success() {
    let mock = MockGateway::start();
    let c = client(&mock);
    assert!(c.last_response().is_none(), "nothing finished yet");
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    let meta = c.last_response().expect("recorded");
    assert_eq!(meta.status, 200);
    assert_eq!(meta.attempts, 1);
    assert!(
        meta.request_id
            .as_deref()
            .is_some_and(|id| id.starts_with("req_mock_")),
        "{meta:?}"
    );
    assert_eq!(
        meta.headers().get("content-type").map(String::as_str),
        Some("application/json")
    );
    assert!(meta.url.ends_with("/v1/chat/completions"), "{}", meta.url);
    let j = meta.to_json();
    for key in [
        "status",
        "request_id",
        "headers",
        "attempts",
        "elapsed_ms",
        "url",
    ] {
        assert!(j.get(key).is_some(), "{key} in {j}");
    }
}

#[test]
fn last_response_describes_a_rate_limit_after_retries() {
    let mock = MockGateway::start();
    let c = client_with(&mock, json!({"max_retries": 2}));
    mock.push_fault(json!({
        "action": "status", "status": 429, "times": 3,
        "headers": {"retry-after-ms": "5", "x-ratelimit-remaining-requests": "0"}
    }));
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), 429);
    let meta = c
        .last_response()
        .expect("a failure with an answer is recorded");
    assert_eq!(meta.status, 429);
    assert_eq!(meta.attempts, 3);
    assert_eq!(
        meta.headers()
            .get("x-ratelimit-remaining-requests")
            .map(String::as_str),
        Some("0")
    );
}

#[test]
fn last_response_url_never_holds_the_key() {
    let mock = MockGateway::start();
    let c = client(&mock);
    c.call(
        &ops::GENERATE_CONTENT,
        &["gemini-x"],
        Some(&json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})),
    )
    .unwrap();
    let meta = c.last_response().unwrap();
    assert!(meta.url.contains(":generateContent"), "{}", meta.url);
    assert!(!meta.url.contains(&mock.api_key()), "{}", meta.url);
    assert!(!meta.to_json().to_string().contains(&mock.api_key()));
}

#[test]
fn each_derived_handle_keeps_its_own_last_response() {
    let mock = MockGateway::start();
    let base = client_with(&mock, json!({"max_retries": 0}));
    let a = base.derive(&CallOptions::default()).unwrap();
    let b = base.derive(&CallOptions::default()).unwrap();
    a.call(&ops::CHAT, &[], Some(&chat("a"))).unwrap();
    mock.push_fault(json!({"action": "status", "status": 404}));
    assert!(b.call(&ops::CHAT, &[], Some(&chat("b"))).is_err());
    assert_eq!(a.last_response().unwrap().status, 200);
    assert_eq!(b.last_response().unwrap().status, 404);
    assert!(base.last_response().is_none());
}
