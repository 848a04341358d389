//! The error-JSON contract for each failure kind, and that the key never leaks.

mod common;

use common::*;
use gw::{ops, GW_DECODE, GW_INVALID_ARGUMENT, GW_NOT_FOUND, GW_TOO_LARGE};
use gw_mock::MockGateway;
use serde_json::json;

#[test]
fn an_unknown_path_is_404_with_the_gateway_body() {
    let mock = MockGateway::start();
    let e = client(&mock)
        .request("GET", "/v1/nowhere", None)
        .unwrap_err();
    assert_eq!(e.status(), GW_NOT_FOUND);
    let v = error_json(&e);
    assert_eq!(v["error"]["status"], 404);
    assert_eq!(v["error"]["code"], "not_found");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("/v1/nowhere"));
}

#[test]
fn a_non_json_error_body_is_wrapped_in_the_contract() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "status", "status": 502, "content_type": "text/html", "body": "<html>Bad Gateway</html>", "times": 3}));
    let e = client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), 502);
    let v = error_json(&e);
    assert_eq!(v["error"]["type"], "http_error");
    assert_eq!(v["error"]["code"], "http_502");
    assert_eq!(v["error"]["status"], 502);
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Bad Gateway"));
}

#[test]
fn garbage_json_is_gw_decode() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "garbage"}));
    let e = client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), GW_DECODE);
    let v = error_json(&e);
    assert_eq!(v["error"]["type"], "decode_error");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not valid JSON"));
}

#[test]
fn the_wrong_shape_is_gw_decode_naming_the_missing_field() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "wrong_shape"}));
    let e = client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), GW_DECODE);
    assert!(e.to_string().contains("'choices'"), "{e}");
}

/// The quick shape check of a plain answer and the full parse must agree: what
/// the parse refuses (a lone surrogate, nesting past serde_json's limit) is
/// GW_DECODE, not handed out as an answer a binding's own JSON parser then chokes on.
#[test]
fn an_answer_the_full_parse_refuses_is_gw_decode_whichever_way_it_is_read() {
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let bodies = [
        r#"{"id":"\ud800","object":"chat.completion","choices":[]}"#.to_string(),
        format!(r#"{{"id":"c","object":"chat.completion","choices":[],"extra":{deep}}}"#),
    ];
    let mock = MockGateway::start();
    let c = client(&mock);
    for body in bodies {
        mock.push_fault(json!({"action": "status", "status": 200, "body": body}));
        let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
        assert_eq!(e.status(), GW_DECODE, "{body:.60}: {e}");
        assert!(e.to_string().contains("not valid JSON"), "{e}");
    }
    // The same shapes without the flaw are answers.
    mock.push_fault(json!({"action": "status", "status": 200,
        "body": r#"{"id":"\ud83d\ude00","object":"chat.completion","choices":[]}"#}));
    let ok = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert_eq!(parse(&ok)["id"], "\u{1F600}");
}

#[test]
fn an_answer_over_the_cap_is_gw_too_large() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "huge_body", "bytes": 300_000}));
    let e = client_with(&mock, json!({"max_response_bytes": 100_000}))
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap_err();
    assert_eq!(e.status(), GW_TOO_LARGE);
    assert!(e.to_string().contains("max_response_bytes"), "{e}");
}

#[test]
fn a_request_that_is_not_an_object_is_refused_before_sending() {
    let mock = MockGateway::start();
    let e = client(&mock)
        .call(&ops::CHAT, &[], Some(&json!([1, 2])))
        .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT);
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn a_broken_limit_is_refused_before_sending_and_names_the_field() {
    let mock = MockGateway::start();
    let mut body = chat("hi");
    body["temperature"] = json!(3);
    let e = client(&mock)
        .call(&ops::CHAT, &[], Some(&body))
        .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT);
    let v = error_json(&e);
    assert_eq!(v["error"]["param"], "temperature");
    assert_eq!(
        v["error"]["message"],
        "temperature: must be between 0 and 2 (got 3)"
    );
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn validate_false_sends_it_and_the_gateway_says_400() {
    let mock = MockGateway::start();
    let mut body = chat("hi");
    body["temperature"] = json!(3);
    let e = client_with(&mock, json!({"validate": false}))
        .call(&ops::CHAT, &[], Some(&body))
        .unwrap_err();
    assert_eq!(e.status(), 400);
    assert_eq!(error_json(&e)["error"]["type"], "invalid_request_error");
    assert_eq!(mock.request_count(), 1);
}

#[test]
fn unknown_fields_are_passed_through_untouched() {
    let mock = MockGateway::start();
    let mut body = chat("hi");
    body["future_field"] = json!({"nested": [1, "two"]});
    client(&mock).call(&ops::CHAT, &[], Some(&body)).unwrap();
    assert_eq!(
        mock.requests()[0].json.as_ref().unwrap()["future_field"],
        json!({"nested": [1, "two"]})
    );
}

/// Every failure kind on the `?key=` endpoint: the key never shows.
#[test]
fn the_query_key_never_appears_in_any_error() {
    let secret = "sk-query-secret-42";
    let mock = MockGateway::start_with_key(secret);
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let faults = [
        json!({"action": "status", "status": 500, "times": 3}),
        json!({"action": "garbage"}),
        json!({"action": "wrong_shape"}),
        json!({"action": "delay", "ms": 2000}),
        json!({"action": "redirect", "location": "http://127.0.0.1:1/elsewhere"}),
    ];
    for fault in faults {
        mock.push_fault(fault.clone());
        let c = client_with(
            &mock,
            json!({"api_key": secret, "first_byte_timeout_ms": 200, "read_timeout_ms": 200, "max_retries": 0}),
        );
        let e = c
            .call(&ops::GENERATE_CONTENT, &["m"], Some(&body))
            .unwrap_err();
        for text in [e.to_json(), e.to_string(), format!("{e:?}")] {
            assert!(!text.contains(secret), "{fault}: key leaked in {text}");
        }
        mock.reset();
    }
}

#[test]
fn a_stream_request_through_the_generic_call_is_refused() {
    let mock = MockGateway::start();
    let mut body = chat("hi");
    body["stream"] = json!(true);
    let e = client(&mock)
        .request("POST", "/v1/chat/completions", Some(&body))
        .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT);
    assert!(e.to_string().contains("gw_chat_stream"), "{e}");
    assert_eq!(mock.request_count(), 0);
}
