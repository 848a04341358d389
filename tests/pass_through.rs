//! Pass-through means untouched (issue 9): the body reaches the gateway with the caller's
//! key order and exact numbers, whichever way it is sent.

mod common;

use common::*;
use gw::ops;
use gw_mock::MockGateway;
use serde_json::Value;

/// Keys out of alphabetical order, an integer past u64 and f64, a decimal whose trailing zero
/// and one whose digits f64 cannot hold.
const BODY: &str = concat!(
    r#"{"model":"chat-model","messages":[{"role":"user","content":"hi"}],"#,
    r#""zeta":1,"alpha":{"b":2,"a":1},"big":123456789012345678901234567890,"#,
    r#""price":1.10,"ratio":0.1000000000000000055511151231257827}"#
);

fn body() -> Value {
    serde_json::from_str(BODY).unwrap()
}

#[test]
fn a_plain_call_sends_the_callers_bytes() {
    let mock = MockGateway::start();
    client(&mock).call(&ops::CHAT, &[], Some(&body())).unwrap();
    assert_eq!(mock.requests()[0].body, BODY);
}

#[test]
fn the_generic_request_sends_the_callers_bytes() {
    let mock = MockGateway::start();
    client(&mock)
        .request("POST", "/v1/chat/completions", Some(&body()))
        .unwrap();
    assert_eq!(mock.requests()[0].body, BODY);
}

#[test]
fn a_stream_adds_only_the_stream_flag_at_the_end() {
    let mock = MockGateway::start();
    client(&mock)
        .stream(&ops::CHAT, &body(), &mut |_| true)
        .unwrap();
    let expected = format!("{},\"stream\":true}}", &BODY[..BODY.len() - 1]);
    assert_eq!(mock.requests()[0].body, expected);
}

#[test]
fn a_stream_flag_the_caller_set_stays_in_its_place() {
    let mock = MockGateway::start();
    let text =
        r#"{"stream":false,"model":"chat-model","messages":[{"role":"user","content":"hi"}]}"#;
    let body: Value = serde_json::from_str(text).unwrap();
    client(&mock)
        .stream(&ops::CHAT, &body, &mut |_| true)
        .unwrap();
    assert_eq!(mock.requests()[0].body, text.replace("false", "true"));
}
