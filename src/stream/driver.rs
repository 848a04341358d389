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

/// `StreamEvent`'s fields as the strings that hold them (`current_mut`): the
/// texts must stay as they are; only their spare capacity may be written (a
/// NUL after them, for C).
pub(crate) struct CurrentMut<'a> {
    pub name: &'a mut String,
    pub data: &'a mut String,
    pub text: Option<&'a mut String>,
    pub index: usize,
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

    /// The event of the last `Step::Event` as its strings, for C to read in
    /// place (`ffi::exchange`, which may only write into their spare capacity).
    pub(crate) fn current_mut(&mut self) -> CurrentMut<'_> {
        let slot = self.slot;
        CurrentMut {
            name: &mut self.name,
            data: &mut self.sse.data,
            text: slot.map(|s| self.scan.texts.get_mut(s)),
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
    pub(crate) fn step_without_read(&mut self) -> Result<Option<Step>, Error> {
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
            self.final_object = Some(crate::api::json_text(&response));
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

    /// The SSE parser (the exchange hands it fed bytes in place).
    pub(crate) fn parser_mut(&mut self) -> &mut SseParser<R> {
        &mut self.parser
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
mod tests;
