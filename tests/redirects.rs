//! Redirects: followed on the same origin with credentials, to another origin without them.

mod common;

use common::*;
use gw::{ops, GW_NETWORK};
use gw_mock::MockGateway;
use serde_json::json;

#[test]
fn credentials_never_follow_a_redirect_to_another_origin() {
    let origin = MockGateway::start();
    let elsewhere = MockGateway::start();
    // A GET may follow to another origin, bare; a POST is not replayed there at all.
    origin.push_fault(json!({"action": "redirect", "status": 302, "location": format!("{}/v1/videos/v1", elsewhere.url())}));
    let e = client(&origin)
        .call(&ops::VIDEO_CHARACTER_STATUS, &["v1"], None)
        .unwrap_err();
    // The other origin gets no key, so it refuses the request.
    assert_eq!(e.status(), 401);
    let seen = &elsewhere.requests()[0];
    assert_eq!(seen.header("authorization"), None);
    assert_eq!(seen.method, "GET");
}

#[test]
fn the_query_key_does_not_follow_to_another_origin_either() {
    let origin = MockGateway::start();
    let elsewhere = MockGateway::start();
    origin.push_fault(
        json!({"action": "redirect", "location": format!("{}/v1beta/models/m", elsewhere.url())}),
    );
    let _ = client(&origin).request("GET", "/v1beta/models/m", None);
    let seen = &elsewhere.requests()[0];
    assert_eq!(seen.query, None);
    assert_eq!(seen.header("authorization"), None);
}

#[test]
fn a_same_origin_redirect_keeps_credentials() {
    let mock = MockGateway::start();
    mock.push_fault(
        json!({"action": "redirect", "status": 308, "location": "/v1/chat/completions"}),
    );
    let answer = client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap();
    assert!(answer.contains("Echo: hi"));
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(
        reqs[1].json.as_ref().unwrap()["messages"][0]["content"],
        "hi"
    );
}

#[test]
fn a_redirect_to_plain_http_elsewhere_is_refused() {
    let mock = MockGateway::start();
    mock.push_fault(
        json!({"action": "redirect", "location": "http://gateway.example.com/v1/chat/completions"}),
    );
    mock.push_fault(
        json!({"action": "redirect", "location": "http://gateway.example.com/v1/chat/completions"}),
    );
    let e = client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), GW_NETWORK);
    assert!(e.to_string().contains("redirect refused"), "{e}");
    assert_eq!(mock.request_count(), 1, "a refusal of ours is not retried");
}

#[test]
fn a_redirect_loop_ends() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "redirect", "location": "/v1/chat/completions", "times": 50}));
    let e = client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), GW_NETWORK);
    assert!(e.to_string().contains("redirects"), "{e}");
    assert_eq!(
        mock.request_count(),
        6,
        "the first request and 5 redirects, no retry"
    );
}
