//! Stream shapes real OpenAI-compatible servers send and the plain mock does not: several
//! choices per chunk, tool calls without `index`, chunks without `choices`, extra fields,
//! Responses events without `event:` lines, `response.incomplete` and `response.failed`.
//!
//! A test picks one for its next streamed request with the fault
//! `{"action": "stream_shape", "shape": "<name>"}`; the handler then builds its events here
//! instead of in the plain form. Each shape belongs to one endpoint and waits for a request
//! to it, so a chat shape is never used up by a Responses stream.

use serde_json::{json, Value};

/// One stream shape (the `shape` of a `stream_shape` fault).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Chat: `n` = 2, both choices' text in the same chunks (choice 1 answers "Second: ...").
    N2,
    /// Chat: three tool calls whose deltas carry no `index`: two told apart by `id`, the
    /// third by a new `function.name` alone.
    ToolCallsNoIndex,
    /// Chat: usage in a last chunk that has no `choices` key at all.
    UsageChunk,
    /// Chat: keep-alive objects (`{}`, `{"type":"ping"}`) between the chunks.
    Keepalive,
    /// Chat: `system_fingerprint`, `service_tier`, an unknown top-level field, `logprobs`,
    /// `delta.refusal`, unknown delta fields (a string and an object) and an unknown
    /// choice field.
    ExtraFields,
    /// Chat: a tool call as llama-cpp-python streams it: each chunk carries the call twice,
    /// in `delta.tool_calls` and in the legacy `delta.function_call`, the function's name
    /// repeated in every chunk and the arguments in pieces.
    LegacyFunctionCall,
    /// Responses: the events as bare `data:` lines, no `event:` line.
    ResponsesNoEventLines,
    /// Responses: `data: [DONE]` after `response.completed`.
    ResponsesDoneAfterCompleted,
    /// Responses: ends with `response.incomplete` (max_output_tokens reached).
    ResponsesIncomplete,
    /// Responses: ends with `response.failed` carrying the failed response.
    ResponsesFailed,
}

/// Every shape by name, for parsing and for the error that lists them.
const NAMES: &[(&str, Shape)] = &[
    ("n2", Shape::N2),
    ("tool_calls_no_index", Shape::ToolCallsNoIndex),
    ("usage_chunk", Shape::UsageChunk),
    ("keepalive", Shape::Keepalive),
    ("extra_fields", Shape::ExtraFields),
    ("legacy_function_call", Shape::LegacyFunctionCall),
    ("responses_no_event_lines", Shape::ResponsesNoEventLines),
    (
        "responses_done_after_completed",
        Shape::ResponsesDoneAfterCompleted,
    ),
    ("responses_incomplete", Shape::ResponsesIncomplete),
    ("responses_failed", Shape::ResponsesFailed),
];

impl Shape {
    pub fn parse(name: &str) -> Result<Shape, String> {
        NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                let all: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
                format!("shape: unknown {name:?} (one of {})", all.join(", "))
            })
    }

    /// The endpoint whose streams this shape replaces.
    pub fn path(self) -> &'static str {
        match self {
            Shape::N2
            | Shape::ToolCallsNoIndex
            | Shape::UsageChunk
            | Shape::Keepalive
            | Shape::ExtraFields
            | Shape::LegacyFunctionCall => "/v1/chat/completions",
            _ => "/v1/responses",
        }
    }
}

/// What a chat stream says, whatever its shape.
pub struct ChatAnswer<'a> {
    pub id: &'a str,
    pub created: u64,
    pub model: &'a str,
    /// The answer's fragments (word + space), concatenating to the text.
    pub fragments: Vec<String>,
    pub finish: &'a str,
    pub usage: Value,
}

fn data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

/// The `data:` events of a chat stream in `shape`, `[DONE]` last.
pub fn chat_events(shape: Shape, a: &ChatAnswer<'_>) -> Vec<String> {
    let head = json!({"id": a.id, "object": "chat.completion.chunk", "created": a.created, "model": a.model});
    let chunk = |choices: Value| {
        let mut c = head.clone();
        c["choices"] = choices;
        c
    };
    let one = |delta: Value, finish: Value| {
        chunk(json!([{"index": 0, "delta": delta, "finish_reason": finish}]))
    };
    let mut out: Vec<Value> = Vec::new();
    match shape {
        Shape::N2 => {
            let second: Vec<String> = a.fragments.iter().map(|f| f.to_uppercase()).collect();
            let both = |d0: Value, d1: Value, finish: Value| {
                chunk(json!([
                    {"index": 0, "delta": d0, "finish_reason": finish},
                    {"index": 1, "delta": d1, "finish_reason": finish},
                ]))
            };
            out.push(both(
                json!({"role": "assistant", "content": ""}),
                json!({"role": "assistant", "content": ""}),
                Value::Null,
            ));
            for (f0, f1) in a.fragments.iter().zip(&second) {
                out.push(both(
                    json!({"content": f0}),
                    json!({"content": f1}),
                    Value::Null,
                ));
            }
            out.push(both(json!({}), json!({}), json!(a.finish)));
        }
        Shape::ToolCallsNoIndex => {
            out.push(one(
                json!({"role": "assistant", "content": null}),
                Value::Null,
            ));
            let call = |d: Value| one(json!({"tool_calls": [d]}), Value::Null);
            out.push(call(
                json!({"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": ""}}),
            ));
            out.push(call(json!({"function": {"arguments": "{}"}})));
            out.push(call(
                json!({"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": ""}}),
            ));
            out.push(call(json!({"function": {"arguments": "{\"c\":"}})));
            out.push(call(json!({"function": {"arguments": "1}"}})));
            out.push(call(
                json!({"type": "function", "function": {"name": "get_date", "arguments": "{\"tz\":"}}),
            ));
            out.push(call(json!({"function": {"arguments": "\"UTC\"}"}})));
            out.push(one(json!({}), json!("tool_calls")));
        }
        Shape::UsageChunk | Shape::Keepalive => {
            let keepalive = shape == Shape::Keepalive;
            if keepalive {
                out.push(json!({}));
            }
            out.push(one(
                json!({"role": "assistant", "content": ""}),
                Value::Null,
            ));
            for f in &a.fragments {
                out.push(one(json!({"content": f}), Value::Null));
                if keepalive {
                    out.push(json!({"type": "ping"}));
                }
            }
            out.push(one(json!({}), json!(a.finish)));
            if shape == Shape::UsageChunk {
                let mut last = head.clone();
                last["usage"] = a.usage.clone();
                out.push(last);
            }
        }
        Shape::ExtraFields => {
            let mut head = head.clone();
            head["system_fingerprint"] = json!("fp_mock");
            head["service_tier"] = json!("default");
            head["provider"] = json!("mock-upstream");
            let with_head = |choice: Value| {
                let mut c = head.clone();
                c["choices"] = json!([choice]);
                c
            };
            out.push(with_head(
                json!({"index": 0, "delta": {"role": "assistant", "content": "", "refusal": null}, "logprobs": null, "finish_reason": null}),
            ));
            for (i, f) in a.fragments.iter().enumerate() {
                let mut delta = json!({"content": f});
                // Text and an object in pieces, in fields gw has no name for.
                match i {
                    0 => delta["reasoning"] = json!("Think"),
                    1 => delta["reasoning"] = json!("ing."),
                    _ => {}
                }
                let lp = json!({"content": [{"token": f, "logprob": -0.25, "bytes": f.as_bytes(), "top_logprobs": []}], "refusal": null});
                out.push(with_head(
                    json!({"index": 0, "delta": delta, "logprobs": lp, "finish_reason": null}),
                ));
            }
            out.push(with_head(
                json!({"index": 0, "delta": {"refusal": "I can"}, "finish_reason": null}),
            ));
            out.push(with_head(
                json!({"index": 0, "delta": {"refusal": "not.", "audio": {"id": "audio_1", "transcript": "He"}}, "finish_reason": null}),
            ));
            out.push(with_head(
                json!({"index": 0, "delta": {"audio": {"transcript": "llo", "expires_at": 7}}, "finish_reason": null}),
            ));
            out.push(with_head(
                json!({"index": 0, "delta": {}, "finish_reason": a.finish, "native_finish_reason": "STOP"}),
            ));
            let mut last = head.clone();
            last["choices"] = json!([]);
            last["usage"] = a.usage.clone();
            out.push(last);
        }
        Shape::LegacyFunctionCall => {
            let pieces = ["{\"location\": ", "\"Paris\"", "}"];
            for (i, args) in std::iter::once("").chain(pieces).enumerate() {
                let name = "get_weather";
                let mut delta = json!({
                    "content": null,
                    "function_call": {"name": name, "arguments": args},
                    "tool_calls": [{"index": 0, "id": "call_mock", "type": "function",
                                    "function": {"name": name, "arguments": args}}],
                });
                if i == 0 {
                    delta["role"] = json!("assistant");
                }
                out.push(one(delta, Value::Null));
            }
            out.push(one(json!({}), json!("tool_calls")));
        }
        // Responses shapes never reach a chat handler (`Shape::path`); play the plain form.
        _ => {
            out.push(one(
                json!({"role": "assistant", "content": ""}),
                Value::Null,
            ));
            for f in &a.fragments {
                out.push(one(json!({"content": f}), Value::Null));
            }
            out.push(one(json!({}), json!(a.finish)));
        }
    }
    let mut events: Vec<String> = out.iter().map(data).collect();
    events.push("data: [DONE]\n\n".into());
    events
}

/// A Responses stream in `shape`: `events` are the plain stream's (name, data) pairs with
/// `response.completed` last; `response` is the finished response.
pub fn responses_events(shape: Shape, events: Vec<(String, Value)>) -> Vec<String> {
    let named = |(name, data): &(String, Value)| format!("event: {name}\ndata: {data}\n\n");
    let mut events = events;
    match shape {
        Shape::ResponsesNoEventLines => events.iter().map(|(_, d)| data(d)).collect(),
        Shape::ResponsesDoneAfterCompleted => {
            let mut out: Vec<String> = events.iter().map(named).collect();
            out.push("data: [DONE]\n\n".into());
            out
        }
        Shape::ResponsesIncomplete | Shape::ResponsesFailed => {
            let (_, completed) = events.pop().unwrap_or_default();
            let mut response = completed["response"].clone();
            let (name, status) = if shape == Shape::ResponsesIncomplete {
                response["incomplete_details"] = json!({"reason": "max_output_tokens"});
                ("response.incomplete", "incomplete")
            } else {
                response["error"] =
                    json!({"code": "server_error", "message": "The model failed mid-answer."});
                ("response.failed", "failed")
            };
            response["status"] = json!(status);
            // The text so far is all the response holds; drop the finished-text event.
            events.retain(|(n, _)| n != "response.output_text.done");
            let mut out: Vec<String> = events.iter().map(named).collect();
            out.push(named(&(
                name.to_string(),
                json!({"type": name, "response": response}),
            )));
            out
        }
        _ => events.iter().map(named).collect(),
    }
}
