//! Drives a stream: SSE events -> callback, text-delta extraction and the
//! final object. An end before the terminal event is an error, never a silent
//! success; an in-stream error object is an error.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde_json::{json, Map, Value};

use crate::error::Error;
use crate::ops::StreamKind;
use crate::sse::{SseError, SseParser};
use crate::transport_error::map_io;

/// One event as the caller sees it. Borrowed: valid until the stream moves on.
#[derive(Debug)]
pub struct StreamEvent<'a> {
    /// The SSE event name (`message` when the stream names none).
    pub event: &'a str,
    /// The event's data (a JSON text).
    pub data: &'a str,
    /// The text fragment this event carries, when it carries one.
    pub text_delta: Option<&'a str>,
    /// 0-based position among the events delivered.
    pub index: usize,
    /// Chat: the choice `text_delta` belongs to (a chunk with text for several
    /// choices is delivered as one event per choice, sharing `data`). 0 otherwise.
    pub choice_index: usize,
}

/// What one step of a stream produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// An event is ready (`StreamDriver::current`).
    Event,
    /// The terminal event was seen; the final object is ready (`StreamDriver::take_final`).
    Done,
}

/// Pulls events off an SSE parser one at a time and assembles the final object.
pub struct StreamDriver<R> {
    kind: StreamKind,
    parser: SseParser<R>,
    chat: ChatAssembler,
    delivered: usize,
    event: String,
    data: String,
    text: Option<String>,
    choice: usize,
    /// Texts of further choices of the current chunk, delivered as their own events.
    pending: std::collections::VecDeque<(usize, String)>,
    final_object: Option<String>,
    /// The Responses terminal event was delivered: the next step is `Done`.
    ended: bool,
}

impl<R: BufRead> StreamDriver<R> {
    pub fn new(kind: StreamKind, parser: SseParser<R>) -> Self {
        StreamDriver {
            kind,
            parser,
            chat: ChatAssembler::default(),
            delivered: 0,
            event: String::new(),
            data: String::new(),
            text: None,
            choice: 0,
            pending: Default::default(),
            final_object: None,
            ended: false,
        }
    }

    /// Events handed out so far.
    pub fn delivered(&self) -> usize {
        self.delivered
    }

    /// The event of the last `Step::Event`.
    pub fn current(&self) -> StreamEvent<'_> {
        StreamEvent {
            event: &self.event,
            data: &self.data,
            text_delta: self.text.as_deref(),
            index: self.delivered.saturating_sub(1),
            choice_index: self.choice,
        }
    }

    /// The assembled final object once `Step::Done` was returned.
    pub fn take_final(&mut self) -> Option<String> {
        self.final_object.take()
    }

    /// Moves to the next event, or to the end.
    pub fn step(&mut self) -> Result<Step, Error> {
        if let Some((choice, text)) = self.pending.pop_front() {
            self.choice = choice;
            self.text = Some(text);
            self.delivered += 1;
            return Ok(Step::Event);
        }
        if self.ended {
            return Ok(Step::Done);
        }
        let ev = match self.parser.next_event() {
            Ok(Some(ev)) => ev,
            Ok(None) => {
                let terminal = match self.kind {
                    StreamKind::Chat => "data: [DONE]",
                    StreamKind::Responses => "response.completed",
                };
                return Err(Error::Stream {
                    message: format!(
                        "stream ended after {} event(s) without {terminal}",
                        self.delivered
                    ),
                    body: None,
                });
            }
            Err(SseError::LineTooLong { limit }) => {
                return Err(Error::TooLarge(format!(
                    "a stream line is over max_line_bytes ({limit} bytes)"
                )))
            }
            Err(SseError::EventTooLarge { limit }) => {
                return Err(Error::TooLarge(format!(
                    "a stream event is over max_event_bytes ({limit} bytes)"
                )))
            }

            Err(SseError::Io(e)) => return Err(with_context(map_io(e), self.delivered)),
        };
        if self.kind == StreamKind::Chat && ev.data.trim() == "[DONE]" {
            self.final_object = Some(std::mem::take(&mut self.chat).finish());
            self.ended = true;
            return Ok(Step::Done);
        }
        let data: Value = serde_json::from_str(&ev.data).map_err(|e| {
            if ev.cut {
                // A fragment at the very end: the connection closed mid-event.
                Error::Stream {
                    message: format!(
                        "the stream was cut mid-line after {} event(s) (connection closed)",
                        self.delivered
                    ),
                    body: None,
                }
            } else {
                Error::Decode(format!(
                    "stream event {} is not valid JSON ({e})",
                    self.delivered
                ))
            }
        })?;
        self.choice = 0;
        self.text = None;
        match self.kind {
            StreamKind::Chat => {
                let mut texts = self.chat.absorb(&data)?.into_iter();
                if let Some((choice, text)) = texts.next() {
                    self.choice = choice;
                    self.text = Some(text);
                }
                self.pending.extend(texts);
            }
            StreamKind::Responses => {
                let (delta, done) = responses_event(&ev.event, &data)?;
                self.text = delta;
                if let Some(response) = done {
                    self.final_object = Some(response.to_string());
                    self.ended = true;
                }
            }
        }
        self.event = ev.event;
        self.data = ev.data;
        self.delivered += 1;
        Ok(Step::Event)
    }
}

#[cfg(test)]
/// Reads events until the terminal one, handing each to `on_event` (false
/// cancels); returns the assembled final object.
pub fn drive<R: BufRead>(
    kind: StreamKind,
    parser: SseParser<R>,
    on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
) -> Result<String, Error> {
    let mut driver = StreamDriver::new(kind, parser);
    loop {
        match driver.step()? {
            Step::Event => {
                if !on_event(&driver.current()) {
                    return Err(Error::Cancelled);
                }
            }
            Step::Done => return Ok(driver.take_final().unwrap_or_default()),
        }
    }
}

fn with_context(e: Error, delivered: usize) -> Error {
    match e {
        Error::Network(m) => Error::Network(format!("{m} (after {delivered} stream event(s))")),
        Error::Timeout(m) => Error::Timeout(format!("{m} (after {delivered} stream event(s))")),
        other => other,
    }
}

/// A 2xx answer that is not an event stream: an error object, or a broken promise.
pub fn non_stream_answer(text: &str) -> Error {
    match serde_json::from_str::<Value>(text) {
        Ok(v) if v.get("error").is_some() => Error::Stream {
            message: crate::error::http_error_message(200, text),
            body: Some(v),
        },
        _ => {
            Error::Decode("expected an event stream (text/event-stream), got another answer".into())
        }
    }
}

/// Responses events: (text delta, final response when this is the terminal event).
fn responses_event(name: &str, data: &Value) -> Result<(Option<String>, Option<Value>), Error> {
    let kind = match name {
        "message" => data.get("type").and_then(Value::as_str).unwrap_or(name),
        named => named,
    };
    match kind {
        "response.output_text.delta" => Ok((
            data.get("delta").and_then(Value::as_str).map(String::from),
            None,
        )),
        "response.completed" => {
            let response = data
                .get("response")
                .filter(|r| r.is_object())
                .ok_or_else(|| {
                    Error::Decode("response.completed carries no 'response' object".into())
                })?;
            Ok((None, Some(response.clone())))
        }
        "error" | "response.failed" => {
            // response.failed nests its error; an `error` event is the error itself,
            // whose `type` ("error") names the event, not the kind of error.
            let mut detail = data
                .pointer("/response/error")
                .or_else(|| data.get("error"))
                .cloned()
                .unwrap_or_else(|| data.clone());
            if let Some(obj) = detail.as_object_mut() {
                if obj.get("type").and_then(Value::as_str) == Some("error") {
                    obj.remove("type");
                }
            }
            let message = detail
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the stream reported an error")
                .to_string();
            Err(Error::Stream {
                message,
                body: Some(detail),
            })
        }
        _ => Ok((None, None)),
    }
}

/// Builds a `chat.completion` from `chat.completion.chunk`s.
#[derive(Default)]
struct ChatAssembler {
    id: Option<Value>,
    created: Option<Value>,
    model: Option<Value>,
    system_fingerprint: Option<Value>,
    usage: Option<Value>,
    choices: BTreeMap<u64, ChoiceSoFar>,
}

#[derive(Default)]
struct ChoiceSoFar {
    role: Option<String>,
    content: String,
    reasoning: String,
    finish_reason: Value,
    tool_calls: BTreeMap<u64, Map<String, Value>>,
}

impl ChatAssembler {
    /// Folds a chunk in; returns the text each choice carries, in choice order.
    fn absorb(&mut self, chunk: &Value) -> Result<Vec<(usize, String)>, Error> {
        if let Some(err) = chunk.get("error") {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the stream reported an error")
                .to_string();
            return Err(Error::Stream {
                message,
                body: Some(chunk.clone()),
            });
        }
        let choices = chunk
            .get("choices")
            .and_then(Value::as_array)
            .ok_or_else(|| Error::Decode("stream chunk lacks a 'choices' array".into()))?;
        for (slot, key) in [
            (&mut self.id, "id"),
            (&mut self.created, "created"),
            (&mut self.model, "model"),
            (&mut self.system_fingerprint, "system_fingerprint"),
        ] {
            if slot.is_none() {
                *slot = chunk.get(key).filter(|v| !v.is_null()).cloned();
            }
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(u.clone());
        }
        let mut texts: Vec<(usize, String)> = Vec::new();
        for choice in choices {
            let index = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            let acc = self.choices.entry(index).or_default();
            if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
                acc.finish_reason = reason.clone();
            }
            let Some(delta) = choice.get("delta") else {
                continue;
            };
            if let Some(role) = delta.get("role").and_then(Value::as_str) {
                acc.role = Some(role.to_string());
            }
            if let Some(piece) = delta.get("content").and_then(Value::as_str) {
                acc.content.push_str(piece);
                if !piece.is_empty() {
                    match texts.iter_mut().find(|(i, _)| *i == index as usize) {
                        Some((_, t)) => t.push_str(piece),
                        None => texts.push((index as usize, piece.to_string())),
                    }
                }
            }
            if let Some(piece) = delta.get("reasoning_content").and_then(Value::as_str) {
                acc.reasoning.push_str(piece);
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                merge_tool_calls(&mut acc.tool_calls, calls);
            }
        }
        texts.sort_by_key(|(i, _)| *i);
        Ok(texts)
    }

    fn finish(self) -> String {
        let choices: Vec<Value> = self
            .choices
            .into_iter()
            .map(|(index, c)| {
                let mut message = Map::new();
                message.insert(
                    "role".into(),
                    c.role.unwrap_or_else(|| "assistant".into()).into(),
                );
                message.insert("content".into(), c.content.into());
                if !c.reasoning.is_empty() {
                    message.insert("reasoning_content".into(), c.reasoning.into());
                }
                if !c.tool_calls.is_empty() {
                    let calls: Vec<Value> = c.tool_calls.into_values().map(Value::Object).collect();
                    message.insert("tool_calls".into(), calls.into());
                }
                json!({"index": index, "message": message, "finish_reason": c.finish_reason})
            })
            .collect();
        let mut out = Map::new();
        out.insert("id".into(), self.id.unwrap_or(Value::Null));
        out.insert("object".into(), "chat.completion".into());
        out.insert("created".into(), self.created.unwrap_or(Value::Null));
        out.insert("model".into(), self.model.unwrap_or(Value::Null));
        if let Some(fp) = self.system_fingerprint {
            out.insert("system_fingerprint".into(), fp);
        }
        out.insert("choices".into(), choices.into());
        if let Some(u) = self.usage {
            out.insert("usage".into(), u);
        }
        Value::Object(out).to_string()
    }
}

/// Tool-call deltas arrive in pieces keyed by `index`: id and name once,
/// `function.arguments` as string fragments to concatenate.
fn merge_tool_calls(calls: &mut BTreeMap<u64, Map<String, Value>>, deltas: &[Value]) {
    for d in deltas {
        let index = d.get("index").and_then(Value::as_u64).unwrap_or(0);
        let call = calls.entry(index).or_default();
        for key in ["id", "type"] {
            if let Some(v) = d.get(key).filter(|v| !v.is_null()) {
                call.insert(key.into(), v.clone());
            }
        }
        if let Some(f) = d.get("function") {
            let func = call
                .entry("function")
                .or_insert_with(|| json!({"name": "", "arguments": ""}));
            for key in ["name", "arguments"] {
                if let Some(piece) = f.get(key).and_then(Value::as_str) {
                    let slot = &mut func[key];
                    let joined = format!("{}{piece}", slot.as_str().unwrap_or(""));
                    *slot = joined.into();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn run(kind: StreamKind, text: &str) -> (Result<String, Error>, Vec<Option<String>>) {
        let parser = SseParser::new(Cursor::new(text.as_bytes().to_vec()), 1 << 16);
        let mut deltas = Vec::new();
        let result = drive(kind, parser, &mut |ev| {
            deltas.push(ev.text_delta.map(String::from));
            true
        });
        (result, deltas)
    }

    const CHAT: &str = concat!(
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n"
    );

    #[test]
    fn chat_chunks_assemble_into_a_completion() {
        let (result, deltas) = run(StreamKind::Chat, CHAT);
        let v: Value = serde_json::from_str(&result.unwrap()).unwrap();
        assert_eq!(v["object"], "chat.completion");
        assert_eq!(v["id"], "c1");
        assert_eq!(v["choices"][0]["message"]["content"], "Hello");
        assert_eq!(v["choices"][0]["message"]["role"], "assistant");
        assert_eq!(v["choices"][0]["finish_reason"], "stop");
        assert_eq!(deltas, [None, Some("Hel".into()), Some("lo".into()), None]);
    }

    #[test]
    fn a_stream_cut_mid_line_is_a_stream_error_not_a_decode_error() {
        let cut = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"id\":\"c1\",\"cho";
        match run(StreamKind::Chat, cut).0 {
            Err(Error::Stream { message, .. }) => {
                assert!(message.contains("cut mid-line"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        // A server that only omits the last newline still ends cleanly.
        let (result, _) = run(
            StreamKind::Chat,
            &CHAT.replace("data: [DONE]\n\n", "data: [DONE]"),
        );
        assert!(result.is_ok(), "{result:?}");
    }

    #[test]
    fn one_event_per_choice_with_text() {
        let text = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}},{\"index\":1,\"delta\":{\"content\":\"Bon\"}}]}\n\n",
            "data: [DONE]\n\n"
        );
        let mut parser_events = Vec::new();
        let parser = SseParser::new(Cursor::new(text.as_bytes().to_vec()), 1 << 16);
        let done = drive(StreamKind::Chat, parser, &mut |ev| {
            parser_events.push((ev.choice_index, ev.text_delta.map(String::from), ev.index));
            true
        })
        .unwrap();
        assert_eq!(
            parser_events,
            [(0, Some("Hel".into()), 0), (1, Some("Bon".into()), 1)]
        );
        let v: Value = serde_json::from_str(&done).unwrap();
        assert_eq!(v["choices"][1]["message"]["content"], "Bon");
    }

    #[test]
    fn chat_without_done_is_a_stream_error() {
        let cut = CHAT.replace("data: [DONE]\n\n", "");
        let (result, _) = run(StreamKind::Chat, &cut);
        assert!(matches!(result, Err(Error::Stream { .. })));
    }

    #[test]
    fn tool_call_fragments_are_joined() {
        let text = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"t1\",\"type\":\"function\",\"function\":{\"name\":\"get\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n"
        );
        let v: Value = serde_json::from_str(&run(StreamKind::Chat, text).0.unwrap()).unwrap();
        let call = &v["choices"][0]["message"]["tool_calls"][0];
        assert_eq!(call["id"], "t1");
        assert_eq!(call["function"]["arguments"], "{\"a\":1}");
        assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    }

    #[test]
    fn responses_stream_returns_the_completed_response() {
        let text = concat!(
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n",
            "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r1\",\"status\":\"completed\"}}\n\n"
        );
        let (result, deltas) = run(StreamKind::Responses, text);
        let v: Value = serde_json::from_str(&result.unwrap()).unwrap();
        assert_eq!(v["id"], "r1");
        assert_eq!(deltas, [Some("Hi".into()), None]);
    }

    #[test]
    fn responses_failed_event_is_a_stream_error() {
        let text = "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"error\":{\"message\":\"boom\"}}}\n\n";
        match run(StreamKind::Responses, text).0 {
            Err(Error::Stream { message, .. }) => assert_eq!(message, "boom"),
            other => panic!("{other:?}"),
        }
    }
}
