//! Streams as real OpenAI-compatible servers send them (issue 9): each shape is played by
//! gw-mock (`{"action":"stream_shape","shape":..}`) and must give the caller what a
//! non-streamed answer would, without a false error.

mod common;

use common::*;
use gw::{ops, GW_STREAM};
use gw_mock::MockGateway;
use serde_json::{json, Value};

/// What a callback saw of one event.
#[derive(Debug)]
struct Seen {
    event: String,
    data: Value,
    text: Option<String>,
    choice: usize,
}

/// Streams `body` on `op` with the mock playing `shape`.
fn stream_shape(
    op: &'static gw::ops::Operation,
    shape: &str,
    body: &Value,
) -> (Result<String, gw::Error>, Vec<Seen>) {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "stream_shape", "shape": shape}));
    let c = client(&mock);
    let mut seen = Vec::new();
    let result = c.stream(op, body, &mut |ev| {
        assert_eq!(ev.index, seen.len(), "events are numbered in order");
        seen.push(Seen {
            event: ev.event.to_string(),
            data: serde_json::from_str(ev.data).expect("event data is JSON"),
            text: ev.text_delta.map(String::from),
            choice: ev.choice_index,
        });
        true
    });
    assert_eq!(mock.pending_faults(), 0, "the shape was played");
    (result, seen)
}

fn text_of(seen: &[Seen], choice: usize) -> String {
    seen.iter()
        .filter(|s| s.choice == choice)
        .filter_map(|s| s.text.as_deref())
        .collect()
}

#[test]
fn n2_delivers_one_event_per_choice_and_never_interleaves_choice_0() {
    let (result, seen) = stream_shape(&ops::CHAT, "n2", &chat("one two"));
    let v = parse(&result.unwrap());
    // A caller that prints the text of choice 0 sees exactly one answer.
    assert_eq!(text_of(&seen, 0), "Echo: one two");
    assert_eq!(text_of(&seen, 1), "ECHO: ONE TWO");
    for s in seen.iter().filter(|s| s.text.is_some()) {
        let own = s.data["choices"][s.choice]["delta"]["content"].as_str();
        assert_eq!(
            s.text.as_deref(),
            own,
            "text_delta is its own choice's text"
        );
    }
    // Choice 0's event comes before choice 1's for each chunk.
    let order: Vec<usize> = seen
        .iter()
        .filter(|s| s.text.is_some())
        .map(|s| s.choice)
        .collect();
    assert_eq!(order, [0, 1, 0, 1, 0, 1]);
    let choices = v["choices"].as_array().unwrap();
    assert_eq!(choices.len(), 2);
    assert_eq!(choices[0]["message"]["content"], "Echo: one two");
    assert_eq!(choices[1]["index"], 1);
    assert_eq!(choices[1]["message"]["content"], "ECHO: ONE TWO");
    assert_eq!(choices[1]["finish_reason"], "stop");
}

#[test]
fn tool_call_deltas_without_index_merge_by_id_then_by_new_name() {
    let (result, _) = stream_shape(&ops::CHAT, "tool_calls_no_index", &chat("x"));
    let v = parse(&result.unwrap());
    let calls = v["choices"][0]["message"]["tool_calls"].as_array().unwrap();
    let got: Vec<(Value, Value, Value)> = calls
        .iter()
        .map(|c| {
            (
                c["id"].clone(),
                c["function"]["name"].clone(),
                c["function"]["arguments"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (json!("call_1"), json!("get_time"), json!("{}")),
            (json!("call_2"), json!("get_weather"), json!("{\"c\":1}")),
            (Value::Null, json!("get_date"), json!("{\"tz\":\"UTC\"}")),
        ]
    );
    assert!(calls.iter().all(|c| c["type"] == "function"));
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    // As in a non-streamed answer: no text, so content is null.
    assert_eq!(v["choices"][0]["message"]["content"], Value::Null);
}

#[test]
fn a_usage_chunk_without_choices_completes_the_stream_with_its_usage() {
    let (result, seen) = stream_shape(&ops::CHAT, "usage_chunk", &chat("one two"));
    let v = parse(&result.expect("no GW_DECODE after every delta was printed"));
    assert_eq!(text_of(&seen, 0), "Echo: one two");
    assert_eq!(
        v["usage"],
        json!({"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5})
    );
    assert!(seen.last().unwrap().data.get("choices").is_none());
    assert_eq!(v["choices"][0]["message"]["content"], "Echo: one two");
}

#[test]
fn keepalive_objects_are_events_without_text() {
    let (result, seen) = stream_shape(&ops::CHAT, "keepalive", &chat("one two"));
    let v = parse(&result.unwrap());
    assert_eq!(text_of(&seen, 0), "Echo: one two");
    let pings = seen.iter().filter(|s| s.data.get("choices").is_none());
    assert_eq!(pings.clone().count(), 4, "{{}} and three pings");
    assert!(pings.clone().all(|s| s.text.is_none()));
    assert_eq!(v["choices"][0]["message"]["content"], "Echo: one two");
    assert_eq!(v["object"], "chat.completion");
    assert!(v.get("type").is_none(), "a keep-alive leaves no trace: {v}");
}

#[test]
fn the_assembled_completion_keeps_every_field_a_plain_answer_holds() {
    let (result, _) = stream_shape(&ops::CHAT, "extra_fields", &chat("one two"));
    let v = parse(&result.unwrap());
    assert_eq!(v["system_fingerprint"], "fp_mock");
    assert_eq!(v["service_tier"], "default");
    assert_eq!(
        v["provider"], "mock-upstream",
        "unknown top-level fields kept"
    );
    assert_eq!(v["usage"]["total_tokens"], 5);
    let choice = &v["choices"][0];
    let message = &choice["message"];
    assert_eq!(message["content"], "Echo: one two");
    assert_eq!(message["refusal"], "I cannot.", "refusal fragments joined");
    assert_eq!(message["reasoning"], "Thinking.", "unknown strings joined");
    assert_eq!(
        message["audio"],
        json!({"id": "audio_1", "transcript": "Hello", "expires_at": 7}),
        "unknown objects merged"
    );
    let tokens: Vec<&str> = choice["logprobs"]["content"]
        .as_array()
        .expect("logprobs.content kept")
        .iter()
        .map(|t| t["token"].as_str().unwrap())
        .collect();
    assert_eq!(tokens, ["Echo: ", "one ", "two"], "logprobs of every chunk");
    assert_eq!(choice["finish_reason"], "stop");
    assert_eq!(choice["native_finish_reason"], "STOP");
}

fn responses_body() -> Value {
    json!({"model": "m", "input": "one two"})
}

#[test]
fn responses_events_without_event_lines_are_named_by_their_type() {
    let (result, seen) = stream_shape(
        &ops::RESPONSES,
        "responses_no_event_lines",
        &responses_body(),
    );
    let v = parse(&result.unwrap());
    assert_eq!(v["status"], "completed");
    let names: Vec<&str> = seen.iter().map(|s| s.event.as_str()).collect();
    let delta = "response.output_text.delta";
    assert_eq!(
        names,
        [
            "response.created",
            delta,
            delta,
            delta,
            "response.output_text.done",
            "response.completed"
        ]
    );
    assert_eq!(text_of(&seen, 0), "Echo: one two");
}

#[test]
fn responses_done_after_completed_is_fine() {
    let (result, seen) = stream_shape(
        &ops::RESPONSES,
        "responses_done_after_completed",
        &responses_body(),
    );
    let v = parse(&result.unwrap());
    assert_eq!(v["status"], "completed");
    assert_eq!(seen.last().unwrap().event, "response.completed");
}

#[test]
fn response_incomplete_ends_the_stream_with_the_partial_response() {
    let (result, seen) = stream_shape(&ops::RESPONSES, "responses_incomplete", &responses_body());
    let v = parse(&result.expect("response.incomplete is terminal, not GW_STREAM"));
    assert_eq!(v["status"], "incomplete");
    assert_eq!(v["incomplete_details"]["reason"], "max_output_tokens");
    assert_eq!(v["object"], "response");
    assert_eq!(seen.last().unwrap().event, "response.incomplete");
    assert_eq!(text_of(&seen, 0), "Echo: one two");
}

#[test]
fn response_failed_is_gw_stream_with_the_response_in_the_error() {
    let (result, _) = stream_shape(&ops::RESPONSES, "responses_failed", &responses_body());
    let e = result.unwrap_err();
    assert_eq!(e.status(), GW_STREAM);
    let err = &error_json(&e)["error"];
    assert_eq!(err["message"], "The model failed mid-answer.");
    assert_eq!(err["code"], "server_error");
    assert_eq!(err["status"], GW_STREAM);
    assert_eq!(err["response"]["status"], "failed");
    assert!(err["response"]["id"].as_str().unwrap().starts_with("resp_"));
}

#[test]
fn a_legacy_function_call_beside_tool_calls_names_its_function_once() {
    // llama-cpp-python repeats the name in every chunk's `function_call` (issue 19, item 10).
    let (result, _) = stream_shape(&ops::CHAT, "legacy_function_call", &chat("x"));
    let v = parse(&result.unwrap());
    let message = &v["choices"][0]["message"];
    assert_eq!(
        message["function_call"],
        json!({"name": "get_weather", "arguments": "{\"location\": \"Paris\"}"})
    );
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["id"], "call_mock");
    assert_eq!(calls[0]["function"], message["function_call"]);
    assert_eq!(message["content"], Value::Null);
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
}
