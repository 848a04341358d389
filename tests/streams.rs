//! Chat streams end to end: deltas, the assembled completion, and every fault.

mod common;

use common::*;
use gw::{ops, GW_CANCELLED, GW_DECODE, GW_NETWORK, GW_STREAM, GW_TOO_LARGE};
use gw_mock::MockGateway;
use serde_json::json;

/// Streams `text` and returns (result, deltas seen).
fn stream(
    mock: &MockGateway,
    extra: serde_json::Value,
    text: &str,
) -> (Result<String, gw::Error>, Vec<String>) {
    let c = client_with(mock, extra);
    let mut deltas = Vec::new();
    let result = c.stream(&ops::CHAT, &chat(text), &mut |ev| {
        if let Some(d) = ev.text_delta {
            deltas.push(d.to_string());
        }
        true
    });
    (result, deltas)
}

#[test]
fn tokens_arrive_in_order_and_assemble_into_a_completion() {
    let mock = MockGateway::start();
    let (result, deltas) = stream(&mock, json!({}), "one two three");
    assert_eq!(deltas.concat(), "Echo: one two three");
    assert!(deltas.len() >= 4, "one delta per word: {deltas:?}");
    let v = parse(&result.unwrap());
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["choices"][0]["message"]["content"], "Echo: one two three");
    assert_eq!(v["choices"][0]["message"]["role"], "assistant");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert_eq!(v["model"], "chat-model");
    let sent = &mock.requests()[0];
    assert_eq!(sent.json.as_ref().unwrap()["stream"], true);
    assert_eq!(sent.header("accept"), Some("text/event-stream"));
}

#[test]
fn events_carry_name_data_and_index() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let mut seen = Vec::new();
    c.stream(&ops::CHAT, &chat("a"), &mut |ev| {
        seen.push((
            ev.event.to_string(),
            ev.index,
            parse(ev.data)["object"].clone(),
        ));
        true
    })
    .unwrap();
    assert!(!seen.is_empty());
    for (i, (name, index, object)) in seen.iter().enumerate() {
        assert_eq!(name, "message");
        assert_eq!(*index, i);
        assert_eq!(object, "chat.completion.chunk");
    }
}

#[test]
fn a_callback_can_cancel() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let mut calls = 0;
    let e = c
        .stream(&ops::CHAT, &chat("one two three four"), &mut |ev| {
            calls += 1;
            ev.text_delta.is_none()
        })
        .unwrap_err();
    assert_eq!(e.status(), GW_CANCELLED);
    assert_eq!(calls, 2, "role chunk, then the first delta cancels");
    assert_eq!(error_json(&e)["error"]["type"], "cancelled");
}

#[test]
fn a_reset_mid_stream_is_an_error_not_a_success() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "reset", "after_events": 2}));
    let (result, deltas) = stream(&mock, json!({}), "one two three four");
    let e = result.unwrap_err();
    assert!(matches!(e.status(), GW_NETWORK | GW_STREAM), "{e}");
    assert_eq!(
        deltas.len(),
        1,
        "the events before the reset were delivered"
    );
    assert_eq!(
        mock.request_count(),
        1,
        "never retried once events were delivered"
    );
}

#[test]
fn a_truncated_stream_is_gw_stream() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "truncate", "after_events": 3}));
    let e = stream(&mock, json!({}), "one two three four")
        .0
        .unwrap_err();
    assert_eq!(e.status(), GW_STREAM);
    assert!(e.to_string().contains("[DONE]"), "{e}");
    assert_eq!(error_json(&e)["error"]["status"], GW_STREAM);
}

#[test]
fn an_error_object_in_the_stream_is_gw_stream_with_its_message() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "stream_error", "after_events": 1}));
    let e = stream(&mock, json!({}), "one two").0.unwrap_err();
    assert_eq!(e.status(), GW_STREAM);
    let v = error_json(&e);
    assert_eq!(v["error"]["message"], "upstream model failed");
    assert_eq!(v["error"]["code"], "stream_failure");
    assert_eq!(v["error"]["status"], GW_STREAM);
}

#[test]
fn a_garbage_event_is_gw_decode() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "garbage_event", "after_events": 1}));
    let e = stream(&mock, json!({}), "one two").0.unwrap_err();
    assert_eq!(e.status(), GW_DECODE);
    assert!(e.to_string().contains("not valid JSON"), "{e}");
}

#[test]
fn a_huge_line_is_gw_too_large_not_out_of_memory() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "huge_line", "after_events": 1, "bytes": 2_000_000}));
    let e = stream(&mock, json!({"max_line_bytes": 65536}), "one two")
        .0
        .unwrap_err();
    assert_eq!(e.status(), GW_TOO_LARGE);
    assert!(e.to_string().contains("max_line_bytes"), "{e}");
}

#[test]
fn a_failure_before_the_stream_starts_is_retried() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "status", "status": 503}));
    let (result, deltas) = stream(&mock, json!({}), "hello");
    result.unwrap();
    assert_eq!(deltas.concat(), "Echo: hello");
    assert_eq!(mock.request_count(), 2);
}

#[test]
fn sse_line_endings_comments_and_split_data_over_http() {
    let mock = MockGateway::start();
    let raw = concat!(
        ": keep-alive\r\n\r\n",
        "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"A\"}}]}\r\r",
        "data:{\"id\":\"x\",\"choices\":[{\"index\":0,\r\n",
        "data: \"delta\":{\"content\":\"B\"}}]}\n\n",
        "event: ping\n\n",
        "data: [DONE]\n\n"
    );
    mock.push_fault(json!({"action": "status", "status": 200, "content_type": "text/event-stream", "body": raw}));
    let (result, deltas) = stream(&mock, json!({}), "x");
    assert_eq!(deltas, ["A", "B"]);
    assert_eq!(
        parse(&result.unwrap())["choices"][0]["message"]["content"],
        "AB"
    );
}

#[test]
fn a_json_error_instead_of_a_stream_is_gw_stream() {
    let mock = MockGateway::start();
    let body = r#"{"error":{"message":"model busy","type":"server_error","code":"busy"}}"#;
    mock.push_fault(json!({"action": "status", "status": 200, "body": body}));
    let e = stream(&mock, json!({}), "x").0.unwrap_err();
    assert_eq!(e.status(), GW_STREAM);
    assert_eq!(error_json(&e)["error"]["code"], "busy");
}

#[test]
fn an_http_error_before_the_stream_keeps_its_status_and_body() {
    let mock = MockGateway::start();
    let e = client_with(&mock, json!({"api_key": "sk-bad"}))
        .stream(&ops::CHAT, &chat("x"), &mut |_| true)
        .unwrap_err();
    assert_eq!(e.status(), 401);
    assert_eq!(error_json(&e)["error"]["code"], "invalid_api_key");
}

#[test]
fn a_stream_broken_before_its_first_event_is_retried() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "reset", "after_events": 0}));
    let (result, deltas) = stream(&mock, json!({}), "hello");
    result.unwrap();
    assert_eq!(deltas.concat(), "Echo: hello");
    assert_eq!(mock.request_count(), 2);
}

#[test]
fn stream_retries_share_one_budget_with_answer_retries() {
    let mock = MockGateway::start();
    mock.push_fault(json!([
        {"action": "status", "status": 503},
        {"action": "reset", "after_events": 0, "times": 5}
    ]));
    let (result, deltas) = stream(&mock, json!({"max_retries": 2}), "hello");
    assert_eq!(result.unwrap_err().status(), GW_NETWORK);
    assert!(deltas.is_empty());
    assert_eq!(mock.request_count(), 3, "first try + 2 retries in all");
}
