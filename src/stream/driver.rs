//! Drives a stream: SSE events -> callback, text-delta extraction and the
//! final object. An end before the terminal event is an error, never a silent
//! success; an in-stream error object is an error.

use std::io::BufRead;

use serde_json::Value;

use crate::error::Error;
use crate::stream::chat_assembly::{ChatAssembler, Interrupt, CHECK_EVERY};
use crate::stream::chunk_scan::{scan_chat, scan_responses, ChatMode, ChatScan};
use crate::stream::sse::{Buffered, SseError, SseEvent, SseParser};

/// One event as the caller sees it. Borrowed: valid until the stream moves on.
#[derive(Debug)]
pub struct StreamEvent<'a> {
    /// The SSE event name: `message` for chat chunks; for a Responses event
    /// without an `event:` line, its data's `type`.
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

/// How a stream's events are framed and how it ends (an operation's
/// `stream`, `gw::ops::StreamKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamKind {
    /// `data:` chunks ending with `[DONE]`.
    Chat,
    /// Named events ending with `response.completed`.
    Responses,
}

/// Pulls events off an SSE parser one at a time and assembles the final object.
/// Its buffers are kept from event to event: a long stream allocates nothing
/// per event on the fast way (`chunk_scan`).
pub struct StreamDriver<R> {
    kind: StreamKind,
    parser: SseParser<R>,
    chat: ChatAssembler,
    /// Whether the final chat object is assembled (not when nobody takes it).
    assemble: bool,
    delivered: usize,
    /// Events read the fast way (no JSON tree).
    fast: usize,
    /// Tests and fuzzing: every event read the general way (the fast way's reference).
    general_only: bool,
    /// The current SSE event.
    sse: SseEvent,
    /// The current event's name (Responses: its data's `type` when unnamed).
    name: String,
    /// The current chunk's texts per choice.
    scan: ChatScan,
    /// The text slot of the current event; the slots after it are delivered
    /// as events of their own, sharing `data`.
    slot: Option<usize>,
    choice: usize,
    final_object: Option<String>,
    /// The Responses terminal event was delivered: the next step is `Done`.
    ended: bool,
    /// The largest chat answer assembled from the chunks (max_response_bytes).
    assembly_limit: usize,
    /// Checked inside long loops over one chunk (a cancel, the deadline).
    interrupt: Option<Interrupt>,
}

impl<R: BufRead> StreamDriver<R> {
    pub fn new(kind: StreamKind, parser: SseParser<R>) -> Self {
        StreamDriver {
            kind,
            parser,
            chat: ChatAssembler::default(),
            assemble: true,
            delivered: 0,
            fast: 0,
            general_only: false,
            sse: SseEvent::default(),
            name: String::new(),
            scan: ChatScan::default(),
            slot: None,
            choice: 0,
            final_object: None,
            ended: false,
            assembly_limit: usize::MAX,
            interrupt: None,
        }
    }

    /// A check made now and then while one chunk is worked through (its
    /// choices merged, its events handed out): Err ends the stream with it.
    /// Reads check cancel and deadlines themselves; a chunk naming 100,000
    /// choices is CPU work between two reads.
    pub(crate) fn interrupt(mut self, check: Interrupt) -> Self {
        self.chat.set_interrupt(Some(check.clone()));
        self.interrupt = Some(check);
        self
    }

    /// Reads every event the general way, never the fast one (`chunk_scan`): the
    /// reference the tests and the fuzzer (`crate::fuzzing`) compare the fast way with.
    pub(crate) fn general_only(mut self, on: bool) -> Self {
        self.general_only = on;
        self
    }

    /// Caps the answer assembled from a chat stream's chunks.
    pub fn assembly_limit(mut self, bytes: usize) -> Self {
        self.assembly_limit = bytes;
        self
    }

    /// Whether to assemble the final chat object; without it memory stays flat
    /// however long the stream (the final object is then empty).
    pub fn assemble(mut self, on: bool) -> Self {
        self.assemble = on;
        self
    }

    /// Events handed out so far.
    pub fn delivered(&self) -> usize {
        self.delivered
    }

    /// Events read the fast way so far (the rest needed a JSON tree).
    pub fn read_fast(&self) -> usize {
        self.fast
    }

    /// The event of the last `Step::Event`.
    pub fn current(&self) -> StreamEvent<'_> {
        StreamEvent {
            event: &self.name,
            data: &self.sse.data,
            text_delta: self.slot.map(|s| self.scan.texts.get(s).1),
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
        if let Some(step) = self.step_without_read()? {
            return Ok(step);
        }
        let read = self.parser.next_into(&mut self.sse);
        self.step_after_read(read)
    }

    /// The step the events already worked out give (the next choice of a chunk
    /// with several, the end after the terminal event), or None: the next SSE
    /// event is needed.
    #[inline(always)]
    fn step_without_read(&mut self) -> Result<Option<Step>, Error> {
        if let Some(next) = self
            .slot
            .map(|s| s + 1)
            .filter(|&n| n < self.scan.texts.len())
        {
            if next % CHECK_EVERY == 0 {
                if let Some(interrupt) = &self.interrupt {
                    interrupt()?;
                }
            }
            self.slot = Some(next);
            self.choice = self.scan.texts.get(next).0;
            self.delivered += 1;
            return Ok(Some(Step::Event));
        }
        if self.ended {
            return Ok(Some(Step::Done));
        }
        self.slot = None;
        self.choice = 0;
        Ok(None)
    }

    /// The step the SSE parser's answer (`next_into`) makes.
    #[inline(always)]
    fn step_after_read(&mut self, read: Result<bool, SseError>) -> Result<Step, Error> {
        match read {
            Ok(true) => {}
            Ok(false) => return Err(self.early_end()),
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
            Err(SseError::Io(e)) => {
                return Err(with_context(Error::Network(e.to_string()), self.delivered))
            }
        }
        if is_done_marker(&self.sse.data) {
            if self.kind == StreamKind::Responses {
                // Some servers end Responses streams with it too; before the terminal
                // event it is an early end.
                return Err(self.early_end());
            }
            if self.assemble {
                self.final_object = Some(std::mem::take(&mut self.chat).finish());
            }
            self.ended = true;
            return Ok(Step::Done);
        }
        match self.kind {
            StreamKind::Chat => self.chat_event()?,
            StreamKind::Responses => self.responses_event()?,
        }
        if self.scan.texts.len() > 0 {
            self.slot = Some(0);
            self.choice = self.scan.texts.get(0).0;
        }
        self.delivered += 1;
        Ok(Step::Event)
    }

    /// As `step`, from the bytes already read only, never reading: `Ok(None)` where
    /// `step` would read (nothing changed but what `step` would have done before
    /// its read). Mixed in any order with `step`, the events, their texts and the
    /// final object are those of `step` alone.
    #[inline(always)]
    pub fn step_buffered(&mut self) -> Result<Option<Step>, Error>
    where
        R: Buffered,
    {
        if let Some(step) = self.step_without_read()? {
            return Ok(Some(step));
        }
        match self.parser.next_buffered(&mut self.sse) {
            Ok(None) => Ok(None),
            Ok(Some(got)) => self.step_after_read(Ok(got)).map(Some),
            Err(e) => self.step_after_read(Err(e)).map(Some),
        }
    }

    /// Reads a chat chunk: the fast way when it only carries text, else the general way.
    fn chat_event(&mut self) -> Result<(), Error> {
        let data = &self.sse.data;
        let fast = if self.general_only {
            false
        } else if self.assemble {
            let mode = ChatMode::Assembling {
                top: self.chat.top_raw(),
            };
            scan_chat(data, &mode, &mut self.scan) && self.chat.absorb_simple(&self.scan)
        } else {
            scan_chat(data, &ChatMode::TextsOnly, &mut self.scan)
        };
        if fast {
            self.fast += 1;
        } else {
            // The general way may change the merged fields a shape's verdict rests on.
            self.scan.forget_shape();
            let value = self.parse_data()?;
            let texts = if self.assemble {
                self.chat.absorb_text(&value, &self.sse.data)?
            } else {
                let mut texts_only = ChatAssembler::default();
                texts_only.set_interrupt(self.interrupt.clone());
                texts_only.absorb(&value)?
            };
            self.scan.texts.clear();
            for (choice, text) in texts {
                self.scan.texts.add(choice, &text);
            }
        }
        if self.assemble && self.chat.retained() > self.assembly_limit {
            return Err(Error::TooLarge(format!(
                "the assembled answer is over max_response_bytes ({} bytes)",
                self.assembly_limit
            )));
        }
        if self.name != self.sse.event {
            self.name.clone_from(&self.sse.event);
        }
        Ok(())
    }

    /// Reads a Responses event: its name and text the fast way; the terminal and
    /// error events (and odd ones) the general way.
    fn responses_event(&mut self) -> Result<(), Error> {
        self.scan.texts.clear();
        if let Some(scan) = scan_responses(&self.sse.data) {
            // Servers that send no `event:` lines name each event by its `type`.
            let name = match &scan.kind {
                Some(kind) if self.sse.event == "message" => &*kind.0,
                _ => &self.sse.event,
            };
            if !matches!(
                name,
                "response.completed" | "response.incomplete" | "error" | "response.failed"
            ) {
                if name == "response.output_text.delta" {
                    if let Some(delta) = &scan.delta {
                        self.scan.texts.add(0, &delta.0);
                    }
                }
                self.name.clear();
                self.name.push_str(name);
                self.fast += 1;
                return Ok(());
            }
        }
        let data = self.parse_data()?;
        let mut name = self.sse.event.clone();
        if name == "message" {
            if let Some(kind) = data.get("type").and_then(Value::as_str) {
                name = kind.to_string();
            }
        }
        let (delta, done) = responses_event(&name, &data)?;
        if let Some(delta) = delta {
            self.scan.texts.add(0, &delta);
        }
        if let Some(response) = done {
            self.final_object = Some(response.to_string());
            self.ended = true;
        }
        self.name = name;
        Ok(())
    }

    /// The current event's data as a JSON value, or the error it is.
    fn parse_data(&self) -> Result<Value, Error> {
        // Every event here was closed by its blank line (an unfinished one is dropped
        // by the parser): bad JSON is the server's, not a cut.
        serde_json::from_str(&self.sse.data).map_err(|e| {
            Error::Decode(format!(
                "stream event {} is not valid JSON ({e})",
                self.delivered
            ))
        })
    }
}

impl<R> StreamDriver<R> {
    /// The reader under the parser (the fed bytes of an exchange).
    pub(crate) fn reader(&self) -> &R {
        self.parser.reader()
    }

    pub(crate) fn reader_mut(&mut self) -> &mut R {
        self.parser.reader_mut()
    }

    /// A failed read of the stream's transport, with how far the stream got.
    pub(crate) fn failed_read(&self, e: Error) -> Error {
        with_context(e, self.delivered)
    }

    /// The error of a stream that ended before its terminal event.
    fn early_end(&self) -> Error {
        let terminal = match self.kind {
            StreamKind::Chat => "data: [DONE]",
            StreamKind::Responses => "response.completed",
        };
        let cut = if self.parser.ended_inside_event() {
            " (the body ended inside an unfinished event, before its closing blank line)"
        } else {
            ""
        };
        Error::Stream {
            message: format!(
                "stream ended after {} event(s) without {terminal}{cut}",
                self.delivered
            ),
            body: None,
        }
    }
}

/// Whether an event's data is the chat terminal `[DONE]` (blanks around it
/// allowed). A chunk opens with `{`: that much tells it without a trim.
fn is_done_marker(data: &str) -> bool {
    data.as_bytes().first() != Some(&b'{') && data.trim() == "[DONE]"
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

/// Responses events: (text delta, final response when this is a terminal event).
/// `response.completed` and `response.incomplete` (max_output_tokens reached) end
/// the stream with their response; `response.failed` and `error` are errors.
fn responses_event(name: &str, data: &Value) -> Result<(Option<String>, Option<Value>), Error> {
    match name {
        "response.output_text.delta" => Ok((
            data.get("delta").and_then(Value::as_str).map(String::from),
            None,
        )),
        "response.completed" | "response.incomplete" => {
            let response = data
                .get("response")
                .filter(|r| r.is_object())
                .ok_or_else(|| Error::Decode(format!("{name} carries no 'response' object")))?;
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
                    obj.shift_remove("type");
                }
                // The failed response (its id, its partial output) goes with the error.
                if let Some(response) = data.get("response").filter(|r| r.is_object()) {
                    obj.insert("response".into(), response.clone());
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

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
    fn a_stream_cut_inside_an_event_is_a_stream_error_not_a_decode_error() {
        let cut = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"id\":\"c1\",\"cho";
        match run(StreamKind::Chat, cut).0 {
            Err(Error::Stream { message, .. }) => {
                assert!(message.contains("without data: [DONE]"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        // [DONE] without its blank line is unfinished too (WHATWG): the stream ended early.
        for tail in ["data: [DONE]", "data: [DONE]\n"] {
            let (result, _) = run(StreamKind::Chat, &CHAT.replace("data: [DONE]\n\n", tail));
            assert!(matches!(result, Err(Error::Stream { .. })), "{result:?}");
        }
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

    /// The general way alone: every chunk as a JSON tree into the assembler.
    fn assembled_the_general_way(chunks: &[&str]) -> (Value, Vec<(usize, String)>) {
        let mut chat = ChatAssembler::default();
        let mut texts = Vec::new();
        for c in chunks {
            texts.extend(chat.absorb(&serde_json::from_str(c).unwrap()).unwrap());
        }
        (serde_json::from_str(&chat.finish()).unwrap(), texts)
    }

    fn driven(chunks: &[&str], assemble: bool) -> (Option<Value>, Vec<(usize, String)>, usize) {
        let mut text = String::new();
        for c in chunks {
            text.push_str(&format!("data: {c}\n\n"));
        }
        text.push_str("data: [DONE]\n\n");
        let parser = SseParser::new(Cursor::new(text.into_bytes()), 1 << 16);
        let mut driver = StreamDriver::new(StreamKind::Chat, parser).assemble(assemble);
        let mut texts = Vec::new();
        while driver.step().unwrap() == Step::Event {
            let ev = driver.current();
            if let Some(t) = ev.text_delta {
                texts.push((ev.choice_index, t.to_string()));
            }
        }
        let done = driver
            .take_final()
            .map(|f| serde_json::from_str(&f).unwrap());
        (done, texts, driver.read_fast())
    }

    #[test]
    fn the_fast_way_assembles_what_the_general_way_does() {
        let role = r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#;
        let word = |w: &str| {
            format!(
                r#"{{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"content":"{w}"}},"finish_reason":null,"logprobs":null}}]}}"#
            )
        };
        let (a, b, esc) = (word("Hel"), word("lo "), word("\\u00e9\\n\\\""));
        let spaced = r#"{"id": "c1", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"content": "x"}}]}"#;
        let model_change = a.replace("\"m\"", "\"m2\"");
        let stop = r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"total_tokens":3}}"#;
        let usage_only = r#"{"id":"c1","choices":[],"usage":{"total_tokens":4,"x":1}}"#;
        let no_choices = r#"{"usage":{"prompt_tokens":1}}"#;
        let two = r#"{"id":"c1","created":1,"model":"m","choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"A"}}]}"#;
        let tool = r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}"#;
        let streams: Vec<Vec<&str>> = vec![
            vec![role, &a, &b, &a, stop],
            vec![role, &a, &esc, spaced, spaced, &b],
            vec![role, &a, &model_change, &a, &b],
            vec![role, &a, usage_only, &a, no_choices, &b, stop],
            vec![&a, &b],
            vec![role, two, two, &a],
            vec![role, &a, tool, &b, stop],
        ];
        for chunks in &streams {
            let (expected, expected_texts) = assembled_the_general_way(chunks);
            let (done, texts, _) = driven(chunks, true);
            assert_eq!(done.as_ref(), Some(&expected), "{chunks:?}");
            assert_eq!(texts, expected_texts, "{chunks:?}");
            let (done, texts, _) = driven(chunks, false);
            assert_eq!(done, None);
            assert_eq!(texts, expected_texts, "{chunks:?}");
        }
        // And the fast way is taken: every chunk after the first that only adds text
        // (spaces between fields are no news; a new model is).
        let (_, _, fast) = driven(&[role, &a, &b, &a, &b, spaced, spaced], true);
        assert_eq!(fast, 6);
        let (_, _, fast) = driven(&[role, &a, &model_change, &b], true);
        assert_eq!(fast, 1);
        let (_, _, fast) = driven(&[role, &a, &b, tool], false);
        assert_eq!(fast, 4);
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
    fn responses_events_without_names_are_named_by_type_and_incomplete_ends_them() {
        let text = concat!(
            "data: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n",
            "data: {\"type\":\"response.incomplete\",\"response\":{\"id\":\"r1\",\"status\":\"incomplete\"}}\n\n",
            "data: [DONE]\n\n"
        );
        let parser = SseParser::new(Cursor::new(text.as_bytes().to_vec()), 1 << 16);
        let mut names = Vec::new();
        let result = drive(StreamKind::Responses, parser, &mut |ev| {
            names.push(ev.event.to_string());
            true
        });
        let v: Value = serde_json::from_str(&result.unwrap()).unwrap();
        assert_eq!(v["status"], "incomplete");
        assert_eq!(names, ["response.output_text.delta", "response.incomplete"]);
    }

    #[test]
    fn responses_done_before_the_terminal_event_is_an_early_end() {
        let text = "data: {\"type\":\"response.created\"}\n\ndata: [DONE]\n\n";
        match run(StreamKind::Responses, text).0 {
            Err(Error::Stream { message, .. }) => {
                assert!(message.contains("without response.completed"), "{message}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn responses_failed_event_is_a_stream_error() {
        let text = "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"error\":{\"message\":\"boom\"}}}\n\n";
        match run(StreamKind::Responses, text).0 {
            Err(Error::Stream { message, .. }) => assert_eq!(message, "boom"),
            other => panic!("{other:?}"),
        }
    }

    /// The cancel and deadline check is made inside the loops over one chunk's
    /// choices (merging them) and events (handing them out), not only between reads:
    /// a chunk naming 100,000 choices is seconds of CPU in a debug build.
    #[test]
    fn one_chunk_with_many_choices_is_interrupted_inside_its_loops() {
        let n = 3 * CHECK_EVERY;
        let choices: Vec<String> = (0..n)
            .map(|i| format!("{{\"index\":{i},\"delta\":{{\"content\":\"t\"}}}}"))
            .collect();
        let text = format!(
            "data: {{\"choices\":[{}]}}\n\ndata: [DONE]\n\n",
            choices.join(",")
        );
        for assemble in [true, false] {
            let checks = Arc::new(AtomicUsize::new(0));
            let counted = checks.clone();
            // Passes its first check, fails the second: a deadline passing mid-chunk.
            let interrupt: Interrupt =
                Arc::new(move || match counted.fetch_add(1, Ordering::Relaxed) {
                    0 => Ok(()),
                    _ => Err(Error::Timeout("total deadline passed".into())),
                });
            let parser = SseParser::new(Cursor::new(text.clone().into_bytes()), 1 << 22);
            let mut driver = StreamDriver::new(StreamKind::Chat, parser)
                .assemble(assemble)
                .interrupt(interrupt);
            let mut events = 0;
            let end = loop {
                match driver.step() {
                    Ok(Step::Event) => events += 1,
                    other => break other,
                }
            };
            assert!(matches!(end, Err(Error::Timeout(_))), "{assemble}: {end:?}");
            assert!(
                events < n,
                "{assemble}: stopped inside the chunk, after {events} events"
            );
            assert_eq!(checks.load(Ordering::Relaxed), 2, "{assemble}");
        }
    }

    /// A small deterministic generator (xorshift64*): no crate, same cases every run.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len() as u64) as usize]
        }

        /// A JSON string literal: plain, escaped, or broken (lone surrogates).
        fn string(&mut self) -> String {
            self.pick(&[
                r#""Hel""#,
                r#""lo ""#,
                r#""""#,
                r#""\u00e9\n\"""#,
                r#""\ud83d\ude00""#,
                r#""\ud800""#,
                r#""x\udc00y""#,
                r#""\/ok""#,
            ])
            .to_string()
        }

        /// Any JSON value, sometimes nested past serde_json's recursion limit (128).
        fn value(&mut self, depth: u32) -> String {
            match self.below(if depth > 2 { 5 } else { 9 }) {
                0 => "null".into(),
                1 => self
                    .pick(&["0", "1", "-1", "1.5", "1e400", "12345678901234567890123"])
                    .into(),
                2 => self.pick(&["true", "false"]).into(),
                3 | 4 => self.string(),
                5 => format!("[{}, {}]", self.value(depth + 1), self.value(depth + 1)),
                6 => format!(
                    "{{\"a\": {}, \"a\": {}}}",
                    self.value(depth + 1),
                    self.value(depth + 1)
                ),
                7 => {
                    let n = self
                        .pick(&["3", "126", "127", "128", "300"])
                        .parse()
                        .unwrap();
                    format!("{}1{}", "[".repeat(n), "]".repeat(n))
                }
                _ => format!("{{\"k\": {}}}", self.value(depth + 1)),
            }
        }

        fn delta(&mut self) -> String {
            let mut fields = Vec::new();
            for _ in 0..self.below(3) {
                fields.push(match self.below(8) {
                    0..=3 => format!("\"content\": {}", self.string()),
                    4 => "\"content\": null".into(),
                    5 => "\"role\": \"assistant\"".into(),
                    6 => format!("\"reasoning\": {}", self.string()),
                    _ => format!("\"x\": {}", self.value(0)),
                });
            }
            format!("{{{}}}", fields.join(", "))
        }

        fn choice(&mut self) -> String {
            let mut fields = Vec::new();
            for _ in 0..1 + self.below(4) {
                fields.push(match self.below(9) {
                    0..=2 => format!("\"delta\": {}", self.delta()),
                    3 | 4 => format!(
                        "\"index\": {}",
                        self.pick(&["0", "1", "2", "1.5", "-1", "\"0\""])
                    ),
                    5 => "\"finish_reason\": null".into(),
                    6 => format!("\"finish_reason\": {}", self.pick(&["\"stop\"", "null"])),
                    7 => "\"logprobs\": null".into(),
                    _ => format!("\"extra\": {}", self.value(0)),
                });
            }
            if self.below(8) == 0 {
                return self.value(0);
            }
            format!("{{{}}}", fields.join(", "))
        }

        fn chunk(&mut self) -> String {
            let mut fields = Vec::new();
            for _ in 0..1 + self.below(5) {
                fields.push(match self.below(10) {
                    0..=3 => {
                        let choices: Vec<String> =
                            (0..self.below(3)).map(|_| self.choice()).collect();
                        format!("\"choices\": [{}]", choices.join(", "))
                    }
                    4 => format!(
                        "\"id\": {}",
                        self.pick(&["\"c1\"", "\"c1\"", "\"c2\"", "\"\\ud800\""])
                    ),
                    5 => "\"model\": \"m\"".into(),
                    6 => "\"object\": \"chat.completion.chunk\"".into(),
                    7 => format!("\"usage\": {{\"total_tokens\": {}}}", self.below(3)),
                    8 => format!("\"meta\": {}", self.value(0)),
                    _ => format!("\"choices\": {}", self.pick(&["null", "{}", "[]", "1"])),
                });
            }
            if self.below(30) == 0 {
                return self
                    .pick(&[
                        "[1]",
                        "{\"error\": {\"message\": \"boom\"}}",
                        "{\"choices\": [}",
                    ])
                    .into();
            }
            format!("{{{}}}", fields.join(", "))
        }
    }

    /// What a stream gave: its status and, on success, the texts handed out and the
    /// final object.
    fn outcome(
        chunks: &[String],
        assemble: bool,
        general_only: bool,
    ) -> (i32, Vec<(usize, String)>, Option<String>) {
        let mut text = String::new();
        for c in chunks {
            text.push_str("data: ");
            text.push_str(c);
            text.push_str("\n\n");
        }
        text.push_str("data: [DONE]\n\n");
        let parser = SseParser::new(Cursor::new(text.into_bytes()), 1 << 20);
        let mut driver = StreamDriver::new(StreamKind::Chat, parser).assemble(assemble);
        driver.general_only = general_only;
        let mut texts = Vec::new();
        loop {
            match driver.step() {
                Ok(Step::Event) => {
                    let ev = driver.current();
                    if let Some(t) = ev.text_delta {
                        texts.push((ev.choice_index, t.to_string()));
                    }
                }
                Ok(Step::Done) => return (0, texts, driver.take_final()),
                Err(e) => return (e.status(), Vec::new(), None),
            }
        }
    }

    /// One input, one answer: the fast way and the general way agree on the status,
    /// the texts handed out and the final object, for generated streams of generated
    /// chunks (broken strings, deep nesting, repeated keys and fields of every kind).
    #[test]
    fn the_fast_way_and_the_general_way_agree_on_generated_chunks() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        let mut ended_well = 0;
        for case in 0..3000 {
            let chunks: Vec<String> = (0..1 + g.below(4)).map(|_| g.chunk()).collect();
            for assemble in [true, false] {
                let general = outcome(&chunks, assemble, true);
                let fast = outcome(&chunks, assemble, false);
                assert_eq!(
                    fast, general,
                    "case {case}, assemble {assemble}: fast (left) and general (right) differ on {chunks:#?}"
                );
                ended_well += usize::from(general.0 == 0);
            }
        }
        assert!(ended_well > 1000, "many cases end well: {ended_well}");
    }

    /// A Responses event the general way refuses (a lone surrogate in a field gw
    /// does not read, nesting past the limit) is refused the fast way too.
    #[test]
    fn a_responses_event_the_general_way_refuses_is_refused_the_fast_way_too() {
        let deep = format!("{}1{}", "[".repeat(200_000), "]".repeat(200_000));
        for junk in [r#""\ud800""#.to_string(), deep] {
            let text = format!(
                "data: {{\"type\":\"response.output_text.delta\",\"delta\":\"Hi\",\"junk\":{junk}}}\n\n"
            );
            let parser = SseParser::new(Cursor::new(text.into_bytes()), 1 << 20);
            let e = drive(StreamKind::Responses, parser, &mut |_| true).unwrap_err();
            assert!(matches!(e, Error::Decode(_)), "{e:?}");
        }
    }

    /// The three disagreements issue 19 (item 8) reported, each on both ways.
    #[test]
    fn a_lone_surrogate_deep_nesting_and_repeated_choices_get_one_answer() {
        let deep = format!(
            "{{\"x\":{}1{},\"choices\":[]}}",
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        /// A chunk, the status both ways give, and the texts handed out.
        type Case<'a> = (&'a str, i32, &'a [(usize, &'a str)]);
        let cases: [Case<'_>; 3] = [
            (r#"{"id":"\ud800","choices":[]}"#, crate::GW_DECODE, &[]),
            (&deep, crate::GW_DECODE, &[]),
            (
                r#"{"choices":[{"index":0,"delta":{"content":"A"}}],"choices":[{"index":0,"delta":{"content":"B"}}]}"#,
                0,
                &[(0, "B")],
            ),
        ];
        for (chunk, status, texts) in cases {
            let chunks = [chunk.to_string()];
            for assemble in [true, false] {
                for general_only in [true, false] {
                    let (got, got_texts, _) = outcome(&chunks, assemble, general_only);
                    let want: Vec<(usize, String)> =
                        texts.iter().map(|(i, t)| (*i, t.to_string())).collect();
                    assert_eq!(
                        (got, got_texts),
                        (status, want),
                        "{assemble} {general_only}: {:.80}",
                        chunk
                    );
                }
            }
        }
    }
}
