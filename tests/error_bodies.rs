//! Error bodies as real servers send them (issue 9): an SSE body on an error status, the
//! generateContent error object, HTML and plain text. Whatever the body, the error JSON
//! holds the contract's four fields (`message`, `type`, `code` strings and `status` the HTTP
//! number) and keeps the server's own fields alongside.

mod common;

use common::*;
use gw::ops;
use gw_mock::MockGateway;
use serde_json::{json, Value};

/// A chat call (no retries) against an `error_body` fault; returns the status and `error`.
fn failing_chat(shape: &str, status: u16) -> (i32, Value) {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "error_body", "shape": shape, "status": status}));
    let e = client_with(&mock, json!({"max_retries": 0}))
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    (e.status(), error_json(&e)["error"].clone())
}

/// The contract: message, type and code are strings, status is the HTTP status.
fn assert_contract(err: &Value, status: u16) {
    for key in ["message", "type", "code"] {
        assert!(err[key].is_string(), "{key} is a string: {err}");
    }
    assert_eq!(err["status"], status, "{err}");
}

#[test]
fn an_sse_error_body_gives_the_error_object_inside_it() {
    let (status, err) = failing_chat("sse", 500);
    assert_eq!(status, 500);
    assert_contract(&err, 500);
    assert_eq!(err["message"], "Upstream failed with 500");
    assert_eq!(err["type"], "server_error");
    assert_eq!(err["code"], "upstream_error");
}

#[test]
fn an_sse_error_body_before_a_stream_is_read_the_same_way() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "error_body", "shape": "sse", "status": 400}));
    let e = client(&mock)
        .stream(&ops::CHAT, &chat("hi"), &mut |_| true)
        .unwrap_err();
    assert_eq!(e.status(), 400);
    assert_eq!(e.to_string(), "HTTP 400: Upstream failed with 400");
    assert_eq!(error_json(&e)["error"]["code"], "upstream_error");
}

#[test]
fn a_generate_content_error_keeps_its_fields_and_fills_the_contract() {
    let (status, err) = failing_chat("google", 400);
    assert_eq!(status, 400);
    assert_contract(&err, 400);
    assert!(err["message"]
        .as_str()
        .unwrap()
        .starts_with("Invalid JSON payload"));
    // The server's status word and numeric code stay, under their own keys.
    assert_eq!(err["server_status"], "INVALID_ARGUMENT");
    assert_eq!(err["server_code"], 400);
    assert_eq!(
        err["details"][0]["@type"],
        "type.googleapis.com/google.rpc.BadRequest"
    );
}

#[test]
fn html_and_plain_text_bodies_fill_the_contract() {
    for (shape, needle) in [("html", "Bad Gateway"), ("plain", "upstream connect error")] {
        let (status, err) = failing_chat(shape, 502);
        assert_eq!(status, 502, "{shape}");
        assert_contract(&err, 502);
        assert_eq!(err["type"], "http_error", "{shape}");
        assert_eq!(err["code"], "http_502", "{shape}");
        assert!(
            err["message"].as_str().unwrap().contains(needle),
            "{shape}: {err}"
        );
    }
}

#[test]
fn an_openai_error_body_keeps_its_own_type_and_code() {
    let mock = MockGateway::start();
    let e = client_with(&mock, json!({"api_key": "sk-wrong"}))
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    let err = error_json(&e)["error"].clone();
    assert_contract(&err, 401);
    assert_eq!(err["type"], "authentication_error");
    assert_eq!(err["code"], "invalid_api_key");
    assert!(err.get("server_status").is_none());
}
