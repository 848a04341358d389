//! Streams pulled one event at a time (`Client::stream_open`, `EventStream`):
//! the API the bindings build their iterators on.

mod common;

use common::*;
use gw::{ops, GW_STREAM};
use gw_mock::MockGateway;
use serde_json::json;

#[test]
fn a_chat_stream_pulls_every_delta_then_ends_and_assembles() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let mut s = c.stream_open(&ops::CHAT, &chat("one two three")).unwrap();
    let mut text = String::new();
    let mut indexes = Vec::new();
    while let Some(ev) = s.next_event().unwrap() {
        indexes.push(ev.index);
        text.push_str(ev.text_delta.unwrap_or(""));
        assert_eq!(ev.choice_index, 0);
    }
    assert_eq!(text, "Echo: one two three");
    assert_eq!(indexes, (0..indexes.len()).collect::<Vec<_>>());
    // The end is sticky, and the result is the assembled completion.
    assert!(s.next_event().unwrap().is_none());
    let done = parse(&s.finish().unwrap());
    assert_eq!(done["object"], "chat.completion");
    assert_eq!(
        done["choices"][0]["message"]["content"],
        "Echo: one two three"
    );
    assert_eq!(
        parse(&s.finish().unwrap()),
        done,
        "finish may be called again"
    );
    // The stream's request carried stream:true.
    assert_eq!(mock.requests()[0].json.as_ref().unwrap()["stream"], true);
}

#[test]
fn a_responses_stream_ends_after_response_completed() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let mut s = c
        .stream_open(
            &ops::RESPONSES,
            &json!({"model": "m", "input": "hello there"}),
        )
        .unwrap();
    let mut names = Vec::new();
    while let Some(ev) = s.next_event().unwrap() {
        names.push(ev.event.to_string());
    }
    assert_eq!(names.last().map(String::as_str), Some("response.completed"));
    assert!(names.iter().any(|n| n == "response.output_text.delta"));
    let response = parse(&s.finish().unwrap());
    assert_eq!(response["status"], "completed");
}

#[test]
fn finish_before_the_end_reads_the_rest() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let mut s = c.stream_open(&ops::CHAT, &chat("a b c d e")).unwrap();
    assert!(s.next_event().unwrap().is_some());
    let done = parse(&s.finish().unwrap());
    assert_eq!(done["choices"][0]["message"]["content"], "Echo: a b c d e");
}

#[test]
fn a_failure_mid_stream_is_returned_by_every_later_step() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "stream_error", "after_events": 1}));
    let c = client(&mock);
    let mut s = c.stream_open(&ops::CHAT, &chat("one two three")).unwrap();
    let e = loop {
        match s.next_event() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream carried an error"),
            Err(e) => break e,
        }
    };
    assert_eq!(e.status(), GW_STREAM, "{e}");
    assert_eq!(s.next_event().unwrap_err(), e);
    assert_eq!(s.finish().unwrap_err(), e);
}

#[test]
fn an_http_error_fails_the_open_with_its_status() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "status", "status": 400}));
    let c = client(&mock);
    let e = c.stream_open(&ops::CHAT, &chat("hi")).unwrap_err();
    assert_eq!(e.status(), 400);
    assert_eq!(c.last_response().unwrap().status, 400);
}

#[test]
fn a_stream_dropped_mid_way_leaves_the_client_usable() {
    let mock = MockGateway::start();
    let c = client(&mock);
    {
        let mut s = c
            .stream_open(&ops::CHAT, &chat("one two three four"))
            .unwrap();
        assert!(s.next_event().unwrap().is_some());
    }
    let answer = c.call(&ops::CHAT, &[], Some(&chat("after"))).unwrap();
    assert!(answer.contains("Echo: after"), "{answer}");
}

#[test]
fn a_stream_outlives_the_client_it_was_opened_on() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let mut s = c.stream_open(&ops::CHAT, &chat("still here")).unwrap();
    drop(c);
    while s.next_event().unwrap().is_some() {}
    assert!(s.finish().unwrap().contains("still here"));
}

#[test]
fn sequential_streams_reuse_one_connection() {
    let mock = MockGateway::start();
    let c = client(&mock);
    for i in 0..21 {
        let answer = c
            .stream(&ops::CHAT, &chat(&format!("call {i}")), &mut |_| true)
            .unwrap();
        assert!(answer.contains(&format!("call {i}")));
    }
    let responses = json!({"model": "m", "input": "hi"});
    c.stream(&ops::RESPONSES, &responses, &mut |_| true)
        .unwrap();
    assert_eq!(mock.connection_count(), 1, "22 streams, one connection");
}
